/* memory.c — train/'s network descriptions as the memory model's plain layers (model/ does not
 * know train/), so that mbopt mem and mbopt conv evaluate Zou et al.'s eq. 1-5 on any .cfg,
 * graphs included: an output that a later layer other than the next reads (a residual skip, a
 * concat's input) is marked kept.
 */
#include "mb_solver.h"

#include "../net/mb_net.h"

void mb_solver_mem_layers(const mb_net_desc *desc, mb_mem_layer *out)
{
    for (size_t i = 0; i < desc->n_layers; i++) {
        const mb_layer_desc *d = &desc->layers[i];
        mb_mem_layer *l = &out[i];
        l->kind = mb_layer_mem_kind(d->type); /* the layer-type table's */
        l->kept = 0;
        for (size_t j = i + 2; j < desc->n_layers; j++)
            for (int k = 0; k < desc->layers[j].n_inputs; k++)
                l->kept |= desc->layers[j].inputs[k] == (int)i;
        l->name = d->name;
        l->in_c = d->in_c, l->in_h = d->in_h, l->in_w = d->in_w;
        l->out_c = d->out_c, l->out_h = d->out_h, l->out_w = d->out_w;
        l->k = d->type == MB_LAYER_CONV ? d->size : 0;
    }
}
