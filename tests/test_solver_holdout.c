/* test_solver_holdout.c — solver/holdout.c and the flat range: the held-out plan never reuses a
 * seed that fitted or chose, the held-out check's verdicts on settings with known winners and
 * ties, its bootstrap paired by seed, the interval of its median |error| over seeds, sequential sampling stopping on a known winner and on a known tie, the flat range of a
 * curve with a closed form, and mbopt validate's held-out modes as a user runs them.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>

#include "../solver/mb_solver.h"
#include "mb_test.h"

/* A validate row at P = 1, lr 0.02 with n run times (unreached: +inf, counted apart). */
static void set_row(mb_validate_row *r, double m, const double *t, size_t n)
{
    memset(r, 0, sizeof *r);
    snprintf(r->algo, sizeof r->algo, "momentum");
    r->procs = 1;
    r->batch = m;
    r->lr = 0.02;
    r->runs = n;
    r->t_runs = malloc(n * sizeof *r->t_runs);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->t_runs);
    for (size_t i = 0; i < n; i++)
        if (isfinite(t[i]))
            r->t_runs[r->reached++] = t[i];
    gsl_sort(r->t_runs, 1, r->reached);
    r->t_median = r->reached ? r->t_runs[r->reached / 2] : NAN;
    r->t_min = r->reached ? r->t_runs[0] : NAN;
    r->rel_err = NAN;
}

/* A validate of n_rows settings, rows[k] at ms[k] with the times of draw(k, seed). */
static void make_validate(mb_validate *v, size_t n_rows)
{
    memset(v, 0, sizeof *v);
    v->rows = calloc(n_rows, sizeof *v->rows);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v->rows);
    v->n_rows = n_rows;
    v->best = v->rec = v->settled = -1;
    v->p_rec = 1;
    v->lr_rec = 0.02;
}

/* Appends one run time to a row (reached). */
static void add_run(mb_validate_row *r, double t)
{
    r->t_runs = realloc(r->t_runs, (r->runs + 1) * sizeof *r->t_runs);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->t_runs);
    r->t_runs[r->reached++] = t;
    r->runs++;
    gsl_sort(r->t_runs, 1, r->reached);
}

/* The plan over M in [8, 128], its held-out seeds from MB_HOLDOUT_SEED0. */
static int plan_of(const mb_validate *v, const mb_fit_runs *runs, size_t n_seeds,
                   mb_holdout_plan *plan, mb_error *e)
{
    return mb_solver_holdout_plan(v, runs, NULL, 0, 8, 128, n_seeds, MB_HOLDOUT_SEED0, plan, e);
}

static void test_plan_fresh_seeds(void)
{
    mb_validate v;
    make_validate(&v, 3);
    const double t[3] = {1, 1, 1};
    set_row(&v.rows[0], 16, t, 3);
    set_row(&v.rows[1], 32, t, 3);
    set_row(&v.rows[2], 64, t, 3);
    v.best = 0;
    v.rec = 2;
    v.settled = 1; /* the runs chose M = 32 over the model's optimum */
    v.m_rec = 60.4;
    /* the runs that fitted and chose used seeds 0..4 and, by hand, 1000, 1001 and 1003 */
    const double seeds[] = {0, 1, 2, 3, 4, 1000, 1001, 1003};
    const size_t n = sizeof seeds / sizeof seeds[0];
    mb_fit_runs runs = {.n = n, .seed = (double *)seeds};
    mb_holdout_plan plan;
    mb_error e = {0};
    CU_ASSERT_EQUAL_FATAL(plan_of(&v, &runs, 10, &plan, &e), MB_OK);
    CU_ASSERT_EQUAL(plan.n_seeds, 10);
    for (size_t s = 0; s < plan.n_seeds; s++) {
        CU_ASSERT_TRUE(plan.seeds[s] >= MB_HOLDOUT_SEED0);
        for (size_t i = 0; i < n; i++)
            CU_ASSERT_NOT_EQUAL((double)plan.seeds[s], seeds[i]);
        for (size_t j = 0; j < s; j++)
            CU_ASSERT_NOT_EQUAL(plan.seeds[s], plan.seeds[j]);
    }
    CU_ASSERT_EQUAL(plan.seeds[0], 1002);
    /* the recommendation first, then the in-sample best and the model's optimum, then the
     * neighbours; no two within 10% of each other; all inside [8, 128] */
    CU_ASSERT_FATAL(plan.n_batch >= 4);
    CU_ASSERT_DOUBLE_EQUAL(plan.batch[0], 32, 0);
    CU_ASSERT_STRING_EQUAL(plan.why[0], "recommended");
    CU_ASSERT_DOUBLE_EQUAL(plan.batch[1], 16, 0);
    CU_ASSERT_STRING_EQUAL(plan.why[1], "in-sample best");
    CU_ASSERT_DOUBLE_EQUAL(plan.batch[2], 60, 0);
    CU_ASSERT_STRING_EQUAL(plan.why[2], "model's optimum");
    for (size_t k = 0; k < plan.n_batch; k++) {
        CU_ASSERT_TRUE(plan.batch[k] >= 8 && plan.batch[k] <= 128);
        for (size_t j = 0; j < k; j++)
            CU_ASSERT_TRUE(fabs(log(plan.batch[k] / plan.batch[j])) >= log(1.1));
    }
    /* from another first seed: an independent sample, still skipping the seeds the runs used
     * (1001 and 1003) */
    CU_ASSERT_EQUAL_FATAL(
        mb_solver_holdout_plan(&v, &runs, NULL, 0, 8, 128, 10, 1001, &plan, &e), MB_OK);
    CU_ASSERT_EQUAL(plan.seeds[0], 1002);
    CU_ASSERT_EQUAL(plan.seeds[1], 1004);
    CU_ASSERT_EQUAL_FATAL(
        mb_solver_holdout_plan(&v, &runs, NULL, 0, 8, 128, 10, 2000, &plan, &e), MB_OK);
    CU_ASSERT_EQUAL(plan.seeds[0], 2000);
    CU_ASSERT_EQUAL(plan.seeds[9], 2009);
    /* and the seeds a fit records (its inputs.seeds) though no log given trained them */
    const double fitted[] = {2000, 2002};
    CU_ASSERT_EQUAL_FATAL(
        mb_solver_holdout_plan(&v, &runs, fitted, 2, 8, 128, 10, 2000, &plan, &e), MB_OK);
    CU_ASSERT_EQUAL(plan.seeds[0], 2001);
    CU_ASSERT_EQUAL(plan.seeds[1], 2003);
    /* below 1000 the choosing runs draw their seeds; past MB_HOLDOUT_SEED0_MAX is refused */
    CU_ASSERT_EQUAL(mb_solver_holdout_plan(&v, &runs, NULL, 0, 8, 128, 10, 999, &plan, &e),
                    MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "first held-out seed"));
    CU_ASSERT_EQUAL(mb_solver_holdout_plan(&v, &runs, NULL, 0, 8, 128, 10,
                                           MB_HOLDOUT_SEED0_MAX + 1, &plan, &e), MB_EINVAL);
    /* a budget of 0 seeds (or 2: no interval) is refused; so is a plan with no recommendation */
    CU_ASSERT_EQUAL(plan_of(&v, &runs, 0, &plan, &e), MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "fresh seeds"));
    CU_ASSERT_EQUAL(plan_of(&v, &runs, 2, &plan, &e), MB_EINVAL);
    v.settled = v.rec = -1;
    CU_ASSERT_EQUAL(plan_of(&v, &runs, 10, &plan, &e), MB_ENODATA);
    mb_validate_free(&v);
    /* calibration only: no run reached this target (the law was extrapolated to it), so the
     * plan centres on the model's optimum, 40, and its neighbours */
    const double never[3] = {INFINITY, INFINITY, INFINITY};
    make_validate(&v, 2);
    set_row(&v.rows[0], 16, never, 3);
    set_row(&v.rows[1], 64, never, 3);
    v.m_rec = 40.2;
    CU_ASSERT_TRUE(mb_solver_calibration_only(&v));
    CU_ASSERT_EQUAL_FATAL(plan_of(&v, &runs, 10, &plan, &e), MB_OK);
    CU_ASSERT_DOUBLE_EQUAL(plan.batch[0], 40, 0);
    CU_ASSERT_STRING_EQUAL(plan.why[0], "recommended");
    CU_ASSERT_EQUAL(plan.n_batch, 3); /* 40; its nearest neighbours 33, 49 (not 27, 60: the
                                       * sweep walks on past an edge best, mb_solver_holdout_beyond) */
    CU_ASSERT_DOUBLE_EQUAL(plan.batch[1], 33, 0);
    CU_ASSERT_DOUBLE_EQUAL(plan.batch[2], 49, 0);
    /* a small M still has neighbours: 2 / 1.22 and 2 * 1.22 both round to 2, so the steps are
     * at least 1 (campaign 45's B-F1: the plan held M = 2 alone, which no check can grade) */
    v.m_rec = 2.2;
    CU_ASSERT_EQUAL_FATAL(mb_solver_holdout_plan(&v, &runs, NULL, 0, 1, 128, 10,
                                                 MB_HOLDOUT_SEED0, &plan, &e), MB_OK);
    CU_ASSERT_EQUAL(plan.n_batch, 3);
    CU_ASSERT_DOUBLE_EQUAL(plan.batch[0], 2, 0);
    CU_ASSERT_DOUBLE_EQUAL(plan.batch[1], 1, 0);
    CU_ASSERT_DOUBLE_EQUAL(plan.batch[2], 3, 0);
    v.m_rec = 40.2;
    v.rows[1].reached = 1; /* one run reached it: the usual rule, and no row stands for 40 */
    CU_ASSERT_FALSE(mb_solver_calibration_only(&v));
    CU_ASSERT_EQUAL(plan_of(&v, &runs, 10, &plan, &e), MB_ENODATA);
    mb_validate_free(&v);
}

/* Held-out rows at M = 16, 32, 64 of 10 seeds each: times scale * (1 + noise). */
static void held_rows(mb_validate *h, const double scale[3], double noise, unsigned long seed)
{
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, seed);
    make_validate(h, 3);
    const double ms[3] = {16, 32, 64};
    for (size_t k = 0; k < 3; k++) {
        double t[10];
        for (size_t s = 0; s < 10; s++)
            t[s] = scale[k] * (1 + gsl_ran_gaussian(g, noise));
        set_row(&h->rows[k], ms[k], t, 10);
    }
    gsl_rng_free(g);
}

static void test_holdout_verdicts(void)
{
    mb_holdout o;
    mb_validate h;
    mb_error e = {0};
    /* M = 32 clearly the fastest: ahead, 1.00x the best, its interval at 1 */
    held_rows(&h, (const double[]){1.3, 1.0, 1.25}, 0.03, 1);
    CU_ASSERT_EQUAL_FATAL(mb_solver_holdout(&h, 32, 1, 0.02, 2000, &o, &e), MB_OK);
    CU_ASSERT_EQUAL(o.verdict, MB_HOLDOUT_AHEAD);
    CU_ASSERT_EQUAL(o.rec, 1);
    CU_ASSERT_EQUAL(o.best, 1);
    CU_ASSERT_EQUAL(o.rival, 2);
    CU_ASSERT_DOUBLE_EQUAL(o.ratio, 1.0, 0);
    CU_ASSERT_TRUE(o.rival_ratio < 0.85 && o.rival_ci[1] < 1 && o.rival_ci[0] <= o.rival_ratio);
    CU_ASSERT_DOUBLE_EQUAL(o.ratio_ci[0], 1.0, 0);
    CU_ASSERT_EQUAL(o.seeds_lo, 10);
    CU_ASSERT_DOUBLE_EQUAL(o.flat_lo, 32, 0); /* nothing else within 5% */
    CU_ASSERT_DOUBLE_EQUAL(o.flat_hi, 32, 0);
    mb_validate_free(&h);
    /* M = 32 and 64 the same: tied, and both in the flat range */
    held_rows(&h, (const double[]){1.5, 1.0, 1.0}, 0.05, 2);
    CU_ASSERT_EQUAL_FATAL(mb_solver_holdout(&h, 32, 1, 0.02, 2000, &o, &e), MB_OK);
    CU_ASSERT_EQUAL(o.verdict, MB_HOLDOUT_TIED);
    CU_ASSERT_TRUE(o.rival_ci[0] < 1 && o.rival_ci[1] > 1);
    CU_ASSERT_TRUE(o.ratio >= 1 && o.ratio < 1.06);
    CU_ASSERT_DOUBLE_EQUAL(o.flat_lo, 32, 0);
    CU_ASSERT_DOUBLE_EQUAL(o.flat_hi, 64, 0);
    mb_validate_free(&h);
    /* M = 16 20% faster: behind, the ratio 1.25 with an interval above 1 */
    held_rows(&h, (const double[]){0.8, 1.0, 1.3}, 0.03, 3);
    CU_ASSERT_EQUAL_FATAL(mb_solver_holdout(&h, 32, 1, 0.02, 2000, &o, &e), MB_OK);
    CU_ASSERT_EQUAL(o.verdict, MB_HOLDOUT_BEHIND);
    CU_ASSERT_EQUAL(o.best, 0);
    CU_ASSERT_TRUE(o.ratio > 1.15 && o.ratio < 1.35 && o.ratio_ci[0] > 1.1);
    mb_validate_free(&h);
    /* runs that never reached the target count as infinitely slow, not as absent */
    held_rows(&h, (const double[]){0.9, 1.0, 1.3}, 0.02, 4);
    for (size_t s = 0; s < 8; s++) /* 8 of M = 16's 10 runs did not reach it */
        h.rows[0].t_runs[s] = INFINITY;
    gsl_sort(h.rows[0].t_runs, 1, 10);
    h.rows[0].reached = 2;
    CU_ASSERT_EQUAL_FATAL(mb_solver_holdout(&h, 32, 1, 0.02, 2000, &o, &e), MB_OK);
    CU_ASSERT_EQUAL(o.best, 1);
    CU_ASSERT_EQUAL(o.verdict, MB_HOLDOUT_AHEAD);
    /* no held-out run of the recommendation: refused, naming the M to train */
    CU_ASSERT_EQUAL(mb_solver_holdout(&h, 24, 1, 0.02, 2000, &o, &e), MB_ENODATA);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "M = 24"));
    mb_validate_free(&h);
}

/* The sweep's edge: a best at the least or largest held-out M extends a step (x1.22) past it,
 * inside the range; a best inside the sweep, or one that mostly failed, extends nothing. */
static void test_holdout_beyond(void)
{
    mb_holdout o;
    mb_validate h;
    mb_error e = {0};
    held_rows(&h, (const double[]){1.3, 1.1, 1.0}, 0.02, 5); /* M = 64 the best, the largest */
    CU_ASSERT_EQUAL_FATAL(mb_solver_holdout(&h, 32, 1, 0.02, 500, &o, &e), MB_OK);
    CU_ASSERT_DOUBLE_EQUAL(mb_solver_holdout_beyond(&h, &o, 1, 0.02, NAN, NAN), 78, 0);
    CU_ASSERT_TRUE(isnan(mb_solver_holdout_beyond(&h, &o, 1, 0.02, 1, 70))); /* out of range */
    mb_validate_free(&h);
    held_rows(&h, (const double[]){1.0, 1.1, 1.3}, 0.02, 6); /* M = 16 the best, the least */
    CU_ASSERT_EQUAL_FATAL(mb_solver_holdout(&h, 32, 1, 0.02, 500, &o, &e), MB_OK);
    CU_ASSERT_DOUBLE_EQUAL(mb_solver_holdout_beyond(&h, &o, 1, 0.02, 1, 1000), 13, 0);
    h.rows[0].batch = 2; /* a best at M = 2: the step below is 1, not 2 / 1.22 rounded back to 2 */
    CU_ASSERT_DOUBLE_EQUAL(mb_solver_holdout_beyond(&h, &o, 1, 0.02, 1, 1000), 1, 0);
    h.rows[0].batch = 16;
    for (size_t s = 0; s < 6; s++) /* most of M = 16's runs fail: now M = 32 is the best */
        h.rows[0].t_runs[s] = INFINITY;
    gsl_sort(h.rows[0].t_runs, 1, 10);
    h.rows[0].reached = 4;
    CU_ASSERT_EQUAL_FATAL(mb_solver_holdout(&h, 32, 1, 0.02, 500, &o, &e), MB_OK);
    CU_ASSERT_EQUAL(o.best, 1);
    CU_ASSERT_TRUE(isnan(mb_solver_holdout_beyond(&h, &o, 1, 0.02, 1, 1000)));
    mb_validate_free(&h);
}

/* A row of ten runs on seeds 1000..1009, t[s] the time of seed 1000 + s (paired with every
 * other row made so). */
static void set_paired_row(mb_validate_row *r, double m, const double *t)
{
    set_row(r, m, t, 10);
    r->seed = malloc(20 * sizeof *r->seed);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->seed);
    r->t_seed = r->seed + 10;
    for (size_t s = 0; s < 10; s++)
        r->seed[s] = 1000 + (double)s, r->t_seed[s] = t[s];
}

/* Pairing by seed: every setting trained seeds 1000..1009 interleaved, and four of the seeds met
 * a slow phase of the machine (2x every setting's time). M = 32 is 6% slower than M = 16 on
 * every seed: drawn seed by seed the check sees it (behind); drawn setting by setting the phase
 * hides it (tied). */
static void test_holdout_paired(void)
{
    for (int paired = 0; paired <= 1; paired++) {
        mb_validate h;
        make_validate(&h, 3);
        const double ms[3] = {16, 32, 64}, scale[3] = {1.0, 1.06, 1.3};
        gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
        gsl_rng_set(g, 11);
        for (size_t k = 0; k < 3; k++) {
            double t[10];
            for (size_t s = 0; s < 10; s++)
                t[s] = scale[k] * (s % 3 == 0 ? 2.0 : 1.0) * (1 + gsl_ran_gaussian(g, 0.01));
            if (paired)
                set_paired_row(&h.rows[k], ms[k], t);
            else
                set_row(&h.rows[k], ms[k], t, 10);
        }
        gsl_rng_free(g);
        mb_holdout o;
        mb_error e = {0};
        CU_ASSERT_EQUAL_FATAL(mb_solver_holdout(&h, 32, 1, 0.02, 2000, &o, &e), MB_OK);
        CU_ASSERT_EQUAL(o.paired, paired);
        CU_ASSERT_EQUAL(o.best, 0);
        CU_ASSERT_TRUE(o.rival_ratio > 1.03 && o.rival_ratio < 1.09);
        if (paired) {
            CU_ASSERT_EQUAL(o.verdict, MB_HOLDOUT_BEHIND);
            CU_ASSERT_TRUE(o.rival_ci[0] > 1.0 && o.rival_ci[1] < 1.12);
        } else {
            CU_ASSERT_EQUAL(o.verdict, MB_HOLDOUT_TIED);
        }
        mb_validate_free(&h);
    }
}

/* A P = 2 answer held out against one learner's held-out settings, paired by seed: two
 * learners at M = 20 take 0.7 of one learner's best time on every seed (ahead), or 1.2 of it
 * (behind); the flat range is one learner's. Its plan trains the recommended M alone, a whole
 * number a learner, on fresh seeds. */
static void test_holdout_across(void)
{
    for (int faster = 0; faster <= 1; faster++) {
        mb_validate h;
        make_validate(&h, 4);
        const double ms[4] = {16, 32, 64, 20}, scale[4] = {1.0, 0.9, 1.1, faster ? 0.63 : 1.08};
        for (size_t k = 0; k < 4; k++) {
            double t[10];
            for (size_t s = 0; s < 10; s++) /* a slow phase over seeds 1000, 1003, ... */
                t[s] = scale[k] * (s % 3 == 0 ? 2.0 : 1.0) *
                       (1 + 0.002 * (double)((s * 7 + k) % 5));
            set_paired_row(&h.rows[k], ms[k], t);
        }
        h.rows[3].procs = 2;
        mb_holdout o;
        mb_error e = {0};
        CU_ASSERT_EQUAL_FATAL(mb_solver_holdout_across(&h, 20, 2, 0.02, 2000, &o, &e), MB_OK);
        CU_ASSERT_EQUAL(o.rec, 3);
        CU_ASSERT_TRUE(o.paired);
        CU_ASSERT_EQUAL(o.rival, 1); /* one learner's best, M = 32 */
        if (faster) {
            CU_ASSERT_EQUAL(o.best, 3);
            CU_ASSERT_EQUAL(o.verdict, MB_HOLDOUT_AHEAD);
            CU_ASSERT_TRUE(o.rival_ratio > 0.65 && o.rival_ratio < 0.75);
            CU_ASSERT_TRUE(o.flat_lo > o.flat_hi); /* no one-learner M within 5% */
        } else {
            CU_ASSERT_EQUAL(o.best, 1);
            CU_ASSERT_EQUAL(o.verdict, MB_HOLDOUT_BEHIND);
            CU_ASSERT_TRUE(o.ratio > 1.15 && o.ratio < 1.25 && o.ratio_ci[0] > 1.1);
            CU_ASSERT_TRUE(o.flat_lo == 32 && o.flat_hi == 32);
        }
        /* within P = 2 there is nothing to compare with; without one learner's sweep, across
         * neither */
        CU_ASSERT_EQUAL(mb_solver_holdout(&h, 20, 2, 0.02, 500, &o, &e), MB_ENODATA);
        for (size_t k = 0; k < 3; k++)
            h.rows[k].procs = 4;
        CU_ASSERT_EQUAL(mb_solver_holdout_across(&h, 20, 2, 0.02, 500, &o, &e), MB_ENODATA);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "nothing at P = 1"));
        mb_validate_free(&h);
    }
    /* the plan of a P = 2 recommendation the runs did not settle (its optimum 19.3): M = 20
     * alone, at P = 2, on seeds no run used */
    mb_validate v;
    make_validate(&v, 2);
    const double t[3] = {1, 1, 1};
    set_row(&v.rows[0], 32, t, 3);
    set_row(&v.rows[1], 64, t, 3);
    v.rows[0].procs = v.rows[1].procs = 2;
    v.p_rec = 2;
    v.m_rec = 19.3;
    const double seeds[] = {0, 1, 2};
    mb_fit_runs runs = {.n = 3, .seed = (double *)seeds};
    mb_holdout_plan plan;
    mb_error e = {0};
    CU_ASSERT_EQUAL_FATAL(plan_of(&v, &runs, 10, &plan, &e), MB_OK);
    CU_ASSERT_EQUAL(plan.p, 2);
    CU_ASSERT_EQUAL(plan.n_batch, 1);
    CU_ASSERT_EQUAL(plan.batch[0], 20);
    CU_ASSERT_EQUAL(plan.n_seeds, 10);
    CU_ASSERT_EQUAL(plan.seeds[0], MB_HOLDOUT_SEED0);
    mb_validate_free(&v);
}

/* The interval of the median |error| over the held-out seeds: a prediction exact for the
 * population of seeds, graded on ten seeds paired over three settings. With no seed-to-seed
 * spread the error and its interval are near 0; with a spread shared by the settings (one
 * seed's luck moves every setting alike, as the data order does) the ten seeds' median is off
 * the population's by itself, and the interval says how far it may be. No prediction: none. */
static void test_holdout_err_interval(void)
{
    for (int shared = 0; shared <= 1; shared++) {
        mb_validate h;
        make_validate(&h, 3);
        const double ms[3] = {16, 32, 64}, scale[3] = {1.3, 1.0, 1.2};
        gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
        gsl_rng_set(g, 21);
        double f[10];
        for (size_t s = 0; s < 10; s++)
            f[s] = exp(shared ? gsl_ran_gaussian(g, 0.25) : 0);
        for (size_t k = 0; k < 3; k++) {
            double t[10];
            for (size_t s = 0; s < 10; s++)
                t[s] = scale[k] * f[s] * (1 + gsl_ran_gaussian(g, 0.005));
            mb_validate_row *r = &h.rows[k];
            set_paired_row(r, ms[k], t);
            r->t_pred = scale[k];
            r->rel_err = (r->t_pred - r->t_median) / r->t_median;
        }
        gsl_rng_free(g);
        mb_holdout o;
        mb_error e = {0};
        CU_ASSERT_EQUAL_FATAL(mb_solver_holdout(&h, 32, 1, 0.02, 2000, &o, &e), MB_OK);
        CU_ASSERT_EQUAL(o.n_err, 3);
        CU_ASSERT_TRUE(o.err_ci[0] <= o.median_abs_err && o.median_abs_err <= o.err_ci[1]);
        if (shared) {
            CU_ASSERT_TRUE(o.err_ci[1] > 0.08);
        } else {
            CU_ASSERT_TRUE(o.median_abs_err < 0.01 && o.err_ci[1] < 0.02);
        }
        /* predicted at the held-out medians themselves: the draws' |errors| all lie above 0,
         * yet the interval holds the point (it missed it before the bias was taken out) */
        for (size_t k = 0; k < 3; k++) {
            h.rows[k].t_pred = h.rows[k].t_median;
            h.rows[k].rel_err = 0;
        }
        CU_ASSERT_EQUAL_FATAL(mb_solver_holdout(&h, 32, 1, 0.02, 2000, &o, &e), MB_OK);
        CU_ASSERT_TRUE(o.median_abs_err == 0 && o.err_ci[0] == 0 && o.err_ci[1] >= 0);
        if (shared)
            CU_ASSERT_TRUE(o.err_ci[1] > 0.02);
        for (size_t k = 0; k < 3; k++) /* nothing predicted: nothing graded, no interval */
            h.rows[k].rel_err = h.rows[k].t_pred = NAN;
        CU_ASSERT_EQUAL_FATAL(mb_solver_holdout(&h, 32, 1, 0.02, 500, &o, &e), MB_OK);
        CU_ASSERT_TRUE(isnan(o.median_abs_err) && isnan(o.err_ci[0]) && isnan(o.err_ci[1]));
        mb_validate_free(&h);
    }
}

/* The side of T_update's held-out error: every setting's runs slower an update than the model
 * (the machine slower during the check) is -1, every one faster +1, mixed 0, and fewer than 3
 * graded settings say nothing. */
static void test_holdout_tu_side(void)
{
    mb_validate h;
    mb_holdout o;
    mb_error e = {0};
    const double errs[4][3] = {{-0.09, -0.12, -0.02}, {0.05, 0.01, 0.2}, {-0.1, 0.02, -0.1},
                               {-0.1, NAN, NAN}};
    const int side[4] = {-1, 1, 0, 0};
    for (int c = 0; c < 4; c++) {
        held_rows(&h, (const double[]){1.3, 1.0, 1.2}, 0.03, 7);
        for (size_t k = 0; k < 3; k++)
            h.rows[k].t_update_rel_err = errs[c][k];
        CU_ASSERT_EQUAL_FATAL(mb_solver_holdout(&h, 32, 1, 0.02, 500, &o, &e), MB_OK);
        CU_ASSERT_EQUAL(o.tu_side, side[c]);
        CU_ASSERT_TRUE(mb_test_close(o.median_abs_tu_err, (const double[]){0.09, 0.05, 0.1, 0.1}[c],
                                     1e-12));
        mb_validate_free(&h);
    }
}

/* The level every setting shares: the model's T_update 1.25x, 1.2x and 1.3x too fast (the
 * machine slower during the check) gives a level of 1.25 and, with T_C predicted 1/1.25 of the
 * medians at 32 and 5% off apart from the level at 16 and 64, 5% once it is divided out; a
 * mixed side gives no level. */
static void test_holdout_tu_level(void)
{
    mb_validate h;
    mb_holdout o;
    mb_error e = {0};
    const double runs_over_model[3] = {1.2, 1.25, 1.3}, off[3] = {1.05, 1, 0.95};
    held_rows(&h, (const double[]){1.3, 1.0, 1.2}, 0.03, 7);
    for (size_t k = 0; k < 3; k++) {
        mb_validate_row *r = &h.rows[k];
        r->t_update_rel_err = 1 / runs_over_model[k] - 1;
        r->t_pred = r->t_median * off[k] / 1.25;
        r->rel_err = (r->t_pred - r->t_median) / r->t_median;
    }
    CU_ASSERT_EQUAL_FATAL(mb_solver_holdout(&h, 32, 1, 0.02, 500, &o, &e), MB_OK);
    CU_ASSERT_EQUAL(o.tu_side, -1);
    CU_ASSERT_TRUE(mb_test_close(o.tu_level, 1.25, 1e-12));
    CU_ASSERT_TRUE(mb_test_close(o.median_abs_err_level, 0.05, 1e-12));
    CU_ASSERT_TRUE(mb_test_close(o.median_abs_err, 0.2, 1e-12)); /* the raw error is kept */
    h.rows[1].t_update_rel_err = 0.1; /* one setting faster: mixed, no level */
    CU_ASSERT_EQUAL_FATAL(mb_solver_holdout(&h, 32, 1, 0.02, 500, &o, &e), MB_OK);
    CU_ASSERT_EQUAL(o.tu_side, 0);
    CU_ASSERT_TRUE(isnan(o.tu_level) && isnan(o.median_abs_err_level));
    mb_validate_free(&h);
}

/* The machine's speed from repeats: three runs trained again at 1.2x, 1.25x and 1.3x their
 * first seconds per update give a median 1.25 with an interval inside [1.2, 1.3] that excludes
 * 1; the model's error at that speed is the error with its T_update times 1.25 (0.05 with
 * test_holdout_tu_level's rows). A repeat of no run, and one of two, are refused by name. */
static void test_machine_speed(void)
{
    double fb[3] = {16, 32, 64}, fs[3] = {0, 1, 2}, fl[3] = {0.02, 0.02, 0.02}, fp[3] = {1, 1, 1},
           ft[3] = {1e-3, 2e-3, 4e-3};
    size_t ff[3] = {0, 1, 2};
    char nets[3][64] = {"lenet5", "lenet5", "lenet5"}, algos[3][32] = {"sgd", "sgd", "sgd"};
    const char *fpaths[3] = {"a.csv", "b.csv", "c.csv"}, *rpaths[3] = {"r0.csv", "r1.csv", "r2.csv"};
    const mb_fit_runs first = {.n = 3, .batch = fb, .seed = fs, .lr = fl, .procs = fp,
                               .t_step = ft, .file = ff, .net = nets, .algo = algos};
    double rb[3] = {64, 16, 32}, rs[3] = {2, 0, 1}, rt[3] = {4e-3 * 1.3, 1e-3 * 1.2, 2e-3 * 1.25};
    mb_fit_runs again = {.n = 3, .batch = rb, .seed = rs, .lr = fl, .procs = fp, .t_step = rt,
                         .file = ff, .net = nets, .algo = algos};
    mb_machine_speed sp;
    mb_error e = {0};
    CU_ASSERT_EQUAL_FATAL(mb_solver_machine_speed(&first, fpaths, &again, rpaths, 500, &sp, &e),
                          MB_OK);
    CU_ASSERT_EQUAL(sp.n, 3);
    CU_ASSERT_TRUE(mb_test_close(sp.ratio, 1.25, 1e-12));
    CU_ASSERT_TRUE(sp.ci[0] >= 1.2 - 1e-12 && sp.ci[1] <= 1.3 + 1e-12 && sp.ci[0] > 1);
    CU_ASSERT_DOUBLE_EQUAL(sp.m_lo, 16, 0);
    CU_ASSERT_DOUBLE_EQUAL(sp.m_hi, 64, 0);
    mb_validate h;
    held_rows(&h, (const double[]){1.3, 1.0, 1.2}, 0.03, 7);
    const double off[3] = {1.05, 1, 0.95};
    for (size_t k = 0; k < 3; k++) {
        mb_validate_row *r = &h.rows[k];
        r->t_pred = r->t_median * off[k] / 1.25;
        r->rel_err = (r->t_pred - r->t_median) / r->t_median;
    }
    CU_ASSERT_TRUE(mb_test_close(mb_solver_holdout_err_at(&h, 1, 0.02, 1.25), 0.05, 1e-12));
    CU_ASSERT_TRUE(mb_test_close(mb_solver_holdout_err_at(&h, 1, 0.02, 1), 0.2, 1e-12));
    CU_ASSERT_TRUE(isnan(mb_solver_holdout_err_at(&h, 2, 0.02, 1.25))); /* no P = 2 rows */
    mb_validate_free(&h);
    rs[1] = 7; /* seed 7 at M = 16: no such run */
    CU_ASSERT_EQUAL(mb_solver_machine_speed(&first, fpaths, &again, rpaths, 500, &sp, &e),
                    MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "r1.csv: no run that fitted or chose has M = 16, seed 7"));
    rs[1] = 0;
    fb[1] = 16;
    fs[1] = 0; /* two runs of M = 16, seed 0 */
    CU_ASSERT_EQUAL(mb_solver_machine_speed(&first, fpaths, &again, rpaths, 500, &sp, &e),
                    MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "r1.csv: more than one run"));
    fb[1] = 32;
    fs[1] = 1;
    char other[3][32] = {"sgd", "momentum", "sgd"}; /* the repeat of M = 16 seed 0 is momentum */
    again.algo = other;
    CU_ASSERT_EQUAL(mb_solver_machine_speed(&first, fpaths, &again, rpaths, 500, &sp, &e),
                    MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "r1.csv: no run that fitted or chose has M = 16, seed 0"));
    again.algo = algos;
    /* campaign 42's B-F2: a repeat without seconds per update, and a first run without them,
     * each named once, beside the other */
    rt[1] = NAN;
    CU_ASSERT_EQUAL(mb_solver_machine_speed(&first, fpaths, &again, rpaths, 500, &sp, &e),
                    MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "r1.csv: no seconds per update (wall_s) in it, a "
                                         "repeat of a.csv"));
    rt[1] = 1e-3 * 1.2;
    ft[0] = NAN;
    CU_ASSERT_EQUAL(mb_solver_machine_speed(&first, fpaths, &again, rpaths, 500, &sp, &e),
                    MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "r1.csv: no seconds per update (wall_s) in the run it "
                                         "repeats, a.csv"));
    ft[0] = 1e-3;
}

/* T_C's interval over laws with a known spread: N = n_inf + 64 / M with n_inf 100 .. 199, at
 * M = 32 and 1.36 ms an update (3e-5 s a sample and 4e-4 s): the 2.5% and 97.5% points are
 * (102.475 + 2) and (196.525 + 2) updates. Fewer than MB_SOLVER_TC_MIN laws: no interval. */
static void test_tc_interval(void)
{
    mb_law boot[100];
    for (size_t i = 0; i < 100; i++)
        boot[i] = (mb_law){.kind = MB_LAW_INVERSE, .n_inf = 100 + (double)i, .a = 64, .b = 1};
    const mb_update_time t = {.gamma = 3e-5, .m_t = 1, .t0 = 4e-4, .comm = MB_COMM_NONE};
    double ci[2];
    CU_ASSERT_EQUAL(mb_solver_tc_interval(boot, 100, 0, &t, 32, 1, ci), 100);
    CU_ASSERT_DOUBLE_EQUAL(ci[0], 104.475 * 1.36e-3, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(ci[1], 198.525 * 1.36e-3, 1e-9);
    CU_ASSERT_EQUAL(mb_solver_tc_interval(boot, MB_SOLVER_TC_MIN - 1, 0, &t, 32, 1, ci),
                    MB_SOLVER_TC_MIN - 1);
    CU_ASSERT_TRUE(isnan(ci[0]) && isnan(ci[1]));
    /* drawn from 3 seeds: widened about the median (149.5 + 2 updates) in log T_C by
     * sqrt(3/2) t_2 / z = 1.2247 x 4.3027 / 1.9600 = 2.689; from 10 seeds, by 1.216 */
    CU_ASSERT_TRUE(mb_test_close(mb_solver_tc_widening(3), 2.6885, 1e-4));
    CU_ASSERT_TRUE(mb_test_close(mb_solver_tc_widening(10), 1.2162, 1e-3));
    CU_ASSERT_DOUBLE_EQUAL(mb_solver_tc_widening(1), 1, 0);
    CU_ASSERT_EQUAL(mb_solver_tc_interval(boot, 100, 3, &t, 32, 1, ci), 100);
    const double mid = 151.5 * 1.36e-3, w = mb_solver_tc_widening(3);
    CU_ASSERT_TRUE(mb_test_close(ci[0], mid * pow(104.475 / 151.5, w), 1e-9));
    CU_ASSERT_TRUE(mb_test_close(ci[1], mid * pow(198.525 / 151.5, w), 1e-9));
    CU_ASSERT_TRUE(ci[0] < 104.475 * 1.36e-3 && ci[1] > 198.525 * 1.36e-3);
    /* resamples 1 .. 1e291 updates apart: widened, an end leaves the doubles: no interval, not
     * 0 to inf (campaign 27's X9) */
    for (size_t i = 0; i < 100; i++)
        boot[i].n_inf = pow(10, 2.94 * (double)i);
    CU_ASSERT_EQUAL(mb_solver_tc_interval(boot, 100, 3, &t, 32, 1, ci), 100);
    CU_ASSERT_TRUE(isnan(ci[0]) && isnan(ci[1]));
}

/* Sequential sampling with settings whose true medians are `scale`: each round adds one draw
 * to every setting that wants one, until nothing does; returns the state at the end. */
static void sample_until(const double scale[3], double noise, size_t max_seeds, mb_validate *v,
                         mb_sequential *q, size_t *rounds)
{
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, 7);
    make_validate(v, 3);
    const double ms[3] = {16, 32, 64};
    for (size_t k = 0; k < 3; k++) {
        double t[5];
        for (size_t s = 0; s < 5; s++)
            t[s] = scale[k] * (1 + gsl_ran_gaussian(g, noise));
        set_row(&v->rows[k], ms[k], t, 5);
    }
    mb_error e = {0};
    for (*rounds = 0; *rounds < 100; ++*rounds) {
        CU_ASSERT_EQUAL_FATAL(mb_solver_sequential(v, 1, 0.02, 1, 1000, max_seeds, q, &e), MB_OK);
        if (q->n_want == 0)
            break;
        for (size_t k = 0; k < q->n_want; k++)
            add_run(&v->rows[q->want[k]], scale[q->want[k]] *
                                              (1 + gsl_ran_gaussian(g, noise)));
    }
    gsl_rng_free(g);
}

/* Three runs a setting, and the leader's three happen to agree (0.70-0.72 s): their percentile
 * interval is no wider than that, and alone it would call M = 32 decided against M = 64. The
 * spread pooled over the settings (0.19 in log time) widens every interval to the median's, so
 * M = 64 still contends; with M = 64 60% behind, it does not. */
static void test_sequential_pooled(void)
{
    const double t16[3] = {1.3, 1.7, 2.2}, t32[3] = {0.70, 0.71, 0.72}, t64[3] = {0.85, 1.0, 1.25},
                 far64[3] = {1.5, 1.6, 1.7};
    for (int far = 0; far <= 1; far++) {
        mb_validate v;
        make_validate(&v, 3);
        set_row(&v.rows[0], 16, t16, 3);
        set_row(&v.rows[1], 32, t32, 3);
        set_row(&v.rows[2], 64, far ? far64 : t64, 3);
        mb_sequential q;
        mb_error e = {0};
        CU_ASSERT_EQUAL_FATAL(mb_solver_sequential(&v, 1, 0.02, 1, 1000, 10, &q, &e), MB_OK);
        CU_ASSERT_EQUAL(q.leader, 1);
        if (!far) {
            CU_ASSERT_TRUE(fabs(q.pooled_sd - 0.189) < 0.005);
            CU_ASSERT_FALSE(q.decided);
            CU_ASSERT_EQUAL(q.n_overlap, 1);
            CU_ASSERT_EQUAL(q.overlap[0], 2);
            CU_ASSERT_EQUAL(q.n_want, 2);
        } else {
            CU_ASSERT_TRUE(q.decided);
            CU_ASSERT_EQUAL(q.n_want, 0);
        }
        mb_validate_free(&v);
    }
}

/* Five settings whose wide spreads all overlap the leader's: the round's seeds go to the leader
 * and its two nearest rivals by median (48 and 64), not to all five. */
static void test_sequential_focus(void)
{
    const double ms[5] = {16, 32, 48, 64, 128}, med[5] = {1.2, 1.0, 1.05, 1.1, 1.3};
    mb_validate v;
    make_validate(&v, 5);
    for (size_t k = 0; k < 5; k++) {
        const double t[3] = {0.6 * med[k], med[k], 1.6 * med[k]};
        set_row(&v.rows[k], ms[k], t, 3);
    }
    mb_sequential q;
    mb_error e = {0};
    CU_ASSERT_EQUAL_FATAL(mb_solver_sequential(&v, 1, 0.02, 1, 1000, 10, &q, &e), MB_OK);
    CU_ASSERT_EQUAL(q.leader, 1);
    CU_ASSERT_EQUAL(q.n_overlap, 4);
    CU_ASSERT_EQUAL_FATAL(q.n_want, 3);
    CU_ASSERT_EQUAL(q.want[0], 1);
    CU_ASSERT_EQUAL(q.want[1], 2);
    CU_ASSERT_EQUAL(q.want[2], 3);
    mb_validate_free(&v);
}

/* Row r at M = m with runs of seeds 0..n-1 taking t[k] s, as validate leaves a row whose logs
 * give updates by seed (1 ms an update under the model: n_seed beside the steady times). */
static void seeded_row(mb_validate_row *r, double m, const double *t, size_t n)
{
    set_row(r, m, t, n);
    r->t_update_pred = 1e-3;
    r->s_runs = malloc(n * sizeof *r->s_runs);
    r->seed = malloc(3 * n * sizeof *r->seed);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->s_runs);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->seed);
    r->t_seed = r->seed + n;
    r->n_seed = r->seed + 2 * n;
    for (size_t k = 0; k < n; k++) {
        r->seed[k] = (double)k;
        r->t_seed[k] = r->s_runs[k] = t[k];
        r->n_seed[k] = t[k] / r->t_update_pred;
    }
    gsl_sort(r->s_runs, 1, n);
    r->s_median = r->t_median;
}

/* Seeds whose luck moves every M alike (0.75x .. 1.3x): M = 64 takes 8% longer than M = 32 on
 * every one of six shared seeds (within 1%). Their medians' intervals overlap, so without the
 * seeds known M = 64 contends; judged seed by seed it is decided. Differences that straddle 0
 * (+-5%) contend; three shared seeds (fewer than MB_SEQUENTIAL_PAIRED_MIN) leave the medians to
 * judge. */
static void test_sequential_paired(void)
{
    const double luck[6] = {0.75, 0.9, 1.0, 1.1, 1.3, 0.85}, wobble[6] = {1.01, 0.99, 1.0, 1.01,
                                                                           0.99, 1.0};
    for (int c = 0; c < 4; c++) {
        double t32[6], t64[6];
        for (size_t k = 0; k < 6; k++) {
            t32[k] = luck[k];
            t64[k] = luck[k] * (c == 2 ? (k % 2 ? 0.95 : 1.05) : 1.08 * wobble[k]);
        }
        const size_t n = c == 3 ? 3 : 6;
        mb_validate v;
        make_validate(&v, 2);
        if (c == 0) {
            set_row(&v.rows[0], 32, t32, n);
            set_row(&v.rows[1], 64, t64, n);
        } else {
            seeded_row(&v.rows[0], 32, t32, n);
            seeded_row(&v.rows[1], 64, t64, n);
        }
        mb_sequential q;
        mb_error e = {0};
        CU_ASSERT_EQUAL_FATAL(mb_solver_sequential(&v, 1, 0.02, 1, 1000, 14, &q, &e), MB_OK);
        CU_ASSERT_EQUAL(q.leader, 0);
        CU_ASSERT_EQUAL(q.n_paired, c == 1 || c == 2);
        CU_ASSERT_EQUAL(q.decided, c == 1);
        CU_ASSERT_EQUAL(q.n_overlap, c == 1 ? 0 : 1);
        if (c == 1)
            CU_ASSERT_TRUE(q.paired_sd > 0.005 && q.paired_sd < 0.02);
        mb_validate_free(&v);
    }
}

/* The leader's untrained neighbours: on a sweep of 16, 32, 64 a leader at 32 has none at 48
 * or 21; a bound drops 48; trained rows within 10% (or none at all) leave nothing to fill. */
static void test_sequential_fill(void)
{
    const double t[3] = {1, 1, 1};
    mb_validate v;
    make_validate(&v, 4);
    set_row(&v.rows[0], 16, t, 3);
    set_row(&v.rows[1], 32, t, 3);
    set_row(&v.rows[2], 64, t, 3);
    set_row(&v.rows[3], 50, t, 3);
    v.rows[3].lr = 0.1; /* another rate's run near 48: not a neighbour of this leader's */
    double fill[2];
    CU_ASSERT_EQUAL_FATAL(mb_solver_fill(&v, 1, NAN, NAN, fill), 2);
    CU_ASSERT_DOUBLE_EQUAL(fill[0], 48, 0);
    CU_ASSERT_DOUBLE_EQUAL(fill[1], 21, 0);
    CU_ASSERT_EQUAL_FATAL(mb_solver_fill(&v, 1, 16, 40, fill), 1);
    CU_ASSERT_DOUBLE_EQUAL(fill[0], 21, 0);
    v.rows[3].lr = 0.02; /* now M = 50 is within 10% of 48 */
    v.rows[0].batch = 22; /* and M = 22 of 21 */
    CU_ASSERT_EQUAL(mb_solver_fill(&v, 1, NAN, NAN, fill), 0);
    CU_ASSERT_EQUAL(mb_solver_fill(&v, -1, NAN, NAN, fill), 0);
    mb_validate_free(&v);
}

static void test_sequential(void)
{
    mb_validate v;
    mb_sequential q;
    size_t rounds;
    /* a known winner 8% ahead of a close rival, 10% noise a run: seeds go to the two, the
     * far setting (1.5x) one at most while the leader's interval is wide, and it ends decided
     * for the winner before the cap */
    sample_until((const double[]){1.5, 1.0, 1.08}, 0.10, 40, &v, &q, &rounds);
    CU_ASSERT_TRUE(q.decided);
    CU_ASSERT_FALSE(q.capped);
    CU_ASSERT_EQUAL(q.leader, 1);
    CU_ASSERT_TRUE(v.rows[0].runs <= 6);
    CU_ASSERT_TRUE(v.rows[1].runs > 5 && v.rows[1].runs < 40);
    CU_ASSERT_EQUAL(v.rows[1].runs, v.rows[2].runs);
    mb_validate_free(&v);
    /* a known tie: it never decides, and stops at the cap of 12 runs each */
    sample_until((const double[]){1.5, 1.0, 1.0}, 0.10, 12, &v, &q, &rounds);
    CU_ASSERT_FALSE(q.decided);
    CU_ASSERT_TRUE(q.capped);
    CU_ASSERT_EQUAL(q.n_overlap, 1);
    CU_ASSERT_EQUAL(v.rows[1].runs, 12);
    CU_ASSERT_EQUAL(v.rows[2].runs, 12);
    CU_ASSERT_TRUE(v.rows[0].runs <= 6);
    CU_ASSERT_EQUAL(rounds, 7);
    mb_validate_free(&v);
    /* a clear winner from the start: decided at once, no seed spent */
    sample_until((const double[]){2.0, 1.0, 1.6}, 0.03, 12, &v, &q, &rounds);
    CU_ASSERT_TRUE(q.decided);
    CU_ASSERT_EQUAL(rounds, 0);
    mb_validate_free(&v);
}

/* A grid sweep's predicted cost: seeds x the sum of T_C = (N_inf + a / M) (gamma M + t0) over
 * the grid's M, each M's T_C too. */
static void test_grid_cost(void)
{
    const mb_law law = {.kind = MB_LAW_INVERSE, .n_inf = 800, .a = 6000, .b = 1};
    const mb_update_time t = {.gamma = 2e-5, .m_t = 1e-9, .t0 = 4e-4, .comm = MB_COMM_NONE};
    const double m[3] = {8, 64, 512};
    double per[3], total;
    mb_error e = {0};
    size_t never;
    size_t capped;
    double ctot;
    CU_ASSERT_EQUAL_FATAL(mb_solver_grid_cost(&law, &t, 1, m, 3, 5, 0, per, &total, &ctot,
                                              &never, &capped, &e), MB_OK);
    double want = 0;
    for (size_t k = 0; k < 3; k++) {
        double tc = (800 + 6000 / m[k]) * (2e-5 * m[k] + 4e-4);
        CU_ASSERT_TRUE(mb_test_close(per[k], tc, 1e-9));
        want += 5 * tc;
    }
    CU_ASSERT_TRUE(mb_test_close(total, want, 1e-9));
    CU_ASSERT_EQUAL(never, 0);
    /* a shifted law's pole at 18: M = 8 never reaches the target, left out and counted (the
     * calibrated mlp's make run failed on it) */
    const mb_law sh = {.kind = MB_LAW_SHIFTED, .n_inf = 800, .a = 6000, .b = 1, .m0 = 18};
    CU_ASSERT_EQUAL_FATAL(mb_solver_grid_cost(&sh, &t, 1, m, 3, 5, 0, per, &total, &ctot,
                                              &never, &capped, &e), MB_OK);
    CU_ASSERT_EQUAL(never, 1);
    CU_ASSERT_EQUAL(capped, 0);
    CU_ASSERT_TRUE(isnan(per[0]));
    want = 0;
    for (size_t k = 1; k < 3; k++)
        want += 5 * (800 + 6000 / (m[k] - 18)) * (2e-5 * m[k] + 4e-4);
    CU_ASSERT_TRUE(mb_test_close(total, want, 1e-9));
    /* make run's time cap (5 x the least T_C, at M = 64): M = 8 never reaches, so it costs one
     * run stopped at the cap; 512 is above the fastest M, never capped */
    CU_ASSERT_EQUAL_FATAL(mb_solver_grid_cost(&sh, &t, 1, m, 3, 5, 5, per, &total, &ctot,
                                              &never, &capped, &e), MB_OK);
    CU_ASSERT_FATAL(per[1] < per[2]);
    CU_ASSERT_EQUAL(capped, 1);
    CU_ASSERT_TRUE(mb_test_close(total, want, 1e-9)); /* the uncapped sweep: as before */
    CU_ASSERT_TRUE(mb_test_close(ctot, want + 5 * per[1], 1e-9));
    /* a cap so tight that the slowest M below the fastest is stopped too */
    const double m4[4] = {19, 20, 64, 512};
    double per4[4];
    CU_ASSERT_EQUAL_FATAL(mb_solver_grid_cost(&sh, &t, 1, m4, 4, 5, 1.5, per4, &total, &ctot,
                                              &never, &capped, &e), MB_OK);
    CU_ASSERT_TRUE(per4[0] > 1.5 * per4[2] && per4[1] > 1.5 * per4[2]);
    CU_ASSERT_EQUAL(never, 0);
    CU_ASSERT_EQUAL(capped, 2);
    CU_ASSERT_TRUE(mb_test_close(ctot, 2 * 1.5 * per4[2] + 5 * (per4[2] + per4[3]), 1e-9));
}

/* The flat range of T_C = (N_inf + a / M) (gamma M + t0): N_inf gamma M + a t0 / M stays
 * within 1.05 t_best less the constant terms, a quadratic in M with known roots. */
static void test_flat_range(void)
{
    const mb_law law = {.kind = MB_LAW_INVERSE, .n_inf = 800, .a = 6000, .b = 1};
    const mb_update_time t = {.gamma = 2e-5, .m_t = 1e-9, .t0 = 4e-4, .comm = MB_COMM_NONE};
    const double n = 800, a = 6000, g = 2e-5, t0 = 4e-4;
    const double m_opt = sqrt(a * t0 / (n * g));
    const double best = n * g * m_opt + n * t0 + a * g + a * t0 / m_opt;
    double r[2];
    mb_error e = {0};
    CU_ASSERT_EQUAL_FATAL(mb_solver_flat_range(&law, &t, 1, 1, 10000, best, 0.05, r, &e), MB_OK);
    const double c = 1.05 * best - n * t0 - a * g, d = sqrt(c * c - 4 * n * g * a * t0);
    CU_ASSERT_TRUE(mb_test_close(r[0], (c - d) / (2 * n * g), 2e-3));
    CU_ASSERT_TRUE(mb_test_close(r[1], (c + d) / (2 * n * g), 2e-3));
    CU_ASSERT_TRUE(r[0] < m_opt && m_opt < r[1]);
    /* a range that cuts the flat region: its ends */
    CU_ASSERT_EQUAL(mb_solver_flat_range(&law, &t, 1, m_opt, m_opt * 1.1, best, 0.05, r, &e),
                    MB_OK);
    CU_ASSERT_TRUE(mb_test_close(r[0], m_opt, 1e-12));
    CU_ASSERT_TRUE(mb_test_close(r[1], m_opt * 1.1, 1e-12));
    /* a t_best nothing reaches */
    CU_ASSERT_EQUAL(mb_solver_flat_range(&law, &t, 1, 1, 1e4, best / 2, 0.05, r, &e), MB_EDOM);
}

/* The largest M of `plan` (tokens M,lr,seed), 0 when it holds none. */
static double plan_max_m(const char *plan)
{
    double hi = 0, m;
    for (const char *p = plan; p && sscanf(p, "%lf,", &m) == 1; p = strchr(p + 1, ' '))
        hi = fmax(hi, m);
    return hi;
}

/* Run logs in dir of `law` and `t` at the n M of ms, seeds 0 .. n_seeds-1, each seed's count
 * of updates off the law's by `luck` x (seed - mid): the law's crossings, as mbtrain logs them. */
static void law_logs(const char *dir, const mb_law *law, const mb_update_time *t,
                     const double *ms, size_t n, int n_seeds, double luck)
{
    for (size_t i = 0; i < n; i++)
        for (int seed = 0; seed < n_seeds; seed++) {
            double nu, tu;
            mb_model_law_nupdate(law, ms[i], &nu, NULL);
            mb_model_tupdate(t, ms[i], 1, &tu);
            mb_test_write_run_log(dir, "lenet5", 0.5, (int)ms[i], seed,
                                  (long)(nu * (1 + luck * (seed - (n_seeds - 1) / 2))), tu, 0);
        }
}

/* An answer held at the runs' largest M (their converged range ends at 32, the law's optimum is
 * near 63): the held-out sweep looks past it, or it could only ever find the answer the best
 * (the GPU's calibration at 16..128 did, "The third lending"); a --batch-range the user gives
 * still bounds it. */
static void test_mbopt_holdout_edge(void)
{
    char dir[256];
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(dir, sizeof dir), 0);
    const mb_law law = {.kind = MB_LAW_INVERSE, .n_inf = 300, .a = 9000, .b = 1};
    const mb_update_time t = {.gamma = 3e-5, .m_t = 1, .t0 = 4e-3, .comm = MB_COMM_NONE};
    char in[300], cmd[1024];
    snprintf(in, sizeof in, "%s/in", dir);
    mb_test_run r;
    CU_ASSERT_TRUE_FATAL(mb_test_sh_ok(&r, "mkdir -p %s", in));
    mb_test_run_free(&r);
    const double ms[] = {8, 16, 24, 32}, k = 33554432;
    law_logs(in, &law, &t, ms, 4, 3, 0.03);
    snprintf(cmd, sizeof cmd, "cd %s && mbfit nupdate --target-loss 0.5 in/*.csv --json -o "
             "n.json 2>/dev/null && mbopt validate --nfit n.json --gamma 3e-5 --m-t 1 --t0 4e-3 "
             "--comm none --holdout-plan 3 in", dir);
    CU_ASSERT_TRUE_FATAL(mb_test_sh_ok(&r, "%s", cmd));
    CU_ASSERT_TRUE(strncmp(r.out, "32,", 3) == 0); /* the answer: the range's end */
    CU_ASSERT_DOUBLE_EQUAL(plan_max_m(r.out), 39, 0); /* 32 x 1.22, past the range's end */
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, " 26,")); /* 32 / 1.22 */
    mb_test_run_free(&r);
    CU_ASSERT_TRUE_FATAL(mb_test_sh_ok(&r, "%s --batch-range 8:32", cmd));
    CU_ASSERT_DOUBLE_EQUAL(plan_max_m(r.out), 32, 0);
    mb_test_run_free(&r);
    /* the same job at M x 2^25 (its answer held at 2^30): the plan holds no M mbtrain refuses
     * (--batch: at most 2^30), each written whole (campaign 26's W2: 1.61061e+09) */
    const mb_law big = {.kind = MB_LAW_INVERSE, .n_inf = 300, .a = 9000 * k, .b = 1};
    const mb_update_time tb = {.gamma = 3e-5 / k, .m_t = 1, .t0 = 4e-3, .comm = MB_COMM_NONE};
    CU_ASSERT_TRUE_FATAL(mb_test_sh_ok(&r, "mkdir -p %s/big", dir));
    mb_test_run_free(&r);
    snprintf(in, sizeof in, "%s/big", dir);
    const double mk[] = {8 * k, 16 * k, 24 * k, 32 * k};
    law_logs(in, &big, &tb, mk, 4, 3, 0.03);
    CU_ASSERT_TRUE_FATAL(mb_test_sh_ok(&r, "cd %s && mbfit nupdate --target-loss 0.5 big/*.csv "
                                       "--json -o nb.json 2>/dev/null && mbopt validate --nfit "
                                       "nb.json --gamma 8.94069672e-13 --m-t 1 --t0 4e-3 --comm "
                                       "none --holdout-plan 3 big", dir));
    CU_ASSERT_TRUE(strncmp(r.out, "1073741824,", 11) == 0);
    CU_ASSERT_DOUBLE_EQUAL(plan_max_m(r.out), 1073741824, 0);
    CU_ASSERT_PTR_NULL(strchr(r.out, 'e'));
    mb_test_run_free(&r);
}

/* mbopt validate's held-out modes on synthetic logs: a plan of fresh seeds, a check on runs of
 * those seeds, and a held-out log that reuses an in-sample seed refused. */
static void test_mbopt_holdout(void)
{
    char dir[256];
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(dir, sizeof dir), 0);
    const mb_law law = {.kind = MB_LAW_INVERSE, .n_inf = 300, .a = 9000, .b = 1};
    const mb_update_time t = {.gamma = 3e-5, .m_t = 1, .t0 = 4e-4, .comm = MB_COMM_NONE};
    char in[300], out[300], none[300], cmd[2048];
    snprintf(in, sizeof in, "%s/in", dir);
    snprintf(out, sizeof out, "%s/held", dir);
    snprintf(none, sizeof none, "%s/heldnone", dir);
    mb_test_run r;
    CU_ASSERT_TRUE_FATAL(mb_test_sh_ok(&r, "mkdir -p %s %s %s", in, out, none));
    mb_test_run_free(&r);
    const double ms[] = {8, 16, 24, 32, 48, 64, 96, 128};
    law_logs(in, &law, &t, ms, 8, 5, 0.04);
    snprintf(cmd, sizeof cmd, "cd %s && mbfit nupdate --target-loss 0.5 in/*.csv --json -o "
             "n.json 2>/dev/null && mbopt validate --nfit n.json --gamma 3e-5 --m-t 1 --t0 4e-4 "
             "--comm none", dir);
    CU_ASSERT_TRUE_FATAL(mb_test_sh_ok(&r, "%s --holdout-plan 4 in", cmd));
    /* tokens M,lr,seed; the seeds 1000..1003; M = the recommendation first */
    double m0, lr0;
    unsigned long s0;
    CU_ASSERT_EQUAL_FATAL(sscanf(r.out, "%lf,%lf,%lu", &m0, &lr0, &s0), 3);
    CU_ASSERT_DOUBLE_EQUAL(lr0, 0.02, 1e-12);
    CU_ASSERT_EQUAL(s0, 1000);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, ",1003"));
    CU_ASSERT_PTR_NULL(strstr(r.out, ",1004"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "held out at P = 1"));
    /* train the plan (synthetic: the law's crossings, 2% noise by seed) */
    char *tok = strtok(r.out, " \n");
    size_t n_tok = 0;
    while (tok) {
        double m, lr;
        unsigned long s;
        CU_ASSERT_EQUAL_FATAL(sscanf(tok, "%lf,%lf,%lu", &m, &lr, &s), 3);
        double nu, tu;
        mb_model_law_nupdate(&law, m, &nu, NULL);
        mb_model_tupdate(&t, m, 1, &tu);
        mb_test_write_run_log(out, "lenet5", 0.5, (int)m, (int)s,
                              (long)(nu * (1 + 0.02 * ((double)s - 1001.5))), tu, 0);
        /* the same, but the recommendation's runs diverge but one's: nothing to grade it by */
        mb_test_write_run_log(none, "lenet5", 0.5, (int)m, (int)s,
                              (long)(nu * (1 + 0.02 * ((double)s - 1001.5))), tu,
                              m == m0 && s != s0);
        n_tok++;
        tok = strtok(NULL, " \n");
    }
    CU_ASSERT_TRUE(n_tok >= 12 && n_tok % 4 == 0);
    mb_test_run_free(&r);
    CU_ASSERT_TRUE_FATAL(mb_test_sh_ok(&r, "%s --holdout held in", cmd));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\nin-sample: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\nsampling: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\ncheck: held out (4 fresh seeds a setting"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "# recommended"));
    mb_test_run_free(&r);
    CU_ASSERT_TRUE_FATAL(mb_test_sh_ok(&r, "%s --holdout held in --json", cmd));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"holdout\":"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"rival_ratio_lo\":"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"in_sample_ratio\":"));
    mb_test_run_free(&r);
    /* mbplot holds validate.json's verdict to the sentence it composes from the held-out object,
     * whole, as mbopt composes it (plots/holdout.c against solver/mbopt_holdout.c): the two
     * must agree on what mbopt writes, or every report would be refused */
    CU_ASSERT_TRUE(mb_test_sh_ok(&r, "%s --holdout held in --json -o hv.json && mbplot validate "
                                 "hv.json -o hv.svg", cmd));
    if (r.status != 0)
        printf("\n    %s\n", r.err);
    mb_test_run_free(&r);
    /* campaign 39's B-F1: with nothing to grade by, the ratios and their intervals are null,
     * as mbplot reads "none" (a finite ratio_lo made it refuse make run's own file) */
    CU_ASSERT_TRUE(mb_test_sh_ok(&r, "%s --holdout heldnone in --json -o hn.json && grep -q "
                                 "'\"verdict\":[[:space:]]*\"none\"' hn.json && mbplot validate "
                                 "hn.json -o hn.svg", cmd));
    if (r.status != 0)
        printf("\n    %s\n", r.err);
    mb_test_run_free(&r);
    /* fitted with resamples of seeds: every held-out row has T_C's interval over them, and the
     * check counts the held-out medians inside (the in-sample seeds' luck is +-8% here, the
     * held-out seeds' +-3%: some are inside) */
    char cmdb[2048];
    snprintf(cmdb, sizeof cmdb, "cd %s && mbfit nupdate --target-loss 0.5 --bootstrap 100 "
             "in/*.csv --json -o nb.json 2>/dev/null && mbopt validate --nfit nb.json --gamma "
             "3e-5 --m-t 1 --t0 4e-4 --comm none --holdout held in", dir);
    CU_ASSERT_TRUE_FATAL(mb_test_sh_ok(&r, "%s", cmdb));
    const char *lv = strstr(r.out, "the prediction's 95% interval over resamples of the "
                                   "in-sample seeds holds the held-out median at ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(lv);
    size_t in_iv, graded;
    CU_ASSERT_EQUAL(sscanf(lv + strlen("the prediction's 95% interval over resamples of the "
                                       "in-sample seeds holds the held-out median at "),
                           "%zu of %zu", &in_iv, &graded), 2);
    CU_ASSERT_EQUAL(graded, n_tok / 4);
    CU_ASSERT(in_iv >= 1 && in_iv <= graded);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "T_C_pred_95%_s"));
    mb_test_run_free(&r);
    CU_ASSERT_TRUE(mb_test_sh_ok(&r, "%s --json -o hb.json && mbplot validate hb.json -o hb.svg",
                                 cmdb));
    if (r.status != 0)
        printf("\n    %s\n", r.err);
    mb_test_run_free(&r);
    /* make zoo's table reads this check line (ZOO_TABLE_ONLY: from outputs already there) */
    char zp[600];
    /* the logs as mbtrain writes them, with their data set (campaign 45's B-F3) */
    CU_ASSERT_TRUE_FATAL(mb_test_sh_ok(&r, "mkdir -p %s/zoo/w/runs/lr0.02 && cp %s/in/*.csv "
                                           "%s/zoo/w/runs/lr0.02/ && sed -i '/^# net=/a # "
                                           "data=fashion-mnist' %s/zoo/w/runs/lr0.02/*.csv", dir,
                                       dir, dir, dir));
    mb_test_run_free(&r);
    CU_ASSERT_TRUE_FATAL(mb_test_sh_ok(&r, "%s > %s/zoo/w/validate.txt", cmdb, dir));
    mb_test_run_free(&r);
    mb_test_write(zp, sizeof zp, dir, "zoo/w/scale.txt",
                  "flat:           M = 20..34 at P = 1 is predicted within 5% of its best T_C\n");
    mb_test_write(zp, sizeof zp, dir, "zoo/w.log", "total: 5 s\n");
    mb_test_write(zp, sizeof zp, dir, "zoo.txt", "w lenet5 fashion-mnist 0.02 0.5\n");
    CU_ASSERT_TRUE_FATAL(mb_test_sh_ok(&r, "ZOO=%s/zoo.txt ZOO_OUT=%s/zoo ZOO_TABLE_ONLY=1 bash "
                                           "%s/tests/bench/zoo.sh && cat %s/zoo/zoo.md", dir, dir,
                                       MB_TEST_SRC, dir));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "| w | lenet5 | 0.02 | 0.5 | "));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, " over the held-out seeds; N_update "));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, " | 20..34 (P = 1) | ")); /* the columns in place */
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, " 5 s |"));
    mb_test_run_free(&r);
    /* campaign 43's B-F7: a zoo line of another lr, target or net than the workload's outputs
     * (runs/lr0.02, validate.txt's target loss 0.5, logs of lenet5) is refused, naming the line */
    static const struct {
        const char *line, *needle;
    } other[] = {
        {"w lenet5 fashion-mnist 0.05 0.5\n", "/zoo/w was trained at lr 0.02 ("},
        {"w lenet5 fashion-mnist 0.020 0.3\n", "/zoo/w was checked at target loss 0.5 ("},
        {"w mlp fashion-mnist 0.02 0.5\n", "/zoo/w/runs/lr0.02) are of net lenet5, not mlp"},
        /* campaign 45 B: the logs' data set (F3), and a .cfg NET held by its [net] name (F4) */
        {"w lenet5 mnist 0.02 0.5\n", "/zoo/w/runs/lr0.02) are of data fashion-mnist, not mnist"},
        {"w data/nets/mlp.cfg fashion-mnist 0.02 0.5\n",
         "are of net lenet5, not data/nets/mlp.cfg (its [net] name mlp)"},
    };
    for (size_t k = 0; k < sizeof other / sizeof other[0]; k++) {
        mb_test_write(zp, sizeof zp, dir, "zoo.txt", other[k].line);
        CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "ZOO=%s/zoo.txt ZOO_OUT=%s/zoo ZOO_TABLE_ONLY=1 bash "
                                             "%s/tests/bench/zoo.sh", dir, dir, MB_TEST_SRC), 0);
        CU_ASSERT_EQUAL(r.status, 1);
        CU_ASSERT_EQUAL(mb_test_lines(r.err), 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "zoo.txt:1: w: "));
        CU_ASSERT_PTR_NOT_NULL(strstr(r.err, other[k].needle));
        mb_test_run_free(&r);
    }
    /* campaign 45's B-F4: a NET given as a .cfg path (make run takes one) is tabled */
    mb_test_write(zp, sizeof zp, dir, "zoo.txt", "w data/nets/lenet5.cfg fashion-mnist 0.02 0.5\n");
    CU_ASSERT_TRUE(mb_test_sh_ok(&r, "ZOO=%s/zoo.txt ZOO_OUT=%s/zoo ZOO_TABLE_ONLY=1 bash "
                                     "%s/tests/bench/zoo.sh", dir, dir, MB_TEST_SRC));
    mb_test_run_free(&r);
    mb_test_write(zp, sizeof zp, dir, "zoo.txt", "w lenet5 fashion-mnist 0.02 0.5\n");
    /* campaign 42's B-F9: a zoo.md link is written through (kept), and a new table has the
     * umask's mode, not mktemp's 0600 */
    CU_ASSERT_TRUE_FATAL(mb_test_sh_ok(&r, "rm -f %s/zoo/zoo.md && ln -s ../keep.md %s/zoo/zoo.md "
                                           "&& (umask 022 && ZOO=%s/zoo.txt ZOO_OUT=%s/zoo "
                                           "ZOO_TABLE_ONLY=1 bash %s/tests/bench/zoo.sh "
                                           ">/dev/null) && test -L %s/zoo/zoo.md && grep -c '^| "
                                           "w ' %s/keep.md && stat -c 'mode %%a' %s/keep.md && "
                                           "rm %s/zoo/zoo.md && mv %s/keep.md %s/zoo/zoo.md", dir,
                                       dir, dir, dir, MB_TEST_SRC, dir, dir, dir, dir, dir, dir));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "1\nmode 644\n"));
    mb_test_run_free(&r);
    /* campaign 39's B-F9: a workload run by hand without scale.txt or NAME.log: one note a
     * file and a '-' cell, no sed errors; B-F10: a figure of the check line that is no number
     * (nan) is refused, not copied */
    CU_ASSERT_TRUE_FATAL(mb_test_sh_ok(&r, "rm %s/zoo/w/scale.txt %s/zoo/w.log && ZOO=%s/zoo.txt "
                                           "ZOO_OUT=%s/zoo ZOO_TABLE_ONLY=1 bash %s/tests/bench/"
                                           "zoo.sh", dir, dir, dir, dir, MB_TEST_SRC));
    CU_ASSERT_EQUAL(mb_test_lines(r.err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "make zoo: w: note: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "/zoo/w/scale.txt is missing (the table's 'flat, "
                                         "predicted' cell is -)"));
    CU_ASSERT_PTR_NULL(strstr(r.err, "sed:"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, " | - | "));
    mb_test_run_free(&r);
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "sed -i 's/(median), [0-9.]*x the best/(median), nanx "
                                         "the best/' %s/zoo/w/validate.txt && ZOO=%s/zoo.txt "
                                         "ZOO_OUT=%s/zoo ZOO_TABLE_ONLY=1 bash %s/tests/bench/"
                                         "zoo.sh 2>&1 >/dev/null | grep -v 'note: '; grep -c nanx "
                                         "%s/zoo/zoo.md", dir, dir, dir, MB_TEST_SRC, dir), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "/zoo/w/validate.txt: the held-out check line's figure "
                                         "'nan' is not a number"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\n0\n")); /* the old table left as it was */
    mb_test_run_free(&r);
    CU_ASSERT_TRUE_FATAL(mb_test_sh_ok(&r, "%s --json", cmdb));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"pred_interval_graded\":"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"t_pred_lo_s\":"));
    mb_test_run_free(&r);
    /* without held-out runs the check says it is none */
    CU_ASSERT_TRUE_FATAL(mb_test_sh_ok(&r, "%s in", cmd));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\ncheck: not held out"));
    mb_test_run_free(&r);
    /* a held-out log that reuses a seed of the runs that chose: refused, naming it */
    mb_test_write_run_log(out, "lenet5", 0.5, 32, 3, 500, 1e-3, 0);
    CU_ASSERT_TRUE(mb_test_sh(&r, "%s --holdout held in", cmd) == 0);
    CU_ASSERT_EQUAL(r.status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "lenet5-b32-s3.csv: seed 3 also trained"));
    CU_ASSERT_EQUAL(mb_test_lines(r.err), 1);
    CU_ASSERT_EQUAL(r.out[0], '\0');
    mb_test_run_free(&r);
    /* bad counts of seeds: one line, exit 1; two modes at once: a usage error */
    CU_ASSERT_TRUE(mb_test_sh(&r, "%s --holdout-plan 0 in", cmd) == 0);
    CU_ASSERT_EQUAL(r.status, 1);
    CU_ASSERT_EQUAL(mb_test_lines(r.err), 1);
    mb_test_run_free(&r);
    CU_ASSERT_TRUE(mb_test_sh(&r, "%s --max-seeds 2.5 in", cmd) == 0);
    CU_ASSERT_EQUAL(r.status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "--max-seeds: a whole number of seeds"));
    mb_test_run_free(&r);
    CU_ASSERT_TRUE(mb_test_sh(&r, "%s --holdout-plan 4 --more-seeds in", cmd) == 0);
    CU_ASSERT_EQUAL(r.status, 2);
    mb_test_run_free(&r);
    /* campaign 34's R4: runs on seeds 997-999 (every M, 5% apart by seed): the next seed is
     * not 1000, the held-out seeds' first, but the least one below them the setting has not
     * used */
    char late[300];
    snprintf(late, sizeof late, "%s/late", dir);
    CU_ASSERT_TRUE_FATAL(mb_test_sh_ok(&r, "mkdir -p %s", late));
    mb_test_run_free(&r);
    for (size_t k = 0; k < 8; k++)
        for (int seed = 997; seed < 1000; seed++) {
            double nu, tu;
            mb_model_law_nupdate(&law, ms[k], &nu, NULL);
            mb_model_tupdate(&t, ms[k], 1, &tu);
            mb_test_write_run_log(late, "lenet5", 0.5, (int)ms[k], seed,
                                  (long)(nu * (1 + 0.05 * (seed - 998))), tu, 0);
        }
    CU_ASSERT_TRUE_FATAL(mb_test_sh_ok(&r, "cd %s && mbfit nupdate --target-loss 0.5 late/*.csv "
                                           "--json -o late.json 2>/dev/null && mbopt validate "
                                           "--nfit late.json --gamma 3e-5 --m-t 1 --t0 4e-4 "
                                           "--comm none --more-seeds late", dir));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, ",0"));
    CU_ASSERT_PTR_NULL(strstr(r.out, ",1000"));
    mb_test_run_free(&r);
    mb_test_rmdir(dir);
}

/* make zoo's bad input: a bad line stops it before anything trains, a network that does not fit
 * its data stops it at the probe with one line naming the zoo line; no table either way. */
/* make run's calibration, bad input: a final target not below the calibration's stops before
 * anything runs; a budget that trains one M stops the sweep with one line, no .done. */
static void test_calibration_bad_input(void)
{
    char dir[256];
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(dir, sizeof dir), 0);
    mb_test_run r;
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "make -s run %s OUT=%s/a FINAL_LOSS=0.6 TARGET_LOSS=0.5",
                                     MB_TEST_MAKE_ARGS, dir), 0);
    CU_ASSERT_EQUAL(r.status, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "FINAL_LOSS=0.6 is not a loss below TARGET_LOSS=0.5"));
    mb_test_run_free(&r);
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "make -s run %s OUT=%s/a FINAL_LOSS=x", MB_TEST_MAKE_ARGS,
                                     dir), 0);
    CU_ASSERT_EQUAL(r.status, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "FINAL_LOSS=x is not a loss"));
    mb_test_run_free(&r);
    /* the calibration's knobs are checked before any stage runs */
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "make -s run %s OUT=%s/a FINAL_LOSS=0.4 CAL_BUDGET=abc",
                                     MB_TEST_MAKE_ARGS,
                                     dir), 0);
    CU_ASSERT_EQUAL(r.status, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "CAL_BUDGET=abc: not a number of seconds"));
    mb_test_run_free(&r);
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "make -s run %s OUT=%s/a FINAL_LOSS=0.4 "
                                         "'CAL_BATCHES=16 16 32'",
                                     MB_TEST_MAKE_ARGS, dir), 0);
    CU_ASSERT_EQUAL(r.status, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "CAL_BATCHES=16 16 32: 16 given twice"));
    mb_test_run_free(&r);
    /* one run spends the budget of 0.01 s: one M, and the law across M needs two */
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "make -s %s OUT=%s/b %s/b/runs/.done CAL_BUDGET=0.01 "
                                         "FINAL_LOSS=0.4 'CAL_BATCHES=64 128'",
                                     MB_TEST_MAKE_ARGS, dir, dir), 0);
    CU_ASSERT_NOT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "CAL_BUDGET=0.01 s trained 1 value(s) of M"));
    char done[512];
    snprintf(done, sizeof done, "%s/b/runs/.done", dir);
    CU_ASSERT_EQUAL(access(done, F_OK), -1);
    mb_test_run_free(&r);
}

/* make run's time cap (RUN_TIME_CAP): once M = 64 reached the target, a run at M = 8 stops
 * after 1.25 times that run's seconds (mbtrain --max-seconds; lenet5 at M = 8 needs several times
 * M = 64's seconds to loss 0.5) and M = 8's next seed is not trained. A change that sent the
 * cap's printf to a file (awk's '>' in a printf argument is a redirection) left every run
 * uncapped: mlp's make run trained M = 8 and 16 for 20,000 updates on every seed (135 s). */
static void test_run_time_cap(void)
{
    char dir[256], path[600];
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(dir, sizeof dir), 0);
    mb_test_run r;
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "make -s %s OUT=%s/c %s/c/runs/.done 'RUN_BATCHES=64 8' "
                                         "'RUN_SEEDS=0 1' RUN_TIME_CAP=1.25 FINAL_LOSS= > /dev/null "
                                         "&& cat "
                                         "%s/c/logs/train.log",
                                     MB_TEST_MAKE_ARGS, dir, dir, dir), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "M = 8: a run was stopped by the time cap; seed 1 not "
                                         "trained"));
    mb_test_run_free(&r);
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "cd %s/c/runs/lr0.02 && grep -h '^# max_seconds=' "
                                         "lenet5-momentum-b8-s0.csv && grep -c 'reached=no' "
                                         "lenet5-momentum-b8-s0.csv && ls", dir), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "# max_seconds="));
    CU_ASSERT_PTR_NULL(strstr(r.out, "b8-s1"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "b64-s1"));
    mb_test_run_free(&r);
    snprintf(path, sizeof path, "%s/1000000000", MB_TEST_SRC); /* no file of the printf */
    CU_ASSERT_EQUAL(access(path, F_OK), -1);
    mb_test_rmdir(dir);
}

/* make run's other knobs (issue #25, H5, H6): each bad value, and each knob the mode chosen
 * ignores, stops make at parse time with one line naming it (exit 2), before any stage; make -n,
 * so that a check that did not fire runs nothing. */
/* campaign 26's W7: with BACKEND=cuda, a probe that cannot start the device (no driver here;
 * on a GPU machine, no device 1023) stops with a hint naming the device, not the sweep's
 * ("check NET=lenet5; a shorter sweep: PROBE_BATCHES=..."). Where the CUDA backend is not
 * built make run refuses BACKEND=cuda before any stage (test_run_knobs). */
static void test_cuda_probe_hint(void)
{
#if MB_HAVE_CUDA
    char dir[256];
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(dir, sizeof dir), 0);
    mb_test_run r;
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "timeout 120 make -s %s OUT=%s/a %s/a/step.csv "
                                         "BACKEND=cuda DEVICE=1023", MB_TEST_MAKE_ARGS, dir, dir),
                          0);
    CU_ASSERT_NOT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "make run: stage 'probe' failed: no usable CUDA device "
                                         "DEVICE=1023: see the line above; BACKEND=cpu runs on "
                                         "the CPU"));
    CU_ASSERT_PTR_NULL(strstr(r.err, "a shorter sweep"));
    if (!strstr(r.err, "no usable CUDA device"))
        fprintf(stderr, "\n  make %s/a/step.csv BACKEND=cuda DEVICE=1023: status %d: %s%s", dir,
                r.status, r.out, r.err);
    mb_test_run_free(&r);
    mb_test_rmdir(dir);
#endif
}

/* Campaign 35's E3: a HOSTFILE naming an address that never answers (10.255.255.1: no route
 * here, no answer where there is one) ended no stage: mpirun's ssh waited on its connect for
 * good. Now ssh gives up after 10 s and the stage fails with its one line, well within the
 * bound (timeout's 124 is the hang). */
static void test_hostfile_unreachable(void)
{
    char dir[256];
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(dir, sizeof dir), 0);
    mb_test_run r;
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "D='%s'; printf '10.255.255.1 slots=2\\n' > $D/hf && "
                                         "timeout -k 1 60 make -s %s OUT=$D/a $D/a/comm.csv "
                                         "COMM_BYTES=4:64 HOSTFILE=$D/hf",
                                     dir, MB_TEST_MAKE_ARGS),
                          0);
    CU_ASSERT_NOT_EQUAL(r.status, 124);
    CU_ASSERT_NOT_EQUAL(r.status, 0);
    /* campaign 36's E4: the line names the host and ssh's cause (ssh's own words: "Connection
     * to 10.255.255.1 port 22 timed out" here), not "mpirun must start 2 processes here" */
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "make run: stage 'comm' failed: HOSTFILE="));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "/hf: mpirun starts its processes on the hosts over "
                                         "ssh, which failed: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "10.255.255.1 port 22"));
    CU_ASSERT_PTR_NULL(strstr(r.err, "mpirun must start 2 processes here"));
    if (!strstr(r.err, "10.255.255.1 port 22"))
        fprintf(stderr, "\n  make comm.csv HOSTFILE=10.255.255.1: status %d: %s", r.status, r.err);
    mb_test_run_free(&r);
    mb_test_rmdir(dir);
}

/* Campaign 36's E4: a host that refuses ssh (nothing listens on 127.0.0.2's port 22 here) or
 * has no address: the comm stage's line is ssh's, naming the host, and the log is not dumped
 * into it (one line of make run's). Where something answers, ssh's line differs: only the form
 * is checked then. */
static void test_hostfile_ssh_refused(void)
{
    static const char *const hosts[] = {"127.0.0.2", "nosuchhost-zz.invalid"};
    char dir[256];
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(dir, sizeof dir), 0);
    for (size_t i = 0; i < sizeof hosts / sizeof hosts[0]; i++) {
        mb_test_run r;
        CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "D='%s'; printf '%s slots=2\\n' > $D/hf && "
                                             "timeout -k 1 60 make -s %s OUT=$D/a%zu "
                                             "$D/a%zu/comm.csv COMM_BYTES=4:64 HOSTFILE=$D/hf",
                                         dir, hosts[i], MB_TEST_MAKE_ARGS, i, i),
                              0);
        CU_ASSERT_TRUE(r.status != 0 && r.status != 124);
        const char *line = strstr(r.err, "make run: stage 'comm' failed: HOSTFILE=");
        CU_ASSERT_PTR_NOT_NULL(line);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "over ssh, which failed: "));
        CU_ASSERT_PTR_NULL(strstr(r.err, "mpirun must start 2 processes here"));
        if (line && !strstr(line, i ? "nosuchhost" : "127.0.0.2"))
            fprintf(stderr, "\n  note: ssh to %s said otherwise here: %s", hosts[i], line);
        if (!line)
            fprintf(stderr, "\n  make comm.csv HOSTFILE=%s: status %d: %s", hosts[i], r.status,
                    r.err);
        mb_test_run_free(&r);
    }
    mb_test_rmdir(dir);
}

/* Campaign 36's E5: a stage's file built directly (make OUT=o o/runs/.done, as docs/results.md
 * does) skipped the knob check, and the train stage's hint advised a lower LR whatever the
 * cause. The knobs are checked for every goal in OUT (make -n: a check that did not fire runs
 * nothing), and the hint is the cause the log shows: mbtrain's own line, the target's, or a
 * divergence's. */
static void test_stage_goals(void)
{
    static const struct {
        const char *args, *needle;
    } bad[] = {
        {"$D/a/runs/.done LR=1e-300", "LR=1e-300: 1e-300 is below the least rate"},
        {"$D/a/step.csv LR=1e39", "LR=1e39: 1e39 is above the largest float"},
        {"$D/a/comm.csv COMM_BYTES=3", "COMM_BYTES=3: 3 is below one float (4 bytes"},
        {"$D/a/check/.done DATA=synthetic:n=64", "EVAL_FRAC=0.1 draws 6 of the 64 training"},
        {"$D/a/.torch/train.done TORCH_LR=1e39", "TORCH_LR=1e39: 1e39 is above the largest float"},
        {"$D/a/.torch/probe.done LR=0.1", "LR is a knob of make run's C front end"},
        {"$D/a/runs/.done TARGET_LOS=0.4", "TARGET_LOS=0.4: not a knob of make run"},
        {"$D/a/knobs/BUDGET BUDGET=-1", "BUDGET=-1: a number above 0"},
    };
    char dir[256];
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(dir, sizeof dir), 0);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mb_test_run r;
        CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "D='%s'; timeout 60 make -s -n %s OUT=$D/a %s", dir,
                                         MB_TEST_MAKE_ARGS, bad[i].args), 0);
        int ok = r.status == 2 && strstr(r.err, bad[i].needle) && mb_test_lines(r.err) == 1;
        CU_ASSERT_TRUE(ok);
        if (!ok)
            fprintf(stderr, "\n  make %s: status %d: %s", bad[i].args, r.status, r.err);
        mb_test_run_free(&r);
    }
    /* the hint: mbtrain's own line (a data folder the check takes and mbtrain does not), a
     * target no run reaches, a run that diverged */
    static const struct {
        const char *knobs, *hint;
    } train[] = {
        {"TARGET_LOSS=0.5 DATA=$D", "failed: mbtrain: "},
        {"TARGET_LOSS=0.0001 LR=0.01", "failed: no run of seed 0 reached loss 0.0001"},
        {"TARGET_LOSS=0.5 LR=1e30", "failed: a run diverged: a lower LR (now 1e30) may converge"},
    };
    char path[512];
    mb_test_write(path, sizeof path, dir, "tiny.cfg", "[net]\nname=tiny\nchannels=1\nheight=8\n"
                  "width=8\n[conv]\nfilters=2\nsize=3\nactivation=relu\n[maxpool]\nsize=2\n"
                  "[fc]\noutputs=4\n[softmax]\n");
    for (size_t i = 0; i < sizeof train / sizeof train[0]; i++) {
        mb_test_run r;
        CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "D='%s'; timeout 120 make -s %s OUT=$D/t%zu "
                                             "$D/t%zu/runs/.done NET=$D/tiny.cfg 'RUN_BATCHES=8 16' "
                                             "DATA=synthetic:n=1024,test=64,c=1,h=8,w=8,"
                                             "classes=4,seed=3 RUN_SEEDS=0 MAX_UPDATES=50 %s",
                                         dir, MB_TEST_MAKE_ARGS, i, i, train[i].knobs), 0);
        CU_ASSERT_NOT_EQUAL(r.status, 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.err, train[i].hint));
        CU_ASSERT_PTR_NULL(strstr(r.err, i < 2 ? "a lower LR" : "a higher TARGET_LOSS"));
        if (!strstr(r.err, train[i].hint))
            fprintf(stderr, "\n  make runs/.done %s: status %d: %s", train[i].knobs, r.status,
                    r.err);
        mb_test_run_free(&r);
    }
    mb_test_rmdir(dir);
}

/* Campaign 31's A3: make run reads its numbers with a decimal point under a decimal-comma
 * locale (Debian's mawk follows LC_NUMERIC: its default LR=0.02 was "not a number above 0" under
 * de_DE). The locale is compiled here from the locales package's source (make deps installs it). */
static void test_run_knobs_locale(void)
{
    char dir[256];
    mb_test_run r;
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(dir, sizeof dir), 0);
    CU_ASSERT_TRUE_FATAL(mb_test_sh_ok(&r, "mkdir %s/loc && localedef -i de_DE -f UTF-8 "
                                           "%s/loc/de_DE.UTF-8 2>&1", dir, dir));
    mb_test_run_free(&r);
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "D='%s'; LOCPATH=$D/loc LC_ALL=de_DE.UTF-8 timeout 60 make "
                                         "-s -n run %s OUT=$D/a FINAL_LOSS=0.4", dir,
                                     MB_TEST_MAKE_ARGS), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "--levels 0.65,0.6,0.55")); /* awk's printf too */
    if (r.status != 0)
        fprintf(stderr, "\n  make run under de_DE: status %d: %s", r.status, r.err);
    mb_test_run_free(&r);
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "D='%s'; LOCPATH=$D/loc LC_ALL=de_DE.UTF-8 timeout 60 make "
                                         "-s -n run %s OUT=$D/a LRS=0,05", dir,
                                     MB_TEST_MAKE_ARGS), 0);
    CU_ASSERT_TRUE(r.status == 2 && strstr(r.err, "LRS=0,05: 0,05 is not a number above 0"));
    mb_test_run_free(&r);
}

/* make -n run's mbopt validate call that ends at `end` (the text up to it from the last
 * "mbopt validate" before it) holds none of `flags`, while the table's call still prices the grid
 * (--grid-cost elsewhere in the recipe). */
static void validate_call_lacks(const char *end, const char *const *flags, size_t n_flags)
{
    char dir[256];
    mb_test_run r;
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(dir, sizeof dir), 0);
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "timeout 60 make -s -n run %s OUT=%s/a",
                                     MB_TEST_MAKE_ARGS, dir), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    const char *stop = strstr(r.out, end);
    CU_ASSERT_PTR_NOT_NULL_FATAL(stop);
    const char *cmd = stop;
    while (cmd > r.out && strncmp(cmd, "mbopt validate", 14) != 0)
        cmd--;
    CU_ASSERT_EQUAL(strncmp(cmd, "mbopt validate", 14), 0);
    int found = 0;
    for (const char *c = cmd; c < stop; c++)
        for (size_t k = 0; k < n_flags; k++)
            found |= strncmp(c, flags[k], strlen(flags[k])) == 0;
    CU_ASSERT_FALSE(found);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "--grid-cost"));
    mb_test_run_free(&r);
}

/* The P > 1 answer's held-out plan (--recommend scale.json --holdout-plan), a mode that refuses
 * the grid's flags: make run's default calibrates, and a P = 2 answer then failed at its
 * held-out runs on "--grid-cost has no effect with --holdout-plan" (the nineteenth session's
 * fresh clone). The plan's command holds the fits alone. */
static void test_run_holdpar_plan(void)
{
    static const char *const grid[] = {"--grid-"};
    validate_call_lacks("/scale.json --holdout-plan", grid, 1);
}

/* validate.csv's command: --csv writes the table's rows alone and refuses the flags only the
 * text and JSON read (the grid's, --holdout: campaign 44's B-F1), so make run gives it the fits
 * and the runs alone, as the text and JSON calls keep them. */
static void test_run_validate_csv(void)
{
    static const char *const table_only[] = {"--grid-", "$held", "--holdout"};
    validate_call_lacks(" --csv -o ", table_only, 3);
}

static void test_run_knobs(void)
{
    static const struct {
        const char *knobs, *needle;
    } bad[] = {
        {"HOLDOUT_SEEDS=2", "HOLDOUT_SEEDS=2: a whole number from 3 to 64"},
        {"HOLDOUT_SEEDS=abc", "HOLDOUT_SEEDS=abc: a whole number from 3 to 64"},
        {"HOLDOUT_SEED0=999", "HOLDOUT_SEED0=999: a whole number from 1000 to 1000000000"},
        {"HOLDOUT_SEED0=2e3", "HOLDOUT_SEED0=2e3: a whole number from 1000"},
        {"BUDGET=0", "BUDGET=0: a number above 0"},
        /* campaign 22's Q5, Q13: knobs a network without convolutions ignores; RUN_BATCHES
         * while calibrating is the grid the calibration is set against */
        {"NET=mlp CONV_MEM=4M", "CONV_MEM has no effect: NET=mlp has no convolution"},
        {"RUN_BATCHES=8", "RUN_BATCHES=8: give at least 2 M: the grid sweep the calibration"},
        {"BUDGET=60s", "BUDGET=60s: a number above 0"},
        {"HOLDOUT_BEYOND=1.5", "HOLDOUT_BEYOND=1.5: a whole number"},
        {"MAX_SEEDS=0", "MAX_SEEDS=0: a whole number"},
        /* campaign 12's P7: mbopt validate --max-seeds takes 3 to 64, as HOLDOUT_SEEDS */
        {"MAX_SEEDS=2", "MAX_SEEDS=2: a whole number from 3 to 64"},
        {"MAX_SEEDS=100", "MAX_SEEDS=100: a whole number from 3 to 64"},
        {"SEED_BUDGET=-3", "SEED_BUDGET=-3: a whole number"},
        {"RUN_TIME_CAP=abc", "RUN_TIME_CAP=abc: a number >= 0"},
        {"TARGET_LOSS=0", "TARGET_LOSS=0: a number above 0"},
        {"LR=abc", "LR=abc: abc is not a number above 0"},
        {"'LRS=0.02 0.02'", "LRS=0.02 0.02: 0.02 given twice"},
        {"EVAL_FRAC=2", "EVAL_FRAC=2: a fraction above 0, at most 1"},
        {"MAX_UPDATES=0", "MAX_UPDATES=0: a whole number"},
        {"'RUN_BATCHES=8 8 16'", "RUN_BATCHES=8 8 16: 8 given twice"},
        {"RUN_BATCHES=8", "RUN_BATCHES=8: give at least 2 M"},
        {"'RUN_SEEDS=0 0'", "RUN_SEEDS=0 0: 0 given twice"},
        {"THREADS=0", "THREADS=0: a whole number"},
        {"PROBE_BATCHES=abc", "PROBE_BATCHES=abc: whole numbers"},
        {"PROBE_BUDGET=-1", "PROBE_BUDGET=-1: a number above 0"},
        {"COMM=bogus", "COMM=bogus: measured or none"},
        {"COMM=none PROCS=1:2", "PROCS=1:2 with COMM=none: without the collective model"},
        /* campaign 16: P = 1 spelled with a comma list is P = 1 twice (mbopt refuses it) */
        {"COMM=none PROCS=1,1", "PROCS=1,1: 1 given twice"},
        /* campaign 18's F5: a list knob with a value twice, refused by the commands only at
         * their stage (CONV_BATCHES: after all the training) */
        {"CONV_BATCHES=8,8", "CONV_BATCHES=8,8: 8 given twice"},
        {"PROBE_BATCHES=1:4,4", "PROBE_BATCHES=1:4,4: 4 given twice"},
        {"PROBE_LEARNERS=1,1", "PROBE_LEARNERS=1,1: 1 given twice"},
        {"COMM_BYTES=4K,4096", "COMM_BYTES=4K,4096: 4096 given twice"},
        /* M5: knobs the mode chosen ignores */
        {"TORCH_PYTHON=python3", "TORCH_PYTHON is a knob of the torch front end"},
        {"COMM=none PAR_SEEDS=1", "PAR_SEEDS has no effect with COMM=none"},
        {"COMM=none COMM_BYTES=4:64", "COMM_BYTES has no effect with COMM=none"},
        /* F4: FRONTEND='c clean' passed the check and made clean a prerequisite of run */
        {"'FRONTEND=c clean'", "FRONTEND=c clean: c (mbkit's trainer) or torch"},
        {"FINAL_LOSS=0.4 TARGET_LOSS=0.4000001", "FINAL_LOSS=0.4 lies within the 6 digits"},
        {"PROCS=abc", "PROCS=abc: whole numbers"},
        {"NET=no_such_net", "NET=no_such_net: no data/nets/no_such_net.cfg"},
        /* a TARGET_LOSS given alone is answered directly: the calibration's knobs are refused */
        {"TARGET_LOSS=0.5 CAL_SEEDS=abc", "CAL_SEEDS is a calibration knob: give FINAL_LOSS too"},
        {"TARGET_LOSS=0.5 CAL_EVAL_FRAC=7", "CAL_EVAL_FRAC is a calibration knob"},
        {"FINAL_LOSS= CAL_CHECK=1", "CAL_CHECK is a calibration knob: give FINAL_LOSS too"},
        /* the default job calibrates (0.5 -> 0.4): its knobs are checked, the direct sweep's
         * seed rounds refused with how to ask for them */
        {"CAL_SEEDS=abc", "CAL_SEEDS=abc: abc is not a whole number"},
        {"SEED_BUDGET=50", "SEED_BUDGET has no effect with FINAL_LOSS=0.4, the default job's "
                           "calibration (the calibration sweeps CAL_SEEDS, without seed rounds; "
                           "FINAL_LOSS= sweeps to TARGET_LOSS directly)"},
        {"FINAL_LOSS=0.4 CAL_CHECK=2", "CAL_CHECK=2: 0 (fit the calibration as trained) or 1"},
        {"FINAL_LOSS=0.4 SEED_BUDGET=50", "SEED_BUDGET has no effect with FINAL_LOSS"},
        {"FINAL_LOSS=0.4 'RUN_SEEDS=0 1 2 3'", "RUN_SEEDS has no effect with FINAL_LOSS"},
        {"FRONTEND=torch FINAL_LOSS=0.4 CAL_BUDGET=5", "FINAL_LOSS: the torch front end does not"},
        {"FRONTEND=torch CAL_BATCHES=16", "CAL_BATCHES: the torch front end does not calibrate"},
        /* the eighth campaign's K9: a quote would end awk's quoting when make reads the file */
        {"\"NET=x'; touch k9-ran; echo '\"", "a make run knob holds no quote character"},
        {"\"LR=0.02'\"", "LR=0.02': a make run knob holds no quote character"},
        /* K11: a hostfile that is not there, or names no slot, is named (not PROCS=1:) */
        {"HOSTFILE=/nonexistent", "HOSTFILE=/nonexistent: no such file"},
        /* campaign 34's E10: a rate below float's least normal number, a step of 0 (mbtrain
         * refused it only at the train stage, its hint "a lower LR") */
        {"LR=1e-300", "LR=1e-300: 1e-300 is below the least rate a step in float can take"},
        {"FRONTEND=torch TORCH_LR=1e-300", "TORCH_LR=1e-300: 1e-300 is below the least rate a "
                                           "step in float can take"},
        {"HOSTFILE=/dev/null", "HOSTFILE=/dev/null: not a regular file"},
        /* K10: every knob a stage reads is checked before any stage runs */
        {"DATA=no_such_data", "DATA=no_such_data: fashion-mnist, mnist, synthetic"},
        {"DATA=synthetic:n=abc", "DATA=synthetic:n=abc: n=abc is not a whole number from 1"},
        /* campaign 10's M9: a synthetic set mbtrain refuses is refused here, by its key */
        {"DATA=synthetic:h=0", "DATA=synthetic:h=0: h=0 is not a whole number from 1 to 1024"},
        {"DATA=synthetic:classes=1", "classes=1 is not a whole number from 2 to 1000"},
        {"DATA=synthetic:n=10,n=20", "DATA=synthetic:n=10,n=20: n given twice"},
        {"PROBE_LEARNERS=abc", "PROBE_LEARNERS=abc: whole numbers as lo:hi"},
        {"PROBE_LEARNERS=0", "PROBE_LEARNERS=0: 0 is not a whole number from 1 to 256"},
        {"COMM_BYTES=abc", "COMM_BYTES=abc: byte counts (K, M, G) as lo:hi"},
        {"COMM_BYTES=4:-4", "COMM_BYTES=4:-4: byte counts"},
        {"COMM_BYTES=8M:4", "COMM_BYTES=8M:4: 8M:4 has lo > hi"},
        {"PAR_BATCHES=abc", "PAR_BATCHES=abc: abc is not a whole number >= 1"},
        {"'PAR_BATCHES=32 32'", "PAR_BATCHES=32 32: 32 given twice"},
        {"'PAR_SEEDS=0 0'", "PAR_SEEDS=0 0: 0 given twice"},
        {"PAR_SEEDS=x", "PAR_SEEDS=x: x is not a whole number >= 0"},
        /* P7: each M splits among the par stage's 2 processes (mbtrain --algo sgd-sync) */
        {"'PAR_BATCHES=32 33'", "PAR_BATCHES=32 33: 33 does not split among 2 processes"},
        {"CONV_BATCHES=abc", "CONV_BATCHES=abc: whole numbers as lo:hi"},
        {"CONV_BATCHES=0", "CONV_BATCHES=0: 0 is not a whole number from 1 to 65536"},
        {"CONV_BUDGET=abc", "CONV_BUDGET=abc: a number above 0, at most 3600"},
        {"CONV_BUDGET=-1", "CONV_BUDGET=-1: a number above 0"},
        {"CONV_MEM=abc", "CONV_MEM=abc: a size above 0 in bytes, with K, M or G"},
        {"CONV_MEM=-2M", "CONV_MEM=-2M: a size above 0"},
        {"PROCS=0", "PROCS=0: 0 is not a whole number from 1 to 1000000000"},
        {"PROCS=4:1", "PROCS=4:1: 4:1 has lo > hi"},
        {"PROCS=1:99999999999999999999", "PROCS=1:99999999999999999999: 99999999999999999999 is "
                                         "not a whole number"},
        {"PROBE_BATCHES=0", "PROBE_BATCHES=0: 0 is not a whole number from 1 to 1048576"},
        {"PROBE_BATCHES=16:8", "PROBE_BATCHES=16:8: 16:8 has lo > hi"},
        {"NET=data/nets", "NET=data/nets: data/nets is not a regular file"},
        {"NET=/dev/null", "NET=/dev/null: /dev/null is not a regular file"},
        {"NET=/etc/passwd", "NET=/etc/passwd: /etc/passwd is no network description"},
        {"LRS=1e400", "LRS=1e400: 1e400 is above the largest float (3.4e+38)"},
        {"TORCH_TARGET=0.3", "TORCH_TARGET is a knob of the torch front end"},
        {"LR=0.02 LRS=0.05", "LR=0.02 and LRS=0.05: give one"},
        {"\"DATA=x'; touch k9-ran; echo '\"", "DATA=x'; touch k9-ran; echo ': a make run knob holds "
                                            "no quote character"},
        /* campaign 9's L1, campaign 10's M13: a double quote, $(...), a backtick, a backslash
         * (awk -v reads \047 as a quote) or a ; in any knob make pastes into a shell line */
        {"'NET=x.cfg\"; touch k9-ran; echo \"'", "a make run knob holds no quote character"},
        {"'NET=x`touch k9-ran`.cfg'", "a make run knob holds no quote character (nor any of"},
        {"'MBKIT_NETS=/tmp\"; touch k9-ran; echo \"' NET=nosuchnet", "MBKIT_NETS=/tmp\"; touch"},
        {"'NET=x\\047; touch k9-ran; \\047.cfg'", "holds no quote character (nor any of"},
        {"'OUT=x$$(touch k9-ran)'", "OUT: a make run knob holds no $ (make would expand it"},
        {"'OUT=x;touch k9-ran'", "OUT=x;touch k9-ran: a make run knob holds no quote"},
        {"'OUT=a b'", "OUT=a b: one folder name, without spaces"},
        /* campaign 11's N5: a shell pattern, a # or a : in OUT (rm -rf $(OUT)/runs, targets) */
        {"'OUT=g*'", "OUT=g*: a folder name without * ? [ ] { } ~ : % or #"},
        {"'OUT=a:b'", "OUT=a:b: a folder name without"},
        /* campaign 13's Q3: a leading - (mkdir -p -rf/logs, rm -rf -rf/check, grep -rf/...) */
        {"OUT=-rf", "OUT=-rf: a folder name that does not start with - (write ./-rf)"},
        {"OUT=-x/y", "OUT=-x/y: a folder name that does not start with -"},
        /* N6: a synthetic set with no key after the colon */
        {"DATA=synthetic:", "DATA=synthetic:: no key=value after synthetic:"},
        /* M8: a hostfile that is a device or a FIFO would be read without end */
        {"HOSTFILE=/dev/zero", "HOSTFILE=/dev/zero: not a regular file"},
        /* campaign 11's N4: nor is one of gigabytes read (a sparse 3 GiB file, $D/big, made
         * below): its size is looked at first; 1 MiB and a byte is one byte too many */
        {"HOSTFILE=$D/big", "/big: 3221225472 bytes, more than a hostfile (1 MiB)"},
        {"HOSTFILE=$D/mib1", "/mib1: 1048577 bytes, more than a hostfile (1 MiB)"},
        {"HOSTFILE=$D/hf_twice", "/hf_twice: line 1: slots=3 is not slots=N or max_slots=N"},
        {"HOSTFILE=$D/hf_spaced", "/hf_spaced: line 1: slots is not slots=N"},
        {"HOSTFILE=$D/hf_host2", "/hf_host2: line 3: host n1 listed twice (line 1)"},
        {"HOSTFILE=$D/hf_max", "/hf_max: line 1: max_slots=1 is below slots=2"},
        {"HOSTFILE=$D/hf_net", "/hf_net: line 1: \"[net]\" is no host name"},
        /* a minor: OUT there and not a folder (a device, a file) */
        {"OUT=/dev/null", "OUT=/dev/null: there and not a folder"},
        {"OUT=$D/mib1", "/mib1: there and not a folder"},
        /* N6, the rest: an empty item, and a set past mbtrain's 2^31 values in all (each key
         * in its range) */
        {"DATA=synthetic:n=5,", "DATA=synthetic:n=5,: an empty item in the list after synthetic:"},
        {"DATA=synthetic:n=100000000,c=64,h=1024,w=1024", "DATA=synthetic:n=100000000,c=64,"
                                                          "h=1024,w=1024: 100000000 + 500 samples "
                                                          "of 64x1024x1024 exceed 2147483648 "
                                                          "values in all"},
        {"DATA=synthetic:n=2047,test=2,h=1024,w=1024", "2047 + 2 samples of 1x1024x1024 exceed"},
        /* L2: the torch front end's knobs, and make run's that it does not read */
        {"FRONTEND=torch 'TORCH_SEEDS=0 0'", "TORCH_SEEDS=0 0: 0 given twice"},
        {"FRONTEND=torch 'TORCH_BATCHES=16 16'", "TORCH_BATCHES=16 16: 16 given twice"},
        {"FRONTEND=torch 'TORCH_BATCHES=08 16'", "TORCH_BATCHES=08 16: 08 is not a whole number "
                                                 ">= 1 without a leading zero"},
        {"FRONTEND=torch TORCH_LR=-1", "TORCH_LR=-1: one rate above 0"},
        {"FRONTEND=torch TORCH_LR=1e308", "TORCH_LR=1e308: 1e308 is above the largest float"},
        {"FRONTEND=torch TORCH_HOLDOUT_SEEDS=1", "TORCH_HOLDOUT_SEEDS=1: a whole number from 3"},
        {"FRONTEND=torch TORCH_EVAL_FRAC=2", "TORCH_EVAL_FRAC=2: a fraction above 0"},
        {"FRONTEND=torch TORCH_DEVICE=bogus", "TORCH_DEVICE=bogus: auto, cpu, cuda or cuda:N"},
        {"FRONTEND=torch TORCH_MAX_UPDATES=0", "TORCH_MAX_UPDATES=0: a whole number"},
        {"FRONTEND=torch TORCH_PROBE_BUDGET=-1", "TORCH_PROBE_BUDGET=-1: a number above 0"},
        {"FRONTEND=torch TORCH_MODEL=/nonexistent.py", "TORCH_MODEL=/nonexistent.py: not a readable"},
        {"FRONTEND=torch 'LRS=0.02 0.05'", "LRS is a knob of make run's C front end"},
        {"FRONTEND=torch HOLDOUT_SEEDS=20", "HOLDOUT_SEEDS is a knob of make run's C front end"},
        {"FRONTEND=torch COMM=none", "COMM is a knob of make run's C front end"},
        /* campaign 16's minor: a variable make run does not know is not ignored */
        {"TARGET_LOS=0.4", "TARGET_LOS=0.4: not a knob of make run"},
        /* BACKEND=cuda: one learner a GPU, P = 1 (no NCCL communicator yet) */
        {"BACKEND=gpu", "BACKEND=gpu: cpu or cuda"},
        {"DEVICE=1", "DEVICE=1 picks the CUDA device: give BACKEND=cuda too"},
        {"BACKEND=cuda DEVICE=x", "DEVICE=x: a whole number from 0 to 1023"},
        {"BACKEND=cuda COMM=measured", "COMM=measured with BACKEND=cuda: mbtrain trains one"},
        {"BACKEND=cuda PROBE_LEARNERS=1:2", "PROBE_LEARNERS=1:2 with BACKEND=cuda"},
        {"FRONTEND=torch BACKEND=cuda", "BACKEND is a knob of make run's C front end"},
        /* campaign 19 (issue #25): knobs the check took and their command refused. G4: LR is
         * the probe's one --lr (LRS holds several) */
        {"'LR=0.02 0.01'", "LR=0.02 0.01: one learning rate (LRS holds several"},
        /* G7: mbprobe comm --bytes takes a float (4 bytes) at least; mbprobe step refuses a
         * learner count that divides no size of --batch */
        {"COMM_BYTES=3", "COMM_BYTES=3: 3 is below one float (4 bytes"},
        {"COMM_BYTES=1", "COMM_BYTES=1: 1 is below one float (4 bytes"},
        {"COMM_BYTES=2:8", "COMM_BYTES=2:8: 2 is below one float (4 bytes"},
        {"PROBE_LEARNERS=3", "PROBE_LEARNERS=3: 3 divides no M of PROBE_BATCHES=1:1024"},
        {"PROBE_LEARNERS=5", "PROBE_LEARNERS=5: 5 divides no M of PROBE_BATCHES=1:1024"},
        {"PROBE_LEARNERS=1:4 PROBE_BATCHES=3,9", "PROBE_LEARNERS=1:4: 2 divides no M of "
                                                 "PROBE_BATCHES=3,9"},
        /* the same class, swept: mbtrain and mbprobe take 256 threads at most, mbtrain an M of
         * 2^30 at most and no larger than the training set, mbprobe step no M past the data,
         * mbopt conv --mem a whole number of bytes */
        {"THREADS=257", "THREADS=257: a whole number from 1 to 256"},
        {"'RUN_BATCHES=8 2000000000'", "RUN_BATCHES=8 2000000000: 2000000000 is not a whole "
                                       "number >= 1, at most 1073741824"},
        {"'PAR_BATCHES=32 2147483648'", "PAR_BATCHES=32 2147483648: 2147483648 is not a whole"},
        {"FINAL_LOSS=0.4 'CAL_BATCHES=16 2000000000'",
         "CAL_BATCHES=16 2000000000: 2000000000 is not a whole number >= 1, at most 1073741824"},
        /* campaign 42's B-F6: a list item with a leading zero gets the single knobs' reason */
        {"'RUN_BATCHES=08 16 32'", "RUN_BATCHES=08 16 32: 08 is not a whole number >= 1, at most "
                                   "1073741824 without a leading zero (the shell reads 010 as 8)"},
        {"'RUN_SEEDS=0 01 2'", "RUN_SEEDS=0 01 2: 01 is not a whole number >= 0 without a leading "
                               "zero"},
        {"'PAR_BATCHES=032 64'", "PAR_BATCHES=032 64: 032 is not a whole number >= 1, at most "
                                 "1073741824 without a leading zero"},
        {"FINAL_LOSS=0.4 'CAL_SEEDS=0 01 2'", "CAL_SEEDS=0 01 2: 01 is not a whole number >= 0, "
                                              "at most 9999999999 without a leading zero"},
        {"'RUN_BATCHES=8 70000'", "RUN_BATCHES=8 70000: M = 70000 is larger than the 60000 "
                                  "training samples of DATA=fashion-mnist"},
        {"DATA=synthetic:n=500", "PROBE_BATCHES=1:1024: M = 1024 is larger than the 500 training "
                                 "samples of DATA=synthetic:n=500"},
        {"DATA=synthetic:n=500 PROBE_BATCHES=1:256 'RUN_BATCHES=8 16' 'PAR_BATCHES=32 1000'",
         "PAR_BATCHES=32 1000: M = 1000 is larger than the 500 training samples"},
        {"DATA=synthetic PROBE_BATCHES=1:256 'RUN_BATCHES=8 16' FINAL_LOSS=0.4 'CAL_BATCHES=16 "
         "4096'", "CAL_BATCHES=16 4096: M = 4096 is larger than the 2000 training samples"},
        {"CONV_MEM=1.5", "CONV_MEM=1.5: a size above 0 in bytes, with K, M or G (12G): a whole "
                         "number of bytes"},
        {"CONV_MEM=0.1K", "CONV_MEM=0.1K: a size above 0 in bytes, with K, M or G (12G): a whole"},
        /* M5: BUILD is a relative path inside the tree (BUILD=/tmp read every .d file there) */
        {"BUILD=/tmp", "BUILD=/tmp: a relative path inside the tree"},
        {"BUILD=../build", "BUILD=../build: a relative path inside the tree"},
        {"BUILD=.", "BUILD=.: a relative path inside the tree"},
        {"'BUILD=a b'", "BUILD=a b: a relative path inside the tree"},
        /* M6: host names compare without case and trailing dot; _ is no host-name character */
        {"HOSTFILE=$D/hf_case", "/hf_case: line 2: host LOCALHOST listed twice (line 1)"},
        {"HOSTFILE=$D/hf_dot", "/hf_dot: line 2: host localhost. listed twice (line 1)"},
        {"HOSTFILE=$D/hf_under", "/hf_under: line 1: \"local_host\" is no host name"},
        /* campaign 20's minors: host names as RFC 1123 has them (or IP addresses), and a
         * CONV_MEM below the 1M floor (the least need is known only at the conv stage) */
        {"HOSTFILE=$D/hf_dots", "/hf_dots: line 1: \"localhost..\" is no host name (labels of"},
        {"HOSTFILE=$D/hf_colon", "/hf_colon: line 1: \"localhost:\" is no host name"},
        {"HOSTFILE=$D/hf_hyph", "/hf_hyph: line 2: \"a-\" is no host name"},
        {"HOSTFILE=$D/hf_lead", "/hf_lead: line 1: \"-a\" is no host name"},
        {"HOSTFILE=$D/hf_empty", "/hf_empty: line 1: \"a..b\" is no host name"},
        {"HOSTFILE=$D/hf_v6", "/hf_v6: line 1: \"1::2::3\" is no host name"},
        {"HOSTFILE=$D/hf_label", "is no host name (labels of letters, digits and - joined by dots"},
        {"CONV_MEM=100", "CONV_MEM=100: below 1M, the least device memory make run takes: what a "
                         "net and the least workspace of its layers need is known only at the "
                         "conv stage"},
        {"CONV_MEM=1023K", "CONV_MEM=1023K: below 1M, the least device memory make run takes"},
        /* campaign 21's N14: a NUL byte in HOSTFILE (awk's message ended at it: `line 2: "`) */
        {"HOSTFILE=$D/hf_nul", "/hf_nul: line 2: not text (a NUL byte)"},
        /* campaign 22's Q6: a name of numbers is an IPv4 address to a resolver (256.1.1.1, 1.2.3
         * and 0 were taken as names; 010 reads as octal, 0x7f as hex), the unspecified address
         * is no host, and one IPv6 address in two spellings was two hosts (PROCS doubled) */
        {"HOSTFILE=$D/hf_v4big", "/hf_v4big: line 1: \"256.1.1.1\" is no IPv4 address (its labels "
                                 "are numbers: 4 whole numbers from 0 to 255 joined by dots, "
                                 "without leading zeros)"},
        {"HOSTFILE=$D/hf_v4short", "/hf_v4short: line 1: \"1.2.3\" is no IPv4 address"},
        {"HOSTFILE=$D/hf_zero", "/hf_zero: line 1: \"0\" is no IPv4 address"},
        {"HOSTFILE=$D/hf_v4lead", "/hf_v4lead: line 2: \"010.000.000.001\" is no IPv4 address"},
        {"HOSTFILE=$D/hf_hex", "/hf_hex: line 1: \"0x7f.0.0.1\" is no IPv4 address"},
        {"HOSTFILE=$D/hf_any4", "/hf_any4: line 1: \"0.0.0.0\" is the unspecified address, no "
                                "host"},
        {"HOSTFILE=$D/hf_any6", "/hf_any6: line 2: \"::\" is the unspecified address, no host"},
        {"HOSTFILE=$D/hf_v6twice", "/hf_v6twice: line 2: host 0:0:0:0:0:0:0:1 listed twice (line "
                                   "1, as ::1)"},
        {"HOSTFILE=$D/hf_v6zeros", "/hf_v6zeros: line 3: host ::0001 listed twice (line 1, as "
                                   "::1)"},
        {"HOSTFILE=$D/hf_v6map", "/hf_v6map: line 2: host ::FFFF:a00:1 listed twice (line 1, as "
                                 "::ffff:10.0.0.1)"},
        /* an IPv4-mapped IPv6 address is the IPv4 host (two hosts, slots summed, were counted) */
        {"HOSTFILE=$D/hf_v4map", "/hf_v4map: line 2: host ::ffff:10.0.0.1 listed twice (line 1, "
                                 "as 10.0.0.1)"},
        {"HOSTFILE=$D/hf_v4map0", "/hf_v4map0: line 1: \"::ffff:0:0\" is the unspecified address"},
        /* Q13: a DOS file's line ends ("slots=2 is not slots=N": the carriage return is not seen) */
        {"HOSTFILE=$D/hf_crlf", "/hf_crlf: line 1: holds a carriage return (a DOS file: write its "
                                "line ends as a line feed alone)"},
        /* campaign 23's R10: an evaluation fraction that draws fewer than the 10 samples mbtrain's
         * --eval-frac needs was taken, and refused at the train stage; against the data's size
         * where DATA says it, else the floor 1e-07 (10 of 1e8 samples) */
        {"EVAL_FRAC=1e-9", "EVAL_FRAC=1e-9 draws 1 of the 60000 training samples of "
                           "DATA=fashion-mnist: the evaluation subset needs 10 at least"},
        {"EVAL_FRAC=0.00015", "EVAL_FRAC=0.00015 draws 9 of the 60000 training samples"},
        {"DATA=synthetic FINAL_LOSS=0.4 CAL_EVAL_FRAC=0.001", "CAL_EVAL_FRAC=0.001 draws 2 of the "
                                                             "2000 training samples of DATA=synthetic"},
        {"CAL_EVAL_FRAC=4.9e-324", "CAL_EVAL_FRAC=4.9e-324 draws 1 of the 60000 training samples"},
        {"DATA=$D EVAL_FRAC=1e-8", "EVAL_FRAC=1e-8: draws fewer than 10 of 100000000 training "
                                   "samples (the evaluation subset needs 10 at least; where the "
                                   "data says no size here, 1e-07 is the least fraction)"},
        {"FRONTEND=torch TORCH_EVAL_FRAC=1e-9", "TORCH_EVAL_FRAC=1e-9: draws fewer than 10 of "
                                                "100000000 training samples"},
        /* TORCH_PYTHON: a program that finds torch (the probe stage failed) */
        {"FRONTEND=torch TORCH_PYTHON=/nonexistent", "TORCH_PYTHON=/nonexistent: not a program here"},
        {"FRONTEND=torch TORCH_PYTHON=$D", ": not a program here (an executable file, or a name"},
        {"FRONTEND=torch TORCH_PYTHON=nosuchpython3", "TORCH_PYTHON=nosuchpython3: not a program"},
        {"FRONTEND=torch TORCH_PYTHON=/bin/false", "TORCH_PYTHON=/bin/false: finds no torch package"},
        {"FRONTEND=torch TORCH_PYTHON=/bin/true", "TORCH_PYTHON=/bin/true: finds no torch package"},
        {"FRONTEND=torch \"TORCH_PYTHON=py'\"", "a make run knob holds no quote character"},
        /* R12: a value above the bound was refused without the bound */
        {"TARGET_LOSS=1e308", "TARGET_LOSS=1e308: a number above 0, at most 1e+300"},
        {"RUN_TIME_CAP=1e308", "RUN_TIME_CAP=1e308: a number >= 0, at most 1e+300"},
        /* campaign 38's debatables: a cap at or below 1 stops every M slower than the fastest
         * before it can reach the target; held-out seeds past the bound on the first; a target
         * below float's least normal; a MBKIT_NETS that names no folder (the shipped net ran) */
        {"RUN_TIME_CAP=1", "RUN_TIME_CAP=1: 0 (no cap) or above 1 (a cap at or below 1 stops"},
        {"RUN_TIME_CAP=0.5", "RUN_TIME_CAP=0.5: 0 (no cap) or above 1"},
        {"HOLDOUT_SEED0=999999999 HOLDOUT_SEEDS=64", "HOLDOUT_SEED0=999999999 with "
         "HOLDOUT_SEEDS=64: the held-out seeds would run to 1000000062, past 1000000000 "
         "(HOLDOUT_SEED0 at most 999999937)"},
        {"TARGET_LOSS=1e-320", "TARGET_LOSS=1e-320: below the least normal float (1.2e-38)"},
        {"MBKIT_NETS=$D/none", "MBKIT_NETS=/"},
        {"LR=1e308", "LR=1e308: 1e308 is above the largest float (3.4e+38)"},
        {"FRONTEND=torch TORCH_PROBE_BUDGET=1e308", "TORCH_PROBE_BUDGET=1e308: a number above 0, "
                                                    "at most 1e+300"},
        /* campaign 24's K042: the hint fits the name (MBKIT_MPI_START_WAIT got a GPU's) */
        {"MBKIT_MPI_START_WAIT=0.5", "MBKIT_MPI_START_WAIT=0.5: not a knob of make run "
                                     "(docs/commands.md, \"make run\", lists them; "
                                     "MBKIT_MPI_START_WAIT is read by the commands from the "
                                     "environment: give it before make"},
        {"GPU=1", "GPU=1: not a knob of make run (docs/commands.md, \"make run\", lists them; "
                  "BACKEND=cuda trains on a GPU"},
        {"TARGET_LOS=0.4", "TARGET_LOS=0.4: not a knob of make run (docs/commands.md, \"make "
                           "run\", lists them)."},
        /* campaign 26's W6: OUT the tree, /, or one of the tree's own folders (data/examples:
         * make run wrote step.csv, nfit.json ... over the tracked examples; /: rm -rf /runs),
         * also through .. and a link ($D/tree: MB_TEST_SRC/data); W8: a % (make's own "No rule
         * to make target") */
        {"OUT=data/examples", "OUT=data/examples: /, the source tree or one of its own folders"},
        {"OUT=.", "OUT=.: /, the source tree or one of its own folders"},
        {"OUT=/", "OUT=/: /, the source tree or one of its own folders"},
        {"OUT=build", "OUT=build: /, the source tree or one of its own folders"},
        {"OUT=frontends", "OUT=frontends: /, the source tree or one of its own folders"},
        {"OUT=data/../solver/x", "OUT=data/../solver/x: /, the source tree or one of its own"},
        {"OUT=$D/tree/examples", "/tree/examples: /, the source tree or one of its own folders"},
        {"OUT=$D/tree/..", "/tree/..: /, the source tree or one of its own folders"},
        {"OUT=$D/a%b", "/a%b: a folder name without * ? [ ] { } ~ : % or #"},
        /* campaign 31's A6: TORCH_OUT is checked as OUT is (its shell text ran under make -n) */
        {"FRONTEND=torch 'TORCH_OUT=t;touch pwned'", "TORCH_OUT=t;touch pwned: a make run knob holds no quote"},
        {"FRONTEND=torch 'TORCH_OUT=a b'", "TORCH_OUT=a b: one folder name, without spaces"},
        {"FRONTEND=torch TORCH_OUT=", "TORCH_OUT=: one folder name, without spaces"},
        {"FRONTEND=torch TORCH_OUT=-x", "TORCH_OUT=-x: a folder name that does not start with -"},
        /* campaign 32's B3: a $ in a knob's own text ran its $(shell ...) when make first read
         * the value, even under make -n, before any check (the file k9-ran is looked for below) */
        {"'OUT=$(shell touch k9-ran)'", "OUT: a make run knob holds no $ (make would expand it"},
        {"FRONTEND=torch 'TORCH_OUT=$(shell touch k9-ran)'", "TORCH_OUT: a make run knob holds no $"},
        {"'LR=$(shell echo 0.02)'", "LR: a make run knob holds no $"},
        /* campaign 34's E9: // starts a comment as # does, wherever it starts, as Open MPI 4.1
         * reads it (make run refused "//" as no host name): localhost//n2 is localhost again */
        {"HOSTFILE=$D/hf_slash", "/hf_slash: line 2: host localhost listed twice (line 1)"},
        /* campaign 36's E3: a rate above float's largest was taken (the step used inf); the
         * bounds are mbtrain's --lr's (mb_data_flag_lr) and the front end's */
        {"LR=1e39", "LR=1e39: 1e39 is above the largest float (3.4e+38), the type training "
                    "takes it in"},
        {"LR=3.4028236e38", "LR=3.4028236e38: 3.4028236e38 is above the largest float"},
        {"'LRS=0.02 1e39'", "LRS=0.02 1e39: 1e39 is above the largest float (3.4e+38)"},
        {"FRONTEND=torch TORCH_LR=1e39", "TORCH_LR=1e39: 1e39 is above the largest float "
                                         "(3.4e+38), the type training takes it in"},
        /* campaign 39's B-F5, F6: a target loss past float's largest (every run reached inf at
         * its first update) or, for the torch front end, below its least normal; one rule for
         * both (KNOB_AWK's lossfloat); FINAL_LOSS below the least normal too */
        {"TARGET_LOSS=1e39", "TARGET_LOSS=1e39: above the largest float (3.4e+38), the type the "
                             "network computes its outputs in"},
        {"FRONTEND=torch TORCH_TARGET=1e39", "TORCH_TARGET=1e39: above the largest float"},
        {"FRONTEND=torch TORCH_TARGET=1e-39", "TORCH_TARGET=1e-39: below the least normal float "
                                              "(1.2e-38)"},
        {"FINAL_LOSS=1e-39", "FINAL_LOSS=1e-39: below the least normal float (1.2e-38)"},
        /* B-F7: OUT and another TORCH_OUT (TORCH_OUT won, OUT ignored without a word) */
        {"FRONTEND=torch TORCH_OUT=$D/b", "/b: give one (the torch front end writes into "
                                          "TORCH_OUT, which is OUT when OUT alone is given)"},
    };
    char dir[256], path[512];
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(dir, sizeof dir), 0);
    /* sparse: no disk used */
    CU_ASSERT_EQUAL_FATAL(truncate(mb_test_write(path, sizeof path, dir, "big", ""),
                                   (off_t)3 << 30), 0);
    CU_ASSERT_EQUAL_FATAL(truncate(mb_test_write(path, sizeof path, dir, "mib1", ""),
                                   ((off_t)1 << 20) + 1), 0);
    /* hostfiles Open MPI would read otherwise than make run counted them (campaigns 15-17) */
    mb_test_write(path, sizeof path, dir, "hf_twice", "localhost slots=2 slots=3\n");
    mb_test_write(path, sizeof path, dir, "hf_spaced", "localhost slots = 2\n");
    mb_test_write(path, sizeof path, dir, "hf_host2", "n1 slots=1\nn2\nn1 slots=1\n");
    mb_test_write(path, sizeof path, dir, "hf_max", "n1 slots=2 max_slots=1\n");
    mb_test_write(path, sizeof path, dir, "hf_net", "[net]\nname=x\n");
    mb_test_write(path, sizeof path, dir, "hf_case", "localhost slots=1\nLOCALHOST slots=1\n");
    mb_test_write(path, sizeof path, dir, "hf_dot", "localhost\nlocalhost.\n");
    mb_test_write(path, sizeof path, dir, "hf_under", "local_host slots=2\n");
    mb_test_write(path, sizeof path, dir, "hf_ok", "n1 slots=1\nn-2.example.com. slots=2\n");
    mb_test_write(path, sizeof path, dir, "hf_dots", "localhost.. slots=2\n");
    mb_test_write(path, sizeof path, dir, "hf_colon", "localhost: slots=2\n");
    mb_test_write(path, sizeof path, dir, "hf_hyph", "n1\na- slots=2\n");
    mb_test_write(path, sizeof path, dir, "hf_lead", "-a slots=2\n");
    mb_test_write(path, sizeof path, dir, "hf_empty", "a..b slots=2\n");
    mb_test_write(path, sizeof path, dir, "hf_v6", "1::2::3 slots=2\n");
    {
        char label[80]; /* a label of 64 characters: 63 at most */
        memset(label, 'a', 64);
        snprintf(label + 64, sizeof label - 64, " slots=1\n");
        mb_test_write(path, sizeof path, dir, "hf_label", label);
    }
    {
        FILE *nul = fopen(mb_test_write(path, sizeof path, dir, "hf_nul", ""), "wb");
        CU_ASSERT_PTR_NOT_NULL_FATAL(nul);
        CU_ASSERT_EQUAL(fwrite("localhost slots=2\n\0\n", 1, 20, nul), 20);
        fclose(nul);
    }
    mb_test_write(path, sizeof path, dir, "hf_ip", "10.0.0.1 slots=1\n::1\nfe80::1:2 slots=2\n"
                                                  "::ffff:192.168.1.1\nLocalHost.\n");
    mb_test_write(path, sizeof path, dir, "hf_v4big", "256.1.1.1 slots=2\n");
    mb_test_write(path, sizeof path, dir, "hf_v4short", "1.2.3 slots=2\n");
    mb_test_write(path, sizeof path, dir, "hf_zero", "0 slots=2\n");
    mb_test_write(path, sizeof path, dir, "hf_v4lead", "10.0.0.1 slots=1\n010.000.000.001\n");
    mb_test_write(path, sizeof path, dir, "hf_hex", "0x7f.0.0.1 slots=2\n");
    mb_test_write(path, sizeof path, dir, "hf_any4", "0.0.0.0 slots=2\n");
    mb_test_write(path, sizeof path, dir, "hf_any6", "n1\n::\n");
    mb_test_write(path, sizeof path, dir, "hf_v6twice", "::1 slots=2\n0:0:0:0:0:0:0:1 slots=2\n");
    mb_test_write(path, sizeof path, dir, "hf_v6zeros", "::1 slots=1\nn1\n::0001 slots=1\n");
    mb_test_write(path, sizeof path, dir, "hf_v6map", "::ffff:10.0.0.1\n::FFFF:a00:1\n");
    mb_test_write(path, sizeof path, dir, "hf_crlf", "localhost slots=2\r\n");
    mb_test_write(path, sizeof path, dir, "hf_v4map", "10.0.0.1 slots=2\n::ffff:10.0.0.1 slots=2\n");
    mb_test_write(path, sizeof path, dir, "hf_v4map0", "::ffff:0:0 slots=2\n");
    mb_test_write(path, sizeof path, dir, "hf_slash", "localhost slots=2 // n1 slots=2\n"
                                                     "localhost//n2 slots=1\n");
    mb_test_write(path, sizeof path, dir, "hf_slashok", "// the box\nlocalhost slots=2 // two\n"
                                                       "n1 slots=3//x\n");
    snprintf(path, sizeof path, "%s/tree", dir);
    CU_ASSERT_EQUAL_FATAL(symlink(MB_TEST_SRC "/data", path), 0);
    {
        /* Q13: 253 characters and the one trailing dot a fully qualified name may end with (the
         * length was held against the name with its dot); with 255.255.255.255 and 1.2.3.4 */
        char fqdn[300];
        memset(fqdn, 'a', 253);
        for (int i = 63; i < 253; i += 64)
            fqdn[i] = '.';
        snprintf(fqdn + 253, sizeof fqdn - 253, ". slots=1\n255.255.255.255\n1.2.3.4 slots=2\n");
        mb_test_write(path, sizeof path, dir, "hf_fqdn", fqdn);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mb_test_run r;
        /* a knob check that read the 3 GiB hostfile would end at the timeout, status 124 */
        CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "D='%s'; timeout 60 make -s -n run %s OUT=$D/a %s",
                                         dir, MB_TEST_MAKE_ARGS, bad[i].knobs), 0);
        int ok = r.status == 2 && strstr(r.err, bad[i].needle) && mb_test_lines(r.err) == 1;
        CU_ASSERT_TRUE(ok);
        if (!ok)
            fprintf(stderr, "\n  make run %s: status %d: %s", bad[i].knobs, r.status, r.err);
        mb_test_run_free(&r);
    }
    CU_ASSERT_EQUAL(access("k9-ran", F_OK), -1); /* the quoted knob ran nothing */
    /* campaign 16: COMM=none takes every spelling of P = 1 (PROCS=01 was refused as P > 1) */
    /* campaign 19: what the commands take is taken (a learner count that divides some M, a
     * float's 4 bytes, a fraction of a K that is whole bytes, 256 threads, a hostfile of
     * distinct hosts with a fully qualified name; every case passes the build's own BUILD) */
    static const char *const good[] = {"COMM=none PROCS=01", "COMM=none PROCS=1:01",
                                       "PROBE_LEARNERS=3 PROBE_BATCHES=3:96 COMM_BYTES=4:8",
                                       "CONV_MEM=2.5M THREADS=256", "HOSTFILE=$D/hf_ok",
                                       "HOSTFILE=$D/hf_ip CONV_MEM=1M",
                                       "TARGET_LOSS=0.5 SEED_BUDGET=50", "FINAL_LOSS= MAX_SEEDS=5",
                                       "BUDGET=3600", "HOSTFILE=$D/hf_fqdn",
                                       "RUN_TIME_CAP=1.01 HOLDOUT_SEED0=999999981",
                                       /* campaign 23: 10 evaluation samples exactly */
                                       "EVAL_FRAC=0.00016", "DATA=$D EVAL_FRAC=1e-7",
                                       "DATA=synthetic FINAL_LOSS=0.4 CAL_EVAL_FRAC=0.00475",
                                       /* campaign 34's E9: // comments; E8: make -e run (the
                                        * build it starts read make's own $(MAKEOVERRIDES) in
                                        * MAKEFLAGS as a user's $) */
                                       "HOSTFILE=$D/hf_slashok", "-e LR=0.2",
                                       /* campaign 36's E3: float's largest is a rate */
                                       "LR=3.4028234663852886e38",
                                       "FRONTEND=torch TORCH_LR=3.4028234663852886e38",
                                       /* campaign 39's B-F5, F7: float's largest is a target;
                                        * TORCH_OUT the same folder as OUT */
                                       "TARGET_LOSS=3.4028234663852886e38",
                                       "FRONTEND=torch TORCH_TARGET=1.1754943508222875e-38",
                                       "FRONTEND=torch TORCH_OUT=$D/a"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        mb_test_run r;
        CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "D='%s'; timeout 60 make -s -n run %s OUT=$D/a %s",
                                         dir, MB_TEST_MAKE_ARGS, good[i]), 0);
        CU_ASSERT_EQUAL(r.status, 0);
        /* campaign 17's M5: the summary after the (dry) pipeline read files a dry run never
         * wrote: "grep: .../scale.txt: No such file or directory", 5 lines */
        CU_ASSERT_PTR_NULL(strstr(r.err, "No such file"));
        if (r.status != 0 || strstr(r.err, "No such file"))
            fprintf(stderr, "\n  make run %s: status %d: %s", good[i], r.status, r.err);
        mb_test_run_free(&r);
    }
    /* campaign 26's W1: a list knob ending in a space ("16 32 ") is the list make reads ("16
     * 32"); the knob check's awk read an empty last item and doubled 0 without end, growing
     * until memory ran out (under a memory cap here, so a relapse ends at the timeout) */
    static const char *const spaced[] = {"FINAL_LOSS=0.4 'CAL_BATCHES=16 32 '",
                                         "FINAL_LOSS= 'RUN_BATCHES=8 16 '", "'RUN_BATCHES=8 16 32 '",
                                         "'PAR_BATCHES=32 64 '", "'CAL_BATCHES=16  32 64 '"};
    for (size_t i = 0; i < sizeof spaced / sizeof spaced[0]; i++) {
        mb_test_run r;
        CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "D='%s'; ulimit -v 4000000; timeout 20 make -s -n run %s "
                                         "OUT=$D/a %s", dir, MB_TEST_MAKE_ARGS, spaced[i]), 0);
        CU_ASSERT_EQUAL(r.status, 0);
        if (r.status != 0)
            fprintf(stderr, "\n  make run %s: status %d: %s", spaced[i], r.status, r.err);
        mb_test_run_free(&r);
    }
    /* the default job calibrates: its fit extrapolates to 0.4 from runs that stop at 0.5; a
     * TARGET_LOSS given alone is answered by a sweep to it */
    static const struct {
        const char *knobs, *has, *lacks;
    } modes[] = {{"", "--extrapolate --target-loss 0.4", NULL},
                 {"TARGET_LOSS=0.45", "--target-loss 0.45", "--extrapolate"}};
    mb_test_run r;
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "D='%s'; timeout 60 make -s -n run %s OUT=$D/a %s",
                                         dir, MB_TEST_MAKE_ARGS, modes[i].knobs), 0);
        CU_ASSERT_EQUAL(r.status, 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.out, modes[i].has));
        CU_ASSERT_TRUE(!modes[i].lacks || !strstr(r.out, modes[i].lacks));
        mb_test_run_free(&r);
    }
    /* BACKEND=cuda where the CUDA backend is built: every stage that computes asks for the
     * device (probe, runs, conv); where it is not: one line before any stage */
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "D='%s'; timeout 60 make -s -n run %s OUT=$D/a "
                                     "BACKEND=cuda DEVICE=3", dir, MB_TEST_MAKE_ARGS), 0);
#if MB_HAVE_CUDA
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "mbprobe step --net lenet5 --data fashion-mnist "
                                         "--backend cuda --device 3 "));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "--backend cuda --device 3 --momentum 0.9"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "mbprobe conv --net lenet5 --backend cuda --device 3"));
    CU_ASSERT_PTR_NULL(strstr(r.out, "mpirun")); /* P = 1: no collective, no P = 2 runs */
    CU_ASSERT_PTR_NULL(strstr(r.out, "--backend cpu"));
#else
    CU_ASSERT_EQUAL(r.status, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "BACKEND=cuda: the CUDA backend is not built here"));
    CU_ASSERT_EQUAL(mb_test_lines(r.err), 1);
#endif
    mb_test_run_free(&r);
    /* campaign 33's D8: a $ in a knob from the environment that only make run reads
     * (MBKIT_NETS), in NVCC (read before the check), in make install's DESTDIR; MAKEFLAGS from
     * the environment, which make expands before it reads the Makefile (its $(shell ...) cannot
     * be kept from running: what it set is refused, not run on; SHELL is given, as without it
     * in the environment make's early $(shell ...) has no shell and prints a line of its own,
     * before any Makefile is read). D9: a FRONTEND given against
     * the goal's own front end. D10: a path knob of more than one word, a shell pattern or a
     * leading # (the recipes paste it as one word: NET="a b.cfg" passed, HOSTFILE="h f" was "no
     * such file" beside the file); the files are there, so only the name is refused */
    static const struct {
        const char *env, *goal, *knobs, *needle;
    } c33[] = {
        {"MBKIT_NETS='$(shell touch k9-ran)'", "run", "", "MBKIT_NETS: a make run knob holds no $"},
        {"", "run", "'NVCC=$(shell touch k9-ran)'", "NVCC: a make run knob holds no $"},
        {"DESTDIR='$(shell touch k9-ran)'", "install", "", "DESTDIR: a make run knob holds no $"},
        {"SHELL=/bin/sh MAKEFLAGS='LR=$(shell echo 0.02)'", "run", "",
         "MAKEFLAGS from the environment holds a $: make expanded it before reading"},
        {"SHELL=/bin/sh GNUMAKEFLAGS='LR=$(shell echo 0.02)'", "run", "",
         "MAKEFLAGS from the environment holds"},
        {"", "run-torch", "FRONTEND=c", "FRONTEND=c: make run-torch is the torch front end (make "
                                        "run FRONTEND=c, or leave FRONTEND out)"},
        {"FRONTEND=torch", "run-c", "", "FRONTEND=torch: make run-c is the C front end"},
        /* campaign 45 B. F7: run-torch's HOLDOUT_SEED0 is held to TORCH_HOLDOUT_SEEDS (its
         * holdout stage's --holdout-plan), not the C front end's HOLDOUT_SEEDS */
        {"", "run-torch", "HOLDOUT_SEED0=999999981 TORCH_HOLDOUT_SEEDS=64",
         "HOLDOUT_SEED0=999999981 with TORCH_HOLDOUT_SEEDS=64: the held-out seeds would run to "
         "1000000044, past 1000000000 (HOLDOUT_SEED0 at most 999999937)"},
        {"", "run", "\"NET=$D/a b.cfg\"", "/a b.cfg: one file name, without spaces"},
        {"", "run", "FRONTEND=torch \"TORCH_MODEL=$D/m b.py\"", "/m b.py: one file name, without "
                                                               "spaces"},
        {"", "run", "\"HOSTFILE=$D/h f\"", "/h f: one file name, without spaces"},
        {"", "run", "\"DATA=$D/d x\"", "/d x: one name or folder, without spaces"},
        {"", "run", "\"NET=$D/a*.cfg\"", "/a*.cfg: a file name without * ? [ or ] (the shell would"},
        {"", "run", "'NET=#x.cfg'", "NET=#x.cfg: a file name that does not start with #"},
        /* campaign 34's E7: make -e let the environment replace the check's own variables (its
         * $(shell ...) ran, then an unrelated refusal); the command line could replace DOLLAR */
        {"DOLLAR=q LR='$(shell touch k9-ran)'", "-e run", "", "LR: a make run knob holds no $"},
        {"KNOB_NAMES=x MBKIT_NETS='$(shell touch k9-ran)'", "-e run", "",
         "MBKIT_NETS: a make run knob holds no $"},
        {"DOLLAR_KNOB= LR='$(shell touch k9-ran)'", "-e run", "", "LR: a make run knob holds no $"},
        {"SHELL=/bin/sh ENV_MAKEFLAGS= MAKEFLAGS='e LR=$(shell echo 0.02)'", "run", "",
         "MAKEFLAGS from the environment holds a $"},
        {"", "run", "DOLLAR=q 'LR=$(shell touch k9-ran)'", "LR: a make run knob holds no $"},
    };
    CU_ASSERT_TRUE_FATAL(mb_test_sh_ok(&r, "D='%s'; cp %s/data/nets/lenet5.cfg \"$D/a b.cfg\" && "
                                           "cp %s/frontends/torch/examples/fashion_cnn.py \"$D/m "
                                           "b.py\" && printf 'localhost slots=2\\n' > \"$D/h f\" "
                                           "&& mkdir \"$D/d x\"",
                                       dir, MB_TEST_SRC, MB_TEST_SRC));
    mb_test_run_free(&r);
    for (size_t i = 0; i < sizeof c33 / sizeof c33[0]; i++) {
        CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "D='%s'; %s timeout 60 make -s -n %s %s OUT=$D/a %s",
                                         dir, c33[i].env, c33[i].goal, MB_TEST_MAKE_ARGS,
                                         c33[i].knobs), 0);
        int ok = r.status == 2 && strstr(r.err, c33[i].needle) && mb_test_lines(r.err) == 1;
        CU_ASSERT_TRUE(ok);
        if (!ok)
            fprintf(stderr, "\n  %s make %s %s: status %d: %s", c33[i].env, c33[i].goal,
                        c33[i].knobs, r.status, r.err);
        mb_test_run_free(&r);
    }
    CU_ASSERT_EQUAL(access("k9-ran", F_OK), -1);
    /* D10: a # after a hostfile line's fields is a comment, as Open MPI reads it (mpirun ran
     * with "localhost slots=2 # the box", make run refused it) */
    mb_test_write(path, sizeof path, dir, "hf_note", "localhost slots=2 # the box\n# end\n"
                                                     "n1 slots=3# a third\n");
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "D='%s'; timeout 60 make -s -n run %s OUT=$D/a "
                                         "HOSTFILE=$D/hf_note", dir, MB_TEST_MAKE_ARGS), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "--procs 1:5"));
    if (r.status != 0)
        fprintf(stderr, "\n  make run HOSTFILE=hf_note: status %d: %s", r.status, r.err);
    mb_test_run_free(&r);
    mb_test_rmdir(dir);
}

static void test_zoo_bad_input(void)
{
    char dir[256];
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(dir, sizeof dir), 0);
    static const struct {
        const char *zoo, *needle;
    } bad[] = {
        {"a lenet5 fashion-mnist 0.02\n", "zoo.txt:1: expected 'NAME NET DATA LR TARGET_LOSS'"},
        {"# c\na lenet5 fashion-mnist 0.02 0.5 x\n", "zoo.txt:2: expected"},
        {"a lenet5 fashion-mnist 0.02 -0.5\n", "zoo.txt:1: '-0.5' is not a positive number"},
        {"a lenet5 fashion-mnist fast 0.5\n", "zoo.txt:1: 'fast' is not a positive number"},
        {"a lenet5 d 0.02 0.5\na mlp d 0.05 0.45\n", "zoo.txt:2: name 'a' repeated"},
        {"a/b lenet5 d 0.02 0.5\n", "zoo.txt:1: name 'a/b'"},
        {"# nothing\n", "zoo.txt: no workload in it"},
        /* cifar7 takes 3x28x28 images, Fashion-MNIST is 1x28x28: the probe refuses it */
        {"lenet5 lenet5 fashion-mnist 0.02 0.5\n", NULL},
        {"misfit cifar7 fashion-mnist 0.02 0.5\n", "zoo.txt:1: misfit: make run: stage 'probe' failed"},
        /* campaign 23's R8: every line's knobs as make run checks them, before line 1 trains */
        {"a lenet5 fashion-mnist 0.02 0.5\nb bad_net fashion-mnist 0.02 0.5\n",
         "zoo.txt:2: b: NET=bad_net: no data/nets/bad_net.cfg here"},
        {"a lenet5 fashion-mnist 0.02 0.5\n\nb lenet5 synthetic:n=1e3 0.02 0.5\n",
         "zoo.txt:3: b: DATA=synthetic:n=1e3: n=1e3 is not a whole number from 1 to 100000000"},
        {"a lenet5 fashion-mnist 0.02 0.5\nb lenet5 fashion-mnist 1e308 0.5\n",
         "zoo.txt:2: b: LR=1e308: 1e308 is above the largest float (3.4e+38)"},
        /* a name is a plain word: '..' ran make run OUT=out/zoo/.. (the user's out/), zoo.md
         * collided with the table, a.log with workload a's log */
        {"a lenet5 fashion-mnist 0.02 0.5\n.. lenet5 fashion-mnist 0.02 0.5\n",
         "zoo.txt:2: name '..': a letter or digit, then letters, digits, _ or -"},
        {". lenet5 fashion-mnist 0.02 0.5\n", "zoo.txt:1: name '.': a letter or digit"},
        {"zoo.md lenet5 fashion-mnist 0.02 0.5\n", "zoo.txt:1: name 'zoo.md': a letter or digit"},
        {"a.log lenet5 fashion-mnist 0.02 0.5\n", "zoo.txt:1: name 'a.log': a letter or digit"},
        {".a lenet5 fashion-mnist 0.02 0.5\n", "zoo.txt:1: name '.a': a letter or digit"},
        {"-x lenet5 fashion-mnist 0.02 0.5\n", "zoo.txt:1: name '-x': a letter or digit"},
        /* R12: a DOS line end was "'0.5' is not a positive number" */
        {"a lenet5 fashion-mnist 0.02 0.5\r\n", "zoo.txt:1: holds a carriage return (a DOS file"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (!bad[i].needle) /* a good line before the bad one would train: not in a unit test */
            continue;
        char path[512];
        mb_test_write(path, sizeof path, dir, "zoo.txt", bad[i].zoo);
        mb_test_run r;
        CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "ZOO=%s ZOO_OUT=%s/out ZOO_MAKE_ARGS='%s' timeout 120 "
                                             "bash tests/bench/zoo.sh", path, dir,
                                         MB_TEST_MAKE_ARGS), 0);
        CU_ASSERT_EQUAL(r.status, 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.err, bad[i].needle));
        CU_ASSERT_EQUAL(mb_test_lines(r.err), 1);
        if (r.status != 1 || !strstr(r.err, bad[i].needle))
            fprintf(stderr, "\n  zoo case %zu: status %d: %s", i, r.status, r.err);
        mb_test_run_free(&r);
        snprintf(path, sizeof path, "%s/out/zoo.md", dir);
        FILE *f = fopen(path, "r");
        CU_ASSERT_PTR_NULL(f); /* nothing half-written */
        if (f)
            fclose(f);
        snprintf(path, sizeof path, "%s/out/a.log", dir);
        CU_ASSERT_EQUAL(access(path, F_OK), -1); /* line a did not train */
    }
    /* R12: ZOO a folder (bash's read error, "line: unbound variable"), ZOO_OUT a file (mkdir's
     * error, then "no .../validate.txt"): one line each */
    static const struct {
        const char *env, *needle;
    } where[] = {
        {"ZOO=$D ZOO_OUT=$D/out", ": not a regular file (ZOO names the workload list"},
        {"ZOO=/dev/null ZOO_OUT=$D/out", "/dev/null: not a regular file"},
        {"ZOO=$D/none ZOO_OUT=$D/out", "/none: no such file"},
        {"ZOO=$D/zoo.txt ZOO_OUT=$D/zoo.txt", "/zoo.txt: there and not a folder (make zoo writes"},
        {"ZOO=$D/zoo.txt ZOO_OUT=$D/zoo.txt ZOO_TABLE_ONLY=1", "/zoo.txt: there and not a folder"},
        /* campaign 24's U12: bash's read dropped a NUL byte ('fash\\0ion-mnist' trained as
         * fashion-mnist) */
        {"printf 'a lenet5 mnist 0.02 0.5\\nb lenet5 fash\\000ion-mnist 0.02 0.5\\n' > $D/nul.txt "
         "&& ZOO=$D/nul.txt ZOO_OUT=$D/out", "/nul.txt:2: not text (a NUL byte)"},
        /* campaign 37's E2: zoo.sh wrote over its inputs: a line's NET at the path of its log
         * (emptied by make run's > NAME.log), ZOO at the table's (replaced by the table), DATA
         * in a workload's folder (removed before it runs) */
        {"mkdir -p $D/out && cp data/nets/lenet5.cfg $D/out/a.log && printf 'a %s fashion-mnist "
         "0.02 0.5\\n' $D/out/a.log > $D/e2.txt && ZOO=$D/e2.txt ZOO_OUT=$D/out",
         "/out/a.log is workload a's log "},
        {"mkdir -p $D/out && cp $D/zoo.txt $D/out/zoo.md && ZOO=$D/out/zoo.md ZOO_OUT=$D/out "
         "ZOO_TABLE_ONLY=1", "/out/zoo.md: the workload list is the table "},
        {"ln -sf out/zoo.md $D/lnk.txt && ZOO=$D/lnk.txt ZOO_OUT=$D/out/ ZOO_TABLE_ONLY=1",
         "/lnk.txt: the workload list is the table "},
        {"printf 'a lenet5 fashion-mnist 0.02 0.5\\nb lenet5 %s/d 0.02 0.5\\n' $D/out/../out/a > "
         "$D/e2.txt && ZOO=$D/e2.txt ZOO_OUT=$D/out", "/out/a/d is in workload a's folder "},
    };
    char path[512];
    mb_test_write(path, sizeof path, dir, "zoo.txt", "a lenet5 fashion-mnist 0.02 0.5\n");
    for (size_t i = 0; i < sizeof where / sizeof where[0]; i++) {
        mb_test_run r;
        CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "D=%s; %s ZOO_MAKE_ARGS='%s' timeout 120 bash "
                                             "tests/bench/zoo.sh", dir, where[i].env,
                                         MB_TEST_MAKE_ARGS), 0);
        int ok = r.status == 1 && strstr(r.err, where[i].needle) && mb_test_lines(r.err) == 1;
        CU_ASSERT_TRUE(ok);
        if (!ok)
            fprintf(stderr, "\n  zoo %s: status %d: %s", where[i].env, r.status, r.err);
        mb_test_run_free(&r);
    }
    /* E2: the net make zoo refused to write over is whole */
    mb_test_run r0;
    CU_ASSERT_TRUE(mb_test_sh_ok(&r0, "cmp -s data/nets/lenet5.cfg %s/out/a.log", dir));
    mb_test_run_free(&r0);
    /* campaign 37's E3: a knob each zoo line sets, given to make zoo, was ignored (exit 0) */
    static const char *const line_knobs[] = {"LR=1e39", "TARGET_LOSS=-1", "NET=mlp",
                                             "DATA=mnist", "LRS=0.01,0.02"};
    for (size_t i = 0; i < sizeof line_knobs / sizeof line_knobs[0]; i++) {
        mb_test_run r;
        CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "timeout 60 make -s -n zoo %s OUT=%s/o ZOO=%s/zoo.txt "
                                             "%s", MB_TEST_MAKE_ARGS, dir, dir, line_knobs[i]), 0);
        size_t klen = strcspn(line_knobs[i], "=");
        int ok = r.status == 2 && mb_test_lines(r.err) == 1 &&
                 strstr(r.err, "make zoo takes NET, DATA, LR and TARGET_LOSS from each line of ZOO") &&
                 strncmp(strstr(r.err, "*** ") ? strstr(r.err, "*** ") + 4 : "", line_knobs[i], klen) == 0;
        CU_ASSERT_TRUE(ok);
        if (!ok)
            fprintf(stderr, "\n  make zoo %s: status %d: %s", line_knobs[i], r.status, r.err);
        mb_test_run_free(&r);
    }
    /* campaign 38's F4: the same knobs, and OUT, in ZOO_MAKE_ARGS (before each line's knobs,
     * which won: the zoo trained), and a ZOO_OUT of make zoo's own (replaced by OUT/zoo) */
    static const struct {
        const char *env, *needle;
    } zoo_args[] = {
        {"ZOO_MAKE_ARGS='LR=1e39'", "ZOO_MAKE_ARGS holds LR=1e39: make zoo takes NET, DATA, LR "
                                    "and TARGET_LOSS from each line of ZOO"},
        {"ZOO_MAKE_ARGS='THREADS=1 NET:=mlp'", "ZOO_MAKE_ARGS holds NET:=mlp: make zoo takes"},
        {"ZOO_MAKE_ARGS='OUT=/tmp/x'", "ZOO_MAKE_ARGS holds OUT=/tmp/x: make zoo writes each line "
                                       "into OUT/zoo/NAME: give OUT to make zoo"},
        {"ZOO_OUT=/tmp/x", "ZOO_OUT=/tmp/x: make zoo writes into OUT/zoo ("},
        /* campaign 39's B-F8: the knobs that answer for another loss than each line's
         * TARGET_LOSS, which zoo.md's target column prints */
        {"ZOO_MAKE_ARGS='FINAL_LOSS=0.3'", "ZOO_MAKE_ARGS holds FINAL_LOSS=0.3: each line's "
                                           "TARGET_LOSS is the loss its answer is for (zoo.md's "
                                           "target column)"},
        {"ZOO_MAKE_ARGS='THREADS=1 CAL_SEEDS=0'", "ZOO_MAKE_ARGS holds CAL_SEEDS=0: each line's"},
    };
    /* campaign 40's D7, D8: make's options, and a variable twice, in ZOO_MAKE_ARGS (zoo.sh) */
    static const struct {
        const char *args, *needle;
    } zoo_words[] = {
        {"-k", "ZOO_MAKE_ARGS holds '-k': make variables only (NAME=VALUE)"},
        {"-f /dev/null", "ZOO_MAKE_ARGS holds '-f': make variables only"},
        {"HOLDOUT_SEEDS=5 HOLDOUT_SEEDS=6", "ZOO_MAKE_ARGS gives HOLDOUT_SEEDS twice "
                                            "(HOLDOUT_SEEDS=5 and HOLDOUT_SEEDS=6)"},
    };
    for (size_t i = 0; i < sizeof zoo_words / sizeof zoo_words[0]; i++) {
        mb_test_run r;
        CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "ZOO=%s/zoo.txt ZOO_OUT=%s/out ZOO_MAKE_ARGS='%s %s' "
                                             "timeout 60 bash tests/bench/zoo.sh", dir, dir,
                                         MB_TEST_MAKE_ARGS, zoo_words[i].args), 0);
        int ok = r.status == 1 && mb_test_lines(r.err) == 1 && strstr(r.err, zoo_words[i].needle);
        CU_ASSERT_TRUE(ok);
        if (!ok)
            fprintf(stderr, "\n  zoo.sh ZOO_MAKE_ARGS='%s': status %d: %s", zoo_words[i].args,
                    r.status, r.err);
        mb_test_run_free(&r);
    }
    for (size_t i = 0; i < sizeof zoo_args / sizeof zoo_args[0]; i++) {
        mb_test_run r;
        CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "%s timeout 60 make -s -n zoo %s OUT=%s/o "
                                             "ZOO=%s/zoo.txt", zoo_args[i].env,
                                         MB_TEST_MAKE_ARGS, dir, dir), 0);
        int ok = r.status == 2 && mb_test_lines(r.err) == 1 && strstr(r.err, zoo_args[i].needle);
        CU_ASSERT_TRUE(ok);
        if (!ok)
            fprintf(stderr, "\n  make zoo %s: status %d: %s", zoo_args[i].env, r.status, r.err);
        mb_test_run_free(&r);
    }
    /* zoo.sh run by hand refuses them too */
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r0, "ZOO=%s/zoo.txt ZOO_OUT=%s/out ZOO_MAKE_ARGS='%s "
                                          "TARGET_LOSS=0.3' bash tests/bench/zoo.sh", dir, dir,
                                     MB_TEST_MAKE_ARGS), 0);
    CU_ASSERT_EQUAL(r0.status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r0.err, "make zoo: ZOO_MAKE_ARGS holds TARGET_LOSS=0.3: NET, "
                                          "DATA, LR and TARGET_LOSS are each line's"));
    CU_ASSERT_EQUAL(mb_test_lines(r0.err), 1);
    mb_test_run_free(&r0);
    /* FINAL_LOSS given to make zoo reaches every line's make run as well (campaign 39's B-F8) */
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r0, "timeout 60 make -s -n zoo %s OUT=%s/o ZOO=%s/zoo.txt "
                                          "FINAL_LOSS=0.4", MB_TEST_MAKE_ARGS, dir, dir), 0);
    CU_ASSERT_EQUAL(r0.status, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(r0.err, "FINAL_LOSS=0.4 given to make zoo: each line's "
                                          "TARGET_LOSS is the loss its answer is for"));
    CU_ASSERT_EQUAL(mb_test_lines(r0.err), 1);
    mb_test_run_free(&r0);
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r0, "ZOO=%s/zoo.txt ZOO_OUT=%s/out ZOO_MAKE_ARGS='%s "
                                          "FINAL_LOSS=0.3' bash tests/bench/zoo.sh", dir, dir,
                                     MB_TEST_MAKE_ARGS), 0);
    CU_ASSERT_EQUAL(r0.status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r0.err, "make zoo: ZOO_MAKE_ARGS holds FINAL_LOSS=0.3: each "
                                          "line's TARGET_LOSS is the loss its answer is for"));
    CU_ASSERT_EQUAL(mb_test_lines(r0.err), 1);
    mb_test_run_free(&r0);
    /* the knobs zoo passes on to each line's make run still pass */
    CU_ASSERT_TRUE(mb_test_sh_ok(&r0, "make -s -n zoo %s OUT=%s/o ZOO=%s/zoo.txt HOLDOUT_SEEDS=5 "
                                      "THREADS=1 >/dev/null", MB_TEST_MAKE_ARGS, dir, dir));
    mb_test_run_free(&r0);
    mb_test_rmdir(dir);
}

int mb_test_suite_solver_holdout(void)
{
    CU_pSuite s = CU_add_suite("solver_holdout", NULL, NULL);
    return !s || !CU_add_test(s, "held-out plan: fresh seeds only", test_plan_fresh_seeds) ||
           !CU_add_test(s, "held-out check: ahead, tied, behind", test_holdout_verdicts) ||
           !CU_add_test(s, "held-out check: paired by seed", test_holdout_paired) ||
           !CU_add_test(s, "held-out check: P = 2 against one learner", test_holdout_across) ||
           !CU_add_test(s, "held-out check: the error's interval over seeds",
                        test_holdout_err_interval) ||
        !CU_add_test(s, "held-out T_update error's side", test_holdout_tu_side) ||
        !CU_add_test(s, "held-out T_update's shared level", test_holdout_tu_level) ||
        !CU_add_test(s, "the machine's speed from repeated runs", test_machine_speed) ||
           !CU_add_test(s, "T_C's interval over resamples of seeds", test_tc_interval) ||
           !CU_add_test(s, "held-out sweep: past a best at its edge", test_holdout_beyond) ||
           !CU_add_test(s, "sequential sampling: a winner and a tie", test_sequential) ||
           !CU_add_test(s, "sequential sampling: three lucky runs", test_sequential_pooled) ||
           !CU_add_test(s, "sequential sampling: the leader and its nearest rivals",
                        test_sequential_focus) ||
           !CU_add_test(s, "sequential sampling: the leader's untrained neighbours",
                        test_sequential_fill) ||
           !CU_add_test(s, "sequential sampling: seeds shared with the leader, paired",
                        test_sequential_paired) ||
           !CU_add_test(s, "flat range of a known curve", test_flat_range) ||
           !CU_add_test(s, "a grid sweep's predicted cost", test_grid_cost) ||
           !CU_add_test(s, "mbopt validate --holdout", test_mbopt_holdout) ||
           !CU_add_test(s, "mbopt validate --holdout-plan past the runs' edge",
                        test_mbopt_holdout_edge) ||
           !CU_add_test(s, "make zoo: bad input", test_zoo_bad_input) ||
           !CU_add_test(s, "make run calibration: bad input", test_calibration_bad_input) ||
           !CU_add_test(s, "make run's time cap", test_run_time_cap) ||
           !CU_add_test(s, "make run knobs: checked before any stage", test_run_knobs) ||
           !CU_add_test(s, "make run: the P > 1 held-out plan holds no grid flags",
                        test_run_holdpar_plan) ||
           !CU_add_test(s, "make run: validate.csv's call holds no grid or held-out flags",
                        test_run_validate_csv) ||
           !CU_add_test(s, "make run knobs under a decimal-comma locale", test_run_knobs_locale) ||
           !CU_add_test(s, "make run BACKEND=cuda: the probe's hint names the device",
                        test_cuda_probe_hint) ||
           !CU_add_test(s, "make run: a HOSTFILE host that never answers, bounded",
                        test_hostfile_unreachable) ||
           !CU_add_test(s, "make run: a HOSTFILE host that refuses ssh, named",
                        test_hostfile_ssh_refused) ||
           !CU_add_test(s, "make run: a stage's file as the goal, its knobs checked",
                        test_stage_goals);
}
