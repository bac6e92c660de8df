/* par_impl.h — private to train/par/par*.c: the parallel run's checkpoint companion (par_ckpt.c),
 * and the job and worker state the drivers share (par.c, par_async.c).
 *
 * A parallel run's checkpoint is PATH, the single-learner checkpoint of learner 0 (run_ckpt.c:
 * learner 0's cursor, parameters and optimiser state, the log rows), and its companions, written
 * first, holding every learner and the centre (each one it replaces kept as NAME.prev until PATH
 * is rewritten): one file PATH.learners where one process holds every record (threads; the
 * server algorithms, whose server gathers a consistent snapshot by message), else one part per
 * process, PATH.learners.rankR, written by rank R itself on its own node and holding its
 * learners' records only (the lockstep algorithms over Open MPI ranks): nothing is gathered,
 * and a resume needs no filesystem that the nodes share. A resume reads each process's own
 * file, of PATH's update and of the same run (run_id), and checks that they agree. */
#ifndef MB_PAR_IMPL_H
#define MB_PAR_IMPL_H

#include "../run/run_impl.h"

/* Floats' room at the start of a record's cursor part: pos, epoch, rng, the next step's update
 * (or Hogwild's local step) and the local step, 5 x 8 bytes (par_worker.c: par_pack). */
enum { PAR_CUR_WORDS = 10 };

/* What PATH.learners says of the run. */
typedef struct mb_par_ckpt_head {
    uint64_t learners;     /* records in the file: one per rank of the job's communicator (the
                              server or Hogwild's watcher is rank 0, a record without a cursor) */
    uint64_t params;       /* floats per parameter block */
    uint64_t rec_floats;   /* floats per record (par_rec_floats) */
    int64_t updates;       /* the update the checkpoint was taken after */
    uint64_t samples;      /* training samples processed */
    double wall_s;         /* training seconds so far */
    int32_t algo;          /* an mb_par_algo */
    int32_t k_active;      /* --sma-tune: learners stepping from the next update on, */
    int32_t k_was;         /* those that stepped in the last one, */
    int32_t tuning;        /* 1 while the tuning goes on */
    int64_t tune_u0;       /* where the tuning window began: update, samples, seconds */
    uint64_t tune_s0;
    double tune_t0, tune_prev; /* and the last window's samples per second */
    double alpha;          /* the moving rate in use (the tuning sets SMA's to 1/k) */
    int64_t steps;         /* server algorithms and Hogwild: learner steps counted */
    uint64_t log_len;      /* bytes of log rows that follow the header */
    char trace[512];       /* --sma-tune's trace so far */
    /* the run's identity, checked on resume as PATH's is (run_ckpt.c) */
    uint64_t data_fp;      /* mb_ckpt_fingerprint of the data */
    uint64_t seed;         /* --seed */
    int64_t batch;         /* --batch M */
    int64_t tau;           /* --tau */
    uint64_t n_train;      /* training samples (the cursors' permutations' length) */
    /* which records this file holds: first .. first + learners - 1 of the job's total (a
     * part PATH.learners.rankR; the whole file: 0 and learners), and the job's random
     * identity, shared by every part of a checkpoint and kept by a resumed run */
    uint64_t first;
    uint64_t total;
    uint64_t run_id;
    uint64_t net_fp;       /* mb_ckpt_net_fingerprint of the net's structure (MBKPAR05, issue
                              #25, L7) */
    ckpt_run settings;     /* the settings a log states once for all its rows, the optimiser's
                              kind among them (mb_ckpt_settings_fill; its other fields zero),
                              compared on resume as PATH's are: a server algorithm resumes from
                              this file alone (MBKPAR06, campaign 11: a resume at another --lr
                              logged one rate for rows of two; MBKPAR07 with the parallel
                              algorithm's own, campaign 29's A1; MBKPAR08 with SMA's tuning,
                              campaign 30's C6) */
} mb_par_ckpt_head;

/* mb_par_ckpt_read's record index for "every record of the file" (buf holds learners x
 * rec_floats floats). */
#define MB_PAR_CKPT_ALL UINT64_MAX

/* Writes PATH.learners (part < 0) or the part PATH.learners.rank<part> atomically: the head,
 * the log rows, then head->learners records, each fetched by `record(i, buf, ctx)` into buf
 * (head->rec_floats floats; i counts from head->first). The file replaced is kept as NAME.prev
 * (PATH's partner until PATH is rewritten), unless prev_stays: then NAME.prev stays as it is
 * (the set a resume took it for, NAME being of none; mb_par_ckpt_read's took_prev). */
int mb_par_ckpt_write(const char *path, int part, const mb_par_ckpt_head *head,
                      const char *rows, int (*record)(uint64_t i, float *buf, void *ctx),
                      void *ctx, float *buf, int prev_stays, mb_error *err);
/* 1 when the n values (parameters, velocities, centres) are what a record may hold: finite and
 * within 1e15, the reader's bound; a job whose values are not has diverged, and its checkpoint
 * is not written (campaign 35's E5: the resume called mbtrain's own file corrupt). */
int mb_par_ckpt_values_ok(const float *v, size_t n);
/* Before any training: the names mb_par_ckpt_write(path, part) will write, the companion and
 * its .prev, fit their folder (mb_out_name_check): MB_OK, or MB_EIO naming the first that does
 * not ("--checkpoint's companion PATH.learners.prev: cannot write: File name too long (...)";
 * campaign 33's D7: a companion's name was found too long at the first checkpoint). */
int mb_par_ckpt_names_check(const char *path, int part, mb_error *err);
/* Reads PATH.learners' (part < 0) or the part's head and log rows (*rows allocated,
 * NUL-terminated; NULL to skip) and, when buf is not NULL, record i (of the job's numbering:
 * first .. first + learners - 1; MB_PAR_CKPT_ALL: every record of the file) into buf. Of the
 * file and its NAME.prev (a job killed between the writes), the one of update `want` and run
 * `run_id` is taken (want < 0: of PATH's update and wall time, read from PATH; run_id 0: any
 * run), or NAME.prev where NAME is not there and it is a server algorithm's (whose set is the
 * file alone); where neither is, the message says which update and run each holds. MB_EFORMAT for a truncated,
 * damaged (checksum) or foreign file, or values out of range (par_ckpt.c). *took_prev (NULL:
 * not wanted): 1 when NAME.prev was taken because NAME, there, is of no whole set (a job
 * killed after its companions, before PATH): the next write keeps .prev (mb_par_ckpt_write). */
int mb_par_ckpt_read(const char *path, int part, int64_t want, uint64_t run_id,
                     mb_par_ckpt_head *head, char **rows, uint64_t i, float *buf, int *took_prev,
                     mb_error *err);
/* The same checks on a file's bytes in memory (`name` for messages): what mb_par_ckpt_read
 * applies, and what the fuzz harness drives (tests/fuzz/fuzz_parckpt.c). */
int mb_par_ckpt_decode(const unsigned char *b, size_t len, const char *name,
                       mb_par_ckpt_head *head, char **rows, uint64_t i, float *buf,
                       mb_error *err);

/* ---- the job and its workers, shared by par.c (set-up, lockstep) and par_async.c ---------- */

#include <pthread.h>
#include <time.h>

static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


enum { T_COMPUTE, T_COMM, T_DATA, T_UPDATE, T_WAIT, T_N }; /* T_WAIT: held by the server */
enum { TAG_PUSH = 11, TAG_PULL = 12, TAG_CKPT = 13 };

typedef struct job job;

/* One learner (or the server / watcher, rank 0 of the server algorithms) and its buffers. */
typedef struct worker {
    job *j;
    mb_communicator *c;
    int rank;              /* in c */
    mb_learner l;          /* absent (net NULL) on a server rank */
    float *centre;         /* n floats: x~ (EASGD), z (SMA); this rank's copy */
    float *buf;            /* n floats: sums, elastic terms, messages */
    float *aux;            /* n floats: z_prev (SMA), velocity (EAMSGD), gradient sum (DOWNPOUR) */
    double t[T_N];         /* seconds by part */
    float *rec;            /* a checkpoint record, j->rec floats, or NULL */
    long next_t;           /* Hogwild, server algorithms: the local step a learner takes next
                              (for tau, n_push, n_fetch) */
    long u_next;           /* server algorithms: the update of the learner's next step */
    int skip_exchange;     /* a resumed asynchronous learner: its exchange was made */
    int was_active;        /* SMA: stepped in the last update */
    int rc;
    mb_error err;
} worker;

struct job {
    const mb_run_options *o;
    const mb_net_desc *desc;
    const mb_data_splits *data;
    uint64_t data_fp;      /* mb_ckpt_fingerprint of data: the run's identity in checkpoints */
    int ranks;             /* MPI ranks */
    int proc;              /* this process's MPI rank (0 without MPI) */
    int threads;           /* workers in this process (ws[0 .. threads - 1]) */
    uint64_t run_id;       /* the job's random identity in its checkpoints (rank 0's, or the
                              resumed checkpoint's) */
    int p;                 /* learners in all */
    int m;                 /* samples per learner step */
    size_t n;              /* parameters */
    size_t rec;            /* floats per checkpoint record (par_rec_floats) */
    worker *ws;            /* every worker of this process (Hogwild's watcher packs theirs) */
    long steps0;           /* server algorithms, Hogwild: learner steps of a resumed run */
    double alpha, mu;      /* moving rate (EASGD, SMA), momentum (SMA's mu, EAMSGD's delta) */
    mb_run_result *r;
    mb_run_mon mon;        /* rank 0's */
    mb_net *eval_net;      /* rank 0's */
    float *model;          /* rank 0: what the monitor judges, n floats */
    char extra[1024];      /* "# key=value" lines for the log */
    /* where a resumed run starts (every rank reads its checkpoint) */
    long updates0;
    size_t samples0;
    double wall0;
    int prev_partner;      /* the resume took PATH.learners.prev (its companion of no whole
                              set) and checkpoints to the same PATH: until one set is whole
                              again, .prev stays PATH's partner (a second kill inside that
                              first checkpoint left no whole set) */
    double ckpt_s;         /* Hogwild: seconds writing checkpoints (rank 0), taken out of wall_s
                              as the lockstep loop leaves them out */
    double paused_s;       /* server algorithms: seconds every learner was held (evaluations,
                              checkpoints), out of wall_s */
    double server_idle_s;  /* server algorithms: seconds the server waited for a message */
    /* the run so far (rank 0) */
    long updates;
    size_t samples;
    double wall_s, loss;
    /* Hogwild: the shared centre, the learners' step count and the stop flag */
    float *shared;
    long steps;            /* learner steps done */
    long claimed;          /* learner steps begun */
    long logged;           /* updates the watcher has logged */
    int stop;
    double loss_sum;
    long loss_n;
    int done_learners;
    pthread_mutex_t mu_loss;
    /* SMA's learners per process (Crossbow section 4): ranks >= k_active sit out */
    int k_active;
    int k_was;             /* learners that stepped in the last update (k_active before it) */
    int tuning;            /* 1 while the tuning goes on */
    long tune_u0;          /* the update, samples and training seconds where the window began */
    size_t tune_s0;
    double tune_t0, tune_prev; /* and the last window's samples per second */
    char trace[512];       /* "k:samples_per_s,..." */
};

static inline int is_root(const worker *w) { return w->rank == 0; }

/* The learning rate of update u (0-based), --lr-step's schedule (mb_optim_lr_at): every rule
 * takes it at the update it is part of. The moving rate alpha stays: Zhang et al. keep
 * beta = p alpha fixed and lower eta, "i.e. increasing the penalty term rho" (alpha = eta rho;
 * their supplement, section 9.6). */
static inline float eta_at(const job *j, long u)
{
    return (float)mb_optim_lr_at(&j->o->optim, u);
}

/* 1 when update u's rate differs from update u - 1's: SMA restarts its averaging there. */
static inline int lr_changes_at(const job *j, long u)
{
    return u > 0 && mb_optim_lr_at(&j->o->optim, u) != mb_optim_lr_at(&j->o->optim, u - 1);
}

/* A learner's gradient for the rules that step without the optimiser (the elastic ones, SMA, the
 * asynchronous learners and DOWNPOUR's, whose master optimiser then has none, Hogwild):
 * mb_learner_grad, then L2 weight decay adds lambda x to g (docs/algorithms.md, "Weight decay"),
 * at the parameters the gradient was taken at, as mb_optim_step does for SGD and sgd-sync. */
static inline int par_grad(worker *w, double *loss)
{
    int rc = mb_learner_grad(&w->l, loss, &w->err);
    const float wd = (float)w->j->o->optim.weight_decay;
    if (rc != MB_OK || !(wd > 0))
        return rc;
    const float *x = mb_net_params(w->l.net);
    float *g = mb_net_grads(w->l.net);
    const size_t nt = mb_net_trainable_count(w->l.net); /* BN state is never decayed */
    for (size_t k = 0; k < nt; k++)
        g[k] += wd * x[k];
    return MB_OK;
}

/* Seconds of `part` since *t0; *t0 moves on. */
static inline void lap(worker *w, int part, double *t0)
{
    double t = now_s();
    w->t[part] += t - *t0;
    *t0 = t;
}

/* Records this worker's first failure: `what` failed with rc (or waited past --wait-timeout). */
static inline int fail(worker *w, int rc, const char *what)
{
    if (w->rc == MB_OK) {
        w->rc = rc;
        if (w->err.msg[0])
            ;
        else if (mb_comm_timed_out(w->c))
            mb_error_set(&w->err, rc, "%s: waited more than %g s for the other learners "
                         "(--wait-timeout): one has stalled or is lost", what,
                         w->j->o->wait_timeout);
        else
            mb_error_set(&w->err, rc, "%s: %s", what, mb_strerror(rc));
    }
    return rc;
}

/* Ends the whole job after this worker's failure (its rc and err; par.c): over MPI one line,
 * "PROGRAM: learner I: why", then MPI_Abort; over threads every other worker's waits return at
 * once and mb_par_run reports this worker's message. (par_worker.c, as below.) */
void par_abort(worker *w);

/* Who a worker is, for messages: "learner R", or the server / Hogwild's watcher on rank 0. */
void par_who(const worker *w, char *buf, size_t n);

/* Checkpoint records (par_worker.c). A record is 4 blocks of n floats: parameters (the server's: the
 * centre), optimiser velocity (zeros without one; DOWNPOUR's server: its master's), the second
 * block (SMA's z_prev, EAMSGD's velocity), this rank's copy of the centre; then the learner's
 * cursor as raw bytes (every learner's own, so that a part on its own node is enough to resume
 * it): 10 floats' room for pos, epoch, rng and the next step's update or local step, and the
 * permutation, n_train uint32 (zeros on a server rank). */
size_t par_rec_floats(const job *j);
void par_pack(worker *w, float *rec);
void par_unpack(worker *w, const float *rec);
/* 1 when the values par_pack stores of w (parameters, velocity, aux, centre) are what a record
 * may hold (mb_par_ckpt_values_ok). */
int par_values_ok(worker *w);
/* Writes PATH.learners from rank 0: the head from the job and the records in all (j->rec
 * floats each, comm size of them): the server algorithms' and Hogwild's checkpoint (the
 * lockstep driver writes parts, par.c). */
/* The head of a checkpoint of the whole job after `updates` (par_ckpt.c); its learners, first
 * record and log length are left for the caller. */
void par_head(const worker *w, long updates, size_t samples, double wall_s, long steps,
              mb_par_ckpt_head *h);
int par_write_learners(worker *w, long updates, size_t samples, double wall_s, long steps,
                       const float *all);

/* The asynchronous drivers (par_async.c): rank 0 of DOWNPOUR / async EASGD / EAMSGD, their
 * learners, Hogwild's learners and its watcher. */
void par_run_server(worker *w);
void par_run_async_learner(worker *w);
void par_run_hogwild_learner(worker *w);
void par_run_hogwild_watch(worker *w);

#endif /* MB_PAR_IMPL_H */
