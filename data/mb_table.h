/* mb_table.h — the CSV tables that pass between stages (docs/design.md, "Files between the
 * stages": "# key=value" metadata lines, one header line, rows), read whole with every cell
 * addressable by row and column name, and errors that name the file, line and field (table.c).
 */
#ifndef MB_TABLE_H
#define MB_TABLE_H

#include <stddef.h>

#include "../model/mb_model.h"

/* ---- tables (CSV with # metadata) ---------------------------------------------------------- */

/* A table read whole. Cells are strings owned by the table. */
typedef struct mb_table mb_table;

/* Reads `path`. Metadata lines ("# key=value", before the header) are kept; "#" lines after the
 * header are kept as trailer lines (mbtrain's summary). Every row must have as many fields as
 * the header. Errors: MB_EIO (cannot open), MB_EFORMAT (empty file, no header, ragged row, a
 * quoted field, a metadata key given twice with different values), with "path:line: ..." in
 * err. */
int mb_table_read(const char *path, mb_table **t, struct mb_error *err);
void mb_table_free(mb_table *t);

const char *mb_table_path(const mb_table *t);
size_t mb_table_rows(const mb_table *t);
size_t mb_table_cols(const mb_table *t);
const char *mb_table_col_name(const mb_table *t, size_t col);

/* The index of column `name`, or -1 when the header lacks it. */
long mb_table_col(const mb_table *t, const char *name);

/* Like mb_table_col, but a missing column is an MB_EFORMAT error naming the file and column. */
int mb_table_require_col(const mb_table *t, const char *name, size_t *col, struct mb_error *err);

/* mb_table_double, and the value must lie in [lo, hi] (and be whole when `whole` is set):
 * "path:line: field 'procs': 0 is not a whole number in [1, ...]" otherwise (MB_EFORMAT). The
 * readers' range check, so that every command refuses what mbfit refuses. `whole`
 * MB_TABLE_DIGITS also wants the count written in digits ("16", "16.0"; not "1e1"), as a count
 * on a command line is: the hand-made tables' counts (campaign 23's R14: a points file's batch
 * '1e1' was read as 10 where --batch refuses it). */
#define MB_TABLE_WHOLE 1  /* a whole value, however written ("1.5e3" is 1500) */
#define MB_TABLE_DIGITS 2 /* a whole number in digits, with at most a ".0" after them */
#define MB_TABLE_WRITTEN 3 /* digits alone ("20"; not "20.0"): a count of a table that a program
                              writes with %d, where no hand-made form is read (campaign 40's D5:
                              a collective table's reps of 20.0) */
int mb_table_double_in(const mb_table *t, size_t row, size_t col, double lo, double hi,
                       int whole, double *v, struct mb_error *err);

/* MB_TABLE_DIGITS's rule: whether `s` is digits only ("16"; no sign, point or exponent), with
 * `point` also digits and a point with only zeros after it ("16.0", as a hand-made table may
 * write a count). A count that a program writes (a run log's summary) is digits only. */
int mb_table_in_digits(const char *s, int point);

/* The columns among `names` (NULL-terminated; absent ones skipped) must not decrease in the
 * order given: a spread such as t_min_s <= t_median_s <= t_max_s. "path:line: field 't_max_s': X is
 * below 't_min_s' (Y)" (MB_EFORMAT) otherwise, or mb_table_double's error. */
int mb_table_check_order(const mb_table *t, size_t row, const char *const *names,
                         struct mb_error *err);

/* The probes' spread of times, in the order mb_table_check_order wants it. */
#define MB_TABLE_TIMES {"t_min_s", "t_p25_s", "t_median_s", "t_p75_s", "t_max_s", NULL}

/* A probe row's spread of times: MB_TABLE_TIMES in order (mb_table_check_order), and where the
 * row's 'reps' is 1, every one of them the same time (one repetition has one time; the probes
 * write it in each column): "path:line: field 'reps': 1, but t_min_s X .. t_max_s Y differ (one
 * repetition has one time)", MB_EFORMAT (campaign 42, F7). A table without 'reps' or a reps that
 * is no number: the order alone (the caller checks reps as a count). */
int mb_table_check_spread(const mb_table *t, size_t row, struct mb_error *err);

/* The line number (1-based) of metadata key `key` in t (the last one given), 0 when absent. */
long mb_table_meta_line(const mb_table *t, const char *key);

/* The raw text of a cell ("" for an empty field). */
const char *mb_table_cell(const mb_table *t, size_t row, size_t col);

/* The 1-based line number of a row in its file, for messages. */
long mb_table_line(const mb_table *t, size_t row);

/* Parses a cell as a finite number; on failure MB_EFORMAT with "path:line: field 'name': ..." */
int mb_table_double(const mb_table *t, size_t row, size_t col, double *v, struct mb_error *err);

/* The value of metadata key `key`, or NULL. (A key given twice with different values is an
 * MB_EFORMAT error of mb_table_read, naming the line.) */
const char *mb_table_meta(const mb_table *t, const char *key);

/* The "#" lines that follow the header, without the leading "# ", in file order, and the 1-based
 * line number of each (a row after mbtrain's summary is named by its line). */
size_t mb_table_trailers(const mb_table *t);
const char *mb_table_trailer(const mb_table *t, size_t i);
long mb_table_trailer_line(const mb_table *t, size_t i);

/* The 1-based number of the file's last line when no newline ends it (every writer of mbkit
 * ends each line with one, so the file may have been cut inside that line), 0 when one does. */
long mb_table_unended(const mb_table *t);

#endif /* MB_TABLE_H */
