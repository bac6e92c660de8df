/* conv.c — the dispatch of the CPU convolution algorithms: which algorithm supports which shape,
 * workspace sizes, plans, and the three passes handed to conv_gemm.c, conv_direct.c, conv_fft.c
 * and conv_winograd.c. It sits above them; they and it share conv_common.c's helpers. No
 * arithmetic on tensors here.
 */
#include "conv_impl.h"

#include <stdio.h>
#include <stdlib.h>

/* Why the shape itself is unusable (NULL when it is fine). */
static const char *shape_error(const mb_conv_shape *s)
{
    if (s->batch < 1 || s->in_c < 1 || s->in_h < 1 || s->in_w < 1 || s->out_c < 1)
        return "batch, channels and input sides must be >= 1";
    if (s->k < 1 || s->stride < 1 || s->pad < 0)
        return "kernel >= 1, stride >= 1 and pad >= 0 are required";
    if (s->in_h + 2 * s->pad < s->k || s->in_w + 2 * s->pad < s->k)
        return "the kernel is larger than the padded input";
    return NULL;
}

int mb_conv_supported(mb_conv_algo algo, const mb_conv_shape *s, char *why, size_t n)
{
    const char *e = shape_error(s);
    if (!e && (algo < 0 || algo >= MB_CONV_N_ALGOS))
        e = "unknown convolution algorithm";
    if (!e && algo == MB_CONV_WINOGRAD && (s->k != 3 || s->stride != 1))
        e = "F(2x2,3x3) needs a 3x3 kernel with stride 1";
    if (!e && algo == MB_CONV_WINOGRAD && s->pad > 2)
        e = "F(2x2,3x3) needs pad <= 2"; /* the name comes first: "winograd: F(2x2..." */
    if (e) {
        if (n)
            snprintf(why, n, "%s: %s", mb_conv_algo_name(algo), e);
        return 0;
    }
    if (n)
        why[0] = '\0';
    return 1;
}

size_t mb_conv_workspace(mb_conv_algo algo, mb_conv_pass pass, const mb_conv_shape *s)
{
    if (!mb_conv_supported(algo, s, NULL, 0))
        return 0;
    switch (algo) {
    case MB_CONV_GEMM: return mb_conv_gemm_workspace(pass, s);
    case MB_CONV_FFT: return mb_conv_fft_workspace(pass, s);
    case MB_CONV_WINOGRAD: return mb_conv_winograd_workspace(pass, s);
    default: return 0;
    }
}

int mb_conv_plan_create(mb_conv_algo algo, const mb_conv_shape *s, mb_conv_plan **plan,
                        mb_error *err)
{
    char why[160];
    *plan = NULL;
    if (!mb_conv_supported(algo, s, why, sizeof why))
        return mb_error_set(err, shape_error(s) ? MB_EINVAL : MB_ENOTSUP, "%s", why);
    mb_conv_plan *p = calloc(1, sizeof *p);
    if (!p)
        return mb_error_set(err, MB_ENOMEM, "convolution plan: out of memory");
    p->algo = algo;
    p->s = *s;
    p->oh = mb_conv_out_h(s);
    p->ow = mb_conv_out_w(s);
    if (algo == MB_CONV_FFT && mb_conv_fft_init(p) != MB_OK) {
        free(p);
        return mb_error_set(err, MB_ENOMEM, "fft: FFTW could not plan the transforms");
    }
    *plan = p;
    return MB_OK;
}

void mb_conv_plan_free(mb_conv_plan *plan)
{
    if (!plan)
        return;
    if (plan->algo == MB_CONV_FFT)
        mb_conv_fft_fini(plan);
    free(plan);
}

int mb_conv_plan_forward(const mb_conv_plan *p, int batch, const float *x, const float *w,
                         const float *b, float *y, void *ws)
{
    if (!p || batch < 1 || batch > p->s.batch)
        return MB_EINVAL;
    switch (p->algo) {
    case MB_CONV_GEMM: mb_conv_gemm_forward(p, batch, x, w, b, y, ws); break;
    case MB_CONV_DIRECT: mb_conv_direct_forward(p, batch, x, w, b, y); break;
    case MB_CONV_FFT: mb_conv_fft_forward(p, batch, x, w, b, y, ws); break;
    case MB_CONV_WINOGRAD: mb_conv_winograd_forward(p, batch, x, w, b, y, ws); break;
    default: return MB_ENOTSUP;
    }
    return MB_OK;
}

int mb_conv_plan_backward_data(const mb_conv_plan *p, int batch, const float *dy,
                               const float *w, float *dx, void *ws)
{
    if (!p || batch < 1 || batch > p->s.batch)
        return MB_EINVAL;
    switch (p->algo) {
    case MB_CONV_GEMM: mb_conv_gemm_backward_data(p, batch, dy, w, dx, ws); break;
    case MB_CONV_DIRECT: mb_conv_direct_backward_data(p, batch, dy, w, dx); break;
    case MB_CONV_FFT: mb_conv_fft_backward_data(p, batch, dy, w, dx, ws); break;
    case MB_CONV_WINOGRAD: mb_conv_winograd_backward_data(p, batch, dy, w, dx, ws); break;
    default: return MB_ENOTSUP;
    }
    return MB_OK;
}

int mb_conv_plan_backward_filter(const mb_conv_plan *p, int batch, const float *x,
                                 const float *dy, float *dw, float *db, void *ws)
{
    if (!p || batch < 1 || batch > p->s.batch)
        return MB_EINVAL;
    switch (p->algo) {
    case MB_CONV_GEMM: mb_conv_gemm_backward_filter(p, batch, x, dy, dw, db, ws); break;
    case MB_CONV_DIRECT: mb_conv_direct_backward_filter(p, batch, x, dy, dw, db); break;
    case MB_CONV_FFT: mb_conv_fft_backward_filter(p, batch, x, dy, dw, db, ws); break;
    case MB_CONV_WINOGRAD: mb_conv_winograd_backward_filter(p, batch, x, dy, dw, db, ws); break;
    default: return MB_ENOTSUP;
    }
    return MB_OK;
}

/* The one-shot calls: a plan for this call only (FFT plans its transforms every time). */
int mb_conv_forward(mb_conv_algo algo, const mb_conv_shape *s, const float *x, const float *w,
                    const float *b, float *y, void *ws)
{
    mb_conv_plan *p;
    int rc = mb_conv_plan_create(algo, s, &p, NULL);
    if (rc == MB_OK)
        rc = mb_conv_plan_forward(p, s->batch, x, w, b, y, ws);
    mb_conv_plan_free(p);
    return rc;
}

int mb_conv_backward_data(mb_conv_algo algo, const mb_conv_shape *s, const float *dy,
                          const float *w, float *dx, void *ws)
{
    mb_conv_plan *p;
    int rc = mb_conv_plan_create(algo, s, &p, NULL);
    if (rc == MB_OK)
        rc = mb_conv_plan_backward_data(p, s->batch, dy, w, dx, ws);
    mb_conv_plan_free(p);
    return rc;
}

int mb_conv_backward_filter(mb_conv_algo algo, const mb_conv_shape *s, const float *x,
                            const float *dy, float *dw, float *db, void *ws)
{
    mb_conv_plan *p;
    int rc = mb_conv_plan_create(algo, s, &p, NULL);
    if (rc == MB_OK)
        rc = mb_conv_plan_backward_filter(p, s->batch, x, dy, dw, db, ws);
    mb_conv_plan_free(p);
    return rc;
}

