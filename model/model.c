/* model.c — the closed forms of mb_model.h: N_update, T_update, T_C and its optimum over M,
 * strong and weak scaling, and the budget design of Perrone et al. 2019 (eq. 2-12).
 *
 * Pure functions: no I/O, no allocation. Every input is checked against the formula's domain and
 * a violation returns MB_EDOM with the outputs untouched.
 */
#include "mb_model.h"

#include <math.h>
#include <string.h>

static int finite_pos(double x) { return isfinite(x) && x > 0.0; }
static int finite_nonneg(double x) { return isfinite(x) && x >= 0.0; }

static const char *const comm_names[] = {"none", "allreduce", "ps", "alpha-beta"};

const char *mb_model_comm_name(mb_comm comm)
{
    if ((unsigned)comm < sizeof comm_names / sizeof comm_names[0])
        return comm_names[comm];
    return "?";
}

int mb_model_comm_parse(const char *name, mb_comm *comm)
{
    for (unsigned i = 0; i < sizeof comm_names / sizeof comm_names[0]; i++)
        if (name && strcmp(name, comm_names[i]) == 0) {
            *comm = (mb_comm)i;
            return MB_OK;
        }
    return MB_EINVAL;
}

const char *mb_model_regime_name(mb_regime regime)
{
    switch (regime) {
    case MB_REGIME_SINGLE: return "single";
    case MB_REGIME_BALANCE: return "balance";
    case MB_REGIME_KNEE: return "knee";
    }
    return "?";
}

int mb_model_nupdate(const mb_inverse_law *law, double m, double *n)
{
    if (!finite_pos(m) || !isfinite(law->n_inf) || !isfinite(law->alpha))
        return MB_EDOM;
    double v = law->n_inf + law->alpha / m;
    if (!finite_pos(v))
        return MB_EDOM;
    *n = v;
    return MB_OK;
}

static const char *const law_names[MB_LAW_KINDS] = {"inverse-law", "power-law", "shifted-law"};

const char *mb_model_law_name(mb_law_kind kind)
{
    return (unsigned)kind < MB_LAW_KINDS ? law_names[kind] : "?";
}

int mb_model_law_parse(const char *name, mb_law_kind *kind)
{
    for (unsigned i = 0; i < MB_LAW_KINDS; i++)
        if (name && strcmp(name, law_names[i]) == 0) {
            *kind = (mb_law_kind)i;
            return MB_OK;
        }
    return MB_EINVAL;
}

size_t mb_model_law_names(mb_law_kind kind, const char *names[3])
{
    names[0] = "n_inf";
    names[1] = kind == MB_LAW_POWER ? "a" : "alpha";
    if (kind == MB_LAW_INVERSE)
        return 2;
    names[2] = kind == MB_LAW_POWER ? "b" : "m_0";
    return 3;
}

size_t mb_model_law_params(const mb_law *law, const char *names[3], double v[3])
{
    v[0] = law->n_inf, v[1] = law->a;
    v[2] = law->kind == MB_LAW_POWER ? law->b : law->m0;
    return mb_model_law_names(law->kind, names);
}

mb_law mb_model_law_from_params(mb_law_kind kind, const double v[3])
{
    mb_law l = {.kind = kind, .n_inf = v[0], .a = v[1], .b = 1.0};
    if (kind == MB_LAW_POWER)
        l.b = v[2];
    else if (kind == MB_LAW_SHIFTED)
        l.m0 = v[2];
    return l;
}

mb_law mb_model_law_inverse(const mb_inverse_law *law)
{
    return (mb_law){.kind = MB_LAW_INVERSE, .n_inf = law->n_inf, .a = law->alpha, .b = 1.0};
}

int mb_model_law_as_inverse(const mb_law *law, mb_inverse_law *inv)
{
    if (law->kind != MB_LAW_INVERSE || law->b != 1.0 || law->m0 != 0.0)
        return MB_EDOM;
    inv->n_inf = law->n_inf;
    inv->alpha = law->a;
    return MB_OK;
}

int mb_model_law_nupdate(const mb_law *law, double m, double *n, double *dn)
{
    if (!finite_pos(m) || !isfinite(law->n_inf) || !isfinite(law->a) || !finite_pos(law->b) ||
        !(isfinite(law->m0) && law->m0 >= 0) || !(m > law->m0))
        return MB_EDOM;
    const double x = m - law->m0, mb = law->b == 1.0 ? 1.0 / x : pow(x, -law->b);
    const double v = law->n_inf + law->a * mb;
    if (!finite_pos(v))
        return MB_EDOM;
    *n = v;
    if (dn)
        *dn = -law->b * law->a * mb / x;
    return MB_OK;
}

/* Whether m[0..n) ascend and m, t are > 0 and finite (n < 2: no table, valid). */
static int table_valid(const double *m, const double *t, size_t n)
{
    if (n > MB_MODEL_TABLE_MAX)
        return 0;
    for (size_t i = 0; n >= 2 && i < n; i++)
        if (!finite_pos(m[i]) || !finite_pos(t[i]) || (i > 0 && !(m[i] > m[i - 1])))
            return 0;
    return 1;
}

static int update_time_valid(const mb_update_time *t)
{
    if (!finite_pos(t->gamma) || !finite_pos(t->m_t) || !finite_nonneg(t->t0) ||
        !table_valid(t->table_m, t->table_t, t->n_table) || t->n_by_p > MB_MODEL_PTABLES)
        return 0;
    for (size_t k = 0; k < t->n_by_p; k++)
        if (!(t->by_p[k].p > 1) || !table_valid(t->by_p[k].m, t->by_p[k].t, t->by_p[k].n))
            return 0;
    if (t->n_pdelta > MB_MODEL_PDELTAS)
        return 0;
    for (size_t k = 0; k < t->n_pdelta; k++)
        if (!(t->pdelta_p[k] > 1) || !finite_nonneg(t->pdelta[k]))
            return 0;
    switch (t->comm) {
    case MB_COMM_NONE: return 1;
    case MB_COMM_ALLREDUCE:
    case MB_COMM_PS: return finite_nonneg(t->delta);
    case MB_COMM_ALPHA_BETA:
        return finite_nonneg(t->latency_s) && finite_nonneg(t->s_per_byte) &&
               finite_nonneg(t->bytes);
    }
    return 0;
}

int mb_model_comm_time(const mb_update_time *t, double p, double *delta)
{
    if (!update_time_valid(t) || !isfinite(p) || p < 1.0)
        return MB_EDOM;
    double d = 0.0;
    if (p > 1.0 && t->n_pdelta > 0 &&
        (t->comm == MB_COMM_ALLREDUCE || t->comm == MB_COMM_PS)) {
        size_t k = 0;
        while (k < t->n_pdelta && t->pdelta_p[k] != p)
            k++;
        if (k == t->n_pdelta)
            return MB_EDOM; /* not measured at this P */
        *delta = t->pdelta[k];
        return MB_OK;
    }
    if (p > 1.0) {
        switch (t->comm) {
        case MB_COMM_NONE: d = 0.0; break;
        case MB_COMM_ALLREDUCE: d = t->delta; break;
        case MB_COMM_PS: d = t->delta * p; break;
        case MB_COMM_ALPHA_BETA:
            d = 2.0 * (p - 1.0) * t->latency_s + 2.0 * (p - 1.0) / p * t->bytes * t->s_per_byte;
            break;
        }
    }
    *delta = d;
    return MB_OK;
}

/* A measured table's time at x samples and its slope: log-log between points, flat below the
 * first, linear in x beyond the last (seconds per sample of the last point). */
static void table_time(const double *m, const double *v, size_t n, double x, double *c,
                       double *dc)
{
    if (x < m[0]) {
        *c = v[0], *dc = 0.0;
    } else if (x >= m[n - 1]) {
        *dc = v[n - 1] / m[n - 1];
        *c = v[n - 1] + *dc * (x - m[n - 1]);
    } else {
        size_t i = 0;
        while (x >= m[i + 1])
            i++;
        const double s = log(v[i + 1] / v[i]) / log(m[i + 1] / m[i]); /* local exponent */
        *c = v[i] * pow(x / m[i], s);
        *dc = s * *c / x;
    }
}

double mb_model_table_time(const double *m, const double *t, size_t n, double x)
{
    double c = NAN, dc;
    if (n >= 2)
        table_time(m, t, n, x, &c, &dc);
    return c;
}

/* P's own table (n >= 2), NULL when it has none. */
static const mb_step_table *p_table(const mb_update_time *t, double p)
{
    for (size_t k = 0; k < t->n_by_p; k++)
        if (t->by_p[k].p == p && t->by_p[k].n >= 2)
            return &t->by_p[k];
    return NULL;
}

/* One of p learners' compute time at x samples and its slope dt/dx: p's own table s when it
 * has one (p_table), else the one-learner table, else the closed form. */
static void compute_time(const mb_update_time *t, const mb_step_table *s, double x, double *c,
                         double *dc)
{
    if (s) {
        table_time(s->m, s->t, s->n, x, c, dc);
        return;
    }
    if (t->n_table >= 2) {
        table_time(t->table_m, t->table_t, t->n_table, x, c, dc);
        return;
    }
    *c = t->gamma * fmax(x, t->m_t) + t->t0;
    *dc = x >= t->m_t ? t->gamma : 0.0;
}

int mb_model_tupdate(const mb_update_time *t, double m, double p, double *tu)
{
    double d, c, dc;
    if (!finite_pos(m) || mb_model_comm_time(t, p, &d) != MB_OK)
        return MB_EDOM;
    const mb_step_table *s = p_table(t, p);
    compute_time(t, s, m / p, &c, &dc);
    *tu = c + (s && s->runs > 0 ? 0.0 : d); /* the runs' own table holds Delta(P) */
    return MB_OK;
}

int mb_model_tupdate_dm(const mb_update_time *t, double m, double p, double *dm)
{
    double d, c, dc;
    if (!finite_pos(m) || mb_model_comm_time(t, p, &d) != MB_OK)
        return MB_EDOM;
    compute_time(t, p_table(t, p), m / p, &c, &dc);
    *dm = dc / p;
    return MB_OK;
}

int mb_model_tc(const mb_inverse_law *law, const mb_update_time *t, double m, double p,
                double *tc)
{
    double n, tu;
    if (mb_model_nupdate(law, m, &n) != MB_OK || mb_model_tupdate(t, m, p, &tu) != MB_OK)
        return MB_EDOM;
    *tc = n * tu;
    return MB_OK;
}

int mb_model_law_tc(const mb_law *law, const mb_update_time *t, double m, double p, double *tc)
{
    double n, tu;
    if (mb_model_law_nupdate(law, m, &n, NULL) != MB_OK || mb_model_tupdate(t, m, p, &tu) != MB_OK)
        return MB_EDOM;
    *tc = n * tu;
    return MB_OK;
}

int mb_model_optimum(const mb_inverse_law *law, const mb_update_time *t, double p,
                     mb_optimum *opt)
{
    double d;
    if (!finite_pos(law->n_inf) || !finite_nonneg(law->alpha) ||
        mb_model_comm_time(t, p, &d) != MB_OK)
        return MB_EDOM;

    const double n = law->n_inf, a = law->alpha, g = t->gamma, mt = t->m_t;
    d += t->t0; /* the fixed cost of an update: communication and t0 alike */
    /* Above the knee (M >= M_T P), T_C = (n + a/M)(g M/P + D) is convex in M with its minimum
     * at M* = sqrt(a D P / (n g)) (Perrone eq. 9); below the knee T_C only falls as M grows. */
    const double m_star = sqrt(a * d * p / (n * g));
    mb_optimum o;
    if (p == 1.0 && t->t0 == 0.0) {
        o.regime = MB_REGIME_SINGLE; /* eq. 7-8: M_opt = M_T */
        o.m_opt = mt;
        o.t_c = (n + a / mt) * g * mt;
    } else if (m_star > mt * p) {
        o.regime = MB_REGIME_BALANCE; /* eq. 10, first case */
        o.m_opt = m_star;
        const double s = sqrt(d * n) + sqrt(a * g / p);
        o.t_c = s * s;
    } else {
        o.regime = MB_REGIME_KNEE; /* eq. 10, otherwise */
        o.m_opt = mt * p;
        o.t_c = (n + a / (mt * p)) * (d + g * mt);
    }
    o.n_update = n + a / o.m_opt;
    o.t_update = g * fmax(o.m_opt / p, mt) + d;
    if (!finite_pos(o.t_c))
        return MB_EDOM;
    *opt = o;
    return MB_OK;
}

int mb_model_regime_boundary(const mb_inverse_law *law, const mb_update_time *t, double *p_b)
{
    if (!finite_pos(law->n_inf) || !finite_nonneg(law->alpha) || !update_time_valid(t))
        return MB_EDOM;
    const double n = law->n_inf, a = law->alpha, g = t->gamma, mt = t->m_t;
    const double t0 = t->t0;
    if (t->n_pdelta > 0 && t->comm != MB_COMM_NONE)
        return MB_ENOTSUP; /* Delta measured per P: no closed-form branch point */
    switch (t->comm) {
    case MB_COMM_NONE: *p_b = fmax(1.0, a * t0 / (g * mt * mt * n)); return MB_OK;
    case MB_COMM_ALLREDUCE: *p_b = a * (t0 + t->delta) / (g * mt * mt * n); return MB_OK;
    case MB_COMM_PS: {
        /* M*^2 = a (t0 + delta P) P / (n g) > M_T^2 P^2 iff a t0 / P + a delta > n g M_T^2. */
        const double room = n * g * mt * mt - a * t->delta;
        *p_b = room <= 0.0 ? INFINITY : t0 > 0.0 ? fmax(1.0, a * t0 / room) : 1.0;
        return MB_OK;
    }
    case MB_COMM_ALPHA_BETA: return MB_ENOTSUP;
    }
    return MB_EDOM;
}

int mb_model_tc_strong(const mb_inverse_law *law, const mb_update_time *t, double m, double p,
                       double *tc)
{
    return mb_model_tc(law, t, m, p, tc);
}

int mb_model_tc_weak(const mb_inverse_law *law, const mb_update_time *t, double m_per_learner,
                     double p, double *tc)
{
    if (!finite_pos(m_per_learner) || !isfinite(p) || p < 1.0)
        return MB_EDOM;
    return mb_model_tc(law, t, m_per_learner * p, p, tc);
}

/* ---- budget design (Perrone eq. 11-12) ----------------------------------------------------- */

/* The update-time model with the bandwidth-dependent constant rescaled to `bandwidth`. */
static mb_update_time at_bandwidth(const mb_update_time *t, const mb_design_problem *prob,
                                   double bandwidth)
{
    mb_update_time s = *t;
    const double scale = prob->bandwidth_ref / bandwidth;
    /* a term that is 0 stays 0 at any bandwidth (0 x inf would be NaN at bandwidth 0) */
    s.delta = s.delta != 0.0 ? s.delta * scale : 0.0;
    s.s_per_byte = s.s_per_byte != 0.0 ? s.s_per_byte * scale : 0.0;
    for (size_t k = 0; k < s.n_pdelta; k++)
        s.pdelta[k] = s.pdelta[k] != 0.0 ? s.pdelta[k] * scale : 0.0;
    return s;
}

/* Whether the update time depends on the bandwidth at all (--delta 0 and no per-byte or per-P
 * cost: bandwidth buys nothing, and the whole budget may go to learners). */
static int needs_bandwidth(const mb_update_time *t)
{
    int any = t->delta != 0.0 || t->s_per_byte != 0.0;
    for (size_t k = 0; k < t->n_pdelta; k++)
        any |= t->pdelta[k] != 0.0;
    return any;
}

/* T_C at the optimal M for P learners and the given bandwidth; +inf outside the domain. */
static double design_tc(const mb_inverse_law *law, const mb_update_time *t,
                        const mb_design_problem *prob, double p, double bandwidth)
{
    mb_update_time s = at_bandwidth(t, prob, bandwidth);
    mb_optimum o;
    if (!(bandwidth > 0.0 || (bandwidth == 0.0 && !needs_bandwidth(t))) ||
        mb_model_optimum(law, &s, p, &o) != MB_OK)
        return INFINITY;
    return o.t_c;
}

static double budget_bandwidth(const mb_design_problem *prob, double p)
{
    return (prob->budget - prob->price_learner * p) / prob->price_bandwidth;
}

int mb_model_design(const mb_inverse_law *law, const mb_update_time *t,
                    const mb_design_problem *prob, mb_design *design)
{
    if (!finite_pos(prob->budget) || !finite_pos(prob->price_learner) ||
        !finite_pos(prob->price_bandwidth) || !finite_pos(prob->bandwidth_ref) ||
        !finite_pos(law->n_inf) || !finite_nonneg(law->alpha) || !update_time_valid(t))
        return MB_EDOM;
    /* The largest P leaves a sliver of bandwidth; one learner needs none. */
    /* at most 2^53 learners: past it P + 1 == P, and the whole-learner step below would not
     * move (a budget of 1e300 at a price of 1 once ran forever) */
    const double p_max = fmin(prob->budget / prob->price_learner, 0x1p53);
    if (p_max <= 1.0)
        return MB_EDOM;

    /* Golden-section search for the best P in (1, p_max) on a log scale: T_C(M_opt(P), P) along
     * the budget line falls while learners help and rises once bandwidth starves. */
    const double phi = (sqrt(5.0) - 1.0) / 2.0;
    double lo = 0.0, hi = log(p_max);
    double x1 = hi - phi * (hi - lo), x2 = lo + phi * (hi - lo);
    double f1 = design_tc(law, t, prob, exp(x1), budget_bandwidth(prob, exp(x1)));
    double f2 = design_tc(law, t, prob, exp(x2), budget_bandwidth(prob, exp(x2)));
    for (int it = 0; it < 200 && hi - lo > 1e-12 * fmax(1.0, hi); it++) {
        if (f1 <= f2) {
            hi = x2; x2 = x1; f2 = f1;
            x1 = hi - phi * (hi - lo);
            f1 = design_tc(law, t, prob, exp(x1), budget_bandwidth(prob, exp(x1)));
        } else {
            lo = x1; x1 = x2; f1 = f2;
            x2 = lo + phi * (hi - lo);
            f2 = design_tc(law, t, prob, exp(x2), budget_bandwidth(prob, exp(x2)));
        }
    }
    double p = exp(0.5 * (lo + hi));
    /* bandwidth that buys nothing: the optimum is the budget's every learner, p_max itself (the
     * search stops a hair under it, 49.99999999993 for 50) */
    if (!needs_bandwidth(t) && p > p_max * (1.0 - 1e-9))
        p = p_max;
    double b = budget_bandwidth(prob, p);
    double best = design_tc(law, t, prob, p, b);

    /* One learner needs no bandwidth at all: compare with it. */
    mb_update_time s1 = *t;
    mb_optimum single;
    if (mb_model_optimum(law, &s1, 1.0, &single) != MB_OK)
        return MB_EDOM;
    mb_design d;
    memset(&d, 0, sizeof d);
    if (!(best < single.t_c)) {
        d.learners = d.whole_learners = 1.0;
        d.bandwidth = d.whole_bandwidth = 0.0;
        d.opt = single;
        d.whole_t_c = single.t_c;
        d.interior = 0;
        *design = d;
        return MB_OK;
    }
    if (!isfinite(best))
        return MB_EDOM;

    mb_update_time sb = at_bandwidth(t, prob, b);
    if (mb_model_optimum(law, &sb, p, &d.opt) != MB_OK)
        return MB_EDOM;
    d.learners = p;
    d.bandwidth = b;
    /* Marginal gains per unit of money (eq. 12), by central differences. */
    const double hp = 1e-5 * p, hb = 1e-5 * b;
    d.dt_dcost_learners = (design_tc(law, t, prob, p + hp, b) - design_tc(law, t, prob, p - hp, b)) /
                          (2.0 * hp * prob->price_learner);
    d.dt_dcost_bandwidth = !needs_bandwidth(t) ? 0.0 /* it buys nothing */
                           : (design_tc(law, t, prob, p, b + hb) - design_tc(law, t, prob, p, b - hb)) /
                                 (2.0 * hb * prob->price_bandwidth);
    d.interior = p > 1.0 + 1e-6 && p < p_max * (1.0 - 1e-6);
    /* Learners come whole: the better neighbour on the budget line (one learner needs no
     * bandwidth, so P = 1 is priced without it). */
    d.whole_learners = 1.0;
    d.whole_bandwidth = 0.0;
    d.whole_t_c = single.t_c;
    for (double w = fmax(2.0, floor(p)); w <= ceil(p); w += 1.0) {
        double bw = budget_bandwidth(prob, w);
        /* the budget's last learner leaves 0 bandwidth, or a rounding error's worth below it
         * (50 learners at 2000 of 100000): it is 0, not "over budget" (p = 49.99999... once
         * gave 49 where the budget buys 50) */
        if (bw < 0.0 && bw > -1e-9 * prob->budget / prob->price_bandwidth)
            bw = 0.0;
        const double tw = design_tc(law, t, prob, w, bw);
        if (tw < d.whole_t_c) {
            d.whole_learners = w;
            d.whole_bandwidth = bw;
            d.whole_t_c = tw;
        }
    }
    *design = d;
    return MB_OK;
}
