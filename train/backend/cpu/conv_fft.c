/* conv_fft.c — convolution by FFTW (float) transforms: each padded input plane and each filter
 * is transformed once per image (filters once per call) to an N0 x N1 grid (the padded input's
 * size rounded up to a 2^a 3^b 5^c 7^d product, so circular wrap-around never reaches the outputs
 * used), products summed over channels in the frequency domain, one inverse transform per output
 * plane. Forward: IFFT(sum_c X_c conj(W_kc)) sampled at the stride; backward-data:
 * IFFT(sum_k DYu_k W_kc) with DYu the stride-upsampled gradient, cropped by the padding;
 * backward-filter: IFFT(sum_n X_c conj(DYu_k)) at lags 0..k-1. The two FFTW plans (r2c, c2r) are
 * made once per shape by mb_conv_fft_init (FFTW_ESTIMATE; FFTW's planner is not thread-safe) and
 * run with fftwf_execute_dft_* on 64-byte aligned workspace planes. Single thread.
 */
#include "conv_impl.h"

#include <fftw3.h>
#include <stdlib.h>
#include <string.h>

typedef struct fft_plans {
    int n0, n1;          /* transform size (rows, columns) */
    int nc;              /* complex columns: n1 / 2 + 1 */
    size_t rplane;       /* floats per real plane in the workspace (aligned) */
    size_t cplane;       /* floats per complex plane (2 per value, aligned) */
    fftwf_plan r2c, c2r; /* forward and inverse 2-D transforms of one plane */
} fft_plans;

/* Smallest 2^a 3^b 5^c 7^d >= n. */
static int good_size(int n)
{
    for (int m = n;; m++) {
        int r = m;
        for (int f = 2; f <= 7; f++)
            while (r % f == 0)
                r /= f;
        if (r == 1)
            return m;
    }
}

static void sizes(const mb_conv_shape *s, fft_plans *f)
{
    f->n0 = good_size(s->in_h + 2 * s->pad);
    f->n1 = good_size(s->in_w + 2 * s->pad);
    f->nc = f->n1 / 2 + 1;
    f->rplane = mb_conv_align16((size_t)f->n0 * f->n1);
    f->cplane = mb_conv_align16((size_t)2 * f->n0 * f->nc);
}

int mb_conv_fft_init(struct mb_conv_plan *p)
{
    fft_plans *f = calloc(1, sizeof *f);
    if (!f)
        return MB_ENOMEM;
    sizes(&p->s, f);
    float *r = fftwf_malloc(sizeof(float) * f->rplane);
    fftwf_complex *c = fftwf_malloc(sizeof(float) * f->cplane);
    if (r && c) {
        f->r2c = fftwf_plan_dft_r2c_2d(f->n0, f->n1, r, c, FFTW_ESTIMATE);
        f->c2r = fftwf_plan_dft_c2r_2d(f->n0, f->n1, c, r, FFTW_ESTIMATE);
    }
    fftwf_free(r);
    fftwf_free(c);
    if (!f->r2c || !f->c2r) {
        if (f->r2c)
            fftwf_destroy_plan(f->r2c);
        if (f->c2r)
            fftwf_destroy_plan(f->c2r);
        free(f);
        return MB_ENOMEM;
    }
    p->fft = f;
    return MB_OK;
}

void mb_conv_fft_fini(struct mb_conv_plan *p)
{
    fft_plans *f = p->fft;
    if (!f)
        return;
    fftwf_destroy_plan(f->r2c);
    fftwf_destroy_plan(f->c2r);
    free(f);
    p->fft = NULL;
}

size_t mb_conv_fft_workspace(mb_conv_pass pass, const mb_conv_shape *s)
{
    (void)pass; /* K*C filter planes, C input planes, K gradient planes, one accumulator, one
                   real plane: the same in every pass */
    fft_plans f;
    sizes(s, &f);
    size_t K = (size_t)s->out_c, C = (size_t)s->in_c;
    return ((K * C + C + K + 1) * f.cplane + f.rplane) * sizeof(float);
}

/* Transforms the h x w plane src, placed at (oy, ox) in a zero grid with steps (sy, sx) between
 * source pixels, into dst. */
static void forward_plane(const fft_plans *f, float *real, const float *src, int h, int w, int oy,
                          int ox, int step, float *dst)
{
    memset(real, 0, sizeof(float) * f->n0 * f->n1);
    for (int i = 0; i < h; i++)
        for (int j = 0; j < w; j++)
            real[(size_t)(oy + i * step) * f->n1 + ox + j * step] = src[(size_t)i * w + j];
    fftwf_execute_dft_r2c(f->r2c, real, (fftwf_complex *)dst);
}

/* acc (+)= a * b or a * conj(b) over one complex plane. */
static void mul_acc(const fft_plans *f, const float *a, const float *b, float *acc, int conj,
                    int first)
{
    const size_t n = (size_t)f->n0 * f->nc;
    const float sg = conj ? -1.0f : 1.0f;
    for (size_t i = 0; i < n; i++) {
        float ar = a[2 * i], ai = a[2 * i + 1], br = b[2 * i], bi = sg * b[2 * i + 1];
        float re = ar * br - ai * bi, im = ar * bi + ai * br;
        if (first)
            acc[2 * i] = re, acc[2 * i + 1] = im;
        else
            acc[2 * i] += re, acc[2 * i + 1] += im;
    }
}

static void filter_planes(const struct mb_conv_plan *p, const fft_plans *f, const float *w,
                          float *Wf, float *real)
{
    const size_t kc = (size_t)p->s.out_c * p->s.in_c;
    const int F = p->s.k;
    for (size_t q = 0; q < kc; q++)
        forward_plane(f, real, w + q * F * F, F, F, 0, 0, 1, Wf + q * f->cplane);
}

void mb_conv_fft_forward(const struct mb_conv_plan *p, int batch, const float *x, const float *w,
                         const float *b, float *y, float *ws)
{
    const fft_plans *f = p->fft;
    const mb_conv_shape *s = &p->s;
    const int K = s->out_c, C = s->in_c, H = s->in_h, W = s->in_w, S = s->stride;
    float *Wf = ws, *Xf = Wf + (size_t)K * C * f->cplane, *acc = Xf + (size_t)(C + K) * f->cplane;
    float *real = acc + f->cplane;
    const float scale = 1.0f / ((float)f->n0 * f->n1);
    filter_planes(p, f, w, Wf, real);
    for (int n = 0; n < batch; n++) {
        for (int c = 0; c < C; c++)
            forward_plane(f, real, x + ((size_t)n * C + c) * H * W, H, W, s->pad, s->pad, 1,
                          Xf + (size_t)c * f->cplane);
        for (int k = 0; k < K; k++) {
            for (int c = 0; c < C; c++)
                mul_acc(f, Xf + (size_t)c * f->cplane, Wf + ((size_t)k * C + c) * f->cplane, acc,
                        1, c == 0);
            fftwf_execute_dft_c2r(f->c2r, (fftwf_complex *)acc, real);
            float *yp = y + ((size_t)n * K + k) * p->oh * p->ow;
            for (int oy = 0; oy < p->oh; oy++)
                for (int ox = 0; ox < p->ow; ox++)
                    yp[oy * p->ow + ox] =
                        real[(size_t)oy * S * f->n1 + (size_t)ox * S] * scale + (b ? b[k] : 0.0f);
        }
    }
}

void mb_conv_fft_backward_data(const struct mb_conv_plan *p, int batch, const float *dy,
                               const float *w, float *dx, float *ws)
{
    const fft_plans *f = p->fft;
    const mb_conv_shape *s = &p->s;
    const int K = s->out_c, C = s->in_c, H = s->in_h, W = s->in_w;
    float *Wf = ws, *DYf = Wf + (size_t)K * C * f->cplane + (size_t)C * f->cplane;
    float *acc = DYf + (size_t)K * f->cplane, *real = acc + f->cplane;
    const float scale = 1.0f / ((float)f->n0 * f->n1);
    filter_planes(p, f, w, Wf, real);
    for (int n = 0; n < batch; n++) {
        for (int k = 0; k < K; k++)
            forward_plane(f, real, dy + ((size_t)n * K + k) * p->oh * p->ow, p->oh, p->ow, 0, 0,
                          s->stride, DYf + (size_t)k * f->cplane);
        for (int c = 0; c < C; c++) {
            for (int k = 0; k < K; k++)
                mul_acc(f, DYf + (size_t)k * f->cplane, Wf + ((size_t)k * C + c) * f->cplane, acc,
                        0, k == 0);
            fftwf_execute_dft_c2r(f->c2r, (fftwf_complex *)acc, real);
            float *xp = dx + ((size_t)n * C + c) * H * W;
            for (int iy = 0; iy < H; iy++)
                for (int ix = 0; ix < W; ix++)
                    xp[iy * W + ix] = real[(size_t)(iy + s->pad) * f->n1 + ix + s->pad] * scale;
        }
    }
}

void mb_conv_fft_backward_filter(const struct mb_conv_plan *p, int batch, const float *x,
                                 const float *dy, float *dw, float *db, float *ws)
{
    const fft_plans *f = p->fft;
    const mb_conv_shape *s = &p->s;
    const int K = s->out_c, C = s->in_c, H = s->in_h, W = s->in_w, F = s->k;
    float *accW = ws, *Xf = accW + (size_t)K * C * f->cplane, *DYf = Xf + (size_t)C * f->cplane;
    float *real = DYf + (size_t)(K + 1) * f->cplane;
    const float scale = 1.0f / ((float)f->n0 * f->n1);
    for (int n = 0; n < batch; n++) {
        for (int c = 0; c < C; c++)
            forward_plane(f, real, x + ((size_t)n * C + c) * H * W, H, W, s->pad, s->pad, 1,
                          Xf + (size_t)c * f->cplane);
        for (int k = 0; k < K; k++) {
            forward_plane(f, real, dy + ((size_t)n * K + k) * p->oh * p->ow, p->oh, p->ow, 0, 0,
                          s->stride, DYf);
            for (int c = 0; c < C; c++)
                mul_acc(f, Xf + (size_t)c * f->cplane, DYf, accW + ((size_t)k * C + c) * f->cplane,
                        1, n == 0);
        }
    }
    for (size_t q = 0; q < (size_t)K * C; q++) {
        fftwf_execute_dft_c2r(f->c2r, (fftwf_complex *)(accW + q * f->cplane), real);
        for (int i = 0; i < F; i++)
            for (int j = 0; j < F; j++)
                dw[q * F * F + i * F + j] = real[(size_t)i * f->n1 + j] * scale;
    }
    mb_conv_bias_grad(batch, K, (size_t)p->oh * p->ow, dy, db);
}
