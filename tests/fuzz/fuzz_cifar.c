/* fuzz_cifar.c — CIFAR-10 binary batches (data/cifar.c), plain or gzip. */
#include "fuzz_common.h"

#include "../../data/mb_dataset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_file(data, size, path, sizeof path);
    if (fd < 0)
        return 0;
    const char *paths[1] = {path};
    mb_dataset d;
    mb_error err = {0};
    if (mb_data_read_cifar10(paths, 1, &d, &err) == MB_OK)
        mb_dataset_free(&d);
    fuzz_close(fd);
    return 0;
}
