/* repeat.c — the first row of a list that repeats an earlier one (a run, a setting, a point
 * given twice; a name: a table's column or metadata key), found by sorting a copy of the rows'
 * keys: n log n, where comparing every row with every earlier one took minutes on a file of 10^5
 * rows (campaign 29's B1; a header of 10^5 columns, campaign 33's Q4).
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

typedef struct named {
    const char *s;
    size_t i;
} named;

static int named_cmp(const void *pa, const void *pb)
{
    const named *a = pa, *b = pb;
    int c = strcmp(a->s, b->s);
    return c ? c : (a->i > b->i) - (a->i < b->i);
}

int mb_data_sort_names(const char *const *names, size_t n, size_t *order)
{
    named *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return -1;
    for (size_t i = 0; i < n; i++)
        v[i].s = names[i], v[i].i = i;
    qsort(v, n, sizeof *v, named_cmp);
    for (size_t i = 0; i < n; i++)
        order[i] = v[i].i;
    free(v);
    return 0;
}

int mb_data_first_repeat_name(const char *const *names, size_t n, size_t *at, size_t *first)
{
    if (n < 2)
        return 0;
    size_t *o = malloc(n * sizeof *o);
    if (!o || mb_data_sort_names(names, n, o) != 0) {
        free(o);
        return -1;
    }
    /* each name's places are a run, in order: its second repeats its first; the earliest one */
    int found = 0;
    for (size_t j = 1; j < n; j++)
        if (strcmp(names[o[j]], names[o[j - 1]]) == 0 &&
            (j < 2 || strcmp(names[o[j - 2]], names[o[j]]) != 0) && (!found || o[j] < *at))
            *at = o[j], *first = o[j - 1], found = 1;
    free(o);
    return found;
}
