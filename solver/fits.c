/* fits.c — reads the model parameters that mbfit writes (docs/design.md, "Fits": an object whose
 * `params` maps parameter names to values) into the structs of mb_model.h.
 */
#include "mb_solver.h"
#include "../data/mb_json.h"
#include "../data/mb_format.h"
#include "../data/mb_parse.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A fit whose top-level "model" names another model than `want` is another fit's file: an nfit
 * given as --tfit, or a model name no mbfit writes. Absent: a hand-written file, taken as is. */
static int check_model(const cJSON *root, const char *path, const char *want, mb_error *err)
{
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(root, "model");
    if (!model || !want)
        return MB_OK;
    if (!cJSON_IsString(model) || strcmp(model->valuestring, want) != 0)
        return mb_error_set(err, MB_EFORMAT, "%s: 'model' is %s%s%s, not %s (is this the right "
                            "mbfit --json file?)", path, cJSON_IsString(model) ? "'" : "",
                            cJSON_IsString(model) ? model->valuestring : "not a string",
                            cJSON_IsString(model) ? "'" : "", want);
    return MB_OK;
}

/* Checks a fit's root (its format, its top-level model is `want`) and returns its `params`
 * object. */
static int root_params(const cJSON *root, const char *path, const char *want,
                       const cJSON **params, mb_error *err)
{
    int rc;
    if ((rc = mb_format_check_json(root, path, MB_FORMAT_FIT, err)) != MB_OK ||
        (rc = check_model(root, path, want, err)) != MB_OK)
        return rc;
    *params = cJSON_GetObjectItemCaseSensitive(root, "params");
    if (!cJSON_IsObject(*params))
        return mb_error_set(err, MB_EFORMAT, "%s: no 'params' object (is this an mbfit --json "
                            "file?)", path);
    return MB_OK;
}

/* The law of `kind` from an object holding its parameters by mbfit's names (model/). */
static int read_law_params(const cJSON *o, mb_law_kind kind, const char *path, mb_law *law,
                           mb_error *err)
{
    const char *names[3];
    double v[3] = {0};
    size_t n = mb_model_law_names(kind, names);
    for (size_t i = 0; i < n; i++) {
        int rc = mb_json_number(o, names[i], path, &v[i], err);
        if (rc != MB_OK)
            return rc;
    }
    *law = mb_model_law_from_params(kind, v);
    return MB_OK;
}

void mb_solver_law_json(cJSON *o, const mb_law *law)
{
    const char *names[3];
    double v[3];
    size_t n = mb_model_law_params(law, names, v);
    for (size_t i = 0; i < n; i++)
        mb_json_add_number(o, names[i], v[i]);
}

/* A law from a fit object {"model": NAME, "params": {...}}. */
static int read_law(const cJSON *fit, const char *path, const char *where, mb_law *law,
                    mb_error *err)
{
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(fit, "model");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(fit, "params");
    mb_law_kind kind;
    if (!cJSON_IsString(model) || mb_model_law_parse(model->valuestring, &kind) != MB_OK)
        return mb_error_set(err, MB_EFORMAT, "%s: %s.model is not " MB_MODEL_LAW_NAMES, path,
                            where);
    if (!cJSON_IsObject(params))
        return mb_error_set(err, MB_EFORMAT, "%s: %s has no 'params' object", path, where);
    int rc = read_law_params(params, kind, path, law, err);
    /* values no fit gives: n_inf <= 0 (N(M) falls to 0 at a finite M, where the time to the
     * target would be optimised: campaign 16, S2), the shifted law's pole below M = 0 or a
     * negative alpha, a power law's exponent <= 0 */
    if (rc == MB_OK && !(law->n_inf > 0))
        return mb_error_set(err, MB_EFORMAT, "%s: field '%s.params.n_inf': %g: the law needs "
                            "n_inf > 0", path, where, law->n_inf);
    if (rc == MB_OK && kind == MB_LAW_SHIFTED && !(law->m0 >= 0))
        return mb_error_set(err, MB_EFORMAT, "%s: field '%s.params.m_0': %g: the shifted law "
                            "needs m_0 >= 0", path, where, law->m0);
    if (rc == MB_OK && kind != MB_LAW_POWER && !(law->a >= 0))
        return mb_error_set(err, MB_EFORMAT, "%s: field '%s.params.alpha': %g: the law needs "
                            "alpha >= 0", path, where, law->a);
    if (rc == MB_OK && kind == MB_LAW_POWER && !(law->b > 0))
        return mb_error_set(err, MB_EFORMAT, "%s: field '%s.params.b': %g: the power law needs "
                            "b > 0", path, where, law->b);
    /* a < 0: fewer updates at smaller M, a law that rises with M (issue #25, L16) */
    if (rc == MB_OK && kind == MB_LAW_POWER && !(law->a >= 0))
        return mb_error_set(err, MB_EFORMAT, "%s: field '%s.params.a': %g: the power law needs "
                            "a >= 0", path, where, law->a);
    return rc;
}

/* The object `params` (named pwhere: the top-level params, or best.params) and the law object
 * `other` (best, laws.NAME, by_learners[P]) hold one fit: each of `keys` present in both as numbers must agree (to 1e-12: both written by
 * mbfit from one double), or MB_EFORMAT names the field, since only one of them is used (a
 * hand-edited file, changed in one place). */
static int params_agree(const cJSON *params, const char *pwhere, const cJSON *other,
                        const char *where, const char *const *keys, const char *path,
                        mb_error *err)
{
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(other, "params");
    for (size_t k = 0; cJSON_IsObject(params) && cJSON_IsObject(op) && keys[k]; k++) {
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(params, keys[k]);
        const cJSON *y = cJSON_GetObjectItemCaseSensitive(op, keys[k]);
        if (!cJSON_IsNumber(x) || !cJSON_IsNumber(y))
            continue;
        double a = x->valuedouble, b = y->valuedouble;
        if (!(fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b))))
            return mb_error_set(err, MB_EFORMAT, "%s: field '%s.%s': %.10g, but %s.params.%s "
                                "is %.10g: one fit written twice, edited in one place (edit "
                                "both)", path, pwhere, keys[k], a, where, keys[k], b);
    }
    return MB_OK;
}

/* An nfit's top-level params (the inverse law) against the copies of that law in 'best' (when
 * it is the inverse law) and in laws.inverse-law. */
static int nfit_params_agree(const cJSON *root, const char *path, mb_error *err)
{
    static const char *const keys[] = {"n_inf", "alpha", NULL};
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(root, "params");
    const cJSON *best = cJSON_GetObjectItemCaseSensitive(root, "best");
    const cJSON *bm = cJSON_GetObjectItemCaseSensitive(best, "model");
    int rc = MB_OK;
    if (cJSON_IsString(bm) && strcmp(bm->valuestring, "inverse-law") == 0)
        rc = params_agree(params, "params", best, "best", keys, path, err);
    const cJSON *inv = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "laws"),
                                                        "inverse-law");
    if (rc == MB_OK && inv)
        rc = params_agree(params, "params", inv, "laws.inverse-law", keys, path, err);
    /* a best of another law against that law's entry in `laws` */
    mb_law_kind kind;
    const cJSON *own = cJSON_IsString(bm) ? cJSON_GetObjectItemCaseSensitive(
                           cJSON_GetObjectItemCaseSensitive(root, "laws"), bm->valuestring)
                                          : NULL;
    if (rc == MB_OK && own && mb_model_law_parse(bm->valuestring, &kind) == MB_OK &&
        kind != MB_LAW_INVERSE) {
        const char *names[4] = {NULL, NULL, NULL, NULL}; /* NULL-ended for params_agree */
        mb_model_law_names(kind, names);
        char where[64];
        snprintf(where, sizeof where, "laws.%s", bm->valuestring);
        rc = params_agree(cJSON_GetObjectItemCaseSensitive(best, "params"), "best.params", own,
                          where, names, path, err);
    }
    return rc;
}

/* A number of `o` (named `where` `key` in messages) that must be present (need) or may be null
 * or absent (NAN), finite, and at least `lo` (above it when `strict`). */
static int x_number(const cJSON *o, const char *where, const char *key, int need, double lo,
                    int strict, const char *path, double *v, mb_error *err)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
    *v = NAN;
    if (!need && (!j || cJSON_IsNull(j)))
        return MB_OK;
    if (!cJSON_IsNumber(j) || !isfinite(j->valuedouble))
        return mb_error_set(err, MB_EFORMAT, "%s: field '%s%s': %s", path, where, key,
                            j ? "not a finite number" : "missing");
    *v = j->valuedouble;
    if (strict ? !(*v > lo) : !(*v >= lo))
        return mb_error_set(err, MB_EFORMAT, "%s: field '%s%s': %g is not %s %g", path, where,
                            key, *v, strict ? "above" : "at least", lo);
    return MB_OK;
}

/* An optional number: NAN when absent or null, an error when present and not a number. */
static int opt_number(const cJSON *o, const char *key, const char *path, double *v, mb_error *err)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
    *v = NAN;
    if (!j || cJSON_IsNull(j))
        return MB_OK;
    if (!cJSON_IsNumber(j) || !isfinite(j->valuedouble))
        return mb_error_set(err, MB_EFORMAT, "%s: '%s' is not a finite number", path, key);
    *v = j->valuedouble;
    return MB_OK;
}

/* bootstrap.best_law, the law of best_samples: absent only with no samples, and the law `best`
 * names (the inverse law without `best`), since the samples are resamples of it; one that
 * names no law, or another, would drop the spread without a word (issue #25, K5). *kind gets
 * the best law's kind. */
static int boot_law(const cJSON *root, const char *path, mb_law_kind *kind, mb_error *err)
{
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(root, "bootstrap");
    const cJSON *best = cJSON_GetObjectItemCaseSensitive(root, "best");
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(best, "model");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(b, "best_law");
    const cJSON *samples = cJSON_GetObjectItemCaseSensitive(b, "best_samples"),
                *by_seed = cJSON_GetObjectItemCaseSensitive(b, "best_samples_by_seed");
    mb_law_kind k;
    *kind = MB_LAW_INVERSE;
    if (best && (!cJSON_IsString(model) || mb_model_law_parse(model->valuestring, kind) != MB_OK))
        return mb_error_set(err, MB_EFORMAT, "%s: best.model is not " MB_MODEL_LAW_NAMES, path);
    if (!name && !samples && !by_seed)
        return MB_OK;
    if (!name)
        return mb_error_set(err, MB_EFORMAT, "%s: field 'bootstrap.best_law': missing beside "
                            "'bootstrap.%s' (the law they are resamples of)", path,
                            samples ? "best_samples" : "best_samples_by_seed");
    if (!cJSON_IsString(name) || mb_model_law_parse(name->valuestring, &k) != MB_OK)
        return mb_error_set(err, MB_EFORMAT, "%s: field 'bootstrap.best_law': %s%s%s is not a "
                            "law (" MB_MODEL_LAW_NAMES ")", path, cJSON_IsString(name) ? "'" : "",
                            cJSON_IsString(name) ? name->valuestring : "a value that",
                            cJSON_IsString(name) ? "'" : "");
    if (k != *kind)
        return mb_error_set(err, MB_EFORMAT, "%s: field 'bootstrap.best_law': '%s', but the best "
                            "law is the %s (%s): the samples are resamples of the best law",
                            path, name->valuestring, mb_model_law_name(*kind),
                            best ? "best.model" : "no 'best': the inverse law");
    if (samples && !cJSON_IsArray(samples))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'bootstrap.best_samples': not an array",
                            path);
    if (by_seed && !cJSON_IsArray(by_seed))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'bootstrap.best_samples_by_seed': not "
                            "an array", path);
    return MB_OK;
}

/* bootstrap[key] ([n_inf, a, b] each, laws of `kind`) into boot (*n, at most
 * MB_SOLVER_BOOT_MAX kept; every one checked). */
static int read_samples(const cJSON *b, const char *key, mb_law_kind kind, const char *path,
                        mb_law *boot, size_t *n, mb_error *err)
{
    const int shifted = kind == MB_LAW_SHIFTED;
    const cJSON *e;
    size_t i = 0;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(b, key))
    {
        const cJSON *x[3] = {cJSON_GetArrayItem(e, 0), cJSON_GetArrayItem(e, 1),
                             cJSON_GetArrayItem(e, 2)};
        /* [n_inf, a, b] with n_inf > 0, a >= 0, b > 0; the shifted law's is [n_inf, alpha,
         * m_0] with n_inf > 0, alpha, m_0 >= 0 (read_law's bounds) */
        if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != 3 || !cJSON_IsNumber(x[0]) ||
            !cJSON_IsNumber(x[1]) || !cJSON_IsNumber(x[2]) || !isfinite(x[0]->valuedouble) ||
            !(x[0]->valuedouble > 0) ||
            !isfinite(x[1]->valuedouble) || !(x[1]->valuedouble >= 0) ||
            !(shifted ? x[2]->valuedouble >= 0 && isfinite(x[2]->valuedouble)
                      : x[2]->valuedouble > 0 && isfinite(x[2]->valuedouble)) ||
            (kind == MB_LAW_INVERSE && x[2]->valuedouble != 1)) /* its b is 1 (campaign 18's M3) */
            return mb_error_set(err, MB_EFORMAT, "%s: field 'bootstrap.%s[%zu]': not %s", path,
                                key, i, shifted ? "3 numbers [n_inf, alpha, m_0] with "
                                "n_inf > 0, alpha >= 0 and m_0 >= 0" :
                                kind == MB_LAW_INVERSE ? "3 numbers [n_inf, a, 1] (the inverse law) "
                                "with n_inf > 0 and a >= 0" : "3 numbers [n_inf, a, b] "
                                "with n_inf > 0, a >= 0 and b > 0");
        const double v[3] = {x[0]->valuedouble, x[1]->valuedouble, x[2]->valuedouble};
        if (*n < MB_SOLVER_BOOT_MAX)
            boot[(*n)++] = mb_model_law_from_params(kind, v);
        i++;
    }
    return MB_OK;
}

/* The bootstrap resamples of the best law (bootstrap.best_samples: of the runs, the spread of
 * the answer; bootstrap.best_samples_by_seed: of whole seeds, the spread of T_C's level), when
 * it is the law mbopt optimises (not with --law naming another). */
static int read_boot(const cJSON *root, const char *path, mb_solver_nfit *f, mb_error *err)
{
    mb_law_kind kind;
    int rc = boot_law(root, path, &kind, err);
    f->n_boot = f->n_boot_seed = 0;
    if (rc != MB_OK || kind != f->law.kind)
        return rc;
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(root, "bootstrap");
    if ((rc = read_samples(b, "best_samples", kind, path, f->boot, &f->n_boot, err)) != MB_OK ||
        (rc = read_samples(b, "best_samples_by_seed", kind, path, f->boot_seed, &f->n_boot_seed,
                           err)) != MB_OK)
        return rc;
    /* how many seeds the seed resamples drew from: widens T_C's level interval for few */
    const cJSON *seeds = cJSON_GetObjectItemCaseSensitive(b, "seeds");
    f->boot_seeds = 0;
    if (seeds) {
        const double v = cJSON_IsNumber(seeds) ? seeds->valuedouble : NAN;
        if (!(v >= MB_FIT_BOOT_SEEDS_MIN && v <= 1e9 && v == floor(v)))
            return mb_error_set(err, MB_EFORMAT, "%s: field 'bootstrap.seeds': not a whole "
                                "number of seeds from %d", path, MB_FIT_BOOT_SEEDS_MIN);
        f->boot_seeds = (size_t)v;
    }
    return MB_OK;
}

/* inputs.seeds, the seeds of the runs fitted (campaign 31's N3): whole numbers, at most
 * MB_FIT_SEEDS_MAX, distinct and rising as mbfit writes them (campaign 36's R9); absent in
 * files from before it (none then). */
static int read_fit_seeds(const cJSON *root, const char *path, mb_solver_nfit *f, mb_error *err)
{
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(root, "inputs");
    const cJSON *a = cJSON_IsObject(in) ? cJSON_GetObjectItemCaseSensitive(in, "seeds") : NULL;
    f->n_fit_seeds = 0;
    if (!a)
        return MB_OK;
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) > MB_FIT_SEEDS_MAX)
        return mb_error_set(err, MB_EFORMAT, "%s: field 'inputs.seeds': not an array of at most "
                            "%d seeds", path, MB_FIT_SEEDS_MAX);
    const cJSON *e;
    cJSON_ArrayForEach(e, a)
    {
        const double v = cJSON_IsNumber(e) ? e->valuedouble : NAN;
        if (!(v >= 0 && v <= MB_DATA_RANGE_MAX && v == floor(v)))
            return mb_error_set(err, MB_EFORMAT, "%s: field 'inputs.seeds[%zu]': not a whole "
                                "seed from 0", path, f->n_fit_seeds);
        if (f->n_fit_seeds > 0 && !(v > f->fit_seeds[f->n_fit_seeds - 1]))
            return mb_error_set(err, MB_EFORMAT, "%s: field 'inputs.seeds[%zu]': %.0f after %.0f: "
                                "the seeds are distinct and rising", path, f->n_fit_seeds, v,
                                f->fit_seeds[f->n_fit_seeds - 1]);
        f->fit_seeds[f->n_fit_seeds++] = v;
    }
    return MB_OK;
}

int mb_solver_read_nfit(const char *path, const char *law, mb_solver_nfit *nf, mb_error *err)
{
    cJSON *root;
    int rc = mb_json_read(path, &root, err);
    if (rc != MB_OK)
        return rc;
    rc = mb_solver_parse_nfit(root, path, law, nf, err);
    cJSON_Delete(root);
    return rc;
}

/* The shifted law has no value at or below its M_0: a best law (and each of its resamples) whose
 * pole is not below the least M at which runs reached the target is no fit of those runs. */
static int pole_below_range(const mb_solver_nfit *f, const char *path, mb_error *err)
{
    if (f->law.kind != MB_LAW_SHIFTED || isnan(f->m_lo))
        return MB_OK;
    if (!(f->law.m0 < f->m_lo))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'best.params.m_0': %g is not below the "
                            "converged range's least M %g (the law has no value where runs "
                            "reached the target)", path, f->law.m0, f->m_lo);
    for (int by_seed = 0; by_seed <= 1; by_seed++) {
        const mb_law *boot = by_seed ? f->boot_seed : f->boot;
        for (size_t i = 0; i < (by_seed ? f->n_boot_seed : f->n_boot); i++)
            if (!(boot[i].m0 < f->m_lo) || !(boot[i].a >= 0))
                return mb_error_set(err, MB_EFORMAT, "%s: field 'bootstrap.%s[%zu]': alpha %g "
                                    "and m_0 %g: a shifted law needs alpha >= 0 and m_0 below "
                                    "the converged range's least M %g", path,
                                    by_seed ? "best_samples_by_seed" : "best_samples", i,
                                    boot[i].a, boot[i].m0, f->m_lo);
    }
    return MB_OK;
}

/* A fit's optional `net` and `data` (the workload: campaign 21, N4): strings, or absent or
 * null ("" then); another type is MB_EFORMAT naming the field. */
static int workload_from(const cJSON *root, const char *path, char *net, size_t n_net,
                         char *data, size_t n_data, mb_error *err)
{
    const char *const keys[2] = {"net", "data"};
    char *const dst[2] = {net, data};
    const size_t n[2] = {n_net, n_data};
    for (int k = 0; k < 2; k++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, keys[k]);
        dst[k][0] = '\0';
        if (v && !cJSON_IsNull(v) && !cJSON_IsString(v))
            return mb_error_set(err, MB_EFORMAT, "%s: field '%s': not a string", path, keys[k]);
        if (cJSON_IsString(v))
            snprintf(dst[k], n[k], "%s", v->valuestring);
    }
    return MB_OK;
}

int mb_solver_parse_nfit(const cJSON *root, const char *path, const char *law, mb_solver_nfit *nf,
                         mb_error *err)
{
    const cJSON *params;
    int rc = root_params(root, path, "inverse-law", &params, err);
    if (rc != MB_OK)
        return rc;
    mb_solver_nfit f = {.m_lo = NAN, .m_hi = NAN};
    mb_inverse_law inv;
    if ((rc = mb_json_number(params, "n_inf", path, &inv.n_inf, err)) != MB_OK ||
        (rc = mb_json_number(params, "alpha", path, &inv.alpha, err)) != MB_OK)
        return rc;
    /* the inverse law is in every nfit, chosen or not: a law no fit gives is a broken file */
    if (!(inv.n_inf > 0) || !(inv.alpha >= 0)) {
        rc = mb_error_set(err, MB_EFORMAT, "%s: params: n_inf %g and alpha %g: the inverse law "
                          "needs n_inf > 0 and alpha >= 0", path, inv.n_inf, inv.alpha);
        return rc;
    }
    if ((rc = mb_solver_fit_agrees(root, path, err)) != MB_OK)
        return rc;
    f.inverse = mb_model_law_inverse(&inv);
    f.law = f.inverse;
    snprintf(f.why, sizeof f.why, "the only law in the file");
    const cJSON *best = cJSON_GetObjectItemCaseSensitive(root, "best");
    if (law) {
        const cJSON *laws = cJSON_GetObjectItemCaseSensitive(root, "laws");
        const cJSON *one = cJSON_GetObjectItemCaseSensitive(laws, law);
        if (strcmp(law, "inverse-law") != 0 && !one) {
            rc = mb_error_set(err, MB_EFORMAT, "%s: no fit of the %s in 'laws' (too few batch "
                                               "sizes, or an older mbfit)", path, law);
            return rc;
        }
        char where[64];
        snprintf(where, sizeof where, "laws.%s", law);
        if (one && (rc = read_law(one, path, where, &f.law, err)) != MB_OK)
            return rc;
        snprintf(f.why, sizeof f.why, "asked for with --law %s", law);
    } else if (best) {
        if ((rc = read_law(best, path, "best", &f.law, err)) != MB_OK)
            return rc;
        const cJSON *why = cJSON_GetObjectItemCaseSensitive(best, "why");
        if (cJSON_IsString(why))
            snprintf(f.why, sizeof f.why, "%s", why->valuestring);
    }
    const cJSON *range = cJSON_GetObjectItemCaseSensitive(root, "converged_range");
    if (range) {
        const cJSON *lo = cJSON_GetArrayItem(range, 0), *hi = cJSON_GetArrayItem(range, 1);
        if (!cJSON_IsArray(range) || cJSON_GetArraySize(range) != 2 || !cJSON_IsNumber(lo) ||
            !cJSON_IsNumber(hi) || !(lo->valuedouble > 0) || !(hi->valuedouble >= lo->valuedouble)) {
            rc = mb_error_set(err, MB_EFORMAT, "%s: 'converged_range' is not [lo, hi] with "
                                               "0 < lo <= hi", path);
            return rc;
        }
        f.m_lo = lo->valuedouble;
        f.m_hi = hi->valuedouble;
        /* the least and largest M that reached the target: batch sizes, whole (issue #25, L16) */
        for (int i = 0; i < 2; i++) {
            double v = i ? f.m_hi : f.m_lo;
            if (v != floor(v) || v > MB_DATA_RANGE_MAX)
                return mb_error_set(err, MB_EFORMAT, "%s: field 'converged_range[%d]': %g is "
                                    "not a whole batch size", path, i, v);
        }
    }
    if ((rc = read_boot(root, path, &f, err)) != MB_OK ||
        (rc = read_fit_seeds(root, path, &f, err)) != MB_OK)
        return rc;
    if ((rc = opt_number(root, "diverged_max_batch", path, &f.m_diverged, err)) != MB_OK ||
        (rc = x_number(root, "", "target_loss", 0, 0, 1, path, &f.target_loss, err)) != MB_OK ||
        (rc = x_number(root, "", "lr", 0, 0, 1, path, &f.lr, err)) != MB_OK ||
        (rc = x_number(root, "", "procs", 0, 1, 0, path, &f.procs, err)) != MB_OK)
        return rc;
    if (!isnan(f.procs) && (f.procs != floor(f.procs) || f.procs > MB_DATA_RANGE_MAX))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'procs': %g is not a whole learner "
                            "count", path, f.procs);
    const cJSON *algo = cJSON_GetObjectItemCaseSensitive(root, "algo");
    if (algo && !cJSON_IsNull(algo) && !cJSON_IsString(algo))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'algo': not a string", path);
    if (cJSON_IsString(algo))
        snprintf(f.algo, sizeof f.algo, "%s", algo->valuestring);
    if ((rc = workload_from(root, path, f.net, sizeof f.net, f.data, sizeof f.data, err)) !=
        MB_OK)
        return rc;
    f.extrapolated = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "extrapolated"));
    if ((rc = pole_below_range(&f, path, err)) != MB_OK)
        return rc;
    *nf = f;
    return MB_OK;
}

/* The runs that calibrated a table, as a tfit or mbopt's JSON gives them: a whole count of at
 * least 1 and the whole batch sizes lo <= hi they span (`where` names the object). */
static int run_span_ok(const char *path, const char *where, const char *lo_key, double runs,
                       double lo, double hi, mb_error *err)
{
    if (!(runs >= 1 && runs <= 1e9 && runs == floor(runs)))
        return mb_error_set(err, MB_EFORMAT, "%s: field '%sruns': %g is not a whole count of "
                            "runs of at least 1", path, where, runs);
    if (!(lo >= 1 && lo <= hi && hi <= MB_DATA_RANGE_MAX && lo == floor(lo) && hi == floor(hi)))
        return mb_error_set(err, MB_EFORMAT, "%s: fields '%s%s_lo' and '%s_hi' (%g, %g): not "
                            "whole batch sizes with 1 <= lo <= hi", path, where, lo_key, lo_key,
                            lo, hi);
    return MB_OK;
}

/* A measured step table, field `key`: [[m, t], ...] with m ascending, whole and at most 2^53
 * (samples a learner) and t in (0, MB_FIT_MAX_SECONDS] (the bound of step tables and run logs:
 * campaign 16's S4, a probe point of 1e300 s printed a 300-digit percentage), into m[0..*n),
 * t[0..*n) (room for MB_MODEL_TABLE_MAX); fewer than 2 points (or none): *n = 0. */
static int read_points(const cJSON *pts, const char *key, const char *path, double *m,
                       double *t, size_t *n, mb_error *err)
{
    *n = 0;
    if (!pts || cJSON_IsNull(pts))
        return MB_OK;
    const cJSON *e;
    size_t k = 0;
    if (!cJSON_IsArray(pts) || cJSON_GetArraySize(pts) > MB_MODEL_TABLE_MAX)
        return mb_error_set(err, MB_EFORMAT, "%s: '%s' is not an array of at most %d [M, "
                                             "seconds] pairs", path, key, MB_MODEL_TABLE_MAX);
    cJSON_ArrayForEach(e, pts)
    {
        const cJSON *x = cJSON_GetArrayItem(e, 0), *v = cJSON_GetArrayItem(e, 1);
        if (!cJSON_IsArray(e) || !cJSON_IsNumber(x) || !cJSON_IsNumber(v) ||
            !(x->valuedouble >= 1 && x->valuedouble <= MB_DATA_RANGE_MAX) ||
            x->valuedouble != floor(x->valuedouble) || !(v->valuedouble > 0) ||
            !(v->valuedouble <= MB_FIT_MAX_SECONDS) || (k > 0 && !(x->valuedouble > m[k - 1])))
            return mb_error_set(err, MB_EFORMAT, "%s: field '%s[%zu]': not [M, seconds] with "
                                "M whole, ascending, in [1, 2^53] and seconds in (0, 1e9]",
                                path, key, k);
        m[k] = x->valuedouble;
        t[k++] = v->valuedouble;
    }
    *n = k >= 2 ? k : 0;
    return MB_OK;
}

/* The one-learner table of T_update. */
static int read_table(const cJSON *pts, const char *key, const char *path, mb_update_time *t,
                      mb_error *err)
{
    return read_points(pts, key, path, t->table_m, t->table_t, &t->n_table, err);
}

/* The measured step of each learner count P > 1 among `arr`'s objects ({learners, points}) into
 * t->by_p. A tfit's by_learners holds every count the probe timed, P = 1 among them: P = 1 is
 * skipped (counts below 1 or none mb_solver_fit_agrees refused), and those beyond
 * MB_MODEL_PTABLES. mbopt's own t_tables_by_p (`model` 1) holds only what it wrote: anything
 * else there is an error. `where` names the array in messages. */
static int read_tables_by_p(const cJSON *arr, const char *where, int model, const char *path,
                            mb_step_table *tables, size_t *n_tables, int probe, mb_error *err)
{
    const cJSON *e;
    *n_tables = 0;
    cJSON_ArrayForEach(e, arr)
    {
        double p = mb_json_get(e, "learners");
        /* one entry a learner count: which of two would the model take? (campaign 16's minor) */
        for (const cJSON *q = arr->child; q != e; q = q->next)
            if (mb_json_get(q, "learners") == p)
                return mb_error_set(err, MB_EFORMAT, "%s: %s: learners %g given twice", path,
                                    where, p);
        if (isfinite(p) && (p != floor(p) || p > MB_DATA_RANGE_MAX)) /* campaign 20's M4 */
            return mb_error_set(err, MB_EFORMAT, "%s: %s: learners %g: not a whole number of "
                                "learners", path, where, p);
        int bad = !(p > 1) || *n_tables == MB_MODEL_PTABLES;
        if (bad && model)
            return mb_error_set(err, MB_EFORMAT, "%s: %s: 'learners' must be > 1, at most %d "
                                "tables", path, where, MB_MODEL_PTABLES);
        if (bad)
            continue;
        /* a table that runs calibrated: theirs (mbopt's own JSON says so in runs, run_lo,
         * run_hi), or for `probe` the probe's own points it replaced */
        const cJSON *cal = cJSON_GetObjectItemCaseSensitive(e, "calibration");
        const char *name = probe && cal ? "probe_points" : "points";
        char key[96];
        snprintf(key, sizeof key, "%s[P = %g].%s", where, p, name);
        char span[96];
        snprintf(span, sizeof span, "%s[P = %g].", where, p);
        mb_step_table *s = &tables[*n_tables];
        memset(s, 0, sizeof *s);
        const cJSON *pts = cJSON_GetObjectItemCaseSensitive(e, name);
        if (!pts || cJSON_IsNull(pts) || (cJSON_IsArray(pts) && !cJSON_GetArraySize(pts)))
            /* a learner count with no step of its own was read as none, and P's T_update
             * became the model's (campaign 30's C2: M_opt at P = 2 36.7 -> 45.1) */
            return mb_error_set(err, MB_EFORMAT, "%s: field '%s': %s (each learner count "
                                "holds the step measured at it)", path, key,
                                !pts ? "missing" : cJSON_IsNull(pts) ? "null" : "empty");
        int rc = read_points(pts, key, path, s->m, s->t, &s->n, err);
        if (rc != MB_OK)
            return rc;
        const cJSON *src = model ? e : probe ? NULL : cal;
        if (src && cJSON_GetObjectItemCaseSensitive(src, "runs")) {
            if ((rc = mb_json_number(src, "runs", path, &s->runs, err)) != MB_OK ||
                (rc = mb_json_number(src, model ? "run_lo" : "m_lo", path, &s->run_lo,
                                     err)) != MB_OK ||
                (rc = mb_json_number(src, model ? "run_hi" : "m_hi", path, &s->run_hi,
                                     err)) != MB_OK ||
                (rc = run_span_ok(path, model ? span : "calibration.", model ? "run" : "m",
                                  s->runs, s->run_lo, s->run_hi, err)) != MB_OK)
                return rc;
        }
        if (s->n >= 2) {
            s->p = p;
            (*n_tables)++;
        }
    }
    return MB_OK;
}

/* The smallest learner count above 1 in a tupdate fit's by_learners, and its params. */
static const cJSON *first_multi_learner(const cJSON *root)
{
    const cJSON *by = cJSON_GetObjectItemCaseSensitive(root, "by_learners"), *e, *best = NULL;
    double best_p = INFINITY;
    cJSON_ArrayForEach(e, by)
    {
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(e, "learners");
        if (cJSON_IsNumber(l) && l->valuedouble > 1 && l->valuedouble < best_p) {
            best_p = l->valuedouble;
            best = e;
        }
    }
    return best ? cJSON_GetObjectItemCaseSensitive(best, "params") : NULL;
}

/* A tfit's top-level params against by_learners' entry for the same learner count (mbfit
 * writes the smallest count's fit in both places; the measured points beside it are what is
 * used, so an edit of one copy would be silently ignored). */
static int tfit_params_agree(const cJSON *root, const cJSON *params, double learners,
                             const char *path, mb_error *err)
{
    static const char *const keys[] = {"gamma", "m_t", "delta", NULL};
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(root, "by_learners"))
    {
        if (mb_json_get(e, "learners") != learners)
            continue;
        char where[64];
        snprintf(where, sizeof where, "by_learners[P = %g]", learners);
        return params_agree(params, "params", e, where, keys, path, err);
    }
    return MB_OK;
}

/* A tfit's 'learners', when present: a whole count >= 1. */
static int tfit_learners(const cJSON *learners, const char *path, mb_error *err)
{
    if (learners && (!cJSON_IsNumber(learners) || !(learners->valuedouble >= 1) ||
                     learners->valuedouble != floor(learners->valuedouble) ||
                     learners->valuedouble > MB_DATA_RANGE_MAX))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'learners': not a whole number >= 1",
                            path);
    return MB_OK;
}

/* extrapolated.per_m[].mean_at_levels, when present: the mean first crossing (updates, finite,
 * >= 0) at each level of `lv`, in its order; a lower level is crossed no sooner (a run under the
 * lower level is under the higher one), so the means do not fall as the level falls. */
static int x_means(const cJSON *e, const cJSON *lv, size_t n_levels, const char *where,
                   const char *path, mb_error *err)
{
    const cJSON *ml = cJSON_GetObjectItemCaseSensitive(e, "mean_at_levels"), *a, *b, *la, *lb;
    if (!ml || cJSON_IsNull(ml))
        return MB_OK;
    int ok = cJSON_IsArray(ml) && (size_t)cJSON_GetArraySize(ml) == n_levels;
    for (a = ok ? ml->child : NULL; a; a = a->next)
        ok &= cJSON_IsNumber(a) && isfinite(a->valuedouble) && a->valuedouble >= 0;
    if (!ok)
        return mb_error_set(err, MB_EFORMAT, "%s: field '%smean_at_levels': not an array of %zu "
                            "counts >= 0, one per level", path, where, n_levels);
    for (a = ml->child, la = lv->child; a; a = a->next, la = la->next)
        for (b = ml->child, lb = lv->child; b; b = b->next, lb = lb->next)
            if (lb->valuedouble < la->valuedouble && b->valuedouble < a->valuedouble)
                return mb_error_set(err, MB_EFORMAT, "%s: field '%smean_at_levels': %g updates "
                                    "to level %g but %g to the lower level %g: a lower level is "
                                    "not crossed sooner", path, where, a->valuedouble,
                                    la->valuedouble, b->valuedouble, lb->valuedouble);
    return MB_OK;
}

/* extrapolated.per_m: each M's prediction >= 0, its interval [lo, hi] in order and its means at
 * the levels (x_means). */
static int x_per_m(const cJSON *x, size_t n_levels, const char *path, mb_error *err)
{
    const cJSON *pm = cJSON_GetObjectItemCaseSensitive(x, "per_m"), *e;
    const cJSON *lv = cJSON_GetObjectItemCaseSensitive(x, "levels");
    if (pm && !cJSON_IsArray(pm))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'extrapolated.per_m': not an array",
                            path);
    int i = 0, rc = MB_OK;
    cJSON_ArrayForEach(e, pm)
    {
        char where[48];
        double v, m;
        snprintf(where, sizeof where, "extrapolated.per_m[%d].", i++);
        if ((rc = x_number(e, where, "batch", 1, 0, 1, path, &m, err)) != MB_OK)
            return rc;
        if (m != floor(m) || m > MB_DATA_RANGE_MAX) /* a mini-batch size (campaign 16's minor) */
            return mb_error_set(err, MB_EFORMAT, "%s: field '%sbatch': %g is not a whole batch "
                                "size", path, where, m);
        if ((rc = x_number(e, where, "predicted", 0, 0, 0, path, &v, err)) != MB_OK ||
            (rc = x_number(e, where, "runs", 0, 1, 0, path, &v, err)) != MB_OK ||
            (rc = x_means(e, lv, n_levels, where, path, err)) != MB_OK)
            return rc;
        if (isfinite(v) && (v != floor(v) || v > 1e9)) /* the runs at that M: a count */
            return mb_error_set(err, MB_EFORMAT, "%s: field '%sruns': %g is not a whole count",
                                path, where, v);
        const cJSON *ci = cJSON_GetObjectItemCaseSensitive(e, "ci95");
        if (!ci || cJSON_IsNull(ci))
            continue;
        const cJSON *lo = cJSON_GetArrayItem(ci, 0), *hi = cJSON_GetArrayItem(ci, 1);
        if (!cJSON_IsArray(ci) || cJSON_GetArraySize(ci) != 2 ||
            ((cJSON_IsNumber(lo) && cJSON_IsNumber(hi)) ? lo->valuedouble > hi->valuedouble
                                                        : !cJSON_IsNull(lo) || !cJSON_IsNull(hi)))
            return mb_error_set(err, MB_EFORMAT, "%s: field '%sci95': not [lo, hi] with lo <= "
                                "hi", path, where);
    }
    return MB_OK;
}

/* extrapolated.levels: MB_FIT_LEVELS_MIN to MB_FIT_LEVELS_CAP distinct losses, finite, the
 * lowest of them l1 (mbfit refuses a level given twice and takes L1 as the lowest level);
 * their count in *n. The order is the user's (--levels), not checked. */
static int x_levels(const cJSON *x, double l1, const char *path, size_t *n, mb_error *err)
{
    const cJSON *lv = cJSON_GetObjectItemCaseSensitive(x, "levels"), *e, *f;
    int size = cJSON_IsArray(lv) ? cJSON_GetArraySize(lv) : 0;
    if (size < MB_FIT_LEVELS_MIN || size > MB_FIT_LEVELS_CAP)
        return mb_error_set(err, MB_EFORMAT, "%s: field 'extrapolated.levels': not an array of "
                            "%d to %d levels", path, MB_FIT_LEVELS_MIN, MB_FIT_LEVELS_CAP);
    int i = 0, lowest = 0;
    cJSON_ArrayForEach(e, lv)
    {
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || e->valuedouble < l1)
            return mb_error_set(err, MB_EFORMAT, "%s: field 'extrapolated.levels[%d]': not a "
                                "loss at or above l1 %g", path, i, l1);
        lowest |= e->valuedouble == l1;
        for (f = lv->child; f != e; f = f->next)
            if (f->valuedouble == e->valuedouble)
                return mb_error_set(err, MB_EFORMAT, "%s: field 'extrapolated.levels[%d]': %g "
                                    "given twice", path, i, e->valuedouble);
        i++;
    }
    if (!lowest)
        return mb_error_set(err, MB_EFORMAT, "%s: field 'extrapolated.l1': %g is not the lowest "
                            "of extrapolated.levels", path, l1);
    *n = (size_t)size;
    return MB_OK;
}

/* extrapolated.floor: the floor form's fitted loss floor L_f, a finite number below
 * target_loss (mbfit refuses a target at or under it; L_f may be fitted below 0); null or
 * absent for the other forms. */
static int x_floor(const cJSON *x, mb_fit_levels_form form, double target, const char *path,
                   mb_error *err)
{
    const cJSON *fl = cJSON_GetObjectItemCaseSensitive(x, "floor");
    if (form != MB_FIT_LEVELS_FLOOR) {
        if (fl && !cJSON_IsNull(fl))
            return mb_error_set(err, MB_EFORMAT, "%s: field 'extrapolated.floor': not null, but "
                                "the form is %s, which has no floor", path,
                                mb_fit_levels_form_name(form));
        return MB_OK;
    }
    if (!cJSON_IsNumber(fl) || !isfinite(fl->valuedouble))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'extrapolated.floor': %s", path,
                            fl ? "not a finite number" : "missing (the floor form fits one)");
    if (!(fl->valuedouble < target))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'extrapolated.floor': %g is not below "
                            "target_loss %g: a target at or under the floor is never reached",
                            path, fl->valuedouble, target);
    return MB_OK;
}

/* extrapolated.per_level, when present: one inverse-law fit per level, in the levels' order,
 * each an object whose `level` is that level and whose params n_inf and alpha are finite (they
 * may be fitted negative). */
static int x_per_level(const cJSON *x, size_t n_levels, const char *path, mb_error *err)
{
    const cJSON *pl = cJSON_GetObjectItemCaseSensitive(x, "per_level"), *e;
    if (!pl || cJSON_IsNull(pl))
        return MB_OK;
    if (!cJSON_IsArray(pl) || (size_t)cJSON_GetArraySize(pl) != n_levels)
        return mb_error_set(err, MB_EFORMAT, "%s: field 'extrapolated.per_level': not an array "
                            "of %zu fits, one per level", path, n_levels);
    const cJSON *lv = cJSON_GetObjectItemCaseSensitive(x, "levels")->child;
    int i = 0, rc;
    cJSON_ArrayForEach(e, pl)
    {
        char where[48];
        double v;
        snprintf(where, sizeof where, "extrapolated.per_level[%d].", i);
        const cJSON *level = cJSON_GetObjectItemCaseSensitive(e, "level");
        if (!cJSON_IsObject(e) || !cJSON_IsNumber(level) ||
            level->valuedouble != lv->valuedouble)
            return mb_error_set(err, MB_EFORMAT, "%s: field '%slevel': not extrapolated.levels"
                                "[%d], %g", path, where, i, lv->valuedouble);
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(e, "params");
        strcat(where, "params.");
        if ((rc = x_number(p, where, "n_inf", 1, -HUGE_VAL, 0, path, &v, err)) != MB_OK ||
            (rc = x_number(p, where, "alpha", 1, -HUGE_VAL, 0, path, &v, err)) != MB_OK)
            return rc;
        lv = lv->next;
        i++;
    }
    return MB_OK;
}

/* The `extrapolated` object of an nfit (mbfit nupdate --extrapolate, docs/formats.md): a form
 * mbfit knows, L1 above the target, the levels (x_levels), the law's exponent p > 0, B_noise
 * >= 0, the floor (x_floor), the per-level fits (x_per_level), per M predictions; and
 * `bootstrap`, when there, an object with whole counts. Values its writer cannot produce are
 * MB_EFORMAT naming the field (issue #25, G11). */
static int extrapolated_ok(const cJSON *root, const char *path, mb_error *err)
{
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(root, "bootstrap");
    double v, r = NAN, target, l1, fitted = NAN;
    int rc = MB_OK;
    if (b && !cJSON_IsNull(b) &&
        (!cJSON_IsObject(b) ||
         (rc = x_number(b, "bootstrap.", "resamples", 1, 0, 0, path, &r, err)) != MB_OK ||
         (rc = x_number(b, "bootstrap.", "fitted", 0, 0, 0, path, &fitted, err)) != MB_OK ||
         r != floor(r) || (isfinite(fitted) && (fitted != floor(fitted) || fitted > r))))
        return rc ? rc : mb_error_set(err, MB_EFORMAT, "%s: field 'bootstrap': not an object of "
                                      "whole counts (fitted <= resamples)", path);
    /* a law a resample at most (campaign 18's M4: a non-extrapolated fit's lists went
     * unchecked against its counts) */
    static const char *const lists[] = {"best_samples", "best_samples_by_seed"};
    for (int i = 0; b && cJSON_IsObject(b) && isfinite(r) && i < 2; i++) {
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(b, lists[i]);
        if (cJSON_IsArray(l) && (double)cJSON_GetArraySize(l) > r)
            return mb_error_set(err, MB_EFORMAT, "%s: field 'bootstrap.%s': %d laws, more than "
                                "the %g resamples (bootstrap.resamples)", path, lists[i],
                                cJSON_GetArraySize(l), r);
    }
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(root, "extrapolated");
    if (!x)
        return MB_OK;
    if (!cJSON_IsObject(x))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'extrapolated': not an object", path);
    /* an extrapolated fit keeps the law of every resample it fitted (fit/levels.c): as many
     * best_samples as `fitted` says (campaign 16's minor: 0 beside 169 samples was taken) */
    const cJSON *bs = cJSON_GetObjectItemCaseSensitive(b, "best_samples");
    if (isfinite(fitted) && cJSON_IsArray(bs) && (double)cJSON_GetArraySize(bs) != fitted)
        return mb_error_set(err, MB_EFORMAT, "%s: field 'bootstrap.fitted': %g, but "
                            "'bootstrap.best_samples' holds %d resamples (an extrapolated fit "
                            "keeps every one it fitted)", path, fitted, cJSON_GetArraySize(bs));
    const cJSON *form = cJSON_GetObjectItemCaseSensitive(x, "form");
    mb_fit_levels_form f;
    if (!cJSON_IsString(form) || mb_fit_levels_form_parse(form->valuestring, &f) != MB_OK ||
        f == MB_FIT_LEVELS_AUTO)
        return mb_error_set(err, MB_EFORMAT, "%s: field 'extrapolated.form': not separable, "
                            "noise, per-level, floor or shifted (the form fitted)", path);
    if ((rc = x_number(root, "", "target_loss", 1, 0, 1, path, &target, err)) != MB_OK ||
        (rc = x_number(x, "extrapolated.", "l1", 1, 0, 1, path, &l1, err)) != MB_OK)
        return rc;
    if (!(l1 > target))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'extrapolated.l1': %g is not above "
                            "target_loss %g: nothing was extrapolated", path, l1, target);
    size_t n_levels = 0;
    const cJSON *fp = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(x, "fit"), "params");
    if ((rc = x_levels(x, l1, path, &n_levels, err)) != MB_OK ||
        (rc = x_number(fp, "extrapolated.fit.params.", "p", 0, 0, 1, path, &v, err)) != MB_OK ||
        (rc = x_number(x, "extrapolated.", "b_noise", 0, 0, 0, path, &v, err)) != MB_OK ||
        (rc = x_number(x, "extrapolated.", "b_noise_l1", 0, 0, 0, path, &v, err)) != MB_OK ||
        (rc = x_floor(x, f, target, path, err)) != MB_OK ||
        (rc = x_per_level(x, n_levels, path, err)) != MB_OK)
        return rc;
    return x_per_m(x, n_levels, path, err);
}

/* A tfit's `delta` where mbfit tupdate writes one (a fit with `learners`: its own params and
 * each by_learners entry's): t0 or a P > 1 intercept, required (campaign 29's B2: without it the
 * whole step-table fit was read as a parameter file, t0 = 0 and its tables dropped); and
 * by_learners, when there, an array of objects each with a learner count >= 1 (B3: a count of
 * 0, -2 or none, or a by_learners of another type, was skipped). That the counts are whole and
 * each given once, read_tables_by_p checks as it reads them. */
static int tfit_shape(const cJSON *root, const cJSON *learners, const char *path, mb_error *err)
{
    double v;
    int rc = learners ? x_number(cJSON_GetObjectItemCaseSensitive(root, "params"), "params.",
                                 "delta", 1, -HUGE_VAL, 0, path, &v, err)
                      : MB_OK;
    const cJSON *by = cJSON_GetObjectItemCaseSensitive(root, "by_learners"), *e;
    if (rc != MB_OK || !by)
        return rc;
    if (!cJSON_IsArray(by))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'by_learners': not an array (one fit "
                            "object per learner count)", path);
    int i = 0;
    cJSON_ArrayForEach(e, by)
    {
        char where[48];
        snprintf(where, sizeof where, "by_learners[%d].", i++);
        if (!cJSON_IsObject(e))
            return mb_error_set(err, MB_EFORMAT, "%s: field 'by_learners[%d]': not an object (a "
                                "fit of one learner count)", path, i - 1);
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(e, "learners");
        if (!cJSON_IsNumber(l))
            return mb_error_set(err, MB_EFORMAT, "%s: field '%slearners': %s", path, where,
                                l ? "not a number" : "missing");
        if (!(l->valuedouble >= 1))
            return mb_error_set(err, MB_EFORMAT, "%s: field '%slearners': %g is not a whole "
                                "number >= 1", path, where, l->valuedouble);
        strcat(where, "params.");
        if ((rc = x_number(cJSON_GetObjectItemCaseSensitive(e, "params"), where, "delta", 1,
                           -HUGE_VAL, 0, path, &v, err)) != MB_OK)
            return rc;
    }
    return MB_OK;
}

int mb_solver_fit_agrees(const cJSON *root, const char *path, mb_error *err)
{
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(root, "model");
    if (!cJSON_IsString(model))
        return MB_OK;
    if (strcmp(model->valuestring, "inverse-law") == 0) {
        int rc = nfit_params_agree(root, path, err);
        return rc == MB_OK ? extrapolated_ok(root, path, err) : rc;
    }
    if (strcmp(model->valuestring, "update-time") != 0)
        return MB_OK;
    const cJSON *learners = cJSON_GetObjectItemCaseSensitive(root, "learners");
    int rc = tfit_learners(learners, path, err);
    if (rc == MB_OK)
        rc = tfit_shape(root, learners, path, err);
    if (rc == MB_OK && learners)
        rc = tfit_params_agree(root, cJSON_GetObjectItemCaseSensitive(root, "params"),
                               learners->valuedouble, path, err);
    return rc;
}

/* T_update from a tfit's JSON root (mb_solver_read_tfit). */
static int tfit_from(const cJSON *root, const char *path, mb_update_time *t, int *has_delta,
                     mb_error *err)
{
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(root, "params");
    int rc = mb_format_check_json(root, path, MB_FORMAT_FIT, err); /* a fit, not another kind */
    if (rc == MB_OK)
        rc = check_model(root, path, "update-time", err);
    if (rc != MB_OK)
        return rc;
    if (!cJSON_IsObject(params))
        return mb_error_set(err, MB_EFORMAT, "%s: no 'params' object (is this an mbfit --json "
                            "file?)", path);
    double gamma, m_t, delta = 0.0;
    *has_delta = 0;
    if ((rc = mb_json_number(params, "gamma", path, &gamma, err)) == MB_OK &&
        (rc = mb_json_number(params, "m_t", path, &m_t, err)) == MB_OK &&
        (gamma > 0 && m_t > 0 && m_t <= MB_DATA_RANGE_MAX
             ? MB_OK /* the knee model's: a time per sample, a knee (a mini-batch size) */
             : (rc = mb_error_set(err, MB_EFORMAT, "%s: params: gamma %g and m_t %g: both must "
                                  "be > 0, m_t at most 2^53", path, gamma, m_t))) == MB_OK &&
        (rc = mb_solver_fit_agrees(root, path, err)) == MB_OK &&
        /* an mbfit tupdate file holds its delta (fit_agrees: t0 beside `learners`); a
         * parameter file without `learners` may leave it out (no communication given) */
        cJSON_GetObjectItemCaseSensitive(params, "delta") &&
        (rc = mb_json_number(params, "delta", path, &delta, err)) == MB_OK) {
        const cJSON *learners = cJSON_GetObjectItemCaseSensitive(root, "learners");
        if (!learners) {
            *has_delta = 1; /* a plain parameter file: delta is the communication time */
        } else if (cJSON_IsNumber(learners) && learners->valuedouble == 1) {
            t->t0 = fmax(0.0, delta); /* one learner's intercept: the fixed cost of an update */
            if ((rc = read_table(cJSON_GetObjectItemCaseSensitive(root, "points"), "points", path,
                                 t, err)) != MB_OK)
                goto done;
            if ((rc = read_tables_by_p(cJSON_GetObjectItemCaseSensitive(root, "by_learners"),
                                       "by_learners", 0, path, t->by_p, &t->n_by_p, 0,
                                       err)) != MB_OK)
                goto done;
            const cJSON *multi = first_multi_learner(root);
            double d_multi;
            /* the P > 1 intercept less P = 1's is communication only when the P > 1 step is
             * not itself measured: a measured table of P learners side by side holds what
             * sharing the host costs, and Delta(P) must come from elsewhere */
            if (multi && t->n_by_p == 0 &&
                (rc = mb_json_number(multi, "delta", path, &d_multi, err)) == MB_OK) {
                delta = fmax(0.0, d_multi - delta);
                *has_delta = 1;
            }
        }
    }
done:
    if (rc == MB_OK) {
        t->gamma = gamma;
        t->m_t = m_t;
        if (*has_delta)
            t->delta = delta;
    }
    return rc;
}

int mb_solver_read_tfit(const char *path, mb_update_time *t, int *has_delta, mb_error *err)
{
    cJSON *root;
    int rc = mb_json_read(path, &root, err);
    if (rc == MB_OK)
        rc = tfit_from(root, path, t, has_delta, err);
    cJSON_Delete(root);
    return rc;
}

/* The calibration from a tfit's JSON root (mb_solver_read_tcal). */
static int tcal_from(const cJSON *root, const char *path, mb_solver_tcal *c, mb_error *err)
{
    memset(c, 0, sizeof *c);
    int rc = workload_from(root, path, c->net, sizeof c->net, c->data, sizeof c->data, err);
    if (rc != MB_OK)
        return rc;
    const cJSON *cal = cJSON_GetObjectItemCaseSensitive(root, "calibration");
    if (cal) {
        if (!cJSON_IsObject(cal))
            rc = mb_error_set(err, MB_EFORMAT, "%s: 'calibration' is not an object", path);
        if (rc == MB_OK && (rc = mb_json_number(cal, "runs", path, &c->runs, err)) == MB_OK &&
            (rc = mb_json_number(cal, "m_lo", path, &c->m_lo, err)) == MB_OK &&
            (rc = mb_json_number(cal, "m_hi", path, &c->m_hi, err)) == MB_OK &&
            (rc = mb_json_number(cal, "scale_below", path, &c->scale_below, err)) == MB_OK &&
            (rc = mb_json_number(cal, "scale_above", path, &c->scale_above, err)) == MB_OK &&
            (rc = run_span_ok(path, "calibration.", "m", c->runs, c->m_lo, c->m_hi, err)) == MB_OK &&
            !(c->scale_below >= 1 / MB_FIT_CAL_SCALE_MAX && c->scale_above >= 1 / MB_FIT_CAL_SCALE_MAX &&
              c->scale_below <= MB_FIT_CAL_SCALE_MAX && c->scale_above <= MB_FIT_CAL_SCALE_MAX))
            rc = mb_error_set(err, MB_EFORMAT, "%s: fields 'calibration.scale_below' and "
                              "'scale_above' (%g, %g): not factors in [%g, %g], what a "
                              "calibration by runs gives", path, c->scale_below, c->scale_above,
                              1 / MB_FIT_CAL_SCALE_MAX, MB_FIT_CAL_SCALE_MAX);
        if (rc == MB_OK && cal)
            rc = read_points(cJSON_GetObjectItemCaseSensitive(root, "probe_points"),
                             "probe_points", path, c->probe_m, c->probe_t, &c->n_probe, err);
        if (rc == MB_OK && c->n_probe < 2)
            rc = mb_error_set(err, MB_EFORMAT, "%s: a calibrated fit without 'probe_points' "
                              "(2 or more)", path);
        if (rc == MB_OK)
            rc = read_tables_by_p(cJSON_GetObjectItemCaseSensitive(root, "by_learners"),
                                  "by_learners", 0, path, c->probe_by_p, &c->n_probe_by_p, 1,
                                  err);
        c->on = rc == MB_OK;
    }
    return rc;
}

int mb_solver_read_tcal(const char *path, mb_solver_tcal *c, mb_error *err)
{
    memset(c, 0, sizeof *c);
    cJSON *root;
    int rc = mb_json_read(path, &root, err);
    if (rc == MB_OK)
        rc = mb_solver_fit_agrees(root, path, err); /* as mb_solver_read_tfit_cal's tfit_from */
    if (rc == MB_OK)
        rc = tcal_from(root, path, c, err);
    cJSON_Delete(root);
    return rc;
}

int mb_solver_read_tfit_cal(const char *path, mb_update_time *t, int *has_delta,
                            mb_solver_tcal *c, mb_error *err)
{
    cJSON *root;
    memset(c, 0, sizeof *c);
    int rc = mb_json_read(path, &root, err);
    if (rc == MB_OK)
        rc = tfit_from(root, path, t, has_delta, err);
    if (rc == MB_OK)
        rc = tcal_from(root, path, c, err);
    cJSON_Delete(root);
    return rc;
}

void mb_solver_tcal_probe(const mb_solver_tcal *c, const mb_update_time *t,
                          mb_update_time *probe)
{
    *probe = *t;
    probe->n_table = c->n_probe;
    memcpy(probe->table_m, c->probe_m, sizeof probe->table_m);
    memcpy(probe->table_t, c->probe_t, sizeof probe->table_t);
    if (c->n_probe_by_p == t->n_by_p) /* read from the same by_learners, in the same order */
        memcpy(probe->by_p, c->probe_by_p, sizeof probe->by_p);
}

int mb_solver_read_cfit(const char *path, mb_update_time *t, mb_error *err)
{
    cJSON *root;
    int rc = mb_json_read(path, &root, err);
    if (rc != MB_OK)
        return rc;
    rc = mb_solver_parse_cfit(root, path, t, err);
    cJSON_Delete(root);
    return rc;
}

int mb_solver_parse_cfit(const cJSON *root, const char *path, mb_update_time *t, mb_error *err)
{
    const cJSON *params;
    int rc = root_params(root, path, "alpha-beta-ring", &params, err);
    if (rc != MB_OK)
        return rc;
    double a, b;
    if ((rc = mb_json_number(params, "latency_s", path, &a, err)) == MB_OK &&
        (rc = mb_json_number(params, "s_per_byte", path, &b, err)) == MB_OK &&
        !(a >= 0 && b >= 0)) /* named here: mbopt checks the model it builds from several files */
        rc = mb_error_set(err, MB_EFORMAT, "%s: field 'params.%s': must be >= 0, got %g", path,
                          a >= 0 ? "s_per_byte" : "latency_s", a >= 0 ? b : a);
    if (rc == MB_OK) {
        t->latency_s = a;
        t->s_per_byte = b;
    }
    return rc;
}

/* mbopt scale --json's model.delta_by_procs (Delta(P) measured per P, mbopt --delta P:S,...):
 * [{procs, delta}], optional; into t->pdelta. */
static int read_delta_by_procs(const cJSON *a, const char *path, mb_update_time *t,
                               mb_error *err)
{
    t->n_pdelta = 0;
    if (!a)
        return MB_OK;
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) > MB_MODEL_PDELTAS)
        return mb_error_set(err, MB_EFORMAT, "%s: model.delta_by_procs is not an array of at "
                            "most %d {procs, delta}", path, MB_MODEL_PDELTAS);
    const cJSON *o;
    cJSON_ArrayForEach(o, a) {
        double p, d;
        int rc;
        if ((rc = mb_json_number(o, "procs", path, &p, err)) != MB_OK ||
            (rc = mb_json_number(o, "delta", path, &d, err)) != MB_OK)
            return rc;
        if (!(p > 1 && p == floor(p)) || !(d >= 0 && isfinite(d)))
            return mb_error_set(err, MB_EFORMAT, "%s: model.delta_by_procs: procs %g, delta %g: "
                                "want a whole P > 1 and seconds >= 0", path, p, d);
        t->pdelta_p[t->n_pdelta] = p;
        t->pdelta[t->n_pdelta++] = d;
    }
    return MB_OK;
}

int mb_solver_read_model(const cJSON *model, const char *path, mb_law *law, mb_update_time *t,
                         double range[2], mb_error *err)
{
    if (!cJSON_IsObject(model))
        return mb_error_set(err, MB_EFORMAT, "%s: no 'model' object (is this mbopt scale --json?)",
                            path);
    mb_law l;
    mb_law_kind kind = MB_LAW_INVERSE;
    mb_update_time u = {0};
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(model, "law");
    if (name && (!cJSON_IsString(name) || mb_model_law_parse(name->valuestring, &kind) != MB_OK))
        return mb_error_set(err, MB_EFORMAT, "%s: model.law is not " MB_MODEL_LAW_NAMES, path);
    int rc;
    if ((rc = read_law_params(model, kind, path, &l, err)) != MB_OK ||
        (rc = mb_json_number(model, "gamma", path, &u.gamma, err)) != MB_OK ||
        (rc = mb_json_number(model, "m_t", path, &u.m_t, err)) != MB_OK ||
        (rc = opt_number(model, "t0", path, &u.t0, err)) != MB_OK)
        return rc;
    if (isnan(u.t0))
        u.t0 = 0.0;
    if ((rc = read_table(cJSON_GetObjectItemCaseSensitive(model, "t_table"), "t_table", path, &u,
                         err)) != MB_OK)
        return rc;
    if ((rc = read_tables_by_p(cJSON_GetObjectItemCaseSensitive(model, "t_tables_by_p"),
                               "model.t_tables_by_p", 1, path, u.by_p, &u.n_by_p, 0,
                               err)) != MB_OK)
        return rc;
    double lo = NAN, hi = NAN;
    if ((rc = opt_number(model, "m_lo", path, &lo, err)) != MB_OK ||
        (rc = opt_number(model, "m_hi", path, &hi, err)) != MB_OK)
        return rc;
    if (!(isnan(lo) || lo > 0) || !(isnan(hi) || hi > 0) || lo > hi) /* campaign 21's N10 */
        return mb_error_set(err, MB_EFORMAT, "%s: fields 'model.m_lo' and 'model.m_hi' (%g, %g): "
                            "not a range of M, 0 < lo <= hi", path, lo, hi);
    const cJSON *comm = cJSON_GetObjectItemCaseSensitive(model, "comm");
    if (!cJSON_IsString(comm) || mb_model_comm_parse(comm->valuestring, &u.comm) != MB_OK)
        return mb_error_set(err, MB_EFORMAT, "%s: 'comm' is not one of none, allreduce, ps, "
                                             "alpha-beta", path);
    if (u.comm == MB_COMM_ALLREDUCE || u.comm == MB_COMM_PS) {
        rc = mb_json_number(model, "delta", path, &u.delta, err);
        if (rc == MB_OK)
            rc = read_delta_by_procs(cJSON_GetObjectItemCaseSensitive(model, "delta_by_procs"),
                                     path, &u, err);
    } else if (u.comm == MB_COMM_ALPHA_BETA &&
             ((rc = mb_json_number(model, "latency_s", path, &u.latency_s, err)) != MB_OK ||
              (rc = mb_json_number(model, "s_per_byte", path, &u.s_per_byte, err)) != MB_OK))
        return rc;
    else if (u.comm == MB_COMM_ALPHA_BETA)
        rc = mb_json_number(model, "bytes", path, &u.bytes, err);
    if (rc != MB_OK)
        return rc;
    if ((rc = mb_solver_check_models_in(&l, &u, path, "model.", err)) != MB_OK)
        return rc;
    *law = l;
    *t = u;
    if (range)
        range[0] = lo, range[1] = hi;
    return MB_OK;
}
