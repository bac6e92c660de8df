/* figures.c — the figures of mbkit, each drawn from the stage files alone: scaling (T_C and
 * speed-up against P), T_C against M for several P, Amdahl speed-up, the step probe with its
 * fitted knee, and collective times with their alpha-beta fit.
 *
 * Axes carry units; quantities spanning decades are drawn on log scales.
 */
#include "mb_plot.h"
#include "plot_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "../fit/mb_fit.h"
#include "../solver/mb_solver.h"
#include "../data/mb_json.h"
#include "../data/mb_parse.h"
#include "../data/mb_format.h"

/* A scale row's efficiencies (campaign 21's N10: efficiency_opt 5 was drawn): each, where
 * given, its speed-up / procs, as mbopt scale writes it, and the optimal one in (0, 1] (M
 * re-optimised for P learners never beats P times one learner's best at that M). */
static int row_efficiency(const cJSON *r, const char *path, const char *where, mb_error *err)
{
    static const char *const kinds[] = {"opt", "strong", "weak"};
    const double procs = mb_json_get(r, "procs");
    int rc = MB_OK;
    for (int k = 0; rc == MB_OK && k < 3; k++) {
        char ek[32], sk[32];
        double e;
        snprintf(ek, sizeof ek, "efficiency_%s", kinds[k]);
        snprintf(sk, sizeof sk, "speedup_%s", kinds[k]);
        rc = mb_json_number_in(r, ek, path, where, 0, k ? HUGE_VAL : 1, MB_JSON_ABOVE_LO, 0, &e,
                               err);
        const double s = mb_json_get(r, sk);
        if (rc == MB_OK && !isnan(e) && !isnan(s) && fabs(e - s / procs) > 1e-9 * e)
            rc = mb_error_set(err, MB_EFORMAT, "%s: %s'%s': %g is not %s / procs (%g / %g)",
                              path, where, ek, e, sk, s, procs);
    }
    return rc;
}

/* Shared look: grid, key placement, a readable point size. */
static void style(mb_plot *p, const char *title)
{
    mb_plot_cmd(p, "set title \"%s\" noenhanced", title);
    mb_plot_cmd(p, "set grid xtics ytics mxtics mytics lc rgb '#dddddd'");
    mb_plot_cmd(p, "set key top right box opaque");
    mb_plot_cmd(p, "set pointsize 1.2");
}

/* The first item of the array `arr` whose `key` an earlier item has (by sorting,
 * mb_data_first_repeat): 1 with *at, *first and the value *v, 0 if none, -1 out of memory. */
static int repeat_in(const cJSON *arr, const char *key, size_t *at, size_t *first, double *v)
{
    const int n = cJSON_GetArraySize(arr);
    double *x = malloc(((size_t)n + 1) * sizeof *x);
    if (!x)
        return -1;
    const cJSON *e;
    int i = 0;
    cJSON_ArrayForEach(e, arr)
    {
        x[i++] = mb_json_get(e, key);
    }
    int found = mb_data_first_repeat(x, (size_t)n, 1, at, first);
    if (found > 0)
        *v = x[*at];
    free(x);
    return found;
}

/* Each value of `key` once in the array `arr`, or `why` (its arguments: the path, the repeat's
 * index, the value, the first's index) as the error: an nfit's per_m, one mean an M (campaign
 * 29's B8: an M listed twice was drawn twice, where mbplot conv and validate refuse a row
 * twice); a scale file's rows, one a P (by sorting: comparing each row with every earlier one
 * took minutes on 200,000 rows, campaign 29's B1). */
static int given_once(const cJSON *arr, const char *key, const char *path, const char *why,
                      mb_error *err)
{
    size_t at, first;
    double v;
    int found = repeat_in(arr, key, &at, &first, &v);
    if (found < 0)
        return mb_error_set(err, MB_ENOMEM, "%s: out of memory", path);
    if (found)
        return mb_error_set(err, MB_EFORMAT, why, path, at, v, first);
    return MB_OK;
}

/* A row's strong (M fixed at m_strong) and weak (M/P fixed at m_weak: M = m_weak P) T_C held
 * to the file's model at that M, to the digits written, where the row gives one (campaign 43's
 * B-F4: a forged t_c_strong half the model's, with its speed-up to match, was drawn). */
static int policy_holds(const cJSON *r, int i, const char *key, double m, const mb_law *law,
                        const mb_update_time *t, const char *path, mb_error *err)
{
    const double got = mb_json_get(r, key), p = mb_json_get(r, "procs");
    double tc = NAN;
    if (!isfinite(got))
        return MB_OK;
    if (!(isfinite(m) && m >= p && mb_model_law_tc(law, t, m, p, &tc) == MB_OK))
        tc = NAN;
    if (!(isfinite(tc) && mb_plot_same_written(got, tc)))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'rows[%d].%s': %g, but the file's model "
                            "gives %.4g s at M %g (P %g)", path, i, key, got, tc, m, p);
    return MB_OK;
}

/* Each row's optimum held to the file's own model (campaign 40's B-F3: tc drew P = 2's M_opt at
 * M 5000, off its own curve, where the model's optimum is M 341.6): where the row gives the
 * range it was sought in (m_lo, and m_hi or null: no end), m_opt the optimum mbopt scale finds
 * there (mb_solver_optimum: to 1e-3 in T_C, as a flat minimum leaves M loose; a range whose
 * optimum the model cannot give is left, as mbopt scale refuses it), and t_c_opt the model's T_C
 * at m_opt, to the digits written; t_c_strong and t_c_weak likewise (policy_holds). */
static int optima_hold(const cJSON *root, const cJSON *rows, const mb_law *law,
                       const mb_update_time *t, const char *path, mb_error *err)
{
    const double m_strong = mb_json_get(root, "m_strong"), m_weak = mb_json_get(root, "m_weak");
    const cJSON *r;
    int i = 0;
    cJSON_ArrayForEach(r, rows)
    {
        const double p = mb_json_get(r, "procs"), m = mb_json_get(r, "m_opt");
        const double got = mb_json_get(r, "t_c_opt"), lo = mb_json_get(r, "m_lo");
        const cJSON *hi_o = cJSON_GetObjectItemCaseSensitive(r, "m_hi");
        double tc = NAN, hi = mb_json_get(r, "m_hi");
        mb_solver_optimum_result o;
        mb_error e = {0};
        i++;
        int rc = policy_holds(r, i - 1, "t_c_strong", m_strong, law, t, path, err);
        if (rc == MB_OK)
            rc = policy_holds(r, i - 1, "t_c_weak", m_weak * p, law, t, path, err);
        if (rc != MB_OK)
            return rc;
        if (!isfinite(m))
            continue;
        if (mb_model_law_tc(law, t, m, p, &tc) != MB_OK)
            tc = NAN;
        hi = hi_o && cJSON_IsNull(hi_o) ? INFINITY : hi;
        if (isfinite(lo) && !isnan(hi) && mb_solver_optimum(law, t, p, lo, hi, &o, &e) == MB_OK &&
            !(tc <= o.opt.t_c * (1 + 1e-3)))
            return mb_error_set(err, MB_EFORMAT, "%s: field 'rows[%d].m_opt': %g, but the file's "
                                "model puts the optimum at P = %g at M %.4g (T_C %.4g s there, "
                                "%.4g s at M %g)", path, i - 1, m, p, o.opt.m_opt, o.opt.t_c,
                                tc, m);
        if (isfinite(got) && !(isfinite(tc) && mb_plot_same_written(got, tc)))
            return mb_error_set(err, MB_EFORMAT, "%s: field 'rows[%d].t_c_opt': %g, but the "
                                "file's model gives %.4g s at its m_opt, M %g (P %g)", path,
                                i - 1, got, tc, m, p);
    }
    return MB_OK;
}

/* Reads a scale JSON: its rows array and model, the file checked as its every reader checks it
 * (mb_solver_check_scale) beside what the figures draw of its rows, each row's optimum held to
 * the model (optima_hold). */
static int read_scale(const char *path, cJSON **root, const cJSON **rows, mb_law *law,
                      mb_update_time *t, mb_error *err)
{
    int rc = mb_json_read(path, root, err);
    if (rc == MB_OK && (rc = mb_format_check_json(*root, path, MB_FORMAT_SCALE, err)) != MB_OK) {
        cJSON_Delete(*root); /* a file of another kind (a fit, a validation) */
        *root = NULL;
    }
    if (rc != MB_OK)
        return rc;
    *rows = cJSON_GetObjectItemCaseSensitive(*root, "rows");
    if (!cJSON_IsArray(*rows) || cJSON_GetArraySize(*rows) == 0) {
        cJSON_Delete(*root);
        return mb_error_set(err, MB_EFORMAT, "%s: no 'rows' array (is this mbopt scale --json?)",
                            path);
    }
    if (cJSON_GetArraySize(*rows) > MB_PLOT_ROWS_MAX) {
        rc = mb_error_set(err, MB_EFORMAT, "%s: field 'rows': %d rows, more than a scale file "
                          "holds (at most %d)", path, cJSON_GetArraySize(*rows), MB_PLOT_ROWS_MAX);
        cJSON_Delete(*root);
        return rc;
    }
    /* every row's values as mbopt scale writes them: procs a whole count >= 1, times,
     * speed-ups and batch sizes > 0 or null (no optimum there): both figures draw them on log
     * axes, where 0 has no place (campaign 12, P5) */
    static const char *const keys[] = {"t_c_opt", "speedup_opt", "t_c_strong", "speedup_strong",
                                       "t_c_weak", "speedup_weak", NULL};
    const cJSON *r;
    int i = 0;
    cJSON_ArrayForEach(r, *rows) /* each row's P first, then one row a P, then the rest */
    {
        char where[32];
        double v;
        snprintf(where, sizeof where, "rows[%d]: ", i++);
        if (rc == MB_OK)
            rc = mb_json_number_in(r, "procs", path, where, 1, MB_DATA_RANGE_MAX, 1, 1, &v, err);
    }
    if (rc == MB_OK)
        rc = given_once(*rows, "procs", path, "%s: rows[%zu]: procs %g given twice (rows[%zu] "
                        "too)", err);
    i = 0;
    cJSON_ArrayForEach(r, *rows)
    {
        char where[32];
        double v;
        snprintf(where, sizeof where, "rows[%d]: ", i++);
        for (int k = 0; rc == MB_OK && keys[k]; k++)
            rc = mb_json_number_in(r, keys[k], path, where, 0, HUGE_VAL, MB_JSON_ABOVE_LO, 0, &v,
                                   err);
        if (rc == MB_OK)
            /* a batch size: at most 2^53 samples (1e308 is no M to draw) */
            rc = mb_json_number_in(r, "m_opt", path, where, 0, MB_DATA_RANGE_MAX,
                                   MB_JSON_ABOVE_LO, 0, &v, err);
        if (rc == MB_OK)
            rc = row_efficiency(r, path, where, err);
        if (rc != MB_OK) {
            cJSON_Delete(*root);
            return rc;
        }
    }
    /* the file as mbplot report and mbopt validate --recommend read it: its top-level values and
     * recommendation, each row's m_opt in the range it was sought in (campaign 32's P4: tc drew
     * an optimum at M = 200 of a row searched over 16..128) */
    rc = mb_solver_check_scale(*root, path, err);
    if (rc == MB_OK)
        rc = mb_solver_read_model(cJSON_GetObjectItemCaseSensitive(*root, "model"), path, law,
                                  t, NULL, err);
    if (rc == MB_OK)
        rc = optima_hold(*root, *rows, law, t, path, err);
    if (rc != MB_OK)
        cJSON_Delete(*root);
    return rc;
}

int mb_plot_scale(const char *scale_json, const char *out, const mb_plot_options *o,
                  mb_error *err)
{
    cJSON *root;
    const cJSON *rows, *r;
    mb_law law;
    mb_update_time t;
    int rc = read_scale(scale_json, &root, &rows, &law, &t, err);
    if (rc != MB_OK)
        return rc;
    mb_plot *p;
    if ((rc = mb_plot_begin(&p, o, out, err)) != MB_OK) {
        cJSON_Delete(root);
        return rc;
    }
    mb_plot_input(p, scale_json);
    static const char *const keys[3][2] = {{"t_c_opt", "speedup_opt"},
                                           {"t_c_strong", "speedup_strong"},
                                           {"t_c_weak", "speedup_weak"}};
    static const char *const blocks[3] = {"opt", "strong", "weak"};
    for (int k = 0; k < 3; k++) {
        mb_plot_block(p, blocks[k]);
        cJSON_ArrayForEach(r, rows)
        {
            double v[3] = {mb_json_get(r, "procs"), mb_json_get(r, keys[k][0]), mb_json_get(r, keys[k][1])};
            mb_plot_row(p, v, 3);
        }
    }
    mb_plot_cmd(p, "set multiplot layout 1,2 title \"Time to converge against learners "
                   "(Perrone et al. eq. 10; %s communication)\"",
                mb_model_comm_name(t.comm));
    style(p, "T_C(P)");
    mb_plot_cmd(p, "set logscale xy");
    mb_plot_cmd(p, "set xlabel 'learners P'");
    mb_plot_cmd(p, "set ylabel 'time to converge T_C (s)'");
    mb_plot_cmd(p, "plot $opt u 1:2 w lp pt 7 lw 2 t 'optimal M', "
                   "$strong u 1:2 w lp pt 5 t 'strong (M fixed: %g)', "
                   "$weak u 1:2 w lp pt 9 t 'weak (M/P fixed: %g)'",
                mb_json_get(root, "m_strong"), mb_json_get(root, "m_weak"));
    style(p, "speed-up over P = 1");
    mb_plot_cmd(p, "set ylabel 'speed-up over one learner'");
    mb_plot_cmd(p, "plot $opt u 1:3 w lp pt 7 lw 2 t 'optimal M', $strong u 1:3 w lp pt 5 t "
                   "'strong', $weak u 1:3 w lp pt 9 t 'weak'");
    mb_plot_cmd(p, "unset multiplot");
    cJSON_Delete(root);
    static const char *const need[] = {"opt", NULL};
    return mb_plot_finish(p, need, err);
}

int mb_plot_tc(const char *scale_json, int max_curves, const char *out, const mb_plot_options *o,
               mb_error *err)
{
    cJSON *root;
    const cJSON *rows;
    mb_law law;
    mb_update_time t;
    int rc = read_scale(scale_json, &root, &rows, &law, &t, err);
    if (rc != MB_OK)
        return rc;
    int n = cJSON_GetArraySize(rows);
    if (max_curves < 1)
        max_curves = 1;
    int curves = n < max_curves ? n : max_curves;
    mb_plot *p;
    if ((rc = mb_plot_begin(&p, o, out, err)) != MB_OK) {
        cJSON_Delete(root);
        return rc;
    }
    mb_plot_input(p, scale_json);
    /* Spread the chosen learner counts over the table, always including the first and last. */
    double procs[64], m_hi = t.m_t;
    if (curves > 64)
        curves = 64;
    double opt_m[64], opt_tc[64]; /* the table's optimum per curve (inside its M range) */
    for (int c = 0; c < curves; c++) {
        int idx = curves == 1 ? 0 : (int)lround((double)c * (n - 1) / (curves - 1));
        const cJSON *row = cJSON_GetArrayItem(rows, idx);
        procs[c] = mb_json_get(row, "procs");
        opt_m[c] = mb_json_get(row, "m_opt");
        opt_tc[c] = mb_json_get(row, "t_c_opt");
        if (isfinite(opt_m[c]))
            m_hi = fmax(m_hi, opt_m[c]);
    }
    const double m_lo = fmax(1.0, t.m_t / 8), m_top = m_hi * 16;
    char name[16], plot[4096] = "plot ";
    size_t used = strlen(plot);
    for (int c = 0; c < curves; c++) {
        snprintf(name, sizeof name, "p%d", c);
        mb_plot_block(p, name);
        for (int i = 0; i <= 200; i++) {
            double m = m_lo * pow(m_top / m_lo, i / 200.0), tc = NAN;
            if (m < procs[c] || mb_model_law_tc(&law, &t, m, procs[c], &tc) != MB_OK)
                tc = NAN;
            double v[2] = {m, tc};
            mb_plot_row(p, v, 2);
        }
        used += (size_t)snprintf(plot + used, sizeof plot - used,
                                 "%s$p%d u 1:2 w l lw 2 lc %d t 'P = %g'", c ? ", " : "", c, c + 1,
                                 procs[c]);
    }
    mb_plot_block(p, "opt");
    for (int c = 0; c < curves; c++) {
        double v[2] = {opt_m[c], opt_tc[c]};
        mb_plot_row(p, v, 2);
    }
    snprintf(plot + used, sizeof plot - used, ", $opt u 1:2 w p pt 7 ps 1.6 lc rgb 'black' "
                                              "t 'M_{opt}(P)'");
    style(p, "Time to converge against mini-batch size");
    mb_plot_cmd(p, "set logscale xy");
    mb_plot_cmd(p, "set xlabel 'mini-batch size M (samples, all learners)'");
    mb_plot_cmd(p, "set ylabel 'time to converge T_C (s)'");
    mb_plot_cmd(p, "%s", plot);
    cJSON_Delete(root);
    static const char *const need[] = {"p0", "opt", NULL};
    return mb_plot_finish(p, need, err);
}

/* The data block "best" and its plot clause (into t), when the nfit's `best` names a law other
 * than the inverse law drawn with its band: the law mbopt optimises, read as mbopt reads it
 * (from the root already read: the file may be a FIFO). */
static int best_law_block(mb_plot *p, const char *path, const cJSON *root, double lo, double hi,
                          char *t, size_t tn, mb_error *err)
{
    const cJSON *bm = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(root, "best"), "model");
    if (!cJSON_IsString(bm) || strcmp(bm->valuestring, "inverse-law") == 0)
        return MB_OK;
    mb_solver_nfit nf;
    int rc = mb_solver_parse_nfit(root, path, NULL, &nf, err);
    if (rc != MB_OK)
        return rc;
    mb_plot_block(p, "best");
    for (int i = 0; i <= 200; i++) {
        double m = lo * pow(hi / lo, i / 200.0), n;
        if (mb_model_law_nupdate(&nf.law, m, &n, NULL) == MB_OK) {
            double v[2] = {m, n};
            mb_plot_row(p, v, 2);
        }
    }
    if (nf.law.kind == MB_LAW_SHIFTED)
        snprintf(t, tn, ", $best u 1:2 w l lw 2 dt 2 lc rgb '#bf3f1f' t 'optimised: N = %.4g + "
                 "%.4g / (M - %.3g)'", nf.law.n_inf, nf.law.a, nf.law.m0);
    else
        snprintf(t, tn, ", $best u 1:2 w l lw 2 dt 2 lc rgb '#bf3f1f' t 'optimised: N = %.4g + "
                 "%.4g M^{-%.3g}'", nf.law.n_inf, nf.law.a, nf.law.b);
    return MB_OK;
}

/* fit.ci95 (fit named `where`, "" at the top), when there: each interval [lo, hi] with lo <=
 * hi, or null. */
static int ci95_ok(const cJSON *fit, const char *where, const char *path, mb_error *err)
{
    const cJSON *ci = cJSON_GetObjectItemCaseSensitive(fit, "ci95"), *e;
    if (!cJSON_IsObject(ci))
        return MB_OK;
    cJSON_ArrayForEach(e, ci)
    {
        const cJSON *lo = cJSON_GetArrayItem(e, 0), *hi = cJSON_GetArrayItem(e, 1);
        if (cJSON_IsNull(e))
            continue;
        if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != 2 || !cJSON_IsNumber(lo) ||
            !cJSON_IsNumber(hi) || !isfinite(lo->valuedouble) || !isfinite(hi->valuedouble) ||
            lo->valuedouble > hi->valuedouble)
            return mb_error_set(err, MB_EFORMAT, "%s: field '%sci95.%s': not an interval [lo, "
                                "hi] with lo <= hi", path, where, e->string ? e->string : "?");
    }
    return MB_OK;
}

/* The values of an nfit the figure and its caption show, as mbfit writes them: r2 at most 1,
 * target_loss >= 0, each ci95 interval [lo, hi] with lo <= hi, the top level's and the best
 * law's (campaign 16's minor: best.ci95.m_0 [5, 1] was drawn) (all optional, null allowed). */
static int nupdate_shown(const cJSON *root, const char *path, mb_error *err)
{
    double v;
    int rc;
    if ((rc = mb_json_number_in(root, "r2", path, "", -HUGE_VAL, 1, 0, 0, &v, err)) != MB_OK ||
        (rc = mb_json_number_in(root, "target_loss", path, "", 0, HUGE_VAL, 0, 0, &v, err)) !=
            MB_OK ||
        (rc = ci95_ok(root, "", path, err)) != MB_OK)
        return rc;
    return ci95_ok(cJSON_GetObjectItemCaseSensitive(root, "best"), "best.", path, err);
}

/* The block "mean": each M's mean with its standard error, widening [m_lo, m_hi] to the M. An
 * M of one run has no standard error (null): its mean is drawn without a bar (was "nothing to
 * draw" where every M had one run, and the report lost with it: campaign 34's R3). */
static void nupdate_means(mb_plot *p, const cJSON *per_m, double *m_lo, double *m_hi)
{
    const cJSON *e;
    mb_plot_block(p, "mean");
    cJSON_ArrayForEach(e, per_m)
    {
        const double se = mb_json_get(e, "se");
        double v[3] = {mb_json_get(e, "batch"), mb_json_get(e, "mean"), isfinite(se) ? se : 0};
        *m_lo = fmin(*m_lo, v[0]);
        *m_hi = fmax(*m_hi, v[0]);
        mb_plot_row(p, v, 3);
    }
}

int mb_plot_nupdate(const char *nfit_json, const char *out, const mb_plot_options *o,
                    mb_error *err)
{
    cJSON *root;
    int rc = mb_json_read(nfit_json, &root, err);
    if (rc == MB_OK && (rc = mb_format_check_json(root, nfit_json, MB_FORMAT_FIT, err)) != MB_OK)
        cJSON_Delete(root);
    if (rc != MB_OK)
        return rc;
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(root, "params");
    const cJSON *cov = cJSON_GetObjectItemCaseSensitive(root, "covariance");
    const cJSON *pts = cJSON_GetObjectItemCaseSensitive(root, "points");
    const cJSON *per_m = cJSON_GetObjectItemCaseSensitive(root, "per_m");
    double n_inf = mb_json_get(params, "n_inf"), alpha = mb_json_get(params, "alpha"),
           dof = mb_json_get(root, "dof");
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(root, "model");
    if (model && !(cJSON_IsString(model) && strcmp(model->valuestring, "inverse-law") == 0)) {
        cJSON_Delete(root);
        return mb_error_set(err, MB_EFORMAT, "%s: 'model' is not inverse-law (is this an "
                                             "'mbfit nupdate --json' file?)", nfit_json);
    }
    if (!isfinite(n_inf) || !isfinite(alpha) || !cJSON_IsArray(per_m)) {
        cJSON_Delete(root);
        return mb_error_set(err, MB_EFORMAT, "%s: not an 'mbfit nupdate --json' file (needs "
                                             "params.n_inf, params.alpha and per_m)", nfit_json);
    }
    /* the band's covariance, when given: a 2 x 2 array of numbers, variances >= 0 */
    int cov_ok = !cov || cJSON_IsNull(cov) ||
                 (cJSON_IsArray(cov) && cJSON_GetArraySize(cov) == 2);
    for (int i = 0; cov_ok && cJSON_IsArray(cov) && i < 2; i++) {
        const cJSON *row = cJSON_GetArrayItem(cov, i);
        cov_ok = cJSON_IsArray(row) && cJSON_GetArraySize(row) == 2;
        for (int j = 0; cov_ok && j < 2; j++) {
            const cJSON *v = cJSON_GetArrayItem(row, j);
            cov_ok = cJSON_IsNumber(v) && isfinite(v->valuedouble) &&
                     (i != j || v->valuedouble >= 0);
        }
    }
    if (!cov_ok) {
        cJSON_Delete(root);
        return mb_error_set(err, MB_EFORMAT, "%s: 'covariance' is not a 2 x 2 array of numbers "
                            "(variances >= 0)", nfit_json);
    }
    /* a law mbfit can fit: N_inf and alpha >= 0 (a negative count of updates is no curve) */
    if ((rc = mb_json_number_in(params, "n_inf", nfit_json, "params: ", 0, HUGE_VAL, 0, 1,
                                &n_inf, err)) != MB_OK ||
        (rc = mb_json_number_in(params, "alpha", nfit_json, "params: ", 0, HUGE_VAL, 0, 1,
                                &alpha, err)) != MB_OK ||
        (rc = nupdate_shown(root, nfit_json, err)) != MB_OK ||
        (rc = mb_solver_fit_agrees(root, nfit_json, err)) != MB_OK) {
        cJSON_Delete(root);
        return rc;
    }
    const cJSON *e;
    int i = 0;
    cJSON_ArrayForEach(e, pts) /* batch sizes and update counts > 0, as mbfit reads them */
    {
        char where[32];
        double v;
        snprintf(where, sizeof where, "points[%d]: ", i++);
        if ((rc = mb_json_number_in(e, "batch", nfit_json, where, 1, MB_DATA_RANGE_MAX,
                                    MB_JSON_WHOLE, 1, &v, err)) != MB_OK ||
            (rc = mb_json_number_in(e, "n_update", nfit_json, where, 0, MB_DATA_RANGE_MAX, 0, 0,
                                    &v, err)) != MB_OK)
            break;
    }
    i = 0;
    cJSON_ArrayForEach(e, per_m)
    {
        char where[32];
        double v;
        snprintf(where, sizeof where, "per_m[%d]: ", i++);
        if (rc != MB_OK ||
            (rc = mb_json_number_in(e, "batch", nfit_json, where, 1, MB_DATA_RANGE_MAX,
                                    MB_JSON_WHOLE, 1, &v, err)) != MB_OK || /* N10: 16.5 */
            (rc = mb_json_number_in(e, "mean", nfit_json, where, 0, MB_DATA_RANGE_MAX,
                                    MB_JSON_ABOVE_LO, 0, &v, /* a log axis (campaign 35's R7) */
                                    err)) != MB_OK ||
            (rc = mb_json_number_in(e, "se", nfit_json, where, 0, HUGE_VAL, 0, 0, &v, err)) !=
                MB_OK)
            break;
    }
    if (rc == MB_OK)
        rc = given_once(per_m, "batch", nfit_json, "%s: field 'per_m[%zu].batch': M = %g given "
                        "twice (per_m[%zu])", err);
    mb_plot *p;
    if (rc != MB_OK || (rc = mb_plot_begin(&p, o, out, err)) != MB_OK) {
        cJSON_Delete(root);
        return rc;
    }
    mb_plot_input(p, nfit_json);
    double m_lo = INFINITY, m_hi = 0;
    mb_plot_block(p, "runs");
    cJSON_ArrayForEach(e, pts)
    {
        double v[2] = {mb_json_get(e, "batch"), mb_json_get(e, "n_update")};
        mb_plot_row(p, v, 2);
    }
    nupdate_means(p, per_m, &m_lo, &m_hi);
    /* The band: var N(M) = g^T C g with g = (1, 1/M), C the covariance of (n_inf, alpha). */
    double c[2][2] = {{NAN, NAN}, {NAN, NAN}};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            const cJSON *v = cJSON_GetArrayItem(cJSON_GetArrayItem(cov, i), j);
            c[i][j] = cJSON_IsNumber(v) ? v->valuedouble : NAN;
        }
    const double tq = dof > 0 ? gsl_cdf_tdist_Pinv(0.975, dof) : NAN;
    mb_plot_block(p, "fit");
    for (int i = 0; i <= 200 && m_hi > 0; i++) {
        double m = m_lo / 2 * pow(4 * m_hi / m_lo, i / 200.0), g1 = 1 / m;
        double var = c[0][0] + 2 * g1 * c[0][1] + g1 * g1 * c[1][1];
        double n = n_inf + alpha / m, h = tq * sqrt(fmax(var, 0));
        if (!isfinite(h)) /* no covariance (an extrapolated fit): the line without a band */
            h = 0;
        double v[4] = {m, n, n - h, n + h};
        mb_plot_row(p, v, 4);
    }
    /* the law mbopt optimises, where mbfit's `best` is another than the inverse law */
    char best_t[160] = "";
    if ((rc = best_law_block(p, nfit_json, root, m_lo / 2, 2 * m_hi, best_t, sizeof best_t,
                             err)) != MB_OK) {
        cJSON_Delete(root);
        mb_plot_abort(p);
        return rc;
    }
    style(p, "Updates to reach the target loss against mini-batch size");
    mb_plot_cmd(p, "set logscale xy");
    mb_plot_cmd(p, "set xlabel 'mini-batch size M (samples)'");
    mb_plot_cmd(p, "set ylabel 'updates to reach the target loss N_{update}'");
    /* an extrapolated fit (mbfit nupdate --extrapolate): per M is its prediction, not runs */
    const int extrapolated = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "extrapolated"));
    mb_plot_cmd(p, "plot $fit u 1:3:4 w filledcurves lc rgb '#cce0ff' t '95%% band', "
                   "$fit u 1:2 w l lw 2 lc rgb '#1f5fbf' t 'N = %.4g + %.4g / M', "
                   "$runs u 1:2 w p pt 6 lc rgb 'gray40' t 'each run', "
                   "$mean u 1:2:3 w yerrorbars pt 7 lc rgb 'black' t '%s'%s",
                 n_inf, alpha, extrapolated ? "extrapolated per M (95% bootstrap / 1.96)"
                                            : "mean per M (± s.e.)", best_t);
    cJSON_Delete(root);
    static const char *const need[] = {"mean", "fit", NULL};
    return mb_plot_finish(p, need, err);
}

int mb_plot_amdahl(const double *ratios, int n_ratios, double max_gpus, const char *out,
                   const mb_plot_options *o, mb_error *err)
{
    if (n_ratios < 1 || n_ratios > 16 || !(max_gpus >= 2))
        return mb_error_set(err, MB_EINVAL, "amdahl: give 1 to 16 overhead ratios and at least 2 "
                                            "devices");
    mb_plot *p;
    int rc = mb_plot_begin(&p, o, out, err);
    if (rc != MB_OK)
        return rc;
    char name[16], plot[2048] = "plot x w l dt 2 lc rgb 'gray' t 'ideal'";
    size_t used = strlen(plot);
    for (int k = 0; k < n_ratios; k++) {
        snprintf(name, sizeof name, "r%d", k);
        mb_plot_block(p, name);
        for (double g = 1; g <= max_gpus; g = g < 16 ? g + 1 : ceil(g * 1.25)) {
            double s = NAN;
            if (mb_model_amdahl_speedup(ratios[k], g, &s) != MB_OK)
                s = NAN;
            double v[2] = {g, s};
            mb_plot_row(p, v, 2);
        }
        used += (size_t)snprintf(plot + used, sizeof plot - used,
                                 ", $r%d u 1:2 w lp pt 7 ps 0.6 lw 2 t 'R_O = %g'", k, ratios[k]);
    }
    style(p, "Speed-up on G devices (Zou et al. 2017, Lemma 3.1): S = G (1 + R_O) / (1 + G R_O)");
    mb_plot_cmd(p, "set key top left box opaque");
    mb_plot_cmd(p, "set xlabel 'devices G'");
    mb_plot_cmd(p, "set ylabel 'speed-up S'");
    mb_plot_cmd(p, "set xrange [1:%g]", max_gpus);
    mb_plot_cmd(p, "set yrange [1:%g]", max_gpus);
    if (max_gpus > 64)
        mb_plot_cmd(p, "set logscale xy");
    mb_plot_cmd(p, "%s", plot);
    static const char *const need[] = {"r0", NULL};
    return mb_plot_finish(p, need, err);
}

/* The most series one figure draws (mbplot step's learner and thread counts, mbplot comm's
 * (op, procs)): a table with more is refused in one line, not cut short (campaign 35's R6: the
 * 17th on were left out without a word). */
#define SERIES_MAX 32

/* Distinct values of a numeric column, in order of first appearance; a value past `max`
 * distinct ones is MB_EFORMAT naming its line (a count: `what`, "learner counts"). */
static int distinct(const mb_table *tab, size_t col, double *out, int max, const char *what,
                    mb_error *err)
{
    int n = 0;
    for (size_t r = 0; r < mb_table_rows(tab); r++) {
        double v;
        int rc = mb_table_double_in(tab, r, col, 1, MB_DATA_RANGE_MAX, 1, &v, err); /* counts */
        if (rc != MB_OK)
            return rc;
        int seen = 0;
        for (int i = 0; i < n; i++)
            seen |= out[i] == v;
        if (!seen && n == max)
            return mb_error_set(err, MB_EFORMAT, "%s:%ld: field '%s': %g is past the %d %s a "
                                "figure draws", mb_table_path(tab), mb_table_line(tab, r),
                                mb_table_col_name(tab, col), v, max, what);
        if (!seen)
            out[n++] = v;
    }
    return n;
}

/* Reads a table of format `kind` (mb_format.h) that must have the named columns (their indices
 * go to cols) and at least one row. */
static int read_table(const char *path, const char *kind, const char *const *names, size_t *cols,
                      mb_table **tab, mb_error *err)
{
    int rc = mb_table_read(path, tab, err);
    if (rc == MB_OK)
        rc = mb_format_check_table(*tab, kind, err);
    for (size_t i = 0; rc == MB_OK && names[i]; i++)
        rc = mb_table_require_col(*tab, names[i], &cols[i], err);
    if (rc == MB_OK && mb_table_rows(*tab) == 0)
        rc = mb_error_set(err, MB_ENODATA, "%s: no rows", path);
    if (rc != MB_OK) {
        mb_table_free(*tab);
        *tab = NULL;
    }
    return rc;
}

/* The fitted lines of an `mbfit tupdate --json` file over [m_min, m_max], appended to `plot`:
 * one per learner count in its by_learners array, each with that count's own gamma, M_T and delta
 * (so the P = 1 line carries the fixed cost of a step and P > 1 lines the communication too),
 * else the top-level params for the count in its "learners" (the table's first count when absent).
 * Each line takes the colour of the first series with its learner count (nt series per count). */
static int step_fits(mb_plot *p, const char *path, const mb_table *tab, const double *learners,
                     int nl, int nt, double m_min, double m_max, char *plot, size_t *used,
                     size_t size, mb_error *err)
{
    cJSON *root;
    int rc = mb_json_read(path, &root, err);
    if (rc == MB_OK && ((rc = mb_format_check_json(root, path, MB_FORMAT_FIT, err)) != MB_OK ||
                        (rc = mb_solver_fit_agrees(root, path, err)) != MB_OK ||
                        (rc = mb_plot_tfit_of_table(root, path, tab, err)) != MB_OK))
        cJSON_Delete(root);
    if (rc != MB_OK)
        return rc;
    const cJSON *by = cJSON_GetObjectItemCaseSensitive(root, "by_learners"), *e;
    const int use_by = cJSON_IsArray(by) && cJSON_GetArraySize(by) > 0;
    const int n = use_by ? cJSON_GetArraySize(by) : 1;
    for (int k = 0; k < n && rc == MB_OK; k++) {
        e = use_by ? cJSON_GetArrayItem(by, k) : root;
        const cJSON *params = cJSON_GetObjectItemCaseSensitive(e, "params");
        double gamma, m_t, delta = 0, procs = mb_json_get(e, "learners");
        if (!isfinite(procs))
            procs = learners[0];
        if ((rc = mb_json_number(params, "gamma", path, &gamma, err)) != MB_OK ||
            (rc = mb_json_number(params, "m_t", path, &m_t, err)) != MB_OK ||
            (cJSON_GetObjectItemCaseSensitive(params, "delta") &&
             (rc = mb_json_number(params, "delta", path, &delta, err)) != MB_OK))
            break;
        int colour = 1;
        for (int a = 0; a < nl; a++)
            if (learners[a] == procs)
                colour = a * nt + 1;
        char name[16];
        snprintf(name, sizeof name, "fit%d", k);
        mb_plot_block(p, name);
        for (int i = 0; i <= 200; i++) {
            double m = m_min * pow(m_max / m_min, i / 200.0);
            double v[2] = {m, m >= procs ? gamma * fmax(m / procs, m_t) + delta : NAN};
            mb_plot_row(p, v, 2);
        }
        *used += (size_t)snprintf(plot + *used, size - *used,
                                  ", $%s u 1:2 w l lw 2 dt 2 lc %d t 'fit, P = %g: %.3g s "
                                  "max(M/%g, %.3g) + %.3g s'",
                                  name, colour, procs, gamma, procs, m_t, delta);
        if (*used >= size)
            rc = mb_error_set(err, MB_EINVAL, "%s: too many learner counts to plot", path);
    }
    /* a fit calibrated by training runs: their seconds per update, beside the probe's */
    const cJSON *cal = cJSON_GetObjectItemCaseSensitive(root, "calibration");
    const cJSON *pts = cJSON_GetObjectItemCaseSensitive(cal, "run_points");
    if (rc == MB_OK && cJSON_IsArray(pts) && cJSON_GetArraySize(pts) > 0) {
        mb_plot_block(p, "runs");
        cJSON_ArrayForEach(e, pts)
        {
            const cJSON *m = cJSON_GetArrayItem(e, 0), *t = cJSON_GetArrayItem(e, 1);
            double v[2] = {cJSON_IsNumber(m) ? m->valuedouble : NAN,
                           cJSON_IsNumber(t) ? t->valuedouble : NAN};
            if (v[0] > 0 && v[1] > 0 && isfinite(v[0]) && isfinite(v[1]))
                mb_plot_row(p, v, 2);
        }
        *used += (size_t)snprintf(plot + *used, size - *used,
                                  ", $runs u 1:2 w p pt 5 ps 1.3 lc rgb 'black' t 'training "
                                  "runs, P = 1: median s/update (what the fit follows there)'");
        if (*used >= size)
            rc = mb_error_set(err, MB_EINVAL, "%s: too many series to plot", path);
    }
    cJSON_Delete(root);
    return rc;
}

int mb_plot_step(const char *step_csv, const char *tfit_json, const char *out,
                 const mb_plot_options *o, mb_error *err)
{
    static const char *const names[] = {"batch", "learners", "threads", "t_median_s",
                                        "t_p25_s", "t_p75_s", NULL};
    static const char *const spread[] = MB_TABLE_TIMES; /* t_min_s <= ... <= t_max_s */
    size_t cols[6];
    mb_table *tab;
    int rc = read_table(step_csv, MB_FORMAT_STEP, names, cols, &tab, err);
    if (rc == MB_OK && (rc = mb_fit_step_table_check(tab, err)) != MB_OK) /* as mbfit reads it */
        mb_table_free(tab);
    if (rc != MB_OK)
        return rc;
    const size_t c_batch = cols[0], c_learn = cols[1], c_thr = cols[2], c_med = cols[3],
                 c_p25 = cols[4], c_p75 = cols[5];
    mb_plot *p = NULL;
    double learners[SERIES_MAX], threads[SERIES_MAX];
    int nl = distinct(tab, c_learn, learners, SERIES_MAX, "learner counts", err), nt = 0;
    if (nl < 0 || (nt = distinct(tab, c_thr, threads, SERIES_MAX, "thread counts", err)) < 0) {
        rc = nl < 0 ? nl : nt;
        goto done;
    }
    if (nl * nt > SERIES_MAX) { /* a series each (learners, threads) */
        rc = mb_error_set(err, MB_EFORMAT, "%s: %d learner counts times %d thread counts, more "
                          "than the %d series a figure draws", step_csv, nl, nt, SERIES_MAX);
        goto done;
    }
    if ((rc = mb_plot_begin(&p, o, out, err)) != MB_OK)
        goto done;
    mb_plot_input(p, step_csv);
    char plot[16384] = "plot ", name[16];
    size_t used = strlen(plot);
    int series = 0;
    double m_min = INFINITY, m_max = 0;
    for (int a = 0; a < nl; a++)
        for (int b = 0; b < nt; b++) {
            snprintf(name, sizeof name, "s%d", series);
            mb_plot_block(p, name);
            for (size_t r = 0; r < mb_table_rows(tab); r++) {
                double v[4], l, th;
                if ((rc = mb_table_double(tab, r, c_learn, &l, err)) ||
                    (rc = mb_table_double(tab, r, c_thr, &th, err)) ||
                    (rc = mb_table_double_in(tab, r, c_batch, 1, MB_DATA_RANGE_MAX, 1, &v[0],
                                             err)) ||
                    (rc = mb_table_double_in(tab, r, c_med, 0, HUGE_VAL, 0, &v[1], err)) ||
                    (rc = mb_table_double_in(tab, r, c_p25, 0, HUGE_VAL, 0, &v[2], err)) ||
                    (rc = mb_table_double_in(tab, r, c_p75, 0, HUGE_VAL, 0, &v[3], err)) ||
                    (rc = mb_table_check_order(tab, r, spread, err)))
                    goto done;
                if (l != learners[a] || th != threads[b])
                    continue;
                if (!(v[0] > 0)) {
                    rc = mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'batch': must be > 0",
                                      step_csv, mb_table_line(tab, r));
                    goto done;
                }
                m_min = fmin(m_min, v[0]);
                m_max = fmax(m_max, v[0]);
                mb_plot_row(p, v, 4);
            }
            used += (size_t)snprintf(plot + used, sizeof plot - used,
                                     "%s$%s u 1:2:3:4 w yerrorlines pt 7 lw 2 lc %d t '%g "
                                     "learner%s, %g thread%s'",
                                     series ? ", " : "", name, series + 1, learners[a],
                                     learners[a] == 1 ? "" : "s",
                                     threads[b], threads[b] == 1 ? "" : "s");
            series++;
        }
    if (tfit_json && (rc = step_fits(p, tfit_json, tab, learners, nl, nt, m_min, m_max, plot,
                                     &used, sizeof plot, err)) != MB_OK)
        goto done;
    style(p, "Time per update against mini-batch size (median, bars: quartiles)");
    mb_plot_cmd(p, "set key top left box opaque");
    mb_plot_cmd(p, "set logscale xy");
    mb_plot_cmd(p, "set xlabel 'mini-batch size M (samples)'");
    mb_plot_cmd(p, "set ylabel 'time per update T_{update} (s)'");
    mb_plot_cmd(p, "%s", plot);
    static const char *const need[] = {"s0", NULL};
    rc = mb_plot_finish(p, need, err);
    p = NULL;
done:
    mb_plot_abort(p);
    mb_table_free(tab);
    return rc;
}

int mb_plot_comm(const char *comm_csv, const char *cfit_json, const char *out,
                 const mb_plot_options *o, mb_error *err)
{
    static const char *const names[] = {"op", "procs", "bytes", "t_median_s", "t_min_s",
                                        "t_max_s", NULL};
    size_t cols[6];
    mb_table *tab;
    int rc = read_table(comm_csv, MB_FORMAT_COMM, names, cols, &tab, err);
    if (rc != MB_OK)
        return rc;
    const size_t c_op = cols[0], c_procs = cols[1], c_bytes = cols[2], c_med = cols[3],
                 c_min = cols[4], c_max = cols[5];
    mb_plot *p = NULL;
    /* every row checked before anything is drawn, as mbfit comm reads it */
    if ((rc = mb_fit_comm_table_check(tab, err)) != MB_OK)
        goto done;
    if ((rc = mb_plot_begin(&p, o, out, err)) != MB_OK)
        goto done;
    mb_plot_input(p, comm_csv);
    /* one series per (op, procs), in order of first appearance */
    const char *ops[SERIES_MAX];
    double procs[SERIES_MAX];
    int ns = 0;
    for (size_t r = 0; r < mb_table_rows(tab); r++) {
        double pr;
        if ((rc = mb_table_double(tab, r, c_procs, &pr, err)) != MB_OK)
            goto done;
        const char *op = mb_table_cell(tab, r, c_op);
        int seen = 0;
        for (int i = 0; i < ns; i++)
            seen |= strcmp(ops[i], op) == 0 && procs[i] == pr;
        if (!seen && ns == SERIES_MAX) {
            rc = mb_error_set(err, MB_EFORMAT, "%s:%ld: %s at %g procs is past the %d (op, procs) "
                              "series a figure draws", comm_csv, mb_table_line(tab, r), op, pr,
                              SERIES_MAX);
            goto done;
        }
        if (!seen) {
            ops[ns] = op;
            procs[ns++] = pr;
        }
    }
    char plot[16384] = "plot ", name[16];
    size_t used = strlen(plot);
    double b_min = INFINITY, b_max = 0;
    for (int s = 0; s < ns; s++) {
        snprintf(name, sizeof name, "c%d", s);
        mb_plot_block(p, name);
        for (size_t r = 0; r < mb_table_rows(tab); r++) {
            double pr, v[4];
            if ((rc = mb_table_double(tab, r, c_procs, &pr, err)) ||
                (rc = mb_table_double(tab, r, c_bytes, &v[0], err)) ||
                (rc = mb_table_double(tab, r, c_med, &v[1], err)) ||
                (rc = mb_table_double(tab, r, c_min, &v[2], err)) ||
                (rc = mb_table_double(tab, r, c_max, &v[3], err)))
                goto done;
            if (pr != procs[s] || strcmp(mb_table_cell(tab, r, c_op), ops[s]) != 0)
                continue;
            b_min = fmin(b_min, v[0]);
            b_max = fmax(b_max, v[0]);
            mb_plot_row(p, v, 4);
        }
        used += (size_t)snprintf(plot + used, sizeof plot - used,
                                 "%s$%s u 1:2:3:4 w yerrorlines pt 7 lc %d t '%s, %g procs'",
                                 s ? ", " : "", name, s + 1, ops[s], procs[s]);
    }
    if (cfit_json) {
        mb_update_time t = {.gamma = 1, .m_t = 1, .comm = MB_COMM_ALPHA_BETA};
        cJSON *root = NULL; /* read once: --cfit may be a pipe */
        if ((rc = mb_json_read(cfit_json, &root, err)) != MB_OK ||
            (rc = mb_solver_parse_cfit(root, cfit_json, &t, err)) != MB_OK ||
            (rc = mb_plot_cfit_of_table(root, cfit_json, tab, err)) != MB_OK) {
            cJSON_Delete(root);
            goto done;
        }
        cJSON_Delete(root);
        for (int s = 0; s < ns; s++) {
            if (strcmp(ops[s], "allreduce") != 0)
                continue;
            snprintf(name, sizeof name, "f%d", s);
            mb_plot_block(p, name);
            for (int i = 0; i <= 100; i++) {
                double v[2] = {b_min * pow(b_max / b_min, i / 100.0), NAN};
                t.bytes = v[0];
                if (mb_model_comm_time(&t, procs[s], &v[1]) != MB_OK)
                    v[1] = NAN;
                mb_plot_row(p, v, 2);
            }
            used += (size_t)snprintf(plot + used, sizeof plot - used,
                                     ", $%s u 1:2 w l dt 2 lw 2 lc %d t 'ring model, %g procs'",
                                     name, s + 1, procs[s]);
        }
    }
    style(p, "Collective time against message size (median, bars: min to max)");
    mb_plot_cmd(p, "set key top left box opaque");
    mb_plot_cmd(p, "set logscale xy");
    mb_plot_cmd(p, "set format x '%%.0s%%cB'");
    mb_plot_cmd(p, "set xlabel 'message size (bytes)'");
    mb_plot_cmd(p, "set ylabel 'time (s)'");
    mb_plot_cmd(p, "%s", plot);
    static const char *const need[] = {"c0", NULL};
    rc = mb_plot_finish(p, need, err);
    p = NULL;
done:
    mb_plot_abort(p);
    mb_table_free(tab);
    return rc;
}
