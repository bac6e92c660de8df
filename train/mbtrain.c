/* mbtrain.c — the `mbtrain` command: train a network on a data set with SGD, momentum or
 * Nesterov, log the run, stop at a target loss; sweeps over batch sizes and seeds.
 *
 * Thin: parse options (here), check the outputs before any run (mbtrain_outputs.c), then load
 * the data once, call mb_train_run for each (batch, seed) and print one summary line per run
 * (mbtrain_sweep.c; mbtrain_cli.h is what the three share). Usage errors exit 2 with one line and a
 * hint; bad values, files and failed runs exit 1 with one line. A run that diverges is a
 * measured outcome, not a failure: one line on stderr, its log and summary, then the next run.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../data/mb_parse.h"
#include "../data/mb_cli.h"
#include "backend/mb_backend.h"
#include "learner/mb_learner.h"
#include "comm/mb_comm.h"
#include "run/mb_run.h"
#include "par/mb_par.h"
#include "mb_train.h"
#include "mbtrain_cli.h"

static void help(const mb_run_options *d)
{
    printf("Usage: mbtrain --net NET --data DATA [OPTION]...\n"
           "Trains a network on one learner and logs the run: one row per update, the loss on\n"
           "a fixed evaluation subset of the training data every --eval-every updates.\n"
           "Stops at the first evaluation with loss <= --target-loss, or at --max-updates, or\n"
           "after --epochs. Prints one summary line (key=value) per run.\n"
           "A run whose training loss becomes non-finite, or whose eval loss is non-finite or\n"
           "above 100 ln(classes), has diverged: it stops, its log is written with\n"
           "'# diverged=U' (summary: diverged=yes diverged_update=U reached=no), one line on\n"
           "stderr says so, and a sweep goes on with the next run (exit status 0).\n\n"
           "Network and data:\n"
           "      --net NET           data/nets/NET.cfg (lenet5, cifar7, vgg-small, alexnet,\n"
           "                          resnet-mini) or a .cfg path\n"
           "      --data SPEC         fashion-mnist, mnist, an IDX or CIFAR-10 folder, or\n"
           "                          synthetic[:n=,test=,c=,h=,w=,classes=,seed=,noise=]\n"
           "      --eval-frac F       training fraction in the eval subset (default %g; it\n"
           "                          must draw 10 samples at least, or all of fewer)\n"
           "      --data-seed S       picks the eval subset (default %lu)\n"
           "      --conv-algo A       gemm, direct, fft or winograd for conv layers whose cfg\n"
           "                          names none (default: the network's choice)\n"
           "Optimiser:\n"
           "      --algo A            sgd, momentum or nesterov (default %s)\n"
           "      --batch LIST        mini-batch size M, or a list: 8,16,32 or 8:256 (doubling)\n"
           "                          (default %d)\n"
           "      --lr LR             learning rate (default %g)\n"
           "      --momentum MU       for momentum and nesterov (default %g)\n"
           "      --weight-decay L    L2 coefficient added as L x to the gradient (default 0)\n"
           "      --lr-step N         multiply the learning rate by --lr-gamma every N updates\n"
           "      --lr-gamma G        (default %g)\n"
           "      --seed S            initialisation and shuffling (default 0)\n"
           "      --seeds LIST        several seeds: 0:4 (inclusive) or 1,5,9 (at most 1000)\n"
           "Parallel learners (docs/algorithms.md; docs/commands.md, \"Parallel learners\"):\n"
           "      --algo A            also sgd-sync, downpour, easgd (round-robin), easgd-async,\n"
           "                          eamsgd, easgd-hogwild, easgd-sync, sma: P learners as MPI\n"
           "                          ranks (mpirun -np P mbtrain ...), threads (--learners P)\n"
           "                          or both (synchronous algorithms: R ranks x T threads);\n"
           "                          --batch M is split into M/P per learner; rank 0 evaluates\n"
           "                          the centre (or averaged) model and writes the one log.\n"
           "                          downpour, easgd-async, eamsgd, easgd-hogwild keep rank 0\n"
           "                          as server: P ranks give P-1 learners, --learners L threads\n"
           "                          give L learners and a server thread\n"
           "      --learners L        learner threads in this process (default 1)\n"
           "      --eval-threads N    worker threads of rank 0's evaluation (default --threads):\n"
           "                          in sgd-sync, easgd, easgd-sync and sma the other ranks\n"
           "                          sleep while it evaluates, so P ranks on one machine can\n"
           "                          lend it their cores (--eval-threads P, mpirun --bind-to none)\n"
           "      --optim O           the optimiser of sgd-sync (every learner) and of DOWNPOUR's\n"
           "                          master: sgd, momentum, nesterov (default sgd)\n"
           "      --elastic-alpha A   EASGD moving rate eta rho (default 0.9/P); SMA's alpha (1/P)\n"
           "      --tau T             communication period in local steps (default 1): easgd-sync,\n"
           "                          downpour, easgd-async, eamsgd, easgd-hogwild; the others\n"
           "                          have none and refuse T != 1\n"
           "      --n-push N          downpour: push the gradient sum every N local steps\n"
           "      --n-fetch N         downpour: fetch the centre every N local steps (both\n"
           "                          default to --tau; Dean et al.)\n"
           "      --grad-after-exchange  easgd-async, eamsgd, easgd-hogwild: take the gradient\n"
           "                          after the elastic exchange (mbkit's old rule), not at the\n"
           "                          copy from before it (Zhang et al. Algorithms 1 and 2)\n"
           "      --wait-timeout S    a learner that waits S seconds for the others ends the\n"
           "                          job with one line (default %g; 0: wait forever; else\n"
           "                          at least %g)\n"
           "      --delta D           EAMSGD's Nesterov momentum (default 0.99)\n"
           "      --sma-momentum MU   SMA's momentum on the centre (default 0.9)\n"
           "      --no-overlap        easgd-sync: reduce after the gradient, not during it\n"
           "      --sma-tune          sma: from 1 learner up to --learners, add one while the\n"
           "                          throughput rises by > 10%%, else drop the last and stop;\n"
           "                          --batch M is M/L per learner, an update k of them\n"
           "      --sma-tune-window N updates per tuning step (default %ld)\n"
           "Stopping and evaluation:\n"
           "      --target-loss EPS   stop when the eval loss is <= EPS (> 0)\n"
           "      --eval-every K      updates between evaluations (default %ld)\n"
           "                          With --target-loss the parameters after each update since\n"
           "                          the last evaluation are kept (K x params floats); when an\n"
           "                          evaluation reaches the target, a bisection over them finds\n"
           "                          the first update that does (reached_update, exact), so K\n"
           "                          can be large. Snapshot copies are timed in snap_s, apart\n"
           "                          from wall_s (training) and eval_s (evaluations)\n"
           "      --eval-samples S    evaluate every max(K, S / M) updates (M the run's batch;\n"
           "                          S / M rounded down): about S samples apart at every M\n"
           "                          of a sweep, K the least spacing\n"
           "      --no-bisect         report the first evaluated update instead (a multiple of K)\n"
           "      --eval-adapt        with --target-loss, space evaluations far above the target\n"
           "                          by the loss's mean decline: at most halfway to the crossing\n"
           "                          it predicts, less the largest rise seen (noise), between K\n"
           "                          and 8K updates (snapshots <= 256 MiB); every K near the\n"
           "                          target (default off)\n"
           "      --check-frac F      with --target-loss, check each evaluation on F of the eval\n"
           "                          subset first (0.0625: 1/16 of the cost), drawn by strata of\n"
           "                          the last full evaluation's losses, and evaluate in full only\n"
           "                          when the samples seen cannot rule the target out; the same\n"
           "                          crossing unless a check errs by more than --check-sigmas\n"
           "                          standard errors (default 0: off)\n"
           "      --check-sigmas K    the check's margin in standard errors (default 4)\n"
           "      --levels L1,L2,...  with --target-loss and --check-frac or --eval-adapt:\n"
           "                          losses above the target, from the highest down (at most\n"
           "                          %d), whose first crossings the log is to show as full\n"
           "                          evaluations would (mbfit nupdate --extrapolate reads\n"
           "                          them): the checks rule an evaluation out, and the spacing\n"
           "                          aims, at the highest level no full evaluation has reached\n"
           "                          yet, then at the target (# levels=)\n"
           "      --noise-every K     one learner: every K updates also take the gradient of\n"
           "                          the batch's first half, for the gradient noise scale\n"
           "                          B_simple (# b_simple=, the b_simple column; default %ld,\n"
           "                          0: never; M >= 2: a run at M = 1 logs b_simple=-, and\n"
           "                          K given with an M of 1 is refused; refused with a\n"
           "                          parallel algorithm: sgd-sync measures it every update,\n"
           "                          the others never)\n"
           "      --no-test-eval      skip the final test-set evaluation (test_loss=-)\n"
           "      --max-updates N     at most N updates in all (default: no bound)\n"
           "      --epochs E          at most E epochs (default %g; 0 = no bound)\n"
           "      --max-seconds S     at most S seconds of training and checkpoint writing\n"
           "                          (evaluation excluded), one learner only; a run cut\n"
           "                          short is reached=no (a sweep's cap on a setting that\n"
           "                          cannot win)\n"
           "Output:\n"
           "      --log FILE          the run log (CSV with # metadata), written atomically\n"
           "      --log-dir DIR       one log per run, DIR/NET-ALGO-bM-sS.csv (sweeps)\n"
           "      --checkpoint FILE   write a checkpoint every --checkpoint-every updates\n"
           "      --checkpoint-every N\n"
           "      --resume FILE       continue the run saved in FILE (same options)\n"
           "      --threads N         worker threads of the network: each update's batch is split\n"
           "                          into up to N shards of at least 8 samples run in parallel,\n"
           "                          OpenBLAS single-threaded inside each (default %d)\n"
           "      --backend NAME      cpu (default) or cuda; the log records it and the device\n"
           "      --device N          the backend's device index (default 0)\n"
           "  -h, --help              show this help and exit\n"
           "      --version           show the version and exit\n\n"
           "Example:\n"
           "  mbtrain --net lenet5 --data fashion-mnist --algo momentum --batch 64 --lr 0.02 \\\n"
           "          --target-loss 0.5 --eval-every 100 --seed 0 --log run.csv\n",
           d->eval_frac, d->data_seed, mb_optim_kind_name(d->optim.kind), d->batch, d->optim.lr,
           d->optim.momentum, d->optim.lr_step_gamma, d->wait_timeout, MB_RUN_WAIT_MIN, d->sma_tune_window,
           d->eval_every, MB_RUN_LEVELS_MAX, d->noise_every, d->epochs, d->threads);
}



enum {
    OPT_NET = 256, OPT_DATA, OPT_ALGO, OPT_BATCH, OPT_LR, OPT_MOMENTUM, OPT_WD, OPT_LR_STEP,
    OPT_LR_GAMMA, OPT_TARGET, OPT_EVAL_EVERY, OPT_EVAL_FRAC, OPT_DATA_SEED, OPT_MAX_UPDATES,
    OPT_EPOCHS, OPT_MAX_SECONDS, OPT_SEED, OPT_SEEDS, OPT_THREADS, OPT_EVAL_THREADS, OPT_BACKEND, OPT_DEVICE, OPT_CONV_ALGO, OPT_LOG, OPT_LOG_DIR, OPT_CKPT,
    OPT_CKPT_EVERY, OPT_RESUME, OPT_VERSION, OPT_NO_BISECT, OPT_NO_TEST_EVAL,
    OPT_EVAL_ADAPT, OPT_LEARNERS, OPT_OPTIM, OPT_ELASTIC_ALPHA, OPT_TAU, OPT_DELTA,
    OPT_SMA_MOMENTUM, OPT_NO_OVERLAP, OPT_SMA_TUNE, OPT_SMA_WINDOW, OPT_CHECK_FRAC,
    OPT_CHECK_SIGMAS, OPT_N_PUSH, OPT_N_FETCH, OPT_GRAD_AFTER, OPT_WAIT_TIMEOUT, OPT_NOISE_EVERY,
    OPT_LEVELS, OPT_EVAL_SAMPLES
};

/* Whether a number's text is a zero as written (no digit 1-9 before its exponent): '1e-400'
 * reads as 0 but is not one. */
static int zero_written(const char *s)
{
    size_t mantissa = strcspn(s, "eE");
    return strcspn(s, "123456789") >= mantissa;
}

/* --wait-timeout S: 0 (no limit) or from MB_RUN_WAIT_MIN to 1e9 s. A learner's first wait
 * spans the others' start: 0.0001 ended every job "broadcast of the initial parameters failed"
 * (campaign 23's R11); a deadline past 1e9 s overflowed (a hang); a number that only reads as
 * 0 ('1e-400') is not the 0 of no limit (campaign 25's V8). */
static int wait_timeout_flag(const char *arg, double *v, mb_error *err)
{
    int rc = mb_data_flag_double("--wait-timeout", arg, 0, MB_NONNEG, v, err);
    if (rc == MB_OK && *v > 1e9)
        rc = mb_error_set(err, MB_EINVAL, "--wait-timeout: at most 1e9 s, got %s", arg);
    if (rc == MB_OK && *v == 0 && !zero_written(arg))
        rc = mb_error_set(err, MB_EINVAL, "--wait-timeout: %s s reads as 0, which is no limit: "
                          "0 (no limit) or at least %g s", arg, MB_RUN_WAIT_MIN);
    if (rc == MB_OK && *v > 0 && *v < MB_RUN_WAIT_MIN)
        rc = mb_error_set(err, MB_EINVAL, "--wait-timeout: %s s is too short for the learners "
                          "to start: 0 (no limit) or at least %g s", arg, MB_RUN_WAIT_MIN);
    return rc;
}

/* Parses a whole-number flag in [lo, hi] into *v (exit-1 error on failure). A whole number in
 * range in another notation (1e3, 2.0) gets the note every count flag gives
 * (mb_data_count_notation; campaign 44 A's F7). */
static int flag_long(const char *flag, const char *arg, long lo, long hi, long *v, mb_error *err)
{
    char note[160];
    if (mb_data_parse_long(arg, lo, hi, v) != MB_OK)
        return mb_error_set(err, MB_EINVAL, "%s: '%s' is not a whole number in [%ld, %ld]%s",
                            flag, arg, lo, hi,
                            mb_data_count_notation(arg, (double)lo, (double)hi, note,
                                                   sizeof note));
    return MB_OK;
}

static const struct option longopts[] = {
    {"net", required_argument, 0, OPT_NET}, {"data", required_argument, 0, OPT_DATA},
    {"algo", required_argument, 0, OPT_ALGO}, {"batch", required_argument, 0, OPT_BATCH},
    {"lr", required_argument, 0, OPT_LR}, {"momentum", required_argument, 0, OPT_MOMENTUM},
    {"weight-decay", required_argument, 0, OPT_WD},
    {"lr-step", required_argument, 0, OPT_LR_STEP},
    {"lr-gamma", required_argument, 0, OPT_LR_GAMMA},
    {"target-loss", required_argument, 0, OPT_TARGET},
    {"eval-every", required_argument, 0, OPT_EVAL_EVERY},
    {"eval-samples", required_argument, 0, OPT_EVAL_SAMPLES},
    {"noise-every", required_argument, 0, OPT_NOISE_EVERY},
    {"eval-frac", required_argument, 0, OPT_EVAL_FRAC},
    {"data-seed", required_argument, 0, OPT_DATA_SEED},
    {"max-updates", required_argument, 0, OPT_MAX_UPDATES},
    {"epochs", required_argument, 0, OPT_EPOCHS},
    {"max-seconds", required_argument, 0, OPT_MAX_SECONDS}, {"seed", required_argument, 0, OPT_SEED},
    {"seeds", required_argument, 0, OPT_SEEDS},
    {"threads", required_argument, 0, OPT_THREADS},
    {"eval-threads", required_argument, 0, OPT_EVAL_THREADS},
    {"conv-algo", required_argument, 0, OPT_CONV_ALGO},
    {"backend", required_argument, 0, OPT_BACKEND},
    {"device", required_argument, 0, OPT_DEVICE},
    {"log", required_argument, 0, OPT_LOG}, {"log-dir", required_argument, 0, OPT_LOG_DIR},
    {"checkpoint", required_argument, 0, OPT_CKPT},
    {"checkpoint-every", required_argument, 0, OPT_CKPT_EVERY},
    {"resume", required_argument, 0, OPT_RESUME}, {"help", no_argument, 0, 'h'},
    {"no-bisect", no_argument, 0, OPT_NO_BISECT},
    {"no-test-eval", no_argument, 0, OPT_NO_TEST_EVAL},
    {"eval-adapt", no_argument, 0, OPT_EVAL_ADAPT},
    {"learners", required_argument, 0, OPT_LEARNERS},
    {"optim", required_argument, 0, OPT_OPTIM},
    {"elastic-alpha", required_argument, 0, OPT_ELASTIC_ALPHA},
    {"tau", required_argument, 0, OPT_TAU}, {"delta", required_argument, 0, OPT_DELTA},
    {"sma-momentum", required_argument, 0, OPT_SMA_MOMENTUM},
    {"no-overlap", no_argument, 0, OPT_NO_OVERLAP},
    {"sma-tune", no_argument, 0, OPT_SMA_TUNE},
    {"sma-tune-window", required_argument, 0, OPT_SMA_WINDOW},
    {"check-frac", required_argument, 0, OPT_CHECK_FRAC},
    {"check-sigmas", required_argument, 0, OPT_CHECK_SIGMAS},
    {"levels", required_argument, 0, OPT_LEVELS},
    {"n-push", required_argument, 0, OPT_N_PUSH},
    {"n-fetch", required_argument, 0, OPT_N_FETCH},
    {"grad-after-exchange", no_argument, 0, OPT_GRAD_AFTER},
    {"wait-timeout", required_argument, 0, OPT_WAIT_TIMEOUT},
    {"version", no_argument, 0, OPT_VERSION}, {0, 0, 0, 0}};


/* --levels L1,L2,...: numbers above --target-loss, from the highest down, each once, at most
 * MB_RUN_LEVELS_MAX. A usage error (one line, exit 2) otherwise: the list is read against the
 * target, as a pair of flags that do not go together. */
static int parse_levels(const char *s, mb_run_options *o)
{
    char **items;
    size_t k;
    mb_error err = {0};
    if (mb_data_split_list(s, "--levels", 0, &items, &k, &err) != MB_OK)
        return mb_cli_usage("mbtrain", NULL, "%s", err.msg);
    int rc = MB_OK;
    char tl[MB_DATA_TYPED_LEN]; /* as typed (campaign 42, F1) */
    if (k > MB_RUN_LEVELS_MAX)
        rc = mb_cli_usage("mbtrain", NULL, "--levels: %zu levels in '%s', at most %d", k, s,
                          MB_RUN_LEVELS_MAX);
    for (size_t i = 0; rc == MB_OK && i < k; i++) {
        double v;
        if (mb_data_parse_double(items[i], &v) != MB_OK || !isfinite(v) || !(v > 0))
            rc = mb_cli_usage("mbtrain", NULL, "--levels: '%s' is not a loss > 0", items[i]);
        else if (!mb_run_level_above(v, o->target_loss))
            rc = mb_cli_usage("mbtrain", NULL, "--levels: %s is not above --target-loss %s by "
                              "more than the 6 digits a log writes (the levels are crossed on "
                              "the way to the target, which is judged anyway)", items[i],
                              mb_data_typed(tl, o->target_loss));
        else if (i > 0 && mb_run_level_same(o->levels[i - 1], v))
            rc = mb_cli_usage("mbtrain", NULL, MB_RUN_LEVEL_TWICE, "--levels", items[i], s);
        else if (i > 0 && v > o->levels[i - 1])
            rc = mb_cli_usage("mbtrain", NULL, "--levels: '%s' is not from the highest down (%s "
                              "after %g): give them in the order the loss crosses them", s,
                              items[i], o->levels[i - 1]);
        else
            o->levels[i] = v;
    }
    free(items);
    if (rc != MB_OK)
        return rc;
    o->n_levels = (int)k;
    return MB_OK;
}

/* Applies option c (its value in optarg) to o and a: MB_OK, or an error (exit 1) in err. */
static int apply_option(int c, mb_run_options *o, mbtrain_args *a, mb_error *err)
{
    long v;
    int rc = MB_OK;
    switch (c) {
    case OPT_NET: o->net = optarg; break;
    case OPT_DATA: o->data = optarg; break;
    case OPT_ALGO:
        if (mb_optim_kind_parse(optarg, &o->optim.kind) == MB_OK)
            o->par = MB_PAR_NONE;
        else if (mb_par_algo_parse(optarg, &o->par) != MB_OK)
            rc = mb_error_set(err, MB_EINVAL,
                              "--algo: '%s' is not one of sgd, momentum, nesterov, sgd-sync, "
                              "downpour, easgd, easgd-async, eamsgd, easgd-hogwild, "
                              "easgd-sync, sma", optarg);
        break;
    case OPT_OPTIM: /* applied after parsing, so that --algo cannot overwrite it */
        if (mb_optim_kind_parse(optarg, &a->optim) != MB_OK)
            rc = mb_error_set(err, MB_EINVAL,
                              "--optim: '%s' is not one of sgd, momentum, nesterov", optarg);
        break;
    case OPT_LEARNERS:
        rc = flag_long("--learners", optarg, 1, 256, &v, err);
        o->learners = (int)v;
        break;
    case OPT_ELASTIC_ALPHA:
        rc = mb_data_flag_float("--elastic-alpha", optarg, MB_NONNEG, &o->elastic_alpha, err);
        /* a bad value (exit 1), not a usage error; at 0 the centre, which is evaluated and
         * logged, never moves */
        if (rc == MB_OK && !(o->elastic_alpha > 0 && o->elastic_alpha <= 1))
            rc = mb_error_set(err, MB_EINVAL, "--elastic-alpha: must be in (0, 1], got %s",
                              optarg);
        break;
    case OPT_TAU: rc = flag_long("--tau", optarg, 1, 1L << 30, &o->tau, err); break;
    case OPT_N_PUSH: rc = flag_long("--n-push", optarg, 1, 1L << 30, &o->n_push, err); break;
    case OPT_N_FETCH:
        rc = flag_long("--n-fetch", optarg, 1, 1L << 30, &o->n_fetch, err);
        break;
    case OPT_GRAD_AFTER: o->grad_after_exchange = 1; break;
    case OPT_WAIT_TIMEOUT: rc = wait_timeout_flag(optarg, &o->wait_timeout, err); break;
    case OPT_DELTA:
    case OPT_SMA_MOMENTUM:
        rc = mb_data_flag_momentum(c == OPT_DELTA ? "--delta" : "--sma-momentum", optarg,
                                   &o->par_momentum, err);
        break;
    case OPT_NO_OVERLAP: o->no_overlap = 1; break;
    case OPT_SMA_TUNE: o->sma_tune = 1; break;
    case OPT_SMA_WINDOW:
        rc = flag_long("--sma-tune-window", optarg, 1, 1L << 30, &o->sma_tune_window, err);
        break;
    case OPT_CONV_ALGO:
        if (mb_conv_algo_parse(optarg, &o->conv_algo) != MB_OK)
            rc = mb_error_set(err, MB_EINVAL,
                              "--conv-algo: '%s' is not one of gemm, direct, fft, winograd",
                              optarg);
        break;
    case OPT_BATCH: a->batch_arg = optarg; break;
    case OPT_LR:
        rc = mb_data_flag_lr("--lr", optarg, &o->optim.lr, err);
        break;
    case OPT_MOMENTUM:
        rc = mb_data_flag_momentum("--momentum", optarg, &o->optim.momentum, err);
        break;
    case OPT_WD:
        rc = mb_data_flag_float("--weight-decay", optarg, MB_NONNEG, &o->optim.weight_decay,
                                err);
        break;
    case OPT_LR_STEP:
        rc = flag_long("--lr-step", optarg, 1, 1L << 40, &o->optim.lr_step_every, err);
        break;
    case OPT_LR_GAMMA:
        /* the factor multiplies a float rate: in float's range (campaign 36's E2); what the
         * schedule reaches over the run is checked once the run's length is known */
        rc = mb_data_flag_float("--lr-gamma", optarg, MB_POSITIVE, &o->optim.lr_step_gamma, err);
        break;
    case OPT_TARGET:
        rc = mb_data_flag_double("--target-loss", optarg, 0, MB_POSITIVE, &o->target_loss, err);
        break;
    case OPT_EVAL_EVERY: rc = flag_long("--eval-every", optarg, 1, 1L << 40, &o->eval_every, err); break;
    case OPT_EVAL_SAMPLES:
        rc = flag_long("--eval-samples", optarg, 1, 1L << 40, &a->eval_samples, err);
        break;
    case OPT_NOISE_EVERY: rc = flag_long("--noise-every", optarg, 0, 1L << 40, &o->noise_every, err); break;
    case OPT_EVAL_FRAC:
        rc = mb_data_flag_double("--eval-frac", optarg, 0, MB_POSITIVE, &o->eval_frac, err);
        if (rc == MB_OK && o->eval_frac > 1)
            rc = mb_error_set(err, MB_EINVAL, "--eval-frac: must be <= 1, got %s", optarg);
        break;
    case OPT_DATA_SEED:
        rc = flag_long("--data-seed", optarg, 0, 1L << 40, &v, err);
        o->data_seed = (unsigned long)v;
        break;
    case OPT_MAX_UPDATES: rc = flag_long("--max-updates", optarg, 1, 1L << 40, &o->max_updates, err); break;
    case OPT_EPOCHS: rc = mb_data_flag_double("--epochs", optarg, 0, MB_NONNEG, &o->epochs, err); break;
    case OPT_MAX_SECONDS:
        rc = mb_data_flag_double("--max-seconds", optarg, 0, MB_POSITIVE, &o->max_seconds, err);
        if (rc == MB_OK && !(o->max_seconds <= 1e9))
            rc = mb_error_set(err, MB_EINVAL, "--max-seconds: at most 1e9 s, got '%s'", optarg);
        break;
    case OPT_SEED:
        rc = flag_long("--seed", optarg, 0, 1L << 40, &v, err);
        o->seed = (unsigned long)v;
        a->have_seed = 1;
        break;
    case OPT_SEEDS: a->seeds_arg = optarg; break;
    case OPT_THREADS:
        rc = flag_long("--threads", optarg, 1, MB_NET_MAX_THREADS, &v, err);
        o->threads = (int)v;
        break;
    case OPT_EVAL_THREADS:
        rc = flag_long("--eval-threads", optarg, 1, MB_NET_MAX_THREADS, &v, err);
        o->eval_threads = (int)v;
        break;
    case OPT_BACKEND:
        if (mb_backend_parse(optarg, &o->backend) != MB_OK)
            rc = mb_error_set(err, MB_EINVAL, "--backend: '%s' is not cpu or cuda", optarg);
        break;
    case OPT_DEVICE:
        rc = flag_long("--device", optarg, 0, 1023, &v, err);
        o->device = (int)v;
        break;
    case OPT_LOG: o->log_path = optarg; break;
    case OPT_LOG_DIR: a->log_dir = optarg; break;
    case OPT_LEVELS: a->levels = optarg; break;
    case OPT_CKPT: o->checkpoint_path = optarg; break;
    case OPT_CKPT_EVERY:
        rc = flag_long("--checkpoint-every", optarg, 1, 1L << 40, &o->checkpoint_every, err);
        break;
    case OPT_RESUME: o->resume_path = optarg; break;
    case OPT_NO_BISECT: o->no_bisect = 1; break;
    case OPT_NO_TEST_EVAL: o->no_test_eval = 1; break;
    case OPT_EVAL_ADAPT: o->eval_adapt = 1; break;
    case OPT_CHECK_FRAC:
        rc = mb_data_flag_double("--check-frac", optarg, 0, MB_NONNEG, &o->check_frac, err);
        if (rc == MB_OK && o->check_frac >= 1)
            rc = mb_error_set(err, MB_EINVAL, "--check-frac: must be < 1, got %s", optarg);
        break;
    case OPT_CHECK_SIGMAS:
        rc = mb_data_flag_double("--check-sigmas", optarg, 0, MB_POSITIVE, &o->check_sigmas,
                                 err);
        break;
    }
    return rc;
}

/* Flags that belong to some algorithms only, and which: bit k of `algos` is mb_par_algo k
 * (MB_PAR_NONE: sgd, momentum, nesterov on one learner). */
#define ALGO(a) (1u << (a))
#define SERVER (ALGO(MB_PAR_DOWNPOUR) | ALGO(MB_PAR_EASGD_ASYNC) | ALGO(MB_PAR_EAMSGD) |     \
                ALGO(MB_PAR_EASGD_HOGWILD))
#define PARALLEL (((1u << MB_PAR_N) - 1) & ~ALGO(MB_PAR_NONE))
static const struct algo_flag {
    int opt;
    const char *flag;
    unsigned algos;   /* the algorithms it acts in */
    const char *what; /* "it is ..." */
} algo_flags[] = {
    {OPT_LEARNERS, "--learners", PARALLEL, "learner threads of a parallel algorithm"},
    {OPT_EVAL_THREADS, "--eval-threads", PARALLEL, "rank 0's evaluation threads of a parallel "
     "algorithm (one learner evaluates with --threads)"},
    {OPT_WAIT_TIMEOUT, "--wait-timeout", PARALLEL, "how long a parallel algorithm's learner "
     "waits for the others"},
    {OPT_OPTIM, "--optim", ALGO(MB_PAR_SGD_SYNC) | ALGO(MB_PAR_DOWNPOUR), "the optimiser of "
     "sgd-sync and of DOWNPOUR's master (one learner's is --algo)"},
    {OPT_ELASTIC_ALPHA, "--elastic-alpha", PARALLEL & ~ALGO(MB_PAR_SGD_SYNC) &
     ~ALGO(MB_PAR_DOWNPOUR), "the moving rate of the EASGD family and SMA"},
    {OPT_TAU, "--tau", SERVER | ALGO(MB_PAR_EASGD_SYNC), "the period of easgd-sync, "
     "downpour, easgd-async, eamsgd and easgd-hogwild; the others have no communication period"},
    {OPT_N_PUSH, "--n-push", ALGO(MB_PAR_DOWNPOUR), "DOWNPOUR's push period"},
    {OPT_N_FETCH, "--n-fetch", ALGO(MB_PAR_DOWNPOUR), "DOWNPOUR's fetch period"},
    {OPT_GRAD_AFTER, "--grad-after-exchange", SERVER & ~ALGO(MB_PAR_DOWNPOUR), "for "
     "easgd-async, eamsgd and easgd-hogwild"},
    {OPT_DELTA, "--delta", ALGO(MB_PAR_EAMSGD), "EAMSGD's momentum"},
    {OPT_SMA_MOMENTUM, "--sma-momentum", ALGO(MB_PAR_SMA), "SMA's momentum"},
    {OPT_NO_OVERLAP, "--no-overlap", ALGO(MB_PAR_EASGD_SYNC), "for easgd-sync"},
    {OPT_SMA_TUNE, "--sma-tune", ALGO(MB_PAR_SMA), "for sma"},
    /* issue #25, G7 and G6: exit 2 as every ignored flag */
    {OPT_MAX_SECONDS, "--max-seconds", ALGO(MB_PAR_NONE), "one learner's bound on training "
     "time; the parallel algorithms take --max-updates or --epochs"},
    {OPT_NOISE_EVERY, "--noise-every", ALGO(MB_PAR_NONE), "one learner's period of the B_simple "
     "measurement (sgd-sync measures it every update from its learners' gradients, the others "
     "not at all)"},
};

/* A flag given that the chosen algorithm or mode would ignore (--momentum with --algo sgd,
 * --lr-gamma without --lr-step, --tau with sgd-sync ...): a usage error naming it and why; -1
 * when every flag given acts. */
static int ignored_flag(const mb_run_options *o, const mb_cli_seen *s)
{
    const char *algo = mb_run_algo_name(o);
    char why[320];
    for (size_t i = 0; i < sizeof algo_flags / sizeof algo_flags[0]; i++) {
        const struct algo_flag *f = &algo_flags[i];
        if (mb_cli_given(s, f->opt) && !(f->algos & ALGO(o->par))) {
            snprintf(why, sizeof why, "with --algo %s: it is %s", algo, f->what);
            return mb_cli_no_effect("mbtrain", NULL, f->flag, why);
        }
    }
    int optimiser = o->par == MB_PAR_NONE || o->par == MB_PAR_SGD_SYNC ||
                    o->par == MB_PAR_DOWNPOUR; /* the others step x -= eta g themselves */
    if (mb_cli_given(s, OPT_MOMENTUM) && (!optimiser || o->optim.kind == MB_OPTIM_SGD)) {
        snprintf(why, sizeof why, "with --algo %s%s%s: it is the momentum of --algo momentum "
                 "and nesterov (sgd-sync and downpour: --optim momentum or nesterov)", algo,
                 optimiser && o->par != MB_PAR_NONE ? " --optim " : "",
                 optimiser && o->par != MB_PAR_NONE ? mb_optim_kind_name(o->optim.kind) : "");
        return mb_cli_no_effect("mbtrain", NULL, "--momentum", why);
    }
    static const struct { int opt, needs; const char *flag, *why; } pairs[] = {
        {OPT_LR_GAMMA, OPT_LR_STEP, "--lr-gamma", "without --lr-step N (the rate is multiplied "
         "by G every N updates)"},
        {OPT_SMA_WINDOW, OPT_SMA_TUNE, "--sma-tune-window", "without --sma-tune"},
        {OPT_CHECK_FRAC, OPT_TARGET, "--check-frac", "without --target-loss (it checks "
         "evaluations against the target)"},
        {OPT_CHECK_SIGMAS, OPT_CHECK_FRAC, "--check-sigmas", "without --check-frac"},
        {OPT_LEVELS, OPT_TARGET, "--levels", "without --target-loss (they are losses above "
         "it, on the way to it)"},
        {OPT_EVAL_ADAPT, OPT_TARGET, "--eval-adapt", "without --target-loss (it spaces "
         "evaluations by the distance to the target)"},
        {OPT_NO_BISECT, OPT_TARGET, "--no-bisect", "without --target-loss (there is no crossing "
         "to bisect)"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if (mb_cli_given(s, pairs[i].opt) && !mb_cli_given(s, pairs[i].needs))
            return mb_cli_no_effect("mbtrain", NULL, pairs[i].flag, pairs[i].why);
    /* a schedule of factor 1 never changes the rate, as an --lr-step no run reaches does not
     * (campaign 42, F6: it was taken, the log stating a schedule that did nothing); judged in
     * float, the type the rate is multiplied in, as --momentum is (campaign 43's F2:
     * --lr-gamma 1.0000000001 was taken) */
    if (mb_cli_given(s, OPT_LR_STEP) && o->optim.lr_step_every > 0 &&
        (float)o->optim.lr_step_gamma == 1.0f) {
        if (o->optim.lr_step_gamma == 1)
            return mb_cli_usage("mbtrain", NULL, "--lr-gamma 1 never changes the rate "
                                "(--lr-step %ld multiplies it by 1)", o->optim.lr_step_every);
        return mb_cli_usage("mbtrain", NULL, "--lr-gamma %.15g is 1 in float, the type the rate "
                            "is multiplied in: it never changes the rate (--lr-step %ld "
                            "multiplies it by 1)", o->optim.lr_step_gamma,
                            o->optim.lr_step_every);
    }
    /* --check-frac 0 asks for no staged checks: what tunes them has nothing to tune */
    const int checks = mb_cli_given(s, OPT_CHECK_FRAC) && o->check_frac > 0;
    if (mb_cli_given(s, OPT_CHECK_SIGMAS) && !checks)
        return mb_cli_no_effect("mbtrain", NULL, "--check-sigmas", "with --check-frac 0 (there "
                                "are no staged checks to set the margin of)");
    if (mb_cli_given(s, OPT_LEVELS) && !checks && !mb_cli_given(s, OPT_EVAL_ADAPT))
        return mb_cli_no_effect("mbtrain", NULL, "--levels", "without --check-frac above 0 or "
                                "--eval-adapt (the levels are what they aim at; full evaluations "
                                "show every level's crossing as they are)");
    if (mb_cli_given(s, OPT_DEVICE) && o->backend == MB_BACKEND_CPU)
        return mb_cli_no_effect("mbtrain", NULL, "--device", "with --backend cpu (it picks the "
                                "CUDA device)");
    return -1;
}

/* Parses the command line into o and a: -1 to go on, else the exit status (--help, --version,
 * a usage error, a bad value). */
static int parse_args(int argc, char **argv, mb_run_options *o, mbtrain_args *a)
{
    mb_error err = {0};
    int c;
    opterr = 0;
    mb_cli_seen seen = {"mbtrain", NULL, NULL, {0}, NULL};
    while ((c = mb_cli_getopt(argc, argv, ":h", longopts, &seen)) != -1) {
        switch (c) {
        case 'h': help(o); return 0;
        case OPT_VERSION: printf("mbtrain %s\n", mb_version()); return 0;
        case ':':
            return mb_cli_usage("mbtrain", NULL, "option '%s' needs a value", argv[optind - 1]);
        case '?': return mb_cli_usage("mbtrain", NULL, "unknown option '%s'", argv[optind - 1]);
        case MB_CLI_REPEATED: return MB_EXIT_USAGE;
        }
        if (apply_option(c, o, a, &err) != MB_OK)
            return mbtrain_fail(&err);
    }
    if (optind < argc)
        return mb_cli_usage("mbtrain", NULL, "unexpected argument '%s'", argv[optind]);
    if (!o->net)
        return mb_cli_usage("mbtrain", NULL, "--net is required");
    if (!o->data)
        return mb_cli_usage("mbtrain", NULL, "--data is required");
    if (a->have_seed && a->seeds_arg)
        return mb_cli_usage("mbtrain", NULL, "give --seed or --seeds, not both");
    if (o->log_path && a->log_dir)
        return mb_cli_usage("mbtrain", NULL, "give --log or --log-dir, not both");
    if (mb_cli_given(&seen, OPT_OPTIM) && o->par != MB_PAR_NONE)
        o->optim.kind = a->optim;
    int ignored = ignored_flag(o, &seen);
    if (ignored >= 0)
        return ignored;
    a->noise_asked = mb_cli_given(&seen, OPT_NOISE_EVERY) && o->noise_every > 0;
    if (a->levels && parse_levels(a->levels, o) != MB_OK)
        return MB_EXIT_USAGE;
    if (o->checkpoint_path && !o->checkpoint_every)
        return mb_cli_usage("mbtrain", NULL, "--checkpoint needs --checkpoint-every N");
    if (!o->checkpoint_path && o->checkpoint_every)
        return mb_cli_usage("mbtrain", NULL, "--checkpoint-every needs --checkpoint FILE");
    if (mbtrain_output_clash(o, &err) != MB_OK)
        return mbtrain_fail(&err);
    return -1;
}

/* Under mpirun every rank runs this; one process alone never starts MPI (*world stays NULL).
 * -1 to go on, else the exit status. */
static int start_mpi(int *argc, char ***argv, mb_run_options *o, mb_communicator **world)
{
    mb_error err = {0};
    *world = NULL;
    if (!mb_comm_mpi_launched())
        return -1;
    if (mb_comm_mpi_create(argc, argv, "mbtrain", world, &err) != MB_OK) {
        int status = *world && !err.msg[0] ? 1 : mbtrain_fail(&err); /* rank 0 names the programs */
        mb_comm_free(*world); /* after the line: every rank waits here for the others */
        *world = NULL;
        return status;
    }
    o->argv = *argv;
    if (mb_comm_size(*world) > 1 && o->par == MB_PAR_NONE) {
        if (mb_comm_rank(*world) == 0)
            fprintf(stderr, "mbtrain: --algo %s trains one learner, but mpirun started %d "
                    "ranks: use a parallel algorithm (sgd-sync, easgd-sync, sma, ...) or "
                    "run it without mpirun\n", mb_optim_kind_name(o->optim.kind),
                    mb_comm_size(*world));
        mb_comm_free(*world);
        *world = NULL;
        return MB_EXIT_USAGE;
    }
    o->comm = *world;
    return -1;
}


/* OpenBLAS's room under a memory limit (mb_backend_blas_room) for the threads this run starts:
 * a learner's --threads call it at once, times the learners of a parallel algorithm, whose
 * evaluation (--eval-threads) runs while they wait, beside a server or watcher thread; under
 * mpirun each rank is a process of its own, with MPI's libraries and threads besides (measured:
 * campaign 34's E2). -1 to go on, else the exit status. */
static int blas_room(const mb_run_options *o)
{
    enum { MPI_MIB = 144, MPI_THREADS = 4 }; /* a rank ran sgd-sync from 342-356 MiB */
    const int par = o->par != MB_PAR_NONE, t = o->threads > 1 ? o->threads : 1;
    const int l = par && o->learners > 1 ? o->learners : 1;
    const int e = par ? (o->eval_threads > 0 ? o->eval_threads : t) : 1;
    const int mpi = mb_comm_mpi_launched();
    int callers = l * t > e ? l * t : e;
    int threads = l * t - 1 + (e - 1) + par + (mpi ? MPI_THREADS : 0);
    mb_error err = {0};
    if (mb_backend_blas_room(callers, threads, mpi ? MPI_MIB : 0, &err) == MB_OK)
        return -1;
    return mbtrain_fail(&err);
}

static int run_command(int argc, char **argv)
{
    mb_run_options o;
    mb_run_options_init(&o);
    o.argc = argc;
    o.argv = argv;
    mbtrain_args a = {0};
    /* under mpirun, what every rank would say alike is said by rank 0 (campaign 9, L6) */
    mb_cli_hold hold;
    mb_cli_hold_begin(&hold);
    int status = parse_args(argc, argv, &o, &a);
    status = mb_cli_hold_end(&hold, status < 0 ? blas_room(&o) : status);
    if (status >= 0)
        return status;
    mb_communicator *world = NULL;
    if ((status = start_mpi(&argc, &argv, &o, &world)) >= 0)
        return status;
    mbtrain_sweep w;
    int together = 0, unread; /* together: every rank failed at the same point */
    mb_cli_hold_begin(&hold);
    status = mb_cli_hold_end(&hold, mbtrain_sweep_plan(&o, &a, world, &w, &unread));
    if (unread) { /* as every rank reads the same flags: no abort */
        mbtrain_sweep_free(&w);
        return status;
    }
    if (status == 0)
        status = mbtrain_run_sweep(&o, &a, &w, world, &together);
    if (world && status != 0 && mb_comm_size(world) > 1 && !together)
        mb_comm_abort(world, status); /* the others may wait in a collective */
    mb_comm_free(world);
    mbtrain_sweep_free(&w);
    return status;
}

int main(int argc, char **argv)
{
    mb_cli_one_blas_thread(argv); /* under a memory limit, one BLAS thread of its own */
    int start = mb_cli_start();
    return mb_cli_exit(start ? start : run_command(argc, argv));
}
