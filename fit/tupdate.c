/* tupdate.c — T_update: the knee model gamma * max(M/P, M_T) + delta (Perrone et al. 2019,
 * eq. 3-4) fitted to a step probe table, per learner count, and the smooth overlap form
 * T = (T_compute^g + T_comm^g)^(1/g) (Pollux, Qiao et al. 2021) when the table carries
 * t_compute_s and t_comm_s columns.
 *
 * max() has no derivative at the knee, so the fit does not start a gradient method blindly: for
 * every interval between neighbouring measured M/P it solves the two linear pieces exactly
 * (flat level, slope, intercept; gsl_multifit_wlinear) and, when the implied knee falls outside
 * the interval, the best continuous fit with the knee held at an end of it; the best interval
 * wins and gsl_multifit_nlinear then refines gamma, M_T and delta together. The `batch` column is
 * the total mini-batch M; each learner computes M / P samples.
 */
#include "mb_fit.h"
#include "../data/mb_json.h"
#include "../data/mb_parse.h"
#include "../data/mb_format.h"

#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

static const char *const knee_names[] = {"gamma", "m_t", "delta"};
static const char *const ovl_names[] = {"g"};

static int knee_f(const double *p, size_t i, const void *data, double *y, double *g)
{
    double m = ((const double *)data)[i];
    int flat = m < p[1];
    g[0] = flat ? p[1] : m;
    g[1] = flat ? p[0] : 0.0;
    g[2] = 1.0;
    *y = p[0] * g[0] + p[2];
    return MB_OK;
}

/* Best (gamma, delta) with the knee held at mt; *chi2 its weighted residual sum. */
static int profile(size_t n, const double *m, const double *t, const double *sig, double mt,
                   double *X, double *gd, double *chi2, mb_error *err)
{
    for (size_t i = 0; i < n; i++)
        X[2 * i] = fmax(m[i], mt), X[2 * i + 1] = 1.0;
    return mb_fit_linear(n, 2, X, t, sig, gd, chi2, err);
}

int mb_fit_knee(size_t n, const double *m_in, const double *t_in, mb_fit_weighting w,
                mb_fit_tupdate *out, mb_error *err)
{
    size_t *idx = malloc((n ? n : 1) * sizeof *idx);
    double *m = malloc((n ? n : 1) * sizeof *m), *t = malloc((n ? n : 1) * sizeof *t),
           *u = malloc((n ? n : 1) * sizeof *u), *X = malloc((3 * n + 3) * sizeof *X);
    int rc = MB_OK;
    if (!idx || !m || !t || !u || !X) {
        rc = mb_error_set(err, MB_ENOMEM, "out of memory");
        goto fail;
    }
    gsl_sort_index(idx, m_in, 1, n);
    size_t K = 0;
    for (size_t i = 0; i < n; i++) {
        m[i] = m_in[idx[i]], t[i] = t_in[idx[i]];
        if (K == 0 || m[i] != u[K - 1])
            u[K++] = m[i];
    }
    out->n_points = n, out->m = m, out->t = t;
    m = t = NULL;
    if (K < 3) {
        rc = mb_error_set(err, MB_ENODATA, "%zu distinct batch size(s); the knee model needs at "
                                           "least 3",
                          K);
        goto fail;
    }
    const double *sig = w == MB_FIT_W_NONE ? NULL : out->t;
    double best = INFINITY, bp[3] = {0, 0, 0};
    /* The knee at or below the smallest M/P: one straight line. */
    {
        double gd[2], c2;
        if ((rc = profile(n, out->m, out->t, sig, u[0], X, gd, &c2, err)) != MB_OK)
            goto fail;
        best = c2, bp[0] = gd[0], bp[1] = u[0], bp[2] = gd[1];
    }
    for (size_t j = 0; j + 2 < K; j++) { /* knee in [u_j, u_j+1]; >= 2 sizes above it */
        for (size_t i = 0; i < n; i++) {
            int flat = out->m[i] <= u[j];
            X[3 * i] = flat, X[3 * i + 1] = flat ? 0 : out->m[i], X[3 * i + 2] = !flat;
        }
        double b[3], c2;
        if ((rc = mb_fit_linear(n, 3, X, out->t, sig, b, &c2, err)) != MB_OK)
            goto fail;
        double mt = b[1] > 0 ? (b[0] - b[2]) / b[1] : NAN;
        if (mt >= u[j] && mt <= u[j + 1]) {
            if (c2 < best)
                best = c2, bp[0] = b[1], bp[1] = mt, bp[2] = b[2];
            continue;
        }
        for (int e = 0; e < 2; e++) { /* the constrained optimum is at an end of the interval */
            double gd[2], ce, me = u[j + e];
            if ((rc = profile(n, out->m, out->t, sig, me, X, gd, &ce, err)) != MB_OK)
                goto fail;
            if (ce < best)
                best = ce, bp[0] = gd[0], bp[1] = me, bp[2] = gd[1];
        }
    }
    mb_fit_model mod = {"update-time", 3, knee_names, knee_f, out->m};
    if ((rc = mb_fit_nlinear(&mod, n, out->t, sig, bp, NULL, &out->knee, err)) != MB_OK)
        goto fail;
    /* The interval search is exact (per interval a convex problem whose constrained optimum is
     * interior or at an end), so when GSL finds no better point the search's answer is the
     * minimum even at a kink (M_T on a measured M/P), where GSL's smooth tests cannot pass. */
    double mt = out->knee.p[1];
    int at_point = 0;
    for (size_t k = 0; k < K; k++)
        at_point |= u[k] == mt;
    if (out->knee.status != MB_OK && at_point && out->knee.chi2 <= best * (1 + 1e-12)) {
        out->knee.status = MB_OK;
        snprintf(out->knee.gsl_reason, sizeof out->knee.gsl_reason,
                 "exact interval search, knee at a measured point");
        mb_fit_warn(&out->warn, "P=%g: M_T = %g lies on a measured M/P where the model has a "
                                "kink; its standard error uses the one-sided derivative",
                    out->learners, mt);
    }
    out->knee_lo = -INFINITY, out->knee_hi = INFINITY;
    for (size_t k = 0; k < K; k++) {
        if (u[k] <= mt)
            out->knee_lo = u[k];
        else if (u[k] < out->knee_hi)
            out->knee_hi = u[k];
    }
    if (mt <= u[0])
        mb_fit_warn(&out->warn, "P=%g: no knee within the measured sizes: the step time grows "
                                "linearly from the smallest M/P = %g, so M_T <= %g is all the "
                                "data say",
                    out->learners, u[0], u[0]);
    if (out->knee.p[0] <= 0)
        mb_fit_warn(&out->warn, "P=%g: gamma fitted %.4g <= 0: the step time does not grow with "
                                "M in the measured range",
                    out->learners, out->knee.p[0]);
    if (out->knee.p[2] < 0)
        mb_fit_warn(&out->warn, "P=%g: delta fitted negative (%.4g): a measurement problem (or "
                                "a curved compute time), not a cost to hand on",
                    out->learners, out->knee.p[2]);
fail:
    free(idx), free(m), free(t), free(u), free(X);
    return rc;
}

/* ---- the overlap form ------------------------------------------------------------------------- */

typedef struct ovl_data {
    const double *tc, *tm;
} ovl_data;

static int ovl_f(const double *p, size_t i, const void *data, double *y, double *grad)
{
    const ovl_data *d = data;
    double a = d->tc[i], b = d->tm[i], g = p[0], mx = fmax(a, b);
    if (!(g > 0) || !(mx > 0))
        return MB_EDOM;
    double ra = a / mx, rb = b / mx;
    double pa = ra > 0 ? pow(ra, g) : 0, pb = rb > 0 ? pow(rb, g) : 0, S = pa + pb;
    double T = mx * pow(S, 1.0 / g);
    double la = ra > 0 ? pa * log(ra) : 0, lb = rb > 0 ? pb * log(rb) : 0;
    *y = T;
    grad[0] = T * (-log(S) / (g * g) + (la + lb) / (g * S));
    return isfinite(T) ? MB_OK : MB_EDOM;
}

static int fit_overlap(size_t n, const double *tc, const double *tm, const double *t,
                       mb_fit_weighting w, mb_fit_result *res, mb_error *err)
{
    ovl_data d = {tc, tm};
    mb_fit_model mod = {"overlap", 1, ovl_names, ovl_f, &d};
    double p0 = 2.0;
    mb_fit_options o;
    mb_fit_options_init(&o);
    o.geodesic = 1;
    return mb_fit_nlinear(&mod, n, t, w == MB_FIT_W_NONE ? NULL : t, &p0, &o, res, err);
}

/* ---- the probe table -------------------------------------------------------------------------- */

void mb_fit_tupdate_clear(mb_fit_tupdate *f)
{
    if (!f)
        return;
    free(f->m);
    free(f->t);
    free(f->run_m);
    free(f->run_t);
    free(f->run_n);
    free(f->run_q);
    free(f->run_probe);
    free(f->probe_m);
    free(f->probe_t);
    f->m = f->t = f->run_m = f->run_t = f->run_probe = f->probe_m = f->probe_t = NULL;
    f->run_n = NULL;
    f->run_q = NULL;
    f->n_run_points = f->n_probe = 0;
    mb_fit_result_free(&f->knee);
    mb_fit_result_free(&f->overlap);
}

void mb_fit_tupdate_free_all(mb_fit_tupdate *f, size_t n)
{
    for (size_t i = 0; f && i < n; i++)
        mb_fit_tupdate_clear(&f[i]);
    free(f);
}

/* The longest time a step table may hold (31 years an update; mb_fit.h) */
#define MAX_SECONDS MB_FIT_MAX_SECONDS

/* Row r's text and derived columns: the backend is one mbprobe writes (train/backend/backend.c's
 * names: cpu, cuda), the net has a name, and samples_per_s, where given, is batch / t_median_s
 * to 1% (probe/step.c writes 6 digits; a hand-made table rounds), and so finite and > 0. */
static int step_row_text(const mb_table *t, size_t r, long cn, long ck, double m, double tm,
                         mb_error *err)
{
    const char *path = mb_table_path(t);
    long line = mb_table_line(t, r), cs = mb_table_col(t, "samples_per_s");
    if (ck >= 0 && strcmp(mb_table_cell(t, r, (size_t)ck), "cpu") != 0 &&
        strcmp(mb_table_cell(t, r, (size_t)ck), "cuda") != 0)
        return mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'backend': '%s' is not cpu or cuda",
                            path, line, mb_table_cell(t, r, (size_t)ck));
    if (cn >= 0 && *mb_table_cell(t, r, (size_t)cn) == '\0')
        return mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'net': empty (the net's name)", path,
                            line);
    double sps;
    int rc;
    if (cs < 0 || *mb_table_cell(t, r, (size_t)cs) == '\0')
        return MB_OK;
    if ((rc = mb_table_double_in(t, r, (size_t)cs, 0, HUGE_VAL, 0, &sps, err)) != MB_OK)
        return rc;
    if (tm > 0 && fabs(sps - m / tm) > 1e-2 * (m / tm))
        return mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'samples_per_s': %s is not batch / "
                            "t_median_s (%.6g)", path, line, mb_table_cell(t, r, (size_t)cs),
                            m / tm);
    return MB_OK;
}

int mb_fit_probe_row_check(const mb_table *t, size_t r, mb_error *err)
{
    const char *path = mb_table_path(t);
    const long line = mb_table_line(t, r), cw = mb_table_col(t, "wide"),
               cs = mb_table_col(t, "stop"), cd = mb_table_col(t, "drift");
    const char *w = cw >= 0 ? mb_table_cell(t, r, (size_t)cw) : "";
    const char *st = cs >= 0 ? mb_table_cell(t, r, (size_t)cs) : "";
    if (*w && strcmp(w, "0") != 0 && strcmp(w, "1") != 0)
        return mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'wide': '%.32s' is not 0 or 1", path,
                            line, w);
    if (*st && strcmp(st, "ci") != 0 && strcmp(st, "budget") != 0 && strcmp(st, "max-reps") != 0)
        return mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'stop': '%.32s' is not ci, budget or "
                            "max-reps (the probe's stop rules)", path, line, st);
    double v;
    if (cd >= 0 && *mb_table_cell(t, r, (size_t)cd)) /* empty: measured in one pass */
        return mb_table_double_in(t, r, (size_t)cd, 0, MB_DATA_RANGE_MAX, 0, &v, err);
    return MB_OK;
}

int mb_fit_probe_time(const mb_table *t, size_t r, size_t c, double *v, mb_error *err)
{
    int rc = mb_table_double_in(t, r, c, 0, MAX_SECONDS, 0, v, err);
    if (rc == MB_OK && *v > 0 && *v < MB_FIT_MIN_SECONDS)
        return mb_error_set(err, MB_EFORMAT, "%s:%ld: field '%s': %s is below 1e-9 s (no clock "
                            "times a step or a collective faster, and the fit's relative weight "
                            "1/t^2 overflows)", mb_table_path(t), mb_table_line(t, r),
                            mb_table_col_name(t, c), mb_table_cell(t, r, c));
    return rc;
}

/* A step table's columns are those mbprobe step (and the torch front end's probe) write, no
 * other: a column it does not know would be passed over unread, a misspelt `t_comm` turning
 * the overlap form off without a word, as a points file's and a run log's headers are checked
 * (fit/runs.c; campaign 39's D7). */
int mb_fit_table_columns(const mb_table *t, const char *const *known, size_t n,
                         const char *what, mb_error *err)
{
    for (size_t c = 0; c < mb_table_cols(t); c++) {
        const char *name = mb_table_col_name(t, c);
        size_t k = 0;
        while (k < n && strcmp(name, known[k]) != 0)
            k++;
        if (k == n)
            return mb_error_set(err, MB_EFORMAT, "%s: header: column '%s' is not %s: a misspelt "
                                "or renamed column?", mb_table_path(t), name, what);
    }
    return MB_OK;
}

static int step_columns(const mb_table *t, mb_error *err)
{
    static const char *const known[] = {"backend", "net", "batch", "learners", "threads", "reps",
                                        "t_median_s", "t_min_s", "t_p25_s", "t_p75_s", "t_max_s",
                                        "samples_per_s", "wide", "stop", "drift", "device",
                                        "t_compute_s", "t_comm_s"};
    return mb_fit_table_columns(t, known, sizeof known / sizeof known[0],
                                "a step table's (mbprobe step's columns)", err);
}

int mb_fit_step_table_check(const mb_table *t, mb_error *err)
{
    const char *path = mb_table_path(t);
    size_t cb, cl, ct, n = mb_table_rows(t);
    long cc = mb_table_col(t, "t_compute_s"), cm = mb_table_col(t, "t_comm_s");
    long cn = mb_table_col(t, "net"), ck = mb_table_col(t, "backend");
    long cth = mb_table_col(t, "threads"), crp = mb_table_col(t, "reps");
    const long cdv = mb_table_col(t, "device");
    int rc;
    if ((rc = mb_table_require_col(t, "batch", &cb, err)) != MB_OK ||
        (rc = mb_table_require_col(t, "learners", &cl, err)) != MB_OK ||
        (rc = mb_table_require_col(t, "t_median_s", &ct, err)) != MB_OK)
        return rc;
    if ((rc = step_columns(t, err)) != MB_OK)
        return rc;
    if (n == 0)
        return mb_error_set(err, MB_EFORMAT, "%s: no rows after the header", path);
    if (n > MB_FIT_STEP_ROWS_MAX)
        return mb_error_set(err, MB_EFORMAT, "%s: %zu rows, more than a step table holds (at "
                            "most %d)", path, n, MB_FIT_STEP_ROWS_MAX);
    double *M = malloc(n * sizeof *M), *P = malloc(n * sizeof *P), *T = malloc(n * sizeof *T),
           *TC = malloc(n * sizeof *TC), *TM = malloc(n * sizeof *TM);
    if (!M || !P || !T || !TC || !TM) {
        rc = mb_error_set(err, MB_ENOMEM, "out of memory");
        goto done;
    }
    int ovl = cc >= 0 && cm >= 0;
    for (size_t r = 0; r < n; r++) {
        long line = mb_table_line(t, r);
        /* batch and learners are whole counts (8.5 or 2^63 samples are not a batch), in digits
         * alone as mbprobe step prints them (campaign 45 A's F4: a batch of 4.0 or 4e0 was
         * read, where mbfit comm refuses a count so written) */
        const int wr = MB_TABLE_WRITTEN;
        if ((rc = mb_table_double_in(t, r, cb, 1, MB_DATA_RANGE_MAX, wr, &M[r], err)) != MB_OK ||
            (rc = mb_table_double_in(t, r, cl, 1, MB_DATA_RANGE_MAX, wr, &P[r], err)) != MB_OK ||
            (rc = mb_fit_probe_time(t, r, ct, &T[r], err)) != MB_OK)
            goto done;
        if (ovl && ((rc = mb_table_double_in(t, r, (size_t)cc, 0, MAX_SECONDS, 0, &TC[r],
                                             err)) != MB_OK ||
                    (rc = mb_table_double_in(t, r, (size_t)cm, 0, MAX_SECONDS, 0, &TM[r],
                                             err)) != MB_OK))
            goto done;
        if ((rc = mb_table_check_spread(t, r, err)) != MB_OK) /* t_min_s <= ... <= t_max_s */
            goto done;
        if (fmod(M[r], P[r]) != 0) { /* the probe times M/P samples a learner */
            rc = mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'batch': %g does not split among "
                              "%g learners", path, line, M[r], P[r]);
            goto done;
        }
        /* the optional counts the probe writes are whole */
        double th, rp;
        if ((cth >= 0 && (rc = mb_table_double_in(t, r, (size_t)cth, 1, MB_DATA_RANGE_MAX, wr,
                                                  &th, err)) != MB_OK) ||
            (crp >= 0 && (rc = mb_table_double_in(t, r, (size_t)crp, 1, MB_DATA_RANGE_MAX, wr,
                                                  &rp, err)) != MB_OK))
            goto done;
        for (size_t q = 0; q < r; q++) /* one row a setting: a copied row would count twice */
            if (M[q] == M[r] && P[q] == P[r] &&
                (cth < 0 || strcmp(mb_table_cell(t, q, (size_t)cth),
                                   mb_table_cell(t, r, (size_t)cth)) == 0)) {
                rc = mb_error_set(err, MB_EFORMAT, "%s:%ld: batch %g, learners %g%s given "
                                  "twice (line %ld too)", path, line, M[r], P[r],
                                  cth >= 0 ? " and the same threads" : "",
                                  mb_table_line(t, q));
                goto done;
            }
        const char *bad = M[r] <= 0 ? "batch" : P[r] < 1 ? "learners" : T[r] <= 0 ? "t_median_s"
                        : ovl && (TC[r] < 0 || TM[r] < 0 || TC[r] + TM[r] <= 0) ? "t_compute_s"
                        : NULL;
        if (bad) {
            rc = mb_error_set(err, MB_EFORMAT, "%s:%ld: field '%s': must be %s", path, line, bad,
                              strcmp(bad, "learners") == 0 ? ">= 1" : "> 0");
            goto done;
        }
        if ((rc = step_row_text(t, r, cn, ck, M[r], T[r], err)) != MB_OK ||
            (rc = mb_fit_probe_row_check(t, r, err)) != MB_OK)
            goto done;
        /* one net, one backend and one device per table (campaign 21's N11: two devices) */
        const long same[3] = {cn, ck, cdv};
        for (int s = 0; s < 3; s++) {
            long c = same[s];
            if (c >= 0 && strcmp(mb_table_cell(t, r, (size_t)c), mb_table_cell(t, 0, (size_t)c)) != 0) {
                rc = mb_error_set(err, MB_EFORMAT,
                                  "%s:%ld: field '%s': '%s' differs from '%s' above; fit one "
                                  "%s at a time",
                                  path, line, mb_table_col_name(t, (size_t)c),
                                  mb_table_cell(t, r, (size_t)c), mb_table_cell(t, 0, (size_t)c),
                                  mb_table_col_name(t, (size_t)c));
                goto done;
            }
        }
    }
done:
    free(M);
    free(P);
    free(T);
    free(TC);
    free(TM);
    return rc;
}

/* The thread counts of table t's rows of p learners (P: each row's) into f->threads; none where
 * the table has no `threads` column, or more than f->threads holds (not checked then). */
static void table_threads(const mb_table *t, const double *P, double p, mb_fit_tupdate *f)
{
    const long c = mb_table_col(t, "threads");
    const size_t cap = sizeof f->threads / sizeof f->threads[0];
    f->n_threads = 0;
    for (size_t r = 0; c >= 0 && r < mb_table_rows(t); r++) {
        double th;
        if (P[r] != p || mb_table_double(t, r, (size_t)c, &th, NULL) != MB_OK)
            continue;
        size_t i = 0;
        while (i < f->n_threads && f->threads[i] != th)
            i++;
        if (i == cap) {
            f->n_threads = 0;
            return;
        }
        if (i == f->n_threads)
            f->threads[f->n_threads++] = th;
    }
}

/* Two device names alike, a ';' for a ',' (writers replace commas in free text, and a log's
 * metadata may keep them). */
static int same_device(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (*a != *b && !((*a == ',' || *a == ';') && (*b == ',' || *b == ';')))
            return 0;
    return *a == *b;
}

/* Run i against the step table f it calibrates: the same net, data set and backend as the
 * table, and at P = 1 the same thread count (one of the table's, where it has a threads column:
 * one learner's threads in mbprobe step and mbtrain alike; at P > 1 the probe's learners share
 * its threads while each mpirun rank logs its own), where the log says. Campaign 16's S6: CUDA
 * runs on 8 threads rescaled a one-thread CPU table without a word; campaign 33's Q5: a table of
 * mnist calibrated by fashion-mnist runs made a tfit that said fashion-mnist. */
static int run_matches(const mb_fit_runs *runs, size_t i, const char *where,
                       const mb_fit_tupdate *f, mb_error *err)
{
    if (f->net[0] && runs->net[i][0] && strcmp(runs->net[i], f->net) != 0)
        return mb_error_set(err, MB_EINVAL, "%s: metadata 'net': '%s', but the step table "
                            "times '%s'", where, runs->net[i], f->net);
    const char *data = mb_fit_runs_setting(runs, i, "data");
    if (f->data[0] && data[0] && strcmp(data, f->data) != 0)
        return mb_error_set(err, MB_EINVAL, "%s: metadata 'data': '%s', but the step table "
                            "times '%s'", where, data, f->data);
    if (f->backend[0] && runs->backend[i][0] && strcmp(runs->backend[i], f->backend) != 0)
        return mb_error_set(err, MB_EINVAL, "%s: metadata 'backend': '%s', but the step table "
                            "times %s", where, runs->backend[i], f->backend);
    if (f->device[0] && runs->device[i][0] && !same_device(runs->device[i], f->device))
        return mb_error_set(err, MB_EINVAL, "%s: metadata 'device': '%s', but the step table "
                            "times '%s'", where, runs->device[i], f->device);
    int among = f->learners != 1 || f->n_threads == 0 || runs->threads[i] == 0;
    char list[96] = "";
    size_t used = 0;
    for (size_t k = 0; k < f->n_threads; k++) {
        among |= f->threads[k] == runs->threads[i];
        if (used < sizeof list - 24)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%g", k ? ", " : "",
                                     f->threads[k]);
    }
    if (!among)
        return mb_error_set(err, MB_EINVAL, "%s: metadata 'threads': %g, but the step table "
                            "times %s thread%s", where, runs->threads[i], list,
                            f->n_threads == 1 && f->threads[0] == 1 ? "" : "s");
    double m = runs->batch[i] / f->learners;
    if (m != floor(m))
        return mb_error_set(err, MB_EINVAL, "%s: metadata 'batch': %g does not split among %g "
                            "learners", where, runs->batch[i], f->learners);
    return MB_OK;
}

/* The rows fitted: with `threads` > 0 those of that many threads (none: refused); with 0 every
 * row, each learner count timed at one thread count (campaign 17's F2: mbprobe step --threads
 * 1,2 rows were pooled into one knee, two points an M however far apart). A row left out gets
 * P[r] = NAN. */
static int pick_threads(const mb_table *t, double threads, double *P, mb_error *err)
{
    const char *path = mb_table_path(t);
    const long c = mb_table_col(t, "threads");
    const size_t n = mb_table_rows(t);
    if (threads > 0 && c < 0)
        return mb_error_set(err, MB_EINVAL, "%s: no 'threads' column to pick --threads %g from",
                            path, threads);
    size_t kept = 0, ns = 0;
    double seen[8]; /* the table's thread counts, for the message */
    for (size_t r = 0; c >= 0 && r < n; r++) {
        double th, q;
        (void)mb_table_double(t, r, (size_t)c, &th, NULL); /* checked: a whole count */
        if (threads > 0) {
            size_t i = 0;
            while (i < ns && seen[i] != th)
                i++;
            if (i == ns && ns < sizeof seen / sizeof seen[0])
                seen[ns++] = th;
            if (th != threads)
                P[r] = NAN;
            else
                kept++;
            continue;
        }
        for (size_t u = 0; u < r; u++)
            if (P[u] == P[r] && mb_table_double(t, u, (size_t)c, &q, NULL) == MB_OK && q != th)
                return mb_error_set(err, MB_EINVAL, "%s:%ld: field 'threads': %g differs from %g "
                                    "(line %ld) at learners %g; fit one thread count at a time "
                                    "(mbfit tupdate --threads N)", path, mb_table_line(t, r), th,
                                    q, mb_table_line(t, u), P[r]);
    }
    if (threads > 0 && kept == 0) {
        char list[160] = "";
        for (size_t i = 0; i < ns; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%g", i ? ", " : "",
                     seen[i]);
        return mb_error_set(err, MB_EINVAL, "%s: no rows of --threads %g (the table times %s)",
                            path, threads, list);
    }
    return MB_OK;
}

int mb_fit_tupdate_table(const char *path, mb_fit_weighting w, double threads,
                         mb_fit_tupdate **out, size_t *n_out, mb_error *err)
{
    *out = NULL;
    *n_out = 0;
    mb_table *t;
    int rc = mb_table_read(path, &t, err);
    if (rc == MB_OK && (rc = mb_format_check_table(t, MB_FORMAT_STEP, err)) != MB_OK)
        mb_table_free(t);
    if (rc != MB_OK)
        return rc;
    size_t cb, cl, ct, n = mb_table_rows(t);
    long cc = mb_table_col(t, "t_compute_s"), cm = mb_table_col(t, "t_comm_s");
    long cn = mb_table_col(t, "net"), ck = mb_table_col(t, "backend");
    const long cdv = mb_table_col(t, "device");
    double *M = malloc((n + 1) * sizeof *M), *P = malloc((n + 1) * sizeof *P),
           *T = malloc((n + 1) * sizeof *T), *TC = malloc((n + 1) * sizeof *TC),
           *TM = malloc((n + 1) * sizeof *TM), *pl = malloc((n + 1) * sizeof *pl);
    double *gm = malloc((n + 1) * sizeof *gm), *gt = malloc((n + 1) * sizeof *gt),
           *gc = malloc((n + 1) * sizeof *gc), *gx = malloc((n + 1) * sizeof *gx);
    mb_fit_tupdate *fits = NULL;
    size_t nf = 0;
    if (!M || !P || !T || !TC || !TM || !pl || !gm || !gt || !gc || !gx) {
        rc = mb_error_set(err, MB_ENOMEM, "out of memory");
        goto done;
    }
    if ((rc = mb_table_require_col(t, "batch", &cb, err)) != MB_OK ||
        (rc = mb_table_require_col(t, "learners", &cl, err)) != MB_OK ||
        (rc = mb_table_require_col(t, "t_median_s", &ct, err)) != MB_OK)
        goto done;
    if (n == 0) {
        rc = mb_error_set(err, MB_EFORMAT, "%s: no rows after the header", path);
        goto done;
    }
    if ((rc = mb_fit_step_table_check(t, err)) != MB_OK)
        goto done;
    int ovl = cc >= 0 && cm >= 0;
    for (size_t r = 0; r < n; r++) { /* checked: every cell a number in range */
        (void)mb_table_double(t, r, cb, &M[r], err);
        (void)mb_table_double(t, r, cl, &P[r], err);
        (void)mb_table_double(t, r, ct, &T[r], err);
        if (ovl) {
            (void)mb_table_double(t, r, (size_t)cc, &TC[r], err);
            (void)mb_table_double(t, r, (size_t)cm, &TM[r], err);
        }
    }
    if ((rc = pick_threads(t, threads, P, err)) != MB_OK)
        goto done;
    size_t nk = 0; /* the learner counts of the rows fitted */
    for (size_t r = 0; r < n; r++)
        if (!isnan(P[r]))
            pl[nk++] = P[r];
    gsl_sort(pl, 1, nk);
    size_t np = 0;
    for (size_t r = 0; r < nk; r++)
        if (np == 0 || pl[r] != pl[np - 1])
            pl[np++] = pl[r];
    if (!(fits = calloc(np, sizeof *fits))) {
        rc = mb_error_set(err, MB_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t k = 0; k < np; k++, nf++) {
        size_t g = 0;
        for (size_t r = 0; r < n; r++)
            if (P[r] == pl[k])
                gm[g] = M[r] / P[r], gt[g] = T[r], gc[g] = TC[r], gx[g] = TM[r], g++;
        fits[k].learners = pl[k];
        if (cn >= 0)
            snprintf(fits[k].net, sizeof fits[k].net, "%s", mb_table_cell(t, 0, (size_t)cn));
        if (mb_format_data_set(t))
            snprintf(fits[k].data, sizeof fits[k].data, "%s", mb_format_data_set(t));
        if (ck >= 0) /* one backend a table (mb_fit_step_table_check) */
            snprintf(fits[k].backend, sizeof fits[k].backend, "%s",
                     mb_table_cell(t, 0, (size_t)ck));
        if (cdv >= 0) /* one device a table (mb_fit_step_table_check) */
            snprintf(fits[k].device, sizeof fits[k].device, "%s",
                     mb_table_cell(t, 0, (size_t)cdv));
        table_threads(t, P, pl[k], &fits[k]);
        if ((rc = mb_fit_knee(g, gm, gt, w, &fits[k], err)) != MB_OK) {
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%s", err ? err->msg : "");
            mb_error_set(err, rc, "%s: learners=%g: %s", path, pl[k], msg);
            nf++;
            goto done;
        }
        if (ovl) {
            mb_error e2 = {0};
            fits[k].have_overlap = fit_overlap(g, gc, gx, gt, w, &fits[k].overlap, &e2) == MB_OK;
            if (!fits[k].have_overlap)
                mb_fit_warn(&fits[k].warn, "P=%g: overlap form not fitted: %s", pl[k], e2.msg);
        }
    }
done:
    mb_table_free(t);
    free(M), free(P), free(T), free(TC), free(TM), free(pl), free(gm), free(gt), free(gc),
        free(gx);
    if (rc != MB_OK) {
        mb_fit_tupdate_free_all(fits, nf);
        return rc;
    }
    *out = fits;
    *n_out = nf;
    return MB_OK;
}

/* ---- calibration by training runs ------------------------------------------------------------ */

/* Run i times the step of the first run of its learner count (`first`): the same optimiser,
 * thread count and device, where both logs say (campaign 31's N4: a par run of sgd beside
 * momentum, at 2 threads beside 1, or of another machine calibrated one table). At P = 1
 * run_matches holds the threads and device to the table's already. */
static int run_like_first(const mb_fit_runs *runs, size_t i, size_t first,
                          const char *const *paths, mb_error *err)
{
    const char *a = paths ? paths[i] : "a run log", *b = paths ? paths[first] : "another";
    if (runs->optim[i][0] && runs->optim[first][0] && strcmp(runs->optim[i], runs->optim[first]))
        return mb_error_set(err, MB_EINVAL, "%s: metadata 'optim': '%s', but %s's is '%s': an "
                            "update's cost depends on the optimiser; give one optimiser's runs",
                            a, runs->optim[i], b, runs->optim[first]);
    if (runs->threads[i] > 0 && runs->threads[first] > 0 &&
        runs->threads[i] != runs->threads[first])
        return mb_error_set(err, MB_EINVAL, "%s: metadata 'threads': %g, but %s's is %g: give "
                            "the runs of one thread count at P = %g", a, runs->threads[i], b,
                            runs->threads[first], runs->procs[i]);
    if (runs->device[i][0] && runs->device[first][0] &&
        !same_device(runs->device[i], runs->device[first]))
        return mb_error_set(err, MB_EINVAL, "%s: metadata 'device': '%s', but %s's is '%s': "
                            "calibrate one device at a time", a, runs->device[i], b,
                            runs->device[first]);
    return MB_OK;
}

/* The runs' points: for each M/P the runs of g->learners learners trained (each matching g's
 * net, backend, device and threads: run_matches; one optimiser, thread count and
 * device among them: run_like_first), the lower quartile of their seconds per update
 * (MB_FIT_RUN_QUANTILE). Fills g's run_m, run_t, run_n. */
static int run_points(const mb_fit_runs *runs, const char *const *paths, mb_fit_tupdate *g,
                      mb_error *err)
{
#define WHERE(i) (paths ? paths[i] : "a run log")
    size_t n = 0, first = SIZE_MAX;
    double *m = malloc((runs->n + 1) * sizeof *m), *x = malloc((runs->n + 1) * sizeof *x);
    g->run_m = malloc((runs->n + 1) * sizeof *g->run_m);
    g->run_t = malloc((runs->n + 1) * sizeof *g->run_t);
    g->run_n = malloc((runs->n + 1) * sizeof *g->run_n);
    int rc = MB_OK;
    if (!m || !x || !g->run_m || !g->run_t || !g->run_n) {
        rc = mb_error_set(err, MB_ENOMEM, "out of memory");
        goto done;
    }
    const double p = g->learners;
    for (size_t i = 0; i < runs->n; i++) {
        if (runs->procs[i] != p || !(runs->t_step[i] > 0) || !isfinite(runs->t_step[i]))
            continue;
        if ((rc = run_matches(runs, i, WHERE(i), g, err)) != MB_OK)
            goto done;
        if (first != SIZE_MAX && strcmp(runs->algo[i], runs->algo[first]) != 0) {
            rc = mb_error_set(err, MB_EINVAL, "%s: metadata 'algo': '%s', but %s is '%s': an "
                              "update's cost depends on the algorithm; give one algorithm's runs",
                              WHERE(i), runs->algo[i], WHERE(first), runs->algo[first]);
            goto done;
        }
        if (first != SIZE_MAX && (rc = run_like_first(runs, i, first, paths, err)) != MB_OK)
            goto done;
        if (first == SIZE_MAX)
            first = i;
        m[n++] = runs->batch[i] / p;
    }
    if (n == 0) {
        rc = mb_error_set(err, MB_ENODATA, "no run of %s with a training time (wall_s) among "
                          "the %zu logs", p == 1 ? "one learner" : "these learners", runs->n);
        goto done;
    }
    gsl_sort(m, 1, n);
    double ss = 0, df = 0;
    for (size_t a = 0; a < n;) {
        size_t k = 0;
        for (size_t i = 0; i < runs->n; i++)
            if (runs->procs[i] == p && runs->batch[i] / p == m[a] && runs->t_step[i] > 0 &&
                isfinite(runs->t_step[i]))
                x[k++] = runs->t_step[i];
        gsl_sort(x, 1, k);
        mb_fit_log_spread_add(x, k, &ss, &df);
        g->run_m[g->n_run_points] = m[a];
        g->run_t[g->n_run_points] = gsl_stats_quantile_from_sorted_data(x, 1, k,
                                                                        MB_FIT_RUN_QUANTILE);
        g->run_n[g->n_run_points++] = k;
        while (a < n && m[a] == g->run_m[g->n_run_points - 1])
            a++;
    }
    g->run_sd = df > 0 ? sqrt(ss / df) : NAN;
done:
    free(m), free(x);
    return rc;
#undef WHERE
}

/* The variance of a lower quartile of n normal draws, in units of their variance:
 * q (1 - q) / (n phi(z_q)^2), phi(z_0.25) = 0.3178. */
#define RUN_Q_VAR(n) (0.25 * 0.75 / (0.3178 * 0.3178 * (double)(n)))

/* The combined table of f's probe points (scaled beyond the runs) and g's run points into m, t
 * (room for f->n_points + g->n_run_points); returns its length. */
static size_t table_points(const mb_fit_tupdate *f, const mb_fit_tupdate *g, double *m, double *t)
{
    const size_t nr = g->n_run_points;
    size_t n = 0;
    for (size_t i = 0; i < f->n_points && f->m[i] < g->run_m[0]; i++)
        m[n] = f->m[i], t[n++] = f->t[i] * g->scale_below;
    for (size_t j = 0; j < nr; j++)
        m[n] = g->run_m[j], t[n++] = g->run_t[j];
    for (size_t i = 0; i < f->n_points; i++)
        if (f->m[i] > g->run_m[nr - 1])
            m[n] = f->m[i], t[n++] = f->t[i] * g->scale_above;
    return n;
}

/* The median of three. */
static double median3(double a, double b, double c)
{
    return a > b ? (b > c ? b : a > c ? c : a) : (a > c ? a : b > c ? c : b);
}

/* Each run point's lower quartile weighed against its neighbours' (docs/models.md, "Update
 * time"): the reference is the running median of three of the seconds per sample (t / M) at it
 * and the trained M on either side, which keeps a real step of the kernels (M = 13 costs 60%
 * more a sample than 16 on LeNet-5) and passes over one point's luck; a point whose distance
 * from it, in ln, is within its own noise (run_sd sqrt(RUN_Q_VAR(n))) takes the reference, a
 * farther one keeps what lies beyond that noise (soft thresholding). The quartile of 3-9 runs at
 * one M is noisy by 2-5%, and a table that follows each one puts the optimum at whichever M had
 * the luckiest runs. The ends, and a fit without a pooled sd (one run an M), stand as measured. */
static void weigh_run_points(mb_fit_tupdate *g)
{
    const size_t nr = g->n_run_points;
    for (size_t j = 0; j < nr; j++)
        g->run_q[j] = g->run_t[j];
    for (size_t j = 1; j + 1 < nr && isfinite(g->run_sd); j++) {
        const double ps = median3(g->run_q[j - 1] / g->run_m[j - 1], g->run_q[j] / g->run_m[j],
                                  g->run_q[j + 1] / g->run_m[j + 1]),
                     ref = ps * g->run_m[j];
        const double r = log(g->run_q[j] / ref),
                     noise = g->run_sd * sqrt(RUN_Q_VAR(g->run_n[j]));
        g->run_t[j] = ref * exp(fabs(r) > noise ? copysign(fabs(r) - noise, r) : 0.0);
    }
}

int mb_fit_tupdate_calibrate(mb_fit_tupdate *f, const mb_fit_runs *runs,
                             const char *const *paths, mb_fit_weighting w, mb_error *err)
{
    if (f->n_run_points)
        return mb_error_set(err, MB_EINVAL, "the fit is calibrated already: calibrate the "
                            "probe's own fit");
    mb_fit_tupdate g = {.learners = f->learners, .n_threads = f->n_threads};
    snprintf(g.net, sizeof g.net, "%s", f->net);
    snprintf(g.data, sizeof g.data, "%s", f->data);
    snprintf(g.backend, sizeof g.backend, "%s", f->backend);
    snprintf(g.device, sizeof g.device, "%s", f->device);
    memcpy(g.threads, f->threads, sizeof g.threads);
    double *m = NULL, *t = NULL;
    int rc = run_points(runs, paths, &g, err);
    if (rc != MB_OK)
        goto fail;
    const size_t nr = g.n_run_points;
    if (!(g.run_probe = malloc(nr * sizeof *g.run_probe))) {
        rc = mb_error_set(err, MB_ENOMEM, "out of memory");
        goto fail;
    }
    for (size_t j = 0; j < nr; j++)
        g.run_probe[j] = mb_model_table_time(f->m, f->t, f->n_points, g.run_m[j]);
    g.scale_below = g.run_t[0] / g.run_probe[0];
    g.scale_above = g.run_t[nr - 1] / g.run_probe[nr - 1];
    if (!isfinite(g.scale_below) || !isfinite(g.scale_above)) {
        rc = mb_error_set(err, MB_EINVAL, "the step table has fewer than 2 batch sizes to scale");
        goto fail;
    }
    for (int end = 0; end < 2; end++) {
        const double s = end ? g.scale_above : g.scale_below;
        if (!(s >= 1 / MB_FIT_CAL_SCALE_MAX && s <= MB_FIT_CAL_SCALE_MAX)) {
            rc = mb_error_set(err, MB_EINVAL, "the runs' seconds per update at M/P = %g are %.3g "
                              "times the step table's: beyond [%g, %g], they did not time the "
                              "same step", g.run_m[end ? nr - 1 : 0], s,
                              1 / MB_FIT_CAL_SCALE_MAX, MB_FIT_CAL_SCALE_MAX);
            goto fail;
        }
    }
    m = malloc((f->n_points + nr) * sizeof *m);
    t = malloc((f->n_points + nr) * sizeof *t);
    g.probe_m = malloc((f->n_points + 1) * sizeof *g.probe_m);
    g.probe_t = malloc((f->n_points + 1) * sizeof *g.probe_t);
    if (!m || !t || !g.probe_m || !g.probe_t) {
        rc = mb_error_set(err, MB_ENOMEM, "out of memory");
        goto fail;
    }
    /* the probe where no run went (its shape), the runs where they did (weighed against their
     * neighbours): f->m is ascending */
    memcpy(g.probe_m, f->m, f->n_points * sizeof *g.probe_m);
    memcpy(g.probe_t, f->t, f->n_points * sizeof *g.probe_t);
    g.n_probe = f->n_points;
    if (!(g.run_q = malloc(nr * sizeof *g.run_q))) {
        rc = mb_error_set(err, MB_ENOMEM, "out of memory");
        goto fail;
    }
    weigh_run_points(&g);
    const size_t n = table_points(f, &g, m, t);
    if ((rc = mb_fit_knee(n, m, t, w, &g, err)) != MB_OK)
        goto fail;
    free(m), free(t);
    mb_fit_tupdate_clear(f);
    *f = g;
    return MB_OK;
fail:
    free(m), free(t);
    mb_fit_tupdate_clear(&g);
    return rc;
}

/* [[x, y(, c, z)], ...]; c and z NULL or both given. */
static cJSON *pairs_json(const double *x, const double *y, const size_t *c, const double *z,
                         size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < n; i++) {
        cJSON *p = cJSON_CreateArray();
        if (!p)
            break;
        cJSON_AddItemToArray(p, cJSON_CreateNumber(x[i]));
        cJSON_AddItemToArray(p, cJSON_CreateNumber(y[i]));
        if (c && z) {
            cJSON_AddItemToArray(p, cJSON_CreateNumber((double)c[i]));
            cJSON_AddItemToArray(p, cJSON_CreateNumber(z[i]));
        }
        cJSON_AddItemToArray(a, p);
    }
    return a;
}

static cJSON *one_json(const mb_fit_tupdate *f)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    mb_json_add_number(o, "learners", f->learners);
    mb_fit_json_merge(o, mb_fit_result_json(&f->knee));
    cJSON *kb = cJSON_AddArrayToObject(o, "knee_between");
    if (kb) {
        cJSON_AddItemToArray(kb, isfinite(f->knee_lo) ? cJSON_CreateNumber(f->knee_lo)
                                                      : cJSON_CreateNull());
        cJSON_AddItemToArray(kb, isfinite(f->knee_hi) ? cJSON_CreateNumber(f->knee_hi)
                                                      : cJSON_CreateNull());
    }
    cJSON_AddItemToObject(o, "points", pairs_json(f->m, f->t, NULL, NULL, f->n_points));
    if (f->n_run_points) {
        size_t runs = 0;
        for (size_t j = 0; j < f->n_run_points; j++)
            runs += f->run_n[j];
        cJSON *c = cJSON_AddObjectToObject(o, "calibration");
        if (c) {
            cJSON_AddStringToObject(c, "source", "points at the runs' M are the lower quartile "
                                    "of their seconds per update weighed against their "
                                    "neighbours' by its noise (run_quartiles as measured); the "
                                    "probe's beyond, scaled");
            mb_json_add_number(c, "run_quantile", MB_FIT_RUN_QUANTILE);
            mb_json_add_number(c, "runs", (double)runs);
            mb_json_add_number(c, "m_lo", f->run_m[0]);
            mb_json_add_number(c, "m_hi", f->run_m[f->n_run_points - 1]);
            mb_json_add_number(c, "scale_below", f->scale_below);
            mb_json_add_number(c, "scale_above", f->scale_above);
            cJSON_AddItemToObject(c, "run_points",
                                  pairs_json(f->run_m, f->run_t, f->run_n, f->run_probe,
                                             f->n_run_points));
            if (f->run_q) {
                cJSON_AddItemToObject(c, "run_quartiles",
                                      pairs_json(f->run_m, f->run_q, NULL, NULL,
                                                 f->n_run_points));
                mb_json_add_number(c, "run_sd", f->run_sd);
            }
        }
        cJSON_AddItemToObject(o, "probe_points", pairs_json(f->probe_m, f->probe_t, NULL, NULL,
                                                            f->n_probe));
    }
    if (f->have_overlap)
        cJSON_AddItemToObject(o, "overlap", mb_fit_result_json(&f->overlap));
    cJSON_AddItemToObject(o, "warnings", mb_fit_warnings_json(&f->warn));
    return o;
}

cJSON *mb_fit_tupdate_json(const mb_fit_tupdate *f, size_t n, const char *path,
                           mb_fit_weighting w)
{
    cJSON *root = one_json(&f[0]);
    if (!root)
        return NULL;
    if (f[0].net[0]) /* the net timed: mbopt refuses an nfit or runs of another (campaign 21) */
        cJSON_AddStringToObject(root, "net", f[0].net);
    if (f[0].data[0]) /* and the data set, where the table says (campaign 33's Q5) */
        cJSON_AddStringToObject(root, "data", f[0].data);
    cJSON *in = cJSON_AddObjectToObject(root, "inputs");
    if (in) {
        cJSON_AddStringToObject(in, "file", path);
        cJSON_AddStringToObject(in, "weights", mb_fit_weighting_name(w));
        cJSON_AddStringToObject(in, "points", "[M/P, t_median_s]: batch is the total M");
    }
    cJSON_AddStringToObject(root, "note",
                            "top-level params are the fit for the smallest learner count; at "
                            "P = 1 delta is the fixed cost of a step, at P > 1 it includes "
                            "communication");
    cJSON *by = cJSON_AddArrayToObject(root, "by_learners");
    for (size_t k = 0; by && k < n; k++)
        cJSON_AddItemToArray(by, one_json(&f[k]));
    return root;
}
