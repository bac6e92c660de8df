/* synthetic.c — a generated, learnable labelled image set for tests and benchmarks that need no
 * files: each class has a smooth random prototype image, and a sample is its class's prototype
 * plus Gaussian noise, clamped to [0, 1]. Deterministic for a given seed.
 *
 * It is not a model of any real data set: it is as hard as `noise` makes it, and with the
 * defaults a nearest-class-mean classifier is nearly perfect, so a trainer that fails to learn
 * it is broken.
 */
#include "dataset_impl.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Limits on the parameters, to catch typos before they allocate gigabytes. */
#define SYN_MAX_SAMPLES 100000000L
#define SYN_MAX_CHANNELS 64L
#define SYN_MAX_SIDE 1024L
#define SYN_MAX_CLASSES 1000L
#define SYN_MAX_NOISE 10.0
#define SYN_MAX_VALUES ((size_t)1 << 31) /* floats in train + test, 8 GiB */

void mb_synthetic_init(mb_synthetic *p)
{
    p->n = 2000;
    p->test = 500;
    p->c = 1;
    p->h = 28;
    p->w = 28;
    p->classes = 10;
    p->seed = 1;
    p->noise = 0.35;
}

/* Parses one integer value of key `k` in [lo, hi]. */
static int int_value(const char *k, const char *v, long lo, long hi, long *out, mb_error *err)
{
    if (mb_data_parse_long(v, lo, hi, out) != MB_OK)
        return mb_error_set(err, MB_EINVAL, "synthetic: %s='%s' is not a whole number in %ld..%ld",
                            k, v, lo, hi);
    return MB_OK;
}

int mb_synthetic_parse(const char *spec, mb_synthetic *p, mb_error *err)
{
    mb_synthetic_init(p);
    if (strcmp(spec, "synthetic") == 0)
        return MB_OK;
    if (strncmp(spec, "synthetic:", 10) != 0)
        return mb_error_set(err, MB_EINVAL, "%s: not a synthetic spec (synthetic:key=value,...)",
                            spec);
    char *copy = strdup(spec + 10);
    if (!copy)
        return mb_error_set(err, MB_ENOMEM, "synthetic: out of memory");
    int rc = MB_OK;
    char *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); item && rc == MB_OK;
         item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        if (!eq) {
            rc = mb_error_set(err, MB_EINVAL, "synthetic: '%s' is not key=value", item);
            break;
        }
        *eq = '\0';
        const char *k = item, *v = eq + 1;
        long x = 0;
        if (strcmp(k, "n") == 0 && (rc = int_value(k, v, 1, SYN_MAX_SAMPLES, &x, err)) == MB_OK)
            p->n = (size_t)x;
        else if (strcmp(k, "test") == 0 &&
                 (rc = int_value(k, v, 1, SYN_MAX_SAMPLES, &x, err)) == MB_OK)
            p->test = (size_t)x;
        else if (strcmp(k, "c") == 0 &&
                 (rc = int_value(k, v, 1, SYN_MAX_CHANNELS, &x, err)) == MB_OK)
            p->c = (int)x;
        else if (strcmp(k, "h") == 0 && (rc = int_value(k, v, 1, SYN_MAX_SIDE, &x, err)) == MB_OK)
            p->h = (int)x;
        else if (strcmp(k, "w") == 0 && (rc = int_value(k, v, 1, SYN_MAX_SIDE, &x, err)) == MB_OK)
            p->w = (int)x;
        else if (strcmp(k, "classes") == 0 &&
                 (rc = int_value(k, v, 2, SYN_MAX_CLASSES, &x, err)) == MB_OK)
            p->classes = (int)x;
        else if (strcmp(k, "seed") == 0 && (rc = int_value(k, v, 0, LONG_MAX, &x, err)) == MB_OK)
            p->seed = (unsigned long)x;
        else if (strcmp(k, "noise") == 0) {
            double d;
            if (mb_data_parse_double(v, &d) != MB_OK || d < 0 || d > SYN_MAX_NOISE)
                rc = mb_error_set(err, MB_EINVAL, "synthetic: noise='%s' is not a number in 0..%g",
                                  v, SYN_MAX_NOISE);
            else
                p->noise = d;
        } else if (rc == MB_OK && strcmp(k, "n") && strcmp(k, "test") && strcmp(k, "c") &&
                   strcmp(k, "h") && strcmp(k, "w") && strcmp(k, "classes") && strcmp(k, "seed"))
            rc = mb_error_set(err, MB_EINVAL,
                              "synthetic: unknown key '%s' (known: n, test, c, h, w, classes, "
                              "seed, noise)",
                              k);
    }
    free(copy);
    if (rc == MB_OK && (p->n + p->test) * (size_t)p->c * p->h * p->w > SYN_MAX_VALUES)
        rc = mb_error_set(err, MB_EINVAL,
                          "synthetic: %zu + %zu samples of %dx%dx%d exceed %zu values in all",
                          p->n, p->test, p->c, p->h, p->w, SYN_MAX_VALUES);
    return rc;
}

/* A standard normal deviate (Box-Muller; one of the pair is thrown away for simplicity). */
static double normal(mb_rng *r)
{
    double u = mb_rng_uniform(r), v = mb_rng_uniform(r);
    return sqrt(-2.0 * log(1.0 - u)) * cos(2.0 * M_PI * v);
}

/* The class prototypes: uniform pixels, averaged over each 3x3 neighbourhood (edges clamped)
 * within a channel, then stretched so every prototype spans [0, 1]. */
static void make_prototypes(const mb_synthetic *p, mb_rng *r, float *proto, float *tmp)
{
    size_t per = (size_t)p->c * p->h * p->w;
    for (int k = 0; k < p->classes; k++) {
        float *P = proto + (size_t)k * per;
        for (size_t i = 0; i < per; i++)
            tmp[i] = (float)mb_rng_uniform(r);
        float lo = INFINITY, hi = -INFINITY;
        for (int ch = 0; ch < p->c; ch++)
            for (int y = 0; y < p->h; y++)
                for (int x = 0; x < p->w; x++) {
                    double s = 0;
                    int cnt = 0;
                    for (int dy = -1; dy <= 1; dy++)
                        for (int dx = -1; dx <= 1; dx++) {
                            int yy = y + dy, xx = x + dx;
                            if (yy < 0 || yy >= p->h || xx < 0 || xx >= p->w)
                                continue;
                            s += tmp[((size_t)ch * p->h + yy) * p->w + xx];
                            cnt++;
                        }
                    float v = (float)(s / cnt);
                    P[((size_t)ch * p->h + y) * p->w + x] = v;
                    lo = v < lo ? v : lo;
                    hi = v > hi ? v : hi;
                }
        for (size_t i = 0; i < per; i++)
            P[i] = hi > lo ? (P[i] - lo) / (hi - lo) : 0.5f;
    }
}

/* Fills d (allocated) with balanced labels in a seeded order and noisy prototypes. */
static void make_samples(const mb_synthetic *p, mb_rng *r, const float *proto, mb_dataset *d)
{
    size_t per = (size_t)p->c * p->h * p->w;
    for (size_t i = 0; i < d->n; i++)
        d->y[i] = (int)(i % (size_t)p->classes);
    for (size_t i = d->n; i > 1; i--) { /* Fisher-Yates */
        size_t j = (size_t)mb_rng_below(r, i);
        int t = d->y[i - 1];
        d->y[i - 1] = d->y[j];
        d->y[j] = t;
    }
    for (size_t i = 0; i < d->n; i++) {
        const float *P = proto + (size_t)d->y[i] * per;
        float *x = d->x + i * per;
        for (size_t j = 0; j < per; j++) {
            double v = P[j] + p->noise * normal(r);
            x[j] = (float)(v < 0 ? 0 : v > 1 ? 1 : v);
        }
    }
}

int mb_data_synthetic(const mb_synthetic *p, mb_dataset *train, mb_dataset *test,
                      mb_error *err)
{
    memset(train, 0, sizeof *train);
    memset(test, 0, sizeof *test);
    if (p->n < 1 || p->test < 1 || p->c < 1 || p->h < 1 || p->w < 1 || p->classes < 2 ||
        !(p->noise >= 0))
        return mb_error_set(err, MB_EINVAL,
                            "synthetic: need n, test, c, h, w >= 1, classes >= 2 and noise >= 0");
    size_t per = (size_t)p->c * p->h * p->w;
    float *proto = malloc((size_t)p->classes * per * sizeof *proto);
    float *tmp = malloc(per * sizeof *tmp);
    int rc = proto && tmp ? MB_OK : mb_error_set(err, MB_ENOMEM, "synthetic: out of memory");
    if (rc == MB_OK)
        rc = mb_dataset_alloc(train, p->n, p->c, p->h, p->w, p->classes, "synthetic", err);
    if (rc == MB_OK)
        rc = mb_dataset_alloc(test, p->test, p->c, p->h, p->w, p->classes, "synthetic", err);
    if (rc == MB_OK) {
        mb_rng r;
        mb_rng_seed(&r, (uint64_t)p->seed);
        make_prototypes(p, &r, proto, tmp);
        make_samples(p, &r, proto, train);
        make_samples(p, &r, proto, test);
    } else {
        mb_dataset_free(train);
        mb_dataset_free(test);
    }
    free(proto);
    free(tmp);
    return rc;
}
