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

/* ---- backend registry ----------------------------------------------------------------------- */

/* The compute backends mbkit knows. */
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
    MB_LAYER_SOFTMAX    /* softmax + cross-entropy loss; always the last layer */
} mb_layer_type;

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
} mb_layer_desc;

typedef struct mb_net_desc {
    char name[64];          /* [net] name=, or the file's base name */
    int in_c, in_h, in_w;   /* input shape: [net] channels, height, width */
    int classes;            /* outputs of the last fc layer */
    size_t n_layers;
    mb_layer_desc *layers;  /* n_layers entries, owned by the description */
} mb_net_desc;

/* Reads a description: `name_or_path` is a path to a .cfg file, or a bare name ("lenet5")
 * looked up as data/nets/NAME.cfg under the source tree, then $MBKIT_NETS, then the installed
 * share/mbkit/nets. Unknown sections or keys, missing values, shapes that do not chain (an
 * output side < 1, an fc not followed by a valid shape, a missing final softmax) are MB_EFORMAT
 * with "file:line: ..." in err. The cfg format: INI sections [net], [conv], [maxpool],
 * [avgpool], [fc], [dropout], [relu], [tanh], [sigmoid], [softmax]; `activation=relu|tanh|sigmoid`
 * on conv or fc appends that activation layer. */
int mb_net_desc_read(const char *name_or_path, mb_net_desc **desc, mb_error *err);

/* Fills the shape fields of every layer from the input shape and checks they chain (used by the
 * reader and by code that builds descriptions directly). */
int mb_net_desc_infer(mb_net_desc *desc, mb_error *err);

void mb_net_desc_free(mb_net_desc *desc);

/* ---- convolution algorithms ----------------------------------------------------------------- */

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

/* Added by the kernels branch (the calls above cannot cache state between calls, and FFTW plan
 * creation is slow and not thread-safe): a plan fixes the algorithm and the shape (s->batch is
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

/* ---- networks ------------------------------------------------------------------------------- */

typedef struct mb_net mb_net;

typedef struct mb_net_options {
    int max_batch;          /* the largest batch forward/backward will be called with */
    unsigned long seed;     /* initialisation and dropout masks */
    mb_conv_algo algo;      /* algorithm for conv layers whose description says MB_CONV_AUTO */
    int threads;            /* worker threads (0 or 1: one, the caller's), at most
                               MB_NET_MAX_THREADS; see "Threads" below */
} mb_net_options;

enum { MB_NET_MAX_THREADS = 256 };

/* Threads. A network owns its thread policy: it starts threads - 1 persistent workers (pthreads)
 * at creation and joins them in mb_net_free. mb_net_forward_backward and mb_net_evaluate cut a
 * batch into min(threads, batch / 8) contiguous shards (at least one; shards of fewer than 8
 * samples cost more in hand-offs than they give, measured in net.c), each run by one worker with its own activations, masks, argmaxes, deltas, workspace and gradient buffer.
 * The shards' gradients (each already scaled by 1 / batch) are summed in shard order, so the
 * result is the batch-mean gradient and a given seed and thread count gives bit-identical
 * results run to run; another thread count gives the same loss and gradients up to float
 * rounding (the order of the sums over samples changes). Dropout masks depend on the seed, the
 * number of forward_backward calls so far, the layer and the sample's index in the batch, never
 * on the sharding.
 * OpenBLAS runs single-threaded inside shards: mb_net_create calls openblas_set_num_threads(1),
 * which is OpenBLAS's process-wide setting (it affects every OpenBLAS call in the process, not
 * only this network's). Measured on lenet5 (2 cores), OpenBLAS's own threads on these small
 * GEMMs cost more than they give; splitting the batch gives them. */

/* Builds a network for `desc` (copied), allocating parameters, gradients, activations and the
 * largest workspace once. Parameters are initialised (He-uniform for conv/fc weights followed by
 * ReLU, Glorot-uniform otherwise, zero biases) from opts->seed. */
int mb_net_create(const mb_net_desc *desc, const mb_net_options *opts, mb_net **net,
                  mb_error *err);
void mb_net_free(mb_net *net);

const mb_net_desc *mb_net_description(const mb_net *net);

/* The flat parameter and gradient blocks (mb_net_param_count floats each, same layout: for each
 * layer with parameters, its weights then its biases, in layer order). */
size_t mb_net_param_count(const mb_net *net);
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

/* The number of training steps (forward_backward calls) the network counts, which with the seed
 * picks its dropout masks; a resumed run sets it to the updates already done, so that it draws
 * the masks the uninterrupted run would have. */
unsigned long mb_net_steps(const mb_net *net);
void mb_net_set_steps(mb_net *net, unsigned long steps);

/* Uses `algo` for conv layer `layer` (index into the description) from now on; MB_ENOTSUP when it
 * cannot do that layer's shape. Grows the workspace if needed. */
int mb_net_set_conv_algo(mb_net *net, size_t layer, mb_conv_algo algo, mb_error *err);

/* ---- optimisers (ALGORITHMS.md, "Single learner") ------------------------------------------- */

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

/* The learning rate the next step will use. */
double mb_optim_lr(const mb_optim *opt);

/* The state that a checkpoint must carry: velocity (n floats, NULL for SGD) and update count. */
float *mb_optim_state(mb_optim *opt);
long mb_optim_updates(const mb_optim *opt);
void mb_optim_set_updates(mb_optim *opt, long updates);

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
    int threads;                   /* the network's worker threads (mb_net_options.threads);
                                      recorded in the log */
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
                                      subset first, doubling, and stop where the samples seen
                                      rule the target out (estimate more than check_sigmas
                                      standard errors above it, or a loss sum past target x the
                                      subset's size; mb_run_check_estimate) */
    double check_sigmas;           /* k: a check rules the target out when its estimate is more
                                      than k standard errors above it (default 4) */
    int no_test_eval;              /* 1: skip the final test-set evaluation (test_* stay NAN) */
    long max_updates;              /* stop after this many updates in all; 0 = no bound */
    double epochs;                 /* stop after this many epochs (fractional allowed); 0 = none */
    const char *log_path;          /* run log (CSV of DESIGN.md, atomic), NULL for none */
    const char *checkpoint_path;   /* checkpoint file (atomic), NULL for none */
    long checkpoint_every;         /* updates between checkpoints (> 0 with checkpoint_path) */
    const char *resume_path;       /* continue from this checkpoint; NULL to start afresh */
    const char *tool;              /* for the log's metadata: tool name, argc, argv */
    int argc;
    char **argv;
    void (*progress)(const mb_run_progress *p, void *ctx); /* after each update, or NULL */
    void *progress_ctx;
} mb_run_options;

/* Defaults: eval_frac 0.2, momentum 0.9 (used by momentum and Nesterov), lr 0.05, batch 64,
 * eval_every 100, epochs 10, target_loss NAN, threads 1, conv_algo MB_CONV_AUTO, SGD. */
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
} mb_learner;

/* Builds a learner for o->batch samples per update over a training set of n_train samples:
 * the network for desc (o->seed, o->threads, o->conv_algo), the optimiser o->optim, and the
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

/* Samples per update from the next step on: 1 <= batch <= l->max_batch (else MB_EINVAL, and
 * the batch is unchanged). The cursor goes on where it is. For a caller that steps one learner
 * at several batch sizes (mbprobe step); a training run keeps the batch it was built for. */
int mb_learner_set_batch(mb_learner *l, int batch, mb_error *err);

/* What a run did. */
typedef struct mb_run_result {
    char net[64];          /* the description's name */
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

/* The check's estimate of the eval subset's mean loss from its first `chunks` equal chunks,
 * whose mean losses are cur[] now. Plain: the chunks' mean, with the standard error of their
 * spread. With a reference (ref != NULL: the chunk means at the last full evaluation, whose loss
 * was ref_loss; chunks >= 3): the regression estimate mean(cur) + b (ref_loss - mean(ref)), b
 * the slope of cur on ref, with the standard error of the residuals (chunks - 2 degrees of
 * freedom): the chunks that were hard then are hard now, so the slice's luck then tells its
 * luck now. Whichever has the smaller standard error is *est, *se. Both errors are multiplied by
 * sqrt(1 - fpc) (fpc: the share of the eval subset seen, which is part of what it estimates).
 * NAN when chunks < 2. */
void mb_run_check_estimate(const double *cur, const double *ref, double ref_loss, long chunks,
                           double fpc, double *est, double *se);

/* The summary line "net=... updates=... epochs=... wall_s=... eval_loss=... test_acc=...
 * reached=yes|no ..." (no newline) into buf; returns what snprintf returns. */
int mb_run_result_format(const mb_run_result *r, const mb_run_options *o, char *buf, size_t n);

/* "sgd", "momentum", "nesterov"; parse returns MB_EINVAL for other names. */
const char *mb_optim_kind_name(mb_optim_kind kind);
int mb_optim_kind_parse(const char *name, mb_optim_kind *kind);

#endif /* MB_TRAIN_H */
