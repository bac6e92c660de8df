/* scale_check.c — scale.json checked as every reader of it checks it (mbplot report, mbopt
 * validate --recommend, mbplot tc and scale: campaign 32's P3, P4, where one reader drew or
 * graded what another refused): its top-level values, each choice's own fields (`enough` and
 * `best`: one of the rows, its values that row's), and whether the recommendation is the one
 * its own rows give (campaign 31's N5: m_opt 200 outside its row's searched range 16..128,
 * m_run 36 beside m_opt 34.76 at P = 1, `enough` at P = 2 where procs_available is 1 and P = 1
 * was faster, each drawn by mbplot report and graded by mbopt validate --recommend as given).
 * Every row's m_opt lies in its m_lo..m_hi; a choice's m_run is the whole mini-batch mbopt
 * derives from its m_opt (mb_solver_m_whole); and `best` and `enough` are the rows
 * mb_solver_best_row and mb_solver_enough_row pick among the rows the file could recommend
 * (procs <= procs_available, not labelled not recommended), with the file's enough_slack.
 *
 * Not here: whether the rows are the model's optimum (mbplot report holds the model to the fits,
 * plots/match.c), reading the file, what a figure checks of the rows it draws
 * (plots/figures.c).
 */
#include "mb_solver.h"

#include "../data/mb_format.h"
#include "../data/mb_json.h"
#include "../data/mb_parse.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Whether row r may be recommended, as scale.c's recommendable() had it when mbopt wrote the
 * file: P within procs_available (p_max) and not a row labelled MB_SOLVER_NOT_RECOMMENDED (a
 * P > 1 whose runs trained no M in its range), with a T_C to compare. */
static int recommendable(const cJSON *r, double p_max)
{
    const cJSON *note = cJSON_GetObjectItemCaseSensitive(r, "note");
    const double p = mb_json_get(r, "procs"), t = mb_json_get(r, "t_c_opt");
    return p <= p_max && isfinite(t) &&
           !(cJSON_IsString(note) && strstr(note->valuestring, MB_SOLVER_NOT_RECOMMENDED));
}

/* Each row's m_opt within its m_lo..m_hi where both are numbers (to 1e-9: the same doubles). */
static int rows_in_range(const cJSON *rows, const char *path, mb_error *err)
{
    const cJSON *r;
    int k = 0;
    cJSON_ArrayForEach(r, rows)
    {
        const double m = mb_json_get(r, "m_opt"), lo = mb_json_get(r, "m_lo"),
                     hi = mb_json_get(r, "m_hi");
        if (m < lo * (1 - 1e-9) || m > hi * (1 + 1e-9))
            return mb_error_set(err, MB_EFORMAT, "%s: field 'rows[%d].m_opt': %.10g is outside "
                                "its m_lo..m_hi (%.10g..%.10g): not the optimum mbopt searched "
                                "for", path, k, m, lo, hi);
        k++;
    }
    return MB_OK;
}

/* The index of the fastest recommendable row (the first of equals), or -1 when none is. */
static int best_row(const cJSON *rows, double p_max)
{
    const cJSON *r;
    int k = 0, best = -1;
    double t_best = INFINITY;
    cJSON_ArrayForEach(r, rows)
    {
        if (recommendable(r, p_max) && (best < 0 || mb_json_get(r, "t_c_opt") < t_best))
            best = k, t_best = mb_json_get(r, "t_c_opt");
        k++;
    }
    return best;
}

/* The index of the fewest learners within slack of row `best`'s T_C, among the recommendable. */
static int enough_row(const cJSON *rows, int best, double slack, double p_max)
{
    const cJSON *r;
    const double limit = mb_json_get(cJSON_GetArrayItem(rows, best), "t_c_opt") * (1.0 + slack);
    int k = 0, pick = best;
    double p_pick = mb_json_get(cJSON_GetArrayItem(rows, best), "procs");
    cJSON_ArrayForEach(r, rows)
    {
        if (recommendable(r, p_max) && mb_json_get(r, "t_c_opt") <= limit &&
            mb_json_get(r, "procs") < p_pick)
            pick = k, p_pick = mb_json_get(r, "procs");
        k++;
    }
    return pick;
}

int mb_solver_check_scale_choice(const cJSON *scale, const char *key, const char *path,
                                 mb_error *err)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(scale, key);
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(scale, "rows");
    const double procs = mb_json_get(c, "procs"), m = mb_json_get(c, "m_opt");
    const double m_run = mb_json_get(c, "m_run");
    int rc = rows_in_range(rows, path, err);
    if (rc != MB_OK)
        return rc;
    if (!isnan(m_run) && m_run != mb_solver_m_whole(m, procs))
        return mb_error_set(err, MB_EFORMAT, "%s: field '%s.m_run': %.10g is not P round(m_opt "
                            "/ P) = %.10g (P = %.0f, m_opt %.10g)", path, key, m_run,
                            mb_solver_m_whole(m, procs), procs, m);
    double p_max = mb_json_get(scale, "procs_available"), slack = mb_json_get(scale,
                                                                              "enough_slack");
    p_max = isnan(p_max) ? INFINITY : p_max;
    const int best = best_row(rows, p_max);
    if (best < 0) /* none could be recommended: mbopt falls back on the first row */
        return MB_OK;
    if (procs > p_max)
        return mb_error_set(err, MB_EFORMAT, "%s: field '%s.procs': %.0f is above "
                            "procs_available %.0f", path, key, procs, p_max);
    const int is_enough = strcmp(key, "enough") == 0;
    if (is_enough && !(slack >= 0 && isfinite(slack)))
        return MB_OK; /* a file without its slack: the fewest within it cannot be told */
    const int want = is_enough ? enough_row(rows, best, slack, p_max) : best;
    const cJSON *w = cJSON_GetArrayItem(rows, want), *b = cJSON_GetArrayItem(rows, best);
    if (mb_json_get(w, "procs") == procs)
        return MB_OK;
    if (!is_enough)
        return mb_error_set(err, MB_EFORMAT, "%s: field 'best.procs': %.0f is not the fastest "
                            "row's: rows[%d], P = %.0f, has T_C %.6g s", path, procs, best,
                            mb_json_get(b, "procs"), mb_json_get(b, "t_c_opt"));
    char also[80] = "";
    if (want != best)
        snprintf(also, sizeof also, "; rows[%d], P = %.0f, T_C %.6g s, is", want,
                 mb_json_get(w, "procs"), mb_json_get(w, "t_c_opt"));
    return mb_error_set(err, MB_EFORMAT, "%s: field 'enough.procs': %.0f is not the fewest "
                        "learners within enough_slack %g of the fastest, rows[%d] (P = %.0f, "
                        "T_C %.6g s)%s", path, procs, slack, best, mb_json_get(b, "procs"),
                        mb_json_get(b, "t_c_opt"), also);
}

/* What a choice (`enough`, `best`) repeats of its row beside m_opt, {row key, choice key}: mbopt
 * writes both from one double, so they are equal where the row carries them. */
static const char *const CHOICE_COPIES[][2] = {
    {"t_c_opt", "t_c"}, {"speedup_opt", "speedup"}, {"efficiency_opt", "efficiency"}};

/* A choice's values beside procs and m_opt: T_C seconds > 0; a speed-up > 0 and its efficiency,
 * speed-up / procs (both 1 at P = 1, one learner at its best being the reference; above 1 at
 * P > 1 is possible, a shifted law falls faster than 1 / M); a regime mbopt names; each where
 * `row` carries it, equal to the row's. Campaign 16's S8: an edited file showed "T_C = -1 s",
 * "efficiency 7.000" at P = 1 and a regime 'bogus'. */
static int choice_values(const cJSON *c, const cJSON *row, int k, const char *key, double procs,
                         const char *path, mb_error *err)
{
    char where[32];
    double v[3];
    snprintf(where, sizeof where, "%s: ", key);
    for (int i = 0; i < 3; i++) {
        int rc = mb_json_number_in(c, CHOICE_COPIES[i][1], path, where, 0, MB_DATA_RANGE_MAX,
                                   MB_JSON_ABOVE_LO, 1, &v[i], err);
        if (rc != MB_OK)
            return rc;
        double r = mb_json_get(row, CHOICE_COPIES[i][0]);
        char a[32], b[32]; /* as written, not %.17g's 341.56999999999999 (campaign 44's B-D8) */
        if (isfinite(r) && r != v[i])
            return mb_error_set(err, MB_EFORMAT, "%s: field '%s.%s': %s is not rows[%d].%s %s, "
                                "of the same procs %.0f", path, key, CHOICE_COPIES[i][1],
                                mb_data_fmt_exact(a, sizeof a, v[i]), k, CHOICE_COPIES[i][0],
                                mb_data_fmt_exact(b, sizeof b, r), procs);
    }
    const double sp = v[1], eff = v[2];
    if (procs == 1 ? !(fabs(sp - 1) <= 1e-9 && fabs(eff - 1) <= 1e-9)
                   : !(fabs(eff * procs - sp) <= 1e-9 * sp))
        return mb_error_set(err, MB_EFORMAT, "%s: fields '%s.speedup' and '%s.efficiency' (%g, "
                            "%g): not %s", path, key, key, sp, eff, procs == 1
                            ? "1 and 1 at P = 1 (one learner at its best is the reference)"
                            : "a speed-up and speed-up / procs");
    const cJSON *rg = cJSON_GetObjectItemCaseSensitive(c, "regime");
    const char *name = cJSON_IsString(rg) ? rg->valuestring : "";
    int known = 0;
    for (int r = MB_REGIME_SINGLE; r <= MB_REGIME_KNEE; r++)
        known |= strcmp(name, mb_model_regime_name((mb_regime)r)) == 0;
    const cJSON *rr = cJSON_GetObjectItemCaseSensitive(row, "regime");
    if (!known || (cJSON_IsString(rr) && strcmp(rr->valuestring, name) != 0))
        return mb_error_set(err, MB_EFORMAT, "%s: field '%s.regime': %s%s%s is not %s", path,
                            key, rg ? "'" : "", rg ? (*name ? name : "not a string") : "missing",
                            rg ? "'" : "", known ? "the regime of its row"
                                                 : "single, balance or knee");
    return MB_OK;
}

int mb_solver_check_choice(const cJSON *scale, const char *key, const char *path, mb_error *err)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(scale, key);
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(scale, "rows"), *r;
    char where[32], list[160] = "";
    double procs, m, m_run;
    snprintf(where, sizeof where, "%s: ", key);
    if (!cJSON_IsObject(c))
        return mb_error_set(err, MB_EFORMAT, "%s: no '%s' object (is this mbopt scale --json?)",
                            path, key);
    if (!cJSON_IsArray(rows))
        return mb_error_set(err, MB_EFORMAT, "%s: no 'rows' array (is this mbopt scale --json?)",
                            path);
    int rc = mb_json_number_in(c, "procs", path, where, 1, MB_DATA_RANGE_MAX, 1, 1, &procs, err);
    if (rc == MB_OK)
        rc = mb_json_number_in(c, "m_opt", path, where, 0, MB_DATA_RANGE_MAX, MB_JSON_ABOVE_LO,
                               1, &m, err);
    if (rc == MB_OK)
        rc = mb_json_number_in(c, "m_run", path, where, 1, MB_DATA_RANGE_MAX, 1, 0, &m_run, err);
    if (rc != MB_OK)
        return rc;
    int k = 0;
    size_t used = 0;
    cJSON_ArrayForEach(r, rows)
    {
        double p = mb_json_get(r, "procs");
        if (p == procs) {
            char a[32], b[32];
            if (mb_json_get(r, "m_opt") != m)
                return mb_error_set(err, MB_EFORMAT, "%s: %s.m_opt %s is not rows[%d].m_opt %s, "
                                    "of the same procs %.0f", path, key,
                                    mb_data_fmt_exact(a, sizeof a, m), k,
                                    mb_data_fmt_exact(b, sizeof b, mb_json_get(r, "m_opt")),
                                    procs);
            break;
        }
        if (used < sizeof list - 8)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%.0f", k ? ", " : "", p);
        else if (used < sizeof list - 4)
            used += (size_t)snprintf(list + used, sizeof list - used, ", ...");
        k++;
    }
    if (!r)
        return mb_error_set(err, MB_EFORMAT, "%s: %s.procs %.0f is not among rows' procs (%s)",
                            path, key, procs, list);
    const char *m_key = isnan(m_run) ? "m_opt" : "m_run";
    if (isnan(m_run))
        m_run = round(m);
    if (!(m_run >= procs))
        return mb_error_set(err, MB_EFORMAT, "%s: %s.%s %.0f is below %s.procs %.0f: a "
                            "mini-batch has one sample a learner at least", path, key, m_key,
                            m_run, key, procs);
    rc = choice_values(c, r, k, key, procs, path, err);
    return rc == MB_OK ? mb_solver_check_scale_choice(scale, key, path, err) : rc;
}

/* scale.json's top-level values beside its rows (campaign 16, S8): the learning rate of the fit
 * (> 0, or null: a fit of points records none), its target loss (a number, or null), the
 * learners available (whole >= 1, or null),
 * the slack of `enough` (>= 0) and the flat ranges ([lo, hi] in order: the M at the recommended
 * P within `within` of its best, and the learner counts within it of the fastest). */
static int scale_top(const cJSON *scale, const char *path, mb_error *err)
{
    double v, lo, hi;
    int rc = mb_json_number_in(scale, "lr", path, "", 0, MB_DATA_RANGE_MAX, MB_JSON_ABOVE_LO, 0,
                               &v, err);
    if (rc == MB_OK)
        rc = mb_json_number_in(scale, "target_loss", path, "", -MB_DATA_RANGE_MAX,
                               MB_DATA_RANGE_MAX, 0, 0, &v, err);
    if (rc == MB_OK)
        rc = mb_json_number_in(scale, "procs_available", path, "", 1, MB_DATA_RANGE_MAX,
                               MB_JSON_WHOLE, 0, &v, err);
    if (rc == MB_OK)
        rc = mb_json_number_in(scale, "enough_slack", path, "", 0, 1e9, 0, 0, &v, err);
    const cJSON *fl = cJSON_GetObjectItemCaseSensitive(scale, "flat");
    if (rc != MB_OK || !fl || cJSON_IsNull(fl))
        return rc;
    if (!cJSON_IsObject(fl))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'flat': not an object", path);
    static const char *const ends[][2] = {{"m_lo", "m_hi"}, {"procs_lo", "procs_hi"}};
    if ((rc = mb_json_number_in(fl, "within", path, "flat: ", 0, 1e9, 0, 0, &v, err)) != MB_OK ||
        (rc = mb_json_number_in(fl, "procs", path, "flat: ", 1, MB_DATA_RANGE_MAX,
                                MB_JSON_WHOLE, 0, &v, err)) != MB_OK)
        return rc;
    for (int i = 0; i < 2; i++) {
        if ((rc = mb_json_number_in(fl, ends[i][0], path, "flat: ", i ? 1 : 0,
                                    MB_DATA_RANGE_MAX, i ? MB_JSON_WHOLE : MB_JSON_ABOVE_LO, 0,
                                    &lo, err)) != MB_OK ||
            (rc = mb_json_number_in(fl, ends[i][1], path, "flat: ", i ? 1 : 0,
                                    MB_DATA_RANGE_MAX, i ? MB_JSON_WHOLE : MB_JSON_ABOVE_LO, 0,
                                    &hi, err)) != MB_OK)
            return rc;
        if (lo > hi)
            return mb_error_set(err, MB_EFORMAT, "%s: fields 'flat.%s' and 'flat.%s' (%g, %g): "
                                "not a range lo <= hi", path, ends[i][0], ends[i][1], lo, hi);
    }
    return MB_OK;
}

int mb_solver_check_scale(const cJSON *scale, const char *path, mb_error *err)
{
    int rc = mb_format_check_json(scale, path, MB_FORMAT_SCALE, err);
    if (rc == MB_OK && !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(scale, "rows")))
        rc = mb_error_set(err, MB_EFORMAT, "%s: no 'rows' array (is this mbopt scale --json?)",
                          path);
    if (rc == MB_OK)
        rc = scale_top(scale, path, err);
    if (rc == MB_OK)
        rc = mb_solver_check_choice(scale, "enough", path, err);
    if (rc == MB_OK)
        rc = mb_solver_check_choice(scale, "best", path, err);
    return rc;
}
