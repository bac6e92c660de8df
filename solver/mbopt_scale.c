/* mbopt_scale.c — `mbopt scale`: M_opt, T_C, speed-up and efficiency per learner count under
 * optimal, strong and weak scaling; run logs settle what the model cannot rank; how flat it is.
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

/* ---- mbopt scale ----------------------------------------------------------------------------- */

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

/* The recommended M at row r (the enough row): what the runs settled on, or the model's
 * optimum rounded to a whole M a learner. */
static double recommended_m(const scale_check *ck, const mb_scale_row *r)
{
    const mb_validate_row *sr = settled_row(ck);
    return sr ? sr->batch : mb_solver_m_whole(r->opt.m_opt, r->procs);
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
    int rc = read_runs(m, argc, argv, m->nf.target_loss, &g, &runs, err);
    if (rc == MB_OK)
        rc = mb_solver_validate(laws, lrs, n, &m->t, NULL, &runs,
                                (const char *const *)g.gl_pathv, r->opt.m_opt, r->procs,
                                m->nf.lr, &ck->v, err);
    if (rc == MB_OK)
        mb_solver_settle(laws, lrs, n, &m->t, r->m_lo, r->m_hi, &ck->v);
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
    if (!isfinite(v->median_abs_err)) /* e.g. calibration runs to a higher loss: none to grade */
        snprintf(buf, n, "no run given reached the target at P = %.0f, so none measured what "
                 "the model predicts; the model's answer stands", v->p_rec);
    else
        snprintf(buf, n, "no trained setting at P = %.0f in the range searched is predicted within "
             "%.1f%% (the model's median |error| on the runs) of its optimum's T_C", v->p_rec,
             100 * v->band);
    return buf;
}

/* "weighed 0.412 s: runs 0.398 s over 10, model 0.431 s" for row r, into buf; the runs' time
 * net of their seeds' luck beside it where that differs by more than 0.5% (a weighed time
 * outside both of what it weighs puzzled: campaign 34). */
static const char *weighed(char *buf, size_t n, const mb_validate_row *r)
{
    char net[64] = "";
    if (isfinite(r->s_net) && fabs(r->s_net / mb_solver_steady(r) - 1) > 0.005)
        snprintf(net, sizeof net, " (%.3g s net of their seeds' luck)", r->s_net);
    if (isfinite(r->s_shrunk))
        snprintf(buf, n, "weighed %.3g s: runs %.3g s over %zu%s, model %.3g s", r->s_shrunk,
                 mb_solver_steady(r), r->reached, net, r->t_pred);
    else
        snprintf(buf, n, "steady time %.3g s over %zu runs", mb_solver_steady(r), r->reached);
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
    char c[256], m[64], w[224];
    if (!s) {
        fprintf(f, "settled:        not by runs: %s\n", no_candidate(c, sizeof c, v));
    } else if (v->overruled) {
        fprintf(f, "settled:        by the runs, over the model: it predicts M = %s within %.1f%% "
                   "of its best T_C (its median |error| on the runs), but the runs measured "
                   "M = %s, outside that band, faster than any of them by more than the band "
                   "(%s)\n",
                candidates(c, sizeof c, v), 100 * v->band, setting(m, sizeof m, v, s),
                weighed(w, sizeof w, s));
    } else if (v->settled == v->rec) {
        fprintf(f, "settled:        the runs agree: of the trained M the model predicts within "
                   "%.1f%% of its best T_C (its median |error| on the runs: M = %s), M = %s "
                   "is fastest (%s)\n",
                100 * v->band, candidates(c, sizeof c, v), setting(m, sizeof m, v, s),
                weighed(w, sizeof w, s));
    } else if (v->rec >= 0) {
        char w2[224];
        fprintf(f, "settled:        by the runs: the model predicts M = %s within %.1f%% of "
                   "its best T_C, its median |error| on the runs, so it cannot tell them "
                   "apart; M = %s (%s) is faster than the model's optimum as M = %g (%s)%s\n",
                candidates(c, sizeof c, v), 100 * v->band, setting(m, sizeof m, v, s),
                weighed(w, sizeof w, s), v->rows[v->rec].batch,
                weighed(w2, sizeof w2, &v->rows[v->rec]),
                v->paired >= 0 ? ", seed by seed (paired: below)" : "");
    } else {
        fprintf(f, "settled:        by the runs: the model's optimum M = %.4g has no runs; of "
                   "the trained M it predicts within %.1f%% of its best T_C (its median |error| "
                   "on the runs: M = %s), M = %s is fastest (%s)\n",
                v->m_rec, 100 * v->band, candidates(c, sizeof c, v),
                setting(m, sizeof m, v, s), weighed(w, sizeof w, s));
    }
    if (s && v->paired >= 0)
        fprintf(f, "paired:         seed by seed the runs overrule the weighing: M = %g trained "
                   "faster than its pick, M = %g, on the %zu seeds both trained, a mean ratio of "
                   "steady times %.3f (one-sided 95%% bound %.3f)\n",
                s->batch, v->rows[v->paired].batch, v->paired_seeds, v->paired_ratio,
                v->paired_hi);
    if (s && isfinite(v->sd_model) && isfinite(v->sd_seed) && isfinite(v->sd_shared))
        fprintf(f, "weighed:        each trained M's runs are weighed against the model's T_C by "
                   "their uncertainties, M that trained the same seeds compared seed by seed: "
                   "sd of ln N_update from seed to seed %.3f, of it %.3f a seed's own at every M "
                   "and %.3f noise; the model's own sd beyond the runs' %.3f (docs/design.md, "
                   "\"Settling near ties\")\n",
                hypot(v->sd_seed, v->sd_shared), v->sd_shared, v->sd_seed, v->sd_model);
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
        mb_json_add_count(o, "procs", s->procs);
        mb_json_add_number(o, "batch", s->batch);
        mb_json_add_number(o, "lr", s->lr);
        mb_json_add_number(o, "t_pred_s", s->t_pred);
        mb_json_add_number(o, "t_train_median_s", s->t_median);
        mb_json_add_number(o, "runs_reached", (double)s->reached);
        mb_json_add_number(o, "t_steady_s", mb_solver_steady(s));
        mb_json_add_number(o, "t_net_s", s->s_net);
        mb_json_add_number(o, "t_weighed_s", mb_solver_settle_time(s));
        mb_json_add_number(o, "sd_seed", v->sd_seed);
        mb_json_add_number(o, "sd_shared", v->sd_shared);
        mb_json_add_number(o, "sd_model", v->sd_model);
        if (v->paired >= 0) {
            cJSON *p = cJSON_AddObjectToObject(o, "paired");
            if (p) {
                mb_json_add_number(p, "batch", v->rows[v->paired].batch);
                mb_json_add_count(p, "seeds", (double)v->paired_seeds);
                mb_json_add_number(p, "ratio", v->paired_ratio);
                mb_json_add_number(p, "ratio_hi", v->paired_hi);
            }
        }
    }
    return o;
}

/* Whether --extrapolate changes the search (campaign 19's M3: taken without --nfit, where it
 * changed nothing): a fit with a converged range (searched beyond), or a P > 1 of procs whose
 * own runs' range the step table holds (solver/scale.c narrows that P's M to it otherwise). */
static int extrapolate_acts(const model_opts *m, const double *procs, size_t n)
{
    for (size_t i = 0; i < m->n_nfit; i++)
        if (isfinite(m->nfs[i].m_lo))
            return 1;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; procs[i] > 1 && k < m->t.n_by_p; k++)
            if (m->t.by_p[k].p == procs[i] && m->t.by_p[k].runs > 0)
                return 1;
    return 0;
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
           "      --budget S        the training seconds the job may take: the fewest learners\n"
           "                        whose optimal T_C is within S (the budget: line), or how far\n"
           "                        the fastest is over it\n"
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

/* Whether the step of P learners is only the probe's while runs of another P > 1 calibrated
 * theirs (tfit from runs of 2 learners, a row at 4): P untrained by runs. */
static int p_untrained(const mb_update_time *t, double p)
{
    int others = 0;
    for (size_t i = 0; i < t->n_by_p; i++) {
        if (t->by_p[i].runs > 0 && t->by_p[i].p == p)
            return 0;
        others |= t->by_p[i].runs > 0;
    }
    return p > 1 && others;
}

/* What a row's answer rests on, into buf: "" when on the runs' own ground, else why not. */
static const char *row_label(char *buf, size_t n, const model_opts *m, const mb_scale_row *r,
                             double p_avail)
{
    int held = r->bound != MB_BOUND_NONE, beyond_p = r->procs > p_avail;
    int beyond_m = !isfinite(m->m_hi) && m->extrapolate;
    if (!beyond_p && p_untrained(&m->t, r->procs)) {
        snprintf(buf, n, "no runs of %.0f learners: their step is the probe's, unchecked",
                 r->procs);
        return buf;
    }
    const char *end = r->bound == MB_BOUND_LOW ? "low" : "high";
    /* whose end: --batch-range's where the user gave one, not the fit's (campaign 45's B-F8) */
    const char *whose = m->have_range ? "the --batch-range's" : "the converged range's";
    if (beyond_p && held)
        snprintf(buf, n, "P extrapolated (collective model); M held at %s %s end", whose, end);
    else if (beyond_p)
        snprintf(buf, n, "P extrapolated (collective model)");
    else if (r->runs_outside)
        snprintf(buf, n, "its %.0f-learner runs trained no M in [%.6g, %.6g]: the step there is "
                 "extrapolated, " MB_SOLVER_NOT_RECOMMENDED, r->procs, r->m_lo, r->m_hi);
    else if (held && r->runs_held)
        snprintf(buf, n, "M held at the %s end of the M its %.0f-learner runs trained (%.6g..%.6g): "
                 "the step is measured there only", end, r->procs, r->m_lo, r->m_hi);
    else if (held && r->bound == MB_BOUND_HIGH && !isfinite(r->m_hi))
        snprintf(buf, n, "M held at the search's end, 2^53 (the largest mini-batch a count "
                 "holds): the model's optimum lies past it"); /* campaign 43's B-F3 */
    else if (held && m->have_range)
        snprintf(buf, n, "M held at the --batch-range's %s end (%.0f..%.0f)", end, r->m_lo,
                 r->m_hi);
    else if (held)
        snprintf(buf, n, "M held at the converged range's %s end", end);
    else
        snprintf(buf, n, "%s", beyond_m ? "M extrapolated beyond the runs" : "");
    return buf;
}

static cJSON *row_summary(const model_opts *m, const mb_scale_row *r, double p_avail)
{
    cJSON *b = cJSON_CreateObject();
    char note[192];
    if (b) {
        mb_json_add_count(b, "procs", r->procs);
        /* in full digits where whole past 1e15: 2^53 (held at the search's end) read back as
         * 9007199254740990 made m_run another's at P = 4 (campaign 43's B-F3) */
        mb_json_add_count(b, "m_opt", r->opt.m_opt);
        mb_json_add_count(b, "m_run", mb_solver_m_whole(r->opt.m_opt, r->procs));
        mb_json_add_number(b, "t_c", r->opt.t_c);
        cJSON_AddStringToObject(b, "bound", mb_solver_bound_name(r->bound));
        row_label(note, sizeof note, m, r, p_avail);
        cJSON_AddBoolToObject(b, "extrapolated",
                              *note != '\0' && (r->bound == MB_BOUND_NONE || r->runs_outside));
        cJSON_AddStringToObject(b, "note", note);
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
    char note[160]; /* "" or why m[0] or m[1] is cut: the ends of the M searched (campaign
                     * 43's B-F3) */
    const char *bound; /* which end cuts: "none", "low", "high" or "both" */
} scale_flat;

static scale_flat flat_of(const model_opts *m, const mb_scale_row *rows, size_t n, size_t best,
                          size_t enough, double p_avail)
{
    scale_flat f = {.m = {NAN, NAN}, .p_lo = INFINITY, .p_hi = 0, .procs = rows[enough].procs,
                    .bound = "none"};
    mb_error e = {0};
    const mb_scale_row *r = &rows[enough];
    mb_solver_flat_range(&m->law, &m->t, f.procs, r->m_lo, r->m_hi, r->opt.t_c, MB_SOLVER_FLAT,
                         f.m, &e);
    /* an upper end at the end of the M searched is the search's, not the model's: said as a
     * row held there is (row_label) */
    f.note[0] = '\0';
    if (f.m[1] >= mb_solver_search_hi(r->m_lo, r->m_hi) * (1 - 1e-9) && !isfinite(r->m_hi)) {
        f.bound = "high";
        snprintf(f.note, sizeof f.note, "M cut at the search's end, 2^53 (the largest mini-batch "
                 "a count holds): T_C stays within %.0f%% past it", 100 * MB_SOLVER_FLAT);
    } else if (f.m[1] >= r->m_hi * (1 - 1e-9)) {
        /* cut at the low end too where M > 1 lies below it (campaign 45's B-F8: a --batch-range
         * 40:41 cuts both) */
        const int lo = r->m_lo > 1 && f.m[0] <= r->m_lo * (1 + 1e-9);
        snprintf(f.note, sizeof f.note, "M cut at %s of the M searched (%.6g..%.6g): T_C may "
                 "stay within %.0f%% past %s", lo ? "both ends" : "the high end", r->m_lo,
                 r->m_hi, 100 * MB_SOLVER_FLAT, lo ? "them" : "it");
        f.bound = lo ? "both" : "high";
    }
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
    mb_json_add_count(root, "m_strong", so->m_strong);
    mb_json_add_count(root, "m_weak", so->m_weak);
    if (have_pb)
        mb_json_add_number(root, "regime_boundary_procs", p_b);
    mb_json_add_count(root, "procs_available", isfinite(p_avail) ? p_avail : NAN);
    mb_json_add_number(root, "lr", m->nf.lr);
    mb_json_add_number(root, "target_loss", m->nf.target_loss); /* the nfit's: the report's */
    cJSON *bl = n_lr > 1 ? cJSON_AddArrayToObject(root, "by_lr") : NULL;
    for (size_t i = 0; bl && i < n_lr; i++) {
        cJSON *o = cJSON_CreateObject();
        mb_json_add_number(o, "lr", lrs[i].lr);
        mb_json_add_count(o, "procs", lrs[i].procs);
        mb_json_add_count(o, "m_opt", lrs[i].m_opt);
        mb_json_add_number(o, "t_c", lrs[i].t_c);
        cJSON_AddItemToArray(bl, o);
    }
    for (size_t i = 0; i < n; i++) {
        const mb_scale_row *r = &rows[i];
        cJSON *o = cJSON_CreateObject();
        if (!o)
            break;
        mb_json_add_count(o, "procs", r->procs);
        mb_json_add_count(o, "m_opt", r->opt.m_opt);
        mb_json_add_number(o, "t_c_opt", r->opt.t_c);
        mb_json_add_number(o, "n_update", r->opt.n_update);
        mb_json_add_number(o, "t_update", r->opt.t_update);
        cJSON_AddStringToObject(o, "regime", mb_model_regime_name(r->opt.regime));
        cJSON_AddStringToObject(o, "bound", mb_solver_bound_name(r->bound));
        char note[192];
        cJSON_AddStringToObject(o, "note", row_label(note, sizeof note, m, r, p_avail));
        mb_json_add_count(o, "m_lo", r->m_lo);
        mb_json_add_count(o, "m_hi", r->m_hi);
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
    mb_solver_optimum_spread(m->nf.boot, m->nf.n_boot, &m->t, rows[enough].procs,
                             rows[enough].m_lo, rows[enough].m_hi, q);
    if (isfinite(q[0])) { /* the 10th and 90th percentiles of M_opt over the bootstrap */
        cJSON *s = cJSON_AddArrayToObject(root, "enough_m_opt_spread");
        cJSON_AddItemToArray(s, cJSON_CreateNumber(q[0]));
        cJSON_AddItemToArray(s, cJSON_CreateNumber(q[1]));
    }
    /* T_C at the recommendation over resamples of whole seeds (its level's uncertainty) */
    if (mb_solver_tc_interval(m->nf.boot_seed, m->nf.n_boot_seed, m->nf.boot_seeds, &m->t,
                              recommended_m(ck, &rows[enough]), rows[enough].procs, q) &&
        isfinite(q[0])) {
        cJSON *s = cJSON_AddArrayToObject(root, "recommended_t_c_seed_interval");
        cJSON_AddItemToArray(s, cJSON_CreateNumber(q[0]));
        cJSON_AddItemToArray(s, cJSON_CreateNumber(q[1]));
    }
    if (so->budget > 0) { /* the fewest learners within --budget: null where none is */
        const size_t k = mb_solver_budget_row(rows, n, so->budget, p_avail);
        cJSON *bo = cJSON_AddObjectToObject(root, "budget");
        mb_json_add_number(bo, "seconds", so->budget);
        mb_json_add_count(bo, "procs", k < n ? rows[k].procs : NAN);
        mb_json_add_count(bo, "m", k < n ? mb_solver_m_whole(rows[k].opt.m_opt, rows[k].procs)
                                          : NAN);
        mb_json_add_number(bo, "t_c", k < n ? rows[k].opt.t_c : NAN);
    }
    const scale_flat fl = flat_of(m, rows, n, best, enough, p_avail);
    cJSON *fo = cJSON_AddObjectToObject(root, "flat");
    mb_json_add_number(fo, "within", MB_SOLVER_FLAT);
    mb_json_add_count(fo, "procs", fl.procs);
    mb_json_add_count(fo, "m_lo", fl.m[0]);
    mb_json_add_count(fo, "m_hi", fl.m[1]);
    cJSON_AddStringToObject(fo, "bound", fl.bound);
    cJSON_AddStringToObject(fo, "note", fl.note);
    mb_json_add_count(fo, "procs_lo", fl.p_lo);
    mb_json_add_count(fo, "procs_hi", fl.p_hi);
    return root;
}

/* The budget: line (--budget S): the fewest learners whose optimal T_C fits S, beside the
 * recommendation; or, where none does, how far the fastest is over it. Rows above
 * --procs-available are never the answer, and the line says when one of them would fit. */
static void budget_print(FILE *f, const model_opts *m, double budget, const mb_scale_row *rows,
                         size_t n, size_t best, size_t enough, double p_avail)
{
    char note[192], times[64] = "", beyond[160] = "";
    const size_t k = mb_solver_budget_row(rows, n, budget, p_avail);
    const size_t any = mb_solver_budget_row(rows, n, budget, INFINITY);
    if (k == n && any < n)
        snprintf(beyond, sizeof beyond, " (P = %.0f would, above the %.0f learners that "
                 "--procs-available says can run here)", rows[any].procs, p_avail);
    if (k == n) {
        const mb_scale_row *r = &rows[best];
        row_label(note, sizeof note, m, r, p_avail);
        const double x = r->opt.t_c / budget;
        if (isfinite(x)) /* a budget of 1e-320 s is no multiple a number holds */
            snprintf(times, sizeof times, ", %.3gx the budget", x);
        fprintf(f, "budget:         no P that may be recommended reaches the target within %.4g "
                   "s%s: the fastest, P = %.0f with M = %.0f, takes %.4g s%s%s%s\n", budget,
                beyond, r->procs, mb_solver_m_whole(r->opt.m_opt, r->procs), r->opt.t_c, times,
                *note ? "; " : "", note);
        return;
    }
    const mb_scale_row *r = &rows[k];
    row_label(note, sizeof note, m, r, p_avail);
    char more[160] = "";
    if (rows[enough].procs != r->procs)
        snprintf(more, sizeof more, "; the recommendation, P = %.0f, takes %.4g s%s",
                 rows[enough].procs, rows[enough].opt.t_c,
                 rows[enough].opt.t_c > budget ? ", over it" : "");
    fprintf(f, "budget:         P = %.0f learners with M = %.0f reach the target in T_C = %.4g "
               "s, %.0f%% of the budget of %.4g s: the fewest learners within it%s%s%s\n",
            r->procs, mb_solver_m_whole(r->opt.m_opt, r->procs), r->opt.t_c,
            100 * r->opt.t_c / budget, budget, more, *note ? "; " : "", note);
}

static void scale_print(FILE *f, const model_opts *m, const mb_scale_options *so,
                        const mb_scale_row *rows, size_t n, size_t best, size_t enough,
                        double p_b, int have_pb, double p_avail, const lr_best *lrs, size_t n_lr,
                        const scale_check *ck)
{
    char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];
    /* rates as their shortest exact decimal: two --nfit are never printed as one rate */
    for (size_t i = 0; n_lr > 1 && i < n_lr; i++)
        fprintf(f, "# lr %-10s fastest: P = %.0f, M = %.0f, T_C = %.4g s%s\n",
                mb_data_fmt_exact(b1, sizeof b1, lrs[i].lr), lrs[i].procs, round(lrs[i].m_opt),
                lrs[i].t_c,
                lrs[i].lr == m->nf.lr ? "  <- the table below" : "");
    model_print(f, m);
    if (isfinite(m->m_hi))
        fprintf(f, "# M is sought in [%.6g, %.6g] (%s); --extrapolate searches every M\n",
                m->m_lo, m->m_hi, range_source(m));
    else
        fprintf(f, "# M is sought over every M >= %.6g (%s): an extrapolation beyond the runs\n",
                m->m_lo, range_source(m));
    for (size_t i = 0; i < n; i++)
        if (rows[i].procs > 1 && (rows[i].m_lo > m->m_lo || rows[i].m_hi < m->m_hi)) {
            fprintf(f, "# at P = %.0f, only M = %.6g..%.6g, which its own runs trained: outside "
                       "them its step is the probe's, scaled (--extrapolate searches beyond)\n",
                    rows[i].procs, rows[i].m_lo, rows[i].m_hi);
        }
    if (isfinite(p_avail))
        fprintf(f, "# P above %.0f is more than mpirun can run here (--procs-available): those "
                   "rows extrapolate the collective model and are not recommended\n", p_avail);
    if (have_pb && isfinite(p_b)) /* not a result when the parameters under- or overflow */
        fprintf(f, "# eq. 10 changes branch at P = %.6g (balance below, knee above)\n", p_b);
    fprintf(f, "%8s %11s %11s %8s %8s %6s | %11s %8s %6s | %11s %8s %6s\n", "", "optimal", "", "",
            "", "", "strong", "", "", "weak", "", "");
    fprintf(f, "%8s %11s %11s %8s %8s %6s | %11s %8s %6s | %11s %8s %6s\n", "P", "M_opt", "T_C_s",
            "regime", "speedup", "eff", "T_C_s", "speedup", "eff", "T_C_s", "speedup", "eff");
    for (size_t i = 0; i < n; i++) {
        const mb_scale_row *r = &rows[i];
        char s1[32], s2[32], note[192];
        row_label(note, sizeof note, m, r, p_avail);
        fprintf(f, "%8.0f %11.5g %11.5g %8s %8s %6s | %11s %8s %6s | %11s %8s %6s%s%s\n",
                r->procs, r->opt.m_opt, r->opt.t_c, mb_model_regime_name(r->opt.regime),
                fmt(s1, sizeof s1, "%.4g", r->speedup_opt), fmt(s2, sizeof s2, "%.3f", r->eff_opt),
                fmt(b1, sizeof b1, "%.5g", r->t_c_strong),
                fmt(b2, sizeof b2, "%.4g", r->speedup_strong),
                fmt(b3, sizeof b3, "%.3f", r->eff_strong), fmt(b4, sizeof b4, "%.5g", r->t_c_weak),
                fmt(b5, sizeof b5, "%.4g", r->speedup_weak), fmt(b6, sizeof b6, "%.3f", r->eff_weak),
                *note ? "  # " : "", note);
    }
    fprintf(f, "# strong scaling holds M = %.0f; weak scaling holds M/P = %.0f\n", so->m_strong,
            so->m_weak);
    const mb_scale_row *r = &rows[best];
    char note[192];
    row_label(note, sizeof note, m, r, p_avail);
    const double fast_m = mb_solver_m_whole(r->opt.m_opt, r->procs);
    fprintf(f, "fastest:        P = %.0f learners with mini-batch M = %.0f (%.0f per learner): "
               "T_C = %.4g s, %s the single learner's best, efficiency %s (%s regime)%s%s\n",
            r->procs, fast_m, fast_m / r->procs, r->opt.t_c,
            fmt(b1, sizeof b1, "%.4gx", r->speedup_opt), fmt(b2, sizeof b2, "%.3f", r->eff_opt),
            mb_model_regime_name(r->opt.regime), *note ? "; " : "", note);
    r = &rows[enough];
    row_label(note, sizeof note, m, r, p_avail);
    /* the recommendation: the model's optimum at the fewest learners enough, or what the runs
     * settled on there */
    const mb_validate_row *sr = settled_row(ck);
    const double rec_lr = sr && !isnan(sr->lr) ? sr->lr : m->nf.lr;
    const double rec_m = recommended_m(ck, r);
    char lr[96] = "", tc[96], x[32];
    if (!isnan(rec_lr))
        snprintf(lr, sizeof lr, ", learning rate %s%s", mb_data_fmt_exact(x, sizeof x, rec_lr),
                 n_lr > 1 ? " (the fastest of the rates given)" : "");
    if (sr)
        snprintf(tc, sizeof tc, "T_C = %.4g s predicted, %.3g s measured", sr->t_pred,
                 sr->t_median);
    else
        snprintf(tc, sizeof tc, "T_C = %.4g s", r->opt.t_c);
    fprintf(f, "recommendation: P = %.0f learners with mini-batch M = %.0f (%.0f per learner)%s: "
               "%s, %s the single learner's best, efficiency %s; the fewest learners "
               "within %.0f%% of the fastest%s%s\n",
            r->procs, rec_m, rec_m / r->procs, lr, tc,
            fmt(b1, sizeof b1, "%.4gx", r->speedup_opt), fmt(b2, sizeof b2, "%.3f", r->eff_opt),
            100 * ENOUGH_SLACK, *note ? "; " : "", note);
    scale_settle_print(f, ck);
    mb_inverse_law inv;
    if (mb_model_law_as_inverse(&m->law, &inv) == MB_OK && r->bound == MB_BOUND_NONE &&
        r->opt.regime == MB_REGIME_BALANCE) {
        double d = 0;
        mb_model_comm_time(&m->t, r->procs, &d);
        const double mstar = sqrt(inv.alpha * (m->t.t0 + d) * r->procs / (inv.n_inf * m->t.gamma));
        char ms[32]; /* "-" where the parameters' products under- or overflow */
        fprintf(f, "why:            Perrone eq. 9: M* = sqrt(alpha (t0 + Delta(P)) P / (N_inf "
                   "gamma)) = sqrt(%.4g * %.4g * %.0f / (%.4g * %.4g)) = %s%s",
                inv.alpha, m->t.t0 + d, r->procs, inv.n_inf, m->t.gamma,
                fmt(ms, sizeof ms, "%.4g", isfinite(mstar) ? mstar : NAN),
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
    size_t nq = mb_solver_optimum_spread(m->nf.boot, m->nf.n_boot, &m->t, r->procs, r->m_lo,
                                         r->m_hi, q);
    if (isfinite(q[0]))
        fprintf(f, "spread:         the %s refitted to %zu bootstrap resamples of the runs puts "
                   "M_opt at P = %.0f between %.4g and %.4g 8 times in 10\n",
                mb_model_law_name(m->law.kind), nq, r->procs, q[0], q[1]);
    double ci[2];
    size_t nl = mb_solver_tc_interval(m->nf.boot_seed, m->nf.n_boot_seed, m->nf.boot_seeds,
                                      &m->t, rec_m, r->procs, ci);
    if (isfinite(ci[0]))
        fprintf(f, "level:          the %s refitted to %zu resamples of whole seeds puts T_C at "
                   "M = %.0f, P = %.0f between %.4g and %.4g s (%.0f%%): a seed's luck moves "
                   "every M alike, so the runs' few seeds leave the level this uncertain\n",
                mb_model_law_name(m->law.kind), nl, rec_m, r->procs, ci[0], ci[1],
                100 * MB_SOLVER_TC_LEVEL);
    const scale_flat fl = flat_of(m, rows, n, best, enough, p_avail);
    if (isfinite(fl.m[0]))
    {
        char ps[64];
        if (fl.p_lo == fl.p_hi)
            snprintf(ps, sizeof ps, "only P = %.0f", fl.p_lo);
        else
            snprintf(ps, sizeof ps, "P = %.0f..%.0f", fl.p_lo, fl.p_hi);
        fprintf(f, "flat:           M = %.0f..%.0f at P = %.0f is predicted within %.0f%% of its "
                   "best T_C; %s within %.0f%% of the fastest%s%s\n", ceil(fl.m[0]),
                floor(fl.m[1]), fl.procs, 100 * MB_SOLVER_FLAT, ps, 100 * MB_SOLVER_FLAT,
                fl.note[0] ? "; " : "", fl.note);
    }
    if (so->budget > 0)
        budget_print(f, m, so->budget, rows, n, best, enough, p_avail);
}

int mbopt_scale(int argc, char **argv)
{
    const char *sub = "scale";
    static const struct option lo[] = {MODEL_LONGOPTS,
                                       {"procs", required_argument, 0, OPT_PROCS},
                                       {"m-strong", required_argument, 0, OPT_M_STRONG},
                                       {"m-weak", required_argument, 0, OPT_M_WEAK},
                                       {"procs-available", required_argument, 0, OPT_PROCS_AVAIL},
                                       {"budget", required_argument, 0, OPT_BUDGET},
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
    mb_cli_seen seen = {prog, sub, (const int[]){OPT_NFIT, 0}, {0}, MODEL_EXCLUSIVE};
    while ((c = mb_cli_getopt(argc, argv, ":ho:", lo, &seen)) != -1) {
        int r = model_option(&m, c, optarg, &err);
        if (r < 0)
            return mb_cli_fail(prog, sub, &err);
        if (r > 0)
            continue;
        switch (c) {
        case OPT_PROCS: procs = optarg; break;
        case OPT_PROCS_AVAIL: avail = optarg; break;
        case OPT_M_STRONG:
            if (mb_data_flag_whole("--m-strong", optarg, 0, 1, MB_DATA_RANGE_MAX, &so.m_strong, &err))
                return mb_cli_fail(prog, sub, &err);
            break;
        case OPT_M_WEAK:
            if (mb_data_flag_whole("--m-weak", optarg, 0, 1, MB_DATA_RANGE_MAX, &so.m_weak, &err))
                return mb_cli_fail(prog, sub, &err);
            break;
        case OPT_BUDGET:
            if (mb_data_flag_double("--budget", optarg, 0, MB_POSITIVE, &so.budget, &err))
                return mb_cli_fail(prog, sub, &err);
            break;
        case OPT_JSON: out.json = 1; break;
        case 'o': out.output = optarg; break;
        case 'h': scale_help(); return 0;
        default: return mb_cli_bad_option(prog, sub, argv, optind, c);
        }
    }
    double p_avail = INFINITY;
    if (avail && mb_data_flag_whole("--procs-available", avail, 0, 1, MB_DATA_RANGE_MAX, &p_avail, &err))
        return mb_cli_fail(prog, sub, &err);
    mb_range pr;
    if (mb_data_parse_counts(procs, "--procs", 1, MB_DATA_RANGE_MAX, &pr, &err) != MB_OK)
        return mb_cli_fail(prog, sub, &err);
    if (model_resolve(&m, &err) != MB_OK ||
        model_check_procs(&m, pr.v, pr.n, "--procs", &err) != MB_OK ||
        output_over_inputs(out.output, &m, argc - optind, argv + optind, &err) != MB_OK) {
        mb_data_range_free(&pr);
        return mb_cli_fail(prog, sub, &err);
    }
    if (mb_cli_given(&seen, OPT_EXTRAPOLATE) && !extrapolate_acts(&m, pr.v, pr.n)) {
        mb_data_range_free(&pr);
        return mb_cli_no_effect(prog, sub, "--extrapolate", "here: no --nfit with a converged "
                                "range to search beyond (the search is every M >= 1 already), "
                                "and no P > 1 of --procs with runs of its own in --tfit to hold "
                                "its M to; leave it out");
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
        s1.beyond_runs = m.extrapolate;
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
    so.beyond_runs = m.extrapolate;
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

