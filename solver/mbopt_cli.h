/* mbopt_cli.h — what mbopt's subcommands share (solver/mbopt_*.c): the output options, the
 * model flags every model-based subcommand takes (--nfit, --tfit, --cfit, the law's and
 * T_update's parameters, the range of M), and reading run logs. Private to mbopt: the library's
 * interface is mb_solver.h.
 */
#ifndef MBOPT_CLI_H
#define MBOPT_CLI_H

#include <getopt.h>
#include <glob.h>
#include <stdio.h>

#include "mb_solver.h"
#include "../net/mb_net.h"

static const char *const prog = "mbopt";

typedef struct out_opts {
    int json;           /* --json */
    const char *output; /* -o FILE, or "-" */
} out_opts;

/* ---- model parameters, shared by the model-based subcommands ---------------------------- */

#define MAX_NFIT 8 /* learning rates compared in one call: one --nfit each */

typedef struct model_opts {
    mb_law law;               /* the law optimised */
    mb_solver_nfit nf;        /* what the selected --nfit said (why the law, the range, lr) */
    const char *nfits[MAX_NFIT]; /* every --nfit, one per learning rate */
    mb_solver_nfit nfs[MAX_NFIT];
    size_t n_nfit;
    mb_update_time t;
    mb_solver_tcal tcal;      /* what runs did to --tfit (tcal.on = 0: the probe's alone) */
    const char *nfit, *tfit, *cfit, *law_name;
    double m_lo, m_hi;        /* the range M is sought in (0, 0 until resolved) */
    int extrapolate;          /* --extrapolate: no range */
    int have_range;           /* --batch-range given */
    int have_n_inf, have_alpha, have_gamma, have_m_t, have_delta, have_comm, have_latency,
        have_spb, have_t0, have_bytes;
    int comm_implied;         /* have_comm set by the subcommand, not by --comm (validate: none) */
    /* the workload of the fits (model_resolve): the first --nfit or --tfit's `net` and `data`
     * that says, and that file; "" and NULL when none does (read_runs compares the logs) */
    char net[64], data[MB_FIT_SETTING_LEN];
    const char *net_from, *data_from;
} model_opts;

enum {
    OPT_N_INF = 256, OPT_ALPHA, OPT_GAMMA, OPT_M_T, OPT_DELTA, OPT_COMM, OPT_NFIT, OPT_TFIT,
    OPT_CFIT, OPT_LATENCY, OPT_SPB, OPT_BYTES, OPT_PROCS, OPT_M_STRONG, OPT_M_WEAK, OPT_JSON,
    OPT_BUDGET, OPT_PRICE_L, OPT_PRICE_B, OPT_BW_REF, OPT_OVERHEAD, OPT_GPUS, OPT_SPEEDUP,
    OPT_EFF, OPT_COMPUTE, OPT_WORKERS, OPT_BW, OPT_PARAM_BYTES, OPT_LAW, OPT_RANGE,
    OPT_EXTRAPOLATE, OPT_T0, OPT_RECOMMEND, OPT_MISSING, OPT_COMM_RUNS, OPT_PROCS_AVAIL, OPT_CSV,
    OPT_TARGET,
    OPT_HOLDOUT, OPT_REPEATS, OPT_HOLDOUT_PLAN, OPT_HOLDOUT_SEED0, OPT_HOLDOUT_BEYOND, OPT_MORE_SEEDS,
    OPT_MAX_SEEDS, OPT_GRID_COST, OPT_GRID_SEEDS, OPT_GRID_CAP
};

#define MODEL_LONGOPTS                                                                            \
    {"n-inf", required_argument, 0, OPT_N_INF}, {"alpha", required_argument, 0, OPT_ALPHA},      \
        {"gamma", required_argument, 0, OPT_GAMMA}, {"m-t", required_argument, 0, OPT_M_T},     \
        {"delta", required_argument, 0, OPT_DELTA}, {"comm", required_argument, 0, OPT_COMM},    \
        {"nfit", required_argument, 0, OPT_NFIT}, {"tfit", required_argument, 0, OPT_TFIT},     \
        {"cfit", required_argument, 0, OPT_CFIT}, {"latency", required_argument, 0, OPT_LATENCY}, \
        {"s-per-byte", required_argument, 0, OPT_SPB}, {"bytes", required_argument, 0, OPT_BYTES}, \
        {"law", required_argument, 0, OPT_LAW}, {"batch-range", required_argument, 0, OPT_RANGE}, \
        {"extrapolate", no_argument, 0, OPT_EXTRAPOLATE}, {"t0", required_argument, 0, OPT_T0}

/* The law is fitted (--nfit) or given (--n-inf, --alpha), not both: for mb_cli_seen. */
#define MODEL_EXCLUSIVE ((const int[][2]){{OPT_NFIT, OPT_N_INF}, {OPT_NFIT, OPT_ALPHA}, {0, 0}})

/* The model's flags in --help; MODEL_HELP adds the range of M, which mbopt design does not
 * read (it balances the inverse law's unconstrained optimum) */
#define MODEL_HELP MODEL_HELP_LAW MODEL_HELP_RANGE
#define MODEL_HELP_LAW                                                                            \
    "Model (--gamma, --m-t, --t0, --delta, --latency, --s-per-byte override --tfit, --cfit):\n" \
    "      --nfit FILE       N_update fit from 'mbfit nupdate --json': the law it names best\n"   \
    "                        (inverse, power or shifted law) and the converged range of its\n"  \
    "                        runs;\n"                                                          \
    "                        repeat it, one file per learning rate, to choose (M, lr)\n"        \
    "      --law NAME        optimise this law of --nfit instead: inverse-law, power-law,\n"   \
    "                        shifted-law\n"                                                   \
    "      --tfit FILE       update-time fit from 'mbfit tupdate --json' (gamma, m_t, delta)\n"   \
    "      --cfit FILE       collective fit from 'mbfit comm --json' (latency_s, s_per_byte)\n"   \
    "      --n-inf N         the inverse law without --nfit (not with it): updates needed\n"   \
    "                        with exact gradients, N_inf > 0\n"                                \
    "      --alpha A         noise sensitivity (updates x samples), >= 0\n"                       \
    "      --gamma S         seconds per sample above the knee, > 0\n"                            \
    "      --t0 S            seconds every update costs whatever M (the one-learner intercept\n" \
    "                        of --tfit), >= 0\n"                                                \
    "      --m-t M           the knee M_T in samples, > 0, at most 2^53\n"                      \
    "      --comm FORM       Delta(P): none, allreduce (delta), ps (delta*P), alpha-beta\n"       \
    "                        (ring allreduce of --bytes with --latency and --s-per-byte);\n"      \
    "                        default allreduce, or alpha-beta when --cfit is given\n"             \
    "      --delta S         communication seconds per update (allreduce, ps), >= 0; or\n"        \
    "                        P:S,P:S,... Delta(P) measured at each P (other P refused)\n"         \
    "      --latency S       seconds per message (alpha-beta)\n"                                  \
    "      --s-per-byte S    seconds per byte (alpha-beta)\n"                                     \
    "      --bytes SIZE      bytes exchanged per update, K/M/G = 2^10/2^20/2^30 (alpha-beta)\n"
#define MODEL_HELP_RANGE                                                                          \
    "Range of M (the optimum is sought where runs reached the target):\n"                      \
    "      --batch-range LO:HI  total mini-batch range to search (default: --nfit's converged\n" \
    "                        range; without one, M >= 1)\n"                                     \
    "      --extrapolate     search every M >= 1, outside the runs' range too (labelled)\n"

/* Writes root (freed here) as JSON to o->output; the exit status, with one line on failure. */
int emit_json(const char *sub, cJSON *root, const out_opts *o);

/* MB_EINVAL when `output` (-o) is one of the model's files (--nfit, --tfit, --cfit; m NULL:
 * none) or of
 * argv[0..argc) (run logs, other inputs): refused before any work, nothing overwritten. */
int output_over_inputs(const char *output, const model_opts *m, int argc, char *const *argv,
                       mb_error *err);

/* Formats a number for a table, "-" for NaN or inf (not a result). */
const char *fmt(char *buf, size_t n, const char *f, double v);

/* Handles one model option; returns 1 if `c` was one, -1 on a bad value (err filled), 0 if not
 * a model option. */
int model_option(model_opts *m, int c, const char *arg, mb_error *err);

/* Makes the i-th --nfit (one learning rate) the law optimised, with its range: --batch-range,
 * else the runs' converged range, else every M >= 1. Without --nfit it only sets the range. */
void model_select(model_opts *m, size_t i);

/* Reads the fit files, then re-applies the flags given on the command line (they win), and
 * checks that every parameter the model needs is known. */
int model_resolve(model_opts *m, mb_error *err);

/* The fits' workload, one of net or data (what): `v` of file `path` against the first file's
 * that said one (*ref of *ref_from, set here when none did yet; "" says none). MB_EINVAL
 * naming both files and values otherwise. Campaign 21, N4: an nfit of lenet5 was multiplied by
 * a tfit of another net; campaign 23, R9: mbopt conv took it beside --net of another. */
int model_same_workload(const char *what, const char *path, const char *v, char *ref, size_t n,
                        const char **ref_from, mb_error *err);

/* Where --delta measured Delta(P) per P: MB_EINVAL, one line naming `what` (the flag or the
 * runs), for a P > 1 among p[0..n) that has none. */
int model_check_procs(const model_opts *m, const double *p, size_t n, const char *what,
                      mb_error *err);

/* Whether the range is the runs' own (so an optimum inside it is not an extrapolation). */
const char *range_source(const model_opts *m);

cJSON *model_json(const model_opts *m);

void model_print(FILE *f, const model_opts *m);

/* LOG|DIR arguments to a list of log paths (a DIR gives its *.csv, sorted). */
int collect_logs(int argc, char **argv, glob_t *g, mb_error *err);
/* Each of the n folders of a flag (--holdout, --repeats) holds run logs, not only all of them
 * together (campaign 30's C4): MB_ENODATA "FLAG DIR: no run logs (*.csv)" else. */
int folders_have_logs(const char *flag, char **dirs, size_t n, mb_error *err);

/* Every --nfit's law and learning rate (the given law, rate unknown, without --nfit); returns
 * how many. */
size_t model_laws(const model_opts *m, mb_law *laws, double *lrs);

/* The run logs LOG|DIR... read at the target loss into runs (paths in g), for checking the
 * model against them; a log that is not there is named before a target that is not known, and
 * a run of another algorithm than m's fits were made of is refused (naming its metadata), and
 * so are runs not trained alike (mb_fit_runs_trained_as, eval_frac aside). */
int read_runs(const model_opts *m, int argc, char **argv, double target, glob_t *g,
              mb_fit_runs *runs, mb_error *err);

/* ---- mbopt validate: the held-out check and sequential sampling (mbopt_holdout.c) ---------- */

#define MAX_HOLDOUT_DIRS 16
#define DEFAULT_MAX_SEEDS 14

typedef struct holdout_cli {
    char *dirs[MAX_HOLDOUT_DIRS]; /* --holdout DIR... */
    size_t n_dirs;
    size_t plan_seeds;            /* --holdout-plan N (0: not asked) */
    unsigned long seed0;          /* --holdout-seed0 S (0: not given, MB_HOLDOUT_SEED0) */
    int beyond;                   /* --holdout-beyond */
    int more_seeds;               /* --more-seeds */
    size_t max_seeds;             /* --max-seeds */
    int on;                       /* h and ho hold a check */
    glob_t g;
    mb_fit_runs runs;
    mb_validate h;
    mb_holdout ho;
    mb_sequential seq;            /* in-sample sampling state */
    double (*pred_ci)[2];         /* h.n_rows: T_C's interval over resamples of the in-sample
                                     seeds (mb_solver_tc_interval), NAN where none */
    size_t pred_in, pred_graded;  /* held-out medians inside it, of those it graded */
} holdout_cli;

void holdout_free(holdout_cli *hc);

/* --holdout-plan N: the held-out sweep, seed by seed over M, on one line (stdout). */
int holdout_plan_print(const mb_validate *v, const mb_fit_runs *runs, const model_opts *m,
                       size_t n_seeds, unsigned long seed0, mb_error *err);

/* The sequential sampling's state as a sentence (validate.txt's sampling: line), into buf. */
const char *holdout_sampling_line(char *buf, size_t size, const mb_validate *v,
                                  const mb_sequential *q);

/* --more-seeds: the next round of in-sample runs (the leader's untrained neighbours first, else
 * one more seed for each setting still overlapping the leader), on stdout; MB_EINVAL when a
 * setting has no seed left below the held-out ones. */
int holdout_more_seeds_print(const holdout_cli *hc, const model_opts *m, const mb_validate *v,
                             const mb_fit_runs *runs, mb_error *err);

/* --holdout-beyond: the M past the held-out best where it is at the sweep's edge, on stdout. */
int holdout_beyond_print(const holdout_cli *hc, const model_opts *m, double p, double lr);

/* The --holdout logs read and the recommendation checked on them (into hc->h, hc->ho): no
 * held-out run may share a seed with the in-sample runs (`in`, read from in_paths) or with the
 * runs an --nfit records it was fitted on (inputs.seeds), or a network or target, and each is
 * trained as the in-sample runs but for batch, seed and eval_frac. */
int holdout_check(holdout_cli *hc, const model_opts *m, const mb_law *laws, const double *lrs,
                  size_t n_laws, const mb_validate *v, const mb_fit_runs *in,
                  const char *const *in_paths, mb_error *err);

/* The check: line (without "check: "), and the held-out table followed by it. */
const char *holdout_verdict(char *buf, size_t size, const holdout_cli *hc);
void holdout_print(FILE *f, const holdout_cli *hc, const char *verdict);

/* The held-out check as validate.json's "holdout" object. */
cJSON *holdout_json(const holdout_cli *hc);

/* The subcommands: each parses its options, calls solver/ and model/, prints; returns the exit
 * status (0, 1 for bad data, 2 for a usage error). */
int mbopt_scale(int argc, char **argv);
int mbopt_amdahl(int argc, char **argv);
int mbopt_ps(int argc, char **argv);
int mbopt_design(int argc, char **argv);
int mbopt_validate(int argc, char **argv);
int mbopt_mem(int argc, char **argv);
int mbopt_conv(int argc, char **argv);

#endif /* MBOPT_CLI_H */
