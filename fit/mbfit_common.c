/* mbfit_common.c — what mbfit's subcommands share (mbfit_cli.h): the output options, printing
 * a fit, writing the result atomically, the refusal of an output that is an input, and the
 * options of a one-table subcommand.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mbfit_cli.h"
#include "../data/mb_cli.h"
#include "../data/mb_format.h"
#include "../data/mb_json.h"
#include "../data/mb_output.h"
#include "../data/mb_parse.h"
#include "../data/mb_table.h"

/* Handles -o, --json, --weights; 1 when taken, -1 on a bad value, 0 otherwise. */
int common_option(common *c, int opt, const char *arg, int allow_seeds, mb_error *err)
{
    switch (opt) {
    case OPT_JSON: c->json = 1; return 1;
    case 'o': c->output = arg; return 1;
    case OPT_WEIGHTS:
        if (mb_fit_weighting_parse(arg, &c->weights) != MB_OK ||
            (!allow_seeds && (c->weights == MB_FIT_W_SEEDS || c->weights == MB_FIT_W_POOLED))) {
            mb_error_set(err, MB_EINVAL, "--weights: '%s' is not one of %s", arg,
                         allow_seeds ? "none, relative, seeds, pooled" : "none, relative");
            return -1;
        }
        return 1;
    default: return 0;
    }
}

/* Formats a number, "-" for NAN / inf. */
const char *num(char *buf, size_t n, double v)
{
    if (!isfinite(v))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.6g", v);
    return buf;
}

void print_fit(FILE *f, const char *label, const mb_fit_result *r)
{
    char a[32], b[32], c[32], d[32];
    for (size_t j = 0; j < r->n_params; j++)
        fprintf(f, "%-12s %-13s %13s %12s  [%s, %s]%s\n", j ? "" : label, r->names[j],
                num(a, sizeof a, r->p[j]), num(b, sizeof b, r->se[j]), num(c, sizeof c, r->ci_lo[j]),
                num(d, sizeof d, r->ci_hi[j]), r->fixed[j] ? "  (held at bound)" : "");
    fprintf(f, "%-12s R^2 %s, %zu points, dof %g, chi2 %s, AIC %s, %s after %zu iterations%s%s\n",
            "", num(a, sizeof a, r->r2), r->n_points, r->dof, num(b, sizeof b, r->chi2),
            num(c, sizeof c, r->aic), r->status == MB_OK ? "converged" : "NOT CONVERGED",
            r->iterations, r->status == MB_OK ? "" : ": ", r->status == MB_OK ? "" : r->gsl_reason);
}

void print_warnings(FILE *f, const mb_fit_warnings *w)
{
    for (size_t i = 0; i < w->n; i++)
        fprintf(f, "warning: %s\n", w->msg[i]);
}

/* Writes JSON (atomic) or runs `print` into an atomic output. Takes ownership of root. */
int emit(const char *sub, const common *c, cJSON *root, void (*print)(FILE *, const void *),
         const void *arg)
{
    mb_error err = {0};
    if (c->json) {
        if (!root) {
            fprintf(stderr, "mbfit %s: out of memory\n", sub);
            return 1;
        }
        int rc = mb_format_add_json(root, MB_FORMAT_FIT) != MB_OK
                     ? mb_error_set(&err, MB_ENOMEM, "out of memory")
                     : mb_json_write(c->output, root, &err);
        cJSON_Delete(root);
        return rc == MB_OK ? 0 : mb_cli_fail("mbfit", sub, &err);
    }
    cJSON_Delete(root);
    mb_out o;
    if (mb_out_open(&o, c->output, &err) != MB_OK)
        return mb_cli_fail("mbfit", sub, &err);
    print(o.f, arg);
    return mb_out_commit(&o, &err) == MB_OK ? 0 : mb_cli_fail("mbfit", sub, &err);
}

/* An output that would overwrite one of the command's inputs is refused before any work:
 * exit 1 with one line; -1 when there is no clash. */
int output_over_input(const char *sub, const char *output, char *const *in, size_t n)
{
    /* a folder given as an input (a Lightning version folder) is read for these */
    static const char *const inside[] = {"metrics.csv", "hparams.yaml"};
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        int dir = stat(in[i], &st) == 0 && S_ISDIR(st.st_mode);
        for (size_t k = 0; k <= (dir ? 2u : 0u); k++) {
            char path[4096];
            snprintf(path, sizeof path, "%s%s%s", in[i], k ? "/" : "", k ? inside[k - 1] : "");
            if (mb_data_same_file(output, path)) {
                mb_error err = {0};
                mb_error_set(&err, MB_EINVAL, "-o %s would overwrite the input %s", output,
                             path);
                return mb_cli_fail("mbfit", sub, &err);
            }
        }
    }
    return -1;
}

/* What `mbfit nupdate`'s command line says. */

/* The options of a one-table subcommand (--weights none|relative, --json, -o, --help).
 * Returns -1 when parsed (*path set), else the exit status (0 after --help). */
int one_table_args(const char *sub, int argc, char **argv, void (*help_fn)(void),
                   const char *what, common *cm, const char **path, int *n_more)
{
    static const struct option lo[] = {{"weights", required_argument, 0, OPT_WEIGHTS},
                                       {"json", no_argument, 0, OPT_JSON},
                                       {"threads", required_argument, 0, OPT_THREADS},
                                       {"output", required_argument, 0, 'o'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
    mb_error err = {0};
    int c;
    mb_cli_seen seen = {"mbfit", sub, NULL, {0}, NULL};
    while ((c = mb_cli_getopt(argc, argv, ":ho:", lo, &seen)) != -1) {
        int r = common_option(cm, c, optarg, 0, &err);
        if (r < 0)
            return mb_cli_fail("mbfit", sub, &err);
        if (r > 0)
            continue;
        if (c == 'h') {
            help_fn();
            return 0;
        }
        if (c == OPT_THREADS && !isnan(cm->threads)) {
            if (mb_data_flag_whole("--threads", optarg, 0, 1, MB_DATA_RANGE_MAX, &cm->threads,
                                   &err) != MB_OK)
                return mb_cli_fail("mbfit", sub, &err);
            continue;
        }
        if (c == OPT_THREADS) /* tupdate's only */
            return mb_cli_usage("mbfit", sub, "unknown option '--threads'");
        return mb_cli_bad_option("mbfit", sub, argv, optind, c);
    }
    if (n_more ? optind >= argc : optind + 1 != argc)
        return mb_cli_usage("mbfit", sub, what, "");
    *path = argv[optind];
    if (n_more)
        *n_more = argc - optind - 1;
    return output_over_input(sub, cm->output, argv + optind, (size_t)(argc - optind));
}
