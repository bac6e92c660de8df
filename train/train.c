/* train.c — mb_train_run: the one entry to a training run. It hands a run with a parallel
 * algorithm to par.c (mb_par_run) and any other to run.c (mb_run_single): the dispatch sits
 * above both drivers, so that neither calls the other.
 */
#include "run/run_impl.h"
#include "backend/mb_backend.h"
#include "par/mb_par.h"

int mb_train_run(const mb_run_options *o, mb_run_result *r, mb_error *err)
{
    return o->par != MB_PAR_NONE ? mb_par_run(o, r, err) : mb_run_single(o, r, err);
}
