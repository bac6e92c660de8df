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
 * mb_probe_step_run is the whole sweep of `mbprobe step` (threads x learners x batch sizes) and
 * mb_probe_learners_run Crossbow's tuner over this step, so the command only parses and prints.
 *
 * Does not: print.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../data/mb_rng.h"
#include "../data/mb_dataset.h"
#include "mb_probe.h"
#include "../train/backend/mb_backend.h"
#include "../train/run/mb_run.h"

/* A generated data set holds at least this many bytes of inputs: above the last-level caches of
 * the CPUs mbkit runs on (32 MiB measured here), so that gathering a shuffled batch misses them
 * as it does on a real training set (Fashion-MNIST: 188 MB). */
#define POOL_BYTES ((size_t)64 << 20)

typedef struct step_learner {
    mb_learner l;          /* the trainer's learner: network, optimiser, cursor, and the
                              context its network computes with (l.ctx) */
    int rc;                /* the last update's status */
    double loss;           /* the last update's loss */
    mb_error err;          /* the last update's error message */
    float *first;          /* its parameters as built (host backends), to go back to when the
                              timed training diverges; NULL where they cannot be restored */
    long since;            /* its finite updates since its last restart */
    int quick;             /* its restarts in a row that came within MB_PROBE_STEP_QUICK
                              updates of the one before */
} step_learner;

struct mb_probe_step {
    mb_probe_step_config cfg;
    const mb_net_desc *desc; /* cfg.desc, or own_desc */
    mb_net_desc *own_desc;   /* the description read here when cfg.desc is NULL */
    step_learner *L;       /* cfg.learners entries */
    mb_ctx *pool;          /* a CPU context whose pool of cfg.learners host threads runs the
                              learners' updates (each drives its own learner's device) */
    const mb_dataset *data;/* what the learners draw from: cfg.data or `own` */
    mb_dataset own;        /* the data set when generated here */
    long restarts;         /* times a learner went back to its first parameters */
};

/* Learner w's update (a part of mb_ctx_run): the trainer's step on its next shuffled batch,
 * finished on its device. */
static void learner_update(void *arg, int w)
{
    mb_probe_step *s = arg;
    step_learner *l = &s->L[w];
    long epoch = 0;
    l->rc = mb_learner_step(&l->l, s->data, &l->loss, &epoch, &l->err);
    mb_ctx_sync(l->l.ctx);
}

void mb_probe_step_free(mb_probe_step *s)
{
    if (!s)
        return;
    for (int i = 0; s->L && i < s->cfg.learners; i++) {
        mb_learner_free(&s->L[i].l);
        free(s->L[i].first);
    }
    free(s->L);
    mb_ctx_free(s->pool);
    mb_net_desc_free(s->own_desc);
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
        return mb_error_set(err, MB_ENOMEM, "out of memory for %zu samples", n);
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
        return mb_error_set(err, MB_EINVAL, "no network named");
    if (c->learners < 1)
        return mb_error_set(err, MB_EINVAL, "learners must be >= 1, got %d", c->learners);
    if (c->threads < 1)
        return mb_error_set(err, MB_EINVAL, "threads must be >= 1, got %d", c->threads);
    if (c->max_batch < c->learners)
        return mb_error_set(err, MB_EINVAL, "the largest batch (%d) is smaller than the "
                            "%d learners", c->max_batch, c->learners);
    if (!(c->optim.lr > 0) || !isfinite(c->optim.lr)) /* as mb_optim_create */
        return mb_error_set(err, MB_EINVAL, "learning rate %g is not > 0", c->optim.lr);
    return MB_OK;
}

/* A learner on host memory keeps its parameters as built (first), so that a timed training
 * that diverges goes on timing the step from there rather than on non-finite values (which
 * time differently, and the step, not the training, is what the probe measures). */
static int keep_first(step_learner *l, mb_error *err)
{
    if (l->l.host_params) /* a device learner's velocity is on the device: not restorable */
        return MB_OK;
    const size_t n = mb_net_param_count(l->l.net);
    if (!(l->first = malloc((n ? n : 1) * sizeof *l->first))) {
        mb_net_oom(l->l.net, err); /* the batch's activations took the room */
        return MB_ENOMEM;
    }
    mb_net_read_params(l->l.net, l->first);
    return MB_OK;
}

/* Learner l back to its first parameters, its velocity 0 and its schedule at update 0. */
static void restart(step_learner *l)
{
    float *v = mb_optim_state(l->l.opt);
    mb_net_write_params(l->l.net, l->first);
    if (v)
        memset(v, 0, mb_net_param_count(l->l.net) * sizeof *v);
    mb_optim_set_updates(l->l.opt, 0);
}

long mb_probe_step_restarts(const mb_probe_step *s)
{
    return s->restarts;
}

/* Whether the data's samples fit the net and the set holds a batch of `batch` (as mbtrain: no
 * batch larger than the set). */
static int data_fits(const mb_net_desc *desc, const mb_dataset *d, int batch, mb_error *err)
{
    if (d->c != desc->in_c || d->h != desc->in_h || d->w != desc->in_w ||
        d->classes > desc->classes)
        return mb_error_set(err, MB_EINVAL, "the data's samples (%dx%dx%d, %d classes) do not "
                            "fit net '%s' (%dx%dx%d, %d classes)", d->c, d->h, d->w, d->classes,
                            desc->name, desc->in_c, desc->in_h, desc->in_w, desc->classes);
    if (d->n < (size_t)batch)
        return mb_error_set(err, MB_EINVAL, "batch %d is larger than the %zu samples of the data",
                            batch, d->n);
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
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    s->cfg = *c;
    /* read once by the caller where it may be a FIFO (every configuration would read it) */
    if (!c->desc && (rc = mb_net_desc_read(c->net, &s->own_desc, err)) != MB_OK)
        goto fail;
    s->desc = c->desc ? c->desc : s->own_desc;
    if (c->data) {
        if ((rc = data_fits(s->desc, c->data, c->max_batch, err)) != MB_OK)
            goto fail;
        s->data = c->data;
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
     * splits its batch over its context's threads, as mbtrain runs it). Each copy is a learner
     * as mbtrain builds one, for its share of the largest batch, on its own context. */
    mb_ctx_options co;
    mb_ctx_options_init(&co);
    co.threads = c->learners; /* host threads that drive the learners: a CPU context's pool */
    if ((rc = mb_ctx_create(&co, &s->pool, err)) != MB_OK)
        goto fail;
    s->L = calloc((size_t)c->learners, sizeof *s->L);
    if (!s->L) {
        rc = mb_error_set(err, MB_ENOMEM, "out of memory");
        goto fail;
    }
    mb_run_options ro;
    mb_run_options_init(&ro);
    ro.optim = c->optim;
    ro.batch = c->max_batch / c->learners;
    ro.no_eval = 1; /* timed steps only: no evaluation chunk (campaign 42, F4) */
    ro.threads = mb_probe_step_threads_run(c->threads, c->learners) / c->learners;
    ro.backend = c->backend;
    ro.device = c->device;
    ro.conv_algo = c->conv_algo;
    for (int i = 0; i < c->learners; i++) {
        ro.seed = c->seed + (unsigned long)i;
        if ((rc = mb_learner_init(&s->L[i].l, s->desc, &ro, s->data->n, err)) != MB_OK)
            goto fail;
        if ((rc = keep_first(&s->L[i], err)) != MB_OK)
            goto fail;
    }
    *out = s;
    return MB_OK;
fail:
    mb_probe_step_free(s);
    return rc;
}

int mb_probe_step_threads_run(int threads, int learners)
{
    return learners * (threads / learners > 0 ? threads / learners : 1);
}

const mb_net_desc *mb_probe_step_description(const mb_probe_step *s)
{
    return s->desc;
}

const char *mb_probe_step_backend(const mb_probe_step *s)
{
    return mb_backend_name(mb_ctx_backend(s->L[0].l.ctx));
}

const char *mb_probe_step_device(const mb_probe_step *s)
{
    return mb_ctx_device_name(s->L[0].l.ctx);
}

mb_learner *mb_probe_step_learner(mb_probe_step *s, int i)
{
    return i >= 0 && i < s->cfg.learners ? &s->L[i].l : NULL;
}

int mb_probe_step_update(mb_probe_step *s, int batch, mb_error *err)
{
    int learners = s->cfg.learners;
    if (batch < learners || batch > s->cfg.max_batch || batch % learners != 0)
        return mb_error_set(err, MB_EINVAL, "batch %d cannot be split evenly over %d "
                            "learner%s (and must lie in [%d, %d])", batch, learners,
                            learners == 1 ? "" : "s", learners, s->cfg.max_batch);
    for (int i = 0; i < learners; i++) {
        int rc = mb_learner_set_batch(&s->L[i].l, batch / learners, err);
        if (rc != MB_OK)
            return rc;
    }
    mb_ctx_run(s->pool, learners, learner_update, s);
    for (int i = 0; i < learners; i++) {
        if (s->L[i].rc != MB_OK)
            return mb_error_set(err, s->L[i].rc, "learner %d: %s", i, s->L[i].err.msg);
        step_learner *l = &s->L[i];
        if (isfinite(l->loss)) {
            l->since++;
            continue;
        }
        /* a rate that diverges again right after every restart is a bad rate, whatever the
         * number of steps a budget times (a count of restarts alone ended a fast machine's
         * probe and not a slow one's) */
        l->quick = l->since <= MB_PROBE_STEP_QUICK ? l->quick + 1 : 1;
        if (!l->first || l->quick > MB_PROBE_STEP_QUICK_TIMES)
            return mb_error_set(err, MB_EDOM, "learner %d's loss is %g at batch %d: the "
                                "timed training diverged%s (lower the learning rate)", i,
                                (double)l->loss, batch,
                                l->first ? ", again right after each restart" : "");
        restart(l);
        l->since = 0;
        s->restarts++;
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
    int rc = calls && tasks ? MB_OK : mb_error_set(err, MB_ENOMEM, "out of memory");
    mb_error inner = {0}; /* what a timed update says went wrong (a diverged loss) */
    for (size_t i = 0; i < n && rc == MB_OK; i++) {
        calls[i] = (step_call){s, batch[i], &inner};
        tasks[i] = (mb_probe_task){.run = step_run, .ctx = &calls[i]};
        rc = mb_probe_step_update(s, batch[i], err); /* checks the batch before timing starts */
    }
    if (rc == MB_OK && (rc = mb_probe_time_rounds(tasks, n, o, rounds, st, err)) != MB_OK &&
        inner.msg[0] && err) /* the update's own message, not "the callback failed" */
        *err = inner;
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
          "samples_per_s,wide,stop,drift,device\n", f);
}

/* A copy of `s` with commas and newlines (CSV-unsafe) replaced by ';' and ' '. */
static void csv_clean(char *dst, size_t n, const char *s)
{
    snprintf(dst, n, "%s", s);
    for (char *p = dst; *p; p++)
        *p = *p == ',' ? ';' : (*p == '\n' || *p == '\r') ? ' ' : *p;
}

void mb_probe_step_write_row(FILE *f, const mb_probe_step_row *r)
{
    const mb_probe_stats *st = &r->st;
    char drift[32] = "", device[sizeof r->device];
    if (isfinite(st->drift)) /* one pass has no drift: an empty cell, not "nan" */
        snprintf(drift, sizeof drift, "%.3g", st->drift);
    csv_clean(device, sizeof device, r->device);
    fprintf(f, "%s,%s,%d,%d,%d,%zu,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%d,%s,%s,%s\n", r->backend,
            r->net, r->batch, r->learners, r->threads, st->reps, st->median, st->min, st->p25,
            st->p75, st->max, st->median > 0 ? r->batch / st->median : NAN, st->wide,
            mb_probe_stop_name(st->why), drift, device);
}

/* ---- the whole sweep ----------------------------------------------------------------------------- */

/* Up to n of the batch sizes, as "1, 2, 4" (then "..."), for a message. */
static void list_ints(char *buf, size_t n, const int *v, size_t nv)
{
    size_t at = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < nv && at + 16 < n; i++)
        at += (size_t)snprintf(buf + at, n - at, "%s%d", i ? "," : "", v[i]);
    if (at + 16 >= n)
        snprintf(buf + at, n - at, ",...");
}

int mb_probe_step_plan_check(const mb_probe_step_plan *p, mb_error *err)
{
    if (!p->n_batch || !p->n_threads || !p->n_learners)
        return mb_error_set(err, MB_EINVAL, "an empty list of batch sizes, threads or "
                            "learners");
    if (p->rounds < 1)
        return mb_error_set(err, MB_EINVAL, "rounds must be >= 1");
    for (size_t li = 0; li < p->n_learners; li++) {
        int L = p->learners[li], any = 0;
        for (size_t bi = 0; bi < p->n_batch; bi++)
            any |= p->batch[bi] % L == 0;
        if (!any) { /* its group would be an empty table: a mistake, not a measurement */
            char b[96];
            list_ints(b, sizeof b, p->batch, p->n_batch);
            return mb_error_set(err, MB_EINVAL, "--learners %d: no size of --batch %s is a "
                                "multiple of %d (each learner computes M/%d samples)", L, b, L,
                                L);
        }
    }
    /* two thread counts that run the same threads with L learners would give two groups of
     * the same rows (the rows say the threads that ran: mb_probe_step_threads_run) */
    for (size_t li = 0; li < p->n_learners; li++)
        for (size_t a = 0; a < p->n_threads; a++)
            for (size_t b = 0; b < a; b++) {
                int L = p->learners[li], ta = mb_probe_step_threads_run(p->threads[a], L);
                if (ta == mb_probe_step_threads_run(p->threads[b], L))
                    return mb_error_set(err, MB_EINVAL, "--threads %d and %d both run %d threads "
                                        "with %d learners (%d each, at least one): give one of "
                                        "them", p->threads[b], p->threads[a], ta, L, ta / L);
            }
    return MB_OK;
}

/* One (threads, learners) group: the batches L divides, swept interleaved, into rows. */
static int run_group(const mb_probe_step_plan *p, int T, int L, mb_probe_step_row *rows,
                     size_t *nrows, int *mine, int *skipped, mb_probe_stats *st, mb_error *err)
{
    size_t nm = 0, ns = 0;
    for (size_t bi = 0; bi < p->n_batch; bi++) {
        if (p->batch[bi] % L == 0)
            mine[nm++] = p->batch[bi];
        else
            skipped[ns++] = p->batch[bi];
    }
    mb_probe_step_config sc = p->base;
    sc.learners = L;
    sc.threads = T;
    sc.max_batch = mine[nm - 1];
    mb_probe_step *s = NULL;
    int rc = mb_probe_step_create(&sc, &s, err);
    if (rc == MB_OK)
        rc = mb_probe_step_sweep(s, mine, nm, p->o, p->rounds, st, err);
    for (size_t i = 0; rc == MB_OK && i < nm; i++) {
        mb_probe_step_row *r = &rows[*nrows + i];
        *r = (mb_probe_step_row){mb_probe_step_backend(s), p->net_name, mine[i], L,
                                 mb_probe_step_threads_run(T, L), st[i], "", s->restarts};
        snprintf(r->device, sizeof r->device, "%s", mb_probe_step_device(s));
    }
    mb_probe_step_free(s);
    if (rc != MB_OK)
        return rc;
    if (p->group_done)
        p->group_done(p->arg, rows + *nrows, nm, skipped, ns);
    *nrows += nm;
    return MB_OK;
}

int mb_probe_step_run(const mb_probe_step_plan *p, mb_probe_step_row **out, size_t *n,
                      mb_error *err)
{
    *out = NULL;
    *n = 0;
    int rc = mb_probe_step_plan_check(p, err);
    if (rc != MB_OK)
        return rc;
    size_t nb = p->n_batch;
    mb_probe_step_row *rows = calloc(nb * p->n_threads * p->n_learners, sizeof *rows);
    int *mine = malloc(nb * sizeof *mine), *skipped = malloc(nb * sizeof *skipped);
    mb_probe_stats *st = malloc(nb * sizeof *st);
    size_t nrows = 0;
    if (!rows || !mine || !skipped || !st)
        rc = mb_error_set(err, MB_ENOMEM, "out of memory");
    for (size_t ti = 0; rc == MB_OK && ti < p->n_threads; ti++)
        for (size_t li = 0; rc == MB_OK && li < p->n_learners; li++)
            rc = run_group(p, p->threads[ti], p->learners[li], rows, &nrows, mine, skipped, st,
                           err);
    free(mine);
    free(skipped);
    free(st);
    if (rc != MB_OK) {
        free(rows);
        return rc;
    }
    *out = rows;
    *n = nrows;
    return MB_OK;
}

/* ---- Crossbow's tuner on this step --------------------------------------------------------------- */

typedef struct learners_call {
    const mb_probe_learners_plan *p;
    mb_probe_learners_result *r;
} learners_call;

/* Throughput with k learners, each computing `batch` samples per update. */
static int learners_throughput(void *vctx, int k, double *samples_per_s, mb_error *err)
{
    learners_call *c = vctx;
    mb_probe_step_config sc = c->p->base;
    sc.learners = k;
    sc.max_batch = k * c->p->batch;
    mb_probe_step *s = NULL;
    int rc = mb_probe_step_create(&sc, &s, err);
    mb_probe_stats st;
    if (rc == MB_OK) {
        rc = mb_probe_step_time(s, sc.max_batch, c->p->o, &st, err);
        snprintf(c->r->backend, sizeof c->r->backend, "%s", mb_probe_step_backend(s));
        snprintf(c->r->device, sizeof c->r->device, "%s", mb_probe_step_device(s));
        mb_probe_step_free(s);
    }
    if (rc == MB_ENOMEM && err) { /* the net's line names one copy's batch: say which count failed
                            * (campaign 44 A's F5: "for 32 samples" under a line that ran 32) */
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        mb_error_set(err, rc, "%d learner%s x %d samples: %s", k, k > 1 ? "s" : "",
                     c->p->batch, why);
    }
    if (rc == MB_OK) {
        c->r->t_median_s[k - 1] = st.median;
        *samples_per_s = sc.max_batch / st.median;
        if (c->p->measured)
            c->p->measured(c->p->arg, k, st.median, *samples_per_s);
    }
    return rc;
}

int mb_probe_learners_check(const mb_probe_learners_plan *p, mb_error *err)
{
    const mb_dataset *d = p->base.data;
    int rc = d && p->base.desc ? data_fits(p->base.desc, d, p->batch, err) : MB_OK;
    const double most = (double)p->batch * (p->tune.max_learners > 1 ? p->tune.max_learners : 1);
    if (rc == MB_OK && d && (double)d->n < most)
        rc = mb_error_set(err, MB_EINVAL, "--max-learners %d x --batch %d is %.0f samples an "
                          "update, more than the %zu samples of the data", p->tune.max_learners,
                          p->batch, most, d->n);
    return rc;
}

int mb_probe_learners_run(const mb_probe_learners_plan *p, mb_probe_learners_result *r,
                          mb_error *err)
{
    memset(r, 0, sizeof *r);
    size_t m = p->tune.max_learners > 0 ? (size_t)p->tune.max_learners : 1;
    r->t_median_s = calloc(m, sizeof *r->t_median_s);
    r->samples_per_s = calloc(m, sizeof *r->samples_per_s);
    if (!r->t_median_s || !r->samples_per_s) {
        mb_probe_learners_result_free(r);
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    }
    learners_call c = {p, r};
    int rc = mb_probe_tune_learners(learners_throughput, &c, &p->tune, r->samples_per_s, &r->n,
                                    &r->chosen, err);
    if (rc != MB_OK)
        mb_probe_learners_result_free(r);
    return rc;
}

void mb_probe_learners_result_free(mb_probe_learners_result *r)
{
    free(r->t_median_s);
    free(r->samples_per_s);
    r->t_median_s = r->samples_per_s = NULL;
}
