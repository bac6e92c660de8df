/* holdout.c — how good the answer is, measured on runs that took no part in choosing it, and
 * where to spend seeds while choosing (docs/design.md, "The held-out check").
 *
 * - The plan: once the recommendation is fixed, the settings a held-out sweep trains (the
 *   recommendation, its strongest rivals: the in-sample measured best, the model's optimum, and
 *   neighbours on either side) and fresh seeds that no fitting or choosing run used.
 * - The check: the recommendation's held-out median training time over the best held-out
 *   setting's, and over its best rival's, each with a bootstrap interval over seeds; "tied"
 *   when the rival interval holds 1. Also the model's median |error| on these runs, with the
 *   interval the same resamples of seeds give it (the held-out medians are themselves a sample:
 *   ten seeds' luck moves every setting's median alike), and the flat range they measure (the M
 *   within MB_SOLVER_FLAT of the best).
 * - The machine's speed: runs that fitted and chose, trained again between the held-out runs,
 *   against their first seconds per update (a level measured apart from the held-out runs'
 *   times), and the model's error at that speed.
 * - Beyond the edge: where the held-out best is the least or largest M the sweep trained, the
 *   M a step past it, so that the best of the sweep is a best among neighbours on both sides.
 * - Sequential sampling: which settings need another seed because their median's interval
 *   still reaches the leader's; an interval is at least as wide as the median's under the
 *   seed-to-seed spread pooled over all settings.
 *
 * A run that did not reach the target counts as infinitely slow: a setting that fails to train
 * is not made to look fast by leaving its failures out. The check's bootstrap draws seeds with
 * replacement and takes every setting's runs of the drawn seeds (paired: the settings share their
 * seeds); the sequential sampling's draws each setting's runs on its own. Both use GSL's MT19937
 * with a fixed seed (repeatable).
 *
 * Does not: train (the Makefile runs mbtrain on the plan), read files or print (mbopt does).
 */
#include "mb_solver.h"

#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

long mb_solver_pick(const mb_validate *v)
{
    return v->settled >= 0 ? v->settled : v->rec;
}

int mb_solver_calibration_only(const mb_validate *v)
{
    if (!(round(v->m_rec) >= 1))
        return 0;
    size_t runs = 0;
    for (size_t i = 0; i < v->n_rows; i++) {
        if (v->rows[i].reached > 0)
            return 0;
        runs += v->rows[i].runs;
    }
    return runs > 0;
}

/* Whether a row takes part at (p, lr): its P and rate, M inside [m_lo, m_hi]. */
static int in_play(const mb_validate_row *r, double p, double lr, double m_lo, double m_hi)
{
    return r->procs == p && mb_solver_same_rate(r->lr, lr) && r->batch >= m_lo &&
           r->batch <= m_hi;
}

/* ---- the plan -------------------------------------------------------------------------------- */

/* Whether two batch sizes are one setting for the plan and the fill: within 10% of each other. */
static int near_m(double a, double b)
{
    return fabs(log(a / b)) < log(1.1);
}

/* The whole M a step (MB_HOLDOUT_STEP) below (dir < 0) or above m: at least 1 away, so that
 * a small M (2 / 1.22 and 2 * 1.22 both round to 2) still has neighbours (campaign 45's B-F1). */
static double holdout_step(double m, int dir)
{
    return dir < 0 ? fmin(round(m / MB_HOLDOUT_STEP), m - 1)
                   : fmax(round(m * MB_HOLDOUT_STEP), m + 1);
}

/* Adds m to the plan unless a planned M lies within 10% of it or it is out of range. */
static void plan_add(mb_holdout_plan *p, double m, const char *why, double m_lo, double m_hi)
{
    m = round(m);
    if (!(m >= 1) || m < floor(m_lo) || m > ceil(m_hi) || p->n_batch >= MB_HOLDOUT_MAX_SETTINGS)
        return;
    for (size_t i = 0; i < p->n_batch; i++)
        if (near_m(p->batch[i], m))
            return;
    p->batch[p->n_batch] = m;
    snprintf(p->why[p->n_batch], sizeof p->why[0], "%s", why);
    p->n_batch++;
}

int mb_solver_holdout_plan(const mb_validate *v, const mb_fit_runs *runs, const double *skip,
                           size_t n_skip, double m_lo, double m_hi, size_t n_seeds,
                           unsigned long seed0, mb_holdout_plan *plan, mb_error *err)
{
    memset(plan, 0, sizeof *plan);
    if (n_seeds < MB_HOLDOUT_MIN_SEEDS || n_seeds > MB_HOLDOUT_MAX_SEEDS)
        return mb_error_set(err, MB_EINVAL, "a held-out check needs %d to %d fresh seeds, got "
                            "%zu", MB_HOLDOUT_MIN_SEEDS, MB_HOLDOUT_MAX_SEEDS, n_seeds);
    if (seed0 < MB_HOLDOUT_SEED0 || seed0 > MB_HOLDOUT_SEED0_MAX)
        return mb_error_set(err, MB_EINVAL, "the first held-out seed is from %d (below it the "
                            "choosing runs draw theirs) to %lu, got %lu", MB_HOLDOUT_SEED0,
                            MB_HOLDOUT_SEED0_MAX, seed0);
    const long pick = mb_solver_pick(v);
    const int across = v->p_rec > 1; /* its rivals: one learner's held-out sweep */
    if (pick < 0 && !across && !mb_solver_calibration_only(v))
        return mb_error_set(err, MB_ENODATA, "no recommendation to hold out: no run trained "
                            "the recommended M = %.0f (train it first)",
                            mb_solver_m_whole(v->m_rec, v->p_rec));
    /* the recommendation: the row that trained it, or, where no run reached this target (runs
     * that calibrated a law extrapolated to it) or at P > 1, the model's optimum itself (a
     * whole number a learner) */
    const double m_pick = pick >= 0 ? v->rows[pick].batch : mb_solver_m_whole(v->m_rec, v->p_rec);
    plan->p = pick >= 0 ? v->rows[pick].procs : v->p_rec;
    plan->lr = pick >= 0 ? v->rows[pick].lr : v->lr_rec;
    if (!isfinite(m_lo))
        m_lo = 1;
    if (!isfinite(m_hi))
        m_hi = INFINITY;
    /* the recommendation first, then its rivals, then the sweep around it; at P > 1 the
     * recommendation alone, its rivals being one learner's held-out sweep (the same seeds) */
    plan_add(plan, m_pick, "recommended", across ? 1 : m_lo, across ? INFINITY : m_hi);
    if (!across) {
        if (v->best >= 0 && in_play(&v->rows[v->best], plan->p, plan->lr, 0, INFINITY))
            plan_add(plan, v->rows[v->best].batch, "in-sample best", m_lo, m_hi);
        plan_add(plan, v->m_rec, "model's optimum", m_lo, m_hi);
        /* the nearest neighbours only: where one of them is the held-out best, the sweep
         * goes on past it a step at a time (mb_solver_holdout_beyond), so the best it grades
         * against has neighbours on both sides without training the far ones every time */
        plan_add(plan, holdout_step(m_pick, -1), "neighbour", m_lo, m_hi);
        plan_add(plan, holdout_step(m_pick, +1), "neighbour", m_lo, m_hi);
    }
    /* fresh seeds: from seed0 up, skipping every seed any given run used, and `skip` */
    unsigned long s = seed0;
    while (plan->n_seeds < n_seeds) {
        int used = 0;
        for (size_t i = 0; i < runs->n && !used; i++)
            used = runs->seed[i] == (double)s;
        for (size_t i = 0; i < n_skip && !used; i++)
            used = skip[i] == (double)s;
        if (!used)
            plan->seeds[plan->n_seeds++] = s;
        s++;
    }
    return MB_OK;
}

/* ---- the check ------------------------------------------------------------------------------- */

/* A row's runs as times (steady: mb_solver_steady's, else wall), the unreached as +inf (pool
 * holds r->runs). */
static size_t row_pool(const mb_validate_row *r, int steady, double *pool)
{
    const double *t = steady && r->s_runs && isfinite(r->s_median) ? r->s_runs : r->t_runs;
    size_t k = 0;
    for (; k < r->reached; k++)
        pool[k] = t[k];
    for (; k < r->runs; k++)
        pool[k] = INFINITY;
    return k;
}

static double median_of(double *x, size_t n)
{
    gsl_sort(x, 1, n);
    return gsl_stats_median_from_sorted_data(x, 1, n);
}

/* The median of a resample, with replacement, of pool[0..n) (scratch holds n). */
static double resampled_median(gsl_rng *g, const double *pool, size_t n, double *scratch)
{
    for (size_t i = 0; i < n; i++)
        scratch[i] = pool[gsl_rng_uniform_int(g, n)];
    return median_of(scratch, n);
}

/* The percentile interval [lo, hi] at `level` of x[0..n) (sorted here); +inf stays +inf. */
static void interval(double *x, size_t n, double level, double ci[2])
{
    gsl_sort(x, 1, n);
    const double a = (1 - level) / 2;
    size_t i = (size_t)floor(a * (double)(n - 1)), j = (size_t)ceil((1 - a) * (double)(n - 1));
    ci[0] = x[i];
    ci[1] = x[j];
}

/* The median |error|'s interval from its draws err_b[0..n) (sorted here): their percentile
 * interval moved by their bias, the draws' median less the point's, and kept at or above 0. A
 * draw's medians scatter about the held-out medians as those scatter about the population's,
 * so a draw's |error| lies above a prediction that is close to the held-out medians: the bare
 * percentile interval can miss its own point (1.9-11.8% about 1.3% on an H200's held-out runs).
 * Moved by the bias, it holds the point always. A draw median of +inf (most draws graded
 * nothing) leaves the percentile interval, stretched down to the point. */
static void err_interval(double *err_b, size_t n, double level, double point, double ci[2])
{
    interval(err_b, n, level, ci);
    const double mid = err_b[(n - 1) / 2], bias = mid - point;
    if (!isfinite(bias)) {
        ci[0] = fmin(ci[0], point);
        return;
    }
    ci[0] = fmax(0, ci[0] - bias);
    ci[1] -= bias; /* +inf stays +inf */
}

/* Row indexes in play, their pools (runs each, ragged, +inf for the unreached) and sizes. */
typedef struct pools {
    size_t n, *row, *len, total;
    double *x, **at, *scratch;
} pools;

static void pools_free(pools *p)
{
    free(p->row);
    free(p->len);
    free(p->x);
    free(p->at);
    free(p->scratch);
}

/* Whether a row is one of the pools: in play at (p, lr) inside [m_lo, m_hi], or the setting
 * (p_also, m_also) at rate lr (the recommendation at another P; NAN: none). */
static int pooled(const mb_validate_row *r, double p, double lr, double m_lo, double m_hi,
                  double p_also, double m_also)
{
    return r->runs > 0 && (in_play(r, p, lr, m_lo, m_hi) ||
                           (r->procs == p_also && r->batch == m_also &&
                            mb_solver_same_rate(r->lr, lr)));
}

static int pools_make(const mb_validate *v, double p, double lr, double m_lo, double m_hi,
                      double p_also, double m_also, int steady, pools *ps, mb_error *err)
{
    memset(ps, 0, sizeof *ps);
    size_t most = 1;
    for (size_t i = 0; i < v->n_rows; i++)
        if (pooled(&v->rows[i], p, lr, m_lo, m_hi, p_also, m_also)) {
            ps->n++;
            ps->total += v->rows[i].runs;
            most = v->rows[i].runs > most ? v->rows[i].runs : most;
        }
    ps->row = malloc((ps->n + 1) * sizeof *ps->row);
    ps->len = malloc((ps->n + 1) * sizeof *ps->len);
    ps->at = malloc((ps->n + 1) * sizeof *ps->at);
    ps->x = malloc((ps->total + 1) * sizeof *ps->x);
    ps->scratch = malloc(most * sizeof *ps->scratch);
    if (!ps->row || !ps->len || !ps->at || !ps->x || !ps->scratch) {
        pools_free(ps);
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    }
    size_t k = 0, off = 0;
    for (size_t i = 0; i < v->n_rows; i++)
        if (pooled(&v->rows[i], p, lr, m_lo, m_hi, p_also, m_also)) {
            ps->row[k] = i;
            ps->at[k] = ps->x + off;
            ps->len[k] = row_pool(&v->rows[i], steady, ps->at[k]);
            off += ps->len[k++];
        }
    return MB_OK;
}

/* A resample of seeds for the paired bootstrap: the seeds the settings in play trained (u, n_u),
 * how often each was drawn (count), and room for one setting's runs counted that often (buf). */
typedef struct seed_draw {
    double *u;
    size_t n_u, *count;
    double *buf;
} seed_draw;

static void seed_draw_free(seed_draw *d)
{
    free(d->u);
    free(d->count);
    free(d->buf);
}

/* The seeds of the rows in play (ps), for pairing; n_u = 0 when a run's seed is not known (the
 * bootstrap then draws every setting's runs on their own). */
static int seed_draw_make(const mb_validate *h, const pools *ps, seed_draw *d)
{
    memset(d, 0, sizeof *d);
    size_t most = 1;
    for (size_t k = 0; k < ps->n; k++)
        most = h->rows[ps->row[k]].runs > most ? h->rows[ps->row[k]].runs : most;
    d->u = malloc((ps->total + 1) * sizeof *d->u);
    d->count = malloc((ps->total + 1) * sizeof *d->count);
    d->buf = malloc((most * ps->total + 1) * sizeof *d->buf);
    if (!d->u || !d->count || !d->buf)
        return MB_ENOMEM;
    for (size_t k = 0; k < ps->n; k++) {
        const mb_validate_row *r = &h->rows[ps->row[k]];
        if (!r->seed) {
            d->n_u = 0;
            return MB_OK;
        }
        for (size_t j = 0; j < r->runs; j++) {
            if (isnan(r->seed[j])) {
                d->n_u = 0;
                return MB_OK;
            }
            size_t u = 0;
            while (u < d->n_u && d->u[u] != r->seed[j])
                u++;
            if (u == d->n_u)
                d->u[d->n_u++] = r->seed[j];
        }
    }
    return MB_OK;
}

/* The median of row r's runs over the drawn seeds, each run counted as often as its seed was
 * drawn; NAN when no drawn seed trained r. */
static double paired_median(const mb_validate_row *r, const seed_draw *d)
{
    size_t n = 0;
    for (size_t j = 0; j < r->runs; j++) {
        size_t u = 0;
        while (u < d->n_u && d->u[u] != r->seed[j])
            u++;
        for (size_t c = 0; u < d->n_u && c < d->count[u]; c++)
            d->buf[n++] = r->t_seed[j];
    }
    return n ? median_of(d->buf, n) : NAN;
}

/* The check of the recommendation (m_pick, p) against the settings at P p_rivals: p itself
 * (mb_solver_holdout), or one learner's (mb_solver_holdout_across). */
/* Where every graded setting's runs took longer (or less) an update than the model, the level
 * that shares: the median of their seconds per update over the model's, and T_C's median |error|
 * with the model's T_update scaled by it, so a check on a machine that ran slower than during
 * the runs that calibrated T_update says how far the model is off apart from that (scratch holds
 * ps->n doubles). */
static void speed_level(const mb_validate *h, const pools *ps, double *scratch, mb_holdout *out)
{
    out->tu_level = out->median_abs_err_level = NAN;
    if (out->tu_side == 0)
        return;
    size_t n = 0;
    for (size_t k = 0; k < ps->n; k++) {
        const mb_validate_row *r = &h->rows[ps->row[k]];
        if (isfinite(r->t_update_rel_err) && r->t_update_rel_err > -1)
            scratch[n++] = 1 / (1 + r->t_update_rel_err); /* runs / model */
    }
    if (n == 0)
        return;
    out->tu_level = median_of(scratch, n);
    n = 0;
    for (size_t k = 0; k < ps->n; k++) {
        const mb_validate_row *r = &h->rows[ps->row[k]];
        if (isfinite(r->rel_err) && r->t_median > 0)
            scratch[n++] = fabs(r->t_pred * out->tu_level - r->t_median) / r->t_median;
    }
    if (n)
        out->median_abs_err_level = median_of(scratch, n);
}

static int holdout_check(const mb_validate *h, double m_pick, double p, double p_rivals,
                         double lr, size_t n_boot, mb_holdout *out, mb_error *err)
{
    memset(out, 0, sizeof *out);
    out->rec = out->best = out->rival = -1;
    out->ratio = out->rival_ratio = out->median_abs_err = out->flat_lo = out->flat_hi = NAN;
    out->median_abs_n_err = out->median_abs_tu_err = NAN;
    out->ratio_ci[0] = out->ratio_ci[1] = out->rival_ci[0] = out->rival_ci[1] = NAN;
    out->err_ci[0] = out->err_ci[1] = NAN;
    if (n_boot < 100)
        n_boot = 100;
    pools ps;
    seed_draw sd = {0};
    if (pools_make(h, p_rivals, lr, 0, INFINITY, p == p_rivals ? NAN : p, round(m_pick), 0, &ps,
                   err) != MB_OK)
        return MB_ENOMEM;
    double *med = malloc((ps.n + 1) * sizeof *med), *ratio = malloc(n_boot * sizeof *ratio),
           *rival = malloc(n_boot * sizeof *rival), *errs = malloc(4 * (ps.n + 1) * sizeof *errs),
           *err_b = malloc(n_boot * sizeof *err_b);
    int rc = MB_OK;
    if (!med || !ratio || !rival || !errs || !err_b) {
        rc = mb_error_set(err, MB_ENOMEM, "out of memory");
        goto done;
    }
    size_t rec = ps.n;
    for (size_t k = 0; k < ps.n; k++)
        if (h->rows[ps.row[k]].batch == round(m_pick) && h->rows[ps.row[k]].procs == p)
            rec = k;
    if (rec == ps.n) {
        rc = mb_error_set(err, MB_ENODATA, "no held-out run trained the recommended M = %g at "
                          "P = %g: train it on fresh seeds (mbopt validate --holdout-plan)",
                          round(m_pick), p);
        goto done;
    }
    if (ps.n < 2) {
        rc = mb_error_set(err, MB_ENODATA, p == p_rivals
                                               ? "the held-out runs trained only M = %g: a check "
                                                 "needs a rival to compare with (the plan "
                                                 "trains several M)"
                                               : "the held-out runs trained M = %g at P = %g and "
                                                 "nothing at P = %g: a check across learner "
                                                 "counts needs the one-learner held-out sweep",
                          round(m_pick), p, p_rivals);
        goto done;
    }
    /* the point figures: medians of every setting's held-out runs */
    size_t best = 0, rv = rec == 0 ? 1 : 0, n_err = 0, n_n = 0, n_tu = 0, n_slow = 0,
           n_fast = 0;
    double *n_errs = errs + ps.n + 1, *tu_errs = errs + 2 * (ps.n + 1);
    out->seeds_lo = SIZE_MAX;
    for (size_t k = 0; k < ps.n; k++) {
        const mb_validate_row *r = &h->rows[ps.row[k]];
        memcpy(ps.scratch, ps.at[k], ps.len[k] * sizeof *ps.scratch);
        med[k] = median_of(ps.scratch, ps.len[k]);
        if (med[k] < med[best])
            best = k;
        if (k != rec && med[k] < med[rv])
            rv = k;
        if (isfinite(r->rel_err))
            errs[n_err++] = fabs(r->rel_err);
        if (isfinite(r->n_pred) && r->n_median > 0)
            n_errs[n_n++] = fabs(r->n_pred - r->n_median) / r->n_median;
        if (isfinite(r->t_update_rel_err)) {
            tu_errs[n_tu++] = fabs(r->t_update_rel_err);
            n_slow += r->t_update_rel_err < 0; /* the model's T_update below the runs' */
            n_fast += r->t_update_rel_err > 0; /* above (equal: neither side) */
        }
        out->seeds_lo = r->runs < out->seeds_lo ? r->runs : out->seeds_lo;
        out->seeds_hi = r->runs > out->seeds_hi ? r->runs : out->seeds_hi;
    }
    out->rec = (long)ps.row[rec];
    out->best = (long)ps.row[best];
    out->rival = (long)ps.row[rv];
    out->ratio = med[rec] / med[best];
    out->rival_ratio = med[rec] / med[rv];
    out->n_err = n_err;
    out->median_abs_err = n_err ? median_of(errs, n_err) : NAN;
    out->median_abs_n_err = n_n ? median_of(n_errs, n_n) : NAN;
    out->median_abs_tu_err = n_tu ? median_of(tu_errs, n_tu) : NAN;
    out->tu_side = n_tu < 3 ? 0 : n_slow == n_tu ? -1 : n_fast == n_tu ? 1 : 0;
    speed_level(h, &ps, errs + 3 * (ps.n + 1), out);
    if (isfinite(med[best])) {
        out->flat_lo = INFINITY;
        out->flat_hi = 0;
        for (size_t k = 0; k < ps.n; k++) /* over the rivals' learner count */
            if (h->rows[ps.row[k]].procs == p_rivals &&
                med[k] <= (1 + MB_SOLVER_FLAT) * med[best]) {
                out->flat_lo = fmin(out->flat_lo, h->rows[ps.row[k]].batch);
                out->flat_hi = fmax(out->flat_hi, h->rows[ps.row[k]].batch);
            }
    }
    /* the intervals: seeds drawn again, and every setting's runs of the drawn seeds (paired: the
     * plan trains every setting on the same seeds, interleaved, so a slow phase of the machine
     * over one seed's runs moves every setting alike); a setting that trained none of the drawn
     * seeds, or runs of unknown seeds, are drawn on their own */
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    if (!g || seed_draw_make(h, &ps, &sd) != MB_OK) {
        gsl_rng_free(g);
        rc = mb_error_set(err, MB_ENOMEM, "out of memory");
        goto done;
    }
    out->paired = sd.n_u > 0;
    gsl_rng_set(g, 20151);
    double *err_k = errs + 3 * (ps.n + 1); /* one draw's |error| of every setting */
    for (size_t b = 0; b < n_boot; b++) {
        double m_rec = NAN, m_best = INFINITY, m_rival = INFINITY;
        size_t n_k = 0;
        memset(sd.count, 0, sd.n_u * sizeof *sd.count);
        for (size_t i = 0; i < sd.n_u; i++)
            sd.count[gsl_rng_uniform_int(g, sd.n_u)]++;
        for (size_t k = 0; k < ps.n; k++) {
            const mb_validate_row *r = &h->rows[ps.row[k]];
            double x = sd.n_u ? paired_median(r, &sd) : NAN;
            if (isnan(x))
                x = resampled_median(g, ps.at[k], ps.len[k], ps.scratch);
            if (isfinite(r->rel_err) && isfinite(x) && x > 0) /* graded rows, as the point's */
                err_k[n_k++] = fabs(r->t_pred - x) / x;
            if (k == rec)
                m_rec = x;
            else
                m_rival = fmin(m_rival, x);
            m_best = fmin(m_best, x);
        }
        ratio[b] = m_rec / m_best;
        rival[b] = m_rec / m_rival;
        if (isnan(ratio[b]))
            ratio[b] = INFINITY; /* inf / inf: neither reached; the recommendation no better */
        if (isnan(rival[b]))
            rival[b] = 1;
        /* a draw that left every graded setting unreached grades nothing: as far off as can be */
        err_b[b] = n_k ? median_of(err_k, n_k) : INFINITY;
    }
    gsl_rng_free(g);
    interval(ratio, n_boot, MB_HOLDOUT_LEVEL, out->ratio_ci);
    interval(rival, n_boot, MB_HOLDOUT_LEVEL, out->rival_ci);
    if (n_err)
        err_interval(err_b, n_boot, MB_HOLDOUT_LEVEL, out->median_abs_err, out->err_ci);
    out->verdict = out->rival_ci[1] < 1   ? MB_HOLDOUT_AHEAD
                   : out->rival_ci[0] > 1 ? MB_HOLDOUT_BEHIND
                                          : MB_HOLDOUT_TIED;
done:
    free(med);
    free(ratio);
    free(rival);
    free(errs);
    free(err_b);
    seed_draw_free(&sd);
    pools_free(&ps);
    return rc;
}

int mb_solver_holdout(const mb_validate *h, double m_pick, double p, double lr, size_t n_boot,
                      mb_holdout *out, mb_error *err)
{
    return holdout_check(h, m_pick, p, p, lr, n_boot, out, err);
}

int mb_solver_holdout_across(const mb_validate *h, double m_pick, double p, double lr,
                             size_t n_boot, mb_holdout *out, mb_error *err)
{
    return holdout_check(h, m_pick, p, 1, lr, n_boot, out, err);
}

double mb_solver_holdout_beyond(const mb_validate *h, const mb_holdout *o, double p, double lr,
                                double m_lo, double m_hi)
{
    if (o->best < 0 || 2 * h->rows[o->best].reached <= h->rows[o->best].runs)
        return NAN; /* most of the best's runs did not reach the target: no best to extend */
    const double best = h->rows[o->best].batch;
    double lo = INFINITY, hi = 0;
    for (size_t i = 0; i < h->n_rows; i++)
        if (in_play(&h->rows[i], p, lr, 0, INFINITY) && h->rows[i].runs > 0) {
            lo = fmin(lo, h->rows[i].batch);
            hi = fmax(hi, h->rows[i].batch);
        }
    double m = best == lo && best > 1 ? holdout_step(best, -1)
               : best == hi             ? holdout_step(best, +1)
                                        : NAN;
    if (!(m >= 1) || m == best || m < floor(isfinite(m_lo) ? m_lo : 1) ||
        (isfinite(m_hi) && m > ceil(m_hi)))
        return NAN;
    return m;
}

const char *mb_solver_holdout_verdict_name(mb_holdout_verdict v)
{
    switch (v) {
    case MB_HOLDOUT_AHEAD: return "ahead";
    case MB_HOLDOUT_BEHIND: return "behind";
    default: return "tied";
    }
}

/* ---- sequential sampling --------------------------------------------------------------------- */

size_t mb_solver_fill(const mb_validate *v, long leader, double m_lo, double m_hi, double out[2])
{
    if (leader < 0)
        return 0;
    const mb_validate_row *l = &v->rows[leader];
    const double lo = isfinite(m_lo) ? floor(m_lo) : 1, hi = isfinite(m_hi) ? ceil(m_hi) : INFINITY;
    const double cand[2] = {round(l->batch * 1.5), round(l->batch / 1.5)};
    size_t n = 0;
    for (size_t c = 0; c < 2; c++) {
        int near = !(cand[c] >= lo && cand[c] <= hi && cand[c] >= 1);
        for (size_t i = 0; i < v->n_rows && !near; i++)
            near = v->rows[i].runs > 0 && in_play(&v->rows[i], l->procs, l->lr, 0, INFINITY) &&
                   near_m(v->rows[i].batch, cand[c]);
        if (!near)
            out[n++] = cand[c];
    }
    return n;
}

/* The standard deviation of log time about each setting's mean log time, pooled over the
 * settings with two or more runs that reached the target (sum of squares over sum of n - 1);
 * NAN with no such setting. */
static double pooled_log_sd(const pools *ps)
{
    double ss = 0, dof = 0;
    for (size_t k = 0; k < ps->n; k++)
        mb_fit_log_spread_add(ps->at[k], ps->len[k], &ss, &dof);
    return dof > 0 ? sqrt(ss / dof) : NAN;
}

/* The differences ln(a's steady time) - ln(l's) over the seeds both rows trained to the target
 * (a run's updates at its row's modelled seconds per update, as the pools hold them), into d
 * (room for a->runs); 0 when either row's updates by seed or model are not known. */
static size_t seed_diffs(const mb_validate_row *a, const mb_validate_row *l, double *d)
{
    if (!a->n_seed || !l->n_seed || !(a->t_update_pred > 0 && isfinite(a->t_update_pred)) ||
        !(l->t_update_pred > 0 && isfinite(l->t_update_pred)))
        return 0;
    size_t n = 0;
    for (size_t j = 0; j < a->runs; j++) {
        if (!isfinite(a->n_seed[j]) || !isfinite(a->seed[j]))
            continue;
        for (size_t i = 0; i < l->runs; i++)
            if (l->seed[i] == a->seed[j]) {
                const double x = log(a->n_seed[j] * a->t_update_pred /
                                     (l->n_seed[i] * l->t_update_pred));
                if (isfinite(x))
                    d[n++] = x;
                break;
            }
    }
    return n;
}

/* Which rivals of the leader `lead` still contend, judged seed by seed: contends[k] is 1 or 0
 * for a rival that trained MB_SEQUENTIAL_PAIRED_MIN or more of the leader's seeds, -1 for the
 * rest (the intervals of the medians judge those). A seed's luck moves its runs at every M alike
 * (docs/design.md, "Seeds paired in settling"), so the mean of the differences in log time is
 * known long before either median is: a rival contends while that mean less t sd / sqrt(n) (the
 * upper end of a two-sided MB_SEQUENTIAL_LEVEL interval) is not above 0, sd the larger of its
 * own differences' and theirs pooled over every such rival (a few seeds that happen to agree do
 * not decide it). */
static int paired_rivals(const mb_validate *v, const pools *ps, size_t lead, mb_sequential *out,
                         int *contends)
{
    const mb_validate_row *l = &v->rows[ps->row[lead]];
    double *mean = malloc((ps->n + 1) * sizeof *mean), *sd = malloc((ps->n + 1) * sizeof *sd),
           *d = malloc((ps->total + 1) * sizeof *d);
    size_t *n = malloc((ps->n + 1) * sizeof *n);
    if (!mean || !sd || !d || !n) {
        free(mean), free(sd), free(d), free(n);
        return MB_ENOMEM;
    }
    double ss = 0, dof = 0;
    for (size_t k = 0; k < ps->n; k++) {
        contends[k] = -1;
        n[k] = k == lead ? 0 : seed_diffs(&v->rows[ps->row[k]], l, d);
        mean[k] = sd[k] = NAN;
        if (n[k] < 2)
            continue;
        mean[k] = gsl_stats_mean(d, 1, n[k]);
        sd[k] = gsl_stats_sd_m(d, 1, n[k], mean[k]); /* two passes */
        ss += sd[k] * sd[k] * (double)(n[k] - 1);
        dof += (double)(n[k] - 1);
    }
    out->paired_sd = dof > 0 ? sqrt(ss / dof) : NAN;
    for (size_t k = 0; k < ps->n; k++) {
        if (n[k] < MB_SEQUENTIAL_PAIRED_MIN)
            continue;
        const double s = fmax(sd[k], out->paired_sd),
                     q = gsl_cdf_tdist_Pinv((1 + MB_SEQUENTIAL_LEVEL) / 2, (double)(n[k] - 1));
        contends[k] = !(mean[k] - q * s / sqrt((double)n[k]) > 0);
        out->n_paired++;
    }
    free(mean), free(sd), free(d), free(n);
    return MB_OK;
}

int mb_solver_sequential(const mb_validate *v, double p, double lr, double m_lo, double m_hi,
                         size_t max_seeds, mb_sequential *out, mb_error *err)
{
    memset(out, 0, sizeof *out);
    out->leader = -1;
    pools ps;
    if (pools_make(v, p, lr, isfinite(m_lo) ? m_lo : 0, isfinite(m_hi) ? m_hi : INFINITY, NAN,
                   NAN, 1, &ps, err) != MB_OK)
        return MB_ENOMEM;
    enum { BOOT = 1000 };
    double *lo = malloc((ps.n + 1) * sizeof *lo), *hi = malloc((ps.n + 1) * sizeof *hi),
           *med = malloc((ps.n + 1) * sizeof *med), *draw = malloc(BOOT * sizeof *draw);
    int *contends = malloc((ps.n + 1) * sizeof *contends);
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    int rc = MB_OK;
    if (!lo || !hi || !med || !draw || !contends || !g) {
        rc = mb_error_set(err, MB_ENOMEM, "out of memory");
        goto done;
    }
    gsl_rng_set(g, 20152);
    size_t lead = ps.n;
    for (size_t k = 0; k < ps.n; k++) {
        memcpy(ps.scratch, ps.at[k], ps.len[k] * sizeof *ps.scratch);
        med[k] = median_of(ps.scratch, ps.len[k]);
        for (size_t b = 0; b < BOOT; b++)
            draw[b] = resampled_median(g, ps.at[k], ps.len[k], ps.scratch);
        double ci[2];
        interval(draw, BOOT, MB_SEQUENTIAL_LEVEL, ci);
        lo[k] = ci[0];
        hi[k] = ci[1];
        if (isfinite(med[k]) && (lead == ps.n || med[k] < med[lead]))
            lead = k;
    }
    if (lead == ps.n)
        goto done; /* nothing reached the target: nothing to decide */
    out->leader = (long)ps.row[lead];
    /* a percentile interval of 3 runs is no wider than their range, and 3 lucky runs look
     * decided: each interval is widened to the median's normal-theory interval under the
     * spread pooled over every setting (the seed-to-seed spread of log time is much the same
     * at every M, and the pool has many more runs than any one setting) */
    out->pooled_sd = pooled_log_sd(&ps);
    if (isfinite(out->pooled_sd)) {
        const double z = gsl_cdf_ugaussian_Qinv((1 - MB_SEQUENTIAL_LEVEL) / 2);
        for (size_t k = 0; k < ps.n; k++) {
            if (!isfinite(med[k]))
                continue;
            double h = z * sqrt(M_PI / 2) * out->pooled_sd / sqrt((double)ps.len[k]);
            lo[k] = fmin(lo[k], med[k] * exp(-h));
            hi[k] = fmax(hi[k], med[k] * exp(h));
        }
    }
    if (paired_rivals(v, &ps, lead, out, contends) != MB_OK) {
        rc = mb_error_set(err, MB_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t k = 0; k < ps.n; k++) {
        if (k == lead || (contends[k] < 0 ? !(lo[k] <= hi[lead]) : !contends[k]))
            continue;
        out->overlap[out->n_overlap++] = (long)ps.row[k];
        if (out->n_overlap == MB_HOLDOUT_MAX_ROWS)
            break;
    }
    /* the leader and its MB_SEQUENTIAL_WANT nearest rivals (by median) get a seed, up to
     * max_seeds runs each: a round spent on every overlapping setting leaves too few for the
     * decision between the leader and its closest rival */
    if (out->n_overlap > 0 && v->rows[out->leader].runs < max_seeds)
        out->want[out->n_want++] = out->leader;
    for (size_t picked = 0; picked < MB_SEQUENTIAL_WANT;) {
        size_t next = ps.n;
        for (size_t k = 0; k < ps.n; k++) {
            int listed = 0, taken = 0;
            for (size_t j = 0; j < out->n_overlap; j++)
                listed |= out->overlap[j] == (long)ps.row[k];
            for (size_t j = 0; j < out->n_want; j++)
                taken |= out->want[j] == (long)ps.row[k];
            if (listed && !taken && v->rows[ps.row[k]].runs < max_seeds &&
                (next == ps.n || med[k] < med[next]))
                next = k;
        }
        if (next == ps.n)
            break;
        out->want[out->n_want++] = (long)ps.row[next];
        picked++;
    }
    out->decided = out->n_overlap == 0;
    out->capped = out->n_overlap > 0 && out->n_want == 0;
done:
    free(lo);
    free(hi);
    free(med);
    free(draw);
    free(contends);
    gsl_rng_free(g);
    pools_free(&ps);
    return rc;
}

int mb_solver_machine_speed(const mb_fit_runs *first, const char *const *first_paths,
                            const mb_fit_runs *again, const char *const *paths, size_t n_boot,
                            mb_machine_speed *out, mb_error *err)
{
    memset(out, 0, sizeof *out);
    out->ratio = out->ci[0] = out->ci[1] = NAN;
    if (again->n == 0)
        return mb_error_set(err, MB_ENODATA, "no repeated runs");
    double *x = malloc(2 * again->n * sizeof *x), *scratch = x + again->n;
    if (!x)
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    int rc = MB_OK;
    out->m_lo = INFINITY;
    out->m_hi = -INFINITY;
    for (size_t i = 0; rc == MB_OK && i < again->n; i++) {
        size_t found = 0, at = 0;
        for (size_t j = 0; j < first->n; j++)
            if (first->batch[j] == again->batch[i] && first->seed[j] == again->seed[i] &&
                first->procs[j] == again->procs[i] &&
                mb_solver_same_rate(first->lr[j], again->lr[i]) &&
                strcmp(first->net[j], again->net[i]) == 0 &&
                strcmp(first->algo[j], again->algo[i]) == 0) {
                found++;
                at = j;
            }
        if (isnan(again->seed[i]))
            rc = mb_error_set(err, MB_EINVAL, "%s: no seed (no metadata 'seed'): a repeat is a "
                              "run that fitted or chose trained again, found by its M and seed",
                              paths[again->file[i]]);
        else if (found != 1)
            rc = mb_error_set(err, MB_EINVAL, "%s: %s run that fitted or chose has M = %g, "
                              "seed %g, %g learner%s at its rate, net '%s' and algo '%s': a "
                              "repeat is one of those runs trained again", paths[again->file[i]],
                              found ? "more than one" : "no", again->batch[i], again->seed[i],
                              again->procs[i], again->procs[i] == 1 ? "" : "s", again->net[i],
                              again->algo[i]);
        else if (!(again->t_step[i] > 0) || !(first->t_step[at] > 0))
            rc = !(again->t_step[i] > 0) /* each named once (campaign 42's B-F2) */
                 ? mb_error_set(err, MB_EINVAL, "%s: no seconds per update (wall_s) in it, a "
                                "repeat of %s", paths[again->file[i]],
                                first_paths[first->file[at]])
                 : mb_error_set(err, MB_EINVAL, "%s: no seconds per update (wall_s) in the run "
                                "it repeats, %s", paths[again->file[i]],
                                first_paths[first->file[at]]);
        else {
            x[i] = again->t_step[i] / first->t_step[at];
            out->m_lo = fmin(out->m_lo, again->batch[i]);
            out->m_hi = fmax(out->m_hi, again->batch[i]);
        }
    }
    gsl_rng *g = rc == MB_OK ? gsl_rng_alloc(gsl_rng_mt19937) : NULL;
    double *draws = g ? malloc((n_boot < 100 ? 100 : n_boot) * sizeof *draws) : NULL;
    if (rc == MB_OK && (!g || !draws))
        rc = mb_error_set(err, MB_ENOMEM, "out of memory");
    if (rc == MB_OK) {
        const size_t nb = n_boot < 100 ? 100 : n_boot;
        gsl_rng_set(g, 20153);
        for (size_t b = 0; b < nb; b++)
            draws[b] = resampled_median(g, x, again->n, scratch);
        interval(draws, nb, MB_HOLDOUT_LEVEL, out->ci);
        memcpy(scratch, x, again->n * sizeof *x);
        out->ratio = median_of(scratch, again->n);
        out->n = again->n;
    }
    free(draws);
    if (g)
        gsl_rng_free(g);
    free(x);
    return rc;
}

double mb_solver_holdout_err_at(const mb_validate *h, double p, double lr, double speed)
{
    double *e = malloc((h->n_rows + 1) * sizeof *e);
    size_t n = 0;
    for (size_t i = 0; e && i < h->n_rows; i++) {
        const mb_validate_row *r = &h->rows[i];
        if (r->runs > 0 && r->procs == p && mb_solver_same_rate(r->lr, lr) &&
            isfinite(r->rel_err) && r->t_median > 0)
            e[n++] = fabs(r->t_pred * speed - r->t_median) / r->t_median;
    }
    double med = n ? median_of(e, n) : NAN;
    free(e);
    return med;
}
