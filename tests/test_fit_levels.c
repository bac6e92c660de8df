/* test_fit_levels.c — fit/levels.c and `mbfit nupdate --extrapolate`: N_update at a target below
 * every calibration level. Each form recovers its own law from exact synthetic curves and
 * predicts the target; with noise, the prediction and its bootstrap interval cover the truth;
 * every refusal (target at or above L1, too few levels, a curve that stops early, one M, N not
 * growing as the loss falls, a target under the floor, an interval wider than the estimate);
 * the command's JSON read back by mbopt's reader (mb_solver_read_nfit), a shifted best among
 * them; the auto choice between the separable and shifted forms on noisy runs of each; and
 * real LeNet-5 runs cut at 0.5 predicting the crossing of 0.4 they went on to measure.
 *
 * Noise comes from GSL's mt19937 with fixed seeds, so every run sees the same data.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "../fit/mb_fit.h"
#include "../fit/mb_lightning.h"
#include "../solver/mb_solver.h"
#include "mb_test.h"

static const double Ms[] = {8, 16, 32, 64, 128, 256};
#define NM (sizeof Ms / sizeof Ms[0])
static const double Lev[] = {0.78, 0.71, 0.64, 0.57, 0.5}; /* L1 = 0.5 */
#define NL (sizeof Lev / sizeof Lev[0])
#define L1 0.5
#define L2 0.4

/* A known law: the shifted form N = A x^-p + B x^-q / (M - M_0) with x = (L - floor) /
 * (L1 - floor) (floor 0: x = L / L1; M_0 = 0: the noise form; and q = p: the separable form). */
typedef struct law {
    double a, b, p, q, floor, m0;
} law;

static double law_n(const law *w, double m, double L)
{
    double x = (L - w->floor) / (L1 - w->floor);
    return w->a * pow(x, -w->p) + w->b * pow(x, -w->q) / (m - w->m0);
}

/* `seeds` runs per M of law w: each run's whole curve scaled by e^(run_sd z), each crossing
 * by e^(level_sd z) more. Drops the lowest `drop` levels of the first run (a curve that
 * stops early). */
static void make_runs(mb_fit_runs *r, const law *w, size_t seeds, double run_sd, double level_sd,
                      size_t drop, unsigned long seed)
{
    CU_ASSERT_FATAL(mb_fit_runs_alloc(r, NM * seeds, NL) == MB_OK);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, seed);
    r->n = NM * seeds; /* mb_fit_runs_alloc sizes the arrays; the count is the caller's */
    r->from_logs = 1;
    for (size_t l = 0; l < NL; l++)
        r->thresholds[l] = Lev[l];
    for (size_t g = 0, i = 0; g < NM; g++) {
        for (size_t s = 0; s < seeds; s++, i++) {
            double run = exp(run_sd * gsl_ran_gaussian(rng, 1.0));
            r->batch[i] = Ms[g];
            r->seed[i] = (double)s;
            r->lr[i] = 0.02;
            r->procs[i] = 1;
            r->target[i] = L1;
            snprintf(r->algo[i], sizeof r->algo[i], "momentum");
            for (size_t l = 0; l < NL; l++)
                r->n_update[i * NL + l] = law_n(w, Ms[g], Lev[l]) * run *
                                          exp(level_sd * gsl_ran_gaussian(rng, 1.0));
            for (size_t l = NL - drop; i == 0 && l < NL; l++)
                r->n_update[l] = NAN;
        }
    }
    gsl_rng_free(rng);
}

/* Fits form `form` and checks the law at L2: n_inf and alpha to `tol` relative. */
static void check_form(const law *w, mb_fit_levels_form form, size_t boot, double tol)
{
    mb_fit_runs runs;
    make_runs(&runs, w, 2, 0, 0, 0, 1);
    mb_fit_levels_options o;
    mb_fit_levels_options_init(&o);
    o.form = form;
    o.bootstrap = boot;
    mb_fit_levels f;
    mb_error err = {0};
    int rc = mb_fit_levels_run(&runs, NULL, L2, &o, &f, &err);
    if (rc != MB_OK)
        fprintf(stderr, "\n%s: %s\n", mb_fit_levels_form_name(form), err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, MB_OK);
    double x2 = (L2 - w->floor) / (L1 - w->floor);
    CU_ASSERT(mb_test_close(f.n_inf, w->a * pow(x2, -w->p), tol));
    CU_ASSERT(mb_test_close(f.alpha, w->b * pow(x2, -w->q), tol));
    CU_ASSERT(mb_test_close(f.joint.p[2], w->p, tol));
    CU_ASSERT(f.form != MB_FIT_LEVELS_AUTO);
    if (w->m0 > 0) {
        CU_ASSERT_EQUAL(f.form, MB_FIT_LEVELS_SHIFTED);
        CU_ASSERT(mb_test_close(f.m_0, w->m0, tol));
    }
    for (size_t g = 0; g < NM; g++)
        CU_ASSERT(mb_test_close(f.pred[g], law_n(w, Ms[g], L2), tol));
    if (form == MB_FIT_LEVELS_FLOOR)
        CU_ASSERT(fabs(f.floor - w->floor) < 1e-6);
    /* identical runs at each M: every resample is the data, the interval has no width */
    if (boot)
        for (size_t g = 0; g < NM; g++)
            CU_ASSERT(f.lo[g] <= f.pred[g] * (1 + 1e-6) && f.hi[g] >= f.pred[g] * (1 - 1e-6));
    mb_fit_levels_free(&f);
    mb_fit_runs_free(&runs);
}

static void test_exact(void)
{
    /* Exact data: each form returns its own law. The joint fits are nonlinear least squares
     * from a two-stage start, stopped by GSL's tests at 1e-14: 1e-6 relative leaves room for
     * the conditioning of p and q over levels that span a factor 1.56 only. */
    const law sep = {123.4, 5678.9, 1.73, 1.73, 0, 0}, noise = {98.7, 4321.5, 1.37, 2.41, 0, 0},
              fl = {87.6, 3456.7, 0.83, 0.83, 0.31, 0};
    check_form(&sep, MB_FIT_LEVELS_SEPARABLE, 20, 1e-6);
    check_form(&noise, MB_FIT_LEVELS_NOISE, 20, 1e-6);
    check_form(&noise, MB_FIT_LEVELS_PER_LEVEL, 20, 1e-6);
    check_form(&sep, MB_FIT_LEVELS_NOISE, 0, 1e-6);
    check_form(&fl, MB_FIT_LEVELS_FLOOR, 0, 1e-6);
    /* the shifted form, its pole at 0.41 of the least M as lenet5's was (6.36 of 16), forced
     * and chosen; and exact separable data keep the separable form under auto */
    const law shf = {108.4, 6148.0, 2.62, 3.96, 0, 3.27};
    check_form(&shf, MB_FIT_LEVELS_SHIFTED, 20, 1e-6);
    check_form(&shf, MB_FIT_LEVELS_AUTO, 0, 1e-6);
    check_form(&sep, MB_FIT_LEVELS_AUTO, 0, 1e-6);
}

/* Auto's choice and prediction on `seeds` runs per M of law w with lenet5-like noise (each
 * run's curve off by 8%, each crossing by 3% more), noise seed `seed`: the form chosen, and
 * the largest relative error of the prediction at L2 over the M (*err). */
static mb_fit_levels_form auto_pick(const law *w, size_t seeds, unsigned long seed, double *err)
{
    mb_fit_runs runs;
    make_runs(&runs, w, seeds, 0.08, 0.03, 0, seed);
    mb_fit_levels_options o;
    mb_fit_levels_options_init(&o);
    o.bootstrap = 0;
    mb_fit_levels f;
    mb_error e = {0};
    int rc = mb_fit_levels_run(&runs, NULL, L2, &o, &f, &e);
    CU_ASSERT_EQUAL(rc, MB_OK);
    mb_fit_levels_form form = rc == MB_OK ? f.form : MB_FIT_LEVELS_AUTO;
    *err = rc == MB_OK ? 0 : INFINITY;
    for (size_t g = 0; rc == MB_OK && g < NM; g++)
        *err = fmax(*err, fabs(f.pred[g] / law_n(w, Ms[g], L2) - 1));
    if (getenv("MB_TEST_VERBOSE"))
        fprintf(stderr, "\nseed %lu: %s, max error %.1f%% (%s)", seed,
                mb_fit_levels_form_name(form), 100 * *err, f.why);
    mb_fit_levels_free(&f);
    mb_fit_runs_free(&runs);
    return form;
}

static void test_auto(void)
{
    /* Runs of a shifted law (lenet5's fitted p, q and pole fraction), 5 seeds an M: auto takes
     * the shifted form and predicts L2 within 15% at every M (10% is the noise form's bound on
     * its own law in test_noisy; the pole adds a fifth parameter, and M = 8 sits 4.7 from it,
     * where an error in M_0 of 0.3 moves N by 6%) for each of 10 noise seeds. */
    const law shf = {108.4, 6148.0, 2.62, 3.96, 0, 3.27};
    size_t picked = 0;
    double worst = 0, e;
    for (unsigned long seed = 1; seed <= 10; seed++) {
        picked += auto_pick(&shf, 5, seed, &e) == MB_FIT_LEVELS_SHIFTED;
        worst = fmax(worst, e);
    }
    CU_ASSERT_EQUAL(picked, 10);
    CU_ASSERT(worst < 0.15);
    /* Runs of the separable law, 3 seeds an M as the default job trains. Were the 30 means
     * independent, the rule (2 parameters more, AIC lower by more than 2) would take the
     * shifted form by chance about 5% of the time; but a run's noise is shared by its crossings
     * of every level, so the means at one M move together and the AIC counts that evidence
     * once per level: measured 36 of 50 kept separable (14 taken shifted, M_0 0.8 to 1.8 of
     * least M 8, their worst prediction 12.9% off against the separable fits' 10.3%). At least
     * 32 asserted: a rule that took the shifted form on noise more often would break it. The
     * rate is a known weakness of the rule (docs/models.md, "N_update below the calibration's
     * target"). */
    const law sep = {123.4, 5678.9, 1.73, 1.73, 0, 0};
    size_t kept = 0;
    for (unsigned long seed = 1; seed <= 50; seed++)
        kept += auto_pick(&sep, 3, 100 + seed, &e) == MB_FIT_LEVELS_SEPARABLE;
    if (getenv("MB_TEST_VERBOSE"))
        fprintf(stderr, "\nseparable law: %zu of 50 kept separable", kept);
    CU_ASSERT(kept >= 32);
}

static void test_noisy(void)
{
    /* 5 seeds per M, each run's curve off by 8% (sd) and each crossing by 3% more, as real
     * first crossings of a noisy evaluation loss are: the prediction at L2 (an extrapolation
     * by 20% in loss) within 10% at every M, and the 95% bootstrap interval covering the truth
     * at most M (at least 5 of 6: a 95% interval may miss one). */
    const law w = {98.7, 4321.5, 1.37, 2.41, 0, 0};
    mb_fit_runs runs;
    make_runs(&runs, &w, 5, 0.08, 0.03, 0, 7);
    mb_fit_levels_options o;
    mb_fit_levels_options_init(&o);
    o.form = MB_FIT_LEVELS_NOISE;
    mb_fit_levels f;
    mb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(mb_fit_levels_run(&runs, NULL, L2, &o, &f, &err), MB_OK);
    size_t covered = 0;
    for (size_t g = 0; g < NM; g++) {
        double truth = law_n(&w, Ms[g], L2);
        CU_ASSERT(fabs(f.pred[g] / truth - 1) < 0.10);
        covered += f.lo[g] <= truth && truth <= f.hi[g];
        if (getenv("MB_TEST_VERBOSE"))
            fprintf(stderr, "\nM=%g truth %.1f pred %.1f [%.1f, %.1f]", Ms[g], truth, f.pred[g],
                    f.lo[g], f.hi[g]);
    }
    CU_ASSERT(covered >= NM - 1);
    CU_ASSERT_EQUAL(f.boot_ok, o.bootstrap);
    mb_fit_levels_free(&f);
    mb_fit_runs_free(&runs);
}

/* A law whose N_inf is small beside alpha / M (cnn-deep calibrated 0.5 -> 0.4: N_inf 47, alpha
 * 18,000): resamples of noisy runs put N_inf(L2) below 0 (22 of 200 did there). Such a resample
 * is not an inverse law mbopt can read ("not 3 numbers [n_inf, a, 1] ... with n_inf > 0"), so it
 * counts as not fitted: every sample kept has N_inf > 0, and the nfit mbfit writes is one mbopt
 * reads. */
static void test_bootstrap_n_inf(void)
{
    const law w = {6.0, 9000.0, 2.1, 2.1, 0, 0};
    mb_fit_runs runs;
    make_runs(&runs, &w, 3, 0.15, 0.04, 0, 11);
    mb_fit_levels_options o;
    mb_fit_levels_options_init(&o);
    o.form = MB_FIT_LEVELS_SEPARABLE;
    mb_fit_levels f;
    mb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(mb_fit_levels_run(&runs, NULL, L2, &o, &f, &err), MB_OK);
    /* the case is the one it is meant to be: some resamples were left out */
    CU_ASSERT(f.boot_ok < o.bootstrap);
    CU_ASSERT(f.boot_ok > o.bootstrap / 2);
    for (size_t b = 0; b < f.boot_ok; b++) {
        CU_ASSERT(f.boot[3 * b] > 0);
        CU_ASSERT(f.boot[3 * b + 1] >= 0);
    }
    mb_fit_levels_free(&f);
    mb_fit_runs_free(&runs);
}

static void test_misfit_warning(void)
{
    /* M = 8 twice what the law says at every level (a loss hovering near its noise floor):
     * the inverse law at L1 misses it by far more than 25%, and the output says so */
    const law w = {123.4, 5678.9, 1.73, 1.73, 0, 0};
    mb_fit_runs runs;
    make_runs(&runs, &w, 2, 0, 0, 0, 1);
    for (size_t i = 0; i < runs.n; i++)
        for (size_t l = 0; runs.batch[i] == 8 && l < NL; l++)
            runs.n_update[i * NL + l] *= 2;
    mb_fit_levels_options o;
    mb_fit_levels_options_init(&o);
    o.bootstrap = 0;
    mb_fit_levels f;
    mb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(mb_fit_levels_run(&runs, NULL, L2, &o, &f, &err), MB_OK);
    int warned = 0;
    for (size_t i = 0; i < f.warn.n; i++)
        warned |= strstr(f.warn.msg[i], "M=8: the inverse law at L1 = 0.5 misses") != NULL;
    CU_ASSERT(warned);
    mb_fit_levels_free(&f);
    mb_fit_runs_free(&runs);
}

/* The fit of runs at target refuses with status `want` and a message holding `needle`. */
static void refused(const mb_fit_runs *runs, double target, mb_fit_levels_form form, int want,
                    const char *needle)
{
    mb_fit_levels_options o;
    mb_fit_levels_options_init(&o);
    o.form = form;
    mb_fit_levels f;
    mb_error err = {0};
    int rc = mb_fit_levels_run(runs, NULL, target, &o, &f, &err);
    CU_ASSERT_EQUAL(rc, want);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, needle));
    if (rc != want || !strstr(err.msg, needle))
        fprintf(stderr, "\nwanted %d '%s', got %d: %s\n", want, needle, rc, err.msg);
    mb_fit_levels_free(&f);
}

static void test_refusals(void)
{
    const law w = {123.4, 5678.9, 1.73, 1.73, 0, 0};
    mb_fit_runs runs;
    make_runs(&runs, &w, 2, 0, 0, 0, 1);
    /* a target at or above the lowest level: fit it directly */
    refused(&runs, 0.5, MB_FIT_LEVELS_SEPARABLE, MB_EINVAL, "nothing to extrapolate");
    refused(&runs, 0.6, MB_FIT_LEVELS_SEPARABLE, MB_EINVAL, "nothing to extrapolate");
    /* too few levels */
    mb_fit_runs_free(&runs);
    CU_ASSERT_FATAL(mb_fit_runs_alloc(&runs, 4, 2) == MB_OK);
    runs.n = 4;
    for (size_t i = 0; i < 4; i++) {
        runs.batch[i] = i < 2 ? 16 : 64;
        runs.n_update[2 * i] = 100, runs.n_update[2 * i + 1] = 150;
    }
    runs.thresholds[0] = 0.6, runs.thresholds[1] = 0.5;
    refused(&runs, L2, MB_FIT_LEVELS_SEPARABLE, MB_ENODATA, "needs at least 3");
    mb_fit_runs_free(&runs);
    /* a run that does not reach the lowest level */
    make_runs(&runs, &w, 2, 0, 0, 2, 1);
    refused(&runs, L2, MB_FIT_LEVELS_SEPARABLE, MB_ENODATA, "stops early: it crosses 3 of the 5");
    mb_fit_runs_free(&runs);
    /* one M */
    make_runs(&runs, &w, 2, 0, 0, 0, 1);
    for (size_t i = 0; i < runs.n; i++)
        runs.batch[i] = 32;
    refused(&runs, L2, MB_FIT_LEVELS_SEPARABLE, MB_ENODATA, "needs at least two");
    mb_fit_runs_free(&runs);
    /* several learning rates */
    make_runs(&runs, &w, 2, 0, 0, 0, 1);
    runs.lr[3] = 0.05;
    refused(&runs, L2, MB_FIT_LEVELS_SEPARABLE, MB_EINVAL, "different learning rates");
    mb_fit_runs_free(&runs);
    /* N flat in L (p = 0): nothing says how much further the target is */
    const law flat = {123.4, 5678.9, -0.2, -0.2, 0, 0};
    make_runs(&runs, &flat, 2, 0, 0, 0, 1);
    refused(&runs, L2, MB_FIT_LEVELS_SEPARABLE, MB_ENODATA, "p = -0.2 <= 0");
    mb_fit_runs_free(&runs);
    /* a floor above the target */
    const law fl = {87.6, 3456.7, 0.83, 0.83, 0.43, 0};
    make_runs(&runs, &fl, 2, 0, 0, 0, 1);
    refused(&runs, L2, MB_FIT_LEVELS_FLOOR, MB_ENODATA, "under the loss floor 0.43");
    mb_fit_runs_free(&runs);
    /* two runs an M that disagree by a factor of 2 or more: the interval outgrows the estimate */
    make_runs(&runs, &w, 2, 0.9, 0.3, 0, 3);
    refused(&runs, L2, MB_FIT_LEVELS_NOISE, MB_ENODATA, "wider than the estimate");
    mb_fit_runs_free(&runs);
}

/* ---- the command ------------------------------------------------------------------------------ */

/* Writes a run log whose eval loss first reaches each level of `w` at its crossing (rows at the
 * crossings only, an evaluation at update 0 at 2.3), down to L1 or, with stop, above it. */
static void write_log(const char *dir, const law *w, double m, int seed, int stop)
{
    char name[64], path[512];
    snprintf(name, sizeof name, "lenet5-momentum-b%g-s%d.csv", m, seed);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "# net=lenet5\n# algo=momentum\n# batch=%g\n# learners=1\n# lr=0.02\n# seed=%d\n"
               "# target_loss=0.5\n# b_simple=%d\nupdate,epoch,samples,wall_s,loss,eval_loss,"
               "eval_acc\n0,0,0,0,2.3,2.3,0.1\n", m, seed, 40 + seed);
    double jitter = 1 + 0.01 * seed;
    for (size_t l = 0; l < NL - (stop ? 2 : 0); l++) {
        long u = lround(law_n(w, m, Lev[l]) * jitter);
        fprintf(f, "%ld,0,%g,%g,%g,%g,0.8\n", u, (double)u * m, u * 1e-3, Lev[l], Lev[l]);
    }
    fclose(f);
}

/* Logs of law w, 3 seeds at every M, into dir (made here), and mbfit nupdate --extrapolate to
 * 0.4 of them (with `extra` flags) as JSON into out, dir/n.json. At the logs' own levels: the
 * default grid, 0.75 .. 0.5, would meet each at the next row. */
static void fit_law_logs(char *dir, size_t n_dir, const law *w, const char *extra, char *out,
                         size_t n_out)
{
    CU_ASSERT_FATAL(mb_test_tmpdir(dir, n_dir) == 0);
    for (size_t g = 0; g < NM; g++)
        for (int s = 0; s < 3; s++)
            write_log(dir, w, Ms[g], s, 0);
    snprintf(out, n_out, "%s/n.json", dir);
    mb_test_run r;
    CU_ASSERT(mb_test_sh_ok(&r, "mbfit nupdate --extrapolate --target-loss 0.4 --levels "
                            "0.78,0.71,0.64,0.57,0.5 %s '%s'/*.csv --json -o '%s'", extra, dir,
                            out));
    mb_test_run_free(&r);
}

static void test_command(void)
{
    char dir[256], out[512], args[1024];
    const law w = {123.4, 5678.9, 1.73, 1.73, 0, 0};
    fit_law_logs(dir, sizeof dir, &w, "", out, sizeof out);
    mb_test_run r;
    mb_solver_nfit nf;
    mb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(mb_solver_read_nfit(out, NULL, &nf, &err), MB_OK);
    double x2 = L2 / L1, jit = 1.01; /* the seeds' jitter 1, 1.01, 1.02 average to 1.01 */
    /* the crossings are rounded to whole updates (N >= 130): 0.5% relative */
    CU_ASSERT(mb_test_close(nf.law.n_inf, w.a * pow(x2, -w.p) * jit, 5e-3));
    CU_ASSERT(mb_test_close(nf.law.a, w.b * pow(x2, -w.q) * jit, 5e-3));
    CU_ASSERT(mb_test_close(nf.inverse.n_inf, nf.law.n_inf, 1e-12));
    CU_ASSERT(mb_test_close(nf.target_loss, 0.4, 1e-12));
    CU_ASSERT(mb_test_close(nf.lr, 0.02, 1e-12)); /* the runs' rate: mbopt pairs fit and runs */
    CU_ASSERT_EQUAL(nf.n_boot, 200);
    CU_ASSERT(nf.m_lo == 8 && nf.m_hi == 256);
    CU_ASSERT_PTR_NOT_NULL(strstr(nf.why, "extrapolated from 5 levels"));
    /* and mbopt scale optimises it as it is */
    CU_ASSERT(mb_test_sh_ok(&r, "mbopt scale --nfit '%s' --tfit data/examples/tfit.json --procs 1 "
                            "--comm none", out));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "extrapolated from 5 levels down to 0.5"));
    mb_test_run_free(&r);
    /* the text names the form, the per-level fits and the prediction per M */
    CU_ASSERT(mb_test_sh_ok(&r, "mbfit nupdate --extrapolate --target-loss 0.4 --levels "
                            "0.78,0.71,0.64,0.57,0.5 --form noise '%s'/*.csv", dir));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "(the noise law across levels)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "ci95_hi"));
    /* the runs' own gradient noise scale beside the law's (seeds' 40, 41, 42 at every M) */
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "gradient noise scale: B_simple 41 (median of 18 runs) "
                                         "beside B_noise at L1 = "));
    mb_test_run_free(&r);
    /* refusals: one line, exit 1 (bad data) or 2 (usage), no output file */
    unlink(out);
    snprintf(args, sizeof args, "nupdate --extrapolate --target-loss 0.5 '%s'/*.csv -o '%s'", dir,
             out);
    mb_test_expect_failure("mbfit", args, 1, "nothing to extrapolate");
    snprintf(args, sizeof args, "nupdate --levels 0.6,0.5 --target-loss 0.4 '%s'/*.csv", dir);
    mb_test_expect_failure("mbfit", args, 2, "--levels and --form go with --extrapolate");
    snprintf(args, sizeof args, "nupdate --extrapolate --form cubic --target-loss 0.4 '%s'/*.csv",
             dir);
    mb_test_expect_failure("mbfit", args, 1, "--form: 'cubic'"); /* a bad value: exit 1 */
    snprintf(args, sizeof args, "nupdate --extrapolate --target-loss 0.4,0.3 '%s'/*.csv", dir);
    mb_test_expect_failure("mbfit", args, 2, "one final target");
    /* a run whose curve stops before the lowest level is left out, and said so; an M where
     * most runs stop early leaves with all of its runs; fewer than two M left is refused */
    write_log(dir, &w, 32, 9, 1);
    CU_ASSERT(mb_test_sh_ok(&r, "mbfit nupdate --extrapolate --target-loss 0.4 --levels "
                            "0.78,0.71,0.64,0.57,0.5 '%s'/*.csv -o '%s'", dir, out));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "left out 1 run that did not reach the lowest level "
                                         "0.5 (or at an M where most did not): M=32 seed 9"));
    mb_test_run_free(&r);
    unlink(out);
    char two[256];
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(two, sizeof two), 0);
    for (int s = 0; s < 3; s++) {
        write_log(two, &w, 16, s, 0);
        write_log(two, &w, 64, s, s < 2); /* 2 of 3 stop early: M = 64 leaves */
    }
    snprintf(args, sizeof args, "nupdate --extrapolate --target-loss 0.4 --levels "
             "0.78,0.71,0.64,0.57,0.5 '%s'/*.csv -o '%s'", two, out);
    mb_test_expect_failure("mbfit", args, 1, "needs at least two");
    CU_ASSERT(access(out, F_OK) != 0);
    mb_test_rmdir(two);
    mb_test_rmdir(dir);
}

/* Logs of a shifted law: auto takes the shifted form, its nfit's best is the shifted law that
 * mbopt's reader takes (pole, resamples [n_inf, alpha, m_0]) and mbopt scale optimises; the
 * shifted form with two M is refused. */
static void test_command_shifted(void)
{
    char dir[256], out[512], args[1024];
    const law w = {108.4, 6148.0, 2.62, 3.96, 0, 3.27};
    fit_law_logs(dir, sizeof dir, &w, "--bootstrap 50", out, sizeof out);
    mb_test_run r;
    mb_solver_nfit nf;
    mb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(mb_solver_read_nfit(out, NULL, &nf, &err), MB_OK);
    CU_ASSERT_EQUAL(nf.law.kind, MB_LAW_SHIFTED);
    /* whole updates and the seeds' jitter of 1-2% only: the pole within 5% */
    CU_ASSERT(mb_test_close(nf.law.m0, w.m0, 0.05));
    CU_ASSERT(nf.n_boot > 25 && nf.boot[0].kind == MB_LAW_SHIFTED);
    CU_ASSERT(nf.inverse.kind == MB_LAW_INVERSE && nf.inverse.n_inf > 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(nf.why, "the shifted form (M_0 = "));
    CU_ASSERT(mb_test_sh_ok(&r, "mbopt scale --nfit '%s' --tfit data/examples/tfit.json --procs 1 "
                            "--comm none", out));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "shifted inverse law"));
    mb_test_run_free(&r);
    CU_ASSERT(mb_test_sh_ok(&r, "mbfit nupdate --extrapolate --target-loss 0.4 --levels "
                            "0.78,0.71,0.64,0.57,0.5 --bootstrap 0 '%s'/*.csv", dir));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "(the shifted law across levels)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "# form: the shifted form"));
    mb_test_run_free(&r);
    snprintf(args, sizeof args, "nupdate --extrapolate --form shifted --target-loss 0.4 --levels "
             "0.78,0.71,0.64,0.57,0.5 '%s'/*-b8-*.csv '%s'/*-b16-*.csv", dir, dir);
    mb_test_expect_failure("mbfit", args, 1, "the shifted form needs at least 3 mini-batch sizes");
    mb_test_rmdir(dir);
}

/* Logs of mbtrain --levels (issue #23) state the levels their checks aimed at (# levels=): they
 * are the default, with L1; logs that state other ones are refused, and a fitted level a
 * checked log did not aim at is warned of (its first logged crossing may come late). */
static void test_logged_levels(void)
{
    char dir[256], args[1024];
    CU_ASSERT_FATAL(mb_test_tmpdir(dir, sizeof dir) == 0);
    const law w = {123.4, 5678.9, 1.73, 1.73, 0, 0};
    for (size_t g = 0; g < NM; g++)
        for (int s = 0; s < 3; s++)
            write_log(dir, &w, Ms[g], s, 0);
    mb_test_run r, d;
    CU_ASSERT(mb_test_sh_ok(&d, "mbfit nupdate --extrapolate --target-loss 0.4 --bootstrap 0 "
                            "--levels 0.78,0.71,0.64,0.57,0.5 '%s'/*.csv", dir));
    CU_ASSERT(mb_test_sh_ok(&r, "sed -i 's/^# target_loss=0.5$/&\\n# check_frac=0.0625\\n"
                            "# levels=0.78,0.71,0.64,0.57/' '%s'/*.csv && grep -c '^# levels=' "
                            "'%s'/lenet5-momentum-b8-s0.csv", dir, dir));
    CU_ASSERT_STRING_EQUAL(r.out, "1\n");
    mb_test_run_free(&r);
    /* the default: the logs' levels and L1, the same fit as given by hand, and no warning */
    CU_ASSERT(mb_test_sh_ok(&r, "mbfit nupdate --extrapolate --target-loss 0.4 --bootstrap 0 "
                            "'%s'/*.csv", dir));
    CU_ASSERT_STRING_EQUAL(r.out, d.out);
    CU_ASSERT_STRING_EQUAL(r.err, "");
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "extrapolated from 5 levels"));
    mb_test_run_free(&r);
    mb_test_run_free(&d);
    /* a level the checks did not aim at: the fit goes on, with one line saying so */
    CU_ASSERT(mb_test_sh_ok(&r, "mbfit nupdate --extrapolate --target-loss 0.4 --bootstrap 0 "
                            "--levels 0.78,0.71,0.6,0.5 '%s'/*.csv", dir));
    CU_ASSERT_EQUAL(mb_test_lines(r.err), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "judged levels 0.78,0.71,0.64,0.57 and its target only, "
                                         "so its first logged crossing of level 0.6 may come "
                                         "late (18 logs so;"));
    mb_test_run_free(&r);
    /* campaign 43's F1: a level the logs state, typed with a 7th decimal (one by the 6-decimal
     * rule, as "given twice" judges), is judged, and an unjudged one is quoted as typed */
    CU_ASSERT(mb_test_sh_ok(&r, "mbfit nupdate --extrapolate --target-loss 0.4 --bootstrap 0 "
                            "--levels 0.78,0.7100001,0.64,0.57,0.5 '%s'/*.csv", dir));
    CU_ASSERT_STRING_EQUAL(r.err, "");
    mb_test_run_free(&r);
    CU_ASSERT(mb_test_sh_ok(&r, "mbfit nupdate --extrapolate --target-loss 0.4 --bootstrap 0 "
                            "--levels 0.78,0.71,0.6000001,0.5 '%s'/*.csv", dir));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "first logged crossing of level 0.6000001 may come"));
    mb_test_run_free(&r);
    /* a log of full evaluations beside them says nothing; one whose checks aimed elsewhere
     * leaves L1's levels undefined */
    CU_ASSERT(mb_test_sh_ok(&r, "sed '/^# levels=/d; /^# check_frac=/d; s/^# seed=0$/# seed=7/' "
                            "'%s'/lenet5-momentum-b8-s0.csv > '%s'/full.csv && mbfit nupdate "
                            "--extrapolate --target-loss 0.4 --bootstrap 0 '%s'/*.csv", dir, dir,
                            dir));
    CU_ASSERT_STRING_EQUAL(r.err, "");
    mb_test_run_free(&r);
    CU_ASSERT(mb_test_sh_ok(&r, "sed 's/^# levels=.*/# levels=0.7,0.6/' "
                            "'%s'/lenet5-momentum-b16-s1.csv > '%s'/x && mv '%s'/x "
                            "'%s'/lenet5-momentum-b16-s1.csv", dir, dir, dir, dir));
    mb_test_run_free(&r);
    snprintf(args, sizeof args, "nupdate --extrapolate --target-loss 0.4 '%s'/*.csv", dir);
    mb_test_expect_failure("mbfit", args, 1, "lenet5-momentum-b16-s1.csv: '# levels=0.7,0.6', "
                           "but");
    mb_test_rmdir(dir);
}

static void test_lenet5(void)
{
    /* Real runs (tests/fixtures/fit/levels/: LeNet-5 on Fashion-MNIST, momentum 0.9, lr 0.02,
     * M = 16..256 x 5 seeds, evaluation rows only), cut where runs to 0.5 would have stopped.
     * The same runs trained on to 0.4 first crossed it at these mean updates (--no-bisect,
     * docs/models.md, "N_update below the calibration's target"). The default (auto) takes the
     * shifted form here (AIC -108.6 vs -93.6), M_0 = 5.4: -5.5%, +5.1%, +3.6%, -7.3%, -11.8%,
     * median |error| 5.5%, the worst 11.8% at M = 256 (the separable form had 3.0% median and
     * -29% at M = 16); 10% on the median keeps room for another bootstrap seed or a change of
     * GSL version without letting a broken form through, and 15% bounds the worst M. */
    static const double m[] = {16, 32, 64, 128, 256, 0}, measured[] = {1880, 794.4, 477.6, 375, 316, 0};
    char dir[256], out[512];
    CU_ASSERT_FATAL(mb_test_tmpdir(dir, sizeof dir) == 0);
    snprintf(out, sizeof out, "%s/n.json", dir);
    mb_test_run r;
    CU_ASSERT(mb_test_sh_ok(&r, "mbfit nupdate --extrapolate --target-loss 0.4 "
                            "tests/fixtures/fit/levels/*.csv --json -o '%s'", out));
    mb_test_run_free(&r);
    mb_solver_nfit nf;
    mb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(mb_solver_read_nfit(out, NULL, &nf, &err), MB_OK);
    CU_ASSERT_EQUAL(nf.law.kind, MB_LAW_SHIFTED);
    double e[5];
    for (size_t i = 0; i < 5; i++) {
        double n = NAN;
        CU_ASSERT_EQUAL(mb_model_law_nupdate(&nf.law, m[i], &n, NULL), MB_OK);
        e[i] = fabs(n / measured[i] - 1);
        if (getenv("MB_TEST_VERBOSE"))
            fprintf(stderr, "\nM=%g measured %g error %.1f%%", m[i], measured[i], 100 * e[i]);
    }
    /* the median of five: sort, take the middle */
    for (size_t a = 1; a < 5; a++)
        for (size_t b = a; b > 0 && e[b - 1] > e[b]; b--) {
            double t = e[b];
            e[b] = e[b - 1], e[b - 1] = t;
        }
    CU_ASSERT(e[2] < 0.10);
    CU_ASSERT(e[4] < 0.15);
    mb_test_rmdir(dir);
}

int mb_test_suite_fit_levels(void)
{
    CU_pSuite s = CU_add_suite("fit_levels", NULL, NULL);
    if (!s)
        return 1;
    return !CU_add_test(s, "each form recovers its law, exactly", test_exact) ||
           !CU_add_test(s, "bootstrap keeps inverse laws mbopt reads", test_bootstrap_n_inf) ||
           !CU_add_test(s, "noisy curves: prediction and interval", test_noisy) ||
           !CU_add_test(s, "auto: shifted where the pole is, separable where not", test_auto) ||
           !CU_add_test(s, "refusals", test_refusals) ||
           !CU_add_test(s, "an M the inverse law misses is named", test_misfit_warning) ||
           !CU_add_test(s, "mbfit nupdate --extrapolate -> mbopt's reader", test_command) ||
           !CU_add_test(s, "a shifted law's nfit -> mbopt", test_command_shifted) ||
           !CU_add_test(s, "levels the logs' checks aimed at", test_logged_levels) ||
           !CU_add_test(s, "lenet5 runs to 0.5 predict 0.4", test_lenet5);
}
