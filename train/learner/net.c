/* net.c — a network of layers on a backend: creation from a description (copied), parameters
 * and gradients as two contiguous blocks (per layer with parameters: weights then biases, in
 * layer order), the training step's forward + backward, and evaluation, both split over the
 * context's worker threads: the batch is cut into contiguous shards, one per worker, each with
 * its own activations, masks, argmaxes, deltas, convolution workspace and gradient buffer,
 * allocated once for the largest shard; the shards' gradients are summed in shard order.
 * Every computation and every tensor allocation goes through the context's backend operations
 * (backend_impl.h): the kernels are in train/cpu/ and train/cuda/, the threads in the context.
 * Optimisers are elsewhere. Not thread-safe: one network, one caller at a time.
 *
 * Graphs. A layer reads the previous layer's output or earlier outputs it names (add, concat).
 * Gradients travel backwards in two ping-pong buffers as in a chain; a layer whose output is
 * read by more than the next layer (or by another) has its own gradient buffer instead, zeroed
 * at the start of the backward pass, into which every reader adds its share. A chain has none,
 * and runs as before.
 * Batch normalisation in training normalises with the statistics of the whole batch, not of a
 * shard: the shards stop at each BN layer (forward: after their partial sums of x and x^2;
 * backward: after their partial sums of dy and dy xhat), the caller adds the shards' sums in
 * shard order on the host and resumes them. A net without BN runs as one job per pass.
 */
#include "../backend/backend_impl.h"
#include "layer_impl.h"
#include "mb_learner.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct net_layer {
    size_t w_off;        /* offset of the weights in the parameter block (floats) */
    size_t n_w, n_b;     /* weight and bias counts (floats; 0 for layers without parameters) */
    size_t in_sz;        /* input floats per sample */
    size_t out_sz;       /* output floats per sample */
    mb_ctx_conv *conv;   /* conv: its plan for (shard capacity, shape) and the algorithm of
                            each pass, shared by the shards */
    int own;             /* 1: its output's gradient has its own buffer (graphs: read by more
                            than the next layer, or by another) */
    size_t s_off;        /* BN: offset of its running mean (then var) in the parameter block */
    float *bn;           /* BN, host memory: [6 C] the batch's mean and 1/sqrt(var + eps), the
                            batch means of dy and of dy xhat, and the running mean and
                            1/sqrt(running var + eps) of an evaluation; NULL for other layers */
} net_layer;

/* One layer's buffers in one shard. */
typedef struct shard_layer {
    float *out;          /* activations [cap * out_sz] (softmax: probabilities) */
    float *mask;         /* dropout: [cap * out_sz], else NULL */
    int *arg;            /* max pooling: argmax per output [cap * out_sz], else NULL */
    float *grad;         /* own gradient buffer [cap * out_sz] (net_layer.own), else NULL */
} shard_layer;

/* What one worker owns: the buffers of a forward and backward pass over at most `cap` samples,
 * and this call's slice of the batch and its partial results. */
typedef struct net_shard {
    shard_layer *L;       /* desc.n_layers entries, views into acts and args */
    float *acts;          /* one block: every layer's out and mask */
    int *args;            /* one block: max pooling argmaxes */
    float *delta[2];      /* ping-pong gradients w.r.t. activations [cap * max layer size] */
    float *dtmp;          /* graphs: a gradient on its way to an own buffer [cap * max size] */
    float *grads_own;     /* graphs: one block of the own gradient buffers */
    double *part;         /* BN: this shard's partial sums [2 max C] */
    int at;               /* this pass: the next layer to run (forward up, backward down) */
    int dir;              /* 0 forward, 1 backward */
    int resume;           /* 1: stopped at BN layer `at`, whose batch sums the caller reduces */
    int side;             /* which ping-pong buffer holds the current gradient */
    void *ws;             /* convolution workspace, 64-byte aligned */
    size_t ws_bytes;      /* its size in bytes */
    float *grads;         /* [n_params] this shard's share of the batch-mean gradient; NULL
                             for shard 0, which writes net->grads directly */
    int n0, nb;           /* this call: first sample and number of samples */
    double loss_sum;      /* this call: summed per-sample losses */
    size_t correct;       /* this call (evaluation): correct predictions */
    int err;              /* this call: the (negative) MB_ code of a pass that failed, else 0 */
} net_shard;

struct mb_net {
    mb_net_desc desc;     /* the copy this network was built from (layers owned) */
    mb_net_options opts;  /* as given; algo resolved per layer in L[].conv */
    mb_ctx *ctx;          /* what it computes with */
    mb_ctx *own_ctx;      /* ctx when the network made it (opts.ctx NULL), else NULL */
    net_layer *L;         /* desc.n_layers entries */
    size_t n_params;      /* floats in params and in grads: n_train, then the BN state */
    size_t n_train;       /* trainable floats */
    float *bn_host;       /* one host block: every BN layer's net_layer.bn */
    int n_bn;             /* BN layers */
    float *params;        /* [n_params] the context's memory */
    float *grads;         /* [n_params] the batch-mean gradient, the context's memory */
    float *xin;           /* [max_batch * input size] inputs copied to the device, NULL when the
                             backend's memory is the host's */
    int n_shards;         /* shards allocated: min(context threads, max_batch) */
    int cap;              /* the most samples one shard is given (sizes its buffers and plans) */
    net_shard *sh;        /* n_shards entries */
    uint64_t rng;         /* PRNG state: initialisation */
    uint64_t drop_seed;   /* dropout masks derive from this, the step, the layer and the sample */
    uint64_t step;        /* forward_backward calls so far (dropout streams) */
    size_t sample_base;   /* the index of this network's first sample in the whole mini-batch
                             (a parallel learner's slice offset): dropout streams are keyed by
                             it, so learners draw their own masks, those of one net at M */
};

static mb_conv_shape conv_shape(const mb_layer_desc *d, int batch)
{
    mb_conv_shape s = {batch, d->in_c, d->in_h, d->in_w, d->out_c, d->size, d->stride, d->pad};
    return s;
}

/* The largest workspace of the algorithms of the three passes. */
static size_t conv_ws(mb_ctx *ctx, const int algo[3], const mb_conv_shape *s)
{
    size_t m = 0;
    for (int p = 0; p < 3; p++) {
        size_t b = mb_ctx_conv_workspace(ctx, (mb_conv_pass)p, algo[p], s);
        if (b > m)
            m = b;
    }
    return m;
}

/* Makes sure a shard's workspace holds `bytes`. */
static int ws_reserve(mb_ctx *ctx, net_shard *sh, size_t bytes)
{
    if (bytes <= sh->ws_bytes)
        return MB_OK;
    void *n = mb_ctx_alloc(ctx, bytes);
    if (!n)
        return MB_ENOMEM;
    mb_ctx_release(ctx, sh->ws);
    sh->ws = n;
    sh->ws_bytes = bytes;
    return MB_OK;
}

/* Shards for a batch of `batch` samples: one per worker, but each given at least MIN_SHARD
 * samples (so batches below 2 MIN_SHARD run on the caller alone).
 * MIN_SHARD = 8, measured with tests/bench/lenet5_step (lenet5, 2 threads, 2-core machine):
 * with the other core free, splitting gained from M = 8 on (16.7e3 against 12.5e3 samples/s at
 * M = 8, 19.6e3 against 11.7e3 at M = 16, before the kernel work of the same branch); with the
 * other core busy (other builds), splitting lost at every M below 32 (M = 2: 9e3 against
 * 13e3 samples/s, M = 4: 12e3 against 15.7e3, M = 8: 14.5e3 against 16.8e3), because a step
 * of a few samples (1e-4 .. 5e-4 s) is as short as a thread's wake-up on a loaded machine. One
 * thread at M <= 8 is already 2-4x faster than PyTorch on 2 threads, so small batches stay on
 * one shard. */
enum { MIN_SHARD = 8 };
static int shards_for(const mb_net *net, int batch)
{
    int n = batch / MIN_SHARD;
    if (n < 1)
        return 1;
    return n < net->n_shards ? n : net->n_shards;
}

/* Sample range of shard s of n over a batch: contiguous, sizes differing by at most one. */
static void shard_range(int batch, int n, int s, int *n0, int *nb)
{
    int base = batch / n, rem = batch % n;
    *nb = base + (s < rem);
    *n0 = s * base + (s < rem ? s : rem);
}

static void shard_free(mb_ctx *ctx, net_shard *sh)
{
    free(sh->L);
    mb_ctx_release(ctx, sh->acts);
    mb_ctx_release(ctx, sh->args);
    mb_ctx_release(ctx, sh->delta[0]);
    mb_ctx_release(ctx, sh->delta[1]);
    mb_ctx_release(ctx, sh->ws);
    mb_ctx_release(ctx, sh->grads);
    mb_ctx_release(ctx, sh->dtmp);
    mb_ctx_release(ctx, sh->grads_own);
    free(sh->part);
}

void mb_net_free(mb_net *net)
{
    if (!net)
        return;
    for (int s = 0; net->ctx && net->sh && s < net->n_shards; s++)
        shard_free(net->ctx, &net->sh[s]);
    free(net->sh);
    for (size_t i = 0; net->L && i < net->desc.n_layers; i++)
        mb_ctx_conv_free(net->L[i].conv);
    free(net->L);
    free(net->bn_host);
    free(net->desc.layers);
    if (net->ctx) {
        mb_ctx_release(net->ctx, net->params);
        mb_ctx_release(net->ctx, net->grads);
        mb_ctx_release(net->ctx, net->xin);
    }
    mb_ctx_free(net->own_ctx);
    free(net);
}

/* Weights uniform in [-bound, bound]: He (sqrt(6 / fan_in)) before a ReLU, Glorot
 * (sqrt(6 / (fan_in + fan_out))) otherwise; biases zero. Into `params`, host memory. */
static void init_params(mb_net *net, float *params)
{
    for (size_t i = 0; i < net->desc.n_layers; i++) {
        const mb_layer_desc *d = &net->desc.layers[i];
        net_layer *l = &net->L[i];
        if (d->type == MB_LAYER_BATCHNORM) { /* gamma 1, beta 0; running mean 0, var 1 */
            for (size_t k = 0; k < l->n_w; k++) {
                params[l->w_off + k] = 1.0f, params[l->w_off + l->n_w + k] = 0.0f;
                params[l->s_off + k] = 0.0f, params[l->s_off + l->n_w + k] = 1.0f;
            }
            continue;
        }
        if (!l->n_w)
            continue;
        double fan_in = d->type == MB_LAYER_CONV ? (double)d->in_c * d->size * d->size
                                                 : (double)l->in_sz;
        double fan_out = d->type == MB_LAYER_CONV ? (double)d->out_c * d->size * d->size
                                                  : (double)d->out_c;
        /* a ReLU follows, or a BN then a ReLU */
        size_t nx = i + 1 < net->desc.n_layers &&
                    net->desc.layers[i + 1].type == MB_LAYER_BATCHNORM ? i + 2 : i + 1;
        int relu = nx < net->desc.n_layers && net->desc.layers[nx].type == MB_LAYER_RELU;
        float bound = (float)(relu ? sqrt(6.0 / fan_in) : sqrt(6.0 / (fan_in + fan_out)));
        float *w = params + l->w_off;
        for (size_t k = 0; k < l->n_w; k++)
            w[k] = (2.0f * mb_rng_uniformf(&net->rng) - 1.0f) * bound;
        memset(w + l->n_w, 0, sizeof(float) * l->n_b);
    }
}

/* Allocates shard s's buffers for net->cap samples; MB_ENOMEM when memory runs out. */
static int shard_alloc(mb_net *net, net_shard *sh, size_t ws, int with_grads)
{
    const size_t B = (size_t)net->cap, nl = net->desc.n_layers;
    size_t n_acts = 0, n_args = 0, maxsz = 0, n_own = 0, max_c = 0;
    for (size_t i = 0; i < nl; i++) {
        const net_layer *l = &net->L[i];
        mb_layer_type t = net->desc.layers[i].type;
        n_acts += l->out_sz * B * (t == MB_LAYER_DROPOUT ? 2 : 1);
        if (t == MB_LAYER_MAXPOOL)
            n_args += l->out_sz * B;
        if (l->own)
            n_own += l->out_sz * B;
        if (t == MB_LAYER_BATCHNORM && (size_t)net->desc.layers[i].out_c > max_c)
            max_c = (size_t)net->desc.layers[i].out_c;
        maxsz = l->out_sz > maxsz ? l->out_sz : maxsz;
        maxsz = l->in_sz > maxsz ? l->in_sz : maxsz;
    }
    mb_ctx *ctx = net->ctx;
    sh->L = calloc(nl ? nl : 1, sizeof *sh->L);
    sh->acts = mb_ctx_alloc(ctx, sizeof(float) * n_acts);
    sh->args = mb_ctx_alloc(ctx, sizeof(int) * n_args);
    sh->delta[0] = mb_ctx_alloc(ctx, sizeof(float) * maxsz * B);
    sh->delta[1] = mb_ctx_alloc(ctx, sizeof(float) * maxsz * B);
    if (with_grads)
        sh->grads = mb_ctx_alloc(ctx, sizeof(float) * net->n_params);
    if (n_own) {
        sh->grads_own = mb_ctx_alloc(ctx, sizeof(float) * n_own);
        sh->dtmp = mb_ctx_alloc(ctx, sizeof(float) * maxsz * B);
    }
    if (max_c)
        sh->part = malloc(2 * max_c * sizeof *sh->part);
    if (!sh->L || !sh->acts || !sh->args || !sh->delta[0] || !sh->delta[1] ||
        (with_grads && !sh->grads) || ws_reserve(ctx, sh, ws) != MB_OK ||
        (n_own && (!sh->grads_own || !sh->dtmp)) || (max_c && !sh->part))
        return MB_ENOMEM;
    if (with_grads) /* the state's tail is never written: it stays zero */
        ctx->ops->zero(ctx, sh->grads, sizeof(float) * net->n_params);
    float *go = sh->grads_own;
    float *a = sh->acts;
    int *g = sh->args;
    for (size_t i = 0; i < nl; i++) {
        const net_layer *l = &net->L[i];
        shard_layer *v = &sh->L[i];
        v->out = a;
        a += l->out_sz * B;
        if (net->desc.layers[i].type == MB_LAYER_DROPOUT) {
            v->mask = a;
            a += l->out_sz * B;
        }
        if (net->desc.layers[i].type == MB_LAYER_MAXPOOL) {
            v->arg = g;
            g += l->out_sz * B;
        }
        if (l->own) {
            v->grad = go;
            go += l->out_sz * B;
        }
    }
    return MB_OK;
}

/* The algorithms of a conv layer: the one its description or the options name (looked up by
 * name in the backend's lists), else the backend's default for the shape. */
static int conv_algos(mb_ctx *ctx, const mb_layer_desc *d, mb_conv_algo asked,
                      const mb_conv_shape *s, int algo[3], mb_error *err)
{
    mb_conv_algo a = d->algo != MB_CONV_AUTO ? (mb_conv_algo)d->algo : asked;
    for (int p = 0; p < 3; p++) {
        if (a == MB_CONV_AUTO) {
            algo[p] = mb_ctx_conv_algo_default(ctx, (mb_conv_pass)p, s);
            continue;
        }
        algo[p] = mb_ctx_conv_algo_find(ctx, (mb_conv_pass)p, mb_conv_algo_name(a));
        if (algo[p] < 0)
            return mb_error_set(err, MB_ENOTSUP, "layer '%s': the %s backend has no %s "
                                "algorithm for %s", d->name, mb_backend_name(ctx->kind),
                                mb_conv_algo_name(a), mb_conv_pass_name((mb_conv_pass)p));
    }
    return MB_OK;
}

/* Sizes, parameter offsets and convolution plans of every layer; *ws gets the largest
 * convolution workspace. */
/* Which layers need their own gradient buffer (graph_own), and whether the backend has the
 * operations of every layer type in the description. */
static int graph_init(mb_net *net, mb_error *err)
{
    const size_t nl = net->desc.n_layers;
    const mb_backend_ops *ops = net->ctx->ops;
    for (size_t i = 0; i < nl; i++) {
        const mb_layer_desc *d = &net->desc.layers[i];
        const int reads_other = d->n_inputs > 1 || d->inputs[0] != (int)i - 1;
        const char *lacks = d->type == MB_LAYER_BATCHNORM &&
                                    (!ops->bn_stats || !ops->host_memory) ? "batch normalisation"
                            : reads_other && !ops->copy_rows
                                ? "graph layers (add, concat, from=)"
                                : NULL;
        if (lacks)
            return mb_error_set(err, MB_ENOTSUP, "layer %zu '%s': the %s backend has no %s; "
                                "train this network with --backend cpu", i, d->name, ops->name,
                                lacks);
        int readers = 0, other = 0;
        for (size_t j = i + 1; j < nl; j++)
            for (int k = 0; k < net->desc.layers[j].n_inputs; k++)
                if (net->desc.layers[j].inputs[k] == (int)i)
                    readers++, other |= j != i + 1;
        net->L[i].own = i + 1 < nl && (readers != 1 || other);
        net->n_bn += d->type == MB_LAYER_BATCHNORM;
    }
    return MB_OK;
}

/* The line of a conv layer whose algorithm refuses its shape (mb_ctx_conv_create's `why`, "NAME:
 * reason"): what chose the algorithm, the cfg's algo= at the layer's file:line, or the
 * --conv-algo flag naming the layer and its file:line (the status as the backend gave it); the layer's size, stride
 * and pad (campaign 42, F5: it named neither, and "winograd: winograd"). */
static int conv_refused(const mb_net *net, size_t i, int rc, const char *why, mb_error *err)
{
    const mb_layer_desc *d = &net->desc.layers[i];
    const int by_cfg = d->algo != MB_CONV_AUTO;
    const char *name = mb_conv_algo_name(by_cfg ? (mb_conv_algo)d->algo : net->opts.algo);
    const size_t nn = strlen(name);
    if (net->opts.algo == MB_CONV_AUTO && !by_cfg) /* the backend's own pick: as it says */
        return mb_error_set(err, rc, "layer %zu '%s': %s", i, d->name, why);
    if (strncmp(why, name, nn) == 0 && why[nn] == ':' && why[nn + 1] == ' ')
        why += nn + 2;
    char at[1100] = "";
    if (d->line > 0)
        snprintf(at, sizeof at, net->desc.file[0] ? "%s:%d" : "%sline %d", net->desc.file,
                 d->line);
    if (by_cfg)
        return mb_error_set(err, rc, "%s%slayer %zu '%s': algo=%s: %s (size %d, stride %d, pad "
                            "%d)", at, at[0] ? ": " : "", i, d->name, name, why, d->size,
                            d->stride, d->pad);
    return mb_error_set(err, rc, "--conv-algo %s: layer %zu '%s'%s%s%s:"
                        " %s (size %d, stride %d, pad %d)", name, i, d->name,
                        at[0] ? " (" : "", at, at[0] ? ")" : "", why, d->size, d->stride, d->pad);
}

static int layers_init(mb_net *net, size_t *ws, mb_error *err)
{
    *ws = 0;
    int rc = graph_init(net, err);
    if (rc != MB_OK)
        return rc;
    size_t n_bn_floats = 0;
    for (size_t i = 0; i < net->desc.n_layers; i++)
        n_bn_floats += net->desc.layers[i].type == MB_LAYER_BATCHNORM
                           ? 6 * (size_t)net->desc.layers[i].out_c : 0;
    if (n_bn_floats && !(net->bn_host = calloc(n_bn_floats, sizeof *net->bn_host)))
        return mb_error_set(err, MB_ENOMEM, "network: out of memory");
    float *bn = net->bn_host;
    for (size_t i = 0; i < net->desc.n_layers; i++) {
        const mb_layer_desc *d = &net->desc.layers[i];
        net_layer *l = &net->L[i];
        l->in_sz = (size_t)d->in_c * d->in_h * d->in_w;
        l->out_sz = (size_t)d->out_c * d->out_h * d->out_w;
        const mb_layer_kind *k = mb_layer_kind_of(d->type);
        l->n_b = k->biases(d); /* weights (BN: gamma), then biases (beta) */
        l->n_w = k->params(d) - l->n_b;
        if (d->type == MB_LAYER_BATCHNORM) {
            l->bn = bn;
            bn += 6 * (size_t)d->out_c;
        } else if (d->type == MB_LAYER_CONV) {
            mb_conv_shape s = conv_shape(d, net->cap);
            int algo[3];
            mb_error e = {0};
            rc = conv_algos(net->ctx, d, net->opts.algo, &s, algo, err);
            if (rc == MB_OK && (rc = mb_ctx_conv_create(net->ctx, &s, algo, &l->conv, &e)) != MB_OK)
                rc = conv_refused(net, i, rc, e.msg, err);
            if (rc != MB_OK)
                return rc;
            size_t b = conv_ws(net->ctx, algo, &s);
            *ws = b > *ws ? b : *ws;
        }
        l->w_off = net->n_params;
        net->n_params += l->n_w + l->n_b;
    }
    net->n_train = net->n_params;
    for (size_t i = 0; i < net->desc.n_layers; i++) /* the state, after every parameter */
        if (net->desc.layers[i].type == MB_LAYER_BATCHNORM) {
            net->L[i].s_off = net->n_params;
            net->n_params += mb_layer_state_count(&net->desc.layers[i]);
        }
    return MB_OK;
}

/* Parameters initialised from the seed (on the host, then copied when the backend's memory is
 * not the host's), gradients zero. */
static int params_init(mb_net *net)
{
    mb_ctx *ctx = net->ctx;
    float *host = ctx->ops->host_memory ? net->params : malloc(sizeof(float) * net->n_params);
    if (!host)
        return MB_ENOMEM;
    net->rng = (uint64_t)net->opts.seed;
    init_params(net, host);
    net->drop_seed = mb_rng_next(&net->rng);
    int rc = MB_OK;
    if (host != net->params) {
        rc = mb_ctx_upload(ctx, net->params, host, sizeof(float) * net->n_params);
        free(host);
    }
    ctx->ops->zero(ctx, net->grads, sizeof(float) * net->n_params);
    return rc;
}

/* The out-of-memory line of mb_net_create: the parameters (with the gradients, as much again)
 * where they do not fit, naming the layer that holds the most, since a smaller batch cannot
 * help (campaign 42, F3); else the samples held at once, naming the widest output a sample,
 * and the batch stepped where the chunk an evaluation runs is larger (campaign 41). */
static void oom_line(const mb_net *net, int params_ok, mb_error *err)
{
    const mb_layer_desc *big = NULL;
    size_t most = 0;
    for (size_t i = 0; i < net->desc.n_layers; i++) {
        const mb_layer_desc *d = &net->desc.layers[i];
        size_t n = net->L[i].n_w + net->L[i].n_b;
        if (!params_ok ? !big || n > most
                       : !big || (double)d->out_c * d->out_h * d->out_w >
                                     (double)big->out_c * big->out_h * big->out_w)
            big = d, most = n;
    }
    const mb_net_options *o = &net->opts;
    char at[96] = "";
    if (o->step_batch > 0 && o->step_batch < o->max_batch)
        snprintf(at, sizeof at, ": at batch %d, evaluated in chunks of %d", o->step_batch,
                 o->max_batch);
    if (!params_ok)
        mb_error_set(err, MB_ENOMEM, "network '%s': out of memory for its parameters (%zu "
                     "floats, %.0f MiB, and as much again for their gradients; the largest, "
                     "'%s' at line %d, holds %zu): a smaller batch does not help",
                     net->desc.name, net->n_params, net->n_params * 4.0 / 1048576,
                     big ? big->name : "?", big ? big->line : 0, most);
    else if (big && big->line > 0)
        mb_error_set(err, MB_ENOMEM, "network '%s': out of memory for %d samples at once "
                     "(its largest layer, '%s' at line %d, outputs %dx%dx%d a sample)%s",
                     net->desc.name, o->max_batch, big->name, big->line, big->out_c,
                     big->out_h, big->out_w, at);
    else
        mb_error_set(err, MB_ENOMEM, "network '%s': out of memory for %d samples at once%s",
                     net->desc.name, o->max_batch, at);
}

void mb_net_oom(const mb_net *net, mb_error *err)
{
    oom_line(net, 1, err);
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
    if (opts->threads < 0 || opts->threads > MB_NET_MAX_THREADS)
        return mb_error_set(err, MB_EINVAL, "threads %d: need 0 .. %d", opts->threads,
                            MB_NET_MAX_THREADS);
    mb_net *net = calloc(1, sizeof *net);
    if (!net)
        return mb_error_set(err, MB_ENOMEM, "network: out of memory");
    net->opts = *opts;
    int rc = MB_OK;
    if (!opts->ctx) {
        mb_ctx_options co;
        mb_ctx_options_init(&co);
        co.threads = opts->threads;
        rc = mb_ctx_create(&co, &net->own_ctx, err);
    }
    net->ctx = opts->ctx ? opts->ctx : net->own_ctx;
    net->desc = *desc;
    net->desc.layers = calloc(desc->n_layers ? desc->n_layers : 1, sizeof *desc->layers);
    net->L = calloc(desc->n_layers ? desc->n_layers : 1, sizeof *net->L);
    if (rc == MB_OK && (!net->desc.layers || !net->L))
        rc = mb_error_set(err, MB_ENOMEM, "network: out of memory");
    if (rc != MB_OK) {
        mb_net_free(net);
        return rc;
    }
    if (desc->n_layers && desc->layers)
        memcpy(net->desc.layers, desc->layers, desc->n_layers * sizeof *desc->layers);
    else
        net->desc.n_layers = 0;
    size_t ws = 0;
    if ((rc = mb_net_desc_infer(&net->desc, err)) != MB_OK) {
        mb_net_free(net);
        return rc;
    }
    const int threads = mb_ctx_threads(net->ctx);
    net->n_shards = threads < opts->max_batch ? threads : opts->max_batch;
    for (int b = 1; b <= opts->max_batch; b++) {
        int n = shards_for(net, b), c = (b + n - 1) / n;
        net->cap = c > net->cap ? c : net->cap;
    }
    if ((rc = layers_init(net, &ws, err)) != MB_OK) {
        mb_net_free(net);
        return rc;
    }
    mb_ctx *ctx = net->ctx;
    const size_t in_sz = (size_t)net->desc.in_c * net->desc.in_h * net->desc.in_w;
    net->params = mb_ctx_alloc(ctx, sizeof(float) * net->n_params);
    net->grads = mb_ctx_alloc(ctx, sizeof(float) * net->n_params);
    if (!ctx->ops->host_memory)
        net->xin = mb_ctx_alloc(ctx, sizeof(float) * in_sz * (size_t)opts->max_batch);
    net->sh = calloc((size_t)net->n_shards, sizeof *net->sh);
    const int params_ok = net->params && net->grads;
    rc = params_ok && net->sh && (ctx->ops->host_memory || net->xin) ? MB_OK : MB_ENOMEM;
    for (int s = 0; rc == MB_OK && s < net->n_shards; s++)
        rc = shard_alloc(net, &net->sh[s], ws, s > 0);
    if (rc == MB_OK)
        rc = params_init(net);
    if (rc != MB_OK) {
        oom_line(net, params_ok, err);
        mb_net_free(net);
        return MB_ENOMEM;
    }
    *out = net;
    return MB_OK;
}

const mb_net_desc *mb_net_description(const mb_net *net) { return &net->desc; }
size_t mb_net_param_count(const mb_net *net) { return net->n_params; }
size_t mb_net_trainable_count(const mb_net *net) { return net->n_train; }
float *mb_net_params(mb_net *net) { return net->params; }
float *mb_net_grads(mb_net *net) { return net->grads; }

/* The dropout key of one layer at the current step (the backend mixes in each sample's index:
 * mb_dropout_stream): masks depend on the seed, the step, the layer and the sample's index in
 * the batch, never on how the batch is sharded. */
static uint64_t drop_key(const mb_net *net, size_t layer)
{
    uint64_t h = net->drop_seed ^ net->step;
    return mb_rng_next(&h) ^ (uint64_t)layer;
}

/* The output of layer `src` in this shard, or the shard's input x for src = -1. */
static const float *layer_in(const net_shard *sh, const float *x, int src)
{
    return src < 0 ? x : sh->L[src].out;
}

/* Channels of the output of layer `src` (-1: the network input). */
static int out_channels(const mb_net *net, int src)
{
    return src < 0 ? net->desc.in_c : net->desc.layers[src].out_c;
}

/* What every pass of layer i in shard sh shares: the context, the description, the inputs'
 * outputs, its own buffers, parameters and statistics (layer_impl.h). */
static mb_layer_run layer_run(const mb_net *net, const net_shard *sh, const float *x, size_t i)
{
    const mb_layer_desc *d = &net->desc.layers[i];
    const net_layer *l = &net->L[i];
    const shard_layer *v = &sh->L[i];
    mb_layer_run r = {.ctx = net->ctx, .d = d, .batch = sh->nb, .in_sz = l->in_sz,
                      .out_sz = l->out_sz, .out = v->out, .mask = v->mask, .arg = v->arg,
                      .w = net->params + l->w_off, .n_w = l->n_w, .conv = l->conv, .ws = sh->ws,
                      .bn = l->bn, .part = sh->part, .resume = sh->resume};
    for (int k = 0; k < d->n_inputs; k++) {
        r.in[k] = layer_in(sh, x, d->inputs[k]);
        r.in_c[k] = out_channels(net, d->inputs[k]);
    }
    return r;
}

/* Forward of shard sh's samples x (sh->nb of them, the first being sample sh->n0 of the batch)
 * from layer sh->at through every layer but the softmax, each by its kind's forward. In
 * training it stops at a BN layer whose batch statistics are not reduced yet, with this
 * shard's sums of its input and their squares in sh->part, and returns 1 (the caller reduces
 * them and calls again); 0 when done; -1 when a pass failed (its code in sh->err). */
static int forward(const mb_net *net, net_shard *sh, const float *x, int train)
{
    for (size_t i = (size_t)sh->at; i + 1 < net->desc.n_layers; i++) {
        mb_layer_run r = layer_run(net, sh, x, i);
        r.train = train;
        if (!train)
            r.arg = NULL; /* no backward follows evaluation: no argmax */
        if (net->desc.layers[i].type == MB_LAYER_DROPOUT) {
            r.drop_key = train ? drop_key(net, i) : 0;
            r.first = net->sample_base + (size_t)sh->n0;
        }
        int pr = mb_layer_passes_of(net->desc.layers[i].type)->forward(&r);
        if (pr < 0) {
            sh->err = pr;
            return -1;
        }
        if (pr) {
            sh->at = (int)i;
            sh->resume = 1;
            return 1;
        }
        sh->resume = 0;
    }
    return 0;
}

/* The gradient w.r.t. the output of layer i: its own buffer, or the current ping-pong one. */
static float *grad_of(const mb_net *net, const net_shard *sh, int i)
{
    return net->L[i].own ? sh->L[i].grad : sh->delta[sh->side];
}

/* Backward of shard sh into grads, from layer sh->at down (the loss gradient w.r.t. the logits
 * in delta[0] to begin with), each by its kind's backward. A layer's input gradient goes to the
 * other ping-pong buffer when its input is the previous layer's alone, else is added to the
 * input's own buffer (through dtmp for a layer of one input, whose pass writes, not adds).
 * Stops at a BN layer whose batch sums of dy and dy xhat are not reduced yet (this shard's in
 * sh->part, its gamma and beta gradients written) and returns 1; 0 when done; -1 when a pass
 * failed (its code in sh->err). */
static int backward(const mb_net *net, net_shard *sh, const float *x, float *grads)
{
    for (int i = sh->at; i >= 0; i--) {
        const mb_layer_desc *d = &net->desc.layers[i];
        const mb_layer_kind *kind = mb_layer_kind_of(d->type);
        mb_layer_run r = layer_run(net, sh, x, (size_t)i);
        r.train = 1;
        r.gw = grads + net->L[i].w_off;
        r.dy = grad_of(net, sh, i);
        float *next = sh->delta[!sh->side];
        int wrote_next = 0, via_tmp = 0;
        for (int k = 0; k < d->n_inputs; k++) {
            int src = d->inputs[k]; /* nobody needs the network input's gradient */
            if (src < 0)
                r.dx[k] = NULL;
            else if (!net->L[src].own)
                r.dx[k] = next, wrote_next = 1;
            else if (kind->max_inputs > 1)
                r.dx[k] = sh->L[src].grad, r.acc[k] = 1;
            else
                r.dx[k] = sh->dtmp, via_tmp = 1;
        }
        int pr = mb_layer_passes_of(d->type)->backward(&r);
        if (pr < 0) {
            sh->err = pr;
            return -1;
        }
        if (pr) {
            sh->at = i;
            sh->resume = 1;
            return 1;
        }
        sh->resume = 0;
        if (via_tmp) { /* add to the input's own buffer */
            size_t m = net->L[d->inputs[0]].out_sz * (size_t)sh->nb;
            net->ctx->ops->copy_rows(net->ctx, 1, m, sh->dtmp, m, sh->L[d->inputs[0]].grad, m, 1);
        }
        if (wrote_next)
            sh->side = !sh->side;
    }
    return 0;
}

/* One parallel call: the batch, its shards, and what the parts do. */
typedef struct job {
    mb_net *net;
    const float *x;       /* the batch's inputs */
    const int *y;         /* its labels */
    int batch;            /* samples in the batch */
    int shards;           /* parts */
    double *losses;       /* evaluation: per-sample losses of the batch, or NULL */
    int first;            /* 1: the pass starts here (not a resumption after a BN layer) */
} job;

/* The logits: the output of the layer before the softmax (the input for a softmax alone). */
static const float *logits_of(const mb_net *net, const net_shard *sh, const float *x)
{
    const size_t nl = net->desc.n_layers;
    return nl >= 2 ? sh->L[nl - 2].out : x;
}

static void shard_fb(void *ctx, int w)
{
    job *j = ctx;
    mb_net *net = j->net;
    net_shard *sh = &net->sh[w];
    const size_t in_sz = net->L[0].in_sz;
    if (j->first) {
        shard_range(j->batch, j->shards, w, &sh->n0, &sh->nb);
        sh->at = 0, sh->dir = 0, sh->resume = 0, sh->side = 0, sh->err = 0;
    }
    const float *x = j->x + (size_t)sh->n0 * in_sz;
    const size_t nl = net->desc.n_layers;
    if (sh->dir == 0) {
        if (forward(net, sh, x, 1))
            return; /* at a BN layer (the caller reduces the statistics), or failed */
        sh->loss_sum = 0.0;
        net->ctx->ops->softmax_xent(net->ctx, sh->nb, net->desc.classes, logits_of(net, sh, x),
                                    j->y + sh->n0, sh->L[nl - 1].out, &sh->loss_sum, NULL,
                                    NULL, sh->delta[0], 1.0f / (float)j->batch);
        if (sh->grads_own) /* graphs: the own gradient buffers collect their readers' shares */
            for (size_t i = 0; i < nl; i++)
                if (net->L[i].own)
                    net->ctx->ops->zero(net->ctx, sh->L[i].grad,
                                        sizeof(float) * net->L[i].out_sz * (size_t)sh->nb);
        sh->dir = 1;
        sh->at = (int)nl - 2;
    }
    backward(net, sh, x, w == 0 ? net->grads : sh->grads);
}

/* The caller's half of a BN layer in training, after every shard stopped at it: the shards'
 * partial sums added in shard order over the batch's N = batch h w values of a channel.
 * Forward: the batch's mean and 1/sqrt(var + eps) (biased var, as the normalisation uses), and
 * the running statistics moved by momentum 0.1 towards the mean and the unbiased variance
 * var N / (N - 1) (PyTorch's conventions; the biased var when N = 1). Backward: the batch means
 * of dy and dy xhat. */
static void bn_reduce(mb_net *net, int shards, int batch)
{
    const net_shard *s0 = &net->sh[0];
    const int i = s0->at, C = net->desc.layers[i].out_c;
    const net_layer *l = &net->L[i];
    const double N = (double)batch * net->desc.layers[i].out_h * net->desc.layers[i].out_w;
    for (int c = 0; c < C; c++) {
        double a = 0.0, b = 0.0;
        for (int s = 0; s < shards; s++)
            a += net->sh[s].part[c], b += net->sh[s].part[C + c];
        if (s0->dir == 1) {
            l->bn[2 * C + c] = (float)(a / N), l->bn[3 * C + c] = (float)(b / N);
            continue;
        }
        double mean = a / N, var = b / N - mean * mean;
        var = var > 0.0 ? var : 0.0;
        l->bn[c] = (float)mean;
        l->bn[C + c] = (float)(1.0 / sqrt(var + MB_BN_EPS));
        float *rm = net->params + l->s_off, *rv = rm + C;
        const double m = MB_BN_MOMENTUM, unbiased = N > 1 ? var * N / (N - 1) : var;
        rm[c] = (float)((1.0 - m) * rm[c] + m * mean);
        rv[c] = (float)((1.0 - m) * rv[c] + m * unbiased);
    }
}

/* Evaluation's BN statistics: the running mean and 1/sqrt(running var + eps) of every layer. */
static void bn_eval_stats(mb_net *net)
{
    for (size_t i = 0; net->n_bn && i < net->desc.n_layers; i++) {
        const net_layer *l = &net->L[i];
        if (!l->bn)
            continue;
        const int C = net->desc.layers[i].out_c;
        const float *rm = net->params + l->s_off, *rv = rm + C;
        for (int c = 0; c < C; c++) {
            l->bn[4 * C + c] = rm[c];
            l->bn[5 * C + c] = (float)(1.0 / sqrt((double)rv[c] + MB_BN_EPS));
        }
    }
}

/* The batch-mean gradient: shard 0 wrote its share into net->grads; the other shards' shares
 * are added in shard order (fixed, so results do not depend on which thread finishes first).
 * The caller does this alone after the join: ~1e-5 s per shard for lenet5, less than a second
 * hand-off to the workers would cost. */
static void reduce_grads(mb_net *net, int shards)
{
    for (int s = 1; s < shards; s++)
        net->ctx->ops->add(net->ctx, net->n_params, net->sh[s].grads, net->grads);
}

/* The first failure among the call's shards (a pass's negative MB_ code), or MB_OK. */
static int shards_err(const mb_net *net, int shards)
{
    for (int s = 0; s < shards; s++)
        if (net->sh[s].err)
            return net->sh[s].err;
    return MB_OK;
}

/* The batch's inputs in the context's memory: x itself on the host's, else copied to xin. */
static const float *inputs(mb_net *net, const float *x, int batch)
{
    if (net->ctx->ops->host_memory)
        return x;
    size_t bytes = sizeof(float) * (size_t)batch * net->L[0].in_sz;
    return mb_ctx_upload(net->ctx, net->xin, x, bytes) == MB_OK ? net->xin : NULL;
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
    if (!(x = inputs(net, x, batch)))
        return MB_EIO;
    job j = {net, x, y, batch, shards_for(net, batch), NULL, 1};
    mb_ctx_run(net->ctx, j.shards, shard_fb, &j);
    int rc;
    while ((rc = shards_err(net, j.shards)) == MB_OK && net->sh[0].resume) {
        bn_reduce(net, j.shards, batch); /* stopped at a BN layer: reduce, resume */
        j.first = 0;
        mb_ctx_run(net->ctx, j.shards, shard_fb, &j);
    }
    if (rc != MB_OK)
        return rc;
    reduce_grads(net, j.shards);
    double sum = 0.0;
    for (int s = 0; s < j.shards; s++)
        sum += net->sh[s].loss_sum;
    if (loss)
        *loss = (float)(sum / batch);
    net->step++;
    return MB_OK;
}

static void shard_eval(void *ctx, int w)
{
    job *j = ctx;
    mb_net *net = j->net;
    net_shard *sh = &net->sh[w];
    shard_range(j->batch, j->shards, w, &sh->n0, &sh->nb);
    const float *x = j->x + (size_t)sh->n0 * net->L[0].in_sz;
    sh->at = 0, sh->resume = 0, sh->err = 0;
    if (forward(net, sh, x, 0) < 0)
        return;
    const float *logits = logits_of(net, sh, x);
    sh->loss_sum = 0.0;
    sh->correct = 0;
    net->ctx->ops->softmax_xent(net->ctx, sh->nb, net->desc.classes, logits, j->y + sh->n0,
                                NULL, &sh->loss_sum, j->losses ? j->losses + sh->n0 : NULL,
                                &sh->correct, NULL, 0.0f);
}

/* Evaluates n samples: the mean loss into *loss and per-sample losses into losses (each may be
 * NULL). */
static int evaluate(mb_net *net, const float *x, const int *y, size_t n, double *loss,
                    double *losses, size_t *correct)
{
    if (!net || !x || !y || n == 0)
        return MB_EINVAL;
    if (check_labels(net, y, n) != MB_OK)
        return MB_EINVAL;
    const size_t in_sz = (size_t)net->desc.in_c * net->desc.in_h * net->desc.in_w;
    double sum = 0.0;
    size_t ok = 0;
    bn_eval_stats(net);
    for (size_t s = 0; s < n; s += (size_t)net->opts.max_batch) {
        int b = n - s < (size_t)net->opts.max_batch ? (int)(n - s) : net->opts.max_batch;
        const float *xs = inputs(net, x + s * in_sz, b);
        if (!xs)
            return MB_EIO;
        job j = {net, xs, y + s, b, shards_for(net, b), losses ? losses + s : NULL, 1};
        mb_ctx_run(net->ctx, j.shards, shard_eval, &j);
        int rc = shards_err(net, j.shards);
        if (rc != MB_OK)
            return rc;
        for (int k = 0; k < j.shards; k++) {
            sum += net->sh[k].loss_sum;
            ok += net->sh[k].correct;
        }
    }
    if (loss)
        *loss = sum / (double)n;
    if (correct)
        *correct = ok;
    return MB_OK;
}

int mb_net_evaluate(mb_net *net, const float *x, const int *y, size_t n, double *loss,
                    size_t *correct)
{
    return evaluate(net, x, y, n, loss, NULL, correct);
}

int mb_net_evaluate_each(mb_net *net, const float *x, const int *y, size_t n, double *losses,
                         size_t *correct)
{
    if (!losses)
        return MB_EINVAL;
    return evaluate(net, x, y, n, NULL, losses, correct);
}

int mb_net_set_conv_algo(mb_net *net, size_t layer, const int algo[3], mb_error *err)
{
    if (!net || layer >= net->desc.n_layers || net->desc.layers[layer].type != MB_LAYER_CONV)
        return mb_error_set(err, MB_EINVAL, "layer %zu: not a convolution layer", layer);
    const mb_layer_desc *d = &net->desc.layers[layer];
    mb_conv_shape s = conv_shape(d, net->cap);
    mb_ctx_conv *c;
    mb_error e = {0};
    int rc = mb_ctx_conv_create(net->ctx, &s, algo, &c, &e);
    if (rc != MB_OK)
        return mb_error_set(err, rc == MB_ENOMEM ? rc : MB_ENOTSUP, "layer %zu '%s': %s", layer,
                            d->name, e.msg);
    for (int k = 0; k < net->n_shards; k++)
        if (ws_reserve(net->ctx, &net->sh[k], conv_ws(net->ctx, algo, &s)) != MB_OK) {
            mb_ctx_conv_free(c);
            return mb_error_set(err, MB_ENOMEM, "layer %zu '%s': out of memory for the "
                                "workspace", layer, d->name);
        }
    mb_ctx_conv_free(net->L[layer].conv);
    net->L[layer].conv = c;
    return MB_OK;
}

mb_ctx *mb_net_context(const mb_net *net) { return net->ctx; }

int mb_net_read_params(const mb_net *net, float *host)
{
    return mb_ctx_download(net->ctx, host, net->params, sizeof(float) * net->n_params);
}

int mb_net_write_params(mb_net *net, const float *host)
{
    return mb_ctx_upload(net->ctx, net->params, host, sizeof(float) * net->n_params);
}

void mb_net_set_sample_base(mb_net *net, size_t first) { net->sample_base = first; }

void mb_net_set_steps(mb_net *net, unsigned long steps)
{
    net->step = steps;
}

unsigned long mb_net_steps(const mb_net *net) { return (unsigned long)net->step; }
