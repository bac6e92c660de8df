/* mb_model.h — the closed-form models of mbkit, and the status codes every module shares.
 *
 * Training time is updates times time per update (Perrone et al. 2019, eq. 1):
 *     T_C(M,P) = N_update(M) * T_update(M,P)
 * This header holds those formulas and the ones built on them: the optimal mini-batch size and
 * the optimal-scaling time (Perrone eq. 7-10), strong and weak scaling, the budget balance of
 * compute against bandwidth (Perrone eq. 11-12), Amdahl efficiency on G devices (Zou et al. 2017,
 * Lemma 3.1) and the parameter-server count (Zou et al., Lemma 3.2).
 *
 * Every function here is pure: no I/O, no allocation, no global state. A formula evaluated
 * outside its domain (M <= 0, P < 1, a negative time, an efficiency outside (0,1], ...) returns
 * MB_EDOM and leaves its outputs untouched; nothing here returns a NaN as an answer.
 */
#ifndef MB_MODEL_H
#define MB_MODEL_H

#include <stddef.h>
#include <stdarg.h>

/* ---- status codes, shared by every module of mbkit ---------------------------------------- */

enum {
    MB_OK = 0,
    MB_EINVAL = -1,   /* an argument is not acceptable (usage error) */
    MB_EDOM = -2,     /* a value lies outside the formula's domain */
    MB_ENOMEM = -3,   /* an allocation failed */
    MB_EIO = -4,      /* a file could not be opened, read or written */
    MB_EFORMAT = -5,  /* a file's content is malformed (names file, line, field) */
    MB_ENOCONV = -6,  /* an iterative method did not converge */
    MB_ENOTSUP = -7,  /* the operation is not supported here (backend, layer, shape) */
    MB_EDEVICE = -8,  /* an accelerator or its library reported an error */
    MB_EMPI = -9,     /* MPI reported an error or is not available */
    MB_ESOLVER = -10, /* an external solver (GSL, GLPK) failed */
    MB_ENODATA = -11, /* the input holds too little data for the question asked */
    MB_EUSAGE = -12,  /* a flag missing from the command line, or two that contradict: the
                         commands exit 2 with the --help hint (mb_cli_fail) */
};

/* Returns a static, human-readable name for a status code ("domain error", ...). */
const char *mb_strerror(int status);

/* An error with its explanation. Library functions that can fail on user input take an
 * `mb_error *` (NULL allowed) and fill it; the message names what was wrong: file, line, field,
 * value. The struct lives with the caller, so there is no global error state. */
typedef struct mb_error {
    int status;     /* MB_OK or a negative MB_E* code */
    char msg[8192]; /* one line, no trailing newline; empty when status == MB_OK. Room for two
                       paths of PATH_MAX (4096) and the reason: a line cut inside a long path
                       lost what was wrong (campaign 29's A5) */
} mb_error;

/* Records `status` and a printf-style message in *err (when err is not NULL) and returns status,
 * so that `return mb_error_set(err, MB_EFORMAT, "%s:%d: ...", ...);` reads naturally. */
int mb_error_set(mb_error *err, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* What mb_error_set writes: fmt's message into dst (size bytes), every word longer than 120
 * bytes that is no path cut to its first 40 and "..." (a value echoed whole would push out the
 * rest of the line), then made one line (mb_error_one_line). The commands' lines use it too. */
void mb_error_vformat(char *dst, size_t size, const char *fmt, va_list ap);

/* Makes the message in msg (size bytes) one line: newlines, tabs and other control bytes, from
 * a file name or a flag's value quoted in it, become \n, \t, \xHH (README, "Hardening": one
 * line; a terminal gets no raw escape sequence). Bytes from 0x80 (UTF-8) are kept. Cut at size. */
void mb_error_one_line(char *msg, size_t size);

/* Clears *err to MB_OK (err may be NULL). */
void mb_error_clear(mb_error *err);

/* The version of mbkit, "MAJOR.MINOR.PATCH". */
const char *mb_version(void);

/* ---- N_update(M): the inverse law (Perrone eq. 2) ------------------------------------------- */

/* N_update(M) = n_inf + alpha / M. */
typedef struct mb_inverse_law {
    double n_inf;  /* updates needed even with exact gradients (may be fitted negative: see fit/) */
    double alpha;  /* noise sensitivity, updates x samples */
} mb_inverse_law;

/* *n = n_inf + alpha / m. MB_EDOM when m <= 0 or the result is not positive and finite. */
int mb_model_nupdate(const mb_inverse_law *law, double m, double *n);

/* ---- N_update(M): the law the runs support ------------------------------------------------- */

/* The laws mbfit fits: the inverse law (Perrone eq. 2; McCandlish et al.'s S_min (1 + B_noise/B)
 * is the same curve), the power law N_inf + a M^-b, and the shifted inverse law
 * N_inf + alpha / (M - M_0): at a fixed learning rate the noise of a small mini-batch sets a loss
 * floor, and below some M_0 the target is out of reach (docs/models.md, "Shifted inverse law").
 * All three are N_inf + a (M - m0)^-b, so one struct carries them; `kind` says which was fitted
 * (and so whether the closed forms of Perrone eq. 7-10 explain the optimum). */
typedef enum mb_law_kind {
    MB_LAW_INVERSE = 0, /* n_inf + a / M */
    MB_LAW_POWER = 1,   /* n_inf + a M^-b */
    MB_LAW_SHIFTED = 2  /* n_inf + a / (M - m0), defined for M > m0 */
} mb_law_kind;
#define MB_LAW_KINDS 3

typedef struct mb_law {
    mb_law_kind kind;
    double n_inf; /* updates with exact gradients; may be <= 0 for a power law, as long as
                     N_update stays > 0 where it is used */
    double a;     /* alpha of the inverse laws; the power law's coefficient (updates x samples^b) */
    double b;     /* the exponent: 1 for the inverse laws, > 0 */
    double m0;    /* the shift M_0 >= 0 of the shifted law (samples); 0 for the others */
} mb_law;

/* "inverse-law", "power-law" or "shifted-law" (the names mbfit's JSON uses); parse returns
 * MB_EINVAL else. MB_MODEL_LAW_NAMES lists them for messages. */
const char *mb_model_law_name(mb_law_kind kind);
int mb_model_law_parse(const char *name, mb_law_kind *kind);
#define MB_MODEL_LAW_NAMES "inverse-law, power-law or shifted-law"

/* The names mbfit's JSON gives the parameters of a law of `kind`, in order: n_inf, then alpha
 * (the inverse laws) or a (the power law), then b (power) or m_0 (shifted). Returns how many (2
 * or 3). */
size_t mb_model_law_names(mb_law_kind kind, const char *names[3]);
/* Those names and the law's values of them. */
size_t mb_model_law_params(const mb_law *law, const char *names[3], double v[3]);
/* The law of `kind` from those parameters in that order (v[2] unused for the inverse law). */
mb_law mb_model_law_from_params(mb_law_kind kind, const double v[3]);

/* The inverse law as an mb_law, and back (MB_EDOM when the law is not the inverse law). */
mb_law mb_model_law_inverse(const mb_inverse_law *law);
int mb_model_law_as_inverse(const mb_law *law, mb_inverse_law *inv);

/* *n = N_update(m) and, when dn is not NULL, *dn = dN/dM. MB_EDOM for m <= 0, m <= m0 (the
 * shifted law: the target is out of reach there), bad parameters or a result that is not
 * positive and finite. */
int mb_model_law_nupdate(const mb_law *law, double m, double *n, double *dn);

/* ---- T_update(M,P) = Gamma(M/P) + Delta(P) (Perrone eq. 3-5) -------------------------------- */

/* How the learners communicate, i.e. the form of Delta(P). Delta(1) = 0 in every case. */
typedef enum mb_comm {
    MB_COMM_NONE = 0,      /* Delta(P) = 0 (no communication modelled) */
    MB_COMM_ALLREDUCE = 1, /* Delta(P) = delta: a bandwidth-optimal allreduce (Perrone eq. 4) */
    MB_COMM_PS = 2,        /* Delta(P) = delta * P: one synchronous parameter server */
    MB_COMM_ALPHA_BETA = 3 /* ring allreduce of `bytes` with latency a and inverse bandwidth b:
                              Delta(P) = 2 (P-1) a + 2 (P-1)/P bytes b (Thakur et al. 2005) */
} mb_comm;

/* Returns "none", "allreduce", "ps" or "alpha-beta"; mb_model_comm_parse is its inverse and
 * returns MB_EINVAL for any other name. */
const char *mb_model_comm_name(mb_comm comm);
int mb_model_comm_parse(const char *name, mb_comm *comm);

#define MB_MODEL_TABLE_MAX 64 /* measured points a step table may carry */
#define MB_MODEL_PTABLES 4    /* learner counts P > 1 that may carry their own step table */
#define MB_MODEL_PDELTAS 16   /* learner counts P > 1 that may carry their own measured Delta(P) */

/* The step of one of `p` learners computing side by side on one host (mbprobe step --learners
 * P: P copies at threads/P threads each), at m = M/P samples: compute only, no communication.
 * Or, calibrated by training runs of P learners (mbfit tupdate with their logs; runs > 0), their
 * own median seconds per update at run_lo .. run_hi samples per learner (the probe's beyond):
 * communication and all, so Delta(P) is not added to it. */
typedef struct mb_step_table {
    double p;
    size_t n;
    double m[MB_MODEL_TABLE_MAX]; /* ascending, > 0 */
    double t[MB_MODEL_TABLE_MAX]; /* seconds, > 0 */
    double runs;                  /* the runs behind it; 0: the probe's compute step */
    double run_lo, run_hi;        /* the M/P they trained */
} mb_step_table;

typedef struct mb_update_time {
    double gamma;      /* seconds per sample once the device is saturated */
    double m_t;        /* the knee M_T, samples: below it a step costs gamma * M_T */
    double t0;         /* seconds every update costs whatever M and P (the optimiser step, the
                          per-call overhead): the intercept of the one-learner step fit. 0 is
                          Perrone et al.'s model; > 0 acts as communication does in eq. 9, so
                          one learner's optimum moves above M_T to sqrt(alpha t0 / (n_inf gamma)) */
    mb_comm comm;      /* the form of Delta(P) */
    double delta;      /* seconds: the constant of MB_COMM_ALLREDUCE and MB_COMM_PS */
    double latency_s;  /* seconds per message, MB_COMM_ALPHA_BETA */
    double s_per_byte; /* seconds per byte, MB_COMM_ALPHA_BETA */
    double bytes;      /* bytes exchanged per update (the model's size), MB_COMM_ALPHA_BETA */
    /* A measured step table (docs/models.md, "Update time": "a measured table always beats the
     * closed form"): when n_table >= 2, one learner's compute time at m samples is the table's,
     * interpolated log-log between measured points, flat below the first (the device is not
     * saturated) and linear in m beyond the last (seconds per sample of the last point); gamma,
     * m_t and t0 then only explain it. table_m ascending, > 0; table_t > 0 seconds (t0 included).
     * */
    size_t n_table;
    double table_m[MB_MODEL_TABLE_MAX];
    double table_t[MB_MODEL_TABLE_MAX];
    /* P learners sharing one host do not each compute as one learner with the whole host does:
     * for a P with a table here (n >= 2), the compute part of T_update(M, P) is that table's at
     * M/P (read as the one-learner table is), Delta(P) added unless the table is the runs' own
     * (runs > 0: it holds the communication); any other P uses the one-learner table (or the
     * closed form), as if each learner had a host of its own. */
    size_t n_by_p;
    mb_step_table by_p[MB_MODEL_PTABLES];
    /* Delta(P) measured at each of these P > 1 (training runs across nodes, mbopt --delta
     * P:S,...): where n_pdelta > 0 they replace the allreduce and ps forms' constant, and a
     * P > 1 without its own Delta is outside the model (mb_model_comm_time: MB_EDOM); delta
     * then only names the smallest P's for display. */
    size_t n_pdelta;
    double pdelta_p[MB_MODEL_PDELTAS];
    double pdelta[MB_MODEL_PDELTAS];
} mb_update_time;

/* A measured table's time at x samples as T_update reads it (log-log between the points m[i],
 * t[i], ascending m; flat below the first, linear in x beyond the last); NAN for n < 2. */
double mb_model_table_time(const double *m, const double *t, size_t n, double x);

/* *delta = Delta(P) for the communication form of `t` (the measured Delta at P where `t` has
 * them per P). MB_EDOM for p < 1, bad parameters, or a P > 1 that per-P Deltas lack. */
int mb_model_comm_time(const mb_update_time *t, double p, double *delta);

/* *tu = gamma * max(m / p, m_t) + t0 + Delta(p), or the table's time at m / p + Delta(p)
 * (without Delta(p) when p's table is its runs' own, mb_step_table.runs > 0). MB_EDOM for
 * m <= 0, p < 1 or bad parameters. */
int mb_model_tupdate(const mb_update_time *t, double m, double p, double *tu);

/* *d = dT_update/dM at (m, p) (one-sided from above at a table point or the knee). */
int mb_model_tupdate_dm(const mb_update_time *t, double m, double p, double *d);

/* *tc = N_update(m) * T_update(m, p) (Perrone eq. 5). */
int mb_model_tc(const mb_inverse_law *law, const mb_update_time *t, double m, double p,
                double *tc);
/* The same for any law. */
int mb_model_law_tc(const mb_law *law, const mb_update_time *t, double m, double p, double *tc);

/* ---- optimal scaling (Perrone eq. 7-10) ---------------------------------------------------- */

/* Which branch of Perrone eq. 10 gives the optimum. */
typedef enum mb_regime {
    MB_REGIME_SINGLE = 0,  /* P = 1 and t0 = 0: no fixed cost to amortise, M_opt = M_T (eq. 7-8) */
    MB_REGIME_BALANCE = 1, /* M_opt = sqrt(alpha (t0 + Delta(P)) P / (n_inf gamma)) > M_T P:
                              gradient noise balanced against the fixed cost of an update
                              (communication, t0) (eq. 10, first case) */
    MB_REGIME_KNEE = 2     /* M_opt = M_T P: every learner runs at its knee (eq. 10, otherwise) */
} mb_regime;

/* Returns "single", "balance" or "knee". */
const char *mb_model_regime_name(mb_regime regime);

typedef struct mb_optimum {
    double m_opt;     /* the mini-batch size (total over learners) minimising T_C at this P */
    double t_c;       /* T_C(m_opt, P), seconds */
    double n_update;  /* N_update(m_opt) */
    double t_update;  /* T_update(m_opt, P), seconds */
    mb_regime regime; /* which branch holds */
} mb_optimum;

/* The optimum over M at a fixed P (Perrone eq. 9 for M_opt, eq. 10 for T_C), generalised to any
 * Delta(P) and a fixed cost t0: with D = t0 + Delta(P), M* = sqrt(alpha D P / (n_inf gamma));
 * M_opt = max(M*, M_T P), and T_C = (sqrt(D n_inf) + sqrt(alpha gamma / P))^2 on the first branch.
 * Requires n_inf > 0, alpha >= 0, gamma > 0, m_t > 0 (else MB_EDOM). */
int mb_model_optimum(const mb_inverse_law *law, const mb_update_time *t, double p,
                     mb_optimum *opt);

/* The learner count at which eq. 10 changes branch, P_b = alpha (t0 + delta) / (gamma M_T^2 n_inf)
 * for MB_COMM_ALLREDUCE; below it the optimum is in MB_REGIME_BALANCE. For MB_COMM_PS the balance
 * branch holds while alpha t0 / P + alpha delta > n_inf gamma M_T^2: *p_b is +inf when that holds
 * for every P, else the P where it stops (1 when it never holds). For MB_COMM_NONE,
 * P_b = alpha t0 / (gamma M_T^2 n_inf) (1 when t0 = 0: every P > 1 is in the knee branch). MB_ENOTSUP for MB_COMM_ALPHA_BETA,
 * whose branch can change more than once: ask mb_model_optimum at each P instead. */
int mb_model_regime_boundary(const mb_inverse_law *law, const mb_update_time *t, double *p_b);

/* Strong scaling: the total mini-batch m is fixed while P grows. *tc = T_C(m, p). */
int mb_model_tc_strong(const mb_inverse_law *law, const mb_update_time *t, double m, double p,
                       double *tc);

/* Weak scaling: each learner keeps m_per_learner samples, so M = m_per_learner * P.
 * *tc = T_C(m_per_learner * p, p). */
int mb_model_tc_weak(const mb_inverse_law *law, const mb_update_time *t, double m_per_learner,
                     double p, double *tc);

/* ---- budget balance of compute and bandwidth (Perrone eq. 11-12) --------------------------- */

/* The design problem: a budget buys P learners at price_learner each and bandwidth B at
 * price_bandwidth per unit (bytes/s); the communication constant scales as
 * delta(B) = delta_ref * bandwidth_ref / B (for MB_COMM_ALPHA_BETA, s_per_byte likewise).
 * The best design minimises T_C(M_opt(P), P) on the budget line, where the marginal gains per
 * unit price of learners and of bandwidth are equal (eq. 12). */
typedef struct mb_design_problem {
    double budget;          /* total money to spend, any currency */
    double price_learner;   /* price of one learner */
    double price_bandwidth; /* price of one byte/s of bandwidth */
    double bandwidth_ref;   /* bytes/s at which the update-time model's delta was measured */
} mb_design_problem;

typedef struct mb_design {
    double learners;       /* optimal P on the budget line (continuous) */
    double bandwidth;      /* bytes/s bought with the rest of the budget */
    mb_optimum opt;        /* the optimum at that design */
    double dt_dcost_learners;  /* dT_C/dC along learners at the design point (s per money) */
    double dt_dcost_bandwidth; /* dT_C/dC along bandwidth (equal to the above at an interior
                                  optimum: eq. 12) */
    int interior;          /* 1 when the optimum is interior (eq. 12 holds), 0 at a bound */
    double whole_learners;  /* the better of floor and ceil of `learners` on the budget line */
    double whole_bandwidth; /* bytes/s the rest of the budget buys with that many learners */
    double whole_t_c;       /* T_C(M_opt, whole_learners) at that bandwidth, seconds */
} mb_design;

/* Minimises T_C over P in [1, P_max] where P_max leaves some bandwidth to buy; the objective is
 * unimodal in the cases of Perrone's model and is minimised by golden-section search refined
 * to 1e-10 relative. MB_EDOM when the budget cannot buy one learner and some bandwidth. */
int mb_model_design(const mb_inverse_law *law, const mb_update_time *t,
                    const mb_design_problem *prob, mb_design *design);

/* ---- Amdahl efficiency on G devices (Zou et al. 2017, Lemma 3.1) --------------------------- */

/* With overhead ratio R_O = T_O / T_C, efficiency on G devices E = (1 + R_O) / (1 + G R_O) and
 * speed-up S = G E. */
/* How far a computed count x may sit past a whole number and still be that number when it is
 * rounded to whole devices or servers: a relative 1e-12 (the arithmetic's error), but never a
 * quarter of a device (campaign 14's R4: at 1e12 devices a relative slack is a whole device,
 * and `--speedup 1e12` got 999999999999 devices, short of the target). */
double mb_model_whole_slack(double x);
int mb_model_amdahl_efficiency(double overhead_ratio, double gpus, double *efficiency);
int mb_model_amdahl_speedup(double overhead_ratio, double gpus, double *speedup);

/* The (real) number of devices for a speed-up S: G = S / (1 + R_O - S R_O). MB_EDOM when S is
 * at or beyond the asymptote (1 + R_O) / R_O. */
int mb_model_amdahl_gpus_for_speedup(double overhead_ratio, double speedup, double *gpus);

/* The (real) number of devices at which the efficiency falls to E: G = (1 + R_O - E) / (E R_O). */
int mb_model_amdahl_gpus_for_efficiency(double overhead_ratio, double efficiency, double *gpus);

/* The largest overhead ratio that keeps efficiency E on G devices: R_O = (1 - E) / (G E - 1).
 * MB_EDOM when G E <= 1 (no overhead ratio achieves it) or E outside (0, 1]. */
int mb_model_amdahl_max_overhead(double gpus, double efficiency, double *overhead_ratio);

/* The overhead ratio implied by a measured speed-up on G devices: R_O = (G - S) / (G (S - 1)). */
int mb_model_amdahl_overhead_for_speedup(double gpus, double speedup, double *overhead_ratio);

/* ---- parameter servers (Zou et al. 2017, Lemma 3.2) ---------------------------------------- */

/* The least number of parameter servers that hides push and pull behind computation:
 * N_ps >= 2 S_p N_w / (T_C B_ps). *n_ps_exact is the bound, *n_ps its ceiling (at least 1).
 * param_bytes S_p, workers N_w, compute_s T_C (one round of computation on a worker),
 * bandwidth B_ps in bytes/s per server. */
int mb_model_ps_count(double param_bytes, double workers, double compute_s, double bandwidth,
                      double *n_ps_exact, double *n_ps);

/* ---- memory of a CNN on one device (Zou et al. 2017, eq. 1-5) ------------------------------ */

/* What a layer is, as far as memory goes. */
typedef enum mb_mem_kind {
    MB_MEM_CONV = 0,     /* convolution: k x k x in_c x out_c weights + out_c biases */
    MB_MEM_POOL = 1,     /* max or average pooling: no parameters */
    MB_MEM_FC = 2,       /* fully connected: (in_c in_h in_w) x out_c weights + out_c biases */
    MB_MEM_ELEMENTWISE = 3, /* activation, dropout, softmax: run in place, nothing kept here
                               (unless `kept`) */
    MB_MEM_BN = 4,       /* batch normalisation: gamma, beta per channel (out_c each) trained,
                            running mean and var (out_c each) as state; its output kept */
    MB_MEM_JOIN = 5      /* residual add, channel concat: no parameters; its output kept (a new
                            tensor, not one of its inputs overwritten) */
} mb_mem_kind;

/* One layer for the memory model: a plain copy of what a network description says (solver/
 * translates train/'s descriptions into these). Shapes are per sample. */
typedef struct mb_mem_layer {
    mb_mem_kind kind;
    const char *name;          /* for tables and messages; not owned, may be NULL */
    int in_c, in_h, in_w;      /* input shape */
    int out_c, out_h, out_w;   /* output shape */
    int k;                     /* convolution kernel side F; 0 for other kinds */
    int kept;                  /* 1: a later add or concat reads this output (a skip), so it
                                  stays alive: an element-wise layer's output is then counted
                                  (in place, the next layer would overwrite it) */
} mb_mem_layer;

typedef struct mb_mem_options {
    double value_bytes;  /* bytes per stored value: 4 (float32, Zou's 32 bits) */
    double grad_copies;  /* gradient blocks per parameter: 1 as mbkit's trainer keeps one
                            batch-mean gradient; Zou et al. assume 2 (per-sample + aggregate) */
    double state_copies; /* optimiser state per parameter: 0 SGD, 1 momentum (default), 2 Adam */
    int gemm_workspace;  /* 1: count each convolution's explicit-GEMM lowering buffer
                            (M in_c k^2 out_h out_w values, Chetlur et al. 2014) as its
                            workspace; 0: no workspace (the ILP adds the chosen algorithms') */
} mb_mem_options;

/* value_bytes 4, grad_copies 1, state_copies 1, gemm_workspace 1. */
void mb_model_mem_defaults(mb_mem_options *o);

/* The bytes one layer holds at mini-batch size M. */
typedef struct mb_mem_bytes {
    double params;    /* weights and biases (Zou eq. 3 and 4 count biases too) */
    double grads;     /* grad_copies x params */
    double state;     /* state_copies x params, plus BN's running mean and var */
    double fmap;      /* the layer's output over the mini-batch, kept for the backward pass
                         (eq. 2; eq. 4's neurons for fully connected layers); 0 for in-place
                         element-wise layers unless a later add or concat reads them (kept) */
    double workspace; /* this layer's convolution workspace at M (gemm_workspace), else 0 */
} mb_mem_bytes;

/* A network's total at M. The workspace is one buffer shared by all layers, as frameworks
 * allocate it, so it is the largest layer's, not the sum. */
typedef struct mb_mem_total {
    double params, grads, state;
    double input;     /* the input mini-batch (eq. 2, i = 0) */
    double fmaps;     /* sum of the layers' fmap */
    double workspace; /* max of the layers' workspace */
    size_t ws_layer;  /* index of the layer with the largest workspace (0 when none has one) */
    double model;     /* params + grads + state + input + fmaps: what is left out of
                         Zou's M_bound, eq. 5 */
    double total;     /* model + workspace */
} mb_mem_total;

/* One layer's bytes at M (> 0). MB_EDOM for m <= 0, a shape < 1, a convolution with k < 1, or
 * options out of range (value_bytes <= 0, grad_copies < 1, state_copies < 0). */
int mb_model_mem_layer(const mb_mem_layer *l, double m, const mb_mem_options *o,
                       mb_mem_bytes *b);

/* The network's total at M: the sum over layers (largest workspace) plus the input. MB_EDOM as
 * above, or for n = 0. */
int mb_model_mem(const mb_mem_layer *layers, size_t n, double m, const mb_mem_options *o,
                 mb_mem_total *t);

/* Zou's M_bound (eq. 5) at M: device_bytes - model, the memory left for workspaces; negative
 * when the model alone does not fit. */
int mb_model_mem_bound(const mb_mem_layer *layers, size_t n, double m, const mb_mem_options *o,
                       double device_bytes, double *bound);

/* The largest whole M whose total (the workspace included when o->gemm_workspace) fits in
 * device_bytes: every term is a constant plus a multiple of M, so it is solved exactly. *m_max is
 * 0 when even M = 1 does not fit; it is capped at 2^40. */
int mb_model_mem_max_batch(const mb_mem_layer *layers, size_t n, const mb_mem_options *o,
                           double device_bytes, double *m_max);

#endif /* MB_MODEL_H */
