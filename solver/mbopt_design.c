/* mbopt_design.c — `mbopt design`: the budget split between learners and bandwidth (Perrone et
 * al., eq. 11-12).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mbopt_cli.h"
#include "../data/mb_cli.h"
#include "../data/mb_json.h"
#include "../data/mb_output.h"
#include "../data/mb_parse.h"
#include "../data/mb_table.h"

/* ---- mbopt design ---------------------------------------------------------------------------- */

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
           MODEL_HELP_LAW);
}

/* Every number the design prints, finite: parameters far outside any fit (--alpha 1e300,
 * --n-inf 1e-300) overflow M_opt = sqrt(alpha (t0 + Delta) P / (n_inf gamma)) (Perrone eq. 9)
 * at the bandwidth the search reaches, and a table of such results is no answer (campaign 19's
 * G5: "m_opt inf" printed beside "learners 66.6667", exit 0). MB_EDOM naming the value and the
 * law's parameters. */
static int design_finite(const mb_design *d, const mb_inverse_law *inv, mb_error *err)
{
    const struct {
        const char *name;
        double v;
    } f[] = {{"the learners", d->learners},
             {"the bandwidth", d->bandwidth},
             {"M_opt", d->opt.m_opt},
             {"T_C", d->opt.t_c},
             {"the whole learners' bandwidth", d->whole_bandwidth},
             {"the whole learners' T_C", d->whole_t_c},
             {"dT_C/dC of learners", d->interior ? d->dt_dcost_learners : 0},
             {"dT_C/dC of bandwidth", d->interior ? d->dt_dcost_bandwidth : 0}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (!isfinite(f[i].v))
            return mb_error_set(err, MB_EDOM, "%s overflows (%g) at P = %.6g learners and %.6g "
                                "bytes/s: n_inf %g and alpha %g give no finite optimum (M_opt = "
                                "sqrt(alpha (t0 + Delta) P / (n_inf gamma)), Perrone eq. 9)",
                                f[i].name, f[i].v, d->learners, d->bandwidth, inv->n_inf,
                                inv->alpha);
    return MB_OK;
}

/* A Delta measured per P (--delta P:S,...) with a collective that would use it: design buys
 * any learner count along its budget line and scales one Delta by --bandwidth-ref / B, and the
 * table has none between its P (campaign 40's B-F4: it answered 1 learner, 0 bytes/s and most of
 * the budget unspent). Prints the usage line and returns 1 where refused. */
static int delta_table_refused(const model_opts *m, const char *prog, const char *sub)
{
    if (m->t.n_pdelta == 0 || (m->t.comm != MB_COMM_ALLREDUCE && m->t.comm != MB_COMM_PS))
        return 0;
    char have[160];
    size_t k = 0;
    have[0] = '\0';
    for (size_t j = 0; j < m->t.n_pdelta && k < sizeof have - 16; j++)
        k += (size_t)snprintf(have + k, sizeof have - k, "%s%g", j ? ", " : "", m->t.pdelta_p[j]);
    mb_cli_usage(prog, sub, "--delta P:S,...: design buys any learner count along its budget "
                 "line and scales one Delta by --bandwidth-ref / B, and a table measured at P = "
                 "%s has none between them: give --delta S", have);
    return 1;
}

int mbopt_design(int argc, char **argv)
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
    mb_cli_seen seen = {prog, sub, (const int[]){OPT_NFIT, 0}, {0}, MODEL_EXCLUSIVE};
    while ((c = mb_cli_getopt(argc, argv, ":ho:", lo, &seen)) != -1) {
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
    /* the model's range flags, read for scale and validate, change nothing here (campaign 9,
     * L14): the balance is the inverse law's unconstrained optimum */
    static const struct {
        int code;
        const char *flag;
    } unread[] = {{OPT_RANGE, "--batch-range"}, {OPT_EXTRAPOLATE, "--extrapolate"}};
    for (size_t i = 0; i < sizeof unread / sizeof unread[0]; i++)
        if (mb_cli_given(&seen, unread[i].code))
            return mb_cli_no_effect(prog, sub, unread[i].flag, "in mbopt design: the budget "
                                    "balance is the inverse law's unconstrained optimum "
                                    "(Perrone eq. 11-12)");
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
    if (model_resolve(&m, &err) != MB_OK ||
        output_over_inputs(out.output, &m, argc - optind, argv + optind, &err) != MB_OK)
        return mb_cli_fail(prog, sub, &err);
    if (m.t.comm == MB_COMM_NONE) {
        mb_error_set(&err, MB_EINVAL, "--comm none: bandwidth has no value to trade");
        return mb_cli_fail(prog, sub, &err);
    }
    if (delta_table_refused(&m, prog, sub))
        return 2;
    /* the budget balance is Perrone's closed form (eq. 11-12): it needs the inverse law */
    mb_inverse_law inv;
    if (mb_model_law_as_inverse(&m.law, &inv) != MB_OK &&
        mb_model_law_as_inverse(&m.nf.inverse, &inv) != MB_OK) {
        mb_error_set(&err, MB_EINVAL, "design needs the inverse law (Perrone eq. 11-12)");
        return mb_cli_fail(prog, sub, &err);
    }
    if (m.law_name && m.law.kind != MB_LAW_INVERSE) /* asked for, it would be ignored */
        return mb_cli_usage(prog, sub, "--law %s: the budget balance uses the inverse law "
                            "(Perrone eq. 11-12); give --law inverse-law or leave it out",
                            m.law_name);
    if (m.law.kind != MB_LAW_INVERSE) {
        mb_cli_say("mbopt", "design", "the budget balance uses the inverse law of %s (Perrone "
                   "eq. 11-12 need it), not its best law, the %s", m.nfit,
                   mb_model_law_name(m.law.kind));
        m.law = m.nf.inverse;
    }
    mb_design d;
    if (mb_model_design(&inv, &m.t, &prob, &d) != MB_OK) {
        mb_error_set(&err, MB_EDOM, "the budget cannot buy more than one learner");
        return mb_cli_fail(prog, sub, &err);
    }
    if (design_finite(&d, &inv, &err) != MB_OK)
        return mb_cli_fail(prog, sub, &err);
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

