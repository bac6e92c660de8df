/* insample.c — the in-sample side of validate.json (mbopt validate's table of the runs that
 * chose the answer) held to its own rows, as holdout.c holds the held-out object to its: every
 * summary the report's validation paragraph and table print is recomputed from the rows as
 * mbopt computes it (solver/validate.c, mb_solver_validate) or checked against them (campaign
 * 38's F2: an in_sample_ratio of 0.5, a measured best of M = 512 and a row's error of +500%
 * beside its own two times were printed as written).
 *
 * Recomputed: each row's rel_err (t_pred_s / t_train_median_s - 1) and t_update_rel_err
 * (t_update_pred_s / t_update_run_s - 1); the measured best (the least median among the rows
 * where most runs reached the target and none diverged) and its median; the recommendation's
 * median (its batch_run row's); in_sample_ratio (the one over the other); median_abs_rel_err and
 * t_update_median_abs_rel_err (medians over the rows at the recommended P). Checked: the model's
 * flat range (flat_pred) holds the model's optimum it is the range of.
 *
 * What it does not do: check a field's range or type (validate.c, before this), or the
 * held-out object (holdout.c).
 */
#include "plot_impl.h"
#include "../data/mb_json.h"
#include "../solver/mb_solver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A row's error field `key` (rel_err, t_update_rel_err) is its prediction `pk` over its
 * measurement `mk`, less 1 (where given: null is no figure). */
static int row_error(const cJSON *r, int i, const char *key, const char *pk, const char *mk,
                     const char *path, mb_error *err)
{
    const double e = mb_json_get(r, key), pred = mb_json_get(r, pk), meas = mb_json_get(r, mk);
    if (!isfinite(e) || (isfinite(pred) && isfinite(meas) && meas > 0 &&
                         mb_plot_same_figure(pred, meas * (1 + e))))
        return MB_OK;
    if (!(isfinite(pred) && isfinite(meas) && meas > 0))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'rows[%d].%s': %g, but the row has no "
                            "%s and %s to give it", path, i, key, e, pk, mk);
    return mb_error_set(err, MB_EFORMAT, "%s: field 'rows[%d].%s': %g, but the row's %s over "
                        "%s gives %.4g", path, i, key, e, pk, mk, pred / meas - 1);
}

/* Whether row r is of point o's setting: M o[batch_key], and o's lr and P where o gives them. */
static int of_point(const cJSON *r, const cJSON *o, const char *batch_key)
{
    const double lr = mb_json_get(o, "lr"), p = mb_json_get(o, "procs");
    return mb_json_get(r, "batch") == mb_json_get(o, batch_key) &&
           (isnan(lr) || mb_solver_same_rate(mb_json_get(r, "lr"), lr)) && (isnan(p) || mb_json_get(r, "procs") == p);
}

/* A summary `key` of root (`where` + key names it) against its recomputed value `want` (NaN:
 * none): absent passes (an older or hand-written file), null where a value is due, a value where
 * none is or another value does not. */
static int summary(const cJSON *o, const char *where, const char *key, double want,
                   int (*same)(double, double), const char *why, const char *path,
                   mb_error *err)
{
    if (!cJSON_GetObjectItemCaseSensitive(o, key))
        return MB_OK;
    const double got = mb_json_get(o, key);
    if (isnan(got) && isnan(want))
        return MB_OK;
    if (isfinite(got) && isfinite(want) && same(got, want))
        return MB_OK;
    char g[32], w[32];
    snprintf(g, sizeof g, isnan(got) ? "null" : "%g", got);
    snprintf(w, sizeof w, isnan(want) ? "none (null)" : "%.4g", want);
    return mb_error_set(err, MB_EFORMAT, "%s: field '%s%s': %s, but %s %s", path, where, key, g,
                        why, w);
}

/* The measured best: measured_best names the row of least median among those where most runs
 * reached the target and none diverged (ties either way), with that row's median; null only
 * where no row is one (absent: not said). *best gets the least median (NaN: none). */
static int best_agrees(const cJSON *root, double *best, const char *path, mb_error *err)
{
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(root, "rows"), *r, *least = NULL;
    const cJSON *mb = cJSON_GetObjectItemCaseSensitive(root, "measured_best");
    cJSON_ArrayForEach(r, rows)
    {
        const double runs = mb_json_get(r, "runs"), div = mb_json_get(r, "diverged");
        const double med = mb_json_get(r, "t_train_median_s");
        if (2 * mb_json_get(r, "reached") > runs && !(div > 0) && isfinite(med) &&
            (!least || med < mb_json_get(least, "t_train_median_s")))
            least = r;
    }
    *best = least ? mb_json_get(least, "t_train_median_s") : NAN;
    /* null only where no row is one (campaign 42's B-F7: a null beside rows that give a best
     * dropped it from the page, while in_sample_ratio was still over it); absent is a file
     * that says nothing of it, as a hand-written one may */
    if (mb && !cJSON_IsObject(mb) && least)
        return mb_error_set(err, MB_EFORMAT, "%s: field 'measured_best': %s, but the fastest row "
                            "where most runs reached the target and none diverged is M %g (lr "
                            "%g, P %g, %g s)", path,
                            cJSON_IsNull(mb) ? "null" : "not an object",
                            mb_json_get(least, "batch"), mb_json_get(least, "lr"),
                            mb_json_get(least, "procs"), *best);
    if (!cJSON_IsObject(mb))
        return MB_OK; /* absent, or null where no row is one: nothing printed of it */
    if (!least)
        return mb_error_set(err, MB_EFORMAT, "%s: field 'measured_best': M %g, but no row had most "
                            "of its runs reach the target with none diverged", path,
                            mb_json_get(mb, "batch"));
    const cJSON *named = NULL;
    cJSON_ArrayForEach(r, rows)
        if (!named && of_point(r, mb, "batch") && 2 * mb_json_get(r, "reached") >
                                                       mb_json_get(r, "runs") &&
            !(mb_json_get(r, "diverged") > 0))
            named = r;
    if (!named || mb_json_get(named, "t_train_median_s") != *best) {
        /* the part of the setting that differs from the fastest row's (campaign 41's B-F6: a
         * forged lr was named as "measured_best.batch: M 16, but ... is M 16") */
        static const char *const part[3] = {"batch", "lr", "procs"};
        size_t k = 0;
        while (k < 2 && mb_json_get(mb, part[k]) == mb_json_get(least, part[k]))
            k++;
        return mb_error_set(err, MB_EFORMAT, "%s: field 'measured_best.%s': %g, but the fastest "
                            "row where most runs reached the target and none diverged is M %g "
                            "(lr %g, P %g, %g s)", path, part[k], mb_json_get(mb, part[k]),
                            mb_json_get(least, "batch"), mb_json_get(least, "lr"),
                            mb_json_get(least, "procs"), *best);
    }
    return summary(mb, "measured_best.", "t_train_median_s", *best, mb_plot_same_figure,
                   "the row's t_train_median_s is", path, err);
}

/* The recommendation's median (its batch_run row's, where "measured") and in_sample_ratio,
 * that median over the best's. */
static int ratio_agrees(const cJSON *root, double best, const char *path, mb_error *err)
{
    const cJSON *rec = cJSON_GetObjectItemCaseSensitive(root, "recommended"), *r, *row = NULL;
    const int measured = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "measured"));
    cJSON_ArrayForEach(r, (measured ? cJSON_GetObjectItemCaseSensitive(root, "rows") : NULL))
        if (!row && of_point(r, rec, "batch_run"))
            row = r;
    if (measured && !row)
        return mb_error_set(err, MB_EFORMAT, "%s: field 'recommended.batch_run': M %g is no "
                            "row's (at the recommendation's lr and P)", path,
                            mb_json_get(rec, "batch_run"));
    const double med = row ? mb_json_get(row, "t_train_median_s") : NAN;
    int rc = measured ? summary(rec, "recommended.", "t_train_median_s", med, mb_plot_same_figure,
                                "its batch_run row's t_train_median_s is", path, err)
                      : MB_OK;
    if (rc == MB_OK)
        rc = summary(root, "", "in_sample_ratio", med / best, mb_plot_same_figure,
                     "the recommendation's median over the measured best's gives", path, err);
    return rc;
}

/* median_abs_rel_err and t_update_median_abs_rel_err: the medians of |rel_err| and
 * |t_update_rel_err| over the rows at the recommended P (solver/validate.c, median_abs). */
static int errors_agree(const cJSON *root, const char *path, mb_error *err)
{
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(root, "rows"), *r;
    double p = mb_json_get(cJSON_GetObjectItemCaseSensitive(root, "recommended"), "procs");
    p = isnan(p) ? 1 : p;
    double *e = malloc(((size_t)cJSON_GetArraySize(rows) + 1) * sizeof *e);
    if (!e)
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    static const char *const keys[2][2] = {{"rel_err", "median_abs_rel_err"},
                                           {"t_update_rel_err", "t_update_median_abs_rel_err"}};
    int rc = MB_OK;
    for (int k = 0; rc == MB_OK && k < 2; k++) {
        size_t n = 0;
        cJSON_ArrayForEach(r, rows)
            if (mb_json_get(r, "procs") == p && isfinite(mb_json_get(r, keys[k][0])))
                e[n++] = fabs(mb_json_get(r, keys[k][0]));
        char why[96];
        snprintf(why, sizeof why, "the |%s| of the rows at the recommended P = %g have the "
                 "median", keys[k][0], p);
        rc = summary(root, "", keys[k][1], mb_plot_median(e, n), mb_plot_near, why, path, err);
    }
    free(e);
    return rc;
}

/* flat_pred, the model's range within its margin of the best T_C, holds the model's optimum
 * (model_optimum.batch, else the recommendation where the model settled it; where the runs
 * settled it and there is no model_optimum, the range is refused: nothing names the optimum). */
static int flat_holds(const cJSON *root, const char *path, mb_error *err)
{
    const cJSON *fl = cJSON_GetObjectItemCaseSensitive(root, "flat_pred");
    const cJSON *opt = cJSON_GetObjectItemCaseSensitive(root, "model_optimum");
    const cJSON *by = cJSON_GetObjectItemCaseSensitive(root, "settled_by");
    const double lo = mb_json_get(fl, "m_lo"), hi = mb_json_get(fl, "m_hi");
    const int runs = cJSON_IsString(by) && !strcmp(by->valuestring, "runs");
    double m = mb_json_get(opt, "batch");
    if (isnan(m) && runs && !isnan(lo))
        /* mbopt writes model_optimum beside every settling: without it the range has nothing
         * to hold (campaign 39's B-F2: the check was skipped and the range printed) */
        return mb_error_set(err, MB_EFORMAT, "%s: field 'model_optimum': missing, but settled_by "
                            "is \"runs\" and flat_pred (M %g..%g) is the range of the model's "
                            "optimum, which the recommendation is not", path, lo, hi);
    if (isnan(m))
        m = mb_json_get(cJSON_GetObjectItemCaseSensitive(root, "recommended"), "batch");
    if (isnan(lo) || isnan(hi) || isnan(m) ||
        (m >= lo * (1 - 1e-9) && m <= hi * (1 + 1e-9)))
        return MB_OK;
    return mb_error_set(err, MB_EFORMAT, "%s: field 'flat_pred.m_lo': M %g..%g, but the model's "
                        "optimum it is the range of, M %.4g, is outside it", path, lo, hi, m);
}

int mb_plot_insample_agrees(const cJSON *root, const char *path, mb_error *err)
{
    const cJSON *r;
    int i = 0, rc = MB_OK;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(root, "rows"))
    {
        if ((rc = row_error(r, i, "rel_err", "t_pred_s", "t_train_median_s", path, err)) ||
            (rc = row_error(r, i, "t_update_rel_err", "t_update_pred_s", "t_update_run_s", path,
                            err)))
            return rc;
        i++;
    }
    double best;
    if ((rc = best_agrees(root, &best, path, err)) == MB_OK &&
        (rc = ratio_agrees(root, best, path, err)) == MB_OK &&
        (rc = errors_agree(root, path, err)) == MB_OK)
        rc = flat_holds(root, path, err);
    return rc;
}
