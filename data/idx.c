/* idx.c — the IDX format of MNIST and Fashion-MNIST (LeCun et al.): one file of images, one of
 * labels, each plain or gzip-compressed, read whole into memory and converted to float32.
 *
 * Layout (every integer big-endian):
 *   images  magic 0x00000803 (type 0x08 = unsigned byte, 3 dimensions), n, rows, cols,
 *           then n * rows * cols pixel bytes, row by row;
 *   labels  magic 0x00000801 (unsigned byte, 1 dimension), n, then n label bytes.
 * The reader checks the magic numbers, reads the header first and then exactly the bytes it
 * promises (at most MB_DATA_SET_FILE_MAX, checked before allocating; one byte more is an error,
 * so a gzip bomb is never decompressed past that), that images and labels agree in number, that the dimensions are sane, and that
 * labels lie in 0 .. classes-1. Other IDX element types (signed, float, ...) are not read.
 */
#include "dataset_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IDX_IMAGES_MAGIC 0x00000803u
#define IDX_LABELS_MAGIC 0x00000801u
/* Sanity limits on an IDX header; anything beyond is taken as a corrupt file, not a data set. */
#define IDX_MAX_SIDE 4096u          /* rows and columns */
#define IDX_MAX_COUNT 0x7fffffffu   /* images or labels */

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* Checks an IDX header of `hdr` bytes (magic + dims) and the file length against it. */
static int check_magic(const char *path, const unsigned char *b, size_t len, uint32_t want,
                       size_t hdr, const char *what, mb_error *err)
{
    if (len < 4)
        return mb_error_set(err, MB_EFORMAT,
                            "%s: truncated: %zu bytes, an IDX file starts with a 4-byte magic "
                            "number",
                            path, len);
    uint32_t magic = be32(b);
    if (magic != want) {
        const char *hint = magic == IDX_LABELS_MAGIC   ? " (this looks like a label file)"
                           : magic == IDX_IMAGES_MAGIC ? " (this looks like an image file)"
                                                       : "";
        return mb_error_set(err, MB_EFORMAT,
                            "%s: wrong magic number 0x%08x, expected 0x%08x (IDX %s)%s", path,
                            (unsigned)magic, (unsigned)want, what, hint);
    }
    if (len < hdr)
        return mb_error_set(err, MB_EFORMAT,
                            "%s: truncated: the IDX header needs %zu bytes, the file has %zu",
                            path, hdr, len);
    return MB_OK;
}

/* Reads one IDX file through its header: the header (`hdr` bytes: magic and dimensions) is
 * read and checked first, `dims` gets the dimensions, and the payload the header promises
 * (the product of the dimensions, checked against MB_DATA_SET_FILE_MAX before any of it is
 * allocated) is read with room for one byte more, so that a longer file (a gzip bomb under a
 * small header included) is refused having decompressed at most that. *buf holds the payload
 * (owned by the caller), *n its length: need + 1 when the file is longer. */
static int read_idx_file(const char *path, uint32_t want, size_t hdr, const char *what,
                         uint32_t dims[3], unsigned char **buf, size_t *n, mb_error *err)
{
    *buf = NULL;
    *n = 0;
    mb_data_in in;
    int rc = mb_data_in_open(&in, path, err);
    if (rc != MB_OK)
        return rc;
    unsigned char h[16];
    size_t got = 0;
    rc = mb_data_in_read(&in, h, hdr, &got, err);
    if (rc == MB_OK)
        rc = check_magic(path, h, got, want, hdr, what, err);
    size_t need = 1;
    for (size_t i = 0; rc == MB_OK && i < (hdr - 4) / 4; i++) {
        dims[i] = be32(h + 4 + 4 * i);
        need *= dims[i] ? dims[i] : 1; /* zero is refused by the caller */
        if (need > MB_DATA_SET_FILE_MAX)
            rc = mb_error_set(err, MB_EFORMAT, "%s: the header promises more than %zu MiB of "
                              "data: refused", path, MB_DATA_SET_FILE_MAX >> 20);
    }
    unsigned char *b = NULL;
    if (rc == MB_OK)
        rc = mb_data_in_read_all(&in, need, &b, &got, err);
    rc = mb_data_in_close(&in, rc);
    if (rc != MB_OK) {
        free(b);
        return rc;
    }
    *buf = b;
    *n = got;
    return MB_OK;
}

/* Checks that a file of `len` bytes (header included; one more than `need` says "longer") is
 * exactly the `need` its header promises. */
static int check_length(const char *path, size_t len, size_t need, const char *promise,
                        mb_error *err)
{
    if (len < need)
        return mb_error_set(err, MB_EFORMAT,
                            "%s: truncated: the header promises %s (%zu bytes), the file has %zu",
                            path, promise, need, len);
    if (len > need)
        return mb_error_set(err, MB_EFORMAT,
                            "%s: more bytes after the %s the header promises (%zu bytes "
                            "expected)", path, promise, need);
    return MB_OK;
}

int mb_data_read_idx_classes(const char *images_path, const char *labels_path, int classes,
                             mb_dataset *d, mb_error *err)
{
    memset(d, 0, sizeof *d);
    if (classes < 0 || classes > 256)
        return mb_error_set(err, MB_EINVAL, "%s: class count %d outside 0..256", labels_path,
                            classes);
    unsigned char *ib = NULL, *lb = NULL;
    size_t ilen = 0, llen = 0;
    char promise[96];
    uint32_t dims[3] = {0, 0, 0}, ldims[3] = {0, 0, 0};
    int rc = read_idx_file(images_path, IDX_IMAGES_MAGIC, 16,
                           "images: unsigned bytes, 3 dimensions", dims, &ib, &ilen, err);
    uint32_t n = dims[0], rows = dims[1], cols = dims[2];
    if (rc == MB_OK && (n == 0 || n > IDX_MAX_COUNT || rows == 0 || rows > IDX_MAX_SIDE ||
                        cols == 0 || cols > IDX_MAX_SIDE))
        rc = mb_error_set(err, MB_EFORMAT,
                          "%s: absurd dimensions %u images of %ux%u pixels (expected 1..%u "
                          "images of 1..%u x 1..%u pixels)",
                          images_path, (unsigned)n, (unsigned)rows, (unsigned)cols,
                          IDX_MAX_COUNT, IDX_MAX_SIDE, IDX_MAX_SIDE);
    size_t per = (size_t)rows * cols;
    if (rc == MB_OK) {
        snprintf(promise, sizeof promise, "%u images of %ux%u", (unsigned)n, (unsigned)rows,
                 (unsigned)cols);
        rc = check_length(images_path, 16 + ilen, 16 + (size_t)n * per, promise, err);
    }
    if (rc == MB_OK)
        rc = read_idx_file(labels_path, IDX_LABELS_MAGIC, 8,
                           "labels: unsigned bytes, 1 dimension", ldims, &lb, &llen, err);
    if (rc == MB_OK && ldims[0] != n)
        rc = mb_error_set(err, MB_EFORMAT, "%s: %u labels, but %s has %u images", labels_path,
                          (unsigned)ldims[0], images_path, (unsigned)n);
    if (rc == MB_OK) {
        snprintf(promise, sizeof promise, "%u labels", (unsigned)n);
        rc = check_length(labels_path, 8 + llen, 8 + (size_t)n, promise, err);
    }
    int maxlab = 0;
    for (size_t i = 0; rc == MB_OK && i < n; i++) {
        int y = lb[i];
        if (classes > 0 && y >= classes)
            rc = mb_error_set(err, MB_EFORMAT,
                              "%s: label %d of sample %zu is out of range (expected 0..%d)",
                              labels_path, y, i, classes - 1);
        if (y > maxlab)
            maxlab = y;
    }
    if (rc == MB_OK)
        rc = mb_dataset_alloc(d, n, 1, (int)rows, (int)cols, classes > 0 ? classes : maxlab + 1,
                              images_path, err);
    if (rc == MB_OK) {
        mb_data_bytes_to_float(ib, (size_t)n * per, d->x);
        for (size_t i = 0; i < n; i++)
            d->y[i] = lb[i];
    }
    free(ib);
    free(lb);
    return rc;
}

int mb_data_read_idx(const char *images_path, const char *labels_path, mb_dataset *d,
                     mb_error *err)
{
    return mb_data_read_idx_classes(images_path, labels_path, MB_DATA_IDX_CLASSES, d, err);
}
