/* mbprobe_common.c — what mbprobe's subcommands share (mbprobe_cli.h): the harness's, the
 * device's and the workload's options, their help and parsing, the tables' metadata, the checks
 * before a sweep (the output, the backend) and loading the data.
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
#include "../data/mb_dataset.h"
#include "../net/mb_net.h"
#include "mbprobe_cli.h"
#include "../train/backend/mb_backend.h"
#include "../train/run/mb_run.h"

/* ---- harness options shared by the probes ---------------------------------------------------- */





void harness_help(const mb_probe_options *d)
{
    printf("Timing (per point):\n"
           "      --warmup N        untimed runs first (default %zu)\n"
           "      --min-reps N      timed repetitions at least (default %zu)\n"
           "      --max-reps N      timed repetitions at most (default %zu)\n"
           "      --rel-ci F        stop once the median's 95%% interval lies within F of it\n"
           "                        (default %g)\n"
           "      --budget S        seconds per point, warm-up included (default %g)\n",
           d->warmup, d->min_reps, d->max_reps, d->rel_ci, d->budget_s);
}

/* Handles one harness option: 1 if `c` was one, -1 on a bad value (err filled), 0 if not. */
int harness_option(mb_probe_options *o, int c, const char *arg, mb_error *err)
{
    long v = 0;
    switch (c) {
    case OPT_WARMUP:
    case OPT_MIN_REPS:
    case OPT_MAX_REPS: {
        const char *flag = c == OPT_WARMUP ? "--warmup" : c == OPT_MIN_REPS ? "--min-reps"
                                                                           : "--max-reps";
        long lo = c == OPT_MAX_REPS ? 1 : 0;
        /* samples are kept per point (8 bytes each): 1e6 bounds a point's memory and time */
        if (mb_data_parse_long(arg, lo, 1000000, &v) != MB_OK) {
            char note[160]; /* 1e1: the notation is the fault (campaign 44 A's F7) */
            mb_error_set(err, MB_EINVAL, "%s: '%s' is not a whole number in [%ld, 1e6]%s", flag,
                         arg, lo, mb_data_count_notation(arg, (double)lo, 1e6, note,
                                                         sizeof note));
            return -1;
        }
        *(c == OPT_WARMUP ? &o->warmup : c == OPT_MIN_REPS ? &o->min_reps : &o->max_reps) =
            (size_t)v;
        return 1;
    }
    case OPT_REL_CI: /* 1 or more: the median's interval lies within it at the first check */
        return mb_data_flag_fraction("--rel-ci", arg, &o->rel_ci, err) == MB_OK ? 1 : -1;
    case OPT_BUDGET: /* an hour a point at most: a bound no number typed can remove */
        if (mb_data_flag_double("--budget", arg, 0, MB_POSITIVE, &o->budget_s, err) != MB_OK)
            return -1;
        if (o->budget_s > 3600) {
            mb_error_set(err, MB_EINVAL, "--budget: at most 3600 seconds a point, got '%s'", arg);
            return -1;
        }
        return 1;
    default:
        return 0;
    }
}

/* An option that is not the subcommand's own: a harness option, or a usage error. Returns -1
 * when handled, else the exit status to return. */
int other_option(const char *sub, mb_probe_options *o, int c, char **argv)
{
    mb_error err = {0};
    int h = harness_option(o, c, optarg, &err);
    if (h < 0)
        return mb_cli_fail(prog, sub, &err);
    if (h == 0)
        return mb_cli_bad_option(prog, sub, argv, optind, c);
    return -1;
}

void harness_meta(FILE *f, const mb_probe_options *o)
{
    fprintf(f, "# warmup=%zu\n# min_reps=%zu\n# max_reps=%zu\n# rel_ci=%g\n# budget_s=%g\n",
            o->warmup, o->min_reps, o->max_reps, o->rel_ci, o->budget_s);
}

/* ---- shared by step, conv and learners ------------------------------------------------------- */

int online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* A range flag ("lo:hi" doubling or a comma list) as whole numbers in [1, hi] written in digits
 * (no K, M or G: counts, as mbtrain reads them), sorted, without repeats. *v is allocated here. */
int int_list(const char *arg, const char *flag, int hi, int **v, size_t *n, mb_error *err)
{
    mb_range r = {0};
    int rc = mb_data_parse_counts(arg, flag, 1, hi, &r, err);
    if (rc != MB_OK)
        return rc;
    *v = malloc((r.n ? r.n : 1) * sizeof **v);
    if (!*v) {
        mb_data_range_free(&r);
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < r.n; i++)
        (*v)[i] = (int)r.v[i];
    qsort(*v, r.n, sizeof **v, cmp_int);
    size_t m = 0;
    for (size_t i = 0; i < r.n; i++)
        if (m == 0 || (*v)[i] != (*v)[m - 1])
            (*v)[m++] = (*v)[i];
    mb_data_range_free(&r);
    *n = m;
    return MB_OK;
}

/* A file the command writes (`flag` names it) must not be the network description read or a
 * file of the data set. */
int check_not_input(const char *flag, const char *path, const char *net, const char *data,
                    mb_error *err)
{
    /* a bare name too, resolved as the reader resolves it (campaign 36's E1) */
    if (mb_net_desc_overwritten(flag, path, net, err))
        return MB_EINVAL;
    char which[4096];
    if (data && mb_data_spec_holds(data, path, which, sizeof which))
        return mb_error_set(err, MB_EINVAL, "%s %s would overwrite %s, a file of --data %s",
                            flag, path, which, data);
    return MB_OK;
}

/* The output must be writable before minutes of timing are spent (asked, not opened: a FIFO
 * is opened once, when the table is written), and must not be an input. */
int check_output(const char *output, const char *net, const char *data, mb_error *err)
{
    int rc = check_not_input("-o", output, net, data, err);
    return rc != MB_OK ? rc : mb_out_check(output, err);
}



void device_help(void)
{
    printf("      --backend NAME    cpu or cuda (default cpu): the backend timed, recorded with\n"
           "                        the device's name in the table's backend and device columns\n"
           "      --device N        the backend's device index (CUDA; default 0)\n");
}

int device_option(mb_backend_kind *backend, int *device, int c, const char *arg,
                  mb_error *err)
{
    long v = 0;
    switch (c) {
    case OPT_BACKEND:
        if (mb_backend_parse(arg, backend) == MB_OK)
            return 1;
        mb_error_set(err, MB_EINVAL, "--backend: '%s' is not one of cpu, cuda", arg);
        return -1;
    case OPT_DEVICE:
        if (mb_data_parse_long(arg, 0, 1024, &v) == MB_OK) {
            *device = (int)v;
            return 1;
        }
        char note[160];
        mb_error_set(err, MB_EINVAL, "--device: '%s' is not a whole number in [0, 1024]%s", arg,
                     mb_data_count_notation(arg, 0, 1024, note, sizeof note));
        return -1;
    default:
        return 0;
    }
}

/* Whether the backend can run here, before any data are loaded or anything is timed: one line
 * ("backend cuda: CUDA runtime: no device") when not. */
int backend_check(mb_backend_kind backend, mb_error *err)
{
    char why[400];
    if (mb_train_backend_usable(backend, why, sizeof why))
        return MB_OK;
    return mb_error_set(err, MB_ENOTSUP, "backend %s: %s", mb_backend_name(backend), why);
}


/* OpenBLAS's room under a memory limit (mb_backend_blas_room), once the flags are read:
 * callers, the threads that may call it at once (one learner's threads, times the learners side
 * by side), started, the threads started besides the main one, extra_mib what the workload
 * needs besides. -1 to go on, else the status. */
int blas_room(const char *sub, int callers, int started, int extra_mib)
{
    mb_error err = {0};
    if (mb_backend_blas_room(callers, started, extra_mib, &err) == MB_OK)
        return -1;
    return mb_cli_fail(prog, sub, &err);
}

/* The workload's defaults: lenet5, mbtrain's optimiser (SGD, momentum 0.9 for momentum and
 * nesterov) with a learning rate of 0.01, the net's convolution algorithms. */
mb_probe_step_config workload_defaults(void)
{
    mb_run_options ro;
    mb_run_options_init(&ro);
    mb_probe_step_config c = {.net = "lenet5", .conv_algo = MB_CONV_AUTO, .optim = ro.optim};
    c.optim.lr = 0.01;
    return c;
}

/* The workload's help lines (what is stepped, after --net and --batch). */
void workload_help(const mb_probe_step_config *d)
{
    printf("      --data SPEC       draw shuffled batches from this data set, as mbtrain --data\n"
           "                        does; default: a generated set of uniform random inputs of\n"
           "                        the net's shape (64 MiB at least: larger than the caches)\n"
           "      --algo NAME       the optimiser of the timed update, as mbtrain --algo: sgd,\n"
           "                        momentum, nesterov (default %s)\n"
           "      --lr F            its learning rate (default %g)\n"
           "      --momentum MU     for momentum and nesterov (default %g)\n"
           "      --conv-algo NAME  convolution algorithm where the cfg names none: gemm,\n"
           "                        direct, fft, winograd (default: the network's choice)\n"
           "      --seed N          initialisation, shuffling and generated data (default 0)\n",
           mb_optim_kind_name(d->optim.kind), d->optim.lr, d->optim.momentum);
    device_help();
}

int workload_option(mb_probe_step_config *cfg, const char **data_spec, int c,
                    const char *arg, mb_error *err)
{
    long seed = 0;
    mb_conv_algo conv;
    int d = device_option(&cfg->backend, &cfg->device, c, arg, err);
    if (d != 0)
        return d;
    switch (c) {
    case OPT_NET: cfg->net = arg; return 1;
    case OPT_DATA: *data_spec = arg; return 1;
    case OPT_ALGO:
        if (mb_optim_kind_parse(arg, &cfg->optim.kind) == MB_OK)
            return 1;
        if (mb_conv_algo_parse(arg, &conv) == MB_OK)
            mb_error_set(err, MB_EINVAL, "--algo: '%s' is a convolution algorithm: --algo names "
                         "the optimiser (as mbtrain's), --conv-algo %s the convolutions", arg,
                         arg);
        else
            mb_error_set(err, MB_EINVAL, "--algo: '%s' is not one of sgd, momentum, nesterov",
                         arg);
        return -1;
    case OPT_CONV_ALGO:
        if (mb_conv_algo_parse(arg, &cfg->conv_algo) == MB_OK)
            return 1;
        mb_error_set(err, MB_EINVAL, "--conv-algo: '%s' is not one of gemm, direct, fft, "
                     "winograd", arg);
        return -1;
    case OPT_LR:
        return mb_data_flag_lr("--lr", arg, &cfg->optim.lr, err) == MB_OK ? 1 : -1;
    case OPT_MOMENTUM:
        return mb_data_flag_momentum("--momentum", arg, &cfg->optim.momentum, err) == MB_OK ? 1
                                                                                           : -1;
    case OPT_SEED:
        if (mb_data_parse_long(arg, 0, 1L << 62, &seed) == MB_OK) {
            cfg->seed = (unsigned long)seed;
            return 1;
        }
        char note[160];
        mb_error_set(err, MB_EINVAL, "--seed: '%s' is not a whole number in [0, %ld]%s", arg,
                     1L << 62,
                     mb_data_count_notation(arg, 0, (double)(1L << 62), note, sizeof note));
        return -1;
    default:
        return 0;
    }
}

int workload_ignored(const char *sub, const mb_probe_step_config *cfg, const mb_cli_seen *s)
{
    if (mb_cli_given(s, OPT_MOMENTUM) && cfg->optim.kind == MB_OPTIM_SGD)
        return mb_cli_no_effect(prog, sub, "--momentum", "with --algo sgd: it is the momentum "
                                "of --algo momentum and nesterov");
    if (mb_cli_given(s, OPT_DEVICE) && cfg->backend == MB_BACKEND_CPU)
        return mb_cli_no_effect(prog, sub, "--device", "with --backend cpu (it picks the CUDA "
                                "device)");
    return -1;
}

/* The net's name and the data set named by --data, loaded once. */
int load_data(const char *spec, mb_data_splits *d, mb_error *err)
{
    return spec ? mb_data_load(spec, 0.2, 0, d, err) : MB_OK;
}
