/* run_impl.h — private to train/run/run*.c: checkpoint I/O and the run state a checkpoint carries.
 * The learner the run loop drives is public (train/learner/mb_learner.h). */
#ifndef MB_RUN_IMPL_H
#define MB_RUN_IMPL_H

#include <stdint.h>

#include "../../data/mb_dataset.h"
#include "../../data/mb_hostload.h"
#include "../../net/mb_net.h"
#include "../learner/mb_learner.h"
#include "mb_run.h"


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
    /* the monitor's counts and sums so far, which the summary and the log's # b_simple= state
     * for the whole run (version 8, issue #25, L8); zero where a trainer keeps none */
    long evals, checks;    /* full evaluations; evaluations a staged check ruled out */
    size_t eval_samples;   /* samples of the eval subset evaluated */
    mb_noise noise;        /* the gradient noise sums (its b and B are the run's, not stored) */
    int par_size;          /* a parallel job's communicator size, written and compared on
                              reading as data_fp is (0 or 1: one learner) */
    double ckpt_s;         /* seconds spent writing the run's checkpoints before this one
                              (version 11): with wall_s, what --max-seconds bounds */
} mb_ckpt_extra;

/* The fingerprint of a run's data: crc32 of the training set's pixels, labels and shape in the
 * high 32 bits, of the eval subset's in the low 32 (so --eval-frac and --data-seed count). */
uint64_t mb_ckpt_fingerprint(const struct mb_data_splits *d);

/* The fingerprint of a network's structure: crc32 of the input shape, classes and, per layer,
 * its kind, sizes, stride, padding, dropout p, fixed convolution algorithm, shapes and inputs
 * (names and cfg lines left out), so that another net of the same name and parameter count
 * (maxpool for avgpool, tanh for relu, a dropout added) gives another number. MPI ranks compare
 * it too before they train (par_agree, train/par/par.c). */
uint64_t mb_ckpt_net_fingerprint(const mb_net_desc *d);

/* 1 when l's parameters and velocity are all finite, as mb_ckpt_read wants them: a checkpoint
 * of others is not written (campaign 35's E5: a step past float's range checkpointed inf
 * parameters, and the resume called mbtrain's own file corrupt). O(parameters): at a
 * checkpoint only. */
int mb_ckpt_learner_finite(mb_learner *l);
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

/* ---- the run monitor (run_mon.c): evaluation, exact crossing, log rows and the log ------- */
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
    double b_simple;       /* set by the monitor: B_simple over the window this scheduled
                              evaluation closes, NAN elsewhere (what the trainer puts here is
                              ignored) */
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

/* The staged check (check_frac, with a target; run_check.c). Positions 0 .. n - 1 order the
 * eval subset: before the first full evaluation as the subset lies (one stratum); after each,
 * ranked by that evaluation's losses into `strata` strata of (nearly) equal size, each in the
 * subset's order. */
enum { MB_RUN_STRATA = 4 };
typedef struct mb_run_check {
    size_t n;              /* samples of the eval subset; 0: no checks, every evaluation full */
    int chunk;             /* samples per evaluation call */
    long first;            /* chunks of the check_frac stage */
    long start;            /* chunks of the next check's first stage: `first`, or fewer after a
                              check that ruled the target out with room to spare
                              (mb_run_check_start) */
    int strata;
    size_t lo[MB_RUN_STRATA + 1]; /* stratum h: positions lo[h] .. lo[h + 1] - 1 */
    double ref_mean[MB_RUN_STRATA]; /* each stratum's mean loss at the reference */
    double spread[MB_RUN_STRATA];   /* each stratum's per-sample spread at the last check (the
                                       reference's own before one): Neyman's allocation */
    size_t *order;         /* [n] the sample at each position */
    double *cur, *ref;     /* [n] per position: losses at this check (the first samples of each
                              stratum that it saw), at the reference (one block, owned) */
    int reference;         /* 1 after the first full evaluation: strata, ref and ref_mean hold */
    struct mb_run_ranked *rank; /* [n] scratch of the re-ranking */
    int call;              /* samples per evaluation call: a chunk on the CPU, more on a
                              device (the same positions evaluated, fewer calls) */
    float *xb;             /* one call's inputs gathered by the order */
    int *yb;               /* and its labels */
} mb_run_check;

/* Sets up the check for the eval subset (MB_ENOMEM), and frees it. */
int mb_run_check_init(mb_run_check *c, const mb_run_options *o, const struct mb_dataset *eval,
                      mb_error *err);
void mb_run_check_free(mb_run_check *c);

/* One evaluation of the net's parameters by stages. *ruled_out = 1 when a stage ruled the
 * target out (*est: its estimate); else *loss and *acc are the full evaluation's (*est is
 * *loss), which becomes the reference of the next checks. *seen: the samples evaluated. */
int mb_run_check_eval(mb_run_check *c, mb_net *net, const struct mb_dataset *eval,
                      double target, double k, double blowup, int *ruled_out, double *loss,
                      double *acc, double *est, size_t *seen, mb_error *err);

/* The estimate of the full loss from the samples seen and its standard error. Stratum h holds
 * positions lo[h] .. lo[h + 1] - 1, of which the first seen[h] have losses cur[] (and ref[] at
 * the reference, whose stratum means are ref_mean[]; ref NULL: no reference). Per stratum: the
 * mean, or when its residual variance is smaller the regression estimate mean + b (ref_mean -
 * the seen samples' ref mean); its variance / seen x (1 - seen / size), none for a stratum seen
 * whole; the strata weighted by their share of the positions. spread[h] gets the per-sample
 * spread the stratum's estimate used. *est and *se are NAN when a stratum not seen whole has
 * fewer than 2 samples seen. */
void mb_run_check_estimate(const double *cur, const double *ref, const double *ref_mean,
                           const size_t *lo, const size_t *seen, int strata, double *est,
                           double *se, double *spread);

/* Neyman's allocation of a stage of `total` chunks: want[h] in proportion to weight[h] (a
 * stratum's size x spread; a weight that is not a positive number counts as 0, and all of them
 * 0 as equal), at least min and at most cap[h] chunks each, water-filled (what a full stratum
 * cannot take goes to the others). The shares are rounded up, so the sum may pass total by up
 * to one chunk per stratum; it is below total only when every stratum is full. */
void mb_run_check_alloc(long total, int strata, const long *cap, const double *weight, long min,
                        long *want);

/* The first stage of the next check, in chunks, after a check that ruled the target out having
 * seen `done` chunks with estimate est and standard error se: the standard error shrinks as
 * 1 / sqrt(chunks), so done (2 k se / (est - target))^2 chunks would put the same estimate 2k
 * standard errors above the target (k = check_sigmas; twice the margin that rules out, as the
 * loss falls between checks and se is itself estimated), rounded up and clamped to
 * [lo, first]. `first` (the check_frac stage) when est is not above the target or se is not a
 * positive number. */
long mb_run_check_start(long done, double est, double se, double target, double k, long lo,
                        long first);

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
    mb_run_check ck;       /* the judge's staged check (every evaluation of the eval subset,
                              scheduled or the bisection's, goes through run.c's judge_eval) */
    double eval_s, snap_s, eval_loss, eval_acc;
    long evals, checks;    /* full evaluations of the eval subset; evaluations a check ruled out */
    size_t eval_samples;   /* samples of the eval subset evaluated, both kinds */
    int reached, diverged;
    double low;            /* the lowest loss of a full evaluation of the eval subset so far
                              (INFINITY before one; a resumed run's from the checkpoint's
                              rows): the levels at or above it are reached (mb_run_mon_level) */
    const char *extra_meta;/* "# key=value\n" lines the parallel trainers add, or NULL */
    mb_noise noise;        /* the gradient noise scale's sums (off unless the trainer starts
                              it with mb_noise_init and feeds it): each scheduled evaluation's
                              row gets its window's B_simple, the log's # b_simple= the run's */
    double noise_s;        /* one learner: seconds of the noise measurement not yet taken out
                              of the training time (run.c) */
    double noise_total_s;  /* all of them: the log's # t_noise_s= */
    mb_hostload_mark load0;/* the machine's counters as the run (this process's part) began */
    double ckpt_s;         /* one learner: seconds spent writing checkpoints, a resumed run's
                              earlier ones included; --max-seconds bounds wall_s + ckpt_s (the
                              checkpoint carries the log's rows, so each write grows with the
                              run: campaign 30's C7, --checkpoint-every 1 ran for minutes) */
    /* The run's last evaluation when the bound (or --max-seconds) alone asked for it, off the
     * schedule: a checkpoint of that update holds the run as the schedule left it, without
     * that evaluation (its row's eval cells and b_simple, its counts, the noise window it
     * closed), so that a run resumed from it logs and counts what the straight run does
     * (campaign 11's N9), unless that evaluation reached the target: then the run is over and
     * the checkpoint holds it as logged, the crossing in its rows (campaign 31's A1). Set by
     * mb_run_mon_update; swapped in by mb_run_mon_ckpt_rows and
     * out again by mb_run_mon_ckpt_done. */
    struct {
        mb_strbuf plain;       /* the rows it changed as the schedule logs them (empty: none) */
        size_t at;             /* where those rows start in `rows` */
        char *logged;          /* while a checkpoint is written: the rows as logged */
        long evals, checks;    /* the counts and noise sums before it (while a checkpoint is */
        size_t eval_samples;   /* written: after it) */
        mb_noise noise;
    } tail;
} mb_run_mon;

/* The loss the judge aims at next: the highest of o->levels above m->low (the first level no
 * full evaluation has reached), or the target once every level is reached (or without levels).
 * The staged checks rule an evaluation out against it, and --eval-adapt spaces by the distance
 * to it; an evaluation ruled out is above every level not yet reached, so the first logged row
 * at or under each level is the one a full evaluation of every scheduled update would give. */
double mb_run_mon_level(const mb_run_mon *m);

/* Starts a monitor for a run that has done `updates` updates (a resume), whose log rows so far
 * are rows0 (taken over, may be NULL). net evaluates; params is the model's size. */
int mb_run_mon_init(mb_run_mon *m, const mb_run_options *o, const mb_net_desc *desc,
                    const struct mb_data_splits *data, mb_net *net, mb_run_result *r,
                    long updates, char *rows0, size_t len0, mb_error *err);
/* 1 when a run at `updates` has nothing left to train: at or past its bound, or resumed from a
 * checkpoint whose rows reached the target (written at the evaluation that found it; the
 * monitor took the crossing from them). One learner reports that run; a parallel job refuses
 * it, as it refuses a resume at its bound (par.c's resume_in_bound). */
int mb_run_mon_ended(const mb_run_mon *m, long updates);
/* After update row->update, with `model` the parameters after it: logs the row, evaluates when
 * due, bisects when the target is reached. A non-finite row->loss diverges the run (the row is
 * not logged). *stop becomes 1 when the run must end (reached, diverged, bound). */
int mb_run_mon_update(mb_run_mon *m, const float *model, const mb_run_row *row, int *stop,
                      mb_error *err);
/* The rows so far, the held window's included, for a checkpoint: *len gets their length and
 * mb_run_mon_ckpt_done(m, saved) drops the window's again. In between, the rows, the counts
 * (evals, checks, eval_samples) and the noise sums are what a resumed run continues from: those
 * before an evaluation only the bound asked for (m->tail). */
int mb_run_mon_ckpt_rows(mb_run_mon *m, size_t *saved, mb_error *err);
void mb_run_mon_ckpt_done(mb_run_mon *m, size_t saved);
/* A resumed run's monitor takes the checkpoint's counts and gradient noise sums, so that its
 * summary and B_simple are the straight run's (issue #25, L8; the single learner and sgd-sync
 * alike, M5); the noise's b and B stay this run's (mb_noise_init, on or off as this run says,
 * which the checkpoint matched). */
void mb_run_mon_resume(mb_run_mon *m, const mb_ckpt_extra *x);
/* The run's data: o->splits when the caller loaded them, else loaded from o->data into *own
 * (zeroed first; the caller frees it with mb_data_splits_free either way). */
int mb_run_data(const mb_run_options *o, struct mb_data_splits *own,
                const struct mb_data_splits **data, mb_error *err);

/* Hands o->progress (when set) the state after update `updates`. */
void mb_run_mon_progress(const mb_run_mon *m, long updates, size_t samples, double wall_s,
                         double loss);

/* Ends the run: the held rows, a final evaluation of `model` when none was made, the test set,
 * the result (updates, samples, wall_s as given) and the log. */
int mb_run_mon_finish(mb_run_mon *m, const float *model, long updates, size_t samples,
                      double wall_s, double loss, mb_error *err);
void mb_run_mon_free(mb_run_mon *m);

/* One learner's run (run.c): what mb_train_run (train.c) does for o->par == MB_PAR_NONE. */
int mb_run_single(const mb_run_options *o, mb_run_result *r, mb_error *err);

/* Input shape and classes of the net against the data's. */
int mb_run_check_shapes(const mb_net_desc *d, const struct mb_dataset *s, const char *what,
                        mb_error *err);
/* The option checks every run makes. */
int mb_run_check_options(const mb_run_options *o, mb_error *err);
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
    double lr;             /* --lr the run was trained at (version 5): a resume at another rate
                              would log one rate for rows of two (issue #25, G18) */
    /* the other settings a log states once for all its rows (version 6, issue #25, H4) */
    double momentum;       /* --momentum, finite >= 0 */
    double weight_decay;   /* --weight-decay, finite >= 0 */
    double lr_gamma;       /* --lr-gamma, finite */
    double target_loss;    /* --target-loss, NAN for none */
    int64_t lr_step;       /* --lr-step, >= 0 (0: constant rate) */
    /* how the log's evaluations and crossing were found, also stated once for all its rows
     * (version 7, issue #25, K8 and G18) */
    double check_frac;     /* --check-frac, in [0, 1) (0: every evaluation a full one) */
    double check_sigmas;   /* --check-sigmas, finite > 0 */
    int64_t eval_every;    /* --eval-every, >= 1 */
    int64_t noise_every;   /* --noise-every, >= 0 (0: B_simple not measured) */
    int32_t no_bisect;     /* --no-bisect: 0 or 1 */
    int32_t eval_adapt;    /* --eval-adapt: 0 or 1 */
    /* the network's structure, not only its name and size (version 8, issue #25, L7) */
    uint64_t net_fp;       /* mb_ckpt_net_fingerprint of the parsed description */
    uint64_t net_layers;   /* its layers */
    /* the monitor's counts and the gradient noise sums so far (version 8, issue #25, L8) */
    int64_t evals, checks; /* >= 0 */
    uint64_t eval_samples;
    int64_t noise_run_n, noise_win_n;   /* 0 <= win_n <= run_n <= updates */
    double noise_run[2], noise_win[2];  /* sums of |G_b|^2, |G_B|^2: finite, >= 0 */
    /* the levels the checks and the spacing aimed at, also stated once for all its rows
     * (version 9, issue #23) */
    int32_t n_levels;      /* --levels: 0 .. MB_RUN_LEVELS_MAX */
    int32_t levels_pad;    /* 0 */
    double levels[MB_RUN_LEVELS_MAX]; /* n_levels of them, finite, from the highest down;
                                         the rest 0 */
    /* the job this file is learner 0's checkpoint of (version 9, campaign 12's P4: a parallel
     * checkpoint resumed as one learner's run logged one learner over rows of two) */
    int32_t par;           /* its mb_par_algo (MB_PAR_NONE: one learner) */
    int32_t par_size;      /* its communicator's size: learners, and the server or watcher
                              where the algorithm keeps one (1 for one learner) */
    /* the parallel algorithm's own settings, defaults resolved (mb_par_resolved), which change
     * its updates and which the log also states once for all its rows (version A, campaign
     * 29's A1: a resume at another --elastic-alpha logged the new one over rows of the old);
     * 0 where the algorithm has none (one learner: all) */
    double par_alpha;      /* --elastic-alpha: easgd*, eamsgd, sma (downpour's unused_alpha) */
    double par_mu;         /* --sma-momentum (sma) or --delta (eamsgd) */
    int64_t n_push;        /* downpour's --n-push and --n-fetch (--tau where not given) */
    int64_t n_fetch;
    int32_t grad_after;    /* --grad-after-exchange (easgd-async, eamsgd, easgd-hogwild): 0, 1 */
    int32_t no_overlap;    /* --no-overlap (easgd-sync): 0 or 1 */
    /* SMA's tuning, which the log states once (# sma_tune=, # sma_tune_window=) and which
     * decides its learners and alpha (version B, campaign 30's C6: a tuned checkpoint resumed
     * without --sma-tune was refused naming an --elastic-alpha no one gave; an untuned one
     * resumed with it was taken, its log stating 2^30 learners) */
    int32_t sma_tune;      /* --sma-tune (sma): 0 or 1 */
    int32_t sma_pad;       /* 0 */
    int64_t sma_window;    /* --sma-tune-window where tuned, else 0 */
    /* seconds spent writing the run's checkpoints before this one (version B, campaign 30's
     * C7): with wall_s, the clock --max-seconds bounds; 0 in a companion's settings */
    double ckpt_s;
} ckpt_run;

/* The settings a log states once for all its rows, shared with the parallel companion's head
 * (par_impl.h), which a server algorithm resumes from alone: */
/* o's lr, optimiser kind (algo), momentum, weight decay, rate schedule, target and evaluation
 * settings, and its parallel algorithm (par) with that algorithm's own settings (par_alpha ...
 * no_overlap), into h (its other fields untouched). */
void mb_ckpt_settings_fill(ckpt_run *h, const mb_run_options *o);
/* NULL when h's settings are each in range, else which are not (for a "corrupt" line). */
const char *mb_ckpt_settings_range(const ckpt_run *h);
/* MB_EINVAL naming the first of the settings but algo (the caller names it as its flag) in
 * which `have` (a checkpoint's) and `want` (this run's) differ: "PATH: checkpoint of lr 0.05,
 * this run has lr 0.2 (a log states one rate for the whole run)"; MB_OK when none does. */
int mb_ckpt_settings_check(const ckpt_run *have, const ckpt_run *want, const char *path,
                           mb_error *err);

/* "LRN ": one learner's header; its parameters, velocity and permutation follow. */
typedef struct ckpt_learner {
    uint32_t index;        /* 0, 1, ... in file order */
    uint32_t has_velocity; /* 1 when a velocity block follows the parameters */
    uint64_t params;       /* floats in each block */
    uint64_t n_train;      /* uint32 entries in the permutation */
    uint64_t pos;          /* cursor position in the permutation (a multiple of span) */
    uint64_t span;         /* samples the cursor advances per update: the batch, or the job's
                              M for a learner of a parallel job (mb_learner_set_slice) */
    int64_t updates;       /* this learner's updates */
    int64_t epoch;         /* its epoch */
    uint64_t rng;          /* its shuffling PRNG state */
} ckpt_learner;

/* A learner section inside the file buffer (byte pointers: any alignment). */
typedef struct ckpt_learner_view {
    ckpt_learner meta;
    const unsigned char *params, *velocity, *perm; /* velocity NULL when there is none */
} ckpt_learner_view;

/* The checkpoint format version, the last byte of the magic "MBKCKPTB" (run_ckpt.c; 'B' is
 * version 11): the fuzz harness (tests/fuzz/fuzz_ckpt.c) writes the same magic before the
 * bytes it repairs. */
#define MB_CKPT_VERSION 'B'

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
