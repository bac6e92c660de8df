/* optimum.c — the mini-batch size that minimises T_C(M, P) = N_update(M) T_update(M, P) for any
 * N_update law mbfit fits (inverse or power law), inside the range of M that runs support.
 *
 * Perrone et al.'s closed forms (eq. 9-10, model/) hold for the inverse law only; the runs often
 * support the power law better, so the optimum is found numerically: a log-spaced scan of T_C
 * brackets the least value, and GSL's Brent root finder solves dT_C/dM = 0 inside the bracket
 * (N' T_u + N T_u', exact derivatives), so the answer is as precise as the closed form (tests
 * compare the two to 1e-9). Below the knee M_T P, T_update is flat and T_C only falls with M, so
 * the optimum is never there unless the range ends there. With a measured step table T_update is
 * the table's (model/), and the scan starts at the range's low end: a table need not be flat
 * below any knee.
 *
 * Also the predicted cost of a grid sweep (a fixed set of M, so many seeds each), against which
 * a calibration's cost is set.
 *
 * Does not: decide the range (the caller passes what the runs support, or [1, inf) when asked to
 * extrapolate), print, or read files.
 */
#include "mb_solver.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

typedef struct tc_ctx {
    const mb_law *law;
    const mb_update_time *t;
    double p;
    double m_over, n_over, tu_over; /* the first M where N_update x T_update, both finite,
                                       passed DBL_MAX, and the two (NAN: nowhere yet); or where
                                       T_update itself did (tu_over INFINITY: Delta(P) = delta x
                                       P of --comm ps, campaign 45's B-F9) */
} tc_ctx;

static double tc_at(tc_ctx *c, double m)
{
    double tc, n, tu;
    if (mb_model_law_tc(c->law, c->t, m, c->p, &tc) != MB_OK)
        return INFINITY;
    if (isinf(tc) && isnan(c->n_over) && mb_model_law_nupdate(c->law, m, &n, NULL) == MB_OK &&
        mb_model_tupdate(c->t, m, c->p, &tu) == MB_OK && isfinite(n) && !isnan(tu))
        c->m_over = m, c->n_over = n, c->tu_over = tu;
    return tc;
}

/* dT_C/dM = N'(M) T_u(M) + N(M) T_u'(M). */
static double dtc(double m, void *arg)
{
    const tc_ctx *c = arg;
    double n, dn, tu, dtu;
    if (mb_model_law_nupdate(c->law, m, &n, &dn) != MB_OK ||
        mb_model_tupdate(c->t, m, c->p, &tu) != MB_OK ||
        mb_model_tupdate_dm(c->t, m, c->p, &dtu) != MB_OK)
        return NAN;
    return dn * tu + n * dtu;
}

/* Solves dT_C/dM = 0 in [lo, hi] (a sign change from - to +) with Brent's method. */
static int root(tc_ctx *c, double lo, double hi, double *m)
{
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    gsl_function f = {dtc, c};
    int rc = s ? gsl_root_fsolver_set(s, &f, lo, hi) : GSL_ENOMEM, status = GSL_CONTINUE;
    for (int it = 0; rc == GSL_SUCCESS && status == GSL_CONTINUE && it < 200; it++) {
        rc = gsl_root_fsolver_iterate(s);
        status = gsl_root_test_interval(gsl_root_fsolver_x_lower(s), gsl_root_fsolver_x_upper(s),
                                        0.0, 1e-15);
    }
    if (rc == GSL_SUCCESS && status == GSL_SUCCESS)
        *m = gsl_root_fsolver_root(s);
    gsl_root_fsolver_free(s);
    gsl_set_error_handler(old);
    return rc == GSL_SUCCESS && status == GSL_SUCCESS ? MB_OK : MB_ESOLVER;
}

/* The end of the search where the range has none (extrapolation): 2^53, the largest M a count
 * holds, so every M >= 1 is sought as scale's header says (campaign 42's B-F4: held at 1e6 x M_T,
 * 32000000, while the why: line's M* was 1.2e10 and T_C there 1.9x less); 64 points per factor
 * of 2 are then at most 53 x 64 points. It is the search's end at every P, the knee M_T P too
 * (campaign 43's B-F8: --procs 2^53 searched up to its knee, 32 x 2^53, and wrote an m_opt that
 * scale.json's readers refuse, mb_solver.h's 2^53): a P whose knee lies past it is held there. */
#define SEARCH_END 9007199254740992.0

/* An open search whose T_C at its end is within this of the least it found is held there: T_C
 * (a product of sums of positive terms, a few ulp off) is flat to rounding from the least to the
 * end, so the optimum lies at or past the end (campaign 43's B-F3: alpha 1e308, M* 2e153, put
 * P = 4's optimum at M 7.8e15, where rounding noise was least). */
#define END_FLAT 1e-12

double mb_solver_search_hi(double m_lo, double m_hi)
{
    return isfinite(m_hi) ? m_hi : fmax(m_lo, SEARCH_END);
}

int mb_solver_optimum(const mb_law *law, const mb_update_time *t, double p, double m_lo,
                      double m_hi, mb_solver_optimum_result *out, mb_error *err)
{
    if (!(isfinite(p) && p >= 1.0))
        return mb_error_set(err, MB_EDOM, "learner count must be >= 1, got %g", p);
    if (!(m_lo > 0 && m_hi >= m_lo && !isnan(m_hi)))
        return mb_error_set(err, MB_EDOM, "mini-batch range [%g, %g] is empty", m_lo, m_hi);
    tc_ctx c = {law, t, p, NAN, NAN, NAN};
    const double knee = t->n_table >= 2 ? 0.0 : t->m_t * p; /* a table has no assumed flat part */
    /* a range without end (extrapolation) is searched to SEARCH_END, a knee past it held there */
    const double hi = mb_solver_search_hi(m_lo, m_hi);
    const double lo = fmin(fmax(m_lo, knee), hi);

    /* scan: 64 points per factor of 2 is fine enough to bracket a unimodal minimum, and any
     * second minimum the scan would miss is within 1% in M of one it sees */
    enum { PER_OCTAVE = 64 };
    size_t n = lo < hi ? (size_t)ceil(log2(hi / lo) * PER_OCTAVE) + 1 : 1;
    size_t best = 0;
    double best_tc = INFINITY, step = n > 1 ? log(hi / lo) / (double)(n - 1) : 0.0;
    for (size_t i = 0; i < n; i++) {
        double v = tc_at(&c, lo * exp(step * (double)i));
        if (v < best_tc)
            best_tc = v, best = i;
    }
    if (!isfinite(best_tc) && isinf(c.tu_over))
        return mb_error_set(err, MB_EDOM, "T_update passes the largest number (%g) at P = %g "
                            "(at M = %g, N_update %g): Delta(P) (--delta%s) or the compute time "
                            "is too large", DBL_MAX, p, c.m_over, c.n_over,
                            t->comm == MB_COMM_PS ? " x P with --comm ps" : "");
    if (!isfinite(best_tc) && !isnan(c.n_over)) /* campaign 40's B-F5: not "not positive" */
        return mb_error_set(err, MB_EDOM, "T_C = N_update x T_update passes the largest number "
                            "(%g) for M in [%g, %g] at P = %g (at M = %g, N_update %g x "
                            "T_update %g s): the model's constants are too large", DBL_MAX, lo,
                            hi, p, c.m_over, c.n_over, c.tu_over);
    if (!isfinite(best_tc))
        return mb_error_set(err, MB_EDOM, "T_C cannot be evaluated for M in [%g, %g] at P = %g "
                                          "(N_update or T_update is not positive there)",
                            lo, hi, p);
    double m = lo * exp(step * (double)best);
    if (n > 1 && !isfinite(m_hi) && tc_at(&c, hi) <= best_tc * (1 + END_FLAT)) {
        m = hi; /* flat to rounding up to the open search's end: held there */
    } else if (n > 1) {
        double a = best > 0 ? lo * exp(step * (double)(best - 1)) : lo;
        double b = best + 1 < n ? lo * exp(step * (double)(best + 1)) : hi;
        double da = dtc(a, &c), db = dtc(b, &c);
        if (da < 0 && db > 0) {
            int rc = root(&c, a, b, &m);
            if (rc != MB_OK)
                return mb_error_set(err, rc, "dT_C/dM = 0: GSL's Brent solver failed in "
                                             "[%g, %g] at P = %g", a, b, p);
        } else if (best == 0 && da >= 0) {
            m = lo;
        } else if (best + 1 == n && db <= 0) {
            m = hi;
        }
    }
    mb_solver_optimum_result o = {0};
    o.opt.m_opt = m;
    if (mb_model_law_nupdate(law, m, &o.opt.n_update, NULL) != MB_OK ||
        mb_model_tupdate(t, m, p, &o.opt.t_update) != MB_OK)
        return mb_error_set(err, MB_EDOM, "T_C cannot be evaluated at M = %g, P = %g", m, p);
    o.opt.t_c = o.opt.n_update * o.opt.t_update;
    const double rel = 1e-9;
    o.bound = m <= m_lo * (1 + rel) && m_lo >= knee * (1 + rel)  ? MB_BOUND_LOW
              : m >= hi * (1 - rel) /* the open search's end too: 2^53, B43-F3 */ ? MB_BOUND_HIGH
                                                                  : MB_BOUND_NONE;
    if (m <= t->m_t * p * (1 + rel))
        o.opt.regime = p == 1.0 && t->t0 == 0.0 ? MB_REGIME_SINGLE : MB_REGIME_KNEE;
    else
        o.opt.regime = MB_REGIME_BALANCE;
    *out = o;
    return MB_OK;
}

const char *mb_solver_bound_name(mb_bound b)
{
    return b == MB_BOUND_LOW ? "low" : b == MB_BOUND_HIGH ? "high" : "none";
}

size_t mb_solver_optimum_spread(const mb_law *boot, size_t n, const mb_update_time *t, double p,
                                double m_lo, double m_hi, double q[2])
{
    double *m = malloc((n + 1) * sizeof *m);
    size_t k = 0;
    q[0] = q[1] = NAN;
    for (size_t i = 0; m && i < n; i++) {
        mb_solver_optimum_result o;
        mb_error e = {0};
        if (mb_solver_optimum(&boot[i], t, p, m_lo, m_hi, &o, &e) == MB_OK)
            m[k++] = o.opt.m_opt;
    }
    if (k >= 10) {
        gsl_sort(m, 1, k);
        q[0] = gsl_stats_quantile_from_sorted_data(m, 1, k, 0.10);
        q[1] = gsl_stats_quantile_from_sorted_data(m, 1, k, 0.90);
    }
    free(m);
    return k;
}

double mb_solver_m_whole(double m, double p)
{
    double k = round(m / p);
    if (p * k > SEARCH_END) /* campaign 43's B-F3: 2^53 at P = 7 rounded to 2^53 + 4 */
        k = floor(SEARCH_END / p);
    return p * (k >= 1 ? k : 1);
}

double mb_solver_tc_widening(size_t seeds)
{
    if (seeds < 2)
        return 1;
    const double n = (double)seeds, q = (1 + MB_SOLVER_TC_LEVEL) / 2;
    return sqrt(n / (n - 1)) * gsl_cdf_tdist_Pinv(q, n - 1) / gsl_cdf_ugaussian_Pinv(q);
}

size_t mb_solver_tc_interval(const mb_law *boot, size_t n, size_t seeds,
                             const mb_update_time *t, double m, double p, double ci[2])
{
    double *tc = malloc((n + 1) * sizeof *tc);
    size_t k = 0;
    ci[0] = ci[1] = NAN;
    for (size_t i = 0; tc && i < n; i++)
        if (mb_model_law_tc(&boot[i], t, m, p, &tc[k]) == MB_OK && isfinite(tc[k]))
            k++;
    if (tc && k >= MB_SOLVER_TC_MIN) {
        gsl_sort(tc, 1, k);
        const double mid = gsl_stats_median_from_sorted_data(tc, 1, k);
        const double w = mb_solver_tc_widening(seeds);
        for (int j = 0; j < 2; j++) {
            const double q = gsl_stats_quantile_from_sorted_data(tc, 1, k, (1 + (j ? 1 : -1) *
                                                                          MB_SOLVER_TC_LEVEL) / 2);
            ci[j] = exp(log(mid) + w * (log(q) - log(mid))); /* in logs: no overflow between */
        }
        /* resamples so far apart that an end leaves the doubles (0 or inf): no interval, not
         * one from 0 to inf s (campaign 27's X9) */
        if (!(ci[0] > 0 && isfinite(ci[0]) && ci[1] > 0 && isfinite(ci[1])))
            ci[0] = ci[1] = NAN;
    }
    free(tc);
    return k;
}

/* T_C(m) - limit, or +inf where T_C cannot be evaluated. */
static double over(const mb_law *law, const mb_update_time *t, double p, double m, double limit)
{
    double tc;
    return mb_model_law_tc(law, t, m, p, &tc) == MB_OK && isfinite(tc) ? tc - limit : INFINITY;
}

/* The crossing of T_C = limit between a (inside) and b (outside), by bisection in log M. */
static double edge(const mb_law *law, const mb_update_time *t, double p, double a, double b,
                   double limit)
{
    for (int i = 0; i < 60 && fabs(log(b / a)) > 1e-3; i++) {
        double c = sqrt(a * b);
        if (over(law, t, p, c, limit) <= 0)
            a = c;
        else
            b = c;
    }
    return a;
}

int mb_solver_grid_cost(const mb_law *law, const mb_update_time *t, double p, const double *m,
                        size_t n, size_t seeds, double cap, double *per_m, double *total,
                        double *capped_total, size_t *never, size_t *capped, mb_error *err)
{
    *total = *capped_total = 0;
    *never = *capped = 0;
    size_t fast = n; /* the M of the least T_C */
    for (size_t k = 0; k < n; k++) {
        if (law->kind == MB_LAW_SHIFTED && !(m[k] > law->m0)) {
            per_m[k] = NAN;
            (*never)++;
            continue;
        }
        if (mb_model_law_tc(law, t, m[k], p, &per_m[k]) != MB_OK || !isfinite(per_m[k]))
            return mb_error_set(err, MB_EDOM, "T_C cannot be evaluated at M = %g, P = %g", m[k],
                                p);
        if (fast == n || per_m[k] < per_m[fast])
            fast = k;
    }
    const double stop = fast < n && cap > 0 ? cap * per_m[fast] : INFINITY;
    for (size_t k = 0; k < n; k++) {
        if (!isnan(per_m[k]))
            *total += (double)seeds * per_m[k];
        const int below = fast < n && m[k] < m[fast];
        if (below && !(per_m[k] <= stop)) { /* NAN (never) or slower than the cap */
            if (isfinite(stop)) {
                *capped_total += stop;
                (*capped)++;
            }
        } else if (!isnan(per_m[k])) {
            *capped_total += (double)seeds * per_m[k];
        }
    }
    return MB_OK;
}

int mb_solver_flat_range(const mb_law *law, const mb_update_time *t, double p, double m_lo,
                         double m_hi, double t_best, double frac, double out[2], mb_error *err)
{
    out[0] = out[1] = NAN;
    /* a range without end: as far as mb_solver_optimum searches it (campaign 41's B-F4: capped
     * at 2^20 x the least M, a flat range left out an optimum of 1.2e6 it had found) */
    const double lo = m_lo >= 1 ? m_lo : 1;
    const double hi = mb_solver_search_hi(lo, m_hi);
    if (!(t_best > 0) || !(hi >= lo) || !(frac >= 0))
        return mb_error_set(err, MB_EDOM, "flat range: no optimum T_C to compare with");
    const double limit = (1 + frac) * t_best;
    const size_t n = (size_t)ceil(log2(hi / lo) * 64) + 1;
    double *g = malloc(n * sizeof *g);
    if (!g)
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    size_t at = n;
    double least = INFINITY;
    for (size_t i = 0; i < n; i++) {
        double m = n > 1 ? lo * pow(hi / lo, (double)i / (double)(n - 1)) : lo;
        g[i] = over(law, t, p, m, limit);
        if (g[i] < least)
            least = g[i], at = i;
    }
    int rc = MB_OK;
    if (at == n || least > 0) {
        rc = mb_error_set(err, MB_EDOM, "flat range: T_C(M, %g) stays above %.4g s in [%g, %g]",
                          p, limit, lo, hi);
    } else {
        size_t a = at, b = at;
        while (a > 0 && g[a - 1] <= 0)
            a--;
        while (b + 1 < n && g[b + 1] <= 0)
            b++;
#define GRID(i) (n > 1 ? lo * pow(hi / lo, (double)(i) / (double)(n - 1)) : lo)
        out[0] = a > 0 ? edge(law, t, p, GRID(a), GRID(a - 1), limit) : lo;
        out[1] = b + 1 < n ? edge(law, t, p, GRID(b), GRID(b + 1), limit) : hi;
#undef GRID
    }
    free(g);
    return rc;
}
