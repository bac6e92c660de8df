/* mbfit_levels.c — `mbfit nupdate --extrapolate`: N_update(M) at a final target loss below every
 * level the calibration runs reached, from each run's crossings of a grid of levels
 * (fit/levels.c). Reads the logs, prints the per-level fits and the prediction, or writes the
 * nfit JSON that mbopt reads. Options are parsed by mbfit_nupdate.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbfit_cli.h"
#include "../data/mb_cli.h"
#include "../data/mb_parse.h"
#include "../train/run/mb_run.h"

/* The default grid: LEVELS_N levels from L1 up to LEVELS_SPAN x L1, L1 the highest target the
 * runs were trained to (every run was to reach it); or the logs' own `# levels=` and L1. Levels
 * near L1 predict best: the curves steepen as the loss falls, and levels far above L1 teach a
 * slope that is too shallow (docs/models.md, "N_update below the calibration's target"). */
#define LEVELS_N 4
#define LEVELS_SPAN 1.3

/* Parses "0.8,0.7,0.6" (numbers > 0, each once) into v[0..*n), at most cap. */
static int parse_levels(const char *flag, const char *s, double *v, size_t cap, size_t *n,
                        mb_error *err)
{
    char **items;
    size_t k;
    int rc = mb_data_split_list(s, flag, 0, &items, &k, err);
    if (rc != MB_OK)
        return rc;
    *n = 0;
    if (k > cap)
        rc = mb_error_set(err, MB_EINVAL, "%s: %zu values, more than %zu", flag, k, cap);
    for (size_t i = 0; rc == MB_OK && i < k; i++) {
        double x;
        if (mb_data_parse_double(items[i], &x) != MB_OK || !(x > 0) || !isfinite(x))
            rc = mb_error_set(err, MB_EINVAL, "%s: '%s' is not a number > 0", flag, items[i]);
        for (size_t j = 0; rc == MB_OK && j < *n; j++)
            if (mb_run_level_same(v[j], x))
                rc = mb_error_set(err, MB_EINVAL, MB_RUN_LEVEL_TWICE, flag, items[i], s);
        if (rc == MB_OK)
            v[(*n)++] = x;
    }
    free(items);
    return rc;
}

/* A level a hair above the --extrapolate target (campaign 15): a log's last place cannot tell
 * them apart. MB_EINVAL quoting both as typed (a default level, computed, to 15 digits). */
static int level_at_target(const levels_args *la, double target, const double *lev, size_t nl,
                           mb_error *err)
{
    for (size_t l = 0; l < nl; l++) {
        if (!(lev[l] > target && !mb_run_level_above(lev[l], target)))
            continue;
        char **items = NULL, num[32];
        size_t k = 0;
        mb_error e = {0};
        snprintf(num, sizeof num, "%.15g", lev[l]);
        if (la->levels && mb_data_split_list(la->levels, "--levels", 0, &items, &k, &e) != MB_OK)
            items = NULL, k = 0;
        int rc = mb_error_set(err, MB_EINVAL, "--target-loss %s lies within the 6 digits a log "
                              "writes of the level %s: nothing to extrapolate (fit it directly, "
                              "or a target further below)", la->target, l < k ? items[l] : num);
        free(items);
        return rc;
    }
    return MB_OK;
}

/* A log's `# levels=` (mbtrain --levels: the losses above its target that its staged checks and
 * spacing aimed at) into v[0..*n), at most cap; *n = 0 when it has none. MB_EFORMAT when it is
 * not a list of numbers > 0, or breaks mbtrain's rules for --levels (train/mbtrain.c,
 * mb_run_check_options): each above the log's target (when target is a number), from the
 * highest down, at most MB_RUN_LEVELS_MAX, and only beside staged checks (`# check_frac=` or
 * `# eval_adapt=`) - no writer logs other ones, and a level at the target would be fitted
 * twice beside L1 (campaign 13, Q1). */
static int log_levels(const mb_table *t, const char *file, double target, double *v, size_t cap,
                      size_t *n, mb_error *err)
{
    const char *s = mb_table_meta(t, "levels");
    *n = 0;
    if (!s)
        return MB_OK;
    mb_error e = {0};
    if (parse_levels("levels", s, v, cap, n, &e) != MB_OK)
        return mb_error_set(err, MB_EFORMAT, "%s: metadata 'levels': '%s' is not a list of "
                            "losses > 0, each once (%s)", file, s, e.msg);
    if (*n > MB_RUN_LEVELS_MAX)
        return mb_error_set(err, MB_EFORMAT, "%s: metadata 'levels': %zu levels, more than "
                            "mbtrain's %d", file, *n, (int)MB_RUN_LEVELS_MAX);
    for (size_t j = 0; j < *n; j++) {
        if (!isnan(target) && !mb_run_level_above(v[j], target)) {
            char b[MB_DATA_TYPED_LEN]; /* the target as written (campaign 42, F1) */
            return mb_error_set(err, MB_EFORMAT, "%s: metadata 'levels': %.17g is not above "
                                "target_loss %s by more than the 6 digits a log writes", file,
                                v[j], mb_data_typed(b, target));
        }
        if (j > 0 && !(v[j] < v[j - 1]))
            return mb_error_set(err, MB_EFORMAT, "%s: metadata 'levels': '%s' is not from the "
                                "highest down (%g after %g)", file, s, v[j], v[j - 1]);
    }
    const char *cf = mb_table_meta(t, "check_frac"), *ea = mb_table_meta(t, "eval_adapt"),
               *cs = mb_table_meta(t, "check_sigmas");
    double frac = 0, sig;
    /* what mbtrain writes beside them, as it writes it (campaign 15) */
    if (cf && !(mb_data_parse_double(cf, &frac) == MB_OK && frac >= 0 && frac < 1))
        return mb_error_set(err, MB_EFORMAT, "%s: metadata 'check_frac': '%s' is not a fraction "
                            "in [0, 1)", file, cf);
    if (ea && strcmp(ea, "0") != 0 && strcmp(ea, "1") != 0)
        return mb_error_set(err, MB_EFORMAT, "%s: metadata 'eval_adapt': '%s' is not 0 or 1",
                            file, ea);
    if (cs && !(mb_data_parse_double(cs, &sig) == MB_OK && sig > 0 && isfinite(sig)))
        return mb_error_set(err, MB_EFORMAT, "%s: metadata 'check_sigmas': '%s' is not a number "
                            "above 0", file, cs);
    const int staged = frac > 0 || (ea && strcmp(ea, "1") == 0);
    if (*n > 0 && !staged)
        return mb_error_set(err, MB_EFORMAT, "%s: metadata 'levels' without a 'check_frac' in "
                            "(0, 1) or 'eval_adapt=1' (mbtrain writes the levels only beside "
                            "staged checks)", file);
    return MB_OK;
}

/* The logs' own levels (not --levels) that a run was already under at its first full
 * evaluation: its staged checks had ruled the level out before, which the log does not record,
 * so the run crossed it at no known update (a fast seed: the seventeenth session's default make
 * run failed on one, M = 16, 0.635 at update 225 under the level 0.65). Left out of lev[0..nl),
 * with a note on stderr, where the lowest level (L1, the target) and one more remain; the
 * number left out (0: lev unchanged, and mb_fit_runs_start_above says what is wrong). */
static size_t drop_unbracketed(const mb_fit_runs *r, const char *const *files, double *lev,
                               size_t *nl)
{
    double first = INFINITY, l1 = INFINITY;
    size_t at = 0, kept = 0;
    for (size_t i = 0; r->first_loss && i < r->n; i++)
        if (r->first_loss[i] < first)
            first = r->first_loss[i], at = i;
    for (size_t l = 0; l < *nl; l++)
        l1 = fmin(l1, lev[l]);
    for (size_t l = 0; l < *nl; l++)
        kept += lev[l] == l1 || lev[l] < first;
    if (kept == *nl || kept < 2 || !(first > l1))
        return 0;
    char gone[256] = "";
    size_t k = 0, len = 0;
    for (size_t l = 0; l < *nl; l++) {
        if (lev[l] == l1 || lev[l] < first)
            lev[k++] = lev[l];
        else if (len < sizeof gone)
            len += (size_t)snprintf(gone + len, sizeof gone - len, "%s%g", len ? ", " : "",
                                    lev[l]);
    }
    fprintf(stderr, "mbfit nupdate: note: left out the level%s %s: %s was already under %s at "
            "its first full evaluation (loss %g at update %g), so it crossed at no known update\n",
            *nl - k == 1 ? "" : "s", gone, files[r->file ? r->file[at] : at],
            *nl - k == 1 ? "it" : "them", first, r->first_update[at]);
    *nl = k;
    return k;
}

/* The default levels from the runs' `# target_loss=` (tabs[i]: files[i] read once, issue #25
 * G13): MB_ENODATA when a log has none, MB_EFORMAT when one is not a number > 0 or two logs
 * were trained to different targets (which L1 is meant is then undefined: G3). Logs that state
 * `# levels=` (mbtrain --levels) give those and L1: their staged checks judged those levels,
 * so those are the crossings they log exactly (a log without, of full evaluations, logs every
 * crossing); two logs that state different ones are MB_EFORMAT (give --levels). Else LEVELS_N
 * levels from L1 up to LEVELS_SPAN x L1. */
static int default_levels(mb_table *const *tabs, const char *const *files, size_t nfiles,
                          double *lev, size_t *n, mb_error *err)
{
    double l1 = NAN;
    size_t first = 0;
    for (size_t i = 0; i < nfiles; i++) {
        const char *v = mb_table_meta(tabs[i], "target_loss");
        double x;
        if (!v)
            return mb_error_set(err, MB_ENODATA, "%s: no '# target_loss=' to take the levels "
                                "from: give them with --levels", files[i]);
        if (mb_data_parse_double(v, &x) != MB_OK || !(x > 0) || !isfinite(x))
            return mb_error_set(err, MB_EFORMAT, "%s: metadata 'target_loss': '%s' is not a "
                                "positive number", files[i], v);
        if (isnan(l1)) {
            l1 = x;
            first = i;
        } else if (!mb_run_level_same(x, l1)) { /* the levels' rule, values as the logs write
                                                  * them (campaign 42, F2) */
            return mb_error_set(err, MB_EFORMAT, "%s: '# target_loss=%s', but %s's is %s: the "
                                "calibration runs were trained to different targets, so L1 is "
                                "not defined (give the levels with --levels)", files[i], v,
                                files[first], mb_table_meta(tabs[first], "target_loss"));
        }
    }
    double lv[MB_FIT_LEVELS_CAP], lv0[MB_FIT_LEVELS_CAP];
    size_t k, k0 = 0, with = 0;
    for (size_t i = 0; i < nfiles; i++) {
        int rc = log_levels(tabs[i], files[i], l1, k0 ? lv : lv0, MB_FIT_LEVELS_CAP - 1,
                            k0 ? &k : &k0, err);
        if (rc != MB_OK)
            return rc;
        if (k0 == 0 || with == i) { /* none yet, or this log's are the first */
            with = k0 ? i : i + 1;
            continue;
        }
        int same = k == 0 || k == k0; /* a log without levels does not say */
        for (size_t j = 0; k > 0 && same && j < k; j++)
            same = mb_run_level_same(lv[j], lv0[j]); /* to the 6 digits a log writes, as
                                                       * # target_loss= (campaign 44 A, F3) */
        if (!same)
            return mb_error_set(err, MB_EFORMAT, "%s: '# levels=%s', but %s's is '%s': the runs' "
                                "checks aimed at different levels (to the 6 "
                                "digits a log writes), whose crossings they log exactly (give the levels with --levels)", files[i],
                                mb_table_meta(tabs[i], "levels"), files[with],
                                mb_table_meta(tabs[with], "levels"));
    }
    if (k0 > 0) {
        memcpy(lev, lv0, k0 * sizeof *lev);
        lev[k0] = l1;
        *n = k0 + 1;
        return MB_OK;
    }
    for (size_t j = 0; j < LEVELS_N; j++)
        lev[j] = l1 * (1.0 + (LEVELS_SPAN - 1.0) * (double)(LEVELS_N - 1 - j) / (LEVELS_N - 1));
    *n = LEVELS_N;
    return MB_OK;
}

/* A log with staged checks (`# check_frac=`) logs in full only the evaluations its checks could
 * not rule out against its target or the level it aimed at (`# levels=`): its first logged
 * crossing of another level above its target can come after the true one. One line naming the
 * first such log and level, and how many logs are so, when a fitted level is one; nothing
 * else. */
static void note_unjudged(mb_table *const *tabs, const char *const *files, size_t nfiles,
                          const double *lev, size_t nl)
{
    size_t bad = 0, first = 0;
    double level = NAN;
    for (size_t i = 0; i < nfiles; i++) {
        const char *cf = mb_table_meta(tabs[i], "check_frac"), *tl = mb_table_meta(tabs[i],
                                                                                   "target_loss");
        double frac, target, lv[MB_FIT_LEVELS_CAP];
        size_t k = 0;
        mb_error e = {0};
        if (!cf || !tl || mb_data_parse_double(cf, &frac) != MB_OK || !(frac > 0) ||
            mb_data_parse_double(tl, &target) != MB_OK ||
            log_levels(tabs[i], files[i], target, lv, MB_FIT_LEVELS_CAP, &k, &e) != MB_OK)
            continue;
        for (size_t l = 0; l < nl; l++) {
            /* by the 6-decimal rule everything else uses (campaign 43's F1: --levels 1.3000001,
             * the logs' 1.3, was warned as a level not judged) */
            int judged = !mb_run_level_above(lev[l], target);
            for (size_t j = 0; !judged && j < k; j++)
                judged = mb_run_level_same(lev[l], lv[j]);
            if (!judged) {
                if (bad++ == 0)
                    first = i, level = lev[l];
                break;
            }
        }
    }
    if (bad > 0) {
        const char *lv = mb_table_meta(tabs[first], "levels");
        char typed[MB_DATA_TYPED_LEN];
        mb_cli_say("mbfit", "nupdate", "warning: %s's staged checks judged %s%s and its target "
                   "only, so its first logged crossing of level %s may come late (%zu log%s so; "
                   "fit the levels they judged, or runs with full evaluations)", files[first],
                   lv ? "levels " : "no level", lv ? lv : "", mb_data_typed(typed, level), bad,
                   bad == 1 ? "" : "s");
    }
}

/* Reads every input once into (*tabs)[0..n) (freed with free_tables): the logs are looked into
 * for their targets and then fitted, and a FIFO cannot be opened twice. */
static int read_tables(const char *const *files, size_t n, mb_table ***tabs, mb_error *err)
{
    *tabs = calloc(n ? n : 1, sizeof **tabs);
    if (!*tabs)
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    int rc = MB_OK;
    for (size_t i = 0; rc == MB_OK && i < n; i++)
        rc = mb_table_read(files[i], &(*tabs)[i], err);
    return rc;
}

static void free_tables(mb_table **tabs, size_t n)
{
    for (size_t i = 0; tabs && i < n; i++)
        mb_table_free(tabs[i]);
    free(tabs);
}

typedef struct lev_print {
    const mb_fit_levels *f;
    double b_simple; /* the runs' median B_simple (NAN: none logged one) */
    size_t b_simple_runs;
} lev_print;

static void levels_print(FILE *out, const void *arg)
{
    const lev_print *lp = arg;
    const mb_fit_levels *f = lp->f;
    char a[32], b[32], c[32], d[32], e[32], tg[MB_DATA_TYPED_LEN], l1[MB_DATA_TYPED_LEN];
    mb_data_typed(tg, f->target); /* as typed (campaign 42, F1: --target-loss 1e-9 was 1e-09) */
    mb_data_typed(l1, f->l1);     /* as the logs' '# target_loss=' */
    fprintf(out, "# N_update(M) at target loss %s, extrapolated from %zu levels down to L1 = %s "
            "(the %s law across levels)\n", tg, f->n_levels, l1,
            mb_fit_levels_form_name(f->form));
    fprintf(out, "# form: %s\n", f->why);
    fprintf(out, "# per level: the inverse law N_inf + alpha / M fitted to the mean first "
            "crossing at each M\n%10s %14s %14s %10s\n", "level", "N_inf", "alpha", "r2");
    for (size_t l = 0; l < f->n_levels; l++)
        fprintf(out, "%10g %14s %14s %10.4f\n", f->levels[l],
                num(a, sizeof a, f->per_level[l].p[0]), num(b, sizeof b, f->per_level[l].p[1]),
                f->per_level[l].r2);
    fprintf(out, "%-12s %-13s %13s %12s  %s\n", "model", "param", "value", "stderr", "ci95");
    print_fit(out, mb_fit_levels_form_name(f->form), &f->joint);
    if (!isnan(f->floor))
        fprintf(out, "loss floor L_f = %.4g\n", f->floor);
    const double b_l1 = f->joint.p[1] / f->joint.p[0];
    fprintf(out, "B_noise = alpha / N_inf: %s at L1 = %s, %s at the target\n",
            num(a, sizeof a, b_l1), l1, num(b, sizeof b, f->alpha / f->n_inf));
    if (lp->b_simple_runs) /* the runs' own estimate, over their whole curves (to L1) */
        fprintf(out, "gradient noise scale: B_simple %s (median of %zu runs) beside B_noise at "
                "L1 = %s: ratio %s\n", num(a, sizeof a, lp->b_simple), lp->b_simple_runs,
                num(b, sizeof b, b_l1), num(c, sizeof c, lp->b_simple / b_l1));
    if (f->form == MB_FIT_LEVELS_SHIFTED) /* the law at the target is N_inf + alpha / (M - M_0) */
        fprintf(out, "at target %s: the shifted law, M_0 = %s [%s, %s]; the inverse law fitted "
                "to it: N_inf %s, alpha %s\n", tg, num(a, sizeof a, f->m_0),
                num(b, sizeof b, f->m_0_lo), num(c, sizeof c, f->m_0_hi),
                num(d, sizeof d, f->inv_n_inf), num(e, sizeof e, f->inv_alpha));
    if (f->boot_b == 0) /* --bootstrap 0, or an M of one run (the warning says) */
        fprintf(out, "at target %s: N_inf %s, alpha %s (no bootstrap interval)\n", tg,
                num(a, sizeof a, f->n_inf), num(b, sizeof b, f->alpha));
    else {
        fprintf(out, "at target %s: N_inf %s [%s, %s],", tg, num(a, sizeof a, f->n_inf),
                num(b, sizeof b, f->n_inf_lo), num(c, sizeof c, f->n_inf_hi));
        fprintf(out, " alpha %s [%s, %s] (95%%, %zu of %zu bootstrap resamples of the runs)\n",
                num(a, sizeof a, f->alpha), num(b, sizeof b, f->alpha_lo),
                num(c, sizeof c, f->alpha_hi), f->boot_ok, f->boot_b);
    }
    fprintf(out, "%10s %6s %14s %14s %14s %14s\n", "M", "runs", "N_at_L1", "predicted",
            "ci95_lo", "ci95_hi");
    for (size_t g = 0; g < f->n_m; g++) {
        double at_l1 = NAN;
        for (size_t l = 0; l < f->n_levels; l++)
            if (f->levels[l] == f->l1)
                at_l1 = f->mean[g * f->n_levels + l];
        fprintf(out, "%10g %6zu %14s %14s %14s %14s\n", f->batch[g], f->runs_at[g],
                num(a, sizeof a, at_l1), num(b, sizeof b, f->pred[g]),
                num(c, sizeof c, f->lo[g]), num(d, sizeof d, f->hi[g]));
    }
    print_warnings(out, &f->warn);
}

int nupdate_extrapolate(const char *const *files, size_t nfiles, const levels_args *la)
{
    const char *sub = "nupdate";
    mb_error err = {0};
    double target, lev[MB_FIT_LEVELS_CAP];
    size_t nt = 0, nl = 0;
    if (!la->target)
        return mb_cli_usage("mbfit", sub, "--extrapolate needs --target-loss (the final target)");
    if (parse_levels("--target-loss", la->target, &target, 1, &nt, &err) != MB_OK)
        return mb_cli_usage("mbfit", sub, "%s (--extrapolate takes one final target)", err.msg);
    int rc;
    if (la->levels && (rc = parse_levels("--levels", la->levels, lev, MB_FIT_LEVELS_CAP, &nl,
                                         &err)) != MB_OK)
        return rc == MB_EINVAL ? mb_cli_usage("mbfit", sub, "%s", err.msg)
                               : mb_cli_fail("mbfit", sub, &err);
    mb_table **tabs = NULL;
    mb_fit_runs runs;
    rc = read_tables(files, nfiles, &tabs, &err);
    if (rc == MB_OK && !la->levels)
        rc = default_levels(tabs, files, nfiles, lev, &nl, &err);
    if (rc == MB_OK)
        rc = level_at_target(la, target, lev, nl, &err);
    if (rc == MB_OK)
        note_unjudged(tabs, files, nfiles, lev, nl);
    if (rc == MB_OK)
        rc = mb_fit_runs_read_tables((const mb_table *const *)tabs, files, nfiles, lev, nl,
                                     la->smooth, &runs, &err);
    if (rc == MB_OK && !la->levels && drop_unbracketed(&runs, files, lev, &nl)) {
        mb_fit_runs_free(&runs);
        rc = mb_fit_runs_read_tables((const mb_table *const *)tabs, files, nfiles, lev, nl,
                                     la->smooth, &runs, &err);
    }
    free_tables(tabs, nfiles);
    if (rc != MB_OK)
        return mb_cli_fail("mbfit", sub, &err);
    /* the window smooths the training loss of logs without evaluations only (issue #25, G4) */
    if (la->smooth_given && !runs.used_train_loss) {
        mb_fit_runs_free(&runs);
        return mb_cli_usage("mbfit", sub, "--smooth has no effect with --extrapolate on these "
                            "logs: every one has evaluations, and the levels are their "
                            "crossings");
    }
    if (rc == MB_OK && !isnan(la->lr))
        rc = mb_fit_runs_keep_lr(&runs, la->lr, &err);
    if (rc == MB_OK && (la->algo || !isnan(la->procs)))
        rc = mb_fit_runs_keep_group(&runs, la->algo, la->procs, &err);
    /* trained alike but for M and seed, and every level below where each run was first judged
     * (campaign 21, N3 and N15) */
    if (rc == MB_OK)
        rc = mb_fit_runs_same_settings(&runs, files, NULL, &err);
    if (rc == MB_OK)
        rc = mb_fit_runs_start_above(&runs, files, &err);
    /* a run that never reached the lowest level (an M too small for this rate, cut by the
     * sweep's time cap) is no calibration: left out, as a direct fit leaves out the M outside
     * its converged range */
    char left[512], note[768] = "";
    size_t n_left = rc == MB_OK ? mb_fit_runs_keep_crossed(&runs, left, sizeof left) : 0;
    double lowest = lev[0];
    for (size_t l = 1; l < nl; l++)
        lowest = fmin(lowest, lev[l]);
    if (n_left > 0)
        snprintf(note, sizeof note, "left out %zu run%s that did not reach the lowest level %g "
                 "(or at an M where most did not): %s", n_left, n_left == 1 ? "" : "s", lowest,
                 left);
    mb_fit_levels f;
    memset(&f, 0, sizeof f);
    if (rc == MB_OK)
        rc = mb_fit_levels_run(&runs, runs.n == nfiles ? files : NULL, target, &la->o, &f, &err);
    if (rc != MB_OK && *note) { /* one line: why, and what was left out before it */
        size_t len = strlen(err.msg);
        snprintf(err.msg + len, sizeof err.msg - len, " (%s)", note);
    } else if (*note) {
        mb_cli_say("mbfit", sub, "%s", note);
    }
    int status;
    if (rc != MB_OK) {
        status = mb_cli_fail("mbfit", sub, &err);
    } else {
        cJSON *root = la->cm.json ? mb_fit_levels_json(&f, &la->o) : NULL;
        if (root) {
            cJSON *in = cJSON_AddObjectToObject(root, "inputs");
            cJSON *fl = in ? cJSON_AddArrayToObject(in, "files") : NULL;
            for (size_t i = 0; fl && i < nfiles; i++)
                cJSON_AddItemToArray(fl, cJSON_CreateString(files[i]));
            if (in)
                cJSON_AddStringToObject(in, "source", "logs");
            mb_fit_runs_seeds_json(in, &runs);
            for (size_t i = 0; i < f.warn.n; i++)
                mb_cli_say("mbfit", "nupdate", "warning: %s", f.warn.msg[i]);
        }
        lev_print lp = {&f, NAN, 0};
        lp.b_simple = mb_fit_runs_b_simple(&runs, &lp.b_simple_runs);
        status = emit(sub, &la->cm, root, levels_print, &lp);
    }
    mb_fit_levels_free(&f);
    mb_fit_runs_free(&runs);
    return status;
}
