/* layer_impl.h — private to train/: the layer-type table. One entry per mb_layer_type says what
 * a layer of that type is: its cfg section name, the keys the section takes and needs, how many
 * inputs it reads, its output shape from its inputs' shapes, the trainable parameters and state
 * it holds, and its forward and backward passes through the backend interface. The reader
 * (desc_read.c), the shape inference (desc_infer.c) and the network (net.c) ask the table
 * instead of switching on the type, so a new layer type is one entry in layer_kind.c, its two
 * passes in layer_ops.c and its kernels behind the backend interface (backend_impl.h).
 */
#ifndef MB_LAYER_IMPL_H
#define MB_LAYER_IMPL_H

#include <stddef.h>

#include <stdint.h>

#include "mb_train.h"

/* The keys a layer section may give besides name= (every section takes name=). */
enum {
    LK_FILTERS = 1 << 0,    /* filters= (conv) */
    LK_OUTPUTS = 1 << 1,    /* outputs= or filters= (fc) */
    LK_SIZE = 1 << 2,       /* size= */
    LK_STRIDE = 1 << 3,     /* stride= */
    LK_PAD = 1 << 4,        /* pad= */
    LK_ALGO = 1 << 5,       /* algo= (convolution algorithm) */
    LK_ACTIVATION = 1 << 6, /* activation=relu|tanh|sigmoid|linear: appends that layer */
    LK_P = 1 << 7,          /* p= (dropout) */
    LK_INPUT = 1 << 8,      /* input=CxHxW (a layer list's own input shape) */
    LK_FROM = 1 << 9        /* from=NAME[,NAME...]: the earlier layers whose outputs it reads */
};

/* A per-sample shape. */
typedef struct mb_shape {
    int c, h, w;
} mb_shape;

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

typedef struct mb_layer_kind {
    mb_layer_type type;
    const char *name;      /* the cfg section, and the stem of generated layer names */
    unsigned keys;         /* LK_* the section takes */
    unsigned needs;        /* LK_* it must give */
    int min_inputs;        /* inputs it reads: 1 .. MB_LAYER_MAX_INPUTS */
    int max_inputs;
    int stride_is_size;    /* stride defaults to size (pooling) */
    int last;              /* must be the network's last layer (softmax) */
    /* Fills l's output shape from its inputs' shapes in[0 .. n) and checks its own values;
     * MB_EFORMAT with the reason (no location) in why otherwise. */
    int (*infer)(mb_layer_desc *l, const mb_shape *in, int n, char *why, size_t wn);
    size_t (*params)(const mb_layer_desc *l); /* trainable floats (weights then biases) */
    size_t (*biases)(const mb_layer_desc *l); /* of which biases (BN: beta) */
    size_t (*state)(const mb_layer_desc *l);  /* state floats (BN running mean and var) */
    /* The passes (layer_ops.c): 0 when done; 1 when BN in training stopped for the batch's sums
     * (forward: of x and x^2; backward: of dy and dy xhat, its gamma and beta gradients
     * written) in r->part, which net.c reduces over the shards before calling again with
     * r->resume = 1. NULL for the softmax, which net.c runs as the loss. */
    int (*forward)(const mb_layer_run *r);
    int (*backward)(const mb_layer_run *r);
    mb_mem_kind mem;       /* what the memory model counts it as (model/memory.c) */
} mb_layer_kind;

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

/* The entry of a type; NULL for a value outside the enum. */
const mb_layer_kind *mb_layer_kind_of(mb_layer_type t);
/* The type whose section is `name`; -1 when none. */
int mb_layer_kind_find(const char *name);
/* "net, conv, maxpool, ..." for messages. */
const char *mb_layer_kind_list(void);

/* Batch normalisation's constants (PyTorch's defaults: momentum 0.1, eps 1e-5). */
#define MB_BN_EPS 1e-5
#define MB_BN_MOMENTUM 0.1

#endif /* MB_LAYER_IMPL_H */
