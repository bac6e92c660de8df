/* mbopt_holdout.c — `mbopt validate`'s held-out check and sequential sampling, as mbopt prints
 * them: the plan of held-out runs (--holdout-plan, --holdout-beyond) and of more seeds
 * (--more-seeds), the held-out runs graded against the recommendation (solver/holdout.c does
 * the statistics), the check line, its table and its JSON.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mbopt_cli.h"
#include "../data/mb_cli.h"
#include "../data/mb_json.h"

void holdout_free(holdout_cli *hc)
{
    if (hc->on) {
        mb_validate_free(&hc->h);
        mb_fit_runs_free(&hc->runs);
        globfree(&hc->g);
    }
    free(hc->pred_ci);
    hc->pred_ci = NULL;
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
        printf("%s%.0f,,%lu", first ? "" : " ", m, seed);
    else
        printf("%s%.0f,%.9g,%lu", first ? "" : " ", m, lr, seed);
}

/* The M a held-out check may train: a --batch-range the user gave (a bound they set, memory
 * say), else any that mbtrain takes (MB_HOLDOUT_M_MAX). The runs' converged range bounds where the model answers, not where fresh
 * runs may look: an answer held at its edge is checked a step past it, or the check could only
 * ever find it the best (on a GPU, the calibration's largest M held the answer at 128 and the
 * check tried nothing above it; docs/results.md, "The third lending"). */
static void holdout_range(const model_opts *m, double range[2])
{
    range[0] = m->have_range ? m->m_lo : 1;
    range[1] = fmin(m->have_range ? m->m_hi : INFINITY, MB_HOLDOUT_M_MAX);
}

/* --holdout-plan N: the held-out sweep, seed by seed over M, on one line; what it holds out on
 * standard error. */
int holdout_plan_print(const mb_validate *v, const mb_fit_runs *runs, const model_opts *m,
                              size_t n_seeds, unsigned long seed0, mb_error *err)
{
    mb_holdout_plan plan;
    double range[2], *skip = malloc((MAX_NFIT * MB_FIT_SEEDS_MAX) * sizeof *skip);
    size_t n_skip = 0;
    holdout_range(m, range);
    for (size_t k = 0; skip && k < m->n_nfit; k++) /* the fits' own seeds (campaign 31's N3) */
        for (size_t j = 0; j < m->nfs[k].n_fit_seeds; j++)
            skip[n_skip++] = m->nfs[k].fit_seeds[j];
    int rc = skip ? mb_solver_holdout_plan(v, runs, skip, n_skip, range[0], range[1], n_seeds,
                                           seed0 ? seed0 : MB_HOLDOUT_SEED0, &plan, err)
                  : mb_error_set(err, MB_ENOMEM, "out of memory");
    free(skip);
    if (rc != MB_OK)
        return rc;
    char what[512] = "";
    for (size_t k = 0, len = 0; k < plan.n_batch && len < sizeof what; k++)
        len += (size_t)snprintf(what + len, sizeof what - len, "%s%.0f (%s)", k ? ", " : "",
                                plan.batch[k], plan.why[k]);
    mb_cli_say(prog, "validate", "held out at P = %g: M = %s on seeds %lu..%lu, none of them a "
               "seed of the %zu runs that fitted and chose", plan.p, what, plan.seeds[0],
               plan.seeds[plan.n_seeds - 1], runs->n);
    for (size_t s = 0; s < plan.n_seeds; s++)
        for (size_t k = 0; k < plan.n_batch; k++)
            print_token(plan.batch[k], plan.lr, plan.seeds[s], s == 0 && k == 0);
    printf("\n");
    return MB_OK;
}

/* Whether a run of the setting of row r used seed s. */
static int seed_used(const mb_fit_runs *runs, const mb_validate_row *r, double s)
{
    for (size_t i = 0; i < runs->n; i++)
        if (run_of(runs, i, r) && runs->seed[i] == s)
            return 1;
    return 0;
}

/* The next seed for the setting of row r: one past the largest seed its runs used below the
 * held-out seeds, else the least one below them it has not used (campaign 34's R4: past 999
 * it proposed 1000, a held-out seed, and then the same run again); -1 when it used them all. */
static long next_seed(const mb_fit_runs *runs, const mb_validate_row *r)
{
    double top = -1;
    for (size_t i = 0; i < runs->n; i++)
        if (run_of(runs, i, r) && runs->seed[i] < MB_HOLDOUT_SEED0 && runs->seed[i] > top)
            top = runs->seed[i];
    if (top + 1 < MB_HOLDOUT_SEED0)
        return (long)(top + 1);
    for (long s = 0; s < MB_HOLDOUT_SEED0; s++)
        if (!seed_used(runs, r, (double)s))
            return s;
    return -1;
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
const char *holdout_sampling_line(char *buf, size_t size, const mb_validate *v,
                                 const mb_sequential *q)
{
    char list[256], paired[96] = "";
    if (q->n_paired)
        snprintf(paired, sizeof paired, " (%zu rivals judged instead by their differences from "
                 "it, seed by seed)", q->n_paired);
    if (q->leader < 0)
        snprintf(buf, size, "no setting reached the target: nothing to decide");
    else if (q->decided)
        snprintf(buf, size, "decided: no other setting's %.0f%% interval of its median reaches "
                 "that of the leader, M = %g (%zu runs)%s", 100 * MB_SEQUENTIAL_LEVEL,
                 v->rows[q->leader].batch, v->rows[q->leader].runs, paired);
    else
        snprintf(buf, size, "%s: %s still overlap the leader M = %g (%zu runs) within their "
                 "%.0f%% intervals%s%s", q->capped ? "undecided at the cap" : "budget spent",
                 row_list(list, sizeof list, v, q->overlap, q->n_overlap),
                 v->rows[q->leader].batch, v->rows[q->leader].runs, 100 * MB_SEQUENTIAL_LEVEL,
                 paired, q->capped ? "" : "; more seeds may tell them apart");
    return buf;
}

/* --more-seeds: first the leader's untrained neighbours (mb_solver_fill), MB_SEQUENTIAL_FILL_SEEDS
 * seeds each; else the settings whose intervals still overlap the leader's, one more seed each. */
int holdout_more_seeds_print(const holdout_cli *hc, const model_opts *m, const mb_validate *v,
                            const mb_fit_runs *runs, mb_error *err)
{
    char line[640];
    double fill[2];
    size_t n_fill = mb_solver_fill(v, hc->seq.leader, m->m_lo, fmin(m->m_hi, MB_HOLDOUT_M_MAX),
                                   fill);
    if (n_fill > 0) {
        const mb_validate_row *l = &v->rows[hc->seq.leader];
        char also[48] = "";
        if (n_fill > 1)
            snprintf(also, sizeof also, " and M = %.0f", fill[1]);
        fprintf(stderr, "%s validate: sampling: no run has trained the leader M = %.0f's neighbour "
                "M = %.0f%s: training %s first (%d seeds each)\n", prog, l->batch, fill[0], also,
                n_fill > 1 ? "them" : "it", MB_SEQUENTIAL_FILL_SEEDS);
        for (size_t k = 0; k < n_fill; k++)
            for (unsigned long s = 0; s < MB_SEQUENTIAL_FILL_SEEDS; s++)
                print_token(fill[k], l->lr, s, k == 0 && s == 0);
        printf("\n");
        return MB_OK;
    }
    for (size_t k = 0; k < hc->seq.n_want; k++)
        if (next_seed(runs, &v->rows[hc->seq.want[k]]) < 0) {
            return mb_error_set(err, MB_EINVAL, "--more-seeds: M = %g has trained every seed "
                                "below %d (from %d up they are the held-out check's): no seed "
                                "left to add", v->rows[hc->seq.want[k]].batch,
                                MB_HOLDOUT_SEED0, MB_HOLDOUT_SEED0);
        }
    mb_cli_say(prog, "validate", "sampling %s", holdout_sampling_line(line, sizeof line, v, &hc->seq));
    for (size_t k = 0; k < hc->seq.n_want; k++) {
        const mb_validate_row *r = &v->rows[hc->seq.want[k]];
        print_token(r->batch, r->lr, (unsigned long)next_seed(runs, r), k == 0);
    }
    printf("\n");
    return MB_OK;
}

/* Whether the held-out check graded anything: the recommendation's held-out median over the
 * best's and over its rival's are numbers (no held-out run reaching the target, at the
 * recommended M or at all, leaves them NaN: issue #25, G17). */
static int holdout_graded(const holdout_cli *hc)
{
    return isfinite(hc->ho.ratio) && isfinite(hc->ho.rival_ratio);
}

/* The held-out check that graded nothing, in words, into buf. */
static const char *holdout_ungraded(char *buf, size_t size, const holdout_cli *hc)
{
    const mb_validate *h = &hc->h;
    const mb_validate_row *rec = &h->rows[hc->ho.rec];
    size_t runs = 0, reached = 0;
    for (size_t i = 0; i < h->n_rows; i++) {
        runs += h->rows[i].runs;
        reached += h->rows[i].reached;
    }
    if (reached == 0)
        snprintf(buf, size, "held out: no held-out run reached the target loss %g (%zu runs): "
                 "nothing to grade; train the held-out runs to that target", h->target, runs);
    else if (rec->reached == 0)
        snprintf(buf, size, "held out: %zu of %zu held-out runs reached the target loss %g, none "
                 "of the %zu at the recommended M = %g: nothing to grade it by", reached, runs,
                 h->target, rec->runs, rec->batch);
    else
        snprintf(buf, size, "held out: %zu of %zu held-out runs reached the target loss %g, not "
                 "at every held-out M: no best to grade the recommended M = %g by", reached,
                 runs, h->target, rec->batch);
    return buf;
}

/* --holdout-beyond: where the held-out best is at the sweep's edge, the M past it on the best's
 * held-out seeds (mb_solver_holdout_beyond); nothing when it has neighbours on both sides. */
int holdout_beyond_print(const holdout_cli *hc, const model_opts *m, double p, double lr)
{
    const mb_validate_row *best = &hc->h.rows[hc->ho.best];
    double range[2];
    holdout_range(m, range);
    double next = best->reached ? mb_solver_holdout_beyond(&hc->h, &hc->ho, p, lr, range[0],
                                                           range[1]) : NAN;
    if (!best->reached) {
        char buf[512];
        mb_cli_say(prog, "validate", "%s: no held-out best to extend from",
                   holdout_ungraded(buf, sizeof buf, hc));
    } else if (isnan(next)) {
        fprintf(stderr, "%s validate: the held-out best, M = %.0f, has held-out neighbours on both "
                "sides (or the range ends there): nothing to extend\n", prog, best->batch);
    } else {
        fprintf(stderr, "%s validate: the held-out best, M = %.0f, is at the edge of the held-out "
                "sweep: M = %.0f trains on its %zu seeds\n", prog, best->batch, next, best->runs);
        int first = 1;
        for (size_t i = 0; i < hc->runs.n; i++)
            if (run_of(&hc->runs, i, best) && !isnan(hc->runs.seed[i])) {
                print_token(next, best->lr, (unsigned long)hc->runs.seed[i], first);
                first = 0;
            }
    }
    printf("\n");
    return MB_OK;
}

/* Every held-out row's T_C interval over resamples of the in-sample seeds (the fit of its
 * learning rate), and how many held-out medians it holds: whether the prediction's stated
 * uncertainty is honest, measured on runs that took no part in it. */
static int holdout_level(holdout_cli *hc, const model_opts *m, mb_error *err)
{
    const mb_validate *h = &hc->h;
    hc->pred_in = hc->pred_graded = 0;
    hc->pred_ci = malloc((h->n_rows + 1) * sizeof *hc->pred_ci);
    if (!hc->pred_ci)
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    for (size_t i = 0; i < h->n_rows; i++) {
        const mb_validate_row *r = &h->rows[i];
        const mb_solver_nfit *f = m->n_nfit ? NULL : &m->nf;
        for (size_t k = 0; k < m->n_nfit && !f; k++)
            if (mb_solver_same_rate(m->nfs[k].lr, r->lr))
                f = &m->nfs[k];
        double *ci = hc->pred_ci[i];
        ci[0] = ci[1] = NAN;
        if (f)
            mb_solver_tc_interval(f->boot_seed, f->n_boot_seed, f->boot_seeds, &m->t, r->batch,
                                  r->procs, ci);
        if (isfinite(ci[0]) && isfinite(r->rel_err)) {
            hc->pred_graded++;
            hc->pred_in += r->t_median >= ci[0] && r->t_median <= ci[1];
        }
    }
    return MB_OK;
}

/* Reads the held-out logs and checks the recommendation (row `pick` of the in-sample v) on them:
 * no held-out run may share a seed with the in-sample runs or the nfits' inputs.seeds, or a
 * network or target, and each is trained as the in-sample runs but for batch, seed, eval_frac. */
int holdout_check(holdout_cli *hc, const model_opts *m, const mb_law *laws,
                         const double *lrs, size_t n_laws, const mb_validate *v,
                         const mb_fit_runs *in, const char *const *in_paths, mb_error *err)
{
    const long pick = mb_solver_pick(v);
    if (pick < 0 && !(v->p_rec > 1) && !mb_solver_calibration_only(v))
        return mb_error_set(err, MB_ENODATA, "--holdout: no recommendation with runs to check");
    /* calibration only (the runs never reached this target), or P > 1 with no run of the
     * recommended M: the answer is the model's, at a whole number a learner */
    const mb_validate_row as_model = {.batch = mb_solver_m_whole(v->m_rec, v->p_rec),
                                      .procs = v->p_rec, .lr = v->lr_rec};
    const mb_validate_row *r = pick >= 0 ? &v->rows[pick] : &as_model;
    const mb_update_time *t = &m->t;
    int rc = folders_have_logs("--holdout", hc->dirs, hc->n_dirs, err);
    if (rc != MB_OK)
        return rc;
    rc = read_runs(m, (int)hc->n_dirs, hc->dirs, v->target, &hc->g, &hc->runs, err);
    hc->on = 1;
    if (rc == MB_OK) /* campaign 31's N2 */
        rc = mb_fit_runs_trained_as(&hc->runs, (const char *const *)hc->g.gl_pathv, in, in_paths,
                                    NULL, "eval_frac", "held-out runs must be trained as the "
                                    "runs that fitted and chose the answer, on the same backend "
                                    "and device (only batch, seed and eval_frac may differ)",
                                    err);
    for (size_t i = 0; rc == MB_OK && i < hc->runs.n; i++) /* campaign 35's R3 */
        if (isnan(hc->runs.seed[i]))
            rc = mb_error_set(err, MB_EINVAL, "%s: no seed (no metadata 'seed', no summary "
                              "seed=): a held-out run needs a fresh seed, and this one's cannot "
                              "be checked", hc->g.gl_pathv[i]);
    for (size_t i = 0; rc == MB_OK && i < hc->runs.n; i++)
        for (size_t j = 0; rc == MB_OK && j < in->n; j++)
            if (hc->runs.seed[i] == in->seed[j])
                rc = mb_error_set(err, MB_EINVAL, "%s: seed %g also trained a run that fitted "
                                  "or chose the answer: a held-out run needs a fresh seed "
                                  "(mbopt validate --holdout-plan)", hc->g.gl_pathv[i],
                                  hc->runs.seed[i]);
    for (size_t i = 0; rc == MB_OK && i < hc->runs.n; i++) /* campaign 31's N3 */
        for (size_t k = 0; rc == MB_OK && k < m->n_nfit; k++)
            for (size_t j = 0; rc == MB_OK && j < m->nfs[k].n_fit_seeds; j++)
                if (hc->runs.seed[i] == m->nfs[k].fit_seeds[j])
                    rc = mb_error_set(err, MB_EINVAL, "%s: seed %g trained runs that fitted %s "
                                      "(its inputs.seeds): a held-out run needs a fresh seed "
                                      "(mbopt validate --holdout-plan)", hc->g.gl_pathv[i],
                                      hc->runs.seed[i], m->nfits[k]);
    if (rc == MB_OK)
        rc = mb_solver_validate(laws, lrs, n_laws, t, NULL, &hc->runs,
                                (const char *const *)hc->g.gl_pathv, r->batch, r->procs, r->lr,
                                &hc->h, err);
    if (rc == MB_OK && strcmp(hc->h.net, v->net) != 0)
        rc = mb_error_set(err, MB_EINVAL, "--holdout: the held-out runs train '%s', the others "
                          "'%s'", hc->h.net, v->net);
    if (rc == MB_OK) /* P > 1: do P learners beat one learner's held-out sweep? */
        rc = (r->procs > 1 ? mb_solver_holdout_across : mb_solver_holdout)(
            &hc->h, r->batch, r->procs, r->lr, 2000, &hc->ho, err);
    return rc == MB_OK ? holdout_level(hc, m, err) : rc;
}

/* A held-out setting: "M = 26", or "P = 1, M = 26" in a check across learner counts. */
static const char *setting_name(char *buf, size_t n, const mb_validate_row *r, int across)
{
    if (across)
        snprintf(buf, n, "P = %g, M = %g", r->procs, r->batch);
    else
        snprintf(buf, n, "M = %g", r->batch);
    return buf;
}

/* The held-out check as one sentence, into buf (2048 bytes hold it whole: the fixed text is
 * under 700 bytes and every part is bounded: side 256, level 160, flat 96, the settings 48
 * each). */
const char *holdout_verdict(char *buf, size_t size, const holdout_cli *hc)
{
    const mb_validate *h = &hc->h;
    const mb_holdout *o = &hc->ho;
    if (!holdout_graded(hc))
        return holdout_ungraded(buf, size, hc);
    const mb_validate_row *rec = &h->rows[o->rec], *best = &h->rows[o->best],
                          *rv = &h->rows[o->rival];
    const int across = rec->procs > 1;
    char seeds[32], c[9][32], level[160] = "", side[256] = "", sr[48], sb[48], sv[48],
         flat[96];
    if (o->flat_lo <= o->flat_hi)
        snprintf(flat, sizeof flat, "M = %g..%g%s within %.0f%% of the best", o->flat_lo,
                 o->flat_hi, across ? " at P = 1" : "", 100 * MB_SOLVER_FLAT);
    else
        snprintf(flat, sizeof flat, "no one-learner M within %.0f%% of the best",
                 100 * MB_SOLVER_FLAT);
    if (hc->pred_graded)
        snprintf(level, sizeof level, "; the prediction's %.0f%% interval over resamples of the "
                 "in-sample seeds holds the held-out median at %zu of %zu settings",
                 100 * MB_SOLVER_TC_LEVEL, hc->pred_in, hc->pred_graded);
    if (o->tu_side != 0) { /* a level every M shares, and the error apart from it */
        char lv[32], at[32];
        snprintf(side, sizeof side,
                 ", every M's runs %s an update than the model, a median %sx: a level (the "
                 "machine's speed during the check, or T_update's), not the model's shape, and "
                 "T_C's median |error| with it divided out is %s",
                 o->tu_side < 0 ? "slower" : "faster", fmt(lv, sizeof lv, "%.3g", o->tu_level),
                 fmt(at, sizeof at, "%.1f%%", 100 * o->median_abs_err_level));
    }
    if (o->seeds_lo == o->seeds_hi)
        snprintf(seeds, sizeof seeds, "%zu", o->seeds_lo);
    else
        snprintf(seeds, sizeof seeds, "%zu-%zu", o->seeds_lo, o->seeds_hi);
    snprintf(buf, size,
             "held out (%s fresh seeds a setting, none used to fit or choose): the recommended "
             "%s trained in %.3g s (median), %.2fx the best held-out %s (%s, %.3g s; "
             "%.0f%% interval%s %s-%sx); against its best rival, %s (%.3g s): %.2fx "
             "(%.0f%% interval %s-%s): %s; median |error| of predicted T_C on the held-out "
             "runs %s over %zu settings (%.0f%% interval over their seeds %s-%s; of N_update "
             "%s, of T_update %s%s)%s; flat (held out): %s",
             seeds, setting_name(sr, sizeof sr, rec, across), rec->t_median, o->ratio,
             across ? "setting" : "M", setting_name(sb, sizeof sb, best, across),
             best->t_median, 100 * MB_HOLDOUT_LEVEL, o->paired ? " paired by seed" : "",
             fmt(c[0], sizeof c[0], "%.2f", o->ratio_ci[0]),
             fmt(c[1], sizeof c[1], "%.2f", o->ratio_ci[1]),
             setting_name(sv, sizeof sv, rv, across), rv->t_median,
             o->rival_ratio, 100 * MB_HOLDOUT_LEVEL,
             fmt(c[2], sizeof c[2], "%.2f", o->rival_ci[0]),
             fmt(c[3], sizeof c[3], "%.2f", o->rival_ci[1]),
             mb_solver_holdout_verdict_name(o->verdict),
             fmt(c[4], sizeof c[4], "%.1f%%", 100 * o->median_abs_err), o->n_err,
             100 * MB_HOLDOUT_LEVEL, fmt(c[7], sizeof c[7], "%.1f", 100 * o->err_ci[0]),
             fmt(c[8], sizeof c[8], "%.1f%%", 100 * o->err_ci[1]),
             fmt(c[5], sizeof c[5], "%.1f%%", 100 * o->median_abs_n_err),
             fmt(c[6], sizeof c[6], "%.1f%%", 100 * o->median_abs_tu_err),
             side, level, flat);
    return buf;
}

/* The held-out rows as a table, then the check line. */
void holdout_print(FILE *f, const holdout_cli *hc, const char *verdict)
{
    const mb_validate *h = &hc->h;
    char a[32], b[32], c[32], d[32], e[32], g[32];
    fprintf(f, "# held out: the runs below took no part in fitting or choosing\n");
    fprintf(f, "%-9s %4s %6s %8s %9s %10s %10s %10s %8s %8s %17s\n", "held-out", "P", "M",
            "lr", "reached", "T_C_meas_s", "T_C_min_s", "T_C_pred_s", "error", "vs_best",
            "T_C_pred_95%_s");
    for (size_t i = 0; i < h->n_rows; i++) {
        const mb_validate_row *r = &h->rows[i];
        char reached[32];
        snprintf(reached, sizeof reached, "%zu/%zu", r->reached, r->runs);
        const double *ci = hc->pred_ci ? hc->pred_ci[i] : (const double[]){NAN, NAN};
        char iv[64], lo[32], hi[32];
        snprintf(iv, sizeof iv, "%s-%s", fmt(lo, sizeof lo, "%.4g", ci[0]),
                 fmt(hi, sizeof hi, "%.4g", ci[1]));
        fprintf(f, "%-9s %4g %6g %8s %9s %10s %10s %10s %8s %8s %17s%s\n", r->algo, r->procs,
                r->batch, fmt(a, sizeof a, "%g", r->lr), reached,
                fmt(b, sizeof b, "%.4g", r->t_median), fmt(c, sizeof c, "%.4g", r->t_min),
                fmt(d, sizeof d, "%.4g", r->t_pred),
                fmt(e, sizeof e, "%+.1f%%", 100 * r->rel_err),
                fmt(g, sizeof g, "%.2fx", r->t_median / h->rows[hc->ho.best].t_median),
                isfinite(ci[0]) ? iv : "-", (long)i == hc->ho.rec ? "  # recommended" : "");
    }
    fprintf(f, "check: %s\n", verdict);
}

cJSON *holdout_json(const holdout_cli *hc)
{
    const mb_holdout *o = &hc->ho;
    const mb_validate *h = &hc->h;
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    mb_json_add_number(root, "batch", h->rows[o->rec].batch);
    mb_json_add_number(root, "procs", h->rows[o->rec].procs);
    mb_json_add_number(root, "best_procs", h->rows[o->best].procs);
    mb_json_add_number(root, "t_train_median_s", h->rows[o->rec].t_median);
    mb_json_add_number(root, "best_batch", h->rows[o->best].batch);
    mb_json_add_number(root, "best_t_train_median_s", h->rows[o->best].t_median);
    /* "none": no held-out median to grade by, and the ratios and their intervals are null,
     * whatever the bootstrap's draws gave (campaign 39's B-F1: a finite ratio_lo beside "none"
     * made mbplot refuse make run's own file) */
    const int graded = holdout_graded(hc);
    mb_json_add_number(root, "ratio", graded ? o->ratio : NAN);
    mb_json_add_number(root, "ratio_lo", graded ? o->ratio_ci[0] : NAN);
    mb_json_add_number(root, "ratio_hi", graded ? o->ratio_ci[1] : NAN);
    cJSON_AddBoolToObject(root, "paired", o->paired);
    mb_json_add_number(root, "rival_batch", h->rows[o->rival].batch);
    mb_json_add_number(root, "rival_ratio", graded ? o->rival_ratio : NAN);
    mb_json_add_number(root, "rival_ratio_lo", graded ? o->rival_ci[0] : NAN);
    mb_json_add_number(root, "rival_ratio_hi", graded ? o->rival_ci[1] : NAN);
    mb_json_add_number(root, "level", MB_HOLDOUT_LEVEL);
    cJSON_AddStringToObject(root, "verdict", graded ? mb_solver_holdout_verdict_name(o->verdict)
                                                    : "none");
    mb_json_add_number(root, "median_abs_rel_err", o->median_abs_err);
    mb_json_add_number(root, "median_abs_rel_err_lo", o->err_ci[0]);
    mb_json_add_number(root, "median_abs_rel_err_hi", o->err_ci[1]);
    /* the prediction's interval over resamples of the in-sample seeds, held-out medians inside */
    mb_json_add_number(root, "pred_interval_level", MB_SOLVER_TC_LEVEL);
    mb_json_add_number(root, "pred_interval_holds", (double)hc->pred_in);
    mb_json_add_number(root, "pred_interval_graded", (double)hc->pred_graded);
    mb_json_add_number(root, "n_update_median_abs_rel_err", o->median_abs_n_err);
    mb_json_add_number(root, "t_update_median_abs_rel_err", o->median_abs_tu_err);
    /* "slower" / "faster": every graded setting's runs on one side of the model's T_update */
    cJSON_AddStringToObject(root, "t_update_side", o->tu_side < 0   ? "slower"
                                                   : o->tu_side > 0 ? "faster"
                                                                    : "mixed");
    mb_json_add_number(root, "t_update_level", o->tu_level);
    mb_json_add_number(root, "median_abs_err_at_level", o->median_abs_err_level);
    /* an empty range (across learner counts, no one-learner M within the margin): null both */
    const int flat = o->flat_lo <= o->flat_hi;
    mb_json_add_number(root, "flat_lo", flat ? o->flat_lo : NAN);
    mb_json_add_number(root, "flat_hi", flat ? o->flat_hi : NAN);
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
        mb_json_add_number(x, "t_pred_lo_s", hc->pred_ci ? hc->pred_ci[i][0] : NAN);
        mb_json_add_number(x, "t_pred_hi_s", hc->pred_ci ? hc->pred_ci[i][1] : NAN);
        mb_json_add_number(x, "rel_err", r->rel_err);
        cJSON *ts = cJSON_AddArrayToObject(x, "t_runs_s");
        for (size_t k = 0; ts && k < r->reached; k++)
            cJSON_AddItemToArray(ts, cJSON_CreateNumber(r->t_runs[k]));
        cJSON_AddItemToArray(rows, x);
    }
    return root;
}
