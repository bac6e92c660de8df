/* memory.c — the memory a CNN holds on one device while it trains (Zou et al. 2017, eq. 1-5):
 * parameters, gradients, optimiser state, the input and the feature maps kept for the backward
 * pass, and the largest convolution workspace; M_bound, and the largest mini-batch that fits.
 *
 * Differences from the paper, on purpose: sizes are bytes, not bits; gradients are grad_copies
 * blocks (mbkit's trainer keeps one; the paper assumes two) and optimiser state is counted
 * (momentum keeps one velocity per parameter; the paper has none); biases are counted exactly (the
 * paper's (m - 1) * 3 * 32 under-counts them, see docs/models.md, "Memory of a CNN"); element-wise
 * layers (activations, dropout, softmax) run in place and keep nothing, except an output that a
 * later add or concat reads (a residual skip keeps it alive). Graph layers, not in the paper:
 * batch normalisation keeps its output, 2 C parameters and 2 C values of running statistics;
 * add and concat keep their output. Every term is a constant
 * or a multiple of M, which is what makes the largest M a closed form.
 *
 * Pure: no I/O, no allocation; MB_EDOM outside the domain. Not here: reading network
 * descriptions (solver/ translates train/'s), the algorithms' measured workspaces (the ILP,
 * solver/conv.c).
 */
#include "mb_model.h"

#include <math.h>

void mb_model_mem_defaults(mb_mem_options *o)
{
    o->value_bytes = 4;
    o->grad_copies = 1;
    o->state_copies = 1;
    o->gemm_workspace = 1;
}

static int shape_ok(const mb_mem_layer *l)
{
    return l->in_c >= 1 && l->in_h >= 1 && l->in_w >= 1 && l->out_c >= 1 && l->out_h >= 1 &&
           l->out_w >= 1 && (l->kind != MB_MEM_CONV || l->k >= 1) &&
           (int)l->kind >= MB_MEM_CONV && (int)l->kind <= MB_MEM_JOIN;
}

static int options_ok(const mb_mem_options *o)
{
    return isfinite(o->value_bytes) && o->value_bytes > 0 && isfinite(o->grad_copies) &&
           o->grad_copies >= 1 && isfinite(o->state_copies) && o->state_copies >= 0;
}

/* Values per sample of the layer's output, and of its GEMM lowering (0 when not a conv). */
static double out_values(const mb_mem_layer *l)
{
    return (double)l->out_c * l->out_h * l->out_w;
}

static double lowering_values(const mb_mem_layer *l)
{
    /* im2col: one column of in_c k^2 values per output pixel (Chetlur et al. 2014, sec. 3.1) */
    return l->kind == MB_MEM_CONV ? (double)l->in_c * l->k * l->k * l->out_h * l->out_w : 0;
}

/* Weights and biases: conv F F D_{i-1} K_i + K_i (eq. 3), fc L_j L_{j+1} + L_{j+1} (eq. 4). */
static double param_values(const mb_mem_layer *l)
{
    switch (l->kind) {
    case MB_MEM_CONV: return (double)l->k * l->k * l->in_c * l->out_c + l->out_c;
    case MB_MEM_FC: return (double)l->in_c * l->in_h * l->in_w * l->out_c + l->out_c;
    case MB_MEM_BN: return 2.0 * l->out_c; /* gamma, beta */
    default: return 0;
    }
}

int mb_model_mem_layer(const mb_mem_layer *l, double m, const mb_mem_options *o,
                       mb_mem_bytes *b)
{
    if (!(isfinite(m) && m > 0) || !shape_ok(l) || !options_ok(o))
        return MB_EDOM;
    const double v = o->value_bytes, p = param_values(l) * v;
    b->params = p;
    b->grads = o->grad_copies * p;
    /* BN's running mean and var: state that no optimiser keeps but the layer does */
    b->state = o->state_copies * p + (l->kind == MB_MEM_BN ? 2.0 * l->out_c * v : 0);
    b->fmap = l->kind == MB_MEM_ELEMENTWISE && !l->kept ? 0 : m * out_values(l) * v;
    b->workspace = o->gemm_workspace ? m * lowering_values(l) * v : 0;
    return MB_OK;
}

int mb_model_mem(const mb_mem_layer *layers, size_t n, double m, const mb_mem_options *o,
                 mb_mem_total *t)
{
    if (n == 0 || !(isfinite(m) && m > 0) || !options_ok(o))
        return MB_EDOM;
    mb_mem_total s = {0};
    s.input = m * (double)layers[0].in_c * layers[0].in_h * layers[0].in_w * o->value_bytes;
    for (size_t i = 0; i < n; i++) {
        mb_mem_bytes b;
        int rc = mb_model_mem_layer(&layers[i], m, o, &b);
        if (rc != MB_OK)
            return rc;
        s.params += b.params, s.grads += b.grads, s.state += b.state, s.fmaps += b.fmap;
        if (b.workspace > s.workspace)
            s.workspace = b.workspace, s.ws_layer = i;
    }
    s.model = s.params + s.grads + s.state + s.input + s.fmaps;
    s.total = s.model + s.workspace;
    *t = s;
    return MB_OK;
}

int mb_model_mem_bound(const mb_mem_layer *layers, size_t n, double m, const mb_mem_options *o,
                       double device_bytes, double *bound)
{
    mb_mem_total t;
    if (!(isfinite(device_bytes) && device_bytes > 0))
        return MB_EDOM;
    int rc = mb_model_mem(layers, n, m, o, &t);
    if (rc == MB_OK)
        *bound = device_bytes - t.model;
    return rc;
}

int mb_model_mem_max_batch(const mb_mem_layer *layers, size_t n, const mb_mem_options *o,
                           double device_bytes, double *m_max)
{
    if (!(isfinite(device_bytes) && device_bytes > 0))
        return MB_EDOM;
    /* total(M) = fixed + per M with the largest workspace's slope: each layer's workspace is a
     * multiple of M, so the largest one at M = 1 is the largest at every M. */
    mb_mem_total t1;
    int rc = mb_model_mem(layers, n, 1, o, &t1);
    if (rc != MB_OK)
        return rc;
    const double fixed = t1.params + t1.grads + t1.state;
    const double per = t1.total - fixed;
    if (fixed + per > device_bytes) {
        *m_max = 0;
        return MB_OK;
    }
    double m = floor((device_bytes - fixed) / per);
    /* floor of a quotient of doubles can land one off; step to the exact boundary */
    while (m > 1 && fixed + m * per > device_bytes)
        m -= 1;
    while (fixed + (m + 1) * per <= device_bytes && m < 0x1p40)
        m += 1;
    *m_max = m > 0x1p40 ? 0x1p40 : m;
    return MB_OK;
}
