/* mb_test.h — helpers shared by the CUnit suites: running mbkit's commands as a user would
 * (capturing standard output, standard error and the exit status), scratch folders, and
 * approximate comparisons with a stated tolerance.
 */
#ifndef MB_TEST_H
#define MB_TEST_H

#include <CUnit/CUnit.h>
#include <stddef.h>

#ifndef MB_TEST_BIN
#define MB_TEST_BIN "build/release/bin" /* the Makefile passes the absolute path */
#endif
#ifndef MB_TEST_SRC
#define MB_TEST_SRC "."
#endif
#ifndef MB_TEST_MAKE_ARGS
#define MB_TEST_MAKE_ARGS "" /* the make variables of the build under test (BUILD, SAN, CUDA) */
#endif

/* What a command did. Strings are owned by the struct: free with mb_test_run_free. */
typedef struct mb_test_run {
    int status;   /* exit status, or -1 when it did not exit normally (a crash) */
    char *out;    /* everything written to standard output */
    char *err;    /* everything written to standard error */
} mb_test_run;

/* Runs `sh -c CMD` with MB_TEST_BIN first on PATH, in the source tree's root, capturing both
 * streams. Returns 0 when the command could be started. */
int mb_test_sh(mb_test_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same for a command that must succeed: CU-asserts that it started and exited 0, and
 * prints the command, its status and both streams when not. Returns 1 when it exited 0. */
int mb_test_sh_ok(mb_test_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mb_test_run_free(mb_test_run *r);

/* Runs the n commands cmds[0..n-1] as mb_test_sh does, up to `jobs` at a time, and fills r[i]
 * with what command i did, whatever the order they ended in. The commands that waits[i] marks
 * (NULL: none) mostly wait rather than compute (mpirun ending its ranks): up to 2 x `jobs` of
 * them run beside the others, each kind started in table order. Returns 0 when every command
 * could be run (r[i].status -1 and a line on r[i].err for one that could not). */
int mb_test_sh_pool(mb_test_run *r, const char *const *cmds, size_t n, const int *waits,
                    int jobs);
/* How many commands a suite runs at once: $MB_TEST_JOBS (1 to 64), else 4. */
int mb_test_jobs(void);

/* Runs `PROG ARGS` and CU-asserts that it fails with `status`, nothing on standard output and
 * one line on standard error containing `needle` (two for a usage error, status 2: the message
 * and the --help hint); prints the command and what it said when not. */
void mb_test_expect_failure(const char *prog, const char *args, int status, const char *needle);

/* Number of lines in s (a last line without '\n' counts). */
size_t mb_test_lines(const char *s);

/* A fresh scratch folder under $TMPDIR (or /tmp); the returned path is static per call site's
 * buffer: pass a buffer of at least 64 bytes. Returns 0 on success. */
int mb_test_tmpdir(char *buf, size_t n);

/* Writes `text` to dir/name and returns the full path in buf. */
const char *mb_test_write(char *buf, size_t n, const char *dir, const char *name,
                          const char *text);

/* Removes a scratch folder and everything in it. */
void mb_test_rmdir(const char *dir);

/* |a - b| <= rel * max(|a|, |b|), with exact equality accepted (0 == 0). */
int mb_test_close(double a, double b, double rel);

/* max |a - ref| / max |ref| over n floats: an error relative to the tensor's scale (the plain
 * max |a - ref| when ref is all zeros). */
double mb_test_rel_err(const float *a, const float *ref, size_t n);

/* Writes dir/NET-bM-sSEED.csv, a synthetic mbtrain run log (momentum, one learner, lr 0.02):
 * rows every update up to n_cross, where the eval loss (logged every 10 updates and at the end)
 * first reaches `target`, with wall_s = update * step_s; or, diverged, a run that stops halfway
 * and says so. */
void mb_test_write_run_log(const char *dir, const char *net, double target, int m, int seed,
                           long n_cross, double step_s, int diverged);

/* The Python with PyTorch the peer tests run: $PYTHON, else /usr/bin/python3 (Debian's
 * python3-torch installs there; make check apt-gets it, make deps-test). */
const char *mb_test_python(void);

/* Adds to suite s, when mb_test_python() imports torch, the tests the caller adds through
 * add(s) (returns its status); else one test that fails, naming what is missing: the PyTorch
 * side is part of what make check tests, not skipped (`what` names the suite in the line). */
int mb_test_need_torch(CU_pSuite s, const char *what, int (*add)(CU_pSuite s));

#endif /* MB_TEST_H */
