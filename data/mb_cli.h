/* mb_cli.h — the error conventions every command shares: one line, exit 2 for a usage error with
 * the --help hint, 1 for bad input; and the one option reader every command's parser calls,
 * which refuses a flag given twice (cli.c).
 */
#ifndef MB_CLI_H
#define MB_CLI_H

#include <getopt.h>
#include <stdio.h>

#include "../model/mb_model.h"

/* ---- command-line conventions -------------------------------------------------------------- */

#define MB_EXIT_USAGE 2 /* unknown flag, missing value, missing argument */
#define MB_EXIT_DATA 1  /* a bad value or file */

/* a message's bytes at most, escapes included (longer: cut): the error record's 8 KiB and more
 * (campaign 30's C3: a cut at 2,048 bytes lost the reason after a long path) */
#define MB_CLI_LINE 8448

/* "PROG SUB: message" as one line on stderr (no "PROG SUB: " when prog is NULL): a newline, tab
 * or other control byte of the message (a file name, a flag's value, a field quoted in it)
 * becomes \n, \t, \xHH, as in mb_error_set (mb_error_one_line). Every line a command writes on
 * stderr goes through it: errors, warnings, notes. Returns MB_EXIT_DATA. sub may be NULL. */
int mb_cli_say(const char *prog, const char *sub, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "PROG SUB: message" and "Try 'PROG SUB --help'." on stderr; returns MB_EXIT_USAGE. sub may be
 * NULL for errors before a subcommand is known. */
int mb_cli_usage(const char *prog, const char *sub, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Called first by every command's main: MB_EXIT_USAGE, with the usage lines on stderr (under
 * mpirun from rank 0 only, mb_cli_hold_begin), when the environment's MBKIT_FIFO_WAIT is not a
 * number of seconds from 0 to 3600 (mb_data_fifo_wait) or MBKIT_MPI_START_WAIT not one from 1 to
 * 3600 (mb_data_mpi_start_wait), whether the command would start MPI or not; MB_EXIT_DATA,
 * with one line, when standard output is closed (whatever the command printed would go nowhere, or
 * into the first file it opened); so that nothing is done. 0 otherwise. */
int mb_cli_start(void);

/* What a command's main returns: `status`, unless standard output could not be written or closed
 * (a full disk, a closed pipe), which is then said in one line (once: not again after
 * mb_out_commit said it) and turns a 0 into MB_EXIT_DATA. Every command's main ends with it. */
int mb_cli_exit(int status);

/* "PROG SUB: err->msg" on stderr; returns MB_EXIT_DATA, or for MB_EUSAGE (a flag missing
 * from the command line, or two that contradict) the message with the --help hint and
 * MB_EXIT_USAGE, as mb_cli_usage. */
int mb_cli_fail(const char *prog, const char *sub, const struct mb_error *err);

/* getopt_long's ':' (missing value) or '?' (unknown option) for argv[optind - 1], as a usage
 * error; MB_CLI_REPEATED (said by mb_cli_getopt) is MB_EXIT_USAGE with nothing more printed. */
int mb_cli_bad_option(const char *prog, const char *sub, char **argv, int optind, int c);

/* ---- the option reader ----------------------------------------------------------------------- */

#define MB_CLI_MAX_OPT 1024 /* option codes (short letters, OPT_* enums) below this are tracked */
#define MB_CLI_REPEATED (-2) /* what mb_cli_getopt returns for a flag given twice (said already) */

/* What one command line has given so far: a bit per option code. Fill prog, sub (NULL for a
 * command without subcommands) and repeatable (option codes that may come more than once, 0
 * ending the list, or NULL), zero bit, and optionally exclusive (pairs of codes that may not
 * both be given, {0, 0} ending the list): mb_cli_seen s = {"mbtrain", NULL, NULL, {0}, NULL}. */
typedef struct mb_cli_seen {
    const char *prog, *sub; /* for the message */
    const int *repeatable;  /* codes a flag may repeat with (--nfit, one per learning rate) */
    unsigned char bit[MB_CLI_MAX_OPT / 8];
    const int (*exclusive)[2]; /* alternatives: --nfit or --n-inf, not both */
} mb_cli_seen;

/* getopt_long, plus: a flag that was given before (under any spelling: -o and --output, an
 * abbreviation) is a usage error, "option '--lr' given twice: it takes one value" (a switch
 * without a value: "option '--json' given twice"), unless `repeatable` lists it,
 * and so is a flag whose exclusive partner was given ("give '--nfit' or '--n-inf', not both"),
 * said here; MB_CLI_REPEATED is returned then (mb_cli_bad_option turns it into exit 2 without
 * a second line). Every flag given is recorded for mb_cli_given. */
int mb_cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
                  mb_cli_seen *s);

/* 1 when the option `code` was given on the command line read by mb_cli_getopt. */
int mb_cli_given(const mb_cli_seen *s, int code);

/* A flag that has no effect in the mode chosen: "FLAG has no effect WHY" as a usage error (exit
 * 2, with the hint); why says which mode it belongs to ("with --algo sgd: ..."). */
int mb_cli_no_effect(const char *prog, const char *sub, const char *flag, const char *why);

/* ---- under mpirun: one line from rank 0 ------------------------------------------------------ */

/* Every rank of an mpirun job reads the same flags, so a bad one would be said once a rank (or
 * interleaved into one garbled line). Between mb_cli_hold_begin and mb_cli_hold_end a rank
 * other than 0 (as its launcher's environment names it: OMPI_COMM_WORLD_RANK, PMIX_RANK,
 * PMI_RANK) writes its standard error to a temporary file; at the end, when `status` is a
 * failure (> 0) and it said something, it waits MB_CLI_RANK_WAIT_S seconds first: rank 0,
 * failing on the same flags, has said it, and mpirun ends the job meanwhile. A rank still
 * alive then (its command line differed) says its own lines, as does one that goes on
 * (status <= 0). Rank 0, and a process not under mpirun, write directly. */
#define MB_CLI_RANK_WAIT_S 20
typedef struct mb_cli_hold {
    FILE *held; /* what the rank said meanwhile, NULL when not held */
    int saved;  /* standard error's descriptor, kept while held */
} mb_cli_hold;
void mb_cli_hold_begin(mb_cli_hold *h);
/* Returns `status`. */
int mb_cli_hold_end(mb_cli_hold *h, int status);

/* ---- OpenBLAS's threads under a memory limit ------------------------------------------------ */

/* Called first by the main of every command, with its argv: mbfit, mbopt and mbplot need no BLAS
 * threads, mbtrain and mbprobe none of OpenBLAS's own (they call it from their threads, or set
 * its count themselves: mbprobe conv --threads; campaign 34's E12). OpenBLAS starts a thread
 * per core when it loads, before main, and each reserves a buffer (128 MiB); under a memory
 * limit (ulimit -v or -d) one that cannot get it retries for ever, and exit waits for it
 * (campaign 33's Q2: --help never ended under ulimit -v 120000).
 * So under a limit, with more than one BLAS thread and OPENBLAS_NUM_THREADS not 1, the command
 * runs itself again (/proc/self/exe, the same arguments) with OPENBLAS_NUM_THREADS=1, which
 * its children (gnuplot) then inherit; where that cannot be done, one line naming the limit
 * and _exit(MB_EXIT_DATA). Likewise, where OpenBLAS fell back to a generic x86 core (Prescott's
 * SSE3 kernels) on a CPU with AVX-512 or AVX2 and OPENBLAS_CORETYPE is not set, it runs itself
 * again with OPENBLAS_CORETYPE=SkylakeX or Haswell (a VM that names its CPU generically: 2-2.5x
 * on the lenet5 step). Otherwise it returns, having changed nothing. */
void mb_cli_one_blas_thread(char **argv);

#endif /* MB_CLI_H */
