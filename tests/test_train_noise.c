/* test_train_noise.c — the gradient noise scale B_simple (train/learner/noise.c, mb_noise_*) and
 * the trainers that feed it: the estimator on a synthetic problem with a known gradient
 * covariance, its arithmetic and its off states; a real single-learner mbtrain run (the log's
 * `# b_simple=` and b_simple column, training unchanged by the measurement, dropout and batch
 * normalisation included; M = 1 leaves it out) and an sgd-sync run.
 */
#include <CUnit/CUnit.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../data/mb_table.h"
#include "../train/learner/mb_learner.h"
#include "mb_test.h"

static char dir[256];
static char tiny[512]; /* conv + dropout, 1x8x8 inputs, 4 classes */
static char tbn[512];  /* conv + batch normalisation */

#define DATA "synthetic:n=400,test=100,c=1,h=8,w=8,classes=4,seed=3"

static int setup(void)
{
    if (mb_test_tmpdir(dir, sizeof dir) != 0)
        return 1;
    mb_test_write(tiny, sizeof tiny, dir, "tiny.cfg",
                  "[net]\nname=tiny\nchannels=1\nheight=8\nwidth=8\n"
                  "[conv]\nfilters=4\nsize=3\nactivation=relu\n[maxpool]\nsize=2\n[dropout]\np=0.3\n"
                  "[fc]\noutputs=4\n[softmax]\n");
    mb_test_write(tbn, sizeof tbn, dir, "tbn.cfg",
                  "[net]\nname=tbn\nchannels=1\nheight=8\nwidth=8\n"
                  "[conv]\nfilters=4\nsize=3\n[batchnorm]\n[relu]\n[fc]\noutputs=4\n[softmax]\n");
    return 0;
}

static int teardown(void)
{
    mb_test_rmdir(dir);
    return 0;
}

/* ---- the estimator on a known problem ------------------------------------------------------- */

enum { DIM = 40 };

/* Per-sample gradients g_i = G + e_i, e_i ~ N(0, Sigma) with Sigma diagonal: E|G_b|^2 =
 * |G|^2 + tr(Sigma) / b, so B_simple = tr(Sigma) / |G|^2. Each step draws B samples; the small
 * batch is their first b (as one learner's half batch, or one sgd-sync learner's slice, the
 * mean over p slices when p > 1). Returns the run's estimate after `steps` steps. */
static mb_noise_est synthetic(unsigned long seed, int b, int B, int p, long steps, double *g2,
                              double *tr)
{
    double G[DIM], sd[DIM];
    *g2 = *tr = 0;
    for (int k = 0; k < DIM; k++) {
        G[k] = 0.15 * sin(1.7 * k + 0.3);
        sd[k] = 0.61 + 0.37 * cos(0.9 * k);
        *g2 += G[k] * G[k];
        *tr += sd[k] * sd[k];
    }
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, seed);
    mb_noise e;
    mb_noise_init(&e, b, B);
    for (long s = 0; s < steps; s++) {
        double big[DIM] = {0}, small_sum = 0;
        for (int q = 0; q < p; q++) {
            double small[DIM] = {0};
            for (int i = 0; i < b; i++)
                for (int k = 0; k < DIM; k++) {
                    double g = G[k] + gsl_ran_gaussian(r, sd[k]);
                    small[k] += g / b;
                    big[k] += g / B;
                }
            double n2 = 0;
            for (int k = 0; k < DIM; k++)
                n2 += small[k] * small[k];
            small_sum += n2 / p;
        }
        for (int i = b * p; i < B; i++) /* the big batch's other samples (one learner) */
            for (int k = 0; k < DIM; k++)
                big[k] += (G[k] + gsl_ran_gaussian(r, sd[k])) / B;
        double n2 = 0;
        for (int k = 0; k < DIM; k++)
            n2 += big[k] * big[k];
        mb_noise_add(&e, small_sum, n2);
    }
    gsl_rng_free(r);
    return mb_noise_run(&e);
}

/* Here |G|^2 = 0.447 and tr(Sigma) = 17.6, so B_simple = 39.4 samples, between the two batch
 * sizes. Tolerances: over 30 seeds (1..30, offline) the relative error after 4000 steps had
 * standard deviations of 2.5% (B_simple), 1.0% (S) and 1.6% (|G|^2) for b = 16, B = 32, and
 * 1.1%, 0.3%, 0.9% for 3 learners of 12 (B = 36), means within 0.4%; the bounds below are 4 of
 * the first case's standard deviations (a correct estimator fails about once in 15,000 seeds),
 * while a wrong factor (b for B, a missing 1/b - 1/B) is off by 30% or more. */
static void test_known_covariance(void)
{
    double g2, tr;
    mb_noise_est e = synthetic(20261125, 16, 32, 1, 4000, &g2, &tr);
    double want = tr / g2;
    CU_ASSERT_EQUAL(e.n, 4000);
    CU_ASSERT_DOUBLE_EQUAL(e.b_simple / want, 1.0, 0.10);
    CU_ASSERT_DOUBLE_EQUAL(e.s / tr, 1.0, 0.04);
    CU_ASSERT_DOUBLE_EQUAL(e.g2 / g2, 1.0, 0.065);
    /* sgd-sync's shape: the small norm is the mean over 3 learners' slices of b = 12 */
    e = synthetic(7, 12, 36, 3, 4000, &g2, &tr);
    CU_ASSERT_DOUBLE_EQUAL(e.b_simple / want, 1.0, 0.10);
    CU_ASSERT_DOUBLE_EQUAL(e.s / tr, 1.0, 0.04);
}

/* The arithmetic: norms at their expectations give |G|^2 and S exactly; the window restarts at
 * each call while the run keeps every update; what is off adds nothing. */
static void test_arithmetic_and_windows(void)
{
    const double G2 = 0.0731, S = 3.17, b = 7, B = 21;
    mb_noise e;
    mb_noise_init(&e, b, B);
    mb_noise_add(&e, G2 + S / b, G2 + S / B);
    mb_noise_add(&e, NAN, 1.0); /* skipped */
    mb_noise_add(&e, 1.0, INFINITY);
    mb_noise_est w = mb_noise_window(&e);
    CU_ASSERT_EQUAL(w.n, 1);
    CU_ASSERT_DOUBLE_EQUAL(w.g2, G2, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(w.s, S, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(w.b_simple, S / G2, 1e-9);
    /* a second update of another size: the new window has it alone, the run the mean */
    mb_noise_add(&e, 2 * (G2 + S / b), 2 * (G2 + S / B));
    w = mb_noise_window(&e);
    CU_ASSERT_EQUAL(w.n, 1);
    CU_ASSERT_DOUBLE_EQUAL(w.g2, 2 * G2, 1e-12);
    mb_noise_est run = mb_noise_run(&e);
    CU_ASSERT_EQUAL(run.n, 2);
    CU_ASSERT_DOUBLE_EQUAL(run.g2, 1.5 * G2, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(run.b_simple, S / G2, 1e-9);
    /* an empty window, and norms that say |G|^2 <= 0: no estimate, never a number */
    w = mb_noise_window(&e);
    CU_ASSERT_EQUAL(w.n, 0);
    CU_ASSERT_TRUE(isnan(w.b_simple) && isnan(w.g2) && isnan(w.s));
    mb_noise_add(&e, 1.0, 0.1); /* B |G_B|^2 - b |G_b|^2 = 2.1 - 7 < 0 */
    CU_ASSERT_TRUE(isnan(mb_noise_window(&e).b_simple));
    /* off: M = 1 (b = 0), b >= B */
    mb_noise_init(&e, 0, 1);
    mb_noise_add(&e, 1.0, 0.5);
    CU_ASSERT_EQUAL(mb_noise_run(&e).n, 0);
    CU_ASSERT_TRUE(isnan(mb_noise_run(&e).b_simple));
    mb_noise_init(&e, 8, 8);
    mb_noise_add(&e, 1.0, 0.5);
    CU_ASSERT_EQUAL(mb_noise_window(&e).n, 0);
    const float g[3] = {1.5f, -2.0f, 0.25f};
    CU_ASSERT_DOUBLE_EQUAL(mb_noise_norm2(g, 3), 6.3125, 1e-12);
}

/* ---- the trainers --------------------------------------------------------------------------- */

static mb_table *read_log(const char *path)
{
    mb_table *t = NULL;
    mb_error err = {0};
    if (mb_table_read(path, &t, &err) != MB_OK)
        printf("\n    %s\n", err.msg);
    return t;
}

/* Checks a log's b_simple: the metadata finite and positive (or absent when want is 0), and the
 * column's cells empty or finite positive, filled only on evaluated rows; returns the cells
 * filled. */
static size_t check_b_simple(const mb_table *t, int want)
{
    const char *m = mb_table_meta(t, "b_simple");
    if (want) {
        CU_ASSERT_PTR_NOT_NULL(m);
        CU_ASSERT_TRUE(m && strtod(m, NULL) > 0 && isfinite(strtod(m, NULL)));
    } else {
        CU_ASSERT_PTR_NULL(m);
    }
    long c = mb_table_col(t, "b_simple"), ce = mb_table_col(t, "eval_loss");
    CU_ASSERT_EQUAL(c, 7);
    size_t filled = 0;
    for (size_t r = 0; c == 7 && r < mb_table_rows(t); r++) {
        const char *s = mb_table_cell(t, r, (size_t)c);
        if (!*s)
            continue;
        filled++;
        double v = strtod(s, NULL);
        CU_ASSERT_TRUE(v > 0 && isfinite(v));
        CU_ASSERT_TRUE(mb_table_cell(t, r, (size_t)ce)[0] != '\0');
    }
    return filled;
}

#define RUN "mbtrain --data " DATA " --algo momentum --lr 0.05 --eval-every 5 --seed 7 " \
            "--threads 1"

/* Runs a shell command and reads the log it wrote to dir/name; NULL (CU-failed) when either
 * failed. *summary (optional) gets the standard output (the caller frees it). */
static mb_table *train(const char *name, char **summary, const char *fmt, const char *net)
{
    mb_test_run r = {0};
    char cmd[2048], p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    snprintf(cmd, sizeof cmd, fmt, net);
    int ok = mb_test_sh_ok(&r, "%s --log %s", cmd, p);
    if (summary) {
        *summary = r.out;
        r.out = NULL;
    }
    mb_test_run_free(&r);
    if (!ok)
        return NULL;
    mb_table *t = read_log(p);
    CU_ASSERT_PTR_NOT_NULL(t);
    return t;
}

/* A real single-learner run: `# b_simple=` finite and positive, the column filled on
 * evaluation rows, and training bit-identical to the same run without the measurement (the
 * half batch's dropout masks and BN statistics put back); M = 1 leaves both out. */
static void test_single_learner(void)
{
    static const char *const nets[] = {tiny, tbn};
    static const char *const cols[] = {"update", "samples", "loss", "eval_loss", "eval_acc"};
    for (size_t n = 0; n < 2; n++) {
        mb_table *a = train(n ? "on1.csv" : "on0.csv", NULL,
                            RUN " --net %s --batch 16 --noise-every 1 --max-updates 60", nets[n]);
        mb_table *b = train(n ? "off1.csv" : "off0.csv", NULL,
                            RUN " --net %s --batch 16 --noise-every 0 --max-updates 60", nets[n]);
        if (a && b) {
            /* 12 windows of 5 measurements: so few make a noisy ratio, empty where |G|^2 or
             * S came out <= 0 (8 and 4 of the 12 are filled) */
            CU_ASSERT_TRUE(check_b_simple(a, 1) >= 3);
            CU_ASSERT_EQUAL(check_b_simple(b, 0), 0);
            CU_ASSERT_PTR_NOT_NULL(mb_table_meta(a, "t_noise_s"));
            CU_ASSERT_EQUAL(mb_table_rows(a), mb_table_rows(b));
            for (size_t i = 0; i < mb_table_rows(a) && i < mb_table_rows(b); i++)
                for (size_t k = 0; k < sizeof cols / sizeof *cols; k++)
                    CU_ASSERT_STRING_EQUAL(
                        mb_table_cell(a, i, (size_t)mb_table_col(a, cols[k])),
                        mb_table_cell(b, i, (size_t)mb_table_col(b, cols[k])));
        }
        mb_table_free(a);
        mb_table_free(b);
    }
    /* the default spacing (16) over a longer run still gives a whole-run value */
    mb_table *t = train("def.csv", NULL, RUN " --net %s --batch 8 --max-updates 200", tiny);
    if (t) {
        check_b_simple(t, 1);
        CU_ASSERT_STRING_EQUAL(mb_table_meta(t, "noise_every"), "16");
    }
    mb_table_free(t);
    /* M = 1: no half batch, so no estimate: left out, not "nan"; asked for, refused (issue
     * #25, G6), as with a parallel algorithm */
    char *out = NULL;
    t = train("m1.csv", &out, RUN " --net %s --batch 1 --max-updates 20", tiny);
    if (t) {
        CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "b_simple=-"));
        CU_ASSERT_EQUAL(check_b_simple(t, 0), 0);
    }
    free(out);
    mb_table_free(t);
    mb_test_expect_failure("mbtrain", "--net x --data y --batch 4 --noise-every -1", 1,
                           "--noise-every");
    mb_test_expect_failure("mbtrain", "--net x --data y --batch 1 --noise-every 1", 2,
                           "--noise-every has no effect with --batch 1");
    mb_test_expect_failure("mbtrain", "--net x --data y --batch 8 --algo sgd-sync --learners 2 "
                           "--noise-every 0", 2, "--noise-every has no effect with --algo "
                           "sgd-sync");
}

/* sgd-sync measures it every update through the same estimator: the learners' slices of
 * b = M / P against the averaged gradient of M. */
static void test_sgd_sync(void)
{
    mb_table *t = train("sync.csv", NULL,
                        "mbtrain --net %s --data " DATA " --algo sgd-sync --learners 2 --lr 0.05 "
                        "--batch 16 --eval-every 5 --max-updates 40 --seed 3", tiny);
    if (t) {
        CU_ASSERT_TRUE(check_b_simple(t, 1) >= 4); /* of 8 windows of 5 measurements */
        CU_ASSERT_PTR_NULL(mb_table_meta(t, "noise_every"));
    }
    mb_table_free(t);
}

/* mbfit nupdate shows single-learner runs' median B_simple beside the inverse law's
 * alpha / N_inf, with their ratio, in text and JSON. */
static void test_mbfit(void)
{
    char d[512];
    snprintf(d, sizeof d, "%s/fit", dir);
    mb_test_run r;
    if (!mb_test_sh_ok(&r, "mkdir -p %s && mbtrain --net %s --data " DATA " --algo sgd "
                       "--batch 8,16,32 --lr 0.1 --target-loss 0.9 --max-updates 400 "
                       "--eval-every 5 --noise-every 1 --log-dir %s", d, tiny, d))
        return;
    mb_test_run_free(&r);
    if (mb_test_sh_ok(&r, "mbfit nupdate --target-loss 0.9 %s/*.csv", d)) {
        CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "B_simple"));
        CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "sgd P=1"));
        CU_ASSERT_PTR_NOT_NULL(strstr(r.out, ": ratio "));
    }
    mb_test_run_free(&r);
    if (mb_test_sh_ok(&r, "mbfit nupdate --target-loss 0.9 --json %s/*.csv", d)) {
        CU_ASSERT_PTR_NULL(strstr(r.out, "\"b_simple_runs\":\t0"));
        CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"alpha_over_n_inf\""));
        CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"b_simple_ratio\""));
    }
    mb_test_run_free(&r);
}

int mb_test_suite_train_noise(void)
{
    CU_pSuite s = CU_add_suite("train_noise", setup, teardown);
    return !s || !CU_add_test(s, "B_simple on a known gradient covariance", test_known_covariance) ||
           !CU_add_test(s, "arithmetic, windows, off states", test_arithmetic_and_windows) ||
           !CU_add_test(s, "single learner: log, column, training unchanged, M = 1",
                        test_single_learner) ||
           !CU_add_test(s, "sgd-sync through the same estimator", test_sgd_sync) ||
           !CU_add_test(s, "mbfit nupdate: B_simple beside alpha / N_inf", test_mbfit);
}
