/* par_async.c — the asynchronous parallel learners (par_impl.h): DOWNPOUR, asynchronous EASGD
 * and EAMSGD against a server on rank 0 (first come, first served), and Hogwild EASGD's learner
 * threads with their watcher. The lockstep algorithms, the set-up and the checkpoints are in
 * par.c; the rules in par_rules.c.
 *
 * Honest time (issue 28): the server holds every learner at its next exchange before an update
 * that evaluates (and before a checkpoint), evaluates, then lets them go; wall_s leaves out the
 * seconds every learner was held (t_paused_s) and nothing else, so the learners' steps and the
 * log's clock agree. Before, the server subtracted its evaluation, snapshot and checkpoint
 * seconds while the learners trained on through them, up to tau steps each. The log also gets
 * the server's idle seconds and the learners' mean seconds held (t_wait_s, apart from t_comm_s).
 */
#include "par_impl.h"
#include "mb_par.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The server's update count travels in a float message as two floats, each exact (< 2^24). */
#define U_SPLIT 1048576L

/* A checkpoint of the server algorithms (a consistent snapshot of an asynchronous run): once
 * the server's update count passes a multiple of --checkpoint-every, its reply to each learner's
 * next push says "checkpoint"; the learner applies the reply as usual, sends its record (its
 * parameters, velocity, cursor and clock, par_pack) and waits. When every learner still running
 * has paused, the centre and they are one consistent state: the server writes it (the centre
 * and DOWNPOUR's master velocity as record 0, the learners' as 1 .. p, and the log rows) and
 * sends "go on" (or "stop", when the monitor stopped meanwhile). No learner steps while the
 * file is written, so the checkpoint is of the state at the server's update count then, which
 * is the boundary or a few updates past it (the pushes that arrived before every learner had
 * paused). A resumed learner starts right after that exchange. */
static int server_checkpoint(worker *w, mb_optim *master, long updates, long steps, float *all)
{
    job *j = w->j;
    size_t saved;
    double t0 = now_s();
    int rc = mb_run_mon_ckpt_rows(&j->mon, &saved, &w->err);
    if (rc != MB_OK)
        return rc;
    par_pack(w, all); /* the centre */
    const float *v = master ? mb_optim_state(master) : NULL;
    if (v)
        memcpy(all + j->n, v, j->n * sizeof *v);
    rc = par_write_learners(w, updates, (size_t)updates * (size_t)j->o->batch, j->wall_s, steps,
                            all);
    mb_run_mon_ckpt_done(&j->mon, saved);
    j->ckpt_s += now_s() - t0;
    return rc;
}

/* The server's state between messages. */
typedef struct server {
    worker *w;
    mb_optim *master;      /* DOWNPOUR's master optimiser, or NULL */
    long steps, loss_n, updates, next_ck, every;
    double loss_sum;
    double start;          /* when the loop began */
    double paused_s;       /* seconds no learner ran: every one held for an evaluation or a
                              checkpoint; out of wall_s, which is then the learners' time */
    double idle_s;         /* seconds the server waited for a message */
    int stop;
    int hold_eval;         /* an evaluation is due: the learners are held first */
} server;

/* 1 when the monitor evaluates at update u (run_mon.c: its schedule, or the bound). */
static int eval_due(const job *j, long u)
{
    return u == j->mon.next_eval || (j->mon.bound > 0 && u == j->mon.bound);
}

/* Logs every update the learners' steps have completed, with wall_s as of `t` (the learners'
 * time: paused_s out). With `held` 0, it stops before an update that evaluates and asks for
 * the learners to be held first (s->hold_eval), so that none trains while the server evaluates:
 * the seconds of an evaluation are then nobody's training time, as in the lockstep algorithms. */
static void log_due(server *s, double t, int held)
{
    worker *w = s->w;
    job *j = w->j;
    const mb_run_options *o = j->o;
    while (!s->stop && w->rc == MB_OK && s->steps * (long)j->m >= (s->updates + 1) * (long)o->batch) {
        if (!held && eval_due(j, s->updates + 1)) {
            s->hold_eval = 1;
            return;
        }
        s->updates++;
        /* several updates' worth at once share the steps' mean loss */
        double loss = s->loss_n ? s->loss_sum / (double)s->loss_n : j->loss;
        s->loss_sum = 0;
        s->loss_n = 0;
        j->updates = s->updates;
        j->samples = (size_t)s->updates * (size_t)o->batch;
        j->wall_s = j->wall0 + t - s->start - s->paused_s;
        j->loss = loss;
        mb_run_row row = {.update = s->updates,
                          .epoch = (long)(j->samples / j->data->train.n),
                          .samples = j->samples, .wall_s = j->wall_s, .loss = loss};
        int rc = mb_run_mon_update(&j->mon, w->centre, &row, &s->stop, &w->err);
        if (rc != MB_OK)
            w->rc = rc;
        mb_run_mon_progress(&j->mon, s->updates, j->samples, j->wall_s, loss);
    }
}

/* Every learner still running is held (an evaluation or a checkpoint is due): log what is due;
 * when that makes a checkpoint due, ask the held learners for their records ("2"); write the
 * checkpoint; then tell each held learner "go on" (with the update count, the clock of its
 * learning rate) or "stop". The seconds this takes are paused_s. Returns the learners that
 * stopped. */
static int release(server *s, char *held, int pending, float **all)
{
    worker *w = s->w;
    job *j = w->j;
    int P = mb_comm_size(w->c), gone = 0, rc;
    double p0 = now_s();
    s->hold_eval = 0;
    log_due(s, p0, 1);
    if (!pending && s->every && w->rc == MB_OK && s->updates >= s->next_ck) {
        if (!*all && !(*all = malloc((size_t)P * j->rec * sizeof **all))) {
            fail(w, MB_ENOMEM, "checkpoint");
            par_abort(w);
            return P;
        }
        float ask[3] = {2, (float)(s->updates / U_SPLIT), (float)(s->updates % U_SPLIT)};
        for (int i = 1; i < P; i++)
            if (held[i] && ((rc = mb_comm_send(w->c, ask, 3, i, TAG_PULL)) != MB_OK ||
                            (rc = mb_comm_recv(w->c, *all + (size_t)i * j->rec, j->rec, i,
                                               TAG_CKPT, NULL)) != MB_OK)) {
                fail(w, rc, "checkpoint");
                par_abort(w);
                return P;
            }
        pending = 1;
    }
    if (pending && w->rc == MB_OK &&
        (rc = server_checkpoint(w, s->master, s->updates, s->steps, *all)) != MB_OK)
        w->rc = rc;
    float go[3] = {(float)(s->stop || w->rc != MB_OK), (float)(s->updates / U_SPLIT),
                   (float)(s->updates % U_SPLIT)};
    for (int i = 1; i < P; i++) {
        if (!held[i])
            continue;
        if ((rc = mb_comm_send(w->c, go, 3, i, TAG_PULL)) != MB_OK) {
            fail(w, rc, "send");
            par_abort(w);
            return P;
        }
        gone += go[0] != 0;
    }
    memset(held, 0, (size_t)P);
    if (pending)
        s->next_ck = (s->updates / s->every + 1) * s->every;
    s->paused_s += now_s() - p0;
    return gone;
}

/* Rank 0 of DOWNPOUR, async EASGD, EAMSGD: the centre; the learners' pushes first come, first
 * served; the monitor each time M samples' worth of learner steps have been reported. A message
 * is n floats then (steps, loss sum, push); a reply is n floats then (stop, updates / 2^20,
 * updates mod 2^20, hold: 0 go on, 1 checkpoint, 2 wait for an evaluation): the update count is
 * the learners' clock for the learning-rate schedule. A held learner waits for (go, updates as
 * two floats). wall_s is the server's clock less the seconds every learner was held. */
void par_run_server(worker *w)
{
    job *j = w->j;
    const mb_run_options *o = j->o;
    const size_t n = j->n;
    float *c = w->centre, *msg = w->buf, *reply = w->aux, *all = NULL;
    int P = mb_comm_size(w->c), active = P - 1, paused = 0, pending = 0;
    server s = {.w = w, .steps = j->steps0, .updates = j->updates0, .start = now_s(),
                .every = o->checkpoint_path ? o->checkpoint_every : 0};
    s.stop = j->mon.bound > 0 && s.updates >= j->mon.bound;
    s.next_ck = s.every ? (s.updates / s.every + 1) * s.every : 0;
    char *held = calloc((size_t)P, 1); /* learners held for a checkpoint or an evaluation */
    /* DOWNPOUR's master optimiser: SGD, or momentum / Nesterov at the master (Dean et al.);
     * without weight decay, which the learners' gradients carry (par_grad) */
    mb_optim_params mp = o->optim;
    mp.weight_decay = 0;
    if (!held || (o->par == MB_PAR_DOWNPOUR && mb_optim_create(&mp, n, &s.master, &w->err) != MB_OK)) {
        fail(w, w->err.status ? w->err.status : MB_ENOMEM, "server");
        free(held);
        par_abort(w);
        return;
    }
    if (s.master && w->rec && mb_optim_state(s.master)) /* resumed: the master's velocity */
        memcpy(mb_optim_state(s.master), w->rec + n, n * sizeof(float));
    while (active > 0) {
        int from = -1, rc;
        double tw = now_s();
        if ((rc = mb_comm_recv(w->c, msg, n + 3, MB_COMM_ANY, TAG_PUSH, &from)) != MB_OK) {
            fail(w, rc, "receive");
            par_abort(w);
            break;
        }
        s.idle_s += now_s() - tw;
        if (o->par == MB_PAR_DOWNPOUR) { /* a push: x~ <- x~ - eta sum, or --optim's step on
                                          * it, at the rate of the update under way; a fetch
                                          * alone (the first exchange) makes no master step */
            if (msg[n + 2] != 0) {
                mb_optim_set_updates(s.master, s.updates);
                mb_optim_step(s.master, c, msg);
            }
            memcpy(reply, c, n * sizeof *c);
        } else { /* the learner takes e = alpha (x^i - x~) from the old centre, as here */
            const float a = (float)j->alpha;
            memcpy(reply, c, n * sizeof *c);
            for (size_t k = 0; k < n; k++)
                c[k] += a * (msg[k] - reply[k]);
        }
        s.steps += (long)msg[n];
        s.loss_sum += msg[n + 1];
        s.loss_n += (long)msg[n];
        if (!s.hold_eval)
            log_due(&s, now_s(), 0);
        /* a checkpoint due is taken before the learners stop, so a run ends with one at its
         * bound as the lockstep ones do */
        if (s.every && !pending && !s.hold_eval && w->rc == MB_OK && s.updates >= s.next_ck) {
            if (!all && !(all = malloc((size_t)P * j->rec * sizeof *all))) {
                fail(w, MB_ENOMEM, "checkpoint");
                par_abort(w);
                break;
            }
            pending = 1;
        }
        int hold = pending ? 1 : s.hold_eval ? 2 : 0;
        reply[n] = (s.stop || w->rc != MB_OK) && !hold;
        reply[n + 1] = (float)(s.updates / U_SPLIT);
        reply[n + 2] = (float)(s.updates % U_SPLIT);
        reply[n + 3] = (float)hold;
        if ((rc = mb_comm_send(w->c, reply, n + 4, from, TAG_PULL)) != MB_OK) {
            fail(w, rc, "send");
            par_abort(w);
            break;
        }
        if (reply[n] != 0) {
            active--;
        } else if (hold == 1) {
            if ((rc = mb_comm_recv(w->c, all + (size_t)from * j->rec, j->rec, from, TAG_CKPT,
                                   NULL)) != MB_OK) {
                fail(w, rc, "checkpoint");
                par_abort(w);
                break;
            }
        }
        if (hold) {
            held[from] = 1;
            paused++;
        }
        if (hold && paused == active) { /* every learner still running waits */
            active -= release(&s, held, pending, &all);
            paused = pending = 0;
        }
    }
    j->ckpt_s = 0; /* inside paused_s */
    j->server_idle_s = s.idle_s;
    j->paused_s = s.paused_s;
    mb_optim_free(s.master);
    free(all);
    free(held);
    memcpy(j->model, c, n * sizeof *c);
}

/* A learner of the server algorithms, the rules of docs/algorithms.md:
 *   async EASGD and EAMSGD (Zhang et al., Algorithms 1 and 2): at local step t, with x the copy
 *     of x^i from before the step: when tau divides t, push x^i and get the old x~;
 *     e = alpha (x - x~) (the server moves x~ by the same e); then the local step at x, applied
 *     to the exchanged x^i - e: SGD x^i <- x^i - e - eta g(x), or EAMSGD's Nesterov
 *     v <- delta v - eta g(x + delta v); x^i <- x^i - e + v. With --grad-after-exchange the
 *     exchange is applied first and the gradient taken there (mbkit's rule before issue 28).
 *   DOWNPOUR (Dean et al.): local SGD steps whose gradients are summed; every n_push steps the
 *     sum goes to the server (x~ -= eta sum, or --optim's step), every n_fetch steps (from step
 *     0) x^i <- x~. One message carries both when both are due.
 * The learning rate of a local step is the schedule's at the update it belongs to: the server's
 * count at the last exchange plus the local steps since (p learners of M/p samples, each step
 * is one update's worth of this learner's share; exact with one learner, an estimate when the
 * learners' speeds differ). */
void par_run_async_learner(worker *w)
{
    job *j = w->j;
    const mb_run_options *o = j->o;
    const size_t n = j->n;
    float *x = mb_net_params(w->l.net), *g = mb_net_grads(w->l.net), *msg = w->buf;
    float *v = w->aux, *keep = w->centre; /* EAMSGD's velocity; x while g is taken ahead */
    float *reply = malloc((n + 4) * sizeof *reply);
    const float a = (float)j->alpha, delta = (float)j->mu;
    const int downpour = o->par == MB_PAR_DOWNPOUR;
    const long np = downpour && o->n_push ? o->n_push : o->tau;
    const long nf = downpour && o->n_fetch ? o->n_fetch : o->tau;
    /* Zhang et al.: the gradient at the copy from before the exchange */
    const int before = !downpour && !o->grad_after_exchange;
    double loss_sum = 0;
    /* steps since the last report; the update of the next step (a resumed learner's own) */
    long since = 0, u = w->skip_exchange ? w->u_next : 0;
    if (!reply || (o->checkpoint_path && !w->rec && !(w->rec = malloc(j->rec * sizeof *w->rec)))) {
        free(reply);
        fail(w, MB_ENOMEM, "learner");
        par_abort(w);
        return;
    }
    for (long t = w->skip_exchange ? w->next_t : 0;; t++) {
        double t0 = now_s();
        int rc = MB_OK, exchanged = 0;
        /* DOWNPOUR pushes a sum only once it holds steps; EASGD exchanges every tau steps */
        int push = downpour ? t > 0 && t % np == 0 : t % o->tau == 0;
        int fetch = downpour ? t % nf == 0 : push;
        if ((push || fetch) && w->skip_exchange) {
            w->skip_exchange = 0; /* resumed right after this exchange, with its e */
            if (before) {
                memcpy(reply, w->centre, n * sizeof *reply);
                exchanged = 1;
            }
        } else if (push || fetch) {
            if (downpour) {
                memcpy(msg, v, n * sizeof *v); /* the gradient sum */
                if (push)
                    memset(v, 0, n * sizeof *v);
            } else {
                memcpy(msg, x, n * sizeof *x);
            }
            msg[n] = (float)since;
            msg[n + 1] = (float)loss_sum;
            msg[n + 2] = (float)push;
            since = 0;
            loss_sum = 0;
            lap(w, T_UPDATE, &t0);
            if ((rc = mb_comm_send(w->c, msg, n + 3, 0, TAG_PUSH)) != MB_OK ||
                (rc = mb_comm_recv(w->c, reply, n + 4, 0, TAG_PULL, NULL)) != MB_OK) {
                fail(w, rc, "exchange with the server");
                par_abort(w);
                break;
            }
            lap(w, T_COMM, &t0);
            if (reply[n] != 0)
                break;
            u = (long)reply[n + 1] * U_SPLIT + (long)reply[n + 2];
            if (downpour) {
                if (fetch)
                    memcpy(x, reply, n * sizeof *x);
            } else if (before) {
                mb_par_elastic_term(x, reply, n, a); /* reply <- e; x^i is moved after g */
                exchanged = 1;
            } else {
                mb_par_elastic(x, reply, n, a); /* the reply's copy of x~ moves as the server's did */
            }
            lap(w, T_UPDATE, &t0);
            /* held (1: a checkpoint, send the record first; 2: an evaluation): wait for the
             * word, which may ask for the record after all ("2": a checkpoint came due) */
            float go[3] = {0, 0, 0};
            int ck = reply[n + 3] == 1;
            long uc = u; /* the clock the record carries */
            while (reply[n + 3] != 0 && rc == MB_OK) {
                if (ck) {
                    if (exchanged) /* e goes in the record's centre block (unused here): a
                                    * resumed learner takes this step from x with the same e */
                        memcpy(w->centre, reply, n * sizeof *reply);
                    w->u_next = uc;
                    w->next_t = t;
                    par_pack(w, w->rec);
                    if ((rc = mb_comm_send(w->c, w->rec, j->rec, 0, TAG_CKPT)) != MB_OK)
                        break;
                }
                if ((rc = mb_comm_recv(w->c, go, 3, 0, TAG_PULL, NULL)) != MB_OK)
                    break;
                uc = (long)go[1] * U_SPLIT + (long)go[2];
                if (!(ck = go[0] == 2))
                    break;
            }
            if (rc != MB_OK) {
                fail(w, rc, "held by the server");
                par_abort(w);
                break;
            }
            if (reply[n + 3] != 0) {
                lap(w, T_WAIT, &t0);
                if (go[0] != 0)
                    break;
                u = uc;
            }
        }
        long epoch;
        double loss;
        mb_learner_gather(&w->l, &j->data->train, &epoch);
        lap(w, T_DATA, &t0);
        if (o->par == MB_PAR_EAMSGD)
            mb_par_nesterov_lookahead(x, keep, v, n, delta);
        if ((rc = par_grad(w, &loss)) != MB_OK) {
            fail(w, rc, "gradient");
            par_abort(w);
            break;
        }
        lap(w, T_COMPUTE, &t0);
        const float eta = eta_at(j, u++);
        if (o->par == MB_PAR_EAMSGD) {
            if (exchanged)
                for (size_t k = 0; k < n; k++)
                    keep[k] -= reply[k]; /* x^i - e */
            mb_par_nesterov_step(x, keep, v, g, n, eta, delta);
        } else {
            mb_par_async_sgd(x, g, exchanged ? reply : NULL, n, eta);
            if (downpour)
                for (size_t k = 0; k < n; k++)
                    v[k] += g[k];
        }
        lap(w, T_UPDATE, &t0);
        since++;
        loss_sum += loss;
    }
    free(reply);
}

/* Hogwild EASGD: learner threads exchange with the shared centre without a lock. The steps of
 * one logged update run concurrently and unordered; a step of the next waits for the watcher to
 * log this one (see the claim below), so the log is of the centre after every M samples. */
void par_run_hogwild_learner(worker *w)
{
    job *j = w->j;
    const mb_run_options *o = j->o;
    const size_t n = j->n;
    float *x = mb_net_params(w->l.net), *g = mb_net_grads(w->l.net), *c = j->shared;
    float *e = w->buf; /* the elastic terms of an exchange, applied after the gradient */
    const float a = (float)j->alpha;
    const int before = !o->grad_after_exchange; /* Zhang et al.'s Algorithm 1 */
    const long per_update = (long)o->batch / j->m; /* learner steps per logged update */
    for (long t = w->next_t; !__atomic_load_n(&j->stop, __ATOMIC_ACQUIRE); t++) {
        /* a step belongs to update claim / per_update + 1; it waits until the watcher has logged
         * the one before, so that each logged centre is the one after exactly M samples and no
         * learner runs on while the watcher evaluates (whose seconds are not training time) */
        long claim = __atomic_fetch_add(&j->claimed, 1, __ATOMIC_ACQ_REL);
        while (claim / per_update > __atomic_load_n(&j->logged, __ATOMIC_ACQUIRE) &&
               !__atomic_load_n(&j->stop, __ATOMIC_ACQUIRE)) {
            struct timespec ts = {0, 20000};
            nanosleep(&ts, NULL);
        }
        if (__atomic_load_n(&j->stop, __ATOMIC_ACQUIRE))
            break;
        double t0 = now_s(), loss;
        int exchanged = t % o->tau == 0;
        if (exchanged) { /* e = alpha (x - x~); x~ += e now; x^i -= e now or after g */
            for (size_t k = 0; k < n; k++) {
                float ck, xk = x[k];
                __atomic_load(&c[k], &ck, __ATOMIC_RELAXED);
                float ek = a * (xk - ck), nc = ck + ek;
                if (before)
                    e[k] = ek;
                else
                    x[k] = xk - ek;
                __atomic_store(&c[k], &nc, __ATOMIC_RELAXED);
            }
            lap(w, T_COMM, &t0); /* the exchange is this method's communication */
        }
        long epoch;
        mb_learner_gather(&w->l, &j->data->train, &epoch);
        lap(w, T_DATA, &t0);
        int rc = par_grad(w, &loss);
        if (rc != MB_OK) { /* everyone stops; the watcher sees every learner done */
            fail(w, rc, "gradient");
            __atomic_store_n(&j->stop, 1, __ATOMIC_RELEASE);
            break;
        }
        lap(w, T_COMPUTE, &t0);
        const float eta = eta_at(j, claim / per_update); /* the update this step is part of */
        mb_par_async_sgd(x, g, exchanged && before ? e : NULL, n, eta);
        lap(w, T_UPDATE, &t0);
        pthread_mutex_lock(&j->mu_loss);
        j->loss_sum += loss;
        j->loss_n++;
        pthread_mutex_unlock(&j->mu_loss);
        w->next_t = t + 1; /* what a checkpoint keeps: published by the release below */
        __atomic_add_fetch(&j->steps, 1, __ATOMIC_RELEASE);
    }
    __atomic_add_fetch(&j->done_learners, 1, __ATOMIC_RELEASE);
}

/* Hogwild's checkpoint, taken by the watcher after logging update `updates` and before letting
 * the next update's steps begin: every learner has finished its steps of the updates so far and
 * waits at the claim gate (or is about to), so the shared centre, their parameters, cursors and
 * local step counts are one consistent state, read here directly (one process). */
static int hogwild_checkpoint(worker *w, long updates)
{
    job *j = w->j;
    int P = mb_comm_size(w->c);
    if (!w->rec && !(w->rec = malloc((size_t)P * j->rec * sizeof *w->rec)))
        return mb_error_set(&w->err, MB_ENOMEM, "out of memory for a checkpoint");
    double t0 = now_s();
    for (size_t k = 0; k < j->n; k++)
        __atomic_load(&j->shared[k], &w->centre[k], __ATOMIC_RELAXED);
    for (int i = 0; i < P; i++)
        par_pack(&j->ws[i], w->rec + (size_t)i * j->rec);
    size_t saved;
    int rc = mb_run_mon_ckpt_rows(&j->mon, &saved, &w->err);
    if (rc != MB_OK)
        return rc;
    rc = par_write_learners(w, updates, j->samples, j->wall_s,
                            __atomic_load_n(&j->steps, __ATOMIC_ACQUIRE), w->rec);
    mb_run_mon_ckpt_done(&j->mon, saved);
    j->ckpt_s += now_s() - t0;
    return rc;
}

/* Hogwild's rank 0: hands the monitor a copy of the centre each M samples of learner steps. */
void par_run_hogwild_watch(worker *w)
{
    job *j = w->j;
    const mb_run_options *o = j->o;
    long updates = j->updates0;
    int stop = j->mon.bound > 0 && updates >= j->mon.bound, learners = mb_comm_size(w->c) - 1;
    /* the learners' first steps wait for this clock (j->logged starts one short): a step
     * taken before it would be training time the log never counts (update 1 logged at 0 s) */
    double start = now_s();
    __atomic_store_n(&j->logged, updates, __ATOMIC_RELEASE);
    while (!stop) {
        long s = __atomic_load_n(&j->steps, __ATOMIC_ACQUIRE);
        if (s * (long)j->m < (updates + 1) * (long)o->batch) {
            if (__atomic_load_n(&j->done_learners, __ATOMIC_ACQUIRE) == learners)
                break; /* a learner failed */
            struct timespec ts = {0, 100000};
            nanosleep(&ts, NULL);
            continue;
        }
        for (size_t k = 0; k < j->n; k++)
            __atomic_load(&j->shared[k], &j->model[k], __ATOMIC_RELAXED);
        pthread_mutex_lock(&j->mu_loss);
        double loss = j->loss_n ? j->loss_sum / (double)j->loss_n : j->loss;
        j->loss_sum = 0;
        j->loss_n = 0;
        pthread_mutex_unlock(&j->mu_loss);
        updates++;
        j->updates = updates;
        j->samples = (size_t)updates * (size_t)o->batch;
        j->wall_s = j->wall0 + now_s() - start - j->mon.eval_s - j->mon.snap_s - j->ckpt_s;
        j->loss = loss;
        mb_run_row row = {.update = updates, .epoch = (long)(j->samples / j->data->train.n),
                          .samples = j->samples, .wall_s = j->wall_s, .loss = loss};
        if ((w->rc = mb_run_mon_update(&j->mon, j->model, &row, &stop, &w->err)) != MB_OK)
            stop = 1;
        if (w->rc == MB_OK && o->checkpoint_path && updates % o->checkpoint_every == 0 &&
            (w->rc = hogwild_checkpoint(w, updates)) != MB_OK)
            stop = 1;
        if (stop)
            __atomic_store_n(&j->stop, 1, __ATOMIC_RELEASE);
        __atomic_store_n(&j->logged, updates, __ATOMIC_RELEASE);
        mb_run_mon_progress(&j->mon, updates, j->samples, j->wall_s, loss);
    }
    __atomic_store_n(&j->stop, 1, __ATOMIC_RELEASE);
}

