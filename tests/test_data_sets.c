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

/* ---- small files with known bytes --------------------------------------------------------- */

/* Writes len bytes to dir/name, through gzwrite when the name ends in ".gz"; returns the path
 * in buf (NULL on failure). */
static const char *write_bytes(char *buf, size_t n, const char *dir, const char *name,
                               const unsigned char *b, size_t len)
{
    snprintf(buf, n, "%s/%s", dir, name);
    size_t nl = strlen(name);
    if (nl > 3 && strcmp(name + nl - 3, ".gz") == 0) {
        gzFile gz = gzopen(buf, "wb");
        if (!gz)
            return NULL;
        int ok = len == 0 || gzwrite(gz, b, (unsigned)len) == (int)len;
        return gzclose(gz) == Z_OK && ok ? buf : NULL;
    }
    FILE *f = fopen(buf, "wb");
    if (!f)
        return NULL;
    int ok = fwrite(b, 1, len, f) == len;
    return fclose(f) == 0 && ok ? buf : NULL;
}

static void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* An IDX image file of n images of rows x cols whose pixel i is (7 i + 3) mod 256, so that both
 * 0 and 255 occur once there are enough pixels. Returns its length; b must hold 16 + n*rows*cols. */
static size_t idx_images(unsigned char *b, uint32_t magic, uint32_t n, uint32_t rows,
                         uint32_t cols)
{
    put_be32(b, magic);
    put_be32(b + 4, n);
    put_be32(b + 8, rows);
    put_be32(b + 12, cols);
    size_t np = (size_t)n * rows * cols;
    for (size_t i = 0; i < np; i++)
        b[16 + i] = (unsigned char)((7 * i + 3) % 256);
    return 16 + np;
}

/* An IDX label file holding the k labels given. */
static size_t idx_labels(unsigned char *b, uint32_t magic, uint32_t n, const int *y, size_t k)
{
    put_be32(b, magic);
    put_be32(b + 4, n);
    for (size_t i = 0; i < k; i++)
        b[8 + i] = (unsigned char)y[i];
    return 8 + k;
}

/* True when d is all zeros: what every reader leaves behind on error. */
static int is_zero(const mb_dataset *d)
{
    return d->n == 0 && d->x == NULL && d->y == NULL && d->c == 0 && d->h == 0 && d->w == 0 &&
           d->classes == 0;
}

/* The labels of the small IDX pair used below (5 images of 3x4, not round numbers). */
static const int small_labels[5] = {4, 0, 9, 9, 2};

static void test_idx_small(void)
{
    char dir[256], ip[512], lp[512], ipz[512], lpz[512];
    CU_ASSERT_FATAL(mb_test_tmpdir(dir, sizeof dir) == 0);
    unsigned char ib[16 + 60], lb[8 + 5];
    size_t il = idx_images(ib, 0x803, 5, 3, 4), ll = idx_labels(lb, 0x801, 5, small_labels, 5);
    CU_ASSERT_FATAL(write_bytes(ip, sizeof ip, dir, "i", ib, il) != NULL);
    CU_ASSERT_FATAL(write_bytes(lp, sizeof lp, dir, "l", lb, ll) != NULL);
    CU_ASSERT_FATAL(write_bytes(ipz, sizeof ipz, dir, "i.gz", ib, il) != NULL);
    CU_ASSERT_FATAL(write_bytes(lpz, sizeof lpz, dir, "l.gz", lb, ll) != NULL);
    const char *pairs[4][2] = {{ip, lp}, {ipz, lpz}, {ipz, lp}, {ip, lpz}};
    for (int p = 0; p < 4; p++) {
        mb_dataset d;
        mb_error e;
        CU_ASSERT_EQUAL_FATAL(mb_data_read_idx(pairs[p][0], pairs[p][1], &d, &e), MB_OK);
        CU_ASSERT(d.n == 5 && d.c == 1 && d.h == 3 && d.w == 4 && d.classes == 10);
        for (size_t i = 0; i < 60; i++) /* exactly byte / 255 in float */
            CU_ASSERT_EQUAL(d.x[i], (float)ib[16 + i] / 255.0f);
        for (int i = 0; i < 5; i++)
            CU_ASSERT_EQUAL(d.y[i], small_labels[i]);
        mb_dataset_free(&d);
        CU_ASSERT(is_zero(&d));
        mb_dataset_free(&d); /* twice is safe */
    }
    /* classes = 0: max label + 1; classes = 5: label 9 is out of range. */
    mb_dataset d;
    mb_error e;
    CU_ASSERT_EQUAL(mb_data_read_idx_classes(ip, lp, 0, &d, &e), MB_OK);
    CU_ASSERT_EQUAL(d.classes, 10);
    mb_dataset_free(&d);
    CU_ASSERT_EQUAL(mb_data_read_idx_classes(ip, lp, 5, &d, &e), MB_EFORMAT);
    CU_ASSERT(is_zero(&d) && strstr(e.msg, lp) && strstr(e.msg, "label 9 of sample 2"));
    CU_ASSERT_EQUAL(mb_data_read_idx_classes(ip, lp, -1, &d, &e), MB_EINVAL);
    mb_test_rmdir(dir);
}

/* One broken pair: what is written, and what the reader must say. */
typedef struct idx_case {
    const char *what;     /* for the failure message */
    const char *iname;    /* image file name (".gz": gzip) or NULL: not written (missing) */
    const char *lname;    /* label file name, likewise */
    uint32_t imagic, in, rows, cols; /* image header */
    long icut;            /* bytes to drop from the end of the image file (< 0: add -icut) */
    uint32_t lmagic, ln;  /* label header */
    long lcut;            /* bytes to drop from the label file */
    int bad_label;        /* when >= 0, sample 1's label */
    int code;             /* expected status */
    int names_labels;     /* 1: the message names the label file, 0: the image file */
    const char *says;     /* a phrase the message must hold */
} idx_case;

static void test_idx_errors(void)
{
    static const idx_case cases[] = {
        {"missing images", NULL, "l", 0x803, 5, 3, 4, 0, 0x801, 5, 0, -1, MB_EIO, 0, "cannot open"},
        {"missing labels", "i", NULL, 0x803, 5, 3, 4, 0, 0x801, 5, 0, -1, MB_EIO, 1, "cannot open"},
        {"empty images", "i", "l", 0x803, 5, 3, 4, 76, 0x801, 5, 0, -1, MB_EFORMAT, 0,
         "truncated: 0 bytes"},
        {"header cut", "i", "l", 0x803, 5, 3, 4, 66, 0x801, 5, 0, -1, MB_EFORMAT, 0,
         "header needs 16 bytes, the file has 10"},
        {"pixels cut", "i", "l", 0x803, 5, 3, 4, 1, 0x801, 5, 0, -1, MB_EFORMAT, 0,
         "truncated: the header promises 5 images of 3x4 (76 bytes), the file has 75"},
        {"trailing bytes", "i", "l", 0x803, 5, 3, 4, -2, 0x801, 5, 0, -1, MB_EFORMAT, 0,
         "2 bytes after the 5 images of 3x4"},
        {"labels as images", "i", "l", 0x801, 5, 3, 4, 0, 0x801, 5, 0, -1, MB_EFORMAT, 0,
         "wrong magic number 0x00000801, expected 0x00000803"},
        {"float images", "i", "l", 0xD03, 5, 3, 4, 0, 0x801, 5, 0, -1, MB_EFORMAT, 0,
         "wrong magic number 0x00000d03"},
        {"images as labels", "i", "l", 0x803, 5, 3, 4, 0, 0x803, 5, 0, -1, MB_EFORMAT, 1,
         "expected 0x00000801"},
        {"count mismatch", "i", "l", 0x803, 5, 3, 4, 0, 0x801, 4, 1, -1, MB_EFORMAT, 1,
         "4 labels, but"},
        {"labels cut", "i", "l", 0x803, 5, 3, 4, 0, 0x801, 5, 2, -1, MB_EFORMAT, 1,
         "promises 5 labels (13 bytes), the file has 11"},
        {"label out of range", "i", "l", 0x803, 5, 3, 4, 0, 0x801, 5, 0, 10, MB_EFORMAT, 1,
         "label 10 of sample 1 is out of range (expected 0..9)"},
        {"zero rows", "i", "l", 0x803, 5, 0, 4, 0, 0x801, 5, 0, -1, MB_EFORMAT, 0,
         "absurd dimensions 5 images of 0x4"},
        {"huge columns", "i", "l", 0x803, 5, 3, 100000, 0, 0x801, 5, 0, -1, MB_EFORMAT, 0,
         "absurd dimensions"},
        {"no images", "i", "l", 0x803, 0, 3, 4, 0, 0x801, 0, 0, -1, MB_EFORMAT, 0,
         "absurd dimensions 0 images"},
        {"gz pixels cut", "i.gz", "l.gz", 0x803, 5, 3, 4, 7, 0x801, 5, 0, -1, MB_EFORMAT, 0,
         "the file has 69"},
        {"gz wrong magic", "i.gz", "l.gz", 0x803, 5, 3, 4, 0, 0x802, 5, 0, -1, MB_EFORMAT, 1,
         "wrong magic number 0x00000802"},
        {"gz count mismatch", "i.gz", "l.gz", 0x803, 5, 3, 4, 0, 0x801, 6, -1, -1, MB_EFORMAT, 1,
         "6 labels, but"},
    };
    char dir[256];
    CU_ASSERT_FATAL(mb_test_tmpdir(dir, sizeof dir) == 0);
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const idx_case *k = &cases[c];
        unsigned char ib[16 + 64] = {0}, lb[8 + 16] = {0};
        uint32_t np = k->rows * k->cols > 12 ? 0 : k->in; /* the huge case writes no pixels */
        size_t il = idx_images(ib, k->imagic, np, k->rows, k->cols);
        put_be32(ib + 4, k->in);
        int y[8] = {4, 0, 9, 9, 2, 1, 1, 1};
        if (k->bad_label >= 0)
            y[1] = k->bad_label;
        size_t ll = idx_labels(lb, k->lmagic, k->ln, y, 5);
        il = (size_t)((long)il - k->icut);
        ll = (size_t)((long)ll - k->lcut);
        char ip[512], lp[512];
        snprintf(ip, sizeof ip, "%s/%s", dir, k->iname ? k->iname : "absent-images");
        snprintf(lp, sizeof lp, "%s/%s", dir, k->lname ? k->lname : "absent-labels");
        if (k->iname)
            CU_ASSERT_FATAL(write_bytes(ip, sizeof ip, dir, k->iname, ib, il) != NULL);
        if (k->lname)
            CU_ASSERT_FATAL(write_bytes(lp, sizeof lp, dir, k->lname, lb, ll) != NULL);
        mb_dataset d;
        mb_error e;
        mb_error_clear(&e);
        int rc = mb_data_read_idx(ip, lp, &d, &e);
        const char *named = k->names_labels ? lp : ip;
        int ok = rc == k->code && e.status == k->code && is_zero(&d) && strstr(e.msg, named) &&
                 strstr(e.msg, k->says) && !strchr(e.msg, '\n');
        if (!ok)
            fprintf(stderr, "\n  case '%s': rc %d, message '%s'\n", k->what, rc, e.msg);
        CU_ASSERT(ok);
        mb_dataset_free(&d);
    }
    /* A gzip file cut in the middle of its compressed stream, and a folder given as a file. */
    unsigned char ib[16 + 600];
    size_t il = idx_images(ib, 0x803, 6, 10, 10);
    char ip[512], lp[512];
    CU_ASSERT_FATAL(write_bytes(ip, sizeof ip, dir, "big.gz", ib, il) != NULL);
    FILE *f = fopen(ip, "rb");
    CU_ASSERT_FATAL(f != NULL);
    unsigned char gz[4096];
    size_t gl = fread(gz, 1, sizeof gz, f);
    fclose(f);
    CU_ASSERT_FATAL(gl > 40 && gl < sizeof gz);
    CU_ASSERT_FATAL(write_bytes(ip, sizeof ip, dir, "cut.gz.bin", gz, gl / 2) != NULL);
    int y[6] = {1, 2, 3, 4, 5, 6};
    unsigned char lb[8 + 6];
    CU_ASSERT_FATAL(write_bytes(lp, sizeof lp, dir, "l6", lb, idx_labels(lb, 0x801, 6, y, 6)) != NULL);
    mb_dataset d;
    mb_error e;
    CU_ASSERT_EQUAL(mb_data_read_idx(ip, lp, &d, &e), MB_EFORMAT);
    CU_ASSERT(is_zero(&d) && strstr(e.msg, ip) && strstr(e.msg, "corrupt gzip data"));
    CU_ASSERT_EQUAL(mb_data_read_idx(dir, lp, &d, &e), MB_EIO);
    CU_ASSERT(is_zero(&d) && strstr(e.msg, dir) && strstr(e.msg, "Is a directory"));
    mb_test_rmdir(dir);
}

/* ---- CIFAR-10 ------------------------------------------------------------------------------ */

#define REC 3073

/* Record r of a test file: label labels[r], pixel p = (p * 31 + r * 17 + 5) mod 256. */
static void cifar_records(unsigned char *b, const int *labels, int nrec, int salt)
{
    for (int r = 0; r < nrec; r++) {
        b[(size_t)r * REC] = (unsigned char)labels[r];
        for (int p = 0; p < 3072; p++)
            b[(size_t)r * REC + 1 + p] = (unsigned char)((p * 31 + (r + salt) * 17 + 5) % 256);
    }
}

static void test_cifar(void)
{
    char dir[256], p1[512], p2[512], p3[512];
    CU_ASSERT_FATAL(mb_test_tmpdir(dir, sizeof dir) == 0);
    static unsigned char b[3 * REC];
    int la[2] = {3, 7}, lb[1] = {0};
    cifar_records(b, la, 2, 0);
    CU_ASSERT_FATAL(write_bytes(p1, sizeof p1, dir, "a.bin", b, 2 * REC) != NULL);
    cifar_records(b + 2 * REC, lb, 1, 2);
    CU_ASSERT_FATAL(write_bytes(p2, sizeof p2, dir, "b.bin.gz", b + 2 * REC, REC) != NULL);
    const char *paths[2] = {p1, p2};
    mb_dataset d;
    mb_error e;
    CU_ASSERT_EQUAL_FATAL(mb_data_read_cifar10(paths, 2, &d, &e), MB_OK);
    CU_ASSERT(d.n == 3 && d.c == 3 && d.h == 32 && d.w == 32 && d.classes == 10);
    CU_ASSERT(d.y[0] == 3 && d.y[1] == 7 && d.y[2] == 0);
    /* NCHW: value (i, ch, row, col) is byte 1 + ch*1024 + row*32 + col of record i. */
    int bad = 0;
    for (int i = 0; i < 3; i++)
        for (int ch = 0; ch < 3; ch++)
            for (int r = 0; r < 32; r++)
                for (int c = 0; c < 32; c++) {
                    size_t at = (((size_t)i * 3 + ch) * 32 + r) * 32 + c;
                    bad += d.x[at] != (float)b[(size_t)i * REC + 1 + ch * 1024 + r * 32 + c] / 255.0f;
                }
    CU_ASSERT_EQUAL(bad, 0);
    mb_dataset_free(&d);
    /* Errors: a size that is not a multiple of 3073, an empty file, a label of 10, a missing
     * file, no files. Each names the file and leaves d zeroed. */
    CU_ASSERT_FATAL(write_bytes(p3, sizeof p3, dir, "short.bin", b, 2 * REC - 1) != NULL);
    paths[1] = p3;
    CU_ASSERT_EQUAL(mb_data_read_cifar10(paths, 2, &d, &e), MB_EFORMAT);
    CU_ASSERT(is_zero(&d) && strstr(e.msg, p3) && strstr(e.msg, "6145 bytes is not a whole"));
    CU_ASSERT_FATAL(write_bytes(p3, sizeof p3, dir, "empty.bin", b, 0) != NULL);
    CU_ASSERT_EQUAL(mb_data_read_cifar10(paths, 2, &d, &e), MB_EFORMAT);
    CU_ASSERT(is_zero(&d) && strstr(e.msg, p3));
    b[REC] = 10;
    CU_ASSERT_FATAL(write_bytes(p3, sizeof p3, dir, "label.bin.gz", b, 2 * REC) != NULL);
    CU_ASSERT_EQUAL(mb_data_read_cifar10(paths, 2, &d, &e), MB_EFORMAT);
    CU_ASSERT(is_zero(&d) && strstr(e.msg, p3) && strstr(e.msg, "label 10 of record 1"));
    snprintf(p3, sizeof p3, "%s/absent.bin", dir);
    CU_ASSERT_EQUAL(mb_data_read_cifar10(paths, 2, &d, &e), MB_EIO);
    CU_ASSERT(is_zero(&d) && strstr(e.msg, p3));
    CU_ASSERT_EQUAL(mb_data_read_cifar10(paths, 0, &d, &e), MB_EINVAL);
    mb_test_rmdir(dir);
}

int mb_test_suite_data_sets(void)
{
    CU_pSuite s = CU_add_suite("data_sets", suite_init, suite_cleanup);
    if (!s)
        return -1;
    return !CU_add_test(s, "Fashion-MNIST: shapes, histogram, labels, pixels", test_fashion_mnist) ||
           !CU_add_test(s, "Fashion-MNIST: eval is a subset of train", test_fashion_eval) ||
           !CU_add_test(s, "IDX: small files, plain and gzip", test_idx_small) ||
           !CU_add_test(s, "IDX: every error path", test_idx_errors) ||
           !CU_add_test(s, "CIFAR-10: layout and errors", test_cifar);
}
