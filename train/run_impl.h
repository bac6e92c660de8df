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

/* ---- the run monitor (run.c): evaluation, exact crossing, log rows and the log ----------- */
/* One mechanism for every trainer: the single-learner loop and the parallel ones (par*.c) hand
 * it a row after each update and the model to judge (the learner's parameters, or the centre /
 * averaged model); it evaluates on schedule, bisects over snapshots to the exact crossing,
 * decides reached / diverged, and writes the one log at the end. */

/* A growing text buffer for the log rows. */
typedef struct mb_strbuf {
    char *s;
    size_t len, cap;
} mb_strbuf;

/* One log row, held until its window's evaluation is done when bisecting. */
typedef struct mb_run_row {
    long update, epoch;
    size_t samples;
    double wall_s, loss;   /* training seconds so far; the mini-batch loss */
    double eval_loss;      /* NAN when not evaluated */
    double eval_acc;
} mb_run_row;

/* The bisection's state: the updates since the last evaluation (u0, u0 + n]. */
typedef struct mb_run_window {
    long u0;               /* the last evaluated update, or where this process started */
    long n;                /* rows held: updates u0 + 1 .. u0 + n */
    long cap;              /* the most updates between two scheduled evaluations: eval_every,
                              or the cap W with eval_adapt */
    size_t params;         /* floats per snapshot */
    mb_run_row *rows;      /* cap rows */
    float *snap;           /* cap x params floats: slot k (0 <= k < cap - 1) holds the
                              parameters after update u0 + 1 + k; slot cap - 1 keeps the live
                              parameters while the bisection loads others */
} mb_run_window;

typedef struct mb_run_mon {
    const mb_run_options *o;
    const mb_net_desc *desc;
    const struct mb_data_splits *data;
    mb_net *net;           /* evaluates: the model judged is copied into its parameters unless
                              it is that very block */
    mb_run_result *r;
    mb_strbuf rows;        /* the log's data rows so far */
    mb_run_window win;
    mb_run_pace pace;
    long bound;            /* the update bound (max_updates, epochs), 0 for none */
    long next_eval;
    double blowup;         /* an eval loss above this has diverged */
    int bisect, adapt;
    double eval_s, snap_s, eval_loss, eval_acc;
    long evals;
    int reached, diverged;
    const char *extra_meta;/* "# key=value\n" lines the parallel trainers add, or NULL */
} mb_run_mon;

/* Starts a monitor for a run that has done `updates` updates (a resume), whose log rows so far
 * are rows0 (taken over, may be NULL). net evaluates; params is the model's size. */
int mb_run_mon_init(mb_run_mon *m, const mb_run_options *o, const mb_net_desc *desc,
                    const struct mb_data_splits *data, mb_net *net, mb_run_result *r,
                    long updates, char *rows0, size_t len0, mb_error *err);
/* After update row->update, with `model` the parameters after it: logs the row, evaluates when
 * due, bisects when the target is reached. A non-finite row->loss diverges the run (the row is
 * not logged). *stop becomes 1 when the run must end (reached, diverged, bound). */
int mb_run_mon_update(mb_run_mon *m, const float *model, const mb_run_row *row, int *stop,
                      mb_error *err);
/* The rows so far, the held window's included, for a checkpoint: *len gets their length and
 * mb_run_mon_ckpt_done(m, saved) drops the window's again. */
int mb_run_mon_ckpt_rows(mb_run_mon *m, size_t *saved, mb_error *err);
void mb_run_mon_ckpt_done(mb_run_mon *m, size_t saved);
/* Ends the run: the held rows, a final evaluation of `model` when none was made, the test set,
 * the result (updates, samples, wall_s as given) and the log. */
int mb_run_mon_finish(mb_run_mon *m, const float *model, long updates, size_t samples,
                      double wall_s, double loss, mb_error *err);
void mb_run_mon_free(mb_run_mon *m);

/* Input shape and classes of the net against the data's. */
int mb_run_check_shapes(const mb_net_desc *d, const struct mb_dataset *s, const char *what,
                        mb_error *err);
/* The option checks every run makes. */
int mb_run_check_options(const mb_run_options *o, mb_error *err);

#endif /* MB_RUN_IMPL_H */
