/* comm.c — collective costs from a collective probe table (op,procs,bytes,reps,t_median_s,...).
 *
 * Per (op, procs): the alpha-beta line t = a + b bytes (Hockney), and one pooled fit over every
 * allreduce row with procs >= 2 of the ring model t = 2(P-1) latency_s + 2(P-1)/P bytes s_per_byte
 * (Thakur et al. 2005; exactly model/'s MB_COMM_ALPHA_BETA), which is what mbopt reads. Both
 * coefficients are kept >= 0: a negative one is reported as a warning with its unconstrained
 * value, then held at 0 and the other refitted (mb_fit_nonneg_linear). No other collective
 * algorithm (tree, recursive doubling) is modelled here.
 */
#include "mb_fit.h"
#include "../data/mb_json.h"
#include "../data/mb_parse.h"
#include "../data/mb_format.h"

#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const line_names[] = {"a_s", "b_s_per_byte"};
static const char *const ring_names[] = {"latency_s", "s_per_byte"};

void mb_fit_comm_free(mb_fit_comm *c)
{
    if (!c)
        return;
    for (size_t i = 0; c->fits && i < c->n_fits; i++)
        mb_fit_result_free(&c->fits[i].fit);
    free(c->fits);
    mb_fit_result_free(&c->ring);
    memset(c, 0, sizeof *c);
}

/* Whether v (n values) holds two different ones: a line needs two message sizes. */
static int two_sizes(const double *v, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (v[i] != v[0])
            return 1;
    return 0;
}

/* A row's (op, procs) and its index: the rows sorted by them are each pair's rows in a block,
 * in table order (comparing each row with every later one took 31 s on 200,000 rows:
 * campaign 29's B1). */
typedef struct op_row {
    const char *op;
    double p;
    size_t r;
} op_row;

static int op_row_cmp(const void *a, const void *b)
{
    const op_row *x = a, *y = b;
    int c = strcmp(x->op, y->op);
    if (c)
        return c;
    if (x->p != y->p)
        return (x->p > y->p) - (x->p < y->p);
    return (x->r > y->r) - (x->r < y->r);
}

/* The rows grouped by (op, procs): g[0..n) the rows block by block, at[r] where row r's block
 * starts in g; the blocks in order of first appearance are those whose first row is r for
 * r = 0, 1, ... */
static int group_rows(const mb_table *t, size_t co, const double *P, size_t n, size_t *g,
                      size_t *at)
{
    op_row *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return MB_ENOMEM;
    for (size_t r = 0; r < n; r++)
        v[r] = (op_row){mb_table_cell(t, r, co), P[r], r};
    qsort(v, n, sizeof *v, op_row_cmp);
    for (size_t j = 0, s = 0; j < n; j++) {
        if (j > 0 && (strcmp(v[j].op, v[j - 1].op) != 0 || v[j].p != v[j - 1].p))
            s = j;
        g[j] = v[j].r, at[v[j].r] = s;
    }
    free(v);
    return MB_OK;
}

/* Row r's columns beside the fitted ones (campaign 21's N11: bytes 6, alg_bw_Bps 5, wide 2 and
 * stop 'frob' were taken): bytes a multiple of 4 (mbprobe comm sends float32 data), alg_bw_Bps,
 * where given, bytes / t_median_s to 1% (the probe writes 7 digits), and the probe's columns. */
static int comm_row_more(const mb_table *t, size_t r, double bytes, double tm, mb_error *err)
{
    const char *path = mb_table_path(t);
    const long line = mb_table_line(t, r), cb = mb_table_col(t, "alg_bw_Bps");
    if (fmod(bytes, 4) != 0)
        return mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'bytes': %g is not a multiple of 4 "
                            "(mbprobe comm sends float32 data)", path, line, bytes);
    double bw;
    if (cb >= 0 && *mb_table_cell(t, r, (size_t)cb)) {
        int rc = mb_table_double_in(t, r, (size_t)cb, 0, HUGE_VAL, 0, &bw, err);
        if (rc != MB_OK)
            return rc;
        if (tm > 0 && fabs(bw - bytes / tm) > 1e-2 * (bytes / tm))
            return mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'alg_bw_Bps': %s is not bytes / "
                                "t_median_s (%.6g)", path, line, mb_table_cell(t, r, (size_t)cb),
                                bytes / tm);
    }
    return mb_fit_probe_row_check(t, r, err);
}

int mb_fit_comm_table_check(const mb_table *t, mb_error *err)
{
    const char *path = mb_table_path(t);
    size_t co, cp, cb, ct, n = mb_table_rows(t);
    int rc;
    if ((rc = mb_table_require_col(t, "op", &co, err)) != MB_OK ||
        (rc = mb_table_require_col(t, "procs", &cp, err)) != MB_OK ||
        (rc = mb_table_require_col(t, "bytes", &cb, err)) != MB_OK ||
        (rc = mb_table_require_col(t, "t_median_s", &ct, err)) != MB_OK)
        return rc;
    static const char *const known[] = {"op", "procs", "bytes", "reps", "t_median_s", "t_min_s",
                                        "t_max_s", "t_rank_min_s", "t_rank_max_s", "alg_bw_Bps",
                                        "bus_bw_Bps", "wide", "stop"};
    if ((rc = mb_fit_table_columns(t, known, sizeof known / sizeof known[0],
                                   "a collective table's (mbprobe comm's columns)", err)) != MB_OK)
        return rc;
    if (n == 0)
        return mb_error_set(err, MB_EFORMAT, "%s: no rows after the header", path);
    double *P = malloc(n * sizeof *P), *B = malloc(n * sizeof *B), *T = malloc(n * sizeof *T);
    double *key = malloc(3 * n * sizeof *key);
    if (!P || !B || !T || !key) {
        rc = mb_error_set(err, MB_ENOMEM, "out of memory");
        goto done;
    }
    long crp = mb_table_col(t, "reps");
    for (size_t r = 0; r < n; r++) {
        /* a collective needs 2 processes or more, and at most MB_FIT_MAX_PROCS (campaign 38's
         * D4: 1e11 was pooled into the ring model); a process count, a byte count (>= 1, as
         * mbprobe comm --bytes) and a repetition count are whole, in digits alone as mbprobe
         * comm prints them (campaign 40's D5: reps 20.0 was read); a time past 1e9 s (31 years)
         * would overflow the fit's sums of squares */
        double rp;
        const int wr = MB_TABLE_WRITTEN;
        if ((rc = mb_table_double_in(t, r, cp, 2, MB_FIT_MAX_PROCS, wr, &P[r], err)) != MB_OK ||
            (crp >= 0 && (rc = mb_table_double_in(t, r, (size_t)crp, 1, MB_DATA_RANGE_MAX, wr,
                                                  &rp, err)) != MB_OK) ||
            (rc = mb_table_double_in(t, r, cb, 1, MB_DATA_RANGE_MAX, wr, &B[r], err)) != MB_OK ||
            (rc = mb_fit_probe_time(t, r, ct, &T[r], err)) != MB_OK)
            goto done;
        /* the collectives mbprobe comm times (probe/comm.c's names): another op is no row of
         * this table, and would be fitted as if it were one */
        static const char *const ops[] = {"allreduce", "reduce_bcast", "ps"};
        const char *op = mb_table_cell(t, r, co);
        if (strcmp(op, ops[0]) != 0 && strcmp(op, ops[1]) != 0 && strcmp(op, ops[2]) != 0) {
            rc = mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'op': '%s' is not allreduce, "
                              "reduce_bcast or ps", path, mb_table_line(t, r), op);
            goto done;
        }
        static const char *const ranks[] = {"t_rank_min_s", "t_rank_max_s", NULL};
        if ((rc = mb_table_check_spread(t, r, err)) != MB_OK || /* t_min_s <= ... <= t_max_s */
            (rc = mb_table_check_order(t, r, ranks, err)) != MB_OK ||
            (rc = comm_row_more(t, r, B[r], T[r], err)) != MB_OK)
            goto done;
        const char *bad = P[r] < 1 ? "procs" : B[r] < 0 ? "bytes" : T[r] <= 0 ? "t_median_s" : 0;
        if (bad) {
            rc = mb_error_set(err, MB_EFORMAT, "%s:%ld: field '%s': must be %s", path,
                              mb_table_line(t, r), bad,
                              bad[0] == 'p' ? ">= 1" : bad[0] == 'b' ? ">= 0" : "> 0");
            goto done;
        }
        key[3 * r] = strcmp(op, ops[0]) == 0 ? 0 : strcmp(op, ops[1]) == 0 ? 1 : 2;
        key[3 * r + 1] = P[r], key[3 * r + 2] = B[r];
    }
    /* one row a point: a copied row would count twice (by sorting: campaign 29's B1) */
    size_t at, q;
    int found = mb_data_first_repeat(key, n, 3, &at, &q);
    if (found < 0)
        rc = mb_error_set(err, MB_ENOMEM, "out of memory");
    else if (found)
        rc = mb_error_set(err, MB_EFORMAT, "%s:%ld: %s, procs %g, bytes %g given twice (line %ld "
                          "too)", path, mb_table_line(t, at), mb_table_cell(t, at, co), P[at],
                          B[at], mb_table_line(t, q));
done:
    free(P);
    free(B);
    free(T);
    free(key);
    return rc;
}

int mb_fit_comm_table(const char *path, mb_fit_weighting w, mb_fit_comm *out, mb_error *err)
{
    memset(out, 0, sizeof *out);
    mb_table *t;
    int rc = mb_table_read(path, &t, err);
    if (rc != MB_OK)
        return rc;
    if ((rc = mb_format_check_table(t, MB_FORMAT_COMM, err)) == MB_OK)
        rc = mb_fit_comm_of_table(t, w, out, err);
    mb_table_free(t);
    return rc;
}

int mb_fit_comm_of_table(const mb_table *t, mb_fit_weighting w, mb_fit_comm *out, mb_error *err)
{
    memset(out, 0, sizeof *out);
    const char *path = mb_table_path(t);
    int rc = MB_OK;
    size_t co, cp, cb, ct, n = mb_table_rows(t);
    double *P = malloc((n + 1) * sizeof *P), *B = malloc((n + 1) * sizeof *B),
           *T = malloc((n + 1) * sizeof *T), *X = malloc(2 * (n + 1) * sizeof *X),
           *y = malloc((n + 1) * sizeof *y), *bv = malloc((n + 1) * sizeof *bv);
    size_t *g = malloc((n + 1) * sizeof *g), *at = malloc((n + 1) * sizeof *at);
    if (!P || !B || !T || !X || !y || !bv || !g || !at) {
        rc = mb_error_set(err, MB_ENOMEM, "out of memory");
        goto out;
    }
    if ((rc = mb_table_require_col(t, "op", &co, err)) != MB_OK ||
        (rc = mb_table_require_col(t, "procs", &cp, err)) != MB_OK ||
        (rc = mb_table_require_col(t, "bytes", &cb, err)) != MB_OK ||
        (rc = mb_table_require_col(t, "t_median_s", &ct, err)) != MB_OK)
        goto out;
    if (n == 0) {
        rc = mb_error_set(err, MB_EFORMAT, "%s: no rows after the header", path);
        goto out;
    }
    if ((rc = mb_fit_comm_table_check(t, err)) != MB_OK)
        goto out;
    for (size_t r = 0; r < n; r++) { /* checked: every cell a number in range */
        (void)mb_table_double(t, r, cp, &P[r], err);
        (void)mb_table_double(t, r, cb, &B[r], err);
        (void)mb_table_double(t, r, ct, &T[r], err);
    }
    if (!(out->fits = calloc(n, sizeof *out->fits))) {
        rc = mb_error_set(err, MB_ENOMEM, "out of memory");
        goto out;
    }
    if (group_rows(t, co, P, n, g, at) != MB_OK) {
        rc = mb_error_set(err, MB_ENOMEM, "out of memory");
        goto out;
    }
    /* Per (op, procs), in order of first appearance. */
    for (size_t r0 = 0; r0 < n; r0++) {
        if (g[at[r0]] != r0) /* not its block's first row */
            continue;
        const char *op = mb_table_cell(t, r0, co);
        size_t k = 0;
        for (size_t j = at[r0]; j < n && at[g[j]] == at[r0]; j++) {
            size_t r = g[j];
            X[2 * k] = 1.0, X[2 * k + 1] = B[r], y[k] = T[r], bv[k] = B[r];
            k++;
        }
        char what[96];
        snprintf(what, sizeof what, "%s procs=%g", op, P[r0]);
        if (!two_sizes(bv, k)) {
            mb_fit_warn(&out->warn, "%s: one message size only, no line fitted", what);
            continue;
        }
        mb_fit_comm_one *f = &out->fits[out->n_fits];
        snprintf(f->op, sizeof f->op, "%s", op);
        f->procs = P[r0];
        double bf[2];
        rc = mb_fit_nonneg_linear("alpha-beta", line_names, k, 2, X, y,
                                  w == MB_FIT_W_NONE ? NULL : y, bf, &f->fit, &out->warn, what,
                                  err);
        out->n_fits++;
        if (rc != MB_OK)
            goto out;
        f->a_free = bf[0], f->b_free = bf[1];
    }
    /* The pooled ring fit. */
    size_t k = 0;
    for (size_t r = 0; r < n; r++)
        if (P[r] >= 2 && strcmp(mb_table_cell(t, r, co), "allreduce") == 0) {
            X[2 * k] = 2.0 * (P[r] - 1.0);
            X[2 * k + 1] = 2.0 * (P[r] - 1.0) / P[r] * B[r];
            y[k] = T[r], bv[k] = B[r];
            k++;
        }
    if (k == 0 || !two_sizes(bv, k)) {
        rc = mb_error_set(err, MB_ENODATA,
                          "%s: the ring model needs allreduce rows with procs >= 2 at two or "
                          "more message sizes (found %zu rows)",
                          path, k);
        goto out;
    }
    rc = mb_fit_nonneg_linear("alpha-beta-ring", ring_names, k, 2, X, y,
                              w == MB_FIT_W_NONE ? NULL : y, out->ring_free, &out->ring,
                              &out->warn, "ring allreduce", err);
    if (rc == MB_OK && out->ring.r2 < 0.9)
        mb_fit_warn(&out->warn, "ring allreduce: R^2 = %.3f, the alpha-beta ring model explains "
                                "these timings poorly (check the per-procs lines)",
                    out->ring.r2);
out:
    free(P), free(B), free(T), free(X), free(y), free(bv), free(g), free(at);
    if (rc != MB_OK)
        mb_fit_comm_free(out);
    return rc;
}

cJSON *mb_fit_comm_json(const mb_fit_comm *c, const char *path, mb_fit_weighting w)
{
    cJSON *root = mb_fit_result_json(&c->ring);
    if (!root)
        return NULL;
    cJSON_ReplaceItemInObject(root, "model", cJSON_CreateString("alpha-beta-ring"));
    cJSON_AddStringToObject(root, "formula",
                            "t = 2(P-1) latency_s + 2(P-1)/P bytes s_per_byte, pooled over "
                            "allreduce rows with procs >= 2");
    cJSON *uf = cJSON_AddObjectToObject(root, "unconstrained");
    if (uf) {
        mb_json_add_number(uf, "latency_s", c->ring_free[0]);
        mb_json_add_number(uf, "s_per_byte", c->ring_free[1]);
    }
    cJSON *in = cJSON_AddObjectToObject(root, "inputs");
    if (in) {
        cJSON_AddStringToObject(in, "file", path);
        cJSON_AddStringToObject(in, "weights", mb_fit_weighting_name(w));
    }
    cJSON *fits = cJSON_AddArrayToObject(root, "fits");
    for (size_t i = 0; fits && i < c->n_fits; i++) {
        const mb_fit_comm_one *f = &c->fits[i];
        cJSON *o = cJSON_CreateObject();
        if (!o)
            break;
        cJSON_AddStringToObject(o, "op", f->op);
        mb_json_add_number(o, "procs", f->procs);
        mb_fit_json_merge(o, mb_fit_result_json(&f->fit));
        cJSON *u = cJSON_AddObjectToObject(o, "unconstrained");
        if (u) {
            mb_json_add_number(u, "a_s", f->a_free);
            mb_json_add_number(u, "b_s_per_byte", f->b_free);
        }
        cJSON_AddItemToArray(fits, o);
    }
    cJSON_AddItemToObject(root, "warnings", mb_fit_warnings_json(&c->warn));
    return root;
}
