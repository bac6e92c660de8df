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

/* The weighed rows' reached runs into *out (malloc'd; NULL and 0 when none or out of memory),
 * their seeds numbered from 0 in *n_seeds: runs of one seed share a number, a run whose seed
 * is not known (a row without n_seed, or a NAN seed) has one of its own. */
static size_t settle_runs(const mb_validate *v, settle_run **out, size_t *n_seeds)
{
    size_t n = 0, k = 0;
    *out = NULL;
    *n_seeds = 0;
    for (size_t i = 0; i < v->n_rows; i++)
        if (weighed(&v->rows[i], v))
            n += v->rows[i].runs;
    double *seeds = n ? malloc(n * sizeof *seeds) : NULL;
    settle_run *run = n ? malloc(n * sizeof *run) : NULL;
    if (!seeds || !run) {
        free(seeds), free(run);
        return 0;
    }
    size_t n_known = 0, next = 0;
    for (size_t i = 0; i < v->n_rows; i++) {
        const mb_validate_row *r = &v->rows[i];
        double y;
        if (!weighed(r, v))
            continue;
        for (size_t j = 0; j < runs_of(r); j++) {
            if (!residual(r, j, &y))
                continue;
            run[k] = (settle_run){.row = i, .seed = SIZE_MAX, .y = y};
            if (r->n_seed && !isnan(r->seed[j]))
                seeds[n_known++] = r->seed[j], run[k].seed = SIZE_MAX - 1; /* numbered below */
            k++;
        }
    }
    gsl_sort(seeds, 1, n_known);
    size_t u = 0;
    for (size_t s = 0; s < n_known; s++)
        if (u == 0 || seeds[s] != seeds[u - 1])
            seeds[u++] = seeds[s];
    next = u;
    for (size_t i = 0, j = 0; i < v->n_rows; i++) {
        const mb_validate_row *r = &v->rows[i];
        double y;
        if (!weighed(r, v))
            continue;
        for (size_t q = 0; q < runs_of(r); q++) {
            if (!residual(r, q, &y))
                continue;
            if (run[j].seed == SIZE_MAX) {
                run[j].seed = next++;
            } else {
                size_t lo = 0, hi = u;
                while (hi - lo > 1)
                    if (seeds[(lo + hi) / 2] <= r->seed[q])
                        lo = (lo + hi) / 2;
                    else
                        hi = (lo + hi) / 2;
                run[j].seed = lo;
            }
            j++;
        }
    }
    free(seeds);
    *n_seeds = next;
    *out = run;
    return k;
}

/* The noise's variance, sd_seed^2: half the spread of the differences between two rows' runs of
 * one seed (the seed's effect cancels in them), pooled over every pair of rows with two seeds or
 * more in common; NAN when no pair has. */
static double paired_noise(const settle_run *run, size_t n, size_t n_rows)
{
    double ss = 0, df = 0;
    for (size_t i = 0; i < n_rows; i++)
        for (size_t k = i + 1; k < n_rows; k++) {
            double sum = 0, sum2 = 0;
            size_t m = 0;
            for (size_t p = 0; p < n; p++) {
                if (run[p].row != i)
                    continue;
                for (size_t q = 0; q < n; q++)
                    if (run[q].row == k && run[q].seed == run[p].seed) {
                        double d = run[p].y - run[q].y;
                        sum += d, sum2 += d * d, m++;
                        break;
                    }
            }
            if (m >= 2) {
                ss += sum2 - sum * sum / (double)m;
                df += (double)m - 1;
            }
        }
    return df > 0 ? ss / (2 * df) : NAN;
}

/* The rows' M effects (b, NAN where a row has no run) and their variances (var) under seed
 * effects of variance sa2 and noise of variance se2: backfitting to the best linear unbiased
 * predictor of each seed's effect, a seed's effect shrunk toward 0 by se2 / sa2 runs. */
static void m_effects(const settle_run *run, size_t n, size_t n_rows, size_t n_seeds,
                      double sa2, double se2, double *a, double *b, double *var, size_t *count)
{
    memset(a, 0, n_seeds * sizeof *a);
    memset(count, 0, n_seeds * sizeof *count);
    for (size_t p = 0; p < n; p++)
        count[run[p].seed]++;
    for (int it = 0; it < 200; it++) {
        double moved = 0;
        for (size_t i = 0; i < n_rows; i++) {
            double sum = 0, m = 0;
            for (size_t p = 0; p < n; p++)
                if (run[p].row == i)
                    sum += run[p].y - a[run[p].seed], m++;
            double nb = m > 0 ? sum / m : NAN;
            if (it > 0 && isfinite(nb))
                moved = fmax(moved, fabs(nb - b[i]));
            b[i] = nb;
        }
        if (!(sa2 > 0) || (it > 0 && moved < 1e-12))
            break;
        double level = 0;
        for (size_t s = 0; s < n_seeds; s++) {
            double sum = 0;
            for (size_t p = 0; p < n; p++)
                if (run[p].seed == s)
                    sum += run[p].y - b[run[p].row];
            a[s] = sum / ((double)count[s] + se2 / sa2);
            level += a[s] * (double)count[s];
        }
        /* the seeds' effects average 0 over the runs: a level is the rows' (without noise the
         * split would be free) */
        for (size_t s = 0; s < n_seeds; s++)
            a[s] -= level / (double)n;
    }
    /* a run's share of its row's variance: the noise, and what its seed's effect keeps unknown
     * after the seed's runs at the other M (all of it for a seed no other row trained) */
    for (size_t i = 0; i < n_rows; i++) {
        double sum = 0, m = 0;
        for (size_t p = 0; p < n; p++) {
            if (run[p].row != i)
                continue;
            double others = (double)count[run[p].seed] - 1;
            sum += se2 + (sa2 > 0 ? sa2 * se2 / (others * sa2 + se2) : 0);
            m++;
        }
        var[i] = m > 0 ? sum / (m * m) : NAN;
    }
}

/* rows[].s_shrunk, v->sd_seed, v->sd_shared and v->sd_model (mb_solver_settle's comment). Out
 * of memory, nothing is weighed: the rows' steady times stand as measured. */
static void shrink(mb_validate *v)
{
    double ss = 0, df = 0;
    for (size_t i = 0; i < v->n_rows; i++) {
        v->rows[i].s_shrunk = NAN;
        if (weighed(&v->rows[i], v))
            mb_fit_log_spread_add(v->rows[i].s_runs, v->rows[i].reached, &ss, &df);
    }
    v->sd_seed = v->sd_shared = v->sd_model = NAN;
    settle_run *run;
    size_t n_seeds, n = settle_runs(v, &run, &n_seeds);
    double *a = n ? malloc((n_seeds + 2 * v->n_rows) * sizeof *a) : NULL;
    size_t *count = a ? malloc(n_seeds * sizeof *count) : NULL;
    if (!count || !(df > 0)) {
        free(run), free(a), free(count);
        return;
    }
    /* within a row the runs differ by seed effect and noise; between two rows' runs of one seed
     * by noise alone: the seed effect's variance is the difference */
    const double total = ss / df, paired = paired_noise(run, n, v->n_rows);
    const double se2 = isfinite(paired) ? fmin(paired, total) : total, sa2 = total - se2;
    double *b = a + n_seeds, *var = b + v->n_rows;
    m_effects(run, n, v->n_rows, n_seeds, sa2, se2, a, b, var, count);
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
    }
    free(run), free(a), free(count);
}

/* Row c's steady time over row s's, seed by seed: the mean of ln(N_c T_c / (N_s T_s)) over the
 * seeds both reached the target with (T the model's seconds per update) into *d, its standard
 * error into *se; returns how many seeds (0 when either row lists no seeds). */
static size_t paired_ratio(const mb_validate_row *c, const mb_validate_row *s, double *d,
                           double *se)
{
    double sum = 0, sum2 = 0;
    size_t n = 0;
    for (size_t i = 0; c->n_seed && s->n_seed && i < c->runs; i++)
        for (size_t j = 0; !isnan(c->seed[i]) && j < s->runs; j++)
            if (s->seed[j] == c->seed[i]) {
                double x = log(c->n_seed[i] * c->t_update_pred /
                               (s->n_seed[j] * s->t_update_pred));
                if (isfinite(x))
                    sum += x, sum2 += x * x, n++;
                break;
            }
    *d = n ? sum / (double)n : NAN;
    *se = n > 1 ? sqrt(fmax(0, sum2 - sum * sum / (double)n) / ((double)n - 1) / (double)n) : NAN;
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
    shrink(v);
    if (!law || mb_model_law_tc(law, t, v->m_rec, v->p_rec, &t_opt) != MB_OK)
        return;
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
     * than the model's 27 on 8 of 8 seeds, a mean 12%, standard error 4%; held out 1.04x where
     * 27 was 1.17x). */
    v->paired = -1;
    v->paired_ratio = v->paired_hi = NAN;
    v->paired_seeds = 0;
    for (size_t i = 0; i < v->n_rows && v->settled >= 0; i++) {
        double d, se;
        const mb_validate_row *r = &v->rows[i];
        size_t n = r->candidate && (long)i != v->settled
                       ? paired_ratio(r, &v->rows[v->settled], &d, &se)
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
    }
    if (v->settled >= 0 && v->best >= 0)
        v->settled_ratio = v->rows[v->settled].t_median / v->rows[v->best].t_median;
}

