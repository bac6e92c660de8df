/* dataset_impl.h — private helpers shared by the data-set readers (idx.c, cifar.c, synthetic.c,
 * dataset.c): whole-file reads through zlib (plain or gzip), and allocation of a data set's
 * arrays. (Their random numbers come from mb_rng_* in mb_data.h.) Not part of the public API.
 */
#ifndef MB_DATASET_IMPL_H
#define MB_DATASET_IMPL_H

#include <stdint.h>

#include "mb_data.h"

/* Reads the whole of `path` (plain or gzip; zlib's gzread passes plain files through) into a new
 * buffer *buf of *len bytes (owned by the caller; free). One read into a buffer sized from the
 * file (its gzip trailer for .gz), grown only if that hint was short. MB_EIO naming the file when
 * it cannot be opened or read, MB_EFORMAT when its gzip stream is corrupt or cut short. */
int mb_data_slurp(const char *path, unsigned char **buf, size_t *len, mb_error *err);

/* Allocates d->x (n*c*h*w floats) and d->y (n ints) and sets the shape; on failure frees and
 * zeroes *d and returns MB_ENOMEM with a message naming `what`. */
int mb_dataset_alloc(mb_dataset *d, size_t n, int c, int h, int w, int classes, const char *what,
                     mb_error *err);

/* dst[i] = src[i] / 255 for i < n: pixel bytes to floats in [0, 1], rounded as the float
 * division would be (a 256-entry table). */
void mb_data_bytes_to_float(const unsigned char *src, size_t n, float *dst);

#endif /* MB_DATASET_IMPL_H */
