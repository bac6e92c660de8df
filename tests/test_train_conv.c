/* test_train_conv.c — the convolution algorithms: every algorithm that supports a shape agrees
 * with the direct loops on forward, backward-data and backward-filter over odd shapes
 * (non-square inputs, pad 0/1/2, stride 1/2, channel counts not multiples of 4, batch 1 to 7,
 * one sgemm chunk or two); the one-shot calls equal the planned ones; names parse; unsupported
 * shapes say why; workspace sizes are reported. The direct loops themselves are checked against a hand-computed case.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../net/mb_net.h"
#include "../train/backend/mb_backend.h"
#include "mb_test.h"

/* Deterministic pseudo-random values in [-1, 1) (a local LCG, not the library's PRNG). */
static void fill(float *v, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        v[i] = (float)(seed >> 8) / 8388608.0f - 1.0f;
    }
}

static const mb_conv_shape shapes[] = {
    /* batch, in_c, in_h, in_w, out_c, k, stride, pad */
    {1, 1, 7, 5, 1, 3, 1, 1},  {3, 3, 9, 6, 5, 3, 1, 0},  {3, 2, 8, 11, 7, 3, 1, 2},
    {1, 5, 10, 7, 3, 3, 2, 1}, {3, 3, 12, 9, 6, 5, 1, 2}, {1, 6, 9, 13, 5, 5, 2, 0},
    {3, 7, 6, 5, 2, 1, 1, 0},  {2, 3, 11, 8, 9, 4, 2, 1}, {3, 1, 28, 28, 6, 5, 1, 2},
    /* batches that im2col + sgemm cuts into two chunks (conv_gemm.c: about 4096 columns each),
     * wide (stride 1) and exact */
    {7, 2, 30, 30, 3, 3, 1, 1}, {6, 1, 60, 60, 2, 3, 2, 1},
};

/* Tolerance: the direct loops sum in double, the others in float32 over C*k*k (<= 175) terms
 * per output (sgemm, Winograd's 4x4 transforms whose coefficients are up to 1, FFT's O(log N)
 * rounding per transform); 2e-5 of the output's scale is ~170 float32 ulps, above those bounds'
 * typical size yet far below what a wrong index or a missing term (>= 1e-2) gives. */
static const double TOL = 2e-5;

static void test_agree(void)
{
    for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++) {
        const mb_conv_shape *s = &shapes[si];
        int oh = mb_conv_out_h(s), ow = mb_conv_out_w(s);
        size_t nx = (size_t)s->batch * s->in_c * s->in_h * s->in_w;
        size_t ny = (size_t)s->batch * s->out_c * oh * ow;
        size_t nw = (size_t)s->out_c * s->in_c * s->k * s->k;
        float *x = malloc(nx * 4), *w = malloc(nw * 4), *b = malloc(s->out_c * 4);
        float *dy = malloc(ny * 4);
        float *y0 = malloc(ny * 4), *dx0 = malloc(nx * 4), *dw0 = malloc(nw * 4),
              *db0 = malloc(s->out_c * 4);
        float *y1 = malloc(ny * 4), *dx1 = malloc(nx * 4), *dw1 = malloc(nw * 4),
              *db1 = malloc(s->out_c * 4);
        fill(x, nx, 11 + si), fill(w, nw, 23 + si), fill(b, s->out_c, 37 + si);
        fill(dy, ny, 51 + si);
        CU_ASSERT_EQUAL_FATAL(mb_conv_forward(MB_CONV_DIRECT, s, x, w, b, y0, NULL), MB_OK);
        CU_ASSERT_EQUAL_FATAL(mb_conv_backward_data(MB_CONV_DIRECT, s, dy, w, dx0, NULL), MB_OK);
        CU_ASSERT_EQUAL_FATAL(
            mb_conv_backward_filter(MB_CONV_DIRECT, s, x, dy, dw0, db0, NULL), MB_OK);
        for (int a = 0; a < MB_CONV_N_ALGOS; a++) {
            char why[128];
            if (a == MB_CONV_DIRECT)
                continue;
            if (!mb_conv_supported((mb_conv_algo)a, s, why, sizeof why)) {
                CU_ASSERT_TRUE(strlen(why) > 0);
                CU_ASSERT_EQUAL(mb_conv_forward((mb_conv_algo)a, s, x, w, b, y1, NULL),
                                MB_ENOTSUP);
                continue;
            }
            size_t wsb = 0;
            for (int p = 0; p < 3; p++) {
                size_t q = mb_conv_workspace((mb_conv_algo)a, (mb_conv_pass)p, s);
                wsb = q > wsb ? q : wsb;
            }
            void *ws = aligned_alloc(64, (wsb + 63) / 64 * 64 + 64);
            CU_ASSERT_EQUAL(mb_conv_forward((mb_conv_algo)a, s, x, w, b, y1, ws), MB_OK);
            CU_ASSERT_EQUAL(mb_conv_backward_data((mb_conv_algo)a, s, dy, w, dx1, ws), MB_OK);
            CU_ASSERT_EQUAL(mb_conv_backward_filter((mb_conv_algo)a, s, x, dy, dw1, db1, ws),
                            MB_OK);
            double ey = mb_test_rel_err(y1, y0, ny), ex = mb_test_rel_err(dx1, dx0, nx);
            double ew = mb_test_rel_err(dw1, dw0, nw);
            double eb = mb_test_rel_err(db1, db0, s->out_c);
            if (ey > TOL || ex > TOL || ew > TOL || eb > TOL)
                printf("\n    %s shape %zu: forward %.2e data %.2e filter %.2e bias %.2e",
                       mb_conv_algo_name((mb_conv_algo)a), si, ey, ex, ew, eb);
            CU_ASSERT_TRUE(ey <= TOL);
            CU_ASSERT_TRUE(ex <= TOL);
            CU_ASSERT_TRUE(ew <= TOL);
            CU_ASSERT_TRUE(eb <= TOL);
            /* a plan for a larger batch run on fewer samples gives the same first outputs */
            mb_conv_shape big = *s;
            big.batch = s->batch + 2;
            mb_conv_plan *pl;
            CU_ASSERT_EQUAL_FATAL(mb_conv_plan_create((mb_conv_algo)a, &big, &pl, NULL), MB_OK);
            free(ws);
            wsb = 0;
            for (int p = 0; p < 3; p++) {
                size_t q = mb_conv_workspace((mb_conv_algo)a, (mb_conv_pass)p, &big);
                wsb = q > wsb ? q : wsb;
            }
            ws = aligned_alloc(64, (wsb + 63) / 64 * 64 + 64);
            float *y2 = malloc(ny * 4);
            CU_ASSERT_EQUAL(mb_conv_plan_forward(pl, s->batch, x, w, b, y2, ws), MB_OK);
            CU_ASSERT_TRUE(mb_test_rel_err(y2, y1, ny) <= TOL);
            CU_ASSERT_EQUAL(mb_conv_plan_forward(pl, big.batch + 1, x, w, b, y2, ws), MB_EINVAL);
            CU_ASSERT_EQUAL(mb_conv_plan_forward(pl, 0, x, w, b, y2, ws), MB_EINVAL);
            free(y2);
            mb_conv_plan_free(pl);
            free(ws);
        }
        free(x), free(w), free(b), free(dy), free(y0), free(dx0), free(dw0), free(db0);
        free(y1), free(dx1), free(dw1), free(db1);
    }
}

/* The reference itself, on a case small enough to do by hand: 1x1x3x3 input 1..9, one 2x2
 * filter of ones, bias 0.5, stride 1, pad 0: outputs are sums of 2x2 windows plus 0.5. */
static void test_direct_by_hand(void)
{
    mb_conv_shape s = {1, 1, 3, 3, 1, 2, 1, 0};
    float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w[4] = {1, 1, 1, 1}, b = 0.5f, y[4];
    CU_ASSERT_EQUAL(mb_conv_forward(MB_CONV_DIRECT, &s, x, w, &b, y, NULL), MB_OK);
    CU_ASSERT_DOUBLE_EQUAL(y[0], 12.5, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(y[1], 16.5, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(y[2], 24.5, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(y[3], 28.5, 1e-6);
    /* dy = ones: dx counts how many windows cover each pixel; dw = window sums; db = 4 */
    float dy[4] = {1, 1, 1, 1}, dx[9], dw[4], db;
    CU_ASSERT_EQUAL(mb_conv_backward_data(MB_CONV_DIRECT, &s, dy, w, dx, NULL), MB_OK);
    const float cover[9] = {1, 2, 1, 2, 4, 2, 1, 2, 1};
    for (int i = 0; i < 9; i++)
        CU_ASSERT_DOUBLE_EQUAL(dx[i], cover[i], 1e-6);
    CU_ASSERT_EQUAL(mb_conv_backward_filter(MB_CONV_DIRECT, &s, x, dy, dw, &db, NULL), MB_OK);
    CU_ASSERT_DOUBLE_EQUAL(dw[0], 1 + 2 + 4 + 5, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(dw[3], 5 + 6 + 8 + 9, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(db, 4.0, 1e-6);
}

static void test_names_and_support(void)
{
    mb_conv_algo a;
    for (int i = 0; i < MB_CONV_N_ALGOS; i++) {
        CU_ASSERT_EQUAL(mb_conv_algo_parse(mb_conv_algo_name((mb_conv_algo)i), &a), MB_OK);
        CU_ASSERT_EQUAL(a, i);
    }
    CU_ASSERT_EQUAL(mb_conv_algo_parse("fastest", &a), MB_EINVAL);
    CU_ASSERT_EQUAL(mb_conv_algo_parse(NULL, &a), MB_EINVAL);
    CU_ASSERT_STRING_EQUAL(mb_conv_pass_name(MB_PASS_BACKWARD_FILTER), "backward_filter");
    char why[128];
    mb_conv_shape s5 = {2, 3, 12, 12, 4, 5, 1, 0}, s3s2 = {2, 3, 12, 12, 4, 3, 2, 1};
    CU_ASSERT_FALSE(mb_conv_supported(MB_CONV_WINOGRAD, &s5, why, sizeof why));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "3x3"));
    CU_ASSERT_FALSE(mb_conv_supported(MB_CONV_WINOGRAD, &s3s2, why, sizeof why));
    CU_ASSERT_TRUE(mb_conv_supported(MB_CONV_GEMM, &s5, why, sizeof why));
    CU_ASSERT_FALSE(mb_conv_supported((mb_conv_algo)7, &s5, why, sizeof why));
    mb_conv_shape bad = {2, 3, 2, 2, 4, 5, 1, 0}; /* kernel larger than the input */
    CU_ASSERT_FALSE(mb_conv_supported(MB_CONV_DIRECT, &bad, why, sizeof why));
    mb_conv_plan *p;
    mb_error err = {0};
    CU_ASSERT_EQUAL(mb_conv_plan_create(MB_CONV_DIRECT, &bad, &p, &err), MB_EINVAL);
    CU_ASSERT_PTR_NULL(p);
    CU_ASSERT_EQUAL(mb_conv_plan_create(MB_CONV_WINOGRAD, &s5, &p, &err), MB_ENOTSUP);
    CU_ASSERT_TRUE(strlen(err.msg) > 0);
    /* workspaces: direct needs none; GEMM holds at least one image's columns */
    CU_ASSERT_EQUAL(mb_conv_workspace(MB_CONV_DIRECT, MB_PASS_FORWARD, &s5), 0);
    CU_ASSERT_TRUE(mb_conv_workspace(MB_CONV_GEMM, MB_PASS_FORWARD, &s5) >=
                   sizeof(float) * 3 * 25 * 8 * 8);
    CU_ASSERT_EQUAL(mb_conv_workspace(MB_CONV_WINOGRAD, MB_PASS_FORWARD, &s5), 0); /* unsupported */
    CU_ASSERT_EQUAL(mb_conv_out_h(&s3s2), 6);
}

int mb_test_suite_train_conv(void)
{
    CU_pSuite s = CU_add_suite("train_conv", NULL, NULL);
    return !s || !CU_add_test(s, "direct convolution by hand", test_direct_by_hand) ||
           !CU_add_test(s, "algorithms agree with direct on odd shapes", test_agree) ||
           !CU_add_test(s, "names, support, workspaces, plans", test_names_and_support);
}
