/* test_train_desc.c — net/desc_read.c: the shipped networks read with the shapes their papers
 * give (written out here by hand from the papers, not computed by the code under test), the
 * format's features (comments, defaults, activation=, generated names, base-name fallback), and
 * every format error with its "file:line:" prefix.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

#include "../net/mb_net.h"
#include "../train/learner/mb_learner.h"
#include "mb_test.h"

/* Expected (type, out_c, out_h) for a layer; out_w = out_h for these square nets. */
typedef struct want {
    mb_layer_type type;
    int c, h;
} want;

static void check_net(const char *name, int in_c, int in_h, const want *w, size_t n,
                      int classes)
{
    mb_net_desc *d = NULL;
    mb_error err = {0};
    int rc = mb_net_desc_read(name, &d, &err);
    if (rc != MB_OK)
        printf("\n    %s: %s\n", name, err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, MB_OK);
    CU_ASSERT_STRING_EQUAL(d->name, name);
    CU_ASSERT_EQUAL(d->in_c, in_c);
    CU_ASSERT_EQUAL(d->in_h, in_h);
    CU_ASSERT_EQUAL(d->in_w, in_h);
    CU_ASSERT_EQUAL(d->classes, classes);
    CU_ASSERT_EQUAL(d->n_layers, n);
    for (size_t i = 0; i < n && i < d->n_layers; i++) {
        const mb_layer_desc *l = &d->layers[i];
        CU_ASSERT_EQUAL(l->type, w[i].type);
        CU_ASSERT_EQUAL(l->out_c, w[i].c);
        CU_ASSERT_EQUAL(l->out_h, w[i].h);
        CU_ASSERT_EQUAL(l->out_w, w[i].h);
        if (i > 0) { /* layers chain */
            CU_ASSERT_EQUAL(l->in_c, d->layers[i - 1].out_c);
            CU_ASSERT_EQUAL(l->in_h, d->layers[i - 1].out_h);
        }
        CU_ASSERT_TRUE(l->line > 0);
    }
    mb_net_desc_free(d);
}

#define C MB_LAYER_CONV
#define P MB_LAYER_MAXPOOL
#define F MB_LAYER_FC
#define R MB_LAYER_RELU
#define D MB_LAYER_DROPOUT
#define S MB_LAYER_SOFTMAX

static void test_shipped(void)
{
    /* LeNet-5: 28 -> conv pad 2 -> 28 -> 14 -> 10 -> 5, fc 120, 84, 10 */
    const want lenet[] = {{C, 6, 28}, {R, 6, 28}, {P, 6, 14}, {C, 16, 10}, {R, 16, 10},
                          {P, 16, 5}, {F, 120, 1}, {R, 120, 1}, {F, 84, 1}, {R, 84, 1},
                          {F, 10, 1}, {S, 10, 1}};
    check_net("lenet5", 1, 28, lenet, sizeof lenet / sizeof lenet[0], 10);
    /* Zhang et al. 2015: (3,28)C(64,24)P(64,12)C(128,8)P(128,4)C(64,2)D(256,1)S(10,1) */
    const want cifar[] = {{C, 64, 24}, {R, 64, 24}, {P, 64, 12}, {C, 128, 8}, {R, 128, 8},
                          {P, 128, 4}, {C, 64, 2},  {R, 64, 2},  {F, 256, 1}, {R, 256, 1},
                          {D, 256, 1}, {F, 10, 1},  {S, 10, 1}};
    check_net("cifar7", 3, 28, cifar, sizeof cifar / sizeof cifar[0], 10);
    const want vgg[] = {{C, 32, 32},  {R, 32, 32},  {C, 32, 32},  {R, 32, 32},  {P, 32, 16},
                        {C, 64, 16},  {R, 64, 16},  {C, 64, 16},  {R, 64, 16},  {P, 64, 8},
                        {C, 128, 8},  {R, 128, 8},  {C, 128, 8},  {R, 128, 8},  {P, 128, 4},
                        {F, 256, 1},  {R, 256, 1},  {D, 256, 1},  {F, 10, 1},   {S, 10, 1}};
    check_net("vgg-small", 3, 32, vgg, sizeof vgg / sizeof vgg[0], 10);
    /* Krizhevsky et al. 2012 (one tower): 227 -> 55 -> 27 -> 27 -> 13 -> 13 -> 13 -> 13 -> 6 */
    const want alex[] = {{C, 96, 55},   {R, 96, 55},   {P, 96, 27},   {C, 256, 27},
                         {R, 256, 27},  {P, 256, 13},  {C, 384, 13},  {R, 384, 13},
                         {C, 384, 13},  {R, 384, 13},  {C, 256, 13},  {R, 256, 13},
                         {P, 256, 6},   {F, 4096, 1},  {R, 4096, 1},  {D, 4096, 1},
                         {F, 4096, 1},  {R, 4096, 1},  {D, 4096, 1},  {F, 1000, 1},
                         {S, 1000, 1}};
    check_net("alexnet", 3, 227, alex, sizeof alex / sizeof alex[0], 1000);
    /* a path works as well as a bare name */
    mb_net_desc *d = NULL;
    CU_ASSERT_EQUAL(mb_net_desc_read(MB_TEST_SRC "/data/nets/lenet5.cfg", &d, NULL), MB_OK);
    mb_net_desc_free(d);
}

static char dir[256];

/* Writes `text` as dir/NAME and reads it. */
static int read_text(const char *name, const char *text, mb_net_desc **d, mb_error *err)
{
    char path[512];
    mb_test_write(path, sizeof path, dir, name, text);
    mb_error_clear(err);
    return mb_net_desc_read(path, d, err);
}

static void test_features(void)
{
    const char *text = "; a tiny net\n"
                       "[net]\n"
                       "channels = 2   # inline comment\n"
                       "height=9\nwidth=7\n"
                       "\n[conv]\nfilters=3\nsize=3\npad=1\nstride=2\nactivation=tanh\nalgo=direct\n"
                       "[avgpool]\nsize=2\n"
                       "[conv]\nname=last_conv\nfilters=4\nsize=2\nactivation=linear\n"
                       "[dropout]\np=0.25\n"
                       "[fc]\nfilters=5\nactivation=sigmoid\n"
                       "[softmax]\n";
    mb_net_desc *d = NULL;
    mb_error err = {0};
    int rc = read_text("tiny-net.cfg", text, &d, &err);
    if (rc != MB_OK)
        printf("\n    %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, MB_OK);
    CU_ASSERT_STRING_EQUAL(d->name, "tiny-net"); /* no name=: the file's base name */
    CU_ASSERT_EQUAL_FATAL(d->n_layers, 8);
    const mb_layer_desc *l = d->layers;
    /* conv 9x7 pad 1 k 3 stride 2: (9+2-3)/2+1 = 5, (7+2-3)/2+1 = 4 */
    CU_ASSERT_EQUAL(l[0].type, MB_LAYER_CONV);
    CU_ASSERT_STRING_EQUAL(l[0].name, "conv1");
    CU_ASSERT_EQUAL(l[0].algo, MB_CONV_DIRECT);
    CU_ASSERT_EQUAL(l[0].out_c, 3);
    CU_ASSERT_EQUAL(l[0].out_h, 5);
    CU_ASSERT_EQUAL(l[0].out_w, 4);
    CU_ASSERT_EQUAL(l[0].line, 7);
    CU_ASSERT_EQUAL(l[1].type, MB_LAYER_TANH);
    CU_ASSERT_STRING_EQUAL(l[1].name, "tanh1");
    /* avgpool size 2, stride defaults to size: 5x4 -> 2x2 */
    CU_ASSERT_EQUAL(l[2].type, MB_LAYER_AVGPOOL);
    CU_ASSERT_EQUAL(l[2].stride, 2);
    CU_ASSERT_EQUAL(l[2].out_h, 2);
    CU_ASSERT_EQUAL(l[2].out_w, 2);
    /* named conv, linear activation appends nothing, algo unset */
    CU_ASSERT_STRING_EQUAL(l[3].name, "last_conv");
    CU_ASSERT_EQUAL(l[3].algo, MB_CONV_AUTO);
    CU_ASSERT_EQUAL(l[3].stride, 1);
    CU_ASSERT_EQUAL(l[3].out_h, 1);
    CU_ASSERT_EQUAL(l[4].type, MB_LAYER_DROPOUT);
    CU_ASSERT_TRUE(l[4].p == 0.25f);
    CU_ASSERT_EQUAL(l[5].type, MB_LAYER_FC);
    CU_ASSERT_STRING_EQUAL(l[5].name, "fc1");
    CU_ASSERT_EQUAL(l[6].type, MB_LAYER_SIGMOID);
    CU_ASSERT_EQUAL(l[7].type, MB_LAYER_SOFTMAX);
    CU_ASSERT_EQUAL(d->classes, 5);
    mb_net_desc_free(d);
    mb_net_desc_free(NULL);
}

/* A bad cfg must fail with `code` and a message starting "PATH:LINE:" and containing `what`. */
static void bad(const char *text, int line, const char *what)
{
    mb_net_desc *d = (mb_net_desc *)&d;
    mb_error err = {0};
    int rc = read_text("bad.cfg", text, &d, &err);
    char prefix[600];
    snprintf(prefix, sizeof prefix, "%s/bad.cfg:%d: ", dir, line);
    int ok = rc == MB_EFORMAT && d == NULL && strncmp(err.msg, prefix, strlen(prefix)) == 0 &&
             strstr(err.msg, what) != NULL;
    if (!ok)
        printf("\n    want line %d '%s', got rc %d: %s\n", line, what, rc, err.msg);
    CU_ASSERT_TRUE(ok);
}

#define NET "[net]\nchannels=1\nheight=8\nwidth=8\n" /* lines 1-4 */

static void test_errors(void)
{
    bad(NET "[conv]\nfilters=2\nsize=3\n[banana]\n[softmax]\n", 8, "unknown section '[banana]'");
    bad(NET "[conv]\nfilters=2\nsize=3\nkernel=3\n[softmax]\n", 8, "unknown key 'kernel'");
    bad(NET "color=yes\n[fc]\noutputs=3\n[softmax]\n", 5, "unknown key 'color'");
    bad(NET "[conv]\nfilters=two\nsize=3\n[softmax]\n", 6, "'two'");
    bad(NET "[conv]\nfilters=0\nsize=3\n[softmax]\n", 6, "filters");
    bad(NET "[conv]\nfilters=2\nsize=3\npad=-1\n[softmax]\n", 8, "pad");
    bad(NET "[conv]\nfilters=2\nsize=3\nfilters=4\n[softmax]\n", 8, "given twice");
    bad(NET "[conv]\nsize=3\n[softmax]\n", 5, "needs 'filters'");
    bad(NET "[maxpool]\nstride=2\n[fc]\noutputs=2\n[softmax]\n", 5, "needs 'size'");
    bad(NET "[fc]\nactivation=relu\n[softmax]\n", 5, "needs 'outputs'");
    bad(NET "[fc]\noutputs=3\nactivation=swish\n[softmax]\n", 7, "activation 'swish'");
    bad(NET "[conv]\nfilters=2\nsize=3\nalgo=magic\n[softmax]\n", 8, "algo 'magic'");
    bad(NET "[dropout]\np=1.5\n[fc]\noutputs=2\n[softmax]\n", 6, "[dropout] p");
    bad(NET "[fc]\noutputs=3\n", 6, "last layer must be [softmax]");
    bad(NET "[fc]\noutputs=3\n[softmax]\n[relu]\n", 8, "after [softmax]");
    bad(NET "[fc]\noutputs=3\nbogus line\n[softmax]\n", 7, "expected 'key=value'");
    bad(NET "[fc\n", 5, "malformed section");
    bad(NET "[fc]\noutputs=\n[softmax]\n", 6, "has no value");
    bad(NET "[net]\n", 5, "[net] given twice");
    bad("[conv]\nfilters=2\n", 1, "first section must be [net]");
    bad("filters=2\n", 1, "outside a section");
    bad("[net]\nchannels=1\nheight=8\n[fc]\noutputs=2\n[softmax]\n", 1, "needs 'width'");
    bad("# nothing\n", 1, "no [net]");
    /* shapes that do not chain: a 5x5 kernel on the 3x3 map after pooling (the layer's line) */
    bad(NET "[maxpool]\nsize=2\nstride=3\n[conv]\nfilters=2\nsize=5\n[softmax]\n", 8, "");
    /* layer lists: input= needs graph=none, and a well-formed CxHxW */
    bad(NET "[conv]\nfilters=2\nsize=3\ninput=1x8x8\n[softmax]\n", 8, "needs [net] graph=none");
    bad("[net]\nchannels=1\nheight=8\nwidth=8\ngraph=none\n[conv]\nfilters=2\nsize=3\n"
        "input=1x8\n", 9, "is not CxHxW");
    bad("[net]\nchannels=1\nheight=8\nwidth=8\ngraph=tree\n[softmax]\n", 5, "graph 'tree'");
    /* softmax over a single value */
    bad(NET "[fc]\noutputs=1\n[softmax]\n", 7, "softmax");
    /* line ends of CR alone (old Mac text) named as the CSV reader names them (campaign 32's
     * P8: "malformed section header '[net]\rchannels=1...'"); CR LF line ends are read */
    bad("[net]\rchannels=1\rheight=8\r", 1, "a carriage return inside the line: line ends of CR "
        "alone (old Mac text) are not read; convert them to LF");
    bad(NET "[fc]\noutputs=3\r[softmax]\n", 6, "a carriage return inside the line");

    mb_net_desc *d = NULL;
    mb_error err = {0};
    CU_ASSERT_EQUAL(mb_net_desc_read("no-such-net", &d, &err), MB_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no-such-net"));
    CU_ASSERT_EQUAL(mb_net_desc_read("/nonexistent/x.cfg", &d, &err), MB_EIO);
    CU_ASSERT_PTR_NULL(d);
    CU_ASSERT_EQUAL(read_text("crlf.cfg", "[net]\r\nchannels=1\r\nheight=8\r\nwidth=8\r\n[fc]\r\n"
                              "outputs=3 # three\r\n[softmax]\r\n", &d, &err), MB_OK);
    CU_ASSERT_TRUE(d && d->n_layers == 2);
    mb_net_desc_free(d);
}

/* Layer lists ([net] graph=none): ResNet-50's 53 convolutions with shapes from He et al. 2016
 * Table 1, VGG-16's chain, the input= key, and mb_net_create refusing a list. */
static void test_layer_list(void)
{
    mb_net_desc *d = NULL;
    mb_error err = {0};
    int rc = mb_net_desc_read("resnet50", &d, &err);
    if (rc != MB_OK)
        printf("\n    %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, MB_OK);
    CU_ASSERT_TRUE(d->layer_list);
    size_t convs = 0;
    const mb_layer_desc *by[4] = {NULL};
    static const char *const names[] = {"res3a_branch2b", "res4a_branch1", "res5c_branch2c",
                                        "conv1"};
    for (size_t i = 0; i < d->n_layers; i++) {
        convs += d->layers[i].type == MB_LAYER_CONV;
        for (int k = 0; k < 4; k++)
            if (strcmp(d->layers[i].name, names[k]) == 0)
                by[k] = &d->layers[i];
    }
    CU_ASSERT_EQUAL(convs, 53); /* 1 + 3 x (3 + 4 + 6 + 3) + 4 projections */
    for (int k = 0; k < 4; k++)
        CU_ASSERT_PTR_NOT_NULL_FATAL(by[k]);
    /* conv3_x's first 3x3: 128 channels at 56, stride 2 -> 28 */
    CU_ASSERT_EQUAL(by[0]->in_c, 128);
    CU_ASSERT_EQUAL(by[0]->in_h, 56);
    CU_ASSERT_EQUAL(by[0]->out_h, 28);
    /* conv4_x's projection: 512x28x28 -> 1024x14x14 */
    CU_ASSERT_EQUAL(by[1]->in_c, 512);
    CU_ASSERT_EQUAL(by[1]->out_c, 1024);
    CU_ASSERT_EQUAL(by[1]->out_h, 14);
    CU_ASSERT_EQUAL(by[2]->out_c, 2048);
    CU_ASSERT_EQUAL(by[2]->out_h, 7);
    CU_ASSERT_EQUAL(by[3]->out_h, 112); /* (224 + 6 - 7) / 2 + 1 */
    CU_ASSERT_EQUAL(d->classes, 1000);
    /* a list cannot be trained */
    mb_net_options o = {.max_batch = 1};
    mb_net *net = NULL;
    CU_ASSERT_EQUAL(mb_net_create(d, &o, &net, &err), MB_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "layer list"));
    CU_ASSERT_PTR_NULL(net);
    mb_net_desc_free(d);

    /* VGG-16: 224 -> 112 -> 56 -> 28 -> 14 -> 7, 13 convolutions, a chain */
    CU_ASSERT_EQUAL_FATAL(mb_net_desc_read("vgg16", &d, &err), MB_OK);
    CU_ASSERT_FALSE(d->layer_list);
    convs = 0;
    for (size_t i = 0; i < d->n_layers; i++)
        convs += d->layers[i].type == MB_LAYER_CONV;
    CU_ASSERT_EQUAL(convs, 13);
    for (size_t i = 0; i < d->n_layers; i++)
        if (d->layers[i].type == MB_LAYER_FC) {
            CU_ASSERT_EQUAL(d->layers[i].in_c * d->layers[i].in_h * d->layers[i].in_w, 512 * 7 * 7);
            break;
        }
    mb_net_desc_free(d);

    /* a list without softmax; a layer without input= follows the previous one */
    const char *text = "[net]\nchannels=3\nheight=32\nwidth=32\ngraph=none\n"
                       "[conv]\nname=a\nfilters=8\nsize=3\npad=1\n"
                       "[conv]\nname=b\ninput=5x17x19\nfilters=4\nsize=3\nstride=2\n"
                       "[conv]\nname=c\nfilters=2\nsize=1\n";
    rc = read_text("list.cfg", text, &d, &err);
    if (rc != MB_OK)
        printf("\n    %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(rc, MB_OK);
    CU_ASSERT_EQUAL_FATAL(d->n_layers, 3);
    CU_ASSERT_EQUAL(d->layers[0].out_h, 32);
    CU_ASSERT_EQUAL(d->layers[1].in_c, 5);
    CU_ASSERT_EQUAL(d->layers[1].out_h, 8); /* (17 - 3) / 2 + 1 */
    CU_ASSERT_EQUAL(d->layers[1].out_w, 9);
    CU_ASSERT_EQUAL(d->layers[2].in_c, 4);
    CU_ASSERT_EQUAL(d->layers[2].in_h, 8);
    CU_ASSERT_EQUAL(d->classes, 0);
    mb_net_desc_free(d);
}

static int setup(void) { return mb_test_tmpdir(dir, sizeof dir); }
static int teardown(void)
{
    mb_test_rmdir(dir);
    return 0;
}

int mb_test_suite_train_desc(void)
{
    CU_pSuite s = CU_add_suite("train_desc", setup, teardown);
    return !s || !CU_add_test(s, "shipped networks and their shapes", test_shipped) ||
           !CU_add_test(s, "format features", test_features) ||
           !CU_add_test(s, "format errors name file and line", test_errors) ||
           !CU_add_test(s, "layer lists: resnet50, vgg16, input=", test_layer_list);
}
