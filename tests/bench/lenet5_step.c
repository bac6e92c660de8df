/* lenet5_step.c — benchmark: median seconds per training update (forward + backward + plain SGD
 * x -= lr g) of the classic lenet5 on 1x28x28 inputs, for batch sizes M = 1, 2, 4, ..., 1024,
 * with the network split over a given number of worker threads (mb_net_options.threads; OpenBLAS
 * single-threaded inside each). Before timing each M it checks the step: the loss
 * is finite, near log(10) at initialisation, and falls over a few updates on the same batch.
 * Prints one CSV line per M (problem size beside the time). Not a test: `make bench` runs it.
 *
 *   lenet5_step [--threads N] [--max-batch M] [--algo gemm|direct|fft|winograd] [--csv]
 *   lenet5_step --dump DIR [--batch M] [--seed S] [--threads N]
 *       writes DIR/params.bin, x.bin (float32), y.bin (int32), grads.bin (float32) and
 *       loss.txt after one forward_backward: the input of tests/parity_lenet5.py.
 *   lenet5_step --trace SECONDS [--batch M] [--threads N]
 *       steps batch M for SECONDS and prints "t_s,s_per_update" per update (time since the
 *       start, then the update's time): how the machine's speed moves over time
 *       (tests/bench/host_steadiness.sh).
 *   lenet5_step --eval [--batch M] [--threads N]
 *       evaluation instead of training: the median microseconds per sample of
 *       mb_net_evaluate_each over 2048 samples in calls of M (16: the staged checks' chunk,
 *       train/run/run_check.c), the forward pass that evaluation in mbtrain costs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../data/mb_cli.h"
#include "../../net/mb_net.h"
#include "../../train/learner/mb_learner.h"
#include "bench.h"

/* The shipped lenet5 (data/nets/lenet5.cfg: conv 6@5x5 pad 2, relu, maxpool 2; conv 16@5x5,
 * relu, maxpool 2; fc 120 relu; fc 84 relu; fc 10; softmax cross-entropy), read as mbtrain
 * reads it. The benchmark runs from the source tree's root. */
static mb_net_desc *lenet5(void)
{
    mb_net_desc *d = NULL;
    mb_error err = {0};
    if (mb_net_desc_read("lenet5", &d, &err) != MB_OK)
        fprintf(stderr, "lenet5_step: %s\n", err.msg);
    return d;
}

/* Input in [0, 1) like scaled pixels, labels 0..9: a fixed LCG so runs are repeatable. */
static void batch_data(float *x, int *y, int m, unsigned seed)
{
    for (size_t i = 0; i < (size_t)m * 784; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)(seed >> 8) / 16777216.0f;
    }
    for (int i = 0; i < m; i++)
        y[i] = (int)((seed >> 4) + 7u * i) % 10;
}

static void sgd(float *p, const float *g, size_t n, float lr)
{
    for (size_t i = 0; i < n; i++)
        p[i] -= lr * g[i];
}

static int write_bin(const char *dir, const char *name, const void *v, size_t bytes)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(v, 1, bytes, f) != bytes) {
        fprintf(stderr, "lenet5_step: cannot write %s\n", path);
        if (f)
            fclose(f);
        return 1;
    }
    return fclose(f) != 0;
}

/* The shipped lenet5 for batches up to m, or NULL after a message. */
static mb_net *lenet5_net(int m, unsigned long seed, mb_conv_algo algo, int threads)
{
    mb_net_desc *d = lenet5();
    mb_net_options o = {m, seed, algo, threads, NULL, 0};
    mb_net *net = NULL;
    mb_error err = {0};
    if (!d)
        return NULL;
    if (mb_net_create(d, &o, &net, &err) != MB_OK)
        fprintf(stderr, "lenet5_step: %s\n", err.msg);
    mb_net_desc_free(d);
    return net;
}

static int dump(const char *dir, int m, unsigned long seed, int threads)
{
    mb_net *net = lenet5_net(m, seed, MB_CONV_GEMM, threads);
    if (!net)
        return 1;
    float *x = malloc(sizeof(float) * 784 * m), loss;
    int *y = malloc(sizeof(int) * m);
    batch_data(x, y, m, (unsigned)seed + 1);
    int rc = mb_net_forward_backward(net, x, y, m, &loss) != MB_OK;
    size_t n = mb_net_param_count(net);
    rc = rc || write_bin(dir, "params.bin", mb_net_params(net), n * 4) ||
         write_bin(dir, "x.bin", x, (size_t)m * 784 * 4) ||
         write_bin(dir, "y.bin", y, (size_t)m * sizeof(int)) ||
         write_bin(dir, "grads.bin", mb_net_grads(net), n * 4);
    char path[4096];
    snprintf(path, sizeof path, "%s/loss.txt", dir);
    FILE *f = fopen(path, "w");
    rc = rc || !f || fprintf(f, "%.9g\n", loss) < 0;
    if (f)
        rc = fclose(f) != 0 || rc;
    free(x), free(y);
    mb_net_free(net);
    return rc;
}

/* One update every line for `seconds` after a 0.2 s warm-up. */
static int trace(double seconds, int m, int threads, mb_conv_algo algo)
{
    mb_net *net = lenet5_net(m, 1, algo, threads);
    if (!net)
        return 1;
    float *x = malloc(sizeof(float) * 784 * m), loss;
    int *y = malloc(sizeof(int) * m);
    batch_data(x, y, m, 17u + m);
    float *p = mb_net_params(net), *g = mb_net_grads(net);
    size_t n = mb_net_param_count(net);
    printf("t_s,s_per_update\n");
    for (double t0 = now(), warm = t0 + 0.2, end = warm + seconds, t = t0; t < end;) {
        mb_net_forward_backward(net, x, y, m, &loss);
        sgd(p, g, n, 0.01f);
        double t1 = now();
        if (t >= warm)
            printf("%.4f,%.6e\n", t - warm, t1 - t);
        t = t1;
    }
    free(x), free(y);
    mb_net_free(net);
    return 0;
}

/* Median microseconds per sample of evaluation in calls of m samples (9 passes over 2048). */
static int eval_speed(int m, int threads, mb_conv_algo algo)
{
    enum { SAMPLES = 2048, PASSES = 9 };
    mb_net *net = lenet5_net(m > 128 ? m : 128, 1, algo, threads);
    if (!net)
        return 1;
    float *x = malloc(sizeof(float) * 784 * SAMPLES);
    int *y = malloc(sizeof(int) * SAMPLES);
    double *losses = malloc(sizeof(double) * SAMPLES), t[PASSES];
    batch_data(x, y, SAMPLES, 29u);
    for (int r = -1; r < PASSES; r++) { /* the first pass warms up */
        double t0 = now();
        for (int i = 0; i < SAMPLES; i += m) {
            size_t k = SAMPLES - i < m ? (size_t)(SAMPLES - i) : (size_t)m, ok;
            if (mb_net_evaluate_each(net, x + (size_t)i * 784, y + i, k, losses + i, &ok) !=
                MB_OK) {
                fprintf(stderr, "lenet5_step: evaluation failed\n");
                return 1;
            }
        }
        if (r >= 0)
            t[r] = (now() - t0) / SAMPLES * 1e6;
    }
    qsort(t, PASSES, sizeof *t, cmp);
    printf("# lenet5 1x28x28, evaluation in calls of %d, %d thread(s), conv %s\n"
           "us_per_sample %.3f\n",
           m, threads, mb_conv_algo_name(algo), t[PASSES / 2]);
    free(x), free(y), free(losses);
    mb_net_free(net);
    return 0;
}

int main(int argc, char **argv)
{
    mb_cli_one_blas_thread(argv); /* OpenBLAS's kernels as mbtrain gets them (data/cli.c) */
    int threads = 2, max_m = 1024, batch = 8, csv = 0, eval = 0;
    double trace_s = 0;
    unsigned long seed = 1;
    const char *dir = NULL;
    mb_conv_algo algo = MB_CONV_GEMM;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--max-batch") && i + 1 < argc)
            max_m = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--batch") && i + 1 < argc)
            batch = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--dump") && i + 1 < argc)
            dir = argv[++i];
        else if (!strcmp(argv[i], "--trace") && i + 1 < argc)
            trace_s = atof(argv[++i]);
        else if (!strcmp(argv[i], "--csv"))
            csv = 1;
        else if (!strcmp(argv[i], "--eval"))
            eval = 1;
        else if (!strcmp(argv[i], "--algo") && i + 1 < argc &&
                 mb_conv_algo_parse(argv[i + 1], &algo) == MB_OK)
            i++;
        else {
            fprintf(stderr, "lenet5_step: bad argument '%s'\n", argv[i]);
            return 2;
        }
    }
    if (threads < 1 || max_m < 1 || batch < 1) {
        fprintf(stderr, "lenet5_step: threads, batches must be >= 1\n");
        return 2;
    }
    if (dir)
        return dump(dir, batch, seed, threads);
    if (trace_s > 0)
        return trace(trace_s, batch, threads, algo);
    if (eval)
        return eval_speed(batch, threads, algo);
    printf(csv ? "M,s_per_update,samples_per_s,reps\n"
               : "# lenet5 1x28x28, forward+backward+SGD, %d thread(s), conv %s\n"
                 "%6s %14s %14s %6s\n",
           threads, mb_conv_algo_name(algo), "M", "s/update", "samples/s", "reps");
    mb_net_desc *d = lenet5();
    if (!d)
        return 1;
    for (int m = 1; m <= max_m; m *= 2) {
        mb_net_options o = {m, seed, algo, threads, NULL, 0};
        mb_net *net;
        mb_error err = {0};
        if (mb_net_create(d, &o, &net, &err) != MB_OK) {
            fprintf(stderr, "lenet5_step: %s\n", err.msg);
            return 1;
        }
        float *x = malloc(sizeof(float) * 784 * m), l0, l1 = 0.0f;
        int *y = malloc(sizeof(int) * m);
        batch_data(x, y, m, 17u + m);
        float *p = mb_net_params(net), *g = mb_net_grads(net);
        size_t n = mb_net_param_count(net);
        /* check: finite, near log 10 at start, falling on a repeated batch */
        if (mb_net_forward_backward(net, x, y, m, &l0) != MB_OK || !isfinite(l0) ||
            fabsf(l0 - logf(10.0f)) > 1.5f) {
            fprintf(stderr, "lenet5_step: M=%d: bad initial loss %g\n", m, l0);
            return 1;
        }
        for (int k = 0; k < 5; k++) {
            sgd(p, g, n, 0.05f);
            mb_net_forward_backward(net, x, y, m, &l1);
        }
        if (!(l1 < l0)) {
            fprintf(stderr, "lenet5_step: M=%d: loss did not fall (%g -> %g)\n", m, l0, l1);
            return 1;
        }
        /* warm-up of at least 0.2 s (as the torch side of lenet5_vs_torch.sh), then time: at
         * least 7 reps and about 0.4 s, median */
        double t0 = now();
        while (now() - t0 < 0.2) {
            mb_net_forward_backward(net, x, y, m, &l1);
            sgd(p, g, n, 0.01f);
        }
        t0 = now();
        mb_net_forward_backward(net, x, y, m, &l1);
        sgd(p, g, n, 0.01f);
        double one = now() - t0;
        int reps = (int)(0.4 / (one > 1e-6 ? one : 1e-6));
        reps = reps < 7 ? 7 : reps > 201 ? 201 : reps;
        double *t = malloc(sizeof(double) * reps);
        for (int r = 0; r < reps; r++) {
            t0 = now();
            mb_net_forward_backward(net, x, y, m, &l1);
            sgd(p, g, n, 0.01f);
            t[r] = now() - t0;
        }
        qsort(t, reps, sizeof *t, cmp);
        double med = t[reps / 2];
        if (csv)
            printf("%d,%.6e,%.1f,%d\n", m, med, m / med, reps);
        else
            printf("%6d %14.6e %14.1f %6d\n", m, med, m / med, reps);
        fflush(stdout);
        free(t), free(x), free(y);
        mb_net_free(net);
    }
    mb_net_desc_free(d);
    return 0;
}
