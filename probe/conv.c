/* conv.c — the convolution probe: each of train/'s convolution algorithms on one layer shape,
 * its three passes timed by the harness through the same plans mb_net uses, with the workspace
 * each pass needs; and the cache that makes a repeated sweep free.
 *
 * The cache is a CSV file of measured points keyed by everything the time depends on: host, CPU
 * model, OpenBLAS threads, the layer's shape, algorithm, pass and batch. A point whose key is
 * there is not measured again; new points are added and the file is rewritten atomically.
 *
 * Does not: pick an algorithm (mbopt conv does, from the table this feeds).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../data/mb_data.h"
#include "mb_probe.h"

typedef struct conv_bench {
    const mb_conv_plan *plan;
    mb_conv_pass pass;
    int batch;
    float *x, *w, *b, *y, *dx, *dw, *db;
    void *ws;
} conv_bench;

static int conv_run(void *ctx)
{
    conv_bench *c = ctx;
    switch (c->pass) {
    case MB_PASS_FORWARD:
        return mb_conv_plan_forward(c->plan, c->batch, c->x, c->w, c->b, c->y, c->ws);
    case MB_PASS_BACKWARD_DATA:
        return mb_conv_plan_backward_data(c->plan, c->batch, c->y, c->w, c->dx, c->ws);
    case MB_PASS_BACKWARD_FILTER:
        return mb_conv_plan_backward_filter(c->plan, c->batch, c->x, c->y, c->dw, c->db, c->ws);
    }
    return MB_EINVAL;
}

static void fill(float *v, size_t n, uint64_t *rng)
{
    for (size_t i = 0; i < n; i++)
        v[i] = 2.0f * mb_rng_uniformf(rng) - 1.0f;
}

int mb_probe_conv_time(const mb_conv_shape *s, mb_conv_algo algo, const int *passes,
                       const mb_probe_options *o, mb_probe_stats st[3], mb_error *err)
{
    mb_conv_plan *plan = NULL;
    int rc = mb_conv_plan_create(algo, s, &plan, err);
    if (rc != MB_OK)
        return rc;
    size_t nx = (size_t)s->batch * s->in_c * s->in_h * s->in_w;
    size_t ny = (size_t)s->batch * s->out_c * mb_conv_out_h(s) * mb_conv_out_w(s);
    size_t nw = (size_t)s->out_c * s->in_c * s->k * s->k;
    size_t ws = 0;
    for (int p = 0; p < 3; p++) {
        size_t b = mb_conv_workspace(algo, (mb_conv_pass)p, s);
        ws = b > ws ? b : ws;
    }
    conv_bench c = {.plan = plan, .batch = s->batch};
    c.x = mb_train_alloc64(nx * sizeof(float));
    c.dx = mb_train_alloc64(nx * sizeof(float));
    c.y = mb_train_alloc64(ny * sizeof(float));
    c.w = mb_train_alloc64(nw * sizeof(float));
    c.dw = mb_train_alloc64(nw * sizeof(float));
    c.b = mb_train_alloc64((size_t)s->out_c * sizeof(float));
    c.db = mb_train_alloc64((size_t)s->out_c * sizeof(float));
    c.ws = mb_train_alloc64(ws);
    if (!c.x || !c.dx || !c.y || !c.w || !c.dw || !c.b || !c.db || !c.ws) {
        rc = mb_error_set(err, MB_ENOMEM, "conv: out of memory for batch %d", s->batch);
        goto done;
    }
    uint64_t rng = 0x434F4E5650524F42ull;
    fill(c.x, nx, &rng);
    fill(c.y, ny, &rng); /* the forward output, then the incoming gradient of the backward passes */
    fill(c.w, nw, &rng);
    fill(c.b, (size_t)s->out_c, &rng);
    for (int p = 0; p < 3 && rc == MB_OK; p++) {
        if (!passes[p])
            continue;
        c.pass = (mb_conv_pass)p;
        mb_probe_task task = {.run = conv_run, .ctx = &c};
        rc = mb_probe_time(&task, o, &st[p], err);
    }
done:
    free(c.x), free(c.dx), free(c.y), free(c.w), free(c.dw), free(c.b), free(c.db), free(c.ws);
    mb_conv_plan_free(plan);
    return rc;
}

/* ---- the cache --------------------------------------------------------------------------------- */

typedef struct cache_entry {
    char *key;
    mb_probe_stats st;
} cache_entry;

struct mb_probe_cache {
    char *path;
    cache_entry *e;
    size_t n, cap;
    int dirty;
};

void mb_probe_cache_free(mb_probe_cache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++)
        free(c->e[i].key);
    free(c->e);
    free(c->path);
    free(c);
}

static int cache_add(mb_probe_cache *c, const char *key, const mb_probe_stats *st)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        cache_entry *e = realloc(c->e, cap * sizeof *e);
        if (!e)
            return MB_ENOMEM;
        c->e = e;
        c->cap = cap;
    }
    char *k = strdup(key);
    if (!k)
        return MB_ENOMEM;
    c->e[c->n].key = k;
    c->e[c->n].st = *st;
    c->n++;
    return MB_OK;
}

static const char *const cache_cols[] = {"key", "reps", "t_median_s", "t_min_s", "t_p25_s",
                                         "t_p75_s", "t_max_s"};

int mb_probe_cache_open(const char *path, mb_probe_cache **out, mb_error *err)
{
    *out = NULL;
    mb_probe_cache *c = calloc(1, sizeof *c);
    if (!c || !(c->path = strdup(path))) {
        free(c);
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    }
    struct stat sb;
    if (stat(path, &sb) != 0) { /* no cache yet: an empty one */
        *out = c;
        return MB_OK;
    }
    mb_table *t = NULL;
    int rc = mb_table_read(path, &t, err);
    size_t col[7];
    for (int i = 0; rc == MB_OK && i < 7; i++)
        rc = mb_table_require_col(t, cache_cols[i], &col[i], err);
    for (size_t r = 0; rc == MB_OK && r < mb_table_rows(t); r++) {
        double v[6];
        for (int i = 0; rc == MB_OK && i < 6; i++)
            rc = mb_table_double(t, r, col[i + 1], &v[i], err);
        if (rc != MB_OK)
            break;
        mb_probe_stats st = {.reps = (size_t)v[0], .median = v[1], .min = v[2], .p25 = v[3],
                             .p75 = v[4], .max = v[5], .ci_lo = NAN, .ci_hi = NAN,
                             .ci_cover = NAN, .drift = NAN};
        if (cache_add(c, mb_table_cell(t, r, col[0]), &st) != MB_OK)
            rc = mb_error_set(err, MB_ENOMEM, "out of memory");
    }
    mb_table_free(t);
    if (rc != MB_OK) {
        mb_probe_cache_free(c);
        if (rc == MB_EFORMAT && err) {
            char why[sizeof err->msg];
            snprintf(why, sizeof why, "%s", err->msg);
            mb_error_set(err, rc, "%s (a probe cache; remove it or use --no-cache)", why);
        }
        return rc;
    }
    *out = c;
    return MB_OK;
}

const mb_probe_stats *mb_probe_cache_get(const mb_probe_cache *c, const char *key)
{
    for (size_t i = c->n; i-- > 0;)
        if (strcmp(c->e[i].key, key) == 0)
            return &c->e[i].st;
    return NULL;
}

int mb_probe_cache_put(mb_probe_cache *c, const char *key, const mb_probe_stats *st,
                       mb_error *err)
{
    if (strpbrk(key, ",\n\r"))
        return mb_error_set(err, MB_EINVAL, "cache key '%s' holds a comma or newline", key);
    if (cache_add(c, key, st) != MB_OK)
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    c->dirty = 1;
    return MB_OK;
}

/* mkdir -p of the folder holding `path`. */
static int make_parent(const char *path, mb_error *err)
{
    char *d = strdup(path);
    if (!d)
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    char *slash = strrchr(d, '/');
    int rc = MB_OK;
    if (slash && slash != d) {
        *slash = '\0';
        for (char *p = d + 1; rc == MB_OK; p++) {
            if (*p != '/' && *p != '\0')
                continue;
            char keep = *p;
            *p = '\0';
            if (mkdir(d, 0777) != 0 && errno != EEXIST)
                rc = mb_error_set(err, MB_EIO, "%s: cannot create folder: %s", d,
                                  strerror(errno));
            *p = keep;
            if (keep == '\0')
                break;
        }
    }
    free(d);
    return rc;
}

int mb_probe_cache_save(mb_probe_cache *c, mb_error *err)
{
    if (!c->dirty)
        return MB_OK;
    int rc = make_parent(c->path, err);
    mb_out out;
    if (rc != MB_OK || (rc = mb_out_open(&out, c->path, err)) != MB_OK)
        return rc;
    fprintf(out.f, "# tool=mbprobe conv\n# cache=convolution timings, keyed by host|cpu|"
                   "threads|shape|algo|pass|batch\n");
    for (int i = 0; i < 7; i++)
        fprintf(out.f, "%s%s", cache_cols[i], i < 6 ? "," : "\n");
    for (size_t i = 0; i < c->n; i++) {
        const mb_probe_stats *s = &c->e[i].st;
        fprintf(out.f, "%s,%zu,%.6g,%.6g,%.6g,%.6g,%.6g\n", c->e[i].key, s->reps, s->median,
                s->min, s->p25, s->p75, s->max);
    }
    if ((rc = mb_out_commit(&out, err)) == MB_OK)
        c->dirty = 0;
    return rc;
}

/* A copy of `s` with commas and newlines (CSV-unsafe) replaced by ';' and ' '. */
static void clean(char *dst, size_t n, const char *s)
{
    snprintf(dst, n, "%s", s);
    for (char *p = dst; *p; p++)
        *p = *p == ',' ? ';' : (*p == '\n' || *p == '\r') ? ' ' : *p;
}

void mb_probe_conv_key(char *buf, size_t n, const mb_probe_host *h, const char *host, int threads,
                       const mb_conv_shape *s, mb_conv_algo algo, mb_conv_pass pass)
{
    char cpu[256], hn[128];
    clean(cpu, sizeof cpu, h->cpu_model);
    clean(hn, sizeof hn, host);
    snprintf(buf, n, "%s|%s|t%d|%dx%dx%d>%dk%ds%dp%d|%s|%s|%d", hn, cpu, threads, s->in_c,
             s->in_h, s->in_w, s->out_c, s->k, s->stride, s->pad, mb_conv_algo_name(algo),
             mb_conv_pass_name(pass), s->batch);
}

/* ---- the convolution table --------------------------------------------------------------------- */

void mb_probe_conv_write_header(FILE *f)
{
    fputs("layer,algo,pass,batch,t_median_s,workspace_bytes,reps,t_min_s,t_p25_s,t_p75_s,"
          "t_max_s,in_c,in_h,in_w,out_c,k,stride,pad,status\n", f);
}

void mb_probe_conv_write_row(FILE *f, const mb_probe_conv_row *r)
{
    const mb_conv_shape *s = &r->shape;
    fprintf(f, "%s,%s,%s,%d,", r->layer, mb_conv_algo_name(r->algo), mb_conv_pass_name(r->pass),
            s->batch);
    if (r->supported)
        fprintf(f, "%.6g,%zu,%zu,%.6g,%.6g,%.6g,%.6g,", r->st.median, r->workspace_bytes,
                r->st.reps, r->st.min, r->st.p25, r->st.p75, r->st.max);
    else
        fputs(",,,,,,,", f);
    fprintf(f, "%d,%d,%d,%d,%d,%d,%d,%s\n", s->in_c, s->in_h, s->in_w, s->out_c, s->k, s->stride,
            s->pad, r->supported ? (r->cached ? "cached" : "measured") : "unsupported");
}
