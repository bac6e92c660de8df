/* data_load.c — benchmark of the data-set readers: mb_data_load("fashion-mnist") (four gzip IDX
 * files, 70000 images, plus the 12000-sample eval copy) and the default synthetic set. Each
 * result is checked before it is timed; prints the median and range of 5 runs with the size.
 * Run by `make bench`, never by `make check`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "data/mb_dataset.h"
#include "bench.h"

#define REPS 5

/* Loads `spec` REPS times; returns 0 when every load gave the expected sizes. */
static int bench(const char *spec, size_t ntrain, size_t ntest)
{
    double t[REPS];
    for (int r = 0; r < REPS; r++) {
        mb_data_splits s;
        mb_error e;
        double t0 = now();
        int rc = mb_data_load(spec, 0.2, 1, &s, &e);
        t[r] = now() - t0;
        if (rc != MB_OK) {
            fprintf(stderr, "data_load: %s\n", e.msg);
            return 1;
        }
        int ok = s.train.n == ntrain && s.test.n == ntest;
        size_t per = (size_t)s.train.c * s.train.h * s.train.w;
        if (r == 0)
            printf("%-14s train %zu x %dx%dx%d, test %zu, eval %zu (%.0f MB of float32)\n", spec,
                   s.train.n, s.train.c, s.train.h, s.train.w, s.test.n, s.eval.n,
                   (double)(s.train.n + s.test.n + s.eval.n) * per * 4 / 1e6);
        mb_data_splits_free(&s);
        if (!ok) {
            fprintf(stderr, "data_load: %s: unexpected sizes\n", spec);
            return 1;
        }
    }
    qsort(t, REPS, sizeof *t, cmp);
    printf("%-14s load: median %.3f s (min %.3f, max %.3f, %d runs)\n", spec, t[REPS / 2], t[0],
           t[REPS - 1], REPS);
    return 0;
}

int main(void)
{
    return bench("fashion-mnist", 60000, 10000) || bench("synthetic", 2000, 500);
}
