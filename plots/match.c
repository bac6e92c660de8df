/* match.c — whether files drawn together are of one run. First, whether a validation file
 * (mbopt validate --json: the report's validate.json, or validate-rec.json) is the check of the
 * recommendation in the report's scale.json, or a file of another run (issue #25, campaign
 * 19's G3: a scale rerun with --batch-range 16:32 said "Use M = 16" above "the recommended
 * M = 4 trained in ..." of the validation made for the earlier scale).
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
 * Beside it, the report's other inputs against scale.json and each other (campaign 21's N7:
 * nfit.json of another target, tfit.json of another table, runs of another rate or net), and a
 * fit drawn over a table against that table (N9: mbplot step --tfit, comm --cfit).
 *
 * Not here: reading either file's own values (validate.c, report.c).
 */
#include "mb_plot.h"
#include "plot_impl.h"
#include "../data/mb_json.h"
#include "../data/mb_table.h"
#include "../fit/mb_fit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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

/* The keys of a "model" object that hold numbers (or null) when present: the law's parameters,
 * the step's, the range of M and the collective's. */
static int model_number(const char *key)
{
    static const char *const num[] = {"n_inf", "alpha", "m_0", "a", "b", "gamma", "m_t", "t0",
                                      "m_lo", "m_hi", "latency_s", "s_per_byte", "bytes",
                                      "delta"};
    for (size_t i = 0; i < sizeof num / sizeof num[0]; i++)
        if (!strcmp(key, num[i]))
            return 1;
    return 0;
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
        if (model_number(e->string) && !cJSON_IsNumber(e) && !cJSON_IsNull(e))
            return mb_error_set(err, MB_EFORMAT, "%s: field 'model.%s': not a number (or null)",
                                vpath, e->string); /* campaign 21's N8: text skipped the match */
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
    if (vm && !cJSON_IsNull(vm) && !cJSON_IsObject(vm)) /* campaign 21's N8: "x", [] */
        return mb_error_set(err, MB_EFORMAT, "%s: field 'model': not an object", vpath);
    const double vt = mb_json_get(val, "target_loss"), st = mb_json_get(scale, "target_loss");
    if (!isnan(vt) && !isnan(st) && !same(vt, st, 1e-9))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'target_loss': %g, but %s's is %g: the "
                            "two files are of different targets (rerun mbopt validate with "
                            "scale's inputs)", vpath, vt, spath, st);
    if (own_rate && cJSON_IsObject(vm) && cJSON_IsObject(sm) &&
        (rc = same_model(vm, sm, vpath, spath, err)) != MB_OK)
        return rc;
    return own_rate ? same_settled(val, scale, p, vpath, spath, err) : MB_OK;
}

/* ---- the fits the report shows beside scale.json (campaign 21's N7) ------------------------- */

/* a and b (NaN: not recorded, not compared) the same number of one run, or MB_EFORMAT naming
 * both files and fields. */
static int same_field(double a, const char *apath, const char *afield, double b,
                      const char *bpath, const char *bfield, mb_error *err)
{
    if (isnan(a) || isnan(b) || same(a, b, 1e-9))
        return MB_OK;
    return mb_error_set(err, MB_EFORMAT, "%s: field '%s': %.6g, but %s's '%s' is %.6g: the two "
                        "files are of different runs (rerun the stage that writes %s with "
                        "scale's inputs, or mbopt scale with these)", apath, afield, a, bpath,
                        bfield, b, apath);
}

/* nfit.json against scale's model: the rate (scale's own or one it weighed, whose law scale
 * does not record), the target, and at scale's rate the law scale optimised (nfit's best, or
 * its entry in `laws` where scale was given --law) with every parameter of it. */
static int nfit_matches(const cJSON *scale, const char *spath, const cJSON *nfit,
                        const char *npath, mb_error *err)
{
    const cJSON *sm = cJSON_GetObjectItemCaseSensitive(scale, "model");
    const double s_lr = mb_json_get(scale, "lr"), n_lr = mb_json_get(nfit, "lr");
    int rc = same_field(mb_json_get(nfit, "target_loss"), npath, "target_loss",
                        mb_json_get(scale, "target_loss"), spath, "target_loss", err);
    if (rc != MB_OK)
        return rc;
    if (!isnan(s_lr) && !isnan(n_lr) && !same(s_lr, n_lr, 1e-12))
        return scale_rate(scale, n_lr) ? MB_OK
                                       : same_field(n_lr, npath, "lr", s_lr, spath, "lr", err);
    const cJSON *law = cJSON_GetObjectItemCaseSensitive(sm, "law");
    mb_law_kind kind = MB_LAW_INVERSE;
    if (!cJSON_IsString(law) || mb_model_law_parse(law->valuestring, &kind) != MB_OK)
        return MB_OK; /* scale's own reader refuses it */
    const cJSON *best = cJSON_GetObjectItemCaseSensitive(nfit, "best");
    const cJSON *bm = cJSON_GetObjectItemCaseSensitive(best, "model");
    const cJSON *one = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(nfit, "laws"), law->valuestring);
    char where[64];
    const cJSON *fit;
    if (cJSON_IsString(bm) && !strcmp(bm->valuestring, law->valuestring))
        fit = best, snprintf(where, sizeof where, "best.params");
    else if (cJSON_IsObject(one))
        fit = one, snprintf(where, sizeof where, "laws.%s.params", law->valuestring);
    else if (kind == MB_LAW_INVERSE)
        fit = nfit, snprintf(where, sizeof where, "params");
    else
        return mb_error_set(err, MB_EFORMAT, "%s: no fit of the %s, the law of %s's field "
                            "'model.law': the two files are of different fits", npath,
                            law->valuestring, spath);
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(fit, "params");
    const char *names[3];
    const size_t n = mb_model_law_names(kind, names);
    for (size_t i = 0; rc == MB_OK && i < n; i++) {
        char nf[96], sf[32];
        snprintf(nf, sizeof nf, "%s.%s", where, names[i]);
        snprintf(sf, sizeof sf, "model.%s", names[i]);
        rc = same_field(mb_json_get(params, names[i]), npath, nf, mb_json_get(sm, names[i]),
                        spath, sf, err);
    }
    return rc;
}

/* tfit.json against scale's model: the step's gamma and M_T (its top-level params, which mbopt
 * reads) and, for a fit of one learner, t0 (its delta, at least 0). */
static int tfit_matches(const cJSON *scale, const char *spath, const cJSON *tfit,
                        const char *tpath, mb_error *err)
{
    const cJSON *sm = cJSON_GetObjectItemCaseSensitive(scale, "model");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(tfit, "params");
    int rc = same_field(mb_json_get(params, "gamma"), tpath, "params.gamma",
                        mb_json_get(sm, "gamma"), spath, "model.gamma", err);
    if (rc == MB_OK)
        rc = same_field(mb_json_get(params, "m_t"), tpath, "params.m_t", mb_json_get(sm, "m_t"),
                        spath, "model.m_t", err);
    const double d = mb_json_get(params, "delta");
    if (rc == MB_OK && mb_json_get(tfit, "learners") == 1)
        rc = same_field(isnan(d) ? d : fmax(0, d), tpath, "params.delta", mb_json_get(sm, "t0"),
                        spath, "model.t0", err);
    return rc;
}

/* cfit.json against scale's model: its latency and inverse bandwidth where scale solved the
 * alpha-beta collective; none where scale solved no collective (--comm none: a cfit there is
 * another run's; with allreduce or ps scale takes --delta and validate the cfit, as make run
 * does). */
static int cfit_matches(const cJSON *scale, const char *spath, const cJSON *cfit,
                        const char *cpath, mb_error *err)
{
    const cJSON *sm = cJSON_GetObjectItemCaseSensitive(scale, "model");
    const cJSON *comm = cJSON_GetObjectItemCaseSensitive(sm, "comm");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(cfit, "params");
    if (cJSON_IsString(comm) && !strcmp(comm->valuestring, "none"))
        return mb_error_set(err, MB_EFORMAT, "%s: a collective fit, but %s's field 'model.comm' "
                            "is none (no collective): the two files are of different runs "
                            "(remove %s, or rerun mbopt scale with --cfit)", cpath, spath,
                            cpath);
    if (!cJSON_IsString(comm) || strcmp(comm->valuestring, "alpha-beta") != 0)
        return MB_OK;
    int rc = same_field(mb_json_get(params, "latency_s"), cpath, "params.latency_s",
                        mb_json_get(sm, "latency_s"), spath, "model.latency_s", err);
    return rc == MB_OK ? same_field(mb_json_get(params, "s_per_byte"), cpath,
                                    "params.s_per_byte", mb_json_get(sm, "s_per_byte"), spath,
                                    "model.s_per_byte", err)
                       : rc;
}

int mb_plot_fits_match(const cJSON *scale, const char *spath, const cJSON *nfit,
                       const char *npath, const cJSON *tfit, const char *tpath,
                       const cJSON *cfit, const char *cpath, mb_error *err)
{
    int rc = nfit ? nfit_matches(scale, spath, nfit, npath, err) : MB_OK;
    if (rc == MB_OK && tfit)
        rc = tfit_matches(scale, spath, tfit, tpath, err);
    if (rc == MB_OK && cfit)
        rc = cfit_matches(scale, spath, cfit, cpath, err);
    return rc;
}

int mb_plot_run_matches(const mb_table *log, const cJSON *scale, const char *spath,
                        const cJSON *nfit, const char *npath, mb_error *err)
{
    const char *path = mb_table_path(log), *lr = mb_table_meta(log, "lr");
    const char *algo = mb_table_meta(log, "algo");
    const cJSON *na = cJSON_GetObjectItemCaseSensitive(nfit, "algo");
    char *end = NULL;
    const double v = lr ? strtod(lr, &end) : NAN;
    const double s_lr = mb_json_get(scale, "lr");
    if (lr && end && *end == '\0' && !isnan(s_lr) && !scale_rate(scale, v))
        return mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'lr': %s, but %s recommends lr %g%s: "
                            "the run is of another job", path, mb_table_meta_line(log, "lr"), lr,
                            spath, s_lr, cJSON_GetObjectItemCaseSensitive(scale, "by_lr")
                                             ? " and weighed no such rate" : "");
    if (algo && cJSON_IsString(na) && strcmp(algo, na->valuestring) != 0)
        return mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'algo': %s, but %s's is %s: the run "
                            "is of another job", path, mb_table_meta_line(log, "algo"), algo,
                            npath, na->valuestring);
    return MB_OK;
}

/* One name of the workload (`what`: net or data) against the first file's (held in first,
 * first_path); `kind` names the mismatch ("nets", "data sets"). */
static int same_name(const char *what, const char *kind, const char *v, const char *path,
                     char *first, size_t n_first, char *first_path, size_t n_path, mb_error *err)
{
    if (!v || !*v)
        return MB_OK;
    if (!*first) {
        snprintf(first, n_first, "%s", v);
        snprintf(first_path, n_path, "%s", path);
        return MB_OK;
    }
    if (strcmp(first, v) == 0)
        return MB_OK;
    return mb_error_set(err, MB_EFORMAT, "%s: %s '%.64s', but %s's is '%.64s': the report's "
                        "inputs are of different %s", path, what, v, first_path, first, kind);
}

int mb_plot_same_workload(mb_plot_workload *w, const char *path, const char *net,
                          const char *data, mb_error *err)
{
    int rc = same_name("net", "nets", net, path, w->net, sizeof w->net, w->net_path,
                       sizeof w->net_path, err);
    if (rc == MB_OK)
        rc = same_name("data", "data sets", data, path, w->data, sizeof w->data, w->data_path,
                       sizeof w->data_path, err);
    return rc;
}

/* ---- a fit drawn over a table: of that table (campaign 21's N9) ----------------------------- */

/* Item i of a JSON array as a number (NaN when it is none). */
static double item_num(const cJSON *a, int i)
{
    const cJSON *x = cJSON_GetArrayItem(a, i);
    return cJSON_IsNumber(x) ? x->valuedouble : NAN;
}

/* Whether tab has a row of `learners` learners at M/P = x timed t_median_s = t. */
static int step_row(const mb_table *tab, double learners, double x, double t)
{
    const long cb = mb_table_col(tab, "batch"), cl = mb_table_col(tab, "learners"),
               ct = mb_table_col(tab, "t_median_s");
    for (size_t r = 0; cb >= 0 && cl >= 0 && ct >= 0 && r < mb_table_rows(tab); r++) {
        double m, l, tm;
        if (mb_table_double(tab, r, (size_t)cb, &m, NULL) == MB_OK &&
            mb_table_double(tab, r, (size_t)cl, &l, NULL) == MB_OK &&
            mb_table_double(tab, r, (size_t)ct, &tm, NULL) == MB_OK && l == learners &&
            same(m / l, x, 1e-12) && same(tm, t, 1e-9))
            return 1;
    }
    return 0;
}

/* Whether one fit of a tfit (e: the file or a by_learners entry, `where` its field prefix) has
 * the parameters its own `points` fit to, fitted again as mbfit tupdate fits them (its weights
 * `w`; calibrated fits are refitted on these points too), to 1e-6 as mbplot comm holds a cfit
 * (campaign 31's N7: a gamma doubled by hand was drawn as the knee). A fit without points, or
 * too few to fit (by hand), is drawn as given. */
static int tfit_refits(const cJSON *e, const char *where, mb_fit_weighting w, const char *tpath,
                       mb_error *err)
{
    const cJSON *pts = cJSON_GetObjectItemCaseSensitive(e, "points"), *pt;
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(e, "params");
    const int n = cJSON_GetArraySize(pts);
    if (!cJSON_IsArray(pts) || n < 3)
        return MB_OK;
    double *m = malloc((size_t)n * sizeof *m), *t = malloc((size_t)n * sizeof *t);
    if (!m || !t) {
        free(m);
        free(t);
        return mb_error_set(err, MB_ENOMEM, "%s: out of memory for %d points", tpath, n);
    }
    int i = 0;
    cJSON_ArrayForEach(pt, pts)
    {
        m[i] = item_num(pt, 0), t[i] = item_num(pt, 1);
        i++;
    }
    mb_fit_tupdate f = {0};
    mb_error e2 = {0};
    int rc = mb_fit_knee((size_t)n, m, t, w, &f, &e2);
    free(m);
    free(t);
    static const char *const keys[] = {"gamma", "m_t", "delta"};
    if (rc != MB_OK)
        rc = mb_error_set(err, MB_EFORMAT, "%s: field '%spoints': they give no knee fit (%.200s): "
                          "the parameters are not theirs", tpath, where, e2.msg);
    for (int k = 0; rc == MB_OK && k < 3; k++) {
        const double v = mb_json_get(params, keys[k]);
        if (!isnan(v) && !same(v, f.knee.p[k], 1e-6))
            rc = mb_error_set(err, MB_EFORMAT, "%s: field '%sparams.%s': %.6g, but its points "
                              "fit to %.6g: the parameters are not the fit of its points", tpath,
                              where, keys[k], v, f.knee.p[k]);
    }
    mb_fit_tupdate_clear(&f);
    return rc;
}

int mb_plot_tfit_of_table(const cJSON *tfit, const char *tpath, const mb_table *tab,
                          mb_error *err)
{
    const cJSON *by = cJSON_GetObjectItemCaseSensitive(tfit, "by_learners");
    const int use_by = cJSON_IsArray(by) && cJSON_GetArraySize(by) > 0;
    const int n = use_by ? cJSON_GetArraySize(by) : 1;
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(tfit, "inputs");
    const cJSON *file = cJSON_GetObjectItemCaseSensitive(in, "file");
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(in, "weights");
    mb_fit_weighting wt = MB_FIT_W_RELATIVE;
    if (cJSON_IsString(w) && mb_fit_weighting_parse(w->valuestring, &wt) != MB_OK)
        return mb_error_set(err, MB_EFORMAT, "%s: field 'inputs.weights': '%.64s' is not none or "
                            "relative", tpath, w->valuestring);
    double least = INFINITY; /* a fit that names no learner count: the table's least */
    const long cl = mb_table_col(tab, "learners");
    for (size_t r = 0; cl >= 0 && r < mb_table_rows(tab); r++) {
        double l;
        if (mb_table_double(tab, r, (size_t)cl, &l, NULL) == MB_OK)
            least = fmin(least, l);
    }
    for (int k = 0; k < n; k++) {
        const cJSON *e = use_by ? cJSON_GetArrayItem(by, k) : tfit;
        double learners = mb_json_get(e, "learners");
        learners = isnan(learners) ? least : learners;
        /* a fit calibrated by runs: its points at the runs' M are theirs, the probe's apart */
        const char *key = cJSON_GetObjectItemCaseSensitive(e, "calibration") ? "probe_points"
                                                                              : "points";
        const cJSON *pt;
        int i = 0;
        cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(e, key))
        {
            const double x = item_num(pt, 0), t = item_num(pt, 1);
            if (!step_row(tab, learners, x, t)) {
                char where[64] = "";
                if (use_by)
                    snprintf(where, sizeof where, "by_learners[%d].", k);
                return mb_error_set(err, MB_EFORMAT, "%s: field '%s%s[%d]': M/P = %g timed %g s "
                                    "at %g learner%s is no row of %s: the fit is of another "
                                    "table%s%.200s%s", tpath, where, key, i, x, t, learners,
                                    learners == 1 ? "" : "s", mb_table_path(tab),
                                    cJSON_IsString(file) ? " (" : "",
                                    cJSON_IsString(file) ? file->valuestring : "",
                                    cJSON_IsString(file) ? ")" : "");
            }
            i++;
        }
        char where[64] = "";
        if (use_by)
            snprintf(where, sizeof where, "by_learners[%d].", k);
        int rc = tfit_refits(e, where, wt, tpath, err);
        if (rc != MB_OK)
            return rc;
    }
    return MB_OK;
}

int mb_plot_cfit_of_table(const cJSON *cfit, const char *cpath, const mb_table *tab,
                          mb_error *err)
{
    const char *comm_path = mb_table_path(tab);
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(cfit, "inputs");
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(in, "weights");
    const cJSON *file = cJSON_GetObjectItemCaseSensitive(in, "file");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(cfit, "params");
    mb_fit_weighting wt = MB_FIT_W_RELATIVE;
    if (!cJSON_IsObject(in)) /* parameters by hand: a model to draw, of no table */
        return MB_OK;
    if (cJSON_IsString(w) && mb_fit_weighting_parse(w->valuestring, &wt) != MB_OK)
        return mb_error_set(err, MB_EFORMAT, "%s: field 'inputs.weights': '%.64s' is not none or "
                            "relative", cpath, w->valuestring);
    mb_fit_comm c;
    mb_error e = {0};
    if (mb_fit_comm_of_table(tab, wt, &c, &e) != MB_OK) /* a table no ring fit is of */
        return mb_error_set(err, MB_EFORMAT, "%s: a ring fit, but %s gives none (%.200s): the "
                            "fit is of another table", cpath, comm_path, e.msg);
    static const char *const keys[] = {"latency_s", "s_per_byte"};
    int rc = MB_OK;
    for (int k = 0; rc == MB_OK && k < 2; k++) {
        const double v = mb_json_get(params, keys[k]);
        if (!isnan(v) && !same(v, c.ring.p[k], 1e-6))
            rc = mb_error_set(err, MB_EFORMAT, "%s: field 'params.%s': %.6g, but %s fits to "
                              "%.6g: the fit is of another table%s%.200s%s", cpath, keys[k], v,
                              comm_path, c.ring.p[k], cJSON_IsString(file) ? " (" : "",
                              cJSON_IsString(file) ? file->valuestring : "",
                              cJSON_IsString(file) ? ")" : "");
    }
    mb_fit_comm_free(&c);
    return rc;
}
