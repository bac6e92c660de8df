/* conv_common.c — what the convolution algorithms share: their names, output shapes, the bias
 * gradient and 64-byte aligned buffers. The dispatch to conv_gemm.c, conv_direct.c, conv_fft.c
 * and conv_winograd.c is conv.c, above them.
 */
#include "conv_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const algo_names[MB_CONV_N_ALGOS] = {"gemm", "direct", "fft", "winograd"};

const char *mb_conv_algo_name(mb_conv_algo algo)
{
    if (algo == MB_CONV_AUTO)
        return "auto";
    return (algo >= 0 && algo < MB_CONV_N_ALGOS) ? algo_names[algo] : "unknown";
}

int mb_conv_algo_parse(const char *name, mb_conv_algo *algo)
{
    for (int a = 0; a < MB_CONV_N_ALGOS && name; a++)
        if (strcmp(name, algo_names[a]) == 0) {
            *algo = (mb_conv_algo)a;
            return MB_OK;
        }
    return MB_EINVAL;
}

const char *mb_conv_pass_name(mb_conv_pass pass)
{
    switch (pass) {
    case MB_PASS_FORWARD: return "forward";
    case MB_PASS_BACKWARD_DATA: return "backward_data";
    case MB_PASS_BACKWARD_FILTER: return "backward_filter";
    }
    return "unknown";
}

int mb_conv_out_h(const mb_conv_shape *s)
{
    return s->stride > 0 ? (s->in_h + 2 * s->pad - s->k) / s->stride + 1 : 0;
}

int mb_conv_out_w(const mb_conv_shape *s)
{
    return s->stride > 0 ? (s->in_w + 2 * s->pad - s->k) / s->stride + 1 : 0;
}

void mb_conv_bias_grad(int batch, int k, size_t plane, const float *dy, float *db)
{
    /* eight float partial sums per plane (vectorisable), planes summed in double */
    for (int o = 0; o < k; o++) {
        double acc = 0.0;
        for (int n = 0; n < batch; n++) {
            const float *d = dy + ((size_t)n * k + o) * plane;
            float part[8] = {0};
            size_t i = 0;
            for (; i + 8 <= plane; i += 8)
                for (int j = 0; j < 8; j++)
                    part[j] += d[i + j];
            for (; i < plane; i++)
                part[0] += d[i];
            for (int j = 0; j < 8; j++)
                acc += part[j];
        }
        db[o] = (float)acc;
    }
}

void *mb_train_alloc64(size_t bytes)
{
    bytes = (bytes + 63) & ~(size_t)63;
    return aligned_alloc(64, bytes ? bytes : 64);
}
