/* layers.c — forward and backward of pooling, fully connected (OpenBLAS sgemm), ReLU / tanh /
 * sigmoid, inverted dropout and softmax cross-entropy, plus the network's PRNG. Convolutions are
 * in conv_*.c; the wiring of layers into a network is in net.c. No allocation, no globals.
 */
#include "layers_impl.h"
#include "../../../data/mb_rng.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <string.h>

/* Four floats and four ints for the masked loops (GCC/Clang vector extensions, SSE2 or better). */
typedef float v4sf __attribute__((vector_size(16)));
typedef int v4si __attribute__((vector_size(16)));

/* The common case: windows inside the input (no padding), no bounds checks. */
static void maxpool_nopad(const mb_layer_desc *d, size_t planes, const float *restrict x,
                          float *restrict y, int *restrict arg)
{
    const int H = d->in_h, W = d->in_w, OH = d->out_h, OW = d->out_w, F = d->size,
              S = d->stride;
    for (size_t pl = 0; pl < planes; pl++) {
        const float *xp = x + pl * H * W;
        float *yp = y + pl * OH * OW;
        int *ap = arg ? arg + pl * OH * OW : NULL;
        for (int oy = 0; oy < OH; oy++)
            for (int ox = 0; ox < OW; ox++) {
                int bi = oy * S * W + ox * S;
                float best = xp[bi];
                for (int i = 0; i < F; i++)
                    for (int j = 0; j < F; j++) {
                        int q = (oy * S + i) * W + ox * S + j;
                        if (xp[q] > best)
                            best = xp[q], bi = q;
                    }
                yp[oy * OW + ox] = best;
                if (ap)
                    ap[oy * OW + ox] = bi;
            }
    }
}

/* 2x2 windows, stride 2, no padding (lenet5's pools): the window unrolled, first maximum wins as
 * in the general loop. Without arg (inference) the maxima alone, a loop the vectoriser takes. */
static void maxpool_2x2(const mb_layer_desc *d, size_t planes, const float *restrict x,
                        float *restrict y, int *restrict arg)
{
    const int H = d->in_h, W = d->in_w, OH = d->out_h, OW = d->out_w;
    if (!arg) {
        for (size_t pl = 0; pl < planes; pl++)
            for (int oy = 0; oy < OH; oy++) {
                const float *restrict r0 = x + pl * H * W + 2 * oy * W, *restrict r1 = r0 + W;
                float *restrict yr = y + (pl * OH + oy) * OW;
                for (int ox = 0; ox < OW; ox++) {
                    float a = r0[2 * ox], b = r0[2 * ox + 1], c = r1[2 * ox], e = r1[2 * ox + 1];
                    float m0 = b > a ? b : a, m1 = e > c ? e : c;
                    yr[ox] = m1 > m0 ? m1 : m0;
                }
            }
        return;
    }
    for (size_t pl = 0; pl < planes; pl++) {
        const float *xp = x + pl * H * W;
        float *yp = y + pl * OH * OW;
        int *ap = arg + pl * OH * OW;
        for (int oy = 0; oy < OH; oy++) {
            const float *r0 = xp + 2 * oy * W, *r1 = r0 + W;
            for (int ox = 0; ox < OW; ox++) {
                int q = 2 * oy * W + 2 * ox;
                float a = r0[2 * ox], b = r0[2 * ox + 1], c = r1[2 * ox], e = r1[2 * ox + 1];
                float m0 = b > a ? b : a, m1 = e > c ? e : c;
                int i0 = b > a ? q + 1 : q, i1 = e > c ? q + W + 1 : q + W;
                yp[oy * OW + ox] = m1 > m0 ? m1 : m0;
                ap[oy * OW + ox] = m1 > m0 ? i1 : i0;
            }
        }
    }
}

void mb_layer_maxpool_forward(const mb_layer_desc *d, int batch, const float *x, float *y,
                              int *arg)
{
    const int H = d->in_h, W = d->in_w, OH = d->out_h, OW = d->out_w;
    const size_t planes = (size_t)batch * d->in_c;
    if (d->pad == 0 && d->size == 2 && d->stride == 2) {
        maxpool_2x2(d, planes, x, y, arg);
        return;
    }
    if (d->pad == 0) {
        maxpool_nopad(d, planes, x, y, arg);
        return;
    }
    for (size_t pl = 0; pl < planes; pl++) {
        const float *xp = x + pl * H * W;
        for (int oy = 0; oy < OH; oy++)
            for (int ox = 0; ox < OW; ox++) {
                float best = -FLT_MAX;
                int bi = -1;
                for (int i = 0; i < d->size; i++) {
                    int iy = oy * d->stride - d->pad + i;
                    if (iy < 0 || iy >= H)
                        continue;
                    for (int j = 0; j < d->size; j++) {
                        int ix = ox * d->stride - d->pad + j;
                        if (ix < 0 || ix >= W)
                            continue;
                        if (bi < 0 || xp[iy * W + ix] > best) {
                            best = xp[iy * W + ix];
                            bi = iy * W + ix;
                        }
                    }
                }
                size_t o = (pl * OH + oy) * OW + ox;
                y[o] = bi < 0 ? 0.0f : best;
                if (arg)
                    arg[o] = bi;
            }
    }
}

void mb_layer_maxpool_backward(const mb_layer_desc *d, int batch, const float *dy, const int *arg,
                               float *dx)
{
    const size_t in_pl = (size_t)d->in_h * d->in_w, out_pl = (size_t)d->out_h * d->out_w;
    const size_t planes = (size_t)batch * d->in_c;
    memset(dx, 0, sizeof(float) * planes * in_pl);
    for (size_t pl = 0; pl < planes; pl++)
        for (size_t o = 0; o < out_pl; o++)
            if (arg[pl * out_pl + o] >= 0)
                dx[pl * in_pl + arg[pl * out_pl + o]] += dy[pl * out_pl + o];
}

void mb_layer_avgpool_forward(const mb_layer_desc *d, int batch, const float *x, float *y)
{
    const int H = d->in_h, W = d->in_w, OH = d->out_h, OW = d->out_w;
    const size_t planes = (size_t)batch * d->in_c;
    const float inv = 1.0f / (float)(d->size * d->size);
    for (size_t pl = 0; pl < planes; pl++) {
        const float *xp = x + pl * H * W;
        for (int oy = 0; oy < OH; oy++)
            for (int ox = 0; ox < OW; ox++) {
                float acc = 0.0f;
                for (int i = 0; i < d->size; i++) {
                    int iy = oy * d->stride - d->pad + i;
                    if (iy < 0 || iy >= H)
                        continue;
                    for (int j = 0; j < d->size; j++) {
                        int ix = ox * d->stride - d->pad + j;
                        if (ix >= 0 && ix < W)
                            acc += xp[iy * W + ix];
                    }
                }
                y[(pl * OH + oy) * OW + ox] = acc * inv;
            }
    }
}

void mb_layer_avgpool_backward(const mb_layer_desc *d, int batch, const float *dy, float *dx)
{
    const int H = d->in_h, W = d->in_w, OH = d->out_h, OW = d->out_w;
    const size_t planes = (size_t)batch * d->in_c;
    const float inv = 1.0f / (float)(d->size * d->size);
    memset(dx, 0, sizeof(float) * planes * H * W);
    for (size_t pl = 0; pl < planes; pl++) {
        float *xp = dx + pl * H * W;
        for (int oy = 0; oy < OH; oy++)
            for (int ox = 0; ox < OW; ox++) {
                float g = dy[(pl * OH + oy) * OW + ox] * inv;
                for (int i = 0; i < d->size; i++) {
                    int iy = oy * d->stride - d->pad + i;
                    if (iy < 0 || iy >= H)
                        continue;
                    for (int j = 0; j < d->size; j++) {
                        int ix = ox * d->stride - d->pad + j;
                        if (ix >= 0 && ix < W)
                            xp[iy * W + ix] += g;
                    }
                }
            }
    }
}

void mb_layer_fc_forward(int batch, int in, int out, const float *x, const float *w,
                         const float *b, float *y)
{
    for (int n = 0; n < batch; n++)
        memcpy(y + (size_t)n * out, b, sizeof(float) * out);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, batch, out, in, 1.0f, x, in, w, in, 1.0f,
                y, out);
}

void mb_layer_fc_backward(int batch, int in, int out, const float *x, const float *w,
                          const float *dy, float *dx, float *dw, float *db)
{
    /* dW [out, in] = dY^T X; dX [batch, in] = dY W; db = column sums of dY */
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, out, in, batch, 1.0f, dy, out, x, in,
                0.0f, dw, in);
    if (dx)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, batch, in, out, 1.0f, dy, out, w,
                    in, 0.0f, dx, in);
    for (int o = 0; o < out; o++)
        db[o] = 0.0f;
    for (int n = 0; n < batch; n++)
        for (int o = 0; o < out; o++)
            db[o] += dy[(size_t)n * out + o];
}

void mb_layer_act_forward(mb_layer_type t, size_t n, const float *restrict x, float *restrict y)
{
    switch (t) {
    case MB_LAYER_RELU:
        for (size_t i = 0; i < n; i++)
            y[i] = x[i] > 0.0f ? x[i] : 0.0f;
        break;
    case MB_LAYER_TANH:
        for (size_t i = 0; i < n; i++)
            y[i] = tanhf(x[i]);
        break;
    case MB_LAYER_SIGMOID:
        for (size_t i = 0; i < n; i++)
            y[i] = 1.0f / (1.0f + expf(-x[i]));
        break;
    default:
        break;
    }
}

void mb_layer_act_backward(mb_layer_type t, size_t n, const float *restrict y,
                           const float *restrict dy, float *restrict dx)
{
    switch (t) {
    case MB_LAYER_RELU: {
        /* dx = dy where y > 0, else 0, as a mask (GCC vector extensions, 4 floats at a time):
         * the plain conditional is a branch per value the vectoriser leaves alone, and ReLU's
         * signs are random, so it mispredicts; this was 9% of a lenet5 step. */
        size_t i = 0;
        const v4sf zero = {0.0f, 0.0f, 0.0f, 0.0f};
        for (; i + 4 <= n; i += 4) {
            v4sf a, d;
            memcpy(&a, y + i, sizeof a);
            memcpy(&d, dy + i, sizeof d);
            v4sf r = (v4sf)((v4si)d & (a > zero));
            memcpy(dx + i, &r, sizeof r);
        }
        for (; i < n; i++)
            dx[i] = y[i] > 0.0f ? dy[i] : 0.0f;
        break;
    }
    case MB_LAYER_TANH:
        for (size_t i = 0; i < n; i++)
            dx[i] = dy[i] * (1.0f - y[i] * y[i]);
        break;
    case MB_LAYER_SIGMOID:
        for (size_t i = 0; i < n; i++)
            dx[i] = dy[i] * y[i] * (1.0f - y[i]);
        break;
    default:
        break;
    }
}

void mb_layer_dropout_forward(float p, int train, size_t n, const float *x, float *y, float *mask,
                              uint64_t *rng)
{
    if (!train || p <= 0.0f) {
        if (y != x)
            memcpy(y, x, sizeof(float) * n);
        if (train)
            for (size_t i = 0; i < n; i++)
                mask[i] = 1.0f;
        return;
    }
    const float keep = 1.0f / (1.0f - p);
    for (size_t i = 0; i < n; i++) {
        mask[i] = mb_rng_uniformf(rng) < p ? 0.0f : keep;
        y[i] = x[i] * mask[i];
    }
}

void mb_layer_dropout_backward(size_t n, const float *dy, const float *mask, float *dx)
{
    for (size_t i = 0; i < n; i++)
        dx[i] = dy[i] * mask[i];
}

void mb_layer_softmax_xent(int batch, int classes, const float *logits, const int *labels,
                           float *prob, double *loss_sum, double *losses, size_t *correct,
                           float *dx, float scale)
{
    for (int n = 0; n < batch; n++) {
        const float *z = logits + (size_t)n * classes;
        int best = 0;
        for (int c = 1; c < classes; c++)
            if (z[c] > z[best])
                best = c;
        double m = z[best], sum = 0.0;
        for (int c = 0; c < classes; c++)
            sum += exp((double)z[c] - m);
        double lse = m + log(sum);
        double l = lse - z[labels[n]];
        *loss_sum += l;
        if (losses)
            losses[n] = l;
        if (correct && best == labels[n])
            (*correct)++;
        for (int c = 0; c < classes; c++) {
            float pc = (float)exp((double)z[c] - lse);
            if (prob)
                prob[(size_t)n * classes + c] = pc;
            if (dx)
                dx[(size_t)n * classes + c] = (pc - (c == labels[n] ? 1.0f : 0.0f)) * scale;
        }
    }
}
