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
#include <sys/stat.h>
#include <zlib.h>

#include "../data/mb_dataset.h"
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
         "more bytes after the 5 images of 3x4"},
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

/* The bytes of file `path` into b (at most n); their count, 0 on failure. */
static size_t file_bytes(const char *path, unsigned char *b, size_t n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t k = fread(b, 1, n, f);
    fclose(f);
    return k < n ? k : 0;
}

/* The gzip reader (data/gzin.c, ISA-L): a file of several members reads as their bytes one
 * after the other; a wrong CRC or length trailer, trailing bytes that start no member, and a
 * stream cut inside a member are each refused with one line naming the file. */
static void test_gzip_streams(void)
{
    char dir[256], ip[512], lp[512], hp[512], tp[512];
    CU_ASSERT_FATAL(mb_test_tmpdir(dir, sizeof dir) == 0);
    unsigned char ib[16 + 600], lb[8 + 6], one[4096], two[4096], cat[8192];
    size_t il = idx_images(ib, 0x803, 6, 10, 10);
    int y[6] = {1, 2, 3, 4, 5, 6};
    CU_ASSERT_FATAL(write_bytes(lp, sizeof lp, dir, "l6", lb, idx_labels(lb, 0x801, 6, y, 6)) != NULL);
    CU_ASSERT_FATAL(write_bytes(ip, sizeof ip, dir, "plain", ib, il) != NULL);
    CU_ASSERT_FATAL(write_bytes(hp, sizeof hp, dir, "head.gz", ib, 100) != NULL);
    CU_ASSERT_FATAL(write_bytes(tp, sizeof tp, dir, "tail.gz", ib + 100, il - 100) != NULL);
    size_t n1 = file_bytes(hp, one, sizeof one), n2 = file_bytes(tp, two, sizeof two);
    CU_ASSERT_FATAL(n1 > 18 && n2 > 18);
    memcpy(cat, one, n1);
    memcpy(cat + n1, two, n2);
    mb_dataset want, d;
    mb_error e;
    CU_ASSERT_EQUAL_FATAL(mb_data_read_idx(ip, lp, &want, &e), MB_OK);
    CU_ASSERT_FATAL(write_bytes(ip, sizeof ip, dir, "members.bin", cat, n1 + n2) != NULL);
    CU_ASSERT_EQUAL(mb_data_read_idx(ip, lp, &d, &e), MB_OK);
    CU_ASSERT(d.n == 6 && memcmp(d.x, want.x, 600 * sizeof *d.x) == 0);
    mb_dataset_free(&d);
    mb_dataset_free(&want);
    static const struct {
        const char *what;
        long at;         /* byte changed from the end of the two members (0: none; < 0: byte
                            -at from the start set to flags 0xe0) */
        size_t extra;    /* bytes of junk appended; or, when cut, bytes cut off the end */
        int cut;         /* 1: cut `extra` bytes off the end; 2: keep only the first 20 */
        const char *says;
    } k[] = {
        {"CRC trailer", 8, 0, 0, "incorrect data check"},
        {"length trailer", 1, 0, 0, "corrupt gzip data"},
        {"trailing junk", 0, 5, 0, "trailing data after the last gzip member"},
        {"cut inside the second member", 0, 12, 1, "unexpected end of file"},
        /* campaign 10's M14: cut inside the first 16 bytes of data, not "a short IDX file" */
        {"cut inside the first member", 0, 0, 2, "unexpected end of file"},
        /* M1: a reserved header flag bit (RFC 1952: a decompressor must refuse it) */
        {"reserved header flags", -3, 0, 0, "reserved header flags 0xe0 set"},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        size_t n = n1 + n2;
        unsigned char b[8192];
        memcpy(b, cat, n);
        if (k[i].at > 0)
            b[n - (size_t)k[i].at] ^= 0x5a;
        if (k[i].at < 0) /* from the start: byte 3 is the first member's flags */
            b[-k[i].at] |= 0xe0;
        if (!k[i].cut)
            memset(b + n, 'x', k[i].extra);
        n = k[i].cut == 2 ? 20 : k[i].cut ? n - k[i].extra : n + k[i].extra;
        CU_ASSERT_FATAL(write_bytes(ip, sizeof ip, dir, "bad.bin", b, n) != NULL);
        int rc = mb_data_read_idx(ip, lp, &d, &e);
        int ok = rc == MB_EFORMAT && is_zero(&d) && strstr(e.msg, ip) && strstr(e.msg, k[i].says) &&
                 !strchr(e.msg, '\n');
        if (!ok)
            fprintf(stderr, "\n  case '%s': rc %d, message '%s'\n", k[i].what, rc, e.msg);
        CU_ASSERT(ok);
        mb_dataset_free(&d);
    }
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

/* ---- mb_data_load: folders, specs, errors -------------------------------------------------- */

/* True when every eval sample equals some training sample at the index the seed picks. */
static int eval_matches(const mb_data_splits *s, double frac, unsigned long seed)
{
    size_t *idx = NULL, k = 0;
    if (mb_data_eval_indices(s->train.n, frac, seed, &idx, &k, NULL) != MB_OK)
        return 0;
    size_t per = (size_t)s->train.c * s->train.h * s->train.w;
    int ok = k == s->eval.n && s->eval.c == s->train.c && s->eval.h == s->train.h &&
             s->eval.w == s->train.w && s->eval.classes == s->train.classes;
    for (size_t i = 0; ok && i < k; i++)
        ok = s->eval.y[i] == s->train.y[idx[i]] &&
             memcmp(s->eval.x + i * per, s->train.x + idx[i] * per, per * sizeof(float)) == 0;
    free(idx);
    return ok;
}

static int is_zero_splits(const mb_data_splits *s)
{
    return is_zero(&s->train) && is_zero(&s->eval) && is_zero(&s->test);
}

static void test_load_folders(void)
{
    char dir[256], sub[300], p[512];
    CU_ASSERT_FATAL(mb_test_tmpdir(dir, sizeof dir) == 0);
    mb_data_splits s;
    mb_error e;
    /* An IDX folder: training files gzip, test files plain; 7 training images, 3 test. */
    snprintf(sub, sizeof sub, "%s/idx", dir);
    CU_ASSERT_FATAL(mkdir(sub, 0700) == 0);
    unsigned char ib[16 + 7 * 12], lb[8 + 7];
    int y[7] = {1, 0, 3, 9, 2, 2, 5};
    CU_ASSERT_FATAL(write_bytes(p, sizeof p, sub, "train-images-idx3-ubyte.gz", ib,
                                idx_images(ib, 0x803, 7, 3, 4)) != NULL);
    CU_ASSERT_FATAL(write_bytes(p, sizeof p, sub, "train-labels-idx1-ubyte.gz", lb,
                                idx_labels(lb, 0x801, 7, y, 7)) != NULL);
    CU_ASSERT_EQUAL(mb_data_load(sub, 0.5, 3, &s, &e), MB_EIO); /* no test files yet */
    CU_ASSERT(is_zero_splits(&s) && strstr(e.msg, "t10k-images-idx3-ubyte"));
    CU_ASSERT_FATAL(write_bytes(p, sizeof p, sub, "t10k-images-idx3-ubyte", ib,
                                idx_images(ib, 0x803, 3, 4, 3)) != NULL);
    CU_ASSERT_FATAL(write_bytes(p, sizeof p, sub, "t10k-labels-idx1-ubyte", lb,
                                idx_labels(lb, 0x801, 3, y, 3)) != NULL);
    CU_ASSERT_EQUAL(mb_data_load(sub, 0.5, 3, &s, &e), MB_EFORMAT); /* 4x3 test vs 3x4 train */
    CU_ASSERT(is_zero_splits(&s) && strstr(e.msg, "t10k-images-idx3-ubyte") &&
              strstr(e.msg, "test images are 4x3, training images 3x4"));
    CU_ASSERT_FATAL(write_bytes(p, sizeof p, sub, "t10k-images-idx3-ubyte", ib,
                                idx_images(ib, 0x803, 3, 3, 4)) != NULL);
    CU_ASSERT_EQUAL_FATAL(mb_data_load(sub, 0.5, 3, &s, &e), MB_OK);
    CU_ASSERT(s.train.n == 7 && s.test.n == 3 && s.eval.n == 4); /* round(3.5) = 4 */
    CU_ASSERT(s.train.y[3] == 9 && s.test.y[2] == 3);
    CU_ASSERT(eval_matches(&s, 0.5, 3));
    mb_data_splits_free(&s);
    CU_ASSERT(is_zero_splits(&s));
    mb_data_splits_free(&s); /* twice is safe */
    /* A CIFAR-10 folder: five batches of one record (one of them gzip) and a test batch. */
    snprintf(sub, sizeof sub, "%s/cifar", dir);
    CU_ASSERT_FATAL(mkdir(sub, 0700) == 0);
    static unsigned char b[REC];
    for (int i = 1; i <= 6; i++) {
        int lab = i + 2;
        char name[32];
        cifar_records(b, &lab, 1, i);
        snprintf(name, sizeof name, i == 6 ? "test_batch.bin" : i == 4 ? "data_batch_%d.bin.gz"
                                                                        : "data_batch_%d.bin", i);
        CU_ASSERT_FATAL(write_bytes(p, sizeof p, sub, name, b, REC) != NULL);
    }
    CU_ASSERT_EQUAL_FATAL(mb_data_load(sub, 0.2, 11, &s, &e), MB_OK);
    CU_ASSERT(s.train.n == 5 && s.test.n == 1 && s.eval.n == 1 && s.train.c == 3);
    for (int i = 0; i < 5; i++)
        CU_ASSERT_EQUAL(s.train.y[i], i + 3); /* file order */
    CU_ASSERT(s.test.y[0] == 8 && eval_matches(&s, 0.2, 11));
    mb_data_splits_free(&s);
    /* Errors: bad eval fractions, an unknown name, a file, an empty folder. */
    const double bad[] = {0, -0.1, 1.5, NAN};
    for (int i = 0; i < 4; i++) {
        CU_ASSERT_EQUAL(mb_data_load("synthetic", bad[i], 1, &s, &e), MB_EINVAL);
        CU_ASSERT(is_zero_splits(&s) && strstr(e.msg, "eval fraction"));
    }
    CU_ASSERT_EQUAL(mb_data_load("no-such-set", 0.2, 1, &s, &e), MB_EIO);
    CU_ASSERT(is_zero_splits(&s) && strstr(e.msg, "no-such-set: no such data set"));
    CU_ASSERT_EQUAL(mb_data_load(p, 0.2, 1, &s, &e), MB_EIO);
    CU_ASSERT(strstr(e.msg, p) != NULL);
    snprintf(sub, sizeof sub, "%s/empty", dir);
    CU_ASSERT_FATAL(mkdir(sub, 0700) == 0);
    CU_ASSERT_EQUAL(mb_data_load(sub, 0.2, 1, &s, &e), MB_EIO);
    CU_ASSERT(is_zero_splits(&s) && strstr(e.msg, sub) && strstr(e.msg, "neither"));
    CU_ASSERT_EQUAL(mb_data_load("", 0.2, 1, &s, &e), MB_EINVAL);
    /* "mnist": loads when installed in one of the documented folders, else says where it looked. */
    int rc = mb_data_load("mnist", 0.2, 1, &s, &e);
    CU_ASSERT(rc == MB_OK ? s.train.n == 60000 && s.test.n == 10000
                          : rc == MB_EIO && strstr(e.msg, "no installed MNIST"));
    mb_data_splits_free(&s);
    mb_test_rmdir(dir);
}

/* ---- the eval subset ------------------------------------------------------------------------ */

static void test_eval_indices(void)
{
    size_t *a = NULL, *b = NULL, ka = 0, kb = 0;
    mb_error e;
    /* Sizes: round(frac * n), at least 1; frac = 1 gives a permutation of all n. */
    CU_ASSERT(mb_data_eval_indices(7, 0.5, 1, &a, &ka, &e) == MB_OK && ka == 4);
    free(a);
    CU_ASSERT(mb_data_eval_indices(1000, 1e-9, 1, &a, &ka, &e) == MB_OK && ka == 1);
    free(a);
    CU_ASSERT_FATAL(mb_data_eval_indices(333, 1.0, 5, &a, &ka, &e) == MB_OK && ka == 333);
    char seen[333] = {0};
    int dup = 0;
    for (size_t i = 0; i < ka; i++)
        dup += a[i] >= 333 || seen[a[i]]++;
    CU_ASSERT_EQUAL(dup, 0);
    free(a);
    /* The same seed gives the same subset; another seed another one. */
    CU_ASSERT_FATAL(mb_data_eval_indices(60000, 0.2, 42, &a, &ka, &e) == MB_OK);
    CU_ASSERT_FATAL(mb_data_eval_indices(60000, 0.2, 42, &b, &kb, &e) == MB_OK);
    CU_ASSERT(ka == kb && memcmp(a, b, ka * sizeof *a) == 0);
    free(b);
    CU_ASSERT_FATAL(mb_data_eval_indices(60000, 0.2, 43, &b, &kb, &e) == MB_OK);
    CU_ASSERT(ka == kb && memcmp(a, b, ka * sizeof *a) != 0);
    free(a);
    free(b);
    /* Unbiased: over 20000 seeds, the first pick from 10 falls in each slot ~2000 times.
     * Pearson's chi-square with 9 degrees of freedom exceeds 33.7 with probability 1e-4, so a
     * fair shuffle fails this about once in 10^4 runs, and it is deterministic anyway (fixed
     * seeds); a biased pick (e.g. always slot 0, or modulo bias towards low slots) fails it. */
    size_t cnt[10] = {0};
    for (unsigned long seed = 0; seed < 20000; seed++) {
        CU_ASSERT_FATAL(mb_data_eval_indices(10, 0.1, seed, &a, &ka, NULL) == MB_OK && ka == 1);
        cnt[a[0]]++;
        free(a);
    }
    double chi2 = 0;
    for (int i = 0; i < 10; i++)
        chi2 += (cnt[i] - 2000.0) * (cnt[i] - 2000.0) / 2000.0;
    CU_ASSERT(chi2 < 33.7);
    /* Errors. */
    CU_ASSERT(mb_data_eval_indices(0, 0.2, 1, &a, &ka, &e) == MB_EINVAL && !a && ka == 0);
    CU_ASSERT(mb_data_eval_indices(5, 1.01, 1, &a, &ka, &e) == MB_EINVAL && !a);
    /* A subset with an index out of range. */
    mb_dataset src, dst;
    mb_synthetic sp;
    mb_synthetic_init(&sp);
    sp.n = 5;
    sp.test = 1;
    sp.h = sp.w = 3;
    mb_dataset tmp;
    CU_ASSERT_FATAL(mb_data_synthetic(&sp, &src, &tmp, &e) == MB_OK);
    size_t idx[2] = {4, 5};
    CU_ASSERT(mb_dataset_subset(&src, idx, 2, &dst, &e) == MB_EINVAL && is_zero(&dst));
    mb_dataset_free(&src);
    mb_dataset_free(&tmp);
}

/* ---- the synthetic set ---------------------------------------------------------------------- */

/* Accuracy on `te` of the nearest-class-mean classifier fitted on `tr`. */
static double nearest_mean_accuracy(const mb_dataset *tr, const mb_dataset *te)
{
    size_t per = (size_t)tr->c * tr->h * tr->w;
    double *mean = calloc((size_t)tr->classes * per, sizeof *mean);
    size_t *cnt = calloc((size_t)tr->classes, sizeof *cnt);
    if (!mean || !cnt) {
        free(mean);
        free(cnt);
        return -1;
    }
    for (size_t i = 0; i < tr->n; i++) {
        cnt[tr->y[i]]++;
        for (size_t j = 0; j < per; j++)
            mean[tr->y[i] * per + j] += tr->x[i * per + j];
    }
    for (int k = 0; k < tr->classes; k++)
        for (size_t j = 0; j < per; j++)
            mean[k * per + j] /= cnt[k] ? (double)cnt[k] : 1.0;
    size_t right = 0;
    for (size_t i = 0; i < te->n; i++) {
        int best = -1;
        double bd = INFINITY;
        for (int k = 0; k < tr->classes; k++) {
            double d = 0;
            for (size_t j = 0; j < per; j++) {
                double t = te->x[i * per + j] - mean[k * per + j];
                d += t * t;
            }
            if (d < bd) {
                bd = d;
                best = k;
            }
        }
        right += best == te->y[i];
    }
    free(mean);
    free(cnt);
    return (double)right / (double)te->n;
}

static void test_synthetic(void)
{
    mb_data_splits s, t;
    mb_error e;
    CU_ASSERT_EQUAL_FATAL(mb_data_load("synthetic", 0.2, 1, &s, &e), MB_OK);
    CU_ASSERT(s.train.n == 2000 && s.test.n == 500 && s.eval.n == 400);
    CU_ASSERT(s.train.c == 1 && s.train.h == 28 && s.train.w == 28 && s.train.classes == 10);
    CU_ASSERT(s.test.c == 1 && s.test.h == 28 && s.test.w == 28 && s.test.classes == 10);
    size_t h[10];
    CU_ASSERT_FATAL(histogram(&s.train, h, 10));
    for (int k = 0; k < 10; k++)
        CU_ASSERT_EQUAL(h[k], 200); /* balanced by construction */
    CU_ASSERT_FATAL(histogram(&s.test, h, 10));
    for (int k = 0; k < 10; k++)
        CU_ASSERT_EQUAL(h[k], 50);
    int out = 0;
    for (size_t i = 0; i < s.train.n * 784; i++)
        out += !(s.train.x[i] >= 0 && s.train.x[i] <= 1);
    CU_ASSERT_EQUAL(out, 0);
    CU_ASSERT(eval_matches(&s, 0.2, 1));
    /* Learnable: prototypes differ by about 0.4 per pixel (RMS) and the noise is 0.35 per
     * pixel, so over 784 pixels the distance to the right mean beats the wrong ones by many
     * standard deviations; nearest-class-mean gets essentially all test samples. 0.95 leaves
     * room for the clamping at 0 and 1, and still fails for labels unrelated to images (0.1). */
    CU_ASSERT(nearest_mean_accuracy(&s.train, &s.test) >= 0.95);
    /* Deterministic: the same spec twice gives the same bytes; another seed other data. */
    CU_ASSERT_EQUAL_FATAL(mb_data_load("synthetic:seed=1", 0.2, 1, &t, &e), MB_OK);
    CU_ASSERT(memcmp(s.train.x, t.train.x, 2000 * 784 * sizeof(float)) == 0 &&
              memcmp(s.test.y, t.test.y, 500 * sizeof(int)) == 0);
    mb_data_splits_free(&t);
    CU_ASSERT_EQUAL_FATAL(mb_data_load("synthetic:seed=2", 0.2, 1, &t, &e), MB_OK);
    CU_ASSERT(memcmp(s.train.x, t.train.x, 784 * sizeof(float)) != 0);
    mb_data_splits_free(&t);
    mb_data_splits_free(&s);
    /* Every key. With noise 1.5 (most pixels clamped to 0 or 1) nearest-class-mean gets 0.69
     * here: the bounds say noise makes the set harder (below the 0.95 the defaults clear) while
     * the labels still carry signal (chance is 0.25 for 4 classes). */
    CU_ASSERT_EQUAL_FATAL(
        mb_data_load("synthetic:n=333,test=211,c=3,h=9,w=11,classes=4,seed=5,noise=1.5", 0.3, 2,
                     &s, &e),
        MB_OK);
    CU_ASSERT(s.train.n == 333 && s.test.n == 211 && s.eval.n == 100 && s.train.c == 3 &&
              s.train.h == 9 && s.train.w == 11 && s.train.classes == 4);
    double acc = nearest_mean_accuracy(&s.train, &s.test);
    CU_ASSERT(acc > 0.4 && acc < 0.95);
    mb_data_splits_free(&s);
    /* noise = 0: every sample is its class's prototype. */
    CU_ASSERT_EQUAL_FATAL(mb_data_load("synthetic:n=20,test=5,h=4,w=5,classes=3,noise=0", 0.5,
                                       1, &s, &e), MB_OK);
    int same = 1;
    for (size_t i = 0; i < s.train.n; i++)
        for (size_t j = 0; j < s.train.n; j++)
            if (s.train.y[i] == s.train.y[j])
                same &= memcmp(s.train.x + i * 20, s.train.x + j * 20, 20 * sizeof(float)) == 0;
    CU_ASSERT(same);
    mb_data_splits_free(&s);
    /* Errors name the key and value. */
    static const char *bad[][2] = {
        {"synthetic:n=0", "n='0'"},          {"synthetic:n=12x", "n='12x'"},
        {"synthetic:classes=1", "classes='1'"}, {"synthetic:noise=-1", "noise='-1'"},
        {"synthetic:noise=nan", "noise='nan'"}, {"synthetic:depth=3", "unknown key 'depth'"},
        {"synthetic:n", "'n' is not key=value"}, {"synthetic:h=1025", "h='1025'"},
        {"synthetic:n=100000000,h=1024,w=1024", "exceed"},
    };
    mb_synthetic sp;
    CU_ASSERT(mb_synthetic_parse("synth:n=3", &sp, &e) == MB_EINVAL &&
              strstr(e.msg, "not a synthetic spec"));
    mb_synthetic_init(&sp);
    sp.classes = 1;
    CU_ASSERT(mb_data_synthetic(&sp, &s.train, &s.test, &e) == MB_EINVAL &&
              is_zero(&s.train) && is_zero(&s.test));
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int rc = mb_data_load(bad[i][0], 0.2, 1, &s, &e);
        int ok = rc == MB_EINVAL && is_zero_splits(&s) && strstr(e.msg, bad[i][1]);
        if (!ok)
            fprintf(stderr, "\n  spec '%s': rc %d, message '%s'\n", bad[i][0], rc, e.msg);
        CU_ASSERT(ok);
    }
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
           !CU_add_test(s, "gzip: members, trailers, junk, cut streams", test_gzip_streams) ||
           !CU_add_test(s, "CIFAR-10: layout and errors", test_cifar) ||
           !CU_add_test(s, "mb_data_load: folders, specs, errors", test_load_folders) ||
           !CU_add_test(s, "eval subset: size, determinism, uniformity", test_eval_indices) ||
           !CU_add_test(s, "synthetic: shape, balance, learnable, errors", test_synthetic);
}
