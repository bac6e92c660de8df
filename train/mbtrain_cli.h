/* mbtrain_cli.h — what the parts of the mbtrain command share: mbtrain.c parses the command
 * line, mbtrain_outputs.c checks the outputs against the inputs and each other before any run,
 * mbtrain_sweep.c plans and runs the sweep over batch sizes and seeds. Not in the library.
 */
#ifndef MBTRAIN_CLI_H
#define MBTRAIN_CLI_H

#include <stddef.h>

#include "../data/mb_cli.h"
#include "../data/mb_parse.h"
#include "comm/mb_comm.h"
#include "learner/mb_learner.h"
#include "run/mb_run.h"

/* What the command line says beyond mb_run_options: the sweep's lists and the log folder. */
typedef struct mbtrain_args {
    const char *batch_arg; /* --batch: one M or a list */
    const char *seeds_arg; /* --seeds: a list */
    const char *log_dir;   /* --log-dir */
    const char *levels;    /* --levels: read once --target-loss is known */
    int have_seed;         /* --seed given */
    int noise_asked;       /* --noise-every K > 0 given: every M of the sweep must be >= 2 */
    long eval_samples;     /* --eval-samples S: a run at M evaluates every max(K, S / M)
                              updates (0: every --eval-every K) */
    mb_optim_kind optim;   /* --optim, for sgd-sync and DOWNPOUR's master */
} mbtrain_args;

/* The sweep: batch sizes by seeds (one run when neither is a list). */
typedef struct mbtrain_sweep {
    mb_range batches;       /* the batch sizes (v points at one when there is one) */
    double one;             /* the one batch size */
    unsigned long *seeds;   /* the --seeds list, or NULL: o->seed alone */
    size_t nseeds;
} mbtrain_sweep;

/* err's line as mbtrain's, on stderr; the exit status for bad data (1). */
static inline int mbtrain_fail(const mb_error *err)
{
    return mb_cli_fail("mbtrain", NULL, err);
}

/* ---- mbtrain_outputs.c ---------------------------------------------------------------------- */

/* The outputs of one run against its inputs and each other, links resolved, before it trains:
 * --resume a checkpoint mbtrain wrote, --log and --checkpoint over no input (--net, --data's
 * files), no checkpoint companion and no other output. MB_OK, or the line in err. */
int mbtrain_output_clash(const mb_run_options *o, mb_error *err);

/* An output over one of --data's files: 1 with the line in err. */
int mbtrain_over_data(const char *flag, const char *out, const char *data, mb_error *err);

/* ---- mbtrain_sweep.c ------------------------------------------------------------------------ */

void mbtrain_sweep_free(mbtrain_sweep *w);

/* Reads --batch and --seeds into w and checks the sweep against the other flags (a log folder
 * for several runs, whole and distinct batch sizes, what the parallel algorithm can use).
 * 0 to go on, else the exit status, with *unread set when --batch or --seeds could not be read
 * (every rank fails alike then: no abort); w is to be freed either way. */
int mbtrain_sweep_plan(mb_run_options *o, const mbtrain_args *a, mb_communicator *world,
                       mbtrain_sweep *w, int *unread);

/* Every run of the sweep in turn, each to its log under --log-dir (or --log), with its summary
 * line on stdout (rank 0). 0, or the exit status; *together: every rank failed at one point. */
int mbtrain_run_sweep(mb_run_options *o, const mbtrain_args *a, const mbtrain_sweep *w,
                      mb_communicator *world, int *together);

#endif /* MBTRAIN_CLI_H */
