/* desc_infer.c — shape inference for network descriptions: fills every layer's input and output
 * shape from the network's input shape and checks that the layers chain (sides >= 1, sensible
 * kernel, stride, pad and dropout values, exactly one softmax, last), or of a layer list
 * ([net] graph=none: a layer may give its own input shape, no softmax needed). Reading .cfg files is
 * desc_read.c's job, not this file's.
 */
#include "mb_train.h"

#include <limits.h>
#include <stdio.h>

/* "layer 3 'conv2' (line 12)" or without the line when the layer was built in code. */
static const char *where(const mb_layer_desc *l, size_t i, char *buf, size_t n)
{
    if (l->line > 0)
        snprintf(buf, n, "line %d: layer %zu '%s'", l->line, i, l->name);
    else
        snprintf(buf, n, "layer %zu '%s'", i, l->name);
    return buf;
}

int mb_net_desc_infer(mb_net_desc *desc, mb_error *err)
{
    if (desc && desc->layer_list)
        return mb_error_set(err, MB_EFORMAT,
                            "network '%s' is a layer list ([net] graph=none): shapes for the "
                            "memory model and the probes, not a network that can be trained",
                            desc->name);
    return mb_net_desc_infer_list(desc, err);
}

int mb_net_desc_infer_list(mb_net_desc *desc, mb_error *err)
{
    char w[96];
    if (!desc || desc->n_layers == 0 || !desc->layers)
        return mb_error_set(err, MB_EFORMAT, "network '%s': no layers",
                            desc ? desc->name : "?");
    if (desc->in_c < 1 || desc->in_h < 1 || desc->in_w < 1)
        return mb_error_set(err, MB_EFORMAT,
                            "network '%s': input shape %dx%dx%d: channels, height and width must "
                            "be >= 1", desc->name, desc->in_c, desc->in_h, desc->in_w);
    if ((double)desc->in_c * desc->in_h * desc->in_w > INT_MAX)
        return mb_error_set(err, MB_EFORMAT, "network '%s': input shape %dx%dx%d: more than 2^31 "
                            "values a sample", desc->name, desc->in_c, desc->in_h, desc->in_w);
    int c = desc->in_c, h = desc->in_h, wd = desc->in_w;
    for (size_t i = 0; i < desc->n_layers; i++) {
        mb_layer_desc *l = &desc->layers[i];
        if (l->given_c > 0) {
            if (!desc->layer_list || l->given_h < 1 || l->given_w < 1)
                return mb_error_set(err, MB_EFORMAT,
                                    "%s: an input shape %dx%dx%d needs [net] graph=none and "
                                    "sides >= 1", where(l, i, w, sizeof w), l->given_c,
                                    l->given_h, l->given_w);
            c = l->given_c, h = l->given_h, wd = l->given_w;
        }
        l->in_c = c, l->in_h = h, l->in_w = wd;
        switch (l->type) {
        case MB_LAYER_CONV:
        case MB_LAYER_MAXPOOL:
        case MB_LAYER_AVGPOOL:
            if (l->size < 1 || l->stride < 1 || l->pad < 0)
                return mb_error_set(err, MB_EFORMAT,
                                    "%s: size %d, stride %d, pad %d: need size >= 1, stride >= 1, "
                                    "pad >= 0", where(l, i, w, sizeof w), l->size, l->stride,
                                    l->pad);
            if (l->type != MB_LAYER_CONV && l->pad >= l->size)
                return mb_error_set(err, MB_EFORMAT, "%s: pad %d must be smaller than size %d",
                                    where(l, i, w, sizeof w), l->pad, l->size);
            if (l->type == MB_LAYER_CONV && l->filters < 1)
                return mb_error_set(err, MB_EFORMAT, "%s: filters %d: need >= 1",
                                    where(l, i, w, sizeof w), l->filters);
            if (l->type == MB_LAYER_CONV &&
                (l->algo < MB_CONV_AUTO || l->algo >= MB_CONV_N_ALGOS))
                return mb_error_set(err, MB_EFORMAT, "%s: unknown convolution algorithm %d",
                                    where(l, i, w, sizeof w), l->algo);
            {
                const long long ph = (long long)h + 2LL * l->pad, pw = (long long)wd + 2LL * l->pad;
                if (ph < l->size || pw < l->size)
                    return mb_error_set(err, MB_EFORMAT,
                                        "%s: kernel %d is larger than the padded input %lldx%lld",
                                        where(l, i, w, sizeof w), l->size, ph, pw);
                if (ph > INT_MAX || pw > INT_MAX)
                    return mb_error_set(err, MB_EFORMAT, "%s: padded input %lldx%lld: sides past "
                                        "2^31", where(l, i, w, sizeof w), ph, pw);
                h = (int)((ph - l->size) / l->stride + 1);
                wd = (int)((pw - l->size) / l->stride + 1);
            }
            if (l->type == MB_LAYER_CONV)
                c = l->filters;
            break;
        case MB_LAYER_FC:
            if (l->filters < 1)
                return mb_error_set(err, MB_EFORMAT, "%s: outputs %d: need >= 1",
                                    where(l, i, w, sizeof w), l->filters);
            /* the weights are counted in an int too (and 2^31 floats are 8 GiB) */
            if ((double)c * h * wd * l->filters > INT_MAX) /* a double: no overflow here */
                return mb_error_set(err, MB_EFORMAT, "%s: %lld inputs x %d outputs: more than "
                                    "2^31 weights", where(l, i, w, sizeof w),
                                    (long long)c * h * wd, l->filters);
            c = l->filters, h = 1, wd = 1;
            break;
        case MB_LAYER_DROPOUT:
            if (!(l->p >= 0.0f && l->p < 1.0f))
                return mb_error_set(err, MB_EFORMAT, "%s: p = %g: need 0 <= p < 1",
                                    where(l, i, w, sizeof w), (double)l->p);
            break;
        case MB_LAYER_RELU:
        case MB_LAYER_TANH:
        case MB_LAYER_SIGMOID:
            break;
        case MB_LAYER_SOFTMAX:
            if (i + 1 != desc->n_layers)
                return mb_error_set(err, MB_EFORMAT, "%s: softmax must be the last layer",
                                    where(l, i, w, sizeof w));
            if (c * h * wd < 2)
                return mb_error_set(err, MB_EFORMAT, "%s: softmax over %d value(s): need >= 2",
                                    where(l, i, w, sizeof w), c * h * wd);
            c = c * h * wd, h = 1, wd = 1;
            break;
        default:
            return mb_error_set(err, MB_EFORMAT, "%s: unknown layer type %d",
                                where(l, i, w, sizeof w), (int)l->type);
        }
        /* the kernels count a sample's values, and a convolution's C x K x K, in an int */
        if ((double)c * h * wd > INT_MAX ||
            (l->type == MB_LAYER_CONV &&
             (double)l->in_c * l->size * l->size * l->filters > INT_MAX))
            return mb_error_set(err, MB_EFORMAT, "%s: %dx%dx%d values a sample%s: more than 2^31",
                                where(l, i, w, sizeof w), c, h, wd,
                                l->type == MB_LAYER_CONV ? " or its weights' F x C x K x K" : "");
        l->out_c = c, l->out_h = h, l->out_w = wd;
    }
    const mb_layer_desc *last = &desc->layers[desc->n_layers - 1];
    if (desc->layer_list && last->type != MB_LAYER_SOFTMAX) {
        desc->classes = 0; /* a list of shapes need not end in a classifier */
        return MB_OK;
    }
    if (last->type != MB_LAYER_SOFTMAX)
        return mb_error_set(err, MB_EFORMAT, "network '%s': the last layer must be softmax",
                            desc->name);
    desc->classes = last->out_c;
    return MB_OK;
}
