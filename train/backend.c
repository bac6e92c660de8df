/* backend.c — the backend registry: the one place that knows whether CUDA was built.
 * Every other file asks here instead of testing MB_HAVE_CUDA itself.
 */
#include "mb_train.h"

#include <stdio.h>

#if MB_HAVE_CUDA
int mb_cuda_device_count(char *why, size_t n);
#endif

int mb_train_backend_built(mb_backend_kind kind)
{
    switch (kind) {
    case MB_BACKEND_CPU: return 1;
    case MB_BACKEND_CUDA: return MB_HAVE_CUDA;
    }
    return 0;
}

int mb_train_backend_usable(mb_backend_kind kind, char *why, size_t n)
{
    if (n)
        why[0] = '\0';
    switch (kind) {
    case MB_BACKEND_CPU: return 1;
    case MB_BACKEND_CUDA:
#if MB_HAVE_CUDA
        return mb_cuda_device_count(why, n) > 0;
#else
        snprintf(why, n, "built without CUDA (nvcc not found, or CUDA=0)");
        return 0;
#endif
    }
    snprintf(why, n, "unknown backend");
    return 0;
}
