/* test_model.c — model/: the closed forms against independent numerical answers and the papers'
 * worked examples, and every domain error.
 *
 * The optimum over M is checked against a golden-section minimisation of T_C(M, P) written here
 * in quad precision (see argmin_q), so that 1e-9 relative is a test of the closed form alone.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../model/mb_model.h"
#include "mb_test.h"

/* A small deterministic generator (xorshift64*), so the random sets are the same every run. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double uniform(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ull) >> 11) * 0x1.0p-53;
}
/* log-uniform in [lo, hi] */
static double log_uniform(double lo, double hi) { return lo * pow(hi / lo, uniform()); }

/* The reference works in GCC's quad precision (113-bit mantissa). A smooth minimum of relative
 * curvature c can be located only to about sqrt(eps / c) from function values; with c as small
 * as 1e-8 in the random sets (one term of T_C dominating), quad precision still resolves M to
 * 1e-13, so the 1e-9 tolerance below is the model's, not the reference's. */
typedef __float128 quad;

/* T_C(M, P) computed from scratch. */
static quad tc_q(const mb_inverse_law *l, const mb_update_time *t, quad m, quad p, quad d)
{
    quad per = m / p > (quad)t->m_t ? m / p : (quad)t->m_t;
    return ((quad)l->n_inf + (quad)l->alpha / m) * ((quad)t->gamma * per + d);
}

/* Golden-section minimisation of T_C over M in [1e-3, 1e15] (T_C is unimodal in M: it falls
 * below the knee and is convex above it). */
static double argmin_q(const mb_inverse_law *l, const mb_update_time *t, double p, double d,
                       double *fmin)
{
    const quad phi = ((quad)2.2360679774997896964 - 1) / 2; /* refined below */
    quad ph = phi;
    for (int i = 0; i < 8; i++) /* Newton on ph^2 + ph - 1 = 0 to full quad precision */
        ph -= (ph * ph + ph - 1) / (2 * ph + 1);
    quad lo = (quad)1e-3, hi = (quad)1e15, P = p, D = d;
    quad x1 = hi - ph * (hi - lo), x2 = lo + ph * (hi - lo);
    quad f1 = tc_q(l, t, x1, P, D), f2 = tc_q(l, t, x2, P, D);
    for (int i = 0; i < 260; i++) {
        if (f1 <= f2) {
            hi = x2; x2 = x1; f2 = f1;
            x1 = hi - ph * (hi - lo);
            f1 = tc_q(l, t, x1, P, D);
        } else {
            lo = x1; x1 = x2; f1 = f2;
            x2 = lo + ph * (hi - lo);
            f2 = tc_q(l, t, x2, P, D);
        }
    }
    quad m = (lo + hi) / 2;
    *fmin = (double)tc_q(l, t, m, P, D);
    return (double)m;
}

static void random_model(mb_inverse_law *l, mb_update_time *t, mb_comm comm)
{
    l->n_inf = log_uniform(10, 1e5);
    l->alpha = log_uniform(1e2, 1e8);
    *t = (mb_update_time){0}; /* t0 = 0 and no table: Perrone's model as written */
    t->gamma = log_uniform(1e-7, 1e-3);
    t->m_t = log_uniform(1, 512);
    t->comm = comm;
    t->delta = log_uniform(1e-6, 1.0);
    t->latency_s = log_uniform(1e-7, 1e-4);
    t->s_per_byte = log_uniform(1e-11, 1e-8);
    t->bytes = log_uniform(1e3, 1e9);
}

static void check_optimum_random(mb_comm comm)
{
    int regimes[3] = {0, 0, 0};
    for (int k = 0; k < 2000; k++) {
        mb_inverse_law l;
        mb_update_time t;
        random_model(&l, &t, comm);
        double p = k % 5 == 0 ? 1.0 : floor(log_uniform(2, 4096));
        mb_optimum o;
        CU_ASSERT_EQUAL_FATAL(mb_model_optimum(&l, &t, p, &o), MB_OK);
        double d;
        CU_ASSERT_EQUAL_FATAL(mb_model_comm_time(&t, p, &d), MB_OK);
        double fmin, m = argmin_q(&l, &t, p, d, &fmin);
        CU_ASSERT_TRUE(mb_test_close(o.m_opt, m, 1e-9));
        CU_ASSERT_TRUE(mb_test_close(o.t_c, fmin, 1e-9));
        /* the closed form's T_C is T_C(M_opt, P) itself */
        double tc;
        CU_ASSERT_EQUAL(mb_model_tc(&l, &t, o.m_opt, p, &tc), MB_OK);
        CU_ASSERT_TRUE(mb_test_close(o.t_c, tc, 1e-12));
        regimes[o.regime]++;
    }
    /* the random sets exercise every branch of eq. 10 */
    CU_ASSERT_TRUE(regimes[MB_REGIME_SINGLE] > 100);
    if (comm != MB_COMM_NONE)
        CU_ASSERT_TRUE(regimes[MB_REGIME_BALANCE] > 100);
    CU_ASSERT_TRUE(regimes[MB_REGIME_KNEE] > 100);
}

static void test_optimum_allreduce(void) { check_optimum_random(MB_COMM_ALLREDUCE); }
static void test_optimum_ps(void) { check_optimum_random(MB_COMM_PS); }
static void test_optimum_alpha_beta(void) { check_optimum_random(MB_COMM_ALPHA_BETA); }
static void test_optimum_none(void) { check_optimum_random(MB_COMM_NONE); }

/* Perrone eq. 10 as printed, and its boundary P_b = alpha delta / (gamma M_T^2 N_inf). */
static void test_eq10_branches(void)
{
    mb_inverse_law l = {1234.5, 3.21e5};
    mb_update_time t = {.gamma = 2.7e-5, .m_t = 37.0, .comm = MB_COMM_ALLREDUCE, .delta = 4.1e-3};
    double pb;
    CU_ASSERT_EQUAL(mb_model_regime_boundary(&l, &t, &pb), MB_OK);
    CU_ASSERT_TRUE(mb_test_close(pb, 3.21e5 * 4.1e-3 / (2.7e-5 * 37.0 * 37.0 * 1234.5), 1e-14));
    mb_optimum below, above;
    CU_ASSERT_EQUAL(mb_model_optimum(&l, &t, pb * 0.9, &below), MB_OK);
    CU_ASSERT_EQUAL(mb_model_optimum(&l, &t, pb * 1.1, &above), MB_OK);
    CU_ASSERT_EQUAL(below.regime, MB_REGIME_BALANCE);
    CU_ASSERT_EQUAL(above.regime, MB_REGIME_KNEE);
    double p = pb * 0.9, s = sqrt(t.delta * l.n_inf) + sqrt(l.alpha * t.gamma / p);
    CU_ASSERT_TRUE(mb_test_close(below.t_c, s * s, 1e-13));
    p = pb * 1.1;
    CU_ASSERT_TRUE(mb_test_close(above.t_c,
                                 (l.n_inf + l.alpha / (t.m_t * p)) * (t.delta + t.gamma * t.m_t),
                                 1e-13));
    /* the two branches meet at the boundary: T_C(P) is continuous there */
    mb_optimum a, b;
    mb_model_optimum(&l, &t, pb * (1 - 1e-9), &a);
    mb_model_optimum(&l, &t, pb * (1 + 1e-9), &b);
    CU_ASSERT_TRUE(mb_test_close(a.t_c, b.t_c, 1e-7));
    /* P = 1: eq. 7-8, no communication even though delta > 0 */
    mb_optimum one;
    CU_ASSERT_EQUAL(mb_model_optimum(&l, &t, 1.0, &one), MB_OK);
    CU_ASSERT_EQUAL(one.regime, MB_REGIME_SINGLE);
    CU_ASSERT_DOUBLE_EQUAL(one.m_opt, t.m_t, 0);
    CU_ASSERT_TRUE(mb_test_close(one.t_c, (l.n_inf + l.alpha / t.m_t) * t.gamma * t.m_t, 1e-15));
}

static void test_update_time_forms(void)
{
    mb_update_time t = {.gamma = 1.5e-4, .m_t = 20.0, .comm = MB_COMM_PS, .delta = 0.01};
    double tu, d;
    CU_ASSERT_EQUAL(mb_model_tupdate(&t, 10.0, 1.0, &tu), MB_OK); /* below the knee */
    CU_ASSERT_TRUE(mb_test_close(tu, 1.5e-4 * 20.0, 1e-15));
    CU_ASSERT_EQUAL(mb_model_tupdate(&t, 400.0, 4.0, &tu), MB_OK); /* above, PS: delta P */
    CU_ASSERT_TRUE(mb_test_close(tu, 1.5e-4 * 100.0 + 0.04, 1e-15));
    t.comm = MB_COMM_ALPHA_BETA;
    t.latency_s = 3e-6;
    t.s_per_byte = 1e-9;
    t.bytes = 2.5e6;
    CU_ASSERT_EQUAL(mb_model_comm_time(&t, 8.0, &d), MB_OK);
    CU_ASSERT_TRUE(mb_test_close(d, 2 * 7 * 3e-6 + 2.0 * 7 / 8 * 2.5e6 * 1e-9, 1e-15));
    CU_ASSERT_EQUAL(mb_model_comm_time(&t, 1.0, &d), MB_OK);
    CU_ASSERT_DOUBLE_EQUAL(d, 0.0, 0.0);
    t.comm = MB_COMM_NONE;
    CU_ASSERT_EQUAL(mb_model_comm_time(&t, 64.0, &d), MB_OK);
    CU_ASSERT_DOUBLE_EQUAL(d, 0.0, 0.0);
    mb_comm c;
    CU_ASSERT_EQUAL(mb_model_comm_parse("alpha-beta", &c), MB_OK);
    CU_ASSERT_EQUAL(c, MB_COMM_ALPHA_BETA);
    CU_ASSERT_EQUAL(mb_model_comm_parse("ring", &c), MB_EINVAL);
}

static void test_strong_weak(void)
{
    mb_inverse_law l = {900.0, 5e4};
    mb_update_time t = {.gamma = 3e-5, .m_t = 16.0, .comm = MB_COMM_ALLREDUCE, .delta = 2e-3};
    double s, w, ref;
    CU_ASSERT_EQUAL(mb_model_tc_strong(&l, &t, 256.0, 8.0, &s), MB_OK);
    CU_ASSERT_EQUAL(mb_model_tc(&l, &t, 256.0, 8.0, &ref), MB_OK);
    CU_ASSERT_DOUBLE_EQUAL(s, ref, 0.0);
    CU_ASSERT_EQUAL(mb_model_tc_weak(&l, &t, 32.0, 8.0, &w), MB_OK);
    CU_ASSERT_TRUE(mb_test_close(w, (900.0 + 5e4 / 256.0) * (3e-5 * 32.0 + 2e-3), 1e-15));
    /* no scheme beats the optimum at the same P */
    mb_optimum o;
    mb_model_optimum(&l, &t, 8.0, &o);
    CU_ASSERT_TRUE(o.t_c <= s * (1 + 1e-15) && o.t_c <= w * (1 + 1e-15));
}

/* Zou et al. 2017, sec. 3.2: the worked examples of Lemma 3.1. */
static void test_amdahl_examples(void)
{
    double r, g, e, s;
    CU_ASSERT_EQUAL(mb_model_amdahl_max_overhead(4.0, 0.8, &r), MB_OK);
    CU_ASSERT_TRUE(mb_test_close(r, 1.0 / 11.0, 1e-15)); /* "must not exceed 9%" */
    CU_ASSERT_EQUAL(mb_model_amdahl_gpus_for_speedup(0.1, 3.0, &g), MB_OK);
    CU_ASSERT_TRUE(mb_test_close(g, 3.75, 1e-15));
    CU_ASSERT_DOUBLE_EQUAL(ceil(g), 4.0, 0.0); /* "she can configure a 4 GPU system" */
    CU_ASSERT_EQUAL(mb_model_amdahl_speedup(0.1, 4.0, &s), MB_OK);
    CU_ASSERT_TRUE(s >= 3.0);
    CU_ASSERT_EQUAL(mb_model_amdahl_speedup(0.1, 3.0, &s), MB_OK);
    CU_ASSERT_TRUE(s < 3.0);
    /* the inversions are inverses */
    for (int k = 0; k < 500; k++) {
        double ro = log_uniform(1e-4, 2.0), gg = floor(log_uniform(1, 1e4)), ee, ss, back;
        CU_ASSERT_EQUAL(mb_model_amdahl_efficiency(ro, gg, &ee), MB_OK);
        CU_ASSERT_EQUAL(mb_model_amdahl_speedup(ro, gg, &ss), MB_OK);
        CU_ASSERT_EQUAL(mb_model_amdahl_gpus_for_speedup(ro, ss, &back), MB_OK);
        CU_ASSERT_TRUE(mb_test_close(back, gg, 1e-6));
        CU_ASSERT_EQUAL(mb_model_amdahl_gpus_for_efficiency(ro, ee, &back), MB_OK);
        CU_ASSERT_TRUE(mb_test_close(back, gg, 1e-6));
        if (gg > 1 && gg * ee > 1) {
            CU_ASSERT_EQUAL(mb_model_amdahl_max_overhead(gg, ee, &back), MB_OK);
            CU_ASSERT_TRUE(mb_test_close(back, ro, 1e-6));
            CU_ASSERT_EQUAL(mb_model_amdahl_overhead_for_speedup(gg, ss, &back), MB_OK);
            CU_ASSERT_TRUE(mb_test_close(back, ro, 1e-6));
        }
    }
    (void)e;
}

static void test_ps_lemma(void)
{
    double exact, n;
    /* 240 MiB of parameters, 16 workers, 0.2 s rounds, 10 GiB/s per server */
    CU_ASSERT_EQUAL(mb_model_ps_count(240.0 * 1048576, 16, 0.2, 10.0 * 1073741824, &exact, &n),
                    MB_OK);
    CU_ASSERT_TRUE(mb_test_close(exact, 2 * 240.0 * 16 / (0.2 * 10 * 1024), 1e-15));
    CU_ASSERT_DOUBLE_EQUAL(n, ceil(exact), 0.0);
    /* an exact integer bound is not rounded up to the next server */
    CU_ASSERT_EQUAL(mb_model_ps_count(1e6, 3, 0.5, 4e6, &exact, &n), MB_OK);
    CU_ASSERT_DOUBLE_EQUAL(n, 3.0, 0.0);
    /* at least one server */
    CU_ASSERT_EQUAL(mb_model_ps_count(1.0, 1, 10.0, 1e9, &exact, &n), MB_OK);
    CU_ASSERT_DOUBLE_EQUAL(n, 1.0, 0.0);
}

/* Perrone eq. 12: at an interior optimum the gain per unit of money is the same for learners
 * and for bandwidth, and no nearby point on the budget line is better. */
static void test_design_balance(void)
{
    mb_inverse_law l = {800.0, 2e5};
    mb_update_time t = {.gamma = 1e-5, .m_t = 32.0, .comm = MB_COMM_PS, .delta = 2e-4};
    mb_design_problem prob = {.budget = 1e5, .price_learner = 1500.0, .price_bandwidth = 2e-5,
                              .bandwidth_ref = 1e9};
    mb_design d;
    CU_ASSERT_EQUAL_FATAL(mb_model_design(&l, &t, &prob, &d), MB_OK);
    CU_ASSERT_TRUE(d.interior);
    CU_ASSERT_TRUE(d.learners > 1 && d.learners < prob.budget / prob.price_learner);
    CU_ASSERT_TRUE(mb_test_close(d.learners * prob.price_learner + d.bandwidth * prob.price_bandwidth,
                                 prob.budget, 1e-12));
    /* eq. 12; the tolerance covers the central differences (h = 1e-5 relative) */
    CU_ASSERT_TRUE(mb_test_close(d.dt_dcost_learners, d.dt_dcost_bandwidth, 1e-3));
    for (double f = 0.9; f <= 1.1001; f += 0.05) {
        if (f == 1.0)
            continue;
        double p = d.learners * f, b = (prob.budget - prob.price_learner * p) / prob.price_bandwidth;
        mb_update_time s = t;
        s.delta = t.delta * prob.bandwidth_ref / b;
        mb_optimum o;
        CU_ASSERT_EQUAL(mb_model_optimum(&l, &s, p, &o), MB_OK);
        CU_ASSERT_TRUE(o.t_c >= d.opt.t_c * (1 - 1e-12));
    }
    /* whole learners: a neighbour of the continuous optimum, no better than it */
    CU_ASSERT_TRUE(d.whole_learners == floor(d.learners) || d.whole_learners == ceil(d.learners));
    CU_ASSERT_TRUE(d.whole_t_c >= d.opt.t_c * (1 - 1e-12));
    /* a budget for less than one learner has no answer */
    prob.budget = 1000.0;
    CU_ASSERT_EQUAL(mb_model_design(&l, &t, &prob, &d), MB_EDOM);
}

static void test_domain_errors(void)
{
    mb_inverse_law l = {100.0, 1e4};
    mb_update_time t = {.gamma = 1e-4, .m_t = 8.0, .comm = MB_COMM_ALLREDUCE, .delta = 1e-3};
    double v = 42.0;
    mb_optimum o;
    CU_ASSERT_EQUAL(mb_model_nupdate(&l, 0.0, &v), MB_EDOM);
    CU_ASSERT_EQUAL(mb_model_nupdate(&l, -3.0, &v), MB_EDOM);
    CU_ASSERT_EQUAL(mb_model_nupdate(&l, NAN, &v), MB_EDOM);
    CU_ASSERT_EQUAL(mb_model_tupdate(&t, 16.0, 0.5, &v), MB_EDOM);
    CU_ASSERT_EQUAL(mb_model_tc(&l, &t, 16.0, INFINITY, &v), MB_EDOM);
    CU_ASSERT_DOUBLE_EQUAL(v, 42.0, 0.0); /* outputs untouched on error */
    mb_inverse_law neg = {-5.0, 1e4};
    CU_ASSERT_EQUAL(mb_model_optimum(&neg, &t, 4.0, &o), MB_EDOM);
    mb_update_time bad = t;
    bad.delta = -1.0;
    CU_ASSERT_EQUAL(mb_model_tupdate(&bad, 16.0, 2.0, &v), MB_EDOM);
    bad = t;
    bad.gamma = 0.0;
    CU_ASSERT_EQUAL(mb_model_optimum(&l, &bad, 2.0, &o), MB_EDOM);
    /* N_update that is not positive (a negative N_inf with large M) is an error, not a time */
    CU_ASSERT_EQUAL(mb_model_nupdate(&neg, 1e6, &v), MB_EDOM);
    CU_ASSERT_EQUAL(mb_model_amdahl_efficiency(-0.1, 4, &v), MB_EDOM);
    CU_ASSERT_EQUAL(mb_model_amdahl_efficiency(0.1, 0.5, &v), MB_EDOM);
    CU_ASSERT_EQUAL(mb_model_amdahl_max_overhead(4, 1.2, &v), MB_EDOM);
    CU_ASSERT_EQUAL(mb_model_amdahl_max_overhead(4, 0.0, &v), MB_EDOM);
    CU_ASSERT_EQUAL(mb_model_amdahl_max_overhead(1, 0.9, &v), MB_EDOM); /* G E <= 1 */
    CU_ASSERT_EQUAL(mb_model_amdahl_gpus_for_speedup(0.1, 11.0, &v), MB_EDOM); /* asymptote */
    CU_ASSERT_EQUAL(mb_model_amdahl_gpus_for_efficiency(0.0, 0.5, &v), MB_EDOM);
    CU_ASSERT_EQUAL(mb_model_amdahl_overhead_for_speedup(4, 5, &v), MB_EDOM);
    double n;
    CU_ASSERT_EQUAL(mb_model_ps_count(0.0, 4, 1, 1, &v, &n), MB_EDOM);
    CU_ASSERT_EQUAL(mb_model_ps_count(1.0, 4, 0, 1, &v, &n), MB_EDOM);
    CU_ASSERT_EQUAL(mb_model_regime_boundary(&l, &(mb_update_time){.gamma = 1, .m_t = 1,
                                                 .comm = MB_COMM_ALPHA_BETA}, &v), MB_ENOTSUP);
}

static void test_errors_record(void)
{
    mb_error e;
    CU_ASSERT_EQUAL(mb_error_set(&e, MB_EFORMAT, "%s:%d: field '%s'", "a.csv", 7, "batch"),
                    MB_EFORMAT);
    CU_ASSERT_STRING_EQUAL(e.msg, "a.csv:7: field 'batch'");
    CU_ASSERT_EQUAL(mb_error_set(NULL, MB_EIO, "ignored"), MB_EIO);
    /* one line whatever the file name or value quoted (issue #25, G16); UTF-8 kept */
    mb_error_set(&e, MB_EFORMAT, "%s: '%s'", "a\nb.csv", "1\t\033[2J\xc3\xa9");
    CU_ASSERT_STRING_EQUAL(e.msg, "a\\nb.csv: '1\\t\\x1b[2J\xc3\xa9'");
    /* in place and of any length (mb_cli_say escapes lines of up to MB_CLI_LINE bytes): the
     * tail of a 1500-byte line is kept; an escape that does not fit whole is cut before it */
    char big[2048];
    memset(big, 'x', 1500);
    memcpy(big + 1495, "\033y\n", 3);
    big[1500] = '\0';
    mb_error_one_line(big, sizeof big);
    CU_ASSERT_EQUAL(strlen(big), 1504u);
    CU_ASSERT_STRING_EQUAL(big + 1495, "\\x1by\\nxx");
    char small[8] = "ab\ncd";
    mb_error_one_line(small, 5);
    CU_ASSERT_STRING_EQUAL(small, "ab\\n");
    char tight[8] = "ab\ncd";
    mb_error_one_line(tight, 4);
    CU_ASSERT_STRING_EQUAL(tight, "ab");
    mb_error_clear(&e);
    CU_ASSERT_EQUAL(e.status, MB_OK);
    CU_ASSERT_STRING_EQUAL(mb_strerror(MB_EDOM), "value outside the model's domain");
    CU_ASSERT_STRING_EQUAL(mb_strerror(12345), "unknown error");
}

/* ---- the memory model (Zou et al. 2017, eq. 1-5) ------------------------------------------- */

#define CONV(n, ic, ih, oc, oh, k) {MB_MEM_CONV, n, ic, ih, ih, oc, oh, oh, k, 0}
#define POOL(n, ic, ih, oh) {MB_MEM_POOL, n, ic, ih, ih, ic, oh, oh, 0, 0}
#define FC(n, in, out) {MB_MEM_FC, n, in, 1, 1, out, 1, 1, 0, 0}
#define ACT(n, c, h) {MB_MEM_ELEMENTWISE, n, c, h, h, c, h, h, 0, 0}

/* LeNet-5 as data/nets/lenet5.cfg describes it; the fc layers take the flattened 16x5x5. */
static const mb_mem_layer lenet5[] = {
    CONV("conv1", 1, 28, 6, 28, 5), ACT("relu1", 6, 28), POOL("pool1", 6, 28, 14),
    CONV("conv2", 6, 14, 16, 10, 5), ACT("relu2", 16, 10), POOL("pool2", 16, 10, 5),
    {MB_MEM_FC, "fc1", 16, 5, 5, 120, 1, 1, 0, 0}, FC("fc2", 120, 84), FC("fc3", 84, 10),
    ACT("softmax", 10, 1)};

/* AlexNet (one tower, Krizhevsky et al. 2012): 227 -> 55 -> 27 -> 27 -> 13 -> 13 -> 6. */
static const mb_mem_layer alexnet[] = {
    CONV("conv1", 3, 227, 96, 55, 11), POOL("pool1", 96, 55, 27),
    CONV("conv2", 96, 27, 256, 27, 5), POOL("pool2", 256, 27, 13),
    CONV("conv3", 256, 13, 384, 13, 3), CONV("conv4", 384, 13, 384, 13, 3),
    CONV("conv5", 384, 13, 256, 13, 3), POOL("pool5", 256, 13, 6),
    {MB_MEM_FC, "fc6", 256, 6, 6, 4096, 1, 1, 0, 0}, FC("fc7", 4096, 4096), FC("fc8", 4096, 1000)};

/* The bytes by hand: parameters, values per sample of the input, of the kept outputs and of the
 * largest GEMM lowering (in_c k^2 out_h out_w), float32, one gradient and one momentum block. */
static void check_mem(const mb_mem_layer *l, size_t n, double params, double input, double fmap,
                      double ws, size_t ws_layer)
{
    mb_mem_options o;
    mb_model_mem_defaults(&o);
    const double ms[] = {32, 100, 64, 128};
    for (size_t i = 0; i < 4; i++) {
        double m = ms[i];
        mb_mem_total t;
        CU_ASSERT_EQUAL_FATAL(mb_model_mem(l, n, m, &o, &t), MB_OK);
        CU_ASSERT_EQUAL(t.params, 4 * params);
        CU_ASSERT_EQUAL(t.grads, 4 * params);
        CU_ASSERT_EQUAL(t.state, 4 * params);
        CU_ASSERT_EQUAL(t.input, 4 * m * input);
        CU_ASSERT_EQUAL(t.fmaps, 4 * m * fmap);
        CU_ASSERT_EQUAL(t.workspace, 4 * m * ws);
        CU_ASSERT_EQUAL(t.ws_layer, ws_layer);
        CU_ASSERT_EQUAL(t.total, 4 * (3 * params + m * (input + fmap + ws)));
        double bound;
        CU_ASSERT_EQUAL(mb_model_mem_bound(l, n, m, &o, 12e9, &bound), MB_OK);
        CU_ASSERT_EQUAL(bound, 12e9 - 4 * (3 * params + m * (input + fmap)));
    }
    /* Zou et al.'s convention: two gradient copies, no optimiser state */
    o.grad_copies = 2, o.state_copies = 0;
    mb_mem_total t;
    CU_ASSERT_EQUAL_FATAL(mb_model_mem(l, n, 128, &o, &t), MB_OK);
    CU_ASSERT_EQUAL(t.params + t.grads + t.state, 3 * 4 * params);
    /* the largest M: total(M) fits, total(M + 1) does not, for devices of any size */
    mb_model_mem_defaults(&o);
    for (int i = 0; i < 50; i++) {
        double dev = 4 * 3 * params * (1 + 200 * uniform()), mmax;
        CU_ASSERT_EQUAL_FATAL(mb_model_mem_max_batch(l, n, &o, dev, &mmax), MB_OK);
        double at = 4 * (3 * params + mmax * (input + fmap + ws));
        double next = 4 * (3 * params + (mmax + 1) * (input + fmap + ws));
        CU_ASSERT_TRUE(mmax == 0 ? 4 * (3 * params + input + fmap + ws) > dev : at <= dev);
        CU_ASSERT_TRUE(next > dev);
    }
}

static void test_memory_lenet5_alexnet(void)
{
    /* LeNet-5: 5*5*1*6+6, 5*5*6*16+16, 400*120+120, 120*84+84, 84*10+10 = 61,706 */
    check_mem(lenet5, sizeof lenet5 / sizeof lenet5[0], 156 + 2416 + 48120 + 10164 + 850,
              28 * 28, 6 * 28 * 28 + 6 * 14 * 14 + 16 * 10 * 10 + 16 * 5 * 5 + 120 + 84 + 10,
              1 * 25 * 28 * 28, 0);
    /* AlexNet: 11*11*3*96+96, 5*5*96*256+256, 3*3*256*384+384, 3*3*384*384+384,
     * 3*3*384*256+256, 9216*4096+4096, 4096*4096+4096, 4096*1000+1000 = 62,378,344;
     * the largest lowering is conv2's, 96*25*27*27 */
    check_mem(alexnet, sizeof alexnet / sizeof alexnet[0],
              34944.0 + 614656 + 885120 + 1327488 + 884992 + 37752832 + 16781312 + 4097000,
              3 * 227 * 227,
              96 * 55 * 55 + 96 * 27 * 27 + 256 * 27 * 27 + 256 * 13 * 13 + 384 * 13 * 13 +
                  384 * 13 * 13 + 256 * 13 * 13 + 256 * 6 * 6 + 4096 + 4096 + 1000,
              96 * 25 * 27 * 27, 2);
    mb_mem_options o;
    mb_model_mem_defaults(&o);
    mb_mem_total t;
    double v;
    CU_ASSERT_EQUAL(mb_model_mem(lenet5, 10, 0, &o, &t), MB_EDOM);
    CU_ASSERT_EQUAL(mb_model_mem(lenet5, 0, 8, &o, &t), MB_EDOM);
    CU_ASSERT_EQUAL(mb_model_mem_bound(lenet5, 10, 8, &o, 0, &v), MB_EDOM);
    mb_mem_layer bad = lenet5[0];
    bad.k = 0;
    CU_ASSERT_EQUAL(mb_model_mem(&bad, 1, 8, &o, &t), MB_EDOM);
    /* too small for M = 1 */
    CU_ASSERT_EQUAL(mb_model_mem_max_batch(lenet5, 10, &o, 1000, &v), MB_OK);
    CU_ASSERT_EQUAL(v, 0);
}

int mb_test_suite_model(void)
{
    CU_pSuite s = CU_add_suite("model", NULL, NULL);
    if (!s)
        return -1;
    return !CU_add_test(s, "optimum = numerical minimum (allreduce)", test_optimum_allreduce) ||
           !CU_add_test(s, "optimum = numerical minimum (parameter server)", test_optimum_ps) ||
           !CU_add_test(s, "optimum = numerical minimum (alpha-beta)", test_optimum_alpha_beta) ||
           !CU_add_test(s, "optimum = numerical minimum (no comm)", test_optimum_none) ||
           !CU_add_test(s, "eq. 10 branches and boundary", test_eq10_branches) ||
           !CU_add_test(s, "update-time forms", test_update_time_forms) ||
           !CU_add_test(s, "strong and weak scaling", test_strong_weak) ||
           !CU_add_test(s, "Amdahl: Zou's examples and inversions", test_amdahl_examples) ||
           !CU_add_test(s, "parameter-server lemma", test_ps_lemma) ||
           !CU_add_test(s, "budget design: eq. 12 balance", test_design_balance) ||
           !CU_add_test(s, "domain errors", test_domain_errors) ||
           !CU_add_test(s, "error records", test_errors_record) ||
           !CU_add_test(s, "memory: lenet5 and AlexNet by hand", test_memory_lenet5_alexnet);
}
