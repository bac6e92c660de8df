/* conv.c — the vocabulary of convolutions that descriptions, the trainer, the probes and the
 * solver share: the names of the CPU's algorithms and of the three passes, whether a description
 * has a convolution at all, and a convolution's output shape. No arithmetic on tensors
 * (train/backend/cpu/ and cuda/ compute).
 */
#include "mb_net.h"

#include <string.h>

static const char *const algo_names[MB_CONV_N_ALGOS] = {"gemm", "direct", "fft", "winograd"};

const char *mb_conv_algo_name(mb_conv_algo algo)
{
    if (algo == MB_CONV_AUTO)
        return "auto";
    return (algo >= 0 && algo < MB_CONV_N_ALGOS) ? algo_names[algo] : "unknown";
}

const char *mb_conv_algo_nth(int k)
{
    return k >= 0 && k < MB_CONV_N_ALGOS ? algo_names[k] : NULL;
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

int mb_net_desc_need_conv(const mb_net_desc *desc, mb_error *err)
{
    for (size_t i = 0; i < desc->n_layers; i++)
        if (desc->layers[i].type == MB_LAYER_CONV)
            return MB_OK;
    return mb_error_set(err, MB_EINVAL, "net '%s' has no convolution layer", desc->name);
}

int mb_net_desc_check_conv_algo(const mb_net_desc *desc, mb_conv_algo asked, mb_error *err)
{
    mb_error none = {0};
    if (asked == MB_CONV_AUTO || mb_net_desc_need_conv(desc, &none) == MB_OK)
        return MB_OK;
    return mb_error_set(err, MB_EUSAGE, "--conv-algo has no effect: %s", none.msg);
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
