/* mbprobe_conv.c — `mbprobe conv`: every convolution algorithm per layer, pass and batch size,
 * cached (probe/conv.c).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../data/mb_parse.h"
#include "../data/mb_cli.h"
#include "../data/mb_output.h"
#include "../data/mb_format.h"
#include "../data/mb_dataset.h"
#include "mbprobe_cli.h"
#include "../train/backend/mb_backend.h"
#include "../train/run/mb_run.h"

/* ---- mbprobe conv ------------------------------------------------------------------------------ */

/* The default cache file: $XDG_CACHE_HOME/mbkit/conv.csv, else ~/.cache/mbkit/conv.csv. A
 * relative XDG_CACHE_HOME is ignored, as the XDG base directory specification says (campaign
 * 33's D16: `XDG_CACHE_HOME=rel` wrote rel/mbkit/conv.csv under whatever folder it ran in), and
 * a HOME that is no folder here gives no cache (campaign 34: HOME=/nonexistent made the folder
 * /nonexistent/.cache/mbkit, the home of no one). */
static int default_cache(char *buf, size_t n)
{
    const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    struct stat sb;
    if (x && *x == '/')
        return snprintf(buf, n, "%s/mbkit/conv.csv", x) < (int)n;
    if (home && *home && stat(home, &sb) == 0 && S_ISDIR(sb.st_mode))
        return snprintf(buf, n, "%s/.cache/mbkit/conv.csv", home) < (int)n;
    return 0;
}

/* The algorithm names of every pass of the context, as "gemm, direct, ..." (each once). */
static void algo_names(mb_ctx *ctx, char *buf, size_t n)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int q = 0; q < 3; q++)
        for (int a = 0; a < mb_ctx_conv_algo_count(ctx, (mb_conv_pass)q); a++) {
            const char *name = mb_ctx_conv_algo_name(ctx, (mb_conv_pass)q, a);
            int seen = 0;
            for (int e = 0; e < q && !seen; e++)
                seen = mb_ctx_conv_algo_find(ctx, (mb_conv_pass)e, name) >= 0;
            if (!seen && at < n)
                at += (size_t)snprintf(buf + at, n - at, "%s%s", at ? ", " : "", name);
        }
}

/* --algos as names, each one of some pass's algorithms on the context's backend, each once.
 * *names is one block with the names in it (free it); *buf is left NULL. */
static int parse_algos(mb_ctx *ctx, const char *arg, char **buf, const char ***names, size_t *n,
                       mb_error *err)
{
    *n = 0;
    *names = NULL;
    *buf = NULL;
    char **items;
    size_t k;
    int rc = mb_data_split_list(arg, "--algos", 0, &items, &k, err); /* no empty item */
    if (rc != MB_OK)
        return rc;
    *names = (const char **)items; /* one block: the caller frees it */
    for (size_t i = 0; i < k; i++) {
        char *t = items[i];
        int found = 0;
        for (int q = 0; q < 3 && !found; q++)
            found = mb_ctx_conv_algo_find(ctx, (mb_conv_pass)q, t) >= 0;
        if (!found) {
            char all[1024];
            algo_names(ctx, all, sizeof all);
            return mb_error_set(err, MB_EINVAL, "--algos: '%s' is not one of the %s backend's "
                                "algorithms (%s)", t, mb_backend_name(mb_ctx_backend(ctx)), all);
        }
        for (size_t i = 0; i < *n; i++)
            if (strcmp((*names)[i], t) == 0) /* it would be timed twice */
                return mb_error_set(err, MB_EINVAL, "--algos: '%s' given twice in '%s'", t, arg);
        (*names)[(*n)++] = t;
    }
    return MB_OK;
}

/* Progress: a row's time, or (once per layer, pass and algorithm) why it has none. */
typedef struct conv_print {
    int first_batch;
} conv_print;

static void conv_row_done(void *arg, const mb_probe_conv_row *r)
{
    const conv_print *pr = arg;
    if (r->status == MB_PROBE_CONV_UNSUPPORTED) {
        if (r->shape.batch == pr->first_batch)
            mb_cli_say(NULL, NULL, "%s: %s %s: listed as unsupported (%s)", r->layer,
                       r->algo_name, mb_conv_pass_name(r->pass), r->why);
        return;
    }
    if (r->status == MB_PROBE_CONV_NOMEM || r->status == MB_PROBE_CONV_OVER_BUDGET) {
        mb_cli_say(NULL, NULL, "%-8s %-15s %-9s M=%-5d %s (%s)", r->layer,
                   mb_conv_pass_name(r->pass), r->algo_name, r->shape.batch,
                   mb_probe_conv_status_name(r->status), r->why);
        return;
    }
    mb_cli_say(NULL, NULL, "%-8s %-15s %-9s M=%-5d %.3g s  workspace %zu B%s", r->layer,
               mb_conv_pass_name(r->pass), r->algo_name, r->shape.batch, r->st.median,
               r->workspace_bytes, r->status == MB_PROBE_CONV_CACHED ? " (cached)" : "");
}

static void conv_help(const mb_probe_options *o)
{
    printf("Usage: mbprobe conv [OPTION]...\n"
           "Times every convolution algorithm the backend offers for each pass (the CPU:\n"
           "gemm, direct, fft, winograd for every pass; cuDNN: its own list per pass) on every\n"
           "convolution layer of a network, per batch size, with the workspace bytes each\n"
           "needs, and writes the convolution table\n"
           "  layer,algo,pass,batch,t_median_s,workspace_bytes,reps,t_min_s,t_p25_s,\n"
           "  t_p75_s,t_max_s,in_c,in_h,in_w,out_c,k,stride,pad,status,backend,device\n"
           "status is measured, cached, unsupported (the algorithm cannot do the layer: no\n"
           "times) or out of memory (its workspace could not be allocated: no times, the\n"
           "workspace it asked for). A timed call is the pass and a device synchronisation.\n"
           "Points are cached per host, backend, device, threads, kernels (a hash of the\n"
           "backends' sources), layer shape, algorithm, pass and batch: a repeated sweep\n"
           "reads them back (status 'cached').\n\n"
           "      --net NAME|FILE   network description (default lenet5)\n"
           "      --batch LIST      batch sizes: lo:hi (doubling) or a list (1:256)\n"
           "      --algos LIST      comma list of algorithm names to time (default: all of\n"
           "                        each pass)\n"
           "      --threads N       OpenBLAS threads (CPU; default 1)\n");
    device_help();
    printf("      --cache FILE      the cache (default $XDG_CACHE_HOME/mbkit/conv.csv or\n"
           "                        ~/.cache/mbkit/conv.csv)\n"
           "      --no-cache        measure every point again (and do not store them)\n");
    harness_help(o);
    printf("  -o, --output FILE     write the table to FILE (atomically); default:\n"
           "                        standard output\n"
           "  -h, --help            show this help and exit\n\n"
           "Example:\n"
           "  mbprobe conv --net data/nets/cifar7.cfg --batch 16:128 -o conv.csv\n");
}

int cmd_conv(int argc, char **argv, int full_argc, char **full_argv)
{
    const char *sub = "conv";
    mb_probe_options o;
    mb_probe_options_init(&o);
    o.budget_s = 0.5;
    const char *net = "lenet5", *batch_arg = "1:256", *output = "-", *cache_path = NULL,
               *algos_arg = NULL;
    int use_cache = 1;
    long threads = 1;
    mb_ctx_options co;
    mb_ctx_options_init(&co);
    static const struct option longopts[] = {
        {"net", required_argument, 0, OPT_NET}, {"batch", required_argument, 0, OPT_BATCH},
        {"algos", required_argument, 0, OPT_ALGOS}, {"threads", required_argument, 0, OPT_THREADS},
        {"cache", required_argument, 0, OPT_CACHE}, {"no-cache", no_argument, 0, OPT_NO_CACHE},
        DEVICE_LONGOPTS, HARNESS_LONGOPTS, {"output", required_argument, 0, 'o'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    mb_error err = {0};
    int c, rc = MB_OK;
    optind = 1;
    mb_cli_seen seen = {prog, sub, NULL, {0}, NULL};
    while ((c = mb_cli_getopt(argc, argv, ":ho:", longopts, &seen)) != -1) {
        int d = device_option(&co.backend, &co.device, c, optarg, &err);
        if (d < 0)
            return mb_cli_fail(prog, sub, &err);
        if (d > 0)
            continue;
        switch (c) {
        case 'h': conv_help(&o); return 0;
        case 'o': output = optarg; break;
        case OPT_NET: net = optarg; break;
        case OPT_BATCH: batch_arg = optarg; break;
        case OPT_CACHE: cache_path = optarg; break;
        case OPT_NO_CACHE: use_cache = 0; break;
        case OPT_ALGOS: algos_arg = optarg; break;
        case OPT_THREADS:
            if (mb_data_parse_long(optarg, 1, MB_CTX_MAX_THREADS, &threads) != MB_OK) {
                char note[160];
                rc = mb_error_set(&err, MB_EINVAL, "--threads: '%s' is not a whole number in "
                                  "[1, %d]%s", optarg, MB_CTX_MAX_THREADS,
                                  mb_data_count_notation(optarg, 1, MB_CTX_MAX_THREADS, note,
                                                         sizeof note));
            }
            break;
        default: {
            int r = other_option(sub, &o, c, argv);
            if (r >= 0)
                return r;
        }
        }
        if (rc != MB_OK)
            return mb_cli_fail(prog, sub, &err);
    }
    if (optind < argc)
        return mb_cli_usage(prog, sub, "unexpected argument '%s'", argv[optind]);
    if (mb_cli_given(&seen, OPT_DEVICE) && co.backend == MB_BACKEND_CPU)
        return mb_cli_no_effect(prog, sub, "--device", "with --backend cpu (it picks the CUDA "
                                "device)");
    if (!use_cache && cache_path) /* one says store the points, the other not */
        return mb_cli_usage(prog, sub, "--cache and --no-cache: give one");
    int room = blas_room(sub, (int)threads, (int)threads - 1, 0); /* OpenBLAS's own threads */
    if (room >= 0)
        return room;
    char cache_buf[4096];
    if (use_cache && !cache_path)
        cache_path = default_cache(cache_buf, sizeof cache_buf) ? cache_buf : NULL;
    co.blas_threads = (int)threads;
    int *batch = NULL;
    size_t nb = 0, nalgos = 0, nrows = 0, measured = 0;
    char *algos_buf = NULL;
    const char **algos = NULL;
    mb_ctx *ctx = NULL;
    mb_net_desc *desc = NULL;
    mb_probe_cache *cache = NULL;
    mb_probe_conv_row *rows = NULL;
    int status = 1;
    if ((rc = mb_probe_options_check(&o, &err)) != MB_OK ||
        (rc = int_list(batch_arg, "--batch", 1 << 16, &batch, &nb, &err)) != MB_OK ||
        (rc = mb_ctx_create(&co, &ctx, &err)) != MB_OK ||
        (algos_arg && (rc = parse_algos(ctx, algos_arg, &algos_buf, &algos, &nalgos, &err)) !=
                          MB_OK) ||
        (rc = mb_net_desc_read(net, &desc, &err)) != MB_OK ||
        (rc = check_output(output, net, NULL, &err)) != MB_OK ||
        (use_cache && cache_path &&
         (rc = check_not_input("--cache", cache_path, net, NULL, &err)) != MB_OK) ||
        (use_cache && cache_path && mb_data_same_file(output, cache_path) &&
         (rc = mb_error_set(&err, MB_EINVAL, "-o %s and --cache %s are the same file", output,
                            cache_path)) != MB_OK) ||
        (use_cache && cache_path && (rc = mb_probe_cache_open(cache_path, &cache, &err)) != MB_OK)) {
        mb_cli_fail(prog, sub, &err);
        goto done;
    }
    mb_probe_host host;
    mb_probe_host_read(&host);
    char hostname[128] = "unknown";
    gethostname(hostname, sizeof hostname - 1);
    conv_print pr = {batch[0]};
    mb_probe_conv_plan plan = {.ctx = ctx, .desc = desc, .batch = batch, .n_batch = nb,
                               .algos = algos, .n_algos = nalgos, .o = &o, .cache = cache,
                               .hostname = hostname, .threads = (int)threads,
                               .row_done = conv_row_done, .arg = &pr};
    if ((rc = mb_probe_conv_run(&plan, &rows, &nrows, &measured, &err)) != MB_OK) {
        mb_cli_fail(prog, sub, &err);
        goto done;
    }
    mb_out out;
    if (mb_out_open(&out, output, &err) != MB_OK) {
        mb_cli_fail(prog, sub, &err);
        goto done;
    }
    mb_probe_write_meta(out.f, "mbprobe conv", full_argc, full_argv, &host);
    fprintf(out.f, "# probe=conv\n# net=%s\n# openblas_threads=%ld\n# cache=", desc->name,
            threads);
    mb_format_meta_text(out.f, cache ? cache_path : "none"); /* a path: one line */
    fputs("\n# timing=one call = the pass, then the device synchronised\n", out.f);
    harness_meta(out.f, &o);
    mb_probe_conv_write_header(out.f);
    for (size_t i = 0; i < nrows; i++)
        mb_probe_conv_write_row(out.f, &rows[i]);
    if (mb_out_commit(&out, &err) != MB_OK || (cache && mb_probe_cache_save(cache, &err) != MB_OK)) {
        mb_cli_fail(prog, sub, &err);
        goto done;
    }
    size_t count[5] = {0, 0, 0, 0, 0};
    for (size_t i = 0; i < nrows; i++)
        count[rows[i].status]++;
    mb_cli_say(NULL, NULL, "%s %s: %zu points measured, %zu read from the cache (%s), %zu "
               "unsupported, %zu out of memory, %zu over budget",
               mb_backend_name(mb_ctx_backend(ctx)), mb_ctx_device_name(ctx), measured,
               count[MB_PROBE_CONV_CACHED], cache ? cache_path : "none",
               count[MB_PROBE_CONV_UNSUPPORTED], count[MB_PROBE_CONV_NOMEM],
               count[MB_PROBE_CONV_OVER_BUDGET]);
    status = 0;
done:
    free(rows);
    free(batch);
    free(algos_buf);
    free(algos);
    mb_net_desc_free(desc);
    mb_probe_cache_free(cache);
    mb_ctx_free(ctx);
    return status;
}
