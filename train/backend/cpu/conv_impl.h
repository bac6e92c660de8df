/* conv_impl.h — private to train/: the per-algorithm convolution kernels behind mb_conv_* and
 * mb_conv_plan_*, and small helpers they share. Not installed, not part of the public interface.
 *
 * Every kernel takes the plan (algorithm, per-sample shape, FFTW plans for FFT) and the batch of
 * this call (<= the plan's batch); workspaces come from the caller, 64-byte aligned, at least
 * mb_conv_workspace(algo, pass, plan shape) bytes.
 */
#ifndef MB_CONV_IMPL_H
#define MB_CONV_IMPL_H

#include <stddef.h>

#include "../../../net/mb_net.h"
#include "../mb_backend.h"

/* What mb_conv_plan holds (the opaque public type). */
struct mb_conv_plan {
    mb_conv_algo algo;   /* the algorithm this plan runs */
    mb_conv_shape s;     /* shape; s.batch is the largest batch the plan serves */
    int oh, ow;          /* output height and width (pixels) */
    void *fft;           /* FFT only: the FFTW plans and sizes (conv_fft.c), else NULL */
};

/* Rounds a float count up to a multiple of 16 floats (64 bytes), so sub-buffers of a workspace
 * stay 64-byte aligned. */
static inline size_t mb_conv_align16(size_t n) { return (n + 15) & ~(size_t)15; }

/* im2col + sgemm (conv_gemm.c). */
size_t mb_conv_gemm_workspace(mb_conv_pass pass, const mb_conv_shape *s);
void mb_conv_gemm_forward(const struct mb_conv_plan *p, int batch, const float *x, const float *w,
                          const float *b, float *y, float *ws);
void mb_conv_gemm_backward_data(const struct mb_conv_plan *p, int batch, const float *dy,
                                const float *w, float *dx, float *ws);
void mb_conv_gemm_backward_filter(const struct mb_conv_plan *p, int batch, const float *x,
                                  const float *dy, float *dw, float *db, float *ws);

/* Plain loops, no workspace (conv_direct.c). */
void mb_conv_direct_forward(const struct mb_conv_plan *p, int batch, const float *x,
                            const float *w, const float *b, float *y);
void mb_conv_direct_backward_data(const struct mb_conv_plan *p, int batch, const float *dy,
                                  const float *w, float *dx);
void mb_conv_direct_backward_filter(const struct mb_conv_plan *p, int batch, const float *x,
                                    const float *dy, float *dw, float *db);

/* FFTW (conv_fft.c). Plans are created by mb_conv_fft_init (not thread-safe: FFTW's planner)
 * and destroyed by mb_conv_fft_fini. */
int mb_conv_fft_init(struct mb_conv_plan *p);
void mb_conv_fft_fini(struct mb_conv_plan *p);
size_t mb_conv_fft_workspace(mb_conv_pass pass, const mb_conv_shape *s);
void mb_conv_fft_forward(const struct mb_conv_plan *p, int batch, const float *x, const float *w,
                         const float *b, float *y, float *ws);
void mb_conv_fft_backward_data(const struct mb_conv_plan *p, int batch, const float *dy,
                               const float *w, float *dx, float *ws);
void mb_conv_fft_backward_filter(const struct mb_conv_plan *p, int batch, const float *x,
                                 const float *dy, float *dw, float *db, float *ws);

/* Winograd F(2x2, 3x3), stride 1 (conv_winograd.c). */
size_t mb_conv_winograd_workspace(mb_conv_pass pass, const mb_conv_shape *s);
void mb_conv_winograd_forward(const struct mb_conv_plan *p, int batch, const float *x,
                              const float *w, const float *b, float *y, float *ws);
void mb_conv_winograd_backward_data(const struct mb_conv_plan *p, int batch, const float *dy,
                                    const float *w, float *dx, float *ws);
void mb_conv_winograd_backward_filter(const struct mb_conv_plan *p, int batch, const float *x,
                                      const float *dy, float *dw, float *db, float *ws);

/* db[k] = sum over batch and pixels of dy[n, k, :] (shared by the algorithms). */
void mb_conv_bias_grad(int batch, int k, size_t plane, const float *dy, float *db);

#endif /* MB_CONV_IMPL_H */
