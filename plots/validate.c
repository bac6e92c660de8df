/* validate.c — the check of a recommendation against real training runs, as `mbopt validate
 * --json` writes it: the reader that checks the file (for the figure and the report alike) and
 * the figure, predicted time to the target T_C(M) against the measured one.
 *
 * What it does not do: compute a prediction or a median (every number is the file's own; the
 * summaries of the rows, held-out and in-sample, are recomputed from them to check them by
 * holdout.c and insample.c, which the reader calls), or read the
 * CSV twin of the file (validate.csv), which lacks the curve and the spread of runs.
 */
#include "mb_plot.h"
#include "plot_impl.h"
#include "../data/mb_format.h"
#include "../data/mb_json.h"
#include "../data/mb_parse.h"
#include "../solver/mb_solver.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- the reader ---------------------------------------------------------------------------- */

/* The shared check of one number (plot_impl.h): the validation figure's, reused by conv.c. */
int mb_plot_field(const cJSON *o, const char *where, const char *key, int flags, const char *path,
                  double *v, mb_error *err)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(o, key);
    *v = NAN;
    if (!item || cJSON_IsNull(item)) {
        if (!item && !(flags & F_REQUIRED))
            return MB_OK;
        if (item && (flags & F_NULL))
            return MB_OK;
        return mb_error_set(err, MB_EFORMAT, "%s: field '%s%s': %s", path, where, key,
                            item ? "null, a number is needed here" : "missing");
    }
    if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble))
        return mb_error_set(err, MB_EFORMAT, "%s: field '%s%s': not a finite number", path, where,
                            key);
    double x = item->valuedouble;
    if ((flags & F_POS) && !(x > 0))
        return mb_error_set(err, MB_EFORMAT, "%s: field '%s%s': must be > 0, got %g", path, where,
                            key, x);
    if ((flags & F_NONNEG) && !(x >= 0))
        return mb_error_set(err, MB_EFORMAT, "%s: field '%s%s': must be >= 0, got %g", path,
                            where, key, x);
    if ((flags & F_INT) && (x != floor(x) || fabs(x) > MB_DATA_RANGE_MAX))
        return mb_error_set(err, MB_EFORMAT, "%s: field '%s%s': must be a whole number%s, got %g",
                            path, where, key, fabs(x) > MB_DATA_RANGE_MAX ? " up to 2^53" : "", x);
    *v = x;
    return MB_OK;
}

/* Whether text may stand inside a quoted string of gnuplot's script: no quote of either kind,
 * backslash or line break. */
static int script_safe(const char *s)
{
    return !strpbrk(s, "\"'\\\n\r");
}

static int not_script_text(const char *where, const char *key, const char *path, mb_error *err)
{
    return mb_error_set(err, MB_EFORMAT, "%s: field '%s%s': not a string, or one with a quote, "
                        "backslash or line break", path, where, key);
}

/* The shared check of text that goes into a script (plot_impl.h). */
int mb_plot_text(const cJSON *o, const char *where, const char *key, const char *path,
                 const char **v, mb_error *err)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(o, key);
    *v = NULL;
    if (!item || cJSON_IsNull(item))
        return MB_OK;
    if (!cJSON_IsString(item) || !script_safe(item->valuestring))
        return not_script_text(where, key, path, err);
    *v = item->valuestring;
    return MB_OK;
}

/* The shared check of one name (plot_impl.h), beside mb_plot_field's of one number. */
int mb_plot_name(const cJSON *o, const char *where, const char *key, const char *(*nth)(int),
                 const char *what, const char *path, const char **v, mb_error *err)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(o, key);
    *v = NULL;
    if (!cJSON_IsString(item))
        return mb_error_set(err, MB_EFORMAT, "%s: field '%s%s': %s", path, where, key,
                            item ? "not a string" : "missing");
    const char *s = item->valuestring;
    if (!*s)
        return mb_error_set(err, MB_EFORMAT, "%s: field '%s%s': empty, a name is needed here",
                            path, where, key);
    if (!script_safe(s))
        return not_script_text(where, key, path, err);
    char names[256] = "";
    for (int k = 0; nth && nth(k); k++) {
        if (strcmp(s, nth(k)) == 0)
            break;
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? ", " : "",
                 nth(k));
        if (!nth(k + 1))
            return mb_error_set(err, MB_EFORMAT, "%s: field '%s%s': '%.64s%s' is not %s (%s)", path,
                                where, key, s, strlen(s) > 64 ? "..." : "", what, names);
    }
    *v = s;
    return MB_OK;
}

/* A row's t_runs_s, when there: an array of the `reached` runs' training times (mbopt validate
 * writes one a run that reached the target), each >= 0 s (or null) and, where the row gives
 * them, within [t_train_min_s, t_train_max_s] (lo, hi; NaN: not given). A list of another
 * length would draw more or fewer runs than the row counts (campaign 12, P6). */
static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Whether a and b agree to a relative 1e-3: a summary written to 4 significant digits (a
 * median of two times, 3.01005, as 3.01) is the same summary; 1.5 for 1.55 is not. */
static int agree(double a, double b)
{
    return fabs(a - b) <= 1e-3 * fmax(fabs(a), fabs(b));
}

static int check_runs_list(const cJSON *r, const char *where, double reached, double lo,
                           double med, double hi, const char *path, mb_error *err)
{
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(r, "t_runs_s"), *t;
    if (ts && !cJSON_IsNull(ts) && !cJSON_IsArray(ts))
        return mb_error_set(err, MB_EFORMAT, "%s: field '%st_runs_s': not an array", path, where);
    if (!cJSON_IsArray(ts))
        return MB_OK;
    int k = 0;
    cJSON_ArrayForEach(t, ts)
    {
        if (!cJSON_IsNull(t) && (!cJSON_IsNumber(t) || !isfinite(t->valuedouble) ||
                                 t->valuedouble < 0))
            return mb_error_set(err, MB_EFORMAT, "%s: field '%st_runs_s[%d]': must be a time >= "
                                                 "0 s or null", path, where, k);
        if (cJSON_IsNumber(t) && ((isfinite(lo) && t->valuedouble < lo) ||
                                  (isfinite(hi) && t->valuedouble > hi)))
            return mb_error_set(err, MB_EFORMAT, "%s: field '%st_runs_s[%d]': %g s is outside "
                                "the row's t_train_min_s..t_train_max_s (%g..%g s)", path, where,
                                k, t->valuedouble, lo, hi);
        k++;
    }
    if (isfinite(reached) && k != reached)
        return mb_error_set(err, MB_EFORMAT, "%s: field '%st_runs_s': %d times, but %g runs "
                            "reached the target (one time a run that reached it)", path, where, k,
                            reached);
    /* the row's own summary is of these times: their min, median and max are the row's
     * t_train_min_s, t_train_median_s and t_train_max_s, where it gives them and every time is
     * known (campaign 13, Q4: three times of 1.5 s under a median of 1.55 s were drawn) */
    double *v = k > 0 ? malloc((size_t)k * sizeof *v) : NULL;
    int n = 0;
    cJSON_ArrayForEach(t, ts)
    {
        if (!v || !cJSON_IsNumber(t)) {
            n = -1;
            break;
        }
        v[n++] = t->valuedouble;
    }
    int rc = MB_OK;
    if (n > 0) {
        qsort(v, (size_t)n, sizeof *v, cmp_double);
        const double m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
        const char *what = NULL;
        double got = NAN, want = NAN;
        if (isfinite(lo) && !agree(v[0], lo))
            what = "min", got = v[0], want = lo;
        else if (isfinite(med) && !agree(m, med))
            what = "median", got = m, want = med;
        else if (isfinite(hi) && !agree(v[n - 1], hi))
            what = "max", got = v[n - 1], want = hi;
        if (what)
            rc = mb_error_set(err, MB_EFORMAT, "%s: field '%st_runs_s': %s %g s is not the row's "
                              "t_train_%s_s %g s", path, where, what, got, what, want);
    }
    free(v);
    return rc;
}

/* One row of the validation table. */
static int check_row(const cJSON *r, int i, const char *path, mb_error *err)
{
    char where[32];
    snprintf(where, sizeof where, "rows[%d].", i);
    if (!cJSON_IsObject(r))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'rows[%d]': not an object", path, i);
    double batch, procs, lr, runs, reached, diverged, med, lo, hi, x;
    int rc;
    if ((rc = mb_plot_field(r, where, "batch", F_REQUIRED | F_POS | F_INT, path, &batch, err)) ||
        (rc = mb_plot_field(r, where, "procs", F_REQUIRED | F_POS | F_INT, path, &procs, err)) ||
        (rc = mb_plot_field(r, where, "lr", F_REQUIRED | F_POS, path, &lr, err)) ||
        (rc = mb_plot_field(r, where, "runs", F_REQUIRED | F_NONNEG | F_INT, path, &runs, err)) ||
        (rc = mb_plot_field(r, where, "reached", F_REQUIRED | F_NONNEG | F_INT, path, &reached,
                            err)) ||
        (rc = mb_plot_field(r, where, "diverged", F_NULL | F_NONNEG | F_INT, path, &diverged,
                            err)) ||
        (rc = mb_plot_field(r, where, "t_pred_s", F_NULL | F_POS, path, &x, err)) ||
        (rc = mb_plot_field(r, where, "n_pred", F_NULL | F_NONNEG, path, &x, err)) ||
        (rc = mb_plot_field(r, where, "n_median", F_NULL | F_NONNEG, path, &x, err)) ||
        (rc = mb_plot_field(r, where, "rel_err", F_NULL, path, &x, err)) ||
        (rc = mb_plot_field(r, where, "t_update_run_s", F_NULL | F_NONNEG, path, &x, err)) ||
        (rc = mb_plot_field(r, where, "t_update_pred_s", F_NULL | F_NONNEG, path, &x, err)) ||
        (rc = mb_plot_field(r, where, "t_update_rel_err", F_NULL, path, &x, err)) ||
        (rc = mb_plot_field(r, where, "t_train_min_s", F_NULL | F_NONNEG, path, &lo, err)) ||
        (rc = mb_plot_field(r, where, "t_train_max_s", F_NULL | F_NONNEG, path, &hi, err)))
        return rc;
    if (reached > runs)
        return mb_error_set(err, MB_EFORMAT, "%s: field '%sreached': %g of %g runs", path, where,
                            reached, runs);
    if (isfinite(diverged) && diverged + reached > runs)
        return mb_error_set(err, MB_EFORMAT, "%s: field '%sdiverged': %g diverged and %g reached "
                                             "of %g runs", path, where, diverged, reached, runs);
    /* the measured time exists exactly when some run reached the target */
    rc = mb_plot_field(r, where, "t_train_median_s", (reached > 0 ? F_REQUIRED : F_NULL) | F_NONNEG,
                       path, &med, err);
    if (rc != MB_OK)
        return rc;
    if (reached == 0 && isfinite(med))
        return mb_error_set(err, MB_EFORMAT, "%s: field '%st_train_median_s': %g, but no run "
                                             "reached the target (reached = 0)", path, where, med);
    if ((isfinite(lo) && isfinite(med) && lo > med) ||
        (isfinite(hi) && isfinite(med) && hi < med) || (isfinite(lo) && isfinite(hi) && lo > hi))
        return mb_error_set(err, MB_EFORMAT, "%s: field '%st_train_min_s': min %g, median %g and "
                                             "max %g are out of order", path, where, lo, med, hi);
    return check_runs_list(r, where, reached, lo, med, hi, path, err);
}

/* A row's algorithm name and its index, to number the names by sorting. */
typedef struct algo_row {
    const char *s;
    int i;
} algo_row;

static int algo_row_cmp(const void *a, const void *b)
{
    const algo_row *x = a, *y = b;
    int c = strcmp(x->s, y->s);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* One row a setting (mbopt validate writes a row per setting): the first row with the same P, M,
 * learning rate and, with `algo`, algorithm as an earlier one (*at, and that one *first): 1 if
 * any, 0 if none, -1 out of memory. By sorting (mb_data_first_repeat): comparing each row with
 * every earlier one took minutes on 100,000 rows (campaign 29's B1). */
static int first_same_setting(const cJSON *rows, int algo, int *at, int *first)
{
    const int n = cJSON_GetArraySize(rows);
    double *key = malloc(4 * ((size_t)n + 1) * sizeof *key);
    algo_row *v = malloc(((size_t)n + 1) * sizeof *v);
    int found = -1;
    if (!key || !v)
        goto done;
    const cJSON *r;
    int i = 0;
    cJSON_ArrayForEach(r, rows)
    {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(r, "algo");
        v[i] = (algo_row){algo && cJSON_IsString(a) ? a->valuestring : "", i};
        key[4 * i] = mb_json_get(r, "procs"), key[4 * i + 1] = mb_json_get(r, "batch");
        key[4 * i + 2] = mb_json_get(r, "lr");
        i++;
    }
    qsort(v, (size_t)n, sizeof *v, algo_row_cmp);
    for (int j = 0, rank = 0; j < n; j++) {
        rank += j > 0 && strcmp(v[j].s, v[j - 1].s) != 0;
        key[4 * v[j].i + 3] = rank;
    }
    size_t a = 0, f = 0;
    found = mb_data_first_repeat(key, (size_t)n, 4, &a, &f);
    *at = (int)a, *first = (int)f;
done:
    free(key);
    free(v);
    return found;
}

/* rows[at] given twice (first_same_setting's answer `found`): MB_EFORMAT naming both. */
static int setting_twice(const cJSON *rows, int found, int at, int first, const char *field,
                         const char *path, mb_error *err)
{
    if (found < 0)
        return mb_error_set(err, MB_ENOMEM, "%s: out of memory", path);
    if (found == 0)
        return MB_OK;
    const cJSON *r = cJSON_GetArrayItem(rows, at);
    return mb_error_set(err, MB_EFORMAT, "%s: field '%s[%d]': the setting of %s[%d] (P %g, M %g, "
                        "lr %g) given twice", path, field, at, field, first,
                        mb_json_get(r, "procs"), mb_json_get(r, "batch"), mb_json_get(r, "lr"));
}

/* A held-out row's t_pred_lo_s and t_pred_hi_s, when there: > 0 (or null), lo <= hi. */
static int pred_interval(const cJSON *r, const char *where, const char *path, mb_error *err)
{
    double lo, hi;
    int rc = mb_plot_field(r, where, "t_pred_lo_s", F_NULL | F_POS, path, &lo, err);
    if (rc == MB_OK)
        rc = mb_plot_field(r, where, "t_pred_hi_s", F_NULL | F_POS, path, &hi, err);
    if (rc == MB_OK && lo > hi)
        rc = mb_error_set(err, MB_EFORMAT, "%s: field '%st_pred_lo_s': %g is above "
                          "t_pred_hi_s, %g", path, where, lo, hi);
    return rc;
}

/* A level of an interval (holdout.level, pred_interval_level): in (0, 1); null or absent only
 * where the page does not print it (`need` 0). Campaign 18's F6: "200% interval" was printed. */
static int level_field(const cJSON *o, const char *key, int need, const char *path,
                       mb_error *err)
{
    double x;
    int rc = mb_plot_field(o, "holdout.", key, need ? F_REQUIRED : F_NULL, path, &x, err);
    if (rc == MB_OK && isfinite(x) && !(x > 0 && x < 1))
        rc = mb_error_set(err, MB_EFORMAT, "%s: field 'holdout.%s': %g is not a level in (0, 1)",
                          path, key, x);
    return rc;
}

/* lo <= hi of two fields of the held-out object read already (NaN: not given). */
static int in_order(const char *lo_key, double lo, const char *hi_key, double hi,
                    const char *path, mb_error *err)
{
    if (lo > hi)
        return mb_error_set(err, MB_EFORMAT, "%s: field 'holdout.%s': %g is above %s, %g", path,
                            lo_key, lo, hi_key, hi);
    return MB_OK;
}

/* The held-out object's own figures: the settings (whole M and P), the ratios and their
 * intervals, the verdict, the error and its interval, the levels, the prediction's interval
 * count and the seeds a setting. */
static int holdout_figures(const cJSON *ho, const char *path, mb_error *err)
{
    static const char *const pos[] = {"batch", "best_batch", "rival_batch", "ratio", "ratio_lo",
                                      "ratio_hi", "rival_ratio", "seeds_max"};
    double x;
    int rc = MB_OK;
    /* verdict "none": no held-out run reached the target where it grades, and the ratios are
     * null (mbopt validate says so in words) */
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(ho, "verdict");
    const int none = cJSON_IsString(v) && strcmp(v->valuestring, "none") == 0;
    if (v && !none &&
        !(cJSON_IsString(v) && (!strcmp(v->valuestring, "ahead") ||
                                !strcmp(v->valuestring, "behind") ||
                                !strcmp(v->valuestring, "tied"))))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'holdout.verdict': not \"ahead\", "
                            "\"behind\", \"tied\" or \"none\"", path);
    for (size_t k = 0; rc == MB_OK && k < sizeof pos / sizeof pos[0]; k++) /* trained M whole */
        rc = mb_plot_field(ho, "holdout.", pos[k],
                           (none && k >= 3 && k < 7 ? F_NULL : F_REQUIRED) | F_POS |
                               (k < 3 ? F_INT : 0),
                           path, &x, err);
    if (rc == MB_OK && !none && cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(ho, "ratio")))
        rc = mb_error_set(err, MB_EFORMAT, "%s: field 'holdout.ratio': null, but the verdict is "
                          "not \"none\"", path);
    /* the learner counts (a check across them), the medians behind the ratio, the fewest
     * seeds a setting, and the rival's interval (>= 0: a draw where no rival reached the
     * target and the recommendation did gives 0) */
    static const char *const more[] = {"procs", "best_procs", "seeds_min", "t_train_median_s",
                                       "best_t_train_median_s", "rival_ratio_lo",
                                       "rival_ratio_hi"};
    for (size_t k = 0; rc == MB_OK && k < sizeof more / sizeof more[0]; k++)
        rc = mb_plot_field(ho, "holdout.", more[k],
                           (k == 2 ? F_REQUIRED : F_NULL) | (k < 5 ? F_POS : F_NONNEG) |
                               (k < 3 ? F_INT : 0),
                           path, &x, err);
    /* the recommendation over the best of settings that include it is >= 1, in every draw */
    const double ratio = mb_json_get(ho, "ratio"), lo = mb_json_get(ho, "ratio_lo");
    if (rc == MB_OK && (ratio < 1 || lo < 1))
        rc = mb_error_set(err, MB_EFORMAT, "%s: field 'holdout.%s': %g is below 1, but the "
                          "held-out best is at most the recommendation's median", path,
                          ratio < 1 ? "ratio" : "ratio_lo", ratio < 1 ? ratio : lo);
    if (rc == MB_OK)
        rc = in_order("ratio_lo", lo, "ratio_hi", mb_json_get(ho, "ratio_hi"), path, err);
    if (rc == MB_OK)
        rc = in_order("rival_ratio_lo", mb_json_get(ho, "rival_ratio_lo"), "rival_ratio_hi",
                      mb_json_get(ho, "rival_ratio_hi"), path, err);
    if (rc == MB_OK)
        rc = in_order("seeds_min", mb_json_get(ho, "seeds_min"), "seeds_max",
                      mb_json_get(ho, "seeds_max"), path, err);
    /* the median |error| on the held-out runs and its interval over their seeds (absent from
     * files older than the interval) */
    double e[3];
    static const char *const errs[] = {"median_abs_rel_err", "median_abs_rel_err_lo",
                                       "median_abs_rel_err_hi"};
    for (size_t k = 0; rc == MB_OK && k < 3; k++)
        rc = mb_plot_field(ho, "holdout.", errs[k], F_NULL | F_NONNEG, path, &e[k], err);
    if (rc == MB_OK)
        rc = in_order("median_abs_rel_err_lo", e[1], "median_abs_rel_err_hi", e[2], path, err);
    /* the page prints the interval's level beside it */
    if (rc == MB_OK)
        rc = level_field(ho, "level", isfinite(e[1]) && isfinite(e[2]), path, err);
    /* held-out medians inside the prediction's interval, of those graded (absent from older
     * files), and that interval's level where some were graded */
    if (rc == MB_OK)
        rc = mb_plot_field(ho, "holdout.", "pred_interval_holds", F_NULL | F_NONNEG | F_INT, path,
                           &e[0], err);
    if (rc == MB_OK)
        rc = mb_plot_field(ho, "holdout.", "pred_interval_graded", F_NULL | F_NONNEG | F_INT, path,
                           &e[1], err);
    if (rc == MB_OK && e[0] > e[1])
        rc = mb_error_set(err, MB_EFORMAT, "%s: field 'holdout.pred_interval_holds': %g of %g "
                          "graded", path, e[0], e[1]);
    if (rc == MB_OK)
        rc = level_field(ho, "pred_interval_level", e[1] > 0, path, err);
    /* the T_update figures (held to the rows by holdout.c) */
    static const char *const tu[] = {"n_update_median_abs_rel_err", "t_update_median_abs_rel_err",
                                     "median_abs_err_at_level", "t_update_level"};
    for (size_t k = 0; rc == MB_OK && k < 4; k++)
        rc = mb_plot_field(ho, "holdout.", tu[k], F_NULL | (k < 3 ? F_NONNEG : F_POS), path, &x,
                           err);
    return rc;
}

/* Whether two numbers are the same field value (NaN: both absent or null). */
static int same_value(double a, double b)
{
    return a == b || (isnan(a) && isnan(b));
}

/* One held-out row: a whole P and M, a count of runs, reached of them, the median of its run
 * times, the prediction and its interval. */
static int holdout_row(const cJSON *r, const char *where, const char *path, mb_error *err)
{
    if (!cJSON_IsObject(r))
        return mb_error_set(err, MB_EFORMAT, "%s: field '%.*s': not an object", path,
                            (int)strlen(where) - 1, where);
    double x, runs, reached, med;
    int rc;
    if ((rc = mb_plot_field(r, where, "batch", F_REQUIRED | F_POS | F_INT, path, &x, err)) ||
        (rc = mb_plot_field(r, where, "procs", F_NULL | F_POS | F_INT, path, &x, err)) ||
        (rc = mb_plot_field(r, where, "lr", F_NULL | F_POS, path, &x, err)) ||
        (rc = mb_plot_field(r, where, "runs", F_REQUIRED | F_POS | F_INT, path, &runs, err)) ||
        (rc = mb_plot_field(r, where, "reached", F_REQUIRED | F_NONNEG | F_INT, path, &reached,
                            err)) ||
        (rc = mb_plot_field(r, where, "t_pred_s", F_NULL | F_POS, path, &x, err)) ||
        (rc = mb_plot_field(r, where, "rel_err", F_NULL, path, &x, err)) ||
        (rc = pred_interval(r, where, path, err)))
        return rc;
    if (reached > runs)
        return mb_error_set(err, MB_EFORMAT, "%s: field '%sreached': %g of %g runs", path, where,
                            reached, runs);
    /* the median exists exactly when some run reached the target, and is its runs' median */
    rc = mb_plot_field(r, where, "t_train_median_s", (reached > 0 ? F_REQUIRED : F_NULL) | F_POS,
                       path, &med, err);
    if (rc == MB_OK && reached == 0 && isfinite(med))
        rc = mb_error_set(err, MB_EFORMAT, "%s: field '%st_train_median_s': %g, but no run "
                          "reached the target (reached = 0)", path, where, med);
    if (rc == MB_OK)
        rc = check_runs_list(r, where, reached, NAN, med, NAN, path, err);
    return rc;
}

/* The held-out rows: each as holdout_row, one a setting (P, M, lr), and at least as many as the
 * prediction's interval graded. */
static int holdout_rows(const cJSON *ho, const char *path, mb_error *err)
{
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(ho, "rows"), *r;
    if (!cJSON_IsArray(rows))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'holdout.rows': missing or not an array",
                            path);
    int i = 0, rc = MB_OK;
    cJSON_ArrayForEach(r, rows)
    {
        char where[40];
        snprintf(where, sizeof where, "holdout.rows[%d].", i);
        if ((rc = holdout_row(r, where, path, err)) != MB_OK)
            return rc;
        i++;
    }
    int at = 0, first = 0; /* one row a setting (campaign 18, F6: a row listed twice was drawn) */
    int found = first_same_setting(rows, 0, &at, &first);
    if ((rc = setting_twice(rows, found, at, first, "holdout.rows", path, err)) != MB_OK)
        return rc;
    const double graded = mb_json_get(ho, "pred_interval_graded");
    if (graded > i)
        return mb_error_set(err, MB_EFORMAT, "%s: field 'holdout.pred_interval_graded': %g, but "
                            "there are %d held-out rows", path, graded, i);
    return rc;
}

/* Whether a held-out row trained M `batch` (at P `procs` where that is given). */
static int held_out_at(const cJSON *ho, double batch, double procs)
{
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(ho, "rows"))
        if (mb_json_get(r, "batch") == batch &&
            (isnan(procs) || isnan(mb_json_get(r, "procs")) || mb_json_get(r, "procs") == procs))
            return 1;
    return 0;
}

/* The runs of every setting the check graded are within seeds_min..seeds_max (the fewest and
 * most of them): the recommendation's row and one learner's rows at its rate (mbopt validate
 * grades those; other rows are listed, not graded). Campaign 18, F6: a row of "2 / 7" runs
 * beside seeds_max 2 was drawn. Where rows of the recommendation's P and M differ in rate,
 * which were graded is not known, and nothing is checked. */
static int holdout_seeds(const cJSON *ho, const char *path, mb_error *err)
{
    const double m = mb_json_get(ho, "batch"), p = mb_json_get(ho, "procs");
    const double lo = mb_json_get(ho, "seeds_min"), hi = mb_json_get(ho, "seeds_max");
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(ho, "rows"), *r, *rec = NULL;
    cJSON_ArrayForEach(r, rows)
        if (mb_json_get(r, "batch") == m && (isnan(p) || mb_json_get(r, "procs") == p)) {
            if (rec && !same_value(mb_json_get(rec, "lr"), mb_json_get(r, "lr")))
                return MB_OK;
            rec = r;
        }
    const double lr = mb_json_get(rec, "lr");
    int i = 0;
    cJSON_ArrayForEach(r, rows)
    {
        const double rp = mb_json_get(r, "procs"), runs = mb_json_get(r, "runs");
        const int graded = r == rec || ((isnan(rp) || rp == 1) &&
                                        mb_solver_same_rate(mb_json_get(r, "lr"), lr));
        if (graded && (runs < lo || runs > hi))
            return mb_error_set(err, MB_EFORMAT, "%s: field 'holdout.rows[%d].runs': %g, outside "
                                "holdout.seeds_min..seeds_max (%g..%g)", path, i, runs, lo, hi);
        i++;
    }
    return MB_OK;
}

/* The settings the held-out object names are held-out rows' (the recommendation, the best, the
 * rival, the flat range's ends), and the flat range is whole M in order, or null at both ends
 * (nothing within the flat margin). */
static int holdout_settings(const cJSON *root, const cJSON *ho, const char *path, mb_error *err)
{
    static const char *const keys[] = {"batch", "best_batch", "rival_batch"};
    static const char *const at[] = {"procs", "best_procs", NULL};
    for (size_t k = 0; k < 3; k++) {
        const double m = mb_json_get(ho, keys[k]), p = at[k] ? mb_json_get(ho, at[k]) : NAN;
        if (!held_out_at(ho, m, p))
            return mb_error_set(err, MB_EFORMAT, "%s: field 'holdout.%s': M %g%s is no held-out "
                                "row's", path, keys[k], m, isfinite(p) ? " at that P" : "");
    }
    /* the rival is the best of the other settings: at one learner count (the recommendation's
     * P = 1, or none given) another M */
    const double m = mb_json_get(ho, "batch");
    if (!(mb_json_get(ho, "procs") > 1) && mb_json_get(ho, "rival_batch") == m)
        return mb_error_set(err, MB_EFORMAT, "%s: field 'holdout.rival_batch': M %g is the "
                            "recommendation's own, but the rival is another setting", path, m);
    double lo, hi;
    int rc = mb_plot_field(ho, "holdout.", "flat_lo", F_REQUIRED | F_NULL | F_POS | F_INT, path,
                           &lo, err);
    if (rc == MB_OK)
        rc = mb_plot_field(ho, "holdout.", "flat_hi", F_REQUIRED | F_NULL | F_POS | F_INT, path,
                           &hi, err);
    if (rc == MB_OK && isnan(lo) != isnan(hi))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'holdout.%s': null, but %s is %g (both "
                            "or neither)", path, isnan(lo) ? "flat_lo" : "flat_hi",
                            isnan(lo) ? "flat_hi" : "flat_lo", isnan(lo) ? hi : lo);
    if (rc == MB_OK)
        rc = in_order("flat_lo", lo, "flat_hi", hi, path, err);
    for (int k = 0; rc == MB_OK && k < 2 && isfinite(lo); k++)
        if (!held_out_at(ho, k ? hi : lo, 1)) /* one learner's (the rivals') */
            rc = mb_error_set(err, MB_EFORMAT, "%s: field 'holdout.%s': M %g is no held-out "
                              "row's", path, k ? "flat_hi" : "flat_lo", k ? hi : lo);
    /* the page gives the range's margin, flat_pred.within, where the held-out runs graded */
    const cJSON *flat = cJSON_GetObjectItemCaseSensitive(root, "flat_pred");
    const int graded = isfinite(mb_json_get(ho, "ratio"));
    if (rc == MB_OK && (isfinite(lo) || graded) && !isfinite(mb_json_get(flat, "within")))
        rc = mb_error_set(err, MB_EFORMAT, "%s: field 'flat_pred.within': missing beside "
                          "'holdout.%s'", path, isfinite(lo) ? "flat_lo" : "ratio");
    return rc;
}

/* The model's flat range (flat_pred), when there: its margin a fraction in (0, 1), its ends
 * M > 0 in order. */
static int check_flat_pred(const cJSON *root, const char *path, mb_error *err)
{
    const cJSON *fl = cJSON_GetObjectItemCaseSensitive(root, "flat_pred");
    if (!fl || cJSON_IsNull(fl))
        return MB_OK;
    if (!cJSON_IsObject(fl))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'flat_pred': not an object", path);
    double w, lo, hi;
    int rc = mb_plot_field(fl, "flat_pred.", "within", F_NULL | F_POS, path, &w, err);
    if (rc == MB_OK && w >= 1)
        rc = mb_error_set(err, MB_EFORMAT, "%s: field 'flat_pred.within': %g is not a fraction "
                          "in (0, 1)", path, w);
    if (rc == MB_OK)
        rc = mb_plot_field(fl, "flat_pred.", "m_lo", F_NULL | F_POS, path, &lo, err);
    if (rc == MB_OK)
        rc = mb_plot_field(fl, "flat_pred.", "m_hi", F_NULL | F_POS, path, &hi, err);
    if (rc == MB_OK && lo > hi)
        rc = mb_error_set(err, MB_EFORMAT, "%s: field 'flat_pred.m_lo': %g is above m_hi, %g",
                          path, lo, hi);
    return rc;
}

/* The held-out check, when there is one (null or absent: none): every figure the page and the
 * figure show from it in range and consistent (campaign 18, F6: an edited file printed a "200%
 * interval", "M = 64 to 4", a row twice and "2 / 7" runs). */
static int check_holdout(const cJSON *root, const char *path, mb_error *err)
{
    const cJSON *ho = cJSON_GetObjectItemCaseSensitive(root, "holdout");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "verdict");
    int rc = check_flat_pred(root, path, err);
    if (rc == MB_OK && (!ho || cJSON_IsNull(ho)) && cJSON_IsString(v) &&
        !strncmp(v->valuestring, "held out", 8))
        /* every held-out sentence opens so (solver/mbopt_holdout.c); without the object the
         * page says no runs were held out (campaign 40's D2) */
        return mb_error_set(err, MB_EFORMAT, "%s: field 'verdict': \"%.24s...\" reports a "
                            "held-out check, but holdout is %s: the file contradicts itself",
                            path, v->valuestring, ho ? "null" : "missing");
    if (rc != MB_OK || !ho || cJSON_IsNull(ho))
        return rc;
    if (!cJSON_IsObject(ho))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'holdout': not an object", path);
    if ((rc = holdout_figures(ho, path, err)) == MB_OK &&
        (rc = holdout_rows(ho, path, err)) == MB_OK &&
        (rc = holdout_settings(root, ho, path, err)) == MB_OK &&
        (rc = holdout_seeds(ho, path, err)) == MB_OK)
        rc = mb_plot_holdout_agrees(root, ho, path, err); /* each figure held to the rows */
    return rc;
}

/* An optional object (measured_best) or a required one (recommended), by name. */
static int check_point(const cJSON *root, const char *key, int required, const char *path,
                       mb_error *err)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, key);
    if (!o || cJSON_IsNull(o)) {
        if (required)
            return mb_error_set(err, MB_EFORMAT, "%s: field '%s': missing", path, key);
        return MB_OK;
    }
    if (!cJSON_IsObject(o))
        return mb_error_set(err, MB_EFORMAT, "%s: field '%s': not an object", path, key);
    char where[32];
    snprintf(where, sizeof where, "%s.", key);
    double x;
    int rc;
    /* a trained M is whole (measured_best's, recommended's batch_run); the M the model asked
     * for need not be */
    if ((rc = mb_plot_field(o, where, "batch", F_REQUIRED | F_POS | (required ? 0 : F_INT), path,
                            &x, err)) ||
        (rc = mb_plot_field(o, where, "lr", F_NULL | F_POS, path, &x, err)) ||
        (rc = mb_plot_field(o, where, "procs", F_NULL | F_POS | F_INT, path, &x, err)) ||
        (rc = mb_plot_field(o, where, "t_pred_s", F_NULL | F_NONNEG, path, &x, err)))
        return rc;
    /* measured_best is a measurement; recommended carries one when "measured" is true */
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "measured");
    if (m && !cJSON_IsBool(m))
        return mb_error_set(err, MB_EFORMAT, "%s: field '%smeasured': not true or false", path,
                            where);
    int measured = !required || cJSON_IsTrue(m);
    int need = measured ? F_REQUIRED : F_NULL;
    if ((rc = mb_plot_field(o, where, "t_train_median_s", need | F_NONNEG, path, &x, err)) ||
        (rc = mb_plot_field(o, where, "batch_run", (required ? need : F_NULL) | F_POS | F_INT, path,
                            &x, err)))
        return rc;
    return MB_OK;
}

/* The curve's points rise in M within each series (a point's lr and procs, null one value), each
 * M once: mbopt validate writes them so, and the figure draws each series as one line (campaign
 * 40's D1: a point given twice or two swapped drew the line back over itself). Series past the
 * first 16 are not held (mbopt writes one). */
static int curve_in_order(const cJSON *curve, const char *path, mb_error *err)
{
    enum { SERIES = 16 };
    double lr[SERIES], procs[SERIES], last[SERIES];
    int at[SERIES], n = 0, i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, curve)
    {
        const double l = mb_json_get(e, "lr"), p = mb_json_get(e, "procs");
        const double m = mb_json_get(e, "batch");
        int k = 0;
        while (k < n && !((lr[k] == l || (isnan(lr[k]) && isnan(l))) &&
                          (procs[k] == p || (isnan(procs[k]) && isnan(p)))))
            k++;
        if (k < n && !(m > last[k]))
            return mb_error_set(err, MB_EFORMAT, "%s: field 'curve[%d].batch': M %g after M %g "
                                "(curve[%d]) of its series: the curve's points rise in M, each M "
                                "once", path, i, m, last[k], at[k]);
        if (k == n && n < SERIES)
            lr[k] = l, procs[k] = p, n++;
        if (k < n)
            last[k] = m, at[k] = i;
        i++;
    }
    return MB_OK;
}

/* How the runs settled the answer (settled_by), as mbopt writes it. */
static const char *settled_nth(int k)
{
    static const char *const names[] = {"model", "runs", "model and runs"};
    return k >= 0 && k < 3 ? names[k] : NULL;
}

/* The laws mbfit fits, by the names its JSON uses (law.model names one; the figure's key
 * quotes it). */
static const char *law_nth(int k)
{
    return k >= 0 && k < MB_LAW_KINDS ? mb_model_law_name((mb_law_kind)k) : NULL;
}

int mb_plot_read_validate(const char *path, cJSON **root, mb_error *err)
{
    int rc = mb_json_read(path, root, err);
    if (rc == MB_OK &&
        (rc = mb_format_check_json(*root, path, MB_FORMAT_VALIDATE, err)) != MB_OK) {
        cJSON_Delete(*root); /* a file of another kind (a scale, a fit) */
        *root = NULL;
    }
    if (rc != MB_OK)
        return rc;
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(*root, "rows");
    const cJSON *curve = cJSON_GetObjectItemCaseSensitive(*root, "curve");
    const cJSON *law = cJSON_GetObjectItemCaseSensitive(*root, "law"), *e;
    double x;
    if (!cJSON_IsObject(*root) || !cJSON_IsArray(rows))
        rc = mb_error_set(err, MB_EFORMAT, "%s: field 'rows': missing (is this mbopt validate "
                                           "--json?)", path);
    else if (cJSON_GetArraySize(rows) == 0)
        rc = mb_error_set(err, MB_ENODATA, "%s: field 'rows': empty, no batch size was run",
                          path);
    else if (cJSON_GetArraySize(rows) > MB_PLOT_ROWS_MAX)
        rc = mb_error_set(err, MB_EFORMAT, "%s: field 'rows': %d rows, more than a validation "
                          "file holds (at most %d)", path, cJSON_GetArraySize(rows),
                          MB_PLOT_ROWS_MAX);
    else if (!cJSON_IsArray(curve))
        rc = mb_error_set(err, MB_EFORMAT, "%s: field 'curve': missing or not an array", path);
    else if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(*root, "verdict")))
        rc = mb_error_set(err, MB_EFORMAT, "%s: field 'verdict': missing or not a string", path);
    else if (law && !cJSON_IsNull(law) && !cJSON_IsObject(law))
        rc = mb_error_set(err, MB_EFORMAT, "%s: field 'law': not an object", path);
    const char *model;
    if (rc == MB_OK && cJSON_IsObject(law) && cJSON_GetObjectItemCaseSensitive(law, "model") &&
        !cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(law, "model")))
        rc = mb_plot_name(law, "law.", "model", law_nth, "a law mbfit fits", path, &model, err);
    if (rc == MB_OK)
        rc = mb_plot_field(*root, "", "target_loss", F_REQUIRED | F_POS, path, &x, err);
    if (rc == MB_OK)
        rc = mb_plot_field(*root, "", "in_sample_ratio", F_NULL | F_POS, path, &x, err);
    if (rc == MB_OK)
        rc = check_holdout(*root, path, err);
    if (rc == MB_OK)
        rc = mb_plot_field(*root, "", "median_abs_rel_err", F_NULL | F_NONNEG, path, &x, err);
    if (rc == MB_OK)
        rc = mb_plot_field(*root, "", "t_update_median_abs_rel_err", F_NULL | F_NONNEG, path, &x,
                           err);
    int i = 0;
    cJSON_ArrayForEach(e, (rc == MB_OK ? rows : NULL))
    {
        if ((rc = check_row(e, i, path, err)) != MB_OK)
            break;
        i++;
    }
    if (rc == MB_OK) { /* one row a setting, as mbplot scale's one row a P (campaign 12, P6) */
        int at = 0, first = 0, found = first_same_setting(rows, 1, &at, &first);
        rc = setting_twice(rows, found, at, first, "rows", path, err);
    }
    i = 0;
    cJSON_ArrayForEach(e, (rc == MB_OK ? curve : NULL))
    {
        char where[32];
        snprintf(where, sizeof where, "curve[%d].", i++);
        if (!cJSON_IsObject(e))
            rc = mb_error_set(err, MB_EFORMAT, "%s: field 'curve[%d]': not an object", path,
                              i - 1);
        if (rc == MB_OK)
            rc = mb_plot_field(e, where, "batch", F_REQUIRED | F_POS, path, &x, err);
        if (rc == MB_OK)
            rc = mb_plot_field(e, where, "t_pred_s", F_REQUIRED | F_NULL | F_POS, path, &x, err);
        if (rc == MB_OK)
            rc = mb_plot_field(e, where, "lr", F_NULL | F_POS, path, &x, err);
        if (rc == MB_OK)
            rc = mb_plot_field(e, where, "procs", F_NULL | F_POS | F_INT, path, &x, err);
        if (rc != MB_OK)
            break;
    }
    if (rc == MB_OK)
        rc = curve_in_order(curve, path, err);
    const cJSON *by = cJSON_GetObjectItemCaseSensitive(*root, "settled_by");
    const char *name;
    if (rc == MB_OK && by && !cJSON_IsNull(by)) /* campaign 40's D6: "coin" was accepted */
        rc = mb_plot_name(*root, "", "settled_by", settled_nth, "how the runs settle the answer",
                          path, &name, err);
    if (rc == MB_OK)
        rc = check_point(*root, "measured_best", 0, path, err);
    if (rc == MB_OK)
        rc = check_point(*root, "recommended", 1, path, err);
    if (rc == MB_OK) /* every summary printed from the rows held to them (campaign 38's F2) */
        rc = mb_plot_insample_agrees(*root, path, err);
    if (rc == MB_OK) /* the law to its parameters, the curve to the law (campaign 39's B-F3, F4) */
        rc = mb_plot_curve_agrees(*root, path, err);
    if (rc != MB_OK) {
        cJSON_Delete(*root);
        *root = NULL;
    }
    return rc;
}

/* ---- the figure ---------------------------------------------------------------------------- */

/* Colours of the series, one per (lr, P): distinct in hue and in lightness. */
static const char *const COLOURS[] = {"1f5fbf", "d95f02", "1b9e77", "7570b3", "e7298a",
                                      "66a61e", "a6761d", "666666"};
#define N_COLOURS (int)(sizeof COLOURS / sizeof COLOURS[0])
#define MAX_SERIES 8

/* The series of a file: distinct (lr, procs) of its rows, in order of first appearance. */
typedef struct series {
    double lr[MAX_SERIES], procs[MAX_SERIES];
    int n, many_lr, many_procs;
} series;

static int series_of(const cJSON *rows, series *s)
{
    const cJSON *r;
    memset(s, 0, sizeof *s);
    cJSON_ArrayForEach(r, rows)
    {
        double lr = mb_json_get(r, "lr"), pr = mb_json_get(r, "procs");
        int k = 0;
        while (k < s->n && !(s->lr[k] == lr && s->procs[k] == pr))
            k++;
        if (k == s->n && s->n < MAX_SERIES) {
            s->many_lr |= s->n > 0 && s->lr[0] != lr;
            s->many_procs |= s->n > 0 && s->procs[0] != pr;
            s->lr[s->n] = lr;
            s->procs[s->n++] = pr;
        }
    }
    return s->n;
}

/* The label of series k: "lr = 0.02", "P = 4" or both, as the file varies them. */
static void series_name(const series *s, int k, char *buf, size_t n)
{
    if (s->many_lr && s->many_procs)
        snprintf(buf, n, "lr = %g, P = %g", s->lr[k], s->procs[k]);
    else if (s->many_procs)
        snprintf(buf, n, "P = %g", s->procs[k]);
    else if (s->procs[k] > 1)
        snprintf(buf, n, "lr = %g (P = %g)", s->lr[k], s->procs[k]);
    else
        snprintf(buf, n, "lr = %g", s->lr[k]);
}

/* The series a curve point belongs to: its lr (and procs, when given) matched against the rows'
 * series; -1 for a point that names neither or matches none (drawn as one curve for all). */
static int curve_series(const cJSON *e, const series *s)
{
    double lr = mb_json_get(e, "lr"), pr = mb_json_get(e, "procs");
    for (int k = 0; isfinite(lr) && k < s->n; k++)
        if (lr == s->lr[k] && (!isfinite(pr) || pr == s->procs[k]))
            return k;
    return -1;
}

/* Widens [*lo, *hi] to hold x when x > 0 (a log axis has no room for the rest). */
static void span(double x, double *lo, double *hi)
{
    if (isfinite(x) && x > 0) {
        *lo = fmin(*lo, x);
        *hi = fmax(*hi, x);
    }
}

/* One figure in the making: the plot, the series, the data's extent on both axes and the
 * gnuplot plot command being built. */
typedef struct vfig {
    mb_plot *p;
    const cJSON *root, *rows, *curve, *probe, *rec, *best;
    const char *law_name;
    series s;
    double m_lo, m_hi, t_lo, t_hi, y_lo, y_hi, y_mark;
    char plot[8192];
    size_t used;
    int curves, held; /* key entries: the predicted curves; the held-out series (0 or 1) */
} vfig;

/* Appends to the plot command; past its end nothing more is written, and f->used says so. */
static void fig_add(vfig *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fig_add(vfig *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = f->used < sizeof f->plot ? sizeof f->plot - f->used : 0;
    int n = vsnprintf(room ? f->plot + f->used : NULL, room, fmt, ap);
    va_end(ap);
    f->used += n > 0 ? (size_t)n : 0;
}

/* The axes' extent, so the marks of rows that never reached the target sit on the floor. */
static void fig_extent(vfig *f)
{
    const cJSON *r, *e;
    f->m_lo = f->t_lo = INFINITY;
    f->m_hi = f->t_hi = 0;
    cJSON_ArrayForEach(r, f->rows)
    {
        span(mb_json_get(r, "batch"), &f->m_lo, &f->m_hi);
        span(mb_json_get(r, "t_pred_s"), &f->t_lo, &f->t_hi);
        span(mb_json_get(r, "t_train_min_s"), &f->t_lo, &f->t_hi);
        span(mb_json_get(r, "t_train_max_s"), &f->t_lo, &f->t_hi);
        span(mb_json_get(r, "t_train_median_s"), &f->t_lo, &f->t_hi);
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(r, "t_runs_s"))
            span(cJSON_IsNumber(e) ? e->valuedouble : NAN, &f->t_lo, &f->t_hi);
    }
    const cJSON *ho = cJSON_GetObjectItemCaseSensitive(f->root, "holdout");
    const cJSON *held = cJSON_IsObject(ho) ? cJSON_GetObjectItemCaseSensitive(ho, "rows") : NULL;
    cJSON_ArrayForEach(r, held)
    {
        span(mb_json_get(r, "batch"), &f->m_lo, &f->m_hi);
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(r, "t_runs_s"))
            span(cJSON_IsNumber(e) ? e->valuedouble : NAN, &f->t_lo, &f->t_hi);
    }
    cJSON_ArrayForEach(e, f->curve)
    {
        span(mb_json_get(e, "batch"), &f->m_lo, &f->m_hi);
        span(mb_json_get(e, "t_pred_s"), &f->t_lo, &f->t_hi);
    }
    cJSON_ArrayForEach(e, f->probe)
        span(mb_json_get(e, "t_pred_s"), &f->t_lo, &f->t_hi);
    span(mb_json_get(f->rec, "batch"), &f->m_lo, &f->m_hi);
    if (!(f->t_hi > 0)) { /* nothing timed at all: the required series says so */
        f->t_lo = 1;
        f->t_hi = 10;
    }
    f->y_lo = f->t_lo / 2;
    f->y_hi = f->t_hi * 1.6;
    f->y_mark = f->y_lo * pow(f->t_hi / f->y_lo, 0.04);
}

/* The predicted curves, by (lr, procs) where the curve says, else one for all; the probe's. */
static void fig_curves(vfig *f)
{
    const cJSON *e, *curve = f->curve, *probe = f->probe;
    char name[32], label[64];
    for (int k = -1; k < f->s.n; k++) {
        snprintf(name, sizeof name, "curve%d", k + 1);
        long before = 0;
        mb_plot_block(f->p, name);
        cJSON_ArrayForEach(e, curve)
        {
            if (curve_series(e, &f->s) != k)
                continue;
            double v[2] = {mb_json_get(e, "batch"), mb_json_get(e, "t_pred_s")};
            mb_plot_row(f->p, v, 2);
            before++;
        }
        if (before == 0)
            continue;
        int colour = k < 0 ? -1 : k % N_COLOURS;
        if (k >= 0 && f->s.n > 1)
            series_name(&f->s, k, label, sizeof label);
        fig_add(f, "%s$%s u 1:2 w l lw 2.5 lc rgb '#%s' t 'predicted, %s%s%s'",
                                 f->curves ? ", " : "", name, colour < 0 ? "222222" : COLOURS[colour],
                                 f->law_name, k >= 0 && f->s.n > 1 ? ", " : "",
                                 k >= 0 && f->s.n > 1 ? label : "");
        f->curves++;
    }
    /* T_update calibrated by the runs: what the probe's T_update alone would have predicted */
    if (cJSON_GetArraySize(probe) > 0) {
        mb_plot_block(f->p, "probe");
        cJSON_ArrayForEach(e, probe)
        {
            double v[2] = {mb_json_get(e, "batch"), mb_json_get(e, "t_pred_s")};
            mb_plot_row(f->p, v, 2);
        }
        fig_add(f, "%s$probe u 1:2 w l lw 1.5 dt 2 lc rgb '#888888' t 'predicted "
                                 "with the probe''s T_{update} alone'", f->curves ? ", " : "");
        f->curves++;
    }
}

/* Each series' runs: every run faint, median with min-max bars, prediction at the run's M. */
static void fig_runs(vfig *f)
{
    const cJSON *r, *e, *rows = f->rows;
    char name[32], label[64];
    /* each series' runs: every run faint, median with min-max bars, prediction at the run's M */
    for (int k = 0; k < f->s.n; k++) {
        const char *c = COLOURS[k % N_COLOURS];
        series_name(&f->s, k, label, sizeof label);
        snprintf(name, sizeof name, "runs%d", k);
        mb_plot_block(f->p, name);
        cJSON_ArrayForEach(r, rows)
        {
            if (mb_json_get(r, "lr") != f->s.lr[k] || mb_json_get(r, "procs") != f->s.procs[k])
                continue;
            cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(r, "t_runs_s"))
            {
                double v[2] = {mb_json_get(r, "batch"), cJSON_IsNumber(e) ? e->valuedouble : NAN};
                mb_plot_row(f->p, v, 2);
            }
        }
        snprintf(name, sizeof name, "med%d", k);
        mb_plot_block(f->p, name);
        cJSON_ArrayForEach(r, rows)
        {
            if (mb_json_get(r, "lr") != f->s.lr[k] || mb_json_get(r, "procs") != f->s.procs[k])
                continue;
            double med = mb_json_get(r, "t_train_median_s"), lo = mb_json_get(r, "t_train_min_s"),
                   hi = mb_json_get(r, "t_train_max_s");
            double v[5] = {mb_json_get(r, "batch"), med, isfinite(lo) ? lo : med, isfinite(hi) ? hi : med,
                           mb_json_get(r, "t_pred_s")};
            mb_plot_row(f->p, v, 5);
        }
        /* the faint runs and the open predictions are named once: their shape says it */
        fig_add(f, ", $runs%d u 1:2 w p pt 7 ps 0.6 lc rgb '#80%s' %s"
                                 ", $med%d u 1:2:3:4 w yerrorbars pt 7 ps 1.4 lw 1.5 lc rgb '#%s' "
                                 "t 'measured median%s%s'"
                                 ", $med%d u 1:5 w p pt 4 ps 1.1 lw 1.5 lc rgb '#%s' %s",
                                 k, c,
                                 k ? "notitle" : "t 'each run (bars: fastest to slowest)'", k, c,
                                 f->s.n > 1 ? ", " : "", f->s.n > 1 ? label : "", k, c,
                                 k ? "notitle" : "t 'predicted at the measured M'");
    }
}

/* A cross's M and its row, to place the crosses by sorting. */
typedef struct cross {
    double m;
    int i;
} cross;

static int cross_cmp(const void *a, const void *b)
{
    const cross *x = a, *y = b;
    return x->m != y->m ? (x->m > y->m) - (x->m < y->m) : (x->i > y->i) - (x->i < y->i);
}

/* The rows no run of which reached the target (reached 0), sorted by M (comparing each with
 * every other took minutes on 100,000 rows: campaign 29's B1): same[i] the earlier crosses at
 * row i's M; returns whether two crosses are less than 1.2 octaves apart. */
static int unreached_crosses(const cJSON *rows, int *same)
{
    cross *c = malloc(((size_t)cJSON_GetArraySize(rows) + 1) * sizeof *c);
    if (!c)
        return 1;
    const cJSON *r;
    int n = 0, i = 0, crowded = 0;
    cJSON_ArrayForEach(r, rows)
    {
        if (mb_json_get(r, "reached") == 0)
            c[n++] = (cross){mb_json_get(r, "batch"), i};
        i++;
    }
    qsort(c, (size_t)n, sizeof *c, cross_cmp);
    for (int j = 1; j < n; j++) {
        crowded |= fabs(log2(c[j].m / c[j - 1].m)) < 1.2; /* the nearest pairs are neighbours */
        if (c[j].m == c[j - 1].m)
            same[c[j].i] = same[c[j - 1].i] + 1;
    }
    free(c);
    return crowded;
}

/* The rows where no run reached the target: crosses on the floor of the plot, each labelled
 * (with its series when there are several), so they need no entry in the key. Labels are
 * written across when the crosses are at least 1.2 octaves apart, else upright, and crosses at
 * the same M are set side by side. */
static void fig_unreached(vfig *f)
{
    const cJSON *r, *rows = f->rows;
    char label[64];
    int i = 0, n = cJSON_GetArraySize(rows);
    int *same = calloc((size_t)n + 1, sizeof *same); /* earlier crosses at each row's M */
    if (!same)
        return;
    int crowded = unreached_crosses(rows, same);
    cJSON_ArrayForEach(r, rows)
    {
        i++;
        if (mb_json_get(r, "reached") > 0)
            continue;
        double dv = mb_json_get(r, "diverged"), x = mb_json_get(r, "batch");
        int diverged = isfinite(dv) && dv > 0, k = 0;
        const char *colour = diverged ? "b2182b" : "555555";
        while (k < f->s.n && !(f->s.lr[k] == mb_json_get(r, "lr") && f->s.procs[k] == mb_json_get(r, "procs")))
            k++;
        label[0] = '\0';
        if (f->s.n > 1 && k < f->s.n) {
            /* a second line (gnuplot reads \n in double quotes), or a parenthesis upright */
            snprintf(label, sizeof label, "%s", crowded ? " (" : "\\n");
            series_name(&f->s, k, label + strlen(label), sizeof label - strlen(label));
            if (crowded)
                strncat(label, ")", sizeof label - strlen(label) - 1);
        }
        double dx = 1.6 * same[i - 1];
        if (crowded)
            mb_plot_cmd(f->p, "set label \"%s%s\" at %.17g,%.17g left rotate by 90 offset %g,1.1 "
                           "font ',9' tc rgb '#%s' noenhanced",
                        diverged ? "diverged" : "not reached", label, x, f->y_mark, dx - 0.3,
                        colour);
        else
            mb_plot_cmd(f->p, "set label \"%s%s\" at %.17g,%.17g center offset %g,%s font ',9' "
                           "tc rgb '#%s' noenhanced",
                        diverged ? "diverged" : "not reached", label, x, f->y_mark, dx,
                        label[0] ? "1.6" : "1.1", colour);
        mb_plot_cmd(f->p, "set label at %.17g,%.17g point pt 2 ps 2 lw 2.5 lc rgb '#%s' offset %g,0 "
                       "front", x, f->y_mark, colour, dx);
    }
    free(same);
}

/* The in-sample best, ringed; the recommended M, a vertical line; the model's own optimum,
 * dotted, when the runs settled on another M. */
static void fig_marks(vfig *f)
{
    const cJSON *rec = f->rec, *best = f->best, *root = f->root;
    /* the measured best, ringed, and the recommended M, a vertical line */
    double bm = mb_json_get(best, "batch"), bt = mb_json_get(best, "t_train_median_s");
    if (isfinite(bm) && isfinite(bt)) {
        mb_plot_block(f->p, "best");
        double v[2] = {bm, bt};
        mb_plot_row(f->p, v, 2);
        fig_add(f, ", $best u 1:2 w p pt 6 ps 3.2 lw 2 lc rgb 'black' "
                                 "t 'in-sample best, M = %g'", bm);
    }
    double rm = mb_json_get(rec, "batch"), run = mb_json_get(rec, "batch_run");
    char ran[48] = "";
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "measured")) && isfinite(run) &&
        run != rm)
        snprintf(ran, sizeof ran, " (run at M = %g)", run);
    mb_plot_cmd(f->p, "set arrow from %.17g, graph 0 to %.17g, graph 1 nohead lw 2 dt 2 "
                   "lc rgb '#b2182b' back", rm, rm);
    mb_plot_cmd(f->p, "set label \"recommended M = %.4g%s\" at %.17g, graph 0.04 left offset "
                   "0.6,0 tc rgb '#b2182b' front noenhanced", rm, ran, rm);
    /* when the runs settled on another M, the model's own optimum too, dotted (mbopt validate:
     * the model predicts both within its error, the runs measured the recommended one faster) */
    const cJSON *by = cJSON_GetObjectItemCaseSensitive(root, "settled_by");
    double om = mb_json_get(cJSON_GetObjectItemCaseSensitive(root, "model_optimum"), "batch");
    if (cJSON_IsString(by) && strcmp(by->valuestring, "runs") == 0 && isfinite(om) && om > 0) {
        span(om, &f->m_lo, &f->m_hi);
        mb_plot_cmd(f->p, "set arrow from %.17g, graph 0 to %.17g, graph 1 nohead lw 1.5 dt 3 "
                       "lc rgb '#555555' back", om, om);
        mb_plot_cmd(f->p, "set label \"the model's optimum M = %.4g\" at %.17g, graph 0.10 left "
                       "offset 0.6,0 tc rgb '#555555' front noenhanced", om, om);
    }
}

/* Title, grid, key under the plot, log axes; then the plot command. */
static void fig_axes(vfig *f)
{
    char label[64];
    const double bm = mb_json_get(f->best, "batch"),
                 bt = mb_json_get(f->best, "t_train_median_s");
    const cJSON *root = f->root;
    char title[160];
    snprintf(title, sizeof title, "Time to reach the target loss %g: predicted T_C(M) against "
                                  "measured training runs", mb_json_get(root, "target_loss"));
    mb_plot_cmd(f->p, "set title \"%s\" noenhanced", title);
    mb_plot_cmd(f->p, "set grid xtics ytics mytics lc rgb '#dddddd'");
    /* the key goes under the plot, two entries a row (one when gnuplot finds the longest too
     * wide for two: about 40 characters at this size), in a margin made for it (gnuplot's own
     * 'below' lets a tall key run into the x label) */
    int entries = f->curves + (f->s.n > 0 ? 2 : 0) + f->s.n + (isfinite(bm) && isfinite(bt)) +
                  f->held;
    size_t longest = strlen("each run (bars: fastest to slowest)");
    if (f->s.n > 1) {
        series_name(&f->s, 0, label, sizeof label);
        longest = fmax(longest, strlen("predicted, , ") + strlen(f->law_name) + strlen(label));
    }
    mb_plot_cmd(f->p, "set bmargin %d", 4 + (longest > 40 ? entries : (entries + 1) / 2));
    mb_plot_cmd(f->p, "set key at screen 0.5, screen 0.01 center bottom horizontal maxcols 2 box "
                   "font ',10' samplen 2.5 width 1");
    mb_plot_cmd(f->p, "set logscale x 2");
    mb_plot_cmd(f->p, "set logscale y");
    mb_plot_cmd(f->p, "set xrange [%.17g:%.17g]", f->m_lo / 1.5, f->m_hi * 1.5);
    mb_plot_cmd(f->p, "set yrange [%.17g:%.17g]", f->y_lo, f->y_hi);
    mb_plot_cmd(f->p, "set xtics 2 format '%%g'");
    mb_plot_cmd(f->p, "set ytics format '%%g'");
    /* a log axis over a decade or two shows one or two labels: add 2 and 5 of each decade */
    for (double dec = pow(10, floor(log10(f->y_lo))); dec < f->y_hi; dec *= 10)
        mb_plot_cmd(f->p, "set ytics add (%.6g, %.6g)", 2 * dec, 5 * dec);
    mb_plot_cmd(f->p, "set xlabel 'mini-batch size M (samples, all learners)'");
    mb_plot_cmd(f->p, "set ylabel 'training time to the target T_C (s)'");
    mb_plot_cmd(f->p, "set bars small");
    mb_plot_cmd(f->p, "%s", f->plot);
}

/* The held-out runs (validate.json's "holdout": medians with min-max bars, diamonds) and the
 * model's flat range ("flat_pred", shaded). */
static void add_holdout(vfig *f)
{
    const cJSON *ho = cJSON_GetObjectItemCaseSensitive(f->root, "holdout"), *r, *e;
    const cJSON *flat = cJSON_GetObjectItemCaseSensitive(f->root, "flat_pred");
    double f_lo = mb_json_get(flat, "m_lo"), f_hi = mb_json_get(flat, "m_hi");
    if (isfinite(f_lo) && isfinite(f_hi) && f_hi >= f_lo) {
        mb_plot_cmd(f->p, "set object rect from %.17g, graph 0 to %.17g, graph 1 fc rgb "
                          "'#e8e8e8' fs solid 1.0 noborder behind", f_lo, f_hi);
        mb_plot_cmd(f->p, "set label \"predicted within %.0f%% of the best\" at %.17g, graph "
                          "0.96 left offset 0.4,0 font ',9' tc rgb '#555555' front noenhanced",
                    100 * mb_json_get(flat, "within"), f_lo);
    }
    if (!cJSON_IsObject(ho))
        return;
    size_t n = 0;
    mb_plot_block(f->p, "held");
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(ho, "rows"))
    {
        double lo = INFINITY, hi = 0, med = mb_json_get(r, "t_train_median_s");
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(r, "t_runs_s"))
            span(cJSON_IsNumber(e) ? e->valuedouble : NAN, &lo, &hi);
        if (!isfinite(med))
            continue;
        /* beside the in-sample median at the same M */
        double v[4] = {mb_json_get(r, "batch") * 1.03, med, lo, hi};
        mb_plot_row(f->p, v, 4);
        n++;
    }
    if (n == 0) /* no held-out run reached the target: nothing to draw (an empty block fails) */
        return;
    fig_add(f, ", $held u 1:2:3:4 w yerrorbars pt 13 ps 1.5 lw 1.5 lc rgb "
                                "'#6a3d9a' t 'held out: median of %g fresh seeds'",
                                mb_json_get(ho, "seeds_max"));
    f->held = 1;
}

int mb_plot_validate(const char *validate_json, const char *out, const mb_plot_options *o,
                     mb_error *err)
{
    cJSON *root;
    int rc = mb_plot_read_validate(validate_json, &root, err);
    if (rc != MB_OK)
        return rc;
    vfig *f = calloc(1, sizeof *f);
    if (!f) {
        cJSON_Delete(root);
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    }
    f->root = root;
    f->rows = cJSON_GetObjectItemCaseSensitive(root, "rows");
    f->curve = cJSON_GetObjectItemCaseSensitive(root, "curve");
    f->probe = cJSON_GetObjectItemCaseSensitive(root, "curve_probe");
    f->rec = cJSON_GetObjectItemCaseSensitive(root, "recommended");
    f->best = cJSON_GetObjectItemCaseSensitive(root, "measured_best");
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(root, "law"), "model");
    f->law_name = cJSON_IsString(model) ? model->valuestring : "fitted law";
    series_of(f->rows, &f->s);
    if ((rc = mb_plot_begin(&f->p, o, out, err)) != MB_OK) {
        cJSON_Delete(root);
        free(f);
        return rc;
    }
    mb_plot_input(f->p, validate_json);
    snprintf(f->plot, sizeof f->plot, "plot ");
    f->used = strlen(f->plot);
    fig_extent(f);
    fig_curves(f);
    fig_runs(f);
    fig_unreached(f);
    fig_marks(f);
    add_holdout(f);
    mb_plot *p = f->p;
    if (f->used >= sizeof f->plot) {
        mb_plot_abort(p);
        cJSON_Delete(root);
        free(f);
        return mb_error_set(err, MB_EINVAL, "%s: too many series to plot", validate_json);
    }
    fig_axes(f);
    /* the prediction must be drawn; measured points may all be missing (nothing reached) */
    char name[32];
    const char *need[2] = {NULL, NULL};
    for (int k = 0; k <= f->s.n && !need[0]; k++) {
        snprintf(name, sizeof name, "curve%d", k);
        if (mb_plot_block_points(p, name) > 0)
            need[0] = name;
    }
    if (!need[0])
        need[0] = "curve0";
    cJSON_Delete(root);
    free(f);
    return mb_plot_finish(p, need, err);
}
