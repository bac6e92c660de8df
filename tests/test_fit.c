/* test_fit.c — fit/ and mbfit: known parameters recovered from exact and noisy synthetic data,
 * interval coverage over many seeds, the knee located between the right measured points,
 * threshold crossing in hand-written run logs (tests/fixtures/fit/), every bad-input path of the
 * command (one line, exit 1, no file left), and mbfit's JSON read by `mbopt scale` end to end.
 *
 * Noise comes from GSL's mt19937 with fixed seeds, so every run sees the same data. The scipy
 * comparison lives in tests/fit_reference.py (not part of make check).
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <gsl/gsl_rng.h>

#include "../fit/mb_fit.h"
#include "../train/run/mb_run.h"
#include "mb_test.h"
#include "../data/mb_json.h"

#define FIX MB_TEST_SRC "/tests/fixtures/fit"

/* Builds a points file's runs in memory: batch[i], n[i] (one run each). */
static int make_runs(mb_fit_runs *r, size_t n, const double *batch, const double *nu)
{
    memset(r, 0, sizeof *r);
    r->n = n;
    r->n_thr = 1;
    r->thresholds = malloc(sizeof(double));
    r->batch = malloc(n * sizeof(double));
    r->seed = malloc(n * sizeof(double));
    r->n_update = malloc(n * sizeof(double));
    if (!r->thresholds || !r->batch || !r->seed || !r->n_update)
        return -1;
    r->thresholds[0] = NAN;
    for (size_t i = 0; i < n; i++)
        r->batch[i] = batch[i], r->n_update[i] = nu[i], r->seed[i] = NAN;
    return 0;
}

/* ---- the inverse law -------------------------------------------------------------------------- */

static const double Ms[] = {8, 16, 32, 64, 128, 256, 512, 1024};
#define NM (sizeof Ms / sizeof Ms[0])

static void test_inverse_exact(void)
{
    /* Not round numbers; exact data: the fit must return them to 1e-10 (the solution is
     * the weighted linear one, so only rounding of ~1e-15 per operation enters). */
    const double n_inf = 1234.567, alpha = 345678.9;
    double nu[NM];
    for (size_t i = 0; i < NM; i++)
        nu[i] = n_inf + alpha / Ms[i];
    for (int w = 0; w < 2; w++) {
        mb_fit_runs runs;
        CU_ASSERT_FATAL(make_runs(&runs, NM, Ms, nu) == 0);
        mb_fit_nupdate_options o;
        mb_fit_nupdate_options_init(&o);
        o.weights = w ? MB_FIT_W_RELATIVE : MB_FIT_W_NONE;
        mb_fit_nupdate f;
        mb_error err = {0};
        CU_ASSERT_EQUAL_FATAL(mb_fit_nupdate_run(&runs, 0, &o, &f, &err), MB_OK);
        CU_ASSERT_EQUAL(f.inverse.status, MB_OK);
        CU_ASSERT(mb_test_close(f.inverse.p[0], n_inf, 1e-10));
        CU_ASSERT(mb_test_close(f.inverse.p[1], alpha, 1e-10));
        CU_ASSERT(f.inverse.r2 > 1 - 1e-12);
        /* McCandlish: the same curve, B_noise = alpha / N_inf */
        CU_ASSERT(f.have_mccandlish);
        CU_ASSERT(mb_test_close(f.mccandlish.p[0], n_inf, 1e-10));
        CU_ASSERT(mb_test_close(f.mccandlish.p[1], alpha / n_inf, 1e-10));
        /* power law with b = 1 is the inverse law */
        CU_ASSERT(f.have_power);
        CU_ASSERT(mb_test_close(f.power.p[2], 1.0, 1e-8));
        mb_fit_nupdate_free(&f);
        mb_fit_runs_free(&runs);
    }
}

static void test_power_exact(void)
{
    /* Exact power-law data, b = 0.7: the power law recovers it and wins by AIC. 1e-8: GSL
     * stops on a step of 1e-14 relative, the exponent is the worst-conditioned parameter. */
    const double n_inf = 523.4, a = 98765.4, b = 0.7;
    double nu[NM];
    for (size_t i = 0; i < NM; i++)
        nu[i] = n_inf + a * pow(Ms[i], -b);
    mb_fit_runs runs;
    CU_ASSERT_FATAL(make_runs(&runs, NM, Ms, nu) == 0);
    mb_fit_nupdate_options o;
    mb_fit_nupdate_options_init(&o);
    mb_fit_nupdate f;
    CU_ASSERT_EQUAL_FATAL(mb_fit_nupdate_run(&runs, 0, &o, &f, NULL), MB_OK);
    CU_ASSERT(f.have_power && f.power.status == MB_OK);
    CU_ASSERT(mb_test_close(f.power.p[0], n_inf, 1e-8));
    CU_ASSERT(mb_test_close(f.power.p[1], a, 1e-8));
    CU_ASSERT(mb_test_close(f.power.p[2], b, 1e-8));
    CU_ASSERT_STRING_EQUAL(f.aic_best, "power-law");
    mb_fit_nupdate_free(&f);
    mb_fit_runs_free(&runs);
}

/* Exact data of the shifted law (a pole at M_0 = 6.25, below the least M): it is recovered, and
 * the default choice names it; --choose inverse keeps the inverse law. */
static void test_shifted_exact(void)
{
    const double n_inf = 312.5, alpha = 45678.9, m0 = 6.25;
    double nu[NM];
    for (size_t i = 0; i < NM; i++)
        nu[i] = n_inf + alpha / (Ms[i] - m0);
    mb_fit_runs runs;
    CU_ASSERT_FATAL(make_runs(&runs, NM, Ms, nu) == 0);
    for (int c = 0; c < 2; c++) {
        mb_fit_nupdate_options o;
        mb_fit_nupdate_options_init(&o);
        o.choose = c ? MB_FIT_CHOOSE_INVERSE : o.choose;
        mb_fit_nupdate f;
        CU_ASSERT_EQUAL_FATAL(mb_fit_nupdate_run(&runs, 0, &o, &f, NULL), MB_OK);
        CU_ASSERT(f.have_shifted && f.shifted.status == MB_OK);
        CU_ASSERT(mb_test_close(f.shifted.p[0], n_inf, 1e-7));
        CU_ASSERT(mb_test_close(f.shifted.p[1], alpha, 1e-7));
        CU_ASSERT(mb_test_close(f.shifted.p[2], m0, 1e-7));
        CU_ASSERT_STRING_EQUAL(f.best, c ? "inverse-law" : "shifted-law");
        mb_fit_nupdate_free(&f);
    }
    mb_fit_runs_free(&runs);
}

/* Runs of the inverse law with 8% noise, 3 seeds an M: the default choice keeps the inverse
 * law unless AIC is lower by more than 2 for the shifted one. With known errors chance would do
 * that in ~5% of sets (the likelihood-ratio statistic of one extra parameter over 4); with the
 * errors estimated from 3 runs an M (pooled weights, as make run fits) it does in 21 of these
 * 200, so at most 30 may pick it; shifted data of the same noise (M_0 = 5) must be named in
 * most. */
static void test_shifted_choice_noise(void)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 2026);
    size_t picked[2] = {0, 0};
    enum { S = 200, R = 3 };
    for (int s = 0; s < S; s++)
        for (int shifted = 0; shifted < 2; shifted++) {
            double b[NM * R], nu[NM * R];
            for (size_t i = 0; i < NM * R; i++) {
                b[i] = Ms[i / R];
                nu[i] = (400.0 + 3.0e4 / (b[i] - (shifted ? 5.0 : 0.0))) *
                        exp(gsl_ran_gaussian(rng, 0.08));
            }
            mb_fit_runs runs;
            CU_ASSERT_FATAL(make_runs(&runs, NM * R, b, nu) == 0);
            mb_fit_nupdate_options o;
            mb_fit_nupdate_options_init(&o);
            o.weights = MB_FIT_W_POOLED;
            mb_fit_nupdate f;
            if (mb_fit_nupdate_run(&runs, 0, &o, &f, NULL) == MB_OK)
                picked[shifted] += strcmp(f.best, "shifted-law") == 0;
            mb_fit_nupdate_free(&f);
            mb_fit_runs_free(&runs);
        }
    gsl_rng_free(rng);
    printf("\n    shifted law chosen: %zu of %d inverse-law sets, %zu of %d shifted ones ",
           picked[0], S, picked[1], S);
    CU_ASSERT(picked[0] <= 30);
    CU_ASSERT(picked[1] >= S / 2);
}

/* An M where most runs never reached the target is censored: the runs that did are its fastest,
 * so their mean under-counts it. It is left out of the law (with a warning naming it), and the
 * law is the one the other M give: here exactly the inverse law they were drawn from. */
static void test_censored_group(void)
{
    const double n_inf = 300, alpha = 20000;
    double b[3 * 6], nu[3 * 6];
    size_t n = 0;
    for (size_t i = 1; i < 7; i++) /* M = 16 .. 512, three runs each */
        for (int s = 0; s < 3; s++, n++)
            b[n] = Ms[i], nu[n] = n_inf + alpha / Ms[i];
    nu[0] = 0.5 * (n_inf + alpha / 16), nu[1] = nu[2] = NAN; /* M = 16: one run of 3 arrived */
    mb_fit_runs runs;
    CU_ASSERT_FATAL(make_runs(&runs, n, b, nu) == 0);
    mb_fit_nupdate_options o;
    mb_fit_nupdate_options_init(&o);
    o.weights = MB_FIT_W_RELATIVE;
    o.bootstrap = 0;
    mb_fit_nupdate f;
    mb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(mb_fit_nupdate_run(&runs, 0, &o, &f, &err), MB_OK);
    CU_ASSERT(mb_test_close(f.inverse.p[0], n_inf, 1e-9));
    CU_ASSERT(mb_test_close(f.inverse.p[1], alpha, 1e-9));
    CU_ASSERT_EQUAL(f.inverse.n_points, 5);
    CU_ASSERT_EQUAL(f.range_lo, 32); /* and out of the converged range */
    int named = 0;
    for (size_t w = 0; w < f.warn.n; w++)
        named |= strstr(f.warn.msg[w], "M=16: only 1 of 3 runs reached") != NULL;
    CU_ASSERT(named);
    mb_fit_nupdate_free(&f);
    /* with M = 16 and 32 the only M and each censored, nothing is left to fit: one line */
    for (size_t i = 0; i < n; i++)
        if (b[i] > 32)
            nu[i] = NAN;
    nu[3] = 300, nu[4] = nu[5] = NAN;
    runs.n_update = memcpy(runs.n_update, nu, n * sizeof *nu);
    CU_ASSERT_EQUAL(mb_fit_nupdate_run(&runs, 0, &o, &f, &err), MB_ENODATA);
    CU_ASSERT(strstr(err.msg, "most runs reached it at no mini-batch size") != NULL);
    mb_fit_nupdate_free(&f);
    mb_fit_runs_free(&runs);
}

static void test_negative_n_inf(void)
{
    /* N_inf < 0 is reported as found with a warning, never clipped. */
    double nu[NM];
    for (size_t i = 0; i < NM; i++)
        nu[i] = -37.5 + 250000.0 / Ms[i];
    mb_fit_runs runs;
    CU_ASSERT_FATAL(make_runs(&runs, NM, Ms, nu) == 0);
    mb_fit_nupdate_options o;
    mb_fit_nupdate_options_init(&o);
    mb_fit_nupdate f;
    CU_ASSERT_EQUAL_FATAL(mb_fit_nupdate_run(&runs, 0, &o, &f, NULL), MB_OK);
    CU_ASSERT(mb_test_close(f.inverse.p[0], -37.5, 1e-9));
    int warned = 0;
    for (size_t i = 0; i < f.warn.n; i++)
        warned |= strstr(f.warn.msg[i], "N_inf fitted negative") != NULL;
    CU_ASSERT(warned);
    CU_ASSERT_FALSE(f.have_mccandlish);
    mb_fit_nupdate_free(&f);
    mb_fit_runs_free(&runs);
}

/* Coverage: the 95% intervals must contain the truth in 90-99% of seeds. With 400 seeds the
 * binomial standard deviation of a 95% coverage is 1.1%, so a correct method lies in the band
 * with overwhelming probability, and a method whose intervals are too narrow or too wide by a
 * factor 1.5 falls outside it. */
#define SEEDS 400

static void test_inverse_coverage(void)
{
    const double n_inf = 812.3, alpha = 1.37e5;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 12345);
    size_t cover[2] = {0, 0}, seeds_cover[2] = {0, 0};
    double mean[2] = {0, 0};
    for (int s = 0; s < SEEDS; s++) {
        /* 3 seeds per M, 8% lognormal noise per run; fit the per-M means */
        double b[3 * NM], nu[3 * NM];
        for (size_t i = 0; i < 3 * NM; i++) {
            b[i] = Ms[i / 3];
            nu[i] = (n_inf + alpha / b[i]) * exp(0.08 * gsl_ran_gaussian(rng, 1.0));
        }
        mb_fit_runs runs;
        CU_ASSERT_FATAL(make_runs(&runs, 3 * NM, b, nu) == 0);
        for (int w = 0; w < 2; w++) {
            mb_fit_nupdate_options o;
            mb_fit_nupdate_options_init(&o);
            o.weights = w ? MB_FIT_W_SEEDS : MB_FIT_W_RELATIVE;
            mb_fit_nupdate f;
            CU_ASSERT_EQUAL_FATAL(mb_fit_nupdate_run(&runs, 0, &o, &f, NULL), MB_OK);
            CU_ASSERT(f.inverse.status == MB_OK);
            const double truth[2] = {n_inf, alpha};
            for (int j = 0; j < 2; j++) {
                int in = f.inverse.ci_lo[j] <= truth[j] && truth[j] <= f.inverse.ci_hi[j];
                (w ? seeds_cover : cover)[j] += in;
                if (!w)
                    mean[j] += f.inverse.p[j] / SEEDS;
            }
            mb_fit_nupdate_free(&f);
        }
        mb_fit_runs_free(&runs);
    }
    gsl_rng_free(rng);
    if (getenv("MB_TEST_VERBOSE"))
        fprintf(stderr, "\ninverse law coverage relative: n_inf %.3f alpha %.3f; seeds: %.3f "
                        "%.3f; mean n_inf %.2f alpha %.1f\n",
                cover[0] / (double)SEEDS, cover[1] / (double)SEEDS,
                seeds_cover[0] / (double)SEEDS, seeds_cover[1] / (double)SEEDS, mean[0], mean[1]);
    for (int j = 0; j < 2; j++) {
        CU_ASSERT(cover[j] >= 0.90 * SEEDS && cover[j] <= 0.99 * SEEDS);
    }
    /* --weights seeds divides by a standard error estimated from 3 runs, itself noisy (a
     * chi-square with 2 degrees of freedom), so its intervals under-cover: measured 0.79-0.82
     * here. docs/commands.md ("mbfit") says so; this band only guards against it getting worse. */
    for (int j = 0; j < 2; j++)
        CU_ASSERT(seeds_cover[j] >= 0.75 * SEEDS);
    /* unbiased to within 1% (noise 8% per run / sqrt(24) over 400 seeds is far smaller;
     * the lognormal mean exp(s^2/2) = 1.0032 is the only bias) */
    CU_ASSERT(mb_test_close(mean[0], n_inf, 0.01));
    CU_ASSERT(mb_test_close(mean[1], alpha, 0.01));
}

static void test_bootstrap(void)
{
    /* Bootstrap intervals exist, contain the estimate and are deterministic for a seed. */
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 7);
    double b[4 * NM], nu[4 * NM];
    for (size_t i = 0; i < 4 * NM; i++) {
        b[i] = Ms[i / 4];
        nu[i] = (700.0 + 9.1e4 / b[i]) * exp(0.05 * gsl_ran_gaussian(rng, 1.0));
    }
    gsl_rng_free(rng);
    mb_fit_runs runs;
    CU_ASSERT_FATAL(make_runs(&runs, 4 * NM, b, nu) == 0);
    mb_fit_nupdate_options o;
    mb_fit_nupdate_options_init(&o);
    o.bootstrap = 300;
    mb_fit_nupdate f, g;
    CU_ASSERT_EQUAL_FATAL(mb_fit_nupdate_run(&runs, 0, &o, &f, NULL), MB_OK);
    CU_ASSERT_EQUAL_FATAL(mb_fit_nupdate_run(&runs, 0, &o, &g, NULL), MB_OK);
    CU_ASSERT_EQUAL(f.boot_ok, 300);
    for (int j = 0; j < 2; j++) {
        CU_ASSERT(f.boot_lo[j] < f.inverse.p[j] && f.inverse.p[j] < f.boot_hi[j]);
        CU_ASSERT(f.boot_lo[j] == g.boot_lo[j] && f.boot_hi[j] == g.boot_hi[j]);
        /* the bootstrap and the Jacobian intervals measure the same spread: within 3x */
        double wb = f.boot_hi[j] - f.boot_lo[j], wj = f.inverse.ci_hi[j] - f.inverse.ci_lo[j];
        CU_ASSERT(wb > wj / 3 && wb < wj * 3);
    }
    mb_fit_nupdate_free(&f);
    mb_fit_nupdate_free(&g);
    mb_fit_runs_free(&runs);
}

/* Resamples of whole seeds: 4 seeds at every M, each seed's luck a factor on all its runs
 * (as a data order is) and little else. Resampling each M's runs on its own lets the M's
 * means move independently, so the law's level in the middle of the sweep (N at M = 64, where
 * every M weighs in) averages over 8 M and hardly moves; resampling seeds moves every M
 * together, as a fresh set of seeds would: its spread is about sqrt(8) times wider. Unknown
 * seeds, or fewer than 3: no seed resamples. */
static void test_bootstrap_seeds(void)
{
    const double luck[4] = {0.85, 1.0, 1.05, 1.2};
    double b[4 * NM], nu[4 * NM];
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 9);
    for (size_t i = 0; i < 4 * NM; i++) {
        b[i] = Ms[i / 4];
        nu[i] = (700.0 + 9.1e4 / b[i]) * luck[i % 4] * exp(0.01 * gsl_ran_gaussian(rng, 1.0));
    }
    gsl_rng_free(rng);
    mb_fit_runs runs;
    CU_ASSERT_FATAL(make_runs(&runs, 4 * NM, b, nu) == 0);
    for (size_t i = 0; i < 4 * NM; i++)
        runs.seed[i] = (double)(i % 4);
    mb_fit_nupdate_options o;
    mb_fit_nupdate_options_init(&o);
    o.bootstrap = 400;
    mb_fit_nupdate f;
    CU_ASSERT_EQUAL_FATAL(mb_fit_nupdate_run(&runs, 0, &o, &f, NULL), MB_OK);
    CU_ASSERT_EQUAL(f.boot_seeds, 4);
    CU_ASSERT_FATAL(f.boot_n_seed >= 380 && f.boot_n_best >= 380);
    double *x = malloc(f.boot_n_seed * sizeof *x), *y = malloc(f.boot_n_best * sizeof *y);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    CU_ASSERT_PTR_NOT_NULL_FATAL(y);
    CU_ASSERT_STRING_EQUAL_FATAL(f.best, "inverse-law"); /* [n_inf, alpha, 1] */
    for (size_t i = 0; i < f.boot_n_seed; i++)
        x[i] = f.boot_seed[3 * i] + f.boot_seed[3 * i + 1] / 64;
    for (size_t i = 0; i < f.boot_n_best; i++)
        y[i] = f.boot_best[3 * i] + f.boot_best[3 * i + 1] / 64;
    gsl_sort(x, 1, f.boot_n_seed);
    gsl_sort(y, 1, f.boot_n_best);
    const double ws = gsl_stats_quantile_from_sorted_data(x, 1, f.boot_n_seed, 0.975) -
                      gsl_stats_quantile_from_sorted_data(x, 1, f.boot_n_seed, 0.025),
                 wr = gsl_stats_quantile_from_sorted_data(y, 1, f.boot_n_best, 0.975) -
                      gsl_stats_quantile_from_sorted_data(y, 1, f.boot_n_best, 0.025);
    if (getenv("MB_TEST_VERBOSE"))
        fprintf(stderr, "\nN(64) 95%% widths: seeds %.1f, runs %.1f (%s)\n", ws, wr, f.best);
    CU_ASSERT(ws > 2 * wr);
    /* within the seeds' own spread, 0.85-1.2 of N(64) = 2121.9 */
    CU_ASSERT(x[0] > 0.8 * 2121.9 && x[f.boot_n_seed - 1] < 1.25 * 2121.9);
    free(x);
    free(y);
    mb_fit_nupdate_free(&f);
    for (size_t i = 0; i < 4 * NM; i++) /* two seeds only */
        runs.seed[i] = (double)(i % 2);
    CU_ASSERT_EQUAL_FATAL(mb_fit_nupdate_run(&runs, 0, &o, &f, NULL), MB_OK);
    CU_ASSERT_EQUAL(f.boot_n_seed, 0);
    CU_ASSERT_PTR_NULL(f.boot_seed);
    CU_ASSERT(f.boot_n_best >= 380);
    mb_fit_nupdate_free(&f);
    runs.seed[5] = NAN; /* a run of unknown seed */
    for (size_t i = 0; i < 4 * NM; i++)
        runs.seed[i] = i == 5 ? NAN : (double)(i % 4);
    CU_ASSERT_EQUAL_FATAL(mb_fit_nupdate_run(&runs, 0, &o, &f, NULL), MB_OK);
    CU_ASSERT_EQUAL(f.boot_n_seed, 0);
    mb_fit_nupdate_free(&f);
    mb_fit_runs_free(&runs);
}

/* ---- run logs --------------------------------------------------------------------------------- */

static void test_logs_crossing(void)
{
    const char *paths[] = {FIX "/run_M32_s0.csv", FIX "/run_M32_s1.csv", FIX "/run_M128_s0.csv",
                           FIX "/run_M128_s1.csv", FIX "/run_M512_s0.csv"};
    const double thr[] = {0.5, 0.45};
    mb_fit_runs runs;
    mb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(mb_fit_runs_read_logs(paths, 5, thr, 2, 10, &runs, &err), MB_OK);
    /* eval_loss <= 0.5 first at: 400 (0.49), 300 (0.5 counts), 200, never, 200 */
    const double want5[] = {400, 300, 200, NAN, 200}, want45[] = {500, 400, NAN, NAN, 200};
    for (size_t i = 0; i < 5; i++) {
        CU_ASSERT(isnan(want5[i]) ? isnan(runs.n_update[2 * i]) : runs.n_update[2 * i] == want5[i]);
        CU_ASSERT(isnan(want45[i]) ? isnan(runs.n_update[2 * i + 1])
                                   : runs.n_update[2 * i + 1] == want45[i]);
    }
    CU_ASSERT_EQUAL(runs.batch[2], 128);
    CU_ASSERT_EQUAL(runs.seed[1], 1);
    mb_fit_nupdate_options o;
    mb_fit_nupdate_options_init(&o);
    mb_fit_nupdate f;
    CU_ASSERT_EQUAL_FATAL(mb_fit_nupdate_run(&runs, 0, &o, &f, &err), MB_OK);
    CU_ASSERT_EQUAL(f.n_groups, 3);
    CU_ASSERT_EQUAL(f.unreached, 1);
    CU_ASSERT_EQUAL(f.groups[0].reached, 2);
    CU_ASSERT_EQUAL(f.groups[0].mean, 350);
    CU_ASSERT(mb_test_close(f.groups[0].sd, sqrt(5000.0), 1e-14));
    CU_ASSERT_EQUAL(f.groups[1].runs, 2);
    CU_ASSERT_EQUAL(f.groups[1].reached, 1);
    CU_ASSERT_EQUAL(f.groups[1].mean, 200); /* the unreached run is not counted at 300 */
    mb_fit_nupdate_free(&f);
    mb_fit_runs_free(&runs);

    /* The training loss with a smoothing window, when there is no evaluation column. */
    const char *tp[] = {FIX "/train_only_M64.csv"};
    const double t5 = 0.5;
    CU_ASSERT_EQUAL_FATAL(mb_fit_runs_read_logs(tp, 1, &t5, 1, 1, &runs, &err), MB_OK);
    CU_ASSERT_EQUAL(runs.n_update[0], 20);
    CU_ASSERT_EQUAL(runs.used_train_loss, 1);
    mb_fit_runs_free(&runs);
    CU_ASSERT_EQUAL_FATAL(mb_fit_runs_read_logs(tp, 1, &t5, 1, 2, &runs, &err), MB_OK);
    CU_ASSERT_EQUAL(runs.n_update[0], 50); /* mean of the last 2 rows: (0.5 + 0.3) / 2 */
    mb_fit_runs_free(&runs);
    CU_ASSERT_EQUAL_FATAL(mb_fit_runs_read_logs(tp, 1, &t5, 1, 10, &runs, &err), MB_OK);
    CU_ASSERT(isnan(runs.n_update[0])); /* fewer rows than the window: never reached */
    mb_fit_runs_free(&runs);
}

/* Issue #25, campaign 18's M8 and known minors: what the run-log reader takes from what mbtrain
 * writes. `# algo=` and the summary's algo= name an algorithm of mbtrain's own tables (every
 * one reads; 'bogus' went into the fit); the summary is one line after the last row; a log
 * whose `# tool=` is mbtrain or the PyTorch front end ends with one (they write it whole at
 * the end), while a hand-made log may leave it out. Each refusal names file and line. */
static void test_logs_written(void)
{
    char dir[256], path[512], text[1024];
    CU_ASSERT_FATAL(mb_test_tmpdir(dir, sizeof dir) == 0);
    const double thr = 0.5;
    mb_fit_runs runs;
    mb_error err = {0};
    const char *p[] = {path};
    /* the rest of every key mbtrain always writes in its summary (summary_keys) */
#define SUMMARY_REST " epochs=1 samples=16 wall_s=0.2 eval_s=0 loss=0.4 eval_loss=0.4 " \
                     "eval_acc=0.9 test_loss=0.4 test_acc=0.9 reached_update=2 " \
                     "reached_wall_s=0.2 evals=2 checks=0 eval_samples=4 snap_s=0 diverged=no " \
                     "diverged_update=0"
    /* every name mbtrain writes reads (both places), with both tools */
    int names = 0;
    for (int k = 0; mb_run_algo_nth(k); k++, names++) {
        const char *a = mb_run_algo_nth(k);
        snprintf(text, sizeof text, "# tool=%s\n# net=t\n# algo=%s\n# batch=8\n# seed=0\n"
                 "update,wall_s,eval_loss\n1,0.1,0.9\n2,0.2,0.4\n# net=t algo=%s batch=8 "
                 "seed=0 updates=2 reached=yes" SUMMARY_REST "\n",
                 k % 2 ? "mbtrain" : "mbkit_torch runs", a, a);
        mb_test_write(path, sizeof path, dir, "a.csv", text);
        int rc = mb_fit_runs_read_logs(p, 1, &thr, 1, 1, &runs, &err);
        CU_ASSERT_EQUAL(rc, MB_OK);
        if (rc != MB_OK)
            fprintf(stderr, "\n  algo %s: %s\n", a, err.msg);
        else
            mb_fit_runs_free(&runs);
    }
    CU_ASSERT_EQUAL(names, 11); /* sgd, momentum, nesterov and the 8 parallel algorithms */
#define HEAD(TOOL, ALGO) "# tool=" TOOL "\n# net=t\n" ALGO "# batch=8\n# seed=0\n" \
                         "update,wall_s,eval_loss\n1,0.1,0.9\n2,0.2,0.4\n"
#define SUMMARY(ALGO) "# net=t algo=" ALGO " batch=8 seed=0 updates=2 reached=yes" \
                      SUMMARY_REST "\n"
    static const struct {
        const char *text;
        const char *needle; /* NULL: read */
    } cases[] = {
        {HEAD("mbtrain", "# algo=bogus\n") SUMMARY("bogus"),
         "a.csv:3: metadata 'algo': 'bogus' is not an algorithm mbtrain writes (sgd, momentum, "
         "nesterov, sgd-sync, downpour, easgd, easgd-async, eamsgd, easgd-hogwild, easgd-sync, "
         "sma)"},
        {HEAD("mbtrain", "# algo=SGD\n") SUMMARY("SGD"), "metadata 'algo': 'SGD' is not"},
        {HEAD("mbtrain", "") SUMMARY("adam"),
         "a.csv:8: summary line: field 'algo': 'adam' is not an algorithm mbtrain writes"},
        /* a hand-made log without `# algo=` still reads */
        {"# net=t\n# batch=8\nupdate,wall_s,eval_loss\n1,0.1,0.9\n2,0.2,0.4\n", NULL},
        /* no summary: a hand-made log, data/examples' too, reads; mbtrain's is cut short */
        {HEAD("myscript", "# algo=sgd\n"), NULL},
        /* campaign 38's D8: a file of an mbkit program that writes no run log is none */
        {HEAD("mbfit", "# algo=sgd\n"), "a.csv:1: metadata 'tool': 'mbfit' writes no run log "
                                        "(mbtrain and 'mbkit_torch runs' write run logs)"},
        {HEAD("mbprobe step", "# algo=sgd\n"), "metadata 'tool': 'mbprobe step' writes a step "
                                               "table (mbtrain"},
        {HEAD("mbtrain", "# algo=sgd\n"),
         "a.csv: no summary line (net=... after the rows), but metadata 'tool' is mbtrain, "
         "which ends every log with one: the log is cut short"},
        {HEAD("mbkit_torch runs", "# algo=momentum\n"),
         "metadata 'tool' is mbkit_torch runs, which ends every log with one"},
        /* a summary without net= is not one */
        {HEAD("mbtrain", "# algo=sgd\n") "# algo=sgd batch=8 seed=0 updates=2 reached=yes\n",
         "a.csv: no summary line"},
        /* rows after it, or a second one */
        {HEAD("mbtrain", "# algo=sgd\n") SUMMARY("sgd") "3,0.3,0.3\n4,0.4,0.2\n",
         "a.csv:10: a row after the summary line (line 9): the summary is written last"},
        {HEAD("mbtrain", "# algo=sgd\n") "# net=t updates=1\n3,0.3,0.3\n" SUMMARY("sgd"),
         "a.csv:11: two summary lines (net=... after the rows), the first at line 9"},
        {"# batch=8\nupdate,wall_s,eval_loss\n1,0.1,0.9\n# net=t batch=8 reached=no\n2,0.2,0.4\n",
         "a.csv:5: a row after the summary line (line 4)"},
        /* a comment after the summary is a comment */
        {HEAD("mbtrain", "# algo=sgd\n") SUMMARY("sgd") "# copied from node 3\n", NULL},
        /* campaign 20's minor: a summary cut short (a field mbtrain always writes is missing,
         * or the file ends inside the line) is refused; the front end writes no test_* */
        {HEAD("mbtrain", "# algo=sgd\n") "# net=t algo=sgd batch=8 seed=0 updates=2 "
                                         "reached=yes\n",
         "a.csv:9: summary line: no field 'epochs', which mbtrain writes in every summary"},
        {HEAD("mbkit_torch runs", "# algo=sgd\n") "# net=t algo=sgd batch=8 seed=0 updates=2 "
         "reached=yes epochs=1 samples=16 wall_s=0.2 eval_s=0 loss=0.4 eval_loss=0.4 "
         "eval_acc=0.9 reached_update=2 reached_wall_s=0.2 evals=2 checks=0 eval_samples=4 "
         "snap_s=0\n", "a.csv:9: summary line: no field 'diverged', which mbkit_torch runs "
                       "writes in every summary: the line is cut short"},
        {HEAD("mbkit_torch runs", "# algo=sgd\n") "# net=t algo=sgd batch=8 seed=0 updates=2 "
         "reached=yes epochs=1 samples=16 wall_s=0.2 eval_s=0 loss=0.4 eval_loss=0.4 "
         "eval_acc=0.9 reached_update=2 reached_wall_s=0.2 evals=2 checks=0 eval_samples=4 "
         "snap_s=0 diverged=no diverged_update=0\n", NULL},
        {HEAD("mbtrain", "# algo=sgd\n") "# net=t algo=sgd batch=8 seed=0 updates=2 "
         "reached=yes" SUMMARY_REST, "a.csv:9: the summary line has no newline at its end: "
                                      "the log was cut inside it"},
        {HEAD("mbtrain", "# algo=sgd\n") "# net=t algo=sgd batch=8 seed=0 updates=2 "
         "reached=yes" SUMMARY_REST " b_simple=\n", "summary line: field 'b_simple' '' is empty"},
        /* a hand-made log's summary may be short (the readers take diverged= only), but not
         * cut inside */
        {"# batch=8\nupdate,wall_s,eval_loss\n1,0.1,0.9\n# net=t batch=8 reached=no\n", NULL},
        {"# batch=8\nupdate,wall_s,eval_loss\n1,0.1,0.9\n# net=t batch=8 reached=no diver",
         "a.csv:4: the summary line has no newline at its end"},
        /* a row without a newline at the end of a log without summary is read as before */
        {"# batch=8\nupdate,wall_s,eval_loss\n1,0.1,0.9\n2,0.2,0.4", NULL},
    };
#undef HEAD
#undef SUMMARY
#undef SUMMARY_REST
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        mb_test_write(path, sizeof path, dir, "a.csv", cases[i].text);
        mb_error_clear(&err);
        int rc = mb_fit_runs_read_logs(p, 1, &thr, 1, 1, &runs, &err);
        int ok = cases[i].needle ? rc == MB_EFORMAT && strstr(err.msg, cases[i].needle) != NULL
                                 : rc == MB_OK;
        if (!ok)
            fprintf(stderr, "\n  case %zu: rc %d, '%s'\n", i, rc, err.msg);
        CU_ASSERT(ok);
        if (rc == MB_OK)
            mb_fit_runs_free(&runs);
    }
    mb_test_rmdir(dir);
}

/* ---- the knee --------------------------------------------------------------------------------- */

static const double Mk[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
#define NK (sizeof Mk / sizeof Mk[0])

static void test_knee_exact(void)
{
    /* The knee at several places between measured points, exact data: to 1e-10. */
    const double knees[] = {1.7, 5.3, 37.3, 100.1, 300.0};
    for (size_t k = 0; k < sizeof knees / sizeof knees[0]; k++) {
        const double gamma = 2.345e-5, delta = 1.234e-3, mt = knees[k];
        double t[NK];
        for (size_t i = 0; i < NK; i++)
            t[i] = gamma * fmax(Mk[i], mt) + delta;
        for (int w = 0; w < 2; w++) {
            mb_fit_tupdate f = {.learners = 1};
            mb_error err = {0};
            CU_ASSERT_EQUAL_FATAL(mb_fit_knee(NK, Mk, t, w ? MB_FIT_W_RELATIVE : MB_FIT_W_NONE,
                                              &f, &err),
                                  MB_OK);
            CU_ASSERT_EQUAL(f.knee.status, MB_OK);
            CU_ASSERT(mb_test_close(f.knee.p[0], gamma, 1e-10));
            CU_ASSERT(mb_test_close(f.knee.p[1], mt, 1e-10));
            CU_ASSERT(mb_test_close(f.knee.p[2], delta, 1e-10));
            /* between the right measured points */
            size_t j = 0;
            while (Mk[j + 1] < mt)
                j++;
            CU_ASSERT_EQUAL(f.knee_lo, Mk[j]);
            CU_ASSERT_EQUAL(f.knee_hi, Mk[j + 1]);
            mb_fit_tupdate_clear(&f);
        }
    }
}

static void test_knee_coverage(void)
{
    const double gamma = 3.1e-5, mt = 45.0, delta = 2.2e-3;
    const double truth[3] = {gamma, mt, delta};
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 4242);
    size_t cover[3] = {0, 0, 0}, right_interval = 0;
    for (int s = 0; s < SEEDS; s++) {
        double t[NK];
        for (size_t i = 0; i < NK; i++)
            t[i] = (gamma * fmax(Mk[i], mt) + delta) * exp(0.02 * gsl_ran_gaussian(rng, 1.0));
        mb_fit_tupdate f = {.learners = 1};
        CU_ASSERT_EQUAL_FATAL(mb_fit_knee(NK, Mk, t, MB_FIT_W_RELATIVE, &f, NULL), MB_OK);
        for (int j = 0; j < 3; j++)
            cover[j] += f.knee.ci_lo[j] <= truth[j] && truth[j] <= f.knee.ci_hi[j];
        right_interval += f.knee_lo >= 16 && f.knee_hi <= 128;
        mb_fit_tupdate_clear(&f);
    }
    gsl_rng_free(rng);
    if (getenv("MB_TEST_VERBOSE"))
        fprintf(stderr, "\nknee coverage gamma %.3f m_t %.3f delta %.3f; knee within [16,128] "
                        "%.3f\n",
                cover[0] / (double)SEEDS, cover[1] / (double)SEEDS, cover[2] / (double)SEEDS,
                right_interval / (double)SEEDS);
    for (int j = 0; j < 3; j++)
        CU_ASSERT(cover[j] >= 0.90 * SEEDS && cover[j] <= 0.99 * SEEDS);
    CU_ASSERT(right_interval >= 0.95 * SEEDS);
}

static void test_knee_too_few(void)
{
    const double m[] = {4, 8, 4}, t[] = {1, 2, 1.1};
    mb_fit_tupdate f = {.learners = 1};
    mb_error err = {0};
    CU_ASSERT_EQUAL(mb_fit_knee(3, m, t, MB_FIT_W_NONE, &f, &err), MB_ENODATA);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "2 distinct"));
    mb_fit_tupdate_clear(&f);
}

static void test_overlap(void)
{
    /* Exact (T_c^g + T_m^g)^(1/g) data with g = 2.7 in a step table with two learner counts:
     * the overlap form returns g to 1e-8 (GSL stops on a 1e-14 step; one parameter). */
    char dir[256], path[300], *text = malloc(16384);
    CU_ASSERT_FATAL(mb_test_tmpdir(dir, sizeof dir) == 0 && text);
    size_t n = (size_t)snprintf(text, 16384, "backend,net,batch,learners,threads,reps,t_median_s,"
                                             "t_min_s,t_p25_s,t_p75_s,t_max_s,samples_per_s,"
                                             "t_compute_s,t_comm_s\n");
    const double g = 2.7;
    for (int p = 2; p <= 4; p += 2)
        for (double m = p; m <= 2048; m *= 2) { /* a batch splits among the learners */
            double tc = 1.7e-5 * fmax(m / p, 24) + 3e-4, tm = 2.1e-3 * (p - 1) / p;
            double t = pow(pow(tc, g) + pow(tm, g), 1 / g);
            n += (size_t)snprintf(text + n, 16384 - n,
                                  "cpu,lenet5,%g,%d,1,5,%.17g,%.17g,%.17g,%.17g,%.17g,,%.17g,%.17g\n", m, p,
                                  t, t, t, t, t, tc, tm);
        }
    mb_test_write(path, sizeof path, dir, "step.csv", text);
    free(text);
    mb_fit_tupdate *f;
    size_t nf;
    mb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(mb_fit_tupdate_table(path, MB_FIT_W_RELATIVE, 0, &f, &nf, &err), MB_OK);
    CU_ASSERT_EQUAL(nf, 2);
    for (size_t k = 0; k < nf; k++) {
        CU_ASSERT(f[k].have_overlap && f[k].overlap.status == MB_OK);
        CU_ASSERT(mb_test_close(f[k].overlap.p[0], g, 1e-8));
    }
    CU_ASSERT_EQUAL(f[0].learners, 2);
    CU_ASSERT_EQUAL(f[1].learners, 4);
    mb_fit_tupdate_free_all(f, nf);
    mb_test_rmdir(dir);
}

/* Campaign 17's F2: a table timing one learner count at two thread counts (mbprobe step
 * --threads 1,2) was pooled into one knee, two points an M; it is refused naming the line, and
 * --threads picks one count, whose points are exactly its rows (the knee of exact data). */
static void test_tupdate_threads(void)
{
    char dir[256], path[300], text[4096];
    CU_ASSERT_FATAL(mb_test_tmpdir(dir, sizeof dir) == 0);
    size_t n = (size_t)snprintf(text, sizeof text, "backend,net,batch,learners,threads,reps,"
                                "t_median_s,t_min_s,t_p25_s,t_p75_s,t_max_s\n");
    for (int th = 1; th <= 2; th++)
        for (double m = 1; m <= 256; m *= 2) { /* 2 threads: twice as fast past the knee */
            double t = 1e-4 * fmax(m, 16) / th + 1e-3;
            n += (size_t)snprintf(text + n, sizeof text - n, "cpu,t,%g,1,%d,5,%.17g,%.17g,%.17g,"
                                  "%.17g,%.17g\n", m, th, t, t, t, t, t);
        }
    mb_test_write(path, sizeof path, dir, "step.csv", text);
    mb_fit_tupdate *f = NULL;
    size_t nf = 0;
    mb_error err = {0};
    CU_ASSERT_EQUAL(mb_fit_tupdate_table(path, MB_FIT_W_RELATIVE, 0, &f, &nf, &err), MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "step.csv:11: field 'threads': 2 differs from 1 "
                                           "(line 2) at learners 1"));
    CU_ASSERT_EQUAL(mb_fit_tupdate_table(path, MB_FIT_W_RELATIVE, 3, &f, &nf, &err), MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no rows of --threads 3 (the table times 1, 2)"));
    for (int th = 1; th <= 2; th++) {
        CU_ASSERT_EQUAL_FATAL(mb_fit_tupdate_table(path, MB_FIT_W_RELATIVE, th, &f, &nf, &err),
                              MB_OK);
        CU_ASSERT_EQUAL(nf, 1);
        CU_ASSERT_EQUAL(f[0].n_points, 9); /* its own rows only, not 18 */
        CU_ASSERT(f[0].n_threads == 1 && f[0].threads[0] == th);
        CU_ASSERT(mb_test_close(f[0].knee.p[0], 1e-4 / th, 1e-6)); /* gamma */
        CU_ASSERT(mb_test_close(f[0].knee.p[1], 16, 1e-6));        /* M_T */
        mb_fit_tupdate_free_all(f, nf);
    }
    mb_test_rmdir(dir);
}

/* ---- collectives ------------------------------------------------------------------------------ */

/* Writes a collective table of the ring model (noise sd `rel`, lognormal) and fits it. */
static int comm_fit(const char *dir, double lat, double spb, double rel, gsl_rng *rng,
                    mb_fit_comm *c)
{
    char path[256], *text = malloc(65536);
    size_t n = 0;
    n += (size_t)snprintf(text + n, 65536 - n, "op,procs,bytes,reps,t_median_s,t_min_s,t_max_s\n");
    for (int p = 2; p <= 16; p *= 2)
        for (double b = 8; b <= 1 << 26; b *= 4) {
            double t = 2 * (p - 1) * lat + 2.0 * (p - 1) / p * b * spb;
            if (rng)
                t *= exp(rel * gsl_ran_gaussian(rng, 1.0));
            n += (size_t)snprintf(text + n, 65536 - n, "allreduce,%d,%.0f,10,%.17g,%.17g,%.17g\n",
                                  p, b, t, t, t);
        }
    mb_test_write(path, sizeof path, dir, "comm.csv", text);
    free(text);
    return mb_fit_comm_table(path, MB_FIT_W_RELATIVE, c, NULL);
}

static void test_comm(void)
{
    char dir[256];
    CU_ASSERT_FATAL(mb_test_tmpdir(dir, sizeof dir) == 0);
    mb_fit_comm c;
    const double lat = 4.321e-6, spb = 1.234e-9;
    CU_ASSERT_EQUAL_FATAL(comm_fit(dir, lat, spb, 0, NULL, &c), MB_OK);
    CU_ASSERT(mb_test_close(c.ring.p[0], lat, 1e-10));
    CU_ASSERT(mb_test_close(c.ring.p[1], spb, 1e-10));
    CU_ASSERT_EQUAL(c.n_fits, 4);
    /* per procs: a = 2(P-1) lat, b = 2(P-1)/P spb */
    CU_ASSERT(mb_test_close(c.fits[1].fit.p[0], 6 * lat, 1e-10));
    CU_ASSERT(mb_test_close(c.fits[1].fit.p[1], 1.5 * spb, 1e-10));
    mb_fit_comm_free(&c);

    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 99);
    size_t cover[2] = {0, 0};
    for (int s = 0; s < SEEDS; s++) {
        CU_ASSERT_EQUAL_FATAL(comm_fit(dir, lat, spb, 0.05, rng, &c), MB_OK);
        cover[0] += c.ring.ci_lo[0] <= lat && lat <= c.ring.ci_hi[0];
        cover[1] += c.ring.ci_lo[1] <= spb && spb <= c.ring.ci_hi[1];
        mb_fit_comm_free(&c);
    }
    if (getenv("MB_TEST_VERBOSE"))
        fprintf(stderr, "\nring coverage latency %.3f s_per_byte %.3f\n",
                cover[0] / (double)SEEDS, cover[1] / (double)SEEDS);
    for (int j = 0; j < 2; j++)
        CU_ASSERT(cover[j] >= 0.90 * SEEDS && cover[j] <= 0.99 * SEEDS);

    /* A negative latency is shown and held at 0, never handed on. */
    char path[256];
    mb_test_write(path, sizeof path, dir, "neg.csv",
                  "op,procs,bytes,reps,t_median_s,t_min_s,t_max_s\n"
                  "allreduce,2,1000,5,0.9e-6,0.9e-6,1\nallreduce,2,100000,5,1.0e-4,1.0e-4,1\n"
                  "allreduce,2,1000000,5,1.0e-3,1.0e-3,1\n");
    CU_ASSERT_EQUAL_FATAL(mb_fit_comm_table(path, MB_FIT_W_NONE, &c, NULL), MB_OK);
    CU_ASSERT(c.ring_free[0] < 0);
    CU_ASSERT_EQUAL(c.ring.p[0], 0.0);
    CU_ASSERT(c.ring.fixed[0]);
    CU_ASSERT(c.ring.p[1] > 0);
    CU_ASSERT(c.warn.n >= 1 && strstr(c.warn.msg[0], "negative"));
    mb_fit_comm_free(&c);
    gsl_rng_free(rng);
    mb_test_rmdir(dir);
}

/* ---- the command ------------------------------------------------------------------------------ */

/* Runs mbfit with `args` where the only input is `text` written to dir/in.csv, asking for JSON
 * into dir/out.json; checks exit 1, one line on stderr containing `want`, no output file. */
static void bad_input(const char *dir, const char *sub, const char *extra, const char *text,
                      const char *want)
{
    char in[256], out[256];
    if (text)
        mb_test_write(in, sizeof in, dir, "in.csv", text);
    else
        snprintf(in, sizeof in, "%s/missing.csv", dir);
    snprintf(out, sizeof out, "%s/out.json", dir);
    unlink(out);
    mb_test_run r;
    mb_test_sh(&r, "mbfit %s %s '%s' --json -o '%s'", sub, extra, in, out);
    CU_ASSERT_EQUAL(r.status, 1);
    CU_ASSERT_EQUAL(mb_test_lines(r.err), 1);
    if (!strstr(r.err, want))
        fprintf(stderr, "\nexpected '%s' in: %s", want, r.err);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, want));
    CU_ASSERT(access(out, F_OK) != 0);
    mb_test_run_free(&r);
}

static void test_cli_errors(void)
{
    char dir[256];
    CU_ASSERT_FATAL(mb_test_tmpdir(dir, sizeof dir) == 0);
    const char *H = "batch,n_update,seed\n";
    bad_input(dir, "nupdate", "", NULL, "missing.csv: cannot open");
    bad_input(dir, "nupdate", "", "", "empty file");
    bad_input(dir, "nupdate", "", H, "in.csv: no rows");
    bad_input(dir, "nupdate", "", "batch,n_update\n64,1000\n64,1100\n", "a single mini-batch");
    bad_input(dir, "nupdate", "", "batch,n_update\n64,1000\n128,abc\n",
              "in.csv:3: field 'n_update': 'abc'");
    bad_input(dir, "nupdate", "", "batch,n_update\n64,1000\n0,900\n", "in.csv:3: field 'batch'");
    bad_input(dir, "nupdate", "", "batch,n_update\n-4,1000\n8,900\n", "in.csv:2: field 'batch'");
    bad_input(dir, "nupdate", "", "batch,n_update\n64,nan\n128,900\n",
              "in.csv:2: field 'n_update': 'nan'");
    bad_input(dir, "nupdate", "", "batch,n_update\n64,1000\ninf,900\n",
              "in.csv:3: field 'batch': 'inf'");
    bad_input(dir, "nupdate", "--target-loss 0.5",
              "# seed=0\nupdate,epoch,samples,wall_s,loss,eval_loss,eval_acc\n0,0,0,0,2,2,0\n",
              "in.csv: no 'batch' metadata");
    bad_input(dir, "nupdate", "--target-loss 0.5",
              "# batch=32\nupdate,epoch,samples,wall_s,loss,eval_loss,eval_acc\n0,0,0,0,2,2,0\n"
              "10,0,320,0.01,1,0.9,0\n",
              "--target-loss 0.5: none of the 1 runs reached it");
    bad_input(dir, "nupdate", "--target-loss 0.5",
              "# batch=32\nupdate,epoch,samples,wall_s,loss,eval_loss,eval_acc\n0,0,0,0,2,2,0\n"
              "10,0,0,0.01,1,NaN,0\n",
              "in.csv:4: field 'eval_loss': 'NaN'");
    bad_input(dir, "nupdate", "--target-loss 0.5",
              "# batch=x\nupdate,epoch,samples,wall_s,loss,eval_loss,eval_acc\n0,0,0,0,2,2,0\n",
              "metadata 'batch': 'x'");
    bad_input(dir, "nupdate", "--weights seeds", "batch,n_update\n8,1000\n16,900\n",
              "--weights seeds");
    const char *SH = "backend,net,batch,learners,threads,reps,t_median_s,t_min_s,t_p25_s,t_p75_s,"
                     "t_max_s,samples_per_s\n";
    char buf[1024];
    bad_input(dir, "tupdate", "", NULL, "cannot open");
    bad_input(dir, "tupdate", "", "", "empty file");
    bad_input(dir, "tupdate", "", SH, "no rows");
    snprintf(buf, sizeof buf, "%scpu,l,8,1,1,5,0.1,0.1,0.1,0.1,0.1,\ncpu,l,8,1,1,5,0.11,0.11,0.11,0.11,0.11,\n", SH);
    bad_input(dir, "tupdate", "", buf, "in.csv:3: batch 8, learners 1 and the same threads given "
                                       "twice (line 2 too)");
    snprintf(buf, sizeof buf, "%scpu,l,8,1,1,5,0.1,0.1,0.1,0.1,0.1,\n", SH);
    bad_input(dir, "tupdate", "", buf, "1 distinct batch size");
    snprintf(buf, sizeof buf, "%scpu,l,8,1,2.5,5,0.1,0.1,0.1,0.1,0.1,\ncpu,l,16,1,1,5,0.2,0.2,0.2,0.2,0.2,\n",
             SH);
    bad_input(dir, "tupdate", "", buf, "field 'threads'");
    snprintf(buf, sizeof buf, "%scpu,l,8,1,1,5,0.1,0.1,0.1,0.1,0.1,\ncpu,l,0,1,1,5,0.1,0.1,0.1,0.1,0.1,\n", SH);
    bad_input(dir, "tupdate", "", buf, "in.csv:3: field 'batch'");
    snprintf(buf, sizeof buf, "%scpu,l,8,1,1,5,inf,0,0,0,0,\n", SH);
    bad_input(dir, "tupdate", "", buf, "in.csv:2: field 't_median_s': 'inf'");
    snprintf(buf, sizeof buf, "%scpu,l,8,1,1,5,0.1,0.1,0.1,0.1,0.1,\ncpu,vgg,16,1,1,5,0.1,0.1,0.1,0.1,0.1,\n",
             SH);
    bad_input(dir, "tupdate", "", buf, "in.csv:3: field 'net'");
    const char *CH = "op,procs,bytes,reps,t_median_s,t_min_s,t_max_s\n";
    bad_input(dir, "comm", "", NULL, "cannot open");
    bad_input(dir, "comm", "", CH, "no rows");
    snprintf(buf, sizeof buf, "%sallreduce,2,8,5,x,0,0\n", CH);
    bad_input(dir, "comm", "", buf, "in.csv:2: field 't_median_s': 'x'");
    snprintf(buf, sizeof buf, "%sallreduce,2,8,5,1e-5,1e-5,1e-5\nallreduce,2,80,5,2e-5,2e-5,2e-5\n"
                              "bcast,0,8,5,1e-5,1e-5,1e-5\n",
             CH);
    bad_input(dir, "comm", "", buf, "in.csv:4: field 'procs'");
    snprintf(buf, sizeof buf, "%sps,2,8,5,1e-5,1e-5,1e-5\nps,2,80,5,2e-5,2e-5,2e-5\n", CH);
    bad_input(dir, "comm", "", buf, "ring model needs allreduce rows");

    /* usage errors: exit 2 with the hint */
    mb_test_run r;
    const char *usage[] = {"mbfit", "mbfit frobnicate", "mbfit nupdate", "mbfit nupdate --bogus x",
                           "mbfit nupdate " FIX "/run_M32_s0.csv",
                           "mbfit tupdate --weights seeds x.csv", "mbfit comm a.csv b.csv"};
    for (size_t i = 0; i < sizeof usage / sizeof usage[0]; i++) {
        mb_test_sh(&r, "%s", usage[i]);
        CU_ASSERT(r.status == 2 || (r.status == 1 && strstr(usage[i], "seeds")));
        CU_ASSERT(strstr(r.err, "Try 'mbfit") || strstr(r.err, "--weights"));
        mb_test_run_free(&r);
    }
    mb_test_sh(&r, "mbfit nupdate --help && mbfit tupdate --help && mbfit comm --help && mbfit -V");
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "--target-loss"));
    mb_test_run_free(&r);
    mb_test_rmdir(dir);
}

/* Reads params.<key> from a JSON file. */
static double json_param(const char *path, const char *key)
{
    cJSON *root = NULL;
    double v = NAN;
    if (mb_json_read(path, &root, NULL) == MB_OK)
        mb_json_number(cJSON_GetObjectItem(root, "params"), key, path, &v, NULL);
    cJSON_Delete(root);
    return v;
}

static void test_end_to_end(void)
{
    char dir[256], n[300], t[300], c[300];
    CU_ASSERT_FATAL(mb_test_tmpdir(dir, sizeof dir) == 0);
    snprintf(n, sizeof n, "%s/n.json", dir);
    snprintf(t, sizeof t, "%s/t.json", dir);
    snprintf(c, sizeof c, "%s/c.json", dir);
    mb_test_run r;
    mb_test_sh(&r,
               "mbfit nupdate --target-loss 0.5,0.4 --bootstrap 50 data/examples/fit_runs/*.csv "
               "--json > '%s' && mbfit tupdate data/examples/step.csv --json -o '%s' && "
               "mbfit comm data/examples/comm.csv --json -o '%s'",
               n, t, c);
    CU_ASSERT_EQUAL_FATAL(r.status, 0);
    mb_test_run_free(&r);
    double n_inf = json_param(n, "n_inf"), alpha = json_param(n, "alpha");
    double gamma = json_param(t, "gamma"), m_t = json_param(t, "m_t"),
           delta = json_param(t, "delta");
    double lat = json_param(c, "latency_s"), spb = json_param(c, "s_per_byte");
    /* the synthetic truth (data/examples/gen_fit_examples.py), within the noise */
    CU_ASSERT(mb_test_close(n_inf, 300, 0.15) && mb_test_close(alpha, 20000, 0.1));
    CU_ASSERT(mb_test_close(gamma, 2e-5, 0.05) && mb_test_close(m_t, 32, 0.15));
    CU_ASSERT(mb_test_close(delta, 1e-3, 0.1));
    CU_ASSERT(mb_test_close(lat, 5e-6, 0.05) && mb_test_close(spb, 1e-9, 0.05));
    cJSON *root = NULL;
    CU_ASSERT_EQUAL_FATAL(mb_json_read(n, &root, NULL), MB_OK);
    cJSON *ths = cJSON_GetObjectItem(root, "thresholds");
    CU_ASSERT(cJSON_GetArraySize(ths) == 1);
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(root, "unreached")->valuedouble, 1);
    CU_ASSERT(cJSON_IsObject(cJSON_GetObjectItem(root, "ci95")));
    CU_ASSERT(cJSON_IsObject(cJSON_GetObjectItem(root, "bootstrap")));
    cJSON_Delete(root);
    CU_ASSERT_EQUAL_FATAL(mb_json_read(t, &root, NULL), MB_OK);
    CU_ASSERT(cJSON_GetArraySize(cJSON_GetObjectItem(root, "by_learners")) == 2);
    const cJSON *p4 = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "by_learners"), 1);
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(p4, "learners")->valuedouble, 4);
    cJSON_Delete(root);

    /* mbopt reads them and uses the values: its header prints them with %.6g. The P = 4 rows
     * are the measured step of 4 learners side by side, so they give T_update's compute at
     * P = 4 and no communication: Delta comes from --cfit (or --delta, or --comm none) */
    mb_test_sh(&r, "mbopt scale --nfit '%s' --tfit '%s' --procs 1:8", n, t);
    CU_ASSERT_EQUAL(r.status, 2); /* a flag missing: usage */
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "give --delta, --cfit or --comm none"));
    mb_test_run_free(&r);
    mb_test_sh(&r, "mbopt scale --nfit '%s' --tfit '%s' --comm none --procs 1:8 && "
                   "mbopt scale --nfit '%s' --tfit '%s' --cfit '%s' --bytes 1M --procs 1:8",
               n, t, n, t, c);
    CU_ASSERT_EQUAL(r.status, 0);
    char want[256];
    snprintf(want, sizeof want, "# N_update(M) = %.6g + %.6g / M", n_inf, alpha);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, want));
    /* T_update follows the measured one-learner table; the fit explains it, with the
     * one-learner intercept as t0, the fixed cost of every update */
    snprintf(want, sizeof want,
             "explained by %.6g s * max(M/P, %.6g) + %.6g s) + Delta(P), Delta: none\n#   at "
             "P = 4 the compute part is the measured step of 4 learners side by side on one "
             "host (11 points, M/P = 1 .. 1024)", gamma, m_t, delta);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, want));
    snprintf(want, sizeof want, "ring allreduce of 1.04858e+06 bytes, %.6g s/message, %.6g s/byte",
             lat, spb);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, want));
    mb_test_run_free(&r);

    /* text output of all three, and a points file */
    mb_test_sh(&r, "mbfit nupdate data/examples/nupdate_points.csv && mbfit tupdate "
                   "data/examples/step.csv && mbfit comm data/examples/comm.csv");
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "inverse-law  n_inf"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "knee M_T between measured M/P 16 and 32"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "ring         latency_s"));
    mb_test_run_free(&r);
    mb_test_rmdir(dir);
}

/* Issue #25: a run counts once (the same file under two names, or a copy of one seed's run),
 * counts are whole, and a table already read is handed on rather than read again. */
static void test_runs_once(void)
{
    char dir[256], a[512], b[512], pts[512];
    CU_ASSERT_FATAL(mb_test_tmpdir(dir, sizeof dir) == 0);
    mb_test_write_run_log(dir, "net", 0.5, 16, 1, 40, 1e-3, 0);
    mb_test_write_run_log(dir, "net", 0.5, 32, 1, 30, 1e-3, 0);
    snprintf(a, sizeof a, "%s/net-b16-s1.csv", dir);
    snprintf(b, sizeof b, "%s/copy.csv", dir);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", a, b);
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
    const double thr = 0.5;
    mb_fit_runs runs;
    mb_error err = {0};
    const char *twice[] = {a, a};
    CU_ASSERT_EQUAL(mb_fit_runs_read_logs(twice, 2, &thr, 1, 1, &runs, &err), MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "given twice"));
    const char *copy[] = {a, b};
    CU_ASSERT_EQUAL(mb_fit_runs_read_logs(copy, 2, &thr, 1, 1, &runs, &err), MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "the same run"));
    /* the first log read by the caller, the second here */
    char c[512];
    snprintf(c, sizeof c, "%s/net-b32-s1.csv", dir);
    mb_table *t;
    CU_ASSERT_EQUAL_FATAL(mb_table_read(a, &t, &err), MB_OK);
    const char *two[] = {a, c};
    CU_ASSERT_EQUAL(mb_fit_runs_read_logs_first(t, two, 2, &thr, 1, 1, &runs, &err), MB_OK);
    CU_ASSERT_EQUAL(runs.n, 2u);
    CU_ASSERT_DOUBLE_EQUAL(runs.batch[0], 16, 0);
    CU_ASSERT_DOUBLE_EQUAL(runs.n_update[1], 30, 0);
    mb_fit_runs_free(&runs);
    mb_table_free(t);
    /* a batch of 8.5 samples is not a batch */
    mb_test_write(pts, sizeof pts, dir, "p.csv", "batch,n_update\n8,900\n16.5,500\n");
    CU_ASSERT_EQUAL(mb_fit_runs_read_points(pts, &runs, &err), MB_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "p.csv:3: field 'batch': 16.5 is not a whole number"));
    mb_test_rmdir(dir);
}

/* Campaign 21's N3 and N15: the runs fitted together share their training settings (as
 * numbers: 0.9 and 0.90 are one momentum; the threads may differ), and every level lies below
 * each run's first evaluation. */
static void test_runs_alike(void)
{
    char dir[256], a[512], b[512];
    CU_ASSERT_FATAL(mb_test_tmpdir(dir, sizeof dir) == 0);
    const char *head = "# format=mbkit-runlog/1\n# seed=1\n# data=mnist\n";
    char text[512];
    snprintf(text, sizeof text, "%s# batch=16\n# momentum=0.9\nupdate,eval_loss\n5,2.1\n"
                                "10,0.4\n", head);
    mb_test_write(a, sizeof a, dir, "a.csv", text);
    snprintf(text, sizeof text, "%s# batch=32\n# momentum=0.90\n# threads=4\nupdate,eval_loss\n"
                                "5,1.9\n10,0.45\n", head);
    mb_test_write(b, sizeof b, dir, "b.csv", text);
    const char *paths[] = {a, b};
    const double thr[2] = {1.0, 0.5}, high[2] = {2.0, 0.5};
    mb_fit_runs runs;
    mb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(mb_fit_runs_read_logs(paths, 2, thr, 2, 1, &runs, &err), MB_OK);
    CU_ASSERT_EQUAL(mb_fit_runs_same_settings(&runs, paths, NULL, &err), MB_OK);
    CU_ASSERT_STRING_EQUAL(mb_fit_runs_setting(&runs, 1, "data"), "mnist");
    CU_ASSERT_STRING_EQUAL(mb_fit_runs_setting(&runs, 1, "weight_decay"), "");
    CU_ASSERT_DOUBLE_EQUAL(runs.first_loss[1], 1.9, 0);
    CU_ASSERT_DOUBLE_EQUAL(runs.first_update[0], 5, 0);
    CU_ASSERT_EQUAL(mb_fit_runs_start_above(&runs, paths, &err), MB_OK);
    mb_fit_runs_free(&runs);
    /* a level that b was under at its first evaluation (2.1 > 2 > 1.9) */
    CU_ASSERT_EQUAL_FATAL(mb_fit_runs_read_logs(paths, 2, high, 2, 1, &runs, &err), MB_OK);
    CU_ASSERT_EQUAL(mb_fit_runs_start_above(&runs, paths, &err), MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "level 2: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "b.csv was already under it at its first evaluation "
                                           "(loss 1.9 at update 5)"));
    mb_fit_runs_free(&runs);
    /* another data set: both files and the field named */
    snprintf(text, sizeof text, "# format=mbkit-runlog/1\n# seed=1\n# data=cifar10\n# batch=32\n"
                                "update,eval_loss\n5,1.9\n10,0.45\n");
    mb_test_write(b, sizeof b, dir, "b.csv", text);
    CU_ASSERT_EQUAL_FATAL(mb_fit_runs_read_logs(paths, 2, thr, 2, 1, &runs, &err), MB_OK);
    CU_ASSERT_EQUAL(mb_fit_runs_same_settings(&runs, paths, NULL, &err), MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "b.csv: metadata 'data': 'cifar10', but "));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "a.csv's is 'mnist'"));
    mb_fit_runs_free(&runs);
    mb_test_rmdir(dir);
}

int mb_test_suite_fit(void)
{
    CU_pSuite s = CU_add_suite("fit", NULL, NULL);
    if (!s)
        return -1;
    return !CU_add_test(s, "inverse law: exact data to 1e-10", test_inverse_exact) ||
           !CU_add_test(s, "power law: exact data, AIC", test_power_exact) ||
           !CU_add_test(s, "shifted law: exact data, the default choice", test_shifted_exact) ||
           !CU_add_test(s, "shifted law: chosen for shifted noisy runs, rarely for inverse ones",
                        test_shifted_choice_noise) ||
           !CU_add_test(s, "negative N_inf reported, not clipped", test_negative_n_inf) ||
           !CU_add_test(s, "a censored M is left out of the law", test_censored_group) ||
           !CU_add_test(s, "inverse law: 95% coverage over seeds", test_inverse_coverage) ||
           !CU_add_test(s, "bootstrap over runs", test_bootstrap) ||
           !CU_add_test(s, "bootstrap over whole seeds", test_bootstrap_seeds) ||
           !CU_add_test(s, "run logs: threshold crossing", test_logs_crossing) ||
           !CU_add_test(s, "run logs: algorithm names, the summary line", test_logs_written) ||
           !CU_add_test(s, "knee: exact data, right interval", test_knee_exact) ||
           !CU_add_test(s, "knee: 95% coverage over seeds", test_knee_coverage) ||
           !CU_add_test(s, "knee: too few sizes", test_knee_too_few) ||
           !CU_add_test(s, "overlap form (Pollux)", test_overlap) ||
           !CU_add_test(s, "tupdate: one thread count a learner count (--threads)",
                        test_tupdate_threads) ||
           !CU_add_test(s, "collectives: exact, coverage, bounds", test_comm) ||
           !CU_add_test(s, "mbfit: bad input, usage", test_cli_errors) ||
           !CU_add_test(s, "mbfit -> mbopt end to end", test_end_to_end) ||
           !CU_add_test(s, "runs count once, counts are whole", test_runs_once) ||
           !CU_add_test(s, "runs fitted together: trained alike, levels below their start",
                        test_runs_alike);
}
