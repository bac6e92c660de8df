/* test_fit_lightning.c — `mbfit nupdate --lightning` (fit/lightning.c): PyTorch Lightning
 * CSVLogger folders (metrics.csv with the sparse rows Lightning writes, hparams.yaml) with a
 * known N_update(M) = 110 + 6400 / M are fitted to that law; the validation loss logged every
 * 50 steps gives the next logged step (an upper bound) and says so; bad inputs (a missing
 * column, an mbkit file, an empty file, no batch size, steps that go back) are one line, exit
 * 1, nothing written.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mb_test.h"

static char dir[256];

/* dir/NAME/version_V: hparams.yaml (batch_size M, seed S, lr 0.05) and metrics.csv whose
 * val_loss, logged every `every` steps on rows of its own (train_loss rows between, with the
 * val_loss cell empty), falls linearly so that it is first at or under 0.5 after update
 * N = 110 + 6400 / M (step N - 1, 0-based). */
static int lightning_run(const char *name, int v, int m, int seed, int every)
{
    char p[400], path[512], cmd[512];
    snprintf(p, sizeof p, "%.300s/%s/version_%d", dir, name, v);
    snprintf(cmd, sizeof cmd, "mkdir -p %s", p);
    if (system(cmd) != 0)
        return 1;
    char yaml[128];
    snprintf(yaml, sizeof yaml, "lr: 0.05\nbatch_size: %d\nseed: %d\n", m, seed);
    mb_test_write(path, sizeof path, p, "hparams.yaml", yaml);
    snprintf(path, sizeof path, "%s/metrics.csv", p);
    FILE *f = fopen(path, "w");
    if (!f)
        return 1;
    int n = 110 + 6400 / m;
    fprintf(f, "epoch,step,train_loss,val_loss\n");
    for (int s = 0; s < n + 60; s++) {
        fprintf(f, "%d,%d,%.6f,\n", s / 200, s, 1.3 - 0.5 * (s + 1) / n);
        if ((s + 1) % every == 0)
            fprintf(f, "%d,%d,,%.6f\n", s / 200, s, 1.0 - 0.5 * (s + 1) / n);
    }
    return fclose(f) != 0;
}

static int suite_init(void)
{
    if (mb_test_tmpdir(dir, sizeof dir) != 0)
        return 1;
    int v = 0;
    for (int m = 16; m <= 128; m *= 2)
        for (int seed = 0; seed < 3; seed++, v++) {
            if (lightning_run("every", v, m, seed, 1) || lightning_run("sparse", v, m, seed, 50))
                return 1;
        }
    return 0;
}

static int suite_clean(void)
{
    mb_test_rmdir(dir);
    return 0;
}

static double json_param(const char *json, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(json, "\"params\":");
    p = p ? strstr(p, pat) : NULL;
    return p ? strtod(p + strlen(pat), NULL) : NAN;
}

/* Every step logged: the known law, exactly, and no note. */
static void test_known_law(void)
{
    mb_test_run r;
    if (mb_test_sh_ok(&r, "mbfit nupdate --lightning --target-loss 0.5 --weights none "
                      "%s/every/version_* --json", dir)) {
        CU_ASSERT(mb_test_close(json_param(r.out, "n_inf"), 110, 1e-6));
        CU_ASSERT(mb_test_close(json_param(r.out, "alpha"), 6400, 1e-6));
        CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"source\":\t\"lightning\""));
        CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"lr\":\t0.05"));
        CU_ASSERT_PTR_NULL(strstr(r.err, "upper bound"));
    }
    mb_test_run_free(&r);
    /* metrics.csv files given as files, their M by --batch (one per file, in order; the
     * hparams.yaml beside them says otherwise and is not read): M = 8 and 80 */
    if (mb_test_sh_ok(&r, "mbfit nupdate --lightning --batch 8,80 --target-loss 0.5 --weights "
                      "none %s/every/version_0/metrics.csv %s/every/version_3/metrics.csv "
                      "--json", dir, dir)) {
        /* N = 510 at M = 8 and 310 at M = 80: alpha = 200 / (1/8 - 1/80) */
        CU_ASSERT(mb_test_close(json_param(r.out, "alpha"), 200 / (1.0 / 8 - 1.0 / 80), 1e-6));
    }
    mb_test_run_free(&r);
}

/* Validation every 50 steps: N is the next multiple of 50 (550, 350, 250, 200), an upper
 * bound, and the note says by how much at most. */
static void test_sparse_upper_bound(void)
{
    mb_test_run r;
    if (mb_test_sh_ok(&r, "mbfit nupdate --lightning --target-loss 0.5 --weights none "
                      "%s/sparse/version_*", dir)) {
        CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "550"));
        CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "350"));
        CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "logged every 50 updates at most"));
        CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "upper bound on the first crossing (by up to 49"));
    }
    mb_test_run_free(&r);
}

static void test_bad_inputs(void)
{
    char p[512], args[2048], out[600];
    snprintf(out, sizeof out, "%s/out.json", dir);
    snprintf(args, sizeof args, "nupdate --lightning --target-loss 0.5 --loss-column val_acc "
             "%s/every/version_0 --json -o %s", dir, out);
    mb_test_expect_failure("mbfit", args, 1, "metrics.csv: no column 'val_acc' in the header");
    /* an mbkit run log is not a Lightning CSV */
    mb_test_write(p, sizeof p, dir, "runlog.csv",
                  "# format=mbkit-runlog/1\n# batch=8\nupdate,eval_loss\n1,0.4\n");
    snprintf(args, sizeof args, "nupdate --lightning --batch 8 --target-loss 0.5 %s --json -o "
             "%s", p, out);
    mb_test_expect_failure("mbfit", args, 1, "runlog.csv:1: field 'format': mbkit-runlog/1: an "
                                             "mbkit file, not a Lightning metrics.csv");
    mb_test_write(p, sizeof p, dir, "empty.csv", "");
    snprintf(args, sizeof args, "nupdate --lightning --batch 8 --target-loss 0.5 %s", p);
    mb_test_expect_failure("mbfit", args, 1, "empty.csv: empty file");
    mb_test_write(p, sizeof p, dir, "header.csv", "epoch,step,train_loss,val_loss\n");
    snprintf(args, sizeof args, "nupdate --lightning --batch 8 --target-loss 0.5 %s", p);
    mb_test_expect_failure("mbfit", args, 1, "header.csv: no rows after the header");
    mb_test_write(p, sizeof p, dir, "nolog.csv", "epoch,step,train_loss,val_loss\n0,0,1.2,\n");
    snprintf(args, sizeof args, "nupdate --lightning --batch 8 --target-loss 0.5 %s", p);
    mb_test_expect_failure("mbfit", args, 1, "column 'val_loss' has no value in any row");
    mb_test_write(p, sizeof p, dir, "back.csv",
                  "epoch,step,train_loss,val_loss\n0,5,1.2,0.9\n0,4,1.1,0.8\n");
    snprintf(args, sizeof args, "nupdate --lightning --batch 8 --target-loss 0.5 %s", p);
    mb_test_expect_failure("mbfit", args, 1, "back.csv:3: field 'step': 4 after 5");
    /* no hparams.yaml beside it and no --batch; --batch of another count than the inputs */
    mb_test_run r;
    mb_test_sh(&r, "mkdir -p %s/nohp && cp %s/every/version_0/metrics.csv %s/nohp/", dir, dir,
               dir);
    mb_test_run_free(&r);
    snprintf(args, sizeof args, "nupdate --lightning --batch 8,16 --target-loss 0.5 %s/nohp",
             dir);
    mb_test_expect_failure("mbfit", args, 2, "--batch: 2 sizes for 1 input");
    snprintf(args, sizeof args, "nupdate --lightning --target-loss 0.5 %s/nohp", dir);
    mb_test_expect_failure("mbfit", args, 1, "hparams.yaml: no batch size");
    /* a batch size is a count written in digits (campaign 23's R14: '1e1' was read as 10) */
    mb_test_sh(&r, "mkdir -p %s/hp1e1 && cp %s/every/version_0/metrics.csv %s/hp1e1/ && "
               "printf 'lr: 0.05\\nbatch_size: 1e1\\n' > %s/hp1e1/hparams.yaml", dir, dir, dir,
               dir);
    mb_test_run_free(&r);
    snprintf(args, sizeof args, "nupdate --lightning --target-loss 0.5 %s/hp1e1", dir);
    mb_test_expect_failure("mbfit", args, 1, "hparams.yaml:2: field 'batch_size': not a whole "
                                             "batch size >= 1");
    /* the Lightning flags without --lightning: a usage error */
    snprintf(args, sizeof args, "nupdate --loss-column val_loss --target-loss 0.5 %s", p);
    mb_test_expect_failure("mbfit", args, 2, "go with --lightning");
    CU_ASSERT_NOT_EQUAL(access(out, F_OK), 0); /* nothing written */
}

/* hparams.yaml's keys (campaign 24's U8): a seed that is no count in digits and an lr that is
 * no positive finite number were dropped without a word, lr beside another learning_rate won
 * unsaid, 'batch_size:16' (a YAML string, no key) was read as 16 and a NUL byte read the rest
 * of its line away; one line naming the file, line and key now. F136: a comment after the
 * value is no part of it. */
static void test_bad_hparams(void)
{
    static const struct {
        const char *yaml, *needle;
    } bad[] = {
        {"batch_size: 16\nseed: 1e1\n", "hparams.yaml:2: field 'seed': not a whole number >= 0 "
                                          "written in digits"},
        {"batch_size: 16\nseed: -1\n", "hparams.yaml:2: field 'seed': not a whole number"},
        {"batch_size: 16\nseed: 0x10\n", "hparams.yaml:2: field 'seed': not a whole number"},
        /* past 2^53 as the points reader says it (campaign 29's B7: 2^53 + 1 was read as 2^53) */
        {"batch_size: 16\nseed: 18446744073709551616\n",
         "hparams.yaml:2: field 'seed': 18446744073709551616 is past 2^53"},
        {"batch_size: 9007199254740993\n",
         "hparams.yaml:1: field 'batch_size': 9007199254740993 is past 2^53"},
        {"batch_size: 16\nlr: nan\n", "hparams.yaml:2: field 'lr': not a finite number > 0"},
        {"batch_size: 16\nlr: -0.1\n", "hparams.yaml:2: field 'lr': not a finite number > 0"},
        {"batch_size: 16\nlearning_rate: 0.1\nlr: 0.2\n",
         "hparams.yaml:2: field 'learning_rate': 0.1, but key 'lr' says 0.2"},
        /* campaign 25's F207: both values printed as written, not as %g rounds them */
        {"batch_size: 16\nlr: 0.1\nlearning_rate: 0.1000001\n",
         "hparams.yaml:3: field 'learning_rate': 0.1000001, but key 'lr' says 0.1:"},
        {"batch_size:16\n", "hparams.yaml: no batch size: no key"},
        {"batch_size: 16\\000\n", "hparams.yaml:1: not text (a NUL byte)"},
    };
    char args[1024];
    mb_test_run r;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        mb_test_sh(&r, "rm -rf %s/hpb && mkdir -p %s/hpb && cp %s/every/version_0/metrics.csv "
                   "%s/hpb/ && printf '%s' > %s/hpb/hparams.yaml", dir, dir, dir, dir,
                   bad[i].yaml, dir);
        mb_test_run_free(&r);
        snprintf(args, sizeof args, "nupdate --lightning --target-loss 0.5 %s/hpb "
                 "%s/every/version_3", dir, dir);
        mb_test_expect_failure("mbfit", args, 1, bad[i].needle);
    }
    /* a comment, and lr and learning_rate that agree: read */
    if (mb_test_sh_ok(&r, "mkdir -p %s/hpc && cp %s/every/version_0/metrics.csv %s/hpc/ && "
                      "printf 'batch_size: 16 # the batch\nseed: 0 #\nlr: 0.05\n"
                      "learning_rate: 0.05\n' > %s/hpc/hparams.yaml && mbfit nupdate "
                      "--lightning --target-loss 0.5 --weights none %s/hpc %s/every/version_3 "
                      "--json", dir, dir, dir, dir, dir, dir))
        CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"lr\":\t0.05"));
    mb_test_run_free(&r);
}

int mb_test_suite_fit_lightning(void)
{
    CU_pSuite s = CU_add_suite("fit_lightning", suite_init, suite_clean);
    if (!s)
        return -1;
    return !CU_add_test(s, "Lightning logs with a known law fitted to it", test_known_law) ||
           !CU_add_test(s, "sparse validation: an upper bound, said", test_sparse_upper_bound) ||
           !CU_add_test(s, "bad Lightning inputs: one line, exit 1", test_bad_inputs) ||
           !CU_add_test(s, "bad hparams.yaml keys: one line, exit 1", test_bad_hparams);
}
