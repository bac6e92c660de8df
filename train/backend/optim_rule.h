/* optim_rule.h — private to train/: the single-learner update of docs/algorithms.md ("Single
 * learner") for one parameter, and its loop over n, in one place for every caller: the host
 * optimiser (train/learner/optim.c), the CPU backend's optim_step and the CUDA kernel
 * (train/backend/cuda/ops.cu), which compiles these same lines for the device.
 *
 *   sgd:       x <- x - lr (g + wd x)
 *   momentum:  v <- mu v - lr (g + wd x);  x <- x + v                    (heavy ball)
 *   nesterov:  s = lr (g + wd x);  v <- mu v - s;  x <- x + mu v - s     (look-ahead form)
 *
 * The kinds are mb_optim_kind's values (train/learner/mb_learner.h; optim.c checks they agree).
 * On the device nvcc contracts a x + b into one fused multiply-add, so CUDA's results differ from
 * the host's by an ulp or so.
 */
#ifndef MB_OPTIM_RULE_H
#define MB_OPTIM_RULE_H

#include <stddef.h>

#ifdef __CUDACC__
#define MB_HOST_DEVICE __host__ __device__
#else
#define MB_HOST_DEVICE
#endif

enum { MB_RULE_SGD = 0, MB_RULE_MOMENTUM = 1, MB_RULE_NESTEROV = 2 };

/* One parameter x[i] with gradient g[i] and velocity v[i] (v unused by SGD). */
static inline MB_HOST_DEVICE void mb_optim_rule(int kind, size_t i, float lr, float mu, float wd,
                                                float *x, const float *g, float *v)
{
    float step = lr * (g[i] + wd * x[i]);
    switch (kind) {
    case MB_RULE_SGD:
        x[i] -= step;
        break;
    case MB_RULE_MOMENTUM:
        v[i] = mu * v[i] - step;
        x[i] += v[i];
        break;
    default: /* MB_RULE_NESTEROV */
        v[i] = mu * v[i] - step;
        x[i] += mu * v[i] - step;
        break;
    }
}

/* The rule over x[0 .. n) on the host; the kind's loop is chosen once, outside the loop. */
static inline void mb_optim_rule_host(int kind, size_t n, float lr, float mu, float wd, float *x,
                                      const float *g, float *v)
{
    switch (kind) {
    case MB_RULE_SGD:
        for (size_t i = 0; i < n; i++)
            mb_optim_rule(MB_RULE_SGD, i, lr, mu, wd, x, g, v);
        break;
    case MB_RULE_MOMENTUM:
        for (size_t i = 0; i < n; i++)
            mb_optim_rule(MB_RULE_MOMENTUM, i, lr, mu, wd, x, g, v);
        break;
    default:
        for (size_t i = 0; i < n; i++)
            mb_optim_rule(MB_RULE_NESTEROV, i, lr, mu, wd, x, g, v);
        break;
    }
}

#endif /* MB_OPTIM_RULE_H */
