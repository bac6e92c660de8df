/* conv.c — the convolution probe: every convolution algorithm a context's backend offers, for
 * each pass (cuDNN has a list per pass; the CPU its four for every pass), on each layer shape,
 * timed by the harness through the context's plans (what mb_net runs), with the workspace each
 * pass needs; the sweep over a network's layers and batch sizes; and the cache that makes a
 * repeated sweep free.
 *
 * A timed call is the pass followed by mb_ctx_sync, so a device's asynchronous work is timed, not
 * only its launch. A workspace that cannot be allocated is a row with status "out of memory":
 * on a GPU the largest algorithms at large M do not fit, and that is a finding (mbopt conv skips
 * those rows), not a failure of the sweep.
 *
 * The cache is a CSV file of measured points keyed by everything the time depends on: host,
 * backend, device, OpenBLAS threads, the kernels' code (MB_KERNELS_ID, a hash of train/'s backend
 * sources made by the Makefile: a point timed by other kernels is not this build's), the layer's
 * shape, algorithm, pass and batch. A point whose key is there is not measured again; new points
 * are added and the file is rewritten atomically.
 *
 * Does not: pick an algorithm (mbopt conv does, from the table this feeds), or print.
 */
#include "kernels.h" /* generated: MB_KERNELS_ID */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../data/mb_rng.h"
#include "../data/mb_parse.h"
#include "../data/mb_table.h"
#include "../data/mb_format.h"
#include "../data/mb_output.h"
#include "mb_probe.h"

typedef struct conv_bench {
    mb_ctx *ctx;
    const mb_ctx_conv *plan;
    mb_conv_pass pass;
    int batch;
    float *x, *w, *b, *y, *dx, *dw, *db; /* the context's memory */
    void *ws;
} conv_bench;

/* One pass, finished on the device. */
static int conv_run(void *arg)
{
    conv_bench *c = arg;
    int rc = MB_EINVAL;
    switch (c->pass) {
    case MB_PASS_FORWARD:
        rc = mb_ctx_conv_forward(c->plan, c->batch, c->x, c->w, c->b, c->y, c->ws);
        break;
    case MB_PASS_BACKWARD_DATA:
        rc = mb_ctx_conv_backward_data(c->plan, c->batch, c->y, c->w, c->dx, c->ws);
        break;
    case MB_PASS_BACKWARD_FILTER:
        rc = mb_ctx_conv_backward_filter(c->plan, c->batch, c->x, c->y, c->dw, c->db, c->ws);
        break;
    }
    mb_ctx_sync(c->ctx);
    return rc;
}

/* n uniform values in [-1, 1) written to the context's memory `dst`. */
static int fill(mb_ctx *ctx, float *dst, size_t n, uint64_t *rng)
{
    float *h = malloc((n ? n : 1) * sizeof *h);
    if (!h)
        return MB_ENOMEM;
    for (size_t i = 0; i < n; i++)
        h[i] = 2.0f * mb_rng_uniformf(rng) - 1.0f;
    int rc = mb_ctx_upload(ctx, dst, h, n * sizeof *h);
    free(h);
    return rc;
}

const char *mb_probe_conv_status_name(mb_probe_conv_status s)
{
    switch (s) {
    case MB_PROBE_CONV_MEASURED: return "measured";
    case MB_PROBE_CONV_CACHED: return "cached";
    case MB_PROBE_CONV_UNSUPPORTED: return "unsupported";
    case MB_PROBE_CONV_NOMEM: return "out of memory";
    case MB_PROBE_CONV_OVER_BUDGET: return "over budget";
    }
    return "unknown";
}

double mb_probe_conv_min_s(const mb_conv_shape *s, const char *backend, int threads)
{
    double flops = 2.0 * s->batch * s->out_c * (double)mb_conv_out_h(s) * mb_conv_out_w(s) *
                   s->in_c * s->k * (double)s->k;
    double peak = strcmp(backend, "cpu") == 0 ? 1e11 * (threads > 0 ? threads : 1) : 1e14;
    return flops / peak;
}

int mb_probe_conv_shape_ok(const mb_conv_shape *s, char *why, size_t n)
{
    const double lim = 2147483647.0;
    double oh = (double)s->in_h + 2.0 * s->pad, ow = (double)s->in_w + 2.0 * s->pad;
    const char *what = (double)s->in_c * s->in_h * s->in_w > lim   ? "C x H x W"
                       : (double)s->in_c * s->k * s->k > lim        ? "C x F x F"
                       : (double)s->out_c * oh * ow > lim            ? "K x OH x OW"
                       : (double)s->in_c * oh * ow > lim             ? "the padded C x H x W"
                       : (double)s->out_c * s->in_c * s->k * s->k > lim ? "K x C x F x F"
                                                                    : NULL;
    if (what)
        snprintf(why, n, "%s is past 2^31, more than the kernels count", what);
    return what == NULL;
}

/* Times the marked passes of a plan whose tensors are allocated: each pass with its own
 * workspace, allocated just before and released after, so one pass's large workspace does not
 * crowd out another's. */
static int time_passes(conv_bench *c, const int algo[3], const int *passes,
                       const mb_probe_options *o, mb_probe_stats st[3],
                       mb_probe_conv_status status[3], const mb_conv_shape *s, mb_error *err)
{
    int rc = MB_OK;
    for (int p = 0; p < 3 && rc == MB_OK; p++) {
        if (!passes[p])
            continue;
        size_t ws = mb_ctx_conv_workspace(c->ctx, (mb_conv_pass)p, algo[p], s);
        c->ws = mb_ctx_alloc(c->ctx, ws);
        if (!c->ws) {
            status[p] = MB_PROBE_CONV_NOMEM;
            continue;
        }
        c->pass = (mb_conv_pass)p;
        mb_probe_task task = {.run = conv_run, .ctx = c};
        rc = mb_probe_time(&task, o, &st[p], err);
        status[p] = MB_PROBE_CONV_MEASURED;
        mb_ctx_release(c->ctx, c->ws);
        c->ws = NULL;
    }
    return rc;
}

int mb_probe_conv_time(mb_ctx *ctx, const mb_conv_shape *s, const int algo[3], const int *passes,
                       const mb_probe_options *o, mb_probe_stats st[3],
                       mb_probe_conv_status status[3], mb_error *err)
{
    mb_ctx_conv *plan = NULL;
    int rc = mb_ctx_conv_create(ctx, s, algo, &plan, err);
    if (rc == MB_ENOMEM) { /* the plan's own memory did not fit: every pass is out of memory */
        for (int p = 0; p < 3; p++)
            if (passes[p])
                status[p] = MB_PROBE_CONV_NOMEM;
        return MB_OK;
    }
    if (rc != MB_OK)
        return rc;
    size_t nx = (size_t)s->batch * s->in_c * s->in_h * s->in_w;
    size_t ny = (size_t)s->batch * s->out_c * mb_conv_out_h(s) * mb_conv_out_w(s);
    size_t nw = (size_t)s->out_c * s->in_c * s->k * s->k, f = sizeof(float);
    conv_bench c = {.ctx = ctx, .plan = plan, .batch = s->batch};
    c.x = mb_ctx_alloc(ctx, nx * f);
    c.dx = mb_ctx_alloc(ctx, nx * f);
    c.y = mb_ctx_alloc(ctx, ny * f);
    c.w = mb_ctx_alloc(ctx, nw * f);
    c.dw = mb_ctx_alloc(ctx, nw * f);
    c.b = mb_ctx_alloc(ctx, (size_t)s->out_c * f);
    c.db = mb_ctx_alloc(ctx, (size_t)s->out_c * f);
    if (!c.x || !c.dx || !c.y || !c.w || !c.dw || !c.b || !c.db) {
        rc = mb_error_set(err, MB_ENOMEM, "conv: out of memory for the tensors of batch %d",
                          s->batch);
        goto done;
    }
    uint64_t rng = 0x434F4E5650524F42ull;
    /* y: the forward output, then the incoming gradient of the backward passes */
    if (fill(ctx, c.x, nx, &rng) != MB_OK || fill(ctx, c.y, ny, &rng) != MB_OK ||
        fill(ctx, c.w, nw, &rng) != MB_OK || fill(ctx, c.b, (size_t)s->out_c, &rng) != MB_OK) {
        rc = mb_error_set(err, MB_ENOMEM, "conv: could not fill the tensors of batch %d",
                          s->batch);
        goto done;
    }
    rc = time_passes(&c, algo, passes, o, st, status, s, err);
done:
    mb_ctx_release(ctx, c.x), mb_ctx_release(ctx, c.dx), mb_ctx_release(ctx, c.y);
    mb_ctx_release(ctx, c.w), mb_ctx_release(ctx, c.dw), mb_ctx_release(ctx, c.b);
    mb_ctx_release(ctx, c.db);
    mb_ctx_conv_free(plan);
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

/* The cache is this command's own output, written whole (temp file and rename) with a line end
 * after every line, so a last line without one was cut short (campaign 31's A5: cut inside its
 * last number, 1.6659e-05 s read as 1.66 s): MB_EFORMAT naming that line, which the caller
 * refuses as it refuses any damaged cache, rather than timing the row again (a cut cache may
 * have lost more than the one row). MB_OK for a file that ends in a line end, or is empty. */
static int cache_whole(const char *path, mb_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return MB_OK; /* read a moment ago: what fails now, the rewrite names */
    long line = 1;
    int c, last = '\n';
    while ((c = getc(f)) != EOF) {
        if (c == '\n')
            line++;
        last = c;
    }
    fclose(f);
    if (last == '\n')
        return MB_OK;
    return mb_error_set(err, MB_EFORMAT, "%s:%ld: the last line has no line end: the file was "
                        "cut short", path, line);
}

/* Whether f (n bytes) is a whole number in [lo, 999999999] written as "%d" writes it: digits
 * alone, no leading zero (a field "t01" or "t+1" would never match a key of this probe). */
static int key_count(const char *f, size_t n, long lo)
{
    char b[16];
    long v;
    if (n == 0 || n > 9 || (n > 1 && f[0] == '0'))
        return 0;
    snprintf(b, sizeof b, "%.*s", (int)n, f);
    return mb_data_parse_digits(b, lo, 999999999L, &v) == MB_OK;
}

/* Whether f (n bytes) is a layer shape as mb_probe_conv_key writes it, CxHxW>OkKsSpP: each
 * number written as "%d" writes it, C, H, W, O, K, S >= 1 and P >= 0. */
static int key_shape(const char *f, size_t n)
{
    static const char seps[] = "xx>ksp";
    size_t at = 0;
    for (int i = 0; i < 7; i++) {
        size_t k = strspn(f + at, "0123456789");
        if (at + k > n || !key_count(f + at, k, i < 6 ? 1 : 0))
            return 0;
        at += k;
        if (i < 6 && (at >= n || f[at++] != seps[i]))
            return 0;
    }
    return at == n;
}

/* Why a cache key is not one mb_probe_conv_key could have written, host|backend|device|threads|
 * kernels|shape|algo|pass|batch, into why; NULL when it could. The six fields after the device
 * are read from the right (a device name is free text, a '|' in it included). */
static const char *key_why(const char *key, char *why, size_t n)
{
    const char *bar[6]; /* the '|' before each of the last six fields, from the right */
    size_t nb = 0;
    for (const char *p = key + strlen(key); p-- > key && nb < 6;)
        if (*p == '|')
            bar[nb++] = p;
    if (nb < 2)
        return "it does not end |PASS|BATCH";
    const char *end = key + strlen(key);
    if (!key_count(bar[0] + 1, (size_t)(end - bar[0] - 1), 1))
        return "its batch is not a whole number >= 1 in digits";
    int pass_ok = 0;
    for (int k = MB_PASS_FORWARD; k <= MB_PASS_BACKWARD_FILTER; k++) {
        const char *name = mb_conv_pass_name((mb_conv_pass)k);
        if ((size_t)(bar[0] - bar[1] - 1) == strlen(name) &&
            strncmp(bar[1] + 1, name, strlen(name)) == 0)
            pass_ok = 1;
    }
    if (!pass_ok)
        return "its pass is not forward, backward_data or backward_filter";
    const char *host_end = strchr(key, '|');
    const char *backend = host_end + 1, *backend_end = strchr(backend, '|');
    if (nb < 6 || !backend_end || backend_end >= bar[5])
        return "it has fewer than nine fields";
    if (host_end == key)
        return "its host is empty";
    char b[64];
    mb_backend_kind kind;
    snprintf(b, sizeof b, "%.*s", (int)(backend_end - backend), backend);
    if ((size_t)(backend_end - backend) >= sizeof b || mb_backend_parse(b, &kind) != MB_OK)
        return snprintf(why, n, "its backend '%.60s' is not cpu or cuda", b), why;
    /* bar[5] ends the device (a context always names it: campaign 40's D4 kept an empty one as
     * another device's row); then threads, kernels, shape, algo */
    if (backend_end + 1 == bar[5])
        return "its device is empty";
    const char *f[4] = {bar[5] + 1, bar[4] + 1, bar[3] + 1, bar[2] + 1};
    size_t fl[4] = {(size_t)(bar[4] - bar[5] - 1), (size_t)(bar[3] - bar[4] - 1),
                    (size_t)(bar[2] - bar[3] - 1), (size_t)(bar[1] - bar[2] - 1)};
    if (fl[0] < 2 || f[0][0] != 't' || !key_count(f[0] + 1, fl[0] - 1, 1))
        return snprintf(why, n, "its threads '%.*s' are not t and a whole number >= 1 in digits",
                        (int)(fl[0] > 60 ? 60 : fl[0]), f[0]), why;
    if (fl[1] != 13 || f[1][0] != 'k' || strspn(f[1] + 1, "0123456789abcdef") < 12)
        return snprintf(why, n, "its kernels '%.*s' are not k and 12 hex digits (a build's "
                        "MB_KERNELS_ID)", (int)(fl[1] > 60 ? 60 : fl[1]), f[1]), why;
    if (!key_shape(f[2], fl[2]))
        return snprintf(why, n, "its shape '%.*s' is not CxHxW>OkKsSpP in whole numbers (C, H, "
                        "W, O, K, S >= 1, P >= 0)", (int)(fl[2] > 60 ? 60 : fl[2]), f[2]), why;
    snprintf(b, sizeof b, "%.*s", (int)(fl[3] < sizeof b ? fl[3] : sizeof b - 1), f[3]);
    mb_conv_algo algo;
    if (kind == MB_BACKEND_CPU && (fl[3] >= sizeof b || mb_conv_algo_parse(b, &algo) != MB_OK))
        return snprintf(why, n, "its algorithm '%.60s' is not one of the cpu backend's (gemm, "
                        "direct, fft, winograd)", b), why;
    if (kind != MB_BACKEND_CPU && (fl[3] == 0 || fl[3] >= sizeof b ||
                                   strspn(b, "abcdefghijklmnopqrstuvwxyz0123456789_") != fl[3]))
        return snprintf(why, n, "its algorithm '%.60s' is not a cuDNN algorithm's name as "
                        "mbprobe writes it (lower-case letters, digits, '_')", b), why;
    return NULL;
}

/* A cache key that mb_probe_conv_key could not have written (batch 2.5, pass 'sideways',
 * threads t01, algorithm 'quantum', an empty host or device) would never match and be rewritten as it is,
 * where every other malformed field is refused (campaign 38's D2, 39's D1): MB_EFORMAT naming
 * path:line. */
static int cache_key_check(const mb_table *t, size_t r, size_t col, mb_error *err)
{
    const char *key = mb_table_cell(t, r, col);
    char buf[256];
    const char *why = key_why(key, buf, sizeof buf);
    if (!why)
        return MB_OK;
    return mb_error_set(err, MB_EFORMAT, "%s:%ld: key '%.200s': %s (a key is host|backend|"
                        "device|threads|kernels|shape|algo|pass|batch)", mb_table_path(t),
                        mb_table_line(t, r), key, why);
}

int mb_probe_cache_open(const char *path, mb_probe_cache **out, mb_error *err)
{
    *out = NULL;
    /* an output too: checked with the others before any timing, so a cache that cannot be
     * written fails before the table is (issue #25, H3) */
    int rc = *path ? make_parent(path, err) : MB_OK;
    if (rc != MB_OK || (rc = mb_out_check(path, err)) != MB_OK)
        return rc;
    mb_probe_cache *c = calloc(1, sizeof *c);
    if (!c || !(c->path = strdup(path))) {
        free(c);
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    }
    struct stat sb;
    if (strcmp(path, "-") == 0) { /* not "no cache yet": mb_out_open's standard output (campaign
                                   * 39's F3: the cache was printed, nothing read back) */
        mb_probe_cache_free(c);
        return mb_error_set(err, MB_EINVAL, "-: standard output, not a regular file (a probe "
                            "cache is read and rewritten; give a file, or --no-cache)");
    }
    if (stat(path, &sb) != 0) { /* no cache yet: an empty one */
        *out = c;
        return MB_OK;
    }
    if (!S_ISREG(sb.st_mode)) { /* read, then rewritten: a FIFO or device cannot be both */
        mb_probe_cache_free(c);
        return mb_error_set(err, MB_EINVAL, "%s: not a regular file (a probe cache is read and "
                            "rewritten; give a file, or --no-cache)", path);
    }
    mb_table *t = NULL;
    rc = mb_table_read(path, &t, err); /* within the size a table may have, then whole */
    if (rc == MB_OK)
        rc = cache_whole(path, err);
    /* the conv probe's own store: a table of another kind (a step table's "# format=") is not
     * taken, and then rewritten, as a cache */
    if (rc == MB_OK)
        rc = mb_format_check_table(t, MB_FORMAT_CONV, err);
    size_t col[7];
    for (int i = 0; rc == MB_OK && i < 7; i++)
        rc = mb_table_require_col(t, cache_cols[i], &col[i], err);
    for (size_t r = 0; rc == MB_OK && r < mb_table_rows(t); r++) {
        double v[6];
        /* reps a count as written (campaign 10's M7: 2.0000000000000001 is not 2) */
        rc = mb_table_double_in(t, r, col[1], 1, MB_DATA_RANGE_MAX, 1, &v[0], err);
        for (int i = 1; rc == MB_OK && i < 6; i++)
            rc = mb_table_double(t, r, col[i + 1], &v[i], err);
        if (rc == MB_OK)
            rc = mb_table_check_spread(t, r, err); /* t_min_s <= ... <= t_max_s */
        if (rc == MB_OK)
            rc = cache_key_check(t, r, col[0], err);
        if (rc != MB_OK)
            break;
        if (v[0] < 1 || v[0] != floor(v[0]) || v[0] > MB_DATA_RANGE_MAX || v[1] < 0 ||
            v[2] < 0 || v[3] < 0 || v[4] < 0 || v[5] < 0) {
            rc = mb_error_set(err, MB_EFORMAT, "%s:%ld: not a timing (reps a whole number >= 1, "
                              "times >= 0)", path, mb_table_line(t, r));
            break;
        }
        if (mb_probe_cache_get(c, mb_table_cell(t, r, col[0]))) { /* which one would count? */
            rc = mb_error_set(err, MB_EFORMAT, "%s:%ld: key '%s' given twice", path,
                              mb_table_line(t, r), mb_table_cell(t, r, col[0]));
            break;
        }
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

int mb_probe_cache_save(mb_probe_cache *c, mb_error *err)
{
    if (!c->dirty)
        return MB_OK;
    int rc = make_parent(c->path, err);
    mb_out out;
    if (rc != MB_OK || (rc = mb_out_open(&out, c->path, err)) != MB_OK)
        return rc;
    fprintf(out.f, "# tool=mbprobe conv\n# cache=convolution timings, keyed by host|backend|"
                   "device|threads|kernels|shape|algo|pass|batch\n");
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

void mb_probe_conv_key(char *buf, size_t n, const char *host, const char *backend,
                       const char *device, int threads, const mb_conv_shape *s, const char *algo,
                       mb_conv_pass pass)
{
    char dev[256], hn[128], al[64];
    clean(dev, sizeof dev, device);
    clean(hn, sizeof hn, host);
    clean(al, sizeof al, algo);
    snprintf(buf, n, "%s|%s|%s|t%d|k%s|%dx%dx%d>%dk%ds%dp%d|%s|%s|%d", hn, backend, dev,
             threads, MB_KERNELS_ID, s->in_c, s->in_h, s->in_w, s->out_c, s->k, s->stride, s->pad,
             al, mb_conv_pass_name(pass), s->batch);
}

const char *mb_probe_kernels_id(void) { return MB_KERNELS_ID; }

/* ---- the convolution table --------------------------------------------------------------------- */

void mb_probe_conv_write_header(FILE *f)
{
    fputs("layer,algo,pass,batch,t_median_s,workspace_bytes,reps,t_min_s,t_p25_s,t_p75_s,"
          "t_max_s,in_c,in_h,in_w,out_c,k,stride,pad,status,backend,device\n", f);
}

void mb_probe_conv_write_row(FILE *f, const mb_probe_conv_row *r)
{
    const mb_conv_shape *s = &r->shape;
    char algo[64], device[sizeof r->device];
    clean(algo, sizeof algo, r->algo_name);
    clean(device, sizeof device, r->device);
    fprintf(f, "%s,%s,%s,%d,", r->layer, algo, mb_conv_pass_name(r->pass), s->batch);
    if (r->status == MB_PROBE_CONV_MEASURED || r->status == MB_PROBE_CONV_CACHED)
        fprintf(f, "%.6g,%zu,%zu,%.6g,%.6g,%.6g,%.6g,", r->st.median, r->workspace_bytes,
                r->st.reps, r->st.min, r->st.p25, r->st.p75, r->st.max);
    else if (r->status == MB_PROBE_CONV_NOMEM) /* the workspace that did not fit */
        fprintf(f, ",%zu,,,,,,", r->workspace_bytes);
    else
        fputs(",,,,,,,", f);
    fprintf(f, "%d,%d,%d,%d,%d,%d,%d,%s,%s,%s\n", s->in_c, s->in_h, s->in_w, s->out_c, s->k,
            s->stride, s->pad, mb_probe_conv_status_name(r->status), r->backend, device);
}

/* ---- the sweep ----------------------------------------------------------------------------------- */

/* Whether `name` is one of the plan's algorithms to time. */
static int wanted(const mb_probe_conv_plan *p, const char *name)
{
    if (!p->algos)
        return 1;
    for (size_t i = 0; i < p->n_algos; i++)
        if (strcmp(p->algos[i], name) == 0)
            return 1;
    return 0;
}

typedef struct sweep {
    const mb_probe_conv_plan *p;
    mb_probe_conv_row *rows;   /* slots: (conv layer, pass, algorithm, batch) */
    int *used;                 /* 1 where a slot holds a row */
    int max_algos;             /* the longest pass list */
    size_t measured;
} sweep;

static size_t slot(const sweep *w, size_t conv, int pass, int algo, size_t bi)
{
    return ((conv * 3 + (size_t)pass) * (size_t)w->max_algos + (size_t)algo) * w->p->n_batch + bi;
}

/* One layer at one batch, algorithm index a of every pass that has one (a plan runs an
 * algorithm per pass; passes where index a is missing, unwanted or unsupported take the
 * backend's default and are not timed). Fills the slots of the passes it concerns. */
static int sweep_point(sweep *w, size_t conv, const mb_layer_desc *d, size_t bi, int a,
                       mb_error *err)
{
    const mb_probe_conv_plan *p = w->p;
    mb_ctx *ctx = p->ctx;
    mb_conv_shape s = {p->batch[bi], d->in_c, d->in_h, d->in_w, d->out_c, d->size, d->stride,
                       d->pad};
    int algo[3], need[3] = {0, 0, 0}, any = 0, rc = MB_OK;
    char keys[3][768];
    mb_probe_conv_row *r[3] = {NULL, NULL, NULL};
    for (int q = 0; q < 3; q++) {
        mb_conv_pass pass = (mb_conv_pass)q;
        algo[q] = mb_ctx_conv_algo_default(ctx, pass, &s);
        if (a >= mb_ctx_conv_algo_count(ctx, pass) ||
            !wanted(p, mb_ctx_conv_algo_name(ctx, pass, a)))
            continue;
        size_t k = slot(w, conv, q, a, bi);
        w->used[k] = 1;
        r[q] = &w->rows[k];
        *r[q] = (mb_probe_conv_row){.shape = s, .pass = pass, .algo = a,
                                    .backend = mb_backend_name(mb_ctx_backend(ctx))};
        snprintf(r[q]->layer, sizeof r[q]->layer, "%s", d->name);
        snprintf(r[q]->algo_name, sizeof r[q]->algo_name, "%s",
                 mb_ctx_conv_algo_name(ctx, pass, a));
        snprintf(r[q]->device, sizeof r[q]->device, "%s", mb_ctx_device_name(ctx));
        if (!mb_probe_conv_shape_ok(&s, r[q]->why, sizeof r[q]->why) ||
            !mb_ctx_conv_supported(ctx, pass, a, &s, r[q]->why, sizeof r[q]->why)) {
            r[q]->status = MB_PROBE_CONV_UNSUPPORTED;
            continue;
        }
        algo[q] = a;
        r[q]->workspace_bytes = mb_ctx_conv_workspace(ctx, pass, a, &s);
        mb_probe_conv_key(keys[q], sizeof keys[q], p->hostname, r[q]->backend, r[q]->device,
                          p->threads, &s, r[q]->algo_name, pass);
        const mb_probe_stats *hit = p->cache ? mb_probe_cache_get(p->cache, keys[q]) : NULL;
        double min_s = mb_probe_conv_min_s(&s, r[q]->backend, p->threads);
        if (hit) {
            r[q]->st = *hit, r[q]->status = MB_PROBE_CONV_CACHED;
        } else if (min_s > p->o->budget_s) {
            r[q]->status = MB_PROBE_CONV_OVER_BUDGET;
            snprintf(r[q]->why, sizeof r[q]->why, "one call needs %.3g s at least, over the "
                     "budget of %g s a point", min_s, p->o->budget_s);
        } else {
            need[q] = any = 1;
        }
    }
    mb_probe_stats st[3];
    mb_probe_conv_status status[3];
    if (any)
        rc = mb_probe_conv_time(ctx, &s, algo, need, p->o, st, status, err);
    for (int q = 0; q < 3 && rc == MB_OK; q++) {
        if (!r[q])
            continue;
        if (need[q]) {
            r[q]->status = status[q];
            if (status[q] == MB_PROBE_CONV_NOMEM) {
                snprintf(r[q]->why, sizeof r[q]->why, "%zu bytes of workspace could not be "
                         "allocated", r[q]->workspace_bytes);
            } else {
                r[q]->st = st[q];
                w->measured++;
                if (p->cache)
                    rc = mb_probe_cache_put(p->cache, keys[q], &st[q], err);
            }
        }
        if (rc == MB_OK && p->row_done)
            p->row_done(p->arg, r[q]);
    }
    return rc;
}

int mb_probe_conv_run(const mb_probe_conv_plan *p, mb_probe_conv_row **out, size_t *n,
                      size_t *measured, mb_error *err)
{
    *out = NULL;
    *n = 0;
    size_t nconv = 0;
    for (size_t i = 0; i < p->desc->n_layers; i++)
        nconv += p->desc->layers[i].type == MB_LAYER_CONV;
    if (nconv == 0)
        return mb_net_desc_need_conv(p->desc, err);
    sweep w = {.p = p};
    int timed = 0;
    for (int q = 0; q < 3; q++) {
        int count = mb_ctx_conv_algo_count(p->ctx, (mb_conv_pass)q);
        w.max_algos = count > w.max_algos ? count : w.max_algos;
        for (int a = 0; a < count; a++)
            timed |= wanted(p, mb_ctx_conv_algo_name(p->ctx, (mb_conv_pass)q, a));
    }
    if (!timed || !p->n_batch)
        return mb_error_set(err, MB_EINVAL, "conv: no algorithm of the %s backend or no batch "
                            "size left to time", mb_backend_name(mb_ctx_backend(p->ctx)));
    size_t slots = nconv * 3 * (size_t)w.max_algos * p->n_batch;
    w.rows = calloc(slots, sizeof *w.rows);
    w.used = calloc(slots, sizeof *w.used);
    int rc = w.rows && w.used ? MB_OK : mb_error_set(err, MB_ENOMEM, "conv: out of memory");
    size_t conv = 0;
    for (size_t li = 0; rc == MB_OK && li < p->desc->n_layers; li++) {
        const mb_layer_desc *d = &p->desc->layers[li];
        if (d->type != MB_LAYER_CONV)
            continue;
        for (int a = 0; rc == MB_OK && a < w.max_algos; a++)
            for (size_t bi = 0; rc == MB_OK && bi < p->n_batch; bi++)
                rc = sweep_point(&w, conv, d, bi, a, err);
        conv++;
    }
    size_t m = 0;
    for (size_t k = 0; rc == MB_OK && k < slots; k++)
        if (w.used[k])
            w.rows[m++] = w.rows[k];
    free(w.used);
    if (rc != MB_OK) {
        free(w.rows);
        return rc;
    }
    *out = w.rows;
    *n = m;
    if (measured)
        *measured = w.measured;
    return MB_OK;
}
