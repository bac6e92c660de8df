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

#include "../data/mb_data.h"
#include "../model/mb_model.h"

/* ---- fitted parameters from files ----------------------------------------------------------- */

/* Reads the inverse law from an mbfit JSON object: params.n_inf and params.alpha
 * (DESIGN.md, "Fits"). MB_EIO / MB_EFORMAT with the file and the missing or bad key in err. */
int mb_solver_read_nfit(const char *path, mb_inverse_law *law, mb_error *err);

/* Reads params.gamma and params.m_t, and a communication delta when the file gives one
 * (*has_delta = 1), into *t. Leaves t->comm and the collective parameters alone.
 * The delta: mbfit tupdate fits gamma max(M/P, M_T) + delta per learner count, so with
 * "learners": 1 at the top level, params.delta is a per-update intercept of one learner, not
 * communication (Delta(1) = 0). The communication delta is then the intercept at the smallest
 * learner count P > 1 in `by_learners` less the one at P = 1 (0 if negative), and there is none
 * when the file has no P > 1. A file without "learners" gives params.delta as the delta. */
int mb_solver_read_tfit(const char *path, mb_update_time *t, int *has_delta, mb_error *err);

/* Reads params.latency_s and params.s_per_byte of an alpha-beta collective fit into *t. */
int mb_solver_read_cfit(const char *path, mb_update_time *t, mb_error *err);

/* Reads the `model` object that `mbopt scale --json` writes (n_inf, alpha, gamma, m_t, comm and
 * its parameters) back into the model structs; `path` is for messages. */
int mb_solver_read_model(const cJSON *model, const char *path, mb_inverse_law *law,
                         mb_update_time *t, mb_error *err);

/* ---- scaling tables ------------------------------------------------------------------------- */

typedef struct mb_scale_options {
    double m_strong; /* total mini-batch held fixed under strong scaling; 0: M_opt(1) = M_T */
    double m_weak;   /* mini-batch per learner held fixed under weak scaling; 0: M_T */
} mb_scale_options;

/* One learner count of a scaling table. Times in seconds; a value that does not apply (strong
 * scaling with fewer samples than learners) is NAN, and the printers show it as such. */
typedef struct mb_scale_row {
    double procs;          /* P */
    mb_optimum opt;        /* optimal scaling: M re-optimised for this P (Perrone eq. 9-10) */
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
int mb_solver_scale(const mb_inverse_law *law, const mb_update_time *t, mb_scale_options *opts,
                    const double *procs, size_t n, mb_scale_row *rows, mb_error *err);

/* The index of the row with the least optimal-scaling T_C (the first of equals). */
size_t mb_solver_best_row(const mb_scale_row *rows, size_t n);

/* The index of the row with the fewest learners whose optimal-scaling T_C is within `slack`
 * (0.1 = 10%) of the least: most of the gain for the least hardware. */
size_t mb_solver_enough_row(const mb_scale_row *rows, size_t n, double slack);

/* Checks that the inverse law and update-time model can be evaluated, naming the first bad
 * parameter (e.g. "n_inf must be > 0, got -3") in err. */
int mb_solver_check_models(const mb_inverse_law *law, const mb_update_time *t, mb_error *err);

#endif /* MB_SOLVER_H */
