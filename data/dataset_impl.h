/* dataset_impl.h — private helpers shared by the data-set readers (idx.c, cifar.c, synthetic.c,
 * dataset.c): a seeded random generator with no global state, whole-file reads through zlib
 * (plain or gzip), and allocation of a data set's arrays. Not part of the public API.
 */
#ifndef MB_DATASET_IMPL_H
#define MB_DATASET_IMPL_H

#include <stdint.h>

#include "mb_data.h"

/* splitmix64 (Steele, Lea, Flood 2014): a 64-bit state advanced by a constant; every output is
 * a bijective mix of the state, so any seed (0 included) gives a full-period stream. */
typedef struct mb_rng {
    uint64_t s; /* state */
} mb_rng;

static inline void mb_rng_seed(mb_rng *r, uint64_t seed) { r->s = seed; }

static inline uint64_t mb_rng_next(mb_rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 53 random bits. */
static inline double mb_rng_uniform(mb_rng *r) { return (double)(mb_rng_next(r) >> 11) * 0x1.0p-53; }

/* Uniform integer in [0, n) for n >= 1, without modulo bias (Lemire's rejection). */
static inline uint64_t mb_rng_below(mb_rng *r, uint64_t n)
{
    uint64_t lim = -n % n; /* 2^64 mod n */
    uint64_t x;
    do
        x = mb_rng_next(r);
    while (x < lim);
    return x % n;
}

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
