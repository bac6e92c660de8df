/* run_ckpt.c — checkpoints of a training run: everything needed to continue a killed run where
 * its last checkpoint left it, written atomically (temp file + rename).
 *
 * Layout (native byte order, for the same machine; a version change rejects old files):
 *     "MBKCKPT2"  magic
 *     header      net name (64 bytes), parameter count, algorithm, batch, training samples,
 *                 updates, samples, epoch, cursor position, shuffling PRNG state, wall seconds,
 *                 log length
 *     log rows    the run log's data rows so far (text), so the log continues
 *     parameters  float32 x params;  velocity float32 x params (momentum, Nesterov only)
 *     permutation uint32 x training samples (this epoch's order)
 *     "MBKEND\n\0" trailer: a truncated file is detected.
 * Not carried: the network's dropout PRNG (a resumed run with dropout draws fresh masks), and
 * options such as lr, which the resuming command line gives again.
 */
#include "run_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char magic[8] = {'M', 'B', 'K', 'C', 'K', 'P', 'T', '2'};
static const char trailer[8] = {'M', 'B', 'K', 'E', 'N', 'D', '\n', '\0'};

typedef struct ckpt_header {
    char net[64];
    uint64_t params, n_train, samples, pos, log_len;
    int64_t updates, epoch;
    int32_t algo, batch;
    uint64_t rng;
    double wall_s;
} ckpt_header;

int mb_ckpt_write(const char *path, mb_learner *l, const mb_run_options *o,
                  const mb_ckpt_extra *x, mb_error *err)
{
    mb_out out;
    int rc = mb_out_open(&out, path, err);
    if (rc != MB_OK)
        return rc;
    ckpt_header h;
    memset(&h, 0, sizeof h);
    snprintf(h.net, sizeof h.net, "%s", mb_net_description(l->net)->name);
    size_t n = mb_net_param_count(l->net);
    h.params = n;
    h.n_train = l->cur.n;
    h.samples = x->samples;
    h.pos = l->cur.pos;
    h.log_len = x->log_len;
    h.updates = x->updates;
    h.epoch = l->cur.epoch;
    h.algo = (int32_t)o->optim.kind;
    h.batch = l->batch;
    h.rng = l->cur.rng;
    h.wall_s = x->wall_s;
    FILE *f = out.f;
    int ok = fwrite(magic, sizeof magic, 1, f) == 1 && fwrite(&h, sizeof h, 1, f) == 1 &&
             (x->log_len == 0 || fwrite(x->log_rows, x->log_len, 1, f) == 1) &&
             fwrite(mb_net_params(l->net), sizeof(float), n, f) == n;
    float *v = mb_optim_state(l->opt);
    if (ok && v)
        ok = fwrite(v, sizeof(float), n, f) == n;
    ok = ok && fwrite(l->cur.perm, sizeof(uint32_t), l->cur.n, f) == l->cur.n &&
         fwrite(trailer, sizeof trailer, 1, f) == 1;
    if (!ok) {
        mb_out_abort(&out);
        return mb_error_set(err, MB_EIO, "%s: cannot write the checkpoint", path);
    }
    return mb_out_commit(&out, err);
}

int mb_ckpt_read(const char *path, mb_learner *l, const mb_run_options *o, mb_ckpt_extra *x,
                 mb_error *err)
{
    memset(x, 0, sizeof *x);
    FILE *f = fopen(path, "rb");
    if (!f)
        return mb_error_set(err, MB_EIO, "%s: cannot open the checkpoint", path);
    char m[8];
    ckpt_header h;
    int rc = MB_OK;
    if (fread(m, sizeof m, 1, f) != 1 || memcmp(m, magic, sizeof m) != 0) {
        rc = mb_error_set(err, MB_EFORMAT, "%s: not an mbtrain checkpoint", path);
        goto done;
    }
    if (fread(&h, sizeof h, 1, f) != 1) {
        rc = mb_error_set(err, MB_EFORMAT, "%s: truncated checkpoint (header)", path);
        goto done;
    }
    h.net[sizeof h.net - 1] = '\0';
    const char *net = mb_net_description(l->net)->name;
    size_t n = mb_net_param_count(l->net);
    if (strcmp(h.net, net) != 0 || h.params != n) {
        rc = mb_error_set(err, MB_EINVAL,
                          "%s: checkpoint of net '%s' (%llu parameters), not of '%s' (%zu)", path,
                          h.net, (unsigned long long)h.params, net, n);
        goto done;
    }
    if (h.batch != l->batch || h.algo != (int32_t)o->optim.kind || h.n_train != l->cur.n) {
        rc = mb_error_set(err, MB_EINVAL,
                          "%s: checkpoint of a run with batch %d, algo %s, %llu training samples; "
                          "this run has batch %d, algo %s, %zu samples",
                          path, (int)h.batch, mb_optim_kind_name((mb_optim_kind)h.algo),
                          (unsigned long long)h.n_train, l->batch,
                          mb_optim_kind_name(o->optim.kind), l->cur.n);
        goto done;
    }
    if (h.pos > h.n_train || h.updates < 0 || h.epoch < 0 || h.log_len > ((uint64_t)1 << 34)) {
        rc = mb_error_set(err, MB_EFORMAT, "%s: corrupt checkpoint header", path);
        goto done;
    }
    x->log_rows = malloc(h.log_len + 1);
    if (!x->log_rows) {
        rc = mb_error_set(err, MB_ENOMEM, "%s: out of memory", path);
        goto done;
    }
    float *v = mb_optim_state(l->opt);
    uint32_t *perm = malloc(h.n_train * sizeof *perm);
    char t[8];
    int ok = perm && (h.log_len == 0 || fread(x->log_rows, h.log_len, 1, f) == 1) &&
             fread(mb_net_params(l->net), sizeof(float), n, f) == n &&
             (!v || fread(v, sizeof(float), n, f) == n) &&
             fread(perm, sizeof *perm, h.n_train, f) == h.n_train &&
             fread(t, sizeof t, 1, f) == 1 && memcmp(t, trailer, sizeof t) == 0 &&
             fgetc(f) == EOF;
    for (size_t i = 0; ok && i < h.n_train; i++)
        ok = perm[i] < h.n_train;
    if (!ok) {
        free(perm);
        free(x->log_rows);
        x->log_rows = NULL;
        rc = mb_error_set(err, MB_EFORMAT, "%s: truncated or corrupt checkpoint", path);
        goto done;
    }
    x->log_rows[h.log_len] = '\0';
    x->log_len = h.log_len;
    x->updates = h.updates;
    x->samples = h.samples;
    x->wall_s = h.wall_s;
    free(l->cur.perm);
    l->cur.perm = perm;
    l->cur.pos = h.pos;
    l->cur.epoch = h.epoch;
    l->cur.rng = h.rng;
    mb_optim_set_updates(l->opt, h.updates);
    mb_net_set_steps(l->net, (unsigned long)h.updates); /* one step per update: the dropout masks */
done:
    fclose(f);
    return rc;
}
