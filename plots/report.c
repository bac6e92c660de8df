/* report.c — `mbplot report OUT/`: one self-contained HTML page from the folder the pipeline
 * fills (make run): the check of the recommendation against real training runs first when
 * validate.json is there (mbopt validate --json: its verdict, figure and table; beside it a P > 1
 * answer's check against one learner when validate-rec.json is there), then the
 * recommendation (from scale.json), the fitted parameters with their
 * 95% intervals (nfit/tfit/cfit JSON), every figure there are inputs for (drawn into OUT by the
 * mb_plot_* functions and embedded as base64 data: URIs), and the command lines that produced
 * every number.
 *
 * What it does not do: compute anything new (every number is read from the stage files), fetch
 * anything (no scripts, no external style sheets or images), or fail on a missing optional input:
 * a missing file is listed with the stage that writes it. scale.json is the one required input.
 * A present input that cannot be read or has nothing to draw is an error naming that file: the
 * inputs are read and checked against each other by report_inputs.c before anything is drawn.
 */
#include "mb_plot.h"
#include "plot_impl.h"
#include "report_impl.h"
#include "../data/mb_json.h"
#include "../data/mb_output.h"
#include "../solver/mb_solver.h"

#include <errno.h>
#include <glob.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The files of the folder contract (issue #6), in pipeline order, with the stage that writes
 * each and what the report loses without it. */
typedef struct input {
    const char *name;  /* relative to OUT; "runs/" is the folder of run logs */
    const char *stage; /* the command that writes it */
    const char *loses; /* what the report leaves out when it is missing */
} input;

static const input INPUTS[] = {
    {"step.csv", "mbprobe step", "the time-per-update figure"},
    {"runs/", "mbtrain", "the run logs' metadata under How to reproduce"},
    {"nfit.json", "mbfit nupdate --json", "the N_update figure and the inverse-law parameters"},
    {"tfit.json", "mbfit tupdate --json", "the fitted knee in the time-per-update figure and the "
                                          "update-time parameters"},
    {"comm.csv", "mbprobe comm (optional)", "the collective figure"},
    {"cfit.json", "mbfit comm --json (optional)", "the alpha-beta parameters and model line"},
    {"scale.txt", "mbopt scale", "the scaling table under the recommendation"},
    {"commands.txt", "the pipeline (make run)", "the exact command lines under How to reproduce"},
};
#define N_INPUTS (sizeof INPUTS / sizeof INPUTS[0])

/* Amdahl's figure: overhead ratios R_O drawn (Zou et al. 2017, Lemma 3.1). */
static const double AMDAHL_RATIOS[] = {0.01, 0.05, 0.1, 0.2};

/* ---- small helpers ------------------------------------------------------------------------- */

/* Writes s with &, <, >, " and ' escaped. */
static void esc(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f);
        }
    }
}

/* Writes n bytes as base64 (RFC 4648, with padding, no line breaks). */
static void base64(FILE *f, const unsigned char *b, size_t n)
{
    static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        unsigned long v = (unsigned long)b[i] << 16;
        if (i + 1 < n)
            v |= (unsigned long)b[i + 1] << 8;
        if (i + 2 < n)
            v |= b[i + 2];
        fputc(A[(v >> 18) & 63], f);
        fputc(A[(v >> 12) & 63], f);
        fputc(i + 1 < n ? A[(v >> 6) & 63] : '=', f);
        fputc(i + 2 < n ? A[v & 63] : '=', f);
    }
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A number shown to the reader with its exact value in data-value, so the page can be checked
 * against scale.json. */
static void shown(FILE *f, const char *id, const char *fmt, double v)
{
    fprintf(f, "<span class=\"num\" id=\"%s\" data-value=\"%.17g\">", id, v);
    fprintf(f, fmt, v);
    fputs("</span>", f);
}

/* ---- sections ------------------------------------------------------------------------------ */

static const char CSS[] =
    "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;max-width:980px;"
    "margin:2em auto;padding:0 1em;color:#222;line-height:1.45}"
    "h1{margin-bottom:.1em}.sub{color:#666;margin-top:0}"
    "h2{border-bottom:2px solid #1f5fbf;padding-bottom:.2em;margin-top:2em}"
    ".rec{font-size:1.25em;background:#eef4ff;border-left:6px solid #1f5fbf;padding:.8em 1em}"
    "table{border-collapse:collapse;margin:.5em 0 1em}"
    "th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}"
    "th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums}"
    ".missing{color:#a33;font-weight:600}.present{color:#262}"
    "pre{background:#f7f7f7;border:1px solid #ddd;padding:.6em;overflow-x:auto;font-size:.85em}"
    "figure{margin:1.5em 0}figure img{max-width:100%;border:1px solid #ddd}"
    "figcaption{color:#444;font-size:.95em;margin-top:.3em}"
    ".verdict{font-size:1.15em;background:#fff7e6;border-left:6px solid #d98e04;padding:.8em 1em}"
    "#validation-rows{font-size:.88em}#validation-rows td{white-space:nowrap}"
    "tr.row-rec td{background:#fdecec}tr.row-best td{background:#eef7ee}"
    ".tag{font-size:.85em;color:#555}";

/* How the runs settled the recommendation (scale.json's "settled"): the model's optimum m_opt
 * (T_C t_c), the trained M it cannot tell from it, and which of them is fastest, the runs weighed
 * against the model (docs/design.md, "Settling near ties"). */
static void write_settled(FILE *f, const cJSON *settled, double m_opt, double t_c)
{
    fputs("<p id=\"settled\">", f);
    if (!isfinite(mb_json_get(settled, "batch"))) {
        fputs("The runs did not settle it: ", f);
        esc(f, str(settled, "why"));
        fputs("</p>\n", f);
        return;
    }
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(settled, "candidates"), *x;
    fprintf(f, "The model's optimum is M = %.4g (T<sub>C</sub> = %.4g s). It predicts M = ",
            m_opt, t_c);
    int first = 1;
    const double lr = mb_json_get(settled, "lr");
    cJSON_ArrayForEach(x, c)
    {
        const double xl = mb_json_get(x, "lr");
        fprintf(f, "%s%g", first ? "" : ", ", mb_json_get(x, "batch"));
        if (isfinite(xl) && isfinite(lr) && xl != lr)
            fprintf(f, " (lr %g)", xl);
        first = 0;
    }
    fputs(" within ", f);
    shown(f, "settle-band", "%.1f", 100 * mb_json_get(settled, "band"));
    fputs("% of that, its median error on the runs, so it cannot tell them apart; ", f);
    if (strcmp(str(settled, "by") ? str(settled, "by") : "", "runs") == 0 &&
        isfinite(mb_json_get(settled, "model_batch_run"))) {
        fprintf(f, "the runs can: M = %g trained in %.3g s, the model's optimum (as M = %g) in "
                   "%.3g s (medians), so M = %g is recommended.</p>\n",
                mb_json_get(settled, "batch"), mb_json_get(settled, "t_train_median_s"),
                mb_json_get(settled, "model_batch_run"),
                mb_json_get(settled, "model_t_train_median_s"), mb_json_get(settled, "batch"));
    } else if (strcmp(str(settled, "by") ? str(settled, "by") : "", "runs") == 0) {
        fprintf(f, "the runs can: M = %g trained in %.3g s (median), the fastest of them, and no "
                   "run trained the model's optimum itself, so M = %g is recommended.</p>\n",
                mb_json_get(settled, "batch"), mb_json_get(settled, "t_train_median_s"),
                mb_json_get(settled, "batch"));
    } else {
        fprintf(f, "the runs agree with it: M = %g is the fastest of them (%.3g s, median; "
                   "each weighed against the model by their uncertainties).</p>\n",
                mb_json_get(settled, "batch"), mb_json_get(settled, "t_train_median_s"));
    }
}

/* The recommendation, from scale.json's "enough" row (the fewest learners within the slack of
 * the fastest) and "best" row, and the target loss (scale's, or nfit.json's in older files). */
static int write_recommendation(FILE *f, const cJSON *scale, const char *scale_path,
                                const cJSON *nfit, const char *in_dir, int n_missing,
                                mb_error *err)
{
    const cJSON *rec = cJSON_GetObjectItemCaseSensitive(scale, "enough");
    const cJSON *best = cJSON_GetObjectItemCaseSensitive(scale, "best");
    const char *keys[] = {"procs", "m_opt", "t_c", "speedup", "efficiency"};
    for (int i = 0; i < 5; i++)
        if (!isfinite(mb_json_get(rec, keys[i])) || !isfinite(mb_json_get(best, keys[i])))
            return mb_error_set(err, MB_EFORMAT,
                                "%s: 'enough' and 'best' need a finite '%s' (is this mbopt scale "
                                "--json?)", scale_path, keys[i]);
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(scale, "rows");
    double p_lo = INFINITY, p_hi = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, rows)
    {
        p_lo = fmin(p_lo, mb_json_get(r, "procs"));
        p_hi = fmax(p_hi, mb_json_get(r, "procs"));
    }
    double p = mb_json_get(rec, "procs"), m = mb_json_get(rec, "m_opt");
    double eps = mb_json_get(scale, "target_loss"); /* scale's own; older files: the nfit's */
    eps = isnan(eps) ? mb_json_get(nfit, "target_loss") : eps;
    double slack = mb_json_get(scale, "enough_slack"), tc = mb_json_get(rec, "t_c");
    if (isfinite(mb_json_get(rec, "m_run"))) /* what P learners run: a whole number each */
        m = mb_json_get(rec, "m_run");
    /* with run logs, scale let the runs settle M among what the model cannot tell apart */
    const cJSON *settled = cJSON_GetObjectItemCaseSensitive(scale, "settled");
    const int by_runs = isfinite(mb_json_get(settled, "batch"));
    if (by_runs)
        m = mb_json_get(settled, "batch"), tc = mb_json_get(settled, "t_pred_s");
    fputs("<section id=\"recommendation\">\n<h2>Recommendation</h2>\n<p class=\"rec\">Use <b>P = ",
          f);
    shown(f, "rec-procs", "%.0f", p);
    fprintf(f, "</b> learner%s with a mini-batch of <b>M = ", p == 1 ? "" : "s");
    shown(f, "rec-m", "%.0f", m);
    fputs("</b> samples in total (", f);
    shown(f, "rec-m-per-learner", "%.3g", m / p);
    fputs(" per learner): training is predicted to reach the target loss", f);
    if (isfinite(eps))
        fprintf(f, " %g", eps);
    fputs(" in <b>T<sub>C</sub> = ", f);
    shown(f, "rec-tc", "%.4g", tc);
    if (by_runs) {
        fputs(" s</b> (its runs: ", f);
        shown(f, "rec-tc-measured", "%.3g", mb_json_get(settled, "t_train_median_s"));
        fputs(" s, median)", f);
    }
    if (p == 1) {
        fputs(by_runs ? ", one learner at its best (speed-up "
                      : " s</b>, one learner at its best (speed-up ", f);
        shown(f, "rec-speedup", "%.3g", mb_json_get(rec, "speedup"));
        fputs("&times;, efficiency ", f);
    } else {
        fputs(by_runs ? ", " : " s</b>, ", f);
        shown(f, "rec-speedup", "%.3g", mb_json_get(rec, "speedup"));
        fputs("&times; as fast as the best single learner (efficiency ", f);
    }
    shown(f, "rec-efficiency", "%.3f", mb_json_get(rec, "efficiency"));
    fputs(").</p>\n<p>", f);
    if (mb_json_get(best, "procs") != p) {
        fputs("The fastest setting searched is P = ", f);
        shown(f, "best-procs", "%.0f", mb_json_get(best, "procs"));
        fputs(", M = ", f);
        const double best_m = mb_json_get(best, "m_run");
        shown(f, "best-m", "%.0f", isfinite(best_m) ? best_m : mb_json_get(best, "m_opt"));
        fputs(" (T<sub>C</sub> = ", f);
        shown(f, "best-tc", "%.4g", mb_json_get(best, "t_c"));
        fprintf(f, " s); it saves less than %g%% of the time, so fewer learners are recommended.",
                isfinite(slack) ? 100 * slack : 10);
    } else {
        fprintf(f, "This is also the fastest setting searched (P = %g to %g, M re-optimised for "
                   "each P).", p_lo, p_hi);
    }
    fputs("</p>\n", f);
    if (by_runs || str(settled, "why"))
        write_settled(f, settled, mb_json_get(rec, "m_opt"), mb_json_get(rec, "t_c"));
    if (n_missing > 0)
        fprintf(f, "<p class=\"missing\">%d input%s of the pipeline %s missing: see <a "
                   "href=\"#inputs\">Inputs</a> for which stage to run.</p>\n",
                n_missing, n_missing == 1 ? "" : "s", n_missing == 1 ? "is" : "are");
    fputs("<h3>How to read it</h3>\n<ul>\n"
          "<li><b>T<sub>C</sub></b> is the predicted wall time to reach the target loss: "
          "N<sub>update</sub>(M) updates times T<sub>update</sub>(M, P) seconds each (Perrone et "
          "al.). It is a model prediction from the fitted parameters below, not a measured run; "
          "the intervals there say how well the inputs pin it down.</li>\n"
          "<li><b>M</b> is the mini-batch of all learners together; each learner computes M/P "
          "samples per update. Below the knee M<sub>T</sub> a device is not saturated, so a "
          "smaller mini-batch saves no time per update.</li>\n"
          "<li><b>Speed-up</b> is against one learner at its own best M; <b>efficiency</b> is "
          "speed-up / P. A speed-up below 1 means more learners lose more to communication than "
          "they gain from splitting the work.</li>\n"
          "<li>The regime names the branch of eq. 10: <i>single</i> (P = 1), <i>balance</i> (M<sub>opt</sub> balances "
          "gradient noise against the per-update communication cost) or <i>knee</i> "
          "(M<sub>opt</sub> = M<sub>T</sub> P: each learner just saturates its device).</li>\n"
          "</ul>\n",
          f);
    char path[4096];
    path_join(path, sizeof path, in_dir, "scale.txt");
    char *txt;
    size_t n;
    mb_error ignore = {0};
    if (exists(path) && mb_data_read_file(path, &txt, &n, &ignore) == MB_OK) {
        fputs("<details open><summary>The scaling table (scale.txt)</summary>\n<pre>", f);
        esc(f, txt);
        fputs("</pre></details>\n", f);
        free(txt);
    }
    fputs("</section>\n", f);
    return MB_OK;
}

/* The inputs present and missing, with the stage that writes each missing one. */
static void write_inputs(FILE *f, const char *out_dir, const int *present, size_t n_runs,
                         int have_validate)
{
    fputs("<section id=\"inputs\">\n<h2>Inputs</h2>\n<table>\n<tr><th>file</th><th>written by"
          "</th><th>status</th></tr>\n<tr><td>scale.json</td><td>mbopt scale --json</td><td "
          "class=\"present\">present</td></tr>\n",
          f);
    for (size_t i = 0; i < N_INPUTS; i++) {
        fputs("<tr><td>", f);
        esc(f, INPUTS[i].name);
        if (!strcmp(INPUTS[i].name, "runs/"))
            fputs("*.csv", f);
        fputs("</td><td>", f);
        esc(f, INPUTS[i].stage);
        if (present[i]) {
            fputs("</td><td class=\"present\">present", f);
            if (!strcmp(INPUTS[i].name, "runs/"))
                fprintf(f, " (%zu run log%s)", n_runs, n_runs == 1 ? "" : "s");
        } else {
            fputs("</td><td class=\"missing\">missing: no file from ", f);
            esc(f, INPUTS[i].stage);
            fputs(" here, so the report leaves out ", f);
            esc(f, INPUTS[i].loses);
        }
        fputs("</td></tr>\n", f);
    }
    /* optional and not among the missing inputs: a pipeline without a check is complete */
    fprintf(f, "<tr><td>validate.json</td><td>mbopt validate --json (optional)</td>%s</tr>\n",
            have_validate ? "<td class=\"present\">present</td>"
                          : "<td>not run: the report has no check against real training runs"
                            "</td>");
    fputs("</table>\n<p>Folder: <code>", f);
    esc(f, out_dir);
    fputs("</code></p>\n</section>\n", f);
}

/* What each fitted parameter means, with its unit. */
static const char *meaning(const char *name)
{
    static const char *const m[][2] = {
        {"n_inf", "N<sub>&infin;</sub>: updates needed even with exact gradients"},
        {"alpha", "&alpha;: noise sensitivity (updates &times; samples)"},
        {"m_0", "M<sub>0</sub>: the shifted law's pole, below which the target is out of reach"},
        {"a", "a: the power law's coefficient"},
        {"b", "b: the power law's exponent"},
        {"gamma", "&gamma;: seconds per sample above the knee"},
        {"m_t", "M<sub>T</sub>: the knee, samples per learner that saturate the device"},
        {"delta", "&delta;: fixed cost of an update (s)"},
        {"latency_s", "latency per message step (s)"},
        {"s_per_byte", "inverse bandwidth (s per byte)"},
    };
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (!strcmp(m[i][0], name))
            return m[i][1];
    return "";
}

/* One fit JSON as a table of value, standard error and 95% interval per parameter. */
static void write_fit(FILE *f, const char *title, const char *file, const cJSON *fit)
{
    fprintf(f, "<h3>%s <small>(%s)</small></h3>\n", title, file);
    if (!fit) {
        fputs("<p class=\"missing\">missing: not fitted in this run.</p>\n", f);
        return;
    }
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(fit, "params");
    const cJSON *se = cJSON_GetObjectItemCaseSensitive(fit, "stderr");
    const cJSON *ci = cJSON_GetObjectItemCaseSensitive(fit, "ci95");
    fputs("<table>\n<tr><th>parameter</th><th>meaning</th><th>value</th><th>std. error</th>"
          "<th>95% interval</th></tr>\n", f);
    const cJSON *p;
    cJSON_ArrayForEach(p, params)
    {
        const cJSON *iv = cJSON_GetObjectItemCaseSensitive(ci, p->string);
        const cJSON *a = cJSON_GetArrayItem(iv, 0), *b = cJSON_GetArrayItem(iv, 1);
        double lo = cJSON_IsNumber(a) ? a->valuedouble : NAN;
        double hi = cJSON_IsNumber(b) ? b->valuedouble : NAN;
        fputs("<tr><td><code>", f);
        esc(f, p->string);
        /* a value or error the file does not carry (an extrapolated nfit's law has no
         * standard errors) is said to be missing, never printed as nan */
        double v = cJSON_IsNumber(p) ? p->valuedouble : NAN, e = mb_json_get(se, p->string);
        fprintf(f, "</code></td><td>%s</td>", meaning(p->string));
        fprintf(f, isfinite(v) ? "<td class=\"n\">%.5g</td>" : "<td>not available</td>", v);
        fprintf(f, isfinite(e) ? "<td class=\"n\">%.3g</td>" : "<td>not available</td>", e);
        if (isfinite(lo) && isfinite(hi))
            fprintf(f, "<td class=\"n\">[%.5g, %.5g]</td></tr>\n", lo, hi);
        else
            fputs("<td>not available</td></tr>\n", f);
    }
    fputs("</table>\n<p>", f);
    const char *model = str(fit, "model"), *status = str(fit, "solver_status");
    if (model) {
        fputs("model <code>", f);
        esc(f, model);
        fputs("</code>; ", f);
    }
    double r2 = mb_json_get(fit, "r2"), n_points = mb_json_get(fit, "n_points");
    if (isfinite(r2))
        fprintf(f, "R&sup2; = %.4g", r2);
    else
        fputs("R&sup2; not available", f);
    if (isfinite(n_points))
        fprintf(f, " from %g points", n_points);
    const cJSON *conv = cJSON_GetObjectItemCaseSensitive(fit, "converged");
    if (cJSON_IsBool(conv))
        fprintf(f, "; %s", cJSON_IsTrue(conv) ? "converged" : "<b>did not converge</b>");
    if (status) {
        fputs(" (", f);
        esc(f, status);
        fputs(")", f);
    }
    fputs(".</p>\n", f);
    const cJSON *w, *warn = cJSON_GetObjectItemCaseSensitive(fit, "warnings");
    cJSON_ArrayForEach(w, warn)
    {
        if (!cJSON_IsString(w))
            continue;
        fputs("<p class=\"missing\">warning: ", f);
        esc(f, w->valuestring);
        fputs("</p>\n", f);
    }
}

/* Where T_update came from when runs calibrated it (tfit.json's `calibration`): the runs' seconds
 * per update at each M they trained beside the probe's, and the probe's error. */
static void write_calibration(FILE *f, const cJSON *tfit)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(tfit, "calibration"), *p;
    const cJSON *pts = cJSON_GetObjectItemCaseSensitive(c, "run_points");
    if (!cJSON_IsArray(pts))
        return;
    fprintf(f, "<p>T<sub>update</sub> at M = %g .. %g is what %g training runs measured (the median "
               "of their seconds per update, evaluation excluded); the probe's step gives it "
               "beyond, scaled by %.3g below and %.3g above. The probe against the runs:</p>\n"
               "<table>\n<tr><th>M</th><th>runs</th><th>runs' s/update</th><th>probe's</th>"
               "<th>probe's error</th></tr>\n",
            mb_json_get(c, "m_lo"), mb_json_get(c, "m_hi"), mb_json_get(c, "runs"),
            mb_json_get(c, "scale_below"), mb_json_get(c, "scale_above"));
    cJSON_ArrayForEach(p, pts)
    {
        double v[4];
        for (int i = 0; i < 4; i++) {
            const cJSON *x = cJSON_GetArrayItem(p, i);
            v[i] = cJSON_IsNumber(x) ? x->valuedouble : NAN;
        }
        fprintf(f, "<tr><td>%g</td><td>%g</td><td>%.4g</td><td>%.4g</td><td>%+.1f%%</td></tr>\n",
                v[0], v[1], v[2], v[3], 100 * (v[3] - v[2]) / v[2]);
    }
    fputs("</table>\n", f);
}

/* The fitted parameters, and the model mbopt scale solved (which may add communication). */
static void write_parameters(FILE *f, const cJSON *scale, const cJSON *nfit, const cJSON *tfit,
                             const cJSON *cfit)
{
    fputs("<section id=\"parameters\">\n<h2>Fitted parameters (95% intervals)</h2>\n", f);
    write_fit(f, "Updates to converge: N<sub>update</sub>(M) = N<sub>&infin;</sub> + &alpha; / M",
              "nfit.json", nfit);
    /* the law mbopt optimised, where mbfit named another than the inverse law */
    const char *best = str(cJSON_GetObjectItemCaseSensitive(nfit, "best"), "model");
    const cJSON *laws = cJSON_GetObjectItemCaseSensitive(nfit, "laws");
    if (best && strcmp(best, "inverse-law") != 0)
        write_fit(f, !strcmp(best, "shifted-law")
                         ? "The law mbopt optimised: N<sub>update</sub>(M) = N<sub>&infin;</sub> "
                           "+ &alpha; / (M &minus; M<sub>0</sub>)"
                         : "The law mbopt optimised: N<sub>update</sub>(M) = N<sub>&infin;</sub> "
                           "+ a M<sup>&minus;b</sup>",
                  "nfit.json, best", cJSON_GetObjectItemCaseSensitive(laws, best));
    write_fit(f, "Time per update: T<sub>update</sub> = &gamma; max(M/P, M<sub>T</sub>) + &delta;",
              "tfit.json", tfit);
    write_calibration(f, tfit);
    write_fit(f, "Collectives: t = 2(P&minus;1) latency + 2(P&minus;1)/P bytes / bandwidth",
              "cfit.json", cfit);
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(scale, "model");
    const char *comm = str(m, "comm");
    fputs("<h3>The model mbopt scale solved <small>(scale.json)</small></h3>\n<p>", f);
    const char *law = str(m, "law");
    if (law && !strcmp(law, "power-law"))
        fprintf(f, "the power law: N<sub>&infin;</sub> = %.5g, a = %.5g, b = %.4g, ",
                mb_json_get(m, "n_inf"), mb_json_get(m, "a"), mb_json_get(m, "b"));
    else if (law && !strcmp(law, "shifted-law"))
        fprintf(f, "the shifted law: N<sub>&infin;</sub> = %.5g, &alpha; = %.5g, M<sub>0</sub> = "
                   "%.4g, ", mb_json_get(m, "n_inf"), mb_json_get(m, "alpha"), mb_json_get(m, "m_0"));
    else
        fprintf(f, "N<sub>&infin;</sub> = %.5g, &alpha; = %.5g, ", mb_json_get(m, "n_inf"),
                mb_json_get(m, "alpha"));
    fprintf(f, "&gamma; = %.5g s, M<sub>T</sub> = %.5g, communication: ", mb_json_get(m, "gamma"),
            mb_json_get(m, "m_t"));
    esc(f, comm ? comm : "not given");
    if (isfinite(mb_json_get(m, "delta")))
        fprintf(f, " with &delta; = %.5g s per update for P &gt; 1", mb_json_get(m, "delta"));
    if (isfinite(mb_json_get(m, "latency_s")))
        fprintf(f, ", latency %.5g s, %.5g s per byte", mb_json_get(m, "latency_s"),
                mb_json_get(m, "s_per_byte"));
    fputs(".</p>\n</section>\n", f);
}

/* Embeds one figure file as a data: URI with its caption. */
static int write_figure(FILE *f, const char *path, const char *name, mb_plot_format format,
                        const char *caption, mb_error *err)
{
    char *img;
    size_t n;
    int rc = mb_data_read_file(path, &img, &n, err);
    if (rc != MB_OK)
        return rc;
    fprintf(f, "<figure id=\"fig-%s\">\n<img alt=\"%s\" src=\"data:%s;base64,", name, name,
            format == MB_PLOT_SVG ? "image/svg+xml" : "image/png");
    base64(f, (const unsigned char *)img, n);
    fprintf(f, "\">\n<figcaption>%s</figcaption>\n</figure>\n", caption);
    free(img);
    return MB_OK;
}

/* The metadata lines (# key=value before the header) of a CSV input that say how it was made;
 * returns how many it wrote. */
static int write_meta(FILE *f, const char *path, const char *label)
{
    static const char *const keys[] = {"tool=", "version=", "host=", "date=", "command=",
                                       "source=", NULL};
    FILE *in = fopen(path, "r");
    if (!in)
        return 0;
    char line[4096];
    int any = 0;
    while (fgets(line, sizeof line, in) && line[0] == '#') {
        const char *kv = line + 1 + strspn(line + 1, " ");
        for (int k = 0; keys[k]; k++)
            if (!strncmp(kv, keys[k], strlen(keys[k]))) {
                if (!any) { /* the label is a file's name: any text (campaign 35's R2) */
                    fputs("# from ", f);
                    esc(f, label);
                    fputc('\n', f);
                }
                any = 1;
                esc(f, line);
                if (!strchr(line, '\n'))
                    fputc('\n', f);
                break;
            }
    }
    fclose(in);
    return any;
}


/* ---- the report ---------------------------------------------------------------------------- */

/* A figure to draw when its input is present. */
typedef struct figure {
    const char *name;    /* file stem in OUT */
    const char *input;   /* the input it needs, relative to OUT (checked for presence) */
    const char *caption; /* HTML */
} figure;

static const figure FIGURES[] = {
    {"nupdate", "nfit.json",
     "Updates to reach the target loss against the mini-batch size M: every run (circles), the "
     "mean per M with its standard error, and the fitted inverse law N<sub>&infin;</sub> + "
     "&alpha;/M with its 95% confidence band. Larger M needs fewer updates, but never fewer than "
     "N<sub>&infin;</sub>."},
    {"step", "step.csv",
     "Measured time per update against M (median, bars from the 25th to the 75th percentile), "
     "with the fitted knee model &gamma; max(M/P, M<sub>T</sub>) + &delta; when tfit.json is "
     "present. Left of the knee the device is not saturated: the time hardly changes with M."},
    {"tc", "scale.json",
     "Predicted time to converge T<sub>C</sub>(M) = N<sub>update</sub>(M) "
     "T<sub>update</sub>(M, P) for several learner counts P; the black points mark "
     "M<sub>opt</sub>(P), the bottom of each curve."},
    {"scale", "scale.json",
     "T<sub>C</sub> and speed-up against learners P under three policies: optimal scaling "
     "(M re-optimised for each P), strong scaling (M fixed) and weak scaling (M/P fixed)."},
    {"amdahl", "scale.json",
     "Amdahl speed-up on G devices, S = G (1 + R<sub>O</sub>) / (1 + G R<sub>O</sub>) (Zou et "
     "al. 2017, Lemma 3.1), for several ratios R<sub>O</sub> of overhead to compute time: a "
     "guide to how little overhead a large device count tolerates."},
    {"comm", "comm.csv",
     "Measured collective times against message size (median, bars from min to max), with the "
     "fitted ring alpha-beta model when cfit.json is present."},
};
#define N_FIGURES (sizeof FIGURES / sizeof FIGURES[0])

/* The check against real runs: drawn apart from FIGURES, inside its own section. */
static const figure VALIDATE_FIGURE = {
    "validate", "validate.json",
    "Training time to reach the target loss against the mini-batch size M: the predicted "
    "T<sub>C</sub>(M) = N<sub>update</sub>(M) T<sub>update</sub>(M) (line), every training run "
    "(faint dots), the measured median per M with bars from the fastest to the slowest run, the "
    "prediction at each measured M (open squares), the measured best (ringed) and the "
    "recommended M (dashed; the model's own optimum dotted beside it when the runs settled on "
    "another). Crosses along the floor mark the M where no run reached the target."};

/* ---- figures drawn as drafts ---------------------------------------------------------------- */

/* The figures of one page are a batch of the writer's (mb_out_batch): each drawn into a draft
 * beside its place in OUT and put there (a link written through, a device or FIFO written
 * into) only once the whole page is written and every place, the page's too, is known to take
 * it: a folder refused at any point keeps no figure of this run (campaign 23's R13: nupdate.png
 * was left in a folder refused for its step.csv; campaign 24's U2: six figures were placed
 * before comm.png, a folder, was refused; campaign 31's N8: nupdate.png and step.png were
 * placed before an immutable tc.png, or five figures before an immutable report.html). */
_Static_assert(N_FIGURES + 2 <= MB_OUT_BATCH_MAX, "FIGURES, the validation's and the "
               "convolutions' fit in one batch");

/* The page, rendered whole in memory (n bytes), and the figures' drafts put in place: every
 * figure's place checked and the page's opened (its place checked, a FIFO's reader waited
 * for) first; a page that is a device or FIFO is then written whole before any figure is
 * placed (campaign 25's V4: report.html a link onto /dev/full failed after eight figures were
 * put in place), a page that is a file written to its temporary, the figures placed, and the
 * page renamed in last (mb_out_batch_commit). */
static int place_page(const char *path, const char *page, size_t n, mb_out_batch *dr,
                      mb_error *err)
{
    mb_out out;
    int rc = mb_out_batch_check(dr, err);
    if (rc == MB_OK)
        rc = mb_out_open(&out, path, err);
    if (rc != MB_OK)
        return rc;
    errno = 0;
    if (fwrite(page, 1, n, out.f) != n || fflush(out.f) != 0) {
        int e = errno ? errno : EIO;
        mb_out_abort(&out);
        return mb_error_set(err, MB_EIO, "%s: write error: %s", path, strerror(e));
    }
    return mb_out_batch_commit(dr, &out, err);
}

/* The convolution table conv.csv, when it is here, read as mbopt conv reads it (for the
 * backend conv.json chose, when it is here and says): one the report cannot read is refused,
 * as every other present input is (campaign 24's G128: garbage was never read). */
static int check_conv_table(const char *table, const char *json, mb_error *err)
{
    if (!exists(table))
        return MB_OK;
    cJSON *conv = NULL;
    const cJSON *b = NULL;
    if (exists(json) && mb_json_read(json, &conv, NULL) == MB_OK)
        b = cJSON_GetObjectItemCaseSensitive(conv, "backend");
    mb_cilp_table *t = NULL;
    int rc = mb_solver_conv_read(table, cJSON_IsString(b) ? b->valuestring : NULL, &t, err);
    mb_solver_conv_free(t);
    cJSON_Delete(conv);
    return rc;
}

/* The convolution section, when the folder has a convolution table (conv.csv, mbprobe conv):
 * the ILP's figure and summary from conv.json and conv.txt (mbopt conv), or a note naming the
 * command when only the table is there. Nothing when neither is. A conv.json that is here but
 * cannot be drawn is an error (campaign 24's U3: it was a note in a page that exited 0). */
static int write_conv(FILE *f, const char *in_dir, const char *out_dir, const mb_plot_options *o,
                      const char *ext, mb_out_batch *dr, int *figures, mb_error *err)
{
    char table[4096], json[4096], txt[4096], img[4096], name[32];
    path_join(table, sizeof table, in_dir, "conv.csv");
    path_join(json, sizeof json, in_dir, "conv.json");
    path_join(txt, sizeof txt, in_dir, "conv.txt");
    if (!exists(table) && !exists(json))
        return MB_OK;
    int rc = check_conv_table(table, json, err);
    if (rc != MB_OK)
        return rc;
    fputs("<section id=\"conv\">\n<h2>Convolution algorithms and memory</h2>\n", f);
    if (!exists(json)) {
        fputs("<p class=\"missing\">conv.csv is here but conv.json is not: <code>mbopt conv "
              "--net NET --probe conv.csv --mem SIZE --batch LIST --json -o conv.json</code> "
              "chooses the algorithms.</p>\n</section>\n", f);
        return MB_OK;
    }
    snprintf(name, sizeof name, "conv.%s", ext);
    path_join(img, sizeof img, out_dir, name);
    const char *draft;
    if ((rc = mb_out_batch_add(dr, img, &draft, err)) != MB_OK)
        return rc;
    mb_error e = {0};
    if ((rc = mb_plot_conv(json, draft, o, &e)) != MB_OK) {
        mb_out_batch_unname(dr, &e); /* the figure named, not its draft */
        mb_out_batch_drop_last(dr);
        if (strncmp(e.msg, json, strlen(json)) != 0) /* the line names conv.json */
            return mb_error_set(err, rc, "%s: %s", json, e.msg);
        return mb_error_set(err, rc, "%s", e.msg);
    }
    rc = write_figure(f, draft, "conv", o->format,
                      "The convolution-algorithm ILP (Zou et al. 2017, eq. 6, solved with "
                      "GLPK) at each M: the convolutions' time per update and the "
                      "memory used (the model's bytes, eq. 1-4, plus the chosen "
                      "workspace) against the device's; dashed lines mark the M where "
                      "the chosen algorithms change.", err);
    if (rc != MB_OK)
        return rc;
    (*figures)++;
    char *text;
    size_t n;
    if (exists(txt) && mb_data_read_file(txt, &text, &n, &e) == MB_OK) {
        fputs("<pre id=\"conv-table\">", f);
        esc(f, text);
        fputs("</pre>\n", f);
        free(text);
    }
    fputs("</section>\n", f);
    return MB_OK;
}

/* Draws figure fig into path; errors name the input file. */
static int draw(const figure *fig, const char *in_dir, const char *path,
                const mb_plot_options *o, double max_procs, mb_error *err)
{
    char in[4096], extra[4096];
    path_join(in, sizeof in, in_dir, fig->input);
    const char *name = fig->name;
    mb_error e = {0};
    int rc;
    if (!strcmp(name, "nupdate"))
        rc = mb_plot_nupdate(in, path, o, &e);
    else if (!strcmp(name, "step")) {
        path_join(extra, sizeof extra, in_dir, "tfit.json");
        rc = mb_plot_step(in, exists(extra) ? extra : NULL, path, o, &e);
    } else if (!strcmp(name, "tc"))
        rc = mb_plot_tc(in, 5, path, o, &e);
    else if (!strcmp(name, "scale"))
        rc = mb_plot_scale(in, path, o, &e);
    else if (!strcmp(name, "validate"))
        rc = mb_plot_validate(in, path, o, &e);
    else if (!strcmp(name, "amdahl"))
        rc = mb_plot_amdahl(AMDAHL_RATIOS, sizeof AMDAHL_RATIOS / sizeof AMDAHL_RATIOS[0],
                            max_procs >= 2 ? max_procs : 64, path, o, &e);
    else {
        path_join(extra, sizeof extra, in_dir, "cfit.json");
        rc = mb_plot_comm(in, exists(extra) ? extra : NULL, path, o, &e);
    }
    if (rc == MB_OK)
        return MB_OK;
    /* The figure functions name their input for an empty series; this names it otherwise. */
    if (rc == MB_ENODATA && strncmp(e.msg, in, strlen(in)) != 0)
        return mb_error_set(err, rc, "%s: nothing to draw (%s)", in, e.msg);
    return mb_error_set(err, rc, "%s", e.msg);
}

/* A time in seconds for a table cell, or a dash. */
static void cell_time(FILE *f, double v, double scale, const char *unit)
{
    if (isfinite(v))
        fprintf(f, "<td class=\"n\">%.3g %s</td>", v * scale, unit);
    else
        fputs("<td class=\"n\">&ndash;</td>", f);
}

/* A relative error (pred - measured) / measured as a signed percentage, or a dash. */
static void cell_err(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "<td class=\"n\">%+.1f%%</td>", 100 * v);
    else
        fputs("<td class=\"n\">&ndash;</td>", f);
}

/* A held-out row's measured median, its ratio to the held-out best and the predicted T_C. */
static void holdout_cells(FILE *f, const cJSON *r, double best)
{
    cell_time(f, mb_json_get(r, "t_train_median_s"), 1, "s");
    double ratio = mb_json_get(r, "t_train_median_s") / best;
    if (isfinite(ratio))
        fprintf(f, "<td class=\"n\">%.2f&times;</td>", ratio);
    else
        fputs("<td class=\"missing\">&ndash;</td>", f);
    cell_time(f, mb_json_get(r, "t_pred_s"), 1, "s");
}

/* Whether row r is the setting of point o (measured_best or recommended, whose M is `batch_key`):
 * same M, and the same lr and P where o gives them. */
static int same_setting(const cJSON *r, const cJSON *o, const char *batch_key)
{
    double lr = mb_json_get(o, "lr"), procs = mb_json_get(o, "procs");
    return o && mb_json_get(r, "batch") == mb_json_get(o, batch_key) &&
           (!isfinite(lr) || mb_json_get(r, "lr") == lr) && (!isfinite(procs) || mb_json_get(r, "procs") == procs);
}

/* The held-out runs: one row a setting, its median over fresh seeds against the best of them
 * and the prediction; and the flat ranges (validate.json's "holdout" and "flat_pred"). */
static void write_holdout(FILE *f, const cJSON *val)
{
    const cJSON *ho = cJSON_GetObjectItemCaseSensitive(val, "holdout"), *r;
    const cJSON *flat = cJSON_GetObjectItemCaseSensitive(val, "flat_pred");
    if (isfinite(mb_json_get(flat, "m_lo")))
        fprintf(f, "<p id=\"flat\">The model predicts M = %.0f to %.0f within %.0f%% of its best "
                   "T<sub>C</sub> (shaded in the figure): the optimum is a range, not a point.",
                ceil(mb_json_get(flat, "m_lo")), floor(mb_json_get(flat, "m_hi")),
                100 * mb_json_get(flat, "within"));
    if (!cJSON_IsObject(ho)) {
        fputs(" No held-out runs were given: the figures above are in-sample.</p>\n", f);
        return;
    }
    if (isfinite(mb_json_get(ho, "flat_lo"))) /* checked: flat_lo <= flat_hi, both rows' M */
        fprintf(f, " On the held-out runs, M = %g to %g%s measured within %.0f%% of the "
                   "best.</p>\n", mb_json_get(ho, "flat_lo"), mb_json_get(ho, "flat_hi"),
                mb_json_get(ho, "procs") > 1 ? " at one learner" : "",
                100 * mb_json_get(flat, "within"));
    else if (isfinite(mb_json_get(ho, "ratio"))) /* a check across learner counts */
        fprintf(f, " On the held-out runs, no one-learner M measured within %.0f%% of the "
                   "best.</p>\n", 100 * mb_json_get(flat, "within"));
    else /* verdict "none" */
        fputs(" The held-out runs graded nothing: none reached the target where the check "
              "compares.</p>\n", f);
    if (isfinite(mb_json_get(ho, "median_abs_rel_err"))) {
        fputs("<p id=\"holdout-err\">Predicted T<sub>C</sub> is off the held-out medians by a "
              "median of ", f);
        shown(f, "holdout-err-v", "%.1f", 100 * mb_json_get(ho, "median_abs_rel_err"));
        fputs("%", f);
        if (isfinite(mb_json_get(ho, "median_abs_rel_err_lo")) &&
            isfinite(mb_json_get(ho, "median_abs_rel_err_hi")))
            fprintf(f, " (%.0f%% interval over their seeds %.1f&ndash;%.1f%%: the held-out "
                       "medians are a sample too, and their seeds' luck moves them alike)",
                    100 * mb_json_get(ho, "level"), 100 * mb_json_get(ho, "median_abs_rel_err_lo"),
                    100 * mb_json_get(ho, "median_abs_rel_err_hi"));
        if (mb_json_get(ho, "pred_interval_graded") > 0)
            fprintf(f, " The prediction's %.0f%% interval over resamples of the in-sample seeds "
                       "(a seed's luck moves every M alike) holds the held-out median at %g of "
                       "%g settings", 100 * mb_json_get(ho, "pred_interval_level"),
                    mb_json_get(ho, "pred_interval_holds"),
                    mb_json_get(ho, "pred_interval_graded"));
        fputs(".</p>\n", f);
    }
    fputs("<table id=\"holdout-rows\">\n<tr><th>held out: M</th><th>runs reached</th>"
          "<th>measured T<sub>C</sub>: median</th><th>over the held-out best</th>"
          "<th>predicted T<sub>C</sub></th><th>its interval over seeds</th><th>error</th></tr>\n",
          f);
    const double best = mb_json_get(ho, "best_t_train_median_s");
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(ho, "rows"))
    {
        int is_rec = mb_json_get(r, "batch") == mb_json_get(ho, "batch");
        fprintf(f, "<tr%s><td class=\"n\">%g%s</td><td class=\"n\">%g / %g</td>",
                is_rec ? " class=\"row-rec\"" : "", mb_json_get(r, "batch"),
                is_rec ? " <span class=\"tag\">recommended</span>" : "",
                mb_json_get(r, "reached"), mb_json_get(r, "runs"));
        holdout_cells(f, r, best);
        if (isfinite(mb_json_get(r, "t_pred_lo_s")) && isfinite(mb_json_get(r, "t_pred_hi_s")))
            fprintf(f, "<td class=\"n\">%.3g&ndash;%.3g s</td>", mb_json_get(r, "t_pred_lo_s"),
                    mb_json_get(r, "t_pred_hi_s"));
        else
            fputs("<td class=\"missing\">&ndash;</td>", f);
        cell_err(f, mb_json_get(r, "rel_err"));
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

/* The check of the recommendation against real training runs (validate.json, read and checked
 * by mb_plot_read_validate): the verdict, a summary, the figure at fig_path and the table. */
static int write_validation(FILE *f, const cJSON *val, const char *fig_path,
                            mb_plot_format format, mb_error *err)
{
    const cJSON *rec = cJSON_GetObjectItemCaseSensitive(val, "recommended");
    const cJSON *best = cJSON_GetObjectItemCaseSensitive(val, "measured_best");
    const cJSON *law = cJSON_GetObjectItemCaseSensitive(val, "law");
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(val, "rows"), *r;
    const int measured = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "measured"));
    fputs("<section id=\"validation\">\n<h2>Check: the recommendation on held-out training "
          "runs</h2>\n<p class=\"verdict\" id=\"verdict\">", f);
    char sentence[MB_PLOT_SENTENCE_MAX]; /* composed from the checked object, not the file's */
    int rc = mb_plot_holdout_sentence(val, sentence, sizeof sentence);
    if (rc != MB_OK)
        return mb_error_set(err, rc, "out of memory");
    esc(f, sentence);
    fputs("</p>\n<p>", f);
    fprintf(f, "Target loss %g. ", mb_json_get(val, "target_loss"));
    if (str(law, "model")) {
        fputs("Predictions use the <code>", f);
        esc(f, str(law, "model"));
        fputs("</code> law", f);
        if (str(law, "why")) {
            fputs(" (", f);
            esc(f, str(law, "why"));
            fputs(")", f);
        }
        fputs(". ", f);
    }
    fputs("The recommended M = ", f);
    shown(f, "val-rec-m", "%.4g", mb_json_get(rec, "batch"));
    if (measured) {
        if (mb_json_get(rec, "batch_run") != mb_json_get(rec, "batch")) {
            fputs(" was run as M = ", f);
            shown(f, "val-rec-run", "%g", mb_json_get(rec, "batch_run"));
            fputs(", which", f);
        }
        fputs(" trained in ", f);
        shown(f, "val-rec-t", "%.3g", mb_json_get(rec, "t_train_median_s"));
        fputs(" s (median)", f);
        if (isfinite(mb_json_get(best, "t_train_median_s"))) {
            fputs(" against ", f);
            shown(f, "val-best-t", "%.3g", mb_json_get(best, "t_train_median_s"));
            fputs(" s for the measured best, M = ", f);
            shown(f, "val-best-m", "%g", mb_json_get(best, "batch"));
        }
        if (isfinite(mb_json_get(val, "in_sample_ratio"))) {
            fputs(": ", f);
            shown(f, "val-ratio", "%.2f", mb_json_get(val, "in_sample_ratio"));
            fputs("&times; the best of the runs that chose it (in-sample: no check; the held-out "
                  "runs below are)", f);
        }
        fputs(". ", f);
    } else {
        fputs(" was not among the settings run, so this check compares the prediction with the "
              "runs at their own M only. ", f);
    }
    if (isfinite(mb_json_get(val, "median_abs_rel_err"))) {
        fputs("Predicted T<sub>C</sub> is off by a median of ", f);
        shown(f, "val-err", "%.1f", 100 * mb_json_get(val, "median_abs_rel_err"));
        fputs("%", f);
        if (isfinite(mb_json_get(val, "t_update_median_abs_rel_err"))) {
            fputs("; predicted T<sub>update</sub> by ", f);
            shown(f, "val-tupdate-err", "%.1f", 100 * mb_json_get(val, "t_update_median_abs_rel_err"));
            fputs("%", f);
        }
        fputs(".", f);
    }
    fputs("</p>\n", f);
    rc = write_figure(f, fig_path, VALIDATE_FIGURE.name, format, VALIDATE_FIGURE.caption, err);
    if (rc != MB_OK)
        return rc;
    write_holdout(f, val);
    fputs("<table id=\"validation-rows\">\n<tr><th>M</th><th>lr</th><th>P</th>"
          "<th>runs reached</th><th>measured T<sub>C</sub>: median (min&ndash;max)</th>"
          "<th>predicted T<sub>C</sub></th><th>error</th><th>T<sub>update</sub> measured</th>"
          "<th>T<sub>update</sub> predicted</th><th>error</th></tr>\n", f);
    cJSON_ArrayForEach(r, rows)
    {
        int is_rec = measured && same_setting(r, rec, "batch_run");
        int is_best = same_setting(r, best, "batch");
        fprintf(f, "<tr%s><td class=\"n\">%g", is_rec ? " class=\"row-rec\"" : is_best ?
                " class=\"row-best\"" : "", mb_json_get(r, "batch"));
        if (is_rec)
            fputs(" <span class=\"tag\">recommended</span>", f);
        if (is_best)
            fputs(" <span class=\"tag\">measured best</span>", f);
        fprintf(f, "</td><td class=\"n\">%g</td><td class=\"n\">%g</td><td class=\"n\">%g / %g"
                   "</td>", mb_json_get(r, "lr"), mb_json_get(r, "procs"), mb_json_get(r, "reached"), mb_json_get(r, "runs"));
        double med = mb_json_get(r, "t_train_median_s"), div = mb_json_get(r, "diverged");
        if (isfinite(med)) {
            fprintf(f, "<td class=\"n\">%.3g s", med);
            if (isfinite(mb_json_get(r, "t_train_min_s")) && isfinite(mb_json_get(r, "t_train_max_s")))
                fprintf(f, " (%.3g&ndash;%.3g)", mb_json_get(r, "t_train_min_s"),
                        mb_json_get(r, "t_train_max_s"));
            fputs("</td>", f);
        } else if (isfinite(div) && div > 0) {
            fprintf(f, "<td class=\"missing\">not reached: %g of %g diverged</td>", div,
                    mb_json_get(r, "runs"));
        } else {
            fputs("<td class=\"missing\">not reached</td>", f);
        }
        cell_time(f, mb_json_get(r, "t_pred_s"), 1, "s");
        cell_err(f, mb_json_get(r, "rel_err"));
        cell_time(f, mb_json_get(r, "t_update_run_s"), 1e3, "ms");
        cell_time(f, mb_json_get(r, "t_update_pred_s"), 1e3, "ms");
        cell_err(f, mb_json_get(r, "t_update_rel_err"));
        fputs("</tr>\n", f);
    }
    fputs("</table>\n<p>Error is (predicted &minus; measured) / measured: negative means the "
          "model promised less time than the runs took. T<sub>C</sub> is the training time to "
          "the target loss, without evaluation; T<sub>update</sub> is the time per update in "
          "those runs against the fitted update-time model.</p>\n</section>\n", f);
    return MB_OK;
}


/* A P > 1 recommendation held out against one learner (validate-rec.json, mbopt validate
 * --recommend with the held-out runs of both; read and checked by read_validations): its
 * verdict and each held-out setting, P beside M. */
static int write_validation_across(FILE *f, const cJSON *vr, mb_error *err)
{
    const cJSON *ho = cJSON_GetObjectItemCaseSensitive(vr, "holdout"), *r;
    if (!(mb_json_get(ho, "procs") > 1))
        return MB_OK;
    char sentence[MB_PLOT_SENTENCE_MAX]; /* composed from the checked object, not the file's */
    if (mb_plot_holdout_sentence(vr, sentence, sizeof sentence) != MB_OK)
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    fprintf(f, "<section id=\"validation-procs\">\n<h2>Check: P = %g learners against one, "
               "held out</h2>\n<p class=\"verdict\" id=\"verdict-procs\">",
            mb_json_get(ho, "procs"));
    esc(f, sentence);
    fputs("</p>\n<table id=\"holdout-procs-rows\">\n<tr><th>held out: P</th><th>M</th>"
          "<th>runs reached</th><th>measured T<sub>C</sub>: median</th><th>over the held-out "
          "best</th><th>predicted T<sub>C</sub></th><th>error</th></tr>\n", f);
    const double best = mb_json_get(ho, "best_t_train_median_s");
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(ho, "rows"))
    {
        int is_rec = mb_json_get(r, "batch") == mb_json_get(ho, "batch") &&
                     mb_json_get(r, "procs") == mb_json_get(ho, "procs");
        fprintf(f, "<tr%s><td class=\"n\">%g</td><td class=\"n\">%g%s</td><td class=\"n\">%g / "
                   "%g</td>", is_rec ? " class=\"row-rec\"" : "", mb_json_get(r, "procs"),
                mb_json_get(r, "batch"), is_rec ? " <span class=\"tag\">recommended</span>" : "",
                mb_json_get(r, "reached"), mb_json_get(r, "runs"));
        holdout_cells(f, r, best);
        cell_err(f, mb_json_get(r, "rel_err"));
        fputs("</tr>\n", f);
    }
    fputs("</table>\n</section>\n", f);
    return MB_OK;
}

/* "How to reproduce": commands.txt (cmds, NULL when absent), then the metadata lines of every measured input (the probe's
 * tables and the run logs `runs`, NULL when there are none). */
static void write_reproduce(FILE *f, const char *in_dir, const char *out_dir, const glob_t *runs,
                            const char *cmds)
{
    char path[4096];
    fputs("<section id=\"reproduce\">\n<h2>How to reproduce</h2>\n", f);
    if (cmds) {
        fputs("<p>The commands the pipeline ran, in order (commands.txt):</p>\n<pre "
              "id=\"commands\">", f);
        esc(f, cmds);
        fputs("</pre>\n", f);
    } else {
        fputs("<p class=\"missing\">missing: commands.txt (the pipeline writes it); the "
              "metadata below still say how each measured input was made.</p>\n", f);
    }
    fputs("<p>How each measured input was made (its metadata lines):</p>\n<pre id=\"meta\">", f);
    static const char *const csvs[] = {"step.csv", "comm.csv"};
    int n_meta = 0;
    for (int i = 0; i < 2; i++) {
        path_join(path, sizeof path, in_dir, csvs[i]);
        n_meta += write_meta(f, path, csvs[i]);
    }
    for (size_t i = 0; runs && i < runs->gl_pathc; i++) {
        const char *rel = runs->gl_pathv[i] + strlen(out_dir); /* the path under OUT */
        while (*rel == '/')
            rel++;
        snprintf(path, sizeof path, "%s", rel);
        n_meta += write_meta(f, runs->gl_pathv[i], path);
    }
    if (n_meta == 0)
        fputs("(no measured input with metadata lines in this folder: step.csv, comm.csv and "
              "runs/*.csv are missing or carry none)\n", f);
    fputs("</pre>\n</section>\n", f);
}

/* The figures section: every figure drawn (drawn[k]), or a line naming the missing input. */
static int write_figures(FILE *f, mb_plot_format format, const char *const *drawn, int *figures,
                         mb_error *err)
{
    int rc = MB_OK;
    fputs("<section id=\"figures\">\n<h2>Figures</h2>\n", f);
    for (size_t k = 0; k < N_FIGURES; k++) {
        if (!drawn[k]) {
            fprintf(f, "<p class=\"missing\">No %s figure: %s is missing.</p>\n",
                    FIGURES[k].name, FIGURES[k].input);
            continue;
        }
        if ((rc = write_figure(f, drawn[k], FIGURES[k].name, format, FIGURES[k].caption, err)) !=
            MB_OK)
            return rc;
        ++*figures;
    }
    fputs("</section>\n", f);
    return rc;
}

/* An output of the report (report.html, a figure) that would overwrite one of its inputs (a
 * symbolic or hard link from one to the other, campaign 11 N2: a run log too), or another of
 * its outputs (campaign 25's V3: step.png a link onto tc.png drew one image for two figures,
 * report.html a link onto scale.png put the page in the figure; two links onto one file
 * through different spellings count, mb_data_same_file): MB_EINVAL naming both, before
 * anything is drawn. */
static int output_over_input(const char *out_dir, const mb_plot_options *o, mb_error *err)
{
    const char *ext = o->format == MB_PLOT_SVG ? "svg" : "png";
    char out[N_FIGURES + 3][4096], name[64];
    int drawn[N_FIGURES + 3];
    glob_t runs;
    mb_report_glob_runs(out_dir, &runs);
    int rc = MB_OK;
    for (size_t k = 0; rc == MB_OK && k <= N_FIGURES + 2; k++) {
        const char *input = k < N_FIGURES ? FIGURES[k].input
                            : k == N_FIGURES ? VALIDATE_FIGURE.input
                                             : "conv.json";
        if (k == N_FIGURES + 2)
            snprintf(name, sizeof name, "report.html");
        else
            snprintf(name, sizeof name, "%s.%s", k < N_FIGURES ? FIGURES[k].name
                                                 : k == N_FIGURES ? VALIDATE_FIGURE.name
                                                                  : "conv", ext);
        path_join(out[k], sizeof out[k], out_dir, name);
        char in[4096]; /* a figure without its input is not drawn: its name is no output
                        * (campaign 27's X13: a stale nupdate.png link refused the report) */
        path_join(in, sizeof in, out_dir, input);
        drawn[k] = k == N_FIGURES + 2 || exists(in);
        rc = drawn[k] ? mb_report_over_input(out_dir, out[k], &runs, err) : MB_OK;
        for (size_t j = 0; rc == MB_OK && drawn[k] && j < k; j++)
            if (drawn[j] && mb_data_same_file(out[k], out[j]))
                rc = mb_error_set(err, MB_EINVAL, "%s would overwrite the output %s (links onto "
                                  "one file)", out[k], out[j]);
    }
    globfree(&runs);
    return rc;
}

static int report(const char *in_dir, const char *out_dir, const mb_plot_options *o,
                  mb_plot_report_info *info, mb_error *err);

int mb_plot_report(const char *out_dir, const mb_plot_options *o, mb_plot_report_info *info,
                   mb_error *err)
{
    memset(info, 0, sizeof *info);
    if (strlen(out_dir) > 3000)
        return mb_error_set(err, MB_EINVAL, "%.60s...: folder name too long", out_dir);
    struct stat st;
    if (stat(out_dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return mb_error_set(err, MB_EIO, "%s: not a folder", out_dir);
    if (output_over_input(out_dir, o, err) != MB_OK)
        return MB_EINVAL;
    char stage[256];
    int staged;
    int rc = mb_report_stage_inputs(out_dir, stage, sizeof stage, &staged, err);
    if (rc != MB_OK)
        return rc;
    rc = report(staged ? stage : out_dir, out_dir, o, info, err);
    if (staged) {
        mb_report_unstage(stage);
        /* a message names the input as the user does, not by its copy */
        char *at = rc != MB_OK && err ? strstr(err->msg, stage) : NULL;
        if (at) {
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%.*s%s%s", (int)(at - err->msg), err->msg, out_dir,
                     at + strlen(stage));
            snprintf(err->msg, sizeof err->msg, "%s", msg);
        }
    }
    return rc;
}

/* The page's figures, each drawn as a draft (mb_out_batch) before the page is opened, so that a
 * failing one leaves neither a page nor a figure behind: the validation's when val is there
 * (*val_draft, NULL otherwise), and each of FIGURES whose input is here (drawn[k], NULL when
 * its input is missing). */
static int draw_figures(const char *in_dir, const char *out_dir, const mb_plot_options *o,
                        const cJSON *scale, const cJSON *val, mb_out_batch *dr,
                        const char **val_draft,
                        const char **drawn, mb_error *err)
{
    double max_procs = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(scale, "rows"))
        max_procs = fmax(max_procs, mb_json_get(r, "procs"));
    const char *ext = o->format == MB_PLOT_SVG ? "svg" : "png";
    int rc = MB_OK;
    *val_draft = NULL;
    for (size_t k = 0; k < N_FIGURES; k++)
        drawn[k] = NULL;
    for (size_t i = 0; rc == MB_OK && i <= N_FIGURES; i++) { /* the validation's first */
        const size_t k = i - 1;
        const figure *fig = i ? &FIGURES[k] : &VALIDATE_FIGURE;
        char in[4096], name[64], path[4096];
        const char *tmp;
        path_join(in, sizeof in, in_dir, fig->input);
        if (i ? !exists(in) : !val)
            continue;
        snprintf(name, sizeof name, "%s.%s", fig->name, ext);
        path_join(path, sizeof path, out_dir, name);
        if ((rc = mb_out_batch_add(dr, path, &tmp, err)) != MB_OK)
            break;
        if ((rc = draw(fig, in_dir, tmp, o, max_procs, err)) != MB_OK) {
            mb_out_batch_unname(dr, err); /* the figure named, not its draft */
            mb_out_batch_drop_last(dr);
        }
        else if (i)
            drawn[k] = tmp;
        else
            *val_draft = tmp;
    }
    return rc;
}

/* The report of the inputs in in_dir (out_dir, or the staging folder) into out_dir. */
static int report(const char *in_dir, const char *out_dir, const mb_plot_options *o,
                  mb_plot_report_info *info, mb_error *err)
{
    char path[4096];
    mb_report_inputs in;
    int rc = mb_report_inputs_read(in_dir, out_dir, &in, err);
    if (rc != MB_OK)
        return rc;
    cJSON *scale = in.scale, *nfit = in.nfit, *tfit = in.tfit, *cfit = in.cfit, *val = in.val,
          *val_rec = in.val_rec;
    char val_path[4096];
    path_join(val_path, sizeof val_path, out_dir, "validate.json");

    /* which inputs are here */
    int present[N_INPUTS];
    const glob_t *runs = &in.runs;
    const int have_runs = runs->gl_pathc > 0;
    path_join(path, sizeof path, out_dir, "runs");
    const int runs_dir = exists(path); /* a folder without logs: the logs are missing, not it */
    for (size_t i = 0; i < N_INPUTS; i++) {
        const int is_runs = !strcmp(INPUTS[i].name, "runs/");
        path_join(path, sizeof path, in_dir, INPUTS[i].name);
        present[i] = is_runs ? have_runs : exists(path);
        if (!present[i] && info->n_missing < MB_PLOT_REPORT_MAX_MISSING) {
            info->missing[info->n_missing] = is_runs && runs_dir ? "runs/*.csv" : INPUTS[i].name;
            info->missing_stage[info->n_missing++] = INPUTS[i].stage;
        }
    }

    /* the figures first, as drafts: a failing one leaves no report behind, and a refused page
     * no figure */
    const char *ext = o->format == MB_PLOT_SVG ? "svg" : "png";
    const char *drawn[N_FIGURES] = {0}, *val_fig = NULL;
    mb_out_batch dr = {0};
    if (rc == MB_OK)
        rc = draw_figures(in_dir, out_dir, o, scale, val, &dr, &val_fig, drawn, err);

    path_join(info->path, sizeof info->path, out_dir, "report.html");
    char *page = NULL;
    size_t page_n = 0;
    FILE *f = rc == MB_OK ? open_memstream(&page, &page_n) : NULL;
    if (rc == MB_OK && !f)
        rc = mb_error_set(err, MB_ENOMEM, "%s: out of memory", info->path);
    if (rc != MB_OK)
        goto done;
    char date[32];
    time_t now = time(NULL);
    struct tm tm;
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime_r(&now, &tm));
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
               "<title>mbkit report</title>\n<style>%s</style>\n</head>\n<body>\n"
               "<h1>mbkit report: mini-batch size and learners</h1>\n<p class=\"sub\">",
            CSS);
    esc(f, out_dir);
    fprintf(f, " &middot; written %s by mbplot report (mbkit %s)</p>\n", date, mb_version());
    if (val) {
        if ((rc = write_validation(f, val, val_fig, o->format, err)) != MB_OK)
            goto done;
        info->figures++;
        if (val_rec && (rc = write_validation_across(f, val_rec, err)) != MB_OK)
            goto done;
    } else {
        fputs("<p class=\"missing\" id=\"no-validation\">Not yet checked against real training "
              "runs: there is no validate.json here. <code>mbopt validate --json -o ", f);
        esc(f, val_path);
        fputs("</code> (inputs: see <code>mbopt validate --help</code>) writes it, and the report "
              "then opens with the check.</p>\n", f);
    }
    path_join(path, sizeof path, out_dir, "scale.json");
    if ((rc = write_recommendation(f, scale, path, nfit, in_dir, info->n_missing, err)) != MB_OK)
        goto done;
    write_parameters(f, scale, nfit, tfit, cfit);
    if ((rc = write_figures(f, o->format, drawn, &info->figures, err)) != MB_OK ||
        (rc = write_conv(f, in_dir, out_dir, o, ext, &dr, &info->figures, err)) != MB_OK)
        goto done;
    write_inputs(f, out_dir, present, have_runs ? runs->gl_pathc : 0, val != NULL);

    write_reproduce(f, in_dir, out_dir, have_runs ? runs : NULL, in.cmds);
    fputs("</body>\n</html>\n", f);
    if (fclose(f) != 0) {
        f = NULL;
        rc = mb_error_set(err, MB_ENOMEM, "%s: out of memory", info->path);
        goto done;
    }
    f = NULL;
    rc = place_page(info->path, page, page_n, &dr, err);
done:
    if (f)
        fclose(f);
    free(page);
    mb_out_batch_drop(&dr);
    mb_report_inputs_free(&in);
    if (rc != MB_OK)
        info->path[0] = '\0';
    return rc;
}
