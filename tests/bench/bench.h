/* bench.h — what every benchmark in tests/bench/ times with: a monotonic clock and the order of
 * doubles for qsort (medians of repeated runs). Each benchmark is its own program. */
#ifndef MB_BENCH_H
#define MB_BENCH_H

#include <time.h>

static inline double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif /* MB_BENCH_H */
