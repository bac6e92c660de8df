/* holdout.c — the held-out object of validate.json (mbopt validate --holdout) held to its own
 * rows: every summary the figure and the report print from it, and every one docs/formats.md
 * describes, recomputed from the rows as mbopt computes it (solver/holdout.c, holdout_check;
 * solver/mbopt_holdout.c, holdout_level and holdout_json) or, where the rows do not carry what
 * it was computed from, checked against them. validate.c's reader calls it once the fields are
 * each in range, so the figure and the report read one checked object (campaign 36's R1-R3: a
 * best median of 0.1 s beside rows whose least is 0.621 s printed "6.21x" on every row).
 *
 * Recomputed: the recommendation's and the best's medians, the best and the rival (each row's
 * median over all its runs, one that did not reach the target counted as infinitely slow), the
 * ratios, the verdict "none" (the recommendation's median not a number) and the others from the
 * rival's interval, the flat range, seeds_min..seeds_max, the median |error| and each row's
 * rel_err, the prediction's interval count, the error at the T_update level. Checked only: the
 * bootstrap intervals (they draw seeds, which the rows do not give: in order, and the median
 * |error|'s holding its point, as mbopt's does always), t_update_side (needs 3 graded settings;
 * a level above 1 when slower, below when faster, none when mixed). Composed: the check as one
 * sentence (solver/mbopt_holdout.c, holdout_verdict), which the file's `verdict` must be, whole,
 * and which the report prints in its place (campaign 38's F1).
 *
 * What it does not do: check a figure's range or type (validate.c, before this: it calls this
 * file, and this file calls nothing of it).
 */
#include "plot_impl.h"
#include "../data/mb_json.h"
#include "../solver/mb_solver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mb_plot_near(double a, double b)
{
    if (isinf(a) || isinf(b) || isnan(a) || isnan(b))
        return a == b || (isnan(a) && isnan(b));
    return fabs(a - b) <= 1e-3 * fmax(fabs(a), fabs(b)) + 1e-4 * (fabs(a) < 1 && fabs(b) < 1);
}

int mb_plot_same_figure(double a, double b)
{
    if (isinf(a) || isinf(b) || isnan(a) || isnan(b))
        return a == b || (isnan(a) && isnan(b));
    return fabs(a - b) <= 1e-3 * fmax(fabs(a), fabs(b));
}

int mb_plot_same_written(double written, double want)
{
    if (mb_plot_same_figure(written, want))
        return 1;
    if (!isfinite(written) || !isfinite(want) || written == 0)
        return 0;
    /* the fewest significant digits that give `written` back, and half a unit of the last */
    char s[40];
    int d = 1;
    for (; d <= 17; d++) {
        snprintf(s, sizeof s, "%.*e", d - 1, written);
        if (d == 17 || strtod(s, NULL) == written)
            break;
    }
    const char *e = strchr(s, 'e');
    const double half = 0.5 * pow(10, (e ? atoi(e + 1) : 0) - (d - 1));
    return fabs(written - want) <= half * (1 + 1e-9);
}

static int cmp_up(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double mb_plot_median(double *x, size_t n)
{
    if (n == 0)
        return NAN;
    qsort(x, n, sizeof *x, cmp_up);
    return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

/* The median of runs >= n times: x[0..n) (sorted here) and runs - n of +inf (runs that did
 * not reach the target, solver/holdout.c's row_pool), without storing the infinities. */
static double median_padded(double *x, size_t n, double runs)
{
    if (!(runs >= 1))
        return NAN;
    qsort(x, n, sizeof *x, cmp_up);
    const double h = floor((runs - 1) / 2), k = floor(runs / 2); /* the middle index, or two */
    const double a = h < (double)n ? x[(size_t)h] : INFINITY;
    const double b = k < (double)n ? x[(size_t)k] : INFINITY;
    return (a + b) / 2;
}

/* The held-out verdict's string ("" when it is not one). */
static const char *verdict_of(const cJSON *ho)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(ho, "verdict");
    return cJSON_IsString(v) && v->valuestring ? v->valuestring : "";
}

/* One held-out row as read: P (1 where null), M, rate (NAN: not given), runs, the median over
 * all of them (+inf for the unreached), the reached runs' median, prediction, error, interval. */
typedef struct ho_row {
    double procs, batch, lr, runs, reached, med_all, med, pred, rel_err, lo, hi;
    int pool; /* one of the settings the check graded */
} ho_row;

/* The row's median over every run (solver/holdout.c, row_pool: reached times, then +inf). */
static int row_read(const cJSON *r, int i, ho_row *o, double *buf, const char *path,
                    mb_error *err)
{
    const double p = mb_json_get(r, "procs");
    o->procs = isnan(p) ? 1 : p;
    o->batch = mb_json_get(r, "batch");
    o->lr = mb_json_get(r, "lr");
    o->runs = mb_json_get(r, "runs");
    o->med = mb_json_get(r, "t_train_median_s");
    o->pred = mb_json_get(r, "t_pred_s");
    o->rel_err = mb_json_get(r, "rel_err");
    o->lo = mb_json_get(r, "t_pred_lo_s");
    o->hi = mb_json_get(r, "t_pred_hi_s");
    o->pool = 0;
    const double reached = o->reached = mb_json_get(r, "reached");
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(r, "t_runs_s"), *t;
    size_t n = 0;
    cJSON_ArrayForEach(t, (cJSON_IsArray(ts) ? ts : NULL))
    {
        if (!cJSON_IsNumber(t) || (double)n >= reached)
            break;
        buf[n++] = t->valuedouble;
    }
    if (reached > 0 && (double)n != reached) /* the median over all runs needs every time */
        return mb_error_set(err, MB_EFORMAT, "%s: field 'holdout.rows[%d].t_runs_s': %s, but "
                            "%g runs reached the target (the held-out medians are of every "
                            "run's time)", path, i, cJSON_IsArray(ts) ? "a time is null" :
                            "missing", reached);
    o->med_all = median_padded(buf, n, o->runs);
    /* the row's own error: its prediction over its median */
    if (isfinite(o->rel_err) && !(isfinite(o->pred) && isfinite(o->med) &&
                                  mb_plot_same_figure(o->pred, o->med * (1 + o->rel_err))))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'holdout.rows[%d].rel_err': %g, but the "
                            "row's t_pred_s over t_train_median_s gives %g", path, i,
                            o->rel_err, o->pred / o->med - 1);
    return MB_OK;
}

/* Reads the rows into rows[0..n), the recommendation's index into *rec: the row at holdout.batch
 * and procs at the recommendation's rate (validate.json's recommended.lr; NAN: any). The pool
 * the check graded: one learner's rows at that rate (the recommendation's P when it is 1), and
 * the recommendation. Two rows of one setting (P null read as 1) are refused. */
static int rows_read(const cJSON *ho, double rec_lr, ho_row *rows, int *n, int *rec,
                     const char *path, mb_error *err)
{
    const cJSON *all = cJSON_GetObjectItemCaseSensitive(ho, "rows"), *r;
    const double m = mb_json_get(ho, "batch"), p = mb_json_get(ho, "procs");
    size_t most = 1; /* the longest list of times (runs may be any count: none is stored) */
    cJSON_ArrayForEach(r, all)
    {
        const int k = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "t_runs_s"));
        most = (size_t)k > most ? (size_t)k : most;
    }
    double *buf = malloc(most * sizeof *buf);
    if (!buf)
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    int i = 0, rc = MB_OK;
    *rec = -1;
    cJSON_ArrayForEach(r, all)
    {
        if ((rc = row_read(r, i, &rows[i], buf, path, err)) != MB_OK)
            break;
        for (int j = 0; rc == MB_OK && j < i; j++)
            if (rows[j].procs == rows[i].procs && rows[j].batch == rows[i].batch &&
                (isnan(rows[j].lr) || isnan(rows[i].lr) ||
                 mb_solver_same_rate(rows[j].lr, rows[i].lr)))
                rc = mb_error_set(err, MB_EFORMAT, "%s: field 'holdout.rows[%d]': the setting "
                                  "of holdout.rows[%d] (P %g, M %g) given twice", path, i, j,
                                  rows[i].procs, rows[i].batch);
        if (rc == MB_OK && *rec < 0 && rows[i].batch == m && rows[i].procs == (isnan(p) ? 1 : p) &&
            (isnan(rec_lr) || isnan(rows[i].lr) || mb_solver_same_rate(rows[i].lr, rec_lr)))
            *rec = i;
        if (rc != MB_OK)
            break;
        i++;
    }
    free(buf);
    *n = i;
    if (rc == MB_OK && *rec < 0)
        rc = mb_error_set(err, MB_EFORMAT, "%s: field 'holdout.batch': no held-out row trained "
                          "M %g at the recommendation's P and rate", path, m);
    const double p_rivals = rc == MB_OK && rows[*rec].procs > 1 ? 1 : isnan(p) ? 1 : p;
    for (int k = 0; rc == MB_OK && k < i; k++)
        rows[k].pool = k == *rec || (rows[k].procs == p_rivals &&
                                     (isnan(rows[k].lr) || isnan(rows[*rec].lr) ||
                                      mb_solver_same_rate(rows[k].lr, rows[*rec].lr)));
    return rc;
}

/* holdout.batch and procs are the recommendation's (validate.json's recommended): its trained
 * M where it was measured, else its M a whole number a learner (mb_solver_m_whole). */
static int is_recommended(const cJSON *root, const cJSON *ho, const char *path, mb_error *err)
{
    const cJSON *rec = cJSON_GetObjectItemCaseSensitive(root, "recommended");
    const double p = mb_json_get(rec, "procs"), hp = mb_json_get(ho, "procs");
    const double m = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "measured"))
                         ? mb_json_get(rec, "batch_run")
                         : mb_solver_m_whole(mb_json_get(rec, "batch"), isnan(p) ? 1 : p);
    if (isfinite(p) && isfinite(hp) && p != hp)
        return mb_error_set(err, MB_EFORMAT, "%s: field 'holdout.procs': %g, but the "
                            "recommendation's P (recommended.procs) is %g", path, hp, p);
    if (isfinite(m) && mb_json_get(ho, "batch") != m)
        return mb_error_set(err, MB_EFORMAT, "%s: field 'holdout.batch': M %g, but the "
                            "recommendation's is M %g (recommended)", path,
                            mb_json_get(ho, "batch"), m);
    return MB_OK;
}

/* A held-out figure against its recomputed value: one line naming the field. */
static int figure(const cJSON *ho, const char *key, double want, int (*same)(double, double),
                  const char *why, const char *path, mb_error *err)
{
    const double got = mb_json_get(ho, key);
    if (!cJSON_GetObjectItemCaseSensitive(ho, key) || same(got, isinf(want) ? NAN : want))
        return MB_OK; /* absent (older files; required ones are checked before) */
    return mb_error_set(err, MB_EFORMAT, "%s: field 'holdout.%s': %g, but %s %g", path, key, got,
                        why, want);
}

/* The graded row that holdout.KEY names (M m, at P p where given; not row `skip`) has the
 * least median, row `least`'s (ties either way). */
static int named_row(const char *key, const ho_row *rows, int n, int skip,
                     double m, double p, int least, const char *path, mb_error *err)
{
    for (int k = 0; k < n; k++)
        if (rows[k].pool && k != skip && rows[k].batch == m && (isnan(p) || rows[k].procs == p)) {
            if (rows[k].med_all == rows[least].med_all)
                return MB_OK;
            return mb_error_set(err, MB_EFORMAT, "%s: field 'holdout.%s': M %g's held-out median "
                                "is %g s, but M %g's is %g s", path, key, m, rows[k].med_all,
                                rows[least].batch, rows[least].med_all);
        }
    return mb_error_set(err, MB_EFORMAT, "%s: field 'holdout.%s': M %g is no graded held-out "
                        "row's (the recommendation's rate, one learner's or its P)", path, key, m);
}

/* The best, the rival, the medians, the ratios and the verdict, from the rows' medians. */
static int medians_agree(const cJSON *ho, const ho_row *rows, int n, int rec, const char *path,
                         mb_error *err)
{
    int best = rec, rv = -1, rc = MB_OK;
    for (int k = 0; k < n; k++) {
        if (!rows[k].pool)
            continue;
        if (rows[k].med_all < rows[best].med_all)
            best = k;
        if (k != rec && (rv < 0 || rows[k].med_all < rows[rv].med_all))
            rv = k;
    }
    const double mb = mb_json_get(ho, "best_batch"), pb = mb_json_get(ho, "best_procs");
    const double mr = mb_json_get(ho, "rival_batch");
    const int graded = isfinite(rows[rec].med_all), none = !strcmp(verdict_of(ho), "none");
    if (isfinite(rows[best].med_all))
        rc = named_row("best_batch", rows, n, -1, mb, pb, best, path, err);
    if (rc == MB_OK && graded && rv >= 0)
        rc = named_row("rival_batch", rows, n, rec, mr, NAN, rv, path, err);
    if (rc == MB_OK && graded == none)
        rc = mb_error_set(err, MB_EFORMAT, "%s: field 'holdout.verdict': %s, but the "
                          "recommendation's held-out median is %s", path,
                          none ? "\"none\"" : "graded", graded ? "a number" : "not (too few of "
                          "its runs reached the target)");
    if (rc == MB_OK)
        rc = figure(ho, "t_train_median_s", rows[rec].med, mb_plot_same_figure,
                    "the recommendation's row's t_train_median_s is", path, err);
    if (rc == MB_OK && isfinite(rows[best].med_all))
        rc = figure(ho, "best_t_train_median_s", rows[best].med, mb_plot_same_figure,
                    "the best row's t_train_median_s is", path, err);
    if (rc == MB_OK && graded)
        rc = figure(ho, "ratio", rows[rec].med_all / rows[best].med_all, mb_plot_same_figure,
                    "the rows' medians give", path, err);
    if (rc == MB_OK && graded && rv >= 0)
        rc = figure(ho, "rival_ratio", rows[rec].med_all / rows[rv].med_all, mb_plot_same_figure,
                    "the rows' medians give", path, err);
    static const char *const nulls[] = {"ratio", "ratio_lo", "ratio_hi", "rival_ratio"};
    for (size_t k = 0; rc == MB_OK && none && k < 4; k++)
        if (isfinite(mb_json_get(ho, nulls[k])))
            rc = mb_error_set(err, MB_EFORMAT, "%s: field 'holdout.%s': %g, but the verdict is "
                              "\"none\" (null there)", path, nulls[k], mb_json_get(ho, nulls[k]));
    return rc;
}

/* The verdict from the rival's interval (null: +inf), as mbopt's: ahead below 1, behind above. */
static int verdict_agrees(const cJSON *ho, const char *path, mb_error *err)
{
    const char *v = verdict_of(ho);
    double lo = mb_json_get(ho, "rival_ratio_lo"), hi = mb_json_get(ho, "rival_ratio_hi");
    if (!strcmp(v, "none"))
        return MB_OK;
    lo = isnan(lo) ? INFINITY : lo;
    hi = isnan(hi) ? INFINITY : hi;
    const char *want = hi < 1 ? "ahead" : lo > 1 ? "behind" : "tied";
    if (strcmp(v, want) != 0)
        return mb_error_set(err, MB_EFORMAT, "%s: field 'holdout.verdict': \"%s\", but the "
                            "rival's interval %g-%g makes it \"%s\"", path, v, lo, hi, want);
    return MB_OK;
}

/* The flat range (pool rows at the rivals' P within MB_SOLVER_FLAT of the best) and the seeds
 * a graded setting (fewest, most runs). */
static int range_agrees(const cJSON *ho, const ho_row *rows, int n, int rec, const char *path,
                        mb_error *err)
{
    double least = INFINITY, lo = INFINITY, hi = 0, s_lo = INFINITY, s_hi = 0;
    const double p_rivals = rows[rec].procs > 1 ? 1 : rows[rec].procs;
    for (int k = 0; k < n; k++)
        if (rows[k].pool) {
            least = fmin(least, rows[k].med_all);
            s_lo = fmin(s_lo, rows[k].runs);
            s_hi = fmax(s_hi, rows[k].runs);
        }
    for (int k = 0; isfinite(least) && k < n; k++)
        if (rows[k].pool && rows[k].procs == p_rivals &&
            rows[k].med_all <= (1 + MB_SOLVER_FLAT) * least) {
            lo = fmin(lo, rows[k].batch);
            hi = fmax(hi, rows[k].batch);
        }
    const double flo = mb_json_get(ho, "flat_lo"), fhi = mb_json_get(ho, "flat_hi");
    if (!(lo <= hi ? flo == lo && fhi == hi : isnan(flo) && isnan(fhi))) {
        char got[64], want[64];
        snprintf(got, sizeof got, isnan(flo) ? "null" : "M %g..%g", flo, fhi);
        snprintf(want, sizeof want, lo <= hi ? "are M %g..%g" : "are none (null)", lo, hi);
        return mb_error_set(err, MB_EFORMAT, "%s: field 'holdout.flat_lo': %s, but the rows at "
                            "the rivals' P within %g%% of the best median %s", path, got,
                            100 * MB_SOLVER_FLAT, want);
    }
    int rc = figure(ho, "seeds_min", s_lo, mb_plot_same_figure,
                    "the fewest runs of a graded row is", path, err);
    if (rc == MB_OK)
        rc = figure(ho, "seeds_max", s_hi, mb_plot_same_figure,
                    "the most runs of a graded row is", path, err);
    return rc;
}

/* The median |error| of the graded rows and its interval (holding its point), the prediction's
 * interval count over every row (holdout_level), and the T_update level's figures. */
static int errors_agree(const cJSON *ho, const ho_row *rows, int n, const char *path,
                        mb_error *err)
{
    double *e = malloc(((size_t)n + 1) * sizeof *e);
    if (!e)
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    size_t k = 0, graded = 0, holds = 0;
    for (int i = 0; i < n; i++) {
        if (rows[i].pool && isfinite(rows[i].rel_err))
            e[k++] = fabs(rows[i].rel_err);
        if (isfinite(rows[i].lo) && isfinite(rows[i].rel_err)) {
            graded++;
            holds += rows[i].med >= rows[i].lo && rows[i].med <= rows[i].hi;
        }
    }
    const double point = mb_plot_median(e, k);
    int rc = figure(ho, "median_abs_rel_err", point, mb_plot_near,
                    "the graded rows' |rel_err| have the median", path, err);
    const double elo = mb_json_get(ho, "median_abs_rel_err_lo");
    const double ehi = mb_json_get(ho, "median_abs_rel_err_hi");
    if (rc == MB_OK && isfinite(point) &&
        ((isfinite(elo) && elo > point && !mb_plot_near(elo, point)) ||
         (isfinite(ehi) && ehi < point && !mb_plot_near(ehi, point))))
        rc = mb_error_set(err, MB_EFORMAT, "%s: field 'holdout.median_abs_rel_err_%s': %g-%g "
                          "does not hold its point, %g", path, elo > point ? "lo" : "hi", elo,
                          ehi, point);
    if (rc == MB_OK)
        rc = figure(ho, "pred_interval_graded", (double)graded, mb_plot_same_figure,
                    "the rows with an interval and an error number", path, err);
    if (rc == MB_OK)
        rc = figure(ho, "pred_interval_holds", (double)holds, mb_plot_same_figure,
                    "the medians inside their row's interval number", path, err);
    free(e);
    return rc;
}

/* t_update_side: "slower", "faster" (every graded setting's runs, 3 or more, on one side of the
 * model's T_update) or "mixed"; t_update_level above 1 when slower, below when faster, null
 * when mixed; median_abs_err_at_level recomputed with it, null with it. Absent: older files
 * (no side: none of them; a side alone: before the level). */
static int level_agrees(const cJSON *ho, const ho_row *rows, int n, const char *path,
                        mb_error *err)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(ho, "t_update_side");
    const double level = mb_json_get(ho, "t_update_level"); /* > 0 or null: validate.c */
    const double at = mb_json_get(ho, "median_abs_err_at_level");
    if (!s && isnan(level) && isnan(at))
        return MB_OK;
    const char *side = cJSON_IsString(s) ? s->valuestring : NULL;
    const int slower = side && !strcmp(side, "slower"), faster = side && !strcmp(side, "faster");
    if (!slower && !faster && !(side && !strcmp(side, "mixed")))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'holdout.t_update_side': %s", path,
                            s ? "not \"slower\", \"faster\" or \"mixed\"" : "missing beside "
                            "t_update_level");
    int pool = 0;
    for (int i = 0; i < n; i++)
        pool += rows[i].pool;
    if ((slower || faster) && pool < 3)
        return mb_error_set(err, MB_EFORMAT, "%s: field 'holdout.t_update_side': \"%s\", but "
                            "%d settings were graded (a side needs 3 or more)", path, side, pool);
    if (!cJSON_GetObjectItemCaseSensitive(ho, "t_update_level") &&
        !cJSON_GetObjectItemCaseSensitive(ho, "median_abs_err_at_level"))
        return MB_OK; /* a file from before the level (mbopt's sessions 10-11) */
    if ((slower || faster) != isfinite(level) || (slower && !(level > 1)) ||
        (faster && !(level < 1)))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'holdout.t_update_level': %g, but the "
                            "side is \"%s\" (above 1 when slower, below when faster, null when "
                            "mixed)", path, level, side);
    double *e = malloc(((size_t)n + 1) * sizeof *e);
    if (!e)
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    size_t k = 0;
    for (int i = 0; isfinite(level) && i < n; i++)
        if (rows[i].pool && isfinite(rows[i].rel_err) && rows[i].med > 0)
            e[k++] = fabs(rows[i].pred * level - rows[i].med) / rows[i].med;
    const double want = mb_plot_median(e, k);
    free(e);
    if (!(isnan(want) ? isnan(at) : mb_plot_near(at, want)))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'holdout.median_abs_err_at_level': %g, "
                            "but the graded rows at t_update_level %g give %g", path, at, level,
                            want);
    return MB_OK;
}

/* A figure as mbopt prints it (solver/mbopt_common.c, fmt): "-" where it is no number. */
static const char *fig(char *buf, size_t n, const char *f, double v)
{
    if (!isfinite(v))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, f, v);
    return buf;
}

/* "M = 26", or "P = 1, M = 26" in a check across learner counts (mbopt_holdout.c's
 * setting_name). */
static const char *setting(char *buf, size_t n, const ho_row *r, int across)
{
    if (across)
        snprintf(buf, n, "P = %g, M = %g", r->procs, r->batch);
    else
        snprintf(buf, n, "M = %g", r->batch);
    return buf;
}

/* The graded row that holdout.KEY names (M m, at P p where given; not row `skip`), as
 * named_row found it: -1 for none. */
static int row_named(const ho_row *rows, int n, int skip, double m, double p)
{
    for (int k = 0; k < n; k++)
        if (rows[k].pool && k != skip && rows[k].batch == m && (isnan(p) || rows[k].procs == p))
            return k;
    return -1;
}

/* The held-out check that graded nothing, as mbopt says it (mbopt_holdout.c, holdout_ungraded),
 * from the rows' runs and the target. */
static void ungraded(char *buf, size_t size, const cJSON *root, const ho_row *rows, int n,
                     int rec)
{
    double runs = 0, reached = 0;
    for (int i = 0; i < n; i++) {
        runs += rows[i].runs;
        reached += isfinite(rows[i].reached) ? rows[i].reached : 0;
    }
    const double target = mb_json_get(root, "target_loss");
    const ho_row *r = &rows[rec];
    if (reached == 0)
        snprintf(buf, size, "held out: no held-out run reached the target loss %g (%.0f runs): "
                 "nothing to grade; train the held-out runs to that target", target, runs);
    else if (!(r->reached > 0))
        snprintf(buf, size, "held out: %.0f of %.0f held-out runs reached the target loss %g, "
                 "none of the %.0f at the recommended M = %g: nothing to grade it by", reached,
                 runs, target, r->runs, r->batch);
    else
        snprintf(buf, size, "held out: %.0f of %.0f held-out runs reached the target loss %g, not "
                 "at every held-out M: no best to grade the recommended M = %g by", reached, runs,
                 target, r->batch);
}

/* The error's parenthesis of the graded sentence ("(95% interval over their seeds 2.6-20.2%; of
 * N_update 4.6%, of T_update 0.8%)", the T_update level's clause inside it), into buf; empty for
 * a file from before them (none of their fields there). */
static void error_detail(char *buf, size_t size, const cJSON *ho, double level)
{
    static const char *const keys[] = {"median_abs_rel_err_lo", "median_abs_rel_err_hi",
                                       "n_update_median_abs_rel_err",
                                       "t_update_median_abs_rel_err", "t_update_side"};
    int any = 0;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        any |= cJSON_GetObjectItemCaseSensitive(ho, keys[k]) != NULL;
    buf[0] = '\0';
    if (!any)
        return;
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(ho, "t_update_side");
    const char *side = cJSON_IsString(s) ? s->valuestring : "mixed";
    char c[5][32], lv[256] = "";
    if (!strcmp(side, "slower") || !strcmp(side, "faster"))
        snprintf(lv, sizeof lv, ", every M's runs %s an update than the model, a median %sx: a "
                 "level (the machine's speed during the check, or T_update's), not the model's "
                 "shape, and T_C's median |error| with it divided out is %s", side,
                 fig(c[3], sizeof c[3], "%.3g", mb_json_get(ho, "t_update_level")),
                 fig(c[4], sizeof c[4], "%.1f%%", 100 * mb_json_get(ho, "median_abs_err_at_level")));
    snprintf(buf, size, " (%.0f%% interval over their seeds %s-%s; of N_update %s, of T_update "
             "%s%s)", 100 * level,
             fig(c[0], sizeof c[0], "%.1f", 100 * mb_json_get(ho, "median_abs_rel_err_lo")),
             fig(c[1], sizeof c[1], "%.1f%%", 100 * mb_json_get(ho, "median_abs_rel_err_hi")),
             fig(c[2], sizeof c[2], "%.1f%%", 100 * mb_json_get(ho, "n_update_median_abs_rel_err")),
             fig(c[3], sizeof c[3], "%.1f%%", 100 * mb_json_get(ho, "t_update_median_abs_rel_err")),
             lv);
}

/* The held-out check as one sentence, composed from the checked object and its rows as mbopt
 * composes it (solver/mbopt_holdout.c, holdout_verdict; the error's parenthesis and the
 * prediction's interval count left out where a file from before them lacks their fields). */
static void compose(char *buf, size_t size, const cJSON *root, const cJSON *ho,
                    const ho_row *rows, int n, int rec)
{
    const int b = row_named(rows, n, -1, mb_json_get(ho, "best_batch"),
                            mb_json_get(ho, "best_procs"));
    const int rv = row_named(rows, n, rec, mb_json_get(ho, "rival_batch"), NAN);
    if (!strcmp(verdict_of(ho), "none") || b < 0 || rv < 0) {
        ungraded(buf, size, root, rows, n, rec);
        return;
    }
    const ho_row *r = &rows[rec];
    const int across = r->procs > 1;
    const double lvl = isfinite(mb_json_get(ho, "level")) ? mb_json_get(ho, "level")
                                                          : MB_HOLDOUT_LEVEL;
    const double s_lo = mb_json_get(ho, "seeds_min"), s_hi = mb_json_get(ho, "seeds_max");
    char seeds[64], sr[64], sb[64], sv[64], c[6][32], flat[128], err[512], level[256] = "";
    snprintf(seeds, sizeof seeds, s_lo == s_hi ? "%.0f" : "%.0f-%.0f", s_lo, s_hi);
    const double flo = mb_json_get(ho, "flat_lo"), fhi = mb_json_get(ho, "flat_hi");
    if (isfinite(flo))
        snprintf(flat, sizeof flat, "M = %g..%g%s within %.0f%% of the best", flo, fhi,
                 across ? " at P = 1" : "", 100 * MB_SOLVER_FLAT);
    else
        snprintf(flat, sizeof flat, "no one-learner M within %.0f%% of the best",
                 100 * MB_SOLVER_FLAT);
    const double graded = mb_json_get(ho, "pred_interval_graded");
    const double plvl = mb_json_get(ho, "pred_interval_level");
    if (graded > 0)
        snprintf(level, sizeof level, "; the prediction's %.0f%% interval over resamples of the "
                 "in-sample seeds holds the held-out median at %.0f of %.0f settings",
                 100 * (isfinite(plvl) ? plvl : MB_SOLVER_TC_LEVEL),
                 mb_json_get(ho, "pred_interval_holds"), graded);
    error_detail(err, sizeof err, ho, lvl);
    int n_err = 0;
    for (int i = 0; i < n; i++)
        n_err += rows[i].pool && isfinite(rows[i].rel_err);
    snprintf(buf, size,
             "held out (%s fresh seeds a setting, none used to fit or choose): the recommended "
             "%s trained in %.3g s (median), %.2fx the best held-out %s (%s, %.3g s; "
             "%.0f%% interval%s %s-%sx); against its best rival, %s (%.3g s): %.2fx "
             "(%.0f%% interval %s-%s): %s; median |error| of predicted T_C on the held-out "
             "runs %s over %d settings%s%s; flat (held out): %s",
             seeds, setting(sr, sizeof sr, r, across), r->med, mb_json_get(ho, "ratio"),
             across ? "setting" : "M", setting(sb, sizeof sb, &rows[b], across), rows[b].med,
             100 * lvl,
             cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ho, "paired")) ? " paired by seed" : "",
             fig(c[0], sizeof c[0], "%.2f", mb_json_get(ho, "ratio_lo")),
             fig(c[1], sizeof c[1], "%.2f", mb_json_get(ho, "ratio_hi")),
             setting(sv, sizeof sv, &rows[rv], across), rows[rv].med,
             mb_json_get(ho, "rival_ratio"), 100 * lvl,
             fig(c[2], sizeof c[2], "%.2f", mb_json_get(ho, "rival_ratio_lo")),
             fig(c[3], sizeof c[3], "%.2f", mb_json_get(ho, "rival_ratio_hi")), verdict_of(ho),
             fig(c[4], sizeof c[4], "%.1f%%", 100 * mb_json_get(ho, "median_abs_rel_err")), n_err,
             err, level, flat);
}

/* validate.json's verdict, the check as one sentence, is the one mbopt composes from the
 * held-out object, whole (campaign 37's R1 held four of its figures; campaign 38's F1: the best
 * M, the intervals, the rival, the seeds and text added before or after were printed as
 * written). The report prints the composed sentence (mb_plot_holdout_sentence), never the
 * file's. */
static int sentence_agrees(const cJSON *root, const cJSON *ho, const ho_row *rows, int n,
                           int rec, const char *path, mb_error *err)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(root, "verdict");
    if (!cJSON_IsString(s))
        return MB_OK; /* missing or not a string: validate.c says so */
    char want[MB_PLOT_SENTENCE_MAX];
    compose(want, sizeof want, root, ho, rows, n, rec);
    const char *said = s->valuestring;
    if (!strcmp(said, want))
        return MB_OK;
    size_t at = 0;
    while (said[at] && said[at] == want[at])
        at++;
    /* one line: from a little before the first difference, up to 60 characters of each */
    const size_t from = at > 24 ? at - 24 : 0;
    const char *a = said + from, *w = want + from;
    const size_t na = strcspn(a, "\n\r"), nw = strlen(w);
    const char *dots = from ? "..." : "";
    return mb_error_set(err, MB_EFORMAT, "%s: field 'verdict': not the held-out object's "
                        "sentence, from character %zu: it reads \"%s%.*s%s\" where the object "
                        "gives \"%s%.*s%s\"", path, at + 1, dots, (int)(na > 60 ? 60 : na), a,
                        na > 60 || a[na] ? "..." : "", dots, (int)(nw > 60 ? 60 : nw), w,
                        nw > 60 ? "..." : "");
}

int mb_plot_holdout_sentence(const cJSON *root, char *buf, size_t size)
{
    const cJSON *ho = cJSON_GetObjectItemCaseSensitive(root, "holdout");
    if (!cJSON_IsObject(ho)) {
        snprintf(buf, size, "not held out: no held-out runs were given (--holdout DIR; plan them "
                 "with --holdout-plan N); the in-sample line above grades the answer on the runs "
                 "that chose it, which is no check");
        return MB_OK;
    }
    const int n_rows = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(ho, "rows"));
    ho_row *rows = malloc(((size_t)n_rows + 1) * sizeof *rows);
    mb_error e = {0};
    int n = 0, rec = -1, rc = rows ? MB_OK : MB_ENOMEM;
    const double rec_lr = mb_json_get(cJSON_GetObjectItemCaseSensitive(root, "recommended"), "lr");
    if (rc == MB_OK && (rc = rows_read(ho, rec_lr, rows, &n, &rec, "", &e)) == MB_OK)
        compose(buf, size, root, ho, rows, n, rec);
    free(rows);
    return rc;
}

int mb_plot_holdout_agrees(const cJSON *root, const cJSON *ho, const char *path, mb_error *err)
{
    const int n_rows = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(ho, "rows"));
    const cJSON *paired = cJSON_GetObjectItemCaseSensitive(ho, "paired");
    if (paired && !cJSON_IsBool(paired))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'holdout.paired': not true or false",
                            path);
    int rc = is_recommended(root, ho, path, err);
    if (rc != MB_OK)
        return rc;
    ho_row *rows = malloc(((size_t)n_rows + 1) * sizeof *rows);
    if (!rows)
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    int n = 0, rec = -1;
    const double rec_lr = mb_json_get(cJSON_GetObjectItemCaseSensitive(root, "recommended"), "lr");
    if ((rc = rows_read(ho, rec_lr, rows, &n, &rec, path, err)) == MB_OK &&
        (rc = medians_agree(ho, rows, n, rec, path, err)) == MB_OK &&
        (rc = verdict_agrees(ho, path, err)) == MB_OK &&
        (rc = range_agrees(ho, rows, n, rec, path, err)) == MB_OK &&
        (rc = errors_agree(ho, rows, n, path, err)) == MB_OK &&
        (rc = level_agrees(ho, rows, n, path, err)) == MB_OK)
        rc = sentence_agrees(root, ho, rows, n, rec, path, err);
    free(rows);
    return rc;
}
