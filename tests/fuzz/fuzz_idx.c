/* fuzz_idx.c — IDX image and label files (data/idx.c), plain or gzip: the input is the images
 * file, "\n--\n", then the labels file. */
#include "fuzz_common.h"

#include "../../data/mb_dataset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *a, *b;
    size_t na, nb;
    fuzz_split(data, size, &a, &na, &b, &nb);
    char pa[64], pb[64];
    int fa = fuzz_file(a, na, pa, sizeof pa), fb = fuzz_file(b, nb, pb, sizeof pb);
    if (fa >= 0 && fb >= 0) {
        mb_dataset d;
        mb_error err = {0};
        if (mb_data_read_idx_classes(pa, pb, 0, &d, &err) == MB_OK)
            mb_dataset_free(&d);
    }
    fuzz_close(fa);
    fuzz_close(fb);
    return 0;
}
