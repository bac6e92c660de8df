/* backend_impl.h — private to train/: the backend interface (a struct of operations, as ggml's
 * ggml-backend-impl.h) and the context that carries it. net.c calls only these operations, so a
 * network runs on whichever backend its context names; the CPU kernels (train/backend/cpu/) and the CUDA
 * ones (train/backend/cuda/) each fill one mb_backend_ops.
 *
 * Buffers. Every tensor pointer an operation takes is the backend's memory, from ops->alloc:
 * host memory for the CPU, device memory for CUDA. Labels, loss sums and counts cross as host
 * values (the operations that need labels on the device copy them there). Workspaces come from
 * the caller, sized by conv_workspace.
 *
 * Not here: the thread pool (pool_impl.h; the context owns one), the optimisers' state and
 * schedule (train/learner/optim.c: optim_step below is their arithmetic on a backend), or the
 * communicator of the parallel trainers (the context will hold it).
 */
#ifndef MB_BACKEND_IMPL_H
#define MB_BACKEND_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "../../data/mb_rng.h"
#include "../../net/mb_net.h"
#include "mb_backend.h"
#include "pool_impl.h"

typedef struct mb_backend_ops {
    const char *name;      /* "cpu", "cuda": what tables and logs record */
    int host_memory;       /* 1: ops->alloc returns host memory that callers may read/write */

    /* Device. open fills ctx->device_name and ctx->dev (the backend's own state: handles,
     * streams) for ctx->device; close releases them. */
    int (*open)(mb_ctx *ctx, mb_error *err);
    void (*close)(mb_ctx *ctx);
    /* Waits until every operation issued so far has finished (timing needs it on a device). */
    void (*sync)(mb_ctx *ctx);

    /* Memory: 64-byte aligned, never zero bytes; NULL when out of memory. Copies between host
     * and the backend's memory, and a fill with zeros, of `bytes`. */
    void *(*alloc)(mb_ctx *ctx, size_t bytes);
    void (*release)(mb_ctx *ctx, void *p);
    int (*upload)(mb_ctx *ctx, void *dst, const void *src, size_t bytes);
    int (*download)(mb_ctx *ctx, void *dst, const void *src, size_t bytes);
    void (*zero)(mb_ctx *ctx, void *p, size_t bytes);
    /* y += x over n floats (the sum of shards' gradients). */
    void (*add)(mb_ctx *ctx, size_t n, const float *x, float *y);
    /* One optimiser update of n parameters x with gradient g and velocity v (NULL for SGD), all
     * in the backend's memory: optim_rule.h's rule `kind` (mb_optim_kind's values), so that the
     * parameters never leave the device. MB_EDEVICE when the device fails. */
    int (*optim_step)(mb_ctx *ctx, int kind, size_t n, float lr, float mu, float wd, float *x,
                      const float *g, float *v);

    /* Convolution algorithms: per pass, a list of `conv_algo_count(pass)` algorithms named by
     * conv_algo_name; conv_default picks one for a shape when the description names none.
     * conv_supported says whether one can do a shape (why otherwise); conv_workspace gives its
     * bytes for a pass. A plan fixes the shape (s->batch = the largest batch it serves) and one
     * algorithm per pass, and holds what they precompute. The three passes run `batch` samples
     * (<= the plan's), with ws holding the workspace of the plan's algorithm for that pass.
     * backward_data writes dx and backward_filter dw, db (neither accumulates). */
    int (*conv_algo_count)(mb_conv_pass pass);
    const char *(*conv_algo_name)(mb_conv_pass pass, int algo);
    int (*conv_default)(mb_ctx *ctx, mb_conv_pass pass, const mb_conv_shape *s);
    int (*conv_supported)(mb_ctx *ctx, mb_conv_pass pass, int algo, const mb_conv_shape *s,
                          char *why, size_t n);
    size_t (*conv_workspace)(mb_ctx *ctx, mb_conv_pass pass, int algo, const mb_conv_shape *s);
    int (*conv_plan_create)(mb_ctx *ctx, const mb_conv_shape *s, const int algo[3], void **plan,
                            mb_error *err);
    void (*conv_plan_free)(mb_ctx *ctx, void *plan);
    int (*conv_forward)(mb_ctx *ctx, const void *plan, int batch, const float *x,
                        const float *w, const float *b, float *y, void *ws);
    int (*conv_backward_data)(mb_ctx *ctx, const void *plan, int batch, const float *dy,
                              const float *w, float *dx, void *ws);
    int (*conv_backward_filter)(mb_ctx *ctx, const void *plan, int batch, const float *x,
                                const float *dy, float *dw, float *db, void *ws);

    /* The other layers, with the meaning of train/backend/cpu/layers_impl.h. Pooling takes the layer's
     * description (max or average by d->type); `arg` is max pooling's argmax buffer, NULL in
     * evaluation (no backward pass follows, so none is kept). The
     * backward pass also gets the forward pass's input x and output y: cuDNN's pooling backward
     * finds the maxima from them instead of an argmax (the CPU uses arg and ignores x, y). */
    void (*fc_forward)(mb_ctx *ctx, int batch, int in, int out, const float *x, const float *w,
                       const float *b, float *y);
    void (*fc_backward)(mb_ctx *ctx, int batch, int in, int out, const float *x, const float *w,
                        const float *dy, float *dx, float *dw, float *db);
    void (*pool_forward)(mb_ctx *ctx, const mb_layer_desc *d, int batch, const float *x,
                         float *y, int *arg);
    void (*pool_backward)(mb_ctx *ctx, const mb_layer_desc *d, int batch, const float *x,
                          const float *y, const float *dy, const int *arg, float *dx);
    void (*act_forward)(mb_ctx *ctx, mb_layer_type t, size_t n, const float *x, float *y);
    void (*act_backward)(mb_ctx *ctx, mb_layer_type t, size_t n, const float *y,
                         const float *dy, float *dx);
    /* Inverted dropout of `batch` samples of `per` values: in training, sample j's mask is drawn
     * from the stream mb_dropout_stream(key, first + j), so that masks never depend on how a
     * batch is split; in inference (train = 0) y = x. Backward: dx = dy mask over n values. */
    void (*dropout_forward)(mb_ctx *ctx, float p, int train, int batch, size_t per,
                            uint64_t key, size_t first, const float *x, float *y, float *mask);
    void (*dropout_backward)(mb_ctx *ctx, size_t n, const float *dy, const float *mask,
                             float *dx);
    /* Softmax cross-entropy of logits [batch, classes] against host labels: probabilities into
     * prob (may be NULL), summed per-sample losses added to *loss_sum, correct predictions to
     * *correct (may be NULL), and dx = (prob - onehot) * scale when dx is not NULL. */
    void (*softmax_xent)(mb_ctx *ctx, int batch, int classes, const float *logits,
                         const int *labels, float *prob, double *loss_sum, double *losses,
                         size_t *correct, float *dx, float scale);

    /* Graph layers (add, concat) and the routing of gradients between layers: rows copies of
     * len floats from src (rows `sstride` apart) to dst (rows `dstride` apart), added to dst
     * when accumulate is 1. NULL on a backend without graph layers (the network refuses them
     * at set-up). */
    void (*copy_rows)(mb_ctx *ctx, size_t rows, size_t len, const float *src, size_t sstride,
                      float *dst, size_t dstride, int accumulate);
    /* Batch normalisation over [batch, C, hw] (train/cpu/layers_impl.h has the meaning). The
     * per-channel statistics cross as host arrays of C values: the network reduces the shards'
     * partial sums on the host. NULL on a backend without batch normalisation (the network
     * refuses such layers at set-up). */
    void (*bn_stats)(mb_ctx *ctx, int batch, int C, size_t hw, const float *x, double *sum,
                     double *sumsq);
    void (*bn_apply)(mb_ctx *ctx, int batch, int C, size_t hw, const float *x,
                     const float *mean, const float *invstd, const float *gamma,
                     const float *beta, float *y);
    void (*bn_backward_sums)(mb_ctx *ctx, int batch, int C, size_t hw, const float *x,
                             const float *dy, const float *mean, const float *invstd,
                             double *sum_dy, double *sum_dy_xhat);
    void (*bn_backward_data)(mb_ctx *ctx, int batch, int C, size_t hw, const float *x,
                             const float *dy, const float *mean, const float *invstd,
                             const float *gamma, const float *mean_dy,
                             const float *mean_dy_xhat, float *dx);
} mb_backend_ops;

/* What a context holds: the backend and its device, and the thread pool that runs a batch's
 * shards. One stream of work uses a context at a time (the pool runs one job at a time). */
struct mb_ctx {
    const mb_backend_ops *ops;
    mb_backend_kind kind;
    int device;                /* the device's index (0 for the CPU) */
    char device_name[128];     /* "Intel(R) Xeon(R) ... (2 threads)", "NVIDIA H100 ..." */
    void *dev;                 /* the backend's own state, NULL for the CPU */
    int threads;               /* the pool's parts (>= 1) */
    int blas_threads;          /* OpenBLAS threads the context set (CPU) */
    mb_pool *pool;             /* threads parts; runs a batch's shards */
};

/* The stream of dropout masks of one sample: the layer's key (from the seed, the step and the
 * layer) mixed with the sample's index in the batch. */
static inline uint64_t mb_dropout_stream(uint64_t key, size_t sample)
{
    uint64_t h = key;
    h = mb_rng_next(&h) ^ (uint64_t)sample;
    return mb_rng_next(&h);
}

/* The backends built into this library (backend.c asks for CUDA only when it was built). */
extern const mb_backend_ops mb_backend_cpu;
#if MB_HAVE_CUDA
/* train/backend/cuda/ops.cu, in libmbkit-cuda.so (backend.c loads it) */
extern const mb_backend_ops mb_backend_cuda;
#endif

#endif /* MB_BACKEND_IMPL_H */
