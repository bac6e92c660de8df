/* repeat.c — the first row of a list that repeats an earlier one (a run, a setting, a point
 * given twice), found by sorting a copy of the rows' keys: n log n, where comparing every row
 * with every earlier one took minutes on a file of 10^5 rows (campaign 29's B1).
 */
#include "mb_parse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct keyed {
    const double *key; /* k values (k kept in each: qsort passes the comparison no context) */
    size_t k, row;
} keyed;

/* Equal values compare equal, NaN (a field not given) equal to NaN and below every number. */
static int value_cmp(double x, double y)
{
    if (isnan(x) || isnan(y))
        return isnan(y) - isnan(x);
    return (x > y) - (x < y);
}

static int keys_cmp(const double *a, const double *b, size_t k)
{
    for (size_t j = 0; j < k; j++) {
        int c = value_cmp(a[j], b[j]);
        if (c)
            return c;
    }
    return 0;
}

static int keyed_cmp(const void *pa, const void *pb)
{
    const keyed *a = pa, *b = pb;
    int c = keys_cmp(a->key, b->key, a->k);
    return c ? c : (a->row > b->row) - (a->row < b->row);
}

int mb_data_first_repeat(const double *keys, size_t n, size_t k, size_t *at, size_t *first)
{
    if (n < 2)
        return 0;
    keyed *v = malloc(n * sizeof *v);
    if (!v)
        return -1;
    for (size_t i = 0; i < n; i++)
        v[i].key = keys + i * k, v[i].k = k, v[i].row = i;
    qsort(v, n, sizeof *v, keyed_cmp);
    /* each key's rows are a run, in row order: its second repeats its first; the earliest one */
    int found = 0;
    for (size_t j = 1; j < n; j++)
        if (keys_cmp(v[j].key, v[j - 1].key, k) == 0 &&
            (j < 2 || keys_cmp(v[j - 2].key, v[j].key, k) != 0) && (!found || v[j].row < *at))
            *at = v[j].row, *first = v[j - 1].row, found = 1;
    free(v);
    return found;
}
