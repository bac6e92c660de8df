/* run_impl.h — private to train/run*.c: the learner the run loop drives (network, optimiser and
 * data cursor with its own PRNG), the PRNG, and checkpoint I/O. */
#ifndef MB_RUN_IMPL_H
#define MB_RUN_IMPL_H

#include <stdint.h>

#include "../data/mb_data.h"
#include "mb_train.h"


/* Where a learner is in its pass over the training data: a permutation per epoch, drawn from
 * rng when the epoch starts; batches are consecutive slices of it, and the last incomplete slice
 * of an epoch is dropped so every update sees exactly `batch` samples. */
typedef struct mb_cursor {
    uint32_t *perm;        /* n indices into the training set */
    size_t n;              /* training samples */
    size_t pos;            /* next position in perm */
    long epoch;            /* 0-based epoch the next batch belongs to */
    uint64_t rng;          /* shuffling PRNG state (mb_rng_* of data/mb_data.h) after drawing
                              perm: a context, not a global */
} mb_cursor;

/* A learner: everything one stream of updates owns. */
typedef struct mb_learner {
    mb_net *net;
    mb_optim *opt;
    mb_cursor cur;
    int batch;             /* samples per update */
    float *xb;             /* batch inputs, batch * c*h*w floats */
    int *yb;               /* batch labels */
} mb_learner;

int mb_learner_init(mb_learner *l, const mb_net_desc *desc, const mb_run_options *o,
                    size_t n_train, mb_error *err);
void mb_learner_free(mb_learner *l);

/* Takes the next batch from `train` (advancing the cursor, reshuffling at an epoch boundary),
 * runs forward/backward and one optimiser step. *epoch gets the batch's epoch. */
int mb_learner_step(mb_learner *l, const mb_dataset *train, double *loss, long *epoch,
                    mb_error *err);

/* The run's state beyond the learner that a checkpoint carries. */
typedef struct mb_ckpt_extra {
    long updates;          /* updates done */
    size_t samples;        /* training samples processed */
    double wall_s;         /* training seconds so far */
    char *log_rows;        /* the log's data rows so far (owned; NUL-terminated) */
    size_t log_len;
} mb_ckpt_extra;

/* Writes a checkpoint atomically (temp + rename). */
int mb_ckpt_write(const char *path, mb_learner *l, const mb_run_options *o,
                  const mb_ckpt_extra *x, mb_error *err);
/* Reads a checkpoint into l (which must have been built for the same net, batch, algorithm and
 * data) and x (x->log_rows allocated). MB_EINVAL when it belongs to another run, MB_EFORMAT when
 * it is truncated or not a checkpoint. */
int mb_ckpt_read(const char *path, mb_learner *l, const mb_run_options *o, mb_ckpt_extra *x,
                 mb_error *err);

#endif /* MB_RUN_IMPL_H */
