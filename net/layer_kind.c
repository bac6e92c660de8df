/* layer_kind.c — the layer-type table's description half (layer_kind.h): for every
 * mb_layer_type, its cfg section, keys, inputs, output shape, the parameters and state it holds
 * and what the memory model counts it as. The shape checks that used
 * to be a switch in desc_infer.c live here, one function per kind; desc_infer.c walks the graph
 * and calls them. Not here: parsing (desc_read.c), the passes (train/learner/layer_ops.c), kernels
 * (train/backend/), the wiring of layers into a network (train/learner/net.c).
 */
#include "layer_kind.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* Convolution and pooling: a k x k window with stride and zero padding. */
static int window_out(mb_layer_desc *l, const mb_shape *in, char *why, size_t wn)
{
    if (l->size < 1 || l->stride < 1 || l->pad < 0)
        return snprintf(why, wn, "size %d, stride %d, pad %d: need size >= 1, stride >= 1, "
                        "pad >= 0", l->size, l->stride, l->pad), MB_EFORMAT;
    const long long ph = (long long)in->h + 2LL * l->pad, pw = (long long)in->w + 2LL * l->pad;
    if (ph < l->size || pw < l->size)
        return snprintf(why, wn, "kernel %d is larger than the padded input %lldx%lld", l->size,
                        ph, pw), MB_EFORMAT;
    if (ph > INT_MAX || pw > INT_MAX)
        return snprintf(why, wn, "padded input %lldx%lld: sides past 2^31", ph, pw), MB_EFORMAT;
    l->out_h = (int)((ph - l->size) / l->stride + 1);
    l->out_w = (int)((pw - l->size) / l->stride + 1);
    return MB_OK;
}

static int infer_conv(mb_layer_desc *l, const mb_shape *in, int n, char *why, size_t wn)
{
    (void)n;
    if (l->size < 1 || l->stride < 1 || l->pad < 0)
        return window_out(l, in, why, wn);
    if (l->filters < 1)
        return snprintf(why, wn, "filters %d: need >= 1", l->filters), MB_EFORMAT;
    if (l->algo < MB_CONV_AUTO || l->algo >= MB_CONV_N_ALGOS)
        return snprintf(why, wn, "unknown convolution algorithm %d", l->algo), MB_EFORMAT;
    int rc = window_out(l, in, why, wn);
    l->out_c = l->filters;
    /* the kernels count the weights, F x C x K x K, in an int (a double: no overflow here) */
    if (rc == MB_OK && (double)in->c * l->size * l->size * l->filters > INT_MAX)
        return snprintf(why, wn, "its weights' F x C x K x K are more than 2^31"), MB_EFORMAT;
    return rc;
}

static int infer_pool(mb_layer_desc *l, const mb_shape *in, int n, char *why, size_t wn)
{
    (void)n;
    if (l->size >= 1 && l->stride >= 1 && l->pad >= l->size)
        return snprintf(why, wn, "pad %d must be smaller than size %d", l->pad, l->size),
               MB_EFORMAT;
    l->out_c = in->c;
    return window_out(l, in, why, wn);
}

static int infer_fc(mb_layer_desc *l, const mb_shape *in, int n, char *why, size_t wn)
{
    (void)n;
    if (l->filters < 1)
        return snprintf(why, wn, "outputs %d: need >= 1", l->filters), MB_EFORMAT;
    /* the weights are counted in an int too (and 2^31 floats are 8 GiB) */
    if ((double)in->c * in->h * in->w * l->filters > INT_MAX)
        return snprintf(why, wn, "%lld inputs x %d outputs: more than 2^31 weights",
                        (long long)in->c * in->h * in->w, l->filters), MB_EFORMAT;
    l->out_c = l->filters, l->out_h = 1, l->out_w = 1;
    return MB_OK;
}

/* Activations, batch normalisation: the output has the input's shape. */
static int infer_same(mb_layer_desc *l, const mb_shape *in, int n, char *why, size_t wn)
{
    (void)n, (void)why, (void)wn;
    l->out_c = in->c, l->out_h = in->h, l->out_w = in->w;
    return MB_OK;
}

static int infer_dropout(mb_layer_desc *l, const mb_shape *in, int n, char *why, size_t wn)
{
    if (!(l->p >= 0.0f && l->p < 1.0f))
        return snprintf(why, wn, "p = %g: need 0 <= p < 1", (double)l->p), MB_EFORMAT;
    return infer_same(l, in, n, why, wn);
}

static int infer_softmax(mb_layer_desc *l, const mb_shape *in, int n, char *why, size_t wn)
{
    (void)n;
    long long v = (long long)in->c * in->h * in->w;
    if (v < 2)
        return snprintf(why, wn, "softmax over %lld value(s): need >= 2", v), MB_EFORMAT;
    l->out_c = (int)v, l->out_h = 1, l->out_w = 1;
    return MB_OK;
}

/* Residual addition: every input has the first one's shape. */
static int infer_add(mb_layer_desc *l, const mb_shape *in, int n, char *why, size_t wn)
{
    for (int k = 1; k < n; k++)
        if (in[k].c != in[0].c || in[k].h != in[0].h || in[k].w != in[0].w)
            return snprintf(why, wn, "add of %dx%dx%d and %dx%dx%d: the shapes must match",
                            in[0].c, in[0].h, in[0].w, in[k].c, in[k].h, in[k].w), MB_EFORMAT;
    return infer_same(l, in, n, why, wn);
}

/* Channel concatenation: one height and width, channels summed in input order. */
static int infer_concat(mb_layer_desc *l, const mb_shape *in, int n, char *why, size_t wn)
{
    long long c = 0;
    for (int k = 0; k < n; k++) {
        if (in[k].h != in[0].h || in[k].w != in[0].w)
            return snprintf(why, wn, "concat of %dx%dx%d and %dx%dx%d: heights and widths must "
                            "match", in[0].c, in[0].h, in[0].w, in[k].c, in[k].h, in[k].w),
                   MB_EFORMAT;
        c += in[k].c;
    }
    if (c > INT_MAX)
        return snprintf(why, wn, "concat of %lld channels: more than 2^31", c), MB_EFORMAT;
    l->out_c = (int)c, l->out_h = in[0].h, l->out_w = in[0].w;
    return MB_OK;
}

static size_t in_values(const mb_layer_desc *l)
{
    return (size_t)l->in_c * l->in_h * l->in_w;
}

static size_t no_floats(const mb_layer_desc *l)
{
    (void)l;
    return 0;
}

/* one bias per output channel (conv, fc), or BN's beta */
static size_t per_channel(const mb_layer_desc *l)
{
    return (size_t)l->out_c;
}

static size_t params_conv(const mb_layer_desc *l)
{
    return (size_t)l->out_c * l->in_c * l->size * l->size + (size_t)l->out_c;
}

static size_t params_fc(const mb_layer_desc *l)
{
    return (size_t)l->out_c * in_values(l) + (size_t)l->out_c;
}

/* gamma and beta per channel; the running mean and variance per channel */
static size_t two_per_channel(const mb_layer_desc *l)
{
    return 2 * (size_t)l->out_c;
}

#define WINDOW (LK_SIZE | LK_STRIDE | LK_PAD | LK_INPUT | LK_FROM)
#define NONE .params = no_floats, .biases = no_floats, .state = no_floats
static const mb_layer_kind kinds[MB_LAYER_N_TYPES] = {
    [MB_LAYER_CONV] = {MB_LAYER_CONV, "conv", .keys = WINDOW | LK_FILTERS | LK_ALGO | LK_ACTIVATION,
                       .needs = LK_FILTERS | LK_SIZE, .min_inputs = 1, .max_inputs = 1,
                       .infer = infer_conv, .params = params_conv, .biases = per_channel,
                       .state = no_floats, .mem = MB_MEM_CONV},
    [MB_LAYER_MAXPOOL] = {MB_LAYER_MAXPOOL, "maxpool", .keys = WINDOW, .needs = LK_SIZE,
                          .min_inputs = 1, .max_inputs = 1, .stride_is_size = 1,
                          .infer = infer_pool, NONE, .mem = MB_MEM_POOL},
    [MB_LAYER_AVGPOOL] = {MB_LAYER_AVGPOOL, "avgpool", .keys = WINDOW, .needs = LK_SIZE,
                          .min_inputs = 1, .max_inputs = 1, .stride_is_size = 1,
                          .infer = infer_pool, NONE, .mem = MB_MEM_POOL},
    [MB_LAYER_FC] = {MB_LAYER_FC, "fc", .keys = LK_OUTPUTS | LK_ACTIVATION | LK_INPUT | LK_FROM,
                     .needs = LK_OUTPUTS, .min_inputs = 1, .max_inputs = 1, .infer = infer_fc,
                     .params = params_fc, .biases = per_channel, .state = no_floats, .mem = MB_MEM_FC},
    [MB_LAYER_RELU] = {MB_LAYER_RELU, "relu", .keys = LK_FROM, .min_inputs = 1, .max_inputs = 1,
                       .infer = infer_same, NONE, .mem = MB_MEM_ELEMENTWISE},
    [MB_LAYER_TANH] = {MB_LAYER_TANH, "tanh", .keys = LK_FROM, .min_inputs = 1, .max_inputs = 1,
                       .infer = infer_same, NONE, .mem = MB_MEM_ELEMENTWISE},
    [MB_LAYER_SIGMOID] = {MB_LAYER_SIGMOID, "sigmoid", .keys = LK_FROM, .min_inputs = 1,
                          .max_inputs = 1, .infer = infer_same, NONE,
                          .mem = MB_MEM_ELEMENTWISE},
    [MB_LAYER_DROPOUT] = {MB_LAYER_DROPOUT, "dropout", .keys = LK_P | LK_FROM, .min_inputs = 1,
                          .max_inputs = 1, .infer = infer_dropout, NONE,
                          .mem = MB_MEM_ELEMENTWISE},
    /* the loss: net.c runs it after the forward pass */
    [MB_LAYER_SOFTMAX] = {MB_LAYER_SOFTMAX, "softmax", .min_inputs = 1, .max_inputs = 1,
                          .last = 1, .infer = infer_softmax, NONE, .mem = MB_MEM_ELEMENTWISE},
    [MB_LAYER_BATCHNORM] = {MB_LAYER_BATCHNORM, "batchnorm", .keys = LK_ACTIVATION | LK_FROM,
                            .min_inputs = 1, .max_inputs = 1, .infer = infer_same,
                            .params = two_per_channel, .biases = per_channel,
                            .state = two_per_channel, .mem = MB_MEM_BN},
    [MB_LAYER_ADD] = {MB_LAYER_ADD, "add", .keys = LK_ACTIVATION | LK_FROM, .needs = LK_FROM,
                      .min_inputs = 2, .max_inputs = MB_LAYER_MAX_INPUTS, .infer = infer_add,
                      NONE, .mem = MB_MEM_JOIN},
    [MB_LAYER_CONCAT] = {MB_LAYER_CONCAT, "concat", .keys = LK_ACTIVATION | LK_FROM,
                         .needs = LK_FROM, .min_inputs = 2, .max_inputs = MB_LAYER_MAX_INPUTS,
                         .infer = infer_concat, NONE, .mem = MB_MEM_JOIN},
};


const mb_layer_kind *mb_layer_kind_of(mb_layer_type t)
{
    return (unsigned)t < MB_LAYER_N_TYPES ? &kinds[t] : NULL;
}

int mb_layer_kind_find(const char *name)
{
    for (int t = 0; t < MB_LAYER_N_TYPES; t++)
        if (strcmp(kinds[t].name, name) == 0)
            return t;
    return -1;
}

const char *mb_layer_kind_list(void)
{
    return "net, conv, maxpool, avgpool, fc, dropout, relu, tanh, sigmoid, softmax, batchnorm, "
           "add, concat";
}

const char *mb_layer_type_name(mb_layer_type t)
{
    const mb_layer_kind *k = mb_layer_kind_of(t);
    return k ? k->name : "?";
}

size_t mb_layer_param_count(const mb_layer_desc *l)
{
    const mb_layer_kind *k = mb_layer_kind_of(l->type);
    return k ? k->params(l) : 0;
}

mb_mem_kind mb_layer_mem_kind(mb_layer_type t)
{
    const mb_layer_kind *k = mb_layer_kind_of(t);
    return k ? k->mem : MB_MEM_ELEMENTWISE;
}

size_t mb_layer_state_count(const mb_layer_desc *l)
{
    const mb_layer_kind *k = mb_layer_kind_of(l->type);
    return k ? k->state(l) : 0;
}
