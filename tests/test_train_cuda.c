/* test_train_cuda.c — the CUDA build path: the backend registry answers consistently, and when
 * the translation unit train/backend/cuda/info.cu was built with nvcc it links and runs; with a
 * device, a network with batch normalisation is refused at set-up with one line. Tests that need
 * a device say why they skip.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../train/backend/mb_backend.h"
#include "../train/learner/mb_learner.h"
#include "../train/mb_train.h"
#include "../data/mb_dataset.h"
#include "../train/run/mb_run.h"
#include "../train/run/run_impl.h"
#include "../net/mb_net.h"
#include "mb_test.h"

static void test_registry(void)
{
    char why[256];
    CU_ASSERT_TRUE(mb_train_backend_built(MB_BACKEND_CPU));
    CU_ASSERT_TRUE(mb_train_backend_usable(MB_BACKEND_CPU, why, sizeof why));
    int built = mb_train_backend_built(MB_BACKEND_CUDA);
    int usable = mb_train_backend_usable(MB_BACKEND_CUDA, why, sizeof why);
    CU_ASSERT_TRUE(!usable || built); /* usable implies built */
    if (!usable) {
        CU_ASSERT_TRUE(strlen(why) > 0); /* a reason is always given */
        printf("\n    [skip] CUDA device tests: %s ", why);
        return;
    }
    /* the CUDA backend has no BN or graph layers: a net with them is refused at set-up with one
     * line (unrun where no device is present) */
    mb_ctx_options co;
    mb_ctx_options_init(&co);
    co.backend = MB_BACKEND_CUDA;
    mb_ctx *ctx = NULL;
    mb_net_desc *d = NULL;
    mb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(mb_ctx_create(&co, &ctx, &err), MB_OK);
    CU_ASSERT_EQUAL_FATAL(mb_net_desc_read("data/nets/resnet-mini.cfg", &d, &err), MB_OK);
    mb_net_options o = {8, 1, MB_CONV_AUTO, 1, ctx, 0};
    mb_net *net = NULL;
    CU_ASSERT_EQUAL(mb_net_create(d, &o, &net, &err), MB_ENOTSUP);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "the cuda backend has no batch normalisation"));
    CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
    mb_net_free(net);
    mb_net_desc_free(d);
    mb_ctx_free(ctx);
}

/* The plugin (libmbkit-cuda.so, lib/ beside bin/; train/backend/backend.c): a copy of the
 * commands whose plugin is a FIFO, text or another program is refused with one line naming it,
 * never waited on (campaign 10's M2, M3). A build without CUDA has no plugin to break. */
static void test_plugin_files(void)
{
    if (!mb_train_backend_built(MB_BACKEND_CUDA))
        return;
    static const struct {
        const char *make, *says;
    } bad[] = {
        {"mkfifo $W/lib/libmbkit-cuda.so", "libmbkit-cuda.so: not a regular file"},
        {"echo hello > $W/lib/libmbkit-cuda.so", "libmbkit-cuda.so: "},
        {"cp $W/bin/mbprobe $W/lib/libmbkit-cuda.so", "libmbkit-cuda.so: "},
        {"mkdir $W/lib/libmbkit-cuda.so", "libmbkit-cuda.so: not a regular file"},
        /* campaign 11's N8: a link to nothing is there, and broken, not absent */
        {"ln -s /nonexistent/x.so $W/lib/libmbkit-cuda.so",
         "libmbkit-cuda.so: No such file or directory"},
        /* campaign 17's F3: a copy cut short (an interrupted copy or install) was a SIGBUS in
         * dlopen, which maps segments past the end of the file */
        {"head -c 100000 \"$(dirname \"$(command -v mbprobe)\")/../lib/libmbkit-cuda.so\" > "
         "$W/lib/libmbkit-cuda.so", "libmbkit-cuda.so: truncated or not a shared library "
         "(100000 bytes; its headers and segments need "},
        {"head -c 1000 \"$(dirname \"$(command -v mbprobe)\")/../lib/libmbkit-cuda.so\" > "
         "$W/lib/libmbkit-cuda.so", "libmbkit-cuda.so: truncated or not a shared library "},
        {"head -c 10 \"$(dirname \"$(command -v mbprobe)\")/../lib/libmbkit-cuda.so\" > "
         "$W/lib/libmbkit-cuda.so", "libmbkit-cuda.so: truncated or not a shared library "},
        /* campaign 18: a whole file damaged inside (its dynamic section, a program header)
         * crashed the dynamic loader; the build's size and CRC-32 beside it are checked first */
        {"P=\"$(dirname \"$(command -v mbprobe)\")/../lib/libmbkit-cuda.so\" && cp \"$P\" "
         "\"$P.crc\" $W/lib/ && printf 'Z' | dd of=$W/lib/libmbkit-cuda.so bs=1 seek=700 "
         "conv=notrunc 2>/dev/null", "libmbkit-cuda.so: damaged or not this build's plugin ("},
        {"cp \"$(dirname \"$(command -v mbprobe)\")/../lib/libmbkit-cuda.so\" $W/lib/",
         "libmbkit-cuda.so: no checksum beside it (.crc: No such file or directory"},
        {"P=\"$(dirname \"$(command -v mbprobe)\")/../lib/libmbkit-cuda.so\" && cp \"$P\" "
         "$W/lib/ && echo '1 2 3' > $W/lib/libmbkit-cuda.so.crc",
         "libmbkit-cuda.so: no checksum beside it (.crc: not 'SIZE CRC'"},
    };
    char dir[256];
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(dir, sizeof dir), 0);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mb_test_run r;
        CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "W=%s/c%zu && mkdir -p $W/bin $W/lib && cp \"$(command "
                                         "-v mbprobe)\" $W/bin/ && %s && timeout 20 $W/bin/mbprobe "
                                         "step --net lenet5 --backend cuda --batch 2 --budget 0.01 "
                                         "-o $W/o", dir, i, bad[i].make), 0);
        int ok = r.status == 1 && strstr(r.err, "the CUDA backend could not be loaded") &&
                 strstr(r.err, bad[i].says) && mb_test_lines(r.err) == 1;
        if (!ok)
            fprintf(stderr, "\n  plugin '%s': status %d: %s", bad[i].make, r.status, r.err);
        CU_ASSERT_TRUE(ok);
        mb_test_run_free(&r);
    }
    /* mbtrain too: exit 1, one line naming the size its headers need (the whole plugin's),
     * no signal (99: the size is not the plugin's) */
    mb_test_run r;
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "W=%s/t && mkdir -p $W/bin $W/lib && P=\"$(dirname "
                                     "\"$(command -v mbtrain)\")/../lib/libmbkit-cuda.so\" && cp "
                                     "\"$(command -v mbtrain)\" $W/bin/ && head -c 50000 \"$P\" > "
                                     "$W/lib/libmbkit-cuda.so && timeout 20 $W/bin/mbtrain --net "
                                     "lenet5 --data synthetic --batch 8 --max-updates 2 --backend "
                                     "cuda 2>$W/e; s=$?; cat $W/e >&2; grep -q \"need $(stat -c "
                                     "%%s \"$P\"))\" $W/e || s=99; exit $s", dir), 0);
    CU_ASSERT_EQUAL(r.status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "libmbkit-cuda.so: truncated or not a shared library "
                                         "(50000 bytes; its headers and segments need "));
    CU_ASSERT_EQUAL(mb_test_lines(r.err), 1);
    mb_test_run_free(&r);
    mb_test_rmdir(dir);
}

/* What a device run cannot do yet is refused in one line before anything is loaded: several
 * learners (the parallel rules read host parameters) and checkpoints (the velocity stays on the
 * device). Checked on every machine: the options are refused before any device is opened. */
static void test_training_limits(void)
{
    static const struct {
        int par, learners;
        const char *ckpt, *resume, *says;
    } bad[] = {
        {MB_PAR_SGD_SYNC, 1, NULL, NULL, "the cuda backend trains one learner"},
        {MB_PAR_NONE, 2, NULL, NULL, "the cuda backend trains one learner"},
        {MB_PAR_NONE, 1, "c.ckpt", NULL, "checkpoints of a cuda run are not written yet"},
        {MB_PAR_NONE, 1, NULL, "c.ckpt", "checkpoints of a cuda run are not written yet"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        mb_run_options o;
        mb_run_options_init(&o);
        o.net = "lenet5", o.data = "synthetic", o.batch = 8, o.max_updates = 10;
        o.backend = MB_BACKEND_CUDA;
        o.par = bad[i].par, o.learners = bad[i].learners;
        o.checkpoint_path = bad[i].ckpt, o.checkpoint_every = bad[i].ckpt ? 5 : 0;
        o.resume_path = bad[i].resume;
        mb_error err = {0};
        CU_ASSERT_EQUAL(mb_run_check_options(&o, &err), MB_ENOTSUP);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, bad[i].says));
    }
}

/* One learner trained on the device against the same run on the CPU: lenet5 on synthetic data,
 * the same seed, 60 updates of momentum SGD at M = 16 with an evaluation every 20. The two
 * differ only in float32 summation order (cuBLAS, cuDNN), which 60 updates amplify little: the
 * evaluation and test losses agree within 0.5% (on an H200 to 1e-5). The test set of 200
 * samples ends in a chunk of 72, smaller than the plans' 128: a convolution plan that failed
 * there once left stale outputs, a test loss 2.2% off (docs/results.md, "The first GPU").
 * Unrun without a device. */
static void test_device_training(void)
{
    char why[256];
    if (!mb_train_backend_usable(MB_BACKEND_CUDA, why, sizeof why))
        return; /* test_registry said why */
    mb_data_splits data;
    mb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(mb_data_load("synthetic:n=2000,test=200", 0.2, 0, &data, &err), MB_OK);
    mb_run_result r[2];
    const mb_backend_kind kinds[2] = {MB_BACKEND_CPU, MB_BACKEND_CUDA};
    for (int k = 0; k < 2; k++) {
        mb_run_options o;
        mb_run_options_init(&o);
        o.net = "lenet5", o.data = "synthetic", o.splits = &data;
        o.batch = 16, o.max_updates = 60, o.eval_every = 20, o.seed = 3;
        o.optim.kind = MB_OPTIM_MOMENTUM, o.optim.lr = 0.05, o.optim.momentum = 0.9;
        o.backend = kinds[k];
        int rc = mb_train_run(&o, &r[k], &err);
        if (rc != MB_OK)
            printf("\n    %s: %s", mb_backend_name(kinds[k]), err.msg);
        CU_ASSERT_EQUAL_FATAL(rc, MB_OK);
        CU_ASSERT_EQUAL(r[k].updates, 60);
    }
    printf("\n    60 updates: eval loss %.5f, test loss %.5f (acc %.4f) on the CPU; %.5f, %.5f "
           "(%.4f) on %s ", r[0].eval_loss, r[0].test_loss, r[0].test_acc, r[1].eval_loss,
           r[1].test_loss, r[1].test_acc, r[1].device);
    CU_ASSERT_TRUE(fabs(r[1].eval_loss - r[0].eval_loss) <= 0.005 * r[0].eval_loss);
    CU_ASSERT_TRUE(fabs(r[1].test_loss - r[0].test_loss) <= 0.005 * r[0].test_loss);
    CU_ASSERT_TRUE(r[1].eval_loss < log(10.0)); /* it learned something */
    mb_data_splits_free(&data);
}

int mb_test_suite_train_cuda(void)
{
    CU_pSuite s = CU_add_suite("train_cuda", NULL, NULL);
    return !s || !CU_add_test(s, "backend registry and CUDA build", test_registry) ||
           !CU_add_test(s, "a device run: one learner, no checkpoints", test_training_limits) ||
           !CU_add_test(s, "one learner trained on the device against the CPU",
                        test_device_training) ||
           !CU_add_test(s, "the CUDA plugin: a bad file is named, never waited on",
                        test_plugin_files);
}
