/* run.c — mb_train_run: one training run of one learner, as mbtrain does it.
 *
 * The loop: take the next mini-batch, forward/backward, optimiser step; every eval_every updates
 * (and after the last one) evaluate on the fixed eval subset; stop at the first evaluation whose
 * loss is <= target_loss, at max_updates, or after `epochs` epochs. The log rows are kept in
 * memory and the log is written once, atomically, at the end (a killed run leaves no log; its
 * last checkpoint carries the rows, and --resume continues them). wall_s counts training only:
 * evaluations are timed apart (eval_s).
 *
 * Not here: printing (progress goes to a callback), OpenBLAS thread counts (set by the command),
 * several learners (the loop drives one mb_learner; EASGD and SMA will drive several).
 */
#include "run_impl.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void mb_run_options_init(mb_run_options *o)
{
    memset(o, 0, sizeof *o);
    o->eval_frac = 0.2;
    o->optim.kind = MB_OPTIM_SGD;
    o->optim.lr = 0.05;
    o->optim.momentum = 0.9;
    o->optim.lr_step_gamma = 0.1;
    o->batch = 64;
    o->threads = 1;
    o->conv_algo = MB_CONV_AUTO;
    o->target_loss = NAN;
    o->eval_every = 100;
    o->epochs = 10;
    o->tool = "mbtrain";
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A growing text buffer for the log rows. */
typedef struct strbuf {
    char *s;
    size_t len, cap;
} strbuf;

static int sb_printf(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int sb_printf(strbuf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (k < 0)
            return MB_EINVAL;
        if (b->s && b->len + (size_t)k < b->cap) {
            b->len += (size_t)k;
            return MB_OK;
        }
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + (size_t)k + 1)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s)
            return MB_ENOMEM;
        b->s = s;
        b->cap = cap;
    }
}

static int check_options(const mb_run_options *o, mb_error *err)
{
    if (!o->net || !*o->net)
        return mb_error_set(err, MB_EINVAL, "no network given");
    if (!o->splits && (!o->data || !*o->data))
        return mb_error_set(err, MB_EINVAL, "no data given");
    if (o->batch <= 0)
        return mb_error_set(err, MB_EINVAL, "batch must be > 0, got %d", o->batch);
    if (o->eval_every <= 0)
        return mb_error_set(err, MB_EINVAL, "eval-every must be > 0, got %ld", o->eval_every);
    if (o->max_updates < 0 || !(o->epochs >= 0) || !isfinite(o->epochs))
        return mb_error_set(err, MB_EINVAL, "max-updates and epochs must be >= 0");
    if (o->max_updates == 0 && o->epochs == 0 && isnan(o->target_loss))
        return mb_error_set(err, MB_EINVAL, "no stopping rule: give a target loss, max updates or epochs");
    if (!(o->eval_frac > 0 && o->eval_frac <= 1))
        return mb_error_set(err, MB_EINVAL, "eval-frac must be in (0, 1], got %g", o->eval_frac);
    if (o->checkpoint_path && o->checkpoint_every <= 0)
        return mb_error_set(err, MB_EINVAL, "checkpoint-every must be > 0 with a checkpoint file");
    return MB_OK;
}

/* The input shape and classes of the net must be the data's. */
static int check_shapes(const mb_net_desc *d, const mb_dataset *s, const char *what,
                        mb_error *err)
{
    if (d->in_c != s->c || d->in_h != s->h || d->in_w != s->w)
        return mb_error_set(err, MB_EINVAL,
                            "net '%s' takes %dx%dx%d inputs (channels x height x width) but the "
                            "%s data has %dx%dx%d",
                            d->name, d->in_c, d->in_h, d->in_w, what, s->c, s->h, s->w);
    if (d->classes != s->classes)
        return mb_error_set(err, MB_EINVAL, "net '%s' has %d classes but the %s data has %d",
                            d->name, d->classes, what, s->classes);
    return MB_OK;
}

static void write_meta(FILE *f, const mb_run_options *o, const mb_net_desc *d, size_t params)
{
    mb_data_write_common_meta(f, o->tool ? o->tool : "mbtrain", o->argc, o->argv);
    fprintf(f, "# net=%s\n# params=%zu\n# data=%s\n# algo=%s\n# batch=%d\n# learners=1\n",
            d->name, params, o->data ? o->data : "", mb_optim_kind_name(o->optim.kind), o->batch);
    fprintf(f, "# lr=%.9g\n# momentum=%.9g\n# weight_decay=%.9g\n# lr_step=%ld\n# lr_gamma=%.9g\n",
            o->optim.lr, o->optim.kind == MB_OPTIM_SGD ? 0.0 : o->optim.momentum,
            o->optim.weight_decay, o->optim.lr_step_every, o->optim.lr_step_gamma);
    fprintf(f, "# seed=%lu\n# threads=%d\n# eval_frac=%.9g\n# data_seed=%lu\n# eval_every=%ld\n",
            o->seed, o->threads, o->eval_frac, o->data_seed, o->eval_every);
    if (!isnan(o->target_loss))
        fprintf(f, "# target_loss=%.9g\n", o->target_loss);
    if (o->resume_path)
        fprintf(f, "# resumed_from=%s\n", o->resume_path);
}

int mb_run_result_format(const mb_run_result *r, const mb_run_options *o, char *buf, size_t n)
{
    return snprintf(buf, n,
                    "net=%s algo=%s batch=%d seed=%lu updates=%ld epochs=%.4f samples=%zu "
                    "wall_s=%.3f eval_s=%.3f loss=%.6g eval_loss=%.6g eval_acc=%.4f "
                    "test_loss=%.6g test_acc=%.4f reached=%s reached_update=%ld",
                    r->net, mb_optim_kind_name(o->optim.kind), o->batch, o->seed, r->updates,
                    r->epochs, r->samples, r->wall_s, r->eval_s, r->loss, r->eval_loss,
                    r->eval_acc, r->test_loss, r->test_acc, r->reached ? "yes" : "no",
                    r->reached_update);
}

/* Evaluates the net on a dataset: mean loss and accuracy. */
static int evaluate(mb_net *net, const mb_dataset *s, double *loss, double *acc, mb_error *err)
{
    size_t correct = 0;
    int rc = mb_net_evaluate(net, s->x, s->y, s->n, loss, &correct);
    if (rc != MB_OK)
        return mb_error_set(err, rc, "evaluation failed: %s", mb_strerror(rc));
    *acc = s->n ? (double)correct / (double)s->n : NAN;
    return MB_OK;
}

/* Writes the log: metadata, header, rows, summary trailer. */
static int write_log(const mb_run_options *o, const mb_net_desc *d, size_t params,
                     const strbuf *rows, const char *summary, mb_error *err)
{
    mb_out out;
    int rc = mb_out_open(&out, o->log_path, err);
    if (rc != MB_OK)
        return rc;
    write_meta(out.f, o, d, params);
    fputs("update,epoch,samples,wall_s,loss,eval_loss,eval_acc\n", out.f);
    if (rows->len)
        fwrite(rows->s, 1, rows->len, out.f);
    fprintf(out.f, "# %s\n", summary);
    return mb_out_commit(&out, err);
}

int mb_train_run(const mb_run_options *o, mb_run_result *r, mb_error *err)
{
    memset(r, 0, sizeof *r);
    r->eval_loss = r->eval_acc = r->test_loss = r->test_acc = r->loss = NAN;
    int rc = check_options(o, err);
    if (rc != MB_OK)
        return rc;
    mb_net_desc *desc = NULL;
    mb_data_splits own;
    int own_data = 0;
    mb_learner l;
    memset(&l, 0, sizeof l);
    strbuf rows = {0};
    mb_ckpt_extra x = {0};

    if ((rc = mb_net_desc_read(o->net, &desc, err)) != MB_OK)
        return rc;
    const mb_data_splits *data = o->splits;
    if (!data) {
        memset(&own, 0, sizeof own);
        if ((rc = mb_data_load(o->data, o->eval_frac, o->data_seed, &own, err)) != MB_OK)
            goto out;
        own_data = 1;
        data = &own;
    }
    if ((rc = check_shapes(desc, &data->train, "training", err)) != MB_OK)
        goto out;
    if (data->eval.n == 0) {
        rc = mb_error_set(err, MB_EINVAL, "data '%s': the eval subset is empty", o->data);
        goto out;
    }
    if ((rc = mb_learner_init(&l, desc, o, data->train.n, err)) != MB_OK)
        goto out;
    snprintf(r->net, sizeof r->net, "%s", desc->name);
    r->params = mb_net_param_count(l.net);

    long updates = 0;
    size_t samples = 0;
    double wall0 = 0;
    if (o->resume_path) {
        if ((rc = mb_ckpt_read(o->resume_path, &l, o, &x, err)) != MB_OK)
            goto out;
        updates = x.updates;
        samples = x.samples;
        wall0 = x.wall_s;
        rows.s = x.log_rows; /* the log continues from the checkpoint's rows */
        rows.len = x.log_len;
        rows.cap = x.log_len + 1;
        x.log_rows = NULL;
    }

    /* the bound on updates: max_updates, and epochs x full batches per epoch */
    long per_epoch = (long)(data->train.n / (size_t)o->batch);
    long bound = o->max_updates;
    if (o->epochs > 0) {
        long e = (long)ceil(o->epochs * (double)per_epoch);
        if (bound == 0 || e < bound)
            bound = e;
    }
    double train_s = 0, eval_s = 0, eval_loss = NAN, eval_acc = NAN;
    int reached = 0;
    while (!reached && (bound == 0 || updates < bound)) {
        double t0 = now_s(), loss;
        long epoch;
        if ((rc = mb_learner_step(&l, &data->train, &loss, &epoch, err)) != MB_OK)
            goto out;
        train_s += now_s() - t0;
        updates++;
        samples += (size_t)o->batch;
        r->loss = loss;
        if (!isfinite(loss)) {
            rc = mb_error_set(err, MB_ENOCONV,
                              "update %ld: the loss is %g (diverged: try a smaller learning rate)",
                              updates, loss);
            goto out;
        }
        int last = bound > 0 && updates == bound;
        int eval_now = updates % o->eval_every == 0 || last;
        if (eval_now) {
            double t1 = now_s();
            if ((rc = evaluate(l.net, &data->eval, &eval_loss, &eval_acc, err)) != MB_OK)
                goto out;
            eval_s += now_s() - t1;
            if (!isnan(o->target_loss) && eval_loss <= o->target_loss) {
                reached = 1;
                r->reached_update = updates;
            }
        }
        double wall = wall0 + train_s;
        rc = eval_now ? sb_printf(&rows, "%ld,%ld,%zu,%.6f,%.7g,%.7g,%.6g\n", updates, epoch,
                                  samples, wall, loss, eval_loss, eval_acc)
                      : sb_printf(&rows, "%ld,%ld,%zu,%.6f,%.7g,,\n", updates, epoch, samples,
                                  wall, loss);
        if (rc != MB_OK) {
            rc = mb_error_set(err, MB_ENOMEM, "out of memory for the log");
            goto out;
        }
        if (o->checkpoint_path && updates % o->checkpoint_every == 0) {
            mb_ckpt_extra cx = {.updates = updates, .samples = samples, .wall_s = wall,
                                .log_rows = rows.s, .log_len = rows.len};
            if ((rc = mb_ckpt_write(o->checkpoint_path, &l, o, &cx, err)) != MB_OK)
                goto out;
        }
        if (o->progress) {
            mb_run_progress p = {.update = updates, .max_updates = bound,
                                 .epoch = (double)samples / (double)data->train.n, .loss = loss,
                                 .eval_loss = eval_loss, .wall_s = wall};
            o->progress(&p, o->progress_ctx);
        }
    }
    if (isnan(eval_loss)) { /* e.g. resumed at the bound: nothing evaluated in this process */
        double t1 = now_s();
        if ((rc = evaluate(l.net, &data->eval, &eval_loss, &eval_acc, err)) != MB_OK)
            goto out;
        eval_s += now_s() - t1;
    }
    r->updates = updates;
    r->samples = samples;
    r->epochs = (double)samples / (double)data->train.n;
    r->wall_s = wall0 + train_s;
    r->eval_loss = eval_loss;
    r->eval_acc = eval_acc;
    r->reached = reached;
    if (data->test.n > 0) {
        if (data->test.c != data->train.c || data->test.h != data->train.h ||
            data->test.w != data->train.w) {
            rc = check_shapes(desc, &data->test, "test", err);
            goto out;
        }
        double t1 = now_s();
        if ((rc = evaluate(l.net, &data->test, &r->test_loss, &r->test_acc, err)) != MB_OK)
            goto out;
        eval_s += now_s() - t1;
    }
    r->eval_s = eval_s;
    if (o->log_path) {
        char summary[1024];
        mb_run_result_format(r, o, summary, sizeof summary);
        rc = write_log(o, desc, r->params, &rows, summary, err);
    }
out:
    free(rows.s);
    free(x.log_rows);
    mb_learner_free(&l);
    if (own_data)
        mb_data_splits_free(&own);
    mb_net_desc_free(desc);
    return rc;
}
