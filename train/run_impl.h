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
