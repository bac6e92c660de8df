/* batchnorm.c — the CPU's batch normalisation kernels (Ioffe and Szegedy 2015, Algorithm 1 and
 * its backward pass) and the strided row copy that add and concat are made of. The batch
 * statistics of a shard are partial sums in double; net.c adds the shards' sums and hands the
 * batch's mean and 1/sqrt(var + eps) back, so a batch split over threads normalises with the
 * statistics of the whole batch. No allocation, no globals.
 */
#include "layers_impl.h"

#include <string.h>

void mb_layer_bn_stats(int batch, int C, size_t hw, const float *x, double *sum, double *sumsq)
{
    for (int c = 0; c < C; c++)
        sum[c] = sumsq[c] = 0.0;
    for (int n = 0; n < batch; n++)
        for (int c = 0; c < C; c++) {
            const float *p = x + ((size_t)n * C + c) * hw;
            double s = 0.0, q = 0.0;
            for (size_t i = 0; i < hw; i++) {
                s += p[i];
                q += (double)p[i] * p[i];
            }
            sum[c] += s;
            sumsq[c] += q;
        }
}

void mb_layer_bn_apply(int batch, int C, size_t hw, const float *x, const float *mean,
                       const float *invstd, const float *gamma, const float *beta, float *y)
{
    for (int n = 0; n < batch; n++)
        for (int c = 0; c < C; c++) {
            const size_t o = ((size_t)n * C + c) * hw;
            const float a = gamma[c] * invstd[c], b = beta[c] - a * mean[c];
            const float *restrict p = x + o;
            float *restrict q = y + o;
            for (size_t i = 0; i < hw; i++)
                q[i] = a * p[i] + b;
        }
}

void mb_layer_bn_backward_sums(int batch, int C, size_t hw, const float *x, const float *dy,
                               const float *mean, const float *invstd, double *sum_dy,
                               double *sum_dy_xhat)
{
    for (int c = 0; c < C; c++)
        sum_dy[c] = sum_dy_xhat[c] = 0.0;
    for (int n = 0; n < batch; n++)
        for (int c = 0; c < C; c++) {
            const size_t o = ((size_t)n * C + c) * hw;
            const float m = mean[c], is = invstd[c];
            double s = 0.0, q = 0.0;
            for (size_t i = 0; i < hw; i++) {
                s += dy[o + i];
                q += (double)dy[o + i] * ((x[o + i] - m) * is);
            }
            sum_dy[c] += s;
            sum_dy_xhat[c] += q;
        }
}

void mb_layer_bn_backward_data(int batch, int C, size_t hw, const float *x, const float *dy,
                               const float *mean, const float *invstd, const float *gamma,
                               const float *mean_dy, const float *mean_dy_xhat, float *dx)
{
    for (int n = 0; n < batch; n++)
        for (int c = 0; c < C; c++) {
            const size_t o = ((size_t)n * C + c) * hw;
            const float m = mean[c], is = invstd[c], g = gamma[c] * is, md = mean_dy[c],
                        mx = mean_dy_xhat[c];
            const float *restrict xp = x + o, *restrict dp = dy + o;
            float *restrict q = dx + o;
            for (size_t i = 0; i < hw; i++)
                q[i] = g * (dp[i] - md - (xp[i] - m) * is * mx);
        }
}

void mb_layer_copy_rows(size_t rows, size_t len, const float *src, size_t sstride, float *dst,
                        size_t dstride, int accumulate)
{
    for (size_t r = 0; r < rows; r++) {
        const float *restrict s = src + r * sstride;
        float *restrict d = dst + r * dstride;
        if (accumulate)
            for (size_t i = 0; i < len; i++)
                d[i] += s[i];
        else
            memcpy(d, s, len * sizeof *d);
    }
}
