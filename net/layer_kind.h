/* layer_kind.h — the layer-type table, the description half: one entry per mb_layer_type says
 * what a layer of that type is: its cfg section name, the keys the section takes and needs, how
 * many inputs it reads, its output shape from its inputs' shapes, the trainable parameters and
 * state it holds, and what the memory model counts it as. The reader (desc_read.c), the shape
 * inference (desc_infer.c), the memory model (solver/memory.c) and the network (train/learner/
 * net.c) ask the table instead of switching on the type. The other half, each type's forward
 * and backward passes through the backend, is train/learner/layer_impl.h: a new layer type is
 * one entry in net/layer_kind.c, its two passes in train/learner/layer_ops.c and its kernels
 * behind the backend interface.
 */
#ifndef MB_LAYER_KIND_H
#define MB_LAYER_KIND_H

#include <stddef.h>

#include "mb_net.h"

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
    mb_mem_kind mem;       /* what the memory model counts it as (model/memory.c) */
} mb_layer_kind;

/* The entry of a type; NULL for a value outside the enum. */
const mb_layer_kind *mb_layer_kind_of(mb_layer_type t);
/* The type whose section is `name`; -1 when none. */
int mb_layer_kind_find(const char *name);
/* "net, conv, maxpool, ..." for messages. */
const char *mb_layer_kind_list(void);

#endif /* MB_LAYER_KIND_H */
