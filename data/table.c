/* table.c — reads the CSV tables that pass between mbkit's stages (docs/design.md, "Files between
 * the stages"): "# key=value" metadata lines, one header line of column names, then rows.
 *
 * The whole file is read into one buffer that is cut in place; cells point into it. Fields are
 * plain (mbkit never writes quotes or embedded commas), so a quote is reported, not guessed at;
 * binary data and a JSON file (a fit's --json output) are named as what they are.
 */
#include "mb_parse.h"
#include "mb_table.h"
#include "mb_output.h"
#include "mb_format.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct mb_table {
    char *path;        /* as given to mb_table_read */
    char *buf;         /* the file's bytes, cut into NUL-terminated fields */
    char **header;     /* ncols column names, pointing into buf */
    size_t ncols;
    char **cells;      /* nrows * ncols fields, row-major, pointing into buf */
    long *lines;       /* nrows 1-based line numbers */
    size_t nrows;
    struct meta {      /* nmeta "# key=value" lines before the header, pointing into buf */
        char *key, *val;
        long line;     /* 1-based */
    } *meta;
    size_t nmeta;
    char **trailers;   /* ntrail "#" lines after the header, "# " stripped */
    long *trail_lines; /* their 1-based line numbers */
    size_t ntrail;
    long unended;      /* the last line's number when no newline ends it (a file cut short), 0 */
};

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return MB_OK;
    size_t nc = *cap ? *cap : 16;
    while (nc < need)
        nc *= 2;
    void *np = realloc(*p, nc * elem);
    if (!np)
        return MB_ENOMEM;
    *p = np;
    *cap = nc;
    return MB_OK;
}

/* Cuts `line` at commas; stores pointers in *fields (grown as needed). */
static int split(char *line, char ***fields, size_t *cap, size_t *n)
{
    *n = 0;
    char *p = line;
    for (;;) {
        if (grow((void **)fields, cap, *n + 1, sizeof **fields) != MB_OK)
            return MB_ENOMEM;
        (*fields)[(*n)++] = p;
        char *c = strchr(p, ',');
        if (!c)
            break;
        *c = '\0';
        p = c + 1;
    }
    return MB_OK;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        *--e = '\0';
    return s;
}

/* A header naming a column twice (the first column that repeats an earlier one, and the
 * earliest it repeats). By sorting (mb_data_first_repeat_name): comparing each name with every
 * other took minutes on 10^5 columns (campaign 33's Q4). */
static int header_twice(const char *path, long lineno, char *const *fields, size_t nf,
                        mb_error *err)
{
    size_t at, first;
    int found = mb_data_first_repeat_name((const char *const *)fields, nf, &at, &first);
    if (found < 0)
        return MB_ENOMEM;
    return found ? mb_error_set(err, MB_EFORMAT, "%s:%ld: header column '%s' given twice "
                                "(columns %zu and %zu)", path, lineno, fields[at], first + 1,
                                at + 1)
                 : MB_OK;
}

/* A metadata key given twice must say the same thing: which of two conflicting '# batch='
 * lines is meant cannot be guessed. The first line (in the file) that gives a key an earlier
 * line gave with another value, against the first of those: the key's lines sorted together
 * (mb_data_sort_names), its first conflict is the first of them whose value is not the first's.
 * Comparing each line with every earlier one took 24 s on 10^5 keys (campaign 33's Q4). */
static int meta_conflict(const mb_table *t, mb_error *err)
{
    const size_t n = t->nmeta;
    if (n < 2)
        return MB_OK;
    const char **keys = malloc(n * sizeof *keys);
    size_t *o = malloc(n * sizeof *o);
    for (size_t i = 0; keys && i < n; i++)
        keys[i] = t->meta[i].key;
    if (!keys || !o || mb_data_sort_names(keys, n, o) != 0) {
        free(keys);
        free(o);
        return mb_error_set(err, MB_ENOMEM, "%s: out of memory", t->path);
    }
    size_t at = SIZE_MAX, was = 0;
    for (size_t g = 0, e; g < n; g = e) {
        for (e = g + 1; e < n && strcmp(keys[o[e]], keys[o[g]]) == 0; e++)
            ;
        for (size_t j = g + 1; j < e; j++)
            if (strcmp(t->meta[o[j]].val, t->meta[o[g]].val) != 0) {
                if (o[j] < at)
                    at = o[j], was = o[g];
                break;
            }
    }
    free(keys);
    free(o);
    if (at == SIZE_MAX)
        return MB_OK;
    return mb_error_set(err, MB_EFORMAT, "%s:%ld: metadata '%s' given twice with different "
                        "values ('%s', then '%s')", t->path, t->meta[at].line, t->meta[at].key,
                        t->meta[was].val, t->meta[at].val);
}

/* Whether the text's first byte past a UTF-8 byte-order mark and white space opens a JSON
 * object or array ('{', '['): no CSV header mbkit reads begins so, and mbfit's --json output
 * (and mbopt's) passed to a reader of tables is a plausible mistake. */
static int json_text(const char *buf, size_t len)
{
    size_t i = len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n'))
        i++;
    return i < len && (buf[i] == '{' || buf[i] == '[');
}

int mb_table_read(const char *path, mb_table **out, mb_error *err)
{
    *out = NULL;
    mb_table *t = calloc(1, sizeof *t);
    if (!t)
        return mb_error_set(err, MB_ENOMEM, "%s: out of memory", path);
    size_t len = 0;
    if (!(t->path = strdup(path))) {
        free(t);
        return mb_error_set(err, MB_ENOMEM, "%s: out of memory", path);
    }
    int rc = mb_data_read_file(path, &t->buf, &len, err);
    if (rc != MB_OK) {
        mb_table_free(t);
        return rc;
    }
    if (memchr(t->buf, '\0', len)) {
        mb_table_free(t);
        return mb_error_set(err, MB_EFORMAT, "%s: binary data, not a CSV table", path);
    }
    if (json_text(t->buf, len)) { /* campaign 39's F4: "quoted fields are not supported" */
        mb_table_free(t);
        return mb_error_set(err, MB_EFORMAT, "%s: a JSON file (a fit's --json output?), not a "
                            "CSV table", path);
    }

    size_t meta_cap = 0, trail_cap = 0, tline_cap = 0, cell_cap = 0, line_cap = 0, field_cap = 0,
           nf = 0;
    char **fields = NULL;
    long lineno = 0, header_line = 0;
    char *p = t->buf;
    if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
        p += 3; /* a UTF-8 byte-order mark (spreadsheets write one): not part of the header */
    while (rc == MB_OK && *p) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        lineno++;
        /* a row is split as written, less a '\r' at its end (campaign 24's U9: ' 8' at a line's
         * start and '0 ' at its end were taken where '8 ,' was refused); the rest trimmed */
        char *raw = p;
        size_t rawlen = strlen(raw);
        /* a CR inside: lines ended by CR alone (old Mac text) read as one line, a comment when
         * the file begins with '#' (campaign 31's N10: "empty file: no header line") */
        if ((rc = mb_data_cr_inside(path, lineno, raw, rawlen, err)) != MB_OK)
            break;
        if (rawlen && raw[rawlen - 1] == '\r')
            raw[--rawlen] = '\0';
        char *line = raw + strspn(raw, " \t");
        p = nl ? nl + 1 : raw + rawlen;
        if (!*line)
            continue;
        if (!nl)
            t->unended = lineno;
        if (*line == '#') {
            char *body = trim(line + 1);
            if (t->header) {
                rc = grow((void **)&t->trailers, &trail_cap, t->ntrail + 1, sizeof(char *));
                if (rc == MB_OK)
                    rc = grow((void **)&t->trail_lines, &tline_cap, t->ntrail + 1, sizeof(long));
                if (rc == MB_OK) {
                    t->trail_lines[t->ntrail] = lineno;
                    t->trailers[t->ntrail++] = body;
                }
                continue;
            }
            char *eq = strchr(body, '=');
            if (!eq)
                continue; /* a plain comment */
            *eq = '\0';
            struct meta m = {trim(body), trim(eq + 1), lineno};
            /* a key given twice must say the same thing: meta_conflict, once they are read */
            rc = grow((void **)&t->meta, &meta_cap, t->nmeta + 1, sizeof *t->meta);
            if (rc == MB_OK)
                t->meta[t->nmeta++] = m;
            continue;
        }
        if (strchr(line, '"')) {
            rc = mb_error_set(err, MB_EFORMAT, "%s:%ld: quoted fields are not supported", path,
                              lineno);
            break;
        }
        if ((rc = split(t->header ? raw : line, &fields, &field_cap, &nf)) != MB_OK)
            break;
        /* the header's names are trimmed; a row's cells are kept as written, the first and last
         * too, so that a number with a space before or after it is refused as the flags refuse
         * ' 0.1' */
        for (size_t i = 0; !t->header && i < nf; i++)
            fields[i] = trim(fields[i]);
        if (!t->header) {
            for (size_t i = 0; i < nf; i++)
                if (!*fields[i]) {
                    rc = mb_error_set(err, MB_EFORMAT, "%s:%ld: header column %zu has no name",
                                      path, lineno, i + 1);
                    break;
                }
            if (rc == MB_OK)
                rc = header_twice(path, lineno, fields, nf, err);
            if (rc != MB_OK)
                break;
            t->header = malloc(nf * sizeof *t->header);
            if (!t->header) {
                rc = MB_ENOMEM;
                break;
            }
            memcpy(t->header, fields, nf * sizeof *fields);
            t->ncols = nf;
            header_line = lineno;
            continue;
        }
        if (nf != t->ncols) {
            /* the header's line named: a stray line above it is seen as what was taken */
            rc = mb_error_set(err, MB_EFORMAT, "%s:%ld: %zu fields, but the header (line %ld) "
                              "has %zu", path, lineno, nf, header_line, t->ncols);
            break;
        }
        if ((rc = grow((void **)&t->cells, &cell_cap, (t->nrows + 1) * t->ncols,
                       sizeof(char *))) != MB_OK ||
            (rc = grow((void **)&t->lines, &line_cap, t->nrows + 1, sizeof(long))) != MB_OK)
            break;
        memcpy(t->cells + t->nrows * t->ncols, fields, nf * sizeof *fields);
        t->lines[t->nrows++] = lineno;
    }
    free(fields);
    /* every "# key=" line is above the header and any line the reading stopped at: a conflict
     * among them is what a reading line by line meets first */
    int conflict = meta_conflict(t, err);
    rc = conflict != MB_OK ? conflict : rc;
    if (rc == MB_OK && !t->header)
        rc = mb_error_set(err, MB_EFORMAT, "%s: empty file: no header line", path);
    if (rc == MB_ENOMEM)
        mb_error_set(err, rc, "%s: out of memory", path);
    if (rc != MB_OK) {
        mb_table_free(t);
        return rc;
    }
    *out = t;
    return MB_OK;
}

void mb_table_free(mb_table *t)
{
    if (!t)
        return;
    free(t->path);
    free(t->buf);
    free(t->header);
    free(t->cells);
    free(t->lines);
    free(t->meta);
    free(t->trailers);
    free(t->trail_lines);
    free(t);
}

const char *mb_table_path(const mb_table *t) { return t->path; }
size_t mb_table_rows(const mb_table *t) { return t->nrows; }
size_t mb_table_cols(const mb_table *t) { return t->ncols; }
const char *mb_table_col_name(const mb_table *t, size_t col) { return t->header[col]; }
const char *mb_table_cell(const mb_table *t, size_t row, size_t col)
{
    return t->cells[row * t->ncols + col];
}
long mb_table_line(const mb_table *t, size_t row) { return t->lines[row]; }
size_t mb_table_trailers(const mb_table *t) { return t->ntrail; }
const char *mb_table_trailer(const mb_table *t, size_t i) { return t->trailers[i]; }
long mb_table_trailer_line(const mb_table *t, size_t i) { return t->trail_lines[i]; }
long mb_table_unended(const mb_table *t) { return t->unended; }

long mb_table_col(const mb_table *t, const char *name)
{
    for (size_t i = 0; i < t->ncols; i++)
        if (strcmp(t->header[i], name) == 0)
            return (long)i;
    return -1;
}

int mb_table_require_col(const mb_table *t, const char *name, size_t *col, mb_error *err)
{
    long c = mb_table_col(t, name);
    if (c < 0)
        return mb_error_set(err, MB_EFORMAT, "%s: no column '%s' in the header", t->path, name);
    *col = (size_t)c;
    return MB_OK;
}

int mb_table_double(const mb_table *t, size_t row, size_t col, double *v, mb_error *err)
{
    const char *s = mb_table_cell(t, row, col);
    if (mb_data_parse_double(s, v) != MB_OK)
        return mb_error_set(err, MB_EFORMAT, "%s:%ld: field '%s': '%s' is not a finite number%s",
                            t->path, t->lines[row], t->header[col], s,
                            *s == ' ' || *s == '\t' ? " (a space before it)"
                            : *s && strchr(" \t", s[strlen(s) - 1]) ? " (a space after it)" : "");
    return MB_OK;
}

int mb_table_in_digits(const char *s, int point)
{
    size_t n = strspn(s, "0123456789");
    return n > 0 && (s[n] == '\0' ||
                     (point && s[n] == '.' && strspn(s + n + 1, "0") == strlen(s + n + 1)));
}

int mb_table_double_in(const mb_table *t, size_t row, size_t col, double lo, double hi,
                       int whole, double *v, mb_error *err)
{
    int rc = mb_table_double(t, row, col, v, err);
    if (rc != MB_OK)
        return rc;
    if (whole && *v >= lo && mb_data_past_2_53(mb_table_cell(t, row, col), *v))
        return mb_error_set(err, MB_EFORMAT, "%s:%ld: field '%s': %s is past 2^53 (a count a "
                            "double cannot hold)", t->path, t->lines[row], t->header[col],
                            mb_table_cell(t, row, col));
    const char *cell = mb_table_cell(t, row, col);
    if (*v < lo || *v > hi || (whole && (*v != floor(*v) || !mb_data_whole_as_written(cell)))) {
        char ls[32], hs[32]; /* exact: a count's range is [1, 9007199254740992] */
        return mb_error_set(err, MB_EFORMAT, "%s:%ld: field '%s': %s is not %s in [%s, %s]",
                            t->path, t->lines[row], t->header[col], mb_table_cell(t, row, col),
                            whole ? "a whole number" : "a number",
                            mb_data_fmt_exact(ls, sizeof ls, lo),
                            mb_data_fmt_exact(hs, sizeof hs, hi));
    }
    if (whole == MB_TABLE_DIGITS && !mb_table_in_digits(mb_table_cell(t, row, col), 1))
        return mb_error_set(err, MB_EFORMAT, "%s:%ld: field '%s': '%s' is not a whole number "
                            "written in digits (a count, as on a command line)", t->path,
                            t->lines[row], t->header[col], mb_table_cell(t, row, col));
    if (whole == MB_TABLE_WRITTEN && !mb_table_in_digits(mb_table_cell(t, row, col), 0))
        return mb_error_set(err, MB_EFORMAT, "%s:%ld: field '%s': '%s' is not a whole number "
                            "in digits alone (a count, as its writer prints one)", t->path,
                            t->lines[row], t->header[col], mb_table_cell(t, row, col));
    return MB_OK;
}

const char *mb_table_meta(const mb_table *t, const char *key)
{
    for (size_t i = t->nmeta; i-- > 0;)
        if (strcmp(t->meta[i].key, key) == 0)
            return t->meta[i].val;
    return NULL;
}

int mb_table_check_order(const mb_table *t, size_t row, const char *const *names,
                         mb_error *err)
{
    long prev = -1;
    double pv = 0;
    for (size_t i = 0; names[i]; i++) {
        long c = mb_table_col(t, names[i]);
        double v;
        if (c < 0)
            continue;
        int rc = mb_table_double(t, row, (size_t)c, &v, err);
        if (rc != MB_OK)
            return rc;
        if (prev >= 0 && v < pv)
            return mb_error_set(err, MB_EFORMAT, "%s:%ld: field '%s': %s is below '%s' (%s): "
                                "not a spread of times", t->path, t->lines[row], t->header[c],
                                mb_table_cell(t, row, (size_t)c), t->header[prev],
                                mb_table_cell(t, row, (size_t)prev));
        prev = c;
        pv = v;
    }
    return MB_OK;
}

int mb_table_check_spread(const mb_table *t, size_t row, mb_error *err)
{
    static const char *const names[] = MB_TABLE_TIMES;
    int rc = mb_table_check_order(t, row, names, err);
    long cr = mb_table_col(t, "reps");
    mb_error e = {0}; /* the values were read above; a reps that is no number is the caller's */
    double reps;
    if (rc != MB_OK || cr < 0 || mb_table_double(t, row, (size_t)cr, &reps, &e) != MB_OK ||
        reps != 1)
        return rc;
    long lo = -1, hi = -1; /* the first and last time columns present: in order, so equal ends
                              mean equal times */
    for (size_t i = 0; names[i]; i++) {
        long c = mb_table_col(t, names[i]);
        if (c >= 0)
            hi = c, lo = lo < 0 ? c : lo;
    }
    double a, b;
    if (lo < 0 || lo == hi || mb_table_double(t, row, (size_t)lo, &a, &e) != MB_OK ||
        mb_table_double(t, row, (size_t)hi, &b, &e) != MB_OK || a == b)
        return MB_OK;
    return mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'reps': 1, but %s %s .. %s %s differ (one "
                        "repetition has one time)", t->path, t->lines[row], t->header[lo],
                        mb_table_cell(t, row, (size_t)lo), t->header[hi],
                        mb_table_cell(t, row, (size_t)hi));
}

long mb_table_meta_line(const mb_table *t, const char *key)
{
    for (size_t i = t->nmeta; i-- > 0;)
        if (strcmp(t->meta[i].key, key) == 0)
            return t->meta[i].line;
    return 0;
}
