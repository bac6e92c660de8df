/* conv_gemm.c — convolution as im2col + one OpenBLAS sgemm per chunk of images (the default
 * algorithm). The batch is cut into chunks of about GEMM_COLS output pixels so the column buffer
 * stays in cache and its size does not grow with the batch; within a chunk one sgemm covers all
 * images ([K, C*F*F] x [C*F*F, chunk*plane]), and its [K, chunk*plane] result is scattered to
 * NCHW with the bias added. No explicit transposes: backward-data is W^T dY then col2im,
 * backward-filter dY col^T accumulated over chunks (beta 1).
 *
 * Wide columns (stride 1, the usual case). The image is copied once into a zero-padded buffer
 * of (H + 2P) x (W + 2P) per channel, and the sgemm computes each output row over the padded
 * width Wp = W + 2P instead of OW: output (oy, ox) sits at oy * Wp + ox, and the columns ox >= OW
 * are junk. Then each row (c, i, j) of the column buffer is one contiguous slice of the padded
 * image, OH * Wp floats from (c, i, j): a single memcpy where the exact layout copies OH rows of
 * OW with the padding's bounds checked. im2col was over 40% of lenet5's forward pass; wide, it is
 * about a third of that, for (Wp - OW) / OW more sgemm columns (measured in docs/results.md, "Wide
 * columns"). The forward pass scatters the valid columns only; backward-filter gathers dY into the
 * same wide layout with zeros in the junk columns, so they add nothing to dW.
 * Threads: OpenBLAS's, whatever the caller set.
 */
#include "conv_impl.h"

#include <cblas.h>
#include <string.h>

enum { GEMM_COLS = 4096 }; /* target output pixels per sgemm: measured in tests/bench/ */

/* How a shape is cut into sgemms, and how the workspace is laid out: the column buffer
 * [ckk, chunk * plane], then a [K, chunk * plane] buffer at col_len, then (wide) the padded
 * image at col_len + out_len. */
typedef struct gemm_layout {
    int wide;       /* stride 1: columns over the padded width (above) */
    int oh, ow;     /* output height and width */
    int wp;         /* a plane's row stride in the sgemm's columns: W + 2P wide, else OW */
    size_t plane;   /* sgemm columns per image: oh * wp */
    int K, ckk;     /* output channels; rows of the column buffer (C*F*F) */
    int chunk;      /* images per sgemm (>= 1, <= batch): about GEMM_COLS output pixels */
    size_t col_len; /* floats of the column buffer, rounded up to an alignment of 16 */
    size_t out_len; /* floats of the [K, chunk * plane] buffer, likewise */
    size_t pad_len; /* floats of the padded image (wide; F - 1 more: the last slice runs over) */
} gemm_layout;

static gemm_layout layout(const mb_conv_shape *s)
{
    gemm_layout L = {.wide = s->stride == 1, .oh = mb_conv_out_h(s), .ow = mb_conv_out_w(s),
                     .K = s->out_c, .ckk = s->in_c * s->k * s->k};
    L.wp = L.wide ? s->in_w + 2 * s->pad : L.ow;
    L.plane = (size_t)L.oh * L.wp;
    size_t c = (GEMM_COLS + L.plane - 1) / L.plane;
    L.chunk = c < 1 ? 1 : c > (size_t)s->batch ? s->batch : (int)c;
    L.col_len = mb_conv_align16((size_t)L.ckk * L.chunk * L.plane);
    L.out_len = mb_conv_align16((size_t)L.K * L.chunk * L.plane);
    if (L.wide)
        L.pad_len = mb_conv_align16((size_t)s->in_c * (s->in_h + 2 * s->pad) * L.wp + s->k - 1);
    return L;
}

size_t mb_conv_gemm_workspace(mb_conv_pass pass, const mb_conv_shape *s)
{
    (void)pass; /* all three passes use one layout */
    gemm_layout L = layout(s);
    return (L.col_len + L.out_len + L.pad_len) * sizeof(float);
}

/* Wide: the padded image's border is zeroed once per call (the workspace is shared with other
 * layers), each image then writes only the interior. */
static float *wide_begin(const gemm_layout *L, float *ws)
{
    float *xp = ws + L->col_len + L->out_len;
    memset(xp, 0, L->pad_len * sizeof *xp);
    return xp;
}

/* Wide im2col of one image: its interior into the padded buffer xp, then row (c, i, j) of col
 * (row stride ld) is the slice of OH * Wp floats of xp from (c, i, j). */
static void im2col_wide(const struct mb_conv_plan *p, const gemm_layout *L, const float *x,
                        float *xp, float *col, size_t ld)
{
    const mb_conv_shape *s = &p->s;
    const int H = s->in_h, W = s->in_w, F = s->k, P = s->pad, Wp = L->wp, Hp = H + 2 * P;
    for (int c = 0; c < s->in_c; c++)
        for (int y = 0; y < H; y++)
            memcpy(xp + ((size_t)c * Hp + y + P) * Wp + P, x + ((size_t)c * H + y) * W,
                   sizeof(float) * W);
    for (int c = 0; c < s->in_c; c++)
        for (int i = 0; i < F; i++)
            for (int j = 0; j < F; j++)
                memcpy(col + ((size_t)(c * F + i) * F + j) * ld,
                       xp + ((size_t)c * Hp + i) * Wp + j, sizeof(float) * L->plane);
}

/* Exact (strided convolutions): writes the columns of one image into col (row stride ld): row
 * (c, i, j), column oy*OW+ox, the padding's zeros written where a window leaves the image. */
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
                    for (int ox = lo; ox < hi; ox++)
                        r[ox] = xr[ox * S - P + j];
                    for (int ox = hi; ox < OW; ox++)
                        r[ox] = 0.0f;
                }
            }
}

/* The columns of images n0 .. n0 + nc - 1 of x side by side in col: one row of nc * plane
 * columns per (channel, kernel row, kernel column), as the chunk's sgemm reads them. */
static void im2col_chunk(const struct mb_conv_plan *p, const gemm_layout *L, const float *x,
                         int n0, int nc, float *col, float *xp)
{
    const mb_conv_shape *s = &p->s;
    const size_t plane = L->plane, in_sz = (size_t)s->in_c * s->in_h * s->in_w;
    for (int n = 0; n < nc; n++) {
        const float *xn = x + (size_t)(n0 + n) * in_sz;
        if (L->wide)
            im2col_wide(p, L, xn, xp, col + (size_t)n * plane, (size_t)nc * plane);
        else
            im2col(p, xn, col + (size_t)n * plane, (size_t)nc * plane);
    }
}

/* Exact: adds the columns of one image back into dx (already zeroed), the transpose of im2col. */
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
                    for (int ox = lo; ox < hi; ox++)
                        xr[ox * S - P + j] += r[ox];
                }
            }
}

void mb_conv_gemm_forward(const struct mb_conv_plan *p, int batch, const float *x, const float *w,
                          const float *b, float *y, float *ws)
{
    const gemm_layout L = layout(&p->s);
    const size_t plane = L.plane, out = (size_t)L.oh * L.ow;
    const int K = L.K, ckk = L.ckk, chunk = L.chunk, OW = L.ow;
    float *col = ws, *tmp = ws + L.col_len, *xp = L.wide ? wide_begin(&L, ws) : NULL;
    for (int n0 = 0; n0 < batch; n0 += chunk) {
        int nc = batch - n0 < chunk ? batch - n0 : chunk;
        size_t cols = (size_t)nc * plane;
        im2col_chunk(p, &L, x, n0, nc, col, xp);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, K, (int)cols, ckk, 1.0f, w, ckk,
                    col, (int)cols, 0.0f, tmp, (int)cols);
        /* each image's plane of each channel to NCHW, bias added, junk columns left behind */
        for (int n = 0; n < nc; n++)
            for (int o = 0; o < K; o++) {
                float *yr = y + ((size_t)(n0 + n) * K + o) * out;
                const float *tr = tmp + (size_t)o * cols + (size_t)n * plane;
                float bo = b ? b[o] : 0.0f;
                for (int oy = 0; oy < L.oh; oy++, yr += OW, tr += L.wp)
                    for (int ox = 0; ox < OW; ox++)
                        yr[ox] = tr[ox] + bo;
            }
    }
}

/* Copies dy of images n0..n0+nc-1 into g as [K, nc*plane], each OW-wide row at a stride of wp
 * (wide: zeros in the junk columns, so that they add nothing to dW). */
static void gather_dy(const gemm_layout *L, const float *dy, int n0, int nc, float *g)
{
    const size_t cols = (size_t)nc * L->plane, out = (size_t)L->oh * L->ow;
    const int K = L->K, OW = L->ow;
    for (int n = 0; n < nc; n++)
        for (int o = 0; o < K; o++) {
            float *gr = g + (size_t)o * cols + (size_t)n * L->plane;
            const float *d = dy + ((size_t)(n0 + n) * K + o) * out;
            if (L->wp == OW) {
                memcpy(gr, d, sizeof(float) * out);
                continue;
            }
            for (int oy = 0; oy < L->oh; oy++, gr += L->wp, d += OW) {
                memcpy(gr, d, sizeof(float) * OW);
                memset(gr + OW, 0, sizeof(float) * (size_t)(L->wp - OW));
            }
        }
}

/* Wide col2im of one image: row (c, i, j) of col added into the padded buffer's slice from
 * (c, i, j) (its junk columns are zero: W^T times gather_dy's zeros), then the interior to dx. */
static void col2im_wide(const struct mb_conv_plan *p, const gemm_layout *L, const float *col,
                        size_t ld, float *xp, float *dx)
{
    const mb_conv_shape *s = &p->s;
    const int H = s->in_h, W = s->in_w, F = s->k, P = s->pad, Wp = L->wp, Hp = H + 2 * P;
    memset(xp, 0, L->pad_len * sizeof *xp);
    for (int c = 0; c < s->in_c; c++)
        for (int i = 0; i < F; i++)
            for (int j = 0; j < F; j++) {
                const float *restrict r = col + ((size_t)(c * F + i) * F + j) * ld;
                float *restrict d = xp + ((size_t)c * Hp + i) * Wp + j;
                for (size_t q = 0; q < L->plane; q++)
                    d[q] += r[q];
            }
    for (int c = 0; c < s->in_c; c++)
        for (int y = 0; y < H; y++)
            memcpy(dx + ((size_t)c * H + y) * W, xp + ((size_t)c * Hp + y + P) * Wp + P,
                   sizeof(float) * W);
}

void mb_conv_gemm_backward_data(const struct mb_conv_plan *p, int batch, const float *dy,
                                const float *w, float *dx, float *ws)
{
    const gemm_layout L = layout(&p->s);
    const size_t plane = L.plane, in_sz = (size_t)p->s.in_c * p->s.in_h * p->s.in_w;
    const int K = L.K, ckk = L.ckk, chunk = L.chunk;
    float *col = ws, *g = ws + L.col_len, *xp = ws + L.col_len + L.out_len;
    if (!L.wide)
        memset(dx, 0, sizeof(float) * in_sz * batch);
    for (int n0 = 0; n0 < batch; n0 += chunk) {
        int nc = batch - n0 < chunk ? batch - n0 : chunk;
        size_t cols = (size_t)nc * plane;
        const float *d = dy + (size_t)n0 * K * L.oh * L.ow; /* nc == 1, not wide */
        if (L.wide || nc > 1) {
            gather_dy(&L, dy, n0, nc, g);
            d = g;
        }
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, ckk, (int)cols, K, 1.0f, w, ckk, d,
                    (int)cols, 0.0f, col, (int)cols);
        for (int n = 0; n < nc; n++) {
            float *dxn = dx + (size_t)(n0 + n) * in_sz;
            if (L.wide)
                col2im_wide(p, &L, col + (size_t)n * plane, cols, xp, dxn);
            else
                col2im(p, col + (size_t)n * plane, cols, dxn);
        }
    }
}

void mb_conv_gemm_backward_filter(const struct mb_conv_plan *p, int batch, const float *x,
                                  const float *dy, float *dw, float *db, float *ws)
{
    const gemm_layout L = layout(&p->s);
    const size_t plane = L.plane;
    const int K = L.K, ckk = L.ckk, chunk = L.chunk;
    float *col = ws, *g = ws + L.col_len, *xp = L.wide ? wide_begin(&L, ws) : NULL;
    for (int n0 = 0; n0 < batch; n0 += chunk) {
        int nc = batch - n0 < chunk ? batch - n0 : chunk;
        size_t cols = (size_t)nc * plane;
        im2col_chunk(p, &L, x, n0, nc, col, xp);
        const float *d = dy + (size_t)n0 * K * L.oh * L.ow; /* nc == 1, not wide */
        if (L.wide || nc > 1) {
            gather_dy(&L, dy, n0, nc, g);
            d = g;
        }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, K, ckk, (int)cols, 1.0f, d,
                    (int)cols, col, (int)cols, n0 == 0 ? 0.0f : 1.0f, dw, ckk);
    }
    mb_conv_bias_grad(batch, K, (size_t)L.oh * L.ow, dy, db);
}
