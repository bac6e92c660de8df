/* layer_impl.h — private to train/learner/: the layer-type table, the passes half. Each type's
 * forward and backward pass over one shard through the backend operations (layer_ops.c), looked
 * up by type (mb_layer_passes_of); the description half (shapes, parameters, state, memory) is
 * net/layer_kind.h.
 */
#ifndef MB_LAYER_IMPL_H
#define MB_LAYER_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "../../net/layer_kind.h"
#include "mb_learner.h"

/* One layer's pass over one shard, as net.c hands it to the kind's forward or backward: every
 * tensor is the context's memory, every computation a backend operation (backend_impl.h). */
typedef struct mb_layer_run {
    mb_ctx *ctx;
    const mb_layer_desc *d;
    int batch;             /* samples in this shard */
    int train;             /* forward: 1 training (dropout masks, BN batch statistics, argmax) */
    const float *in[MB_LAYER_MAX_INPUTS]; /* the outputs it reads (d->n_inputs of them) */
    int in_c[MB_LAYER_MAX_INPUTS];        /* their channels (concat) */
    size_t in_sz, out_sz;  /* values per sample of input 0 and of the output */
    float *out;            /* its output [batch, out_sz] */
    float *mask;           /* dropout's mask [batch, out_sz] */
    int *arg;              /* max pooling's argmax, NULL in evaluation */
    const float *w;        /* its parameters: weights (BN: gamma), then biases (beta) at w + n_w */
    size_t n_w;
    float *gw;             /* backward: their gradients, same layout (written, not added) */
    mb_ctx_conv *conv;     /* conv: the plan */
    void *ws;              /* conv: the workspace */
    uint64_t drop_key;     /* dropout: the layer's key at this step */
    size_t first;          /* dropout: the shard's first sample's index in the whole batch */
    float *bn;             /* BN: net.c's statistics block (net_layer.bn), host memory */
    double *part;          /* BN: this shard's partial sums, 2 C doubles */
    int resume;            /* BN: 1 when the batch's sums are reduced (the second half) */
    const float *dy;       /* backward: the gradient w.r.t. the output */
    float *dx[MB_LAYER_MAX_INPUTS]; /* backward: where each input's gradient goes (NULL: none) */
    int acc[MB_LAYER_MAX_INPUTS];   /* 1: add it to dx[k] (add, concat; else always 0) */
} mb_layer_run;

/* A type's passes: 0 when done; 1 when BN in training stopped for the batch's sums (forward:
 * of x and x^2; backward: of dy and dy xhat, its gamma and beta gradients written) in r->part,
 * which net.c reduces over the shards before calling again with r->resume = 1. NULL for the
 * softmax, which net.c runs as the loss. */
typedef struct mb_layer_passes {
    int (*forward)(const mb_layer_run *r);
    int (*backward)(const mb_layer_run *r);
} mb_layer_passes;

/* The passes of a type; NULL for a value outside the enum. */
const mb_layer_passes *mb_layer_passes_of(mb_layer_type t);

/* The passes of each kind (layer_ops.c), for the table. */
int mb_kind_conv_forward(const mb_layer_run *r);
int mb_kind_conv_backward(const mb_layer_run *r);
int mb_kind_fc_forward(const mb_layer_run *r);
int mb_kind_fc_backward(const mb_layer_run *r);
int mb_kind_pool_forward(const mb_layer_run *r);
int mb_kind_pool_backward(const mb_layer_run *r);
int mb_kind_act_forward(const mb_layer_run *r);
int mb_kind_act_backward(const mb_layer_run *r);
int mb_kind_dropout_forward(const mb_layer_run *r);
int mb_kind_dropout_backward(const mb_layer_run *r);
int mb_kind_bn_forward(const mb_layer_run *r);
int mb_kind_bn_backward(const mb_layer_run *r);
int mb_kind_add_forward(const mb_layer_run *r);
int mb_kind_add_backward(const mb_layer_run *r);
int mb_kind_concat_forward(const mb_layer_run *r);
int mb_kind_concat_backward(const mb_layer_run *r);

/* Batch normalisation's constants (PyTorch's defaults: momentum 0.1, eps 1e-5). */
#define MB_BN_EPS 1e-5
#define MB_BN_MOMENTUM 0.1

#endif /* MB_LAYER_IMPL_H */
