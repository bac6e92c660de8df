/* layers_impl.h — private to train/: forward and backward of the non-convolution layers
 * (pooling, fully connected, activations, dropout, softmax cross-entropy) on a batch of NCHW
 * float32 tensors. Used by net.c and by the tests (through the network). No allocation here:
 * every buffer comes from the caller.
 */
#ifndef MB_LAYERS_IMPL_H
#define MB_LAYERS_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "../../../net/mb_net.h"

/* Pooling over [batch*c] planes of h x w into oh x ow; max pooling records in `arg` the input
 * index (within the plane) each output came from (-1 when the window held only padding), unless
 * arg is NULL (evaluation). Average
 * pooling divides by size*size, padding included (PyTorch's count_include_pad=True). */
void mb_layer_maxpool_forward(const mb_layer_desc *d, int batch, const float *x, float *y,
                              int *arg);
void mb_layer_maxpool_backward(const mb_layer_desc *d, int batch, const float *dy, const int *arg,
                               float *dx);
void mb_layer_avgpool_forward(const mb_layer_desc *d, int batch, const float *x, float *y);
void mb_layer_avgpool_backward(const mb_layer_desc *d, int batch, const float *dy, float *dx);

/* Fully connected: y [batch, out] = x [batch, in] W^T + b, W [out, in]. Backward writes dw, db
 * (not accumulated) and dx when dx is not NULL. */
void mb_layer_fc_forward(int batch, int in, int out, const float *x, const float *w,
                         const float *b, float *y);
void mb_layer_fc_backward(int batch, int in, int out, const float *x, const float *w,
                          const float *dy, float *dx, float *dw, float *db);

/* Element-wise activations over n values: y = f(x); backward from the output y (all three have
 * derivatives expressible in y): dx = dy * f'(.). The arrays must not overlap (restrict: the
 * loops vectorise). */
void mb_layer_act_forward(mb_layer_type t, size_t n, const float *restrict x, float *restrict y);
void mb_layer_act_backward(mb_layer_type t, size_t n, const float *restrict y,
                           const float *restrict dy, float *restrict dx);

/* Inverted dropout over n values: training draws mask[i] = 0 with probability p, else
 * 1 / (1 - p), and y = x mask; inference (train = 0) copies. Backward: dx = dy mask. */
void mb_layer_dropout_forward(float p, int train, size_t n, const float *x, float *y, float *mask,
                              uint64_t *rng);
void mb_layer_dropout_backward(size_t n, const float *dy, const float *mask, float *dx);

/* Softmax cross-entropy of logits [batch, classes] against labels: probabilities into prob (may
 * be NULL), per-sample losses summed in double into *loss_sum (log-sum-exp, stable for any
 * logits) and, when losses is not NULL, written to losses[0 .. batch), correct argmax predictions
 * added to *correct (may be NULL); when dx is not NULL it gets (prob - onehot) * scale. */
void mb_layer_softmax_xent(int batch, int classes, const float *logits, const int *labels,
                           float *prob, double *loss_sum, double *losses, size_t *correct,
                           float *dx, float scale);

#endif /* MB_LAYERS_IMPL_H */
