/* mbopt_validate.c — `mbopt validate`: predicted against measured training time from run logs,
 * the in-sample line, the grid sweep a calibration is priced against, and its options; the
 * held-out check and sequential sampling as printed are mbopt_holdout.c's (solver/validate.c,
 * solver/holdout.c do the work).
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
#include "../data/mb_format.h"

/* The recommendation's measured time over the measured best. */
static double validate_ratio(const mb_validate *v)
{
    return v->settled >= 0 ? v->settled_ratio : v->ratio;
}

/* ---- mbopt validate -------------------------------------------------------------------------- */


/* --grid-cost LIST: what a grid sweep of LIST's M, grid_seeds runs each, to the target would
 * train, predicted (the cost a calibration below the target is set against). */
typedef struct grid_cli {
    mb_range m;
    size_t seeds;
    double *per_m, total; /* filled by grid_compute */
    double capped_total;  /* the same sweep under the time cap (--grid-cap) */
    size_t never;         /* M at or under the law's pole: never reach the target */
    size_t capped;        /* M below the fastest stopped by the time cap after one run */
    double cap;           /* --grid-cap F: make run's time cap, x the least T_C (0: none) */
    double law_m0;        /* that pole, for the grid's line */
    int on;
} grid_cli;

static int grid_compute(grid_cli *g, const model_opts *m, double p, mb_error *err)
{
    if (!g->m.n)
        return MB_OK;
    g->per_m = malloc(g->m.n * sizeof *g->per_m);
    if (!g->per_m)
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    g->law_m0 = m->law.m0;
    int rc = mb_solver_grid_cost(&m->law, &m->t, p, g->m.v, g->m.n, g->seeds, g->cap, g->per_m,
                                 &g->total, &g->capped_total, &g->never,
                                 &g->capped, err);
    g->on = rc == MB_OK;
    return rc;
}

/* The grid's line: "a sweep of M = 8..512 (7 M), 5 seeds each, ... would train X s". The M are
 * whole numbers up to 2^30 (mb_data_parse_batches): printed whole, as typed (campaign 44's
 * B-F3: %g printed 1073741824 as 1.07374e+09). */
static const char *grid_line(char *buf, size_t size, const grid_cli *g, double p)
{
    int len = snprintf(buf, size, "a grid sweep of M = %.0f..%.0f (%zu M) at P = %g, %zu seeds "
                       "each, to the target would train %.4g s (predicted: %zu x T_C at each M; "
                       "evaluation not counted)", g->m.v[0], g->m.v[g->m.n - 1], g->m.n, p,
                       g->seeds, g->total, g->seeds);
    if (g->never && len > 0 && (size_t)len < size)
        len += snprintf(buf + len, size - (size_t)len, "; %zu M at or under the law's pole M_0 = "
                        "%.3g never reach it and are left out", g->never, g->law_m0);
    char cap[32]; /* as given, not %g's 1 for 1.0000000001 (campaign 44's B-D2) */
    if (g->cap > 0 && len > 0 && (size_t)len < size)
        snprintf(buf + len, size - (size_t)len, "; under make run's time cap (a run at an M below "
                 "the fastest stops at %s x its T_C, and that M's later seeds are skipped: %zu M) "
                 "the sweep would train %.4g s", mb_data_fmt_exact(cap, sizeof cap, g->cap),
                 g->capped, g->capped_total);
    return buf;
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
           "      --repeats DIR     with --holdout: runs that fitted and chose, trained again\n"
           "                        between the held-out runs (repeat it for several folders):\n"
           "                        their seconds per update against their first runs' say how\n"
           "                        fast the machine ran during the check (machine: line), and\n"
           "                        the model's error at that speed\n"
           "      --holdout-plan N  print only what a held-out check should train: the\n"
           "                        recommendation, the in-sample best, the model's optimum and\n"
           "                        M / 1.22, M * 1.22, on N fresh seeds\n"
           "                        (3..64, from 1000 up, none a seed of LOG|DIR), seed by seed,\n"
           "                        as M,LR,SEED tokens on one line\n"
           "      --holdout-seed0 S with --holdout-plan N: the held-out seeds from S up (1000 to\n"
           "                        1e9 - N + 1; default 1000): another S is an independent check\n"
           "      --holdout-beyond  with --holdout: print only what extends the held-out sweep\n"
           "                        when its best M is the least or largest it trained: M / 1.22\n"
           "                        or M * 1.22 on the best's held-out seeds, as M,LR,SEED tokens\n"
           "                        (empty: the best has held-out neighbours on both sides)\n"
           "      --more-seeds      print only the settings whose median's 90%% interval still\n"
           "                        overlaps the leader's (and the leader), one more seed each,\n"
           "                        as M,LR,SEED tokens (empty: decided, or all at the cap)\n"
           "      --max-seeds N     the cap of runs a setting gets from --more-seeds, and the\n"
           "                        budget the sampling: line counts as spent (default 14)\n"
           "Cost:\n"
           "      --grid-cost LIST  the grid: what a sweep of LIST's M (8:512 or 8,16,...) at the\n"
           "                        recommended P, --grid-seeds runs each, to the target would\n"
           "                        train, predicted (grid: line; JSON grid_cost)\n"
           "      --grid-seeds N    runs at each M of that sweep (default 5)\n"
           "      --grid-cap F      that sweep's time cap, as make run's RUN_TIME_CAP: a run at\n"
           "                        an M below the fastest stops at F x the least T_C and that\n"
           "                        M's later seeds are skipped (above 1; default 0: no cap)\n"
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
                            const char *in_sample, const char *held, const char *sampling,
                            const grid_cli *grid)
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
    if (params)
        mb_solver_law_json(params, &m->law);
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
    cJSON *gc = grid->on ? cJSON_AddObjectToObject(root, "grid_cost") : NULL;
    if (gc) {
        cJSON *ms = cJSON_AddArrayToObject(gc, "batches"), *ts = cJSON_AddArrayToObject(gc, "t_pred_s");
        for (size_t k = 0; k < grid->m.n && ms && ts; k++) {
            cJSON_AddItemToArray(ms, cJSON_CreateNumber(grid->m.v[k]));
            cJSON_AddItemToArray(ts, cJSON_CreateNumber(grid->per_m[k]));
        }
        mb_json_add_number(gc, "procs", v->p_rec);
        mb_json_add_number(gc, "seeds", (double)grid->seeds);
        mb_json_add_number(gc, "total_s", grid->total);
        mb_json_add_number(gc, "capped_total_s", grid->capped_total);
        mb_json_add_number(gc, "cap", grid->cap);
        mb_json_add_count(gc, "capped", (double)grid->capped);
        mb_json_add_count(gc, "never", (double)grid->never);
    }
    return root;
}

static void validate_csv(FILE *f, const mb_validate *v)
{
    mb_format_write(f, MB_FORMAT_VALIDATE_CSV);
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
                           const char *sampling, const char *machine, const grid_cli *grid)
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
    if (grid->on) {
        char line[640]; /* the grid, the pole and the capped sweep: up to ~480 */
        fprintf(f, "grid: %s\n", grid_line(line, sizeof line, grid, v->p_rec));
    }
    if (machine)
        fprintf(f, "machine: %s\n", machine);
}

/* The in-sample line: the recommendation's time over the best of the very runs that chose it
 * (so no check of it), the model's median error on them and where that error comes from. */
static void in_sample_verdict(char *verdict, size_t size, const model_opts *m,
                              const mb_validate *v, double m_rec, double p_rec)
{
    char stand[160] = "", settle[320] = "", x[4][32];
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
                 "(trained%s in %.3g s, %s the best), which the model cannot tell from it: "
                 "it predicts both within %s of its best T_C, its median |error| on these "
                 "runs", m_rec, as, v->rows[v->rec].t_median,
                 fmt(x[0], sizeof x[0], "%.2fx", v->ratio),
                 fmt(x[1], sizeof x[1], "%.1f%%", 100 * v->band));
    else if (pick >= 0 && pick != v->rec)
        snprintf(settle, sizeof settle, "; the model's optimum M = %.4g has no runs of its own "
                 "(train M = %.0f to check it); the model predicts M = %g within %s of its "
                 "best T_C, its median |error| on these runs, and it is the fastest such, "
                 "the runs weighed against the model", m_rec, round(m_rec), v->rows[pick].batch,
                 fmt(x[1], sizeof x[1], "%.1f%%", 100 * v->band));
    if (mb_solver_calibration_only(v) && !m->nf.extrapolated) {
        /* a fit made at this target, but none of these runs reached it (issue #25, G9) */
        snprintf(verdict, size, "no run given reached the target loss %g, so nothing in-sample "
                 "grades the recommended M = %.4g (P = %g); the held-out check does", v->target,
                 m_rec, p_rec);
        return;
    }
    if (mb_solver_calibration_only(v)) {
        /* the runs stopped above the target: they calibrated the law, nothing here reached it */
        snprintf(verdict, size,
                 "no run given reached the target loss %g: they calibrated a law extrapolated "
                 "to it (mbfit nupdate --extrapolate), so nothing in-sample grades the "
                 "recommended M = %g (P = %g; the optimum M = %.4g); the held-out check does",
                 v->target, mb_solver_m_whole(m_rec, p_rec), p_rec, m_rec);
        return;
    }
    if (pick >= 0 && v->best >= 0)
        snprintf(verdict, size,
                 "the recommended M = %g (P = %g)%s trained in %.3g s, %s the best of the "
                 "runs that chose it (P = %g, M = %g, %.3g s)%s; median |error| of predicted "
                 "T_C %s over %zu settings at P = %g",
                 v->rows[pick].batch, p_rec, stand, v->rows[pick].t_median,
                 fmt(x[2], sizeof x[2], "%.2fx", validate_ratio(v)), v->rows[v->best].procs,
                 v->rows[v->best].batch, v->rows[v->best].t_median, settle,
                 fmt(x[3], sizeof x[3], "%.1f%%", 100 * v->median_abs_err), v->n_err, p_rec);
    else
        snprintf(verdict, size,
                 "the recommended M = %.4g (P = %g) has no runs of its own yet (train M = %.0f "
                 "to check it); median |error| of predicted T_C %s over %zu settings at "
                 "P = %g",
                 m_rec, p_rec, mb_solver_m_whole(m_rec, p_rec),
                 fmt(x[3], sizeof x[3], "%.1f%%", 100 * v->median_abs_err), v->n_err, p_rec);
    /* where the error comes from: a T_update that the runs did not see is the machine's */
    if (m->tcal.on && p_rec == 1) {
        size_t len = strlen(verdict);
        snprintf(verdict + len, size - len,
                 "; T_update is the runs' own seconds per update (%.0f runs), so these errors "
                 "are N_update's; with the probe's T_update alone (its seconds per update off "
                 "the runs' by a median %s) the median |error| would be %s",
                 m->tcal.runs, fmt(x[0], sizeof x[0], "%.0f%%", 100 * v->median_abs_tu_err_probe),
                 fmt(x[1], sizeof x[1], "%.1f%%", 100 * v->median_abs_err_probe));
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

/* Everything mbopt validate was asked on its command line. */
/* What else the machine did while the runs trained (their logs' `# others_cores=` and
 * `# steal_cores=`): [0] the runs that fitted and chose, [1] the held-out runs; of each the
 * median cores of other processes and of the hypervisor, and how many runs said. */
typedef struct machine_load {
    double cores[2][2]; /* NAN where no run said */
    size_t n[2];        /* runs that stated either */
    size_t runs[2];     /* runs read */
} machine_load;

/* A quarter of a core busy with other work: the timings are of a loaded machine. */
#define MACHINE_LOADED 0.25

typedef struct validate_cli {
    model_opts m;
    out_opts out;
    const char *recommend;
    double target;
    int csv, missing, comm_runs;
    holdout_cli hc;
    grid_cli grid;
    machine_load load;
    char *repeats[MAX_HOLDOUT_DIRS]; /* --repeats DIR... */
    size_t n_repeats;
    mb_machine_speed speed;          /* their pairs' ratio (speed.n 0: none given) */
    double err_at_speed;             /* T_C's median |error| at that speed */
} validate_cli;

static void machine_load_of(const mb_fit_runs *r, machine_load *ml, int k)
{
    size_t n_others, n_steal;
    ml->cores[k][0] = mb_fit_runs_load(r, 0, &n_others) + 0.0; /* -0 is 0 */
    ml->cores[k][1] = mb_fit_runs_load(r, 1, &n_steal) + 0.0;
    ml->n[k] = n_others > n_steal ? n_others : n_steal;
    ml->runs[k] = r->n;
}

/* The machine's speed during the check (--repeats), for the machine: line: how many runs
 * trained again, how much slower or faster an update, and the model's error at that speed. */
static void speed_part(char *buf, size_t size, const validate_cli *vc)
{
    const mb_machine_speed *sp = &vc->speed;
    char r[32], lo[32], hi[32], e[32], ms[64];
    if (sp->m_lo == sp->m_hi)
        snprintf(ms, sizeof ms, "M = %g", sp->m_lo);
    else
        snprintf(ms, sizeof ms, "M = %g..%g", sp->m_lo, sp->m_hi);
    const int same = sp->ci[0] <= 1 && sp->ci[1] >= 1;
    snprintf(buf, size, "%zu run%s that fitted and chose (%s), trained again between the "
             "held-out runs, took a median %sx %s first seconds per update (95%% interval "
             "%s-%s): %s; with the model's T_update times %s, T_C's median |error| on the "
             "held-out runs is %s", sp->n, sp->n == 1 ? "" : "s", ms,
             fmt(r, sizeof r, "%.3g", sp->ratio), sp->n == 1 ? "its" : "their",
             fmt(lo, sizeof lo, "%.3g", sp->ci[0]), fmt(hi, sizeof hi, "%.3g", sp->ci[1]),
             same ? "the machine ran as fast during the check as when T_update was measured, "
                    "within the interval"
                  : sp->ratio > 1 ? "the machine ran slower during the check than when "
                                    "T_update was measured"
                                  : "the machine ran faster during the check than when "
                                    "T_update was measured",
             r, fmt(e, sizeof e, "%.1f%%", 100 * vc->err_at_speed));
}

/* The machine: line, or NULL when no run's log says and no run was repeated. */
static const char *machine_line(char *buf, size_t size, const validate_cli *vc)
{
    const machine_load *ml = &vc->load;
    char speed[512] = "";
    if (vc->speed.n)
        speed_part(speed, sizeof speed, vc);
    if (!ml->n[0] && !ml->n[1]) {
        if (!vc->speed.n)
            return NULL;
        snprintf(buf, size, "%s", speed);
        return buf;
    }
    static const char *const who[2][2] = {{"run that fitted and chose", "runs that fitted and chose"},
                                          {"held-out run", "held-out runs"}};
    char part[2][320] = {"", ""}, a[32], b[32], of[64];
    double most = 0;
    for (int k = 0; k < 2; k++) {
        if (!ml->n[k])
            continue;
        /* the runs whose logs said it, of those read (older logs and other writers say none) */
        if (ml->n[k] < ml->runs[k])
            snprintf(of, sizeof of, "%zu of the %zu", ml->n[k], ml->runs[k]);
        else
            snprintf(of, sizeof of, "the %zu", ml->n[k]);
        snprintf(part[k], sizeof part[k], "%swhile %s %s trained, other processes kept a "
                 "median %s cores busy and the hypervisor took %s", k && ml->n[0] ? "; " : "", of,
                 who[k][ml->runs[k] != 1], fmt(a, sizeof a, "%.2f", ml->cores[k][0]),
                 fmt(b, sizeof b, "%.2f", ml->cores[k][1]));
        most = fmax(most, (isnan(ml->cores[k][0]) ? 0 : ml->cores[k][0]) +
                              (isnan(ml->cores[k][1]) ? 0 : ml->cores[k][1]));
    }
    snprintf(buf, size, "%s%s%s%s%s", part[0], part[1],
             most >= MACHINE_LOADED ? ": a quarter core or more, so these timings are of a loaded "
                                      "machine and the answer holds for that load only"
                                    : "", *speed ? "; " : "", speed);
    return buf;
}

static void machine_json(cJSON *root, const validate_cli *vc)
{
    const machine_load *ml = &vc->load;
    cJSON *o = root ? cJSON_AddObjectToObject(root, "machine") : NULL;
    if (o && vc->speed.n) { /* --repeats: the machine's speed during the check */
        mb_json_add_number(o, "repeats", (double)vc->speed.n);
        mb_json_add_number(o, "speed_ratio", vc->speed.ratio);
        mb_json_add_number(o, "speed_ratio_lo", vc->speed.ci[0]);
        mb_json_add_number(o, "speed_ratio_hi", vc->speed.ci[1]);
        mb_json_add_number(o, "median_abs_err_at_speed", vc->err_at_speed);
    }
    static const char *const key[2] = {"fit", "held_out"};
    char name[64];
    for (int k = 0; o && k < 2; k++) {
        snprintf(name, sizeof name, "%s_runs", key[k]);
        mb_json_add_number(o, name, (double)ml->n[k]);
        snprintf(name, sizeof name, "%s_others_cores", key[k]);
        mb_json_add_number(o, name, ml->cores[k][0]);
        snprintf(name, sizeof name, "%s_steal_cores", key[k]);
        mb_json_add_number(o, name, ml->cores[k][1]);
    }
}


/* A count of seeds (--holdout-plan, --max-seeds, --grid-seeds): a whole number in range, as
 * written (4.0000000000000001, which a double rounds to 4, is not; campaign 11's minor). Any
 * number out of it, 0 and negatives too, is told the range (campaign 44's B-F2: 0 was told
 * "must be > 0", then 1 "from 3 to 64"). */
static int seeds_flag(const char *flag, const char *arg, size_t *n, mb_error *err)
{
    double x;
    if (mb_data_flag_double(flag, arg, 0, MB_ANY, &x, err))
        return MB_EINVAL;
    /* a count of seeds is written in digits: 3.0 or 3e0 is a number, not a count (campaign
     * 18's M2; --procs refuses them too) */
    if (x != floor(x) || strspn(arg, "0123456789") != strlen(arg) || x > MB_HOLDOUT_MAX_SEEDS ||
        x < MB_HOLDOUT_MIN_SEEDS) {
        char note[160]; /* 1e1 is ten: the notation is the fault (campaign 42's B-F5) */
        return mb_error_set(err, MB_EINVAL, "%s: a whole number of seeds from %d to %d%s, got "
                            "'%s'", flag, MB_HOLDOUT_MIN_SEEDS, MB_HOLDOUT_MAX_SEEDS,
                            mb_data_count_notation(arg, MB_HOLDOUT_MIN_SEEDS,
                                                   MB_HOLDOUT_MAX_SEEDS, note, sizeof note), arg);
    }
    *n = (size_t)x;
    return MB_OK;
}

/* --holdout-seed0 S: a whole number, written in digits, from MB_HOLDOUT_SEED0 (below it the
 * choosing runs draw their seeds) to MB_HOLDOUT_SEED0_MAX. */
static int seed0_flag(const char *arg, unsigned long *seed0, mb_error *err)
{
    double x;
    if (mb_data_flag_whole("--holdout-seed0", arg, 0, MB_HOLDOUT_SEED0,
                           (double)MB_HOLDOUT_SEED0_MAX, &x, err))
        return MB_EINVAL;
    *seed0 = (unsigned long)x;
    return MB_OK;
}

/* The flags against the mode chosen (validate_parse's, once read): the modes that print one
 * thing for a script take no output flag and none that only the table reads; each flag with the
 * one it belongs to. -1 to go on, else the exit status. */
static int validate_mode_flags(validate_cli *vc, const mb_cli_seen *sp)
{
    const char *sub = "validate";
    holdout_cli *hc = &vc->hc;
    if (vc->out.json && vc->csv)
        return mb_cli_usage(prog, sub, "--json and --csv: give one");
    if ((hc->plan_seeds > 0) + hc->more_seeds + hc->beyond + vc->missing + vc->comm_runs > 1)
        return mb_cli_usage(prog, sub, "--holdout-plan, --holdout-beyond, --more-seeds, "
                            "--missing and --comm-from-runs each print one thing: give one");
    const int tokens = hc->plan_seeds > 0 || hc->more_seeds || hc->beyond || vc->missing ||
                       vc->comm_runs; /* what scripts read from standard output */
    if (tokens && (strcmp(vc->out.output, "-") != 0 || vc->out.json || vc->csv))
        return mb_cli_usage(prog, sub, "--holdout-plan, --holdout-beyond, --more-seeds, "
                            "--missing and --comm-from-runs print for scripts on standard "
                            "output: -o, --json and --csv do not apply");
    if (vc->grid.m.n == 0 && mb_cli_given(sp, OPT_GRID_CAP))
        return mb_cli_usage(prog, sub, "--grid-cap is the time cap of --grid-cost's sweep: give "
                            "--grid-cost LIST");
    if (vc->grid.m.n == 0 && vc->grid.seeds)
        return mb_cli_usage(prog, sub, "--grid-seeds is the seeds of --grid-cost's sweep: give "
                            "--grid-cost LIST");
    if (!vc->grid.seeds)
        vc->grid.seeds = 5;
    if (hc->seed0 && !hc->plan_seeds)
        return mb_cli_usage(prog, sub, "--holdout-seed0 sets where --holdout-plan's seeds start: "
                            "give --holdout-plan N");
    if (hc->seed0 && hc->seed0 + hc->plan_seeds - 1 > MB_HOLDOUT_SEED0_MAX)
        return mb_cli_usage(prog, sub, "--holdout-seed0 %lu with --holdout-plan %zu: the seeds "
                            "would run to %lu, past %lu (give --holdout-seed0 at most %lu)",
                            hc->seed0, hc->plan_seeds, hc->seed0 + hc->plan_seeds - 1,
                            MB_HOLDOUT_SEED0_MAX, MB_HOLDOUT_SEED0_MAX - hc->plan_seeds + 1);
    /* --holdout is read by the check and by --holdout-beyond; the modes that print one thing
     * for a script never open it (campaign 31's N1: --holdout-plan planned the very seeds of the
     * held-out runs it was given) */
    const char *mode = hc->plan_seeds ? "--holdout-plan" : hc->more_seeds ? "--more-seeds"
                       : vc->missing ? "--missing" : vc->comm_runs ? "--comm-from-runs" : NULL;
    if (hc->n_dirs && mode) {
        char why[160];
        snprintf(why, sizeof why, "with %s: it reads only the runs given as LOG or DIR%s", mode,
                 hc->plan_seeds ? " (give a previous check's runs there to skip their seeds)"
                                : "");
        return mb_cli_no_effect(prog, sub, "--holdout", why);
    }
    if (vc->n_repeats && vc->csv)
        return mb_cli_no_effect(prog, sub, "--repeats", "with --csv (its machine: line and JSON "
                                "are the table's and --json's)");
    /* --csv writes the table's rows alone: the held-out lines are the table's and --json's
     * (campaign 44's B-F1) */
    if (hc->n_dirs && vc->csv)
        return mb_cli_no_effect(prog, sub, "--holdout", "with --csv, which writes only the "
                                "table's rows (the held-out lines are the table's and --json's)");
    if (vc->n_repeats && (mode || hc->beyond || hc->n_dirs == 0))
        return mb_cli_no_effect(prog, sub, "--repeats", hc->n_dirs == 0
                                ? "without --holdout DIR (it measures the machine's speed "
                                  "during the held-out check)"
                                : "with a mode that prints only tokens for a script");
    if (hc->beyond && hc->n_dirs == 0)
        return mb_cli_usage(prog, sub, "--holdout-beyond extends a held-out sweep: give its "
                            "runs with --holdout DIR");
    /* the modes that print for a script print no table, and --csv only its rows: the grid
     * sweep's flags feed its grid: line and JSON grid_cost, --max-seeds --more-seeds and its
     * sampling: line (campaign 38's F3: --holdout-plan 3 --grid-cost 8:512 printed its tokens,
     * the flag unread; campaign 44's B-F1: --csv dropped them alike) */
    const char *print_mode = mode ? mode : hc->beyond ? "--holdout-beyond" : vc->csv ? "--csv"
                                                                                    : NULL;
    static const struct {
        int code;
        const char *flag;
    } table_only[] = {{OPT_GRID_COST, "--grid-cost"}, {OPT_GRID_SEEDS, "--grid-seeds"},
                      {OPT_GRID_CAP, "--grid-cap"}, {OPT_MAX_SEEDS, "--max-seeds"}};
    for (size_t k = 0; print_mode && k < sizeof table_only / sizeof table_only[0]; k++) {
        const int max_seeds = table_only[k].code == OPT_MAX_SEEDS;
        if (!mb_cli_given(sp, table_only[k].code) || (max_seeds && hc->more_seeds))
            continue;
        char why[224];
        snprintf(why, sizeof why, "with %s, which %s: it %s", print_mode,
                 vc->csv ? "writes only the table's rows" : "prints only its tokens",
                 max_seeds ? "caps the runs a setting --more-seeds gives and the table's "
                             "sampling: line" : "prices the grid sweep of the table's grid: "
                             "line and of --json's grid_cost");
        return mb_cli_no_effect(prog, sub, table_only[k].flag, why);
    }
    return -1;
}

/* Parses the options into vc; returns -1 to go on, else the exit status (help, a usage error,
 * a bad value). */
static int validate_parse(int argc, char **argv, validate_cli *vc)
{
    const char *sub = "validate";
    static const struct option lo[] = {MODEL_LONGOPTS,
                                       {"target-loss", required_argument, 0, OPT_TARGET},
                                       {"recommend", required_argument, 0, OPT_RECOMMEND},
                                       {"missing", no_argument, 0, OPT_MISSING},
                                       {"comm-from-runs", no_argument, 0, OPT_COMM_RUNS},
                                       {"holdout", required_argument, 0, OPT_HOLDOUT},
                                       {"repeats", required_argument, 0, OPT_REPEATS},
                                       {"holdout-plan", required_argument, 0, OPT_HOLDOUT_PLAN},
                                       {"holdout-seed0", required_argument, 0, OPT_HOLDOUT_SEED0},
                                       {"holdout-beyond", no_argument, 0, OPT_HOLDOUT_BEYOND},
                                       {"more-seeds", no_argument, 0, OPT_MORE_SEEDS},
                                       {"max-seeds", required_argument, 0, OPT_MAX_SEEDS},
                                       {"grid-cost", required_argument, 0, OPT_GRID_COST},
                                       {"grid-seeds", required_argument, 0, OPT_GRID_SEEDS},
                                       {"grid-cap", required_argument, 0, OPT_GRID_CAP},
                                       {"json", no_argument, 0, OPT_JSON},
                                       {"csv", no_argument, 0, OPT_CSV},
                                       {"output", required_argument, 0, 'o'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
    holdout_cli *hc = &vc->hc;
    mb_error err = {0};
    int c;
    mb_cli_seen seen = {prog, sub, (const int[]){OPT_NFIT, OPT_HOLDOUT, OPT_REPEATS, 0}, {0}, MODEL_EXCLUSIVE};
    while ((c = mb_cli_getopt(argc, argv, ":ho:", lo, &seen)) != -1) {
        int r = model_option(&vc->m, c, optarg, &err);
        if (r < 0)
            return mb_cli_fail(prog, sub, &err);
        if (r > 0)
            continue;
        switch (c) {
        case OPT_TARGET:
            if (mb_data_flag_double("--target-loss", optarg, 0, MB_POSITIVE, &vc->target, &err))
                return mb_cli_fail(prog, sub, &err);
            break;
        case OPT_RECOMMEND: vc->recommend = optarg; break;
        case OPT_MISSING: vc->missing = 1; break;
        case OPT_COMM_RUNS: vc->comm_runs = 1; break;
        case OPT_HOLDOUT:
            if (hc->n_dirs == MAX_HOLDOUT_DIRS)
                return mb_cli_usage(prog, sub, "--holdout: at most %d folders",
                                    MAX_HOLDOUT_DIRS);
            hc->dirs[hc->n_dirs++] = optarg;
            break;
        case OPT_REPEATS:
            if (vc->n_repeats == MAX_HOLDOUT_DIRS)
                return mb_cli_usage(prog, sub, "--repeats: at most %d folders",
                                    MAX_HOLDOUT_DIRS);
            vc->repeats[vc->n_repeats++] = optarg;
            break;
        case OPT_HOLDOUT_PLAN:
            if (seeds_flag("--holdout-plan", optarg, &hc->plan_seeds, &err) != MB_OK)
                return mb_cli_fail(prog, sub, &err);
            break;
        case OPT_HOLDOUT_SEED0:
            if (seed0_flag(optarg, &hc->seed0, &err) != MB_OK)
                return mb_cli_fail(prog, sub, &err);
            break;
        case OPT_MAX_SEEDS:
            if (seeds_flag("--max-seeds", optarg, &hc->max_seeds, &err) != MB_OK)
                return mb_cli_fail(prog, sub, &err);
            break;
        case OPT_MORE_SEEDS: hc->more_seeds = 1; break;
        case OPT_GRID_COST:
            mb_data_range_free(&vc->grid.m);
            if (mb_data_parse_batches(optarg, "--grid-cost", 1 << 30, &vc->grid.m, &err) !=
                MB_OK)
                return mb_cli_fail(prog, sub, &err);
            break;
        case OPT_GRID_SEEDS:
            if (seeds_flag("--grid-seeds", optarg, &vc->grid.seeds, &err) != MB_OK)
                return mb_cli_fail(prog, sub, &err);
            break;
        case OPT_GRID_CAP: /* as make run's RUN_TIME_CAP: a multiple above 1, 0 for none */
            if (mb_data_flag_double("--grid-cap", optarg, 0, MB_NONNEG, &vc->grid.cap, &err))
                return mb_cli_fail(prog, sub, &err);
            if (vc->grid.cap != 0 && !(vc->grid.cap > 1)) { /* campaign 38's debatable */
                mb_error_set(&err, MB_EINVAL, "--grid-cap: 0 (no cap) or above 1, got '%s' (a "
                             "cap at or below 1 x the least T_C stops every run at an M slower "
                             "than the fastest before it can reach the target)", optarg);
                return mb_cli_fail(prog, sub, &err);
            }
            break;
        case OPT_HOLDOUT_BEYOND: hc->beyond = 1; break;
        case OPT_JSON: vc->out.json = 1; break;
        case OPT_CSV: vc->csv = 1; break;
        case 'o': vc->out.output = optarg; break;
        case 'h': validate_help(); return 0;
        default: return mb_cli_bad_option(prog, sub, argv, optind, c);
        }
    }
    if (optind >= argc)
        return mb_cli_usage(prog, sub, "no run logs given (LOG or DIR...)");
    if ((c = validate_mode_flags(vc, &seen)) >= 0)
        return c;
    model_opts *m = &vc->m;
    if (!m->have_comm && !m->cfit && !m->have_delta) /* one learner needs no collective model */
        m->have_comm = m->comm_implied = 1, m->t.comm = MB_COMM_NONE;
    if (model_resolve(m, &err) != MB_OK ||
        output_over_inputs(vc->out.output, m, argc - optind, argv + optind, &err) != MB_OK ||
        output_over_inputs(vc->out.output, NULL, (int)hc->n_dirs, hc->dirs, &err) != MB_OK ||
        output_over_inputs(vc->out.output, NULL, (int)vc->n_repeats, vc->repeats, &err) != MB_OK ||
        output_over_inputs(vc->out.output, NULL, vc->recommend != NULL,
                           (char *const *)&vc->recommend, &err) != MB_OK)
        return mb_cli_fail(prog, sub, &err);
    /* the prediction is for the fit's target: grading it with runs timed to another would
     * report the gap between two targets as the model's error (issue #25, G8) */
    const double fit_target = m->n_nfit ? m->nfs[0].target_loss : NAN;
    if (!isnan(vc->target) && isfinite(fit_target) &&
        !(fabs(vc->target - fit_target) <= 1e-9 * fit_target)) { /* exact (campaign 35's R8) */
        char a[32], b[32];
        mb_data_fmt_exact(a, sizeof a, vc->target), mb_data_fmt_exact(b, sizeof b, fit_target);
        return mb_cli_usage(prog, sub, "--target-loss %s is not the target of %s, %s: its "
                            "prediction is for %s (refit at %s, or leave --target-loss out)", a,
                            m->nfits[0], b, b, a);
    }
    if (isnan(vc->target))
        vc->target = m->nf.target_loss;
    if (isnan(vc->target)) {
        mb_error_set(&err, MB_EUSAGE, "no target loss: give --target-loss (the --nfit has none)");
        return mb_cli_fail(prog, sub, &err);
    }
    return -1;
}

/* Whether a recommendation's number and validate's are one: the same to 1e-9, as mbplot report
 * holds them (mb_plot_near). */
static int rec_near(double a, double b)
{
    return a == b || fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

/* A number of the recommendation (`field`, a) against the fits' (b), the same to 1e-9 as mbplot
 * report holds them (either unknown: not compared); `fit` names the file it comes from. */
static int rec_same(const char *path, const char *field, double a, double b, const char *fit,
                    mb_error *err)
{
    if (isnan(b) || rec_near(a, b))
        return MB_OK;
    if (isnan(a)) /* absent, null or not a number: nothing to hold to the fit (campaign 30's C3) */
        return mb_error_set(err, MB_EFORMAT, "%s: field '%s': missing or not a number, where %s's "
                            "is %.10g: the recommendation says not of which fit it is", path,
                            field, fit, b);
    return mb_error_set(err, MB_EFORMAT, "%s: field '%s': %.10g, but %s's is %.10g: the "
                        "recommendation is of another fit", path, field, a, fit, b);
}

/* The recommendation's range of M (model.m_lo, model.m_hi; null: none above) against the one
 * validate reads (the fits' converged range, or --batch-range), as mbplot report holds scale.json
 * to validate.json (campaign 42's B-F8: a scale.json of --batch-range 128:512 was checked at
 * M = 32). */
static int rec_range(const char *path, const cJSON *sm, const model_opts *m, mb_error *err)
{
    const char *key[2] = {"m_lo", "m_hi"};
    const double mine[2] = {m->m_lo, m->m_hi};
    for (int k = 0; k < 2; k++) {
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(sm, key[k]);
        const double a = cJSON_IsNumber(o) ? o->valuedouble : cJSON_IsNull(o) && k ? INFINITY
                                                                                 : NAN;
        if (rec_near(a, mine[k]))
            continue;
        char va[32], lo[32], hi[32];
        snprintf(va, sizeof va, isinf(a) ? "null" : isnan(a) ? "missing" : "%.10g", a);
        snprintf(lo, sizeof lo, "%.10g", m->m_lo);
        snprintf(hi, sizeof hi, isfinite(m->m_hi) ? "%.10g" : "", m->m_hi);
        return mb_error_set(err, MB_EFORMAT, "%s: field 'model.%s': %s, but the fits' range of M "
                            "is %s..%s: the recommendation is of another range of M (rerun "
                            "mbopt scale with validate's --batch-range, or none)", path, key[k],
                            va, lo, hi);
    }
    return MB_OK;
}

/* The recommendation's target and model against the fit selected for it (campaign 29's B5: an
 * edited target_loss or model.n_inf was graded as if it were the fits'): the target, the law
 * and its parameters, the step's gamma, M_T and t0, as mbplot report compares scale.json with
 * the fits (plots/match.c); the collective and the range of M are not the fits'. */
static int recommendation_model(const model_opts *m, const cJSON *root, const char *path,
                                double target, mb_error *err)
{
    const cJSON *sm = cJSON_GetObjectItemCaseSensitive(root, "model");
    const char *nfit = m->nfit ? m->nfit : "the --nfit";
    const double tl = mb_json_get(root, "target_loss");
    int rc = rec_same(path, "target_loss", tl, m->nf.target_loss, nfit, err);
    /* a fit with no target: the recommendation's, where it states one, is validate's
     * --target-loss, as mbplot report holds the pair (campaign 43's B-F6) */
    if (rc == MB_OK && isnan(m->nf.target_loss) && !isnan(tl) && !isnan(target) &&
        !rec_near(tl, target)) {
        char a[32], b[32];
        rc = mb_error_set(err, MB_EFORMAT, "%s: field 'target_loss': %s, but --target-loss is %s: "
                          "the recommendation is for another target", path,
                          mb_data_fmt_exact(a, sizeof a, tl), mb_data_fmt_exact(b, sizeof b, target));
    }
    if (rc == MB_OK && !cJSON_IsObject(sm) && m->nfit)
        rc = mb_error_set(err, MB_EFORMAT, "%s: field 'model': %s, where the recommendation's "
                          "model is held to %s's", path, sm ? "not an object" : "missing", nfit);
    if (rc != MB_OK || !cJSON_IsObject(sm))
        return rc;
    const cJSON *law = cJSON_GetObjectItemCaseSensitive(sm, "law");
    const char *mine = mb_model_law_name(m->law.kind);
    if (law && (!cJSON_IsString(law) || strcmp(law->valuestring, mine) != 0))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'model.law': %s, but %s's is the %s: the "
                            "recommendation is of another fit", path, cJSON_IsString(law) ?
                            law->valuestring : "not a string", nfit, mine);
    const char *names[3];
    double v[3];
    size_t n = mb_model_law_params(&m->law, names, v);
    for (size_t i = 0; rc == MB_OK && i < n; i++) {
        char field[32];
        snprintf(field, sizeof field, "model.%s", names[i]);
        rc = rec_same(path, field, mb_json_get(sm, names[i]), v[i], nfit, err);
    }
    const char *tfit = m->tfit ? m->tfit : "the --tfit";
    if (rc == MB_OK)
        rc = rec_same(path, "model.gamma", mb_json_get(sm, "gamma"), m->t.gamma, tfit, err);
    if (rc == MB_OK)
        rc = rec_same(path, "model.m_t", mb_json_get(sm, "m_t"), m->t.m_t, tfit, err);
    if (rc == MB_OK)
        rc = rec_same(path, "model.t0", mb_json_get(sm, "t0"), m->t.t0, tfit, err);
    return rc == MB_OK ? rec_range(path, sm, m, err) : rc;
}

/* --recommend's file (campaign 16, S3): a scale file checked as mbplot report checks it
 * (mb_solver_check_scale: its top-level values, procs_available among them, campaign 32's P3;
 * `enough` and `best` rows of it, M > 0 at most 2^53, P whole >= 1), and whose `lr`, when a
 * number, is the rate of one of the --nfit fits, whose index goes to *which (n_nfit where it
 * names none: absent or null, or a model given by flags) and is selected in m; its target is that
 * fit's (or `target`, --target-loss, where the fit has none) and its model that fit's
 * (recommendation_model); each refusal names the field. */
static int recommendation_read(model_opts *m, const char *path, double target, double *m_rec,
                               double *p_rec, double *lr_rec, size_t *which, mb_error *err)
{
    cJSON *root;
    if (mb_json_read(path, &root, err) != MB_OK)
        return MB_EIO;
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(root, "enough");
    double lr = NAN;
    int rc = mb_solver_check_scale(root, path, err); /* as mbplot report reads it */
    if (rc == MB_OK)
        lr = mb_json_get(root, "lr"); /* > 0, or absent or null */
    *which = m->n_nfit; /* none: the model as it is */
    if (rc == MB_OK && !isnan(lr) && m->n_nfit > 0) {
        char rates[160] = "";
        size_t used = 0;
        char x[32]; /* rates as exactly as they differ (campaign 30's C6: "0.02 ... (0.02)") */
        for (*which = 0; *which < m->n_nfit && m->nfs[*which].lr != lr; (*which)++)
            if (used < sizeof rates - 40)
                used += (size_t)snprintf(rates + used, sizeof rates - used, "%s%s",
                                         used ? ", " : "", isnan(m->nfs[*which].lr) ? "no rate"
                                         : mb_data_fmt_exact(x, sizeof x, m->nfs[*which].lr));
        if (*which == m->n_nfit)
            rc = mb_error_set(err, MB_EFORMAT, "%s: field 'lr': %s is the rate of none of the "
                              "--nfit fits (%s): the recommendation is of another fit", path,
                              mb_data_fmt_exact(x, sizeof x, lr), rates);
    }
    if (rc == MB_OK && *which < m->n_nfit)
        model_select(m, *which);
    if (rc == MB_OK)
        rc = recommendation_model(m, root, path, target, err);
    if (rc == MB_OK) {
        *m_rec = mb_json_get(e, "m_opt");
        *p_rec = mb_json_get(e, "procs");
        if (!isnan(lr))
            *lr_rec = lr;
    }
    cJSON_Delete(root);
    return rc;
}

/* The recommendation to check: --recommend's 'enough' row (scale's), or the P = 1 optimum in
 * range, the fastest of the learning rates given; selects that rate's fit in m. */
static int validate_recommendation(validate_cli *vc, size_t n_laws, double *m_rec,
                                   double *p_rec, double *lr_rec, mb_error *err)
{
    model_opts *m = &vc->m;
    *m_rec = NAN, *p_rec = 1.0, *lr_rec = m->nf.lr;
    if (vc->recommend) {
        size_t which;
        return recommendation_read(m, vc->recommend, vc->target, m_rec, p_rec, lr_rec, &which,
                                   err);
    }
    double best = INFINITY;
    size_t pick = 0;
    for (size_t i = 0; i < n_laws; i++) {
        mb_solver_optimum_result o;
        model_select(m, i);
        if (mb_solver_optimum(&m->law, &m->t, 1.0, m->m_lo, m->m_hi, &o, err) != MB_OK)
            return MB_EDOM;
        if (o.opt.t_c < best)
            best = o.opt.t_c, *m_rec = o.opt.m_opt, pick = i;
    }
    model_select(m, pick);
    *lr_rec = m->nf.lr;
    return MB_OK;
}

/* Delta(p) from the runs at p (comm_from_runs_print), its line on stderr. */
static int comm_from_runs_one(const model_opts *m, const mb_update_time *t_probe,
                              const mb_fit_runs *runs, double p, double *out, mb_error *err)
{
    double delta, d_model = NAN;
    size_t n;
    /* beyond the probe's compute step: where runs calibrated T_update at P, its table is
     * theirs, communication and all, and the difference would be 0 by construction */
    const mb_update_time *compute = m->tcal.on ? t_probe : &m->t;
    int rc = mb_solver_comm_from_runs(compute, runs, &delta, &p, &n, err);
    if (rc != MB_OK)
        return rc;
    mb_model_comm_time(&m->t, p, &d_model);
    int own = 0; /* whether P has its own measured step (mbprobe step --learners P) */
    for (size_t k = 0; k < compute->n_by_p; k++)
        own |= compute->by_p[k].p == p;
    char step[96];
    if (own)
        snprintf(step, sizeof step, "the measured step of %g learners side by side", p);
    else
        snprintf(step, sizeof step, "the one-learner step");
    fprintf(stderr, "%s validate: the %zu runs at P = %g cost %.4g s per update beyond %s at "
            "M / %g; the collective model says %.4g s\n", prog, n, p, delta, step, p, d_model);
    *out = delta;
    return MB_OK;
}

/* --comm-from-runs: Delta(P) as the runs at P > 1 measured it, on stdout (one number where the
 * runs are at one P; P:S,P:S,... for mbopt --delta where they are at several, each P its own);
 * how, on stderr, a line per P. */
static int comm_from_runs_print(const model_opts *m, const mb_update_time *t_probe,
                                const mb_fit_runs *runs, mb_error *err)
{
    double ps[MB_MODEL_PDELTAS];
    size_t np = 0;
    for (size_t i = 0; i < runs->n; i++) {
        int seen = !(runs->procs[i] > 1) || !isfinite(runs->t_step[i]);
        for (size_t k = 0; k < np && !seen; k++)
            seen = ps[k] == runs->procs[i];
        if (seen)
            continue;
        if (np == MB_MODEL_PDELTAS)
            return mb_error_set(err, MB_EINVAL, "runs at more than %d learner counts: "
                                "--comm-from-runs gives Delta for %d at most", MB_MODEL_PDELTAS,
                                MB_MODEL_PDELTAS);
        ps[np++] = runs->procs[i];
    }
    for (size_t a = 1; a < np; a++) /* ascending */
        for (size_t b = a; b > 0 && ps[b - 1] > ps[b]; b--) {
            double x = ps[b];
            ps[b] = ps[b - 1];
            ps[b - 1] = x;
        }
    if (np == 0) {
        double d, p = NAN;
        size_t n;
        return mb_solver_comm_from_runs(&m->t, runs, &d, &p, &n, err);
    }
    for (size_t k = 0; k < np; k++) {
        double delta;
        int rc = comm_from_runs_one(m, t_probe, runs, ps[k], &delta, err);
        if (rc != MB_OK)
            return rc;
        if (np == 1)
            printf("%.9g\n", delta);
        else
            printf("%s%g:%.9g%s", k ? "," : "", ps[k], delta, k + 1 == np ? "\n" : "");
    }
    return MB_OK;
}

/* --missing: the M that would check the recommendation and have no runs yet, on one line. */
static void missing_print(const model_opts *m, const mb_fit_runs *runs, double m_rec,
                          double p_rec, double lr_rec)
{
    double want[3], q[2];
    mb_solver_optimum_spread(m->nf.boot, m->nf.n_boot, &m->t, p_rec, m->m_lo, m->m_hi, q);
    size_t n_want = mb_solver_missing(&m->law, &m->t, runs, m_rec, p_rec, lr_rec, m->m_lo,
                                      m->m_hi, q, want);
    for (size_t k = 0; k < n_want; k++)
        if (isnan(lr_rec))
            printf("%s%.0f", k ? " " : "", want[k]);
        else
            printf("%s%.0f,%.9g", k ? " " : "", want[k], lr_rec);
    printf("\n");
}

/* The table (text, CSV or JSON) with the in-sample, sampling and check lines. */
static int validate_output(const validate_cli *vc, const mb_validate *v, double m_rec,
                           double p_rec)
{
    const holdout_cli *hc = &vc->hc;
    char in_sample[1536], held[2048], sampling[640];
    in_sample_verdict(in_sample, sizeof in_sample, &vc->m, v, m_rec, p_rec);
    holdout_sampling_line(sampling, sizeof sampling, v, &hc->seq);
    if (hc->on)
        holdout_verdict(held, sizeof held, hc);
    else
        snprintf(held, sizeof held, "not held out: no held-out runs were given (--holdout DIR; "
                 "plan them with --holdout-plan N); the in-sample line above grades the answer "
                 "on the runs that chose it, which is no check");
    char machine[1280];
    const char *ml = machine_line(machine, sizeof machine, vc);
    if (vc->out.json) {
        cJSON *root = validate_json(&vc->m, v, hc, in_sample, held, sampling, &vc->grid);
        machine_json(root, vc);
        return emit_json("validate", root, &vc->out);
    }
    mb_error err = {0};
    mb_out o;
    int rc = mb_out_open(&o, vc->out.output, &err);
    if (rc == MB_OK) {
        if (vc->csv)
            validate_csv(o.f, v);
        else
            validate_print(o.f, &vc->m, v, hc, in_sample, held, sampling, ml, &vc->grid);
        rc = mb_out_commit(&o, &err);
    }
    return rc == MB_OK ? 0 : mb_cli_fail(prog, "validate", &err);
}

static int same_number(double x, double y)
{
    return x == y || (isnan(x) && isnan(y));
}

/* Whether run i of a (read from path pa) and run j of b (from pb) are one file (1), or two
 * files the readers read alike (2): the same M, seed, learners, rate, net and algorithm (what
 * pairs a repeat with its run), and the same update and wall_s at every
 * threshold and at the last row, so a copy that differs only in comments, line ends or the final
 * newline is one (campaign 42's B-F1); a run trained again never repeats every wall_s. A run
 * without wall_s is left to the check of seconds per update. Else 0. */
static int same_run_read(const mb_fit_runs *a, size_t i, const char *pa, const mb_fit_runs *b,
                         size_t j, const char *pb)
{
    if (mb_data_same_file(pa, pb))
        return 1;
    if (a->batch[i] != b->batch[j] || !same_number(a->seed[i], b->seed[j]) ||
        a->procs[i] != b->procs[j] || !same_number(a->lr[i], b->lr[j]) ||
        strcmp(a->net[i], b->net[j]) != 0 || strcmp(a->algo[i], b->algo[j]) != 0 ||
        a->n_thr != b->n_thr || !(a->t_step[i] > 0) || a->t_step[i] != b->t_step[j])
        return 0;
    for (size_t k = 0; k < a->n_thr; k++)
        if (!same_number(a->n_update[i * a->n_thr + k], b->n_update[j * b->n_thr + k]) ||
            !same_number(a->wall[i * a->n_thr + k], b->wall[j * b->n_thr + k]))
            return 0;
    return 2;
}

/* --repeats: the runs that fitted and chose (in, in_paths) trained again during the check,
 * each paired with its first run (trained alike, the same M and seed), their seconds per update
 * against the first runs', and the model's held-out error at that speed. */
static int repeats_read(validate_cli *vc, const mb_fit_runs *in, const char *const *in_paths,
                        mb_error *err)
{
    const holdout_cli *hc = &vc->hc;
    glob_t g = {0};
    mb_fit_runs again = {0};
    if (folders_have_logs("--repeats", vc->repeats, vc->n_repeats, err) != MB_OK)
        return MB_ENODATA;
    int rc = read_runs(&vc->m, (int)vc->n_repeats, vc->repeats, vc->target, &g, &again, err);
    const char *const *paths = (const char *const *)g.gl_pathv;
    if (rc == MB_OK)
        rc = mb_fit_runs_trained_as(&again, paths, in, in_paths, NULL, "eval_frac", "a repeat "
                                    "is a run that fitted and chose, trained again as it was",
                                    err);
    /* a repeat is trained again: not a run given as one that fitted and chose, nor a copy of
     * one (campaign 41's B-F1: the fit folder given as its own repeats read "1x"; 42's B-F1:
     * a copy is told by what the readers read, not by its bytes) */
    for (size_t i = 0; rc == MB_OK && i < again.n; i++)
        for (size_t j = 0; rc == MB_OK && j < in->n; j++) {
            const char *a = paths[again.file[i]], *b = in_paths[in->file[j]];
            int same = same_run_read(&again, i, a, in, j, b);
            if (same)
                rc = mb_error_set(err, MB_EINVAL, "--repeats: %s is %s %s%s, a run that fitted "
                                  "or chose: a repeat is such a run trained again", a,
                                  same == 1 ? "the file" : "a copy of", b,
                                  same == 1 ? "" : " (the same updates and wall_s)");
        }
    if (rc == MB_OK)
        rc = mb_solver_machine_speed(in, in_paths, &again, paths, 2000, &vc->speed, err);
    if (rc == MB_OK) {
        const mb_validate_row *r = hc->ho.rec >= 0 ? &hc->h.rows[hc->ho.rec] : NULL;
        vc->err_at_speed = r ? mb_solver_holdout_err_at(&hc->h, r->procs, r->lr,
                                                        vc->speed.ratio) : NAN;
    }
    mb_fit_runs_free(&again);
    globfree(&g);
    return rc;
}

int mbopt_validate(int argc, char **argv)
{
    validate_cli *vc = calloc(1, sizeof *vc); /* the model's bootstrap laws: too big a frame */
    if (!vc) {
        fprintf(stderr, "%s validate: out of memory\n", prog);
        return MB_EXIT_DATA;
    }
    vc->out = (out_opts){0, "-"};
    vc->target = NAN;
    vc->hc.max_seeds = DEFAULT_MAX_SEEDS;
    for (int k = 0; k < 2; k++) /* no runs read: nothing said */
        vc->load.cores[k][0] = vc->load.cores[k][1] = NAN;
    int status = validate_parse(argc, argv, vc);
    if (status >= 0) {
        mb_data_range_free(&vc->grid.m);
        free(vc);
        return status;
    }
    model_opts *m = &vc->m;
    holdout_cli *hc = &vc->hc;
    double m_rec, p_rec, lr_rec;
    mb_law laws[MAX_NFIT];
    double lrs[MAX_NFIT];
    const size_t n_laws = model_laws(m, laws, lrs);
    glob_t g = {0};
    mb_fit_runs runs = {0};
    mb_validate v = {0};
    mb_update_time t_probe;
    mb_error err = {0};
    int rc = validate_recommendation(vc, n_laws, &m_rec, &p_rec, &lr_rec, &err);
    mb_solver_tcal_probe(&m->tcal, &m->t, &t_probe);
    if (rc == MB_OK)
        rc = read_runs(m, argc - optind, argv + optind, vc->target, &g, &runs, &err);
    if (rc == MB_OK && !vc->comm_runs)
        rc = model_check_procs(m, runs.procs, runs.n, "the runs", &err);
    int printed = rc == MB_OK && (vc->comm_runs || vc->missing);
    if (rc == MB_OK && vc->comm_runs)
        rc = comm_from_runs_print(m, &t_probe, &runs, &err);
    else if (rc == MB_OK && vc->missing)
        missing_print(m, &runs, m_rec, p_rec, lr_rec);
    else if (rc == MB_OK)
        rc = mb_solver_validate(laws, lrs, n_laws, &m->t, m->tcal.on ? &t_probe : NULL, &runs,
                                (const char *const *)g.gl_pathv,
                                round(m_rec) > 0 ? m_rec : 1.0, p_rec, lr_rec, &v, &err);
    if (rc == MB_OK && !printed) {
        mb_solver_settle(laws, lrs, n_laws, &m->t, m->m_lo, m->m_hi, &v);
        rc = mb_solver_sequential(&v, p_rec, lr_rec, m->m_lo, m->m_hi, hc->max_seeds,
                                  &hc->seq, &err);
    }
    printed |= hc->plan_seeds || hc->more_seeds;
    if (rc == MB_OK && hc->plan_seeds)
        rc = holdout_plan_print(&v, &runs, m, hc->plan_seeds, hc->seed0, &err);
    else if (rc == MB_OK && hc->more_seeds)
        rc = holdout_more_seeds_print(hc, m, &v, &runs, &err);
    else if (rc == MB_OK && hc->n_dirs && !printed)
        rc = holdout_check(hc, m, laws, lrs, n_laws, &v, &runs,
                          (const char *const *)g.gl_pathv, &err);
    if (rc == MB_OK && vc->n_repeats && hc->on && !printed)
        rc = repeats_read(vc, &runs, (const char *const *)g.gl_pathv, &err);
    if (rc == MB_OK && hc->beyond) {
        rc = holdout_beyond_print(hc, m, v.p_rec, v.lr_rec);
        printed = 1;
    }
    if (rc == MB_OK && !printed) {
        rc = grid_compute(&vc->grid, m, p_rec, &err);
        machine_load_of(&runs, &vc->load, 0);
        if (hc->on)
            machine_load_of(&hc->runs, &vc->load, 1);
    }
    if (rc != MB_OK)
        status = mb_cli_fail(prog, "validate", &err);
    else if (printed)
        status = fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
    else
        status = validate_output(vc, &v, m_rec, p_rec);
    holdout_free(hc);
    mb_data_range_free(&vc->grid.m);
    free(vc->grid.per_m);
    mb_validate_free(&v);
    mb_fit_runs_free(&runs);
    globfree(&g);
    free(vc);
    return status;
}
