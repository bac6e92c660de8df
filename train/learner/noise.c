/* noise.c — the gradient noise scale B_simple (McCandlish et al. 2018, "An Empirical Model of
 * Large-Batch Training", appendix A.1): the one estimator every trainer feeds (mb_noise_*,
 * declared in mb_learner.h). The trainer hands it, per measured update, the squared norm of a
 * gradient over b samples and of one over B > b samples of the same mini-batch; it keeps two
 * sets of sums (the whole run, and the window since the last evaluation) and returns
 * |G|^2, S = tr(Sigma) and B_simple = S / |G|^2.
 *
 * Since E|G_b|^2 = |G|^2 + S / b, the unbiased estimates are (appendix A.1)
 *     |G|^2 ~ (B |G_B|^2 - b |G_b|^2) / (B - b),   S ~ (|G_b|^2 - |G_B|^2) / (1/b - 1/B).
 * Both are linear in the two norms, so estimating them from the norms' means is the same as
 * averaging each estimate separately over the updates (what McCandlish et al. recommend: the
 * ratio of one update's estimates is too noisy, the ratio of the averages is not); the ratio is
 * taken last. Not here: where the norms come from (run.c: a half batch every noise_every
 * updates; par.c: the learners' slices and the allreduced gradient).
 */
#include "mb_learner.h"

#include <math.h>
#include <string.h>

void mb_noise_init(mb_noise *e, double b, double B)
{
    memset(e, 0, sizeof *e);
    if (b >= 1 && B > b) {
        e->b = b;
        e->B = B;
    }
}

void mb_noise_add(mb_noise *e, double g2_small, double g2_big)
{
    if (e->b <= 0 || !isfinite(g2_small) || !isfinite(g2_big))
        return;
    e->run_small += g2_small;
    e->run_big += g2_big;
    e->run_n++;
    e->win_small += g2_small;
    e->win_big += g2_big;
    e->win_n++;
}

/* The estimates from the sums of n updates' norms. */
static mb_noise_est estimate(double b, double B, double small, double big, long n)
{
    mb_noise_est r = {NAN, NAN, NAN, n};
    if (n <= 0 || b <= 0)
        return r;
    double gs = small / (double)n, gb = big / (double)n;
    r.g2 = (B * gb - b * gs) / (B - b);
    r.s = (gs - gb) / (1 / b - 1 / B);
    if (r.g2 > 0 && r.s > 0)
        r.b_simple = r.s / r.g2;
    return r;
}

mb_noise_est mb_noise_run(const mb_noise *e)
{
    return estimate(e->b, e->B, e->run_small, e->run_big, e->run_n);
}

mb_noise_est mb_noise_window(mb_noise *e)
{
    mb_noise_est r = estimate(e->b, e->B, e->win_small, e->win_big, e->win_n);
    e->win_small = e->win_big = 0;
    e->win_n = 0;
    return r;
}

double mb_noise_norm2(const float *g, size_t n)
{
    double s = 0;
    for (size_t k = 0; k < n; k++)
        s += (double)g[k] * g[k];
    return s;
}
