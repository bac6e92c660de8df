/* harness.c — the timing harness every probe uses: CLOCK_MONOTONIC, the statistics of a set of
 * timings (median, quartiles, extremes, the order-statistic 95% interval of the median), the stop
 * rule, and the driver that times a callback under it.
 *
 * Does not: print, decide what is timed, or know about MPI (comm.c applies the same statistics
 * and stop rule to collectives).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "mb_probe.h"

double mb_probe_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double mb_probe_clock_resolution(void)
{
    struct timespec ts;
    if (clock_getres(CLOCK_MONOTONIC, &ts) != 0)
        return NAN;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double mb_probe_clock_step(void)
{
    double best = INFINITY;
    for (int i = 0; i < 200; i++) {
        double a = mb_probe_now(), b;
        while ((b = mb_probe_now()) == a)
            ;
        if (b - a < best)
            best = b - a;
    }
    return best;
}

const char *mb_probe_stop_name(mb_probe_stop why)
{
    switch (why) {
    case MB_PROBE_STOP_CI: return "ci";
    case MB_PROBE_STOP_BUDGET: return "budget";
    case MB_PROBE_STOP_MAXREPS: return "max-reps";
    case MB_PROBE_CONTINUE: break;
    }
    return "continue";
}

/* ---- statistics ------------------------------------------------------------------------------ */

size_t mb_probe_median_ci_rank(size_t n, double *cover)
{
    /* The number of samples below the true median is Binomial(n, 1/2), so [x_(k), x_(n+1-k)]
     * covers the median with probability 1 - 2 P(B <= k - 1). Take the largest k with coverage
     * >= 0.95; coverage falls as k grows, so bisect on k in [1, n/2]. */
    size_t best = 0;
    double best_cover = NAN;
    size_t lo = 1, hi = n / 2;
    while (lo <= hi) {
        size_t k = lo + (hi - lo) / 2;
        double c = 1.0 - 2.0 * gsl_cdf_binomial_P((unsigned)(k - 1), 0.5, (unsigned)n);
        if (c >= 0.95) {
            best = k;
            best_cover = c;
            lo = k + 1;
        } else {
            hi = k - 1;
        }
    }
    if (cover)
        *cover = best_cover;
    return best;
}

int mb_probe_stats_compute(const double *x, size_t n, double wide_iqr, double *work,
                           mb_probe_stats *st)
{
    if (n == 0)
        return MB_ENODATA;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]) || x[i] < 0)
            return MB_EDOM;
    memcpy(work, x, n * sizeof *work);
    gsl_sort(work, 1, n);
    st->reps = n;
    st->min = work[0];
    st->max = work[n - 1];
    st->median = gsl_stats_median_from_sorted_data(work, 1, n);
    st->p25 = gsl_stats_quantile_from_sorted_data(work, 1, n, 0.25);
    st->p75 = gsl_stats_quantile_from_sorted_data(work, 1, n, 0.75);
    double cover;
    size_t k = mb_probe_median_ci_rank(n, &cover);
    if (k > 0) {
        st->ci_lo = work[k - 1];
        st->ci_hi = work[n - k];
        st->ci_cover = cover;
    } else {
        st->ci_lo = st->ci_hi = st->ci_cover = NAN;
    }
    st->wide = st->median > 0 ? (st->p75 - st->p25) / st->median > wide_iqr
                              : st->p75 > st->p25;
    return MB_OK;
}

double mb_probe_drift(const double *x, const size_t *start, size_t passes, double *work)
{
    double lo = INFINITY, hi = -INFINITY;
    size_t used = 0;
    for (size_t p = 0; p < passes; p++) {
        size_t n = start[p + 1] - start[p];
        if (n == 0)
            continue;
        memcpy(work, x + start[p], n * sizeof *work);
        gsl_sort(work, 1, n);
        double m = gsl_stats_median_from_sorted_data(work, 1, n);
        lo = fmin(lo, m);
        hi = fmax(hi, m);
        used++;
    }
    return used >= 2 && lo > 0 ? (hi - lo) / lo : NAN;
}

/* ---- options and the stop rule ----------------------------------------------------------------- */

void mb_probe_options_init(mb_probe_options *o)
{
    o->warmup = 3;
    o->min_reps = 10;
    o->max_reps = 10000;
    o->rel_ci = 0.02;
    o->budget_s = 1.0;
    o->wide_iqr = 0.10;
    o->min_block_s = 2e-4;
}

int mb_probe_options_check(const mb_probe_options *o, mb_error *err)
{
    if (o->max_reps < 1)
        return mb_error_set(err, MB_EINVAL, "--max-reps: must be >= 1, got %zu", o->max_reps);
    mb_probe_options d;
    mb_probe_options_init(&d); /* campaign 42's D10: a default the user did not type, said so */
    if (o->min_reps > o->max_reps)
        return mb_error_set(err, MB_EINVAL, "--min-reps %zu%s exceeds --max-reps %zu", o->min_reps,
                            o->min_reps == d.min_reps ? " (the default)" : "", o->max_reps);
    if (!(o->rel_ci >= 0 && o->rel_ci < 1))
        return mb_error_set(err, MB_EINVAL, "--rel-ci: must be in [0, 1), got %g", o->rel_ci);
    if (!(o->budget_s > 0) || !isfinite(o->budget_s))
        return mb_error_set(err, MB_EINVAL, "--budget: must be > 0, got %g", o->budget_s);
    if (!(o->wide_iqr >= 0) || !isfinite(o->wide_iqr))
        return mb_error_set(err, MB_EINVAL, "wide_iqr: must be >= 0, got %g", o->wide_iqr);
    if (!(o->min_block_s >= 0) || !isfinite(o->min_block_s))
        return mb_error_set(err, MB_EINVAL, "min_block_s: must be >= 0, got %g", o->min_block_s);
    return MB_OK;
}

mb_probe_stop mb_probe_stop_rule(const mb_probe_stats *st, const mb_probe_options *o,
                                 double elapsed_s)
{
    if (st->reps >= o->max_reps)
        return MB_PROBE_STOP_MAXREPS;
    if (st->reps >= 1 && elapsed_s >= o->budget_s)
        return MB_PROBE_STOP_BUDGET;
    if (st->reps >= o->min_reps && isfinite(st->ci_lo) && isfinite(st->ci_hi) &&
        st->median - st->ci_lo <= o->rel_ci * st->median &&
        st->ci_hi - st->median <= o->rel_ci * st->median)
        return MB_PROBE_STOP_CI;
    return MB_PROBE_CONTINUE;
}

/* ---- the driver -------------------------------------------------------------------------------- */

/* Times `block` calls of the task (with reset before each when given; reset forces block = 1). */
static int run_block(const mb_probe_task *t, size_t block, double *seconds)
{
    int rc;
    if (t->reset && (rc = t->reset(t->ctx)) != MB_OK)
        return rc;
    double t0 = mb_probe_now();
    for (size_t i = 0; i < block; i++)
        if ((rc = t->run(t->ctx)) != MB_OK)
            return rc;
    *seconds = mb_probe_now() - t0;
    return MB_OK;
}

/* One point's share of a measurement: appends samples to x[*n..] (capacity o->max_reps) until
 * the stop rule, given the budget and minimum repetitions of this share, says stop. The first
 * share runs set-up, the warm-up and the block calibration (*block = 0 asks for it); later shares
 * run one untimed block first, so caches are warm again after the other points ran. */
static int measure_share(const mb_probe_task *task, const mb_probe_options *o, double budget_s,
                         size_t min_reps, double *x, double *work, size_t *n, size_t *block,
                         mb_probe_stats *st)
{
    int rc;
    double start = mb_probe_now(), dt = 0;
    if (*block == 0) {
        if (task->setup && (rc = task->setup(task->ctx)) != MB_OK)
            return rc;
        /* the budget includes the warm-up: a call slower than the budget is warmed up once */
        for (size_t i = 0; i < o->warmup && (i == 0 || mb_probe_now() - start < budget_s); i++)
            if ((rc = run_block(task, 1, &dt)) != MB_OK)
                return rc;
        /* Blocked autorange: double the calls per sample until one block lasts min_block_s.
         * These calibration blocks are warm-up too; none is counted. */
        *block = 1;
        if (!task->reset && o->min_block_s > 0 && mb_probe_now() - start < budget_s) {
            if ((rc = run_block(task, *block, &dt)) != MB_OK)
                return rc;
            while (dt < o->min_block_s && *block < ((size_t)1 << 30) &&
                   mb_probe_now() - start < budget_s) {
                *block *= 2;
                if ((rc = run_block(task, *block, &dt)) != MB_OK)
                    return rc;
            }
        }
    } else if ((rc = run_block(task, *block, &dt)) != MB_OK) {
        return rc;
    }
    mb_probe_options share = *o;
    share.budget_s = budget_s;
    share.min_reps = min_reps;
    /* Recomputing the statistics costs a sort; do it at min_reps and then whenever the sample
     * count has grown by 5%, so the cost per sample stays O(log n) on average. It runs between
     * samples, never inside one. */
    size_t taken = 0, next_check = *n + (min_reps > 6 ? min_reps : 6);
    for (;;) {
        if (*n >= o->max_reps) {
            st->why = MB_PROBE_STOP_MAXREPS;
            return MB_OK;
        }
        if ((rc = run_block(task, *block, &dt)) != MB_OK)
            return rc;
        x[(*n)++] = dt / (double)*block;
        taken++;
        double elapsed = mb_probe_now() - start;
        mb_probe_stats cur = {.reps = taken, .ci_lo = NAN, .ci_hi = NAN, .median = NAN};
        if (*n >= next_check || *n >= o->max_reps || elapsed >= budget_s) {
            mb_probe_stats_compute(x, *n, o->wide_iqr, work, &cur);
            cur.reps = taken; /* this share's minimum counts its own samples */
            next_check = *n + (*n / 20 > 0 ? *n / 20 : 1);
        }
        mb_probe_stop why = mb_probe_stop_rule(&cur, &share, elapsed);
        if (why != MB_PROBE_CONTINUE) {
            st->why = why;
            return MB_OK;
        }
    }
}

int mb_probe_time_rounds(const mb_probe_task *tasks, size_t n_tasks, const mb_probe_options *o,
                         size_t rounds, mb_probe_stats *st, mb_error *err)
{
    int rc = mb_probe_options_check(o, err);
    if (rc != MB_OK)
        return rc;
    if (rounds < 1)
        return mb_error_set(err, MB_EINVAL, "timing harness: rounds must be >= 1");
    for (size_t i = 0; i < n_tasks; i++)
        if (!tasks[i].run)
            return mb_error_set(err, MB_EINVAL, "timing harness: no callback to time");
    double *x = malloc((n_tasks + 1) * o->max_reps * sizeof *x);
    /* per task: its sample count and block, then where each pass's samples start */
    size_t *n = calloc(n_tasks ? n_tasks : 1, (rounds + 3) * sizeof *n);
    if (!x || !n) {
        free(x);
        free(n);
        return mb_error_set(err, MB_ENOMEM, "timing harness: out of memory for %zu samples",
                            o->max_reps);
    }
    size_t *block = n + n_tasks, *start = block + n_tasks; /* start[i * (rounds + 1) + pass] */
    double *work = x + n_tasks * o->max_reps;
    size_t share_min = (o->min_reps + rounds - 1) / rounds;
    for (size_t i = 0; i < n_tasks; i++) {
        memset(&st[i], 0, sizeof st[i]);
        st[i].why = MB_PROBE_CONTINUE;
    }
    for (size_t r = 0; r < rounds; r++) {
        for (size_t i = 0; i < n_tasks; i++) {
            start[i * (rounds + 1) + r] = n[i];
            double t0 = mb_probe_now();
            rc = measure_share(&tasks[i], o, o->budget_s / (double)rounds, share_min,
                               x + i * o->max_reps, work, &n[i], &block[i], &st[i]);
            st[i].elapsed_s += mb_probe_now() - t0;
            if (rc != MB_OK) {
                free(x);
                free(n);
                return mb_error_set(err, rc, "timing harness: the timed callback failed: %s",
                                    mb_strerror(rc));
            }
        }
    }
    for (size_t i = 0; i < n_tasks; i++) {
        mb_probe_stop why = st[i].why;
        double elapsed = st[i].elapsed_s;
        const double *xi = x + i * o->max_reps;
        size_t *si = start + i * (rounds + 1);
        si[rounds] = n[i];
        mb_probe_stats_compute(xi, n[i], o->wide_iqr, work, &st[i]);
        st[i].why = why;
        st[i].elapsed_s = elapsed;
        st[i].block = block[i];
        st[i].drift = mb_probe_drift(xi, si, rounds, work);
    }
    free(x);
    free(n);
    return MB_OK;
}

int mb_probe_time(const mb_probe_task *task, const mb_probe_options *o, mb_probe_stats *st,
                  mb_error *err)
{
    if (!task)
        return mb_error_set(err, MB_EINVAL, "timing harness: no callback to time");
    return mb_probe_time_rounds(task, 1, o, 1, st, err);
}

static int empty_call(void *ctx)
{
    (void)ctx;
    return MB_OK;
}

/* A no-op reset, so that the overhead is measured one call per sample, like a step that
 * needs resetting, and never amortised by blocking. */
static int empty_reset(void *ctx)
{
    (void)ctx;
    return MB_OK;
}

int mb_probe_overhead(const mb_probe_options *o, mb_probe_stats *st, mb_error *err)
{
    mb_probe_task t = {.run = empty_call, .reset = empty_reset, .ctx = NULL};
    return mb_probe_time(&t, o, st, err);
}
