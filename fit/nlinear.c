/* nlinear.c — the one place fit/ calls GSL's least-squares solvers.
 *
 * mb_fit_nlinear wraps gsl_multifit_nlinear (trust region; Levenberg-Marquardt, with geodesic
 * acceleration on request) for any model given as a per-point function with its gradient, holds
 * chosen parameters fixed (bounds), and derives the uncertainties: covariance (J^T W J)^-1 from
 * the Jacobian at the solution scaled by the residual variance chi2 / dof (as scipy's curve_fit
 * with absolute_sigma=False), Student-t 95% intervals, weighted R^2 and AIC. mb_fit_linear is
 * gsl_multifit_wlinear for the exact linear sub-problems. GSL's abort-on-error handler is
 * switched off around every GSL call and restored after; GSL codes become MB_* codes here.
 * Nothing here reads files or knows any particular model.
 */
#include "mb_fit.h"
#include "../data/mb_json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_multifit_nlinear.h>

void mb_fit_options_init(mb_fit_options *o)
{
    memset(o, 0, sizeof *o);
    o->max_iter = 500;
    o->xtol = 1e-14;
    o->gtol = 1e-14;
    o->ftol = 0.0;
}

void mb_fit_result_free(mb_fit_result *res)
{
    if (!res)
        return;
    free(res->residuals);
    res->residuals = NULL;
}

void mb_fit_warn(mb_fit_warnings *w, const char *fmt, ...)
{
    if (w->n >= sizeof w->msg / sizeof w->msg[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->msg[w->n++], sizeof w->msg[0], fmt, ap);
    va_end(ap);
}

/* The free parameters live in GSL's vector; the model sees all of them. */
typedef struct ctx {
    const mb_fit_model *m;
    const double *y;
    double full[MB_FIT_MAX_PARAMS];
    size_t map[MB_FIT_MAX_PARAMS]; /* free index -> parameter index */
    size_t nfree;
} ctx;

static void expand(ctx *c, const gsl_vector *x)
{
    for (size_t j = 0; j < c->nfree; j++)
        c->full[c->map[j]] = gsl_vector_get(x, j);
}

static int cb_f(const gsl_vector *x, void *params, gsl_vector *f)
{
    ctx *c = params;
    expand(c, x);
    double g[MB_FIT_MAX_PARAMS];
    for (size_t i = 0; i < f->size; i++) {
        double yi;
        if (c->m->f(c->full, i, c->m->data, &yi, g) != MB_OK || !isfinite(yi))
            return GSL_EDOM;
        gsl_vector_set(f, i, yi - c->y[i]);
    }
    return GSL_SUCCESS;
}

static int cb_df(const gsl_vector *x, void *params, gsl_matrix *J)
{
    ctx *c = params;
    expand(c, x);
    double g[MB_FIT_MAX_PARAMS];
    for (size_t i = 0; i < J->size1; i++) {
        double yi;
        if (c->m->f(c->full, i, c->m->data, &yi, g) != MB_OK)
            return GSL_EDOM;
        for (size_t j = 0; j < c->nfree; j++)
            gsl_matrix_set(J, i, j, g[c->map[j]]);
    }
    return GSL_SUCCESS;
}

/* Fills the statistics that depend only on the residuals. */
static void residual_stats(mb_fit_result *res, size_t n, const double *y, const double *sigma,
                           size_t nfree)
{
    double sw = 0, swy = 0, chi2 = 0;
    for (size_t i = 0; i < n; i++) {
        double w = sigma ? 1.0 / (sigma[i] * sigma[i]) : 1.0;
        sw += w;
        swy += w * y[i];
        chi2 += w * res->residuals[i] * res->residuals[i];
    }
    double ybar = swy / sw, sst = 0;
    for (size_t i = 0; i < n; i++) {
        double w = sigma ? 1.0 / (sigma[i] * sigma[i]) : 1.0;
        sst += w * (y[i] - ybar) * (y[i] - ybar);
    }
    res->chi2 = chi2;
    res->r2 = sst > 0 ? 1.0 - chi2 / sst : NAN;
    res->aic = chi2 > 0 ? (double)n * log(chi2 / (double)n) + 2.0 * (double)nfree : -INFINITY;
}

int mb_fit_nlinear(const mb_fit_model *model, size_t n, const double *y, const double *sigma,
                   const double *p0, const mb_fit_options *opts, mb_fit_result *res,
                   mb_error *err)
{
    mb_fit_options def;
    if (!opts) {
        mb_fit_options_init(&def);
        opts = &def;
    }
    memset(res, 0, sizeof *res);
    snprintf(res->model, sizeof res->model, "%s", model->name);
    res->n_params = model->n_params;
    res->n_points = n;
    res->status = MB_ENOCONV;
    ctx c = {.m = model, .y = y};
    for (size_t j = 0; j < model->n_params; j++) {
        res->names[j] = model->param_names[j];
        res->p[j] = c.full[j] = p0[j];
        res->se[j] = res->ci_lo[j] = res->ci_hi[j] = NAN;
        res->fixed[j] = opts->fixed[j];
        if (!opts->fixed[j])
            c.map[c.nfree++] = j;
    }
    if (c.nfree == 0 || n < c.nfree)
        return mb_error_set(err, MB_ENODATA, "%s: %zu points for %zu free parameters",
                            model->name, n, c.nfree);
    res->dof = (double)(n - c.nfree);
    if (!(res->residuals = calloc(n, sizeof *res->residuals)))
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        if (sigma && !(sigma[i] > 0 && isfinite(sigma[i])))
            return mb_error_set(err, MB_EDOM, "%s: sigma of point %zu is %g, must be > 0",
                                model->name, i + 1, sigma[i]);

    gsl_error_handler_t *old = gsl_set_error_handler_off();
    int rc = MB_OK;
    gsl_multifit_nlinear_parameters par = gsl_multifit_nlinear_default_parameters();
    par.trs = opts->geodesic ? gsl_multifit_nlinear_trs_lmaccel : gsl_multifit_nlinear_trs_lm;
    gsl_multifit_nlinear_fdf fdf = {.f = cb_f, .df = cb_df, .fvv = NULL, .n = n, .p = c.nfree,
                                    .params = &c};
    gsl_multifit_nlinear_workspace *w =
        gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &par, n, c.nfree);
    gsl_vector *x = gsl_vector_alloc(c.nfree), *wt = gsl_vector_alloc(n);
    gsl_matrix *cov = gsl_matrix_alloc(c.nfree, c.nfree);
    if (!w || !x || !wt || !cov) {
        rc = mb_error_set(err, MB_ENOMEM, "%s: out of memory in GSL", model->name);
        goto done;
    }
    for (size_t j = 0; j < c.nfree; j++)
        gsl_vector_set(x, j, p0[c.map[j]]);
    for (size_t i = 0; i < n; i++)
        gsl_vector_set(wt, i, sigma ? 1.0 / (sigma[i] * sigma[i]) : 1.0);
    int gs = gsl_multifit_nlinear_winit(x, wt, &fdf, w);
    if (gs != GSL_SUCCESS) {
        rc = mb_error_set(err, gs == GSL_EDOM ? MB_EDOM : MB_ESOLVER,
                          "%s: the model cannot be evaluated at the starting point (%s)",
                          model->name, gsl_strerror(gs));
        goto done;
    }
    int info = 0;
    gs = gsl_multifit_nlinear_driver(opts->max_iter, opts->xtol, opts->gtol, opts->ftol, NULL,
                                     NULL, &info, w);
    res->gsl_status = gs;
    snprintf(res->gsl_reason, sizeof res->gsl_reason, "%s", gsl_strerror(gs));
    res->iterations = gsl_multifit_nlinear_niter(w);
    res->converged_by = info;
    const gsl_vector *xs = gsl_multifit_nlinear_position(w);
    expand(&c, xs);
    for (size_t j = 0; j < model->n_params; j++)
        res->p[j] = c.full[j];
    /* Residuals y - f, unweighted, at the solution. */
    double g[MB_FIT_MAX_PARAMS];
    for (size_t i = 0; i < n; i++) {
        double yi;
        if (model->f(c.full, i, model->data, &yi, g) != MB_OK || !isfinite(yi)) {
            rc = mb_error_set(err, MB_EDOM, "%s: the model is undefined at the solution",
                              model->name);
            goto done;
        }
        res->residuals[i] = y[i] - yi;
    }
    residual_stats(res, n, y, sigma, c.nfree);
    /* Converged: GSL's tests passed, or GSL found no step that lowers the cost (GSL_ENOPROG;
     * on the first iteration the driver reports it as GSL_EMAXITER with info GSL_ENOPROG, e.g.
     * when started at the exact linear solution) at a stationary point: the weighted residual
     * orthogonal to every Jacobian column, cos < 1e-7 (a scale-free first-order test), or zero. */
    const gsl_matrix *J = gsl_multifit_nlinear_jac(w);
    const gsl_vector *fr = gsl_multifit_nlinear_residual(w);
    double fn = gsl_blas_dnrm2(fr), worst = 0;
    for (size_t k = 0; k < c.nfree; k++) {
        gsl_vector_const_view col = gsl_matrix_const_column(J, k);
        double dot, cn = gsl_blas_dnrm2(&col.vector);
        gsl_blas_ddot(&col.vector, fr, &dot);
        if (cn > 0 && fn > 0)
            worst = fmax(worst, fabs(dot) / (cn * fn));
    }
    int noprog = gs == GSL_ENOPROG || (gs == GSL_EMAXITER && info == GSL_ENOPROG);
    if (gs == GSL_SUCCESS || (noprog && worst <= 1e-7)) {
        res->status = MB_OK;
        if (gs != GSL_SUCCESS)
            snprintf(res->gsl_reason, sizeof res->gsl_reason, "stationary: no step lowers chi2");
    }
    /* Covariance from the (weighted) Jacobian at the solution. */
    gs = gsl_multifit_nlinear_covar(J, 0.0, cov);
    double s2 = res->dof > 0 ? res->chi2 / res->dof : NAN;
    double tq = res->dof > 0 ? gsl_cdf_tdist_Pinv(0.975, res->dof) : NAN;
    for (size_t j = 0; j < model->n_params; j++) {
        for (size_t i = 0; i < model->n_params; i++)
            res->cov[j][i] = 0.0;
        if (res->fixed[j])
            res->se[j] = 0.0, res->ci_lo[j] = res->ci_hi[j] = res->p[j];
    }
    for (size_t k = 0; k < c.nfree; k++)
        for (size_t l = 0; l < c.nfree; l++)
            res->cov[c.map[k]][c.map[l]] =
                gs == GSL_SUCCESS ? gsl_matrix_get(cov, k, l) * s2 : NAN;
    for (size_t k = 0; k < c.nfree; k++) {
        size_t j = c.map[k];
        double v = gsl_matrix_get(cov, k, k) * s2;
        res->se[j] = (gs == GSL_SUCCESS && v >= 0) ? sqrt(v) : NAN;
        res->ci_lo[j] = res->p[j] - tq * res->se[j];
        res->ci_hi[j] = res->p[j] + tq * res->se[j];
    }
done:
    gsl_multifit_nlinear_free(w);
    gsl_vector_free(x);
    gsl_vector_free(wt);
    gsl_matrix_free(cov);
    gsl_set_error_handler(old);
    return rc;
}

int mb_fit_linear(size_t n, size_t k, const double *X, const double *y, const double *sigma,
                  double *b, double *chi2, mb_error *err)
{
    if (k == 0 || k > MB_FIT_MAX_PARAMS || n < k)
        return mb_error_set(err, MB_ENODATA, "linear fit: %zu points for %zu coefficients", n, k);
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    int rc = MB_OK;
    gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc(n, k);
    gsl_matrix *Xm = gsl_matrix_alloc(n, k), *cov = gsl_matrix_alloc(k, k);
    gsl_vector *yv = gsl_vector_alloc(n), *wv = gsl_vector_alloc(n), *c = gsl_vector_alloc(k);
    if (!ws || !Xm || !cov || !yv || !wv || !c) {
        rc = mb_error_set(err, MB_ENOMEM, "linear fit: out of memory in GSL");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < k; j++)
            gsl_matrix_set(Xm, i, j, X[i * k + j]);
        gsl_vector_set(yv, i, y[i]);
        gsl_vector_set(wv, i, sigma ? 1.0 / (sigma[i] * sigma[i]) : 1.0);
    }
    double c2 = 0;
    int gs = gsl_multifit_wlinear(Xm, wv, yv, c, cov, &c2, ws);
    if (gs != GSL_SUCCESS) {
        rc = mb_error_set(err, MB_ESOLVER, "linear fit: GSL: %s", gsl_strerror(gs));
        goto done;
    }
    for (size_t j = 0; j < k; j++)
        b[j] = gsl_vector_get(c, j);
    if (chi2)
        *chi2 = c2;
done:
    gsl_multifit_linear_free(ws);
    gsl_matrix_free(Xm);
    gsl_matrix_free(cov);
    gsl_vector_free(yv);
    gsl_vector_free(wv);
    gsl_vector_free(c);
    gsl_set_error_handler(old);
    return rc;
}

/* ---- non-negative linear fits ----------------------------------------------------------------- */

typedef struct lin_data {
    size_t k;
    const double *X;
} lin_data;

static int lin_f(const double *p, size_t i, const void *data, double *y, double *grad)
{
    const lin_data *d = data;
    double s = 0;
    for (size_t j = 0; j < d->k; j++) {
        grad[j] = d->X[i * d->k + j];
        s += p[j] * grad[j];
    }
    *y = s;
    return MB_OK;
}

int mb_fit_nonneg_linear(const char *name, const char *const *names, size_t n, size_t k,
                         const double *X, const double *y, const double *sigma, double *b_free,
                         mb_fit_result *res, mb_fit_warnings *warn, const char *what,
                         mb_error *err)
{
    memset(res, 0, sizeof *res);
    double b0[MB_FIT_MAX_PARAMS];
    int rc = mb_fit_linear(n, k, X, y, sigma, b0, NULL, err);
    if (rc != MB_OK)
        return rc;
    for (size_t j = 0; j < k; j++)
        b_free[j] = b0[j];
    lin_data d = {k, X};
    mb_fit_model m = {name, k, names, lin_f, &d};
    mb_fit_options o;
    mb_fit_options_init(&o);
    for (;;) {
        mb_fit_result_free(res);
        if ((rc = mb_fit_nlinear(&m, n, y, sigma, b0, &o, res, err)) != MB_OK)
            return rc;
        size_t worst = k;
        for (size_t j = 0; j < k; j++)
            if (!o.fixed[j] && res->p[j] < 0 && (worst == k || res->p[j] < res->p[worst]))
                worst = j;
        if (worst == k)
            return MB_OK;
        mb_fit_warn(warn, "%s: %s fitted negative (%.4g); a negative value is a measurement "
                          "problem (e.g. timer resolution, warm-up): held at 0 and refitted",
                    what, names[worst], res->p[worst]);
        o.fixed[worst] = 1;
        b0[worst] = 0.0;
        size_t nfree = 0;
        for (size_t j = 0; j < k; j++)
            nfree += !o.fixed[j];
        if (nfree == 0) {
            mb_fit_result_free(res);
            return mb_error_set(err, MB_EDOM, "%s: every coefficient fitted negative", what);
        }
    }
}

/* ---- JSON ------------------------------------------------------------------------------------- */

cJSON *mb_fit_result_json(const mb_fit_result *res)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *p = cJSON_CreateObject(), *se = cJSON_CreateObject(), *ci = cJSON_CreateObject(),
          *fx = cJSON_CreateArray(), *r = cJSON_CreateArray();
    if (!o || !p || !se || !ci || !fx || !r) {
        cJSON_Delete(o), cJSON_Delete(p), cJSON_Delete(se), cJSON_Delete(ci), cJSON_Delete(fx);
        cJSON_Delete(r);
        return NULL;
    }
    cJSON_AddStringToObject(o, "model", res->model);
    for (size_t j = 0; j < res->n_params; j++) {
        mb_json_add_number(p, res->names[j], res->p[j]);
        mb_json_add_number(se, res->names[j], res->se[j]);
        cJSON *iv = cJSON_CreateArray();
        if (iv) {
            cJSON *lo = isfinite(res->ci_lo[j]) ? cJSON_CreateNumber(res->ci_lo[j]) : cJSON_CreateNull();
            cJSON *hi = isfinite(res->ci_hi[j]) ? cJSON_CreateNumber(res->ci_hi[j]) : cJSON_CreateNull();
            cJSON_AddItemToArray(iv, lo);
            cJSON_AddItemToArray(iv, hi);
            cJSON_AddItemToObject(ci, res->names[j], iv);
        }
        if (res->fixed[j])
            cJSON_AddItemToArray(fx, cJSON_CreateString(res->names[j]));
    }
    cJSON_AddItemToObject(o, "params", p);
    cJSON_AddItemToObject(o, "stderr", se);
    cJSON_AddItemToObject(o, "ci95", ci);
    /* the covariance in parameter order, so that bands on the fitted curve can be drawn */
    cJSON *cv = cJSON_AddArrayToObject(o, "covariance");
    for (size_t j = 0; cv && j < res->n_params; j++) {
        cJSON *row = cJSON_CreateArray();
        for (size_t i = 0; row && i < res->n_params; i++)
            cJSON_AddItemToArray(row, isfinite(res->cov[j][i]) ? cJSON_CreateNumber(res->cov[j][i])
                                                               : cJSON_CreateNull());
        cJSON_AddItemToArray(cv, row);
    }
    mb_json_add_number(o, "r2", res->r2);
    mb_json_add_number(o, "n_points", (double)res->n_points);
    mb_json_add_number(o, "dof", res->dof);
    mb_json_add_number(o, "chi2", res->chi2);
    mb_json_add_number(o, "aic", res->aic);
    cJSON_AddBoolToObject(o, "converged", res->status == MB_OK);
    cJSON_AddStringToObject(o, "solver_status", res->gsl_reason);
    mb_json_add_number(o, "iterations", (double)res->iterations);
    cJSON_AddItemToObject(o, "held_at_bound", fx);
    for (size_t i = 0; res->residuals && i < res->n_points; i++)
        cJSON_AddItemToArray(r, cJSON_CreateNumber(res->residuals[i]));
    cJSON_AddItemToObject(o, "residuals", r);
    return o;
}

void mb_fit_json_merge(cJSON *dst, cJSON *src)
{
    while (src && src->child) {
        cJSON *it = cJSON_DetachItemViaPointer(src, src->child);
        cJSON_AddItemToObject(dst, it->string, it);
    }
    cJSON_Delete(src);
}

cJSON *mb_fit_warnings_json(const mb_fit_warnings *w)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < w->n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(w->msg[i]));
    return a;
}
