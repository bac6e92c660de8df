/* run_check.c — the staged check (check_frac, with a target): an evaluation of the eval subset
 * that stops as soon as the samples seen rule the target out, for every evaluation the run
 * monitor's judge makes (run.c: judge_eval), scheduled or the bisection's.
 *
 * Stratified by the last full evaluation. After each full evaluation the subset's samples are
 * ranked by their loss in it and cut into MB_RUN_STRATA strata of (nearly) equal size: the
 * samples it found easy, ..., the ones it found hardest. A check evaluates each stratum from
 * its start in the subset's order (the subset is drawn in random order, data/dataset.c, so the
 * first samples of a stratum are a uniform sample of it), in chunks of CHUNK samples gathered
 * into one call, and estimates the full loss stratum by stratum: each stratum's mean, or when
 * its error is smaller the regression of its samples' losses now on their losses then (a sample
 * hard then is hard now, so the slice's luck then says much of its luck now), weighted by the
 * stratum's share of the subset. Its standard error sums the strata's, each from the residual
 * spread of the samples seen with the finite-population factor. Most of the spread of a
 * sample's loss from one check to the next is in the hardest stratum, so each stage shares its
 * chunks out by Neyman's allocation (in proportion to stratum size x spread, the spread
 * measured at the last check; water-filled, at least STRATUM_MIN_CHUNKS each, at most the
 * stratum): for the same standard error that needs fewer samples than one uniform slice
 * (measured in docs/results.md, "Stratified checks").
 *
 * Stages: the first evaluates `start` chunks (check_frac of the subset, or fewer after a check
 * that ruled the target out with twice the margin that needs: mb_run_check_start), each later
 * one a quarter more (the stages are cumulative, so a finer growth costs estimates, not
 * samples), the last the whole subset. After each stage the check stops, ruled out, when the
 * estimate is more than k (check_sigmas) standard errors above the target, or when the losses
 * seen already sum to more than target x the subset's size (a proof: no loss is negative),
 * unless the estimate is past the divergence bound. A check that is not ruled out has seen
 * every sample: its loss is the full one (summed sample by sample, so equal to an evaluation in
 * one call up to the rounding of the sum), and it becomes the reference of the next. Until the
 * first full evaluation there are no strata (one, in the subset's order) and no regression,
 * and the first check that the check_frac stage cannot rule out is finished, to serve as that
 * reference. The state lives in the run monitor, so the single learner and the parallel
 * trainers check alike; it is not in the checkpoint: a resumed run starts without a
 * reference, as a fresh one does.
 */
#include "run_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Samples per evaluation call: two shards of 8 on two threads. */
enum { CHUNK = 16 };
/* Samples per evaluation call on a device: each call uploads, launches and waits (about 0.3
 * ms on an H200 whatever its size up to a few hundred lenet5 samples), so a stage's positions go
 * in calls of this many instead of CHUNK (docs/results.md, "The first GPU"). On the CPU a call
 * stays a chunk: its results are those of the runs measured so far, bit for bit. */
enum { DEVICE_CALL = 256 };
/* The fewest chunks a first stage has when check_frac allows as many. */
enum { CHECK_MIN_CHUNKS = 8 };
/* The fewest chunks a stratum gets at any stage: its spread needs a few samples. */
enum { STRATUM_MIN_CHUNKS = 2 };

/* A sample of the subset and its loss at the last full evaluation. */
typedef struct mb_run_ranked {
    double loss;
    size_t idx;
} mb_run_ranked;

int mb_run_check_init(mb_run_check *c, const mb_run_options *o, const mb_dataset *eval,
                      mb_error *err)
{
    memset(c, 0, sizeof *c);
    size_t n = eval->n, per = (size_t)eval->c * eval->h * eval->w;
    double first = floor(o->check_frac * (double)n);
    double size = floor(first / CHECK_MIN_CHUNKS);
    c->chunk = size >= CHUNK ? CHUNK : size >= 1 ? (int)size : 1;
    c->first = (long)(first / c->chunk) > 2 ? (long)(first / c->chunk) : 2;
    c->start = c->first;
    c->strata = 1;
    c->lo[1] = n;
    c->spread[0] = 1;
    c->cur = malloc(2 * n * sizeof *c->cur);
    c->order = malloc(n * sizeof *c->order);
    c->rank = malloc(n * sizeof *c->rank);
    c->call = o->backend == MB_BACKEND_CPU ? c->chunk : DEVICE_CALL;
    c->xb = malloc((size_t)c->call * per * sizeof *c->xb);
    c->yb = malloc((size_t)c->call * sizeof *c->yb);
    if (!c->cur || !c->order || !c->rank || !c->xb || !c->yb) {
        mb_run_check_free(c);
        return mb_error_set(err, MB_ENOMEM, "out of memory for the check's %zu samples", n);
    }
    c->ref = c->cur + n;
    for (size_t p = 0; p < n; p++)
        c->order[p] = p;
    c->n = n;
    return MB_OK;
}

void mb_run_check_free(mb_run_check *c)
{
    free(c->cur);
    free(c->order);
    free(c->rank);
    free(c->xb);
    free(c->yb);
    memset(c, 0, sizeof *c);
}

/* Means of x[0..n) and y[0..n), and the sums of products of their deviations. */
static void moments(const double *x, const double *y, size_t n, double *mx, double *my,
                    double *sxx, double *sxy, double *syy)
{
    double a = 0, b = 0;
    for (size_t j = 0; j < n; j++) {
        a += x[j];
        b += y[j];
    }
    a /= (double)n;
    b /= (double)n;
    *sxx = *sxy = *syy = 0;
    for (size_t j = 0; j < n; j++) {
        *sxx += (x[j] - a) * (x[j] - a);
        *sxy += (x[j] - a) * (y[j] - b);
        *syy += (y[j] - b) * (y[j] - b);
    }
    *mx = a;
    *my = b;
}

void mb_run_check_estimate(const double *cur, const double *ref, const double *ref_mean,
                           const size_t *lo, const size_t *seen, int strata, double *est,
                           double *se, double *spread)
{
    const double n = (double)(lo[strata] - lo[0]);
    double e = 0, var = 0;
    *est = *se = NAN;
    for (int h = 0; h < strata; h++)
        spread[h] = NAN;
    for (int h = 0; h < strata; h++) {
        size_t N = lo[h + 1] - lo[h], m = seen[h];
        if (N == 0)
            continue;
        if (m < 2 && m < N)
            return; /* no spread to go on */
        const double *x = cur + lo[h], *y = ref ? ref + lo[h] : x;
        double mc, mr, scc, scr, srr;
        moments(x, y, m, &mc, &mr, &scc, &scr, &srr);
        double eh = mc, vh = m > 1 ? scc / (double)(m - 1) : 0;
        if (ref && m < N && m >= 3 && srr > 0 && isfinite(ref_mean[h])) {
            /* b = 1 would be the plain change since then, b = 0 the slice alone */
            double b = scr / srr, res = scc - b * scr;
            double vr = (res > 0 ? res : 0) / (double)(m - 2);
            if (vr < vh) { /* false for NaN: the plain mean stays */
                eh = mc + b * (ref_mean[h] - mr);
                vh = vr;
            }
        }
        spread[h] = sqrt(vh);
        e += (double)N / n * eh;
        var += ((double)N / n) * ((double)N / n) * vh / (double)m * (1 - (double)m / (double)N);
    }
    *est = e;
    *se = sqrt(var);
}

void mb_run_check_alloc(long total, int strata, const long *cap, const double *weight, long min,
                        long *want)
{
    long left = total;
    for (int h = 0; h < strata; h++) {
        want[h] = min < cap[h] ? min : cap[h];
        left -= want[h];
    }
    while (left > 0) {
        double sum = 0;
        int open = 0;
        for (int h = 0; h < strata; h++)
            if (want[h] < cap[h]) {
                open++;
                sum += weight[h] > 0 && isfinite(weight[h]) ? weight[h] : 0;
            }
        if (!open)
            return;
        long given = 0;
        for (int h = 0; h < strata; h++) {
            if (want[h] >= cap[h])
                continue;
            double w = weight[h] > 0 && isfinite(weight[h]) ? weight[h] : 0;
            double share = sum > 0 ? w / sum : 1.0 / open;
            long g = (long)ceil((double)left * share);
            if (g > cap[h] - want[h])
                g = cap[h] - want[h];
            want[h] += g;
            given += g;
        }
        if (given == 0)
            return;
        left -= given;
    }
}

long mb_run_check_start(long done, double est, double se, double target, double k, long lo,
                        long first)
{
    double room = est - target;
    if (!(room > 0) || !(se > 0) || !isfinite(est) || !isfinite(se) || done < 1)
        return first;
    double need = ceil((double)done * (2.0 * k * se / room) * (2.0 * k * se / room));
    return need < (double)lo ? lo : need > (double)first ? first : (long)need;
}

/* Evaluates positions [from, to) of the order at the net's parameters, c->call a call: their
 * losses into cur, added to *sum, and the samples classified correctly to *correct. Before the
 * first reference the order is the subset's own, so the chunks are read where they lie. */
static int check_positions(mb_run_check *c, mb_net *net, const mb_dataset *eval, size_t from,
                           size_t to, double *sum, size_t *correct, mb_error *err)
{
    size_t per = (size_t)eval->c * eval->h * eval->w;
    for (size_t p = from; p < to; p += (size_t)c->call) {
        size_t k = to - p < (size_t)c->call ? to - p : (size_t)c->call, ok = 0;
        const float *x = eval->x + p * per;
        const int *y = eval->y + p;
        if (c->reference) {
            for (size_t i = 0; i < k; i++) {
                memcpy(c->xb + i * per, eval->x + c->order[p + i] * per, per * sizeof *c->xb);
                c->yb[i] = eval->y[c->order[p + i]];
            }
            x = c->xb;
            y = c->yb;
        }
        int rc = mb_net_evaluate_each(net, x, y, k, c->cur + p, &ok);
        if (rc != MB_OK)
            return mb_error_set(err, rc, "evaluation failed: %s", mb_strerror(rc));
        for (size_t i = 0; i < k; i++)
            *sum += c->cur[p + i];
        *correct += ok;
    }
    return MB_OK;
}

static int by_loss(const void *a, const void *b)
{
    const mb_run_ranked *x = a, *y = b;
    if (x->loss != y->loss)
        return x->loss < y->loss ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int by_index(const void *a, const void *b)
{
    const mb_run_ranked *x = a, *y = b;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* After a full evaluation (every position's loss in cur): it becomes the reference, and the
 * strata are cut again by its losses, each in the subset's order. A subset too small for
 * strata of STRATUM_MIN_CHUNKS chunks each keeps fewer. */
static void check_restrata(mb_run_check *c)
{
    size_t n = c->n;
    for (size_t p = 0; p < n; p++)
        c->rank[p] = (mb_run_ranked){isnan(c->cur[p]) ? INFINITY : c->cur[p], c->order[p]};
    qsort(c->rank, n, sizeof *c->rank, by_loss);
    size_t fit = n / ((size_t)STRATUM_MIN_CHUNKS * (size_t)c->chunk);
    int strata = fit < 1 ? 1 : fit < MB_RUN_STRATA ? (int)fit : MB_RUN_STRATA;
    c->strata = strata;
    for (int h = 0; h <= strata; h++)
        c->lo[h] = n * (size_t)h / (size_t)strata;
    for (int h = 0; h < strata; h++) {
        size_t a = c->lo[h], N = c->lo[h + 1] - a;
        qsort(c->rank + a, N, sizeof *c->rank, by_index);
        double s = 0, ss = 0;
        for (size_t p = a; p < a + N; p++) {
            c->order[p] = c->rank[p].idx;
            c->ref[p] = c->rank[p].loss;
            s += c->ref[p];
        }
        c->ref_mean[h] = N ? s / (double)N : NAN;
        for (size_t p = a; p < a + N; p++)
            ss += (c->ref[p] - c->ref_mean[h]) * (c->ref[p] - c->ref_mean[h]);
        c->spread[h] = N > 1 ? sqrt(ss / (double)(N - 1)) : 0;
    }
    c->reference = 1;
}

int mb_run_check_eval(mb_run_check *c, mb_net *net, const mb_dataset *eval, double target,
                      double k, double blowup, int *ruled_out, double *loss, double *acc,
                      double *est, size_t *seen_out, mb_error *err)
{
    const int H = c->strata, reference = c->reference;
    const size_t n = c->n;
    size_t seen[MB_RUN_STRATA] = {0};
    long cap[MB_RUN_STRATA], want[MB_RUN_STRATA], all = 0;
    double weight[MB_RUN_STRATA], spread[MB_RUN_STRATA], sum = 0;
    size_t correct = 0;
    for (int h = 0; h < H; h++) {
        size_t N = c->lo[h + 1] - c->lo[h];
        cap[h] = (long)((N + (size_t)c->chunk - 1) / (size_t)c->chunk);
        weight[h] = (double)N * c->spread[h];
        all += cap[h];
    }
    *ruled_out = 0;
    for (long total = c->start < all ? c->start : all;;) {
        mb_run_check_alloc(total, H, cap, weight, H > 1 ? STRATUM_MIN_CHUNKS : 1, want);
        size_t done = 0;
        long chunks = 0;
        for (int h = 0; h < H; h++) {
            size_t N = c->lo[h + 1] - c->lo[h], upto = (size_t)want[h] * (size_t)c->chunk;
            upto = upto < N ? upto : N;
            if (upto > seen[h]) {
                int rc = check_positions(c, net, eval, c->lo[h] + seen[h], c->lo[h] + upto,
                                         &sum, &correct, err);
                if (rc != MB_OK)
                    return rc;
                seen[h] = upto;
            }
            done += seen[h];
            chunks += (long)((seen[h] + (size_t)c->chunk - 1) / (size_t)c->chunk);
        }
        *seen_out = done;
        if (done == n)
            break;
        double se;
        mb_run_check_estimate(c->cur, reference ? c->ref : NULL, c->ref_mean, c->lo, seen, H, est,
                              &se, spread);
        for (int h = 0; h < H; h++)
            if (isfinite(spread[h]))
                weight[h] = (double)(c->lo[h + 1] - c->lo[h]) * spread[h];
        if (isfinite(*est) && *est <= blowup &&
            (sum > target * (double)n || *est - k * se > target)) {
            *ruled_out = 1;
            long lo = c->first < CHECK_MIN_CHUNKS ? c->first : CHECK_MIN_CHUNKS;
            c->start = mb_run_check_start(chunks, *est, se, target, k, lo, c->first);
            for (int h = 0; h < H; h++)
                if (isfinite(spread[h]))
                    c->spread[h] = spread[h];
            return MB_OK;
        }
        /* without a reference, the first check that the check_frac stage does not rule out is
         * finished: it becomes the reference of the next; else a quarter more chunks */
        total = chunks > total ? chunks : total;
        total = !reference && total >= c->first ? all : total + (total + 3) / 4;
        total = total < all ? total : all;
    }
    c->start = c->first; /* at the target or near it: the next starts where check_frac says */
    *loss = *est = sum / (double)n;
    *acc = (double)correct / (double)n;
    check_restrata(c);
    return MB_OK;
}
