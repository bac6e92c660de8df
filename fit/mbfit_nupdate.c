/* mbfit_nupdate.c — `mbfit nupdate`: run logs, a points file or Lightning CSVLogger logs ->
 * N_update(M) = N_inf + alpha / M, the power law and McCandlish's form beside it (fit/nupdate.c).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbfit_cli.h"
#include "../data/mb_cli.h"
#include "../data/mb_format.h"
#include "../data/mb_json.h"
#include "../data/mb_output.h"
#include "../data/mb_parse.h"
#include "../data/mb_table.h"
#include "../train/run/mb_run.h"
#include "mb_lightning.h"

/* ---- nupdate ---------------------------------------------------------------------------------- */

static void nupdate_help(const mb_fit_nupdate_options *d, size_t smooth)
{
    printf("Usage: mbfit nupdate [OPTION]... LOG.csv...   (or: mbfit nupdate POINTS.csv)\n"
           "Fits N_update(M) = N_inf + alpha / M (Perrone et al. 2019, eq. 2) to training runs.\n"
           "Run logs (mbtrain --log): M is the '# batch=' metadata; N is the first logged update\n"
           "whose eval_loss is <= the threshold (no patience). A log without evaluation values\n"
           "uses the mean training loss of the last --smooth logged rows instead. A run that\n"
           "never reaches the threshold is counted as unreached, never as reaching it at its\n"
           "last update. A points file has columns batch,n_update[,seed], one run per row.\n"
           "Runs are grouped by M (mean, spread and count over seeds); the power law\n"
           "N_inf + a M^-b, the shifted law N_inf + alpha / (M - M_0) and McCandlish's\n"
           "S_min (1 + B_noise / M) are fitted beside it and compared by AIC. Top-level params stay the inverse law's; 'best' names the law\n"
           "mbopt optimises (--choose), and\n"
           "'converged_range' the M where most runs reached the threshold and none diverged\n"
           "(above every M where one diverged). The law holds per learning rate: runs of\n"
           "several rates are refused unless --lr picks one.\n\n"
           "      --target-loss LIST  loss thresholds, e.g. 0.5 or 0.5,0.4 (logs only); JSON\n"
           "                          params are for the first, the rest under 'thresholds'\n"
           "      --weights W         none, relative (sigma_i = mean N at M_i; default %s),\n"
           "                          seeds (sigma_i = standard error over seeds at M_i),\n"
           "                          pooled (the same with each M's relative spread shrunk\n"
           "                          toward that of all M: robust with few seeds, and M with\n"
           "                          more runs count for more)\n"
           "      --bootstrap B       also give percentile 95%% intervals from B resamples of\n"
           "                          the runs within each M (default %zu: none; else at\n"
           "                          least 40, one resample in each 2.5%% tail)\n"
           "      --seed S            bootstrap generator seed (default %lu)\n"
           "      --smooth W          training-loss window in logged rows (default %zu)\n"
           "      --choose R          the law 'best' names: shifted (default: the inverse law\n"
           "                          whenever it fits with N_inf > 0, the shifted law where\n"
           "                          its AIC is lower by more than 2: small M that need more\n"
           "                          updates than 1 / M says), inverse (the inverse law\n"
           "                          only) or aic (the law of least AIC, when lower than the\n"
           "                          inverse law's by more than 2)\n"
           "      --lr RATE           fit only the runs trained at this learning rate\n"
           "      --algo A, --procs P fit only the runs of algorithm A (# algo=) with P learners\n"
           "                          (# learners=); logs of several (algo, P) are refused\n"
           "                          without them. Runs that logged the gradient noise scale\n"
           "                          (# b_simple=) show its median beside alpha/N_inf, with\n"
           "                          their ratio\n"
           "      --lightning         the inputs are PyTorch Lightning CSVLogger logs (a\n"
           "                          version folder, or its metrics.csv): N is step + 1 of\n"
           "                          the first row whose loss column is <= the threshold\n"
           "                          (an upper bound unless it was logged every step)\n"
           "      --loss-column NAME  with --lightning: the validation loss (default val_loss)\n"
           "      --batch M[,M...]    with --lightning: M of every log, or one per log in\n"
           "                          order (default: each folder's hparams.yaml, key\n"
           "                          --batch-key, default batch_size)\n"
           "      --extrapolate       N_update at a --target-loss below every level the runs\n"
           "                          reached: fit the law across --levels to each run's\n"
           "                          crossings and predict the target (docs/models.md, 'N_update\n"
           "                          below the calibration's target'); the JSON is an nfit\n"
           "                          mbopt reads, marked 'extrapolated'; --bootstrap defaults\n"
           "                          to 200 here (the 95%% interval); weights are relative\n"
           "      --levels LIST       with --extrapolate: the calibration levels, e.g.\n"
           "                          0.65,0.6,0.55,0.5 (default: the levels the runs' checks\n"
           "                          aimed at, '# levels=' (mbtrain --levels), and L1; else 4\n"
           "                          levels from the runs' '# target_loss=' L1 up to 1.3 L1);\n"
           "                          every run must cross every level\n"
           "      --form F            with --extrapolate: auto (default: shifted where its AIC\n"
           "                          beats separable's by more than 2, else separable),\n"
           "                          separable, noise, per-level, floor or shifted\n"
           "      --json              write the fit as JSON (docs/design.md, 'Fits')\n"
           "  -o, --output FILE       write to FILE (atomically) instead of standard output\n"
           "  -h, --help              show this help and exit\n\n"
           "Example:\n"
           "  mbfit nupdate --target-loss 0.5 runs/*.csv --json > n.json\n"
           "  mbfit nupdate data/examples/nupdate_points.csv\n"
           "  mbfit nupdate --lightning --target-loss 0.4 lightning_logs/version_*\n"
           "  mbfit nupdate --extrapolate --target-loss 0.4 calib/*.csv --json > n04.json\n",
           mb_fit_weighting_name(d->weights), d->bootstrap, d->seed, smooth);
}

typedef struct nup_print {
    const mb_fit_nupdate *fits;
    size_t n;
    const mb_fit_nupdate_options *o;
} nup_print;

static void nupdate_print(FILE *f, const void *arg)
{
    const nup_print *np = arg;
    char a[32], b[32], c[32], d[32];
    for (size_t k = 0; k < np->n; k++) {
        const mb_fit_nupdate *r = &np->fits[k];
        if (k)
            fputc('\n', f);
        fprintf(f, "# N_update(M) = N_inf + alpha / M, weights %s", mb_fit_weighting_name(np->o->weights));
        if (!isnan(r->threshold))
            fprintf(f, ", target loss %s", mb_data_typed(a, r->threshold));
        if (!isnan(r->lr))
            fprintf(f, ", lr %g", r->lr);
        size_t div = 0;
        for (size_t g = 0; g < r->n_groups; g++)
            div += r->groups[g].diverged;
        fprintf(f, "\n# %zu runs: %zu diverged, %zu never reached the threshold\n", r->runs, div,
                r->unreached - div);
        fprintf(f, "%10s %6s %8s %8s %14s %12s %12s\n", "M", "runs", "reached", "diverged",
                "mean_N", "sd", "se");
        for (size_t g = 0; g < r->n_groups; g++) {
            const mb_fit_group *G = &r->groups[g];
            fprintf(f, "%10g %6zu %8zu %8zu %14s %12s %12s\n", G->batch, G->runs, G->reached,
                    G->diverged, num(a, sizeof a, G->mean), num(b, sizeof b, G->sd),
                    num(c, sizeof c, G->se));
        }
        fprintf(f, "%-12s %-13s %13s %12s  %s\n", "model", "param", "value", "stderr", "ci95");
        print_fit(f, "inverse-law", &r->inverse);
        if (r->have_power)
            print_fit(f, "power-law", &r->power);
        if (r->have_shifted)
            print_fit(f, "shifted-law", &r->shifted);
        if (r->have_mccandlish)
            print_fit(f, "mccandlish", &r->mccandlish);
        if (r->b_simple_runs)
            fprintf(f, "gradient noise scale: B_simple %s (median of %zu runs, %s P=%g) beside "
                    "the fit's alpha / N_inf = %s: ratio %s\n", num(a, sizeof a, r->b_simple),
                    r->b_simple_runs, r->algo, r->procs, num(b, sizeof b, r->b_noise),
                    num(c, sizeof c, r->b_ratio));
        fprintf(f, "AIC prefers: %s\n", r->aic_best);
        fprintf(f, "best law: %s: %s\n", r->best, r->why);
        if (!isnan(r->range_lo))
            fprintf(f, "converged range: M = %g .. %g (most runs reached it, none diverged)\n",
                    r->range_lo, r->range_hi);
        else
            fprintf(f, "converged range: none (no M where most runs reached it)\n");
        if (r->boot_b && !isfinite(r->boot_lo[0]))
            fprintf(f, "bootstrap (%zu resamples, %zu fitted): no 95%% interval (fewer than %d "
                    "resamples fitted)\n", r->boot_b, r->boot_ok, MB_FIT_BOOT_MIN);
        else if (r->boot_b)
            fprintf(f, "bootstrap (%zu resamples, %zu fitted): n_inf [%s, %s], alpha [%s, %s]\n",
                    r->boot_b, r->boot_ok, num(a, sizeof a, r->boot_lo[0]),
                    num(b, sizeof b, r->boot_hi[0]), num(c, sizeof c, r->boot_lo[1]),
                    num(d, sizeof d, r->boot_hi[1]));
        print_warnings(f, &r->warn);
    }
}

/* Parses "0.5,0.4" into a new array of numbers > 0 (mb_data_split_list: no empty items). */
static int parse_thresholds(const char *s, double **v, size_t *n, mb_error *err)
{
    char **items;
    size_t k;
    *v = NULL;
    *n = 0;
    int rc = mb_data_split_list(s, "--target-loss", 0, &items, &k, err);
    if (rc != MB_OK)
        return rc;
    *v = malloc(k * sizeof **v);
    if (!*v)
        rc = mb_error_set(err, MB_ENOMEM, "out of memory");
    for (size_t i = 0; rc == MB_OK && i < k; i++) {
        double x;
        if (mb_data_parse_double(items[i], &x) != MB_OK || x <= 0) {
            rc = mb_error_set(err, MB_EINVAL, "--target-loss: '%s' is not a number > 0", items[i]);
            break;
        }
        /* the same fit twice, under two names in the output: the logs' losses have 6 digits,
         * so 0.5 and 0.5000001 cross at the same updates (campaign 40's F1) */
        for (size_t j = 0; rc == MB_OK && j < *n; j++)
            if (mb_run_level_same((*v)[j], x))
                rc = mb_error_set(err, MB_EINVAL, MB_RUN_LEVEL_TWICE, "--target-loss", items[i],
                                  s);
        (*v)[(*n)++] = x;
    }
    free(items);
    return rc;
}

/* --batch of --lightning: "64" for every input, or "16,32,64" one per input in order. */
#define LT_BATCH_MAX 256
static int lightning_batches(const char *arg, double *b, size_t *n, mb_error *err)
{
    char **items;
    size_t k;
    int rc = mb_data_split_list(arg, "--batch", 0, &items, &k, err);
    if (rc != MB_OK)
        return rc;
    if (k > LT_BATCH_MAX)
        rc = mb_error_set(err, MB_EINVAL, "--batch: %zu sizes, more than %d", k, LT_BATCH_MAX);
    for (size_t i = 0; rc == MB_OK && i < k; i++) {
        long v;
        if (mb_data_parse_long(items[i], 1, 1L << 40, &v) != MB_OK)
            rc = mb_error_set(err, MB_EINVAL, "--batch: '%s' is not a whole number >= 1",
                              items[i]);
        else
            b[i] = (double)v;
    }
    free(items);
    *n = k;
    return rc;
}

typedef struct nupdate_args {
    mb_fit_nupdate_options o;
    common cm;
    mb_lightning_options lt;      /* --lightning: the inputs are Lightning CSVLogger folders */
    double lt_batch[LT_BATCH_MAX];
    int lightning, lt_flags;      /* --lightning given; one of its own flags given */
    double lt_gap;                /* the widest logging gap before a crossing (read) */
    size_t smooth;      /* rows of training loss a log without evaluations is judged by */
    int smooth_given;   /* --smooth given */
    const char *target; /* --target-loss: one or several thresholds */
    double lr, procs;   /* --lr, --procs: keep only those runs (NaN: all) */
    const char *algo;   /* --algo: keep only that algorithm's runs (NULL: all) */
    int extrapolate;    /* --extrapolate: below the runs' levels (fit/mbfit_levels.c) */
    int boot_given;     /* --bootstrap given (--extrapolate has its own default) */
    const char *levels; /* --levels LIST (--extrapolate) */
    mb_fit_levels_form form; /* --form (--extrapolate) */
    int form_given;     /* --form given */
} nupdate_args;

enum { NUPDATE_SMOOTH = 10 }; /* --smooth's default */

/* Applies one of nupdate's own options c (its value in optarg) to a: MB_OK, or an error (exit
 * 1) in err. */
static int nupdate_option(int c, nupdate_args *a, mb_error *err)
{
    long v;
    char note[160] = "";
    switch (c) {
    case OPT_TARGET: a->target = optarg; break;
    case OPT_LR: return mb_data_flag_double("--lr", optarg, 0, MB_POSITIVE, &a->lr, err);
    case OPT_ALGO: a->algo = optarg; break;
    case OPT_PROCS:
        return mb_data_flag_whole("--procs", optarg, 0, 1, MB_DATA_RANGE_MAX, &a->procs, err);
    case OPT_BOOT:
        /* a percentile 95% interval needs a resample in each 2.5% tail: 1 gave [0, 0]; a
         * count in another notation gets the note every count flag gives (campaign 45 A's F5:
         * '1e2', 100, read as if 100 were refused) */
        if (mb_data_parse_long(optarg, 0, 1000000, &v) != MB_OK ||
            (v > 0 && v < MB_FIT_BOOT_MIN)) {
            if (!*mb_data_count_notation(optarg, MB_FIT_BOOT_MIN, 1000000, note, sizeof note))
                mb_data_count_notation(optarg, 0, 0, note, sizeof note);
            return mb_error_set(err, MB_EINVAL, "--bootstrap: '%s' is not 0 (none) or a whole "
                                "number in %d..1000000%s", optarg, MB_FIT_BOOT_MIN,
                                *note ? note : " (a 95% percentile interval needs a resample "
                                               "in each 2.5% tail)");
        }
        a->o.bootstrap = (size_t)v;
        a->boot_given = 1;
        break;
    case OPT_SEED:
        if (mb_data_parse_long(optarg, 0, 4294967295L, &v) != MB_OK)
            return mb_error_set(err, MB_EINVAL, "--seed: '%s' is not a whole number in [0, "
                                "4294967295]%s", optarg,
                                mb_data_count_notation(optarg, 0, 4294967295.0, note,
                                                       sizeof note));
        a->o.seed = (unsigned long)v;
        break;
    case OPT_SMOOTH:
        if (mb_data_parse_long(optarg, 1, 1000000, &v) != MB_OK)
            return mb_error_set(err, MB_EINVAL, "--smooth: '%s' is not a whole number in [1, "
                                "1000000]%s", optarg,
                                mb_data_count_notation(optarg, 1, 1000000, note, sizeof note));
        a->smooth = (size_t)v;
        a->smooth_given = 1;
        break;
    case OPT_LIGHTNING: a->lightning = 1; break;
    case OPT_LOSS_COL: a->lt.loss_column = optarg, a->lt_flags = 1; break;
    case OPT_BATCH_KEY: a->lt.batch_key = optarg, a->lt_flags = 1; break;
    case OPT_BATCH:
        if (lightning_batches(optarg, a->lt_batch, &a->lt.n_batch, err) != MB_OK)
            return MB_EINVAL;
        a->lt.batch = a->lt_batch, a->lt_flags = 1;
        break;
    }
    return MB_OK;
}

/* Parses nupdate's command line into a: -1 to go on (optind at the first input), else the exit
 * status (--help, a usage error, a bad value). */
static int nupdate_parse(int argc, char **argv, nupdate_args *a)
{
    const char *sub = "nupdate";
    static const struct option lo[] = {{"target-loss", required_argument, 0, OPT_TARGET},
                                       {"weights", required_argument, 0, OPT_WEIGHTS},
                                       {"bootstrap", required_argument, 0, OPT_BOOT},
                                       {"seed", required_argument, 0, OPT_SEED},
                                       {"smooth", required_argument, 0, OPT_SMOOTH},
                                       {"choose", required_argument, 0, OPT_CHOOSE},
                                       {"lr", required_argument, 0, OPT_LR},
                                       {"algo", required_argument, 0, OPT_ALGO},
                                       {"procs", required_argument, 0, OPT_PROCS},
                                       {"lightning", no_argument, 0, OPT_LIGHTNING},
                                       {"loss-column", required_argument, 0, OPT_LOSS_COL},
                                       {"batch", required_argument, 0, OPT_BATCH},
                                       {"batch-key", required_argument, 0, OPT_BATCH_KEY},
                                       {"extrapolate", no_argument, 0, OPT_EXTRAPOLATE},
                                       {"levels", required_argument, 0, OPT_LEVELS},
                                       {"form", required_argument, 0, OPT_FORM},
                                       {"json", no_argument, 0, OPT_JSON},
                                       {"output", required_argument, 0, 'o'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
    mb_fit_nupdate_options_init(&a->o);
    mb_lightning_options_init(&a->lt);
    a->lightning = a->lt_flags = 0;
    a->lt_gap = 0;
    a->cm = (common){0, "-", a->o.weights, NAN};
    a->smooth = NUPDATE_SMOOTH;
    a->target = a->algo = NULL;
    a->lr = a->procs = NAN;
    a->extrapolate = a->boot_given = a->smooth_given = 0;
    a->levels = NULL;
    a->form = MB_FIT_LEVELS_AUTO;
    a->form_given = 0;
    mb_error err = {0};
    int c;
    mb_cli_seen seen = {"mbfit", sub, NULL, {0}, NULL};
    while ((c = mb_cli_getopt(argc, argv, ":ho:", lo, &seen)) != -1) {
        int r = common_option(&a->cm, c, optarg, 1, &err);
        if (r < 0)
            return mb_cli_fail("mbfit", sub, &err);
        if (r > 0)
            continue;
        switch (c) {
        case OPT_TARGET: case OPT_LR: case OPT_ALGO: case OPT_PROCS: case OPT_BOOT:
        case OPT_SEED: case OPT_SMOOTH: case OPT_LIGHTNING: case OPT_LOSS_COL:
        case OPT_BATCH_KEY: case OPT_BATCH:
            if (nupdate_option(c, a, &err) != MB_OK)
                return mb_cli_fail("mbfit", sub, &err);
            break;
        /* a bad value of a known flag exits 1 as --weights' does (docs/style.md, habit 7;
         * campaign 23's R14: --choose and --form exited 2) */
        case OPT_CHOOSE:
            if (mb_fit_choice_parse(optarg, &a->o.choose) != MB_OK) {
                mb_error_set(&err, MB_EINVAL, "--choose: '%s' is not shifted, inverse or aic",
                             optarg);
                return mb_cli_fail("mbfit", sub, &err);
            }
            break;
        case OPT_EXTRAPOLATE: a->extrapolate = 1; break;
        case OPT_LEVELS: a->levels = optarg; break;
        case OPT_FORM:
            if (mb_fit_levels_form_parse(optarg, &a->form) != MB_OK) {
                mb_error_set(&err, MB_EINVAL, "--form: '%s' is not " MB_FIT_LEVELS_FORM_NAMES,
                             optarg);
                return mb_cli_fail("mbfit", sub, &err);
            }
            a->form_given = 1;
            break;
        case 'h': nupdate_help(&a->o, NUPDATE_SMOOTH); return 0;
        default: return mb_cli_bad_option("mbfit", sub, argv, optind, c);
        }
    }
    a->o.weights = a->cm.weights;
    if (optind >= argc)
        return mb_cli_usage("mbfit", sub, "no input files (run logs or one points file)");
    size_t nfiles = (size_t)(argc - optind);
    if (a->lt.batch && a->lt.n_batch != 1 && a->lt.n_batch != nfiles)
        return mb_cli_usage("mbfit", sub, "--batch: %zu sizes for %zu input%s (one for all, or "
                            "one per input)", a->lt.n_batch, nfiles, nfiles == 1 ? "" : "s");
    if ((a->levels || a->form_given) && !a->extrapolate)
        return mb_cli_usage("mbfit", sub, "--levels and --form go with --extrapolate");
    /* the levels fit has its own weights (relative) and its own choice of form (--form) */
    if (a->extrapolate && (mb_cli_given(&seen, OPT_WEIGHTS) || mb_cli_given(&seen, OPT_CHOOSE)))
        return mb_cli_usage("mbfit", sub, "%s has no effect with --extrapolate (its fit weighs "
                            "the levels' means relatively; --form chooses the law)",
                            mb_cli_given(&seen, OPT_WEIGHTS) ? "--weights" : "--choose");
    /* each resample is a nonlinear fit across levels, not a closed form: 10^6 of them took
     * a minute where the direct fit's take seconds (issue #25, G15) */
    if (a->extrapolate && a->boot_given && a->o.bootstrap > MB_FIT_LEVELS_BOOT_MAX) {
        mb_error_set(&err, MB_EINVAL, "--bootstrap %zu: at most %d with --extrapolate (each "
                     "resample refits the law across levels)", a->o.bootstrap,
                     MB_FIT_LEVELS_BOOT_MAX);
        return mb_cli_fail("mbfit", sub, &err);
    }
    /* a flag that changes nothing is a usage error (issue #25, H7); --extrapolate resamples
     * by default (levels.c: 200), unless --bootstrap 0 (campaign 16, S5) */
    const int resamples = a->o.bootstrap > 0 || (a->extrapolate && !a->boot_given);
    if (mb_cli_given(&seen, OPT_SEED) && !resamples)
        return mb_cli_usage("mbfit", sub, "--seed has no effect without resampling (--bootstrap "
                            "N >= 40, or --extrapolate's default 200): it seeds the resampling "
                            "only");
    if (a->extrapolate && a->lightning)
        return mb_cli_usage("mbfit", sub, "--extrapolate reads mbtrain run logs, not --lightning "
                            "logs");
    if (a->lt_flags && !a->lightning)
        return mb_cli_usage("mbfit", sub, "--loss-column, --batch and --batch-key go with "
                            "--lightning");
    return -1;
}

/* The first flag given that only run logs have a use for (a points file holds no target,
 * rate, algorithm, learner count or training loss), or NULL. */
static const char *points_flag(const nupdate_args *a)
{
    return a->target               ? "--target-loss"
           : !isnan(a->lr)         ? "--lr"
           : a->algo               ? "--algo"
           : !isnan(a->procs)      ? "--procs"
           : a->smooth_given       ? "--smooth"
                                   : NULL;
}

/* Reads the inputs into runs: one points file (*points = 1), or run logs at a's thresholds,
 * kept to a's learning rate, algorithm and learner count. -1 to go on (runs to be freed), else
 * the exit status. */
static int nupdate_read(const char *const *files, size_t nfiles, nupdate_args *a,
                        mb_fit_runs *runs, int *points)
{
    const char *sub = "nupdate";
    mb_error err = {0};
    /* A points file has an n_update column; anything else is a run log. */
    mb_table *t = NULL;
    if (!a->lightning && mb_table_read(files[0], &t, &err) != MB_OK)
        return mb_cli_fail("mbfit", sub, &err);
    *points = t && mb_table_col(t, "n_update") >= 0;
    if (t && !*points && mb_table_col(t, "update") < 0) {
        /* neither kind: bad data (exit 1), not a usage error */
        mb_error_set(&err, MB_EFORMAT, "%s: neither a run log (an 'update' column) nor a points "
                     "file (batch and n_update columns); its first column is '%s'",
                     files[0], mb_table_col_name(t, 0));
        mb_table_free(t);
        return mb_cli_fail("mbfit", sub, &err);
    }
    /* t is read once and handed on: the first input may be a FIFO */
    if (*points) {
        int bad = nfiles > 1 ? mb_cli_usage("mbfit", sub, "give one points file, not a points "
                                            "file and more (first: '%s')", files[0])
                  : points_flag(a) ? mb_cli_usage("mbfit", sub, "%s applies to run logs; "
                                                  "'%s' is a points file", points_flag(a),
                                                  files[0])
                  : mb_fit_runs_points_table(t, runs, &err) != MB_OK
                      ? mb_cli_fail("mbfit", sub, &err)
                      : 0;
        mb_table_free(t);
        return bad ? bad : -1;
    }
    double *thr = NULL;
    size_t nthr = 0;
    if (!a->target || parse_thresholds(a->target, &thr, &nthr, &err) != MB_OK) {
        free(thr);
        mb_table_free(t);
        return a->target ? mb_cli_fail("mbfit", sub, &err)
                         : mb_cli_usage("mbfit", sub, "run logs need --target-loss");
    }
    int rc = a->lightning ? mb_fit_runs_read_lightning(files, nfiles, &a->lt, thr, nthr, runs,
                                                       &a->lt_gap, &err)
                          : mb_fit_runs_read_logs_first(t, files, nfiles, thr, nthr, a->smooth,
                                                        runs, &err);
    mb_table_free(t);
    free(thr);
    /* the window smooths the training loss of logs without evaluations only (issue #25, H7) */
    if (rc == MB_OK && a->smooth_given && !runs->used_train_loss) {
        mb_fit_runs_free(runs);
        return mb_cli_usage("mbfit", sub, "--smooth has no effect on these logs: every one has "
                            "evaluations, and N_update is their crossing");
    }
    if (rc == MB_OK && !isnan(a->lr) && (rc = mb_fit_runs_keep_lr(runs, a->lr, &err)) != MB_OK)
        mb_fit_runs_free(runs);
    if (rc == MB_OK && (a->algo || !isnan(a->procs)) &&
        (rc = mb_fit_runs_keep_group(runs, a->algo, a->procs, &err)) != MB_OK)
        mb_fit_runs_free(runs);
    /* the runs left are fitted together: trained alike but for M and seed (campaign 21, N3) */
    if (rc == MB_OK && (rc = mb_fit_runs_same_settings(runs, files, NULL, &err)) != MB_OK)
        mb_fit_runs_free(runs);
    return rc != MB_OK ? mb_cli_fail("mbfit", sub, &err) : -1;
}

/* The JSON of nf fits (the first threshold's, the others under "thresholds") with the inputs
 * that made them; the fits' warnings go to standard error. */
static cJSON *nupdate_json(const mb_fit_nupdate *fits, size_t nf, const nupdate_args *a,
                           const mb_fit_runs *runs, const char *const *files, size_t nfiles,
                           int points)
{
    cJSON *root = mb_fit_nupdate_json(&fits[0], &a->o, runs, 0);
    cJSON *in = root ? cJSON_AddObjectToObject(root, "inputs") : NULL;
    if (in) {
        cJSON *fl = cJSON_AddArrayToObject(in, "files");
        for (size_t i = 0; fl && i < nfiles; i++)
            cJSON_AddItemToArray(fl, cJSON_CreateString(files[i]));
        cJSON_AddStringToObject(in, "source", points       ? "points"
                                              : a->lightning ? "lightning"
                                                             : "logs");
        if (a->lightning) /* 1: exact crossings; more: upper bounds, by up to gap - 1 */
            mb_json_add_number(in, "lightning_max_gap", a->lt_gap);
        if (!points) {
            mb_fit_runs_seeds_json(in, runs);
            mb_json_add_number(in, "smooth", (double)a->smooth);
            mb_json_add_number(in, "logs_using_training_loss", (double)runs->used_train_loss);
        }
    }
    cJSON *ts = root && nf > 1 ? cJSON_AddArrayToObject(root, "thresholds") : NULL;
    for (size_t k = 1; ts && k < nf; k++)
        cJSON_AddItemToArray(ts, mb_fit_nupdate_json(&fits[k], &a->o, runs, k));
    for (size_t k = 0; k < nf; k++)
        for (size_t i = 0; i < fits[k].warn.n; i++)
            mb_cli_say("mbfit", "nupdate", "warning: %s", fits[k].warn.msg[i]);
    return root;
}

/* --extrapolate: the options it takes, handed to fit/mbfit_levels.c. */
static int nupdate_levels(const char *const *files, size_t nfiles, const nupdate_args *a)
{
    levels_args la;
    mb_fit_levels_options_init(&la.o);
    la.o.form = a->form;
    la.o.seed = a->o.seed;
    if (a->boot_given)
        la.o.bootstrap = a->o.bootstrap;
    la.cm = a->cm;
    la.target = a->target;
    la.levels = a->levels;
    la.smooth = a->smooth;
    la.smooth_given = a->smooth_given;
    la.lr = a->lr, la.procs = a->procs, la.algo = a->algo;
    return nupdate_extrapolate(files, nfiles, &la);
}

int cmd_nupdate(int argc, char **argv)
{
    const char *sub = "nupdate";
    nupdate_args a;
    int status = nupdate_parse(argc, argv, &a);
    if (status >= 0)
        return status;
    const char *const *files = (const char *const *)argv + optind;
    size_t nfiles = (size_t)(argc - optind);
    int clash = output_over_input(sub, a.cm.output, argv + optind, nfiles);
    if (clash >= 0)
        return clash;
    if (a.extrapolate)
        return nupdate_levels(files, nfiles, &a);
    mb_fit_runs runs;
    int points = 0;
    if ((status = nupdate_read(files, nfiles, &a, &runs, &points)) >= 0)
        return status;

    mb_error err = {0};
    mb_fit_nupdate *fits = calloc(runs.n_thr, sizeof *fits);
    size_t nf = 0;
    int rc = fits ? MB_OK : mb_error_set(&err, MB_ENOMEM, "out of memory");
    for (; rc == MB_OK && nf < runs.n_thr; nf++)
        rc = mb_fit_nupdate_run(&runs, nf, &a.o, &fits[nf], &err);
    if (rc != MB_OK) {
        status = mb_cli_fail("mbfit", sub, &err);
    } else {
        cJSON *root = a.cm.json ? nupdate_json(fits, nf, &a, &runs, files, nfiles, points) : NULL;
        if (a.lt_gap > 1)
            mb_cli_say("mbfit", "nupdate", "note: '%s' was logged every %g updates at most "
                       "before the crossing: each N_update is the first logged step at or under "
                       "the target, an upper bound on the first crossing (by up to %g updates)",
                       a.lt.loss_column, a.lt_gap, a.lt_gap - 1);
        if (runs.used_train_loss && !a.cm.json)
            fprintf(stderr, "mbfit nupdate: %d log(s) have no evaluation loss: used the mean "
                            "training loss of the last %zu rows\n",
                    runs.used_train_loss, a.smooth);
        nup_print np = {fits, nf, &a.o};
        status = emit(sub, &a.cm, root, nupdate_print, &np);
    }
    for (size_t k = 0; k < nf; k++)
        mb_fit_nupdate_free(&fits[k]);
    free(fits);
    mb_fit_runs_free(&runs);
    return status;
}
