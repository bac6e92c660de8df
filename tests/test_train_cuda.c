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

int mb_test_suite_train_cuda(void)
{
    CU_pSuite s = CU_add_suite("train_cuda", NULL, NULL);
    return !s || !CU_add_test(s, "backend registry and CUDA build", test_registry);
}
