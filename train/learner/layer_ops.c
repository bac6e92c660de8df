/* layer_ops.c — the forward and backward pass of each layer kind over one shard and the table of
 * them (mb_layer_passes_of, layer_impl.h), through the backend operations of the
 * context (backend_impl.h): what net.c's loops call for every layer. A pass takes everything
 * from its mb_layer_run and allocates nothing. Batch normalisation in training stops halfway
 * (returns 1) for net.c to reduce the shards' sums over the whole batch; a pass that fails
 * returns its (negative) MB_ code, which net.c makes the call's error. Not here: the graph's
 * wiring and gradient routing, the loss (net.c), the kernels (train/backend/cpu, train/backend/cuda).
 */
#include "../backend/backend_impl.h"
#include "layer_impl.h"

int mb_kind_conv_forward(const mb_layer_run *r)
{
    return mb_ctx_conv_forward(r->conv, r->batch, r->in[0], r->w, r->w + r->n_w, r->out, r->ws);
}

int mb_kind_conv_backward(const mb_layer_run *r)
{
    int rc = mb_ctx_conv_backward_filter(r->conv, r->batch, r->in[0], r->dy, r->gw,
                                         r->gw + r->n_w, r->ws);
    if (rc == MB_OK && r->dx[0])
        rc = mb_ctx_conv_backward_data(r->conv, r->batch, r->dy, r->w, r->dx[0], r->ws);
    return rc;
}

int mb_kind_fc_forward(const mb_layer_run *r)
{
    r->ctx->ops->fc_forward(r->ctx, r->batch, (int)r->in_sz, r->d->out_c, r->in[0], r->w,
                            r->w + r->n_w, r->out);
    return 0;
}

int mb_kind_fc_backward(const mb_layer_run *r)
{
    r->ctx->ops->fc_backward(r->ctx, r->batch, (int)r->in_sz, r->d->out_c, r->in[0], r->w, r->dy,
                             r->dx[0], r->gw, r->gw + r->n_w);
    return 0;
}

/* max or average by d->type; no backward follows evaluation: no argmax (r->arg NULL) */
int mb_kind_pool_forward(const mb_layer_run *r)
{
    r->ctx->ops->pool_forward(r->ctx, r->d, r->batch, r->in[0], r->out, r->arg);
    return 0;
}

int mb_kind_pool_backward(const mb_layer_run *r)
{
    if (r->dx[0])
        r->ctx->ops->pool_backward(r->ctx, r->d, r->batch, r->in[0], r->out, r->dy, r->arg,
                                   r->dx[0]);
    return 0;
}

/* relu, tanh, sigmoid by d->type */
int mb_kind_act_forward(const mb_layer_run *r)
{
    r->ctx->ops->act_forward(r->ctx, r->d->type, r->out_sz * (size_t)r->batch, r->in[0], r->out);
    return 0;
}

int mb_kind_act_backward(const mb_layer_run *r)
{
    if (r->dx[0])
        r->ctx->ops->act_backward(r->ctx, r->d->type, r->out_sz * (size_t)r->batch, r->out, r->dy,
                                  r->dx[0]);
    return 0;
}

int mb_kind_dropout_forward(const mb_layer_run *r)
{
    r->ctx->ops->dropout_forward(r->ctx, r->d->p, r->train, r->batch, r->out_sz, r->drop_key,
                                 r->first, r->in[0], r->out, r->mask);
    return 0;
}

int mb_kind_dropout_backward(const mb_layer_run *r)
{
    if (r->dx[0])
        r->ctx->ops->dropout_backward(r->ctx, r->out_sz * (size_t)r->batch, r->dy, r->mask,
                                      r->dx[0]);
    return 0;
}

/* Training: first the shard's sums of x and x^2 (stop), then, with the batch's mean and
 * 1/sqrt(var + eps) in bn[0 .. 2C), the normalisation; evaluation: the running statistics'
 * (bn[4C .. 6C), filled by net.c). */
int mb_kind_bn_forward(const mb_layer_run *r)
{
    const int C = r->d->out_c;
    const size_t hw = (size_t)r->d->out_h * r->d->out_w;
    if (r->train && !r->resume) {
        r->ctx->ops->bn_stats(r->ctx, r->batch, C, hw, r->in[0], r->part, r->part + C);
        return 1;
    }
    const float *st = r->train ? r->bn : r->bn + 4 * (size_t)C;
    r->ctx->ops->bn_apply(r->ctx, r->batch, C, hw, r->in[0], st, st + C, r->w, r->w + C, r->out);
    return 0;
}

/* First the shard's sums of dy and dy xhat, which are also its share of d beta and d gamma
 * (stop); then, with the batch's means of both in bn[2C .. 4C), the input's gradient. */
int mb_kind_bn_backward(const mb_layer_run *r)
{
    const int C = r->d->out_c;
    const size_t hw = (size_t)r->d->out_h * r->d->out_w;
    if (!r->resume) {
        double *sdy = r->part, *sdx = r->part + C;
        r->ctx->ops->bn_backward_sums(r->ctx, r->batch, C, hw, r->in[0], r->dy, r->bn,
                                      r->bn + C, sdy, sdx);
        for (int c = 0; c < C; c++) /* host memory: BN needs a backend whose memory is */
            r->gw[c] = (float)sdx[c], r->gw[C + c] = (float)sdy[c];
        return 1;
    }
    if (r->dx[0])
        r->ctx->ops->bn_backward_data(r->ctx, r->batch, C, hw, r->in[0], r->dy, r->bn, r->bn + C,
                                      r->w, r->bn + 2 * (size_t)C, r->bn + 3 * (size_t)C,
                                      r->dx[0]);
    return 0;
}

int mb_kind_add_forward(const mb_layer_run *r)
{
    const size_t n = r->out_sz * (size_t)r->batch;
    r->ctx->ops->copy_rows(r->ctx, 1, n, r->in[0], n, r->out, n, 0);
    for (int k = 1; k < r->d->n_inputs; k++)
        r->ctx->ops->copy_rows(r->ctx, 1, n, r->in[k], n, r->out, n, 1);
    return 0;
}

/* every input gets dy */
int mb_kind_add_backward(const mb_layer_run *r)
{
    const size_t n = r->out_sz * (size_t)r->batch;
    for (int k = 0; k < r->d->n_inputs; k++)
        if (r->dx[k])
            r->ctx->ops->copy_rows(r->ctx, 1, n, r->dy, n, r->dx[k], n, r->acc[k]);
    return 0;
}

/* per sample, input k's channels after those of inputs 0 .. k-1 */
int mb_kind_concat_forward(const mb_layer_run *r)
{
    const size_t hw = (size_t)r->d->out_h * r->d->out_w;
    size_t off = 0;
    for (int k = 0; k < r->d->n_inputs; k++) {
        const size_t len = (size_t)r->in_c[k] * hw;
        r->ctx->ops->copy_rows(r->ctx, (size_t)r->batch, len, r->in[k], len, r->out + off,
                               r->out_sz, 0);
        off += len;
    }
    return 0;
}

/* each input gets its channels of dy */
int mb_kind_concat_backward(const mb_layer_run *r)
{
    const size_t hw = (size_t)r->d->out_h * r->d->out_w;
    size_t off = 0;
    for (int k = 0; k < r->d->n_inputs; k++) {
        const size_t len = (size_t)r->in_c[k] * hw;
        if (r->dx[k])
            r->ctx->ops->copy_rows(r->ctx, (size_t)r->batch, len, r->dy + off, r->out_sz,
                                   r->dx[k], len, r->acc[k]);
        off += len;
    }
    return 0;
}

/* ---- the table: each type's passes (its description is net/layer_kind.c) --------------------- */

#define PASSES(k) {mb_kind_##k##_forward, mb_kind_##k##_backward}
static const mb_layer_passes passes[MB_LAYER_N_TYPES] = {
    [MB_LAYER_CONV] = PASSES(conv),         [MB_LAYER_MAXPOOL] = PASSES(pool),
    [MB_LAYER_AVGPOOL] = PASSES(pool),      [MB_LAYER_FC] = PASSES(fc),
    [MB_LAYER_RELU] = PASSES(act),          [MB_LAYER_TANH] = PASSES(act),
    [MB_LAYER_SIGMOID] = PASSES(act),       [MB_LAYER_DROPOUT] = PASSES(dropout),
    [MB_LAYER_SOFTMAX] = {NULL, NULL},      /* the loss: net.c runs it after the forward pass */
    [MB_LAYER_BATCHNORM] = PASSES(bn),      [MB_LAYER_ADD] = PASSES(add),
    [MB_LAYER_CONCAT] = PASSES(concat),
};

const mb_layer_passes *mb_layer_passes_of(mb_layer_type t)
{
    return (unsigned)t < MB_LAYER_N_TYPES ? &passes[t] : NULL;
}
