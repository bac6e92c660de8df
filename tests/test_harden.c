/* test_harden.c — the failures of issue #14, each as a test that failed before the change:
 * outputs that are devices or FIFOs (a FIFO made here, never the system's /dev files) are
 * written in place, standard output errors exit 1 in every command, stale temporaries go
 * away; checkpoints are checked (checksum, every value, the run's identity, the format
 * version) and a resume at the bound reports a real loss; readers refuse values out of range
 * and name the input; command-line lists refuse empty items, duplicate keys and huge ranges.
 */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <zlib.h>

#include "../data/mb_parse.h"
#include "../data/mb_output.h"
#include "../data/mb_json.h"
#include "../data/mb_dataset.h"
#include "../model/mb_model.h"
#include "../train/run/run_impl.h"
#include "mb_test.h"

static char dir[256];
static char tiny[512];
#define DATA "synthetic:n=200,test=40,c=1,h=8,w=8,classes=4,seed=3"
/* the same sample count and shape, other pixels */
#define DATA_OTHER "synthetic:n=200,test=40,c=1,h=8,w=8,classes=4,seed=4"
#define TRAIN "mbtrain --net %s --data %s --algo momentum --lr 0.05 --batch 8 --seed 3 --threads 1"

static int setup(void)
{
    if (mb_test_tmpdir(dir, sizeof dir) != 0)
        return 1;
    mb_test_write(tiny, sizeof tiny, dir, "tiny.cfg",
                  "[net]\nname=tiny\nchannels=1\nheight=8\nwidth=8\n"
                  "[conv]\nfilters=2\nsize=3\nactivation=relu\n[maxpool]\nsize=2\n"
                  "[fc]\noutputs=4\n[softmax]\n");
    return 0;
}

static int teardown(void)
{
    mb_test_rmdir(dir);
    return 0;
}

/* Runs a command expected to fail with `status` and one stderr line containing `needle`. */
static void fails(int status, const char *needle, const char *cmd)
{
    mb_test_run r;
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "%s", cmd), 0);
    CU_ASSERT_EQUAL(r.status, status);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, needle));
    if (r.status != status || !strstr(r.err, needle))
        printf("\n    %s\n    -> %d: %s", cmd, r.status, r.err);
    mb_test_run_free(&r);
}

/* ---- outputs ------------------------------------------------------------------------------- */

/* Reads what is waiting in a FIFO opened non-blocking. */
static size_t drain(int fd, char *buf, size_t n)
{
    size_t got = 0;
    ssize_t k;
    while (got + 1 < n && (k = read(fd, buf + got, n - 1 - got)) > 0)
        got += (size_t)k;
    buf[got] = '\0';
    return got;
}

static void test_fifo_output(void)
{
    char fifo[512];
    snprintf(fifo, sizeof fifo, "%s/out.fifo", dir);
    CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
    /* the reading end, opened first so that the writer does not wait for one */
    int fd = open(fifo, O_RDONLY | O_NONBLOCK);
    CU_ASSERT_FATAL(fd >= 0);
    mb_test_run r;
    mb_test_sh(&r, "mbopt amdahl --gpus 4 --efficiency 0.8 -o %s", fifo);
    CU_ASSERT_EQUAL(r.status, 0);
    mb_test_run_free(&r);
    struct stat st;
    CU_ASSERT_EQUAL(stat(fifo, &st), 0);
    CU_ASSERT_TRUE(S_ISFIFO(st.st_mode)); /* not replaced by a regular file */
    char buf[1 << 16];
    drain(fd, buf, sizeof buf);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "overhead_ratio"));

    /* mbtrain --log into the FIFO: the log arrives, the FIFO stays */
    mb_test_sh(&r, TRAIN " --max-updates 4 --eval-every 2 --log %s", tiny, DATA, fifo);
    CU_ASSERT_EQUAL(r.status, 0);
    mb_test_run_free(&r);
    CU_ASSERT_EQUAL(stat(fifo, &st), 0);
    CU_ASSERT_TRUE(S_ISFIFO(st.st_mode));
    drain(fd, buf, sizeof buf);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "update,epoch,samples"));
    close(fd);
    remove(fifo);
}

/* Every command, with standard output closed: one "write error" line, exit 1. */
static void test_stdout_errors(void)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, TRAIN " --max-updates 2 >&-", tiny, DATA);
    fails(1, "write error", cmd);
    fails(1, "write error", "mbprobe overhead --budget 0.05 --min-reps 10 >&-");
    snprintf(cmd, sizeof cmd,
             "mbprobe learners --net %s --batch 4 --threads 1 --max-learners 2 --budget 0.02 "
             "--min-reps 3 >&-", tiny);
    fails(1, "write error", cmd);
    fails(1, "write error", "mbfit tupdate data/examples/step.csv >&-");
    fails(1, "write error", "mbopt amdahl --gpus 4 --efficiency 0.8 >&-");
    fails(1, "write error", "mbplot --help >&-");
    /* mbplot report prints the report's path */
    snprintf(cmd, sizeof cmd,
             "d=%s/rep && mkdir -p $d && "
             "mbfit nupdate --target-loss 0.5 data/examples/fit_runs/*.csv --json -o $d/nfit.json "
             "2>/dev/null && mbfit tupdate data/examples/step.csv --json -o $d/tfit.json && "
             "mbopt scale --nfit $d/nfit.json --tfit $d/tfit.json --comm none --procs 1:8 --json "
             "-o $d/scale.json && mbplot report $d 2>/dev/null >&- || { echo \"exit $?\" >&2; "
             "exit 1; }", dir);
    mb_test_run r;
    mb_test_sh(&r, "%s", cmd);
    CU_ASSERT_EQUAL(r.status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "exit 1"));
    mb_test_run_free(&r);
}

/* OpenBLAS's kernels: where it fell back to a generic x86 core (Prescott) on a CPU with AVX2,
 * a command runs itself again with OPENBLAS_CORETYPE set, so the last core OpenBLAS names is
 * not the generic one (data/cli.c, blas_core_wanted); a core the user set stands. */
static void test_blas_core(void)
{
    mb_test_run r;
    mb_test_sh(&r, "env -u OPENBLAS_CORETYPE OPENBLAS_VERBOSE=2 mbtrain --help 2>&1 | "
               "grep '^Core: ' | tr '\\n' ' '");
    CU_ASSERT_EQUAL(r.status, 0);
    __builtin_cpu_init();
    if (strncmp(r.out, "Core: Prescott", 14) == 0 && __builtin_cpu_supports("avx2") &&
        __builtin_cpu_supports("fma")) {
        CU_ASSERT_TRUE(strstr(r.out, "Core: SkylakeX") || strstr(r.out, "Core: Haswell"));
    } else { /* OpenBLAS knew the CPU: the program ran once */
        CU_ASSERT_PTR_NULL(strstr(r.out + 1, "Core: "));
    }
    mb_test_run_free(&r);
    mb_test_sh(&r, "OPENBLAS_CORETYPE=Prescott OPENBLAS_VERBOSE=2 mbtrain --help 2>&1 | "
               "grep -c '^Core: Prescott$'");
    CU_ASSERT_STRING_EQUAL(r.out, "1\n");
    mb_test_run_free(&r);
}

static void test_stale_temporaries(void)
{
    /* a writer that was killed: a temporary named after a process that has exited */
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    waitpid(child, NULL, 0);
    char dead[600], live[600], mine[600], out[512];
    snprintf(out, sizeof out, "%s/amdahl.txt", dir);
    snprintf(dead, sizeof dead, "%s.tmp.%ld.Ab3dEf", out, (long)child);
    snprintf(live, sizeof live, "%s.tmp.%ld.Gh5jKl", out, (long)getpid());
    /* campaign 34's R2: a user's file in the shape of the pid-less temporaries of versions
     * before the first hardening round was removed by the next write */
    snprintf(mine, sizeof mine, "%s.tmp.backup", out);
    FILE *f = fopen(dead, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fclose(f);
    f = fopen(live, "w"); /* a write still in progress (this process is alive) */
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fclose(f);
    f = fopen(mine, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fclose(f);
    mb_test_run r;
    mb_test_sh(&r, "mbopt amdahl --gpus 4 --efficiency 0.8 -o %s", out);
    CU_ASSERT_EQUAL(r.status, 0);
    mb_test_run_free(&r);
    CU_ASSERT_NOT_EQUAL(access(dead, F_OK), 0);
    CU_ASSERT_EQUAL(access(live, F_OK), 0);
    CU_ASSERT_EQUAL(access(mine, F_OK), 0);
    CU_ASSERT_EQUAL(access(out, F_OK), 0);
    remove(live);
    remove(mine);
}

/* ---- checkpoints --------------------------------------------------------------------------- */

typedef struct ckfile {
    unsigned char *b;
    size_t n;
    size_t run, log, lrn; /* payload offsets of the RUN, LOG and first LRN sections */
    size_t log_len;
} ckfile;

static int ck_load(const char *path, ckfile *c)
{
    memset(c, 0, sizeof *c);
    char *buf;
    if (mb_data_read_file(path, &buf, &c->n, NULL) != MB_OK)
        return -1;
    c->b = (unsigned char *)buf;
    for (size_t at = 8; at + 16 <= c->n - 20;) {
        uint64_t len;
        memcpy(&len, c->b + at + 8, sizeof len);
        if (!memcmp(c->b + at, "RUN ", 4)) c->run = at + 16;
        if (!memcmp(c->b + at, "LOG ", 4)) c->log = at + 16, c->log_len = len;
        if (!memcmp(c->b + at, "LRN ", 4) && !c->lrn) c->lrn = at + 16;
        at += 16 + len;
    }
    return c->run && c->log && c->lrn ? 0 : -1;
}

/* Writes c to dir/name with the checksum made valid again (so that the value checks behind it
 * are what refuses the file), or left as it is when `fix` is 0. */
static void ck_save(const ckfile *c, const char *name, int fix)
{
    if (fix) {
        uint32_t crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), c->b, (uInt)(c->n - 20));
        memcpy(c->b + c->n - 4, &crc, 4);
    }
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fwrite(c->b, 1, c->n, f);
    fclose(f);
}

static void resume_fails(const char *name, const char *data, const char *extra,
                         const char *needle)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, TRAIN " --max-updates 30 %s --resume %s/%s --log %s/r.csv", tiny,
             data, extra, dir, name, dir);
    fails(1, needle, cmd);
    char log[600];
    snprintf(log, sizeof log, "%s/r.csv", dir);
    CU_ASSERT_NOT_EQUAL(access(log, F_OK), 0);
}

static void test_checkpoint_checks(void)
{
    mb_test_run r;
    mb_test_sh(&r, TRAIN " --max-updates 20 --eval-every 5 --checkpoint %s/ck.bin "
               "--checkpoint-every 10 --log %s/a.csv", tiny, DATA, dir, dir);
    CU_ASSERT_EQUAL_FATAL(r.status, 0);
    mb_test_run_free(&r);
    char path[600];
    snprintf(path, sizeof path, "%s/ck.bin", dir);
    ckfile c;
    CU_ASSERT_EQUAL_FATAL(ck_load(path, &c), 0);
    const ckpt_run *h0 = (const ckpt_run *)(c.b + c.run);
    CU_ASSERT_EQUAL(h0->updates, 20);
    CU_ASSERT(h0->ckpt_s > 0); /* the write at update 10, carried (campaign 30's C7) */
    unsigned char *keep = malloc(c.n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(keep);
    memcpy(keep, c.b, c.n);
#define RESET() memcpy(c.b, keep, c.n)
    const size_t params = c.lrn + sizeof(ckpt_learner);
    const size_t vel = params + h0->params * sizeof(float);
    ckpt_run h;

    /* a flipped bit in the parameters: the checksum */
    c.b[params + 17] ^= 0x10;
    ck_save(&c, "flip.bin", 0);
    resume_fails("flip.bin", DATA, "", "checksum mismatch");
    RESET();
    /* NaN and inf parameters, a NaN velocity, with a valid checksum */
    float nan = NAN, inf = INFINITY;
    memcpy(c.b + params + 8, &nan, 4);
    ck_save(&c, "nanp.bin", 1);
    resume_fails("nanp.bin", DATA, "", "non-finite parameters");
    RESET();
    memcpy(c.b + params, &inf, 4);
    ck_save(&c, "infp.bin", 1);
    resume_fails("infp.bin", DATA, "", "non-finite parameters");
    RESET();
    memcpy(c.b + vel + 4, &nan, 4);
    ck_save(&c, "nanv.bin", 1);
    resume_fails("nanv.bin", DATA, "", "non-finite velocities");
    RESET();
    /* wall time: NaN, negative */
    static const double walls[] = {NAN, -3.0, 1e300};
    for (int i = 0; i < 3; i++) {
        memcpy(&h, c.b + c.run, sizeof h);
        h.wall_s = walls[i];
        memcpy(c.b + c.run, &h, sizeof h);
        ck_save(&c, "wall.bin", 1);
        resume_fails("wall.bin", DATA, "", "wall time");
        RESET();
    }
    /* absurd counts: updates, samples, epoch */
    memcpy(&h, c.b + c.run, sizeof h);
    h.updates = (int64_t)1 << 50;
    h.samples = (uint64_t)h.updates * 8;
    memcpy(c.b + c.run, &h, sizeof h);
    ck_save(&c, "upd.bin", 1);
    resume_fails("upd.bin", DATA, "", "corrupt checkpoint");
    RESET();
    memcpy(&h, c.b + c.run, sizeof h);
    h.samples = 123456789;
    memcpy(c.b + c.run, &h, sizeof h);
    ck_save(&c, "smp.bin", 1);
    resume_fails("smp.bin", DATA, "", "sample count");
    RESET();
    ckpt_learner m;
    memcpy(&m, c.b + c.lrn, sizeof m);
    m.epoch = 1000000;
    memcpy(c.b + c.lrn, &m, sizeof m);
    ck_save(&c, "epoch.bin", 1);
    resume_fails("epoch.bin", DATA, "", "epoch");
    RESET();
    /* the version-8 counts (issue #25, L7, L8): a layer count, evaluation counts and noise
     * sums out of range */
    for (int i = 0; i < 4; i++) {
        memcpy(&h, c.b + c.run, sizeof h);
        if (i == 0)
            h.net_layers = 0;
        else if (i == 1)
            h.evals = -1;
        else if (i == 2)
            h.noise_win_n = h.noise_run_n + 1;
        else
            h.noise_run[1] = NAN;
        memcpy(c.b + c.run, &h, sizeof h);
        ck_save(&c, "cnt.bin", 1);
        static const char *const why[] = {"layer count", "evaluation counts",
                                          "gradient noise sums", "gradient noise sums"};
        resume_fails("cnt.bin", DATA, "", why[i]);
        RESET();
    }
    /* the version-9 levels (issue #23): a count out of range, levels without a target (this
     * run has none), levels out of order, a stray value past the count */
    for (int i = 0; i < 4; i++) {
        memcpy(&h, c.b + c.run, sizeof h);
        h.n_levels = 2;
        h.levels[0] = 0.9;
        h.levels[1] = 0.8;
        if (i == 0)
            h.n_levels = MB_RUN_LEVELS_MAX + 1;
        else if (i == 2)
            h.target_loss = 0.5, h.levels[1] = 0.95;
        else if (i == 3)
            h.target_loss = 0.5, h.levels[5] = 0.7;
        memcpy(c.b + c.run, &h, sizeof h);
        ck_save(&c, "lev.bin", 1);
        resume_fails("lev.bin", DATA, "", i < 2 ? "level count" : "levels out of range");
        RESET();
    }
    /* the version-11 fields (campaign 30's C6, C7): SMA's tuning flag and window out of range,
     * the checkpoints' seconds not finite or negative */
    for (int i = 0; i < 5; i++) {
        memcpy(&h, c.b + c.run, sizeof h);
        if (i == 0)
            h.sma_tune = 2, h.sma_window = 20;
        else if (i == 1)
            h.sma_window = 20; /* a window without the tuning */
        else if (i == 2)
            h.sma_tune = 1; /* the tuning without its window */
        else
            h.ckpt_s = i == 3 ? NAN : -1.0;
        memcpy(c.b + c.run, &h, sizeof h);
        ck_save(&c, "v11.bin", 1);
        resume_fails("v11.bin", DATA, "", i < 3 ? "SMA tuning settings" : "checkpoint writing time");
        RESET();
    }
    /* garbage in the stored log rows */
    memcpy(c.b + c.log + 2, "x!", 2);
    ck_save(&c, "log.bin", 1);
    resume_fails("log.bin", DATA, "", "log rows");
    RESET();
    /* another format version */
    c.b[7] = '2';
    ck_save(&c, "v2.bin", 0);
    resume_fails("v2.bin", DATA, "", "format version 2");
    RESET();

    /* the run's identity: another data set with the same sample count, another seed */
    resume_fails("ck.bin", DATA_OTHER, "", "another data set");
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "mbtrain --net %s --data %s --algo momentum --lr 0.05 --batch 8 --seed 4 "
             "--threads 1 --max-updates 30 --resume %s/ck.bin --log %s/r.csv",
             tiny, DATA, dir, dir);
    fails(1, "checkpoint of seed 3, this run has seed 4", cmd);
    snprintf(cmd, sizeof cmd,
             "mbtrain --net %s --data %s --algo momentum --lr 0.05 --batch 8 --seed 3 "
             "--threads 1 --eval-frac 0.3 --max-updates 30 --resume %s/ck.bin --log %s/r.csv",
             tiny, DATA, dir, dir);
    fails(1, "another data set", cmd);

    /* the unchanged file is still accepted (with its --eval-every: the log states one for
     * every row), and a resume at its bound reports its loss */
    mb_test_sh(&r, TRAIN " --max-updates 20 --eval-every 5 --resume %s/ck.bin --log %s/b.csv",
               tiny, DATA, dir, dir);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "updates=20 "));
    CU_ASSERT_PTR_NULL(strstr(r.out, "loss=nan"));
    mb_test_run_free(&r);
    /* and one past it is refused */
    snprintf(cmd, sizeof cmd, TRAIN " --max-updates 15 --eval-every 5 --resume %s/ck.bin --log "
             "%s/r.csv", tiny, DATA, dir, dir);
    fails(1, "past this run's bound", cmd);
    free(keep);
    free(c.b);
#undef RESET
}

/* ---- readers and lists ---------------------------------------------------------------------- */

static void test_lists(void)
{
    mb_range r;
    mb_error err = {0};
    CU_ASSERT_EQUAL(mb_data_parse_range("0.5,,", "--x", &r, &err), MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "empty item"));
    CU_ASSERT_EQUAL(mb_data_parse_range("8,", "--x", &r, &err), MB_EINVAL);
    CU_ASSERT_EQUAL(mb_data_parse_range("1:1e30", "--x", &r, &err), MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "2^53"));
    CU_ASSERT_EQUAL(mb_data_parse_range("4:4M", "--x", &r, &err), MB_OK);
    CU_ASSERT_EQUAL(r.n, 21u);
    mb_data_range_free(&r);
    mb_synthetic p;
    CU_ASSERT_EQUAL(mb_synthetic_parse("synthetic:n=100,n=200", &p, &err), MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'n' given twice"));
    CU_ASSERT_EQUAL(mb_synthetic_parse("synthetic:n=100,,c=1", &p, &err), MB_EINVAL);
    CU_ASSERT_EQUAL(mb_synthetic_parse("synthetic:n=100,c=1", &p, &err), MB_OK);
    fails(1, "empty item", "mbfit nupdate --target-loss 0.5,, data/examples/fit_runs/run_M16_s0.csv");
    fails(1, "empty item", "mbtrain --net lenet5 --data synthetic --seeds 1,,2");
    fails(1, "whole number", "mbopt amdahl --gpus 1e30 --efficiency 0.5");
}

static void test_fit_readers(void)
{
    char path[600], cmd[1200];
    mb_test_write(path, sizeof path, dir, "cols.csv", "a,b\n1,2\n");
    snprintf(cmd, sizeof cmd, "mbfit nupdate %s", path);
    fails(1, "neither a run log", cmd);
    mb_test_write(path, sizeof path, dir, "dup.csv",
                  "# batch=16\n# batch=32\nupdate,epoch,samples,wall_s,loss,eval_loss,eval_acc\n"
                  "1,0,16,0.1,2.3,0.4,0.5\n");
    snprintf(cmd, sizeof cmd, "mbfit nupdate --target-loss 0.5 %s", path);
    fails(1, "'batch' given twice", cmd);
    mb_test_write(path, sizeof path, dir, "huge.csv",
                  "batch,n_update\n8,1e308\n16,1e308\n32,1e308\n64,1e308\n");
    snprintf(cmd, sizeof cmd, "mbfit nupdate %s", path);
    fails(1, "huge.csv:2: field 'n_update'", cmd);
}

static void test_amdahl_design(void)
{
    mb_test_run r;
    /* huge inputs: E = (1 + R) / (1 + G R) underflowed to 0 and the speed-up with it */
    mb_test_sh(&r, "mbopt amdahl --overhead-ratio 1e300 --gpus 9007199254740992 --json");
    CU_ASSERT_EQUAL(r.status, 0);
    cJSON *j = cJSON_Parse(r.out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    CU_ASSERT_TRUE(mb_json_get(j, "speedup") > 0.5);
    CU_ASSERT_TRUE(mb_json_get(j, "efficiency") > 0);
    cJSON_Delete(j);
    mb_test_run_free(&r);
    /* a computed device count is whole (speed-up and efficiency given: rounded up) */
    mb_test_sh(&r, "mbopt amdahl --speedup 3 --efficiency 0.7 --json");
    CU_ASSERT_EQUAL(r.status, 0);
    j = cJSON_Parse(r.out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    double g = mb_json_get(j, "gpus");
    CU_ASSERT_EQUAL(g, floor(g));
    CU_ASSERT_TRUE(g * mb_json_get(j, "efficiency") >= 3 - 1e-9);
    cJSON_Delete(j);
    mb_test_run_free(&r);
    fails(1, "whole number", "mbopt amdahl --gpus 3.5 --efficiency 0.5");
    /* a budget of 1e300 learners spun forever in the whole-learner search */
    fails(1, "past 2^53",
          "timeout 60 mbopt design --n-inf 1200 --alpha 3.5e5 --gamma 2e-5 --m-t 32 "
          "--delta 0.004 --budget 1e300 --price-learner 1 --price-bandwidth 1e-5 "
          "--bandwidth-ref 1G");
}

/* mbopt design's answer at extreme prices against a brute-force scan of every whole P on the
 * budget line (the extremes of the issue: bandwidth nearly free or unaffordable, the reference
 * bandwidth at 1e-300 or 1e300, a budget of 1e300). Equal to 1e-9: both evaluate the same T_C
 * at the same whole P. */
static void test_design_brute_force(void)
{
    mb_inverse_law law = {1237, 3.41e5};
    mb_update_time t;
    memset(&t, 0, sizeof t);
    t.gamma = 2.07e-5, t.m_t = 31, t.comm = MB_COMM_ALLREDUCE, t.delta = 0.0043;
    static const double cases[][4] = {
        {1e5, 2000, 1e-5, 1073741824.0}, {1e5, 2000, 1e-300, 1073741824.0},
        {1e5, 2000, 1e300, 1073741824.0}, {1e5, 2000, 1e-5, 1e-300},
        {1e5, 2000, 1e-5, 1e300},         {1e5, 3, 1e3, 1e9},
        {1e300, 1e295, 1e290, 1e9},       {3e4, 0.7, 1e-9, 1e9}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        mb_design_problem pr = {cases[k][0], cases[k][1], cases[k][2], cases[k][3]};
        mb_design d;
        CU_ASSERT_EQUAL_FATAL(mb_model_design(&law, &t, &pr, &d), MB_OK);
        double best = INFINITY, bp = 0;
        for (double p = 1; p <= pr.budget / pr.price_learner; p += 1) {
            double b = (pr.budget - pr.price_learner * p) / pr.price_bandwidth;
            mb_update_time s = t;
            if (p > 1 && !(b > 0))
                continue;
            if (p > 1)
                s.delta *= pr.bandwidth_ref / b;
            mb_optimum o;
            if (mb_model_optimum(&law, &s, p, &o) == MB_OK && o.t_c < best)
                best = o.t_c, bp = p;
        }
        CU_ASSERT_TRUE(mb_test_close(d.whole_t_c, best, 1e-9));
        if (!mb_test_close(d.whole_t_c, best, 1e-9))
            printf("\n    case %zu: design P %g T_C %.9g, scan P %g T_C %.9g", k,
                   d.whole_learners, d.whole_t_c, bp, best);
    }
}

static void test_plot_readers(void)
{
    char path[600], cmd[4096];
    static const struct {
        const char *sub, *name, *text, *needle;
    } bad[] = {
        {"step", "neg_time.csv",
         "batch,learners,threads,t_median_s,t_p25_s,t_p75_s\n8,1,1,-0.1,0.1,0.2\n",
         "neg_time.csv:2: field 't_median_s'"},
        {"step", "zero_procs.csv",
         "batch,learners,threads,t_median_s,t_p25_s,t_p75_s\n8,0,1,0.1,0.1,0.2\n",
         "zero_procs.csv:2: field 'learners'"},
        {"comm", "neg_bytes.csv",
         "op,procs,bytes,t_median_s,t_min_s,t_max_s\nallreduce,2,-4,0.1,0.1,0.2\n",
         "neg_bytes.csv:2: field 'bytes'"},
        {"comm", "text_procs.csv",
         "op,procs,bytes,t_median_s,t_min_s,t_max_s\nallreduce,two,4,0.1,0.1,0.2\n",
         "text_procs.csv:2: field 'procs'"},
        {"comm", "zero_procs2.csv",
         "op,procs,bytes,t_median_s,t_min_s,t_max_s\nallreduce,0,4,0.1,0.1,0.2\n",
         "zero_procs2.csv:2: field 'procs'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mb_test_write(path, sizeof path, dir, bad[i].name, bad[i].text);
        snprintf(cmd, sizeof cmd, "mbplot %s %s -o %s/fig.png", bad[i].sub, path, dir);
        fails(1, bad[i].needle, cmd);
    }
    /* a scale file whose learner count is text: named with the row and key */
    snprintf(cmd, sizeof cmd,
             "mbfit nupdate --target-loss 0.5 data/examples/fit_runs/*.csv --json -o %s/n.json "
             "2>/dev/null && mbfit tupdate data/examples/step.csv --json -o %s/t.json && "
             "mbopt scale --nfit %s/n.json --tfit %s/t.json --comm none --procs 1:4 --json -o "
             "%s/s.json && "
             "sed 's/\"procs\":[^,]*,/\"procs\": \"two\",/' %s/s.json > %s/bad.json && "
             "mbplot scale %s/bad.json -o %s/fig.png",
             dir, dir, dir, dir, dir, dir, dir, dir, dir);
    fails(1, "bad.json: rows[0]: 'procs' is not a number", cmd);
    char fig[600];
    snprintf(fig, sizeof fig, "%s/fig.png", dir);
    CU_ASSERT_NOT_EQUAL(access(fig, F_OK), 0);
}

int mb_test_suite_harden(void)
{
    CU_pSuite s = CU_add_suite("harden", setup, teardown);
    return !s || !CU_add_test(s, "FIFO outputs are written in place", test_fifo_output) ||
           !CU_add_test(s, "standard output errors exit 1", test_stdout_errors) ||
           !CU_add_test(s, "stale temporaries removed", test_stale_temporaries) ||
           !CU_add_test(s, "OpenBLAS's generic kernels replaced", test_blas_core) ||
           !CU_add_test(s, "checkpoints: checksum, values, identity", test_checkpoint_checks) ||
           !CU_add_test(s, "lists: empty items, duplicate keys, ranges", test_lists) ||
           !CU_add_test(s, "mbfit readers", test_fit_readers) ||
           !CU_add_test(s, "mbopt amdahl and design extremes", test_amdahl_design) ||
           !CU_add_test(s, "mbopt design against a scan at extreme prices",
                        test_design_brute_force) ||
           !CU_add_test(s, "mbplot readers", test_plot_readers);
}
