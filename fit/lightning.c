/* lightning.c — PyTorch Lightning's CSVLogger records as mbkit runs (mb_lightning.h): one
 * version folder (metrics.csv, hparams.yaml) per run; the sparse rows Lightning writes (a cell
 * is empty where that metric was not logged at that step) are skipped cell by cell. The crossing
 * is the first logged validation loss at or under the target: exact only when the loss was
 * logged after every update, an upper bound otherwise (docs/formats.md, "Lightning metrics").
 * A run counts once: a folder given twice (by device and inode), two of one seed, or a copy
 * (the same records at the same batch size, no seed telling them apart) is refused.
 */
#include "mb_lightning.h"
#include "../data/mb_format.h"
#include "../data/mb_parse.h"
#include "../data/mb_output.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void mb_lightning_options_init(mb_lightning_options *o)
{
    o->loss_column = "val_loss";
    o->batch = NULL;
    o->n_batch = 0;
    o->batch_key = "batch_size";
}

/* The value of top-level key `key` in hparams.yaml text ("key: value", quotes stripped), as a
 * number: MB_OK and *v, or MB_ENODATA when the key is absent, MB_EFORMAT when it is not a
 * number, or with `digits` set not written in digits alone (a count: '1e1' is no batch size;
 * *line gets its line), MB_EINVAL when it is given again with another value (*line gets the
 * second), MB_EDOM for a count past 2^53 (2^53 + 1 would be read as 2^53, as the points reader
 * refuses it: campaign 29's B7), its text in raw (YAML_RAW bytes) when raw is not NULL. A key is
 * `key:` followed by a space or the line's end, as YAML reads it ('batch_size:16' is a string,
 * no key); a comment (' #' and what follows) is no part of the value (campaign 24's U8). */
enum { YAML_RAW = 64 };
static int yaml_number(char *text, const char *key, int digits, double *v, long *line, char *raw)
{
    size_t kl = strlen(key);
    long ln = 0;
    int found = 0;
    double first = NAN;
    for (char *p = text; p && *p;) {
        char *nl = strchr(p, '\n');
        ln++;
        if (strncmp(p, key, kl) == 0 && p[kl] == ':' && strchr(" \t\r\n", p[kl + 1])) {
            char val[64];
            size_t n = nl ? (size_t)(nl - p) : strlen(p);
            n = n - kl - 1 < sizeof val - 1 ? n - kl - 1 : sizeof val - 1;
            memcpy(val, p + kl + 1, n);
            val[n] = '\0';
            char *s = val, *e;
            for (e = val; (e = strchr(e, '#')) != NULL; e++)
                if (e == val || e[-1] == ' ' || e[-1] == '\t') {
                    *e = '\0';
                    break;
                }
            while (isspace((unsigned char)*s) || *s == '\'' || *s == '"')
                s++;
            e = s + strlen(s);
            while (e > s && (isspace((unsigned char)e[-1]) || e[-1] == '\'' || e[-1] == '"'))
                *--e = '\0';
            *line = ln;
            if (raw)
                snprintf(raw, YAML_RAW, "%s", s);
            if (mb_data_parse_double(s, v) != MB_OK || !isfinite(*v) ||
                (digits && strspn(s, "0123456789") != strlen(s)))
                return MB_EFORMAT;
            if (digits && mb_data_past_2_53(s, *v))
                return MB_EDOM;
            if (found && *v != first)
                return MB_EINVAL;
            found = 1;
            first = *v;
        }
        p = nl ? nl + 1 : NULL;
    }
    if (found)
        *v = first;
    return found ? MB_OK : MB_ENODATA;
}

/* metrics.csv and hparams.yaml of one input (a folder or the CSV itself). */
static int paths_of(const char *in, char *csv, char *yaml, size_t n, mb_error *err)
{
    struct stat st;
    if (stat(in, &st) != 0)
        return mb_error_set(err, MB_EIO, "%s: no such Lightning log (a version folder or its "
                            "metrics.csv)", in);
    if (S_ISDIR(st.st_mode)) {
        snprintf(csv, n, "%s/metrics.csv", in);
        snprintf(yaml, n, "%s/hparams.yaml", in);
        return MB_OK;
    }
    snprintf(csv, n, "%s", in);
    const char *slash = strrchr(in, '/');
    snprintf(yaml, n, "%.*shparams.yaml", slash ? (int)(slash - in + 1) : 0, in);
    return MB_OK;
}

/* A count past 2^53 (yaml_number's MB_EDOM), refused as the points reader refuses it. */
static int past_2_53(const char *yaml, long line, const char *key, const char *raw,
                     mb_error *err)
{
    return mb_error_set(err, MB_EFORMAT, "%s:%ld: field '%s': %s is past 2^53 (a count a double "
                        "cannot hold)", yaml, line, key, raw);
}

/* The optional hparams.yaml key `key` (yaml_number): *v, NAN when absent; refused in one line
 * naming the file, line and key when it is not `what` (a count in digits with `digits`; > lo,
 * or >= lo for a count). */
static int hparam(const char *yaml, char *text, const char *key, int digits, double lo,
                  const char *what, double *v, mb_error *err)
{
    long line = 0;
    double x;
    char raw[YAML_RAW];
    *v = NAN;
    int k = yaml_number(text, key, digits, &x, &line, raw);
    if (k == MB_ENODATA)
        return MB_OK;
    if (k == MB_EDOM)
        return past_2_53(yaml, line, key, raw, err);
    if (k == MB_OK && (digits ? x >= lo && x <= MB_DATA_RANGE_MAX : x > lo)) {
        *v = x;
        return MB_OK;
    }
    return mb_error_set(err, MB_EFORMAT, "%s:%ld: field '%s': not %s", yaml, line, key, what);
}

/* hparams.yaml's `len` bytes `text` read as lines of text: a NUL byte (the rest of its line
 * would be read away: '16\0' as 16) and a CR inside a line (old Mac line ends: the file read
 * as one line, its first key's value running on) refused, naming the line. */
static int yaml_text(const char *yaml, const char *text, size_t len, mb_error *err)
{
    long line = 0;
    int rc = MB_OK;
    for (const char *c = text, *end = text + len; rc == MB_OK && c < end;) {
        const char *nl = memchr(c, '\n', (size_t)(end - c)), *e = nl ? nl : end;
        const char *nul = memchr(c, '\0', (size_t)(e - c));
        line++;
        if (nul)
            return mb_error_set(err, MB_EFORMAT, "%s:%ld: not text (a NUL byte)", yaml, line);
        rc = mb_data_cr_inside(yaml, line, c, (size_t)(e - c), err);
        c = e + 1;
    }
    return rc;
}

/* M, seed and lr of run i from the options and hparams.yaml. */
static int run_hparams(const char *yaml, const mb_lightning_options *o, mb_fit_runs *r,
                       size_t i, mb_error *err)
{
    char *text = NULL;
    size_t len;
    mb_error quiet = {0};
    struct stat st;
    if (stat(yaml, &st) == 0 && mb_data_read_file(yaml, &text, &len, &quiet) != MB_OK)
        return mb_error_set(err, MB_EIO, "%s", quiet.msg);
    double v;
    long line = 0;
    int rc = text ? yaml_text(yaml, text, len, err) : MB_OK;
    /* a key given twice with two values is a contradiction, not a choice (batch, seed, lr) */
    const char *keys[] = {o->batch_key, "seed", "lr", "learning_rate"};
    for (size_t k = 0; text && rc == MB_OK && k < 4; k++)
        if (yaml_number(text, keys[k], 0, &v, &line, NULL) == MB_EINVAL)
            rc = mb_error_set(err, MB_EFORMAT, "%s:%ld: key '%s' given twice with different "
                              "values", yaml, line, keys[k]);
    r->batch[i] = o->batch ? o->batch[o->n_batch > 1 ? i : 0] : NAN;
    if (rc == MB_OK && !o->batch) {
        char raw[YAML_RAW];
        int k = text ? yaml_number(text, o->batch_key, 1, &v, &line, raw) : MB_ENODATA;
        if (k == MB_EDOM)
            rc = past_2_53(yaml, line, o->batch_key, raw, err);
        else if (k == MB_ENODATA)
            rc = mb_error_set(err, MB_EFORMAT, "%s: no batch size: %s (give --batch M, or log "
                              "it: self.save_hyperparameters() with a '%s' argument)", yaml,
                              text ? "no key" : "no such file", o->batch_key);
        else if (k != MB_OK || v < 1 || v != floor(v) || v > MB_DATA_RANGE_MAX)
            rc = mb_error_set(err, MB_EFORMAT, "%s:%ld: field '%s': not a whole batch size "
                              ">= 1", yaml, line, o->batch_key);
        else
            r->batch[i] = v;
    }
    r->seed[i] = r->lr[i] = NAN;
    /* a seed a count in digits, lr a positive finite number, or refused (campaign 24's U8: a
     * seed of 1e1, -1 or 2^64 and lr: nan were dropped unsaid); lr and learning_rate both
     * given say the same */
    double lr2 = NAN;
    if (rc == MB_OK && text)
        rc = hparam(yaml, text, "seed", 1, 0, "a whole number >= 0 written in digits",
                    &r->seed[i], err);
    if (rc == MB_OK && text)
        rc = hparam(yaml, text, "lr", 0, 0, "a finite number > 0", &r->lr[i], err);
    if (rc == MB_OK && text)
        rc = hparam(yaml, text, "learning_rate", 0, 0, "a finite number > 0", &lr2, err);
    char a[32], b[32]; /* each as its shortest exact decimal (campaign 25's F207: 0.1000001
                          and 0.1 were both printed 0.1) */
    if (rc == MB_OK && !isnan(lr2) && !isnan(r->lr[i]) && lr2 != r->lr[i] &&
        yaml_number(text, "learning_rate", 0, &v, &line, NULL) == MB_OK)
        rc = mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'learning_rate': %s, but key 'lr' "
                          "says %s: which one the run used cannot be told", yaml, line,
                          mb_data_fmt_exact(a, sizeof a, lr2),
                          mb_data_fmt_exact(b, sizeof b, r->lr[i]));
    else if (rc == MB_OK && isnan(r->lr[i]))
        r->lr[i] = lr2;
    free(text);
    return rc;
}

/* The crossings of run i from its metrics table. */
static int run_metrics(const mb_table *t, const mb_lightning_options *o, const double *thr,
                       mb_fit_runs *r, size_t i, double *max_gap, mb_error *err)
{
    const char *path = mb_table_path(t);
    const char *f = mb_table_meta(t, "format");
    if (f)
        return mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'format': %s: an mbkit file, not "
                            "a Lightning metrics.csv (give it without --lightning)", path,
                            mb_table_meta_line(t, "format"), f);
    size_t cs, cl;
    int rc;
    if ((rc = mb_table_require_col(t, "step", &cs, err)) != MB_OK ||
        (rc = mb_table_require_col(t, o->loss_column, &cl, err)) != MB_OK)
        return rc == MB_EFORMAT && mb_table_col(t, "step") >= 0
                   ? mb_error_set(err, MB_EFORMAT, "%s: no column '%s' in the header "
                                  "(--loss-column names the validation loss)", path,
                                  o->loss_column)
                   : rc;
    size_t rows = mb_table_rows(t), logged = 0;
    if (rows == 0)
        return mb_error_set(err, MB_ENODATA, "%s: no rows after the header", path);
    for (size_t k = 0; k < r->n_thr; k++)
        r->n_update[i * r->n_thr + k] = r->wall[i * r->n_thr + k] = NAN;
    double prev = -1, last_logged = -1;
    for (size_t row = 0; row < rows; row++) {
        double s, loss;
        if ((rc = mb_table_double_in(t, row, cs, 0, MB_DATA_RANGE_MAX, 1, &s, err)) != MB_OK)
            return rc;
        if (s < prev)
            return mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'step': %g after %g: steps go "
                                "back (a resumed run? give each run's own log)", path,
                                mb_table_line(t, row), s, prev);
        prev = s;
        const char *cell = mb_table_cell(t, row, cl);
        if (!*cell)
            continue; /* not logged at this step */
        if (mb_data_non_finite(cell)) {
            r->diverged[i] = 1;
            break;
        }
        if ((rc = mb_table_double_in(t, row, cl, 0, HUGE_VAL, 0, &loss, err)) != MB_OK)
            return rc;
        logged++;
        int open = 0; /* some threshold not crossed yet: the gap before this row counts */
        for (size_t k = 0; k < r->n_thr; k++)
            open |= isnan(r->n_update[i * r->n_thr + k]);
        if (open && s - last_logged > *max_gap)
            *max_gap = s - last_logged;
        last_logged = s;
        for (size_t k = 0; k < r->n_thr; k++)
            if (isnan(r->n_update[i * r->n_thr + k]) && loss <= thr[k])
                r->n_update[i * r->n_thr + k] = s + 1;
    }
    if (logged == 0 && !r->diverged[i])
        return mb_error_set(err, MB_ENODATA, "%s: column '%s' has no value in any row (was it "
                            "logged? --loss-column names it)", path, o->loss_column);
    r->t_step[i] = NAN;
    return MB_OK;
}

/* The digest (64-bit FNV-1a) of a metrics table's records: its header and every cell, as read
 * (a copy whose lines end otherwise is the same records). */
static uint64_t metrics_digest(const mb_table *t)
{
    uint64_t h = 14695981039346656037ull;
    const size_t rows = mb_table_rows(t), cols = mb_table_cols(t);
    for (size_t r = 0; r <= rows; r++)
        for (size_t c = 0; c < cols; c++) {
            const char *s = r == 0 ? mb_table_col_name(t, c) : mb_table_cell(t, r - 1, c);
            for (; *s; s++)
                h = (h ^ (unsigned char)*s) * 1099511628211ull;
            h = (h ^ (c + 1 < cols ? ',' : '\n')) * 1099511628211ull;
        }
    return h;
}

/* Run i's records are an earlier run's of the same batch size (and learning rate), and no
 * seed tells the two apart (one of them names none): a copied version folder, which
 * mb_fit_same_run cannot see without both seeds (campaign 38's F4: a copy of v0 was a second
 * run at M = 8, sd 0). MB_EINVAL naming both. */
static int same_records(const mb_fit_runs *r, const char *const *paths, const uint64_t *dig,
                        size_t i, mb_error *err)
{
    for (size_t j = 0; j < i; j++)
        if (dig[j] == dig[i] && r->batch[j] == r->batch[i] &&
            (isnan(r->seed[i]) || isnan(r->seed[j])) &&
            (r->lr[i] == r->lr[j] || (isnan(r->lr[i]) && isnan(r->lr[j]))))
            return mb_error_set(err, MB_EINVAL, "%s: the same run as %s (batch %g, the same "
                                "metrics.csv records): a run counts once", paths[i], paths[j],
                                r->batch[i]);
    return MB_OK;
}

int mb_fit_runs_read_lightning(const char *const *paths, size_t n,
                               const mb_lightning_options *o, const double *thr, size_t n_thr,
                               mb_fit_runs *runs, double *max_gap, mb_error *err)
{
    *max_gap = 0;
    if (n_thr == 0)
        return mb_error_set(err, MB_EINVAL, "no threshold");
    if (strcmp(o->loss_column, "step") == 0 || strcmp(o->loss_column, "epoch") == 0)
        return mb_error_set(err, MB_EINVAL, "--loss-column %s: that is Lightning's %s count, "
                            "not a loss", o->loss_column, o->loss_column);
    if (o->batch && o->n_batch != 1 && o->n_batch != n)
        return mb_error_set(err, MB_EINVAL, "--batch: %zu sizes for %zu inputs (one for all, "
                            "or one per input)", o->n_batch, n);
    /* each input's metrics.csv, by device and inode: a folder given twice, or a folder and its
     * own metrics.csv, is one run given twice (campaign 19's G6: it was fitted as two seeds) */
    struct stat *st = calloc(n ? n : 1, sizeof *st);
    uint64_t *dig = calloc(n ? n : 1, sizeof *dig); /* each metrics table's metrics_digest */
    if (!st || !dig || mb_fit_runs_alloc(runs, n, n_thr) != MB_OK) {
        free(st);
        free(dig);
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    }
    memcpy(runs->thresholds, thr, n_thr * sizeof *thr);
    runs->from_logs = 1;
    int rc = MB_OK;
    for (size_t i = 0; i < n && rc == MB_OK; i++) {
        char csv[4096], yaml[4096];
        mb_table *t = NULL;
        if ((rc = paths_of(paths[i], csv, yaml, sizeof csv, err)) == MB_OK &&
            stat(csv, &st[i]) != 0)
            memset(&st[i], 0, sizeof st[i]);
        if (rc == MB_OK)
            rc = mb_fit_given_twice(paths, st, i, err);
        if (rc == MB_OK &&
            (rc = mb_table_read(csv, &t, err)) == MB_OK &&
            (rc = run_metrics(t, o, thr, runs, i, max_gap, err)) == MB_OK)
            rc = run_hparams(yaml, o, runs, i, err);
        if (rc == MB_OK)
            dig[i] = metrics_digest(t);
        runs->procs[i] = 1;
        runs->algo[i][0] = runs->net[i][0] = '\0';
        runs->target[i] = runs->b_simple[i] = runs->load[2 * i] = runs->load[2 * i + 1] = NAN;
        mb_table_free(t);
        if (rc == MB_OK) /* two version folders of one batch and seed (campaign 29's B6) */
            rc = mb_fit_same_run(runs, paths, st, i, err);
        if (rc == MB_OK)
            rc = same_records(runs, paths, dig, i, err);
        if (rc == MB_OK)
            runs->n++;
    }
    free(st);
    free(dig);
    if (rc != MB_OK)
        mb_fit_runs_free(runs);
    return rc;
}
