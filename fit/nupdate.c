/* nupdate.c — N_update(M): from the runs (read by runs.c) to the inverse law and its rivals.
 *
 * Groups the runs by M; fits N = N_inf + alpha / M (Perrone et al. 2019, eq. 2), the power law
 * N_inf + a M^-b, the shifted inverse law N_inf + alpha / (M - M_0) and McCandlish et al.'s
 * S_min (1 + B_noise / M) (2018, eq. 2.11; the same curve as the inverse law with
 * alpha = S_min B_noise); compares them by AIC; and bootstraps runs within each M, and whole
 * seeds across M.
 * It does not print and does not decide what mbopt uses: top-level params stay the inverse law's.
 */
#include "mb_fit.h"
#include "../data/mb_json.h"
#include "../data/mb_parse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

const char *mb_fit_weighting_name(mb_fit_weighting w)
{
    return w == MB_FIT_W_NONE    ? "none"
           : w == MB_FIT_W_SEEDS ? "seeds"
           : w == MB_FIT_W_POOLED ? "pooled"
                                 : "relative";
}

int mb_fit_weighting_parse(const char *s, mb_fit_weighting *w)
{
    if (strcmp(s, "none") == 0) *w = MB_FIT_W_NONE;
    else if (strcmp(s, "relative") == 0) *w = MB_FIT_W_RELATIVE;
    else if (strcmp(s, "seeds") == 0) *w = MB_FIT_W_SEEDS;
    else if (strcmp(s, "pooled") == 0) *w = MB_FIT_W_POOLED;
    else return MB_EINVAL;
    return MB_OK;
}

void mb_fit_nupdate_options_init(mb_fit_nupdate_options *o)
{
    o->weights = MB_FIT_W_RELATIVE;
    o->bootstrap = 0;
    o->seed = 1;
    o->choose = MB_FIT_CHOOSE_SHIFTED;
}

int mb_fit_choice_parse(const char *s, mb_fit_choice *out)
{
    if (strcmp(s, "inverse") == 0)
        *out = MB_FIT_CHOOSE_INVERSE;
    else if (strcmp(s, "shifted") == 0)
        *out = MB_FIT_CHOOSE_SHIFTED;
    else if (strcmp(s, "aic") == 0)
        *out = MB_FIT_CHOOSE_AIC;
    else
        return MB_EINVAL;
    return MB_OK;
}

const char *mb_fit_choice_name(mb_fit_choice c)
{
    return c == MB_FIT_CHOOSE_AIC ? "aic" : c == MB_FIT_CHOOSE_SHIFTED ? "shifted" : "inverse";
}

/* The inverse law over AIC's power law (MB_FIT_CHOOSE_INVERSE), when it is usable. */
static void choose_inverse(mb_fit_nupdate *out)
{
    const mb_fit_result *iv = &out->inverse;
    if (strcmp(out->best, "power-law") != 0 || iv->status != MB_OK || !(iv->p[0] > 0))
        return;
    out->best = "inverse-law";
    snprintf(out->why, sizeof out->why,
             "the inverse law: AIC prefers the power law (%.4g vs %.4g), but the inverse laws "
             "predict held-out runs as well or better (docs/results.md)",
             out->power.aic, iv->aic);
}

/* Whether the shifted law fitted, with M_0 > 0, and its AIC is lower than `aic` by more than 2
 * (Burnham & Anderson's threshold for a real difference). */
static int shifted_beats(const mb_fit_nupdate *out, double aic)
{
    const mb_fit_result *sh = &out->shifted;
    /* an exact fit (chi2 = 0) has AIC -inf: it beats any law that is not exact */
    return out->have_shifted && sh->status == MB_OK && !isnan(sh->aic) && sh->aic < INFINITY &&
           isfinite(aic) && sh->p[2] > 0 && sh->p[0] > 0 && aic - sh->aic > 2;
}

/* Which law `best` names, by the rule `c` (mb_fit_choice), after fit_other_laws has set the
 * power law's AIC verdict: INVERSE takes the inverse law over it; SHIFTED too, then the shifted
 * law where it beats the inverse law; AIC the shifted law where it beats the law chosen so far. */
static void choose_law(mb_fit_nupdate *out, mb_fit_choice c)
{
    if (c != MB_FIT_CHOOSE_AIC)
        choose_inverse(out);
    if (c == MB_FIT_CHOOSE_INVERSE)
        return;
    const mb_fit_result *cur = strcmp(out->best, "power-law") == 0 ? &out->power : &out->inverse;
    if (!shifted_beats(out, cur->aic))
        return;
    const char *other = cur == &out->power ? "power law" : "inverse law";
    if (isfinite(out->shifted.aic))
        snprintf(out->why, sizeof out->why,
                 "the shifted inverse law (M_0 = %.3g): N_update rises faster than 1 / M toward "
                 "the small M; AIC %.4g vs the %s's %.4g, lower by %.3g > 2",
                 out->shifted.p[2], out->shifted.aic, other, cur->aic,
                 cur->aic - out->shifted.aic);
    else
        snprintf(out->why, sizeof out->why,
                 "the shifted inverse law (M_0 = %.3g): it fits the runs exactly (chi2 = 0), the "
                 "%s does not (AIC %.4g)", out->shifted.p[2], other, cur->aic);
    out->best = "shifted-law";
}

void mb_fit_nupdate_free(mb_fit_nupdate *f)
{
    if (!f)
        return;
    free(f->groups);
    free(f->boot_best);
    f->boot_best = NULL;
    free(f->boot_seed);
    f->boot_seed = NULL;
    mb_fit_result_free(&f->inverse);
    mb_fit_result_free(&f->power);
    mb_fit_result_free(&f->shifted);
    mb_fit_result_free(&f->mccandlish);
    f->groups = NULL;
}

/* ---- the three curves ------------------------------------------------------------------------- */

static const char *const inv_names[] = {"n_inf", "alpha"};
static const char *const pow_names[] = {"n_inf", "a", "b"};
static const char *const shf_names[] = {"n_inf", "alpha", "m_0"};
static const char *const mcc_names[] = {"s_min", "b_noise"};

static int inv_f(const double *p, size_t i, const void *data, double *y, double *g)
{
    double m = ((const double *)data)[i];
    g[0] = 1.0;
    g[1] = 1.0 / m;
    *y = p[0] + p[1] / m;
    return MB_OK;
}

static int pow_f(const double *p, size_t i, const void *data, double *y, double *g)
{
    double m = ((const double *)data)[i], mb = pow(m, -p[2]);
    g[0] = 1.0;
    g[1] = mb;
    g[2] = -p[1] * mb * log(m);
    *y = p[0] + p[1] * mb;
    return isfinite(*y) ? MB_OK : MB_EDOM;
}

static int shf_f(const double *p, size_t i, const void *data, double *y, double *g)
{
    double m = ((const double *)data)[i], x = m - p[2];
    if (!(x > 0))
        return MB_EDOM; /* the pole at or above a batch size that reached the target */
    g[0] = 1.0;
    g[1] = 1.0 / x;
    g[2] = p[1] / (x * x);
    *y = p[0] + p[1] / x;
    return MB_OK;
}

static int mcc_f(const double *p, size_t i, const void *data, double *y, double *g)
{
    double m = ((const double *)data)[i];
    g[0] = 1.0 + p[1] / m;
    g[1] = p[0] / m;
    *y = p[0] * (1.0 + p[1] / m);
    return MB_OK;
}

/* Fits the inverse law to (m, y, sigma), starting from the exact weighted linear solution. */
static int fit_inverse(size_t n, const double *m, const double *y, const double *sigma,
                       mb_fit_result *res, mb_error *err)
{
    double *X = malloc(2 * n * sizeof *X), b[2];
    if (!X)
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        X[2 * i] = 1.0, X[2 * i + 1] = 1.0 / m[i];
    int rc = mb_fit_linear(n, 2, X, y, sigma, b, NULL, err);
    free(X);
    if (rc != MB_OK)
        return rc;
    mb_fit_model mod = {"inverse-law", 2, inv_names, inv_f, m};
    return mb_fit_nlinear(&mod, n, y, sigma, b, NULL, res, err);
}

/* Fits the shifted law, starting from the best of the exact weighted linear solutions on a grid
 * of M_0 in [0, min M) (for a fixed M_0 the law is linear in N_inf and alpha). */
static int fit_shifted(size_t n, const double *m, const double *y, const double *sigma,
                       mb_fit_result *res, mb_error *err)
{
    enum { GRID = 48 };
    double *X = malloc(2 * n * sizeof *X), lo = m[0], p0[3] = {0}, best = INFINITY;
    if (!X)
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    for (size_t i = 1; i < n; i++)
        lo = fmin(lo, m[i]);
    for (int k = 0; k < GRID; k++) {
        double m0 = lo * (double)k / GRID, b[2], chi2;
        mb_error e2 = {0};
        for (size_t i = 0; i < n; i++)
            X[2 * i] = 1.0, X[2 * i + 1] = 1.0 / (m[i] - m0);
        if (mb_fit_linear(n, 2, X, y, sigma, b, &chi2, &e2) == MB_OK && b[1] > 0 && chi2 < best)
            best = chi2, p0[0] = b[0], p0[1] = b[1], p0[2] = m0;
    }
    free(X);
    if (!isfinite(best))
        return mb_error_set(err, MB_ESOLVER, "shifted law: no starting point with alpha > 0");
    mb_fit_model mod = {"shifted-law", 3, shf_names, shf_f, m};
    return mb_fit_nlinear(&mod, n, y, sigma, p0, NULL, res, err);
}

/* The per-M points of threshold k: groups with at least one run that reached it. */
/* Prior degrees of freedom of the pooled relative spread (--weights pooled): a group's own
 * spread from n runs (n - 1 degrees of freedom) is shrunk toward the spread all groups share. */
#define POOL_PRIOR_DF 4.0

/* The standard error of group G's mean with its relative spread (sd / mean) shrunk toward the
 * pooled relative spread of every group of `out` (empirical Bayes: the noise of N_update is
 * roughly the same fraction at every M, and three runs estimate it poorly). */
static double pooled_se(const mb_fit_nupdate *out, const mb_fit_group *G)
{
    double ss = 0, df = 0;
    for (size_t g = 0; g < out->n_groups; g++) {
        const mb_fit_group *H = &out->groups[g];
        if (H->reached >= 2 && H->mean > 0 && isfinite(H->sd)) {
            ss += (double)(H->reached - 1) * (H->sd / H->mean) * (H->sd / H->mean);
            df += (double)(H->reached - 1);
        }
    }
    /* no spread anywhere (one run an M, or runs that agree to the update): relative weights */
    const double pool = df > 0 && ss > 0 ? ss / df : 1.0;
    const double own = G->reached >= 2 && isfinite(G->sd) ? (G->sd / G->mean) * (G->sd / G->mean)
                                                           : 0.0;
    const double n1 = G->reached >= 2 ? (double)(G->reached - 1) : 0.0;
    const double cv2 = (n1 * own + POOL_PRIOR_DF * pool) / (n1 + POOL_PRIOR_DF);
    return G->mean * sqrt(cv2 / (double)G->reached);
}

static int group_runs(const mb_fit_runs *runs, size_t k, mb_fit_nupdate *out, mb_error *err)
{
    size_t *idx = malloc((runs->n ? runs->n : 1) * sizeof *idx);
    out->groups = calloc(runs->n ? runs->n : 1, sizeof *out->groups);
    if (!idx || !out->groups) {
        free(idx);
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    }
    gsl_sort_index(idx, runs->batch, 1, runs->n);
    out->runs = runs->n;
    for (size_t a = 0; a < runs->n;) {
        size_t b = a;
        mb_fit_group g = {.batch = runs->batch[idx[a]]};
        double s = 0, s2 = 0;
        for (; b < runs->n && runs->batch[idx[b]] == g.batch; b++) {
            double v = runs->n_update[idx[b] * runs->n_thr + k];
            g.runs++;
            /* each run counts once: a run that reached this threshold before it diverged (a
             * higher level of --extrapolate's) counts as reached */
            g.diverged += runs->diverged && runs->diverged[idx[b]] != 0 && isnan(v);
            if (!isnan(v))
                g.reached++, s += v;
        }
        g.mean = g.reached ? s / (double)g.reached : NAN;
        for (size_t c = a; c < b; c++) {
            double v = runs->n_update[idx[c] * runs->n_thr + k];
            if (!isnan(v))
                s2 += (v - g.mean) * (v - g.mean);
        }
        g.sd = g.reached > 1 ? sqrt(s2 / (double)(g.reached - 1)) : NAN;
        g.se = g.sd / sqrt((double)g.reached);
        out->unreached += g.runs - g.reached;
        out->groups[out->n_groups++] = g;
        a = b;
    }
    free(idx);
    return MB_OK;
}

/* What every resample refits: the law mbopt optimises, from the full fit's parameters. */
typedef struct refit {
    int power, shifted;       /* the best law; neither: the inverse law */
    mb_fit_model other;       /* the power or shifted law's model */
    const double *p_full;     /* its full fit's parameters, the start */
    const double *m;          /* the np group M */
    size_t np;
    mb_fit_weighting weights;
    const double *sig;        /* the groups' observed standard errors (NULL: none) */
} refit;

/* Fits the law to one resample's group means y: the inverse law's n_inf and alpha into inv
 * (returns 1 when it fitted), and the best law's [n_inf, a, b] appended to q (*n_q) when it
 * fitted with n_inf > 0 (readers refuse n_inf <= 0). s: scratch for np weights. */
static int refit_one(const refit *rf, const double *y, double *s, double inv[2], double *q,
                     size_t *n_q)
{
    for (size_t g = 0; g < rf->np; g++) /* relative weights follow the resampled mean; seeds
                                           and pooled keep the observed standard errors */
        s[g] = rf->weights == MB_FIT_W_RELATIVE ? y[g] : rf->sig ? rf->sig[g] : 1.0;
    const double *sb = rf->weights == MB_FIT_W_NONE ? NULL : s;
    mb_fit_result r;
    mb_error e2 = {0};
    int ok = fit_inverse(rf->np, rf->m, y, sb, &r, &e2) == MB_OK && r.status == MB_OK;
    if (ok) {
        inv[0] = r.p[0], inv[1] = r.p[1];
        /* a resample's law outside the law's domain (N_inf <= 0, alpha < 0: N_update falling
         * as M falls) is no law: left out, as mbopt's reader would refuse it (campaign 18's M1:
         * 16 of 100 noisy resamples had alpha < 0, and make run's check stage stopped) */
        if (!rf->power && !rf->shifted && r.p[0] > 0 && r.p[1] >= 0) {
            double *x = q + 3 * (*n_q)++;
            x[0] = r.p[0], x[1] = r.p[1], x[2] = 1.0;
        }
    }
    mb_fit_result_free(&r);
    if (rf->power || rf->shifted) { /* [n_inf, a, b] or [n_inf, alpha, m_0] */
        mb_fit_options po;
        mb_fit_options_init(&po);
        po.geodesic = rf->power;
        if (mb_fit_nlinear(&rf->other, rf->np, y, sb, rf->p_full, &po, &r, &e2) == MB_OK &&
            r.status == MB_OK && r.p[0] > 0 && r.p[1] >= 0 && (rf->power ? r.p[2] > 0 : r.p[2] >= 0)) {
            double *x = q + 3 * (*n_q)++;
            x[0] = r.p[0], x[1] = r.p[1], x[2] = r.p[2];
        }
        mb_fit_result_free(&r);
    }
    return ok;
}

/* Resamples of whole seeds: draw the n_u seeds with replacement and take, at every M, the
 * runs of the drawn seeds as often as each was drawn (a group none of whose seeds was drawn
 * resamples its own runs). Fills out->boot_seed; none when a seed is unknown or fewer than
 * MB_FIT_BOOT_SEEDS_MIN are distinct. */
static int bootstrap_seeds(const refit *rf, const double *vals, const double *vseed,
                           const size_t *start, gsl_rng *rng, size_t n_boot, double *y,
                           double *s, mb_fit_nupdate *out, mb_error *err)
{
    const size_t nv = start[rf->np];
    double *u = malloc((nv + 1) * sizeof *u);
    size_t *count = malloc((nv + 1) * sizeof *count), *of = malloc((nv + 1) * sizeof *of),
           n_u = 0;
    int rc = MB_OK;
    if (!u || !count || !of) {
        rc = mb_error_set(err, MB_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < nv; i++) { /* the distinct seeds u, and each value's, of[i] */
        if (isnan(vseed[i]))
            goto done; /* a run of unknown seed: no pairing to keep */
        size_t j = 0;
        while (j < n_u && u[j] != vseed[i])
            j++;
        if (j == n_u)
            u[n_u++] = vseed[i];
        of[i] = j;
    }
    if (n_u < MB_FIT_BOOT_SEEDS_MIN)
        goto done;
    out->boot_seed = malloc(3 * n_boot * sizeof *out->boot_seed);
    if (!out->boot_seed) {
        rc = mb_error_set(err, MB_ENOMEM, "out of memory");
        goto done;
    }
    out->boot_seeds = n_u;
    for (size_t b = 0; b < n_boot; b++) {
        memset(count, 0, n_u * sizeof *count);
        for (size_t i = 0; i < n_u; i++)
            count[gsl_rng_uniform_int(rng, n_u)]++;
        for (size_t g = 0; g < rf->np; g++) {
            double sum = 0, w = 0;
            for (size_t i = start[g]; i < start[g + 1]; i++) {
                sum += (double)count[of[i]] * vals[i];
                w += (double)count[of[i]];
            }
            const size_t cnt = start[g + 1] - start[g];
            if (w == 0) /* none of this M's seeds drawn */
                for (size_t j = 0; j < cnt; j++, w++)
                    sum += vals[start[g] + gsl_rng_uniform_int(rng, cnt)];
            y[g] = sum / w;
        }
        double inv[2];
        refit_one(rf, y, s, inv, out->boot_seed, &out->boot_n_seed);
    }
done:
    free(u);
    free(count);
    free(of);
    return rc;
}

static int bootstrap(const mb_fit_runs *runs, size_t k, const mb_fit_nupdate_options *o,
                     const double *m, const double *sig, size_t np, mb_fit_nupdate *out,
                     mb_error *err)
{
    /* Values of each fitted group, contiguous, in group order, and their runs' seeds. */
    size_t nv = 0;
    double *vals = malloc((runs->n + 1) * sizeof *vals), *y = malloc(np * sizeof *y),
           *vseed = malloc((runs->n + 1) * sizeof *vseed), *s = malloc(np * sizeof *s),
           *bn = malloc(o->bootstrap * sizeof *bn), *ba = malloc(o->bootstrap * sizeof *ba);
    size_t *start = malloc((np + 1) * sizeof *start);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    /* the law mbopt optimises, refitted per resample from the full fit's parameters */
    const int power = strcmp(out->best, "power-law") == 0,
              shifted = strcmp(out->best, "shifted-law") == 0;
    const refit rf = {power, shifted,
                      power ? (mb_fit_model){"power-law", 3, pow_names, pow_f, m}
                            : (mb_fit_model){"shifted-law", 3, shf_names, shf_f, m},
                      power ? out->power.p : out->shifted.p, m, np, o->weights, sig};
    out->boot_best = malloc(3 * o->bootstrap * sizeof *out->boot_best);
    int rc = MB_OK;
    if (!vals || !y || !vseed || !s || !bn || !ba || !start || !rng || !out->boot_best) {
        rc = mb_error_set(err, MB_ENOMEM, "out of memory");
        goto done;
    }
    gsl_rng_set(rng, o->seed);
    for (size_t g = 0; g < np; g++) {
        start[g] = nv;
        for (size_t r = 0; r < runs->n; r++) {
            double v = runs->n_update[r * runs->n_thr + k];
            if (runs->batch[r] == m[g] && !isnan(v)) {
                vseed[nv] = runs->seed ? runs->seed[r] : NAN;
                vals[nv++] = v;
            }
        }
    }
    start[np] = nv;
    out->boot_b = o->bootstrap;
    for (size_t b = 0; b < o->bootstrap; b++) {
        for (size_t g = 0; g < np; g++) {
            size_t cnt = start[g + 1] - start[g];
            double sum = 0;
            for (size_t j = 0; j < cnt; j++)
                sum += vals[start[g] + gsl_rng_uniform_int(rng, cnt)];
            y[g] = sum / (double)cnt;
        }
        double inv[2];
        if (refit_one(&rf, y, s, inv, out->boot_best, &out->boot_n_best)) {
            bn[out->boot_ok] = inv[0];
            ba[out->boot_ok++] = inv[1];
        }
    }
    out->boot_lo[0] = out->boot_hi[0] = out->boot_lo[1] = out->boot_hi[1] = NAN;
    if (out->boot_ok >= MB_FIT_BOOT_MIN) { /* fewer: no 95% interval, not [0, 0] */
        gsl_sort(bn, 1, out->boot_ok);
        gsl_sort(ba, 1, out->boot_ok);
        out->boot_lo[0] = gsl_stats_quantile_from_sorted_data(bn, 1, out->boot_ok, 0.025);
        out->boot_hi[0] = gsl_stats_quantile_from_sorted_data(bn, 1, out->boot_ok, 0.975);
        out->boot_lo[1] = gsl_stats_quantile_from_sorted_data(ba, 1, out->boot_ok, 0.025);
        out->boot_hi[1] = gsl_stats_quantile_from_sorted_data(ba, 1, out->boot_ok, 0.975);
    }
    if (start[np] <= np)
        mb_fit_warn(&out->warn, "bootstrap: one run per M, so resampling runs cannot show any "
                                "spread; the bootstrap interval is not informative");
    else /* after the runs' resamples, so that those stay as they were */
        rc = bootstrap_seeds(&rf, vals, vseed, start, rng, o->bootstrap, y, s, out, err);
done:
    free(vals), free(y), free(vseed), free(s), free(bn), free(ba), free(start);
    gsl_rng_free(rng);
    return rc;
}

/* What the runs have in common and the fit reports beside it: their learning rate, algorithm
 * and learner count (one each: N_update(M) holds per rate and per (algo, P)), and McCandlish et
 * al.'s B_simple as the runs measured it (the median over runs). */
static int describe_runs(const mb_fit_runs *runs, mb_fit_nupdate *out, mb_error *err)
{
    out->lr = NAN;
    for (size_t i = 0; runs->lr && i < runs->n; i++) {
        if (isnan(runs->lr[i]))
            continue;
        char a[32], b[32]; /* mbfit names the files first (mb_fit_runs_same_settings) */
        if (!isnan(out->lr) && runs->lr[i] != out->lr)
            return mb_error_set(err, MB_EINVAL,
                                "the runs were trained with different learning rates (%s and "
                                "%s): the law holds per rate, so fit each rate's runs on their "
                                "own (mbfit nupdate --lr RATE)",
                                mb_data_fmt_exact(a, sizeof a, out->lr),
                                mb_data_fmt_exact(b, sizeof b, runs->lr[i]));
        out->lr = runs->lr[i];
    }
    /* N_update(M) is a property of the algorithm and of P as well: one (algo, P) at a time */
    out->algo[0] = '\0';
    out->procs = NAN;
    for (size_t i = 0; runs->algo && runs->procs && i < runs->n; i++) {
        if (i > 0 && (strcmp(runs->algo[i], out->algo) != 0 || runs->procs[i] != out->procs))
            return mb_error_set(err, MB_EINVAL,
                                "the runs are of several algorithms or learner counts (%s P=%g "
                                "and %s P=%g): N_update(M) holds per (algo, P), so fit each on "
                                "its own (mbfit nupdate --algo A --procs P)",
                                out->algo, out->procs, runs->algo[i], runs->procs[i]);
        snprintf(out->algo, sizeof out->algo, "%s", runs->algo[i]);
        out->procs = runs->procs[i];
    }
    /* McCandlish et al.'s B_simple, as the runs measured it: the median over runs */
    out->b_noise = out->b_ratio = NAN;
    out->b_simple = mb_fit_runs_b_simple(runs, &out->b_simple_runs);
    return MB_OK;
}

/* The converged range: M where most runs reached eps and none diverged, above every M where a
 * run diverged (a smaller M with the same learning rate is noisier still). */
static void converged_range(mb_fit_nupdate *out)
{
    for (size_t g = 0; g < out->n_groups; g++)
        if (out->groups[g].diverged)
            out->diverged_max = out->groups[g].batch;
    for (size_t g = 0; g < out->n_groups; g++) {
        const mb_fit_group *G = &out->groups[g];
        if (G->diverged || 2 * G->reached <= G->runs ||
            (!isnan(out->diverged_max) && G->batch <= out->diverged_max))
            continue;
        if (isnan(out->range_lo))
            out->range_lo = G->batch;
        out->range_hi = G->batch;
    }
}

/* The points the laws are fitted to: per M that some run reached eps, the mean updates (y), the
 * batch size (m) and the weight's sigma (sg), *np of them; warnings for the M left out. */
static int fit_points(mb_fit_nupdate *out, const mb_fit_nupdate_options *o, const char *eps,
                      double *m, double *y, double *sg, size_t *np, mb_error *err)
{
    *np = 0;
    for (size_t g = 0; g < out->n_groups; g++) {
        const mb_fit_group *G = &out->groups[g];
        if (G->diverged)
            mb_fit_warn(&out->warn, "M=%g: %zu of %zu runs diverged; M and every smaller M are "
                                    "outside the converged range",
                        G->batch, G->diverged, G->runs);
        if (G->reached == 0) {
            mb_fit_warn(&out->warn, "M=%g: none of %zu runs reached %s; M left out of the fit",
                        G->batch, G->runs, eps);
            continue;
        }
        if (2 * G->reached <= G->runs) {
            /* censored: the runs that arrived are the fastest of the M, their mean is biased
             * low, and the law's shape at small M (M_0 above all) would follow it */
            mb_fit_warn(&out->warn, "M=%g: only %zu of %zu runs reached %s, so their mean "
                                    "under-counts the M's updates; M left out of the fit (and "
                                    "of the converged range)",
                        G->batch, G->reached, G->runs, eps);
            continue;
        }
        if (G->reached + G->diverged < G->runs)
            mb_fit_warn(&out->warn, "M=%g: %zu of %zu runs never reached %s (left out, not "
                                    "counted at their last update)",
                        G->batch, G->runs - G->reached - G->diverged, G->runs, eps);
        if (o->weights == MB_FIT_W_SEEDS && !(G->reached >= 2 && G->se > 0)) {
            return mb_error_set(err, MB_ENODATA,
                              "--weights seeds: M=%g has %zu run(s) reaching %s and no spread; "
                              "it needs >= 2 differing runs per M (use --weights relative)",
                              G->batch, G->reached, eps);
        }
        if (!(G->mean > 0)) { /* relative weights would divide by it; no law has N = 0 */
            return mb_error_set(err, MB_ENODATA,
                              "M=%g: every run reaching %s did so at update 0 (a threshold at or "
                              "above the starting loss?)", G->batch, eps);
        }
        m[*np] = G->batch;
        y[*np] = G->mean;
        sg[*np] = o->weights == MB_FIT_W_SEEDS  ? G->se
                 : o->weights == MB_FIT_W_POOLED ? pooled_se(out, G)
                                               : G->mean;
        (*np)++;
    }
    return MB_OK;
}

/* Beside the inverse law (out->inverse, fitted): McCandlish's form of the same curve, the power
 * law where there are 4 or more points, and which law mbopt optimises (out->best, out->why). */
static void fit_other_laws(mb_fit_nupdate *out, size_t np, const double *m, const double *y,
                           const double *sig)
{
    const mb_fit_result *iv = &out->inverse;
    /* McCandlish: the same curve in (S_min, B_noise), B_noise = alpha / N_inf. */
    if (iv->p[0] > 0) {
        double p0[2] = {iv->p[0], iv->p[1] / iv->p[0]};
        mb_fit_model mod = {"mccandlish", 2, mcc_names, mcc_f, m};
        mb_error e2 = {0};
        out->have_mccandlish = mb_fit_nlinear(&mod, np, y, sig, p0, NULL, &out->mccandlish,
                                              &e2) == MB_OK;
    } else {
        mb_fit_warn(&out->warn, "McCandlish form skipped: B_noise = alpha / N_inf is undefined "
                                "for N_inf <= 0");
    }
    /* Power law: needs a degree of freedom beyond its three parameters. */
    if (np >= 4) {
        double p0[3] = {iv->p[0], iv->p[1], 1.0};
        mb_fit_model mod = {"power-law", 3, pow_names, pow_f, m};
        mb_fit_options po;
        mb_fit_options_init(&po);
        po.geodesic = 1;
        mb_error e2 = {0};
        out->have_power = mb_fit_nlinear(&mod, np, y, sig, p0, &po, &out->power, &e2) == MB_OK;
        /* an exact fit (chi2 = 0) has no finite AIC: nothing to compare, nothing to print */
        int exact = !isfinite(out->power.aic) || !isfinite(iv->aic);
        if (out->have_power && out->power.status == MB_OK && exact) {
            snprintf(out->why, sizeof out->why,
                     "the inverse law: AIC cannot choose, a law fits the %zu batch sizes exactly "
                     "(chi2 = 0), and the inverse law has fewer parameters and closed forms", np);
        } else if (out->have_power && out->power.status == MB_OK && out->power.aic < iv->aic) {
            out->aic_best = "power-law";
            double d = iv->aic - out->power.aic;
            /* b > 0 falls with M; a < 0 would rise with it, a law mbopt refuses (L16), as it
             * does n_inf <= 0 (campaign 16, S2) */
            if (d > 2 && out->power.p[2] > 0 && out->power.p[1] >= 0 && out->power.p[0] > 0) {
                out->best = "power-law";
                snprintf(out->why, sizeof out->why,
                         "the power law (b = %.3g) fits the %zu batch sizes better than the "
                         "inverse law: AIC %.4g vs %.4g, lower by %.3g > 2",
                         out->power.p[2], np, out->power.aic, iv->aic, d);
            } else if (d > 2) {
                snprintf(out->why, sizeof out->why,
                         "the inverse law: the power law's AIC (%.4g) is lower by %.3g, but its "
                         "fit (n_inf %.3g, a %.3g, b %.3g) is not a law that falls with M to "
                         "n_inf > 0", out->power.aic, d, out->power.p[0], out->power.p[1],
                         out->power.p[2]);
            } else {
                snprintf(out->why, sizeof out->why,
                         "the inverse law: the power law's AIC (%.4g) is lower by only %.3g "
                         "(<= 2, no real preference), and the inverse law has fewer parameters "
                         "and closed forms",
                         out->power.aic, d);
            }
        } else if (out->have_power && out->power.status != MB_OK) {
            mb_fit_warn(&out->warn, "power law: the solver did not converge (%s)",
                        out->power.gsl_reason);
        }
    } else {
        mb_fit_warn(&out->warn, "power law skipped: it needs at least 4 mini-batch sizes, "
                                "got %zu",
                    np);
    }
    if (strcmp(out->best, "inverse-law") == 0 && out->have_power && out->power.status == MB_OK &&
        isfinite(out->power.aic) && isfinite(iv->aic) && !(out->power.aic < iv->aic))
        snprintf(out->why, sizeof out->why,
                 "the inverse law: its AIC (%.4g) is at or below the power law's (%.4g)", iv->aic,
                 out->power.aic);
}

/* The shifted law beside the others, where there are 4 or more points (a degree of freedom
 * beyond its three parameters); it takes AIC's verdict (aic_best) where its AIC is the least. */
static void fit_shifted_law(mb_fit_nupdate *out, size_t np, const double *m, const double *y,
                            const double *sig)
{
    if (np < 4)
        return;
    mb_error e2 = {0};
    out->have_shifted = fit_shifted(np, m, y, sig, &out->shifted, &e2) == MB_OK;
    if (!out->have_shifted) {
        mb_fit_warn(&out->warn, "shifted law: %s", e2.msg);
        return;
    }
    if (out->shifted.status != MB_OK) {
        mb_fit_warn(&out->warn, "shifted law: the solver did not converge (%s)",
                    out->shifted.gsl_reason);
        return;
    }
    if (!(out->shifted.p[2] >= 0) || !(out->shifted.p[1] >= 0)) {
        /* no fit of a law that needs M_0 >= 0 and alpha >= 0: the runs fall no faster than
         * 1 / M, and the inverse law is the shifted law's M_0 = 0 */
        mb_fit_warn(&out->warn, "shifted law: M_0 fitted at %.4g and alpha at %.4g (it needs "
                    "both >= 0): the runs fall no faster than 1 / M; not kept",
                    out->shifted.p[2], out->shifted.p[1]);
        out->have_shifted = 0;
        return;
    }
    const mb_fit_result *cur = strcmp(out->aic_best, "power-law") == 0 ? &out->power
                                                                        : &out->inverse;
    if (isfinite(out->shifted.aic) && isfinite(cur->aic) && out->shifted.aic < cur->aic)
        out->aic_best = "shifted-law";
}

/* Whether the inverse law's alpha is below 0 by rounding only: its part of N at the least M,
 * |alpha| / M, under 1e-9 of the largest mean N (a fit of equal counts gave -7e-14 and was said
 * to grow). Such a fit is flat, not growing; one a rounding above 0 stays a fit (alpha ~ 0: two
 * M that took as many updates, as sgd-sync's runs in tests/test_train_par.c). */
static int flat_in_m(size_t np, const double *m, const double *y, double alpha)
{
    double m_min = INFINITY, y_max = 0;
    for (size_t i = 0; i < np; i++)
        m_min = fmin(m_min, m[i]), y_max = fmax(y_max, fabs(y[i]));
    return alpha < 0 && fabs(alpha) / m_min <= 1e-9 * y_max;
}

int mb_fit_nupdate_run(const mb_fit_runs *runs, size_t k, const mb_fit_nupdate_options *o,
                       mb_fit_nupdate *out, mb_error *err)
{
    memset(out, 0, sizeof *out);
    out->threshold = runs->thresholds[k];
    out->aic_best = "inverse-law";
    char eps[64];
    if (isnan(out->threshold))
        snprintf(eps, sizeof eps, "the points file");
    else { /* as typed: %g merged thresholds a unit of the 6th decimal apart (campaign 42, F1) */
        char t[MB_DATA_TYPED_LEN];
        snprintf(eps, sizeof eps, "--target-loss %s", mb_data_typed(t, out->threshold));
    }
    out->range_lo = out->range_hi = out->diverged_max = NAN;
    snprintf(out->why, sizeof out->why, "the inverse law: the only law fitted");
    out->best = "inverse-law";
    int rc = describe_runs(runs, out, err);
    if (rc != MB_OK || (rc = group_runs(runs, k, out, err)) != MB_OK)
        return rc;
    converged_range(out);
    if (out->unreached == out->runs)
        return mb_error_set(err, MB_ENODATA, "%s: none of the %zu runs reached it", eps,
                            out->runs);
    double *m = malloc(out->n_groups * sizeof *m), *y = malloc(out->n_groups * sizeof *y),
           *sg = malloc(out->n_groups * sizeof *sg);
    if (!m || !y || !sg) {
        free(m), free(y), free(sg);
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    }
    size_t np;
    if ((rc = fit_points(out, o, eps, m, y, sg, &np, err)) != MB_OK)
        goto done;
    if (np < 2) {
        char one[64] = "no mini-batch size";
        if (np == 1)
            snprintf(one, sizeof one, "a single mini-batch size (M=%g)", m[0]);
        rc = mb_error_set(err, MB_ENODATA,
                          "%s: most runs reached it at %s; the inverse law needs at least two",
                          eps, one);
        goto done;
    }
    const double *sig = o->weights == MB_FIT_W_NONE ? NULL : sg;
    if ((rc = fit_inverse(np, m, y, sig, &out->inverse, err)) != MB_OK)
        goto done;
    const mb_fit_result *iv = &out->inverse;
    if (flat_in_m(np, m, y, iv->p[1])) { /* alpha 0 to rounding (campaign 21, N16) */
        rc = mb_error_set(err, MB_ENODATA, "%s: N_update is flat in M, not growing (the "
                          "inverse law's alpha fitted at %.6g, below 0 by rounding only): no law "
                          "in which larger batches need fewer updates fits these runs", eps,
                          iv->p[1]);
        goto done;
    }
    if (!(iv->p[1] >= 0)) { /* no law mbopt reads fits: refused, as the shifted law's alpha < 0
                               is not kept (issue #25, L12) */
        rc = mb_error_set(err, MB_ENODATA, "%s: N_update grows with M (the inverse law's alpha "
                          "fitted at %.6g < 0): no law in which larger batches need fewer "
                          "updates fits these runs", eps, iv->p[1]);
        goto done;
    }
    if (iv->p[0] > 0) { /* B_noise = alpha / N_inf beside the runs' B_simple */
        out->b_noise = iv->p[1] / iv->p[0];
        out->b_ratio = out->b_simple / out->b_noise;
    }
    if (iv->status != MB_OK)
        mb_fit_warn(&out->warn, "inverse law: the solver did not converge (%s)", iv->gsl_reason);
    if (np == 2)
        mb_fit_warn(&out->warn, "two mini-batch sizes: the inverse law passes through both, no "
                                "error estimate is possible (measure more M)");
    if (iv->p[0] < 0)
        mb_fit_warn(&out->warn, "N_inf fitted negative (%.4g): reported as found, not clipped "
                                "(Perrone et al. saw this with Adam); mbopt needs N_inf > 0",
                    iv->p[0]);
    fit_other_laws(out, np, m, y, sig);
    fit_shifted_law(out, np, m, y, sig);
    choose_law(out, o->choose);
    if (o->bootstrap > 0)
        rc = bootstrap(runs, k, o, m, sig, np, out, err);
done:
    free(m), free(y), free(sg);
    return rc;
}

/* object[key]: n laws' [n_inf, a, b] from q (n x 3). */
static void add_samples(cJSON *object, const char *key, const double *q, size_t n)
{
    cJSON *sm = cJSON_AddArrayToObject(object, key);
    for (size_t i = 0; sm && i < n; i++) {
        cJSON *x = cJSON_CreateArray();
        for (int j = 0; x && j < 3; j++)
            cJSON_AddItemToArray(x, cJSON_CreateNumber(q[3 * i + j]));
        cJSON_AddItemToArray(sm, x);
    }
}

/* ---- JSON ------------------------------------------------------------------------------------- */

cJSON *mb_fit_nupdate_json(const mb_fit_nupdate *f, const mb_fit_nupdate_options *o,
                           const mb_fit_runs *runs, size_t k)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    mb_fit_json_merge(root, mb_fit_result_json(&f->inverse));
    mb_json_add_number(root, "target_loss", f->threshold);
    cJSON_AddStringToObject(root, "weights", mb_fit_weighting_name(o->weights));
    cJSON_AddStringToObject(root, "choose", mb_fit_choice_name(o->choose));
    mb_json_add_number(root, "runs", (double)f->runs);
    mb_json_add_number(root, "unreached", (double)f->unreached);
    mb_json_add_number(root, "lr", f->lr);
    if (f->algo[0])
        cJSON_AddStringToObject(root, "algo", f->algo);
    mb_json_add_number(root, "procs", f->procs);
    /* the workload the runs trained, where their logs say: mbopt refuses a tfit or run logs of
     * another (campaign 21, N4) */
    const char *net = "", *data = "";
    for (size_t i = 0; runs && i < runs->n; i++) {
        net = *net || !runs->net ? net : runs->net[i];
        data = *data ? data : mb_fit_runs_setting(runs, i, "data");
    }
    if (*net)
        cJSON_AddStringToObject(root, "net", net);
    if (*data)
        cJSON_AddStringToObject(root, "data", data);
    /* the gradient noise scale the runs measured, beside the fit's alpha / N_inf */
    mb_json_add_number(root, "b_simple", f->b_simple);
    mb_json_add_number(root, "b_simple_runs", (double)f->b_simple_runs);
    mb_json_add_number(root, "alpha_over_n_inf", f->b_noise);
    mb_json_add_number(root, "b_simple_ratio", f->b_ratio);
    if (!isnan(f->range_lo)) {
        cJSON *r = cJSON_AddArrayToObject(root, "converged_range");
        if (r) {
            cJSON_AddItemToArray(r, cJSON_CreateNumber(f->range_lo));
            cJSON_AddItemToArray(r, cJSON_CreateNumber(f->range_hi));
        }
    }
    mb_json_add_number(root, "diverged_max_batch", f->diverged_max);
    /* the law mbopt optimises (docs/design.md, "Fits": `model` plus its `params`), and every
     * law fitted */
    const mb_fit_result *bestr = strcmp(f->best, "power-law") == 0     ? &f->power
                                 : strcmp(f->best, "shifted-law") == 0 ? &f->shifted
                                                                        : &f->inverse;
    cJSON *best = cJSON_AddObjectToObject(root, "best");
    if (best) {
        cJSON *bj = mb_fit_result_json(bestr);
        cJSON_AddItemToObject(best, "model", cJSON_CreateString(f->best));
        cJSON_AddItemToObject(best, "params",
                              cJSON_DetachItemFromObjectCaseSensitive(bj, "params"));
        cJSON_AddStringToObject(best, "why", f->why);
        cJSON_Delete(bj);
    }
    cJSON *laws = cJSON_AddObjectToObject(root, "laws");
    if (laws) {
        cJSON_AddItemToObject(laws, "inverse-law", mb_fit_result_json(&f->inverse));
        if (f->have_power && f->power.status == MB_OK)
            cJSON_AddItemToObject(laws, "power-law", mb_fit_result_json(&f->power));
        if (f->have_shifted && f->shifted.status == MB_OK)
            cJSON_AddItemToObject(laws, "shifted-law", mb_fit_result_json(&f->shifted));
    }
    cJSON *pm = cJSON_AddArrayToObject(root, "per_m");
    for (size_t g = 0; pm && g < f->n_groups; g++) {
        const mb_fit_group *G = &f->groups[g];
        cJSON *e = cJSON_CreateObject();
        if (!e)
            break;
        mb_json_add_number(e, "batch", G->batch);
        mb_json_add_number(e, "runs", (double)G->runs);
        mb_json_add_number(e, "reached", (double)G->reached);
        mb_json_add_number(e, "unreached", (double)(G->runs - G->reached - G->diverged));
        mb_json_add_number(e, "diverged", (double)G->diverged);
        mb_json_add_number(e, "mean", G->mean);
        mb_json_add_number(e, "sd", G->sd);
        mb_json_add_number(e, "se", G->se);
        cJSON_AddItemToArray(pm, e);
    }
    /* every run's own count (null where it never reached the threshold), for plots */
    cJSON *pts = runs ? cJSON_AddArrayToObject(root, "points") : NULL;
    for (size_t i = 0; pts && i < runs->n; i++) {
        cJSON *e = cJSON_CreateObject();
        if (!e)
            break;
        mb_json_add_number(e, "batch", runs->batch[i]);
        mb_json_add_number(e, "seed", runs->seed[i]);
        mb_json_add_number(e, "n_update", runs->n_update[i * runs->n_thr + k]);
        cJSON_AddItemToArray(pts, e);
    }
    cJSON *alt = cJSON_AddObjectToObject(root, "alternatives");
    if (alt) {
        if (f->have_power)
            cJSON_AddItemToObject(alt, "power-law", mb_fit_result_json(&f->power));
        if (f->have_shifted)
            cJSON_AddItemToObject(alt, "shifted-law", mb_fit_result_json(&f->shifted));
        if (f->have_mccandlish)
            cJSON_AddItemToObject(alt, "mccandlish", mb_fit_result_json(&f->mccandlish));
        cJSON_AddStringToObject(alt, "aic_best", f->aic_best);
    }
    cJSON_AddStringToObject(root, "note",
                            "params are the inverse law's N = n_inf + alpha / M; `best` is the "
                            "law mbopt optimises (by `choose`: the shifted law n_inf + alpha / "
                            "(M - m_0) only when its AIC is lower by more than 2); "
                            "alternatives.mccandlish is the same curve as s_min = n_inf, "
                            "b_noise = alpha / n_inf");
    if (f->boot_b) {
        cJSON *b = cJSON_AddObjectToObject(root, "bootstrap");
        if (b) {
            mb_json_add_number(b, "resamples", (double)f->boot_b);
            mb_json_add_number(b, "fitted", (double)f->boot_ok);
            mb_json_add_number(b, "seed", (double)o->seed);
            cJSON *ci = cJSON_AddObjectToObject(b, "ci95");
            for (int j = 0; ci && j < 2; j++) {
                cJSON *iv = cJSON_CreateArray();
                if (!iv)
                    break;
                /* [null, null]: too few resamples fitted for an interval */
                cJSON_AddItemToArray(iv, isfinite(f->boot_lo[j]) ? cJSON_CreateNumber(f->boot_lo[j])
                                                                : cJSON_CreateNull());
                cJSON_AddItemToArray(iv, isfinite(f->boot_hi[j]) ? cJSON_CreateNumber(f->boot_hi[j])
                                                                : cJSON_CreateNull());
                cJSON_AddItemToObject(ci, inv_names[j], iv);
            }
            cJSON_AddStringToObject(b, "best_law", f->best);
            /* [n_inf, a, b] each; [n_inf, alpha, m_0] for the shifted law */
            add_samples(b, "best_samples", f->boot_best, f->boot_n_best);
            if (f->boot_seed) { /* the same law, refitted to resamples of whole seeds */
                mb_json_add_number(b, "seeds", (double)f->boot_seeds);
                add_samples(b, "best_samples_by_seed", f->boot_seed, f->boot_n_seed);
            }
        }
    }
    cJSON_AddItemToObject(root, "warnings", mb_fit_warnings_json(&f->warn));
    return root;
}

static int cmp_seed(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void mb_fit_runs_seeds_json(cJSON *inputs, const mb_fit_runs *runs)
{
    if (!inputs || !runs->from_logs || runs->n == 0)
        return;
    double *v = malloc(runs->n * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; v && i < runs->n; i++) {
        if (isnan(runs->seed[i])) {
            free(v);
            return;
        }
        v[i] = runs->seed[i];
    }
    if (!v)
        return;
    qsort(v, runs->n, sizeof *v, cmp_seed);
    for (size_t i = 0; i < runs->n; i++)
        if (i == 0 || v[i] != v[n - 1])
            v[n++] = v[i];
    cJSON *a = n <= MB_FIT_SEEDS_MAX ? cJSON_AddArrayToObject(inputs, "seeds") : NULL;
    for (size_t i = 0; a && i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
    free(v);
}
