/* mbprobe_step.c — `mbprobe step`: the trainer's real update step per batch size, threads and
 * learners per device, with the knee and the machine's steadiness (probe/step.c).
 */
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
#include "../data/mb_format.h"
#include "../data/mb_dataset.h"
#include "mbprobe_cli.h"
#include "../train/backend/mb_backend.h"
#include "../train/run/mb_run.h"

/* ---- mbprobe step ------------------------------------------------------------------------------ */

/* A sweep is steady when every point's passes agree within this: the repeatability a sweep
 * should have (two sweeps within 5% of each other). */
#define STEADY_DRIFT 0.05

static void step_help(const mb_probe_options *d, const mb_probe_step_config *w, int cpus)
{
    printf("Usage: mbprobe step [OPTION]...\n"
           "Times train/'s real update, the one mbtrain runs (mb_learner_step: draw the next\n"
           "shuffled mini-batch, forward, backward, optimiser step), per total mini-batch size M,\n"
           "thread count and learners per device, and writes the step table\n"
           "  backend,net,batch,learners,threads,reps,t_median_s,t_min_s,t_p25_s,t_p75_s,\n"
           "  t_max_s,samples_per_s,wide,stop,drift,device\n"
           "With L learners the device holds L model copies (You et al.: the chip split into\n"
           "groups); each computes M/L samples, side by side, and an update ends when the slowest\n"
           "is done (each copy computes on its own context of threads/L threads, at least one;\n"
           "the copies run side by side on one pool of L threads; the threads column says how\n"
           "many ran in all, with a note where that is not --threads). Batches that L does not\n"
           "divide are skipped (and said so); a learner count that divides none is refused. For\n"
           "each (learners, threads) the knee M_T of t = gamma max(M, M_T) is printed. drift is\n"
           "how far the medians of a point's passes (--rounds; empty with --rounds 1) lie apart;\n"
           "the summary ends with a steadiness line that says whether the machine kept its speed\n"
           "through the sweep (every drift under %.0f%%) or changed it, in which case a repeat\n"
           "sweep may differ by as much. device is the device's name (the CPU's model on the\n"
           "CPU).\n\n"
           "What is stepped:\n"
           "      --net NAME|FILE   network description (default lenet5)\n"
           "      --batch LIST      total mini-batch sizes: lo:hi (doubling) or a comma list\n"
           "                        (default 1:1024)\n"
           "      --threads LIST    threads on the device (default %d, this machine's CPUs),\n"
           "                        shared evenly by the learners (at least one each)\n"
           "      --learners LIST   model copies per device (default 1)\n",
           100 * STEADY_DRIFT, cpus);
    workload_help(w);
    printf("      --rounds R        measure the batch sizes interleaved, in R passes over them,\n"
           "                        each giving every point budget/R (default 3): each point\n"
           "                        then sees the machine's slow and fast spells alike\n");
    harness_help(d);
    printf("Output:\n"
           "  -o, --output FILE     write the table to FILE (atomically) and a summary to\n"
           "                        standard output; default: the table to standard output and\n"
           "                        the summary to standard error\n"
           "  -h, --help            show this help and exit\n\n"
           "Example (the optimiser of `make run`'s training runs):\n"
           "  mbprobe step --net lenet5 --data fashion-mnist --algo momentum --lr 0.02 \\\n"
           "    --batch 1:1024 -o step.csv\n");
}


static void step_summary_line(FILE *f, const mb_probe_step_row *r)
{
    char drift[16] = "-";
    if (isfinite(r->st.drift))
        snprintf(drift, sizeof drift, "%.1f%%", 100 * r->st.drift);
    fprintf(f, "%-5d %8d %7d %6zu %12.4g %12.4g %12.4g %12.4g %7s %s%s\n", r->batch,
            r->learners, r->threads, r->st.reps, r->st.median, r->st.p25, r->st.p75,
            r->batch / r->st.median, drift, r->st.wide ? "wide spread " : "",
            r->st.why == MB_PROBE_STOP_CI ? "" : r->st.why == MB_PROBE_STOP_BUDGET ? "(budget)"
                                                                                  : "(max-reps)");
}

/* The knee of rows[0..n-1] (one (learners, threads) group, batch increasing). */
static void step_knee(FILE *f, const mb_probe_step_row *rows, size_t n)
{
    if (n < 3) {
        fprintf(f, "knee: learners=%d threads=%d: fewer than 3 batch sizes, no knee fitted\n",
                rows[0].learners, rows[0].threads);
        return;
    }
    double *m = malloc(n * sizeof *m), *t = malloc(n * sizeof *t);
    mb_probe_knee k;
    mb_error err = {0};
    for (size_t i = 0; m && t && i < n; i++)
        m[i] = rows[i].batch, t[i] = rows[i].st.median;
    if (!m || !t)
        fprintf(f, "knee: out of memory\n");
    else if (mb_probe_knee_fit(m, t, n, &k, &err) != MB_OK)
        fprintf(f, "knee: learners=%d threads=%d: %s\n", rows[0].learners, rows[0].threads,
                err.msg);
    else
        fprintf(f, "knee: learners=%d threads=%d: M_T = %.3g%s (t = %.3g s/sample x max(M, M_T);"
                " %.3g s per update below it; typical misfit %.1f%%)\n", rows[0].learners,
                rows[0].threads, k.m_t, k.where == MB_PROBE_KNEE_BELOW ? " (at the smallest M: "
                "time grows with M throughout)" : k.where == MB_PROBE_KNEE_ABOVE ? " (at the "
                "largest M: time is flat throughout)" : "", k.gamma, k.t_flat,
                100 * (exp(k.rms_log) - 1));
    free(m);
    free(t);
}

/* Whether the machine kept its speed through the sweep: the largest drift of rows[0..n-1].
 * With --rounds 2 or more and no drift, the cause is named: a pass after the first always times
 * a sample unless the point already holds --max-reps (probe/harness.c, measure_share), so the
 * first pass took them all (campaign 40's F2: "it needs --rounds 2 or more" at --rounds 2). */
static void step_steadiness(FILE *f, const mb_probe_step_row *rows, size_t n, long rounds,
                            size_t max_reps)
{
    const mb_probe_step_row *worst = NULL;
    double seconds = 0;
    size_t full = 0;
    for (size_t i = 0; i < n; i++) {
        seconds += rows[i].st.elapsed_s;
        full += rows[i].st.reps >= max_reps;
        if (isfinite(rows[i].st.drift) && (!worst || rows[i].st.drift > worst->st.drift))
            worst = &rows[i];
    }
    if (!worst && rounds < 2)
        fprintf(f, "steadiness: not measured (it needs --rounds 2 or more)\n");
    else if (!worst && n > 0 && full == n)
        fprintf(f, "steadiness: not measured: the first of the %ld passes took all --max-reps "
                "%zu samples at every point, leaving the others none to time (raise --max-reps "
                "above what a pass's share of --budget takes)\n", rounds, max_reps);
    else if (!worst)
        fprintf(f, "steadiness: not measured: no point holds timings above 0 s from two of the "
                "%ld passes\n", rounds);
    else if (worst->st.drift <= STEADY_DRIFT)
        fprintf(f, "steadiness: the %ld passes agree within %.1f%% at every point: the machine "
                "kept its speed for the %.0f s of the sweep (a slower phase that outlasts a "
                "sweep shows only between sweeps)\n", rounds, 100 * worst->st.drift, seconds);
    else
        fprintf(f, "steadiness: the %ld passes disagree by up to %.0f%% (batch %d, learners %d, "
                "threads %d): the machine changed speed during the %.0f s of the sweep (other "
                "work on this host?), so a repeat sweep may differ by as much\n", rounds,
                100 * worst->st.drift, worst->batch, worst->learners, worst->threads, seconds);
}

/* Where the summary goes, and whether its header was printed. */
typedef struct step_print {
    FILE *sum;
    int header;
} step_print;

/* After each (threads, learners) group: what was skipped, its rows and its knee. */
static void step_group_done(void *arg, const mb_probe_step_row *rows, size_t n,
                            const int *skipped, size_t n_skipped)
{
    step_print *pr = arg;
    for (size_t i = 0; i < n_skipped; i++)
        fprintf(pr->sum, "(batch %d skipped with %d learners: not a multiple)\n", skipped[i],
                rows[0].learners);
    if (!pr->header++)
        fprintf(pr->sum, "%-5s %8s %7s %6s %12s %12s %12s %12s %7s\n", "batch", "learners",
                "threads", "reps", "t_median_s", "t_p25_s", "t_p75_s", "samples/s", "drift");
    for (size_t i = 0; i < n; i++)
        step_summary_line(pr->sum, &rows[i]);
    if (rows[0].restarts > 0)
        fprintf(pr->sum, "(the timed training diverged %ld time%s with %d learner%s: each time "
                "the learner went back to its first parameters and the timing went on; the rows "
                "time the step, not the training at this learning rate)\n", rows[0].restarts,
                rows[0].restarts == 1 ? "" : "s", rows[0].learners,
                rows[0].learners == 1 ? "" : "s");
    step_knee(pr->sum, rows, n);
}

/* The rows say the threads that ran (mb_probe_step_threads_run): a note for each (threads,
 * learners) where that is not --threads (campaign 21's N17). */
static void threads_notes(FILE *f, const int *threads, size_t nt, const int *learners, size_t nl)
{
    for (size_t ti = 0; ti < nt; ti++)
        for (size_t li = 0; li < nl; li++) {
            int ran = mb_probe_step_threads_run(threads[ti], learners[li]);
            if (ran != threads[ti])
                fprintf(f, "(--threads %d with %d learners: %d thread%s each, at least one; the "
                        "rows say threads=%d)\n", threads[ti], learners[li], ran / learners[li],
                        ran == learners[li] ? "" : "s", ran);
        }
}

/* The step table's own metadata lines: the workload, the harness, the rounds, the overhead. */
static void step_meta(FILE *f, const char *net, const char *data_spec,
                      const mb_probe_step_config *cfg, const mb_probe_options *o, long rounds,
                      const mb_probe_stats *oh)
{
    fprintf(f, "# probe=step\n# net=%s\n# data=", net);
    mb_format_meta_text(f, data_spec ? data_spec : "random"); /* a path: one line */
    fprintf(f, "\n# algo=%s\n# lr=%g\n# momentum=%g\n"
               "# conv_algo=%s\n# seed=%lu\n"
               "# timing=one update = mb_learner_step of every learner: next shuffled batch "
               "gathered, forward, backward, optimiser step\n",
            mb_optim_kind_name(cfg->optim.kind), cfg->optim.lr,
            cfg->optim.momentum,
            cfg->conv_algo == MB_CONV_AUTO ? "auto" : mb_conv_algo_name(cfg->conv_algo),
            cfg->seed);
    harness_meta(f, o);
    fprintf(f, "# rounds=%ld\n", rounds);
    if (oh)
        fprintf(f, "# harness_overhead_s=%.3g\n", oh->median);
}

/* Whether the plan can run here, before anything is read or timed: OpenBLAS's room
 * (mb_backend_blas_room) for its largest row, whose L learners side by side on T / L threads
 * each (at least one) call it at once, and the backend (backend_check). */
static int step_ready(const mb_probe_step_plan *p, mb_backend_kind backend, mb_error *err)
{
    int callers = 1;
    for (size_t i = 0; i < p->n_threads; i++)
        for (size_t k = 0; k < p->n_learners; k++) {
            const int ran = mb_probe_step_threads_run(p->threads[i], p->learners[k]);
            callers = ran > callers ? ran : callers;
        }
    int rc = mb_backend_blas_room(callers, callers - 1, STEP_ROOM_MIB, err);
    return rc != MB_OK ? rc : backend_check(backend, err);
}

/* --rounds N: a whole number in [1, 1000], with the note every count flag gives on a whole
 * number in another notation (mb_data_count_notation; campaign 44 A's F7). */
static int rounds_arg(const char *arg, long *rounds, mb_error *err)
{
    char note[160];
    if (mb_data_parse_long(arg, 1, 1000, rounds) == MB_OK)
        return MB_OK;
    return mb_error_set(err, MB_EINVAL, "--rounds: '%s' is not a whole number in [1, 1000]%s",
                        arg, mb_data_count_notation(arg, 1, 1000, note, sizeof note));
}

int cmd_step(int argc, char **argv, int full_argc, char **full_argv)
{
    const char *sub = "step";
    mb_probe_options o;
    mb_probe_options_init(&o);
    int cpus = online_cpus();
    char cpus_s[16];
    snprintf(cpus_s, sizeof cpus_s, "%d", cpus);
    const char *batch_arg = "1:1024", *threads_arg = cpus_s, *learners_arg = "1",
               *data_spec = NULL, *output = "-";
    mb_probe_step_config cfg = workload_defaults();
    long rounds = 3;
    static const struct option longopts[] = {
        WORKLOAD_LONGOPTS, {"batch", required_argument, 0, OPT_BATCH},
        {"threads", required_argument, 0, OPT_THREADS},
        {"learners", required_argument, 0, OPT_LEARNERS},
        {"rounds", required_argument, 0, OPT_ROUNDS},
        HARNESS_LONGOPTS, {"output", required_argument, 0, 'o'}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    mb_error err = {0};
    int c, rc = MB_OK;
    optind = 1;
    mb_cli_seen seen = {prog, sub, NULL, {0}, NULL};
    while ((c = mb_cli_getopt(argc, argv, ":ho:", longopts, &seen)) != -1) {
        int w = workload_option(&cfg, &data_spec, c, optarg, &err);
        if (w < 0)
            return mb_cli_fail(prog, sub, &err);
        if (w > 0)
            continue;
        switch (c) {
        case 'h': step_help(&o, &cfg, cpus); return 0;
        case 'o': output = optarg; break;
        case OPT_BATCH: batch_arg = optarg; break;
        case OPT_THREADS: threads_arg = optarg; break;
        case OPT_LEARNERS: learners_arg = optarg; break;
        case OPT_ROUNDS:
            if (rounds_arg(optarg, &rounds, &err) != MB_OK)
                return mb_cli_fail(prog, sub, &err);
            break;
        default: {
            int r = other_option(sub, &o, c, argv);
            if (r >= 0)
                return r;
        }
        }
    }
    if (optind < argc)
        return mb_cli_usage(prog, sub, "unexpected argument '%s'", argv[optind]);
    if ((rc = workload_ignored(sub, &cfg, &seen)) >= 0)
        return rc;
    rc = MB_OK;
    int *batch = NULL, *threads = NULL, *learners = NULL;
    size_t nb = 0, nt = 0, nl = 0;
    mb_net_desc *desc = NULL;
    mb_data_splits data = {0};
    mb_probe_step_row *rows = NULL;
    size_t nrows = 0;
    int status = 1;
    /* with -o FILE the summary goes to standard output once the table is written: held until
     * then, so that a table that cannot be written (/dev/full) has claimed nothing */
    char *held = NULL;
    size_t held_n = 0;
    step_print pr = {.sum = strcmp(output, "-") == 0 ? stderr : open_memstream(&held, &held_n)};
    if (!pr.sum) {
        mb_error_set(&err, MB_ENOMEM, "out of memory");
        return mb_cli_fail(prog, sub, &err);
    }
    mb_probe_step_plan plan = {.base = cfg, .rounds = (size_t)rounds, .o = &o,
                               .group_done = step_group_done, .arg = &pr};
    if ((rc = mb_probe_options_check(&o, &err)) != MB_OK ||
        (rc = int_list(batch_arg, "--batch", 1 << 20, &batch, &nb, &err)) != MB_OK ||
        (rc = int_list(threads_arg, "--threads", MB_CTX_MAX_THREADS, &threads, &nt, &err)) !=
            MB_OK ||
        (rc = int_list(learners_arg, "--learners", MB_CTX_MAX_THREADS, &learners, &nl, &err)) !=
            MB_OK) {
        mb_cli_fail(prog, sub, &err);
        goto done;
    }
    plan.batch = batch, plan.n_batch = nb, plan.threads = threads, plan.n_threads = nt;
    plan.learners = learners, plan.n_learners = nl;
    if ((rc = mb_probe_step_plan_check(&plan, &err)) != MB_OK) { /* a usage error: exit 2 */
        status = mb_cli_usage(prog, sub, "%s", err.msg);
        goto done;
    }
    threads_notes(pr.sum, threads, nt, learners, nl);
    if ((rc = step_ready(&plan, cfg.backend, &err)) != MB_OK ||
        (rc = mb_net_desc_read(cfg.net, &desc, &err)) != MB_OK ||
        (rc = check_output(output, cfg.net, data_spec, &err)) != MB_OK ||
        (rc = load_data(data_spec, &data, &err)) != MB_OK) {
        status = mb_cli_fail(prog, sub, &err);
        goto done;
    }
    plan.base.data = data_spec ? &data.train : NULL;
    plan.base.desc = desc; /* read once: --net may be a FIFO */
    plan.net_name = desc->name;
    if ((rc = mb_probe_step_run(&plan, &rows, &nrows, &err)) != MB_OK) {
        status = mb_cli_fail(prog, sub, &err); /* 2: --conv-algo on a net without conv */
        goto done;
    }
    mb_probe_host host;
    mb_probe_host_read(&host);
    mb_probe_stats oh;
    mb_probe_options oo;
    mb_probe_options_init(&oo);
    oo.budget_s = 0.05;
    oo.min_reps = 1000;
    int have_oh = mb_probe_overhead(&oo, &oh, &err) == MB_OK;
    mb_out out;
    if (mb_out_open(&out, output, &err) != MB_OK) {
        mb_cli_fail(prog, sub, &err);
        goto done;
    }
    mb_probe_write_meta(out.f, "mbprobe step", full_argc, full_argv, &host);
    step_meta(out.f, desc->name, data_spec, &cfg, &o, rounds, have_oh ? &oh : NULL);
    mb_probe_step_write_header(out.f);
    for (size_t i = 0; i < nrows; i++)
        mb_probe_step_write_row(out.f, &rows[i]);
    if (mb_out_commit(&out, &err) != MB_OK) {
        mb_cli_fail(prog, sub, &err);
        goto done;
    }
    if (have_oh && nrows) {
        double least = INFINITY;
        for (size_t i = 0; i < nrows; i++)
            least = fmin(least, rows[i].st.median);
        fprintf(pr.sum, "harness overhead: %.3g s per sample, %.2g%% of the smallest step timed\n",
                oh.median, 100 * oh.median / least);
    }
    step_steadiness(pr.sum, rows, nrows, rounds, o.max_reps);
    if (pr.sum != stderr) {
        fclose(pr.sum);
        pr.sum = NULL;
        fwrite(held, 1, held_n, stdout);
    }
    status = 0;
done:
    if (pr.sum && pr.sum != stderr)
        fclose(pr.sum);
    free(held);
    free(rows);
    free(batch);
    free(threads);
    free(learners);
    mb_net_desc_free(desc);
    mb_data_splits_free(&data);
    return status;
}
