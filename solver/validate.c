/* validate.c — the recommendation against its own ground truth: predicted training time
 * T_C = N_update(M) T_update(M, P) beside the measured one for every (algorithm, P, M, learning
 * rate) that has run logs (docs/design.md, "Validation table").
 *
 * Measured training time is the `wall_s` of a run's first update whose evaluation loss reached
 * the target: training only, evaluation excluded (mbtrain times them apart). Per group: the
 * median over the runs that reached the target, their spread, and the median per-update time of
 * the runs (wall_s / update over the whole run) beside the T_update model's, so that an error in
 * T_C can be traced to N_update or to T_update. The measured best is the least median among the
 * groups where most runs reached the target; the recommendation is checked when a group trained
 * its M (rounded).
 *
 * Does not: settle among the settings the model cannot tell apart (solver/settle.c), print
 * (mbopt does), read the fits (the caller passes the models), find the model's optimum (the
 * caller passes it).
 */
#include "mb_solver.h"
#include "../data/mb_parse.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

void mb_validate_free(mb_validate *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->n_rows; i++) {
        free(v->rows[i].t_runs);
        free(v->rows[i].s_runs);
        free(v->rows[i].seed);
    }
    free(v->rows);
    memset(v, 0, sizeof *v);
}

static double median(double *x, size_t n)
{
    if (n == 0)
        return NAN;
    gsl_sort(x, 1, n);
    return gsl_stats_median_from_sorted_data(x, 1, n);
}

/* The median of |the double at offset `field`| over the rows at P = p where it is finite (scratch
 * holds n_rows); *n how many (NULL: not wanted). */
static double median_abs(const mb_validate *v, size_t field, double p, double *scratch,
                         size_t *n)
{
    size_t k = 0;
    for (size_t i = 0; i < v->n_rows; i++) {
        double x = *(const double *)((const char *)&v->rows[i] + field);
        if (isfinite(x) && v->rows[i].procs == p)
            scratch[k++] = fabs(x);
    }
    if (n)
        *n = k;
    return median(scratch, k);
}

/* Same group: algorithm, learners, M, learning rate (NAN equals NAN). */
static int same(const mb_fit_runs *r, size_t i, size_t j)
{
    return strcmp(r->algo[i], r->algo[j]) == 0 && r->procs[i] == r->procs[j] &&
           r->batch[i] == r->batch[j] &&
           (r->lr[i] == r->lr[j] || (isnan(r->lr[i]) && isnan(r->lr[j])));
}

static int row_order(const void *a, const void *b)
{
    const mb_validate_row *x = a, *y = b;
    int c = strcmp(x->algo, y->algo);
    if (c)
        return c;
    if (x->lr != y->lr && !(isnan(x->lr) && isnan(y->lr)))
        return isnan(x->lr) ? -1 : isnan(y->lr) ? 1 : x->lr < y->lr ? -1 : 1;
    if (x->procs != y->procs)
        return x->procs < y->procs ? -1 : 1;
    return (x->batch > y->batch) - (x->batch < y->batch);
}

int mb_solver_same_rate(double a, double b)
{
    return isnan(a) || isnan(b) || fabs(a - b) <= 1e-9 * b;
}

const mb_law *mb_solver_law_for(const mb_law *laws, const double *lrs, size_t n, double lr)
{
    for (size_t i = 0; i < n; i++)
        if (n == 1 ? mb_solver_same_rate(lrs[i], lr)
                   : !isnan(lr) && mb_solver_same_rate(lrs[i], lr))
            return &laws[i];
    return NULL;
}

/* Fills one group's measured and predicted numbers from the runs idx[0..n); law NULL: no
 * prediction of N_update (no fit at this learning rate). */
static int fill_row(const mb_law *law, const mb_update_time *t, const mb_update_time *t_probe,
                    const mb_fit_runs *r, const size_t *idx, size_t n, mb_validate_row *row,
                    double *scratch)
{
    const size_t i0 = idx[0];
    memset(row, 0, sizeof *row);
    snprintf(row->algo, sizeof row->algo, "%s", r->algo[i0]);
    row->procs = r->procs[i0];
    row->batch = r->batch[i0];
    row->lr = r->lr[i0];
    row->runs = n;
    row->t_runs = malloc(n * sizeof *row->t_runs);
    row->s_runs = malloc(n * sizeof *row->s_runs);
    row->seed = malloc(3 * n * sizeof *row->seed);
    if (!row->t_runs || !row->s_runs || !row->seed)
        return MB_ENOMEM;
    row->t_seed = row->seed + n;
    row->n_seed = row->seed + 2 * n;
    size_t k = 0;
    for (size_t j = 0; j < n; j++) {
        size_t i = idx[j];
        row->diverged += r->diverged[i] != 0;
        row->seed[j] = r->seed[i];
        row->t_seed[j] = INFINITY;
        row->n_seed[j] = NAN;
        if (!isnan(r->n_update[i * r->n_thr]) && !isnan(r->wall[i * r->n_thr])) {
            row->t_runs[k] = row->t_seed[j] = r->wall[i * r->n_thr];
            row->n_seed[j] = r->n_update[i * r->n_thr];
            scratch[k++] = r->n_update[i * r->n_thr];
        }
    }
    row->reached = k;
    memcpy(row->s_runs, scratch, k * sizeof *row->s_runs); /* updates; times once T_update is known */
    row->n_median = median(scratch, k);
    gsl_sort(row->t_runs, 1, k);
    row->t_median = k ? gsl_stats_median_from_sorted_data(row->t_runs, 1, k) : NAN;
    row->t_min = k ? row->t_runs[0] : NAN;
    row->t_max = k ? row->t_runs[k - 1] : NAN;
    size_t m = 0;
    for (size_t j = 0; j < n; j++)
        if (!isnan(r->t_step[idx[j]]))
            scratch[m++] = r->t_step[idx[j]];
    row->t_update_run = median(scratch, m);

    row->n_pred = row->t_update_pred = row->t_pred = row->s_shrunk = row->s_net = NAN;
    double nu, tu;
    if (mb_model_tupdate(t, row->batch, row->procs, &tu) == MB_OK) {
        row->t_update_pred = tu;
        if (law && mb_model_law_nupdate(law, row->batch, &nu, NULL) == MB_OK)
            row->n_pred = nu, row->t_pred = nu * tu;
    }
    for (size_t j = 0; j < k; j++)
        row->s_runs[j] *= row->t_update_pred;
    if (isfinite(row->t_update_pred))
        gsl_sort(row->s_runs, 1, k);
    row->s_median = k ? row->n_median * row->t_update_pred : NAN;
    row->rel_err = (row->t_pred - row->t_median) / row->t_median;
    row->t_update_rel_err = (row->t_update_pred - row->t_update_run) / row->t_update_run;
    row->t_update_probe = row->t_pred_probe = NAN;
    if (t_probe && mb_model_tupdate(t_probe, row->batch, row->procs, &tu) == MB_OK) {
        row->t_update_probe = tu;
        row->t_pred_probe = row->n_pred * tu;
    }
    row->t_update_probe_rel_err = (row->t_update_probe - row->t_update_run) / row->t_update_run;
    row->rel_err_probe = (row->t_pred_probe - row->t_median) / row->t_median;
    return MB_OK;
}

int mb_solver_stands_for(const mb_law *law, const mb_update_time *t, double m_run, double m_rec,
                         double p)
{
    double a, b;
    if (mb_model_law_tc(law, t, m_run, p, &a) != MB_OK ||
        mb_model_law_tc(law, t, m_rec, p, &b) != MB_OK)
        return 0;
    return a <= b * (1 + MB_SOLVER_EQUIV);
}

int mb_solver_comm_from_runs(const mb_update_time *t, const mb_fit_runs *runs, double *delta,
                             double *p, size_t *n, mb_error *err)
{
    double p_min = isnan(*p) ? INFINITY : *p;
    for (size_t i = 0; isinf(p_min) && i < runs->n; i++)
        if (runs->procs[i] > 1 && isfinite(runs->t_step[i]) && runs->procs[i] < p_min)
            p_min = runs->procs[i];
    int any = 0;
    for (size_t i = 0; i < runs->n; i++)
        any |= runs->procs[i] == p_min && isfinite(runs->t_step[i]);
    if (!any)
        p_min = INFINITY;
    *delta = *p = NAN;
    *n = 0;
    if (!isfinite(p_min))
        return mb_error_set(err, MB_ENODATA, "no run at P > 1 with seconds per update: train "
                            "some (mpirun -np 2 mbtrain --algo sgd-sync ...)");
    mb_update_time compute = *t;
    compute.comm = MB_COMM_NONE;
    double *resid = malloc(runs->n * sizeof *resid);
    if (!resid)
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < runs->n; i++) {
        double step;
        if (runs->procs[i] == p_min && isfinite(runs->t_step[i]) &&
            mb_model_tupdate(&compute, runs->batch[i], p_min, &step) == MB_OK)
            resid[k++] = runs->t_step[i] - step;
    }
    *delta = median(resid, k);
    free(resid);
    *p = p_min;
    *n = k;
    if (!(*delta >= 0))
        *delta = 0; /* P learners cost no less than the step; a faster run is the machine's noise */
    return k ? MB_OK : mb_error_set(err, MB_EDOM, "no run at P = %g fits the update-time model",
                                    p_min);
}

size_t mb_solver_missing(const mb_law *law, const mb_update_time *t, const mb_fit_runs *runs,
                         double m_rec, double p_rec, double lr_rec, double m_lo, double m_hi,
                         const double spread[2], double want[3])
{
    /* beside the optimum: where the bootstrap puts it 1 time in 10 on either side when that is
     * farther out than 1.25x (the law is least certain there), else 1.5x away */
    const double lo = spread && spread[0] < m_rec / 1.25 ? spread[0] : m_rec / 1.5,
                 hi = spread && spread[1] > m_rec * 1.25 ? spread[1] : m_rec * 1.5;
    const double cand[3] = {round(m_rec), round(lo), round(hi)};
    size_t n = 0;
    for (int k = 0; k < 3; k++) {
        int have = cand[k] < 1 || cand[k] < floor(m_lo) || cand[k] > ceil(m_hi);
        for (int j = 0; j < k; j++)
            have |= cand[j] == cand[k];
        for (size_t i = 0; i < runs->n && !have; i++)
            have = runs->procs[i] == p_rec && mb_solver_same_rate(runs->lr[i], lr_rec) &&
                   (k == 0 ? runs->batch[i] == cand[0] ||
                                 mb_solver_stands_for(law, t, runs->batch[i], m_rec, p_rec)
                           : fabs(log(runs->batch[i] / cand[k])) <= log(1.1));
        if (!have)
            want[n++] = cand[k];
    }
    return n;
}

/* Whether some row was trained at the rate lr_rec (any, when it is not known); if not, the
 * rates the rows have, as "0.1, 0.2", into buf (cut to n). Campaign 21's N5: runs all at lr
 * 0.1 against a fit at 0.05 were said to be at the wrong M (validate), or dropped (scale). */
static int of_rate(const mb_validate *v, double lr_rec, char *buf, size_t n)
{
    for (size_t i = 0; i < v->n_rows; i++)
        if (mb_solver_same_rate(v->rows[i].lr, lr_rec))
            return 1;
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < v->n_rows; i++) {
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            seen |= v->rows[j].lr == v->rows[i].lr;
        char one[32]; /* exact: 0.0200000001 is not "0.02" (campaign 35's R8) */
        int k = seen ? 0 : snprintf(buf + used, n - used, "%s%s", used ? ", " : "",
                                    mb_data_fmt_exact(one, sizeof one, v->rows[i].lr));
        if (k < 0 || used + (size_t)k >= n)
            break;
        used += (size_t)k;
    }
    return 0;
}

int mb_solver_validate(const mb_law *laws, const double *lrs, size_t n_laws,
                       const mb_update_time *t, const mb_update_time *t_probe,
                       const mb_fit_runs *runs, const char *const *paths,
                       double m_rec, double p_rec, double lr_rec, mb_validate *out, mb_error *err)
{
#define WHERE(i) (paths ? paths[i] : "a log"), (paths ? ": " : ": ")
    memset(out, 0, sizeof *out);
    out->best = out->rec = out->settled = out->paired = -1;
    out->band = out->sd_seed = out->sd_shared = out->sd_model = NAN;
    out->m_rec = m_rec;
    out->p_rec = p_rec;
    out->lr_rec = lr_rec;
    out->ratio = out->settled_ratio = out->median_abs_err = out->median_abs_tu_err = NAN;
    out->median_abs_err_probe = out->median_abs_tu_err_probe = NAN;
    if (runs->n == 0)
        return mb_error_set(err, MB_ENODATA, "no run logs to validate against");
    /* one network: a log of another net is not ground truth for this model (the odd one out,
     * a log whose net differs from the most common one, is refused by the runs' reader too) */
    size_t odd, major = mb_fit_runs_major_net(runs, &odd);
    if (odd != SIZE_MAX)
        return mb_error_set(err, MB_EINVAL,
                            "%s%strains net '%s', the other logs '%s': validate one "
                            "network's runs against its own fits",
                            WHERE(odd), runs->net[odd], runs->net[major]);
    snprintf(out->net, sizeof out->net, "%s", runs->net[major]);
    out->target = runs->thresholds[0];
    /* a run that stopped below this target says nothing exact about when it crossed it (its
     * evaluations there were staged checks); one that stopped above it is a calibration run of a
     * law extrapolated to this target: it counts as not reaching it (mb_solver_calibration_only),
     * and then every run must be one (a run to the target among them would be graded against
     * runs that never had the chance) */
    long above = -1, own = -1;
    for (size_t i = 0; i < runs->n; i++) {
        if (!isnan(runs->target[i]) && runs->target[i] < out->target * (1 - 1e-9))
            return mb_error_set(err, MB_EINVAL,
                                "%s%smetadata 'target_loss': trained to %g, below the fit's %g "
                                "(validate runs of the fit's own target, or calibration runs "
                                "that stopped above it)",
                                WHERE(i), runs->target[i], out->target);
        if (!isnan(runs->target[i]) && runs->target[i] > out->target * (1 + 1e-9))
            above = (long)i;
        else
            own = (long)i;
    }
    if (above >= 0 && own >= 0)
        return mb_error_set(err, MB_EINVAL,
                            "%s%smetadata 'target_loss': trained to %g, not the fit's %g, "
                            "beside runs trained to it: give runs of the fit's own target, or "
                            "only calibration runs that stopped above it",
                            WHERE((size_t)above), runs->target[above], out->target);
#undef WHERE

    size_t *idx = malloc(runs->n * sizeof *idx);
    char *used = calloc(runs->n, 1);
    double *scratch = malloc(runs->n * sizeof *scratch);
    out->rows = calloc(runs->n, sizeof *out->rows);
    int rc = MB_OK;
    if (!idx || !used || !scratch || !out->rows) {
        rc = mb_error_set(err, MB_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < runs->n; i++) {
        if (used[i])
            continue;
        size_t n = 0;
        for (size_t j = i; j < runs->n; j++)
            if (!used[j] && same(runs, i, j))
                used[j] = 1, idx[n++] = j;
        const mb_law *law = mb_solver_law_for(laws, lrs, n_laws, runs->lr[i]);
        if (fill_row(law, t, t_probe, runs, idx, n, &out->rows[out->n_rows++], scratch) !=
            MB_OK) {
            rc = mb_error_set(err, MB_ENOMEM, "out of memory");
            goto done;
        }
    }
    qsort(out->rows, out->n_rows, sizeof *out->rows, row_order);

    for (size_t i = 0; i < out->n_rows; i++) {
        const mb_validate_row *r = &out->rows[i];
        /* the measured best: most of its runs reached the target, none diverged */
        if (2 * r->reached > r->runs && r->diverged == 0 &&
            (out->best < 0 || r->t_median < out->rows[out->best].t_median))
            out->best = (long)i;
        int lr_ok = mb_solver_same_rate(r->lr, lr_rec);
        const mb_law *law = mb_solver_law_for(laws, lrs, n_laws, r->lr);
        if (r->procs == p_rec && lr_ok && law && r->reached > 0 &&
            (r->batch == round(m_rec) || mb_solver_stands_for(law, t, r->batch, m_rec, p_rec)) &&
            (out->rec < 0 || fabs(log(r->batch / m_rec)) <
                                 fabs(log(out->rows[out->rec].batch / m_rec))))
            out->rec = (long)i;
    }
    /* the errors of the model at the recommended P (another P has its own Delta(P)) */
    out->median_abs_err = median_abs(out, offsetof(mb_validate_row, rel_err), p_rec, scratch,
                                     &out->n_err);
    out->median_abs_tu_err = median_abs(out, offsetof(mb_validate_row, t_update_rel_err), p_rec,
                                        scratch, NULL);
    out->median_abs_err_probe = median_abs(out, offsetof(mb_validate_row, rel_err_probe), p_rec,
                                           scratch, NULL);
    out->median_abs_tu_err_probe = median_abs(
        out, offsetof(mb_validate_row, t_update_probe_rel_err), p_rec, scratch, NULL);
    if (out->rec >= 0 && out->best >= 0)
        out->ratio = out->rows[out->rec].t_median / out->rows[out->best].t_median;
    /* a recommendation no run comes near cannot be checked: say so rather than pass */
    int near = 0;
    for (size_t i = 0; i < out->n_rows; i++)
        near |= out->rows[i].procs == p_rec && out->rows[i].batch >= m_rec / 2 &&
                out->rows[i].batch <= m_rec * 2 &&
                mb_solver_same_rate(out->rows[i].lr, lr_rec);
    char rates[96], fit_lr[32];
    if (!near && !of_rate(out, lr_rec, rates, sizeof rates))
        rc = mb_error_set(err, MB_ENODATA, "no run was trained at the fit's learning rate %s "
                          "(the runs have lr %s): runs of another rate neither grade nor settle "
                          "it; train at lr %s, or give the fit of their rate (mbfit nupdate "
                          "--lr RATE)", mb_data_fmt_exact(fit_lr, sizeof fit_lr, lr_rec), rates,
                          fit_lr);
    else if (!near) { /* the M as scale runs it, whole: P times a learner's M (B45-F6) */
        const double m_run = mb_solver_m_whole(m_rec, p_rec);
        rc = mb_error_set(err, MB_ENODATA,
                          "no run trained near the recommended M = %.0f at P = %g (nothing "
                          "within a factor of 2): train it (mbtrain --batch %.0f) and validate "
                          "again",
                          m_run, p_rec, m_run);
    }
done:
    free(idx);
    free(used);
    free(scratch);
    if (rc != MB_OK)
        mb_validate_free(out);
    return rc;
}
