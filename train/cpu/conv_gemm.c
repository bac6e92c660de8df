/* conv_gemm.c — convolution as im2col + one OpenBLAS sgemm per chunk of images (the default
 * algorithm). The batch is cut into chunks of about GEMM_COLS output pixels so the column buffer
 * stays in cache and its size does not grow with the batch; within a chunk one sgemm covers all
 * images ([K, C*F*F] x [C*F*F, chunk*OH*OW]), and its [K, chunk*OH*OW] result is scattered to
 * NCHW with the bias added. A chunk of one image writes y directly. No explicit transposes:
 * backward-data is W^T dY then col2im, backward-filter dY col^T accumulated over chunks (beta 1).
 * Threads: OpenBLAS's, whatever the caller set.
 */
#include "conv_impl.h"

#include <cblas.h>
#include <string.h>

enum { GEMM_COLS = 4096 }; /* target output pixels per sgemm: measured in tests/bench/ */

/* How a shape is cut into sgemms, and how the workspace is laid out: the column buffer
 * [ckk, chunk * plane], then a [K, chunk * plane] buffer at col_len. */
typedef struct gemm_layout {
    size_t plane;   /* output pixels per image */
    int K, ckk;     /* output channels; rows of the column buffer (C*F*F) */
    int chunk;      /* images per sgemm (>= 1, <= batch): about GEMM_COLS output pixels */
    size_t col_len; /* floats of the column buffer, rounded up to an alignment of 16 */
} gemm_layout;

static gemm_layout layout(const mb_conv_shape *s)
{
    gemm_layout L = {.plane = (size_t)mb_conv_out_h(s) * mb_conv_out_w(s), .K = s->out_c,
                     .ckk = s->in_c * s->k * s->k};
    size_t c = (GEMM_COLS + L.plane - 1) / L.plane;
    L.chunk = c < 1 ? 1 : c > (size_t)s->batch ? s->batch : (int)c;
    L.col_len = mb_conv_align16((size_t)L.ckk * L.chunk * L.plane);
    return L;
}

size_t mb_conv_gemm_workspace(mb_conv_pass pass, const mb_conv_shape *s)
{
    (void)pass; /* all three passes use one column buffer and one [K, cols] buffer */
    gemm_layout L = layout(s);
    return (L.col_len + mb_conv_align16((size_t)L.K * L.chunk * L.plane)) * sizeof(float);
}

/* Writes the columns of one image into col (row stride ld): row (c, i, j), column oy*OW+ox. */
static void im2col(const struct mb_conv_plan *p, const float *x, float *col, size_t ld)
{
    const mb_conv_shape *s = &p->s;
    const int H = s->in_h, W = s->in_w, F = s->k, S = s->stride, P = s->pad;
    const int OH = p->oh, OW = p->ow;
    for (int c = 0; c < s->in_c; c++)
        for (int i = 0; i < F; i++)
            for (int j = 0; j < F; j++) {
                float *row = col + ((size_t)(c * F + i) * F + j) * ld;
                /* ox range whose input column ix = ox*S - P + j lies in [0, W) */
                int lo = j >= P ? 0 : (P - j + S - 1) / S;
                int hi = (W - 1 + P - j) / S + 1;
                if (W - 1 + P - j < 0)
                    hi = 0;
                if (hi > OW)
                    hi = OW;
                if (lo > hi)
                    lo = hi;
                for (int oy = 0; oy < OH; oy++) {
                    float *r = row + (size_t)oy * OW;
                    int iy = oy * S - P + i;
                    if (iy < 0 || iy >= H) {
                        memset(r, 0, sizeof(float) * OW);
                        continue;
                    }
                    const float *xr = x + ((size_t)c * H + iy) * W;
                    for (int ox = 0; ox < lo; ox++)
                        r[ox] = 0.0f;
                    if (S == 1) {
                        /* rows are short (10-28 floats in lenet5): an inline loop the
                         * vectoriser handles beats a memcpy call per row */
                        const float *restrict src = xr + (j - P);
                        for (int ox = lo; ox < hi; ox++)
                            r[ox] = src[ox];
                    } else
                        for (int ox = lo; ox < hi; ox++)
                            r[ox] = xr[ox * S - P + j];
                    for (int ox = hi; ox < OW; ox++)
                        r[ox] = 0.0f;
                }
            }
}

/* The columns of images n0 .. n0 + nc - 1 of x side by side in col: one row of nc * plane
 * columns per (channel, kernel row, kernel column), as the chunk's sgemm reads them. */
static void im2col_chunk(const struct mb_conv_plan *p, const float *x, int n0, int nc, float *col)
{
    const mb_conv_shape *s = &p->s;
    const size_t plane = (size_t)p->oh * p->ow, in_sz = (size_t)s->in_c * s->in_h * s->in_w;
    for (int n = 0; n < nc; n++)
        im2col(p, x + (size_t)(n0 + n) * in_sz, col + (size_t)n * plane, (size_t)nc * plane);
}

/* Adds the columns of one image back into dx (already zeroed): the transpose of im2col. */
static void col2im(const struct mb_conv_plan *p, const float *col, size_t ld, float *dx)
{
    const mb_conv_shape *s = &p->s;
    const int H = s->in_h, W = s->in_w, F = s->k, S = s->stride, P = s->pad;
    const int OH = p->oh, OW = p->ow;
    for (int c = 0; c < s->in_c; c++)
        for (int i = 0; i < F; i++)
            for (int j = 0; j < F; j++) {
                const float *row = col + ((size_t)(c * F + i) * F + j) * ld;
                int lo = j >= P ? 0 : (P - j + S - 1) / S;
                int hi = (W - 1 + P - j) / S + 1;
                if (W - 1 + P - j < 0)
                    hi = 0;
                if (hi > OW)
                    hi = OW;
                for (int oy = 0; oy < OH; oy++) {
                    int iy = oy * S - P + i;
                    if (iy < 0 || iy >= H)
                        continue;
                    const float *r = row + (size_t)oy * OW;
                    float *xr = dx + ((size_t)c * H + iy) * W;
                    if (S == 1) {
                        float *restrict dst = xr + (j - P);
                        for (int ox = lo; ox < hi; ox++)
                            dst[ox] += r[ox];
                    } else {
                        for (int ox = lo; ox < hi; ox++)
                            xr[ox * S - P + j] += r[ox];
                    }
                }
            }
}

void mb_conv_gemm_forward(const struct mb_conv_plan *p, int batch, const float *x, const float *w,
                          const float *b, float *y, float *ws)
{
    const gemm_layout L = layout(&p->s);
    const size_t plane = L.plane;
    const int K = L.K, ckk = L.ckk, chunk = L.chunk;
    float *col = ws, *tmp = ws + L.col_len;
    for (int n0 = 0; n0 < batch; n0 += chunk) {
        int nc = batch - n0 < chunk ? batch - n0 : chunk;
        size_t cols = (size_t)nc * plane;
        im2col_chunk(p, x, n0, nc, col);
        float *out = nc == 1 ? y + (size_t)n0 * K * plane : tmp;
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, K, (int)cols, ckk, 1.0f, w, ckk,
                    col, (int)cols, 0.0f, out, (int)cols);
        for (int n = 0; n < nc; n++)
            for (int o = 0; o < K; o++) {
                float *yr = y + ((size_t)(n0 + n) * K + o) * plane;
                const float *tr = out + (size_t)o * cols + (size_t)n * plane;
                float bo = b ? b[o] : 0.0f;
                if (nc == 1)
                    for (size_t i = 0; i < plane; i++)
                        yr[i] += bo;
                else
                    for (size_t i = 0; i < plane; i++)
                        yr[i] = tr[i] + bo;
            }
    }
}

/* Copies dy of images n0..n0+nc-1 into g as [K, nc*plane]. */
static void gather_dy(const float *dy, int n0, int nc, int K, size_t plane, float *g)
{
    size_t cols = (size_t)nc * plane;
    for (int n = 0; n < nc; n++)
        for (int o = 0; o < K; o++)
            memcpy(g + (size_t)o * cols + (size_t)n * plane, dy + ((size_t)(n0 + n) * K + o) * plane,
                   sizeof(float) * plane);
}

void mb_conv_gemm_backward_data(const struct mb_conv_plan *p, int batch, const float *dy,
                                const float *w, float *dx, float *ws)
{
    const gemm_layout L = layout(&p->s);
    const size_t plane = L.plane, in_sz = (size_t)p->s.in_c * p->s.in_h * p->s.in_w;
    const int K = L.K, ckk = L.ckk, chunk = L.chunk;
    float *col = ws, *g = ws + L.col_len;
    memset(dx, 0, sizeof(float) * in_sz * batch);
    for (int n0 = 0; n0 < batch; n0 += chunk) {
        int nc = batch - n0 < chunk ? batch - n0 : chunk;
        size_t cols = (size_t)nc * plane;
        const float *d = dy + (size_t)n0 * K * plane;
        if (nc > 1) {
            gather_dy(dy, n0, nc, K, plane, g);
            d = g;
        }
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, ckk, (int)cols, K, 1.0f, w, ckk, d,
                    (int)cols, 0.0f, col, (int)cols);
        for (int n = 0; n < nc; n++)
            col2im(p, col + (size_t)n * plane, cols, dx + (size_t)(n0 + n) * in_sz);
    }
}

void mb_conv_gemm_backward_filter(const struct mb_conv_plan *p, int batch, const float *x,
                                  const float *dy, float *dw, float *db, float *ws)
{
    const gemm_layout L = layout(&p->s);
    const size_t plane = L.plane;
    const int K = L.K, ckk = L.ckk, chunk = L.chunk;
    float *col = ws, *g = ws + L.col_len;
    for (int n0 = 0; n0 < batch; n0 += chunk) {
        int nc = batch - n0 < chunk ? batch - n0 : chunk;
        size_t cols = (size_t)nc * plane;
        im2col_chunk(p, x, n0, nc, col);
        const float *d = dy + (size_t)n0 * K * plane;
        if (nc > 1) {
            gather_dy(dy, n0, nc, K, plane, g);
            d = g;
        }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, K, ckk, (int)cols, 1.0f, d,
                    (int)cols, col, (int)cols, n0 == 0 ? 0.0f : 1.0f, dw, ckk);
    }
    mb_conv_bias_grad(batch, K, plane, dy, db);
}
