/* mbopt.c — the `mbopt` command: recommendations from the models.
 *
 *   mbopt scale   M_opt, T_C and speed-up per learner count under optimal, strong, weak scaling
 *   mbopt amdahl  Amdahl efficiency on G devices and its inversions (Zou et al., Lemma 3.1)
 *   mbopt ps      parameter servers needed to hide push and pull (Zou et al., Lemma 3.2)
 *   mbopt design  the budget split between learners and bandwidth (Perrone et al., eq. 11-12)
 *   mbopt validate  predicted against measured training time, from run logs
 *   mbopt mem     the memory a network holds at each M (Zou et al., eq. 1-5)
 *   mbopt conv    convolution algorithms per layer and pass for each M: the GLPK ILP (eq. 6)
 *
 * Thin: parse options, call solver/ and model/, print a table or JSON. Usage errors exit 2, bad
 * values or files exit 1 with one line naming the flag or file.
 */
#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <sys/stat.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mb_solver.h"
#include "../train/mb_train.h"

static const char *prog = "mbopt";

/* ---- output helpers -------------------------------------------------------------------------- */

typedef struct out_opts {
    int json;           /* --json */
    const char *output; /* -o FILE, or "-" */
} out_opts;

static int emit_json(const char *sub, cJSON *root, const out_opts *o)
{
    mb_error err = {0};
    if (!root) {
        fprintf(stderr, "%s %s: out of memory\n", prog, sub);
        return 1;
    }
    int rc = mb_json_write(o->output, root, &err);
    cJSON_Delete(root);
    return rc == MB_OK ? 0 : mb_cli_fail(prog, sub, &err);
}

/* Formats a number for a table, "-" for NAN. */
static const char *fmt(char *buf, size_t n, const char *f, double v)
{
    if (isnan(v))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, f, v);
    return buf;
}

/* ---- model parameters, shared by scale and design --------------------------------------------- */

#define MAX_NFIT 8 /* learning rates compared in one call: one --nfit each */

typedef struct model_opts {
    mb_law law;               /* the law optimised */
    mb_solver_nfit nf;        /* what the selected --nfit said (why the law, the range, lr) */
    const char *nfits[MAX_NFIT]; /* every --nfit, one per learning rate */
    mb_solver_nfit nfs[MAX_NFIT];
    size_t n_nfit;
    mb_update_time t;
    mb_solver_tcal tcal;      /* what runs did to --tfit (tcal.on = 0: the probe's alone) */
    const char *nfit, *tfit, *cfit, *law_name;
    double m_lo, m_hi;        /* the range M is sought in (0, 0 until resolved) */
    int extrapolate;          /* --extrapolate: no range */
    int have_range;           /* --batch-range given */
    int have_n_inf, have_alpha, have_gamma, have_m_t, have_delta, have_comm, have_latency,
        have_spb, have_t0;
} model_opts;

enum {
    OPT_N_INF = 256, OPT_ALPHA, OPT_GAMMA, OPT_M_T, OPT_DELTA, OPT_COMM, OPT_NFIT, OPT_TFIT,
    OPT_CFIT, OPT_LATENCY, OPT_SPB, OPT_BYTES, OPT_PROCS, OPT_M_STRONG, OPT_M_WEAK, OPT_JSON,
    OPT_BUDGET, OPT_PRICE_L, OPT_PRICE_B, OPT_BW_REF, OPT_OVERHEAD, OPT_GPUS, OPT_SPEEDUP,
    OPT_EFF, OPT_COMPUTE, OPT_WORKERS, OPT_BW, OPT_PARAM_BYTES, OPT_LAW, OPT_RANGE,
    OPT_EXTRAPOLATE, OPT_T0, OPT_RECOMMEND, OPT_MISSING, OPT_COMM_RUNS, OPT_PROCS_AVAIL, OPT_CSV,
    OPT_TARGET,
    OPT_HOLDOUT, OPT_HOLDOUT_PLAN, OPT_MORE_SEEDS, OPT_MAX_SEEDS
};

#define MODEL_LONGOPTS                                                                            \
    {"n-inf", required_argument, 0, OPT_N_INF}, {"alpha", required_argument, 0, OPT_ALPHA},      \
        {"gamma", required_argument, 0, OPT_GAMMA}, {"m-t", required_argument, 0, OPT_M_T},     \
        {"delta", required_argument, 0, OPT_DELTA}, {"comm", required_argument, 0, OPT_COMM},    \
        {"nfit", required_argument, 0, OPT_NFIT}, {"tfit", required_argument, 0, OPT_TFIT},     \
        {"cfit", required_argument, 0, OPT_CFIT}, {"latency", required_argument, 0, OPT_LATENCY}, \
        {"s-per-byte", required_argument, 0, OPT_SPB}, {"bytes", required_argument, 0, OPT_BYTES}, \
        {"law", required_argument, 0, OPT_LAW}, {"batch-range", required_argument, 0, OPT_RANGE}, \
        {"extrapolate", no_argument, 0, OPT_EXTRAPOLATE}, {"t0", required_argument, 0, OPT_T0}

#define MODEL_HELP                                                                                \
    "Model (flags override values read from files):\n"                                            \
    "      --nfit FILE       N_update fit from 'mbfit nupdate --json': the law it names best\n"   \
    "                        (inverse or power law) and the converged range of its runs;\n"     \
    "                        repeat it, one file per learning rate, to choose (M, lr)\n"        \
    "      --law NAME        optimise this law of --nfit instead: inverse-law, power-law\n"    \
    "      --tfit FILE       update-time fit from 'mbfit tupdate --json' (gamma, m_t, delta)\n"   \
    "      --cfit FILE       collective fit from 'mbfit comm --json' (latency_s, s_per_byte)\n"   \
    "      --n-inf N         updates needed with exact gradients, N_inf > 0\n"                    \
    "      --alpha A         noise sensitivity (updates x samples), >= 0\n"                       \
    "      --gamma S         seconds per sample above the knee, > 0\n"                            \
    "      --t0 S            seconds every update costs whatever M (the one-learner intercept\n" \
    "                        of --tfit), >= 0\n"                                                \
    "      --m-t M           the knee M_T in samples, > 0\n"                                      \
    "      --comm FORM       Delta(P): none, allreduce (delta), ps (delta*P), alpha-beta\n"       \
    "                        (ring allreduce of --bytes with --latency and --s-per-byte);\n"      \
    "                        default allreduce, or alpha-beta when --cfit is given\n"             \
    "      --delta S         communication seconds per update (allreduce, ps), >= 0\n"            \
    "      --latency S       seconds per message (alpha-beta)\n"                                  \
    "      --s-per-byte S    seconds per byte (alpha-beta)\n"                                     \
    "      --bytes SIZE      bytes exchanged per update, K/M/G = 2^10/2^20/2^30 (alpha-beta)\n" \
    "Range of M (the optimum is sought where runs reached the target):\n"                      \
    "      --batch-range LO:HI  total mini-batch range to search (default: --nfit's converged\n" \
    "                        range; without one, M >= 1)\n"                                     \
    "      --extrapolate     search every M >= 1, outside the runs' range too (labelled)\n"

/* Handles one model option; returns 1 if `c` was one, -1 on a bad value (err filled), 0 if not
 * a model option. */
static int model_option(model_opts *m, int c, const char *arg, mb_error *err)
{
    int rc = MB_OK;
    switch (c) {
    case OPT_N_INF: rc = mb_data_flag_double("--n-inf", arg, 0, MB_POSITIVE, &m->law.n_inf, err);
        m->have_n_inf = 1; break;
    case OPT_ALPHA: rc = mb_data_flag_double("--alpha", arg, 0, MB_NONNEG, &m->law.a, err);
        m->have_alpha = 1; break;
    case OPT_T0: rc = mb_data_flag_double("--t0", arg, 0, MB_NONNEG, &m->t.t0, err);
        m->have_t0 = 1; break;
    case OPT_LAW: {
        mb_law_kind k;
        if (mb_model_law_parse(arg, &k) != MB_OK)
            rc = mb_error_set(err, MB_EINVAL, "--law: '%s' is not inverse-law or power-law", arg);
        m->law_name = arg;
        break;
    }
    case OPT_RANGE: {
        mb_range r;
        rc = mb_data_parse_range(arg, "--batch-range", &r, err);
        if (rc == MB_OK) {
            if (r.n < 2 || !(r.v[0] > 0) || !(r.v[r.n - 1] >= r.v[0]))
                rc = mb_error_set(err, MB_EINVAL, "--batch-range: '%s' is not LO:HI with "
                                                  "0 < LO <= HI", arg);
            else
                m->m_lo = r.v[0], m->m_hi = r.v[r.n - 1], m->have_range = 1;
            mb_data_range_free(&r);
        }
        break;
    }
    case OPT_EXTRAPOLATE: m->extrapolate = 1; break;
    case OPT_GAMMA: rc = mb_data_flag_double("--gamma", arg, 0, MB_POSITIVE, &m->t.gamma, err);
        m->have_gamma = 1; break;
    case OPT_M_T: rc = mb_data_flag_double("--m-t", arg, 1, MB_POSITIVE, &m->t.m_t, err);
        m->have_m_t = 1; break;
    case OPT_DELTA: rc = mb_data_flag_double("--delta", arg, 0, MB_NONNEG, &m->t.delta, err);
        m->have_delta = 1; break;
    case OPT_LATENCY:
        rc = mb_data_flag_double("--latency", arg, 0, MB_NONNEG, &m->t.latency_s, err);
        m->have_latency = 1; break;
    case OPT_SPB: rc = mb_data_flag_double("--s-per-byte", arg, 0, MB_NONNEG, &m->t.s_per_byte, err);
        m->have_spb = 1; break;
    case OPT_BYTES: rc = mb_data_flag_double("--bytes", arg, 1, MB_NONNEG, &m->t.bytes, err); break;
    case OPT_COMM:
        if (mb_model_comm_parse(arg, &m->t.comm) != MB_OK)
            rc = mb_error_set(err, MB_EINVAL,
                              "--comm: '%s' is not one of none, allreduce, ps, alpha-beta", arg);
        m->have_comm = 1;
        break;
    case OPT_NFIT:
        if (m->n_nfit == MAX_NFIT)
            rc = mb_error_set(err, MB_EINVAL, "--nfit: at most %d files (one per learning rate)",
                              MAX_NFIT);
        else
            m->nfits[m->n_nfit++] = m->nfit = arg;
        break;
    case OPT_TFIT: m->tfit = arg; break;
    case OPT_CFIT: m->cfit = arg; break;
    default: return 0;
    }
    return rc == MB_OK ? 1 : -1;
}

/* Makes the i-th --nfit (one learning rate) the law optimised, with its range: --batch-range,
 * else the runs' converged range, else every M >= 1. Without --nfit it only sets the range. */
static void model_select(model_opts *m, size_t i)
{
    if (i < m->n_nfit) {
        m->nfit = m->nfits[i];
        m->nf = m->nfs[i];
        m->law = m->nf.law;
    }
    if (m->extrapolate || (!m->have_range && isnan(m->nf.m_lo)))
        m->m_lo = 1.0, m->m_hi = INFINITY;
    else if (!m->have_range)
        m->m_lo = m->nf.m_lo, m->m_hi = m->nf.m_hi;
}

/* Reads the fit files, then re-applies the flags given on the command line (they win), and
 * checks that every parameter the model needs is known. */
static int model_resolve(model_opts *m, mb_error *err)
{
    model_opts flags = *m;
    int rc;
    m->law.kind = MB_LAW_INVERSE;
    m->law.b = 1.0;
    m->nf.m_lo = m->nf.m_hi = m->nf.m_diverged = m->nf.target_loss = m->nf.lr = NAN;
    for (size_t i = 0; i < m->n_nfit; i++) {
        if ((rc = mb_solver_read_nfit(m->nfits[i], m->law_name, &m->nfs[i], err)) != MB_OK)
            return rc;
        /* several fits are several learning rates of one job: each must say its own */
        for (size_t j = 0; m->n_nfit > 1 && j <= i; j++)
            if (isnan(m->nfs[i].lr) || (j < i && m->nfs[j].lr == m->nfs[i].lr))
                return mb_error_set(err, MB_EINVAL,
                                    "%s: %s; several --nfit must be fits of different learning "
                                    "rates (mbfit nupdate --lr RATE)",
                                    m->nfits[i], isnan(m->nfs[i].lr) ? "no 'lr'" :
                                    "the same lr as another --nfit");
        if (i > 0 && !(m->nfs[i].target_loss == m->nfs[0].target_loss ||
                       (isnan(m->nfs[i].target_loss) && isnan(m->nfs[0].target_loss))))
            return mb_error_set(err, MB_EINVAL, "%s: target loss %g, but %s's is %g: compare "
                                                "learning rates at one target", m->nfits[i],
                                m->nfs[i].target_loss, m->nfits[0], m->nfs[0].target_loss);
    }
    if (m->n_nfit > 1 && (flags.have_n_inf || flags.have_alpha))
        return mb_error_set(err, MB_EINVAL, "--n-inf and --alpha apply to one law, not to "
                                            "several --nfit");
    if (m->n_nfit) {
        m->nf = m->nfs[0];
        m->nfit = m->nfits[0];
        m->law = m->nf.law;
    } else if (m->law_name) {
        return mb_error_set(err, MB_EINVAL, "--law needs --nfit");
    }
    int file_delta = 0;
    if (m->tfit && ((rc = mb_solver_read_tfit(m->tfit, &m->t, &file_delta, err)) != MB_OK ||
                    (rc = mb_solver_read_tcal(m->tfit, &m->tcal, err)) != MB_OK))
        return rc;
    if (m->cfit && (rc = mb_solver_read_cfit(m->cfit, &m->t, err)) != MB_OK)
        return rc;
    if ((flags.have_n_inf || flags.have_alpha) && m->law.kind != MB_LAW_INVERSE)
        return mb_error_set(err, MB_EINVAL, "--n-inf and --alpha set the inverse law, but --nfit's "
                                             "law is the %s: add --law inverse-law",
                            mb_model_law_name(m->law.kind));
    if (flags.have_n_inf) m->law.n_inf = m->nfs[0].law.n_inf = flags.law.n_inf;
    if (flags.have_alpha) m->law.a = m->nfs[0].law.a = flags.law.a;
    if (flags.have_n_inf || flags.have_alpha) /* the resamples are of the file's law */
        m->nf.n_boot = m->nfs[0].n_boot = 0;
    if (flags.have_t0) m->t.t0 = flags.t.t0;
    if (flags.have_gamma || flags.have_m_t || flags.have_t0) {
        m->t.n_table = m->t.n_by_p = 0; /* the closed form was asked for: it replaces the
                                           measured tables */
        m->tcal.on = 0;
    }
    if (flags.have_gamma) m->t.gamma = flags.t.gamma;
    if (flags.have_m_t) m->t.m_t = flags.t.m_t;
    if (flags.have_delta) m->t.delta = flags.t.delta;
    if (flags.have_latency) m->t.latency_s = flags.t.latency_s;
    if (flags.have_spb) m->t.s_per_byte = flags.t.s_per_byte;
    if (!flags.have_comm)
        m->t.comm = m->cfit ? MB_COMM_ALPHA_BETA : MB_COMM_ALLREDUCE;

    if (!m->nfit && !flags.have_n_inf)
        return mb_error_set(err, MB_EINVAL, "N_inf unknown: give --n-inf or --nfit");
    if (!m->nfit && !flags.have_alpha)
        return mb_error_set(err, MB_EINVAL, "alpha unknown: give --alpha or --nfit");
    if (!m->tfit && !flags.have_gamma)
        return mb_error_set(err, MB_EINVAL, "gamma unknown: give --gamma or --tfit");
    if (!m->tfit && !flags.have_m_t)
        return mb_error_set(err, MB_EINVAL, "M_T unknown: give --m-t or --tfit");
    if ((m->t.comm == MB_COMM_ALLREDUCE || m->t.comm == MB_COMM_PS) && !flags.have_delta &&
        !file_delta)
        return mb_error_set(err, MB_EINVAL, m->t.n_by_p
                            ? "delta unknown: --tfit's P > 1 rows time the learners' compute "
                              "side by side, not their communication: give --delta, --cfit or "
                              "--comm none"
                            : "delta unknown: give --delta (or a --tfit with delta)");
    if (m->t.comm == MB_COMM_ALPHA_BETA && !m->cfit && !(flags.have_latency && flags.have_spb))
        return mb_error_set(err, MB_EINVAL,
                            "alpha-beta needs --cfit or both --latency and --s-per-byte");
    if (m->extrapolate && m->have_range)
        return mb_error_set(err, MB_EINVAL, "--extrapolate and --batch-range: give one");
    rc = MB_OK;
    for (size_t i = m->n_nfit ? m->n_nfit : 1; i-- > 0 && rc == MB_OK;) { /* ends on the first */
        model_select(m, i);
        rc = mb_solver_check_models(&m->law, &m->t, err);
    }
    return rc;
}

/* Whether the range is the runs' own (so an optimum inside it is not an extrapolation). */
static const char *range_source(const model_opts *m)
{
    if (m->have_range)
        return "--batch-range";
    if (!isfinite(m->m_hi))
        return m->extrapolate ? "--extrapolate" : "no converged range in the fit";
    return "the runs that reached the target";
}

static cJSON *model_json(const model_opts *m)
{
    cJSON *j = cJSON_CreateObject();
    if (!j)
        return NULL;
    cJSON_AddStringToObject(j, "law", mb_model_law_name(m->law.kind));
    cJSON_AddStringToObject(j, "law_why", m->nfit ? m->nf.why : "given with --n-inf, --alpha");
    mb_json_add_number(j, "n_inf", m->law.n_inf);
    if (m->law.kind == MB_LAW_INVERSE) {
        mb_json_add_number(j, "alpha", m->law.a);
    } else {
        mb_json_add_number(j, "a", m->law.a);
        mb_json_add_number(j, "b", m->law.b);
    }
    mb_json_add_number(j, "gamma", m->t.gamma);
    mb_json_add_number(j, "m_t", m->t.m_t);
    mb_json_add_number(j, "t0", m->t.t0);
    if (m->t.n_table >= 2) {
        cJSON *tab = cJSON_AddArrayToObject(j, "t_table");
        for (size_t i = 0; tab && i < m->t.n_table; i++) {
            cJSON *pt = cJSON_CreateArray();
            cJSON_AddItemToArray(pt, cJSON_CreateNumber(m->t.table_m[i]));
            cJSON_AddItemToArray(pt, cJSON_CreateNumber(m->t.table_t[i]));
            cJSON_AddItemToArray(tab, pt);
        }
        cJSON_AddStringToObject(j, "t_source", m->tcal.on ? "runs' seconds per update, the "
                                "probe's step beyond" : "the probe's step");
    }
    cJSON *byp = m->t.n_by_p ? cJSON_AddArrayToObject(j, "t_tables_by_p") : NULL;
    for (size_t k = 0; byp && k < m->t.n_by_p; k++) {
        const mb_step_table *s = &m->t.by_p[k];
        cJSON *o = cJSON_CreateObject(), *pts = cJSON_AddArrayToObject(o, "points");
        mb_json_add_number(o, "learners", s->p);
        if (s->runs > 0) { /* the runs' own seconds per update there: Delta(P) inside */
            mb_json_add_number(o, "runs", s->runs);
            mb_json_add_number(o, "run_lo", s->run_lo);
            mb_json_add_number(o, "run_hi", s->run_hi);
        }
        for (size_t i = 0; pts && i < s->n; i++) {
            cJSON *pt = cJSON_CreateArray();
            cJSON_AddItemToArray(pt, cJSON_CreateNumber(s->m[i]));
            cJSON_AddItemToArray(pt, cJSON_CreateNumber(s->t[i]));
            cJSON_AddItemToArray(pts, pt);
        }
        cJSON_AddItemToArray(byp, o);
    }
    mb_json_add_number(j, "m_lo", m->m_lo);
    mb_json_add_number(j, "m_hi", isfinite(m->m_hi) ? m->m_hi : NAN);
    cJSON_AddStringToObject(j, "range_source", range_source(m));
    cJSON_AddStringToObject(j, "comm", mb_model_comm_name(m->t.comm));
    if (m->t.comm == MB_COMM_ALPHA_BETA) {
        mb_json_add_number(j, "latency_s", m->t.latency_s);
        mb_json_add_number(j, "s_per_byte", m->t.s_per_byte);
        mb_json_add_number(j, "bytes", m->t.bytes);
    } else if (m->t.comm != MB_COMM_NONE) {
        mb_json_add_number(j, "delta", m->t.delta);
    }
    return j;
}

static void model_print(FILE *f, const model_opts *m)
{
    if (m->law.kind == MB_LAW_INVERSE)
        fprintf(f, "# N_update(M) = %.6g + %.6g / M (inverse law: %s)\n", m->law.n_inf, m->law.a,
                m->nfit ? m->nf.why : "given");
    else
        fprintf(f, "# N_update(M) = %.6g + %.6g M^-%.4g (power law: %s)\n", m->law.n_inf, m->law.a,
                m->law.b, m->nf.why);
    if (m->tcal.on)
        fprintf(f, "# T_update(M,P) = the runs' seconds per update at M/P = %g .. %g (%.0f runs; "
                   "the probe's step beyond, scaled by %.3g below and %.3g above; explained by "
                   "%.6g s * max(M/P, %.6g) + %.6g s) + Delta(P), Delta: ",
                m->tcal.m_lo, m->tcal.m_hi, m->tcal.runs, m->tcal.scale_below,
                m->tcal.scale_above, m->t.gamma, m->t.m_t, m->t.t0);
    else if (m->t.n_table >= 2)
        fprintf(f, "# T_update(M,P) = the measured step at M/P (%zu points, M/P = %g .. %g; "
                   "explained by %.6g s * max(M/P, %.6g) + %.6g s) + Delta(P), Delta: ",
                m->t.n_table, m->t.table_m[0], m->t.table_m[m->t.n_table - 1], m->t.gamma,
                m->t.m_t, m->t.t0);
    else
        fprintf(f, "# T_update(M,P) = %.6g s * max(M/P, %.6g) + %.6g s + Delta(P), Delta: ",
                m->t.gamma, m->t.m_t, m->t.t0);
    switch (m->t.comm) {
    case MB_COMM_NONE: fprintf(f, "none\n"); break;
    case MB_COMM_ALLREDUCE: fprintf(f, "allreduce, %.6g s for P > 1\n", m->t.delta); break;
    case MB_COMM_PS: fprintf(f, "parameter server, %.6g s * P\n", m->t.delta); break;
    case MB_COMM_ALPHA_BETA:
        fprintf(f, "ring allreduce of %.6g bytes, %.6g s/message, %.6g s/byte\n", m->t.bytes,
                m->t.latency_s, m->t.s_per_byte);
        break;
    }
    for (size_t k = 0; k < m->t.n_by_p; k++) {
        const mb_step_table *s = &m->t.by_p[k];
        if (s->runs > 0)
            fprintf(f, "#   at P = %g T_update is the runs' own seconds per update at M/P = %g "
                       ".. %g (%.0f runs of %g learners: communication included, Delta(%g) not "
                       "added), the probe's step of %g learners side by side beyond, scaled\n",
                    s->p, s->run_lo, s->run_hi, s->runs, s->p, s->p, s->p);
        else
            fprintf(f, "#   at P = %g the compute part is the measured step of %g learners side "
                       "by side on one host (%zu points, M/P = %g .. %g), not the one-learner "
                       "table\n", s->p, s->p, s->n, s->m[0], s->m[s->n - 1]);
    }
}

/* ---- run logs: the ground truth, shared by scale and validate ------------------------------ */

/* LOG|DIR arguments to a list of log paths (a DIR gives its *.csv, sorted). */
static int collect_logs(int argc, char **argv, glob_t *g, mb_error *err)
{
    memset(g, 0, sizeof *g);
    int flags = 0;
    for (int i = 0; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0)
            return mb_error_set(err, MB_EIO, "%s: %s", argv[i], strerror(errno));
        char pat[4096];
        if (S_ISDIR(st.st_mode))
            snprintf(pat, sizeof pat, "%s/*.csv", argv[i]);
        else
            snprintf(pat, sizeof pat, "%s", argv[i]);
        int rc = glob(pat, flags | GLOB_NOCHECK * !S_ISDIR(st.st_mode), NULL, g);
        if (rc != 0 && rc != GLOB_NOMATCH)
            return mb_error_set(err, MB_ENOMEM, "out of memory listing %s", argv[i]);
        flags = GLOB_APPEND;
    }
    if (g->gl_pathc == 0)
        return mb_error_set(err, MB_ENODATA, "no run logs (*.csv) in %s", argv[0]);
    return MB_OK;
}

/* The recommendation's measured time over the measured best. */
static double validate_ratio(const mb_validate *v)
{
    return v->settled >= 0 ? v->settled_ratio : v->ratio;
}

/* Every --nfit's law and learning rate (the given law, rate unknown, without --nfit); returns
 * how many. */
static size_t model_laws(const model_opts *m, mb_law *laws, double *lrs)
{
    const size_t n = m->n_nfit ? m->n_nfit : 1;
    for (size_t i = 0; i < n; i++) {
        laws[i] = m->n_nfit ? m->nfs[i].law : m->law;
        lrs[i] = m->n_nfit ? m->nfs[i].lr : NAN;
    }
    return n;
}

/* The run logs LOG|DIR... read at the target loss into runs (paths in g), for checking the
 * model against them; a log that is not there is named before a target that is not known. */
static int read_runs(int argc, char **argv, double target, glob_t *g, mb_fit_runs *runs,
                     mb_error *err)
{
    memset(runs, 0, sizeof *runs);
    int rc = collect_logs(argc, argv, g, err);
    if (rc == MB_OK && isnan(target))
        rc = mb_error_set(err, MB_EINVAL, "run logs given but no target loss to read them at: "
                          "give --nfit (its target_loss)");
    if (rc == MB_OK)
        rc = mb_fit_runs_read_logs((const char *const *)g->gl_pathv, g->gl_pathc, &target, 1, 1,
                                   runs, err);
    return rc;
}

/* ---- mbopt scale ------------------------------------------------------------------------------ */

/* What run logs given to scale said of its recommendation (mb_solver_validate at the
 * recommended P and learning rate, the model's optimum there as m_rec). */
typedef struct scale_check {
    int given;        /* logs were given */
    int ok;           /* v holds the check */
    mb_validate v;
    /* given and not ok: why not (no run near the recommendation) */
    char why[sizeof ((mb_error *)0)->msg];
} scale_check;

/* The row the runs settled on, NULL when there is none. */
static const mb_validate_row *settled_row(const scale_check *ck)
{
    return ck->ok && ck->v.settled >= 0 ? &ck->v.rows[ck->v.settled] : NULL;
}

/* Reads the logs and checks the recommendation r against them. A recommendation no run trained
 * near is not settled (ck->why says so); logs of another net or target are bad input. */
static int scale_settle(model_opts *m, const mb_scale_row *r, int argc, char **argv,
                        scale_check *ck, mb_error *err)
{
    ck->given = 1;
    mb_law laws[MAX_NFIT];
    double lrs[MAX_NFIT];
    const size_t n = model_laws(m, laws, lrs);
    glob_t g;
    mb_fit_runs runs;
    int rc = read_runs(argc, argv, m->nf.target_loss, &g, &runs, err);
    if (rc == MB_OK)
        rc = mb_solver_validate(laws, lrs, n, &m->t, NULL, &runs,
                                (const char *const *)g.gl_pathv, r->opt.m_opt, r->procs,
                                m->nf.lr, &ck->v, err);
    if (rc == MB_OK)
        mb_solver_settle(laws, lrs, n, &m->t, m->m_lo, m->m_hi, &ck->v);
    globfree(&g);
    mb_fit_runs_free(&runs);
    ck->ok = rc == MB_OK;
    if (rc == MB_ENODATA) { /* the answer stands unchecked, and says so */
        snprintf(ck->why, sizeof ck->why, "%s", err->msg);
        rc = MB_OK;
    }
    return rc;
}

/* A row's M, with its learning rate when that is not the recommendation's: "32 (lr 0.05)". */
static const char *setting(char *buf, size_t n, const mb_validate *v, const mb_validate_row *r)
{
    if (!isnan(r->lr) && !isnan(v->lr_rec) && r->lr != v->lr_rec)
        snprintf(buf, n, "%g (lr %g)", r->batch, r->lr);
    else
        snprintf(buf, n, "%g", r->batch);
    return buf;
}

/* The candidates' M, "32, 64", into buf. */
static const char *candidates(char *buf, size_t n, const mb_validate *v)
{
    size_t len = 0;
    char one[64];
    buf[0] = '\0';
    for (size_t i = 0; i < v->n_rows && len < n; i++)
        if (v->rows[i].candidate)
            len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "",
                                    setting(one, sizeof one, v, &v->rows[i]));
    return buf;
}

/* Why no run settled the recommendation although runs came near it, into buf. */
static const char *no_candidate(char *buf, size_t n, const mb_validate *v)
{
    snprintf(buf, n, "no trained setting at P = %g in the range searched is predicted within "
             "%.1f%% (the model's median |error| on the runs) of its optimum's T_C", v->p_rec,
             100 * v->band);
    return buf;
}

static void scale_settle_print(FILE *f, const scale_check *ck)
{
    if (!ck->given)
        return;
    if (!ck->ok) {
        fprintf(f, "settled:        not by runs: %s\n", ck->why);
        return;
    }
    const mb_validate *v = &ck->v;
    const mb_validate_row *s = settled_row(ck);
    char c[256], m[64];
    if (!s) {
        fprintf(f, "settled:        not by runs: %s\n", no_candidate(c, sizeof c, v));
    } else if (v->settled == v->rec) {
        fprintf(f, "settled:        the runs agree: of the trained M the model predicts within "
                   "%.1f%% of its best T_C (its median |error| on the runs: M = %s), M = %s "
                   "measured fastest (%.3g s, median of %zu)\n",
                100 * v->band, candidates(c, sizeof c, v), setting(m, sizeof m, v, s),
                s->t_median, s->reached);
    } else if (v->rec >= 0) {
        fprintf(f, "settled:        by the runs: the model predicts M = %s within %.1f%% of "
                   "its best T_C, its median |error| on the runs, so it cannot tell them "
                   "apart; the runs trained M = %s in %.3g s and the model's optimum (as M = %g) "
                   "in %.3g s (medians)\n",
                candidates(c, sizeof c, v), 100 * v->band, setting(m, sizeof m, v, s),
                s->t_median, v->rows[v->rec].batch, v->rows[v->rec].t_median);
    } else {
        fprintf(f, "settled:        by the runs: the model's optimum M = %.4g has no runs; of "
                   "the trained M it predicts within %.1f%% of its best T_C (its median |error| "
                   "on the runs: M = %s), M = %s measured fastest (%.3g s, median of %zu)\n",
                v->m_rec, 100 * v->band, candidates(c, sizeof c, v),
                setting(m, sizeof m, v, s), s->t_median, s->reached);
    }
}

static cJSON *scale_settle_json(const scale_check *ck)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    const mb_validate *v = &ck->v;
    const mb_validate_row *s = settled_row(ck);
    cJSON_AddStringToObject(o, "by", !s ? "model" : v->settled == v->rec ? "model and runs"
                                                                          : "runs");
    char why[256];
    if (!ck->ok || !s)
        cJSON_AddStringToObject(o, "why", ck->ok ? no_candidate(why, sizeof why, v) : ck->why);
    if (!ck->ok)
        return o;
    mb_json_add_number(o, "band", v->band);
    mb_json_add_number(o, "model_m_opt", v->m_rec);
    if (v->rec >= 0) {
        mb_json_add_number(o, "model_batch_run", v->rows[v->rec].batch);
        mb_json_add_number(o, "model_t_train_median_s", v->rows[v->rec].t_median);
    }
    cJSON *c = cJSON_AddArrayToObject(o, "candidates");
    for (size_t i = 0; c && i < v->n_rows; i++) {
        cJSON *e = v->rows[i].candidate ? cJSON_CreateObject() : NULL;
        if (!e)
            continue;
        mb_json_add_number(e, "batch", v->rows[i].batch);
        mb_json_add_number(e, "lr", v->rows[i].lr);
        cJSON_AddItemToArray(c, e);
    }
    if (s) {
        mb_json_add_number(o, "procs", s->procs);
        mb_json_add_number(o, "batch", s->batch);
        mb_json_add_number(o, "lr", s->lr);
        mb_json_add_number(o, "t_pred_s", s->t_pred);
        mb_json_add_number(o, "t_train_median_s", s->t_median);
        mb_json_add_number(o, "runs_reached", (double)s->reached);
    }
    return o;
}

static void scale_help(void)
{
    printf("Usage: mbopt scale [OPTION]... [LOG|DIR...]\n"
           "For each learner count P, the mini-batch size M that trains soonest and the time to\n"
           "converge T_C = N_update(M) * T_update(M,P) under optimal scaling (M re-optimised for\n"
           "each P, Perrone et al. 2019 eq. 9-10), strong scaling (total M fixed) and weak\n"
           "scaling (M per learner fixed), with speed-up and efficiency against P = 1.\n"
           "With run logs (a DIR stands for its *.csv), the runs settle the recommendation: of\n"
           "the trained M at its P that the model predicts within its own median |error| on\n"
           "those runs of its optimum's T_C (it cannot tell them apart), the one measured\n"
           "fastest (mbopt validate prints the same check).\n\n"
           "%s"
           "Scaling:\n"
           "      --procs LIST      learner counts: lo:hi (powers of two) or a comma list\n"
           "                        (default 1:1024)\n"
           "      --procs-available N  learners mpirun can run here (slots); rows above N are\n"
           "                        labelled extrapolations and never recommended (default: all)\n"
           "      --m-strong M      total mini-batch for strong scaling (default M_opt at P = 1)\n"
           "      --m-weak M        mini-batch per learner for weak scaling (default M_T)\n"
           "Output:\n"
           "      --json            write JSON instead of a table\n"
           "  -o, --output FILE     write to FILE (atomically) instead of standard output\n"
           "  -h, --help            show this help and exit\n\n"
           "Example:\n"
           "  mbopt scale --n-inf 1200 --alpha 3.5e5 --gamma 2e-5 --m-t 32 --delta 0.004\n"
           "  mbopt scale --nfit n.json --tfit t.json --procs 1:1024 --json\n"
           "  mbopt scale --nfit n.json --tfit t.json --procs 1:2 out/runs/lr0.02 out/check\n",
           MODEL_HELP);
}

/* "Enough" learners: the fewest within this fraction of the best time. */
#define ENOUGH_SLACK 0.10

/* What a row's answer rests on: "" when on the runs' own ground, else why not. */
static const char *row_label(const model_opts *m, const mb_scale_row *r, double p_avail)
{
    int held = r->bound != MB_BOUND_NONE, beyond_p = r->procs > p_avail;
    int beyond_m = !isfinite(m->m_hi) && m->extrapolate;
    if (beyond_p && held)
        return "P extrapolated (collective model); M held at the converged range's end";
    if (beyond_p)
        return "P extrapolated (collective model)";
    if (held)
        return r->bound == MB_BOUND_LOW ? "M held at the converged range's low end"
                                        : "M held at the converged range's high end";
    return beyond_m ? "M extrapolated beyond the runs" : "";
}

static cJSON *row_summary(const model_opts *m, const mb_scale_row *r, double p_avail)
{
    cJSON *b = cJSON_CreateObject();
    if (b) {
        mb_json_add_number(b, "procs", r->procs);
        mb_json_add_number(b, "m_opt", r->opt.m_opt);
        mb_json_add_number(b, "m_run", round(r->opt.m_opt));
        mb_json_add_number(b, "t_c", r->opt.t_c);
        cJSON_AddStringToObject(b, "bound", mb_solver_bound_name(r->bound));
        cJSON_AddBoolToObject(b, "extrapolated", *row_label(m, r, p_avail) != '\0' &&
                                                     r->bound == MB_BOUND_NONE);
        cJSON_AddStringToObject(b, "note", row_label(m, r, p_avail));
        mb_json_add_number(b, "speedup", r->speedup_opt);
        mb_json_add_number(b, "efficiency", r->eff_opt);
        cJSON_AddStringToObject(b, "regime", mb_model_regime_name(r->opt.regime));
    }
    return b;
}

/* One learning rate's best setting, when several --nfit are compared. */
typedef struct lr_best {
    double lr, procs, m_opt, t_c;
} lr_best;

/* How flat the optimum is: the M at the recommended P whose predicted T_C is within
 * MB_SOLVER_FLAT of that P's optimum (m[0..1], NAN when it cannot be had), and the learner
 * counts (available here) whose optimal T_C is within MB_SOLVER_FLAT of the fastest's. */
typedef struct scale_flat {
    double m[2], p_lo, p_hi, procs;
} scale_flat;

static scale_flat flat_of(const model_opts *m, const mb_scale_row *rows, size_t n, size_t best,
                          size_t enough, double p_avail)
{
    scale_flat f = {.m = {NAN, NAN}, .p_lo = INFINITY, .p_hi = 0, .procs = rows[enough].procs};
    mb_error e = {0};
    mb_solver_flat_range(&m->law, &m->t, f.procs, m->m_lo, m->m_hi, rows[enough].opt.t_c,
                         MB_SOLVER_FLAT, f.m, &e);
    for (size_t i = 0; i < n; i++)
        if (rows[i].procs <= p_avail &&
            rows[i].opt.t_c <= (1 + MB_SOLVER_FLAT) * rows[best].opt.t_c) {
            f.p_lo = fmin(f.p_lo, rows[i].procs);
            f.p_hi = fmax(f.p_hi, rows[i].procs);
        }
    return f;
}

static cJSON *scale_json(const model_opts *m, const mb_scale_options *so, const mb_scale_row *rows,
                         size_t n, size_t best, size_t enough, double p_b, int have_pb,
                         double p_avail, const lr_best *lrs, size_t n_lr, const scale_check *ck)
{
    cJSON *root = cJSON_CreateObject(), *arr = cJSON_CreateArray();
    if (!root || !arr) {
        cJSON_Delete(root);
        cJSON_Delete(arr);
        return NULL;
    }
    cJSON_AddStringToObject(root, "command", "scale");
    cJSON_AddItemToObject(root, "model", model_json(m));
    mb_json_add_number(root, "m_strong", so->m_strong);
    mb_json_add_number(root, "m_weak", so->m_weak);
    if (have_pb)
        mb_json_add_number(root, "regime_boundary_procs", p_b);
    mb_json_add_number(root, "procs_available", isfinite(p_avail) ? p_avail : NAN);
    mb_json_add_number(root, "lr", m->nf.lr);
    cJSON *bl = n_lr > 1 ? cJSON_AddArrayToObject(root, "by_lr") : NULL;
    for (size_t i = 0; bl && i < n_lr; i++) {
        cJSON *o = cJSON_CreateObject();
        mb_json_add_number(o, "lr", lrs[i].lr);
        mb_json_add_number(o, "procs", lrs[i].procs);
        mb_json_add_number(o, "m_opt", lrs[i].m_opt);
        mb_json_add_number(o, "t_c", lrs[i].t_c);
        cJSON_AddItemToArray(bl, o);
    }
    for (size_t i = 0; i < n; i++) {
        const mb_scale_row *r = &rows[i];
        cJSON *o = cJSON_CreateObject();
        if (!o)
            break;
        mb_json_add_number(o, "procs", r->procs);
        mb_json_add_number(o, "m_opt", r->opt.m_opt);
        mb_json_add_number(o, "t_c_opt", r->opt.t_c);
        mb_json_add_number(o, "n_update", r->opt.n_update);
        mb_json_add_number(o, "t_update", r->opt.t_update);
        cJSON_AddStringToObject(o, "regime", mb_model_regime_name(r->opt.regime));
        cJSON_AddStringToObject(o, "bound", mb_solver_bound_name(r->bound));
        cJSON_AddStringToObject(o, "note", row_label(m, r, p_avail));
        mb_json_add_number(o, "speedup_opt", r->speedup_opt);
        mb_json_add_number(o, "efficiency_opt", r->eff_opt);
        mb_json_add_number(o, "t_c_strong", r->t_c_strong);
        mb_json_add_number(o, "speedup_strong", r->speedup_strong);
        mb_json_add_number(o, "efficiency_strong", r->eff_strong);
        mb_json_add_number(o, "t_c_weak", r->t_c_weak);
        mb_json_add_number(o, "speedup_weak", r->speedup_weak);
        mb_json_add_number(o, "efficiency_weak", r->eff_weak);
        cJSON_AddItemToArray(arr, o);
    }
    cJSON_AddItemToObject(root, "rows", arr);
    cJSON_AddItemToObject(root, "best", row_summary(m, &rows[best], p_avail));
    cJSON_AddItemToObject(root, "enough", row_summary(m, &rows[enough], p_avail));
    mb_json_add_number(root, "enough_slack", ENOUGH_SLACK);
    if (ck->given)
        cJSON_AddItemToObject(root, "settled", scale_settle_json(ck));
    double q[2];
    mb_solver_optimum_spread(m->nf.boot, m->nf.n_boot, &m->t, rows[enough].procs, m->m_lo,
                             m->m_hi, q);
    if (isfinite(q[0])) { /* the 10th and 90th percentiles of M_opt over the bootstrap */
        cJSON *s = cJSON_AddArrayToObject(root, "enough_m_opt_spread");
        cJSON_AddItemToArray(s, cJSON_CreateNumber(q[0]));
        cJSON_AddItemToArray(s, cJSON_CreateNumber(q[1]));
    }
    const scale_flat fl = flat_of(m, rows, n, best, enough, p_avail);
    cJSON *fo = cJSON_AddObjectToObject(root, "flat");
    mb_json_add_number(fo, "within", MB_SOLVER_FLAT);
    mb_json_add_number(fo, "procs", fl.procs);
    mb_json_add_number(fo, "m_lo", fl.m[0]);
    mb_json_add_number(fo, "m_hi", fl.m[1]);
    mb_json_add_number(fo, "procs_lo", fl.p_lo);
    mb_json_add_number(fo, "procs_hi", fl.p_hi);
    return root;
}

static void scale_print(FILE *f, const model_opts *m, const mb_scale_options *so,
                        const mb_scale_row *rows, size_t n, size_t best, size_t enough,
                        double p_b, int have_pb, double p_avail, const lr_best *lrs, size_t n_lr,
                        const scale_check *ck)
{
    char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];
    for (size_t i = 0; n_lr > 1 && i < n_lr; i++)
        fprintf(f, "# lr %-10g fastest: P = %g, M = %.0f, T_C = %.4g s%s\n", lrs[i].lr,
                lrs[i].procs, round(lrs[i].m_opt), lrs[i].t_c,
                lrs[i].lr == m->nf.lr ? "  <- the table below" : "");
    model_print(f, m);
    if (isfinite(m->m_hi))
        fprintf(f, "# M is sought in [%.6g, %.6g] (%s); --extrapolate searches every M\n",
                m->m_lo, m->m_hi, range_source(m));
    else
        fprintf(f, "# M is sought over every M >= %.6g (%s): an extrapolation beyond the runs\n",
                m->m_lo, range_source(m));
    if (isfinite(p_avail))
        fprintf(f, "# P above %.6g is more than mpirun can run here (--procs-available): those "
                   "rows extrapolate the collective model and are not recommended\n", p_avail);
    if (have_pb)
        fprintf(f, "# eq. 10 changes branch at P = %.6g (balance below, knee above)\n", p_b);
    fprintf(f, "%8s %11s %11s %8s %8s %6s | %11s %8s %6s | %11s %8s %6s\n", "", "optimal", "", "",
            "", "", "strong", "", "", "weak", "", "");
    fprintf(f, "%8s %11s %11s %8s %8s %6s | %11s %8s %6s | %11s %8s %6s\n", "P", "M_opt", "T_C_s",
            "regime", "speedup", "eff", "T_C_s", "speedup", "eff", "T_C_s", "speedup", "eff");
    for (size_t i = 0; i < n; i++) {
        const mb_scale_row *r = &rows[i];
        const char *note = row_label(m, r, p_avail);
        fprintf(f, "%8.6g %11.5g %11.5g %8s %8.4g %6.3f | %11s %8s %6s | %11s %8s %6s%s%s\n",
                r->procs, r->opt.m_opt, r->opt.t_c, mb_model_regime_name(r->opt.regime),
                r->speedup_opt, r->eff_opt, fmt(b1, sizeof b1, "%.5g", r->t_c_strong),
                fmt(b2, sizeof b2, "%.4g", r->speedup_strong),
                fmt(b3, sizeof b3, "%.3f", r->eff_strong), fmt(b4, sizeof b4, "%.5g", r->t_c_weak),
                fmt(b5, sizeof b5, "%.4g", r->speedup_weak), fmt(b6, sizeof b6, "%.3f", r->eff_weak),
                *note ? "  # " : "", note);
    }
    fprintf(f, "# strong scaling holds M = %.6g; weak scaling holds M/P = %.6g\n", so->m_strong,
            so->m_weak);
    const mb_scale_row *r = &rows[best];
    const char *note = row_label(m, r, p_avail);
    fprintf(f, "fastest:        P = %.6g learners with mini-batch M = %.0f (%.1f per learner): "
               "T_C = %.4g s, %.4gx the single learner's best, efficiency %.3f (%s regime)%s%s\n",
            r->procs, round(r->opt.m_opt), r->opt.m_opt / r->procs, r->opt.t_c, r->speedup_opt,
            r->eff_opt, mb_model_regime_name(r->opt.regime), *note ? "; " : "", note);
    r = &rows[enough];
    note = row_label(m, r, p_avail);
    /* the recommendation: the model's optimum at the fewest learners enough, or what the runs
     * settled on there */
    const mb_validate_row *sr = settled_row(ck);
    const double rec_lr = sr && !isnan(sr->lr) ? sr->lr : m->nf.lr;
    const double rec_m = sr ? sr->batch : round(r->opt.m_opt);
    char lr[96] = "", tc[96];
    if (!isnan(rec_lr))
        snprintf(lr, sizeof lr, ", learning rate %g%s", rec_lr,
                 n_lr > 1 ? " (the fastest of the rates given)" : "");
    if (sr)
        snprintf(tc, sizeof tc, "T_C = %.4g s predicted, %.3g s measured", sr->t_pred,
                 sr->t_median);
    else
        snprintf(tc, sizeof tc, "T_C = %.4g s", r->opt.t_c);
    fprintf(f, "recommendation: P = %.6g learners with mini-batch M = %.0f (%.1f per learner)%s: "
               "%s, %.4gx the single learner's best, efficiency %.3f; the fewest learners "
               "within %.0f%% of the fastest%s%s\n",
            r->procs, rec_m, rec_m / r->procs, lr, tc, r->speedup_opt, r->eff_opt,
            100 * ENOUGH_SLACK, *note ? "; " : "", note);
    scale_settle_print(f, ck);
    mb_inverse_law inv;
    if (mb_model_law_as_inverse(&m->law, &inv) == MB_OK && r->bound == MB_BOUND_NONE &&
        r->opt.regime == MB_REGIME_BALANCE) {
        double d = 0;
        mb_model_comm_time(&m->t, r->procs, &d);
        const double mstar = sqrt(inv.alpha * (m->t.t0 + d) * r->procs / (inv.n_inf * m->t.gamma));
        fprintf(f, "why:            Perrone eq. 9: M* = sqrt(alpha (t0 + Delta(P)) P / (N_inf "
                   "gamma)) = sqrt(%.4g * %.4g * %.6g / (%.4g * %.4g)) = %.4g%s",
                inv.alpha, m->t.t0 + d, r->procs, inv.n_inf, m->t.gamma, mstar,
                m->t.n_table >= 2 ? "" : "\n");
        if (m->t.n_table >= 2)
            fprintf(f, " with the fitted step; the measured step table puts it at %.4g\n",
                    r->opt.m_opt);
    } else if (r->opt.regime == MB_REGIME_BALANCE && r->bound == MB_BOUND_NONE) {
        fprintf(f, "why:            dT_C/dM = N'(M) T_update + N(M) T_update' = 0 at M = %.4g "
                   "(the %s has no closed form; solved numerically)\n",
                r->opt.m_opt, mb_model_law_name(m->law.kind));
    }
    double q[2];
    size_t nq = mb_solver_optimum_spread(m->nf.boot, m->nf.n_boot, &m->t, r->procs, m->m_lo,
                                         m->m_hi, q);
    if (isfinite(q[0]))
        fprintf(f, "spread:         the %s refitted to %zu bootstrap resamples of the runs puts "
                   "M_opt at P = %g between %.4g and %.4g 8 times in 10\n",
                mb_model_law_name(m->law.kind), nq, r->procs, q[0], q[1]);
    const scale_flat fl = flat_of(m, rows, n, best, enough, p_avail);
    if (isfinite(fl.m[0]))
    {
        char ps[64];
        if (fl.p_lo == fl.p_hi)
            snprintf(ps, sizeof ps, "only P = %g", fl.p_lo);
        else
            snprintf(ps, sizeof ps, "P = %g..%g", fl.p_lo, fl.p_hi);
        fprintf(f, "flat:           M = %.0f..%.0f at P = %g is predicted within %.0f%% of its "
                   "best T_C; %s within %.0f%% of the fastest\n", ceil(fl.m[0]), floor(fl.m[1]),
                fl.procs, 100 * MB_SOLVER_FLAT, ps, 100 * MB_SOLVER_FLAT);
    }
}

static int cmd_scale(int argc, char **argv)
{
    const char *sub = "scale";
    static const struct option lo[] = {MODEL_LONGOPTS,
                                       {"procs", required_argument, 0, OPT_PROCS},
                                       {"m-strong", required_argument, 0, OPT_M_STRONG},
                                       {"m-weak", required_argument, 0, OPT_M_WEAK},
                                       {"procs-available", required_argument, 0, OPT_PROCS_AVAIL},
                                       {"json", no_argument, 0, OPT_JSON},
                                       {"output", required_argument, 0, 'o'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
    model_opts m = {0};
    mb_scale_options so = {0};
    const char *avail = NULL;
    out_opts out = {0, "-"};
    const char *procs = "1:1024";
    mb_error err = {0};
    int c;
    while ((c = getopt_long(argc, argv, ":ho:", lo, NULL)) != -1) {
        int r = model_option(&m, c, optarg, &err);
        if (r < 0)
            return mb_cli_fail(prog, sub, &err);
        if (r > 0)
            continue;
        switch (c) {
        case OPT_PROCS: procs = optarg; break;
        case OPT_PROCS_AVAIL: avail = optarg; break;
        case OPT_M_STRONG:
            if (mb_data_flag_double("--m-strong", optarg, 1, MB_POSITIVE, &so.m_strong, &err))
                return mb_cli_fail(prog, sub, &err);
            break;
        case OPT_M_WEAK:
            if (mb_data_flag_double("--m-weak", optarg, 1, MB_POSITIVE, &so.m_weak, &err))
                return mb_cli_fail(prog, sub, &err);
            break;
        case OPT_JSON: out.json = 1; break;
        case 'o': out.output = optarg; break;
        case 'h': scale_help(); return 0;
        default: return mb_cli_bad_option(prog, sub, argv, optind, c);
        }
    }
    mb_range pr;
    if (mb_data_parse_range(procs, "--procs", &pr, &err) != MB_OK)
        return mb_cli_fail(prog, sub, &err);
    double p_avail = INFINITY;
    if (avail && mb_data_flag_double("--procs-available", avail, 1, MB_POSITIVE, &p_avail, &err))
        return mb_cli_fail(prog, sub, &err);
    for (size_t i = 0; i < pr.n; i++)
        if (pr.v[i] < 1.0) {
            mb_error_set(&err, MB_EINVAL, "--procs: learner counts must be >= 1, got %g", pr.v[i]);
            mb_data_range_free(&pr);
            return mb_cli_fail(prog, sub, &err);
        }
    if (model_resolve(&m, &err) != MB_OK) {
        mb_data_range_free(&pr);
        return mb_cli_fail(prog, sub, &err);
    }
    mb_scale_row *rows = calloc(pr.n, sizeof *rows);
    /* several learning rates: each one's best, then the table of the fastest */
    lr_best lrs[MAX_NFIT];
    size_t n_lr = m.n_nfit, pick = 0;
    for (size_t i = 0; rows && n_lr > 1 && i < n_lr; i++) {
        mb_scale_options s1 = so;
        model_select(&m, i);
        s1.m_lo = m.m_lo;
        s1.m_hi = m.m_hi;
        if (mb_solver_scale(&m.law, &m.t, &s1, pr.v, pr.n, rows, &err) != MB_OK) {
            free(rows);
            mb_data_range_free(&pr);
            return mb_cli_fail(prog, sub, &err);
        }
        const mb_scale_row *b = &rows[mb_solver_best_row(rows, pr.n, p_avail)];
        lrs[i] = (lr_best){m.nf.lr, b->procs, b->opt.m_opt, b->opt.t_c};
        if (lrs[i].t_c < lrs[pick].t_c)
            pick = i;
    }
    model_select(&m, pick);
    so.m_lo = m.m_lo;
    so.m_hi = m.m_hi;
    if (!rows || mb_solver_scale(&m.law, &m.t, &so, pr.v, pr.n, rows, &err) != MB_OK) {
        if (!rows)
            mb_error_set(&err, MB_ENOMEM, "out of memory");
        free(rows);
        mb_data_range_free(&pr);
        return mb_cli_fail(prog, sub, &err);
    }
    size_t best = mb_solver_best_row(rows, pr.n, p_avail);
    size_t enough = mb_solver_enough_row(rows, pr.n, ENOUGH_SLACK, p_avail);
    scale_check ck = {0};
    if (optind < argc &&
        scale_settle(&m, &rows[enough], argc - optind, argv + optind, &ck, &err) != MB_OK) {
        free(rows);
        mb_data_range_free(&pr);
        return mb_cli_fail(prog, sub, &err);
    }
    double p_b = 0;
    mb_inverse_law inv;
    int have_pb = mb_model_law_as_inverse(&m.law, &inv) == MB_OK && !isfinite(m.m_hi) &&
                  m.m_lo <= 1.0 && mb_model_regime_boundary(&inv, &m.t, &p_b) == MB_OK;
    int rc;
    if (out.json) {
        rc = emit_json(sub, scale_json(&m, &so, rows, pr.n, best, enough, p_b, have_pb, p_avail,
                                       lrs, n_lr, &ck), &out);
    } else {
        mb_out o;
        rc = mb_out_open(&o, out.output, &err);
        if (rc == MB_OK) {
            scale_print(o.f, &m, &so, rows, pr.n, best, enough, p_b, have_pb, p_avail, lrs,
                        n_lr, &ck);
            rc = mb_out_commit(&o, &err);
        }
        rc = rc == MB_OK ? 0 : mb_cli_fail(prog, sub, &err);
    }
    mb_validate_free(&ck.v);
    free(rows);
    mb_data_range_free(&pr);
    return rc;
}

/* ---- mbopt amdahl ----------------------------------------------------------------------------- */

static void amdahl_help(void)
{
    printf("Usage: mbopt amdahl [OPTION]...\n"
           "Amdahl's law for data-parallel training (Zou et al. 2017, Lemma 3.1): with overhead\n"
           "ratio R_O = T_O / T_C (time that cannot hide behind computation over computation),\n"
           "efficiency on G devices is E = (1 + R_O) / (1 + G R_O) and speed-up S = G E.\n"
           "Give any two of the four; the other two are computed. A device count that is\n"
           "computed is rounded to whole devices (up for a speed-up target, down for an\n"
           "efficiency floor) and the exact value is reported as gpus_exact.\n\n"
           "      --overhead-ratio R   overhead over computation time, >= 0\n"
           "      --gpus G             number of devices, >= 1\n"
           "      --speedup S          speed-up over one device, >= 1\n"
           "      --efficiency E       speed-up / devices, in (0, 1]\n"
           "      --json               write JSON (keys overhead_ratio, gpus, speedup, efficiency)\n"
           "  -o, --output FILE        write to FILE instead of standard output\n"
           "  -h, --help               show this help and exit\n\n"
           "Examples:\n"
           "  mbopt amdahl --gpus 4 --efficiency 0.8        # largest tolerable R_O: 1/11\n"
           "  mbopt amdahl --overhead-ratio 0.1 --speedup 3 # devices needed: 4\n");
}

static int cmd_amdahl(int argc, char **argv)
{
    const char *sub = "amdahl";
    static const struct option lo[] = {{"overhead-ratio", required_argument, 0, OPT_OVERHEAD},
                                       {"gpus", required_argument, 0, OPT_GPUS},
                                       {"speedup", required_argument, 0, OPT_SPEEDUP},
                                       {"efficiency", required_argument, 0, OPT_EFF},
                                       {"json", no_argument, 0, OPT_JSON},
                                       {"output", required_argument, 0, 'o'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
    double r = NAN, g = NAN, s = NAN, e = NAN, g_exact = NAN;
    out_opts out = {0, "-"};
    mb_error err = {0};
    int c;
    while ((c = getopt_long(argc, argv, ":ho:", lo, NULL)) != -1) {
        int rc = MB_OK;
        switch (c) {
        case OPT_OVERHEAD:
            rc = mb_data_flag_double("--overhead-ratio", optarg, 0, MB_NONNEG, &r, &err);
            break;
        case OPT_GPUS:
            rc = mb_data_flag_double("--gpus", optarg, 0, MB_POSITIVE, &g, &err);
            if (rc == MB_OK && (g < 1 || g != floor(g) || g > 0x1p53))
                rc = mb_error_set(&err, MB_EINVAL,
                                  "--gpus: must be a whole number of devices >= 1, got '%s'",
                                  optarg);
            break;
        case OPT_SPEEDUP:
            rc = mb_data_flag_double("--speedup", optarg, 0, MB_POSITIVE, &s, &err);
            if (rc == MB_OK && s < 1)
                rc = mb_error_set(&err, MB_EINVAL, "--speedup: must be >= 1, got '%s'", optarg);
            break;
        case OPT_EFF:
            rc = mb_data_flag_double("--efficiency", optarg, 0, MB_POSITIVE, &e, &err);
            if (rc == MB_OK && e > 1)
                rc = mb_error_set(&err, MB_EINVAL, "--efficiency: must be in (0, 1], got '%s'",
                                  optarg);
            break;
        case OPT_JSON: out.json = 1; break;
        case 'o': out.output = optarg; break;
        case 'h': amdahl_help(); return 0;
        default: return mb_cli_bad_option(prog, sub, argv, optind, c);
        }
        if (rc != MB_OK)
            return mb_cli_fail(prog, sub, &err);
    }
    if (optind < argc)
        return mb_cli_usage(prog, sub, "unexpected argument '%s'", argv[optind]);
    int given = !isnan(r) + !isnan(g) + !isnan(s) + !isnan(e);
    if (given != 2)
        return mb_cli_usage(prog, sub, "give exactly two of --overhead-ratio, --gpus, --speedup, "
                                "--efficiency");

    int rc = MB_OK;
    const char *why = "";
    if (!isnan(r) && !isnan(g)) {
        rc = mb_model_amdahl_efficiency(r, g, &e);
    } else if (!isnan(r) && !isnan(s)) {
        rc = mb_model_amdahl_gpus_for_speedup(r, s, &g_exact);
        why = "the speed-up is at or beyond the asymptote (1 + R_O) / R_O";
        if (rc == MB_OK) {
            g = fmax(1.0, ceil(g_exact * (1.0 - 1e-12)));
            rc = mb_model_amdahl_efficiency(r, g, &e);
        }
    } else if (!isnan(r) && !isnan(e)) {
        rc = mb_model_amdahl_gpus_for_efficiency(r, e, &g_exact);
        why = r == 0 ? "with no overhead the efficiency is 1 on any number of devices"
                     : "the device count is beyond the range of a double";
        if (rc == MB_OK && g_exact < 1.0) {
            rc = MB_EDOM;
            why = "even one device falls short of that efficiency";
        }
        if (rc == MB_OK) {
            g = floor(g_exact * (1.0 + 1e-12));
            rc = mb_model_amdahl_efficiency(r, g, &e);
        }
    } else if (!isnan(g) && !isnan(e)) {
        rc = mb_model_amdahl_max_overhead(g, e, &r);
        why = "no overhead ratio gives that efficiency on that many devices (G E <= 1)";
    } else if (!isnan(g) && !isnan(s)) {
        rc = mb_model_amdahl_overhead_for_speedup(g, s, &r);
        why = "the speed-up must be in (1, G] on G > 1 devices";
        if (rc == MB_OK)
            rc = mb_model_amdahl_efficiency(r, g, &e);
    } else { /* speed-up and efficiency: G = S / E, rounded up to whole devices (the speed-up
              * target met at that efficiency) */
        g_exact = s / e;
        g = isfinite(g_exact) ? fmax(1.0, ceil(g_exact * (1.0 - 1e-12))) : g_exact;
        rc = mb_model_amdahl_max_overhead(g, e, &r);
        why = "speed-up / efficiency gives G E <= 1";
    }
    if (rc == MB_OK && !isfinite(g)) {
        rc = MB_EDOM;
        why = "the device count is beyond the range of a double";
    }
    if (rc != MB_OK) {
        mb_error_set(&err, rc, "%s", why);
        return mb_cli_fail(prog, sub, &err);
    }
    s = g * e;
    if (rc == MB_OK && !(isfinite(s) && s > 0 && isfinite(r) && e > 0)) {
        /* e.g. E underflows to 0 on 1e300 devices with R = 1e300: a speed-up of 0 is wrong */
        mb_error_set(&err, MB_EDOM, "the answer is beyond the range of a double (R_O %g, G %g)",
                     r, g);
        return mb_cli_fail(prog, sub, &err);
    }

    if (out.json) {
        cJSON *j = cJSON_CreateObject();
        if (j) {
            mb_json_add_number(j, "overhead_ratio", r);
            mb_json_add_number(j, "gpus", g);
            mb_json_add_number(j, "speedup", s);
            mb_json_add_number(j, "efficiency", e);
            if (!isnan(g_exact))
                mb_json_add_number(j, "gpus_exact", g_exact);
        }
        return emit_json(sub, j, &out);
    }
    mb_out o;
    if (mb_out_open(&o, out.output, &err) != MB_OK)
        return mb_cli_fail(prog, sub, &err);
    fprintf(o.f, "overhead_ratio %.6g\ngpus           %.6g\nspeedup        %.6g\n"
                 "efficiency     %.6g\n",
            r, g, s, e);
    if (!isnan(g_exact))
        fprintf(o.f, "gpus_exact     %.6g\n", g_exact);
    return mb_out_commit(&o, &err) == MB_OK ? 0 : mb_cli_fail(prog, sub, &err);
}

/* ---- mbopt ps --------------------------------------------------------------------------------- */

static void ps_help(void)
{
    printf("Usage: mbopt ps --compute-time S --workers N --bandwidth B --param-bytes SIZE\n"
           "The least number of parameter servers that hides each worker's push and pull of\n"
           "the parameters behind its computation (Zou et al. 2017, Lemma 3.2):\n"
           "  N_ps >= 2 S_p N_w / (T_C B_ps)\n\n"
           "      --compute-time S    one round of computation on a worker, T_C, seconds\n"
           "      --workers N         number of workers, N_w >= 1\n"
           "      --bandwidth B       bytes/s per parameter server, K/M/G = 2^10/2^20/2^30\n"
           "      --param-bytes SIZE  size of the parameters, S_p, K/M/G allowed\n"
           "      --json              write JSON (keys n_ps, n_ps_exact and the inputs)\n"
           "  -o, --output FILE       write to FILE instead of standard output\n"
           "  -h, --help              show this help and exit\n\n"
           "Example:\n"
           "  mbopt ps --compute-time 0.2 --workers 16 --bandwidth 10G --param-bytes 240M\n");
}

static int cmd_ps(int argc, char **argv)
{
    const char *sub = "ps";
    static const struct option lo[] = {{"compute-time", required_argument, 0, OPT_COMPUTE},
                                       {"workers", required_argument, 0, OPT_WORKERS},
                                       {"bandwidth", required_argument, 0, OPT_BW},
                                       {"param-bytes", required_argument, 0, OPT_PARAM_BYTES},
                                       {"json", no_argument, 0, OPT_JSON},
                                       {"output", required_argument, 0, 'o'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
    double tc = NAN, nw = NAN, bw = NAN, sp = NAN;
    out_opts out = {0, "-"};
    mb_error err = {0};
    int c;
    while ((c = getopt_long(argc, argv, ":ho:", lo, NULL)) != -1) {
        int rc = MB_OK;
        switch (c) {
        case OPT_COMPUTE:
            rc = mb_data_flag_double("--compute-time", optarg, 0, MB_POSITIVE, &tc, &err);
            break;
        case OPT_WORKERS:
            rc = mb_data_flag_double("--workers", optarg, 0, MB_POSITIVE, &nw, &err);
            if (rc == MB_OK && nw < 1)
                rc = mb_error_set(&err, MB_EINVAL, "--workers: must be >= 1, got '%s'", optarg);
            break;
        case OPT_BW: rc = mb_data_flag_double("--bandwidth", optarg, 1, MB_POSITIVE, &bw, &err);
            break;
        case OPT_PARAM_BYTES:
            rc = mb_data_flag_double("--param-bytes", optarg, 1, MB_POSITIVE, &sp, &err);
            break;
        case OPT_JSON: out.json = 1; break;
        case 'o': out.output = optarg; break;
        case 'h': ps_help(); return 0;
        default: return mb_cli_bad_option(prog, sub, argv, optind, c);
        }
        if (rc != MB_OK)
            return mb_cli_fail(prog, sub, &err);
    }
    if (optind < argc)
        return mb_cli_usage(prog, sub, "unexpected argument '%s'", argv[optind]);
    if (isnan(tc)) return mb_cli_usage(prog, sub, "missing --compute-time");
    if (isnan(nw)) return mb_cli_usage(prog, sub, "missing --workers");
    if (isnan(bw)) return mb_cli_usage(prog, sub, "missing --bandwidth");
    if (isnan(sp)) return mb_cli_usage(prog, sub, "missing --param-bytes");
    double exact, n_ps;
    if (mb_model_ps_count(sp, nw, tc, bw, &exact, &n_ps) != MB_OK) {
        mb_error_set(&err, MB_EDOM, "the inputs give no finite server count");
        return mb_cli_fail(prog, sub, &err);
    }
    if (out.json) {
        cJSON *j = cJSON_CreateObject();
        if (j) {
            mb_json_add_number(j, "n_ps", n_ps);
            mb_json_add_number(j, "n_ps_exact", exact);
            mb_json_add_number(j, "compute_time", tc);
            mb_json_add_number(j, "workers", nw);
            mb_json_add_number(j, "bandwidth", bw);
            mb_json_add_number(j, "param_bytes", sp);
        }
        return emit_json(sub, j, &out);
    }
    mb_out o;
    if (mb_out_open(&o, out.output, &err) != MB_OK)
        return mb_cli_fail(prog, sub, &err);
    fprintf(o.f, "n_ps %.0f  (bound 2 S_p N_w / (T_C B_ps) = %.6g)\n", n_ps, exact);
    return mb_out_commit(&o, &err) == MB_OK ? 0 : mb_cli_fail(prog, sub, &err);
}

/* ---- mbopt design ----------------------------------------------------------------------------- */

static void design_help(void)
{
    printf("Usage: mbopt design [OPTION]...\n"
           "Splits a budget between learners and bandwidth so that the optimal-scaling time to\n"
           "converge T_C(M_opt(P), P) is least (Perrone et al. 2019, eq. 11-12): the budget buys\n"
           "P learners and bandwidth B, the communication constant scales as delta * B_ref / B,\n"
           "and at the optimum the gain per unit of money is equal for both.\n\n"
           "%s"
           "Budget:\n"
           "      --budget C            money to spend, > 0\n"
           "      --price-learner C     price of one learner, > 0\n"
           "      --price-bandwidth C   price of one byte/s of bandwidth, > 0\n"
           "      --bandwidth-ref B     bytes/s at which delta was measured (K/M/G allowed)\n"
           "Output:\n"
           "      --json                write JSON\n"
           "  -o, --output FILE         write to FILE instead of standard output\n"
           "  -h, --help                show this help and exit\n\n"
           "Example:\n"
           "  mbopt design --n-inf 1200 --alpha 3.5e5 --gamma 2e-5 --m-t 32 --delta 0.004 \\\n"
           "      --budget 100000 --price-learner 2000 --price-bandwidth 1e-5 --bandwidth-ref 1G\n",
           MODEL_HELP);
}

static int cmd_design(int argc, char **argv)
{
    const char *sub = "design";
    static const struct option lo[] = {MODEL_LONGOPTS,
                                       {"budget", required_argument, 0, OPT_BUDGET},
                                       {"price-learner", required_argument, 0, OPT_PRICE_L},
                                       {"price-bandwidth", required_argument, 0, OPT_PRICE_B},
                                       {"bandwidth-ref", required_argument, 0, OPT_BW_REF},
                                       {"json", no_argument, 0, OPT_JSON},
                                       {"output", required_argument, 0, 'o'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
    model_opts m = {0};
    mb_design_problem prob = {NAN, NAN, NAN, NAN};
    out_opts out = {0, "-"};
    mb_error err = {0};
    int c;
    while ((c = getopt_long(argc, argv, ":ho:", lo, NULL)) != -1) {
        int r = model_option(&m, c, optarg, &err);
        if (r < 0)
            return mb_cli_fail(prog, sub, &err);
        if (r > 0)
            continue;
        int rc = MB_OK;
        switch (c) {
        case OPT_BUDGET:
            rc = mb_data_flag_double("--budget", optarg, 0, MB_POSITIVE, &prob.budget, &err);
            break;
        case OPT_PRICE_L:
            rc = mb_data_flag_double("--price-learner", optarg, 0, MB_POSITIVE,
                                     &prob.price_learner, &err);
            break;
        case OPT_PRICE_B:
            rc = mb_data_flag_double("--price-bandwidth", optarg, 0, MB_POSITIVE,
                                     &prob.price_bandwidth, &err);
            break;
        case OPT_BW_REF:
            rc = mb_data_flag_double("--bandwidth-ref", optarg, 1, MB_POSITIVE,
                                     &prob.bandwidth_ref, &err);
            break;
        case OPT_JSON: out.json = 1; break;
        case 'o': out.output = optarg; break;
        case 'h': design_help(); return 0;
        default: return mb_cli_bad_option(prog, sub, argv, optind, c);
        }
        if (rc != MB_OK)
            return mb_cli_fail(prog, sub, &err);
    }
    if (optind < argc)
        return mb_cli_usage(prog, sub, "unexpected argument '%s'", argv[optind]);
    if (isnan(prob.budget)) return mb_cli_usage(prog, sub, "missing --budget");
    if (isnan(prob.price_learner)) return mb_cli_usage(prog, sub, "missing --price-learner");
    if (isnan(prob.price_bandwidth)) return mb_cli_usage(prog, sub, "missing --price-bandwidth");
    if (isnan(prob.bandwidth_ref)) return mb_cli_usage(prog, sub, "missing --bandwidth-ref");
    if (!(prob.budget / prob.price_learner <= MB_DATA_RANGE_MAX)) {
        /* past 2^53 learners the count is no longer whole, and the search has no end to find */
        mb_error_set(&err, MB_EINVAL, "--budget / --price-learner: %g learners is past 2^53",
                     prob.budget / prob.price_learner);
        return mb_cli_fail(prog, sub, &err);
    }
    if (model_resolve(&m, &err) != MB_OK)
        return mb_cli_fail(prog, sub, &err);
    if (m.t.comm == MB_COMM_NONE) {
        mb_error_set(&err, MB_EINVAL, "--comm none: bandwidth has no value to trade");
        return mb_cli_fail(prog, sub, &err);
    }
    /* the budget balance is Perrone's closed form (eq. 11-12): it needs the inverse law */
    mb_inverse_law inv;
    if (mb_model_law_as_inverse(&m.law, &inv) != MB_OK &&
        mb_model_law_as_inverse(&m.nf.inverse, &inv) != MB_OK) {
        mb_error_set(&err, MB_EINVAL, "design needs the inverse law (Perrone eq. 11-12)");
        return mb_cli_fail(prog, sub, &err);
    }
    if (m.law.kind != MB_LAW_INVERSE) {
        fprintf(stderr, "mbopt design: the budget balance uses the inverse law of %s (Perrone "
                        "eq. 11-12 need it), not its best law, the %s\n",
                m.nfit, mb_model_law_name(m.law.kind));
        m.law = m.nf.inverse;
    }
    mb_design d;
    if (mb_model_design(&inv, &m.t, &prob, &d) != MB_OK) {
        mb_error_set(&err, MB_EDOM, "the budget cannot buy more than one learner");
        return mb_cli_fail(prog, sub, &err);
    }
    if (out.json) {
        cJSON *j = cJSON_CreateObject();
        if (j) {
            cJSON_AddStringToObject(j, "command", "design");
            cJSON_AddItemToObject(j, "model", model_json(&m));
            mb_json_add_number(j, "learners", d.learners);
            mb_json_add_number(j, "bandwidth", d.bandwidth);
            mb_json_add_number(j, "m_opt", d.opt.m_opt);
            mb_json_add_number(j, "t_c", d.opt.t_c);
            cJSON_AddStringToObject(j, "regime", mb_model_regime_name(d.opt.regime));
            mb_json_add_number(j, "dt_dcost_learners", d.dt_dcost_learners);
            mb_json_add_number(j, "dt_dcost_bandwidth", d.dt_dcost_bandwidth);
            cJSON_AddBoolToObject(j, "interior", d.interior);
            mb_json_add_number(j, "whole_learners", d.whole_learners);
            mb_json_add_number(j, "whole_bandwidth", d.whole_bandwidth);
            mb_json_add_number(j, "whole_t_c", d.whole_t_c);
        }
        return emit_json(sub, j, &out);
    }
    mb_out o;
    if (mb_out_open(&o, out.output, &err) != MB_OK)
        return mb_cli_fail(prog, sub, &err);
    model_print(o.f, &m);
    fprintf(o.f, "learners   %.6g (spend %.6g)\nbandwidth  %.6g bytes/s (spend %.6g)\n"
                 "m_opt      %.6g\nt_c        %.6g s (%s regime)\n",
            d.learners, d.learners * prob.price_learner, d.bandwidth,
            d.bandwidth * prob.price_bandwidth, d.opt.m_opt, d.opt.t_c,
            mb_model_regime_name(d.opt.regime));
    if (d.interior)
        fprintf(o.f, "balance    dT_C/dC: learners %.4g, bandwidth %.4g s per unit (eq. 12)\n",
                d.dt_dcost_learners, d.dt_dcost_bandwidth);
    else
        fprintf(o.f, "balance    the optimum is at a bound of the budget line\n");
    fprintf(o.f, "whole      %.0f learners and %.6g bytes/s: t_c %.6g s\n", d.whole_learners,
            d.whole_bandwidth, d.whole_t_c);
    return mb_out_commit(&o, &err) == MB_OK ? 0 : mb_cli_fail(prog, sub, &err);
}

/* ---- main ------------------------------------------------------------------------------------- */

static void help(void)
{
    printf("Usage: mbopt COMMAND [OPTION]...\n"
           "Recommendations from mbkit's models: which mini-batch size and how many learners\n"
           "train soonest, and what the hardware needs.\n\n"
           "Commands:\n"
           "  scale    M_opt and T_C per learner count: optimal, strong and weak scaling\n"
           "  validate predicted against measured training time, from run logs\n"
           "  amdahl   efficiency, speed-up, devices and overhead ratio (any two give the rest)\n"
           "  ps       parameter servers needed to hide communication\n"
           "  design   the budget split between learners and bandwidth\n"
           "  mem      the memory a network needs at each M, and the largest M that fits\n"
           "  conv     convolution algorithms per layer and M (GLPK ILP), with T_C\n\n"
           "  -h, --help     show this help and exit\n"
           "  -V, --version  show the version and exit\n\n"
           "'mbopt COMMAND --help' describes each command.\n");
}

/* ---- mbopt validate --------------------------------------------------------------------------- */

/* ---- mbopt validate: the held-out check and sequential sampling (solver/holdout.c) --------- */

#define MAX_HOLDOUT_DIRS 16
#define DEFAULT_MAX_SEEDS 10

typedef struct holdout_cli {
    char *dirs[MAX_HOLDOUT_DIRS]; /* --holdout DIR... */
    size_t n_dirs;
    size_t plan_seeds;            /* --holdout-plan N (0: not asked) */
    int more_seeds;               /* --more-seeds */
    size_t max_seeds;             /* --max-seeds */
    int on;                       /* h and ho hold a check */
    glob_t g;
    mb_fit_runs runs;
    mb_validate h;
    mb_holdout ho;
    mb_sequential seq;            /* in-sample sampling state */
} holdout_cli;

static void holdout_free(holdout_cli *hc)
{
    if (hc->on) {
        mb_validate_free(&hc->h);
        mb_fit_runs_free(&hc->runs);
        globfree(&hc->g);
    }
    hc->on = 0;
}

/* Whether run i of `runs` is of the setting of row r. */
static int run_of(const mb_fit_runs *runs, size_t i, const mb_validate_row *r)
{
    return runs->batch[i] == r->batch && runs->procs[i] == r->procs &&
           (runs->lr[i] == r->lr || (isnan(runs->lr[i]) && isnan(r->lr)));
}

/* "M,LR,SEED" (LR empty when not known), a token for the Makefile's loops. */
static void print_token(double m, double lr, unsigned long seed, int first)
{
    if (isnan(lr))
        printf("%s%g,,%lu", first ? "" : " ", m, seed);
    else
        printf("%s%g,%.9g,%lu", first ? "" : " ", m, lr, seed);
}

/* --holdout-plan N: the held-out sweep, seed by seed over M, on one line; what it holds out on
 * standard error. */
static int holdout_plan_print(const mb_validate *v, const mb_fit_runs *runs, const model_opts *m,
                              size_t n_seeds, mb_error *err)
{
    mb_holdout_plan plan;
    int rc = mb_solver_holdout_plan(v, runs, m->m_lo, m->m_hi, n_seeds, &plan, err);
    if (rc != MB_OK)
        return rc;
    char what[512] = "";
    for (size_t k = 0, len = 0; k < plan.n_batch && len < sizeof what; k++)
        len += (size_t)snprintf(what + len, sizeof what - len, "%s%g (%s)", k ? ", " : "",
                                plan.batch[k], plan.why[k]);
    fprintf(stderr, "%s validate: held out at P = %g: M = %s on seeds %lu..%lu, none of them a "
            "seed of the %zu runs that fitted and chose\n", prog, plan.p, what, plan.seeds[0],
            plan.seeds[plan.n_seeds - 1], runs->n);
    for (size_t s = 0; s < plan.n_seeds; s++)
        for (size_t k = 0; k < plan.n_batch; k++)
            print_token(plan.batch[k], plan.lr, plan.seeds[s], s == 0 && k == 0);
    printf("\n");
    return MB_OK;
}

/* The next seed for the setting of row r: one past the largest seed its runs used below the
 * held-out seeds. */
static unsigned long next_seed(const mb_fit_runs *runs, const mb_validate_row *r)
{
    double top = -1;
    for (size_t i = 0; i < runs->n; i++)
        if (run_of(runs, i, r) && runs->seed[i] < MB_HOLDOUT_SEED0 && runs->seed[i] > top)
            top = runs->seed[i];
    return (unsigned long)(top + 1);
}

/* "M = a, b, c" of rows idx[0..n) into buf. */
static const char *row_list(char *buf, size_t size, const mb_validate *v, const long *idx,
                            size_t n)
{
    size_t len = (size_t)snprintf(buf, size, "M = ");
    for (size_t k = 0; k < n && len < size; k++)
        len += (size_t)snprintf(buf + len, size - len, "%s%g", k ? ", " : "",
                                v->rows[idx[k]].batch);
    return buf;
}

/* The sampling state as a sentence, into buf. */
static const char *sampling_line(char *buf, size_t size, const mb_validate *v,
                                 const mb_sequential *q, size_t max_seeds)
{
    char list[256];
    if (q->leader < 0)
        snprintf(buf, size, "no setting reached the target: nothing to decide");
    else if (q->decided)
        snprintf(buf, size, "decided: no other setting's %.0f%% interval of its median reaches "
                 "that of the leader, M = %g (%zu runs)", 100 * MB_SEQUENTIAL_LEVEL,
                 v->rows[q->leader].batch, v->rows[q->leader].runs);
    else
        snprintf(buf, size, "%s: %s still overlap the leader M = %g (%zu runs) within their "
                 "%.0f%% intervals%s", q->capped ? "undecided at the cap" : "budget spent",
                 row_list(list, sizeof list, v, q->overlap, q->n_overlap),
                 v->rows[q->leader].batch, v->rows[q->leader].runs, 100 * MB_SEQUENTIAL_LEVEL,
                 q->capped ? "" : "; more seeds may tell them apart");
    (void)max_seeds;
    return buf;
}

/* --more-seeds: the settings whose intervals still overlap the leader's, one more seed each. */
static int more_seeds_print(const holdout_cli *hc, const mb_validate *v, const mb_fit_runs *runs)
{
    char line[640];
    fprintf(stderr, "%s validate: sampling %s\n", prog,
            sampling_line(line, sizeof line, v, &hc->seq, hc->max_seeds));
    for (size_t k = 0; k < hc->seq.n_want; k++) {
        const mb_validate_row *r = &v->rows[hc->seq.want[k]];
        print_token(r->batch, r->lr, next_seed(runs, r), k == 0);
    }
    printf("\n");
    return MB_OK;
}

/* Reads the held-out logs and checks the recommendation (row `pick` of the in-sample v) on them:
 * no held-out run may share a seed with the in-sample runs, or a network or target. */
static int holdout_check(holdout_cli *hc, const mb_law *laws, const double *lrs, size_t n_laws,
                         const mb_update_time *t, const mb_validate *v,
                         const mb_fit_runs *in, mb_error *err)
{
    const long pick = mb_solver_pick(v);
    if (pick < 0)
        return mb_error_set(err, MB_ENODATA, "--holdout: no recommendation with runs to check");
    const mb_validate_row *r = &v->rows[pick];
    int rc = read_runs((int)hc->n_dirs, hc->dirs, v->target, &hc->g, &hc->runs, err);
    hc->on = 1;
    for (size_t i = 0; rc == MB_OK && i < hc->runs.n; i++)
        for (size_t j = 0; rc == MB_OK && j < in->n; j++)
            if (!isnan(hc->runs.seed[i]) && hc->runs.seed[i] == in->seed[j])
                rc = mb_error_set(err, MB_EINVAL, "%s: seed %g also trained a run that fitted "
                                  "or chose the answer: a held-out run needs a fresh seed "
                                  "(mbopt validate --holdout-plan)", hc->g.gl_pathv[i],
                                  hc->runs.seed[i]);
    if (rc == MB_OK)
        rc = mb_solver_validate(laws, lrs, n_laws, t, NULL, &hc->runs,
                                (const char *const *)hc->g.gl_pathv, r->batch, r->procs, r->lr,
                                &hc->h, err);
    if (rc == MB_OK && strcmp(hc->h.net, v->net) != 0)
        rc = mb_error_set(err, MB_EINVAL, "--holdout: the held-out runs train '%s', the others "
                          "'%s'", hc->h.net, v->net);
    if (rc == MB_OK)
        rc = mb_solver_holdout(&hc->h, r->batch, r->procs, r->lr, 2000, &hc->ho, err);
    return rc;
}

/* The held-out check as one sentence, into buf. */
static const char *holdout_verdict(char *buf, size_t size, const holdout_cli *hc)
{
    const mb_validate *h = &hc->h;
    const mb_holdout *o = &hc->ho;
    const mb_validate_row *rec = &h->rows[o->rec], *best = &h->rows[o->best],
                          *rv = &h->rows[o->rival];
    char seeds[32];
    if (o->seeds_lo == o->seeds_hi)
        snprintf(seeds, sizeof seeds, "%zu", o->seeds_lo);
    else
        snprintf(seeds, sizeof seeds, "%zu-%zu", o->seeds_lo, o->seeds_hi);
    snprintf(buf, size,
             "held out (%s fresh seeds a setting, none used to fit or choose): the recommended "
             "M = %g trained in %.3g s (median), %.2fx the best held-out M (M = %g, %.3g s; "
             "%.0f%% interval %.2f-%.2fx); against its best rival, M = %g (%.3g s): %.2fx "
             "(%.0f%% interval %.2f-%.2f): %s; median |error| of predicted T_C on the held-out "
             "runs %.1f%% over %zu settings; flat (held out): M = %g..%g within %.0f%% of the "
             "best",
             seeds, rec->batch, rec->t_median, o->ratio, best->batch, best->t_median,
             100 * MB_HOLDOUT_LEVEL, o->ratio_ci[0], o->ratio_ci[1], rv->batch, rv->t_median,
             o->rival_ratio, 100 * MB_HOLDOUT_LEVEL, o->rival_ci[0], o->rival_ci[1],
             mb_solver_holdout_verdict_name(o->verdict), 100 * o->median_abs_err, o->n_err,
             o->flat_lo, o->flat_hi, 100 * MB_SOLVER_FLAT);
    return buf;
}

/* The held-out rows as a table, then the check line. */
static void holdout_print(FILE *f, const holdout_cli *hc, const char *verdict)
{
    const mb_validate *h = &hc->h;
    char a[32], b[32], c[32], d[32], e[32], g[32];
    fprintf(f, "# held out: the runs below took no part in fitting or choosing\n");
    fprintf(f, "%-9s %4s %6s %8s %9s %10s %10s %10s %8s %8s\n", "held-out", "P", "M", "lr",
            "reached", "T_C_meas_s", "T_C_min_s", "T_C_pred_s", "error", "vs_best");
    for (size_t i = 0; i < h->n_rows; i++) {
        const mb_validate_row *r = &h->rows[i];
        char reached[32];
        snprintf(reached, sizeof reached, "%zu/%zu", r->reached, r->runs);
        fprintf(f, "%-9s %4g %6g %8s %9s %10s %10s %10s %8s %8s%s\n", r->algo, r->procs,
                r->batch, fmt(a, sizeof a, "%g", r->lr), reached,
                fmt(b, sizeof b, "%.4g", r->t_median), fmt(c, sizeof c, "%.4g", r->t_min),
                fmt(d, sizeof d, "%.4g", r->t_pred),
                fmt(e, sizeof e, "%+.1f%%", 100 * r->rel_err),
                fmt(g, sizeof g, "%.2fx", r->t_median / h->rows[hc->ho.best].t_median),
                (long)i == hc->ho.rec ? "  # recommended" : "");
    }
    fprintf(f, "check: %s\n", verdict);
}

static cJSON *holdout_json(const holdout_cli *hc)
{
    const mb_holdout *o = &hc->ho;
    const mb_validate *h = &hc->h;
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    mb_json_add_number(root, "batch", h->rows[o->rec].batch);
    mb_json_add_number(root, "t_train_median_s", h->rows[o->rec].t_median);
    mb_json_add_number(root, "best_batch", h->rows[o->best].batch);
    mb_json_add_number(root, "best_t_train_median_s", h->rows[o->best].t_median);
    mb_json_add_number(root, "ratio", o->ratio);
    mb_json_add_number(root, "ratio_lo", o->ratio_ci[0]);
    mb_json_add_number(root, "ratio_hi", o->ratio_ci[1]);
    mb_json_add_number(root, "rival_batch", h->rows[o->rival].batch);
    mb_json_add_number(root, "rival_ratio", o->rival_ratio);
    mb_json_add_number(root, "rival_ratio_lo", o->rival_ci[0]);
    mb_json_add_number(root, "rival_ratio_hi", o->rival_ci[1]);
    mb_json_add_number(root, "level", MB_HOLDOUT_LEVEL);
    cJSON_AddStringToObject(root, "verdict", mb_solver_holdout_verdict_name(o->verdict));
    mb_json_add_number(root, "median_abs_rel_err", o->median_abs_err);
    mb_json_add_number(root, "flat_lo", o->flat_lo);
    mb_json_add_number(root, "flat_hi", o->flat_hi);
    mb_json_add_number(root, "seeds_min", (double)o->seeds_lo);
    mb_json_add_number(root, "seeds_max", (double)o->seeds_hi);
    cJSON *rows = cJSON_AddArrayToObject(root, "rows");
    for (size_t i = 0; rows && i < h->n_rows; i++) {
        const mb_validate_row *r = &h->rows[i];
        cJSON *x = cJSON_CreateObject();
        if (!x)
            break;
        mb_json_add_number(x, "procs", r->procs);
        mb_json_add_number(x, "batch", r->batch);
        mb_json_add_number(x, "lr", r->lr);
        mb_json_add_number(x, "runs", (double)r->runs);
        mb_json_add_number(x, "reached", (double)r->reached);
        mb_json_add_number(x, "t_train_median_s", r->t_median);
        mb_json_add_number(x, "t_pred_s", r->t_pred);
        mb_json_add_number(x, "rel_err", r->rel_err);
        cJSON *ts = cJSON_AddArrayToObject(x, "t_runs_s");
        for (size_t k = 0; ts && k < r->reached; k++)
            cJSON_AddItemToArray(ts, cJSON_CreateNumber(r->t_runs[k]));
        cJSON_AddItemToArray(rows, x);
    }
    return root;
}

static void validate_help(void)
{
    printf("Usage: mbopt validate [OPTION]... LOG|DIR...\n"
           "Checks the model against real training runs: for every (algorithm, P, M, learning\n"
           "rate) that has run logs, the measured training time to the target loss (the wall_s\n"
           "of the first update whose evaluation loss reached it: evaluation excluded; median\n"
           "over seeds, with its spread) beside the predicted T_C = N_update(M) T_update(M, P),\n"
           "the relative error, and the runs' seconds per update beside T_update's. Then the\n"
           "measured-best M and the recommended setting's measured time over it. A DIR stands\n"
           "for its *.csv files.\n\n"
           "%s"
           "Validation:\n"
           "      --target-loss X   the target (default: --nfit's target_loss)\n"
           "      --recommend FILE  the recommendation to check: 'mbopt scale --json' output\n"
           "                        (its 'enough' row); default: the optimum at P = 1 in range\n"
           "      --missing         print only the mini-batch sizes that would check the\n"
           "                        recommendation and have no runs yet: its M (rounded) and on\n"
           "                        either side the 10th / 90th percentile of M_opt over the\n"
           "                        nfit's bootstrap resamples when that is more than 1.25x away,\n"
           "                        else M / 1.5, M * 1.5, inside the range, on one line as M,LR\n"
           "                        (just M when the learning rate is not known), for scripts\n"
           "      --comm-from-runs  print only Delta(P) as the runs at P > 1 measured it: the\n"
           "                        median of their seconds per update less the one-learner\n"
           "                        step at M / P (for mbopt scale --comm allreduce --delta)\n"
           "Held out (docs/design.md, \"The held-out check\"):\n"
           "      --holdout DIR     run logs that took no part in fitting or choosing (repeat it\n"
           "                        for several folders): the recommendation's median training\n"
           "                        time over the best held-out M's and over its best rival's,\n"
           "                        each with a 95%% bootstrap interval over seeds (tied when the\n"
           "                        rival interval holds 1), the model's error on them and the\n"
           "                        flat range they measure; a log reusing a seed of LOG|DIR is\n"
           "                        refused\n"
           "      --holdout-plan N  print only what a held-out check should train: the\n"
           "                        recommendation, the in-sample best, the model's optimum and\n"
           "                        M / 1.5, M / 1.22, M * 1.22, M * 1.5, on N fresh seeds (3..64,\n"
           "                        from 1000 up, none a seed of LOG|DIR), seed by seed, as\n"
           "                        M,LR,SEED tokens on one line\n"
           "      --more-seeds      print only the settings whose median's 90%% interval still\n"
           "                        overlaps the leader's (and the leader), one more seed each,\n"
           "                        as M,LR,SEED tokens (empty: decided, or all at the cap)\n"
           "      --max-seeds N     the cap of runs a setting gets from --more-seeds (default 10)\n"
           "Output:\n"
           "      --json            write JSON (rows, predicted curve, best, recommended, ratio)\n"
           "      --csv             write the validation table as CSV (docs/design.md columns)\n"
           "  -o, --output FILE     write to FILE (atomically) instead of standard output\n"
           "  -h, --help            show this help and exit\n\n"
           "Exit status: 0 when the table was made, whatever the errors; 1 for bad input or\n"
           "when no run trained within a factor of 2 of the recommended M.\n\n"
           "Example:\n"
           "  mbopt validate --nfit n.json --tfit t.json out/runs out/check --json -o v.json\n",
           MODEL_HELP);
}

/* One checked setting: the M the model asked for (`batch`), the trained M that stands for it
 * and what it measured. */
static void add_checked(cJSON *o, const model_opts *m, const mb_validate *v, double batch,
                        double lr, long row)
{
    double tc = NAN; /* the model's T_C at `batch`: the row's when it trained just that */
    if (row >= 0 && v->rows[row].batch == batch)
        tc = v->rows[row].t_pred;
    else
        mb_model_law_tc(&m->law, &m->t, batch, v->p_rec, &tc);
    mb_json_add_number(o, "batch", batch);
    mb_json_add_number(o, "lr", lr);
    mb_json_add_number(o, "procs", v->p_rec);
    mb_json_add_number(o, "t_pred_s", tc);
    cJSON_AddBoolToObject(o, "measured", row >= 0);
    if (row >= 0) {
        mb_json_add_number(o, "batch_run", v->rows[row].batch);
        mb_json_add_number(o, "t_train_median_s", v->rows[row].t_median);
    }
}

static cJSON *validate_json(const model_opts *m, const mb_validate *v, const holdout_cli *hc,
                            const char *in_sample, const char *held, const char *sampling)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    cJSON_AddStringToObject(root, "command", "validate");
    cJSON_AddStringToObject(root, "net", v->net);
    mb_json_add_number(root, "target_loss", v->target);
    cJSON *law = cJSON_AddObjectToObject(root, "law"), *params = NULL;
    if (law) {
        cJSON_AddStringToObject(law, "model", mb_model_law_name(m->law.kind));
        params = cJSON_AddObjectToObject(law, "params");
        cJSON_AddStringToObject(law, "why", m->nfit ? m->nf.why : "given");
    }
    if (params) {
        mb_json_add_number(params, "n_inf", m->law.n_inf);
        mb_json_add_number(params, m->law.kind == MB_LAW_INVERSE ? "alpha" : "a", m->law.a);
        if (m->law.kind == MB_LAW_POWER)
            mb_json_add_number(params, "b", m->law.b);
    }
    cJSON_AddItemToObject(root, "model", model_json(m));
    cJSON *tu = cJSON_AddObjectToObject(root, "t_update");
    if (tu) {
        mb_json_add_number(tu, "gamma", m->t.gamma);
        mb_json_add_number(tu, "m_t", m->t.m_t);
        mb_json_add_number(tu, "t0", m->t.t0);
    }
    if (isfinite(m->m_hi)) {
        cJSON *r = cJSON_AddArrayToObject(root, "converged_range");
        cJSON_AddItemToArray(r, cJSON_CreateNumber(m->m_lo));
        cJSON_AddItemToArray(r, cJSON_CreateNumber(m->m_hi));
    }
    cJSON *rows = cJSON_AddArrayToObject(root, "rows");
    double lo = INFINITY, hi = 0;
    for (size_t i = 0; rows && i < v->n_rows; i++) {
        const mb_validate_row *r = &v->rows[i];
        cJSON *o = cJSON_CreateObject();
        if (!o)
            break;
        cJSON_AddStringToObject(o, "algo", r->algo);
        mb_json_add_number(o, "procs", r->procs);
        mb_json_add_number(o, "batch", r->batch);
        mb_json_add_number(o, "lr", r->lr);
        mb_json_add_number(o, "runs", (double)r->runs);
        mb_json_add_number(o, "reached", (double)r->reached);
        mb_json_add_number(o, "diverged", (double)r->diverged);
        mb_json_add_number(o, "n_median", r->n_median);
        mb_json_add_number(o, "n_pred", r->n_pred);
        mb_json_add_number(o, "t_train_median_s", r->t_median);
        mb_json_add_number(o, "t_train_min_s", r->t_min);
        mb_json_add_number(o, "t_train_max_s", r->t_max);
        cJSON *ts = cJSON_AddArrayToObject(o, "t_runs_s");
        for (size_t k = 0; ts && k < r->reached; k++)
            cJSON_AddItemToArray(ts, cJSON_CreateNumber(r->t_runs[k]));
        mb_json_add_number(o, "t_update_run_s", r->t_update_run);
        mb_json_add_number(o, "t_update_pred_s", r->t_update_pred);
        mb_json_add_number(o, "t_update_rel_err", r->t_update_rel_err);
        mb_json_add_number(o, "t_pred_s", r->t_pred);
        mb_json_add_number(o, "rel_err", r->rel_err);
        if (m->tcal.on) {
            mb_json_add_number(o, "t_update_probe_s", r->t_update_probe);
            mb_json_add_number(o, "t_update_probe_rel_err", r->t_update_probe_rel_err);
            mb_json_add_number(o, "t_pred_probe_s", r->t_pred_probe);
            mb_json_add_number(o, "rel_err_probe", r->rel_err_probe);
        }
        cJSON_AddItemToArray(rows, o);
        lo = fmin(lo, r->batch);
        hi = fmax(hi, r->batch);
    }
    /* the predicted curve at P = p_rec over the trained M, 32 points per factor of 2 */
    /* (and, when T_update is the runs', the curve the probe's T_update alone gives) */
    mb_update_time t_probe;
    mb_solver_tcal_probe(&m->tcal, &m->t, &t_probe);
    lo = fmin(lo, v->m_rec);
    hi = fmax(hi, v->m_rec);
    size_t n = (size_t)ceil(log2(hi / lo) * 32) + 1;
    for (int c = 0; c < 1 + m->tcal.on; c++) {
        cJSON *curve = cJSON_AddArrayToObject(root, c ? "curve_probe" : "curve");
        for (size_t i = 0; curve && i < n; i++) {
            double mm = n > 1 ? lo * pow(hi / lo, (double)i / (double)(n - 1)) : lo, tc;
            if (mb_model_law_tc(&m->law, c ? &t_probe : &m->t, mm, v->p_rec, &tc) != MB_OK)
                continue;
            cJSON *o = cJSON_CreateObject();
            mb_json_add_number(o, "batch", mm);
            mb_json_add_number(o, "t_pred_s", tc);
            cJSON_AddItemToArray(curve, o);
        }
    }
    if (v->best >= 0) {
        const mb_validate_row *b = &v->rows[v->best];
        cJSON *o = cJSON_AddObjectToObject(root, "measured_best");
        mb_json_add_number(o, "batch", b->batch);
        mb_json_add_number(o, "lr", b->lr);
        mb_json_add_number(o, "procs", b->procs);
        mb_json_add_number(o, "t_train_median_s", b->t_median);
    }
    /* the recommendation (what the runs settled on, else the model's optimum) and the model's
     * optimum itself, each with the trained M that stands for it */
    const int by_runs = v->settled >= 0 && v->settled != v->rec;
    cJSON *rec = cJSON_AddObjectToObject(root, "recommended");
    if (rec && by_runs)
        add_checked(rec, m, v, v->rows[v->settled].batch, v->rows[v->settled].lr, v->settled);
    else if (rec)
        add_checked(rec, m, v, v->m_rec, v->lr_rec, v->rec);
    cJSON *opt = cJSON_AddObjectToObject(root, "model_optimum");
    if (opt)
        add_checked(opt, m, v, v->m_rec, v->lr_rec, v->rec);
    cJSON_AddStringToObject(root, "settled_by", by_runs ? "runs" : "model");
    mb_json_add_number(root, "settle_band", v->band);
    mb_json_add_number(root, "in_sample_ratio", validate_ratio(v));
    mb_json_add_number(root, "model_ratio", v->ratio);
    mb_json_add_number(root, "median_abs_rel_err", v->median_abs_err);
    mb_json_add_number(root, "t_update_median_abs_rel_err", v->median_abs_tu_err);
    if (m->tcal.on) {
        cJSON_AddStringToObject(root, "t_update_source", "runs' seconds per update (the "
                                "errors above are N_update's at the runs' M)");
        mb_json_add_number(root, "median_abs_rel_err_probe", v->median_abs_err_probe);
        mb_json_add_number(root, "t_update_probe_median_abs_rel_err",
                           v->median_abs_tu_err_probe);
    }
    double t_opt, fl[2] = {NAN, NAN};
    mb_error e = {0};
    if (mb_model_law_tc(&m->law, &m->t, v->m_rec, v->p_rec, &t_opt) == MB_OK)
        mb_solver_flat_range(&m->law, &m->t, v->p_rec, m->m_lo, m->m_hi, t_opt, MB_SOLVER_FLAT,
                             fl, &e);
    cJSON *flat = cJSON_AddObjectToObject(root, "flat_pred");
    mb_json_add_number(flat, "within", MB_SOLVER_FLAT);
    mb_json_add_number(flat, "m_lo", fl[0]);
    mb_json_add_number(flat, "m_hi", fl[1]);
    cJSON_AddStringToObject(root, "verdict", held);
    cJSON_AddStringToObject(root, "in_sample", in_sample);
    cJSON_AddStringToObject(root, "sampling", sampling);
    cJSON_AddItemToObject(root, "holdout", hc->on ? holdout_json(hc) : cJSON_CreateNull());
    return root;
}

static void validate_csv(FILE *f, const mb_validate *v)
{
    fprintf(f, "# command=mbopt validate\n# net=%s\n# target_loss=%.9g\n", v->net, v->target);
    fprintf(f, "algo,procs,batch,lr,runs,reached,n_median,t_train_median_s,t_pred_s,rel_err\n");
    for (size_t i = 0; i < v->n_rows; i++) {
        const mb_validate_row *r = &v->rows[i];
        char a[32], b[32], c[32], d[32], e[32];
        fprintf(f, "%s,%g,%g,%s,%zu,%zu,%s,%s,%s,%s\n", r->algo, r->procs, r->batch,
                isnan(r->lr) ? "" : fmt(a, sizeof a, "%.9g", r->lr), r->runs, r->reached,
                isnan(r->n_median) ? "" : fmt(b, sizeof b, "%.9g", r->n_median),
                isnan(r->t_median) ? "" : fmt(c, sizeof c, "%.9g", r->t_median),
                isnan(r->t_pred) ? "" : fmt(d, sizeof d, "%.9g", r->t_pred),
                isnan(r->rel_err) ? "" : fmt(e, sizeof e, "%.6g", r->rel_err));
    }
}

static void validate_print(FILE *f, const model_opts *m, const mb_validate *v,
                           const holdout_cli *hc, const char *in_sample, const char *held,
                           const char *sampling)
{
    char a[32], b[32], c[32], d[32], e[32], g[32], h[32];
    model_print(f, m);
    fprintf(f, "# %s runs against the model, target loss %g; times are training only "
               "(evaluation excluded), medians over seeds\n", v->net, v->target);
    const int probe = m->tcal.on; /* the probe's own T_update beside the calibrated one */
    fprintf(f, "%-9s %4s %6s %8s %9s %8s %10s %10s %8s %11s %11s %8s", "algo", "P", "M", "lr",
            "reached", "diverged", "T_C_meas_s", "T_C_pred_s", "error", "s/upd_runs",
            "s/upd_model", "error");
    fprintf(f, probe ? " %11s %8s %13s %8s\n" : "\n", "s/upd_probe", "error", "T_C_probe_s",
            "error");
    for (size_t i = 0; i < v->n_rows; i++) {
        const mb_validate_row *r = &v->rows[i];
        char reached[32];
        snprintf(reached, sizeof reached, "%zu/%zu", r->reached, r->runs);
        fprintf(f, "%-9s %4g %6g %8s %9s %8zu %10s %10s %8s %11s %11s %8s", r->algo, r->procs,
                r->batch, fmt(a, sizeof a, "%g", r->lr), reached, r->diverged,
                fmt(b, sizeof b, "%.4g", r->t_median), fmt(c, sizeof c, "%.4g", r->t_pred),
                fmt(d, sizeof d, "%+.1f%%", 100 * r->rel_err),
                fmt(e, sizeof e, "%.4g", r->t_update_run),
                fmt(g, sizeof g, "%.4g", r->t_update_pred),
                fmt(h, sizeof h, "%+.1f%%", 100 * r->t_update_rel_err));
        if (probe)
            fprintf(f, " %11s %8s %13s %8s", fmt(a, sizeof a, "%.4g", r->t_update_probe),
                    fmt(b, sizeof b, "%+.1f%%", 100 * r->t_update_probe_rel_err),
                    fmt(c, sizeof c, "%.4g", r->t_pred_probe),
                    fmt(d, sizeof d, "%+.1f%%", 100 * r->rel_err_probe));
        const long pick = mb_solver_pick(v);
        fprintf(f, "%s%s%s\n", (long)i == v->best ? "  # measured best" : "",
                (long)i == pick ? "  # recommended" : "",
                (long)i == v->rec && v->rec != pick ? "  # the model's optimum" : "");
    }
    fprintf(f, "in-sample: %s\n", in_sample);
    fprintf(f, "sampling: %s\n", sampling);
    if (hc->on)
        holdout_print(f, hc, held);
    else
        fprintf(f, "check: %s\n", held);
}

/* The in-sample line: the recommendation's time over the best of the very runs that chose it
 * (so no check of it), the model's median error on them and where that error comes from. */
static void in_sample_verdict(char *verdict, size_t size, const model_opts *m,
                              const mb_validate *v, double m_rec, double p_rec)
{
    char stand[160] = "", settle[320] = "";
    const long pick = mb_solver_pick(v);
    if (pick >= 0 && pick == v->rec && v->rows[pick].batch != round(m_rec))
        snprintf(stand, sizeof stand, " (the optimum is M = %.4g; the model puts M = %g within "
                                      "%.0f%% of its T_C)", m_rec, v->rows[pick].batch,
                 100 * MB_SOLVER_EQUIV);
    char as[48] = ""; /* the trained M that stands for the model's optimum, when another */
    if (v->rec >= 0 && v->rows[v->rec].batch != round(m_rec))
        snprintf(as, sizeof as, " as M = %g", v->rows[v->rec].batch);
    if (pick >= 0 && pick != v->rec && v->rec >= 0)
        snprintf(settle, sizeof settle, "; the runs chose it over the model's optimum M = %.4g "
                 "(trained%s in %.3g s, %.2fx the best), which the model cannot tell from it: "
                 "it predicts both within %.1f%% of its best T_C, its median |error| on these "
                 "runs", m_rec, as, v->rows[v->rec].t_median, v->ratio, 100 * v->band);
    else if (pick >= 0 && pick != v->rec)
        snprintf(settle, sizeof settle, "; the model's optimum M = %.4g has no runs of its own "
                 "(train M = %.0f to check it); the model predicts M = %g within %.1f%% of its "
                 "best T_C, its median |error| on these runs, and the runs measured it the "
                 "fastest such", m_rec, round(m_rec), v->rows[pick].batch, 100 * v->band);
    if (pick >= 0 && v->best >= 0)
        snprintf(verdict, size,
                 "the recommended M = %g (P = %g)%s trained in %.3g s, %.2fx the best of the "
                 "runs that chose it (P = %g, M = %g, %.3g s)%s; median |error| of predicted "
                 "T_C %.1f%% over %zu settings at P = %g",
                 v->rows[pick].batch, p_rec, stand, v->rows[pick].t_median, validate_ratio(v),
                 v->rows[v->best].procs, v->rows[v->best].batch, v->rows[v->best].t_median, settle,
                 100 * v->median_abs_err, v->n_err, p_rec);
    else
        snprintf(verdict, size,
                 "the recommended M = %.4g (P = %g) has no runs of its own yet (train M = %.0f "
                 "to check it); median |error| of predicted T_C %.1f%% over %zu settings at "
                 "P = %g",
                 m_rec, p_rec, round(m_rec), 100 * v->median_abs_err, v->n_err, p_rec);
    /* where the error comes from: a T_update that the runs did not see is the machine's */
    if (m->tcal.on && p_rec == 1) {
        size_t len = strlen(verdict);
        snprintf(verdict + len, size - len,
                 "; T_update is the runs' own seconds per update (%.0f runs), so these errors "
                 "are N_update's; with the probe's T_update alone (its seconds per update off "
                 "the runs' by a median %.0f%%) the median |error| would be %.1f%%",
                 m->tcal.runs, 100 * v->median_abs_tu_err_probe, 100 * v->median_abs_err_probe);
    } else if (isfinite(v->median_abs_tu_err) && v->median_abs_tu_err > 0.15 && p_rec > 1) {
        size_t len = strlen(verdict);
        snprintf(verdict + len, size - len,
                 "; but the runs' seconds per update at P = %g differ from T_update(M, %g) by a "
                 "median %.0f%%: the collective model (mbprobe comm, on otherwise idle "
                 "processes) misses what %g training processes cost here, so the T_C errors "
                 "come from T_update's communication term, not from N_update",
                 p_rec, p_rec, 100 * v->median_abs_tu_err, p_rec);
    } else if (isfinite(v->median_abs_tu_err) && v->median_abs_tu_err > 0.15) {
        size_t len = strlen(verdict);
        snprintf(verdict + len, size - len,
                 "; but the runs' seconds per update differ from the probe's by a median %.0f%%: "
                 "the machine's speed changed between the probe and the runs (other work on this "
                 "host?), so the T_C errors come from T_update, not from N_update",
                 100 * v->median_abs_tu_err);
    }
}

static int cmd_validate(int argc, char **argv)
{
    const char *sub = "validate";
    static const struct option lo[] = {MODEL_LONGOPTS,
                                       {"target-loss", required_argument, 0, OPT_TARGET},
                                       {"recommend", required_argument, 0, OPT_RECOMMEND},
                                       {"missing", no_argument, 0, OPT_MISSING},
                                       {"comm-from-runs", no_argument, 0, OPT_COMM_RUNS},
                                       {"holdout", required_argument, 0, OPT_HOLDOUT},
                                       {"holdout-plan", required_argument, 0, OPT_HOLDOUT_PLAN},
                                       {"more-seeds", no_argument, 0, OPT_MORE_SEEDS},
                                       {"max-seeds", required_argument, 0, OPT_MAX_SEEDS},
                                       {"json", no_argument, 0, OPT_JSON},
                                       {"csv", no_argument, 0, OPT_CSV},
                                       {"output", required_argument, 0, 'o'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
    model_opts m = {0};
    out_opts out = {0, "-"};
    const char *recommend = NULL;
    double target = NAN;
    int csv = 0, missing = 0, comm_runs = 0;
    holdout_cli hc = {.max_seeds = DEFAULT_MAX_SEEDS};
    mb_error err = {0};
    int c;
    while ((c = getopt_long(argc, argv, ":ho:", lo, NULL)) != -1) {
        int r = model_option(&m, c, optarg, &err);
        if (r < 0)
            return mb_cli_fail(prog, sub, &err);
        if (r > 0)
            continue;
        switch (c) {
        case OPT_TARGET:
            if (mb_data_flag_double("--target-loss", optarg, 0, MB_POSITIVE, &target, &err))
                return mb_cli_fail(prog, sub, &err);
            break;
        case OPT_RECOMMEND: recommend = optarg; break;
        case OPT_MISSING: missing = 1; break;
        case OPT_COMM_RUNS: comm_runs = 1; break;
        case OPT_HOLDOUT:
            if (hc.n_dirs == MAX_HOLDOUT_DIRS)
                return mb_cli_usage(prog, sub, "--holdout: at most %d folders",
                                    MAX_HOLDOUT_DIRS);
            hc.dirs[hc.n_dirs++] = optarg;
            break;
        case OPT_HOLDOUT_PLAN:
        case OPT_MAX_SEEDS: {
            double x;
            const char *flag = c == OPT_MAX_SEEDS ? "--max-seeds" : "--holdout-plan";
            if (mb_data_flag_double(flag, optarg, 0, MB_POSITIVE, &x, &err))
                return mb_cli_fail(prog, sub, &err);
            if (x != floor(x) || x > MB_HOLDOUT_MAX_SEEDS || x < MB_HOLDOUT_MIN_SEEDS) {
                mb_error_set(&err, MB_EINVAL, "%s: a whole number of seeds from %d to %d, got "
                             "'%s'", flag, MB_HOLDOUT_MIN_SEEDS, MB_HOLDOUT_MAX_SEEDS, optarg);
                return mb_cli_fail(prog, sub, &err);
            }
            *(c == OPT_MAX_SEEDS ? &hc.max_seeds : &hc.plan_seeds) = (size_t)x;
            break;
        }
        case OPT_MORE_SEEDS: hc.more_seeds = 1; break;
        case OPT_JSON: out.json = 1; break;
        case OPT_CSV: csv = 1; break;
        case 'o': out.output = optarg; break;
        case 'h': validate_help(); return 0;
        default: return mb_cli_bad_option(prog, sub, argv, optind, c);
        }
    }
    if (optind >= argc)
        return mb_cli_usage(prog, sub, "no run logs given (LOG or DIR...)");
    if (out.json && csv)
        return mb_cli_usage(prog, sub, "--json and --csv: give one");
    if ((hc.plan_seeds > 0) + hc.more_seeds + missing + comm_runs > 1)
        return mb_cli_usage(prog, sub, "--holdout-plan, --more-seeds, --missing and "
                            "--comm-from-runs each print one thing: give one");
    if (!m.have_comm && !m.cfit && !m.have_delta) /* one learner needs no collective model */
        m.have_comm = 1, m.t.comm = MB_COMM_NONE;
    if (model_resolve(&m, &err) != MB_OK)
        return mb_cli_fail(prog, sub, &err);
    if (isnan(target))
        target = m.nf.target_loss;
    if (isnan(target)) {
        mb_error_set(&err, MB_EINVAL, "no target loss: give --target-loss (the --nfit has none)");
        return mb_cli_fail(prog, sub, &err);
    }
    /* the recommendation: scale's 'enough' row, or the P = 1 optimum in range (the fastest of
     * the learning rates given) */
    double m_rec = NAN, p_rec = 1.0, lr_rec = m.nf.lr;
    mb_law laws[MAX_NFIT];
    double lrs[MAX_NFIT];
    const size_t n_laws = model_laws(&m, laws, lrs);
    if (recommend) {
        cJSON *root;
        if (mb_json_read(recommend, &root, &err) != MB_OK)
            return mb_cli_fail(prog, sub, &err);
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(root, "enough");
        int rc = cJSON_IsObject(e) ? MB_OK
                                   : mb_error_set(&err, MB_EFORMAT, "%s: no 'enough' object (is "
                                                  "this mbopt scale --json?)", recommend);
        if (rc == MB_OK && (rc = mb_json_number(e, "m_opt", recommend, &m_rec, &err)) == MB_OK)
            rc = mb_json_number(e, "procs", recommend, &p_rec, &err);
        const cJSON *lr = cJSON_GetObjectItemCaseSensitive(root, "lr");
        if (rc == MB_OK && cJSON_IsNumber(lr))
            lr_rec = lr->valuedouble;
        cJSON_Delete(root);
        for (size_t i = 0; i < m.n_nfit; i++)
            if (m.nfs[i].lr == lr_rec)
                model_select(&m, i);
        if (rc != MB_OK)
            return mb_cli_fail(prog, sub, &err);
    } else {
        double best = INFINITY;
        size_t pick = 0;
        for (size_t i = 0; i < n_laws; i++) {
            mb_solver_optimum_result o;
            model_select(&m, i);
            if (mb_solver_optimum(&m.law, &m.t, 1.0, m.m_lo, m.m_hi, &o, &err) != MB_OK)
                return mb_cli_fail(prog, sub, &err);
            if (o.opt.t_c < best)
                best = o.opt.t_c, m_rec = o.opt.m_opt, pick = i;
        }
        model_select(&m, pick);
        lr_rec = m.nf.lr;
    }
    glob_t g;
    mb_fit_runs runs = {0};
    mb_validate v = {0};
    mb_update_time t_probe;
    mb_solver_tcal_probe(&m.tcal, &m.t, &t_probe);
    int rc = read_runs(argc - optind, argv + optind, target, &g, &runs, &err);
    if (rc == MB_OK && comm_runs) {
        double delta, p, d_model = NAN;
        size_t n;
        /* beyond the probe's compute step: where runs calibrated T_update at P, its table is
         * theirs, communication and all, and the difference would be 0 by construction */
        const mb_update_time *compute = m.tcal.on ? &t_probe : &m.t;
        rc = mb_solver_comm_from_runs(compute, &runs, &delta, &p, &n, &err);
        globfree(&g);
        mb_fit_runs_free(&runs);
        if (rc != MB_OK)
            return mb_cli_fail(prog, sub, &err);
        mb_model_comm_time(&m.t, p, &d_model);
        int own = 0; /* whether P has its own measured step (mbprobe step --learners P) */
        for (size_t k = 0; k < compute->n_by_p; k++)
            own |= compute->by_p[k].p == p;
        char step[96];
        if (own)
            snprintf(step, sizeof step, "the measured step of %g learners side by side", p);
        else
            snprintf(step, sizeof step, "the one-learner step");
        fprintf(stderr, "%s %s: the %zu runs at P = %g cost %.4g s per update beyond %s at "
                "M / %g; the collective model says %.4g s\n", prog, sub, n, p, delta, step, p,
                d_model);
        printf("%.9g\n", delta);
        return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
    }
    if (rc == MB_OK && missing) {
        double want[3], q[2];
        mb_solver_optimum_spread(m.nf.boot, m.nf.n_boot, &m.t, p_rec, m.m_lo, m.m_hi, q);
        size_t n_want = mb_solver_missing(&m.law, &m.t, &runs, m_rec, p_rec, lr_rec, m.m_lo,
                                          m.m_hi, q, want);
        for (size_t k = 0; k < n_want; k++)
            if (isnan(lr_rec))
                printf("%s%.0f", k ? " " : "", want[k]);
            else
                printf("%s%.0f,%.9g", k ? " " : "", want[k], lr_rec);
        printf("\n");
        globfree(&g);
        mb_fit_runs_free(&runs);
        return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
    }
    if (rc == MB_OK)
        rc = mb_solver_validate(laws, lrs, n_laws, &m.t, m.tcal.on ? &t_probe : NULL, &runs,
                                (const char *const *)g.gl_pathv,
                                round(m_rec) > 0 ? m_rec : 1.0, p_rec, lr_rec, &v, &err);
    if (rc == MB_OK)
        mb_solver_settle(laws, lrs, n_laws, &m.t, m.m_lo, m.m_hi, &v);
    if (rc != MB_OK) {
        globfree(&g);
        mb_fit_runs_free(&runs);
        return mb_cli_fail(prog, sub, &err);
    }
    if (rc == MB_OK)
        rc = mb_solver_sequential(&v, p_rec, lr_rec, m.m_lo, m.m_hi, hc.max_seeds, &hc.seq,
                                  &err);
    if (rc == MB_OK && hc.plan_seeds)
        rc = holdout_plan_print(&v, &runs, &m, hc.plan_seeds, &err);
    else if (rc == MB_OK && hc.more_seeds)
        rc = more_seeds_print(&hc, &v, &runs);
    else if (rc == MB_OK && hc.n_dirs)
        rc = holdout_check(&hc, laws, lrs, n_laws, &m.t, &v, &runs, &err);
    if (rc != MB_OK || hc.plan_seeds || hc.more_seeds) {
        holdout_free(&hc);
        mb_validate_free(&v);
        globfree(&g);
        mb_fit_runs_free(&runs);
        if (rc != MB_OK)
            return mb_cli_fail(prog, sub, &err);
        return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
    }
    char in_sample[1536], held[1024], sampling[640];
    in_sample_verdict(in_sample, sizeof in_sample, &m, &v, m_rec, p_rec);
    sampling_line(sampling, sizeof sampling, &v, &hc.seq, hc.max_seeds);
    if (hc.on)
        holdout_verdict(held, sizeof held, &hc);
    else
        snprintf(held, sizeof held, "not held out: no held-out runs were given (--holdout DIR; "
                 "plan them with --holdout-plan N); the in-sample line above grades the answer "
                 "on the runs that chose it, which is no check");
    if (out.json) {
        rc = emit_json(sub, validate_json(&m, &v, &hc, in_sample, held, sampling), &out);
    } else {
        mb_out o;
        rc = mb_out_open(&o, out.output, &err);
        if (rc == MB_OK) {
            if (csv)
                validate_csv(o.f, &v);
            else
                validate_print(o.f, &m, &v, &hc, in_sample, held, sampling);
            rc = mb_out_commit(&o, &err);
        }
        rc = rc == MB_OK ? 0 : mb_cli_fail(prog, sub, &err);
    }
    holdout_free(&hc);
    mb_validate_free(&v);
    mb_fit_runs_free(&runs);
    globfree(&g);
    return rc;
}

/* ---- mbopt mem and mbopt conv: the memory model and the convolution ILP ----------------------- */

enum { OPT_NET = 512, OPT_MEM, OPT_BATCH, OPT_PROBE, OPT_GRAD_COPIES, OPT_STATE_COPIES,
       OPT_WORKSPACE, OPT_WS_LIMIT, OPT_MICRO, OPT_BACKEND, OPT_CONV_LAW };

static double mib(double b) { return b / (1024.0 * 1024.0); }

static void mem_help(void)
{
    mb_mem_options d;
    mb_model_mem_defaults(&d);
    printf("Usage: mbopt mem --net NAME|FILE --mem SIZE [--batch LIST]\n"
           "The memory a network holds on one device while it trains (Zou et al. 2017,\n"
           "eq. 1-5): parameters, gradients, optimiser state, the input and the feature maps\n"
           "kept for the backward pass, and the largest convolution workspace (the explicit-\n"
           "GEMM lowering, in_c k^2 out_h out_w values per sample); per layer, then in total\n"
           "for each M, with M_bound = device - model (the memory left for workspaces) and\n"
           "the largest M that fits.\n\n"
           "      --net NAME|FILE     network description (data/nets/NAME.cfg)\n"
           "      --mem SIZE          device memory, K/M/G = 2^10/2^20/2^30 (e.g. 12G)\n"
           "      --batch LIST        mini-batch sizes: lo:hi (doubling) or a list (default 1:256)\n"
           "      --grad-copies N     gradient blocks per parameter (default %g; Zou et al. 2)\n"
           "      --state-copies N    optimiser state per parameter: 0 SGD, 1 momentum, 2 Adam\n"
           "                          (default %g)\n"
           "      --json              write JSON\n"
           "  -o, --output FILE       write to FILE instead of standard output\n"
           "  -h, --help              show this help and exit\n\n"
           "Example:\n"
           "  mbopt mem --net alexnet --mem 12G --batch 64,128,256\n",
           d.grad_copies, d.state_copies);
}

static const char *mem_kind_name(mb_mem_kind k)
{
    static const char *const n[] = {"conv", "pool", "fc", "inplace"};
    return (int)k >= 0 && (int)k <= 3 ? n[k] : "?";
}

/* Options shared by mem and conv: the net, the device, the batches, the memory model. */
typedef struct mem_cli {
    const char *net;
    double device;          /* bytes, NAN until --mem */
    mb_range batch;
    mb_mem_options mem;
} mem_cli;

static int mem_option(mem_cli *m, int c, const char *arg, mb_error *err)
{
    switch (c) {
    case OPT_NET: m->net = arg; return 1;
    case OPT_MEM:
        return mb_data_flag_double("--mem", arg, 1, MB_POSITIVE, &m->device, err) ? -1 : 1;
    case OPT_BATCH:
        mb_data_range_free(&m->batch);
        return mb_data_parse_range(arg, "--batch", &m->batch, err) ? -1 : 1;
    case OPT_GRAD_COPIES:
        return mb_data_flag_double("--grad-copies", arg, 0, MB_NONNEG, &m->mem.grad_copies, err)
                   ? -1 : 1;
    case OPT_STATE_COPIES:
        return mb_data_flag_double("--state-copies", arg, 0, MB_NONNEG, &m->mem.state_copies,
                                   err) ? -1 : 1;
    default: return 0;
    }
}

#define MEM_LONGOPTS                                                                              \
    {"net", required_argument, 0, OPT_NET}, {"mem", required_argument, 0, OPT_MEM},              \
        {"batch", required_argument, 0, OPT_BATCH},                                               \
        {"grad-copies", required_argument, 0, OPT_GRAD_COPIES},                                   \
        {"state-copies", required_argument, 0, OPT_STATE_COPIES}

/* Whole batch sizes >= 1 only: M counts samples. */
static int whole_batches(const mb_range *r, mb_error *err)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->v[i] != floor(r->v[i]) || r->v[i] > 1 << 30)
            return mb_error_set(err, MB_EINVAL, "--batch: %g is not a whole number of samples",
                                r->v[i]);
    return MB_OK;
}

static cJSON *mem_json(const mb_net_desc *d, const mb_mem_layer *ml, const mem_cli *m,
                       const mb_mem_total *tot, const double *bound, double mmax)
{
    cJSON *j = cJSON_CreateObject(), *layers = cJSON_AddArrayToObject(j, "layers");
    cJSON_AddStringToObject(j, "net", d->name);
    mb_json_add_number(j, "device_bytes", m->device);
    mb_json_add_number(j, "grad_copies", m->mem.grad_copies);
    mb_json_add_number(j, "state_copies", m->mem.state_copies);
    mb_json_add_number(j, "m_max", mmax);
    for (size_t i = 0; i < d->n_layers; i++) {
        mb_mem_bytes b;
        if (mb_model_mem_layer(&ml[i], 1, &m->mem, &b) != MB_OK)
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "layer", d->layers[i].name);
        cJSON_AddStringToObject(o, "kind", mem_kind_name(ml[i].kind));
        mb_json_add_number(o, "param_bytes", b.params);
        mb_json_add_number(o, "fmap_bytes_per_sample", b.fmap);
        mb_json_add_number(o, "workspace_bytes_per_sample", b.workspace);
        cJSON_AddItemToArray(layers, o);
    }
    cJSON *rows = cJSON_AddArrayToObject(j, "batches");
    for (size_t i = 0; i < m->batch.n; i++) {
        const mb_mem_total *t = &tot[i];
        cJSON *o = cJSON_CreateObject();
        mb_json_add_number(o, "batch", m->batch.v[i]);
        mb_json_add_number(o, "params", t->params);
        mb_json_add_number(o, "grads", t->grads);
        mb_json_add_number(o, "state", t->state);
        mb_json_add_number(o, "input", t->input);
        mb_json_add_number(o, "fmaps", t->fmaps);
        mb_json_add_number(o, "workspace", t->workspace);
        cJSON_AddStringToObject(o, "workspace_layer", d->layers[t->ws_layer].name);
        mb_json_add_number(o, "total", t->total);
        mb_json_add_number(o, "m_bound", bound[i]);
        cJSON_AddBoolToObject(o, "fits", t->total <= m->device);
        cJSON_AddItemToArray(rows, o);
    }
    return j;
}

static void mem_print(FILE *f, const mb_net_desc *d, const mb_mem_layer *ml, const mem_cli *m,
                      const mb_mem_total *tot, const double *bound, double mmax)
{
    fprintf(f, "# net %s; device %.1f MiB; float32; gradients x%g, optimiser state x%g "
            "(Zou et al. 2017, eq. 1-5)\n", d->name, mib(m->device), m->mem.grad_copies,
            m->mem.state_copies);
    fprintf(f, "%-16s %-7s %-14s %12s %14s %16s\n", "layer", "kind", "output", "params_MiB",
            "fmap_KiB/sample", "gemm_ws_KiB/sample");
    for (size_t i = 0; i < d->n_layers; i++) {
        mb_mem_bytes b;
        if (ml[i].kind == MB_MEM_ELEMENTWISE || mb_model_mem_layer(&ml[i], 1, &m->mem, &b))
            continue;
        char shape[48];
        snprintf(shape, sizeof shape, "%dx%dx%d", ml[i].out_c, ml[i].out_h, ml[i].out_w);
        fprintf(f, "%-16s %-7s %-14s %12.3f %14.1f %16.1f\n", d->layers[i].name,
                mem_kind_name(ml[i].kind), shape, mib(b.params), b.fmap / 1024,
                b.workspace / 1024);
    }
    fprintf(f, "\n%-7s %10s %10s %10s %10s %10s %10s %-10s %10s %12s\n", "M", "params", "grads",
            "state", "input", "fmaps", "workspace", "(layer)", "total", "M_bound");
    for (size_t i = 0; i < m->batch.n; i++) {
        const mb_mem_total *t = &tot[i];
        fprintf(f, "%-7g %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f %-10s %10.1f %12.1f%s\n",
                m->batch.v[i], mib(t->params), mib(t->grads), mib(t->state), mib(t->input),
                mib(t->fmaps), mib(t->workspace), d->layers[t->ws_layer].name, mib(t->total),
                mib(bound[i]), t->total > m->device ? "  does not fit" : "");
    }
    fprintf(f, "(MiB; M_bound = device - everything but the workspace, Zou eq. 5)\n");
    if (mmax >= 1)
        fprintf(f, "largest M that fits %.1f MiB with the GEMM workspace: %.0f\n", mib(m->device),
                mmax);
    else
        fprintf(f, "even M = 1 does not fit %.1f MiB\n", mib(m->device));
}

static int cmd_mem(int argc, char **argv)
{
    const char *sub = "mem";
    static const struct option lo[] = {MEM_LONGOPTS,
                                       {"json", no_argument, 0, OPT_JSON},
                                       {"output", required_argument, 0, 'o'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
    mem_cli m = {.device = NAN};
    mb_model_mem_defaults(&m.mem);
    out_opts out = {0, "-"};
    mb_error err = {0};
    int c, status = 1;
    while ((c = getopt_long(argc, argv, ":ho:", lo, NULL)) != -1) {
        int r = mem_option(&m, c, optarg, &err);
        if (r < 0) {
            mb_data_range_free(&m.batch);
            return mb_cli_fail(prog, sub, &err);
        }
        if (r > 0)
            continue;
        switch (c) {
        case OPT_JSON: out.json = 1; break;
        case 'o': out.output = optarg; break;
        case 'h': mem_help(); mb_data_range_free(&m.batch); return 0;
        default: mb_data_range_free(&m.batch); return mb_cli_bad_option(prog, sub, argv, optind, c);
        }
    }
    int usage = optind < argc ? 1 : !m.net ? 2 : isnan(m.device) ? 3 : 0;
    if (usage) {
        mb_data_range_free(&m.batch);
        return usage == 1 ? mb_cli_usage(prog, sub, "unexpected argument '%s'", argv[optind])
               : usage == 2 ? mb_cli_usage(prog, sub, "missing --net")
                            : mb_cli_usage(prog, sub, "missing --mem");
    }
    mb_net_desc *d = NULL;
    mb_mem_layer *ml = NULL;
    mb_mem_total *tot = NULL;
    double *bound = NULL, mmax = 0;
    if ((!m.batch.n && mb_data_parse_range("1:256", "--batch", &m.batch, &err) != MB_OK) ||
        whole_batches(&m.batch, &err) != MB_OK || mb_net_desc_read(m.net, &d, &err) != MB_OK) {
        mb_cli_fail(prog, sub, &err);
        goto done;
    }
    ml = calloc(d->n_layers, sizeof *ml);
    tot = calloc(m.batch.n, sizeof *tot);
    bound = calloc(m.batch.n, sizeof *bound);
    if (!ml || !tot || !bound) {
        fprintf(stderr, "%s %s: out of memory\n", prog, sub);
        goto done;
    }
    mb_solver_mem_layers(d, ml);
    for (size_t i = 0; i < m.batch.n; i++)
        if (mb_model_mem(ml, d->n_layers, m.batch.v[i], &m.mem, &tot[i]) != MB_OK ||
            mb_model_mem_bound(ml, d->n_layers, m.batch.v[i], &m.mem, m.device, &bound[i])) {
            mb_error_set(&err, MB_EDOM, "net '%s': the memory model cannot be evaluated", d->name);
            mb_cli_fail(prog, sub, &err);
            goto done;
        }
    mb_model_mem_max_batch(ml, d->n_layers, &m.mem, m.device, &mmax);
    if (out.json) {
        status = emit_json(sub, mem_json(d, ml, &m, tot, bound, mmax), &out);
        goto done;
    }
    mb_out o;
    if (mb_out_open(&o, out.output, &err) != MB_OK) {
        mb_cli_fail(prog, sub, &err);
        goto done;
    }
    mem_print(o.f, d, ml, &m, tot, bound, mmax);
    status = mb_out_commit(&o, &err) == MB_OK ? 0 : mb_cli_fail(prog, sub, &err);
done:
    free(ml), free(tot), free(bound);
    mb_net_desc_free(d);
    mb_data_range_free(&m.batch);
    return status;
}

static void conv_help(void)
{
    printf("Usage: mbopt conv --net NAME|FILE --probe CONV.csv --mem SIZE --batch LIST\n"
           "                  [--nfit N.json] [OPTION]...\n"
           "Chooses one convolution algorithm per layer and pass for every mini-batch size M:\n"
           "the integer program of Zou et al. 2017 (eq. 6) solved with GLPK, minimising the\n"
           "summed time of the probe table (mbprobe conv) subject to the chosen workspace\n"
           "fitting in the memory the model leaves at M (M_bound, eq. 5; see mbopt mem).\n"
           "Prints the time per update, the memory used and where the choice changes as M\n"
           "grows; with --nfit, the M that minimises T_C = N_update(M) x T_update(M) against\n"
           "the M that maximises samples per second.\n\n"
           "      --net NAME|FILE     network description (data/nets/NAME.cfg)\n"
           "      --probe FILE        convolution table: layer,algo,pass,batch,t_median_s,\n"
           "                          workspace_bytes (optional status and backend columns)\n"
           "      --mem SIZE          device memory, K/M/G = 2^10/2^20/2^30\n"
           "      --batch LIST        mini-batch sizes: lo:hi (doubling) or a list\n"
           "      --nfit FILE         N_update fit from 'mbfit nupdate --json'\n"
           "      --law NAME          optimise this law of --nfit: inverse-law, power-law\n"
           "      --workspace MODE    shared (default): one buffer for all layers, W = max of\n"
           "                          the choices, as frameworks allocate it; sum: each layer\n"
           "                          its own (Zou et al.'s eq. 6)\n"
           "      --ws-limit SIZE     per-layer workspace limit (as cuDNN's workspace limit)\n"
           "      --micro-batch       also split M into micro-batches of the table's batch\n"
           "                          sizes that divide it (mu-cuDNN): time M/m x t(m),\n"
           "                          workspace of m\n"
           "      --backend NAME      the table's rows for this backend (when it has several)\n"
           "      --grad-copies N     gradient blocks per parameter (default 1)\n"
           "      --state-copies N    optimiser state per parameter (default 1: momentum)\n"
           "      --json              write JSON (every M's choice)\n"
           "  -o, --output FILE       write to FILE instead of standard output\n"
           "  -h, --help              show this help and exit\n\n"
           "T_update here is the convolutions' time (forward and both backward passes), not\n"
           "the whole step's: pooling, fully connected layers and the optimiser are not in\n"
           "the table.\n\n"
           "Example:\n"
           "  mbprobe conv --net alexnet --batch 2,4,8 -o conv.csv\n"
           "  mbopt conv --net alexnet --probe conv.csv --mem 12G --batch 2,4,8\n");
}

/* "conv1 forward gemm" or with a micro-batch "conv1 forward gemm/4". */
static const char *pick_label(char *buf, size_t n, const mb_cilp_pick *p, double m)
{
    if (p->micro < m)
        snprintf(buf, n, "%s/%d", p->algo, p->micro);
    else
        snprintf(buf, n, "%s", p->algo);
    return buf;
}

static int pick_same(const mb_cilp_pick *a, const mb_cilp_pick *b, double ma, double mb)
{
    return strcmp(a->algo, b->algo) == 0 && (a->micro < ma) == (b->micro < mb) &&
           (a->micro >= ma || a->micro == b->micro);
}

static cJSON *conv_json(const mb_net_desc *d, const char *probe, const mb_cilp_options *o,
                        const mb_cilp_point *res, size_t nm, const double *tc, long best_tc,
                        long best_rate, const char *nfit, const mb_law *law)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "net", d->name);
    cJSON_AddStringToObject(j, "probe", probe);
    mb_json_add_number(j, "device_bytes", o->device_bytes);
    cJSON_AddStringToObject(j, "workspace", mb_solver_ws_mode_name(o->mode));
    mb_json_add_number(j, "ws_limit", o->ws_limit);
    cJSON_AddBoolToObject(j, "micro_batch", o->micro);
    if (nfit) {
        cJSON_AddStringToObject(j, "nfit", nfit);
        cJSON_AddStringToObject(j, "law", mb_model_law_name(law->kind));
    }
    cJSON *rows = cJSON_AddArrayToObject(j, "batches");
    for (size_t i = 0; i < nm; i++) {
        const mb_cilp_point *p = &res[i];
        cJSON *r = cJSON_CreateObject();
        mb_json_add_number(r, "batch", p->m);
        cJSON_AddBoolToObject(r, "feasible", p->feasible);
        mb_json_add_number(r, "t_update", p->t_update);
        mb_json_add_number(r, "samples_per_s", p->samples_per_s);
        mb_json_add_number(r, "workspace_bytes", p->ws);
        mb_json_add_number(r, "model_bytes", p->model_bytes);
        mb_json_add_number(r, "mem_used", p->mem_used);
        mb_json_add_number(r, "m_bound", p->avail);
        if (nfit)
            mb_json_add_number(r, "t_c", tc[i]);
        if (!p->feasible)
            cJSON_AddStringToObject(r, "why", p->why);
        cJSON *picks = cJSON_AddArrayToObject(r, "choice");
        for (size_t k = 0; k < p->n_picks; k++) {
            cJSON *q = cJSON_CreateObject();
            cJSON_AddStringToObject(q, "layer", p->picks[k].layer);
            cJSON_AddStringToObject(q, "pass", p->picks[k].pass);
            cJSON_AddStringToObject(q, "algo", p->picks[k].algo);
            mb_json_add_number(q, "micro_batch", p->picks[k].micro);
            mb_json_add_number(q, "t", p->picks[k].t);
            mb_json_add_number(q, "workspace_bytes", p->picks[k].ws);
            cJSON_AddItemToArray(picks, q);
        }
        cJSON_AddItemToArray(rows, r);
    }
    if (best_rate >= 0)
        mb_json_add_number(j, "m_fastest", res[best_rate].m);
    if (best_tc >= 0) {
        mb_json_add_number(j, "m_opt", res[best_tc].m);
        mb_json_add_number(j, "t_c", tc[best_tc]);
        mb_json_add_number(j, "t_c_at_fastest", tc[best_rate]);
    }
    return j;
}

static void conv_print(FILE *f, const mb_net_desc *d, const char *probe, const char *backend,
                       const mb_cilp_options *o, const mb_cilp_point *res, size_t nm,
                       const double *tc, long best_tc, long best_rate, const char *nfit,
                       const mb_law *law)
{
    char lim[32] = "none";
    if (isfinite(o->ws_limit))
        snprintf(lim, sizeof lim, "%.1f MiB", mib(o->ws_limit));
    fprintf(f, "# net %s; table %s%s%s; device %.1f MiB; workspace %s; per-layer limit %s; "
            "micro-batches %s\n", d->name, probe, *backend ? ", backend " : "", backend,
            mib(o->device_bytes), mb_solver_ws_mode_name(o->mode), lim, o->micro ? "on" : "off");
    if (nfit)
        fprintf(f, "# N_update(M): %s of %s\n", mb_model_law_name(law->kind), nfit);
    fprintf(f, "%-7s %12s %12s %12s %12s %12s", "M", "t_update_s", "samples/s", "workspace",
            "memory", "M_bound");
    if (nfit)
        fprintf(f, " %12s %12s", "n_update", "t_c_s");
    fprintf(f, "\n");
    for (size_t i = 0; i < nm; i++) {
        const mb_cilp_point *p = &res[i];
        if (!p->feasible) {
            fprintf(f, "%-7g infeasible: %s\n", p->m, p->why);
            continue;
        }
        fprintf(f, "%-7g %12.6g %12.6g %8.1f MiB %8.1f MiB %8.1f MiB", p->m, p->t_update,
                p->samples_per_s, mib(p->ws), mib(p->mem_used), mib(p->avail));
        if (nfit)
            fprintf(f, " %12.6g %12.6g", isnan(tc[i]) ? NAN : tc[i] / p->t_update, tc[i]);
        fprintf(f, "\n");
    }
    long first = -1;
    for (size_t i = 0; i < nm && first < 0; i++)
        if (res[i].feasible)
            first = (long)i;
    if (first < 0)
        return;
    const mb_cilp_point *p0 = &res[first];
    char a[96];
    fprintf(f, "\nchoice at M = %g:\n", p0->m);
    for (size_t k = 0; k < p0->n_picks; k++)
        fprintf(f, "  %-18s %-16s %-22s %10.4g s %10.1f MiB\n", p0->picks[k].layer,
                p0->picks[k].pass, pick_label(a, sizeof a, &p0->picks[k], p0->m), p0->picks[k].t,
                mib(p0->picks[k].ws));
    const mb_cilp_point *prev = p0;
    size_t changes = 0;
    for (size_t i = (size_t)first + 1; i < nm; i++) {
        const mb_cilp_point *p = &res[i];
        if (!p->feasible || p->n_picks != prev->n_picks)
            continue;
        for (size_t k = 0; k < p->n_picks; k++) {
            if (pick_same(&prev->picks[k], &p->picks[k], prev->m, p->m))
                continue;
            char b[96];
            if (!changes++)
                fprintf(f, "\nwhere the choice changes as M grows:\n");
            fprintf(f, "  M %g -> %g: %s %s %s -> %s\n", prev->m, p->m, p->picks[k].layer,
                    p->picks[k].pass, pick_label(a, sizeof a, &prev->picks[k], prev->m),
                    pick_label(b, sizeof b, &p->picks[k], p->m));
        }
        prev = p;
    }
    if (!changes)
        fprintf(f, "\nthe choice is the same at every feasible M\n");
    fprintf(f, "\nfastest per sample: M = %g (%.6g samples/s)\n", res[best_rate].m,
            res[best_rate].samples_per_s);
    if (nfit && best_tc >= 0) {
        fprintf(f, "least time to converge: M = %g, T_C = %.6g s (N_update %.6g x T_update "
                "%.6g s)\n", res[best_tc].m, tc[best_tc], tc[best_tc] / res[best_tc].t_update,
                res[best_tc].t_update);
        if (best_tc != best_rate && !isnan(tc[best_rate]))
            fprintf(f, "the fastest-per-sample M = %g would take T_C = %.6g s, %.2fx as long\n",
                    res[best_rate].m, tc[best_rate], tc[best_rate] / tc[best_tc]);
        else if (best_tc == best_rate)
            fprintf(f, "the two agree here\n");
    }
}

static int cmd_conv(int argc, char **argv)
{
    const char *sub = "conv";
    static const struct option lo[] = {MEM_LONGOPTS,
                                       {"probe", required_argument, 0, OPT_PROBE},
                                       {"nfit", required_argument, 0, OPT_NFIT},
                                       {"law", required_argument, 0, OPT_CONV_LAW},
                                       {"workspace", required_argument, 0, OPT_WORKSPACE},
                                       {"ws-limit", required_argument, 0, OPT_WS_LIMIT},
                                       {"micro-batch", no_argument, 0, OPT_MICRO},
                                       {"backend", required_argument, 0, OPT_BACKEND},
                                       {"json", no_argument, 0, OPT_JSON},
                                       {"output", required_argument, 0, 'o'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
    mem_cli m = {.device = NAN};
    mb_cilp_options co;
    mb_solver_conv_defaults(&co);
    m.mem = co.mem;
    const char *probe = NULL, *nfit = NULL, *law_name = NULL, *backend = NULL;
    out_opts out = {0, "-"};
    mb_error err = {0};
    int c, status = 1;
    while ((c = getopt_long(argc, argv, ":ho:", lo, NULL)) != -1) {
        int r = mem_option(&m, c, optarg, &err), rc = MB_OK;
        if (r < 0) {
            mb_data_range_free(&m.batch);
            return mb_cli_fail(prog, sub, &err);
        }
        if (r > 0)
            continue;
        switch (c) {
        case OPT_PROBE: probe = optarg; break;
        case OPT_NFIT: nfit = optarg; break;
        case OPT_CONV_LAW: law_name = optarg; break;
        case OPT_BACKEND: backend = optarg; break;
        case OPT_MICRO: co.micro = 1; break;
        case OPT_WORKSPACE:
            if (mb_solver_ws_mode_parse(optarg, &co.mode) != MB_OK)
                rc = mb_error_set(&err, MB_EINVAL, "--workspace: '%s' is not shared or sum",
                                  optarg);
            break;
        case OPT_WS_LIMIT:
            rc = mb_data_flag_double("--ws-limit", optarg, 1, MB_NONNEG, &co.ws_limit, &err);
            break;
        case OPT_JSON: out.json = 1; break;
        case 'o': out.output = optarg; break;
        case 'h': conv_help(); mb_data_range_free(&m.batch); return 0;
        default: mb_data_range_free(&m.batch); return mb_cli_bad_option(prog, sub, argv, optind, c);
        }
        if (rc != MB_OK) {
            mb_data_range_free(&m.batch);
            return mb_cli_fail(prog, sub, &err);
        }
    }
    const char *missing = !m.net ? "--net" : !probe ? "--probe" : isnan(m.device) ? "--mem"
                          : !m.batch.n ? "--batch" : NULL;
    if (optind < argc || missing) {
        mb_data_range_free(&m.batch);
        return optind < argc ? mb_cli_usage(prog, sub, "unexpected argument '%s'", argv[optind])
                             : mb_cli_usage(prog, sub, "missing %s", missing);
    }
    co.mem = m.mem;
    co.device_bytes = m.device;
    mb_net_desc *d = NULL;
    mb_cilp_table *t = NULL;
    mb_cilp_point *res = NULL;
    double *tc = NULL;
    mb_solver_nfit nf;
    long best_tc = -1, best_rate = -1;
    size_t nm = m.batch.n;
    if (whole_batches(&m.batch, &err) != MB_OK || mb_net_desc_read(m.net, &d, &err) != MB_OK ||
        mb_solver_conv_read(probe, backend, &t, &err) != MB_OK ||
        (nfit && mb_solver_read_nfit(nfit, law_name, &nf, &err) != MB_OK)) {
        mb_cli_fail(prog, sub, &err);
        goto done;
    }
    res = calloc(nm, sizeof *res);
    tc = calloc(nm, sizeof *tc);
    if (!res || !tc) {
        fprintf(stderr, "%s %s: out of memory\n", prog, sub);
        goto done;
    }
    if (mb_solver_conv_sweep(d, t, m.batch.v, nm, &co, res, &err) != MB_OK) {
        mb_cli_fail(prog, sub, &err);
        goto done;
    }
    mb_solver_conv_tc(nfit ? &nf.law : NULL, res, nm, tc, &best_tc, &best_rate);
    if (best_rate < 0) {
        mb_error_set(&err, MB_ENODATA, "no M of --batch fits %.1f MiB: at M = %g, %s",
                     mib(m.device), res[0].m, res[0].why);
        mb_cli_fail(prog, sub, &err);
        goto done;
    }
    if (out.json) {
        status = emit_json(sub, conv_json(d, probe, &co, res, nm, tc, best_tc, best_rate, nfit,
                                          nfit ? &nf.law : NULL), &out);
        goto done;
    }
    mb_out o;
    if (mb_out_open(&o, out.output, &err) != MB_OK) {
        mb_cli_fail(prog, sub, &err);
        goto done;
    }
    conv_print(o.f, d, probe, mb_solver_conv_backend(t), &co, res, nm, tc, best_tc, best_rate,
               nfit, nfit ? &nf.law : NULL);
    status = mb_out_commit(&o, &err) == MB_OK ? 0 : mb_cli_fail(prog, sub, &err);
done:
    mb_solver_conv_results_free(res, nm);
    free(res), free(tc);
    mb_solver_conv_free(t);
    mb_net_desc_free(d);
    mb_data_range_free(&m.batch);
    return status;
}

static int run_command(int argc, char **argv)
{
    if (argc < 2)
        return mb_cli_usage(prog, NULL, "missing command (scale, validate, amdahl, ps, design, mem, conv)");
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
        help();
        return 0;
    }
    if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
        printf("mbopt (mbkit) %s\n", mb_version());
        return 0;
    }
    opterr = 0;
    if (strcmp(cmd, "scale") == 0) return cmd_scale(argc - 1, argv + 1);
    if (strcmp(cmd, "amdahl") == 0) return cmd_amdahl(argc - 1, argv + 1);
    if (strcmp(cmd, "ps") == 0) return cmd_ps(argc - 1, argv + 1);
    if (strcmp(cmd, "design") == 0) return cmd_design(argc - 1, argv + 1);
    if (strcmp(cmd, "validate") == 0) return cmd_validate(argc - 1, argv + 1);
    if (strcmp(cmd, "mem") == 0) return cmd_mem(argc - 1, argv + 1);
    if (strcmp(cmd, "conv") == 0) return cmd_conv(argc - 1, argv + 1);
    return mb_cli_usage(prog, NULL, "unknown command '%s'", cmd);
}

int main(int argc, char **argv)
{
    return mb_cli_exit(run_command(argc, argv));
}
