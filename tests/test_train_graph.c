/* test_train_graph.c — graph networks and batch normalisation: the cfg's from=, [add], [concat]
 * and [batchnorm] (shapes, parameter and state counts, and every error naming file, line and
 * field); the gradients of BN, add and concat, and of the whole data/nets/resnet-mini.cfg, by
 * central differences along random directions, layer by layer; a batch split over threads
 * normalises with the whole batch's statistics (the same loss and gradients as one thread);
 * the running statistics after a step (momentum 0.1, unbiased variance) and evaluation with
 * them; the optimiser and weight decay leave the state alone; and the layer-type table.
 * PyTorch's view of the same net is tests/parity_resnet.py (test_train_parity.c).
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../net/mb_net.h"
#include "../train/backend/mb_backend.h"
#include "../train/learner/mb_learner.h"
#include "mb_test.h"

static char dir[256];

static int suite_init(void) { return mb_test_tmpdir(dir, sizeof dir); }

static int suite_clean(void)
{
    mb_test_rmdir(dir);
    return 0;
}

static void fill(float *v, size_t n, uint32_t seed, float scale)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        v[i] = ((float)(seed >> 8) / 8388608.0f - 1.0f) * scale;
    }
}

/* Reads cfg text written to dir/name; MB_OK or the reader's status with its message in err. */
static int read_cfg(const char *name, const char *text, mb_net_desc **d, mb_error *err)
{
    char path[512];
    mb_test_write(path, sizeof path, dir, name, text);
    return mb_net_desc_read(path, d, err);
}

#define NET_HEAD "[net]\nchannels=2\nheight=6\nwidth=6\n"

/* Every kind of graph layer, small enough for central differences: tanh instead of ReLU (no
 * kinks within a step), BN after conv and after fc, an identity add, a concat of two earlier
 * outputs, a layer reading the network input (from=input). */
static const char GRAPH[] = NET_HEAD
    "[conv]\nname=c1\nfilters=3\nsize=3\npad=1\n"
    "[batchnorm]\nname=bn1\nactivation=tanh\n"
    "[conv]\nname=c2\nfilters=3\nsize=3\npad=1\n"
    "[batchnorm]\nname=bn2\n"
    "[add]\nname=sum\nfrom=tanh1\n"           /* bn2 + tanh1 */
    "[conv]\nname=side\nfilters=2\nsize=1\nfrom=input\n"
    "[concat]\nname=cat\nfrom=sum,side,tanh1\n" /* 3 + 2 + 3 channels */
    "[avgpool]\nsize=2\n"
    "[fc]\nname=f1\noutputs=7\n"
    "[batchnorm]\nname=bn3\nactivation=tanh\n"
    "[fc]\nname=f2\noutputs=4\n"
    "[softmax]\n";

static void test_parse_graph(void)
{
    mb_net_desc *d = NULL;
    mb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(read_cfg("g.cfg", GRAPH, &d, &err), MB_OK);
    CU_ASSERT_EQUAL(d->n_layers, 14);
    CU_ASSERT_TRUE(mb_net_desc_is_graph(d));
    const mb_layer_desc *sum = &d->layers[5], *side = &d->layers[6], *cat = &d->layers[7];
    CU_ASSERT_EQUAL(sum->type, MB_LAYER_ADD);
    CU_ASSERT_EQUAL(sum->n_inputs, 2);
    CU_ASSERT_EQUAL(sum->inputs[0], 4); /* the previous layer first, then from= */
    CU_ASSERT_EQUAL(sum->inputs[1], 2);
    CU_ASSERT_EQUAL(side->inputs[0], -1);
    CU_ASSERT_EQUAL(side->out_c, 2);
    CU_ASSERT_EQUAL(cat->n_inputs, 3);
    CU_ASSERT_EQUAL(cat->out_c, 8);
    CU_ASSERT_EQUAL(cat->out_h, 6);
    CU_ASSERT_EQUAL(d->layers[8].out_c, 8); /* avgpool 8x3x3 */
    CU_ASSERT_EQUAL(d->layers[8].out_h, 3);
    CU_ASSERT_EQUAL(d->layers[10].out_c, 7); /* BN after fc: per feature */
    CU_ASSERT_EQUAL(mb_layer_param_count(&d->layers[1]), 6);
    CU_ASSERT_EQUAL(mb_layer_state_count(&d->layers[1]), 6);
    CU_ASSERT_EQUAL(mb_layer_param_count(&d->layers[5]), 0);
    CU_ASSERT_STRING_EQUAL(mb_layer_type_name(MB_LAYER_CONCAT), "concat");
    mb_net_options o = {4, 1, MB_CONV_AUTO, 1, NULL, 0};
    mb_net *net;
    CU_ASSERT_EQUAL_FATAL(mb_net_create(d, &o, &net, NULL), MB_OK);
    /* c1 2*3*9+3, bn1 6, c2 3*3*9+3, bn2 6, side 2*2+2, f1 72*7+7, bn3 14, f2 7*4+4 */
    size_t train = 57 + 6 + 84 + 6 + 6 + 511 + 14 + 32;
    CU_ASSERT_EQUAL(mb_net_trainable_count(net), train);
    CU_ASSERT_EQUAL(mb_net_param_count(net), train + 6 + 6 + 14);
    /* initial state: running mean 0, running var 1 */
    const float *st = mb_net_params(net) + train;
    CU_ASSERT_EQUAL(st[0], 0.0f);
    CU_ASSERT_EQUAL(st[3], 1.0f);
    mb_net_free(net);
    mb_net_desc_free(d);
    /* a chain stays a chain */
    CU_ASSERT_EQUAL_FATAL(mb_net_desc_read("data/nets/lenet5.cfg", &d, &err), MB_OK);
    CU_ASSERT_FALSE(mb_net_desc_is_graph(d));
    mb_net_desc_free(d);
    CU_ASSERT_EQUAL_FATAL(mb_net_desc_read("data/nets/resnet-mini.cfg", &d, &err), MB_OK);
    CU_ASSERT_TRUE(mb_net_desc_is_graph(d));
    CU_ASSERT_EQUAL(d->classes, 10);
    /* each add reads its block's last BN and the block's input (identity skips) */
    for (size_t i = 0; i < d->n_layers; i++) {
        const mb_layer_desc *l = &d->layers[i];
        if (l->type != MB_LAYER_ADD)
            continue;
        CU_ASSERT_EQUAL(l->n_inputs, 2);
        CU_ASSERT_EQUAL(d->layers[l->inputs[0]].type, MB_LAYER_BATCHNORM);
        const char *skip = d->layers[l->inputs[1]].name;
        CU_ASSERT_STRING_EQUAL(skip, strcmp(l->name, "b1_add") == 0 ? "pool1" : "b1_out");
        CU_ASSERT_EQUAL(l->inputs[1], (int)i - 6); /* conv bn relu conv bn: 5 layers between */
    }
    mb_net_desc_free(d);
}

/* A bad graph is MB_EFORMAT with one message naming the file, the line and what is wrong. */
static void expect_bad(const char *body, const char *needle)
{
    char text[1024];
    snprintf(text, sizeof text, NET_HEAD "%s", body);
    mb_net_desc *d = NULL;
    mb_error err = {0};
    int rc = read_cfg("bad.cfg", text, &d, &err);
    CU_ASSERT_EQUAL(rc, MB_EFORMAT);
    CU_ASSERT_PTR_NULL(d);
    int ok = strstr(err.msg, "bad.cfg:") && strstr(err.msg, needle) && !strchr(err.msg, '\n');
    CU_ASSERT_TRUE(ok);
    if (!ok)
        printf("\n    wanted '%s' with the file and line in: %s\n", needle, err.msg);
    mb_net_desc_free(d);
}

static void test_parse_errors(void)
{
    expect_bad("[conv]\nfilters=3\nsize=3\n[add]\nfrom=nosuch\n[fc]\noutputs=2\n[softmax]\n",
               ":9: [add] 'from': no earlier layer is named 'nosuch'");
    expect_bad("[conv]\nname=a\nfilters=3\nsize=3\n[conv]\nfilters=4\nsize=3\npad=1\n"
               "[add]\nfrom=a\n[fc]\noutputs=2\n[softmax]\n",
               ":13: layer 2 'add1': add of 4x4x4 and 3x4x4: the shapes must match");
    expect_bad("[conv]\nname=a\nfilters=3\nsize=3\n[maxpool]\nsize=2\n[concat]\nfrom=a\n"
               "[fc]\noutputs=2\n[softmax]\n", "concat of 3x2x2 and 3x4x4: heights and widths");
    expect_bad("[conv]\nfilters=3\nsize=3\n[add]\n[fc]\noutputs=2\n[softmax]\n",
               ":8: [add] needs 'from'");
    expect_bad("[conv]\nname=a\nfilters=3\nsize=3\n[add]\nfrom=a,a,a,a,a\n[fc]\noutputs=2\n"
               "[softmax]\n", "'from': more than 4 inputs");
    expect_bad("[conv]\nname=a\nfilters=3\nsize=3\n[relu]\nfrom=a,a\n[fc]\noutputs=2\n"
               "[softmax]\n", "[relu] 'from': 2 layers named; it reads 1");
    expect_bad("[conv]\nname=a\nfilters=3\nsize=3\n[fc]\noutputs=2\n[softmax]\nfrom=a\n",
               "[softmax] unknown key 'from'");
    expect_bad("[conv]\nname=a\nfilters=3\nsize=3\n[conv]\nname=a\nfilters=3\nsize=1\n"
               "[add]\nfrom=a\n[fc]\noutputs=2\n[softmax]\n",
               "[add] 'from': 'a' names the layers of lines");
    expect_bad("[conv]\nfilters=3\nsize=3\n[batchnorm]\nsize=3\n[fc]\noutputs=2\n[softmax]\n",
               ":9: [batchnorm] unknown key 'size'");
    expect_bad("[conv]\nfilters=3\nsize=3\n[layernorm]\n", "unknown section '[layernorm]'");
}

/* The network's loss at its current parameters (a training forward pass: BN with the batch's
 * statistics; the running statistics move, which the training loss does not read). */
static double loss_at(mb_net *net, const float *x, const int *y, int batch)
{
    float l = 0.0f;
    CU_ASSERT_EQUAL(mb_net_forward_backward(net, x, y, batch, &l), MB_OK);
    return l;
}

/* Central differences along a random direction over each layer's parameters in turn: the
 * directional derivative (L(p + h u) - L(p - h u)) / 2h against g . u. h = 1e-3 on entries
 * in [-1, 1]: the truncation error is O(h^2) (~1e-6), float32 rounding of a loss near 1
 * gives ~1e-4 after dividing by 2h; tolerance 2e-2 |g . u| + 5e-4. Returns the worst
 * relative error. */
static double grad_check(mb_net *net, const float *x, const int *y, int batch, uint32_t seed)
{
    const mb_net_desc *d = mb_net_description(net);
    const size_t n = mb_net_trainable_count(net);
    float *p = mb_net_params(net), *g = malloc(n * sizeof *g), *u = malloc(n * sizeof *u);
    float *p0 = malloc(mb_net_param_count(net) * sizeof *p0);
    loss_at(net, x, y, batch);
    memcpy(g, mb_net_grads(net), n * sizeof *g);
    memcpy(p0, p, mb_net_param_count(net) * sizeof *p0);
    double worst = 0.0;
    size_t off = 0;
    const double h = 1e-3;
    for (size_t i = 0; i < d->n_layers; i++) {
        size_t k = mb_layer_param_count(&d->layers[i]);
        if (k == 0)
            continue;
        fill(u, k, seed + (uint32_t)i, 1.0f);
        double gu = 0.0;
        for (size_t j = 0; j < k; j++)
            gu += (double)g[off + j] * u[j];
        for (size_t j = 0; j < k; j++)
            p[off + j] = p0[off + j] + (float)h * u[j];
        double lp = loss_at(net, x, y, batch);
        for (size_t j = 0; j < k; j++)
            p[off + j] = p0[off + j] - (float)h * u[j];
        double lm = loss_at(net, x, y, batch);
        memcpy(p + off, p0 + off, k * sizeof *p);
        double fd = (lp - lm) / (2 * h), e = fabs(fd - gu);
        int ok = e <= 2e-2 * fabs(gu) + 5e-4;
        CU_ASSERT_TRUE(ok);
        if (!ok)
            printf("\n    layer %zu '%s': g.u %.6g, central difference %.6g\n", i,
                   d->layers[i].name, gu, fd);
        worst = fmax(worst, e / fmax(fabs(gu), 1e-12));
        off += k;
    }
    CU_ASSERT_EQUAL(off, n);
    free(g), free(u), free(p0);
    return worst;
}

static void test_gradients_graph(void)
{
    mb_net_desc *d = NULL;
    CU_ASSERT_EQUAL_FATAL(read_cfg("g.cfg", GRAPH, &d, NULL), MB_OK);
    enum { B = 5 };
    float x[B * 2 * 6 * 6];
    int y[B] = {3, 0, 2, 1, 3};
    fill(x, sizeof x / sizeof x[0], 11, 1.0f);
    mb_net_options o = {B, 7, MB_CONV_AUTO, 1, NULL, 0};
    mb_net *net;
    CU_ASSERT_EQUAL_FATAL(mb_net_create(d, &o, &net, NULL), MB_OK);
    /* gamma and beta away from 1 and 0, so that their gradients are not special */
    fill(mb_net_params(net), mb_net_trainable_count(net), 5, 0.5f);
    grad_check(net, x, y, B, 101);
    grad_check(net, x, y, 3, 202);
    mb_net_free(net);
    mb_net_desc_free(d);
}

/* The whole small residual net, ReLU replaced by tanh and max by average pooling (as
 * test_train_net.c does for lenet5: thousands of ReLUs and max windows put kinks within any
 * finite step; with max pooling the stem's check fails by 15%, measured, a window's maximum
 * changing hands. Max pooling in this net is checked against PyTorch: test_train_parity.c). */
static void test_gradients_resnet(void)
{
    mb_net_desc *d = NULL;
    CU_ASSERT_EQUAL_FATAL(mb_net_desc_read("data/nets/resnet-mini.cfg", &d, NULL), MB_OK);
    for (size_t i = 0; i < d->n_layers; i++)
        if (d->layers[i].type == MB_LAYER_RELU)
            d->layers[i].type = MB_LAYER_TANH;
        else if (d->layers[i].type == MB_LAYER_MAXPOOL)
            d->layers[i].type = MB_LAYER_AVGPOOL;
    enum { B = 3 };
    float *x = malloc(B * 28 * 28 * sizeof *x);
    int y[B] = {7, 1, 4};
    fill(x, B * 28 * 28, 19, 1.0f);
    mb_net_options o = {B, 3, MB_CONV_AUTO, 1, NULL, 0};
    mb_net *net;
    CU_ASSERT_EQUAL_FATAL(mb_net_create(d, &o, &net, NULL), MB_OK);
    grad_check(net, x, y, B, 303);
    mb_net_free(net);
    mb_net_desc_free(d);
    free(x);
}

/* A batch of 40 over 4 threads (5 shards' worth, 4 used): BN normalises with the whole batch,
 * so the loss, the gradients and the running statistics are one thread's to float rounding
 * (the order of the sums changes: 1e-5 of each tensor's largest value). */
static void test_threads_whole_batch(void)
{
    mb_net_desc *d = NULL;
    CU_ASSERT_EQUAL_FATAL(read_cfg("g.cfg", GRAPH, &d, NULL), MB_OK);
    enum { B = 40 };
    float *x = malloc(B * 72 * sizeof *x);
    int y[B];
    fill(x, B * 72, 23, 1.0f);
    for (int i = 0; i < B; i++)
        y[i] = (i * 7) % 4;
    mb_net *one, *four;
    mb_net_options o = {B, 9, MB_CONV_AUTO, 1, NULL, 0};
    CU_ASSERT_EQUAL_FATAL(mb_net_create(d, &o, &one, NULL), MB_OK);
    o.threads = 4;
    CU_ASSERT_EQUAL_FATAL(mb_net_create(d, &o, &four, NULL), MB_OK);
    float l1, l4;
    CU_ASSERT_EQUAL(mb_net_forward_backward(one, x, y, B, &l1), MB_OK);
    CU_ASSERT_EQUAL(mb_net_forward_backward(four, x, y, B, &l4), MB_OK);
    CU_ASSERT_TRUE(mb_test_close(l1, l4, 1e-5));
    size_t n = mb_net_param_count(one), nt = mb_net_trainable_count(one);
    CU_ASSERT_TRUE(mb_test_rel_err(mb_net_grads(four), mb_net_grads(one), nt) < 1e-5);
    CU_ASSERT_TRUE(mb_test_rel_err(mb_net_params(four) + nt, mb_net_params(one) + nt, n - nt) <
                   1e-5);
    for (size_t i = nt; i < n; i++) /* the state has no gradient */
        CU_ASSERT_EQUAL(mb_net_grads(four)[i], 0.0f);
    double e1, e4;
    CU_ASSERT_EQUAL(mb_net_evaluate(one, x, y, B, &e1, NULL), MB_OK);
    CU_ASSERT_EQUAL(mb_net_evaluate(four, x, y, B, &e4, NULL), MB_OK);
    CU_ASSERT_TRUE(mb_test_close(e1, e4, 1e-5));
    mb_net_free(one);
    mb_net_free(four);
    mb_net_desc_free(d);
    free(x);
}

/* BN on the input itself, so the batch statistics are known here: after one training step the
 * running mean is 0.1 x the batch mean and the running var 0.9 + 0.1 x the unbiased batch
 * variance; evaluation normalises with them (a second evaluation agrees with the first: it
 * does not move them). */
static void test_running_stats(void)
{
    static const char BN_FIRST[] = "[net]\nchannels=2\nheight=3\nwidth=1\n"
                                   "[batchnorm]\n[fc]\noutputs=3\n[softmax]\n";
    mb_net_desc *d = NULL;
    CU_ASSERT_EQUAL_FATAL(read_cfg("bn.cfg", BN_FIRST, &d, NULL), MB_OK);
    enum { B = 4 };
    float x[B * 6];
    int y[B] = {0, 1, 2, 1};
    fill(x, B * 6, 31, 2.0f);
    for (int i = 0; i < B * 6; i++)
        x[i] += 0.75f;
    mb_net_options o = {B, 1, MB_CONV_AUTO, 1, NULL, 0};
    mb_net *net;
    CU_ASSERT_EQUAL_FATAL(mb_net_create(d, &o, &net, NULL), MB_OK);
    float l;
    CU_ASSERT_EQUAL(mb_net_forward_backward(net, x, y, B, &l), MB_OK);
    const float *st = mb_net_params(net) + mb_net_trainable_count(net);
    for (int c = 0; c < 2; c++) {
        double s = 0, q = 0;
        for (int n = 0; n < B; n++)
            for (int i = 0; i < 3; i++)
                s += x[n * 6 + c * 3 + i];
        double mean = s / 12;
        for (int n = 0; n < B; n++)
            for (int i = 0; i < 3; i++)
                q += pow(x[n * 6 + c * 3 + i] - mean, 2);
        CU_ASSERT_DOUBLE_EQUAL(st[c], 0.1 * mean, 1e-6);
        CU_ASSERT_DOUBLE_EQUAL(st[2 + c], 0.9 + 0.1 * q / 11, 1e-6);
    }
    double e1, e2;
    size_t ok;
    CU_ASSERT_EQUAL(mb_net_evaluate(net, x, y, B, &e1, &ok), MB_OK);
    CU_ASSERT_EQUAL(mb_net_evaluate(net, x, y, B, &e2, &ok), MB_OK);
    CU_ASSERT_EQUAL(e1, e2);
    CU_ASSERT_TRUE(isfinite(e1) && fabs(e1 - l) > 1e-6); /* running, not batch, statistics */
    mb_net_free(net);
    mb_net_desc_free(d);
}

/* The optimiser steps the trainable part only: weight decay and momentum leave the tail. */
static void test_optim_skips_state(void)
{
    mb_optim_params p = {MB_OPTIM_MOMENTUM, 0.1, 0.9, 0.5, 0, 0.1};
    mb_optim *opt;
    CU_ASSERT_EQUAL_FATAL(mb_optim_create(&p, 6, &opt, NULL), MB_OK);
    mb_optim_set_trainable(opt, 4);
    float x[6] = {1, 2, 3, 4, 0.25f, 1.5f}, g[6] = {1, 1, 1, 1, 1, 1};
    mb_optim_step(opt, x, g);
    mb_optim_step(opt, x, g);
    CU_ASSERT_EQUAL(x[4], 0.25f);
    CU_ASSERT_EQUAL(x[5], 1.5f);
    CU_ASSERT_TRUE(x[0] < 1.0f);
    mb_optim_free(opt);
}

#define SYN "synthetic:n=400,test=100,c=1,h=8,w=8,classes=4,seed=3"
static const char SMALL_RES[] = "[net]\nchannels=1\nheight=8\nwidth=8\n"
    "[conv]\nfilters=4\nsize=3\npad=1\n[batchnorm]\nactivation=relu\n"
    "[conv]\nfilters=4\nsize=3\npad=1\n[batchnorm]\n[add]\nfrom=relu1\nactivation=relu\n"
    "[maxpool]\nsize=2\n[fc]\noutputs=4\n[batchnorm]\n[softmax]\n";

/* The value of `key=` in a summary line, as text ("" when absent). */
static const char *field(const char *line, const char *key, char *buf, size_t n)
{
    char pat[64];
    snprintf(pat, sizeof pat, " %s=", key);
    const char *p = line ? strstr(line, pat) : NULL;
    buf[0] = '\0';
    if (p)
        snprintf(buf, n, "%.*s", (int)strcspn(p + strlen(pat), " \n"), p + strlen(pat));
    return buf;
}

/* A checkpoint carries the running statistics (the tail of the parameter block): a run
 * stopped at 12 updates and resumed to 30 evaluates as the straight run of 30 does, which it
 * would not with the statistics lost (they are the evaluation's). */
static void test_checkpoint_state(void)
{
    char cfg[512];
    mb_test_write(cfg, sizeof cfg, dir, "res.cfg", SMALL_RES);
    const char *common = "--data " SYN " --algo momentum --lr 0.05 --batch 16 --eval-every 10 "
                         "--seed 5 --threads 1";
    mb_test_run a, b, c;
    mb_test_sh_ok(&a, "mbtrain --net %s %s --max-updates 30 --log %s/straight.csv", cfg, common,
                  dir);
    mb_test_sh_ok(&b, "mbtrain --net %s %s --max-updates 12 --checkpoint %s/bn.ck "
                  "--checkpoint-every 10 --log %s/part.csv", cfg, common, dir, dir);
    mb_test_sh_ok(&c, "mbtrain --net %s %s --max-updates 30 --resume %s/bn.ck --log %s/res.csv",
                  cfg, common, dir, dir);
    char x[64], y[64];
    CU_ASSERT_STRING_NOT_EQUAL(field(a.out, "eval_loss", x, sizeof x), "");
    CU_ASSERT_STRING_EQUAL(field(a.out, "eval_loss", x, sizeof x),
                           field(c.out, "eval_loss", y, sizeof y));
    CU_ASSERT_STRING_EQUAL(field(a.out, "test_loss", x, sizeof x),
                           field(c.out, "test_loss", y, sizeof y));
    CU_ASSERT_STRING_EQUAL(field(c.out, "updates", x, sizeof x), "30");
    mb_test_run_free(&a), mb_test_run_free(&b), mb_test_run_free(&c);
}

/* The parallel algorithms train a BN net (each learner normalises its own slice, and keeps its
 * own statistics or averages them with the parameters); DOWNPOUR, whose server moves the
 * centre by gradients alone, refuses one with one line. */
static void test_parallel_bn(void)
{
    char cfg[512];
    mb_test_write(cfg, sizeof cfg, dir, "res.cfg", SMALL_RES);
    static const char *const algos[] = {"sgd-sync", "easgd-sync", "sma", "easgd"};
    for (size_t i = 0; i < sizeof algos / sizeof algos[0]; i++) {
        mb_test_run r;
        if (mb_test_sh_ok(&r, "mbtrain --net %s --data " SYN " --algo %s --learners 2 "
                          "--batch 16 --lr 0.05 --max-updates 20 --eval-every 10 --seed 1",
                          cfg, algos[i])) {
            char v[64];
            double e = atof(field(r.out, "eval_loss", v, sizeof v));
            CU_ASSERT_TRUE(isfinite(e) && e > 0 && e < 5);
        }
        mb_test_run_free(&r);
    }
    char args[1024];
    snprintf(args, sizeof args, "--net %s --data " SYN " --algo downpour --learners 2 "
             "--batch 16 --max-updates 4", cfg);
    mb_test_expect_failure("mbtrain", args, 1, "has batch normalisation (layer 'batchnorm1')");
}

int mb_test_suite_train_graph(void)
{
    CU_pSuite s = CU_add_suite("train_graph", suite_init, suite_clean);
    return !s || !CU_add_test(s, "graph cfg: from=, add, concat, batchnorm", test_parse_graph) ||
           !CU_add_test(s, "graph cfg errors: file, line, field", test_parse_errors) ||
           !CU_add_test(s, "BN, add, concat gradients by central differences",
                        test_gradients_graph) ||
           !CU_add_test(s, "resnet-mini gradients by central differences",
                        test_gradients_resnet) ||
           !CU_add_test(s, "BN over threads: whole-batch statistics", test_threads_whole_batch) ||
           !CU_add_test(s, "BN running statistics and evaluation", test_running_stats) ||
           !CU_add_test(s, "optimiser leaves the state alone", test_optim_skips_state) ||
           !CU_add_test(s, "checkpoints carry the BN state", test_checkpoint_state) ||
           !CU_add_test(s, "parallel algorithms with BN", test_parallel_bn);
}
