/* test_train_backend.c — every operation of the backend interface (backend_impl.h), on every
 * backend that is built and usable here, against the CPU's own kernels called directly
 * (train/backend/cpu/layers_impl.h, mb_conv_* with the direct loops): memory round trips, every
 * convolution algorithm of every pass that a backend supports for a few shapes (at the plan's
 * batch and a smaller one), fully connected, max and average pooling, the activations, dropout
 * (masks bit for bit), softmax cross-entropy, and whole networks (lenet5, and a small one with
 * the layers lenet5 lacks) through mb_net on the backend's context: forward_backward and an
 * evaluation against a CPU network of the same seed.
 *
 * On a machine without a GPU the CPU backend runs against the direct kernels (which checks the
 * seam: every argument routed to the right place) and CUDA is skipped with its reason; where
 * CUDA is built, its dropout and softmax kernels' per-element arithmetic (the same __host__
 * __device__ functions the kernels call) is also run on the host against the CPU's. The
 * comparison itself is checked to catch a deliberately wrong value.
 *
 * Tolerances are relative to the reference's largest magnitude ("scale"), stated where used.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../train/backend/backend_impl.h"
#include "../train/backend/cpu/layers_impl.h"
#include "../net/mb_net.h"
#include "../train/backend/mb_backend.h"
#include "../train/learner/mb_learner.h"
#include "mb_test.h"

/* Deterministic pseudo-random values in [-1, 1) (a local LCG, not the library's PRNG). */
static void fill(float *v, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        v[i] = (float)(seed >> 8) / 8388608.0f - 1.0f;
    }
}

/* max |got - ref| / max(scale of ref, tiny) <= tol; otherwise says where (unless quiet). */
static int close_to(const char *be, const char *what, const float *ref, const float *got,
                    size_t n, double tol, int quiet)
{
    double scale = 0.0, worst = 0.0;
    size_t at = 0;
    for (size_t i = 0; i < n; i++)
        scale = fmax(scale, fabs((double)ref[i]));
    if (scale < 1e-30)
        scale = 1e-30;
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)got[i] - (double)ref[i]);
        if (!(e <= worst)) /* NaN counts as worst */
            worst = isnan(e) ? INFINITY : e, at = i;
    }
    if (worst / scale <= tol)
        return 1;
    if (!quiet)
        printf("\n    %s %s: error %.3g of scale %.3g (tolerance %.1g) at %zu: %g, want %g", be,
               what, worst / scale, scale, tol, at, (double)got[at], (double)ref[at]);
    return 0;
}

/* Backend memory holding n host floats, and back. */
static float *to_dev(mb_ctx *ctx, const float *h, size_t n)
{
    float *d = mb_ctx_alloc(ctx, n * sizeof *d);
    if (d && mb_ctx_upload(ctx, d, h, n * sizeof *d) != MB_OK) {
        mb_ctx_release(ctx, d);
        return NULL;
    }
    return d;
}

static float *to_host(mb_ctx *ctx, const float *d, size_t n)
{
    float *h = malloc(n * sizeof *h);
    if (h && mb_ctx_download(ctx, h, d, n * sizeof *h) != MB_OK) {
        free(h);
        return NULL;
    }
    return h;
}

/* Compares backend memory `d` with host `ref`. */
static int dev_close(mb_ctx *ctx, const char *what, const float *ref, const float *d, size_t n,
                     double tol)
{
    float *h = to_host(ctx, d, n);
    int ok = h && close_to(ctx->ops->name, what, ref, h, n, tol, 0);
    free(h);
    return ok;
}

/* Tolerances per backend. The CPU interface calls the same kernels as the reference, except
 * convolutions (reference: the direct loops summing in double; the interface's algorithm in
 * float32): 2e-5 of scale, as tests/test_train_conv.c argues (~170 float32 ulps over C k^2 <= 150
 * terms). On CUDA: float32 sums in another order (cuBLAS, cuDNN's GEMM-like algorithms: k eps
 * ~ 1e-5 of scale for <= 150 terms) and cuDNN's FFT variants: 2e-4 for convolutions, 1e-5 for
 * the rest. cuDNN's Winograd algorithms get 5e-3: their transforms of a 5x5 kernel amplify
 * float32 rounding (Lavin & Gray report F(4x4,3x3) near 1e-4 of scale; larger tiles and kernels
 * grow it), and on an H200 (cuDNN 9.19, CUDNN_FMA_MATH: no TF32) winograd_nonfused missed the
 * direct reference by up to 2.4e-3 of scale on lenet5's layers, every other algorithm by less
 * than 2e-4 (docs/results.md, "The first GPU"). Every bound is below what a wrong index, a
 * missing term or a swapped operand gives (>= 1e-2). */
typedef struct tols {
    double conv, winograd, linear, elem;
} tols;

static tols tols_for(const mb_ctx *ctx)
{
    if (ctx->kind == MB_BACKEND_CPU)
        return (tols){2e-5, 2e-5, 1e-6, 1e-7};
    /* elementwise: CUDA's tanhf, expf within 2 ulps of glibc's (CUDA Programming Guide,
     * "Mathematical Functions"): 1e-6 of an O(1) scale. */
    return (tols){2e-4, 5e-3, 1e-5, 1e-6};
}

/* ---- memory ---------------------------------------------------------------------------------- */

static void check_memory(mb_ctx *ctx)
{
    enum { N = 1001 };
    float a[N], b[N], sum[N];
    fill(a, N, 1), fill(b, N, 2);
    for (int i = 0; i < N; i++)
        sum[i] = a[i] + b[i];
    float *da = to_dev(ctx, a, N), *db = to_dev(ctx, b, N);
    CU_ASSERT_PTR_NOT_NULL_FATAL(da);
    CU_ASSERT_PTR_NOT_NULL_FATAL(db);
    float *back = to_host(ctx, da, N);
    CU_ASSERT_TRUE(back && memcmp(back, a, sizeof a) == 0); /* a copy is exact */
    free(back);
    ctx->ops->add(ctx, N, da, db); /* one rounding, as the CPU's y += x */
    CU_ASSERT_TRUE(dev_close(ctx, "add", sum, db, N, 0.0));
    ctx->ops->zero(ctx, db, sizeof(float) * N);
    float zeros[N] = {0};
    CU_ASSERT_TRUE(dev_close(ctx, "zero", zeros, db, N, 0.0));
    mb_ctx_release(ctx, da), mb_ctx_release(ctx, db);
}

/* ---- convolutions ---------------------------------------------------------------------------- */

static const mb_conv_shape conv_shapes[] = {
    /* batch, in_c, in_h, in_w, out_c, k, stride, pad */
    {3, 3, 9, 6, 5, 3, 1, 0},   {2, 4, 8, 8, 8, 3, 1, 1},  {2, 3, 11, 8, 9, 4, 2, 1},
    {3, 1, 28, 28, 6, 5, 1, 2}, {3, 6, 12, 12, 16, 5, 1, 0},
};

typedef struct conv_ref {
    size_t nx, ny, nw;
    float *x, *w, *b, *dy, *y, *dx, *dw, *db; /* host: inputs, and the direct loops' outputs */
} conv_ref;

static void conv_ref_make(conv_ref *r, const mb_conv_shape *s, int batch, uint32_t seed)
{
    mb_conv_shape sb = *s;
    sb.batch = batch;
    r->nx = (size_t)batch * s->in_c * s->in_h * s->in_w;
    r->ny = (size_t)batch * s->out_c * mb_conv_out_h(s) * mb_conv_out_w(s);
    r->nw = (size_t)s->out_c * s->in_c * s->k * s->k;
    r->x = malloc(r->nx * 4), r->dx = malloc(r->nx * 4), r->w = malloc(r->nw * 4);
    r->dw = malloc(r->nw * 4), r->b = malloc(s->out_c * 4), r->db = malloc(s->out_c * 4);
    r->dy = malloc(r->ny * 4), r->y = malloc(r->ny * 4);
    fill(r->x, r->nx, seed), fill(r->w, r->nw, seed + 1), fill(r->b, s->out_c, seed + 2);
    fill(r->dy, r->ny, seed + 3);
    CU_ASSERT_EQUAL(mb_conv_forward(MB_CONV_DIRECT, &sb, r->x, r->w, r->b, r->y, NULL), MB_OK);
    CU_ASSERT_EQUAL(mb_conv_backward_data(MB_CONV_DIRECT, &sb, r->dy, r->w, r->dx, NULL), MB_OK);
    CU_ASSERT_EQUAL(
        mb_conv_backward_filter(MB_CONV_DIRECT, &sb, r->x, r->dy, r->dw, r->db, NULL), MB_OK);
}

static void conv_ref_free(conv_ref *r)
{
    free(r->x), free(r->w), free(r->b), free(r->dy), free(r->y), free(r->dx), free(r->dw);
    free(r->db);
}

/* One pass of one algorithm on `batch` samples with a plan for s (its other passes: defaults). */
static void conv_one(mb_ctx *ctx, const mb_conv_shape *s, mb_conv_pass pass, int a, int batch,
                     const conv_ref *r, double tol)
{
    int algo[3];
    for (int p = 0; p < 3; p++)
        algo[p] = mb_ctx_conv_algo_default(ctx, (mb_conv_pass)p, s);
    algo[pass] = a;
    mb_ctx_conv *c = NULL;
    mb_error e = {0};
    int rc = mb_ctx_conv_create(ctx, s, algo, &c, &e);
    if (rc != MB_OK)
        printf("\n    %s conv plan: %s", ctx->ops->name, e.msg);
    CU_ASSERT_EQUAL_FATAL(rc, MB_OK);
    size_t wsb = 0;
    for (int p = 0; p < 3; p++) {
        size_t b = mb_ctx_conv_workspace(ctx, (mb_conv_pass)p, algo[p], s);
        wsb = b > wsb ? b : wsb;
    }
    void *ws = mb_ctx_alloc(ctx, wsb);
    float *x = to_dev(ctx, r->x, r->nx), *w = to_dev(ctx, r->w, r->nw);
    float *b = to_dev(ctx, r->b, s->out_c), *dy = to_dev(ctx, r->dy, r->ny);
    size_t nout = r->nx > r->ny ? r->nx : r->ny;
    nout = nout > r->nw ? nout : r->nw;
    float *out = mb_ctx_alloc(ctx, sizeof(float) * nout);
    float *out2 = mb_ctx_alloc(ctx, sizeof(float) * s->out_c);
    CU_ASSERT_FATAL(ws && x && w && b && dy && out && out2);
    char what[160];
    snprintf(what, sizeof what, "conv %s %s %dx%dx%dx%d k%d s%d p%d batch %d",
             mb_conv_pass_name(pass), mb_ctx_conv_algo_name(ctx, pass, a), s->batch, s->in_c,
             s->in_h, s->in_w, s->k, s->stride, s->pad, batch);
    switch (pass) {
    case MB_PASS_FORWARD:
        CU_ASSERT_EQUAL(mb_ctx_conv_forward(c, batch, x, w, b, out, ws), MB_OK);
        CU_ASSERT_TRUE(dev_close(ctx, what, r->y, out, r->ny, tol));
        break;
    case MB_PASS_BACKWARD_DATA:
        CU_ASSERT_EQUAL(mb_ctx_conv_backward_data(c, batch, dy, w, out, ws), MB_OK);
        CU_ASSERT_TRUE(dev_close(ctx, what, r->dx, out, r->nx, tol));
        break;
    case MB_PASS_BACKWARD_FILTER:
        CU_ASSERT_EQUAL(mb_ctx_conv_backward_filter(c, batch, x, dy, out, out2, ws), MB_OK);
        CU_ASSERT_TRUE(dev_close(ctx, what, r->dw, out, r->nw, tol));
        CU_ASSERT_TRUE(dev_close(ctx, what, r->db, out2, s->out_c, tol));
        break;
    }
    mb_ctx_release(ctx, ws), mb_ctx_release(ctx, x), mb_ctx_release(ctx, w);
    mb_ctx_release(ctx, b), mb_ctx_release(ctx, dy), mb_ctx_release(ctx, out);
    mb_ctx_release(ctx, out2);
    mb_ctx_conv_free(c);
}

static void check_conv(mb_ctx *ctx, const tols *t)
{
    int runs = 0, unsupported = 0;
    for (size_t si = 0; si < sizeof conv_shapes / sizeof *conv_shapes; si++) {
        const mb_conv_shape *s = &conv_shapes[si];
        /* the plan's batch, and one below it (descriptors and workspaces of a smaller batch) */
        conv_ref full, small;
        conv_ref_make(&full, s, s->batch, 100 + (uint32_t)si * 7);
        conv_ref_make(&small, s, s->batch - 1, 100 + (uint32_t)si * 7);
        for (int p = 0; p < 3; p++) {
            int supported = 0;
            for (int a = 0; a < mb_ctx_conv_algo_count(ctx, (mb_conv_pass)p); a++) {
                char why[256] = "";
                if (!mb_ctx_conv_supported(ctx, (mb_conv_pass)p, a, s, why, sizeof why)) {
                    CU_ASSERT_TRUE(why[0] != '\0'); /* a reason is always given */
                    unsupported++;
                    continue;
                }
                supported++;
                double tol = strstr(mb_ctx_conv_algo_name(ctx, (mb_conv_pass)p, a), "winograd")
                                 ? t->winograd
                                 : t->conv;
                conv_one(ctx, s, (mb_conv_pass)p, a, s->batch, &full, tol);
                if (s->batch > 1)
                    conv_one(ctx, s, (mb_conv_pass)p, a, s->batch - 1, &small, tol);
                runs++;
            }
            CU_ASSERT_TRUE(supported > 0); /* every pass has an algorithm for every shape */
        }
        conv_ref_free(&full), conv_ref_free(&small);
    }
    printf("\n    %s: %d convolution algorithm-pass-shape runs, %d unsupported ", ctx->ops->name,
           runs, unsupported);
}

/* ---- fully connected ------------------------------------------------------------------------- */

static void check_fc(mb_ctx *ctx, const tols *t)
{
    enum { B = 5, IN = 37, OUT = 11 };
    float x[B * IN], w[OUT * IN], b[OUT], dy[B * OUT];
    float y[B * OUT], dx[B * IN], dw[OUT * IN], db[OUT];
    fill(x, B * IN, 3), fill(w, OUT * IN, 4), fill(b, OUT, 5), fill(dy, B * OUT, 6);
    mb_layer_fc_forward(B, IN, OUT, x, w, b, y);
    mb_layer_fc_backward(B, IN, OUT, x, w, dy, dx, dw, db);
    float *X = to_dev(ctx, x, B * IN), *W = to_dev(ctx, w, OUT * IN), *Bv = to_dev(ctx, b, OUT);
    float *DY = to_dev(ctx, dy, B * OUT), *Y = mb_ctx_alloc(ctx, sizeof y);
    float *DX = mb_ctx_alloc(ctx, sizeof dx), *DW = mb_ctx_alloc(ctx, sizeof dw);
    float *DB = mb_ctx_alloc(ctx, sizeof db);
    CU_ASSERT_FATAL(X && W && Bv && DY && Y && DX && DW && DB);
    ctx->ops->fc_forward(ctx, B, IN, OUT, X, W, Bv, Y);
    CU_ASSERT_TRUE(dev_close(ctx, "fc forward", y, Y, B * OUT, t->linear));
    ctx->ops->fc_backward(ctx, B, IN, OUT, X, W, DY, DX, DW, DB);
    CU_ASSERT_TRUE(dev_close(ctx, "fc backward dx", dx, DX, B * IN, t->linear));
    CU_ASSERT_TRUE(dev_close(ctx, "fc backward dw", dw, DW, OUT * IN, t->linear));
    CU_ASSERT_TRUE(dev_close(ctx, "fc backward db", db, DB, OUT, t->linear));
    ctx->ops->zero(ctx, DW, sizeof dw);
    ctx->ops->fc_backward(ctx, B, IN, OUT, X, W, DY, NULL, DW, DB); /* no dx wanted */
    CU_ASSERT_TRUE(dev_close(ctx, "fc backward dw (no dx)", dw, DW, OUT * IN, t->linear));
    mb_ctx_release(ctx, X), mb_ctx_release(ctx, W), mb_ctx_release(ctx, Bv);
    mb_ctx_release(ctx, DY), mb_ctx_release(ctx, Y), mb_ctx_release(ctx, DX);
    mb_ctx_release(ctx, DW), mb_ctx_release(ctx, DB);
}

/* ---- pooling --------------------------------------------------------------------------------- */

static mb_layer_desc pool_desc(mb_layer_type t, int c, int h, int w, int size, int stride,
                               int pad)
{
    mb_layer_desc d;
    memset(&d, 0, sizeof d);
    d.type = t, d.size = size, d.stride = stride, d.pad = pad;
    d.in_c = d.out_c = c, d.in_h = h, d.in_w = w;
    d.out_h = (h + 2 * pad - size) / stride + 1;
    d.out_w = (w + 2 * pad - size) / stride + 1;
    return d;
}

/* Random inputs have no ties (w.p. ~1), so every backend's maxima are the same elements. Max
 * pooling moves values (exact); average pooling and the backward sums add <= 9 terms. The
 * forward pass without an argmax (evaluation's) gives the same outputs. Max pooling's three CPU
 * paths: 2x2 stride 2 unrolled, windows without padding, padded windows. */
static void check_pool(mb_ctx *ctx, const tols *t)
{
    const mb_layer_desc ds[] = {
        pool_desc(MB_LAYER_MAXPOOL, 3, 8, 10, 2, 2, 0), pool_desc(MB_LAYER_MAXPOOL, 2, 9, 7, 3, 2, 1),
        pool_desc(MB_LAYER_MAXPOOL, 2, 9, 9, 3, 2, 0),
        pool_desc(MB_LAYER_AVGPOOL, 3, 8, 10, 2, 2, 0), pool_desc(MB_LAYER_AVGPOOL, 2, 9, 7, 3, 2, 1),
    };
    enum { B = 2 };
    for (size_t i = 0; i < sizeof ds / sizeof *ds; i++) {
        const mb_layer_desc *d = &ds[i];
        size_t nx = (size_t)B * d->in_c * d->in_h * d->in_w;
        size_t ny = (size_t)B * d->out_c * d->out_h * d->out_w;
        float *x = malloc(nx * 4), *dx = malloc(nx * 4), *y = malloc(ny * 4), *dy = malloc(ny * 4);
        int *arg = malloc(ny * sizeof *arg);
        fill(x, nx, 40 + (uint32_t)i), fill(dy, ny, 50 + (uint32_t)i);
        int max = d->type == MB_LAYER_MAXPOOL;
        if (max) {
            mb_layer_maxpool_forward(d, B, x, y, arg);
            mb_layer_maxpool_backward(d, B, dy, arg, dx);
        } else {
            mb_layer_avgpool_forward(d, B, x, y);
            mb_layer_avgpool_backward(d, B, dy, dx);
        }
        float *X = to_dev(ctx, x, nx), *DY = to_dev(ctx, dy, ny);
        float *Y = mb_ctx_alloc(ctx, ny * 4), *DX = mb_ctx_alloc(ctx, nx * 4);
        int *ARG = mb_ctx_alloc(ctx, ny * sizeof *arg);
        CU_ASSERT_FATAL(X && DY && Y && DX && ARG);
        char what[64];
        snprintf(what, sizeof what, "%s %d/%d/%d forward", max ? "maxpool" : "avgpool", d->size,
                 d->stride, d->pad);
        ctx->ops->pool_forward(ctx, d, B, X, Y, NULL);
        CU_ASSERT_TRUE(dev_close(ctx, what, y, Y, ny, max ? 0.0 : t->elem * 10));
        ctx->ops->pool_forward(ctx, d, B, X, Y, ARG);
        CU_ASSERT_TRUE(dev_close(ctx, what, y, Y, ny, max ? 0.0 : t->elem * 10));
        memcpy(strstr(what, "forward"), "backwrd", 7);
        ctx->ops->pool_backward(ctx, d, B, X, Y, DY, ARG, DX);
        CU_ASSERT_TRUE(dev_close(ctx, what, dx, DX, nx, t->elem * 10));
        mb_ctx_release(ctx, X), mb_ctx_release(ctx, DY), mb_ctx_release(ctx, Y);
        mb_ctx_release(ctx, DX), mb_ctx_release(ctx, ARG);
        free(x), free(dx), free(y), free(dy), free(arg);
    }
}

/* ---- activations ----------------------------------------------------------------------------- */

static void check_act(mb_ctx *ctx, const tols *t)
{
    enum { N = 777 };
    const mb_layer_type types[] = {MB_LAYER_RELU, MB_LAYER_TANH, MB_LAYER_SIGMOID};
    float x[N], dy[N], y[N], dx[N];
    fill(x, N, 60), fill(dy, N, 61);
    for (int i = 0; i < N; i++)
        x[i] *= 4.0f; /* beyond tanh's and the sigmoid's linear range */
    float *X = to_dev(ctx, x, N), *DY = to_dev(ctx, dy, N);
    float *Y = mb_ctx_alloc(ctx, sizeof y), *DX = mb_ctx_alloc(ctx, sizeof dx);
    CU_ASSERT_FATAL(X && DY && Y && DX);
    for (size_t k = 0; k < sizeof types / sizeof *types; k++) {
        mb_layer_act_forward(types[k], N, x, y);
        mb_layer_act_backward(types[k], N, y, dy, dx);
        double tol = types[k] == MB_LAYER_RELU ? 0.0 : t->elem;
        ctx->ops->act_forward(ctx, types[k], N, X, Y);
        CU_ASSERT_TRUE(dev_close(ctx, "activation forward", y, Y, N, tol));
        /* backward from the reference's y, so that only the derivative is compared */
        float *YR = to_dev(ctx, y, N);
        CU_ASSERT_FATAL(YR != NULL);
        ctx->ops->act_backward(ctx, types[k], N, YR, DY, DX);
        CU_ASSERT_TRUE(dev_close(ctx, "activation backward", dx, DX, N, tol));
        mb_ctx_release(ctx, YR);
    }
    mb_ctx_release(ctx, X), mb_ctx_release(ctx, DY), mb_ctx_release(ctx, Y);
    mb_ctx_release(ctx, DX);
}

/* ---- dropout: the masks are the same bits on every backend ----------------------------------- */

/* ---- the optimiser's update ------------------------------------------------------------------ */

/* The optimiser bound to the context (its velocity in the backend's memory, the update there)
 * against the host optimiser, three updates of each kind with weight decay: the same arithmetic
 * (train/backend/optim_rule.h), exact on the CPU; on CUDA nvcc fuses multiply-adds, an ulp or
 * two per update. Bound, the state stays on the device (mb_optim_state is NULL). */
static void check_optim(mb_ctx *ctx, double tol)
{
    enum { N = 2053 };
    static const mb_optim_kind kinds[] = {MB_OPTIM_SGD, MB_OPTIM_MOMENTUM, MB_OPTIM_NESTEROV};
    for (size_t k = 0; k < 3; k++) {
        mb_optim_params p = {kinds[k], 0.05, 0.9, 1e-3, 2, 0.5}; /* the rate halves at 2 */
        mb_optim *host = NULL, *dev = NULL;
        mb_error e = {0};
        CU_ASSERT_EQUAL_FATAL(mb_optim_create(&p, N, &host, &e), MB_OK);
        CU_ASSERT_EQUAL_FATAL(mb_optim_create(&p, N, &dev, &e), MB_OK);
        CU_ASSERT_EQUAL_FATAL(mb_optim_bind(dev, ctx, &e), MB_OK);
        float x[N], g[N];
        fill(x, N, 40 + (uint32_t)k), fill(g, N, 50 + (uint32_t)k);
        float *dx = to_dev(ctx, x, N), *dg = to_dev(ctx, g, N);
        CU_ASSERT_PTR_NOT_NULL_FATAL(dx);
        CU_ASSERT_PTR_NOT_NULL_FATAL(dg);
        for (int u = 0; u < 3; u++) {
            CU_ASSERT_EQUAL(mb_optim_step(host, x, g), MB_OK);
            CU_ASSERT_EQUAL(mb_optim_step(dev, dx, dg), MB_OK);
        }
        char what[64];
        snprintf(what, sizeof what, "optimiser %s, 3 updates", mb_optim_kind_name(kinds[k]));
        CU_ASSERT_TRUE(dev_close(ctx, what, x, dx, N, tol));
        CU_ASSERT_EQUAL(mb_optim_updates(dev), 3);
        if (!mb_ctx_host_memory(ctx))
            CU_ASSERT_PTR_NULL(mb_optim_state(dev));
        mb_ctx_release(ctx, dx), mb_ctx_release(ctx, dg);
        mb_optim_free(host), mb_optim_free(dev);
    }
}

static void check_dropout(mb_ctx *ctx)
{
    enum { B = 3, PER = 50, N = B * PER };
    const float p = 0.3f;
    const uint64_t key = 0x1234abcdull;
    const size_t first = 5;
    float x[N], y[N], mask[N], dy[N], dx[N];
    fill(x, N, 70), fill(dy, N, 71);
    for (int j = 0; j < B; j++) {
        uint64_t r = mb_dropout_stream(key, first + (size_t)j);
        mb_layer_dropout_forward(p, 1, PER, x + j * PER, y + j * PER, mask + j * PER, &r);
    }
    mb_layer_dropout_backward(N, dy, mask, dx);
    int dropped = 0;
    for (int i = 0; i < N; i++)
        dropped += mask[i] == 0.0f;
    CU_ASSERT_TRUE(dropped > 0 && dropped < N); /* the reference itself drops some, not all */
    float *X = to_dev(ctx, x, N), *DY = to_dev(ctx, dy, N);
    float *Y = mb_ctx_alloc(ctx, sizeof y), *M = mb_ctx_alloc(ctx, sizeof mask);
    float *DX = mb_ctx_alloc(ctx, sizeof dx);
    CU_ASSERT_FATAL(X && DY && Y && M && DX);
    ctx->ops->dropout_forward(ctx, p, 1, B, PER, key, first, X, Y, M);
    CU_ASSERT_TRUE(dev_close(ctx, "dropout mask", mask, M, N, 0.0));
    CU_ASSERT_TRUE(dev_close(ctx, "dropout forward", y, Y, N, 0.0));
    ctx->ops->dropout_backward(ctx, N, DY, M, DX);
    CU_ASSERT_TRUE(dev_close(ctx, "dropout backward", dx, DX, N, 0.0));
    ctx->ops->dropout_forward(ctx, p, 0, B, PER, 0, 0, X, Y, M); /* inference copies */
    CU_ASSERT_TRUE(dev_close(ctx, "dropout inference", x, Y, N, 0.0));
    mb_ctx_release(ctx, X), mb_ctx_release(ctx, DY), mb_ctx_release(ctx, Y);
    mb_ctx_release(ctx, M), mb_ctx_release(ctx, DX);
}

/* ---- softmax cross-entropy ------------------------------------------------------------------- */

/* Both compute in double from the same float logits; prob and dx round to float once, so they
 * differ by at most an ulp of an O(1) value when exp/log differ in the last double bits: 1e-6. */
static void check_softmax(mb_ctx *ctx)
{
    enum { B = 7, C = 10 };
    float z[B * C], prob[B * C], dx[B * C];
    int labels[B];
    fill(z, B * C, 80);
    for (int i = 0; i < B * C; i++)
        z[i] *= 5.0f;
    for (int n = 0; n < B; n++)
        labels[n] = (n * 3) % C;
    labels[2] = 0;
    for (int c = 1; c < C; c++) /* sample 2 is predicted right, whatever the fill gave */
        z[2 * C] = fmaxf(z[2 * C], z[2 * C + c] + 1.0f);
    double loss = 0.0;
    size_t correct = 0;
    mb_layer_softmax_xent(B, C, z, labels, prob, &loss, NULL, &correct, dx, 1.0f / B);
    CU_ASSERT_TRUE(correct >= 1);
    float *Z = to_dev(ctx, z, B * C), *P = mb_ctx_alloc(ctx, sizeof prob);
    float *DX = mb_ctx_alloc(ctx, sizeof dx);
    CU_ASSERT_FATAL(Z && P && DX);
    double l2 = 0.25; /* added to, not overwritten */
    size_t c2 = 2;
    ctx->ops->softmax_xent(ctx, B, C, Z, labels, P, &l2, NULL, &c2, DX, 1.0f / B);
    CU_ASSERT_TRUE(fabs((l2 - 0.25) - loss) <= 1e-12 * fabs(loss));
    CU_ASSERT_EQUAL(c2, correct + 2);
    CU_ASSERT_TRUE(dev_close(ctx, "softmax prob", prob, P, B * C, 1e-6));
    CU_ASSERT_TRUE(dev_close(ctx, "softmax dx", dx, DX, B * C, 1e-6));
    double l3 = 0.0, each[B], sum = 0.0;
    ctx->ops->softmax_xent(ctx, B, C, Z, labels, NULL, &l3, each, NULL, NULL, 1.0f); /* losses */
    CU_ASSERT_TRUE(fabs(l3 - loss) <= 1e-12 * fabs(loss));
    for (int n = 0; n < B; n++) {
        CU_ASSERT_TRUE(each[n] >= 0);
        sum += each[n];
    }
    CU_ASSERT_TRUE(fabs(sum - loss) <= 1e-12 * fabs(loss));
    mb_ctx_release(ctx, Z), mb_ctx_release(ctx, P), mb_ctx_release(ctx, DX);
}

/* ---- a whole network ------------------------------------------------------------------------- */

/* A small net with the layers lenet5 lacks: conv pad 1, max pooling with padding, tanh,
 * average pooling (stride 1), sigmoid, dropout (whose masks must agree through the network). */
static const char MIXED_CFG[] =
    "[net]\nname=mixed\nchannels=3\nheight=9\nwidth=7\n"
    "[conv]\nfilters=5\nsize=3\npad=1\nactivation=relu\n"
    "[maxpool]\nsize=2\nstride=2\npad=1\n"
    "[conv]\nfilters=6\nsize=3\npad=1\nactivation=tanh\n"
    "[avgpool]\nsize=2\nstride=1\n"
    "[fc]\noutputs=7\nactivation=sigmoid\n"
    "[dropout]\np=0.3\n"
    "[fc]\noutputs=4\n[softmax]\n";

/* A network on the backend's context against a CPU network of the same seed (convolutions by
 * GEMM): batch 8 then 5 (below the plans' batch), then an evaluation. Loss and every gradient
 * within 5x the convolution tolerance (the largest of the operations chained: errors of 1e-5 ..
 * 1e-4 of scale through a handful of layers stay within a small multiple). */
static void check_net(mb_ctx *ctx, const tols *t, const char *cfg)
{
    mb_net_desc *desc = NULL;
    mb_error e = {0};
    int rc = mb_net_desc_read(cfg, &desc, &e);
    if (rc != MB_OK)
        printf("\n    %s: %s", cfg, e.msg);
    CU_ASSERT_EQUAL_FATAL(rc, MB_OK);
    mb_net_options o = {.max_batch = 8, .seed = 7, .algo = MB_CONV_AUTO, .threads = 1};
    mb_net *ref = NULL, *net = NULL;
    CU_ASSERT_EQUAL_FATAL(mb_net_create(desc, &o, &ref, &e), MB_OK);
    o.ctx = ctx;
    rc = mb_net_create(desc, &o, &net, &e);
    if (rc != MB_OK)
        printf("\n    %s %s: %s", ctx->ops->name, desc->name, e.msg);
    CU_ASSERT_EQUAL_FATAL(rc, MB_OK);
    const size_t in = (size_t)desc->in_c * desc->in_h * desc->in_w, np = mb_net_param_count(ref);
    float *x = malloc(sizeof(float) * in * 8), *g = malloc(sizeof(float) * np);
    int y[8];
    fill(x, in * 8, 90);
    for (int n = 0; n < 8; n++)
        y[n] = (n * 7) % desc->classes;
    char what[96];
    snprintf(what, sizeof what, "%s gradients", desc->name);
    const int batches[] = {8, 5};
    for (int k = 0; k < 2; k++) {
        float l_ref = 0.0f, l = 0.0f;
        CU_ASSERT_EQUAL(mb_net_forward_backward(ref, x, y, batches[k], &l_ref), MB_OK);
        CU_ASSERT_EQUAL(mb_net_forward_backward(net, x, y, batches[k], &l), MB_OK);
        CU_ASSERT_TRUE(fabs(l - l_ref) <= 5 * t->conv * fabs(l_ref));
        CU_ASSERT_EQUAL(mb_ctx_download(ctx, g, mb_net_grads(net), sizeof(float) * np), MB_OK);
        CU_ASSERT_TRUE(close_to(ctx->ops->name, what, mb_net_grads(ref), g, np, 5 * t->conv, 0));
    }
    double le_ref, le;
    size_t c_ref, c;
    CU_ASSERT_EQUAL(mb_net_evaluate(ref, x, y, 8, &le_ref, &c_ref), MB_OK);
    CU_ASSERT_EQUAL(mb_net_evaluate(net, x, y, 8, &le, &c), MB_OK);
    CU_ASSERT_TRUE(fabs(le - le_ref) <= 5 * t->conv * fabs(le_ref));
    CU_ASSERT_EQUAL(c, c_ref);
    free(x), free(g);
    mb_net_free(net), mb_net_free(ref);
    mb_net_desc_free(desc);
}

static void check_nets(mb_ctx *ctx, const tols *t)
{
    check_net(ctx, t, MB_TEST_SRC "/data/nets/lenet5.cfg");
    char dir[256], path[512];
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(dir, sizeof dir), 0);
    check_net(ctx, t, mb_test_write(path, sizeof path, dir, "mixed.cfg", MIXED_CFG));
    mb_test_rmdir(dir);
}

/* ---- the comparison catches a wrong value ---------------------------------------------------- */

static void check_comparison(void)
{
    enum { N = 100 };
    float ref[N], got[N];
    fill(ref, N, 99);
    memcpy(got, ref, sizeof got);
    CU_ASSERT_TRUE(close_to("self", "equal", ref, got, N, 0.0, 1));
    got[37] += 1e-3f; /* one value off by ~1e-3 of scale: above every tolerance used here */
    CU_ASSERT_FALSE(close_to("self", "one off", ref, got, N, 2e-4, 1));
    got[37] = NAN;
    CU_ASSERT_FALSE(close_to("self", "NaN", ref, got, N, 2e-4, 1));
}

/* ---- the CUDA kernels' arithmetic, run on the host ------------------------------------------- */

#if MB_HAVE_CUDA
/* train/backend/cuda/ops.cu: the functions its dropout and softmax kernels call per element, on the
 * host. They let a machine without a device check the kernels' arithmetic (not their launch). */
void mb_cuda_host_dropout(float p, int batch, size_t per, uint64_t key, size_t first,
                          const float *x, float *y, float *mask);
void mb_cuda_host_softmax_xent(int batch, int classes, const float *logits, const int *labels,
                               float *prob, double *losses, int *hits, float *dx, float scale);

static void check_cuda_kernels_on_host(void)
{
    enum { B = 4, PER = 33, N = B * PER, C = 10 };
    const float p = 0.45f;
    const uint64_t key = 0xfeedbeef12ull;
    const size_t first = 9;
    float x[N], y[N], mask[N], y2[N], mask2[N];
    fill(x, N, 110);
    for (int j = 0; j < B; j++) {
        uint64_t r = mb_dropout_stream(key, first + (size_t)j);
        mb_layer_dropout_forward(p, 1, PER, x + j * PER, y + j * PER, mask + j * PER, &r);
    }
    mb_cuda_host_dropout(p, B, PER, key, first, x, y2, mask2);
    /* the same bits: exact */
    CU_ASSERT_TRUE(close_to("cuda kernel on host", "dropout mask", mask, mask2, N, 0.0, 0));
    CU_ASSERT_TRUE(close_to("cuda kernel on host", "dropout y", y, y2, N, 0.0, 0));

    float z[B * C], prob[B * C], dx[B * C], prob2[B * C], dx2[B * C];
    int labels[B] = {3, 0, 9, 4}, hits[B];
    double losses[B], loss = 0.0, loss2 = 0.0;
    size_t correct = 0, correct2 = 0;
    fill(z, B * C, 111);
    mb_layer_softmax_xent(B, C, z, labels, prob, &loss, NULL, &correct, dx, 0.25f);
    mb_cuda_host_softmax_xent(B, C, z, labels, prob2, losses, hits, dx2, 0.25f);
    for (int n = 0; n < B; n++)
        loss2 += losses[n], correct2 += (size_t)hits[n];
    CU_ASSERT_TRUE(fabs(loss2 - loss) <= 1e-12 * fabs(loss));
    CU_ASSERT_EQUAL(correct2, correct);
    CU_ASSERT_TRUE(close_to("cuda kernel on host", "softmax prob", prob, prob2, B * C, 1e-6, 0));
    CU_ASSERT_TRUE(close_to("cuda kernel on host", "softmax dx", dx, dx2, B * C, 1e-6, 0));
}
#endif

/* ---- over every backend ---------------------------------------------------------------------- */

static void test_backends(void)
{
    check_comparison();
#if MB_HAVE_CUDA
    check_cuda_kernels_on_host();
#endif
    const mb_backend_kind kinds[] = {MB_BACKEND_CPU, MB_BACKEND_CUDA};
    int ran = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        char why[256];
        const char *name = mb_backend_name(kinds[k]);
        if (!mb_train_backend_built(kinds[k]) ||
            !mb_train_backend_usable(kinds[k], why, sizeof why)) {
            if (!mb_train_backend_built(kinds[k]))
                snprintf(why, sizeof why, "not built (nvcc, cuDNN or cuBLAS not found, or "
                                          "CUDA=0)");
            printf("\n    [skip] %s: no device: %s ", name, why);
            continue;
        }
        mb_ctx_options o;
        mb_ctx_options_init(&o);
        o.backend = kinds[k];
        mb_ctx *ctx = NULL;
        mb_error e = {0};
        int rc = mb_ctx_create(&o, &ctx, &e);
        if (rc != MB_OK)
            printf("\n    %s: %s", name, e.msg);
        CU_ASSERT_EQUAL_FATAL(rc, MB_OK);
        tols t = tols_for(ctx);
        check_memory(ctx);
        check_conv(ctx, &t);
        check_fc(ctx, &t);
        check_pool(ctx, &t);
        check_act(ctx, &t);
        check_dropout(ctx);
        check_softmax(ctx);
        check_optim(ctx, ctx->kind == MB_BACKEND_CPU ? 0.0 : t.elem);
        check_nets(ctx, &t);
        mb_ctx_free(ctx);
        ran++;
    }
    CU_ASSERT_TRUE(ran >= 1); /* the CPU at least */
}

int mb_test_suite_train_backend(void)
{
    CU_pSuite s = CU_add_suite("train_backend", NULL, NULL);
    return !s || !CU_add_test(s, "every operation on every backend against the CPU kernels",
                              test_backends);
}
