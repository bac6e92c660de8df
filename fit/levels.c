/* levels.c — N_update at a target loss no calibration run reached: the law across target levels.
 *
 * Each run's curve gives its first crossing of every level of a grid L_1 > ... > L_k >= L1
 * (mb_fit_runs_read_logs with several thresholds). The runs are grouped by M and averaged per
 * level; a law N(M, L) in both M and L is fitted to those means (relative weights, GSL through
 * mb_fit_nlinear), and evaluated at the final target L2 < L1 as an inverse law in M,
 * N(M, L2) = n_inf(L2) + alpha(L2) / M (or / (M - M_0)), which is what mbopt optimises. With
 * x = L / L1:
 *   separable  N = (A + B / M) x^-p                      (B_noise = B / A at every level)
 *   noise      N = A x^-p + B x^-q / M                   (B_noise = B/A x^(p-q) grows as L falls
 *                                                         when q > p: McCandlish et al. 2018)
 *   per-level  the noise form in two stages: an inverse-law fit per level, then ln n_inf and
 *              ln alpha each linear in ln x
 *   floor      N = (A + B / M) ((L - L_f) / (L1 - L_f))^-p, with L1 - L_f = e^u fitted
 *   shifted    N = A x^-p + B x^-q / (M - M_0)               (the noise form with the pole M_0
 *                                                         of the shifted inverse law)
 *   auto       the shifted form where its AIC is lower than the separable form's by more than
 *              2 and its law is usable (0 < M_0 < least M, alpha >= 0, p > 0); else separable
 * The interval is a bootstrap over runs (whole runs resampled within each M, so a run's
 * crossings of all levels stay together). The choice of the default form and its measured error
 * are in docs/models.md, "N_update below the calibration's target".
 *
 * What it refuses (MB_EINVAL / MB_ENODATA, one line): a target at or above L1 (nothing to
 * extrapolate), fewer than MB_FIT_LEVELS_MIN levels, a run that does not cross every level, fewer
 * than two M (three for the shifted form), a law in which N does not grow as the loss falls, a
 * target at or under the fitted floor, a pole M_0 outside [0, least M), and a 95% interval wider
 * than the estimate. Nothing here reads files or prints.
 */
#include "mb_fit.h"
#include "../data/mb_json.h"
#include "../data/mb_parse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

static const char *const form_names[] = {"separable", "noise", "per-level", "floor", "shifted",
                                         "auto"};

const char *mb_fit_levels_form_name(mb_fit_levels_form f)
{
    return (unsigned)f < sizeof form_names / sizeof form_names[0] ? form_names[f] : "?";
}

int mb_fit_levels_form_parse(const char *s, mb_fit_levels_form *f)
{
    for (size_t i = 0; i < sizeof form_names / sizeof form_names[0]; i++)
        if (strcmp(s, form_names[i]) == 0) {
            *f = (mb_fit_levels_form)i;
            return MB_OK;
        }
    return MB_EINVAL;
}

void mb_fit_levels_options_init(mb_fit_levels_options *o)
{
    o->form = MB_FIT_LEVELS_AUTO;
    o->bootstrap = 200;
    o->seed = 1;
}

void mb_fit_levels_free(mb_fit_levels *f)
{
    if (!f)
        return;
    for (size_t l = 0; f->per_level && l < f->n_levels; l++)
        mb_fit_result_free(&f->per_level[l]);
    free(f->per_level);
    mb_fit_result_free(&f->joint);
    free(f->levels), free(f->batch), free(f->runs_at), free(f->mean);
    free(f->pred), free(f->lo), free(f->hi), free(f->boot);
    memset(f, 0, sizeof *f);
}

/* ---- the forms -------------------------------------------------------------------------------- */

static const char *const sep_names[] = {"n_inf_l1", "alpha_l1", "p"};
static const char *const noise_names[] = {"n_inf_l1", "alpha_l1", "p", "q"};
static const char *const floor_names[] = {"n_inf_l1", "alpha_l1", "p", "ln_gap"};
static const char *const shf_names[] = {"n_inf_l1", "alpha_l1", "p", "q", "m_0"};
static const char *const inv_names[] = {"n_inf", "alpha"};

/* The points of a joint fit: M and level of each, and L1. */
typedef struct pts {
    const double *m, *lev;
    double l1;
} pts;

/* x of level L: L / L1, or for the floor form 1 + (L - L1) e^-u (that is (L - L_f) / (L1 - L_f)
 * with L1 - L_f = e^u); <= 0 at or under the floor. */
static double level_x(mb_fit_levels_form form, const double *p, double l1, double L)
{
    return form == MB_FIT_LEVELS_FLOOR ? 1.0 + (L - l1) * exp(-p[3]) : L / l1;
}

/* n_inf and alpha of the inverse law in M at level L. MB_EDOM at or under the floor. */
static int law_at(mb_fit_levels_form form, const double *p, double l1, double L, double *n_inf,
                  double *alpha)
{
    double x = level_x(form, p, l1, L);
    if (!(x > 0))
        return MB_EDOM;
    double q = form == MB_FIT_LEVELS_NOISE || form == MB_FIT_LEVELS_PER_LEVEL ||
                       form == MB_FIT_LEVELS_SHIFTED
                   ? p[3]
                   : p[2];
    *n_inf = p[0] * pow(x, -p[2]);
    *alpha = p[1] * pow(x, -q);
    return isfinite(*n_inf) && isfinite(*alpha) ? MB_OK : MB_EDOM;
}

static int sep_f(const double *p, size_t i, const void *data, double *y, double *g)
{
    const pts *d = data;
    double x = d->lev[i] / d->l1, xp = pow(x, -p[2]), m = d->m[i];
    *y = (p[0] + p[1] / m) * xp;
    g[0] = xp;
    g[1] = xp / m;
    g[2] = -log(x) * *y;
    return isfinite(*y) ? MB_OK : MB_EDOM;
}

static int noise_f(const double *p, size_t i, const void *data, double *y, double *g)
{
    const pts *d = data;
    double x = d->lev[i] / d->l1, m = d->m[i], xp = pow(x, -p[2]), xq = pow(x, -p[3]) / m;
    *y = p[0] * xp + p[1] * xq;
    g[0] = xp;
    g[1] = xq;
    g[2] = -log(x) * p[0] * xp;
    g[3] = -log(x) * p[1] * xq;
    return isfinite(*y) ? MB_OK : MB_EDOM;
}

/* The shifted form: the noise form with 1 / (M - M_0) for 1 / M; no value at or below the pole. */
static int shf_f(const double *p, size_t i, const void *data, double *y, double *g)
{
    const pts *d = data;
    double x = d->lev[i] / d->l1, dm = d->m[i] - p[4];
    if (!(dm > 0))
        return MB_EDOM;
    double xp = pow(x, -p[2]), xq = pow(x, -p[3]) / dm;
    *y = p[0] * xp + p[1] * xq;
    g[0] = xp;
    g[1] = xq;
    g[2] = -log(x) * p[0] * xp;
    g[3] = -log(x) * p[1] * xq;
    g[4] = p[1] * xq / dm;
    return isfinite(*y) ? MB_OK : MB_EDOM;
}

static int floor_f(const double *p, size_t i, const void *data, double *y, double *g)
{
    const pts *d = data;
    double e = exp(-p[3]), x = 1.0 + (d->lev[i] - d->l1) * e, m = d->m[i];
    if (!(x > 0))
        return MB_EDOM;
    double xp = pow(x, -p[2]), inv = p[0] + p[1] / m;
    *y = inv * xp;
    g[0] = xp;
    g[1] = xp / m;
    g[2] = -log(x) * *y;
    g[3] = inv * (-p[2]) * pow(x, -p[2] - 1.0) * (-(d->lev[i] - d->l1) * e);
    return isfinite(*y) ? MB_OK : MB_EDOM;
}

static int inv_f(const double *p, size_t i, const void *data, double *y, double *g)
{
    double m = ((const double *)data)[i];
    g[0] = 1.0;
    g[1] = 1.0 / m;
    *y = p[0] + p[1] / m;
    return MB_OK;
}

/* The inverse law at one level, relative weights, from the exact weighted linear solution. */
static int fit_level(size_t n, const double *m, const double *y, mb_fit_result *res,
                     mb_error *err)
{
    double X[2 * 64], b[2];
    memset(res, 0, sizeof *res);
    if (n > 64)
        return mb_error_set(err, MB_EINVAL, "more than 64 mini-batch sizes");
    for (size_t i = 0; i < n; i++)
        X[2 * i] = 1.0, X[2 * i + 1] = 1.0 / m[i];
    int rc = mb_fit_linear(n, 2, X, y, y, b, NULL, err);
    if (rc != MB_OK)
        return rc;
    mb_fit_model mod = {"inverse-law", 2, inv_names, inv_f, m};
    return mb_fit_nlinear(&mod, n, y, y, b, NULL, res, err);
}

/* ---- grouping and the fits -------------------------------------------------------------------- */

/* The runs' distinct M (ascending) and, with `pick` (NULL: every run once), the mean crossing
 * of each (M, level) over the runs picked: pick[i] times run i. */
static void level_means(const mb_fit_runs *runs, const mb_fit_levels *f, const size_t *pick,
                        double *mean)
{
    for (size_t g = 0; g < f->n_m; g++) {
        for (size_t l = 0; l < f->n_levels; l++) {
            double s = 0, c = 0;
            for (size_t i = 0; i < runs->n; i++) {
                if (runs->batch[i] != f->batch[g])
                    continue;
                double w = pick ? (double)pick[i] : 1.0;
                s += w * runs->n_update[i * runs->n_thr + l];
                c += w;
            }
            mean[g * f->n_levels + l] = s / c;
        }
    }
}

/* Fits the form to the means (n_m x n_levels) from p0 (NULL: from the per-level fits; the
 * shifted form's from shifted_start); *res holds its parameters [A, B, p, q or ln_gap, m_0]. */
static int fit_form(const mb_fit_levels *f, mb_fit_levels_form form, const double *mean,
                    const double *p0, mb_fit_result *res, mb_error *err)
{
    size_t nm = f->n_m, nl = f->n_levels, n = nm * nl;
    double *m = malloc(n * sizeof *m), *lev = malloc(n * sizeof *lev), *y = malloc(n * sizeof *y);
    double *col = malloc(nm * sizeof *col), *ln_n = malloc(nl * sizeof *ln_n),
           *ln_a = malloc(nl * sizeof *ln_a), *X = malloc(2 * nl * sizeof *X);
    int rc = m && lev && y && col && ln_n && ln_a && X ? MB_OK
                                                      : mb_error_set(err, MB_ENOMEM, "out of memory");
    memset(res, 0, sizeof *res);
    /* stage one: the inverse law per level (also the starting values of the joint forms) */
    int all_pos = 1;
    for (size_t l = 0; rc == MB_OK && l < nl; l++) {
        for (size_t g = 0; g < nm; g++)
            col[g] = mean[g * nl + l];
        mb_fit_result r;
        rc = fit_level(nm, f->batch, col, &r, err);
        if (rc == MB_OK) {
            all_pos &= r.p[0] > 0 && r.p[1] > 0;
            ln_n[l] = r.p[0] > 0 ? log(r.p[0]) : NAN;
            ln_a[l] = r.p[1] > 0 ? log(r.p[1]) : NAN;
            X[2 * l] = 1.0, X[2 * l + 1] = log(f->levels[l] / f->l1);
        }
        mb_fit_result_free(&r);
    }
    double st[MB_FIT_MAX_PARAMS] = {0}, bn[2] = {0}, ba[2] = {0};
    if (rc == MB_OK && all_pos && (rc = mb_fit_linear(nl, 2, X, ln_n, NULL, bn, NULL, err)) ==
                                      MB_OK)
        rc = mb_fit_linear(nl, 2, X, ln_a, NULL, ba, NULL, err);
    if (rc == MB_OK && form == MB_FIT_LEVELS_PER_LEVEL) {
        if (!all_pos) {
            rc = mb_error_set(err, MB_ENODATA, "per-level form: a level's inverse-law fit has "
                              "N_inf or alpha <= 0, so its logarithm is undefined (use another "
                              "--form)");
        } else {
            snprintf(res->model, sizeof res->model, "per-level");
            res->n_params = 4;
            res->n_points = n;
            const double v[4] = {exp(bn[0]), exp(ba[0]), -bn[1], -ba[1]};
            for (int j = 0; j < 4; j++)
                res->names[j] = noise_names[j], res->p[j] = v[j], res->se[j] = NAN,
                res->ci_lo[j] = res->ci_hi[j] = NAN;
            res->dof = (double)n - 4;
            res->status = MB_OK;
        }
        goto done;
    }
    if (rc != MB_OK)
        goto done;
    if (p0) {
        memcpy(st, p0, sizeof st);
    } else {
        /* the per-level trend where it is defined, else flat in L from the means at L1 */
        st[0] = all_pos ? exp(bn[0]) : mean[(nm - 1) * nl + nl - 1];
        st[1] = all_pos ? exp(ba[0]) : mean[nl - 1] * f->batch[0];
        st[2] = all_pos ? -bn[1] : 1.0;
        st[3] = form == MB_FIT_LEVELS_NOISE ? (all_pos ? -ba[1] : 1.0) : log(f->l1);
        if (form == MB_FIT_LEVELS_SEPARABLE || form == MB_FIT_LEVELS_FLOOR)
            st[2] = all_pos ? -(bn[1] + ba[1]) / 2 : 1.0;
    }
    for (size_t g = 0, i = 0; g < nm; g++)
        for (size_t l = 0; l < nl; l++, i++)
            m[i] = f->batch[g], lev[i] = f->levels[l], y[i] = mean[g * nl + l];
    pts d = {m, lev, f->l1};
    mb_fit_model mod = form == MB_FIT_LEVELS_SEPARABLE ? (mb_fit_model){"separable", 3, sep_names,
                                                                        sep_f, &d}
                       : form == MB_FIT_LEVELS_NOISE
                           ? (mb_fit_model){"noise", 4, noise_names, noise_f, &d}
                       : form == MB_FIT_LEVELS_SHIFTED
                           ? (mb_fit_model){"shifted", 5, shf_names, shf_f, &d}
                           : (mb_fit_model){"floor", 4, floor_names, floor_f, &d};
    /* plain Levenberg-Marquardt, stopped at a relative step of 1e-12: on exact data the
     * residuals vanish and GSL's default 1e-14 is never met within the iteration limit */
    mb_fit_options o;
    mb_fit_options_init(&o);
    o.xtol = 1e-12;
    rc = mb_fit_nlinear(&mod, n, y, y, st, &o, res, err);
    /* started at the exact solution (a bootstrap resample of identical runs), GSL finds no
     * step and the residuals are rounding: relative residuals of 1e-9 are a fit */
    if (rc == MB_OK && res->status != MB_OK && res->chi2 <= 1e-18 * (double)n) {
        res->status = MB_OK;
        snprintf(res->gsl_reason, sizeof res->gsl_reason, "exact: residuals are rounding");
    }
done:
    free(m), free(lev), free(y), free(col), free(ln_n), free(ln_a), free(X);
    return rc;
}

/* The shifted form's start: the noise form's fit (its start where it does not converge) for A,
 * B, p and q, then M_0 on a grid over [0, least M) with A and B refitted linearly (relative
 * weights) at each, the least chi2 with B > 0 kept, as fit/nupdate.c starts the direct shifted
 * law. MB_ESOLVER when no point of the grid has B > 0. */
static int shifted_start(const mb_fit_levels *f, const double *mean, double *st, mb_error *err)
{
    enum { GRID = 48 };
    mb_fit_result r;
    int rc = fit_form(f, MB_FIT_LEVELS_NOISE, mean, NULL, &r, err);
    double pq[2] = {r.p[2], r.p[3]}, best = INFINITY;
    mb_fit_result_free(&r);
    if (rc != MB_OK)
        return rc;
    if (!isfinite(pq[0]) || !isfinite(pq[1]))
        pq[0] = pq[1] = 1.0;
    size_t nm = f->n_m, nl = f->n_levels, n = nm * nl;
    double *X = malloc(2 * n * sizeof *X), *y = malloc(n * sizeof *y);
    if (!X || !y) {
        free(X), free(y);
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    }
    for (int k = 0; k < GRID; k++) {
        double m0 = f->batch[0] * (double)k / GRID, b[2], chi2;
        mb_error e2 = {0};
        for (size_t g = 0, i = 0; g < nm; g++)
            for (size_t l = 0; l < nl; l++, i++) {
                double x = f->levels[l] / f->l1;
                X[2 * i] = pow(x, -pq[0]);
                X[2 * i + 1] = pow(x, -pq[1]) / (f->batch[g] - m0);
                y[i] = mean[g * nl + l];
            }
        if (mb_fit_linear(n, 2, X, y, y, b, &chi2, &e2) == MB_OK && b[1] > 0 && chi2 < best)
            best = chi2, st[0] = b[0], st[1] = b[1], st[2] = pq[0], st[3] = pq[1], st[4] = m0;
    }
    free(X), free(y);
    if (!isfinite(best))
        return mb_error_set(err, MB_ESOLVER, "shifted form: no start with alpha > 0 for any M_0 "
                            "in [0, %g)", f->batch[0]);
    return MB_OK;
}

/* The shifted form from its start (shifted_start), or from p0. */
static int fit_shifted(const mb_fit_levels *f, const double *mean, const double *p0,
                       mb_fit_result *res, mb_error *err)
{
    double st[MB_FIT_MAX_PARAMS] = {0};
    memset(res, 0, sizeof *res);
    int rc = p0 ? MB_OK : shifted_start(f, mean, st, err);
    return rc == MB_OK ? fit_form(f, MB_FIT_LEVELS_SHIFTED, mean, p0 ? p0 : st, res, err) : rc;
}

/* Fits `form`: the shifted form from its own start, the others by fit_form. */
static int fit_any(const mb_fit_levels *f, mb_fit_levels_form form, const double *mean,
                   const double *p0, mb_fit_result *res, mb_error *err)
{
    return form == MB_FIT_LEVELS_SHIFTED ? fit_shifted(f, mean, p0, res, err)
                                         : fit_form(f, form, mean, p0, res, err);
}

/* ---- checks of the input ---------------------------------------------------------------------- */

/* Everything refused before a fit: levels, target, runs that stop early, fewer than two M.
 * Fills f's levels, l1, batch and runs_at. */
static int check_input(const mb_fit_runs *runs, const char *const *paths, double target,
                       mb_fit_levels *f, mb_error *err)
{
    if (runs->n_thr < MB_FIT_LEVELS_MIN)
        return mb_error_set(err, MB_ENODATA, "--levels: %zu level%s; the law across levels "
                            "needs at least %d", runs->n_thr, runs->n_thr == 1 ? "" : "s",
                            MB_FIT_LEVELS_MIN);
    f->n_levels = runs->n_thr;
    f->levels = malloc(f->n_levels * sizeof *f->levels);
    f->batch = malloc((runs->n ? runs->n : 1) * sizeof *f->batch);
    f->runs_at = calloc(runs->n ? runs->n : 1, sizeof *f->runs_at);
    if (!f->levels || !f->batch || !f->runs_at)
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    f->l1 = INFINITY;
    for (size_t l = 0; l < f->n_levels; l++) {
        f->levels[l] = runs->thresholds[l];
        if (!(f->levels[l] > 0))
            return mb_error_set(err, MB_EINVAL, "--levels: %g is not a loss > 0", f->levels[l]);
        f->l1 = fmin(f->l1, f->levels[l]);
    }
    char tg[MB_DATA_TYPED_LEN], l1[MB_DATA_TYPED_LEN]; /* as typed (campaign 42, F1) */
    if (!(target < f->l1))
        return mb_error_set(err, MB_EINVAL, "--target-loss %s is at or above the lowest "
                            "calibration level %s: nothing to extrapolate (fit it directly: "
                            "mbfit nupdate --target-loss %s without --extrapolate)",
                            mb_data_typed(tg, target), mb_data_typed(l1, f->l1), tg);
    for (size_t i = 1; i < runs->n; i++) {
        if (runs->lr && !isnan(runs->lr[i]) && !isnan(runs->lr[0]) && runs->lr[i] != runs->lr[0])
            return mb_error_set(err, MB_EINVAL, "the runs were trained with different learning "
                                "rates (%g and %g): the law holds per rate (--lr RATE)",
                                runs->lr[0], runs->lr[i]);
        if (runs->algo && runs->procs && (strcmp(runs->algo[i], runs->algo[0]) != 0 ||
                                          runs->procs[i] != runs->procs[0]))
            return mb_error_set(err, MB_EINVAL, "the runs are of several algorithms or learner "
                                "counts (%s P=%g and %s P=%g): fit each on its own (--algo, "
                                "--procs)", runs->algo[0], runs->procs[0], runs->algo[i],
                                runs->procs[i]);
    }
    f->lr = runs->lr && runs->n ? runs->lr[0] : NAN;
    f->procs = runs->procs && runs->n ? runs->procs[0] : NAN;
    if (runs->algo && runs->n)
        snprintf(f->algo, sizeof f->algo, "%s", runs->algo[0]);
    for (size_t i = 0; i < runs->n; i++) { /* the workload, where the logs say (mbopt) */
        if (!f->net[0] && runs->net)
            snprintf(f->net, sizeof f->net, "%s", runs->net[i]);
        if (!f->data[0])
            snprintf(f->data, sizeof f->data, "%s", mb_fit_runs_setting(runs, i, "data"));
    }
    for (size_t i = 0; i < runs->n; i++) {
        size_t crossed = 0;
        double lowest = NAN;
        for (size_t l = 0; l < f->n_levels; l++)
            if (!isnan(runs->n_update[i * runs->n_thr + l]))
                crossed++, lowest = isnan(lowest) ? f->levels[l] : fmin(lowest, f->levels[l]);
        if (crossed < f->n_levels) {
            char who[600];
            if (paths)
                snprintf(who, sizeof who, "%s", paths[i]);
            else
                snprintf(who, sizeof who, "run %zu (M=%g)", i + 1, runs->batch[i]);
            return mb_error_set(err, MB_ENODATA, "%s: its curve stops early: it crosses %zu of "
                                "the %zu levels (lowest %s%g)%s; every run must reach %g, the "
                                "lowest level (leave it out, or raise the levels)", who, crossed,
                                f->n_levels, crossed ? "" : "none; ", crossed ? lowest : 0.0,
                                runs->diverged && runs->diverged[i] ? ", it diverged" : "",
                                f->l1);
        }
        size_t g = 0;
        while (g < f->n_m && f->batch[g] != runs->batch[i])
            g++;
        if (g == f->n_m)
            f->batch[f->n_m++] = runs->batch[i];
        f->runs_at[g]++;
    }
    if (f->n_m < 2)
        return mb_error_set(err, MB_ENODATA, "the runs have %zu mini-batch size%s%s; the law "
                            "in M needs at least two", f->n_m, f->n_m == 1 ? "" : "s",
                            f->n_m == 1 ? " (one M)" : "");
    /* ascending M, counts alongside (a handful: insertion sort) */
    for (size_t a = 1; a < f->n_m; a++)
        for (size_t b = a; b > 0 && f->batch[b - 1] > f->batch[b]; b--) {
            double t = f->batch[b];
            size_t c = f->runs_at[b];
            f->batch[b] = f->batch[b - 1], f->runs_at[b] = f->runs_at[b - 1];
            f->batch[b - 1] = t, f->runs_at[b - 1] = c;
        }
    return MB_OK;
}

/* ---- the bootstrap ---------------------------------------------------------------------------- */

/* Whether the law at the target (n_inf, alpha, m_0) is one mbopt can optimise at every M of the
 * runs: n_inf > 0 (check_law's rule, and mbopt's for the inverse law's samples), alpha >= 0, and
 * for the shifted form 0 <= m_0 < least M (solver/fits.c refuses others). */
static int law_usable(const mb_fit_levels *f, double n_inf, double alpha, double m0)
{
    return n_inf > 0 && alpha >= 0 &&
           (f->form != MB_FIT_LEVELS_SHIFTED || (m0 >= 0 && m0 < f->batch[0]));
}

/* Refits the form to B resamples of the runs (whole runs, within each M) and fills the 95%
 * percentile intervals of n_inf, alpha, m_0 and N(M, target) at every M. A resample whose law
 * is not usable (law_usable) counts as not fitted. */
static int bootstrap(const mb_fit_runs *runs, const mb_fit_levels_options *o, mb_fit_levels *f,
                     mb_error *err)
{
    size_t nm = f->n_m, B = o->bootstrap;
    size_t *pick = malloc((runs->n ? runs->n : 1) * sizeof *pick),
           *idx = malloc((runs->n ? runs->n : 1) * sizeof *idx);
    double *mean = malloc(nm * f->n_levels * sizeof *mean), *col = malloc((B ? B : 1) * sizeof *col);
    f->boot = malloc(3 * (B ? B : 1) * sizeof *f->boot);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    int rc = pick && idx && mean && col && f->boot && rng
                 ? MB_OK : mb_error_set(err, MB_ENOMEM, "out of memory");
    if (rc == MB_OK)
        gsl_rng_set(rng, o->seed);
    f->boot_b = B;
    for (size_t b = 0; rc == MB_OK && b < B; b++) {
        memset(pick, 0, runs->n * sizeof *pick);
        for (size_t g = 0; g < nm; g++) {
            size_t cnt = 0;
            for (size_t i = 0; i < runs->n; i++)
                if (runs->batch[i] == f->batch[g])
                    idx[cnt++] = i;
            for (size_t j = 0; j < cnt; j++)
                pick[idx[gsl_rng_uniform_int(rng, cnt)]]++;
        }
        level_means(runs, f, pick, mean);
        mb_fit_result r;
        mb_error e2 = {0};
        double ni, al, m0;
        if (fit_any(f, f->form, mean, f->form == MB_FIT_LEVELS_PER_LEVEL ? NULL : f->joint.p,
                    &r, &e2) == MB_OK && r.status == MB_OK &&
            law_at(f->form, r.p, f->l1, f->target, &ni, &al) == MB_OK &&
            law_usable(f, ni, al, m0 = f->form == MB_FIT_LEVELS_SHIFTED ? r.p[4] : 0.0)) {
            f->boot[3 * f->boot_ok] = ni;
            f->boot[3 * f->boot_ok + 1] = al;
            f->boot[3 * f->boot_ok + 2] = m0;
            f->boot_ok++;
        }
        mb_fit_result_free(&r);
    }
    if (rc == MB_OK && f->boot_ok >= 2) {
        for (size_t g = 0; g <= nm + 2; g++) {
            for (size_t b = 0; b < f->boot_ok; b++) {
                const double *v = &f->boot[3 * b];
                col[b] = g == nm ? v[0] : g == nm + 1 ? v[1] : g == nm + 2 ? v[2]
                                                            : v[0] + v[1] / (f->batch[g] - v[2]);
            }
            gsl_sort(col, 1, f->boot_ok);
            double lo = gsl_stats_quantile_from_sorted_data(col, 1, f->boot_ok, 0.025),
                   hi = gsl_stats_quantile_from_sorted_data(col, 1, f->boot_ok, 0.975);
            if (g < nm)
                f->lo[g] = lo, f->hi[g] = hi;
            else if (g == nm)
                f->n_inf_lo = lo, f->n_inf_hi = hi;
            else if (g == nm + 1)
                f->alpha_lo = lo, f->alpha_hi = hi;
            else
                f->m_0_lo = lo, f->m_0_hi = hi;
        }
    }
    free(pick), free(idx), free(mean), free(col);
    gsl_rng_free(rng);
    return rc;
}

/* ---- the driver ------------------------------------------------------------------------------- */

/* The inverse law at the target: the law itself, or for the shifted form the inverse law fitted
 * to its predictions at the calibration M (relative weights, as the levels' means are fitted):
 * what the nfit's top-level params carry for the readers of the inverse law (mbopt design).
 * Where that fit has n_inf <= 0 (a steep pole: mlp's M_0 = 18 did), n_inf is the shifted law's
 * and alpha alone is fitted: sum w (N + a / M - pred) / M = 0, w = pred^-2. */
static void inverse_at_target(mb_fit_levels *f)
{
    f->inv_n_inf = f->n_inf, f->inv_alpha = f->alpha;
    if (f->form != MB_FIT_LEVELS_SHIFTED)
        return;
    double *X = malloc(2 * f->n_m * sizeof *X), b[2];
    mb_error e2 = {0};
    for (size_t g = 0; X && g < f->n_m; g++)
        X[2 * g] = 1.0, X[2 * g + 1] = 1.0 / f->batch[g];
    if (X && mb_fit_linear(f->n_m, 2, X, f->pred, f->pred, b, NULL, &e2) == MB_OK && b[0] > 0 &&
        b[1] >= 0) {
        f->inv_n_inf = b[0], f->inv_alpha = b[1];
    } else {
        double num = 0, den = 0;
        for (size_t g = 0; g < f->n_m; g++) {
            double w = 1.0 / (f->pred[g] * f->pred[g]), m = f->batch[g];
            num += w * (f->pred[g] - f->n_inf) / m;
            den += w / (m * m);
        }
        f->inv_alpha = fmax(num / den, 0.0);
    }
    free(X);
}

/* What the fitted law says and whether it can be believed: N grows as the loss falls, the
 * target lies above the floor, the law at the target is an inverse law (or for the shifted
 * form a shifted law with its pole below every M) mbopt can optimise. */
static int check_law(mb_fit_levels *f, mb_error *err)
{
    char tg[MB_DATA_TYPED_LEN]; /* the target as typed (campaign 42, F1) */
    const double *p = f->joint.p;
    const char *form = mb_fit_levels_form_name(f->form);
    if (f->joint.status != MB_OK)
        return mb_error_set(err, MB_ENOCONV, "the %s law across levels did not converge (%s)",
                            form, f->joint.gsl_reason);
    if (f->form == MB_FIT_LEVELS_FLOOR) {
        f->floor = f->l1 - exp(p[3]);
        if (!(f->target > f->floor))
            return mb_error_set(err, MB_ENODATA, "--target-loss %s is at or under the loss "
                                "floor %.4g the %s law fitted: the runs' curves say it is never "
                                "reached, the law cannot predict it", mb_data_typed(tg, f->target),
                                f->floor, form);
    }
    if (!(p[2] > 0))
        return mb_error_set(err, MB_ENODATA, "the %s law has N_inf falling as the loss falls "
                            "(p = %.3g <= 0): the levels do not support an extrapolation "
                            "(use levels nearer the target)", form, p[2]);
    if (law_at(f->form, p, f->l1, f->target, &f->n_inf, &f->alpha) != MB_OK ||
        !(f->n_inf > 0) || !(f->alpha >= 0))
        return mb_error_set(err, MB_ENODATA, "the %s law gives N_inf %.4g and alpha %.4g at "
                            "--target-loss %s: not an inverse law with N_inf > 0 and alpha >= 0",
                            form, f->n_inf, f->alpha, mb_data_typed(tg, f->target));
    f->m_0 = f->form == MB_FIT_LEVELS_SHIFTED ? p[4] : 0.0;
    if (!law_usable(f, f->n_inf, f->alpha, f->m_0))
        return mb_error_set(err, MB_ENODATA, "the shifted law's pole M_0 = %.4g is not in [0, %g),"
                            " the least M: the law has no value at an M the runs trained (use "
                            "another --form)", f->m_0, f->batch[0]);
    for (size_t g = 0; g < f->n_m; g++)
        f->pred[g] = f->n_inf + f->alpha / (f->batch[g] - f->m_0);
    inverse_at_target(f);
    return MB_OK;
}

/* AUTO: the separable form, or the shifted form where it converged with 0 < M_0 < least M,
 * alpha >= 0 and p > 0, and its AIC is lower by more than 2 (Burnham & Anderson's threshold,
 * as mbfit nupdate --choose shifted takes the direct shifted law). A separable fit that is
 * exact (residuals of rounding) leaves a fifth parameter nothing to explain. Sets f->form,
 * f->joint, f->why and the AICs. */
static int choose_form(mb_fit_levels *f, mb_error *err)
{
    f->form = MB_FIT_LEVELS_SEPARABLE;
    int rc = fit_form(f, MB_FIT_LEVELS_SEPARABLE, f->mean, NULL, &f->joint, err);
    if (rc != MB_OK)
        return rc;
    const mb_fit_result *sp = &f->joint;
    f->aic_separable = sp->status == MB_OK ? sp->aic : NAN;
    if (f->n_m < MB_FIT_LEVELS_SHIFTED_MIN_M) {
        snprintf(f->why, sizeof f->why, "the separable form: %zu M are too few for the shifted "
                 "form's pole (it needs %d)", f->n_m, MB_FIT_LEVELS_SHIFTED_MIN_M);
        return MB_OK;
    }
    mb_fit_result sh;
    mb_error e2 = {0};
    if (fit_shifted(f, f->mean, NULL, &sh, &e2) != MB_OK || sh.status != MB_OK) {
        snprintf(f->why, sizeof f->why, "the separable form: the shifted form did not fit "
                 "(%.200s)", e2.msg[0] ? e2.msg : sh.gsl_reason);
        mb_fit_result_free(&sh);
        return MB_OK;
    }
    f->aic_shifted = sh.aic;
    double gain = f->aic_separable - f->aic_shifted;
    const char *no = !(sh.p[4] > 0 && sh.p[4] < f->batch[0])    ? "has its pole outside "
                                                                  "(0, least M)"
                     : !(sh.p[1] >= 0)                          ? "has alpha < 0"
                     : !(sh.p[2] > 0)                           ? "has p <= 0"
                     : sp->status == MB_OK && !(sp->chi2 > 1e-18 * (double)sp->n_points)
                         ? "adds nothing to an exact fit"
                     : !(gain > 2) ? "is not better by AIC (lower by more than 2 needed)"
                                   : NULL;
    if (no) {
        /* an exact fit has AIC -inf: the comparison is the sentence, not the numbers */
        char a[40] = "-", b[40] = "-";
        if (isfinite(f->aic_shifted))
            snprintf(a, sizeof a, "%.4g", f->aic_shifted);
        if (isfinite(f->aic_separable))
            snprintf(b, sizeof b, "%.4g", f->aic_separable);
        snprintf(f->why, sizeof f->why, "the separable form: the shifted form %s (AIC %s vs "
                 "the separable form's %s)", no, a, b);
        mb_fit_result_free(&sh);
        return MB_OK;
    }
    snprintf(f->why, sizeof f->why, "the shifted form (M_0 = %.3g): N_update rises faster than "
             "1 / M toward the small M; AIC %.4g vs the separable form's %.4g, lower by %.3g > 2",
             sh.p[4], f->aic_shifted, f->aic_separable, gain);
    mb_fit_result_free(&f->joint);
    f->joint = sh;
    f->form = MB_FIT_LEVELS_SHIFTED;
    return MB_OK;
}

/* The joint fit of the form asked for (AUTO: choose_form). */
static int fit_joint(mb_fit_levels *f, mb_error *err)
{
    if (f->asked == MB_FIT_LEVELS_AUTO)
        return choose_form(f, err);
    snprintf(f->why, sizeof f->why, "the %s form: asked for with --form",
             mb_fit_levels_form_name(f->form));
    if (f->form == MB_FIT_LEVELS_SHIFTED && f->n_m < MB_FIT_LEVELS_SHIFTED_MIN_M)
        return mb_error_set(err, MB_ENODATA, "the shifted form needs at least %d mini-batch "
                            "sizes for its pole M_0; the runs have %zu (use --form separable)",
                            MB_FIT_LEVELS_SHIFTED_MIN_M, f->n_m);
    return fit_any(f, f->form, f->mean, NULL, &f->joint, err);
}

/* The relative miss of the inverse law at L1 past which an M is warned about. */
#define MISFIT 0.25

int mb_fit_levels_run(const mb_fit_runs *runs, const char *const *paths, double target,
                      const mb_fit_levels_options *o, mb_fit_levels *f, mb_error *err)
{
    char tg[MB_DATA_TYPED_LEN]; /* the target as typed (campaign 42, F1) */
    memset(f, 0, sizeof *f);
    f->target = target;
    f->asked = o->form;
    f->form = o->form == MB_FIT_LEVELS_AUTO ? MB_FIT_LEVELS_SEPARABLE : o->form;
    f->floor = f->n_inf = f->alpha = f->inv_n_inf = f->inv_alpha = NAN;
    f->aic_separable = f->aic_shifted = NAN;
    f->m_0 = 0;
    f->n_inf_lo = f->n_inf_hi = f->alpha_lo = f->alpha_hi = f->m_0_lo = f->m_0_hi = NAN;
    int rc = check_input(runs, paths, target, f, err);
    if (rc != MB_OK)
        return rc;
    size_t nm = f->n_m, nl = f->n_levels;
    f->mean = malloc(nm * nl * sizeof *f->mean);
    f->per_level = calloc(nl, sizeof *f->per_level);
    f->pred = malloc(nm * sizeof *f->pred);
    f->lo = malloc(nm * sizeof *f->lo);
    f->hi = malloc(nm * sizeof *f->hi);
    double *col = malloc(nm * sizeof *col);
    if (!f->mean || !f->per_level || !f->pred || !f->lo || !f->hi || !col) {
        free(col);
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    }
    for (size_t g = 0; g < nm; g++)
        f->lo[g] = f->hi[g] = NAN;
    level_means(runs, f, NULL, f->mean);
    for (size_t l = 0; rc == MB_OK && l < nl; l++) {
        for (size_t g = 0; g < nm; g++)
            col[g] = f->mean[g * nl + l];
        rc = fit_level(nm, f->batch, col, &f->per_level[l], err);
    }
    free(col);
    /* resampling the runs within each M of one run returns the same data: a zero-width
     * "interval" by construction, and no test of the extrapolation (issue #25, G2) */
    size_t single = nm;
    for (size_t g = 0; g < nm && single == nm; g++)
        if (f->runs_at[g] < 2)
            single = g;
    if (rc == MB_OK && o->bootstrap > 0 && single < nm)
        mb_fit_warn(&f->warn, "M=%g has %zu run: no bootstrap interval (resampling the runs "
                    "within each M needs at least 2 at every M; train more seeds)",
                    f->batch[single], f->runs_at[single]);
    if (rc == MB_OK && (rc = fit_joint(f, err)) == MB_OK &&
        (rc = check_law(f, err)) == MB_OK && o->bootstrap > 0 && single == nm &&
        (rc = bootstrap(runs, o, f, err)) == MB_OK) {
        if (f->boot_ok < o->bootstrap / 2 + 1)
            return mb_error_set(err, MB_ENODATA, "only %zu of %zu bootstrap resamples could be "
                                "fitted: the law across levels is not stable enough to predict "
                                "--target-loss %s", f->boot_ok, o->bootstrap, mb_data_typed(tg, target));
        for (size_t g = 0; g < nm; g++)
            if (f->hi[g] - f->lo[g] > f->pred[g])
                return mb_error_set(err, MB_ENODATA, "M=%g: the 95%% interval of N_update at "
                                    "--target-loss %s, [%.4g, %.4g], is wider than the estimate "
                                    "%.4g: the runs do not support the extrapolation (more "
                                    "seeds, or a target nearer the levels)", f->batch[g],
                                    mb_data_typed(tg, target), f->lo[g], f->hi[g], f->pred[g]);
    }
    /* where the inverse law misses an M at L1 already, N grows faster than 1/M there (on
     * lenet5 at M = 8, a loss that hovers near the target for thousands of updates): its
     * prediction below L1 is worse still */
    for (size_t l = 0; rc == MB_OK && l < nl; l++) {
        if (f->levels[l] != f->l1 || !f->per_level[l].residuals)
            continue;
        for (size_t g = 0; g < nm; g++) {
            double miss = f->per_level[l].residuals[g] / f->mean[g * nl + l];
            if (fabs(miss) > MISFIT)
                mb_fit_warn(&f->warn, "M=%g: the inverse law at L1 = %g misses its mean "
                            "crossing by %+.0f%%: N_update does not follow N_inf + alpha / M "
                            "there, and its prediction is not to be trusted (leave it out?)",
                            f->batch[g], f->l1, 100 * miss);
        }
    }
    if (rc == MB_OK && nm == 2)
        mb_fit_warn(&f->warn, "two mini-batch sizes: the inverse law in M passes through both");
    if (rc == MB_OK && f->form == MB_FIT_LEVELS_NOISE && f->joint.p[3] > f->joint.p[2])
        mb_fit_warn(&f->warn, "B_noise = alpha / N_inf grows as the loss falls (q %.3g > p "
                    "%.3g), as McCandlish et al. found", f->joint.p[3], f->joint.p[2]);
    return rc;
}

/* ---- JSON ------------------------------------------------------------------------------------- */

static cJSON *pair(double a, double b)
{
    cJSON *v = cJSON_CreateArray();
    if (v) {
        cJSON_AddItemToArray(v, cJSON_CreateNumber(a));
        cJSON_AddItemToArray(v, cJSON_CreateNumber(b));
    }
    return v;
}

/* The law at the target as {"model", "params", "ci95"}: the inverse law (`shifted` 0) that the
 * top level of an nfit and `laws.inverse-law` carry, and `best` for every form but the shifted
 * one; or the shifted law (`shifted` 1), `best` and `laws.shifted-law` of the shifted form. The
 * inverse law fitted to the shifted law's predictions has no interval of its own: ci95 {}. */
static cJSON *law_json(const mb_fit_levels *f, int shifted)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "model", shifted ? "shifted-law" : "inverse-law");
    cJSON *p = cJSON_AddObjectToObject(o, "params");
    mb_json_add_number(p, "n_inf", shifted ? f->n_inf : f->inv_n_inf);
    mb_json_add_number(p, "alpha", shifted ? f->alpha : f->inv_alpha);
    if (shifted)
        mb_json_add_number(p, "m_0", f->m_0);
    cJSON *ci = cJSON_AddObjectToObject(o, "ci95");
    if (ci && f->boot_ok >= 2 && (shifted || f->form != MB_FIT_LEVELS_SHIFTED)) {
        cJSON_AddItemToObject(ci, "n_inf", pair(f->n_inf_lo, f->n_inf_hi));
        cJSON_AddItemToObject(ci, "alpha", pair(f->alpha_lo, f->alpha_hi));
        if (shifted)
            cJSON_AddItemToObject(ci, "m_0", pair(f->m_0_lo, f->m_0_hi));
    }
    return o;
}

/* What the extrapolation was made from and how: levels, L1, the form and its parameters, the
 * per-level fits, the prediction per M with its interval. */
static cJSON *extrapolated_json(const mb_fit_levels *f)
{
    cJSON *x = cJSON_CreateObject();
    if (!x)
        return NULL;
    cJSON *lv = cJSON_AddArrayToObject(x, "levels");
    for (size_t l = 0; lv && l < f->n_levels; l++)
        cJSON_AddItemToArray(lv, cJSON_CreateNumber(f->levels[l]));
    mb_json_add_number(x, "l1", f->l1);
    cJSON_AddStringToObject(x, "form", mb_fit_levels_form_name(f->form));
    cJSON_AddStringToObject(x, "form_asked", mb_fit_levels_form_name(f->asked));
    cJSON_AddStringToObject(x, "why", f->why);
    mb_json_add_number(x, "aic_separable", f->aic_separable);
    mb_json_add_number(x, "aic_shifted", f->aic_shifted);
    cJSON_AddItemToObject(x, "fit", mb_fit_result_json(&f->joint));
    mb_json_add_number(x, "floor", f->floor);
    mb_json_add_number(x, "b_noise_l1", f->joint.p[1] / f->joint.p[0]);
    mb_json_add_number(x, "b_noise", f->alpha / f->n_inf);
    cJSON *pl = cJSON_AddArrayToObject(x, "per_level");
    for (size_t l = 0; pl && l < f->n_levels; l++) {
        cJSON *e = mb_fit_result_json(&f->per_level[l]);
        if (e) {
            mb_json_add_number(e, "level", f->levels[l]);
            cJSON_AddItemToArray(pl, e);
        }
    }
    cJSON *pm = cJSON_AddArrayToObject(x, "per_m");
    for (size_t g = 0; pm && g < f->n_m; g++) {
        cJSON *e = cJSON_CreateObject();
        if (!e)
            break;
        mb_json_add_number(e, "batch", f->batch[g]);
        mb_json_add_number(e, "runs", (double)f->runs_at[g]);
        mb_json_add_number(e, "predicted", f->pred[g]);
        cJSON_AddItemToObject(e, "ci95", pair(f->lo[g], f->hi[g]));
        cJSON *ml = cJSON_AddArrayToObject(e, "mean_at_levels");
        for (size_t l = 0; ml && l < f->n_levels; l++)
            cJSON_AddItemToArray(ml, cJSON_CreateNumber(f->mean[g * f->n_levels + l]));
        cJSON_AddItemToArray(pm, e);
    }
    return x;
}

cJSON *mb_fit_levels_json(const mb_fit_levels *f, const mb_fit_levels_options *o)
{
    const int shifted = f->form == MB_FIT_LEVELS_SHIFTED;
    cJSON *root = law_json(f, 0);
    if (!root)
        return NULL;
    mb_json_add_number(root, "target_loss", f->target);
    size_t runs = 0;
    for (size_t g = 0; g < f->n_m; g++)
        runs += f->runs_at[g];
    mb_json_add_number(root, "runs", (double)runs);
    mb_json_add_number(root, "unreached", 0);
    mb_json_add_number(root, "lr", f->lr); /* as a direct fit's: mbopt pairs laws and runs */
    /* per M as a direct fit has it, for the figure (mbplot nupdate): here the prediction at the
     * target, its 95% interval's half width over 1.96 as the error bar (0: no bootstrap) */
    cJSON *pm = cJSON_AddArrayToObject(root, "per_m");
    for (size_t g = 0; pm && g < f->n_m; g++) {
        cJSON *e = cJSON_CreateObject();
        if (!e)
            break;
        mb_json_add_number(e, "batch", f->batch[g]);
        mb_json_add_number(e, "mean", f->pred[g]);
        mb_json_add_number(e, "se", isfinite(f->hi[g] - f->lo[g])
                                        ? (f->hi[g] - f->lo[g]) / (2 * 1.96) : 0);
        cJSON_AddItemToArray(pm, e);
    }
    if (f->algo[0])
        cJSON_AddStringToObject(root, "algo", f->algo);
    mb_json_add_number(root, "procs", f->procs);
    if (f->net[0]) /* the workload: mbopt refuses a tfit or runs of another (campaign 21, N4) */
        cJSON_AddStringToObject(root, "net", f->net);
    if (f->data[0])
        cJSON_AddStringToObject(root, "data", f->data);
    cJSON *r = cJSON_AddArrayToObject(root, "converged_range");
    if (r) { /* every run crossed every level: the whole range of M is converged */
        cJSON_AddItemToArray(r, cJSON_CreateNumber(f->batch[0]));
        cJSON_AddItemToArray(r, cJSON_CreateNumber(f->batch[f->n_m - 1]));
    }
    cJSON *best = law_json(f, shifted);
    if (best) {
        char why[720];
        char tg[MB_DATA_TYPED_LEN], l1[MB_DATA_TYPED_LEN];
        snprintf(why, sizeof why, "the %s law at --target-loss %s, extrapolated from %zu levels "
                 "down to %s by the %s law across levels (%s)", shifted ? "shifted" : "inverse",
                 mb_data_typed(tg, f->target), f->n_levels, mb_data_typed(l1, f->l1), mb_fit_levels_form_name(f->form), f->why);
        cJSON_AddStringToObject(best, "why", why);
        cJSON_AddItemToObject(root, "best", best);
    }
    cJSON *laws = cJSON_AddObjectToObject(root, "laws");
    if (laws)
        cJSON_AddItemToObject(laws, "inverse-law", law_json(f, 0));
    if (laws && shifted)
        cJSON_AddItemToObject(laws, "shifted-law", law_json(f, 1));
    cJSON_AddItemToObject(root, "extrapolated", extrapolated_json(f));
    if (f->boot_b) {
        cJSON *b = cJSON_AddObjectToObject(root, "bootstrap");
        mb_json_add_number(b, "resamples", (double)f->boot_b);
        mb_json_add_number(b, "fitted", (double)f->boot_ok);
        mb_json_add_number(b, "seed", (double)o->seed);
        cJSON_AddStringToObject(b, "best_law", shifted ? "shifted-law" : "inverse-law");
        /* [n_inf, a, b] each, b = 1; the shifted law's [n_inf, alpha, m_0] */
        cJSON *sm = cJSON_AddArrayToObject(b, "best_samples");
        for (size_t i = 0; sm && i < f->boot_ok; i++) {
            cJSON *q = pair(f->boot[3 * i], f->boot[3 * i + 1]);
            if (q)
                cJSON_AddItemToArray(q, cJSON_CreateNumber(shifted ? f->boot[3 * i + 2] : 1.0));
            cJSON_AddItemToArray(sm, q);
        }
    }
    cJSON_AddItemToObject(root, "warnings", mb_fit_warnings_json(&f->warn));
    return root;
}
