/* ops.cu — the CUDA backend's device, memory and mbkit's own small kernels (dropout with the CPU's
 * masks, softmax cross-entropy, the optimiser's update), and the table mb_backend_cuda that
 * gathers every operation (convolutions in conv.cu; fully connected, pooling and activations in
 * layers.cu).
 *
 * tests/test_train_backend.c checks each operation against the CPU backend where a GPU is present
 * (`make gpu-verify`; first run on an H200, docs/results.md "The first GPU") and skips, saying
 * why, where none is.
 */
#include "cuda_impl.h"
#include "../optim_rule.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- device ---------------------------------------------------------------------------------- */

static void cuda_close(mb_ctx *ctx)
{
    cuda_dev *d = cuda_state(ctx);
    if (!d)
        return;
    if (d->stream)
        cudaStreamSynchronize(d->stream);
    cudaFree(d->labels);
    cudaFree(d->losses);
    cudaFree(d->hits);
    if (d->t_a)
        cudnnDestroyTensorDescriptor(d->t_a);
    if (d->t_b)
        cudnnDestroyTensorDescriptor(d->t_b);
    if (d->act)
        cudnnDestroyActivationDescriptor(d->act);
    if (d->pool)
        cudnnDestroyPoolingDescriptor(d->pool);
    if (d->dnn)
        cudnnDestroy(d->dnn);
    if (d->blas)
        cublasDestroy(d->blas);
    if (d->stream)
        cudaStreamDestroy(d->stream);
    free(d);
    ctx->dev = NULL;
}

static int cuda_open(mb_ctx *ctx, mb_error *err)
{
    cudaError_t e = cudaSetDevice(ctx->device);
    if (e != cudaSuccess)
        return mb_error_set(err, MB_EDEVICE, "cuda: device %d: %s", ctx->device,
                            cudaGetErrorString(e));
    cudaDeviceProp prop;
    e = cudaGetDeviceProperties(&prop, ctx->device);
    if (e != cudaSuccess)
        return mb_error_set(err, MB_EDEVICE, "cuda: device %d: %s", ctx->device,
                            cudaGetErrorString(e));
    snprintf(ctx->device_name, sizeof ctx->device_name, "%.127s", prop.name);
    cuda_dev *d = (cuda_dev *)calloc(1, sizeof *d);
    if (!d)
        return mb_error_set(err, MB_ENOMEM, "cuda: out of host memory");
    ctx->dev = d;
    const char *what = NULL;
    if (cudaStreamCreateWithFlags(&d->stream, cudaStreamNonBlocking) != cudaSuccess)
        what = "cudaStreamCreate";
    else if (cublasCreate(&d->blas) != CUBLAS_STATUS_SUCCESS ||
             cublasSetStream(d->blas, d->stream) != CUBLAS_STATUS_SUCCESS)
        what = "cublasCreate";
    else if (cudnnCreate(&d->dnn) != CUDNN_STATUS_SUCCESS ||
             cudnnSetStream(d->dnn, d->stream) != CUDNN_STATUS_SUCCESS)
        what = "cudnnCreate";
    else if (cudnnCreateTensorDescriptor(&d->t_a) != CUDNN_STATUS_SUCCESS ||
             cudnnCreateTensorDescriptor(&d->t_b) != CUDNN_STATUS_SUCCESS ||
             cudnnCreateActivationDescriptor(&d->act) != CUDNN_STATUS_SUCCESS ||
             cudnnCreatePoolingDescriptor(&d->pool) != CUDNN_STATUS_SUCCESS)
        what = "cudnnCreate*Descriptor";
    if (what) {
        cuda_close(ctx);
        return mb_error_set(err, MB_EDEVICE, "cuda: device %d (%s): %s failed", ctx->device,
                            prop.name, what);
    }
    /* One stream, one cuBLAS and one cuDNN handle per context: a batch runs as one shard (the
     * device parallelises inside each operation; concurrent shards would share the handles). */
    ctx->threads = 1;
    return MB_OK;
}

static void cuda_sync(mb_ctx *ctx) { cudaStreamSynchronize(cuda_state(ctx)->stream); }

/* ---- memory ---------------------------------------------------------------------------------- */

/* cudaMalloc's pointers are 256-byte aligned, beyond the interface's 64. */
static void *cuda_alloc(mb_ctx *ctx, size_t bytes)
{
    cuda_state(ctx);
    void *p = NULL;
    return cudaMalloc(&p, bytes ? bytes : 1) == cudaSuccess ? p : NULL;
}

static void cuda_release(mb_ctx *ctx, void *p)
{
    /* cudaFree waits for the device; the stream's work on p has finished by then. */
    cuda_state(ctx);
    cudaFree(p);
}

static int cuda_copy(mb_ctx *ctx, void *dst, const void *src, size_t bytes, cudaMemcpyKind kind)
{
    cuda_dev *d = cuda_state(ctx);
    if (!bytes)
        return MB_OK;
    if (cudaMemcpyAsync(dst, src, bytes, kind, d->stream) != cudaSuccess ||
        cudaStreamSynchronize(d->stream) != cudaSuccess)
        return MB_EDEVICE;
    return MB_OK;
}

static int cuda_upload(mb_ctx *ctx, void *dst, const void *src, size_t bytes)
{
    return cuda_copy(ctx, dst, src, bytes, cudaMemcpyHostToDevice);
}

static int cuda_download(mb_ctx *ctx, void *dst, const void *src, size_t bytes)
{
    return cuda_copy(ctx, dst, src, bytes, cudaMemcpyDeviceToHost);
}

static void cuda_zero(mb_ctx *ctx, void *p, size_t bytes)
{
    cudaMemsetAsync(p, 0, bytes, cuda_state(ctx)->stream);
}

/* y += x with cuBLAS's saxpy, in pieces of at most INT_MAX values (its count is an int). */
static void cuda_add(mb_ctx *ctx, size_t n, const float *x, float *y)
{
    const float one = 1.0f;
    const size_t piece = (size_t)1 << 30;
    for (size_t o = 0; o < n; o += piece) {
        size_t m = n - o < piece ? n - o : piece;
        cublasSaxpy(cuda_state(ctx)->blas, (int)m, &one, x + o, 1, y + o, 1);
    }
}

/* ---- dropout: the CPU's masks, bit for bit --------------------------------------------------- */

/* mb_rng_next of data/mb_rng.h (SplitMix64). Its k-th draw from state s (k = 1, 2, ...) is
 * mix(s + k G), so each value of a sample's stream is computed without the ones before it.
 * __host__ as well: mb_cuda_host_dropout runs the kernel's arithmetic on the host, which lets
 * the tests check it on a machine without a device. */
__host__ __device__ static uint64_t dev_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

__host__ __device__ static uint64_t dev_rng_next(uint64_t *s)
{
    *s += 0x9E3779B97F4A7C15ull;
    return dev_mix(*s);
}

/* mb_dropout_stream of backend_impl.h. */
__host__ __device__ static uint64_t dev_dropout_stream(uint64_t key, uint64_t sample)
{
    uint64_t h = key;
    h = dev_rng_next(&h) ^ sample;
    return dev_rng_next(&h);
}

/* Value i of `batch` samples of `per`: sample j = i / per draws its (i % per + 1)-th uniform from
 * its stream, as mb_layer_dropout_forward does with mb_rng_uniformf. */
__host__ __device__ static void dropout_one(size_t i, size_t per, float p, float keep,
                                            uint64_t key, uint64_t first, const float *x,
                                            float *y, float *mask)
{
    uint64_t j = i / per, k = i % per;
    uint64_t s = dev_dropout_stream(key, first + j);
    uint64_t bits = dev_mix(s + (k + 1) * 0x9E3779B97F4A7C15ull);
    float u = (float)(bits >> 40) * (1.0f / 16777216.0f);
    float m = u < p ? 0.0f : keep;
    mask[i] = m;
    y[i] = x[i] * m;
}

__global__ static void k_dropout(size_t n, size_t per, float p, float keep, uint64_t key,
                                 uint64_t first, const float *x, float *y, float *mask)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)blockDim.x * gridDim.x)
        dropout_one(i, per, p, keep, key, first, x, y, mask);
}

extern "C" void mb_cuda_host_dropout(float p, int batch, size_t per, uint64_t key, size_t first,
                                     const float *x, float *y, float *mask)
{
    const float keep = 1.0f / (1.0f - p);
    for (size_t i = 0; i < per * (size_t)batch; i++)
        dropout_one(i, per, p, keep, key, first, x, y, mask);
}

__global__ static void k_fill(size_t n, float v, float *y)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)blockDim.x * gridDim.x)
        y[i] = v;
}

__global__ static void k_mul(size_t n, const float *a, const float *b, float *y)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)blockDim.x * gridDim.x)
        y[i] = a[i] * b[i];
}

static void cuda_dropout_forward(mb_ctx *ctx, float p, int train, int batch, size_t per,
                                 uint64_t key, size_t first, const float *x, float *y,
                                 float *mask)
{
    cudaStream_t st = cuda_state(ctx)->stream;
    size_t n = per * (size_t)batch;
    if (!n)
        return;
    if (!train || p <= 0.0f) {
        if (y != x)
            cudaMemcpyAsync(y, x, sizeof(float) * n, cudaMemcpyDeviceToDevice, st);
        if (train)
            k_fill<<<cuda_blocks(n), CUDA_THREADS, 0, st>>>(n, 1.0f, mask);
        return;
    }
    const float keep = 1.0f / (1.0f - p);
    k_dropout<<<cuda_blocks(n), CUDA_THREADS, 0, st>>>(n, per, p, keep, key, first, x, y, mask);
}

static void cuda_dropout_backward(mb_ctx *ctx, size_t n, const float *dy, const float *mask,
                                  float *dx)
{
    if (n)
        k_mul<<<cuda_blocks(n), CUDA_THREADS, 0, cuda_state(ctx)->stream>>>(n, dy, mask, dx);
}

/* ---- softmax cross-entropy ------------------------------------------------------------------- */

/* Sample n, in double as mb_layer_softmax_xent: the first maximum is the prediction,
 * loss = log-sum-exp - z[label], prob = exp(z - lse). The per-sample losses go back to the host,
 * which sums them in sample order as the CPU does. __host__ as well (mb_cuda_host_softmax_xent). */
__host__ __device__ static void softmax_one(int n, int classes, const float *logits,
                                            const int *labels, float *prob, double *losses,
                                            int *hits, float *dx, float scale)
{
    const float *z = logits + (size_t)n * classes;
    int best = 0;
    for (int c = 1; c < classes; c++)
        if (z[c] > z[best])
            best = c;
    double m = z[best], sum = 0.0;
    for (int c = 0; c < classes; c++)
        sum += exp((double)z[c] - m);
    double lse = m + log(sum);
    int label = labels[n];
    losses[n] = lse - z[label];
    hits[n] = best == label;
    for (int c = 0; c < classes; c++) {
        float pc = (float)exp((double)z[c] - lse);
        if (prob)
            prob[(size_t)n * classes + c] = pc;
        if (dx)
            dx[(size_t)n * classes + c] = (pc - (c == label ? 1.0f : 0.0f)) * scale;
    }
}

/* One thread per sample (classes are few: 10 for lenet5, 1000 for AlexNet). */
__global__ static void k_softmax_xent(int batch, int classes, const float *logits,
                                      const int *labels, float *prob, double *losses, int *hits,
                                      float *dx, float scale)
{
    int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (n < batch)
        softmax_one(n, classes, logits, labels, prob, losses, hits, dx, scale);
}

extern "C" void mb_cuda_host_softmax_xent(int batch, int classes, const float *logits,
                                          const int *labels, float *prob, double *losses,
                                          int *hits, float *dx, float scale)
{
    for (int n = 0; n < batch; n++)
        softmax_one(n, classes, logits, labels, prob, losses, hits, dx, scale);
}

/* Grows the scratch of labels, losses and hits to n samples. */
static int scratch_reserve(cuda_dev *d, int n)
{
    if (n <= d->scratch_n)
        return MB_OK;
    cudaFree(d->labels), cudaFree(d->losses), cudaFree(d->hits);
    d->labels = NULL, d->losses = NULL, d->hits = NULL, d->scratch_n = 0;
    if (cudaMalloc(&d->labels, sizeof(int) * n) != cudaSuccess ||
        cudaMalloc(&d->losses, sizeof(double) * n) != cudaSuccess ||
        cudaMalloc(&d->hits, sizeof(int) * n) != cudaSuccess)
        return MB_ENOMEM;
    d->scratch_n = n;
    return MB_OK;
}

static void cuda_softmax_xent(mb_ctx *ctx, int batch, int classes, const float *logits,
                              const int *labels, float *prob, double *loss_sum, double *out,
                              size_t *correct, float *dx, float scale)
{
    cuda_dev *d = cuda_state(ctx);
    if (batch < 1 || scratch_reserve(d, batch) != MB_OK)
        return;
    double *losses = (double *)malloc(sizeof(double) * batch);
    int *hits = (int *)malloc(sizeof(int) * batch);
    if (!losses || !hits) {
        free(losses), free(hits);
        return;
    }
    cudaMemcpyAsync(d->labels, labels, sizeof(int) * batch, cudaMemcpyHostToDevice, d->stream);
    k_softmax_xent<<<(batch + 127) / 128, 128, 0, d->stream>>>(batch, classes, logits, d->labels,
                                                              prob, d->losses, d->hits, dx, scale);
    cudaMemcpyAsync(losses, d->losses, sizeof(double) * batch, cudaMemcpyDeviceToHost, d->stream);
    cudaMemcpyAsync(hits, d->hits, sizeof(int) * batch, cudaMemcpyDeviceToHost, d->stream);
    if (cudaStreamSynchronize(d->stream) == cudaSuccess)
        for (int n = 0; n < batch; n++) {
            *loss_sum += losses[n];
            if (out)
                out[n] = losses[n];
            if (correct)
                *correct += (size_t)hits[n];
        }
    free(losses), free(hits);
}

/* ---- the optimiser: optim_rule.h's lines, one thread a parameter -------------------------------- */

template <int KIND>
__global__ void optim_kernel(size_t n, float lr, float mu, float wd, float *x, const float *g,
                             float *v)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        mb_optim_rule(KIND, i, lr, mu, wd, x, g, v);
}

static int cuda_optim_step(mb_ctx *ctx, int kind, size_t n, float lr, float mu, float wd,
                           float *x, const float *g, float *v)
{
    cudaStream_t s = cuda_state(ctx)->stream;
    unsigned b = cuda_blocks(n);
    if (kind == MB_RULE_SGD)
        optim_kernel<MB_RULE_SGD><<<b, CUDA_THREADS, 0, s>>>(n, lr, mu, wd, x, g, v);
    else if (kind == MB_RULE_MOMENTUM)
        optim_kernel<MB_RULE_MOMENTUM><<<b, CUDA_THREADS, 0, s>>>(n, lr, mu, wd, x, g, v);
    else
        optim_kernel<MB_RULE_NESTEROV><<<b, CUDA_THREADS, 0, s>>>(n, lr, mu, wd, x, g, v);
    return cudaGetLastError() == cudaSuccess ? MB_OK : MB_EDEVICE;
}

/* ---- the table ------------------------------------------------------------------------------- */

static mb_backend_ops cuda_table(void)
{
    mb_backend_ops o;
    memset(&o, 0, sizeof o);
    o.name = "cuda";
    o.host_memory = 0;
    o.open = cuda_open;
    o.close = cuda_close;
    o.sync = cuda_sync;
    o.alloc = cuda_alloc;
    o.release = cuda_release;
    o.upload = cuda_upload;
    o.download = cuda_download;
    o.zero = cuda_zero;
    o.add = cuda_add;
    o.optim_step = cuda_optim_step;
    o.conv_algo_count = cuda_conv_algo_count;
    o.conv_algo_name = cuda_conv_algo_name;
    o.conv_default = cuda_conv_default;
    o.conv_supported = cuda_conv_supported;
    o.conv_workspace = cuda_conv_workspace;
    o.conv_plan_create = cuda_conv_plan_create;
    o.conv_plan_free = cuda_conv_plan_free;
    o.conv_forward = cuda_conv_forward;
    o.conv_backward_data = cuda_conv_backward_data;
    o.conv_backward_filter = cuda_conv_backward_filter;
    o.fc_forward = cuda_fc_forward;
    o.fc_backward = cuda_fc_backward;
    o.pool_forward = cuda_pool_forward;
    o.pool_backward = cuda_pool_backward;
    o.act_forward = cuda_act_forward;
    o.act_backward = cuda_act_backward;
    o.dropout_forward = cuda_dropout_forward;
    o.dropout_backward = cuda_dropout_backward;
    o.softmax_xent = cuda_softmax_xent;
    return o;
}

/* C++ has no designated initialisers for this C struct before C++20; a function fills it once
 * at static initialisation (before main, so no caller sees it half-filled). */
extern "C" const mb_backend_ops mb_backend_cuda = cuda_table();
