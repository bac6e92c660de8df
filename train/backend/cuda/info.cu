/* info.cu — the CUDA runtime as seen by mbkit: how many devices there are and why none is
 * usable. Built only when nvcc is found; the backend registry (train/backend/backend.c) is the one
 * place that knows whether it was.
 */
#include <cuda_runtime.h>
#include <stdio.h>

extern "C" int mb_cuda_device_count(char *why, size_t n)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        snprintf(why, n, "CUDA runtime: %s", cudaGetErrorString(e));
        return 0;
    }
    if (count == 0)
        snprintf(why, n, "CUDA runtime: no device");
    return count;
}

extern "C" int mb_cuda_runtime_version(void)
{
    int v = 0;
    return cudaRuntimeGetVersion(&v) == cudaSuccess ? v : 0;
}
