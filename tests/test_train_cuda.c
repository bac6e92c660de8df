/* test_train_cuda.c — the CUDA build path: the backend registry answers consistently, and when
 * the translation unit train/backend/cuda/info.cu was built with nvcc it links and runs; with a
 * device, a network with batch normalisation is refused at set-up with one line. Tests that need
 * a device say why they skip.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

#include "../train/backend/mb_backend.h"
#include "../train/learner/mb_learner.h"
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
    mb_net_options o = {8, 1, MB_CONV_AUTO, 1, ctx};
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
    mb_test_rmdir(dir);
}

int mb_test_suite_train_cuda(void)
{
    CU_pSuite s = CU_add_suite("train_cuda", NULL, NULL);
    return !s || !CU_add_test(s, "backend registry and CUDA build", test_registry) ||
           !CU_add_test(s, "the CUDA plugin: a bad file is named, never waited on",
                        test_plugin_files);
}
