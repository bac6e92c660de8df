/* mbopt.c — the `mbopt` command: recommendations from the models.
 *
 *   mbopt scale   M_opt, T_C and speed-up per learner count under optimal, strong, weak scaling
 *   mbopt amdahl  Amdahl efficiency on G devices and its inversions (Zou et al., Lemma 3.1)
 *   mbopt ps      parameter servers needed to hide push and pull (Zou et al., Lemma 3.2)
 *   mbopt design  the budget split between learners and bandwidth (Perrone et al., eq. 11-12)
 *
 * Thin: parse options, call solver/ and model/, print a table or JSON. Usage errors exit 2, bad
 * values or files exit 1 with one line naming the flag or file.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mb_solver.h"

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

typedef struct model_opts {
    mb_inverse_law law;
    mb_update_time t;
    const char *nfit, *tfit, *cfit;
    int have_n_inf, have_alpha, have_gamma, have_m_t, have_delta, have_comm, have_latency,
        have_spb;
} model_opts;

enum {
    OPT_N_INF = 256, OPT_ALPHA, OPT_GAMMA, OPT_M_T, OPT_DELTA, OPT_COMM, OPT_NFIT, OPT_TFIT,
    OPT_CFIT, OPT_LATENCY, OPT_SPB, OPT_BYTES, OPT_PROCS, OPT_M_STRONG, OPT_M_WEAK, OPT_JSON,
    OPT_BUDGET, OPT_PRICE_L, OPT_PRICE_B, OPT_BW_REF, OPT_OVERHEAD, OPT_GPUS, OPT_SPEEDUP,
    OPT_EFF, OPT_COMPUTE, OPT_WORKERS, OPT_BW, OPT_PARAM_BYTES
};

#define MODEL_LONGOPTS                                                                            \
    {"n-inf", required_argument, 0, OPT_N_INF}, {"alpha", required_argument, 0, OPT_ALPHA},      \
        {"gamma", required_argument, 0, OPT_GAMMA}, {"m-t", required_argument, 0, OPT_M_T},     \
        {"delta", required_argument, 0, OPT_DELTA}, {"comm", required_argument, 0, OPT_COMM},    \
        {"nfit", required_argument, 0, OPT_NFIT}, {"tfit", required_argument, 0, OPT_TFIT},     \
        {"cfit", required_argument, 0, OPT_CFIT}, {"latency", required_argument, 0, OPT_LATENCY}, \
        {"s-per-byte", required_argument, 0, OPT_SPB}, {"bytes", required_argument, 0, OPT_BYTES}

#define MODEL_HELP                                                                                \
    "Model (flags override values read from files):\n"                                            \
    "      --nfit FILE       inverse-law fit from 'mbfit nupdate --json' (n_inf, alpha)\n"        \
    "      --tfit FILE       update-time fit from 'mbfit tupdate --json' (gamma, m_t, delta)\n"   \
    "      --cfit FILE       collective fit from 'mbfit comm --json' (latency_s, s_per_byte)\n"   \
    "      --n-inf N         updates needed with exact gradients, N_inf > 0\n"                    \
    "      --alpha A         noise sensitivity (updates x samples), >= 0\n"                       \
    "      --gamma S         seconds per sample above the knee, > 0\n"                            \
    "      --m-t M           the knee M_T in samples, > 0\n"                                      \
    "      --comm FORM       Delta(P): none, allreduce (delta), ps (delta*P), alpha-beta\n"       \
    "                        (ring allreduce of --bytes with --latency and --s-per-byte);\n"      \
    "                        default allreduce, or alpha-beta when --cfit is given\n"             \
    "      --delta S         communication seconds per update (allreduce, ps), >= 0\n"            \
    "      --latency S       seconds per message (alpha-beta)\n"                                  \
    "      --s-per-byte S    seconds per byte (alpha-beta)\n"                                     \
    "      --bytes SIZE      bytes exchanged per update, K/M/G = 2^10/2^20/2^30 (alpha-beta)\n"

/* Handles one model option; returns 1 if `c` was one, -1 on a bad value (err filled), 0 if not
 * a model option. */
static int model_option(model_opts *m, int c, const char *arg, mb_error *err)
{
    int rc = MB_OK;
    switch (c) {
    case OPT_N_INF: rc = mb_data_flag_double("--n-inf", arg, 0, MB_POSITIVE, &m->law.n_inf, err);
        m->have_n_inf = 1; break;
    case OPT_ALPHA: rc = mb_data_flag_double("--alpha", arg, 0, MB_NONNEG, &m->law.alpha, err);
        m->have_alpha = 1; break;
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
    case OPT_NFIT: m->nfit = arg; break;
    case OPT_TFIT: m->tfit = arg; break;
    case OPT_CFIT: m->cfit = arg; break;
    default: return 0;
    }
    return rc == MB_OK ? 1 : -1;
}

/* Reads the fit files, then re-applies the flags given on the command line (they win), and
 * checks that every parameter the model needs is known. */
static int model_resolve(model_opts *m, mb_error *err)
{
    model_opts flags = *m;
    int rc;
    if (m->nfit && (rc = mb_solver_read_nfit(m->nfit, &m->law, err)) != MB_OK)
        return rc;
    int file_delta = 0;
    if (m->tfit && (rc = mb_solver_read_tfit(m->tfit, &m->t, &file_delta, err)) != MB_OK)
        return rc;
    if (m->cfit && (rc = mb_solver_read_cfit(m->cfit, &m->t, err)) != MB_OK)
        return rc;
    if (flags.have_n_inf) m->law.n_inf = flags.law.n_inf;
    if (flags.have_alpha) m->law.alpha = flags.law.alpha;
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
        return mb_error_set(err, MB_EINVAL, "delta unknown: give --delta (or a --tfit with delta)");
    if (m->t.comm == MB_COMM_ALPHA_BETA && !m->cfit && !(flags.have_latency && flags.have_spb))
        return mb_error_set(err, MB_EINVAL,
                            "alpha-beta needs --cfit or both --latency and --s-per-byte");
    return mb_solver_check_models(&m->law, &m->t, err);
}

static cJSON *model_json(const model_opts *m)
{
    cJSON *j = cJSON_CreateObject();
    if (!j)
        return NULL;
    mb_json_add_number(j, "n_inf", m->law.n_inf);
    mb_json_add_number(j, "alpha", m->law.alpha);
    mb_json_add_number(j, "gamma", m->t.gamma);
    mb_json_add_number(j, "m_t", m->t.m_t);
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
    fprintf(f, "# N_update(M) = %.6g + %.6g / M\n", m->law.n_inf, m->law.alpha);
    fprintf(f, "# T_update(M,P) = %.6g s * max(M/P, %.6g) + Delta(P), Delta: ", m->t.gamma,
            m->t.m_t);
    switch (m->t.comm) {
    case MB_COMM_NONE: fprintf(f, "none\n"); break;
    case MB_COMM_ALLREDUCE: fprintf(f, "allreduce, %.6g s for P > 1\n", m->t.delta); break;
    case MB_COMM_PS: fprintf(f, "parameter server, %.6g s * P\n", m->t.delta); break;
    case MB_COMM_ALPHA_BETA:
        fprintf(f, "ring allreduce of %.6g bytes, %.6g s/message, %.6g s/byte\n", m->t.bytes,
                m->t.latency_s, m->t.s_per_byte);
        break;
    }
}

/* ---- mbopt scale ------------------------------------------------------------------------------ */

static void scale_help(void)
{
    printf("Usage: mbopt scale [OPTION]...\n"
           "For each learner count P, the mini-batch size M that trains soonest and the time to\n"
           "converge T_C = N_update(M) * T_update(M,P) under optimal scaling (M re-optimised for\n"
           "each P, Perrone et al. 2019 eq. 9-10), strong scaling (total M fixed) and weak\n"
           "scaling (M per learner fixed), with speed-up and efficiency against P = 1.\n\n"
           "%s"
           "Scaling:\n"
           "      --procs LIST      learner counts: lo:hi (powers of two) or a comma list\n"
           "                        (default 1:1024)\n"
           "      --m-strong M      total mini-batch for strong scaling (default M_T)\n"
           "      --m-weak M        mini-batch per learner for weak scaling (default M_T)\n"
           "Output:\n"
           "      --json            write JSON instead of a table\n"
           "  -o, --output FILE     write to FILE (atomically) instead of standard output\n"
           "  -h, --help            show this help and exit\n\n"
           "Example:\n"
           "  mbopt scale --n-inf 1200 --alpha 3.5e5 --gamma 2e-5 --m-t 32 --delta 0.004\n"
           "  mbopt scale --nfit n.json --tfit t.json --procs 1:1024 --json\n",
           MODEL_HELP);
}

/* "Enough" learners: the fewest within this fraction of the best time. */
#define ENOUGH_SLACK 0.10

static cJSON *row_summary(const mb_scale_row *r)
{
    cJSON *b = cJSON_CreateObject();
    if (b) {
        mb_json_add_number(b, "procs", r->procs);
        mb_json_add_number(b, "m_opt", r->opt.m_opt);
        mb_json_add_number(b, "t_c", r->opt.t_c);
        mb_json_add_number(b, "speedup", r->speedup_opt);
        mb_json_add_number(b, "efficiency", r->eff_opt);
        cJSON_AddStringToObject(b, "regime", mb_model_regime_name(r->opt.regime));
    }
    return b;
}

static cJSON *scale_json(const model_opts *m, const mb_scale_options *so, const mb_scale_row *rows,
                         size_t n, size_t best, size_t enough, double p_b, int have_pb)
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
    cJSON_AddItemToObject(root, "best", row_summary(&rows[best]));
    cJSON_AddItemToObject(root, "enough", row_summary(&rows[enough]));
    mb_json_add_number(root, "enough_slack", ENOUGH_SLACK);
    return root;
}

static void scale_print(FILE *f, const model_opts *m, const mb_scale_options *so,
                        const mb_scale_row *rows, size_t n, size_t best, size_t enough,
                        double p_b, int have_pb)
{
    char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];
    model_print(f, m);
    if (have_pb)
        fprintf(f, "# eq. 10 changes branch at P = %.6g (balance below, knee above)\n", p_b);
    fprintf(f, "%8s %11s %11s %8s %8s %6s | %11s %8s %6s | %11s %8s %6s\n", "", "optimal", "", "",
            "", "", "strong", "", "", "weak", "", "");
    fprintf(f, "%8s %11s %11s %8s %8s %6s | %11s %8s %6s | %11s %8s %6s\n", "P", "M_opt", "T_C_s",
            "regime", "speedup", "eff", "T_C_s", "speedup", "eff", "T_C_s", "speedup", "eff");
    for (size_t i = 0; i < n; i++) {
        const mb_scale_row *r = &rows[i];
        fprintf(f, "%8.6g %11.5g %11.5g %8s %8.4g %6.3f | %11s %8s %6s | %11s %8s %6s\n",
                r->procs, r->opt.m_opt, r->opt.t_c, mb_model_regime_name(r->opt.regime),
                r->speedup_opt, r->eff_opt, fmt(b1, sizeof b1, "%.5g", r->t_c_strong),
                fmt(b2, sizeof b2, "%.4g", r->speedup_strong),
                fmt(b3, sizeof b3, "%.3f", r->eff_strong), fmt(b4, sizeof b4, "%.5g", r->t_c_weak),
                fmt(b5, sizeof b5, "%.4g", r->speedup_weak), fmt(b6, sizeof b6, "%.3f", r->eff_weak));
    }
    fprintf(f, "# strong scaling holds M = %.6g; weak scaling holds M/P = %.6g\n", so->m_strong,
            so->m_weak);
    const mb_scale_row *r = &rows[best];
    fprintf(f, "fastest:        P = %.6g learners with mini-batch M = %.0f (%.1f per learner): "
               "T_C = %.4g s, %.4gx the single learner's best, efficiency %.3f (%s regime)\n",
            r->procs, round(r->opt.m_opt), r->opt.m_opt / r->procs, r->opt.t_c, r->speedup_opt,
            r->eff_opt, mb_model_regime_name(r->opt.regime));
    r = &rows[enough];
    fprintf(f, "recommendation: P = %.6g learners with mini-batch M = %.0f (%.1f per learner): "
               "T_C = %.4g s, %.4gx the single learner's best, efficiency %.3f; the fewest "
               "learners within %.0f%% of the fastest\n",
            r->procs, round(r->opt.m_opt), r->opt.m_opt / r->procs, r->opt.t_c, r->speedup_opt,
            r->eff_opt, 100 * ENOUGH_SLACK);
}

static int cmd_scale(int argc, char **argv)
{
    const char *sub = "scale";
    static const struct option lo[] = {MODEL_LONGOPTS,
                                       {"procs", required_argument, 0, OPT_PROCS},
                                       {"m-strong", required_argument, 0, OPT_M_STRONG},
                                       {"m-weak", required_argument, 0, OPT_M_WEAK},
                                       {"json", no_argument, 0, OPT_JSON},
                                       {"output", required_argument, 0, 'o'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
    model_opts m = {0};
    mb_scale_options so = {0};
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
    if (optind < argc)
        return mb_cli_usage(prog, sub, "unexpected argument '%s'", argv[optind]);

    mb_range pr;
    if (mb_data_parse_range(procs, "--procs", &pr, &err) != MB_OK)
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
    if (!rows || mb_solver_scale(&m.law, &m.t, &so, pr.v, pr.n, rows, &err) != MB_OK) {
        if (!rows)
            mb_error_set(&err, MB_ENOMEM, "out of memory");
        free(rows);
        mb_data_range_free(&pr);
        return mb_cli_fail(prog, sub, &err);
    }
    size_t best = mb_solver_best_row(rows, pr.n);
    size_t enough = mb_solver_enough_row(rows, pr.n, ENOUGH_SLACK);
    double p_b = 0;
    int have_pb = mb_model_regime_boundary(&m.law, &m.t, &p_b) == MB_OK;
    int rc;
    if (out.json) {
        rc = emit_json(sub, scale_json(&m, &so, rows, pr.n, best, enough, p_b, have_pb), &out);
    } else {
        mb_out o;
        rc = mb_out_open(&o, out.output, &err);
        if (rc == MB_OK) {
            scale_print(o.f, &m, &so, rows, pr.n, best, enough, p_b, have_pb);
            rc = mb_out_commit(&o, &err);
        }
        rc = rc == MB_OK ? 0 : mb_cli_fail(prog, sub, &err);
    }
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
            if (rc == MB_OK && g < 1)
                rc = mb_error_set(&err, MB_EINVAL, "--gpus: must be >= 1, got '%s'", optarg);
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
        why = "with no overhead the efficiency is 1 on any number of devices";
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
    } else { /* speed-up and efficiency: G = S / E */
        g = s / e;
        rc = mb_model_amdahl_max_overhead(g, e, &r);
        why = "speed-up / efficiency gives G E <= 1";
    }
    if (rc != MB_OK) {
        mb_error_set(&err, rc, "%s", why);
        return mb_cli_fail(prog, sub, &err);
    }
    s = g * e;

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
    if (model_resolve(&m, &err) != MB_OK)
        return mb_cli_fail(prog, sub, &err);
    if (m.t.comm == MB_COMM_NONE) {
        mb_error_set(&err, MB_EINVAL, "--comm none: bandwidth has no value to trade");
        return mb_cli_fail(prog, sub, &err);
    }
    mb_design d;
    if (mb_model_design(&m.law, &m.t, &prob, &d) != MB_OK) {
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
           "  amdahl   efficiency, speed-up, devices and overhead ratio (any two give the rest)\n"
           "  ps       parameter servers needed to hide communication\n"
           "  design   the budget split between learners and bandwidth\n\n"
           "  -h, --help     show this help and exit\n"
           "  -V, --version  show the version and exit\n\n"
           "'mbopt COMMAND --help' describes each command.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return mb_cli_usage(prog, NULL, "missing command (scale, amdahl, ps, design)");
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
    return mb_cli_usage(prog, NULL, "unknown command '%s'", cmd);
}
