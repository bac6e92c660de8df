/* conv_ilp.c — benchmark of the convolution-algorithm ILP at ResNet-50's size: the 53
 * convolutions of data/nets/resnet50.cfg x 3 passes x 8 algorithms, over 64 mini-batch sizes
 * (M = 4, 8, ..., 256) on a 16 GiB device, each solved to proven optimality by GLPK
 * (mb_solver_conv_sweep: memory model, candidates, glp_intopt with gap 0), with the shared
 * workspace (the default) and with Zou et al.'s summed workspace (a multiple-choice knapsack).
 *
 * The table is synthetic but shaped like a GPU's: each algorithm's time is the layer's FLOPs at
 * a per-algorithm rate with +-20% noise, its workspace a per-algorithm multiple of the layer's
 * GEMM lowering (0 for the implicit and direct ones). The results are checked before they are
 * timed: both fit the memory the model leaves, the summed sweep is never faster than the shared
 * one and is feasible only where the shared one is. Prints the problem size beside the median of 5 runs.
 * Run by `make bench`, never by `make check`.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "solver/mb_solver.h"
#include "net/mb_net.h"
#include "bench.h"

#define REPS 5
#define NM 64

static unsigned long long rng = 0x9E3779B97F4A7C15ull;
static double uniform(void)
{
    rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
    return (double)((rng * 2685821657736338717ull) >> 11) * 0x1.0p-53;
}

/* cuDNN's eight forward algorithms, with a rate (FLOP/s) and a workspace factor on the GEMM
 * lowering, as measured orders of magnitude go. */
static const struct { const char *name; double rate, ws; } algos[8] = {
    {"IMPLICIT_GEMM", 6e12, 0},      {"IMPLICIT_PRECOMP_GEMM", 9e12, 0.02},
    {"GEMM", 8e12, 1.0},             {"DIRECT", 2e12, 0},
    {"FFT", 14e12, 6.0},             {"FFT_TILING", 12e12, 2.5},
    {"WINOGRAD", 16e12, 0.4},        {"WINOGRAD_NONFUSED", 18e12, 3.0}};
static const char *const passes[3] = {"forward", "backward_data", "backward_filter"};

static int write_table(const mb_net_desc *d, const double *m, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return 1;
    fprintf(f, "layer,algo,pass,batch,t_median_s,workspace_bytes,status\n");
    for (size_t i = 0; i < d->n_layers; i++) {
        const mb_layer_desc *l = &d->layers[i];
        if (l->type != MB_LAYER_CONV)
            continue;
        double flops = 2.0 * l->out_c * l->out_h * l->out_w * l->in_c * l->size * l->size;
        double lower = 4.0 * l->in_c * l->size * l->size * l->out_h * l->out_w;
        for (int p = 0; p < 3; p++)
            for (int a = 0; a < 8; a++)
                for (int k = 0; k < NM; k++)
                    fprintf(f, "%s,%s,%s,%g,%.6g,%.0f,measured\n", l->name, algos[a].name,
                            passes[p], m[k],
                            m[k] * flops / algos[a].rate * (0.8 + 0.4 * uniform()),
                            m[k] * lower * algos[a].ws * (0.8 + 0.4 * uniform()));
    }
    return fclose(f) != 0;
}

/* Both fit; the sum is never faster than the max and fits only where the max does. */
static int check(const mb_cilp_point *sh, const mb_cilp_point *sum)
{
    for (int k = 0; k < NM; k++) {
        if (sh[k].feasible != (sum[k].feasible || sh[k].feasible))
            return 1;
        if (!sh[k].feasible)
            continue;
        if (sum[k].feasible && (sum[k].t_update < sh[k].t_update * (1 - 1e-12) ||
                                sum[k].ws > sum[k].avail))
            return 1;
        if (sh[k].ws > sh[k].avail)
            return 1;
    }
    return 0;
}

int main(void)
{
    mb_net_desc *d = NULL;
    mb_error err = {0};
    if (mb_net_desc_read("resnet50", &d, &err) != MB_OK) {
        fprintf(stderr, "conv_ilp: %s\n", err.msg);
        return 1;
    }
    double m[NM];
    for (int k = 0; k < NM; k++)
        m[k] = 4.0 * (k + 1);
    char path[] = "/tmp/mbkit-conv-ilp-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || (close(fd), write_table(d, m, path))) {
        fprintf(stderr, "conv_ilp: cannot write %s\n", path);
        return 1;
    }
    mb_cilp_table *t = NULL;
    int rc = mb_solver_conv_read(path, NULL, &t, &err);
    unlink(path);
    if (rc != MB_OK) {
        fprintf(stderr, "conv_ilp: %s\n", err.msg);
        return 1;
    }
    mb_cilp_options o;
    mb_solver_conv_defaults(&o);
    o.device_bytes = 16.0 * (1u << 30);
    static mb_cilp_point res[2][NM];
    double times[2][REPS];
    size_t feasible[2] = {0, 0}, changes = 0;
    for (int mode = 0; mode < 2; mode++) {
        o.mode = (mb_ws_mode)mode;
        for (int r = 0; r < REPS; r++) {
            mb_solver_conv_results_free(res[mode], NM);
            double t0 = now();
            rc = mb_solver_conv_sweep(d, t, m, NM, &o, res[mode], &err);
            times[mode][r] = now() - t0;
            if (rc != MB_OK) {
                fprintf(stderr, "conv_ilp: %s\n", err.msg);
                return 1;
            }
        }
        for (int k = 0; k < NM; k++)
            feasible[mode] += (size_t)res[mode][k].feasible;
        qsort(times[mode], REPS, sizeof times[mode][0], cmp);
    }
    if (check(res[0], res[1])) {
        fprintf(stderr, "conv_ilp: the sweeps' choices fail the checks\n");
        return 1;
    }
    for (int k = 1; k < NM; k++)
        for (size_t s = 0; res[1][k].feasible && res[1][k - 1].feasible &&
                           s < res[1][k].n_picks; s++)
            changes += strcmp(res[1][k].picks[s].algo, res[1][k - 1].picks[s].algo) != 0;
    size_t slots = res[0][0].n_picks;
    printf("conv ILP, ResNet-50 size: %zu slots (53 layers x 3 passes, less the input layer's "
           "backward_data) x 8 algorithms, %d values of M (4..256), 16 GiB\n", slots, NM);
    for (int mode = 0; mode < 2; mode++)
        printf("  workspace %-6s  %2zu of %d M feasible, all proven optimal: total %.3f s "
               "(median of %d; min %.3f, max %.3f), %.1f ms per M\n",
               mb_solver_ws_mode_name((mb_ws_mode)mode), feasible[mode], NM,
               times[mode][REPS / 2], REPS, times[mode][0], times[mode][REPS - 1],
               1e3 * times[mode][REPS / 2] / NM);
    printf("  summed workspace: %zu algorithm changes between consecutive M\n", changes);
    for (int mode = 0; mode < 2; mode++)
        mb_solver_conv_results_free(res[mode], NM);
    mb_solver_conv_free(t);
    mb_net_desc_free(d);
    return 0;
}
