/* mbplot.c — the `mbplot` command: draws mbkit's figures with gnuplot from the stage files.
 *
 *   mbplot scale  SCALE.json     T_C and speed-up against learners (mbopt scale --json)
 *   mbplot tc     SCALE.json     T_C against M for several P, M_opt marked
 *   mbplot nupdate N.json        N_update against M with the fitted law and its band
 *   mbplot amdahl                Amdahl speed-up against devices for several overhead ratios
 *   mbplot step   STEP.csv       time per update against M (mbprobe step), with a fitted knee
 *   mbplot comm   COMM.csv       collective times (mbprobe comm), with the alpha-beta fit
 *   mbplot validate VAL.json     predicted against measured training time (mbopt validate)
 *   mbplot conv   CONV.json      convolution ILP: time per update and memory against M
 *   mbplot report OUT/           every figure OUT has inputs for, and OUT/report.html
 *
 * Thin: parse options, call plots/, report. Usage errors exit 2, bad files exit 1.
 */
#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mb_plot.h"
#include "../data/mb_cli.h"
#include "../data/mb_output.h"
#include "../data/mb_parse.h"

static void help(void)
{
    printf("Usage: mbplot COMMAND [OPTION]... [FILE]\n"
           "Draws mbkit's figures with gnuplot from the files its stages write, so recorded runs\n"
           "can be plotted on their own.\n\n"
           "Commands:\n"
           "  scale SCALE.json   T_C and speed-up against learners P under optimal, strong and\n"
           "                     weak scaling (from 'mbopt scale --json')\n"
           "  tc SCALE.json      T_C against mini-batch size M for several P, M_opt marked\n"
           "  nupdate N.json     updates to converge against M: runs, means, fitted law and its\n"
           "                     95%% band (from 'mbfit nupdate --json')\n"
           "  amdahl             speed-up against devices for several overhead ratios\n"
           "                     (--overhead-ratio LIST, --gpus MAX)\n"
           "  step STEP.csv      time per update against M (from 'mbprobe step'); --tfit FILE\n"
           "                     adds the fitted knee model\n"
           "  comm COMM.csv      collective time against bytes (from 'mbprobe comm'); --cfit\n"
           "                     FILE adds the ring alpha-beta model\n"
           "  validate VAL.json  training time to the target loss against M: the predicted\n"
           "                     T_C(M), every run, the measured medians (bars: min to max),\n"
           "                     the measured best and the recommended M (from 'mbopt\n"
           "                     validate --json')\n"
           "  conv CONV.json     time per update (and T_C) and memory against M, algorithm\n"
           "                     changes marked (from 'mbopt conv --json')\n"
           "  report OUT/        draws every figure the pipeline folder OUT has inputs for into\n"
           "                     OUT and writes OUT/report.html: one self-contained page with the\n"
           "                     recommendation (OUT/scale.json, required), the fitted parameters,\n"
           "                     the figures and the commands; prints its path. With\n"
           "                     OUT/validate.json it opens with the check against real\n"
           "                     training runs. Missing optional inputs are listed in the\n"
           "                     page and noted on stderr\n\n"
           "Options of every command:\n"
           "  -o, --output FILE  the image to write (default: COMMAND.png or .svg; not for\n"
           "                     report, which writes into OUT)\n"
           "      --format FMT   png (default) or svg\n"
           "      --size WxH     pixels (default 900x600)\n"
           "  -h, --help         show this help and exit\n"
           "  -V, --version      show the version and exit\n");
}

/* "WxH": two whole numbers of pixels from 100 to 10000 and nothing else ("900x600junk",
 * " 900x600", "900x+600" are refused). */
static int parse_size(const char *s, int *w, int *h)
{
    const char *x = strchr(s, 'x');
    char ws[32];
    long a, b;
    if (!x || (size_t)(x - s) >= sizeof ws)
        return MB_EINVAL;
    memcpy(ws, s, (size_t)(x - s));
    ws[x - s] = '\0';
    if (!isdigit((unsigned char)ws[0]) || !isdigit((unsigned char)x[1]) ||
        mb_data_parse_long(ws, 100, 10000, &a) != MB_OK ||
        mb_data_parse_long(x + 1, 100, 10000, &b) != MB_OK)
        return MB_EINVAL;
    *w = (int)a;
    *h = (int)b;
    return MB_OK;
}

enum { OPT_FORMAT = 256, OPT_SIZE, OPT_TFIT, OPT_CFIT, OPT_RATIO, OPT_GPUS, OPT_CURVES };

/* The options that belong to one figure, in the order of misplaced_option's `given`. */
enum { N_OWNED = 5 };

/* A usage error (exit 2) when an option of another figure was given (it would be ignored
 * here), -1 otherwise. given[]: --tfit, --cfit, --overhead-ratio, --gpus, --curves. */
static int misplaced_option(const char *sub, const int *given)
{
    static const char *const flag[N_OWNED] = {"--tfit", "--cfit", "--overhead-ratio", "--gpus",
                                              "--curves"};
    static const char *const owner[N_OWNED] = {"step", "comm", "amdahl", "amdahl", "tc"};
    for (int i = 0; i < N_OWNED; i++)
        if (given[i] && strcmp(sub, owner[i]) != 0)
            return mb_cli_usage("mbplot", sub, "%s is an option of mbplot %s only", flag[i],
                                owner[i]);
    return -1;
}

/* -o's extension (in any case) names the format when --format does not, and may not contradict
 * it (an SVG in o.png would be opened as a broken image): MB_EINVAL, said on stderr, when it
 * does; an image kind mbplot does not write (o.jpg, o.svgz) is refused too. */
static int format_from_name(const char *sub, const char *out, int format_given,
                            mb_plot_format *format)
{
    const char *ext = strrchr(out, '.');
    mb_plot_format named;
    /* an image kind mbplot does not write: a PNG under o.jpg would be opened as a JPEG */
    static const char *const other[] = {"jpg", "jpeg", "gif", "bmp", "tif", "tiff", "webp",
                                        "pdf", "eps", "ps", "svgz"};
    for (size_t i = 0; ext && !strchr(ext, '/') && i < sizeof other / sizeof other[0]; i++)
        if (strcasecmp(ext + 1, other[i]) == 0) {
            mb_cli_say("mbplot", sub, "-o %s: mbplot writes png or svg, not %s", out, ext + 1);
            return MB_EINVAL;
        }
    char low[8] = ""; /* o.SVG is an SVG too (campaign 14's R5: it got a PNG) */
    for (size_t i = 0; ext && ext[i + 1] && i + 1 < sizeof low; i++)
        low[i] = (char)tolower((unsigned char)ext[i + 1]);
    if (!ext || strchr(ext, '/') || strlen(ext + 1) >= sizeof low ||
        mb_plot_format_parse(low, &named) != MB_OK)
        return MB_OK;
    if (format_given && named != *format) {
        mb_cli_say("mbplot", sub, "-o %s: the extension says %s, --format says %s", out, ext + 1,
                   *format == MB_PLOT_SVG ? "svg" : "png");
        return MB_EINVAL;
    }
    *format = named;
    return MB_OK;
}

/* What one figure is drawn from. */
typedef struct figure_args {
    const char *in, *tfit, *cfit, *ratios; /* input file; step's, comm's fits; amdahl's ratios */
    double gpus;                           /* amdahl's devices */
    int curves;                            /* tc's curves */
} figure_args;

/* Draws the figure `sub` names into `out`. */
static int draw_figure(const char *sub, const figure_args *a, const char *out,
                       const mb_plot_options *po, mb_error *err)
{
    if (!strcmp(sub, "scale"))
        return mb_plot_scale(a->in, out, po, err);
    if (!strcmp(sub, "tc"))
        return mb_plot_tc(a->in, a->curves, out, po, err);
    if (!strcmp(sub, "nupdate"))
        return mb_plot_nupdate(a->in, out, po, err);
    if (!strcmp(sub, "step"))
        return mb_plot_step(a->in, a->tfit, out, po, err);
    if (!strcmp(sub, "comm"))
        return mb_plot_comm(a->in, a->cfit, out, po, err);
    if (!strcmp(sub, "conv"))
        return mb_plot_conv(a->in, out, po, err);
    if (!strcmp(sub, "validate"))
        return mb_plot_validate(a->in, out, po, err);
    mb_range r;
    int rc = mb_data_parse_range(a->ratios, "--overhead-ratio", &r, err);
    if (rc == MB_OK) {
        rc = mb_plot_amdahl(r.v, (int)r.n, a->gpus, out, po, err);
        mb_data_range_free(&r);
    }
    return rc;
}

static int run_command(int argc, char **argv)
{
    if (argc < 2)
        return mb_cli_usage("mbplot", NULL,
                            "missing command (scale, tc, nupdate, amdahl, step, comm, "
                                                "validate, conv, report)");
    const char *sub = argv[1];
    if (!strcmp(sub, "-h") || !strcmp(sub, "--help")) {
        help();
        return 0;
    }
    if (!strcmp(sub, "-V") || !strcmp(sub, "--version")) {
        printf("mbplot (mbkit) %s\n", mb_version());
        return 0;
    }
    static const char *const subs[] = {"scale", "tc", "nupdate", "amdahl", "step", "comm",
                                       "validate", "conv", "report", NULL};
    int known = 0;
    for (int i = 0; subs[i]; i++)
        known |= !strcmp(sub, subs[i]);
    if (!known)
        return mb_cli_usage("mbplot", NULL, "unknown command '%s'", sub);

    static const struct option lo[] = {{"output", required_argument, 0, 'o'},
                                       {"format", required_argument, 0, OPT_FORMAT},
                                       {"size", required_argument, 0, OPT_SIZE},
                                       {"tfit", required_argument, 0, OPT_TFIT},
                                       {"cfit", required_argument, 0, OPT_CFIT},
                                       {"overhead-ratio", required_argument, 0, OPT_RATIO},
                                       {"gpus", required_argument, 0, OPT_GPUS},
                                       {"curves", required_argument, 0, OPT_CURVES},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
    mb_plot_options po;
    mb_plot_options_init(&po);
    const char *out = NULL, *tfit = NULL, *cfit = NULL, *ratios = "0.01,0.05,0.1,0.2";
    double gpus = 64;
    long curves = 5;
    int format_given = 0, ratio_given = 0, gpus_given = 0, curves_given = 0;
    mb_error err = {0};
    int c;
    opterr = 0;
    argc--;
    argv++;
    mb_cli_seen seen = {"mbplot", sub, NULL, {0}, NULL};
    while ((c = mb_cli_getopt(argc, argv, ":ho:", lo, &seen)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case OPT_FORMAT:
            format_given = 1;
            if (mb_plot_format_parse(optarg, &po.format) != MB_OK)
                return mb_cli_say("mbplot", sub, "--format: '%s' is not png or svg", optarg);
            break;
        case OPT_SIZE:
            if (parse_size(optarg, &po.width, &po.height) != MB_OK)
                return mb_cli_say("mbplot", sub, "--size: '%s' is not WxH pixels (100 to 10000)",
                                  optarg);
            break;
        case OPT_TFIT: tfit = optarg; break;
        case OPT_CFIT: cfit = optarg; break;
        case OPT_RATIO: ratios = optarg, ratio_given = 1; break;
        case OPT_GPUS:
            gpus_given = 1;
            if (mb_data_flag_whole("--gpus", optarg, 0, 2, MB_DATA_RANGE_MAX, &gpus, &err))
                return mb_cli_say("mbplot", sub, "%s", err.msg);
            break;
        case OPT_CURVES:
            curves_given = 1;
            if (mb_data_parse_long(optarg, 1, 12, &curves) != MB_OK)
                return mb_cli_say("mbplot", sub, "--curves: '%s' is not a whole number from 1 to "
                                  "12", optarg);
            break;
        case 'h': help(); return 0;
        default: return mb_cli_bad_option("mbplot", sub, argv, optind, c);
        }
    }
    const int given[N_OWNED] = {tfit != NULL, cfit != NULL, ratio_given, gpus_given, curves_given};
    int misplaced = misplaced_option(sub, given);
    if (misplaced >= 0)
        return misplaced;
    int wants_file = strcmp(sub, "amdahl") != 0;
    if (wants_file && optind != argc - 1)
        return mb_cli_usage("mbplot", sub, optind < argc ? "one input file, not '%s' too"
                                              : "missing the input file%s",
                           optind < argc ? argv[argc - 1] : "");
    if (!wants_file && optind < argc)
        return mb_cli_usage("mbplot", sub, "unexpected argument '%s'", argv[optind]);
    if (!strcmp(sub, "report")) {
        if (out)
            return mb_cli_usage("mbplot", sub, "-o is not used: the report goes to OUT/report.html");
        mb_plot_report_info info;
        if (mb_plot_report(argv[optind], &po, &info, &err) != MB_OK)
            return mb_cli_fail("mbplot", sub, &err);
        const char *dir = argv[optind];
        const char *sep = dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/";
        for (int i = 0; i < info.n_missing; i++)
            mb_cli_say("mbplot", "report", "note: %s%s%s is missing (written by %s); the report "
                       "says so", dir, sep, info.missing[i], info.missing_stage[i]);
        printf("%s\n", info.path);
        return 0;
    }
    if (out && format_from_name(sub, out, format_given, &po.format) != MB_OK)
        return 1;
    char def[64];
    if (!out) {
        snprintf(def, sizeof def, "%s.%s", sub, po.format == MB_PLOT_SVG ? "svg" : "png");
        out = def;
    }
    const char *in = wants_file ? argv[optind] : NULL;
    const char *inputs[] = {in, tfit, cfit};
    for (int i = 0; i < 3; i++)
        if (inputs[i] && mb_data_same_file(out, inputs[i]))
            return mb_cli_say("mbplot", sub, "-o %s would overwrite the input %s", out, inputs[i]);
    const figure_args fa = {in, tfit, cfit, ratios, gpus, (int)curves};
    int rc = draw_figure(sub, &fa, out, &po, &err);
    if (rc != MB_OK)
        return mb_cli_say("mbplot", sub, "%s", err.msg);
    printf("%s\n", out);
    return 0;
}

int main(int argc, char **argv)
{
    mb_cli_one_blas_thread(argv); /* under a memory limit, one BLAS thread */
    int start = mb_cli_start();
    return mb_cli_exit(start ? start : run_command(argc, argv));
}
