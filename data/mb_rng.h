/* mb_rng.h — random numbers: splitmix64 on a state the caller owns (a data set's shuffle, a
 * network's dropout, a learner's cursor), so there is no global generator. Header only.
 */
#ifndef MB_RNG_H
#define MB_RNG_H

#include <stdint.h>

/* ---- random numbers ------------------------------------------------------------------------ */

/* splitmix64 (Steele, Lea, Flood 2014): the state is a plain uint64_t owned by the caller (a
 * data set's shuffle, a network's dropout, a learner's cursor), so there is no global generator
 * and a checkpoint saves it as one number. Any seed, 0 included, gives a full-period stream. */
static inline uint64_t mb_rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 53 random bits. */
static inline double mb_rng_uniform(uint64_t *s)
{
    return (double)(mb_rng_next(s) >> 11) * 0x1.0p-53;
}

/* Uniform float in [0, 1) with 24 random bits (initialisation, dropout masks). */
static inline float mb_rng_uniformf(uint64_t *s)
{
    return (float)(mb_rng_next(s) >> 40) * (1.0f / 16777216.0f);
}

/* Uniform integer in [0, n) for n >= 1, without modulo bias (rejection of the short tail). */
static inline uint64_t mb_rng_below(uint64_t *s, uint64_t n)
{
    uint64_t lim = -n % n; /* 2^64 mod n */
    uint64_t x;
    do
        x = mb_rng_next(s);
    while (x < lim);
    return x % n;
}

#endif /* MB_RNG_H */
