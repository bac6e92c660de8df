/* cli.c — the conventions every mbkit command follows when something is wrong: one line on
 * standard error, "PROG SUB: message", then for usage errors "Try 'PROG SUB --help'." and exit
 * status 2; bad values and files exit 1 (docs/style.md, habit 7). Every line a command prints on
 * standard error, notes and warnings too, goes through mb_cli_say, which escapes control bytes
 * as mb_error_set does. Commands call these; library code never prints. Also the one option
 * reader (getopt_long that refuses a flag given twice: the last value winning silently is how
 * "--lr 0.1 ... --lr 0.2" trains at 0.2; a switch given twice is a slip). And the start of the
 * commands under a memory limit: one BLAS thread of OpenBLAS's own (mb_cli_one_blas_thread).
 */
#define _GNU_SOURCE /* program_invocation_short_name, for the memory limit's line */
#include "mb_cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* "PROG SUB: " (nothing when prog is NULL), then the message made one line by the one
 * formatting mb_error_set uses (mb_error_vformat): a file name or flag value quoted in it cannot
 * break the line or send the terminal an escape sequence, and a value of 100,000 digits is cut
 * short. */
static void vsay(const char *prog, const char *sub, const char *fmt, va_list ap)
{
    char msg[MB_CLI_LINE], line[MB_CLI_LINE + 128];
    mb_error_vformat(msg, sizeof msg, fmt, ap);
    /* one write: under mpirun a banner of Open MPI's landed between the prefix and the message
     * (campaign 34's E13) */
    snprintf(line, sizeof line, "%s%s%s%s%s\n", prog ? prog : "", prog && sub ? " " : "",
             prog && sub ? sub : "", prog ? ": " : "", msg);
    fputs(line, stderr);
}

int mb_cli_say(const char *prog, const char *sub, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(prog, sub, fmt, ap);
    va_end(ap);
    return MB_EXIT_DATA;
}

/* ---- under mpirun: one line from rank 0 --------------------------------------------------- */

/* This process's rank as its launcher names it before MPI starts (Open MPI, PMIx, PMI), -1
 * when not launched by one. */
static int launch_rank(void)
{
    static const char *const keys[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const char *r = getenv(keys[i]);
        if (r && *r)
            return atoi(r);
    }
    return -1;
}

void mb_cli_hold_begin(mb_cli_hold *h)
{
    memset(h, 0, sizeof *h);
    h->saved = -1;
    if (launch_rank() <= 0)
        return;
    fflush(stderr);
    h->held = tmpfile();
    h->saved = h->held ? dup(STDERR_FILENO) : -1;
    if (h->saved < 0 || dup2(fileno(h->held), STDERR_FILENO) < 0) {
        if (h->saved >= 0)
            close(h->saved);
        if (h->held)
            fclose(h->held);
        h->held = NULL;
        h->saved = -1;
    }
}

int mb_cli_hold_end(mb_cli_hold *h, int status)
{
    if (!h->held)
        return status;
    fflush(stderr);
    dup2(h->saved, STDERR_FILENO);
    close(h->saved);
    if (status > 0 && ftell(h->held) > 0) /* rank 0 fails alike at once, and mpirun ends us */
        nanosleep(&(struct timespec){.tv_sec = MB_CLI_RANK_WAIT_S}, NULL);
    /* still here: what this rank said is its own (a flag only its command line has) */
    rewind(h->held);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, h->held)) > 0)
        fwrite(buf, 1, n, stderr);
    fclose(h->held);
    h->held = NULL;
    return status;
}

int mb_cli_usage(const char *prog, const char *sub, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(prog, sub, fmt, ap);
    va_end(ap);
    fprintf(stderr, "Try '%s%s%s --help'.\n", prog, sub ? " " : "", sub ? sub : "");
    return MB_EXIT_USAGE;
}

int mb_cli_fail(const char *prog, const char *sub, const mb_error *err)
{
    if (err->status == MB_EUSAGE) /* a flag missing or contradicting: a usage error */
        return mb_cli_usage(prog, sub, "%s", err->msg);
    /* escaped again: a caller may have added to err->msg after mb_error_set (a note) */
    return mb_cli_say(prog, sub, "%s", err->msg);
}

int mb_cli_bad_option(const char *prog, const char *sub, char **argv, int optind, int c)
{
    if (c == MB_CLI_REPEATED)
        return MB_EXIT_USAGE; /* mb_cli_getopt said which flag */
    const char *arg = optind > 0 ? argv[optind - 1] : "?";
    if (c == ':')
        return mb_cli_usage(prog, sub, "option '%s' needs a value", arg);
    /* a short one (getopt's optopt; 0 for a long one): inside a group ("-xy") or with its
     * text ("-c.csv") optind has not moved past the word yet, and argv[optind - 1] is the
     * word before it (campaign 33's Q12: "unknown option 'comm'") */
    if (optopt > ' ' && optopt < 127)
        return mb_cli_usage(prog, sub, "unknown option '-%c'", optopt);
    return mb_cli_usage(prog, sub, "unknown option '%s'", arg);
}

/* ---- the option reader ----------------------------------------------------------------------- */

/* Whether the short option `c` takes a value in `shortopts` ("o:"). */
static int short_takes_value(const char *shortopts, int c)
{
    for (const char *p = shortopts; *p; p++)
        if (*p == c && *p != ':')
            return p[1] == ':';
    return 0;
}

/* A flag's name for a message, "--name" (its first long spelling) or "-c". */
static void flag_name(const struct option *longopts, int c, char *buf, size_t n)
{
    for (const struct option *o = longopts; o && o->name; o++)
        if (!o->flag && o->val == c) {
            snprintf(buf, n, "--%s", o->name);
            return;
        }
    snprintf(buf, n, "-%c", c);
}

int mb_cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
                  mb_cli_seen *s)
{
    int li = -1;
    int c = getopt_long(argc, argv, shortopts, longopts, &li);
    if (c < 0 || c == '?' || c == ':' || c >= MB_CLI_MAX_OPT)
        return c;
    /* a flag without a value given twice is refused too (campaign 21's N19: `--json --json`,
     * `--no-cache --no-cache` passed): a doubled switch is a slip, as a doubled value is */
    int takes = li >= 0 ? longopts[li].has_arg != no_argument : short_takes_value(shortopts, c);
    int again = mb_cli_given(s, c);
    for (const int *r = s->repeatable; again && r && *r; r++)
        again = *r != c;
    s->bit[c / 8] |= (unsigned char)(1u << (c % 8));
    for (const int(*x)[2] = s->exclusive; !again && x && (*x)[0]; x++) {
        int other = (*x)[0] == c ? (*x)[1] : (*x)[1] == c ? (*x)[0] : -1;
        if (other >= 0 && mb_cli_given(s, other)) {
            char a[64], b[64];
            flag_name(longopts, (*x)[0], a, sizeof a);
            flag_name(longopts, (*x)[1], b, sizeof b);
            mb_cli_usage(s->prog, s->sub, "give '%s' or '%s', not both", a, b);
            return MB_CLI_REPEATED;
        }
    }
    if (!again)
        return c;
    const char *why = takes ? ": it takes one value" : "";
    if (li >= 0)
        mb_cli_usage(s->prog, s->sub, "option '--%s' given twice%s", longopts[li].name, why);
    else
        mb_cli_usage(s->prog, s->sub, "option '-%c' given twice%s", c, why);
    return MB_CLI_REPEATED;
}

int mb_cli_given(const mb_cli_seen *s, int code)
{
    return code >= 0 && code < MB_CLI_MAX_OPT && (s->bit[code / 8] >> (code % 8) & 1);
}

int mb_cli_no_effect(const char *prog, const char *sub, const char *flag, const char *why)
{
    return mb_cli_usage(prog, sub, "%s has no effect %s", flag, why);
}

/* ---- OpenBLAS's threads under a memory limit (campaign 33's Q2), and its kernels ----------- */

int openblas_get_num_threads(void);
char *openblas_get_corename(void);

/* The kernels to ask OpenBLAS for (OPENBLAS_CORETYPE), or NULL to keep its own choice. Debian's
 * OpenBLAS (DYNAMIC_ARCH) picks its kernels by the CPU's family and model; on a VM that names
 * its CPU generically ("Intel(R) Xeon(R) Processor") 0.3.21 fell back to Prescott's SSE3 kernels
 * on a CPU with AVX-512, and the lenet5 step ran 2.0-2.5x slower than with SkylakeX's
 * (seventeenth session, docs/results.md "OpenBLAS's kernels"). A core the user set stands. */
static const char *blas_core_wanted(void)
{
#if defined(__x86_64__) || defined(__i386__)
    static const char *const generic[] = {"Prescott", "Core2", "Penryn", "Dunnington", "Nehalem",
                                          "Atom", "Katmai", "Coppermine", "Northwood",
                                          "Banias"};
    const char *core = openblas_get_corename();
    int fallback = 0;
    for (size_t k = 0; core && k < sizeof generic / sizeof generic[0]; k++)
        fallback |= strcmp(core, generic[k]) == 0;
    if (getenv("OPENBLAS_CORETYPE") || !fallback)
        return NULL;
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
        return "SkylakeX";
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return "Haswell";
#endif
    return NULL;
}

/* The soft limit that bounds the heap, RLIMIT_AS (ulimit -v) first, else RLIMIT_DATA (ulimit
 * -d): its flag in *flag, its value in bytes; 0 when neither is set. */
static int memory_limit(const char **flag, rlim_t *bytes)
{
    static const struct { int res; const char *flag; } lims[] = {{RLIMIT_AS, "-v"},
                                                                  {RLIMIT_DATA, "-d"}};
    for (size_t k = 0; k < sizeof lims / sizeof lims[0]; k++) {
        struct rlimit r;
        if (getrlimit(lims[k].res, &r) == 0 && r.rlim_cur != RLIM_INFINITY) {
            *flag = lims[k].flag;
            *bytes = r.rlim_cur;
            return 1;
        }
    }
    return 0;
}

/* Whether /proc/self/exe is this program: not when it was started through the dynamic loader
 * (`ld-linux-x86-64.so.2 mbtrain ...`), where the kernel ran the loader and the loader names the
 * program in the auxiliary vector's AT_EXECFN (campaign 35's E2: the re-exec ran the loader,
 * which took --net for its own option). */
static int exe_is_program(void)
{
    const char *fn = (const char *)getauxval(AT_EXECFN);
    struct stat a, b;
    return fn && stat(fn, &a) == 0 && stat("/proc/self/exe", &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

void mb_cli_one_blas_thread(char **argv)
{
    const char *flag = NULL, *v = getenv("OPENBLAS_NUM_THREADS"), *core = blas_core_wanted();
    rlim_t bytes = 0;
    const int one = memory_limit(&flag, &bytes) && openblas_get_num_threads() > 1 &&
                    !(v && strcmp(v, "1") == 0);
    if (!one && !core)
        return;
    /* OpenBLAS reads both when it loads, before main: the program again, with them set */
    if (exe_is_program() && (!core || setenv("OPENBLAS_CORETYPE", core, 1) == 0) &&
        (!one || setenv("OPENBLAS_NUM_THREADS", "1", 1) == 0))
        execv("/proc/self/exe", argv); /* returns only when it failed */
    if (core)
        unsetenv("OPENBLAS_CORETYPE"); /* the exec failed: what it set goes too */
    if (!one)
        return; /* the slower kernels work */
    /* still here: the threads stay; exit would wait for them, _exit does not */
    fprintf(stderr, "%s: a memory limit (ulimit %s %llu) is set, and OpenBLAS's %d threads may "
            "not get the memory they reserve: run it with OPENBLAS_NUM_THREADS=1\n",
            program_invocation_short_name, flag, (unsigned long long)(bytes / 1024),
            openblas_get_num_threads());
    fflush(stderr);
    _exit(MB_EXIT_DATA);
}
