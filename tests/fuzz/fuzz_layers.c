/* fuzz_layers.c — the network description's layer arithmetic, without the cfg parser in the way:
 * the input's bytes become a description directly (input shape, then layers of kind, filters,
 * kernel, stride, pad, each 0 .. 10^6 as a cfg may give them), and what every consumer
 * computes from it runs on whatever the shape inference accepts: output sides
 * (mb_net_desc_infer_list, mb_conv_out_h/w), each convolution's workspace for every algorithm
 * and pass at a fuzzed batch (what mbprobe conv allocates, for the shapes its guard
 * mb_probe_conv_shape_ok passes on), and the memory model of mbopt mem
 * (mb_model_mem, mb_model_mem_max_batch). Under UBSan any signed overflow or bad shift is a
 * crash; a result must be finite or refused. (fuzz_desc reads cfg text; this one reaches the
 * arithmetic with values no parser would pass on.)
 */
#include "fuzz_common.h"

#include <math.h>
#include <string.h>

#include "../../model/mb_model.h"
#include "../../probe/mb_probe.h"
#include "../../net/mb_net.h"
#include "../../train/backend/mb_backend.h"

#define MAX_LAYERS 12

/* The largest filters, size, stride, pad or side a cfg may give (net/desc_read.c): the
 * harness stays inside what a user can write, so what it finds a user can reach. */
#define MAX_SIDE 1000000

/* The next 4 bytes as a number a cfg could hold, most often small: the low bits pick the
 * scale. */
static int take(const uint8_t **p, const uint8_t *end)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v = v << 8 | (*p < end ? *(*p)++ : 0);
    switch (v & 3) {
    case 0: return (int)((v >> 2) % 64);             /* the usual sizes */
    case 1: return (int)((v >> 2) % 5000);           /* larger */
    case 2: return (int)((v >> 2) % (MAX_SIDE + 1)); /* anything the reader takes */
    default: return MAX_SIDE - (int)((v >> 2) % 4);  /* at the limit */
    }
}

static const mb_layer_type kinds[] = {MB_LAYER_CONV, MB_LAYER_MAXPOOL, MB_LAYER_AVGPOOL,
                                      MB_LAYER_FC, MB_LAYER_RELU, MB_LAYER_TANH,
                                      MB_LAYER_SIGMOID, MB_LAYER_DROPOUT, MB_LAYER_SOFTMAX};

static void arithmetic(const mb_net_desc *d, int batch)
{
    mb_mem_layer ml[MAX_LAYERS];
    size_t n = 0;
    for (size_t i = 0; i < d->n_layers; i++) {
        const mb_layer_desc *l = &d->layers[i];
        mb_mem_kind k = l->type == MB_LAYER_CONV ? MB_MEM_CONV
                        : l->type == MB_LAYER_FC ? MB_MEM_FC
                        : l->type == MB_LAYER_MAXPOOL || l->type == MB_LAYER_AVGPOOL
                            ? MB_MEM_POOL
                            : MB_MEM_ELEMENTWISE;
        ml[n++] = (mb_mem_layer){k, l->name, l->in_c, l->in_h, l->in_w, l->out_c, l->out_h,
                                 l->out_w, l->type == MB_LAYER_CONV ? l->size : 0, 0};
        if (l->type != MB_LAYER_CONV)
            continue;
        mb_conv_shape s = {batch, l->in_c, l->in_h, l->in_w, l->out_c, l->size, l->stride,
                           l->pad};
        if (mb_conv_out_h(&s) != l->out_h || mb_conv_out_w(&s) != l->out_w)
            __builtin_trap(); /* the inference and the kernels disagree on a side */
        char why[128];
        if (!mb_probe_conv_shape_ok(&s, why, sizeof why))
            continue; /* listed as unsupported by mbprobe conv, never sized by a kernel */
        for (int a = 0; a < MB_CONV_N_ALGOS; a++) {
            if (!mb_conv_supported((mb_conv_algo)a, &s, why, sizeof why))
                continue;
            for (int p = 0; p < 3; p++)
                (void)mb_conv_workspace((mb_conv_algo)a, (mb_conv_pass)p, &s);
        }
    }
    mb_mem_options o;
    mb_model_mem_defaults(&o);
    mb_mem_total t;
    if (mb_model_mem(ml, n, (double)batch, &o, &t) == MB_OK && !(t.total >= 0 && !isnan(t.total)))
        __builtin_trap(); /* a total that is not a number of bytes */
    double m_max;
    if (mb_model_mem_max_batch(ml, n, &o, 12.0 * (1 << 30), &m_max) == MB_OK &&
        !(m_max >= 0 && m_max <= 1099511627776.0))
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *p = data, *end = data + size;
    mb_layer_desc layers[MAX_LAYERS];
    mb_net_desc d;
    memset(&d, 0, sizeof d);
    memset(layers, 0, sizeof layers);
    snprintf(d.name, sizeof d.name, "fuzz");
    d.in_c = take(&p, end);
    d.in_h = take(&p, end);
    d.in_w = take(&p, end);
    int batch = take(&p, end);
    if (batch < 1)
        batch = 1;
    d.layer_list = p < end && (*p++ & 1);
    size_t n = 0;
    while (p < end && n < MAX_LAYERS) {
        mb_layer_desc *l = &layers[n];
        l->type = kinds[*p++ % (sizeof kinds / sizeof kinds[0])];
        snprintf(l->name, sizeof l->name, "l%zu", n);
        l->filters = take(&p, end);
        l->size = take(&p, end);
        l->stride = take(&p, end);
        l->pad = take(&p, end);
        l->p = (float)(take(&p, end) % 101) / 100.0f;
        l->algo = MB_CONV_AUTO;
        int shaped = l->type == MB_LAYER_CONV || l->type == MB_LAYER_MAXPOOL ||
                     l->type == MB_LAYER_AVGPOOL || l->type == MB_LAYER_FC;
        if (d.layer_list && shaped && p < end && (*p++ & 1)) { /* input=CxHxW, as a cfg may */
            l->given_c = take(&p, end);
            l->given_h = take(&p, end);
            l->given_w = take(&p, end);
        }
        n++;
    }
    d.n_layers = n;
    d.layers = layers;
    mb_error err = {0};
    if (mb_net_desc_infer_list(&d, &err) == MB_OK)
        arithmetic(&d, batch);
    return 0;
}
