/* mb_cli.h — the error conventions every command shares: one line, exit 2 for a usage error with
 * the --help hint, 1 for bad input (cli.c).
 */
#ifndef MB_CLI_H
#define MB_CLI_H

#include "../model/mb_model.h"

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

#endif /* MB_CLI_H */
