/* test_probe.c — probe/: the harness's statistics on synthetic samples with known answers, its
 * stop rule (pure, and driven by callbacks whose call counts are checked, never their times), the
 * knee fit on piecewise data against a brute-force search, Crossbow's auto-tuner on synthetic
 * throughput curves, the metadata lines, and `mbprobe` end to end (comm under mpirun, bad input).
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_version.h>

#include "../data/mb_parse.h"
#include "../data/mb_table.h"
#include "../data/mb_dataset.h"
#include "../probe/mb_probe.h"
#include "mb_test.h"

/* ---- statistics ------------------------------------------------------------------------------ */

static void test_stats_known(void)
{
    double work[16];
    mb_probe_stats st = {0};
    /* 1..5 shuffled: median 3, linear-interpolated quartiles 2 and 4; n < 6 has no 95% interval
     * for the median (2 / 2^5 = 6.25% > 5%). */
    const double five[] = {5, 1, 4, 2, 3};
    CU_ASSERT_EQUAL(mb_probe_stats_compute(five, 5, 0.10, work, &st), MB_OK);
    CU_ASSERT_EQUAL(st.reps, 5);
    CU_ASSERT_DOUBLE_EQUAL(st.median, 3, 0);
    CU_ASSERT_DOUBLE_EQUAL(st.p25, 2, 0);
    CU_ASSERT_DOUBLE_EQUAL(st.p75, 4, 0);
    CU_ASSERT_DOUBLE_EQUAL(st.min, 1, 0);
    CU_ASSERT_DOUBLE_EQUAL(st.max, 5, 0);
    CU_ASSERT(isnan(st.ci_lo) && isnan(st.ci_hi));
    CU_ASSERT_EQUAL(st.wide, 1); /* IQR / median = 2/3 */
    CU_ASSERT_DOUBLE_EQUAL(five[0], 5, 0); /* input untouched */

    /* 1..10 shuffled, scaled by 1e-4 s: median 5.5, quartiles 1 + 0.25*9 = 3.25 and 7.75;
     * 95% interval [x_(2), x_(9)] with coverage 1 - 2*11/1024. */
    const double ten[] = {7e-4, 2e-4, 10e-4, 4e-4, 1e-4, 9e-4, 3e-4, 6e-4, 8e-4, 5e-4};
    CU_ASSERT_EQUAL(mb_probe_stats_compute(ten, 10, 0.10, work, &st), MB_OK);
    CU_ASSERT(mb_test_close(st.median, 5.5e-4, 1e-14));
    CU_ASSERT(mb_test_close(st.p25, 3.25e-4, 1e-14));
    CU_ASSERT(mb_test_close(st.p75, 7.75e-4, 1e-14));
    CU_ASSERT(mb_test_close(st.ci_lo, 2e-4, 0));
    CU_ASSERT(mb_test_close(st.ci_hi, 9e-4, 0));
    CU_ASSERT(mb_test_close(st.ci_cover, 1 - 22.0 / 1024, 1e-12));

    /* A tight set: sorted, the quartiles are x_(3) = 0.98 and x_(7) = 1.01, so IQR / median =
     * 0.03: not wide at 10%, wide at 2.5%. */
    const double tight[] = {0.98, 1.00, 1.02, 0.99, 1.01, 0.97, 1.03, 1.00, 0.96};
    CU_ASSERT_EQUAL(mb_probe_stats_compute(tight, 9, 0.10, work, &st), MB_OK);
    CU_ASSERT_EQUAL(st.wide, 0);
    CU_ASSERT(mb_test_close(st.p75 - st.p25, 0.03, 1e-12));
    CU_ASSERT_EQUAL(mb_probe_stats_compute(tight, 9, 0.025, work, &st), MB_OK);
    CU_ASSERT_EQUAL(st.wide, 1);

    /* errors */
    CU_ASSERT_EQUAL(mb_probe_stats_compute(five, 0, 0.1, work, &st), MB_ENODATA);
    const double neg[] = {1, -1, 2};
    CU_ASSERT_EQUAL(mb_probe_stats_compute(neg, 3, 0.1, work, &st), MB_EDOM);
    const double nan_[] = {1, NAN, 2};
    CU_ASSERT_EQUAL(mb_probe_stats_compute(nan_, 3, 0.1, work, &st), MB_EDOM);
}

/* The interval ranks against exact binomial sums (computed independently in integers with
 * Python's math.comb): n -> (k, coverage). */
static void test_median_ci_rank(void)
{
    static const struct { size_t n, k; double cover; } tab[] = {
        {5, 0, NAN}, {6, 1, 0.96875}, {7, 1, 0.984375}, {10, 2, 0.978515625},
        {20, 6, 0.9586105346679688}, {100, 40, 0.9647997997822952},
        {1000, 469, 0.9537088026395019}};
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        double c;
        size_t k = mb_probe_median_ci_rank(tab[i].n, &c);
        CU_ASSERT_EQUAL(k, tab[i].k);
        if (tab[i].k) {
            CU_ASSERT(mb_test_close(c, tab[i].cover, 1e-9)); /* GSL's incomplete beta */
        } else {
            CU_ASSERT(isnan(c));
        }
    }
    CU_ASSERT_EQUAL(mb_probe_median_ci_rank(0, NULL), 0);
    CU_ASSERT_EQUAL(mb_probe_median_ci_rank(1, NULL), 0);
}

/* ---- the stop rule ------------------------------------------------------------------------------ */

static void test_stop_rule(void)
{
    mb_probe_options o;
    mb_probe_options_init(&o);
    CU_ASSERT_EQUAL(o.warmup, 3);
    CU_ASSERT_DOUBLE_EQUAL(o.rel_ci, 0.02, 0);
    CU_ASSERT_DOUBLE_EQUAL(o.wide_iqr, 0.10, 0);
    o.min_reps = 10;
    o.max_reps = 100;
    o.budget_s = 2.0;
    mb_probe_stats st = {.reps = 20, .median = 1.0, .ci_lo = 0.99, .ci_hi = 1.015};
    CU_ASSERT_EQUAL(mb_probe_stop_rule(&st, &o, 0.5), MB_PROBE_STOP_CI);
    st.ci_hi = 1.021; /* upper end 2.1% away */
    CU_ASSERT_EQUAL(mb_probe_stop_rule(&st, &o, 0.5), MB_PROBE_CONTINUE);
    st.ci_hi = 1.01;
    st.ci_lo = 0.975; /* lower end 2.5% away */
    CU_ASSERT_EQUAL(mb_probe_stop_rule(&st, &o, 0.5), MB_PROBE_CONTINUE);
    CU_ASSERT_EQUAL(mb_probe_stop_rule(&st, &o, 2.0), MB_PROBE_STOP_BUDGET);
    st.ci_lo = 0.99;
    st.reps = 9; /* tight but below min_reps */
    CU_ASSERT_EQUAL(mb_probe_stop_rule(&st, &o, 0.5), MB_PROBE_CONTINUE);
    st.ci_lo = st.ci_hi = NAN; /* no interval yet */
    st.reps = 50;
    CU_ASSERT_EQUAL(mb_probe_stop_rule(&st, &o, 0.5), MB_PROBE_CONTINUE);
    st.reps = 100;
    CU_ASSERT_EQUAL(mb_probe_stop_rule(&st, &o, 0.5), MB_PROBE_STOP_MAXREPS);
    st.reps = 0; /* the budget never stops a point before its first sample */
    CU_ASSERT_EQUAL(mb_probe_stop_rule(&st, &o, 9.0), MB_PROBE_CONTINUE);
    CU_ASSERT_STRING_EQUAL(mb_probe_stop_name(MB_PROBE_STOP_CI), "ci");
    CU_ASSERT_STRING_EQUAL(mb_probe_stop_name(MB_PROBE_STOP_BUDGET), "budget");
    CU_ASSERT_STRING_EQUAL(mb_probe_stop_name(MB_PROBE_STOP_MAXREPS), "max-reps");

    mb_error err;
    CU_ASSERT_EQUAL(mb_probe_options_check(&o, &err), MB_OK);
    mb_probe_options b = o;
    b.min_reps = 101;
    CU_ASSERT_EQUAL(mb_probe_options_check(&b, &err), MB_EINVAL);
    CU_ASSERT(strstr(err.msg, "--min-reps") != NULL);
    b = o, b.max_reps = 0;
    CU_ASSERT_EQUAL(mb_probe_options_check(&b, &err), MB_EINVAL);
    b = o, b.budget_s = 0;
    CU_ASSERT_EQUAL(mb_probe_options_check(&b, &err), MB_EINVAL);
    b = o, b.rel_ci = -0.1;
    CU_ASSERT_EQUAL(mb_probe_options_check(&b, &err), MB_EINVAL);
    b = o, b.rel_ci = 1; /* a half-width of the whole median stops at the first check */
    CU_ASSERT_EQUAL(mb_probe_options_check(&b, &err), MB_EINVAL);
    b = o, b.wide_iqr = NAN;
    CU_ASSERT_EQUAL(mb_probe_options_check(&b, &err), MB_EINVAL);
    b = o, b.min_block_s = -1;
    CU_ASSERT_EQUAL(mb_probe_options_check(&b, &err), MB_EINVAL);
}

/* ---- the driver, with callbacks that count ------------------------------------------------------ */

typedef struct counter {
    long setups, resets, runs;
    long fail_at;        /* run number that returns MB_EIO (0: never) */
    long sleep_ns;       /* nanosleep per run (0: a fixed busy loop instead) */
    volatile double sink;
} counter;

static int count_setup(void *c) { ((counter *)c)->setups++; return MB_OK; }
static int count_reset(void *c) { ((counter *)c)->resets++; return MB_OK; }
static int fail_setup(void *c) { (void)c; return MB_EIO; }
static int count_run(void *cv)
{
    counter *c = cv;
    c->runs++;
    if (c->fail_at && c->runs == c->fail_at)
        return MB_EIO;
    if (c->sleep_ns) {
        /* nanosleep sleeps at least this long: a guaranteed lower bound on the call's time */
        struct timespec ts = {0, c->sleep_ns};
        while (nanosleep(&ts, &ts) != 0)
            ;
    } else {
        double s = 0;
        for (int i = 1; i <= 2000; i++)
            s += 1.0 / i;
        c->sink = s;
    }
    return MB_OK;
}

static void check_order(const mb_probe_stats *st)
{
    CU_ASSERT(st->min <= st->p25 && st->p25 <= st->median && st->median <= st->p75 &&
              st->p75 <= st->max);
    CU_ASSERT(st->min >= 0 && isfinite(st->max));
}

static void test_time_counts(void)
{
    mb_probe_options o;
    mb_probe_options_init(&o);
    o.warmup = 4;
    o.min_reps = 12;
    o.max_reps = 2000;
    o.budget_s = 30; /* generous: the CI or max_reps ends it, never the budget in practice */
    mb_error err;
    mb_probe_stats st;

    /* With reset: one call per sample, and every call is accounted for. */
    counter c = {0};
    mb_probe_task t = {.run = count_run, .setup = count_setup, .reset = count_reset, .ctx = &c};
    CU_ASSERT_EQUAL_FATAL(mb_probe_time(&t, &o, &st, &err), MB_OK);
    CU_ASSERT_EQUAL(c.setups, 1);
    CU_ASSERT_EQUAL(st.block, 1);
    CU_ASSERT_EQUAL((size_t)c.runs, o.warmup + st.reps);
    CU_ASSERT_EQUAL(c.resets, c.runs);
    CU_ASSERT(st.reps <= o.max_reps);
    CU_ASSERT(st.why != MB_PROBE_CONTINUE);
    if (st.why == MB_PROBE_STOP_CI) {
        /* the rule's promise holds on the final statistics */
        CU_ASSERT(st.reps >= o.min_reps);
        CU_ASSERT(st.median - st.ci_lo <= o.rel_ci * st.median);
        CU_ASSERT(st.ci_hi - st.median <= o.rel_ci * st.median);
    }
    check_order(&st);

    /* min_reps = max_reps: exactly that many samples, stopped by the cap. */
    o.min_reps = o.max_reps = 25;
    c = (counter){0};
    CU_ASSERT_EQUAL_FATAL(mb_probe_time(&t, &o, &st, &err), MB_OK);
    CU_ASSERT_EQUAL(st.reps, 25);
    CU_ASSERT_EQUAL(st.why, MB_PROBE_STOP_MAXREPS);
    CU_ASSERT_EQUAL(c.runs, 4 + 25);

    /* Without reset, blocked autorange: calibration blocks of 1, 2, 4, ..., block calls
     * (2 block - 1 in all) are warm-up, then reps blocks of `block` calls. */
    o.min_block_s = 1e-4;
    c = (counter){0};
    t.reset = NULL;
    CU_ASSERT_EQUAL_FATAL(mb_probe_time(&t, &o, &st, &err), MB_OK);
    CU_ASSERT((st.block & (st.block - 1)) == 0); /* a power of two */
    CU_ASSERT_EQUAL((size_t)c.runs, o.warmup + (2 * st.block - 1) + st.reps * st.block);
    check_order(&st);
}

/* Rounds: the points are measured in turn, pass after pass, and every sample of every pass is
 * in the final statistics. */
typedef struct seq_task {
    counter c;
    int id;
    int *log;   /* shared: the id of every call, in order */
    int *n_log;
} seq_task;

static int seq_run(void *v)
{
    seq_task *t = v;
    t->log[(*t->n_log)++] = t->id;
    return count_run(&t->c);
}

static int seq_reset(void *v)
{
    return count_reset(&((seq_task *)v)->c);
}

static void test_time_rounds(void)
{
    mb_probe_options o;
    mb_probe_options_init(&o);
    o.warmup = 0;
    o.min_reps = 3;      /* one sample per point and pass: ceil(3 / 3) */
    o.budget_s = 1e-12;  /* each share's budget ends it after its first sample */
    int log[64], n_log = 0;
    seq_task a = {.id = 1, .log = log, .n_log = &n_log};
    seq_task b = {.id = 2, .log = log, .n_log = &n_log};
    mb_probe_task t[2] = {{.run = seq_run, .reset = seq_reset, .setup = count_setup, .ctx = &a},
                          {.run = seq_run, .reset = seq_reset, .setup = count_setup, .ctx = &b}};
    mb_probe_stats st[2];
    mb_error err;
    CU_ASSERT_EQUAL_FATAL(mb_probe_time_rounds(t, 2, &o, 3, st, &err), MB_OK);
    /* pass 1: one sample each; passes 2 and 3: one untimed re-warm call, then one sample */
    const int want[] = {1, 2, 1, 1, 2, 2, 1, 1, 2, 2};
    CU_ASSERT_EQUAL_FATAL(n_log, 10);
    for (int i = 0; i < 10; i++)
        CU_ASSERT_EQUAL(log[i], want[i]);
    for (int i = 0; i < 2; i++) {
        CU_ASSERT_EQUAL(st[i].reps, 3);
        CU_ASSERT_EQUAL(st[i].why, MB_PROBE_STOP_BUDGET);
        CU_ASSERT(st[i].min > 0 && st[i].min <= st[i].median && st[i].median <= st[i].max);
    }
    CU_ASSERT(isfinite(st[0].drift) && st[0].drift >= 0); /* three passes of one sample */
    CU_ASSERT_EQUAL(a.c.setups, 1); /* set-up once, in the first pass */
    CU_ASSERT_EQUAL(b.c.runs, 5);
    CU_ASSERT_EQUAL(mb_probe_time_rounds(t, 2, &o, 0, st, &err), MB_EINVAL);
}

static void test_drift(void)
{
    /* passes of medians 2, 3 and 2.5 (the 100 is one outlier, which a median ignores) */
    const double x[] = {2, 2, 2, 3, 100, 3, 3, 2.5, 2.5};
    const size_t start[] = {0, 3, 3, 7, 9}; /* the second pass holds no sample */
    double work[9];
    CU_ASSERT_DOUBLE_EQUAL(mb_probe_drift(x, start, 4, work), 0.5, 1e-15);
    const size_t one[] = {0, 0, 9, 9}; /* all samples in one pass: nothing to compare */
    CU_ASSERT(isnan(mb_probe_drift(x, one, 3, work)));
    const size_t same[] = {0, 3, 9}; /* 2 2 2 | 3 100 3 3 2.5 2.5: medians 2 and 3 */
    CU_ASSERT_DOUBLE_EQUAL(mb_probe_drift(x, same, 2, work), 0.5, 1e-15);
    const double flat[] = {1, 1, 1, 1};
    const size_t halves[] = {0, 2, 4};
    CU_ASSERT_EQUAL(mb_probe_drift(flat, halves, 2, work), 0);

    /* one point measured in one pass has no drift */
    mb_probe_options o;
    mb_probe_options_init(&o);
    o.budget_s = 1e-3;
    counter c = {0};
    mb_probe_task t = {.run = count_run, .ctx = &c};
    mb_probe_stats st;
    mb_error err;
    CU_ASSERT_EQUAL_FATAL(mb_probe_time(&t, &o, &st, &err), MB_OK);
    CU_ASSERT(isnan(st.drift));
}

static void test_time_budget(void)
{
    /* Each call sleeps >= 2 ms, the budget is 5 ms with one warm-up call: after the warm-up and
     * two samples at least 6 ms have passed, so at most 2 samples are taken whatever the load. */
    mb_probe_options o;
    mb_probe_options_init(&o);
    o.warmup = 1;
    o.min_reps = 10;
    o.budget_s = 5e-3;
    counter c = {.sleep_ns = 2000000};
    mb_probe_task t = {.run = count_run, .reset = count_reset, .ctx = &c};
    mb_probe_stats st;
    mb_error err;
    CU_ASSERT_EQUAL_FATAL(mb_probe_time(&t, &o, &st, &err), MB_OK);
    CU_ASSERT(st.reps >= 1 && st.reps <= 2);
    CU_ASSERT_EQUAL(st.why, MB_PROBE_STOP_BUDGET);
    CU_ASSERT(st.min >= 2e-3); /* the sleep's lower bound shows in every sample */
    CU_ASSERT(st.elapsed_s >= 5e-3);
}

static void test_time_errors(void)
{
    mb_probe_options o;
    mb_probe_options_init(&o);
    mb_probe_stats st;
    mb_error err;
    counter c = {.fail_at = 3};
    mb_probe_task t = {.run = count_run, .reset = count_reset, .ctx = &c};
    CU_ASSERT_EQUAL(mb_probe_time(&t, &o, &st, &err), MB_EIO);
    CU_ASSERT(strstr(err.msg, "callback failed") != NULL);
    CU_ASSERT_EQUAL(c.runs, 3); /* stopped at the failure */
    c = (counter){.fail_at = 0};
    t.setup = fail_setup;
    CU_ASSERT_EQUAL(mb_probe_time(&t, &o, &st, &err), MB_EIO);
    CU_ASSERT_EQUAL(c.runs, 0);
    mb_probe_task none = {0};
    CU_ASSERT_EQUAL(mb_probe_time(&none, &o, &st, &err), MB_EINVAL);
    o.budget_s = -1;
    t.setup = NULL;
    CU_ASSERT_EQUAL(mb_probe_time(&t, &o, &st, &err), MB_EINVAL);
}

static void test_overhead(void)
{
    mb_probe_options o;
    mb_probe_options_init(&o);
    o.budget_s = 0.05;
    o.min_reps = 100;
    mb_probe_stats st;
    mb_error err;
    CU_ASSERT_EQUAL_FATAL(mb_probe_overhead(&o, &st, &err), MB_OK);
    CU_ASSERT_EQUAL(st.block, 1);
    CU_ASSERT(st.reps >= 1);
    check_order(&st);
    double res = mb_probe_clock_resolution(), step = mb_probe_clock_step();
    CU_ASSERT(res > 0 && res < 1e-3);
    CU_ASSERT(step > 0 && isfinite(step));
}

/* ---- knee ------------------------------------------------------------------------------------ */

/* The same objective as knee.c, searched on a dense grid of log M_T: an independent check that
 * the interval-wise closed form finds the global minimum. */
static double grid_sse(const double *m, const double *t, size_t n, double v)
{
    double mean = 0, s = 0;
    for (size_t i = 0; i < n; i++)
        mean += log(t[i]) - fmax(v, log(m[i]));
    mean /= n;
    for (size_t i = 0; i < n; i++) {
        double r = log(t[i]) - fmax(v, log(m[i])) - mean;
        s += r * r;
    }
    return s;
}

static void piecewise(const double *m, double *t, size_t n, double gamma, double m_t,
                      const double *wobble)
{
    for (size_t i = 0; i < n; i++)
        t[i] = gamma * fmax(m[i], m_t) * (wobble ? 1 + wobble[i] : 1);
}

static void test_knee_exact(void)
{
    double m[11], t[11];
    for (int i = 0; i < 11; i++)
        m[i] = ldexp(1, i); /* 1 .. 1024 */
    mb_probe_knee k;
    mb_error err;
    /* Exact piecewise data: the fit recovers M_T and gamma to rounding (1e-9 allows for the
     * logs and exps of 11 points). */
    piecewise(m, t, 11, 3.7e-5, 45.3, NULL);
    CU_ASSERT_EQUAL_FATAL(mb_probe_knee_fit(m, t, 11, &k, &err), MB_OK);
    CU_ASSERT_EQUAL(k.where, MB_PROBE_KNEE_INSIDE);
    CU_ASSERT(mb_test_close(k.m_t, 45.3, 1e-9));
    CU_ASSERT(mb_test_close(k.gamma, 3.7e-5, 1e-9));
    CU_ASSERT(mb_test_close(k.t_flat, 3.7e-5 * 45.3, 1e-9));
    CU_ASSERT(k.rms_log < 1e-12);
    /* The knee on a measured point. */
    piecewise(m, t, 11, 2.1e-6, 64, NULL);
    CU_ASSERT_EQUAL_FATAL(mb_probe_knee_fit(m, t, 11, &k, &err), MB_OK);
    CU_ASSERT(mb_test_close(k.m_t, 64, 1e-9));
    /* Linear throughout: knee at or below the smallest M. */
    piecewise(m, t, 11, 1.3e-4, 0.4, NULL);
    CU_ASSERT_EQUAL_FATAL(mb_probe_knee_fit(m, t, 11, &k, &err), MB_OK);
    CU_ASSERT_EQUAL(k.where, MB_PROBE_KNEE_BELOW);
    CU_ASSERT_DOUBLE_EQUAL(k.m_t, 1, 0);
    CU_ASSERT(mb_test_close(k.gamma, 1.3e-4, 1e-9));
    /* Flat throughout: knee at or above the largest M. */
    piecewise(m, t, 11, 1e-6, 3000, NULL);
    CU_ASSERT_EQUAL_FATAL(mb_probe_knee_fit(m, t, 11, &k, &err), MB_OK);
    CU_ASSERT_EQUAL(k.where, MB_PROBE_KNEE_ABOVE);
    CU_ASSERT_DOUBLE_EQUAL(k.m_t, 1024, 0);
    CU_ASSERT(mb_test_close(k.t_flat, 3e-3, 1e-9));
}

static void test_knee_noisy(void)
{
    /* Uneven sizes, a +-4% deterministic wobble: the closed form must match a dense grid search of
     * the same objective (its SSE no larger, its knee within one grid step), and the knee must
     * stay near the truth: with 4% misfit on 12 points the log-knee moves by a few percent, so
     * 15% is a loose but failing-capable bound (a wrong interval would be off by 40% or more). */
    const double m[] = {1, 3, 5, 9, 17, 30, 52, 100, 190, 350, 700, 1300};
    const double w[] = {0.03, -0.04, 0.02, -0.01, 0.04, -0.03, 0.01, -0.02, 0.035, -0.04, 0.0,
                        0.02};
    double t[12];
    piecewise(m, t, 12, 4.4e-5, 71.7, w);
    mb_probe_knee k;
    mb_error err;
    CU_ASSERT_EQUAL_FATAL(mb_probe_knee_fit(m, t, 12, &k, &err), MB_OK);
    CU_ASSERT_EQUAL(k.where, MB_PROBE_KNEE_INSIDE);
    CU_ASSERT(mb_test_close(k.m_t, 71.7, 0.15));
    CU_ASSERT(mb_test_close(k.gamma, 4.4e-5, 0.15));
    double best = INFINITY, best_v = 0, lo = log(m[0]), hi = log(m[11]);
    const int N = 200000;
    for (int i = 0; i <= N; i++) {
        double v = lo + (hi - lo) * i / N, s = grid_sse(m, t, 12, v);
        if (s < best)
            best = s, best_v = v;
    }
    double fit_sse = grid_sse(m, t, 12, log(k.m_t));
    CU_ASSERT(fit_sse <= best * (1 + 1e-12));
    CU_ASSERT(fabs(log(k.m_t) - best_v) <= 2 * (hi - lo) / N);
    CU_ASSERT(mb_test_close(k.rms_log, sqrt(fit_sse / 12), 1e-9));
}

static void test_knee_errors(void)
{
    const double m[] = {1, 2, 4, 8}, t[] = {1, 1, 2, 4};
    mb_probe_knee k;
    mb_error err;
    CU_ASSERT_EQUAL(mb_probe_knee_fit(m, t, 2, &k, &err), MB_ENODATA);
    const double m2[] = {1, 4, 2, 8};
    CU_ASSERT_EQUAL(mb_probe_knee_fit(m2, t, 4, &k, &err), MB_EDOM);
    CU_ASSERT(strstr(err.msg, "increase") != NULL);
    const double m3[] = {1, 2, 2, 8};
    CU_ASSERT_EQUAL(mb_probe_knee_fit(m3, t, 4, &k, &err), MB_EDOM);
    const double m4[] = {0, 2, 4, 8};
    CU_ASSERT_EQUAL(mb_probe_knee_fit(m4, t, 4, &k, &err), MB_EDOM);
    const double t2[] = {1, 0, 2, 4};
    CU_ASSERT_EQUAL(mb_probe_knee_fit(m, t2, 4, &k, &err), MB_EDOM);
    const double t3[] = {1, 1, INFINITY, 4};
    CU_ASSERT_EQUAL(mb_probe_knee_fit(m, t3, 4, &k, &err), MB_EDOM);
}

/* ---- the learner auto-tuner ------------------------------------------------------------------- */

typedef struct curve {
    const double *v; /* throughput with k learners at v[k-1] */
    int n;           /* entries in v */
    int calls;
    int fail_at;     /* learner count whose measurement fails (0: none) */
} curve;

static int curve_fn(void *ctx, int learners, double *tp, mb_error *err)
{
    curve *c = ctx;
    c->calls++;
    if (learners == c->fail_at)
        return mb_error_set(err, MB_EIO, "measurement with %d learners failed", learners);
    *tp = learners <= c->n ? c->v[learners - 1] : c->v[c->n - 1];
    return MB_OK;
}

/* Amdahl-like throughput k / (1 + s (k - 1)): gains 53.8%, 21.9%, 12.3%, 7.9% for s = 0.3. */
static double amdahl_tp(int k, double s) { return 1000.0 * k / (1 + s * (k - 1)); }

static void test_tune(void)
{
    mb_probe_tune o;
    mb_probe_tune_init(&o);
    CU_ASSERT_DOUBLE_EQUAL(o.threshold, 0.10, 0);
    double got[16];
    int n, chosen;
    mb_error err;

    double am[16];
    for (int k = 1; k <= 16; k++)
        am[k - 1] = amdahl_tp(k, 0.3);
    curve c = {am, 16, 0, 0};
    CU_ASSERT_EQUAL_FATAL(mb_probe_tune_learners(curve_fn, &c, &o, got, &n, &chosen, &err), MB_OK);
    CU_ASSERT_EQUAL(chosen, 4); /* 5 adds 7.9% <= 10%: removed */
    CU_ASSERT_EQUAL(n, 5);
    CU_ASSERT_EQUAL(c.calls, 5);
    for (int k = 1; k <= 5; k++)
        CU_ASSERT_DOUBLE_EQUAL(got[k - 1], am[k - 1], 0);
    /* A lower threshold keeps more: at 5% the gains 7.9% (5th) and 5.6% (6th) pay, 4.2% (7th)
     * does not. */
    o.threshold = 0.05;
    c.calls = 0;
    CU_ASSERT_EQUAL(mb_probe_tune_learners(curve_fn, &c, &o, got, &n, &chosen, &err), MB_OK);
    CU_ASSERT_EQUAL(chosen, 6);
    CU_ASSERT_EQUAL(n, 7);
    o.threshold = 0.10;

    /* Linear growth: every learner pays; stops at max_learners. */
    const double lin[] = {100, 200, 300, 400, 500, 600};
    c = (curve){lin, 6, 0, 0};
    o.max_learners = 6;
    CU_ASSERT_EQUAL(mb_probe_tune_learners(curve_fn, &c, &o, got, &n, &chosen, &err), MB_OK);
    CU_ASSERT_EQUAL(chosen, 6);
    CU_ASSERT_EQUAL(n, 6);
    /* Falling at once: one learner. */
    const double fall[] = {100, 90, 80};
    c = (curve){fall, 3, 0, 0};
    CU_ASSERT_EQUAL(mb_probe_tune_learners(curve_fn, &c, &o, got, &n, &chosen, &err), MB_OK);
    CU_ASSERT_EQUAL(chosen, 1);
    CU_ASSERT_EQUAL(n, 2);
    /* A rise of exactly the threshold is not "more than": 100 -> 110 keeps one learner; a rise
     * just above it (110.5) keeps the second. */
    const double edge[] = {100, 110, 200};
    c = (curve){edge, 3, 0, 0};
    CU_ASSERT_EQUAL(mb_probe_tune_learners(curve_fn, &c, &o, got, &n, &chosen, &err), MB_OK);
    CU_ASSERT_EQUAL(chosen, 1);
    const double edge2[] = {100, 110.5, 112};
    c = (curve){edge2, 3, 0, 0};
    CU_ASSERT_EQUAL(mb_probe_tune_learners(curve_fn, &c, &o, got, &n, &chosen, &err), MB_OK);
    CU_ASSERT_EQUAL(chosen, 2);
    CU_ASSERT_EQUAL(n, 3);
    /* max_learners = 1: measured once. */
    o.max_learners = 1;
    c = (curve){lin, 6, 0, 0};
    CU_ASSERT_EQUAL(mb_probe_tune_learners(curve_fn, &c, &o, got, &n, &chosen, &err), MB_OK);
    CU_ASSERT_EQUAL(chosen, 1);
    CU_ASSERT_EQUAL(c.calls, 1);

    /* errors */
    o.max_learners = 6;
    c = (curve){lin, 6, 0, 3};
    CU_ASSERT_EQUAL(mb_probe_tune_learners(curve_fn, &c, &o, got, &n, &chosen, &err), MB_EIO);
    CU_ASSERT_EQUAL(n, 2);
    const double zero[] = {100, 0};
    c = (curve){zero, 2, 0, 0};
    CU_ASSERT_EQUAL(mb_probe_tune_learners(curve_fn, &c, &o, got, &n, &chosen, &err), MB_EDOM);
    CU_ASSERT(strstr(err.msg, "2 learners") != NULL);
    o.max_learners = 0;
    CU_ASSERT_EQUAL(mb_probe_tune_learners(curve_fn, &c, &o, got, &n, &chosen, &err), MB_EINVAL);
    o.max_learners = 4;
    o.threshold = -0.1;
    CU_ASSERT_EQUAL(mb_probe_tune_learners(curve_fn, &c, &o, got, &n, &chosen, &err), MB_EINVAL);
    o.threshold = 0.1;
    CU_ASSERT_EQUAL(mb_probe_tune_learners(NULL, &c, &o, got, &n, &chosen, &err), MB_EINVAL);
}

/* ---- metadata and comm helpers ------------------------------------------------------------------ */

static void test_meta(void)
{
    mb_probe_host h;
    mb_probe_host_read(&h);
    CU_ASSERT(h.threads >= 1);
    CU_ASSERT(h.cores >= 1 && h.cores <= h.threads);
    CU_ASSERT_STRING_EQUAL(h.gsl, GSL_VERSION);
    CU_ASSERT(strstr(h.fftw, "fftw-3") != NULL);
    CU_ASSERT(strstr(h.openblas, "OpenBLAS") != NULL);
    CU_ASSERT(strstr(h.mpi, "Open MPI") != NULL);
    CU_ASSERT(strchr(h.mpi, '\n') == NULL && strchr(h.openblas, '\n') == NULL);

    char dir[128], path[256];
    CU_ASSERT_FATAL(mb_test_tmpdir(dir, sizeof dir) == 0);
    snprintf(path, sizeof path, "%s/meta.csv", dir);
    FILE *f = fopen(path, "w");
    CU_ASSERT_FATAL(f != NULL);
    char *argv[] = {"mbprobe", "comm", "--bytes", "4:64"};
    mb_probe_write_meta(f, "mbprobe comm", 4, argv, &h);
    mb_probe_comm_write_header(f);
    fclose(f);
    mb_table *t = NULL;
    mb_error err;
    CU_ASSERT_EQUAL_FATAL(mb_table_read(path, &t, &err), MB_OK);
    static const char *keys[] = {"tool", "version", "host", "date", "command", "cpu_model",
                                 "cores", "threads", "governor", "mpi", "openblas", "fftw", "gsl",
                                 "clock", "clock_resolution_s"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        CU_ASSERT(mb_table_meta(t, keys[i]) != NULL);
    CU_ASSERT_STRING_EQUAL(mb_table_meta(t, "command"), "mbprobe comm --bytes 4:64");
    CU_ASSERT_STRING_EQUAL(mb_table_meta(t, "clock"), "CLOCK_MONOTONIC");
    long v;
    CU_ASSERT_EQUAL(mb_data_parse_long(mb_table_meta(t, "threads"), 1, 1 << 20, &v), MB_OK);
    CU_ASSERT_EQUAL(v, h.threads);
    static const char *cols[] = {"op", "procs", "bytes", "reps", "t_median_s", "t_min_s",
                                 "t_max_s"};
    for (size_t i = 0; i < 7; i++) /* docs/design.md, "Collective table" */
        CU_ASSERT_STRING_EQUAL(mb_table_col_name(t, i), cols[i]);
    mb_table_free(t);
    mb_test_rmdir(dir);
}

static void test_comm_helpers(void)
{
    const double v[] = {4, 10, 1026, 1e6, 16777216};
    size_t *s = NULL;
    mb_error err;
    CU_ASSERT_EQUAL_FATAL(mb_probe_comm_sizes(v, 5, &s, &err), MB_OK);
    CU_ASSERT_EQUAL(s[0], 4);
    CU_ASSERT_EQUAL(s[1], 8);
    CU_ASSERT_EQUAL(s[2], 1024);
    CU_ASSERT_EQUAL(s[3], 1000000);
    CU_ASSERT_EQUAL(s[4], 16777216);
    free(s);
    const double small[] = {8, 3};
    CU_ASSERT_EQUAL(mb_probe_comm_sizes(small, 2, &s, &err), MB_EINVAL);
    CU_ASSERT(s == NULL);
    CU_ASSERT(strstr(err.msg, "below one float") != NULL);
    /* campaign 17's M1: a fraction of a byte was rounded down without a word */
    const double frac[] = {8, 4.5};
    CU_ASSERT_EQUAL(mb_probe_comm_sizes(frac, 2, &s, &err), MB_EINVAL);
    CU_ASSERT(s == NULL);
    CU_ASSERT_STRING_EQUAL(err.msg, "--bytes: 4.5 is not a whole number of bytes");
    /* campaign 38's F1: 4 and 6 were both timed as 4 bytes, a point twice in the table */
    const double twice[] = {8, 4, 6};
    CU_ASSERT_EQUAL(mb_probe_comm_sizes(twice, 3, &s, &err), MB_EINVAL);
    CU_ASSERT(s == NULL);
    CU_ASSERT_STRING_EQUAL(err.msg, "--bytes: 4 and 6 both round down to 4 bytes (whole floats): "
                                    "one size would be timed twice");

    CU_ASSERT(mb_test_close(mb_probe_bus_factor(MB_PROBE_ALLREDUCE, 2), 1.0, 1e-15));
    CU_ASSERT(mb_test_close(mb_probe_bus_factor(MB_PROBE_ALLREDUCE, 8), 1.75, 1e-15));
    CU_ASSERT(mb_test_close(mb_probe_bus_factor(MB_PROBE_REDUCE_BCAST, 8), 2.0, 0));
    CU_ASSERT(mb_test_close(mb_probe_bus_factor(MB_PROBE_PS, 8), 14.0, 0));
    for (int i = 0; i < MB_PROBE_NOPS; i++) {
        mb_probe_op op;
        CU_ASSERT_EQUAL(mb_probe_op_parse(mb_probe_op_name((mb_probe_op)i), &op), MB_OK);
        CU_ASSERT_EQUAL(op, i);
    }
    mb_probe_op op;
    CU_ASSERT_EQUAL(mb_probe_op_parse("alltoall", &op), MB_EINVAL);

    /* Not under mpirun, nothing here calls MPI_Init: the point's own checks come first. */
    mb_probe_options o;
    mb_probe_options_init(&o);
    mb_probe_comm_row row;
    CU_ASSERT_EQUAL(mb_probe_comm_point(MPI_COMM_NULL, MB_PROBE_ALLREDUCE, 6, &o, &row, &err),
                    MB_EINVAL);
    CU_ASSERT_EQUAL(mb_probe_comm_point(MPI_COMM_NULL, MB_PROBE_NOPS, 8, &o, &row, &err),
                    MB_EINVAL);
}

/* ---- mbprobe end to end ----------------------------------------------------------------------- */

/* Prefix for command lines that start MPI. Under `make check SAN=1`, LeakSanitizer reports Open
 * MPI's one-time start-up allocations, made from plugins it has unloaded by exit, so no
 * suppression by library name can match them (tests/lsan.supp covers the libraries still
 * loaded). Leak detection is turned off for those processes only; ASan's memory-error checks and
 * UBSan stay on, and mbprobe's own allocations are leak-checked by the in-process tests. */
#define MPI_ENV "ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 "

/* Runs a command expected to fail with `status` and one line on stderr containing `want`. */
static void expect_fail(int status, const char *want, const char *cmd)
{
    mb_test_run r;
    CU_ASSERT_FATAL(mb_test_sh(&r, "%s", cmd) == 0);
    CU_ASSERT_EQUAL(r.status, status);
    const size_t lines = status == 2 ? 2 : 1;
    CU_ASSERT_EQUAL(mb_test_lines(r.err), lines);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, want));
    if (r.status != status || !strstr(r.err, want) || mb_test_lines(r.err) != lines)
        fprintf(stderr, "\n  %s -> %d: %s", cmd, r.status, r.err);
    mb_test_run_free(&r);
}

static void test_cli(void)
{
    mb_test_run r;
    CU_ASSERT_FATAL(mb_test_sh(&r, "mbprobe --help") == 0);
    CU_ASSERT_EQUAL(r.status, 0);
    const char *subs[] = {"step", "comm", "conv", "learners"};
    for (int i = 0; i < 4; i++) {
        char line[32];
        snprintf(line, sizeof line, "\n  %s ", subs[i]);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.out, line));
    }
    mb_test_run_free(&r);
    CU_ASSERT_FATAL(mb_test_sh(&r, "mbprobe comm --help") == 0);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "--bytes"));
    mb_test_run_free(&r);

    expect_fail(2, "unknown command 'stpe'", "mbprobe stpe");
    expect_fail(2, "missing command", "mbprobe");
    /* comm without mpirun: Open MPI's singleton init gives one rank. */
    expect_fail(1, "mpirun -np N mbprobe comm", MPI_ENV "mbprobe comm --bytes 4:64");
    expect_fail(1, "--bytes: '0' is not a positive number", "mbprobe comm --bytes 0");
    expect_fail(1, "lo > hi", "mbprobe comm --bytes 64:4");
    expect_fail(1, "below one float", "mbprobe comm --bytes 2");
    expect_fail(1, "cannot write", "mbprobe comm --bytes 4:64 -o /nonexistent-dir/comm.csv");
    expect_fail(1, "--ops: 'alltoall'", "mbprobe comm --ops allreduce,alltoall");
    expect_fail(1, "--budget", "mbprobe comm --budget 0");
    expect_fail(1, "--min-reps 50 exceeds", "mbprobe comm --min-reps 50 --max-reps 10");
    expect_fail(2, "unknown option '--frob'", "mbprobe comm --frob");
    expect_fail(2, "needs a value", "mbprobe comm --bytes");
    expect_fail(2, "unexpected argument", "mbprobe comm extra");
}

static void test_comm_mpirun(void)
{
    char dir[128], path[256];
    CU_ASSERT_FATAL(mb_test_tmpdir(dir, sizeof dir) == 0);
    snprintf(path, sizeof path, "%s/comm.csv", dir);
    mb_test_run r;
    /* A small budget keeps the run to a second or two; the table's shape is what is checked. */
    mb_test_sh_ok(&r, MPI_ENV "mpirun --allow-run-as-root --oversubscribe -np 2 mbprobe comm "
                      "--bytes 4:64K --budget 0.01 --max-reps 200 -o %s", path);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "allreduce")); /* the summary on stdout */
    mb_test_run_free(&r);

    mb_table *t = NULL;
    mb_error err;
    CU_ASSERT_EQUAL_FATAL(mb_table_read(path, &t, &err), MB_OK);
    CU_ASSERT_EQUAL(mb_table_rows(t), 3 * 15); /* 3 ops x sizes 4, 8, ..., 65536 */
    CU_ASSERT_STRING_EQUAL(mb_table_meta(t, "procs"), "2");
    CU_ASSERT_PTR_NOT_NULL(mb_table_meta(t, "cpu_model"));
    size_t c_op, c_procs, c_bytes, c_reps, c_med, c_min, c_max, c_rmin, c_rmax, c_alg, c_bus;
    int ok = mb_table_require_col(t, "op", &c_op, &err) == MB_OK &&
             mb_table_require_col(t, "procs", &c_procs, &err) == MB_OK &&
             mb_table_require_col(t, "bytes", &c_bytes, &err) == MB_OK &&
             mb_table_require_col(t, "reps", &c_reps, &err) == MB_OK &&
             mb_table_require_col(t, "t_median_s", &c_med, &err) == MB_OK &&
             mb_table_require_col(t, "t_min_s", &c_min, &err) == MB_OK &&
             mb_table_require_col(t, "t_max_s", &c_max, &err) == MB_OK &&
             mb_table_require_col(t, "t_rank_min_s", &c_rmin, &err) == MB_OK &&
             mb_table_require_col(t, "t_rank_max_s", &c_rmax, &err) == MB_OK &&
             mb_table_require_col(t, "alg_bw_Bps", &c_alg, &err) == MB_OK &&
             mb_table_require_col(t, "bus_bw_Bps", &c_bus, &err) == MB_OK;
    CU_ASSERT_FATAL(ok);
    static const char *ops[] = {"allreduce", "reduce_bcast", "ps"};
    for (size_t i = 0; i < mb_table_rows(t); i++) {
        double procs, bytes, reps, med, mn, mx, rmin, rmax, alg, bus;
        CU_ASSERT_FATAL(mb_table_double(t, i, c_procs, &procs, &err) == MB_OK &&
                        mb_table_double(t, i, c_bytes, &bytes, &err) == MB_OK &&
                        mb_table_double(t, i, c_reps, &reps, &err) == MB_OK &&
                        mb_table_double(t, i, c_med, &med, &err) == MB_OK &&
                        mb_table_double(t, i, c_min, &mn, &err) == MB_OK &&
                        mb_table_double(t, i, c_max, &mx, &err) == MB_OK &&
                        mb_table_double(t, i, c_rmin, &rmin, &err) == MB_OK &&
                        mb_table_double(t, i, c_rmax, &rmax, &err) == MB_OK &&
                        mb_table_double(t, i, c_alg, &alg, &err) == MB_OK &&
                        mb_table_double(t, i, c_bus, &bus, &err) == MB_OK);
        CU_ASSERT_STRING_EQUAL(mb_table_cell(t, i, c_op), ops[i / 15]);
        CU_ASSERT_EQUAL(procs, 2);
        CU_ASSERT_EQUAL(bytes, ldexp(4, (int)(i % 15)));
        CU_ASSERT(reps >= 1 && reps <= 200);
        CU_ASSERT(mn > 0 && mn <= med && med <= mx);
        CU_ASSERT(rmin > 0 && rmin <= rmax);
        /* printed with 7 significant digits: 1e-6 relative */
        CU_ASSERT(mb_test_close(alg, bytes / med, 1e-6));
        mb_probe_op op = (mb_probe_op)(i / 15);
        CU_ASSERT(mb_test_close(bus, alg * mb_probe_bus_factor(op, 2), 1e-6));
    }
    mb_table_free(t);

    /* Ranks started with other sweeps (campaign 17's F1: they hung in MPI) refuse together
     * before the first collective, one line from rank 0, exit 2; the same sweep spelled two
     * ways is the same sweep. timeout bounds a regression to a failure, not a hang. */
    static const struct {
        const char *a, *b, *needle;
    } mpmd[] = {
        {"--bytes 4 --ops allreduce", "--bytes 4 --ops ps",
         "ranks disagree on --ops: rank 0 has allreduce,"},
        {"--bytes 4,8", "--bytes 4", "ranks disagree on --bytes (the message sizes)"},
        {"--bytes 4 --warmup 2", "--bytes 4 --warmup 3", "ranks disagree on --warmup: rank 0 has 2,"},
        {"--bytes 4 --budget 0.01", "--bytes 4 --budget 0.02",
         "ranks disagree on --budget: rank 0 has 0.01,"},
    };
    for (size_t k = 0; k < sizeof mpmd / sizeof mpmd[0]; k++) {
        CU_ASSERT_FATAL(mb_test_sh(&r, MPI_ENV "timeout -k 1 60 mpirun --allow-run-as-root "
                                   "--oversubscribe -np 1 mbprobe comm %s -o %s : "
                                   "-np 1 mbprobe comm %s -o %s", mpmd[k].a, path,
                                   mpmd[k].b, path) == 0);
        CU_ASSERT_EQUAL(r.status, 2);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.err, mpmd[k].needle));
        const char *first = strstr(r.err, "ranks disagree"); /* said once, by rank 0 */
        CU_ASSERT(first && !strstr(first + 1, "ranks disagree"));
        mb_test_run_free(&r);
    }
    mb_test_sh_ok(&r, MPI_ENV "timeout -k 1 60 mpirun --allow-run-as-root --oversubscribe -np 1 "
                      "mbprobe comm --bytes 4:8 --budget 0.01 -o %s : -np 1 mbprobe comm "
                      "--bytes 4,8 --budget 0.01 -o %s", path, path);
    mb_test_run_free(&r);

    /* Under mpirun, an unwritable output is still one clear failure. */
    CU_ASSERT_FATAL(mb_test_sh(&r, MPI_ENV "mpirun --allow-run-as-root --oversubscribe -np 2 mbprobe comm "
                                   "--bytes 4 -o %s/no/such/dir.csv", dir) == 0);
    CU_ASSERT_NOT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "cannot write"));
    mb_test_run_free(&r);
    mb_test_rmdir(dir);
}

/* ---- the step, conv and learners probes on a tiny net ------------------------------------------ */

/* 1x8x8 inputs: a 3x3 convolution (all four algorithms can do it), a 5x5 one (Winograd cannot),
 * pooling and a classifier of 3 classes. */
static const char tiny_cfg[] = "[net]\nname=tiny\nchannels=1\nheight=8\nwidth=8\n"
                               "[conv]\nname=c3\nfilters=2\nsize=3\npad=1\nactivation=relu\n"
                               "[conv]\nname=c5\nfilters=2\nsize=5\npad=2\nactivation=relu\n"
                               "[maxpool]\nsize=2\n[fc]\nfilters=3\n[softmax]\n";

static void test_step_update(void)
{
    char dir[128], net[256];
    CU_ASSERT_FATAL(mb_test_tmpdir(dir, sizeof dir) == 0);
    mb_test_write(net, sizeof net, dir, "tiny.cfg", tiny_cfg);
    mb_error err = {0};
    for (int learners = 1; learners <= 2; learners++) {
        mb_probe_step_config c = {.net = net, .learners = learners, .threads = 1,
                                  .conv_algo = MB_CONV_AUTO, .seed = 3,
                                  .optim = {.kind = MB_OPTIM_SGD, .lr = 0.1}, .max_batch = 8};
        mb_probe_step *s = NULL;
        CU_ASSERT_EQUAL_FATAL(mb_probe_step_create(&c, &s, &err), MB_OK);
        CU_ASSERT_STRING_EQUAL(mb_probe_step_description(s)->name, "tiny");
        CU_ASSERT_STRING_EQUAL(mb_probe_step_backend(s), "cpu");
        CU_ASSERT(strlen(mb_probe_step_device(s)) > 0);
        for (int i = 0; i < learners; i++) { /* each learner computes on its own context */
            mb_ctx *ci = mb_net_context(mb_probe_step_learner(s, i)->net);
            CU_ASSERT_EQUAL(mb_ctx_backend(ci), MB_BACKEND_CPU);
            CU_ASSERT_STRING_EQUAL(mb_ctx_device_name(ci), mb_probe_step_device(s));
            if (i > 0)
                CU_ASSERT_PTR_NOT_EQUAL(ci, mb_net_context(mb_probe_step_learner(s, 0)->net));
        }
        /* An update is SGD on each copy: x_after = x_before - lr g, with g the gradient the
         * copy's own forward/backward left behind (so the real step ran on every learner). */
        size_t np = mb_net_param_count(mb_probe_step_learner(s, 0)->net);
        float *before = malloc(2 * np * sizeof *before);
        CU_ASSERT_FATAL(before != NULL);
        for (int i = 0; i < learners; i++)
            memcpy(before + i * np, mb_net_params(mb_probe_step_learner(s, i)->net), np * sizeof *before);
        CU_ASSERT_EQUAL(mb_probe_step_update(s, 8, &err), MB_OK);
        for (int i = 0; i < learners; i++) {
            mb_net *n = mb_probe_step_learner(s, i)->net;
            const float *x = mb_net_params(n), *g = mb_net_grads(n);
            double gnorm = 0, worst = 0;
            for (size_t k = 0; k < np; k++) {
                gnorm += (double)g[k] * g[k];
                /* one float subtraction: |error| <= half an ulp of the larger operand */
                worst = fmax(worst, fabs(x[k] - (before[i * np + k] - 0.1f * g[k])) /
                                        (fabs(before[i * np + k]) + 1e-30));
            }
            CU_ASSERT(gnorm > 0);
            CU_ASSERT(worst <= 1.2e-7);
        }
        if (learners == 2) { /* copies shuffled from their own seeds: different gradients */
            CU_ASSERT(memcmp(mb_net_grads(mb_probe_step_learner(s, 0)->net),
                             mb_net_grads(mb_probe_step_learner(s, 1)->net), np * sizeof(float)) != 0);
            CU_ASSERT_EQUAL(mb_probe_step_update(s, 3, &err), MB_EINVAL); /* not a multiple */
            CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "split evenly"));
        }
        CU_ASSERT_EQUAL(mb_probe_step_update(s, 16, &err), MB_EINVAL); /* above max_batch */
        CU_ASSERT_PTR_NULL(mb_probe_step_learner(s, learners));
        /* timed through the harness: every sample is a real update */
        mb_probe_options o;
        mb_probe_options_init(&o);
        o.budget_s = 0.05;
        o.min_block_s = 0;
        mb_probe_stats st;
        CU_ASSERT_EQUAL(mb_probe_step_time(s, 4, &o, &st, &err), MB_OK);
        CU_ASSERT(st.reps >= 1 && st.min > 0 && st.min <= st.median && st.median <= st.max);
        free(before);
        mb_probe_step_free(s);
    }
    /* a non-finite loss (a NaN pixel reaching the classifier: a net with no ReLU before it,
     * which would turn NaN into 0) sends the learner back to its first parameters and the
     * timing goes on, counted; a loss that is non-finite again right after each of
     * MB_PROBE_STEP_QUICK_TIMES restarts in a row is an error, not a timing (however many
     * steps the budget would have timed) */
    char mlp[256];
    mb_test_write(mlp, sizeof mlp, dir, "mlp.cfg", "[net]\nname=mlp\nchannels=1\nheight=8\n"
                  "width=8\n[fc]\nfilters=3\n[softmax]\n");
    float px[4 * 64];
    int py[4] = {0, 1, 2, 0};
    for (int i = 0; i < 4 * 64; i++)
        px[i] = (float)(i % 7) / 7.0f;
    px[5] = NAN;
    mb_dataset nan_data = {.n = 4, .c = 1, .h = 8, .w = 8, .classes = 3, .x = px, .y = py};
    mb_probe_step_config big = {.net = mlp, .data = &nan_data, .learners = 1, .threads = 1,
                                .conv_algo = MB_CONV_AUTO,
                                .optim = {.kind = MB_OPTIM_SGD, .lr = 0.1}, .max_batch = 4};
    mb_probe_step *s = NULL;
    CU_ASSERT_EQUAL_FATAL(mb_probe_step_create(&big, &s, &err), MB_OK);
    mb_learner *nl = mb_probe_step_learner(s, 0);
    const size_t np = mb_net_param_count(nl->net);
    float *first = malloc(np * sizeof *first), *now = malloc(np * sizeof *now);
    CU_ASSERT_PTR_NOT_NULL_FATAL(first);
    CU_ASSERT_PTR_NOT_NULL_FATAL(now);
    mb_net_read_params(nl->net, first);
    CU_ASSERT_EQUAL(mb_probe_step_update(s, 4, &err), MB_OK);
    CU_ASSERT_EQUAL(mb_probe_step_restarts(s), 1);
    mb_net_read_params(nl->net, now);
    CU_ASSERT_EQUAL(memcmp(first, now, np * sizeof *now), 0); /* back where it started */
    int rc = MB_OK;
    for (long k = 1; k <= 100 && rc == MB_OK; k++)
        rc = mb_probe_step_update(s, 4, &err);
    CU_ASSERT_EQUAL(rc, MB_EDOM);
    CU_ASSERT_EQUAL(mb_probe_step_restarts(s), MB_PROBE_STEP_QUICK_TIMES);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "diverged, again right after each restart"));
    free(first), free(now);
    mb_probe_step_free(s);
    /* bad configurations */
    mb_probe_step_config bad = big;
    bad.data = NULL;
    bad.learners = 8; /* more learners than samples */
    CU_ASSERT_EQUAL(mb_probe_step_create(&bad, &s, &err), MB_EINVAL);
    CU_ASSERT_PTR_NULL(s);
    bad.learners = 1;
    bad.net = "no-such-net";
    CU_ASSERT_NOT_EQUAL(mb_probe_step_create(&bad, &s, &err), MB_OK);
    mb_test_rmdir(dir);
}

/* A timed update is the trainer's step: each learner gathers the next slice of its own shuffled
 * permutation of the data set (the cursor moves by its share of the batch and wraps into a new
 * epoch), and steps the configured optimiser (here momentum: the second update is
 * x2 = x1 + mu v1 - lr g2 with v1 = x1 - x0). */
static void test_step_shuffled(void)
{
    char dir[128], net[256];
    CU_ASSERT_FATAL(mb_test_tmpdir(dir, sizeof dir) == 0);
    mb_test_write(net, sizeof net, dir, "tiny.cfg", tiny_cfg);
    enum { N = 37, PER = 64 }; /* 37 samples: not a multiple of the batch, so epochs drop a tail */
    float *px = malloc(N * PER * sizeof *px);
    int py[N];
    CU_ASSERT_FATAL(px != NULL);
    for (int i = 0; i < N; i++) { /* sample i's first pixel tells which sample it is */
        py[i] = i % 3;
        for (int k = 0; k < PER; k++)
            px[i * PER + k] = k == 0 ? (float)i / N : (float)((i * 7 + k * 3) % 11) / 11.0f;
    }
    mb_dataset d = {.n = N, .c = 1, .h = 8, .w = 8, .classes = 3, .x = px, .y = py};
    const double lr = 0.07, mu = 0.83;
    mb_probe_step_config c = {.net = net, .data = &d, .learners = 2, .threads = 1,
                              .conv_algo = MB_CONV_AUTO, .seed = 11,
                              .optim = {.kind = MB_OPTIM_MOMENTUM, .lr = lr, .momentum = mu},
                              .max_batch = 8};
    mb_probe_step *s = NULL;
    mb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(mb_probe_step_create(&c, &s, &err), MB_OK);
    mb_learner *l0 = mb_probe_step_learner(s, 0), *l1 = mb_probe_step_learner(s, 1);
    CU_ASSERT_EQUAL(l0->cur.n, (size_t)N);
    CU_ASSERT_EQUAL(l0->max_batch, 4); /* each learner is built for its share of M */
    /* the learners' permutations are shuffled, and differently (seed + copy index) */
    int identity = 1;
    for (int i = 0; i < N; i++)
        identity &= l0->cur.perm[i] == (uint32_t)i;
    CU_ASSERT(!identity);
    CU_ASSERT(memcmp(l0->cur.perm, l1->cur.perm, N * sizeof *l0->cur.perm) != 0);
    size_t np = mb_net_param_count(l0->net);
    float *x0 = malloc(np * sizeof *x0), *x1 = malloc(np * sizeof *x1);
    CU_ASSERT_FATAL(x0 && x1);
    memcpy(x0, mb_net_params(l0->net), np * sizeof *x0);
    for (int u = 0; u < 2; u++) {
        CU_ASSERT_EQUAL_FATAL(mb_probe_step_update(s, 8, &err), MB_OK);
        for (int k = 0; k < 2; k++) { /* each gathered the next 4 samples of its permutation */
            mb_learner *l = k ? l1 : l0;
            CU_ASSERT_EQUAL(l->batch, 4);
            CU_ASSERT_EQUAL(l->cur.pos, (size_t)(4 * (u + 1)));
            for (int b = 0; b < 4; b++) {
                uint32_t want = l->cur.perm[4 * u + b];
                CU_ASSERT_EQUAL(memcmp(l->xb + b * PER, px + want * PER, PER * sizeof *px), 0);
                CU_ASSERT_EQUAL(l->yb[b], py[want]);
            }
        }
        if (u == 0)
            memcpy(x1, mb_net_params(l0->net), np * sizeof *x1);
    }
    /* momentum, not SGD: x2 = x1 + mu (x1 - x0) - lr g2. x1 - x0 is v1 up to the rounding of
     * x0 + v1 (half an ulp of x1), so allow a few ulps of the operands. */
    const float *x2 = mb_net_params(l0->net), *g2 = mb_net_grads(l0->net);
    double worst = 0, moved = 0;
    for (size_t k = 0; k < np; k++) {
        double want = x1[k] + mu * ((double)x1[k] - x0[k]) - lr * g2[k];
        worst = fmax(worst, fabs(x2[k] - want) / (fabs(x0[k]) + fabs(x1[k]) + 1e-30));
        moved = fmax(moved, fabs(mu * ((double)x1[k] - x0[k])));
    }
    CU_ASSERT(moved > 0);
    CU_ASSERT(worst <= 4e-7);
    /* a smaller batch steps on from where the cursor is; past the end, a new epoch */
    CU_ASSERT_EQUAL(mb_probe_step_update(s, 2, &err), MB_OK);
    CU_ASSERT_EQUAL(l0->batch, 1);
    CU_ASSERT_EQUAL(l0->cur.pos, (size_t)9);
    for (int u = 0; u < 7; u++) /* 9 + 7 x 4 = 37: the first epoch is used up exactly */
        CU_ASSERT_EQUAL(mb_probe_step_update(s, 8, &err), MB_OK);
    CU_ASSERT_EQUAL(l0->cur.epoch, 0);
    CU_ASSERT_EQUAL(mb_probe_step_update(s, 8, &err), MB_OK);
    CU_ASSERT_EQUAL(l0->cur.epoch, 1);
    CU_ASSERT_EQUAL(l0->cur.pos, (size_t)4);
    free(x0);
    free(x1);
    mb_probe_step_free(s);
    free(px);
    mb_test_rmdir(dir);
}

/* The device's threads are shared by the learners' contexts: 5 threads, 2 learners: 2 each. */
static void test_step_threads(void)
{
    char dir[128], net[256];
    CU_ASSERT_FATAL(mb_test_tmpdir(dir, sizeof dir) == 0);
    mb_test_write(net, sizeof net, dir, "tiny.cfg", tiny_cfg);
    mb_error err = {0};
    const int threads[] = {5, 1}, learners[] = {2, 3}, want[] = {2, 1};
    for (int k = 0; k < 2; k++) {
        mb_probe_step_config c = {.net = net, .learners = learners[k], .threads = threads[k],
                                  .conv_algo = MB_CONV_AUTO,
                                  .optim = {.kind = MB_OPTIM_SGD, .lr = 0.1}, .max_batch = 6};
        mb_probe_step *s = NULL;
        CU_ASSERT_EQUAL_FATAL(mb_probe_step_create(&c, &s, &err), MB_OK);
        for (int i = 0; i < learners[k]; i++)
            CU_ASSERT_EQUAL(mb_ctx_threads(mb_net_context(mb_probe_step_learner(s, i)->net)),
                            want[k]);
        CU_ASSERT_EQUAL(mb_probe_step_update(s, 6, &err), MB_OK); /* all run on the pool */
        for (int i = 0; i < learners[k]; i++)
            CU_ASSERT_EQUAL(mb_probe_step_learner(s, i)->cur.pos, (size_t)(6 / learners[k]));
        mb_probe_step_free(s);
    }
    mb_test_rmdir(dir);
}

typedef struct groups_seen {
    int groups, rows, skipped_first;
    size_t n_skipped[4];
} groups_seen;

static void count_group(void *arg, const mb_probe_step_row *rows, size_t n, const int *skipped,
                        size_t n_skipped)
{
    groups_seen *g = arg;
    if (g->groups < 4)
        g->n_skipped[g->groups] = n_skipped;
    if (n_skipped)
        g->skipped_first = skipped[0];
    g->groups++;
    g->rows += (int)n;
    (void)rows;
}

/* mbprobe step's sweep as a library call: groups, skipped sizes, the refusal of a learner count
 * that divides no batch size. */
static void test_step_run(void)
{
    char dir[128], net[256];
    CU_ASSERT_FATAL(mb_test_tmpdir(dir, sizeof dir) == 0);
    mb_test_write(net, sizeof net, dir, "tiny.cfg", tiny_cfg);
    mb_error err = {0};
    mb_probe_options o;
    mb_probe_options_init(&o);
    o.budget_s = 0.01;
    o.min_reps = 2;
    const int batch[] = {1, 2, 4}, threads[] = {1}, learners[] = {1, 2};
    groups_seen g = {0};
    mb_probe_step_plan p = {.base = {.net = net, .conv_algo = MB_CONV_AUTO,
                                     .optim = {.kind = MB_OPTIM_SGD, .lr = 0.01}},
                            .net_name = "tiny", .batch = batch, .n_batch = 3,
                            .threads = threads, .n_threads = 1, .learners = learners,
                            .n_learners = 2, .rounds = 2, .o = &o, .group_done = count_group,
                            .arg = &g};
    mb_probe_step_row *rows = NULL;
    size_t n = 0;
    CU_ASSERT_EQUAL_FATAL(mb_probe_step_run(&p, &rows, &n, &err), MB_OK);
    CU_ASSERT_EQUAL(n, 3 + 2);
    CU_ASSERT_EQUAL(g.groups, 2);
    CU_ASSERT_EQUAL(g.rows, 5);
    CU_ASSERT_EQUAL(g.n_skipped[0], 0);
    CU_ASSERT_EQUAL(g.n_skipped[1], 1);
    CU_ASSERT_EQUAL(g.skipped_first, 1); /* 1 is not a multiple of 2 learners */
    const int want_b[] = {1, 2, 4, 2, 4}, want_l[] = {1, 1, 1, 2, 2};
    for (size_t i = 0; i < n && i < 5; i++) {
        CU_ASSERT_EQUAL(rows[i].batch, want_b[i]);
        CU_ASSERT_EQUAL(rows[i].learners, want_l[i]);
        CU_ASSERT_STRING_EQUAL(rows[i].backend, "cpu");
        CU_ASSERT_STRING_EQUAL(rows[i].net, "tiny");
        CU_ASSERT(strlen(rows[i].device) > 0);
        CU_ASSERT(rows[i].st.median > 0 && isfinite(rows[i].st.drift)); /* two passes */
    }
    free(rows);
    /* 3 learners divide none of 1, 2, 4: refused (an empty table is no measurement) */
    const int three[] = {3};
    p.learners = three;
    p.n_learners = 1;
    CU_ASSERT_EQUAL(mb_probe_step_run(&p, &rows, &n, &err), MB_EINVAL);
    CU_ASSERT_PTR_NULL(rows);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--learners 3"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--batch 1,2,4"));
    mb_test_rmdir(dir);
}

static int rows_seen;
static void count_row(void *arg, const mb_probe_conv_row *r)
{
    (void)arg;
    (void)r;
    rows_seen++;
}

/* mbprobe conv's sweep as a library call on a CPU context: every algorithm of each pass's list,
 * ordered by layer, pass, algorithm, batch; the cache keyed by backend and device. */
static void test_conv_run(void)
{
    char dir[128], net[256], cache_path[256];
    CU_ASSERT_FATAL(mb_test_tmpdir(dir, sizeof dir) == 0);
    mb_test_write(net, sizeof net, dir, "tiny.cfg", tiny_cfg);
    snprintf(cache_path, sizeof cache_path, "%s/cache.csv", dir);
    mb_error err = {0};
    mb_ctx_options co;
    mb_ctx_options_init(&co);
    mb_ctx *ctx = NULL;
    mb_net_desc *desc = NULL;
    mb_probe_cache *cache = NULL;
    CU_ASSERT_EQUAL_FATAL(mb_ctx_create(&co, &ctx, &err), MB_OK);
    CU_ASSERT_EQUAL_FATAL(mb_net_desc_read(net, &desc, &err), MB_OK);
    CU_ASSERT_EQUAL_FATAL(mb_probe_cache_open(cache_path, &cache, &err), MB_OK);
    mb_probe_options o;
    mb_probe_options_init(&o);
    o.budget_s = 0.005;
    o.min_reps = 2;
    const int batch[] = {1, 3};
    mb_probe_conv_plan p = {.ctx = ctx, .desc = desc, .batch = batch, .n_batch = 2, .o = &o,
                            .cache = cache, .hostname = "h", .threads = 1,
                            .row_done = count_row};
    int n_algos = mb_ctx_conv_algo_count(ctx, MB_PASS_FORWARD);
    for (int run = 0; run < 2; run++) {
        mb_probe_conv_row *rows = NULL;
        size_t n = 0, measured = 99;
        rows_seen = 0;
        CU_ASSERT_EQUAL_FATAL(mb_probe_conv_run(&p, &rows, &n, &measured, &err), MB_OK);
        CU_ASSERT_EQUAL(n, (size_t)(2 * 3 * n_algos * 2));
        CU_ASSERT_EQUAL(rows_seen, (int)n);
        size_t unsupported = 0;
        for (size_t i = 0; i < n; i++) {
            const mb_probe_conv_row *r = &rows[i];
            /* order: layer (c3 then c5), pass, algorithm index, batch */
            size_t k = i;
            CU_ASSERT_EQUAL(r->shape.batch, batch[k % 2]);
            k /= 2;
            CU_ASSERT_EQUAL(r->algo, (int)(k % (size_t)n_algos));
            k /= (size_t)n_algos;
            CU_ASSERT_EQUAL((int)r->pass, (int)(k % 3));
            CU_ASSERT_STRING_EQUAL(r->layer, k / 3 ? "c5" : "c3");
            CU_ASSERT_STRING_EQUAL(r->algo_name, mb_ctx_conv_algo_name(ctx, r->pass, r->algo));
            CU_ASSERT_STRING_EQUAL(r->backend, "cpu");
            CU_ASSERT_STRING_EQUAL(r->device, mb_ctx_device_name(ctx));
            if (!mb_ctx_conv_supported(ctx, r->pass, r->algo, &r->shape, NULL, 0)) {
                unsupported++;
                CU_ASSERT_EQUAL(r->status, MB_PROBE_CONV_UNSUPPORTED);
                CU_ASSERT(strlen(r->why) > 0);
                continue;
            }
            CU_ASSERT_EQUAL(r->status, run ? MB_PROBE_CONV_CACHED : MB_PROBE_CONV_MEASURED);
            CU_ASSERT(r->st.median > 0);
            CU_ASSERT_EQUAL(r->workspace_bytes,
                            mb_ctx_conv_workspace(ctx, r->pass, r->algo, &r->shape));
        }
        CU_ASSERT_EQUAL(unsupported, 3 * 2); /* winograd on c5, each pass and batch */
        CU_ASSERT_EQUAL(measured, run ? 0 : n - unsupported);
        free(rows);
    }
    /* one algorithm by name: its rows only */
    const char *gemm[] = {"gemm"};
    p.algos = gemm;
    p.n_algos = 1;
    p.cache = NULL;
    mb_probe_conv_row *rows = NULL;
    size_t n = 0;
    CU_ASSERT_EQUAL_FATAL(mb_probe_conv_run(&p, &rows, &n, NULL, &err), MB_OK);
    CU_ASSERT_EQUAL(n, 2 * 3 * 2);
    for (size_t i = 0; i < n; i++)
        CU_ASSERT_STRING_EQUAL(rows[i].algo_name, "gemm");
    free(rows);
    /* the key names the backend and the device: another device's point is not this one's */
    char k1[512], k2[512];
    mb_conv_shape s = {2, 1, 8, 8, 2, 3, 1, 1};
    mb_probe_conv_key(k1, sizeof k1, "h", "cpu", "dev, one", 1, &s, "gemm", MB_PASS_FORWARD);
    mb_probe_conv_key(k2, sizeof k2, "h", "cuda", "dev, one", 1, &s, "gemm", MB_PASS_FORWARD);
    CU_ASSERT_STRING_NOT_EQUAL(k1, k2);
    CU_ASSERT_PTR_NOT_NULL(strstr(k1, "|cpu|dev; one|"));
    CU_ASSERT_PTR_NULL(strchr(k1, ','));
    /* and the kernels: a point timed by other code is not this build's */
    char kid[32];
    snprintf(kid, sizeof kid, "|k%s|", mb_probe_kernels_id());
    CU_ASSERT_EQUAL(strlen(mb_probe_kernels_id()), 12);
    CU_ASSERT_PTR_NOT_NULL(strstr(k1, kid));
    mb_probe_cache_free(cache);
    mb_net_desc_free(desc);
    mb_ctx_free(ctx);
    mb_test_rmdir(dir);
}

/* A workspace that cannot be allocated is a row 'out of memory', not an error: in a child
 * whose address space is capped 64 MiB above what it uses, a layer whose GEMM column buffer
 * needs ~460 MB (64 channels, 21x21 kernel, one 64x64 image; tensors ~1 MB). Skipped under
 * AddressSanitizer, whose shadow memory cannot live under such a cap. */
static void test_conv_out_of_memory(void)
{
#if defined(__SANITIZE_ADDRESS__)
    fprintf(stderr, "\n  skipped: an address-space cap does not work under AddressSanitizer");
    return;
#else
    static const char big_cfg[] = "[net]\nname=big\ngraph=none\nchannels=64\nheight=64\n"
                                  "width=64\n[conv]\nname=wide\nfilters=1\nsize=21\npad=10\n";
    char dir[128], net[256];
    CU_ASSERT_FATAL(mb_test_tmpdir(dir, sizeof dir) == 0);
    mb_test_write(net, sizeof net, dir, "big.cfg", big_cfg);
    fflush(NULL);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        mb_error err = {0};
        mb_ctx_options co;
        mb_ctx_options_init(&co);
        mb_ctx *ctx = NULL;
        mb_net_desc *desc = NULL;
        if (mb_ctx_create(&co, &ctx, &err) != MB_OK || mb_net_desc_read(net, &desc, &err) != MB_OK)
            _exit(10);
        long pages = 0;
        FILE *f = fopen("/proc/self/statm", "r");
        if (!f || fscanf(f, "%ld", &pages) != 1)
            _exit(11);
        fclose(f);
        rlim_t cap = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)64 << 20);
        struct rlimit rl = {cap, cap};
        if (setrlimit(RLIMIT_AS, &rl) != 0)
            _exit(12);
        mb_probe_options o;
        mb_probe_options_init(&o);
        o.budget_s = 0.01;
        const int batch[] = {1};
        const char *gemm[] = {"gemm"};
        mb_probe_conv_plan p = {.ctx = ctx, .desc = desc, .batch = batch, .n_batch = 1,
                                .algos = gemm, .n_algos = 1, .o = &o, .hostname = "h",
                                .threads = 1};
        mb_probe_conv_row *rows = NULL;
        size_t n = 0, measured = 0;
        if (mb_probe_conv_run(&p, &rows, &n, &measured, &err) != MB_OK)
            _exit(13);
        if (n != 3 || measured != 0)
            _exit(14);
        for (size_t i = 0; i < n; i++)
            if (rows[i].status != MB_PROBE_CONV_NOMEM || rows[i].workspace_bytes < (300u << 20) ||
                !strstr(rows[i].why, "could not be allocated"))
                _exit(15);
        FILE *o2 = fopen("/dev/null", "w"); /* the row is written with the workspace, no times */
        mb_probe_conv_write_row(o2, &rows[0]);
        fclose(o2);
        _exit(0);
    }
    int st = 0;
    CU_ASSERT_FATAL(waitpid(pid, &st, 0) == pid);
    CU_ASSERT(WIFEXITED(st));
    CU_ASSERT_EQUAL(WEXITSTATUS(st), 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fprintf(stderr, "\n  out-of-memory child: status %d", st);
    mb_test_rmdir(dir);
#endif
}

/* The CPU context's device name as the tables write it (commas as ';'). */
static void cpu_device(char *buf, size_t n)
{
    mb_ctx_options co;
    mb_ctx_options_init(&co);
    mb_ctx *ctx = NULL;
    mb_error err = {0};
    CU_ASSERT_FATAL(mb_ctx_create(&co, &ctx, &err) == MB_OK);
    snprintf(buf, n, "%s", mb_ctx_device_name(ctx));
    for (char *p = buf; *p; p++)
        *p = *p == ',' ? ';' : *p;
    mb_ctx_free(ctx);
}

static void test_step_cli(void)
{
    char dir[128], net[256], path[256], device[256];
    cpu_device(device, sizeof device);
    CU_ASSERT_FATAL(mb_test_tmpdir(dir, sizeof dir) == 0);
    mb_test_write(net, sizeof net, dir, "tiny.cfg", tiny_cfg);
    snprintf(path, sizeof path, "%s/step.csv", dir);
    mb_test_run r;
    CU_ASSERT_FATAL(mb_test_sh(&r, "mbprobe step --net %s --batch 1:8 --learners 1,2 --threads 1 "
                                   "--budget 0.03 -o %s", net, path) == 0);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "knee: learners=1 threads=1: M_T = "));
    /* 2 learners on --threads 1 run one thread each: the rows say the 2 that ran (campaign
     * 21's N17: they said 1), with a note */
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "knee: learners=2 threads=2: M_T = "));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "(--threads 1 with 2 learners: 1 thread each, at least "
                                         "one; the rows say threads=2)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "batch 1 skipped with 2 learners"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "harness overhead"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "steadiness: the 3 passes ")); /* --rounds 3 default */
    mb_test_run_free(&r);

    mb_table *t = NULL;
    mb_error err;
    CU_ASSERT_EQUAL_FATAL(mb_table_read(path, &t, &err), MB_OK);
    CU_ASSERT_EQUAL(mb_table_rows(t), 4 + 3); /* 1 learner: 1,2,4,8; 2 learners: 2,4,8 */
    CU_ASSERT_STRING_EQUAL(mb_table_meta(t, "probe"), "step");
    CU_ASSERT_STRING_EQUAL(mb_table_meta(t, "net"), "tiny");
    static const char *const cols[] = {"backend", "net", "batch", "learners", "threads", "reps",
                                       "t_median_s", "t_min_s", "t_p25_s", "t_p75_s", "t_max_s",
                                       "samples_per_s"};
    size_t col[12];
    for (int i = 0; i < 12; i++) /* docs/design.md, "Step table", in order */
        CU_ASSERT_FATAL(mb_table_require_col(t, cols[i], &col[i], &err) == MB_OK &&
                        col[i] == (size_t)i);
    const double want_batch[] = {1, 2, 4, 8, 2, 4, 8}, want_l[] = {1, 1, 1, 1, 2, 2, 2};
    for (size_t i = 0; i < mb_table_rows(t); i++) {
        double v[12];
        for (int k = 2; k < 12; k++)
            CU_ASSERT_FATAL(mb_table_double(t, i, col[k], &v[k], &err) == MB_OK);
        CU_ASSERT_STRING_EQUAL(mb_table_cell(t, i, col[0]), "cpu");
        CU_ASSERT_STRING_EQUAL(mb_table_cell(t, i, col[1]), "tiny");
        CU_ASSERT_EQUAL(v[2], want_batch[i]);
        CU_ASSERT_EQUAL(v[3], want_l[i]);
        CU_ASSERT_EQUAL(v[4], want_l[i]); /* the threads that ran: one a learner here */
        CU_ASSERT(v[5] >= 1);
        CU_ASSERT(v[7] > 0 && v[7] <= v[8] && v[8] <= v[6] && v[6] <= v[9] && v[9] <= v[10]);
        CU_ASSERT(mb_test_close(v[11], v[2] / v[6], 1e-5)); /* 6 significant digits each */
        double drift; /* three passes per point: a finite spread between their medians */
        CU_ASSERT(mb_table_double(t, i, (size_t)mb_table_col(t, "drift"), &drift, &err) ==
                      MB_OK && drift >= 0);
        /* the device's name, as its context gives it */
        CU_ASSERT_STRING_EQUAL(mb_table_cell(t, i, (size_t)mb_table_col(t, "device")), device);
    }
    mb_table_free(t);

    /* one pass per point (--rounds 1): no drift, an empty cell rather than "nan" */
    char one[256];
    snprintf(one, sizeof one, "%s/one.csv", dir);
    CU_ASSERT_FATAL(mb_test_sh(&r, "mbprobe step --net %s --batch 1,2,4 --threads 1 --rounds 1 "
                                   "--budget 0.02 -o %s", net, one) == 0);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "steadiness: not measured"));
    mb_test_run_free(&r);
    CU_ASSERT_EQUAL_FATAL(mb_table_read(one, &t, &err), MB_OK);
    CU_ASSERT_EQUAL(mb_table_rows(t), 3);
    for (size_t i = 0; i < mb_table_rows(t); i++)
        CU_ASSERT_STRING_EQUAL(mb_table_cell(t, i, (size_t)mb_table_col(t, "drift")), "");
    mb_table_free(t);
    CU_ASSERT_FATAL(mb_test_sh(&r, "mbfit tupdate %s --json -o %s/tfit1.json", one, dir) == 0);
    CU_ASSERT_EQUAL(r.status, 0); /* the empty drift cells do not trouble the fit */
    if (r.status != 0)
        fprintf(stderr, "\n  mbfit tupdate (rounds 1) -> %d: %s", r.status, r.err);
    mb_test_run_free(&r);

    /* the table feeds mbfit tupdate, per learner count */
    mb_test_sh_ok(&r, "mbfit tupdate %s --json -o %s/tfit.json", path, dir);
    mb_test_run_free(&r);

    /* the Crossbow tuner on the same step */
    snprintf(path, sizeof path, "%s/learners.csv", dir);
    CU_ASSERT_FATAL(mb_test_sh(&r, "mbprobe learners --net %s --batch 4 --max-learners 3 "
                                   "--threads 1 --budget 0.03 -o %s", net, path) == 0);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT(strncmp(r.out, "learners=", 9) == 0);
    int chosen = atoi(r.out + 9);
    CU_ASSERT(chosen >= 1 && chosen <= 3);
    mb_test_run_free(&r);
    CU_ASSERT_EQUAL_FATAL(mb_table_read(path, &t, &err), MB_OK);
    CU_ASSERT(mb_table_rows(t) >= (size_t)chosen && mb_table_rows(t) <= 3);
    CU_ASSERT_EQUAL(atoi(mb_table_meta(t, "chosen")), chosen);
    mb_table_free(t);
    mb_test_rmdir(dir);
}

static void test_conv_cli(void)
{
    char dir[128], net[256], path[256], device[256];
    cpu_device(device, sizeof device);
    CU_ASSERT_FATAL(mb_test_tmpdir(dir, sizeof dir) == 0);
    mb_test_write(net, sizeof net, dir, "tiny.cfg", tiny_cfg);
    snprintf(path, sizeof path, "%s/conv.csv", dir);
    const char *status_want[] = {"measured", "cached", "measured"};
    for (int run = 0; run < 3; run++) {
        mb_test_run r;
        char cache[300]; /* --no-cache and --cache contradict each other: one is given */
        snprintf(cache, sizeof cache, run < 2 ? "--cache %s/cache/conv.csv" : "--no-cache", dir);
        CU_ASSERT_FATAL(mb_test_sh(&r, "mbprobe conv --net %s --batch 2,4 --budget 0.02 %s -o %s",
                                   net, cache, path) == 0);
        CU_ASSERT_EQUAL(r.status, 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "c5: winograd"));
        mb_test_run_free(&r);
        mb_table *t = NULL;
        mb_error err;
        CU_ASSERT_EQUAL_FATAL(mb_table_read(path, &t, &err), MB_OK);
        /* 2 layers x 4 algorithms x 3 passes x 2 batches, unsupported ones listed too */
        CU_ASSERT_EQUAL(mb_table_rows(t), 2 * 4 * 3 * 2);
        size_t cl, ca, cp, cb, ct, cw, cs, ck;
        CU_ASSERT_FATAL(mb_table_require_col(t, "layer", &cl, &err) == MB_OK &&
                        mb_table_require_col(t, "algo", &ca, &err) == MB_OK &&
                        mb_table_require_col(t, "pass", &cp, &err) == MB_OK &&
                        mb_table_require_col(t, "batch", &cb, &err) == MB_OK &&
                        mb_table_require_col(t, "t_median_s", &ct, &err) == MB_OK &&
                        mb_table_require_col(t, "workspace_bytes", &cw, &err) == MB_OK &&
                        mb_table_require_col(t, "k", &ck, &err) == MB_OK &&
                        mb_table_require_col(t, "status", &cs, &err) == MB_OK);
        size_t unsupported = 0, cbk, cdv;
        CU_ASSERT_FATAL(mb_table_require_col(t, "backend", &cbk, &err) == MB_OK &&
                        mb_table_require_col(t, "device", &cdv, &err) == MB_OK);
        for (size_t i = 0; i < mb_table_rows(t); i++) {
            const char *st = mb_table_cell(t, i, cs);
            CU_ASSERT_STRING_EQUAL(mb_table_cell(t, i, cbk), "cpu");
            CU_ASSERT_STRING_EQUAL(mb_table_cell(t, i, cdv), device);
            int wino5 = strcmp(mb_table_cell(t, i, ca), "winograd") == 0 &&
                        strcmp(mb_table_cell(t, i, cl), "c5") == 0;
            if (wino5) {
                unsupported++;
                CU_ASSERT_STRING_EQUAL(st, "unsupported");
                CU_ASSERT_STRING_EQUAL(mb_table_cell(t, i, ct), "");
                continue;
            }
            CU_ASSERT_STRING_EQUAL(st, status_want[run]);
            double b, tm, ws, k;
            CU_ASSERT_FATAL(mb_table_double(t, i, cb, &b, &err) == MB_OK &&
                            mb_table_double(t, i, ct, &tm, &err) == MB_OK &&
                            mb_table_double(t, i, cw, &ws, &err) == MB_OK &&
                            mb_table_double(t, i, ck, &k, &err) == MB_OK);
            CU_ASSERT(tm > 0);
            mb_conv_algo a;
            CU_ASSERT_FATAL(mb_conv_algo_parse(mb_table_cell(t, i, ca), &a) == MB_OK);
            mb_conv_pass p = strcmp(mb_table_cell(t, i, cp), "forward") == 0 ? MB_PASS_FORWARD
                           : strcmp(mb_table_cell(t, i, cp), "backward_data") == 0
                               ? MB_PASS_BACKWARD_DATA : MB_PASS_BACKWARD_FILTER;
            CU_ASSERT_STRING_EQUAL(mb_table_cell(t, i, cp), mb_conv_pass_name(p));
            mb_conv_shape s = {(int)b, 1, 8, 8, 2, (int)k, 1, (int)k / 2};
            if (k == 5)
                s.in_c = 2;
            CU_ASSERT_EQUAL(ws, (double)mb_conv_workspace(a, p, &s));
        }
        CU_ASSERT_EQUAL(unsupported, 3 * 2);
        mb_table_free(t);
    }
    /* mbopt conv reads the table (backend and status columns included) and picks for both
     * layers among the usable rows */
    mb_test_run r;
    mb_test_sh_ok(&r, "mbopt conv --net %s --probe %s --mem 1G --batch 2,4",
                  net, path);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "c3"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "c5"));
    mb_test_run_free(&r);
    mb_test_rmdir(dir);
}

static void test_probe_bad_input(void)
{
    char dir[128], net[256], cmd[1024];
    CU_ASSERT_FATAL(mb_test_tmpdir(dir, sizeof dir) == 0);
    mb_test_write(net, sizeof net, dir, "tiny.cfg", tiny_cfg);
    const char *subs[] = {"step", "conv", "learners"};
    for (int i = 0; i < 3; i++) {
        snprintf(cmd, sizeof cmd, "mbprobe %s --net no-such-net", subs[i]);
        expect_fail(1, "no-such-net", cmd);
        snprintf(cmd, sizeof cmd, "mbprobe %s --net %s --batch 0", subs[i], net);
        expect_fail(1, i == 2 ? "--batch: must be a whole number in [1, 1048576], got '0'"
                              : "--batch: '0'", cmd);
        snprintf(cmd, sizeof cmd, "mbprobe %s --frob", subs[i]);
        expect_fail(2, "unknown option '--frob'", cmd);
        snprintf(cmd, sizeof cmd, "mbprobe %s --net %s --budget -1", subs[i], net);
        expect_fail(1, "--budget", cmd);
        snprintf(cmd, sizeof cmd, "mbprobe %s --help", subs[i]);
        mb_test_run r;
        CU_ASSERT_FATAL(mb_test_sh(&r, "%s", cmd) == 0);
        CU_ASSERT_EQUAL(r.status, 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "--net NAME|FILE"));
        mb_test_run_free(&r);
    }
    for (int i = 0; i < 2; i++) {
        snprintf(cmd, sizeof cmd, "mbprobe %s --net %s --batch 64:4", subs[i], net);
        expect_fail(1, "lo > hi", cmd);
        snprintf(cmd, sizeof cmd, "mbprobe %s --net %s --batch 2 -o /nonexistent-dir/x.csv",
                 subs[i], net);
        expect_fail(1, "cannot write", cmd);
    }
    /* a learner count that divides no batch size: refused, naming both flags (it used to write
     * an empty table and exit 0) */
    snprintf(cmd, sizeof cmd, "mbprobe step --net %s --learners 3 --batch 1", net);
    expect_fail(2, "--learners 3: no size of --batch 1 is a multiple of 3", cmd);
    snprintf(cmd, sizeof cmd, "mbprobe step --net %s --learners 2,3 --batch 2,4", net);
    expect_fail(2, "--learners 3", cmd);
    /* a backend that cannot run here: one line, exit 1, before anything is loaded or timed */
    char why[160];
    if (!mb_train_backend_usable(MB_BACKEND_CUDA, why, sizeof why)) {
        for (int i = 0; i < 3; i++) {
            char want[256];
            snprintf(want, sizeof want, "mbprobe %s: backend cuda: %s", subs[i], why);
            snprintf(cmd, sizeof cmd, "mbprobe %s --net %s --batch 2 --backend cuda --device 1",
                     subs[i], net);
            expect_fail(1, want, cmd);
        }
    } else {
        fprintf(stderr, "\n  (CUDA is usable here: its refusal is not tested)");
    }
    for (int i = 0; i < 3; i++) {
        snprintf(cmd, sizeof cmd, "mbprobe %s --net %s --backend tpu", subs[i], net);
        expect_fail(1, "--backend: 'tpu' is not one of cpu, cuda", cmd);
        snprintf(cmd, sizeof cmd, "mbprobe %s --net %s --device -1", subs[i], net);
        expect_fail(1, "--device: '-1'", cmd);
    }
    snprintf(cmd, sizeof cmd, "mbprobe step --net %s --batch 1.5", net);
    expect_fail(1, "--batch: '1.5' is not a whole number", cmd);
    snprintf(cmd, sizeof cmd, "mbprobe step --net %s --learners 0", net);
    expect_fail(1, "--learners", cmd);
    snprintf(cmd, sizeof cmd, "mbprobe step --net %s --algo fast", net);
    expect_fail(1, "--algo: 'fast'", cmd);
    snprintf(cmd, sizeof cmd, "mbprobe step --net %s --algo gemm", net); /* mbtrain's spelling */
    expect_fail(1, "--conv-algo gemm", cmd);
    snprintf(cmd, sizeof cmd, "mbprobe learners --net %s --conv-algo fast", net);
    expect_fail(1, "--conv-algo: 'fast'", cmd);
    /* the data's samples must fit the net: synthetic data are 28x28 by default */
    snprintf(cmd, sizeof cmd, "mbprobe step --net %s --batch 4 --data synthetic:n=64,test=8",
             net);
    expect_fail(1, "do not fit net 'tiny'", cmd);
    snprintf(cmd, sizeof cmd, "mbprobe conv --net %s --algos gemm,fast", net);
    expect_fail(1, "--algos: 'fast' is not one of the cpu backend's algorithms (gemm, direct, "
                   "fft, winograd)", cmd);
    char bad[256];
    mb_test_write(bad, sizeof bad, dir, "cache.csv", "key,reps\nx,1\n");
    snprintf(cmd, sizeof cmd, "mbprobe conv --net %s --batch 2 --cache %s", net, bad);
    expect_fail(1, "cache.csv", cmd);
    /* a net without convolutions has nothing for conv to time */
    mb_test_write(bad, sizeof bad, dir, "mlp.cfg",
                  "[net]\nname=mlp\nchannels=1\nheight=4\nwidth=4\n[fc]\nfilters=3\n[softmax]\n");
    snprintf(cmd, sizeof cmd, "mbprobe conv --net %s --batch 2", bad);
    expect_fail(1, "no convolution layer", cmd);
    mb_test_rmdir(dir);
}

/* Issue #25: what a convolution point costs at least (its flops at a peak no device reaches),
 * and the shapes the kernels' int arithmetic cannot count, refused before any is sized. */
static void test_conv_guards(void)
{
    mb_conv_shape lenet = {64, 6, 14, 14, 16, 5, 1, 0}; /* conv2 at M = 64: 2.4e8 flops */
    double t = mb_probe_conv_min_s(&lenet, "cpu", 1);
    CU_ASSERT_TRUE(mb_test_close(t, 2.0 * 64 * 16 * 10 * 10 * 6 * 25 / 1e11, 1e-12));
    CU_ASSERT_TRUE(mb_test_close(mb_probe_conv_min_s(&lenet, "cpu", 4), t / 4, 1e-12));
    CU_ASSERT_TRUE(mb_probe_conv_min_s(&lenet, "cuda", 1) < t / 100);
    char why[128];
    CU_ASSERT_TRUE(mb_probe_conv_shape_ok(&lenet, why, sizeof why));
    mb_conv_shape wide = {1, 1000000, 1000, 1000, 4, 1000, 1, 0}; /* C F F = 1e12 */
    CU_ASSERT_FALSE(mb_probe_conv_shape_ok(&wide, why, sizeof why));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "past 2^31"));
    mb_conv_shape deep = {1, 46341, 1, 1, 46341, 1, 1, 0}; /* K C = 2^31 + 1 weights */
    CU_ASSERT_FALSE(mb_probe_conv_shape_ok(&deep, why, sizeof why));
}

int mb_test_suite_probe(void)
{
    CU_pSuite s = CU_add_suite("probe", NULL, NULL);
    if (!s)
        return -1;
    return !CU_add_test(s, "statistics: known answers", test_stats_known) ||
           !CU_add_test(s, "median interval ranks = exact binomial", test_median_ci_rank) ||
           !CU_add_test(s, "stop rule and options", test_stop_rule) ||
           !CU_add_test(s, "harness: every call accounted for", test_time_counts) ||
           !CU_add_test(s, "harness: the budget stops a slow point", test_time_budget) ||
           !CU_add_test(s, "harness: points interleaved over rounds", test_time_rounds) ||
           !CU_add_test(s, "harness: drift between passes", test_drift) ||
           !CU_add_test(s, "harness: errors", test_time_errors) ||
           !CU_add_test(s, "harness overhead", test_overhead) ||
           !CU_add_test(s, "knee: exact piecewise data", test_knee_exact) ||
           !CU_add_test(s, "knee: noisy data = brute-force search", test_knee_noisy) ||
           !CU_add_test(s, "knee: errors", test_knee_errors) ||
           !CU_add_test(s, "learner auto-tuner on synthetic curves", test_tune) ||
           !CU_add_test(s, "metadata lines", test_meta) ||
           !CU_add_test(s, "comm sizes, bus factors, op names", test_comm_helpers) ||
           !CU_add_test(s, "mbprobe: help and bad input", test_cli) ||
           !CU_add_test(s, "mbprobe comm under mpirun", test_comm_mpirun) ||
           !CU_add_test(s, "step: real SGD updates on every learner", test_step_update) ||
           !CU_add_test(s, "step: the trainer's shuffled batches and optimiser",
                        test_step_shuffled) ||
           !CU_add_test(s, "step: learners share the device's threads", test_step_threads) ||
           !CU_add_test(s, "step: the sweep as a library call", test_step_run) ||
           !CU_add_test(s, "conv: every algorithm of each pass on a context", test_conv_run) ||
           !CU_add_test(s, "conv: a workspace out of memory is a row", test_conv_out_of_memory) ||
           !CU_add_test(s, "mbprobe step and learners end to end", test_step_cli) ||
           !CU_add_test(s, "mbprobe conv end to end, with its cache", test_conv_cli) ||
           !CU_add_test(s, "mbprobe step, conv, learners: bad input", test_probe_bad_input) ||
           !CU_add_test(s, "conv: least time and shapes past int", test_conv_guards);
}
