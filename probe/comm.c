/* comm.c — the collective probe: MPI_Allreduce, MPI_Reduce + MPI_Bcast (Sync EASGD's tree) and
 * MPI_Gather + MPI_Scatter (one parameter server), timed per message size with the harness's
 * statistics and stop rule, and the collective table's rows.
 *
 * Timing convention: every iteration starts after an MPI_Barrier; each rank times its own call on
 * CLOCK_MONOTONIC; the sample is the maximum over ranks (the collective is over when its slowest
 * rank is), gathered with MPI_Reduce outside the timed region. t_median_s is the median of those
 * samples over iterations (t_min_s, t_max_s their extremes); t_rank_min_s and t_rank_max_s are the
 * extremes over ranks of each rank's own median. Warm-up iterations (OSU style) are not counted.
 *
 * Does not: call MPI_Init or MPI_Finalize, print, or write files (mbprobe.c does).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mb_probe.h"
#include "../data/mb_parse.h"

static const char *const op_names[MB_PROBE_NOPS] = {"allreduce", "reduce_bcast", "ps"};

const char *mb_probe_op_name(mb_probe_op op)
{
    return (unsigned)op < MB_PROBE_NOPS ? op_names[op] : "unknown";
}

int mb_probe_op_parse(const char *name, mb_probe_op *op)
{
    for (int i = 0; i < MB_PROBE_NOPS; i++)
        if (strcmp(name, op_names[i]) == 0) {
            *op = (mb_probe_op)i;
            return MB_OK;
        }
    return MB_EINVAL;
}

double mb_probe_bus_factor(mb_probe_op op, int procs)
{
    double n = procs;
    switch (op) {
    case MB_PROBE_ALLREDUCE: return 2.0 * (n - 1) / n;
    case MB_PROBE_REDUCE_BCAST: return 2.0;
    case MB_PROBE_PS: return 2.0 * (n - 1);
    case MB_PROBE_NOPS: break;
    }
    return NAN;
}

int mb_probe_comm_sizes(const double *v, size_t n, size_t **sizes, mb_error *err)
{
    *sizes = NULL;
    size_t *s = malloc((n ? n : 1) * sizeof *s);
    if (!s)
        return mb_error_set(err, MB_ENOMEM, "--bytes: out of memory");
    for (size_t i = 0; i < n; i++) {
        /* the most mb_probe_comm_point times: INT32_MAX floats, one MPI call's count; checked
         * here so that a ladder past it is refused before anything is timed (campaign 41's F5) */
        const double most = 4.0 * (double)INT32_MAX;
        if (!(v[i] >= 4) || v[i] > most) {
            char e[32];
            free(s);
            return mb_error_set(err, MB_EINVAL, "--bytes: %s is %s (sizes are bytes of float32 "
                                "data, 4 to %.0f: 2^31 - 1 floats, the most one MPI call's "
                                "count takes)", mb_data_fmt_exact(e, sizeof e, v[i]),
                                v[i] < 4 ? "below one float (4 bytes)" : "too large", most);
        }
        if (v[i] != floor(v[i])) { /* a fraction of a byte is no size (campaign 17's M1) */
            char e[32];
            free(s);
            return mb_error_set(err, MB_EINVAL, "--bytes: %s is not a whole number of bytes",
                                mb_data_fmt_exact(e, sizeof e, v[i]));
        }
        s[i] = (size_t)(v[i] / 4) * 4;
        /* two sizes that round down to one would be timed twice, and the table would hold a
         * point twice, which mbfit comm refuses (campaign 38's F1: --bytes 4,6) */
        for (size_t j = 0; j < i; j++)
            if (s[j] == s[i]) {
                char a[32], b[32];
                mb_data_fmt_exact(a, sizeof a, v[j]);
                mb_data_fmt_exact(b, sizeof b, v[i]);
                const size_t same = s[i];
                free(s);
                return mb_error_set(err, MB_EINVAL, "--bytes: %s and %s both round down to %zu "
                                    "bytes (whole floats): one size would be timed twice", a, b,
                                    same);
            }
    }
    *sizes = s;
    return MB_OK;
}

/* The buffers of one point: send and recv hold `count` floats; for the parameter-server pattern
 * the root's gather/scatter buffer holds procs * count. */
typedef struct comm_bufs {
    float *send, *recv, *root;
    int count;
} comm_bufs;

static int do_op(MPI_Comm comm, mb_probe_op op, comm_bufs *b)
{
    int rc = MPI_SUCCESS;
    switch (op) {
    case MB_PROBE_ALLREDUCE:
        rc = MPI_Allreduce(b->send, b->recv, b->count, MPI_FLOAT, MPI_SUM, comm);
        break;
    case MB_PROBE_REDUCE_BCAST:
        rc = MPI_Reduce(b->send, b->recv, b->count, MPI_FLOAT, MPI_SUM, 0, comm);
        if (rc == MPI_SUCCESS)
            rc = MPI_Bcast(b->recv, b->count, MPI_FLOAT, 0, comm);
        break;
    case MB_PROBE_PS:
        rc = MPI_Gather(b->send, b->count, MPI_FLOAT, b->root, b->count, MPI_FLOAT, 0, comm);
        if (rc == MPI_SUCCESS)
            rc = MPI_Scatter(b->root, b->count, MPI_FLOAT, b->recv, b->count, MPI_FLOAT, 0, comm);
        break;
    case MB_PROBE_NOPS:
        return MPI_ERR_OP;
    }
    return rc;
}

static int mpi_fail(mb_error *err, const char *what, int rc)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    return mb_error_set(err, MB_EMPI, "%s failed: %s", what, msg);
}

int mb_probe_comm_point(MPI_Comm comm, mb_probe_op op, size_t bytes, const mb_probe_options *o,
                        mb_probe_comm_row *row, mb_error *err)
{
    int rc = mb_probe_options_check(o, err);
    if (rc != MB_OK)
        return rc;
    if ((unsigned)op >= MB_PROBE_NOPS)
        return mb_error_set(err, MB_EINVAL, "unknown operation %d", (int)op);
    if (bytes < 4 || bytes % 4 != 0 || bytes / 4 > (size_t)INT32_MAX)
        return mb_error_set(err, MB_EINVAL, "%zu bytes is not a positive multiple of 4 "
                            "below 8 GiB", bytes);
    int procs = 0, rank = 0;
    if ((rc = MPI_Comm_size(comm, &procs)) != MPI_SUCCESS ||
        (rc = MPI_Comm_rank(comm, &rank)) != MPI_SUCCESS)
        return mpi_fail(err, "MPI_Comm_size", rc);
    if (procs < 2)
        return mb_error_set(err, MB_EMPI, "needs at least 2 MPI processes, got %d", procs);

    comm_bufs b = {.count = (int)(bytes / 4)};
    size_t count = (size_t)b.count;
    b.send = malloc(count * sizeof *b.send);
    b.recv = malloc(count * sizeof *b.recv);
    if (op == MB_PROBE_PS && rank == 0)
        b.root = malloc((size_t)procs * count * sizeof *b.root);
    double *x = malloc(3 * o->max_reps * sizeof *x); /* rank-max samples, own samples, work */
    int ok = b.send && b.recv && x && (op != MB_PROBE_PS || rank != 0 || b.root), all_ok = 0;
    if ((rc = MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm)) != MPI_SUCCESS) {
        rc = mpi_fail(err, "MPI_Allreduce", rc);
        goto done;
    }
    if (!all_ok) {
        rc = mb_error_set(err, MB_ENOMEM, "out of memory for %zu-byte messages on %d ranks",
                          bytes, procs);
        goto done;
    }
    double *mine = x + o->max_reps, *work = x + 2 * o->max_reps;
    for (size_t i = 0; i < count; i++)
        b.send[i] = 1.0f / (float)(rank + 1 + (int)(i % 7));

    double start = mb_probe_now();
    for (size_t i = 0; i < o->warmup; i++) {
        if ((rc = MPI_Barrier(comm)) != MPI_SUCCESS || (rc = do_op(comm, op, &b)) != MPI_SUCCESS) {
            rc = mpi_fail(err, mb_probe_op_name(op), rc);
            goto done;
        }
    }

    size_t n = 0, next_check = o->min_reps > 6 ? o->min_reps : 6;
    mb_probe_stats st = {0};
    for (;;) {
        if ((rc = MPI_Barrier(comm)) != MPI_SUCCESS) {
            rc = mpi_fail(err, "MPI_Barrier", rc);
            goto done;
        }
        double t0 = mb_probe_now();
        rc = do_op(comm, op, &b);
        double dt = mb_probe_now() - t0;
        if (rc != MPI_SUCCESS) {
            rc = mpi_fail(err, mb_probe_op_name(op), rc);
            goto done;
        }
        mine[n] = dt;
        double slowest = 0;
        if ((rc = MPI_Reduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, comm)) != MPI_SUCCESS) {
            rc = mpi_fail(err, "MPI_Reduce", rc);
            goto done;
        }
        int stop = MB_PROBE_CONTINUE;
        if (rank == 0) {
            x[n] = slowest;
            double elapsed = mb_probe_now() - start;
            mb_probe_stats cur = {.reps = n + 1, .ci_lo = NAN, .ci_hi = NAN, .median = NAN};
            if (n + 1 >= next_check || n + 1 >= o->max_reps || elapsed >= o->budget_s) {
                mb_probe_stats_compute(x, n + 1, o->wide_iqr, work, &cur);
                next_check = n + 1 + ((n + 1) / 20 > 0 ? (n + 1) / 20 : 1);
            }
            stop = (int)mb_probe_stop_rule(&cur, o, elapsed);
        }
        n++;
        if ((rc = MPI_Bcast(&stop, 1, MPI_INT, 0, comm)) != MPI_SUCCESS) {
            rc = mpi_fail(err, "MPI_Bcast", rc);
            goto done;
        }
        if (stop != MB_PROBE_CONTINUE) {
            st.why = (mb_probe_stop)stop;
            break;
        }
    }

    /* Each rank's own median, then its extremes over ranks. */
    mb_probe_stats own;
    mb_probe_stats_compute(mine, n, o->wide_iqr, work, &own);
    double rmin = 0, rmax = 0;
    if ((rc = MPI_Reduce(&own.median, &rmin, 1, MPI_DOUBLE, MPI_MIN, 0, comm)) != MPI_SUCCESS ||
        (rc = MPI_Reduce(&own.median, &rmax, 1, MPI_DOUBLE, MPI_MAX, 0, comm)) != MPI_SUCCESS) {
        rc = mpi_fail(err, "MPI_Reduce", rc);
        goto done;
    }
    memset(row, 0, sizeof *row);
    row->op = op;
    row->procs = procs;
    row->bytes = bytes;
    row->reps = n;
    row->why = st.why;
    if (rank == 0) {
        mb_probe_stats_compute(x, n, o->wide_iqr, work, &st);
        row->t_median_s = st.median;
        row->t_min_s = st.min;
        row->t_max_s = st.max;
        row->t_rank_min_s = rmin;
        row->t_rank_max_s = rmax;
        row->wide = st.wide;
        row->alg_bw_Bps = st.median > 0 ? (double)bytes / st.median : NAN;
        row->bus_bw_Bps = row->alg_bw_Bps * mb_probe_bus_factor(op, procs);
    }
    rc = MB_OK;
done:
    free(b.send);
    free(b.recv);
    free(b.root);
    free(x);
    return rc;
}

void mb_probe_comm_write_header(FILE *f)
{
    fputs("op,procs,bytes,reps,t_median_s,t_min_s,t_max_s,t_rank_min_s,t_rank_max_s,alg_bw_Bps,"
          "bus_bw_Bps,wide,stop\n", f);
}

void mb_probe_comm_write_row(FILE *f, const mb_probe_comm_row *r)
{
    fprintf(f, "%s,%d,%zu,%zu,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e,%d,%s\n", mb_probe_op_name(r->op),
            r->procs, r->bytes, r->reps, r->t_median_s, r->t_min_s, r->t_max_s, r->t_rank_min_s,
            r->t_rank_max_s, r->alg_bw_Bps, r->bus_bw_Bps, r->wide, mb_probe_stop_name(r->why));
}
