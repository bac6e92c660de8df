/* nupdate.c — N_update(M): from run logs or a points file to the inverse law and its rivals.
 *
 * Reads mbtrain run logs (threshold crossing, "no patience": the first logged update whose
 * evaluation loss is at or under eps; a run that never gets there is counted as unreached, never
 * as reaching it at its last update) or a points file (batch,n_update[,seed]); groups the runs by
 * M; fits N = N_inf + alpha / M (Perrone et al. 2019, eq. 2), the power law N_inf + a M^-b, the
 * shifted inverse law N_inf + alpha / (M - M_0) and McCandlish et al.'s S_min (1 + B_noise / M)
 * (2018, eq. 2.11; the same curve as the inverse law with alpha = S_min B_noise); compares them
 * by AIC; and bootstraps runs within each M, and whole seeds across M.
 * It does not print and does not decide what mbopt uses: top-level params stay the inverse law's.
 */
#include "mb_fit.h"
#include "../data/mb_json.h"
#include "../data/mb_parse.h"
#include "../data/mb_table.h"
#include "../data/mb_format.h"
#include "../train/run/mb_run.h"
#include "mb_lightning.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

void mb_fit_runs_free(mb_fit_runs *r)
{
    if (!r)
        return;
    free(r->thresholds);
    free(r->batch);
    free(r->seed);
    free(r->n_update);
    free(r->wall);
    free(r->lr);
    free(r->procs);
    free(r->diverged);
    free(r->t_step);
    free(r->net);
    free(r->algo);
    free(r->optim);
    free(r->backend);
    free(r->threads);
    free(r->target);
    free(r->b_simple);
    free(r->file);
    free(r->first_loss);
    free(r->first_update);
    free(r->setting);
    memset(r, 0, sizeof *r);
}

static int runs_alloc(mb_fit_runs *r, size_t n, size_t n_thr)
{
    memset(r, 0, sizeof *r);
    r->n_thr = n_thr;
    r->thresholds = calloc(n_thr, sizeof *r->thresholds);
    r->batch = calloc(n ? n : 1, sizeof *r->batch);
    r->seed = calloc(n ? n : 1, sizeof *r->seed);
    r->n_update = calloc((n ? n : 1) * n_thr, sizeof *r->n_update);
    r->wall = calloc((n ? n : 1) * n_thr, sizeof *r->wall);
    r->lr = calloc(n ? n : 1, sizeof *r->lr);
    r->procs = calloc(n ? n : 1, sizeof *r->procs);
    r->diverged = calloc(n ? n : 1, sizeof *r->diverged);
    r->t_step = calloc(n ? n : 1, sizeof *r->t_step);
    r->net = calloc(n ? n : 1, sizeof *r->net);
    r->algo = calloc(n ? n : 1, sizeof *r->algo);
    r->optim = calloc(n ? n : 1, sizeof *r->optim);
    r->backend = calloc(n ? n : 1, sizeof *r->backend);
    r->threads = calloc(n ? n : 1, sizeof *r->threads);
    r->target = calloc(n ? n : 1, sizeof *r->target);
    r->b_simple = calloc(n ? n : 1, sizeof *r->b_simple);
    r->file = calloc(n ? n : 1, sizeof *r->file);
    r->first_loss = calloc(n ? n : 1, sizeof *r->first_loss);
    r->first_update = calloc(n ? n : 1, sizeof *r->first_update);
    r->setting = calloc(n ? n : 1, sizeof *r->setting);
    if (!r->file || !r->first_loss || !r->first_update || !r->setting) {
        mb_fit_runs_free(r);
        return MB_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) /* none judged yet; run i is input i until filtered */
        r->file[i] = i, r->first_loss[i] = r->first_update[i] = NAN;
    if (!r->target || !r->b_simple ||!r->thresholds || !r->batch || !r->seed || !r->n_update || !r->wall || !r->lr ||
        !r->procs || !r->diverged || !r->t_step || !r->net || !r->algo || !r->optim || !r->backend ||
        !r->threads) {
        mb_fit_runs_free(r);
        return MB_ENOMEM;
    }
    return MB_OK;
}

/* A metadata value that must be a finite number > 0 (or any number when positive is 0), and a
 * whole one in [0, 2^53] when `whole` is set (batch, learners, seed). */
static int meta_number(const mb_table *t, const char *key, int required, int positive,
                       int whole, double *v, mb_error *err)
{
    const char *s = mb_table_meta(t, key);
    if (!s) {
        *v = NAN;
        return required ? mb_error_set(err, MB_EFORMAT,
                                       "%s: no '%s' metadata (a '# %s=...' line before the header)",
                                       mb_table_path(t), key, key)
                        : MB_OK;
    }
    if (mb_data_parse_double(s, v) != MB_OK || (positive && *v <= 0))
        return mb_error_set(err, MB_EFORMAT, "%s: metadata '%s': '%s' is not a %snumber",
                            mb_table_path(t), key, s, positive ? "positive " : "finite ");
    if (whole && (*v != floor(*v) || *v < 0 || !mb_data_whole_as_written(s) ||
                  mb_data_past_2_53(s, *v)))
        return mb_error_set(err, MB_EFORMAT, "%s: metadata '%s': '%s' is not a whole number in "
                            "[%d, 2^53]", mb_table_path(t), key, s, positive);
    return MB_OK;
}

/* Fills n_update[0..n_thr) and wall[0..n_thr) of one log, and *t_step. */
static int crossing(const mb_table *t, const double *thr, size_t n_thr, size_t smooth,
                    double *n_update, double *wall, double *t_step, int *used_train,
                    double first[2], mb_error *err)
{
    size_t cu, cl = 0;
    long cw = mb_table_col(t, "wall_s");
    int rc = mb_table_require_col(t, "update", &cu, err);
    if (rc != MB_OK)
        return rc;
    size_t rows = mb_table_rows(t);
    if (rows == 0)
        return mb_error_set(err, MB_EFORMAT, "%s: no rows after the header", mb_table_path(t));
    long ce = mb_table_col(t, "eval_loss"), ca = mb_table_col(t, "eval_acc");
    int have_eval = 0;
    for (size_t r = 0; ce >= 0 && r < rows; r++)
        have_eval |= *mb_table_cell(t, r, (size_t)ce) != '\0';
    if (!have_eval && (rc = mb_table_require_col(t, "loss", &cl, err)) != MB_OK)
        return rc;
    *used_train = !have_eval;
    for (size_t k = 0; k < n_thr; k++)
        n_update[k] = wall[k] = NAN;
    *t_step = NAN;
    double *win = NULL;
    if (!have_eval && !(win = calloc(smooth, sizeof *win)))
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    double sum = 0, prev_u = -INFINITY, prev_w = -INFINITY;
    size_t prev_wr = 0; /* the row of prev_w */
    for (size_t r = 0; r < rows; r++) {
        double u, loss;
        if ((rc = mb_table_double(t, r, cu, &u, err)) != MB_OK)
            break;
        const int past = u >= 0 && mb_data_past_2_53(mb_table_cell(t, r, cu), u);
        const int frac = u != floor(u) || !mb_data_whole_as_written(mb_table_cell(t, r, cu));
        if (u < 0 || u <= prev_u || past || frac) {
            rc = mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'update': %s is %s",
                              mb_table_path(t), mb_table_line(t, r), mb_table_cell(t, r, cu),
                              u < 0                 ? "negative"
                              : past                ? "past 2^53 updates"
                              : frac                ? "not a whole number"
                                                    : "not past the row before's (one row an update)");
            break;
        }
        prev_u = u;
        /* a training loss is a finite cross-entropy >= 0 where the log has one (mbtrain stops a
         * run whose loss is not, and says so in '# diverged=') */
        long clo = mb_table_col(t, "loss");
        double lv;
        if (clo >= 0 && *mb_table_cell(t, r, (size_t)clo) != '\0' &&
            (rc = mb_table_double_in(t, r, (size_t)clo, 0, HUGE_VAL, 0, &lv, err)) != MB_OK)
            break;
        double w = NAN;
        if (cw >= 0 && *mb_table_cell(t, r, (size_t)cw) != '\0') {
            if ((rc = mb_table_double(t, r, (size_t)cw, &w, err)) != MB_OK)
                break;
            /* a time, capped as a step table's (its square overflows the fits past 1e9 s), and
             * after update 0 some time at all: 0 s or a subnormal is no training time, and a
             * ratio over it (validate's "x the best", s/update) overflows */
            const char *why = w < 0                    ? "is negative"
                              : w > MB_FIT_MAX_SECONDS ? "is past 1e9 s (31 years)"
                              : u > 0 && w < MB_FIT_MIN_SECONDS
                                  ? "is no training time: after update 0 a run has trained "
                                    "1e-9 s or more"
                                  : NULL;
            if (why) {
                rc = mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'wall_s': %s at update %s %s",
                                  mb_table_path(t), mb_table_line(t, r),
                                  mb_table_cell(t, r, (size_t)cw), mb_table_cell(t, r, cu), why);
                break;
            }
            /* a running total: the training time up to and including this update cannot fall
             * below an earlier row's (campaign 13, Q5) */
            if (w < prev_w) {
                rc = mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'wall_s': %s at update %s is "
                                  "below %s at update %s (training time up to this update)",
                                  mb_table_path(t), mb_table_line(t, r),
                                  mb_table_cell(t, r, (size_t)cw), mb_table_cell(t, r, cu),
                                  mb_table_cell(t, prev_wr, (size_t)cw),
                                  mb_table_cell(t, prev_wr, cu));
                break;
            }
            prev_w = w, prev_wr = r;
            if (u > 0)
                *t_step = w / u;
        }
        if (have_eval) {
            if (*mb_table_cell(t, r, (size_t)ce) == '\0')
                continue;
            /* a cross-entropy is >= 0: a negative one would count as reaching any target */
            if ((rc = mb_table_double_in(t, r, (size_t)ce, 0, HUGE_VAL, 0, &loss, err)) != MB_OK)
                break;
            double acc;
            if (ca >= 0 && *mb_table_cell(t, r, (size_t)ca) != '\0' &&
                (rc = mb_table_double_in(t, r, (size_t)ca, 0, 1, 0, &acc, err)) != MB_OK)
                break;
        } else {
            double v;
            if ((rc = mb_table_double(t, r, cl, &v, err)) != MB_OK)
                break;
            sum += v - win[r % smooth];
            win[r % smooth] = v;
            if (r + 1 < smooth)
                continue;
            loss = sum / (double)smooth;
        }
        if (isnan(first[0])) /* the first loss the run is judged by, and its update */
            first[0] = loss, first[1] = u;
        for (size_t k = 0; k < n_thr; k++)
            if (isnan(n_update[k]) && loss <= thr[k])
                n_update[k] = u, wall[k] = w;
    }
    free(win);
    return rc;
}

/* Whether the log says the run diverged: `# diverged=U` metadata (U the update it diverged
 * at; `no` or `0`: it did not), or a `diverged=yes` (or `diverged=UPDATE`) token in a trailer
 * line (mbtrain's summary). Metadata U is a whole number, at or after the log's last row and
 * at most one logging interval past it (mbtrain logs no row for a non-finite loss), and a run
 * whose summary says reached=yes did not diverge: MB_EFORMAT naming file, line and field
 * otherwise (a run counted both reached and diverged broke every count). */
static int log_diverged(const mb_table *t, size_t cu, int *diverged, mb_error *err)
{
    const char *m = mb_table_meta(t, "diverged");
    *diverged = 0;
    int summary_reached = 0;
    for (size_t i = 0; i < mb_table_trailers(t); i++) {
        const char *s = mb_table_trailer(t, i), *p;
        if ((p = strstr(s, "reached=yes")) && (p == s || p[-1] == ' '))
            summary_reached = 1;
        for (p = s; !m && (p = strstr(p, "diverged=")) != NULL; p++)
            if (p == s || p[-1] == ' ') {
                p += strlen("diverged=");
                *diverged |= strncmp(p, "no", 2) != 0 && !(p[0] == '0' && (p[1] == ' ' || !p[1]));
                break;
            }
    }
    if (m) {
        if (strcmp(m, "no") == 0 || strcmp(m, "0") == 0)
            return MB_OK;
        double u, last = 0, prev = 0;
        size_t rows = mb_table_rows(t);
        if (rows > 0 && mb_data_parse_double(mb_table_cell(t, rows - 1, cu), &last) != MB_OK)
            return MB_OK; /* crossing() has refused the row already */
        if (rows > 1 && mb_data_parse_double(mb_table_cell(t, rows - 2, cu), &prev) != MB_OK)
            prev = last;
        double gap = last - prev >= 1 ? last - prev : 1;
        const char *why = NULL;
        if (mb_data_parse_double(m, &u) != MB_OK || u < 0 || u != floor(u) ||
            u > MB_DATA_RANGE_MAX)
            why = "is not a whole number >= 0 (the update the run diverged at)";
        else if (u < last)
            why = "is before the log's last row: the log goes on after the run diverged";
        else if (u > last + gap)
            why = "is past the log's last row (one logging interval at most)";
        if (why)
            return mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'diverged': %s %s", mb_table_path(t),
                                mb_table_meta_line(t, "diverged"), m, why);
        *diverged = 1;
    }
    if (*diverged && summary_reached)
        return mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'diverged': the run is marked "
                            "diverged, but its summary says reached=yes (a run is one or the other)",
                            mb_table_path(t), m ? mb_table_meta_line(t, "diverged")
                                                : mb_table_line(t, mb_table_rows(t) - 1) + 1);
    return MB_OK;
}

/* Whether a and b (a summary's value and the metadata's) say the same: equal as written, or as
 * numbers ("128" and "128.0"). */
static int same_value(const char *a, const char *b)
{
    double x, y;
    return strcmp(a, b) == 0 || (mb_data_parse_double(a, &x) == MB_OK &&
                                 mb_data_parse_double(b, &y) == MB_OK && x == y);
}

/* A summary that says reached=no over rows that crossed the log's own `# target_loss=`: a row's
 * eval_loss clearly under it (by more than the 7 digits a log writes). mbtrain stops at the
 * first evaluation at or under its target, so such a log is two runs: the fit would count it
 * reached from the rows, make run's time cap unreached from the summary (campaign 17's minor).
 * MB_EFORMAT naming the file, the row's line and the target. */
static int summary_reached_rows(const mb_table *t, const char *sum, mb_error *err)
{
    const char *p = strstr(sum, "reached=no"), *tl = mb_table_meta(t, "target_loss");
    long ce = mb_table_col(t, "eval_loss");
    double target, v;
    if (!p || (p != sum && p[-1] != ' ') || (p[10] != ' ' && p[10] != '\0') || !tl || ce < 0 ||
        mb_data_parse_double(tl, &target) != MB_OK || !(target > 0))
        return MB_OK;
    for (size_t r = 0; r < mb_table_rows(t); r++) {
        const char *c = mb_table_cell(t, r, (size_t)ce);
        if (*c && mb_data_parse_double(c, &v) == MB_OK && v < target * (1 - 1e-6))
            return mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'eval_loss': %s is under the "
                                "log's target_loss %s, but its summary says reached=no (mbtrain "
                                "stops at the first evaluation under its target: the log "
                                "contradicts itself)", mb_table_path(t), mb_table_line(t, r),
                                c, tl);
    }
    return MB_OK;
}

/* An algorithm's name in a log, `# algo=` (what "metadata 'algo'") or the summary's algo=
 * (what "summary line: field 'algo'"), on line `line`: one that mbtrain writes, the names of
 * its own tables (mb_run_algo_nth: the optimisers, which the PyTorch front end writes too, and
 * the parallel algorithms). Campaign 18's M8: `# algo=bogus` went into the fit as "algo":
 * "bogus" and on to mbopt. MB_EFORMAT naming the file, line and field, and the names. */
static int known_algo(const mb_table *t, long line, const char *what, const char *v,
                      mb_error *err)
{
    char names[256] = "";
    for (int k = 0; mb_run_algo_nth(k); k++) {
        if (strcmp(v, mb_run_algo_nth(k)) == 0)
            return MB_OK;
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? ", " : "",
                 mb_run_algo_nth(k));
    }
    return mb_error_set(err, MB_EFORMAT, "%s:%ld: %s 'algo': '%s' is not an algorithm mbtrain "
                        "writes (%s)", mb_table_path(t), line, what, v, names);
}

/* The numbers of the summary line (run_mon.c's mb_run_result_format; the PyTorch front end
 * writes the same keys): counts whole, from `lo`; seconds >= 0; `dash`: '-' (none, as a log
 * writes a non-finite value) taken. Campaign 22's Q9: evals=abc, eval_s=abc (make run sums
 * eval_s), diverged_update=abc and reached_update=-5 were taken. A count (`whole`) is written in
 * digits. */
static const struct summary_number {
    const char *key;
    double lo;
    int whole, dash;
    const char *why;
} summary_numbers[] = {
    {"batch", 1, 1, 0, "is not a whole number >= 1"},
    {"seed", 0, 1, 0, "is not a whole number >= 0"},
    {"updates", 0, 1, 0, "is not a whole number of updates"},
    {"samples", 0, 1, 0, "is not a whole number of samples"},
    {"evals", 0, 1, 0, "is not a whole number of evaluations"},
    {"checks", 0, 1, 0, "is not a whole number of checks"},
    {"eval_samples", 0, 1, 0, "is not a whole number of samples"},
    {"learners", 1, 1, 0, "is not a whole number >= 1"},
    {"ranks", 1, 1, 0, "is not a whole number >= 1"},
    /* none: 0 (mbtrain), -1 (the front end); lo is raised to 0 for mbtrain's logs */
    {"reached_update", -1, 1, 0, "is not an update: a whole number >= 0, or -1 where there is "
                                 "none (the PyTorch front end's)"},
    {"diverged_update", -1, 1, 0, "is not an update: a whole number >= 0, or -1 where there is "
                                  "none (the PyTorch front end's)"},
    {"wall_s", 0, 0, 0, "is not a number of seconds >= 0"},
    {"eval_s", 0, 0, 0, "is not a number of seconds >= 0"},
    {"reached_wall_s", 0, 0, 1, "is not a number of seconds >= 0"},
    {"snap_s", 0, 0, 1, "is not a number of seconds >= 0"},
    {"t_compute_s", 0, 0, 1, "is not a number of seconds >= 0"},
    {"t_comm_s", 0, 0, 1, "is not a number of seconds >= 0"},
    {"t_data_s", 0, 0, 1, "is not a number of seconds >= 0"},
    {"t_update_s", 0, 0, 1, "is not a number of seconds >= 0"},
    {"epochs", 0, 0, 1, "is not a number >= 0"},
    {"loss", -HUGE_VAL, 0, 1, "is not a number"},
    {"eval_loss", -HUGE_VAL, 0, 1, "is not a number"},
    {"eval_acc", -HUGE_VAL, 0, 1, "is not a number"},
    {"test_loss", -HUGE_VAL, 0, 1, "is not a number"},
    {"test_acc", -HUGE_VAL, 0, 1, "is not a number"},
    {"b_simple", -HUGE_VAL, 0, 1, "is not a number"},
};

/* One field of the summary line as mbtrain writes it: reached yes or no; the numbers
 * (summary_numbers) numbers, in their range; no field nan or inf (a log holds finite numbers,
 * '-' where there is none); algo a name mbtrain writes (known_algo). `line` is the summary's.
 * Campaign 18's known minors: reached=maybe, updates=x and wall_s=nan went through every
 * reader. MB_EFORMAT naming the file, line and field. */
static int summary_value(const mb_table *t, long line, const char *key, const char *v,
                         mb_error *err)
{
    double x;
    const int number = mb_data_parse_double(v, &x) == MB_OK;
    const int name = strcmp(key, "net") == 0 || strcmp(key, "algo") == 0; /* (nanonet) */
    const char *why = NULL, *tool = mb_table_meta(t, "tool"), *kind = mb_format_kind_of_tool(tool);
    const int writer = kind && strcmp(kind, MB_FORMAT_RUNLOG) == 0;
    if (!*v)
        why = "is empty (a log writes a value, '-' where there is none)";
    else if (strcmp(key, "reached") == 0 && strcmp(v, "yes") != 0 && strcmp(v, "no") != 0)
        why = "is not yes or no";
    else if (!name && mb_data_non_finite(v))
        why = "is not a finite number (a log holds finite numbers, '-' where there is none)";
    else if (strcmp(key, "algo") == 0)
        return known_algo(t, line, "summary line: field", v, err);
    for (size_t k = 0; !why && k < sizeof summary_numbers / sizeof *summary_numbers; k++) {
        const struct summary_number *f = &summary_numbers[k];
        const int own = f->lo < 0 && f->whole && tool && strcmp(tool, "mbtrain") == 0;
        if (strcmp(key, f->key) != 0 || (f->dash && strcmp(v, "-") == 0))
            continue;
        if (!(number && x >= (own ? 0 : f->lo) && (!f->whole || x == floor(x))))
            why = own ? "is not an update: a whole number >= 0 (mbtrain writes 0 where there is "
                        "none)"
                      : f->why;
        /* a count in digits (MB_TABLE_DIGITS's rule; campaign 24's U7: 6.8e2, +680, 82.0 and
         * -0 were taken), -1 only as the front end's none; digits alone in a log of the two
         * writers, which write them so, and a ".0" after them taken from another writer's, as
         * in a points file */
        else if (f->whole && !mb_table_in_digits(v, !writer) &&
                 !(f->lo < 0 && strcmp(v, "-1") == 0))
            why = writer ? "is not a count written in digits (as mbtrain and the PyTorch front "
                           "end write it)"
                         : "is not a count written in digits";
    }
    return why ? mb_error_set(err, MB_EFORMAT, "%s:%ld: summary line: field '%s' '%.64s' %s",
                              mb_table_path(t), line, key, v, why)
               : MB_OK;
}

/* Where mbtrain's summary (the trailer "net=... algo=... batch=... seed=... reached=...") lies:
 * *at its trailer index, or SIZE_MAX when the log has none. mbtrain and the PyTorch front end
 * write it once, as the last line, when the run has ended (a log is written whole at the end,
 * and a killed run leaves none): a second summary, or a row after it, is a log added to after
 * its run ended (campaign 18's known minors); a log whose `# tool=` is one of them
 * (mb_format_kind_of_tool gives a run log) without one is cut short. A log of another writer
 * (hand-made, data/examples/) may leave it out: the fit reads the rows. A summary that is the
 * file's last line without a newline at its end is cut inside (campaign 20's minor: the cut
 * dropped diverged=). MB_EFORMAT naming the file and line. */
static int summary_at(const mb_table *t, size_t *at, mb_error *err)
{
    *at = SIZE_MAX;
    for (size_t i = 0; i < mb_table_trailers(t); i++) {
        if (strncmp(mb_table_trailer(t, i), "net=", 4) != 0)
            continue;
        if (*at != SIZE_MAX)
            return mb_error_set(err, MB_EFORMAT, "%s:%ld: two summary lines (net=... after the "
                                "rows), the first at line %ld: a run ends once", mb_table_path(t),
                                mb_table_trailer_line(t, i), mb_table_trailer_line(t, *at));
        *at = i;
    }
    const char *tool = mb_table_meta(t, "tool"), *kind = mb_format_kind_of_tool(tool);
    if (*at == SIZE_MAX)
        return kind && strcmp(kind, MB_FORMAT_RUNLOG) == 0
                   ? mb_error_set(err, MB_EFORMAT, "%s: no summary line (net=... after the "
                                  "rows), but metadata 'tool' is %s, which ends every log with "
                                  "one: the log is cut short", mb_table_path(t), tool)
                   : MB_OK;
    const long line = mb_table_trailer_line(t, *at);
    if (mb_table_unended(t) == line)
        return mb_error_set(err, MB_EFORMAT, "%s:%ld: the summary line has no newline at its end: "
                            "the log was cut inside it (mbtrain ends every line with one)",
                            mb_table_path(t), line);
    for (size_t r = mb_table_rows(t); r-- > 0 && mb_table_line(t, r) > line;)
        if (r == 0 || mb_table_line(t, r - 1) < line)
            return mb_error_set(err, MB_EFORMAT, "%s:%ld: a row after the summary line (line "
                                "%ld): the summary is written last, when the run has ended",
                                mb_table_path(t), mb_table_line(t, r), line);
    return MB_OK;
}

/* The keys every summary of a run-log writer holds (`tool`: mbtrain or mbkit_torch runs, whose
 * kind mb_format_kind_of_tool says is a run log), given the `n` keys the line has: all of
 * run_mon.c's mb_run_result_format before its per-algorithm tail (test_loss and test_acc only
 * where the tool is mbtrain: the front end's summary has none). A summary cut short loses its
 * last keys, diverged= first, and readers take diverged= from it (campaign 20's minor).
 * MB_EFORMAT naming the file, the line and the first key missing. */
static int summary_keys(const mb_table *t, long line, const char *const *keys, size_t n,
                        mb_error *err)
{
    static const char *const always[] = {
        "net", "algo", "batch", "seed", "updates", "epochs", "samples", "wall_s", "eval_s",
        "loss", "eval_loss", "eval_acc", "test_loss", "test_acc", "reached", "reached_update",
        "reached_wall_s", "evals", "checks", "eval_samples", "snap_s", "diverged",
        "diverged_update"};
    const char *tool = mb_table_meta(t, "tool"), *kind = mb_format_kind_of_tool(tool);
    if (!kind || strcmp(kind, MB_FORMAT_RUNLOG) != 0)
        return MB_OK; /* another writer's (hand-made) summary: the readers take diverged= only */
    const int front_end = strcmp(tool, "mbtrain") != 0;
    for (size_t k = 0; k < sizeof always / sizeof always[0]; k++) {
        if (front_end && strncmp(always[k], "test_", 5) == 0)
            continue;
        size_t j = 0;
        while (j < n && strcmp(keys[j], always[k]) != 0)
            j++;
        if (j == n)
            return mb_error_set(err, MB_EFORMAT, "%s:%ld: summary line: no field '%s', which "
                                "%s writes in every summary: the line is cut short",
                                mb_table_path(t), line, always[k], tool);
    }
    return MB_OK;
}

/* The value of `key` among the summary's n fields, NULL when it has none (each key is there
 * once: summary_keys). */
static const char *summary_field(const char *const *keys, const char *const *vals, size_t n,
                                 const char *key)
{
    for (size_t j = 0; j < n; j++)
        if (strcmp(keys[j], key) == 0)
            return vals[j];
    return NULL;
}

/* The summary's samples against its updates and batch M (the metadata's where the line has
 * none) and learners P (likewise, 1 without either): u M for one learner, u M / P to u M where
 * fewer learners compute (SMA's tuning), as the rows' samples are held (log_samples). Checked
 * where the line has samples and updates (campaign 22's Q9: samples=1 at updates=4000 batch=8
 * was taken). The values were checked as numbers before (summary_value). */
static int summary_samples(const mb_table *t, long line, const char *const *keys,
                           const char *const *vals, size_t n, mb_error *err)
{
    static const char *const want[] = {"samples", "updates", "batch", "learners"};
    const char *v[4] = {NULL, NULL, mb_table_meta(t, "batch"), mb_table_meta(t, "learners")};
    double x[4] = {0, 0, 0, 1};
    for (size_t k = 0; k < 4; k++) {
        const char *f = summary_field(keys, vals, n, want[k]);
        v[k] = f ? f : v[k];
    }
    for (size_t k = 0; k < 4; k++)
        if (v[k] && mb_data_parse_double(v[k], &x[k]) != MB_OK)
            return MB_OK; /* a metadata value the reader refuses by itself (meta_number) */
    if (!v[0] || !v[1] || !v[2])
        return MB_OK;
    const double hi = x[1] * x[2], lo = hi / (x[3] >= 1 ? x[3] : 1);
    if (x[0] >= lo * (1 - 1e-12) && x[0] <= hi * (1 + 1e-12))
        return MB_OK;
    return mb_error_set(err, MB_EFORMAT, "%s:%ld: summary line: field 'samples' '%.64s' is not "
                        "updates x batch (%s x %s%s): the log contradicts itself",
                        mb_table_path(t), line, v[0], v[1], v[2],
                        x[3] > 1 ? ", or down to 1 / learners of it" : "");
}

/* The summary's reached_update and diverged_update at most its updates (campaign 25's V10: a
 * run that reached at update 9000 of 4000 was read on). Checked where the line has them. */
static int summary_updates(const mb_table *t, long line, const char *const *keys,
                           const char *const *vals, size_t n, mb_error *err)
{
    static const char *const after[] = {"reached_update", "diverged_update"};
    const char *us = summary_field(keys, vals, n, "updates");
    double u, x;
    if (!us || mb_data_parse_double(us, &u) != MB_OK)
        return MB_OK;
    for (size_t k = 0; k < 2; k++) {
        const char *v = summary_field(keys, vals, n, after[k]);
        if (v && mb_data_parse_double(v, &x) == MB_OK && x > u)
            return mb_error_set(err, MB_EFORMAT, "%s:%ld: summary line: field '%s' %.64s is past "
                                "updates=%.0f: the log contradicts itself", mb_table_path(t),
                                line, after[k], v, u);
    }
    return MB_OK;
}

/* mbtrain's summary, when the log has one (summary_at): key=value fields (campaign 22's Q9: a
 * word without '=' and an empty key were passed over), each key in it once, every key its
 * writer always writes (summary_keys), its samples its updates x batch (summary_samples), and
 * its net, algo, batch and seed those of the log's own metadata. The fit reads the rows, make run's
 * time cap the summary: a log whose two halves disagree would be one run to one and another to
 * the other (campaigns 16 and 17). MB_EFORMAT naming the file and the field. */
static int log_summary(const mb_table *t, mb_error *err)
{
    static const char *const same[] = {"net", "algo", "batch", "seed"};
    size_t at;
    int rc0 = summary_at(t, &at, err);
    if (rc0 != MB_OK || at == SIZE_MAX)
        return rc0;
    const char *sum = mb_table_trailer(t, at);
    const long sum_line = mb_table_trailer_line(t, at);
    char *line = strdup(sum), *save = NULL;
    if (!line)
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    int rc = MB_OK;
    const char *keys[64], *vals[64];
    size_t n = 0;
    for (char *tok = strtok_r(line, " ", &save); tok && rc == MB_OK;
         tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq || eq == tok) {
            rc = mb_error_set(err, MB_EFORMAT, "%s:%ld: summary line: '%.64s' %s (mbtrain writes "
                              "key=value fields, split by spaces)", mb_table_path(t), sum_line,
                              tok, eq ? "has no key" : "is not key=value");
            break;
        }
        *eq = '\0';
        for (size_t j = 0; j < n && rc == MB_OK; j++)
            if (strcmp(keys[j], tok) == 0)
                rc = mb_error_set(err, MB_EFORMAT, "%s:%ld: summary line: key '%s' given twice",
                                  mb_table_path(t), sum_line, tok);
        if (n < sizeof keys / sizeof keys[0])
            keys[n] = tok, vals[n++] = eq + 1;
        if (rc == MB_OK)
            rc = summary_value(t, sum_line, tok, eq + 1, err);
        for (size_t k = 0; rc == MB_OK && k < sizeof same / sizeof same[0]; k++) {
            const char *m = mb_table_meta(t, same[k]);
            if (strcmp(tok, same[k]) == 0 && m && !same_value(eq + 1, m))
                rc = mb_error_set(err, MB_EFORMAT, "%s: summary line: field '%s' is %s, but "
                                  "metadata '%s' is %s (line %ld): the log contradicts itself",
                                  mb_table_path(t), tok, eq + 1, same[k], m,
                                  mb_table_meta_line(t, same[k]));
        }
    }
    if (rc == MB_OK)
        rc = summary_keys(t, sum_line, keys, n, err);
    if (rc == MB_OK)
        rc = summary_samples(t, sum_line, keys, vals, n, err);
    if (rc == MB_OK)
        rc = summary_updates(t, sum_line, keys, vals, n, err);
    free(line);
    return rc == MB_OK ? summary_reached_rows(t, sum, err) : rc;
}

static void meta_string(const mb_table *t, const char *key, char *dst, size_t n)
{
    const char *v = mb_table_meta(t, key);
    snprintf(dst, n, "%s", v ? v : "");
}

/* `# algo=`, when there: not empty (a log that does not say leaves the line out, and readers
 * that compare algorithms would pass an empty one over; campaign 17, F4) and a name mbtrain
 * writes (known_algo). */
static int meta_algo(const mb_table *t, mb_error *err)
{
    const char *a = mb_table_meta(t, "algo");
    if (a && !*a)
        return mb_error_set(err, MB_EFORMAT, "%s: metadata 'algo': empty (mbtrain writes the "
                            "algorithm's name)", mb_table_path(t));
    return a ? known_algo(t, mb_table_meta_line(t, "algo"), "metadata", a, err) : MB_OK;
}

/* `# crossing=` is an enumerated key (docs/formats.md, "Run log"): bisect or evaluated, when
 * there (issue #25, campaign 6, G3). */
static int meta_crossing(const mb_table *t, mb_error *err)
{
    const char *c = mb_table_meta(t, "crossing");
    if (c && strcmp(c, "bisect") != 0 && strcmp(c, "evaluated") != 0)
        return mb_error_set(err, MB_EFORMAT, "%s: metadata 'crossing': '%s' is not bisect or "
                            "evaluated", mb_table_path(t), c);
    return MB_OK;
}

/* The `samples` column, where the log has one, against `# batch=` M and `# learners=` P: the
 * samples up to update u are u M (mbtrain; u M / P to u M where fewer learners compute, SMA's
 * tuning or a front end counting one learner's). Campaign 16's S6: a log of batch 4096 over rows
 * of 4 samples an update calibrated a step table at M = 4096. */
static int log_samples(const mb_table *t, double batch, double procs, mb_error *err)
{
    long cs = mb_table_col(t, "samples"), cu = mb_table_col(t, "update");
    for (size_t r = 0; cs >= 0 && cu >= 0 && r < mb_table_rows(t); r++) {
        double u, s;
        if (*mb_table_cell(t, r, (size_t)cs) == '\0' ||
            mb_table_double(t, r, (size_t)cu, &u, NULL) != MB_OK)
            continue;
        int rc = mb_table_double_in(t, r, (size_t)cs, 0, MB_DATA_RANGE_MAX, 1, &s, err);
        if (rc != MB_OK)
            return rc;
        const double hi = u * batch, lo = hi / procs;
        if (!(s >= lo * (1 - 1e-12) && s <= hi * (1 + 1e-12)))
            return mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'samples': %s at update %s is "
                                "not update x batch (metadata 'batch' %g%s): the log contradicts "
                                "its own mini-batch", mb_table_path(t), mb_table_line(t, r),
                                mb_table_cell(t, r, (size_t)cs), mb_table_cell(t, r, (size_t)cu),
                                batch, procs > 1 ? ", or down to 1 / learners of it" : "");
    }
    return MB_OK;
}

/* The columns of a run log (train/run/run_mon.c's header; the front end's and hand-made logs
 * hold some of them). A column this reader does not know is passed over (docs/formats.md, "The
 * format version": a newer writer may add one beside the others), unless one of the columns
 * every writer writes is missing too: then it is a misspelt or renamed one (campaign 21's N19:
 * with `lossx` for `loss` the log was read on its evaluations alone, without a word). */
static int log_columns(const mb_table *t, mb_error *err)
{
    static const char *const known[] = {"update", "epoch", "samples", "wall_s", "loss",
                                        "eval_loss", "eval_acc", "b_simple"};
    const size_t n = sizeof known / sizeof known[0], written = n - 1; /* b_simple: mbtrain's */
    const char *odd = NULL, *missing = NULL;
    if (mb_table_col(t, "update") < 0)
        return MB_OK; /* not a run log at all: crossing says so ("no column 'update'") */
    for (size_t c = 0; !odd && c < mb_table_cols(t); c++) {
        size_t k = 0;
        while (k < n && strcmp(mb_table_col_name(t, c), known[k]) != 0)
            k++;
        odd = k == n ? mb_table_col_name(t, c) : NULL;
    }
    for (size_t k = 0; odd && !missing && k < written; k++)
        missing = mb_table_col(t, known[k]) < 0 ? known[k] : NULL;
    if (missing)
        return mb_error_set(err, MB_EFORMAT, "%s: header: column '%s' is not a run log's, and "
                            "'%s' is missing: a misspelt or renamed column? (a run log's: update, "
                            "epoch, samples, wall_s, loss, eval_loss, eval_acc, b_simple)",
                            mb_table_path(t), odd, missing);
    return MB_OK;
}

/* The `epoch` column, where the log has one: a number of passes, >= 0 and never below the row
 * before's (campaign 21's N19: an epoch of -1 passed). */
static int log_epochs(const mb_table *t, mb_error *err)
{
    long ce = mb_table_col(t, "epoch");
    double prev = 0;
    size_t prev_r = 0;
    int have = 0;
    for (size_t r = 0; ce >= 0 && r < mb_table_rows(t); r++) {
        double e;
        if (*mb_table_cell(t, r, (size_t)ce) == '\0')
            continue;
        int rc = mb_table_double_in(t, r, (size_t)ce, 0, MB_DATA_RANGE_MAX, 0, &e, err);
        if (rc != MB_OK)
            return rc;
        if (have && e < prev)
            return mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'epoch': %s is below %s (line "
                                "%ld): the passes over the data only grow", mb_table_path(t),
                                mb_table_line(t, r), mb_table_cell(t, r, (size_t)ce),
                                mb_table_cell(t, prev_r, (size_t)ce), mb_table_line(t, prev_r));
        prev = e, prev_r = r, have = 1;
    }
    return MB_OK;
}

/* Reads log i of `runs` from table t (paths[i]). */
static int read_one_log(const mb_table *t, mb_fit_runs *runs, size_t i, const double *thr,
                        size_t n_thr, size_t smooth, mb_error *err)
{
    int used = 0, rc;
    double first[2] = {NAN, NAN};
    if ((rc = mb_format_check_table(t, MB_FORMAT_RUNLOG, err)) == MB_OK &&
        (rc = log_columns(t, err)) == MB_OK && (rc = log_epochs(t, err)) == MB_OK &&
        (rc = meta_number(t, "batch", 1, 1, 1, &runs->batch[i], err)) == MB_OK &&
        (rc = meta_number(t, "seed", 0, 0, 1, &runs->seed[i], err)) == MB_OK &&
        (rc = meta_number(t, "lr", 0, 1, 0, &runs->lr[i], err)) == MB_OK &&
        (rc = meta_number(t, "learners", 0, 1, 1, &runs->procs[i], err)) == MB_OK &&
        (rc = meta_number(t, "target_loss", 0, 1, 0, &runs->target[i], err)) == MB_OK &&
        (rc = meta_number(t, "threads", 0, 1, 1, &runs->threads[i], err)) == MB_OK &&
        (rc = meta_crossing(t, err)) == MB_OK && (rc = meta_algo(t, err)) == MB_OK &&
        (rc = log_summary(t, err)) == MB_OK &&
        (rc = crossing(t, thr, n_thr, smooth, runs->n_update + i * n_thr,
                       runs->wall + i * n_thr, &runs->t_step[i], &used, first, err)) == MB_OK)
        rc = log_samples(t, runs->batch[i], isnan(runs->procs[i]) ? 1.0 : runs->procs[i], err);
    if (isnan(runs->procs[i]))
        runs->procs[i] = 1.0;
    /* B_simple: a positive number, or "-" (none, as the summary line writes it); anything
     * else is named, not read as "none" (campaign 9, L10) */
    const char *b = mb_table_meta(t, "b_simple");
    runs->b_simple[i] = NAN;
    if (rc == MB_OK && b && strcmp(b, "-") != 0)
        rc = meta_number(t, "b_simple", 0, 1, 0, &runs->b_simple[i], err);
    int div = 0;
    size_t cu;
    if (rc == MB_OK && (rc = mb_table_require_col(t, "update", &cu, err)) == MB_OK)
        rc = log_diverged(t, cu, &div, err);
    runs->diverged[i] = div;
    meta_string(t, "net", runs->net[i], sizeof runs->net[i]);
    meta_string(t, "algo", runs->algo[i], sizeof runs->algo[i]);
    meta_string(t, "optim", runs->optim[i], sizeof runs->optim[i]);
    meta_string(t, "backend", runs->backend[i], sizeof runs->backend[i]);
    for (size_t k = 0; k < MB_FIT_SETTINGS; k++)
        meta_string(t, mb_fit_setting_keys[k], runs->setting[i][k], sizeof runs->setting[i][k]);
    runs->first_loss[i] = first[0], runs->first_update[i] = first[1];
    if (isnan(runs->threads[i]))
        runs->threads[i] = 0.0; /* absent */
    runs->used_train_loss += used;
    return rc;
}

int mb_fit_given_twice(const char *const *paths, const struct stat *st, size_t i,
                        mb_error *err)
{
    for (size_t j = 0; j < i; j++)
        if (st[i].st_ino && st[j].st_dev == st[i].st_dev && st[j].st_ino == st[i].st_ino)
            return mb_error_set(err, MB_EINVAL, "%s: given twice (also as %s)", paths[i],
                                paths[j]);
    return MB_OK;
}

/* The same run given twice would count twice in every median and fit: the same file (by
 * device and inode, whatever its name: mb_fit_given_twice), or two logs of one seed with the
 * same net, algorithm, batch, learners and learning rate (a copy). MB_EINVAL naming both. */
static int same_run(const mb_fit_runs *r, const char *const *paths, const struct stat *st,
                    size_t i, mb_error *err)
{
    if (mb_fit_given_twice(paths, st, i, err) != MB_OK)
        return MB_EINVAL;
    for (size_t j = 0; j < i; j++) {
        if (!isnan(r->seed[i]) && r->seed[i] == r->seed[j] && r->batch[i] == r->batch[j] &&
            r->procs[i] == r->procs[j] && strcmp(r->net[i], r->net[j]) == 0 &&
            strcmp(r->algo[i], r->algo[j]) == 0 &&
            (r->lr[i] == r->lr[j] || (isnan(r->lr[i]) && isnan(r->lr[j]))))
            return mb_error_set(err, MB_EINVAL, "%s: the same run as %s (net '%s', batch %g, "
                                "seed %g): a run counts once", paths[i], paths[j], r->net[i],
                                r->batch[i], r->seed[i]);
    }
    return MB_OK;
}

int mb_fit_runs_read_logs(const char *const *paths, size_t n_paths, const double *thr,
                          size_t n_thr, size_t smooth, mb_fit_runs *runs, mb_error *err)
{
    return mb_fit_runs_read_logs_first(NULL, paths, n_paths, thr, n_thr, smooth, runs, err);
}

static int read_logs(const mb_table *first, const mb_table *const *tabs,
                     const char *const *paths, size_t n_paths, const double *thr, size_t n_thr,
                     size_t smooth, mb_fit_runs *runs, mb_error *err);

int mb_fit_runs_read_logs_first(const mb_table *first, const char *const *paths, size_t n_paths,
                                const double *thr, size_t n_thr, size_t smooth,
                                mb_fit_runs *runs, mb_error *err)
{
    return read_logs(first, NULL, paths, n_paths, thr, n_thr, smooth, runs, err);
}

int mb_fit_runs_read_tables(const mb_table *const *tabs, const char *const *paths,
                            size_t n_paths, const double *thr, size_t n_thr, size_t smooth,
                            mb_fit_runs *runs, mb_error *err)
{
    return read_logs(NULL, tabs, paths, n_paths, thr, n_thr, smooth, runs, err);
}

size_t mb_fit_runs_major_net(const mb_fit_runs *r, size_t *odd)
{
    size_t major = 0, most = 0;
    for (size_t i = 0; i < r->n; i++) {
        size_t c = 0;
        for (size_t j = 0; j < r->n; j++)
            c += strcmp(r->net[i], r->net[j]) == 0;
        if (c > most)
            most = c, major = i;
    }
    *odd = SIZE_MAX;
    for (size_t i = 0; i < r->n && *odd == SIZE_MAX; i++)
        if (strcmp(r->net[i], r->net[major]) != 0)
            *odd = i;
    return major;
}

/* paths[i]'s table: tabs[i], or `first` for i = 0, else read here (and freed). */
static int read_logs(const mb_table *first, const mb_table *const *tabs,
                     const char *const *paths, size_t n_paths, const double *thr, size_t n_thr,
                     size_t smooth, mb_fit_runs *runs, mb_error *err)
{
    if (n_thr == 0 || smooth == 0)
        return mb_error_set(err, MB_EINVAL, "no threshold, or a zero smoothing window");
    if (runs_alloc(runs, n_paths, n_thr) != MB_OK)
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    struct stat *st = calloc(n_paths ? n_paths : 1, sizeof *st);
    if (!st) {
        mb_fit_runs_free(runs);
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    }
    memcpy(runs->thresholds, thr, n_thr * sizeof *thr);
    runs->from_logs = 1;
    int rc = MB_OK;
    for (size_t i = 0; i < n_paths && rc == MB_OK; i++) {
        mb_table *t = NULL;
        const mb_table *given = tabs ? tabs[i] : i == 0 ? first : NULL;
        if (stat(paths[i], &st[i]) != 0)
            memset(&st[i], 0, sizeof st[i]);
        if (!given)
            rc = mb_table_read(paths[i], &t, err);
        if (rc == MB_OK)
            rc = read_one_log(given ? given : t, runs, i, thr, n_thr, smooth, err);
        mb_table_free(t);
        if (rc == MB_OK)
            rc = same_run(runs, paths, st, i, err);
        if (rc == MB_OK)
            runs->n++;
    }
    /* every fit and check of runs is of one network (campaign 9, L11: nupdate fitted one law
     * over two nets' runs) */
    size_t odd, major = rc == MB_OK ? mb_fit_runs_major_net(runs, &odd) : 0;
    if (rc == MB_OK && odd != SIZE_MAX)
        rc = mb_error_set(err, MB_EINVAL, "%s: trains net '%s', the other logs '%s': give one "
                          "network's runs", paths[odd], runs->net[odd], runs->net[major]);
    free(st);
    if (rc != MB_OK)
        mb_fit_runs_free(runs);
    return rc;
}

/* Run i moves to slot k (k <= i) of every per-run array: the keep filters compact in place. */
static void move_run(mb_fit_runs *r, size_t k, size_t i)
{
    for (size_t t = 0; t < r->n_thr; t++) {
        r->n_update[k * r->n_thr + t] = r->n_update[i * r->n_thr + t];
        r->wall[k * r->n_thr + t] = r->wall[i * r->n_thr + t];
    }
    r->batch[k] = r->batch[i], r->seed[k] = r->seed[i], r->lr[k] = r->lr[i];
    r->procs[k] = r->procs[i], r->diverged[k] = r->diverged[i], r->t_step[k] = r->t_step[i];
    r->target[k] = r->target[i];
    r->b_simple[k] = r->b_simple[i];
    memmove(r->net[k], r->net[i], sizeof r->net[k]);
    memmove(r->algo[k], r->algo[i], sizeof r->algo[k]);
    memmove(r->optim[k], r->optim[i], sizeof r->optim[k]);
    memmove(r->backend[k], r->backend[i], sizeof r->backend[k]);
    r->threads[k] = r->threads[i];
    if (r->file && r->first_loss && r->first_update && r->setting) { /* runs_alloc's */
        r->file[k] = r->file[i];
        r->first_loss[k] = r->first_loss[i], r->first_update[k] = r->first_update[i];
        memmove(r->setting[k], r->setting[i], sizeof r->setting[k]);
    }
}

/* Adds `item` to the comma list `seen` (for the message naming what the logs hold) once. */
static void note_seen(char *seen, size_t n, const char *item)
{
    if (strstr(seen, item) || strlen(seen) + strlen(item) + 2 >= n)
        return;
    if (*seen)
        strcat(seen, ", ");
    strcat(seen, item);
}

int mb_fit_runs_keep_lr(mb_fit_runs *r, double lr, mb_error *err)
{
    size_t k = 0;
    char seen[160] = "";
    for (size_t i = 0; i < r->n; i++) {
        if (!(fabs(r->lr[i] - lr) <= 1e-9 * lr)) {
            char one[32];
            snprintf(one, sizeof one, "%g", r->lr[i]);
            note_seen(seen, sizeof seen, one);
            continue;
        }
        move_run(r, k++, i);
    }
    r->n = k;
    if (k == 0)
        return mb_error_set(err, MB_ENODATA, "--lr %g: no run was trained at that rate (the "
                                             "logs have lr %s)", lr, *seen ? seen : "unknown");
    return MB_OK;
}

size_t mb_fit_runs_keep_crossed(mb_fit_runs *r, char *left, size_t size)
{
    if (size)
        left[0] = '\0';
    char *keep = calloc(r->n ? r->n : 1, 1);
    if (!keep)
        return 0;
    for (size_t i = 0; i < r->n; i++) {
        size_t crossed = 0;
        for (size_t t = 0; t < r->n_thr; t++)
            crossed += !isnan(r->n_update[i * r->n_thr + t]);
        keep[i] = crossed == r->n_thr;
    }
    for (size_t i = 0; i < r->n; i++) { /* an M where most runs did not cross keeps none */
        size_t at = 0, ok = 0;
        for (size_t j = 0; j < r->n; j++)
            if (r->batch[j] == r->batch[i])
                at++, ok += keep[j];
        if (2 * ok <= at && keep[i]) {
            for (size_t j = 0; j < r->n; j++)
                if (r->batch[j] == r->batch[i])
                    keep[j] = 2; /* 2: dropped with its M */
        }
    }
    size_t k = 0, dropped = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (keep[i] == 1) {
            move_run(r, k++, i);
            continue;
        }
        size_t len = size ? strlen(left) : 0;
        if (len + 1 < size)
            snprintf(left + len, size - len, "%sM=%g seed %g", dropped ? ", " : "", r->batch[i],
                     r->seed[i]);
        dropped++;
    }
    r->n = k;
    free(keep);
    return dropped;
}

int mb_fit_runs_keep_group(mb_fit_runs *r, const char *algo, double procs, mb_error *err)
{
    size_t k = 0;
    char seen[200] = "";
    for (size_t i = 0; i < r->n; i++) {
        if ((algo && strcmp(r->algo[i], algo) != 0) || (!isnan(procs) && r->procs[i] != procs)) {
            char one[64];
            snprintf(one, sizeof one, "%s P=%g", r->algo[i], r->procs[i]);
            note_seen(seen, sizeof seen, one);
            continue;
        }
        move_run(r, k++, i);
    }
    r->n = k;
    /* only the flags given are named: an unset --procs is NAN, never printed (issue #25, G5) */
    char asked[128] = "";
    if (algo)
        snprintf(asked, sizeof asked, "--algo %s", algo);
    if (!isnan(procs))
        snprintf(asked + strlen(asked), sizeof asked - strlen(asked), "%s--procs %g",
                 algo ? " " : "", procs);
    if (k == 0)
        return mb_error_set(err, MB_ENODATA, "%s: no run of that %s (the logs have %s)", asked,
                            algo && !isnan(procs) ? "algorithm and learner count"
                            : algo ? "algorithm" : "learner count", *seen ? seen : "none");
    return MB_OK;
}

const char *const mb_fit_setting_keys[MB_FIT_SETTINGS] = {
    "data", "params", "momentum", "weight_decay", "lr_step", "lr_gamma", "eval_frac",
    "data_seed", "optim", "tau", "eamsgd_delta", "sma_momentum", "overlap", "gradient",
    "n_push", "n_fetch"};

static long setting_index(const char *key)
{
    for (size_t k = 0; k < MB_FIT_SETTINGS; k++)
        if (strcmp(mb_fit_setting_keys[k], key) == 0)
            return (long)k;
    return -1;
}

const char *mb_fit_runs_setting(const mb_fit_runs *r, size_t i, const char *key)
{
    long k = setting_index(key);
    return k >= 0 && r->setting && i < r->n ? r->setting[i][k] : "";
}

int mb_fit_runs_same_settings(const mb_fit_runs *r, const char *const *paths, const char *only,
                              mb_error *err)
{
    for (size_t k = 0; r->setting && k < MB_FIT_SETTINGS; k++) {
        if (only && strcmp(only, mb_fit_setting_keys[k]) != 0)
            continue;
        size_t first = SIZE_MAX; /* the first run that states it */
        for (size_t i = 0; i < r->n; i++) {
            const char *v = r->setting[i][k];
            if (!*v)
                continue;
            if (first == SIZE_MAX) {
                first = i;
                continue;
            }
            if (!same_value(v, r->setting[first][k]))
                return mb_error_set(err, MB_EINVAL, "%s: metadata '%s': '%s', but %s's is '%s': "
                                    "%s", paths[r->file ? r->file[i] : i],
                                    mb_fit_setting_keys[k], v,
                                    paths[r->file ? r->file[first] : first],
                                    r->setting[first][k],
                                    only ? "the runs must agree on it"
                                         : "runs fitted together must be trained alike (only "
                                           "batch and seed may differ)");
        }
    }
    return MB_OK;
}

int mb_fit_runs_start_above(const mb_fit_runs *r, const char *const *paths, mb_error *err)
{
    for (size_t l = 0; l < r->n_thr; l++)
        for (size_t i = 0; i < r->n; i++)
            if (r->first_loss && r->file && r->first_loss[i] <= r->thresholds[l])
                return mb_error_set(err, MB_EINVAL, "level %g: %s was already under it at its "
                                    "first evaluation (loss %g at update %g): it crossed the "
                                    "level at no known update before; give levels below every "
                                    "run's first evaluation (--levels)", r->thresholds[l],
                                    paths[r->file[i]], r->first_loss[i], r->first_update[i]);
    return MB_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int mb_fit_runs_read_points(const char *path, mb_fit_runs *runs, mb_error *err)
{
    mb_table *t;
    memset(runs, 0, sizeof *runs);
    int rc = mb_table_read(path, &t, err);
    if (rc != MB_OK)
        return rc;
    rc = mb_fit_runs_points_table(t, runs, err);
    mb_table_free(t);
    return rc;
}

int mb_fit_runs_points_table(const mb_table *t, mb_fit_runs *runs, mb_error *err)
{
    memset(runs, 0, sizeof *runs);
    const char *path = mb_table_path(t);
    int rc = MB_OK;
    size_t cb, cn;
    long cs = mb_table_col(t, "seed");
    if ((rc = mb_format_check_table(t, MB_FORMAT_POINTS, err)) != MB_OK ||
        (rc = mb_table_require_col(t, "batch", &cb, err)) != MB_OK ||
        (rc = mb_table_require_col(t, "n_update", &cn, err)) != MB_OK)
        return rc;
    size_t n = mb_table_rows(t);
    if (n == 0)
        return mb_error_set(err, MB_EFORMAT, "%s: no rows after the header", path);
    if (runs_alloc(runs, n, 1) != MB_OK)
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    runs->thresholds[0] = NAN;
    for (size_t r = 0; r < n && rc == MB_OK; r++) {
        double b, v, s = NAN;
        /* batch and seed whole as written (campaign 10's M7: 8.0000000000000001 is not 8), in
         * digits as on a command line (campaign 23's R14: '1e1' was read as 10) */
        if ((rc = mb_table_double_in(t, r, cb, 1, MB_DATA_RANGE_MAX, MB_TABLE_DIGITS, &b,
                                     err)) != MB_OK ||
            (rc = mb_table_double(t, r, cn, &v, err)) != MB_OK ||
            (cs >= 0 && (rc = mb_table_double_in(t, r, (size_t)cs, 0, MB_DATA_RANGE_MAX,
                                                 MB_TABLE_DIGITS, &s, err)) != MB_OK))
            break;
        if (b != floor(b) || (cs >= 0 && (s != floor(s) || s < 0)))
            rc = mb_error_set(err, MB_EFORMAT, "%s:%ld: field '%s': %s is not a whole number",
                              path, mb_table_line(t, r), b != floor(b) ? "batch" : "seed",
                              mb_table_cell(t, r, b != floor(b) ? cb : (size_t)cs));
        else if (b <= 0 || v <= 0)
            rc = mb_error_set(err, MB_EFORMAT, "%s:%ld: field '%s': %g must be > 0", path,
                              mb_table_line(t, r), b <= 0 ? "batch" : "n_update",
                              b <= 0 ? b : v);
        else if (v < 1) /* campaign 23's R14: 0.25 and 4.9e-324 updates were fitted */
            rc = mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'n_update': %s is below 1: a run "
                              "takes at least one update to reach its target", path,
                              mb_table_line(t, r), mb_table_cell(t, r, cn));
        else if (mb_data_past_2_53(mb_table_cell(t, r, cb), b) ||
                 mb_data_past_2_53(mb_table_cell(t, r, cn), v))
            /* counts of samples and updates; past 2^53 the fit's sums lose every digit (1e308
             * "fitted" to zeros), and 2^53 + 1 is read as 2^53 */
            rc = mb_error_set(err, MB_EFORMAT, "%s:%ld: field '%s': %s is past 2^53", path,
                              mb_table_line(t, r),
                              mb_data_past_2_53(mb_table_cell(t, r, cb), b) ? "batch" : "n_update",
                              mb_data_past_2_53(mb_table_cell(t, r, cb), b)
                                  ? mb_table_cell(t, r, cb) : mb_table_cell(t, r, cn));
        for (size_t q = 0; rc == MB_OK && cs >= 0 && q < r; q++) /* one run, counted twice */
            if (runs->batch[q] == b && runs->seed[q] == s)
                rc = mb_error_set(err, MB_EFORMAT, "%s:%ld: batch %g, seed %g given twice (line "
                                  "%ld too)", path, mb_table_line(t, r), b, s,
                                  mb_table_line(t, q));
        runs->batch[r] = b, runs->n_update[r] = v, runs->seed[r] = s;
        runs->wall[r] = runs->lr[r] = runs->t_step[r] = runs->target[r] = NAN;
        runs->procs[r] = 1.0;
        runs->n = r + 1;
    }
    if (rc != MB_OK)
        mb_fit_runs_free(runs);
    return rc;
}

const char *mb_fit_weighting_name(mb_fit_weighting w)
{
    return w == MB_FIT_W_NONE    ? "none"
           : w == MB_FIT_W_SEEDS ? "seeds"
           : w == MB_FIT_W_POOLED ? "pooled"
                                 : "relative";
}

int mb_fit_weighting_parse(const char *s, mb_fit_weighting *w)
{
    if (strcmp(s, "none") == 0) *w = MB_FIT_W_NONE;
    else if (strcmp(s, "relative") == 0) *w = MB_FIT_W_RELATIVE;
    else if (strcmp(s, "seeds") == 0) *w = MB_FIT_W_SEEDS;
    else if (strcmp(s, "pooled") == 0) *w = MB_FIT_W_POOLED;
    else return MB_EINVAL;
    return MB_OK;
}

void mb_fit_nupdate_options_init(mb_fit_nupdate_options *o)
{
    o->weights = MB_FIT_W_RELATIVE;
    o->bootstrap = 0;
    o->seed = 1;
    o->choose = MB_FIT_CHOOSE_SHIFTED;
}

int mb_fit_choice_parse(const char *s, mb_fit_choice *out)
{
    if (strcmp(s, "inverse") == 0)
        *out = MB_FIT_CHOOSE_INVERSE;
    else if (strcmp(s, "shifted") == 0)
        *out = MB_FIT_CHOOSE_SHIFTED;
    else if (strcmp(s, "aic") == 0)
        *out = MB_FIT_CHOOSE_AIC;
    else
        return MB_EINVAL;
    return MB_OK;
}

const char *mb_fit_choice_name(mb_fit_choice c)
{
    return c == MB_FIT_CHOOSE_AIC ? "aic" : c == MB_FIT_CHOOSE_SHIFTED ? "shifted" : "inverse";
}

/* The inverse law over AIC's power law (MB_FIT_CHOOSE_INVERSE), when it is usable. */
static void choose_inverse(mb_fit_nupdate *out)
{
    const mb_fit_result *iv = &out->inverse;
    if (strcmp(out->best, "power-law") != 0 || iv->status != MB_OK || !(iv->p[0] > 0))
        return;
    out->best = "inverse-law";
    snprintf(out->why, sizeof out->why,
             "the inverse law: AIC prefers the power law (%.4g vs %.4g), but the inverse laws "
             "predict held-out runs as well or better (docs/results.md)",
             out->power.aic, iv->aic);
}

/* Whether the shifted law fitted, with M_0 > 0, and its AIC is lower than `aic` by more than 2
 * (Burnham & Anderson's threshold for a real difference). */
static int shifted_beats(const mb_fit_nupdate *out, double aic)
{
    const mb_fit_result *sh = &out->shifted;
    /* an exact fit (chi2 = 0) has AIC -inf: it beats any law that is not exact */
    return out->have_shifted && sh->status == MB_OK && !isnan(sh->aic) && sh->aic < INFINITY &&
           isfinite(aic) && sh->p[2] > 0 && sh->p[0] > 0 && aic - sh->aic > 2;
}

/* Which law `best` names, by the rule `c` (mb_fit_choice), after fit_other_laws has set the
 * power law's AIC verdict: INVERSE takes the inverse law over it; SHIFTED too, then the shifted
 * law where it beats the inverse law; AIC the shifted law where it beats the law chosen so far. */
static void choose_law(mb_fit_nupdate *out, mb_fit_choice c)
{
    if (c != MB_FIT_CHOOSE_AIC)
        choose_inverse(out);
    if (c == MB_FIT_CHOOSE_INVERSE)
        return;
    const mb_fit_result *cur = strcmp(out->best, "power-law") == 0 ? &out->power : &out->inverse;
    if (!shifted_beats(out, cur->aic))
        return;
    const char *other = cur == &out->power ? "power law" : "inverse law";
    if (isfinite(out->shifted.aic))
        snprintf(out->why, sizeof out->why,
                 "the shifted inverse law (M_0 = %.3g): N_update rises faster than 1 / M toward "
                 "the small M; AIC %.4g vs the %s's %.4g, lower by %.3g > 2",
                 out->shifted.p[2], out->shifted.aic, other, cur->aic,
                 cur->aic - out->shifted.aic);
    else
        snprintf(out->why, sizeof out->why,
                 "the shifted inverse law (M_0 = %.3g): it fits the runs exactly (chi2 = 0), the "
                 "%s does not (AIC %.4g)", out->shifted.p[2], other, cur->aic);
    out->best = "shifted-law";
}

void mb_fit_nupdate_free(mb_fit_nupdate *f)
{
    if (!f)
        return;
    free(f->groups);
    free(f->boot_best);
    f->boot_best = NULL;
    free(f->boot_seed);
    f->boot_seed = NULL;
    mb_fit_result_free(&f->inverse);
    mb_fit_result_free(&f->power);
    mb_fit_result_free(&f->shifted);
    mb_fit_result_free(&f->mccandlish);
    f->groups = NULL;
}

/* ---- the three curves ------------------------------------------------------------------------- */

static const char *const inv_names[] = {"n_inf", "alpha"};
static const char *const pow_names[] = {"n_inf", "a", "b"};
static const char *const shf_names[] = {"n_inf", "alpha", "m_0"};
static const char *const mcc_names[] = {"s_min", "b_noise"};

static int inv_f(const double *p, size_t i, const void *data, double *y, double *g)
{
    double m = ((const double *)data)[i];
    g[0] = 1.0;
    g[1] = 1.0 / m;
    *y = p[0] + p[1] / m;
    return MB_OK;
}

static int pow_f(const double *p, size_t i, const void *data, double *y, double *g)
{
    double m = ((const double *)data)[i], mb = pow(m, -p[2]);
    g[0] = 1.0;
    g[1] = mb;
    g[2] = -p[1] * mb * log(m);
    *y = p[0] + p[1] * mb;
    return isfinite(*y) ? MB_OK : MB_EDOM;
}

static int shf_f(const double *p, size_t i, const void *data, double *y, double *g)
{
    double m = ((const double *)data)[i], x = m - p[2];
    if (!(x > 0))
        return MB_EDOM; /* the pole at or above a batch size that reached the target */
    g[0] = 1.0;
    g[1] = 1.0 / x;
    g[2] = p[1] / (x * x);
    *y = p[0] + p[1] / x;
    return MB_OK;
}

static int mcc_f(const double *p, size_t i, const void *data, double *y, double *g)
{
    double m = ((const double *)data)[i];
    g[0] = 1.0 + p[1] / m;
    g[1] = p[0] / m;
    *y = p[0] * (1.0 + p[1] / m);
    return MB_OK;
}

/* Fits the inverse law to (m, y, sigma), starting from the exact weighted linear solution. */
static int fit_inverse(size_t n, const double *m, const double *y, const double *sigma,
                       mb_fit_result *res, mb_error *err)
{
    double *X = malloc(2 * n * sizeof *X), b[2];
    if (!X)
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        X[2 * i] = 1.0, X[2 * i + 1] = 1.0 / m[i];
    int rc = mb_fit_linear(n, 2, X, y, sigma, b, NULL, err);
    free(X);
    if (rc != MB_OK)
        return rc;
    mb_fit_model mod = {"inverse-law", 2, inv_names, inv_f, m};
    return mb_fit_nlinear(&mod, n, y, sigma, b, NULL, res, err);
}

/* Fits the shifted law, starting from the best of the exact weighted linear solutions on a grid
 * of M_0 in [0, min M) (for a fixed M_0 the law is linear in N_inf and alpha). */
static int fit_shifted(size_t n, const double *m, const double *y, const double *sigma,
                       mb_fit_result *res, mb_error *err)
{
    enum { GRID = 48 };
    double *X = malloc(2 * n * sizeof *X), lo = m[0], p0[3] = {0}, best = INFINITY;
    if (!X)
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    for (size_t i = 1; i < n; i++)
        lo = fmin(lo, m[i]);
    for (int k = 0; k < GRID; k++) {
        double m0 = lo * (double)k / GRID, b[2], chi2;
        mb_error e2 = {0};
        for (size_t i = 0; i < n; i++)
            X[2 * i] = 1.0, X[2 * i + 1] = 1.0 / (m[i] - m0);
        if (mb_fit_linear(n, 2, X, y, sigma, b, &chi2, &e2) == MB_OK && b[1] > 0 && chi2 < best)
            best = chi2, p0[0] = b[0], p0[1] = b[1], p0[2] = m0;
    }
    free(X);
    if (!isfinite(best))
        return mb_error_set(err, MB_ESOLVER, "shifted law: no starting point with alpha > 0");
    mb_fit_model mod = {"shifted-law", 3, shf_names, shf_f, m};
    return mb_fit_nlinear(&mod, n, y, sigma, p0, NULL, res, err);
}

/* The per-M points of threshold k: groups with at least one run that reached it. */
/* Prior degrees of freedom of the pooled relative spread (--weights pooled): a group's own
 * spread from n runs (n - 1 degrees of freedom) is shrunk toward the spread all groups share. */
#define POOL_PRIOR_DF 4.0

/* The standard error of group G's mean with its relative spread (sd / mean) shrunk toward the
 * pooled relative spread of every group of `out` (empirical Bayes: the noise of N_update is
 * roughly the same fraction at every M, and three runs estimate it poorly). */
static double pooled_se(const mb_fit_nupdate *out, const mb_fit_group *G)
{
    double ss = 0, df = 0;
    for (size_t g = 0; g < out->n_groups; g++) {
        const mb_fit_group *H = &out->groups[g];
        if (H->reached >= 2 && H->mean > 0 && isfinite(H->sd)) {
            ss += (double)(H->reached - 1) * (H->sd / H->mean) * (H->sd / H->mean);
            df += (double)(H->reached - 1);
        }
    }
    /* no spread anywhere (one run an M, or runs that agree to the update): relative weights */
    const double pool = df > 0 && ss > 0 ? ss / df : 1.0;
    const double own = G->reached >= 2 && isfinite(G->sd) ? (G->sd / G->mean) * (G->sd / G->mean)
                                                           : 0.0;
    const double n1 = G->reached >= 2 ? (double)(G->reached - 1) : 0.0;
    const double cv2 = (n1 * own + POOL_PRIOR_DF * pool) / (n1 + POOL_PRIOR_DF);
    return G->mean * sqrt(cv2 / (double)G->reached);
}

static int group_runs(const mb_fit_runs *runs, size_t k, mb_fit_nupdate *out, mb_error *err)
{
    size_t *idx = malloc((runs->n ? runs->n : 1) * sizeof *idx);
    out->groups = calloc(runs->n ? runs->n : 1, sizeof *out->groups);
    if (!idx || !out->groups) {
        free(idx);
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    }
    gsl_sort_index(idx, runs->batch, 1, runs->n);
    out->runs = runs->n;
    for (size_t a = 0; a < runs->n;) {
        size_t b = a;
        mb_fit_group g = {.batch = runs->batch[idx[a]]};
        double s = 0, s2 = 0;
        for (; b < runs->n && runs->batch[idx[b]] == g.batch; b++) {
            double v = runs->n_update[idx[b] * runs->n_thr + k];
            g.runs++;
            /* each run counts once: a run that reached this threshold before it diverged (a
             * higher level of --extrapolate's) counts as reached */
            g.diverged += runs->diverged && runs->diverged[idx[b]] != 0 && isnan(v);
            if (!isnan(v))
                g.reached++, s += v;
        }
        g.mean = g.reached ? s / (double)g.reached : NAN;
        for (size_t c = a; c < b; c++) {
            double v = runs->n_update[idx[c] * runs->n_thr + k];
            if (!isnan(v))
                s2 += (v - g.mean) * (v - g.mean);
        }
        g.sd = g.reached > 1 ? sqrt(s2 / (double)(g.reached - 1)) : NAN;
        g.se = g.sd / sqrt((double)g.reached);
        out->unreached += g.runs - g.reached;
        out->groups[out->n_groups++] = g;
        a = b;
    }
    free(idx);
    return MB_OK;
}

/* What every resample refits: the law mbopt optimises, from the full fit's parameters. */
typedef struct refit {
    int power, shifted;       /* the best law; neither: the inverse law */
    mb_fit_model other;       /* the power or shifted law's model */
    const double *p_full;     /* its full fit's parameters, the start */
    const double *m;          /* the np group M */
    size_t np;
    mb_fit_weighting weights;
    const double *sig;        /* the groups' observed standard errors (NULL: none) */
} refit;

/* Fits the law to one resample's group means y: the inverse law's n_inf and alpha into inv
 * (returns 1 when it fitted), and the best law's [n_inf, a, b] appended to q (*n_q) when it
 * fitted with n_inf > 0 (readers refuse n_inf <= 0). s: scratch for np weights. */
static int refit_one(const refit *rf, const double *y, double *s, double inv[2], double *q,
                     size_t *n_q)
{
    for (size_t g = 0; g < rf->np; g++) /* relative weights follow the resampled mean; seeds
                                           and pooled keep the observed standard errors */
        s[g] = rf->weights == MB_FIT_W_RELATIVE ? y[g] : rf->sig ? rf->sig[g] : 1.0;
    const double *sb = rf->weights == MB_FIT_W_NONE ? NULL : s;
    mb_fit_result r;
    mb_error e2 = {0};
    int ok = fit_inverse(rf->np, rf->m, y, sb, &r, &e2) == MB_OK && r.status == MB_OK;
    if (ok) {
        inv[0] = r.p[0], inv[1] = r.p[1];
        /* a resample's law outside the law's domain (N_inf <= 0, alpha < 0: N_update falling
         * as M falls) is no law: left out, as mbopt's reader would refuse it (campaign 18's M1:
         * 16 of 100 noisy resamples had alpha < 0, and make run's check stage stopped) */
        if (!rf->power && !rf->shifted && r.p[0] > 0 && r.p[1] >= 0) {
            double *x = q + 3 * (*n_q)++;
            x[0] = r.p[0], x[1] = r.p[1], x[2] = 1.0;
        }
    }
    mb_fit_result_free(&r);
    if (rf->power || rf->shifted) { /* [n_inf, a, b] or [n_inf, alpha, m_0] */
        mb_fit_options po;
        mb_fit_options_init(&po);
        po.geodesic = rf->power;
        if (mb_fit_nlinear(&rf->other, rf->np, y, sb, rf->p_full, &po, &r, &e2) == MB_OK &&
            r.status == MB_OK && r.p[0] > 0 && r.p[1] >= 0 && (rf->power ? r.p[2] > 0 : r.p[2] >= 0)) {
            double *x = q + 3 * (*n_q)++;
            x[0] = r.p[0], x[1] = r.p[1], x[2] = r.p[2];
        }
        mb_fit_result_free(&r);
    }
    return ok;
}

/* Resamples of whole seeds: draw the n_u seeds with replacement and take, at every M, the
 * runs of the drawn seeds as often as each was drawn (a group none of whose seeds was drawn
 * resamples its own runs). Fills out->boot_seed; none when a seed is unknown or fewer than
 * MB_FIT_BOOT_SEEDS_MIN are distinct. */
static int bootstrap_seeds(const refit *rf, const double *vals, const double *vseed,
                           const size_t *start, gsl_rng *rng, size_t n_boot, double *y,
                           double *s, mb_fit_nupdate *out, mb_error *err)
{
    const size_t nv = start[rf->np];
    double *u = malloc((nv + 1) * sizeof *u);
    size_t *count = malloc((nv + 1) * sizeof *count), *of = malloc((nv + 1) * sizeof *of),
           n_u = 0;
    int rc = MB_OK;
    if (!u || !count || !of) {
        rc = mb_error_set(err, MB_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < nv; i++) { /* the distinct seeds u, and each value's, of[i] */
        if (isnan(vseed[i]))
            goto done; /* a run of unknown seed: no pairing to keep */
        size_t j = 0;
        while (j < n_u && u[j] != vseed[i])
            j++;
        if (j == n_u)
            u[n_u++] = vseed[i];
        of[i] = j;
    }
    if (n_u < MB_FIT_BOOT_SEEDS_MIN)
        goto done;
    out->boot_seed = malloc(3 * n_boot * sizeof *out->boot_seed);
    if (!out->boot_seed) {
        rc = mb_error_set(err, MB_ENOMEM, "out of memory");
        goto done;
    }
    out->boot_seeds = n_u;
    for (size_t b = 0; b < n_boot; b++) {
        memset(count, 0, n_u * sizeof *count);
        for (size_t i = 0; i < n_u; i++)
            count[gsl_rng_uniform_int(rng, n_u)]++;
        for (size_t g = 0; g < rf->np; g++) {
            double sum = 0, w = 0;
            for (size_t i = start[g]; i < start[g + 1]; i++) {
                sum += (double)count[of[i]] * vals[i];
                w += (double)count[of[i]];
            }
            const size_t cnt = start[g + 1] - start[g];
            if (w == 0) /* none of this M's seeds drawn */
                for (size_t j = 0; j < cnt; j++, w++)
                    sum += vals[start[g] + gsl_rng_uniform_int(rng, cnt)];
            y[g] = sum / w;
        }
        double inv[2];
        refit_one(rf, y, s, inv, out->boot_seed, &out->boot_n_seed);
    }
done:
    free(u);
    free(count);
    free(of);
    return rc;
}

static int bootstrap(const mb_fit_runs *runs, size_t k, const mb_fit_nupdate_options *o,
                     const double *m, const double *sig, size_t np, mb_fit_nupdate *out,
                     mb_error *err)
{
    /* Values of each fitted group, contiguous, in group order, and their runs' seeds. */
    size_t nv = 0;
    double *vals = malloc((runs->n + 1) * sizeof *vals), *y = malloc(np * sizeof *y),
           *vseed = malloc((runs->n + 1) * sizeof *vseed), *s = malloc(np * sizeof *s),
           *bn = malloc(o->bootstrap * sizeof *bn), *ba = malloc(o->bootstrap * sizeof *ba);
    size_t *start = malloc((np + 1) * sizeof *start);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    /* the law mbopt optimises, refitted per resample from the full fit's parameters */
    const int power = strcmp(out->best, "power-law") == 0,
              shifted = strcmp(out->best, "shifted-law") == 0;
    const refit rf = {power, shifted,
                      power ? (mb_fit_model){"power-law", 3, pow_names, pow_f, m}
                            : (mb_fit_model){"shifted-law", 3, shf_names, shf_f, m},
                      power ? out->power.p : out->shifted.p, m, np, o->weights, sig};
    out->boot_best = malloc(3 * o->bootstrap * sizeof *out->boot_best);
    int rc = MB_OK;
    if (!vals || !y || !vseed || !s || !bn || !ba || !start || !rng || !out->boot_best) {
        rc = mb_error_set(err, MB_ENOMEM, "out of memory");
        goto done;
    }
    gsl_rng_set(rng, o->seed);
    for (size_t g = 0; g < np; g++) {
        start[g] = nv;
        for (size_t r = 0; r < runs->n; r++) {
            double v = runs->n_update[r * runs->n_thr + k];
            if (runs->batch[r] == m[g] && !isnan(v)) {
                vseed[nv] = runs->seed ? runs->seed[r] : NAN;
                vals[nv++] = v;
            }
        }
    }
    start[np] = nv;
    out->boot_b = o->bootstrap;
    for (size_t b = 0; b < o->bootstrap; b++) {
        for (size_t g = 0; g < np; g++) {
            size_t cnt = start[g + 1] - start[g];
            double sum = 0;
            for (size_t j = 0; j < cnt; j++)
                sum += vals[start[g] + gsl_rng_uniform_int(rng, cnt)];
            y[g] = sum / (double)cnt;
        }
        double inv[2];
        if (refit_one(&rf, y, s, inv, out->boot_best, &out->boot_n_best)) {
            bn[out->boot_ok] = inv[0];
            ba[out->boot_ok++] = inv[1];
        }
    }
    out->boot_lo[0] = out->boot_hi[0] = out->boot_lo[1] = out->boot_hi[1] = NAN;
    if (out->boot_ok >= MB_FIT_BOOT_MIN) { /* fewer: no 95% interval, not [0, 0] */
        gsl_sort(bn, 1, out->boot_ok);
        gsl_sort(ba, 1, out->boot_ok);
        out->boot_lo[0] = gsl_stats_quantile_from_sorted_data(bn, 1, out->boot_ok, 0.025);
        out->boot_hi[0] = gsl_stats_quantile_from_sorted_data(bn, 1, out->boot_ok, 0.975);
        out->boot_lo[1] = gsl_stats_quantile_from_sorted_data(ba, 1, out->boot_ok, 0.025);
        out->boot_hi[1] = gsl_stats_quantile_from_sorted_data(ba, 1, out->boot_ok, 0.975);
    }
    if (start[np] <= np)
        mb_fit_warn(&out->warn, "bootstrap: one run per M, so resampling runs cannot show any "
                                "spread; the bootstrap interval is not informative");
    else /* after the runs' resamples, so that those stay as they were */
        rc = bootstrap_seeds(&rf, vals, vseed, start, rng, o->bootstrap, y, s, out, err);
done:
    free(vals), free(y), free(vseed), free(s), free(bn), free(ba), free(start);
    gsl_rng_free(rng);
    return rc;
}

/* What the runs have in common and the fit reports beside it: their learning rate, algorithm
 * and learner count (one each: N_update(M) holds per rate and per (algo, P)), and McCandlish et
 * al.'s B_simple as the runs measured it (the median over runs). */
static int describe_runs(const mb_fit_runs *runs, mb_fit_nupdate *out, mb_error *err)
{
    out->lr = NAN;
    for (size_t i = 0; runs->lr && i < runs->n; i++) {
        if (isnan(runs->lr[i]))
            continue;
        if (!isnan(out->lr) && runs->lr[i] != out->lr)
            return mb_error_set(err, MB_EINVAL,
                                "the runs were trained with different learning rates (%g and "
                                "%g): the law holds per rate, so fit each rate's runs on their "
                                "own (mbfit nupdate --lr RATE)",
                                out->lr, runs->lr[i]);
        out->lr = runs->lr[i];
    }
    /* N_update(M) is a property of the algorithm and of P as well: one (algo, P) at a time */
    out->algo[0] = '\0';
    out->procs = NAN;
    for (size_t i = 0; runs->algo && runs->procs && i < runs->n; i++) {
        if (i > 0 && (strcmp(runs->algo[i], out->algo) != 0 || runs->procs[i] != out->procs))
            return mb_error_set(err, MB_EINVAL,
                                "the runs are of several algorithms or learner counts (%s P=%g "
                                "and %s P=%g): N_update(M) holds per (algo, P), so fit each on "
                                "its own (mbfit nupdate --algo A --procs P)",
                                out->algo, out->procs, runs->algo[i], runs->procs[i]);
        snprintf(out->algo, sizeof out->algo, "%s", runs->algo[i]);
        out->procs = runs->procs[i];
    }
    /* McCandlish et al.'s B_simple, as the runs measured it: the median over runs */
    out->b_noise = out->b_ratio = NAN;
    out->b_simple = mb_fit_runs_b_simple(runs, &out->b_simple_runs);
    return MB_OK;
}

double mb_fit_runs_b_simple(const mb_fit_runs *runs, size_t *n_used)
{
    *n_used = 0;
    double m = NAN, *bs = runs->b_simple ? malloc((runs->n ? runs->n : 1) * sizeof *bs) : NULL;
    for (size_t i = 0; bs && i < runs->n; i++)
        if (isfinite(runs->b_simple[i]) && runs->b_simple[i] > 0) /* a points file has none */
            bs[(*n_used)++] = runs->b_simple[i];
    if (*n_used) {
        qsort(bs, *n_used, sizeof *bs, cmp_double);
        size_t h = *n_used / 2;
        m = *n_used % 2 ? bs[h] : 0.5 * (bs[h - 1] + bs[h]);
    }
    free(bs);
    return m;
}

/* The converged range: M where most runs reached eps and none diverged, above every M where a
 * run diverged (a smaller M with the same learning rate is noisier still). */
static void converged_range(mb_fit_nupdate *out)
{
    for (size_t g = 0; g < out->n_groups; g++)
        if (out->groups[g].diverged)
            out->diverged_max = out->groups[g].batch;
    for (size_t g = 0; g < out->n_groups; g++) {
        const mb_fit_group *G = &out->groups[g];
        if (G->diverged || 2 * G->reached <= G->runs ||
            (!isnan(out->diverged_max) && G->batch <= out->diverged_max))
            continue;
        if (isnan(out->range_lo))
            out->range_lo = G->batch;
        out->range_hi = G->batch;
    }
}

/* The points the laws are fitted to: per M that some run reached eps, the mean updates (y), the
 * batch size (m) and the weight's sigma (sg), *np of them; warnings for the M left out. */
static int fit_points(mb_fit_nupdate *out, const mb_fit_nupdate_options *o, const char *eps,
                      double *m, double *y, double *sg, size_t *np, mb_error *err)
{
    *np = 0;
    for (size_t g = 0; g < out->n_groups; g++) {
        const mb_fit_group *G = &out->groups[g];
        if (G->diverged)
            mb_fit_warn(&out->warn, "M=%g: %zu of %zu runs diverged; M and every smaller M are "
                                    "outside the converged range",
                        G->batch, G->diverged, G->runs);
        if (G->reached == 0) {
            mb_fit_warn(&out->warn, "M=%g: none of %zu runs reached %s; M left out of the fit",
                        G->batch, G->runs, eps);
            continue;
        }
        if (2 * G->reached <= G->runs) {
            /* censored: the runs that arrived are the fastest of the M, their mean is biased
             * low, and the law's shape at small M (M_0 above all) would follow it */
            mb_fit_warn(&out->warn, "M=%g: only %zu of %zu runs reached %s, so their mean "
                                    "under-counts the M's updates; M left out of the fit (and "
                                    "of the converged range)",
                        G->batch, G->reached, G->runs, eps);
            continue;
        }
        if (G->reached + G->diverged < G->runs)
            mb_fit_warn(&out->warn, "M=%g: %zu of %zu runs never reached %s (left out, not "
                                    "counted at their last update)",
                        G->batch, G->runs - G->reached - G->diverged, G->runs, eps);
        if (o->weights == MB_FIT_W_SEEDS && !(G->reached >= 2 && G->se > 0)) {
            return mb_error_set(err, MB_ENODATA,
                              "--weights seeds: M=%g has %zu run(s) reaching %s and no spread; "
                              "it needs >= 2 differing runs per M (use --weights relative)",
                              G->batch, G->reached, eps);
        }
        if (!(G->mean > 0)) { /* relative weights would divide by it; no law has N = 0 */
            return mb_error_set(err, MB_ENODATA,
                              "M=%g: every run reaching %s did so at update 0 (a threshold at or "
                              "above the starting loss?)", G->batch, eps);
        }
        m[*np] = G->batch;
        y[*np] = G->mean;
        sg[*np] = o->weights == MB_FIT_W_SEEDS  ? G->se
                 : o->weights == MB_FIT_W_POOLED ? pooled_se(out, G)
                                               : G->mean;
        (*np)++;
    }
    return MB_OK;
}

/* Beside the inverse law (out->inverse, fitted): McCandlish's form of the same curve, the power
 * law where there are 4 or more points, and which law mbopt optimises (out->best, out->why). */
static void fit_other_laws(mb_fit_nupdate *out, size_t np, const double *m, const double *y,
                           const double *sig)
{
    const mb_fit_result *iv = &out->inverse;
    /* McCandlish: the same curve in (S_min, B_noise), B_noise = alpha / N_inf. */
    if (iv->p[0] > 0) {
        double p0[2] = {iv->p[0], iv->p[1] / iv->p[0]};
        mb_fit_model mod = {"mccandlish", 2, mcc_names, mcc_f, m};
        mb_error e2 = {0};
        out->have_mccandlish = mb_fit_nlinear(&mod, np, y, sig, p0, NULL, &out->mccandlish,
                                              &e2) == MB_OK;
    } else {
        mb_fit_warn(&out->warn, "McCandlish form skipped: B_noise = alpha / N_inf is undefined "
                                "for N_inf <= 0");
    }
    /* Power law: needs a degree of freedom beyond its three parameters. */
    if (np >= 4) {
        double p0[3] = {iv->p[0], iv->p[1], 1.0};
        mb_fit_model mod = {"power-law", 3, pow_names, pow_f, m};
        mb_fit_options po;
        mb_fit_options_init(&po);
        po.geodesic = 1;
        mb_error e2 = {0};
        out->have_power = mb_fit_nlinear(&mod, np, y, sig, p0, &po, &out->power, &e2) == MB_OK;
        /* an exact fit (chi2 = 0) has no finite AIC: nothing to compare, nothing to print */
        int exact = !isfinite(out->power.aic) || !isfinite(iv->aic);
        if (out->have_power && out->power.status == MB_OK && exact) {
            snprintf(out->why, sizeof out->why,
                     "the inverse law: AIC cannot choose, a law fits the %zu batch sizes exactly "
                     "(chi2 = 0), and the inverse law has fewer parameters and closed forms", np);
        } else if (out->have_power && out->power.status == MB_OK && out->power.aic < iv->aic) {
            out->aic_best = "power-law";
            double d = iv->aic - out->power.aic;
            /* b > 0 falls with M; a < 0 would rise with it, a law mbopt refuses (L16), as it
             * does n_inf <= 0 (campaign 16, S2) */
            if (d > 2 && out->power.p[2] > 0 && out->power.p[1] >= 0 && out->power.p[0] > 0) {
                out->best = "power-law";
                snprintf(out->why, sizeof out->why,
                         "the power law (b = %.3g) fits the %zu batch sizes better than the "
                         "inverse law: AIC %.4g vs %.4g, lower by %.3g > 2",
                         out->power.p[2], np, out->power.aic, iv->aic, d);
            } else if (d > 2) {
                snprintf(out->why, sizeof out->why,
                         "the inverse law: the power law's AIC (%.4g) is lower by %.3g, but its "
                         "fit (n_inf %.3g, a %.3g, b %.3g) is not a law that falls with M to "
                         "n_inf > 0", out->power.aic, d, out->power.p[0], out->power.p[1],
                         out->power.p[2]);
            } else {
                snprintf(out->why, sizeof out->why,
                         "the inverse law: the power law's AIC (%.4g) is lower by only %.3g "
                         "(<= 2, no real preference), and the inverse law has fewer parameters "
                         "and closed forms",
                         out->power.aic, d);
            }
        } else if (out->have_power && out->power.status != MB_OK) {
            mb_fit_warn(&out->warn, "power law: the solver did not converge (%s)",
                        out->power.gsl_reason);
        }
    } else {
        mb_fit_warn(&out->warn, "power law skipped: it needs at least 4 mini-batch sizes, "
                                "got %zu",
                    np);
    }
    if (strcmp(out->best, "inverse-law") == 0 && out->have_power && out->power.status == MB_OK &&
        isfinite(out->power.aic) && isfinite(iv->aic) && !(out->power.aic < iv->aic))
        snprintf(out->why, sizeof out->why,
                 "the inverse law: its AIC (%.4g) is at or below the power law's (%.4g)", iv->aic,
                 out->power.aic);
}

/* The shifted law beside the others, where there are 4 or more points (a degree of freedom
 * beyond its three parameters); it takes AIC's verdict (aic_best) where its AIC is the least. */
static void fit_shifted_law(mb_fit_nupdate *out, size_t np, const double *m, const double *y,
                            const double *sig)
{
    if (np < 4)
        return;
    mb_error e2 = {0};
    out->have_shifted = fit_shifted(np, m, y, sig, &out->shifted, &e2) == MB_OK;
    if (!out->have_shifted) {
        mb_fit_warn(&out->warn, "shifted law: %s", e2.msg);
        return;
    }
    if (out->shifted.status != MB_OK) {
        mb_fit_warn(&out->warn, "shifted law: the solver did not converge (%s)",
                    out->shifted.gsl_reason);
        return;
    }
    if (!(out->shifted.p[2] >= 0) || !(out->shifted.p[1] >= 0)) {
        /* no fit of a law that needs M_0 >= 0 and alpha >= 0: the runs fall no faster than
         * 1 / M, and the inverse law is the shifted law's M_0 = 0 */
        mb_fit_warn(&out->warn, "shifted law: M_0 fitted at %.4g and alpha at %.4g (it needs "
                    "both >= 0): the runs fall no faster than 1 / M; not kept",
                    out->shifted.p[2], out->shifted.p[1]);
        out->have_shifted = 0;
        return;
    }
    const mb_fit_result *cur = strcmp(out->aic_best, "power-law") == 0 ? &out->power
                                                                        : &out->inverse;
    if (isfinite(out->shifted.aic) && isfinite(cur->aic) && out->shifted.aic < cur->aic)
        out->aic_best = "shifted-law";
}

/* Whether the inverse law's alpha is below 0 by rounding only: its part of N at the least M,
 * |alpha| / M, under 1e-9 of the largest mean N (a fit of equal counts gave -7e-14 and was said
 * to grow). Such a fit is flat, not growing; one a rounding above 0 stays a fit (alpha ~ 0: two
 * M that took as many updates, as sgd-sync's runs in tests/test_train_par.c). */
static int flat_in_m(size_t np, const double *m, const double *y, double alpha)
{
    double m_min = INFINITY, y_max = 0;
    for (size_t i = 0; i < np; i++)
        m_min = fmin(m_min, m[i]), y_max = fmax(y_max, fabs(y[i]));
    return alpha < 0 && fabs(alpha) / m_min <= 1e-9 * y_max;
}

int mb_fit_nupdate_run(const mb_fit_runs *runs, size_t k, const mb_fit_nupdate_options *o,
                       mb_fit_nupdate *out, mb_error *err)
{
    memset(out, 0, sizeof *out);
    out->threshold = runs->thresholds[k];
    out->aic_best = "inverse-law";
    char eps[64];
    if (isnan(out->threshold))
        snprintf(eps, sizeof eps, "the points file");
    else
        snprintf(eps, sizeof eps, "--target-loss %g", out->threshold);
    out->range_lo = out->range_hi = out->diverged_max = NAN;
    snprintf(out->why, sizeof out->why, "the inverse law: the only law fitted");
    out->best = "inverse-law";
    int rc = describe_runs(runs, out, err);
    if (rc != MB_OK || (rc = group_runs(runs, k, out, err)) != MB_OK)
        return rc;
    converged_range(out);
    if (out->unreached == out->runs)
        return mb_error_set(err, MB_ENODATA, "%s: none of the %zu runs reached it", eps,
                            out->runs);
    double *m = malloc(out->n_groups * sizeof *m), *y = malloc(out->n_groups * sizeof *y),
           *sg = malloc(out->n_groups * sizeof *sg);
    if (!m || !y || !sg) {
        free(m), free(y), free(sg);
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    }
    size_t np;
    if ((rc = fit_points(out, o, eps, m, y, sg, &np, err)) != MB_OK)
        goto done;
    if (np < 2) {
        char one[64] = "no mini-batch size";
        if (np == 1)
            snprintf(one, sizeof one, "a single mini-batch size (M=%g)", m[0]);
        rc = mb_error_set(err, MB_ENODATA,
                          "%s: most runs reached it at %s; the inverse law needs at least two",
                          eps, one);
        goto done;
    }
    const double *sig = o->weights == MB_FIT_W_NONE ? NULL : sg;
    if ((rc = fit_inverse(np, m, y, sig, &out->inverse, err)) != MB_OK)
        goto done;
    const mb_fit_result *iv = &out->inverse;
    if (flat_in_m(np, m, y, iv->p[1])) { /* alpha 0 to rounding (campaign 21, N16) */
        rc = mb_error_set(err, MB_ENODATA, "%s: N_update is flat in M, not growing (the "
                          "inverse law's alpha fitted at %.6g, below 0 by rounding only): no law "
                          "in which larger batches need fewer updates fits these runs", eps,
                          iv->p[1]);
        goto done;
    }
    if (!(iv->p[1] >= 0)) { /* no law mbopt reads fits: refused, as the shifted law's alpha < 0
                               is not kept (issue #25, L12) */
        rc = mb_error_set(err, MB_ENODATA, "%s: N_update grows with M (the inverse law's alpha "
                          "fitted at %.6g < 0): no law in which larger batches need fewer "
                          "updates fits these runs", eps, iv->p[1]);
        goto done;
    }
    if (iv->p[0] > 0) { /* B_noise = alpha / N_inf beside the runs' B_simple */
        out->b_noise = iv->p[1] / iv->p[0];
        out->b_ratio = out->b_simple / out->b_noise;
    }
    if (iv->status != MB_OK)
        mb_fit_warn(&out->warn, "inverse law: the solver did not converge (%s)", iv->gsl_reason);
    if (np == 2)
        mb_fit_warn(&out->warn, "two mini-batch sizes: the inverse law passes through both, no "
                                "error estimate is possible (measure more M)");
    if (iv->p[0] < 0)
        mb_fit_warn(&out->warn, "N_inf fitted negative (%.4g): reported as found, not clipped "
                                "(Perrone et al. saw this with Adam); mbopt needs N_inf > 0",
                    iv->p[0]);
    fit_other_laws(out, np, m, y, sig);
    fit_shifted_law(out, np, m, y, sig);
    choose_law(out, o->choose);
    if (o->bootstrap > 0)
        rc = bootstrap(runs, k, o, m, sig, np, out, err);
done:
    free(m), free(y), free(sg);
    return rc;
}

/* object[key]: n laws' [n_inf, a, b] from q (n x 3). */
static void add_samples(cJSON *object, const char *key, const double *q, size_t n)
{
    cJSON *sm = cJSON_AddArrayToObject(object, key);
    for (size_t i = 0; sm && i < n; i++) {
        cJSON *x = cJSON_CreateArray();
        for (int j = 0; x && j < 3; j++)
            cJSON_AddItemToArray(x, cJSON_CreateNumber(q[3 * i + j]));
        cJSON_AddItemToArray(sm, x);
    }
}

/* ---- JSON ------------------------------------------------------------------------------------- */

cJSON *mb_fit_nupdate_json(const mb_fit_nupdate *f, const mb_fit_nupdate_options *o,
                           const mb_fit_runs *runs, size_t k)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    mb_fit_json_merge(root, mb_fit_result_json(&f->inverse));
    mb_json_add_number(root, "target_loss", f->threshold);
    cJSON_AddStringToObject(root, "weights", mb_fit_weighting_name(o->weights));
    cJSON_AddStringToObject(root, "choose", mb_fit_choice_name(o->choose));
    mb_json_add_number(root, "runs", (double)f->runs);
    mb_json_add_number(root, "unreached", (double)f->unreached);
    mb_json_add_number(root, "lr", f->lr);
    if (f->algo[0])
        cJSON_AddStringToObject(root, "algo", f->algo);
    mb_json_add_number(root, "procs", f->procs);
    /* the workload the runs trained, where their logs say: mbopt refuses a tfit or run logs of
     * another (campaign 21, N4) */
    const char *net = "", *data = "";
    for (size_t i = 0; runs && i < runs->n; i++) {
        net = *net || !runs->net ? net : runs->net[i];
        data = *data ? data : mb_fit_runs_setting(runs, i, "data");
    }
    if (*net)
        cJSON_AddStringToObject(root, "net", net);
    if (*data)
        cJSON_AddStringToObject(root, "data", data);
    /* the gradient noise scale the runs measured, beside the fit's alpha / N_inf */
    mb_json_add_number(root, "b_simple", f->b_simple);
    mb_json_add_number(root, "b_simple_runs", (double)f->b_simple_runs);
    mb_json_add_number(root, "alpha_over_n_inf", f->b_noise);
    mb_json_add_number(root, "b_simple_ratio", f->b_ratio);
    if (!isnan(f->range_lo)) {
        cJSON *r = cJSON_AddArrayToObject(root, "converged_range");
        if (r) {
            cJSON_AddItemToArray(r, cJSON_CreateNumber(f->range_lo));
            cJSON_AddItemToArray(r, cJSON_CreateNumber(f->range_hi));
        }
    }
    mb_json_add_number(root, "diverged_max_batch", f->diverged_max);
    /* the law mbopt optimises (docs/design.md, "Fits": `model` plus its `params`), and every
     * law fitted */
    const mb_fit_result *bestr = strcmp(f->best, "power-law") == 0     ? &f->power
                                 : strcmp(f->best, "shifted-law") == 0 ? &f->shifted
                                                                        : &f->inverse;
    cJSON *best = cJSON_AddObjectToObject(root, "best");
    if (best) {
        cJSON *bj = mb_fit_result_json(bestr);
        cJSON_AddItemToObject(best, "model", cJSON_CreateString(f->best));
        cJSON_AddItemToObject(best, "params",
                              cJSON_DetachItemFromObjectCaseSensitive(bj, "params"));
        cJSON_AddStringToObject(best, "why", f->why);
        cJSON_Delete(bj);
    }
    cJSON *laws = cJSON_AddObjectToObject(root, "laws");
    if (laws) {
        cJSON_AddItemToObject(laws, "inverse-law", mb_fit_result_json(&f->inverse));
        if (f->have_power && f->power.status == MB_OK)
            cJSON_AddItemToObject(laws, "power-law", mb_fit_result_json(&f->power));
        if (f->have_shifted && f->shifted.status == MB_OK)
            cJSON_AddItemToObject(laws, "shifted-law", mb_fit_result_json(&f->shifted));
    }
    cJSON *pm = cJSON_AddArrayToObject(root, "per_m");
    for (size_t g = 0; pm && g < f->n_groups; g++) {
        const mb_fit_group *G = &f->groups[g];
        cJSON *e = cJSON_CreateObject();
        if (!e)
            break;
        mb_json_add_number(e, "batch", G->batch);
        mb_json_add_number(e, "runs", (double)G->runs);
        mb_json_add_number(e, "reached", (double)G->reached);
        mb_json_add_number(e, "unreached", (double)(G->runs - G->reached - G->diverged));
        mb_json_add_number(e, "diverged", (double)G->diverged);
        mb_json_add_number(e, "mean", G->mean);
        mb_json_add_number(e, "sd", G->sd);
        mb_json_add_number(e, "se", G->se);
        cJSON_AddItemToArray(pm, e);
    }
    /* every run's own count (null where it never reached the threshold), for plots */
    cJSON *pts = runs ? cJSON_AddArrayToObject(root, "points") : NULL;
    for (size_t i = 0; pts && i < runs->n; i++) {
        cJSON *e = cJSON_CreateObject();
        if (!e)
            break;
        mb_json_add_number(e, "batch", runs->batch[i]);
        mb_json_add_number(e, "seed", runs->seed[i]);
        mb_json_add_number(e, "n_update", runs->n_update[i * runs->n_thr + k]);
        cJSON_AddItemToArray(pts, e);
    }
    cJSON *alt = cJSON_AddObjectToObject(root, "alternatives");
    if (alt) {
        if (f->have_power)
            cJSON_AddItemToObject(alt, "power-law", mb_fit_result_json(&f->power));
        if (f->have_shifted)
            cJSON_AddItemToObject(alt, "shifted-law", mb_fit_result_json(&f->shifted));
        if (f->have_mccandlish)
            cJSON_AddItemToObject(alt, "mccandlish", mb_fit_result_json(&f->mccandlish));
        cJSON_AddStringToObject(alt, "aic_best", f->aic_best);
    }
    cJSON_AddStringToObject(root, "note",
                            "params are the inverse law's N = n_inf + alpha / M; `best` is the "
                            "law mbopt optimises (by `choose`: the shifted law n_inf + alpha / "
                            "(M - m_0) only when its AIC is lower by more than 2); "
                            "alternatives.mccandlish is the same curve as s_min = n_inf, "
                            "b_noise = alpha / n_inf");
    if (f->boot_b) {
        cJSON *b = cJSON_AddObjectToObject(root, "bootstrap");
        if (b) {
            mb_json_add_number(b, "resamples", (double)f->boot_b);
            mb_json_add_number(b, "fitted", (double)f->boot_ok);
            mb_json_add_number(b, "seed", (double)o->seed);
            cJSON *ci = cJSON_AddObjectToObject(b, "ci95");
            for (int j = 0; ci && j < 2; j++) {
                cJSON *iv = cJSON_CreateArray();
                if (!iv)
                    break;
                /* [null, null]: too few resamples fitted for an interval */
                cJSON_AddItemToArray(iv, isfinite(f->boot_lo[j]) ? cJSON_CreateNumber(f->boot_lo[j])
                                                                : cJSON_CreateNull());
                cJSON_AddItemToArray(iv, isfinite(f->boot_hi[j]) ? cJSON_CreateNumber(f->boot_hi[j])
                                                                : cJSON_CreateNull());
                cJSON_AddItemToObject(ci, inv_names[j], iv);
            }
            cJSON_AddStringToObject(b, "best_law", f->best);
            /* [n_inf, a, b] each; [n_inf, alpha, m_0] for the shifted law */
            add_samples(b, "best_samples", f->boot_best, f->boot_n_best);
            if (f->boot_seed) { /* the same law, refitted to resamples of whole seeds */
                mb_json_add_number(b, "seeds", (double)f->boot_seeds);
                add_samples(b, "best_samples_by_seed", f->boot_seed, f->boot_n_seed);
            }
        }
    }
    cJSON_AddItemToObject(root, "warnings", mb_fit_warnings_json(&f->warn));
    return root;
}

int mb_fit_runs_alloc(mb_fit_runs *r, size_t n, size_t n_thr)
{
    return runs_alloc(r, n, n_thr);
}
