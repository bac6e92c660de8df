/* dataset_impl.h — private helpers shared by the data-set readers (idx.c, cifar.c, synthetic.c,
 * dataset.c): whole-file reads, plain or gzip through ISA-L's igzip (gzin.c), and allocation of
 * a data set's arrays. (Their random numbers come from mb_rng_* in mb_rng.h.) Not part of the public API.
 */
#ifndef MB_DATASET_IMPL_H
#define MB_DATASET_IMPL_H

#include <stdint.h>

#include "mb_dataset.h"

/* The most bytes one data-set file may hold once decompressed (Fashion-MNIST's training
 * images are 47 MB, CIFAR-10's five batches 150 MB): a declared or decompressed size past it is
 * refused before it is allocated. */
#define MB_DATA_SET_FILE_MAX ((size_t)1 << 30)

/* A data-set file opened once and read as a stream, gzip inflated, plain passed through
 * (gzin.c). */
typedef struct mb_data_in {
    struct mb_data_in_state *s; /* the descriptor, read-ahead and inflate state */
    const char *path;  /* for messages (the caller's string) */
    size_t hint;       /* a first buffer size: the file's size or its gzip trailer's claim */
} mb_data_in;

/* Opens `path` (MB_EIO naming it when it cannot be opened or is a folder). */
int mb_data_in_open(mb_data_in *in, const char *path, mb_error *err);

/* Reads up to `want` bytes into dst; *got < want only at the end of the data. MB_EFORMAT when
 * the gzip stream is corrupt, MB_EIO on a read error. */
int mb_data_in_read(mb_data_in *in, unsigned char *dst, size_t want, size_t *got,
                    mb_error *err);

/* Reads the rest into a new buffer (*buf of *len bytes, owned by the caller), never more than
 * max + 1 bytes: *len == max + 1 says there was more than `max` (the caller's error to name). */
int mb_data_in_read_all(mb_data_in *in, size_t max, unsigned char **buf, size_t *len,
                        mb_error *err);

/* Closes; returns `rc` (a stream cut short was already an error of mb_data_in_read). */
int mb_data_in_close(mb_data_in *in, int rc);

/* Reads the whole of `path` (plain or gzip) into a new buffer *buf of *len bytes (owned by the
 * caller; free): mb_data_in_open, _read_all and _close; more than `max` bytes is MB_EFORMAT
 * ("more than N MiB"). */
int mb_data_slurp(const char *path, size_t max, unsigned char **buf, size_t *len,
                  mb_error *err);

/* Allocates d->x (n*c*h*w floats) and d->y (n ints) and sets the shape; on failure frees and
 * zeroes *d and returns MB_ENOMEM with a message naming `what`. */
int mb_dataset_alloc(mb_dataset *d, size_t n, int c, int h, int w, int classes, const char *what,
                     mb_error *err);

/* dst[i] = src[i] / 255 for i < n: pixel bytes to floats in [0, 1], rounded as the float
 * division would be (a 256-entry table). */
void mb_data_bytes_to_float(const unsigned char *src, size_t n, float *dst);

#endif /* MB_DATASET_IMPL_H */
