/* mbopt_amdahl.c — `mbopt amdahl` (Amdahl efficiency on G devices and its inversions, Zou et al.
 * Lemma 3.1) and `mbopt ps` (parameter servers needed to hide push and pull, Lemma 3.2).
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

/* ---- mbopt amdahl ---------------------------------------------------------------------------- */

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

int mbopt_amdahl(int argc, char **argv)
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
    mb_cli_seen seen = {prog, sub, NULL, {0}, NULL};
    while ((c = mb_cli_getopt(argc, argv, ":ho:", lo, &seen)) != -1) {
        int rc = MB_OK;
        switch (c) {
        case OPT_OVERHEAD:
            rc = mb_data_flag_double("--overhead-ratio", optarg, 0, MB_NONNEG, &r, &err);
            break;
        case OPT_GPUS:
            rc = mb_data_flag_whole("--gpus", optarg, 0, 1, MB_DATA_RANGE_MAX, &g, &err);
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
            g = fmax(1.0, ceil(g_exact - mb_model_whole_slack(g_exact)));
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
            g = floor(g_exact + mb_model_whole_slack(g_exact));
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
        g = isfinite(g_exact) ? fmax(1.0, ceil(g_exact - mb_model_whole_slack(g_exact))) : g_exact;
        rc = mb_model_amdahl_max_overhead(g, e, &r);
        why = "speed-up / efficiency gives G E <= 1";
    }
    if (rc == MB_OK && !(g <= 0x1p53)) { /* past 2^53 doubles skip whole numbers: no count */
        rc = MB_EDOM;
        why = "the device count passes 2^53 (not a count of devices)";
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

/* ---- mbopt ps -------------------------------------------------------------------------------- */

static void ps_help(void)
{
    printf("Usage: mbopt ps --compute-time S --workers N --bandwidth B --param-bytes SIZE\n"
           "The least number of parameter servers that hides each worker's push and pull of\n"
           "the parameters behind its computation (Zou et al. 2017, Lemma 3.2):\n"
           "  N_ps >= 2 S_p N_w / (T_C B_ps)\n\n"
           "      --compute-time S    one round of computation on a worker, T_C, seconds\n"
           "      --workers N         number of workers, N_w >= 1\n"
           "      --bandwidth B       bytes/s per parameter server, K/M/G = 2^10/2^20/2^30\n"
           "      --param-bytes SIZE  size of the parameters, S_p, K/M/G allowed (240M,\n"
           "                          240MB and 240MiB are all 240 x 2^20 bytes)\n"
           "      --json              write JSON (keys n_ps, n_ps_exact and the inputs)\n"
           "  -o, --output FILE       write to FILE instead of standard output\n"
           "  -h, --help              show this help and exit\n\n"
           "Example:\n"
           "  mbopt ps --compute-time 0.2 --workers 16 --bandwidth 10G --param-bytes 240M\n");
}

int mbopt_ps(int argc, char **argv)
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
    mb_cli_seen seen = {prog, sub, NULL, {0}, NULL};
    while ((c = mb_cli_getopt(argc, argv, ":ho:", lo, &seen)) != -1) {
        int rc = MB_OK;
        switch (c) {
        case OPT_COMPUTE:
            rc = mb_data_flag_double("--compute-time", optarg, 0, MB_POSITIVE, &tc, &err);
            break;
        case OPT_WORKERS:
            rc = mb_data_flag_whole("--workers", optarg, 0, 1, MB_DATA_RANGE_MAX, &nw, &err);
            break;
        case OPT_BW: rc = mb_data_flag_double("--bandwidth", optarg, 1, MB_POSITIVE, &bw, &err);
            break;
        case OPT_PARAM_BYTES:
            rc = mb_data_flag_whole("--param-bytes", optarg, 1, 1, MB_DATA_RANGE_MAX, &sp, &err);
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
    if (!(n_ps < 0x1p53)) { /* printed whole, it would be hundreds of digits of noise */
        mb_error_set(&err, MB_EDOM, "the server count passes 2^53 (bound %.3g): not a count; "
                     "check --compute-time", exact);
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

