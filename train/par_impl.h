/* par_impl.h — private to train/par*.c: the parallel run's checkpoint companion (par_ckpt.c).
 *
 * A parallel run's checkpoint is two files: PATH, the single-learner checkpoint of learner 0
 * (run_ckpt.c: the shared data cursor, learner 0's parameters and optimiser state, the log rows),
 * and PATH.learners, written first, holding every learner and the centre. A resume reads both
 * and checks that they belong to the same update. */
#ifndef MB_PAR_IMPL_H
#define MB_PAR_IMPL_H

#include "run_impl.h"

/* What PATH.learners says of the run. */
typedef struct mb_par_ckpt_head {
    uint64_t learners;     /* records in the file */
    uint64_t params;       /* floats per parameter block */
    int64_t updates;       /* the update the checkpoint was taken after */
    uint64_t samples;      /* training samples processed */
    double wall_s;         /* training seconds so far */
    int32_t algo;          /* an mb_par_algo */
    uint64_t log_len;      /* bytes of log rows that follow the header */
} mb_par_ckpt_head;

/* Floats per learner record: parameters, optimiser velocity (zeros without one), the
 * algorithm's second block (SMA's z_prev, EAMSGD's velocity), this learner's copy of the centre. */
#define MB_PAR_RECORD(n) (4 * (n))

/* Writes PATH.learners atomically: the head, the log rows, then head->learners records, each
 * fetched by `record(i, buf, ctx)` into buf (MB_PAR_RECORD(params) floats). */
int mb_par_ckpt_write(const char *path, const mb_par_ckpt_head *head, const char *rows,
                      int (*record)(uint64_t i, float *buf, void *ctx), void *ctx, float *buf,
                      mb_error *err);
/* Reads PATH.learners' head and log rows (*rows allocated, NUL-terminated; NULL to skip) and,
 * when buf is not NULL, record i into buf. MB_EFORMAT for a truncated or foreign file. */
int mb_par_ckpt_read(const char *path, mb_par_ckpt_head *head, char **rows, uint64_t i,
                     float *buf, mb_error *err);

#endif /* MB_PAR_IMPL_H */
