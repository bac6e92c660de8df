/* mb_data.h — mbkit's data layer: the files that pass between stages, and the inputs users type.
 *
 * - Numbers, sizes and ranges as users write them on the command line ("0.05", "256M", "1:1024",
 *   "8,16,32"), parsed strictly: trailing junk, NaN and inf are errors.
 * - Tables: the CSV files of DESIGN.md ("# key=value" metadata lines, one header line, rows),
 *   read whole with every cell addressable by row and column name, and errors that name the file,
 *   line and field.
 * - Atomic output: write to a temporary file in the same folder, then rename, so no reader ever
 *   sees a half-written file.
 * - JSON (cJSON) read and written the same way, for fits and recommendations.
 *
 * Dataset readers (IDX, CIFAR-10) and network descriptions also belong to this module.
 */
#ifndef MB_DATA_H
#define MB_DATA_H

#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "../model/mb_model.h"

/* ---- numbers, sizes and ranges ------------------------------------------------------------ */

/* Parses a finite decimal number occupying the whole of `s`. MB_EINVAL otherwise. */
int mb_data_parse_double(const char *s, double *v);

/* Parses a whole decimal integer in [lo, hi]. MB_EINVAL otherwise. */
int mb_data_parse_long(const char *s, long lo, long hi, long *v);

/* Parses a size: a finite non-negative number with an optional suffix K, M or G (powers of 1024,
 * case-insensitive, an optional trailing 'B' or 'iB' accepted: "256M", "1.5GiB", "4096"). */
int mb_data_parse_size(const char *s, double *v);

/* What a numeric flag accepts. */
typedef enum mb_sign {
    MB_ANY = 0,    /* any finite number */
    MB_POSITIVE,   /* > 0 */
    MB_NONNEG      /* >= 0 */
} mb_sign;

/* Parses the value of a command-line flag: a finite number (with K/M/G when `size` is set) of
 * the given sign. MB_EINVAL with "FLAG: 'ARG' is not a number" or "FLAG: must be > 0, got ARG". */
int mb_data_flag_double(const char *flag, const char *arg, int size, mb_sign sign, double *v,
                        struct mb_error *err);

/* A list of values from "lo:hi" (lo, 2 lo, 4 lo, ... up to hi, inclusive), a comma list
 * ("8,16,32"), or a comma list of either ("1,3,8:64"). Items are sizes (K/M/G allowed).
 * The list is owned by the caller: free it with mb_data_range_free. */
typedef struct mb_range {
    double *v; /* the values, in the order written */
    size_t n;  /* how many */
} mb_range;

/* Parses `s` into *r. Every value must be > 0 and finite, and each "lo:hi" needs 0 < lo <= hi.
 * On error fills err with a message naming `what` (the flag, e.g. "--procs") and the bad item. */
int mb_data_parse_range(const char *s, const char *what, mb_range *r, struct mb_error *err);
void mb_data_range_free(mb_range *r);

/* ---- tables (CSV with # metadata) ---------------------------------------------------------- */

/* A table read whole. Cells are strings owned by the table. */
typedef struct mb_table mb_table;

/* Reads `path`. Metadata lines ("# key=value", before the header) are kept; "#" lines after the
 * header are kept as trailer lines (mbtrain's summary). Every row must have as many fields as
 * the header. Errors: MB_EIO (cannot open), MB_EFORMAT (empty file, no header, ragged row, a
 * quoted field), with "path:line: ..." in err. */
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

/* The raw text of a cell ("" for an empty field). */
const char *mb_table_cell(const mb_table *t, size_t row, size_t col);

/* The 1-based line number of a row in its file, for messages. */
long mb_table_line(const mb_table *t, size_t row);

/* Parses a cell as a finite number; on failure MB_EFORMAT with "path:line: field 'name': ..." */
int mb_table_double(const mb_table *t, size_t row, size_t col, double *v, struct mb_error *err);

/* The value of metadata key `key`, or NULL. Later lines override earlier ones. */
const char *mb_table_meta(const mb_table *t, const char *key);

/* The "#" lines that follow the header, without the leading "# ", in file order. */
size_t mb_table_trailers(const mb_table *t);
const char *mb_table_trailer(const mb_table *t, size_t i);

/* ---- whole files and atomic output --------------------------------------------------------- */

/* Reads all of `path` into a new NUL-terminated buffer (*buf, owned by the caller; *len bytes
 * before the NUL). MB_EIO with a message naming the file when it cannot be opened or read. */
int mb_data_read_file(const char *path, char **buf, size_t *len, struct mb_error *err);

/* An output file that appears at `path` only when committed. "-" means standard output
 * (written directly, nothing to rename). */
typedef struct mb_out {
    FILE *f;          /* write here */
    char *path;       /* final path (NULL for stdout) */
    char *tmp;        /* temporary path in the same folder (NULL for stdout) */
} mb_out;

/* Opens a temporary file beside `path`. MB_EIO with a message naming `path` on failure. */
int mb_out_open(mb_out *o, const char *path, struct mb_error *err);

/* Flushes, closes and renames into place. On any write error the temporary file is removed and
 * MB_EIO returned: the final path is never left half-written. */
int mb_out_commit(mb_out *o, struct mb_error *err);

/* Closes and removes the temporary file (safe to call after a failed commit, or twice). */
void mb_out_abort(mb_out *o);

/* Gives a file made by mkstemp (mode 0600) the mode an ordinary new file would get: 0666 less
 * the process umask. */
void mb_data_default_mode(int fd);

/* Writes the metadata lines every output file starts with: "# tool=...", "# version=...",
 * "# host=...", "# date=..." (UTC, ISO 8601) and "# command=..." (argv joined by spaces). */
void mb_data_write_common_meta(FILE *f, const char *tool, int argc, char **argv);

/* ---- JSON ---------------------------------------------------------------------------------- */

/* Reads and parses a JSON file. MB_EIO when it cannot be read, MB_EFORMAT when it is not JSON
 * (with the byte offset of the error). *root is owned by the caller (cJSON_Delete). */
int mb_json_read(const char *path, cJSON **root, struct mb_error *err);

/* Writes `root` (pretty-printed, trailing newline) atomically to `path` ("-" for stdout). */
int mb_json_write(const char *path, const cJSON *root, struct mb_error *err);

/* Reads the number at object[key] (a finite number), or MB_EFORMAT naming `path` and `key`. */
int mb_json_number(const cJSON *object, const char *key, const char *path, double *v,
                   struct mb_error *err);

/* Adds a number to an object, writing null for a non-finite value (JSON has no NaN). Returns
 * MB_ENOMEM when cJSON cannot allocate. */
int mb_json_add_number(cJSON *object, const char *key, double v);

#endif /* MB_DATA_H */
