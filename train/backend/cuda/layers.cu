/* layers.cu — the CUDA backend's layers other than convolution: fully connected with cuBLAS
 * (the bias broadcast and the bias gradient are two small kernels), pooling and activations with
 * cuDNN. Each follows train/cpu/layers_impl.h's meaning. Compiled, not yet run on a device.
 */
#include "cuda_impl.h"

/* ---- fully connected ------------------------------------------------------------------------- */

/* y [batch, out] row-major = b broadcast over the rows. */
__global__ static void k_bias_rows(size_t n, int out, const float *b, float *y)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)blockDim.x * gridDim.x)
        y[i] = b[i % (size_t)out];
}

/* db [out] = column sums of dy [batch, out], one thread per column, summed in sample order. */
__global__ static void k_col_sums(int batch, int out, const float *dy, float *db)
{
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    if (o >= out)
        return;
    float s = 0.0f;
    for (int n = 0; n < batch; n++)
        s += dy[(size_t)n * out + o];
    db[o] = s;
}

/* cuBLAS is column-major: a row-major [r, c] matrix is its column-major [c, r] transpose with
 * leading dimension c. So y^T [out, batch] = W [out, in] x^T, with W seen as the column-major
 * [in, out] matrix W^T (hence op T) and x^T as the column-major [in, batch] matrix (op N). */
void cuda_fc_forward(mb_ctx *ctx, int batch, int in, int out, const float *x, const float *w,
                     const float *b, float *y)
{
    cuda_dev *d = cuda_state(ctx);
    size_t n = (size_t)batch * out;
    k_bias_rows<<<cuda_blocks(n), CUDA_THREADS, 0, d->stream>>>(n, out, b, y);
    const float one = 1.0f;
    cublasSgemm(d->blas, CUBLAS_OP_T, CUBLAS_OP_N, out, batch, in, &one, w, in, x, in, &one, y,
                out);
}

/* dW [out, in] = dY^T X: column-major dW^T [in, out] = x^T [in, batch] (dy^T [out, batch])^T.
 * dX [batch, in] = dY W: column-major dX^T [in, batch] = W^T [in, out] dy^T [out, batch]. */
void cuda_fc_backward(mb_ctx *ctx, int batch, int in, int out, const float *x, const float *w,
                      const float *dy, float *dx, float *dw, float *db)
{
    cuda_dev *d = cuda_state(ctx);
    const float one = 1.0f, zero = 0.0f;
    cublasSgemm(d->blas, CUBLAS_OP_N, CUBLAS_OP_T, in, out, batch, &one, x, in, dy, out, &zero,
                dw, in);
    if (dx)
        cublasSgemm(d->blas, CUBLAS_OP_N, CUBLAS_OP_N, in, batch, out, &one, w, in, dy, out,
                    &zero, dx, in);
    k_col_sums<<<(out + 127) / 128, 128, 0, d->stream>>>(batch, out, dy, db);
}

/* ---- pooling --------------------------------------------------------------------------------- */

/* The pooling descriptor and the input/output tensors of a layer for `batch` samples. Average
 * pooling divides by size^2, padding included, as the CPU (and PyTorch's count_include_pad). */
static int pool_set(cuda_dev *dv, const mb_layer_desc *d, int batch)
{
    cudnnPoolingMode_t mode = d->type == MB_LAYER_MAXPOOL
                                  ? CUDNN_POOLING_MAX
                                  : CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING;
    if (cudnnSetPooling2dDescriptor(dv->pool, mode, CUDNN_NOT_PROPAGATE_NAN, d->size, d->size,
                                    d->pad, d->pad, d->stride, d->stride) != CUDNN_STATUS_SUCCESS)
        return 1;
    return cuda_tensor4d(dv->t_a, batch, d->in_c, d->in_h, d->in_w) ||
           cuda_tensor4d(dv->t_b, batch, d->in_c, d->out_h, d->out_w);
}

/* cuDNN's max pooling keeps no argmax for us: `arg` is unused (the backward pass takes x and y
 * instead). */
void cuda_pool_forward(mb_ctx *ctx, const mb_layer_desc *d, int batch, const float *x, float *y,
                       int *arg)
{
    (void)arg;
    cuda_dev *dv = cuda_state(ctx);
    const float one = 1.0f, zero = 0.0f;
    if (pool_set(dv, d, batch) == 0)
        cudnnPoolingForward(dv->dnn, dv->pool, &one, dv->t_a, x, &zero, dv->t_b, y);
}

void cuda_pool_backward(mb_ctx *ctx, const mb_layer_desc *d, int batch, const float *x,
                        const float *y, const float *dy, const int *arg, float *dx)
{
    (void)arg;
    cuda_dev *dv = cuda_state(ctx);
    const float one = 1.0f, zero = 0.0f;
    if (pool_set(dv, d, batch) == 0)
        cudnnPoolingBackward(dv->dnn, dv->pool, &one, dv->t_b, y, dv->t_b, dy, dv->t_a, x, &zero,
                             dv->t_a, dx);
}

/* ---- activations ----------------------------------------------------------------------------- */

static int act_mode(mb_layer_type t, cudnnActivationMode_t *m)
{
    switch (t) {
    case MB_LAYER_RELU: *m = CUDNN_ACTIVATION_RELU; return 1;
    case MB_LAYER_TANH: *m = CUDNN_ACTIVATION_TANH; return 1;
    case MB_LAYER_SIGMOID: *m = CUDNN_ACTIVATION_SIGMOID; return 1;
    default: return 0;
    }
}

/* n values as [1, 1, 1, m] tensors, in pieces of at most 2^30 (cuDNN's sizes are ints). */
enum { ACT_PIECE = 1 << 30 };

void cuda_act_forward(mb_ctx *ctx, mb_layer_type t, size_t n, const float *x, float *y)
{
    cuda_dev *dv = cuda_state(ctx);
    cudnnActivationMode_t mode;
    if (!act_mode(t, &mode) || cudnnSetActivationDescriptor(dv->act, mode, CUDNN_NOT_PROPAGATE_NAN,
                                                            0.0) != CUDNN_STATUS_SUCCESS)
        return;
    const float one = 1.0f, zero = 0.0f;
    for (size_t o = 0; o < n; o += ACT_PIECE) {
        int m = (int)(n - o < (size_t)ACT_PIECE ? n - o : (size_t)ACT_PIECE);
        if (cuda_tensor4d(dv->t_a, 1, 1, 1, m))
            return;
        cudnnActivationForward(dv->dnn, dv->act, &one, dv->t_a, x + o, &zero, dv->t_a, y + o);
    }
}

/* The interface keeps only y (the CPU's derivatives are all functions of y), so y is passed for
 * cuDNN's x as well: exact for ReLU (x > 0 exactly where y > 0); for tanh and sigmoid cuDNN's
 * derivative is (1 - y^2) and y (1 - y), from y, as the CPU's. The parity test on a device is
 * what confirms the latter. */
void cuda_act_backward(mb_ctx *ctx, mb_layer_type t, size_t n, const float *y, const float *dy,
                       float *dx)
{
    cuda_dev *dv = cuda_state(ctx);
    cudnnActivationMode_t mode;
    if (!act_mode(t, &mode) || cudnnSetActivationDescriptor(dv->act, mode, CUDNN_NOT_PROPAGATE_NAN,
                                                            0.0) != CUDNN_STATUS_SUCCESS)
        return;
    const float one = 1.0f, zero = 0.0f;
    for (size_t o = 0; o < n; o += ACT_PIECE) {
        int m = (int)(n - o < (size_t)ACT_PIECE ? n - o : (size_t)ACT_PIECE);
        if (cuda_tensor4d(dv->t_a, 1, 1, 1, m))
            return;
        cudnnActivationBackward(dv->dnn, dv->act, &one, dv->t_a, y + o, dv->t_a, dy + o, dv->t_a,
                                y + o, &zero, dv->t_a, dx + o);
    }
}
