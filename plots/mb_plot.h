/* mb_plot.h — figures drawn by gnuplot from mbkit's CSV and JSON files, and the report.
 *
 * A figure is one gnuplot script: inline data blocks ($name << EOD ... EOD) followed by
 * commands. mb_plot collects both, refuses to draw a series that has no finite point (an empty
 * figure is an error, not a picture), runs gnuplot, and renames the finished image into place,
 * so a failed or interrupted run never leaves a half-written file. Each mb_plot_* figure
 * function reads the stage files itself, so users can plot their own recorded runs.
 */
#ifndef MB_PLOT_H
#define MB_PLOT_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "../model/mb_model.h"

typedef enum mb_plot_format {
    MB_PLOT_PNG = 0, /* pngcairo */
    MB_PLOT_SVG = 1
} mb_plot_format;

typedef struct mb_plot_options {
    mb_plot_format format; /* image format */
    int width, height;     /* pixels */
    const char *gnuplot;   /* the program to run */
} mb_plot_options;

/* Fills *o with the defaults: PNG, 900 x 600, "gnuplot". */
void mb_plot_options_init(mb_plot_options *o);

/* "png" or "svg" -> format; MB_EINVAL otherwise. */
int mb_plot_format_parse(const char *name, mb_plot_format *format);

/* ---- the figure builder ---------------------------------------------------------------------- */

typedef struct mb_plot mb_plot;

/* Starts a figure that will be written to out_path (any name: it is no part of the script). */
int mb_plot_begin(mb_plot **p, const mb_plot_options *o, const char *out_path, mb_error *err);

/* Names the input file the figure's data came from (not copied: it must outlive p), so that
 * "no finite data" names the input at fault rather than the figure being written. */
void mb_plot_input(mb_plot *p, const char *path);

/* Starts data block `name` (without the '$'); rows follow with mb_plot_row, one per line.
 * Blocks end at the next mb_plot_block or mb_plot_cmd. */
void mb_plot_block(mb_plot *p, const char *name);

/* Appends one data row of n numbers (non-finite values written as NaN, which gnuplot skips). */
void mb_plot_row(mb_plot *p, const double *v, int n);

/* The number of rows with every value finite in block `name` (0 for an unknown block). */
long mb_plot_block_points(const mb_plot *p, const char *name);

/* Appends a gnuplot command line (printf-style, newline added). */
void mb_plot_cmd(mb_plot *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Runs gnuplot on the script and renames the image into place. MB_ENODATA when `required`
 * (a NULL-terminated list of block names, or NULL) has a block without a finite point (the
 * message names the input of mb_plot_input, else the figure),
 * MB_EIO when gnuplot cannot run (the errno's reason in err) or fails (its first error line),
 * or its output does not begin as the format's image does. gnuplot runs with
 * --default-settings (no init file). Frees p. */
int mb_plot_finish(mb_plot *p, const char *const *required, mb_error *err);

/* Frees an unfinished figure. */
void mb_plot_abort(mb_plot *p);

/* ---- figures --------------------------------------------------------------------------------- */

/* T_C against P under optimal, strong and weak scaling, and the speed-ups, from the JSON of
 * `mbopt scale --json`. */
int mb_plot_scale(const char *scale_json, const char *out, const mb_plot_options *o,
                  mb_error *err);

/* T_C against M for several P (up to `max_curves` of the learner counts in the scale JSON,
 * spread over its range), each with its M_opt marked. */
int mb_plot_tc(const char *scale_json, int max_curves, const char *out,
               const mb_plot_options *o, mb_error *err);

/* N_update against M from `mbfit nupdate --json`: every run's own count, the mean per M, the
 * fitted inverse law and its 95% confidence band (from the fit's covariance, Student t). */
int mb_plot_nupdate(const char *nfit_json, const char *out, const mb_plot_options *o,
                    mb_error *err);

/* Amdahl speed-up against devices (1 .. max_gpus) for each overhead ratio, with the ideal line
 * (Zou et al. 2017, Lemma 3.1). */
int mb_plot_amdahl(const double *ratios, int n_ratios, double max_gpus, const char *out,
                   const mb_plot_options *o, mb_error *err);

/* T_update against M from a step probe table, one series per (learners, threads), with the
 * fitted model gamma max(M/P, M_T) + delta when tfit_json is not NULL. */
int mb_plot_step(const char *step_csv, const char *tfit_json, const char *out,
                 const mb_plot_options *o, mb_error *err);

/* Collective time against bytes per (op, procs) from a collective probe table, with the
 * alpha-beta fit when cfit_json is not NULL. */
int mb_plot_comm(const char *comm_csv, const char *cfit_json, const char *out,
                 const mb_plot_options *o, mb_error *err);

/* Reads the JSON of `mbopt validate --json` (predicted training time to the target against
 * measured runs) and checks it: 'rows' (each with batch > 0, procs, lr, runs, reached, and
 * t_train_median_s exactly when reached > 0), 'curve' (batch, t_pred_s), 'recommended' (batch;
 * t_train_median_s and batch_run when its 'measured' is true), 'verdict' and 'target_loss' are
 * required; measured_best, law, ratio, the error summaries, t_runs_s and every per-row time are
 * optional or null. No time or batch may be negative. On success *root is the parsed file,
 * owned by the caller (cJSON_Delete); otherwise *root is NULL and err names the file and the
 * field at fault as a path into it ("rows[2].t_train_median_s"): MB_EFORMAT, MB_ENODATA for an
 * empty 'rows', MB_EIO when it cannot be read. */
int mb_plot_read_validate(const char *path, cJSON **root, mb_error *err);

/* Training time to the target loss against M (log2) from `mbopt validate --json`: the
 * predicted T_C(M) curve (one per learning rate and learner count when the curve names them),
 * each run's measured time (faint), the median per M with bars from the fastest to the slowest
 * run, the prediction at each measured M, the measured best ringed, the recommended M as a
 * vertical line, and the M where no run reached the target as crosses along the floor
 * ("diverged" or "not reached"). */
int mb_plot_validate(const char *validate_json, const char *out, const mb_plot_options *o,
                     mb_error *err);

/* Time per update (and T_C when present) and memory used against M from `mbopt conv --json`,
 * with the M where the chosen convolution algorithms change marked and the number changed. */
int mb_plot_conv(const char *conv_json, const char *out, const mb_plot_options *o,
                 mb_error *err);

/* ---- the report ------------------------------------------------------------------------------ */

#define MB_PLOT_REPORT_MAX_MISSING 16

/* What mb_plot_report wrote and found missing. */
typedef struct mb_plot_report_info {
    char path[4096];  /* OUT/report.html ("" on error) */
    int figures;      /* figures drawn into OUT and embedded */
    int n_missing;    /* inputs of the folder contract that were not there */
    const char *missing[MB_PLOT_REPORT_MAX_MISSING];       /* their names relative to OUT
                                                              (static strings, "runs/" for the
                                                              run logs' folder, "runs/ *.csv"
                                                              when it is there but holds
                                                              none) */
    const char *missing_stage[MB_PLOT_REPORT_MAX_MISSING]; /* the stage that writes each */
} mb_plot_report_info;

/* Writes OUT/report.html (atomically): one self-contained page (inline CSS, figures as base64
 * data: URIs, no scripts) that opens with the check of the recommendation against real training
 * runs when OUT/validate.json is there (its verdict, the mb_plot_validate figure and a table of
 * its rows; a line naming the command that writes it when it is not; never counted as missing),
 * then the recommendation from OUT/scale.json, the fitted
 * parameters with 95% intervals (OUT/nfit.json, tfit.json, cfit.json), every figure whose inputs
 * are in OUT (drawn into OUT as NAME.png or .svg by the functions above), the inputs present and
 * missing with the stage that writes each, and OUT/commands.txt with the metadata lines of the
 * CSV inputs (step.csv, comm.csv, runs/ *.csv).
 * OUT/scale.json is required (MB_EIO naming it when absent); every other input may be missing and
 * is then listed in the page and in *info. An input that is present but unreadable (a link in
 * a loop or to nothing included), a text shown on the page that holds a NUL byte, or an input
 * with nothing to draw, is an error naming that file, and no report is written. */
int mb_plot_report(const char *out_dir, const mb_plot_options *o, mb_plot_report_info *info,
                   mb_error *err);

#endif /* MB_PLOT_H */
