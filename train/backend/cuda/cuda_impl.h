/* cuda_impl.h — private to train/backend/cuda/: the CUDA backend's state (ctx->dev) and the functions its
 * files share. ops.cu holds the device, memory and mbkit's own small kernels and assembles
 * mb_backend_cuda; conv.cu the cuDNN convolutions; layers.cu cuBLAS's fully connected layers and
 * cuDNN's pooling and activations.
 *
 * One stream per context: every operation is issued on it, cuBLAS and cuDNN handles are bound to
 * it, and the context runs one shard at a time (cuda_open sets ctx->threads to 1), because the
 * handles and the scratch buffers below are not safe to use from two threads at once.
 *
 * The parity test tests/test_train_backend.c checks it on a device (`make gpu-verify`).
 */
#ifndef MB_CUDA_IMPL_H
#define MB_CUDA_IMPL_H

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

extern "C" {
#include "../backend_impl.h"
}

typedef struct cuda_dev {
    cudaStream_t stream;
    cublasHandle_t blas;
    cudnnHandle_t dnn;
    /* Descriptors set per call (element-wise operations, pooling), owned here so that no call
     * creates one. */
    cudnnTensorDescriptor_t t_a, t_b;
    cudnnActivationDescriptor_t act;
    cudnnPoolingDescriptor_t pool;
    /* Softmax cross-entropy's scratch: labels copied from the host, per-sample losses and
     * correctness copied back; `scratch_n` samples' worth. */
    int *labels;
    double *losses;
    int *hits;
    int scratch_n;
} cuda_dev;

/* The context's state, with the calling thread bound to its device first: CUDA's current device
 * is per thread, and a context may be used from a thread other than the one that opened it
 * (kernels and cudaMalloc go to the current device; the handles stay on theirs). Every operation
 * starts here. */
static inline cuda_dev *cuda_state(mb_ctx *ctx)
{
    cudaSetDevice(ctx->device);
    return (cuda_dev *)ctx->dev;
}

/* A 4-d NCHW float tensor descriptor; 0 on success. (Inline: the kernels of layers.cu and conv.cu
 * use it and must not depend on ops.cu, which gathers them.) */
static inline int cuda_tensor4d(cudnnTensorDescriptor_t t, int n, int c, int h, int w)
{
    return cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w) !=
           CUDNN_STATUS_SUCCESS;
}

/* Threads per block and blocks for n elements (a grid-stride loop covers the rest). */
enum { CUDA_THREADS = 256 };
static inline unsigned cuda_blocks(size_t n)
{
    size_t b = (n + CUDA_THREADS - 1) / CUDA_THREADS;
    return (unsigned)(b < 1 ? 1 : b > 65535 ? 65535 : b);
}

/* ops.cu: the dropout and softmax kernels' per-element arithmetic run on the host, for the
 * tests (tests/test_train_backend.c declares them itself): the same functions the kernels call. */
extern "C" void mb_cuda_host_dropout(float p, int batch, size_t per, uint64_t key, size_t first,
                                     const float *x, float *y, float *mask);
extern "C" void mb_cuda_host_softmax_xent(int batch, int classes, const float *logits,
                                          const int *labels, float *prob, double *losses,
                                          int *hits, float *dx, float scale);

/* conv.cu */
int cuda_conv_algo_count(mb_conv_pass pass);
const char *cuda_conv_algo_name(mb_conv_pass pass, int algo);
int cuda_conv_default(mb_ctx *ctx, mb_conv_pass pass, const mb_conv_shape *s);
int cuda_conv_supported(mb_ctx *ctx, mb_conv_pass pass, int algo, const mb_conv_shape *s,
                        char *why, size_t n);
size_t cuda_conv_workspace(mb_ctx *ctx, mb_conv_pass pass, int algo, const mb_conv_shape *s);
int cuda_conv_plan_create(mb_ctx *ctx, const mb_conv_shape *s, const int algo[3], void **plan,
                          mb_error *err);
void cuda_conv_plan_free(mb_ctx *ctx, void *plan);
int cuda_conv_forward(mb_ctx *ctx, const void *plan, int batch, const float *x, const float *w,
                      const float *b, float *y, void *ws);
int cuda_conv_backward_data(mb_ctx *ctx, const void *plan, int batch, const float *dy,
                            const float *w, float *dx, void *ws);
int cuda_conv_backward_filter(mb_ctx *ctx, const void *plan, int batch, const float *x,
                              const float *dy, float *dw, float *db, void *ws);

/* layers.cu */
void cuda_fc_forward(mb_ctx *ctx, int batch, int in, int out, const float *x, const float *w,
                     const float *b, float *y);
void cuda_fc_backward(mb_ctx *ctx, int batch, int in, int out, const float *x, const float *w,
                      const float *dy, float *dx, float *dw, float *db);
void cuda_pool_forward(mb_ctx *ctx, const mb_layer_desc *d, int batch, const float *x, float *y,
                       int *arg);
void cuda_pool_backward(mb_ctx *ctx, const mb_layer_desc *d, int batch, const float *x,
                        const float *y, const float *dy, const int *arg, float *dx);
void cuda_act_forward(mb_ctx *ctx, mb_layer_type t, size_t n, const float *x, float *y);
void cuda_act_backward(mb_ctx *ctx, mb_layer_type t, size_t n, const float *y, const float *dy,
                       float *dx);

#endif /* MB_CUDA_IMPL_H */
