/* mbprobe_learners.c — `mbprobe learners`: Crossbow's learner-count auto-tuner on the real
 * update step (probe/tune.c).
 */
#include <float.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../data/mb_parse.h"
#include "../data/mb_cli.h"
#include "../data/mb_output.h"
#include "../data/mb_dataset.h"
#include "mbprobe_cli.h"
#include "../train/backend/mb_backend.h"
#include "../train/run/mb_run.h"

/* ---- mbprobe learners -------------------------------------------------------------------------- */

/* After each learner count is timed: a progress line. */
static void learners_measured(void *arg, int k, double t_median_s, double samples_per_s)
{
    fprintf(stderr, "  %d learner%s x %d samples: %.4g s per update, %.4g samples/s\n", k,
            k == 1 ? " " : "s", *(const int *)arg, t_median_s, samples_per_s);
}

int cmd_learners(int argc, char **argv, int full_argc, char **full_argv)
{
    const char *sub = "learners";
    mb_probe_options o;
    mb_probe_options_init(&o);
    mb_probe_learners_plan plan = {.base = workload_defaults(), .batch = 64, .o = &o,
                                   .measured = learners_measured};
    plan.arg = &plan.batch;
    mb_probe_tune_init(&plan.tune);
    mb_probe_tune *tune = &plan.tune;
    int cpus = online_cpus();
    plan.base.threads = cpus;
    const char *data_spec = NULL, *output = NULL;
    static const struct option longopts[] = {
        WORKLOAD_LONGOPTS, {"batch", required_argument, 0, OPT_BATCH},
        {"threads", required_argument, 0, OPT_THREADS},
        {"threshold", required_argument, 0, OPT_THRESHOLD},
        {"max-learners", required_argument, 0, OPT_MAX_LEARNERS},
        HARNESS_LONGOPTS, {"output", required_argument, 0, 'o'}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    mb_error err = {0};
    int c, rc = MB_OK;
    optind = 1;
    mb_cli_seen seen = {prog, sub, NULL, {0}, NULL};
    while ((c = mb_cli_getopt(argc, argv, ":ho:", longopts, &seen)) != -1) {
        int w = workload_option(&plan.base, &data_spec, c, optarg, &err);
        if (w < 0)
            return mb_cli_fail(prog, sub, &err);
        if (w > 0)
            continue;
        switch (c) {
        case 'h':
            printf("Usage: mbprobe learners [OPTION]...\n"
                   "Crossbow's auto-tuner (Koliousis et al. 2019): start with one learner on the\n"
                   "device, add one while the throughput of the real update step (as 'mbprobe\n"
                   "step' times it, every learner computing --batch samples) rises by more than\n"
                   "the threshold, then keep the last count that paid. Prints the chosen count\n"
                   "and the throughput curve.\n\n"
                   "      --net NAME|FILE   network description (default lenet5)\n"
                   "      --batch M         samples per learner per update (default 64)\n"
                   "      --threads N       threads on the device (default %d)\n", cpus);
            workload_help(&plan.base);
            printf("      --threshold F     keep a learner only if throughput rises by more\n"
                   "                        than F (default %g, as Crossbow)\n"
                   "      --max-learners N  try at most N learners (default %d)\n",
                   tune->threshold, tune->max_learners);
            harness_help(&o);
            printf("  -o, --output FILE     also write the curve as CSV: learners,batch,"
                   "t_median_s,samples_per_s\n"
                   "  -h, --help            show this help and exit\n");
            return 0;
        case 'o': output = optarg; break;
        case OPT_BATCH:
        case OPT_THREADS:
        case OPT_MAX_LEARNERS: {
            const char *flag = c == OPT_BATCH ? "--batch" : c == OPT_THREADS ? "--threads"
                                                                           : "--max-learners";
            double v = 0; /* out of range: the range said (K12) */
            rc = mb_data_flag_whole(flag, optarg, 0, 1, c == OPT_BATCH ? 1 << 20 : 4096, &v, &err);
            *(c == OPT_BATCH ? &plan.batch : c == OPT_THREADS ? &plan.base.threads
                                                              : &tune->max_learners) = (int)v;
            break;
        }
        case OPT_THRESHOLD:
            rc = mb_data_flag_double("--threshold", optarg, 0, MB_NONNEG, &tune->threshold, &err);
            /* bounded as the flags taken in float are (campaign 38's D9: 1e39, a rise no
             * learner can give, was taken and tuned to one learner unsaid) */
            if (rc == MB_OK && tune->threshold > FLT_MAX)
                rc = mb_error_set(&err, MB_EINVAL, "--threshold: '%s' is above the largest float "
                                  "(%.2g): a rise no added learner could ever give", optarg,
                                  (double)FLT_MAX);
            break;
        default: {
            int r = other_option(sub, &o, c, argv);
            if (r >= 0)
                return r;
        }
        }
        if (rc != MB_OK)
            return mb_cli_fail(prog, sub, &err);
    }
    if (optind < argc)
        return mb_cli_usage(prog, sub, "unexpected argument '%s'", argv[optind]);
    if ((rc = workload_ignored(sub, &plan.base, &seen)) >= 0)
        return rc;
    /* up to --max-learners side by side, T / L threads each (at least one) */
    int callers = tune->max_learners > plan.base.threads ? tune->max_learners : plan.base.threads;
    if ((rc = blas_room(sub, callers, callers - 1, STEP_ROOM_MIB)) >= 0)
        return rc;
    rc = MB_OK;
    mb_net_desc *desc = NULL;
    mb_data_splits data = {0};
    mb_probe_learners_result res = {0};
    int status = 1;
    if ((rc = mb_probe_options_check(&o, &err)) != MB_OK ||
        (rc = backend_check(plan.base.backend, &err)) != MB_OK ||
        (rc = mb_net_desc_read(plan.base.net, &desc, &err)) != MB_OK ||
        (rc = mb_net_desc_check_conv_algo(desc, plan.base.conv_algo, &err)) != MB_OK ||
        (output && (rc = check_output(output, plan.base.net, data_spec, &err)) != MB_OK) ||
        (rc = load_data(data_spec, &data, &err)) != MB_OK) {
        status = mb_cli_fail(prog, sub, &err);
        goto done;
    }
    plan.base.data = data_spec ? &data.train : NULL;
    plan.base.desc = desc; /* read once: --net may be a FIFO */
    if (mb_probe_learners_check(&plan, &err) != MB_OK && mb_cli_fail(prog, sub, &err))
        goto done; /* before the header: a refusal is one line (mb_cli_fail returns 1) */
    mb_cli_say("mbprobe", "learners", "%s, %d samples per learner, %d threads, threshold %g",
               desc->name, plan.batch, plan.base.threads, tune->threshold);
    if (mb_probe_learners_run(&plan, &res, &err) != MB_OK) {
        mb_cli_fail(prog, sub, &err);
        goto done;
    }
    const double *curve = res.samples_per_s;
    if (output) { /* the table first: one that cannot be written has claimed nothing */
        mb_out out;
        if (mb_out_open(&out, output, &err) != MB_OK) {
            mb_cli_fail(prog, sub, &err);
            goto done;
        }
        mb_probe_host host;
        mb_probe_host_read(&host);
        mb_probe_write_meta(out.f, "mbprobe learners", full_argc, full_argv, &host);
        fprintf(out.f, "# probe=learners\n# net=%s\n# threshold=%g\n# chosen=%d\n", desc->name,
                tune->threshold, res.chosen);
        harness_meta(out.f, &o);
        for (char *q = res.device; *q; q++) /* CSV-safe */
            *q = *q == ',' ? ';' : *q;
        fprintf(out.f, "learners,batch,t_median_s,samples_per_s,backend,device\n");
        for (int k = 0; k < res.n; k++)
            fprintf(out.f, "%d,%d,%.6g,%.6g,%s,%s\n", k + 1, (k + 1) * plan.batch,
                    res.t_median_s[k], curve[k], res.backend, res.device);
        if (mb_out_commit(&out, &err) != MB_OK) {
            mb_cli_fail(prog, sub, &err);
            goto done;
        }
    }
    printf("learners=%d (throughput %.4g samples/s; measured 1..%d:", res.chosen,
           curve[res.chosen - 1], res.n);
    for (int k = 0; k < res.n; k++)
        printf(" %.4g", curve[k]);
    printf(")\n");
    status = 0;
done:
    mb_probe_learners_result_free(&res);
    mb_net_desc_free(desc);
    mb_data_splits_free(&data);
    return status;
}
