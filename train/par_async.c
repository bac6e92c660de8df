/* par_async.c — the asynchronous parallel learners (par_impl.h): DOWNPOUR, asynchronous EASGD
 * and EAMSGD against a server on rank 0 (first come, first served), and Hogwild EASGD's learner
 * threads with their watcher. The lockstep algorithms, the set-up and the checkpoints are in
 * par.c; the rules in par_rules.c.
 */
#include "par_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The server's update count travels in a float message as two floats, each exact (< 2^24). */
#define U_SPLIT 1048576L

/* Rank 0 of DOWNPOUR, async EASGD, EAMSGD: the centre; the learners' pushes first come, first
 * served; the monitor each time M samples' worth of learner steps have been reported. A message
 * is n floats then (steps, loss sum); a reply is n floats then (stop, updates / 2^20,
 * updates mod 2^20): the update count is the learners' clock for the learning-rate schedule. */
void par_run_server(worker *w)
{
    job *j = w->j;
    const mb_run_options *o = j->o;
    const size_t n = j->n;
    float *c = w->centre, *msg = w->buf, *reply = w->aux;
    int active = mb_comm_size(w->c) - 1, stop = j->mon.bound > 0 && 0 >= j->mon.bound;
    double start = now_s(), loss_sum = 0;
    /* DOWNPOUR's master optimiser: SGD, or momentum / Nesterov at the master (Dean et al.) */
    mb_optim *master = NULL;
    if (o->par == MB_PAR_DOWNPOUR && mb_optim_create(&o->optim, n, &master, &w->err) != MB_OK) {
        w->rc = w->err.status ? w->err.status : MB_ENOMEM;
        mb_comm_abort(w->c, 1);
        return;
    }
    long steps = 0, loss_n = 0, updates = 0;
    while (active > 0) {
        int from = -1, rc;
        if ((rc = mb_comm_recv(w->c, msg, n + 2, MB_COMM_ANY, TAG_PUSH, &from)) != MB_OK) {
            fail(w, rc, "receive");
            mb_comm_abort(w->c, 1);
            break;
        }
        if (o->par == MB_PAR_DOWNPOUR) { /* x~ <- x~ - eta sum, or --optim's step on it, at
                                          * the rate of the update under way */
            mb_optim_set_updates(master, updates);
            mb_optim_step(master, c, msg);
            memcpy(reply, c, n * sizeof *c);
        } else { /* the learner takes e = alpha (x^i - x~) from the old centre, as here */
            const float a = (float)j->alpha;
            memcpy(reply, c, n * sizeof *c);
            for (size_t k = 0; k < n; k++)
                c[k] += a * (msg[k] - reply[k]);
        }
        steps += (long)msg[n];
        loss_sum += msg[n + 1];
        loss_n += (long)msg[n];
        while (!stop && w->rc == MB_OK && steps * (long)j->m >= (updates + 1) * (long)o->batch) {
            updates++;
            /* several updates' worth at once share the steps' mean loss */
            double loss = loss_n ? loss_sum / (double)loss_n : j->loss;
            loss_sum = 0;
            loss_n = 0;
            j->updates = updates;
            j->samples = (size_t)updates * (size_t)o->batch;
            j->wall_s = now_s() - start - j->mon.eval_s - j->mon.snap_s;
            j->loss = loss;
            mb_run_row row = {.update = updates,
                              .epoch = (long)(j->samples / j->data->train.n),
                              .samples = j->samples, .wall_s = j->wall_s, .loss = loss};
            if ((rc = mb_run_mon_update(&j->mon, c, &row, &stop, &w->err)) != MB_OK)
                w->rc = rc;
            mb_run_mon_progress(&j->mon, updates, j->samples, j->wall_s, loss);
        }
        reply[n] = stop || w->rc != MB_OK;
        reply[n + 1] = (float)(updates / U_SPLIT);
        reply[n + 2] = (float)(updates % U_SPLIT);
        if ((rc = mb_comm_send(w->c, reply, n + 3, from, TAG_PULL)) != MB_OK) {
            fail(w, rc, "send");
            mb_comm_abort(w->c, 1);
            break;
        }
        if (reply[n] != 0)
            active--;
    }
    mb_optim_free(master);
    memcpy(j->model, c, n * sizeof *c);
}

/* A learner of the server algorithms. Async EASGD and EAMSGD: every tau local steps, push x^i,
 * get the old x~, x^i -= alpha (x^i - x~); then the local step (SGD, or EAMSGD's Nesterov
 * v <- delta v - eta g(x + delta v); x <- x + v). DOWNPOUR: local SGD steps whose gradients are
 * summed; every tau steps the sum goes to the server (x~ -= eta sum) and x^i <- x~..
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
    float *reply = malloc((n + 3) * sizeof *reply);
    const float a = (float)j->alpha, delta = (float)j->mu;
    double loss_sum = 0;
    long since = 0, u = 0; /* steps since the last report; the update of the next step */
    if (!reply) {
        fail(w, MB_ENOMEM, "learner");
        mb_comm_abort(w->c, 1);
        return;
    }
    for (long t = 0;; t++) {
        double t0 = now_s();
        int rc;
        if (t % o->tau == 0) {
            if (o->par == MB_PAR_DOWNPOUR) {
                memcpy(msg, v, n * sizeof *v); /* the gradient sum */
                memset(v, 0, n * sizeof *v);
            } else {
                memcpy(msg, x, n * sizeof *x);
            }
            msg[n] = (float)since;
            msg[n + 1] = (float)loss_sum;
            since = 0;
            loss_sum = 0;
            lap(w, T_UPDATE, &t0);
            if ((rc = mb_comm_send(w->c, msg, n + 2, 0, TAG_PUSH)) != MB_OK ||
                (rc = mb_comm_recv(w->c, reply, n + 3, 0, TAG_PULL, NULL)) != MB_OK) {
                fail(w, rc, "exchange with the server");
                mb_comm_abort(w->c, 1);
                break;
            }
            lap(w, T_COMM, &t0);
            if (reply[n] != 0)
                break;
            u = (long)reply[n + 1] * U_SPLIT + (long)reply[n + 2];
            if (o->par == MB_PAR_DOWNPOUR)
                memcpy(x, reply, n * sizeof *x);
            else
                mb_par_elastic(x, reply, n, a); /* the reply's copy of x~ moves as the server's did */
            lap(w, T_UPDATE, &t0);
        }
        long epoch;
        double loss;
        mb_learner_gather(&w->l, &j->data->train, &epoch);
        lap(w, T_DATA, &t0);
        if (o->par == MB_PAR_EAMSGD)
            mb_par_nesterov_lookahead(x, keep, v, n, delta);
        if ((rc = mb_learner_grad(&w->l, &loss, &w->err)) != MB_OK) {
            w->rc = rc;
            mb_comm_abort(w->c, 1);
            break;
        }
        lap(w, T_COMPUTE, &t0);
        const float eta = eta_at(j, u++);
        if (o->par == MB_PAR_EAMSGD) {
            mb_par_nesterov_step(x, keep, v, g, n, eta, delta);
        } else {
            for (size_t k = 0; k < n; k++)
                x[k] -= eta * g[k];
            if (o->par == MB_PAR_DOWNPOUR)
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
    const float a = (float)j->alpha;
    const long per_update = (long)o->batch / j->m; /* learner steps per logged update */
    for (long t = 0; !__atomic_load_n(&j->stop, __ATOMIC_ACQUIRE); t++) {
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
        if (t % o->tau == 0) {
            for (size_t k = 0; k < n; k++) {
                float ck, xk = x[k];
                __atomic_load(&c[k], &ck, __ATOMIC_RELAXED);
                float e = a * (xk - ck), nc = ck + e;
                x[k] = xk - e;
                __atomic_store(&c[k], &nc, __ATOMIC_RELAXED);
            }
            lap(w, T_COMM, &t0); /* the exchange is this method's communication */
        }
        long epoch;
        mb_learner_gather(&w->l, &j->data->train, &epoch);
        lap(w, T_DATA, &t0);
        if ((w->rc = mb_learner_grad(&w->l, &loss, &w->err)) != MB_OK)
            break;
        lap(w, T_COMPUTE, &t0);
        const float eta = eta_at(j, claim / per_update); /* the update this step is part of */
        for (size_t k = 0; k < n; k++)
            x[k] -= eta * g[k];
        lap(w, T_UPDATE, &t0);
        pthread_mutex_lock(&j->mu_loss);
        j->loss_sum += loss;
        j->loss_n++;
        pthread_mutex_unlock(&j->mu_loss);
        __atomic_add_fetch(&j->steps, 1, __ATOMIC_RELEASE);
    }
    __atomic_add_fetch(&j->done_learners, 1, __ATOMIC_RELEASE);
}

/* Hogwild's rank 0: hands the monitor a copy of the centre each M samples of learner steps. */
void par_run_hogwild_watch(worker *w)
{
    job *j = w->j;
    const mb_run_options *o = j->o;
    int stop = j->mon.bound > 0 && 0 >= j->mon.bound, learners = mb_comm_size(w->c) - 1;
    double start = now_s();
    long updates = 0;
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
        j->wall_s = now_s() - start - j->mon.eval_s - j->mon.snap_s;
        j->loss = loss;
        mb_run_row row = {.update = updates, .epoch = (long)(j->samples / j->data->train.n),
                          .samples = j->samples, .wall_s = j->wall_s, .loss = loss};
        if ((w->rc = mb_run_mon_update(&j->mon, j->model, &row, &stop, &w->err)) != MB_OK)
            stop = 1;
        if (stop)
            __atomic_store_n(&j->stop, 1, __ATOMIC_RELEASE);
        __atomic_store_n(&j->logged, updates, __ATOMIC_RELEASE);
        mb_run_mon_progress(&j->mon, updates, j->samples, j->wall_s, loss);
    }
    __atomic_store_n(&j->stop, 1, __ATOMIC_RELEASE);
}

