/* mb_lightning.h — run records from PyTorch Lightning's CSVLogger (a version folder's
 * metrics.csv and hparams.yaml) read as mbkit runs for `mbfit nupdate --lightning`
 * (docs/formats.md, "Lightning metrics").
 */
#ifndef MB_LIGHTNING_H
#define MB_LIGHTNING_H

#include "mb_fit.h"

typedef struct mb_lightning_options {
    const char *loss_column; /* the validation loss column ("val_loss") */
    const double *batch;     /* n_batch sizes: one for every input, or one per input in
                                order; NULL: each folder's hparams.yaml[batch_key] */
    size_t n_batch;
    const char *batch_key;   /* "batch_size" */
} mb_lightning_options;

void mb_lightning_options_init(mb_lightning_options *o);

/* Reads n Lightning logs (a version folder holding metrics.csv, or a metrics.csv itself) into
 * runs: M from o->batch or the folder's hparams.yaml (o->batch_key; `seed` and `lr` or
 * `learning_rate` too when there); for each threshold, N_update = step + 1 of the first row
 * whose loss column is at or under it (Lightning's step is the 0-based index of the last update
 * done); a non-finite loss marks the run diverged. *max_gap gets the largest gap, in updates,
 * between logged losses before the crossing (1: every update logged, the crossing is exact;
 * more: it is an upper bound). MB_EFORMAT / MB_EIO / MB_ENODATA naming the file, line and
 * field: an mbkit file (a '# format=' line), no such column, no rows, no value in the column,
 * steps that go back, no batch size. */
int mb_fit_runs_read_lightning(const char *const *paths, size_t n,
                               const mb_lightning_options *o, const double *thr, size_t n_thr,
                               mb_fit_runs *runs, double *max_gap, mb_error *err);

/* mb_fit_runs' arrays for n runs and n_thr thresholds, zeroed (defined in runs.c). */
int mb_fit_runs_alloc(mb_fit_runs *r, size_t n, size_t n_thr);

/* Input i names the same file as an earlier one (st: each input's stat, by device and inode,
 * st_ino 0 where it could not be read): MB_EINVAL "PATH: given twice (also as PATH)", else
 * MB_OK (defined in runs.c: the run logs' check, reused for Lightning's metrics.csv). */
struct stat;
int mb_fit_given_twice(const char *const *paths, const struct stat *st, size_t i,
                       mb_error *err);

/* Run i is an earlier run again: the same file (mb_fit_given_twice), or the same seed (given)
 * with the same net, algorithm, batch, learners and learning rate (a copy): MB_EINVAL "PATH:
 * the same run as PATH (net 'N', batch M, seed S): a run counts once" (no net where the runs
 * name none, as Lightning's), else MB_OK (defined in runs.c; reused for Lightning's runs). */
int mb_fit_same_run(const mb_fit_runs *r, const char *const *paths, const struct stat *st,
                    size_t i, mb_error *err);

#endif
