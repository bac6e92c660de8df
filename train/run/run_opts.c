/* run_opts.c — a training run's options: their defaults, the checks every run makes of them
 * before it starts (single or parallel), and the names of the algorithms (the single learner's
 * optimiser or a parallel algorithm) that logs and messages print, and the settings of a
 * parallel algorithm with its defaults resolved (its learners, alpha and momentum).
 *
 * Below both drivers: run.c (one learner), par.c (several) and the monitor (run_mon.c) read
 * these; nothing here trains.
 */
#include "run_impl.h"
#include "../comm/mb_comm.h"

#include <math.h>
#include <string.h>

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
    o->noise_every = 16;
    o->check_sigmas = 4;
    o->epochs = 10;
    o->tool = "mbtrain";
    o->learners = 1;
    o->elastic_alpha = NAN;
    o->par_momentum = NAN;
    o->tau = 1;
    o->wait_timeout = 600;
    o->sma_tune_window = 20;
}
int mb_run_check_options(const mb_run_options *o, mb_error *err)
{
    if (!o->net || !*o->net)
        return mb_error_set(err, MB_EINVAL, "no network given");
    if (!o->splits && (!o->data || !*o->data))
        return mb_error_set(err, MB_EINVAL, "no data given");
    if (o->batch <= 0)
        return mb_error_set(err, MB_EINVAL, "batch must be > 0, got %d", o->batch);
    if (o->backend != MB_BACKEND_CPU && (o->par != MB_PAR_NONE || o->learners > 1))
        return mb_error_set(err, MB_ENOTSUP, "the %s backend trains one learner: the parallel "
                            "rules read the parameters in host memory (train P learners with "
                            "--backend cpu)", mb_backend_name(o->backend));
    if (o->backend != MB_BACKEND_CPU && (o->checkpoint_path || o->resume_path))
        return mb_error_set(err, MB_ENOTSUP, "checkpoints of a %s run are not written yet: its "
                            "velocity stays on the device (checkpoint with --backend cpu)",
                            mb_backend_name(o->backend));
    if (o->eval_every <= 0)
        return mb_error_set(err, MB_EINVAL, "eval-every must be > 0, got %ld", o->eval_every);
    if (o->noise_every < 0)
        return mb_error_set(err, MB_EINVAL, "noise-every must be >= 0, got %ld", o->noise_every);
    if (o->max_updates < 0 || !(o->epochs >= 0) || !isfinite(o->epochs))
        return mb_error_set(err, MB_EINVAL, "max-updates and epochs must be >= 0");
    if (!(o->max_seconds >= 0) || !isfinite(o->max_seconds))
        return mb_error_set(err, MB_EINVAL, "max-seconds must be >= 0 and finite");
    if (o->max_seconds > 0 && o->par != MB_PAR_NONE)
        return mb_error_set(err, MB_ENOTSUP, "--max-seconds bounds one learner's run; the "
                            "parallel algorithms take --max-updates or --epochs");
    if (o->max_updates == 0 && o->epochs == 0 && isnan(o->target_loss))
        return mb_error_set(err, MB_EINVAL, "no stopping rule: give a target loss, max updates or epochs");
    if (!(o->eval_frac > 0 && o->eval_frac <= 1))
        return mb_error_set(err, MB_EINVAL, "eval-frac must be in (0, 1], got %g", o->eval_frac);
    if (!(o->check_frac >= 0 && o->check_frac < 1))
        return mb_error_set(err, MB_EINVAL, "check-frac must be in [0, 1), got %g", o->check_frac);
    if (o->check_frac > 0 && (!(o->check_sigmas > 0) || !isfinite(o->check_sigmas)))
        return mb_error_set(err, MB_EINVAL, "check-sigmas must be > 0, got %g", o->check_sigmas);
    if (o->n_levels < 0 || o->n_levels > MB_RUN_LEVELS_MAX)
        return mb_error_set(err, MB_EINVAL, "levels: %d of them, at most %d", o->n_levels,
                            MB_RUN_LEVELS_MAX);
    if (o->n_levels > 0 && isnan(o->target_loss))
        return mb_error_set(err, MB_EINVAL, "levels without a target loss (they are losses on "
                            "the way to it)");
    for (int k = 0; k < o->n_levels; k++) {
        double v = o->levels[k];
        if (!(isfinite(v) && mb_run_level_above(v, o->target_loss)))
            return mb_error_set(err, MB_EINVAL, "levels: %g is not a loss above the target %g",
                                v, o->target_loss);
        if (k > 0 && !mb_run_level_above(o->levels[k - 1], v))
            return mb_error_set(err, MB_EINVAL, "levels: %g after %g: give them from the "
                                "highest down, each once", v, o->levels[k - 1]);
    }
    if (o->checkpoint_path && o->checkpoint_every <= 0)
        return mb_error_set(err, MB_EINVAL, "checkpoint-every must be > 0 with a checkpoint file");
    if (o->checkpoint_path && strcmp(o->checkpoint_path, "-") == 0) /* campaign 39's F2 */
        return mb_error_set(err, MB_EINVAL, "checkpoint '-': standard output cannot be read back "
                            "(nor hold a parallel run's companions): give a regular file");
    return MB_OK;
}

/* The input shape and classes of the net must be the data's. */
int mb_run_check_shapes(const mb_net_desc *d, const mb_dataset *s, const char *what,
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
static const char *const algo_names[MB_PAR_N] = {
    "none", "sgd-sync", "downpour", "easgd", "easgd-async", "eamsgd", "easgd-hogwild",
    "easgd-sync", "sma"};

const char *mb_par_algo_name(int algo)
{
    return algo > 0 && algo < MB_PAR_N ? algo_names[algo] : "none";
}

int mb_par_algo_parse(const char *name, int *algo)
{
    for (int i = 1; i < MB_PAR_N; i++)
        if (strcmp(name, algo_names[i]) == 0) {
            *algo = i;
            return MB_OK;
        }
    return MB_EINVAL;
}

int mb_par_algo_has_server(int algo)
{
    return algo == MB_PAR_DOWNPOUR || algo == MB_PAR_EASGD_ASYNC || algo == MB_PAR_EAMSGD ||
           algo == MB_PAR_EASGD_HOGWILD;
}

int mb_par_learners(const mb_run_options *o, int ranks)
{
    if (!mb_par_algo_has_server(o->par))
        return ranks * o->learners;
    return ranks > 1 ? ranks - 1 : o->learners;
}

void mb_par_resolved(const mb_run_options *o, double *alpha, double *mu)
{
    const int p = mb_par_learners(o, o->comm ? mb_comm_size(o->comm) : 1);
    *alpha = !isnan(o->elastic_alpha) ? o->elastic_alpha
             : o->par == MB_PAR_SMA   ? 1.0 / (o->sma_tune || p < 1 ? 1 : p)
                                      : 0.9 / (p < 1 ? 1 : p); /* beta = p alpha = 0.9 */
    *mu = !isnan(o->par_momentum) ? o->par_momentum : o->par == MB_PAR_SMA ? 0.9 : 0.99;
}

const char *mb_run_algo_name(const mb_run_options *o)
{
    return o->par != MB_PAR_NONE ? mb_par_algo_name(o->par) : mb_optim_kind_name(o->optim.kind);
}

const char *mb_run_algo_nth(int k)
{
    if (k >= 0 && k < MB_OPTIM_N) /* MB_PAR_NONE: the optimiser's name */
        return mb_optim_kind_name((mb_optim_kind)k);
    k -= MB_OPTIM_N - 1; /* then the parallel algorithms, from MB_PAR_NONE + 1 */
    return k > MB_PAR_NONE && k < MB_PAR_N ? mb_par_algo_name(k) : NULL;
}

/* One unit of the last place a log writes a loss in: its 6th decimal (the front end's and the
 * example logs' %.6f; mbtrain's %.7g is finer below 1 and the same up to 10), and from 10 up the
 * 7th significant digit (%.7g: 12.34568). */
static double level_unit(double x)
{
    double a = fabs(x);
    return a < 10 ? 1e-6 : pow(10.0, floor(log10(a)) - 6);
}

int mb_run_level_above(double hi, double lo)
{
    /* a whole unit apart: a log's losses always fall between them (less, and a log may write
     * them alike: 0.5 and 0.5000008 are crossed by the same 0.500000); the 1e-9 absorbs the
     * binary error of the difference (0.500001 - 0.5) */
    return hi > lo && hi - lo >= level_unit(lo) * (1 - 1e-9);
}

int mb_run_level_same(double a, double b)
{
    return !mb_run_level_above(a, b) && !mb_run_level_above(b, a);
}
