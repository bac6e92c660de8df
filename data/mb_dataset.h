/* mb_dataset.h — labelled image data sets (IDX as used by MNIST and Fashion-MNIST, CIFAR-10
 * binary, and a generated synthetic set) read into float32 NCHW arrays, with the eval subset of
 * Perrone et al. (dataset.c, idx.c, cifar.c, synthetic.c, load.c).
 */
#ifndef MB_DATASET_H
#define MB_DATASET_H

#include <stddef.h>
#include <stdint.h>

#include "../model/mb_model.h"

/* ---- labelled image data sets (IDX, CIFAR-10 binary, synthetic) ---------------------------- */

/* A labelled image data set in memory, float32 NCHW. Owned by whoever filled it: free with
 * mb_dataset_free. */
typedef struct mb_dataset {
    size_t n;        /* number of samples */
    int c, h, w;     /* shape of one sample: channels, height, width (pixels) */
    int classes;     /* labels are 0 .. classes-1 */
    float *x;        /* n * c * h * w values, sample-major then channel, row, column (NCHW);
                        pixels scaled to [0, 1] (byte / 255) */
    int *y;          /* n labels */
} mb_dataset;

/* The three sets a training run uses. */
typedef struct mb_data_splits {
    mb_dataset train; /* every training sample, in file order */
    mb_dataset eval;  /* a fixed subset of the TRAINING samples (a copy): eval_frac of them,
                         chosen by `seed` (partial Fisher-Yates, see mb_data_eval_indices), the
                         same for the same seed; its loss defines convergence (Perrone et al.) */
    mb_dataset test;  /* the test set, for accuracy */
} mb_data_splits;

/* The class count of MNIST-format (IDX) and CIFAR-10 data: labels must lie in 0 .. 9. */
#define MB_DATA_IDX_CLASSES 10

/* Loads the data named by `spec`:
 *   "fashion-mnist"  the files of Debian's dataset-fashion-mnist package
 *                    (/usr/share/datasets/fashion-mnist/ *-ubyte.gz);
 *   "mnist"          the same four IDX files of an installed MNIST, looked for in
 *                    /usr/share/datasets/mnist, /usr/share/mnist and /usr/local/share/mnist;
 *   a folder holding train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte,
 *                    t10k-labels-idx1-ubyte, each plain or .gz;
 *   a CIFAR-10 binary folder (data_batch_1.bin .. data_batch_5.bin, test_batch.bin; each plain
 *                    or .gz);
 *   "synthetic" or "synthetic:n=2000,test=500,c=1,h=28,w=28,classes=10,seed=1,noise=0.35" — a
 *                    generated, learnable set (see mb_data_synthetic).
 * eval_frac in (0, 1]; the eval set holds max(1, round(eval_frac * n_train)) samples. On
 * success *s owns three data sets (mb_data_splits_free); on error *s is all zeros, nothing is
 * left allocated, and err holds one line naming the file and what is wrong: MB_EINVAL (bad
 * eval_frac or synthetic parameters), MB_EIO (missing or unreadable file, unknown spec),
 * MB_EFORMAT (malformed content), MB_ENOMEM. */
int mb_data_load(const char *spec, double eval_frac, unsigned long seed, mb_data_splits *s,
                 mb_error *err);
void mb_data_splits_free(mb_data_splits *s);
/* Whether writing `path` would overwrite one of the files `spec` reads (its IDX or CIFAR-10
 * files, links resolved): 1, with that file's path in which (n bytes); 0 when not, or for a
 * spec without files (synthetic). What every command asks of its outputs before any work. */
int mb_data_spec_holds(const char *spec, const char *path, char *which, size_t n);

/* Frees what d owns and zeroes it (NULL-safe, safe twice). */
void mb_dataset_free(mb_dataset *d);

/* One IDX pair (images + labels), plain or gzip. Images: magic 0x00000803 (unsigned byte, three
 * dimensions n, rows, cols), labels: magic 0x00000801 (n); big-endian header. The result has
 * c = 1, h = rows, w = cols and classes = MB_DATA_IDX_CLASSES (10, as for MNIST and
 * Fashion-MNIST); a label >= 10 is an error. On error *d is all zeros. */
int mb_data_read_idx(const char *images_path, const char *labels_path, mb_dataset *d,
                     mb_error *err);

/* Like mb_data_read_idx with another class count: labels must lie in 0 .. classes-1; classes = 0
 * means "max label + 1" (every label accepted). */
int mb_data_read_idx_classes(const char *images_path, const char *labels_path, int classes,
                             mb_dataset *d, mb_error *err);

/* CIFAR-10 binary files, concatenated in the order given: records of 1 label byte (0..9) and
 * 3072 pixel bytes (3 x 32 x 32, channel-major: all red, then green, then blue, each row by
 * row). Plain or gzip. A file whose size is not a positive multiple of 3073 bytes is an
 * MB_EFORMAT error naming it. c = 3, h = w = 32, classes = 10. On error *d is all zeros. */
int mb_data_read_cifar10(const char *const *paths, size_t npaths, mb_dataset *d, mb_error *err);

/* Parameters of a generated data set. */
typedef struct mb_synthetic {
    size_t n;          /* training samples */
    size_t test;       /* test samples */
    int c, h, w;       /* sample shape */
    int classes;       /* number of classes, >= 2 */
    unsigned long seed;/* chooses prototypes and noise */
    double noise;      /* standard deviation of the Gaussian noise added to a prototype, in
                          pixel units (pixels are in [0, 1]) */
} mb_synthetic;

/* Fills *p with the defaults: n=2000, test=500, c=1, h=28, w=28, classes=10, seed=1,
 * noise=0.35. */
void mb_synthetic_init(mb_synthetic *p);

/* Parses "synthetic" or "synthetic:key=value,..." (keys n, test, c, h, w, classes, seed, noise)
 * over the defaults. MB_EINVAL with a message naming the key and value at fault. */
int mb_synthetic_parse(const char *spec, mb_synthetic *p, mb_error *err);

/* Generates a training and a test set: each class k has a prototype image P_k (pixels uniform
 * in [0, 1], then smoothed over a 3x3 neighbourhood so that images have structure); a sample of
 * class k is clamp(P_k + noise * N(0, 1), 0, 1) per pixel, and labels cycle through a seeded
 * shuffle so classes are balanced. Deterministic for a given *p. On error both are zeros. */
int mb_data_synthetic(const mb_synthetic *p, mb_dataset *train, mb_dataset *test,
                      mb_error *err);

/* The eval subset's indices into a training set of n samples: k = max(1, round(eval_frac * n))
 * distinct indices from a partial Fisher-Yates shuffle driven by splitmix64(seed), in the order
 * drawn. *idx is owned by the caller (free). MB_EINVAL when eval_frac is outside (0, 1] or
 * n == 0. */
int mb_data_eval_indices(size_t n, double eval_frac, unsigned long seed, size_t **idx,
                         size_t *k, mb_error *err);

/* Copies the samples src[idx[0]], ..., src[idx[k-1]] into a new data set *dst (same shape and
 * classes). MB_EINVAL when an index is out of range; on error *dst is all zeros. */
int mb_dataset_subset(const mb_dataset *src, const size_t *idx, size_t k, mb_dataset *dst,
                      mb_error *err);

#endif /* MB_DATASET_H */
