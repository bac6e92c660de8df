/* report_inputs.c — what `mbplot report` reads, before anything is drawn: every input present
 * in OUT/ readable (a name that leads nowhere is an error, never "missing"), scale.json checked
 * as the page will show it, the fits read as mbopt reads them, validate.json of scale.json's run,
 * the run logs and every other table of one job; inputs that are streams (FIFOs) staged into a
 * private folder so that each can be read more than once. The page itself is report.c's.
 */
#include "mb_plot.h"
#include "plot_impl.h"
#include "report_impl.h"
#include "../data/mb_json.h"
#include "../data/mb_output.h"
#include "../data/mb_parse.h"
#include "../data/mb_format.h"
#include "../data/mb_table.h"
#include "../fit/mb_fit.h"
#include "../solver/mb_solver.h"

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether the input at path is here (*here): absent is MB_OK and 0; a name that is there but
 * leads nowhere (a link in a loop or to nothing) is an error naming it and why, never "missing"
 * (issue #25, H12). */
static int present(const char *path, int *here, mb_error *err)
{
    struct stat st;
    *here = 0;
    if (lstat(path, &st) != 0 && errno == ENOENT)
        return MB_OK;
    if (stat(path, &st) != 0)
        return mb_error_set(err, MB_EIO, "%s: cannot read: %s", path, strerror(errno));
    *here = 1;
    return MB_OK;
}

/* A text the page shows (commands.txt, scale.txt, conv.txt) into *txt (NULL when absent): one
 * present but unreadable (a folder, past the size cap, a link loop) or holding a NUL byte
 * (the page would show it cut there) is an error naming it (issue #25, H12). */
static int read_text(const char *in_dir, const char *name, char **txt, mb_error *err)
{
    char path[4096];
    size_t n;
    int here;
    *txt = NULL;
    path_join(path, sizeof path, in_dir, name);
    int rc = present(path, &here, err);
    if (rc != MB_OK || !here || (rc = mb_data_read_file(path, txt, &n, err)) != MB_OK)
        return rc;
    const char *nul = memchr(*txt, '\0', n);
    if (nul)
        rc = mb_error_set(err, MB_EFORMAT, "%s: not text: a NUL byte at byte %zu", path,
                          (size_t)(nul - *txt) + 1);
    if (rc != MB_OK) {
        free(*txt);
        *txt = NULL;
    }
    return rc;
}

/* A present runs/ is read as run logs (its metadata go under How to reproduce): a plain file
 * named runs, a folder that cannot be read, a link in a loop, or a log that is no run log, is
 * refused naming it rather than left out unsaid, as a present nfit.json or step.csv that cannot
 * be read is; so is a run found twice, as mbfit and mbopt refuse one. */
static int check_runs(const char *out_dir, const glob_t *runs, mb_error *err)
{
    char path[4096];
    struct stat st;
    int here;
    snprintf(path, sizeof path, "%s/runs", out_dir);
    int rc = present(path, &here, err);
    if (rc != MB_OK || !here)
        return rc;
    if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode))
        return mb_error_set(err, MB_EFORMAT, "%s: not a folder (the run logs go in runs/*.csv or "
                            "runs/*/*.csv)", path);
    DIR *d = opendir(path);
    if (!d)
        return mb_error_set(err, MB_EIO, "%s: cannot read: %s", path, strerror(errno));
    closedir(d);
    const size_t n = runs->gl_pathc;
    mb_table **tabs = calloc(n ? n : 1, sizeof *tabs);
    if (!tabs)
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    for (size_t i = 0; rc == MB_OK && i < n; i++) {
        size_t col;
        if ((rc = mb_table_read(runs->gl_pathv[i], &tabs[i], err)) == MB_OK &&
            (rc = mb_format_check_table(tabs[i], MB_FORMAT_RUNLOG, err)) == MB_OK)
            rc = mb_table_require_col(tabs[i], "update", &col, err);
    }
    /* a run found twice (in runs/ and in a folder under it, or a copy) is refused as mbfit and
     * mbopt refuse it, by their reader (mb_fit_same_run): the page counted it twice (campaign
     * 44's B-F4); any threshold does, only the runs' identity is read */
    if (rc == MB_OK && n) {
        mb_fit_runs fr = {0};
        const double thr = 0;
        rc = mb_fit_runs_read_tables((const mb_table *const *)tabs,
                                     (const char *const *)runs->gl_pathv, n, &thr, 1, 1, &fr, err);
        mb_fit_runs_free(&fr);
    }
    for (size_t i = 0; i < n; i++)
        mb_table_free(tabs[i]);
    free(tabs);
    return rc;
}

/* Reads IN/name as JSON when it exists (*root NULL when it does not). */
static int read_optional_json(const char *in_dir, const char *name, cJSON **root, mb_error *err)
{
    char path[4096];
    path_join(path, sizeof path, in_dir, name);
    *root = NULL;
    return exists(path) ? mb_json_read(path, root, err) : MB_OK;
}

/* A fit the page shows under its model's heading (nfit.json, tfit.json, cfit.json), read as
 * mbopt reads it (solver/fits.c), so one of another model, or without its parameters, is
 * refused before anything is drawn rather than shown under the wrong heading (issue #25, H11). */
static int read_fit(const char *in_dir, const char *name, cJSON **root, mb_error *err)
{
    int rc = read_optional_json(in_dir, name, root, err);
    if (rc != MB_OK || !*root)
        return rc;
    char path[4096];
    path_join(path, sizeof path, in_dir, name);
    static mb_solver_nfit nf; /* 256 bootstrap laws: not on the stack */
    mb_update_time t = {0};
    int has_delta;
    if (strcmp(name, "nfit.json") == 0)
        rc = mb_solver_read_nfit(path, NULL, &nf, err);
    else if (strcmp(name, "tfit.json") == 0)
        rc = mb_solver_read_tfit(path, &t, &has_delta, err);
    else
        rc = mb_solver_read_cfit(path, &t, err);
    if (rc != MB_OK) {
        cJSON_Delete(*root);
        *root = NULL;
    }
    return rc;
}

/* The inputs, each read more than once (for its figure and for its table or parameters). */
static const char *const READ_TWICE[] = {"scale.json", "validate.json", "validate-rec.json",
                                         "nfit.json", "tfit.json",
                                         "cfit.json", "step.csv", "comm.csv", "conv.json",
                                         "conv.csv", "scale.txt", "conv.txt", "commands.txt"};
#define N_READ_TWICE (sizeof READ_TWICE / sizeof READ_TWICE[0])

/* Before anything is drawn: every input here can be read (where the user put it: a link loop is
 * not staged), and the texts the page shows are text; commands.txt into *cmds (NULL when
 * absent). */
static int check_inputs(const char *in_dir, const char *out_dir, char **cmds, mb_error *err)
{
    char path[4096], *txt;
    int here, rc = MB_OK;
    *cmds = NULL;
    for (size_t i = 0; rc == MB_OK && i < N_READ_TWICE; i++) {
        path_join(path, sizeof path, out_dir, READ_TWICE[i]);
        rc = present(path, &here, err);
    }
    static const char *const texts[] = {"scale.txt", "conv.txt"};
    for (size_t i = 0; rc == MB_OK && i < sizeof texts / sizeof texts[0]; i++) {
        rc = read_text(in_dir, texts[i], &txt, err);
        free(txt);
    }
    return rc == MB_OK ? read_text(in_dir, "commands.txt", cmds, err) : rc;
}

/* Removes the staging folder and what stage_inputs put in it. */
void mb_report_unstage(const char *stage)
{
    char path[4096];
    for (size_t i = 0; i < N_READ_TWICE; i++) {
        path_join(path, sizeof path, stage, READ_TWICE[i]);
        unlink(path);
    }
    mb_out_drop(stage);
}

/* When an input is a FIFO or another file without a size (read once, it is gone): a private
 * folder `stage` (made under $TMPDIR) where each such input is a copy read once from its stream,
 * and each regular one a link to it; *staged 1 (a draft folder: a caught signal removes it).
 * Otherwise *staged 0 and the inputs are read where they are. */
int mb_report_stage_inputs(const char *out_dir, char *stage, size_t n, int *staged, mb_error *err)
{
    char path[4096], to[4096];
    struct stat st;
    *staged = 0;
    for (size_t i = 0; i < N_READ_TWICE; i++) {
        path_join(path, sizeof path, out_dir, READ_TWICE[i]);
        *staged |= stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
    }
    if (!*staged)
        return MB_OK;
    const char *tmp = getenv("TMPDIR");
    if ((size_t)snprintf(stage, n, "%s/mbplot-report.XXXXXX", tmp && *tmp ? tmp : "/tmp") >= n)
        return mb_error_set(err, MB_EINVAL, "TMPDIR: too long a folder name");
    if (mb_out_mkdtemp(stage) != 0)
        return mb_error_set(err, MB_EIO, "%s: cannot make a folder to read the FIFOs of %s "
                            "into: %s", stage, out_dir, strerror(errno));
    int rc = MB_OK;
    for (size_t i = 0; rc == MB_OK && i < N_READ_TWICE; i++) {
        path_join(path, sizeof path, out_dir, READ_TWICE[i]);
        path_join(to, sizeof to, stage, READ_TWICE[i]);
        if (stat(path, &st) != 0 || S_ISDIR(st.st_mode))
            continue;
        if (S_ISREG(st.st_mode)) {
            char *abs = realpath(path, NULL);
            if (!abs || symlink(abs, to) != 0)
                rc = mb_error_set(err, MB_EIO, "%s: cannot link: %s", to, strerror(errno));
            free(abs);
            continue;
        }
        char *buf;
        size_t len;
        if ((rc = mb_data_read_file(path, &buf, &len, err)) != MB_OK)
            break;
        FILE *f = fopen(to, "wb");
        int bad = !f || fwrite(buf, 1, len, f) != len;
        bad |= f && fclose(f) != 0;
        free(buf);
        if (bad)
            rc = mb_error_set(err, MB_EIO, "%s: cannot write: %s", to, strerror(errno));
    }
    if (rc != MB_OK)
        mb_report_unstage(stage);
    return rc;
}

/* scale.json's `settled` (mbopt scale with run logs), checked before the page draws it, as its
 * rows are: absent, or an object; where it settled (a `batch`), the values the page shows are
 * there and drawable: batch a whole M >= 1, t_pred_s and t_train_median_s in (0, 1e9] s, band
 * a median error >= 0, candidates an array of {batch, lr}, and where the runs settled it
 * against the model ("by": "runs") the model's run, model_batch_run and its median; "by" one
 * of the two mbopt writes beside a batch, and where the runs agreed with the model the batch
 * one of the candidates (none empty). Campaign 13's Q2: an edited file printed "nan%", "nan s"
 * and a recommended M = -5; campaign 14's R3: M = 3 among candidates 32, 64, 128. */
static int check_settled(const cJSON *scale, const char *path, mb_error *err)
{
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(scale, "settled"), *x;
    if (!st)
        return MB_OK;
    if (!cJSON_IsObject(st))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'settled': not an object", path);
    const cJSON *why = cJSON_GetObjectItemCaseSensitive(st, "why");
    if (why && !cJSON_IsString(why))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'settled.why': not a string", path);
    double batch, v;
    int rc = mb_json_number_in(st, "batch", path, "settled: ", 1, MB_DATA_RANGE_MAX,
                               MB_JSON_WHOLE, 0, &batch, err);
    if (rc != MB_OK || isnan(batch))
        return rc;
    static const char *const secs[] = {"t_pred_s", "t_train_median_s"};
    for (int i = 0; rc == MB_OK && i < 2; i++)
        if ((rc = mb_json_number_in(st, secs[i], path, "settled: ", 0, MB_FIT_MAX_SECONDS,
                                    MB_JSON_ABOVE_LO, 0, &v, err)) == MB_OK && isnan(v))
            rc = mb_error_set(err, MB_EFORMAT, "%s: field 'settled.%s': missing beside "
                              "'settled.batch'", path, secs[i]);
    if (rc == MB_OK &&
        (rc = mb_json_number_in(st, "band", path, "settled: ", 0, MB_DATA_RANGE_MAX, 0, 0, &v,
                                err)) == MB_OK && isnan(v))
        rc = mb_error_set(err, MB_EFORMAT, "%s: field 'settled.band': missing beside "
                          "'settled.batch'", path);
    if (rc == MB_OK &&
        (rc = mb_json_number_in(st, "lr", path, "settled: ", 0, MB_DATA_RANGE_MAX,
                                MB_JSON_ABOVE_LO, 0, &v, err)) != MB_OK)
        return rc;
    const double lr = v;
    /* what the weighing wrote beside it (campaign 15): a whole count, times, spreads */
    if (rc == MB_OK)
        rc = mb_json_number_in(st, "runs_reached", path, "settled: ", 1, 1e9, MB_JSON_WHOLE, 0,
                               &v, err);
    static const char *const steady[] = {"t_steady_s", "t_weighed_s"};
    for (int i = 0; rc == MB_OK && i < 2; i++)
        rc = mb_json_number_in(st, steady[i], path, "settled: ", 0, MB_FIT_MAX_SECONDS,
                               MB_JSON_ABOVE_LO, 0, &v, err);
    static const char *const sds[] = {"sd_seed", "sd_shared", "sd_model"};
    for (int i = 0; rc == MB_OK && i < 3; i++)
        rc = mb_json_number_in(st, sds[i], path, "settled: ", 0, 100, 0, 0, &v, err);
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(st, "candidates");
    if (rc == MB_OK && !cJSON_IsArray(c))
        rc = mb_error_set(err, MB_EFORMAT, "%s: field 'settled.candidates': not an array "
                          "beside 'settled.batch'", path);
    int k = 0;
    cJSON_ArrayForEach(x, c)
    {
        char where[48];
        snprintf(where, sizeof where, "settled.candidates[%d]: ", k++);
        if (rc == MB_OK && !cJSON_IsObject(x))
            rc = mb_error_set(err, MB_EFORMAT, "%s: field '%.*s': not an object", path,
                              (int)strlen(where) - 2, where);
        if (rc == MB_OK)
            rc = mb_json_number_in(x, "batch", path, where, 1, MB_DATA_RANGE_MAX, MB_JSON_WHOLE,
                                   1, &v, err);
        if (rc == MB_OK)
            rc = mb_json_number_in(x, "lr", path, where, 0, MB_DATA_RANGE_MAX, MB_JSON_ABOVE_LO,
                                   0, &v, err);
    }
    const cJSON *by = cJSON_GetObjectItemCaseSensitive(st, "by");
    /* the model's own run, where a trained M stands for its optimum (mbopt writes both or
     * neither: with no run near the optimum the runs chose among the candidates alone) */
    if (rc == MB_OK && cJSON_IsString(by) && strcmp(by->valuestring, "runs") == 0) {
        const int has = cJSON_GetObjectItemCaseSensitive(st, "model_batch_run") != NULL ||
                        cJSON_GetObjectItemCaseSensitive(st, "model_t_train_median_s") != NULL;
        rc = mb_json_number_in(st, "model_batch_run", path, "settled: ", 1, MB_DATA_RANGE_MAX,
                               MB_JSON_WHOLE, has, &v, err);
        if (rc == MB_OK)
            rc = mb_json_number_in(st, "model_t_train_median_s", path, "settled: ", 0,
                                   MB_FIT_MAX_SECONDS, MB_JSON_ABOVE_LO, has, &v, err);
    }
    const int agree = cJSON_IsString(by) && strcmp(by->valuestring, "model and runs") == 0;
    if (rc == MB_OK && !(cJSON_IsString(by) && (agree || strcmp(by->valuestring, "runs") == 0)))
        rc = mb_error_set(err, MB_EFORMAT, "%s: field 'settled.by': not \"runs\" or \"model and "
                          "runs\" beside 'settled.batch'", path);
    if (rc == MB_OK && k == 0)
        rc = mb_error_set(err, MB_EFORMAT, "%s: field 'settled.candidates': empty beside "
                          "'settled.batch' (the settings the runs chose among)", path);
    /* the answer is at a rate one candidate was trained at; where the runs agreed with the
     * model, it is one of the candidates */
    int among = 0, same_lr = isnan(lr);
    cJSON_ArrayForEach(x, c)
    {
        among |= mb_json_get(x, "batch") == batch;
        same_lr |= mb_json_get(x, "lr") == lr;
    }
    if (rc == MB_OK && !same_lr)
        rc = mb_error_set(err, MB_EFORMAT, "%s: field 'settled.lr': %g is the rate of none of "
                          "'settled.candidates'", path, lr);
    if (rc == MB_OK && agree && !among)
        rc = mb_error_set(err, MB_EFORMAT, "%s: field 'settled.batch': %g is none of "
                          "'settled.candidates', though the runs agreed with the model", path,
                          batch);
    return rc;
}

/* The run logs the report reads into *runs (globfree it): the CSV files of out_dir/runs, then
 * those of each folder under it (one folder per rate). */
void mb_report_glob_runs(const char *out_dir, glob_t *runs)
{
    char pattern[4096];
    memset(runs, 0, sizeof *runs);
    path_join(pattern, sizeof pattern, out_dir, "runs/*.csv"); /* one rate, or make run's */
    glob(pattern, 0, NULL, runs);                              /* runs/lrX/ per rate */
    path_join(pattern, sizeof pattern, out_dir, "runs/*/*.csv");
    glob(pattern, runs->gl_pathc ? GLOB_APPEND : 0, NULL, runs);
}

/* Whether out is one of the report's inputs (a symbolic or hard link from one to the other):
 * every top-level input it reads (READ_TWICE) and every run log in runs. MB_EINVAL naming
 * both when it is. */
int mb_report_over_input(const char *out_dir, const char *out, const glob_t *runs, mb_error *err)
{
    char in[4096];
    for (size_t i = 0; i < N_READ_TWICE + runs->gl_pathc; i++) {
        if (i < N_READ_TWICE)
            path_join(in, sizeof in, out_dir, READ_TWICE[i]);
        else
            snprintf(in, sizeof in, "%s", runs->gl_pathv[i - N_READ_TWICE]);
        if (exists(in) && mb_data_same_file(out, in))
            return mb_error_set(err, MB_EINVAL, "%s would overwrite the input %s", out, in);
    }
    return MB_OK;
}

/* validate.json and validate-rec.json (a P > 1 answer held out) of in_dir, where there: each
 * read and checked (mb_plot_read_validate) and the check of scale.json's recommendation, not of
 * another run's (mb_plot_validate_matches; campaign 19's G3: "Use M = 16" above "the recommended
 * M = 4 trained in ..."). *val and *val_rec NULL where absent. */
static int read_validations(const char *in_dir, const cJSON *scale, cJSON **val, cJSON **val_rec,
                            mb_error *err)
{
    char scale_in[4096], in[2][4096];
    static const char *const names[2] = {"validate.json", "validate-rec.json"};
    cJSON **out[2] = {val, val_rec};
    path_join(scale_in, sizeof scale_in, in_dir, "scale.json");
    int rc = MB_OK;
    for (int k = 0; rc == MB_OK && k < 2; k++) {
        path_join(in[k], sizeof in[k], in_dir, names[k]);
        if (exists(in[k]))
            rc = mb_plot_read_validate(in[k], out[k], err);
    }
    for (int k = 0; rc == MB_OK && k < 2; k++)
        if (*out[k])
            rc = mb_plot_validate_matches(*out[k], in[k], scale, scale_in, err);
    /* validate-rec.json is a P > 1 answer's check against one learner, or nothing to show */
    const cJSON *ho = *val_rec ? cJSON_GetObjectItemCaseSensitive(*val_rec, "holdout") : NULL;
    if (rc == MB_OK && *val_rec && !(mb_json_get(ho, "procs") > 1))
        rc = mb_error_set(err, MB_EFORMAT, "%s: field 'holdout.procs': not a check across "
                          "learner counts (> 1: mbopt validate --recommend of a P > 1 answer "
                          "with its held-out runs writes one); the P = 1 check is validate.json",
                          in[1]);
    return rc;
}

/* The net a table is of: its `net` column's first cell, else its `# net=` (NULL: neither). */
static const char *table_net(const mb_table *t)
{
    const long c = mb_table_col(t, "net");
    return c >= 0 && mb_table_rows(t) > 0 ? mb_table_cell(t, 0, (size_t)c)
                                          : mb_table_meta(t, "net");
}

/* A JSON file's string field `key` (NULL: none). */
static const char *json_name(const cJSON *j, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The inputs beside scale.json are of its job (campaign 21's N7: the page drew a step table, run
 * logs and a convolution choice of other nets, runs of another rate, fits of another target):
 * the fits against scale's model (mb_plot_fits_match), validate.json's law against nfit's
 * (mb_plot_validate_law_nfit), no comm.csv where scale solved no
 * collective, every run log against scale's rates and
 * nfit's algorithm (mb_plot_run_matches), and one net and one data set (campaign 33's Q5)
 * across step.csv, conv.csv, the run logs, validate.json, conv.json, nfit.json and tfit.json,
 * where each says (mb_plot_same_workload). One line naming both files, before anything is
 * drawn. */
static int check_job(const char *in_dir, const glob_t *runs, const cJSON *scale,
                     const cJSON *nfit, const cJSON *tfit, const cJSON *cfit, const cJSON *val,
                     mb_error *err)
{
    char sp[4096], np[4096], tp[4096], cp[4096];
    mb_plot_workload w;
    memset(&w, 0, sizeof w);
    path_join(sp, sizeof sp, in_dir, "scale.json");
    path_join(np, sizeof np, in_dir, "nfit.json");
    path_join(tp, sizeof tp, in_dir, "tfit.json");
    path_join(cp, sizeof cp, in_dir, "cfit.json");
    int rc = mb_plot_fits_match(scale, sp, nfit, np, tfit, tp, cfit, cp, err);
    char vp[4096];
    path_join(vp, sizeof vp, in_dir, "validate.json");
    if (rc == MB_OK && val && nfit) /* the law the check used is nfit's (campaign 39's B-F3) */
        rc = mb_plot_validate_law_nfit(val, vp, nfit, np, err);
    /* a collective table beside a scale that solved none is another run's, as a cfit is */
    const cJSON *comm = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(scale, "model"), "comm");
    path_join(cp, sizeof cp, in_dir, "comm.csv");
    if (rc == MB_OK && exists(cp) && cJSON_IsString(comm) && !strcmp(comm->valuestring, "none"))
        rc = mb_error_set(err, MB_EFORMAT, "%s: a collective table, but %s's field 'model.comm' "
                          "is none (no collective): the two files are of different runs (remove "
                          "%s, or rerun mbopt scale with --cfit)", cp, sp, cp);
    static const char *const tables[] = {"step.csv", "conv.csv"};
    for (size_t i = 0; rc == MB_OK && i < 2 + runs->gl_pathc; i++) {
        char path[4096];
        if (i < 2)
            path_join(path, sizeof path, in_dir, tables[i]);
        else
            snprintf(path, sizeof path, "%s", runs->gl_pathv[i - 2]);
        mb_table *t = NULL;
        if (!exists(path) || mb_table_read(path, &t, NULL) != MB_OK)
            continue; /* its own reader names what is wrong with it */
        rc = mb_plot_same_workload(&w, path, table_net(t), mb_format_data_set(t), err);
        if (rc == MB_OK && i >= 2)
            rc = mb_plot_run_matches(t, scale, sp, nfit, np, err);
        mb_table_free(t);
    }
    path_join(tp, sizeof tp, in_dir, "validate.json");
    if (rc == MB_OK)
        rc = mb_plot_same_workload(&w, tp, json_name(val, "net"), json_name(val, "data"), err);
    cJSON *conv = NULL;
    path_join(cp, sizeof cp, in_dir, "conv.json");
    if (rc == MB_OK && exists(cp) && mb_json_read(cp, &conv, NULL) == MB_OK)
        rc = mb_plot_same_workload(&w, cp, json_name(conv, "net"), json_name(conv, "data"), err);
    cJSON_Delete(conv);
    /* and the fits' nets and data sets, where they say (campaign 23's R9: conv.json of one net
     * beside nfit.json of another) */
    static const char *const fit_names[] = {"nfit.json", "tfit.json"};
    const cJSON *const fits[] = {nfit, tfit};
    for (size_t k = 0; rc == MB_OK && k < 2; k++) {
        path_join(tp, sizeof tp, in_dir, fit_names[k]);
        rc = mb_plot_same_workload(&w, tp, json_name(fits[k], "net"),
                                   json_name(fits[k], "data"), err);
    }
    return rc;
}

void mb_report_inputs_free(mb_report_inputs *in)
{
    cJSON_Delete(in->scale);
    cJSON_Delete(in->nfit);
    cJSON_Delete(in->tfit);
    cJSON_Delete(in->cfit);
    cJSON_Delete(in->val);
    cJSON_Delete(in->val_rec);
    free(in->cmds);
    if (in->globbed)
        globfree(&in->runs);
    memset(in, 0, sizeof *in);
}

int mb_report_inputs_read(const char *in_dir, const char *out_dir, mb_report_inputs *in,
                          mb_error *err)
{
    char path[4096];
    memset(in, 0, sizeof *in);
    int rc = check_inputs(in_dir, out_dir, &in->cmds, err);
    if (rc != MB_OK) {
        mb_report_inputs_free(in);
        return rc;
    }
    path_join(path, sizeof path, in_dir, "scale.json");
    if (!exists(path)) {
        mb_report_inputs_free(in);
        return mb_error_set(err, MB_EIO, "%s: missing; the report needs the recommendation "
                                         "('mbopt scale --json -o %s')", path, path);
    }
    rc = mb_json_read(path, &in->scale, err);
    if (rc == MB_OK)
        rc = mb_solver_check_scale(in->scale, path, err);
    if (rc == MB_OK)
        rc = check_settled(in->scale, path, err);
    if (rc == MB_OK)
        rc = read_fit(in_dir, "nfit.json", &in->nfit, err);
    if (rc == MB_OK)
        rc = read_fit(in_dir, "tfit.json", &in->tfit, err);
    if (rc == MB_OK)
        rc = read_fit(in_dir, "cfit.json", &in->cfit, err);
    if (rc == MB_OK)
        rc = read_validations(in_dir, in->scale, &in->val, &in->val_rec, err);
    mb_report_glob_runs(out_dir, &in->runs);
    in->globbed = 1;
    if (rc == MB_OK)
        rc = check_runs(out_dir, &in->runs, err);
    if (rc == MB_OK)
        rc = check_job(in_dir, &in->runs, in->scale, in->nfit, in->tfit, in->cfit, in->val, err);
    if (rc != MB_OK)
        mb_report_inputs_free(in);
    return rc;
}
