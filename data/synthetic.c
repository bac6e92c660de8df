/* synthetic.c — a generated, learnable labelled image set for tests and benchmarks that need no
 * files: each class has a smooth random prototype image, and a sample is its class's prototype
 * plus Gaussian noise, clamped to [0, 1]. Deterministic for a given seed.
 *
 * It is not a model of any real data set: it is as hard as `noise` makes it, and with the
 * defaults a nearest-class-mean classifier is nearly perfect, so a trainer that fails to learn
 * it is broken.
 */
#include "dataset_impl.h"
#include "mb_dataset.h"
#include "mb_parse.h"
#include "mb_rng.h"

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

/* The integer keys of a synthetic spec and their ranges. */
enum { KEY_N, KEY_TEST, KEY_C, KEY_H, KEY_W, KEY_CLASSES, KEY_SEED, NKEYS };
static const struct {
    const char *name;
    long lo, hi;
} int_keys[NKEYS] = {
    [KEY_N] = {"n", 1, SYN_MAX_SAMPLES},         [KEY_TEST] = {"test", 1, SYN_MAX_SAMPLES},
    [KEY_C] = {"c", 1, SYN_MAX_CHANNELS},        [KEY_H] = {"h", 1, SYN_MAX_SIDE},
    [KEY_W] = {"w", 1, SYN_MAX_SIDE},            [KEY_CLASSES] = {"classes", 2, SYN_MAX_CLASSES},
    [KEY_SEED] = {"seed", 0, LONG_MAX},
};

/* Applies one key=value item to *p. */
static int parse_item(const char *k, const char *v, mb_synthetic *p, mb_error *err)
{
    if (strcmp(k, "noise") == 0) {
        double d;
        if (mb_data_parse_double(v, &d) != MB_OK || d < 0 || d > SYN_MAX_NOISE)
            return mb_error_set(err, MB_EINVAL, "synthetic: noise='%s' is not a number in 0..%g",
                                v, SYN_MAX_NOISE);
        p->noise = d;
        return MB_OK;
    }
    int key = 0;
    while (key < NKEYS && strcmp(k, int_keys[key].name) != 0)
        key++;
    if (key == NKEYS)
        return mb_error_set(err, MB_EINVAL,
                            "synthetic: unknown key '%s' (known: n, test, c, h, w, classes, seed, "
                            "noise)",
                            k);
    long x;
    if (mb_data_parse_long(v, int_keys[key].lo, int_keys[key].hi, &x) != MB_OK)
        return mb_error_set(err, MB_EINVAL, "synthetic: %s='%s' is not a whole number in %ld..%ld",
                            k, v, int_keys[key].lo, int_keys[key].hi);
    switch (key) {
    case KEY_N: p->n = (size_t)x; break;
    case KEY_TEST: p->test = (size_t)x; break;
    case KEY_C: p->c = (int)x; break;
    case KEY_H: p->h = (int)x; break;
    case KEY_W: p->w = (int)x; break;
    case KEY_CLASSES: p->classes = (int)x; break;
    default: p->seed = (unsigned long)x; break;
    }
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
    char **items;
    size_t k;
    int rc = mb_data_split_list(spec + 10, "synthetic", 1, &items, &k, err);
    for (size_t i = 0; rc == MB_OK && i < k; i++) {
        char *eq = strchr(items[i], '='); /* there is one: a keyed list */
        *eq = '\0';
        rc = parse_item(items[i], eq + 1, p, err);
    }
    free(items);
    if (rc == MB_OK && (p->n + p->test) * (size_t)p->c * p->h * p->w > SYN_MAX_VALUES)
        rc = mb_error_set(err, MB_EINVAL,
                          "synthetic: %zu + %zu samples of %dx%dx%d exceed %zu values in all",
                          p->n, p->test, p->c, p->h, p->w, SYN_MAX_VALUES);
    return rc;
}

/* A standard normal deviate (Box-Muller; one of the pair is thrown away for simplicity). */
static double normal(uint64_t *r)
{
    double u = mb_rng_uniform(r), v = mb_rng_uniform(r);
    return sqrt(-2.0 * log(1.0 - u)) * cos(2.0 * M_PI * v);
}

/* The class prototypes: uniform pixels, averaged over each 3x3 neighbourhood (edges clamped)
 * within a channel, then stretched so every prototype spans [0, 1]. */
static void make_prototypes(const mb_synthetic *p, uint64_t *r, float *proto, float *tmp)
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
static void make_samples(const mb_synthetic *p, uint64_t *r, const float *proto, mb_dataset *d)
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
        uint64_t r = (uint64_t)p->seed;
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
