/* plot_impl.h — what the figures' readers in plots/ share and users of mb_plot.h do not see: the
 * check of one number in a JSON object that the validation figure introduced (validate.c) and
 * the convolution figure and the report's cross-check reuse (conv.c, match.c), and of one name
 * (mb_plot_name), so that every refusal reads alike: "FILE: field 'rows[2].batch': must be > 0,
 * got -32"; and the report's
 * check that a validation file is of its scale file's run (match.c); validate.json's summaries
 * held to its rows (holdout.c, insample.c).
 */
#ifndef MB_PLOT_IMPL_H
#define MB_PLOT_IMPL_H

#include <cjson/cJSON.h>

#include "../model/mb_model.h"

/* The most rows a scale or validation file holds (mbopt scale writes one a P, mbopt validate
 * one a setting run: tens); more is refused before any work, as the drawing grows with them
 * (gnuplot places each label by a walk of the earlier ones: 100,000 rows took minutes,
 * campaign 29's B1). */
#define MB_PLOT_ROWS_MAX 5000

/* What a field may hold (flags of mb_plot_field, or'ed). */
enum {
    F_REQUIRED = 1, /* absent is an error */
    F_NULL = 2,     /* null is allowed (read as NaN) */
    F_POS = 4,      /* must be > 0 */
    F_NONNEG = 8,   /* must be >= 0 */
    F_INT = 16      /* must be a whole number (at most 2^53) */
};

/* Reads object[key] into *v as the flags allow (NaN when absent or null and allowed); text, a
 * non-finite number or a value the flags exclude is MB_EFORMAT naming the file `path` and the
 * field as a path into the file, `where` + key ("rows[2]." + "batch"). */
int mb_plot_field(const cJSON *o, const char *where, const char *key, int flags, const char *path,
                  double *v, mb_error *err);

/* The held-out object `ho` of validate.json `root` (each field already in range: validate.c)
 * held to its own rows (holdout.c): its medians, best, rival, ratios, verdict, flat range, seeds,
 * errors, interval count and T_update level recomputed or checked; MB_EFORMAT naming the field
 * of `path` that the rows contradict. */
int mb_plot_holdout_agrees(const cJSON *root, const cJSON *ho, const char *path, mb_error *err);

/* Whether a written summary is the recomputed one: to a relative 1e-3 (a hand-written file's 4
 * significant digits, mbopt's 17), or 1e-4 apart (an error fraction near 0); NaN equals NaN and
 * an infinity itself only (holdout.c). */
int mb_plot_near(double a, double b);

/* The same for two times or ratios: a relative 1e-3, no absolute slack (holdout.c). */
int mb_plot_same_figure(double a, double b);

/* Whether a written figure `written` is `want` to the digits it was written with (mbopt writes
 * 17, a hand-written file fewer: 2.2 holds 2.249, not 2.25), or to mb_plot_same_figure's 1e-3
 * (holdout.c). */
int mb_plot_same_written(double written, double want);

/* The median of x[0..n) (sorted here), as gsl's: the mean of the middle two; NAN for n = 0
 * (holdout.c). */
double mb_plot_median(double *x, size_t n);

/* The longest held-out sentence: mbopt's (solver/mbopt_holdout.c, holdout_verdict) fits 2048. */
#define MB_PLOT_SENTENCE_MAX 2560

/* The check as one sentence, the report's headline, composed into buf (MB_PLOT_SENTENCE_MAX
 * holds it) from validate.json `root`'s held-out object and its rows, read and checked by
 * mb_plot_read_validate, as mbopt validate composes it (holdout.c): the file's own `verdict`
 * text is never printed (the reader holds it to this sentence, whole). No held-out object: the
 * sentence mbopt writes then. MB_OK, or MB_ENOMEM. */
int mb_plot_holdout_sentence(const cJSON *root, char *buf, size_t size);

/* The in-sample side of validate.json `root` held to its rows (insample.c): each row's rel_err
 * and t_update_rel_err against its own columns, measured_best the fastest row of those most of
 * whose runs reached the target and none diverged, recommended.t_train_median_s its batch_run
 * row's median, in_sample_ratio their ratio, median_abs_rel_err and t_update_median_abs_rel_err
 * the medians over the rows at the recommended P, and flat_pred holding the model's optimum.
 * Every field already in range (validate.c); MB_EFORMAT naming the field of `path` otherwise. */
int mb_plot_insample_agrees(const cJSON *root, const char *path, mb_error *err);

/* validate.json `root`'s law held to its own parameters and to its model object, and each point
 * of its predicted curve and each row (in-sample and held out) at the law's rate to that model,
 * t_pred_s = N_update(M) x T_update(M, P) to the digits written (mb_plot_same_written)
 * (lawcheck.c). MB_EFORMAT naming the field of `path` otherwise. */
int mb_plot_curve_agrees(const cJSON *root, const char *path, mb_error *err);

/* validate.json `val`'s law (law.model, law.params) one that nfit.json `nfit` fitted, with its
 * parameters, where both are of one rate (lawcheck.c). */
int mb_plot_validate_law_nfit(const cJSON *val, const char *vpath, const cJSON *nfit,
                              const char *npath, mb_error *err);

/* Reads object[key] (`where` + key, as mb_plot_field names it) into *v: a string that is not
 * empty and, with `nth` (the k-th known name from k = 0, NULL past the last: a names table the
 * code already has, such as net/conv.c's mb_conv_algo_nth), one of nth's names, which `what`
 * ("a CPU convolution algorithm") says. MB_EFORMAT naming the file and field otherwise:
 * "FILE: field 'batches[0].choice[1].algo': 'bogus' is not a CPU convolution algorithm (gemm,
 * direct, fft, winograd)". */
int mb_plot_name(const cJSON *o, const char *where, const char *key, const char *(*nth)(int),
                 const char *what, const char *path, const char **v, mb_error *err);

/* Reads object[key] (`where` + key) into *v (NULL when absent or null): text a figure puts
 * inside a quoted string of gnuplot's script (a title, a key entry, a label), so a string with
 * no quote (' or "), backslash or line break, any of which would end gnuplot's string and run
 * the rest as script (campaign 35's R1: `system` ran a shell command from a validation file).
 * MB_EFORMAT naming the file and field otherwise. mb_plot_name's names pass the same check;
 * every string from an input that reaches a script passes one of the two. */
int mb_plot_text(const cJSON *o, const char *where, const char *key, const char *path,
                 const char **v, mb_error *err);

/* Whether `val` (a validation file, read and checked by mb_plot_read_validate, at vpath) is the
 * check of the recommendation in `scale` (a scale file the report has checked, at spath): at
 * P > 1 of scale's answer, at P = 1 of its P = 1 row, with the same model and settled M where
 * both record them (match.c). MB_EFORMAT naming both files and the field that differs. */
int mb_plot_validate_matches(const cJSON *val, const char *vpath, const cJSON *scale,
                             const char *spath, mb_error *err);

/* Whether the fits the report shows beside `scale` (each NULL when absent; read and checked as
 * mbopt reads them) are those scale's model was computed from (campaign 21's N7: the page said
 * "target loss 0.4" of a T_C computed for 0.5): nfit's target, rate (scale's, or one it
 * weighed) and, at scale's rate, the law scale optimised with its parameters; tfit's gamma, M_T
 * and one learner's delta (scale's t0); cfit's latency and bandwidth where scale solved the
 * alpha-beta collective, and no cfit where it solved none. MB_EFORMAT naming both files and the
 * field that differs (match.c). */
int mb_plot_fits_match(const cJSON *scale, const char *spath, const cJSON *nfit,
                       const char *npath, const cJSON *tfit, const char *tpath,
                       const cJSON *cfit, const char *cpath, mb_error *err);

/* Whether a run log the report lists (read, `log`) is of scale's job: its `# lr=` scale's rate
 * or one it weighed, its `# algo=` the nfit's (nfit NULL: not compared). MB_EFORMAT naming the
 * log's line and the other file. */
struct mb_table;
int mb_plot_run_matches(const struct mb_table *log, const cJSON *scale, const char *spath,
                        const cJSON *nfit, const char *npath, mb_error *err);

/* The report's inputs are of one workload: one net and one data set across the files that say
 * (campaign 21's N7; 33's Q5: fits and runs of mnist drawn beside fashion-mnist ones). Zeroed
 * first; the first net and the first data set given (of `path`; NULL or empty: not said) are
 * kept in it, each later one must be the same. MB_EFORMAT naming both files. */
typedef struct mb_plot_workload {
    char net[128], net_path[4096];
    char data[128], data_path[4096];
} mb_plot_workload;
int mb_plot_same_workload(mb_plot_workload *w, const char *path, const char *net,
                          const char *data, mb_error *err);

/* Whether a tfit (mbfit tupdate --json, read: `tfit` at tpath) is a fit of the step table `tab`
 * (mbplot step --tfit, the report's step.csv and tfit.json): each of its points (`probe_points`
 * where runs calibrated it), [M/P, t_median_s] per learner count, is a row of the table.
 * MB_EFORMAT naming both files and the point (campaign 21's N9). */
int mb_plot_tfit_of_table(const cJSON *tfit, const char *tpath, const struct mb_table *tab,
                          mb_error *err);

/* Whether a cfit (mbfit comm --json at cpath, read) is the fit of the collective table `tab`
 * (read and checked): the table fitted again as mbfit comm does (its `inputs.weights`) gives the same
 * latency and bandwidth. A file without `inputs` (parameters by hand) is a model of no table,
 * drawn as given. MB_EFORMAT naming both files (campaign 21's N9). */
int mb_plot_cfit_of_table(const cJSON *cfit, const char *cpath, const struct mb_table *tab,
                          mb_error *err);

#endif /* MB_PLOT_IMPL_H */
