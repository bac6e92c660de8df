/* cifar.c — the CIFAR-10 binary format (Krizhevsky 2009, "binary version"): files of fixed
 * 3073-byte records, 1 label byte (0..9) then 3072 pixel bytes (3 x 32 x 32, channel-major: the
 * 1024 red values row by row, then green, then blue). Files may be plain or gzip.
 *
 * The record layout is already NCHW, so conversion is a byte-to-float copy per record. CIFAR-100
 * (two label bytes) is not read.
 */
#include "dataset_impl.h"

#include <stdlib.h>
#include <string.h>

#define CIFAR_SIDE 32
#define CIFAR_CHANNELS 3
#define CIFAR_PIXELS (CIFAR_CHANNELS * CIFAR_SIDE * CIFAR_SIDE) /* 3072 */
#define CIFAR_RECORD (1 + CIFAR_PIXELS)                          /* 3073 */

int mb_data_read_cifar10(const char *const *paths, size_t npaths, mb_dataset *d, mb_error *err)
{
    memset(d, 0, sizeof *d);
    if (npaths == 0)
        return mb_error_set(err, MB_EINVAL, "CIFAR-10: no files given");
    unsigned char **bufs = calloc(npaths, sizeof *bufs);
    size_t *lens = calloc(npaths, sizeof *lens);
    int rc = bufs && lens ? MB_OK : mb_error_set(err, MB_ENOMEM, "CIFAR-10: out of memory");
    size_t n = 0;
    for (size_t f = 0; rc == MB_OK && f < npaths; f++) {
        rc = mb_data_slurp(paths[f], MB_DATA_SET_FILE_MAX, &bufs[f], &lens[f], err);
        if (rc == MB_OK && (lens[f] == 0 || lens[f] % CIFAR_RECORD != 0))
            rc = mb_error_set(err, MB_EFORMAT,
                              "%s: %zu bytes is not a whole number of CIFAR-10 records (%d bytes "
                              "each: 1 label + 3x32x32 pixels)",
                              paths[f], lens[f], CIFAR_RECORD);
        for (size_t r = 0; rc == MB_OK && r < lens[f] / CIFAR_RECORD; r++) {
            int y = bufs[f][r * CIFAR_RECORD];
            if (y >= MB_DATA_IDX_CLASSES)
                rc = mb_error_set(err, MB_EFORMAT,
                                  "%s: label %d of record %zu is out of range (expected 0..%d)",
                                  paths[f], y, r, MB_DATA_IDX_CLASSES - 1);
        }
        if (rc == MB_OK)
            n += lens[f] / CIFAR_RECORD;
    }
    if (rc == MB_OK)
        rc = mb_dataset_alloc(d, n, CIFAR_CHANNELS, CIFAR_SIDE, CIFAR_SIDE, MB_DATA_IDX_CLASSES,
                              paths[0], err);
    if (rc == MB_OK) {
        size_t i = 0;
        for (size_t f = 0; f < npaths; f++)
            for (size_t r = 0; r < lens[f] / CIFAR_RECORD; r++, i++) {
                const unsigned char *rec = bufs[f] + r * CIFAR_RECORD;
                d->y[i] = rec[0];
                mb_data_bytes_to_float(rec + 1, CIFAR_PIXELS, d->x + i * CIFAR_PIXELS);
            }
    }
    for (size_t f = 0; bufs && f < npaths; f++)
        free(bufs[f]);
    free(bufs);
    free(lens);
    return rc;
}
