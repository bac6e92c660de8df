/* conv_common.c — what the convolution algorithms share: the bias gradient and 64-byte aligned
 * buffers (their names and output shapes are net/conv.c's). The dispatch to conv_gemm.c, conv_direct.c, conv_fft.c
 * and conv_winograd.c is conv.c, above them.
 */
#include "conv_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
