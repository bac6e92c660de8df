/* par.c — parallel learners (mb_par.h): sgd-sync, DOWNPOUR, the EASGD
 * family and Crossbow's SMA, each as written in docs/algorithms.md, over one communicator (threads
 * in this process, or Open MPI ranks).
 *
 * Every learner is an mb_learner (gather / grad / apply). P learners of m = M/P samples take
 * consecutive slices of one shuffled mini-batch of M (the same shuffling seed, offsets 0, m,
 * ...), so that together they see what one learner at M sees; all start from the same
 * parameters (broadcast from rank 0). An "update" in the log is M samples: one synchronous step
 * of all learners (sgd-sync, easgd-sync, sma), one round of p turns (round-robin easgd), or, for
 * the asynchronous rules, every M samples' worth of learner steps that the server has heard of.
 *
 * Two drivers:
 *   lockstep — every rank is a learner; after each update the learners' mean loss is
 *              allreduced, rank 0 hands the model (the averaged parameters, or the centre) to
 *              the run monitor of run_mon.c (evaluation, exact crossing, log) and broadcasts stop.
 *   server   — rank 0 keeps the centre and the monitor; ranks 1 .. p serve as learners and
 *              exchange with it first come, first served (DOWNPOUR, async EASGD, EAMSGD); for
 *              Hogwild rank 0 only watches, the learner threads update the shared centre
 *              themselves, lock-free (relaxed atomic loads and stores per float: lost updates
 *              are part of the method, torn floats are not).
 * Times: each learner adds up its seconds gathering (data), in forward/backward (compute), in
 * collectives and messages, waits included (comm), and in optimiser and averaging arithmetic
 * (update); the log gets the means over learners. wall_s is rank 0's training time with its
 * evaluations taken out, as for one learner; the server algorithms hold every learner while the
 * server evaluates or checkpoints and take out exactly those seconds (t_paused_s), so that no
 * learner trains in time the log does not count (par_async.c).
 *
 * Failing loudly (issue 28): ranks check at start that they agree on every setting that shapes
 * their collectives or their rule (par_agree), rank 0 checks the checkpoint's folder before
 * anyone trains, and a worker that fails at any point ends the whole job (par_abort): over
 * threads the others' waits return at once, over MPI one line names the learner and the cause
 * before MPI_Abort. Waits end after --wait-timeout seconds (comm*.c).
 *
 * Not here: evaluation, bisection and the log (run_mon.c, the monitor), the collectives (comm*.c),
 * the asynchronous drivers (par_async.c), the rules themselves (par_rules.c).
 * Ranks x threads (the synchronous algorithms): one communicator of R x T learners
 * (mb_comm_hybrid_create); the rules do not see the difference.
 * Learning-rate schedules (--lr-step): every rule takes the rate of the update it belongs to
 * (eta_at, par_impl.h); sgd-sync through its optimiser, whose count is the update's.
 * Checkpoints: every algorithm; the lockstep ones here, the server's and Hogwild's snapshot in
 * par_async.c; the file in par_ckpt.c.
 */
#include "par_impl.h"
#include "../../data/mb_output.h"
#include "../../data/mb_parse.h"
#include "mb_par.h"
#include "../run/mb_run.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int mb_par_check(const mb_run_options *o, int ranks, mb_error *err)
{
    const char *a = mb_par_algo_name(o->par);
    if (o->learners < 1)
        return mb_error_set(err, MB_EINVAL, "--learners must be >= 1, got %d", o->learners);
    if (ranks > 1 && o->learners > 1 && mb_par_algo_has_server(o->par))
        return mb_error_set(err, MB_EINVAL, "--algo %s: %d ranks x %d learners: ranks and "
                            "threads together are for the synchronous algorithms (sgd-sync, "
                            "easgd, easgd-sync, sma); give one or the other",
                            a, ranks, o->learners);
    if (o->par == MB_PAR_EASGD_HOGWILD && (ranks > 1 || o->comm))
        return mb_error_set(err, MB_EINVAL, "--algo easgd-hogwild shares the centre in memory: "
                            "run one process with --learners L, not %d MPI rank%s (no mpirun)",
                            ranks, ranks > 1 ? "s" : "");
    if (mb_par_algo_has_server(o->par) && o->comm && ranks == 1)
        return mb_error_set(err, MB_EINVAL, "--algo %s keeps rank 0 as its server: under "
                            "mpirun it needs -np 2 or more (one server and at least one "
                            "learner), got 1; or run it without mpirun, with --learners L", a);
    int periodic = o->par == MB_PAR_EASGD_SYNC || mb_par_algo_has_server(o->par);
    if (o->tau != 1 && !periodic)
        return mb_error_set(err, MB_EINVAL, "--tau %ld: --algo %s has no communication period "
                            "(its learners exchange at every update); --tau is for easgd-sync, "
                            "downpour, easgd-async, eamsgd and easgd-hogwild", o->tau, a);
    if ((o->n_push || o->n_fetch) && o->par != MB_PAR_DOWNPOUR)
        return mb_error_set(err, MB_EINVAL, "--n-push and --n-fetch are DOWNPOUR's periods; "
                            "--algo %s has %s", a, periodic ? "one, --tau" : "none");
    if (o->n_push < 0 || o->n_fetch < 0)
        return mb_error_set(err, MB_EINVAL, "--n-push and --n-fetch must be >= 1");
    if (o->grad_after_exchange && o->par != MB_PAR_EASGD_ASYNC && o->par != MB_PAR_EAMSGD &&
        o->par != MB_PAR_EASGD_HOGWILD)
        return mb_error_set(err, MB_EINVAL, "--grad-after-exchange is for easgd-async, eamsgd "
                            "and easgd-hogwild, not --algo %s", a);
    /* past 1e9 s the deadline overflows; under MB_RUN_WAIT_MIN the learners' first wait, for
     * the others' start, ends the job (campaign 23's R11) */
    if (!(o->wait_timeout == 0 ||
          (o->wait_timeout >= MB_RUN_WAIT_MIN && o->wait_timeout <= 1e9)))
        return mb_error_set(err, MB_EINVAL, "--wait-timeout must be 0 (no limit) or from %g to "
                            "1e9 seconds, got %g", MB_RUN_WAIT_MIN, o->wait_timeout);
    if (mb_par_algo_has_server(o->par) && ranks == 1 && o->learners < 1)
        return mb_error_set(err, MB_EINVAL, "--algo %s needs at least one learner", a);
    if (o->sma_tune && (o->par != MB_PAR_SMA || ranks > 1))
        return mb_error_set(err, MB_EINVAL, "--sma-tune tunes the learners of --algo sma in one "
                            "process (not under mpirun)");
    if (o->tau < 1)
        return mb_error_set(err, MB_EINVAL, "--tau must be >= 1, got %ld", o->tau);
    int p = mb_par_learners(o, ranks);
    if (p < 1)
        return mb_error_set(err, MB_EINVAL, "--algo %s keeps rank 0 as its server: it needs "
                            "mpirun -np 2 or more (one server and at least one learner), got %d",
                            a, ranks);
    if (!o->sma_tune && o->batch % p != 0)
        return mb_error_set(err, MB_EINVAL, "--batch %d does not split among %d learners: give "
                            "a multiple of %d", o->batch, p, p);
    double alpha = o->elastic_alpha;
    if (!isnan(alpha) && !(alpha >= 0 && alpha <= 1))
        return mb_error_set(err, MB_EINVAL, "--elastic-alpha must be in [0, 1], got %g", alpha);
    return MB_OK;
}

/* ---- lockstep algorithms -------------------------------------------------------------------- */

/* sgd-sync: gradients of m samples averaged over the p learners (the gradient of M), then the
 * same optimiser step everywhere. B_simple's inputs: |g_i|^2 here, |G|^2 after the average. */
static int step_sgd_sync(worker *w, double *loss, double *g2_small, double *g2_big)
{
    job *j = w->j;
    double t0 = now_s();
    long epoch;
    mb_learner_gather(&w->l, &j->data->train, &epoch);
    lap(w, T_DATA, &t0);
    int rc = mb_learner_grad(&w->l, loss, &w->err);
    if (rc != MB_OK)
        return rc;
    float *g = mb_net_grads(w->l.net);
    *g2_small = mb_noise_norm2(g, j->n);
    lap(w, T_COMPUTE, &t0);
    if ((rc = mb_comm_allreduce_mean(w->c, g, j->n)) != MB_OK)
        return fail(w, rc, "allreduce");
    lap(w, T_COMM, &t0);
    *g2_big = mb_noise_norm2(g, j->n);
    if ((rc = mb_learner_apply(&w->l, &w->err)) != MB_OK)
        return rc;
    lap(w, T_UPDATE, &t0);
    return MB_OK;
}

/* easgd-sync (You et al. eq. 1-2): the sum of the learners' x^i reduced to rank 0 (overlapped
 * with the gradient unless no_overlap), x^i <- x^i - eta g - alpha (x^i - x~) with the old x~,
 * x~ <- (1 - beta) x~ + alpha sum_i x^i_old on rank 0, then x~ broadcast. With --tau T, only
 * every T-th update (u mod T = 0) exchanges; the others are local SGD steps,
 * x^i <- x^i - eta g (Zhang et al.'s EASGD with communication period tau). */
static int step_easgd_sync(worker *w, long u, double *loss)
{
    job *j = w->j;
    double t0 = now_s();
    long epoch;
    mb_learner_gather(&w->l, &j->data->train, &epoch);
    lap(w, T_DATA, &t0);
    float *x = mb_net_params(w->l.net), *g = mb_net_grads(w->l.net), *c = w->centre;
    mb_comm_req req;
    int rc;
    if (u % j->o->tau != 0) { /* a local step */
        if ((rc = par_grad(w, loss)) != MB_OK)
            return rc;
        lap(w, T_COMPUTE, &t0);
        const float eta = eta_at(j, u);
        for (size_t k = 0; k < j->n; k++)
            x[k] -= eta * g[k];
        lap(w, T_UPDATE, &t0);
        return MB_OK;
    }
    if (!j->o->no_overlap) {
        if ((rc = mb_comm_ireduce_sum(w->c, x, w->buf, j->n, 0, &req)) != MB_OK)
            return fail(w, rc, "reduce");
        lap(w, T_COMM, &t0);
    }
    if ((rc = par_grad(w, loss)) != MB_OK)
        return rc;
    lap(w, T_COMPUTE, &t0);
    rc = j->o->no_overlap ? mb_comm_reduce_sum(w->c, x, w->buf, j->n, 0)
                          : mb_comm_wait(w->c, &req);
    if (rc != MB_OK)
        return fail(w, rc, "reduce");
    lap(w, T_COMM, &t0);
    mb_par_easgd_learner(x, g, c, j->n, eta_at(j, u), (float)j->alpha);
    if (is_root(w))
        mb_par_easgd_centre(c, w->buf, j->n, (float)j->alpha, j->p);
    lap(w, T_UPDATE, &t0);
    if ((rc = mb_comm_bcast(w->c, c, j->n, 0)) != MB_OK)
        return fail(w, rc, "broadcast");
    lap(w, T_COMM, &t0);
    return MB_OK;
}

/* Round-robin EASGD (Zhang et al.'s original): learner i = t mod p alone, in one time slot:
 * the elastic exchange with the centre and its SGD step, both at its old x^i and the old centre
 * (mb_par_easgd_turn: the form whose stability region Zhang et al. derive); the centre goes on
 * to the next learner (a broadcast from the active one). One update = p turns. */
static int step_easgd_rr(worker *w, long u, double *loss)
{
    job *j = w->j;
    double t0 = now_s();
    int P = mb_comm_size(w->c), rc;
    *loss = 0;
    for (int i = 0; i < P; i++) {
        if (i == w->rank) {
            long epoch;
            mb_learner_gather(&w->l, &j->data->train, &epoch);
            lap(w, T_DATA, &t0);
            if ((rc = par_grad(w, loss)) != MB_OK)
                return rc;
            lap(w, T_COMPUTE, &t0);
            mb_par_easgd_turn(mb_net_params(w->l.net), mb_net_grads(w->l.net), w->centre, j->n,
                              eta_at(j, u), (float)j->alpha);
            lap(w, T_UPDATE, &t0);
        }
        if ((rc = mb_comm_bcast(w->c, w->centre, j->n, i)) != MB_OK)
            return fail(w, rc, "broadcast");
        lap(w, T_COMM, &t0);
    }
    return MB_OK;
}

/* SMA (Crossbow): c_j = alpha (w_j - z); w_j <- w_j - gamma g_j - c_j; z_new = z + sum_j c_j + mu
 * (z - z_prev); z_prev <- z; z <- z_new (every rank keeps z). Where the schedule changes gamma,
 * the averaging restarts from the current z (Crossbow 3.2; docs/algorithms.md, "SMA (Crossbow)"):
 * w_j = z_prev = z, so the momentum term starts again from zero. */
static int step_sma(worker *w, long u, double *loss, int active)
{
    job *j = w->j;
    double t0 = now_s();
    long epoch;
    int rc;
    if (lr_changes_at(j, u)) {
        memcpy(w->aux, w->centre, j->n * sizeof(float));
        memcpy(mb_net_params(w->l.net), w->centre, j->n * sizeof(float));
    }
    if (active) {
        if (!w->was_active) /* a learner added by the tuning starts from the centre */
            memcpy(mb_net_params(w->l.net), w->centre, j->n * sizeof(float));
        mb_learner_gather(&w->l, &j->data->train, &epoch);
        lap(w, T_DATA, &t0);
        if ((rc = par_grad(w, loss)) != MB_OK)
            return rc;
        lap(w, T_COMPUTE, &t0);
        mb_par_sma_learner(mb_net_params(w->l.net), mb_net_grads(w->l.net), w->centre, w->buf,
                           j->n, eta_at(j, u), (float)j->alpha);
        lap(w, T_UPDATE, &t0);
    } else { /* a learner the tuning has not added (or removed): its cursor moves, c_j = 0 */
        mb_learner_gather(&w->l, &j->data->train, &epoch);
        memset(w->buf, 0, j->n * sizeof(float));
        t0 = now_s();
    }
    w->was_active = active;
    if ((rc = mb_comm_allreduce_sum(w->c, w->buf, j->n)) != MB_OK)
        return fail(w, rc, "allreduce");
    lap(w, T_COMM, &t0);
    mb_par_sma_centre(w->centre, w->aux, w->buf, j->n, (float)j->mu);
    lap(w, T_UPDATE, &t0);
    return MB_OK;
}

/* Crossbow section 4, on rank 0 after each tuning window: the throughput (samples per training
 * second) with k learners; add one while it rises by more than 10%, else remove the last one
 * and stop tuning. Every step goes into the trace the log carries. */
static void sma_tune(job *j, int kmax, double samples_per_s)
{
    size_t len = strlen(j->trace);
    snprintf(j->trace + len, sizeof j->trace - len, "%s%d:%.1f", len ? "," : "", j->k_active,
             samples_per_s);
    if (j->tune_prev > 0 && !(samples_per_s > 1.1 * j->tune_prev)) {
        j->k_active--;
        j->tuning = 0;
    } else if (j->k_active < kmax) {
        j->k_active++;
        j->tune_prev = samples_per_s;
    } else {
        j->tuning = 0;
    }
    if (isnan(j->o->elastic_alpha))
        j->alpha = 1.0 / j->k_active;
}

/* ---- checkpoints (par_impl.h) ---------------------------------------------------------------- */

/* 1 when the learners draw their own batches (a cursor each) rather than one shared cursor. */
static int own_cursors(int algo) { return mb_par_algo_has_server(algo); }

/* Record i of this process's file: worker i - first of this process, packed here (ctx: the
 * job and the file's first record). */
static int pack_local(uint64_t i, float *buf, void *ctx)
{
    const void **c = ctx;
    job *j = (job *)c[0];
    const uint64_t *first = c[1];
    par_pack(&j->ws[i - *first], buf);
    return MB_OK;
}

/* The lockstep checkpoint. No record travels: each process's first worker packs its own
 * workers' records (they stand still between two barriers) into its own file, the whole
 * PATH.learners for a job of one process, else the part PATH.learners.rankR on its own node;
 * once every part is written (the second barrier), rank 0 writes learner 0's single-learner
 * checkpoint at PATH (its cursor and the log rows), which names the update. The time is in
 * no part and not in wall_s. */
static int par_checkpoint(worker *w, long updates, size_t samples, double wall_s)
{
    job *j = w->j;
    const mb_run_options *o = j->o;
    int rc = MB_OK;
    size_t saved = 0;
    /* a learner whose values a record may not hold (not finite, or beyond 1e15) has diverged:
     * no one writes, the last set stays (campaign 35's E5); one reduction, at a checkpoint */
    float diverged = !par_values_ok(w);
    if ((rc = mb_comm_allreduce_sum(w->c, &diverged, 1)) != MB_OK)
        return fail(w, rc, "checkpoint");
    if (diverged != 0)
        return MB_OK;
    if ((rc = mb_comm_barrier(w->c)) != MB_OK)
        return fail(w, rc, "checkpoint");
    if (is_root(w) && (rc = mb_run_mon_ckpt_rows(&j->mon, &saved, &w->err)) != MB_OK)
        return w->rc = rc;
    if (w == &j->ws[0]) {
        mb_par_ckpt_head h;
        par_head(w, updates, samples, wall_s, 0, &h);
        h.learners = (uint64_t)j->threads;
        h.first = (uint64_t)w->rank;
        h.log_len = is_root(w) ? j->mon.rows.len : 0;
        float *buf = malloc(j->rec * sizeof *buf);
        const void *ctx[2] = {j, &h.first};
        rc = !buf ? mb_error_set(&w->err, MB_ENOMEM, "out of memory for a checkpoint")
                  : mb_par_ckpt_write(o->checkpoint_path, j->ranks > 1 ? j->proc : -1, &h,
                                      is_root(w) ? j->mon.rows.s : "", pack_local, (void *)ctx,
                                      buf, j->prev_partner, &w->err);
        free(buf);
    }
    /* every part written before PATH names their update; where some failed (a folder gone
     * from several nodes), the lowest failed rank ends the job with one line, and the others
     * wait for that end (over threads their wait returns; over MPI the abort ends them) */
    int P = mb_comm_size(w->c), first = -1;
    float *bad = calloc((size_t)P, sizeof *bad);
    if (!bad)
        return fail(w, MB_ENOMEM, "checkpoint");
    bad[w->rank] = rc != MB_OK;
    int rs = mb_comm_allreduce_sum(w->c, bad, (size_t)P);
    for (int k = 0; k < P && first < 0 && rs == MB_OK; k++)
        if (bad[k] != 0)
            first = k;
    free(bad);
    if (rs != MB_OK)
        return fail(w, rs, "checkpoint");
    if (first >= 0 && first != w->rank) {
        mb_comm_barrier(w->c); /* returns once the job is aborted */
        return fail(w, MB_EMPI, "checkpoint");
    }
    if (rc == MB_OK && is_root(w)) {
        /* PATH is learner 0's own checkpoint: its samples are its own (the job's are in the
         * companions), so that the reader's samples = updates x batch holds */
        mb_ckpt_extra cx = {.updates = updates, .samples = (size_t)updates * (size_t)w->l.batch,
                            .wall_s = wall_s, .loss = j->mon.r->loss, .data_fp = j->data_fp,
                            .log_rows = j->mon.rows.s, .log_len = j->mon.rows.len,
                            .evals = j->mon.evals, .checks = j->mon.checks,
                            .eval_samples = j->mon.eval_samples, .noise = j->mon.noise,
                            .par_size = P};
        rc = mb_ckpt_write(o->checkpoint_path, &w->l, o, &cx, &w->err);
    }
    if (is_root(w))
        mb_run_mon_ckpt_done(&j->mon, saved);
    if (rc == MB_OK && w == &j->ws[0])
        j->prev_partner = 0; /* a whole set again: .prev rotates from now */
    if (rc != MB_OK && w->rc == MB_OK)
        w->rc = rc;
    return rc;
}

/* A resumed worker: its own record, from its process's own file (the whole PATH.learners, or
 * its part on its own node, of the update and run that job_resume agreed on); over ranks, a
 * server algorithm's learner gets its record from the server, whose node holds the file (one
 * message each: O(P n) in all). Rank 0 of a lockstep algorithm also reads PATH, learner 0's
 * checkpoint, and checks that it is of the same update. */
static int par_resume(worker *w, const mb_run_options *lo)
{
    job *j = w->j;
    mb_ckpt_extra x = {.data_fp = j->data_fp, .updates = -1, .par_size = mb_comm_size(w->c)};
    int lockstep = !own_cursors(lo->par), rc;
    if (lockstep && is_root(w)) {
        if ((rc = mb_ckpt_read(lo->resume_path, &w->l, lo, &x, &w->err)) != MB_OK)
            return rc;
        free(x.log_rows);
        mb_run_mon_resume(&j->mon, &x); /* the counts and B_simple's sums (campaign 10's M5) */
    }
    float *rec = malloc(j->rec * sizeof *rec), *all = NULL;
    if (!rec)
        return mb_error_set(&w->err, MB_ENOMEM, "out of memory");
    mb_par_ckpt_head h;
    memset(&h, 0, sizeof h);
    int P = mb_comm_size(w->c);
    if (!lockstep && j->ranks > 1 && !is_root(w)) {
        h.updates = j->updates0;
        h.rec_floats = j->rec;
        rc = mb_comm_recv(w->c, rec, j->rec, 0, TAG_CKPT, NULL);
    } else if (!lockstep && j->ranks > 1) {
        if (!(all = malloc((size_t)P * j->rec * sizeof *all)))
            rc = mb_error_set(&w->err, MB_ENOMEM, "out of memory for the learners' records");
        else
            rc = mb_par_ckpt_read(lo->resume_path, -1, j->updates0, j->run_id, &h, NULL,
                                  MB_PAR_CKPT_ALL, all, NULL, &w->err);
        for (int k = 1; k < P && rc == MB_OK; k++)
            rc = mb_comm_send(w->c, all + (size_t)k * j->rec, j->rec, k, TAG_CKPT);
        if (rc == MB_OK)
            memcpy(rec, all, j->rec * sizeof *rec);
    } else {
        int part = lockstep && j->ranks > 1 ? j->proc : -1;
        int took_prev;
        rc = mb_par_ckpt_read(lo->resume_path, part, j->ranks > 1 ? j->updates0 : -1, j->run_id,
                              &h, NULL, (uint64_t)w->rank, rec, &took_prev, &w->err);
        /* the first checkpoint to the same PATH leaves .prev, PATH's partner, in place */
        if (rc == MB_OK && took_prev && w == &j->ws[0] && j->o->checkpoint_path &&
            strcmp(j->o->checkpoint_path, lo->resume_path) == 0)
            j->prev_partner = 1;
    }
    free(all);
    if (rc == MB_OK && x.updates >= 0 && h.updates != x.updates)
        rc = mb_error_set(&w->err, MB_EFORMAT, "%s and its learners' checkpoint are of different "
                          "updates (%ld and %lld): a checkpoint was cut short", lo->resume_path,
                          x.updates, (long long)h.updates);
    if (rc == MB_OK && h.rec_floats != j->rec)
        rc = mb_error_set(&w->err, MB_EFORMAT, "%s.learners: records of %llu floats, this run's "
                          "are %zu", lo->resume_path, (unsigned long long)h.rec_floats, j->rec);
    if (rc == MB_OK) {
        par_unpack(w, rec);
        w->skip_exchange = 1;
        if (lockstep) { /* what PATH gave learner 0: the optimiser's and the masks' clocks */
            mb_optim_set_updates(w->l.opt, (long)h.updates);
            mb_net_set_steps(w->l.net, (unsigned long)h.updates);
        }
        if (!w->l.net) { /* the server keeps its record: DOWNPOUR's master velocity */
            free(w->rec);
            w->rec = rec;
            rec = NULL;
        }
    }
    free(rec);
    return rc;
}

/* The lockstep loop: one algorithm step per update, then the mean loss to everyone, the
 * monitor on rank 0 and its verdict broadcast. */
static void run_lockstep(worker *w)
{
    job *j = w->j;
    const mb_run_options *o = j->o;
    int P = mb_comm_size(w->c), rc = MB_OK;
    double train_s = j->wall0;
    long updates = j->updates0;
    int stop = j->mon.bound > 0 && updates >= j->mon.bound;
    float flag = 0;
    size_t samples = j->samples0;
    while (!stop) {
        double t0 = now_s(), loss = NAN, g2s = 0, g2b = 0;
        /* read before the step: rank 0 changes it only between the last collective of an
         * update and the broadcast that ends it */
        int active = w->rank < j->k_active;
        switch (o->par) {
        case MB_PAR_SGD_SYNC: rc = step_sgd_sync(w, &loss, &g2s, &g2b); break;
        case MB_PAR_EASGD_SYNC: rc = step_easgd_sync(w, updates, &loss); break;
        case MB_PAR_EASGD: rc = step_easgd_rr(w, updates, &loss); break;
        default: rc = step_sma(w, updates, &loss, active); break;
        }
        if (rc != MB_OK) { /* the others would wait in the next collective: end the job */
            fail(w, rc, "step");
            par_abort(w);
            break;
        }
        double t1 = now_s();
        /* the mean loss (and |g_i|^2) over the active learners */
        float v[3] = {active ? (float)loss : 0, (float)active, active ? (float)g2s : 0};
        if ((rc = mb_comm_allreduce_sum(w->c, v, 3)) != MB_OK) {
            fail(w, rc, "allreduce");
            par_abort(w);
            break;
        }
        v[0] /= v[1];
        v[2] /= v[1];
        w->t[T_COMM] += now_s() - t1;
        train_s += now_s() - t0;
        updates++;
        samples += (size_t)v[1] * (size_t)j->m;
        if (is_root(w)) {
            mb_noise_add(&j->mon.noise, v[2], g2b); /* off unless sgd-sync, P > 1 */
            const float *model = o->par == MB_PAR_SGD_SYNC ? mb_net_params(w->l.net) : w->centre;
            j->updates = updates;
            j->samples = samples;
            j->wall_s = train_s;
            j->loss = v[0];
            j->k_was = (int)v[1];
            if (j->tuning && updates - j->tune_u0 >= o->sma_tune_window) {
                sma_tune(j, P, (double)(samples - j->tune_s0) / (train_s - j->tune_t0));
                j->tune_u0 = updates;
                j->tune_s0 = samples;
                j->tune_t0 = train_s;
            }
            mb_run_row row = {.update = updates, .epoch = w->l.cur.epoch,
                              .samples = j->samples, .wall_s = train_s, .loss = v[0]};
            double tm = now_s();
            if ((rc = mb_run_mon_update(&j->mon, model, &row, &stop, &w->err)) != MB_OK)
                w->rc = rc;
            memcpy(j->model, model, j->n * sizeof *model);
            mb_run_mon_progress(&j->mon, updates, samples, train_s, v[0]);
            int slow = now_s() - tm > 1e-4; /* past half the idle broadcast's spin */
            flag = (float)((stop || rc != MB_OK) + 2 * slow);
        }
        /* the verdict: 1 stop, 2 rank 0 was long at it. Timed in none of the parts, since the
         * others wait here while rank 0 evaluates (t_eval_s), asleep (mb_comm_bcast_idle) so
         * that its evaluation can have their cores (--eval-threads). After a long verdict (an
         * evaluation; a large net's snapshot copy) everyone meets once more, untimed, so that a
         * rank that wakes a sleep late costs no one training time. */
        if (mb_comm_bcast_idle(w->c, &flag, 1, 0) != MB_OK) {
            fail(w, MB_EMPI, "broadcast");
            par_abort(w);
            break;
        }
        int verdict = (int)flag;
        stop = verdict & 1;
        if ((verdict & 2) && mb_comm_barrier(w->c) != MB_OK) {
            fail(w, MB_EMPI, "barrier");
            par_abort(w);
            break;
        }
        if (o->checkpoint_path && updates % o->checkpoint_every == 0 &&
            (rc = par_checkpoint(w, updates, samples, train_s)) != MB_OK) {
            fail(w, rc, "checkpoint");
            par_abort(w);
            break;
        }
    }
    if (rc != MB_OK && w->rc == MB_OK)
        w->rc = rc;
}

/* ---- failing loudly ------------------------------------------------------------------------- */

/* Rank 0, before anyone trains: the checkpoint's folder exists and takes files, and the names
 * of its companion `part` (-1: PATH.learners, else PATH.learners.rank<part>) and the .prev fit,
 * so that a bad --checkpoint is one line at the start rather than a failure at the first
 * write. */
static int ckpt_folder_ok(const char *path, int part, mb_error *err)
{
    size_t len = strlen(path);
    char *d = malloc(len + 2);
    if (!d)
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    memcpy(d, path, len + 1);
    char *slash = strrchr(d, '/');
    if (!slash)
        strcpy(d, ".");
    else if (slash == d)
        d[1] = '\0';
    else
        *slash = '\0';
    struct stat st;
    int rc = MB_OK;
    if (stat(d, &st) != 0)
        rc = mb_error_set(err, MB_EIO, "--checkpoint %s: folder %s: %s", path, d, strerror(errno));
    else if (!S_ISDIR(st.st_mode))
        rc = mb_error_set(err, MB_EIO, "--checkpoint %s: %s is not a folder", path, d);
    else if (access(d, W_OK | X_OK) != 0)
        rc = mb_error_set(err, MB_EIO, "--checkpoint %s: cannot write in %s: %s", path, d,
                          strerror(errno));
    else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        rc = mb_error_set(err, MB_EIO, "--checkpoint %s: is a folder, not a file", path);
    else if ((rc = mb_out_check(path, err)) == MB_OK) /* a temporary can be made beside it */
        rc = mb_par_ckpt_names_check(path, part, err);
    free(d);
    return rc;
}

/* Over MPI, before anything else is exchanged (mb_comm_agree, train/comm/agree.c): every
 * setting that shapes the job's collectives, its rule, where it stops, where the log's crossing
 * falls, or where its checkpoint lies, compared with rank 0's; all refuse together
 * (r->failed_together: nobody is left waiting, nothing need be aborted). Rank 0's own set-up
 * verdict (`rc0`, e.g. a checkpoint folder that does not exist) travels along, so that a
 * failure there ends every rank the same way. */
static int par_agree(const job *j, mb_communicator *c, const mb_net_desc *desc, int rc0,
                     mb_run_result *r, mb_error *err)
{
    const mb_run_options *o = j->o;
    mb_run_options d; /* the defaults, to say which value a rank kept */
    mb_run_options_init(&d);
    const long n_push = o->n_push ? o->n_push : o->tau;
    const long n_fetch = o->n_fetch ? o->n_fetch : o->tau;
    char lev[MB_RUN_LEVELS_MAX * 26] = ""; /* --levels as rank 0's message quotes them */
    for (int k = 0, at = 0; k < o->n_levels && k < MB_RUN_LEVELS_MAX; k++) {
        int w = snprintf(lev + at, sizeof lev - (size_t)at, "%s%.9g", k ? "," : "",
                         o->levels[k]);
        if (w < 0 || (size_t)(at + w) >= sizeof lev)
            break;
        at += w;
    }
    /* what each rank uses, defaults resolved (campaign 9, L5), and every setting that shapes
     * the job's collectives, its rule, where it stops, where the log's crossing falls, or
     * where its checkpoint lies (L4) */
    enum { CNT = MB_COMM_SET_COUNT, DBL = MB_COMM_SET_DOUBLE, HSH = MB_COMM_SET_HASH };
    const mb_comm_setting s[] = {
        {"--algo", (uint64_t)o->par, CNT, 0, mb_par_algo_name(o->par)},
        {"--learners", (uint64_t)o->learners, CNT, 0, NULL},
        {"--batch", (uint64_t)o->batch, CNT, 0, NULL},
        {"--net (its parameter count)", (uint64_t)j->n, CNT, 0, NULL},
        {"--net (its name)", mb_comm_hash(desc->name), HSH, 0, desc->name},
        /* the whole parsed structure, not the file's text: every layer's kind, sizes, stride,
         * padding, dropout p, convolution algorithm, shapes and inputs (relu for tanh, maxpool
         * for avgpool, another dropout p: campaign 18's F2, #25) */
        {"--net (its layers)", mb_ckpt_net_fingerprint(desc) | (uint64_t)desc->n_layers << 32,
         HSH, 0, NULL},
        {"--data (its samples, --eval-frac, --data-seed)", mb_ckpt_fingerprint(j->data), HSH, 0,
         NULL},
        {"--seed", (uint64_t)o->seed, CNT, 0, NULL},
        {"--optim", (uint64_t)o->optim.kind, CNT, 0, mb_optim_kind_name(o->optim.kind)},
        {"--lr", mb_comm_dbits(o->optim.lr), DBL, o->optim.lr == d.optim.lr, NULL},
        {"--momentum", mb_comm_dbits(o->optim.momentum), DBL,
         o->optim.momentum == d.optim.momentum, NULL},
        {"--weight-decay", mb_comm_dbits(o->optim.weight_decay), DBL, 0, NULL},
        {"--lr-step", (uint64_t)o->optim.lr_step_every, CNT, 0, NULL},
        {"--lr-gamma", mb_comm_dbits(o->optim.lr_step_gamma), DBL, 0, NULL},
        {"--tau", (uint64_t)o->tau, CNT, o->tau == d.tau, NULL},
        {"--n-push", (uint64_t)n_push, CNT, !o->n_push, NULL},
        {"--n-fetch", (uint64_t)n_fetch, CNT, !o->n_fetch, NULL},
        {"--elastic-alpha", mb_comm_dbits(j->alpha), DBL, isnan(o->elastic_alpha), NULL},
        {o->par == MB_PAR_SMA ? "--sma-momentum" : "--delta", mb_comm_dbits(j->mu), DBL,
         isnan(o->par_momentum), NULL},
        {"--no-overlap", (uint64_t)o->no_overlap, CNT, 0, NULL},
        {"--grad-after-exchange", (uint64_t)o->grad_after_exchange, CNT, 0, NULL},
        {"--sma-tune", (uint64_t)o->sma_tune, CNT, 0, NULL},
        {"--conv-algo", (uint64_t)o->conv_algo, CNT, o->conv_algo == d.conv_algo,
         mb_conv_algo_name(o->conv_algo)},
        {"--checkpoint", mb_comm_hash(o->checkpoint_path), HSH, !o->checkpoint_path,
         o->checkpoint_path},
        {"--checkpoint-every", (uint64_t)(o->checkpoint_path ? o->checkpoint_every : 0), CNT, 0,
         NULL},
        {"--resume", mb_comm_hash(o->resume_path), HSH, !o->resume_path,
         o->resume_path},
        {"--max-updates", (uint64_t)o->max_updates, CNT, 0, NULL},
        {"--epochs", mb_comm_dbits(o->epochs), DBL, o->epochs == d.epochs, NULL},
        {"--target-loss", mb_comm_dbits(o->target_loss), DBL, 0, NULL},
        {"--eval-every", (uint64_t)o->eval_every, CNT, o->eval_every == d.eval_every, NULL},
        {"--eval-adapt", (uint64_t)o->eval_adapt, CNT, 0, NULL},
        {"--no-bisect", (uint64_t)o->no_bisect, CNT, 0, NULL},
        {"--check-frac", mb_comm_dbits(o->check_frac), DBL, 0, NULL},
        {"--check-sigmas", mb_comm_dbits(o->check_sigmas), DBL,
         o->check_sigmas == d.check_sigmas, NULL},
        {"--levels", mb_comm_hash(lev), HSH, o->n_levels == 0, o->n_levels ? lev : NULL},
        {"--no-test-eval", (uint64_t)o->no_test_eval, CNT, 0, NULL},
        {"--wait-timeout", mb_comm_dbits(o->wait_timeout), DBL,
         o->wait_timeout == d.wait_timeout, NULL},
    };
    int together = 0, disagree = 0;
    int rc = mb_comm_agree(c, s, (int)(sizeof s / sizeof s[0]), rc0, &together, &disagree, err);
    if (rc == MB_OK || together)
        r->failed_together = together;
    if (disagree)
        r->disagree = 1;
    return rc;
}

/* The job's identity in its checkpoints: rank 0's random draw, broadcast (a resumed run
 * takes the checkpoint's instead, job_resume), so that a resume never mixes parts of two runs
 * that reached the same update. */
static int run_id_init(job *j, mb_error *err)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t z = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 17);
    z += 0x9e3779b97f4a7c15ull; /* splitmix64's finaliser */
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    j->run_id = (z ^ (z >> 31)) | 1;
    if (j->ranks < 2)
        return MB_OK;
    float b[2];
    memcpy(b, &j->run_id, sizeof b);
    int rc = mb_comm_bcast(j->o->comm, b, 2, 0);
    if (rc != MB_OK)
        return mb_error_set(err, rc, "the ranks could not agree on the run's identity");
    memcpy(&j->run_id, b, sizeof b);
    return MB_OK;
}

/* ---- set-up --------------------------------------------------------------------------------- */

static int worker_init(worker *w, job *j, mb_communicator *c)
{
    const mb_run_options *o = j->o;
    memset(w, 0, sizeof *w);
    w->j = j;
    w->c = c;
    w->rank = mb_comm_rank(c);
    int server = mb_par_algo_has_server(o->par);
    int learner = !(server && w->rank == 0);
    size_t n = j->n;
    /* n floats and the 2 to 4 that the server algorithms' messages carry after them */
    w->centre = mb_train_alloc64((n + 4) * sizeof(float));
    w->buf = mb_train_alloc64((n + 4) * sizeof(float));
    w->aux = mb_train_alloc64((n + 4) * sizeof(float));
    if (!w->centre || !w->buf || !w->aux)
        return mb_error_set(&w->err, MB_ENOMEM, "out of memory for a learner's buffers");
    memset(w->aux, 0, (n + 4) * sizeof(float));
    int rc;
    if (learner) {
        mb_run_options lo = *o;
        lo.batch = j->m;
        if ((rc = mb_learner_init(&w->l, j->desc, &lo, j->data->train.n, &w->err)) != MB_OK)
            return rc;
        int i = server ? w->rank - 1 : w->rank;
        if ((rc = mb_learner_set_slice(&w->l, i * j->m, o->batch, &w->err)) != MB_OK)
            return rc;
    }
    /* every learner and the centre start from rank 0's parameters (docs/algorithms.md,
     * "Elastic Averaging SGD") */
    float *p = learner ? mb_net_params(w->l.net) : w->centre;
    if (!learner)
        memcpy(p, mb_net_params(j->eval_net), n * sizeof *p);
    if ((rc = mb_comm_bcast(c, p, n, 0)) != MB_OK) /* a timeout names --wait-timeout (fail) */
        return fail(w, rc, "broadcast of the initial parameters");
    if (learner) {
        memcpy(w->centre, p, n * sizeof *p);
        if (o->par == MB_PAR_SMA)
            memcpy(w->aux, p, n * sizeof *p); /* z_prev = z */
        /* those the tuning adds start from z (k_was: every learner, or a resumed run's) */
        w->was_active = w->rank < j->k_was;
    }
    if (o->resume_path) {
        mb_run_options lo = *o;
        lo.batch = j->m;
        if ((rc = par_resume(w, &lo)) != MB_OK)
            return rc;
    }
    return MB_OK;
}

static void worker_free(worker *w)
{
    free(w->rec);
    mb_learner_free(&w->l);
    free(w->centre);
    free(w->buf);
    free(w->aux);
}

static void worker_run(worker *w)
{
    job *j = w->j;
    switch (j->o->par) {
    case MB_PAR_DOWNPOUR:
    case MB_PAR_EASGD_ASYNC:
    case MB_PAR_EAMSGD:
        if (w->rank == 0)
            par_run_server(w);
        else
            par_run_async_learner(w);
        break;
    case MB_PAR_EASGD_HOGWILD:
        if (w->rank == 0)
            par_run_hogwild_watch(w);
        else
            par_run_hogwild_learner(w);
        break;
    default: run_lockstep(w); break;
    }
}

typedef struct thread_arg {
    job *j;
    mb_communicator *c;
    worker *w;             /* filled by the thread: its times, status, message */
} thread_arg;

/* One worker's life: init, run, the time sums. Rank 0 of a threads communicator runs in the
 * caller's thread. */
static void *worker_main(void *p)
{
    thread_arg *a = p;
    worker *w = a->w;
    int rc = worker_init(w, a->j, a->c);
    /* a learner that cannot start must not leave the others in a collective: it ends the job
     * (over threads the others' waits return, and mb_par_run reports this one's message) */
    if (rc != MB_OK) {
        fail(w, rc, "set-up");
        par_abort(w);
    }
    if (rc == MB_OK) {
        if (a->j->o->par == MB_PAR_EASGD_HOGWILD && w->rank == 0)
            memcpy(a->j->shared, w->centre, a->j->n * sizeof(float));
        /* Hogwild: the shared centre is set before anyone reads it */
        if ((rc = mb_comm_barrier(a->c)) != MB_OK) {
            fail(w, rc, "barrier");
            par_abort(w);
        } else {
            worker_run(w);
        }
    }
    /* the parts' seconds summed over learners, onto rank 0 */
    float t[T_N];
    for (int k = 0; k < T_N; k++)
        t[k] = (float)w->t[k];
    float sum[T_N];
    mb_comm_reduce_sum(a->c, t, sum, T_N, 0);
    if (w->rank == 0)
        for (int k = 0; k < T_N; k++)
            w->t[k] = sum[k];
    return NULL;
}

/* The parallel run's "# key=value" lines for the log (run_mon.c writes them with the metadata). */
static void job_extra(job *j)
{
    const mb_run_options *o = j->o;
    int k = snprintf(j->extra, sizeof j->extra, "# learner_batch=%d\n", j->m);
    if (o->par != MB_PAR_SGD_SYNC)
        k += snprintf(j->extra + k, sizeof j->extra - (size_t)k, "# %s=%.9g\n",
                      o->par == MB_PAR_DOWNPOUR ? "unused_alpha" : "elastic_alpha", j->alpha);
    if (mb_par_algo_has_server(o->par))
        k += snprintf(j->extra + k, sizeof j->extra - (size_t)k, "# tau=%ld\n# server=rank 0\n",
                      o->tau);
    if (o->par == MB_PAR_EAMSGD || o->par == MB_PAR_SMA)
        k += snprintf(j->extra + k, sizeof j->extra - (size_t)k, "# %s=%.9g\n",
                      o->par == MB_PAR_SMA ? "sma_momentum" : "eamsgd_delta", j->mu);
    if (o->par == MB_PAR_DOWNPOUR)
        k += snprintf(j->extra + k, sizeof j->extra - (size_t)k, "# n_push=%ld\n# n_fetch=%ld\n",
                      o->n_push ? o->n_push : o->tau, o->n_fetch ? o->n_fetch : o->tau);
    if (o->par == MB_PAR_EASGD_ASYNC || o->par == MB_PAR_EAMSGD || o->par == MB_PAR_EASGD_HOGWILD)
        k += snprintf(j->extra + k, sizeof j->extra - (size_t)k, "# gradient=%s\n",
                      o->grad_after_exchange ? "after-exchange" : "before-exchange");
    if (o->par == MB_PAR_EASGD_SYNC)
        snprintf(j->extra + k, sizeof j->extra - (size_t)k, "# overlap=%d\n# tau=%ld\n",
                 !o->no_overlap, o->tau);
}

/* rc, with err's message prefixed by "rank R: " when rc is a failure. */
static int rank_says(int rank, int rc, mb_error *err)
{
    if (rc != MB_OK && err) {
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        mb_error_set(err, rc, "rank %d: %s", rank, why);
    }
    return rc;
}

/* Over ranks, every rank's verdict `rc` (this rank's message in err): the lowest rank that
 * failed keeps its message, the others clear theirs, and all return that rank's status together
 * (r->failed_together), so that the job ends with one line and nobody is left waiting. */
static int ranks_vote(const job *j, int rc, mb_run_result *r, mb_error *err)
{
    float *bad = calloc((size_t)j->ranks, sizeof *bad);
    if (!bad)
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    bad[j->proc] = rc != MB_OK ? (float)rc : 0;
    int rs = mb_comm_allreduce_sum(j->o->comm, bad, (size_t)j->ranks);
    int first = -1;
    for (int k = 0; k < j->ranks && first < 0; k++)
        if (bad[k] != 0)
            first = k;
    int rcf = first >= 0 ? (int)bad[first] : MB_OK;
    free(bad);
    r->failed_together = 1;
    if (rs != MB_OK)
        return mb_error_set(err, rs, "the ranks could not compare their verdicts");
    if (rcf != MB_OK && j->proc != first) {
        mb_error_clear(err);
        if (err)
            err->status = rcf;
    }
    if (rcf == MB_OK)
        r->failed_together = 0;
    return rcf;
}

/* Over ranks: rank 0's head reaches every rank (a broadcast, with rank 0's verdict), so that a
 * rank on a node of its own knows which update and run to resume; 0, or rank 0's failure. */
static int head_from_root(const job *j, mb_par_ckpt_head *h, int rc0, mb_error *err)
{
    enum { HF = (sizeof *h + sizeof(float) - 1) / sizeof(float) + 1 };
    float b[HF];
    memset(b, 0, sizeof b);
    memcpy(b, h, sizeof *h);
    b[HF - 1] = (float)rc0;
    int rc = mb_comm_bcast(j->o->comm, b, HF, 0);
    if (rc != MB_OK)
        return mb_error_set(err, rc, "the ranks could not exchange the checkpoint's head");
    memcpy(h, b, sizeof *h);
    return (int)b[HF - 1];
}

/* The head's identity against this run: records, parameters, algorithm (the file, or this
 * process's part of it), data, seed, batch, tau. */
static int head_identity(const job *j, const mb_par_ckpt_head *h, int part, mb_error *err)
{
    const mb_run_options *o = j->o;
    /* a record per rank of the communicator: the learners, and the server or watcher */
    uint64_t recs = (uint64_t)j->p + (mb_par_algo_has_server(o->par) ? 1 : 0);
    if (h->total != recs || h->params != j->n || h->algo != o->par || h->rec_floats != j->rec)
        return mb_error_set(err, MB_EINVAL, "%s: checkpoint of %s with %llu records of %llu "
                            "parameters; this run is %s with %llu of %zu", o->resume_path,
                            mb_par_algo_name(h->algo), (unsigned long long)h->total,
                            (unsigned long long)h->params, mb_par_algo_name(o->par),
                            (unsigned long long)recs, j->n);
    if (part >= 0 && (h->first != (uint64_t)part * (uint64_t)j->threads ||
                      h->learners != (uint64_t)j->threads))
        return mb_error_set(err, MB_EINVAL, "%s.learners.rank%d: holds learners %llu to %llu; "
                            "rank %d of this run has %d to %d", o->resume_path, part,
                            (unsigned long long)h->first,
                            (unsigned long long)(h->first + h->learners - 1), part,
                            part * j->threads, part * j->threads + j->threads - 1);
    /* the run's identity, as PATH's is checked (run_ckpt.c) */
    if (h->net_fp != mb_ckpt_net_fingerprint(j->desc))
        return mb_error_set(err, MB_EINVAL, "%s: the learners' checkpoint is of net '%s' with "
                            "another structure (fingerprint %08llx; this run: %08llx): its "
                            "layers, kinds, shapes, activations, pooling or dropout differ",
                            o->resume_path, j->desc->name, (unsigned long long)h->net_fp,
                            (unsigned long long)mb_ckpt_net_fingerprint(j->desc));
    const char *what = h->data_fp != j->data_fp ? "data (--data, --eval-frac, --data-seed)"
                       : h->seed != o->seed    ? "--seed"
                       : h->batch != o->batch  ? "--batch"
                       : h->tau != o->tau      ? "--tau"
                                               : NULL;
    if (what)
        return mb_error_set(err, MB_EINVAL, "%s: the learners' checkpoint is of another %s "
                            "(seed %llu, batch %lld, tau %lld); resume with the run's own "
                            "settings", o->resume_path, what, (unsigned long long)h->seed,
                            (long long)h->batch, (long long)h->tau);
    /* the settings its log states once, as PATH's are compared: a server algorithm resumes
     * from this file alone (campaign 11: downpour took another --lr) */
    ckpt_run want;
    memset(&want, 0, sizeof want);
    mb_ckpt_settings_fill(&want, o);
    if (h->settings.algo != want.algo)
        return mb_error_set(err, MB_EINVAL, "%s: the learners' checkpoint is of --optim %s, this "
                            "run has --optim %s (a log states one for the whole run)",
                            o->resume_path, mb_optim_kind_name((mb_optim_kind)h->settings.algo),
                            mb_optim_kind_name(o->optim.kind));
    return mb_ckpt_settings_check(&h->settings, &want, o->resume_path, err);
}

/* A resumed run must have updates left to train: at or past its bound, or at the evaluation
 * that reached the target (rank 0's monitor read it from the checkpoint's rows), it would
 * report the centre before any learner restored it (campaign 10's M4, campaign 31's A1: it
 * trained on to a later crossing; one learner refuses "past" and reports its checkpoint at the
 * bound or the target). Every rank knows the bound and the update, rank 0 the target; they
 * vote, so the job ends with one line. */
static int resume_in_bound(const job *j, mb_run_result *r, mb_error *err)
{
    int rc = MB_OK;
    char tl[MB_DATA_TYPED_LEN]; /* as typed (campaign 42, F1) */
    if (j->mon.bound > 0 && j->updates0 >= j->mon.bound)
        rc = mb_error_set(err, MB_EINVAL, "%s: the checkpoint is at update %ld, at or past this "
                          "run's bound of %ld updates: nothing left to train", j->o->resume_path,
                          j->updates0, j->mon.bound);
    else if (mb_run_mon_ended(&j->mon, j->updates0))
        rc = mb_error_set(err, MB_EINVAL, "%s: the checkpoint is at update %ld, after the run "
                          "reached --target-loss %s at update %ld: nothing left to train",
                          j->o->resume_path, j->updates0, mb_data_typed(tl, j->o->target_loss),
                          j->mon.r->reached_update);
    return j->ranks > 1 ? ranks_vote(j, rc, r, err) : rc;
}

/* A resumed run: the head of this process's file (rank 0 takes the log rows into *rows0, *len0
 * bytes), checked against this run (records, parameters, algorithm, identity), and where the
 * run was. Over ranks, rank 0 reads first and broadcasts its head; a lockstep rank then reads
 * its own part (of that update and run), a server algorithm's learner takes rank 0's head; the
 * ranks compare verdicts, and the lowest that failed says why in one line, the others end
 * silently with it (r->failed_together). */
static int job_resume(job *j, int rank, char **rows0, size_t *len0, mb_run_result *r,
                      mb_error *err)
{
    const mb_run_options *o = j->o;
    int parts = j->ranks > 1 && !mb_par_algo_has_server(o->par);
    mb_par_ckpt_head h;
    memset(&h, 0, sizeof h);
    int rc = MB_OK;
    if (rank == 0) {
        rc = mb_par_ckpt_read(o->resume_path, parts ? 0 : -1, -1, 0, &h, rows0, 0, NULL, NULL, err);
        if (rc == MB_OK)
            rc = head_identity(j, &h, parts ? 0 : -1, err);
    }
    if (j->ranks > 1) {
        int rc0 = head_from_root(j, &h, rc, err);
        r->failed_together = 1;
        if (rc0 != MB_OK) { /* rank 0 says why */
            if (rank != 0) {
                mb_error_clear(err);
                if (err)
                    err->status = rc0;
            }
            free(*rows0);
            *rows0 = NULL;
            return rc0;
        }
        if (rank != 0 && parts) {
            mb_par_ckpt_head mine;
            rc = mb_par_ckpt_read(o->resume_path, rank, h.updates, h.run_id, &mine, NULL, 0,
                                  NULL, NULL, err);
            if (rc == MB_OK)
                rc = head_identity(j, &mine, rank, err);
            rc = rank_says(rank, rc, err);
        }
        int rcf = ranks_vote(j, rc, r, err);
        if (rcf != MB_OK) {
            free(*rows0);
            *rows0 = NULL;
            return rcf;
        }
    } else if (rc != MB_OK) {
        free(*rows0);
        *rows0 = NULL;
        return rc;
    }
    j->run_id = h.run_id;
    j->updates0 = j->updates = h.updates;
    j->samples0 = j->samples = h.samples;
    j->wall0 = j->wall_s = h.wall_s;
    j->steps0 = h.steps;
    if (o->sma_tune) { /* where the tuning was */
        j->k_active = h.k_active;
        j->k_was = h.k_was;
        j->tuning = h.tuning;
        j->tune_u0 = h.tune_u0;
        j->tune_s0 = h.tune_s0;
        j->tune_t0 = h.tune_t0;
        j->tune_prev = h.tune_prev;
        snprintf(j->trace, sizeof j->trace, "%s", h.trace);
    }
    j->alpha = h.alpha;
    *len0 = h.log_len;
    return MB_OK;
}

/* The run's result from the workers' seconds (rank 0's sums) and the job: the time parts, SMA's
 * tuning trace and the server's times into the log's extra lines (B_simple: the monitor's). */
static void job_results(job *j, const worker *ws0, mb_run_result *r)
{
    const mb_run_options *o = j->o;
    r->t_compute_s = ws0->t[T_COMPUTE] / j->p;
    r->t_comm_s = ws0->t[T_COMM] / j->p;
    r->t_data_s = ws0->t[T_DATA] / j->p;
    r->t_update_s = ws0->t[T_UPDATE] / j->p;
    if (o->sma_tune) {
        size_t len = strlen(j->extra);
        snprintf(j->extra + len, sizeof j->extra - len, "# sma_tune=%s\n# sma_tune_window=%ld\n"
                 "# sma_learners=%d\n", j->trace, o->sma_tune_window, j->k_active);
        /* r->learners stays P: the rows' samples lie between u M / P and u M however the
         * count moved (campaign 33's D15: the count kept, 1, refused a log whose first window
         * never closed, or whose tuning removed a learner, as samples below u M) */
    }
    if (mb_par_algo_has_server(o->par) && o->par != MB_PAR_EASGD_HOGWILD) {
        /* the server's side of the time: idle (waiting for pushes), every learner held
         * (evaluations, checkpoints: out of wall_s), and the learners' mean time held */
        size_t len = strlen(j->extra);
        snprintf(j->extra + len, sizeof j->extra - len, "# t_server_idle_s=%.6f\n"
                 "# t_paused_s=%.6f\n# t_wait_s=%.6f\n", j->server_idle_s, j->paused_s,
                 ws0->t[T_WAIT] / j->p);
    }
}

/* Starts the workers (rank 0 of this process in the caller's thread), waits for them, and
 * returns the failure to report: the worker that ended the job (the others' waits merely
 * returned), else the first that failed, "NAME: why". */
static int job_run_workers(job *j, int threads, mb_communicator **comms, worker *ws,
                           thread_arg *args, pthread_t *tids, mb_error *err)
{
    for (int i = 0; i < threads; i++)
        args[i] = (thread_arg){.j = j, .c = comms[i], .w = &ws[i]};
    int started = 1;
    for (int i = 1; i < threads; i++, started++)
        if (pthread_create(&tids[i], NULL, worker_main, &args[i]) != 0)
            break;
    if (started < threads) {
        char why[96];
        snprintf(why, sizeof why, "could not start %d learner threads", threads);
        /* the started ones wait at the first broadcast: the abort lets them return */
        mb_comm_abort_why(comms[0], 1, why);
        for (int i = 1; i < started; i++)
            pthread_join(tids[i], NULL);
        return mb_error_set(err, MB_ENOMEM, "%s", why);
    }
    worker_main(&args[0]);
    for (int i = 1; i < threads; i++)
        pthread_join(tids[i], NULL);
    int first = mb_comm_aborted_by(comms[0]);
    const worker *cause = first >= 0 ? &ws[first % threads] : NULL;
    for (int i = 0; i < threads && !cause; i++)
        if (ws[i].rc != MB_OK)
            cause = &ws[i];
    if (!cause)
        return MB_OK;
    char name[64];
    par_who(cause, name, sizeof name);
    int rc = cause->rc != MB_OK ? cause->rc : MB_EMPI;
    return mb_error_set(err, rc, "%s: %s", name, cause->err.msg[0] ? cause->err.msg : "failed");
}

/* The job's counts before anything is read: learners, samples each, workers of this process
 * (a server thread beside the learners where the server algorithms run in one process). */
static void job_init(job *j, const mb_run_options *o, mb_run_result *r, int ranks, int rank)
{
    memset(j, 0, sizeof *j);
    pthread_mutex_init(&j->mu_loss, NULL);
    j->o = o;
    j->r = r;
    j->ranks = ranks;
    j->p = mb_par_learners(o, ranks);
    j->proc = rank;
    j->m = o->batch / j->p;
    j->k_active = j->k_was = o->sma_tune ? 1 : 1 << 30;
    j->tuning = o->sma_tune;
    j->threads = o->learners + (ranks == 1 && mb_par_algo_has_server(o->par) ? 1 : 0);
}

/* --conv-algo needs a convolution to act on; DOWNPOUR's server steps a centre with gradients
 * alone, and BN's running statistics have none: the centre's would never move
 * (docs/algorithms.md, "Batch normalisation"). */
static int par_check_net(const mb_run_options *o, const mb_net_desc *desc, mb_error *err)
{
    int rc = mb_net_desc_check_conv_algo(desc, o->conv_algo, err);
    if (rc != MB_OK)
        return rc;
    for (size_t i = 0; o->par == MB_PAR_DOWNPOUR && i < desc->n_layers; i++)
        if (mb_layer_state_count(&desc->layers[i]) > 0)
            return mb_error_set(err, MB_EINVAL, "--par downpour: net '%s' has batch "
                                "normalisation (layer '%s'), whose running statistics a "
                                "gradient-only server cannot keep; use sgd-sync or an averaging "
                                "algorithm", desc->name, desc->layers[i].name);
    return MB_OK;
}

/* The data fit the net, the eval subset is not empty and the batch is not larger than the
 * training set. */
static int par_check_data(const mb_run_options *o, const mb_net_desc *desc,
                          const mb_data_splits *data, mb_error *err)
{
    int rc = mb_run_check_shapes(desc, &data->train, "training", err);
    if (rc != MB_OK)
        return rc;
    if (data->eval.n == 0)
        return mb_error_set(err, MB_EINVAL, "data '%s': the eval subset is empty", o->data);
    if ((size_t)o->batch > data->train.n)
        return mb_error_set(err, MB_EINVAL, "batch %d is larger than the %zu training samples",
                            o->batch, data->train.n);
    return MB_OK;
}

int mb_par_run(const mb_run_options *o, mb_run_result *r, mb_error *err)
{
    memset(r, 0, sizeof *r);
    r->eval_loss = r->eval_acc = r->test_loss = r->test_acc = r->loss = r->b_simple = NAN;
    r->others_cores = r->steal_cores = NAN; /* not measured unless run_mon.c does */
    int rc = mb_run_check_options(o, err);
    if (rc != MB_OK)
        return rc;
    int ranks = o->comm ? mb_comm_size(o->comm) : 1;
    int rank = o->comm ? mb_comm_rank(o->comm) : 0;
    if ((rc = mb_par_check(o, ranks, err)) != MB_OK)
        return rc;
    if (o->comm)
        mb_comm_set_timeout(o->comm, o->wait_timeout); /* the MPI watchdog (comm_mpi.c) */
    job j;
    job_init(&j, o, r, ranks, rank);
    /* the defaults resolved before the ranks compare them (par_agree) */
    mb_par_resolved(o, &j.alpha, &j.mu);
    int threads = j.threads;
    mb_net_desc *desc = NULL;
    mb_data_splits own;
    memset(&own, 0, sizeof own);
    mb_communicator **comms = NULL;
    worker *ws = NULL;
    thread_arg *args = NULL;
    pthread_t *tids = NULL;
    if ((rc = mb_net_desc_read(o->net, &desc, err)) != MB_OK)
        goto out;
    j.desc = desc;
    const mb_data_splits *data;
    if ((rc = par_check_net(o, desc, err)) != MB_OK ||
        (rc = mb_run_data(o, &own, &data, err)) != MB_OK)
        goto out;
    j.data = data;
    if (o->checkpoint_path || o->resume_path)
        j.data_fp = mb_ckpt_fingerprint(data);
    if ((rc = par_check_data(o, desc, data, err)) != MB_OK)
        goto out;
    /* rank 0's evaluation network: the model judged is copied into it; its initial
     * parameters are everyone's (broadcast in worker_init) */
    mb_net_options no = {.max_batch = 128, .seed = o->seed, .algo = o->conv_algo,
                         .threads = o->eval_threads > 0 ? o->eval_threads : o->threads};
    if ((rc = mb_net_create(desc, &no, &j.eval_net, err)) != MB_OK)
        goto out;
    j.n = mb_net_param_count(j.eval_net);
    /* rank 0 writes the checkpoints: it checks their folder; then every rank agrees */
    const int parts = ranks > 1 && !mb_par_algo_has_server(o->par); /* mb_par_ckpt_write's */
    rc = rank == 0 && o->checkpoint_path ? ckpt_folder_ok(o->checkpoint_path, parts ? 0 : -1, err)
                                         : MB_OK;
    if (o->comm && ranks > 1)
        rc = par_agree(&j, o->comm, desc, rc, r, err);
    /* a lockstep job over ranks writes a part on every node: every rank checks its folder */
    if (rc == MB_OK && o->checkpoint_path && parts) {
        int mine = rank == 0 ? MB_OK : ckpt_folder_ok(o->checkpoint_path, rank, err);
        rc = ranks_vote(&j, rank_says(rank, mine, err), r, err);
    }
    if (rc == MB_OK && o->checkpoint_path)
        rc = run_id_init(&j, err);
    if (rc != MB_OK)
        goto out;
    j.rec = par_rec_floats(&j);
    snprintf(r->net, sizeof r->net, "%s", desc->name);
    snprintf(r->device, sizeof r->device, "%s", mb_ctx_device_name(mb_net_context(j.eval_net)));
    r->params = j.n;
    r->learners = j.p;
    r->ranks = ranks;
    j.model = malloc(j.n * sizeof *j.model);
    j.shared = o->par == MB_PAR_EASGD_HOGWILD ? calloc(j.n, sizeof *j.shared) : NULL;
    if (!j.model || (o->par == MB_PAR_EASGD_HOGWILD && !j.shared)) {
        rc = mb_error_set(err, MB_ENOMEM, "out of memory for the model");
        goto out;
    }
    job_extra(&j);
    char *rows0 = NULL;
    size_t len0 = 0;
    if (o->resume_path && (rc = job_resume(&j, rank, &rows0, &len0, r, err)) != MB_OK)
        goto out;
    if (rank == 0) {
        rc = mb_run_mon_init(&j.mon, o, desc, data, j.eval_net, r, j.updates0, rows0, len0, err);
        if (rc != MB_OK)
            goto out;
        j.mon.extra_meta = j.extra;
        /* B_simple (sgd-sync): |G_b|^2 at b = m (the learners' mean) and |G_B|^2 at B = M */
        if (o->par == MB_PAR_SGD_SYNC && j.p > 1)
            mb_noise_init(&j.mon.noise, (double)j.m, (double)o->batch);
    } else {
        /* the other ranks need the bound only */
        mb_run_options q = *o;
        q.log_path = NULL;
        q.target_loss = NAN;
        if ((rc = mb_run_mon_init(&j.mon, &q, desc, data, j.eval_net, r, j.updates0, NULL, 0,
                                  err)) != MB_OK)
            goto out;
    }
    if (o->resume_path && (rc = resume_in_bound(&j, r, err)) != MB_OK)
        goto out;

    comms = calloc((size_t)threads, sizeof *comms);
    ws = calloc((size_t)threads, sizeof *ws);
    args = calloc((size_t)threads, sizeof *args);
    tids = calloc((size_t)threads, sizeof *tids);
    if (!comms || !ws || !args || !tids) {
        rc = mb_error_set(err, MB_ENOMEM, "out of memory for %d learners", threads);
        goto out;
    }
    if (o->comm && threads == 1) {
        comms[0] = o->comm;
    } else if ((rc = o->comm ? mb_comm_hybrid_create(o->comm, threads, comms, err)
                             : mb_comm_threads_create(threads, comms, err)) != MB_OK) {
        goto out;
    }
    for (int i = 0; i < threads; i++)
        mb_comm_set_timeout(comms[i], o->wait_timeout);
    j.ws = ws;
    /* Hogwild's clocks: a resumed run's steps so far, all of logged updates but the last,
     * which the watcher marks logged once its clock has started (par_run_hogwild_watch) */
    j.steps = j.claimed = j.steps0;
    j.logged = j.updates0 - 1;
    rc = job_run_workers(&j, threads, comms, ws, args, tids, err);
    job_results(&j, &ws[0], r);
    if (rc == MB_OK && rank == 0)
        rc = mb_run_mon_finish(&j.mon, j.model, j.updates, j.samples, j.wall_s, j.loss, err);
    if (rc == MB_OK && rank != 0) { /* the others report what rank 0 logged, roughly */
        r->updates = j.updates;
    }
out:
    if (ws)
        for (int i = 0; i < threads; i++)
            worker_free(&ws[i]);
    if (comms && !(o->comm && threads == 1))
        for (int i = 0; i < threads && comms[i]; i++)
            mb_comm_free(comms[i]);
    free(comms);
    free(ws);
    free(args);
    free(tids);
    free(j.model);
    free(j.shared);
    mb_run_mon_free(&j.mon);
    mb_net_free(j.eval_net);
    pthread_mutex_destroy(&j.mu_loss);
    mb_data_splits_free(&own);
    mb_net_desc_free(desc);
    return rc;
}
