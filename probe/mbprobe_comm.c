/* mbprobe_comm.c — `mbprobe comm`: collectives under mpirun (allreduce, reduce+bcast,
 * gather+scatter) per message size and process count (probe/comm.c).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../data/mb_parse.h"
#include "../data/mb_cli.h"
#include "../data/mb_output.h"
#include "../data/mb_dataset.h"
#include "mbprobe_cli.h"
#include "../train/backend/mb_backend.h"
#include "../train/run/mb_run.h"
#include "../train/comm/mb_comm.h"

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

/* What mbprobe comm's flags ask for. */
typedef struct comm_args {
    mb_probe_options o;
    const char *output;
    int use[MB_PROBE_NOPS]; /* 1 for each op to time */
    size_t *sizes;          /* message sizes in bytes, nsizes of them (allocated) */
    size_t nsizes;
    const char *bytes_arg;  /* --bytes as given, for the ranks' agreement message */
} comm_args;

/* The flags into *a, each checked, the output checked writable (on every process, before MPI
 * starts, so a bad path is one line and exit 1 whether or not mpirun is used): -1 to go on
 * (a->sizes then allocated), or the exit status, said. */
static int comm_parse(int argc, char **argv, comm_args *a)
{
    const char *sub = "comm";
    mb_probe_options_init(&a->o);
    a->o.warmup = 5;
    a->o.max_reps = 1000;
    a->o.budget_s = 0.2;
    a->output = "-";
    a->sizes = NULL;
    a->nsizes = 0;
    for (int i = 0; i < MB_PROBE_NOPS; i++)
        a->use[i] = 1;
    const char *bytes_arg = "4:16M";
    a->bytes_arg = bytes_arg;
    static const struct option longopts[] = {
        {"bytes", required_argument, 0, OPT_BYTES}, {"ops", required_argument, 0, OPT_OPS},
        HARNESS_LONGOPTS, {"output", required_argument, 0, 'o'}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    mb_error err = {0};
    int c;
    optind = 1;
    mb_cli_seen seen = {prog, sub, NULL, {0}, NULL};
    while ((c = mb_cli_getopt(argc, argv, ":ho:", longopts, &seen)) != -1) {
        switch (c) {
        case 'h': comm_help(&a->o); return 0;
        case 'o': a->output = optarg; break;
        case OPT_BYTES: bytes_arg = a->bytes_arg = optarg; break;
        case OPT_OPS:
            if (parse_ops(optarg, a->use, &err) != MB_OK)
                return mb_cli_fail(prog, sub, &err);
            break;
        default: {
            int rc = other_option(sub, &a->o, c, argv);
            if (rc >= 0)
                return rc;
        }
        }
    }
    if (optind < argc)
        return mb_cli_usage(prog, sub, "unexpected argument '%s'", argv[optind]);
    if (mb_probe_options_check(&a->o, &err) != MB_OK)
        return mb_cli_fail(prog, sub, &err);
    mb_range range = {0};
    if (mb_data_parse_range(bytes_arg, "--bytes", &range, &err) != MB_OK)
        return mb_cli_fail(prog, sub, &err);
    int rc = mb_probe_comm_sizes(range.v, range.n, &a->sizes, &err);
    if (rc == MB_EINVAL && strchr(bytes_arg, ',') == NULL) { /* the value as typed: "16G" */
        char why[sizeof err.msg];
        snprintf(why, sizeof why, "%s", err.msg);
        mb_error_set(&err, MB_EINVAL, "%s, from --bytes %s", why, bytes_arg);
    }
    a->nsizes = range.n;
    mb_data_range_free(&range);
    if (rc == MB_OK && mb_out_check(a->output, &err) != MB_OK) {
        free(a->sizes);
        a->sizes = NULL;
        rc = MB_EIO;
    }
    return rc != MB_OK ? mb_cli_fail(prog, sub, &err) : -1;
}

/* Before the first collective, the ranks compare every setting that shapes the sweep (what is
 * timed, how many warm-up calls and samples, rank 0's stop rule) with rank 0's: ranks started
 * with other flags (an MPMD launch, per-node scripts) would pair collectives that do not match
 * and wait forever (campaign 17's F1). A difference is one line from rank 0 and exit 2 on every
 * rank (mb_comm_agree, the check mbtrain's ranks make). */
static int comm_agree(mb_communicator *c, const comm_args *a, int *status)
{
    char ops[64] = "";
    uint64_t mask = 0, h = mb_comm_hash(NULL);
    for (int i = 0; i < MB_PROBE_NOPS; i++)
        if (a->use[i]) {
            mask |= 1ull << i;
            snprintf(ops + strlen(ops), sizeof ops - strlen(ops), "%s%s", ops[0] ? "," : "",
                     mb_probe_op_name((mb_probe_op)i));
        }
    for (size_t i = 0; i < a->nsizes; i++) /* the sizes as read, whatever their spelling */
        h = (h ^ (uint64_t)a->sizes[i]) * 1099511628211ull;
    h ^= (uint64_t)a->nsizes;
    enum { CNT = MB_COMM_SET_COUNT, DBL = MB_COMM_SET_DOUBLE, HSH = MB_COMM_SET_HASH };
    const mb_comm_setting s[] = {
        {"--ops", mask, CNT, 0, ops},
        {"--bytes (the message sizes)", h, HSH, 0, a->bytes_arg},
        {"--warmup", (uint64_t)a->o.warmup, CNT, 0, NULL},
        {"--min-reps", (uint64_t)a->o.min_reps, CNT, 0, NULL},
        {"--max-reps", (uint64_t)a->o.max_reps, CNT, 0, NULL},
        {"--rel-ci", mb_comm_dbits(a->o.rel_ci), DBL, 0, NULL},
        {"--budget", mb_comm_dbits(a->o.budget_s), DBL, 0, NULL},
    };
    mb_error err = {0};
    int disagree = 0;
    int rc = mb_comm_agree(c, s, (int)(sizeof s / sizeof s[0]), MB_OK, NULL, &disagree, &err);
    if (rc == MB_OK)
        return MB_OK;
    if (mb_comm_rank(c) == 0)
        mb_cli_say(prog, "comm", "%s", err.msg);
    *status = disagree ? MB_EXIT_USAGE : 1;
    return rc;
}

int cmd_comm(int argc, char **argv, int full_argc, char **full_argv)
{
    const char *sub = "comm";
    /* Under mpirun every rank parses the same flags: what is wrong with them is said by rank 0
     * alone, the others holding their lines until mpirun ends them (mb_cli_hold; campaign 11's
     * N10: a bad --warmup, --budget, a flag given twice was said once a rank). */
    comm_args a;
    mb_cli_hold hold;
    mb_cli_hold_begin(&hold);
    int rc = mb_cli_hold_end(&hold, comm_parse(argc, argv, &a));
    if (rc >= 0)
        return rc;
    mb_probe_options o = a.o;
    const char *output = a.output;
    const int *use = a.use;
    size_t *sizes = a.sizes, nsizes = a.nsizes;
    mb_error err = {0};
    mb_out out;
    int status = 0;

    /* Open MPI initialises a singleton without mpirun, so a plain run gets here with 1 rank. */
    mb_communicator *world = NULL;
    if (mb_comm_mpi_create(&full_argc, &full_argv, "mbprobe comm", &world, &err) != MB_OK) {
        free(sizes);
        if (world) { /* the ranks run other programs: rank 0 says which, then all end MPI */
            status = err.msg[0] ? mb_cli_fail(prog, sub, &err) : 1;
            mb_comm_free(world);
            return status;
        }
        /* why MPI did not start, where it is known: a bad MBKIT_MPI_START_WAIT (a usage
         * error, said once: rank 0's), or MPI_Init failing under mpirun; only without mpirun
         * is mpirun the advice (campaign 21's N1: its line blamed mpirun for both) */
        if (err.status == MB_EUSAGE) {
            mb_cli_hold_begin(&hold);
            return mb_cli_hold_end(&hold, mb_cli_fail(prog, sub, &err));
        }
        if (mb_comm_mpi_launched())
            return mb_cli_fail(prog, sub, &err);
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
        mb_comm_free(world);
        return 1;
    }
    if (comm_agree(world, &a, &status) != MB_OK) {
        free(sizes);
        mb_comm_free(world);
        return status;
    }

    mb_probe_comm_row *rows = calloc(nsizes * MB_PROBE_NOPS, sizeof *rows);
    size_t nrows = 0;
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
    mb_comm_free(world);
    return status;
}
