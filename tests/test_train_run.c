/* test_train_run.c — the training run (train/run/run*.c) and the mbtrain command, end to end on small
 * synthetic data and a tiny network so that every test takes well under a second:
 * determinism for a seed, stopping at the target loss, the log's layout, checkpoint and resume
 * (a resumed run continues exactly where the straight run would have been), sweeps, the exact
 * crossing by bisection against an evaluation at every update (and with --check-frac's staged
 * evaluations, and with --levels' checks aimed at the levels above the target), divergence as
 * a logged result,
 * and every bad-input path (one line, exit 1; usage errors exit 2; no log or checkpoint left
 * behind).
 */
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "../data/mb_parse.h"
#include "../data/mb_table.h"
#include "../data/mb_dataset.h"
#include "../net/mb_net.h"
#include "../train/learner/mb_learner.h"
#include "../train/run/mb_run.h"
#include "../train/mb_train.h"
#include "../train/run/run_impl.h"
#include "mb_test.h"

static char dir[256];
static char tiny[512];  /* a tiny net for 1x8x8 inputs, 4 classes */
static char tiny2[512]; /* another tiny net with the same input */

#define DATA "synthetic:n=400,test=100,c=1,h=8,w=8,classes=4,seed=3"

static int setup(void)
{
    if (mb_test_tmpdir(dir, sizeof dir) != 0)
        return 1;
    mb_test_write(tiny, sizeof tiny, dir, "tiny.cfg",
                  "[net]\nname=tiny\nchannels=1\nheight=8\nwidth=8\n"
                  "[conv]\nfilters=4\nsize=3\nactivation=relu\n[maxpool]\nsize=2\n[dropout]\np=0.3\n"
                  "[fc]\noutputs=4\n[softmax]\n");
    mb_test_write(tiny2, sizeof tiny2, dir, "tiny2.cfg",
                  "[net]\nname=tiny2\nchannels=1\nheight=8\nwidth=8\n"
                  "[fc]\noutputs=4\n[softmax]\n");
    return 0;
}

static int teardown(void)
{
    mb_test_rmdir(dir);
    return 0;
}

static int exists(const char *path) { return access(path, F_OK) == 0; }

/* Files in dir whose name contains `part` (to catch left-over temporary files). */
static int count_files(const char *d, const char *part)
{
    DIR *dp = opendir(d);
    int n = 0;
    for (struct dirent *e; dp && (e = readdir(dp));)
        n += strstr(e->d_name, part) != NULL;
    if (dp)
        closedir(dp);
    return n;
}

/* Reads a run log; CU-fails on error. */
static mb_table *read_log(const char *path)
{
    mb_table *t = NULL;
    mb_error err = {0};
    if (mb_table_read(path, &t, &err) != MB_OK)
        printf("\n    %s\n", err.msg);
    return t;
}

/* Column `name` of row r as text. */
static const char *cell(const mb_table *t, size_t r, const char *name)
{
    long c = mb_table_col(t, name);
    return c < 0 ? NULL : mb_table_cell(t, r, (size_t)c);
}

/* The same rows with the same losses, ignoring wall_s. */
static int same_rows(const mb_table *a, const mb_table *b, size_t from, size_t to)
{
    static const char *cols[] = {"update", "epoch", "samples", "loss", "eval_loss", "eval_acc"};
    for (size_t r = from; r < to; r++)
        for (size_t k = 0; k < 6; k++)
            if (strcmp(cell(a, r, cols[k]), cell(b, r, cols[k])) != 0)
                return 0;
    return 1;
}

static void test_log_and_determinism(void)
{
    mb_test_run r1, r2, r3;
    mb_test_sh(&r1, "mbtrain --net %s --data " DATA " --algo momentum --lr 0.05 --batch 16 "
               "--eval-every 5 --max-updates 23 --seed 7 --threads 1 --log %s/a.csv", tiny, dir);
    mb_test_sh(&r2, "mbtrain --net %s --data " DATA " --algo momentum --lr 0.05 --batch 16 "
               "--eval-every 5 --max-updates 23 --seed 7 --threads 1 --log %s/b.csv", tiny, dir);
    mb_test_sh(&r3, "mbtrain --net %s --data " DATA " --algo momentum --lr 0.05 --batch 16 "
               "--eval-every 5 --max-updates 23 --seed 8 --threads 1 --log %s/c.csv", tiny, dir);
    CU_ASSERT_EQUAL(r1.status, 0);
    CU_ASSERT_EQUAL(r2.status, 0);
    CU_ASSERT_EQUAL(r3.status, 0);
    CU_ASSERT_EQUAL(mb_test_lines(r1.out), 1); /* one summary line */
    CU_ASSERT_PTR_NOT_NULL(strstr(r1.out, "updates=23 "));
    CU_ASSERT_PTR_NOT_NULL(strstr(r1.out, "reached=no"));
    CU_ASSERT_STRING_EQUAL(r1.err, ""); /* stderr is not a terminal: no progress bar */
    char pa[512], pb[512], pc[512];
    snprintf(pa, sizeof pa, "%s/a.csv", dir);
    snprintf(pb, sizeof pb, "%s/b.csv", dir);
    snprintf(pc, sizeof pc, "%s/c.csv", dir);
    mb_table *a = read_log(pa), *b = read_log(pb), *c = read_log(pc);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    /* layout: metadata, header, one row per update, eval every 5 and at the last update */
    static const char *keys[] = {"net", "data", "algo", "batch", "learners", "lr", "seed",
                                 "threads", "tool", "version", "host", "date", "command"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        CU_ASSERT_PTR_NOT_NULL(mb_table_meta(a, keys[k]));
    CU_ASSERT_STRING_EQUAL(mb_table_meta(a, "net"), "tiny");
    CU_ASSERT_STRING_EQUAL(mb_table_meta(a, "algo"), "momentum");
    CU_ASSERT_STRING_EQUAL(mb_table_meta(a, "learners"), "1");
    CU_ASSERT_STRING_EQUAL(mb_table_meta(a, "batch"), "16");
    CU_ASSERT_EQUAL(mb_table_cols(a), 8);
    CU_ASSERT_STRING_EQUAL(mb_table_col_name(a, 0), "update");
    CU_ASSERT_STRING_EQUAL(mb_table_col_name(a, 6), "eval_acc");
    CU_ASSERT_STRING_EQUAL(mb_table_col_name(a, 7), "b_simple"); /* test_train_noise.c */
    CU_ASSERT_EQUAL_FATAL(mb_table_rows(a), 23);
    for (size_t r = 0; r < 23; r++) {
        int evaluated = (r + 1) % 5 == 0 || r == 22;
        CU_ASSERT_EQUAL(atol(cell(a, r, "update")), (long)r + 1);
        CU_ASSERT_EQUAL(atol(cell(a, r, "samples")), 16L * ((long)r + 1));
        CU_ASSERT_EQUAL(cell(a, r, "eval_loss")[0] != '\0', evaluated);
        CU_ASSERT_EQUAL(cell(a, r, "eval_acc")[0] != '\0', evaluated);
    }
    /* 400 samples, batch 16: 25 updates per epoch, all of these in epoch 0 */
    CU_ASSERT_STRING_EQUAL(cell(a, 22, "epoch"), "0");
    CU_ASSERT_EQUAL(mb_table_trailers(a), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(mb_table_trailer(a, 0), "updates=23 "));
    /* the same seed gives the same run; another seed does not */
    CU_ASSERT_TRUE(same_rows(a, b, 0, 23));
    CU_ASSERT_FALSE(same_rows(a, c, 0, 23));
    CU_ASSERT_EQUAL(count_files(dir, ".tmp"), 0);
    mb_table_free(a);
    mb_table_free(b);
    mb_table_free(c);
    mb_test_run_free(&r1);
    mb_test_run_free(&r2);
    mb_test_run_free(&r3);
}

static void test_target_loss(void)
{
    mb_test_run r;
    char path[512];
    snprintf(path, sizeof path, "%s/target.csv", dir);
    /* --no-bisect: the crossing is the first evaluated update, a multiple of --eval-every */
    mb_test_sh(&r, "mbtrain --net %s --data " DATA " --algo sgd --lr 0.1 --batch 8 "
               "--eval-every 4 --target-loss 0.9 --epochs 20 --no-bisect --log %s", tiny, path);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "reached=yes"));
    mb_table *t = read_log(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    size_t n = mb_table_rows(t);
    CU_ASSERT_TRUE_FATAL(n > 0);
    CU_ASSERT_EQUAL(n % 4, 0); /* stopped at an evaluation */
    for (size_t i = 3; i < n; i += 4) { /* every earlier evaluation was above the target */
        double e = atof(cell(t, i, "eval_loss"));
        CU_ASSERT_TRUE(i == n - 1 ? e <= 0.9 : e > 0.9);
    }
    char want[64];
    snprintf(want, sizeof want, "reached_update=%zu", n);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, want));
    mb_table_free(t);
    mb_test_run_free(&r);
}

static void test_checkpoint_resume(void)
{
    /* straight: 40 updates; interrupted: stops at 27 with checkpoints at 10 and 20 (the
     * 21..27 rows are lost, as when a run is killed), then resumed to 40. With momentum the
     * velocity must be restored too, and 40 updates of batch 16 cross an epoch (25 per
     * epoch), so the shuffling state must be as well. */
    const char *common = "--data " DATA " --algo nesterov --lr 0.05 --batch 16 --eval-every 6 "
                         "--seed 3 --threads 1";
    mb_test_run r1, r2, r3;
    mb_test_sh(&r1, "mbtrain --net %s %s --max-updates 40 --log %s/straight.csv", tiny, common,
               dir);
    mb_test_sh(&r2, "mbtrain --net %s %s --max-updates 27 --checkpoint %s/ck.bin "
               "--checkpoint-every 10 --log %s/part.csv", tiny, common, dir, dir);
    mb_test_sh(&r3, "mbtrain --net %s %s --max-updates 40 --resume %s/ck.bin --log %s/resumed.csv",
               tiny, common, dir, dir);
    CU_ASSERT_EQUAL(r1.status, 0);
    CU_ASSERT_EQUAL(r2.status, 0);
    CU_ASSERT_EQUAL(r3.status, 0);
    if (r3.status)
        printf("\n    %s", r3.err);
    char ps[512], pr[512];
    snprintf(ps, sizeof ps, "%s/straight.csv", dir);
    snprintf(pr, sizeof pr, "%s/resumed.csv", dir);
    mb_table *s = read_log(ps), *r = read_log(pr);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL_FATAL(mb_table_rows(s), 40);
    CU_ASSERT_EQUAL_FATAL(mb_table_rows(r), 40);
    CU_ASSERT_STRING_EQUAL(cell(r, 39, "epoch"), "1");
    /* rows 1..20 come from the checkpoint; 21..40 are computed after the resume, and the
     * evaluation at 24 and the last one coincide with the straight run's */
    CU_ASSERT_TRUE(same_rows(s, r, 0, 40));
    CU_ASSERT_PTR_NOT_NULL(mb_table_meta(r, "resumed_from"));
    /* and its summary counts the whole run, B_simple included (issue #25, L8): the checkpoint
     * carries the evaluation counts and the gradient noise sums */
    const char *bs = mb_table_meta(s, "b_simple"), *br = mb_table_meta(r, "b_simple");
    CU_ASSERT_PTR_NOT_NULL_FATAL(bs);
    CU_ASSERT_PTR_NOT_NULL_FATAL(br);
    CU_ASSERT_STRING_EQUAL(bs, br);
    static const char *const keys[] = {" evals=", " checks=", " eval_samples=", " b_simple="};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        const char *a = strstr(r1.out, keys[k]), *b = strstr(r3.out, keys[k]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(a);
        CU_ASSERT_PTR_NOT_NULL_FATAL(b);
        size_t n = 1 + strcspn(a + 1, " \n"); /* " key=value" */
        CU_ASSERT_TRUE(n == 1 + strcspn(b + 1, " \n") && strncmp(a, b, n) == 0);
    }
    mb_table_free(s);
    mb_table_free(r);

    /* a checkpoint of another net, batch or algorithm is rejected with one line */
    mb_test_run e;
    mb_test_sh(&e, "mbtrain --net %s %s --max-updates 40 --resume %s/ck.bin --log %s/x.csv", tiny2,
               common, dir, dir);
    CU_ASSERT_EQUAL(e.status, 1);
    CU_ASSERT_EQUAL(mb_test_lines(e.err), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.err, "checkpoint of net 'tiny'"));
    mb_test_run_free(&e);
    mb_test_sh(&e, "mbtrain --net %s --data " DATA " --algo nesterov --batch 8 --seed 3 "
               "--max-updates 40 --resume %s/ck.bin --log %s/x.csv", tiny, dir, dir);
    CU_ASSERT_EQUAL(e.status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.err, "batch 16"));
    mb_test_run_free(&e);
    /* truncated checkpoint */
    mb_test_sh(&e, "head -c 300 %s/ck.bin > %s/short.bin && mbtrain --net %s %s --max-updates 40 "
               "--resume %s/short.bin --log %s/x.csv", dir, dir, tiny, common, dir, dir);
    CU_ASSERT_EQUAL(e.status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.err, "truncated"));
    mb_test_run_free(&e);
    CU_ASSERT_FALSE(exists("x.csv"));
    char px[512];
    snprintf(px, sizeof px, "%s/x.csv", dir);
    CU_ASSERT_FALSE(exists(px));
    CU_ASSERT_EQUAL(count_files(dir, ".tmp"), 0);
    mb_test_run_free(&r1);
    mb_test_run_free(&r2);
    mb_test_run_free(&r3);
}

/* The fuzz harness's seeds (tests/fuzz/corpus/ckpt) are checkpoints of the current format:
 * `whole` decodes as it is, and each body does under the magic, end section and checksum that
 * tests/fuzz/fuzz_ckpt.c puts around it. A seed of an old version is refused at its first bytes
 * and teaches the fuzzer nothing about the checks behind them. */
static void test_fuzz_seeds(void)
{
    static const char *const seeds[] = {"whole", "body_momentum", "body_sgd"};
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
        char path[128];
        snprintf(path, sizeof path, "tests/fuzz/corpus/ckpt/%s", seeds[i]);
        FILE *f = fopen(path, "rb");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        unsigned char *b = malloc(1 << 16);
        CU_ASSERT_PTR_NOT_NULL_FATAL(b);
        int body = i > 0;
        size_t n = fread(b + (body ? 8 : 0), 1, (1 << 16) - 28, f);
        fclose(f);
        if (body) { /* as the harness repairs it */
            memcpy(b, "MBKCKPT", 7);
            b[7] = MB_CKPT_VERSION;
            uint64_t four = 4;
            memcpy(b + 8 + n, "END \0\0\0\0", 8);
            memcpy(b + 16 + n, &four, 8);
            uint32_t crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), b, (uInt)(8 + n));
            memcpy(b + 24 + n, &crc, 4);
            n += 28;
        }
        mb_ckpt c;
        mb_error err = {0};
        int rc = mb_ckpt_decode(b, n, path, &c, &err);
        CU_ASSERT_EQUAL(rc, MB_OK);
        if (rc != MB_OK)
            printf("\n    %s\n", err.msg);
        else
            CU_ASSERT(c.run.updates == 10 && c.run.learners == 1 &&
                      c.lrn[0].meta.has_velocity == (uint32_t)(strcmp(seeds[i], "body_sgd") != 0));
        mb_ckpt_release(&c);
        free(b);
    }
}

static void test_sweep(void)
{
    mb_test_run r;
    mb_test_sh(&r, "mbtrain --net %s --data " DATA " --batch 8,16 --seeds 0:1 --max-updates 3 "
               "--log-dir %s/sweep", tiny, dir);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_EQUAL(mb_test_lines(r.out), 4);
    static const char *names[] = {"tiny-sgd-b8-s0.csv", "tiny-sgd-b8-s1.csv",
                                  "tiny-sgd-b16-s0.csv", "tiny-sgd-b16-s1.csv"};
    for (int i = 0; i < 4; i++) {
        char p[600];
        snprintf(p, sizeof p, "%s/sweep/%s", dir, names[i]);
        CU_ASSERT_TRUE(exists(p));
    }
    mb_test_run_free(&r);
}

/* --eval-samples S: each run of a sweep evaluates every max(K, S / M) updates, and trains as
 * the one run at M with --eval-every max(K, S / M) does (make run's held-out stage: one sweep a
 * seed instead of one process a run). */
static void test_sweep_eval_samples(void)
{
    mb_test_run r;
    mb_test_sh(&r, "cd %s && mbtrain --net %s --data " DATA " --batch 8,16 --seed 2 "
               "--max-updates 20 --eval-every 2 --eval-samples 64 --log-dir es >/dev/null && "
               "mbtrain --net %s --data " DATA " --batch 8 --seed 2 --max-updates 20 "
               "--eval-every 8 --log s8.csv >/dev/null && mbtrain --net %s --data " DATA
               " --batch 16 --seed 2 --max-updates 20 --eval-every 4 --log s16.csv >/dev/null && "
               "rows() { grep -v '^#' $1 | cut -d, -f1-3,5-7; } && "
               "grep -qx '# eval_every=8' es/tiny-sgd-b8-s2.csv && "
               "grep -qx '# eval_every=4' es/tiny-sgd-b16-s2.csv && "
               "[ \"$(rows es/tiny-sgd-b8-s2.csv)\" = \"$(rows s8.csv)\" ] && "
               "[ \"$(rows es/tiny-sgd-b16-s2.csv)\" = \"$(rows s16.csv)\" ] && "
               "[ $(grep -v '^#' s8.csv | cut -d, -f6 | grep -c .) -ge 3 ]",
               dir, tiny, tiny, tiny);
    CU_ASSERT_EQUAL(r.status, 0);
    if (r.status != 0)
        printf("\n    %s", r.err);
    mb_test_run_free(&r);
}

/* A command that must fail with `status`, one line on stderr containing `what`, nothing on
 * stdout. */
static void fails(int status, const char *what, const char *cmd)
{
    mb_test_run r;
    mb_test_sh(&r, "%s", cmd);
    size_t lines = mb_test_lines(r.err);
    int ok = r.status == status && strstr(r.err, what) && r.out[0] == '\0' &&
             lines == (status == 2 ? 2u : 1u);
    if (!ok)
        printf("\n    %s\n    -> %d: %s", cmd, r.status, r.err);
    CU_ASSERT_TRUE(ok);
    mb_test_run_free(&r);
}

static void test_errors(void)
{
    char cmd[2048], bad[512], idx[512], log[512];
    snprintf(log, sizeof log, "%s/never.csv", dir);
    /* usage errors: exit 2 */
    fails(2, "unknown option '--bogus'", "mbtrain --bogus");
    fails(2, "--net is required", "mbtrain --data " DATA);
    snprintf(cmd, sizeof cmd, "mbtrain --net %s --data " DATA " --batch 8,16", tiny);
    fails(2, "needs --log-dir", cmd);
    snprintf(cmd, sizeof cmd, "mbtrain --net %s --data " DATA " --seed 1 --seeds 1:2", tiny);
    fails(2, "--seed or --seeds", cmd);
    snprintf(cmd, sizeof cmd, "mbtrain --net %s --data " DATA " --checkpoint %s/c.bin", tiny, dir);
    fails(2, "--checkpoint-every", cmd);
    /* --levels (issue #23): losses above the target, from the highest down, each once, with a
     * target and something that aims at them */
    static const struct {
        const char *flags, *what;
    } lv[] = {
        {"--levels 0.5", "--levels has no effect without --target-loss"},
        {"--target-loss 0.2 --levels 0.5",
         "--levels has no effect without --check-frac above 0 or --eval-adapt"},
        {"--target-loss 0.2 --check-frac 0.1 --levels 0.5,0.2", "--levels: 0.2 is not above "
         "--target-loss 0.2"},
        {"--target-loss 0.2 --eval-adapt --levels 0.5,0.1", "0.1 is not above --target-loss"},
        {"--target-loss 0.2 --check-frac 0.1 --levels 0.3,0.5", "--levels: '0.3,0.5' is not "
         "from the highest down"},
        {"--target-loss 0.2 --check-frac 0.1 --levels 0.5,0.5", "--levels: 0.5 given twice"},
        {"--target-loss 0.2 --check-frac 0.1 --levels 0.5,,0.3", "--levels: empty item"},
        {"--target-loss 0.2 --check-frac 0.1 --levels 0.5,abc", "'abc' is not a loss > 0"},
        {"--target-loss 0.2 --check-frac 0.1 --levels 0.5,nan", "'nan' is not a loss > 0"},
        {"--target-loss 0.2 --check-frac 0.1 --levels "
         "1.7,1.6,1.5,1.4,1.3,1.2,1.1,1.0,0.9,0.8,0.7,0.6,0.5,0.45,0.4,0.35,0.3",
         "17 levels in"},
    };
    for (size_t i = 0; i < sizeof lv / sizeof lv[0]; i++) {
        snprintf(cmd, sizeof cmd, "mbtrain --net %s --data " DATA " %s --log %s", tiny,
                 lv[i].flags, log);
        fails(2, lv[i].what, cmd);
    }
    /* bad values and files: exit 1, and no log written */
    snprintf(cmd, sizeof cmd, "mbtrain --net %s --data " DATA " --batch 0 --log %s", tiny, log);
    fails(1, "--batch: '0'", cmd);
    snprintf(cmd, sizeof cmd, "mbtrain --net %s --data " DATA " --lr -1 --log %s", tiny, log);
    fails(1, "--lr", cmd);
    snprintf(cmd, sizeof cmd, "mbtrain --net %s --data " DATA " --check-frac 1 --log %s", tiny,
             log);
    fails(1, "--check-frac: must be < 1", cmd);
    snprintf(cmd, sizeof cmd, "mbtrain --net %s --data " DATA " --algo adam --log %s", tiny, log);
    fails(1, "--algo: 'adam'", cmd);
    snprintf(cmd, sizeof cmd, "mbtrain --net %s --data " DATA " --batch 1000 --log %s", tiny, log);
    fails(1, "larger than the 400 training samples", cmd);
    /* the net's input shape must match the data's */
    snprintf(cmd, sizeof cmd, "mbtrain --net lenet5 --data " DATA " --log %s", log);
    fails(1, "takes 1x28x28 inputs", cmd);
    snprintf(cmd, sizeof cmd,
             "mbtrain --net %s --data synthetic:n=100,c=1,h=8,w=8,classes=3 --log %s", tiny, log);
    fails(1, "has 4 classes", cmd);
    /* cfg errors name the file and line */
    mb_test_write(bad, sizeof bad, dir, "badlayer.cfg",
                  "[net]\nchannels=1\nheight=8\nwidth=8\n[lstm]\n[softmax]\n");
    snprintf(cmd, sizeof cmd, "mbtrain --net %s --data " DATA " --log %s", bad, log);
    fails(1, "badlayer.cfg:5: unknown section '[lstm]'", cmd);
    mb_test_write(bad, sizeof bad, dir, "badkey.cfg",
                  "[net]\nchannels=1\nheight=8\nwidth=8\n[fc]\nunits=3\n[softmax]\n");
    snprintf(cmd, sizeof cmd, "mbtrain --net %s --data " DATA " --log %s", bad, log);
    fails(1, "badkey.cfg:6: [fc] unknown key 'units'", cmd);
    mb_test_write(bad, sizeof bad, dir, "nochain.cfg",
                  "[net]\nchannels=1\nheight=8\nwidth=8\n[conv]\nfilters=2\nsize=9\n"
                  "[fc]\noutputs=4\n[softmax]\n");
    snprintf(cmd, sizeof cmd, "mbtrain --net %s --data " DATA " --log %s", bad, log);
    fails(1, "nochain.cfg:5:", cmd);
    fails(1, "no-such-net", "mbtrain --net no-such-net --data " DATA);
    /* a missing and a truncated IDX file */
    snprintf(idx, sizeof idx, "%s/idx", dir);
    snprintf(cmd, sizeof cmd, "mkdir -p %s && mbtrain --net lenet5 --data %s --log %s", idx, idx,
             log);
    fails(1, idx, cmd);
    snprintf(cmd, sizeof cmd,
             "for f in train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte "
             "t10k-labels-idx1-ubyte; do printf '\\000\\000\\010\\003\\000\\000\\000\\012' > "
             "%s/$f; done; mbtrain --net lenet5 --data %s --log %s",
             idx, idx, log);
    fails(1, "idx", cmd);
    CU_ASSERT_FALSE(exists(log));
    CU_ASSERT_EQUAL(count_files(dir, ".tmp"), 0);

    mb_test_run r;
    mb_test_sh(&r, "mbtrain --help");
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "--target-loss"));
    mb_test_run_free(&r);
}

static void count_progress(const mb_run_progress *p, void *ctx)
{
    long *n = ctx;
    CU_ASSERT_EQUAL(p->update, *n + 1);
    (*n)++;
}

/* Options for a run of the tiny net on the test data already loaded into *s, batch 20. */
static void tiny_options(mb_run_options *o, const mb_data_splits *s)
{
    mb_run_options_init(o);
    o->net = tiny;
    o->data = DATA;
    o->splits = s;
    o->batch = 20;
}

/* The library call with data loaded by the caller, a progress callback and option errors. */
static void test_library(void)
{
    mb_data_splits s;
    mb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(mb_data_load(DATA, 0.25, 0, &s, &err), MB_OK);
    mb_run_options o;
    tiny_options(&o, &s);
    o.epochs = 1.5; /* 400 / 20 = 20 updates per epoch: 30 updates */
    long n = 0;
    o.progress = count_progress;
    o.progress_ctx = &n;
    mb_run_result r;
    CU_ASSERT_EQUAL(mb_train_run(&o, &r, &err), MB_OK);
    CU_ASSERT_EQUAL(r.updates, 30);
    CU_ASSERT_EQUAL(n, 30);
    CU_ASSERT_EQUAL(r.samples, 600);
    CU_ASSERT_TRUE(mb_test_close(r.epochs, 1.5, 1e-12));
    CU_ASSERT_STRING_EQUAL(r.net, "tiny");
    CU_ASSERT_TRUE(r.eval_acc >= 0 && r.eval_acc <= 1 && r.test_acc >= 0 && r.test_acc <= 1);
    CU_ASSERT_TRUE(isfinite(r.eval_loss) && isfinite(r.test_loss));
    char line[1024];
    mb_run_result_format(&r, &o, line, sizeof line);
    CU_ASSERT_PTR_NOT_NULL(strstr(line, "updates=30 "));
    CU_ASSERT_PTR_NOT_NULL(strstr(line, "reached=no"));

    o.progress = NULL;
    mb_run_options bad = o;
    bad.eval_every = 0;
    CU_ASSERT_EQUAL(mb_train_run(&bad, &r, &err), MB_EINVAL);
    bad = o;
    bad.epochs = 0;
    CU_ASSERT_EQUAL(mb_train_run(&bad, &r, &err), MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "stopping rule"));
    bad = o;
    bad.checkpoint_path = "x.bin";
    CU_ASSERT_EQUAL(mb_train_run(&bad, &r, &err), MB_EINVAL);
    bad = o;
    bad.optim.lr = 0;
    CU_ASSERT_EQUAL(mb_train_run(&bad, &r, &err), MB_EINVAL);
    bad = o;
    bad.check_frac = 1;
    CU_ASSERT_EQUAL(mb_train_run(&bad, &r, &err), MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "check-frac"));
    bad.check_frac = 0.5;
    bad.check_sigmas = 0;
    CU_ASSERT_EQUAL(mb_train_run(&bad, &r, &err), MB_EINVAL);
    /* levels: with a target, above it, from the highest down, at most MB_RUN_LEVELS_MAX */
    bad = o;
    bad.n_levels = 1;
    bad.levels[0] = 0.9;
    CU_ASSERT_EQUAL(mb_train_run(&bad, &r, &err), MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "without a target"));
    bad.target_loss = 0.9;
    CU_ASSERT_EQUAL(mb_train_run(&bad, &r, &err), MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "not a loss above the target"));
    bad.target_loss = 0.5;
    bad.n_levels = 2;
    bad.levels[1] = 0.95;
    CU_ASSERT_EQUAL(mb_train_run(&bad, &r, &err), MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "from the highest down"));
    bad.n_levels = MB_RUN_LEVELS_MAX + 1;
    CU_ASSERT_EQUAL(mb_train_run(&bad, &r, &err), MB_EINVAL);
    bad = o;
    bad.optim.lr = 1e30; /* diverges: a result (test_diverged), not an error */
    CU_ASSERT_EQUAL(mb_train_run(&bad, &r, &err), MB_OK);
    CU_ASSERT_EQUAL(r.diverged, 1);
    bad = o;
    bad.resume_path = "/nonexistent/ck.bin";
    CU_ASSERT_EQUAL(mb_train_run(&bad, &r, &err), MB_EIO);
    /* --max-seconds: a run out of training seconds stops there, not reached, evaluated last */
    bad = o;
    bad.epochs = 0;
    bad.max_updates = 100000000;
    bad.target_loss = 1e-9;
    bad.max_seconds = 0.05;
    CU_ASSERT_EQUAL(mb_train_run(&bad, &r, &err), MB_OK);
    CU_ASSERT_EQUAL(r.reached, 0);
    CU_ASSERT_TRUE(r.wall_s >= 0.05 && r.updates < 100000000 && isfinite(r.eval_loss));
    bad.max_seconds = -1;
    CU_ASSERT_EQUAL(mb_train_run(&bad, &r, &err), MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "max-seconds"));
    bad.max_seconds = 1;
    bad.par = MB_PAR_SGD_SYNC;
    bad.learners = 2;
    CU_ASSERT_EQUAL(mb_train_run(&bad, &r, &err), MB_ENOTSUP);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--max-seconds"));
    mb_data_splits_free(&s);
}

/* The first row whose eval_loss is <= thr (its update), 0 when none. */
static long first_reaching(const mb_table *t, double thr)
{
    for (size_t i = 0; i < mb_table_rows(t); i++) {
        const char *e = cell(t, i, "eval_loss");
        if (e[0] && atof(e) <= thr)
            return atol(cell(t, i, "update"));
    }
    return 0;
}

/* Bisection over the snapshots finds the update an evaluation at every update finds. On this
 * run (seed 0) the eval loss crosses 0.70 once, at update 110 (0.706 at 104 and 106, 0.672 at
 * 110, under 0.70 from there on), so the single-crossing assumption holds; with --eval-every 12
 * the evaluation at 108 is above and the one at 120 under, and the bisection evaluates 114, 111,
 * 109 and 110. Same binary, same seed, one thread: the runs are bit-identical, so the losses
 * of the bisected rows equal those of the dense run exactly. */
static void test_bisect_crossing(void)
{
    const char *common = "--data " DATA " --algo sgd --lr 0.1 --batch 8 --seed 0 --threads 1 "
                         "--max-updates 150";
    mb_test_run rd, rb, rn;
    mb_test_sh(&rd, "mbtrain --net %s %s --eval-every 1 --target-loss 0.7 --log %s/dense.csv",
               tiny, common, dir);
    mb_test_sh(&rb, "mbtrain --net %s %s --eval-every 12 --target-loss 0.7 --log %s/bisect.csv",
               tiny, common, dir);
    mb_test_sh(&rn, "mbtrain --net %s %s --eval-every 12 --target-loss 0.7 --no-bisect "
               "--log %s/coarse.csv", tiny, common, dir);
    CU_ASSERT_EQUAL(rd.status, 0);
    CU_ASSERT_EQUAL(rb.status, 0);
    CU_ASSERT_EQUAL(rn.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rd.out, "reached_update=110 "));
    CU_ASSERT_PTR_NOT_NULL(strstr(rb.out, "reached_update=110 "));
    CU_ASSERT_PTR_NOT_NULL(strstr(rn.out, "reached_update=120 ")); /* the old, quantised one */
    /* the bisecting run trained to its window's evaluation (120) and evaluated 10 times at the
     * schedule and 4 times in the bisection */
    CU_ASSERT_PTR_NOT_NULL(strstr(rb.out, "updates=120 "));
    CU_ASSERT_PTR_NOT_NULL(strstr(rb.out, "evals=14 "));
    char pd[512], pb[512], pn[512];
    snprintf(pd, sizeof pd, "%s/dense.csv", dir);
    snprintf(pb, sizeof pb, "%s/bisect.csv", dir);
    snprintf(pn, sizeof pn, "%s/coarse.csv", dir);
    mb_table *d = read_log(pd), *b = read_log(pb), *n = read_log(pn);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_PTR_NOT_NULL_FATAL(n);
    CU_ASSERT_STRING_EQUAL(mb_table_meta(b, "crossing"), "bisect");
    CU_ASSERT_STRING_EQUAL(mb_table_meta(n, "crossing"), "evaluated");
    /* what mbfit reads: the first logged row at or under the target is reached_update */
    CU_ASSERT_EQUAL(first_reaching(d, 0.7), 110);
    CU_ASSERT_EQUAL(first_reaching(b, 0.7), 110);
    CU_ASSERT_EQUAL(first_reaching(n, 0.7), 120);
    CU_ASSERT_EQUAL_FATAL(mb_table_rows(b), 120);
    CU_ASSERT_TRUE_FATAL(mb_table_rows(d) >= 110);
    int bisected = 0;
    for (size_t i = 0; i < 120; i++) {
        long u = (long)i + 1;
        const char *eb = cell(b, i, "eval_loss");
        int scheduled = u % 12 == 0, probed = u == 109 || u == 110 || u == 111 || u == 114;
        CU_ASSERT_EQUAL(eb[0] != '\0', scheduled || probed);
        bisected += probed && eb[0];
        /* training is untouched by the evaluations and the snapshot loads: every row's
         * training loss is the dense run's, and every evaluated row's eval loss too */
        if (i < mb_table_rows(d)) {
            CU_ASSERT_STRING_EQUAL(cell(b, i, "loss"), cell(d, i, "loss"));
            if (eb[0]) {
                CU_ASSERT_STRING_EQUAL(eb, cell(d, i, "eval_loss"));
                CU_ASSERT_STRING_EQUAL(cell(b, i, "eval_acc"), cell(d, i, "eval_acc"));
            }
        }
    }
    CU_ASSERT_EQUAL(bisected, 4);
    /* checkpoints keep working: one taken mid-window (at 100, window 97..108) carries the held
     * rows; the run interrupted at 105 and resumed starts a fresh window at 100 and finds the
     * same crossing, with the same rows */
    mb_test_run ri, rr;
    mb_test_sh(&ri, "mbtrain --net %s %s --eval-every 12 --target-loss 0.7 --max-updates 105 "
               "--checkpoint %s/bck.bin --checkpoint-every 10 --log %s/bpart.csv", tiny,
               "--data " DATA " --algo sgd --lr 0.1 --batch 8 --seed 0 --threads 1", dir, dir);
    mb_test_sh(&rr, "mbtrain --net %s %s --eval-every 12 --target-loss 0.7 --resume %s/bck.bin "
               "--log %s/bresumed.csv", tiny, common, dir, dir);
    CU_ASSERT_EQUAL(ri.status, 0);
    CU_ASSERT_EQUAL(rr.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(ri.out, "reached=no"));
    CU_ASSERT_PTR_NOT_NULL(strstr(rr.out, "reached_update=110 "));
    char pr[512];
    snprintf(pr, sizeof pr, "%s/bresumed.csv", dir);
    mb_table *res = read_log(pr);
    CU_ASSERT_PTR_NOT_NULL_FATAL(res);
    CU_ASSERT_EQUAL_FATAL(mb_table_rows(res), 120);
    CU_ASSERT_TRUE(same_rows(b, res, 0, 120));
    mb_table_free(res);
    mb_test_run_free(&ri);
    mb_test_run_free(&rr);
    /* the time to target is the crossing row's wall_s: training seconds, as in the dense log,
     * positive and no more than the run's */
    double wb = atof(cell(b, 109, "wall_s")), wd = atof(cell(d, 109, "wall_s"));
    double wend = atof(cell(b, 119, "wall_s"));
    CU_ASSERT_TRUE(wb > 0 && wd > 0 && wb <= wend);
    char want[64];
    snprintf(want, sizeof want, "reached_wall_s=%.3f ", wb);
    CU_ASSERT_PTR_NOT_NULL(strstr(rb.out, want));
    mb_table_free(d);
    mb_table_free(b);
    mb_table_free(n);
    mb_test_run_free(&rd);
    mb_test_run_free(&rb);
    mb_test_run_free(&rn);
}

/* --eval-adapt finds the crossing that plain spacing and an evaluation at every update find,
 * with fewer evaluations. On this run (seed 0, as in test_bisect_crossing) the eval loss crosses
 * 0.40 at update 182 (measured with --eval-every 1: 182 evaluations; plain --eval-every 5 takes
 * 36 scheduled plus 3 bisection evaluations, 39). The run is long enough for the spacing to
 * widen early on, while the loss is far above the target. */
static void test_eval_adapt(void)
{
    const char *common = "--data " DATA " --algo sgd --lr 0.1 --batch 8 --seed 0 --threads 1 "
                         "--max-updates 400 --target-loss 0.4";
    mb_test_run rd, rp, ra;
    mb_test_sh(&rd, "mbtrain --net %s %s --eval-every 1 --log %s/adense.csv", tiny, common, dir);
    mb_test_sh(&rp, "mbtrain --net %s %s --eval-every 5 --log %s/aplain.csv", tiny, common, dir);
    mb_test_sh(&ra, "mbtrain --net %s %s --eval-every 5 --eval-adapt --log %s/aadapt.csv", tiny,
               common, dir);
    CU_ASSERT_EQUAL(rd.status, 0);
    CU_ASSERT_EQUAL(rp.status, 0);
    CU_ASSERT_EQUAL(ra.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(rd.out, "reached_update=182 "));
    CU_ASSERT_PTR_NOT_NULL(strstr(rp.out, "reached_update=182 "));
    CU_ASSERT_PTR_NOT_NULL(strstr(ra.out, "reached_update=182 "));
    const char *ep = strstr(rp.out, " evals="), *ea = strstr(ra.out, " evals=");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ep);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ea);
    long n_plain = atol(ep + 7), n_adapt = atol(ea + 7);
    CU_ASSERT_EQUAL(n_plain, 39);
    CU_ASSERT_TRUE(n_adapt > 0 && n_adapt < n_plain);
    char pd[512], pa[512], pp[512];
    snprintf(pd, sizeof pd, "%s/adense.csv", dir);
    snprintf(pp, sizeof pp, "%s/aplain.csv", dir);
    snprintf(pa, sizeof pa, "%s/aadapt.csv", dir);
    mb_table *d = read_log(pd), *a = read_log(pa), *p = read_log(pp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(mb_table_meta(a, "eval_adapt"));
    CU_ASSERT_STRING_EQUAL(mb_table_meta(a, "eval_adapt"), "1");
    CU_ASSERT_PTR_NULL(mb_table_meta(p, "eval_adapt")); /* off: the log is as before */
    CU_ASSERT_EQUAL(first_reaching(a, 0.4), 182);
    /* every evaluated row is the dense run's (bit-identical training); consecutive
     * evaluations are at most W = 40 apart, and somewhere more than E = 5 */
    long prev = 0, widest = 0;
    for (size_t i = 0; i < mb_table_rows(a) && i < mb_table_rows(d); i++) {
        const char *e = cell(a, i, "eval_loss");
        CU_ASSERT_STRING_EQUAL(cell(a, i, "loss"), cell(d, i, "loss"));
        if (!e[0])
            continue;
        CU_ASSERT_STRING_EQUAL(e, cell(d, i, "eval_loss"));
        long u = atol(cell(a, i, "update"));
        if (u % 5 != 0) /* off the grid of E: only the bisection, in the last window */
            CU_ASSERT_TRUE(u > 175 && u < 182 + 1);
        if (u % 5 != 0)
            continue;
        CU_ASSERT_TRUE(u - prev <= 40);
        widest = u - prev > widest ? u - prev : widest;
        prev = u;
    }
    CU_ASSERT_TRUE(widest > 5);
    mb_table_free(d);
    mb_table_free(a);
    mb_table_free(p);
    mb_test_run_free(&rd);
    mb_test_run_free(&rp);
    mb_test_run_free(&ra);
}

/* The gap rule (mean rate since the first evaluation, noise margin = largest rise) and the
 * window cap W, on numbers worked by hand. */
static void test_eval_gap_cap(void)
{
    mb_run_pace p;
    mb_run_pace_init(&p);
    /* the first evaluation: E */
    CU_ASSERT_EQUAL(mb_run_eval_gap(&p, 5, 40, 0.5, 10, 1.53), 5);
    /* mean rate (1.53 - 1.3) / 10 = 0.023, no rise yet: 0.5 x 0.8 / 0.023 = 17.39, on the
     * grid of E: 15 */
    CU_ASSERT_EQUAL(mb_run_eval_gap(&p, 5, 40, 0.5, 20, 1.3), 15);
    /* a rise of 0.3 (the margin from now on) above the first: no decline, E */
    CU_ASSERT_EQUAL(mb_run_eval_gap(&p, 5, 40, 0.5, 37, 1.6), 5);
    CU_ASSERT_DOUBLE_EQUAL(p.rise, 0.3, 1e-12);
    /* rate (1.53 - 1.21) / 50 = 0.0064: 0.5 x (1.21 - 0.5 - 0.3) / 0.0064 = 32.03: 30 */
    CU_ASSERT_EQUAL(mb_run_eval_gap(&p, 5, 40, 0.5, 60, 1.21), 30);
    /* rate 0.95 / 90 = 0.0106: 0.5 x (0.58 - 0.5 - 0.3) < 0: dense near the target */
    CU_ASSERT_EQUAL(mb_run_eval_gap(&p, 5, 40, 0.5, 100, 0.58), 5);
    /* within the noise margin, under the target, NaN: E */
    CU_ASSERT_EQUAL(mb_run_eval_gap(&p, 5, 40, 0.5, 110, 0.56), 5);
    CU_ASSERT_EQUAL(mb_run_eval_gap(&p, 5, 40, 0.5, 120, 0.45), 5);
    CU_ASSERT_EQUAL(mb_run_eval_gap(&p, 5, 40, 0.5, 130, NAN), 5);
    /* a slow decline predicts a far crossing: W bounds the gap (0.5 x 1.02 / 0.001 = 510) */
    mb_run_pace_init(&p);
    CU_ASSERT_EQUAL(mb_run_eval_gap(&p, 5, 40, 0.5, 10, 1.53), 5);
    CU_ASSERT_EQUAL(mb_run_eval_gap(&p, 5, 40, 0.5, 20, 1.52), 40);
    mb_run_pace_init(&p); /* a cap off the grid (the 256 MiB bound): the grid point under it */
    CU_ASSERT_EQUAL(mb_run_eval_gap(&p, 5, 38, 0.5, 10, 1.53), 5);
    CU_ASSERT_EQUAL(mb_run_eval_gap(&p, 5, 38, 0.5, 20, 1.52), 35);
    /* W: 8E; E without eval_adapt or a target; lowered so W x params floats <= 256 MiB, never
     * below E */
    mb_run_options o;
    mb_run_options_init(&o);
    o.eval_every = 5;
    CU_ASSERT_EQUAL(mb_run_eval_cap(&o, 61706), 5);
    o.eval_adapt = 1;
    CU_ASSERT_EQUAL(mb_run_eval_cap(&o, 61706), 5); /* no target */
    o.target_loss = 0.5;
    CU_ASSERT_EQUAL(mb_run_eval_cap(&o, 61706), 40);
    CU_ASSERT_EQUAL(mb_run_eval_cap(&o, 10000000), 6); /* 2^28 / 4e7 = 6.7 */
    CU_ASSERT_EQUAL(mb_run_eval_cap(&o, 100000000), 5);
    /* in a run, the snapshot block is W x params floats */
    mb_data_splits s;
    mb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(mb_data_load(DATA, 0.25, 0, &s, &err), MB_OK);
    o.net = tiny;
    o.data = DATA;
    o.splits = &s;
    o.batch = 20; /* as tiny_options, keeping eval_every and eval_adapt set above */
    o.target_loss = 0.01;
    o.max_updates = 50; /* the bound on updates caps a window too: 50 leaves W = 40 */
    mb_run_result r;
    CU_ASSERT_EQUAL(mb_train_run(&o, &r, &err), MB_OK);
    CU_ASSERT_EQUAL(r.snap_bytes, 40 * r.params * sizeof(float));
    o.max_updates = 30; /* a run of 30 updates needs 30 snapshots at most (campaign 5, F24) */
    CU_ASSERT_EQUAL(mb_train_run(&o, &r, &err), MB_OK);
    CU_ASSERT_EQUAL(r.snap_bytes, 30 * r.params * sizeof(float));
    mb_data_splits_free(&s);
}

/* The summary's number after `key` ("evals="), -1 when absent. */
static long summary_long(const char *out, const char *key)
{
    const char *p = strstr(out, key);
    return p ? atol(p + strlen(key)) : -1;
}

/* --check-frac: scheduled evaluations by stages, ruled out part way when the samples seen put
 * the loss clearly above the target. Against an evaluation at every update on a real run (eval
 * subset of 800 samples; the first stage 100, in 8 chunks of 12): the same first crossing as
 * the dense run and as full evaluations every 12 (the eval loss dips under 0.3 at 252 and comes
 * back above, 0.327 at 260), each ruled-out evaluation really above the target, each evaluation
 * that was not ruled out the dense run's value, and fewer full evaluations. */
static void test_eval_check(void)
{
    const char *common = "--data synthetic:n=4000,test=100,c=1,h=8,w=8,classes=4,seed=3 "
                         "--algo sgd --lr 0.1 --batch 8 --seed 0 --threads 1 --max-updates 400 "
                         "--target-loss 0.3";
    mb_test_run rd, rp, rc;
    mb_test_sh(&rd, "mbtrain --net %s %s --eval-every 1 --log %s/cdense.csv", tiny, common, dir);
    mb_test_sh(&rp, "mbtrain --net %s %s --eval-every 12 --log %s/cplain.csv", tiny, common, dir);
    mb_test_sh(&rc, "mbtrain --net %s %s --eval-every 12 --check-frac 0.125 --log %s/ccheck.csv",
               tiny, common, dir);
    CU_ASSERT_EQUAL(rd.status, 0);
    CU_ASSERT_EQUAL(rp.status, 0);
    CU_ASSERT_EQUAL(rc.status, 0);
    long truth = summary_long(rd.out, "reached_update=");
    CU_ASSERT_TRUE_FATAL(truth > 24);
    CU_ASSERT_EQUAL(summary_long(rp.out, "reached_update="), truth);
    CU_ASSERT_EQUAL(summary_long(rc.out, "reached_update="), truth);
    /* every evaluation, scheduled or the bisection's, is either a full one or ruled out, and
     * the bisection visits the same updates: together they are the plain run's evaluations;
     * most were ruled out */
    long ep = summary_long(rp.out, " evals="), ec = summary_long(rc.out, " evals=");
    long checks = summary_long(rc.out, " checks=");
    CU_ASSERT_EQUAL(summary_long(rp.out, " checks="), 0);
    CU_ASSERT_EQUAL(ec + checks, ep);
    CU_ASSERT_TRUE(checks > ep / 2);
    /* the cost in samples: every full evaluation the whole subset (800), a ruled-out one less */
    long sp = summary_long(rp.out, " eval_samples="), sc = summary_long(rc.out, " eval_samples=");
    CU_ASSERT_EQUAL(sp, 800 * ep);
    CU_ASSERT_TRUE(sc > 800 * ec && sc < 800 * ec + 800 * checks);
    char pd[512], pc[512];
    snprintf(pd, sizeof pd, "%s/cdense.csv", dir);
    snprintf(pc, sizeof pc, "%s/ccheck.csv", dir);
    mb_table *d = read_log(pd), *c = read_log(pc);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(mb_table_meta(c, "check_frac"));
    CU_ASSERT_STRING_EQUAL(mb_table_meta(c, "check_frac"), "0.125");
    CU_ASSERT_STRING_EQUAL(mb_table_meta(c, "check_sigmas"), "4");
    CU_ASSERT_PTR_NULL(mb_table_meta(d, "check_frac")); /* off: the log is as before */
    CU_ASSERT_EQUAL(first_reaching(c, 0.3), truth);
    CU_ASSERT_EQUAL_FATAL(mb_table_rows(c), (size_t)((truth + 11) / 12 * 12));
    CU_ASSERT_TRUE_FATAL(mb_table_rows(d) >= (size_t)truth);
    long ruled_out = 0;
    for (size_t i = 0; i < (size_t)truth; i++) {
        const char *e = cell(c, i, "eval_loss"), *de = cell(d, i, "eval_loss");
        CU_ASSERT_STRING_EQUAL(cell(c, i, "loss"), cell(d, i, "loss"));
        if (e[0]) /* summed by chunks: the dense value up to rounding */
            CU_ASSERT_DOUBLE_EQUAL(atof(e), atof(de), 1e-6 * atof(de));
        if ((i + 1) % 12 == 0 && !e[0]) {
            ruled_out++;
            CU_ASSERT_TRUE(atof(de) > 0.3);
        }
    }
    /* the rest of the checks ruled out bisection points, which count as above the target */
    CU_ASSERT_TRUE(ruled_out > 0 && ruled_out <= checks);
    mb_table_free(d);
    mb_table_free(c);
    mb_test_run_free(&rd);
    mb_test_run_free(&rp);
    mb_test_run_free(&rc);
}

/* The check's estimate on numbers worked by hand. */
static void test_check_estimate(void)
{
    const double cur[] = {1, 2, 3, 4}, close[] = {0.9, 2.1, 2.9, 4.1}, flat[] = {1, 4, 4, 1};
    const size_t lo[] = {0, 8}, four[] = {4};
    const double at_ref[] = {2.4};
    double est, se, spread[2];
    /* one stratum of 8, its first 4 seen, no reference: mean 2.5, variance 5/3, se =
     * sqrt(5/3 / 4 x (1 - 4/8)) */
    mb_run_check_estimate(cur, NULL, NULL, lo, four, 1, &est, &se, spread);
    CU_ASSERT_DOUBLE_EQUAL(est, 2.5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(se, sqrt(5.0 / 3 / 4 * 0.5), 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(spread[0], sqrt(5.0 / 3), 1e-12);
    /* on a reference that moves with the samples (deviations -1.6, -0.4, 0.4, 1.6, mean 2.5,
     * the stratum's mean then 2.4): slope b = 5.2 / 5.44, the estimate 2.5 + b (2.4 - 2.5),
     * residual sum of squares 5 - b 5.2 on 2 degrees of freedom: far smaller than the plain */
    mb_run_check_estimate(cur, close, at_ref, lo, four, 1, &est, &se, spread);
    double b = 5.2 / 5.44;
    CU_ASSERT_DOUBLE_EQUAL(est, 2.5 + b * (2.4 - 2.5), 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(se, sqrt((5 - b * 5.2) / 2 / 4 * 0.5), 1e-12);
    CU_ASSERT_TRUE(se < 0.1);
    /* a reference that says nothing about the samples now (no covariance): the plain mean */
    mb_run_check_estimate(cur, flat, at_ref, lo, four, 1, &est, &se, spread);
    CU_ASSERT_DOUBLE_EQUAL(est, 2.5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(se, sqrt(5.0 / 3 / 4 * 0.5), 1e-12);
    /* two strata of 12 positions: the first (4, seen whole: mean 0.15 exactly, no error) and
     * the second (8, the plain case above) weighted 1/3 and 2/3 */
    const double two[] = {0.1, 0.2, 0.1, 0.2, 1, 2, 3, 4};
    const size_t lo2[] = {0, 4, 12}, seen2[] = {4, 4};
    mb_run_check_estimate(two, NULL, NULL, lo2, seen2, 2, &est, &se, spread);
    CU_ASSERT_DOUBLE_EQUAL(est, 0.15 / 3 + 2.5 * 2 / 3, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(se, 2.0 / 3 * sqrt(5.0 / 3 / 4 * 0.5), 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(spread[0], sqrt(0.01 / 3), 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(spread[1], sqrt(5.0 / 3), 1e-12);
    /* the whole of one stratum seen: no error left; one sample of 8: no spread, NaN */
    const size_t whole[] = {8}, one[] = {1};
    const double eight[] = {1, 2, 3, 4, 1, 2, 3, 4};
    mb_run_check_estimate(eight, NULL, NULL, lo, whole, 1, &est, &se, spread);
    CU_ASSERT_DOUBLE_EQUAL(est, 2.5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(se, 0, 1e-12);
    mb_run_check_estimate(cur, NULL, NULL, lo, one, 1, &est, &se, spread);
    CU_ASSERT_TRUE(isnan(est) && isnan(se));
}

/* The check on a real net and data: a full evaluation equals mb_net_evaluate's and cuts the
 * strata (a permutation of the subset, ranked by its losses, each stratum in the subset's
 * order); a check at the same parameters then estimates that loss exactly (the regression on
 * itself) from its first stage and rules out a target below it. */
static void test_check_strata(void)
{
    mb_data_splits data;
    mb_net_desc *desc;
    mb_net *net;
    mb_run_options o;
    mb_run_check c;
    mb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(mb_data_load("synthetic:n=4000,test=100,c=1,h=8,w=8,classes=4,seed=3",
                                       0.2, 1, &data, &err), MB_OK);
    CU_ASSERT_EQUAL_FATAL(mb_net_desc_read(tiny2, &desc, &err), MB_OK);
    mb_net_options no = {.max_batch = 16, .seed = 1, .threads = 1};
    CU_ASSERT_EQUAL_FATAL(mb_net_create(desc, &no, &net, &err), MB_OK);
    mb_run_options_init(&o);
    o.check_frac = 0.5;
    const mb_dataset *e = &data.eval;
    size_t n = e->n;
    CU_ASSERT_EQUAL_FATAL(n, 800);
    CU_ASSERT_EQUAL_FATAL(mb_run_check_init(&c, &o, e, &err), MB_OK);
    double *each = malloc(n * sizeof *each), full, loss, acc, est;
    size_t ok, seen;
    int out;
    CU_ASSERT_EQUAL_FATAL(mb_net_evaluate_each(net, e->x, e->y, n, each, &ok), MB_OK);
    CU_ASSERT_EQUAL(mb_net_evaluate(net, e->x, e->y, n, &full, &ok), MB_OK);
    /* no target can be ruled out: the whole subset */
    CU_ASSERT_EQUAL(mb_run_check_eval(&c, net, e, 1e9, 4, 1e12, &out, &loss, &acc, &est, &seen,
                                      &err), MB_OK);
    CU_ASSERT(!out && seen == n);
    CU_ASSERT_DOUBLE_EQUAL(loss, full, 1e-9 * full);
    CU_ASSERT_DOUBLE_EQUAL(acc, (double)ok / (double)n, 1e-12);
    CU_ASSERT_EQUAL_FATAL(c.strata, MB_RUN_STRATA);
    char *hit = calloc(n, 1);
    for (int h = 0; h < c.strata; h++) {
        CU_ASSERT_EQUAL(c.lo[h + 1] - c.lo[h], n / MB_RUN_STRATA);
        for (size_t p = c.lo[h]; p < c.lo[h + 1]; p++) {
            CU_ASSERT_FATAL(c.order[p] < n);
            hit[c.order[p]]++;
            CU_ASSERT_EQUAL(c.ref[p], each[c.order[p]]);
            if (p > c.lo[h])
                CU_ASSERT(c.order[p] > c.order[p - 1]); /* the subset's order */
            if (h > 0) /* ranked: no loss of a lower stratum above one of this */
                for (size_t q = c.lo[h - 1]; q < c.lo[h]; q++)
                    CU_ASSERT(c.ref[q] <= c.ref[p]);
        }
    }
    for (size_t i = 0; i < n; i++)
        CU_ASSERT_EQUAL(hit[i], 1);
    /* the same parameters: the estimate is the full loss, a target below it is ruled out early */
    CU_ASSERT_EQUAL(mb_run_check_eval(&c, net, e, 0.5 * full, 4, 1e12, &out, &loss, &acc, &est,
                                      &seen, &err), MB_OK);
    CU_ASSERT(out && seen <= (size_t)(c.first + c.strata) * (size_t)c.chunk); /* 1st stage */
    CU_ASSERT_DOUBLE_EQUAL(est, full, 1e-9 * full);
    free(hit);
    free(each);
    mb_run_check_free(&c);
    mb_net_free(net);
    mb_net_desc_free(desc);
    mb_data_splits_free(&data);
}

/* Neyman's allocation of a stage, worked by hand. */
static void test_check_alloc(void)
{
    const long cap[] = {10, 10, 10, 10};
    const double w[] = {1, 1, 1, 5};
    long want[4];
    /* 20 chunks, at least 2 each: 12 left, shared 1:1:1:5 and rounded up (2, 2, 2, 8) */
    mb_run_check_alloc(20, 4, cap, w, 2, want);
    CU_ASSERT(want[0] == 4 && want[1] == 4 && want[2] == 4 && want[3] == 10);
    /* 40: the hardest stratum fills (10), what it cannot take goes to the others */
    mb_run_check_alloc(40, 4, cap, w, 2, want);
    CU_ASSERT(want[0] == 10 && want[1] == 10 && want[2] == 10 && want[3] == 10);
    /* no spread to go on (0, NaN): equal shares */
    const double none[] = {0, NAN};
    mb_run_check_alloc(8, 2, cap, none, 1, want);
    CU_ASSERT(want[0] == 4 && want[1] == 4);
    /* more than there is: every stratum whole; a floor above a stratum's size: the size */
    const long small[] = {1, 5};
    mb_run_check_alloc(100, 2, small, w, 2, want);
    CU_ASSERT(want[0] == 1 && want[1] == 5);
    mb_run_check_alloc(1, 2, small, w, 2, want);
    CU_ASSERT(want[0] == 1 && want[1] == 2);
}

/* The next check's first stage, worked by hand: after a check ruled out at 46 chunks with
 * estimate 1.0, se 0.04, target 0.5, k = 4, the same estimate stands 2k se above the target at
 * 46 (8 x 0.04 / 0.5)^2 = 18.84 chunks: 19; with se 0.01, 1.18: 2, raised to the floor (8 or
 * 2); with se 0.1, 117.8, and a loss closer to the target (0.6 at se 0.02: 117.8 again), more
 * than the check_frac stage (46), which caps it. */
static void test_check_start(void)
{
    CU_ASSERT_EQUAL(mb_run_check_start(46, 1.0, 0.04, 0.5, 4, 8, 46), 19);
    CU_ASSERT_EQUAL(mb_run_check_start(46, 1.0, 0.01, 0.5, 4, 8, 46), 8);
    CU_ASSERT_EQUAL(mb_run_check_start(46, 1.0, 0.01, 0.5, 4, 2, 46), 2);
    CU_ASSERT_EQUAL(mb_run_check_start(46, 1.0, 0.1, 0.5, 4, 8, 46), 46);
    CU_ASSERT_EQUAL(mb_run_check_start(46, 0.6, 0.02, 0.5, 4, 8, 46), 46);
    /* from a later stage: 92 chunks at se 0.01, est 0.9: 92 (0.08 / 0.4)^2 = 3.68: the floor */
    CU_ASSERT_EQUAL(mb_run_check_start(92, 0.9, 0.01, 0.5, 4, 8, 46), 8);
    /* nothing to go on: the check_frac stage */
    CU_ASSERT_EQUAL(mb_run_check_start(46, 0.4, 0.04, 0.5, 4, 8, 46), 46);
    CU_ASSERT_EQUAL(mb_run_check_start(46, NAN, 0.04, 0.5, 4, 8, 46), 46);
    CU_ASSERT_EQUAL(mb_run_check_start(46, 1.0, NAN, 0.5, 4, 8, 46), 46);
    CU_ASSERT_EQUAL(mb_run_check_start(46, 1.0, 0, 0.5, 4, 8, 46), 46);
    CU_ASSERT_EQUAL(mb_run_check_start(0, 1.0, 0.04, 0.5, 4, 8, 46), 46);
}

/* With a large check_frac stage (half of the 800-sample eval subset: 25 chunks of 16) the
 * checks far above the target start on fewer chunks (mb_run_check_start, at least 8): the
 * same first crossing as an evaluation at every update, every ruled-out scheduled evaluation
 * really above the target, and fewer samples than starting every check on the check_frac stage
 * could have seen (each ruled-out check would see at least 400 of them). */
static void test_check_small_start(void)
{
    const char *common = "--data synthetic:n=4000,test=100,c=1,h=8,w=8,classes=4,seed=3 "
                         "--algo sgd --lr 0.1 --batch 8 --seed 0 --threads 1 --max-updates 400 "
                         "--target-loss 0.3";
    mb_test_run rd, rc;
    mb_test_sh(&rd, "mbtrain --net %s %s --eval-every 1 --log %s/sdense.csv", tiny, common, dir);
    mb_test_sh(&rc, "mbtrain --net %s %s --eval-every 12 --check-frac 0.5 --log %s/scheck.csv",
               tiny, common, dir);
    CU_ASSERT_EQUAL(rd.status, 0);
    CU_ASSERT_EQUAL(rc.status, 0);
    long truth = summary_long(rd.out, "reached_update=");
    CU_ASSERT_TRUE_FATAL(truth > 24);
    CU_ASSERT_EQUAL(summary_long(rc.out, "reached_update="), truth);
    long ec = summary_long(rc.out, " evals="), checks = summary_long(rc.out, " checks=");
    long sc = summary_long(rc.out, " eval_samples=");
    CU_ASSERT_TRUE(checks > 5);
    CU_ASSERT_TRUE(sc < 800 * ec + 400 * checks);
    char pd[512], pc[512];
    snprintf(pd, sizeof pd, "%s/sdense.csv", dir);
    snprintf(pc, sizeof pc, "%s/scheck.csv", dir);
    mb_table *d = read_log(pd), *c = read_log(pc);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(first_reaching(c, 0.3), truth);
    CU_ASSERT_TRUE_FATAL(mb_table_rows(d) >= (size_t)truth);
    CU_ASSERT_TRUE_FATAL(mb_table_rows(c) >= (size_t)truth);
    for (size_t i = 0; i < (size_t)truth; i++)
        if ((i + 1) % 12 == 0 && !cell(c, i, "eval_loss")[0])
            CU_ASSERT_TRUE(atof(cell(d, i, "eval_loss")) > 0.3);
    mb_table_free(d);
    mb_table_free(c);
    mb_test_run_free(&rd);
    mb_test_run_free(&rc);
}

/* --levels (issue #23): the checks rule evaluations out against the highest level no full
 * evaluation has reached yet, and --eval-adapt spaces by the distance to it, so the first
 * logged crossing of each level is the one full evaluations every 12 updates give (on this run
 * 0.6, 0.5, 0.4 and the target 0.3 at 132, 156, 216 and 252), for fewer samples. Checks aimed
 * at the target alone rule out evaluations under the levels above it, and the log shows those
 * levels late (0.6 at 192). Every full evaluation is the plain run's value, and every scheduled
 * evaluation ruled out is above the level it was judged against. */
static void test_levels(void)
{
    const char *common = "--data synthetic:n=4000,test=100,c=1,h=8,w=8,classes=4,seed=3 "
                         "--algo sgd --lr 0.1 --batch 8 --seed 0 --threads 1 --max-updates 400 "
                         "--target-loss 0.3 --eval-every 12";
    mb_test_run rp, rl, ra, rt;
    mb_test_sh(&rp, "mbtrain --net %s %s --log %s/lplain.csv", tiny, common, dir);
    mb_test_sh(&rl, "mbtrain --net %s %s --levels 0.6,0.5,0.4 --check-frac 0.125 --eval-adapt "
               "--log %s/llev.csv", tiny, common, dir);
    mb_test_sh(&ra, "mbtrain --net %s %s --levels 0.6,0.5,0.4 --eval-adapt --log %s/ladapt.csv",
               tiny, common, dir);
    mb_test_sh(&rt, "mbtrain --net %s %s --check-frac 0.125 --eval-adapt --log %s/ltarget.csv",
               tiny, common, dir);
    CU_ASSERT_EQUAL(rp.status, 0);
    CU_ASSERT_EQUAL(rl.status, 0);
    CU_ASSERT_EQUAL(ra.status, 0);
    CU_ASSERT_EQUAL(rt.status, 0);
    char pp[512], pl[512], pa[512], pt[512];
    snprintf(pp, sizeof pp, "%s/lplain.csv", dir);
    snprintf(pl, sizeof pl, "%s/llev.csv", dir);
    snprintf(pa, sizeof pa, "%s/ladapt.csv", dir);
    snprintf(pt, sizeof pt, "%s/ltarget.csv", dir);
    mb_table *p = read_log(pp), *l = read_log(pl), *a = read_log(pa), *t = read_log(pt);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    static const double lev[] = {0.6, 0.5, 0.4, 0.3};
    static const long want[] = {132, 156, 216, 252};
    for (int k = 0; k < 4; k++) {
        CU_ASSERT_EQUAL(first_reaching(p, lev[k]), want[k]);
        CU_ASSERT_EQUAL(first_reaching(l, lev[k]), want[k]);
        CU_ASSERT_EQUAL(first_reaching(a, lev[k]), want[k]);
    }
    CU_ASSERT_EQUAL(first_reaching(t, 0.3), 252);
    CU_ASSERT_TRUE(first_reaching(t, 0.6) > 132); /* without the levels: late */
    CU_ASSERT_PTR_NOT_NULL_FATAL(mb_table_meta(l, "levels"));
    CU_ASSERT_STRING_EQUAL(mb_table_meta(l, "levels"), "0.6,0.5,0.4");
    CU_ASSERT_PTR_NULL(mb_table_meta(p, "levels"));
    /* cheaper than full evaluations, dearer than checks aimed at the target alone */
    long sp = summary_long(rp.out, " eval_samples="), sl = summary_long(rl.out, " eval_samples=");
    long st = summary_long(rt.out, " eval_samples="), sa = summary_long(ra.out, " eval_samples=");
    CU_ASSERT_TRUE(sl < sp / 2 && sl > st);
    CU_ASSERT_TRUE(sa <= sp);
    CU_ASSERT_TRUE(summary_long(rl.out, " checks=") > 0);
    CU_ASSERT_TRUE_FATAL(mb_table_rows(l) == 252 && mb_table_rows(p) == 252);
    double low = INFINITY;
    for (size_t i = 0; i < 252; i++) {
        const char *e = cell(l, i, "eval_loss"), *pe = cell(p, i, "eval_loss");
        long u = (long)i + 1;
        CU_ASSERT_STRING_EQUAL(cell(l, i, "loss"), cell(p, i, "loss"));
        if (e[0]) { /* summed by chunks: the plain value up to rounding */
            CU_ASSERT_TRUE_FATAL(pe[0] != '\0');
            CU_ASSERT_DOUBLE_EQUAL(atof(e), atof(pe), 1e-6 * atof(pe));
        }
        if (u % 12 != 0)
            continue;
        double judged = 0.3; /* the highest level above the lowest full loss so far */
        for (int k = 0; k < 3; k++)
            if (!(low <= lev[k])) {
                judged = lev[k];
                break;
            }
        if (!e[0]) /* ruled out or not scheduled: above what it would have been judged against */
            CU_ASSERT_TRUE(atof(pe) > judged);
        if (e[0] && atof(e) < low)
            low = atof(e);
    }
    mb_table_free(p);
    mb_table_free(l);
    mb_table_free(a);
    mb_table_free(t);
    mb_test_run_free(&rp);
    mb_test_run_free(&rl);
    mb_test_run_free(&ra);
    mb_test_run_free(&rt);
}

/* A resumed run's judge aims where the straight run's did: the lowest full loss of the
 * checkpoint's rows says which levels are reached (rows without eval cells say nothing). And
 * the same crossings after a resume with --levels. */
static void test_levels_resume(void)
{
    mb_data_splits s;
    mb_error err = {0};
    mb_net_desc *desc;
    CU_ASSERT_EQUAL_FATAL(mb_data_load(DATA, 0.25, 0, &s, &err), MB_OK);
    CU_ASSERT_EQUAL_FATAL(mb_net_desc_read(tiny, &desc, &err), MB_OK);
    mb_run_options o;
    tiny_options(&o, &s);
    o.target_loss = 0.3;
    o.n_levels = 3;
    o.levels[0] = 0.6, o.levels[1] = 0.5, o.levels[2] = 0.4;
    o.no_bisect = 1;
    mb_run_result r = {.params = 100};
    static const struct {
        const char *rows;
        double level;
    } cases[] = {{NULL, 0.6},
                 {"1,0,20,0.1,1.2,,,\n2,0,40,0.2,1.1,0.75,0.5,\n", 0.6},
                 {"1,0,20,0.1,1.2,0.55,0.5,3.5\n2,0,40,0.2,1.1,,,\n3,0,60,0.3,1,0.58,0.5,\n",
                  0.5},
                 {"1,0,20,0.1,1.2,0.5,0.5,\n", 0.4},
                 {"1,0,20,0.1,1.2,0.35,0.5,\n2,0,40,0.2,1.1,,,2\n", 0.3}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mb_run_mon m;
        char *rows = cases[i].rows ? strdup(cases[i].rows) : NULL;
        size_t len = rows ? strlen(rows) : 0;
        CU_ASSERT_EQUAL_FATAL(mb_run_mon_init(&m, &o, desc, &s, NULL, &r, rows ? 3 : 0, rows, len,
                                              &err), MB_OK);
        CU_ASSERT_DOUBLE_EQUAL(mb_run_mon_level(&m), cases[i].level, 1e-12);
        mb_run_mon_free(&m);
    }
    o.n_levels = 0; /* without levels: the target */
    mb_run_mon m;
    CU_ASSERT_EQUAL_FATAL(mb_run_mon_init(&m, &o, desc, &s, NULL, &r, 0, NULL, 0, &err), MB_OK);
    CU_ASSERT_DOUBLE_EQUAL(mb_run_mon_level(&m), 0.3, 1e-12);
    mb_run_mon_free(&m);
    mb_net_desc_free(desc);
    mb_data_splits_free(&s);

    /* straight, and stopped at 150 with a checkpoint at 140 and resumed: the same crossings */
    const char *common = "--data synthetic:n=4000,test=100,c=1,h=8,w=8,classes=4,seed=3 "
                         "--algo sgd --lr 0.1 --batch 8 --seed 0 --threads 1 --target-loss 0.3 "
                         "--eval-every 12 --levels 0.6,0.5,0.4 --check-frac 0.125";
    mb_test_run ri, rr;
    mb_test_sh(&ri, "mbtrain --net %s %s --max-updates 150 --checkpoint %s/lck.bin "
               "--checkpoint-every 140 --log %s/lpart.csv", tiny, common, dir, dir);
    mb_test_sh(&rr, "mbtrain --net %s %s --max-updates 400 --resume %s/lck.bin "
               "--log %s/lresumed.csv", tiny, common, dir, dir);
    CU_ASSERT_EQUAL(ri.status, 0);
    CU_ASSERT_EQUAL(rr.status, 0);
    if (rr.status)
        printf("\n    %s", rr.err);
    char pr[512];
    snprintf(pr, sizeof pr, "%s/lresumed.csv", dir);
    mb_table *t = read_log(pr);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    static const double lev[] = {0.6, 0.5, 0.4, 0.3};
    static const long want[] = {132, 156, 216, 252};
    for (int k = 0; k < 4; k++)
        CU_ASSERT_EQUAL(first_reaching(t, lev[k]), want[k]);
    CU_ASSERT_STRING_EQUAL(mb_table_meta(t, "levels"), "0.6,0.5,0.4");
    mb_table_free(t);
    mb_test_run_free(&ri);
    mb_test_run_free(&rr);
}

/* A learning rate of 1e30 makes the loss non-finite within a few updates: the run is a
 * result (log written with diverged=U, MB_OK, reached = 0), and mbtrain says so on stderr and
 * goes on with the next seed, exit 0. */
static void test_diverged(void)
{
    mb_data_splits s;
    mb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(mb_data_load(DATA, 0.25, 0, &s, &err), MB_OK);
    mb_run_options o;
    tiny_options(&o, &s);
    o.optim.lr = 1e30;
    o.target_loss = 0.5;
    o.eval_every = 7;
    o.max_updates = 100;
    char path[512];
    snprintf(path, sizeof path, "%s/diverged.csv", dir);
    o.log_path = path;
    mb_run_result r;
    CU_ASSERT_EQUAL(mb_train_run(&o, &r, &err), MB_OK);
    CU_ASSERT_EQUAL(r.diverged, 1);
    CU_ASSERT_EQUAL(r.reached, 0);
    CU_ASSERT_EQUAL(r.reached_update, 0);
    CU_ASSERT_TRUE(r.diverged_update >= 1 && r.diverged_update < 100);
    CU_ASSERT_EQUAL(r.updates, r.diverged_update);
    CU_ASSERT_TRUE(isnan(r.test_loss)); /* garbage parameters are not evaluated */
    mb_table *t = read_log(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    char want[64];
    snprintf(want, sizeof want, "%ld", r.diverged_update);
    CU_ASSERT_PTR_NOT_NULL_FATAL(mb_table_meta(t, "diverged"));
    CU_ASSERT_STRING_EQUAL(mb_table_meta(t, "diverged"), want);
    CU_ASSERT_EQUAL(mb_table_trailers(t), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(mb_table_trailer(t, 0), "diverged=yes"));
    CU_ASSERT_PTR_NOT_NULL(strstr(mb_table_trailer(t, 0), "reached=no"));
    /* every logged number is finite: the row of the non-finite update is not logged (a
     * divergence by the evaluation rule logs its row, with finite values or empty cells) */
    long rows = (long)mb_table_rows(t);
    CU_ASSERT_TRUE(rows == r.diverged_update - 1 || rows == r.diverged_update);
    for (long i = 0; i < rows; i++) {
        double v;
        CU_ASSERT_EQUAL(mb_data_parse_double(cell(t, (size_t)i, "loss"), &v), MB_OK);
    }
    mb_table_free(t);
    mb_data_splits_free(&s);

    /* the command: one line on stderr per divergent run, the sweep goes on, exit 0 */
    mb_test_run c;
    mb_test_sh(&c, "mbtrain --net %s --data " DATA " --lr 1e30 --batch 20 --seeds 0:1 "
               "--target-loss 0.5 --max-updates 50 --log-dir %s/div", tiny, dir);
    CU_ASSERT_EQUAL(c.status, 0);
    CU_ASSERT_EQUAL(mb_test_lines(c.out), 2);
    CU_ASSERT_EQUAL(mb_test_lines(c.err), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "mbtrain: seed 0: diverged at update "));
    CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "mbtrain: seed 1: diverged at update "));
    CU_ASSERT_PTR_NOT_NULL(strstr(c.err, "smaller --lr"));
    CU_ASSERT_PTR_NOT_NULL(strstr(c.out, "diverged=yes"));
    char p1[600];
    snprintf(p1, sizeof p1, "%s/div/tiny-sgd-b20-s1.csv", dir);
    CU_ASSERT_TRUE(exists(p1));
    mb_test_run_free(&c);
}

/* The snapshot block exists only when bisecting: eval_every x params floats with a target,
 * none without one or with no_bisect. */
static void test_snapshot_buffer(void)
{
    mb_data_splits s;
    mb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(mb_data_load(DATA, 0.25, 0, &s, &err), MB_OK);
    mb_run_options o;
    tiny_options(&o, &s);
    o.eval_every = 9;
    o.max_updates = 20;
    mb_run_result r;
    CU_ASSERT_EQUAL(mb_train_run(&o, &r, &err), MB_OK);
    CU_ASSERT_EQUAL(r.snap_bytes, 0);
    CU_ASSERT_EQUAL(r.snap_s, 0);
    o.target_loss = 0.01; /* not reached in 20 updates: the bisection never runs */
    CU_ASSERT_EQUAL(mb_train_run(&o, &r, &err), MB_OK);
    CU_ASSERT_EQUAL(r.snap_bytes, 9 * r.params * sizeof(float));
    CU_ASSERT_EQUAL(r.evals, 3); /* 9, 18 and the last, 20 */
    o.no_bisect = 1;
    CU_ASSERT_EQUAL(mb_train_run(&o, &r, &err), MB_OK);
    CU_ASSERT_EQUAL(r.snap_bytes, 0);
    /* a window never outlasts the run: --eval-every 2^40 with 20 updates at most holds 20
     * snapshots (campaign 5, F24) */
    o.no_bisect = 0;
    o.eval_every = 1L << 40;
    CU_ASSERT_EQUAL(mb_train_run(&o, &r, &err), MB_OK);
    CU_ASSERT_EQUAL(r.snap_bytes, 20 * r.params * sizeof(float));
    /* a window too large to hold is refused up front, naming the way out */
    o.max_updates = 1L << 41;
    o.epochs = 0;
    CU_ASSERT_EQUAL(mb_train_run(&o, &r, &err), MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--no-bisect"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--eval-every 1099511627776"));
    mb_data_splits_free(&s);
}

/* A library caller's checkpoint '-' (standard output: nothing to resume from, and a parallel
 * run's companions would be '-.learners' in the working folder, campaign 39's F2) is refused by
 * the checks every run makes, for one learner and for P, before anything is written; mbtrain
 * names --checkpoint before it gets here (tests/hostile/train.inc). */
static void test_checkpoint_stdout(void)
{
    static const mb_par_algo par[] = {MB_PAR_NONE, MB_PAR_SGD_SYNC};
    for (size_t i = 0; i < sizeof par / sizeof *par; i++) {
        mb_run_options o;
        mb_run_options_init(&o);
        o.net = "lenet5", o.data = "synthetic", o.batch = 8, o.max_updates = 10;
        o.par = par[i], o.learners = i ? 2 : 1;
        o.checkpoint_path = "-", o.checkpoint_every = 5;
        mb_error err = {0};
        CU_ASSERT_EQUAL(mb_run_check_options(&o, &err), MB_EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "checkpoint '-': standard output cannot be read "
                                               "back"));
        o.checkpoint_path = "c.ckpt";
        CU_ASSERT_EQUAL(mb_run_check_options(&o, &err), MB_OK);
    }
}

int mb_test_suite_train_run(void)
{
    CU_pSuite s = CU_add_suite("train_run", setup, teardown);
    return !s || !CU_add_test(s, "run log layout and determinism", test_log_and_determinism) ||
           !CU_add_test(s, "stop at the target loss", test_target_loss) ||
           !CU_add_test(s, "checkpoint and resume", test_checkpoint_resume) ||
           !CU_add_test(s, "fuzz seeds are current checkpoints", test_fuzz_seeds) ||
           !CU_add_test(s, "sweeps over batch and seed", test_sweep) ||
           !CU_add_test(s, "a sweep's --eval-samples: each M as its own run",
                        test_sweep_eval_samples) ||
           !CU_add_test(s, "bad input: one line, exit 1 or 2", test_errors) ||
           !CU_add_test(s, "library call", test_library) ||
           !CU_add_test(s, "a checkpoint to standard output is refused", test_checkpoint_stdout) ||
           !CU_add_test(s, "exact crossing by bisection", test_bisect_crossing) ||
           !CU_add_test(s, "divergence is a logged result", test_diverged) ||
           !CU_add_test(s, "snapshot buffer only when bisecting", test_snapshot_buffer) ||
           !CU_add_test(s, "adaptive evaluation spacing, same crossing", test_eval_adapt) ||
           !CU_add_test(s, "adaptive spacing: gap rule and window cap", test_eval_gap_cap) ||
           !CU_add_test(s, "checks by stages, same crossing", test_eval_check) ||
           !CU_add_test(s, "check estimate, worked by hand", test_check_estimate) ||
           !CU_add_test(s, "check allocation, worked by hand", test_check_alloc) ||
           !CU_add_test(s, "check strata on a real net", test_check_strata) ||
           !CU_add_test(s, "next check's first stage, worked by hand", test_check_start) ||
           !CU_add_test(s, "checks start small far above the target", test_check_small_start) ||
           !CU_add_test(s, "levels: the crossings of full evaluations", test_levels) ||
           !CU_add_test(s, "levels: the judge's aim after a resume", test_levels_resume);
}
