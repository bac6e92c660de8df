/* desc_infer.c — shape inference for network descriptions: walks the layers in order, each
 * reading the previous layer's output or the earlier outputs it names (a graph: residual add,
 * concat), fills every layer's input and output shape from the network's input shape through
 * the layer-type table (layer_kind.c: each kind's own checks), and checks the graph (inputs
 * earlier than the layer, their number, exactly one softmax, last), or of a layer list
 * ([net] graph=none: a layer may give its own input shape, no softmax needed). Reading .cfg
 * files is desc_read.c's job, not this file's.
 */
#include "layer_kind.h"
#include "mb_net.h"

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

int mb_net_desc_is_graph(const mb_net_desc *desc)
{
    for (size_t i = 0; desc && i < desc->n_layers; i++) {
        const mb_layer_desc *l = &desc->layers[i];
        if (l->n_inputs > 1 || (l->n_inputs == 1 && l->inputs[0] != (int)i - 1))
            return 1;
    }
    return 0;
}

/* Resolves layer i's inputs (0 given: the previous layer) and their shapes into in[]. */
static int layer_inputs(mb_net_desc *desc, size_t i, mb_shape in[], char *why, size_t wn)
{
    mb_layer_desc *l = &desc->layers[i];
    const mb_layer_kind *k = mb_layer_kind_of(l->type);
    if (l->n_inputs == 0) {
        l->n_inputs = 1;
        l->inputs[0] = (int)i - 1;
    }
    if (l->n_inputs < k->min_inputs || l->n_inputs > k->max_inputs) {
        if (k->min_inputs == k->max_inputs)
            snprintf(why, wn, "%s reads %d input(s), not %d", k->name, k->min_inputs, l->n_inputs);
        else
            snprintf(why, wn, "%s reads %d to %d inputs, not %d", k->name, k->min_inputs,
                     k->max_inputs, l->n_inputs);
        return MB_EFORMAT;
    }
    for (int j = 0; j < l->n_inputs; j++) {
        int src = l->inputs[j];
        if (src < -1 || src >= (int)i)
            return snprintf(why, wn, "input %d is layer %d: a layer reads the network input (-1) "
                            "or an earlier layer", j, src), MB_EFORMAT;
        if (src >= 0 && desc->layers[src].type == MB_LAYER_SOFTMAX)
            return snprintf(why, wn, "reads the softmax '%s'", desc->layers[src].name),
                   MB_EFORMAT;
        const mb_layer_desc *s = src >= 0 ? &desc->layers[src] : NULL;
        in[j].c = s ? s->out_c : desc->in_c;
        in[j].h = s ? s->out_h : desc->in_h;
        in[j].w = s ? s->out_w : desc->in_w;
    }
    return MB_OK;
}

int mb_net_desc_infer_list(mb_net_desc *desc, mb_error *err)
{
    char w[96], why[160];
    if (!desc || desc->n_layers == 0 || !desc->layers)
        return mb_error_set(err, MB_EFORMAT, "network '%s': no layers",
                            desc ? desc->name : "?");
    if (desc->in_c < 1 || desc->in_h < 1 || desc->in_w < 1)
        return mb_error_set(err, MB_EFORMAT,
                            "network '%s': input shape %dx%dx%d: channels, height and width must "
                            "be >= 1", desc->name, desc->in_c, desc->in_h, desc->in_w);
    if ((double)desc->in_c * desc->in_h * desc->in_w > INT_MAX) /* a double: no overflow */
        return mb_error_set(err, MB_EFORMAT, "network '%s': input shape %dx%dx%d: more than 2^31 "
                            "values a sample", desc->name, desc->in_c, desc->in_h, desc->in_w);
    for (size_t i = 0; i < desc->n_layers; i++) {
        mb_layer_desc *l = &desc->layers[i];
        const mb_layer_kind *k = mb_layer_kind_of(l->type);
        if (!k)
            return mb_error_set(err, MB_EFORMAT, "%s: unknown layer type %d",
                                where(l, i, w, sizeof w), (int)l->type);
        mb_shape in[MB_LAYER_MAX_INPUTS];
        if (layer_inputs(desc, i, in, why, sizeof why) != MB_OK)
            return mb_error_set(err, MB_EFORMAT, "%s: %s", where(l, i, w, sizeof w), why);
        if (l->given_c > 0) {
            if (!desc->layer_list || l->given_h < 1 || l->given_w < 1)
                return mb_error_set(err, MB_EFORMAT,
                                    "%s: an input shape %dx%dx%d needs [net] graph=none and "
                                    "sides >= 1", where(l, i, w, sizeof w), l->given_c,
                                    l->given_h, l->given_w);
            in[0].c = l->given_c, in[0].h = l->given_h, in[0].w = l->given_w;
        }
        l->in_c = in[0].c, l->in_h = in[0].h, l->in_w = in[0].w;
        if (k->infer(l, in, l->n_inputs, why, sizeof why) != MB_OK)
            return mb_error_set(err, MB_EFORMAT, "%s: %s", where(l, i, w, sizeof w), why);
        if (k->last && i + 1 != desc->n_layers)
            return mb_error_set(err, MB_EFORMAT, "%s: %s must be the last layer",
                                where(l, i, w, sizeof w), k->name);
        /* the kernels count a sample's values in an int */
        if ((double)l->out_c * l->out_h * l->out_w > INT_MAX)
            return mb_error_set(err, MB_EFORMAT, "%s: %dx%dx%d values a sample: more than 2^31",
                                where(l, i, w, sizeof w), l->out_c, l->out_h, l->out_w);
    }
    const mb_layer_desc *last = &desc->layers[desc->n_layers - 1];
    if (desc->layer_list && last->type != MB_LAYER_SOFTMAX) {
        desc->classes = 0; /* a list of shapes need not end in a classifier */
        return MB_OK;
    }
    if (last->type != MB_LAYER_SOFTMAX)
        return mb_error_set(err, MB_EFORMAT, "network '%s': the last layer must be softmax",
                            desc->name);
    if (last->inputs[0] != (int)desc->n_layers - 2)
        return mb_error_set(err, MB_EFORMAT, "%s: softmax reads the layer before it",
                            where(last, desc->n_layers - 1, w, sizeof w));
    desc->classes = last->out_c;
    return MB_OK;
}
