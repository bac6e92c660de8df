/* scale.c — scaling tables: for each learner count, T_C under optimal, strong and weak scaling,
 * their speed-ups and efficiencies, and the best configuration (Perrone et al. 2019, sec. 4).
 */
#include "mb_solver.h"

#include <math.h>

/* The first bad parameter, named as a file's field when the values came from one. */
static int need_fail(mb_error *err, const char *path, const char *where, const char *name,
                     const char *what, double v)
{
    if (path)
        return mb_error_set(err, MB_EFORMAT, "%s: field '%s%s': must be %s, got %g", path, where,
                            name, what, v);
    return mb_error_set(err, MB_EDOM, "%s must be %s, got %g", name, what, v);
}

int mb_solver_check_models(const mb_law *law, const mb_update_time *t, mb_error *err)
{
    return mb_solver_check_models_in(law, t, NULL, NULL, err);
}

int mb_solver_check_models_in(const mb_law *law, const mb_update_time *t, const char *path,
                              const char *where, mb_error *err)
{
#define NEED(cond, name, what, v)                                                                 \
    do {                                                                                          \
        if (!(cond))                                                                              \
            return need_fail(err, path, where, name, what, v);                                   \
    } while (0)
    if (law->kind == MB_LAW_INVERSE) {
        NEED(isfinite(law->n_inf) && law->n_inf > 0, "n_inf", "> 0", law->n_inf);
        NEED(isfinite(law->a) && law->a >= 0, "alpha", ">= 0", law->a);
        NEED(law->b == 1.0, "the inverse law's exponent", "1", law->b);
    } else if (law->kind == MB_LAW_SHIFTED) {
        NEED(isfinite(law->n_inf), "n_inf", "finite", law->n_inf);
        NEED(isfinite(law->a) && law->a >= 0, "alpha", ">= 0", law->a);
        NEED(isfinite(law->m0) && law->m0 >= 0, "m_0", ">= 0", law->m0);
        NEED(law->b == 1.0, "the shifted law's exponent", "1", law->b);
    } else {
        NEED(isfinite(law->n_inf), "n_inf", "finite", law->n_inf);
        NEED(isfinite(law->a), "a", "finite", law->a);
        NEED(isfinite(law->b) && law->b > 0, "b", "> 0", law->b);
    }
    NEED(isfinite(t->gamma) && t->gamma > 0, "gamma", "> 0", t->gamma);
    NEED(isfinite(t->m_t) && t->m_t > 0, "m_t", "> 0", t->m_t);
    NEED(isfinite(t->t0) && t->t0 >= 0, "t0", ">= 0", t->t0);
    if (t->comm == MB_COMM_ALLREDUCE || t->comm == MB_COMM_PS)
        NEED(isfinite(t->delta) && t->delta >= 0, "delta", ">= 0", t->delta);
    if (t->comm == MB_COMM_ALPHA_BETA) {
        NEED(isfinite(t->latency_s) && t->latency_s >= 0, "latency_s", ">= 0", t->latency_s);
        NEED(isfinite(t->s_per_byte) && t->s_per_byte >= 0, "s_per_byte", ">= 0", t->s_per_byte);
        NEED(isfinite(t->bytes) && t->bytes >= 0, "bytes", ">= 0", t->bytes);
    }
#undef NEED
    return MB_OK;
}

/* T_C of a fixed total mini-batch m at P learners, NAN when m < P (less than a sample each). */
static double tc_or_nan(const mb_law *law, const mb_update_time *t, double m, double p)
{
    double tc;
    if (m < p || mb_model_law_tc(law, t, m, p, &tc) != MB_OK)
        return NAN;
    return tc;
}

/* The total M at which P learners' own runs measured their step (t's table for P, runs > 0):
 * 1 and r[0..1], or 0 when P has no such table. */
static int runs_range(const mb_update_time *t, double p, double r[2])
{
    for (size_t i = 0; i < t->n_by_p; i++)
        if (t->by_p[i].p == p && t->by_p[i].runs > 0) {
            r[0] = t->by_p[i].run_lo * p;
            r[1] = t->by_p[i].run_hi * p;
            return 1;
        }
    return 0;
}

/* The range of total M searched at P into row r: [m_lo, m_hi], narrowed at P > 1 to the M that
 * P learners' own runs trained (unless opts->beyond_runs) where the two overlap; where they do
 * not, searched whole and marked runs_outside (labelled, never recommended). */
static void row_range(const mb_update_time *t, const mb_scale_options *opts, double p,
                      mb_scale_row *r, int from_runs[2])
{
    double rr[2];
    r->m_lo = opts->m_lo;
    r->m_hi = opts->m_hi;
    r->runs_outside = 0;
    from_runs[0] = from_runs[1] = 0;
    if (p <= 1 || opts->beyond_runs || !runs_range(t, p, rr))
        return;
    if (fmax(r->m_lo, rr[0]) > fmin(r->m_hi, rr[1])) { /* no M both: searched, labelled */
        r->runs_outside = 1;
        return;
    }
    from_runs[0] = rr[0] > r->m_lo;
    from_runs[1] = rr[1] < r->m_hi;
    r->m_lo = fmax(r->m_lo, rr[0]);
    r->m_hi = fmin(r->m_hi, rr[1]);
}

int mb_solver_scale(const mb_law *law, const mb_update_time *t, mb_scale_options *opts,
                    const double *procs, size_t n, mb_scale_row *rows, mb_error *err)
{
    int rc = mb_solver_check_models(law, t, err);
    if (rc != MB_OK)
        return rc;
    if (opts->m_lo == 0.0 && opts->m_hi == 0.0)
        opts->m_hi = INFINITY;
    if (opts->m_lo == 0.0)
        opts->m_lo = 1.0;
    if (!(opts->m_lo > 0 && opts->m_hi >= opts->m_lo))
        return mb_error_set(err, MB_EDOM, "mini-batch range [%g, %g] is empty", opts->m_lo,
                            opts->m_hi);
    mb_solver_optimum_result base;
    if ((rc = mb_solver_optimum(law, t, 1.0, opts->m_lo, opts->m_hi, &base, err)) != MB_OK)
        return rc;
    if (opts->m_strong == 0.0)
        opts->m_strong = base.opt.m_opt;
    /* weak scaling holds M/P at the knee, or where the law has no value at the knee (at or
     * below the shifted law's M_0: the target is out of reach there) at the range's low end,
     * and above M_0 when that is too (a range from 1, --extrapolate) */
    double n_knee;
    if (opts->m_weak == 0.0 && mb_model_law_nupdate(law, t->m_t, &n_knee, NULL) == MB_OK)
        opts->m_weak = t->m_t;
    else if (opts->m_weak == 0.0)
        opts->m_weak = law->kind == MB_LAW_SHIFTED && fmax(t->m_t, opts->m_lo) <= law->m0
                           ? floor(law->m0) + 1
                           : fmax(t->m_t, opts->m_lo);
    if (!(isfinite(opts->m_strong) && opts->m_strong > 0))
        return mb_error_set(err, MB_EDOM, "strong-scaling mini-batch must be > 0, got %g",
                            opts->m_strong);
    if (!(isfinite(opts->m_weak) && opts->m_weak > 0))
        return mb_error_set(err, MB_EDOM, "weak-scaling mini-batch must be > 0, got %g",
                            opts->m_weak);

    double base_strong, base_weak;
    if (mb_model_law_tc(law, t, opts->m_strong, 1.0, &base_strong) != MB_OK ||
        mb_model_law_tc(law, t, opts->m_weak, 1.0, &base_weak) != MB_OK)
        return mb_error_set(err, MB_EDOM, "the model cannot be evaluated at P = 1 at the "
                            "strong-scaling M = %g or the weak-scaling M = %g (--m-strong, "
                            "--m-weak)", opts->m_strong, opts->m_weak);

    for (size_t i = 0; i < n; i++) {
        const double p = procs[i];
        mb_scale_row *r = &rows[i];
        if (!(isfinite(p) && p >= 1.0))
            return mb_error_set(err, MB_EDOM, "learner count must be >= 1, got %g", p);
        r->procs = p;
        int from_runs[2];
        row_range(t, opts, p, r, from_runs);
        mb_solver_optimum_result o;
        if ((rc = mb_solver_optimum(law, t, p, r->m_lo, r->m_hi, &o, err)) != MB_OK)
            return rc;
        r->opt = o.opt;
        r->bound = o.bound;
        r->runs_held = (o.bound == MB_BOUND_LOW && from_runs[0]) ||
                       (o.bound == MB_BOUND_HIGH && from_runs[1]);
        r->t_c_strong = tc_or_nan(law, t, opts->m_strong, p);
        r->t_c_weak = tc_or_nan(law, t, opts->m_weak * p, p);
        r->speedup_opt = base.opt.t_c / r->opt.t_c;
        r->speedup_strong = base_strong / r->t_c_strong;
        r->speedup_weak = base_weak / r->t_c_weak;
        r->eff_opt = r->speedup_opt / p;
        r->eff_strong = r->speedup_strong / p;
        r->eff_weak = r->speedup_weak / p;
    }
    return MB_OK;
}

/* Whether row r may be recommended: P within what can run here, and not a P > 1 whose runs
 * trained no M in the range searched. */
static int recommendable(const mb_scale_row *r, double p_max)
{
    return r->procs <= p_max && !r->runs_outside;
}

size_t mb_solver_best_row(const mb_scale_row *rows, size_t n, double p_max)
{
    size_t best = n;
    for (size_t i = 0; i < n; i++)
        if (recommendable(&rows[i], p_max) &&
            (best == n || rows[i].opt.t_c < rows[best].opt.t_c))
            best = i;
    return best < n ? best : 0;
}

size_t mb_solver_enough_row(const mb_scale_row *rows, size_t n, double slack, double p_max)
{
    const size_t best = mb_solver_best_row(rows, n, p_max);
    const double limit = rows[best].opt.t_c * (1.0 + slack);
    size_t pick = best;
    for (size_t i = 0; i < n; i++)
        if (recommendable(&rows[i], p_max) && rows[i].opt.t_c <= limit &&
            rows[i].procs < rows[pick].procs)
            pick = i;
    return pick;
}

size_t mb_solver_budget_row(const mb_scale_row *rows, size_t n, double seconds, double p_max)
{
    size_t pick = n;
    for (size_t i = 0; i < n; i++)
        if (recommendable(&rows[i], p_max) && rows[i].opt.t_c <= seconds &&
            (pick == n || rows[i].procs < rows[pick].procs))
            pick = i;
    return pick;
}
