/* mb_test.c — the helpers of mb_test.h. */
#include "mb_test.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CUnit/CUnit.h>

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

/* Runs the command text cmd (mb_test_sh). */
static int run_sh(mb_test_run *r, const char *cmd)
{
    memset(r, 0, sizeof *r);
    char dir[256], full[1024];
    if (mb_test_tmpdir(dir, sizeof dir) != 0)
        return -1;
    char script[300];
    mb_test_write(script, sizeof script, dir, "cmd.sh", cmd);
    snprintf(full, sizeof full,
             "cd '%s' && PATH='%s':\"$PATH\" sh '%s' >'%s/out' 2>'%s/err' </dev/null",
             MB_TEST_SRC, MB_TEST_BIN, script, dir, dir);
    int st = system(full);
    r->status = (st != -1 && WIFEXITED(st)) ? WEXITSTATUS(st) : -1;
    char path[512];
    snprintf(path, sizeof path, "%s/out", dir);
    r->out = slurp_file(path);
    snprintf(path, sizeof path, "%s/err", dir);
    r->err = slurp_file(path);
    mb_test_rmdir(dir);
    return 0;
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

void mb_test_rmdir(const char *dir)
{
    char cmd[600];
    if (strncmp(dir, "/", 1) == 0 && strstr(dir, "mbtest.")) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "mbtest: could not remove %s\n", dir);
    }
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
