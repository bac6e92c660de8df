/* mb_data.h — mbkit's data layer: the files that pass between stages, and the inputs users type.
 *
 * - Numbers, sizes and ranges as users write them on the command line ("0.05", "256M", "1:1024",
 *   "8,16,32"), parsed strictly: trailing junk, NaN and inf are errors.
 * - Tables: the CSV files of docs/design.md, "Files between the stages" ("# key=value" metadata
 *   lines, one header line, rows), read whole with every cell addressable by row and column name,
 *   and errors that name the file, line and field.
 * - Atomic output: write to a temporary file in the same folder, then rename, so no reader ever
 *   sees a half-written file.
 * - JSON (cJSON) read and written the same way, for fits and recommendations.
 * - Labelled image data sets (IDX as used by MNIST and Fashion-MNIST, CIFAR-10 binary, and a
 *   generated synthetic set) read into float32 NCHW arrays, with the eval subset of Perrone et al.
 *
 * Network descriptions also belong to this module.
 */
#ifndef MB_DATA_H
#define MB_DATA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "../model/mb_model.h"

/* ---- random numbers ------------------------------------------------------------------------ */

/* splitmix64 (Steele, Lea, Flood 2014): the state is a plain uint64_t owned by the caller (a
 * data set's shuffle, a network's dropout, a learner's cursor), so there is no global generator
 * and a checkpoint saves it as one number. Any seed, 0 included, gives a full-period stream. */
static inline uint64_t mb_rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 53 random bits. */
static inline double mb_rng_uniform(uint64_t *s)
{
    return (double)(mb_rng_next(s) >> 11) * 0x1.0p-53;
}

/* Uniform float in [0, 1) with 24 random bits (initialisation, dropout masks). */
static inline float mb_rng_uniformf(uint64_t *s)
{
    return (float)(mb_rng_next(s) >> 40) * (1.0f / 16777216.0f);
}

/* Uniform integer in [0, n) for n >= 1, without modulo bias (rejection of the short tail). */
static inline uint64_t mb_rng_below(uint64_t *s, uint64_t n)
{
    uint64_t lim = -n % n; /* 2^64 mod n */
    uint64_t x;
    do
        x = mb_rng_next(s);
    while (x < lim);
    return x % n;
}

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

/* The largest value a list or range may hold: 2^53, past which doubles skip whole numbers
 * (counts, bytes and batch sizes are whole). */
#define MB_DATA_RANGE_MAX 9007199254740992.0

/* Parses `s` into *r. Every value must be > 0, finite and at most MB_DATA_RANGE_MAX, each
 * "lo:hi" needs 0 < lo <= hi, no item may be empty ("8,,16", "8,"), and no value may come twice
 * ("8,8", "8,4:16").
 * On error fills err with a message naming `what` (the flag, e.g. "--procs") and the bad item. */
int mb_data_parse_range(const char *s, const char *what, mb_range *r, struct mb_error *err);
void mb_data_range_free(mb_range *r);

/* The one splitter of comma lists typed on command lines: *items (one block, free(*items))
 * gets the *n items of `s` in order. An empty list or item ("0.5,,", ",8") is MB_EINVAL naming
 * `what`; with `keyed`, so is an item that is not key=value and a key given twice. */
int mb_data_split_list(const char *s, const char *what, int keyed, char ***items, size_t *n,
                       struct mb_error *err);

/* ---- command-line conventions -------------------------------------------------------------- */

#define MB_EXIT_USAGE 2 /* unknown flag, missing value, missing argument */
#define MB_EXIT_DATA 1  /* a bad value or file */

/* "PROG SUB: message" and "Try 'PROG SUB --help'." on stderr; returns MB_EXIT_USAGE. sub may be
 * NULL for errors before a subcommand is known. */
int mb_cli_usage(const char *prog, const char *sub, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Called first by every command's main: MB_EXIT_DATA, with one line on stderr, when standard
 * output is closed (whatever the command printed would go nowhere, or into the first file it
 * opened), so that nothing is done; 0 otherwise. */
int mb_cli_start(void);

/* What a command's main returns: `status`, unless standard output could not be written or closed
 * (a full disk, a closed pipe), which is then said in one line (once: not again after
 * mb_out_commit said it) and turns a 0 into MB_EXIT_DATA. Every command's main ends with it. */
int mb_cli_exit(int status);

/* "PROG SUB: err->msg" on stderr; returns MB_EXIT_DATA. */
int mb_cli_fail(const char *prog, const char *sub, const struct mb_error *err);

/* getopt_long's ':' (missing value) or '?' (unknown option) for argv[optind - 1], as a usage
 * error. */
int mb_cli_bad_option(const char *prog, const char *sub, char **argv, int optind, int c);

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
 * readers' range check, so that every command refuses what mbfit refuses. */
int mb_table_double_in(const mb_table *t, size_t row, size_t col, double lo, double hi,
                       int whole, double *v, struct mb_error *err);

/* The columns among `names` (NULL-terminated; absent ones skipped) must not decrease in the
 * order given: a spread such as t_min_s <= t_median_s <= t_max_s. "path:line: field 't_max_s': X is
 * below 't_min_s' (Y)" (MB_EFORMAT) otherwise, or mb_table_double's error. */
int mb_table_check_order(const mb_table *t, size_t row, const char *const *names,
                         struct mb_error *err);

/* The probes' spread of times, in the order mb_table_check_order wants it. */
#define MB_TABLE_TIMES {"t_min_s", "t_p25_s", "t_median_s", "t_p75_s", "t_max_s", NULL}

/* The raw text of a cell ("" for an empty field). */
const char *mb_table_cell(const mb_table *t, size_t row, size_t col);

/* The 1-based line number of a row in its file, for messages. */
long mb_table_line(const mb_table *t, size_t row);

/* Parses a cell as a finite number; on failure MB_EFORMAT with "path:line: field 'name': ..." */
int mb_table_double(const mb_table *t, size_t row, size_t col, double *v, struct mb_error *err);

/* The value of metadata key `key`, or NULL. (A key given twice with different values is an
 * MB_EFORMAT error of mb_table_read, naming the line.) */
const char *mb_table_meta(const mb_table *t, const char *key);

/* The "#" lines that follow the header, without the leading "# ", in file order. */
size_t mb_table_trailers(const mb_table *t);
const char *mb_table_trailer(const mb_table *t, size_t i);

/* ---- whole files and atomic output --------------------------------------------------------- */

/* The most bytes mb_data_read_file takes from a regular file, and from anything without a size
 * (a device, a FIFO, a pipe: /dev/zero never ends). */
#define MB_DATA_FILE_MAX ((size_t)1 << 30)
#define MB_DATA_STREAM_MAX ((size_t)64 << 20)

/* Reads all of `path` into a new NUL-terminated buffer (*buf, owned by the caller; *len bytes
 * before the NUL), opening it once (a FIFO is read as a stream). MB_EIO with a message naming
 * the file when it cannot be opened or read (a folder included), MB_EFORMAT past the limits
 * above. */
int mb_data_read_file(const char *path, char **buf, size_t *len, struct mb_error *err);

/* 1 when writing `a` would overwrite `b` (or the reverse): the same regular file (by device and
 * inode, so links and other spellings count), or two paths that do not exist yet and name the
 * same place. Devices and FIFOs (/dev/null twice) and "-" are never the same file. */
int mb_data_same_file(const char *a, const char *b);

/* The one output writer every command uses. A regular file, or a path that does not exist yet,
 * is written to a temporary file beside it ("PATH.tmp.PID.XXXXXX") and appears at `path` only
 * when committed; a symbolic link is written through (the temporary beside its target, renamed
 * onto the target). Anything else that exists at `path` (a device, a FIFO, a socket) and "-"
 * (standard output) is written directly and never renamed over. Temporaries that a killed
 * write left at the same path are removed when the next write to it opens. Every program
 * linked with the writer also checks standard output at exit: a write or close error there is
 * one line on stderr and exit status 1 (MB_EXIT_DATA). */
typedef struct mb_out {
    FILE *f;          /* write here */
    char *path;       /* final path as given (NULL for stdout), for messages */
    char *target;     /* what the temporary is renamed onto: `path`, or the end of its chain of
                         symbolic links (a link is written through, never replaced) */
    char *tmp;        /* temporary path beside target (NULL for stdout and direct writes) */
} mb_out;

/* Opens `path` as above. MB_EIO with a message naming `path` on failure. */
int mb_out_open(mb_out *o, const char *path, struct mb_error *err);

/* Whether `path` could be written, asked before long work without opening it: "-" is; an
 * existing device or FIFO when access(W_OK) says so (opening and closing a FIFO would hand its
 * reader an end of file); a folder never; a regular file or new path when a temporary can be
 * made beside its target (made and removed). MB_EIO naming `path` otherwise. */
int mb_out_check(const char *path, struct mb_error *err);

/* Flushes and closes, then renames into place (atomic outputs). On any write or close error
 * the temporary file is removed and MB_EIO returned ("PATH: write error: REASON"): the final
 * path is never left half-written (a direct write may be, and says so the same way). */
int mb_out_commit(mb_out *o, struct mb_error *err);

/* Closes and removes the temporary file (safe to call after a failed commit, or twice). */
void mb_out_abort(mb_out *o);

/* A new temporary file beside `path` for another program to fill (gnuplot's image): *tmp
 * (owned by the caller, free) and an open *fd, mode 0666 less the umask. Removes stale
 * temporaries of `path` first. MB_EIO naming `path` when it cannot be made. */
int mb_out_mktemp(const char *path, char **tmp, int *fd, struct mb_error *err);

/* Puts the finished file `src` (made by mb_out_mktemp for `path`) at `path` as mb_out_commit
 * would: renamed when `path` is a regular file or new, copied into a device, FIFO or "-".
 * `src` is gone afterwards either way. */
int mb_out_place(const char *src, const char *path, struct mb_error *err);

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

/* The number at object[key] checked like mb_table_double_in: in [lo, hi], whole when `whole`.
 * Absent or null gives NAN and MB_OK unless `required`; text, or a value out of range, is an
 * MB_EFORMAT error naming `path`, `where` (a prefix such as "rows[3]: ", may be "") and key. */
int mb_json_number_in(const cJSON *object, const char *key, const char *path, const char *where,
                      double lo, double hi, int whole, int required, double *v,
                      struct mb_error *err);

/* The number at object[key], or NAN when it is absent, null or not a number (for readers that
 * have validated the object already, or treat a missing value as "not known"). */
double mb_json_get(const cJSON *object, const char *key);

/* Adds a number to an object, writing null for a non-finite value (JSON has no NaN). Returns
 * MB_ENOMEM when cJSON cannot allocate. */
int mb_json_add_number(cJSON *object, const char *key, double v);

/* ---- labelled image data sets (IDX, CIFAR-10 binary, synthetic) ---------------------------- */

/* A labelled image data set in memory, float32 NCHW. Owned by whoever filled it: free with
 * mb_dataset_free. */
typedef struct mb_dataset {
    size_t n;        /* number of samples */
    int c, h, w;     /* shape of one sample: channels, height, width (pixels) */
    int classes;     /* labels are 0 .. classes-1 */
    float *x;        /* n * c * h * w values, sample-major then channel, row, column (NCHW);
                        pixels scaled to [0, 1] (byte / 255) */
    int *y;          /* n labels */
} mb_dataset;

/* The three sets a training run uses. */
typedef struct mb_data_splits {
    mb_dataset train; /* every training sample, in file order */
    mb_dataset eval;  /* a fixed subset of the TRAINING samples (a copy): eval_frac of them,
                         chosen by `seed` (partial Fisher-Yates, see mb_data_eval_indices), the
                         same for the same seed; its loss defines convergence (Perrone et al.) */
    mb_dataset test;  /* the test set, for accuracy */
} mb_data_splits;

/* The class count of MNIST-format (IDX) and CIFAR-10 data: labels must lie in 0 .. 9. */
#define MB_DATA_IDX_CLASSES 10

/* Loads the data named by `spec`:
 *   "fashion-mnist"  the files of Debian's dataset-fashion-mnist package
 *                    (/usr/share/datasets/fashion-mnist/ *-ubyte.gz);
 *   "mnist"          the same four IDX files of an installed MNIST, looked for in
 *                    /usr/share/datasets/mnist, /usr/share/mnist and /usr/local/share/mnist;
 *   a folder holding train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte,
 *                    t10k-labels-idx1-ubyte, each plain or .gz;
 *   a CIFAR-10 binary folder (data_batch_1.bin .. data_batch_5.bin, test_batch.bin; each plain
 *                    or .gz);
 *   "synthetic" or "synthetic:n=2000,test=500,c=1,h=28,w=28,classes=10,seed=1,noise=0.35" — a
 *                    generated, learnable set (see mb_data_synthetic).
 * eval_frac in (0, 1]; the eval set holds max(1, round(eval_frac * n_train)) samples. On
 * success *s owns three data sets (mb_data_splits_free); on error *s is all zeros, nothing is
 * left allocated, and err holds one line naming the file and what is wrong: MB_EINVAL (bad
 * eval_frac or synthetic parameters), MB_EIO (missing or unreadable file, unknown spec),
 * MB_EFORMAT (malformed content), MB_ENOMEM. */
int mb_data_load(const char *spec, double eval_frac, unsigned long seed, mb_data_splits *s,
                 mb_error *err);
void mb_data_splits_free(mb_data_splits *s);

/* Frees what d owns and zeroes it (NULL-safe, safe twice). */
void mb_dataset_free(mb_dataset *d);

/* One IDX pair (images + labels), plain or gzip. Images: magic 0x00000803 (unsigned byte, three
 * dimensions n, rows, cols), labels: magic 0x00000801 (n); big-endian header. The result has
 * c = 1, h = rows, w = cols and classes = MB_DATA_IDX_CLASSES (10, as for MNIST and
 * Fashion-MNIST); a label >= 10 is an error. On error *d is all zeros. */
int mb_data_read_idx(const char *images_path, const char *labels_path, mb_dataset *d,
                     mb_error *err);

/* Like mb_data_read_idx with another class count: labels must lie in 0 .. classes-1; classes = 0
 * means "max label + 1" (every label accepted). */
int mb_data_read_idx_classes(const char *images_path, const char *labels_path, int classes,
                             mb_dataset *d, mb_error *err);

/* CIFAR-10 binary files, concatenated in the order given: records of 1 label byte (0..9) and
 * 3072 pixel bytes (3 x 32 x 32, channel-major: all red, then green, then blue, each row by
 * row). Plain or gzip. A file whose size is not a positive multiple of 3073 bytes is an
 * MB_EFORMAT error naming it. c = 3, h = w = 32, classes = 10. On error *d is all zeros. */
int mb_data_read_cifar10(const char *const *paths, size_t npaths, mb_dataset *d, mb_error *err);

/* Parameters of a generated data set. */
typedef struct mb_synthetic {
    size_t n;          /* training samples */
    size_t test;       /* test samples */
    int c, h, w;       /* sample shape */
    int classes;       /* number of classes, >= 2 */
    unsigned long seed;/* chooses prototypes and noise */
    double noise;      /* standard deviation of the Gaussian noise added to a prototype, in
                          pixel units (pixels are in [0, 1]) */
} mb_synthetic;

/* Fills *p with the defaults: n=2000, test=500, c=1, h=28, w=28, classes=10, seed=1,
 * noise=0.35. */
void mb_synthetic_init(mb_synthetic *p);

/* Parses "synthetic" or "synthetic:key=value,..." (keys n, test, c, h, w, classes, seed, noise)
 * over the defaults. MB_EINVAL with a message naming the key and value at fault. */
int mb_synthetic_parse(const char *spec, mb_synthetic *p, mb_error *err);

/* Generates a training and a test set: each class k has a prototype image P_k (pixels uniform
 * in [0, 1], then smoothed over a 3x3 neighbourhood so that images have structure); a sample of
 * class k is clamp(P_k + noise * N(0, 1), 0, 1) per pixel, and labels cycle through a seeded
 * shuffle so classes are balanced. Deterministic for a given *p. On error both are zeros. */
int mb_data_synthetic(const mb_synthetic *p, mb_dataset *train, mb_dataset *test,
                      mb_error *err);

/* The eval subset's indices into a training set of n samples: k = max(1, round(eval_frac * n))
 * distinct indices from a partial Fisher-Yates shuffle driven by splitmix64(seed), in the order
 * drawn. *idx is owned by the caller (free). MB_EINVAL when eval_frac is outside (0, 1] or
 * n == 0. */
int mb_data_eval_indices(size_t n, double eval_frac, unsigned long seed, size_t **idx,
                         size_t *k, mb_error *err);

/* Copies the samples src[idx[0]], ..., src[idx[k-1]] into a new data set *dst (same shape and
 * classes). MB_EINVAL when an index is out of range; on error *dst is all zeros. */
int mb_dataset_subset(const mb_dataset *src, const size_t *idx, size_t k, mb_dataset *dst,
                      mb_error *err);

#endif /* MB_DATA_H */
