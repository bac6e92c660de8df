/* conv.c — the convolution ILP's figure, from the JSON of `mbopt conv --json`: time per update
 * (and T_C when the file has it) and the memory used against M, with the M where the chosen
 * algorithms change marked by a dashed line and the number of (layer, pass) choices that
 * changed. Every value it draws is checked first, as the validation figure checks its file
 * (plot_impl.h's mb_plot_field). Not here: solving anything (solver/conv.c) or the report's page
 * (report.c).
 */
#include "mb_plot.h"
#include "plot_impl.h"
#include "../data/mb_json.h"
#include "../net/mb_net.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double mib(double b) { return b / (1024.0 * 1024.0); }

/* The number of (layer, pass) choices that differ between two rows' `choice` arrays. */
static int changed(const cJSON *a, const cJSON *b)
{
    const cJSON *ca = cJSON_GetObjectItemCaseSensitive(a, "choice");
    const cJSON *cb = cJSON_GetObjectItemCaseSensitive(b, "choice");
    int n = 0, na = cJSON_GetArraySize(ca);
    if (na != cJSON_GetArraySize(cb))
        return 0;
    for (int i = 0; i < na; i++) {
        const cJSON *x = cJSON_GetArrayItem(ca, i), *y = cJSON_GetArrayItem(cb, i);
        const char *ax = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(x, "algo"));
        const char *ay = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(y, "algo"));
        int split_x = mb_json_get(x, "micro_batch") < mb_json_get(a, "batch");
        int split_y = mb_json_get(y, "micro_batch") < mb_json_get(b, "batch");
        n += !ax || !ay || strcmp(ax, ay) != 0 || split_x != split_y;
    }
    return n;
}

/* The names a file's `choice.algo` may hold: those net/conv.c knows, the CPU's, when its
 * `backend` (mbopt conv writes the probe table's) is cpu, or absent (a file written before
 * mbopt conv wrote one: the CPU is the default backend); another backend's names live with it
 * (train/backend/cuda/, not built everywhere), and a table without a backend column (null)
 * names none, as mbopt conv reads it: there any name but an empty one. */
typedef struct algo_names {
    const char *(*nth)(int);
    const char *what;
} algo_names;

/* One row's `choice` (the changes drawn are counted from it): an array (absent or null: none)
 * of objects, each with an algorithm's name of `an` (campaign 20's minor: an empty or unknown
 * one was drawn as a change) and a whole micro-batch >= 1. */
static int check_choice(const cJSON *r, const char *where, const algo_names *an,
                        const char *path, mb_error *err)
{
    const cJSON *ch = cJSON_GetObjectItemCaseSensitive(r, "choice"), *c;
    if (!ch || cJSON_IsNull(ch))
        return MB_OK;
    if (!cJSON_IsArray(ch))
        return mb_error_set(err, MB_EFORMAT, "%s: field '%schoice': not an array", path, where);
    int k = 0, rc = MB_OK;
    cJSON_ArrayForEach(c, ch)
    {
        char at[64];
        snprintf(at, sizeof at, "%schoice[%d].", where, k++);
        double x;
        const char *name;
        if (!cJSON_IsObject(c))
            return mb_error_set(err, MB_EFORMAT, "%s: field '%.*s': not an object", path,
                                (int)strlen(at) - 1, at);
        if ((rc = mb_plot_name(c, at, "algo", an->nth, an->what, path, &name, err)) ||
            (rc = mb_plot_field(c, at, "micro_batch", F_REQUIRED | F_POS | F_INT, path, &x, err)))
            return rc;
    }
    return MB_OK;
}

/* One row of `batches` (i): a whole M >= 1 not given before, `feasible` true or false; where
 * feasible, the time per update (> 0: a log axis), the memory used (>= 0 and at most the
 * device's bytes: campaign 31's N6 drew a feasible M at 10 times the device) and the model's
 * bytes (>= 0, at most the memory used, which is model plus workspace: campaign 32's P5 drew
 * 0.85 MiB used beside a model of 0.98) and T_C (> 0 or null); where not, those may be null;
 * the choice. */
static int check_row(const cJSON *r, int i, double device, const algo_names *an,
                     const char *path, mb_error *err)
{
    char where[32];
    snprintf(where, sizeof where, "batches[%d].", i);
    if (!cJSON_IsObject(r))
        return mb_error_set(err, MB_EFORMAT, "%s: field 'batches[%d]': not an object", path, i);
    double m, x, used;
    int rc = mb_plot_field(r, where, "batch", F_REQUIRED | F_POS | F_INT, path, &m, err);
    if (rc != MB_OK)
        return rc;
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(r, "feasible");
    if (!cJSON_IsBool(f))
        return mb_error_set(err, MB_EFORMAT, "%s: field '%sfeasible': %s", path, where,
                            f ? "not true or false" : "missing");
    const int need = cJSON_IsTrue(f) ? F_REQUIRED : F_NULL;
    if ((rc = mb_plot_field(r, where, "t_update", need | F_POS, path, &x, err)) ||
        (rc = mb_plot_field(r, where, "mem_used", need | F_NONNEG, path, &used, err)))
        return rc;
    if (cJSON_IsTrue(f) && used > device)
        return mb_error_set(err, MB_EFORMAT, "%s: field '%smem_used': %.6g MiB is above "
                            "device_bytes %.6g MiB, but feasible is true", path, where,
                            mib(used), mib(device));
    if ((rc = mb_plot_field(r, where, "model_bytes", need | F_NONNEG, path, &x, err)))
        return rc;
    if (used < x) /* both numbers: mbopt conv writes model_bytes + workspace_bytes */
        return mb_error_set(err, MB_EFORMAT, "%s: field '%smem_used': %.6g MiB is below its "
                            "model_bytes %.6g MiB (mem_used is model plus workspace)", path,
                            where, mib(used), mib(x));
    if ((rc = mb_plot_field(r, where, "t_c", F_NULL | F_POS, path, &x, err)))
        return rc;
    return check_choice(r, where, an, path, err);
}

/* A row's M and its index, to find an M given twice by sorting (a file of many rows). */
typedef struct row_m {
    double m;
    int i;
} row_m;

static int row_m_cmp(const void *a, const void *b)
{
    const row_m *x = a, *y = b;
    return x->m != y->m ? (x->m > y->m) - (x->m < y->m) : (x->i > y->i) - (x->i < y->i);
}

/* One row an M (which of two would be drawn?): the first row whose M an earlier one has. */
static int check_unique(const cJSON *rows, const char *path, mb_error *err)
{
    const int n = cJSON_GetArraySize(rows);
    row_m *v = malloc((size_t)n * sizeof *v);
    if (!v)
        return mb_error_set(err, MB_ENOMEM, "%s: out of memory for %d rows", path, n);
    const cJSON *r;
    int k = 0, rc = MB_OK;
    cJSON_ArrayForEach(r, rows)
    {
        v[k].m = mb_json_get(r, "batch");
        v[k].i = k;
        k++;
    }
    qsort(v, (size_t)n, sizeof *v, row_m_cmp);
    /* each M's rows are a run, by index: its second repeats its first; the earliest such */
    int at = -1, first = -1;
    for (int j = 1; j < n; j++)
        if (v[j].m == v[j - 1].m && (j < 2 || v[j - 2].m != v[j].m) && (at < 0 || v[j].i < at))
            at = v[j].i, first = v[j - 1].i;
    if (at >= 0)
        rc = mb_error_set(err, MB_EFORMAT, "%s: field 'batches[%d].batch': M = %g is also "
                          "batches[%d]'s", path, at, mb_json_get(cJSON_GetArrayItem(rows, at),
                                                                 "batch"), first);
    free(v);
    return rc;
}

/* The file's drawn values (campaign 19's G2: a negative time, M = 2.5, text for the memory,
 * "feasible": "yes" and every row twice were drawn; device_bytes -1 failed in gnuplot): the
 * device's bytes (> 0), the title's net and workspace (text that cannot end gnuplot's quoted
 * string), the backend (a string, when there: the algorithms' names are its), and every row. */
static int check_conv(const cJSON *root, const cJSON *rows, const char *path, mb_error *err)
{
    double x, device;
    int rc = mb_plot_field(root, "", "device_bytes", F_REQUIRED | F_POS, path, &device, err);
    static const char *const text[] = {"net", "workspace"};
    const char *said;
    for (int k = 0; rc == MB_OK && k < 2; k++)
        rc = mb_plot_text(root, "", text[k], path, &said, err);
    const cJSON *be = cJSON_GetObjectItemCaseSensitive(root, "backend");
    if (rc == MB_OK && be && !cJSON_IsString(be) && !cJSON_IsNull(be))
        rc = mb_error_set(err, MB_EFORMAT, "%s: field 'backend': not a string or null", path);
    /* the backends mbopt conv reads (its table's cpu or cuda): "CPU", "" or "tpu" would draw
     * any name unchecked (campaign 22's Q7) */
    if (rc == MB_OK && cJSON_IsString(be) && strcmp(be->valuestring, "cpu") != 0 &&
        strcmp(be->valuestring, "cuda") != 0)
        rc = mb_error_set(err, MB_EFORMAT, "%s: field 'backend': '%s' is not cpu or cuda", path,
                          be->valuestring);
    algo_names an = {NULL, NULL};
    if (!be || (cJSON_IsString(be) && strcmp(be->valuestring, "cpu") == 0))
        an = (algo_names){mb_conv_algo_nth, be ? "a CPU convolution algorithm"
                                               : "a convolution algorithm of the CPU, the backend "
                                                 "of a file that names none"};
    const cJSON *r;
    int i = 0, among = 0;
    cJSON_ArrayForEach(r, rows)
    {
        if (rc != MB_OK)
            break;
        rc = check_row(r, i++, device, &an, path, err);
    }
    if (rc == MB_OK)
        rc = check_unique(rows, path, err);
    /* the fastest M is one of the rows (campaign 21's N10: 999 among 2, 4, 8), a feasible one
     * (campaign 31's N6: an M that does not fit was drawn as the fastest) */
    int at = 0, feasible = 0;
    if (rc == MB_OK &&
        (rc = mb_plot_field(root, "", "m_fastest", F_NULL | F_POS | F_INT, path, &x, err)) ==
            MB_OK && !isnan(x)) {
        cJSON_ArrayForEach(r, rows)
        {
            if (!among && mb_json_get(r, "batch") == x)
                among = 1, feasible = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "feasible"));
            at += !among;
        }
        if (!among)
            rc = mb_error_set(err, MB_EFORMAT, "%s: field 'm_fastest': M = %g is none of "
                              "'batches'", path, x);
        else if (!feasible)
            rc = mb_error_set(err, MB_EFORMAT, "%s: field 'm_fastest': M = %g is not feasible "
                              "(batches[%d].feasible is false)", path, x, at);
    }
    return rc;
}

int mb_plot_conv(const char *conv_json, const char *out, const mb_plot_options *o,
                 mb_error *err)
{
    cJSON *root;
    int rc = mb_json_read(conv_json, &root, err);
    if (rc != MB_OK)
        return rc;
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(root, "batches"), *r;
    if (!cJSON_IsArray(rows) || cJSON_GetArraySize(rows) == 0) {
        cJSON_Delete(root);
        return mb_error_set(err, MB_EFORMAT, "%s: no 'batches' array (is this 'mbopt conv "
                            "--json'?)", conv_json);
    }
    if ((rc = check_conv(root, rows, conv_json, err)) != MB_OK) {
        cJSON_Delete(root);
        return rc;
    }
    mb_plot *p;
    if ((rc = mb_plot_begin(&p, o, out, err)) != MB_OK) {
        cJSON_Delete(root);
        return rc;
    }
    const double device = mb_json_get(root, "device_bytes");
    
    /* feasible points; T_C where the law gave one; infeasible M along the device line */
    static const char *const blocks[3] = {"ok", "tc", "bad"};
    for (int k = 0; k < 3; k++) {
        mb_plot_block(p, blocks[k]);
        cJSON_ArrayForEach(r, rows)
        {
            int ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "feasible"));
            double m = mb_json_get(r, "batch");
            if (k == 0 && ok) {
                double v[4] = {m, mb_json_get(r, "t_update"), mib(mb_json_get(r, "mem_used")),
                               mib(mb_json_get(r, "model_bytes"))};
                mb_plot_row(p, v, 4);
            } else if (k == 1 && ok && isfinite(mb_json_get(r, "t_c"))) {
                double v[2] = {m, mb_json_get(r, "t_c")};
                mb_plot_row(p, v, 2);
            } else if (k == 2 && !ok) {
                double v[2] = {m, mib(device)};
                mb_plot_row(p, v, 2);
            }
        }
    }
    /* the changes, as dashed lines at the larger M of each pair that changed */
    const cJSON *prev = NULL;
    int arrows = 0;
    cJSON_ArrayForEach(r, rows)
    {
        if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "feasible")))
            continue;
        int n = prev ? changed(prev, r) : 0;
        if (n > 0) {
            double m = mb_json_get(r, "batch");
            mb_plot_cmd(p, "set arrow %d from %g, graph 0 to %g, graph 1 nohead dt 2 lc rgb "
                           "'#aa3333'", ++arrows, m, m);
            mb_plot_cmd(p, "set label %d '%d changed' at %g, graph 0.95 rotate by 90 right "
                           "font ',8' tc rgb '#aa3333'", arrows, n, m);
        }
        prev = r;
    }
    const char *net = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "net"));
    const char *ws = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "workspace"));
    mb_plot_cmd(p, "set multiplot layout 2,1 title \"Convolution algorithms per M (GLPK ILP, "
                   "%s workspace): %s\" noenhanced", ws ? ws : "shared", net ? net : "?");
    mb_plot_cmd(p, "set grid xtics ytics lc rgb '#dddddd'");
    mb_plot_cmd(p, "set key top left box opaque");
    double lo = INFINITY, hi = -INFINITY; /* one M axis for both panels, infeasible M too */
    cJSON_ArrayForEach(r, rows)
    {
        lo = fmin(lo, mb_json_get(r, "batch"));
        hi = fmax(hi, mb_json_get(r, "batch"));
    }
    if (lo < hi)
        mb_plot_cmd(p, "set xrange [%g:%g]", lo, hi);
    mb_plot_cmd(p, "set termoption noenhanced");
    mb_plot_cmd(p, "set logscale x 2");
    mb_plot_cmd(p, "set logscale y");
    mb_plot_cmd(p, "set xlabel 'mini-batch size M'");
    mb_plot_cmd(p, "set ylabel 's per update (conv layers)'");
    if (mb_plot_block_points(p, "tc") > 0) {
        mb_plot_cmd(p, "set y2label 'time to converge T_C (s)'");
        mb_plot_cmd(p, "set y2tics");
        mb_plot_cmd(p, "set logscale y2");
        mb_plot_cmd(p, "plot $ok u 1:2 w lp pt 7 lw 2 t 'T_update (ILP optimum)', "
                       "$tc u 1:2 axes x1y2 w lp pt 5 lw 2 t 'T_C = N_update x T_update'");
        mb_plot_cmd(p, "unset y2label");
        mb_plot_cmd(p, "unset y2tics");
    } else {
        mb_plot_cmd(p, "plot $ok u 1:2 w lp pt 7 lw 2 t 'T_update (ILP optimum)'");
    }
    mb_plot_cmd(p, "unset logscale y");
    mb_plot_cmd(p, "set ylabel 'memory (MiB)'");
    mb_plot_cmd(p, "set yrange [*:%g]", 1.03 * mib(device));
    char bad[128] = "";
    if (mb_plot_block_points(p, "bad") > 0)
        snprintf(bad, sizeof bad, ", $bad u 1:2 w p pt 2 ps 2 lc rgb 'red' t 'infeasible'");
    mb_plot_cmd(p, "plot $ok u 1:3 w lp pt 7 lw 2 t 'used: model + chosen workspace', "
                   "$ok u 1:4 w lp pt 4 t 'model (Zou eq. 1-4)', "
                   "%g w l dt 3 lc rgb 'black' t 'device'%s", mib(device), bad);
    mb_plot_cmd(p, "unset multiplot");
    cJSON_Delete(root);
    static const char *const need[] = {"ok", NULL};
    return mb_plot_finish(p, need, err);
}
