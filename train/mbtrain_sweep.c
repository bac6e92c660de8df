/* mbtrain_sweep.c — mbtrain's sweep: --batch and --seeds read into the runs to make, their
 * logs named under --log-dir and checked before the first trains, as is each run's update
 * bound against the flags that need it reached (periods, SMA's tuning window, --lr-step; with
 * no bound, the window and the first evaluation against an epoch of the data),
 * every rank agreeing on them
 * under mpirun, then each run trained in turn (mb_train_run) with its summary line and a
 * progress bar on a terminal. A diverged run is an outcome: its line, and the next run.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../data/mb_cli.h"
#include "../data/mb_dataset.h"
#include "../data/mb_output.h"
#include "../net/mb_net.h"
#include "par/mb_par.h"
#include "mb_train.h"
#include "mbtrain_cli.h"

/* Seeds: "lo:hi" (every integer from lo to hi) or a comma list of integers >= 0. */
enum { MAX_SWEEP_SEEDS = 1000 }; /* the most seeds one --seeds list may name */

static int parse_seeds(const char *s, unsigned long **out, size_t *n, mb_error *err)
{
    *out = NULL;
    *n = 0;
    char **items;
    size_t k;
    int rc = mb_data_split_list(s, "--seeds", 0, &items, &k, err);
    for (size_t i = 0; rc == MB_OK && i < k; i++) {
        char *item = items[i];
        long lo, hi;
        char *colon = strchr(item, ':');
        if (colon)
            *colon = '\0';
        if (mb_data_parse_long(item, 0, 1L << 40, &lo) != MB_OK ||
            (colon && mb_data_parse_long(colon + 1, lo, lo + 100000, &hi) != MB_OK)) {
            /* an item in another notation names itself and gets the note every count flag
             * gives (campaign 45 A's F7: '1e1,2' said only "not a seed list") */
            char note[160];
            const char *bad = item;
            if (!*mb_data_count_notation(item, 0, (double)(1L << 40), note, sizeof note) &&
                colon && *mb_data_count_notation(colon + 1, 0, (double)(1L << 40), note,
                                                 sizeof note))
                bad = colon + 1;
            if (*note)
                rc = mb_error_set(err, MB_EINVAL, "--seeds: seed '%s' of '%s' is not a whole "
                                  "number in [0, %ld]%s", bad, s, 1L << 40, note);
            else
                rc = mb_error_set(err, MB_EINVAL, "--seeds: '%s' is not a seed list (0:4 or "
                                  "1,5,9, seeds >= 0)", s);
            break;
        }
        if (!colon)
            hi = lo;
        unsigned long *v = realloc(*out, (*n + (size_t)(hi - lo + 1)) * sizeof *v);
        if (!v) {
            rc = mb_error_set(err, MB_ENOMEM, "out of memory");
            break;
        }
        *out = v;
        for (long k = lo; k <= hi; k++)
            v[(*n)++] = (unsigned long)k;
    }
    if (rc == MB_OK && *n == 0)
        rc = mb_error_set(err, MB_EINVAL, "--seeds: empty list");
    if (rc == MB_OK && *n > MAX_SWEEP_SEEDS) /* a bound no typo removes: every seed is a run */
        rc = mb_error_set(err, MB_EINVAL, "--seeds: %zu seeds in '%s', more than %d in one sweep",
                          *n, s, MAX_SWEEP_SEEDS);
    /* a seed twice would write its log twice, the second over the first */
    for (size_t i = 0; rc == MB_OK && i < *n; i++)
        for (size_t j = 0; rc == MB_OK && j < i; j++)
            if ((*out)[i] == (*out)[j])
                rc = mb_error_set(err, MB_EINVAL, "--seeds: seed %lu given twice in '%s'",
                                  (*out)[i], s);
    if (rc != MB_OK) {
        free(*out);
        *out = NULL;
    }
    free(items);
    return rc;
}

/* A progress bar on stderr, redrawn at most ten times a second. */
typedef struct bar {
    double last;
} bar;

static void draw(const mb_run_progress *p, void *ctx)
{
    bar *b = ctx;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double t = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    if (t - b->last < 0.1 && !(p->max_updates > 0 && p->update == p->max_updates))
        return;
    b->last = t;
    char line[40] = "";
    if (p->max_updates > 0) {
        int fill = (int)(30.0 * (double)p->update / (double)p->max_updates);
        for (int i = 0; i < 30; i++)
            line[i] = i < fill ? '#' : '.';
        line[30] = '\0';
    }
    /* samples per training second, and the training time left to the bound at that pace */
    double sps = p->wall_s > 0 ? (double)p->samples / p->wall_s : 0;
    char left[32] = "";
    if (p->max_updates > 0 && p->update > 0)
        snprintf(left, sizeof left, " %.0fs left",
                 p->wall_s / (double)p->update * (double)(p->max_updates - p->update));
    fprintf(stderr, "\r[%s] update %ld epoch %.2f loss %.4f eval %.4f %.0f samples/s %.1fs%s ",
            line, p->update, p->epoch, p->loss, p->eval_loss, sps, p->wall_s, left);
    fflush(stderr);
}

void mbtrain_sweep_free(mbtrain_sweep *w)
{
    if (w->batches.v != &w->one)
        mb_data_range_free(&w->batches);
    free(w->seeds);
}

/* Reads --batch and --seeds into w and checks the sweep against the other flags (a log folder
 * for several runs, whole and distinct batch sizes, what the parallel algorithm can use).
 * 0 to go on, else the exit status, with *unread set when --batch or --seeds could not be read
 * (every rank fails alike then: no abort); w is to be freed either way. */
int mbtrain_sweep_plan(mb_run_options *o, const mbtrain_args *a, mb_communicator *world, mbtrain_sweep *w,
                      int *unread)
{
    mb_error err = {0};
    memset(w, 0, sizeof *w);
    *unread = 1;
    w->one = o->batch;
    w->nseeds = 1;
    if (a->batch_arg) {
        long b;
        if (strchr(a->batch_arg, ',') || strchr(a->batch_arg, ':')) {
            if (mb_data_parse_batches(a->batch_arg, "--batch", 1L << 30, &w->batches, &err) !=
                MB_OK)
                return mbtrain_fail(&err);
        } else if (mb_data_parse_long(a->batch_arg, 1, 1L << 30, &b) != MB_OK) {
            mb_error_set(&err, MB_EINVAL, "--batch: '%s' is not a whole number in [1, "
                         "1073741824] (2^30)", a->batch_arg);
            return mbtrain_fail(&err);
        } else {
            w->one = (double)b;
        }
    }
    if (!w->batches.n) {
        w->batches.v = &w->one;
        w->batches.n = 1;
    }
    if (a->seeds_arg && parse_seeds(a->seeds_arg, &w->seeds, &w->nseeds, &err) != MB_OK)
        return mbtrain_fail(&err);
    *unread = 0;
    size_t runs = w->batches.n * w->nseeds;
    if (runs > 1 && !a->log_dir)
        return mb_cli_usage("mbtrain", NULL,
                            "a sweep (several batches or seeds) needs --log-dir DIR");
    if (runs > 1 && (o->checkpoint_path || o->resume_path))
        return mb_cli_usage("mbtrain", NULL, "--checkpoint and --resume take one run, not a sweep");
    const double *m = w->batches.v;
    for (size_t i = 0; i < w->batches.n; i++) {
        if (m[i] != floor(m[i]) || m[i] > 1 << 30) {
            char v[32];
            mb_error_set(&err, MB_EINVAL, m[i] != floor(m[i]) ? "--batch: %s is not a whole "
                         "number" : "--batch: %s is out of range [1, 1073741824] (2^30)",
                         mb_data_fmt_exact(v, sizeof v, m[i]));
            return mbtrain_fail(&err);
        }
        for (size_t j = 0; j < i; j++)
            if (m[j] == m[i]) { /* its log would be written twice */
                mb_error_set(&err, MB_EINVAL, "--batch: %g given twice", m[i]);
                return mbtrain_fail(&err);
            }
        /* asked for, B_simple at M = 1 would be skipped in silence: no half batch (a sweep's
         * 1 too: --batch 1,8, 1:64, 01) */
        if (m[i] == 1 && a->noise_asked)
            return mb_cli_no_effect("mbtrain", NULL, "--noise-every", w->batches.n > 1
                ? "with --batch 1 in the sweep (B_simple takes the gradient of the batch's first "
                  "half as well: M >= 2; leave 1 out, or --noise-every out to log b_simple=- "
                  "at M = 1)"
                : "with --batch 1 (it takes the gradient of the batch's first half as well: "
                  "M >= 2)");
    }
    /* a rank or thread count the algorithm cannot use: one line (from rank 0), exit 2 */
    int status = 0;
    for (size_t i = 0; status == 0 && o->par != MB_PAR_NONE && i < w->batches.n; i++) {
        o->batch = (int)m[i];
        if (mb_par_check(o, world ? mb_comm_size(world) : 1, &err) != MB_OK) {
            if (!world || mb_comm_rank(world) == 0)
                mb_cli_usage("mbtrain", NULL, "%s", err.msg);
            status = MB_EXIT_USAGE;
        }
    }
    if (status == 0 && a->log_dir && mkdir(a->log_dir, 0777) != 0 && errno != EEXIST) {
        mb_error_set(&err, MB_EIO, "--log-dir %s: cannot create: %s", a->log_dir, strerror(errno));
        status = mbtrain_fail(&err);
    }
    return status;
}

/* Sets o->log_path to path (n bytes), DIR/NET-ALGO-bM-sSEED.csv (-pP before -bM for a parallel
 * algorithm) under --log-dir. */
static int log_name(mb_run_options *o, const char *log_dir, mb_communicator *world, char *path,
                    size_t n, mb_error *err)
{
    mb_net_desc *desc = NULL;
    int rc = mb_net_desc_read(o->net, &desc, err);
    if (rc != MB_OK)
        return rc;
    if (o->par == MB_PAR_NONE)
        snprintf(path, n, "%s/%s-%s-b%d-s%lu.csv", log_dir, desc->name,
                 mb_optim_kind_name(o->optim.kind), o->batch, o->seed);
    else
        snprintf(path, n, "%s/%s-%s-p%d-b%d-s%lu.csv", log_dir, desc->name,
                 mb_par_algo_name(o->par), (world ? mb_comm_size(world) : 1) * o->learners,
                 o->batch, o->seed);
    mb_net_desc_free(desc);
    o->log_path = path;
    return MB_OK;
}

/* --lr-gamma's products over the run (campaign 36's E2): every scheduled rate a normal float,
 * not 0 (the run stops learning and says nothing) nor inf (it diverges and blames --lr). The
 * updates the run may take bound it; a run with no bound (a target alone) may take 2^40, the
 * sweep's cap, so a schedule that leaves float's range at all is refused there, naming
 * --max-updates (campaign 37's E1: --lr-step 100 --lr-gamma 0.1 went to 0 at update 3,701 and
 * trained on for good). MB_OK, or the line. */
static int schedule_check(const mb_optim_params *p, long bound, mb_error *err)
{
    long every = p->lr_step_every;
    if (every <= 0 || p->lr_step_gamma == 1)
        return MB_OK;
    const long cap = bound > 0 ? bound : 1L << 40;
    long steps = (cap - 1) / every; /* update u (0-based) has u / every */
    const int down = p->lr_step_gamma < 1;
    mb_optim_params q = *p;
    q.lr_step_every = 1; /* the rate after k steps: mb_optim_lr_at(&q, k) */
#define OUT(k) (down ? mb_optim_lr_at(&q, (k)) < FLT_MIN : mb_optim_lr_at(&q, (k)) > FLT_MAX)
    if (steps < 1 || !OUT(steps))
        return MB_OK;
    /* the first step out of range, for the message: near log(bound / lr) / log(gamma) */
    double at = ceil(log((down ? FLT_MIN : FLT_MAX) / p->lr) / log(p->lr_step_gamma));
    long k = at >= 1 && at <= (double)steps ? (long)at : steps;
    while (k > 1 && OUT(k - 1))
        k--;
    while (k < steps && !OUT(k))
        k++;
#undef OUT
    char g[32], l[32], b[96];
    if (bound > 0)
        snprintf(b, sizeof b, " of the run's %ld", bound);
    else
        snprintf(b, sizeof b, " of a run with no --max-updates or --epochs");
    return mb_error_set(err, MB_EINVAL, "--lr-gamma %s with --lr-step %ld makes the rate %.3g "
                        "at update %ld%s (from --lr %s), %s (%.2g), the type training takes it "
                        "in", mb_data_fmt_exact(g, sizeof g, p->lr_step_gamma), every,
                        mb_optim_lr_at(&q, k), k * every + 1, b,
                        mb_data_fmt_exact(l, sizeof l, p->lr),
                        down ? "below the least normal float" : "above the largest float",
                        down ? (double)FLT_MIN : (double)FLT_MAX);
}

/* The line of a run that diverged, naming the flag to change: --lr, or --weight-decay where
 * lr x weight_decay is 1 or more (campaign 39's D9: each update's decay, lr x lambda x w, then
 * takes the whole weight or more and the weights grow whatever the gradient; a smaller --lr
 * would help too, but the decay is the cause), or --lr-gamma above 1 once it has raised the
 * rate. */
static void say_diverged(const mb_run_options *o, const mb_run_result *r)
{
    const double lr = o->optim.lr, wd = o->optim.weight_decay;
    char hint[256], g[MB_DATA_TYPED_LEN];
    /* update u (1-based, as logged) ran at the rate of 0-based update u - 1 */
    const long every = o->optim.lr_step_every, last = r->diverged_update - 1;
    const long steps = every > 0 && last > 0 ? last / every : 0;
    const double gamma = o->optim.lr_step_gamma;
    if (wd > 0 && lr * wd >= 1)
        snprintf(hint, sizeof hint, "--weight-decay %g times --lr %g is %g, 1 or more (each "
                 "update's decay oversteps the weights): a smaller --weight-decay may converge",
                 wd, lr, lr * wd);
    else if (gamma > 1 && steps > 0) /* the schedule raised the rate (campaign 43's F3: the
                                      * divergence was blamed on --lr) */
        snprintf(hint, sizeof hint, "--lr-gamma %s raised the rate from --lr %g to %g by then "
                 "(%ld step%s of --lr-step %ld): a --lr-gamma below 1 may converge",
                 mb_data_typed(g, gamma), lr, mb_optim_lr_at(&o->optim, last), steps,
                 steps == 1 ? "" : "s", every);
    else
        snprintf(hint, sizeof hint, "a smaller --lr than %g may converge", lr);
    fprintf(stderr, "mbtrain: seed %lu: diverged at update %ld (its loss %s): %s at batch %d; "
            "logged with diverged=%ld\n", o->seed, r->diverged_update,
            isfinite(r->loss) ? "past 100 ln(classes)" : "not a number", hint, o->batch,
            r->diverged_update);
}

/* One run of the sweep, at o's batch and seed: trains, prints its summary (rank 0) and says
 * when it diverged. 0, or the exit status; *together: every rank failed at the same point. */
static int run_one(mb_run_options *o, int rank, int *together)
{
    mb_error err = {0};
    mb_run_result r;
    int rc = mb_train_run(o, &r, &err);
    if (o->progress)
        fputc('\n', stderr);
    if (rc != MB_OK) {
        /* ranks that disagree on their settings: a usage error, said once by rank 0 */
        *together = r.failed_together;
        if (rc == MB_EUSAGE) { /* a flag that contradicts the net (--conv-algo): exit 2 */
            if (rank == 0)
                mb_cli_fail("mbtrain", NULL, &err);
            return MB_EXIT_USAGE;
        }
        if (err.msg[0] || !*together)
            mb_cli_say("mbtrain", NULL, "%s", err.msg);
        return rc == MB_EINVAL && (strstr(err.msg, "no stopping rule") || r.disagree)
                   ? MB_EXIT_USAGE
                   : 1;
    }
    if (rank != 0)
        return 0; /* rank 0 speaks for the job */
    char line[1536];
    mb_run_result_format(&r, o, line, sizeof line);
    printf("%s\n", line);
    fflush(stdout);
    if (r.diverged)
        say_diverged(o, &r);
    if (o->checkpoint_path && r.updates < o->checkpoint_every) /* campaign 37's C813 */
        fprintf(stderr, "mbtrain: no checkpoint written to %s: the run ended after %ld updates, "
                "before --checkpoint-every %ld\n", o->checkpoint_path, r.updates,
                o->checkpoint_every);
    return 0;
}

/* Two logs of one sweep that are one file (a name that is a link onto a sibling's, or a hard
 * link; campaign 31's A2: the later run's log was written through the link and the earlier
 * one's lost): MB_EINVAL naming both, else MB_OK. Only a name that exists (a link, dangling
 * or not, or a file) can be another's, so pairs of fresh names are not compared. */
static int sibling_logs(char *const *path, size_t n, const char *dir, mb_error *err)
{
    struct stat sb;
    char *seen = calloc(n ? n : 1, 1);
    if (!seen)
        return mb_error_set(err, MB_ENOMEM, "out of memory for the sweep's logs");
    for (size_t i = 0; i < n; i++)
        seen[i] = lstat(path[i], &sb) == 0;
    int rc = MB_OK;
    for (size_t i = 0; rc == MB_OK && i < n; i++)
        for (size_t j = 0; rc == MB_OK && j < i; j++)
            if ((seen[i] || seen[j]) && mb_data_same_file(path[j], path[i]))
                rc = mb_error_set(err, MB_EINVAL, "--log-dir %s: %s and %s are the same file (a "
                                  "link): one run's log would overwrite the other's", dir,
                                  path[j], path[i]);
    free(seen);
    return rc;
}

/* Every output the sweep will write, before any run (campaign 10's M11, M12): a log under
 * --log-dir that links onto --net is refused, and each log (and one learner's checkpoint) must
 * take its temporary beside it: a name of 240 characters passes access(2) and failed only when
 * the run, done, wrote its log. 0, or the exit status (the line said). */
static int sweep_outputs(mb_run_options *o, const mbtrain_args *a, const mbtrain_sweep *w,
                         mb_communicator *world)
{
    mb_error err = {0};
    int rc = MB_OK;
    if (!a->log_dir) {
        if (o->log_path)
            rc = mb_out_check(o->log_path, &err);
        if (rc == MB_OK && o->checkpoint_path && o->par == MB_PAR_NONE)
            rc = mb_out_check(o->checkpoint_path, &err);
        return rc == MB_OK ? 0 : mbtrain_fail(&err);
    }
    const int b0 = o->batch;
    const unsigned long s0 = o->seed;
    size_t runs = w->batches.n * w->nseeds, made = 0;
    char **logs = calloc(runs, sizeof *logs);
    if (!logs)
        rc = mb_error_set(&err, MB_ENOMEM, "out of memory for the sweep's logs");
    for (size_t i = 0; rc == MB_OK && i < w->batches.n; i++)
        for (size_t j = 0; rc == MB_OK && j < w->nseeds; j++) {
            char path[4096];
            o->batch = (int)w->batches.v[i];
            o->seed = w->seeds ? w->seeds[j] : s0;
            rc = log_name(o, a->log_dir, world, path, sizeof path, &err);
            if (rc == MB_OK && !(logs[made++] = strdup(path)))
                rc = mb_error_set(&err, MB_ENOMEM, "out of memory for the sweep's logs");
            char flag[4096 + 16];
            snprintf(flag, sizeof flag, "--log-dir %s:", a->log_dir);
            if (rc == MB_OK && mb_net_desc_overwritten(flag, path, o->net, &err))
                rc = MB_EINVAL;
            if (rc == MB_OK && mbtrain_over_data("--log-dir", path, o->data, &err))
                rc = MB_EINVAL;
            if (rc == MB_OK) { /* each log as --log: against the checkpoint, --resume and the
                                  companions' link targets (campaign 25's V1) */
                o->log_path = path;
                rc = mbtrain_output_clash(o, &err);
                o->log_path = NULL;
            }
            if (rc == MB_OK)
                rc = mb_out_check(path, &err);
        }
    if (rc == MB_OK)
        rc = sibling_logs(logs, made, a->log_dir, &err);
    for (size_t i = 0; logs && i < made; i++)
        free(logs[i]);
    free(logs);
    o->log_path = NULL;
    o->batch = b0;
    o->seed = s0;
    return rc == MB_OK ? 0 : mbtrain_fail(&err);
}

/* A list of numbers as a message quotes it ("8,16"), cut short with "..." past n bytes. */
static void list_text(char *t, size_t n, const double *v, const unsigned long *u, size_t k)
{
    size_t at = 0;
    t[0] = '\0';
    for (size_t i = 0; i < k; i++) {
        char e[32];
        int w = u ? snprintf(e, sizeof e, "%s%lu", i ? "," : "", u[i])
                  : snprintf(e, sizeof e, "%s%.0f", i ? "," : "", v[i]);
        if (at + (size_t)w + 4 >= n) {
            snprintf(t + at, n - at, ",...");
            return;
        }
        memcpy(t + at, e, (size_t)w + 1);
        at += (size_t)w;
    }
}

/* Under mpirun, before the first run: the whole sweep (its batch sizes and seeds, in order, the
 * training samples the sizes are checked against, and where its logs go) compared with rank
 * 0's (mb_comm_agree).
 * Each run's own check (par_agree, train/par/par.c) sees one batch and one seed: ranks given
 * --batch 8 and --batch 8,16, or --seed 0 and --seeds 0:1, agreed on the first run and waited
 * in the second until --wait-timeout (campaign 18's F3, #25). 0, or the exit status, with
 * *together set when every rank stops here (none need abort the job). */
static int sweep_agree(const mb_run_options *o, const mbtrain_args *a, const mbtrain_sweep *w,
                       const mb_data_splits *data, mb_communicator *world, int *together)
{
    /* the lists as read, whatever their spelling (--seed 5 and --seeds 5 are one run) */
    const unsigned long *seeds = w->seeds ? w->seeds : &o->seed;
    uint64_t hb = mb_comm_hash(NULL), hs = mb_comm_hash(NULL);
    for (size_t i = 0; i < w->batches.n; i++)
        hb = (hb ^ (uint64_t)w->batches.v[i]) * 1099511628211ull;
    for (size_t j = 0; j < w->nseeds; j++)
        hs = (hs ^ (uint64_t)seeds[j]) * 1099511628211ull;
    hb ^= (uint64_t)w->batches.n;
    hs ^= (uint64_t)w->nseeds;
    char bt[80], st[80];
    list_text(bt, sizeof bt, w->batches.v, NULL, w->batches.n);
    list_text(st, sizeof st, NULL, seeds, w->nseeds);
    /* hashes quoted from their text as counts are: "rank 0 has 8,16", "(the default)" */
    enum { CNT = MB_COMM_SET_COUNT };
    const mb_comm_setting s[] = {
        {"--batch", hb, CNT, !a->batch_arg, bt},
        {a->seeds_arg ? "--seeds" : "--seed", hs, CNT, !a->seeds_arg && !a->have_seed, st},
        {"--data (its training samples)", (uint64_t)data->train.n, CNT, 0, NULL},
        /* rank 0 writes the logs: another rank's --log was ignored unsaid (campaign 23's R14) */
        {"--log", mb_comm_hash(o->log_path), MB_COMM_SET_HASH, !o->log_path, o->log_path},
        {"--log-dir", mb_comm_hash(a->log_dir), MB_COMM_SET_HASH, !a->log_dir, a->log_dir},
    };
    mb_error err = {0};
    int disagree = 0;
    int rc = mb_comm_agree(world, s, (int)(sizeof s / sizeof s[0]), MB_OK, together, &disagree,
                           &err);
    if (rc == MB_OK)
        return 0;
    if (mb_comm_rank(world) == 0)
        mb_cli_say("mbtrain", NULL, "%s", err.msg);
    return disagree ? MB_EXIT_USAGE : 1;
}

/* The fewest samples an evaluation subset holds (--eval-frac x the training samples, rounded;
 * a training set smaller than this is evaluated whole): a target judged on fewer is judged on
 * noise. docs/commands.md, "mbtrain". */
#define EVAL_MIN 10

/* A communication period a run does not reach (campaign 43's F6): an asynchronous learner
 * reports its local steps only at an exchange, so with --tau 100000000 it trained on far past
 * --max-updates and --epochs, and a period past the run's bound never exchanges at all. The
 * periods in effect (--tau; DOWNPOUR's --n-push and --n-fetch, which default to it) against
 * each run's own update bound `bound` at its batch (campaign 44 A's F1: a sweep checked only
 * its largest run's, and --batch 2,65536 --tau 30000 hung in the 1-update run); with no bound
 * (--epochs 0 and no --max-updates: a target loss alone stops the run) against an epoch of the
 * data, train_n / batch updates (F2: a target judged on a centre no learner ever pushed to
 * could not be met, and --tau 100000000 ran until killed). `sweep`: the line names the run's
 * batch. MB_EUSAGE naming the flag, or MB_OK. */
static int period_check(const mb_run_options *o, long bound, int batch, size_t train_n,
                        int sweep, mb_error *err)
{
    if (o->par == MB_PAR_NONE || o->par == MB_PAR_SGD_SYNC || o->par == MB_PAR_EASGD ||
        o->par == MB_PAR_SMA)
        return MB_OK; /* no period: these exchange every step */
    const int dp = o->par == MB_PAR_DOWNPOUR;
    const long epoch = (long)(train_n / (size_t)batch), most = bound > 0 ? bound : epoch;
    const struct { const char *flag, *what; long v; } p[] = {
        {"--tau", "exchange", o->tau},
        {dp && o->n_push ? "--n-push" : "--tau", "push", dp && o->n_push ? o->n_push : o->tau},
        {dp && o->n_fetch ? "--n-fetch" : "--tau", "fetch",
         dp && o->n_fetch ? o->n_fetch : o->tau},
    };
    char run[48] = "the run's";
    if (sweep)
        snprintf(run, sizeof run, "the --batch %d run's", batch);
    for (size_t i = dp ? 1 : 0; i < (dp ? 3u : 1u); i++) {
        if (p[i].v <= most)
            continue;
        if (bound <= 0)
            return mb_error_set(err, MB_EUSAGE, "%s %ld is past an epoch of the data (%ld "
                                "updates at batch %d): with --epochs 0 and no --max-updates "
                                "nothing bounds the run, and a learner's first %s must come "
                                "within an epoch", p[i].flag, p[i].v, epoch, batch, p[i].what);
        return mb_error_set(err, MB_EUSAGE, "%s %ld is past %s bound: it stops by update %ld "
                            "(--max-updates, --epochs), before a learner's first %s", p[i].flag,
                            p[i].v, run, bound, p[i].what);
    }
    return MB_OK;
}

/* The evaluation spacing in effect at `batch`: --eval-every, or --eval-samples / batch where
 * that is larger (as mbtrain_run_sweep sets it per run); *flag names the flag that set it. */
static long eval_spacing(const mb_run_options *o, long eval_samples, int batch, const char **flag)
{
    *flag = "--eval-every";
    if (eval_samples > 0 && eval_samples / batch > o->eval_every) {
        *flag = "--eval-samples";
        return eval_samples / batch;
    }
    return o->eval_every;
}

/* A run with no bound (--epochs 0 and no --max-updates) whose window or first evaluation lies
 * past an epoch of the data, train_n / batch updates (campaign 45 A's F1 and F2): the tuner
 * never stepped (--sma-tune-window 1000000 trained one learner of two, exit 0), and the
 * target, the only stop, is judged only at an evaluation (--eval-every 1000000000 ran until
 * killed), as period_check refuses the periods. MB_EUSAGE naming the flag, or MB_OK. */
static int unbounded_check(const mb_run_options *o, long eval_samples, int batch, size_t train_n,
                           mb_error *err)
{
    const long epoch = (long)(train_n / (size_t)batch);
    const char *flag;
    const long e = eval_spacing(o, eval_samples, batch, &flag);
    char v[64];
    if (o->par == MB_PAR_SMA && o->sma_tune && o->sma_tune_window > epoch) {
        flag = "--sma-tune-window";
        snprintf(v, sizeof v, "%ld", o->sma_tune_window);
    } else if (e > epoch) {
        if (eval_samples > 0 && e != o->eval_every)
            snprintf(v, sizeof v, "%ld (%ld updates at batch %d)", eval_samples, e, batch);
        else
            snprintf(v, sizeof v, "%ld", e);
    } else {
        return MB_OK;
    }
    return mb_error_set(err, MB_EUSAGE, "%s %s is past an epoch of the data (%ld updates at "
                        "batch %d): with --epochs 0 and no --max-updates nothing bounds the run, "
                        "and %s must come within an epoch", flag, v, epoch, batch,
                        strcmp(flag, "--sma-tune-window") == 0 ? "the tuner's first step"
                                       : "the first evaluation (where the target is judged)");
}

/* The bounds of the sweep's runs against the flags that need one reached (before any run):
 * each run's communication period (period_check) and SMA's tuning window (campaign 44 A's F6:
 * --sma-tune-window 100 in a 20-update run never measured, the log stating an empty
 * # sma_tune= and one learner of --learners 2), in a run with no bound its window and first
 * evaluation against an epoch (unbounded_check), and a --lr-step schedule that fires in no run
 * of the sweep (campaign 39's D8: --lr-step 10 in a 5-update run was taken, the log stating a
 * schedule training never used: update u has u / every steps, so a run of B updates changes
 * the rate only where every < B). `eval_samples`: --eval-samples, 0 when not given.
 * MB_EUSAGE naming the flag, or MB_OK. */
static int bounds_check(const mb_run_options *o, const mbtrain_sweep *w, long eval_samples,
                        size_t train_n, mb_error *err)
{
    long most = 0;
    const int sweep = w->batches.n > 1;
    for (size_t i = 0; i < w->batches.n; i++) {
        const int batch = (int)w->batches.v[i];
        long b = mb_run_update_bound(o, train_n, batch);
        most = b <= 0 || most < 0 ? -1 : b > most ? b : most; /* -1: a run with no bound */
        if (period_check(o, b, batch, train_n, sweep, err) != MB_OK)
            return MB_EUSAGE;
        if (b <= 0 && unbounded_check(o, eval_samples, batch, train_n, err) != MB_OK)
            return MB_EUSAGE;
        if (o->par == MB_PAR_SMA && o->sma_tune && b > 0 && o->sma_tune_window > b) {
            char run[48] = "the run's";
            if (sweep)
                snprintf(run, sizeof run, "the --batch %d run's", batch);
            return mb_error_set(err, MB_EUSAGE, "--sma-tune-window %ld is past %s bound: it "
                                "stops by update %ld (--max-updates, --epochs), before the "
                                "tuner's first step", o->sma_tune_window, run, b);
        }
    }
    if (o->optim.lr_step_every > 0 && most > 0 && o->optim.lr_step_every >= most)
        return mb_error_set(err, MB_EUSAGE, "--lr-step %ld never changes the rate: %s stop%s "
                            "by update %ld (--max-updates, --epochs)", o->optim.lr_step_every,
                            sweep ? "the runs" : "the run", sweep ? "" : "s", most);
    return MB_OK;
}

/* Loads the data once and trains every (batch, seed) of the sweep in turn, stopping at the
 * first failure. Returns the exit status. */
int mbtrain_run_sweep(mb_run_options *o, const mbtrain_args *a, const mbtrain_sweep *w, mb_communicator *world,
                     int *together)
{
    mb_error err = {0};
    int rank = world ? mb_comm_rank(world) : 0, status = 0;
    mb_data_splits data;
    memset(&data, 0, sizeof data);
    if (mb_data_load(o->data, o->eval_frac, o->data_seed, &data, &err) != MB_OK)
        return mbtrain_fail(&err);
    o->splits = &data;
    if (world && mb_comm_size(world) > 1 &&
        (status = sweep_agree(o, a, w, &data, world, together)) != 0) {
        mb_data_splits_free(&data);
        return status;
    }
    /* every size of the sweep against the data, before any run: not 11 runs, then a refusal
     * (the ranks agree on both: they stop together) */
    for (size_t i = 0; i < w->batches.n; i++)
        if (w->batches.v[i] > (double)data.train.n) {
            if (rank == 0) {
                mb_error_set(&err, MB_EINVAL, "--batch %.0f is larger than the %zu training "
                             "samples of %s (nothing trained)", w->batches.v[i], data.train.n,
                             o->data);
                mbtrain_fail(&err);
            }
            mb_data_splits_free(&data);
            *together = 1; /* every rank read the same data and stops here */
            return MB_EXIT_DATA;
        }
    for (size_t i = 0; i < w->batches.n; i++)
        if (schedule_check(&o->optim,
                           mb_run_update_bound(o, data.train.n, (int)w->batches.v[i]),
                           &err) != MB_OK) {
            if (rank == 0) /* a value out of range, as --lr-gamma 1e-46 is: bad data */
                mbtrain_fail(&err);
            mb_data_splits_free(&data);
            *together = 1; /* every rank reads the same data and options */
            return MB_EXIT_DATA;
        }
    if (bounds_check(o, w, a->eval_samples, data.train.n, &err) != MB_OK) {
        if (rank == 0)
            mbtrain_fail(&err);
        mb_data_splits_free(&data);
        *together = 1; /* every rank reads the same data and options */
        return MB_EXIT_USAGE;
    }
    /* the subset every target is judged on: --eval-frac 1e-9 drew 0 samples, raised to 1
     * without a word (campaign 21's N19) */
    const size_t least = data.train.n < (size_t)EVAL_MIN ? data.train.n : (size_t)EVAL_MIN;
    if (data.eval.n < least) {
        if (rank == 0) {
            char f[32];
            mb_error_set(&err, MB_EINVAL, "--eval-frac %s draws %zu of the %zu training samples "
                         "of %s: the evaluation subset needs %d at least (all of a smaller set)",
                         mb_data_fmt_exact(f, sizeof f, o->eval_frac), data.eval.n, data.train.n,
                         o->data, EVAL_MIN);
            mbtrain_fail(&err);
        }
        mb_data_splits_free(&data);
        *together = 1;
        return MB_EXIT_DATA;
    }
    if (rank == 0 && (status = sweep_outputs(o, a, w, world)) != 0) {
        mb_data_splits_free(&data);
        return status;
    }
    const double epochs = o->epochs;
    const long every = o->eval_every;
    unsigned long seed1 = o->seed;
    bar b = {0};
    if (isatty(STDERR_FILENO) && rank == 0) {
        o->progress = draw;
        o->progress_ctx = &b;
    }
    for (size_t i = 0; status == 0 && i < w->batches.n; i++) {
        for (size_t j = 0; status == 0 && j < w->nseeds; j++) {
            o->batch = (int)w->batches.v[i];
            o->seed = w->seeds ? w->seeds[j] : seed1;
            const char *spacing;
            o->eval_every = every;
            o->eval_every = eval_spacing(o, a->eval_samples, o->batch, &spacing);
            /* F3: a refusal of the spacing names the flag the user gave */
            o->eval_samples = strcmp(spacing, "--eval-samples") == 0 ? a->eval_samples : 0;
            /* epochs x batches per epoch is an update count: past 2^40 (the cap of
             * --max-updates) it would overflow the bound, so --max-updates alone bounds the
             * run then, or 2^40 updates without one */
            double per_epoch = (double)(data.train.n / (size_t)o->batch);
            o->epochs = epochs;
            if (epochs * per_epoch > (double)(1L << 40))
                o->epochs = o->max_updates > 0 ? 0 : (double)(1L << 40) / per_epoch;
            char path[4096];
            if (a->log_dir && log_name(o, a->log_dir, world, path, sizeof path, &err) != MB_OK) {
                status = mbtrain_fail(&err);
                break;
            }
            status = run_one(o, rank, together);
        }
    }
    mb_data_splits_free(&data);
    return status;
}
