/* net.c — a network of layers on the CPU: creation from a description (copied), parameters and
 * gradients as two contiguous blocks (per layer with parameters: weights then biases, in layer
 * order), activations, masks and the largest convolution workspace allocated once for max_batch,
 * the training step's forward + backward, and evaluation. The kernels are in conv_*.c and
 * layers.c; optimisers are elsewhere. Not thread-safe: one network, one caller at a time.
 */
#include "conv_impl.h"
#include "layers_impl.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct net_layer {
    size_t w_off;        /* offset of the weights in the parameter block (floats) */
    size_t n_w, n_b;     /* weight and bias counts (floats; 0 for layers without parameters) */
    size_t in_sz;        /* input floats per sample */
    size_t out_sz;       /* output floats per sample */
    float *out;          /* activations [max_batch * out_sz] (softmax: probabilities) */
    float *mask;         /* dropout: [max_batch * out_sz], else NULL */
    int *arg;            /* max pooling: argmax per output [max_batch * out_sz], else NULL */
    mb_conv_algo algo;   /* conv: the algorithm in use */
    mb_conv_plan *plan;  /* conv: its plan for (max_batch, shape) */
} net_layer;

struct mb_net {
    mb_net_desc desc;     /* the copy this network was built from (layers owned) */
    mb_net_options opts;  /* as given; algo resolved per layer in L[].algo */
    net_layer *L;         /* desc.n_layers entries */
    size_t n_params;      /* floats in params and in grads */
    float *params;        /* [n_params] */
    float *grads;         /* [n_params] */
    float *acts;          /* one block: every layer's out and mask */
    int *args;            /* one block: max pooling argmaxes */
    float *delta[2];      /* ping-pong gradients w.r.t. activations [max_batch * max layer size] */
    void *ws;             /* convolution workspace, 64-byte aligned */
    size_t ws_bytes;      /* its size in bytes */
    uint64_t rng;         /* PRNG state: initialisation, then dropout masks */
};

static void *alloc64(size_t bytes)
{
    bytes = (bytes + 63) & ~(size_t)63;
    return aligned_alloc(64, bytes ? bytes : 64);
}

static mb_conv_shape conv_shape(const mb_layer_desc *d, int batch)
{
    mb_conv_shape s = {batch, d->in_c, d->in_h, d->in_w, d->out_c, d->size, d->stride, d->pad};
    return s;
}

static size_t conv_ws(mb_conv_algo a, const mb_conv_shape *s)
{
    size_t m = 0;
    for (int p = 0; p < 3; p++) {
        size_t b = mb_conv_workspace(a, (mb_conv_pass)p, s);
        if (b > m)
            m = b;
    }
    return m;
}

/* Makes sure the workspace holds `bytes`. */
static int ws_reserve(mb_net *net, size_t bytes)
{
    if (bytes <= net->ws_bytes)
        return MB_OK;
    void *n = alloc64(bytes);
    if (!n)
        return MB_ENOMEM;
    free(net->ws);
    net->ws = n;
    net->ws_bytes = bytes;
    return MB_OK;
}

void mb_net_free(mb_net *net)
{
    if (!net)
        return;
    for (size_t i = 0; net->L && i < net->desc.n_layers; i++)
        mb_conv_plan_free(net->L[i].plan);
    free(net->L);
    free(net->desc.layers);
    free(net->params);
    free(net->grads);
    free(net->acts);
    free(net->args);
    free(net->delta[0]);
    free(net->delta[1]);
    free(net->ws);
    free(net);
}

/* Weights uniform in [-bound, bound]: He (sqrt(6 / fan_in)) before a ReLU, Glorot
 * (sqrt(6 / (fan_in + fan_out))) otherwise; biases zero. */
static void init_params(mb_net *net)
{
    for (size_t i = 0; i < net->desc.n_layers; i++) {
        const mb_layer_desc *d = &net->desc.layers[i];
        net_layer *l = &net->L[i];
        if (!l->n_w)
            continue;
        double fan_in = d->type == MB_LAYER_CONV ? (double)d->in_c * d->size * d->size
                                                 : (double)l->in_sz;
        double fan_out = d->type == MB_LAYER_CONV ? (double)d->out_c * d->size * d->size
                                                  : (double)d->out_c;
        int relu = i + 1 < net->desc.n_layers && net->desc.layers[i + 1].type == MB_LAYER_RELU;
        float bound = (float)(relu ? sqrt(6.0 / fan_in) : sqrt(6.0 / (fan_in + fan_out)));
        float *w = net->params + l->w_off;
        for (size_t k = 0; k < l->n_w; k++)
            w[k] = (2.0f * mb_rng_uniformf(&net->rng) - 1.0f) * bound;
        memset(w + l->n_w, 0, sizeof(float) * l->n_b);
    }
}

int mb_net_create(const mb_net_desc *desc, const mb_net_options *opts, mb_net **out,
                  mb_error *err)
{
    *out = NULL;
    if (!desc || !opts)
        return mb_error_set(err, MB_EINVAL, "mb_net_create: description and options required");
    if (opts->max_batch < 1)
        return mb_error_set(err, MB_EINVAL, "max_batch %d: need >= 1", opts->max_batch);
    if (opts->algo < MB_CONV_AUTO || opts->algo >= MB_CONV_N_ALGOS)
        return mb_error_set(err, MB_EINVAL, "convolution algorithm %d: unknown", (int)opts->algo);
    mb_net *net = calloc(1, sizeof *net);
    if (!net)
        return mb_error_set(err, MB_ENOMEM, "network: out of memory");
    net->desc = *desc;
    net->desc.layers = calloc(desc->n_layers ? desc->n_layers : 1, sizeof *desc->layers);
    net->L = calloc(desc->n_layers ? desc->n_layers : 1, sizeof *net->L);
    if (!net->desc.layers || !net->L) {
        mb_net_free(net);
        return mb_error_set(err, MB_ENOMEM, "network: out of memory");
    }
    if (desc->n_layers && desc->layers)
        memcpy(net->desc.layers, desc->layers, desc->n_layers * sizeof *desc->layers);
    else
        net->desc.n_layers = 0;
    int rc = mb_net_desc_infer(&net->desc, err);
    if (rc != MB_OK) {
        mb_net_free(net);
        return rc;
    }
    net->opts = *opts;
    const size_t B = (size_t)opts->max_batch;
    size_t n_acts = 0, n_args = 0, maxsz = 0, ws = 0;
    for (size_t i = 0; i < net->desc.n_layers; i++) {
        const mb_layer_desc *d = &net->desc.layers[i];
        net_layer *l = &net->L[i];
        l->in_sz = (size_t)d->in_c * d->in_h * d->in_w;
        l->out_sz = (size_t)d->out_c * d->out_h * d->out_w;
        if (d->type == MB_LAYER_CONV) {
            l->n_w = (size_t)d->out_c * d->in_c * d->size * d->size;
            l->n_b = (size_t)d->out_c;
            l->algo = d->algo != MB_CONV_AUTO ? (mb_conv_algo)d->algo
                      : opts->algo != MB_CONV_AUTO ? opts->algo : MB_CONV_GEMM;
            mb_conv_shape s = conv_shape(d, opts->max_batch);
            mb_error e = {0};
            rc = mb_conv_plan_create(l->algo, &s, &l->plan, &e);
            if (rc != MB_OK) {
                mb_error_set(err, rc, "layer %zu '%s': %s", i, d->name, e.msg);
                mb_net_free(net);
                return rc;
            }
            size_t b = conv_ws(l->algo, &s);
            ws = b > ws ? b : ws;
        } else if (d->type == MB_LAYER_FC) {
            l->n_w = (size_t)d->out_c * l->in_sz;
            l->n_b = (size_t)d->out_c;
        }
        l->w_off = net->n_params;
        net->n_params += l->n_w + l->n_b;
        n_acts += l->out_sz * B * (d->type == MB_LAYER_DROPOUT ? 2 : 1);
        if (d->type == MB_LAYER_MAXPOOL)
            n_args += l->out_sz * B;
        maxsz = l->out_sz > maxsz ? l->out_sz : maxsz;
        maxsz = l->in_sz > maxsz ? l->in_sz : maxsz;
    }
    net->params = alloc64(sizeof(float) * net->n_params);
    net->grads = alloc64(sizeof(float) * net->n_params);
    net->acts = alloc64(sizeof(float) * n_acts);
    net->args = alloc64(sizeof(int) * n_args);
    net->delta[0] = alloc64(sizeof(float) * maxsz * B);
    net->delta[1] = alloc64(sizeof(float) * maxsz * B);
    if (!net->params || !net->grads || !net->acts || !net->args || !net->delta[0] ||
        !net->delta[1] || ws_reserve(net, ws) != MB_OK) {
        mb_error_set(err, MB_ENOMEM, "network '%s': out of memory for batch %d",
                     net->desc.name, opts->max_batch);
        mb_net_free(net);
        return MB_ENOMEM;
    }
    float *a = net->acts;
    int *g = net->args;
    for (size_t i = 0; i < net->desc.n_layers; i++) {
        net_layer *l = &net->L[i];
        l->out = a;
        a += l->out_sz * B;
        if (net->desc.layers[i].type == MB_LAYER_DROPOUT) {
            l->mask = a;
            a += l->out_sz * B;
        }
        if (net->desc.layers[i].type == MB_LAYER_MAXPOOL) {
            l->arg = g;
            g += l->out_sz * B;
        }
    }
    memset(net->grads, 0, sizeof(float) * net->n_params);
    net->rng = (uint64_t)opts->seed;
    init_params(net);
    *out = net;
    return MB_OK;
}

const mb_net_desc *mb_net_description(const mb_net *net) { return &net->desc; }
size_t mb_net_param_count(const mb_net *net) { return net->n_params; }
float *mb_net_params(mb_net *net) { return net->params; }
float *mb_net_grads(mb_net *net) { return net->grads; }

/* Forward through every layer but the softmax; returns the logits. */
static const float *forward(mb_net *net, const float *x, int batch, int train)
{
    const float *in = x;
    for (size_t i = 0; i + 1 < net->desc.n_layers; i++) {
        const mb_layer_desc *d = &net->desc.layers[i];
        net_layer *l = &net->L[i];
        const float *w = net->params + l->w_off;
        size_t n = l->out_sz * (size_t)batch;
        switch (d->type) {
        case MB_LAYER_CONV:
            mb_conv_plan_forward(l->plan, batch, in, w, w + l->n_w, l->out, net->ws);
            break;
        case MB_LAYER_FC:
            mb_layer_fc_forward(batch, (int)l->in_sz, d->out_c, in, w, w + l->n_w, l->out);
            break;
        case MB_LAYER_MAXPOOL: mb_layer_maxpool_forward(d, batch, in, l->out, l->arg); break;
        case MB_LAYER_AVGPOOL: mb_layer_avgpool_forward(d, batch, in, l->out); break;
        case MB_LAYER_DROPOUT:
            mb_layer_dropout_forward(d->p, train, n, in, l->out, l->mask, &net->rng);
            break;
        default: mb_layer_act_forward(d->type, n, in, l->out); break;
        }
        in = l->out;
    }
    return in;
}

static int check_labels(const mb_net *net, const int *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (y[i] < 0 || y[i] >= net->desc.classes)
            return MB_EINVAL;
    return MB_OK;
}

int mb_net_forward_backward(mb_net *net, const float *x, const int *y, int batch, float *loss)
{
    if (!net || !x || !y || batch < 1 || batch > net->opts.max_batch)
        return MB_EINVAL;
    if (check_labels(net, y, (size_t)batch) != MB_OK)
        return MB_EINVAL;
    const size_t nl = net->desc.n_layers;
    const float *logits = forward(net, x, batch, 1);
    double sum = 0.0;
    float *dcur = net->delta[0], *dnext = net->delta[1];
    mb_layer_softmax_xent(batch, net->desc.classes, logits, y, net->L[nl - 1].out, &sum, NULL,
                          dcur, 1.0f / (float)batch);
    if (loss)
        *loss = (float)(sum / batch);
    for (size_t i = nl - 1; i-- > 0;) {
        const mb_layer_desc *d = &net->desc.layers[i];
        net_layer *l = &net->L[i];
        const float *in = i ? net->L[i - 1].out : x;
        const float *w = net->params + l->w_off;
        float *gw = net->grads + l->w_off;
        float *din = i ? dnext : NULL; /* nobody needs the input's gradient */
        size_t n = l->out_sz * (size_t)batch;
        switch (d->type) {
        case MB_LAYER_CONV:
            mb_conv_plan_backward_filter(l->plan, batch, in, dcur, gw, gw + l->n_w, net->ws);
            if (din)
                mb_conv_plan_backward_data(l->plan, batch, dcur, w, din, net->ws);
            break;
        case MB_LAYER_FC:
            mb_layer_fc_backward(batch, (int)l->in_sz, d->out_c, in, w, dcur, din, gw,
                                 gw + l->n_w);
            break;
        case MB_LAYER_MAXPOOL:
            if (din)
                mb_layer_maxpool_backward(d, batch, dcur, l->arg, din);
            break;
        case MB_LAYER_AVGPOOL:
            if (din)
                mb_layer_avgpool_backward(d, batch, dcur, din);
            break;
        case MB_LAYER_DROPOUT:
            if (din)
                mb_layer_dropout_backward(n, dcur, l->mask, din);
            break;
        default:
            if (din)
                mb_layer_act_backward(d->type, n, l->out, dcur, din);
            break;
        }
        float *t = dcur;
        dcur = dnext;
        dnext = t;
    }
    return MB_OK;
}

int mb_net_evaluate(mb_net *net, const float *x, const int *y, size_t n, double *loss,
                    size_t *correct)
{
    if (!net || !x || !y || n == 0)
        return MB_EINVAL;
    if (check_labels(net, y, n) != MB_OK)
        return MB_EINVAL;
    const size_t in_sz = (size_t)net->desc.in_c * net->desc.in_h * net->desc.in_w;
    double sum = 0.0;
    size_t ok = 0;
    for (size_t s = 0; s < n; s += (size_t)net->opts.max_batch) {
        int b = n - s < (size_t)net->opts.max_batch ? (int)(n - s) : net->opts.max_batch;
        const float *logits = forward(net, x + s * in_sz, b, 0);
        mb_layer_softmax_xent(b, net->desc.classes, logits, y + s, NULL, &sum, &ok, NULL, 0.0f);
    }
    if (loss)
        *loss = sum / (double)n;
    if (correct)
        *correct = ok;
    return MB_OK;
}

int mb_net_set_conv_algo(mb_net *net, size_t layer, mb_conv_algo algo, mb_error *err)
{
    if (!net || layer >= net->desc.n_layers || net->desc.layers[layer].type != MB_LAYER_CONV)
        return mb_error_set(err, MB_EINVAL, "layer %zu: not a convolution layer", layer);
    const mb_layer_desc *d = &net->desc.layers[layer];
    mb_conv_shape s = conv_shape(d, net->opts.max_batch);
    mb_conv_plan *p;
    mb_error e = {0};
    int rc = mb_conv_plan_create(algo, &s, &p, &e);
    if (rc != MB_OK)
        return mb_error_set(err, rc == MB_ENOMEM ? rc : MB_ENOTSUP, "layer %zu '%s': %s", layer,
                            d->name, e.msg);
    if (ws_reserve(net, conv_ws(algo, &s)) != MB_OK) {
        mb_conv_plan_free(p);
        return mb_error_set(err, MB_ENOMEM, "layer %zu '%s': out of memory for the %s workspace",
                            layer, d->name, mb_conv_algo_name(algo));
    }
    mb_conv_plan_free(net->L[layer].plan);
    net->L[layer].plan = p;
    net->L[layer].algo = algo;
    return MB_OK;
}
