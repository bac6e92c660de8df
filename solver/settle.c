/* settle.c — settling near ties: among the trained settings the model cannot tell from its
 * optimum, the runs choose, each row's runs weighed against the model by their uncertainties,
 * and rows that trained the same seeds compared seed by seed (docs/design.md, "Settling near
 * ties"; mb_solver_settle's comment in mb_solver.h).
 *
 * Does not: build the rows or grade the answer (solver/validate.c), print (mbopt does).
 */
#include "mb_solver.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>

/* The model's optimum T_C at (m_rec, p_rec, lr_rec) is known only to within the model's error
 * on these very runs, so every trained setting in the range it searched that it predicts within
 * that band of the optimum is as good a candidate by its lights; the runs, which measured each,
 * choose among them. */
double mb_solver_steady(const mb_validate_row *r)
{
    return r->s_runs && isfinite(r->s_median) ? r->s_median : r->t_median;
}

/* Whether row r may settle the answer at all: at the answer's P, M in [m_lo, m_hi], most of its
 * runs reaching the target and none diverging. */
static int may_settle(const mb_validate_row *r, const mb_validate *v, double m_lo, double m_hi)
{
    return r->procs == v->p_rec && 2 * r->reached > r->runs && r->diverged == 0 &&
           r->batch >= m_lo && r->batch <= m_hi;
}

/* The rows settling weighs: at the answer's P, with steady times and a prediction. */
static int weighed(const mb_validate_row *r, const mb_validate *v)
{
    return r->procs == v->p_rec && r->s_runs && r->reached > 0 && isfinite(r->s_median) &&
           r->s_median > 0 && r->t_pred > 0 && isfinite(r->t_pred);
}

/* One reached run of a weighed row: its row, its seed (an index into the seeds) and its
 * residual ln(N_run / n_pred). */
typedef struct {
    size_t row, seed;
    double y;
} settle_run;

/* The weighed rows' reached runs, row by row and within a row by seed: row i's are
 * run[start[i] .. start[i + 1]). Seeds are numbered from 0: runs of one seed share a number, a
 * run whose seed is not known (a row without n_seed, or a NAN seed) has one of its own. */
typedef struct {
    settle_run *run;
    size_t n, n_seeds, *start;
} settle_set;

/* How many runs row r lists for residual(): every run by seed, else its reached ones. */
static size_t runs_of(const mb_validate_row *r)
{
    return r->n_seed ? r->runs : r->reached;
}

/* Run j's residual ln(N_run / n_pred) into *y: by seed (n_seed), else the j-th of the steady
 * times (s_runs: updates at the model's seconds per update, so the same ratio); 0 when run j
 * did not reach the target. */
static int residual(const mb_validate_row *r, size_t j, double *y)
{
    *y = r->n_seed ? log(r->n_seed[j] / r->n_pred) : log(r->s_runs[j] / r->t_pred);
    return isfinite(*y);
}

static int by_seed(const void *a, const void *b)
{
    const settle_run *x = a, *y = b;
    return (x->seed > y->seed) - (x->seed < y->seed);
}

/* The index of value x in the sorted, distinct seeds[0..n) (x is there). */
static size_t seed_index(const double *seeds, size_t n, double x)
{
    size_t lo = 0, hi = n;
    while (hi - lo > 1)
        if (seeds[(lo + hi) / 2] <= x)
            lo = (lo + hi) / 2;
        else
            hi = (lo + hi) / 2;
    return lo;
}

static void settle_set_free(settle_set *set)
{
    free(set->run);
    free(set->start);
    memset(set, 0, sizeof *set);
}

/* *set from v's weighed rows; 0 when out of memory (set empty). */
static int settle_set_make(const mb_validate *v, settle_set *set)
{
    size_t cap = 0;
    memset(set, 0, sizeof *set);
    for (size_t i = 0; i < v->n_rows; i++)
        if (weighed(&v->rows[i], v))
            cap += runs_of(&v->rows[i]);
    double *seeds = malloc((cap ? cap : 1) * sizeof *seeds);
    set->run = malloc((cap ? cap : 1) * sizeof *set->run);
    set->start = malloc((v->n_rows + 1) * sizeof *set->start);
    if (!seeds || !set->run || !set->start) {
        free(seeds);
        settle_set_free(set);
        return 0;
    }
    size_t known = 0, u = 0;
    for (size_t i = 0; i < v->n_rows; i++) {
        const mb_validate_row *r = &v->rows[i];
        for (size_t j = 0; r->n_seed && weighed(r, v) && j < r->runs; j++)
            if (!isnan(r->seed[j]))
                seeds[known++] = r->seed[j];
    }
    gsl_sort(seeds, 1, known);
    for (size_t k = 0; k < known; k++)
        if (u == 0 || seeds[k] != seeds[u - 1])
            seeds[u++] = seeds[k];
    set->n_seeds = u;
    for (size_t i = 0; i < v->n_rows; i++) {
        const mb_validate_row *r = &v->rows[i];
        set->start[i] = set->n;
        double y;
        for (size_t j = 0; weighed(r, v) && j < runs_of(r); j++) {
            if (!residual(r, j, &y))
                continue;
            const int known_seed = r->n_seed && !isnan(r->seed[j]);
            set->run[set->n++] = (settle_run){
                .row = i, .y = y,
                .seed = known_seed ? seed_index(seeds, u, r->seed[j]) : set->n_seeds++};
        }
        qsort(set->run + set->start[i], set->n - set->start[i], sizeof *set->run, by_seed);
    }
    set->start[v->n_rows] = set->n;
    free(seeds);
    return 1;
}

/* Rows i and k's runs of one seed, in pairs: calls f(ctx, y_i, y_k) for each seed both
 * trained (their runs are sorted by seed: a merge); returns how many. */
static size_t each_pair(const settle_set *set, size_t i, size_t k,
                        void (*f)(void *, double, double), void *ctx)
{
    size_t p = set->start[i], q = set->start[k], n = 0;
    while (p < set->start[i + 1] && q < set->start[k + 1]) {
        if (set->run[p].seed < set->run[q].seed) {
            p++;
        } else if (set->run[p].seed > set->run[q].seed) {
            q++;
        } else {
            f(ctx, set->run[p].y, set->run[q].y);
            p++, q++, n++;
        }
    }
    return n;
}

/* The pairs' differences: their sum, then (a second pass, about their mean) their sum of
 * squared deviations, never below 0 (the one-pass form's rounding was, for equal differences,
 * and its square root NaN: campaign 34's R1). */
typedef struct {
    double sum, mean, ss;
} diff_sums;

static void add_diff(void *ctx, double a, double b)
{
    ((diff_sums *)ctx)->sum += a - b;
}

static void add_dev(void *ctx, double a, double b)
{
    diff_sums *d = ctx;
    d->ss += (a - b - d->mean) * (a - b - d->mean);
}

/* Rows i and k's differences seed by seed into *d; returns how many seeds. */
static size_t pair_diffs(const settle_set *set, size_t i, size_t k, diff_sums *d)
{
    *d = (diff_sums){0, 0, 0};
    size_t m = each_pair(set, i, k, add_diff, d);
    if (m == 0)
        return 0;
    d->mean = d->sum / (double)m;
    each_pair(set, i, k, add_dev, d);
    return m;
}

/* The noise's variance, sd_seed^2: half the spread of the differences between two rows' runs of
 * one seed (the seed's effect cancels in them), pooled over every pair of rows with two seeds or
 * more in common; NAN when no pair has. */
static double paired_noise(const settle_set *set, size_t n_rows)
{
    double ss = 0, df = 0;
    for (size_t i = 0; i < n_rows; i++)
        for (size_t k = i + 1; k < n_rows; k++) {
            diff_sums d;
            size_t m = pair_diffs(set, i, k, &d);
            if (m >= 2) {
                ss += d.ss;
                df += (double)m - 1;
            }
        }
    return df > 0 ? ss / (2 * df) : NAN;
}

/* The rows' M effects (b, NAN where a row has no run) and their variances (var) under seed
 * effects of variance sa2 and noise of variance se2: backfitting to the best linear unbiased
 * predictor of each seed's effect (a, summed into sum), a seed's effect shrunk toward 0 by
 * se2 / sa2 runs. count: the runs of each seed. */
static void m_effects(const settle_set *set, size_t n_rows, double sa2, double se2, double *a,
                      double *sum, double *b, double *var, size_t *count)
{
    const settle_run *run = set->run;
    memset(a, 0, set->n_seeds * sizeof *a);
    memset(count, 0, set->n_seeds * sizeof *count);
    for (size_t p = 0; p < set->n; p++)
        count[run[p].seed]++;
    for (int it = 0; it < 200; it++) {
        double moved = 0;
        for (size_t i = 0; i < n_rows; i++) {
            double s = 0, m = (double)(set->start[i + 1] - set->start[i]);
            for (size_t p = set->start[i]; p < set->start[i + 1]; p++)
                s += run[p].y - a[run[p].seed];
            double nb = m > 0 ? s / m : NAN;
            if (it > 0 && isfinite(nb))
                moved = fmax(moved, fabs(nb - b[i]));
            b[i] = nb;
        }
        if (!(sa2 > 0) || (it > 0 && moved < 1e-12))
            break;
        memset(sum, 0, set->n_seeds * sizeof *sum);
        for (size_t p = 0; p < set->n; p++)
            sum[run[p].seed] += run[p].y - b[run[p].row];
        /* the seeds' effects average 0 over the runs: a level is the rows' (without noise the
         * split would be free) */
        double level = 0;
        for (size_t s = 0; s < set->n_seeds; s++) {
            a[s] = sum[s] / ((double)count[s] + se2 / sa2);
            level += a[s] * (double)count[s];
        }
        for (size_t s = 0; s < set->n_seeds; s++)
            a[s] -= level / (double)set->n;
    }
    /* a run's share of its row's variance: the noise, and what its seed's effect keeps unknown
     * after the seed's runs at the other M (all of it for a seed no other row trained) */
    for (size_t i = 0; i < n_rows; i++) {
        double s = 0, m = (double)(set->start[i + 1] - set->start[i]);
        for (size_t p = set->start[i]; p < set->start[i + 1]; p++) {
            double others = (double)count[run[p].seed] - 1;
            s += se2 + (!(sa2 > 0) ? 0 : others == 0 ? sa2 : sa2 * se2 / (others * sa2 + se2));
        }
        var[i] = m > 0 ? s / (m * m) : NAN;
    }
}

/* rows[].s_shrunk, v->sd_seed, v->sd_shared and v->sd_model (mb_solver_settle's comment). Out
 * of memory, nothing is weighed: the rows' steady times stand as measured. */
static void shrink(mb_validate *v, const settle_set *set)
{
    double ss = 0, df = 0;
    for (size_t i = 0; i < v->n_rows; i++) {
        v->rows[i].s_shrunk = v->rows[i].s_net = NAN;
        if (weighed(&v->rows[i], v))
            mb_fit_log_spread_add(v->rows[i].s_runs, v->rows[i].reached, &ss, &df);
    }
    v->sd_seed = v->sd_shared = v->sd_model = NAN;
    const size_t ns = set->n_seeds;
    double *a = set->n ? malloc((2 * ns + 2 * v->n_rows) * sizeof *a) : NULL;
    size_t *count = a ? malloc(ns * sizeof *count) : NULL;
    if (!count || !(df > 0)) {
        free(a), free(count);
        return;
    }
    /* within a row the runs differ by seed effect and noise; between two rows' runs of one seed
     * by noise alone: the seed effect's variance is the difference */
    const double total = ss / df, paired = paired_noise(set, v->n_rows);
    const double se2 = isfinite(paired) ? fmin(paired, total) : total, sa2 = total - se2;
    double *b = a + 2 * ns, *var = b + v->n_rows;
    m_effects(set, v->n_rows, sa2, se2, a, a + ns, b, var, count);
    /* the model's variance beyond the M effects' own: their mean square less their mean
     * variance */
    double b2 = 0, noise = 0;
    size_t rows = 0;
    for (size_t i = 0; i < v->n_rows; i++)
        if (isfinite(b[i]))
            b2 += b[i] * b[i], noise += var[i], rows++;
    v->sd_seed = sqrt(se2);
    v->sd_shared = sqrt(sa2);
    v->sd_model = rows ? sqrt(fmax(0, (b2 - noise) / (double)rows)) : NAN;
    const double m2 = v->sd_model * v->sd_model;
    for (size_t i = 0; i < v->n_rows; i++) {
        mb_validate_row *r = &v->rows[i];
        if (!isfinite(b[i]))
            continue;
        const double w = m2 + var[i] > 0 ? m2 / (m2 + var[i]) : 0.0;
        r->s_shrunk = r->t_pred * exp(w * b[i]);
        r->s_net = r->t_pred * exp(b[i]);
    }
    free(a), free(count);
}

/* Row c's steady time over row s's, seed by seed: the mean over the seeds both reached the
 * target with of ln(N_c T_c / (N_s T_s)) (T the model's seconds per update; the residuals'
 * difference plus ln(t_pred_c / t_pred_s)) into *d, its standard error into *se; returns how
 * many seeds. */
static size_t paired_ratio(const mb_validate *v, const settle_set *set, size_t c, size_t s,
                           double *d, double *se)
{
    diff_sums x;
    size_t n = pair_diffs(set, c, s, &x);
    const double m = (double)n, level = log(v->rows[c].t_pred / v->rows[s].t_pred);
    *d = n ? x.mean + level : NAN;
    *se = n > 1 ? sqrt(x.ss / (m - 1) / m) : NAN;
    return n;
}

double mb_solver_settle_time(const mb_validate_row *r)
{
    return isfinite(r->s_shrunk) ? r->s_shrunk : mb_solver_steady(r);
}

void mb_solver_settle(const mb_law *laws, const double *lrs, size_t n_laws,
                      const mb_update_time *t, double m_lo, double m_hi, mb_validate *v)
{
    const mb_law *law = mb_solver_law_for(laws, lrs, n_laws, v->lr_rec);
    double t_opt;
    v->settled = -1;
    v->settled_ratio = NAN;
    v->band = isfinite(v->median_abs_err) ? fmax(MB_SOLVER_EQUIV, v->median_abs_err)
                                          : MB_SOLVER_EQUIV;
    v->paired = -1;
    v->paired_ratio = v->paired_hi = NAN;
    v->paired_seeds = 0;
    settle_set set;
    if (settle_set_make(v, &set))
        shrink(v, &set);
    if (!law || mb_model_law_tc(law, t, v->m_rec, v->p_rec, &t_opt) != MB_OK) {
        settle_set_free(&set);
        return;
    }
    for (size_t i = 0; i < v->n_rows; i++) {
        mb_validate_row *r = &v->rows[i];
        r->candidate = may_settle(r, v, m_lo, m_hi) && r->t_pred <= (1 + v->band) * t_opt;
        if (r->candidate && (v->settled < 0 || mb_solver_settle_time(r) <
                                                   mb_solver_settle_time(&v->rows[v->settled])))
            v->settled = (long)i;
    }
    /* The runs' own comparison seed by seed overrules the weighing where it is decisive: a
     * candidate faster than the weighing's pick on MB_SOLVER_PAIRED_MIN or more seeds both
     * trained, its mean log ratio below 0 by MB_SOLVER_PAIRED_Z standard errors. The weighing
     * judges the law's shape by all the rows; two neighbours near the optimum can disagree with
     * it by more than their paired noise while every other row agrees (cnnap13: M = 18 faster
     * than the model's 27 on 7 of the 8 seeds both trained, a mean 12%, standard error 4%; held
     * out 1.04x where 27 was 1.17x). */
    for (size_t i = 0; i < v->n_rows && v->settled >= 0; i++) {
        double d, se;
        size_t n = v->rows[i].candidate && (long)i != v->settled
                       ? paired_ratio(v, &set, i, (size_t)v->settled, &d, &se)
                       : 0;
        if (n >= MB_SOLVER_PAIRED_MIN && d + MB_SOLVER_PAIRED_Z * se < 0 &&
            !(exp(d) >= v->paired_ratio)) {
            v->paired = (long)i;
            v->paired_ratio = exp(d);
            v->paired_hi = exp(d + MB_SOLVER_PAIRED_Z * se);
            v->paired_seeds = n;
        }
    }
    if (v->paired >= 0) {
        long beaten = v->settled;
        v->settled = v->paired;
        v->paired = beaten;
    }
    /* The runs overrule the band where they measured a setting outside it decisively faster:
     * MB_SOLVER_OVERRULE_RUNS or more runs (sequential sampling put them there), and a weighed
     * steady time below (1 - band) times the band's pick. The band keeps a noisy 3-run setting
     * far from the optimum from winning; it must not keep a well-sampled one from winning when
     * the model misplaces its optimum by more than its own error (cnn-deep: the model put it at
     * the range's low end, M = 32; the runs measured M = 48 over 10 seeds 18% faster). */
    v->overruled = 0;
    long alt = -1;
    for (size_t i = 0; i < v->n_rows && v->settled >= 0; i++) {
        const mb_validate_row *r = &v->rows[i];
        if (!r->candidate && may_settle(r, v, m_lo, m_hi) &&
            mb_solver_same_rate(r->lr, v->lr_rec) && r->runs >= MB_SOLVER_OVERRULE_RUNS &&
            (alt < 0 || mb_solver_settle_time(r) < mb_solver_settle_time(&v->rows[alt])))
            alt = (long)i;
    }
    if (alt >= 0 && mb_solver_settle_time(&v->rows[alt]) <
                        (1 - v->band) * mb_solver_settle_time(&v->rows[v->settled])) {
        v->settled = alt;
        v->overruled = 1;
        v->paired = -1;
    }
    if (v->settled >= 0 && v->best >= 0)
        v->settled_ratio = v->rows[v->settled].t_median / v->rows[v->best].t_median;
    settle_set_free(&set);
}

