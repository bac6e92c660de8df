/* test_train_parity.c — mbkit's trainer against PyTorch on a graph network with batch
 * normalisation: data/nets/resnet-mini.cfg on a batch of Fashion-MNIST-sized inputs, one
 * training step (forward, backward, the running statistics' update) and an evaluation after
 * it; tests/parity_resnet.py builds the same network in PyTorch from the dump written here with
 * the same parameters and batch, and compares the loss, every gradient tensor, the running
 * statistics and the evaluation loss (float64 and float32 torch; < 1e-4 of each tensor's scale).
 * On one thread and on two (the batch split in shards, BN's statistics reduced across them).
 *
 * The Python is mb_test_python() (Debian's python3-torch, which make check installs): without
 * torch the suite holds one test, which fails naming it.
 */
#include <CUnit/CUnit.h>
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

static void put(const char *name, const void *p, size_t bytes)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fwrite(p, 1, bytes, f), bytes);
    fclose(f);
}

/* graph.txt: one line per layer, what parity_resnet.py builds the network from. */
static void put_graph(const mb_net_desc *d)
{
    char path[512];
    snprintf(path, sizeof path, "%s/graph.txt", dir);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    for (size_t i = 0; i < d->n_layers; i++) {
        const mb_layer_desc *l = &d->layers[i];
        char ins[64] = "";
        for (int k = 0; k < l->n_inputs; k++)
            snprintf(ins + strlen(ins), sizeof ins - strlen(ins), "%s%d", k ? "," : "",
                     l->inputs[k]);
        fprintf(f, "%s %s %d %d %d %d %d %d %d %g\n", mb_layer_type_name(l->type), ins, l->in_c,
                l->in_h, l->in_w, l->out_c, l->size, l->stride, l->pad, (double)l->p);
    }
    fclose(f);
}

/* One step of resnet-mini at batch B on `threads` threads, dumped; then the Python. */
static void parity(int threads)
{
    enum { B = 16 };
    mb_net_desc *d = NULL;
    mb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(mb_net_desc_read("data/nets/resnet-mini.cfg", &d, &err), MB_OK);
    mb_net_options o = {B, 4, MB_CONV_AUTO, threads, NULL, 0};
    mb_net *net;
    CU_ASSERT_EQUAL_FATAL(mb_net_create(d, &o, &net, &err), MB_OK);
    const size_t n = mb_net_param_count(net), nt = mb_net_trainable_count(net);
    float *x = malloc(B * 784 * sizeof *x);
    int y[B];
    uint32_t s = 77;
    for (int i = 0; i < B * 784; i++) { /* pixels in [0, 1), as the loaders give */
        s = s * 1664525u + 1013904223u;
        x[i] = (float)(s >> 8) / 16777216.0f;
    }
    for (int i = 0; i < B; i++)
        y[i] = (i * 3 + 1) % 10;
    put_graph(mb_net_description(net));
    put("params.bin", mb_net_params(net), n * sizeof(float));
    put("x.bin", x, B * 784 * sizeof *x);
    put("y.bin", y, sizeof y);
    float loss;
    CU_ASSERT_EQUAL(mb_net_forward_backward(net, x, y, B, &loss), MB_OK);
    put("grads.bin", mb_net_grads(net), nt * sizeof(float));
    put("state.bin", mb_net_params(net) + nt, (n - nt) * sizeof(float));
    double ev;
    CU_ASSERT_EQUAL(mb_net_evaluate(net, x, y, B, &ev, NULL), MB_OK);
    char text[64];
    snprintf(text, sizeof text, "%.9g\n", (double)loss);
    put("loss.txt", text, strlen(text));
    snprintf(text, sizeof text, "%.12g\n", ev);
    put("eval.txt", text, strlen(text));
    mb_test_run r;
    mb_test_sh_ok(&r, "%s tests/parity_resnet.py %s", mb_test_python(), dir);
    const char *last = r.out ? strstr(r.out, "max abs difference") : NULL;
    CU_ASSERT_PTR_NOT_NULL(last);
    if (last)
        printf("\n    %d thread(s): %.*s ", threads, (int)strcspn(last, "\n"), last);
    mb_test_run_free(&r);
    mb_net_free(net);
    mb_net_desc_free(d);
    free(x);
}

static void test_parity_one(void) { parity(1); }
static void test_parity_two(void) { parity(2); }

static int add_tests(CU_pSuite s)
{
    return !CU_add_test(s, "resnet-mini against PyTorch, one thread", test_parity_one) ||
           !CU_add_test(s, "resnet-mini against PyTorch, two threads", test_parity_two);
}

int mb_test_suite_train_parity(void)
{
    CU_pSuite s = CU_add_suite("train_parity", suite_init, suite_clean);
    return !s || mb_test_need_torch(s, "resnet parity", add_tests);
}
