/* layers_impl.h — private to train/: forward and backward of the non-convolution layers
 * (pooling, fully connected, activations, dropout, softmax cross-entropy; batch normalisation
 * and the row copies of add and concat in batchnorm.c) on a batch of NCHW float32 tensors. Used by net.c and by the tests (through the network). No allocation here:
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

/* Batch normalisation of [batch, C, hw] (train/backend/cpu/batchnorm.c; Ioffe and Szegedy 2015,
 * Algorithm 1): xhat = (x - mean[c]) invstd[c], y = gamma[c] xhat + beta[c].
 * stats: sum[c] and sumsq[c] of x over the batch and hw (overwritten; double).
 * apply: y from x with the given mean and invstd (the batch's in training, the running ones in
 * inference).
 * backward_sums: sum_dy[c] = sum dy and sum_dy_xhat[c] = sum dy xhat (overwritten): BN's beta
 * and gamma gradients, and with the other shards' what backward_data needs.
 * backward_data: dx = gamma invstd (dy - mean_dy - xhat mean_dy_xhat), with the means over the
 * whole batch's N = batch hw values of a channel (not accumulated). */
void mb_layer_bn_stats(int batch, int C, size_t hw, const float *x, double *sum, double *sumsq);
void mb_layer_bn_apply(int batch, int C, size_t hw, const float *x, const float *mean,
                       const float *invstd, const float *gamma, const float *beta, float *y);
void mb_layer_bn_backward_sums(int batch, int C, size_t hw, const float *x, const float *dy,
                               const float *mean, const float *invstd, double *sum_dy,
                               double *sum_dy_xhat);
void mb_layer_bn_backward_data(int batch, int C, size_t hw, const float *x, const float *dy,
                               const float *mean, const float *invstd, const float *gamma,
                               const float *mean_dy, const float *mean_dy_xhat, float *dx);

/* rows copies of len floats, src rows sstride apart, dst rows dstride apart; added to dst when
 * accumulate is 1 (add and concat, and the routing of a graph's gradients). */
void mb_layer_copy_rows(size_t rows, size_t len, const float *src, size_t sstride, float *dst,
                        size_t dstride, int accumulate);

#endif /* MB_LAYERS_IMPL_H */
