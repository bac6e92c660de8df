/* memory.c — train/'s network descriptions as the memory model's plain layers (model/ does not
 * know train/), so that mbopt mem and mbopt conv evaluate Zou et al.'s eq. 1-5 on any .cfg,
 * graphs included: an output that a later layer other than the next reads (a residual skip, a
 * concat's input) is marked kept.
 */
#include "mb_solver.h"

#include "../net/mb_net.h"

void mb_solver_mem_layers(const mb_net_desc *desc, mb_mem_layer *out)
{
    for (size_t i = 0; i < desc->n_layers; i++)
        out[i].kept = 0;
    /* each layer's inputs marked once (a scan of every later layer for each layer took 36 s on
     * 200,000 layers: campaign 29's B1): kept when a layer past the next one reads it */
    for (size_t j = 0; j < desc->n_layers; j++)
        for (int k = 0; k < desc->layers[j].n_inputs; k++) {
            int in = desc->layers[j].inputs[k];
            if (in >= 0 && (size_t)in + 2 <= j)
                out[in].kept = 1;
        }
    for (size_t i = 0; i < desc->n_layers; i++) {
        const mb_layer_desc *d = &desc->layers[i];
        mb_mem_layer *l = &out[i];
        l->kind = mb_layer_mem_kind(d->type); /* the layer-type table's */
        l->name = d->name;
        l->in_c = d->in_c, l->in_h = d->in_h, l->in_w = d->in_w;
        l->out_c = d->out_c, l->out_h = d->out_h, l->out_w = d->out_w;
        l->k = d->type == MB_LAYER_CONV ? d->size : 0;
    }
}
