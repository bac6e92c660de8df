/* mb_solver.h — recommendations built on the models: scaling tables over learner counts, and the
 * model parameters they need, read from mbfit's JSON fits.
 *
 * The formulas themselves live in model/ (mb_model.h); this module evaluates them over many
 * learner counts, compares scaling schemes, picks the best configuration, and reads the files
 * that carry fitted parameters. It does no printing: mbopt (solver/mbopt.c) does that.
 */
#ifndef MB_SOLVER_H
#define MB_SOLVER_H

#include <stddef.h>

#include "../fit/mb_fit.h"
#include "../model/mb_model.h"

struct mb_net_desc; /* net/mb_net.h */

/* ---- fitted parameters from files ----------------------------------------------------------- */

#define MB_SOLVER_BOOT_MAX 256 /* bootstrap resamples of the law read from an nfit (the first) */

/* What `mbfit nupdate --json` says about N_update(M), as mbopt uses it. */
typedef struct mb_solver_nfit {
    mb_law law;           /* the law to optimise: mbfit's `best` (or the one asked for) */
    mb_law inverse;       /* the inverse law (top-level params), for the closed forms */
    char why[240];        /* why this law: mbfit's reason, or "asked for with --law" */
    double m_lo, m_hi;    /* the converged range: least and largest M whose runs reached the
                             target (converged_range); NAN when the file has none */
    double m_diverged;    /* the largest M at which a run diverged; NAN when none did */
    double target_loss;   /* the runs' target loss; NAN when not known */
    double lr;            /* the runs' learning rate; NAN when not known or mixed */
    char algo[32];        /* the runs' algorithm (`algo`), "" when not known */
    double procs;         /* the runs' learner count (`procs`), NAN when not known */
    char net[64];         /* the runs' network (`net`), "" when the file does not say */
    char data[MB_FIT_SETTING_LEN]; /* and their data set (`data`), "" when it does not say */
    int extrapolated;     /* the law was extrapolated below its runs' level (an `extrapolated`
                             object: mbfit nupdate --extrapolate) */
    size_t n_boot;        /* `law` refitted to bootstrap resamples of the runs (mbfit
                             --bootstrap), 0 when the file has none or they are of another law */
    mb_law boot[MB_SOLVER_BOOT_MAX];
    size_t n_boot_seed;   /* `law` refitted to resamples of whole seeds (bootstrap.
                             best_samples_by_seed), 0 when none: the spread of T_C's level */
    mb_law boot_seed[MB_SOLVER_BOOT_MAX];
    size_t boot_seeds;    /* the distinct seeds those were drawn from (bootstrap.seeds), 0 when
                             the file does not say */
    size_t n_fit_seeds;   /* the seeds of the runs it was fitted on (inputs.seeds), 0 in files
                             from before that list */
    double fit_seeds[MB_FIT_SEEDS_MAX];
} mb_solver_nfit;

/* Reads an mbfit nupdate JSON: the inverse law from params.n_inf and params.alpha (docs/design.md,
 * "Fits"), the law named by `best` ({model, params, why}) or, when `law` is "inverse-law",
 * "power-law" or "shifted-law", that one from `laws`; and converged_range, diverged_max_batch, target_loss, lr.
 * A file from before `best` existed gives the inverse law. MB_EIO / MB_EFORMAT with the file and
 * the missing or bad key in err. */
int mb_solver_read_nfit(const char *path, const char *law, mb_solver_nfit *nf, mb_error *err);
/* The same from a root already read (path names it in messages): for a reader that has the file
 * open already and must not read it twice (a FIFO). */
int mb_solver_parse_nfit(const cJSON *root, const char *path, const char *law, mb_solver_nfit *nf,
                         mb_error *err);

/* Reads params.gamma and params.m_t, and a communication delta when the file gives one
 * (*has_delta = 1), into *t; from a one-learner fit also t0 (its intercept) and the measured
 * step table (`points`), which T_update then follows (model/: the table beats the closed form). Leaves t->comm and the collective parameters alone.
 * The delta: mbfit tupdate fits gamma max(M/P, M_T) + delta per learner count, so with
 * "learners": 1 at the top level, params.delta is a per-update intercept of one learner, not
 * communication (Delta(1) = 0). The communication delta is then the intercept at the smallest
 * learner count P > 1 in `by_learners` less the one at P = 1 (0 if negative), and there is none
 * when the file has no P > 1. A file without "learners" gives params.delta as the delta. */
int mb_solver_read_tfit(const char *path, mb_update_time *t, int *has_delta, mb_error *err);

/* The checks every reader of a fit JSON (mbopt's, mbplot's) makes of its copies of one law: an
 * nfit's top-level params against 'best' (when the inverse law) and laws.inverse-law; a tfit's
 * 'learners' whole >= 1, its params.delta (required beside 'learners', as in each by_learners
 * entry), by_learners an array of objects with learners >= 1, and its params against
 * by_learners' entry for that count. MB_EFORMAT
 * naming the field ("params.alpha") when they disagree; MB_OK for other models. */
int mb_solver_fit_agrees(const cJSON *root, const char *path, mb_error *err);

/* What runs did to a tfit (mbfit tupdate STEP.csv LOG...: its `calibration` and
 * `probe_points`): on = 0 for a fit of the probe alone. */
typedef struct mb_solver_tcal {
    int on;
    double runs;                     /* run logs behind the points */
    double m_lo, m_hi;               /* the M they trained, where the points are theirs */
    double scale_below, scale_above; /* what the probe's points beyond were scaled by */
    size_t n_probe;                  /* the probe's own points */
    double probe_m[MB_MODEL_TABLE_MAX], probe_t[MB_MODEL_TABLE_MAX];
    /* the probe's own step of P learners side by side, for each P of the model's by_p (in its
     * order), where runs of P learners calibrated that table */
    size_t n_probe_by_p;
    mb_step_table probe_by_p[MB_MODEL_PTABLES];
    char net[64];                    /* the tfit's `net` (the step table's) and `data` (its */
    char data[MB_FIT_SETTING_LEN];   /* calibration runs'), "" where it does not say: read with
                                        or without a calibration */
} mb_solver_tcal;

/* Reads a tfit's calibration (absent: c->on = 0), and its `net` and `data`. MB_EFORMAT naming
 * the bad field. */
int mb_solver_read_tcal(const char *path, mb_solver_tcal *c, mb_error *err);

/* Both from one read of the file (a FIFO or pipe can be read only once). */
int mb_solver_read_tfit_cal(const char *path, mb_update_time *t, int *has_delta,
                            mb_solver_tcal *c, mb_error *err);

/* *probe = *t with the probe's own step table in place of the calibrated one: T_update as the
 * probe alone would have it, for validate to report. */
void mb_solver_tcal_probe(const mb_solver_tcal *c, const mb_update_time *t,
                          mb_update_time *probe);

/* Reads params.latency_s and params.s_per_byte of an alpha-beta collective fit into *t. */
int mb_solver_read_cfit(const char *path, mb_update_time *t, mb_error *err);
/* The same of a fit already read (its root; path for messages): a file read once (a pipe). */
int mb_solver_parse_cfit(const cJSON *root, const char *path, mb_update_time *t,
                         mb_error *err);

/* scale.json's recommendation, `enough` or `best` (key), as mbplot report and mbopt validate
 * --recommend read it: one of its own rows (`rows`, an array), whose procs (whole >= 1) it names
 * and whose m_opt (> 0, at most 2^53), t_c, speedup, efficiency and regime it repeats, with a
 * mini-batch of at least one sample a learner (its m_run, or m_opt rounded, >= procs), T_C > 0,
 * efficiency = speedup / procs (1 at P = 1) and a regime mbopt names. MB_EFORMAT naming the
 * field (scale_check.c). Campaign 11's N11: an edited file recommended P = 99 learners, none
 * of its rows. */
int mb_solver_check_choice(const cJSON *scale, const char *key, const char *path, mb_error *err);

/* The end of the note mbopt scale writes on a row it may not recommend (a P > 1 whose runs
 * trained no M in its range): scale.json's readers tell such rows by it. */
#define MB_SOLVER_NOT_RECOMMENDED "not recommended"

/* Whether scale.json's `key` (enough or best; its own fields checked by mb_solver_check_choice,
 * which calls this) is the recommendation its rows give: every row's m_opt in its m_lo..m_hi,
 * the choice's m_run mb_solver_m_whole(m_opt, procs), its procs at most procs_available, and
 * the row mb_solver_best_row (best) or mb_solver_enough_row (enough, with the file's
 * enough_slack) picks among the rows it may recommend (scale_check.c). MB_EFORMAT naming the
 * field (campaign 31's N5). */
int mb_solver_check_scale_choice(const cJSON *scale, const char *key, const char *path,
                                 mb_error *err);

/* scale.json as every reader of it checks it (mbplot report, mbopt validate --recommend, the
 * figures mbplot tc, scale and amdahl draw from it; campaign 32's P3, P4: one reader took what
 * another refused): its format, a rows array, the top-level values (lr > 0, target_loss,
 * procs_available whole in [1, 2^53], enough_slack >= 0, each or null; flat's ranges in order)
 * and `enough` and `best` (mb_solver_check_choice). MB_EFORMAT naming the field
 * (scale_check.c). */
int mb_solver_check_scale(const cJSON *scale, const char *path, mb_error *err);

/* Reads the `model` object that `mbopt scale --json` writes (law, n_inf, a, b or alpha, gamma,
 * m_t, t0, comm and its parameters, m_lo, m_hi) back into the model structs; `path` is for
 * messages. range (may be NULL) gets [m_lo, m_hi], [NAN, NAN] when absent. */
int mb_solver_read_model(const cJSON *model, const char *path, mb_law *law, mb_update_time *t,
                         double range[2], mb_error *err);

/* ---- the optimum over M for any law (solver/optimum.c) -------------------------------------- */

/* Where an optimum lies relative to the range it was sought in. */
typedef enum mb_bound {
    MB_BOUND_NONE = 0, /* inside the range (or at the knee M_T P) */
    MB_BOUND_LOW = 1,  /* held at the range's low end: the model wants a smaller M */
    MB_BOUND_HIGH = 2  /* held at the range's high end: the model wants a larger M */
} mb_bound;
const char *mb_solver_bound_name(mb_bound b); /* "none", "low", "high" */

typedef struct mb_solver_optimum_result {
    mb_optimum opt;  /* m_opt, t_c, n_update, t_update; regime: single/knee at M_T P, else
                        balance (an interior optimum above the knee) */
    mb_bound bound;  /* whether the range held the optimum back */
} mb_solver_optimum_result;

/* Minimises T_C(M, P) = N_update(M) T_update(M, P) over M in [m_lo, m_hi] (m_hi may be +inf:
 * extrapolation) for any law, numerically (scan, then Brent on dT_C/dM = 0 with GSL). For the
 * inverse law inside the range it equals mb_model_optimum to about 1e-12. MB_EDOM naming the
 * range and P when T_C cannot be evaluated there. */
int mb_solver_optimum(const mb_law *law, const mb_update_time *t, double p, double m_lo,
                      double m_hi, mb_solver_optimum_result *out, mb_error *err);

/* How certain the optimum is: M_opt at P for each of the n bootstrap laws (inside [m_lo, m_hi]),
 * and its 10th and 90th percentiles in q (NAN, NAN with fewer than 10 that solve). Returns how
 * many solved. */
size_t mb_solver_optimum_spread(const mb_law *boot, size_t n, const mb_update_time *t, double p,
                                double m_lo, double m_hi, double q[2]);

/* M rounded to what P learners can train: a whole number of samples each, P round(M / P), at
 * least P (an optimum of M = 19 at P = 2 is run as 20: 9.5 samples a learner cannot be), and at
 * most 2^53, the largest count (P floor(2^53 / P) where rounding up would pass it: an optimum
 * held at the search's end, 2^53, at P = 7). */
double mb_solver_m_whole(double m, double p);

/* How far T_C's level may be off: T_C(m, p) under each of the n laws refitted to resamples of
 * whole seeds (mb_solver_nfit.boot_seed), and its MB_SOLVER_TC_LEVEL percentile interval in ci
 * (NAN, NAN with fewer than MB_SOLVER_TC_MIN that give a T_C). Returns how many did. Drawn from
 * `seeds` distinct seeds (0: not known), the percentile interval is too narrow for few seeds (a
 * resample of n seeds spreads by sqrt((n-1)/n) of the seeds' own spread, and the tails of a
 * mean of n are Student's t's with n-1 degrees, not the normal's): it is widened about its
 * median, in log T_C, by mb_solver_tc_widening(seeds). */
#define MB_SOLVER_TC_LEVEL 0.95
#define MB_SOLVER_TC_MIN 40 /* one in each 2.5% tail of 40 */
size_t mb_solver_tc_interval(const mb_law *boot, size_t n, size_t seeds,
                             const mb_update_time *t, double m, double p, double ci[2]);
/* sqrt(n / (n - 1)) t_{n-1} / z at MB_SOLVER_TC_LEVEL: 2.69 for 3 seeds, 1.58 for 5, 1.22 for
 * 10, toward 1; 1 for n < 2 (not known). */
double mb_solver_tc_widening(size_t seeds);

/* ---- scaling tables ------------------------------------------------------------------------- */

typedef struct mb_scale_options {
    double m_strong; /* total mini-batch held fixed under strong scaling; 0: M_opt(1) */
    double m_weak;   /* mini-batch per learner held fixed under weak scaling; 0: M_T, or m_lo
                        where the law has no value at M_T (below the shifted law's M_0) */
    double m_lo;     /* the range of total M the optimum is sought in (the converged range of */
    double m_hi;     /*   the runs); 0 and INFINITY (or 0, 0) for no bound: extrapolation */
    int beyond_runs; /* 1: at a P > 1 whose step table is its own runs' (mb_step_table.runs > 0),
                        search [m_lo, m_hi] whole; 0: only the M those runs trained, where their
                        step was measured (outside it the step is the probe's, scaled) */
    double budget;   /* the training seconds the job may take (0: none): which fewest P meets
                        it, mb_solver_budget_row; the table itself does not depend on it */
} mb_scale_options;

/* One learner count of a scaling table. Times in seconds; a value that does not apply (strong
 * scaling with fewer samples than learners) is NAN, and the printers show it as such. */
typedef struct mb_scale_row {
    double procs;          /* P */
    mb_optimum opt;        /* optimal scaling: M re-optimised for this P inside [m_lo, m_hi]
                              (Perrone eq. 9-10 for the inverse law, numerical for any law) */
    mb_bound bound;        /* whether the range held that M back */
    double m_lo, m_hi;     /* the range of total M searched at this P */
    int runs_held;         /* 1: bound is an end of the M that P learners' own runs trained */
    int runs_outside;      /* 1: P > 1 learners' own runs trained no M in the range searched:
                              the step there is extrapolated; never the best or enough row */
    double t_c_strong;     /* T_C(m_strong, P) */
    double t_c_weak;       /* T_C(m_weak P, P) */
    double speedup_opt;    /* T_C of the scheme at P = 1 over T_C at this P */
    double speedup_strong;
    double speedup_weak;
    double eff_opt;        /* speed-up / P */
    double eff_strong;
    double eff_weak;
} mb_scale_row;

/* Fills rows[i] for each procs[i] (each >= 1, whole or not). The strong and weak mini-batches
 * are resolved into *opts (0 replaced by M_T). Speed-ups are against each scheme's own P = 1.
 * MB_EDOM (with a message naming the parameter) when the model cannot be evaluated. */
int mb_solver_scale(const mb_law *law, const mb_update_time *t, mb_scale_options *opts,
                    const double *procs, size_t n, mb_scale_row *rows, mb_error *err);

/* The index of the row with the least optimal-scaling T_C (the first of equals) among the rows
 * with at most p_max learners (INFINITY: all) and not runs_outside; the first row when none. */
size_t mb_solver_best_row(const mb_scale_row *rows, size_t n, double p_max);

/* The index of the row with the fewest learners whose optimal-scaling T_C is within `slack`
 * (0.1 = 10%) of the least, among the rows mb_solver_best_row may pick: most of the gain for
 * the least hardware. */
size_t mb_solver_enough_row(const mb_scale_row *rows, size_t n, double slack, double p_max);

/* A budget of training seconds (mbopt scale --budget): the index of the row with the fewest
 * learners whose optimal-scaling T_C is at most `seconds`, among the rows mb_solver_best_row may
 * pick; n when none is. */
size_t mb_solver_budget_row(const mb_scale_row *rows, size_t n, double seconds, double p_max);

/* Checks that the law and update-time model can be evaluated, naming the first bad parameter
 * (e.g. "n_inf must be > 0, got -3") in err. The inverse law needs n_inf > 0 and alpha >= 0 (its
 * closed forms do); the power law needs b > 0 and a finite n_inf and a; the shifted law alpha
 * >= 0 and m_0 >= 0. */
int mb_solver_check_models(const mb_law *law, const mb_update_time *t, mb_error *err);

/* mb_solver_check_models for values read from the file `path`, whose keys sit under `where`
 * ("model."): MB_EFORMAT with "PATH: field 'model.n_inf': must be > 0, got -1". */
int mb_solver_check_models_in(const mb_law *law, const mb_update_time *t, const char *path,
                              const char *where, mb_error *err);

/* Adds the law's parameters to `o` by the names mbfit's JSON uses (n_inf, alpha or a, b or m_0:
 * model/'s mb_model_law_params), as scale.json's model and validate.json's law carry them. */
void mb_solver_law_json(cJSON *o, const mb_law *law);

/* ---- validation: predictions against run logs (solver/validate.c) -------------------------- */

/* One (algorithm, P, M, learning rate) that has runs. Times in seconds. */
typedef struct mb_validate_row {
    char algo[32];
    double procs, batch, lr;  /* lr NAN when the logs do not say */
    size_t runs, reached, diverged;
    double n_median;          /* median first-crossing update of the runs that reached it */
    double t_median;          /* median training time to the target (wall_s at the crossing) */
    double t_min, t_max;      /* its spread */
    double *t_runs;           /* `reached` times, ascending, owned */
    double *s_runs;           /* `reached` steady times, ascending, owned: each run's updates to
                                 the target at the model's seconds per update (t_update_pred),
                                 the run's own time without the machine's slow phases; NAN
                                 without a model */
    double s_median;          /* their median: n_median * t_update_pred */
    double *seed, *t_seed;    /* every run's seed and training time (+inf unreached), in log
                                 order (`runs` each, owned): the held-out check pairs by seed */
    double *n_seed;           /* and its updates to the target (NAN unreached), beside them in
                                 seed's allocation: settling pairs by seed (NULL: not known) */
    double t_update_run;      /* median seconds per update of the runs (wall_s / updates) */
    double n_pred;            /* N_update(M) of the law */
    double t_update_pred;     /* T_update(M, P) of the model */
    double t_pred;            /* T_C = n_pred * t_update_pred */
    double rel_err;           /* (t_pred - t_median) / t_median; NAN when nothing reached it */
    double t_update_rel_err;  /* (t_update_pred - t_update_run) / t_update_run */
    /* the same with the probe's own T_update, when the model's is calibrated by runs (else NAN) */
    double t_update_probe, t_update_probe_rel_err, t_pred_probe, rel_err_probe;
    int candidate;            /* the model cannot tell it from its optimum (mb_validate.settled) */
    double s_net;             /* its runs' steady time net of their seeds' shared effects,
                                 t_pred exp(b) (mb_solver_settle; NAN where not weighed) */
    double s_shrunk;          /* the steady time weighed against the model by their uncertainties
                                 (mb_solver_settle; NAN where not weighed): what settling
                                 compares */
} mb_validate_row;

typedef struct mb_validate {
    char net[64];             /* the network every log trains */
    double target;            /* the target loss */
    size_t n_rows;
    mb_validate_row *rows;    /* by algorithm, lr, P, M; owned */
    long best;                /* the measured best row (least t_median among rows where most
                                 runs reached the target and none diverged), -1 when none */
    double m_rec, p_rec;      /* the recommendation checked */
    double lr_rec;            /* its learning rate, NAN when not known */
    long rec;                 /* the row that trained it: the trained M (same P and lr) nearest
                                 to m_rec among those that stand for it (mb_solver_stands_for),
                                 -1 when none does */
    double ratio;             /* rows[rec].t_median / rows[best].t_median, NAN without both */
    /* What the runs settled on (mb_solver_settle; -1 until then or when no row is a
     * candidate), the band it used and that row's ratio to the measured best. */
    long settled;
    double band;
    double settled_ratio;     /* rows[settled].t_median / rows[best].t_median */
    int overruled;            /* settled is outside the band: the runs overruled the model */
    long paired;              /* the weighing's pick that settled beat seed by seed (-1: none) */
    double paired_ratio;      /* settled's steady time over it, a mean over shared seeds */
    double paired_hi;         /* that ratio's one-sided upper bound (MB_SOLVER_PAIRED_Z) */
    size_t paired_seeds;      /* the seeds both trained */
    double sd_seed;           /* the seed-to-seed sd of ln N_update at one M, pooled over the
                                 rows that settling weighs, net of the part a seed keeps across
                                 M (NAN: none with two runs) */
    double sd_shared;         /* that part: the sd of a seed's own effect on ln N_update, the
                                 same at every M it trained (0: none beyond the noise) */
    double sd_model;          /* the model's own sd of ln N_update beyond that noise (0: the
                                 runs' medians are within their noise of the law) */
    double median_abs_err;    /* median |rel_err| over the rows with a measurement at the
                                 recommended P */
    size_t n_err;             /* those rows */
    double median_abs_tu_err; /* median |t_update_rel_err| over the same rows */
    double median_abs_err_probe, median_abs_tu_err_probe; /* the same with the probe's T_update
                                 (NAN without one) */
} mb_validate;

/* A trained M stands for the recommended one when the model predicts it within this fraction of
 * the optimum's T_C: T_C is flat near its minimum, so chasing the optimum to the last sample
 * (35 after 36 after 34) would train forever for differences no run can resolve. */
#define MB_SOLVER_EQUIV 0.01

/* 1 when T_C(m_run) <= (1 + MB_SOLVER_EQUIV) T_C(m_rec) at P = p under `law`, else 0. */
int mb_solver_stands_for(const mb_law *law, const mb_update_time *t, double m_run, double m_rec,
                         double p);

/* Delta(P) as the runs at P > 1 measured it: for the runs at P = *p (NAN on entry: the smallest
 * P > 1 among `runs`), the median over them of their seconds per update less the one-learner
 * step at M / P (T_update of `t` without its communication term). It holds everything P
 * learners cost beyond that step: the collective, the waiting, fewer threads per learner. *p
 * gets that P, *n the runs used. MB_ENODATA when no run at that P has seconds per update. */
int mb_solver_comm_from_runs(const mb_update_time *t, const mb_fit_runs *runs, double *delta,
                             double *p, size_t *n, mb_error *err);

/* The mini-batch sizes that would check the recommendation m_rec (at P = p_rec, learning rate
 * lr_rec, NAN when not known) and have no run yet: round(m_rec) and on either side the spread
 * of M_opt (spread[0], spread[1]: mb_solver_optimum_spread's percentiles) where it lies more than
 * 1.25x away, else m_rec / 1.5 and m_rec * 1.5 (spread NULL or NAN: those), inside
 * [m_lo, m_hi], in that order, into want; returns how many. A run
 * stands for the recommendation when mb_solver_stands_for says so, and for a neighbour when its M
 * is within 10% of it. */
size_t mb_solver_missing(const mb_law *law, const mb_update_time *t, const mb_fit_runs *runs,
                         double m_rec, double p_rec, double lr_rec, double m_lo, double m_hi,
                         const double spread[2], double want[3]);

/* Compares the model with `runs` (read with one threshold, the target) group by group, and
 * checks the recommendation (m_rec at p_rec, learning rate lr_rec). The law of a group is the
 * one of laws[0..n_laws) fitted at its learning rate lrs[k] (with one law of unknown rate: that
 * one); a group with no law of its rate gets no prediction. `paths` (NULL allowed) names each
 * run's log in messages. t_probe (NULL: none): the probe's own T_update when `t` is calibrated
 * by runs, reported beside it. MB_EINVAL when the logs train different networks or stopped at another target;
 * MB_ENODATA when there are no runs or none within a factor of 2 of m_rec at p_rec (the message
 * says which M to train). Free with mb_validate_free, also after an error. */
int mb_solver_validate(const mb_law *laws, const double *lrs, size_t n_laws,
                       const mb_update_time *t, const mb_update_time *t_probe,
                       const mb_fit_runs *runs, const char *const *paths,
                       double m_rec, double p_rec, double lr_rec, mb_validate *out, mb_error *err);
void mb_validate_free(mb_validate *v);

/* A row's steady time to the target: its runs' median updates at the model's seconds per update
 * (s_median), else its median wall time (t_median) where the model gives no T_update. What the
 * runs measure that the model can get wrong is N_update; their wall time also carries the
 * machine's phases (other tenants slow whole runs by up to 2x), which are not a property of M,
 * so choices among measured settings compare steady times (docs/design.md, "Steady times"). */
double mb_solver_steady(const mb_validate_row *r);

/* The runs settle what the model cannot tell apart. The candidates (rows[].candidate) are the
 * rows at v->p_rec, of any learning rate with a law, with M in [m_lo, m_hi] (the range the
 * optimum was sought in), most runs reaching the target and none diverging, that the model
 * predicts within v->band of its optimum's T_C (at v->m_rec): band is the model's own median
 * |error| on these runs (v->median_abs_err), at least MB_SOLVER_EQUIV.
 *
 * A candidate's measured median is the least of several noisy medians when it wins, so it is
 * lucky (the winner's curse: held out, the answer's median came out a median 7% slower than
 * in-sample, its rivals' 2.5%; docs/design.md, "Settling near ties"). Each row's runs are
 * therefore weighed against the model by their uncertainties before rows are compared
 * (rows[].s_shrunk, empirical Bayes in ln N_update, solver/settle.c). A run's residual
 * ln(N_run / n_pred) is its M's effect, plus its seed's (a seed that is slow at one M is slow at
 * the others: the same initial weights and sample order), plus noise; the seed effects are
 * random (sd v->sd_shared), the noise's sd is v->sd_seed, both estimated from the runs, so M
 * that trained the same seeds are compared paired. The model's own error beyond that noise,
 * sd_model^2, is what the M effects hold beyond their uncertainty (method of moments, at least
 * 0). A row then counts for t_pred exp(w b), b its M effect, w = sd_model^2 / (sd_model^2 +
 * b's variance): a well-fitted law leaves its own ordering, a law that misses by more than the
 * noise leaves the runs'. v->settled gets the candidate least by s_shrunk (-1: none),
 * v->settled_ratio its wall time over the measured best's (in-sample). The runs overrule the
 * band (v->overruled) where a row outside it, of the same P and rate, in range, with
 * MB_SOLVER_OVERRULE_RUNS or more runs, has an s_shrunk below (1 - band) times the candidates'
 * best: it is then v->settled. */
#define MB_SOLVER_OVERRULE_RUNS 5
#define MB_SOLVER_PAIRED_MIN 5    /* seeds two candidates share before their pairing decides */
#define MB_SOLVER_PAIRED_Z 1.645  /* one-sided 95%: the pairing's ratio below 1 by this many
                                     standard errors */
/* What settling compares for row r: s_shrunk, else the steady time (mb_solver_steady). */
double mb_solver_settle_time(const mb_validate_row *r);
void mb_solver_settle(const mb_law *laws, const double *lrs, size_t n_laws,
                      const mb_update_time *t, double m_lo, double m_hi, mb_validate *v);

/* Whether two learning rates are one (to 1e-9 relative); a rate not known (NAN) matches any. */
int mb_solver_same_rate(double a, double b);

/* The law of a learning rate: the one fit whose lr it is (any, for one fit of unknown lr or runs
 * of unknown lr), NULL when no fit was made at that rate. */
const mb_law *mb_solver_law_for(const mb_law *laws, const double *lrs, size_t n, double lr);

/* The row that trained the recommendation: the one the runs settled on, else the one that
 * stands for the model's optimum (-1: none). */
long mb_solver_pick(const mb_validate *v);

/* Whether v's runs only calibrated the law: none reached v's target (a target below them, the law
 * extrapolated to it: mbfit nupdate --extrapolate), so nothing in-sample can settle or stand for
 * the recommendation, and the held-out check centres on the model's optimum, round(m_rec). */
int mb_solver_calibration_only(const mb_validate *v);

/* ---- the held-out check and sequential sampling (solver/holdout.c) ------------------------ */

#define MB_SOLVER_FLAT 0.05       /* the flat range: M within 5% of the best T_C */
#define MB_HOLDOUT_SEED0 1000     /* held-out seeds are drawn from here up, skipping used ones */
#define MB_HOLDOUT_SEED0_MAX 1000000000UL /* the largest first held-out seed (mbtrain: 2^40) */
#define MB_HOLDOUT_MIN_SEEDS 3
#define MB_HOLDOUT_MAX_SEEDS 64
#define MB_HOLDOUT_MAX_SETTINGS 7
/* The held-out sweep's step: its neighbours at M / 1.22 and M * 1.22, and each step past an edge */
#define MB_HOLDOUT_STEP 1.22
#define MB_HOLDOUT_M_MAX 1073741824.0 /* the largest M a plan holds: mbtrain --batch takes 2^30 */
#define MB_HOLDOUT_MAX_ROWS 64
#define MB_HOLDOUT_LEVEL 0.95     /* the held-out ratio's interval */
#define MB_SEQUENTIAL_LEVEL 0.90  /* a setting's median interval while choosing */

/* What a held-out sweep trains: the recommendation, its rivals and neighbours (batch, with why
 * each: "recommended", "in-sample best", "model's optimum", "neighbour"), at P p and learning
 * rate lr, on n_seeds fresh seeds. */
typedef struct mb_holdout_plan {
    double p, lr;
    size_t n_batch;
    double batch[MB_HOLDOUT_MAX_SETTINGS];
    char why[MB_HOLDOUT_MAX_SETTINGS][24];
    size_t n_seeds;
    unsigned long seeds[MB_HOLDOUT_MAX_SEEDS];
} mb_holdout_plan;

/* The plan for the recommendation of v (after mb_solver_settle: mb_solver_pick's row, or
 * round(v->m_rec) where mb_solver_calibration_only), the
 * in-sample best at its P and rate, the model's optimum v->m_rec, and M / MB_HOLDOUT_STEP,
 * M * MB_HOLDOUT_STEP around the recommendation (the sweep goes on past an edge best:
 * mb_solver_holdout_beyond), each rounded and at least 1 away from M, inside [m_lo, m_hi], none within
 * 10% of one before it; seeds from seed0 (MB_HOLDOUT_SEED0 or above: a second check of the
 * same runs from another seed0 is an independent sample of the held-out side) up that no run of
 * `runs` (the logs that fitted and chose) used and that `skip` (n_skip: the seeds the fits
 * record, inputs.seeds) does not hold. MB_EINVAL for n_seeds outside
 * [MB_HOLDOUT_MIN_SEEDS, MB_HOLDOUT_MAX_SEEDS] or seed0 outside [MB_HOLDOUT_SEED0,
 * MB_HOLDOUT_SEED0_MAX], MB_ENODATA when v has no recommendation with runs. */
int mb_solver_holdout_plan(const mb_validate *v, const mb_fit_runs *runs, const double *skip,
                           size_t n_skip, double m_lo, double m_hi, size_t n_seeds,
                           unsigned long seed0, mb_holdout_plan *plan, mb_error *err);

typedef enum mb_holdout_verdict {
    MB_HOLDOUT_TIED = 0, /* the rival interval holds 1 */
    MB_HOLDOUT_AHEAD,    /* the recommendation beats every rival: the interval is below 1 */
    MB_HOLDOUT_BEHIND    /* a rival beats it: the interval is above 1 */
} mb_holdout_verdict;
const char *mb_solver_holdout_verdict_name(mb_holdout_verdict v); /* "tied", "ahead", "behind" */

/* The held-out check, from h: mb_solver_validate of the held-out runs alone. Rows of h at P p
 * and rate lr take part; a run that did not reach the target counts as infinitely slow. */
typedef struct mb_holdout {
    long rec, best, rival;      /* rows of h: the recommendation, the held-out best, and the best
                                   of the others */
    double ratio;               /* median(rec) / median(best), >= 1 */
    double ratio_ci[2];         /* its MB_HOLDOUT_LEVEL bootstrap interval over seeds */
    int paired;                 /* the bootstrap drew seeds, pairing the settings' runs */
    double rival_ratio;         /* median(rec) / median(rival): < 1 when it beats them all */
    double rival_ci[2];
    mb_holdout_verdict verdict; /* from rival_ci */
    double median_abs_err;      /* median |error| of predicted T_C over the held-out rows */
    double err_ci[2];           /* its MB_HOLDOUT_LEVEL bootstrap interval over the held-out
                                   seeds: how far the held-out medians' own seed-to-seed spread
                                   moves it with the prediction fixed (NAN without errors) */
    double median_abs_n_err;    /* ... of predicted N_update against the runs' median updates */
    double median_abs_tu_err;   /* ... of T_update against the runs' seconds per update: where
                                   it is large, the machine ran at another speed than during the
                                   runs that calibrated T_update */
    int tu_side;                /* -1: at every graded setting (3 or more) the held-out runs took
                                   longer an update than T_update, +1: less, 0: mixed or fewer:
                                   a side shared by every M is a level (the machine's speed
                                   during the check, or T_update's calibration) that moves T_C
                                   and not the choice (docs/results.md) */
    double tu_level;            /* where tu_side is not 0: the median over the graded settings of
                                   the runs' seconds per update over the model's (> 1: the
                                   machine slower during the check); NAN otherwise */
    double median_abs_err_level; /* median |error| of T_C with the model's T_update times
                                   tu_level: the error left once the level is divided out (the
                                   model's N_update and shape); NAN where tu_level is */
    size_t n_err;
    double flat_lo, flat_hi;    /* least and largest held-out M within MB_SOLVER_FLAT of the best
                                   median (NAN when nothing reached the target) */
    size_t seeds_lo, seeds_hi;  /* fewest and most runs of a setting */
} mb_holdout;

/* n_boot resamples (at least 100) of every setting's runs give the intervals. MB_ENODATA when
 * no held-out row trained round(m_pick) or no rival did. */
int mb_solver_holdout(const mb_validate *h, double m_pick, double p, double lr, size_t n_boot,
                      mb_holdout *out, mb_error *err);

/* The same for a recommendation at P p > 1 (M m_pick, a whole number a learner): its held-out
 * runs against one learner's held-out settings at rate lr, paired by seed (the question a P > 1
 * answer makes: do p learners beat the best one learner can do?). best and rival are
 * one-learner rows unless the recommendation is itself the best; the flat range is one
 * learner's (flat_lo > flat_hi when no one-learner setting is within MB_SOLVER_FLAT). */
int mb_solver_holdout_across(const mb_validate *h, double m_pick, double p, double lr,
                             size_t n_boot, mb_holdout *out, mb_error *err);

/* The machine's speed during the held-out check against its speed while the runs that fitted
 * and chose trained: some of those runs trained again, bit for bit the same computation on the
 * CPU (make run's holdout stage interleaves them among the held-out runs), each against its
 * first run. A level of the machine measured apart from the held-out runs' own times: what the
 * model's T_update, calibrated earlier, could not know. */
typedef struct mb_machine_speed {
    size_t n;          /* repeats, each paired with its first run */
    double ratio;      /* the median over them of seconds per update, again / first: > 1, the
                          machine slower during the check */
    double ci[2];      /* its MB_HOLDOUT_LEVEL bootstrap interval over the repeats */
    double m_lo, m_hi; /* the least and largest M repeated */
} mb_machine_speed;

/* Pairs every run of `again` (paths) with the one run of `first` of its M, seed, learners,
 * rate, net and algorithm (first_paths names them); MB_EINVAL naming the file when a repeat has no such run, or
 * more than one, or either has no seconds per update. n_boot resamples (at least 100). */
int mb_solver_machine_speed(const mb_fit_runs *first, const char *const *first_paths,
                            const mb_fit_runs *again, const char *const *paths, size_t n_boot,
                            mb_machine_speed *out, mb_error *err);

/* T_C's median |error| over h's settings at P p and rate lr that a check grades, with the
 * model's T_update times `speed` (a machine_speed ratio): the model's error at the speed the
 * machine ran during the check. NAN where no setting is graded. */
double mb_solver_holdout_err_at(const mb_validate *h, double p, double lr, double speed);

/* The held-out sweep's edge: when o's best (h's row, at P p and rate lr) is the least M the
 * held-out runs trained, round(M / MB_HOLDOUT_STEP); when it is the largest,
 * round(M * MB_HOLDOUT_STEP) (each at least 1 away from M); inside
 * [m_lo, m_hi] (NAN bounds: none). NAN when the best is inside the sweep, reached nothing, or
 * the step leaves the range: a check's "best held-out M" should have neighbours on both sides. */
double mb_solver_holdout_beyond(const mb_validate *h, const mb_holdout *o, double p, double lr,
                                double m_lo, double m_hi);

/* The leader's neighbours that no run has trained: round(M * 1.5) and round(M / 1.5) for the
 * leader row `leader` of v (mb_sequential's), inside [m_lo, m_hi] (NAN: no bound) and with no
 * row at its P and rate within 10%, into out; how many (0 when leader < 0). A sweep on a grid of
 * powers of 2 leaves the best M between two trained ones unseen; sampling seeds among trained
 * settings cannot find it, so these train first (MB_SEQUENTIAL_FILL_SEEDS runs each). */
#define MB_SEQUENTIAL_FILL_SEEDS 3
#define MB_SEQUENTIAL_WANT 2 /* rivals that get a seed a round: the leader's nearest */
size_t mb_solver_fill(const mb_validate *v, long leader, double m_lo, double m_hi, double out[2]);

/* Sequential sampling while choosing: among v's rows at P p, rate lr and M in [m_lo, m_hi], the
 * leader (least median) and the settings whose median's MB_SEQUENTIAL_LEVEL bootstrap interval
 * reaches the leader's (overlap). Each interval is the wider of the percentile bootstrap's and
 * the median's normal-theory interval, z sqrt(pi / 2) sd / sqrt(n) in log time, with sd the
 * spread of log time pooled over every setting with two or more runs (pooled_sd): a few runs
 * that happen to agree do not make a narrow interval. A rival that trained
 * MB_SEQUENTIAL_PAIRED_MIN or more of the leader's seeds (rows with updates by seed, n_seed) is
 * judged seed by seed instead: it overlaps while the mean of its differences in log time from
 * the leader's runs of the same seeds is not above 0 by t sd / sqrt(n) (t at the upper end of a
 * two-sided MB_SEQUENTIAL_LEVEL interval), sd at least the differences' sd pooled over such
 * rivals (paired_sd; n_paired of them). The leader and the MB_SEQUENTIAL_WANT overlapping
 * settings of least median want one more seed each, unless they have max_seeds runs already. decided: nothing overlaps; capped: something does, but every one of
 * them has max_seeds runs. leader -1 when nothing reached the target. */
#define MB_SEQUENTIAL_PAIRED_MIN 4 /* the leader's seeds a rival trained before pairing judges it */
typedef struct mb_sequential {
    long leader;
    size_t n_overlap, n_want;
    long overlap[MB_HOLDOUT_MAX_ROWS], want[MB_HOLDOUT_MAX_ROWS + 1];
    int decided, capped;
    double pooled_sd; /* the pooled spread of log time (NAN: too few runs to pool) */
    size_t n_paired;  /* the rivals judged seed by seed against the leader */
    double paired_sd; /* the pooled sd of their differences in log time (NAN: none) */
} mb_sequential;
int mb_solver_sequential(const mb_validate *v, double p, double lr, double m_lo, double m_hi,
                         size_t max_seeds, mb_sequential *out, mb_error *err);

/* What a grid sweep would cost: T_C(m[k], p) under law and t into per_m[k] (n of them), and into
 * *total the training seconds of `seeds` runs at every M of the grid (evaluation not counted).
 * An M at or under a shifted law's pole never reaches the target: per_m NAN, counted in *never
 * and left out of *total (which then understates a real sweep). cap > 0 is make run's time cap
 * (RUN_TIME_CAP): a run at an M below the fastest M stops after cap x the least T_C and that
 * M's later seeds are not trained, so such an M (one that never reaches too) costs one capped
 * run in *capped_total, counted in *capped; cap 0: *capped_total = *total. MB_EDOM when T_C
 * cannot be evaluated at an M above the pole. */
int mb_solver_grid_cost(const mb_law *law, const mb_update_time *t, double p, const double *m,
                        size_t n, size_t seeds, double cap, double *per_m, double *total,
                        double *capped_total, size_t *never, size_t *capped, mb_error *err);

/* The high end of the M that mb_solver_optimum and mb_solver_flat_range search in [m_lo, m_hi]:
 * m_hi, or where it is +inf (no end: extrapolation) 2^53, the largest M a count holds, at every
 * P (a knee M_T P past it too). A flat range's upper end there is cut, not the model's. */
double mb_solver_search_hi(double m_lo, double m_hi);

/* The flat range: the least and largest M in [m_lo, m_hi] whose T_C(M, p) under law and t is
 * within `frac` of the optimum t_best (a scan on a log grid, 64 points per factor of 2, refined
 * by bisection to 0.1%). MB_EDOM when T_C cannot be evaluated. */
int mb_solver_flat_range(const mb_law *law, const mb_update_time *t, double p, double m_lo,
                         double m_hi, double t_best, double frac, double out[2], mb_error *err);

/* ---- memory and the convolution-algorithm ILP (solver/memory.c, solver/conv.c) -------------- */

/* A network description as the memory model's layers (model/ knows nothing of train/): one
 * mb_mem_layer per description layer into out (desc->n_layers entries), names pointing into
 * desc. Activations, dropout and softmax become MB_MEM_ELEMENTWISE. */
void mb_solver_mem_layers(const struct mb_net_desc *desc, mb_mem_layer *out);

/* How the chosen algorithms' workspaces share the device. */
typedef enum mb_ws_mode {
    MB_WS_SHARED = 0, /* one workspace buffer, reused by every layer and pass (layers run one
                         after another; Caffe, PyTorch and TensorFlow size one buffer for the
                         largest request): W = max over the choices */
    MB_WS_SUM = 1     /* each (layer, pass) keeps its own (Zou et al. 2017, eq. 6: the sum) */
} mb_ws_mode;
const char *mb_solver_ws_mode_name(mb_ws_mode m); /* "shared", "sum" */
int mb_solver_ws_mode_parse(const char *s, mb_ws_mode *m);

/* One candidate for one (layer, pass): an algorithm run on micro-batches of `micro` samples
 * (the whole mini-batch when micro = M; µ-cuDNN's split otherwise). */
typedef struct mb_cilp_choice {
    const char *algo;  /* the table's name, a string ("gemm", "CUDNN_..._FFT"); not owned */
    int micro;         /* samples per micro-batch */
    double t;          /* seconds for the whole mini-batch (M / micro runs) */
    double ws;         /* workspace bytes (of one micro-batch: they run in turn) */
} mb_cilp_choice;

/* A (layer, pass) and its candidates. */
typedef struct mb_cilp_slot {
    const char *layer, *pass; /* not owned */
    size_t n;
    const mb_cilp_choice *c;  /* n candidates, not owned */
} mb_cilp_slot;

/* One integer program: pick one candidate per slot, minimising the summed time, subject to the
 * workspace fitting in `avail` bytes (the memory the model leaves: Zou's M_bound) and no
 * candidate above ws_limit.
 *   shared: min sum t x  s.t. sum_c x_sc = 1,  W >= sum_c ws_c x_sc (every s),  W <= avail
 *   sum:    min sum t x  s.t. sum_c x_sc = 1,  sum_sc ws_c x_sc <= avail
 * x binary, W continuous. (Exactly one x_sc of a slot is 1, so sum_c ws_c x_sc is the chosen
 * workspace: one row per slot, tighter than one row per candidate.) */
typedef struct mb_cilp_problem {
    size_t n;                  /* slots */
    const mb_cilp_slot *slot;
    double avail;              /* bytes for workspace; may be negative (nothing fits) */
    double ws_limit;           /* per-candidate workspace limit, bytes; INFINITY for none */
    mb_ws_mode mode;
    double budget;             /* seconds GLPK may take; 0 or INFINITY: no limit */
} mb_cilp_problem;

typedef struct mb_cilp_result {
    int feasible;        /* 1 when a choice fits */
    double t;            /* summed time of the choice, seconds */
    double ws;           /* its workspace: max (shared) or sum (sum), bytes */
    long short_slot;     /* when infeasible: the slot whose least workspace fits worst (-1: the
                            model alone does not fit, avail < 0) */
    double short_bytes;  /* when infeasible: bytes missing */
    int limit_short;     /* when infeasible: 1 where short_slot has no candidate within ws_limit
                            but its least workspace fits avail (the limit, not memory, is short) */
    int out_of_time;     /* 1 when GLPK stopped at p->budget (the call's MB_ESOLVER) */
} mb_cilp_result;

/* Solves the program with GLPK's branch and cut (glp_intopt, presolve on, gap 0: proven
 * optimal), GLPK's terminal output off and its errors caught (MB_ESOLVER); a program not
 * proven optimal within p->budget seconds (when > 0) is MB_ESOLVER too (a choice not shown optimal is
 * not the program's answer). pick gets n
 * indices (the chosen candidate per slot) when feasible. MB_EINVAL for a slot without
 * candidates, a negative or non-finite time or workspace. */
int mb_solver_conv_ilp(const mb_cilp_problem *p, size_t *pick, mb_cilp_result *r,
                       mb_error *err);

/* A convolution table (mbprobe conv; docs/design.md, "Convolution table": layer, algo, pass,
 * batch, t_median_s, workspace_bytes), read: the rows whose `status` (when the column exists)
 * says the point ran (empty, measured, cached, ok), for the one backend asked for (when a
 * `backend` column exists). */
typedef struct mb_cilp_table mb_cilp_table;

/* Reads `path`. backend: the backend's rows to keep, NULL for the only one the table has
 * (MB_EFORMAT naming them when it has several). Negative or non-finite workspace or time, a
 * batch < 1, a duplicate point: MB_EFORMAT naming path:line and field. */
int mb_solver_conv_read(const char *path, const char *backend, mb_cilp_table **t,
                        mb_error *err);
void mb_solver_conv_free(mb_cilp_table *t);
/* The backend the table's rows are for ("" when it has no backend column). */
const char *mb_solver_conv_backend(const mb_cilp_table *t);

typedef struct mb_cilp_options {
    double device_bytes;  /* the device's memory */
    mb_ws_mode mode;      /* MB_WS_SHARED */
    double ws_limit;      /* per-layer workspace limit, bytes (INFINITY) */
    int micro;            /* 1: also split the mini-batch into micro-batches of the table's
                             batch sizes that divide M (µ-cuDNN); 0 (default): no */
    mb_mem_options mem;   /* the memory model (its gemm_workspace is ignored: the ILP adds
                             the chosen algorithms' workspace) */
    double budget;        /* seconds the programs of the whole sweep may take
                             (MB_CILP_BUDGET); past it the sweep is an MB_ESOLVER error */
} mb_cilp_options;
#define MB_CILP_BUDGET 60.0
void mb_solver_conv_defaults(mb_cilp_options *o);

/* The choice for one (layer, pass). */
typedef struct mb_cilp_pick {
    char layer[32];
    char pass[32];
    char algo[64];
    int micro;        /* samples per micro-batch (= M: not split) */
    double t;         /* seconds per update */
    double ws;        /* bytes */
} mb_cilp_pick;

/* The optimum at one M. */
typedef struct mb_cilp_point {
    double m;
    int feasible;
    double t_update;     /* seconds per update in the convolutions (the chosen times' sum) */
    double ws;           /* the choice's workspace, bytes */
    double model_bytes;  /* the memory model's bytes without workspace at M */
    double mem_used;     /* model_bytes + ws */
    double avail;        /* device - model_bytes: Zou's M_bound */
    double samples_per_s;/* m / t_update */
    char why[256];       /* infeasible: the layer (and pass) and the bytes short */
    int ws_limited;      /* infeasible through ws_limit alone: a layer's every algorithm needs
                            more workspace than it, though memory would hold the least */
    size_t n_picks;
    mb_cilp_pick *picks; /* n_picks, owned (freed by mb_solver_conv_results_free) */
} mb_cilp_point;

/* For every m[i]: the ILP over the convolution layers of `desc` with the table's times at that
 * batch. Errors (MB_EFORMAT / MB_ENODATA, one line): a convolution layer of desc with no rows in
 * the table, a (layer, pass) with no supported algorithm at M (or no batch for M), the model
 * not fitting in the device even at M = 1. An M whose model or workspace does not fit is a
 * result with feasible = 0 and `why`. res: nm entries, filled; free with
 * mb_solver_conv_results_free (also after an error). */
int mb_solver_conv_sweep(const struct mb_net_desc *desc, const mb_cilp_table *t,
                         const double *m, size_t nm, const mb_cilp_options *o,
                         mb_cilp_point *res, mb_error *err);
void mb_solver_conv_results_free(mb_cilp_point *res, size_t nm);

/* The convolution optimum combined with the convergence law: for each feasible result,
 * T_C = N_update(M) T_update(M) (tc[i], NAN where infeasible or the law undefined); best_tc and
 * best_rate get the index minimising T_C and the one maximising samples per second (-1 when
 * none). */
void mb_solver_conv_tc(const mb_law *law, const mb_cilp_point *res, size_t nm, double *tc,
                       long *best_tc, long *best_rate);

#endif /* MB_SOLVER_H */
