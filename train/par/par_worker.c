/* par_worker.c — what both parallel drivers (par.c's lockstep, par_async.c's server and Hogwild)
 * do with a worker: its checkpoint record (par_pack, par_unpack: parameters, velocity, aux,
 * centre, the cursor), writing every learner's record (par_write_learners,
 * the file itself in par_ckpt.c), and ending the whole job when it fails (par_abort).
 *
 * Below both drivers: it calls neither.
 */
#include "par_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- checkpoint records ---------------------------------------------------------------------- */

/* 1 when the learners draw their own batches (a cursor each) rather than one shared cursor. */

enum { CUR_WORDS = PAR_CUR_WORDS };

size_t par_rec_floats(const job *j)
{
    return 4 * j->n + CUR_WORDS + j->data->train.n;
}

/* A record: parameters (the server's: the centre), velocity (zeros without one), aux, centre;
 * the learner's cursor and the next step's update (server algorithms) or local step (Hogwild)
 * as raw bytes. A rank without a learner leaves the cursor zero. */
void par_pack(worker *w, float *rec)
{
    const job *j = w->j;
    size_t n = j->n;
    const float *v = w->l.net ? mb_optim_state(w->l.opt) : NULL;
    memset(rec, 0, j->rec * sizeof *rec);
    memcpy(rec, w->l.net ? mb_net_params(w->l.net) : w->centre, n * sizeof *rec);
    if (v)
        memcpy(rec + n, v, n * sizeof *rec);
    memcpy(rec + 2 * n, w->aux, n * sizeof *rec);
    memcpy(rec + 3 * n, w->centre, n * sizeof *rec);
    if (w->l.net) {
        const mb_cursor *c = &w->l.cur;
        uint64_t head[5] = {c->pos, (uint64_t)c->epoch, c->rng,
                            (uint64_t)(j->o->par == MB_PAR_EASGD_HOGWILD ? w->next_t : w->u_next),
                            (uint64_t)w->next_t};
        memcpy(rec + 4 * n, head, sizeof head);
        memcpy(rec + 4 * n + CUR_WORDS, c->perm, c->n * sizeof *c->perm);
    }
}

int par_values_ok(worker *w)
{
    size_t n = w->j->n;
    const float *v = w->l.net ? mb_optim_state(w->l.opt) : NULL;
    return mb_par_ckpt_values_ok(w->l.net ? mb_net_params(w->l.net) : w->centre, n) &&
           (!v || mb_par_ckpt_values_ok(v, n)) && mb_par_ckpt_values_ok(w->aux, n) &&
           mb_par_ckpt_values_ok(w->centre, n);
}

void par_unpack(worker *w, const float *rec)
{
    const job *j = w->j;
    size_t n = j->n;
    float *v = w->l.net ? mb_optim_state(w->l.opt) : NULL;
    memcpy(w->l.net ? mb_net_params(w->l.net) : w->centre, rec, n * sizeof *rec);
    if (v)
        memcpy(v, rec + n, n * sizeof *rec);
    memcpy(w->aux, rec + 2 * n, n * sizeof *rec);
    if (w->l.net)
        memcpy(w->centre, rec + 3 * n, n * sizeof *rec);
    if (w->l.net) {
        mb_cursor *c = &w->l.cur;
        uint64_t head[5];
        memcpy(head, rec + 4 * n, sizeof head);
        c->pos = head[0];
        c->epoch = (long)head[1];
        c->rng = head[2];
        w->u_next = (long)head[3];
        w->next_t = (long)head[4];
        memcpy(c->perm, rec + 4 * n + CUR_WORDS, c->n * sizeof *c->perm);
    }
}

/* Record i of the file: the i-th of the gathered block (ctx: the worker and the block). */
static int fetch_record(uint64_t i, float *buf, void *ctx)
{
    const void **c = ctx;
    const worker *w = c[0];
    const float *all = c[1];
    memcpy(buf, all + i * w->j->rec, w->j->rec * sizeof *buf);
    return MB_OK;
}

/* The head of a checkpoint of the whole job taken after `updates` (par_ckpt.c), its records
 * and log rows left for the caller: learners, first, log_len. */
void par_head(const worker *w, long updates, size_t samples, double wall_s, long steps,
              mb_par_ckpt_head *h)
{
    const job *j = w->j;
    const mb_run_options *o = j->o;
    memset(h, 0, sizeof *h);
    h->total = (uint64_t)mb_comm_size(w->c);
    h->params = j->n;
    h->rec_floats = j->rec;
    h->updates = updates;
    h->samples = samples;
    h->wall_s = wall_s;
    h->algo = o->par;
    h->k_active = j->k_active;
    h->k_was = j->k_was;
    h->tuning = j->tuning;
    h->tune_u0 = j->tune_u0;
    h->tune_s0 = j->tune_s0;
    h->tune_t0 = j->tune_t0;
    h->tune_prev = j->tune_prev;
    h->alpha = j->alpha;
    h->steps = steps;
    snprintf(h->trace, sizeof h->trace, "%s", j->trace);
    h->data_fp = j->data_fp;
    h->net_fp = mb_ckpt_net_fingerprint(j->desc);
    h->seed = o->seed;
    h->batch = o->batch;
    h->tau = o->tau;
    h->n_train = j->data->train.n;
    h->run_id = j->run_id;
    mb_ckpt_settings_fill(&h->settings, o);
}

int par_write_learners(worker *w, long updates, size_t samples, double wall_s, long steps,
                       const float *all)
{
    job *j = w->j;
    /* a value past what a record may hold (not finite, or beyond 1e15) has diverged: no
     * checkpoint of it, the last one stays (campaign 35's E5) */
    for (size_t i = 0; i < (size_t)mb_comm_size(w->c); i++)
        if (!mb_par_ckpt_values_ok(all + i * j->rec, 4 * j->n))
            return MB_OK;
    mb_par_ckpt_head h;
    par_head(w, updates, samples, wall_s, steps, &h);
    h.learners = h.total;
    h.first = 0;
    h.log_len = j->mon.rows.len;
    const void *ctx[2] = {w, all};
    float *buf = malloc(j->rec * sizeof *buf);
    if (!buf)
        return mb_error_set(&w->err, MB_ENOMEM, "out of memory for a checkpoint");
    int rc = mb_par_ckpt_write(j->o->checkpoint_path, -1, &h, j->mon.rows.s, fetch_record,
                               (void *)ctx, buf, 0, &w->err);
    free(buf);
    return rc;
}

/* Who a worker is, for messages: "learner R", or the server / Hogwild's watcher on rank 0. */
void par_who(const worker *w, char *buf, size_t n)
{
    int par = w->j->o->par;
    if (mb_par_algo_has_server(par) && w->rank == 0)
        snprintf(buf, n, "%s", par == MB_PAR_EASGD_HOGWILD ? "the watcher" : "the server (rank 0)");
    else
        snprintf(buf, n, "learner %d", w->rank);
}

void par_abort(worker *w)
{
    if (w->rc == MB_OK)
        fail(w, MB_EMPI, "learner");
    char name[64], why[sizeof w->err.msg + 80];
    par_who(w, name, sizeof name);
    snprintf(why, sizeof why, "%s: %s", name, w->err.msg);
    mb_comm_abort_why(w->c, 1, why);
}
