/* mb_fit.h — fits of mbkit's models to measurements, with uncertainties (GSL).
 *
 * - A generic weighted nonlinear least-squares fit on GSL's gsl_multifit_nlinear (trust region,
 *   Levenberg-Marquardt, optionally with geodesic acceleration), returning parameters, standard
 *   errors from the Jacobian at the solution scaled by the residual variance chi2 / dof, 95%
 *   intervals (Student t with dof degrees of freedom), weighted R^2, AIC, residuals and the
 *   solver's status. A fit that did not converge says so (status MB_ENOCONV), it is not hidden.
 * - N_update(M): threshold crossing in run logs ("no patience": the first update whose evaluation
 *   loss is at or under eps), runs grouped by M, and the inverse law N = N_inf + alpha / M
 *   (Perrone et al. 2019, eq. 2) with the power law N = N_inf + a M^-b and McCandlish et al.'s
 *   S = S_min (1 + B_noise / B) as alternatives, compared by AIC; bootstrap over runs.
 * - T_update: gamma * max(M/P, M_T) + delta (Perrone eq. 3-4) with the knee found exactly, and the
 *   smooth overlap form (T_compute^g + T_comm^g)^(1/g) used by Pollux.
 * - Collectives: t = a + b bytes per (op, procs), and one pooled ring-allreduce fit
 *   t = 2(P-1) latency_s + 2(P-1)/P bytes s_per_byte (model/: MB_COMM_ALPHA_BETA).
 *
 * Nothing here prints or exits. GSL's abort-on-error handler is switched off for the duration of
 * each call into GSL and GSL codes are mapped to MB_* codes. JSON builders return cJSON objects
 * owned by the caller (the command writes them).
 */
#ifndef MB_FIT_H
#define MB_FIT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../data/mb_table.h"
#include "../model/mb_model.h"

#define MB_FIT_MAX_PARAMS 5

/* ---- the generic fit -------------------------------------------------------------------------- */

/* The model at point i: *y = f(p; x_i), grad[j] = df/dp_j for every parameter j (all of them,
 * fixed ones too). `data` carries the points. Returns MB_OK, or MB_EDOM where f is undefined. */
typedef int (*mb_fit_fn)(const double *p, size_t i, const void *data, double *y, double *grad);

typedef struct mb_fit_model {
    const char *name;                 /* "inverse-law", ... */
    size_t n_params;                  /* <= MB_FIT_MAX_PARAMS */
    const char *const *param_names;   /* n_params names, as written to JSON */
    mb_fit_fn f;
    const void *data;
} mb_fit_model;

typedef struct mb_fit_options {
    int geodesic;                 /* 1: Levenberg-Marquardt with geodesic acceleration */
    size_t max_iter;              /* iteration limit of the trust-region driver */
    double xtol, gtol, ftol;      /* GSL's convergence tests (gsl_multifit_nlinear_test) */
    int fixed[MB_FIT_MAX_PARAMS]; /* 1: hold parameter j at its starting value (a bound) */
} mb_fit_options;

/* Defaults: geodesic 0, max_iter 500, xtol 1e-14, gtol 1e-14, ftol 0, nothing fixed. */
void mb_fit_options_init(mb_fit_options *o);

typedef struct mb_fit_result {
    char model[32];                        /* the model's name */
    size_t n_params;
    const char *names[MB_FIT_MAX_PARAMS];  /* static strings of the model */
    double p[MB_FIT_MAX_PARAMS];           /* the estimates */
    double se[MB_FIT_MAX_PARAMS];          /* standard errors; 0 for fixed ones, NAN if dof = 0 */
    double ci_lo[MB_FIT_MAX_PARAMS];       /* 95% interval p +- t(0.975, dof) se */
    double ci_hi[MB_FIT_MAX_PARAMS];
    double cov[MB_FIT_MAX_PARAMS][MB_FIT_MAX_PARAMS]; /* covariance of the estimates, scaled by
                                             chi2/dof like se (se[j]^2 = cov[j][j]); 0 in the
                                             rows of fixed parameters, NAN if unavailable */
    int fixed[MB_FIT_MAX_PARAMS];          /* held at a bound */
    size_t n_points;
    double dof;                            /* n_points - free parameters */
    double chi2;                           /* sum of w_i r_i^2 at the solution */
    double r2;                             /* weighted R^2 = 1 - chi2 / sum w_i (y_i - ybar_w)^2 */
    double aic;                            /* n ln(chi2 / n) + 2 k, k = free parameters */
    double *residuals;                     /* n_points, y_i - f(x_i), owned: mb_fit_result_free */
    int status;                            /* MB_OK converged, MB_ENOCONV not converged */
    int gsl_status;                        /* what gsl_multifit_nlinear_driver returned */
    char gsl_reason[64];                   /* gsl_strerror of it */
    size_t iterations;
    int converged_by;                      /* GSL's info: 1 small step, 2 small gradient, 0 exact */
} mb_fit_result;

/* Fits `model` to y[0..n) with standard deviations sigma[0..n) (NULL: all 1), from p0.
 * Fills *res (free it with mb_fit_result_free even on error). Returns MB_OK when the fit ran,
 * whether it converged or not (see res->status); MB_ENODATA with fewer points than free
 * parameters; MB_EDOM when the model cannot be evaluated; MB_ESOLVER when GSL failed. */
int mb_fit_nlinear(const mb_fit_model *model, size_t n, const double *y, const double *sigma,
                   const double *p0, const mb_fit_options *opts, mb_fit_result *res,
                   mb_error *err);
void mb_fit_result_free(mb_fit_result *res);

/* Weighted linear least squares y ~ X b (X row-major n x k, k <= MB_FIT_MAX_PARAMS) with
 * gsl_multifit_wlinear; *chi2 the weighted residual sum. Exact, used for starting values and the
 * knee's linear parts. MB_ENODATA when n < k, MB_ESOLVER when GSL fails. */
int mb_fit_linear(size_t n, size_t k, const double *X, const double *y, const double *sigma,
                  double *b, double *chi2, mb_error *err);

/* The fit as JSON: {"model", "params", "stderr", "ci95", "r2", "n_points", "dof", "chi2", "aic",
 * "converged", "status", "iterations", "residuals", "fixed"}. NULL when out of memory. */
cJSON *mb_fit_result_json(const mb_fit_result *res);

/* Moves every member of object `src` into `dst`, then deletes src (NULL src: nothing). */
void mb_fit_json_merge(cJSON *dst, cJSON *src);

/* Up to 16 warnings of one line each, for the command to print. */
typedef struct mb_fit_warnings {
    size_t n;
    char msg[16][240];
} mb_fit_warnings;
void mb_fit_warn(mb_fit_warnings *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
cJSON *mb_fit_warnings_json(const mb_fit_warnings *w);

/* ---- N_update(M) ------------------------------------------------------------------------------ */

/* The training settings a run log's header records that runs fitted together must share
 * (mb_fit_runs_same_settings; docs/formats.md, "Run log"): how the run was made, apart from what
 * a fit groups or filters by (batch, seed, lr, learners, algo), what varies with M by design
 * (eval_every, learner_batch), what is measured (b_simple, the t_*), what does not change the
 * curve (threads, checks, levels) and elastic_alpha (SMA tunes it per run). The machine's
 * (backend, device, device_name: MB_FIT_MACHINE_SETTINGS) come last: they do not change the
 * curve, so mbfit nupdate's runs may differ in them, but they change the wall times, so the runs
 * that grade or settle a fit in mbopt (one machine's T_C) may not (campaign 35's R4).
 * Each value as written, at most MB_FIT_SETTING_LEN - 1 characters. */
#define MB_FIT_SETTINGS 19
#define MB_FIT_MACHINE_SETTINGS "backend device device_name" /* a skip list (trained_as) */
#define MB_FIT_SETTING_LEN 256
#define MB_FIT_DEVICE_LEN 128 /* a run log's `# device=` and a step table's `device`, kept */
extern const char *const mb_fit_setting_keys[MB_FIT_SETTINGS];

/* Runs reduced to what the inverse law needs. Owned: mb_fit_runs_free. */
typedef struct mb_fit_runs {
    size_t n;             /* runs */
    size_t n_thr;         /* thresholds (1 for a points file) */
    double *thresholds;   /* n_thr loss thresholds; NAN for a points file */
    double *batch;        /* n: M of each run, samples */
    double *seed;         /* n: seed, NAN when unknown */
    double *n_update;     /* n * n_thr, row-major: first update at or under the threshold; NAN
                             where the run never reached it */
    double *wall;         /* n * n_thr: the training seconds (wall_s, evaluation excluded) at
                             that update; NAN when unreached or the log has no wall_s */
    double *lr;           /* n: learning rate from `# lr=`, NAN when unknown */
    double *procs;        /* n: learners from `# learners=` (1 when absent) */
    int *diverged;        /* n (NULL: none did): 1 when the log says the run diverged (`diverged=` in its
                             metadata or summary), else 0 */
    double *t_step;       /* n: the run's training seconds per update (last wall_s / last
                             update), NAN without wall_s */
    char (*net)[64];      /* n: `# net=`, "" when absent */
    char (*algo)[32];     /* n: `# algo=`, "" when absent */
    char (*optim)[32];    /* n: `# optim=`, a parallel run's optimiser, "" when absent */
    char (*backend)[16];  /* n: `# backend=`, "" when absent */
    char (*device)[MB_FIT_DEVICE_LEN]; /* n: the device's name, `# device_name=` (the PyTorch
                             front end's) or else `# device=` (mbtrain's), "" when absent */
    double *threads;      /* n: `# threads=` (whole >= 1), 0 when absent */
    double *target;       /* n: `# target_loss=` the run stopped at, NAN when absent */
    double *b_simple;     /* n: `# b_simple=`, the gradient noise scale a data-parallel run
                             measured (McCandlish et al.), NAN when absent */
    double *load;         /* n * 2: `# others_cores=` and `# steal_cores=`, the cores other
                             processes and the hypervisor took on average during the run
                             (mbtrain's logs since 0.1.0's twelfth round), NAN when absent */
    size_t *file;         /* n: the run's index among the paths it was read from (kept
                             through the keep filters, to name its file) */
    double *first_loss;   /* n: the first loss the run was judged by (its first evaluation, or
                             the first full window of training loss), NAN when none */
    double *first_update; /* n: the update of that row, NAN when none */
    char (*setting)[MB_FIT_SETTINGS][MB_FIT_SETTING_LEN]; /* n: each of mb_fit_setting_keys'
                             metadata as written, "" when the log does not say */
    int from_logs;        /* 1: read from run logs, 0: from a points file */
    int used_train_loss;  /* runs that had no evaluation column and used smoothed training loss */
} mb_fit_runs;

/* The median B_simple (McCandlish et al.'s gradient noise scale) over the runs that logged one
 * (`# b_simple=`), NAN when none did; *n_used: how many. */
double mb_fit_runs_b_simple(const mb_fit_runs *runs, size_t *n_used);

/* The median over the runs whose logs say it of the cores other processes (which 0) or the
 * hypervisor (which 1) took during the run (`load`), NAN when none did; *n_used: how many. */
double mb_fit_runs_load(const mb_fit_runs *runs, int which, size_t *n_used);

/* The longest time a step, collective or run-log time may be, seconds (31 years): past it the
 * fits' sums of squares overflow and "fit" 1e308 s to zeros. A run log's `wall_s` after update
 * 0, and a step or collective table's t_median_s (mb_fit_probe_time), is at least
 * MB_FIT_MIN_SECONDS (1 ns: no clock times an update faster), so that a training time or
 * seconds per update is never 0 or a subnormal that a ratio over it, or a relative weight
 * 1/t^2, overflows. */
#define MB_FIT_MAX_SECONDS 1e9
#define MB_FIT_MIN_SECONDS 1e-9

/* The most processes a collective table's row may have timed: 2^24 (16,777,216) ranks, past
 * any MPI job run (the largest machines run a few million); 1e11 is no measurement. */
#define MB_FIT_MAX_PROCS 16777216

/* The widest factor a calibration by runs may scale the probe's step by (mbfit tupdate's
 * calibration.scale_below and scale_above lie in [1 / MAX, MAX]). Both time one step of one net
 * on one backend and thread count (the logs' metadata are checked against the table's): the runs
 * add what the probe leaves out (the data, the optimiser, a busy host): factors near 1 on the
 * examples, tens where the runs shared a host; a thousandfold either way means the two timed
 * different things (campaign 16, S4: 1e300 and 1e-300 were taken). */
#define MB_FIT_CAL_SCALE_MAX 1e3

/* Reads mbtrain run logs (docs/design.md, "Run log"): M from the `batch` metadata; for each
 * threshold the first `update` whose eval_loss is <= eps. A log with no eval_loss column, or none
 * filled in, uses the training `loss` averaged over a trailing window of `smooth` rows instead.
 * `wall_s`, where given, is in [0, MB_FIT_MAX_SECONDS], and from MB_FIT_MIN_SECONDS after update
 * 0. MB_EIO / MB_EFORMAT naming the file, line and field. */
int mb_fit_runs_read_logs(const char *const *paths, size_t n_paths, const double *thresholds,
                          size_t n_thr, size_t smooth, mb_fit_runs *runs, mb_error *err);

/* The run whose `# net=` most runs share (its index), and in *odd the first run of another net
 * (SIZE_MAX: none). The readers above refuse runs of two nets, naming the odd one out. */
size_t mb_fit_runs_major_net(const mb_fit_runs *runs, size_t *odd);

/* The same, with paths[0] already read as `first` (NULL: read it here), so that a log given as
 * a FIFO or pipe is read once. Batch, learners and seed must be whole numbers, updates whole and
 * rising; the same run given twice (the same file under any name, or a copy: one seed with the
 * same net, algorithm, batch, learners and lr) is MB_EINVAL naming both. */
int mb_fit_runs_read_logs_first(const mb_table *first, const char *const *paths, size_t n_paths,
                                const double *thresholds, size_t n_thr, size_t smooth,
                                mb_fit_runs *runs, mb_error *err);

/* The same, with every log already read: tabs[i] is paths[i]'s table (NULL: read it here), so
 * that a caller that looked into the logs first (mbfit nupdate --extrapolate's default levels)
 * opens each input once. */
int mb_fit_runs_read_tables(const mb_table *const *tabs, const char *const *paths,
                            size_t n_paths, const double *thresholds, size_t n_thr, size_t smooth,
                            mb_fit_runs *runs, mb_error *err);

/* Keeps only the runs trained with learning rate `lr` (to 1e-9 relative), in their order.
 * MB_ENODATA naming the rates there are when none was. */
int mb_fit_runs_keep_lr(mb_fit_runs *runs, double lr, mb_error *err);

/* Keeps the runs whose curves cross every threshold (a calibration run that reached its lowest
 * level), except that an M where at most half the runs did keeps none of them (its survivors
 * would be its lucky seeds): the others leave, in their order, as "M=16 seed 0, ..." into left
 * (cut to size). Returns how many left. */
size_t mb_fit_runs_keep_crossed(mb_fit_runs *r, char *left, size_t size);
/* Keeps only the runs of algorithm `algo` (NULL: any) with `procs` learners (NAN: any), in
 * their order. MB_ENODATA naming the (algo, P) there are when none was. */
int mb_fit_runs_keep_group(mb_fit_runs *runs, const char *algo, double procs, mb_error *err);

/* Run i's value of the setting `key` (one of mb_fit_setting_keys) as its log wrote it, "" when
 * it does not say (or the runs are of a points file). */
const char *mb_fit_runs_setting(const mb_fit_runs *runs, size_t i, const char *key);

/* Runs fitted together were trained alike: every setting of mb_fit_setting_keys (only `only`'s
 * when not NULL) that two runs' logs both state is the same (equal as written, or as numbers).
 * MB_EINVAL naming both files (paths[runs->file[i]]), the field and both values (campaign 21,
 * N3: one law was fitted over runs of two data sets, momenta, ...). Without `only`, their
 * learning rates too (where stated), each in its shortest exact decimal (campaign 29's B9:
 * "different learning rates (0.05 and 0.05)" named no file). */
int mb_fit_runs_same_settings(const mb_fit_runs *runs, const char *const *paths,
                              const char *only, mb_error *err);

/* The same check between two sets of runs: every run of `runs` (paths) states each setting
 * (only `only`'s when not NULL; never those of `skip`, space-separated keys or NULL) as the
 * first run of `ref` (ref_paths) that states
 * it; ref == runs checks the runs among themselves. MB_EINVAL naming both files, the field and
 * both values, then `why`. mbopt applies it to the runs it grades and settles a fit with and to
 * the held-out runs against those (campaign 31's N2), skipping eval_frac (make run's held-out and
 * P = 2 runs evaluate on another fraction than its calibration runs). */
int mb_fit_runs_trained_as(const mb_fit_runs *runs, const char *const *paths,
                           const mb_fit_runs *ref, const char *const *ref_paths,
                           const char *only, const char *skip, const char *why, mb_error *err);

/* Every threshold lies below each run's first judged loss: a run already at or under a level at
 * its first evaluation crossed it at some unknown update before, and its "crossing" there is
 * only where it was first evaluated (campaign 21, N15). MB_EINVAL naming the level, the file
 * (paths[runs->file[i]]) and its first evaluation. */
int mb_fit_runs_start_above(const mb_fit_runs *runs, const char *const *paths, mb_error *err);

/* Reads a points file: columns batch,n_update and an optional seed, no other (MB_EFORMAT naming
 * the column); each row is one run. */
int mb_fit_runs_read_points(const char *path, mb_fit_runs *runs, mb_error *err);
/* The same from a table already read (its path names it in messages). */
int mb_fit_runs_points_table(const mb_table *t, mb_fit_runs *runs, mb_error *err);
void mb_fit_runs_free(mb_fit_runs *runs);

/* How each mini-batch size's point is weighted. */
typedef enum mb_fit_weighting {
    MB_FIT_W_NONE = 0,     /* sigma_i = 1 */
    MB_FIT_W_RELATIVE = 1, /* sigma_i = the observed value (N spans decades) */
    MB_FIT_W_SEEDS = 2,    /* sigma_i = the standard error over seeds at that M (needs >= 2) */
    MB_FIT_W_POOLED = 3    /* the standard error at that M with its relative spread (sd / mean)
                              shrunk toward that of all M (empirical Bayes, 4 degrees of freedom
                              of prior): an M with more runs counts for more, and three runs
                              that happen to agree do not dominate */
} mb_fit_weighting;
const char *mb_fit_weighting_name(mb_fit_weighting w);
int mb_fit_weighting_parse(const char *s, mb_fit_weighting *w);

/* The runs at one M. */
typedef struct mb_fit_group {
    double batch;     /* M */
    size_t runs;      /* runs at this M */
    size_t reached;   /* of which reached the threshold */
    size_t diverged;  /* of which diverged */
    double mean;      /* mean N over the runs that reached it */
    double sd;        /* sample standard deviation (NAN with one run) */
    double se;        /* sd / sqrt(reached) */
} mb_fit_group;

/* How mbfit nupdate names the law mbopt optimises. INVERSE: the inverse law (Perrone et al.;
 * McCandlish et al.'s S_min (1 + B_noise / M)) whenever it fits with N_inf > 0, the power law
 * by AIC only when it does not: on held-out runs of five workloads the inverse law predicted
 * N_update as well as or better than the power law AIC chose in every one (docs/results.md,
 * "Which law"). SHIFTED (the default): as INVERSE, then the shifted inverse law N_inf + alpha /
 * (M - M_0) where its AIC is lower than the inverse law's by more than 2: the inverse law with
 * a pole, for runs whose small M need more updates than 1 / M says (docs/models.md). AIC: the
 * law of least AIC, when lower than the inverse law's by more than 2. */
typedef enum { MB_FIT_CHOOSE_INVERSE, MB_FIT_CHOOSE_AIC, MB_FIT_CHOOSE_SHIFTED } mb_fit_choice;
int mb_fit_choice_parse(const char *s, mb_fit_choice *out);
const char *mb_fit_choice_name(mb_fit_choice c);

/* The fewest bootstrap resamples a percentile 95% interval is drawn from: one in each 2.5%
 * tail (1 / 0.025). `--bootstrap` is 0 (none) or at least this; a fit of fewer resamples than
 * this that succeeded has no interval (NAN: `-` in text, null in JSON), never [0, 0]. */
#define MB_FIT_BOOT_MIN 40

typedef struct mb_fit_nupdate_options {
    mb_fit_weighting weights; /* default MB_FIT_W_RELATIVE */
    size_t bootstrap;         /* resamples, 0 = none */
    unsigned long seed;       /* bootstrap generator seed */
    mb_fit_choice choose;     /* which law 'best' names; default MB_FIT_CHOOSE_SHIFTED */
} mb_fit_nupdate_options;
void mb_fit_nupdate_options_init(mb_fit_nupdate_options *o);

typedef struct mb_fit_nupdate {
    double threshold;        /* eps (NAN for a points file) */
    size_t n_groups;
    mb_fit_group *groups;    /* ascending M, owned */
    size_t runs, unreached;  /* all runs, and those that never reached eps */
    mb_fit_result inverse;   /* params n_inf, alpha */
    mb_fit_result power;     /* n_inf, a, b: N = n_inf + a M^-b (needs >= 4 M) */
    mb_fit_result shifted;   /* n_inf, alpha, m_0: N = n_inf + alpha / (M - m_0) (>= 4 M) */
    mb_fit_result mccandlish;/* s_min, b_noise: S = s_min (1 + b_noise / M) */
    int have_power, have_shifted, have_mccandlish;
    const char *aic_best;    /* "inverse-law", "power-law" or "shifted-law": the least AIC */
    const char *best;        /* the law mbopt should optimise, by the options' rule (choose):
                                with AIC, the power law only when its AIC is lower by more than
                                2 (Burnham & Anderson's threshold for a real difference); why
                                says why */
    char why[240];
    double range_lo, range_hi; /* the converged range: least and largest M at which a majority
                                  of runs reached eps and none diverged; NAN when none */
    double diverged_max;     /* the largest M with a diverged run, NAN when none */
    double lr;               /* the runs' common learning rate, NAN when unknown */
    char algo[32];           /* the runs' common algorithm, "" when unknown */
    double procs;            /* their common learner count P */
    double b_simple;         /* median B_simple over the runs that logged one, NAN if none: a
                                second, cheaper estimate of alpha / N_inf (docs/models.md,
                                "Inverse law") */
    size_t b_simple_runs;    /* how many logged one */
    double b_noise;          /* the inverse law's alpha / N_inf (McCandlish et al.'s B_noise),
                                NAN unless N_inf > 0 */
    double b_ratio;          /* their agreement, b_simple / b_noise (NAN without both) */
    size_t boot_b, boot_ok;  /* resamples asked and fitted */
    double boot_lo[2], boot_hi[2]; /* percentile 95% intervals of n_inf, alpha (NAN with fewer
                                      than MB_FIT_BOOT_MIN fitted) */
    size_t boot_n_best;      /* resamples the best law was fitted to */
    double *boot_best;       /* boot_n_best x 3: n_inf, a (alpha), b (1 for the inverse law;
                                m_0 for the shifted law) of the best law per resample: the spread of the answer that mbopt
                                turns into a spread of M_opt */
    size_t boot_n_seed;      /* resamples of whole seeds the best law was fitted to (0 when a
                                run's seed is unknown or fewer than MB_FIT_BOOT_SEEDS_MIN seeds) */
    size_t boot_seeds;       /* the distinct seeds they were drawn from */
    double *boot_seed;       /* boot_n_seed x 3, as boot_best, each a resample of seeds that
                                takes every run of a drawn seed at every M: the sweep trains its
                                seeds at every M, and a seed's luck (its data order, its
                                initialisation) moves all of them alike, which resampling each
                                M's runs on its own leaves out. The spread of the predicted
                                T_C's level (docs/models.md, "Seeds shared across M") */
    mb_fit_warnings warn;
} mb_fit_nupdate;

/* The fewest distinct seeds the seed resamples draw from. */
#define MB_FIT_BOOT_SEEDS_MIN 3

/* Fits threshold `k` of `runs`. MB_ENODATA (message names eps) when no run reached eps or fewer
 * than two M remain. Free with mb_fit_nupdate_free, also after an error. */
int mb_fit_nupdate_run(const mb_fit_runs *runs, size_t k, const mb_fit_nupdate_options *opts,
                       mb_fit_nupdate *out, mb_error *err);
void mb_fit_nupdate_free(mb_fit_nupdate *f);
/* The most seeds an nfit's `inputs.seeds` lists (mbopt reads at most these). */
#define MB_FIT_SEEDS_MAX 1024
/* Adds `seeds` to an nfit's `inputs` object: the distinct seeds of the runs fitted, rising, so
 * that mbopt validate refuses a held-out run on any of them even when that seed's logs are not
 * given to it (campaign 31's N3). Left out when a run's seed is not known or more than
 * MB_FIT_SEEDS_MAX differ. */
void mb_fit_runs_seeds_json(cJSON *inputs, const mb_fit_runs *runs);
/* The JSON object of a fit; with `runs` (may be NULL) it also lists every run's own N_update at
 * threshold k as `points` (null where the run never reached it). */
cJSON *mb_fit_nupdate_json(const mb_fit_nupdate *f, const mb_fit_nupdate_options *opts,
                           const mb_fit_runs *runs, size_t k);

/* ---- N_update below the calibration's target (fit/levels.c) ----------------------------------- */

/* The law across target levels (docs/models.md, "N_update below the calibration's target"),
 * with x = L / L1 for the lowest calibration level L1:
 *   SEPARABLE  N(M, L) = (A + B / M) x^-p
 *   NOISE      N(M, L) = A x^-p + B x^-q / M  (B_noise = alpha / N_inf may change with L)
 *   PER_LEVEL  the noise form fitted in two stages: the inverse law per level, then ln N_inf and
 *              ln alpha each linear in ln x
 *   FLOOR      N(M, L) = (A + B / M) ((L - L_f) / (L1 - L_f))^-p, L1 - L_f = e^u fitted
 *   SHIFTED    N(M, L) = A x^-p + B x^-q / (M - M_0), one pole M_0 at every level: the law at
 *              the target is the shifted inverse law (docs/models.md, "Shifted inverse law")
 *   AUTO       SEPARABLE or SHIFTED, by AIC (mb_fit_levels_run says which and why); never the
 *              form of a fit */
typedef enum mb_fit_levels_form {
    MB_FIT_LEVELS_SEPARABLE = 0,
    MB_FIT_LEVELS_NOISE = 1,
    MB_FIT_LEVELS_PER_LEVEL = 2,
    MB_FIT_LEVELS_FLOOR = 3,
    MB_FIT_LEVELS_SHIFTED = 4,
    MB_FIT_LEVELS_AUTO = 5
} mb_fit_levels_form;
const char *mb_fit_levels_form_name(mb_fit_levels_form f);
int mb_fit_levels_form_parse(const char *s, mb_fit_levels_form *f); /* MB_EINVAL: unknown */
#define MB_FIT_LEVELS_FORM_NAMES "auto, separable, noise, per-level, floor or shifted"

#define MB_FIT_LEVELS_MIN 3 /* levels the law across levels needs, at the least */
#define MB_FIT_LEVELS_CAP 32 /* --levels: at most this many (an nfit with more is refused) */
#define MB_FIT_LEVELS_SHIFTED_MIN_M 3 /* distinct M the shifted form needs, at the least */

typedef struct mb_fit_levels_options {
    mb_fit_levels_form form;  /* default MB_FIT_LEVELS_AUTO */
    size_t bootstrap;         /* resamples of the runs for the 95% interval (default 200; 0 none) */
    unsigned long seed;       /* the bootstrap's generator seed (default 1) */
} mb_fit_levels_options;
void mb_fit_levels_options_init(mb_fit_levels_options *o);

typedef struct mb_fit_levels {
    double target;            /* L2, the final target loss */
    double l1;                /* the lowest calibration level */
    size_t n_levels;
    double *levels;           /* n_levels calibration levels, in the runs' threshold order */
    size_t n_m;
    double *batch;            /* n_m distinct M, ascending */
    size_t *runs_at;          /* n_m: runs at each M */
    double *mean;             /* n_m x n_levels: mean first crossing (updates) over the runs */
    mb_fit_result *per_level; /* n_levels inverse-law fits N_inf + alpha / M, one per level */
    mb_fit_levels_form asked; /* the form asked for (AUTO by default) */
    mb_fit_levels_form form;  /* the form fitted: never AUTO */
    char why[320];            /* why that form (AUTO: the two AICs and the rule) */
    double aic_separable, aic_shifted; /* AUTO: the two forms' AICs (NAN: not fitted) */
    mb_fit_result joint;      /* the form's parameters: n_inf_l1 (A), alpha_l1 (B), p, and q
                                 (noise, per-level, shifted) or ln_gap (floor: ln(L1 - L_f)),
                                 and m_0 (shifted: samples) */
    double floor;             /* L_f of the floor form, NAN otherwise */
    double n_inf, alpha;      /* the law at the target: inverse, or shifted with m_0 */
    double m_0;               /* the shifted form's pole M_0 (samples); 0 for the other forms */
    double inv_n_inf, inv_alpha; /* the inverse law at the target: n_inf and alpha, or for the
                                 shifted form the inverse law fitted (relative weights) to its
                                 predictions at the calibration M */
    double *pred, *lo, *hi;   /* n_m: N_update(M, target) and its 95% bootstrap interval (NAN
                                 without a bootstrap) */
    double n_inf_lo, n_inf_hi, alpha_lo, alpha_hi, m_0_lo, m_0_hi; /* 95% bootstrap intervals */
    size_t boot_b, boot_ok;   /* resamples asked and fitted */
    double *boot;             /* boot_ok x 3: n_inf, alpha, m_0 at the target per resample */
    mb_fit_warnings warn;
    double lr, procs;         /* the runs' learning rate and learner count (NAN when unknown) */
    char algo[32];            /* and algorithm ("" when unknown): mbopt matches fits to runs */
    char net[64];             /* the runs' `# net=` and `# data=` ("" when unknown): mbopt */
    char data[MB_FIT_SETTING_LEN]; /* refuses fits and runs of two workloads */
} mb_fit_levels;

/* Fits the law across levels to runs read at its levels (runs->thresholds, at least
 * MB_FIT_LEVELS_MIN, every one above target) and predicts the law in M at `target` (the
 * inverse law; the shifted law for the shifted form). paths (may be NULL) name the runs in
 * messages. MB_EINVAL: a target at or above the lowest level, or runs of several learning rates
 * or (algo, P); MB_ENODATA: a run that does not cross every level, fewer than two M (three for
 * the shifted form), a law that does not support the prediction (N not growing as the loss
 * falls, the target at or under the floor, a pole not in [0, least M), a 95% interval wider
 * than the estimate);
 * MB_ENOCONV: the fit did not converge. Free with mb_fit_levels_free, also after an error. */
int mb_fit_levels_run(const mb_fit_runs *runs, const char *const *paths, double target,
                      const mb_fit_levels_options *o, mb_fit_levels *f, mb_error *err);
void mb_fit_levels_free(mb_fit_levels *f);
/* An nfit (docs/design.md, "Fits") of the law at the target, as mbopt reads it: params (the
 * inverse law), best (the inverse law, or the shifted law for the shifted form), laws,
 * converged_range, bootstrap.best_samples, and `extrapolated` (levels, l1, form, fit,
 * per_level, per_m with predicted and ci95). NULL when out of memory. */
cJSON *mb_fit_levels_json(const mb_fit_levels *f, const mb_fit_levels_options *o);

/* ---- T_update(M, P) --------------------------------------------------------------------------- */

typedef struct mb_fit_tupdate {
    double learners;       /* P of these rows */
    size_t n_points;
    double *m;             /* n_points: M / P, samples per learner, ascending */
    double *t;             /* n_points: t_median_s */
    mb_fit_result knee;    /* gamma, m_t, delta of gamma max(M/P, M_T) + delta */
    double knee_lo, knee_hi; /* the measured M/P values the knee lies between */
    int have_overlap;
    mb_fit_result overlap; /* g of (t_compute^g + t_comm^g)^(1/g) (columns t_compute_s, t_comm_s) */
    mb_fit_warnings warn;
    char net[64];          /* the table's `net` column, "" when it has none */
    char data[MB_FIT_SETTING_LEN]; /* the table's data set (mb_format_data_set), "" when none */
    char backend[16];      /* the table's `backend` column, "" when it has none */
    char device[MB_FIT_DEVICE_LEN]; /* the table's `device` column, "" when it has none */
    double threads[16];    /* the thread counts of the table's rows of these learners */
    size_t n_threads;      /* 0: no `threads` column (or more than 16 counts) */
    /* After mb_fit_tupdate_calibrate (n_run_points 0: not calibrated): */
    size_t n_run_points;   /* the distinct M/P that training runs of `learners` measured */
    double *run_m, *run_t; /* those M/P, ascending, and the lower quartile of their runs'
                              s/update (MB_FIT_RUN_QUANTILE) */
    size_t *run_n;         /* the runs behind each */
    double *run_q;         /* the lower quartiles as measured, before run_t weighed each against
                              its neighbours' (mb_fit_tupdate_calibrate) */
    double run_sd;         /* the run-to-run sd of ln(seconds per update) at one M, pooled
                              (NAN: no M with two runs) */
    double *run_probe;     /* the probe's own time at each of those M */
    size_t n_probe;        /* the probe's own points, as measured, which m and t replaced */
    double *probe_m, *probe_t;
    double scale_below, scale_above; /* the factors the probe's points below / above the runs'
                                        M were scaled by to meet them */
} mb_fit_tupdate;

/* Fits the knee model to (m[i], t[i]) with the given weighting (NONE or RELATIVE). Exact search
 * over the intervals between measured m, then GSL refinement. MB_ENODATA with fewer than three
 * distinct m. */
int mb_fit_knee(size_t n, const double *m, const double *t, mb_fit_weighting w,
                mb_fit_tupdate *out, mb_error *err);

/* The rows of a step probe table as mb_fit_tupdate_table takes them (mbplot step refuses what
 * mbfit refuses): batch and learners whole counts, times in (0, 1e9] s (t_median_s from 1 ns:
 * mb_fit_probe_time) and in order (t_min_s
 * <= ... <= t_max_s), threads and reps whole, each (batch, learners, threads) once, one net,
 * one backend and one device, the probe's columns as mb_fit_probe_row_check has them, at most
 * MB_FIT_STEP_ROWS_MAX rows. MB_EFORMAT naming path:line and field otherwise. */
/* MB_EFORMAT naming the file and the first column of t's header not among known[0..n), as
 * "column 'x' is not WHAT: a misspelt or renamed column?": a misspelt column would be taken
 * for absent and its checks dropped (campaign 40: step tables; campaign 41's F2: comm). */
int mb_fit_table_columns(const mb_table *t, const char *const *known, size_t n,
                         const char *what, mb_error *err);
int mb_fit_step_table_check(const mb_table *t, mb_error *err);

/* The most rows a step table holds: the knee search fits a line per measured size, so its time
 * grows with the square of the rows (25,000 rows took minutes: campaign 29's B1). A probe's
 * table has tens to a few hundred; more is refused before any work. */
#define MB_FIT_STEP_ROWS_MAX 2000

/* The columns every probe table (step, comm) writes beside its times, where the table has them
 * and the cell is not empty: wide 0 or 1, stop one of the probe's stop rules (ci, budget,
 * max-reps), drift a number >= 0 (tupdate.c). MB_EFORMAT naming path:line and field. */
int mb_fit_probe_row_check(const mb_table *t, size_t r, mb_error *err);

/* A probe table's fitted time, row r's column c (t_median_s of a step or collective table):
 * a number in [0, MB_FIT_MAX_SECONDS] (0 left to the caller's "must be > 0"), and a positive one
 * at least MB_FIT_MIN_SECONDS (1 ns: no clock times a step or a collective faster, and the
 * relative weight 1/t^2 of 1e-200 s overflows, so that the fit failed in GSL's words, naming no
 * row: campaign 38's F2, F3). MB_EFORMAT naming path:line and field. */
int mb_fit_probe_time(const mb_table *t, size_t r, size_t c, double *v, mb_error *err);

/* Reads a step probe table and fits each learner count (ascending P). threads > 0: only the
 * rows of that many threads (MB_EINVAL when there are none); 0: every row, and a learner count
 * timed at several thread counts is MB_EINVAL naming the line (one knee is one machine setting).
 * *out is an owned array of *n_out fits: free with mb_fit_tupdate_free_all. */
int mb_fit_tupdate_table(const char *path, mb_fit_weighting w, double threads,
                         mb_fit_tupdate **out, size_t *n_out, mb_error *err);
void mb_fit_tupdate_free_all(mb_fit_tupdate *f, size_t n);

/* Which quantile of the runs' seconds per update at one M calibrates T_update there. Not the
 * median: on a shared machine other tenants slow some runs by up to 2x in phases of seconds, and
 * a median of 3-7 runs lands in whichever phase most of them met, so neighbouring M disagree by
 * more than their real cost does. The lower quartile is what an update costs when the machine
 * is steady; on a quiet machine it is within a few percent of the median (docs/results.md,
 * "Steady T_update"). */
#define MB_FIT_RUN_QUANTILE 0.25

/* Calibrates the fit of f->learners learners by training runs of that many (mbtrain logs,
 * mb_fit_runs_read_logs): the time per update a run really costs (its training seconds over its
 * updates: batch drawing, the optimiser, everything mbtrain does, evaluation excluded), measured
 * over thousands of updates and interleaved in time with the other M, is better evidence of
 * T_update than a probe of a few seconds. So at every M the runs trained, the point becomes the
 * lower quartile of their seconds per update (MB_FIT_RUN_QUANTILE); the probe's points below and above the runs' M are scaled
 * to meet them (the probe gives the shape where no run went), and the knee is refitted. The
 * probe's own points are kept (probe_m, probe_t) so that its error stays reported. Points are
 * per learner (M/P); at P > 1 a run's seconds per update hold the communication too. Uses the
 * runs of f->learners learners; MB_ENODATA when none has a training time; MB_EINVAL naming the
 * log (paths[i]; may be NULL) for a run of another net than the table's, or one of another
 * algorithm than the first. */
int mb_fit_tupdate_calibrate(mb_fit_tupdate *f, const mb_fit_runs *runs,
                             const char *const *paths, mb_fit_weighting w, mb_error *err);
/* Frees what one fit owns (m, t, results); for a struct filled by mb_fit_knee. */
void mb_fit_tupdate_clear(mb_fit_tupdate *f);
cJSON *mb_fit_tupdate_json(const mb_fit_tupdate *f, size_t n, const char *path,
                           mb_fit_weighting w);

/* One group's spread of ln x about its mean, for a spread pooled over groups: the values that are
 * finite and > 0 (an unreached run's +inf is not one) add their squared deviations to *ss and
 * their count less one to *dof; a group of fewer than two adds nothing. The pooled sd is
 * sqrt(ss / dof) (fit/spread.c). */
void mb_fit_log_spread_add(const double *x, size_t n, double *ss, double *dof);

/* ---- collectives ------------------------------------------------------------------------------ */

typedef struct mb_fit_comm_one {
    char op[32];
    double procs;
    mb_fit_result fit;      /* a_s, b_s_per_byte of t = a + b bytes, both >= 0 */
    double a_free, b_free;  /* the unconstrained estimates (show when a bound was active) */
} mb_fit_comm_one;

typedef struct mb_fit_comm {
    size_t n_fits;
    mb_fit_comm_one *fits;  /* per (op, procs), owned */
    mb_fit_result ring;     /* latency_s, s_per_byte pooled over allreduce rows with procs >= 2 */
    double ring_free[2];    /* unconstrained ring estimates */
    mb_fit_warnings warn;
} mb_fit_comm;

/* The rows of a collective table as mb_fit_comm_table takes them (mbplot comm refuses what
 * mbfit refuses): an op mbprobe comm times, procs in [2, MB_FIT_MAX_PROCS] and bytes whole (a
 * multiple of 4: float32
 * data), reps whole >= 1, times in (0, 1e9] s (t_median_s from 1 ns: mb_fit_probe_time) and in
 * order (t_rank_min_s <= t_rank_max_s too),
 * alg_bw_Bps bytes / t_median_s to 1%, the probe's columns as mb_fit_probe_row_check has them,
 * each (op, procs, bytes) once. MB_EFORMAT naming path:line and
 * field otherwise. */
int mb_fit_comm_table_check(const mb_table *t, mb_error *err);

int mb_fit_comm_table(const char *path, mb_fit_weighting w, mb_fit_comm *out, mb_error *err);
/* The same of a table already read (mbplot comm --cfit refits the table it draws). */
int mb_fit_comm_of_table(const mb_table *t, mb_fit_weighting w, mb_fit_comm *out,
                         mb_error *err);
void mb_fit_comm_free(mb_fit_comm *c);
cJSON *mb_fit_comm_json(const mb_fit_comm *c, const char *path, mb_fit_weighting w);

/* Non-negative linear fit of y ~ X b (k columns) through mb_fit_nlinear: an unconstrained fit
 * first (b_free), then, while some coefficient is negative, that coefficient held at 0.
 * Warns naming `what` and the column names. Used by the collective fits. */
int mb_fit_nonneg_linear(const char *name, const char *const *names, size_t n, size_t k,
                         const double *X, const double *y, const double *sigma, double *b_free,
                         mb_fit_result *res, mb_fit_warnings *warn, const char *what,
                         mb_error *err);

#endif /* MB_FIT_H */
