/* mbopt_mem.c — `mbopt mem` (the memory a network holds at each M, Zou et al. eq. 1-5) and
 * `mbopt conv` (one convolution algorithm per layer and pass for each M: the GLPK ILP, eq. 6).
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

/* ---- mbopt mem and mbopt conv: the memory model and the convolution ILP ---------------------- */

enum { OPT_NET = 512, OPT_MEM, OPT_BATCH, OPT_PROBE, OPT_GRAD_COPIES, OPT_STATE_COPIES,
       OPT_WORKSPACE, OPT_WS_LIMIT, OPT_MICRO, OPT_TIME_LIMIT, OPT_BACKEND, OPT_CONV_LAW };

static double mib(double b) { return b / (1024.0 * 1024.0); }

static void mem_help(void)
{
    mb_mem_options d;
    mb_model_mem_defaults(&d);
    printf("Usage: mbopt mem --net NAME|FILE --mem SIZE [--batch LIST]\n"
           "The memory a network holds on one device while it trains (Zou et al. 2017,\n"
           "eq. 1-5): parameters, gradients, optimiser state, the input and the feature maps\n"
           "kept for the backward pass, and the largest convolution workspace (the explicit-\n"
           "GEMM lowering, in_c k^2 out_h out_w values per sample); per layer, then in total\n"
           "for each M, with M_bound = device - model (the memory left for workspaces) and\n"
           "the largest M that fits.\n\n"
           "      --net NAME|FILE     network description (data/nets/NAME.cfg)\n"
           "      --mem SIZE          device memory, K/M/G = 2^10/2^20/2^30 (e.g. 12G)\n"
           "      --batch LIST        mini-batch sizes: lo:hi (doubling) or a list (default 1:256)\n"
           "      --grad-copies N     gradient blocks per parameter, 1 to 64 (default %g; Zou\n"
           "                          et al. 2)\n"
           "      --state-copies N    optimiser state per parameter: 0 SGD, 1 momentum, 2 Adam\n"
           "                          (default %g)\n"
           "      --json              write JSON\n"
           "  -o, --output FILE       write to FILE instead of standard output\n"
           "  -h, --help              show this help and exit\n\n"
           "Example:\n"
           "  mbopt mem --net alexnet --mem 12G --batch 64,128,256\n",
           d.grad_copies, d.state_copies);
}

static const char *mem_kind_name(mb_mem_kind k)
{
    static const char *const n[] = {"conv", "pool", "fc", "inplace", "bn", "join"};
    return (int)k >= 0 && (int)k <= 5 ? n[k] : "?";
}

/* Options shared by mem and conv: the net, the device, the batches, the memory model. */
typedef struct mem_cli {
    const char *net;
    double device;          /* bytes, NAN until --mem */
    mb_range batch;
    mb_mem_options mem;
} mem_cli;

static int mem_option(mem_cli *m, int c, const char *arg, mb_error *err)
{
    switch (c) {
    case OPT_NET: m->net = arg; return 1;
    case OPT_MEM:
        return mb_data_flag_whole("--mem", arg, 1, 1, MB_DATA_RANGE_MAX, &m->device, err) ? -1 : 1;
    case OPT_BATCH:
        mb_data_range_free(&m->batch);
        /* at most 2^30, the largest mini-batch, each end of lo:hi as written (campaign 26's
         * H070: 1:4000000000 named 2147483648, the first doubling past 2^30) */
        if (mb_data_parse_counts(arg, "--batch", 1, 1 << 30, &m->batch, err))
            return -1;
        return 1;
    case OPT_GRAD_COPIES:
        /* a trained parameter has a gradient: 0 copies left them out of memory unsaid
         * (campaign 21's N19) */
        return mb_data_flag_whole("--grad-copies", arg, 0, 1, 64, &m->mem.grad_copies, err) ? -1 : 1;
    case OPT_STATE_COPIES:
        return mb_data_flag_whole("--state-copies", arg, 0, 0, 64, &m->mem.state_copies, err) ? -1 : 1;
    default: return 0;
    }
}

#define MEM_LONGOPTS                                                                              \
    {"net", required_argument, 0, OPT_NET}, {"mem", required_argument, 0, OPT_MEM},              \
        {"batch", required_argument, 0, OPT_BATCH},                                               \
        {"grad-copies", required_argument, 0, OPT_GRAD_COPIES},                                   \
        {"state-copies", required_argument, 0, OPT_STATE_COPIES}

/* Whole batch sizes >= 1 only: M counts samples. */
static int whole_batches(const mb_range *r, mb_error *err)
{
    char v[32];
    for (size_t i = 0; i < r->n; i++)
        if (r->v[i] != floor(r->v[i]))
            return mb_error_set(err, MB_EINVAL, "--batch: %s is not a whole number of samples",
                                mb_data_fmt_exact(v, sizeof v, r->v[i]));
        else if (r->v[i] > 1 << 30)
            return mb_error_set(err, MB_EINVAL, "--batch: %s is out of range: batch sizes are "
                                "whole numbers in [1, 1073741824] (2^30)",
                                mb_data_fmt_exact(v, sizeof v, r->v[i]));
    return MB_OK;
}

static cJSON *mem_json(const mb_net_desc *d, const mb_mem_layer *ml, const mem_cli *m,
                       const mb_mem_total *tot, const double *bound, double mmax)
{
    cJSON *j = cJSON_CreateObject(), *layers = cJSON_AddArrayToObject(j, "layers");
    cJSON_AddStringToObject(j, "net", d->name);
    mb_json_add_number(j, "device_bytes", m->device);
    mb_json_add_number(j, "grad_copies", m->mem.grad_copies);
    mb_json_add_number(j, "state_copies", m->mem.state_copies);
    mb_json_add_number(j, "m_max", mmax);
    for (size_t i = 0; i < d->n_layers; i++) {
        mb_mem_bytes b;
        if (mb_model_mem_layer(&ml[i], 1, &m->mem, &b) != MB_OK)
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "layer", d->layers[i].name);
        cJSON_AddStringToObject(o, "kind", mem_kind_name(ml[i].kind));
        mb_json_add_number(o, "param_bytes", b.params);
        mb_json_add_number(o, "fmap_bytes_per_sample", b.fmap);
        mb_json_add_number(o, "workspace_bytes_per_sample", b.workspace);
        cJSON_AddItemToArray(layers, o);
    }
    cJSON *rows = cJSON_AddArrayToObject(j, "batches");
    for (size_t i = 0; i < m->batch.n; i++) {
        const mb_mem_total *t = &tot[i];
        cJSON *o = cJSON_CreateObject();
        mb_json_add_number(o, "batch", m->batch.v[i]);
        mb_json_add_number(o, "params", t->params);
        mb_json_add_number(o, "grads", t->grads);
        mb_json_add_number(o, "state", t->state);
        mb_json_add_number(o, "input", t->input);
        mb_json_add_number(o, "fmaps", t->fmaps);
        mb_json_add_number(o, "workspace", t->workspace);
        cJSON_AddStringToObject(o, "workspace_layer", d->layers[t->ws_layer].name);
        mb_json_add_number(o, "total", t->total);
        mb_json_add_number(o, "m_bound", bound[i]);
        cJSON_AddBoolToObject(o, "fits", t->total <= m->device);
        cJSON_AddItemToArray(rows, o);
    }
    return j;
}

static void mem_print(FILE *f, const mb_net_desc *d, const mb_mem_layer *ml, const mem_cli *m,
                      const mb_mem_total *tot, const double *bound, double mmax)
{
    fprintf(f, "# net %s; device %.1f MiB; float32; gradients x%g, optimiser state x%g "
            "(Zou et al. 2017, eq. 1-5)\n", d->name, mib(m->device), m->mem.grad_copies,
            m->mem.state_copies);
    fprintf(f, "%-16s %-7s %-14s %12s %14s %16s\n", "layer", "kind", "output", "params_MiB",
            "fmap_KiB/sample", "gemm_ws_KiB/sample");
    for (size_t i = 0; i < d->n_layers; i++) {
        mb_mem_bytes b;
        if ((ml[i].kind == MB_MEM_ELEMENTWISE && !ml[i].kept) ||
            mb_model_mem_layer(&ml[i], 1, &m->mem, &b))
            continue;
        char shape[48];
        snprintf(shape, sizeof shape, "%dx%dx%d", ml[i].out_c, ml[i].out_h, ml[i].out_w);
        fprintf(f, "%-16s %-7s %-14s %12.3f %14.1f %16.1f\n", d->layers[i].name,
                mem_kind_name(ml[i].kind), shape, mib(b.params), b.fmap / 1024,
                b.workspace / 1024);
    }
    fprintf(f, "\n%-7s %10s %10s %10s %10s %10s %10s %-10s %10s %12s\n", "M", "params", "grads",
            "state", "input", "fmaps", "workspace", "(layer)", "total", "M_bound");
    for (size_t i = 0; i < m->batch.n; i++) {
        const mb_mem_total *t = &tot[i];
        fprintf(f, "%-7g %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f %-10s %10.1f %12.1f%s\n",
                m->batch.v[i], mib(t->params), mib(t->grads), mib(t->state), mib(t->input),
                mib(t->fmaps), mib(t->workspace), d->layers[t->ws_layer].name, mib(t->total),
                mib(bound[i]), t->total > m->device ? "  does not fit" : "");
    }
    fprintf(f, "(MiB; M_bound = device - everything but the workspace, Zou eq. 5)\n");
    if (mmax >= 1)
        fprintf(f, "largest M that fits %.1f MiB with the GEMM workspace: %.0f\n", mib(m->device),
                mmax);
    else
        fprintf(f, "even M = 1 does not fit %.1f MiB\n", mib(m->device));
}

int mbopt_mem(int argc, char **argv)
{
    const char *sub = "mem";
    static const struct option lo[] = {MEM_LONGOPTS,
                                       {"json", no_argument, 0, OPT_JSON},
                                       {"output", required_argument, 0, 'o'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
    mem_cli m = {.device = NAN};
    mb_model_mem_defaults(&m.mem);
    out_opts out = {0, "-"};
    mb_error err = {0};
    int c, status = 1;
    mb_cli_seen seen = {prog, sub, NULL, {0}, NULL};
    while ((c = mb_cli_getopt(argc, argv, ":ho:", lo, &seen)) != -1) {
        int r = mem_option(&m, c, optarg, &err);
        if (r < 0) {
            mb_data_range_free(&m.batch);
            return mb_cli_fail(prog, sub, &err);
        }
        if (r > 0)
            continue;
        switch (c) {
        case OPT_JSON: out.json = 1; break;
        case 'o': out.output = optarg; break;
        case 'h': mem_help(); mb_data_range_free(&m.batch); return 0;
        default: mb_data_range_free(&m.batch); return mb_cli_bad_option(prog, sub, argv, optind, c);
        }
    }
    int usage = optind < argc ? 1 : !m.net ? 2 : isnan(m.device) ? 3 : 0;
    if (usage) {
        mb_data_range_free(&m.batch);
        return usage == 1 ? mb_cli_usage(prog, sub, "unexpected argument '%s'", argv[optind])
               : usage == 2 ? mb_cli_usage(prog, sub, "missing --net")
                            : mb_cli_usage(prog, sub, "missing --mem");
    }
    mb_net_desc *d = NULL;
    mb_mem_layer *ml = NULL;
    mb_mem_total *tot = NULL;
    double *bound = NULL, mmax = 0;
    char *ins[] = {(char *)m.net};
    if ((!m.batch.n && mb_data_parse_range("1:256", "--batch", &m.batch, &err) != MB_OK) ||
        whole_batches(&m.batch, &err) != MB_OK ||
        output_over_inputs(out.output, NULL, 1, ins, &err) != MB_OK ||
        mb_net_desc_read(m.net, &d, &err) != MB_OK) {
        mb_cli_fail(prog, sub, &err);
        goto done;
    }
    ml = calloc(d->n_layers, sizeof *ml);
    tot = calloc(m.batch.n, sizeof *tot);
    bound = calloc(m.batch.n, sizeof *bound);
    if (!ml || !tot || !bound) {
        fprintf(stderr, "%s %s: out of memory\n", prog, sub);
        goto done;
    }
    mb_solver_mem_layers(d, ml);
    for (size_t i = 0; i < m.batch.n; i++)
        if (mb_model_mem(ml, d->n_layers, m.batch.v[i], &m.mem, &tot[i]) != MB_OK ||
            mb_model_mem_bound(ml, d->n_layers, m.batch.v[i], &m.mem, m.device, &bound[i])) {
            mb_error_set(&err, MB_EDOM, "net '%s': the memory model cannot be evaluated", d->name);
            mb_cli_fail(prog, sub, &err);
            goto done;
        }
    mb_model_mem_max_batch(ml, d->n_layers, &m.mem, m.device, &mmax);
    if (out.json) {
        status = emit_json(sub, mem_json(d, ml, &m, tot, bound, mmax), &out);
        goto done;
    }
    mb_out o;
    if (mb_out_open(&o, out.output, &err) != MB_OK) {
        mb_cli_fail(prog, sub, &err);
        goto done;
    }
    mem_print(o.f, d, ml, &m, tot, bound, mmax);
    status = mb_out_commit(&o, &err) == MB_OK ? 0 : mb_cli_fail(prog, sub, &err);
done:
    free(ml), free(tot), free(bound);
    mb_net_desc_free(d);
    mb_data_range_free(&m.batch);
    return status;
}

static void conv_help(void)
{
    printf("Usage: mbopt conv --net NAME|FILE --probe CONV.csv --mem SIZE --batch LIST\n"
           "                  [--nfit N.json] [OPTION]...\n"
           "Chooses one convolution algorithm per layer and pass for every mini-batch size M:\n"
           "the integer program of Zou et al. 2017 (eq. 6) solved with GLPK, minimising the\n"
           "summed time of the probe table (mbprobe conv) subject to the chosen workspace\n"
           "fitting in the memory the model leaves at M (M_bound, eq. 5; see mbopt mem).\n"
           "Prints the time per update, the memory used and where the choice changes as M\n"
           "grows; with --nfit, the M that minimises T_C = N_update(M) x T_update(M) against\n"
           "the M that maximises samples per second.\n\n"
           "      --net NAME|FILE     network description (data/nets/NAME.cfg)\n"
           "      --probe FILE        convolution table: layer,algo,pass,batch,t_median_s,\n"
           "                          workspace_bytes (optional status and backend columns)\n"
           "      --mem SIZE          device memory, K/M/G = 2^10/2^20/2^30\n"
           "      --batch LIST        mini-batch sizes: lo:hi (doubling) or a list\n"
           "      --nfit FILE         N_update fit from 'mbfit nupdate --json'\n"
           "      --law NAME          optimise this law of --nfit: inverse-law, power-law,\n"
           "                          shifted-law\n"
           "      --workspace MODE    shared (default): one buffer for all layers, W = max of\n"
           "                          the choices, as frameworks allocate it; sum: each layer\n"
           "                          its own (Zou et al.'s eq. 6)\n"
           "      --ws-limit SIZE     per-layer workspace limit (as cuDNN's workspace limit)\n"
           "      --micro-batch       also split M into micro-batches of the table's batch\n"
           "                          sizes that divide it (mu-cuDNN): time M/m x t(m),\n"
           "                          workspace of m\n"
           "      --time-limit S      seconds the programs of every M may take together\n"
           "                          (default %g); past it, an error, not an unproven choice\n"
           "      --backend NAME      the table's rows for this backend (when it has several)\n"
           "      --grad-copies N     gradient blocks per parameter, 1 to 64 (default 1)\n"
           "      --state-copies N    optimiser state per parameter (default 1: momentum)\n"
           "      --json              write JSON (every M's choice)\n"
           "  -o, --output FILE       write to FILE instead of standard output\n"
           "  -h, --help              show this help and exit\n\n"
           "T_update here is the convolutions' time (forward and both backward passes), not\n"
           "the whole step's: pooling, fully connected layers and the optimiser are not in\n"
           "the table.\n\n"
           "Example:\n"
           "  mbprobe conv --net alexnet --batch 2,4,8 -o conv.csv\n"
           "  mbopt conv --net alexnet --probe conv.csv --mem 12G --batch 2,4,8\n", MB_CILP_BUDGET);
}

/* "conv1 forward gemm" or with a micro-batch "conv1 forward gemm/4". */
static const char *pick_label(char *buf, size_t n, const mb_cilp_pick *p, double m)
{
    if (p->micro < m)
        snprintf(buf, n, "%s/%d", p->algo, p->micro);
    else
        snprintf(buf, n, "%s", p->algo);
    return buf;
}

static int pick_same(const mb_cilp_pick *a, const mb_cilp_pick *b, double ma, double mb)
{
    return strcmp(a->algo, b->algo) == 0 && (a->micro < ma) == (b->micro < mb) &&
           (a->micro >= ma || a->micro == b->micro);
}

/* Whether M lies outside the nfit's converged range rng ([NAN, NAN]: the fit has none, and
 * nothing is outside it): the law is extrapolated there (campaign 45's B-F5). */
static int conv_outside(const double rng[2], double m)
{
    return isfinite(rng[0]) && isfinite(rng[1]) && (m < rng[0] || m > rng[1]);
}

/* The least T_C among the feasible M inside the converged range (-1: none there): the optimum
 * is sought where the law was fitted, as mbopt scale and validate seek it. */
static long conv_best_in_range(const double *tc, const mb_cilp_point *res, size_t nm,
                               const double rng[2])
{
    long best = -1;
    for (size_t i = 0; i < nm; i++)
        if (res[i].feasible && !isnan(tc[i]) && !conv_outside(rng, res[i].m) &&
            (best < 0 || tc[i] < tc[best]))
            best = (long)i;
    return best;
}

static cJSON *conv_json(const mb_net_desc *d, const char *probe, const char *backend,
                        const mb_cilp_options *o, const mb_cilp_point *res, size_t nm, const double *tc, long best_tc,
                        long best_rate, const char *nfit, const mb_law *law, const double rng[2])
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "net", d->name);
    cJSON_AddStringToObject(j, "probe", probe);
    /* the table's (null: it has no backend column): choice.algo names its algorithms */
    if (*backend)
        cJSON_AddStringToObject(j, "backend", backend);
    else
        cJSON_AddNullToObject(j, "backend");
    mb_json_add_number(j, "device_bytes", o->device_bytes);
    cJSON_AddStringToObject(j, "workspace", mb_solver_ws_mode_name(o->mode));
    mb_json_add_number(j, "ws_limit", o->ws_limit);
    cJSON_AddBoolToObject(j, "micro_batch", o->micro);
    if (nfit) {
        cJSON_AddStringToObject(j, "nfit", nfit);
        cJSON_AddStringToObject(j, "law", mb_model_law_name(law->kind));
    }
    cJSON *rows = cJSON_AddArrayToObject(j, "batches");
    for (size_t i = 0; i < nm; i++) {
        const mb_cilp_point *p = &res[i];
        cJSON *r = cJSON_CreateObject();
        mb_json_add_number(r, "batch", p->m);
        cJSON_AddBoolToObject(r, "feasible", p->feasible);
        mb_json_add_number(r, "t_update", p->t_update);
        mb_json_add_number(r, "samples_per_s", p->samples_per_s);
        mb_json_add_number(r, "workspace_bytes", p->ws);
        mb_json_add_number(r, "model_bytes", p->model_bytes);
        mb_json_add_number(r, "mem_used", p->mem_used);
        mb_json_add_number(r, "m_bound", p->avail);
        if (nfit)
            mb_json_add_number(r, "t_c", tc[i]);
        if (nfit && conv_outside(rng, p->m)) /* the law outside its converged range */
            cJSON_AddBoolToObject(r, "extrapolated", 1);
        if (!p->feasible)
            cJSON_AddStringToObject(r, "why", p->why);
        cJSON *picks = cJSON_AddArrayToObject(r, "choice");
        for (size_t k = 0; k < p->n_picks; k++) {
            cJSON *q = cJSON_CreateObject();
            cJSON_AddStringToObject(q, "layer", p->picks[k].layer);
            cJSON_AddStringToObject(q, "pass", p->picks[k].pass);
            cJSON_AddStringToObject(q, "algo", p->picks[k].algo);
            mb_json_add_number(q, "micro_batch", p->picks[k].micro);
            mb_json_add_number(q, "t", p->picks[k].t);
            mb_json_add_number(q, "workspace_bytes", p->picks[k].ws);
            cJSON_AddItemToArray(picks, q);
        }
        cJSON_AddItemToArray(rows, r);
    }
    if (best_rate >= 0)
        mb_json_add_number(j, "m_fastest", res[best_rate].m);
    if (best_tc >= 0) {
        mb_json_add_number(j, "m_opt", res[best_tc].m);
        mb_json_add_number(j, "t_c", tc[best_tc]);
        mb_json_add_number(j, "t_c_at_fastest", tc[best_rate]);
    }
    return j;
}

static void conv_print(FILE *f, const mb_net_desc *d, const char *probe, const char *backend,
                       const mb_cilp_options *o, const mb_cilp_point *res, size_t nm,
                       const double *tc, long best_tc, long best_rate, const char *nfit,
                       const mb_law *law, const double rng[2])
{
    char lim[32] = "none";
    if (isfinite(o->ws_limit))
        snprintf(lim, sizeof lim, "%.1f MiB", mib(o->ws_limit));
    fprintf(f, "# net %s; table %s%s%s; device %.1f MiB; workspace %s; per-layer limit %s; "
            "micro-batches %s\n", d->name, probe, *backend ? ", backend " : "", backend,
            mib(o->device_bytes), mb_solver_ws_mode_name(o->mode), lim, o->micro ? "on" : "off");
    if (nfit)
        fprintf(f, "# N_update(M): %s of %s\n", mb_model_law_name(law->kind), nfit);
    if (nfit && isfinite(rng[0]) && isfinite(rng[1]))
        fprintf(f, "# the fit's converged range is M = %g..%g: T_C outside it is extrapolated "
                   "(marked so) and not sought\n", rng[0], rng[1]);
    fprintf(f, "%-7s %12s %12s %12s %12s %12s", "M", "t_update_s", "samples/s", "workspace",
            "memory", "M_bound");
    if (nfit)
        fprintf(f, " %12s %12s", "n_update", "t_c_s");
    fprintf(f, "\n");
    for (size_t i = 0; i < nm; i++) {
        const mb_cilp_point *p = &res[i];
        if (!p->feasible) {
            fprintf(f, "%-7g infeasible: %s\n", p->m, p->why);
            continue;
        }
        fprintf(f, "%-7g %12.6g %12.6g %8.1f MiB %8.1f MiB %8.1f MiB", p->m, p->t_update,
                p->samples_per_s, mib(p->ws), mib(p->mem_used), mib(p->avail));
        if (nfit && isnan(tc[i])) /* the law has no value here: not a result */
            fprintf(f, " %12s %12s", "-", "-");
        else if (nfit)
            fprintf(f, " %12.6g %12.6g%s", tc[i] / p->t_update, tc[i],
                    conv_outside(rng, p->m) ? "  extrapolated" : "");
        fprintf(f, "\n");
    }
    long first = -1;
    for (size_t i = 0; i < nm && first < 0; i++)
        if (res[i].feasible)
            first = (long)i;
    if (first < 0)
        return;
    const mb_cilp_point *p0 = &res[first];
    char a[96];
    fprintf(f, "\nchoice at M = %g:\n", p0->m);
    for (size_t k = 0; k < p0->n_picks; k++)
        fprintf(f, "  %-18s %-16s %-22s %10.4g s %10.1f MiB\n", p0->picks[k].layer,
                p0->picks[k].pass, pick_label(a, sizeof a, &p0->picks[k], p0->m), p0->picks[k].t,
                mib(p0->picks[k].ws));
    const mb_cilp_point *prev = p0;
    size_t changes = 0;
    for (size_t i = (size_t)first + 1; i < nm; i++) {
        const mb_cilp_point *p = &res[i];
        if (!p->feasible || p->n_picks != prev->n_picks)
            continue;
        for (size_t k = 0; k < p->n_picks; k++) {
            if (pick_same(&prev->picks[k], &p->picks[k], prev->m, p->m))
                continue;
            char b[96];
            if (!changes++)
                fprintf(f, "\nwhere the choice changes as M grows:\n");
            fprintf(f, "  M %g -> %g: %s %s %s -> %s\n", prev->m, p->m, p->picks[k].layer,
                    p->picks[k].pass, pick_label(a, sizeof a, &prev->picks[k], prev->m),
                    pick_label(b, sizeof b, &p->picks[k], p->m));
        }
        prev = p;
    }
    if (!changes)
        fprintf(f, "\nthe choice is the same at every feasible M\n");
    fprintf(f, "\nfastest per sample: M = %g (%.6g samples/s)\n", res[best_rate].m,
            res[best_rate].samples_per_s);
    if (nfit && best_tc < 0 && conv_best_in_range(tc, res, nm, (double[2]){NAN, NAN}) >= 0)
        fprintf(f, "least time to converge: none: no feasible M of --batch lies in the fit's "
                   "converged range %g..%g\n", rng[0], rng[1]);
    else if (nfit && best_tc < 0)
        fprintf(f, "least time to converge: none: the law has no value at any feasible M\n");
    if (nfit && law->kind == MB_LAW_SHIFTED && res[0].feasible && isnan(tc[0]))
        fprintf(f, "no T_C at M <= %g: the shifted law has no value at or below its M_0 = %.4g "
                   "(the target is out of reach there at this learning rate)\n", law->m0,
                law->m0);
    if (nfit && best_tc >= 0) {
        fprintf(f, "least time to converge: M = %g, T_C = %.6g s (N_update %.6g x T_update "
                "%.6g s)\n", res[best_tc].m, tc[best_tc], tc[best_tc] / res[best_tc].t_update,
                res[best_tc].t_update);
        char x[32];
        if (best_tc != best_rate && !isnan(tc[best_rate]))
            fprintf(f, "the fastest-per-sample M = %g would take T_C = %.6g s, %s as long%s\n",
                    res[best_rate].m, tc[best_rate],
                    fmt(x, sizeof x, "%.2fx", tc[best_rate] / tc[best_tc]),
                    conv_outside(rng, res[best_rate].m) ? " (extrapolated: outside the fit's "
                                                          "converged range)" : "");
        else if (best_tc == best_rate)
            fprintf(f, "the two agree here\n");
    }
}

/* The --nfit of --net's network, where the fit says (model_same_workload, as mbopt scale checks
 * an nfit against its tfit): campaign 23, R9 priced lenet5's N_update with another net's
 * T_update. */
static int conv_nfit_of_net(const char *net, const mb_net_desc *d, const char *nfit,
                            const mb_solver_nfit *nf, mb_error *err)
{
    char ref[64];
    const char *from = NULL;
    int rc = model_same_workload("net", net, d->name, ref, sizeof ref, &from, err);
    return rc == MB_OK ? model_same_workload("net", nfit, nf->net, ref, sizeof ref, &from, err)
                       : rc;
}

int mbopt_conv(int argc, char **argv)
{
    const char *sub = "conv";
    static const struct option lo[] = {MEM_LONGOPTS,
                                       {"probe", required_argument, 0, OPT_PROBE},
                                       {"nfit", required_argument, 0, OPT_NFIT},
                                       {"law", required_argument, 0, OPT_CONV_LAW},
                                       {"workspace", required_argument, 0, OPT_WORKSPACE},
                                       {"ws-limit", required_argument, 0, OPT_WS_LIMIT},
                                       {"time-limit", required_argument, 0, OPT_TIME_LIMIT},
                                       {"micro-batch", no_argument, 0, OPT_MICRO},
                                       {"backend", required_argument, 0, OPT_BACKEND},
                                       {"json", no_argument, 0, OPT_JSON},
                                       {"output", required_argument, 0, 'o'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
    mem_cli m = {.device = NAN};
    mb_cilp_options co;
    mb_solver_conv_defaults(&co);
    m.mem = co.mem;
    const char *probe = NULL, *nfit = NULL, *law_name = NULL, *backend = NULL;
    out_opts out = {0, "-"};
    mb_error err = {0};
    int c, status = 1;
    mb_cli_seen seen = {prog, sub, NULL, {0}, NULL};
    while ((c = mb_cli_getopt(argc, argv, ":ho:", lo, &seen)) != -1) {
        int r = mem_option(&m, c, optarg, &err), rc = MB_OK;
        if (r < 0) {
            mb_data_range_free(&m.batch);
            return mb_cli_fail(prog, sub, &err);
        }
        if (r > 0)
            continue;
        switch (c) {
        case OPT_PROBE: probe = optarg; break;
        case OPT_NFIT: nfit = optarg; break;
        case OPT_CONV_LAW: law_name = optarg; break;
        case OPT_BACKEND: backend = optarg; break;
        case OPT_MICRO: co.micro = 1; break;
        case OPT_TIME_LIMIT:
            rc = mb_data_flag_double("--time-limit", optarg, 0, MB_POSITIVE, &co.budget, &err);
            break;
        case OPT_WORKSPACE:
            if (mb_solver_ws_mode_parse(optarg, &co.mode) != MB_OK)
                rc = mb_error_set(&err, MB_EINVAL, "--workspace: '%s' is not shared or sum",
                                  optarg);
            break;
        case OPT_WS_LIMIT:
            rc = mb_data_flag_whole("--ws-limit", optarg, 1, 0, MB_DATA_RANGE_MAX, &co.ws_limit,
                                    &err);
            break;
        case OPT_JSON: out.json = 1; break;
        case 'o': out.output = optarg; break;
        case 'h': conv_help(); mb_data_range_free(&m.batch); return 0;
        default: mb_data_range_free(&m.batch); return mb_cli_bad_option(prog, sub, argv, optind, c);
        }
        if (rc != MB_OK) {
            mb_data_range_free(&m.batch);
            return mb_cli_fail(prog, sub, &err);
        }
    }
    const char *missing = !m.net ? "--net" : !probe ? "--probe" : isnan(m.device) ? "--mem"
                          : !m.batch.n ? "--batch" : NULL;
    if (optind < argc || missing || (law_name && !nfit)) {
        mb_data_range_free(&m.batch);
        return optind < argc ? mb_cli_usage(prog, sub, "unexpected argument '%s'", argv[optind])
               : missing     ? mb_cli_usage(prog, sub, "missing %s", missing)
                             : mb_cli_usage(prog, sub, "--law needs --nfit");
    }
    co.mem = m.mem;
    co.device_bytes = m.device;
    mb_net_desc *d = NULL;
    mb_cilp_table *t = NULL;
    mb_cilp_point *res = NULL;
    double *tc = NULL;
    mb_solver_nfit nf;
    long best_tc = -1, best_rate = -1;
    size_t nm = m.batch.n;
    char *ins[] = {(char *)probe, (char *)(nfit ? nfit : probe), (char *)m.net};
    if (whole_batches(&m.batch, &err) != MB_OK ||
        output_over_inputs(out.output, NULL, 3, ins, &err) != MB_OK ||
        mb_net_desc_read(m.net, &d, &err) != MB_OK ||
        mb_solver_conv_read(probe, backend, &t, &err) != MB_OK ||
        (nfit && (mb_solver_read_nfit(nfit, law_name, &nf, &err) != MB_OK ||
                  conv_nfit_of_net(m.net, d, nfit, &nf, &err) != MB_OK))) {
        mb_cli_fail(prog, sub, &err);
        goto done;
    }
    res = calloc(nm, sizeof *res);
    tc = calloc(nm, sizeof *tc);
    if (!res || !tc) {
        fprintf(stderr, "%s %s: out of memory\n", prog, sub);
        goto done;
    }
    if (mb_solver_conv_sweep(d, t, m.batch.v, nm, &co, res, &err) != MB_OK) {
        mb_cli_fail(prog, sub, &err);
        goto done;
    }
    mb_solver_conv_tc(nfit ? &nf.law : NULL, res, nm, tc, &best_tc, &best_rate);
    const double rng[2] = {nfit ? nf.m_lo : NAN, nfit ? nf.m_hi : NAN};
    if (nfit) /* sought inside the fit's converged range only (campaign 45's B-F5) */
        best_tc = conv_best_in_range(tc, res, nm, rng);
    if (best_rate < 0 && res[0].ws_limited) { /* campaign 40's B-F6: not memory's fault */
        mb_error_set(&err, MB_ENODATA, "no M of --batch runs: at M = %g, %s", res[0].m,
                     res[0].why);
        mb_cli_fail(prog, sub, &err);
        goto done;
    }
    if (best_rate < 0) {
        mb_error_set(&err, MB_ENODATA, "no M of --batch fits %.1f MiB: at M = %g, %s",
                     mib(m.device), res[0].m, res[0].why);
        mb_cli_fail(prog, sub, &err);
        goto done;
    }
    if (out.json) {
        status = emit_json(sub, conv_json(d, probe, mb_solver_conv_backend(t), &co, res, nm, tc, best_tc, best_rate, nfit,
                                          nfit ? &nf.law : NULL, rng), &out);
        goto done;
    }
    mb_out o;
    if (mb_out_open(&o, out.output, &err) != MB_OK) {
        mb_cli_fail(prog, sub, &err);
        goto done;
    }
    conv_print(o.f, d, probe, mb_solver_conv_backend(t), &co, res, nm, tc, best_tc, best_rate,
               nfit, nfit ? &nf.law : NULL, rng);
    status = mb_out_commit(&o, &err) == MB_OK ? 0 : mb_cli_fail(prog, sub, &err);
done:
    mb_solver_conv_results_free(res, nm);
    free(res), free(tc);
    mb_solver_conv_free(t);
    mb_net_desc_free(d);
    mb_data_range_free(&m.batch);
    return status;
}

