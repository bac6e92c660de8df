/* mb_parse.h — numbers, sizes and ranges as users write them on the command line ("0.05",
 * "256M", "1:1024", "8,16,32"), parsed strictly: trailing junk, NaN and inf are errors; and a
 * number written back as typed, for messages (parse.c).
 */
#ifndef MB_PARSE_H
#define MB_PARSE_H

#include <stddef.h>

#include "../model/mb_model.h"

/* ---- numbers, sizes and ranges ------------------------------------------------------------ */

/* Parses a finite decimal number occupying the whole of `s`. MB_EINVAL otherwise. */
int mb_data_parse_double(const char *s, double *v);

/* Parses a whole decimal integer in [lo, hi]. MB_EINVAL otherwise. */
int mb_data_parse_long(const char *s, long lo, long hi, long *v);

/* mb_data_parse_long for a count written as one: digits only ("+4", "-0", " 4" and "0x4" are
 * MB_EINVAL), as mbtrain reads its counts. lo >= 0. */
int mb_data_parse_digits(const char *s, long lo, long hi, long *v);

/* Parses a size: a finite non-negative number with an optional suffix K, M or G (powers of 1024,
 * either case), then an optional 'B' or, after K, M or G, 'iB': "256M", "1.5GiB", "10g", "4096".
 * The B is upper-case: a lower-case b is bits ("10Gb", "1Mib"), MB_EINVAL. */
int mb_data_parse_size(const char *s, double *v);

/* Whether s is a size written in bits: one that mb_data_parse_size would read (a leading '-'
 * aside) had its final lower-case 'b' been 'B' ("10Gb", "240Mb", "10Gib", "8b"). */
int mb_data_size_in_bits(const char *s);

/* The line for a size in bits, from the flag (or list) and the text. */
#define MB_DATA_BITS_LINE "%s: '%s' is in bits (a lower-case b): give bytes, with B or none (8 bits a byte)"

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

/* Parses a fraction flag: a finite number in [0, 1), "FLAG: must be in [0, 1), got 'ARG'"
 * otherwise (mbprobe's --rel-ci: a relative half-width of 1 or more stops at once). */
int mb_data_flag_fraction(const char *flag, const char *arg, double *v, struct mb_error *err);

/* Parses a momentum-like flag (--momentum, --delta, --sma-momentum): mb_data_flag_fraction, read
 * where the flag is, so the message names it: "FLAG: must be in [0, 1), got 'ARG'"; below 1 as
 * the float the step takes it in too (0.99999999999 is refused: it is 1 there). */
int mb_data_flag_momentum(const char *flag, const char *arg, double *v, struct mb_error *err);

/* Parses a real flag that training takes as a float (--weight-decay, --elastic-alpha,
 * --lr-gamma): as
 * mb_data_flag_double, and refused where float would change it: above FLT_MAX (inf), or not 0
 * and below FLT_MIN (0 or denormal), naming the flag and the bound. */
int mb_data_flag_float(const char *flag, const char *arg, mb_sign sign, double *v,
                       struct mb_error *err);

/* Parses a learning rate (--lr): a number > 0 that float holds as a normal number (at least
 * FLT_MIN, at most FLT_MAX), so the rate the log states is the one training steps with. */
int mb_data_flag_lr(const char *flag, const char *arg, double *v, struct mb_error *err);

/* Parses a flag that counts something (devices, learners, bytes, samples, copies): a whole
 * number in [lo, hi] written in digits as mbtrain reads its counts (not 1e1 or +2; a size, when
 * `size` is set, with K/M/G), hi at most 2^53, and 2^53 + 1 refused from its text
 * (mb_data_past_2_53). MB_EINVAL with "FLAG: must be a whole number in [LO, HI], got 'ARG'"
 * (a negative value too; with mb_data_count_notation's reason before ", got" where it has one), or mb_data_flag_double's line when ARG is not a number. */
int mb_data_flag_whole(const char *flag, const char *arg, int size, double lo, double hi,
                       double *v, struct mb_error *err);

/* The reason a count's text t is refused when it is a whole number in [lo, hi] in another
 * notation than digits alone (1e1, 16.0, 2.0e1): " written in digits alone ('1e1' is 10: write
 * that)" in note (n bytes), else "" (one wording for every count flag and list: campaign 42's
 * B-F5). Returns note. */
const char *mb_data_count_notation(const char *t, double lo, double hi, char *note, size_t n);

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

/* Whether the text `s` spells a value that is no finite number, as printf writes one: nan or
 * inf (any case, any sign, and what follows: -nan(0x8), infinity). mb_data_parse_double refuses
 * these as it refuses any word; this tells them apart, for readers that name the case. */
int mb_data_non_finite(const char *s);

/* Whether the text `s`, parsed to `v` by mb_data_parse_double, is a count past 2^53: v above
 * MB_DATA_RANGE_MAX, or v equal to it from a text that is not exactly 2^53 (2^53 + 1 rounds to
 * 2^53 in a double, so a check on v alone lets it through). */
int mb_data_past_2_53(const char *s, double v);

/* Writes v into buf (at least MB_DATA_TYPED_LEN bytes) as the shortest %g text that reads back
 * as the same double, the exponent without leading zeros ("1.500001", "1.1000001", "1e-9"):
 * a number the user typed, as typed; two different doubles never print alike (campaign 42's
 * F1: "%g" printed thresholds 1.500001 and 1.500004 both as 1.5). Returns buf. */
#define MB_DATA_TYPED_LEN 32
const char *mb_data_typed(char *buf, double v);

/* Parses `s` into *r. Every value must be > 0, finite and at most MB_DATA_RANGE_MAX, each
 * "lo:hi" needs 0 < lo <= hi, no item may be empty ("8,,16", "8,"), and no value may come twice
 * ("8,8", "8,4:16").
 * On error fills err with a message naming `what` (the flag, e.g. "--procs") and the bad item. */
int mb_data_parse_range(const char *s, const char *what, mb_range *r, struct mb_error *err);
void mb_data_range_free(mb_range *r);

/* Whether the number text `s` is a whole number as written: no nonzero digit after the point
 * once its exponent has moved it ("8", "8.0", "1.5e3": yes; "2.0000000000000001", which a
 * double rounds to 2: no). A size with K, M or G is left to its value's check (1.5K is 1536
 * bytes). What mb_data_flag_whole, mb_data_parse_counts and the table readers' counts use. */
int mb_data_whole_as_written(const char *s);

/* Counts (batch sizes, processes, threads, learners): mb_data_parse_range, with every item (both
 * ends of "lo:hi") written in digits alone ("2.0000000000000001", which a double rounds to 2,
 * "1e1", "+2" and "2k" are refused, as mbtrain refuses them: campaign 38's D1, `mbprobe step
 * --batch 2k` ran M = 2048) and every value, and the hi of each "lo:hi" as written, a whole
 * number in [lo, hi]. On error fills err with "WHAT: 'ITEM' is not a whole number in [LO, HI]"
 * (or the value as written or as the list made it, in the item: "4000000000 (in
 * '1:4000000000')"). The readers of count lists outside mbtrain (mbprobe, mbopt). */
int mb_data_parse_counts(const char *s, const char *what, double lo, double hi, mb_range *r,
                         struct mb_error *err);

/* Mini-batch sizes: mb_data_parse_range, and every item written as whole numbers in plain
 * digits ("8:512", "8,16"; not "8.5", "1e3", "64k") with every value, and the hi of each
 * "lo:hi" as written, at most `max` (8:2000000000 is refused, not cut at the last doubling below
 * max). On error fills err naming `what` and the item. */
int mb_data_parse_batches(const char *s, const char *what, double max, mb_range *r,
                          struct mb_error *err);

/* Whether a row of n rows (keys: k values a row, row after row) has the same k values as an
 * earlier row (NaN, a field not given, equal to NaN): 1 with *at the earliest such row and
 * *first the earliest row it repeats, 0 if none, -1 out of memory. By sorting a copy: n log n. */
int mb_data_first_repeat(const double *keys, size_t n, size_t k, size_t *at, size_t *first);

/* The indices 0..n-1 of names[] into order[] (n of them), sorted by name (strcmp), the places
 * of one name in index order: 0, or -1 out of memory. n log n; what a check of names given
 * twice works from (a table's metadata keys). */
int mb_data_sort_names(const char *const *names, size_t n, size_t *order);

/* mb_data_first_repeat for names: 1 with *at the earliest of names[0..n) equal to an earlier
 * one and *first the earliest it repeats, 0 if none, -1 out of memory. By sorting: n log n. */
int mb_data_first_repeat_name(const char *const *names, size_t n, size_t *at, size_t *first);

/* v as its shortest decimal that reads back as v ("0.1", "2097152", "4294967296"; never
 * "0.10000000000000001" or "2.09715e+06"), into buf (n bytes); returns buf. For messages that
 * quote a value the user wrote or a list produced. */
const char *mb_data_fmt_exact(char *buf, size_t n, double v);

/* The one splitter of comma lists typed on command lines: *items (one block, free(*items))
 * gets the *n items of `s` in order. An empty list or item ("0.5,,", ",8") is MB_EINVAL naming
 * `what`; with `keyed`, so is an item that is not key=value and a key given twice. */
int mb_data_split_list(const char *s, const char *what, int keyed, char ***items, size_t *n,
                       struct mb_error *err);

/* ---- the environment's waits -------------------------------------------------------------- */

/* The seconds environment variable `name` sets: *s its value, `unset` when it is not set. A value
 * that is not a finite number in [lo, hi] (above lo when lo_open) - empty, "abc", nan - is
 * MB_EUSAGE "NAME='abc': must be a number of seconds from LO to HI (unset: U)" ("above LO, at
 * most HI" when lo_open), *s then `unset`. The one reader of MBKIT_FIFO_WAIT
 * (mb_data_fifo_wait) and MBKIT_MPI_START_WAIT (mb_data_mpi_start_wait). */
int mb_data_env_seconds(const char *name, double unset, double lo, int lo_open, double hi,
                        double *s, struct mb_error *err);

/* How long a rank under mpirun waits for the others to start MPI (train/comm/comm_mpi.c), when
 * MBKIT_MPI_START_WAIT is not set. */
#define MB_DATA_MPI_START_WAIT 60.0

/* The shortest MBKIT_MPI_START_WAIT: MPI's own start takes a good part of a second, so a
 * shorter wait ended every job blaming another rank (campaign 23's R11: 1e-320 was taken). */
#define MB_DATA_MPI_START_WAIT_MIN 1.0

/* MBKIT_MPI_START_WAIT: seconds from 1 to 3600 (mb_data_env_seconds); MB_EUSAGE
 * "MBKIT_MPI_START_WAIT='x': must be a number of seconds from 1 to 3600 (unset: 60)"
 * otherwise. Every command's mb_cli_start says a bad value before it does anything (exit 2),
 * under mpirun or not, so that MPI's start-up (which reads it) never meets one. */
int mb_data_mpi_start_wait(double *s, struct mb_error *err);

#endif /* MB_PARSE_H */
