/* mbprobe.c — the `mbprobe` command: timing sweeps.
 *
 *   mbprobe comm      collectives under mpirun (allreduce, reduce+bcast, gather+scatter)
 *   mbprobe overhead  the timing harness's own cost per sample and the clock's resolution
 *   mbprobe step      the real update step per batch size (needs train/: not built yet)
 *   mbprobe conv      convolution algorithms per layer (needs train/: not built yet)
 *   mbprobe learners  Crossbow's learner-count auto-tuner (needs train/: not built yet)
 *
 * Thin: parse options, call probe/, print. Usage errors exit 2, bad values or files exit 1 with
 * one line naming the flag or file.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../data/mb_data.h"
#include "mb_probe.h"

static const char *prog = "mbprobe";

static void help(void)
{
    printf("Usage: mbprobe COMMAND [OPTION]...\n"
           "Timing sweeps on this machine, written as the tables of DESIGN.md.\n\n"
           "Commands:\n"
           "  step      time train/'s real forward, backward and update per batch size, and find\n"
           "            the knee M_T (needs the trainer: not built yet)\n"
           "  comm      time MPI_Allreduce, MPI_Reduce+MPI_Bcast and MPI_Gather+MPI_Scatter per\n"
           "            message size; run it as 'mpirun -np N mbprobe comm ...' (N >= 2)\n"
           "  conv      time each convolution algorithm per layer, pass and batch size (needs\n"
           "            the trainer: not built yet)\n"
           "  learners  Crossbow's auto-tuner: add learners per device while throughput rises by\n"
           "            more than a threshold (needs the trainer: not built yet)\n"
           "  overhead  the timing harness's own cost per sample, and the clock's resolution\n\n"
           "  -h, --help      show this help and exit\n"
           "  -V, --version   show the version and exit\n\n"
           "'mbprobe COMMAND --help' describes each command.\n");
}

/* ---- harness options shared by the probes ---------------------------------------------------- */

enum { OPT_BYTES = 256, OPT_OPS, OPT_WARMUP, OPT_MIN_REPS, OPT_MAX_REPS, OPT_REL_CI, OPT_BUDGET };

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
        if (mb_data_parse_long(arg, lo, 100000000, &v) != MB_OK) {
            mb_error_set(err, MB_EINVAL, "%s: '%s' is not a whole number in [%ld, 1e8]", flag,
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
    case OPT_BUDGET:
        return mb_data_flag_double("--budget", arg, 0, MB_POSITIVE, &o->budget_s, err) == MB_OK
                   ? 1 : -1;
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

/* ---- subcommands that need the trainer -------------------------------------------------------- */

static int not_built(const char *sub, int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("Usage: mbprobe %s [OPTION]...\n"
                   "Not built yet: 'mbprobe %s' times train/'s real update step, and train/ is\n"
                   "not part of this build. See 'mbprobe --help'.\n", sub, sub);
            return 0;
        }
    fprintf(stderr, "%s %s: needs the trainer (train/), not built yet\n", prog, sub);
    return 1;
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

static int parse_ops(const char *s, int *use, mb_error *err)
{
    char buf[256];
    if (strlen(s) >= sizeof buf)
        return mb_error_set(err, MB_EINVAL, "--ops: list too long");
    snprintf(buf, sizeof buf, "%s", s);
    for (int i = 0; i < MB_PROBE_NOPS; i++)
        use[i] = 0;
    int any = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        mb_probe_op op;
        if (mb_probe_op_parse(t, &op) != MB_OK)
            return mb_error_set(err, MB_EINVAL,
                                "--ops: '%s' is not one of allreduce, reduce_bcast, ps", t);
        use[op] = 1;
        any = 1;
    }
    if (!any)
        return mb_error_set(err, MB_EINVAL, "--ops: empty list");
    return MB_OK;
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
                return mb_cli_fail(prog, sub, &err);
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
        return mb_cli_fail(prog, sub, &err);
    mb_range range = {0};
    size_t *sizes = NULL;
    if (mb_data_parse_range(bytes_arg, "--bytes", &range, &err) != MB_OK)
        return mb_cli_fail(prog, sub, &err);
    int rc = mb_probe_comm_sizes(range.v, range.n, &sizes, &err);
    size_t nsizes = range.n;
    mb_data_range_free(&range);
    if (rc != MB_OK)
        return mb_cli_fail(prog, sub, &err);
    /* Is the output writable? Checked on every process before MPI starts, so a bad path is one
     * line and exit 1 whether or not mpirun is used. */
    mb_out out;
    if (mb_out_open(&out, output, &err) != MB_OK) {
        free(sizes);
        return mb_cli_fail(prog, sub, &err);
    }
    mb_out_abort(&out);

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

int main(int argc, char **argv)
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
    if (strcmp(cmd, "step") == 0 || strcmp(cmd, "conv") == 0 || strcmp(cmd, "learners") == 0)
        return not_built(cmd, argc - 1, argv + 1);
    return mb_cli_usage(prog, NULL, "unknown command '%s'", cmd);
}
