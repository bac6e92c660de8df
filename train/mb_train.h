/* mb_train.h — the trainer's one entry: mb_train_run trains one run, handing it to the single
 * learner (train/run/) or to the parallel algorithms (train/par/). What a run is told and what
 * it reports are train/run/mb_run.h's.
 */
#ifndef MB_TRAIN_H
#define MB_TRAIN_H

#include "run/mb_run.h"

/* Runs training as described above. A run that diverges (a non-finite training loss, or an
 * evaluation loss that is non-finite or above 100 ln(classes)) is a result, not an error: it
 * stops there, writes its log with `# diverged=U` in the metadata and diverged=yes in the
 * summary, and returns MB_OK with r->diverged = 1. Errors: MB_EINVAL (bad options, a net whose
 * input shape or classes differ from the data's, a checkpoint of another net, batch or
 * algorithm, bisection snapshots above 2 GiB), MB_EFORMAT and MB_EIO from the cfg, data and
 * checkpoint files, MB_ENOMEM. The log and checkpoint are never left half-written: nothing is
 * written at the log path when the run fails. */
int mb_train_run(const mb_run_options *o, mb_run_result *r, mb_error *err);

#endif /* MB_TRAIN_H */
