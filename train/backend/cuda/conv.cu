/* conv.cu — convolutions with cuDNN: every algorithm cuDNN has for each pass (8 forward, 6
 * backward-data, 7 backward-filter), named as cuDNN names them (the enum's suffix, lower case),
 * whether one can do a shape and its workspace asked of cuDNN, the default from cuDNN's
 * heuristics (cudnnGetConvolution*Algorithm_v7: its first choice that reports success), bias add
 * (cudnnAddTensor) and bias gradient (cudnnConvolutionBackwardBias) as cuDNN does them.
 * NCHW float32, cross-correlation (what the CPU computes), and CUDNN_FMA_MATH: float32 FMA only,
 * no TF32 tensor cores (which CUDNN_DEFAULT_MATH would allow on A100 and later, at 10 mantissa
 * bits: far outside the CPU parity tolerance).
 *
 * Batches below the plan's: the input and output descriptors are set to `batch` on every call
 * (a host-only call, no allocation), and the workspace that batch needs is checked against the
 * plan's. An algorithm is supported for a shape, and its workspace sized, over every batch up to
 * the shape's (ws_every_batch). Run on an H200 (`make gpu-verify`).
 */
#include "cuda_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const FWD_NAMES[CUDNN_CONVOLUTION_FWD_ALGO_COUNT] = {
    "implicit_gemm", "implicit_precomp_gemm", "gemm", "direct",
    "fft", "fft_tiling", "winograd", "winograd_nonfused"};
static const char *const BWD_DATA_NAMES[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT] = {
    "algo_0", "algo_1", "fft", "fft_tiling", "winograd", "winograd_nonfused"};
static const char *const BWD_FILTER_NAMES[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT] = {
    "algo_0", "algo_1", "fft", "algo_3", "winograd", "winograd_nonfused", "fft_tiling"};

int cuda_conv_algo_count(mb_conv_pass pass)
{
    switch (pass) {
    case MB_PASS_FORWARD: return CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
    case MB_PASS_BACKWARD_DATA: return CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
    case MB_PASS_BACKWARD_FILTER: return CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
    }
    return 0;
}

const char *cuda_conv_algo_name(mb_conv_pass pass, int algo)
{
    if (algo < 0 || algo >= cuda_conv_algo_count(pass))
        return "unknown";
    switch (pass) {
    case MB_PASS_FORWARD: return FWD_NAMES[algo];
    case MB_PASS_BACKWARD_DATA: return BWD_DATA_NAMES[algo];
    case MB_PASS_BACKWARD_FILTER: return BWD_FILTER_NAMES[algo];
    }
    return "unknown";
}

/* ---- descriptors of a shape ------------------------------------------------------------------ */

typedef struct conv_desc {
    cudnnTensorDescriptor_t x, y, bias;
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t conv;
} conv_desc;

static void desc_free(conv_desc *c)
{
    if (c->x)
        cudnnDestroyTensorDescriptor(c->x);
    if (c->y)
        cudnnDestroyTensorDescriptor(c->y);
    if (c->bias)
        cudnnDestroyTensorDescriptor(c->bias);
    if (c->w)
        cudnnDestroyFilterDescriptor(c->w);
    if (c->conv)
        cudnnDestroyConvolutionDescriptor(c->conv);
    memset(c, 0, sizeof *c);
}

/* The input and output descriptors for `batch` samples of shape s. */
static cudnnStatus_t desc_batch(conv_desc *c, const mb_conv_shape *s, int batch)
{
    cudnnStatus_t st = cudnnSetTensor4dDescriptor(c->x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, batch,
                                                  s->in_c, s->in_h, s->in_w);
    if (st == CUDNN_STATUS_SUCCESS)
        st = cudnnSetTensor4dDescriptor(c->y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, batch,
                                        s->out_c, mb_conv_out_h(s), mb_conv_out_w(s));
    return st;
}

static cudnnStatus_t desc_make(conv_desc *c, const mb_conv_shape *s)
{
    memset(c, 0, sizeof *c);
    cudnnStatus_t st;
    if ((st = cudnnCreateTensorDescriptor(&c->x)) != CUDNN_STATUS_SUCCESS ||
        (st = cudnnCreateTensorDescriptor(&c->y)) != CUDNN_STATUS_SUCCESS ||
        (st = cudnnCreateTensorDescriptor(&c->bias)) != CUDNN_STATUS_SUCCESS ||
        (st = cudnnCreateFilterDescriptor(&c->w)) != CUDNN_STATUS_SUCCESS ||
        (st = cudnnCreateConvolutionDescriptor(&c->conv)) != CUDNN_STATUS_SUCCESS ||
        (st = desc_batch(c, s, s->batch)) != CUDNN_STATUS_SUCCESS ||
        (st = cudnnSetTensor4dDescriptor(c->bias, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1,
                                         s->out_c, 1, 1)) != CUDNN_STATUS_SUCCESS ||
        (st = cudnnSetFilter4dDescriptor(c->w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, s->out_c,
                                         s->in_c, s->k, s->k)) != CUDNN_STATUS_SUCCESS ||
        (st = cudnnSetConvolution2dDescriptor(c->conv, s->pad, s->pad, s->stride, s->stride, 1, 1,
                                              CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT)) !=
            CUDNN_STATUS_SUCCESS ||
        (st = cudnnSetConvolutionMathType(c->conv, CUDNN_FMA_MATH)) != CUDNN_STATUS_SUCCESS)
        desc_free(c);
    return st;
}

/* cuDNN's workspace for algorithm `algo` of a pass on the descriptors' shape. */
static cudnnStatus_t ws_query(cudnnHandle_t h, const conv_desc *c, mb_conv_pass pass, int algo,
                              size_t *bytes)
{
    *bytes = 0;
    switch (pass) {
    case MB_PASS_FORWARD:
        return cudnnGetConvolutionForwardWorkspaceSize(h, c->x, c->w, c->conv, c->y,
                                                       (cudnnConvolutionFwdAlgo_t)algo, bytes);
    case MB_PASS_BACKWARD_DATA:
        return cudnnGetConvolutionBackwardDataWorkspaceSize(
            h, c->w, c->y, c->conv, c->x, (cudnnConvolutionBwdDataAlgo_t)algo, bytes);
    case MB_PASS_BACKWARD_FILTER:
        return cudnnGetConvolutionBackwardFilterWorkspaceSize(
            h, c->x, c->y, c->conv, c->w, (cudnnConvolutionBwdFilterAlgo_t)algo, bytes);
    }
    return CUDNN_STATUS_BAD_PARAM;
}

/* cuDNN's answer for (pass, algo) on every batch a plan of shape s serves, 1 .. s->batch (an
 * evaluation's last chunk is smaller than the rest): the first status that is not success, and
 * the largest workspace any batch needs. cuDNN's answer at s->batch alone does not bound them:
 * on an H200 an algorithm chosen for batch 128 needed more workspace, or could not run, at
 * batches of 72 and 100, and those evaluation chunks kept stale outputs (docs/results.md, "The
 * first GPU"). The queries are host calls (about a microsecond each). c's batch is left at
 * s->batch. */
static cudnnStatus_t ws_every_batch(cudnnHandle_t h, conv_desc *c, const mb_conv_shape *s,
                                    mb_conv_pass pass, int algo, size_t *bytes)
{
    *bytes = 0;
    cudnnStatus_t st = CUDNN_STATUS_SUCCESS;
    for (int b = 1; b <= s->batch && st == CUDNN_STATUS_SUCCESS; b++) {
        size_t need = 0;
        if ((st = desc_batch(c, s, b)) == CUDNN_STATUS_SUCCESS &&
            (st = ws_query(h, c, pass, algo, &need)) == CUDNN_STATUS_SUCCESS && need > *bytes)
            *bytes = need;
    }
    cudnnStatus_t back = desc_batch(c, s, s->batch);
    return st != CUDNN_STATUS_SUCCESS ? st : back;
}

/* cuDNN's answer for (pass, algo, shape) over every batch up to the shape's: its status, and
 * the workspace when it succeeds. */
static cudnnStatus_t ask(mb_ctx *ctx, mb_conv_pass pass, int algo, const mb_conv_shape *s,
                         size_t *bytes)
{
    conv_desc c;
    *bytes = 0;
    cudnnStatus_t st = desc_make(&c, s);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    st = ws_every_batch(cuda_state(ctx)->dnn, &c, s, pass, algo, bytes);
    desc_free(&c);
    return st;
}

int cuda_conv_supported(mb_ctx *ctx, mb_conv_pass pass, int algo, const mb_conv_shape *s,
                        char *why, size_t n)
{
    size_t bytes;
    cudnnStatus_t st = ask(ctx, pass, algo, s, &bytes);
    if (st == CUDNN_STATUS_SUCCESS)
        return 1;
    if (n)
        snprintf(why, n, "cuDNN %s %s: %s", mb_conv_pass_name(pass),
                 cuda_conv_algo_name(pass, algo), cudnnGetErrorString(st));
    return 0;
}

size_t cuda_conv_workspace(mb_ctx *ctx, mb_conv_pass pass, int algo, const mb_conv_shape *s)
{
    size_t bytes;
    return ask(ctx, pass, algo, s, &bytes) == CUDNN_STATUS_SUCCESS ? bytes : 0;
}

/* The first of cuDNN's ranked results (any pass's perf struct) whose status is success and which
 * the workspace query confirms for every batch up to s->batch; -1 when none is. */
template <typename Perf>
static int first_usable(cudnnHandle_t h, conv_desc *c, const mb_conv_shape *s,
                        mb_conv_pass pass, const Perf *r, int got)
{
    size_t bytes;
    for (int i = 0; i < got; i++)
        if (r[i].status == CUDNN_STATUS_SUCCESS &&
            ws_every_batch(h, c, s, pass, (int)r[i].algo, &bytes) == CUDNN_STATUS_SUCCESS)
            return (int)r[i].algo;
    return -1;
}

/* cuDNN's heuristics, best first: the first result whose status is success (and which the
 * workspace query confirms); algorithm 0 when none is (every pass's 0 is the general one). */
int cuda_conv_default(mb_ctx *ctx, mb_conv_pass pass, const mb_conv_shape *s)
{
    conv_desc c;
    if (desc_make(&c, s) != CUDNN_STATUS_SUCCESS)
        return 0;
    cudnnHandle_t h = cuda_state(ctx)->dnn;
    int got = 0, pick = -1;
    enum { MAXR = 16 };
    switch (pass) {
    case MB_PASS_FORWARD: {
        cudnnConvolutionFwdAlgoPerf_t r[MAXR];
        if (cudnnGetConvolutionForwardAlgorithm_v7(h, c.x, c.w, c.conv, c.y, MAXR, &got, r) ==
            CUDNN_STATUS_SUCCESS)
            pick = first_usable(h, &c, s, pass, r, got);
        break;
    }
    case MB_PASS_BACKWARD_DATA: {
        cudnnConvolutionBwdDataAlgoPerf_t r[MAXR];
        if (cudnnGetConvolutionBackwardDataAlgorithm_v7(h, c.w, c.y, c.conv, c.x, MAXR, &got,
                                                        r) == CUDNN_STATUS_SUCCESS)
            pick = first_usable(h, &c, s, pass, r, got);
        break;
    }
    case MB_PASS_BACKWARD_FILTER: {
        cudnnConvolutionBwdFilterAlgoPerf_t r[MAXR];
        if (cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, c.x, c.y, c.conv, c.w, MAXR, &got,
                                                          r) == CUDNN_STATUS_SUCCESS)
            pick = first_usable(h, &c, s, pass, r, got);
        break;
    }
    }
    desc_free(&c);
    return pick >= 0 ? pick : 0;
}

/* ---- plans ----------------------------------------------------------------------------------- */

typedef struct cuda_conv_plan {
    mb_conv_shape s;        /* s.batch: the largest batch */
    int algo[3];
    size_t ws[3];           /* each pass's largest workspace over batches 1 .. s.batch (what the
                               caller allocated: mb_ctx_conv_workspace) */
    conv_desc c;            /* x and y are reset to each call's batch */
} cuda_conv_plan;

void cuda_conv_plan_free(mb_ctx *ctx, void *vp)
{
    (void)ctx;
    cuda_conv_plan *p = (cuda_conv_plan *)vp;
    if (!p)
        return;
    desc_free(&p->c);
    free(p);
}

int cuda_conv_plan_create(mb_ctx *ctx, const mb_conv_shape *s, const int algo[3], void **out,
                          mb_error *err)
{
    *out = NULL;
    cuda_conv_plan *p = (cuda_conv_plan *)calloc(1, sizeof *p);
    if (!p)
        return mb_error_set(err, MB_ENOMEM, "convolution plan: out of memory");
    p->s = *s;
    memcpy(p->algo, algo, sizeof p->algo);
    cudnnStatus_t st = desc_make(&p->c, s);
    if (st != CUDNN_STATUS_SUCCESS) {
        free(p);
        return mb_error_set(err, MB_EINVAL, "cuDNN descriptors for a %dx%dx%dx%d input: %s",
                            s->batch, s->in_c, s->in_h, s->in_w, cudnnGetErrorString(st));
    }
    for (int i = 0; i < 3; i++) {
        st = ws_every_batch(cuda_state(ctx)->dnn, &p->c, s, (mb_conv_pass)i, algo[i], &p->ws[i]);
        if (st != CUDNN_STATUS_SUCCESS) {
            cuda_conv_plan_free(ctx, p);
            return mb_error_set(err, MB_ENOTSUP, "cuDNN %s %s: %s",
                                mb_conv_pass_name((mb_conv_pass)i),
                                cuda_conv_algo_name((mb_conv_pass)i, algo[i]),
                                cudnnGetErrorString(st));
        }
    }
    *out = p;
    return MB_OK;
}

/* The plan's descriptors set to `batch`, and that batch's workspace for `pass` checked against
 * the caller's (the plan's size). MB_OK, MB_EINVAL (batch), MB_ENOTSUP or MB_ENOMEM. */
static int plan_batch(mb_ctx *ctx, const void *vp, int batch, mb_conv_pass pass,
                      cuda_conv_plan **out, size_t *ws)
{
    cuda_conv_plan *p = (cuda_conv_plan *)vp; /* the context is single-threaded (cuda_impl.h) */
    *out = p;
    if (batch < 1 || batch > p->s.batch)
        return MB_EINVAL;
    if (desc_batch(&p->c, &p->s, batch) != CUDNN_STATUS_SUCCESS)
        return MB_EINVAL;
    if (batch == p->s.batch) {
        *ws = p->ws[pass];
        return MB_OK;
    }
    if (ws_query(cuda_state(ctx)->dnn, &p->c, pass, p->algo[pass], ws) != CUDNN_STATUS_SUCCESS)
        return MB_ENOTSUP;
    return *ws <= p->ws[pass] ? MB_OK : MB_ENOMEM;
}

static int status(cudnnStatus_t st)
{
    return st == CUDNN_STATUS_SUCCESS ? MB_OK
           : st == CUDNN_STATUS_NOT_SUPPORTED ? MB_ENOTSUP
                                             : MB_EDEVICE;
}

int cuda_conv_forward(mb_ctx *ctx, const void *vp, int batch, const float *x, const float *w,
                      const float *b, float *y, void *ws)
{
    cuda_conv_plan *p;
    size_t bytes;
    int rc = plan_batch(ctx, vp, batch, MB_PASS_FORWARD, &p, &bytes);
    if (rc != MB_OK)
        return rc;
    const float one = 1.0f, zero = 0.0f;
    cudnnHandle_t h = cuda_state(ctx)->dnn;
    cudnnStatus_t st = cudnnConvolutionForward(
        h, &one, p->c.x, x, p->c.w, w, p->c.conv, (cudnnConvolutionFwdAlgo_t)p->algo[0], ws,
        bytes, &zero, p->c.y, y);
    if (st == CUDNN_STATUS_SUCCESS && b)
        st = cudnnAddTensor(h, &one, p->c.bias, b, &one, p->c.y, y);
    return status(st);
}

int cuda_conv_backward_data(mb_ctx *ctx, const void *vp, int batch, const float *dy,
                            const float *w, float *dx, void *ws)
{
    cuda_conv_plan *p;
    size_t bytes;
    int rc = plan_batch(ctx, vp, batch, MB_PASS_BACKWARD_DATA, &p, &bytes);
    if (rc != MB_OK)
        return rc;
    const float one = 1.0f, zero = 0.0f;
    return status(cudnnConvolutionBackwardData(
        cuda_state(ctx)->dnn, &one, p->c.w, w, p->c.y, dy, p->c.conv,
        (cudnnConvolutionBwdDataAlgo_t)p->algo[1], ws, bytes, &zero, p->c.x, dx));
}

int cuda_conv_backward_filter(mb_ctx *ctx, const void *vp, int batch, const float *x,
                              const float *dy, float *dw, float *db, void *ws)
{
    cuda_conv_plan *p;
    size_t bytes;
    int rc = plan_batch(ctx, vp, batch, MB_PASS_BACKWARD_FILTER, &p, &bytes);
    if (rc != MB_OK)
        return rc;
    const float one = 1.0f, zero = 0.0f;
    cudnnHandle_t h = cuda_state(ctx)->dnn;
    cudnnStatus_t st = cudnnConvolutionBackwardFilter(
        h, &one, p->c.x, x, p->c.y, dy, p->c.conv, (cudnnConvolutionBwdFilterAlgo_t)p->algo[2],
        ws, bytes, &zero, p->c.w, dw);
    if (st == CUDNN_STATUS_SUCCESS && db)
        st = cudnnConvolutionBackwardBias(h, &one, p->c.y, dy, &zero, p->c.bias, db);
    return status(st);
}
