/* step.c — the step probe: train/'s real update, mb_learner_step (draw the next shuffled
 * mini-batch through the learner's cursor, forward, backward, optimiser step: the update mbtrain
 * runs), timed by the harness, for one or several learners per device.
 *
 * Several learners per device is the many-core case of You et al. (2017): the chip is split into
 * groups, each holding its own model copy and computing M / learners samples of the total
 * mini-batch M. Each copy is an mb_learner with its own cursor over the one shared data set.
 * Learner 0 runs on the calling thread, the others on worker threads that stay alive for the
 * probe's life; one update wakes them together and ends when the slowest is done, so a timed
 * call is one synchronous update of every copy.
 * The averaging between copies is not timed here: it is communication, measured by `mbprobe
 * comm` and fitted as T_update's delta.
 *
 * The data set is the caller's (mbprobe --data: the training set mbtrain draws from) or one
 * generated here, large enough that a shuffled batch is gathered from memory the caches do not
 * hold, as it is from a real data set. One learner steps several batch sizes
 * (mb_learner_set_batch): it is built for the largest.
 *
 * Does not: print, or decide the batch sizes (the command does).
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../data/mb_data.h"
#include "mb_probe.h"

/* A generated data set holds at least this many bytes of inputs: above the last-level caches of
 * the CPUs mbkit runs on (32 MiB measured here), so that gathering a shuffled batch misses them
 * as it does on a real training set (Fashion-MNIST: 188 MB). */
#define POOL_BYTES ((size_t)64 << 20)

typedef struct step_learner {
    mb_learner l;          /* the trainer's learner: network, optimiser, cursor */
    pthread_t thread;
    int started;           /* 1 once the worker thread exists (learners 1..) */
    int rc;                /* the last update's status */
    double loss;           /* the last update's loss */
    mb_error err;          /* the last update's error message */
} step_learner;

struct mb_probe_step {
    mb_probe_step_config cfg;
    mb_net_desc *desc;
    step_learner *L;       /* cfg.learners entries */
    const mb_dataset *data;/* what the learners draw from: cfg.data or `own` */
    mb_dataset own;        /* the data set when generated here */
    int sync;              /* 1 once mu and the condition variables are initialised */
    pthread_mutex_t mu;
    pthread_cond_t go;     /* signalled when `generation` moves or `quit` is set */
    pthread_cond_t done;   /* signalled when `pending` reaches 0 */
    unsigned long generation; /* updates started */
    int pending;           /* workers still busy with the current update */
    int quit;              /* 1: workers return */
};

/* Learner i's update: the trainer's step on its next shuffled batch. */
static void learner_update(mb_probe_step *s, int i)
{
    step_learner *l = &s->L[i];
    long epoch = 0;
    l->rc = mb_learner_step(&l->l, s->data, &l->loss, &epoch, &l->err);
}

typedef struct worker_arg {
    mb_probe_step *s;
    int index;
} worker_arg;

static void *worker(void *arg)
{
    mb_probe_step *s = ((worker_arg *)arg)->s;
    int i = ((worker_arg *)arg)->index;
    free(arg);
    unsigned long seen = 0;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (s->generation == seen && !s->quit)
            pthread_cond_wait(&s->go, &s->mu);
        if (s->quit)
            break;
        seen = s->generation;
        pthread_mutex_unlock(&s->mu);
        learner_update(s, i);
        pthread_mutex_lock(&s->mu);
        if (--s->pending == 0)
            pthread_cond_signal(&s->done);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* Runs one update on every learner: the workers on their threads, learner 0 here. */
static void update_all(mb_probe_step *s)
{
    if (!s->sync) {
        learner_update(s, 0);
        return;
    }
    pthread_mutex_lock(&s->mu);
    s->pending = s->cfg.learners - 1;
    s->generation++;
    pthread_cond_broadcast(&s->go);
    pthread_mutex_unlock(&s->mu);
    learner_update(s, 0);
    pthread_mutex_lock(&s->mu);
    while (s->pending > 0)
        pthread_cond_wait(&s->done, &s->mu);
    pthread_mutex_unlock(&s->mu);
}

void mb_probe_step_free(mb_probe_step *s)
{
    if (!s)
        return;
    if (s->sync) {
        pthread_mutex_lock(&s->mu);
        s->quit = 1;
        pthread_cond_broadcast(&s->go);
        pthread_mutex_unlock(&s->mu);
        for (int i = 1; i < s->cfg.learners; i++)
            if (s->L[i].started)
                pthread_join(s->L[i].thread, NULL);
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->go);
        pthread_cond_destroy(&s->done);
    }
    for (int i = 0; s->L && i < s->cfg.learners; i++)
        mb_learner_free(&s->L[i].l);
    free(s->L);
    mb_net_desc_free(s->desc);
    mb_dataset_free(&s->own);
    free(s);
}

/* A data set of n uniform inputs in [0, 1) of the net's shape and uniform labels, from the
 * seed. */
static int make_data(mb_probe_step *s, size_t n, mb_error *err)
{
    const mb_net_desc *d = s->desc;
    size_t per = (size_t)d->in_c * d->in_h * d->in_w;
    mb_dataset *o = &s->own;
    o->x = malloc(n * per * sizeof *o->x);
    o->y = malloc(n * sizeof *o->y);
    if (!o->x || !o->y)
        return mb_error_set(err, MB_ENOMEM, "step: out of memory for %zu samples", n);
    uint64_t rng = (uint64_t)s->cfg.seed ^ 0x5354455050524F42ull;
    for (size_t i = 0; i < n * per; i++)
        o->x[i] = mb_rng_uniformf(&rng);
    for (size_t i = 0; i < n; i++)
        o->y[i] = (int)mb_rng_below(&rng, (uint64_t)d->classes);
    o->n = n;
    o->c = d->in_c;
    o->h = d->in_h;
    o->w = d->in_w;
    o->classes = d->classes;
    s->data = o;
    return MB_OK;
}

static int check_config(const mb_probe_step_config *c, mb_error *err)
{
    if (!c->net || !*c->net)
        return mb_error_set(err, MB_EINVAL, "step: no network named");
    if (c->learners < 1)
        return mb_error_set(err, MB_EINVAL, "step: learners must be >= 1, got %d", c->learners);
    if (c->threads < 1)
        return mb_error_set(err, MB_EINVAL, "step: threads must be >= 1, got %d", c->threads);
    if (c->max_batch < c->learners)
        return mb_error_set(err, MB_EINVAL, "step: the largest batch (%d) is smaller than the "
                            "%d learners", c->max_batch, c->learners);
    if (!(c->optim.lr > 0) || !isfinite(c->optim.lr)) /* as mb_optim_create */
        return mb_error_set(err, MB_EINVAL, "step: learning rate %g is not > 0", c->optim.lr);
    return MB_OK;
}

int mb_probe_step_create(const mb_probe_step_config *c, mb_probe_step **out, mb_error *err)
{
    *out = NULL;
    int rc = check_config(c, err);
    if (rc != MB_OK)
        return rc;
    mb_probe_step *s = calloc(1, sizeof *s);
    if (!s)
        return mb_error_set(err, MB_ENOMEM, "step: out of memory");
    s->cfg = *c;
    if ((rc = mb_net_desc_read(c->net, &s->desc, err)) != MB_OK)
        goto fail;
    if (c->data) {
        const mb_dataset *d = c->data;
        if (d->c != s->desc->in_c || d->h != s->desc->in_h || d->w != s->desc->in_w ||
            d->classes > s->desc->classes) {
            rc = mb_error_set(err, MB_EINVAL, "step: the data's samples (%dx%dx%d, %d classes) "
                              "do not fit net '%s' (%dx%dx%d, %d classes)", d->c, d->h, d->w,
                              d->classes, s->desc->name, s->desc->in_c, s->desc->in_h,
                              s->desc->in_w, s->desc->classes);
            goto fail;
        }
        if (d->n < (size_t)c->max_batch) { /* as mbtrain: no batch larger than the set */
            rc = mb_error_set(err, MB_EINVAL, "step: batch %d is larger than the %zu samples "
                              "of the data", c->max_batch, d->n);
            goto fail;
        }
        s->data = d;
    } else {
        /* twice the largest batch and more than the caches hold (POOL_BYTES) */
        size_t per_bytes = (size_t)s->desc->in_c * s->desc->in_h * s->desc->in_w * sizeof(float);
        size_t n = (size_t)c->max_batch * 2 + 64;
        if (n < POOL_BYTES / per_bytes)
            n = POOL_BYTES / per_bytes;
        if ((rc = make_data(s, n, err)) != MB_OK)
            goto fail;
    }

    /* The device's threads are shared evenly by the copies, at least one each (the network
     * splits its batch over its own threads, as mbtrain runs it). Each copy is a learner as
     * mbtrain builds one, for its share of the largest batch. */
    s->L = calloc((size_t)c->learners, sizeof *s->L);
    if (!s->L) {
        rc = mb_error_set(err, MB_ENOMEM, "step: out of memory");
        goto fail;
    }
    mb_run_options ro;
    mb_run_options_init(&ro);
    ro.optim = c->optim;
    ro.batch = c->max_batch / c->learners;
    ro.threads = c->threads / c->learners > 0 ? c->threads / c->learners : 1;
    ro.conv_algo = c->conv_algo;
    for (int i = 0; i < c->learners; i++) {
        ro.seed = c->seed + (unsigned long)i;
        if ((rc = mb_learner_init(&s->L[i].l, s->desc, &ro, s->data->n, err)) != MB_OK)
            goto fail;
    }
    if (c->learners > 1) {
        if (pthread_mutex_init(&s->mu, NULL) != 0) {
            rc = mb_error_set(err, MB_ENOMEM, "step: cannot create the learners' lock");
            goto fail;
        }
        if (pthread_cond_init(&s->go, NULL) != 0) {
            pthread_mutex_destroy(&s->mu);
            rc = mb_error_set(err, MB_ENOMEM, "step: cannot create the learners' signal");
            goto fail;
        }
        if (pthread_cond_init(&s->done, NULL) != 0) {
            pthread_cond_destroy(&s->go);
            pthread_mutex_destroy(&s->mu);
            rc = mb_error_set(err, MB_ENOMEM, "step: cannot create the learners' signal");
            goto fail;
        }
        s->sync = 1;
        for (int i = 1; i < c->learners; i++) {
            worker_arg *arg = malloc(sizeof *arg);
            if (!arg) {
                rc = mb_error_set(err, MB_ENOMEM, "step: out of memory");
                goto fail;
            }
            arg->s = s;
            arg->index = i;
            if (pthread_create(&s->L[i].thread, NULL, worker, arg) != 0) {
                free(arg);
                rc = mb_error_set(err, MB_ENOMEM, "step: cannot start learner %d's thread", i);
                goto fail;
            }
            s->L[i].started = 1;
        }
    }
    *out = s;
    return MB_OK;
fail: /* workers that did start are waiting for an update: free() tells them to quit */
    mb_probe_step_free(s);
    return rc;
}

const mb_net_desc *mb_probe_step_description(const mb_probe_step *s)
{
    return s->desc;
}

mb_learner *mb_probe_step_learner(mb_probe_step *s, int i)
{
    return i >= 0 && i < s->cfg.learners ? &s->L[i].l : NULL;
}

int mb_probe_step_update(mb_probe_step *s, int batch, mb_error *err)
{
    int learners = s->cfg.learners;
    if (batch < learners || batch > s->cfg.max_batch || batch % learners != 0)
        return mb_error_set(err, MB_EINVAL, "step: batch %d cannot be split evenly over %d "
                            "learner%s (and must lie in [%d, %d])", batch, learners,
                            learners == 1 ? "" : "s", learners, s->cfg.max_batch);
    for (int i = 0; i < learners; i++) {
        int rc = mb_learner_set_batch(&s->L[i].l, batch / learners, err);
        if (rc != MB_OK)
            return rc;
    }
    update_all(s);
    for (int i = 0; i < learners; i++) {
        if (s->L[i].rc != MB_OK)
            return mb_error_set(err, s->L[i].rc, "step: learner %d: %s", i, s->L[i].err.msg);
        if (!isfinite(s->L[i].loss))
            return mb_error_set(err, MB_EDOM, "step: learner %d's loss is %g at batch %d: the "
                                "timed training diverged (lower the learning rate)", i,
                                (double)s->L[i].loss, batch);
    }
    return MB_OK;
}

typedef struct step_call {
    mb_probe_step *s;
    int batch;
    mb_error *err;
} step_call;

static int step_run(void *ctx)
{
    step_call *c = ctx;
    return mb_probe_step_update(c->s, c->batch, c->err);
}

int mb_probe_step_sweep(mb_probe_step *s, const int *batch, size_t n, const mb_probe_options *o,
                        size_t rounds, mb_probe_stats *st, mb_error *err)
{
    step_call *calls = calloc(n ? n : 1, sizeof *calls);
    mb_probe_task *tasks = calloc(n ? n : 1, sizeof *tasks);
    int rc = calls && tasks ? MB_OK : mb_error_set(err, MB_ENOMEM, "step: out of memory");
    for (size_t i = 0; i < n && rc == MB_OK; i++) {
        calls[i] = (step_call){s, batch[i], err};
        tasks[i] = (mb_probe_task){.run = step_run, .ctx = &calls[i]};
        rc = mb_probe_step_update(s, batch[i], err); /* checks the batch before timing starts */
    }
    if (rc == MB_OK)
        rc = mb_probe_time_rounds(tasks, n, o, rounds, st, err);
    free(calls);
    free(tasks);
    return rc;
}

int mb_probe_step_time(mb_probe_step *s, int batch, const mb_probe_options *o,
                       mb_probe_stats *st, mb_error *err)
{
    return mb_probe_step_sweep(s, &batch, 1, o, 1, st, err);
}

/* ---- the step table ---------------------------------------------------------------------------- */

void mb_probe_step_write_header(FILE *f)
{
    fputs("backend,net,batch,learners,threads,reps,t_median_s,t_min_s,t_p25_s,t_p75_s,t_max_s,"
          "samples_per_s,wide,stop,drift\n", f);
}

void mb_probe_step_write_row(FILE *f, const mb_probe_step_row *r)
{
    const mb_probe_stats *st = &r->st;
    fprintf(f, "%s,%s,%d,%d,%d,%zu,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%d,%s,%.3g\n", r->backend, r->net,
            r->batch, r->learners, r->threads, st->reps, st->median, st->min, st->p25, st->p75,
            st->max, st->median > 0 ? r->batch / st->median : NAN, st->wide,
            mb_probe_stop_name(st->why), st->drift);
}
