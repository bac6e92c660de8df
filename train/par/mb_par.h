/* mb_par.h — train/par/: parallel learners (docs/algorithms.md): the checks a parallel run makes
 * of its ranks and learners, the update rules on flat float arrays, and mb_par_run.
 */
#ifndef MB_PAR_H
#define MB_PAR_H

#include <stddef.h>

#include "../run/mb_run.h"

/* ---- parallel learners (train/par/par*.c; docs/algorithms.md) -------------------------------- */

/* Checks that the algorithm can use `ranks` MPI ranks and `learners` threads per process and
 * that the batch splits among the learners; MB_EINVAL with one line in err otherwise. */
int mb_par_check(const mb_run_options *o, int ranks, mb_error *err);

/* Whether `suffix`, what follows a checkpoint's PATH in a file name, names one of its
 * companion files (docs/commands.md, "Checkpoints"): ".learners", ".learners.rankR", each
 * optionally with ".prev" (the copy kept while a set is rewritten). *rank gets R (-1 for the
 * one-file ".learners"), *prev whether it is the .prev copy. */
int mb_par_ckpt_companion(const char *suffix, int *rank, int *prev);

/* The update rules of docs/algorithms.md on flat arrays of n floats (what the trainers call, so
 * that tests can check them step by step). */
/* The elastic exchange: e = alpha (x - c); x -= e; c += e. */
void mb_par_elastic(float *x, float *c, size_t n, float alpha);
/* The learner's half of an asynchronous exchange when the gradient is taken at the copy from
 * before it (Zhang et al. Algorithms 1 and 2): c (the centre the server had) becomes
 * e = alpha (x - c); x is left as it is. */
void mb_par_elastic_term(const float *x, float *c, size_t n, float alpha);
/* The asynchronous learner's SGD step (Zhang et al. Algorithm 1): x <- (x - e) - eta g, with g
 * taken at the x from before the exchange; e NULL for a step without an exchange. */
void mb_par_async_sgd(float *x, const float *g, const float *e, size_t n, float eta);
/* A synchronous EASGD learner: x <- x - eta g - alpha (x - c) (eta rho = alpha; c unchanged). */
void mb_par_easgd_learner(float *x, const float *g, const float *c, size_t n, float eta,
                          float alpha);
/* The synchronous EASGD centre: c <- (1 - p alpha) c + alpha sum (sum = sum_i x^i_old). */
void mb_par_easgd_centre(float *c, const float *sum, size_t n, float alpha, int p);
/* A round-robin EASGD turn of the active learner (Zhang et al. section 4: exchange and gradient
 * step in one time slot, both at the old x and c): e = alpha (x - c); x <- x - eta g - e;
 * c <- c + e. */
void mb_par_easgd_turn(float *x, const float *g, float *c, size_t n, float eta, float alpha);
/* An SMA learner: cj = alpha (x - z); x <- x - gamma g - cj. */
void mb_par_sma_learner(float *x, const float *g, const float *z, float *cj, size_t n,
                        float gamma, float alpha);
/* The SMA centre from csum = sum_j c_j: z_new = z + csum + mu (z - zprev); zprev <- z;
 * z <- z_new. */
void mb_par_sma_centre(float *z, float *zprev, const float *csum, size_t n, float mu);

/* EAMSGD's local step (Zhang et al. Algorithm 2), v <- delta v - eta g(x + delta v);
 * x <- x + v, in two halves around the gradient: lookahead saves x in keep and moves x to
 * x + delta v (where the gradient is taken); step sets v and x = keep + v. */
void mb_par_nesterov_lookahead(float *x, float *keep, const float *v, size_t n, float delta);
void mb_par_nesterov_step(float *x, const float *keep, float *v, const float *g, size_t n,
                          float eta, float delta);

/* A parallel run (o->par != MB_PAR_NONE): every rank of o->comm (or the one process) calls it
 * with the same options; o->learners threads per process. Rank 0 evaluates the centre (or the
 * averaged) model with the run monitor (train/run/run_mon.c) and writes the one log; r is
 * filled on every rank. Called by mb_train_run for o->par != MB_PAR_NONE. */
int mb_par_run(const mb_run_options *o, mb_run_result *r, mb_error *err);

#endif /* MB_PAR_H */
