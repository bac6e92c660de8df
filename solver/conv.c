/* conv.c — the convolution-algorithm integer program (Zou et al. 2017, eq. 6) on GLPK: one
 * algorithm per (layer, pass), the least summed time, the workspace fitting in the memory the
 * model leaves (model/memory.c's M_bound), for every mini-batch size of a list; the table of
 * measured times it reads (mbprobe conv), and the optimum combined with the convergence law.
 *
 * The workspace formulation. Frameworks allocate one workspace buffer and reuse it for every
 * layer and pass, since they run one after another (Caffe's shared cuDNN workspace, PyTorch's
 * and TensorFlow's allocators hold the largest request); so the default constraint is on the
 * maximum: W >= sum_c ws_c x_sc for every slot s, W <= M_bound, linearised with a continuous W.
 * With one memory budget per M that program separates by slot (any candidate whose own
 * workspace fits may be taken), so GLPK's answer is each slot's fastest fitting candidate, and
 * the tests check it is. Zou et al.'s eq. 6 sums the workspaces instead (each layer keeps its
 * own, as when workspaces are allocated per layer); that is a multiple-choice knapsack, where
 * the integer program earns its keep: --workspace sum.
 *
 * Candidates whose workspace exceeds M_bound (or the per-layer limit) are removed before GLPK
 * sees them (no feasible choice can hold them), and so are candidates another of the same slot
 * beats in both time and workspace (swapping in the better one never hurts): the program keeps
 * each slot's Pareto front, which is what makes 64 ResNet-50 programs take well under a second.
 *
 * The sweep's programs share one budget of seconds (mbopt conv --time-limit, MB_CILP_BUDGET):
 * branch and bound on the summed form can grow without bound on a table built to defeat it,
 * and a command that honours no budget is a hang to its user.
 *
 * Not here: timing the algorithms (probe/), the memory model's formulas (model/), printing
 * (mbopt).
 */
#include "mb_solver.h"
#include "../data/mb_format.h"
#include "../data/mb_parse.h"
#include "../data/mb_table.h"

#include <glpk.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../net/mb_net.h"
#include "../probe/mb_probe.h" /* mb_probe_now: the project's monotonic clock */

const char *mb_solver_ws_mode_name(mb_ws_mode m) { return m == MB_WS_SUM ? "sum" : "shared"; }

int mb_solver_ws_mode_parse(const char *s, mb_ws_mode *m)
{
    if (strcmp(s, "shared") == 0)
        *m = MB_WS_SHARED;
    else if (strcmp(s, "sum") == 0)
        *m = MB_WS_SUM;
    else
        return MB_EINVAL;
    return MB_OK;
}

/* ---- the integer program ------------------------------------------------------------------- */

/* GLPK calls this instead of abort() on an internal error; back to mb_solver_conv_ilp. */
static void glpk_error(void *info) { longjmp(*(jmp_buf *)info, 1); }

/* The least workspace of a slot's candidates under `limit`, and its index (-1: none). */
static long least_ws(const mb_cilp_slot *s, double limit, double *ws)
{
    long best = -1;
    for (size_t c = 0; c < s->n; c++)
        if (s->c[c].ws <= limit && (best < 0 || s->c[c].ws < s->c[best].ws))
            best = (long)c;
    *ws = best >= 0 ? s->c[best].ws : NAN;
    return best;
}

/* Infeasible: the slot whose least workspace misses the budget by most (shared: any slot over
 * avail; sum: the largest contributor to a sum over avail). */
static void diagnose(const mb_cilp_problem *p, mb_cilp_result *r)
{
    r->feasible = 0;
    r->short_slot = -1;
    r->short_bytes = p->avail < 0 ? -p->avail : 0;
    if (p->avail < 0)
        return;
    double sum = 0, worst = -1;
    for (size_t s = 0; s < p->n; s++) {
        double ws;
        if (least_ws(&p->slot[s], p->ws_limit, &ws) < 0) {
            /* nothing under the per-layer limit: the limit is what is short */
            least_ws(&p->slot[s], INFINITY, &ws);
            double miss = ws - fmin(p->ws_limit, p->avail);
            if (miss > worst || r->short_slot < 0 || worst < 0)
                worst = miss, r->short_slot = (long)s, r->short_bytes = miss,
                r->limit_short = ws <= p->avail;
            continue;
        }
        sum += ws;
        double miss = p->mode == MB_WS_SUM ? ws : ws - p->avail;
        if (miss > worst)
            worst = miss, r->short_slot = (long)s, r->limit_short = 0,
            r->short_bytes = p->mode == MB_WS_SUM ? NAN : miss;
    }
    if (p->mode == MB_WS_SUM && r->short_slot >= 0 && isnan(r->short_bytes))
        r->short_bytes = sum - p->avail;
}

static int check_problem(const mb_cilp_problem *p, mb_error *err)
{
    if (!(p->ws_limit >= 0) || isnan(p->avail))
        return mb_error_set(err, MB_EINVAL, "ILP: workspace limit %g and memory %g: need >= 0",
                            p->ws_limit, p->avail);
    for (size_t s = 0; s < p->n; s++) {
        const mb_cilp_slot *sl = &p->slot[s];
        if (sl->n == 0)
            return mb_error_set(err, MB_EINVAL, "ILP: layer '%s' pass '%s' has no candidate",
                                sl->layer, sl->pass);
        for (size_t c = 0; c < sl->n; c++)
            if (!(isfinite(sl->c[c].t) && sl->c[c].t >= 0 && isfinite(sl->c[c].ws) &&
                  sl->c[c].ws >= 0))
                return mb_error_set(err, MB_EINVAL,
                                    "ILP: layer '%s' pass '%s' algorithm '%s': time %g s and "
                                    "workspace %g bytes must be finite and >= 0",
                                    sl->layer, sl->pass, sl->c[c].algo, sl->c[c].t, sl->c[c].ws);
    }
    return MB_OK;
}

/* Builds and solves the program over the candidates `keep` marks (col[k] = its GLPK column);
 * *status: 1 optimal, 0 no feasible choice. */
static int glpk_solve(const mb_cilp_problem *p, const int *keep, const size_t *first,
                      size_t ncand, size_t *pick, int *status, mb_error *err)
{
    /* entries: one per kept candidate in its slot's row, one per kept candidate with workspace in
     * the workspace row(s), and W's -1 in every slot's workspace row (shared) */
    size_t cap = 2 * ncand + p->n + 2;
    int *ia = malloc((cap + 1) * sizeof *ia), *ja = malloc((cap + 1) * sizeof *ja);
    double *ar = malloc((cap + 1) * sizeof *ar);
    int *colof = malloc((ncand + 1) * sizeof *colof);
    if (!ia || !ja || !ar || !colof) {
        free(ia), free(ja), free(ar), free(colof);
        return mb_error_set(err, MB_ENOMEM, "ILP: out of memory for %zu candidates", ncand);
    }
    /* GLPK's simplex treats reduced costs under 1e-7 as zero and its bounds are absolute, so
     * times of microseconds and workspaces of gigabytes would tie or lose precision: the
     * objective is in units of the slowest candidate, the workspace in units of the budget */
    double tscale = 0;
    int nk = 0;
    for (size_t s = 0; s < p->n; s++)
        for (size_t c = 0; c < p->slot[s].n; c++)
            if (keep[first[s] + c])
                nk++, tscale = fmax(tscale, p->slot[s].c[c].t);
    tscale = tscale > 0 ? tscale : 1;
    const double wscale = p->avail > 0 ? p->avail : 1;
    jmp_buf jb;
    int prev_term = glp_term_out(GLP_OFF);
    if (setjmp(jb)) {
        /* GLPK's environment is unusable after an internal error: free it whole */
        glp_error_hook(NULL, NULL);
        glp_free_env();
        free(ia), free(ja), free(ar), free(colof);
        return mb_error_set(err, MB_ESOLVER, "GLPK: internal error while solving the ILP");
    }
    glp_error_hook(glpk_error, &jb);
    glp_prob *lp = glp_create_prob();
    glp_set_obj_dir(lp, GLP_MIN);
    const int shared = p->mode == MB_WS_SHARED;
    const int nrows = (int)p->n + (shared ? (int)p->n : 1);
    glp_add_rows(lp, nrows);
    for (size_t s = 0; s < p->n; s++) {
        glp_set_row_bnds(lp, (int)s + 1, GLP_FX, 1, 1); /* one candidate per slot */
        if (shared)
            glp_set_row_bnds(lp, (int)(p->n + s) + 1, GLP_UP, 0, 0); /* ws - W <= 0 */
    }
    if (!shared)
        glp_set_row_bnds(lp, (int)p->n + 1, GLP_UP, 0, p->avail / wscale);
    glp_add_cols(lp, nk + shared);
    size_t ne = 0;
    int col = 0;
    for (size_t s = 0; s < p->n; s++)
        for (size_t c = 0; c < p->slot[s].n; c++) {
            size_t k = first[s] + c;
            colof[k] = 0;
            if (!keep[k])
                continue;
            colof[k] = ++col;
            glp_set_col_kind(lp, col, GLP_BV);
            glp_set_obj_coef(lp, col, p->slot[s].c[c].t / tscale);
            ++ne, ia[ne] = (int)s + 1, ja[ne] = col, ar[ne] = 1;
            if (p->slot[s].c[c].ws > 0)
                ++ne, ia[ne] = shared ? (int)(p->n + s) + 1 : (int)p->n + 1, ja[ne] = col,
                      ar[ne] = p->slot[s].c[c].ws / wscale;
        }
    if (shared) {
        int w = col + 1; /* W in [0, M_bound] */
        glp_set_col_kind(lp, w, GLP_CV);
        if (p->avail > 0)
            glp_set_col_bnds(lp, w, GLP_DB, 0, p->avail / wscale);
        else
            glp_set_col_bnds(lp, w, GLP_FX, 0, 0);
        for (size_t s = 0; s < p->n; s++)
            ++ne, ia[ne] = (int)(p->n + s) + 1, ja[ne] = w, ar[ne] = -1;
    }
    glp_load_matrix(lp, (int)ne, ia, ja, ar);
    glp_iocp parm;
    glp_init_iocp(&parm);
    parm.presolve = GLP_ON;
    /* hybrid pseudo-cost branching: on the summed (knapsack) form of ResNet-50, 64 programs
     * took 0.71-0.79 s against 0.80-1.1 s with GLPK's other rules, Driebeck-Tomlin included
     * (tests/bench/conv_ilp.c, one shared 2-core machine: differences near its noise) */
    parm.br_tech = GLP_BR_PCH;
    parm.msg_lev = GLP_MSG_OFF;
    parm.mip_gap = 0;     /* proven optimal, not within a gap */
    parm.tol_obj = 1e-12; /* an LP bound must beat the incumbent by this (relative) to branch */
    if (p->budget > 0 && isfinite(p->budget)) /* GLPK counts whole milliseconds (0: none) */
        parm.tm_lim = (int)fmin(fmax(ceil(p->budget * 1e3), 1), 1e9);
    int ret = glp_intopt(lp, &parm);
    int rc = MB_OK;
    *status = 0;
    if (ret == 0 && glp_mip_status(lp) == GLP_OPT) {
        *status = 1;
        for (size_t s = 0; s < p->n; s++) {
            pick[s] = (size_t)-1;
            for (size_t c = 0; c < p->slot[s].n; c++) {
                int j = colof[first[s] + c];
                if (j > 0 && glp_mip_col_val(lp, j) > 0.5)
                    pick[s] = c;
            }
            if (pick[s] == (size_t)-1)
                rc = mb_error_set(err, MB_ESOLVER, "GLPK: no candidate chosen for layer '%s' "
                                  "pass '%s'", p->slot[s].layer, p->slot[s].pass);
        }
    } else if (ret == GLP_ETMLIM) {
        *status = -1;
        rc = mb_error_set(err, MB_ESOLVER, "GLPK: the program of %d candidates over %zu "
                          "layer passes was not proven optimal within the budget", nk, p->n);
    } else if (!(ret == GLP_ENOPFS || (ret == 0 && glp_mip_status(lp) == GLP_NOFEAS))) {
        rc = mb_error_set(err, MB_ESOLVER, "GLPK: glp_intopt returned %d (MIP status %d)", ret,
                          glp_mip_status(lp));
    }
    glp_delete_prob(lp);
    glp_error_hook(NULL, NULL);
    glp_term_out(prev_term);
    free(ia), free(ja), free(ar), free(colof);
    return rc;
}

/* Orders candidates by time, then workspace, then position (ties keep the first). */
static int choice_cmp(const void *a, const void *b)
{
    const mb_cilp_choice *x = *(const mb_cilp_choice *const *)a;
    const mb_cilp_choice *y = *(const mb_cilp_choice *const *)b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (x->ws != y->ws)
        return x->ws < y->ws ? -1 : 1;
    return (x > y) - (x < y);
}

/* Marks the candidates of slot s worth giving GLPK: those that fit under `lim` and that no other
 * candidate beats in both time and workspace (a dominated candidate can be swapped for its
 * dominator in any solution, under the max and the sum alike). Returns 0 when none fits. */
static int keep_undominated(const mb_cilp_slot *s, double lim, int *keep,
                            const mb_cilp_choice **order)
{
    size_t n = 0;
    for (size_t c = 0; c < s->n; c++) {
        keep[c] = 0;
        if (s->c[c].ws <= lim)
            order[n++] = &s->c[c];
    }
    qsort(order, n, sizeof *order, choice_cmp);
    double least_ws = INFINITY; /* of the faster candidates kept so far */
    for (size_t i = 0; i < n; i++)
        if (order[i]->ws < least_ws) {
            keep[order[i] - s->c] = 1;
            least_ws = order[i]->ws;
        }
    return n > 0;
}

int mb_solver_conv_ilp(const mb_cilp_problem *p, size_t *pick, mb_cilp_result *r,
                       mb_error *err)
{
    memset(r, 0, sizeof *r);
    r->short_slot = -1;
    int rc = check_problem(p, err);
    if (rc != MB_OK)
        return rc;
    if (p->avail < 0) {
        diagnose(p, r);
        return MB_OK;
    }
    size_t ncand = 0;
    size_t *first = malloc((p->n + 1) * sizeof *first);
    if (!first)
        return mb_error_set(err, MB_ENOMEM, "ILP: out of memory");
    for (size_t s = 0; s < p->n; s++)
        first[s] = ncand, ncand += p->slot[s].n;
    size_t max_n = 0;
    for (size_t s = 0; s < p->n; s++)
        max_n = p->slot[s].n > max_n ? p->slot[s].n : max_n;
    int *keep = calloc(ncand + 1, sizeof *keep);
    const mb_cilp_choice **order = malloc((max_n + 1) * sizeof *order);
    if (!keep || !order) {
        free(keep), free(order);
        free(first);
        return mb_error_set(err, MB_ENOMEM, "ILP: out of memory");
    }
    const double lim = fmin(p->avail, p->ws_limit);
    int every_slot = 1;
    for (size_t s = 0; s < p->n && every_slot; s++)
        every_slot &= keep_undominated(&p->slot[s], lim, keep + first[s], order);
    int status = 0;
    if (every_slot)
        rc = glpk_solve(p, keep, first, ncand, pick, &status, err);
    free(keep), free(order);
    free(first);
    r->out_of_time = status < 0;
    if (rc != MB_OK)
        return rc;
    if (!status) {
        diagnose(p, r);
        return MB_OK;
    }
    r->feasible = 1;
    for (size_t s = 0; s < p->n; s++) {
        const mb_cilp_choice *c = &p->slot[s].c[pick[s]];
        r->t += c->t;
        r->ws = p->mode == MB_WS_SUM ? r->ws + c->ws : fmax(r->ws, c->ws);
    }
    return MB_OK;
}

/* ---- the convolution table ------------------------------------------------------------------ */

typedef struct conv_row {
    char layer[32];
    char pass[32];
    char algo[64];
    int batch;
    double t, ws;
    int usable;  /* the status says it ran (else: unsupported, out of memory, ...) */
    long line;
    double shape[7]; /* in_c, in_h, in_w, out_c, k, stride, pad as timed (a usable row of a
                        table with the shape columns); shape[0] = 0: not recorded */
} conv_row;

struct mb_cilp_table {
    char path[512];
    char backend[32];
    size_t n;
    conv_row *r;
};

void mb_solver_conv_free(mb_cilp_table *t)
{
    if (!t)
        return;
    free(t->r);
    free(t);
}

const char *mb_solver_conv_backend(const mb_cilp_table *t) { return t->backend; }

/* Whether a row's status is one whose time counts (*usable): measured, cached, ok or empty (a
 * table by hand); unsupported, out of memory and over budget are rows that did not run. Any
 * other, a space beside a name included (campaign 25's V9: ' measured' dropped the row without
 * a word), is MB_EFORMAT naming the cell. */
static int row_status(const mb_table *tb, size_t r, size_t col, int *usable, mb_error *err)
{
    static const char *const ran[] = {"", "measured", "cached", "ok"},
                             *const not_run[] = {"unsupported", "out of memory", "over budget"};
    const char *s = mb_table_cell(tb, r, col);
    *usable = 0;
    for (size_t k = 0; k < sizeof ran / sizeof ran[0]; k++)
        if (strcmp(s, ran[k]) == 0)
            return *usable = 1, MB_OK;
    for (size_t k = 0; k < sizeof not_run / sizeof not_run[0]; k++)
        if (strcmp(s, not_run[k]) == 0)
            return MB_OK;
    return mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'status': '%.64s' is not measured, cached, "
                        "unsupported, out of memory or over budget", mb_table_path(tb),
                        mb_table_line(tb, r), s);
}

static int copy_cell(char *dst, size_t n, const mb_table *tb, size_t r, size_t col,
                     const char *field, mb_error *err)
{
    const char *v = mb_table_cell(tb, r, col);
    if (*v == '\0' || strlen(v) >= n)
        return mb_error_set(err, MB_EFORMAT, "%s:%ld: field '%s': '%s' is empty or longer than %zu "
                            "characters", mb_table_path(tb), mb_table_line(tb, r), field, v, n - 1);
    memcpy(dst, v, strlen(v) + 1);
    return MB_OK;
}

/* Row r's names (campaign 21's N6: a pass 'sideways' was solved as a slot, rows of two
 * devices were taken): the pass one of the three an update runs (net/conv.c's names), and the
 * device the first row's (*dev_row: that row, -1 before it) where the table has a device
 * column. The backend is every row's, checked before (pick_backend). */
static int row_names(const mb_table *tb, size_t r, size_t pcol, long dcol, long *dev_row,
                     mb_error *err)
{
    const char *path = mb_table_path(tb), *pass = mb_table_cell(tb, r, pcol);
    const long line = mb_table_line(tb, r);
    int known = 0;
    for (int k = MB_PASS_FORWARD; k <= MB_PASS_BACKWARD_FILTER; k++)
        known |= strcmp(pass, mb_conv_pass_name((mb_conv_pass)k)) == 0;
    if (!known)
        return mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'pass': '%.64s' is not forward, "
                            "backward_data or backward_filter", path, line, pass);
    if (dcol < 0)
        return MB_OK;
    if (*dev_row < 0)
        *dev_row = (long)r;
    const char *dv = mb_table_cell(tb, r, (size_t)dcol),
               *d0 = mb_table_cell(tb, (size_t)*dev_row, (size_t)dcol);
    if (strcmp(dv, d0) != 0)
        return mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'device': '%.64s' differs from "
                            "'%.64s' on line %ld: one device a table", path, line, dv, d0,
                            mb_table_line(tb, (size_t)*dev_row));
    return MB_OK;
}

/* The backend to keep: `want`, or the table's only one. Every row's backend is one mbprobe
 * conv writes (cpu, cuda), the rows of the backend not kept too (campaign 21's N6: rows of a
 * 'tpu' were taken; campaign 22's Q8: rows with an empty cell were dropped without a word, and
 * a table of them all read as one without the column). */
static int pick_backend(const mb_table *tb, long bcol, const char *want, char *out, size_t n,
                        mb_error *err)
{
    *out = '\0';
    if (bcol < 0) {
        if (want && *want)
            return mb_error_set(err, MB_EFORMAT, "%s: no 'backend' column, so no rows for "
                                "backend '%s'", mb_table_path(tb), want);
        return MB_OK;
    }
    char seen[256] = "";
    int found = 0, several = 0;
    for (size_t r = 0; r < mb_table_rows(tb); r++) {
        const char *b = mb_table_cell(tb, r, (size_t)bcol);
        if (!*b)
            return mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'backend': empty (mbprobe conv "
                                "writes cpu or cuda on every row)", mb_table_path(tb),
                                mb_table_line(tb, r));
        if (strcmp(b, "cpu") != 0 && strcmp(b, "cuda") != 0)
            return mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'backend': '%.64s' is not cpu or "
                                "cuda", mb_table_path(tb), mb_table_line(tb, r), b);
        if (want && strcmp(b, want) == 0)
            found = 1;
        if (!*out)
            snprintf(out, n, "%s", b);
        else if (strcmp(out, b) != 0 && !strstr(seen, b)) {
            several = 1;
            size_t l = strlen(seen);
            snprintf(seen + l, sizeof seen - l, "%s%s", l ? ", " : "", b);
        }
    }
    if (want) {
        if (!found)
            return mb_error_set(err, MB_EFORMAT, "%s: no rows for backend '%s'",
                                mb_table_path(tb), want);
        snprintf(out, n, "%s", want);
    } else if (several) {
        return mb_error_set(err, MB_EFORMAT, "%s: rows for backends %s, %s: choose one with "
                            "--backend", mb_table_path(tb), out, seen);
    }
    return MB_OK;
}

/* Orders rows by (layer, pass, algo, batch), then by line. */
static int row_cmp(const void *a, const void *b)
{
    const conv_row *x = *(const conv_row *const *)a, *y = *(const conv_row *const *)b;
    int c = strcmp(x->layer, y->layer);
    if (!c)
        c = strcmp(x->pass, y->pass);
    if (!c)
        c = strcmp(x->algo, y->algo);
    if (!c)
        c = (x->batch > y->batch) - (x->batch < y->batch);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* Two usable rows for one point: which time would be meant? Sorted, so n log n for big tables. */
static int check_duplicates(const mb_cilp_table *t, mb_error *err)
{
    const conv_row **v = malloc((t->n + 1) * sizeof *v);
    if (!v)
        return mb_error_set(err, MB_ENOMEM, "%s: out of memory", t->path);
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++)
        if (t->r[i].usable)
            v[n++] = &t->r[i];
    qsort(v, n, sizeof *v, row_cmp);
    int rc = MB_OK;
    for (size_t i = 1; i < n && rc == MB_OK; i++) {
        const conv_row *o = v[i - 1], *w = v[i];
        if (o->batch == w->batch && !strcmp(o->layer, w->layer) && !strcmp(o->pass, w->pass) &&
            !strcmp(o->algo, w->algo))
            rc = mb_error_set(err, MB_EFORMAT, "%s:%ld: layer '%s' algo '%s' pass '%s' batch %d "
                              "is also on line %ld", t->path, w->line, w->layer, w->algo, w->pass,
                              w->batch, o->line);
    }
    free(v);
    return rc;
}

/* The layer's shape columns (counts[1..n-1]: in_c .. pad), which mbprobe conv writes on every
 * row: all of them, so that mbopt conv can hold each layer's rows against the net's layer, or
 * none (a table made by hand: layers are then matched by name alone). Some but not all: which
 * shape was timed? (issue #25, campaign 19's G1) */
static int shape_columns(const mb_table *tb, const char *const *counts, const long *ccol,
                         size_t n, mb_error *err)
{
    size_t have = 0, missing = 0;
    for (size_t i = 1; i < n; i++)
        if (ccol[i] >= 0)
            have++;
        else if (!missing)
            missing = i;
    if (have == 0 || !missing)
        return MB_OK;
    return mb_error_set(err, MB_EFORMAT, "%s: column '%s' missing beside the other shape columns "
                        "(in_c, in_h, in_w, out_c, k, stride, pad: all of them, or none)",
                        mb_table_path(tb), counts[missing]);
}

int mb_solver_conv_read(const char *path, const char *backend, mb_cilp_table **out,
                        mb_error *err)
{
    *out = NULL;
    mb_table *tb = NULL;
    int rc = mb_table_read(path, &tb, err);
    if (rc == MB_OK && (rc = mb_format_check_table(tb, MB_FORMAT_CONV, err)) != MB_OK)
        mb_table_free(tb);
    if (rc != MB_OK)
        return rc;
    static const char *const need[] = {"layer", "algo", "pass", "batch", "t_median_s",
                                       "workspace_bytes"};
    size_t col[6];
    for (int i = 0; rc == MB_OK && i < 6; i++)
        rc = mb_table_require_col(tb, need[i], &col[i], err);
    long scol = mb_table_col(tb, "status"), bcol = mb_table_col(tb, "backend");
    /* the counts mbprobe conv writes beside a measured row, whole as written where present
     * (campaign 10's M7: reps 19.0000000000000001 and in_w 8.0000000000000001 were taken) */
    static const char *const counts[] = {"reps", "in_c", "in_h", "in_w", "out_c", "k", "stride",
                                         "pad"};
    long ccol[sizeof counts / sizeof counts[0]];
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        ccol[i] = mb_table_col(tb, counts[i]);
    if (rc == MB_OK)
        rc = shape_columns(tb, counts, ccol, sizeof counts / sizeof counts[0], err);
    mb_cilp_table *t = calloc(1, sizeof *t);
    if (rc == MB_OK && (!t || !(t->r = calloc(mb_table_rows(tb) + 1, sizeof *t->r))))
        rc = mb_error_set(err, MB_ENOMEM, "%s: out of memory", path);
    if (rc == MB_OK) {
        snprintf(t->path, sizeof t->path, "%s", path);
        rc = pick_backend(tb, bcol, backend, t->backend, sizeof t->backend, err);
    }
    const long dcol = mb_table_col(tb, "device");
    long dev_row = -1; /* the first row of the backend kept: its device is the table's */
    for (size_t r = 0; rc == MB_OK && r < mb_table_rows(tb); r++) {
        if (bcol >= 0 && strcmp(mb_table_cell(tb, r, (size_t)bcol), t->backend) != 0)
            continue;
        if ((rc = row_names(tb, r, col[2], dcol, &dev_row, err)) != MB_OK)
            break;
        conv_row *w = &t->r[t->n];
        w->line = mb_table_line(tb, r);
        w->usable = 1;
        if (scol >= 0 && (rc = row_status(tb, r, (size_t)scol, &w->usable, err)) != MB_OK)
            break;
        double b;
        if ((rc = copy_cell(w->layer, sizeof w->layer, tb, r, col[0], "layer", err)) != MB_OK ||
            (rc = copy_cell(w->algo, sizeof w->algo, tb, r, col[1], "algo", err)) != MB_OK ||
            (rc = copy_cell(w->pass, sizeof w->pass, tb, r, col[2], "pass", err)) != MB_OK ||
            (rc = mb_table_double_in(tb, r, col[3], 1, 1 << 30, 1, &b, err)) != MB_OK)
            break;
        if (b < 1 || b > 1 << 30 || b != floor(b)) {
            rc = mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'batch': %g is not a whole number "
                              ">= 1", path, w->line, b);
            break;
        }
        w->batch = (int)b;
        mb_conv_algo known;
        if (strcmp(t->backend, "cpu") == 0 && mb_conv_algo_parse(w->algo, &known) != MB_OK) {
            /* the CPU's algorithms are known here (the CUDA backend's names live with it) */
            rc = mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'algo': '%s' is not a CPU "
                              "convolution algorithm (gemm, direct, fft, winograd)", path,
                              w->line, w->algo);
            break;
        }
        if (w->usable) {
            /* a workspace is whole bytes (campaign 9, L15); the spread of times in order */
            static const char *const spread[] = MB_TABLE_TIMES;
            if ((rc = mb_table_double(tb, r, col[4], &w->t, err)) != MB_OK ||
                (rc = mb_table_check_order(tb, r, spread, err)) != MB_OK)
                break;
            if (w->t < 0) {
                rc = mb_error_set(err, MB_EFORMAT, "%s:%ld: field 't_median_s': %g is negative",
                                  path, w->line, w->t);
                break;
            }
            if ((rc = mb_table_double_in(tb, r, col[5], 0, MB_DATA_RANGE_MAX, 1, &w->ws, err)) !=
                MB_OK)
                break;
            double c; /* pad may be 0, every other count is 1 at least */
            for (size_t i = 0; rc == MB_OK && i < sizeof counts / sizeof counts[0]; i++)
                if (ccol[i] >= 0) {
                    /* the shape (counts[1..7]) as timed, for sweep_init to hold against the
                     * net's layer */
                    rc = mb_table_double_in(tb, r, (size_t)ccol[i], strcmp(counts[i], "pad") != 0,
                                            MB_DATA_RANGE_MAX, 1, &c, err);
                    if (i > 0)
                        w->shape[i - 1] = c;
                }
            if (rc != MB_OK)
                break;
        }
        t->n++;
    }
    mb_table_free(tb);
    if (rc == MB_OK)
        rc = check_duplicates(t, err);
    if (rc == MB_OK && t->n == 0)
        rc = mb_error_set(err, MB_EFORMAT, "%s: no rows%s%s", path, *t->backend ? " for backend "
                          : "", t->backend);
    if (rc != MB_OK) {
        mb_solver_conv_free(t);
        return rc;
    }
    *out = t;
    return MB_OK;
}

/* ---- the sweep over M ---------------------------------------------------------------------- */

void mb_solver_conv_defaults(mb_cilp_options *o)
{
    o->device_bytes = 0;
    o->mode = MB_WS_SHARED;
    o->ws_limit = INFINITY;
    o->micro = 0;
    o->budget = MB_CILP_BUDGET;
    mb_model_mem_defaults(&o->mem);
}

void mb_solver_conv_results_free(mb_cilp_point *res, size_t nm)
{
    for (size_t i = 0; res && i < nm; i++) {
        free(res[i].picks);
        res[i].picks = NULL;
    }
}

/* The slots of the sweep: every (conv layer of the net, pass in the table), each with its usable
 * rows and room for one candidate per row (the candidates at any M come from those rows). */
typedef struct sweep {
    size_t n, cap;
    mb_cilp_slot *slot;
    size_t *off;            /* per slot: where its rows and candidates start */
    size_t *rows_n;         /* per slot: how many usable rows */
    size_t *rows;           /* row indices, slot after slot (t->n at most) */
    mb_cilp_choice *cand;   /* candidates, laid out as rows */
} sweep;

static void sweep_free(sweep *s)
{
    free(s->slot), free(s->off), free(s->rows_n), free(s->rows), free(s->cand);
}

/* Orders rows by (layer, pass), then by position in the file. */
static int layer_pass_cmp(const void *a, const void *b)
{
    const conv_row *x = *(const conv_row *const *)a, *y = *(const conv_row *const *)b;
    int c = strcmp(x->layer, y->layer);
    if (!c)
        c = strcmp(x->pass, y->pass);
    return c ? c : (x > y) - (x < y);
}

/* The slots of one conv layer from its rows v[lo, hi) (sorted by pass): one per pass, in the
 * order the passes first appear in the file; none for backward_data when the layer is the net's
 * first (`input`): the trainer computes no gradient for the input (train/learner/net.c), so that pass is
 * no part of an update's time, though mbprobe conv times it. */
static int layer_slots(const mb_cilp_table *t, const char *name, int input, const conv_row **v,
                       size_t lo, size_t hi, sweep *s, size_t *used, mb_error *err)
{
    size_t before = s->n;
    for (size_t i = lo; i < hi;) {
        size_t j = i;
        while (j < hi && strcmp(v[j]->pass, v[i]->pass) == 0)
            j++;
        if (input && strcmp(v[i]->pass, mb_conv_pass_name(MB_PASS_BACKWARD_DATA)) == 0) {
            i = j;
            continue;
        }
        if (s->n == s->cap)
            return mb_error_set(err, MB_EFORMAT, "%s: layer '%s' has more than 8 passes", t->path,
                                name);
        size_t k = s->n++;
        s->slot[k] = (mb_cilp_slot){.layer = name, .pass = v[i]->pass};
        s->off[k] = *used;
        s->rows_n[k] = 0;
        for (size_t r = i; r < j; r++)
            if (v[r]->usable)
                s->rows[*used + s->rows_n[k]++] = (size_t)(v[r] - t->r);
        if (s->rows_n[k] == 0)
            return mb_error_set(err, MB_EFORMAT, "%s: layer '%s' pass '%s': no supported "
                                "algorithm (every row's status says it did not run)", t->path,
                                name, v[i]->pass);
        *used += s->rows_n[k];
        i = j;
    }
    /* passes in file order (forward before backward_data before backward_filter): by the first
     * row of each; a handful per layer, so insertion sort */
    for (size_t k = before + 1; k < s->n; k++)
        for (size_t q = k; q > before && s->rows[s->off[q]] < s->rows[s->off[q - 1]]; q--) {
            mb_cilp_slot ts = s->slot[q];
            size_t to = s->off[q], tn = s->rows_n[q];
            s->slot[q] = s->slot[q - 1], s->off[q] = s->off[q - 1], s->rows_n[q] = s->rows_n[q - 1];
            s->slot[q - 1] = ts, s->off[q - 1] = to, s->rows_n[q - 1] = tn;
        }
    return MB_OK;
}

/* The layer's rows v[lo, hi) timed another shape than the net's layer l (a cfg edited after
 * probing, a table of another net with a layer of the same name): which times would be meant?
 * Rows of a table without the shape columns are matched by name alone. (issue #25, campaign
 * 19's G1: a 3x3 conv of 2 filters stood for one of 64 filters 5x5) */
static int layer_shape(const mb_cilp_table *t, const mb_net_desc *d, const mb_layer_desc *l,
                       const conv_row **v, size_t lo, size_t hi, mb_error *err)
{
    const double want[7] = {l->in_c, l->in_h, l->in_w, l->out_c, l->size, l->stride, l->pad};
    const conv_row *bad = NULL; /* the first such row in the file */
    for (size_t i = lo; i < hi; i++) {
        const double *g = v[i]->shape;
        int same = 1;
        for (int k = 0; k < 7; k++)
            same &= g[k] == want[k];
        if (v[i]->usable && g[0] != 0 && !same && (!bad || v[i]->line < bad->line))
            bad = v[i];
    }
    if (!bad)
        return MB_OK;
    const double *g = bad->shape;
    return mb_error_set(err, MB_EFORMAT, "%s:%ld: layer '%s' was timed as %gx%gx%g -> %g, k %g "
                        "(stride %g, pad %g); net '%s' has it as %dx%dx%d -> %d, k %d (stride "
                        "%d, pad %d): probe this net again (mbprobe conv)", t->path, bad->line,
                        l->name, g[0], g[1], g[2], g[3], g[4], g[5], g[6], d->name, l->in_c,
                        l->in_h, l->in_w, l->out_c, l->size, l->stride, l->pad);
}

/* Every conv layer has its passes among the slots (campaign 21's N6: a table without its
 * forward rows was solved as if an update ran backward_filter alone): forward always, and each
 * backward pass the table times for some layer (backward_data not for the net's first layer,
 * whose input takes no gradient). A table by hand may leave the backward passes out for every
 * layer: T_update is then the forward passes'. */
static int passes_complete(const mb_net_desc *d, const mb_cilp_table *t, const sweep *s,
                           mb_error *err)
{
    int timed[3] = {1, 0, 0};
    for (size_t r = 0; r < t->n; r++)
        for (int k = 1; k < 3; k++)
            timed[k] |= strcmp(t->r[r].pass, mb_conv_pass_name((mb_conv_pass)k)) == 0;
    for (size_t i = 0; i < d->n_layers; i++) {
        const mb_layer_desc *l = &d->layers[i];
        for (int k = 0; l->type == MB_LAYER_CONV && k < 3; k++) {
            const char *pass = mb_conv_pass_name((mb_conv_pass)k);
            if (!timed[k] || (i == 0 && k == MB_PASS_BACKWARD_DATA))
                continue;
            int has = 0;
            for (size_t q = 0; q < s->n; q++)
                has |= !strcmp(s->slot[q].layer, l->name) && !strcmp(s->slot[q].pass, pass);
            if (!has)
                return mb_error_set(err, MB_EFORMAT, "%s: layer '%s': no rows for pass '%s' "
                                    "(%s): probe the net again (mbprobe conv)", t->path,
                                    l->name, pass, k == 0 ? "every update runs it"
                                                          : "the table times it for other "
                                                            "layers");
        }
    }
    return MB_OK;
}

/* Every row is of a convolution layer of the net, its name as written (campaign 25's V9: a
 * row of 'conv1 ' was dropped without a word and the choice changed): the rows v, sorted by
 * layer, one name at a time; the first such row in the file is named. */
static int rows_of_net(const mb_net_desc *d, const mb_cilp_table *t, const conv_row *const *v,
                       mb_error *err)
{
    const conv_row *bad = NULL;
    for (size_t i = 0, j; i < t->n; i = j) {
        int conv = 0;
        for (j = i; j < t->n && strcmp(v[j]->layer, v[i]->layer) == 0; j++)
            ;
        for (size_t k = 0; !conv && k < d->n_layers; k++)
            conv = d->layers[k].type == MB_LAYER_CONV && !strcmp(d->layers[k].name, v[i]->layer);
        for (size_t k = i; !conv && k < j; k++)
            if (!bad || v[k]->line < bad->line)
                bad = v[k];
    }
    if (!bad)
        return MB_OK;
    return mb_error_set(err, MB_EFORMAT, "%s:%ld: field 'layer': '%s' is not a convolution layer "
                        "of net '%s'", t->path, bad->line, bad->layer, d->name);
}

/* Finds the slots; error when a conv layer has no rows or a (layer, pass) no usable row. Sorts
 * the rows once, so a ResNet-50 table of 80,000 rows takes milliseconds. */
static int sweep_init(const mb_net_desc *d, const mb_cilp_table *t, sweep *s, mb_error *err)
{
    memset(s, 0, sizeof *s);
    size_t nconv = 0;
    for (size_t i = 0; i < d->n_layers; i++)
        nconv += d->layers[i].type == MB_LAYER_CONV;
    if (nconv == 0)
        return mb_net_desc_need_conv(d, err);
    s->cap = nconv * 8; /* passes per layer, at most (the table's strings; mbprobe writes 3) */
    s->slot = calloc(s->cap, sizeof *s->slot);
    s->off = calloc(s->cap, sizeof *s->off);
    s->rows_n = calloc(s->cap, sizeof *s->rows_n);
    s->rows = calloc(t->n + 1, sizeof *s->rows);
    s->cand = calloc(t->n + 1, sizeof *s->cand);
    const conv_row **v = malloc((t->n + 1) * sizeof *v);
    if (!s->slot || !s->off || !s->rows_n || !s->rows || !s->cand || !v) {
        free(v);
        return mb_error_set(err, MB_ENOMEM, "out of memory for %zu rows", t->n);
    }
    for (size_t r = 0; r < t->n; r++)
        v[r] = &t->r[r];
    qsort(v, t->n, sizeof *v, layer_pass_cmp);
    size_t used = 0;
    int rc = rows_of_net(d, t, v, err);
    for (size_t i = 0; i < d->n_layers && rc == MB_OK; i++) {
        const mb_layer_desc *l = &d->layers[i];
        if (l->type != MB_LAYER_CONV)
            continue;
        size_t lo = 0, hi = t->n; /* the first row of this layer: binary search */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (strcmp(v[mid]->layer, l->name) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        hi = lo;
        while (hi < t->n && strcmp(v[hi]->layer, l->name) == 0)
            hi++;
        if (hi == lo)
            rc = mb_error_set(err, MB_EFORMAT, "%s: no rows for layer '%s' of net '%s' (is this "
                              "the table of another network?)", t->path, l->name, d->name);
        else if ((rc = layer_shape(t, d, l, v, lo, hi, err)) == MB_OK)
            rc = layer_slots(t, l->name, i == 0, v, lo, hi, s, &used, err);
    }
    free(v);
    if (rc == MB_OK)
        rc = passes_complete(d, t, s, err);
    for (size_t k = 0; rc == MB_OK && k < s->n; k++)
        s->slot[k].c = &s->cand[s->off[k]];
    return rc;
}

/* The candidates of every slot at M; error naming the layer when one has none at this M. */
static int sweep_candidates(const mb_cilp_table *t, sweep *s, int m, int micro, mb_error *err)
{
    for (size_t k = 0; k < s->n; k++) {
        mb_cilp_slot *sl = &s->slot[k];
        mb_cilp_choice *c = &s->cand[s->off[k]];
        const size_t *rows = &s->rows[s->off[k]];
        size_t n = 0;
        for (size_t i = 0; i < s->rows_n[k]; i++) {
            const conv_row *w = &t->r[rows[i]];
            if (w->batch == m || (micro && w->batch < m && m % w->batch == 0))
                c[n++] = (mb_cilp_choice){.algo = w->algo, .micro = w->batch,
                                          .t = w->t * (m / w->batch), .ws = w->ws};
        }
        sl->n = n;
        if (n == 0) {
            char have[160] = "";
            for (size_t r = 0, l = 0; r < t->n && l + 12 < sizeof have; r++) {
                const conv_row *w = &t->r[r];
                char b[16];
                snprintf(b, sizeof b, ",%d,", w->batch);
                if (w->usable && !strcmp(w->layer, sl->layer) && !strcmp(w->pass, sl->pass)) {
                    char pad[180];
                    snprintf(pad, sizeof pad, ",%s,", have);
                    if (!strstr(pad, b) || !*have) /* the list holds each batch once */
                        l += (size_t)snprintf(have + l, sizeof have - l, "%s%d", l ? "," : "",
                                              w->batch);
                }
            }
            return mb_error_set(err, MB_ENODATA, "%s: layer '%s' pass '%s': no supported "
                                "algorithm at batch %d (the table has %s%s)", t->path, sl->layer,
                                sl->pass, m, have, micro ? "; none divides it" :
                                "; --micro-batch splits M into batches that divide it");
        }
    }
    return MB_OK;
}

static double mib(double b) { return b / (1024.0 * 1024.0); }

/* A size for a message: MiB from 1 MiB up, else KiB or bytes (a budget of 100 bytes is not
 * "0.0 MiB"). */
static const char *size_str(char buf[32], double b)
{
    if (fabs(b) >= 1024.0 * 1024.0)
        snprintf(buf, 32, "%.1f MiB", mib(b));
    else if (fabs(b) >= 1024.0)
        snprintf(buf, 32, "%.1f KiB", b / 1024.0);
    else
        snprintf(buf, 32, "%.0f byte%s", b, b == 1 ? "" : "s");
    return buf;
}

/* The memory model's layers of `d`, its bytes without workspace at M, and the layer with the
 * largest feature map (for messages). */
static int model_bytes(const mb_mem_layer *ml, size_t n, double m, const mb_cilp_options *o,
                       mb_mem_total *tot)
{
    mb_mem_options mo = o->mem;
    mo.gemm_workspace = 0;
    return mb_model_mem(ml, n, m, &mo, tot);
}

static size_t largest_fmap(const mb_mem_layer *ml, size_t n)
{
    size_t best = 0;
    double b = -1;
    for (size_t i = 0; i < n; i++) {
        double v = ml[i].kind == MB_MEM_ELEMENTWISE && !ml[i].kept ? 0 :
                   (double)ml[i].out_c * ml[i].out_h * ml[i].out_w;
        if (v > b)
            b = v, best = i;
    }
    return best;
}

/* The sweep's budget spent at M = m: one line naming the flag that sets it. */
static int out_of_time(const mb_cilp_options *o, double m, mb_error *err)
{
    return mb_error_set(err, MB_ESOLVER, "M = %g: the integer program (GLPK) was not solved to "
                        "optimality within the %g s every M's program shares (--time-limit; "
                        "--workspace shared solves fastest)", m, o->budget);
}

/* The choice at M = mval, its program given budget_left seconds. */
static int solve_one(const mb_net_desc *d, const mb_mem_layer *ml, const mb_cilp_table *t,
                     sweep *s, double mval, const mb_cilp_options *o, double budget_left,
                     mb_cilp_point *p, mb_error *err)
{
    memset(p, 0, sizeof *p);
    p->m = mval;
    p->t_update = p->ws = p->mem_used = p->samples_per_s = NAN;
    if (mval < 1 || mval > 1 << 30 || mval != floor(mval))
        return mb_error_set(err, MB_EINVAL, "batch %g: need a whole number >= 1", mval);
    const int m = (int)mval;
    mb_mem_total tot;
    if (model_bytes(ml, d->n_layers, mval, o, &tot) != MB_OK)
        return mb_error_set(err, MB_EDOM, "net '%s': the memory model cannot be evaluated",
                            d->name);
    p->model_bytes = tot.model;
    p->avail = o->device_bytes - tot.model;
    int rc = sweep_candidates(t, s, m, o->micro, err);
    if (rc != MB_OK)
        return rc;
    size_t *pick = calloc(s->n + 1, sizeof *pick);
    p->picks = calloc(s->n + 1, sizeof *p->picks);
    if (!pick || !p->picks) {
        free(pick);
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    }
    mb_cilp_problem prob = {.n = s->n, .slot = s->slot, .avail = p->avail,
                            .ws_limit = o->ws_limit, .mode = o->mode, .budget = budget_left};
    mb_cilp_result r;
    rc = mb_solver_conv_ilp(&prob, pick, &r, err);
    if (rc != MB_OK) {
        free(pick);
        return r.out_of_time ? out_of_time(o, m, err) : rc;
    }
    p->feasible = r.feasible;
    if (!r.feasible) {
        if (r.short_slot < 0) {
            size_t f = largest_fmap(ml, d->n_layers);
            char b[4][32];
            snprintf(p->why, sizeof p->why, "the model needs %s (feature maps %s, the largest "
                     "layer '%s's output), %s more than the device's %s",
                     size_str(b[0], tot.model), size_str(b[1], tot.fmaps),
                     ml[f].name ? ml[f].name : "?", size_str(b[2], -p->avail),
                     size_str(b[3], o->device_bytes));
        } else {
            const mb_cilp_slot *sl = &s->slot[r.short_slot];
            double least;
            const long k = least_ws(sl, INFINITY, &least);
            char b[4][32]; /* sizes in a unit that shows them (campaign 40's B-F6: 0.0 MiB) */
            p->ws_limited = r.limit_short;
            if (r.limit_short) /* the limit, not memory, is short */
                snprintf(p->why, sizeof p->why, "layer '%s' pass '%s' has no algorithm within "
                         "--ws-limit %s (the least, %s, needs %s; %s left beside the model)",
                         sl->layer, sl->pass, size_str(b[0], o->ws_limit),
                         k >= 0 ? sl->c[k].algo : "?", size_str(b[1], least),
                         size_str(b[2], fmax(p->avail, 0)));
            else
                snprintf(p->why, sizeof p->why, "layer '%s' pass '%s': %s of workspace short "
                         "(its least workspace %s%s; %s left beside the model)", sl->layer,
                         sl->pass, size_str(b[0], r.short_bytes), size_str(b[1], least),
                         isfinite(o->ws_limit) ? " under --ws-limit" : "",
                         size_str(b[2], fmax(p->avail, 0)));
        }
        free(pick);
        return MB_OK;
    }
    p->t_update = r.t;
    p->ws = r.ws;
    p->mem_used = tot.model + r.ws;
    p->samples_per_s = r.t > 0 ? mval / r.t : INFINITY;
    p->n_picks = s->n;
    for (size_t k = 0; k < s->n; k++) {
        const mb_cilp_choice *c = &s->slot[k].c[pick[k]];
        mb_cilp_pick *q = &p->picks[k];
        snprintf(q->layer, sizeof q->layer, "%s", s->slot[k].layer);
        snprintf(q->pass, sizeof q->pass, "%s", s->slot[k].pass);
        snprintf(q->algo, sizeof q->algo, "%s", c->algo);
        q->micro = c->micro;
        q->t = c->t;
        q->ws = c->ws;
    }
    free(pick);
    return MB_OK;
}

int mb_solver_conv_sweep(const mb_net_desc *d, const mb_cilp_table *t, const double *m,
                         size_t nm, const mb_cilp_options *o, mb_cilp_point *res, mb_error *err)
{
    memset(res, 0, nm * sizeof *res);
    if (!(o->device_bytes > 0))
        return mb_error_set(err, MB_EINVAL, "device memory: need > 0 bytes");
    mb_mem_layer *ml = calloc(d->n_layers + 1, sizeof *ml);
    if (!ml)
        return mb_error_set(err, MB_ENOMEM, "out of memory");
    mb_solver_mem_layers(d, ml);
    mb_mem_total one;
    int rc = model_bytes(ml, d->n_layers, 1, o, &one);
    if (rc != MB_OK)
        rc = mb_error_set(err, MB_EDOM, "net '%s': the memory model cannot be evaluated", d->name);
    else if (one.model > o->device_bytes)
    {
        char b[4][32];
        rc = mb_error_set(err, MB_EINVAL, "device memory %s: net '%s' needs %s even at M = 1 "
                          "(parameters, gradients and optimiser state %s, feature maps and input "
                          "%s)", size_str(b[0], o->device_bytes), d->name,
                          size_str(b[1], one.model),
                          size_str(b[2], one.params + one.grads + one.state),
                          size_str(b[3], one.fmaps + one.input));
    }
    sweep s;
    memset(&s, 0, sizeof s);
    if (rc == MB_OK)
        rc = sweep_init(d, t, &s, err);
    const double end = mb_probe_now() + o->budget;
    for (size_t i = 0; rc == MB_OK && i < nm; i++) {
        const double left = end - mb_probe_now();
        rc = left > 0 ? solve_one(d, ml, t, &s, m[i], o, left, &res[i], err)
                      : out_of_time(o, m[i], err);
    }
    sweep_free(&s);
    free(ml);
    return rc;
}

void mb_solver_conv_tc(const mb_law *law, const mb_cilp_point *res, size_t nm, double *tc,
                       long *best_tc, long *best_rate)
{
    *best_tc = *best_rate = -1;
    for (size_t i = 0; i < nm; i++) {
        double n;
        tc[i] = NAN;
        if (!res[i].feasible)
            continue;
        if (*best_rate < 0 || res[i].samples_per_s > res[*best_rate].samples_per_s)
            *best_rate = (long)i;
        if (law && mb_model_law_nupdate(law, res[i].m, &n, NULL) == MB_OK)
            tc[i] = n * res[i].t_update;
        if (!isnan(tc[i]) && (*best_tc < 0 || tc[i] < tc[*best_tc]))
            *best_tc = (long)i;
    }
}
