/* run_ckpt.c — checkpoints of a training run: everything needed to continue a killed run where
 * its last checkpoint left it, written through the one output writer (temp file + rename, so a
 * kill during the write leaves the previous checkpoint whole), and believed only after checks.
 *
 * Layout (version 11; native byte order, for the same machine):
 *     "MBKCKPTB"      magic; the last character is the format version ('B': 11). Any other
 *                     version is refused with a line saying so (versions 1 and 2 had no
 *                     checksum; version
 *                     3's log rows had no b_simple column; version 4 had no learning rate;
 *                     version 5 no momentum, weight decay, rate schedule or target; version 6
 *                     no evaluation settings; version 7 no network structure, evaluation
 *                     counts or gradient noise sums; version 8 no levels or job; version 9
 *                     not the parallel algorithm's own settings; version 10 not SMA's tuning
 *                     or the seconds spent writing checkpoints).
 *     sections        each: tag (4 bytes) | 4 zero bytes | payload length (uint64) | payload
 *       "RUN "        ckpt_run: the run's identity (net, its structure's fingerprint and
 *                     layer count, parameter count, data fingerprint, seed, algorithm, batch,
 *                     learner count, learning rate, momentum, weight decay, rate schedule,
 *                     target loss; the evaluation period, staged checks, bisection, adaptive
 *                     spacing, levels and B_simple period; the parallel job, if any, whose
 *                     learner 0 it is: its algorithm and size, its moving rate, momentum,
 *                     DOWNPOUR periods, gradient point and overlap, SMA's tuning and its
 *                     window) and its counters (updates, samples, wall seconds, the last
 *                     mini-batch loss, full and ruled-out evaluations, eval samples, the
 *                     gradient noise sums of the run and of the open window, the seconds
 *                     spent writing the checkpoints before this one)
 *       "LOG "        the run log's data rows so far (text), so that the log continues (the
 *                     log is written once, at the end: a killed run's rows are here only, so
 *                     the file grows with the run, and its writing counts in --max-seconds)
 *       "LRN "        one per learner, in order: ckpt_learner (index, updates, epoch, cursor,
 *                     shuffling PRNG, sizes), parameters float32 x params, velocity float32 x
 *                     params (momentum and Nesterov only), permutation uint32 x training samples;
 *                     "params" is the network's whole block, batch normalisation's running
 *                     statistics included (its tail, mb_net_param_count), so they are saved and
 *                     restored with no change of format (a net without BN has no tail)
 *       "END "        the last section: the zlib crc32 of every byte before it
 * Sections keep the format open: more learners are more "LRN " sections, a centre variable
 * (EASGD) would be a section of its own; a reader refuses tags it does not know.
 *
 * What is checked on resume, each failure one line naming the file and what is wrong:
 *   - the checksum (a flipped byte anywhere, a torn or truncated file), then the structure
 *     (sizes agree with each other and with the file);
 *   - every value: parameters and velocities finite; wall seconds finite and in [0, 10^9];
 *     updates, samples, epoch and cursor consistent with each other and the batch (updates =
 *     epoch x full batches per epoch + position / batch, samples = updates x batch); the
 *     permutation a permutation; each stored log row well-formed (7 fields, increasing
 *     updates not past the checkpoint's, finite values, accuracy in [0, 1]);
 *   - the identity against the resuming run (net, parameter count, structure: "checkpoint of
 *     net 'tiny' with another structure (...)"; data fingerprint, seed,
 *     algorithm, batch, learners, learning rate, momentum, weight decay, rate schedule, target
 *     loss, --eval-every, --check-frac, --check-sigmas, --no-bisect, --eval-adapt, --levels,
 *     --noise-every, --sma-tune, --elastic-alpha, --sma-tune-window, --sma-momentum, --delta,
 *     --n-push, --n-fetch, --grad-after-exchange, --no-overlap: the log states each once for
 *     all its rows):
 *     "checkpoint of seed 1, this run has seed 2".
 * Not carried: the network's dropout PRNG (a resumed run with dropout draws fresh masks), the
 * staged check's reference losses (a resumed run with --check-frac makes a full evaluation
 * first), the seconds spent evaluating and measuring, and options the log does not state for
 * its rows (threads, the bound on updates), which the resuming command line gives again.
 */
#include "run_impl.h"
#include "../../data/mb_dataset.h"
#include "../../data/mb_output.h"
#include "../../data/mb_parse.h"
#include "../comm/mb_comm.h"
#include "../learner/mb_learner.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#define CKPT_VERSION MB_CKPT_VERSION
static const char magic[8] = {'M', 'B', 'K', 'C', 'K', 'P', 'T', CKPT_VERSION};
enum { SECTION_HEAD = 16, END_BYTES = SECTION_HEAD + 4 };

/* ---- writing ------------------------------------------------------------------------------- */

/* A writer that keeps the running crc32 of what it wrote. */
typedef struct ckw {
    FILE *f;
    uLong crc;
    int ok;
    int e; /* errno of the write that failed */
} ckw;

static void put(ckw *w, const void *p, size_t n)
{
    if (!w->ok || n == 0)
        return;
    w->ok = fwrite(p, 1, n, w->f) == n;
    if (!w->ok)
        w->e = errno; /* the reason, for the writer's line */
    /* crc32 takes uInt lengths: feed large blocks in pieces */
    for (const unsigned char *b = p; n > 0;) {
        uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;
        w->crc = crc32(w->crc, b, k);
        b += k;
        n -= k;
    }
}

static void put_head(ckw *w, const char tag[4], uint64_t len)
{
    uint32_t zero = 0;
    put(w, tag, 4);
    put(w, &zero, sizeof zero);
    put(w, &len, sizeof len);
}

uint64_t mb_ckpt_fingerprint(const mb_data_splits *d)
{
    /* crc32 of the training samples (pixels and labels) and, apart, of the eval subset: a set
     * with the same sample count but other pixels, or another --eval-frac or --data-seed,
     * gives another number */
    uLong a = crc32(0L, Z_NULL, 0), b = a;
    const mb_dataset *s[2] = {&d->train, &d->eval};
    uLong *crc[2] = {&a, &b};
    for (int i = 0; i < 2; i++) {
        size_t per = (size_t)s[i]->c * s[i]->h * s[i]->w;
        uint64_t shape[4] = {s[i]->n, per, (uint64_t)s[i]->classes, 0};
        *crc[i] = crc32(*crc[i], (const Bytef *)shape, sizeof shape);
        const unsigned char *px = (const unsigned char *)s[i]->x;
        for (size_t left = s[i]->n * per * sizeof(float); left > 0;) {
            uInt k = left > (1u << 30) ? (1u << 30) : (uInt)left;
            *crc[i] = crc32(*crc[i], px, k);
            px += k;
            left -= k;
        }
        if (s[i]->n)
            *crc[i] = crc32(*crc[i], (const Bytef *)s[i]->y, (uInt)(s[i]->n * sizeof(int)));
    }
    return ((uint64_t)a << 32) | (uint64_t)b;
}

uint64_t mb_ckpt_net_fingerprint(const mb_net_desc *d)
{
    int64_t head[5] = {d->in_c, d->in_h, d->in_w, d->classes, d->layer_list};
    uLong crc = crc32(crc32(0L, Z_NULL, 0), (const Bytef *)head, sizeof head);
    for (size_t i = 0; i < d->n_layers; i++) {
        const mb_layer_desc *l = &d->layers[i];
        uint32_t p;
        memcpy(&p, &l->p, sizeof p);
        int64_t v[17 + MB_LAYER_MAX_INPUTS] = {
            l->type,    l->filters, l->size,    l->stride,  l->pad,     p,
            l->algo,    l->in_c,    l->in_h,    l->in_w,    l->out_c,   l->out_h,
            l->out_w,   l->given_c, l->given_h, l->given_w, l->n_inputs};
        for (int k = 0; k < MB_LAYER_MAX_INPUTS && k < l->n_inputs; k++)
            v[17 + k] = l->inputs[k];
        crc = crc32(crc, (const Bytef *)v, sizeof v);
    }
    return (uint64_t)crc;
}

/* The identity and counters of the run a checkpoint belongs to. */
void mb_ckpt_settings_fill(ckpt_run *h, const mb_run_options *o)
{
    h->algo = (int32_t)o->optim.kind;
    h->lr = o->optim.lr;
    h->momentum = o->optim.momentum;
    h->weight_decay = o->optim.weight_decay;
    h->lr_step = o->optim.lr_step_every;
    h->lr_gamma = o->optim.lr_step_gamma;
    h->target_loss = o->target_loss;
    h->check_frac = o->check_frac;
    h->check_sigmas = o->check_sigmas;
    h->eval_every = o->eval_every;
    h->noise_every = o->noise_every;
    h->no_bisect = o->no_bisect != 0;
    h->eval_adapt = o->eval_adapt != 0;
    h->n_levels = o->n_levels;
    for (int k = 0; k < o->n_levels && k < MB_RUN_LEVELS_MAX; k++)
        h->levels[k] = o->levels[k];
    /* the parallel algorithm's own settings, where it has them (as its log states them) */
    const int a = o->par;
    h->par = a;
    double alpha, mu;
    mb_par_resolved(o, &alpha, &mu);
    h->par_alpha = a != MB_PAR_NONE && a != MB_PAR_SGD_SYNC ? alpha : 0;
    h->par_mu = a == MB_PAR_SMA || a == MB_PAR_EAMSGD ? mu : 0;
    h->n_push = a == MB_PAR_DOWNPOUR ? (o->n_push ? o->n_push : o->tau) : 0;
    h->n_fetch = a == MB_PAR_DOWNPOUR ? (o->n_fetch ? o->n_fetch : o->tau) : 0;
    h->grad_after =
        (a == MB_PAR_EASGD_ASYNC || a == MB_PAR_EAMSGD || a == MB_PAR_EASGD_HOGWILD) &&
        o->grad_after_exchange;
    h->no_overlap = a == MB_PAR_EASGD_SYNC && o->no_overlap;
    h->sma_tune = a == MB_PAR_SMA && o->sma_tune;
    h->sma_window = h->sma_tune ? o->sma_tune_window : 0;
}

static void fill_run(ckpt_run *h, mb_learner *l, const mb_run_options *o, const mb_ckpt_extra *x,
                     uint64_t learners)
{
    memset(h, 0, sizeof *h);
    const mb_net_desc *d = mb_net_description(l->net);
    snprintf(h->net, sizeof h->net, "%s", d->name);
    h->net_fp = mb_ckpt_net_fingerprint(d);
    h->net_layers = d->n_layers;
    h->params = mb_net_param_count(l->net);
    h->data_fp = x->data_fp;
    h->seed = o->seed;
    h->batch = l->batch;
    h->learners = learners;
    h->n_train = l->cur.n;
    h->updates = x->updates;
    h->samples = x->samples;
    h->wall_s = x->wall_s;
    h->loss = x->loss;
    mb_ckpt_settings_fill(h, o);
    h->par = o->par;
    h->par_size = x->par_size > 1 ? x->par_size : 1;
    h->evals = x->evals;
    h->checks = x->checks;
    h->eval_samples = x->eval_samples;
    h->noise_run_n = x->noise.run_n;
    h->noise_win_n = x->noise.win_n;
    h->noise_run[0] = x->noise.run_small;
    h->noise_run[1] = x->noise.run_big;
    h->noise_win[0] = x->noise.win_small;
    h->noise_win[1] = x->noise.win_big;
    h->ckpt_s = x->ckpt_s;
}

static void put_learner(ckw *w, mb_learner *l, uint32_t index, long updates)
{
    size_t n = mb_net_param_count(l->net);
    float *v = mb_optim_state(l->opt);
    ckpt_learner c;
    memset(&c, 0, sizeof c);
    c.index = index;
    c.has_velocity = v != NULL;
    c.params = n;
    c.n_train = l->cur.n;
    c.pos = l->cur.pos;
    c.span = (uint64_t)(l->span > 0 ? l->span : l->batch);
    c.updates = updates;
    c.epoch = l->cur.epoch;
    c.rng = l->cur.rng;
    uint64_t len = sizeof c + (uint64_t)n * sizeof(float) * (v ? 2 : 1) +
                   (uint64_t)l->cur.n * sizeof(uint32_t);
    put_head(w, "LRN ", len);
    put(w, &c, sizeof c);
    put(w, mb_net_params(l->net), n * sizeof(float));
    if (v)
        put(w, v, n * sizeof(float));
    put(w, l->cur.perm, l->cur.n * sizeof(uint32_t));
}

int mb_ckpt_learner_finite(mb_learner *l)
{
    size_t n = mb_net_param_count(l->net);
    const float *p = mb_net_params(l->net), *v = mb_optim_state(l->opt);
    for (size_t i = 0; i < n; i++)
        if (!isfinite(p[i]) || (v && !isfinite(v[i])))
            return 0;
    return 1;
}

int mb_ckpt_write(const char *path, mb_learner *l, const mb_run_options *o,
                  const mb_ckpt_extra *x, mb_error *err)
{
    mb_out out;
    int rc = mb_out_open(&out, path, err);
    if (rc != MB_OK)
        return rc;
    ckw w = {out.f, crc32(0L, Z_NULL, 0), 1, 0};
    ckpt_run h;
    fill_run(&h, l, o, x, 1);
    put(&w, magic, sizeof magic);
    put_head(&w, "RUN ", sizeof h);
    put(&w, &h, sizeof h);
    put_head(&w, "LOG ", x->log_len);
    put(&w, x->log_rows, x->log_len);
    put_learner(&w, l, 0, x->updates);
    uint32_t crc = (uint32_t)w.crc;
    put_head(&w, "END ", sizeof crc);
    if (w.ok && !(w.ok = fwrite(&crc, sizeof crc, 1, out.f) == 1))
        w.e = errno;
    if (!w.ok) /* "c: write error: File too large", as the commit would say */
        return mb_out_write_failed(&out, w.e, err);
    return mb_out_commit(&out, err);
}

/* ---- reading: structure and values --------------------------------------------------------- */

static int corrupt(mb_error *err, const char *path, const char *what)
{
    return mb_error_set(err, MB_EFORMAT, "%s: corrupt checkpoint: %s", path, what);
}

/* n float32s stored at any alignment (the log before them has any length) */
static int all_finite(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float v;
        memcpy(&v, p + i * sizeof v, sizeof v);
        if (!isfinite(v))
            return 0;
    }
    return 1;
}

/* One stored log row: "update,epoch,samples,wall_s,loss,eval_loss,eval_acc,b_simple" with the
 * eval cells empty or finite, b_simple empty or a finite positive number. *update gets its
 * update. */
static int check_row(const char *s, size_t len, double wall_max, long *update)
{
    char buf[512];
    if (len == 0 || len >= sizeof buf)
        return 0;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *f[9];
    int k = 0;
    for (char *p = buf; k < 9;) {
        f[k++] = p;
        char *c = strchr(p, ',');
        if (!c)
            break;
        *c = '\0';
        p = c + 1;
    }
    if (k != 8)
        return 0;
    double bs;
    if (*f[7] && (mb_data_parse_double(f[7], &bs) != MB_OK || !(bs > 0) || !isfinite(bs)))
        return 0;
    long u, e, smp;
    double v[4];
    if (mb_data_parse_long(f[0], 1, 1L << 53, &u) != MB_OK ||
        mb_data_parse_long(f[1], 0, 1L << 53, &e) != MB_OK ||
        mb_data_parse_long(f[2], 1, 1L << 62, &smp) != MB_OK)
        return 0;
    for (int i = 0; i < 2; i++)
        if (mb_data_parse_double(f[3 + i], &v[i]) != MB_OK)
            return 0;
    if (!(v[0] >= 0 && v[0] <= wall_max * (1 + 1e-9) + 1e-6))
        return 0;
    int evaluated = *f[5] != '\0';
    if (evaluated != (*f[6] != '\0'))
        return 0;
    if (evaluated && (mb_data_parse_double(f[5], &v[2]) != MB_OK ||
                      mb_data_parse_double(f[6], &v[3]) != MB_OK || v[2] < 0 || v[3] < 0 ||
                      v[3] > 1))
        return 0;
    *update = u;
    return 1;
}

/* Every row well-formed, updates increasing and not past the checkpoint's. */
static int check_log(const char *s, size_t len, long updates, double wall_s)
{
    long prev = 0;
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(s + i, '\n', len - i);
        if (!nl)
            return 0; /* every row ends with its newline */
        long u;
        if (!check_row(s + i, (size_t)(nl - (s + i)), wall_s, &u) || u <= prev || u > updates)
            return 0;
        prev = u;
        i = (size_t)(nl - s) + 1;
    }
    return 1;
}

/* Checks one learner section's values against the run's header. */
static int check_learner(const ckpt_run *h, const ckpt_learner_view *c, const char *path,
                         mb_error *err)
{
    const ckpt_learner *m = &c->meta;
    if (m->n_train != h->n_train || m->params != h->params)
        return corrupt(err, path, "a learner's sizes differ from the run's");
    if (m->span < (uint64_t)h->batch || m->span > m->n_train)
        return corrupt(err, path, "cursor span");
    uint64_t per_epoch = m->n_train / m->span; /* >= 1 */
    if (m->pos > m->n_train || m->pos % m->span != 0 || m->pos / m->span > per_epoch)
        return corrupt(err, path, "cursor position");
    if (m->updates < 0 || m->epoch < 0 ||
        (uint64_t)m->epoch > (uint64_t)m->updates / per_epoch + 1 ||
        (uint64_t)m->epoch * per_epoch + m->pos / m->span != (uint64_t)m->updates)
        return corrupt(err, path, "a learner's update and epoch counts disagree with its cursor");
    if (!all_finite(c->params, m->params))
        return corrupt(err, path, "non-finite parameters");
    if (c->velocity && !all_finite(c->velocity, m->params))
        return corrupt(err, path, "non-finite velocities");
    unsigned char *seen = calloc(m->n_train ? m->n_train : 1, 1);
    if (!seen)
        return mb_error_set(err, MB_ENOMEM, "%s: out of memory", path);
    int ok = 1;
    for (uint64_t i = 0; ok && i < m->n_train; i++) {
        uint32_t p;
        memcpy(&p, c->perm + i * sizeof p, sizeof p);
        ok = p < m->n_train && !seen[p];
        if (ok)
            seen[p] = 1;
    }
    free(seen);
    return ok ? MB_OK : corrupt(err, path, "the permutation repeats or leaves the training set");
}

/* The structure's size and the monitor's counts and sums (version 8). */
static int check_counts(const ckpt_run *h, const char *path, mb_error *err)
{
    if (h->net_layers == 0 || h->net_layers > 65536)
        return corrupt(err, path, "layer count out of range");
    if (h->evals < 0 || h->checks < 0 || h->evals > ((int64_t)1 << 53) ||
        h->checks > ((int64_t)1 << 53) || h->eval_samples > ((uint64_t)1 << 62))
        return corrupt(err, path, "evaluation counts out of range");
    int sums = 1;
    for (int i = 0; i < 2; i++)
        sums &= isfinite(h->noise_run[i]) && h->noise_run[i] >= 0 && isfinite(h->noise_win[i]) &&
                h->noise_win[i] >= 0;
    if (!sums || h->noise_win_n < 0 || h->noise_win_n > h->noise_run_n ||
        h->noise_run_n > h->updates || (h->noise_every == 0 && h->noise_run_n != 0))
        return corrupt(err, path, "gradient noise sums out of range");
    return MB_OK;
}

static int check_run(const ckpt_run *h, const char *path, mb_error *err)
{
    if (memchr(h->net, '\0', sizeof h->net) == NULL || h->net[0] == '\0')
        return corrupt(err, path, "net name");
    if (h->params == 0 || h->params > ((uint64_t)1 << 40) || h->n_train == 0 ||
        h->n_train > UINT32_MAX || h->batch <= 0 || (uint64_t)h->batch > h->n_train ||
        h->learners == 0 || h->learners > 4096 ||
        (h->algo != MB_OPTIM_SGD && h->algo != MB_OPTIM_MOMENTUM && h->algo != MB_OPTIM_NESTEROV))
        return corrupt(err, path, "run sizes out of range");
    if (h->updates < 1 || h->updates > ((int64_t)1 << 53))
        return corrupt(err, path, "update count out of range");
    if (h->samples != (uint64_t)h->updates * (uint64_t)h->batch)
        return corrupt(err, path, "sample count is not updates x batch");
    if (!(isfinite(h->wall_s) && h->wall_s >= 0 && h->wall_s <= 1e9))
        return corrupt(err, path, "wall time is not in [0, 1e9] seconds");
    if (!(isfinite(h->ckpt_s) && h->ckpt_s >= 0 && h->ckpt_s <= 1e9))
        return corrupt(err, path, "checkpoint writing time is not in [0, 1e9] seconds");
    if (!isfinite(h->loss))
        return corrupt(err, path, "non-finite last loss");
    if (h->par < MB_PAR_NONE || h->par >= MB_PAR_N || h->par_size < 1 || h->par_size > 4096 ||
        (h->par == MB_PAR_NONE) != (h->par_size == 1))
        return corrupt(err, path, "parallel algorithm or its size out of range");
    const char *bad = mb_ckpt_settings_range(h);
    return bad ? corrupt(err, path, bad) : check_counts(h, path, err);
}

const char *mb_ckpt_settings_range(const ckpt_run *h)
{
    if (h->algo != MB_OPTIM_SGD && h->algo != MB_OPTIM_MOMENTUM && h->algo != MB_OPTIM_NESTEROV)
        return "no such optimiser";
    if (!(isfinite(h->lr) && h->lr > 0))
        return "learning rate not a finite number > 0";
    if (!(isfinite(h->momentum) && h->momentum >= 0 && isfinite(h->weight_decay) &&
          h->weight_decay >= 0 && isfinite(h->lr_gamma) && h->lr_step >= 0 &&
          (isnan(h->target_loss) || (isfinite(h->target_loss) && h->target_loss >= 0))))
        return "momentum, weight decay, rate schedule or target out of range";
    if (!(h->check_frac >= 0 && h->check_frac < 1 && isfinite(h->check_sigmas) &&
          h->check_sigmas > 0 && h->eval_every >= 1 && h->noise_every >= 0 &&
          (h->no_bisect == 0 || h->no_bisect == 1) && (h->eval_adapt == 0 || h->eval_adapt == 1)))
        return "evaluation settings out of range";
    if (h->n_levels < 0 || h->n_levels > MB_RUN_LEVELS_MAX || h->levels_pad != 0 ||
        (h->n_levels > 0 && isnan(h->target_loss)))
        return "level count out of range";
    for (int k = 0; k < MB_RUN_LEVELS_MAX; k++) {
        double v = h->levels[k], up = k ? h->levels[k - 1] : INFINITY;
        if (k < h->n_levels ? !(isfinite(v) && v > 0 && v < up &&
                                !(v <= h->target_loss)) /* above the target (NAN: none) */
                            : v != 0)
            return "levels out of range or out of order";
    }
    if (!(h->par_alpha >= 0 && h->par_alpha <= 1 && isfinite(h->par_mu) && h->par_mu >= 0 &&
          h->n_push >= 0 && h->n_fetch >= 0 && (h->grad_after == 0 || h->grad_after == 1) &&
          (h->no_overlap == 0 || h->no_overlap == 1)))
        return "parallel algorithm settings out of range";
    if (!(h->sma_pad == 0 && (h->sma_tune == 0 ? h->sma_window == 0
                              : h->sma_tune == 1 && h->sma_window >= 1 &&
                                    h->sma_window <= ((int64_t)1 << 30))))
        return "SMA tuning settings out of range";
    return NULL;
}

void mb_ckpt_release(mb_ckpt *c)
{
    free(c->lrn);
    memset(c, 0, sizeof *c);
}

/* A format version's number, from the magic's last character: '1' .. '9', then 'A' (10) ..
 * 'Z'; "?" for any other byte. Into buf (4 bytes). */
static const char *version_text(unsigned char v, char *buf)
{
    int n = v >= '1' && v <= '9' ? v - '0' : v >= 'A' && v <= 'Z' ? v - 'A' + 10 : -1;
    if (n < 0)
        snprintf(buf, 4, "?");
    else
        snprintf(buf, 4, "%d", n);
    return buf;
}

int mb_ckpt_decode(const void *buf, size_t len, const char *path, mb_ckpt *c, mb_error *err)
{
    memset(c, 0, sizeof *c);
    const unsigned char *b = buf;
    if (len < sizeof magic || memcmp(b, magic, 7) != 0)
        return mb_error_set(err, MB_EFORMAT, "%s: not an mbtrain checkpoint", path);
    if (b[7] != CKPT_VERSION)
        return mb_error_set(err, MB_EFORMAT,
                            "%s: checkpoint format version %s; this mbtrain reads version %s "
                            "only: start the run afresh",
                            path, version_text(b[7], (char[4]){0}), version_text(CKPT_VERSION,
                                                                                 (char[4]){0}));
    if (len < sizeof magic + END_BYTES || memcmp(b + len - END_BYTES, "END \0\0\0\0", 8) != 0)
        return mb_error_set(err, MB_EFORMAT, "%s: truncated checkpoint (no end section)", path);
    uint64_t elen;
    uint32_t want;
    memcpy(&elen, b + len - END_BYTES + 8, sizeof elen);
    memcpy(&want, b + len - 4, sizeof want);
    size_t body = len - END_BYTES;
    uLong crc = crc32(0L, Z_NULL, 0);
    for (size_t i = 0; i < body;) {
        uInt k = body - i > (1u << 30) ? (1u << 30) : (uInt)(body - i);
        crc = crc32(crc, b + i, k);
        i += k;
    }
    if (elen != 4 || (uint32_t)crc != want)
        return mb_error_set(err, MB_EFORMAT, "%s: checksum mismatch: the checkpoint is damaged "
                            "or was cut short", path);

    int have_run = 0, have_log = 0, rc = MB_OK;
    size_t nl = 0;
    for (size_t at = sizeof magic; at < body;) {
        uint64_t plen;
        uint32_t zero;
        if (body - at < SECTION_HEAD)
            return (mb_ckpt_release(c), corrupt(err, path, "section header"));
        memcpy(&zero, b + at + 4, sizeof zero);
        memcpy(&plen, b + at + 8, sizeof plen);
        const char *tag = (const char *)b + at;
        const unsigned char *p = b + at + SECTION_HEAD;
        at += SECTION_HEAD;
        if (zero != 0 || plen > body - at) {
            rc = corrupt(err, path, "section length");
            break;
        }
        at += (size_t)plen;
        if (memcmp(tag, "RUN ", 4) == 0 && !have_run && plen == sizeof c->run) {
            memcpy(&c->run, p, sizeof c->run);
            if ((rc = check_run(&c->run, path, err)) != MB_OK)
                break;
            c->lrn = calloc(c->run.learners, sizeof *c->lrn);
            if (!c->lrn) {
                rc = mb_error_set(err, MB_ENOMEM, "%s: out of memory", path);
                break;
            }
            have_run = 1;
        } else if (memcmp(tag, "LOG ", 4) == 0 && have_run && !have_log) {
            c->log = (const char *)p;
            c->log_len = (size_t)plen;
            if (memchr(p, '\0', (size_t)plen) ||
                !check_log(c->log, c->log_len, (long)c->run.updates, c->run.wall_s)) {
                rc = corrupt(err, path, "the stored log rows");
                break;
            }
            have_log = 1;
        } else if (memcmp(tag, "LRN ", 4) == 0 && have_run && nl < c->run.learners &&
                   plen >= sizeof(ckpt_learner)) {
            ckpt_learner_view *v = &c->lrn[nl];
            memcpy(&v->meta, p, sizeof v->meta);
            const ckpt_learner *m = &v->meta;
            uint64_t np = m->params, nt = m->n_train;
            if (m->index != nl || m->has_velocity > 1 || np != c->run.params ||
                nt != c->run.n_train ||
                plen != sizeof *m + np * sizeof(float) * (m->has_velocity ? 2 : 1) +
                            nt * sizeof(uint32_t)) {
                rc = corrupt(err, path, "learner section sizes");
                break;
            }
            /* byte pointers: the payload has any alignment inside the file (memcpy out) */
            v->params = p + sizeof *m;
            v->velocity = m->has_velocity ? v->params + np * sizeof(float) : NULL;
            v->perm = p + sizeof *m + np * sizeof(float) * (m->has_velocity ? 2 : 1);
            if ((rc = check_learner(&c->run, v, path, err)) != MB_OK)
                break;
            nl++;
        } else {
            char t[5];
            for (int i = 0; i < 4; i++)
                t[i] = tag[i] >= 0x20 && tag[i] < 0x7f ? tag[i] : '?';
            t[4] = '\0';
            rc = mb_error_set(err, MB_EFORMAT, "%s: corrupt checkpoint: unexpected section '%s'",
                              path, t);
            break;
        }
    }
    if (rc == MB_OK && (!have_run || !have_log || nl != c->run.learners))
        rc = corrupt(err, path, "missing sections");
    if (rc == MB_OK && (int64_t)c->lrn[0].meta.updates != c->run.updates)
        rc = corrupt(err, path, "the learner's update count is not the run's");
    if (rc != MB_OK)
        mb_ckpt_release(c);
    return rc;
}

/* ---- reading: the run's identity ----------------------------------------------------------- */

/* "0.65,0.6,0.55", or "none" without levels. */
static void levels_text(const ckpt_run *h, char *buf, size_t n)
{
    snprintf(buf, n, "none");
    for (int k = 0, at = 0; k < h->n_levels && k < MB_RUN_LEVELS_MAX; k++) {
        char v[32];
        int w = snprintf(buf + at, n - (size_t)at, "%s%s", k ? "," : "",
                         mb_data_fmt_exact(v, sizeof v, h->levels[k]));
        if (w < 0 || (size_t)(at + w) >= n)
            break;
        at += w;
    }
}

/* One line naming the first optimiser setting, target or evaluation setting that differs: the
 * log states each once for all its rows, those trained before the checkpoint too (issue #25, H4,
 * K8). A value of NAN (a target) or, for `zero_none`, 0 (--check-frac) reads "none"; a flag
 * (`flag`) is there or not. */
int mb_ckpt_settings_check(const ckpt_run *h, const ckpt_run *want, const char *path,
                           mb_error *err)
{
    if (h->lr != want->lr)
        return mb_error_set(err, MB_EINVAL, "%s: checkpoint of lr %.9g, this run has lr %.9g (a "
                            "log states one rate for the whole run)", path, h->lr, want->lr);
    const int checks = h->check_frac > 0 && want->check_frac > 0; /* --check-sigmas acts */
    const struct {
        const char *name;
        double have, want;
        int zero_none, flag;
    } s[] = {{"momentum", h->momentum, want->momentum, 0, 0},
             {"weight-decay", h->weight_decay, want->weight_decay, 0, 0},
             {"lr-step", (double)h->lr_step, (double)want->lr_step, 0, 0},
             {"lr-gamma", h->lr_step ? h->lr_gamma : 0, want->lr_step ? want->lr_gamma : 0, 0, 0},
             {"target-loss", h->target_loss, want->target_loss, 0, 0},
             {"eval-every", (double)h->eval_every, (double)want->eval_every, 0, 0},
             {"check-frac", h->check_frac, want->check_frac, 1, 0},
             {"check-sigmas", checks ? h->check_sigmas : 0, checks ? want->check_sigmas : 0, 0, 0},
             {"no-bisect", h->no_bisect, want->no_bisect, 0, 1},
             {"eval-adapt", h->eval_adapt, want->eval_adapt, 0, 1},
             {"noise-every", (double)h->noise_every, (double)want->noise_every, 0, 0},
             /* the parallel algorithm's (0 where it has none); SMA's tuning before the alpha
              * it resolves (campaign 30's C6) */
             {"sma-tune", h->sma_tune, want->sma_tune, 0, 1},
             {"sma-tune-window", (double)h->sma_window, (double)want->sma_window, 0, 0},
             {"elastic-alpha", h->par_alpha, want->par_alpha, 0, 0},
             {want->par == MB_PAR_SMA ? "sma-momentum" : "delta", h->par_mu, want->par_mu, 0, 0},
             {"n-push", (double)h->n_push, (double)want->n_push, 0, 0},
             {"n-fetch", (double)h->n_fetch, (double)want->n_fetch, 0, 0},
             {"grad-after-exchange", h->grad_after, want->grad_after, 0, 1},
             {"no-overlap", h->no_overlap, want->no_overlap, 0, 1}};
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
        if (s[i].have == s[i].want || (isnan(s[i].have) && isnan(s[i].want)))
            continue;
        if (strcmp(s[i].name, "eval-every") == 0) /* a spacing --eval-samples may have set: no
                                                     flag value the user never gave (campaign
                                                     27's X12) */
            return mb_error_set(err, MB_EINVAL, "%s: checkpoint evaluated every %.0f updates, "
                                "this run every %.0f (max(--eval-every K, --eval-samples S / M)):"
                                " give the flags it was trained with (a log states one spacing "
                                "for the whole run)", path, s[i].have, s[i].want);
        if (s[i].flag)
            return mb_error_set(err, MB_EINVAL, "%s: checkpoint of a run %s --%s, this run has "
                                "%s%s (a log states one for the whole run)", path,
                                s[i].have ? "with" : "without", s[i].name,
                                s[i].have ? "none" : "--", s[i].have ? "" : s[i].name);
        char a[32] = "none", b[32] = "none"; /* the shortest decimals that read back as them */
        if (!isnan(s[i].have) && !(s[i].zero_none && s[i].have == 0))
            mb_data_fmt_exact(a, sizeof a, s[i].have);
        if (!isnan(s[i].want) && !(s[i].zero_none && s[i].want == 0))
            mb_data_fmt_exact(b, sizeof b, s[i].want);
        return mb_error_set(err, MB_EINVAL, "%s: checkpoint of --%s %s, this run has --%s %s "
                            "(a log states one for the whole run)", path, s[i].name, a,
                            s[i].name, b);
    }
    int same = h->n_levels == want->n_levels;
    for (int k = 0; same && k < h->n_levels && k < MB_RUN_LEVELS_MAX; k++)
        same = h->levels[k] == want->levels[k];
    if (!same) {
        char a[MB_RUN_LEVELS_MAX * 26], b[MB_RUN_LEVELS_MAX * 26];
        levels_text(h, a, sizeof a);
        levels_text(want, b, sizeof b);
        return mb_error_set(err, MB_EINVAL, "%s: checkpoint of --levels %s, this run has "
                            "--levels %s (a log states one for the whole run)", path, a, b);
    }
    return MB_OK;
}

/* "a sgd-sync job of 2 (batch 4 each)" or "one learner (batch 8)", into buf. */
static const char *job_text(const ckpt_run *h, char *buf, size_t n)
{
    if (h->par == MB_PAR_NONE)
        snprintf(buf, n, "one learner (batch %d)", (int)h->batch);
    else
        snprintf(buf, n, "a %s job of %d (learner 0's batch %d)", mb_par_algo_name(h->par),
                 (int)h->par_size, (int)h->batch);
    return buf;
}

/* One line naming the first field of the identity that differs. */
static int check_identity(const ckpt_run *h, const ckpt_run *want, const char *path,
                          mb_error *err)
{
    const char *pre = "checkpoint of";
    if (strcmp(h->net, want->net) != 0 || h->params != want->params)
        return mb_error_set(err, MB_EINVAL, "%s: %s net '%s' (%llu parameters), not of '%s' (%llu)",
                            path, pre, h->net, (unsigned long long)h->params, want->net,
                            (unsigned long long)want->params);
    if (h->net_fp != want->net_fp || h->net_layers != want->net_layers)
        return mb_error_set(err, MB_EINVAL, "%s: %s net '%s' with another structure (%llu layers, "
                            "fingerprint %08llx; this run: %llu, %08llx): its layers, kinds, "
                            "shapes, activations, pooling or dropout differ", path, pre, h->net,
                            (unsigned long long)h->net_layers, (unsigned long long)h->net_fp,
                            (unsigned long long)want->net_layers,
                            (unsigned long long)want->net_fp);
    if (h->n_train != want->n_train || h->data_fp != want->data_fp)
        return mb_error_set(err, MB_EINVAL,
                            "%s: %s another data set (%llu training samples, fingerprint %016llx; "
                            "this run: %llu, %016llx): check --data, --eval-frac and --data-seed",
                            path, pre, (unsigned long long)h->n_train,
                            (unsigned long long)h->data_fp, (unsigned long long)want->n_train,
                            (unsigned long long)want->data_fp);
    if (h->seed != want->seed)
        return mb_error_set(err, MB_EINVAL, "%s: %s seed %llu, this run has seed %llu", path, pre,
                            (unsigned long long)h->seed, (unsigned long long)want->seed);
    if (h->par != want->par || h->par_size != want->par_size) {
        char a[64], b[64];
        return mb_error_set(err, MB_EINVAL, "%s: %s %s, this run is %s", path, pre,
                            job_text(h, a, sizeof a), job_text(want, b, sizeof b));
    }
    if (h->algo != want->algo)
        return mb_error_set(err, MB_EINVAL, "%s: %s algo %s, this run has algo %s", path, pre,
                            mb_optim_kind_name((mb_optim_kind)h->algo),
                            mb_optim_kind_name((mb_optim_kind)want->algo));
    if (h->batch != want->batch)
        return mb_error_set(err, MB_EINVAL, "%s: %s batch %d, this run has batch %d", path, pre,
                            (int)h->batch, (int)want->batch);
    if (h->learners != want->learners)
        return mb_error_set(err, MB_EINVAL, "%s: %s %llu learners, this run has %llu", path, pre,
                            (unsigned long long)h->learners, (unsigned long long)want->learners);
    return mb_ckpt_settings_check(h, want, path, err);
}

int mb_ckpt_read(const char *path, mb_learner *l, const mb_run_options *o, mb_ckpt_extra *x,
                 mb_error *err)
{
    uint64_t data_fp = x->data_fp;
    int par_size = x->par_size;
    memset(x, 0, sizeof *x);
    char *buf;
    size_t len;
    int rc = mb_data_read_file(path, &buf, &len, err);
    if (rc != MB_OK) { /* "PATH: cannot open: REASON", said to be the checkpoint */
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        return mb_error_set(err, rc, "%s (the checkpoint to resume)", why);
    }
    mb_ckpt c;
    if ((rc = mb_ckpt_decode(buf, len, path, &c, err)) != MB_OK) {
        free(buf);
        return rc;
    }
    ckpt_run want;
    mb_ckpt_extra id = {.data_fp = data_fp, .par_size = par_size};
    fill_run(&want, l, o, &id, 1);
    if ((rc = check_identity(&c.run, &want, path, err)) != MB_OK)
        goto done;
    x->log_rows = malloc(c.log_len + 1);
    uint32_t *perm = malloc(c.run.n_train * sizeof *perm);
    if (!x->log_rows || !perm) {
        free(perm);
        free(x->log_rows);
        x->log_rows = NULL;
        rc = mb_error_set(err, MB_ENOMEM, "%s: out of memory", path);
        goto done;
    }
    const ckpt_learner_view *v = &c.lrn[0];
    float *vel = mb_optim_state(l->opt);
    if ((vel != NULL) != (v->velocity != NULL)) { /* the algorithm matched: cannot happen */
        free(perm);
        free(x->log_rows);
        x->log_rows = NULL;
        rc = corrupt(err, path, "velocity section");
        goto done;
    }
    memcpy(x->log_rows, c.log, c.log_len);
    x->log_rows[c.log_len] = '\0';
    x->log_len = c.log_len;
    x->updates = (long)c.run.updates;
    x->samples = (size_t)c.run.samples;
    x->wall_s = c.run.wall_s;
    x->loss = c.run.loss;
    x->data_fp = data_fp;
    x->evals = (long)c.run.evals;
    x->checks = (long)c.run.checks;
    x->eval_samples = (size_t)c.run.eval_samples;
    x->ckpt_s = c.run.ckpt_s;
    x->noise = (mb_noise){.run_small = c.run.noise_run[0], .run_big = c.run.noise_run[1],
                          .run_n = (long)c.run.noise_run_n, .win_small = c.run.noise_win[0],
                          .win_big = c.run.noise_win[1], .win_n = (long)c.run.noise_win_n};
    memcpy(mb_net_params(l->net), v->params, c.run.params * sizeof(float));
    if (vel)
        memcpy(vel, v->velocity, c.run.params * sizeof(float));
    memcpy(perm, v->perm, c.run.n_train * sizeof *perm);
    free(l->cur.perm);
    l->cur.perm = perm;
    l->cur.pos = (size_t)v->meta.pos;
    l->cur.epoch = (long)v->meta.epoch;
    l->cur.rng = v->meta.rng;
    mb_optim_set_updates(l->opt, x->updates);
    mb_net_set_steps(l->net, (unsigned long)x->updates); /* one step per update: dropout masks */
done:
    mb_ckpt_release(&c);
    free(buf);
    return rc;
}
