/* run_impl.h — private to train/run*.c: checkpoint I/O and the run state a checkpoint carries.
 * The learner the run loop drives is public (mb_train.h, "learners"). */
#ifndef MB_RUN_IMPL_H
#define MB_RUN_IMPL_H

#include <stdint.h>

#include "../data/mb_data.h"
#include "mb_train.h"


/* The run's state beyond the learner that a checkpoint carries. */
typedef struct mb_ckpt_extra {
    long updates;          /* updates done */
    size_t samples;        /* training samples processed */
    double wall_s;         /* training seconds so far */
    double loss;           /* the last update's mini-batch loss (what a run resumed at its
                              bound reports) */
    uint64_t data_fp;      /* mb_ckpt_fingerprint of the run's data: written, and compared on
                              reading (set it before mb_ckpt_read) */
    char *log_rows;        /* the log's data rows so far (owned; NUL-terminated) */
    size_t log_len;
} mb_ckpt_extra;

/* The fingerprint of a run's data: crc32 of the training set's pixels, labels and shape in the
 * high 32 bits, of the eval subset's in the low 32 (so --eval-frac and --data-seed count). */
uint64_t mb_ckpt_fingerprint(const struct mb_data_splits *d);

/* Writes a checkpoint through mb_out (temp + rename); the format is in run_ckpt.c. */
int mb_ckpt_write(const char *path, mb_learner *l, const mb_run_options *o,
                  const mb_ckpt_extra *x, mb_error *err);
/* Reads a checkpoint into l (built for the same net, batch, algorithm and data) and x
 * (x->log_rows allocated; x->data_fp set by the caller beforehand to this run's fingerprint).
 * MB_EINVAL with one line naming the field when it belongs to another run (net, data, seed,
 * algo, batch, learners); MB_EFORMAT when it is not a checkpoint, of another format version,
 * damaged (checksum), or holds a value out of range. */
int mb_ckpt_read(const char *path, mb_learner *l, const mb_run_options *o, mb_ckpt_extra *x,
                 mb_error *err);

/* ---- the file's records, for the reader and the fuzz harness ---- */

/* "RUN ": the identity and counters of the run (fixed size, zeroed padding). */
typedef struct ckpt_run {
    char net[64];          /* the description's name, NUL-terminated */
    uint64_t params;       /* parameters per learner */
    uint64_t data_fp;      /* mb_ckpt_fingerprint */
    uint64_t seed;         /* --seed */
    int32_t algo;          /* mb_optim_kind */
    int32_t batch;         /* samples per update */
    uint64_t learners;     /* "LRN " sections that follow */
    uint64_t n_train;      /* training samples */
    int64_t updates;       /* updates done, >= 1 */
    uint64_t samples;      /* training samples processed: updates x batch */
    double wall_s;         /* training seconds so far, in [0, 1e9] */
    double loss;           /* the last mini-batch loss, finite */
} ckpt_run;

/* "LRN ": one learner's header; its parameters, velocity and permutation follow. */
typedef struct ckpt_learner {
    uint32_t index;        /* 0, 1, ... in file order */
    uint32_t has_velocity; /* 1 when a velocity block follows the parameters */
    uint64_t params;       /* floats in each block */
    uint64_t n_train;      /* uint32 entries in the permutation */
    uint64_t pos;          /* cursor position in the permutation (a multiple of batch) */
    int64_t updates;       /* this learner's updates */
    int64_t epoch;         /* its epoch */
    uint64_t rng;          /* its shuffling PRNG state */
} ckpt_learner;

/* A learner section inside the file buffer (byte pointers: any alignment). */
typedef struct ckpt_learner_view {
    ckpt_learner meta;
    const unsigned char *params, *velocity, *perm; /* velocity NULL when there is none */
} ckpt_learner_view;

/* A decoded checkpoint: views into the caller's buffer, every value checked. */
typedef struct mb_ckpt {
    ckpt_run run;
    const char *log;       /* the stored log rows (not NUL-terminated) */
    size_t log_len;
    ckpt_learner_view *lrn;/* run.learners of them (owned: mb_ckpt_release) */
} mb_ckpt;

/* Checks and decodes a whole checkpoint file held in buf (magic and version, checksum, section
 * structure, every value's range, as listed in run_ckpt.c). `path` names it in messages. On
 * error *c is empty. Knows nothing of the resuming run: mb_ckpt_read compares the identity. */
int mb_ckpt_decode(const void *buf, size_t len, const char *path, mb_ckpt *c, mb_error *err);
void mb_ckpt_release(mb_ckpt *c);

#endif /* MB_RUN_IMPL_H */
