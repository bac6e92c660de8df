/* load.c — mb_data_load: turns a `--data` spec ("fashion-mnist", "mnist", a folder,
 * "synthetic:...") into train, eval and test sets, by handing each format to its reader (idx.c,
 * cifar.c, synthetic.c) and drawing the eval subset (dataset.c).
 *
 * It sits above the readers; they and it share only dataset.c's helpers. Nothing here prints or
 * keeps state between calls.
 */
#include "dataset_impl.h"
#include "mb_output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Where Debian's dataset-fashion-mnist puts its files. */
#define FASHION_MNIST_DIR "/usr/share/datasets/fashion-mnist"

/* Folders an installed MNIST is looked for in, in order. */
static const char *const mnist_dirs[] = {"/usr/share/datasets/mnist", "/usr/share/mnist",
                                         "/usr/local/share/mnist"};

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Sets out to dir/base when that exists, else to dir/base.gz when that exists (returns 1); when
 * neither exists, to dir/base (returns 0), so that the reader's error names the plain file. An
 * entry is there when its name is (lstat): a link to nothing is that file, broken, which the
 * reader names, not passed over for the other name or called absent (campaign 11's minor). */
static int find_file(char *out, size_t n, const char *dir, const char *base)
{
    struct stat st;
    snprintf(out, n, "%s/%s", dir, base);
    if (lstat(out, &st) == 0)
        return 1;
    snprintf(out, n, "%s/%s.gz", dir, base);
    if (lstat(out, &st) == 0)
        return 1;
    snprintf(out, n, "%s/%s", dir, base);
    return 0;
}

/* Whether the regular files a and b hold the same data (each read as a stream, gzip inflated,
 * up to the first difference); anything else (a FIFO, read once) is not known to be. */
static int same_data(const char *a, const char *b)
{
    static unsigned char x[1 << 16], y[1 << 16];
    struct stat sa, sb;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0 || !S_ISREG(sa.st_mode) || !S_ISREG(sb.st_mode))
        return 0;
    mb_data_in fa = {0}, fb = {0};
    mb_error e = {0};
    int same = mb_data_in_open(&fa, a, &e) == MB_OK && mb_data_in_open(&fb, b, &e) == MB_OK;
    for (size_t ga = 1, gb = 1; same && ga > 0;)
        same = mb_data_in_read(&fa, x, sizeof x, &ga, &e) == MB_OK &&
               mb_data_in_read(&fb, y, sizeof y, &gb, &e) == MB_OK && ga == gb &&
               memcmp(x, y, ga) == 0;
    mb_data_in_close(&fb, MB_OK);
    mb_data_in_close(&fa, MB_OK);
    return same;
}

/* dir/base and dir/base.gz both here with different data (campaign 21's N12: the plain file was
 * read, unsaid): which one is meant? MB_EINVAL naming both. The same data twice (gunzip -k) is
 * no question. */
static int one_of(const char *dir, const char *base, mb_error *err)
{
    char plain[4096], gz[4096];
    struct stat st;
    snprintf(plain, sizeof plain, "%s/%s", dir, base);
    snprintf(gz, sizeof gz, "%s/%s.gz", dir, base);
    if (lstat(plain, &st) != 0 || lstat(gz, &st) != 0 || same_data(plain, gz))
        return MB_OK;
    return mb_error_set(err, MB_EINVAL, "%s and %s: both here, with different data: which one "
                        "is meant? (remove the other)", plain, gz);
}

/* The four IDX files of an MNIST-format folder. */
static int load_idx_dir(const char *dir, mb_data_splits *s, mb_error *err)
{
    char im[4096], lb[4096];
    static const char *const names[] = {"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                                        "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"};
    for (int i = 0; i < 4; i++)
        if (one_of(dir, names[i], err) != MB_OK)
            return MB_EINVAL;
    find_file(im, sizeof im, dir, "train-images-idx3-ubyte");
    find_file(lb, sizeof lb, dir, "train-labels-idx1-ubyte");
    int rc = mb_data_read_idx(im, lb, &s->train, err);
    if (rc != MB_OK)
        return rc;
    find_file(im, sizeof im, dir, "t10k-images-idx3-ubyte");
    find_file(lb, sizeof lb, dir, "t10k-labels-idx1-ubyte");
    rc = mb_data_read_idx(im, lb, &s->test, err);
    if (rc == MB_OK && (s->test.h != s->train.h || s->test.w != s->train.w))
        rc = mb_error_set(err, MB_EFORMAT, "%s: test images are %dx%d, training images %dx%d", im,
                          s->test.h, s->test.w, s->train.h, s->train.w);
    return rc;
}

/* The six files of a CIFAR-10 binary folder. */
static int load_cifar_dir(const char *dir, mb_data_splits *s, mb_error *err)
{
    char paths[5][4096], test[4096];
    const char *p[5];
    for (int i = 0; i < 5; i++) {
        char base[32];
        snprintf(base, sizeof base, "data_batch_%d.bin", i + 1);
        if (one_of(dir, base, err) != MB_OK)
            return MB_EINVAL;
        find_file(paths[i], sizeof paths[i], dir, base);
        p[i] = paths[i];
    }
    if (one_of(dir, "test_batch.bin", err) != MB_OK)
        return MB_EINVAL;
    int rc = mb_data_read_cifar10(p, 5, &s->train, err);
    if (rc != MB_OK)
        return rc;
    find_file(test, sizeof test, dir, "test_batch.bin");
    p[0] = test;
    return mb_data_read_cifar10(p, 1, &s->test, err);
}

/* Picks the reader for `spec` and fills s->train and s->test. */
static int load_sets(const char *spec, mb_data_splits *s, mb_error *err)
{
    char probe[4096];
    if (strcmp(spec, "synthetic") == 0 || strncmp(spec, "synthetic:", 10) == 0) {
        mb_synthetic p;
        int rc = mb_synthetic_parse(spec, &p, err);
        return rc != MB_OK ? rc : mb_data_synthetic(&p, &s->train, &s->test, err);
    }
    if (strcmp(spec, "fashion-mnist") == 0) {
        if (!is_dir(FASHION_MNIST_DIR))
            return mb_error_set(err, MB_EIO,
                                "fashion-mnist: %s not found (install Debian's "
                                "dataset-fashion-mnist, or give the folder of the IDX files)",
                                FASHION_MNIST_DIR);
        return load_idx_dir(FASHION_MNIST_DIR, s, err);
    }
    if (strcmp(spec, "mnist") == 0) {
        for (size_t i = 0; i < sizeof mnist_dirs / sizeof *mnist_dirs; i++)
            if (find_file(probe, sizeof probe, mnist_dirs[i], "train-images-idx3-ubyte"))
                return load_idx_dir(mnist_dirs[i], s, err);
        return mb_error_set(err, MB_EIO,
                            "mnist: no installed MNIST found in %s, %s or %s; give the folder "
                            "of its IDX files instead",
                            mnist_dirs[0], mnist_dirs[1], mnist_dirs[2]);
    }
    if (!is_dir(spec))
        return mb_error_set(err, MB_EIO,
                            "%s: no such data set (expected fashion-mnist, mnist, "
                            "synthetic[:key=value,...], or a folder of IDX or CIFAR-10 files)",
                            spec);
    char cifar[4096];
    const int idx = find_file(probe, sizeof probe, spec, "train-images-idx3-ubyte");
    if (idx && find_file(cifar, sizeof cifar, spec, "data_batch_1.bin")) /* N12 */
        return mb_error_set(err, MB_EINVAL, "%s and %s: an IDX and a CIFAR-10 data set in one "
                            "folder: which one is meant? (give a folder of one)", probe, cifar);
    if (idx)
        return load_idx_dir(spec, s, err);
    if (find_file(probe, sizeof probe, spec, "data_batch_1.bin"))
        return load_cifar_dir(spec, s, err);
    return mb_error_set(err, MB_EIO,
                        "%s: neither train-images-idx3-ubyte[.gz] (IDX) nor data_batch_1.bin[.gz] "
                        "(CIFAR-10) in this folder",
                        spec);
}

/* The folder a spec reads its files from, or NULL (synthetic, or none found). */
static const char *spec_dir(const char *spec)
{
    char probe[4096];
    if (!spec || strncmp(spec, "synthetic", 9) == 0)
        return NULL;
    if (strcmp(spec, "fashion-mnist") == 0)
        return FASHION_MNIST_DIR;
    if (strcmp(spec, "mnist") == 0) {
        for (size_t i = 0; i < sizeof mnist_dirs / sizeof *mnist_dirs; i++)
            if (find_file(probe, sizeof probe, mnist_dirs[i], "train-images-idx3-ubyte"))
                return mnist_dirs[i];
        return NULL;
    }
    return is_dir(spec) ? spec : NULL;
}

int mb_data_spec_holds(const char *spec, const char *path, char *which, size_t n)
{
    static const char *const names[] = {
        "train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
        "t10k-labels-idx1-ubyte",  "data_batch_1.bin",        "data_batch_2.bin",
        "data_batch_3.bin",        "data_batch_4.bin",        "data_batch_5.bin",
        "test_batch.bin"};
    const char *dir = spec_dir(spec);
    for (size_t i = 0; dir && path && i < sizeof names / sizeof *names; i++) {
        char f[4096];
        if (find_file(f, sizeof f, dir, names[i]) && mb_data_same_file(path, f)) {
            snprintf(which, n, "%s", f);
            return 1;
        }
    }
    return 0;
}

int mb_data_load(const char *spec, double eval_frac, unsigned long seed, mb_data_splits *s,
                 mb_error *err)
{
    memset(s, 0, sizeof *s);
    if (!(eval_frac > 0 && eval_frac <= 1))
        return mb_error_set(err, MB_EINVAL, "eval fraction must be in (0, 1], got %g", eval_frac);
    if (!spec || !*spec)
        return mb_error_set(err, MB_EINVAL, "empty data spec");
    int rc = load_sets(spec, s, err);
    size_t *idx = NULL, k = 0;
    if (rc == MB_OK)
        rc = mb_data_eval_indices(s->train.n, eval_frac, seed, &idx, &k, err);
    if (rc == MB_OK)
        rc = mb_dataset_subset(&s->train, idx, k, &s->eval, err);
    free(idx);
    if (rc != MB_OK)
        mb_data_splits_free(s);
    return rc;
}
