/* run.c — mb_run_single: one training run of one learner, as mbtrain does it (mb_train_run,
 * train.c, hands a run here or to par.c).
 *
 * The loop: take the next mini-batch, forward/backward, optimiser step; every eval_every updates
 * (and after the last one) evaluate on the fixed eval subset; stop at the first evaluation whose
 * loss is <= target_loss, at max_updates, or after `epochs` epochs. The log rows are kept in
 * memory and the log is written once, atomically, at the end (a killed run leaves no log; its
 * last checkpoint carries the rows, and --resume continues them). wall_s counts training only:
 * evaluations are timed apart (eval_s), and so are the bisection's snapshot copies (snap_s) and
 * the checkpoint writes (mon.ckpt_s). --max-seconds bounds training and checkpoint writing
 * together: a checkpoint holds the log's rows so far, so with a short --checkpoint-every its
 * writes outgrow the training (campaign 30's C7: --max-seconds 2 ran for minutes).
 *
 * Exact crossing: with a target loss (and no_bisect = 0) the parameters after every update of
 * the current window (the updates since the last evaluation) are copied into one block
 * allocated at set-up, and the window's rows are held back until the window's evaluation. When
 * that evaluation reaches the target, a bisection over the window's snapshots finds the first
 * update whose evaluation reaches it; its row (and every row the bisection evaluated) carries
 * its eval_loss and eval_acc. Evaluation depends on the parameter block only (inference mode:
 * dropout is off, and the layers have no running statistics such as batch norm's), so loading
 * a snapshot into the network is enough to evaluate it.
 *
 * Adaptive spacing (eval_adapt, with a target): far above the target the scheduled evaluations
 * buy nothing, so after each one the next is put at most halfway to the crossing that the mean
 * decline rate predicts, less a noise margin (mb_run_eval_gap), on eval_every's grid, between
 * eval_every and the window cap W (mb_run_eval_cap); near the target the gap falls back to
 * eval_every (the same evaluations as without eval_adapt), where the eval loss dips
 * under the target and comes back and a coarser spacing would step over crossings. The window,
 * and so the snapshot block, holds W updates. A resumed run starts the spacing afresh (the
 * schedule is not in the checkpoint): its first evaluation is at the next multiple of
 * eval_every, as without eval_adapt.
 *
 * Staged checks (check_frac, with a target): every evaluation, scheduled or the bisection's,
 * goes over the eval subset by stages and stops where the samples seen rule the target out
 * (run_check.c, judge_eval: strata of the last full evaluation's losses, each stage shared out
 * among them by Neyman's allocation); the first stage is check_frac of the subset, or as little
 * as 8 chunks after a check that ruled the target out with room to spare (mb_run_check_start:
 * far above the target a few hundred samples do); a ruled-out scheduled evaluation still closes its
 * window, so the crossing is the one full evaluations would find unless a check misjudges a
 * loss at or under the target by more than check_sigmas standard errors.
 *
 * Levels (levels, with a target: losses above it, from the highest down): the checks and the
 * adaptive spacing aim at the highest level no full evaluation has reached yet instead of the
 * target, and at the target once every level is reached (mb_run_mon_level). A check rules an
 * evaluation out only when it is clearly above that level, and so above every level not yet
 * reached; one it cannot rule out goes full and its eval_loss is logged. So the first logged
 * row at or under each level is the one full evaluations on the same grid would log (up to the
 * checks' error rate), which is what mbfit nupdate --extrapolate reads, and an evaluation far
 * above the highest level still costs a few hundred samples. The bisection's points are judged
 * against the level aimed at when their window opened. A resumed run takes the levels reached
 * from the checkpoint's rows (their lowest eval_loss).
 *
 * Divergence: a non-finite training loss, or an evaluation loss that is non-finite or above
 * 100 ln(classes), stops the run; the log is written with `# diverged=U`, and the call returns
 * MB_OK with r->diverged set.
 *
 * The run monitor (run_mon.c, mb_run_mon_*) holds all of the above that is not the loop itself
 * — the evaluation schedule, the judge, the snapshots and bisection, divergence, the log rows
 * and the one log writer — so that the parallel trainers (par.c) hand it the centre or averaged
 * model after each update and get the same exact crossing and the same log as one learner does.
 *
 * Not here: printing (progress goes to a callback), OpenBLAS thread counts (set by the command),
 * several learners (par.c drives them through the same monitor).
 */
#include "run_impl.h"

#include <stdio.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- the single-learner loop --------------------------------------------------------------- */

/* One update (mb_learner_step's three parts). Every noise_every updates (when the monitor's
 * noise estimator is on) the gradient norms of the batch's first half and of the whole batch go
 * to the estimator; the half batch's forward/backward leaves the update as it would have been
 * (mb_learner_half_norm2) and its seconds, with the norms', go to mon->noise_s, which the
 * caller takes out of the training time (a measurement, like evaluations). */
static int step(mb_learner *l, const mb_dataset *train, mb_run_mon *mon, long updates,
                double *loss, long *epoch, mb_error *err)
{
    mb_learner_gather(l, train, epoch);
    int probe = mon->noise.b > 0 && updates % mon->o->noise_every == 0;
    double g2_half = NAN, t0 = probe ? now_s() : 0;
    int rc;
    if (probe && (rc = mb_learner_half_norm2(l, &g2_half, err)) != MB_OK)
        return rc;
    if (probe)
        mon->noise_s += now_s() - t0;
    if ((rc = mb_learner_grad(l, loss, err)) != MB_OK)
        return rc;
    if (probe) {
        t0 = now_s();
        mb_noise_add(&mon->noise, g2_half, mb_learner_grad_norm2(l));
        mon->noise_s += now_s() - t0;
    }
    return mb_learner_apply(l, err);
}

int mb_run_single(const mb_run_options *o, mb_run_result *r, mb_error *err)
{
    memset(r, 0, sizeof *r);
    r->eval_loss = r->eval_acc = r->test_loss = r->test_acc = r->loss = r->b_simple = NAN;
    r->others_cores = r->steal_cores = NAN;
    r->learners = r->ranks = 1;
    int rc = mb_run_check_options(o, err);
    if (rc != MB_OK)
        return rc;
    mb_net_desc *desc = NULL;
    mb_data_splits own;
    const mb_data_splits *data = NULL;
    mb_learner l;
    memset(&l, 0, sizeof l);
    mb_ckpt_extra x = {0};
    mb_run_mon mon;
    memset(&mon, 0, sizeof mon);

    if ((rc = mb_net_desc_read(o->net, &desc, err)) != MB_OK)
        return rc;
    if ((rc = mb_run_data(o, &own, &data, err)) != MB_OK)
        goto out;
    if ((rc = mb_run_check_shapes(desc, &data->train, "training", err)) != MB_OK)
        goto out;
    if (data->eval.n == 0) {
        rc = mb_error_set(err, MB_EINVAL, "data '%s': the eval subset is empty", o->data);
        goto out;
    }
    if ((rc = mb_learner_init(&l, desc, o, data->train.n, err)) != MB_OK)
        goto out;
    snprintf(r->net, sizeof r->net, "%s", desc->name);
    snprintf(r->device, sizeof r->device, "%s", mb_ctx_device_name(l.ctx));
    r->params = mb_net_param_count(l.net);

    long updates = 0;
    size_t samples = 0;
    double wall0 = 0;
    if (o->checkpoint_path || o->resume_path)
        x.data_fp = mb_ckpt_fingerprint(data); /* the run's identity in its checkpoints */
    if (o->resume_path) {
        if ((rc = mb_ckpt_read(o->resume_path, &l, o, &x, err)) != MB_OK)
            goto out;
        updates = x.updates;
        samples = x.samples;
        wall0 = x.wall_s;
    }
    rc = mb_run_mon_init(&mon, o, desc, data, l.net, r, updates, x.log_rows, x.log_len, err);
    x.log_rows = NULL; /* the monitor's now */
    if (rc != MB_OK)
        goto out;
    if (o->noise_every > 0) /* B_simple from |G_b|^2 at b = M/2 and |G_B|^2 at B = M */
        mb_noise_init(&mon.noise, (double)(o->batch / 2), (double)o->batch);
    if (o->resume_path)
        mb_run_mon_resume(&mon, &x);
    if (mon.bound > 0 && updates > mon.bound) {
        rc = mb_error_set(err, MB_EINVAL, "%s: the checkpoint is at update %ld, past this run's "
                          "bound of %ld updates", o->resume_path, updates, mon.bound);
        goto out;
    }
    /* the last mini-batch loss: the checkpoint's, which a run resumed at its bound reports */
    double train_s = 0, loss = o->resume_path ? x.loss : NAN;
    int stop = mb_run_mon_ended(&mon, updates); /* at the bound, or the target reached */
    while (!stop) {
        double t0 = now_s();
        long epoch;
        if ((rc = step(&l, &data->train, &mon, updates, &loss, &epoch, err)) != MB_OK)
            goto out;
        train_s += now_s() - t0 - mon.noise_s;
        mon.noise_total_s += mon.noise_s;
        mon.noise_s = 0;
        updates++;
        samples += (size_t)o->batch;
        mb_run_row row = {.update = updates, .epoch = epoch, .samples = samples,
                          .wall_s = wall0 + train_s, .loss = loss};
        if ((rc = mb_run_mon_update(&mon, mb_net_params(l.net), &row, &stop, err)) != MB_OK)
            goto out;
        if (mon.diverged && !isfinite(loss))
            break;
        /* parameters a step made non-finite (its loss was finite) have diverged: no checkpoint
         * of them, the last one stays, and the next loss says so (campaign 35's E5) */
        if (o->checkpoint_path && updates % o->checkpoint_every == 0 &&
            mb_ckpt_learner_finite(&l)) {
            size_t saved;
            if ((rc = mb_run_mon_ckpt_rows(&mon, &saved, err)) != MB_OK)
                goto out;
            mb_ckpt_extra cx = {.updates = updates, .samples = samples, .wall_s = row.wall_s,
                                .loss = loss, .data_fp = x.data_fp, .log_rows = mon.rows.s,
                                .log_len = mon.rows.len, .evals = mon.evals,
                                .checks = mon.checks, .eval_samples = mon.eval_samples,
                                .noise = mon.noise, .ckpt_s = mon.ckpt_s};
            double tc = now_s();
            rc = mb_ckpt_write(o->checkpoint_path, &l, o, &cx, err);
            mon.ckpt_s += now_s() - tc; /* --max-seconds counts it (the file grows with the log) */
            mb_run_mon_ckpt_done(&mon, saved);
            if (rc != MB_OK)
                goto out;
        }
        mb_run_mon_progress(&mon, updates, samples, row.wall_s, loss);
    }
    rc = mb_run_mon_finish(&mon, mb_net_params(l.net), updates, samples, wall0 + train_s, loss,
                           err);
out:
    mb_run_mon_free(&mon);
    free(x.log_rows);
    mb_learner_free(&l);
    mb_data_splits_free(&own);
    mb_net_desc_free(desc);
    return rc;
}
