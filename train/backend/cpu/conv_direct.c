/* conv_direct.c — convolution by plain nested loops, the reference the other algorithms are
 * tested against: forward, backward-data and backward-filter, no workspace, single thread,
 * sums in double. Slow by design; it does not vectorise or block.
 */
#include "conv_impl.h"

#include <string.h>

void mb_conv_direct_forward(const struct mb_conv_plan *p, int batch, const float *x,
                            const float *w, const float *b, float *y)
{
    const mb_conv_shape *s = &p->s;
    const int C = s->in_c, H = s->in_h, W = s->in_w, K = s->out_c, F = s->k;
    for (int n = 0; n < batch; n++)
        for (int o = 0; o < K; o++)
            for (int oy = 0; oy < p->oh; oy++)
                for (int ox = 0; ox < p->ow; ox++) {
                    double acc = b ? b[o] : 0.0;
                    for (int c = 0; c < C; c++)
                        for (int i = 0; i < F; i++) {
                            int iy = oy * s->stride - s->pad + i;
                            if (iy < 0 || iy >= H)
                                continue;
                            for (int j = 0; j < F; j++) {
                                int ix = ox * s->stride - s->pad + j;
                                if (ix < 0 || ix >= W)
                                    continue;
                                acc += (double)x[(((size_t)n * C + c) * H + iy) * W + ix] *
                                       w[(((size_t)o * C + c) * F + i) * F + j];
                            }
                        }
                    y[(((size_t)n * K + o) * p->oh + oy) * p->ow + ox] = (float)acc;
                }
}

void mb_conv_direct_backward_data(const struct mb_conv_plan *p, int batch, const float *dy,
                                  const float *w, float *dx)
{
    const mb_conv_shape *s = &p->s;
    const int C = s->in_c, H = s->in_h, W = s->in_w, K = s->out_c, F = s->k;
    /* Gather form: each dx element sums the outputs that read it. */
    for (int n = 0; n < batch; n++)
        for (int c = 0; c < C; c++)
            for (int iy = 0; iy < H; iy++)
                for (int ix = 0; ix < W; ix++) {
                    double acc = 0.0;
                    for (int i = 0; i < F; i++) {
                        int ty = iy + s->pad - i;
                        if (ty < 0 || ty % s->stride || ty / s->stride >= p->oh)
                            continue;
                        for (int j = 0; j < F; j++) {
                            int tx = ix + s->pad - j;
                            if (tx < 0 || tx % s->stride || tx / s->stride >= p->ow)
                                continue;
                            for (int o = 0; o < K; o++)
                                acc += (double)dy[(((size_t)n * K + o) * p->oh + ty / s->stride) *
                                                      p->ow + tx / s->stride] *
                                       w[(((size_t)o * C + c) * F + i) * F + j];
                        }
                    }
                    dx[(((size_t)n * C + c) * H + iy) * W + ix] = (float)acc;
                }
}

void mb_conv_direct_backward_filter(const struct mb_conv_plan *p, int batch, const float *x,
                                    const float *dy, float *dw, float *db)
{
    const mb_conv_shape *s = &p->s;
    const int C = s->in_c, H = s->in_h, W = s->in_w, K = s->out_c, F = s->k;
    for (int o = 0; o < K; o++)
        for (int c = 0; c < C; c++)
            for (int i = 0; i < F; i++)
                for (int j = 0; j < F; j++) {
                    double acc = 0.0;
                    for (int n = 0; n < batch; n++)
                        for (int oy = 0; oy < p->oh; oy++) {
                            int iy = oy * s->stride - s->pad + i;
                            if (iy < 0 || iy >= H)
                                continue;
                            for (int ox = 0; ox < p->ow; ox++) {
                                int ix = ox * s->stride - s->pad + j;
                                if (ix < 0 || ix >= W)
                                    continue;
                                acc += (double)x[(((size_t)n * C + c) * H + iy) * W + ix] *
                                       dy[(((size_t)n * K + o) * p->oh + oy) * p->ow + ox];
                            }
                        }
                    dw[(((size_t)o * C + c) * F + i) * F + j] = (float)acc;
                }
    mb_conv_bias_grad(batch, K, (size_t)p->oh * p->ow, dy, db);
}
