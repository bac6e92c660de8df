/* mbfit_cli.h — what mbfit's subcommands share (fit/mbfit_*.c): the option numbers, the output
 * options (--json, -o, --weights), numbers as the tables print them, and writing the result:
 * JSON or a table, atomically. Private to the mbfit command: the library's interface is
 * mb_fit.h.
 */
#ifndef MBFIT_CLI_H
#define MBFIT_CLI_H

#include <getopt.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "mb_fit.h"

enum { OPT_JSON = 256, OPT_TARGET, OPT_WEIGHTS, OPT_BOOT, OPT_SEED, OPT_SMOOTH, OPT_LR,
       OPT_ALGO, OPT_PROCS, OPT_CHOOSE, OPT_LIGHTNING, OPT_LOSS_COL, OPT_BATCH, OPT_BATCH_KEY,
       OPT_EXTRAPOLATE, OPT_LEVELS, OPT_FORM, OPT_THREADS };

/* What every subcommand shares. */
typedef struct common {
    int json;
    const char *output;
    mb_fit_weighting weights;
    double threads; /* tupdate's --threads N (0: not given); NAN where the flag is not taken */
} common;

/* Handles -o, --json, --weights (seeds and pooled only where allow_seeds); 1 when taken, -1 on
 * a bad value (err), 0 otherwise. */
int common_option(common *c, int opt, const char *arg, int allow_seeds, mb_error *err);
/* v as a table prints it. */
const char *num(char *buf, size_t n, double v);
/* One fit's parameters, errors, intervals and goodness, as a table's rows. */
void print_fit(FILE *f, const char *label, const mb_fit_result *r);
void print_warnings(FILE *f, const mb_fit_warnings *w);
/* Writes JSON (atomic) or runs `print` into an atomic output. Takes ownership of root. */
int emit(const char *sub, const common *c, cJSON *root, void (*print)(FILE *, const void *),
         const void *arg);
/* The exit status when -o names one of the inputs (one line), else -1. */
int output_over_input(const char *sub, const char *output, char *const *in, size_t n);
/* The options of a one-table subcommand (--weights none|relative, --json, -o, --help, and
 * --threads N where cm->threads is not NAN): -1 to go on (optind at the table), else the exit
 * status. */
int one_table_args(const char *sub, int argc, char **argv, void (*help_fn)(void),
                   const char *what, common *cm, const char **path, int *n_more);

/* What `mbfit nupdate --extrapolate` takes (parsed by fit/mbfit_nupdate.c, run by
 * fit/mbfit_levels.c). */
#define MB_FIT_LEVELS_BOOT_MAX 10000 /* --bootstrap with --extrapolate: at most this many */
typedef struct levels_args {
    mb_fit_levels_options o;  /* --form, --bootstrap, --seed */
    common cm;                /* --json, -o */
    const char *target;       /* --target-loss: the one final target */
    const char *levels;       /* --levels LIST, NULL: the default grid from the runs' targets */
    size_t smooth;            /* --smooth */
    int smooth_given;         /* --smooth given (refused where no log uses it) */
    double lr, procs;         /* --lr, --procs (NAN: all) */
    const char *algo;         /* --algo (NULL: all) */
} levels_args;
/* Runs the extrapolation on run logs files[0..n): the exit status. */
int nupdate_extrapolate(const char *const *files, size_t n, const levels_args *la);

/* The subcommands (fit/mbfit_nupdate.c, mbfit_tupdate.c, mbfit_comm.c). */
int cmd_nupdate(int argc, char **argv);
int cmd_tupdate(int argc, char **argv);
int cmd_comm(int argc, char **argv);

#endif /* MBFIT_CLI_H */
