/* mbprobe.c — the `mbprobe` command: timing sweeps.
 *
 *   mbprobe comm      collectives under mpirun (allreduce, reduce+bcast, gather+scatter)
 *   mbprobe overhead  the timing harness's own cost per sample and the clock's resolution
 *   mbprobe step      train/'s real update step per batch size, threads and learners per device
 *   mbprobe conv      every convolution algorithm per layer, pass and batch size (cached)
 *   mbprobe learners  Crossbow's learner-count auto-tuner on the real update step
 *
 * Thin: parse options, call probe/, print. Usage errors exit 2, bad values or files exit 1 with
 * one line naming the flag or file.
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
#include "mb_probe.h"
#include "../train/backend/mb_backend.h"
#include "../train/run/mb_run.h"

static const char *prog = "mbprobe";

static void help(void)
{
    printf("Usage: mbprobe COMMAND [OPTION]...\n"
           "Timing sweeps on this machine, written as the tables of docs/design.md.\n\n"
           "Commands:\n"
           "  step      time train/'s real forward, backward and update per batch size, threads\n"
           "            and learners per device, and find the knee M_T\n"
           "  comm      time MPI_Allreduce, MPI_Reduce+MPI_Bcast and MPI_Gather+MPI_Scatter per\n"
           "            message size; run it as 'mpirun -np N mbprobe comm ...' (N >= 2)\n"
           "  conv      time each convolution algorithm per layer, pass and batch size, with the\n"
           "            workspace each needs (cached per host and shape)\n"
           "  learners  Crossbow's auto-tuner: add learners per device while throughput rises by\n"
           "            more than a threshold\n"
           "  overhead  the timing harness's own cost per sample, and the clock's resolution\n\n"
           "  -h, --help      show this help and exit\n"
           "  -V, --version   show the version and exit\n\n"
           "'mbprobe COMMAND --help' describes each command.\n");
}

/* ---- harness options shared by the probes ---------------------------------------------------- */

enum {
    OPT_BYTES = 256, OPT_OPS, OPT_WARMUP, OPT_MIN_REPS, OPT_MAX_REPS, OPT_REL_CI, OPT_BUDGET,
    OPT_NET, OPT_BATCH, OPT_THREADS, OPT_LEARNERS, OPT_DATA, OPT_ALGO, OPT_SEED, OPT_LR,
    OPT_MOMENTUM, OPT_CONV_ALGO,
    OPT_ALGOS, OPT_CACHE, OPT_NO_CACHE, OPT_THRESHOLD, OPT_MAX_LEARNERS, OPT_ROUNDS,
    OPT_BACKEND, OPT_DEVICE
};

#define HARNESS_LONGOPTS                                                                          \
    {"warmup", required_argument, 0, OPT_WARMUP},                                                \
        {"min-reps", required_argument, 0, OPT_MIN_REPS},                                        \
        {"max-reps", required_argument, 0, OPT_MAX_REPS},                                        \
        {"rel-ci", required_argument, 0, OPT_REL_CI}, {"budget", required_argument, 0, OPT_BUDGET}

static void harness_help(const mb_probe_options *d)
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
static int harness_option(mb_probe_options *o, int c, const char *arg, mb_error *err)
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
            mb_error_set(err, MB_EINVAL, "%s: '%s' is not a whole number in [%ld, 1e6]", flag,
                         arg, lo);
            return -1;
        }
        *(c == OPT_WARMUP ? &o->warmup : c == OPT_MIN_REPS ? &o->min_reps : &o->max_reps) =
            (size_t)v;
        return 1;
    }
    case OPT_REL_CI:
        return mb_data_flag_double("--rel-ci", arg, 0, MB_NONNEG, &o->rel_ci, err) == MB_OK ? 1
                                                                                           : -1;
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
static int other_option(const char *sub, mb_probe_options *o, int c, char **argv)
{
    mb_error err = {0};
    int h = harness_option(o, c, optarg, &err);
    if (h < 0)
        return mb_cli_fail(prog, sub, &err);
    if (h == 0)
        return mb_cli_bad_option(prog, sub, argv, optind, c);
    return -1;
}

static void harness_meta(FILE *f, const mb_probe_options *o)
{
    fprintf(f, "# warmup=%zu\n# min_reps=%zu\n# max_reps=%zu\n# rel_ci=%g\n# budget_s=%g\n",
            o->warmup, o->min_reps, o->max_reps, o->rel_ci, o->budget_s);
}

/* ---- mbprobe overhead -------------------------------------------------------------------------- */

static int cmd_overhead(int argc, char **argv)
{
    const char *sub = "overhead";
    mb_probe_options o;
    mb_probe_options_init(&o);
    o.budget_s = 0.5;
    o.min_reps = 1000; /* many samples: the overhead is near the clock's resolution */
    o.max_reps = 100000;
    static const struct option longopts[] = {HARNESS_LONGOPTS, {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    mb_error err = {0};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        if (c == 'h') {
            printf("Usage: mbprobe overhead [OPTION]...\n"
                   "Times an empty callback one call per sample with the harness: its median is\n"
                   "what reading the clock twice and one indirect call add to every sample.\n\n");
            harness_help(&o);
            return 0;
        }
        int rc = other_option(sub, &o, c, argv);
        if (rc >= 0)
            return rc;
    }
    if (optind < argc)
        return mb_cli_usage(prog, sub, "unexpected argument '%s'", argv[optind]);
    mb_probe_stats st;
    if (mb_probe_overhead(&o, &st, &err) != MB_OK)
        return mb_cli_fail(prog, sub, &err);
    printf("harness overhead per sample: median %.3g s (p25 %.3g, p75 %.3g, min %.3g, max %.3g; "
           "%zu reps, stopped by %s)\n", st.median, st.p25, st.p75, st.min, st.max, st.reps,
           mb_probe_stop_name(st.why));
    printf("CLOCK_MONOTONIC resolution: %.3g s (clock_getres); smallest step seen: %.3g s\n",
           mb_probe_clock_resolution(), mb_probe_clock_step());
    return 0;
}

/* ---- mbprobe comm ------------------------------------------------------------------------------ */

static void comm_help(const mb_probe_options *d)
{
    printf("Usage: mpirun -np N mbprobe comm [OPTION]...      (N >= 2)\n"
           "Times MPI_Allreduce (allreduce), MPI_Reduce then MPI_Bcast (reduce_bcast, the tree of\n"
           "Sync EASGD) and MPI_Gather then MPI_Scatter at rank 0 (ps, one parameter server) on\n"
           "float32 messages of each size, and writes the collective table\n"
           "  op,procs,bytes,reps,t_median_s,t_min_s,t_max_s,t_rank_min_s,t_rank_max_s,\n"
           "  alg_bw_Bps,bus_bw_Bps,wide,stop\n"
           "Each iteration follows an MPI_Barrier; its time is the slowest rank's. t_median_s is\n"
           "the median over iterations (t_min_s, t_max_s the extremes); t_rank_min/max_s are the\n"
           "extremes over ranks of each rank's own median. alg_bw = bytes / t_median_s; bus_bw =\n"
           "alg_bw * 2(n-1)/n (allreduce, as nccl-tests), * 2 (reduce_bcast), * 2(n-1) (ps).\n"
           "Only rank 0 writes. As root, Open MPI needs --allow-run-as-root (or\n"
           "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1).\n\n"
           "Sweep:\n"
           "      --bytes LIST      message sizes per rank: lo:hi (doubling) or a comma list,\n"
           "                        K/M/G = 2^10/2^20/2^30, rounded down to a multiple of 4\n"
           "                        (float32 data); default 4:16M\n"
           "      --ops LIST        comma list of allreduce, reduce_bcast, ps (default all)\n");
    harness_help(d);
    printf("Output:\n"
           "  -o, --output FILE     write the table to FILE (atomically) and a summary to\n"
           "                        standard output; default: the table to standard output\n"
           "  -h, --help            show this help and exit\n\n"
           "Example:\n"
           "  mpirun --oversubscribe -np 2 mbprobe comm --bytes 4:16M -o comm.csv\n");
}

/* Under mpirun every rank parses the same flags: before MPI_Init, only the first rank (as Open
 * MPI's environment names it) says what is wrong, so a bad flag is one line, not one a rank. */
static int comm_fail(const char *sub, const mb_error *err)
{
    const char *r = getenv("OMPI_COMM_WORLD_RANK");
    if (r && strcmp(r, "0") != 0)
        return MB_EXIT_DATA;
    return mb_cli_fail(prog, sub, err);
}

static int parse_ops(const char *s, int *use, mb_error *err)
{
    char **items;
    size_t n;
    int rc = mb_data_split_list(s, "--ops", 0, &items, &n, err); /* no empty item */
    if (rc != MB_OK)
        return rc;
    for (int i = 0; i < MB_PROBE_NOPS; i++)
        use[i] = 0;
    for (size_t i = 0; rc == MB_OK && i < n; i++) {
        mb_probe_op op;
        if (mb_probe_op_parse(items[i], &op) != MB_OK)
            rc = mb_error_set(err, MB_EINVAL,
                              "--ops: '%s' is not one of allreduce, reduce_bcast, ps", items[i]);
        else if (use[op]) /* it would be timed twice */
            rc = mb_error_set(err, MB_EINVAL, "--ops: '%s' given twice in '%s'", items[i], s);
        else
            use[op] = 1;
    }
    free(items);
    return rc;
}

static void comm_summary(FILE *f, const mb_probe_comm_row *rows, size_t n)
{
    fprintf(f, "%-13s %5s %10s %6s %12s %12s %12s %12s %12s %s\n", "op", "procs", "bytes",
            "reps", "t_median_s", "t_min_s", "t_max_s", "alg_GB/s", "bus_GB/s", "note");
    for (size_t i = 0; i < n; i++) {
        const mb_probe_comm_row *r = &rows[i];
        fprintf(f, "%-13s %5d %10zu %6zu %12.4g %12.4g %12.4g %12.4g %12.4g %s%s\n",
                mb_probe_op_name(r->op), r->procs, r->bytes, r->reps, r->t_median_s, r->t_min_s,
                r->t_max_s, r->alg_bw_Bps / 1e9, r->bus_bw_Bps / 1e9,
                r->wide ? "wide spread " : "", r->why == MB_PROBE_STOP_CI ? "" :
                r->why == MB_PROBE_STOP_BUDGET ? "(budget)" : "(max-reps)");
    }
}

static int cmd_comm(int argc, char **argv, int full_argc, char **full_argv)
{
    const char *sub = "comm";
    mb_probe_options o;
    mb_probe_options_init(&o);
    o.warmup = 5;
    o.max_reps = 1000;
    o.budget_s = 0.2;
    const char *bytes_arg = "4:16M", *output = "-";
    int use[MB_PROBE_NOPS] = {1, 1, 1};
    static const struct option longopts[] = {
        {"bytes", required_argument, 0, OPT_BYTES}, {"ops", required_argument, 0, OPT_OPS},
        HARNESS_LONGOPTS, {"output", required_argument, 0, 'o'}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    mb_error err = {0};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
        switch (c) {
        case 'h': comm_help(&o); return 0;
        case 'o': output = optarg; break;
        case OPT_BYTES: bytes_arg = optarg; break;
        case OPT_OPS:
            if (parse_ops(optarg, use, &err) != MB_OK)
                return comm_fail(sub, &err);
            break;
        default: {
            int rc = other_option(sub, &o, c, argv);
            if (rc >= 0)
                return rc;
        }
        }
    }
    if (optind < argc)
        return mb_cli_usage(prog, sub, "unexpected argument '%s'", argv[optind]);
    if (mb_probe_options_check(&o, &err) != MB_OK)
        return comm_fail(sub, &err);
    mb_range range = {0};
    size_t *sizes = NULL;
    if (mb_data_parse_range(bytes_arg, "--bytes", &range, &err) != MB_OK)
        return comm_fail(sub, &err);
    int rc = mb_probe_comm_sizes(range.v, range.n, &sizes, &err);
    size_t nsizes = range.n;
    mb_data_range_free(&range);
    if (rc != MB_OK)
        return comm_fail(sub, &err);
    /* Is the output writable? Checked on every process before MPI starts, so a bad path is one
     * line and exit 1 whether or not mpirun is used. */
    mb_out out;
    if (mb_out_check(output, &err) != MB_OK) {
        free(sizes);
        return comm_fail(sub, &err);
    }

    /* Open MPI initialises a singleton without mpirun, so a plain run gets here with 1 rank. */
    if (MPI_Init(&full_argc, &full_argv) != MPI_SUCCESS) {
        free(sizes);
        fprintf(stderr, "%s %s: MPI could not start: run it as 'mpirun -np N mbprobe comm ...' "
                "with N >= 2\n", prog, sub);
        return 1;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int procs = 1, rank = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (procs < 2) {
        fprintf(stderr, "%s %s: needs at least 2 MPI processes, got %d: run it as "
                "'mpirun -np N mbprobe comm ...' with N >= 2\n", prog, sub, procs);
        free(sizes);
        MPI_Finalize();
        return 1;
    }

    mb_probe_comm_row *rows = calloc(nsizes * MB_PROBE_NOPS, sizeof *rows);
    size_t nrows = 0;
    int status = 0;
    if (!rows) {
        fprintf(stderr, "%s %s: out of memory\n", prog, sub);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* One operation at a time across all sizes, as OSU's benchmarks sweep. */
    for (int op = 0; op < MB_PROBE_NOPS && status == 0; op++) {
        if (!use[op])
            continue;
        for (size_t i = 0; i < nsizes; i++) {
            rc = mb_probe_comm_point(MPI_COMM_WORLD, (mb_probe_op)op, sizes[i], &o, &rows[nrows],
                                     &err);
            if (rc == MB_EMPI) {
                mb_cli_fail(prog, sub, &err);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            if (rc != MB_OK) { /* agreed by every rank (a failed allocation anywhere) */
                if (rank == 0)
                    mb_cli_fail(prog, sub, &err);
                status = 1;
                break;
            }
            nrows++;
        }
    }
    if (rank == 0 && status == 0) {
        mb_probe_host host;
        mb_probe_host_read(&host);
        mb_probe_stats oh;
        mb_probe_options oo;
        mb_probe_options_init(&oo);
        oo.budget_s = 0.05;
        oo.min_reps = 1000;
        int have_oh = mb_probe_overhead(&oo, &oh, &err) == MB_OK;
        if (mb_out_open(&out, output, &err) != MB_OK) {
            status = mb_cli_fail(prog, sub, &err);
        } else {
            mb_probe_write_meta(out.f, "mbprobe comm", full_argc, full_argv, &host);
            fprintf(out.f, "# probe=comm\n# procs=%d\n", procs);
            harness_meta(out.f, &o);
            if (have_oh)
                fprintf(out.f, "# harness_overhead_s=%.3g\n", oh.median);
            fprintf(out.f, "# timing=barrier then op per iteration; sample = max over ranks; "
                           "t_median_s = median over iterations\n"
                           "# bytes=per rank, float32 data, rounded down to a multiple of 4\n");
            mb_probe_comm_write_header(out.f);
            for (size_t i = 0; i < nrows; i++)
                mb_probe_comm_write_row(out.f, &rows[i]);
            if (mb_out_commit(&out, &err) != MB_OK)
                status = mb_cli_fail(prog, sub, &err);
            else if (strcmp(output, "-") != 0)
                comm_summary(stdout, rows, nrows);
        }
    }
    free(rows);
    free(sizes);
    /* Rank 0's write status decides every rank's exit status. */
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}

/* ---- shared by step, conv and learners ------------------------------------------------------- */

static int online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* A range flag ("lo:hi" doubling or a comma list) as whole numbers in [1, hi], sorted, without
 * repeats. *v is allocated here. */
static int int_list(const char *arg, const char *flag, int hi, int **v, size_t *n, mb_error *err)
{
    mb_range r = {0};
    int rc = mb_data_parse_range(arg, flag, &r, err);
    if (rc != MB_OK)
        return rc;
    *v = malloc((r.n ? r.n : 1) * sizeof **v);
    if (!*v) {
        mb_data_range_free(&r);
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < r.n; i++) {
        if (r.v[i] != floor(r.v[i]) || r.v[i] < 1 || r.v[i] > hi) {
            rc = mb_error_set(err, MB_EINVAL, "%s: '%g' is not a whole number in [1, %d]", flag,
                              r.v[i], hi);
            break;
        }
        (*v)[i] = (int)r.v[i];
    }
    size_t m = 0;
    if (rc == MB_OK) {
        qsort(*v, r.n, sizeof **v, cmp_int);
        for (size_t i = 0; i < r.n; i++)
            if (m == 0 || (*v)[i] != (*v)[m - 1])
                (*v)[m++] = (*v)[i];
    }
    mb_data_range_free(&r);
    if (rc != MB_OK) {
        free(*v);
        *v = NULL;
        return rc;
    }
    *n = m;
    return MB_OK;
}

/* The output must be writable before minutes of timing are spent (asked, not opened: a FIFO
 * is opened once, when the table is written), and must not be the network description read. */
static int check_output(const char *output, const char *net, mb_error *err)
{
    size_t n = net ? strlen(net) : 0;
    int path = net && (strchr(net, '/') || (n > 4 && strcmp(net + n - 4, ".cfg") == 0));
    if (path && mb_data_same_file(output, net)) /* a bare name is data/nets/NAME.cfg */
        return mb_error_set(err, MB_EINVAL, "-o %s would overwrite --net %s", output, net);
    return mb_out_check(output, err);
}

/* The device's options, shared by step, learners and conv: --backend cpu|cuda and --device N.
 * 1 if `c` was one, -1 on a bad value (err filled), 0 if not. */
#define DEVICE_LONGOPTS                                                                           \
    {"backend", required_argument, 0, OPT_BACKEND}, {"device", required_argument, 0, OPT_DEVICE}

static void device_help(void)
{
    printf("      --backend NAME    cpu or cuda (default cpu): the backend timed, recorded with\n"
           "                        the device's name in the table's backend and device columns\n"
           "      --device N        the backend's device index (CUDA; default 0)\n");
}

static int device_option(mb_backend_kind *backend, int *device, int c, const char *arg,
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
        mb_error_set(err, MB_EINVAL, "--device: '%s' is not a whole number in [0, 1024]", arg);
        return -1;
    default:
        return 0;
    }
}

/* Whether the backend can run here, before any data are loaded or anything is timed: one line
 * ("backend cuda: CUDA runtime: no device") when not. */
static int backend_check(mb_backend_kind backend, mb_error *err)
{
    char why[160];
    if (mb_train_backend_usable(backend, why, sizeof why))
        return MB_OK;
    return mb_error_set(err, MB_ENOTSUP, "backend %s: %s", mb_backend_name(backend), why);
}

/* The stepped workload's options, shared by step and learners, spelt as mbtrain spells them
 * (--net, --data, --algo, --lr, --momentum, --conv-algo, --seed): 1 if `c` was one, -1 on a bad
 * value (err filled), 0 if not. */
#define WORKLOAD_LONGOPTS                                                                         \
    {"net", required_argument, 0, OPT_NET}, {"data", required_argument, 0, OPT_DATA},            \
        {"algo", required_argument, 0, OPT_ALGO}, {"lr", required_argument, 0, OPT_LR},          \
        {"momentum", required_argument, 0, OPT_MOMENTUM},                                        \
        {"conv-algo", required_argument, 0, OPT_CONV_ALGO},                                      \
        {"seed", required_argument, 0, OPT_SEED}, DEVICE_LONGOPTS

/* The workload's defaults: lenet5, mbtrain's optimiser (SGD, momentum 0.9 for momentum and
 * nesterov) with a learning rate of 0.01, the net's convolution algorithms. */
static mb_probe_step_config workload_defaults(void)
{
    mb_run_options ro;
    mb_run_options_init(&ro);
    mb_probe_step_config c = {.net = "lenet5", .conv_algo = MB_CONV_AUTO, .optim = ro.optim};
    c.optim.lr = 0.01;
    return c;
}

/* The workload's help lines (what is stepped, after --net and --batch). */
static void workload_help(const mb_probe_step_config *d)
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

static int workload_option(mb_probe_step_config *cfg, const char **data_spec, int c,
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
        return mb_data_flag_double("--lr", arg, 0, MB_POSITIVE, &cfg->optim.lr, err) == MB_OK ? 1
                                                                                           : -1;
    case OPT_MOMENTUM:
        return mb_data_flag_double("--momentum", arg, 0, MB_NONNEG, &cfg->optim.momentum, err) ==
                       MB_OK ? 1 : -1;
    case OPT_SEED:
        if (mb_data_parse_long(arg, 0, 1L << 62, &seed) == MB_OK) {
            cfg->seed = (unsigned long)seed;
            return 1;
        }
        mb_error_set(err, MB_EINVAL, "--seed: '%s' is not a whole number >= 0", arg);
        return -1;
    default:
        return 0;
    }
}

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
           "is done (each copy computes on its own context of threads/L threads; the copies run\n"
           "side by side on one pool of L threads). Batches that L does not divide are skipped\n"
           "(and said so); a learner count that divides none is refused. For each (learners,\n"
           "threads) the knee M_T of t = gamma max(M, M_T) is printed. drift is how far the\n"
           "medians of a point's passes (--rounds; empty with --rounds 1) lie apart; the summary\n"
           "ends with a steadiness line that says whether the machine kept its speed through\n"
           "the sweep (every drift under %.0f%%) or changed it, in which case a repeat sweep may\n"
           "differ by as much. device is the device's name (the CPU's model on the CPU).\n\n"
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

/* The net's name and the data set named by --data, loaded once. */
static int load_data(const char *spec, mb_data_splits *d, mb_error *err)
{
    return spec ? mb_data_load(spec, 0.2, 0, d, err) : MB_OK;
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

/* Whether the machine kept its speed through the sweep: the largest drift of rows[0..n-1]. */
static void step_steadiness(FILE *f, const mb_probe_step_row *rows, size_t n, long rounds)
{
    const mb_probe_step_row *worst = NULL;
    double seconds = 0;
    for (size_t i = 0; i < n; i++) {
        seconds += rows[i].st.elapsed_s;
        if (isfinite(rows[i].st.drift) && (!worst || rows[i].st.drift > worst->st.drift))
            worst = &rows[i];
    }
    if (!worst)
        fprintf(f, "steadiness: not measured (it needs --rounds 2 or more)\n");
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
    step_knee(pr->sum, rows, n);
}

/* The step table's own metadata lines: the workload, the harness, the rounds, the overhead. */
static void step_meta(FILE *f, const char *net, const char *data_spec,
                      const mb_probe_step_config *cfg, const mb_probe_options *o, long rounds,
                      const mb_probe_stats *oh)
{
    fprintf(f, "# probe=step\n# net=%s\n# data=%s\n# algo=%s\n# lr=%g\n# momentum=%g\n"
               "# conv_algo=%s\n# seed=%lu\n"
               "# timing=one update = mb_learner_step of every learner: next shuffled batch "
               "gathered, forward, backward, optimiser step\n", net,
            data_spec ? data_spec : "random", mb_optim_kind_name(cfg->optim.kind), cfg->optim.lr,
            cfg->optim.momentum,
            cfg->conv_algo == MB_CONV_AUTO ? "auto" : mb_conv_algo_name(cfg->conv_algo),
            cfg->seed);
    harness_meta(f, o);
    fprintf(f, "# rounds=%ld\n", rounds);
    if (oh)
        fprintf(f, "# harness_overhead_s=%.3g\n", oh->median);
}

static int cmd_step(int argc, char **argv, int full_argc, char **full_argv)
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
    while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
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
            if (mb_data_parse_long(optarg, 1, 1000, &rounds) != MB_OK) {
                mb_error_set(&err, MB_EINVAL, "--rounds: '%s' is not a whole number in [1, "
                             "1000]", optarg);
                return mb_cli_fail(prog, sub, &err);
            }
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
    plan.batch = batch, plan.n_batch = nb;
    plan.threads = threads, plan.n_threads = nt;
    plan.learners = learners, plan.n_learners = nl;
    if ((rc = mb_probe_step_plan_check(&plan, &err)) != MB_OK) { /* a usage error: exit 2 */
        status = mb_cli_usage(prog, sub, "%s", err.msg);
        goto done;
    }
    if ((rc = backend_check(cfg.backend, &err)) != MB_OK ||
        (rc = mb_net_desc_read(cfg.net, &desc, &err)) != MB_OK ||
        (rc = check_output(output, cfg.net, &err)) != MB_OK ||
        (rc = load_data(data_spec, &data, &err)) != MB_OK) {
        mb_cli_fail(prog, sub, &err);
        goto done;
    }
    plan.base.data = data_spec ? &data.train : NULL;
    plan.base.desc = desc; /* read once: --net may be a FIFO */
    plan.net_name = desc->name;
    if ((rc = mb_probe_step_run(&plan, &rows, &nrows, &err)) != MB_OK) {
        mb_cli_fail(prog, sub, &err);
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
    step_steadiness(pr.sum, rows, nrows, rounds);
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

/* ---- mbprobe learners -------------------------------------------------------------------------- */

/* After each learner count is timed: a progress line. */
static void learners_measured(void *arg, int k, double t_median_s, double samples_per_s)
{
    fprintf(stderr, "  %d learner%s x %d samples: %.4g s per update, %.4g samples/s\n", k,
            k == 1 ? " " : "s", *(const int *)arg, t_median_s, samples_per_s);
}

static int cmd_learners(int argc, char **argv, int full_argc, char **full_argv)
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
    long v = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
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
            if (mb_data_parse_long(optarg, 1, c == OPT_BATCH ? 1 << 20 : 4096, &v) != MB_OK)
                rc = mb_error_set(&err, MB_EINVAL, "%s: '%s' is not a whole number >= 1", flag,
                                  optarg);
            *(c == OPT_BATCH ? &plan.batch : c == OPT_THREADS ? &plan.base.threads
                                                              : &tune->max_learners) = (int)v;
            break;
        }
        case OPT_THRESHOLD:
            rc = mb_data_flag_double("--threshold", optarg, 0, MB_NONNEG, &tune->threshold, &err);
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
    mb_net_desc *desc = NULL;
    mb_data_splits data = {0};
    mb_probe_learners_result res = {0};
    int status = 1;
    if ((rc = mb_probe_options_check(&o, &err)) != MB_OK ||
        (rc = backend_check(plan.base.backend, &err)) != MB_OK ||
        (rc = mb_net_desc_read(plan.base.net, &desc, &err)) != MB_OK ||
        (output && (rc = check_output(output, plan.base.net, &err)) != MB_OK) ||
        (rc = load_data(data_spec, &data, &err)) != MB_OK) {
        mb_cli_fail(prog, sub, &err);
        goto done;
    }
    plan.base.data = data_spec ? &data.train : NULL;
    plan.base.desc = desc; /* read once: --net may be a FIFO */
    fprintf(stderr, "mbprobe learners: %s, %d samples per learner, %d threads, threshold %g\n",
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

/* ---- mbprobe conv ------------------------------------------------------------------------------ */

/* The default cache file: $XDG_CACHE_HOME/mbkit/conv.csv, else ~/.cache/mbkit/conv.csv. */
static int default_cache(char *buf, size_t n)
{
    const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (x && *x)
        return snprintf(buf, n, "%s/mbkit/conv.csv", x) < (int)n;
    if (home && *home)
        return snprintf(buf, n, "%s/.cache/mbkit/conv.csv", home) < (int)n;
    return 0;
}

/* The algorithm names of every pass of the context, as "gemm, direct, ..." (each once). */
static void algo_names(mb_ctx *ctx, char *buf, size_t n)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int q = 0; q < 3; q++)
        for (int a = 0; a < mb_ctx_conv_algo_count(ctx, (mb_conv_pass)q); a++) {
            const char *name = mb_ctx_conv_algo_name(ctx, (mb_conv_pass)q, a);
            int seen = 0;
            for (int e = 0; e < q && !seen; e++)
                seen = mb_ctx_conv_algo_find(ctx, (mb_conv_pass)e, name) >= 0;
            if (!seen && at < n)
                at += (size_t)snprintf(buf + at, n - at, "%s%s", at ? ", " : "", name);
        }
}

/* --algos as names, each one of some pass's algorithms on the context's backend, each once.
 * *names is one block with the names in it (free it); *buf is left NULL. */
static int parse_algos(mb_ctx *ctx, const char *arg, char **buf, const char ***names, size_t *n,
                       mb_error *err)
{
    *n = 0;
    *names = NULL;
    *buf = NULL;
    char **items;
    size_t k;
    int rc = mb_data_split_list(arg, "--algos", 0, &items, &k, err); /* no empty item */
    if (rc != MB_OK)
        return rc;
    *names = (const char **)items; /* one block: the caller frees it */
    for (size_t i = 0; i < k; i++) {
        char *t = items[i];
        int found = 0;
        for (int q = 0; q < 3 && !found; q++)
            found = mb_ctx_conv_algo_find(ctx, (mb_conv_pass)q, t) >= 0;
        if (!found) {
            char all[1024];
            algo_names(ctx, all, sizeof all);
            return mb_error_set(err, MB_EINVAL, "--algos: '%s' is not one of the %s backend's "
                                "algorithms (%s)", t, mb_backend_name(mb_ctx_backend(ctx)), all);
        }
        for (size_t i = 0; i < *n; i++)
            if (strcmp((*names)[i], t) == 0) /* it would be timed twice */
                return mb_error_set(err, MB_EINVAL, "--algos: '%s' given twice in '%s'", t, arg);
        (*names)[(*n)++] = t;
    }
    return MB_OK;
}

/* Progress: a row's time, or (once per layer, pass and algorithm) why it has none. */
typedef struct conv_print {
    int first_batch;
} conv_print;

static void conv_row_done(void *arg, const mb_probe_conv_row *r)
{
    const conv_print *pr = arg;
    if (r->status == MB_PROBE_CONV_UNSUPPORTED) {
        if (r->shape.batch == pr->first_batch)
            fprintf(stderr, "%s: %s %s: listed as unsupported (%s)\n", r->layer, r->algo_name,
                    mb_conv_pass_name(r->pass), r->why);
        return;
    }
    if (r->status == MB_PROBE_CONV_NOMEM || r->status == MB_PROBE_CONV_OVER_BUDGET) {
        fprintf(stderr, "%-8s %-15s %-9s M=%-5d %s (%s)\n", r->layer,
                mb_conv_pass_name(r->pass), r->algo_name, r->shape.batch,
                mb_probe_conv_status_name(r->status), r->why);
        return;
    }
    fprintf(stderr, "%-8s %-15s %-9s M=%-5d %.3g s  workspace %zu B%s\n", r->layer,
            mb_conv_pass_name(r->pass), r->algo_name, r->shape.batch, r->st.median,
            r->workspace_bytes, r->status == MB_PROBE_CONV_CACHED ? " (cached)" : "");
}

static void conv_help(const mb_probe_options *o)
{
    printf("Usage: mbprobe conv [OPTION]...\n"
           "Times every convolution algorithm the backend offers for each pass (the CPU:\n"
           "gemm, direct, fft, winograd for every pass; cuDNN: its own list per pass) on every\n"
           "convolution layer of a network, per batch size, with the workspace bytes each\n"
           "needs, and writes the convolution table\n"
           "  layer,algo,pass,batch,t_median_s,workspace_bytes,reps,t_min_s,t_p25_s,\n"
           "  t_p75_s,t_max_s,in_c,in_h,in_w,out_c,k,stride,pad,status,backend,device\n"
           "status is measured, cached, unsupported (the algorithm cannot do the layer: no\n"
           "times) or out of memory (its workspace could not be allocated: no times, the\n"
           "workspace it asked for). A timed call is the pass and a device synchronisation.\n"
           "Points are cached per host, backend, device, threads, kernels (a hash of the\n"
           "backends' sources), layer shape, algorithm, pass and batch: a repeated sweep\n"
           "reads them back (status 'cached').\n\n"
           "      --net NAME|FILE   network description (default lenet5)\n"
           "      --batch LIST      batch sizes: lo:hi (doubling) or a list (1:256)\n"
           "      --algos LIST      comma list of algorithm names to time (default: all of\n"
           "                        each pass)\n"
           "      --threads N       OpenBLAS threads (CPU; default 1)\n");
    device_help();
    printf("      --cache FILE      the cache (default $XDG_CACHE_HOME/mbkit/conv.csv or\n"
           "                        ~/.cache/mbkit/conv.csv)\n"
           "      --no-cache        measure every point again (and do not store them)\n");
    harness_help(o);
    printf("  -o, --output FILE     write the table to FILE (atomically); default:\n"
           "                        standard output\n"
           "  -h, --help            show this help and exit\n\n"
           "Example:\n"
           "  mbprobe conv --net data/nets/cifar7.cfg --batch 16:128 -o conv.csv\n");
}

static int cmd_conv(int argc, char **argv, int full_argc, char **full_argv)
{
    const char *sub = "conv";
    mb_probe_options o;
    mb_probe_options_init(&o);
    o.budget_s = 0.5;
    const char *net = "lenet5", *batch_arg = "1:256", *output = "-", *cache_path = NULL,
               *algos_arg = NULL;
    int use_cache = 1;
    long threads = 1;
    mb_ctx_options co;
    mb_ctx_options_init(&co);
    static const struct option longopts[] = {
        {"net", required_argument, 0, OPT_NET}, {"batch", required_argument, 0, OPT_BATCH},
        {"algos", required_argument, 0, OPT_ALGOS}, {"threads", required_argument, 0, OPT_THREADS},
        {"cache", required_argument, 0, OPT_CACHE}, {"no-cache", no_argument, 0, OPT_NO_CACHE},
        DEVICE_LONGOPTS, HARNESS_LONGOPTS, {"output", required_argument, 0, 'o'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    mb_error err = {0};
    int c, rc = MB_OK;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
        int d = device_option(&co.backend, &co.device, c, optarg, &err);
        if (d < 0)
            return mb_cli_fail(prog, sub, &err);
        if (d > 0)
            continue;
        switch (c) {
        case 'h': conv_help(&o); return 0;
        case 'o': output = optarg; break;
        case OPT_NET: net = optarg; break;
        case OPT_BATCH: batch_arg = optarg; break;
        case OPT_CACHE: cache_path = optarg; break;
        case OPT_NO_CACHE: use_cache = 0; break;
        case OPT_ALGOS: algos_arg = optarg; break;
        case OPT_THREADS:
            if (mb_data_parse_long(optarg, 1, MB_CTX_MAX_THREADS, &threads) != MB_OK)
                rc = mb_error_set(&err, MB_EINVAL, "--threads: '%s' is not a whole number in "
                                  "[1, %d]", optarg, MB_CTX_MAX_THREADS);
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
    if (!use_cache && cache_path) /* one says store the points, the other not */
        return mb_cli_usage(prog, sub, "--cache and --no-cache: give one");
    char cache_buf[4096];
    if (use_cache && !cache_path)
        cache_path = default_cache(cache_buf, sizeof cache_buf) ? cache_buf : NULL;
    co.blas_threads = (int)threads;
    int *batch = NULL;
    size_t nb = 0, nalgos = 0, nrows = 0, measured = 0;
    char *algos_buf = NULL;
    const char **algos = NULL;
    mb_ctx *ctx = NULL;
    mb_net_desc *desc = NULL;
    mb_probe_cache *cache = NULL;
    mb_probe_conv_row *rows = NULL;
    int status = 1;
    if ((rc = mb_probe_options_check(&o, &err)) != MB_OK ||
        (rc = int_list(batch_arg, "--batch", 1 << 16, &batch, &nb, &err)) != MB_OK ||
        (rc = mb_ctx_create(&co, &ctx, &err)) != MB_OK ||
        (algos_arg && (rc = parse_algos(ctx, algos_arg, &algos_buf, &algos, &nalgos, &err)) !=
                          MB_OK) ||
        (rc = mb_net_desc_read(net, &desc, &err)) != MB_OK ||
        (rc = check_output(output, net, &err)) != MB_OK ||
        (use_cache && cache_path && mb_data_same_file(output, cache_path) &&
         (rc = mb_error_set(&err, MB_EINVAL, "-o %s and --cache %s are the same file", output,
                            cache_path)) != MB_OK) ||
        (use_cache && cache_path && (rc = mb_probe_cache_open(cache_path, &cache, &err)) != MB_OK)) {
        mb_cli_fail(prog, sub, &err);
        goto done;
    }
    mb_probe_host host;
    mb_probe_host_read(&host);
    char hostname[128] = "unknown";
    gethostname(hostname, sizeof hostname - 1);
    conv_print pr = {batch[0]};
    mb_probe_conv_plan plan = {.ctx = ctx, .desc = desc, .batch = batch, .n_batch = nb,
                               .algos = algos, .n_algos = nalgos, .o = &o, .cache = cache,
                               .hostname = hostname, .threads = (int)threads,
                               .row_done = conv_row_done, .arg = &pr};
    if ((rc = mb_probe_conv_run(&plan, &rows, &nrows, &measured, &err)) != MB_OK) {
        mb_cli_fail(prog, sub, &err);
        goto done;
    }
    mb_out out;
    if (mb_out_open(&out, output, &err) != MB_OK) {
        mb_cli_fail(prog, sub, &err);
        goto done;
    }
    mb_probe_write_meta(out.f, "mbprobe conv", full_argc, full_argv, &host);
    fprintf(out.f, "# probe=conv\n# net=%s\n# openblas_threads=%ld\n# cache=%s\n"
                   "# timing=one call = the pass, then the device synchronised\n", desc->name,
            threads, cache ? cache_path : "none");
    harness_meta(out.f, &o);
    mb_probe_conv_write_header(out.f);
    for (size_t i = 0; i < nrows; i++)
        mb_probe_conv_write_row(out.f, &rows[i]);
    if (mb_out_commit(&out, &err) != MB_OK || (cache && mb_probe_cache_save(cache, &err) != MB_OK)) {
        mb_cli_fail(prog, sub, &err);
        goto done;
    }
    size_t count[5] = {0, 0, 0, 0, 0};
    for (size_t i = 0; i < nrows; i++)
        count[rows[i].status]++;
    fprintf(stderr, "%s %s: %zu points measured, %zu read from the cache (%s), %zu unsupported, "
            "%zu out of memory, %zu over budget\n", mb_backend_name(mb_ctx_backend(ctx)),
            mb_ctx_device_name(ctx), measured, count[MB_PROBE_CONV_CACHED],
            cache ? cache_path : "none", count[MB_PROBE_CONV_UNSUPPORTED],
            count[MB_PROBE_CONV_NOMEM], count[MB_PROBE_CONV_OVER_BUDGET]);
    status = 0;
done:
    free(rows);
    free(batch);
    free(algos_buf);
    free(algos);
    mb_net_desc_free(desc);
    mb_probe_cache_free(cache);
    mb_ctx_free(ctx);
    return status;
}

static int run_command(int argc, char **argv)
{
    if (argc < 2)
        return mb_cli_usage(prog, NULL, "missing command (step, comm, conv, learners, overhead)");
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
        help();
        return 0;
    }
    if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
        printf("mbprobe (mbkit) %s\n", mb_version());
        return 0;
    }
    opterr = 0;
    if (strcmp(cmd, "comm") == 0) return cmd_comm(argc - 1, argv + 1, argc, argv);
    if (strcmp(cmd, "overhead") == 0) return cmd_overhead(argc - 1, argv + 1);
    if (strcmp(cmd, "step") == 0) return cmd_step(argc - 1, argv + 1, argc, argv);
    if (strcmp(cmd, "conv") == 0) return cmd_conv(argc - 1, argv + 1, argc, argv);
    if (strcmp(cmd, "learners") == 0) return cmd_learners(argc - 1, argv + 1, argc, argv);
    return mb_cli_usage(prog, NULL, "unknown command '%s'", cmd);
}

int main(int argc, char **argv)
{
    return mb_cli_exit(mb_cli_start() ? MB_EXIT_DATA : run_command(argc, argv));
}
