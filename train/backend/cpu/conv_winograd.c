/* conv_winograd.c — Winograd's minimal filtering F(2x2, 3x3) (Lavin and Gray 2016, "Fast
 * Algorithms for Convolutional Neural Networks", eq. 7-8): Y = A^T [ (G g G^T) . (B^T d B) ] A on
 * overlapping 4x4 input tiles that each give a 2x2 output tile, the sum over input channels done
 * as 16 sgemms (one per transformed element) over a chunk of tiles. Backward passes are the exact
 * adjoints of the forward: backward-data B [ U^T (A dY A^T) ] B^T scattered back over the
 * overlapping tiles, backward-filter G^T [ sum_tiles (A dY A^T) (B^T d B)^T ] G. Stride 1, 3x3
 * kernels, pad <= 2 only (mb_conv_supported says so). Threads: OpenBLAS's.
 */
#include "conv_impl.h"

#include <cblas.h>
#include <string.h>

enum { WINO_TILES = 1024 }; /* tiles per chunk of images (bounds the workspace) */

static const float BT[16] = {1, 0, -1, 0, 0, 1, 1, 0, 0, -1, 1, 0, 0, 1, 0, -1};
static const float Bm[16] = {1, 0, 0, 0, 0, 1, -1, 1, -1, 1, 1, 0, 0, 0, 0, -1};
static const float Gm[12] = {1, 0, 0, 0.5f, 0.5f, 0.5f, 0.5f, -0.5f, 0.5f, 0, 0, 1};
static const float GT[12] = {1, 0.5f, 0.5f, 0, 0, 0.5f, -0.5f, 0, 0, 0.5f, 0.5f, 1};
static const float AT[8] = {1, 1, 1, 0, 0, 1, -1, -1};
static const float Am[8] = {1, 0, 1, 1, 1, -1, 0, -1};

/* out (a x d) = L (a x b) X (b x c) R (c x d), all row-major, a, b, c, d <= 4. */
static void sandwich(const float *Lm, int a, int b, const float *X, int c, const float *R, int d,
                     float *out)
{
    float t[16];
    for (int i = 0; i < a; i++)
        for (int j = 0; j < c; j++) {
            float acc = 0.0f;
            for (int k = 0; k < b; k++)
                acc += Lm[i * b + k] * X[k * c + j];
            t[i * c + j] = acc;
        }
    for (int i = 0; i < a; i++)
        for (int j = 0; j < d; j++) {
            float acc = 0.0f;
            for (int k = 0; k < c; k++)
                acc += t[i * c + k] * R[k * d + j];
            out[i * d + j] = acc;
        }
}

typedef struct wino_dims {
    int th, tw;      /* tiles per image, vertically and horizontally */
    int chunk;       /* images per chunk */
    size_t tiles;    /* tiles per chunk: chunk * th * tw */
} wino_dims;

static wino_dims dims(const mb_conv_shape *s)
{
    wino_dims d;
    d.th = (mb_conv_out_h(s) + 1) / 2;
    d.tw = (mb_conv_out_w(s) + 1) / 2;
    size_t per = (size_t)d.th * d.tw;
    size_t c = (WINO_TILES + per - 1) / per;
    d.chunk = c > (size_t)s->batch ? s->batch : (int)c;
    d.tiles = (size_t)d.chunk * per;
    return d;
}

size_t mb_conv_winograd_workspace(mb_conv_pass pass, const mb_conv_shape *s)
{
    wino_dims d = dims(s);
    size_t kc = mb_conv_align16((size_t)16 * s->out_c * s->in_c);
    size_t v = mb_conv_align16((size_t)16 * s->in_c * d.tiles);
    size_t m = mb_conv_align16((size_t)16 * s->out_c * d.tiles);
    (void)pass; /* U (or dU), V (or its adjoint), M (or Z): the same sizes in all passes */
    return (kc + v + m) * sizeof(float);
}

/* U[xi][k][c] = (G g_kc G^T)[xi] */
static void filter_transform(const mb_conv_shape *s, const float *w, float *U)
{
    const size_t kc = (size_t)s->out_c * s->in_c;
    for (size_t q = 0; q < kc; q++) {
        float u[16];
        sandwich(Gm, 4, 3, w + q * 9, 3, GT, 4, u);
        for (int xi = 0; xi < 16; xi++)
            U[xi * kc + q] = u[xi];
    }
}

/* V[xi][c][t] = (B^T d B)[xi] for the tiles of images n0 .. n0+nc-1 */
static void input_transform(const struct mb_conv_plan *p, const wino_dims *d, const float *x,
                            int n0, int nc, float *V)
{
    const mb_conv_shape *s = &p->s;
    const int H = s->in_h, W = s->in_w, C = s->in_c;
    const size_t T = (size_t)nc * d->th * d->tw;
    for (int n = 0; n < nc; n++)
        for (int c = 0; c < C; c++) {
            const float *xp = x + ((size_t)(n0 + n) * C + c) * H * W;
            for (int ty = 0; ty < d->th; ty++)
                for (int tx = 0; tx < d->tw; tx++) {
                    float t[16], v[16];
                    for (int i = 0; i < 4; i++) {
                        int iy = 2 * ty - s->pad + i;
                        for (int j = 0; j < 4; j++) {
                            int ix = 2 * tx - s->pad + j;
                            t[i * 4 + j] = iy >= 0 && iy < H && ix >= 0 && ix < W
                                               ? xp[(size_t)iy * W + ix] : 0.0f;
                        }
                    }
                    sandwich(BT, 4, 4, t, 4, Bm, 4, v);
                    size_t ti = ((size_t)n * d->th + ty) * d->tw + tx;
                    for (int xi = 0; xi < 16; xi++)
                        V[((size_t)xi * C + c) * T + ti] = v[xi];
                }
        }
}

/* Z[xi][k][t] = (A dy_tile A^T)[xi] (dy outside the output is zero) */
static void grad_transform(const struct mb_conv_plan *p, const wino_dims *d, const float *dy,
                           int n0, int nc, float *Z)
{
    const int K = p->s.out_c, OH = p->oh, OW = p->ow;
    const size_t T = (size_t)nc * d->th * d->tw;
    for (int n = 0; n < nc; n++)
        for (int k = 0; k < K; k++) {
            const float *g = dy + ((size_t)(n0 + n) * K + k) * OH * OW;
            for (int ty = 0; ty < d->th; ty++)
                for (int tx = 0; tx < d->tw; tx++) {
                    float t[4], z[16];
                    for (int i = 0; i < 2; i++)
                        for (int j = 0; j < 2; j++) {
                            int oy = 2 * ty + i, ox = 2 * tx + j;
                            t[i * 2 + j] = oy < OH && ox < OW ? g[(size_t)oy * OW + ox] : 0.0f;
                        }
                    sandwich(Am, 4, 2, t, 2, AT, 4, z);
                    size_t ti = ((size_t)n * d->th + ty) * d->tw + tx;
                    for (int xi = 0; xi < 16; xi++)
                        Z[((size_t)xi * K + k) * T + ti] = z[xi];
                }
        }
}

void mb_conv_winograd_forward(const struct mb_conv_plan *p, int batch, const float *x,
                              const float *w, const float *b, float *y, float *ws)
{
    const mb_conv_shape *s = &p->s;
    const wino_dims d = dims(s);
    const int K = s->out_c, C = s->in_c, OH = p->oh, OW = p->ow;
    float *U = ws, *V = U + mb_conv_align16((size_t)16 * K * C);
    float *M = V + mb_conv_align16((size_t)16 * C * d.tiles);
    filter_transform(s, w, U);
    for (int n0 = 0; n0 < batch; n0 += d.chunk) {
        int nc = batch - n0 < d.chunk ? batch - n0 : d.chunk;
        const size_t T = (size_t)nc * d.th * d.tw;
        input_transform(p, &d, x, n0, nc, V);
        for (int xi = 0; xi < 16; xi++)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, K, (int)T, C, 1.0f,
                        U + (size_t)xi * K * C, C, V + (size_t)xi * C * T, (int)T, 0.0f,
                        M + (size_t)xi * K * T, (int)T);
        for (int n = 0; n < nc; n++)
            for (int k = 0; k < K; k++) {
                float *yp = y + ((size_t)(n0 + n) * K + k) * OH * OW;
                for (int ty = 0; ty < d.th; ty++)
                    for (int tx = 0; tx < d.tw; tx++) {
                        size_t ti = ((size_t)n * d.th + ty) * d.tw + tx;
                        float m[16], o[4];
                        for (int xi = 0; xi < 16; xi++)
                            m[xi] = M[((size_t)xi * K + k) * T + ti];
                        sandwich(AT, 2, 4, m, 4, Am, 2, o);
                        for (int i = 0; i < 2; i++)
                            for (int j = 0; j < 2; j++) {
                                int oy = 2 * ty + i, ox = 2 * tx + j;
                                if (oy < OH && ox < OW)
                                    yp[(size_t)oy * OW + ox] = o[i * 2 + j] + (b ? b[k] : 0.0f);
                            }
                    }
            }
    }
}

void mb_conv_winograd_backward_data(const struct mb_conv_plan *p, int batch, const float *dy,
                                    const float *w, float *dx, float *ws)
{
    const mb_conv_shape *s = &p->s;
    const wino_dims d = dims(s);
    const int K = s->out_c, C = s->in_c, H = s->in_h, W = s->in_w;
    float *U = ws, *Wt = U + mb_conv_align16((size_t)16 * K * C);
    float *Z = Wt + mb_conv_align16((size_t)16 * C * d.tiles);
    filter_transform(s, w, U);
    memset(dx, 0, sizeof(float) * batch * C * H * W);
    for (int n0 = 0; n0 < batch; n0 += d.chunk) {
        int nc = batch - n0 < d.chunk ? batch - n0 : d.chunk;
        const size_t T = (size_t)nc * d.th * d.tw;
        grad_transform(p, &d, dy, n0, nc, Z);
        for (int xi = 0; xi < 16; xi++)
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, C, (int)T, K, 1.0f,
                        U + (size_t)xi * K * C, C, Z + (size_t)xi * K * T, (int)T, 0.0f,
                        Wt + (size_t)xi * C * T, (int)T);
        for (int n = 0; n < nc; n++)
            for (int c = 0; c < C; c++) {
                float *xp = dx + ((size_t)(n0 + n) * C + c) * H * W;
                for (int ty = 0; ty < d.th; ty++)
                    for (int tx = 0; tx < d.tw; tx++) {
                        size_t ti = ((size_t)n * d.th + ty) * d.tw + tx;
                        float m[16], o[16];
                        for (int xi = 0; xi < 16; xi++)
                            m[xi] = Wt[((size_t)xi * C + c) * T + ti];
                        sandwich(Bm, 4, 4, m, 4, BT, 4, o);
                        for (int i = 0; i < 4; i++) {
                            int iy = 2 * ty - s->pad + i;
                            if (iy < 0 || iy >= H)
                                continue;
                            for (int j = 0; j < 4; j++) {
                                int ix = 2 * tx - s->pad + j;
                                if (ix >= 0 && ix < W)
                                    xp[(size_t)iy * W + ix] += o[i * 4 + j];
                            }
                        }
                    }
            }
    }
}

void mb_conv_winograd_backward_filter(const struct mb_conv_plan *p, int batch, const float *x,
                                      const float *dy, float *dw, float *db, float *ws)
{
    const mb_conv_shape *s = &p->s;
    const wino_dims d = dims(s);
    const int K = s->out_c, C = s->in_c;
    float *dU = ws, *V = dU + mb_conv_align16((size_t)16 * K * C);
    float *Z = V + mb_conv_align16((size_t)16 * C * d.tiles);
    for (int n0 = 0; n0 < batch; n0 += d.chunk) {
        int nc = batch - n0 < d.chunk ? batch - n0 : d.chunk;
        const size_t T = (size_t)nc * d.th * d.tw;
        input_transform(p, &d, x, n0, nc, V);
        grad_transform(p, &d, dy, n0, nc, Z);
        for (int xi = 0; xi < 16; xi++)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, K, C, (int)T, 1.0f,
                        Z + (size_t)xi * K * T, (int)T, V + (size_t)xi * C * T, (int)T,
                        n0 == 0 ? 0.0f : 1.0f, dU + (size_t)xi * K * C, C);
    }
    const size_t kc = (size_t)K * C;
    for (size_t q = 0; q < kc; q++) {
        float u[16];
        for (int xi = 0; xi < 16; xi++)
            u[xi] = dU[xi * kc + q];
        sandwich(GT, 3, 4, u, 4, Gm, 3, dw + q * 9);
    }
    mb_conv_bias_grad(batch, K, (size_t)p->oh * p->ow, dy, db);
}
