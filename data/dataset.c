/* dataset.c — what every data-set reader shares: whole-file reads through zlib, allocation and
 * freeing, the eval subset (partial Fisher-Yates).
 *
 * The file formats themselves are read in idx.c and cifar.c; generated data comes from
 * synthetic.c; load.c, above them all, turns a `--data` spec into sets. Nothing here prints or
 * keeps state between calls.
 */
#include "dataset_impl.h"
#include "mb_output.h"
#include "mb_rng.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* The largest ratio deflate can reach is about 1032:1; a gzip trailer claiming more than that
 * is not trusted as a size hint (it only sizes the first buffer; reading grows it anyway). */
#define MAX_DEFLATE_RATIO 1032u

/* A first buffer size for `fd`: the file size for a plain file, the ISIZE field of the gzip
 * trailer (uncompressed size mod 2^32) for a gzip file; 64 KiB for what has no size (a FIFO). */
static size_t size_hint(int fd, const struct stat *st)
{
    if (!S_ISREG(st->st_mode))
        return (size_t)1 << 16;
    size_t sz = (size_t)st->st_size;
    unsigned char m[2], t[4];
    if (sz >= 18 && pread(fd, m, 2, 0) == 2 && m[0] == 0x1f && m[1] == 0x8b &&
        pread(fd, t, 4, st->st_size - 4) == 4) {
        size_t isize = (size_t)t[0] | (size_t)t[1] << 8 | (size_t)t[2] << 16 | (size_t)t[3] << 24;
        if (isize / MAX_DEFLATE_RATIO <= sz)
            return isize;
    }
    return sz;
}

/* Maps a zlib read error on `gz` to an mbkit status and message. */
static int gz_fail(gzFile gz, const char *path, mb_error *err)
{
    int zerr = Z_OK;
    const char *msg = gzerror(gz, &zerr);
    if (zerr == Z_ERRNO)
        return mb_error_set(err, MB_EIO, "%s: read error: %s", path, strerror(errno));
    if (zerr == Z_MEM_ERROR)
        return mb_error_set(err, MB_ENOMEM, "%s: out of memory", path);
    return mb_error_set(err, MB_EFORMAT, "%s: corrupt gzip data: %s", path,
                        msg && *msg ? msg : "unknown zlib error");
}

int mb_data_in_open(mb_data_in *in, const char *path, mb_error *err)
{
    memset(in, 0, sizeof *in);
    in->path = path;
    int fd, have_first;
    unsigned char first;
    struct stat st;
    int rc = mb_data_open_read(path, &fd, &st, &first, &have_first, err);
    if (rc != MB_OK)
        return rc;
    if (have_first) { /* gzip reads from the descriptor: a byte taken from a FIFO is not
                         put back, so the stream would start one byte late */
        close(fd);
        return mb_error_set(err, MB_EIO, "%s: a FIFO whose writer began just as the wait for "
                            "one ended: give it again, or a regular file", path);
    }
    in->hint = size_hint(fd, &st);
    in->gz = gzdopen(fd, "rb");
    if (!in->gz) {
        close(fd);
        return mb_error_set(err, MB_ENOMEM, "%s: out of memory", path);
    }
    gzbuffer(in->gz, 1u << 17);
    return MB_OK;
}

int mb_data_in_read(mb_data_in *in, unsigned char *dst, size_t want, size_t *got, mb_error *err)
{
    *got = 0;
    while (*got < want) {
        size_t chunk = want - *got;
        if (chunk > (size_t)INT_MAX / 2)
            chunk = (size_t)INT_MAX / 2;
        int k = gzread(in->gz, dst + *got, (unsigned)chunk);
        if (k < 0)
            return gz_fail(in->gz, in->path, err);
        if (k == 0) {
            int zerr = Z_OK;
            gzerror(in->gz, &zerr);
            return zerr != Z_OK ? gz_fail(in->gz, in->path, err) : MB_OK;
        }
        *got += (size_t)k;
    }
    return MB_OK;
}

int mb_data_in_read_all(mb_data_in *in, size_t max, unsigned char **buf, size_t *len,
                        mb_error *err)
{
    *buf = NULL;
    *len = 0;
    /* never more room than `max` + 1 bytes (the one that says there is more), whatever the
     * gzip trailer claims: a bomb decompresses into at most that */
    size_t cap = in->hint < max ? in->hint + 1 : max + 1, n = 0;
    if (cap < 4096)
        cap = 4096 < max + 1 ? 4096 : max + 1;
    unsigned char *b = malloc(cap);
    int rc = MB_OK;
    while (b) {
        size_t got;
        if ((rc = mb_data_in_read(in, b + n, cap - n, &got, err)) != MB_OK)
            break;
        n += got;
        if (n < cap || n > max)
            break;
        size_t nc = cap > max / 2 ? max + 1 : 2 * cap;
        unsigned char *nb = realloc(b, nc);
        if (!nb)
            free(b);
        b = nb;
        cap = nc;
    }
    if (!b)
        return mb_error_set(err, MB_ENOMEM, "%s: out of memory", in->path);
    if (rc != MB_OK) {
        free(b);
        return rc;
    }
    *buf = b;
    *len = n;
    return MB_OK;
}

int mb_data_in_close(mb_data_in *in, int rc, mb_error *err)
{
    if (!in->gz)
        return rc;
    int zc = gzclose(in->gz);
    in->gz = NULL;
    if (rc != MB_OK)
        return rc;
    if (zc == Z_BUF_ERROR)
        return mb_error_set(err, MB_EFORMAT, "%s: corrupt gzip data: unexpected end of file",
                            in->path);
    if (zc != Z_OK)
        return mb_error_set(err, MB_EIO, "%s: read error", in->path);
    return MB_OK;
}

int mb_data_slurp(const char *path, size_t max, unsigned char **buf, size_t *len,
                  mb_error *err)
{
    *buf = NULL;
    *len = 0;
    mb_data_in in;
    int rc = mb_data_in_open(&in, path, err);
    if (rc != MB_OK)
        return rc;
    rc = mb_data_in_read_all(&in, max, buf, len, err);
    if (rc == MB_OK && *len > max)
        rc = mb_error_set(err, MB_EFORMAT, "%s: more than %zu MiB (decompressed): refused",
                          path, max >> 20);
    rc = mb_data_in_close(&in, rc, err);
    if (rc != MB_OK) {
        free(*buf);
        *buf = NULL;
        *len = 0;
    }
    return rc;
}

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
