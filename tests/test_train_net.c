/* test_train_net.c — networks: shape inference and its errors, the parameter layout of lenet5,
 * every layer's gradient by central differences along random directions (per layer, through the
 * whole network), the same gradients with every convolution algorithm, inverted dropout's mask,
 * forward_backward determinism for a fixed seed, evaluation, threads (sharded batches agree with
 * one thread, and are bit-identical run to run), and every error path.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../train/backend/cpu/layers_impl.h"
#include "../net/mb_net.h"
#include "../train/backend/mb_backend.h"
#include "../train/learner/mb_learner.h"
#include "mb_test.h"

/* One convolution algorithm for all three passes (mb_net_set_conv_algo takes one per pass). */
#define ALL3(a) ((const int[3]){(int)(a), (int)(a), (int)(a)})

static void fill(float *v, size_t n, uint32_t seed, float scale)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        v[i] = ((float)(seed >> 8) / 8388608.0f - 1.0f) * scale;
    }
}

static mb_layer_desc L(mb_layer_type t, int filters, int size, int stride, int pad)
{
    mb_layer_desc d;
    memset(&d, 0, sizeof d);
    d.type = t, d.filters = filters, d.size = size, d.stride = stride, d.pad = pad;
    d.algo = MB_CONV_AUTO;
    snprintf(d.name, sizeof d.name, "l%d", (int)t);
    return d;
}

/* The classic lenet5 on 1x28x28 (as data/nets/lenet5.cfg). */
static mb_layer_desc lenet_layers[12];
static mb_net_desc lenet5(void)
{
    mb_layer_desc *l = lenet_layers;
    l[0] = L(MB_LAYER_CONV, 6, 5, 1, 2), l[1] = L(MB_LAYER_RELU, 0, 0, 0, 0);
    l[2] = L(MB_LAYER_MAXPOOL, 0, 2, 2, 0);
    l[3] = L(MB_LAYER_CONV, 16, 5, 1, 0), l[4] = L(MB_LAYER_RELU, 0, 0, 0, 0);
    l[5] = L(MB_LAYER_MAXPOOL, 0, 2, 2, 0);
    l[6] = L(MB_LAYER_FC, 120, 0, 0, 0), l[7] = L(MB_LAYER_RELU, 0, 0, 0, 0);
    l[8] = L(MB_LAYER_FC, 84, 0, 0, 0), l[9] = L(MB_LAYER_RELU, 0, 0, 0, 0);
    l[10] = L(MB_LAYER_FC, 10, 0, 0, 0), l[11] = L(MB_LAYER_SOFTMAX, 0, 0, 0, 0);
    mb_net_desc d = {.name = "lenet5", .in_c = 1, .in_h = 28, .in_w = 28, .n_layers = 12, .layers = l};
    return d;
}

/* A small net with every layer type: conv (pad 1, stride 2) relu maxpool(pad 1) conv tanh
 * avgpool fc sigmoid dropout fc softmax, on 3x9x7. */
static mb_layer_desc mixed_layers[12];
static mb_net_desc mixed(float p_drop)
{
    mb_layer_desc *l = mixed_layers;
    l[0] = L(MB_LAYER_CONV, 5, 3, 1, 1), l[1] = L(MB_LAYER_RELU, 0, 0, 0, 0);
    l[2] = L(MB_LAYER_MAXPOOL, 0, 2, 2, 1);
    l[3] = L(MB_LAYER_CONV, 6, 3, 1, 1), l[4] = L(MB_LAYER_TANH, 0, 0, 0, 0);
    l[5] = L(MB_LAYER_AVGPOOL, 0, 2, 1, 0);
    l[6] = L(MB_LAYER_FC, 7, 0, 0, 0), l[7] = L(MB_LAYER_SIGMOID, 0, 0, 0, 0);
    l[8] = L(MB_LAYER_DROPOUT, 0, 0, 0, 0);
    l[8].p = p_drop;
    l[9] = L(MB_LAYER_FC, 4, 0, 0, 0), l[10] = L(MB_LAYER_SOFTMAX, 0, 0, 0, 0);
    mb_net_desc d = {.name = "mixed", .in_c = 3, .in_h = 9, .in_w = 7, .n_layers = 11, .layers = l};
    return d;
}

static void test_infer(void)
{
    mb_net_desc d = lenet5();
    mb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(mb_net_desc_infer(&d, &err), MB_OK);
    CU_ASSERT_EQUAL(d.classes, 10);
    CU_ASSERT_EQUAL(d.layers[0].out_h, 28);
    CU_ASSERT_EQUAL(d.layers[2].out_w, 14);
    CU_ASSERT_EQUAL(d.layers[3].out_h, 10);
    CU_ASSERT_EQUAL(d.layers[5].out_c * d.layers[5].out_h * d.layers[5].out_w, 400);
    CU_ASSERT_EQUAL(d.layers[6].in_c * d.layers[6].in_h * d.layers[6].in_w, 400);
    /* errors: each names the layer */
    d.layers[3].size = 15; /* larger than the 14x14 input */
    CU_ASSERT_EQUAL(mb_net_desc_infer(&d, &err), MB_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "layer 3"));
    d = lenet5();
    d.layers[6].filters = 0;
    CU_ASSERT_EQUAL(mb_net_desc_infer(&d, &err), MB_EFORMAT);
    d = lenet5();
    d.layers[0].stride = 0;
    CU_ASSERT_EQUAL(mb_net_desc_infer(&d, &err), MB_EFORMAT);
    d = lenet5();
    d.n_layers = 11; /* no final softmax */
    CU_ASSERT_EQUAL(mb_net_desc_infer(&d, &err), MB_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "softmax"));
    d = lenet5();
    d.layers[9] = L(MB_LAYER_SOFTMAX, 0, 0, 0, 0); /* softmax not last */
    d.layers[9].line = 40;
    CU_ASSERT_EQUAL(mb_net_desc_infer(&d, &err), MB_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "line 40"));
    d = mixed(1.0f); /* dropout p must be < 1 */
    CU_ASSERT_EQUAL(mb_net_desc_infer(&d, &err), MB_EFORMAT);
    d = lenet5();
    d.in_h = 0;
    CU_ASSERT_EQUAL(mb_net_desc_infer(&d, &err), MB_EFORMAT);
    d = lenet5();
    d.layers[2].pad = 2; /* pool pad >= size */
    CU_ASSERT_EQUAL(mb_net_desc_infer(&d, &err), MB_EFORMAT);
    d = lenet5();
    d.layers[0].algo = 9;
    CU_ASSERT_EQUAL(mb_net_desc_infer(&d, &err), MB_EFORMAT);
}

static void test_lenet_layout(void)
{
    mb_net_desc d = lenet5();
    mb_net_options o = {16, 7, MB_CONV_AUTO, 1, NULL, 0};
    mb_net *net;
    mb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(mb_net_create(&d, &o, &net, &err), MB_OK);
    /* (6*1*25 + 6) + (16*6*25 + 16) + (120*400 + 120) + (84*120 + 84) + (10*84 + 10) */
    size_t expect = (6 * 25 + 6) + (16 * 6 * 25 + 16) + (120 * 400 + 120) + (84 * 120 + 84) +
                    (10 * 84 + 10);
    CU_ASSERT_EQUAL(mb_net_param_count(net), expect);
    CU_ASSERT_EQUAL(mb_net_param_count(net), 61706);
    float *p = mb_net_params(net);
    /* conv1 weights He-uniform: |w| <= sqrt(6/25), not all zero; its biases (150..155) zero */
    double bound = sqrt(6.0 / 25.0), m = 0.0;
    for (int i = 0; i < 150; i++)
        m = fmax(m, fabs(p[i]));
    CU_ASSERT_TRUE(m <= bound && m > 0.8 * bound);
    for (int i = 150; i < 156; i++)
        CU_ASSERT_EQUAL(p[i], 0.0f);
    /* the last fc (no ReLU after it) is Glorot: bound sqrt(6/(84+10)) */
    size_t off = expect - 850;
    m = 0.0;
    for (size_t i = off; i < off + 840; i++)
        m = fmax(m, fabs(p[i]));
    CU_ASSERT_TRUE(m <= sqrt(6.0 / 94.0) && m > 0.8 * sqrt(6.0 / 94.0));
    CU_ASSERT_EQUAL(mb_net_description(net)->classes, 10);
    /* the description was copied: changing ours does not touch the network's */
    lenet_layers[0].filters = 99;
    CU_ASSERT_EQUAL(mb_net_description(net)->layers[0].filters, 6);
    mb_net_free(net);
    mb_net_free(NULL);
}

/* Loss at params + t * v. */
static float loss_at(mb_net *net, const float *p0, const float *v, double t, const float *x,
                     const int *y, int batch)
{
    float *p = mb_net_params(net);
    size_t n = mb_net_param_count(net);
    for (size_t i = 0; i < n; i++)
        p[i] = (float)(p0[i] + t * v[i]);
    float l = 0.0f;
    CU_ASSERT_EQUAL(mb_net_forward_backward(net, x, y, batch, &l), MB_OK);
    return l;
}

/* Central differences of the loss along a random direction confined to one layer's parameters,
 * against the analytic g . v, for every layer with parameters. eps = 1e-3 on float32: the
 * truncation error is O(eps^2) ~ 1e-6 of the curvature, the rounding error of two float32
 * losses ~ 2 * 6e-8 * |L| / (2 eps) ~ 1e-4 absolute; with |g . v| of order 1e-2..1 a relative
 * tolerance of 1e-2 (plus 3e-4 absolute for the rounding) leaves room for a kink of ReLU or max
 * pooling near the point, while a wrong or missing term in any gradient gives >= 10%. */
static void grad_check(mb_net *net, int batch, uint32_t seed)
{
    const mb_net_desc *d = mb_net_description(net);
    size_t n = mb_net_param_count(net), in = (size_t)d->in_c * d->in_h * d->in_w;
    float *x = malloc(sizeof(float) * in * batch), *p0 = malloc(n * 4), *g = malloc(n * 4),
          *v = malloc(n * 4);
    int *y = malloc(sizeof(int) * batch);
    fill(x, in * batch, seed, 1.0f);
    for (int i = 0; i < batch; i++)
        y[i] = (int)((seed + 7u * i) % (unsigned)d->classes);
    memcpy(p0, mb_net_params(net), n * 4);
    /* biases start at zero; give them values so their gradients are exercised off zero */
    fill(v, n, seed + 1, 0.05f);
    for (size_t i = 0; i < n; i++)
        p0[i] += v[i];
    loss_at(net, p0, v, 0.0, x, y, batch);
    memcpy(g, mb_net_grads(net), n * 4);
    size_t off = 0;
    int checked = 0;
    for (size_t li = 0; li < d->n_layers; li++) {
        const mb_layer_desc *l = &d->layers[li];
        size_t cnt = 0;
        if (l->type == MB_LAYER_CONV)
            cnt = (size_t)l->out_c * l->in_c * l->size * l->size + l->out_c;
        else if (l->type == MB_LAYER_FC)
            cnt = (size_t)l->out_c * l->in_c * l->in_h * l->in_w + l->out_c;
        if (!cnt)
            continue;
        memset(v, 0, n * 4);
        fill(v + off, cnt, seed + 100 + (uint32_t)li, 1.0f);
        double norm = 0.0, gv = 0.0;
        for (size_t i = off; i < off + cnt; i++)
            norm += (double)v[i] * v[i];
        for (size_t i = off; i < off + cnt; i++) {
            v[i] = (float)(v[i] / sqrt(norm));
            gv += (double)g[i] * v[i];
        }
        /* a ReLU or max-pooling kink crossed by one step spoils that step only: accept the
         * best of three step sizes (a wrong gradient misses at all three) */
        const double steps[3] = {1e-3, 3e-3, 1e-2};
        double fd = 0.0;
        int ok = 0;
        for (int k = 0; k < 3 && !ok; k++) {
            double eps = steps[k];
            fd = ((double)loss_at(net, p0, v, eps, x, y, batch) -
                  (double)loss_at(net, p0, v, -eps, x, y, batch)) / (2 * eps);
            ok = fabs(fd - gv) <= 1e-2 * fmax(fabs(fd), fabs(gv)) + 3e-4;
        }
        if (!ok)
            printf("\n    layer %zu (%s): finite difference %.6g, analytic %.6g", li, l->name, fd,
                   gv);
        CU_ASSERT_TRUE(ok);
        checked++;
        off += cnt;
    }
    CU_ASSERT_EQUAL(off, n);
    CU_ASSERT_TRUE(checked >= 3);
    free(x), free(p0), free(g), free(v), free(y);
}

static void test_gradients(void)
{
    mb_net_desc d = mixed(0.0f); /* p = 0: the masks are ones, so the loss is a function */
    mb_net_options o = {3, 5, MB_CONV_AUTO, 1, NULL, 0};
    mb_net *net;
    CU_ASSERT_EQUAL_FATAL(mb_net_create(&d, &o, &net, NULL), MB_OK);
    grad_check(net, 3, 17);
    grad_check(net, 1, 29);
    mb_net_free(net);
    /* lenet5 with tanh for ReLU: its 10^4 ReLUs put kinks within any finite step, while the
     * mixed net above already checks ReLU and max pooling on a scale where steps avoid them */
    mb_net_desc le = lenet5();
    for (size_t i = 0; i < le.n_layers; i++)
        if (le.layers[i].type == MB_LAYER_RELU)
            le.layers[i].type = MB_LAYER_TANH;
    o.max_batch = 2;
    CU_ASSERT_EQUAL_FATAL(mb_net_create(&le, &o, &net, NULL), MB_OK);
    grad_check(net, 2, 41);
    mb_net_free(net);
}

/* Every algorithm gives the GEMM network's loss and gradients (to float32 rounding; tolerance
 * as in test_train_conv.c, scaled up 5x for the accumulation through the layers). */
static void test_algos_in_net(void)
{
    mb_net_desc d = mixed(0.0f);
    mb_net_options o = {3, 5, MB_CONV_GEMM, 1, NULL, 0};
    mb_net *ref, *net;
    CU_ASSERT_EQUAL_FATAL(mb_net_create(&d, &o, &ref, NULL), MB_OK);
    size_t n = mb_net_param_count(ref), in = 3 * 9 * 7;
    float x[3 * 3 * 9 * 7], l0, l1;
    int y[3] = {3, 0, 2};
    fill(x, in * 3, 3, 1.0f);
    CU_ASSERT_EQUAL(mb_net_forward_backward(ref, x, y, 3, &l0), MB_OK);
    for (int a = 0; a < MB_CONV_N_ALGOS; a++) {
        mb_error err = {0};
        o.algo = (mb_conv_algo)a;
        mb_conv_shape s = {3, 3, 9, 7, 5, 3, 1, 1};
        if (!mb_conv_supported((mb_conv_algo)a, &s, NULL, 0))
            continue;
        CU_ASSERT_EQUAL_FATAL(mb_net_create(&d, &o, &net, &err), MB_OK);
        CU_ASSERT_EQUAL(mb_net_forward_backward(net, x, y, 3, &l1), MB_OK);
        CU_ASSERT_TRUE(fabs(l1 - l0) <= 1e-5 * fabs(l0));
        double dm = 0.0, gm = 0.0;
        for (size_t i = 0; i < n; i++) {
            dm = fmax(dm, fabs((double)mb_net_grads(net)[i] - mb_net_grads(ref)[i]));
            gm = fmax(gm, fabs((double)mb_net_grads(ref)[i]));
        }
        CU_ASSERT_TRUE(dm <= 1e-4 * gm);
        /* switching back per layer reproduces GEMM exactly */
        CU_ASSERT_EQUAL(mb_net_set_conv_algo(net, 0, ALL3(MB_CONV_GEMM), &err), MB_OK);
        CU_ASSERT_EQUAL(mb_net_set_conv_algo(net, 3, ALL3(MB_CONV_GEMM), &err), MB_OK);
        CU_ASSERT_EQUAL(mb_net_forward_backward(net, x, y, 3, &l1), MB_OK);
        CU_ASSERT_EQUAL(memcmp(mb_net_grads(net), mb_net_grads(ref), n * 4), 0);
        mb_net_free(net);
    }
    mb_net_free(ref);
}

static void test_dropout_layer(void)
{
    enum { N = 20000 };
    float *x = malloc(N * 4), *y = malloc(N * 4), *m = malloc(N * 4), *dx = malloc(N * 4);
    uint64_t rng = 12345;
    fill(x, N, 9, 1.0f);
    mb_layer_dropout_forward(0.3f, 1, N, x, y, m, &rng);
    size_t zeros = 0;
    for (size_t i = 0; i < N; i++) {
        if (m[i] == 0.0f) {
            zeros++;
            CU_ASSERT_EQUAL(y[i], 0.0f);
        } else {
            CU_ASSERT_DOUBLE_EQUAL(m[i], 1.0 / 0.7, 1e-6);
            CU_ASSERT_DOUBLE_EQUAL(y[i], x[i] / 0.7, 1e-5);
        }
    }
    /* binomial(20000, 0.3): sd = 65; 5 sd either side */
    CU_ASSERT_TRUE(zeros > 6000 - 325 && zeros < 6000 + 325);
    mb_layer_dropout_backward(N, x, m, dx);
    for (size_t i = 0; i < N; i++)
        CU_ASSERT_EQUAL(dx[i], x[i] * m[i]);
    mb_layer_dropout_forward(0.3f, 0, N, x, y, m, &rng); /* inference: identity */
    CU_ASSERT_EQUAL(memcmp(x, y, N * 4), 0);
    free(x), free(y), free(m), free(dx);
}

/* Softmax cross-entropy against a direct evaluation, and with huge logits (log-sum-exp). */
static void test_softmax(void)
{
    float z[6] = {1.5f, -0.25f, 0.75f, 1000.0f, 999.0f, -1000.0f}, dx[6], prob[6];
    int lab[2] = {2, 1};
    double sum = 0.0;
    size_t ok = 0;
    mb_layer_softmax_xent(2, 3, z, lab, prob, &sum, NULL, &ok, dx, 0.5f);
    double l0 = log(exp(1.5) + exp(-0.25) + exp(0.75)) - 0.75;
    double l1 = log(1.0 + exp(-1.0) + exp(-2000.0)) + 1.0;
    CU_ASSERT_DOUBLE_EQUAL(sum, l0 + l1, 1e-6);
    CU_ASSERT_TRUE(isfinite(sum));
    CU_ASSERT_EQUAL(ok, 0); /* argmaxes are 0 and 0 (class 0 of sample 2 = 1000) */
    CU_ASSERT_DOUBLE_EQUAL(dx[2], 0.5 * (exp(0.75) / (exp(1.5) + exp(-0.25) + exp(0.75)) - 1),
                           1e-6);
    CU_ASSERT_DOUBLE_EQUAL(prob[3] + prob[4] + prob[5], 1.0, 1e-6);
}

static void test_determinism(void)
{
    mb_net_desc d = mixed(0.4f);
    mb_net_options o = {4, 99, MB_CONV_AUTO, 1, NULL, 0};
    mb_net *a, *b;
    CU_ASSERT_EQUAL_FATAL(mb_net_create(&d, &o, &a, NULL), MB_OK);
    CU_ASSERT_EQUAL_FATAL(mb_net_create(&d, &o, &b, NULL), MB_OK);
    size_t n = mb_net_param_count(a);
    CU_ASSERT_EQUAL(memcmp(mb_net_params(a), mb_net_params(b), n * 4), 0);
    float x[4 * 3 * 9 * 7], la, lb, la2;
    int y[4] = {1, 3, 0, 2};
    fill(x, sizeof x / 4, 77, 1.0f);
    for (int rep = 0; rep < 2; rep++) {
        CU_ASSERT_EQUAL(mb_net_forward_backward(a, x, y, 4, &la), MB_OK);
        CU_ASSERT_EQUAL(mb_net_forward_backward(b, x, y, 4, &lb), MB_OK);
        CU_ASSERT_EQUAL(la, lb);
        CU_ASSERT_EQUAL(memcmp(mb_net_grads(a), mb_net_grads(b), n * 4), 0);
    }
    /* a later call draws new masks, and gradients are overwritten, not accumulated: the same
     * net with a fresh seed-equal twin after one extra call differs from its first call */
    CU_ASSERT_EQUAL(mb_net_forward_backward(a, x, y, 3, &la2), MB_OK);
    CU_ASSERT_TRUE(isfinite(la2));
    /* another seed gives other parameters */
    o.seed = 100;
    mb_net *c;
    CU_ASSERT_EQUAL_FATAL(mb_net_create(&d, &o, &c, NULL), MB_OK);
    CU_ASSERT_NOT_EQUAL(memcmp(mb_net_params(a), mb_net_params(c), n * 4), 0);
    mb_net_free(a), mb_net_free(b), mb_net_free(c);
}

/* Gradients are overwritten: two calls with the same input and no dropout give the same grads
 * (accumulation would double them). Evaluation agrees with the training loss when dropout is
 * off, and chunking by max_batch does not change it. */
static void test_overwrite_and_evaluate(void)
{
    mb_net_desc d = mixed(0.0f);
    mb_net_options o = {2, 3, MB_CONV_AUTO, 1, NULL, 0};
    mb_net *net;
    CU_ASSERT_EQUAL_FATAL(mb_net_create(&d, &o, &net, NULL), MB_OK);
    size_t n = mb_net_param_count(net);
    float x[5 * 3 * 9 * 7], l1, l2;
    int y[5] = {1, 3, 0, 2, 2};
    fill(x, sizeof x / 4, 5, 1.0f);
    float *g1 = malloc(n * 4);
    CU_ASSERT_EQUAL(mb_net_forward_backward(net, x, y, 2, &l1), MB_OK);
    memcpy(g1, mb_net_grads(net), n * 4);
    CU_ASSERT_EQUAL(mb_net_forward_backward(net, x, y, 2, &l2), MB_OK);
    CU_ASSERT_EQUAL(memcmp(g1, mb_net_grads(net), n * 4), 0);
    double el;
    size_t ok = 99;
    CU_ASSERT_EQUAL(mb_net_evaluate(net, x, y, 2, &el, &ok), MB_OK);
    CU_ASSERT_DOUBLE_EQUAL(el, l1, 1e-6 * fabs(l1));
    CU_ASSERT_TRUE(ok <= 2);
    CU_ASSERT_EQUAL(memcmp(g1, mb_net_grads(net), n * 4), 0); /* untouched */
    /* 5 samples in chunks of 2 equals the mean of per-sample evaluations */
    double sum = 0.0, e1;
    size_t c1, tot = 0;
    for (int i = 0; i < 5; i++) {
        CU_ASSERT_EQUAL(mb_net_evaluate(net, x + i * 189, y + i, 1, &e1, &c1), MB_OK);
        sum += e1, tot += c1;
    }
    CU_ASSERT_EQUAL(mb_net_evaluate(net, x, y, 5, &el, &ok), MB_OK);
    CU_ASSERT_DOUBLE_EQUAL(el, sum / 5, 1e-6);
    CU_ASSERT_EQUAL(ok, tot);
    /* each sample's loss, in one call: their mean is the mean loss */
    double each[5], mean = 0.0;
    size_t ok5 = 0;
    CU_ASSERT_EQUAL(mb_net_evaluate_each(net, x, y, 5, each, &ok5), MB_OK);
    for (int i = 0; i < 5; i++) {
        CU_ASSERT_EQUAL(mb_net_evaluate(net, x + i * 189, y + i, 1, &e1, &c1), MB_OK);
        CU_ASSERT_DOUBLE_EQUAL(each[i], e1, 1e-6 * (e1 + 1));
        mean += each[i] / 5;
    }
    CU_ASSERT_DOUBLE_EQUAL(mean, el, 1e-9 * (el + 1));
    CU_ASSERT_EQUAL(ok5, ok);
    CU_ASSERT_EQUAL(mb_net_evaluate_each(net, x, y, 5, NULL, &ok5), MB_EINVAL);
    free(g1);
    mb_net_free(net);
}


enum { NB = 25 }; /* samples in the thread tests' batches */

/* One forward_backward (after `warm` earlier ones, so dropout's step counter moves) with
 * `threads` workers; the loss, a copy of the gradients and the evaluation of the batch. */
static void run_threads(const mb_net_desc *d, int threads, int batch, const float *x,
                        const int *y, float *loss, float *g, double *eval, size_t *ok)
{
    mb_net_options o = {NB, 41, MB_CONV_AUTO, threads, NULL, 0};
    mb_net *net;
    float l0;
    CU_ASSERT_EQUAL_FATAL(mb_net_create(d, &o, &net, NULL), MB_OK);
    CU_ASSERT_EQUAL(mb_net_forward_backward(net, x, y, NB, &l0), MB_OK);
    CU_ASSERT_EQUAL(mb_net_forward_backward(net, x, y, batch, loss), MB_OK);
    memcpy(g, mb_net_grads(net), mb_net_param_count(net) * sizeof *g);
    CU_ASSERT_EQUAL(mb_net_evaluate(net, x, y, NB, eval, ok), MB_OK);
    mb_net_free(net);
}

/* A batch split over 2 or 3 workers (shards of at least 8 samples: 25 = 13+12 or 9+8+8, 17 =
 * 9+8; 7 stays on one) gives the one-thread loss and gradients up to float rounding, dropout
 * included (its masks follow the sample, not the shard), and two runs with the same thread
 * count are bit-identical. Tolerance 1e-5 of the largest gradient: only the order of the sums
 * over at most 25 samples changes (in the shard
 * reduction and inside OpenBLAS's sgemm, whose K is the shard's size), a few float roundings
 * (6e-8 each) of terms no larger than the gradient's scale; a wrong scale (1/shard instead of
 * 1/batch) or a lost shard would be off by tens of percent. */
/* A context shared by two networks: the same results as a network's own context of the same
 * threads (bit for bit: same kernels, same shards), the context's facts, and its refusals. */
static void test_context(void)
{
    mb_net_desc d = mixed(0.4f);
    float x[NB * 3 * 9 * 7], la, lb;
    int y[NB];
    for (int i = 0; i < NB; i++)
        y[i] = (i * 5 + 1) % 4;
    fill(x, sizeof x / 4, 377, 0.9f);
    mb_ctx_options co;
    mb_ctx_options_init(&co);
    co.threads = 2;
    mb_ctx *ctx;
    mb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(mb_ctx_create(&co, &ctx, &err), MB_OK);
    CU_ASSERT_EQUAL(mb_ctx_backend(ctx), MB_BACKEND_CPU);
    CU_ASSERT_EQUAL(mb_ctx_threads(ctx), 2);
    CU_ASSERT_TRUE(mb_ctx_host_memory(ctx));
    CU_ASSERT_TRUE(strlen(mb_ctx_device_name(ctx)) > 0);
    for (int p = 0; p < 3; p++) {
        CU_ASSERT_EQUAL(mb_ctx_conv_algo_count(ctx, (mb_conv_pass)p), MB_CONV_N_ALGOS);
        CU_ASSERT_EQUAL(mb_ctx_conv_algo_find(ctx, (mb_conv_pass)p, "winograd"), MB_CONV_WINOGRAD);
        CU_ASSERT_EQUAL(mb_ctx_conv_algo_find(ctx, (mb_conv_pass)p, "implicit_gemm"), -1);
    }
    mb_net_options own = {NB, 41, MB_CONV_AUTO, 2, NULL, 0}, shared = own;
    shared.ctx = ctx;
    mb_net *a, *b, *c;
    CU_ASSERT_EQUAL_FATAL(mb_net_create(&d, &own, &a, NULL), MB_OK);
    CU_ASSERT_EQUAL_FATAL(mb_net_create(&d, &shared, &b, NULL), MB_OK);
    CU_ASSERT_EQUAL_FATAL(mb_net_create(&d, &shared, &c, NULL), MB_OK);
    CU_ASSERT_PTR_EQUAL(mb_net_context(b), ctx);
    CU_ASSERT_PTR_NOT_EQUAL(mb_net_context(a), ctx);
    size_t n = mb_net_param_count(a);
    CU_ASSERT_EQUAL(mb_net_forward_backward(a, x, y, NB, &la), MB_OK);
    CU_ASSERT_EQUAL(mb_net_forward_backward(b, x, y, NB, &lb), MB_OK);
    CU_ASSERT_EQUAL(la, lb);
    CU_ASSERT_EQUAL(memcmp(mb_net_grads(a), mb_net_grads(b), n * 4), 0);
    /* parameters through host copies: c takes b's, perturbed, and gives them back */
    float *h = malloc(n * 4), *back = malloc(n * 4);
    CU_ASSERT_EQUAL(mb_net_read_params(b, h), MB_OK);
    CU_ASSERT_EQUAL(memcmp(h, mb_net_params(b), n * 4), 0);
    h[3] += 0.25f;
    CU_ASSERT_EQUAL(mb_net_write_params(c, h), MB_OK);
    CU_ASSERT_EQUAL(mb_net_read_params(c, back), MB_OK);
    CU_ASSERT_EQUAL(memcmp(h, back, n * 4), 0);
    CU_ASSERT_NOT_EQUAL(memcmp(mb_net_params(b), back, n * 4), 0);
    free(h);
    free(back);
    mb_net_free(a);
    mb_net_free(b);
    mb_net_free(c);
    mb_ctx_free(ctx);
    /* refusals: a bad thread count; a backend that is not built or has no device here */
    co.threads = MB_CTX_MAX_THREADS + 1;
    CU_ASSERT_EQUAL(mb_ctx_create(&co, &ctx, &err), MB_EINVAL);
    mb_ctx_options_init(&co);
    co.backend = MB_BACKEND_CUDA;
    char why[160];
    if (!mb_train_backend_usable(MB_BACKEND_CUDA, why, sizeof why)) {
        CU_ASSERT_EQUAL(mb_ctx_create(&co, &ctx, &err), MB_ENOTSUP);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "backend cuda"));
    }
    mb_backend_kind k;
    CU_ASSERT_EQUAL(mb_backend_parse("cuda", &k), MB_OK);
    CU_ASSERT_EQUAL(k, MB_BACKEND_CUDA);
    CU_ASSERT_EQUAL(mb_backend_parse("gpu", &k), MB_EINVAL);
    CU_ASSERT_STRING_EQUAL(mb_backend_name(MB_BACKEND_CPU), "cpu");
}

static void test_threads(void)
{
    mb_net_desc d = mixed(0.4f);
    float x[NB * 3 * 9 * 7], l1, l2, l2b;
    int y[NB];
    for (int i = 0; i < NB; i++)
        y[i] = (i * 7 + 3) % 4;
    fill(x, sizeof x / 4, 913, 1.3f);
    mb_net_options o = {NB, 41, MB_CONV_AUTO, 1, NULL, 0};
    mb_net *net;
    CU_ASSERT_EQUAL_FATAL(mb_net_create(&d, &o, &net, NULL), MB_OK);
    size_t n = mb_net_param_count(net);
    mb_net_free(net);
    float *g1 = malloc(n * 4), *g2 = malloc(n * 4), *g2b = malloc(n * 4);
    double e1, e2, e2b;
    size_t c1, c2, c2b;
    static const int threads[] = {2, 3, 8};
    static const int batches[] = {NB, 17, 7, 1};
    for (size_t t = 0; t < sizeof threads / sizeof *threads; t++)
        for (size_t b = 0; b < sizeof batches / sizeof *batches; b++) {
            int m = batches[b];
            run_threads(&d, 1, m, x, y, &l1, g1, &e1, &c1);
            run_threads(&d, threads[t], m, x, y, &l2, g2, &e2, &c2);
            run_threads(&d, threads[t], m, x, y, &l2b, g2b, &e2b, &c2b);
            CU_ASSERT_DOUBLE_EQUAL(l2, l1, 1e-5 * fabs(l1));
            CU_ASSERT_TRUE(mb_test_rel_err(g1, g2, n) <= 1e-5);
            CU_ASSERT_DOUBLE_EQUAL(e2, e1, 1e-5 * fabs(e1));
            CU_ASSERT_EQUAL(c2, c1);
            CU_ASSERT_EQUAL(l2, l2b);
            CU_ASSERT_EQUAL(memcmp(g2, g2b, n * 4), 0);
            CU_ASSERT_EQUAL(e2, e2b);
        }
    /* the check can fail: another dropout step (a third call) changes the gradient */
    run_threads(&d, 2, NB, x, y, &l2, g2, &e2, &c2);
    o.threads = 2;
    CU_ASSERT_EQUAL_FATAL(mb_net_create(&d, &o, &net, NULL), MB_OK);
    for (int k = 0; k < 3; k++)
        CU_ASSERT_EQUAL(mb_net_forward_backward(net, x, y, NB, &l2b), MB_OK);
    CU_ASSERT_TRUE(mb_test_rel_err(g2, mb_net_grads(net), n) > 1e-3);
    mb_net_free(net);
    /* lenet5 (GEMM convolutions, fc sgemm) with 2 workers against 1 */
    mb_net_desc ld = lenet5();
    float *lx = malloc(sizeof(float) * NB * 784);
    int ly[NB];
    for (int i = 0; i < NB; i++)
        ly[i] = (i * 3 + 4) % 10;
    fill(lx, NB * 784, 29, 1.0f);
    o.max_batch = NB;
    CU_ASSERT_EQUAL_FATAL(mb_net_create(&ld, &o, &net, NULL), MB_OK);
    size_t ln = mb_net_param_count(net);
    mb_net_free(net);
    float *lg1 = malloc(ln * 4), *lg2 = malloc(ln * 4);
    run_threads(&ld, 1, NB, lx, ly, &l1, lg1, &e1, &c1);
    run_threads(&ld, 2, NB, lx, ly, &l2, lg2, &e2, &c2);
    CU_ASSERT_DOUBLE_EQUAL(l2, l1, 1e-5 * fabs(l1));
    CU_ASSERT_TRUE(mb_test_rel_err(lg1, lg2, ln) <= 1e-5);
    CU_ASSERT_EQUAL(c2, c1);
    free(lx), free(lg1), free(lg2);
    free(g1), free(g2), free(g2b);
}

static void test_errors(void)
{
    mb_net_desc d = lenet5();
    mb_net_options o = {4, 1, MB_CONV_AUTO, 1, NULL, 0};
    mb_net *net = NULL;
    mb_error err = {0};
    o.max_batch = 0;
    CU_ASSERT_EQUAL(mb_net_create(&d, &o, &net, &err), MB_EINVAL);
    CU_ASSERT_PTR_NULL(net);
    o.max_batch = 4;
    o.algo = (mb_conv_algo)12;
    CU_ASSERT_EQUAL(mb_net_create(&d, &o, &net, &err), MB_EINVAL);
    o.algo = MB_CONV_WINOGRAD; /* lenet5's 5x5 convolutions */
    CU_ASSERT_EQUAL(mb_net_create(&d, &o, &net, &err), MB_ENOTSUP);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "layer 0"));
    d.n_layers = 11;
    o.algo = MB_CONV_AUTO;
    CU_ASSERT_EQUAL(mb_net_create(&d, &o, &net, &err), MB_EFORMAT);
    d = lenet5();
    o.threads = -1;
    CU_ASSERT_EQUAL(mb_net_create(&d, &o, &net, &err), MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "threads -1"));
    o.threads = MB_NET_MAX_THREADS + 1;
    CU_ASSERT_EQUAL(mb_net_create(&d, &o, &net, &err), MB_EINVAL);
    CU_ASSERT_PTR_NULL(net);
    o.threads = 1;
    d = lenet5();
    CU_ASSERT_EQUAL_FATAL(mb_net_create(&d, &o, &net, &err), MB_OK);
    float *x = calloc(5 * 784, 4), loss;
    int y[5] = {0, 1, 2, 3, 9};
    CU_ASSERT_EQUAL(mb_net_forward_backward(net, x, y, 0, &loss), MB_EINVAL);
    CU_ASSERT_EQUAL(mb_net_forward_backward(net, x, y, 5, &loss), MB_EINVAL);
    CU_ASSERT_EQUAL(mb_net_forward_backward(net, x, y, 4, &loss), MB_OK);
    CU_ASSERT_DOUBLE_EQUAL(loss, log(10.0), 1e-5); /* zero input, zero biases: uniform */
    y[1] = 10;
    CU_ASSERT_EQUAL(mb_net_forward_backward(net, x, y, 4, &loss), MB_EINVAL);
    y[1] = -1;
    CU_ASSERT_EQUAL(mb_net_forward_backward(net, x, y, 4, &loss), MB_EINVAL);
    double el;
    size_t ok;
    CU_ASSERT_EQUAL(mb_net_evaluate(net, x, y, 4, &el, &ok), MB_EINVAL);
    CU_ASSERT_EQUAL(mb_net_evaluate(net, x, y, 0, &el, &ok), MB_EINVAL);
    CU_ASSERT_EQUAL(mb_net_set_conv_algo(net, 0, ALL3(MB_CONV_WINOGRAD), &err), MB_ENOTSUP);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "3x3"));
    CU_ASSERT_EQUAL(mb_net_set_conv_algo(net, 1, ALL3(MB_CONV_GEMM), &err), MB_EINVAL);
    CU_ASSERT_EQUAL(mb_net_set_conv_algo(net, 40, ALL3(MB_CONV_GEMM), &err), MB_EINVAL);
    CU_ASSERT_EQUAL(mb_net_set_conv_algo(net, 0, ALL3((mb_conv_algo)9), &err), MB_ENOTSUP);
    CU_ASSERT_EQUAL(mb_net_set_conv_algo(net, 3, ALL3(MB_CONV_DIRECT), &err), MB_OK);
    mb_net_free(net);
    free(x);
}

int mb_test_suite_train_net(void)
{
    CU_pSuite s = CU_add_suite("train_net", NULL, NULL);
    return !s || !CU_add_test(s, "shape inference and its errors", test_infer) ||
           !CU_add_test(s, "lenet5 parameter layout and initialisation", test_lenet_layout) ||
           !CU_add_test(s, "gradients by central differences", test_gradients) ||
           !CU_add_test(s, "every conv algorithm in a network", test_algos_in_net) ||
           !CU_add_test(s, "inverted dropout", test_dropout_layer) ||
           !CU_add_test(s, "softmax cross-entropy", test_softmax) ||
           !CU_add_test(s, "determinism for a fixed seed", test_determinism) ||
           !CU_add_test(s, "gradients overwritten; evaluation", test_overwrite_and_evaluate) ||
           !CU_add_test(s, "threads: shards agree with one thread", test_threads) ||
           !CU_add_test(s, "contexts: shared, host copies, refusals", test_context) ||
           !CU_add_test(s, "errors", test_errors);
}
