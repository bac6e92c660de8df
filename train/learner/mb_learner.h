/* mb_learner.h — train/learner/: the learner every trainer steps (also what mbprobe step
 * times): a network of layers on a backend with forward and backward passes, its optimiser, and
 * a cursor over the shuffled training set.
 *
 * A network owns its parameters and their gradients as two contiguous blocks with the same
 * layout (views per layer), so that optimisers, model averaging (EASGD, SMA) and MPI
 * collectives work on one flat array. Hot paths take their workspaces from the network,
 * allocated once at creation for the largest batch.
 */
#ifndef MB_LEARNER_H
#define MB_LEARNER_H

#include <stddef.h>
#include <stdint.h>

#include "../backend/mb_backend.h"

typedef struct mb_run_options mb_run_options; /* train/run/mb_run.h: what mb_learner_init reads */

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
    int step_batch;         /* the batch training steps with, where max_batch is larger for an
                               evaluation's chunks (0: max_batch); out-of-memory lines name both */
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
/* MB_ENOMEM with mb_net_create's line for its samples held at once (the network, its largest
 * layer's output a sample, the batch): for an allocation that fails once the network is built,
 * which its activations left no room for (campaign 43's F7: a bare "out of memory"). */
void mb_net_oom(const mb_net *net, mb_error *err);

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
/* The same with each sample's loss into losses[0 .. n) (what the staged checks of train/run/run.c
 * estimate from); the mean loss is their mean. */
int mb_net_evaluate_each(mb_net *net, const float *x, const int *y, size_t n, double *losses,
                         size_t *correct);

/* Sets the number of training steps (forward_backward calls) the network counts, which with the
 * seed picks its dropout masks: a resumed run sets it to the updates already done, so that it
 * draws the masks the uninterrupted run would have. */
void mb_net_set_steps(mb_net *net, unsigned long steps);
/* The training steps counted so far (what mb_net_set_steps sets). */
unsigned long mb_net_steps(const mb_net *net);
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
    MB_OPTIM_NESTEROV = 2,  /* v <- mu v - lr g(x + mu v); x <- x + v, in the look-ahead form
                               that needs only g at the stored parameters (Sutskever et al.) */
    MB_OPTIM_N              /* how many there are */
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

/* Binds the optimiser to ctx when ctx's memory is not the host's (a no-op otherwise): its
 * velocity moves there, and from then on mb_optim_step takes x and g in that memory and steps
 * them with the backend's optim_step, so that a device learner's parameters never leave the
 * device. Free the optimiser before the context. MB_ENOMEM, MB_EDEVICE. */
int mb_optim_bind(mb_optim *opt, mb_ctx *ctx, mb_error *err);

/* One update of x (n floats) with gradient g, in host memory or, once bound, the context's;
 * counts updates for the schedule. MB_OK, or MB_EDEVICE when the device fails (the update is
 * then not counted). */
int mb_optim_step(mb_optim *opt, float *x, const float *g);

/* Steps only x[0 .. n_train) from now on (n_train <= n): the tail is a network's state (BN
 * running statistics), which no update or weight decay may touch. */
void mb_optim_set_trainable(mb_optim *opt, size_t n_train);

/* The learning rate the next step will use. */
double mb_optim_lr(const mb_optim *opt);
/* The scheduled learning rate of update `update` (0-based: the first update is 0):
 * p->lr x p->lr_step_gamma^floor(update / p->lr_step_every), or p->lr without a schedule.
 * What mb_optim_step uses, for the rules that step without an mb_optim (EASGD, SMA). */
double mb_optim_lr_at(const mb_optim_params *p, long update);

/* The state that a checkpoint must carry: velocity (n floats, NULL for SGD) and update count.
 * A bound optimiser's velocity is on its device: mb_optim_state is NULL there (no device
 * learner is checkpointed: mbtrain refuses --backend cuda). */
float *mb_optim_state(mb_optim *opt);
long mb_optim_updates(const mb_optim *opt);
void mb_optim_set_updates(mb_optim *opt, long updates);

/* ---- learners: the unit every trainer steps (train/learner/learner.c) ------------------------ */

/* A learner is one stream of updates: a network, its optimiser and a cursor over a shuffled
 * training set, with its own PRNG state (no globals), so several can live in one process.
 * mb_train_run drives one; mbprobe step times mb_learner_step, the very update mbtrain runs;
 * the parallel trainers will drive several. The training set is passed to every step, not
 * owned: several learners can draw from one set. */

struct mb_dataset; /* data/mb_dataset.h */

/* Where a learner is in its pass over the training data: a permutation per epoch, drawn from
 * rng when the epoch starts; batches are consecutive slices of it, and the last incomplete slice
 * of an epoch is dropped so every update sees exactly `batch` samples. */
typedef struct mb_cursor {
    uint32_t *perm;        /* n indices into the training set */
    size_t n;              /* training samples */
    size_t pos;            /* next position in perm */
    long epoch;            /* 0-based epoch the next batch belongs to */
    uint64_t rng;          /* shuffling PRNG state (mb_rng_* of data/mb_rng.h) after drawing
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
    float *host_params;    /* host room for the parameters where the backend's memory is not
                              the host's (the optimiser steps them on the device), else NULL */
    float *host_grads;     /* host room for the gradients (their norm), likewise */
    float *state_keep;     /* host memory backends, nets with BN: room for the running
                              statistics (mb_net_param_count - mb_net_trainable_count floats)
                              that mb_learner_half_norm2 restores, else NULL */
} mb_learner;

/* Builds a learner for o->batch samples per update over a training set of n_train samples:
 * its context (o->backend, o->device, o->threads), the network for desc on it (o->seed,
 * o->conv_algo), the optimiser o->optim, and the
 * first epoch's permutation (shuffled from o->seed, a stream separate from the network's).
 * Uses no other field of o. MB_EUSAGE for o->conv_algo on a net without a convolution
 * (mb_net_desc_check_conv_algo); MB_EINVAL when n_train < o->batch (a batch is never drawn from a
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
 * one optimiser step with those gradients, where they live (MB_EDEVICE when the device fails).
 * step = gather + grad + apply. */
void mb_learner_gather(mb_learner *l, const struct mb_dataset *train, long *epoch);
int mb_learner_grad(mb_learner *l, double *loss, mb_error *err);
int mb_learner_apply(mb_learner *l, mb_error *err);

/* From the next step on, the cursor advances `span` samples per step and this learner takes
 * its `batch` samples starting `offset` into them: P learners with the same shuffling seed,
 * offsets 0, m, 2m, ... and span P m see together exactly the mini-batches of one learner at
 * M = P m (sgd-sync). MB_EINVAL unless 0 <= offset and offset + batch <= span <= n_train. */
int mb_learner_set_slice(mb_learner *l, int offset, int span, mb_error *err);

/* Samples per update from the next step on: 1 <= batch <= l->max_batch (else MB_EINVAL, and
 * the batch is unchanged). The cursor goes on where it is. For a caller that steps one learner
 * at several batch sizes (mbprobe step); a training run keeps the batch it was built for. */
int mb_learner_set_batch(mb_learner *l, int batch, mb_error *err);

/* The gradient's squared norm at the network's parameters over the first floor(batch / 2)
 * samples of the gathered batch (xb, yb), into *g2: a half-batch forward/backward that leaves
 * no trace on the run. The network's step counter (dropout masks: the half draws the masks of
 * the full batch's first half) and batch normalisation's running statistics are restored, so
 * the next mb_learner_grad computes what it would have without it; the gradient block is
 * overwritten (the caller's mb_learner_grad follows). MB_EINVAL when batch < 2 (no half). */
int mb_learner_half_norm2(mb_learner *l, double *g2, mb_error *err);
/* The squared norm of the trainable part of the gradient block (downloaded to host_grads first
 * where the backend's memory is not the host's). */
double mb_learner_grad_norm2(mb_learner *l);

/* ---- the gradient noise scale (train/learner/noise.c) ----------------------------------------- */

/* McCandlish et al. (2018), appendix A.1: B_simple = S / |G|^2 from the squared norms of
 * gradients over b and B > b samples, averaged over the updates given (the whole run, and the
 * window since the last mb_noise_window call) before the ratio. */
typedef struct mb_noise {
    double b, B;            /* samples behind the small and the big gradient; b = 0: off */
    double run_small, run_big; /* sums of |G_b|^2 and |G_B|^2 over the run's measured updates */
    long run_n;             /* measured updates of the run */
    double win_small, win_big; /* the same since the last mb_noise_window */
    long win_n;
} mb_noise;

/* What the sums give; every field NAN (n 0) with no measured update. */
typedef struct mb_noise_est {
    double g2;              /* |G|^2, the true gradient's squared norm */
    double s;               /* S = tr(Sigma), the per-sample gradient covariance's trace */
    double b_simple;        /* S / |G|^2 in samples; NAN unless both are positive */
    long n;                 /* measured updates behind it */
} mb_noise_est;

/* Starts an estimator for norms over b and B samples; it stays off (adds nothing, estimates
 * NAN) unless 1 <= b < B (M = 1 has no smaller batch). */
void mb_noise_init(mb_noise *e, double b, double B);
/* One update's |G_b|^2 and |G_B|^2 (non-finite pairs are skipped). */
void mb_noise_add(mb_noise *e, double g2_small, double g2_big);
/* The estimates over the whole run. */
mb_noise_est mb_noise_run(const mb_noise *e);
/* The estimates over the window since the last call, and starts a new window. */
mb_noise_est mb_noise_window(mb_noise *e);
/* sum g[k]^2 over n floats of host memory, in double. */
double mb_noise_norm2(const float *g, size_t n);

/* "sgd", "momentum", "nesterov"; parse returns MB_EINVAL for other names. */
const char *mb_optim_kind_name(mb_optim_kind kind);
int mb_optim_kind_parse(const char *name, mb_optim_kind *kind);

#endif /* MB_LEARNER_H */
