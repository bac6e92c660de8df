/* scale_check.c — scale.json checked as every reader of it checks it (mbplot report, mbopt
 * validate --recommend, mbplot tc/scale/amdahl: campaign 32's P3, P4), and whether its
 * recommendation is the one its own rows give (campaign 31's
 * N5: m_opt 200 outside its row's searched range 16..128, m_run 36 beside m_opt 34.76 at P = 1,
 * `enough` at P = 2 where procs_available is 1 and P = 1 was faster, each drawn by mbplot report
 * and graded by mbopt validate --recommend as given). Every row's m_opt lies in its m_lo..m_hi;
 * a choice's m_run is the whole mini-batch mbopt derives from its m_opt (mb_solver_m_whole); and
 * `best` and `enough` are the rows mb_solver_best_row and mb_solver_enough_row pick among the
 * rows the file could recommend (procs <= procs_available, not labelled not recommended), with
 * the file's enough_slack.
 *
 * Not here: whether the rows are the model's optimum (mbplot report holds the model to the fits,
 * plots/match.c), the choice's own fields (mb_solver_check_choice, fits.c), reading the file,
 * what a figure checks of the rows it draws (plots/figures.c).
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
