/* match.c — whether a validation file (mbopt validate --json: the report's validate.json, or
 * validate-rec.json) is the check of the recommendation in the report's scale.json, or a file of
 * another run (issue #25, campaign 19's G3: a scale rerun with --batch-range 16:32 said "Use
 * M = 16" above "the recommended M = 4 trained in ..." of the validation made for the earlier
 * scale).
 *
 * What must agree, and what need not. Plain `mbopt validate` checks the model's optimum at
 * P = 1 (its `model_optimum`, of the fastest learning rate at P = 1), which may rightly differ
 * from scale's answer at P > 1; `mbopt validate --recommend scale.json` checks scale's `enough`
 * row at its P. So: at P > 1 the check is of scale's own answer (P, M, rate); at P = 1 of scale's
 * P = 1 row (its M) when the rate is scale's, else of a rate scale weighed (`by_lr`); the model
 * both were computed with (the law and its parameters, the step's gamma, M_T and t0, the range
 * of M searched) is the same when the rate is; and where both settled on a trained M at the
 * same P and rate, it is the same M. A validation file without `model` or `model_optimum`
 * (written before mbopt recorded them, or by hand) is held to what it has: its rate and its
 * recommendation's P.
 *
 * Not here: reading either file's own values (validate.c, report.c).
 */
#include "mb_plot.h"
#include "plot_impl.h"
#include "../data/mb_json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The same number written by two runs of the same code from the same inputs: equal but for the
 * last digits (a P = 1 optimum found by two searches of the same function agrees to 1e-6). */
static int same(double a, double b, double rel)
{
    return a == b || fabs(a - b) <= rel * fmax(fabs(a), fabs(b));
}

/* Scale's row at P (NULL when it has none). */
static const cJSON *scale_row(const cJSON *scale, double procs)
{
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(scale, "rows"))
        if (mb_json_get(r, "procs") == procs)
            return r;
    return NULL;
}

/* Whether scale weighed the rate lr (its own, or one of by_lr's). */
static int scale_rate(const cJSON *scale, double lr)
{
    const cJSON *e;
    if (same(mb_json_get(scale, "lr"), lr, 1e-12))
        return 1;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(scale, "by_lr"))
        if (same(mb_json_get(e, "lr"), lr, 1e-12))
            return 1;
    return 0;
}

/* The keys of the two "model" objects that are not the model of T_C itself: words, tables of
 * the step (the same tfit writes the same), and the collective, which scale may take from
 * --delta and validate from --cfit (make run does so). */
static int model_key_compared(const cJSON *item)
{
    static const char *const skip[] = {"latency_s", "s_per_byte", "bytes", "delta"};
    if (!cJSON_IsNumber(item) && !cJSON_IsNull(item))
        return 0;
    for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++)
        if (!strcmp(item->string, skip[i]))
            return 0;
    return 1;
}

/* The model of T_C both files were computed with: the law's name, then each number of the
 * validation file's model (the law's parameters, gamma, m_t, t0, m_lo, m_hi) against scale's. */
static int same_model(const cJSON *vm, const cJSON *sm, const char *vpath, const char *spath,
                      mb_error *err)
{
    const cJSON *vl = cJSON_GetObjectItemCaseSensitive(vm, "law");
    const cJSON *sl = cJSON_GetObjectItemCaseSensitive(sm, "law");
    if (cJSON_IsString(vl) && cJSON_IsString(sl) && strcmp(vl->valuestring, sl->valuestring))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'model.law': %s, but %s's is %s: the two "
                            "files are of different fits (rerun mbopt validate with scale's "
                            "inputs)", vpath, vl->valuestring, spath, sl->valuestring);
    const cJSON *e;
    cJSON_ArrayForEach(e, vm)
    {
        if (!model_key_compared(e))
            continue;
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(sm, e->string);
        const double a = cJSON_IsNumber(e) ? e->valuedouble : NAN;
        const double b = cJSON_IsNumber(o) ? o->valuedouble : NAN;
        if ((isnan(a) && isnan(b)) || same(a, b, 1e-9))
            continue;
        char va[32], vb[32];
        snprintf(va, sizeof va, isnan(a) ? "null" : "%.6g", a);
        snprintf(vb, sizeof vb, isnan(b) ? (o ? "null" : "missing") : "%.6g", b);
        return mb_error_set(err, MB_EFORMAT, "%s: field 'model.%s': %s, but %s's is %s: the two "
                            "files are of different fits or ranges of M (rerun mbopt validate "
                            "with scale's inputs)", vpath, e->string, va, spath, vb);
    }
    return MB_OK;
}

/* Where both settled on a trained setting at the same P (the model's rate the same): the same
 * M and rate (the recommended M's trained stand-in, batch_run, is what scale's settled.batch
 * names). */
static int same_settled(const cJSON *val, const cJSON *scale, double procs, const char *vpath,
                        const char *spath, mb_error *err)
{
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(scale, "settled");
    const cJSON *rec = cJSON_GetObjectItemCaseSensitive(val, "recommended");
    const double sb = mb_json_get(st, "batch"), vb = mb_json_get(rec, "batch_run");
    const double slr = mb_json_get(st, "lr"), vlr = mb_json_get(rec, "lr");
    double sp = mb_json_get(st, "procs");
    sp = isnan(sp) ? mb_json_get(cJSON_GetObjectItemCaseSensitive(scale, "enough"), "procs") : sp;
    if (isnan(sb) || isnan(vb) || sp != procs ||
        (sb == vb && (isnan(slr) || isnan(vlr) || same(slr, vlr, 1e-12))))
        return MB_OK;
    return mb_error_set(err, MB_EFORMAT, "%s: field 'recommended.batch_run': M = %g (lr %g), but "
                        "%s settled on M = %g (lr %g) at P = %g: the two files are of different "
                        "runs (rerun mbopt validate with scale's run logs)", vpath, vb, vlr, spath,
                        sb, slr, procs);
}

int mb_plot_validate_matches(const cJSON *val, const char *vpath, const cJSON *scale,
                             const char *spath, mb_error *err)
{
    /* the point the validation file checked: the model's answer it was given or found
     * (model_optimum), else its recommendation */
    const cJSON *opt = cJSON_GetObjectItemCaseSensitive(val, "model_optimum");
    if (opt && !cJSON_IsNull(opt) && !cJSON_IsObject(opt))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'model_optimum': not an object", vpath);
    const char *key = cJSON_IsObject(opt) ? "model_optimum" : "recommended";
    opt = cJSON_GetObjectItemCaseSensitive(val, key);
    char where[32];
    snprintf(where, sizeof where, "%s.", key);
    double m, p, lr;
    int rc = mb_plot_field(opt, where, "batch", F_REQUIRED | F_POS, vpath, &m, err);
    if (rc == MB_OK)
        rc = mb_plot_field(opt, where, "procs", F_NULL | F_POS | F_INT, vpath, &p, err);
    if (rc == MB_OK)
        rc = mb_plot_field(opt, where, "lr", F_NULL | F_POS, vpath, &lr, err);
    if (rc != MB_OK)
        return rc;
    p = isnan(p) ? 1 : p; /* files written before validate recorded P: one learner */
    const int has_opt = !strcmp(key, "model_optimum");
    const cJSON *enough = cJSON_GetObjectItemCaseSensitive(scale, "enough");
    const double s_lr = mb_json_get(scale, "lr"), e_p = mb_json_get(enough, "procs"),
                 e_m = mb_json_get(enough, "m_opt");
    /* the rate: scale's, or at P = 1 one that scale weighed (unknown on either side: a model
     * given by flags, a fit of points) */
    const int rate_known = !isnan(lr) && !isnan(s_lr);
    const int own_rate = !rate_known || same(lr, s_lr, 1e-12);
    if (rate_known && !own_rate && (p > 1 || !scale_rate(scale, lr)))
        return mb_error_set(err, MB_EFORMAT, "%s: field '%slr': %g, but %s recommends lr %g%s: "
                            "the two files are of different runs (rerun mbopt validate "
                            "--recommend %s)", vpath, where, lr, spath, s_lr,
                            p > 1 ? "" : " and weighed no other", spath);
    /* at P > 1: scale's own answer (validate --recommend) */
    if (p > 1 && (p != e_p || (has_opt && !same(m, e_m, 1e-9))))
        return mb_error_set(err, MB_EFORMAT, "%s: field '%s%s': the check is of P = %g, M = %.4g, "
                            "but %s recommends P = %g, M = %.4g: rerun mbopt validate "
                            "--recommend %s", vpath, where, p != e_p ? "procs" : "batch", p, m,
                            spath, e_p, e_m, spath);
    /* at P = 1: scale's P = 1 row (its M_opt) */
    const cJSON *row = scale_row(scale, 1);
    const double r_m = mb_json_get(row, "m_opt");
    if (p == 1 && has_opt && own_rate && !isnan(r_m) && !same(m, r_m, 1e-6))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'model_optimum.batch': the P = 1 optimum "
                            "checked is M = %.4g, but %s's P = 1 row has M = %.4g: the two files "
                            "are of different runs (rerun mbopt validate with scale's inputs)",
                            vpath, m, spath, r_m);
    const cJSON *vm = cJSON_GetObjectItemCaseSensitive(val, "model");
    const cJSON *sm = cJSON_GetObjectItemCaseSensitive(scale, "model");
    if (own_rate && cJSON_IsObject(vm) && cJSON_IsObject(sm) &&
        (rc = same_model(vm, sm, vpath, spath, err)) != MB_OK)
        return rc;
    return own_rate ? same_settled(val, scale, p, vpath, spath, err) : MB_OK;
}
