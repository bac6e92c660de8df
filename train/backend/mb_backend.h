/* mb_backend.h — train/backend/: the compute backends (the CPU's kernels in cpu/, CUDA's in
 * cuda/) behind one interface, the context a stream of work computes with (backend, device,
 * thread pool), and the convolutions: the CPU's four algorithms on host memory and a context's
 * convolutions on whichever backend it has.
 *
 * Tensors are float32, NCHW.
 */
#ifndef MB_BACKEND_H
#define MB_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "../../model/mb_model.h"
#include "../../net/mb_net.h"

/* ---- backends and contexts (train/backend/backend.c) ------------------------------------------------- */

/* The compute backends mbkit knows. Each is one set of operations (train/backend/backend_impl.h) that
 * networks call; the CPU's kernels are in train/backend/cpu/, CUDA's in train/backend/cuda/. */
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

/* OpenBLAS's room under a memory limit, checked by mbtrain and mbprobe once their flags are
 * read, before any work (--help, --version and usage errors are not checked): each thread that
 * calls OpenBLAS maps a 128 MiB buffer unless a freed one is there, so the threads that may call
 * it at the same moment need one each, as do OpenBLAS's own threads beyond the first (from their
 * start); under ulimit -v (RLIMIT_AS) or -d (RLIMIT_DATA) too low for them OpenBLAS retries the
 * map forever (campaigns 33's D2, 34's E1 and E2: a hang). callers: this process's threads that
 * may call OpenBLAS at once; threads: the threads it starts besides the main one (8 MiB of stack
 * each); extra_mib: what the process needs besides (MPI's libraries and buffers). The need is
 * the limit's base (MB_BLAS_BASE_MIB, MB_BLAS_DATA_BASE_MIB) + extra_mib + 128 MiB a caller + 8
 * MiB a thread; MB_OK when no limit is below it, else MB_ENOMEM naming the limit and the need
 * (the commands start again with OPENBLAS_NUM_THREADS=1 under a limit: mb_cli_one_blas_thread). */
#define MB_BLAS_BASE_MIB 56
#define MB_BLAS_DATA_BASE_MIB 8
int mb_backend_blas_room(int callers, int threads, int extra_mib, mb_error *err);

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

/* ---- convolution algorithms ----------------------------------------------------------------- */

/* The CPU backend's convolutions (train/backend/cpu/conv_*.c): its four algorithms, and calls on host
 * memory that tests and benchmarks use directly. Everything that should run on any backend goes
 * through a context's convolutions (mb_ctx_conv_*, below). */

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

#endif /* MB_BACKEND_H */
