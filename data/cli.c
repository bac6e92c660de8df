/* cli.c — the conventions every mbkit command follows when something is wrong: one line on
 * standard error, "PROG SUB: message", then for usage errors "Try 'PROG SUB --help'." and exit
 * status 2; bad values and files exit 1 (docs/style.md, habit 7). Commands call these; library code
 * never prints.
 */
#include "mb_cli.h"

#include <stdio.h>
#include <stdarg.h>

static void prefix(const char *prog, const char *sub)
{
    fprintf(stderr, "%s%s%s: ", prog, sub ? " " : "", sub ? sub : "");
}

int mb_cli_usage(const char *prog, const char *sub, const char *fmt, ...)
{
    va_list ap;
    prefix(prog, sub);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry '%s%s%s --help'.\n", prog, sub ? " " : "", sub ? sub : "");
    return MB_EXIT_USAGE;
}

int mb_cli_fail(const char *prog, const char *sub, const mb_error *err)
{
    prefix(prog, sub);
    fprintf(stderr, "%s\n", err->msg);
    return MB_EXIT_DATA;
}

int mb_cli_bad_option(const char *prog, const char *sub, char **argv, int optind, int c)
{
    const char *arg = optind > 0 ? argv[optind - 1] : "?";
    if (c == ':')
        return mb_cli_usage(prog, sub, "option '%s' needs a value", arg);
    return mb_cli_usage(prog, sub, "unknown option '%s'", arg);
}
