/* learner.c — the learner (mb_learner.h): a network, its optimiser and a cursor
 * over the shuffled training set, with its own PRNG state (mb_rng_* of data/mb_rng.h). Its step
 * is the update of a training run and the update mbprobe step times.
 *
 * Not here: the loop, evaluation, logs and checkpoints (run.c, run_ckpt.c), or timing
 * (probe/step.c). A learner never touches global state, so several can live in one process (the
 * probe's learners per device, the parallel trainers' learners).
 */
#include "../../data/mb_rng.h"
#include "../../data/mb_dataset.h"
#include "../run/run_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A fresh permutation for the next epoch (Fisher-Yates). */
static void shuffle(mb_cursor *c)
{
    for (size_t i = 0; i < c->n; i++)
        c->perm[i] = (uint32_t)i;
    for (size_t i = c->n - 1; i > 0; i--) {
        size_t j = (size_t)mb_rng_below(&c->rng, i + 1);
        uint32_t t = c->perm[i];
        c->perm[i] = c->perm[j];
        c->perm[j] = t;
    }
    c->pos = 0;
}

/* Host copies of the parameters and gradients where the backend's memory is not the host's:
 * room to read the gradient's norm and to keep BN state, never the update's path. */
static int host_copies(mb_learner *l, mb_error *err)
{
    if (mb_ctx_host_memory(l->ctx))
        return MB_OK;
    size_t n = mb_net_param_count(l->net);
    l->host_params = malloc(n * sizeof *l->host_params);
    l->host_grads = malloc(n * sizeof *l->host_grads);
    if (!l->host_params || !l->host_grads)
        return mb_error_set(err, MB_ENOMEM, "out of memory for host copies of %zu parameters", n);
    return mb_net_read_params(l->net, l->host_params) == MB_OK
               ? MB_OK
               : mb_error_set(err, MB_EIO, "could not copy the parameters from the %s device",
                              mb_backend_name(mb_ctx_backend(l->ctx)));
}

int mb_learner_init(mb_learner *l, const mb_net_desc *desc, const mb_run_options *o,
                    size_t n_train, mb_error *err)
{
    memset(l, 0, sizeof *l);
    int rc = mb_net_desc_check_conv_algo(desc, o->conv_algo, err); /* H15: not ignored */
    if (rc != MB_OK)
        return rc;
    if (n_train < (size_t)o->batch)
        return mb_error_set(err, MB_EINVAL, "batch %d is larger than the %zu training samples",
                            o->batch, n_train);
    if (n_train > UINT32_MAX)
        return mb_error_set(err, MB_EINVAL, "%zu training samples: more than 2^32", n_train);
    /* Evaluation runs in chunks of the network's max_batch: at least EVAL_CHUNK samples, so
     * that a small training batch does not make every evaluation crawl in chunks of M (at
     * M = 8 evaluations took three quarters of a run's time). Training steps still use M. */
    enum { EVAL_CHUNK = 128 };
    mb_ctx_options co;
    mb_ctx_options_init(&co);
    co.backend = o->backend;
    co.device = o->device;
    co.threads = o->threads;
    rc = mb_ctx_create(&co, &l->ctx, err);
    if (rc != MB_OK)
        return rc;
    /* a learner that is never evaluated (mbprobe) needs no chunk (campaign 42, F4); the net's
     * out-of-memory line names the batch beside the chunk (campaign 41) */
    mb_net_options no = {.max_batch = o->batch > EVAL_CHUNK || o->no_eval ? o->batch : EVAL_CHUNK,
                         .step_batch = o->batch, .seed = o->seed, .algo = o->conv_algo,
                         .ctx = l->ctx};
    if ((rc = mb_net_create(desc, &no, &l->net, err)) != MB_OK ||
        (rc = mb_optim_create(&o->optim, mb_net_param_count(l->net), &l->opt, err)) != MB_OK ||
        (rc = mb_optim_bind(l->opt, l->ctx, err)) != MB_OK || (rc = host_copies(l, err)) != MB_OK) {
        mb_learner_free(l);
        return rc;
    }
    mb_optim_set_trainable(l->opt, mb_net_trainable_count(l->net)); /* BN state: not stepped */
    size_t n_state = mb_net_param_count(l->net) - mb_net_trainable_count(l->net);
    if (n_state && !l->host_params && !(l->state_keep = malloc(n_state * sizeof(float)))) {
        mb_learner_free(l);
        return mb_error_set(err, MB_ENOMEM, "out of memory for %zu floats of BN state", n_state);
    }
    size_t per = (size_t)desc->in_c * desc->in_h * desc->in_w;
    l->batch = o->batch;
    l->max_batch = o->batch;
    l->span = o->batch;
    l->cur.n = n_train;
    l->cur.perm = malloc(n_train * sizeof *l->cur.perm);
    l->xb = malloc((size_t)o->batch * per * sizeof *l->xb);
    l->yb = malloc((size_t)o->batch * sizeof *l->yb);
    if (!l->cur.perm || !l->xb || !l->yb) {
        mb_learner_free(l);
        return mb_error_set(err, MB_ENOMEM, "out of memory for batch %d", o->batch);
    }
    /* the shuffling stream is separate from the network's (initialisation, dropout) */
    l->cur.rng = (uint64_t)o->seed ^ 0x53485546464C45ull;
    shuffle(&l->cur);
    return MB_OK;
}

void mb_learner_free(mb_learner *l)
{
    if (!l)
        return;
    mb_optim_free(l->opt); /* a bound optimiser's velocity is the context's memory */
    mb_net_free(l->net);
    mb_ctx_free(l->ctx);
    free(l->host_params);
    free(l->host_grads);
    free(l->state_keep);
    free(l->cur.perm);
    free(l->xb);
    free(l->yb);
    memset(l, 0, sizeof *l);
}

void mb_learner_gather(mb_learner *l, const mb_dataset *train, long *epoch)
{
    mb_cursor *c = &l->cur;
    size_t span = (size_t)(l->span > 0 ? l->span : l->batch);
    if (c->pos + span > c->n) { /* drop the incomplete tail: next epoch */
        c->epoch++;
        shuffle(c);
    }
    size_t per = (size_t)train->c * train->h * train->w;
    const uint32_t *perm = c->perm + c->pos + (size_t)l->offset;
    for (int i = 0; i < l->batch; i++) {
        size_t k = perm[i];
        memcpy(l->xb + (size_t)i * per, train->x + k * per, per * sizeof *l->xb);
        l->yb[i] = train->y[k];
    }
    c->pos += span;
    *epoch = c->epoch;
}

int mb_learner_grad(mb_learner *l, double *loss, mb_error *err)
{
    float f = 0;
    int rc = mb_net_forward_backward(l->net, l->xb, l->yb, l->batch, &f);
    if (rc != MB_OK)
        return mb_error_set(err, rc, "forward/backward failed: %s", mb_strerror(rc));
    *loss = f;
    return MB_OK;
}

int mb_learner_apply(mb_learner *l, mb_error *err)
{
    /* on a device the optimiser is bound to the learner's context (mb_learner_init): the
     * parameters are stepped where they live */
    int rc = mb_optim_step(l->opt, mb_net_params(l->net), mb_net_grads(l->net));
    return rc == MB_OK ? MB_OK
                       : mb_error_set(err, rc, "optimiser step on the %s device failed: %s",
                                      mb_backend_name(mb_ctx_backend(l->ctx)), mb_strerror(rc));
}

int mb_learner_step(mb_learner *l, const mb_dataset *train, double *loss, long *epoch,
                    mb_error *err)
{
    mb_learner_gather(l, train, epoch);
    int rc = mb_learner_grad(l, loss, err);
    return rc == MB_OK ? mb_learner_apply(l, err) : rc;
}

double mb_learner_grad_norm2(mb_learner *l)
{
    size_t n = mb_net_trainable_count(l->net);
    if (!l->host_grads)
        return mb_noise_norm2(mb_net_grads(l->net), n);
    mb_ctx_download(l->ctx, l->host_grads, mb_net_grads(l->net), n * sizeof(float));
    return mb_noise_norm2(l->host_grads, n);
}

int mb_learner_half_norm2(mb_learner *l, double *g2, mb_error *err)
{
    int half = l->batch / 2;
    if (half < 1)
        return mb_error_set(err, MB_EINVAL, "batch %d has no half batch", l->batch);
    size_t n = mb_net_param_count(l->net), nt = mb_net_trainable_count(l->net);
    float *params = mb_net_params(l->net);
    unsigned long steps = mb_net_steps(l->net);
    /* BN's running statistics: a training forward pass moves them, so they are put back */
    if (nt < n && l->state_keep)
        memcpy(l->state_keep, params + nt, (n - nt) * sizeof(float));
    else if (nt < n && mb_net_read_params(l->net, l->host_params) != MB_OK)
        return mb_error_set(err, MB_EIO, "could not copy the parameters from the device");
    float f;
    int rc = mb_net_forward_backward(l->net, l->xb, l->yb, half, &f);
    mb_net_set_steps(l->net, steps);
    if (nt < n && l->state_keep)
        memcpy(params + nt, l->state_keep, (n - nt) * sizeof(float));
    else if (nt < n && mb_net_write_params(l->net, l->host_params) != MB_OK)
        return mb_error_set(err, MB_EIO, "could not copy the parameters to the device");
    if (rc != MB_OK)
        return mb_error_set(err, rc, "half-batch forward/backward failed: %s", mb_strerror(rc));
    *g2 = mb_learner_grad_norm2(l);
    return MB_OK;
}

int mb_learner_set_slice(mb_learner *l, int offset, int span, mb_error *err)
{
    if (offset < 0 || offset + l->batch > span || (size_t)span > l->cur.n)
        return mb_error_set(err, MB_EINVAL, "a slice of %d samples at %d does not fit in %d "
                            "per step of %zu training samples", l->batch, offset, span, l->cur.n);
    l->offset = offset;
    l->span = span;
    mb_net_set_sample_base(l->net, (size_t)offset); /* its own dropout masks (net.c) */
    return MB_OK;
}

int mb_learner_set_batch(mb_learner *l, int batch, mb_error *err)
{
    if (batch < 1 || batch > l->max_batch)
        return mb_error_set(err, MB_EINVAL, "batch %d is not in [1, %d], the batches this "
                            "learner was built for", batch, l->max_batch);
    if (l->span == l->batch)
        l->span = batch;
    l->batch = batch;
    return MB_OK;
}
