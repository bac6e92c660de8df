/* dataset.c — what every data-set reader shares: allocation and freeing, pixel bytes to floats,
 * the eval subset (partial Fisher-Yates). Their files are read through gzin.c.
 *
 * The file formats themselves are read in idx.c and cifar.c; generated data comes from
 * synthetic.c; load.c, above them all, turns a `--data` spec into sets. Nothing here prints or
 * keeps state between calls.
 */
#include "dataset_impl.h"
#include "mb_rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int mb_dataset_alloc(mb_dataset *d, size_t n, int c, int h, int w, int classes, const char *what,
                     mb_error *err)
{
    memset(d, 0, sizeof *d);
    size_t per = (size_t)c * (size_t)h * (size_t)w;
    if (n > SIZE_MAX / sizeof(float) / (per ? per : 1))
        return mb_error_set(err, MB_ENOMEM, "%s: %zu samples of %dx%dx%d do not fit in memory",
                            what, n, c, h, w);
    d->x = malloc(n * per * sizeof *d->x + 1); /* +1: never malloc(0) */
    d->y = malloc(n * sizeof *d->y + 1);
    if (!d->x || !d->y) {
        mb_dataset_free(d);
        return mb_error_set(err, MB_ENOMEM, "%s: out of memory for %zu samples of %dx%dx%d",
                            what, n, c, h, w);
    }
    d->n = n;
    d->c = c;
    d->h = h;
    d->w = w;
    d->classes = classes;
    return MB_OK;
}

void mb_data_bytes_to_float(const unsigned char *src, size_t n, float *dst)
{
    float lut[256];
    for (int v = 0; v < 256; v++)
        lut[v] = (float)v / 255.0f;
    for (size_t i = 0; i < n; i++)
        dst[i] = lut[src[i]];
}

void mb_dataset_free(mb_dataset *d)
{
    if (!d)
        return;
    free(d->x);
    free(d->y);
    memset(d, 0, sizeof *d);
}

void mb_data_splits_free(mb_data_splits *s)
{
    if (!s)
        return;
    mb_dataset_free(&s->train);
    mb_dataset_free(&s->eval);
    mb_dataset_free(&s->test);
}

int mb_data_eval_indices(size_t n, double eval_frac, unsigned long seed, size_t **idx,
                         size_t *k, mb_error *err)
{
    *idx = NULL;
    *k = 0;
    if (!(eval_frac > 0 && eval_frac <= 1))
        return mb_error_set(err, MB_EINVAL, "eval fraction must be in (0, 1], got %g", eval_frac);
    if (n == 0)
        return mb_error_set(err, MB_EINVAL, "eval subset of an empty training set");
    double want = floor(eval_frac * (double)n + 0.5);
    size_t m = want < 1 ? 1 : want > (double)n ? n : (size_t)want;
    size_t *perm = malloc(n * sizeof *perm);
    if (!perm)
        return mb_error_set(err, MB_ENOMEM, "eval subset: out of memory for %zu indices", n);
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    /* Partial Fisher-Yates: position i takes a uniform pick from the n - i not yet taken. */
    uint64_t r = (uint64_t)seed;
    for (size_t i = 0; i < m; i++) {
        size_t j = i + (size_t)mb_rng_below(&r, n - i);
        size_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    size_t *out = realloc(perm, m * sizeof *out);
    *idx = out ? out : perm;
    *k = m;
    return MB_OK;
}

int mb_dataset_subset(const mb_dataset *src, const size_t *idx, size_t k, mb_dataset *dst,
                      mb_error *err)
{
    memset(dst, 0, sizeof *dst);
    for (size_t i = 0; i < k; i++)
        if (idx[i] >= src->n)
            return mb_error_set(err, MB_EINVAL, "subset: index %zu out of range (%zu samples)",
                                idx[i], src->n);
    int rc = mb_dataset_alloc(dst, k, src->c, src->h, src->w, src->classes, "subset", err);
    if (rc != MB_OK)
        return rc;
    size_t per = (size_t)src->c * src->h * src->w;
    for (size_t i = 0; i < k; i++) {
        memcpy(dst->x + i * per, src->x + idx[i] * per, per * sizeof *dst->x);
        dst->y[i] = src->y[idx[i]];
    }
    return MB_OK;
}
