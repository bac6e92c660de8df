/* mb_test.c — the helpers of mb_test.h. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "mb_test.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CUnit/CUnit.h>

extern char **environ;

static char *slurp_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return strdup("");
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t k;
    while (buf && (k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += k;
        if (n + 1 == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb)
                free(buf);
            buf = nb;
        }
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

/* The environment the commands run in: this one, with MB_TEST_BIN first on PATH. Built once,
 * before any fork (a child of a process that may hold threads calls only what is safe). */
static char **sh_env(void)
{
    static char **env;
    if (env)
        return env;
    size_t n = 0;
    while (environ[n])
        n++;
    char **e = calloc(n + 2, sizeof *e);
    if (!e)
        return NULL;
    const char *path = getenv("PATH");
    size_t len = strlen("PATH=:") + strlen(MB_TEST_BIN) + (path ? strlen(path) : 0) + 1;
    char *p = malloc(len);
    if (!p) {
        free(e);
        return NULL;
    }
    snprintf(p, len, "PATH=%s%s%s", MB_TEST_BIN, path ? ":" : "", path ? path : "");
    size_t k = 0;
    e[k++] = p;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "PATH=", 5) != 0)
            e[k++] = environ[i];
    return env = e;
}

/* Starts `sh -c cmd` in the source tree's root with sh_env(), standard input /dev/null and
 * standard output and error into the files out and err. Returns its pid, or -1. */
static pid_t spawn_sh(const char *cmd, const char *out, const char *err)
{
    char **env = sh_env();
    if (!env)
        return -1;
    char *const argv[] = {"sh", "-c", (char *)cmd, NULL};
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    int in = open("/dev/null", O_RDONLY);
    int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (in < 0 || o < 0 || e < 0 || chdir(MB_TEST_SRC) != 0 || dup2(in, 0) < 0 ||
        dup2(o, 1) < 0 || dup2(e, 2) < 0)
        _exit(99);
    if (in > 2)
        close(in);
    if (o > 2)
        close(o);
    if (e > 2)
        close(e);
    execve("/bin/sh", argv, env);
    _exit(127);
}

/* What a finished command with wait status st wrote into dir/NAME.out and dir/NAME.err. */
static void collect(mb_test_run *r, int st, const char *dir, const char *name)
{
    char path[512];
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    snprintf(path, sizeof path, "%s/%s.out", dir, name);
    r->out = slurp_file(path);
    snprintf(path, sizeof path, "%s/%s.err", dir, name);
    r->err = slurp_file(path);
}

/* Runs the command text cmd (mb_test_sh). */
static int run_sh(mb_test_run *r, const char *cmd)
{
    memset(r, 0, sizeof *r);
    char dir[256], out[300], err[300];
    if (mb_test_tmpdir(dir, sizeof dir) != 0)
        return -1;
    snprintf(out, sizeof out, "%s/c.out", dir);
    snprintf(err, sizeof err, "%s/c.err", dir);
    pid_t pid = spawn_sh(cmd, out, err);
    int st = 0;
    while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (pid > 0)
        collect(r, st, dir, "c");
    mb_test_rmdir(dir);
    return pid > 0 ? 0 : -1;
}

int mb_test_sh_pool(mb_test_run *r, const char *const *cmds, size_t n, const int *waits,
                    int jobs)
{
    char dir[256], out[300], err[300];
    memset(r, 0, n * sizeof *r);
    if (mb_test_tmpdir(dir, sizeof dir) != 0)
        return -1;
    pid_t *pid = calloc(n ? n : 1, sizeof *pid);
    if (!pid) {
        mb_test_rmdir(dir);
        return -1;
    }
    int rc = 0;
    /* two lanes: 0 the commands that compute, up to jobs at once; 1 those that mostly wait,
     * up to 2 x jobs */
    size_t next[2] = {0, 0}, running[2] = {0, 0};
    if (jobs < 1)
        jobs = 1;
    for (;;) {
        for (int l = 0; l < 2; l++)
            for (; next[l] < n && running[l] < (size_t)jobs * (l + 1); next[l]++) {
                size_t i = next[l];
                if ((waits && waits[i]) != l)
                    continue;
                snprintf(out, sizeof out, "%s/%zu.out", dir, i);
                snprintf(err, sizeof err, "%s/%zu.err", dir, i);
                pid[i] = spawn_sh(cmds[i], out, err);
                if (pid[i] > 0)
                    running[l]++;
                else
                    rc = -1; /* r[i] is filled below */
            }
        if (running[0] + running[1] == 0)
            break;
        int st;
        pid_t got = waitpid(-1, &st, 0);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            break; /* no child left: cannot happen while one runs */
        }
        for (size_t i = 0; i < n; i++)
            if (pid[i] == got) {
                char name[32];
                snprintf(name, sizeof name, "%zu", i);
                collect(&r[i], st, dir, name);
                pid[i] = 0;
                running[waits && waits[i]]--;
                break;
            }
    }
    for (size_t i = 0; i < n; i++)
        if (!r[i].out) { /* not started, or lost: fails as a crash would */
            r[i].status = -1;
            r[i].out = strdup("");
            r[i].err = strdup("mbtest: this command could not be run\n");
            rc = -1;
        }
    free(pid);
    mb_test_rmdir(dir);
    return rc;
}

int mb_test_jobs(void)
{
    const char *e = getenv("MB_TEST_JOBS");
    char *end;
    long j = e && *e ? strtol(e, &end, 10) : 0;
    return e && *e && *end == '\0' && j >= 1 && j <= 64 ? (int)j : 4;
}

int mb_test_sh(mb_test_run *r, const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    return run_sh(r, cmd);
}

int mb_test_sh_ok(mb_test_run *r, const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    CU_ASSERT_EQUAL_FATAL(run_sh(r, cmd), 0);
    CU_ASSERT_EQUAL(r->status, 0);
    if (r->status != 0)
        fprintf(stderr, "\n  %s -> %d\n%s\n%s", cmd, r->status, r->out, r->err);
    return r->status == 0;
}

void mb_test_run_free(mb_test_run *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

size_t mb_test_lines(const char *s)
{
    size_t n = 0;
    for (; s && *s; s++)
        if (*s == '\n' || s[1] == '\0')
            n++;
    return n;
}

int mb_test_tmpdir(char *buf, size_t n)
{
    const char *base = getenv("TMPDIR");
    snprintf(buf, n, "%s/mbtest.XXXXXX", base && *base ? base : "/tmp");
    return mkdtemp(buf) ? 0 : -1;
}

const char *mb_test_write(char *buf, size_t n, const char *dir, const char *name,
                          const char *text)
{
    snprintf(buf, n, "%s/%s", dir, name);
    FILE *f = fopen(buf, "wb");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return buf;
}

/* nftw's visitor for mb_test_rmdir: removes what it is shown, a folder after what it holds. */
static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    if (remove(path) != 0 && errno != ENOENT)
        fprintf(stderr, "mbtest: could not remove %s\n", path);
    return 0;
}

void mb_test_rmdir(const char *dir)
{
    if (strncmp(dir, "/", 1) == 0 && strstr(dir, "mbtest."))
        nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int mb_test_close(double a, double b, double rel)
{
    if (a == b)
        return 1;
    return fabs(a - b) <= rel * fmax(fabs(a), fabs(b));
}

double mb_test_rel_err(const float *a, const float *ref, size_t n)
{
    double d = 0.0, m = 0.0;
    for (size_t i = 0; i < n; i++) {
        d = fmax(d, fabs((double)a[i] - ref[i]));
        m = fmax(m, fabs((double)ref[i]));
    }
    return m > 0.0 ? d / m : d;
}

void mb_test_expect_failure(const char *prog, const char *args, int status, const char *needle)
{
    mb_test_run r;
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "%s %s", prog, args), 0);
    CU_ASSERT_EQUAL(r.status, status);
    CU_ASSERT_EQUAL(mb_test_lines(r.err), status == 2 ? 2u : 1u);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, needle));
    CU_ASSERT_STRING_EQUAL(r.out, "");
    if (r.status != status || !strstr(r.err, needle))
        fprintf(stderr, "\n  %s %s -> %d: %s", prog, args, r.status, r.err);
    mb_test_run_free(&r);
}

/* Writes one synthetic run log: metadata, rows every `every` updates up to n_cross (where the
 * eval loss first reaches the 0.5 target) with wall_s = update * step_s, or a diverged trailer. */
void mb_test_write_run_log(const char *dir, const char *net, double target, int m, int seed,
                           long n_cross, double step_s, int diverged)
{
    char name[64], path[512];
    snprintf(name, sizeof name, "%s-b%d-s%d.csv", net, m, seed);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "# net=%s\n# algo=momentum\n# batch=%d\n# learners=1\n# lr=0.02\n# seed=%d\n"
               "# target_loss=%g\nupdate,epoch,samples,wall_s,loss,eval_loss,eval_acc\n",
            net, m, seed, target);
    long last = diverged ? n_cross / 2 : n_cross;
    for (long u = 1; u <= last; u++) {
        int eval = u == last || u % 10 == 0;
        double l = diverged ? 2.3 : 0.5 + 0.4 * (double)(n_cross - u) / (double)n_cross;
        if (eval)
            fprintf(f, "%ld,0,%ld,%.9f,%.4f,%.6f,0.8\n", u, u * m, (double)u * step_s, l, l);
        else
            fprintf(f, "%ld,0,%ld,%.9f,%.4f,,\n", u, u * m, (double)u * step_s, l);
    }
    fprintf(f, "# net=%s batch=%d reached=%s diverged=%s\n", net, m, diverged ? "no" : "yes",
            diverged ? "yes" : "no");
    fclose(f);
}

const char *mb_test_python(void)
{
    const char *p = getenv("PYTHON");
    return p && *p ? p : "/usr/bin/python3";
}

static const char *torch_missing_what; /* the suite whose PyTorch is missing */

static void torch_missing(void)
{
    CU_FAIL("python3-torch is not installed");
    fprintf(stderr, "\n    %s: %s cannot import torch; make check installs Debian's "
            "python3-torch (make deps-test) ", torch_missing_what, mb_test_python());
}

int mb_test_need_torch(CU_pSuite s, const char *what, int (*add)(CU_pSuite s))
{
    mb_test_run r;
    int ok = mb_test_sh(&r, "%s -c 'import torch' ", mb_test_python()) == 0 && r.status == 0;
    mb_test_run_free(&r);
    if (ok)
        return add(s);
    torch_missing_what = what;
    return !CU_add_test(s, "python3-torch is installed", torch_missing);
}
