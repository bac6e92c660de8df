/* lawcheck.c — validate.json's model held to itself: the law it names (law.model) to its own
 * parameters (law.params: the keys of that law, no other) and to the file's `model` object where
 * there is one (its law, parameters, gamma, m_t and t0, as mbopt validate writes both from one
 * model), and the predicted curve it draws to that model, each point's t_pred_s recomputed as
 * N_update(M) x T_update(M, P) (campaign 39's B-F3: law.model "inverse-law" beside a power law's
 * parameters was printed as written; B-F4: a curve point of 99 s where the law gives 3 s was
 * drawn). mb_plot_validate_law_nfit holds the law to the report's nfit.json.
 *
 * The model the curve is held to is the file's `model` object where there is one (read as mbopt
 * scale's is: solver/fits.c, mb_solver_read_model, so a step table and the collective count),
 * else the law's parameters with t_update's gamma, m_t and t0 (no table, no collective: the
 * curve at one learner). A file with a curve and neither is refused: nothing would hold it.
 * The rows, in-sample and held out, at the law's rate (the recommendation's) are held to the same
 * model, each row's t_pred_s as a curve point's (campaign 40's B-F1, B-F2), to the digits
 * written; at P > 1 only where the model object gives the communication.
 *
 * What it does not do: check each field's range (validate.c, before this), the rows' summaries
 * (insample.c), rows at another rate than the law's (another fit's law, which the file does not
 * hold), or curve_probe (the probe's T_update alone, which the file does not record).
 */
#include "plot_impl.h"
#include "../data/mb_json.h"
#include "../solver/mb_solver.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* o[key] (`where` + key names it) into *v: a finite number, > 0 where `pos`, else >= 0 (NaN
 * where absent or null and not `required`). Not validate.c's mb_plot_field, which calls this
 * file: a cycle (tests/tools/deps.sh). */
static int number_at(const cJSON *o, const char *where, const char *key, int required, int pos,
                     const char *path, double *v, mb_error *err)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, key);
    *v = NAN;
    if ((!e || cJSON_IsNull(e)) && !required)
        return MB_OK;
    if (!e)
        return mb_error_set(err, MB_EFORMAT, "%s: field '%s%s': missing", path, where, key);
    if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble))
        return mb_error_set(err, MB_EFORMAT, "%s: field '%s%s': not a number", path, where, key);
    *v = e->valuedouble;
    if (pos > 0 ? !(*v > 0) : pos == 0 ? !(*v >= 0) : 0)
        return mb_error_set(err, MB_EFORMAT, "%s: field '%s%s': must be %s, got %g", path, where,
                            key, pos > 0 ? "> 0" : ">= 0", *v);
    return MB_OK;
}

/* law.params holds exactly the parameters of the law law.model names, each a number: *law gets
 * them (MB_OK with *have 0 where the file has no law). */
static int params_of_law(const cJSON *lo, const char *path, mb_law *law, int *have,
                         mb_error *err)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(lo, "model");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(lo, "params"), *e;
    mb_law_kind kind;
    *have = 0;
    if (!cJSON_IsString(name) || mb_model_law_parse(name->valuestring, &kind) != MB_OK)
        return MB_OK; /* no law named (validate.c refuses a name that is none) */
    if (!cJSON_IsObject(params))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'law.params': missing or not an object, "
                            "but law.model names the %s", path, name->valuestring);
    const char *names[3];
    double v[3] = {0};
    const size_t n = mb_model_law_names(kind, names);
    cJSON_ArrayForEach(e, params)
    {
        size_t k = 0;
        while (k < n && strcmp(e->string, names[k]))
            k++;
        if (k == n)
            return mb_error_set(err, MB_EFORMAT, "%s: field 'law.params.%s': the %s (law.model) "
                                "has no parameter %s: the law and its parameters are of two "
                                "different fits", path, e->string, name->valuestring, e->string);
    }
    for (size_t k = 0; k < n; k++) {
        int rc = number_at(params, "law.params.", names[k], 1, -1, path, &v[k], err);
        if (rc != MB_OK)
            return rc;
    }
    *law = mb_model_law_from_params(kind, v);
    *have = 1;
    return MB_OK;
}

/* a and b one written number (mbopt writes both from one double: 1e-9 relative). */
static int same_number(double a, double b)
{
    return (isnan(a) && isnan(b)) || fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

/* The law and t_update against the file's model object: law.model its law, each parameter and
 * gamma, m_t, t0 its own. */
static int law_is_model(const cJSON *root, const cJSON *model, const char *path, mb_error *err)
{
    const cJSON *lo = cJSON_GetObjectItemCaseSensitive(root, "law");
    const cJSON *ln = cJSON_GetObjectItemCaseSensitive(lo, "model");
    const cJSON *mn = cJSON_GetObjectItemCaseSensitive(model, "law");
    if (cJSON_IsString(ln) && cJSON_IsString(mn) && strcmp(ln->valuestring, mn->valuestring))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'law.model': %s, but the file's "
                            "model.law is %s", path, ln->valuestring, mn->valuestring);
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(lo, "params"), *e;
    cJSON_ArrayForEach(e, params)
    {
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(model, e->string);
        if (o && !cJSON_IsNumber(o) && !cJSON_IsNull(o))
            return mb_error_set(err, MB_EFORMAT, "%s: field 'model.%s': not a number (or null)",
                                path, e->string);
        const double a = mb_json_get(params, e->string), b = mb_json_get(model, e->string);
        if (!same_number(a, b))
            return mb_error_set(err, MB_EFORMAT, "%s: field 'law.params.%s': %.6g, but the "
                                "file's model.%s is %.6g", path, e->string, a, e->string, b);
    }
    const cJSON *tu = cJSON_GetObjectItemCaseSensitive(root, "t_update");
    static const char *const keys[] = {"gamma", "m_t", "t0"};
    for (size_t k = 0; cJSON_IsObject(tu) && k < 3; k++) {
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(model, keys[k]);
        if (o && !cJSON_IsNumber(o) && !cJSON_IsNull(o))
            return mb_error_set(err, MB_EFORMAT, "%s: field 'model.%s': not a number (or null)",
                                path, keys[k]);
        if (!cJSON_GetObjectItemCaseSensitive(tu, keys[k]))
            continue;
        double a = mb_json_get(tu, keys[k]), b = mb_json_get(model, keys[k]);
        if (k == 2 && isnan(b))
            b = 0; /* a model without t0: none */
        if (!same_number(a, b))
            return mb_error_set(err, MB_EFORMAT, "%s: field 't_update.%s': %.6g, but the file's "
                                "model.%s is %.6g", path, keys[k], a, keys[k], b);
    }
    return MB_OK;
}

/* The model the curve is drawn from: the file's model object, else the law with t_update's
 * closed form. *have 0: neither (no law, or no t_update). */
static int curve_model(const cJSON *root, const char *path, mb_law *law, mb_update_time *t,
                       int *have, mb_error *err)
{
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(root, "model");
    int rc = params_of_law(cJSON_GetObjectItemCaseSensitive(root, "law"), path, law, have, err);
    if (rc != MB_OK)
        return rc;
    if (model && !cJSON_IsNull(model) && !cJSON_IsObject(model))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'model': not an object", path);
    if (cJSON_IsObject(model)) {
        if ((rc = law_is_model(root, model, path, err)) != MB_OK)
            return rc;
        *have = 1;
        return mb_solver_read_model(model, path, law, t, NULL, err);
    }
    const cJSON *tu = cJSON_GetObjectItemCaseSensitive(root, "t_update");
    if (!*have || !cJSON_IsObject(tu)) {
        *have = 0;
        return MB_OK;
    }
    *t = (mb_update_time){.comm = MB_COMM_NONE};
    double t0;
    if ((rc = number_at(tu, "t_update.", "gamma", 1, 1, path, &t->gamma, err)) ||
        (rc = number_at(tu, "t_update.", "m_t", 1, 1, path, &t->m_t, err)) ||
        (rc = number_at(tu, "t_update.", "t0", 0, 0, path, &t0, err)))
        return rc;
    t->t0 = isnan(t0) ? 0 : t0;
    return mb_solver_check_models_in(law, t, path, "t_update.", err);
}

/* One predicted point o (a curve point, a row) at M o.batch, P o.procs (p_default where null):
 * its t_pred_s, where there is the field, the model's N_update(M) x T_update(M, P) to the digits
 * written, or null where the model has no value there. `where` ("rows[3].") names it. */
static int point_agrees(const mb_law *law, const mb_update_time *t, const cJSON *o,
                        const char *where, double p_default, const char *path, mb_error *err)
{
    const double m = mb_json_get(o, "batch"), got = mb_json_get(o, "t_pred_s");
    double p = mb_json_get(o, "procs"), tc = NAN;
    p = isnan(p) ? p_default : p;
    if (!cJSON_GetObjectItemCaseSensitive(o, "t_pred_s"))
        return MB_OK; /* a row without a prediction column (a curve point's is required) */
    if (mb_model_law_tc(law, t, m, p, &tc) != MB_OK)
        tc = NAN;
    if ((isnan(got) && isnan(tc)) || (isfinite(tc) && mb_plot_same_written(got, tc)))
        return MB_OK;
    char g[32], w[32];
    snprintf(g, sizeof g, isnan(got) ? "null" : "%g", got);
    snprintf(w, sizeof w, isnan(tc) ? "none (outside the law)" : "%.4g", tc);
    return mb_error_set(err, MB_EFORMAT, "%s: field '%st_pred_s': %s at M %g (P %g), but the "
                        "law and T_update give %s", path, where, g, m, p, w);
}

/* The rows of `rows` (`name`: "rows", "holdout.rows") that the law predicts: those at the
 * recommendation's rate (the law's: rows at another rate have another fit's, which the file does
 * not hold), at any P where the file's model object gives T_update's communication, else at
 * P = 1 only; each held as point_agrees (campaign 40's B-F1, B-F2: a row's 9 s where the law gives
 * 2.66 s was printed). */
static int rows_agree(const mb_law *law, const mb_update_time *t, const cJSON *rows,
                      const char *name, double lr, int any_p, const char *path, mb_error *err)
{
    const cJSON *r;
    int i = 0, rc = MB_OK;
    cJSON_ArrayForEach(r, rows)
    {
        char where[48];
        snprintf(where, sizeof where, "%s[%d].", name, i++);
        double p = mb_json_get(r, "procs");
        p = isnan(p) ? 1 : p;
        if (mb_solver_same_rate(mb_json_get(r, "lr"), lr) && (any_p || p == 1) &&
            (rc = point_agrees(law, t, r, where, 1, path, err)) != MB_OK)
            break;
    }
    return rc;
}

int mb_plot_curve_agrees(const cJSON *root, const char *path, mb_error *err)
{
    mb_law law;
    mb_update_time t;
    int have = 0, i = 0;
    int rc = curve_model(root, path, &law, &t, &have, err);
    const cJSON *curve = cJSON_GetObjectItemCaseSensitive(root, "curve"), *e;
    const cJSON *rec = cJSON_GetObjectItemCaseSensitive(root, "recommended");
    double p_rec = mb_json_get(rec, "procs");
    p_rec = isnan(p_rec) ? 1 : p_rec;
    cJSON_ArrayForEach(e, (rc == MB_OK ? curve : NULL))
    {
        char where[32];
        snprintf(where, sizeof where, "curve[%d].", i++);
        if (!have && !isnan(mb_json_get(e, "t_pred_s")))
            return mb_error_set(err, MB_EFORMAT, "%s: field '%st_pred_s': %g, but the file has no "
                                "law (law.model and law.params) and t_update (or model) to hold "
                                "the curve to", path, where, mb_json_get(e, "t_pred_s"));
        if (have && (rc = point_agrees(&law, &t, e, where, p_rec, path, err)) != MB_OK)
            return rc;
    }
    if (rc != MB_OK || !have)
        return rc;
    const double lr = mb_json_get(rec, "lr");
    const int any_p = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "model"));
    const cJSON *ho = cJSON_GetObjectItemCaseSensitive(root, "holdout");
    if ((rc = rows_agree(&law, &t, cJSON_GetObjectItemCaseSensitive(root, "rows"), "rows", lr,
                         any_p, path, err)) == MB_OK)
        rc = rows_agree(&law, &t, cJSON_GetObjectItemCaseSensitive(ho, "rows"), "holdout.rows",
                        lr, any_p, path, err);
    return rc;
}

int mb_plot_validate_law_nfit(const cJSON *val, const char *vpath, const cJSON *nfit,
                              const char *npath, mb_error *err)
{
    const cJSON *lo = cJSON_GetObjectItemCaseSensitive(val, "law");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(lo, "model");
    const double v_lr = mb_json_get(cJSON_GetObjectItemCaseSensitive(val, "recommended"), "lr");
    const double n_lr = mb_json_get(nfit, "lr");
    if (!cJSON_IsString(name) || (!isnan(v_lr) && !isnan(n_lr) &&
                                  fabs(v_lr - n_lr) > 1e-12 * fmax(v_lr, n_lr)))
        return MB_OK; /* no law, or a check at another rate than this fit's */
    const cJSON *best = cJSON_GetObjectItemCaseSensitive(nfit, "best");
    const cJSON *bm = cJSON_GetObjectItemCaseSensitive(best, "model");
    const cJSON *one = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(nfit, "laws"), name->valuestring);
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(nfit, "model");
    const cJSON *fit = NULL;
    char where[64] = "";
    if (cJSON_IsString(bm) && !strcmp(bm->valuestring, name->valuestring))
        fit = best, snprintf(where, sizeof where, "best.params");
    else if (cJSON_IsObject(one))
        fit = one, snprintf(where, sizeof where, "laws.%s.params", name->valuestring);
    else if (cJSON_IsString(nm) && !strcmp(nm->valuestring, name->valuestring))
        fit = nfit, snprintf(where, sizeof where, "params");
    if (!fit)
        return mb_error_set(err, MB_EFORMAT, "%s: field 'law.model': %s, but %s fits no %s: the "
                            "two files are of different fits", vpath, name->valuestring, npath,
                            name->valuestring);
    const cJSON *np = cJSON_GetObjectItemCaseSensitive(fit, "params");
    const cJSON *vp = cJSON_GetObjectItemCaseSensitive(lo, "params"), *e;
    cJSON_ArrayForEach(e, vp)
    {
        const double a = mb_json_get(vp, e->string), b = mb_json_get(np, e->string);
        if (!isnan(b) && fabs(a - b) > 1e-9 * fmax(fabs(a), fabs(b)))
            return mb_error_set(err, MB_EFORMAT, "%s: field 'law.params.%s': %.6g, but %s's "
                                "'%s.%s' is %.6g: the two files are of different fits", vpath,
                                e->string, a, npath, where, e->string, b);
    }
    return MB_OK;
}
