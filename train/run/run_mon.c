/* run_mon.c — the run monitor (run_impl.h, mb_run_mon_*) that one learner (run.c) and the
 * parallel drivers (par.c, par_async.c) share: after each update they hand it the model (the
 * learner's parameters, the centre or the averaged model) and it keeps the evaluation schedule,
 * the judge (judge_eval: every evaluation of the eval subset, staged checks included), the
 * snapshots and bisection, divergence, the log rows and the one log writer, so that every
 * trainer gets the same exact crossing and the same log. What it does is described in run.c's
 * opening comment (exact crossing, adaptive spacing, staged checks, divergence).
 *
 * Below both drivers: it calls neither. Not here: the loops themselves, printing (progress goes
 * to a callback).
 */
#include "run_impl.h"
#include "../../data/mb_output.h"
#include "../../data/mb_format.h"
#include "../learner/mb_learner.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

long mb_run_update_bound(const mb_run_options *o, size_t train_n, int batch)
{
    const double per_epoch = (double)(train_n / (size_t)batch), e = ceil(o->epochs * per_epoch);
    long bound = o->max_updates;
    if (o->epochs > 0 && (bound == 0 || e < (double)bound))
        bound = e > (double)(1L << 40) ? 1L << 40 : (long)e;
    return bound;
}

long mb_run_eval_cap(const mb_run_options *o, size_t params)
{
    long e = o->eval_every;
    if (!o->eval_adapt || isnan(o->target_loss) || e <= 0)
        return e;
    const double block = 256.0 * 1024 * 1024; /* bytes of snapshots W may take */
    double fit = floor(block / ((double)(params ? params : 1) * sizeof(float)));
    double w = 8.0 * (double)e < fit ? 8.0 * (double)e : fit;
    return w > (double)e ? (long)w : e;
}

void mb_run_pace_init(mb_run_pace *p)
{
    p->u_first = -1;
    p->loss_first = p->loss_last = NAN;
    p->rise = 0;
}

long mb_run_eval_gap(mb_run_pace *p, long eval_every, long cap, double target, long u,
                     double loss)
{
    if (p->u_first < 0 || u <= p->u_first) {
        p->u_first = u;
        p->loss_first = p->loss_last = loss;
        return eval_every;
    }
    if (loss - p->loss_last > p->rise)
        p->rise = loss - p->loss_last;
    p->loss_last = loss;
    double rate = (p->loss_first - loss) / (double)(u - p->u_first); /* loss per update */
    double d = loss - target - p->rise;
    if (!(rate > 0) || !(d > 0)) /* no decline, or within the noise of the target (NaN too) */
        return eval_every;
    double gap = floor(0.5 * d / rate);
    if (!(gap > (double)eval_every))
        return eval_every;
    long g = gap < (double)cap ? (long)gap : cap;
    return g / eval_every * eval_every; /* on plain spacing's grid: >= eval_every, <= cap */
}
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int sb_printf(mb_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int sb_printf(mb_strbuf *b, const char *fmt, ...)
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
static void write_meta(FILE *f, const mb_run_options *o, const mb_net_desc *d,
                       const mb_run_result *r, const char *extra)
{
    size_t params = r->params;
    mb_data_write_common_meta(f, o->tool ? o->tool : "mbtrain", o->argc, o->argv);
    fprintf(f, "# net=%s\n# params=%zu\n# data=", d->name, params);
    mb_format_meta_text(f, o->data ? o->data : ""); /* a path: one line whatever it holds */
    fprintf(f, "\n# algo=%s\n# batch=%d\n# learners=%d\n", mb_run_algo_name(o), o->batch,
            r->learners > 0 ? r->learners : 1);
    fprintf(f, "# lr=%.9g\n# momentum=%.9g\n# weight_decay=%.9g\n# lr_step=%ld\n# lr_gamma=%.9g\n",
            o->optim.lr, o->optim.kind == MB_OPTIM_SGD ? 0.0 : o->optim.momentum,
            o->optim.weight_decay, o->optim.lr_step_every, o->optim.lr_step_gamma);
    fprintf(f, "# seed=%lu\n# threads=%d\n# eval_frac=%.9g\n# data_seed=%lu\n# eval_every=%ld\n",
            o->seed, o->threads, o->eval_frac, o->data_seed, o->eval_every);
    fprintf(f, "# backend=%s\n# device=%s\n", mb_backend_name(o->backend), r->device);
    if (o->par != MB_PAR_NONE) {
        fprintf(f, "# ranks=%d\n# optim=%s\n", r->ranks > 0 ? r->ranks : 1,
                mb_optim_kind_name(o->optim.kind));
        fprintf(f, "# t_compute_s=%.6f\n# t_comm_s=%.6f\n# t_data_s=%.6f\n# t_update_s=%.6f\n"
                "# t_eval_s=%.6f\n", r->t_compute_s, r->t_comm_s, r->t_data_s, r->t_update_s,
                r->eval_s);
    }
    if (isfinite(r->b_simple)) /* any trainer that measured it (left out, never "nan") */
        fprintf(f, "# b_simple=%.6g\n", r->b_simple);
    if (o->par == MB_PAR_NONE && o->noise_every > 0 && o->batch > 1)
        fprintf(f, "# noise_every=%ld\n# t_noise_s=%.6f\n", o->noise_every, r->noise_s);
    if (isfinite(r->others_cores) && isfinite(r->steal_cores)) /* what else the machine did */
        fprintf(f, "# others_cores=%.3f\n# steal_cores=%.3f\n", r->others_cores, r->steal_cores);
    if (extra)
        fputs(extra, f);
    if (o->eval_adapt)
        fprintf(f, "# eval_adapt=1\n");
    if (o->check_frac > 0 && !isnan(o->target_loss))
        fprintf(f, "# check_frac=%.9g\n# check_sigmas=%.9g\n", o->check_frac, o->check_sigmas);
    if (o->n_levels > 0 && !isnan(o->target_loss)) {
        fputs("# levels=", f);
        for (int k = 0; k < o->n_levels; k++)
            fprintf(f, "%s%.9g", k ? "," : "", o->levels[k]);
        fputc('\n', f);
    }
    if (o->max_seconds > 0) /* with the checkpoints' seconds it counts beside wall_s */
        fprintf(f, "# max_seconds=%.9g\n", o->max_seconds);
    if (o->max_seconds > 0 && o->checkpoint_path)
        fprintf(f, "# t_ckpt_s=%.6f\n", r->ckpt_s);
    if (!isnan(o->target_loss))
        fprintf(f, "# target_loss=%.9g\n# crossing=%s\n", o->target_loss,
                o->no_bisect ? "evaluated" : "bisect");
    if (r->diverged)
        fprintf(f, "# diverged=%ld\n", r->diverged_update);
    if (o->resume_path) {
        fputs("# resumed_from=", f);
        mb_format_meta_text(f, o->resume_path);
        fputc('\n', f);
    }
}

/* A summary line with "-" for every value that is not a number ("test_loss=nan" of a run that
 * skipped the test set): nan and inf are never printed as results. */
static void dash_non_finite(char *line)
{
    static const char *const bad[] = {"=-nan", "=nan", "=-inf", "=inf"};
    for (size_t b = 0; b < sizeof bad / sizeof *bad; b++)
        for (char *p = line; (p = strstr(p, bad[b]));) {
            size_t k = strlen(bad[b]);
            if (p[k] != ' ' && p[k] != '\0') {
                p += k;
                continue;
            }
            p[1] = '-';
            memmove(p + 2, p + k, strlen(p + k) + 1);
        }
}

int mb_run_result_format(const mb_run_result *r, const mb_run_options *o, char *buf, size_t n)
{
    int k = snprintf(buf, n,
                     "net=%s algo=%s batch=%d seed=%lu updates=%ld epochs=%.4f samples=%zu "
                     "wall_s=%.3f eval_s=%.3f loss=%.6g eval_loss=%.6g eval_acc=%.4f "
                     "test_loss=%.6g test_acc=%.4f reached=%s reached_update=%ld "
                     "reached_wall_s=%.3f evals=%ld checks=%ld eval_samples=%zu snap_s=%.3f "
                     "diverged=%s diverged_update=%ld",
                     r->net, mb_run_algo_name(o), o->batch, o->seed, r->updates, r->epochs,
                     r->samples, r->wall_s, r->eval_s, r->loss, r->eval_loss, r->eval_acc,
                     r->test_loss, r->test_acc, r->reached ? "yes" : "no", r->reached_update,
                     r->reached_wall_s, r->evals, r->checks, r->eval_samples, r->snap_s,
                     r->diverged ? "yes" : "no", r->diverged_update);
    if (o->par == MB_PAR_NONE && k >= 0 && (size_t)k < n)
        k += snprintf(buf + k, n - (size_t)k, " b_simple=%.4g", r->b_simple);
    if (o->par != MB_PAR_NONE && k >= 0 && (size_t)k < n)
        k += snprintf(buf + k, n - (size_t)k,
                      " learners=%d ranks=%d t_compute_s=%.3f t_comm_s=%.3f t_data_s=%.3f "
                      "t_update_s=%.3f b_simple=%.4g", r->learners, r->ranks, r->t_compute_s,
                      r->t_comm_s, r->t_data_s, r->t_update_s, r->b_simple);
    if (k >= 0 && (size_t)k < n) {
        dash_non_finite(buf);
        k = (int)strlen(buf);
    }
    return k;
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

/* The net's parameters to (to_net) or from host memory, on any backend (a copy on the CPU; over
 * the bus from a device learner, whose parameters live there): the snapshots and the models
 * handed in are host memory, the net's own parameters are its backend's. */
static int params_io(mb_run_mon *m, float *host, const float *to_net, mb_error *err)
{
    int rc = to_net ? mb_net_write_params(m->net, to_net) : mb_net_read_params(m->net, host);
    return rc == MB_OK ? MB_OK
                       : mb_error_set(err, rc, "could not copy the parameters %s the %s device",
                                      to_net ? "to" : "from",
                                      mb_backend_name(mb_ctx_backend(mb_net_context(m->net))));
}

/* Loads `model` (host memory) into the monitor's net, unless it is the net's parameters or
 * NULL. */
static int load_model(mb_run_mon *m, const float *model, mb_error *err)
{
    if (!model || model == mb_net_params(m->net))
        return MB_OK;
    return params_io(m, NULL, model, err);
}

/* Evaluates `model` on s (the test set; the eval subset goes through judge_eval). */
static int evaluate_model(mb_run_mon *m, const float *model, const mb_dataset *s, double *loss,
                          double *acc, mb_error *err)
{
    int rc = load_model(m, model, err);
    return rc != MB_OK ? rc : evaluate(m->net, s, loss, acc, err);
}

/* Writes the log: metadata, header, rows, summary trailer. */
static int write_log(const mb_run_options *o, const mb_net_desc *d, const mb_run_result *r,
                     const mb_strbuf *rows, const char *extra, const char *summary,
                     mb_error *err)
{
    mb_out out;
    int rc = mb_out_open(&out, o->log_path, err);
    if (rc != MB_OK)
        return rc;
    write_meta(out.f, o, d, r, extra);
    fputs("update,epoch,samples,wall_s,loss,eval_loss,eval_acc,b_simple\n", out.f);
    if (rows->len)
        fwrite(rows->s, 1, rows->len, out.f);
    fprintf(out.f, "# %s\n", summary);
    return mb_out_commit(&out, err);
}

/* Appends a row; the eval cells are empty when it was not evaluated (or the evaluation was not
 * finite: the log holds finite numbers only), and so is b_simple where there is none. */
static int emit_row(mb_strbuf *b, const mb_run_row *w)
{
    int rc = isfinite(w->eval_loss)
                 ? sb_printf(b, "%ld,%ld,%zu,%.6f,%.7g,%.7g,%.6g,", w->update, w->epoch,
                             w->samples, w->wall_s, w->loss, w->eval_loss, w->eval_acc)
                 : sb_printf(b, "%ld,%ld,%zu,%.6f,%.7g,,,", w->update, w->epoch, w->samples,
                             w->wall_s, w->loss);
    if (rc == MB_OK)
        rc = isfinite(w->b_simple) ? sb_printf(b, "%.6g\n", w->b_simple) : sb_printf(b, "\n");
    return rc == MB_OK ? MB_OK : MB_ENOMEM;
}

/* The judge: what decides whether a model reaches the target, for the schedule and the
 * bisection alike, and for every trainer (the monitor's eval subset, check and cost counters).
 * Evaluates `model` on the eval subset (copied into the monitor's net first unless it is its
 * parameters; NULL: the net's parameters as they are, a snapshot the bisection loaded): by
 * stages when checking (and not full_only), *ruled_out = 1 when a stage ruled `level` out (the
 * target, or the highest level not yet reached: mb_run_mon_level; *loss, *acc untouched; *est
 * the estimate); else the full evaluation's *loss and *acc (*est = *loss). */
static int judge_eval(mb_run_mon *m, const float *model, double level, int full_only,
                      int *ruled_out, double *loss, double *acc, double *est, mb_error *err)
{
    const mb_dataset *eval = &m->data->eval;
    double t0 = now_s();
    int rc = load_model(m, model, err);
    if (rc != MB_OK)
        return rc;
    size_t seen = eval->n;
    *ruled_out = 0;
    if (m->ck.n > 0 && !full_only) {
        rc = mb_run_check_eval(&m->ck, m->net, eval, level, m->o->check_sigmas, m->blowup,
                               ruled_out, loss, acc, est, &seen, err);
    } else {
        rc = evaluate(m->net, eval, loss, acc, err);
        *est = *loss;
    }
    m->eval_s += now_s() - t0;
    m->eval_samples += seen;
    m->checks += rc == MB_OK && *ruled_out;
    m->evals += rc == MB_OK && !*ruled_out;
    return rc;
}

/* Appends the held rows to the log text (the window stays as it is). */
static int window_emit(const mb_run_window *w, mb_strbuf *b)
{
    for (long k = 0; k < w->n; k++)
        if (emit_row(b, &w->rows[k]) != MB_OK)
            return MB_ENOMEM;
    return MB_OK;
}

/* The evaluation at update u1 = u0 + n reached the target; the last one before it (at u0, or
 * the start of this process, which is not evaluated) did not. Finds the first update u* in
 * (u0, u1] whose evaluation loss is <= target by bisection over the snapshots, assuming that the
 * evaluation loss crosses the target once inside the window (the windows are short next to the
 * run). Invariant: lo's loss is above the target (or lo = u0), hi's is at or under it; every
 * evaluated update with a loss above the target ends at or below lo < u*, every other at or
 * above hi = u*, so the first logged row with eval_loss <= target is u*. Without the
 * single-crossing assumption the result is still a crossing (loss(u* - 1) > target or u* - 1 =
 * u0, loss(u*) <= target), not necessarily the first; a linear scan would find the first at
 * O(window) evaluations instead of O(log2 window). The points go through the judge: with
 * checks, an update whose evaluation a check rules out counts as above the target (its row keeps
 * no eval cells). Each point is judged against `level`, the judge's aim at the window's start
 * (mb_run_mon_level before its last evaluation): with --levels, a point the check does not rule
 * out is evaluated in full and logged, so a level first reached inside the window shows there
 * as it would with full evaluations. The net's live parameters are restored. */
static int bisect_window(mb_run_mon *m, double level, long *u_star, mb_error *err)
{
    mb_run_window *w = &m->win;
    float *keep = w->snap + (size_t)(w->cap - 1) * w->params;
    long lo = w->u0, hi = w->u0 + w->n;
    int rc = MB_OK, saved = 0;
    while (hi - lo > 1) {
        long mid = lo + (hi - lo) / 2, k = mid - w->u0 - 1;
        double t0 = now_s();
        if (!saved && (rc = params_io(m, keep, NULL, err)) != MB_OK)
            break;
        saved = 1;
        if ((rc = params_io(m, NULL, w->snap + (size_t)k * w->params, err)) != MB_OK)
            break;
        m->snap_s += now_s() - t0;
        int out_of_reach;
        double est;
        rc = judge_eval(m, NULL, level, 0, &out_of_reach, &w->rows[k].eval_loss,
                        &w->rows[k].eval_acc, &est, err);
        if (rc != MB_OK)
            break;
        if (!out_of_reach && w->rows[k].eval_loss <= m->o->target_loss) /* NaN: not reached */
            hi = mid;
        else
            lo = mid;
    }
    if (saved) {
        double t0 = now_s();
        int back = params_io(m, NULL, keep, err);
        rc = rc != MB_OK ? rc : back;
        m->snap_s += now_s() - t0;
    }
    *u_star = hi;
    return rc;
}

/* ---- the run monitor (run_impl.h) ---------------------------------------------------------- */

/* The highest level above `low` (the lowest full loss), else the target. */
static double level_above(const mb_run_options *o, double low)
{
    for (int k = 0; k < o->n_levels; k++)
        if (!(low <= o->levels[k]))
            return o->levels[k];
    return o->target_loss;
}

double mb_run_mon_level(const mb_run_mon *m)
{
    return level_above(m->o, m->low);
}

/* Where the eval cells of the log row [row, end) start (rows of emit_row: after the fifth comma,
 * past update, epoch, samples, wall_s and loss), NULL when it has fewer cells. */
static const char *eval_cells(const char *row, const char *end)
{
    for (int c = 0; c < 5; c++) {
        const char *q = memchr(row, ',', (size_t)(end - row));
        if (!q)
            return NULL;
        row = q + 1;
    }
    return row;
}

/* The lowest eval_loss of the log rows s[0..len) (the sixth cell, empty where the row was not
 * evaluated in full), INFINITY when none has one. */
static double rows_low(const char *s, size_t len)
{
    double low = INFINITY;
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(s + i, '\n', len - i), *end = nl ? nl : s + len,
                   *p = eval_cells(s + i, end);
        if (p && p < end && *p != ',') {
            double v = strtod(p, NULL);
            if (v < low) /* false for NaN */
                low = v;
        }
        i = (size_t)(end - s) + 1;
    }
    return low;
}

/* A resumed run's crossing: the first of the log rows s[0..len) whose eval_loss is at or under
 * the target (the straight run's reached_update: the bisection and the schedule both log it as
 * the first such row, and the run stops at the evaluation that found it), with its wall_s.
 * 0 when none is (the checkpoint was written before the run reached it). */
static int rows_reached(const char *s, size_t len, double target, long *update, double *wall_s)
{
    for (size_t i = 0; i < len && !isnan(target);) {
        const char *nl = memchr(s + i, '\n', len - i), *end = nl ? nl : s + len,
                   *p = eval_cells(s + i, end);
        if (p && p < end && *p != ',' && strtod(p, NULL) <= target) {
            const char *w = s + i;
            for (int c = 0; c < 3; c++) /* past update, epoch, samples: wall_s */
                w = strchr(w, ',') + 1;
            *update = strtol(s + i, NULL, 10);
            *wall_s = strtod(w, NULL);
            return 1;
        }
        i = (size_t)(end - s) + 1;
    }
    return 0;
}

int mb_run_mon_ended(const mb_run_mon *m, long updates)
{
    return (m->bound > 0 && updates >= m->bound) || m->reached;
}

int mb_run_mon_init(mb_run_mon *m, const mb_run_options *o, const mb_net_desc *desc,
                    const mb_data_splits *data, mb_net *net, mb_run_result *r, long updates,
                    char *rows0, size_t len0, mb_error *err)
{
    memset(m, 0, sizeof *m);
    m->o = o;
    m->desc = desc;
    m->data = data;
    m->net = net;
    m->r = r;
    m->eval_loss = m->eval_acc = NAN;
    m->low = INFINITY;
    mb_hostload_mark_now(&m->load0);
    if (rows0) { /* the log continues from the checkpoint's rows */
        m->rows.s = rows0;
        m->rows.len = len0;
        m->rows.cap = len0 + 1;
        m->low = rows_low(rows0, len0); /* the levels its evaluations reached */
        /* and the target, when the checkpoint was written at the evaluation that reached it
         * (campaign 31's A1: the run trained on and reported a later crossing) */
        m->reached = rows_reached(rows0, len0, o->target_loss, &r->reached_update,
                                  &r->reached_wall_s);
    }
    m->bound = mb_run_update_bound(o, data->train.n, o->batch);
    /* Divergence by evaluation: a freshly initialised net predicts close to uniformly, with a
     * cross-entropy near ln(classes) (2.3 for 10 classes), so that is the initial loss without
     * an evaluation to pay for. A mean loss 100 times that (230 nats for 10 classes) means logits
     * hundreds apart, confidently wrong on most of the eval subset: the weights have blown up
     * and the run will not reach a target near or below the initial loss in the updates it is
     * given. A non-finite evaluation loss is divergence too. */
    m->blowup = 100.0 * log(desc->classes > 1 ? (double)desc->classes : 2.0);
    m->bisect = !isnan(o->target_loss) && !o->no_bisect;
    m->adapt = o->eval_adapt && !isnan(o->target_loss);
    mb_run_window *win = &m->win;
    win->u0 = updates;
    win->cap = mb_run_eval_cap(o, r->params); /* eval_every, or W with eval_adapt */
    /* a window never outlasts the run: the bound on updates ends it with an evaluation, so a run
     * of 5 updates needs 5 snapshots at most whatever --eval-every says */
    if (m->bound > updates && m->bound - updates < win->cap)
        win->cap = m->bound - updates;
    win->params = r->params;
    if (m->bisect) {
        /* the whole window at set-up: the hot path copies into it and never allocates (W above
         * eval_every is at most 256 MiB, so only eval_every itself can be refused) */
        const double cap_bytes = 2.0 * 1024 * 1024 * 1024;
        double need = (double)win->cap * (double)r->params * sizeof(float);
        if (need > cap_bytes) {
            /* named as given: --eval-samples S sets the spacing S / M (campaign 45 A's F3: the
             * line named an --eval-every the user never gave) */
            char v[80];
            const char *flag = o->eval_samples > 0 ? "--eval-samples" : "--eval-every";
            if (o->eval_samples > 0)
                snprintf(v, sizeof v, "%ld (%ld updates at batch %d)", o->eval_samples,
                         o->eval_every, o->batch);
            else
                snprintf(v, sizeof v, "%ld", o->eval_every);
            return mb_error_set(err, MB_EINVAL,
                                "%s %s with %zu parameters needs %.1f GiB of snapshots for the "
                                "bisection (%ld updates a window, at most 2 GiB): give a smaller "
                                "%s or --max-updates, or turn the bisection off (--no-bisect)",
                                flag, v, r->params, need / (1024.0 * 1024 * 1024), win->cap, flag);
        }
        win->rows = malloc((size_t)win->cap * sizeof *win->rows);
        win->snap = win->cap > 1 ? mb_train_alloc64((size_t)need) : NULL;
        if (!win->rows || (win->cap > 1 && !win->snap))
            return mb_error_set(err, MB_ENOMEM, "out of memory for %ld parameter snapshots",
                                win->cap);
        r->snap_bytes = win->cap > 1 ? (size_t)need : 0;
    }
    if (o->check_frac > 0 && !isnan(o->target_loss)) {
        int rc = mb_run_check_init(&m->ck, o, &data->eval, err);
        if (rc != MB_OK)
            return rc;
    }
    /* the schedule: the first evaluation at the next multiple of eval_every (a resumed run
     * keeps the straight run's grid), then every eval_every, or mb_run_eval_gap apart */
    m->next_eval = (updates / o->eval_every + 1) * o->eval_every;
    mb_run_pace_init(&m->pace);
    return MB_OK;
}

/* m->tail.plain: the n rows the off-schedule evaluation at `last` (this update's row) logged,
 * as the schedule logs them: no eval cells (the bisection's included), no b_simple. With the
 * bisection they are the window it emitted (still in win.rows), else the row alone. */
static int tail_rows(mb_run_mon *m, const mb_run_row *last, long n)
{
    m->tail.plain.len = 0;
    int rc = MB_OK;
    for (long k = 0; rc == MB_OK && k < n; k++) {
        mb_run_row w = m->bisect ? m->win.rows[k] : *last;
        w.eval_loss = w.eval_acc = w.b_simple = NAN;
        rc = emit_row(&m->tail.plain, &w);
    }
    return rc;
}

int mb_run_mon_update(mb_run_mon *m, const float *model, const mb_run_row *in, int *stop,
                      mb_error *err)
{
    const mb_run_options *o = m->o;
    mb_run_result *r = m->r;
    mb_run_window *win = &m->win;
    long updates = in->update, u0 = win->u0; /* the window this update is in starts after u0 */
    int rc = MB_OK;
    r->loss = in->loss;
    *stop = 0;
    if (!isfinite(in->loss)) {
        /* its row is not logged: the log holds finite numbers only */
        m->diverged = 1;
        r->diverged_update = updates;
        *stop = 1;
        return MB_OK;
    }
    mb_run_row row = *in;
    row.eval_loss = row.eval_acc = row.b_simple = NAN;
    /* the last update: the bound on updates, or out of seconds (--max-seconds: training and
     * writing checkpoints) */
    int last = (m->bound > 0 && updates == m->bound) ||
               (o->max_seconds > 0 && in->wall_s + m->ckpt_s >= o->max_seconds);
    int eval_now = updates == m->next_eval || last;
    /* the judge's aim over this window (the bisection's too), and the lowest full loss after it */
    double level = mb_run_mon_level(m), low = m->low;
    int off_schedule = eval_now && updates != m->next_eval; /* the bound's evaluation alone */
    if (off_schedule) {
        m->tail.evals = m->evals;
        m->tail.checks = m->checks;
        m->tail.eval_samples = m->eval_samples;
        m->tail.noise = m->noise;
        m->tail.at = m->rows.len;
    }
    if (eval_now) {
        double est;
        int out_of_reach; /* a check ruled the level out: eval_loss stays the last full one */
        if ((rc = judge_eval(m, model, level, last, &out_of_reach, &m->eval_loss, &m->eval_acc,
                             &est, err)) != MB_OK)
            return rc;
        if (!out_of_reach) {
            if (m->eval_loss < low)
                low = m->eval_loss;
            row.eval_loss = m->eval_loss;
            row.eval_acc = m->eval_acc;
            if (!isfinite(m->eval_loss) || m->eval_loss > m->blowup) {
                m->diverged = 1;
                r->diverged_update = updates;
            } else if (!isnan(o->target_loss) && m->eval_loss <= o->target_loss) {
                m->reached = 1;
                r->reached_update = updates;
                r->reached_wall_s = row.wall_s;
            }
        }
        row.b_simple = mb_noise_window(&m->noise).b_simple; /* the window this one closes */
        /* spaced by the distance to what the next evaluation is judged against */
        double aim = level_above(o, low);
        long gap = m->adapt ? mb_run_eval_gap(&m->pace, o->eval_every, win->cap, aim, updates,
                                              est)
                            : o->eval_every;
        m->next_eval = updates + gap; /* <= u0 + cap of the next window */
    }
    if (!m->bisect) {
        rc = emit_row(&m->rows, &row);
        m->low = low;
    } else {
        long k = updates - win->u0 - 1; /* < win->cap: a window ends at an evaluation */
        win->rows[k] = row;
        win->n = k + 1;
        if (!eval_now) {
            double t1 = now_s();
            float *snap = win->snap + (size_t)k * win->params;
            if (model != mb_net_params(m->net))
                memcpy(snap, model, win->params * sizeof(float));
            else if ((rc = params_io(m, snap, NULL, err)) != MB_OK) /* its backend's memory */
                return rc;
            m->snap_s += now_s() - t1;
        } else {
            if (m->reached) {
                long u_star;
                if ((rc = bisect_window(m, level, &u_star, err)) != MB_OK)
                    return rc;
                r->reached_update = u_star;
                r->reached_wall_s = win->rows[u_star - win->u0 - 1].wall_s;
            }
            rc = window_emit(win, &m->rows);
            win->u0 = updates;
            win->n = 0;
            m->low = low;
        }
    }
    if (rc == MB_OK && off_schedule)
        rc = tail_rows(m, &row, m->bisect ? updates - u0 : 1);
    if (rc != MB_OK)
        return mb_error_set(err, MB_ENOMEM, "out of memory for the log");
    *stop = m->reached || m->diverged || last;
    return MB_OK;
}

/* Swaps the counts and noise sums of the monitor with the tail's (before and after the
 * off-schedule evaluation). */
static void tail_swap(mb_run_mon *m)
{
    long e = m->evals, c = m->checks;
    size_t s = m->eval_samples;
    mb_noise n = m->noise;
    m->evals = m->tail.evals, m->checks = m->tail.checks, m->eval_samples = m->tail.eval_samples;
    m->noise = m->tail.noise;
    m->tail.evals = e, m->tail.checks = c, m->tail.eval_samples = s, m->tail.noise = n;
}

int mb_run_mon_ckpt_rows(mb_run_mon *m, size_t *saved, mb_error *err)
{
    /* the held rows go into the checkpoint but stay held here; a run resumed from it starts a
     * fresh window (its bisection never looks before the resume) */
    *saved = m->rows.len;
    if (m->bisect && window_emit(&m->win, &m->rows) != MB_OK)
        return mb_error_set(err, MB_ENOMEM, "out of memory for the log");
    /* the run's last evaluation, if any, was on the schedule; or it reached the target, and the
     * rows as logged hold the crossing its bisection found, which a resumed run takes from them
     * and ends there (campaign 31's A1: from the schedule's rows it reported reached=no) */
    if (m->tail.plain.len == 0 || m->reached)
        return MB_OK;
    /* the run ended at an evaluation the bound alone asked for: the rows after tail.at are the
     * last ones (a run stops there), kept aside while the schedule's are in their place */
    if (!(m->tail.logged = strdup(m->rows.s + m->tail.at)))
        return mb_error_set(err, MB_ENOMEM, "out of memory for the log");
    m->rows.len = m->tail.at;
    if (sb_printf(&m->rows, "%s", m->tail.plain.s) != MB_OK) {
        m->rows.len = m->tail.at;
        sb_printf(&m->rows, "%s", m->tail.logged); /* fits: it was there */
        free(m->tail.logged);
        m->tail.logged = NULL;
        return mb_error_set(err, MB_ENOMEM, "out of memory for the log");
    }
    tail_swap(m);
    return MB_OK;
}

void mb_run_mon_resume(mb_run_mon *m, const mb_ckpt_extra *x)
{
    m->evals = x->evals;
    m->checks = x->checks;
    m->eval_samples = x->eval_samples;
    m->ckpt_s = x->ckpt_s;
    double b = m->noise.b, B = m->noise.B;
    m->noise = x->noise;
    m->noise.b = b;
    m->noise.B = B;
}

void mb_run_mon_ckpt_done(mb_run_mon *m, size_t saved)
{
    if (m->tail.logged) { /* the rows and counts as logged, back in their place */
        m->rows.len = m->tail.at;
        sb_printf(&m->rows, "%s", m->tail.logged); /* fits: the buffer held them */
        free(m->tail.logged);
        m->tail.logged = NULL;
        tail_swap(m);
    }
    m->rows.len = saved;
    if (m->rows.s)
        m->rows.s[saved] = '\0';
}

int mb_run_data(const mb_run_options *o, mb_data_splits *own, const mb_data_splits **data,
                mb_error *err)
{
    memset(own, 0, sizeof *own);
    *data = o->splits;
    if (*data)
        return MB_OK;
    int rc = mb_data_load(o->data, o->eval_frac, o->data_seed, own, err);
    if (rc == MB_OK)
        *data = own;
    return rc;
}

void mb_run_mon_progress(const mb_run_mon *m, long updates, size_t samples, double wall_s,
                         double loss)
{
    if (!m->o->progress)
        return;
    mb_run_progress p = {.update = updates, .max_updates = m->bound,
                         .epoch = (double)samples / (double)m->data->train.n, .loss = loss,
                         .eval_loss = m->eval_loss, .wall_s = wall_s, .samples = samples};
    m->o->progress(&p, m->o->progress_ctx);
}

/* A run that made no evaluation (resumed at its bound): the bound's evaluation of `model`,
 * the one the straight run made at this update. When the log's last row (the checkpoint's, at
 * `updates`) holds it already (it was on the schedule, and counted), it is repeated for the
 * summary only, not counted again; when not (the checkpoint left out an evaluation the bound
 * alone asked for: m->tail), it is counted and the row gets its eval cells and its window's
 * b_simple, as the straight run's did. */
static int bound_eval(mb_run_mon *m, const float *model, long updates, mb_error *err)
{
    /* the last row and its eval cells */
    char *row = NULL;
    const char *cell = NULL;
    if (m->rows.len > 0 && m->rows.s[m->rows.len - 1] == '\n') {
        row = m->rows.s + m->rows.len - 1;
        while (row > m->rows.s && row[-1] != '\n')
            row--;
        cell = eval_cells(row, m->rows.s + m->rows.len);
    }
    const int ours = cell && strtol(row, NULL, 10) == updates;
    const int logged = ours && *cell != ',';
    const long evals = m->evals, checks = m->checks;
    const size_t samples = m->eval_samples;
    double est;
    int out_of_reach;
    int rc = judge_eval(m, model, mb_run_mon_level(m), 1, &out_of_reach, &m->eval_loss,
                        &m->eval_acc, &est, err);
    if (rc != MB_OK)
        return rc;
    if (logged) {
        m->evals = evals, m->checks = checks, m->eval_samples = samples;
    } else if (ours) {
        m->rows.len = (size_t)(cell - m->rows.s);
        double b = mb_noise_window(&m->noise).b_simple;
        rc = isfinite(m->eval_loss)
                 ? sb_printf(&m->rows, "%.7g,%.6g,", m->eval_loss, m->eval_acc)
                 : sb_printf(&m->rows, ",,");
        if (rc == MB_OK)
            rc = isfinite(b) ? sb_printf(&m->rows, "%.6g\n", b) : sb_printf(&m->rows, "\n");
        if (rc != MB_OK)
            return mb_error_set(err, MB_ENOMEM, "out of memory for the log");
    }
    return MB_OK;
}

int mb_run_mon_finish(mb_run_mon *m, const float *model, long updates, size_t samples,
                      double wall_s, double loss, mb_error *err)
{
    const mb_run_options *o = m->o;
    const mb_data_splits *data = m->data;
    mb_run_result *r = m->r;
    int rc;
    if (m->bisect && m->win.n > 0 && window_emit(&m->win, &m->rows) != MB_OK) /* e.g. diverged */
        return mb_error_set(err, MB_ENOMEM, "out of memory for the log");
    if (isnan(m->eval_loss) && !m->diverged && (rc = bound_eval(m, model, updates, err)) != MB_OK)
        return rc; /* e.g. resumed at the bound */
    r->loss = loss;
    r->updates = updates;
    r->samples = samples;
    r->epochs = (double)samples / (double)data->train.n;
    r->wall_s = wall_s;
    r->eval_loss = m->eval_loss;
    r->eval_acc = m->eval_acc;
    r->reached = m->reached;
    r->diverged = m->diverged;
    r->evals = m->evals;
    r->checks = m->checks;
    r->eval_samples = m->eval_samples;
    r->snap_s = m->snap_s;
    r->noise_s = m->noise_total_s;
    r->ckpt_s = m->ckpt_s;
    if (m->noise.b > 0)
        r->b_simple = mb_noise_run(&m->noise).b_simple;
    if (data->test.n > 0 && !m->diverged && !o->no_test_eval) {
        if (data->test.c != data->train.c || data->test.h != data->train.h ||
            data->test.w != data->train.w)
            return mb_run_check_shapes(m->desc, &data->test, "test", err);
        double t1 = now_s();
        if ((rc = evaluate_model(m, model, &data->test, &r->test_loss, &r->test_acc, err)) !=
            MB_OK)
            return rc;
        m->eval_s += now_s() - t1;
    }
    r->eval_s = m->eval_s;
    if (r->ranks <= 1) { /* under mpirun the other ranks would count as others */
        mb_hostload_mark load;
        mb_hostload_mark_now(&load);
        mb_hostload_between(&m->load0, &load, &r->others_cores, &r->steal_cores);
    } else {
        r->others_cores = r->steal_cores = NAN; /* not measured: no load lines */
    }
    if (o->log_path) {
        char summary[1536];
        mb_run_result_format(r, o, summary, sizeof summary);
        return write_log(o, m->desc, r, &m->rows, m->extra_meta, summary, err);
    }
    return MB_OK;
}

void mb_run_mon_free(mb_run_mon *m)
{
    free(m->win.rows);
    free(m->win.snap);
    mb_run_check_free(&m->ck);
    free(m->rows.s);
    free(m->tail.plain.s);
    free(m->tail.logged);
    memset(m, 0, sizeof *m);
}
