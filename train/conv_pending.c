/* conv_pending.c — TEMPORARY: FFT and Winograd entry points until conv_fft.c and
 * conv_winograd.c land; mb_conv_plan_create refuses both (MB_ENOTSUP) meanwhile. */
#include "conv_impl.h"

int mb_conv_fft_init(struct mb_conv_plan *p) { (void)p; return MB_ENOTSUP; }
void mb_conv_fft_fini(struct mb_conv_plan *p) { (void)p; }
size_t mb_conv_fft_workspace(mb_conv_pass pass, const mb_conv_shape *s) { (void)pass; (void)s; return 0; }
void mb_conv_fft_forward(const struct mb_conv_plan *p, int batch, const float *x, const float *w,
                         const float *b, float *y, float *ws) { (void)p; (void)batch; (void)x; (void)w; (void)b; (void)y; (void)ws; }
void mb_conv_fft_backward_data(const struct mb_conv_plan *p, int batch, const float *dy,
                               const float *w, float *dx, float *ws) { (void)p; (void)batch; (void)dy; (void)w; (void)dx; (void)ws; }
void mb_conv_fft_backward_filter(const struct mb_conv_plan *p, int batch, const float *x,
                                 const float *dy, float *dw, float *db, float *ws) { (void)p; (void)batch; (void)x; (void)dy; (void)dw; (void)db; (void)ws; }
size_t mb_conv_winograd_workspace(mb_conv_pass pass, const mb_conv_shape *s) { (void)pass; (void)s; return 0; }
void mb_conv_winograd_forward(const struct mb_conv_plan *p, int batch, const float *x,
                              const float *w, const float *b, float *y, float *ws) { (void)p; (void)batch; (void)x; (void)w; (void)b; (void)y; (void)ws; }
void mb_conv_winograd_backward_data(const struct mb_conv_plan *p, int batch, const float *dy,
                                    const float *w, float *dx, float *ws) { (void)p; (void)batch; (void)dy; (void)w; (void)dx; (void)ws; }
void mb_conv_winograd_backward_filter(const struct mb_conv_plan *p, int batch, const float *x,
                                      const float *dy, float *dw, float *db, float *ws) { (void)p; (void)batch; (void)x; (void)dy; (void)dw; (void)db; (void)ws; }
