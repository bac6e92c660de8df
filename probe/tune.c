/* tune.c — Crossbow's auto-tuner of the number of learners per device (Koliousis et al. 2019):
 * add one learner while throughput rises by more than a threshold (10% in their code), else drop
 * the last one and stop.
 *
 * Does not: measure anything itself. The caller's callback trains (or simulates) k learners and
 * returns samples per second; `mbprobe learners` will pass one that runs train/'s step.
 */
#include <math.h>

#include "mb_probe.h"

void mb_probe_tune_init(mb_probe_tune *o)
{
    o->threshold = 0.10;
    o->max_learners = 16;
}

static int measure(mb_probe_throughput_fn fn, void *ctx, int k, double *v, mb_error *err)
{
    int rc = fn(ctx, k, v, err);
    if (rc != MB_OK)
        return rc;
    if (!(*v > 0) || !isfinite(*v))
        return mb_error_set(err, MB_EDOM, "learners: throughput with %d learner%s is %g, not a "
                            "positive number", k, k == 1 ? "" : "s", *v);
    return MB_OK;
}

int mb_probe_tune_learners(mb_probe_throughput_fn fn, void *ctx, const mb_probe_tune *o,
                           double *curve, int *n_measured, int *chosen, mb_error *err)
{
    if (!fn)
        return mb_error_set(err, MB_EINVAL, "learners: no throughput callback");
    if (!(o->threshold >= 0) || !isfinite(o->threshold))
        return mb_error_set(err, MB_EINVAL, "learners: threshold must be >= 0, got %g",
                            o->threshold);
    if (o->max_learners < 1)
        return mb_error_set(err, MB_EINVAL, "learners: max_learners must be >= 1, got %d",
                            o->max_learners);
    *n_measured = 0;
    int rc = measure(fn, ctx, 1, &curve[0], err);
    if (rc != MB_OK)
        return rc;
    *n_measured = 1;
    int k = 1;
    while (k < o->max_learners) {
        if ((rc = measure(fn, ctx, k + 1, &curve[k], err)) != MB_OK)
            return rc;
        *n_measured = k + 1;
        if (!(curve[k] > curve[k - 1] * (1.0 + o->threshold)))
            break; /* the added learner did not pay: remove it and stop */
        k++;
    }
    *chosen = k;
    return MB_OK;
}
