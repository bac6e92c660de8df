/* runs.c — mbtrain run logs and points files read into mb_fit_runs, what every N_update fit
 * starts from.
 *
 * Run logs: threshold crossing, "no patience": the first logged update whose evaluation loss is
 * at or under eps; a run that never gets there is counted as unreached, never as reaching it at
 * its last update. Each log's metadata, rows and summary line are checked against each other,
 * the same run given twice is refused, and the runs can be kept to one learning rate, one
 * (algorithm, P) or the levels they all crossed. Points files: batch,n_update[,seed].
 * It does not fit (nupdate.c) and does not print.
 */
#include "mb_fit.h"
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
    free(r->device);
    free(r->threads);
    free(r->target);
    free(r->b_simple);
    free(r->load);
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
    r->device = calloc(n ? n : 1, sizeof *r->device);
    r->threads = calloc(n ? n : 1, sizeof *r->threads);
    r->target = calloc(n ? n : 1, sizeof *r->target);
    r->b_simple = calloc(n ? n : 1, sizeof *r->b_simple);
    r->load = calloc(2 * (n ? n : 1), sizeof *r->load);
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
    if (!r->target || !r->b_simple || !r->load || !r->thresholds || !r->batch || !r->seed || !r->n_update || !r->wall || !r->lr ||
        !r->procs || !r->diverged || !r->t_step || !r->net || !r->algo || !r->optim || !r->backend ||
        !r->device || !r->threads) {
        mb_fit_runs_free(r);
        return MB_ENOMEM;
    }
    for (size_t i = 0; i < 2 * n; i++) /* the machine's load: unknown until a log says */
        r->load[i] = NAN;
    return MB_OK;
}

/* A metadata value that must be a finite number > 0 (or any number when positive is 0), and a
 * whole one in [0, 2^53] when `whole` is set (batch, learners, seed, threads), written in
 * digits as the summary's counts are (summary_value): digits alone in a log of mbtrain or the
 * PyTorch front end, which write them so, a ".0" after them taken from another writer's
 * (campaign 33's Q7: '# batch=3.2e1', '# batch=32.0' and '# seed=1.0' were taken in mbtrain's
 * logs). */
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
    const char *kind = mb_format_kind_of_tool(mb_table_meta(t, "tool"));
    const int writer = kind && strcmp(kind, MB_FORMAT_RUNLOG) == 0;
    if (whole && !mb_table_in_digits(s, !writer))
        return mb_error_set(err, MB_EFORMAT, "%s:%ld: metadata '%s': '%s' is not a count written "
                            "in digits%s", mb_table_path(t), mb_table_meta_line(t, key), key, s,
                            writer ? " (as mbtrain and the PyTorch front end write it)" : "");
    return MB_OK;
}

/* An optional count of cores (`# others_cores=`, `# steal_cores=`): a number from 0 to 2^20,
 * NAN when the log has none. */
static int meta_cores(const mb_table *t, const char *key, double *v, mb_error *err)
{
    int rc = meta_number(t, key, 0, 0, 0, v, err);
    if (rc == MB_OK && !isnan(*v) && !(*v >= 0 && *v <= 1048576))
        return mb_error_set(err, MB_EFORMAT, "%s: metadata '%s': '%s' is not a number of cores "
                            "from 0 to 2^20", mb_table_path(t), key, mb_table_meta(t, key));
    return rc;
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
        /* a count in digits, as the metadata's counts are (campaign 38's D5: 1e1 was 10) */
        const int digits = mb_table_in_digits(mb_table_cell(t, r, cu), 1);
        if (u < 0 || u <= prev_u || past || frac || !digits) {
            rc = mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'update': %s is %s",
                              mb_table_path(t), mb_table_line(t, r), mb_table_cell(t, r, cu),
                              u < 0                 ? "negative"
                              : past                ? "past 2^53 updates"
                              : frac                ? "not a whole number"
                              : !digits             ? "not a count written in digits"
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

/* Half a unit in the last place of the number text `s` as written ("0.276": 0.0005, "3e2":
 * 50, "0.276421": 5e-7): how far it may be from the value it was printed from. */
static double half_unit(const char *s)
{
    const char *p = s + strspn(s, "+-");
    size_t d = 0;
    p += strspn(p, "0123456789");
    if (*p == '.')
        d = strspn(p + 1, "0123456789"), p += 1 + d;
    double e = *p == 'e' || *p == 'E' ? strtod(p + 1, NULL) : 0;
    return 0.5 * pow(10.0, e - (double)d);
}

/* A summary that says reached=yes against the rows: its reached_update R is the first row whose
 * eval_loss is at or under the log's own `# target_loss=` T, as the fit counts it. mbtrain and
 * the front end stop at the evaluation that reached T, and their exact crossing (crossing=bisect)
 * logs the eval_loss of the update it found and of every point it evaluated, those above T
 * before it: so a row before R clearly under T (by more than the 7 digits a log writes), or no
 * row at R at or under T, is a log that contradicts itself. Checked where the log has T and an
 * eval_loss column; rows that do not read are passed over (crossing() names them). */
static int summary_reached_update(const mb_table *t, long line, const char *re, const char *ru,
                                  mb_error *err)
{
    const char *tl = mb_table_meta(t, "target_loss"), *first = NULL;
    long cu = mb_table_col(t, "update"), ce = mb_table_col(t, "eval_loss");
    double target, r, u, v;
    if (!re || strcmp(re, "yes") != 0 || !ru || mb_data_parse_double(ru, &r) != MB_OK || !tl ||
        mb_data_parse_double(tl, &target) != MB_OK || !(target > 0) || cu < 0 || ce < 0)
        return MB_OK;
    int early = 0, at = 0;
    for (size_t k = 0; k < mb_table_rows(t); k++) {
        const char *c = mb_table_cell(t, k, (size_t)ce), *cku = mb_table_cell(t, k, (size_t)cu);
        if (!*c || mb_data_parse_double(c, &v) != MB_OK || mb_data_parse_double(cku, &u) != MB_OK)
            continue;
        first = !first && v <= target ? cku : first;
        early |= u < r && v < target * (1 - 1e-6);
        at |= u == r && v <= target * (1 + 1e-6);
    }
    if (!early && at)
        return MB_OK;
    if (first)
        return mb_error_set(err, MB_EFORMAT, "%s:%ld: summary line: field 'reached_update' "
                            "%.64s, but the rows first reach the target at update %.64s: the log "
                            "contradicts itself", mb_table_path(t), line, ru, first);
    return mb_error_set(err, MB_EFORMAT, "%s:%ld: summary line: field 'reached_update' %.64s, "
                        "but no row's eval_loss is at or under the log's target_loss %.64s: the "
                        "log contradicts itself", mb_table_path(t), line, ru, tl);
}

/* The summary's wall_s at least the last row's (the training time up to the last update; the
 * summary's is the run's), and its reached_wall_s at most its wall_s: each within the digits
 * it is written to (mbtrain writes the summary's to the millisecond, the rows' to the
 * microsecond). Rows that do not read are passed over (crossing() names them). */
static int summary_walls(const mb_table *t, long line, const char *ws, const char *rws,
                         mb_error *err)
{
    double w, x;
    if (!ws || mb_data_parse_double(ws, &w) != MB_OK)
        return MB_OK;
    long cw = mb_table_col(t, "wall_s");
    for (size_t k = mb_table_rows(t); cw >= 0 && k-- > 0;) {
        const char *c = mb_table_cell(t, k, (size_t)cw);
        if (!*c || mb_data_parse_double(c, &x) != MB_OK)
            continue;
        if (x - half_unit(c) > w + half_unit(ws))
            return mb_error_set(err, MB_EFORMAT, "%s:%ld: summary line: field 'wall_s' %.64s is "
                                "below the last row's %.64s (line %ld): the log contradicts "
                                "itself", mb_table_path(t), line, ws, c, mb_table_line(t, k));
        break;
    }
    if (rws && mb_data_parse_double(rws, &x) == MB_OK && x - half_unit(rws) > w + half_unit(ws))
        return mb_error_set(err, MB_EFORMAT, "%s:%ld: summary line: field 'reached_wall_s' "
                            "%.64s is past wall_s=%.64s: the log contradicts itself",
                            mb_table_path(t), line, rws, ws);
    return MB_OK;
}

/* The last row (from the end) whose cell in column c reads as a number, SIZE_MAX if none; its
 * value in *v. */
static size_t last_number(const mb_table *t, long c, double *v)
{
    for (size_t k = mb_table_rows(t); c >= 0 && k-- > 0;)
        if (mb_data_parse_double(mb_table_cell(t, k, (size_t)c), v) == MB_OK && isfinite(*v))
            return k;
    return SIZE_MAX;
}

/* Whether the number texts a and b (values x and y) may be one value printed to their digits,
 * rounded either way (mbtrain rounds to the nearest; a writer may round up or cut): within a
 * unit in the last place of each. */
static int same_to_digits(const char *a, double x, const char *b, double y)
{
    return fabs(x - y) <= 2 * (half_unit(a) + half_unit(b)) * (1 + 1e-9);
}

/* The summary's evals, eval_loss, epochs and reached_wall_s against the rows (campaign 35's R5:
 * each contradicted its rows and was read): evals the rows with an eval_loss (one more where the
 * last row has none: the front end's evaluation of a run that ended between evaluations),
 * eval_loss the last of them, epochs at most (last row's pass + 1) x summary samples / its
 * samples (a row's epoch is the pass it is in, counted from 0, an incomplete tail dropped; the
 * summary's, samples / the training set), and reached_wall_s the wall_s of the row at
 * reached_update; each within the digits it is written to (same_to_digits). Checked where the
 * line and the rows have them. */
static int summary_rows(const mb_table *t, long line, const char *const *keys,
                        const char *const *vals, size_t n, mb_error *err)
{
    const char *ev = summary_field(keys, vals, n, "evals"), *el = summary_field(keys, vals, n,
                                                                                "eval_loss");
    const char *ep = summary_field(keys, vals, n, "epochs"), *sa = summary_field(keys, vals, n,
                                                                                 "samples");
    const char *re = summary_field(keys, vals, n, "reached");
    const char *ru = summary_field(keys, vals, n, "reached_update");
    const char *rw = summary_field(keys, vals, n, "reached_wall_s");
    const long ce = mb_table_col(t, "eval_loss"), cu = mb_table_col(t, "update");
    double x, y, e, s;
    size_t rows = 0, k;
    for (size_t r = 0; ce >= 0 && r < mb_table_rows(t); r++)
        rows += *mb_table_cell(t, r, (size_t)ce) != '\0';
    const int tail = ce >= 0 && mb_table_rows(t) > 0 &&
                     *mb_table_cell(t, mb_table_rows(t) - 1, (size_t)ce) == '\0';
    if (ev && ce >= 0 && mb_data_parse_double(ev, &x) == MB_OK &&
        !(x == (double)rows || (tail && x == (double)rows + 1)))
        return mb_error_set(err, MB_EFORMAT, "%s:%ld: summary line: field 'evals' %.64s, but "
                            "%zu rows have an eval_loss: the log contradicts itself",
                            mb_table_path(t), line, ev, rows);
    if (el && mb_data_parse_double(el, &x) == MB_OK && (k = last_number(t, ce, &y)) != SIZE_MAX &&
        !same_to_digits(el, x, mb_table_cell(t, k, (size_t)ce), y))
        return mb_error_set(err, MB_EFORMAT, "%s:%ld: summary line: field 'eval_loss' %.64s, but "
                            "the last row's is %.64s (line %ld): the log contradicts itself",
                            mb_table_path(t), line, el, mb_table_cell(t, k, (size_t)ce),
                            mb_table_line(t, k));
    const long cp = mb_table_col(t, "epoch"), cs = mb_table_col(t, "samples");
    if (ep && sa && mb_data_parse_double(ep, &x) == MB_OK &&
        mb_data_parse_double(sa, &y) == MB_OK && (k = last_number(t, cp, &e)) != SIZE_MAX &&
        cs >= 0 && mb_data_parse_double(mb_table_cell(t, k, (size_t)cs), &s) == MB_OK && s > 0 &&
        x - half_unit(ep) > (e + 1 + half_unit(mb_table_cell(t, k, (size_t)cp))) * y / s *
                                (1 + 1e-9))
        return mb_error_set(err, MB_EFORMAT, "%s:%ld: summary line: field 'epochs' %.64s is more "
                            "passes than the rows hold (the last, line %ld, in pass %.64s at %.64s "
                            "samples, of the summary's %.64s): the log contradicts itself",
                            mb_table_path(t), line, ep, mb_table_line(t, k),
                            mb_table_cell(t, k, (size_t)cp), mb_table_cell(t, k, (size_t)cs), sa);
    const long cw = mb_table_col(t, "wall_s");
    for (size_t r = 0; re && strcmp(re, "yes") == 0 && ru && rw && cu >= 0 && cw >= 0 &&
                       mb_data_parse_double(rw, &x) == MB_OK && r < mb_table_rows(t); r++) {
        const char *c = mb_table_cell(t, r, (size_t)cw);
        if (strcmp(mb_table_cell(t, r, (size_t)cu), ru) != 0 ||
            mb_data_parse_double(c, &y) != MB_OK)
            continue;
        if (!same_to_digits(rw, x, c, y))
            return mb_error_set(err, MB_EFORMAT, "%s:%ld: summary line: field 'reached_wall_s' "
                                "%.64s, but the row at reached_update %.64s has wall_s %.64s (line "
                                "%ld): the log contradicts itself", mb_table_path(t), line, rw,
                                ru, c, mb_table_line(t, r));
        break;
    }
    return MB_OK;
}

/* The summary's reached_update and diverged_update at most its updates (campaign 25's V10: a
 * run that reached at update 9000 of 4000 was read on), and its crossing and times those of
 * the rows (summary_reached_update, summary_walls; campaign 33's Q6: reached_update=200 over
 * rows first at the target at 288, wall_s=0.1 over rows to 0.276 s and reached_wall_s=5.0 past
 * wall_s=0.276 were taken, and make run's time cap reads the summary). Checked where the line
 * has them. */
static int summary_updates(const mb_table *t, long line, const char *const *keys,
                           const char *const *vals, size_t n, mb_error *err)
{
    static const char *const after[] = {"reached_update", "diverged_update"};
    const char *us = summary_field(keys, vals, n, "updates");
    double u, x;
    for (size_t k = 0; us && mb_data_parse_double(us, &u) == MB_OK && k < 2; k++) {
        const char *v = summary_field(keys, vals, n, after[k]);
        if (v && mb_data_parse_double(v, &x) == MB_OK && x > u)
            return mb_error_set(err, MB_EFORMAT, "%s:%ld: summary line: field '%s' %.64s is past "
                                "updates=%.0f: the log contradicts itself", mb_table_path(t),
                                line, after[k], v, u);
    }
    int rc = summary_reached_update(t, line, summary_field(keys, vals, n, "reached"),
                                    summary_field(keys, vals, n, "reached_update"), err);
    return rc != MB_OK ? rc
                       : summary_walls(t, line, summary_field(keys, vals, n, "wall_s"),
                                       summary_field(keys, vals, n, "reached_wall_s"), err);
}

/* mbtrain's summary, when the log has one (summary_at): key=value fields (campaign 22's Q9: a
 * word without '=' and an empty key were passed over), each key in it once, every key its
 * writer always writes (summary_keys), its samples its updates x batch (summary_samples), its
 * crossing, counts and times its rows' (summary_updates, summary_rows), and its net, algo,
 * batch and seed those of the log's own metadata (its seed the run's where the metadata has
 * none: *seed, NAN until then). The fit reads the rows, make run's time cap the summary: a log
 * whose two halves disagree would be one run to one and another to the other (campaigns 16 and
 * 17). MB_EFORMAT naming the file and the field. */
static int log_summary(const mb_table *t, double *seed, mb_error *err)
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
    if (rc == MB_OK)
        rc = summary_rows(t, sum_line, keys, vals, n, err);
    /* a log without `# seed=` has its summary's (campaign 35's R3: a held-out run of an
     * in-sample seed passed as fresh, its seed read as unknown) */
    const char *ss = rc == MB_OK && isnan(*seed) ? summary_field(keys, vals, n, "seed") : NULL;
    if (ss && mb_data_parse_double(ss, seed) != MB_OK)
        *seed = NAN;
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
        (rc = log_summary(t, &runs->seed[i], err)) == MB_OK &&
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
    for (int k = 0; k < 2 && rc == MB_OK; k++) /* the machine's load: cores, >= 0, optional */
        rc = meta_cores(t, k ? "steal_cores" : "others_cores", &runs->load[2 * i + k], err);
    int div = 0;
    size_t cu;
    if (rc == MB_OK && (rc = mb_table_require_col(t, "update", &cu, err)) == MB_OK)
        rc = log_diverged(t, cu, &div, err);
    runs->diverged[i] = div;
    meta_string(t, "net", runs->net[i], sizeof runs->net[i]);
    meta_string(t, "algo", runs->algo[i], sizeof runs->algo[i]);
    meta_string(t, "optim", runs->optim[i], sizeof runs->optim[i]);
    meta_string(t, "backend", runs->backend[i], sizeof runs->backend[i]);
    /* the device's name: mbtrain's `# device=`; the PyTorch front end's `# device=` is cpu or
     * cuda, its name `# device_name=` (a step table's `device` column is the name) */
    meta_string(t, "device_name", runs->device[i], sizeof runs->device[i]);
    if (!runs->device[i][0])
        meta_string(t, "device", runs->device[i], sizeof runs->device[i]);
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
int mb_fit_same_run(const mb_fit_runs *r, const char *const *paths, const struct stat *st,
                    size_t i, mb_error *err)
{
    if (mb_fit_given_twice(paths, st, i, err) != MB_OK)
        return MB_EINVAL;
    for (size_t j = 0; j < i; j++) {
        if (!isnan(r->seed[i]) && r->seed[i] == r->seed[j] && r->batch[i] == r->batch[j] &&
            r->procs[i] == r->procs[j] && strcmp(r->net[i], r->net[j]) == 0 &&
            strcmp(r->algo[i], r->algo[j]) == 0 &&
            (r->lr[i] == r->lr[j] || (isnan(r->lr[i]) && isnan(r->lr[j]))))
            return mb_error_set(err, MB_EINVAL, "%s: the same run as %s (%s%s%sbatch %g, "
                                "seed %g): a run counts once", paths[i], paths[j],
                                r->net[i][0] ? "net '" : "", r->net[i],
                                r->net[i][0] ? "', " : "", r->batch[i], r->seed[i]);
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
            rc = mb_fit_same_run(runs, paths, st, i, err);
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
    r->load[2 * k] = r->load[2 * i], r->load[2 * k + 1] = r->load[2 * i + 1];
    memmove(r->net[k], r->net[i], sizeof r->net[k]);
    memmove(r->algo[k], r->algo[i], sizeof r->algo[k]);
    memmove(r->optim[k], r->optim[i], sizeof r->optim[k]);
    memmove(r->backend[k], r->backend[i], sizeof r->backend[k]);
    memmove(r->device[k], r->device[i], sizeof r->device[k]);
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
            if (isnan(r->lr[i])) /* a log or a Lightning version that names no rate (campaign
                                    30's C5: "the logs have lr nan") */
                snprintf(one, sizeof one, "none");
            else
                mb_data_fmt_exact(one, sizeof one, r->lr[i]);
            note_seen(seen, sizeof seen, one);
            continue;
        }
        move_run(r, k++, i);
    }
    r->n = k;
    char want[32]; /* exact, as the rates seen: 0.0200000001 is not "0.02" (campaign 35's R8) */
    if (k == 0)
        return mb_error_set(err, MB_ENODATA, "--lr %s: no run was trained at that rate (the "
                            "logs have lr %s)", mb_data_fmt_exact(want, sizeof want, lr),
                            *seen ? seen : "unknown");
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
            /* a log without '# algo=' named as such, not as a blank (campaign 44 A, F4) */
            if (*r->algo[i])
                snprintf(one, sizeof one, "%s P=%g", r->algo[i], r->procs[i]);
            else
                snprintf(one, sizeof one, "P=%g with no '# algo='", r->procs[i]);
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
    "n_push", "n_fetch", "backend", "device", "device_name"};

/* Whether `key` is a word of the space-separated `list` (NULL: none). */
static int listed(const char *list, const char *key)
{
    const size_t n = strlen(key);
    for (const char *p = list; p && *p; p += strcspn(p, " "), p += strspn(p, " "))
        if (strncmp(p, key, n) == 0 && (p[n] == ' ' || p[n] == '\0'))
            return 1;
    return 0;
}

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

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The learning rate most of the runs that state one share (the least of equals), NAN if none. */
static double common_lr(const mb_fit_runs *r)
{
    double *v = malloc((r->n ? r->n : 1) * sizeof *v), best = NAN;
    size_t n = 0, run = 0, most = 0;
    for (size_t i = 0; v && r->lr && i < r->n; i++)
        if (!isnan(r->lr[i]))
            v[n++] = r->lr[i];
    if (v)
        qsort(v, n, sizeof *v, cmp_double);
    for (size_t i = 0; v && i < n; i++) {
        run = i > 0 && v[i] == v[i - 1] ? run + 1 : 1;
        if (run > most)
            most = run, best = v[i];
    }
    free(v);
    return best;
}

/* One learning rate among the runs that state one: N_update(M) holds per rate. The first run
 * off the rate most runs share is named beside one of those (campaign 29's B9). */
static int same_lr(const mb_fit_runs *r, const char *const *paths, mb_error *err)
{
    const double lr = common_lr(r);
    size_t odd = SIZE_MAX, ref = SIZE_MAX;
    for (size_t i = 0; r->lr && i < r->n; i++) {
        if (isnan(r->lr[i]))
            continue;
        if (r->lr[i] != lr && odd == SIZE_MAX)
            odd = i;
        if (r->lr[i] == lr && ref == SIZE_MAX)
            ref = i;
    }
    if (odd == SIZE_MAX || ref == SIZE_MAX)
        return MB_OK;
    char a[32], b[32];
    return mb_error_set(err, MB_EINVAL, "%s: lr %s, but %s's is %s: the runs were trained with "
                        "different learning rates, and the law holds per rate, so fit each "
                        "rate's runs on their own (mbfit nupdate --lr RATE)",
                        paths[r->file ? r->file[odd] : odd],
                        mb_data_fmt_exact(a, sizeof a, r->lr[odd]),
                        paths[r->file ? r->file[ref] : ref],
                        mb_data_fmt_exact(b, sizeof b, r->lr[ref]));
}

/* A log without `# algo=` among logs that state theirs: N_update(M) holds per (algo, P), and
 * the check per (algo, P) printed the missing one as an empty name ("sgd P=1 and  P=1",
 * campaign 43's F5). The first such log is named beside one that states its algorithm. */
static int same_algo(const mb_fit_runs *r, const char *const *paths, mb_error *err)
{
    size_t odd = SIZE_MAX, ref = SIZE_MAX;
    for (size_t i = 0; r->algo && i < r->n; i++) {
        if (!r->algo[i][0] && odd == SIZE_MAX)
            odd = i;
        if (r->algo[i][0] && ref == SIZE_MAX)
            ref = i;
    }
    if (odd == SIZE_MAX || ref == SIZE_MAX)
        return MB_OK;
    return mb_error_set(err, MB_EINVAL, "%s: no '# algo=' metadata, but %s's is %s: N_update(M) "
                        "holds per (algo, P), so every log fitted must state its algorithm",
                        paths[r->file ? r->file[odd] : odd], paths[r->file ? r->file[ref] : ref],
                        r->algo[ref]);
}

int mb_fit_runs_trained_as(const mb_fit_runs *r, const char *const *paths,
                           const mb_fit_runs *ref, const char *const *ref_paths,
                           const char *only, const char *skip, const char *why, mb_error *err)
{
    for (size_t k = 0; r->setting && ref->setting && k < MB_FIT_SETTINGS; k++) {
        if ((only && strcmp(only, mb_fit_setting_keys[k]) != 0) ||
            listed(skip, mb_fit_setting_keys[k]))
            continue;
        size_t first = SIZE_MAX; /* the first run of ref that states it */
        for (size_t j = 0; j < ref->n && first == SIZE_MAX; j++)
            if (ref->setting[j][k][0])
                first = j;
        for (size_t i = 0; first != SIZE_MAX && i < r->n; i++) {
            const char *v = r->setting[i][k];
            if (*v && !same_value(v, ref->setting[first][k]))
                return mb_error_set(err, MB_EINVAL, "%s: metadata '%s': '%s', but %s's is '%s': "
                                    "%s", paths[r->file ? r->file[i] : i],
                                    mb_fit_setting_keys[k], v,
                                    ref_paths[ref->file ? ref->file[first] : first],
                                    ref->setting[first][k], why);
        }
    }
    return MB_OK;
}

int mb_fit_runs_same_settings(const mb_fit_runs *r, const char *const *paths, const char *only,
                              mb_error *err)
{
    if (!only && (same_lr(r, paths, err) != MB_OK || same_algo(r, paths, err) != MB_OK))
        return MB_EINVAL;
    return mb_fit_runs_trained_as(r, paths, r, paths, only, MB_FIT_MACHINE_SETTINGS,
                                  only ? "the runs must agree on it"
                                       : "runs fitted together must be trained alike (only "
                                         "batch and seed may differ)",
                                  err);
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

/* One run a (batch, seed): a row copied would count twice. By sorting (mb_data_first_repeat):
 * comparing each row with every earlier one took minutes on 320,000 rows (campaign 29's B1). */
static int points_once(const mb_table *t, const mb_fit_runs *runs, mb_error *err)
{
    double *key = malloc(2 * runs->n * sizeof *key);
    if (!key)
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    for (size_t r = 0; r < runs->n; r++)
        key[2 * r] = runs->batch[r], key[2 * r + 1] = runs->seed[r];
    size_t at, q;
    int found = mb_data_first_repeat(key, runs->n, 2, &at, &q), rc = MB_OK;
    free(key);
    if (found < 0)
        rc = mb_error_set(err, MB_ENOMEM, "out of memory");
    else if (found)
        rc = mb_error_set(err, MB_EFORMAT, "%s:%ld: batch %g, seed %g given twice (line %ld too)",
                          mb_table_path(t), mb_table_line(t, at), runs->batch[at],
                          runs->seed[at], mb_table_line(t, q));
    return rc;
}

/* A points table's columns are batch, n_update and seed, no other: a column it does not know
 * would be passed over unread, a misspelt `seeed` turning the check of copied runs off, an `lr`
 * column of two rates fitted as one law (campaign 38's F5), as a run log's header is checked
 * (log_columns). */
static int points_columns(const mb_table *t, mb_error *err)
{
    for (size_t c = 0; c < mb_table_cols(t); c++) {
        const char *name = mb_table_col_name(t, c);
        if (strcmp(name, "batch") != 0 && strcmp(name, "n_update") != 0 &&
            strcmp(name, "seed") != 0)
            return mb_error_set(err, MB_EFORMAT, "%s: header: column '%s' is not a points "
                                "table's (batch, n_update, seed): a misspelt or renamed column?",
                                mb_table_path(t), name);
    }
    return MB_OK;
}

int mb_fit_runs_points_table(const mb_table *t, mb_fit_runs *runs, mb_error *err)
{
    memset(runs, 0, sizeof *runs);
    const char *path = mb_table_path(t);
    int rc = MB_OK;
    size_t cb, cn;
    long cs = mb_table_col(t, "seed");
    if ((rc = mb_format_check_table(t, MB_FORMAT_POINTS, err)) != MB_OK ||
        (rc = points_columns(t, err)) != MB_OK ||
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
        /* with a seed column a row is one run, whose updates are counted: campaign 33's Q7,
         * 100.5 was fitted (without one a row may be a mean over runs) */
        else if (cs >= 0 && (v != floor(v) || !mb_data_whole_as_written(mb_table_cell(t, r, cn))))
            rc = mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'n_update': %s is not a whole "
                              "number of updates (a row with a seed is one run)", path,
                              mb_table_line(t, r), mb_table_cell(t, r, cn));
        runs->batch[r] = b, runs->n_update[r] = v, runs->seed[r] = s;
        runs->wall[r] = runs->lr[r] = runs->t_step[r] = runs->target[r] = NAN;
        runs->procs[r] = 1.0;
        runs->n = r + 1;
    }
    if (rc == MB_OK && cs >= 0)
        rc = points_once(t, runs, err);
    if (rc != MB_OK)
        mb_fit_runs_free(runs);
    return rc;
}

/* The median of the finite values v[0], v[stride], ... (n of them; with `positive`, of those
 * above 0 only), NAN when there are none; *n_used: how many. */
static double median_of_runs(const double *v, size_t n, size_t stride, int positive,
                             size_t *n_used)
{
    *n_used = 0;
    double m = NAN, *x = v ? malloc((n ? n : 1) * sizeof *x) : NULL;
    for (size_t i = 0; x && i < n; i++)
        if (isfinite(v[i * stride]) && (!positive || v[i * stride] > 0))
            x[(*n_used)++] = v[i * stride];
    if (*n_used) {
        qsort(x, *n_used, sizeof *x, cmp_double);
        size_t h = *n_used / 2;
        m = *n_used % 2 ? x[h] : 0.5 * (x[h - 1] + x[h]);
    }
    free(x);
    return m;
}

double mb_fit_runs_b_simple(const mb_fit_runs *runs, size_t *n_used)
{
    /* a points file has none (0): only values above 0 count */
    return median_of_runs(runs->b_simple, runs->n, 1, 1, n_used);
}

double mb_fit_runs_load(const mb_fit_runs *runs, int which, size_t *n_used)
{
    return median_of_runs(runs->load ? runs->load + which : NULL, runs->n, 2, 0, n_used);
}

int mb_fit_runs_alloc(mb_fit_runs *r, size_t n, size_t n_thr)
{
    return runs_alloc(r, n, n_thr);
}
