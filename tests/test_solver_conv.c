/* test_solver_conv.c — solver/conv.c: the convolution-algorithm ILP against brute-force
 * enumeration on random instances (both workspace formulations, tight and loose memory, with and
 * without a per-layer limit), infeasible instances and what they name, the conv table reader
 * (status and backend columns, bad rows), the sweep over M on lenet5 (micro-batches, where the
 * choice changes, the memory too small for M = 1), and mbopt conv / mbopt mem end to end.
 *
 * The tables here are written by the tests, with times and workspaces that are not round
 * numbers; no answer is hard-coded: each is recomputed from the inputs by enumeration.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../solver/mb_solver.h"
#include "../net/mb_net.h"
#include "mb_test.h"

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static double uniform(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (double)((rng * 2685821657736338717ull) >> 11) * 0x1.0p-53;
}

/* ---- the ILP against enumeration ------------------------------------------------------------- */

enum { MAX_SLOTS = 5, MAX_ALGOS = 4 };

typedef struct instance {
    mb_cilp_slot slot[MAX_SLOTS];
    mb_cilp_choice c[MAX_SLOTS][MAX_ALGOS];
    mb_cilp_problem p;
} instance;

static const char *const algo_names[] = {"gemm", "direct", "fft", "winograd"};

/* 3-5 slots, 2-4 candidates each: times log-uniform over two decades, workspaces 0 (a third of
 * them, as direct convolution) or log-uniform over three decades. */
static void random_instance(instance *in)
{
    memset(in, 0, sizeof *in);
    size_t n = 3 + (size_t)(uniform() * 3);
    for (size_t s = 0; s < n; s++) {
        size_t k = 2 + (size_t)(uniform() * 3);
        for (size_t c = 0; c < k; c++)
            in->c[s][c] = (mb_cilp_choice){.algo = algo_names[c], .micro = 1,
                                           .t = 1e-3 * pow(100, uniform()),
                                           .ws = uniform() < 0.33 ? 0 : 1e5 * pow(1e3, uniform())};
        in->slot[s] = (mb_cilp_slot){.layer = "layer", .pass = "forward", .n = k, .c = in->c[s]};
    }
    in->p = (mb_cilp_problem){.n = n, .slot = in->slot, .ws_limit = INFINITY};
}

/* The optimum by enumeration: *feasible, *t, *ws. */
static void brute(const mb_cilp_problem *p, int *feasible, double *best_t)
{
    size_t idx[MAX_SLOTS] = {0};
    *feasible = 0;
    *best_t = INFINITY;
    for (;;) {
        double t = 0, ws = 0;
        int ok = p->avail >= 0;
        for (size_t s = 0; s < p->n; s++) {
            const mb_cilp_choice *c = &p->slot[s].c[idx[s]];
            t += c->t;
            ws = p->mode == MB_WS_SUM ? ws + c->ws : fmax(ws, c->ws);
            ok &= c->ws <= p->ws_limit;
        }
        if (ok && ws <= p->avail && t < *best_t)
            *feasible = 1, *best_t = t;
        size_t s = 0;
        while (s < p->n && ++idx[s] == p->slot[s].n)
            idx[s++] = 0;
        if (s == p->n)
            break;
    }
}

/* The bounds of the memory that matter: below the least possible workspace nothing fits, above
 * the largest everything does. */
static void ws_range(const mb_cilp_problem *p, double *lo, double *hi)
{
    double sum_min = 0, max_min = 0, sum_max = 0, max_max = 0;
    for (size_t s = 0; s < p->n; s++) {
        double mn = INFINITY, mx = 0;
        for (size_t c = 0; c < p->slot[s].n; c++)
            mn = fmin(mn, p->slot[s].c[c].ws), mx = fmax(mx, p->slot[s].c[c].ws);
        sum_min += mn, max_min = fmax(max_min, mn), sum_max += mx, max_max = fmax(max_max, mx);
    }
    *lo = p->mode == MB_WS_SUM ? sum_min : max_min;
    *hi = p->mode == MB_WS_SUM ? sum_max : max_max;
}

static void test_ilp_vs_enumeration(void)
{
    size_t tried = 0, feasible = 0, infeasible = 0, binding = 0;
    for (int i = 0; i < 600; i++) {
        instance in;
        random_instance(&in);
        in.p.mode = i % 2 ? MB_WS_SUM : MB_WS_SHARED;
        double lo, hi;
        ws_range(&in.p, &lo, &hi);
        /* tight (between the least and the largest workspace, a little below the least, so
         * some are infeasible) and loose memory; a per-layer limit on a fifth */
        switch (i % 5) {
        case 0: in.p.avail = 1.3 * hi; break;
        case 1: in.p.avail = lo * (0.8 + 0.3 * uniform()); break;
        default: in.p.avail = lo + (hi - lo) * uniform(); break;
        }
        if (i % 7 == 3)
            in.p.ws_limit = 1e5 * pow(1e3, uniform());
        size_t pick[MAX_SLOTS];
        mb_cilp_result r;
        mb_error err = {0};
        int rc = mb_solver_conv_ilp(&in.p, pick, &r, &err);
        CU_ASSERT_EQUAL_FATAL(rc, MB_OK);
        int bf;
        double bt;
        brute(&in.p, &bf, &bt);
        tried++;
        CU_ASSERT_EQUAL(r.feasible, bf);
        if (!bf) {
            infeasible++;
            CU_ASSERT_TRUE(r.short_bytes > 0);
            CU_ASSERT_TRUE(r.short_slot >= 0 && (size_t)r.short_slot < in.p.n);
            continue;
        }
        feasible++;
        /* GLPK's objective is summed in another order: 1e-12 relative is rounding */
        CU_ASSERT_TRUE(mb_test_close(r.t, bt, 1e-12));
        if (!mb_test_close(r.t, bt, 1e-12))
            printf("\n    instance %d: GLPK %.17g, enumeration %.17g\n", i, r.t, bt);
        /* the reported choice is the one whose time and workspace are reported, and it fits */
        double t = 0, ws = 0, fastest = 0;
        for (size_t s = 0; s < in.p.n; s++) {
            const mb_cilp_choice *c = &in.slot[s].c[pick[s]];
            t += c->t;
            ws = in.p.mode == MB_WS_SUM ? ws + c->ws : fmax(ws, c->ws);
            CU_ASSERT_TRUE(c->ws <= in.p.ws_limit);
            double f = INFINITY;
            for (size_t k = 0; k < in.slot[s].n; k++)
                f = fmin(f, in.slot[s].c[k].t);
            fastest += f;
        }
        CU_ASSERT_TRUE(mb_test_close(t, r.t, 1e-15));
        CU_ASSERT_TRUE(mb_test_close(ws, r.ws, 1e-15));
        CU_ASSERT_TRUE(ws <= in.p.avail);
        binding += r.t > fastest * (1 + 1e-12);
    }
    /* the sets exercise every case: feasible, infeasible, and memory that costs time */
    CU_ASSERT_TRUE(feasible > 300);
    CU_ASSERT_TRUE(infeasible > 30);
    CU_ASSERT_TRUE(binding > 100);
}

/* Shared workspace separates by slot: GLPK's choice is each slot's fastest fitting candidate. */
static void test_shared_is_per_slot(void)
{
    for (int i = 0; i < 200; i++) {
        instance in;
        random_instance(&in);
        double lo, hi;
        ws_range(&in.p, &lo, &hi);
        in.p.avail = lo + (hi - lo) * uniform();
        size_t pick[MAX_SLOTS];
        mb_cilp_result r;
        CU_ASSERT_EQUAL_FATAL(mb_solver_conv_ilp(&in.p, pick, &r, NULL), MB_OK);
        CU_ASSERT_TRUE_FATAL(r.feasible);
        for (size_t s = 0; s < in.p.n; s++) {
            double f = INFINITY;
            for (size_t k = 0; k < in.slot[s].n; k++)
                if (in.slot[s].c[k].ws <= in.p.avail)
                    f = fmin(f, in.slot[s].c[k].t);
            CU_ASSERT_EQUAL(in.slot[s].c[pick[s]].t, f);
        }
    }
}

static void test_infeasible_names(void)
{
    /* slot 1 needs at least 7.5e6 bytes; 5e6 are there: 2.5e6 short, in both formulations */
    mb_cilp_choice a[] = {{"gemm", 8, 0.013, 1.25e6}, {"fft", 8, 0.007, 3.5e6}};
    mb_cilp_choice b[] = {{"gemm", 8, 0.021, 7.5e6}, {"winograd", 8, 0.011, 9.25e6}};
    mb_cilp_slot sl[] = {{"conv1", "forward", 2, a}, {"conv2", "backward_data", 2, b}};
    mb_cilp_problem p = {.n = 2, .slot = sl, .avail = 5e6, .ws_limit = INFINITY};
    size_t pick[2];
    mb_cilp_result r;
    for (int mode = 0; mode < 2; mode++) {
        p.mode = (mb_ws_mode)mode;
        CU_ASSERT_EQUAL_FATAL(mb_solver_conv_ilp(&p, pick, &r, NULL), MB_OK);
        CU_ASSERT_FALSE(r.feasible);
        CU_ASSERT_EQUAL(r.short_slot, 1);
        /* shared: 7.5e6 - 5e6; sum: 1.25e6 + 7.5e6 - 5e6 */
        CU_ASSERT_DOUBLE_EQUAL(r.short_bytes, mode ? 3.75e6 : 2.5e6, 1e-6);
    }
    /* a feasible sum that needs the knapsack: 9e6 fits gemm+gemm (8.75e6) only */
    p.mode = MB_WS_SUM;
    p.avail = 9e6;
    CU_ASSERT_EQUAL_FATAL(mb_solver_conv_ilp(&p, pick, &r, NULL), MB_OK);
    CU_ASSERT_TRUE(r.feasible);
    CU_ASSERT_EQUAL(pick[0], 0);
    CU_ASSERT_EQUAL(pick[1], 0);
    /* the per-layer limit is what is short */
    p.mode = MB_WS_SHARED;
    p.avail = 1e9;
    p.ws_limit = 4e6;
    CU_ASSERT_EQUAL_FATAL(mb_solver_conv_ilp(&p, pick, &r, NULL), MB_OK);
    CU_ASSERT_FALSE(r.feasible);
    CU_ASSERT_EQUAL(r.short_slot, 1);
    CU_ASSERT_DOUBLE_EQUAL(r.short_bytes, 3.5e6, 1e-6);
    /* the model alone does not fit */
    p.avail = -123456;
    CU_ASSERT_EQUAL_FATAL(mb_solver_conv_ilp(&p, pick, &r, NULL), MB_OK);
    CU_ASSERT_FALSE(r.feasible);
    CU_ASSERT_EQUAL(r.short_slot, -1);
    CU_ASSERT_DOUBLE_EQUAL(r.short_bytes, 123456, 1e-9);
    /* a negative workspace is refused, naming the layer */
    b[1].ws = -1;
    p.avail = 1e9;
    mb_error err = {0};
    CU_ASSERT_EQUAL(mb_solver_conv_ilp(&p, pick, &r, &err), MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "conv2"));
}

/* ---- tables and the sweep on lenet5 --------------------------------------------------------- */

static char dir[256];

/* A lenet5 table: conv1 and conv2, three passes, gemm / direct / fft at batches 4, 8, 16.
 * gemm: a workspace growing with the batch; direct: slow, none; fft: fast, with a large
 * workspace. Times grow as batch^0.9 (larger batches are cheaper per sample, so one micro-batch
 * split is better than a finer one) and conv2 costs 2.3x conv1. */
static const char *lenet_table(const char *name, const char *extra_cols, const char *tail)
{
    static char path[512];
    static char text[16384];
    size_t n = (size_t)snprintf(text, sizeof text,
                                "# probe=conv\nlayer,algo,pass,batch,t_median_s,workspace_bytes%s\n",
                                extra_cols);
    static const char *const layers[] = {"conv1", "conv2"};
    static const char *const passes[] = {"forward", "backward_data", "backward_filter"};
    for (int l = 0; l < 2; l++)
        for (int p = 0; p < 3; p++)
            for (int b = 4; b <= 16; b *= 2) {
                double u = (l ? 2.3 : 1.0) * (1 + 0.11 * p) * pow(b, 0.9);
                n += (size_t)snprintf(text + n, sizeof text - n,
                                      "%s,gemm,%s,%d,%.6g,%.0f%s\n%s,direct,%s,%d,%.6g,0%s\n"
                                      "%s,fft,%s,%d,%.6g,%.0f%s\n",
                                      layers[l], passes[p], b, 7.1e-4 * u, 61613.0 * b,
                                      *extra_cols ? ",measured" : "", layers[l], passes[p], b,
                                      3.3e-3 * u, *extra_cols ? ",measured" : "", layers[l],
                                      passes[p], b, 3.9e-4 * u, 412337.0 * b + 1.7e5,
                                      *extra_cols ? ",measured" : "");
            }
    snprintf(text + n, sizeof text - n, "%s", tail);
    return mb_test_write(path, sizeof path, dir, name, text);
}

/* The lenet5 model's bytes at m without workspace (the memory model, tested in test_model.c). */
static double lenet_model(const mb_net_desc *d, double m)
{
    mb_mem_layer ml[32];
    mb_solver_mem_layers(d, ml);
    mb_mem_options o;
    mb_model_mem_defaults(&o);
    o.gemm_workspace = 0;
    mb_mem_total t;
    CU_ASSERT_EQUAL(mb_model_mem(ml, d->n_layers, m, &o, &t), MB_OK);
    return t.model;
}

/* A summed-workspace program built to defeat branch and bound: 40 layer passes of 8 candidates
 * whose times fall as their workspaces rise, the memory the sum of each pass's middle one. On
 * the 2-core machine GLPK had not proven it optimal after 30 s; with a limit of 0.2 s it is the
 * MB_ESOLVER error, flagged out of time. */
static void test_time_limit(void)
{
    enum { NS = 40, NC = 8 };
    static mb_cilp_choice c[NS][NC];
    mb_cilp_slot sl[NS];
    const uint64_t saved = rng;
    rng = 0x9E3779B97F4A7C15ull; /* this instance, whatever the tests before drew */
    double avail = 0.5;
    for (int s = 0; s < NS; s++) {
        for (int k = 0; k < NC; k++) {
            c[s][k] = (mb_cilp_choice){"algo", 1, 0, (1000 + floor(uniform() * 1e5)) * (k + 1)};
            c[s][k].t = 1e6 - c[s][k].ws + floor(uniform() * 100);
        }
        sl[s] = (mb_cilp_slot){"conv", "forward", NC, c[s]};
        avail += c[s][NC / 2].ws;
    }
    rng = saved;
    mb_cilp_problem p = {.n = NS, .slot = sl, .avail = avail, .ws_limit = INFINITY,
                         .mode = MB_WS_SUM, .budget = 0.2};
    size_t pick[NS];
    mb_cilp_result r;
    mb_error e = {0};
    CU_ASSERT_EQUAL(mb_solver_conv_ilp(&p, pick, &r, &e), MB_ESOLVER);
    CU_ASSERT_TRUE(r.out_of_time);
    CU_ASSERT_FALSE(r.feasible);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "not proven optimal within the budget"));
    if (!r.out_of_time)
        fprintf(stderr, "time limit: %s (feasible %d)\n", e.msg, r.feasible);
}

static void test_sweep_lenet(void)
{
    mb_net_desc *d = NULL;
    mb_cilp_table *t = NULL;
    mb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(mb_net_desc_read("lenet5", &d, &err), MB_OK);
    int rc = mb_solver_conv_read(lenet_table("lenet.csv", ",status", ""), NULL, &t, &err);
    if (rc != MB_OK)
        printf("\n    %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, MB_OK);
    /* the device leaves room for fft's workspace at M = 4 but not at 16 */
    mb_cilp_options o;
    mb_solver_conv_defaults(&o);
    o.device_bytes = lenet_model(d, 16) + 412337.0 * 8 + 1.7e5 + 1000;
    const double m[] = {4, 8, 16};
    mb_cilp_point res[3];
    rc = mb_solver_conv_sweep(d, t, m, 3, &o, res, &err);
    if (rc != MB_OK)
        printf("\n    %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, MB_OK);
    /* five slots: conv1, the net's first layer, has no backward_data (the trainer computes no
     * input gradient), though the table times it */
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_TRUE_FATAL(res[i].feasible);
        CU_ASSERT_EQUAL_FATAL(res[i].n_picks, 5);
        double sum = 0;
        for (size_t k = 0; k < 5; k++) {
            sum += res[i].picks[k].t;
            CU_ASSERT_FALSE(!strcmp(res[i].picks[k].layer, "conv1") &&
                            !strcmp(res[i].picks[k].pass, "backward_data"));
        }
        CU_ASSERT_TRUE(mb_test_close(sum, res[i].t_update, 1e-12));
        CU_ASSERT_TRUE(mb_test_close(res[i].mem_used, res[i].model_bytes + res[i].ws, 1e-12));
        CU_ASSERT_TRUE(res[i].mem_used <= o.device_bytes);
    }
    /* fft everywhere at 4 and 8, gemm (the next fastest that fits) at 16 */
    CU_ASSERT_STRING_EQUAL(res[0].picks[0].algo, "fft");
    CU_ASSERT_STRING_EQUAL(res[1].picks[4].algo, "fft");
    CU_ASSERT_STRING_EQUAL(res[2].picks[0].algo, "gemm");
    CU_ASSERT_STRING_EQUAL(res[2].picks[0].layer, "conv1");
    CU_ASSERT_STRING_EQUAL(res[2].picks[1].pass, "backward_filter");
    CU_ASSERT_STRING_EQUAL(res[2].picks[2].layer, "conv2");
    CU_ASSERT_STRING_EQUAL(res[2].picks[3].pass, "backward_data");
    /* with micro-batches, M = 16 runs fft on two batches of 8 (time 2 t(8) < gemm's t(16)) */
    mb_solver_conv_results_free(res, 3);
    o.micro = 1;
    CU_ASSERT_EQUAL_FATAL(mb_solver_conv_sweep(d, t, m, 3, &o, res, &err), MB_OK);
    CU_ASSERT_STRING_EQUAL(res[2].picks[0].algo, "fft");
    CU_ASSERT_EQUAL(res[2].picks[0].micro, 8);
    /* T_C: N_update = 100 + 4000 / M; the fastest per sample is not the least T_C when the
     * law's floor is small against its noise term */
    mb_law law = {.kind = MB_LAW_INVERSE, .n_inf = 100, .a = 4000, .b = 1};
    double tc[3];
    long bt, br;
    mb_solver_conv_tc(&law, res, 3, tc, &bt, &br);
    for (int i = 0; i < 3; i++)
        CU_ASSERT_TRUE(mb_test_close(tc[i], (100 + 4000 / m[i]) * res[i].t_update, 1e-12));
    CU_ASSERT_TRUE(bt >= 0 && br >= 0);
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_TRUE(tc[bt] <= tc[i]);
        CU_ASSERT_TRUE(res[br].samples_per_s >= res[i].samples_per_s);
    }
    mb_solver_conv_results_free(res, 3);
    /* M = 32 is not in the table: without micro-batches that is an error naming the layer */
    o.micro = 0;
    const double m32 = 32;
    CU_ASSERT_EQUAL(mb_solver_conv_sweep(d, t, &m32, 1, &o, res, &err), MB_ENODATA);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "layer 'conv1' pass 'forward'"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "batch 32"));
    mb_solver_conv_results_free(res, 1);
    /* a device too small for the model at a large M: infeasible there, naming the bytes */
    o.device_bytes = lenet_model(d, 8) + 10;
    CU_ASSERT_EQUAL_FATAL(mb_solver_conv_sweep(d, t, m, 3, &o, res, &err), MB_OK);
    CU_ASSERT_TRUE(res[0].feasible);
    CU_ASSERT_STRING_EQUAL(res[0].picks[0].algo, "direct"); /* the only one without workspace */
    CU_ASSERT_TRUE(res[1].feasible); /* 8: 10 bytes beside the model: direct only */
    CU_ASSERT_EQUAL(res[1].ws, 0);
    CU_ASSERT_FALSE(res[2].feasible);
    CU_ASSERT_PTR_NOT_NULL(strstr(res[2].why, "the model needs"));
    mb_solver_conv_results_free(res, 3);
    /* too small for M = 1: an error */
    o.device_bytes = lenet_model(d, 1) - 1;
    CU_ASSERT_EQUAL(mb_solver_conv_sweep(d, t, m, 3, &o, res, &err), MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "even at M = 1"));
    mb_solver_conv_results_free(res, 3);
    mb_solver_conv_free(t);
    mb_net_desc_free(d);
}

static void test_table_errors(void)
{
    mb_cilp_table *t = NULL;
    mb_error err = {0};
    mb_net_desc *d = NULL;
    CU_ASSERT_EQUAL_FATAL(mb_net_desc_read("lenet5", &d, NULL), MB_OK);
    /* negative workspace */
    const char *p = lenet_table("neg.csv", "", "conv1,gemm,forward,32,0.01,-4096\n");
    CU_ASSERT_EQUAL(mb_solver_conv_read(p, NULL, &t, &err), MB_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "neg.csv:57: field 'workspace_bytes'"));
    /* a duplicate point */
    p = lenet_table("dup.csv", "", "conv1,gemm,forward,4,0.01,4096\n");
    CU_ASSERT_EQUAL(mb_solver_conv_read(p, NULL, &t, &err), MB_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "also on line 3"));
    /* a missing column */
    p = mb_test_write((char[512]){0}, 512, dir, "nocol.csv", "layer,algo,pass,batch,t_median_s\n");
    CU_ASSERT_EQUAL(mb_solver_conv_read(p, NULL, &t, &err), MB_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "workspace_bytes"));
    /* a table of another net: no rows for lenet5's conv2 */
    p = mb_test_write((char[512]){0}, 512, dir, "other.csv",
                      "layer,algo,pass,batch,t_median_s,workspace_bytes\n"
                      "conv1,gemm,forward,4,0.0123,4567\n");
    CU_ASSERT_EQUAL_FATAL(mb_solver_conv_read(p, NULL, &t, &err), MB_OK);
    mb_cilp_options o;
    mb_solver_conv_defaults(&o);
    o.device_bytes = 1e9;
    const double m4 = 4;
    mb_cilp_point res[1];
    CU_ASSERT_EQUAL(mb_solver_conv_sweep(d, t, &m4, 1, &o, res, &err), MB_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no rows for layer 'conv2'"));
    mb_solver_conv_free(t);
    /* a pass whose every algorithm is unsupported or out of memory (status honoured); the
     * first layer's backward_data is no slot, so nothing usable there is no error */
    p = mb_test_write((char[512]){0}, 512, dir, "unsup.csv",
                      "layer,algo,pass,batch,t_median_s,workspace_bytes,status\n"
                      "conv1,gemm,forward,4,0.0123,4567,measured\n"
                      "conv1,fft,backward_data,4,,,unsupported\n"
                      "conv2,gemm,forward,4,0.0223,4567,cached\n"
                      "conv2,fft,backward_data,4,,,unsupported\n"
                      "conv2,gemm,backward_data,4,0.0411,99,out of memory\n");
    CU_ASSERT_EQUAL_FATAL(mb_solver_conv_read(p, NULL, &t, &err), MB_OK);
    CU_ASSERT_EQUAL(mb_solver_conv_sweep(d, t, &m4, 1, &o, res, &err), MB_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "layer 'conv2' pass 'backward_data': no supported"));
    mb_solver_conv_free(t);
    /* backends: several need --backend; the one asked for is kept */
    p = mb_test_write((char[512]){0}, 512, dir, "backends.csv",
                      "backend,layer,algo,pass,batch,t_median_s,workspace_bytes\n"
                      "cpu,conv1,gemm,forward,4,0.0123,4567\n"
                      "cuda,conv1,CUDNN_CONVOLUTION_FWD_ALGO_FFT,forward,4,0.00041,88888\n"
                      "cpu,conv2,gemm,forward,4,0.0223,4567\n"
                      "cuda,conv2,CUDNN_CONVOLUTION_FWD_ALGO_GEMM,forward,4,0.00052,0\n");
    CU_ASSERT_EQUAL(mb_solver_conv_read(p, NULL, &t, &err), MB_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--backend"));
    CU_ASSERT_EQUAL(mb_solver_conv_read(p, "tpu", &t, &err), MB_EFORMAT);
    CU_ASSERT_EQUAL_FATAL(mb_solver_conv_read(p, "cuda", &t, &err), MB_OK);
    CU_ASSERT_STRING_EQUAL(mb_solver_conv_backend(t), "cuda");
    CU_ASSERT_EQUAL_FATAL(mb_solver_conv_sweep(d, t, &m4, 1, &o, res, &err), MB_OK);
    CU_ASSERT_EQUAL(res[0].n_picks, 2);
    CU_ASSERT_STRING_EQUAL(res[0].picks[0].algo, "CUDNN_CONVOLUTION_FWD_ALGO_FFT");
    CU_ASSERT_TRUE(mb_test_close(res[0].t_update, 0.00041 + 0.00052, 1e-12));
    mb_solver_conv_results_free(res, 1);
    mb_solver_conv_free(t);
    /* campaign 22's Q8: a row of an empty backend, or of one spelt otherwise, is named, not
     * dropped beside the backend kept */
    static const char *const odd[] = {"", "CPU"};
    for (int k = 0; k < 2; k++) {
        char text[512];
        snprintf(text, sizeof text, "backend,layer,algo,pass,batch,t_median_s,workspace_bytes\n"
                 "cpu,conv1,gemm,forward,4,0.0123,4567\n%s,conv1,direct,forward,4,0.001,0\n"
                 "cpu,conv2,gemm,forward,4,0.0223,4567\n", odd[k]);
        p = mb_test_write((char[512]){0}, 512, dir, "odd.csv", text);
        CU_ASSERT_EQUAL(mb_solver_conv_read(p, k ? "cpu" : NULL, &t, &err), MB_EFORMAT);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, k ? "odd.csv:3: field 'backend': 'CPU' is not cpu "
                                                   "or cuda"
                                                 : "odd.csv:3: field 'backend': empty (mbprobe "
                                                   "conv writes cpu or cuda on every row)"));
    }
    mb_net_desc_free(d);
}

/* The shape each row was timed on (mbprobe conv's in_c .. pad columns) is held against the
 * net's layer of that name: another shape is refused naming the line and both shapes; some of
 * the columns without the others are refused; a table without them is matched by name (issue
 * #25, campaign 19's G1). */
static void test_table_shape(void)
{
    mb_net_desc *d = NULL;
    mb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(mb_net_desc_read("lenet5", &d, NULL), MB_OK);
    mb_cilp_options o;
    mb_solver_conv_defaults(&o);
    o.device_bytes = 1e9;
    const double m4 = 4;
    mb_cilp_point res[1];
    static const char *const head =
        "layer,algo,pass,batch,t_median_s,workspace_bytes,in_c,in_h,in_w,out_c,k,stride,pad,"
        "status\n";
    /* conv2 as lenet5 has it (6x14x14 -> 16, k 5, pad 0) or as another net's (-> 12 filters);
     * an unsupported row's shape is not read */
    static const struct {
        const char *conv2;
        int rc;
        const char *needle;
    } cases[] = {
        {"6,14,14,16,5,1,0", MB_OK, NULL},
        {"6,14,14,12,5,1,0", MB_EFORMAT, "shape.csv:5: layer 'conv2' was timed as 6x14x14 -> 12, "
                                         "k 5 (stride 1, pad 0); net 'lenet5' has it as 6x14x14 "
                                         "-> 16, k 5 (stride 1, pad 0): probe this net again"},
        {"6,14,14,16,3,1,1", MB_EFORMAT, "was timed as 6x14x14 -> 16, k 3 (stride 1, pad 1)"},
        {"6,28,28,16,5,1,0", MB_EFORMAT, "was timed as 6x28x28 -> 16"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[1024], path[512];
        snprintf(text, sizeof text,
                 "%sconv1,gemm,forward,4,0.0123,4567,1,28,28,6,5,1,2,measured\n"
                 "conv2,fft,forward,4,,,1,1,1,1,1,1,1,unsupported\n"
                 "conv2,gemm,forward,4,0.0223,4567,6,14,14,16,5,1,0,measured\n"
                 "conv2,gemm,backward_data,4,0.0411,99,%s,measured\n", head, cases[i].conv2);
        mb_test_write(path, sizeof path, dir, "shape.csv", text);
        mb_cilp_table *t = NULL;
        CU_ASSERT_EQUAL_FATAL(mb_solver_conv_read(path, NULL, &t, &err), MB_OK);
        CU_ASSERT_EQUAL(mb_solver_conv_sweep(d, t, &m4, 1, &o, res, &err), cases[i].rc);
        if (cases[i].needle)
            CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, cases[i].needle));
        if (cases[i].needle && !strstr(err.msg, cases[i].needle))
            printf("\n    case %zu: %s\n", i, err.msg);
        mb_solver_conv_results_free(res, 1);
        mb_solver_conv_free(t);
    }
    /* some shape columns without the others: refused by the reader, naming the one missing */
    mb_cilp_table *t = NULL;
    const char *p = mb_test_write((char[512]){0}, 512, dir, "part.csv",
                                  "layer,algo,pass,batch,t_median_s,workspace_bytes,in_c,in_h,"
                                  "in_w,out_c,k,pad\nconv1,gemm,forward,4,0.0123,4567,1,28,28,6,"
                                  "5,2\n");
    CU_ASSERT_EQUAL(mb_solver_conv_read(p, NULL, &t, &err), MB_EFORMAT);
    CU_ASSERT_PTR_NULL(t);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "part.csv: column 'stride' missing beside the other "
                                           "shape columns"));
    mb_net_desc_free(d);
}

/* ---- the commands -------------------------------------------------------------------------- */

static void expect_failure(const char *args, int status, const char *needle)
{
    mb_test_expect_failure("mbopt", args, status, needle);
}

static void test_commands(void)
{
    char args[1024];
    const char *p = lenet_table("cmd.csv", "", "");
    mb_test_run r;
    snprintf(args, sizeof args, "conv --net lenet5 --probe %s --mem 1G --batch 4:16 --json", p);
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "mbopt %s", args), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"m_fastest\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"choice\""));
    mb_test_run_free(&r);
    snprintf(args, sizeof args, "conv --net lenet5 --probe %s --mem 1G --batch 4:16", p);
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "mbopt %s", args), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "choice at M = 4"));
    mb_test_run_free(&r);
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "mbopt mem --net alexnet --mem 12G --batch 128"), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "largest M that fits"));
    mb_test_run_free(&r);
    snprintf(args, sizeof args, "conv --net lenet5 --probe %s --mem 100K --batch 4", p);
    expect_failure(args, 1, "even at M = 1");
    snprintf(args, sizeof args, "conv --net alexnet --probe %s --mem 12G --batch 4", p);
    expect_failure(args, 1, "no rows for layer 'conv3' of net 'alexnet'");
    snprintf(args, sizeof args, "conv --net lenet5 --probe %s --mem 1G --batch 4 --workspace x", p);
    expect_failure(args, 1, "--workspace: 'x'");
    snprintf(args, sizeof args, "conv --net lenet5 --probe %s --mem 1G", p);
    expect_failure(args, 2, "missing --batch");
    expect_failure("mem --net lenet5", 2, "missing --mem");
    expect_failure("mem --net lenet5 --mem 1G --batch 2.5", 1, "not a whole number");
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "mbopt conv --help && mbopt mem --help"), 0);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_EQUAL(strncmp(r.out, "Usage: mbopt conv", 17), 0);
    mb_test_run_free(&r);
}

static int setup(void) { return mb_test_tmpdir(dir, sizeof dir); }
static int teardown(void)
{
    mb_test_rmdir(dir);
    return 0;
}

int mb_test_suite_solver_conv(void)
{
    CU_pSuite s = CU_add_suite("solver_conv", setup, teardown);
    return !s || !CU_add_test(s, "GLPK optimum = enumeration (600 instances)",
                              test_ilp_vs_enumeration) ||
           !CU_add_test(s, "shared workspace separates by slot", test_shared_is_per_slot) ||
           !CU_add_test(s, "infeasible: the layer and the bytes short", test_infeasible_names) ||
           !CU_add_test(s, "a program past its time limit is an error", test_time_limit) ||
           !CU_add_test(s, "sweep over M on lenet5", test_sweep_lenet) ||
           !CU_add_test(s, "table errors, status and backend", test_table_errors) ||
           !CU_add_test(s, "each layer's rows timed its shape", test_table_shape) ||
           !CU_add_test(s, "mbopt conv and mem", test_commands);
}
