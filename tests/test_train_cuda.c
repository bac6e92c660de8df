/* test_train_cuda.c — the CUDA build path: the backend registry answers consistently, and when
 * the translation unit train/backend/cuda/info.cu was built with nvcc it links and runs. Tests that need
 * a device say why they skip.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

#include "../train/backend/mb_backend.h"

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
    }
}

int mb_test_suite_train_cuda(void)
{
    CU_pSuite s = CU_add_suite("train_cuda", NULL, NULL);
    return !s || !CU_add_test(s, "backend registry and CUDA build", test_registry);
}
