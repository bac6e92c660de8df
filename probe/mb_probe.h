/* mb_probe.h — mbkit's probes: a timing harness that every probe uses, the collective probe run
 * under MPI, knee detection on step tables, Crossbow's learner-count auto-tuner, and the metadata
 * lines that open every probe output.
 *
 * The harness times any callback (`int (*fn)(void *ctx)` with optional set-up and reset) on
 * CLOCK_MONOTONIC: warm-up runs not counted, then repetitions until the 95% interval of the median
 * lies within a relative target of it (2% by default), or a per-point budget, or a repetition cap,
 * runs out (in the spirit of torch.utils.benchmark's blocked_autorange and Google Benchmark's
 * repetitions). Its statistics (median, quartiles, extremes, order-statistic interval of the
 * median) are pure functions, tested on synthetic samples.
 *
 * The step and convolution probes time train/'s own code (mb_learner_step, the update of a
 * training run: shuffled batch, forward/backward, optimiser step; mb_ctx_conv_*) through
 * mb_probe_time, on a context of any backend (train/'s mb_ctx), so what they measure is what
 * mbtrain runs. Their whole sweeps are library calls here (mb_probe_step_run,
 * mb_probe_conv_run, mb_probe_learners_run) taking a plan and returning rows; `mbprobe` only
 * parses, calls and prints.
 */
#ifndef MB_PROBE_H
#define MB_PROBE_H

#include <stddef.h>
#include <stdio.h>

#include <mpi.h>

#include "../model/mb_model.h"
#include "../net/mb_net.h"
#include "../train/backend/mb_backend.h"
#include "../train/learner/mb_learner.h"

/* ---- clock ------------------------------------------------------------------------------------ */

/* Seconds on CLOCK_MONOTONIC (an arbitrary origin; only differences mean anything). */
double mb_probe_now(void);

/* The resolution of CLOCK_MONOTONIC as clock_getres reports it, seconds. */
double mb_probe_clock_resolution(void);

/* The smallest positive difference seen between back-to-back clock reads (200 tries), seconds:
 * the clock's effective step, which a virtual machine's clock source may make coarser than
 * clock_getres says. */
double mb_probe_clock_step(void);

/* ---- statistics of a set of timings (pure) ---------------------------------------------------- */

/* Why a measurement stopped. */
typedef enum mb_probe_stop {
    MB_PROBE_CONTINUE = 0, /* not yet */
    MB_PROBE_STOP_CI,      /* the median's 95% interval is within rel_ci of it */
    MB_PROBE_STOP_BUDGET,  /* the per-point time budget ran out */
    MB_PROBE_STOP_MAXREPS  /* max_reps samples taken */
} mb_probe_stop;

/* Returns "ci", "budget", "max-reps" or "continue". */
const char *mb_probe_stop_name(mb_probe_stop why);

/* Summary of n timings. Quartiles use linear interpolation between order statistics (GSL's
 * gsl_stats_quantile_from_sorted_data, numpy's default). The 95% interval of the median is the
 * distribution-free order-statistic interval [x_(k), x_(n+1-k)] with the largest k for which
 * 1 - 2 P(Binomial(n, 1/2) <= k - 1) >= 0.95 (e.g. n = 10: [x_(2), x_(9)], 97.9% coverage); it
 * needs n >= 6, below which ci_lo and ci_hi are NaN. */
typedef struct mb_probe_stats {
    size_t reps;        /* number of timings (samples) */
    double median;      /* seconds per call */
    double p25, p75;    /* lower and upper quartiles, seconds */
    double min, max;    /* extremes, seconds */
    double ci_lo, ci_hi;/* 95% interval of the median, seconds (NaN when reps < 6) */
    double ci_cover;    /* its exact coverage probability (NaN when reps < 6) */
    int wide;           /* 1 when (p75 - p25) / median exceeds the wide-spread threshold */
    mb_probe_stop why;  /* what ended the measurement (MB_PROBE_CONTINUE when not known) */
    size_t block;       /* calls per timing: each sample is a block's time / block */
    double elapsed_s;   /* wall time spent on the point, warm-up included, seconds */
    double drift;       /* how far the passes of mb_probe_time_rounds disagree (mb_probe_drift);
                           NaN when the point was measured in one pass */
} mb_probe_stats;

/* The order-statistic rank k (1-based) of the median's 95% interval [x_(k), x_(n+1-k)], and its
 * coverage in *cover (may be NULL). Returns 0 when n < 6 (no such interval exists). */
size_t mb_probe_median_ci_rank(size_t n, double *cover);

/* Fills *st from the n timings x[0..n-1] (any order, all finite and >= 0). `work` holds n
 * doubles (sorted copy; the caller's x is not changed). wide_iqr is the threshold on
 * (p75 - p25) / median above which st->wide is set. MB_ENODATA for n = 0, MB_EDOM for a negative
 * or non-finite sample. Leaves st->why, st->block, st->elapsed_s and st->drift as they were. */
int mb_probe_stats_compute(const double *x, size_t n, double wide_iqr, double *work,
                           mb_probe_stats *st);

/* How far apart in time-separated passes one point's timings lie: the samples of pass p are
 * x[start[p] .. start[p+1]-1] (start has passes + 1 entries, non-decreasing); returns
 * (largest pass median - smallest) / smallest over the passes that hold a sample, or NaN when
 * fewer than two do. A steady machine gives a few percent; a machine whose speed changed between
 * passes (other work on the host) gives the size of that change, which is also how far a repeat
 * of the measurement may land from this one. `work` holds as many doubles as the largest pass. */
double mb_probe_drift(const double *x, const size_t *start, size_t passes, double *work);

/* ---- the harness ------------------------------------------------------------------------------ */

/* How a point is measured. mb_probe_options_init fills the defaults shown. */
typedef struct mb_probe_options {
    size_t warmup;      /* untimed calls before the first sample (default 3) */
    size_t min_reps;    /* samples always taken unless the budget runs out first (default 10) */
    size_t max_reps;    /* at most this many samples (default 10000) */
    double rel_ci;      /* stop once both ends of the median's 95% interval lie within
                           rel_ci * median of it (default 0.02) */
    double budget_s;    /* wall seconds per point, warm-up included (default 1.0); at least one
                           sample is always taken */
    double wide_iqr;    /* flag a point whose IQR / median exceeds this (default 0.10) */
    double min_block_s; /* blocked autorange: calls are grouped so one sample lasts at least this
                           long (default 2e-4 s); 0 times every call alone. Ignored (one call
                           per sample) when the task has a reset callback */
} mb_probe_options;

void mb_probe_options_init(mb_probe_options *o);

/* MB_EINVAL with a message naming the field when an option is out of range (max_reps < 1,
 * min_reps > max_reps, rel_ci outside [0, 1), budget_s <= 0, ...). */
int mb_probe_options_check(const mb_probe_options *o, mb_error *err);

/* The stop rule, given the statistics of the samples so far (reps = st->reps) and the wall time
 * spent on the point: MB_PROBE_STOP_MAXREPS at max_reps, MB_PROBE_STOP_BUDGET once elapsed_s >=
 * budget_s (with at least one sample), MB_PROBE_STOP_CI once reps >= min_reps and the interval is
 * within rel_ci of the median, else MB_PROBE_CONTINUE. Pure. */
mb_probe_stop mb_probe_stop_rule(const mb_probe_stats *st, const mb_probe_options *o,
                                 double elapsed_s);

/* What is timed. `run` is the timed call; `setup` runs once before the warm-up and `reset`
 * before every call, both untimed (either may be NULL). A callback returns MB_OK, or an MB_E*
 * code that stops the measurement and is returned by mb_probe_time. */
typedef int (*mb_probe_fn)(void *ctx);
typedef struct mb_probe_task {
    mb_probe_fn run;   /* required */
    mb_probe_fn setup; /* optional */
    mb_probe_fn reset; /* optional; forces one call per sample */
    void *ctx;         /* passed to all three */
} mb_probe_task;

/* Measures `task` under `o` and fills *st (seconds per call). Samples are kept in a buffer of
 * max_reps doubles allocated here, before timing starts, and freed before return. Errors:
 * MB_EINVAL (bad options or no run callback), MB_ENOMEM, or a callback's own code. */
int mb_probe_time(const mb_probe_task *task, const mb_probe_options *o, mb_probe_stats *st,
                  mb_error *err);

/* Measures n tasks interleaved, in `rounds` passes over them: in each pass every task gets
 * budget_s / rounds and at least ceil(min_reps / rounds) samples (or stops early once the
 * median's interval of all its samples so far is within rel_ci), and st[i] summarises all of task
 * i's samples. Spreading every point over the whole sweep makes a sweep robust to a machine
 * whose speed drifts for seconds at a time (a shared VM): each point sees the same mixture of
 * fast and slow phases. Set-up, warm-up and block calibration run in the first pass; later
 * passes re-warm with one untimed block. rounds = 1 is mb_probe_time on each task in turn.
 * st[i].why is what ended task i's last share; st[i].drift compares its passes, so a point
 * whose passes disagree shows that the machine changed speed during the sweep (it cannot be
 * averaged away when a slow phase outlasts the sweep). Errors as mb_probe_time. */
int mb_probe_time_rounds(const mb_probe_task *tasks, size_t n, const mb_probe_options *o,
                         size_t rounds, mb_probe_stats *st, mb_error *err);

/* The harness's own cost per sample: an empty callback timed one call per sample under `o`
 * (its median is what a clock-read pair and an indirect call add to every sample). */
int mb_probe_overhead(const mb_probe_options *o, mb_probe_stats *st, mb_error *err);

/* ---- knee detection on a step table ------------------------------------------------------------ */

/* Where the fitted knee lies relative to the measured batch sizes. */
typedef enum mb_probe_knee_where {
    MB_PROBE_KNEE_INSIDE = 0, /* between the smallest and largest measured M */
    MB_PROBE_KNEE_BELOW,      /* at or below the smallest M: time grows linearly throughout */
    MB_PROBE_KNEE_ABOVE       /* at or above the largest M: time is flat throughout */
} mb_probe_knee_where;

typedef struct mb_probe_knee {
    double m_t;     /* the knee M_T, samples (clamped to the measured range) */
    double gamma;   /* seconds per sample above the knee */
    double t_flat;  /* gamma * m_t: the time of one update below the knee, seconds */
    double rms_log; /* root-mean-square residual of log t, i.e. the typical relative misfit */
    mb_probe_knee_where where;
} mb_probe_knee;

/* Fits t(M) = gamma * max(M, M_T) (Perrone et al. 2019, eq. 3: Gamma(m) = gamma max(m, M_T)) to
 * the points (batch[i], t[i]) by least squares on log t, so that every point counts by its
 * relative error over batch sizes spanning decades. For a fixed M_T the best log gamma is a mean,
 * and between two neighbouring measured sizes the squared error is a quadratic in log M_T; the
 * fit minimises it exactly on every interval (and at the two ends), so the knee may fall between
 * measured points. batch must be strictly increasing and positive, t positive and finite, n >= 3:
 * else MB_EDOM / MB_ENODATA with a message. */
int mb_probe_knee_fit(const double *batch, const double *t, size_t n, mb_probe_knee *k,
                      mb_error *err);

/* ---- Crossbow's learner auto-tuner ------------------------------------------------------------ */

/* Measures the throughput (samples per second, > 0) with `learners` learners on the device. */
typedef int (*mb_probe_throughput_fn)(void *ctx, int learners, double *samples_per_s,
                                      mb_error *err);

typedef struct mb_probe_tune {
    double threshold; /* keep an added learner only if throughput rises by more than this
                         fraction (default 0.10, as in Crossbow's code) */
    int max_learners; /* never try more than this many (default 16) */
} mb_probe_tune;

void mb_probe_tune_init(mb_probe_tune *o);

/* Koliousis et al. (Crossbow), Sec. on auto-tuning: start with one learner; add one while the
 * throughput with k + 1 learners exceeds (1 + threshold) times that with k; otherwise drop the
 * last one and stop. curve[k - 1] receives the throughput measured with k learners (the caller
 * provides max_learners entries), *n_measured how many were measured, *chosen the count kept.
 * Errors: MB_EINVAL (bad options), MB_EDOM (a throughput <= 0 or not finite), or the callback's. */
int mb_probe_tune_learners(mb_probe_throughput_fn fn, void *ctx, const mb_probe_tune *o,
                           double *curve, int *n_measured, int *chosen, mb_error *err);

/* ---- metadata --------------------------------------------------------------------------------- */

/* What the host and its libraries are. Strings are single lines ("unknown" when not readable). */
typedef struct mb_probe_host {
    char cpu_model[256]; /* /proc/cpuinfo "model name" */
    int cores;           /* distinct (physical id, core id) pairs in /proc/cpuinfo, else threads */
    int threads;         /* online logical CPUs */
    char governor[64];   /* cpu0's cpufreq scaling_governor, or "unreadable" */
    char mpi[256];       /* MPI_Get_library_version, first line */
    char openblas[256];  /* openblas_get_config() */
    char fftw[128];      /* fftwf_version */
    char gsl[32];        /* gsl_version */
    double clock_res_s;  /* CLOCK_MONOTONIC resolution, seconds */
} mb_probe_host;

/* Fills *h from /proc, /sys and the libraries. Never fails: what cannot be read says so. */
void mb_probe_host_read(mb_probe_host *h);

/* Writes mb_data_write_common_meta's lines, then "# cpu_model=", "# cores=", "# threads=",
 * "# governor=", "# mpi=", "# openblas=", "# fftw=", "# gsl=", "# clock=CLOCK_MONOTONIC",
 * "# clock_resolution_s=". */
void mb_probe_write_meta(FILE *f, const char *tool, int argc, char **argv, const mb_probe_host *h);

/* ---- mbprobe comm: collectives under MPI ------------------------------------------------------ */

/* The patterns timed. */
typedef enum mb_probe_op {
    MB_PROBE_ALLREDUCE = 0, /* MPI_Allreduce (sum): what synchronous methods use */
    MB_PROBE_REDUCE_BCAST,  /* MPI_Reduce to rank 0 then MPI_Bcast: Sync EASGD's tree */
    MB_PROBE_PS,            /* MPI_Gather to rank 0 then MPI_Scatter: one parameter server */
    MB_PROBE_NOPS
} mb_probe_op;

/* "allreduce", "reduce_bcast", "ps"; mb_probe_op_parse is the inverse (MB_EINVAL otherwise). */
const char *mb_probe_op_name(mb_probe_op op);
int mb_probe_op_parse(const char *name, mb_probe_op *op);

/* One row of the collective table (docs/design.md, "Collective table") plus the columns after
 * it. */
typedef struct mb_probe_comm_row {
    mb_probe_op op;
    int procs;           /* ranks in the communicator */
    size_t bytes;        /* message size per rank, bytes of float32 data (a multiple of 4) */
    size_t reps;         /* timed iterations */
    double t_median_s;   /* median over iterations of the slowest rank's time */
    double t_min_s;      /* fastest iteration (slowest rank's time), seconds */
    double t_max_s;      /* slowest iteration (slowest rank's time), seconds */
    double t_rank_min_s; /* least over ranks of a rank's own median time */
    double t_rank_max_s; /* greatest over ranks of a rank's own median time */
    double alg_bw_Bps;   /* bytes / t_median_s */
    double bus_bw_Bps;   /* alg_bw times mb_probe_bus_factor */
    int wide;            /* the iterations' IQR / median exceeded the wide-spread threshold */
    mb_probe_stop why;   /* what ended the sweep of this point */
} mb_probe_comm_row;

/* The bus-bandwidth factor: the data a rank's busiest link carries, over the message size.
 * allreduce 2(n-1)/n (a ring; as nccl-tests defines it), reduce_bcast 2 (the message goes down
 * the tree once and up once), ps 2(n-1) (the root receives and sends n-1 messages). */
double mb_probe_bus_factor(mb_probe_op op, int procs);

/* The message sizes of a "--bytes" range: each rounded down to a multiple of 4 (float32 data);
 * a value below 4, a fraction of a byte, or two values that round down to one size (4,6) is
 * MB_EINVAL. *sizes is allocated here (free() it). */
int mb_probe_comm_sizes(const double *v, size_t n, size_t **sizes, mb_error *err);

/* Times `op` at `bytes` on `comm` (collective: every rank calls it with the same arguments).
 * Each iteration: MPI_Barrier, then the operation timed on each rank's CLOCK_MONOTONIC; the
 * per-iteration maximum over ranks is the sample (the collective is done when its slowest rank
 * is). Rank 0 applies the harness's stop rule (warm-up, min/max reps, rel_ci, budget) and
 * broadcasts its decision, so every rank runs the same number of iterations. The row is complete
 * on rank 0 only. Needs at least 2 ranks (MB_EMPI otherwise); MPI errors map to MB_EMPI. */
int mb_probe_comm_point(MPI_Comm comm, mb_probe_op op, size_t bytes, const mb_probe_options *o,
                        mb_probe_comm_row *row, mb_error *err);

/* The collective table's header line and one row, as CSV lines ending in a newline. Columns after
 * the seven of docs/design.md ("Collective table"): t_rank_min_s, t_rank_max_s, alg_bw_Bps,
 * bus_bw_Bps, wide (0/1) and stop (ci, budget, max-reps). */
void mb_probe_comm_write_header(FILE *f);
void mb_probe_comm_write_row(FILE *f, const mb_probe_comm_row *r);

/* ---- mbprobe step: the real update step ------------------------------------------------------ */

struct mb_dataset; /* data/mb_dataset.h */

/* What is stepped. */
typedef struct mb_probe_step_config {
    const char *net;              /* cfg name or path (mb_net_desc_read) */
    const mb_net_desc *desc;      /* the description `net` names, read already (borrowed: it
                                     outlives the step), or NULL to read `net` here */
    const struct mb_dataset *data;/* the training set the learners draw shuffled batches from
                                     (at least max_batch samples of the net's input shape), or
                                     NULL for one generated from `seed`: uniform inputs in
                                     [0, 1), uniform labels, max(2 max_batch + 64, 64 MiB of
                                     inputs) samples */
    mb_backend_kind backend;      /* the device's backend (MB_BACKEND_CPU when zeroed) */
    int device;                   /* its device index (CUDA; 0) */
    int learners;                 /* model copies on the device (>= 1), each computing
                                     batch / learners samples of an update, side by side */
    int threads;                  /* threads on the device (>= 1), shared evenly by the
                                     learners (at least one each): each learner's context has
                                     threads / learners */
    mb_conv_algo conv_algo;       /* conv algorithm for layers whose cfg names none */
    unsigned long seed;           /* initialisation and shuffling of the copies (seed + copy
                                     index, as mbtrain --seed), generated data */
    mb_optim_params optim;        /* the optimiser of the timed update, as mbtrain's --algo,
                                     --lr, --momentum (lr > 0) */
    int max_batch;                /* the largest total batch M that will be stepped */
} mb_probe_step_config;

typedef struct mb_probe_step mb_probe_step;

/* Reads the description, opens a context of the backend for each learner (threads / learners
 * threads) and a CPU context whose pool of `learners` host threads runs their updates side by
 * side (mb_ctx_run), and builds `learners` learners (mb_learner_init, as mbtrain builds one) for
 * max_batch / learners samples each over the data set. Errors: those of mb_ctx_create
 * (MB_ENOTSUP: the backend is not built or has no device here, the reason in err),
 * mb_net_desc_read, mb_learner_init and mb_optim_create; MB_EINVAL for a bad config or data
 * that do not fit the net; MB_ENOMEM. */
int mb_probe_step_create(const mb_probe_step_config *c, mb_probe_step **s, mb_error *err);
void mb_probe_step_free(mb_probe_step *s);

const mb_net_desc *mb_probe_step_description(const mb_probe_step *s);

/* The backend's name and the device's ("cpu", "Intel(R) Xeon(R) ..."), for the table. */
const char *mb_probe_step_backend(const mb_probe_step *s);
const char *mb_probe_step_device(const mb_probe_step *s);

/* Learner i (0 <= i < learners), e.g. to inspect what an update did; NULL for another i. */
mb_learner *mb_probe_step_learner(mb_probe_step *s, int i);

/* One synchronous update of total batch `batch`: every learner runs mb_learner_step (the next
 * batch / learners samples of its shuffled pass over the data, forward, backward, optimiser
 * step) on the pool, then the device is synchronised; returns when the slowest is done.
 * MB_EINVAL when batch is not a multiple of learners in [learners, max_batch]. A learner whose
 * loss is not finite (the timed training diverged) goes back to its first parameters, velocity 0,
 * and the probe goes on timing the step (counted: mb_probe_step_restarts); MB_EDOM on a device
 * learner (whose velocity lives on the device), or when it diverges within MB_PROBE_STEP_QUICK
 * finite updates of its restart MB_PROBE_STEP_QUICK_TIMES times in a row (a rate that always
 * diverges at once). */
#define MB_PROBE_STEP_QUICK 2
#define MB_PROBE_STEP_QUICK_TIMES 10
int mb_probe_step_update(mb_probe_step *s, int batch, mb_error *err);
long mb_probe_step_restarts(const mb_probe_step *s);

/* Times mb_probe_step_update at `batch` under the harness (seconds per update in *st). */
int mb_probe_step_time(mb_probe_step *s, int batch, const mb_probe_options *o,
                       mb_probe_stats *st, mb_error *err);

/* Times every batch of batch[0..n-1] interleaved over `rounds` passes (mb_probe_time_rounds),
 * st[i] for batch[i]. Every batch is checked (one untimed update) before timing starts. */
int mb_probe_step_sweep(mb_probe_step *s, const int *batch, size_t n, const mb_probe_options *o,
                        size_t rounds, mb_probe_stats *st, mb_error *err);

/* One row of the step table (docs/design.md, "Step table") and the columns after it. */
typedef struct mb_probe_step_row {
    const char *backend;  /* "cpu", "cuda" (mb_backend_name: a static string) */
    const char *net;      /* the description's name (the caller's: it must outlive the row) */
    int batch;            /* total mini-batch M of one update */
    int learners;         /* model copies sharing it */
    int threads;          /* threads the learners ran on the device (mb_probe_step_threads_run) */
    mb_probe_stats st;    /* seconds per update */
    char device[128];     /* the device's name (mb_ctx_device_name) */
    long restarts;        /* its group's learners went back to their first parameters this
                             often, the timed training having diverged (mb_probe_step_update) */
} mb_probe_step_row;

/* The step table's header line and one row, as CSV lines ending in a newline: the twelve columns
 * of docs/design.md, "Step table" (samples_per_s = batch / t_median_s), then wide (0/1), stop (ci,
 * budget, max-reps), drift (empty when the point was measured in one pass: --rounds 1) and device
 * (its commas written as ';'). */
void mb_probe_step_write_header(FILE *f);
void mb_probe_step_write_row(FILE *f, const mb_probe_step_row *r);

/* The whole step sweep: every (threads, learners) group, each stepping the batch sizes that its
 * learner count divides, measured interleaved over `rounds` passes (mb_probe_step_sweep). */
typedef struct mb_probe_step_plan {
    mb_probe_step_config base;    /* net, data, backend, device, optimiser, conv algorithm and
                                     seed; learners, threads and max_batch are set per group */
    const char *net_name;         /* the description's name for the rows (outlives them) */
    const int *batch;             /* total mini-batch sizes, increasing */
    size_t n_batch;
    const int *threads;           /* thread counts */
    size_t n_threads;
    const int *learners;          /* learner counts */
    size_t n_learners;
    size_t rounds;                /* passes over a group's batch sizes (>= 1) */
    const mb_probe_options *o;
    /* Called after each group is measured (may be NULL): its rows, and the batch sizes that
     * its learner count does not divide (skipped). */
    void (*group_done)(void *arg, const mb_probe_step_row *rows, size_t n, const int *skipped,
                       size_t n_skipped);
    void *arg;
} mb_probe_step_plan;

/* The threads that `learners` copies run on a device given `threads`: threads/learners each
 * (rounded down), at least one each, so learners x that, which is what a row's `threads` says
 * (campaign 21's N17: --threads 1 --learners 4 ran 4 threads and said 1; --threads 3 --learners
 * 2 ran 2 and said 3). */
int mb_probe_step_threads_run(int threads, int learners);

/* MB_EINVAL naming --learners and --batch when a learner count divides none of the batch sizes
 * (its group would have no row), naming --threads when two thread counts run the same threads
 * with a learner count (mb_probe_step_threads_run: two groups of the same rows), or when a list
 * is empty. */
int mb_probe_step_plan_check(const mb_probe_step_plan *p, mb_error *err);

/* Runs the plan: *rows (allocated here, free() it) gets *n rows in the order threads, learners,
 * batch. Errors: those of mb_probe_step_plan_check, mb_probe_step_create and
 * mb_probe_step_sweep; MB_ENOMEM. */
int mb_probe_step_run(const mb_probe_step_plan *p, mb_probe_step_row **rows, size_t *n,
                      mb_error *err);

/* ---- mbprobe learners: Crossbow's tuner on the real step ------------------------------------- */

typedef struct mb_probe_learners_plan {
    mb_probe_step_config base;    /* threads, backend, workload (learners, max_batch set here) */
    int batch;                    /* samples per learner per update */
    mb_probe_tune tune;
    const mb_probe_options *o;
    /* Called after each learner count is timed (may be NULL). */
    void (*measured)(void *arg, int learners, double t_median_s, double samples_per_s);
    void *arg;
} mb_probe_learners_plan;

typedef struct mb_probe_learners_result {
    int n;                        /* learner counts measured, 1 .. n */
    int chosen;                   /* the count kept */
    double *t_median_s;           /* [tune.max_learners]: seconds per update with k + 1 */
    double *samples_per_s;        /* [tune.max_learners]: throughput with k + 1 */
    char backend[16], device[128];/* where it ran */
} mb_probe_learners_result;

/* Whether the plan's data (base.data, where given, with base.desc) can be trained by it: its
 * samples fit the net and it holds tune.max_learners x batch samples, the most an update of the
 * plan takes; MB_EINVAL naming what does not. The caller checks before it prints anything
 * (campaign 43's A: mbprobe learners said its header line, then refused the batch). */
int mb_probe_learners_check(const mb_probe_learners_plan *p, mb_error *err);

/* mb_probe_tune_learners over mb_probe_step_time with k learners of `batch` samples each.
 * Errors: those of mb_probe_step_create, mb_probe_step_time and mb_probe_tune_learners. */
int mb_probe_learners_run(const mb_probe_learners_plan *p, mb_probe_learners_result *r,
                          mb_error *err);
void mb_probe_learners_result_free(mb_probe_learners_result *r);

/* ---- mbprobe conv: convolution algorithms --------------------------------------------------- */

/* What a row of the convolution table holds. */
typedef enum mb_probe_conv_status {
    MB_PROBE_CONV_MEASURED = 0, /* timed in this run */
    MB_PROBE_CONV_CACHED,       /* read from the cache */
    MB_PROBE_CONV_UNSUPPORTED,  /* the algorithm cannot do the layer (no times) */
    MB_PROBE_CONV_NOMEM,        /* its workspace (or plan) could not be allocated (no times) */
    MB_PROBE_CONV_OVER_BUDGET   /* one call would outlast the point's --budget even at a peak
                                   rate no device reaches (no times; mb_probe_conv_min_s) */
} mb_probe_conv_status;

/* The least time one pass on shape `s` can take on `backend` ("cpu" with `threads` threads,
 * or a GPU): its multiply-adds (2 batch out_c out_h out_w in_c k^2 flops) at a peak no such
 * device reaches (1e11 flop/s a CPU thread, 1e14 a GPU). A point whose call needs more than its
 * budget is not timed: a layer with a huge workspace or kernel would otherwise run for minutes
 * a call whatever --budget says. */
double mb_probe_conv_min_s(const mb_conv_shape *s, const char *backend, int threads);

/* 1 when the kernels' own sizes of shape `s` fit their int arithmetic (a sample's C H W and
 * K OH OW, the column buffer's C F F rows, each below 2^31), else 0 with the reason in why:
 * a cfg may give sides up to 10^6, and C F F = 10^12 overflowed the GEMM layout. Such a point
 * is listed as unsupported, never handed to a kernel. */
int mb_probe_conv_shape_ok(const mb_conv_shape *s, char *why, size_t n);

/* "measured", "cached", "unsupported", "out of memory", "over budget". */
const char *mb_probe_conv_status_name(mb_probe_conv_status s);

/* Times, on the context, the passes marked in passes[0..2] (indexed by mb_conv_pass) of a plan
 * with algorithms algo[0..2] (indices into the context's per-pass lists) on shape `s`
 * (s->batch samples), each under the harness; a timed call is the pass then mb_ctx_sync, so a
 * device's asynchronous work is inside it. Tensors are the context's memory, inputs uniform in
 * [-1, 1). status[p] is MB_PROBE_CONV_MEASURED with st[p] filled, or MB_PROBE_CONV_NOMEM when
 * the pass's workspace could not be allocated (all timed passes when the plan could not).
 * Errors: MB_ENOTSUP when an algorithm cannot do the shape (check mb_ctx_conv_supported first),
 * MB_ENOMEM when the tensors do not fit, a pass's own error. */
int mb_probe_conv_time(mb_ctx *ctx, const mb_conv_shape *s, const int algo[3], const int *passes,
                       const mb_probe_options *o, mb_probe_stats st[3],
                       mb_probe_conv_status status[3], mb_error *err);

/* One row of the convolution table. */
typedef struct mb_probe_conv_row {
    char layer[32];          /* the layer's name in the description */
    mb_conv_shape shape;     /* its shape; shape.batch is M */
    mb_conv_pass pass;
    int algo;                /* index into the pass's list (mb_ctx_conv_algo_name) */
    char algo_name[32];      /* its name */
    mb_probe_conv_status status;
    char why[96];            /* for unsupported and out of memory: the reason */
    size_t workspace_bytes;  /* mb_ctx_conv_workspace for this pass and shape */
    mb_probe_stats st;       /* seconds per pass (measured and cached rows) */
    const char *backend;     /* mb_backend_name of the context */
    char device[128];        /* mb_ctx_device_name */
} mb_probe_conv_row;

/* The convolution table's header and one row: the six columns of docs/design.md, "Convolution
 * table" (layer, algo, pass, batch, t_median_s, workspace_bytes), then reps, t_min_s, t_p25_s,
 * t_p75_s, t_max_s, the shape (in_c, in_h, in_w, out_c, k, stride, pad), status
 * (mb_probe_conv_status_name: an unsupported row has empty time and workspace fields, an
 * out-of-memory row empty times and the workspace that did not fit), backend and device (its
 * commas written as ';'). */
void mb_probe_conv_write_header(FILE *f);
void mb_probe_conv_write_row(FILE *f, const mb_probe_conv_row *r);

struct mb_probe_cache;

/* The whole convolution sweep: every conv layer of `desc` x every batch x every algorithm of
 * each pass in the context's lists (or those named in `algos`). */
typedef struct mb_probe_conv_plan {
    mb_ctx *ctx;                  /* the backend and device timed */
    const mb_net_desc *desc;
    const int *batch;             /* batch sizes */
    size_t n_batch;
    const char *const *algos;     /* algorithm names to time (a name a pass lacks is skipped
                                     for that pass), or NULL for all */
    size_t n_algos;
    const mb_probe_options *o;
    struct mb_probe_cache *cache; /* points read from and added to it, or NULL */
    const char *hostname;         /* for the cache key */
    int threads;                  /* OpenBLAS threads, for the cache key */
    /* Called for each row as it is filled (may be NULL). */
    void (*row_done)(void *arg, const mb_probe_conv_row *r);
    void *arg;
} mb_probe_conv_plan;

/* Runs the plan: *rows (allocated here, free() it) gets *n rows ordered by layer, pass,
 * algorithm, batch; *measured (may be NULL) the number timed in this run. Errors: MB_EINVAL
 * when the net has no convolution layer or no algorithm is left to time; those of
 * mb_probe_conv_time and the cache; MB_ENOMEM. */
int mb_probe_conv_run(const mb_probe_conv_plan *p, mb_probe_conv_row **rows, size_t *n,
                      size_t *measured, mb_error *err);

/* ---- the probe cache ---------------------------------------------------------------------------- */

/* Measured points keyed by a string, kept in a CSV file (key,reps,t_median_s,t_min_s,t_p25_s,
 * t_p75_s,t_max_s) that is rewritten atomically. */
typedef struct mb_probe_cache mb_probe_cache;

/* Reads the cache at `path` (a missing file is an empty cache; its folder is made and the path
 * checked writable first, as every output is before work: MB_EIO naming it, an empty name
 * too). MB_EFORMAT naming the file when it is malformed, MB_ENOMEM. */
int mb_probe_cache_open(const char *path, mb_probe_cache **c, mb_error *err);
void mb_probe_cache_free(mb_probe_cache *c);

/* The point stored under `key`, or NULL (the last one stored when there are several). Only
 * reps, median, min, max and the quartiles are kept. */
const mb_probe_stats *mb_probe_cache_get(const mb_probe_cache *c, const char *key);

/* Stores a point (MB_EINVAL for a key holding a comma or newline). */
int mb_probe_cache_put(mb_probe_cache *c, const char *key, const mb_probe_stats *st,
                       mb_error *err);

/* Writes the cache back (creating its folder) when points were added. MB_EIO on failure. */
int mb_probe_cache_save(mb_probe_cache *c, mb_error *err);

/* The cache key of a convolution point: host name, backend, device name, threads, this build's
 * kernels (mb_probe_kernels_id), shape, algorithm name, pass and batch, with CSV-unsafe
 * characters replaced. */
void mb_probe_conv_key(char *buf, size_t n, const char *host, const char *backend,
                       const char *device, int threads, const mb_conv_shape *s, const char *algo,
                       mb_conv_pass pass);

/* A hash of the backends' sources this build was made from (12 hex digits): kernels changed,
 * cached timings no longer apply. */
const char *mb_probe_kernels_id(void);

#endif /* MB_PROBE_H */
