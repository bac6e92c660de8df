/* mb_net.h — network descriptions: the .cfg files of data/nets/ read into layers with their
 * shapes inferred and checked (desc_read.c, desc_infer.c), and the vocabulary of convolutions a
 * description and every reader of one share: the algorithms' and passes' names and a
 * convolution's output shape (conv.c).
 *
 * Below the trainer: solver/ (the memory model, the convolution ILP) and probe/ read
 * descriptions through this header alone; train/ builds networks from them.
 */
#ifndef MB_NET_H
#define MB_NET_H

#include <stddef.h>

#include "../model/mb_model.h"

/* ---- network descriptions (data/nets/NAME.cfg) ---------------------------------------------- */

typedef enum mb_layer_type {
    MB_LAYER_CONV = 0,  /* convolution: filters, size, stride, pad (square kernels) */
    MB_LAYER_MAXPOOL,   /* max pooling: size, stride, pad */
    MB_LAYER_AVGPOOL,   /* average pooling: size, stride, pad */
    MB_LAYER_FC,        /* fully connected: filters = outputs (input flattened C*H*W) */
    MB_LAYER_RELU,
    MB_LAYER_TANH,
    MB_LAYER_SIGMOID,
    MB_LAYER_DROPOUT,   /* dropout: p = probability of zeroing (inverted dropout) */
    MB_LAYER_SOFTMAX,   /* softmax + cross-entropy loss; always the last layer */
    MB_LAYER_BATCHNORM, /* batch normalisation, per channel (per feature after fc): gamma, beta
                           trained; running mean and variance kept as state (net/layer_kind.c) */
    MB_LAYER_ADD,       /* element-wise sum of two or more earlier outputs of one shape */
    MB_LAYER_CONCAT,    /* channel concatenation of earlier outputs of one height and width */
    MB_LAYER_N_TYPES
} mb_layer_type;

enum { MB_LAYER_MAX_INPUTS = 4 }; /* the most inputs an add or concat takes */
/* The most layers a .cfg describes (activations written as a key count as layers): real nets
 * have tens to a few thousand; a `from` name is looked up among the earlier layers, so reading
 * grows with the square of the layers (campaign 29's B1: 200,000 layers). Refused past it. */
enum { MB_NET_LAYERS_MAX = 10000 };

/* One layer of a description. Shapes are per sample (no batch dimension). */
typedef struct mb_layer_desc {
    mb_layer_type type;
    char name[32];          /* from the cfg ("conv1") or generated ("relu3") */
    int filters;            /* conv: output channels K; fc: outputs */
    int size;               /* conv, pool: kernel side F */
    int stride;             /* conv, pool */
    int pad;                /* conv, pool: zero padding on each side */
    float p;                /* dropout probability */
    int algo;               /* conv: an mb_conv_algo, MB_CONV_AUTO when the cfg names none */
    int in_c, in_h, in_w;   /* input shape, filled by the reader */
    int out_c, out_h, out_w;/* output shape, filled by the reader */
    int line;               /* cfg line where the section starts (0 when built in code) */
    int given_c, given_h, given_w; /* input=CxHxW of a layer list ([net] graph=none): the
                                      input shape given, 0 when it follows the previous layer */
    int n_inputs;           /* layers whose outputs this one reads: 0 = the previous layer (the
                               network's input for layer 0); filled to >= 1 by the inference */
    int inputs[MB_LAYER_MAX_INPUTS]; /* their indices (< this layer's), -1 = the network input */
} mb_layer_desc;

typedef struct mb_net_desc {
    char name[64];          /* [net] name=, or the file's base name */
    int in_c, in_h, in_w;   /* input shape: [net] channels, height, width */
    int classes;            /* outputs of the last fc layer */
    size_t n_layers;
    mb_layer_desc *layers;  /* n_layers entries, owned by the description */
    int layer_list;         /* [net] graph=none: the layers are a list of shapes (a layer may
                               give its own input=), for the memory model and the probes, not a
                               trainable graph (ResNet's branches); no softmax needed */
    char file[1024];        /* the cfg file read, for "file:line:" in the lines of later checks
                               (a conv layer's algo=, campaign 42's F5); "" when built in code
                               or the path is longer */
} mb_net_desc;

/* Reads a description: `name_or_path` is a path to a .cfg file, or a bare name ("lenet5")
 * looked up as data/nets/NAME.cfg under the source tree, then $MBKIT_NETS, then the installed
 * share/mbkit/nets. Unknown sections or keys, missing values, shapes that do not chain (an
 * output side < 1, an fc not followed by a valid shape, a missing final softmax) are MB_EFORMAT
 * with "file:line: ..." in err. The cfg format: INI sections [net], [conv], [maxpool],
 * [avgpool], [fc], [dropout], [relu], [tanh], [sigmoid], [batchnorm], [add], [concat],
 * [softmax]; `activation=relu|tanh|sigmoid` on conv, fc, batchnorm, add or concat appends that
 * activation layer; `from=NAME[,NAME...]` makes a graph (a layer reads those earlier outputs;
 * add and concat need it). `[net] graph=none` reads a layer list (see
 * mb_net_desc.layer_list): conv, pool and fc layers may then give `input=CxHxW`. */
int mb_net_desc_read(const char *name_or_path, mb_net_desc **desc, mb_error *err);
/* The file --net names: name_or_path itself when it is a path, else the file a bare name
 * resolves to as mb_net_desc_read resolves it (in buf, n bytes), or NULL when none is found.
 * What an output is compared with, lest it overwrite the description (campaign 36's E1). */
const char *mb_net_desc_file(const char *name_or_path, char *buf, size_t n);
/* Whether an output `out` (given as `flag`) is the file --net `net` names (mb_net_desc_file):
 * 1 with the line in err ("--log x would overwrite --net n (/abs/n.cfg)"), else 0. mbtrain's
 * and mbprobe's outputs are all checked by it. */
int mb_net_desc_overwritten(const char *flag, const char *out, const char *net, mb_error *err);

/* Fills the shape fields of every layer from its inputs' shapes (n_inputs 0: the previous
 * layer; filled in) and checks the graph (used by the reader and by code that builds
 * descriptions directly). A layer list is MB_EFORMAT here (it
 * cannot be trained, and mb_net_create calls this). */
int mb_net_desc_infer(mb_net_desc *desc, mb_error *err);

/* The same for a chain or a layer list: a layer with given_c > 0 takes that input shape instead
 * of the previous layer's output, and a list needs no final softmax. */
int mb_net_desc_infer_list(mb_net_desc *desc, mb_error *err);

/* 1 when some layer reads an output other than the previous layer's (add, concat, or `from=`):
 * a graph, not a chain. */
int mb_net_desc_is_graph(const mb_net_desc *desc);

/* The layer-type table (net/layer_kind.c; the whole entry in net/layer_kind.h): each type's cfg
 * section name, the trainable parameters and the state (running statistics) it holds. */
const char *mb_layer_type_name(mb_layer_type t);
/* Trainable floats of a layer whose shapes are filled (weights then biases; BN gamma, beta). */
size_t mb_layer_param_count(const mb_layer_desc *l);
/* State floats (not trained, not decayed; saved in checkpoints): BN's running mean and var. */
size_t mb_layer_state_count(const mb_layer_desc *l);
/* What the memory model counts a layer of this type as (model/mb_model.h). */
mb_mem_kind mb_layer_mem_kind(mb_layer_type t);

void mb_net_desc_free(mb_net_desc *desc);

/* ---- convolutions: algorithms, passes, shapes (net/conv.c) ----------------------------------- */

typedef enum mb_conv_algo {
    MB_CONV_GEMM = 0,     /* im2col + OpenBLAS sgemm */
    MB_CONV_DIRECT = 1,   /* direct loops, no workspace */
    MB_CONV_FFT = 2,      /* FFTW (float) transforms of inputs and filters */
    MB_CONV_WINOGRAD = 3, /* F(2x2, 3x3), 3x3 stride-1 layers only */
    MB_CONV_N_ALGOS = 4,
    MB_CONV_AUTO = -1     /* let the network choose (GEMM unless told otherwise) */
} mb_conv_algo;

typedef enum mb_conv_pass {
    MB_PASS_FORWARD = 0,
    MB_PASS_BACKWARD_DATA = 1,
    MB_PASS_BACKWARD_FILTER = 2
} mb_conv_pass;

/* "gemm", "direct", "fft", "winograd"; parse returns MB_EINVAL for other names. */
const char *mb_conv_algo_name(mb_conv_algo algo);
int mb_conv_algo_parse(const char *name, mb_conv_algo *algo);
/* The k-th of those names (k from 0), NULL past the last: for checks that list them all. */
const char *mb_conv_algo_nth(int k);
const char *mb_conv_pass_name(mb_conv_pass pass);
/* MB_OK when desc has a convolution layer, else MB_EINVAL with "net 'NAME' has no convolution
 * layer" in err: what a convolution probe, the convolution ILP and --conv-algo need. */
int mb_net_desc_need_conv(const mb_net_desc *desc, mb_error *err);
/* MB_OK when `asked` (mbtrain's and mbprobe's --conv-algo) is MB_CONV_AUTO or desc has a
 * convolution layer; else MB_EUSAGE "--conv-algo has no effect: net 'NAME' has no convolution
 * layer" (the flag would be ignored). */
int mb_net_desc_check_conv_algo(const mb_net_desc *desc, mb_conv_algo asked, mb_error *err);

/* A convolution of a batch: x [batch, in_c, in_h, in_w], w [out_c, in_c, k, k], b [out_c],
 * y [batch, out_c, out_h, out_w] with out = (in + 2 pad - k) / stride + 1. */
typedef struct mb_conv_shape {
    int batch, in_c, in_h, in_w, out_c, k, stride, pad;
} mb_conv_shape;

int mb_conv_out_h(const mb_conv_shape *s);
int mb_conv_out_w(const mb_conv_shape *s);

#endif /* MB_NET_H */
