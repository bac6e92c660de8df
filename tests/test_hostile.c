/* test_hostile.c — the hostile-input suite of issue #25: table-driven cases for every command,
 * each run as a user would under `timeout` (a case that hangs fails as exit 124), asserting the
 * exit status, the one-line message (two for a usage error: the line and the --help hint),
 * nothing on standard output, and that the output it was pointed at is untouched (a file
 * holding "sentinel" before still holds it, and no temporary is left beside it).
 *
 * Categories (docs/commands.md, "Hardening and fuzzing"): runaway numbers and hangs, FIFOs,
 * symbolic links, silent acceptances (non-integers, duplicates, outputs over inputs), values
 * that are not results (NaN, inf, overflow), sizes (bombs, /dev/zero, huge headers) and
 * misleading messages (subnormals, byte-order marks). A case expected to succeed (status 0)
 * checks what it wrote in its own shell, and only its status is asserted. A table's cases run a
 * few at once (mb_test_sh_pool, MB_TEST_JOBS), each in its own W, and are asserted in order.
 * The tables are tests/hostile/NAME.inc, one a command; what they share, tests/hostile/hostile.h.
 */
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <zlib.h>

#include "mb_test.h"

#include "hostile/hostile.h"

static char dir[256];

/* ---- the cases: one table a command (tests/hostile/NAME.inc) ---------------------------- */

#include "hostile/probe.inc"
#include "hostile/train.inc"
#include "hostile/fit.inc"
#include "hostile/opt.inc"
#include "hostile/plot.inc"

/* ---- fixtures ------------------------------------------------------------------------------ */

static void put(const char *name, const char *text)
{
    char path[512];
    mb_test_write(path, sizeof path, dir, name, text);
}

/* An IDX pair under dir/name: n images of side x side, whose image file is gzip with `extra`
 * zero bytes after what the header promises (a small file that decompresses to much more). */
static int idx_set(const char *name, uint32_t n, uint32_t side, size_t extra, uint32_t claim)
{
    char d[512], p[600];
    snprintf(d, sizeof d, "%s/%s", dir, name);
    if (mkdir(d, 0777) != 0)
        return -1;
    static const char *const img[] = {"train-images-idx3-ubyte.gz", "t10k-images-idx3-ubyte.gz"};
    static const char *const lab[] = {"train-labels-idx1-ubyte.gz", "t10k-labels-idx1-ubyte.gz"};
    static unsigned char zero[1 << 16];
    for (int k = 0; k < 2; k++) {
        snprintf(p, sizeof p, "%s/%s", d, img[k]);
        gzFile g = gzopen(p, "wb9");
        if (!g)
            return -1;
        uint32_t h[4] = {0x803, claim ? claim : n, side, side};
        unsigned char hb[16];
        for (int i = 0; i < 4; i++)
            for (int b = 0; b < 4; b++)
                hb[4 * i + b] = (unsigned char)(h[i] >> (24 - 8 * b));
        gzwrite(g, hb, 16);
        for (size_t left = (size_t)n * side * side + extra; left > 0;) {
            unsigned k2 = left > sizeof zero ? (unsigned)sizeof zero : (unsigned)left;
            gzwrite(g, zero, k2);
            left -= k2;
        }
        gzclose(g);
        snprintf(p, sizeof p, "%s/%s", d, lab[k]);
        g = gzopen(p, "wb");
        if (!g)
            return -1;
        unsigned char lh[8] = {0, 0, 8, 1, (unsigned char)(n >> 24), (unsigned char)(n >> 16),
                               (unsigned char)(n >> 8), (unsigned char)n};
        gzwrite(g, lh, 8);
        for (uint32_t i = 0; i < n; i++)
            gzputc(g, (int)(i % 4));
        gzclose(g);
    }
    return 0;
}

static int setup(void)
{
    if (mb_test_tmpdir(dir, sizeof dir) != 0)
        return 1;
    put("tiny.cfg", "[net]\nname=tiny\nchannels=1\nheight=8\nwidth=8\n"
                    "[conv]\nfilters=2\nsize=3\nactivation=relu\n[maxpool]\nsize=2\n"
                    "[fc]\noutputs=4\n[softmax]\n");
    /* a layer of 5 x 10^14 flops a call (and a 0.5 TB column buffer at M = 1) */
    put("tiny10.cfg", "[net]\nname=tiny\nchannels=1\nheight=8\nwidth=8\n"
                      "[conv]\nfilters=2\nsize=3\nactivation=relu\n[maxpool]\nsize=2\n"
                      "[fc]\noutputs=10\n[softmax]\n"); /* an IDX set's 10 classes */
    put("huge.cfg", "[net]\nname=huge\nchannels=512\nheight=1024\nwidth=1024\n"
                    "[conv]\nfilters=512\nsize=31\n[fc]\noutputs=4\n[softmax]\n");
    put("wide.cfg", "[net]\nname=wide\nchannels=1000000\nheight=1000\nwidth=1000\n"
                    "[conv]\nfilters=4\nsize=1000\n[fc]\noutputs=4\n[softmax]\n");
    put("fc.cfg", "[net]\nname=fc\nchannels=1\nheight=8\nwidth=8\n[fc]\noutputs=4\n[softmax]\n");
    put("nosoftmax.cfg", "[net]\nname=n\nchannels=1\nheight=8\nwidth=8\n[fc]\noutputs=4\n");
    put("dupkey.cfg", "[net]\nname=d\nchannels=1\nheight=8\nheight=8\nwidth=8\n[fc]\noutputs=4\n"
                      "[softmax]\n");
    put("badint.cfg", "[net]\nname=b\nchannels=1\nheight=8\nwidth=8\n[conv]\nfilters=2.5\n"
                      "size=3\n[fc]\noutputs=4\n[softmax]\n");
    put("badcache.csv", "key,reps,t_median_s,t_min_s,t_p25_s,t_p75_s,t_max_s\nk,-3,1,1,1,1,1\n");
    put("notackpt.bin", "MBCKPT3 but not really\n");
    static const char step_head[] =
        "backend,net,batch,learners,threads,reps,t_median_s,t_min_s,t_p25_s,t_p75_s,t_max_s\n"
        "cpu,t,1,1,1,5,0.001,0.001,0.001,0.001,0.001\ncpu,t,2,1,1,5,0.001,0.001,0.001,0.001,"
        "0.001\n";
    char buf[1024];
    snprintf(buf, sizeof buf, "%scpu,t,8.5,1,1,5,0.002,0.002,0.002,0.002,0.002\n", step_head);
    put("step_half.csv", buf);
    snprintf(buf, sizeof buf, "%scpu,t,9223372036854775808,1,1,5,0.002,0.002,0.002,0.002,0.002\n",
             step_head);
    put("step_huge.csv", buf);
    snprintf(buf, sizeof buf, "%scpu,t,8,1.5,1,5,0.002,0.002,0.002,0.002,0.002\n", step_head);
    put("step_p.csv", buf);
    snprintf(buf, sizeof buf, "\xEF\xBB\xBF# net=t\n%scpu,t,64,1,1,5,0.002,0.002,0.002,0.002,"
             "0.002\ncpu,t,128,1,1,5,0.004,0.004,0.004,0.004,0.004\n", step_head);
    put("step_bom.csv", buf);
    snprintf(buf, sizeof buf, "%scpu,t,4,1,1,5,1e308,1,1,1,1\ncpu,t,8,1,1,5,1.7e308,1,1,1,1\n",
             step_head);
    put("step_slow.csv", buf); /* times whose squares overflow: "fitted" to zeros before */
    put("comm_slow.csv", "op,procs,bytes,reps,t_median_s,t_min_s,t_max_s\n"
                         "allreduce,2,4,5,1e308,1,1\nallreduce,2,8,5,1.7e308,1,1\n");
    put("comm_p.csv", "op,procs,bytes,reps,t_median_s,t_min_s,t_max_s\n"
                      "allreduce,2.5,4,5,1e-5,1e-5,1e-5\n");
    put("comm_b.csv", "op,procs,bytes,reps,t_median_s,t_min_s,t_max_s\n"
                      "allreduce,2,4.25,5,1e-5,1e-5,1e-5\n");
    put("points_half.csv", "batch,n_update\n8.5,100\n16,80\n32,70\n");
    put("points_exact.csv", "batch,n_update\n8,2800\n16,1550\n32,925\n64,612.5\n");
    static const char log_meta[] = "# net=lenet5\n# algo=sgd\n# lr=0.05\n# seed=9\n";
    static const char log_rows[] = "update,epoch,samples,wall_s,loss,eval_loss,eval_acc\n"
                                   "0,0,0,0,2.3,2.3,0.1\n10,0,80,0.01,0.4,0.4,0.9\n";
    snprintf(buf, sizeof buf, "%s# batch=8.5\n%s", log_meta, log_rows);
    put("log_half.csv", buf);
    snprintf(buf, sizeof buf, "%s# batch=8\n# learners=1.5\n%s", log_meta, log_rows);
    put("log_lrn.csv", buf);
    snprintf(buf, sizeof buf, "%s# batch=8\nupdate,epoch,samples,wall_s,loss,eval_loss,eval_acc\n"
             "0,0,0,0,2.3,2.3,0.1\n10.5,0,80,0.01,0.4,0.4,0.9\n", log_meta);
    put("log_upd.csv", buf);
    snprintf(buf, sizeof buf, "%s# batch=8\n# batch=16\n%s", log_meta, log_rows);
    put("log_dup.csv", buf);
    put("dup.json", "{\"model\": \"inverse-law\", \"params\": {\"n_inf\": 300, \"n_inf\": 3000, "
                    "\"alpha\": 20000}, \"rows\": [], \"per_m\": []}\n");
    put("unknown_model.json", "{\"model\": \"mystery-law\", \"best\": \"mystery-law\", "
                              "\"params\": {\"n_inf\": 300, \"alpha\": 20000}}\n");
    put("notjson.json", "{\"model\": \n");
    /* a gzip bomb under a small header: 4 images of 8x8 promised, 64 MiB of zeros given */
    if (idx_set("bomb", 4, 8, (size_t)64 << 20, 0) != 0 ||
        idx_set("bigheader", 4, 8, 0, 0x7fffffffu) != 0 || idx_set("small", 16, 8, 0, 0) != 0)
        return 1;
    return 0;
}

static int teardown(void)
{
    mb_test_rmdir(dir);
    return 0;
}

/* ---- the runner ---------------------------------------------------------------------------- */

/* Whether W (case i's dir/cI/w) still holds o = "sentinel" and nothing named o.tmp.* lies
 * beside it. */
static int untouched(size_t i)
{
    char path[512], got[16] = "";
    snprintf(path, sizeof path, "%s/c%zu/w/o", dir, i);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(got, 1, sizeof got - 1, f);
    fclose(f);
    got[n] = '\0';
    if (strcmp(got, "sentinel") != 0)
        return 0;
    snprintf(path, sizeof path, "%s/c%zu/w", dir, i);
    DIR *d = opendir(path);
    int clean = d != NULL;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strncmp(e->d_name, "o.tmp.", 6) == 0)
            clean = 0;
    if (d)
        closedir(d);
    return clean;
}

/* Runs a table's cases mb_test_jobs() at a time, each in its own W, then asserts each in table
 * order. The cases under mpirun run beside as many others: most of their time is mpirun ending
 * the ranks (Open MPI waits a second before each signal when a rank failed), not computing. */
static void run_cases(const char *prog, const hcase *c, size_t n)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    char **cmds = calloc(n, sizeof *cmds);
    int *waits = calloc(n, sizeof *waits);
    mb_test_run *r = calloc(n, sizeof *r);
    CU_ASSERT_FATAL(cmds && waits && r);
    for (size_t i = 0; i < n; i++)
        waits[i] = strstr(c[i].cmd, "mpirun") != NULL;
    for (size_t i = 0; i < n; i++) {
        static const char fmt[] =
            "D='%s'; W=\"$D/c%zu/w\"; E=data/examples; T='timeout -k 1 10'; "
            "mkdir -p \"$W\" && printf sentinel > \"$W/o\" || exit 99; %s";
        size_t len = (size_t)snprintf(NULL, 0, fmt, dir, i, c[i].cmd) + 1;
        if ((cmds[i] = malloc(len)) == NULL)
            break;
        snprintf(cmds[i], len, fmt, dir, i, c[i].cmd);
    }
    CU_ASSERT_FATAL(cmds[n - 1] != NULL);
    CU_ASSERT_EQUAL(mb_test_sh_pool(r, (const char *const *)cmds, n, waits, mb_test_jobs()), 0);
    size_t bad = 0, skipped = 0;
    for (size_t i = 0; i < n; i++) {
        /* a case that needs what this machine does not allow (chattr's flags, a private mount
         * namespace: root with the capabilities) says so in one line, exit 77: skipped, and
         * the line printed */
        const int skip = r[i].status == 77 && strncmp(r[i].err, "skip: ", 6) == 0 &&
                         mb_test_lines(r[i].err) == 1;
        if (skip) {
            skipped++;
            printf("\n    [%s %s] %s", prog, c[i].cat, r[i].err);
        }
        int ok = skip || r[i].status == c[i].status;
        if (ok && !skip && c[i].status != 0) {
            ok = r[i].out[0] == '\0' &&
                 mb_test_lines(r[i].err) == (c[i].status == 2 ? 2u : 1u) &&
                 strstr(r[i].err, c[i].needle) != NULL && untouched(i);
        }
        CU_ASSERT_TRUE(ok);
        if (!ok) {
            bad++;
            printf("\n    [%s %s] %s\n    -> %d (want %d%s%s): %s%s", prog, c[i].cat, c[i].cmd,
                   r[i].status, c[i].status, c[i].needle ? ", " : "",
                   c[i].needle ? c[i].needle : "", r[i].err,
                   untouched(i) ? "" : " (output touched)");
        }
        char w[300];
        snprintf(w, sizeof w, "%s/c%zu", dir, i);
        mb_test_rmdir(w);
        mb_test_run_free(&r[i]);
        free(cmds[i]);
    }
    free(cmds);
    free(waits);
    free(r);
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("\n    %s: %zu hostile cases, %zu failed, %zu skipped, %.1f s", prog, n, bad, skipped,
           (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec));
}

#define RUN(prog, table) run_cases(prog, table, sizeof table / sizeof table[0])

static void test_probe(void) { RUN("mbprobe", probe_cases); }
static void test_train(void) { RUN("mbtrain", train_cases); }
static void test_fit(void) { RUN("mbfit", fit_cases); }
static void test_opt(void) { RUN("mbopt", opt_cases); }
static void test_plot(void) { RUN("mbplot", plot_cases); }

int mb_test_suite_hostile(void)
{
    CU_pSuite s = CU_add_suite("hostile", setup, teardown);
    return !s || !CU_add_test(s, "mbprobe: hostile inputs", test_probe) ||
           !CU_add_test(s, "mbtrain: hostile inputs", test_train) ||
           !CU_add_test(s, "mbfit: hostile inputs", test_fit) ||
           !CU_add_test(s, "mbopt: hostile inputs", test_opt) ||
           !CU_add_test(s, "mbplot: hostile inputs", test_plot);
}
