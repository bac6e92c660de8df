/* knee.c — the knee M_T of a step table: where the time of one update stops being flat.
 *
 * Fits t(M) = gamma * max(M, M_T) (Perrone et al. 2019, eq. 3) by least squares on log t. With
 * u = log M, y = log t and v = log M_T the model is y = G + max(v, u) with G = log gamma. For a
 * fixed v the best G is the mean of z_i = y_i - max(v, u_i), and the squared error is
 * n Var(z). Between neighbouring measured sizes u_(j-1) <= v <= u_j, the first j points are flat
 * (z_i = y_i - v) and the rest linear (z_i = y_i - u_i), and the error is a convex quadratic in v
 * whose minimum is v* = mean_flat(y) - mean_linear(y - u) (log c - log gamma); clamping v* into
 * the interval gives that interval's best knee exactly. The best of the n - 1 intervals is the
 * fit. The two ends (knee at the smallest M: linear throughout; at the largest: flat throughout)
 * are the clamped ends of the first and last intervals.
 *
 * Does not: weight points by their measured spread, or fit the smooth form c + g M.
 */
#include <math.h>

#include "mb_probe.h"

/* n Var(z) for a knee at v, and the mean of z in *g. */
static double sse_at(const double *u, const double *y, size_t n, double v, double *g)
{
    double mean = 0;
    for (size_t i = 0; i < n; i++)
        mean += y[i] - fmax(v, u[i]);
    mean /= (double)n;
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        double r = y[i] - fmax(v, u[i]) - mean;
        s += r * r;
    }
    *g = mean;
    return s;
}

int mb_probe_knee_fit(const double *batch, const double *t, size_t n, mb_probe_knee *k,
                      mb_error *err)
{
    if (n < 3)
        return mb_error_set(err, MB_ENODATA, "knee: needs at least 3 batch sizes, got %zu", n);
    for (size_t i = 0; i < n; i++) {
        if (!(batch[i] > 0) || !isfinite(batch[i]))
            return mb_error_set(err, MB_EDOM, "knee: batch %g is not positive", batch[i]);
        if (!(t[i] > 0) || !isfinite(t[i]))
            return mb_error_set(err, MB_EDOM, "knee: time %g at batch %g is not positive",
                                t[i], batch[i]);
        if (i > 0 && !(batch[i] > batch[i - 1]))
            return mb_error_set(err, MB_EDOM,
                                "knee: batch sizes must increase (%g follows %g)", batch[i],
                                batch[i - 1]);
    }
    /* Logs of at most a few thousand points: small enough for the stack. */
    enum { MAXN = 4096 };
    if (n > MAXN)
        return mb_error_set(err, MB_EINVAL, "knee: at most %d batch sizes, got %zu", MAXN, n);
    double u[MAXN], y[MAXN];
    for (size_t i = 0; i < n; i++) {
        u[i] = log(batch[i]);
        y[i] = log(t[i]);
    }

    double best_sse = INFINITY, best_v = u[0], best_g = 0;
    for (size_t j = 1; j < n; j++) {
        /* Flat: points 0..j-1; linear: j..n-1. */
        double a = 0, b = 0;
        for (size_t i = 0; i < j; i++)
            a += y[i];
        for (size_t i = j; i < n; i++)
            b += y[i] - u[i];
        double v = a / (double)j - b / (double)(n - j);
        v = fmin(fmax(v, u[j - 1]), u[j]);
        double g, s = sse_at(u, y, n, v, &g);
        if (s < best_sse) {
            best_sse = s;
            best_v = v;
            best_g = g;
        }
    }
    k->m_t = exp(best_v);
    k->gamma = exp(best_g);
    k->t_flat = k->gamma * k->m_t;
    k->rms_log = sqrt(best_sse / (double)n);
    /* An end counts as reached within 1e-12 in log M: v* is a difference of means, so a knee
     * that lies exactly at an end can come out a few ulps inside it. */
    const double tol = 1e-12 * fmax(1.0, fabs(u[n - 1]));
    k->where = best_v <= u[0] + tol ? MB_PROBE_KNEE_BELOW
             : best_v >= u[n - 1] - tol ? MB_PROBE_KNEE_ABOVE : MB_PROBE_KNEE_INSIDE;
    if (k->where == MB_PROBE_KNEE_BELOW)
        k->m_t = batch[0];
    else if (k->where == MB_PROBE_KNEE_ABOVE)
        k->m_t = batch[n - 1];
    return MB_OK;
}
