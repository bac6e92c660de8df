/* par_rules.c — the update rules of docs/algorithms.md on flat float arrays (mb_par.h): what
 * the trainers in par.c and par_async.c call, and what the tests check step by
 * step. No communication, no allocation.
 */
#include "mb_par.h"

void mb_par_elastic(float *x, float *c, size_t n, float alpha)
{
    for (size_t k = 0; k < n; k++) {
        float e = alpha * (x[k] - c[k]);
        x[k] -= e;
        c[k] += e;
    }
}

void mb_par_elastic_term(const float *x, float *c, size_t n, float alpha)
{
    for (size_t k = 0; k < n; k++)
        c[k] = alpha * (x[k] - c[k]);
}

void mb_par_async_sgd(float *x, const float *g, const float *e, size_t n, float eta)
{
    if (e)
        for (size_t k = 0; k < n; k++)
            x[k] = (x[k] - e[k]) - eta * g[k];
    else
        for (size_t k = 0; k < n; k++)
            x[k] -= eta * g[k];
}

void mb_par_easgd_learner(float *x, const float *g, const float *c, size_t n, float eta,
                          float alpha)
{
    for (size_t k = 0; k < n; k++)
        x[k] = x[k] - eta * g[k] - alpha * (x[k] - c[k]);
}

void mb_par_easgd_centre(float *c, const float *sum, size_t n, float alpha, int p)
{
    const float beta = (float)p * alpha;
    for (size_t k = 0; k < n; k++)
        c[k] = (1 - beta) * c[k] + alpha * sum[k];
}

void mb_par_easgd_turn(float *x, const float *g, float *c, size_t n, float eta, float alpha)
{
    for (size_t k = 0; k < n; k++) {
        float e = alpha * (x[k] - c[k]);
        x[k] = x[k] - eta * g[k] - e;
        c[k] += e;
    }
}

void mb_par_sma_learner(float *x, const float *g, const float *z, float *cj, size_t n,
                        float gamma, float alpha)
{
    for (size_t k = 0; k < n; k++) {
        float ck = alpha * (x[k] - z[k]);
        cj[k] = ck;
        x[k] -= gamma * g[k] + ck;
    }
}

void mb_par_sma_centre(float *z, float *zprev, const float *csum, size_t n, float mu)
{
    for (size_t k = 0; k < n; k++) {
        float zn = z[k] + csum[k] + mu * (z[k] - zprev[k]);
        zprev[k] = z[k];
        z[k] = zn;
    }
}

void mb_par_nesterov_lookahead(float *x, float *keep, const float *v, size_t n, float delta)
{
    for (size_t k = 0; k < n; k++) {
        keep[k] = x[k];
        x[k] += delta * v[k];
    }
}

void mb_par_nesterov_step(float *x, const float *keep, float *v, const float *g, size_t n,
                          float eta, float delta)
{
    for (size_t k = 0; k < n; k++) {
        v[k] = delta * v[k] - eta * g[k];
        x[k] = keep[k] + v[k];
    }
}

