/* optim.c — the single-learner optimisers of docs/algorithms.md ("Single learner"): plain SGD,
 * heavy-ball momentum (Polyak) and Nesterov momentum, with L2 weight decay and a step schedule
 * for the learning rate.
 *
 * Nesterov is kept in the look-ahead form (Sutskever et al. 2013): the stored parameters are
 * y = x + mu v, so one gradient at the stored parameters suffices:
 *     v' = mu v - lr g(y);   y' = y + mu v' - lr g(y)
 * which is algebra on v' = mu v - lr g(x + mu v), x' = x + v' (y' = x' + mu v').
 *
 * The arithmetic is train/backend/optim_rule.h's, shared with the backends' optim_step: an
 * optimiser bound to a device context (mb_optim_bind) keeps its velocity there and steps the
 * parameters where they live, so that a device learner's update never crosses the bus.
 *
 * Not here: the model-averaging rules (EASGD, SMA) that combine several learners; they take
 * the scheduled rate from mb_optim_lr_at at their own update count (par.c, par_async.c).
 */
#include "../backend/backend_impl.h"
#include "../backend/optim_rule.h"
#include "mb_learner.h"

_Static_assert((int)MB_RULE_SGD == (int)MB_OPTIM_SGD &&
                   (int)MB_RULE_MOMENTUM == (int)MB_OPTIM_MOMENTUM &&
                   (int)MB_RULE_NESTEROV == (int)MB_OPTIM_NESTEROV,
               "optim_rule.h's kinds are mb_optim_kind's values");

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct mb_optim {
    mb_optim_params p; /* as given */
    size_t n;          /* parameters */
    size_t n_train;    /* the first n_train are stepped; the rest is state (BN statistics) */
    float *v;          /* velocity, n floats (NULL for SGD) */
    long updates;      /* steps taken, drives the step schedule */
    mb_ctx *ctx;       /* bound device context (mb_optim_bind), else NULL */
    float *dv;         /* the velocity in its memory (NULL for SGD or unbound) */
};

int mb_optim_create(const mb_optim_params *p, size_t n, mb_optim **opt, mb_error *err)
{
    *opt = NULL;
    if (p->kind != MB_OPTIM_SGD && p->kind != MB_OPTIM_MOMENTUM && p->kind != MB_OPTIM_NESTEROV)
        return mb_error_set(err, MB_EINVAL, "optimiser: unknown kind %d", (int)p->kind);
    if (!isfinite(p->lr) || p->lr <= 0)
        return mb_error_set(err, MB_EINVAL, "optimiser: learning rate must be > 0, got %g", p->lr);
    if (p->kind != MB_OPTIM_SGD && (!isfinite(p->momentum) || p->momentum < 0 || p->momentum >= 1))
        return mb_error_set(err, MB_EINVAL, "optimiser: momentum must be in [0, 1), got %g",
                            p->momentum);
    if (!isfinite(p->weight_decay) || p->weight_decay < 0)
        return mb_error_set(err, MB_EINVAL, "optimiser: weight decay must be >= 0, got %g",
                            p->weight_decay);
    if (p->lr_step_every < 0)
        return mb_error_set(err, MB_EINVAL, "optimiser: lr step must be >= 0, got %ld",
                            p->lr_step_every);
    if (p->lr_step_every > 0 && (!isfinite(p->lr_step_gamma) || p->lr_step_gamma <= 0))
        return mb_error_set(err, MB_EINVAL, "optimiser: lr gamma must be > 0, got %g",
                            p->lr_step_gamma);
    if (n == 0)
        return mb_error_set(err, MB_EINVAL, "optimiser: no parameters");
    mb_optim *o = calloc(1, sizeof *o);
    if (!o)
        return mb_error_set(err, MB_ENOMEM, "optimiser: out of memory");
    o->p = *p;
    o->n = n;
    o->n_train = n;
    if (p->kind != MB_OPTIM_SGD) {
        o->v = calloc(n, sizeof *o->v);
        if (!o->v) {
            free(o);
            return mb_error_set(err, MB_ENOMEM, "optimiser: out of memory (%zu parameters)", n);
        }
    }
    *opt = o;
    return MB_OK;
}

void mb_optim_free(mb_optim *opt)
{
    if (!opt)
        return;
    if (opt->dv)
        mb_ctx_release(opt->ctx, opt->dv);
    free(opt->v);
    free(opt);
}

int mb_optim_bind(mb_optim *opt, mb_ctx *ctx, mb_error *err)
{
    if (mb_ctx_host_memory(ctx) || opt->ctx)
        return MB_OK;
    if (opt->v) {
        size_t bytes = opt->n * sizeof *opt->v;
        if (!(opt->dv = mb_ctx_alloc(ctx, bytes)))
            return mb_error_set(err, MB_ENOMEM, "optimiser: no %s memory for the velocity of %zu "
                                "parameters", mb_backend_name(mb_ctx_backend(ctx)), opt->n);
        if (mb_ctx_upload(ctx, opt->dv, opt->v, bytes) != MB_OK) {
            mb_ctx_release(ctx, opt->dv);
            opt->dv = NULL;
            return mb_error_set(err, MB_EDEVICE, "optimiser: could not copy the velocity to the "
                                "%s device", mb_backend_name(mb_ctx_backend(ctx)));
        }
    }
    opt->ctx = ctx;
    return MB_OK;
}

double mb_optim_lr_at(const mb_optim_params *p, long update)
{
    double lr = p->lr;
    if (p->lr_step_every > 0 && update > 0)
        lr *= pow(p->lr_step_gamma, (double)(update / p->lr_step_every));
    return lr;
}

double mb_optim_lr(const mb_optim *opt) { return mb_optim_lr_at(&opt->p, opt->updates); }

int mb_optim_step(mb_optim *opt, float *x, const float *g)
{
    const float lr = (float)mb_optim_lr(opt);
    const float wd = (float)opt->p.weight_decay;
    const float mu = (float)opt->p.momentum;
    if (opt->ctx) {
        int rc = opt->ctx->ops->optim_step(opt->ctx, (int)opt->p.kind, opt->n_train, lr, mu, wd, x,
                                           g, opt->dv);
        if (rc != MB_OK)
            return rc;
    } else {
        mb_optim_rule_host((int)opt->p.kind, opt->n_train, lr, mu, wd, x, g, opt->v);
    }
    opt->updates++;
    return MB_OK;
}

void mb_optim_set_trainable(mb_optim *opt, size_t n_train)
{
    opt->n_train = n_train < opt->n ? n_train : opt->n;
}

float *mb_optim_state(mb_optim *opt) { return opt->ctx ? NULL : opt->v; }

long mb_optim_updates(const mb_optim *opt) { return opt->updates; }

void mb_optim_set_updates(mb_optim *opt, long updates) { opt->updates = updates; }

static const char *const kind_names[MB_OPTIM_N] = {"sgd", "momentum", "nesterov"};

const char *mb_optim_kind_name(mb_optim_kind kind)
{
    return (unsigned)kind < MB_OPTIM_N ? kind_names[kind] : "?";
}

int mb_optim_kind_parse(const char *name, mb_optim_kind *kind)
{
    for (int i = 0; i < MB_OPTIM_N; i++)
        if (strcmp(name, kind_names[i]) == 0) {
            *kind = (mb_optim_kind)i;
            return MB_OK;
        }
    return MB_EINVAL;
}
