/* gzin.c — a data-set file read once as a stream, plain or gzip (mb_data_in_*, mb_data_slurp):
 * the bytes of a regular file, a FIFO or a device, inflated by ISA-L's igzip when they start
 * with the gzip magic number.
 *
 * Why ISA-L and not zlib: every mbtrain run reads its data set anew, and Fashion-MNIST's
 * training images are 26 MB of gzip; igzip inflates them in about a third of zlib's time
 * (docs/results.md, "Data-set loading"), which over make run's hundreds of short runs is
 * minutes. The stream is read from the descriptor into one buffer that this file owns, so a
 * FIFO's first byte (taken while waiting for its writer, data/file.c) simply starts it.
 *
 * A gzip file is one or more members, each checked against its CRC-32 and length trailer;
 * after the last, only more members may follow (anything else is "trailing data", refused,
 * where zlib's gzread ignored it), and a header with a reserved flag bit is refused (RFC 1952). A
 * stream cut inside a member is "unexpected end of file" at once, whatever the reader asked for.
 */
#include "dataset_impl.h"
#include "mb_output.h"

#include <errno.h>
#include <isa-l/igzip_lib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bytes read from the descriptor at a time. */
#define IN_BUF ((size_t)1 << 18)

/* The largest ratio deflate can reach is about 1032:1; a gzip trailer claiming more than that
 * is not trusted as a size hint (it only sizes the first buffer; reading grows it anyway). */
#define MAX_DEFLATE_RATIO 1032u

enum { MODE_UNKNOWN, MODE_PLAIN, MODE_GZIP };

struct mb_data_in_state {
    int fd;
    int mode;
    int eof;            /* the descriptor has no more bytes */
    unsigned char *buf; /* IN_BUF bytes read ahead */
    size_t pos, len;    /* buf[pos .. len) not yet consumed */
    struct inflate_state z;
};

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
    struct mb_data_in_state *s = calloc(1, sizeof *s);
    unsigned char *b = malloc(IN_BUF);
    if (!s || !b) {
        free(s);
        free(b);
        close(fd);
        return mb_error_set(err, MB_ENOMEM, "%s: out of memory", path);
    }
    s->fd = fd;
    s->buf = b;
    if (have_first)
        s->buf[s->len++] = first;
    in->hint = size_hint(fd, &st);
    in->s = s;
    return MB_OK;
}

/* One read of up to n bytes into dst (*k of them; 0 and eof set at the end). */
static int read_fd(mb_data_in *in, unsigned char *dst, size_t n, size_t *k, mb_error *err)
{
    ssize_t r;
    do
        r = read(in->s->fd, dst, n);
    while (r < 0 && errno == EINTR);
    if (r < 0)
        return mb_error_set(err, MB_EIO, "%s: read error: %s", in->path, strerror(errno));
    in->s->eof |= r == 0;
    *k = (size_t)r;
    return MB_OK;
}

/* Reads more bytes after buf[pos .. len) (moved to the front); sets eof at the end. */
static int fill(mb_data_in *in, mb_error *err)
{
    struct mb_data_in_state *s = in->s;
    if (s->pos > 0) {
        memmove(s->buf, s->buf + s->pos, s->len - s->pos);
        s->len -= s->pos;
        s->pos = 0;
    }
    size_t k = 0;
    int rc = MB_OK;
    while (rc == MB_OK && !s->eof && s->len < IN_BUF && k == 0) {
        rc = read_fd(in, s->buf + s->len, IN_BUF - s->len, &k, err);
        s->len += rc == MB_OK ? k : 0;
    }
    return rc;
}

/* Ensures at least `n` unread bytes unless the stream ends first. */
static int ahead(mb_data_in *in, size_t n, mb_error *err)
{
    struct mb_data_in_state *s = in->s;
    while (s->len - s->pos < n && !s->eof) {
        int rc = fill(in, err);
        if (rc != MB_OK)
            return rc;
    }
    return MB_OK;
}

/* Whether the unread bytes start a gzip member. */
static int at_gzip(const struct mb_data_in_state *s)
{
    return s->len - s->pos >= 2 && s->buf[s->pos] == 0x1f && s->buf[s->pos + 1] == 0x8b;
}

/* Starts inflating the member at buf[pos] (its first bytes are read ahead): refused when its
 * header sets a reserved flag bit, which RFC 1952 says a decompressor must refuse and ISA-L does
 * not look at. */
static int start_member(mb_data_in *in, mb_error *err)
{
    struct mb_data_in_state *s = in->s;
    int rc = ahead(in, 4, err);
    if (rc != MB_OK)
        return rc;
    if (s->len - s->pos >= 4 && (s->buf[s->pos + 3] & 0xe0))
        return mb_error_set(err, MB_EFORMAT, "%s: corrupt gzip data: reserved header flags "
                            "0x%02x set", in->path, (unsigned)(s->buf[s->pos + 3] & 0xe0));
    isal_inflate_init(&s->z);
    s->z.crc_flag = ISAL_GZIP;
    return MB_OK;
}

static const char *isal_why(int r)
{
    switch (r) {
    case ISAL_INVALID_BLOCK: return "invalid deflate block";
    case ISAL_INVALID_SYMBOL: return "invalid deflate symbol";
    case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
    case ISAL_INVALID_WRAPPER: return "invalid gzip header";
    case ISAL_UNSUPPORTED_METHOD: return "unknown compression method";
    case ISAL_INCORRECT_CHECKSUM: return "incorrect data check";
    case ISAL_NEED_DICT: return "a preset dictionary is needed";
    default: return "unknown inflate error";
    }
}

/* After a member's end: another member, the end of the stream, or trailing data (refused). */
static int next_member(mb_data_in *in, int *done, mb_error *err)
{
    struct mb_data_in_state *s = in->s;
    int rc = ahead(in, 2, err);
    if (rc != MB_OK)
        return rc;
    if (s->len == s->pos) {
        *done = 1;
        return MB_OK;
    }
    if (!at_gzip(s))
        return mb_error_set(err, MB_EFORMAT, "%s: corrupt gzip data: trailing data after the "
                            "last gzip member", in->path);
    return start_member(in, err);
}

/* A stream that ends inside a member: said at once, before a reader's own length checks
 * could call it a short file. */
static int cut_stream(mb_data_in *in, mb_error *err)
{
    return mb_error_set(err, MB_EFORMAT, "%s: corrupt gzip data: unexpected end of file",
                        in->path);
}

/* Inflates into dst until `want` bytes, the end of the stream, or an error. */
static int inflate_some(mb_data_in *in, unsigned char *dst, size_t want, size_t *got,
                        mb_error *err)
{
    struct mb_data_in_state *s = in->s;
    while (*got < want) {
        if (s->z.block_state == ISAL_BLOCK_FINISH) {
            int done = 0, rc = next_member(in, &done, err);
            if (rc != MB_OK || done)
                return rc;
        }
        if (s->pos == s->len) {
            int rc = fill(in, err);
            if (rc != MB_OK)
                return rc;
            if (s->pos == s->len) /* the stream ended inside a member */
                return cut_stream(in, err);
        }
        size_t room = want - *got, avail = s->len - s->pos;
        s->z.next_out = dst + *got;
        s->z.avail_out = room > UINT32_MAX ? UINT32_MAX : (uint32_t)room;
        s->z.next_in = s->buf + s->pos;
        s->z.avail_in = (uint32_t)avail;
        int r = isal_inflate(&s->z);
        size_t used = avail - s->z.avail_in, made = (size_t)(s->z.next_out - dst) - *got;
        s->pos += used;
        *got += made;
        if (r < 0 || r == ISAL_NEED_DICT)
            return mb_error_set(err, MB_EFORMAT, "%s: corrupt gzip data: %s", in->path,
                                isal_why(r));
        if (!used && !made && s->z.block_state != ISAL_BLOCK_FINISH) { /* wants more input */
            if (s->eof)
                return cut_stream(in, err);
            size_t before = s->len - s->pos;
            int rc = fill(in, err);
            if (rc == MB_OK && s->len - s->pos == before && !s->eof)
                rc = mb_error_set(err, MB_EFORMAT, "%s: corrupt gzip data: inflate made no "
                                  "progress", in->path);
            if (rc != MB_OK)
                return rc;
        }
    }
    return MB_OK;
}

/* Copies plain bytes: the read-ahead first, then straight from the descriptor. */
static int copy_plain(mb_data_in *in, unsigned char *dst, size_t want, size_t *got,
                      mb_error *err)
{
    struct mb_data_in_state *s = in->s;
    size_t k = s->len - s->pos < want ? s->len - s->pos : want;
    memcpy(dst, s->buf + s->pos, k);
    s->pos += k;
    *got = k;
    int rc = MB_OK;
    while (rc == MB_OK && *got < want && !s->eof) {
        rc = read_fd(in, dst + *got, want - *got, &k, err);
        *got += rc == MB_OK ? k : 0;
    }
    return rc;
}

int mb_data_in_read(mb_data_in *in, unsigned char *dst, size_t want, size_t *got, mb_error *err)
{
    struct mb_data_in_state *s = in->s;
    *got = 0;
    if (s->mode == MODE_UNKNOWN) {
        int rc = ahead(in, 2, err);
        if (rc != MB_OK)
            return rc;
        s->mode = at_gzip(s) ? MODE_GZIP : MODE_PLAIN;
        if (s->mode == MODE_GZIP && (rc = start_member(in, err)) != MB_OK)
            return rc;
    }
    return s->mode == MODE_GZIP ? inflate_some(in, dst, want, got, err)
                                : copy_plain(in, dst, want, got, err);
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

int mb_data_in_close(mb_data_in *in, int rc)
{
    struct mb_data_in_state *s = in->s;
    if (!s)
        return rc;
    close(s->fd);
    free(s->buf);
    free(s);
    in->s = NULL;
    return rc;
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
    rc = mb_data_in_close(&in, rc);
    if (rc != MB_OK) {
        free(*buf);
        *buf = NULL;
        *len = 0;
    }
    return rc;
}
