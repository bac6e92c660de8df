/* mb_run.h — train/run/: a training run's options and result, the run monitor's schedule
 * (evaluation spacing), the summary line, and the names of every algorithm a run can use (the
 * single learner's optimisers and the parallel algorithms). The single learner's loop is
 * run.c's; train/mb_train.h's mb_train_run is the one entry to a run.
 */
#ifndef MB_RUN_H
#define MB_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "../comm/mb_comm.h"
#include "../learner/mb_learner.h"

/* ---- training runs (train/run/run*.c): the loop behind mbtrain -------------------------------- */

/* One training run of one learner: read the description, load (or take) the data, build the
 * network and optimiser, and step through shuffled mini-batches until the target loss on the
 * fixed evaluation subset, the update bound or the epoch bound is reached; evaluate every
 * eval_every updates; write the run log and checkpoints atomically; resume from a checkpoint.
 * A learner (network, optimiser, data cursor with its own PRNG) is the unit the loop drives, so
 * that the parallel trainers can drive several. Never prints: progress goes to a callback. */

struct mb_data_splits; /* data/mb_dataset.h */

/* The most levels a run's checks and spacing aim at on the way to its target (--levels). */
enum { MB_RUN_LEVELS_MAX = 16 };
/* Whether level hi lies above lo by at least one unit of the last place a log writes its losses
 * in (its 6th decimal, from 10 up its 7th significant digit), below and above 1 alike: closer, a
 * log may write the losses that cross them alike, and two such levels or thresholds would be
 * crossed at one update (campaign 14, R1; campaign 41's F1: 0.5 and 0.5000008 were two). */
int mb_run_level_above(double hi, double lo);
/* Whether losses a and b are one to a log's last place (neither is mb_run_level_above the
 * other): one loss given twice in a list of levels or thresholds, whose fits or checks would be
 * one and the same (campaign 40's F1: mbfit nupdate --target-loss 0.5,0.5000001). The line for
 * it is MB_RUN_LEVEL_TWICE, from the flag, the item as written and the list. Messages quote a
 * level or threshold with mb_data_typed (data/mb_parse.h), never %g, which merges two that this
 * rule tells apart (campaign 42, F1). */
int mb_run_level_same(double a, double b);
#define MB_RUN_LEVEL_TWICE "%s: %s given twice in '%s' (to the 6 digits a log writes)"

/* What the progress callback sees after every update. */
typedef struct mb_run_progress {
    long update;          /* updates done */
    long max_updates;     /* the bound from max_updates and epochs, 0 when there is none */
    double epoch;         /* epochs done, fractional (samples / training samples) */
    double loss;          /* this update's mini-batch loss */
    double eval_loss;     /* the last evaluation's loss, NAN before the first */
    double wall_s;        /* training seconds so far (evaluations excluded) */
    size_t samples;       /* training samples processed (all learners) */
} mb_run_progress;

/* The shortest wait_timeout other than 0 (no limit), in seconds: a learner's first wait spans
 * the others' start (campaign 23's R11: 0.0001 s ended every job at the first broadcast). */
#define MB_RUN_WAIT_MIN 1.0

typedef struct mb_run_options {
    const char *net;               /* cfg name or path (mb_net_desc_read) */
    const char *data;              /* dataset spec (mb_data_load); recorded in the log */
    const struct mb_data_splits *splits; /* data already loaded from `data`, or NULL to load */
    double eval_frac;              /* fraction of training samples in the eval subset (0.2) */
    unsigned long data_seed;       /* picks the eval subset when loading (0), so that runs with
                                      different seeds share one eval subset */
    mb_optim_params optim;         /* algorithm, lr, momentum, weight decay, lr schedule */
    int batch;                     /* mini-batch size M, samples per update (> 0) */
    int no_eval;                   /* 1: the learners are stepped, never evaluated (mbprobe):
                                      each network is built for `batch` alone, not for an
                                      evaluation's chunk of at least 128 (campaign 42, F4) */
    unsigned long seed;            /* initialisation, shuffling, dropout */
    int threads;                   /* the network's worker threads (its context's pool);
                                      recorded in the log */
    int eval_threads;              /* parallel learners: worker threads of rank 0's evaluation
                                      network (the other ranks wait idle while it evaluates);
                                      0 (default): threads */
    mb_backend_kind backend;       /* what the learner computes with (CPU); recorded in the log
                                      with the device's name */
    int device;                    /* the backend's device index (0) */
    mb_conv_algo conv_algo;        /* for conv layers whose cfg names none (MB_CONV_AUTO) */
    double target_loss;            /* stop at the first eval_loss <= this; NAN for no target */
    long eval_every;               /* updates between evaluations (> 0; default 100) */
    long eval_samples;             /* --eval-samples when it set eval_every (eval_samples / batch),
                                      named in refusals of the spacing; 0: eval_every given */
    long noise_every;              /* one learner: measure the gradient noise scale B_simple
                                      every this many updates from a half-batch gradient
                                      (docs/models.md, "The gradient noise scale"); 0: never
                                      (default 16) */
    int no_bisect;                 /* 0 (default): with a target, find the first update whose
                                      eval_loss <= target_loss by bisection over the parameter
                                      snapshots of the updates since the last evaluation
                                      (eval_every x params floats held; W x params with
                                      eval_adapt); 1: report the first *evaluated*
                                      update that reached it (a multiple of eval_every
                                      without eval_adapt) */
    int eval_adapt;                /* 0 (default): evaluate every eval_every updates; 1: with a
                                      target, space the scheduled evaluations by the decline
                                      rate of the last two, at most halfway to the predicted
                                      crossing, at least eval_every and at most the window cap
                                      (mb_run_eval_cap); plain eval_every near the target */
    double check_frac;             /* 0 (default): every evaluation is a full one; in (0, 1),
                                      with a target: the scheduled evaluations and the
                                      bisection's go by stages, this fraction of the eval
                                      subset first (or less after a check far above the
                                      target), a quarter more at each stage, and stop where
                                      the samples seen rule the target out (estimate more than
                                      check_sigmas standard errors above it, or a loss sum past
                                      target x the subset's size), the samples drawn by strata
                                      of the last full evaluation's losses (train/run/run_check.c) */
    double check_sigmas;           /* k: a check rules the target out when its estimate is more
                                      than k standard errors above it (default 4) */
    double levels[MB_RUN_LEVELS_MAX]; /* with a target: losses above it, from the highest down
                                      (n_levels of them; --levels), whose first evaluated
                                      crossings the log is to show as full evaluations would:
                                      the staged checks and eval_adapt's spacing aim at the
                                      highest level no full evaluation has reached yet, and at
                                      the target once every level is reached (the log states
                                      them, # levels=) */
    int n_levels;                  /* 0 (default): no levels, they aim at the target */
    int no_test_eval;              /* 1: skip the final test-set evaluation (test_* stay NAN) */
    long max_updates;              /* stop after this many updates in all; 0 = no bound */
    double epochs;                 /* stop after this many epochs (fractional allowed); 0 = none */
    double max_seconds;            /* stop after this many seconds of training (wall_s) and
                                      checkpoint writing (evaluation excluded), not reached;
                                      0 = none; one learner only */
    const char *log_path;          /* run log (CSV of docs/design.md, "Run log";
                                      atomic), NULL for none */
    const char *checkpoint_path;   /* checkpoint file (atomic), NULL for none */
    long checkpoint_every;         /* updates between checkpoints (> 0 with checkpoint_path) */
    const char *resume_path;       /* continue from this checkpoint; NULL to start afresh */
    const char *tool;              /* for the log's metadata: tool name, argc, argv */
    int argc;
    char **argv;
    void (*progress)(const mb_run_progress *p, void *ctx); /* after each update, or NULL */
    void *progress_ctx;
    /* parallel learners (train/par/par*.c); MB_PAR_NONE trains the one learner of `optim` */
    int par;                       /* an mb_par_algo */
    int learners;                  /* learners (threads) in this process (>= 1; default 1) */
    double elastic_alpha;          /* EASGD's moving rate alpha = eta rho (NAN: 0.9 / p, beta
                                      = 0.9 as in Zhang et al.); SMA's alpha (NAN: 1 / k) */
    long tau;                      /* communication period in local steps (easgd-sync, async
                                      EASGD, EAMSGD, Hogwild, DOWNPOUR; default 1; the others
                                      have none and refuse tau != 1) */
    long n_push, n_fetch;          /* DOWNPOUR: local steps between pushes of the gradient sum
                                      and between fetches of the centre (Dean et al.; 0: tau) */
    int grad_after_exchange;       /* easgd-async, eamsgd, easgd-hogwild: 1 takes the gradient
                                      after the elastic exchange (mbkit's rule before issue 28),
                                      0 (default) at the copy from before it, as Zhang et al.'s
                                      Algorithms 1 and 2 */
    double wait_timeout;           /* seconds a learner waits for the others (a collective, a
                                      message) before the job ends (default 600; 0: forever;
                                      else at least MB_RUN_WAIT_MIN) */
    double par_momentum;           /* EAMSGD's Nesterov delta (NAN: 0.99), SMA's centre momentum
                                      mu (NAN: 0.9) */
    int no_overlap;                /* easgd-sync: 1 = blocking reduce after the gradient (You et
                                      al.'s unoptimised form), 0 = reduce overlapped with it */
    int sma_tune;                  /* sma: tune learners per process from 1 up to `learners`
                                      (Crossbow section 4) */
    long sma_tune_window;          /* updates per tuning step (default 20) */
    mb_communicator *comm;         /* the MPI ranks (mb_comm_mpi_create), or NULL for one
                                      process */
} mb_run_options;

/* Defaults: eval_frac 0.2, momentum 0.9 (used by momentum and Nesterov), lr 0.05, batch 64,
 * eval_every 100, epochs 10, target_loss NAN, threads 1, conv_algo MB_CONV_AUTO, SGD; one
 * learner (par MB_PAR_NONE, learners 1, tau 1, n_push and n_fetch 0 (tau), elastic_alpha and
 * par_momentum NAN: the algorithm's default, sma_tune_window 20, wait_timeout 600, no
 * communicator). */
void mb_run_options_init(mb_run_options *o);

/* What a run did. */
typedef struct mb_run_result {
    char net[64];          /* the description's name */
    char device[128];      /* the name of the device it ran on (mb_ctx_device_name) */
    size_t params;         /* parameters of the network */
    long updates;          /* updates done (including those before a resume) */
    double epochs;         /* epochs done, samples / training samples */
    size_t samples;        /* training samples processed */
    double wall_s;         /* training seconds (evaluations excluded; summed across resumes) */
    double eval_s;         /* seconds spent evaluating in this process */
    double loss;           /* the last mini-batch loss */
    double eval_loss;      /* mean loss on the eval subset at the end */
    double eval_acc;       /* accuracy on the eval subset at the end, in [0, 1] */
    double test_loss;      /* on the test set at the end (NAN when the data has none) */
    double test_acc;
    int reached;           /* 1 when an evaluation reached target_loss */
    long reached_update;   /* the first update whose evaluation reached it, 0 when none; with
                              bisection (no_bisect = 0) the exact first update of the window in
                              which an evaluation reached it, else the evaluated update (a
                              multiple of eval_every without eval_adapt) */
    double reached_wall_s; /* training seconds at reached_update (that log row's wall_s), 0 when
                              not reached */
    double snap_s;         /* seconds copying parameter snapshots for the bisection (apart from
                              wall_s and eval_s) */
    long evals;            /* evaluations of the eval subset in this process, the bisection's
                              included (the test-set evaluation is not counted) */
    long checks;           /* evaluations that a check ruled out part way (check_frac): not
                              counted in evals, their time is in eval_s */
    size_t eval_samples;   /* samples of the eval subset evaluated, both kinds (the cost of
                              evaluation in a measure the machine's speed does not change) */
    size_t snap_bytes;     /* bytes held for the bisection's snapshots, 0 when not bisecting */
    int diverged;          /* 1 when the run stopped because it diverged (see mb_train_run) */
    long diverged_update;  /* the update at which it did, 0 when it did not */
    /* parallel runs (zeros and NANs for one learner) */
    int learners;          /* learners in all (1 for a single-learner run) */
    int ranks;             /* MPI ranks (1 without mpirun) */
    double t_compute_s;    /* mean per learner: forward/backward seconds */
    double t_comm_s;       /* mean per learner: seconds in communication (waits included) */
    double t_data_s;       /* mean per learner: gathering batches */
    double t_update_s;     /* mean per learner: optimiser and averaging arithmetic */
    double b_simple;       /* gradient noise scale B_simple in samples (McCandlish et al.
                              eq. 2.8, appendix A.1's estimator, train/learner/noise.c) over
                              the run: one learner from half-batch gradients every noise_every
                              updates, sgd-sync from the learners' and the averaged gradients;
                              NAN if none (M = 1, other algorithms, noise_every 0) */
    double noise_s;        /* one learner: seconds spent measuring it, out of wall_s */
    double others_cores;   /* cores other processes kept busy, on average over this process's
                              part of the run (mb_hostload_between), NAN unknown; with one rank
                              only (under mpirun the other ranks would count as others) */
    double steal_cores;    /* the same of the hypervisor's steal */
    double ckpt_s;         /* one learner: seconds spent writing checkpoints (a resumed run's
                              earlier ones included), out of wall_s; --max-seconds counts them
                              (the log's # t_ckpt_s= beside # max_seconds=) */
    int failed_together;   /* parallel runs over MPI: every rank returned this error at the
                              same point (nobody waits): the caller need not abort the job, and
                              only rank 0's message (the others' are empty) is worth printing */
    int disagree;          /* ... because the ranks were started with different settings: a
                              usage error (exit 2); a checkpoint they refuse together is bad
                              data (exit 1), as over threads */
} mb_run_result;

/* The window cap W of --eval-adapt: the most updates between two scheduled evaluations, for
 * which the bisection's snapshot block is allocated. 8 x eval_every, lowered so that the block
 * (W x params floats) is at most 256 MiB, but never below eval_every (whose own limit is the
 * 2 GiB of mb_train_run). eval_every without eval_adapt or without a target. */
long mb_run_eval_cap(const mb_run_options *o, size_t params);

/* The updates a run at mini-batch `batch` of `train_n` training samples may take: max_updates,
 * and epochs x full batches an epoch (at most 2^40), the lesser; 0 with neither (a target
 * alone ends it). The run monitor stops there; mbtrain checks a rate schedule against it. */
long mb_run_update_bound(const mb_run_options *o, size_t train_n, int batch);

/* The pacing of --eval-adapt: what the scheduled evaluations so far say about the loss. */
typedef struct mb_run_pace {
    long u_first;          /* the first scheduled evaluation's update, -1 before one */
    double loss_first;     /* its eval loss */
    double loss_last;      /* the last scheduled evaluation's eval loss */
    double rise;           /* the largest rise of the eval loss between two consecutive scheduled
                              evaluations so far (>= 0): the noise margin */
} mb_run_pace;

/* Starts a pacing with no evaluation seen. */
void mb_run_pace_init(mb_run_pace *p);

/* Records the scheduled evaluation at update u with eval loss `loss` and returns the gap to the
 * next one; `target` is what the next evaluation is judged against (the run's target, or the
 * highest of its levels not yet reached). The distance left is d = loss - target - rise (the loss can dip by as much as it
 * has been seen to jump); the rate is the mean decline since the first scheduled evaluation,
 * r = (loss_first - loss) / (u - u_first) (a trend over the run, not the noisy last step; the
 * decline slows down, so the mean rate overstates the current one and the gap errs short). The
 * gap is floor(0.5 d / r), halfway to the crossing so predicted, clamped to [eval_every, cap]
 * and rounded down to a multiple of eval_every, so that the scheduled evaluations are a subset of
 * plain spacing's and, once dense, the very same; eval_every at the first evaluation, when
 * r <= 0 or when d <= 0. */
long mb_run_eval_gap(mb_run_pace *p, long eval_every, long cap, double target, long u,
                     double loss);

/* The summary line "net=... updates=... epochs=... wall_s=... eval_loss=... test_acc=...
 * reached=yes|no ..." (no newline) into buf; returns what snprintf returns. */
int mb_run_result_format(const mb_run_result *r, const mb_run_options *o, char *buf, size_t n);

typedef enum mb_par_algo {
    MB_PAR_NONE = 0,        /* one learner: optim.kind (sgd, momentum, nesterov) */
    MB_PAR_SGD_SYNC,        /* P learners of M/P samples, gradients averaged by allreduce */
    MB_PAR_DOWNPOUR,        /* asynchronous SGD against a parameter server (rank 0) */
    MB_PAR_EASGD,           /* round-robin EASGD (Zhang et al.'s original) */
    MB_PAR_EASGD_ASYNC,     /* asynchronous EASGD, period tau, server rank 0 */
    MB_PAR_EAMSGD,          /* asynchronous EASGD with Nesterov local steps */
    MB_PAR_EASGD_HOGWILD,   /* threads sharing the centre lock-free */
    MB_PAR_EASGD_SYNC,      /* You et al.: tree reduction + broadcast every step */
    MB_PAR_SMA,             /* Crossbow's synchronous model averaging */
    MB_PAR_N
} mb_par_algo;

/* "sgd-sync", "downpour", "easgd", ...; parse: MB_EINVAL for other names. */
const char *mb_par_algo_name(int algo);
int mb_par_algo_parse(const char *name, int *algo);
/* 1 when the algorithm keeps a parameter server (rank 0 serves, the others learn). */
int mb_par_algo_has_server(int algo);
/* The learners of a parallel run of o over `ranks` processes: ranks x learners, or for a
 * server algorithm the ranks but the server (one process: --learners). */
int mb_par_learners(const mb_run_options *o, int ranks);
/* The moving rate alpha (--elastic-alpha, else the algorithm's default: 0.9 / p, SMA's 1 / p,
 * 1 with --sma-tune) and the momentum (--sma-momentum or --delta, else 0.9 for SMA, 0.99) a
 * parallel run of o starts with, p its learners over o->comm's ranks; what the log states and
 * a checkpoint carries (run_opts.c). */
void mb_par_resolved(const mb_run_options *o, double *alpha, double *mu);

/* The name a log and a summary give the run's algorithm: the optimiser's, or the parallel
 * algorithm's. */
const char *mb_run_algo_name(const mb_run_options *o);
/* Every name mb_run_algo_name can give, from the same two tables (the optimisers', then the
 * parallel algorithms'): name k for 0 <= k < the count, NULL from there on. What a run log's
 * `# algo=` may say (fit/runs.c refuses another name). */
const char *mb_run_algo_nth(int k);

#endif /* MB_RUN_H */
