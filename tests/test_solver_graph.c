/* test_solver_graph.c — the memory model and the convolution ILP on a graph network with batch
 * normalisation (data/nets/resnet-mini.cfg): every term of mbopt mem by hand (BN's parameters
 * and running statistics, the outputs of BN, add and pool, the ReLU output a later add reads
 * (block 1's, the skip of block 2), kept alive), and mbopt conv choosing per layer and pass from a written table in which
 * different layers have different fastest algorithms.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../solver/mb_solver.h"
#include "../net/mb_net.h"
#include "mb_test.h"

static char dir[256];

static int suite_init(void) { return mb_test_tmpdir(dir, sizeof dir); }

static int suite_clean(void)
{
    mb_test_rmdir(dir);
    return 0;
}

static void test_memory(void)
{
    mb_net_desc *d = NULL;
    CU_ASSERT_EQUAL_FATAL(mb_net_desc_read("data/nets/resnet-mini.cfg", &d, NULL), MB_OK);
    mb_mem_layer *ml = calloc(d->n_layers, sizeof *ml);
    mb_solver_mem_layers(d, ml);
    int n_bn = 0, n_join = 0, n_kept = 0;
    for (size_t i = 0; i < d->n_layers; i++) {
        n_bn += ml[i].kind == MB_MEM_BN;
        n_join += ml[i].kind == MB_MEM_JOIN;
        n_kept += ml[i].kept;
        if (strcmp(d->layers[i].name, "b1_out") == 0) /* b2_add reads it: kept */
            CU_ASSERT_TRUE(ml[i].kept && ml[i].kind == MB_MEM_ELEMENTWISE);
        if (strcmp(d->layers[i].name, "relu1") == 0) /* the stem's ReLU: the next layer's */
            CU_ASSERT_FALSE(ml[i].kept);
    }
    CU_ASSERT_EQUAL(n_bn, 5);
    CU_ASSERT_EQUAL(n_join, 2);
    CU_ASSERT_EQUAL(n_kept, 2); /* pool1 (b1_add) and b1_out (b2_add) */
    mb_mem_options o;
    mb_model_mem_defaults(&o);
    mb_mem_total t;
    const double M = 37;
    CU_ASSERT_EQUAL_FATAL(mb_model_mem(ml, d->n_layers, M, &o, &t), MB_OK);
    /* stem 16*9+16, four convs 16*16*9+16, fc 784*10+10, five BN 2*16 */
    const double params = 160 + 4 * 2320 + 7850 + 5 * 32;
    CU_ASSERT_DOUBLE_EQUAL(t.params, 4 * params, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t.grads, 4 * params, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(t.state, 4 * (params + 5 * 32), 1e-9); /* + running mean, var */
    /* kept outputs per sample: stem and stem_bn 16x28x28; pool1, four convs, four BN, two
     * adds and b1_out 16x14x14; pool2 16x7x7; fc 10 (in-place ReLUs: none but b1_out) */
    const double fmap = 2 * 12544 + 12 * 3136 + 784 + 10;
    CU_ASSERT_DOUBLE_EQUAL(t.fmaps, 4 * M * fmap, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(t.input, 4 * M * 784, 1e-9);
    free(ml);
    mb_net_desc_free(d);
}

/* A table where b1_conv1 is fastest with winograd and b2_conv2 with fft, gemm elsewhere: the
 * ILP's choice follows each layer, and the stem has no backward_data (the input's gradient). */
static void test_conv_choice(void)
{
    static const char *const layers[] = {"stem", "b1_conv1", "b1_conv2", "b2_conv1", "b2_conv2"};
    static const char *const algos[] = {"gemm", "direct", "fft", "winograd"};
    static const char *const passes[] = {"forward", "backward_data", "backward_filter"};
    char path[512];
    snprintf(path, sizeof path, "%s/conv.csv", dir);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "layer,algo,pass,batch,t_median_s,workspace_bytes\n");
    for (int l = 0; l < 5; l++)
        for (int a = 0; a < 4; a++)
            for (int p = 0; p < 3; p++) {
                double t = a == 0 ? 9.1e-4 : 1.3e-3;
                if ((l == 1 && a == 3) || (l == 4 && a == 2))
                    t = 2.7e-4;
                fprintf(f, "%s,%s,%s,16,%.6g,%d\n", layers[l], algos[a], passes[p],
                        t * (1 + 0.01 * l), 4096 * (a + 1));
            }
    fclose(f);
    mb_test_run r;
    if (mb_test_sh_ok(&r, "mbopt conv --net resnet-mini --probe %s --mem 1G --batch 16",
                      path)) {
        CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "b1_conv1           forward          winograd"));
        CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "b2_conv2           backward_data    fft"));
        CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "b1_conv2           forward          gemm"));
        CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "stem               forward          gemm"));
        CU_ASSERT_PTR_NULL(strstr(r.out, "stem               backward_data"));
    }
    mb_test_run_free(&r);
    /* mbopt mem names the graph's layers and counts their kinds */
    if (mb_test_sh_ok(&r, "mbopt mem --net resnet-mini --mem 1G --batch 64")) {
        CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "stem_bn          bn      16x28x28"));
        CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "b1_add           join    16x14x14"));
        CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "b1_out           inplace 16x14x14"));
    }
    mb_test_run_free(&r);
}

int mb_test_suite_solver_graph(void)
{
    CU_pSuite s = CU_add_suite("solver_graph", suite_init, suite_clean);
    return !s || !CU_add_test(s, "memory model of resnet-mini", test_memory) ||
           !CU_add_test(s, "mbopt conv and mem on resnet-mini", test_conv_choice);
}
