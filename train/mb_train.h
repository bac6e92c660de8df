/* mb_train.h — the trainer: network descriptions, convolution algorithms, networks (layers with
 * forward and backward passes on the CPU), optimisers, training runs, the learner every trainer
 * steps (also what mbprobe step times), and the backend registry.
 *
 * Tensors are float32, NCHW. A network owns its parameters and their gradients as two contiguous
 * blocks with the same layout (views per layer), so that optimisers, model averaging (EASGD,
 * SMA) and MPI collectives work on one flat array. Hot paths take their workspaces from the
 * network, allocated once at creation for the largest batch.
 */
#ifndef MB_TRAIN_H
#define MB_TRAIN_H

#include <stddef.h>
#include <stdint.h>

#include "../model/mb_model.h"

/* ---- backends and contexts (train/backend.c) ------------------------------------------------- */

/* The compute backends mbkit knows. Each is one set of operations (train/backend_impl.h) that
 * networks call; the CPU's kernels are in train/cpu/, CUDA's in train/cuda/. */
typedef enum mb_backend_kind {
    MB_BACKEND_CPU = 0,  /* OpenBLAS and FFTW on the host; always available */
    MB_BACKEND_CUDA = 1  /* cuBLAS and cuDNN on an NVIDIA device */
} mb_backend_kind;

/* 1 when the backend was compiled into this build. */
int mb_train_backend_built(mb_backend_kind kind);

/* 1 when the backend was built and can run here (for CUDA: a device is present); otherwise 0
 * with the reason in why (e.g. "built without CUDA (nvcc not found)", "CUDA runtime: no
 * device"). */
int mb_train_backend_usable(mb_backend_kind kind, char *why, size_t n);

/* "cpu", "cuda"; parse returns MB_EINVAL for other names. */
const char *mb_backend_name(mb_backend_kind kind);
int mb_backend_parse(const char *name, mb_backend_kind *kind);

/* A context: what one stream of work computes with — the backend and its device, the thread pool
 * that runs a batch's shards, and the OpenBLAS thread setting (set once, by the context, not by
 * scattered process-wide calls); the parallel trainers' communicator will join it. A network
 * computes through the context it was created with. One caller at a time: two streams of work
 * that run concurrently (learners on threads) each need their own context. */
typedef struct mb_ctx mb_ctx;

typedef struct mb_ctx_options {
    mb_backend_kind backend; /* MB_BACKEND_CPU (default) */
    int device;              /* device index for CUDA (0) */
    int threads;             /* pool parts: worker threads plus the caller (0 or 1: the caller
                                alone), at most MB_CTX_MAX_THREADS */
    int blas_threads;        /* OpenBLAS threads (CPU; default 1: the pool splits the batch) */
} mb_ctx_options;

enum { MB_CTX_MAX_THREADS = 256 };

/* Defaults: CPU, device 0, threads 1, blas_threads 1. */
void mb_ctx_options_init(mb_ctx_options *o);

/* Opens the backend's device and starts threads - 1 workers. MB_EINVAL for a bad option,
 * MB_ENOTSUP when the backend is not built or has no device here (the reason in err),
 * MB_ENOMEM. */
int mb_ctx_create(const mb_ctx_options *o, mb_ctx **ctx, mb_error *err);
void mb_ctx_free(mb_ctx *ctx);

mb_backend_kind mb_ctx_backend(const mb_ctx *ctx);
/* The device's name ("Intel(R) Xeon(R) ...", "NVIDIA H100 80GB HBM3"), for tables and logs. */
const char *mb_ctx_device_name(const mb_ctx *ctx);
int mb_ctx_threads(const mb_ctx *ctx);
/* 1 when the context's memory is the host's (the CPU): its tensors can be read in place. */
int mb_ctx_host_memory(const mb_ctx *ctx);

/* Runs fn(arg, w) for w = 0 .. parts-1 on the context's pool (1 <= parts <= mb_ctx_threads),
 * part 0 on the calling thread; returns when every part has returned. For several learners
 * stepped together (each with its own context). */
void mb_ctx_run(mb_ctx *ctx, int parts, void (*fn)(void *arg, int w), void *arg);

/* Waits until the work issued on the context has finished (a no-op on the CPU): timing needs it. */
void mb_ctx_sync(mb_ctx *ctx);

/* The backend's memory (host memory for the CPU, device memory for CUDA): 64-byte aligned;
 * NULL when out of memory. Copies to and from host memory. */
void *mb_ctx_alloc(mb_ctx *ctx, size_t bytes);
void mb_ctx_release(mb_ctx *ctx, void *p);
int mb_ctx_upload(mb_ctx *ctx, void *dst, const void *host, size_t bytes);
int mb_ctx_download(mb_ctx *ctx, void *host, const void *src, size_t bytes);

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
                           trained; running mean and variance kept as state (train/layer_kind.c) */
    MB_LAYER_ADD,       /* element-wise sum of two or more earlier outputs of one shape */
    MB_LAYER_CONCAT,    /* channel concatenation of earlier outputs of one height and width */
    MB_LAYER_N_TYPES
} mb_layer_type;

enum { MB_LAYER_MAX_INPUTS = 4 }; /* the most inputs an add or concat takes */

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

/* The layer-type table (train/layer_kind.c): one entry per mb_layer_type with its cfg section
 * name, the trainable parameters and the state (running statistics) it holds. */
const char *mb_layer_type_name(mb_layer_type t);
/* Trainable floats of a layer whose shapes are filled (weights then biases; BN gamma, beta). */
size_t mb_layer_param_count(const mb_layer_desc *l);
/* State floats (not trained, not decayed; saved in checkpoints): BN's running mean and var. */
size_t mb_layer_state_count(const mb_layer_desc *l);
/* What the memory model counts a layer of this type as (model/mb_model.h). */
mb_mem_kind mb_layer_mem_kind(mb_layer_type t);

void mb_net_desc_free(mb_net_desc *desc);

/* ---- convolution algorithms ----------------------------------------------------------------- */

/* The CPU backend's convolutions (train/cpu/conv_*.c): its four algorithms, and calls on host
 * memory that tests and benchmarks use directly. Everything that should run on any backend goes
 * through a context's convolutions (mb_ctx_conv_*, below). */

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
const char *mb_conv_pass_name(mb_conv_pass pass);

/* A convolution of a batch: x [batch, in_c, in_h, in_w], w [out_c, in_c, k, k], b [out_c],
 * y [batch, out_c, out_h, out_w] with out = (in + 2 pad - k) / stride + 1. */
typedef struct mb_conv_shape {
    int batch, in_c, in_h, in_w, out_c, k, stride, pad;
} mb_conv_shape;

int mb_conv_out_h(const mb_conv_shape *s);
int mb_conv_out_w(const mb_conv_shape *s);

/* 1 when `algo` can do this shape (Winograd: k = 3, stride 1), else 0 with a reason in why. */
int mb_conv_supported(mb_conv_algo algo, const mb_conv_shape *s, char *why, size_t n);

/* An allocation for workspaces and tensors: 64-byte aligned, size rounded up to 64 bytes (never
 * zero), released with free(); NULL when out of memory. */
void *mb_train_alloc64(size_t bytes);

/* Bytes of workspace `algo` needs for `pass` on this shape (0 for none). */
size_t mb_conv_workspace(mb_conv_algo algo, mb_conv_pass pass, const mb_conv_shape *s);

/* The three passes. `ws` holds at least mb_conv_workspace(algo, pass, s) bytes (64-byte
 * aligned). backward_data writes dx (not accumulated); backward_filter writes dw and db (not
 * accumulated). MB_ENOTSUP when the algorithm cannot do the shape. Threads: OpenBLAS's, plus
 * whatever the algorithm documents. */
int mb_conv_forward(mb_conv_algo algo, const mb_conv_shape *s, const float *x, const float *w,
                    const float *b, float *y, void *ws);
int mb_conv_backward_data(mb_conv_algo algo, const mb_conv_shape *s, const float *dy,
                          const float *w, float *dx, void *ws);
int mb_conv_backward_filter(mb_conv_algo algo, const mb_conv_shape *s, const float *x,
                            const float *dy, float *dw, float *db, void *ws);

/* Plans (the calls above cannot cache state between calls, and FFTW plan creation is slow and
 * not thread-safe): a plan fixes the algorithm and the shape (s->batch is
 * the largest batch it serves) and holds what the algorithm precomputes (FFTW plans for FFT).
 * The calls above build a plan per call; loops and networks create one per layer instead.
 * mb_conv_plan_create is not thread-safe for FFT (FFTW's planner); running a plan is, given
 * separate workspaces. MB_ENOTSUP when the algorithm cannot do the shape, MB_EINVAL for a bad
 * shape. Workspace: mb_conv_workspace(algo, pass, s) bytes with the plan's shape. */
typedef struct mb_conv_plan mb_conv_plan;
int mb_conv_plan_create(mb_conv_algo algo, const mb_conv_shape *s, mb_conv_plan **plan,
                        mb_error *err);
void mb_conv_plan_free(mb_conv_plan *plan);
/* The three passes for `batch` samples (1 <= batch <= the plan's s->batch, else MB_EINVAL). */
int mb_conv_plan_forward(const mb_conv_plan *plan, int batch, const float *x, const float *w,
                         const float *b, float *y, void *ws);
int mb_conv_plan_backward_data(const mb_conv_plan *plan, int batch, const float *dy,
                               const float *w, float *dx, void *ws);
int mb_conv_plan_backward_filter(const mb_conv_plan *plan, int batch, const float *x,
                                 const float *dy, float *dw, float *db, void *ws);

/* The context's convolutions, on whichever backend it has: the algorithms of each pass (the CPU
 * offers the four above for every pass; cuDNN has its own list per pass), with support and
 * workspace for a shape, and plans that run them — what mb_net computes with and what mbprobe
 * conv times. An algorithm is an index into its pass's list, 0 .. mb_ctx_conv_algo_count - 1
 * (on the CPU, the mb_conv_algo value). Tensors are the context's memory (mb_ctx_alloc). */
int mb_ctx_conv_algo_count(const mb_ctx *ctx, mb_conv_pass pass);
const char *mb_ctx_conv_algo_name(const mb_ctx *ctx, mb_conv_pass pass, int algo);
/* The index of `name` in the pass's list; -1 when the backend has no algorithm of that name. */
int mb_ctx_conv_algo_find(const mb_ctx *ctx, mb_conv_pass pass, const char *name);
/* The algorithm the backend uses for a shape when nothing names one. */
int mb_ctx_conv_algo_default(mb_ctx *ctx, mb_conv_pass pass, const mb_conv_shape *s);
/* 1 when the algorithm can do the shape, else 0 with the reason in why. */
int mb_ctx_conv_supported(mb_ctx *ctx, mb_conv_pass pass, int algo, const mb_conv_shape *s,
                          char *why, size_t n);
/* Workspace bytes of the algorithm for the pass on the shape (0 when unsupported or none). */
size_t mb_ctx_conv_workspace(mb_ctx *ctx, mb_conv_pass pass, int algo, const mb_conv_shape *s);

/* A plan on a context: the shape (s->batch = the largest batch it serves) and one algorithm per
 * pass (algo[MB_PASS_FORWARD], ...). MB_ENOTSUP when an algorithm cannot do the shape, MB_EINVAL
 * for a bad shape or index. The three passes run `batch` samples (1 .. the plan's s->batch);
 * ws holds at least the pass's workspace. */
typedef struct mb_ctx_conv mb_ctx_conv;
int mb_ctx_conv_create(mb_ctx *ctx, const mb_conv_shape *s, const int algo[3],
                       mb_ctx_conv **conv, mb_error *err);
void mb_ctx_conv_free(mb_ctx_conv *conv);
int mb_ctx_conv_forward(const mb_ctx_conv *conv, int batch, const float *x, const float *w,
                        const float *b, float *y, void *ws);
int mb_ctx_conv_backward_data(const mb_ctx_conv *conv, int batch, const float *dy,
                              const float *w, float *dx, void *ws);
int mb_ctx_conv_backward_filter(const mb_ctx_conv *conv, int batch, const float *x,
                                const float *dy, float *dw, float *db, void *ws);

/* ---- networks ------------------------------------------------------------------------------- */

typedef struct mb_net mb_net;

typedef struct mb_net_options {
    int max_batch;          /* the largest batch forward/backward will be called with */
    unsigned long seed;     /* initialisation and dropout masks */
    mb_conv_algo algo;      /* algorithm for conv layers whose description says MB_CONV_AUTO
                               (by name: the backend's algorithm of the same name) */
    int threads;            /* with ctx NULL: worker threads of the network's own context (0 or
                               1: one, the caller's), at most MB_NET_MAX_THREADS; see "Threads" */
    mb_ctx *ctx;            /* the context to compute with (borrowed: it must outlive the
                               network), or NULL: the network makes its own CPU context with
                               `threads` */
} mb_net_options;

enum { MB_NET_MAX_THREADS = MB_CTX_MAX_THREADS };

/* Threads. A network runs on its context's thread pool (mb_ctx_options.threads workers, started
 * when the context is created and joined when it is freed). mb_net_forward_backward and
 * mb_net_evaluate cut a batch into min(threads, batch / 8) contiguous shards (at least one;
 * shards of fewer than 8 samples cost more in hand-offs than they give, measured in net.c), each
 * run by one worker with its own activations, masks, argmaxes, deltas, workspace and gradient
 * buffer. The shards' gradients (each already scaled by 1 / batch) are summed in shard order, so
 * the result is the batch-mean gradient and a given seed and thread count gives bit-identical
 * results run to run; another thread count gives the same loss and gradients up to float
 * rounding (the order of the sums over samples changes). Dropout masks depend on the seed, the
 * number of forward_backward calls so far, the layer and the sample's index in the batch, never
 * on the sharding.
 * OpenBLAS runs single-threaded inside shards: the CPU context sets OpenBLAS's threads to its
 * blas_threads (1 by default), OpenBLAS's process-wide setting. Measured on lenet5 (2 cores),
 * OpenBLAS's own threads on these small GEMMs cost more than they give; splitting the batch
 * gives them. */

/* The network's parameters, gradients, activations and workspaces are its context's memory;
 * mb_net_params and mb_net_grads point into host memory only when the backend's memory is the
 * host's (the CPU): other backends' callers copy with mb_net_read_params / mb_net_write_params. */

/* Builds a network for `desc` (copied), allocating parameters, gradients, activations and the
 * largest workspace once. Parameters are initialised (He-uniform for conv/fc weights followed by
 * ReLU, Glorot-uniform otherwise, zero biases) from opts->seed. */
int mb_net_create(const mb_net_desc *desc, const mb_net_options *opts, mb_net **net,
                  mb_error *err);
void mb_net_free(mb_net *net);

const mb_net_desc *mb_net_description(const mb_net *net);

/* The flat parameter and gradient blocks (mb_net_param_count floats each, same layout: for each
 * layer with parameters, its weights then its biases, in layer order; then the state: for each
 * batch-norm layer in order, its running mean then its running variance). The state rides with
 * the parameters wherever they travel (checkpoints, snapshots, broadcasts, model averaging) but
 * its gradient is always zero and the optimiser steps only the first mb_net_trainable_count
 * floats (mb_optim_set_trainable), so neither the update nor weight decay touches it; a
 * training forward pass updates it (docs/algorithms.md, "Batch normalisation"). */
size_t mb_net_param_count(const mb_net *net);
/* The trainable part: parameters without the state (mb_net_param_count for nets without BN). */
size_t mb_net_trainable_count(const mb_net *net);
float *mb_net_params(mb_net *net);
float *mb_net_grads(mb_net *net);

/* Training step's first half: forward in training mode (dropout active), softmax cross-entropy
 * averaged over the batch in *loss, backward into the gradient block (overwritten, averaged over
 * the batch). x is [batch, in_c, in_h, in_w], y holds batch labels. MB_EINVAL when batch is 0 or
 * above max_batch, or a label is out of range. */
int mb_net_forward_backward(mb_net *net, const float *x, const int *y, int batch, float *loss);

/* Evaluation: forward in inference mode over n samples (in chunks of at most max_batch); the mean
 * loss and the number classified correctly. Gradients are untouched. */
int mb_net_evaluate(mb_net *net, const float *x, const int *y, size_t n, double *loss,
                    size_t *correct);
/* The same with each sample's loss into losses[0 .. n) (what the staged checks of train/run.c
 * estimate from); the mean loss is their mean. */
int mb_net_evaluate_each(mb_net *net, const float *x, const int *y, size_t n, double *losses,
                         size_t *correct);

/* Sets the number of training steps (forward_backward calls) the network counts, which with the
 * seed picks its dropout masks: a resumed run sets it to the updates already done, so that it
 * draws the masks the uninterrupted run would have. */
void mb_net_set_steps(mb_net *net, unsigned long steps);
/* The index in the whole mini-batch of this network's first training sample (default 0): a
 * parallel learner's slice offset (mb_learner_set_slice sets it). Dropout masks are keyed by
 * the sample's index in the whole batch, so P learners of M/P samples draw their own masks,
 * together those of one network at M (sgd-sync then equals one learner at M with dropout). */
void mb_net_set_sample_base(mb_net *net, size_t first);

/* Uses algo[pass] (indices into the context's lists, mb_ctx_conv_algo_*) for conv layer `layer`
 * (index into the description) from now on; MB_ENOTSUP when one cannot do that layer's shape.
 * Grows the workspace if needed. */
int mb_net_set_conv_algo(mb_net *net, size_t layer, const int algo[3], mb_error *err);

/* The context the network computes with (its own when mb_net_options.ctx was NULL). */
mb_ctx *mb_net_context(const mb_net *net);

/* Copies the parameter block to or from host memory (n = mb_net_param_count floats), on any
 * backend. */
int mb_net_read_params(const mb_net *net, float *host);
int mb_net_write_params(mb_net *net, const float *host);

/* ---- optimisers (docs/algorithms.md, "Single learner") ------------------------------------- */

typedef enum mb_optim_kind {
    MB_OPTIM_SGD = 0,       /* x <- x - lr g */
    MB_OPTIM_MOMENTUM = 1,  /* heavy ball: v <- mu v - lr g; x <- x + v */
    MB_OPTIM_NESTEROV = 2   /* v <- mu v - lr g(x + mu v); x <- x + v, in the look-ahead form
                               that needs only g at the stored parameters (Sutskever et al.) */
} mb_optim_kind;

typedef struct mb_optim_params {
    mb_optim_kind kind;
    double lr;              /* learning rate */
    double momentum;        /* mu, for MOMENTUM and NESTEROV */
    double weight_decay;    /* L2 lambda: adds lambda x to g */
    long lr_step_every;     /* step schedule: multiply lr by lr_step_gamma every this many
                               updates; 0 = constant learning rate */
    double lr_step_gamma;
} mb_optim_params;

typedef struct mb_optim mb_optim;

/* An optimiser for n parameters (it owns its velocity buffer). */
int mb_optim_create(const mb_optim_params *p, size_t n, mb_optim **opt, mb_error *err);
void mb_optim_free(mb_optim *opt);

/* One update of x (n floats) with gradient g; counts updates for the schedule. */
void mb_optim_step(mb_optim *opt, float *x, const float *g);

/* Steps only x[0 .. n_train) from now on (n_train <= n): the tail is a network's state (BN
 * running statistics), which no update or weight decay may touch. */
void mb_optim_set_trainable(mb_optim *opt, size_t n_train);

/* The learning rate the next step will use. */
double mb_optim_lr(const mb_optim *opt);
/* The scheduled learning rate of update `update` (0-based: the first update is 0):
 * p->lr x p->lr_step_gamma^floor(update / p->lr_step_every), or p->lr without a schedule.
 * What mb_optim_step uses, for the rules that step without an mb_optim (EASGD, SMA). */
double mb_optim_lr_at(const mb_optim_params *p, long update);

/* The state that a checkpoint must carry: velocity (n floats, NULL for SGD) and update count. */
float *mb_optim_state(mb_optim *opt);
long mb_optim_updates(const mb_optim *opt);
void mb_optim_set_updates(mb_optim *opt, long updates);

/* ---- communicators (train/comm*.c): what parallel learners exchange ------------------------ */

/* A communicator joins `size` learners (ranks 0 .. size-1) that exchange flat float arrays: the
 * collectives every parallel algorithm needs (allreduce, reduce, broadcast, barrier) and
 * point-to-point messages to and from a server rank (DOWNPOUR, asynchronous EASGD). Two
 * implementations behind one interface: threads in one process (mb_comm_threads_create, one
 * handle per thread) and Open MPI ranks (mb_comm_mpi_create, one handle per process). Every
 * member must call a collective, in the same order, with the same n and root. A communicator is
 * a standalone object: whatever holds the run's context keeps a pointer to one. Sums over ranks
 * are in rank order for threads (deterministic); MPI's order is the library's. */
typedef struct mb_communicator mb_communicator;

enum { MB_COMM_ANY = -1 }; /* mb_comm_recv from any source */

int mb_comm_rank(const mb_communicator *c);
int mb_comm_size(const mb_communicator *c);
const char *mb_comm_kind(const mb_communicator *c); /* "threads" or "mpi" */

/* buf (n floats) <- the sum (or mean) over ranks of every rank's buf. */
int mb_comm_allreduce_sum(mb_communicator *c, float *buf, size_t n);
int mb_comm_allreduce_mean(mb_communicator *c, float *buf, size_t n);
/* On root, recv (n floats) <- the sum over ranks of send; recv is not used elsewhere (NULL ok).
 * send and recv may not overlap. */
int mb_comm_reduce_sum(mb_communicator *c, const float *send, float *recv, size_t n, int root);
/* Every rank's buf <- root's buf. */
int mb_comm_bcast(mb_communicator *c, float *buf, size_t n, int root);
/* The same for a broadcast the others may wait long for (rank 0 evaluating the model): over MPI
 * a rank that has waited more than a short spin sleeps between polls instead of polling
 * without pause (Open MPI's blocking collectives do), so that its core is free for the root's
 * threads. Over threads the waits sleep anyway: mb_comm_bcast. */
int mb_comm_bcast_idle(mb_communicator *c, float *buf, size_t n, int root);
int mb_comm_barrier(mb_communicator *c);

/* A reduction started now and finished by mb_comm_wait, so that a rank can compute while it
 * travels (Sync EASGD's overlap, You et al.). send must not change until the wait. Over threads
 * the whole reduction happens in the wait. */
typedef struct mb_comm_req {
    const float *send;
    float *recv;
    size_t n;
    int root;
    void *impl;            /* MPI_Request, owned until the wait */
} mb_comm_req;
int mb_comm_ireduce_sum(mb_communicator *c, const float *send, float *recv, size_t n, int root,
                        mb_comm_req *req);
int mb_comm_wait(mb_communicator *c, mb_comm_req *req);

/* Point to point: n floats to `dest` with a tag >= 0; recv takes the first message with that
 * tag from `src` (or MB_COMM_ANY: first come, first served), whose length must be n; *from gets
 * its source (NULL allowed). Sends do not wait for the receiver (buffered). */
int mb_comm_send(mb_communicator *c, const float *buf, size_t n, int dest, int tag);
int mb_comm_recv(mb_communicator *c, float *buf, size_t n, int src, int tag, int *from);

/* Memory all ranks see (threads: one zeroed block of `bytes` per communicator, the first call's
 * size; every rank gets the same pointer). NULL over MPI, where ranks share no memory (Hogwild
 * needs threads). */
void *mb_comm_shared(mb_communicator *c, size_t bytes);

/* `size` handles, comms[0 .. size-1], one per thread, ranks in that order. Each is freed with
 * mb_comm_free (the group goes with the last). */
int mb_comm_threads_create(int size, mb_communicator **comms, mb_error *err);

/* Ranks x threads: `threads` handles for the threads of this process over the MPI `world`
 * (kept by the caller, freed after them); global rank = world rank x threads + thread. Only
 * the collectives: send, recv and shared memory are MB_ENOTSUP / NULL. Thread 0 (the one that
 * makes the MPI calls) must be the thread that initialised MPI. */
int mb_comm_hybrid_create(mb_communicator *world, int threads, mb_communicator **comms,
                          mb_error *err);

/* 1 when this process was started by mpirun (Open MPI's environment), so that a plain run never
 * starts MPI. */
int mb_comm_mpi_launched(void);
/* The world of MPI ranks: initialises MPI when it is not yet (MPI_Init(argc, argv)); the free
 * finalises it then. MB_EMPI when MPI cannot start. */
int mb_comm_mpi_create(int *argc, char ***argv, mb_communicator **c, mb_error *err);
/* Ends the job for a member that cannot go on, so that the others never wait for it. Over MPI:
 * `why` (when not NULL) goes to stderr as one line, "PROGRAM: why", then MPI_Abort ends every
 * rank. Over threads: every wait of every member (collectives, receives) returns MB_EMPI from
 * now on, at once for those already waiting; mb_comm_aborted_by names the member that aborted
 * first, whose caller reports why. Ranks x threads: the threads of this process are woken, and
 * the job ends by MPI_Abort from the thread that makes the MPI calls (a thread that is not it
 * prints `why` there and then). */
void mb_comm_abort_why(mb_communicator *c, int code, const char *why);
void mb_comm_abort(mb_communicator *c, int code); /* mb_comm_abort_why without a line */
/* The member that called mb_comm_abort first, or -1 while none has (threads; -1 over MPI, where
 * an abort ends the process). */
int mb_comm_aborted_by(const mb_communicator *c);
/* Every wait from now on (a collective, a receive, a barrier) ends after `seconds` (0: never).
 * Over threads the waiting member then aborts the group (mb_comm_timed_out says so, the wait
 * returns MB_EMPI); over MPI, where a blocking call cannot be left, a watchdog thread prints one
 * line naming the rank and the limit and ends this process (exit status 1), and mpirun ends
 * the others. Call it on every member (threads) or once per process (MPI). */
void mb_comm_set_timeout(mb_communicator *c, double seconds);
/* 1 when a wait of this member ran past the timeout. */
int mb_comm_timed_out(const mb_communicator *c);

void mb_comm_free(mb_communicator *c);

/* ---- training runs (train/run*.c): the loop behind mbtrain -------------------------------- */

/* One training run of one learner: read the description, load (or take) the data, build the
 * network and optimiser, and step through shuffled mini-batches until the target loss on the
 * fixed evaluation subset, the update bound or the epoch bound is reached; evaluate every
 * eval_every updates; write the run log and checkpoints atomically; resume from a checkpoint.
 * A learner (network, optimiser, data cursor with its own PRNG) is the unit the loop drives, so
 * that the parallel trainers can drive several. Never prints: progress goes to a callback. */

struct mb_data_splits; /* data/mb_data.h */

/* What the progress callback sees after every update. */
typedef struct mb_run_progress {
    long update;          /* updates done */
    long max_updates;     /* the bound from max_updates and epochs, 0 when there is none */
    double epoch;         /* epochs done, fractional (samples / training samples) */
    double loss;          /* this update's mini-batch loss */
    double eval_loss;     /* the last evaluation's loss, NAN before the first */
    double wall_s;        /* training seconds so far (evaluations excluded) */
    size_t samples;       /* training samples processed (all learners) */
} mb_run_progress;

typedef struct mb_run_options {
    const char *net;               /* cfg name or path (mb_net_desc_read) */
    const char *data;              /* dataset spec (mb_data_load); recorded in the log */
    const struct mb_data_splits *splits; /* data already loaded from `data`, or NULL to load */
    double eval_frac;              /* fraction of training samples in the eval subset (0.2) */
    unsigned long data_seed;       /* picks the eval subset when loading (0), so that runs with
                                      different seeds share one eval subset */
    mb_optim_params optim;         /* algorithm, lr, momentum, weight decay, lr schedule */
    int batch;                     /* mini-batch size M, samples per update (> 0) */
    unsigned long seed;            /* initialisation, shuffling, dropout */
    int threads;                   /* the network's worker threads (its context's pool);
                                      recorded in the log */
    int eval_threads;              /* parallel learners: worker threads of rank 0's evaluation
                                      network (the other ranks wait idle while it evaluates);
                                      0 (default): threads */
    mb_backend_kind backend;       /* what the learner computes with (CPU); recorded in the log
                                      with the device's name */
    int device;                    /* the backend's device index (0) */
    mb_conv_algo conv_algo;        /* for conv layers whose cfg names none (MB_CONV_AUTO) */
    double target_loss;            /* stop at the first eval_loss <= this; NAN for no target */
    long eval_every;               /* updates between evaluations (> 0; default 100) */
    int no_bisect;                 /* 0 (default): with a target, find the first update whose
                                      eval_loss <= target_loss by bisection over the parameter
                                      snapshots of the updates since the last evaluation
                                      (eval_every x params floats held; W x params with
                                      eval_adapt); 1: report the first *evaluated*
                                      update that reached it (a multiple of eval_every
                                      without eval_adapt) */
    int eval_adapt;                /* 0 (default): evaluate every eval_every updates; 1: with a
                                      target, space the scheduled evaluations by the decline
                                      rate of the last two, at most halfway to the predicted
                                      crossing, at least eval_every and at most the window cap
                                      (mb_run_eval_cap); plain eval_every near the target */
    double check_frac;             /* 0 (default): every evaluation is a full one; in (0, 1),
                                      with a target: the scheduled evaluations and the
                                      bisection's go by stages, this fraction of the eval
                                      subset first (or less after a check far above the
                                      target), a quarter more at each stage, and stop where
                                      the samples seen rule the target out (estimate more than
                                      check_sigmas standard errors above it, or a loss sum past
                                      target x the subset's size), the samples drawn by strata
                                      of the last full evaluation's losses (train/run_check.c) */
    double check_sigmas;           /* k: a check rules the target out when its estimate is more
                                      than k standard errors above it (default 4) */
    int no_test_eval;              /* 1: skip the final test-set evaluation (test_* stay NAN) */
    long max_updates;              /* stop after this many updates in all; 0 = no bound */
    double epochs;                 /* stop after this many epochs (fractional allowed); 0 = none */
    const char *log_path;          /* run log (CSV of docs/design.md, "Run log";
                                      atomic), NULL for none */
    const char *checkpoint_path;   /* checkpoint file (atomic), NULL for none */
    long checkpoint_every;         /* updates between checkpoints (> 0 with checkpoint_path) */
    const char *resume_path;       /* continue from this checkpoint; NULL to start afresh */
    const char *tool;              /* for the log's metadata: tool name, argc, argv */
    int argc;
    char **argv;
    void (*progress)(const mb_run_progress *p, void *ctx); /* after each update, or NULL */
    void *progress_ctx;
    /* parallel learners (train/par*.c); MB_PAR_NONE trains the one learner of `optim` */
    int par;                       /* an mb_par_algo */
    int learners;                  /* learners (threads) in this process (>= 1; default 1) */
    double elastic_alpha;          /* EASGD's moving rate alpha = eta rho (NAN: 0.9 / p, beta
                                      = 0.9 as in Zhang et al.); SMA's alpha (NAN: 1 / k) */
    long tau;                      /* communication period in local steps (easgd-sync, async
                                      EASGD, EAMSGD, Hogwild, DOWNPOUR; default 1; the others
                                      have none and refuse tau != 1) */
    long n_push, n_fetch;          /* DOWNPOUR: local steps between pushes of the gradient sum
                                      and between fetches of the centre (Dean et al.; 0: tau) */
    int grad_after_exchange;       /* easgd-async, eamsgd, easgd-hogwild: 1 takes the gradient
                                      after the elastic exchange (mbkit's rule before issue 28),
                                      0 (default) at the copy from before it, as Zhang et al.'s
                                      Algorithms 1 and 2 */
    double wait_timeout;           /* seconds a learner waits for the others (a collective, a
                                      message) before the job ends (default 600; 0: forever) */
    double par_momentum;           /* EAMSGD's Nesterov delta (NAN: 0.99), SMA's centre momentum
                                      mu (NAN: 0.9) */
    int no_overlap;                /* easgd-sync: 1 = blocking reduce after the gradient (You et
                                      al.'s unoptimised form), 0 = reduce overlapped with it */
    int sma_tune;                  /* sma: tune learners per process from 1 up to `learners`
                                      (Crossbow section 4) */
    long sma_tune_window;          /* updates per tuning step (default 20) */
    mb_communicator *comm;         /* the MPI ranks (mb_comm_mpi_create), or NULL for one
                                      process */
} mb_run_options;

/* Defaults: eval_frac 0.2, momentum 0.9 (used by momentum and Nesterov), lr 0.05, batch 64,
 * eval_every 100, epochs 10, target_loss NAN, threads 1, conv_algo MB_CONV_AUTO, SGD; one
 * learner (par MB_PAR_NONE, learners 1, tau 1, n_push and n_fetch 0 (tau), elastic_alpha and
 * par_momentum NAN: the algorithm's default, sma_tune_window 20, wait_timeout 600, no
 * communicator). */
void mb_run_options_init(mb_run_options *o);

/* ---- learners: the unit every trainer steps (train/run_learner.c) ------------------------ */

/* A learner is one stream of updates: a network, its optimiser and a cursor over a shuffled
 * training set, with its own PRNG state (no globals), so several can live in one process.
 * mb_train_run drives one; mbprobe step times mb_learner_step, the very update mbtrain runs;
 * the parallel trainers will drive several. The training set is passed to every step, not
 * owned: several learners can draw from one set. */

struct mb_dataset; /* data/mb_data.h */

/* Where a learner is in its pass over the training data: a permutation per epoch, drawn from
 * rng when the epoch starts; batches are consecutive slices of it, and the last incomplete slice
 * of an epoch is dropped so every update sees exactly `batch` samples. */
typedef struct mb_cursor {
    uint32_t *perm;        /* n indices into the training set */
    size_t n;              /* training samples */
    size_t pos;            /* next position in perm */
    long epoch;            /* 0-based epoch the next batch belongs to */
    uint64_t rng;          /* shuffling PRNG state (mb_rng_* of data/mb_data.h) after drawing
                              perm: a context, not a global */
} mb_cursor;

/* A learner: everything one stream of updates owns. */
typedef struct mb_learner {
    mb_net *net;           /* its model copy (owned) */
    mb_optim *opt;         /* its optimiser and velocity (owned) */
    mb_cursor cur;         /* where it is in its shuffled pass over the training set */
    int batch;             /* samples per update */
    int max_batch;         /* the batch it was built for: xb, yb and the network hold this many
                              samples, the most mb_learner_set_batch allows */
    float *xb;             /* the gathered batch's inputs, max_batch * c*h*w floats */
    int *yb;               /* its labels, max_batch ints */
    int span;              /* samples the cursor advances per step: batch, or a whole
                              mini-batch of several learners (mb_learner_set_slice) */
    int offset;            /* where this learner's batch starts inside the span */
    mb_ctx *ctx;           /* what its network computes with (owned): o->backend, o->device,
                              o->threads */
    float *host_params;    /* host copy of the parameters where the backend's memory is not the
                              host's (the optimiser steps on the host), else NULL */
    float *host_grads;     /* host copy of the gradients, likewise */
} mb_learner;

/* Builds a learner for o->batch samples per update over a training set of n_train samples:
 * its context (o->backend, o->device, o->threads), the network for desc on it (o->seed,
 * o->conv_algo), the optimiser o->optim, and the
 * first epoch's permutation (shuffled from o->seed, a stream separate from the network's).
 * Uses no other field of o. MB_EINVAL when n_train < o->batch (a batch is never drawn from a
 * smaller set) or above 2^32; the errors of mb_net_create and mb_optim_create; MB_ENOMEM. On
 * error *l is all zeros. */
int mb_learner_init(mb_learner *l, const mb_net_desc *desc, const mb_run_options *o,
                    size_t n_train, mb_error *err);
/* Frees what the learner owns (never the training set); NULL-safe, and safe on a zeroed one. */
void mb_learner_free(mb_learner *l);

/* One update: takes the next `batch` samples of the permutation from `train` (advancing the
 * cursor, reshuffling at an epoch boundary) into xb/yb, runs forward/backward and one optimiser
 * step. *loss gets the batch's loss, *epoch the batch's epoch. `train` must be the set of
 * n_train samples the learner was built for, of the network's input shape. Errors: those of
 * mb_net_forward_backward (a label out of range: MB_EINVAL). */
int mb_learner_step(mb_learner *l, const struct mb_dataset *train, double *loss, long *epoch,
                    mb_error *err);

/* mb_learner_step in its three parts, for the parallel trainers that put communication
 * between them: gather takes the next batch into xb/yb (advancing the cursor by `span`,
 * reshuffling at an epoch boundary; *epoch gets the batch's epoch); grad runs forward/backward
 * at the network's parameters (gradients in mb_net_grads, *loss the batch's loss); apply does
 * one optimiser step with those gradients. step = gather + grad + apply. */
void mb_learner_gather(mb_learner *l, const struct mb_dataset *train, long *epoch);
int mb_learner_grad(mb_learner *l, double *loss, mb_error *err);
void mb_learner_apply(mb_learner *l);

/* From the next step on, the cursor advances `span` samples per step and this learner takes
 * its `batch` samples starting `offset` into them: P learners with the same shuffling seed,
 * offsets 0, m, 2m, ... and span P m see together exactly the mini-batches of one learner at
 * M = P m (sgd-sync). MB_EINVAL unless 0 <= offset and offset + batch <= span <= n_train. */
int mb_learner_set_slice(mb_learner *l, int offset, int span, mb_error *err);

/* Samples per update from the next step on: 1 <= batch <= l->max_batch (else MB_EINVAL, and
 * the batch is unchanged). The cursor goes on where it is. For a caller that steps one learner
 * at several batch sizes (mbprobe step); a training run keeps the batch it was built for. */
int mb_learner_set_batch(mb_learner *l, int batch, mb_error *err);

/* What a run did. */
typedef struct mb_run_result {
    char net[64];          /* the description's name */
    char device[128];      /* the name of the device it ran on (mb_ctx_device_name) */
    size_t params;         /* parameters of the network */
    long updates;          /* updates done (including those before a resume) */
    double epochs;         /* epochs done, samples / training samples */
    size_t samples;        /* training samples processed */
    double wall_s;         /* training seconds (evaluations excluded; summed across resumes) */
    double eval_s;         /* seconds spent evaluating in this process */
    double loss;           /* the last mini-batch loss */
    double eval_loss;      /* mean loss on the eval subset at the end */
    double eval_acc;       /* accuracy on the eval subset at the end, in [0, 1] */
    double test_loss;      /* on the test set at the end (NAN when the data has none) */
    double test_acc;
    int reached;           /* 1 when an evaluation reached target_loss */
    long reached_update;   /* the first update whose evaluation reached it, 0 when none; with
                              bisection (no_bisect = 0) the exact first update of the window in
                              which an evaluation reached it, else the evaluated update (a
                              multiple of eval_every without eval_adapt) */
    double reached_wall_s; /* training seconds at reached_update (that log row's wall_s), 0 when
                              not reached */
    double snap_s;         /* seconds copying parameter snapshots for the bisection (apart from
                              wall_s and eval_s) */
    long evals;            /* evaluations of the eval subset in this process, the bisection's
                              included (the test-set evaluation is not counted) */
    long checks;           /* evaluations that a check ruled out part way (check_frac): not
                              counted in evals, their time is in eval_s */
    size_t eval_samples;   /* samples of the eval subset evaluated, both kinds (the cost of
                              evaluation in a measure the machine's speed does not change) */
    size_t snap_bytes;     /* bytes held for the bisection's snapshots, 0 when not bisecting */
    int diverged;          /* 1 when the run stopped because it diverged (see mb_train_run) */
    long diverged_update;  /* the update at which it did, 0 when it did not */
    /* parallel runs (zeros and NANs for one learner) */
    int learners;          /* learners in all (1 for a single-learner run) */
    int ranks;             /* MPI ranks (1 without mpirun) */
    double t_compute_s;    /* mean per learner: forward/backward seconds */
    double t_comm_s;       /* mean per learner: seconds in communication (waits included) */
    double t_data_s;       /* mean per learner: gathering batches */
    double t_update_s;     /* mean per learner: optimiser and averaging arithmetic */
    double b_simple;       /* gradient noise scale B_simple (McCandlish et al. eq. 2.8, from
                              the per-learner and averaged gradients; sgd-sync), NAN if none */
    int failed_together;   /* parallel runs over MPI: every rank returned this error at the
                              same point (nobody waits): the caller need not abort the job, and
                              only rank 0's message (the others' are empty) is worth printing */
} mb_run_result;

/* Runs training as described above. A run that diverges (a non-finite training loss, or an
 * evaluation loss that is non-finite or above 100 ln(classes)) is a result, not an error: it
 * stops there, writes its log with `# diverged=U` in the metadata and diverged=yes in the
 * summary, and returns MB_OK with r->diverged = 1. Errors: MB_EINVAL (bad options, a net whose
 * input shape or classes differ from the data's, a checkpoint of another net, batch or
 * algorithm, bisection snapshots above 2 GiB), MB_EFORMAT and MB_EIO from the cfg, data and
 * checkpoint files, MB_ENOMEM. The log and checkpoint are never left half-written: nothing is
 * written at the log path when the run fails. */
int mb_train_run(const mb_run_options *o, mb_run_result *r, mb_error *err);

/* The window cap W of --eval-adapt: the most updates between two scheduled evaluations, for
 * which the bisection's snapshot block is allocated. 8 x eval_every, lowered so that the block
 * (W x params floats) is at most 256 MiB, but never below eval_every (whose own limit is the
 * 2 GiB of mb_train_run). eval_every without eval_adapt or without a target. */
long mb_run_eval_cap(const mb_run_options *o, size_t params);

/* The pacing of --eval-adapt: what the scheduled evaluations so far say about the loss. */
typedef struct mb_run_pace {
    long u_first;          /* the first scheduled evaluation's update, -1 before one */
    double loss_first;     /* its eval loss */
    double loss_last;      /* the last scheduled evaluation's eval loss */
    double rise;           /* the largest rise of the eval loss between two consecutive scheduled
                              evaluations so far (>= 0): the noise margin */
} mb_run_pace;

/* Starts a pacing with no evaluation seen. */
void mb_run_pace_init(mb_run_pace *p);

/* Records the scheduled evaluation at update u with eval loss `loss` and returns the gap to the
 * next one. The distance left is d = loss - target - rise (the loss can dip by as much as it
 * has been seen to jump); the rate is the mean decline since the first scheduled evaluation,
 * r = (loss_first - loss) / (u - u_first) (a trend over the run, not the noisy last step; the
 * decline slows down, so the mean rate overstates the current one and the gap errs short). The
 * gap is floor(0.5 d / r), halfway to the crossing so predicted, clamped to [eval_every, cap]
 * and rounded down to a multiple of eval_every, so that the scheduled evaluations are a subset of
 * plain spacing's and, once dense, the very same; eval_every at the first evaluation, when
 * r <= 0 or when d <= 0. */
long mb_run_eval_gap(mb_run_pace *p, long eval_every, long cap, double target, long u,
                     double loss);

/* The summary line "net=... updates=... epochs=... wall_s=... eval_loss=... test_acc=...
 * reached=yes|no ..." (no newline) into buf; returns what snprintf returns. */
int mb_run_result_format(const mb_run_result *r, const mb_run_options *o, char *buf, size_t n);

/* ---- parallel learners (train/par*.c; docs/algorithms.md) -------------------------------- */

typedef enum mb_par_algo {
    MB_PAR_NONE = 0,        /* one learner: optim.kind (sgd, momentum, nesterov) */
    MB_PAR_SGD_SYNC,        /* P learners of M/P samples, gradients averaged by allreduce */
    MB_PAR_DOWNPOUR,        /* asynchronous SGD against a parameter server (rank 0) */
    MB_PAR_EASGD,           /* round-robin EASGD (Zhang et al.'s original) */
    MB_PAR_EASGD_ASYNC,     /* asynchronous EASGD, period tau, server rank 0 */
    MB_PAR_EAMSGD,          /* asynchronous EASGD with Nesterov local steps */
    MB_PAR_EASGD_HOGWILD,   /* threads sharing the centre lock-free */
    MB_PAR_EASGD_SYNC,      /* You et al.: tree reduction + broadcast every step */
    MB_PAR_SMA,             /* Crossbow's synchronous model averaging */
    MB_PAR_N
} mb_par_algo;

/* "sgd-sync", "downpour", "easgd", ...; parse: MB_EINVAL for other names. */
const char *mb_par_algo_name(int algo);
int mb_par_algo_parse(const char *name, int *algo);
/* 1 when the algorithm keeps a parameter server (rank 0 serves, the others learn). */
int mb_par_algo_has_server(int algo);

/* Checks that the algorithm can use `ranks` MPI ranks and `learners` threads per process and
 * that the batch splits among the learners; MB_EINVAL with one line in err otherwise. */
int mb_par_check(const mb_run_options *o, int ranks, mb_error *err);

/* The update rules of docs/algorithms.md on flat arrays of n floats (what the trainers call, so
 * that tests can check them step by step). */
/* The elastic exchange: e = alpha (x - c); x -= e; c += e. */
void mb_par_elastic(float *x, float *c, size_t n, float alpha);
/* The learner's half of an asynchronous exchange when the gradient is taken at the copy from
 * before it (Zhang et al. Algorithms 1 and 2): c (the centre the server had) becomes
 * e = alpha (x - c); x is left as it is. */
void mb_par_elastic_term(const float *x, float *c, size_t n, float alpha);
/* The asynchronous learner's SGD step (Zhang et al. Algorithm 1): x <- (x - e) - eta g, with g
 * taken at the x from before the exchange; e NULL for a step without an exchange. */
void mb_par_async_sgd(float *x, const float *g, const float *e, size_t n, float eta);
/* A synchronous EASGD learner: x <- x - eta g - alpha (x - c) (eta rho = alpha; c unchanged). */
void mb_par_easgd_learner(float *x, const float *g, const float *c, size_t n, float eta,
                          float alpha);
/* The synchronous EASGD centre: c <- (1 - p alpha) c + alpha sum (sum = sum_i x^i_old). */
void mb_par_easgd_centre(float *c, const float *sum, size_t n, float alpha, int p);
/* A round-robin EASGD turn of the active learner (Zhang et al. section 4: exchange and gradient
 * step in one time slot, both at the old x and c): e = alpha (x - c); x <- x - eta g - e;
 * c <- c + e. */
void mb_par_easgd_turn(float *x, const float *g, float *c, size_t n, float eta, float alpha);
/* An SMA learner: cj = alpha (x - z); x <- x - gamma g - cj. */
void mb_par_sma_learner(float *x, const float *g, const float *z, float *cj, size_t n,
                        float gamma, float alpha);
/* The SMA centre from csum = sum_j c_j: z_new = z + csum + mu (z - zprev); zprev <- z;
 * z <- z_new. */
void mb_par_sma_centre(float *z, float *zprev, const float *csum, size_t n, float mu);

/* EAMSGD's local step (Zhang et al. Algorithm 2), v <- delta v - eta g(x + delta v);
 * x <- x + v, in two halves around the gradient: lookahead saves x in keep and moves x to
 * x + delta v (where the gradient is taken); step sets v and x = keep + v. */
void mb_par_nesterov_lookahead(float *x, float *keep, const float *v, size_t n, float delta);
void mb_par_nesterov_step(float *x, const float *keep, float *v, const float *g, size_t n,
                          float eta, float delta);

/* The name a log and a summary give the run's algorithm: the optimiser's, or the parallel
 * algorithm's. */
const char *mb_run_algo_name(const mb_run_options *o);

/* A parallel run (o->par != MB_PAR_NONE): every rank of o->comm (or the one process) calls it
 * with the same options; o->learners threads per process. Rank 0 evaluates the centre (or the
 * averaged) model with mb_train_run's machinery and writes the one log; r is filled on every
 * rank. Called by mb_train_run for o->par != MB_PAR_NONE. */
int mb_par_run(const mb_run_options *o, mb_run_result *r, mb_error *err);

/* "sgd", "momentum", "nesterov"; parse returns MB_EINVAL for other names. */
const char *mb_optim_kind_name(mb_optim_kind kind);
int mb_optim_kind_parse(const char *name, mb_optim_kind *kind);

#endif /* MB_TRAIN_H */
