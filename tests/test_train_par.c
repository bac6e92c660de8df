/* test_train_par.c — parallel learners (train/comm/comm*.c, train/par/par*.c): the threads communicator's
 * collectives and messages against sums computed here; sgd-sync against single-learner SGD;
 * each EASGD rule, SMA and DOWNPOUR against steps computed by hand on a quadratic; the round-
 * robin EASGD stability region of Zhang et al.; Hogwild's convergence; the staged checks
 * (--check-frac) in the lockstep trainers; learning-rate schedules in every rule against runs
 * stepped here; checkpoints and resumes of every algorithm and layout; and mbtrain under
 * mpirun, a rank killed mid-run included (tests/par_kill.sh; skipped with a message when
 * mpirun is absent).
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stddef.h>
#include <time.h>
#include <zlib.h>

#include "../data/mb_table.h"
#include "../data/mb_dataset.h"
#include "../net/mb_net.h"
#include "../train/learner/mb_learner.h"
#include "../train/comm/mb_comm.h"
#include "../train/run/mb_run.h"
#include "../train/par/mb_par.h"
#include "../train/mb_train.h"
#include "../train/par/par_impl.h"
#include "mb_test.h"

/* ---- the threads communicator --------------------------------------------------------------- */

enum { CP = 3, CN = 1001 };

typedef struct comm_arg {
    mb_communicator *c;
    int fails;
} comm_arg;

/* Values that are not round and differ per rank and index. */
static float val(int rank, size_t i) { return 0.37f * (float)(rank + 1) + 0.011f * (float)i; }

static void *comm_worker(void *p)
{
    comm_arg *a = p;
    mb_communicator *c = a->c;
    int r = mb_comm_rank(c), P = mb_comm_size(c);
    float *b = malloc(CN * sizeof *b), *s = malloc(CN * sizeof *s);
    for (size_t i = 0; i < CN; i++)
        b[i] = val(r, i);
    a->fails += mb_comm_allreduce_sum(c, b, CN) != MB_OK;
    for (size_t i = 0; i < CN; i++) {
        float want = 0;
        for (int k = 0; k < P; k++)
            want += val(k, i);
        a->fails += fabsf(b[i] - want) > 1e-5f * fabsf(want);
    }
    /* reduce to rank 1, then broadcast rank 1's sum */
    for (size_t i = 0; i < CN; i++)
        s[i] = val(r, i) * 2;
    a->fails += mb_comm_reduce_sum(c, s, r == 1 ? b : NULL, CN, 1) != MB_OK;
    a->fails += mb_comm_bcast(c, b, CN, 1) != MB_OK;
    for (size_t i = 0; i < CN; i++) {
        float want = 0;
        for (int k = 0; k < P; k++)
            want += 2 * val(k, i);
        a->fails += fabsf(b[i] - want) > 1e-5f * fabsf(want);
    }
    /* every rank but 0 sends its rank to 0, which replies rank + 100 */
    float m[2];
    if (r == 0) {
        int seen = 0;
        for (int k = 1; k < P; k++) {
            int from = -1;
            a->fails += mb_comm_recv(c, m, 2, MB_COMM_ANY, 7, &from) != MB_OK;
            a->fails += (int)m[0] != from;
            seen |= 1 << from;
            m[1] = m[0] + 100;
            a->fails += mb_comm_send(c, m, 2, from, 8) != MB_OK;
        }
        a->fails += seen != ((1 << P) - 2);
    } else {
        m[0] = (float)r;
        m[1] = 0;
        a->fails += mb_comm_send(c, m, 2, 0, 7) != MB_OK;
        a->fails += mb_comm_recv(c, m, 2, 0, 8, NULL) != MB_OK;
        a->fails += m[1] != (float)r + 100;
    }
    /* the shared block is one for all */
    int *sh = mb_comm_shared(c, 64);
    a->fails += sh == NULL;
    __atomic_fetch_add(sh, 1, __ATOMIC_SEQ_CST);
    mb_comm_barrier(c);
    a->fails += __atomic_load_n(sh, __ATOMIC_SEQ_CST) != P;
    /* a message of the wrong length is refused */
    if (r == 1)
        mb_comm_send(c, m, 1, 2, 9);
    if (r == 2)
        a->fails += mb_comm_recv(c, m, 2, 1, 9, NULL) != MB_EINVAL;
    free(b);
    free(s);
    return NULL;
}

static void test_comm_threads(void)
{
    mb_communicator *c[CP];
    mb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(mb_comm_threads_create(CP, c, &err), MB_OK);
    CU_ASSERT_STRING_EQUAL(mb_comm_kind(c[0]), "threads");
    pthread_t t[CP];
    comm_arg a[CP];
    for (int r = 0; r < CP; r++) {
        a[r] = (comm_arg){.c = c[r]};
        CU_ASSERT_EQUAL(mb_comm_rank(c[r]), r);
        CU_ASSERT_EQUAL(mb_comm_size(c[r]), CP);
        pthread_create(&t[r], NULL, comm_worker, &a[r]);
    }
    for (int r = 0; r < CP; r++) {
        pthread_join(t[r], NULL);
        CU_ASSERT_EQUAL(a[r].fails, 0);
    }
    CU_ASSERT_EQUAL(mb_comm_bcast(c[0], NULL, 0, 5), MB_EINVAL);
    CU_ASSERT_EQUAL(mb_comm_threads_create(0, c, &err), MB_EINVAL);
    for (int r = 0; r < CP; r++)
        mb_comm_free(c[r]);
}

/* Abort and timeout over threads: rank 1 aborts while rank 0 waits in an allreduce and rank 2
 * in a receive; both return MB_EMPI at once (well under a second) and every later wait too;
 * mb_comm_aborted_by names rank 1. Then a fresh group with a 0.2 s timeout: rank 0 waits at a
 * barrier that rank 1 reaches only after 1.5 s; rank 0 gives up after about 0.2 s, timed out,
 * and rank 1's late barrier returns MB_EMPI. */
typedef struct stall_arg {
    mb_communicator *c;
    int rc;
    double took;
} stall_arg;

static double secs(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *abort_worker(void *p)
{
    stall_arg *a = p;
    float b[4] = {1, 2, 3, 4};
    double t0 = secs();
    int r = mb_comm_rank(a->c);
    if (r == 0)
        a->rc = mb_comm_allreduce_sum(a->c, b, 4);
    else if (r == 2)
        a->rc = mb_comm_recv(a->c, b, 4, 1, 5, NULL);
    else {
        nanosleep(&(struct timespec){0, 200000000L}, NULL);
        mb_comm_abort(a->c, 1);
        a->rc = mb_comm_barrier(a->c);
    }
    a->took = secs() - t0;
    return NULL;
}

static void *late_worker(void *p)
{
    stall_arg *a = p;
    double t0 = secs();
    if (mb_comm_rank(a->c) == 1)
        nanosleep(&(struct timespec){1, 500000000L}, NULL);
    a->rc = mb_comm_barrier(a->c);
    a->took = secs() - t0;
    return NULL;
}

static void test_comm_abort_timeout(void)
{
    mb_communicator *c[3];
    mb_error err = {0};
    pthread_t t[3];
    stall_arg a[3];
    CU_ASSERT_EQUAL_FATAL(mb_comm_threads_create(3, c, &err), MB_OK);
    CU_ASSERT_EQUAL(mb_comm_aborted_by(c[0]), -1);
    for (int r = 0; r < 3; r++) {
        a[r] = (stall_arg){.c = c[r]};
        pthread_create(&t[r], NULL, abort_worker, &a[r]);
    }
    for (int r = 0; r < 3; r++) {
        pthread_join(t[r], NULL);
        CU_ASSERT_EQUAL(a[r].rc, MB_EMPI);
        CU_ASSERT(a[r].took < 1.0);
    }
    CU_ASSERT_EQUAL(mb_comm_aborted_by(c[2]), 1);
    CU_ASSERT(!mb_comm_timed_out(c[0]));
    float b = 1;
    CU_ASSERT_EQUAL(mb_comm_bcast(c[0], &b, 1, 0), MB_EMPI); /* and every later wait */
    for (int r = 0; r < 3; r++)
        mb_comm_free(c[r]);
    CU_ASSERT_EQUAL_FATAL(mb_comm_threads_create(2, c, &err), MB_OK);
    for (int r = 0; r < 2; r++) {
        mb_comm_set_timeout(c[r], 0.2);
        a[r] = (stall_arg){.c = c[r]};
        pthread_create(&t[r], NULL, late_worker, &a[r]);
    }
    for (int r = 0; r < 2; r++) {
        pthread_join(t[r], NULL);
        CU_ASSERT_EQUAL(a[r].rc, MB_EMPI);
    }
    CU_ASSERT(a[0].took > 0.15 && a[0].took < 1.0);
    CU_ASSERT(mb_comm_timed_out(c[0]));
    CU_ASSERT(!mb_comm_timed_out(c[1]));
    CU_ASSERT_EQUAL(mb_comm_aborted_by(c[1]), 0);
    for (int r = 0; r < 2; r++)
        mb_comm_free(c[r]);
}

/* Campaign 18's M6: the ranks' first exchange, which program each runs (mb_comm_agree_program,
 * made by mb_comm_mpi_create; over threads here, the same collective): one name apart fails
 * every rank alike, rank 0 alone naming its program and the first other; names alike pass,
 * and so does one rank without an exchange. */
typedef struct prog_arg {
    mb_communicator *c;
    const char *name;
    int rc;
    mb_error err;
} prog_arg;

static void *prog_worker(void *p)
{
    prog_arg *a = p;
    a->rc = mb_comm_agree_program(a->c, a->name, &a->err);
    return NULL;
}

/* Runs mb_comm_agree_program on n threads, rank r with names[r], into a[]. */
static void agree_programs(int n, const char *const *names, prog_arg *a)
{
    mb_communicator *c[4];
    pthread_t t[4];
    mb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(mb_comm_threads_create(n, c, &err), MB_OK);
    for (int r = 0; r < n; r++) {
        a[r] = (prog_arg){.c = c[r], .name = names[r]};
        pthread_create(&t[r], NULL, prog_worker, &a[r]);
    }
    for (int r = 0; r < n; r++)
        pthread_join(t[r], NULL);
    for (int r = 0; r < n; r++)
        mb_comm_free(c[r]);
}

static void test_agree_program(void)
{
    prog_arg a[4];
    const char *mixed[] = {"mbtrain", "mbtrain", "mbprobe step", "mbprobe comm"};
    agree_programs(4, mixed, a);
    for (int r = 0; r < 4; r++) {
        CU_ASSERT_EQUAL(a[r].rc, MB_EINVAL);
        CU_ASSERT_EQUAL(a[r].err.msg[0] == '\0', r != 0); /* rank 0 speaks for the job */
    }
    CU_ASSERT_STRING_EQUAL(a[0].err.msg, "ranks disagree on the program: rank 0 runs mbtrain, "
                           "rank 2 runs mbprobe step (2 of the other 3 ranks run another): start "
                           "every rank of the mpirun with the same program");
    const char *pair[] = {"mbprobe comm", "mbtrain"};
    agree_programs(2, pair, a);
    CU_ASSERT_PTR_NOT_NULL(strstr(a[0].err.msg, "rank 0 runs mbprobe comm, rank 1 runs mbtrain "
                                                "(1 of the other 1 rank runs another)"));
    CU_ASSERT_EQUAL(a[1].rc, MB_EINVAL);
    /* a prefix is another program */
    const char *prefix[] = {"mbprobe", "mbprobe step"};
    agree_programs(2, prefix, a);
    CU_ASSERT_EQUAL(a[0].rc, MB_EINVAL);
    CU_ASSERT_EQUAL(a[1].rc, MB_EINVAL);
    const char *same[] = {"mbtrain", "mbtrain", "mbtrain"};
    agree_programs(3, same, a);
    for (int r = 0; r < 3; r++)
        CU_ASSERT_EQUAL(a[r].rc, MB_OK);
    agree_programs(1, mixed + 2, a);
    CU_ASSERT_EQUAL(a[0].rc, MB_OK);
}

/* ---- the rules, one step by hand ------------------------------------------------------------ */

/* The numbers below were worked on paper from docs/algorithms.md; they are exact in binary to about
 * 1e-7, so 1e-6 is float rounding of a few operations. */
#define NEAR(a, b) CU_ASSERT_DOUBLE_EQUAL((a), (b), 1e-6)

static void test_rules_by_hand(void)
{
    /* elastic exchange: x = 2, x~ = 1, alpha = 0.25: e = 0.25, x = 1.75, x~ = 1.25 */
    float x = 2, c = 1;
    mb_par_elastic(&x, &c, 1, 0.25f);
    NEAR(x, 1.75);
    NEAR(c, 1.25);
    /* synchronous EASGD, p = 2, eta = 0.1, alpha = 0.2 (beta = 0.4), x~ = 0.5:
     * x1 = 1.5, g1 = 2:   1.5 - 0.2 - 0.2 (1.0)  = 1.1
     * x2 = -0.3, g2 = -1: -0.3 + 0.1 - 0.2 (-0.8) = -0.04
     * x~ = 0.6 * 0.5 + 0.2 * (1.5 - 0.3) = 0.54 (from the old x^i) */
    float xs[2] = {1.5f, -0.3f}, gs[2] = {2, -1}, cc = 0.5f, sum = xs[0] + xs[1];
    mb_par_easgd_learner(&xs[0], &gs[0], &cc, 1, 0.1f, 0.2f);
    mb_par_easgd_learner(&xs[1], &gs[1], &cc, 1, 0.1f, 0.2f);
    mb_par_easgd_centre(&cc, &sum, 1, 0.2f, 2);
    NEAR(xs[0], 1.1);
    NEAR(xs[1], -0.04);
    NEAR(cc, 0.54);
    /* a round-robin turn: x = 1.5, x~ = 0.5, g = 2, eta = 0.1, alpha = 0.2:
     * e = 0.2; x = 1.5 - 0.2 - 0.2 = 1.1; x~ = 0.7 */
    x = 1.5f;
    c = 0.5f;
    float g = 2;
    mb_par_easgd_turn(&x, &g, &c, 1, 0.1f, 0.2f);
    NEAR(x, 1.1);
    NEAR(c, 0.7);
    /* SMA, k = 2, alpha = 1/2, gamma = 0.1, mu = 0.9, z = 1.5, z_prev = 1:
     * w1 = 1, g1 = 0.4:  c1 = -0.25, w1 = 1 - 0.04 + 0.25 = 1.21
     * w2 = 3, g2 = -0.2: c2 = 0.75,  w2 = 3 + 0.02 - 0.75 = 2.27
     * z = 1.5 + 0.5 + 0.9 (0.5) = 2.45 = mean(1, 3) + mu (z - z_prev): the centre is the
     * learners' mean plus the momentum term when alpha = 1/k */
    float w[2] = {1, 3}, gw[2] = {0.4f, -0.2f}, z = 1.5f, zp = 1, cj[2];
    float mean = (w[0] + w[1]) / 2, mom = 0.9f * (z - zp);
    mb_par_sma_learner(&w[0], &gw[0], &z, &cj[0], 1, 0.1f, 0.5f);
    mb_par_sma_learner(&w[1], &gw[1], &z, &cj[1], 1, 0.1f, 0.5f);
    NEAR(cj[0], -0.25);
    NEAR(cj[1], 0.75);
    NEAR(w[0], 1.21);
    NEAR(w[1], 2.27);
    float csum = cj[0] + cj[1];
    mb_par_sma_centre(&z, &zp, &csum, 1, 0.9f);
    NEAR(z, 2.45);
    NEAR(z, mean + mom);
    NEAR(zp, 1.5);
    /* EAMSGD's Nesterov step: x = 1, v = 0.5, delta = 0.9, eta = 0.1: the gradient is taken at
     * 1.45; with g = 2 there, v = 0.45 - 0.2 = 0.25 and x = 1 + 0.25 = 1.25 */
    float xn = 1, keep, v = 0.5f, gn = 2;
    mb_par_nesterov_lookahead(&xn, &keep, &v, 1, 0.9f);
    NEAR(xn, 1.45);
    NEAR(keep, 1);
    mb_par_nesterov_step(&xn, &keep, &v, &gn, 1, 0.1f, 0.9f);
    NEAR(v, 0.25);
    NEAR(xn, 1.25);
}

/* Zhang et al.'s Algorithms 1 and 2, one learner and the master, worked on paper from the
 * paper's lines (not from the code) on f(x) = x^2 / 2 (g(x) = x), eta = 0.1, alpha = 0.25,
 * tau = 2, from x^i = 2, x~ = 1:
 *   Algorithm 1, t = 0 (tau divides t): x = x^i = 2; x^i <- 2 - 0.25 (2 - 1) = 1.75;
 *     x~ <- 1 + 0.25 (2 - 1) = 1.25; x^i <- 1.75 - 0.1 g(x = 2) = 1.55.
 *     t = 1 (no exchange): x = 1.55; x^i <- 1.55 - 0.1 (1.55) = 1.395.
 *     (The gradient after the exchange would give 1.75 - 0.175 = 1.575 at t = 0.)
 *   Algorithm 2 with delta = 0.5, v = 0.2: x = 2; x^i <- 1.75, x~ <- 1.25;
 *     v <- 0.5 (0.2) - 0.1 g(x + 0.5 (0.2) = 2.1) = 0.1 - 0.21 = -0.11; x^i <- 1.75 - 0.11 = 1.64.
 * The numbers are a few roundings from exact in binary: 1e-6. */
static void test_async_rules_paper(void)
{
    float x = 2, c = 1, e = c, g;
    mb_par_elastic_term(&x, &e, 1, 0.25f); /* the learner: e from the old centre */
    c += e;                                /* the master: x~ + alpha (x - x~) */
    NEAR(e, 0.25);
    NEAR(c, 1.25);
    NEAR(x, 2); /* the copy the gradient is taken at */
    g = x;
    mb_par_async_sgd(&x, &g, &e, 1, 0.1f);
    NEAR(x, 1.55);
    g = x;
    mb_par_async_sgd(&x, &g, NULL, 1, 0.1f);
    NEAR(x, 1.395);
    /* Algorithm 2 */
    float xm = 2, cm = 1, em = cm, v = 0.2f, keep;
    mb_par_elastic_term(&xm, &em, 1, 0.25f);
    cm += em;
    mb_par_nesterov_lookahead(&xm, &keep, &v, 1, 0.5f);
    NEAR(xm, 2.1);
    g = xm;
    keep -= em; /* the exchanged x^i */
    mb_par_nesterov_step(&xm, &keep, &v, &g, 1, 0.1f, 0.5f);
    NEAR(v, -0.11);
    NEAR(xm, 1.64);
    NEAR(cm, 1.25);
}

/* Round-robin EASGD with one learner on f(x) = h x^2 / 2 (h = 1, so eta stands for eta h) from
 * x = 1, x~ = -0.5: the size of (x, x~) after `steps` turns. */
static double rr_quadratic(double eta, double alpha, int steps)
{
    float x = 1, c = -0.5f;
    for (int t = 0; t < steps && fabsf(x) + fabsf(c) < 1e30f; t++) {
        float g = x;
        mb_par_easgd_turn(&x, &g, &c, 1, (float)eta, (float)alpha);
    }
    return fabs(x) + fabs(c);
}

/* Zhang et al.: stable iff 0 <= eta <= 2 and 0 <= alpha <= (4 - 2 eta) / (4 - eta). Points at
 * half the bound and 10% beyond it (or beyond eta = 2, or alpha < 0): inside, 20000 turns shrink
 * (x, x~) below 1e-3 of its start (the slowest contraction here, eta alpha = 0.05 at eta = 0.1,
 * leaves < 1e-40); outside they grow past 1e3. */
static void test_easgd_stability(void)
{
    static const double etas[] = {0.1, 0.5, 1.0, 1.5, 1.9};
    for (size_t i = 0; i < sizeof etas / sizeof etas[0]; i++) {
        double e = etas[i], bound = (4 - 2 * e) / (4 - e);
        double in = rr_quadratic(e, 0.5 * bound, 20000), out = rr_quadratic(e, 1.1 * bound, 20000);
        CU_ASSERT(in < 1.5e-3);
        CU_ASSERT(out > 1.5e3);
        if (!(in < 1.5e-3) || !(out > 1.5e3))
            fprintf(stderr, "\n  eta %g alpha %g: inside %g, outside %g", e, bound, in, out);
    }
    CU_ASSERT(rr_quadratic(2.2, 0.05, 20000) > 1.5e3);  /* eta > 2 */
    CU_ASSERT(rr_quadratic(1.0, -0.05, 20000) > 1.5e3); /* alpha < 0 */
}

/* ---- the trainers on small synthetic data ---------------------------------------------------- */

#define DATA "synthetic:n=400,test=100,c=1,h=8,w=8,classes=4,seed=3"

static char dir[256];
static char mlp[512];    /* fc-relu-fc: no dropout, so learners' slices add up exactly */
static char linear[512]; /* softmax regression: a convex problem */

static int setup(void)
{
    if (mb_test_tmpdir(dir, sizeof dir) != 0)
        return 1;
    mb_test_write(mlp, sizeof mlp, dir, "mlp.cfg",
                  "[net]\nname=mlp\nchannels=1\nheight=8\nwidth=8\n"
                  "[fc]\noutputs=16\nactivation=relu\n[fc]\noutputs=4\n[softmax]\n");
    mb_test_write(linear, sizeof linear, dir, "linear.cfg",
                  "[net]\nname=linear\nchannels=1\nheight=8\nwidth=8\n[fc]\noutputs=4\n[softmax]\n");
    return 0;
}

static int teardown(void)
{
    mb_test_rmdir(dir);
    return 0;
}

static void options(mb_run_options *o, const char *net, int par, int learners, const char *log)
{
    mb_run_options_init(o);
    o->net = net;
    o->data = DATA;
    o->batch = 32;
    o->optim.lr = 0.1;
    o->max_updates = 60;
    o->eval_every = 10;
    o->par = par;
    o->learners = learners;
    o->log_path = log;
    o->tool = "mbtest";
}

static mb_table *read_log(const char *path)
{
    mb_table *t = NULL;
    mb_error err = {0};
    if (mb_table_read(path, &t, &err) != MB_OK)
        printf("\n    %s\n", err.msg);
    return t;
}

/* The log `name` in the suite's folder (a command wrote it), or NULL after a message. */
static mb_table *log_in(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return read_log(path);
}

/* Every row's loss and eval_loss of two logs agree to `rel` (empty cells alike). */
static int same_losses(const mb_table *a, const mb_table *b, double rel)
{
    if (mb_table_rows(a) != mb_table_rows(b))
        return 0;
    static const char *cols[] = {"loss", "eval_loss"};
    for (size_t r = 0; r < mb_table_rows(a); r++)
        for (int k = 0; k < 2; k++) {
            const char *x = mb_table_cell(a, r, (size_t)mb_table_col(a, cols[k]));
            const char *y = mb_table_cell(b, r, (size_t)mb_table_col(b, cols[k]));
            if ((*x == '\0') != (*y == '\0'))
                return 0;
            if (*x && !mb_test_close(atof(x), atof(y), rel)) {
                fprintf(stderr, "\n  row %zu %s: %s vs %s", r, cols[k], x, y);
                return 0;
            }
        }
    return 1;
}

/* Logs pa and pb agree row by row (same_losses to 1e-6); pb has `rows` rows (0: any) and, when
 * `resumed`, names what it resumed from. */
static void logs_agree(const char *pa, const char *pb, size_t rows, int resumed)
{
    mb_table *a = read_log(pa), *b = read_log(pb);
    CU_ASSERT_FATAL(a && b);
    if (rows)
        CU_ASSERT_EQUAL(mb_table_rows(b), rows);
    CU_ASSERT(same_losses(a, b, 1e-6));
    if (resumed)
        CU_ASSERT_PTR_NOT_NULL(mb_table_meta(b, "resumed_from"));
    mb_table_free(a);
    mb_table_free(b);
}

/* sgd-sync: P learners of M/P samples are single-learner SGD at M. The gradients differ only in
 * the order of float sums (shards, then learners), about 1e-7 relative per update; over 60
 * updates of a contracting problem the losses stay within 1e-4. */
static void test_sgd_sync_threads(void)
{
    char p1[512], p2[512], p4[512];
    snprintf(p1, sizeof p1, "%s/sgd.csv", dir);
    snprintf(p2, sizeof p2, "%s/sync2.csv", dir);
    snprintf(p4, sizeof p4, "%s/sync4.csv", dir);
    mb_run_options o;
    mb_run_result r;
    mb_error err = {0};
    options(&o, mlp, MB_PAR_NONE, 1, p1);
    CU_ASSERT_EQUAL_FATAL(mb_train_run(&o, &r, &err), MB_OK);
    options(&o, mlp, MB_PAR_SGD_SYNC, 2, p2);
    CU_ASSERT_EQUAL_FATAL(mb_train_run(&o, &r, &err), MB_OK);
    CU_ASSERT_EQUAL(r.learners, 2);
    CU_ASSERT(isfinite(r.b_simple));
    options(&o, mlp, MB_PAR_SGD_SYNC, 4, p4);
    o.optim.kind = MB_OPTIM_MOMENTUM; /* the same optimiser step on every learner */
    CU_ASSERT_EQUAL_FATAL(mb_train_run(&o, &r, &err), MB_OK);
    char pm[512];
    snprintf(pm, sizeof pm, "%s/mom.csv", dir);
    options(&o, mlp, MB_PAR_NONE, 1, pm);
    o.optim.kind = MB_OPTIM_MOMENTUM;
    CU_ASSERT_EQUAL_FATAL(mb_train_run(&o, &r, &err), MB_OK);
    mb_table *a = read_log(p1), *b = read_log(p2), *c = read_log(p4), *d = read_log(pm);
    CU_ASSERT_FATAL(a && b && c && d);
    CU_ASSERT(same_losses(a, b, 1e-4));
    CU_ASSERT(same_losses(d, c, 1e-4));
    CU_ASSERT_STRING_EQUAL(mb_table_meta(b, "algo"), "sgd-sync");
    CU_ASSERT_STRING_EQUAL(mb_table_meta(b, "learners"), "2");
    CU_ASSERT_STRING_EQUAL(mb_table_meta(b, "ranks"), "1");
    static const char *keys[] = {"t_compute_s", "t_comm_s", "t_data_s", "t_update_s",
                                 "t_eval_s", "b_simple", "learner_batch"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        CU_ASSERT_PTR_NOT_NULL(mb_table_meta(b, keys[k]));
    CU_ASSERT_STRING_EQUAL(mb_table_meta(b, "learner_batch"), "16");
    mb_table_free(a);
    mb_table_free(b);
    mb_table_free(c);
    mb_table_free(d);
}

/* Every algorithm trains: on the convex problem the evaluated loss of the centre falls well
 * below the uniform guess ln 4 = 1.386 (single-learner SGD here reaches about 0.3 in 60 updates;
 * 0.9 leaves room for the slower averaging methods). Hogwild's lock-free centre included. */
static void test_every_algorithm_trains(void)
{
    for (int a = MB_PAR_SGD_SYNC; a < MB_PAR_N; a++) {
        char p[512];
        snprintf(p, sizeof p, "%s/%s.csv", dir, mb_par_algo_name(a));
        mb_run_options o;
        mb_run_result r;
        mb_error err = {0};
        options(&o, linear, a, 2, p);
        o.max_updates = 120;
        o.target_loss = 0.9;
        o.tau = a == MB_PAR_DOWNPOUR || a == MB_PAR_EASGD_ASYNC ? 2 : 1;
        int rc = mb_train_run(&o, &r, &err);
        CU_ASSERT_EQUAL(rc, MB_OK);
        if (rc != MB_OK)
            fprintf(stderr, "\n  %s: %s", mb_par_algo_name(a), err.msg);
        CU_ASSERT(r.reached);
        if (!r.reached)
            fprintf(stderr, "\n  %s: eval_loss %g after %ld updates", mb_par_algo_name(a),
                    r.eval_loss, r.updates);
        CU_ASSERT(r.reached_update > 0 && r.reached_update <= r.updates);
        CU_ASSERT_EQUAL(r.learners, 2);
        mb_table *t = read_log(p);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        CU_ASSERT_STRING_EQUAL(mb_table_meta(t, "algo"), mb_par_algo_name(a));
        CU_ASSERT_EQUAL((long)mb_table_rows(t), r.updates);
        if (a != MB_PAR_SGD_SYNC)
            CU_ASSERT_PTR_NOT_NULL(mb_table_meta(t, a == MB_PAR_DOWNPOUR ? "tau"
                                                                         : "elastic_alpha"));
        mb_table_free(t);
    }
}

/* Hogwild's first update is training time: the learners' first steps wait for the watcher's
 * clock (they ran before it in half of all runs, and update 1 was logged at 0 s, which the log
 * readers refuse). Five runs, each row's wall_s at least a microsecond. */
static void test_hogwild_first_update(void)
{
    for (int k = 0; k < 5; k++) {
        char p[512];
        snprintf(p, sizeof p, "%s/hogwild-%d.csv", dir, k);
        mb_run_options o;
        mb_run_result r;
        mb_error err = {0};
        options(&o, linear, MB_PAR_EASGD_HOGWILD, 2, p);
        o.max_updates = 5;
        o.seed = (unsigned long)k;
        CU_ASSERT_EQUAL_FATAL(mb_train_run(&o, &r, &err), MB_OK);
        mb_table *t = read_log(p);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        long c = mb_table_col(t, "wall_s");
        CU_ASSERT_FATAL(c >= 0);
        for (size_t i = 0; i < mb_table_rows(t); i++) {
            double w = 0;
            CU_ASSERT_EQUAL(mb_table_double(t, i, (size_t)c, &w, &err), MB_OK);
            CU_ASSERT(w >= 1e-6);
        }
        mb_table_free(t);
    }
}

/* The staged checks (check_frac) are the run monitor's, so the parallel trainers have them as
 * one learner does: for each lockstep algorithm (deterministic over threads) the same crossing
 * as full evaluations, every evaluation either full or ruled out (together the plain run's, the
 * bisection's included), some ruled out, fewer samples evaluated, and the log says so. The
 * eval subset is 400 samples, so the first stage (1/8) has 8 chunks of 6. */
static void test_checks(void)
{
    static const int algos[] = {MB_PAR_SGD_SYNC, MB_PAR_EASGD_SYNC, MB_PAR_SMA};
    for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++) {
        char pp[512], pc[512];
        snprintf(pp, sizeof pp, "%s/%s-plain.csv", dir, mb_par_algo_name(algos[a]));
        snprintf(pc, sizeof pc, "%s/%s-check.csv", dir, mb_par_algo_name(algos[a]));
        mb_run_options o;
        mb_run_result rp, rc;
        mb_error err = {0};
        options(&o, mlp, algos[a], 2, pp);
        o.data = "synthetic:n=2000,test=100,c=1,h=8,w=8,classes=4,seed=3";
        o.max_updates = 600;
        o.target_loss = 0.3;
        CU_ASSERT_EQUAL_FATAL(mb_train_run(&o, &rp, &err), MB_OK);
        o.check_frac = 0.125;
        o.log_path = pc;
        CU_ASSERT_EQUAL_FATAL(mb_train_run(&o, &rc, &err), MB_OK);
        CU_ASSERT(rp.reached && rc.reached);
        CU_ASSERT(rp.reached_update > 10);
        CU_ASSERT_EQUAL(rc.reached_update, rp.reached_update);
        CU_ASSERT_EQUAL(rp.checks, 0);
        CU_ASSERT_EQUAL(rc.evals + rc.checks, rp.evals);
        CU_ASSERT(rc.checks > 0);
        CU_ASSERT_EQUAL(rp.eval_samples, 400 * (size_t)rp.evals);
        CU_ASSERT(rc.eval_samples > 400 * (size_t)rc.evals &&
                  rc.eval_samples < 400 * (size_t)rp.evals);
        mb_table *t = read_log(pc);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        CU_ASSERT_PTR_NOT_NULL(mb_table_meta(t, "check_frac"));
        CU_ASSERT_EQUAL((long)mb_table_rows(t), rc.updates);
        mb_table_free(t);
    }
}

/* SMA's tuning of learners per process logs its trace: one "k:samples_per_s" per window, k
 * starting at 1 and moving by one, and the number it kept (no assertion on the speeds: they
 * are the machine's). */
static void test_sma_tune_trace(void)
{
    char p[512];
    snprintf(p, sizeof p, "%s/sma-tune.csv", dir);
    mb_run_options o;
    mb_run_result r;
    mb_error err = {0};
    options(&o, linear, MB_PAR_SMA, 3, p);
    o.sma_tune = 1;
    o.sma_tune_window = 5;
    o.batch = 30;
    CU_ASSERT_EQUAL_FATAL(mb_train_run(&o, &r, &err), MB_OK);
    mb_table *t = read_log(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    const char *trace = mb_table_meta(t, "sma_tune"), *kept = mb_table_meta(t, "sma_learners");
    CU_ASSERT_FATAL(trace && kept);
    CU_ASSERT_EQUAL(strncmp(trace, "1:", 2), 0);
    int k = atoi(kept), last = 0, steps = 0;
    for (const char *q = trace; q && *q; q = strchr(q, ',') ? strchr(q, ',') + 1 : NULL) {
        int kk = atoi(q);
        CU_ASSERT_EQUAL(kk, last + 1); /* learners are added one at a time */
        CU_ASSERT(atof(strchr(q, ':') + 1) > 0);
        last = kk;
        steps++;
    }
    CU_ASSERT(k >= 1 && k <= 3);
    CU_ASSERT(k == last || k == last - 1); /* kept the last, or removed it */
    CU_ASSERT(steps >= 1 && steps <= 3);
    /* the job's learners stay P (the rows' samples lie between u M / P and u M), k apart */
    CU_ASSERT_EQUAL(r.learners, 3);
    CU_ASSERT_STRING_EQUAL(mb_table_meta(t, "learners"), "3");
    mb_table_free(t);
}

/* Campaign 33's D15: tuned runs that reached the target before their first window closed (an
 * empty trace, one learner of two computing every update) are read back and fitted by mbfit
 * nupdate; the count kept, 1, as the log's learners made their samples (u M / 2) contradict
 * updates x batch. (A window of 100, within both runs' bounds: one past a run's bound is
 * refused since campaign 44 A's F6.) */
static void test_sma_tune_unwindowed_fit(void)
{
    mb_test_run r;
    mb_test_sh(&r, "mkdir -p %s/tune && for b in 16 32; do mbtrain --net %s --data " DATA
               " --algo sma --learners 2 --sma-tune --sma-tune-window 100 --batch $b --lr 0.1 "
               "--target-loss 0.9 --max-updates 200 --eval-every 5 --log %s/tune/t$b.csv "
               ">/dev/null || exit; done && grep -qx '# sma_tune=' %s/tune/t16.csv && "
               "grep -qx '# sma_learners=1' %s/tune/t16.csv && grep -q ' samples=120 .* "
               "learners=2 ' %s/tune/t16.csv && mbfit nupdate --target-loss 0.9 %s/tune/t16.csv "
               "%s/tune/t32.csv", dir, linear, dir, dir, dir, dir, dir, dir);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "inverse-law"));
    if (r.status != 0)
        printf("\n    %s\n", r.err);
    mb_test_run_free(&r);
}

/* mbfit nupdate takes one (algo, P) at a time and shows the runs' B_simple beside alpha/N_inf.
 * The data are noisier than DATA, and the rate higher, so that M = 16 needs clearly more updates
 * than M = 32 (27 against 19): on DATA both reached 0.9 at update 12 on one machine's OpenBLAS,
 * and a flat N_update is no law's. */
static void test_mbfit_groups(void)
{
    char d2[512];
    snprintf(d2, sizeof d2, "%s/fit", dir);
    mb_test_run r;
    mb_test_sh(&r, "mkdir -p %s && mbtrain --net %s --data " DATA ",noise=1 --algo sgd-sync "
               "--learners 2 --batch 16,32 --lr 0.5 --target-loss 0.9 --max-updates 200 "
               "--eval-every 5 --log-dir %s && mbtrain --net %s --data " DATA ",noise=1 --algo sgd "
               "--batch 16,32 --lr 0.5 --target-loss 0.9 --max-updates 200 --eval-every 5 "
               "--log-dir %s",
               d2, linear, d2, linear, d2);
    CU_ASSERT_EQUAL_FATAL(r.status, 0);
    mb_test_run_free(&r);
    mb_test_sh(&r, "mbfit nupdate --target-loss 0.9 %s/*.csv", d2);
    CU_ASSERT_EQUAL(r.status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "--algo A --procs P"));
    CU_ASSERT_EQUAL(mb_test_lines(r.err), 1);
    mb_test_run_free(&r);
    mb_test_sh(&r, "mbfit nupdate --target-loss 0.9 --algo sgd-sync --procs 2 %s/*.csv", d2);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "B_simple"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, ": ratio ")); /* beside alpha / N_inf */
    mb_test_run_free(&r);
    mb_test_sh(&r, "mbfit nupdate --target-loss 0.9 --algo sgd-sync --procs 2 --json %s/*.csv",
               d2);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\"b_simple_runs\":\t2"));
    mb_test_run_free(&r);
    mb_test_sh(&r, "mbfit nupdate --target-loss 0.9 --algo sgd --procs 2 %s/*.csv", d2);
    CU_ASSERT_EQUAL(r.status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "no run of that algorithm"));
    mb_test_run_free(&r);
}

/* A checkpoint holds every learner and the centre: a run stopped at update 20 and resumed to 40
 * logs the rows of the straight run (the threads' sums are in a fixed order, so exactly). */
/* The same with the straight run's log given (a run of those options already made: under
 * mpirun every launch costs a second or two), or made here when `straight` is NULL. */
static void resume_case_of(const char *prefix, const char *net, const char *algo,
                           const char *launch, const char *straight)
{
    mb_test_run r;
    const char *common = "--data " DATA " --batch 32 --lr 0.1 --eval-every 10";
    char made[512];
    if (!straight) {
        snprintf(made, sizeof made, "%s/%s-s.csv", dir, prefix);
        mb_test_sh(&r, "%smbtrain --net %s %s --algo %s --max-updates 40 --log %s", launch, net,
                   common, algo, made);
        CU_ASSERT_EQUAL(r.status, 0);
        mb_test_run_free(&r);
        straight = made;
    }
    mb_test_sh_ok(&r, "%smbtrain --net %s %s --algo %s --max-updates 20 --checkpoint %s/%s.ck "
                  "--checkpoint-every 10 && "
                  "%smbtrain --net %s %s --algo %s --max-updates 40 --resume %s/%s.ck --log %s/%s-r.csv",
                  launch, net, common, algo, dir, prefix, launch, net, common, algo, dir, prefix,
                  dir, prefix);
    mb_test_run_free(&r);
    char pb[512];
    snprintf(pb, sizeof pb, "%s/%s-r.csv", dir, prefix);
    logs_agree(straight, pb, 40, 1);
}

static void resume_case(const char *prefix, const char *algo, const char *launch)
{
    resume_case_of(prefix, mlp, algo, launch, NULL);
}

/* An asynchronous run resumed: it continues from the checkpoint to the bound, 40 rows of finite
 * losses, the first 20 (up to the checkpoint at the first run's bound) those of the run that
 * wrote it. (With several learners the order of their exchanges is the machine's: no run
 * repeats another.) */
static void resume_async_case(const char *prefix, const char *algo, const char *launch)
{
    mb_test_run r;
    const char *common = "--data " DATA " --batch 32 --lr 0.1 --eval-every 10";
    mb_test_sh_ok(&r, "%smbtrain --net %s %s --algo %s --max-updates 20 --checkpoint %s/%s.ck "
                  "--checkpoint-every 10 --log %s/%s-c.csv && "
                  "%smbtrain --net %s %s --algo %s --max-updates 40 --resume %s/%s.ck --log %s/%s-r.csv",
                  launch, mlp, common, algo, dir, prefix, dir, prefix, launch, mlp, common, algo, dir,
                  prefix, dir, prefix);
    mb_test_run_free(&r);
    char pa[512], pb[512];
    snprintf(pa, sizeof pa, "%s/%s-c.csv", dir, prefix);
    snprintf(pb, sizeof pb, "%s/%s-r.csv", dir, prefix);
    mb_table *a = read_log(pa), *b = read_log(pb);
    CU_ASSERT_FATAL(a && b);
    CU_ASSERT_EQUAL(mb_table_rows(b), 40);
    int col = mb_table_col(b, "loss"), upd = mb_table_col(b, "update");
    for (size_t u = 0; u < mb_table_rows(b); u++) {
        CU_ASSERT_EQUAL(atol(mb_table_cell(b, u, (size_t)upd)), (long)u + 1);
        CU_ASSERT(isfinite(atof(mb_table_cell(b, u, (size_t)col))));
        if (u < 20) /* the rows the checkpoint carried */
            CU_ASSERT_STRING_EQUAL(mb_table_cell(b, u, (size_t)col),
                                   mb_table_cell(a, u, (size_t)col));
    }
    CU_ASSERT_PTR_NOT_NULL(mb_table_meta(b, "resumed_from"));
    mb_table_free(a);
    mb_table_free(b);
}

static void test_resume_threads(void)
{
    resume_case("t-sma", "sma --learners 2", "");
    resume_case("t-easgd-sync", "easgd-sync --learners 2", "");
    /* the asynchronous algorithms with one learner are deterministic: a resume must give the
     * straight run's rows (the checkpoint pauses the learner at its exchange, and the resumed
     * one starts right after it: --tau 2 checks that it does not exchange twice) */
    resume_case("t-downpour", "downpour --learners 1 --optim momentum", "");
    resume_case("t-easgd-async", "easgd-async --learners 1 --tau 2", "");
    resume_case("t-eamsgd", "eamsgd --learners 1", "");
    resume_case("t-hogwild", "easgd-hogwild --learners 1 --tau 3", "");
    /* with two learners they continue */
    resume_async_case("t2-downpour", "downpour --learners 2", "");
    resume_async_case("t2-easgd-async", "easgd-async --learners 2", "");
    resume_async_case("t2-eamsgd", "eamsgd --learners 2", "");
    resume_async_case("t2-hogwild", "easgd-hogwild --learners 2", "");
    /* --sma-tune: the tuning goes on where it was; the resumed trace extends the checkpoint's */
    resume_async_case("t-sma-tune", "sma --learners 3 --sma-tune --sma-tune-window 8", "");
    {
        char pa[512], pb[512];
        snprintf(pa, sizeof pa, "%s/t-sma-tune-c.csv", dir);
        snprintf(pb, sizeof pb, "%s/t-sma-tune-r.csv", dir);
        mb_table *a = read_log(pa), *b = read_log(pb);
        CU_ASSERT_FATAL(a && b);
        const char *ta = mb_table_meta(a, "sma_tune"), *tb = mb_table_meta(b, "sma_tune");
        CU_ASSERT_FATAL(ta && tb);
        CU_ASSERT_EQUAL(strncmp(ta, tb, strlen(ta)), 0);
        mb_table_free(a);
        mb_table_free(b);
    }
    /* a checkpoint of another algorithm, or without its learners' file, is refused */
    mb_test_run r;
    mb_test_sh(&r, "mbtrain --net %s --data " DATA " --batch 32 --algo easgd --learners 2 "
               "--max-updates 40 --resume %s/t-sma.ck", mlp, dir);
    CU_ASSERT_EQUAL(r.status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "checkpoint of sma"));
    mb_test_run_free(&r);
    mb_test_sh(&r, "rm %s/t-sma.ck.learners && mbtrain --net %s --data " DATA " --batch 32 "
               "--algo sma --learners 2 --max-updates 40 --resume %s/t-sma.ck", dir, mlp, dir);
    CU_ASSERT_EQUAL(r.status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "PATH.learners"));
    mb_test_run_free(&r);
    /* a job killed between its two writes: PATH still of update 10 beside PATH.learners of 20
     * (then with no PATH.learners at all: killed after an older mbtrain, or one on a filesystem
     * without hard links, moved the old one aside); the resume takes PATH.learners.prev, of
     * PATH's update, and logs the straight run's rows */
    const char *c = "--data " DATA " --batch 32 --lr 0.1 --eval-every 10 --algo sma --learners 2";
    for (int gone = 0; gone < 2; gone++) {
        mb_test_sh_ok(&r, "cd %s && mbtrain --net %s %s --max-updates 10 --checkpoint k.ck "
                      "--checkpoint-every 10 && cp k.ck k10.ck && "
                      "mbtrain --net %s %s --max-updates 20 --resume k.ck --checkpoint k.ck "
                      "--checkpoint-every 10 && test -e k.ck.learners.prev && cp k10.ck k.ck && %s"
                      "mbtrain --net %s %s --max-updates 40 --resume k.ck --log t-sma-k%d.csv",
                      dir, mlp, c, mlp, c, gone ? "rm k.ck.learners && " : "", mlp, c, gone);
        mb_test_run_free(&r);
        char pa[512], pb[512];
        snprintf(pa, sizeof pa, "%s/t-sma-s.csv", dir);
        snprintf(pb, sizeof pb, "%s/t-sma-k%d.csv", dir, gone);
        logs_agree(pa, pb, 0, 0);
    }
    /* killed twice: after the resume above took .prev (update 10), its first checkpoint to the
     * same PATH is killed in turn between its two writes (PATH back to update 10). Had that
     * checkpoint kept the first kill's PATH.learners (of no set) as .prev, no set was whole and
     * the resume was refused (campaign 33's open item); .prev stays PATH's partner until a set
     * is whole again, so the resume takes it and logs the straight run's rows */
    mb_test_sh_ok(&r, "cd %s && rm -f k2.ck* && mbtrain --net %s %s --max-updates 10 "
                  "--checkpoint k2.ck --checkpoint-every 10 && cp k2.ck k2-10.ck && "
                  "mbtrain --net %s %s --max-updates 20 --resume k2.ck --checkpoint k2.ck "
                  "--checkpoint-every 10 && cp k2-10.ck k2.ck && mbtrain --net %s %s "
                  "--max-updates 20 --resume k2.ck --checkpoint k2.ck --checkpoint-every 10 && "
                  "cp k2-10.ck k2.ck && mbtrain --net %s %s --max-updates 40 --resume k2.ck "
                  "--log t-sma-k2.csv", dir, mlp, c, mlp, c, mlp, c, mlp, c);
    mb_test_run_free(&r);
    {
        char pa[512], pb[512];
        snprintf(pa, sizeof pa, "%s/t-sma-s.csv", dir);
        snprintf(pb, sizeof pb, "%s/t-sma-k2.csv", dir);
        logs_agree(pa, pb, 40, 1);
    }
    /* the same with PATH.learners a symbolic link into another folder (campaign 23's R2: the
     * link itself was moved to .prev and a regular file written in its place): written
     * through, the link kept, the previous file kept beside its target as TARGET.prev, and the
     * resume takes that .prev as it takes NAME.prev */
    mb_test_sh_ok(&r, "cd %s && rm -rf lk lk-t && mkdir lk lk-t && cd lk && ln -s ../lk-t/t "
                  "k.ck.learners && mbtrain --net %s %s --max-updates 10 --checkpoint k.ck "
                  "--checkpoint-every 10 && cp k.ck k10.ck && mbtrain --net %s %s --max-updates "
                  "20 --resume k.ck --checkpoint k.ck --checkpoint-every 10 && "
                  "test -L k.ck.learners && test -s ../lk-t/t && test -s ../lk-t/t.prev && "
                  "! test -e k.ck.learners.prev && cp k10.ck k.ck && mbtrain --net %s %s "
                  "--max-updates 40 --resume k.ck --log ../t-sma-lk.csv && test -L k.ck.learners",
                  dir, mlp, c, mlp, c, mlp, c);
    mb_test_run_free(&r);
    char pa[512], pb[512];
    snprintf(pa, sizeof pa, "%s/t-sma-s.csv", dir);
    snprintf(pb, sizeof pb, "%s/t-sma-lk.csv", dir);
    logs_agree(pa, pb, 0, 0);
    /* an asynchronous job killed as it replaced PATH.learners, by an mbtrain that moved it to
     * .prev first (campaign 32's A-B2: the resume could not open PATH.learners): its set is
     * PATH.learners alone (no PATH), so .prev alone is its last whole set, of update 10; the
     * resume takes it and logs the straight run's rows (one learner: deterministic) */
    const char *ca = "--data " DATA " --batch 32 --lr 0.1 --eval-every 10 --algo downpour "
                     "--learners 1 --optim momentum";
    mb_test_sh_ok(&r, "cd %s && rm -f ka.ck* && mbtrain --net %s %s --max-updates 20 "
                  "--checkpoint ka.ck --checkpoint-every 10 && ! test -e ka.ck && "
                  "test -e ka.ck.learners.prev && rm ka.ck.learners && mbtrain --net %s %s "
                  "--max-updates 40 --resume ka.ck --log t-downpour-ka.csv", dir, mlp, ca, mlp, ca);
    mb_test_run_free(&r);
    snprintf(pa, sizeof pa, "%s/t-downpour-s.csv", dir);
    snprintf(pb, sizeof pb, "%s/t-downpour-ka.csv", dir);
    logs_agree(pa, pb, 40, 1);
}

/* ---- learning-rate schedules: every rule at its update's rate ------------------------------- */

/* The schedule of these tests: lr 0.1, times 0.3 every 5 updates (0.1, 0.03, 0.009 over 15). */
enum { SCH_U = 15, SCH_EVERY = 5 };
#define SCH_LR 0.1
#define SCH_GAMMA 0.3

/* Update u's rate, written out here rather than taken from mb_optim_lr_at: the trainers must
 * agree with this formula, not with themselves. `scheduled` 0 gives the constant rate. */
static float sch_eta(long u, int scheduled)
{
    return (float)(scheduled ? SCH_LR * pow(SCH_GAMMA, (double)(u / SCH_EVERY)) : SCH_LR);
}

/* The learners of a hand-stepped run, built as the trainer builds them: p learners of M/p
 * samples on consecutive slices of one permutation, all from the first learner's parameters
 * (lockstep) or from the evaluation network's (server algorithms, where the centre starts). */
typedef struct hand {
    mb_data_splits data;
    mb_net_desc *desc;
    mb_learner l[2];
    int p;
    size_t n;
    float wd; /* L2 weight decay: adds wd x to every gradient */
    float *c, *aux, *cs[2], *sum, *keep;
} hand;

static int hand_init(hand *h, const mb_run_options *o, int p, int server)
{
    mb_error err = {0};
    memset(h, 0, sizeof *h);
    h->p = p;
    h->wd = (float)o->optim.weight_decay;
    if (mb_data_load(o->data, o->eval_frac, o->data_seed, &h->data, &err) != MB_OK ||
        mb_net_desc_read(o->net, &h->desc, &err) != MB_OK) {
        fprintf(stderr, "\n  %s", err.msg);
        return 1;
    }
    mb_run_options lo = *o;
    lo.batch = o->batch / p;
    for (int i = 0; i < p; i++)
        if (mb_learner_init(&h->l[i], h->desc, &lo, h->data.train.n, &err) != MB_OK ||
            mb_learner_set_slice(&h->l[i], i * lo.batch, o->batch, &err) != MB_OK) {
            fprintf(stderr, "\n  %s", err.msg);
            return 1;
        }
    h->n = mb_net_param_count(h->l[0].net);
    size_t bytes = h->n * sizeof(float);
    h->c = malloc(bytes);
    h->aux = calloc(h->n, sizeof(float));
    h->sum = malloc(bytes);
    h->keep = malloc(bytes);
    h->cs[0] = malloc(bytes);
    h->cs[1] = malloc(bytes);
    memcpy(h->c, mb_net_params(h->l[0].net), bytes);
    if (server) { /* the centre starts at the evaluation network's parameters */
        mb_net_options no = {.max_batch = 128, .seed = o->seed, .algo = o->conv_algo,
                             .threads = o->threads};
        mb_net *e = NULL;
        if (mb_net_create(h->desc, &no, &e, &err) != MB_OK)
            return 1;
        memcpy(h->c, mb_net_params(e), bytes);
        mb_net_free(e);
    }
    for (int i = 0; i < p; i++)
        memcpy(mb_net_params(h->l[i].net), h->c, bytes);
    return 0;
}

static void hand_free(hand *h)
{
    for (int i = 0; i < 2; i++) {
        mb_learner_free(&h->l[i]);
        free(h->cs[i]);
    }
    free(h->c);
    free(h->aux);
    free(h->sum);
    free(h->keep);
    mb_net_desc_free(h->desc);
    mb_data_splits_free(&h->data);
}

/* Learner i's next batch and its gradient at its parameters; the batch's loss. */
static float hand_grad(hand *h, int i)
{
    long epoch;
    double loss = NAN;
    mb_error err = {0};
    mb_learner_gather(&h->l[i], &h->data.train, &epoch);
    if (mb_learner_grad(&h->l[i], &loss, &err) != MB_OK)
        fprintf(stderr, "\n  %s", err.msg);
    float *x = mb_net_params(h->l[i].net), *g = mb_net_grads(h->l[i].net);
    for (size_t k = 0; h->wd > 0 && k < h->n; k++)
        g[k] += h->wd * x[k];
    return (float)loss;
}

/* The training loss of each of SCH_U updates of `algo`, stepped here with the rules of
 * par_rules.c at the rate sch_eta(u, scheduled): what the log's loss column must hold. Two
 * learners for the lockstep rules, one learner and its server for the others (with one learner
 * the asynchronous rules are deterministic). alpha and mu are the trainers' defaults or o's. */
static int hand_losses(const mb_run_options *o, int scheduled, float *loss)
{
    int algo = o->par, server = mb_par_algo_has_server(algo), p = server ? 1 : 2;
    hand h;
    if (hand_init(&h, o, p, server) != 0) {
        hand_free(&h);
        return 1;
    }
    const size_t n = h.n;
    const float a = (float)(!isnan(o->elastic_alpha) ? o->elastic_alpha
                            : algo == MB_PAR_SMA    ? 1.0 / p
                                                    : 0.9 / p);
    const float mu = algo == MB_PAR_SMA ? 0.9f : 0.99f;
    if (algo == MB_PAR_SMA)
        memcpy(h.aux, h.c, n * sizeof(float)); /* z_prev = z */
    for (long u = 0; u < SCH_U; u++) {
        float eta = sch_eta(u, scheduled), l[2] = {0, 0};
        float *x0 = mb_net_params(h.l[0].net), *g0 = mb_net_grads(h.l[0].net);
        switch (algo) {
        case MB_PAR_EASGD_SYNC: /* You et al. eq. 1-2 from the old x~ and x^i, every tau-th
                                 * update; local SGD steps between */
            if (u % o->tau != 0) {
                for (int i = 0; i < 2; i++) {
                    l[i] = hand_grad(&h, i);
                    float *x = mb_net_params(h.l[i].net), *g = mb_net_grads(h.l[i].net);
                    for (size_t k = 0; k < n; k++)
                        x[k] -= eta * g[k];
                }
                break;
            }
            for (size_t k = 0; k < n; k++)
                h.sum[k] = 0;
            for (int i = 0; i < 2; i++) {
                l[i] = hand_grad(&h, i);
                float *x = mb_net_params(h.l[i].net);
                for (size_t k = 0; k < n; k++)
                    h.sum[k] += x[k];
            }
            for (int i = 0; i < 2; i++)
                mb_par_easgd_learner(mb_net_params(h.l[i].net), mb_net_grads(h.l[i].net), h.c, n,
                                     eta, a);
            mb_par_easgd_centre(h.c, h.sum, n, a, 2);
            break;
        case MB_PAR_EASGD: /* one round: learner 0's turn, then learner 1's */
            for (int i = 0; i < 2; i++) {
                l[i] = hand_grad(&h, i);
                mb_par_easgd_turn(mb_net_params(h.l[i].net), mb_net_grads(h.l[i].net), h.c, n,
                                  eta, a);
            }
            break;
        case MB_PAR_SMA: /* where the rate changes, restart from z: w_j = z_prev = z */
            if (scheduled && u > 0 && sch_eta(u, 1) != sch_eta(u - 1, 1)) {
                memcpy(h.aux, h.c, n * sizeof(float));
                for (int i = 0; i < 2; i++)
                    memcpy(mb_net_params(h.l[i].net), h.c, n * sizeof(float));
            }
            for (int i = 0; i < 2; i++) {
                l[i] = hand_grad(&h, i);
                mb_par_sma_learner(mb_net_params(h.l[i].net), mb_net_grads(h.l[i].net), h.c,
                                   h.cs[i], n, eta, a);
            }
            for (size_t k = 0; k < n; k++)
                h.sum[k] = h.cs[0][k] + h.cs[1][k];
            mb_par_sma_centre(h.c, h.aux, h.sum, n, mu);
            break;
        case MB_PAR_DOWNPOUR: /* one learner, tau 1: x = x~; x~ -= eta_u g(x~) */
            memcpy(x0, h.c, n * sizeof(float));
            l[0] = hand_grad(&h, 0);
            for (size_t k = 0; k < n; k++)
                h.c[k] -= eta * g0[k];
            break;
        case MB_PAR_EAMSGD: /* Algorithm 2: e from the copy x before the exchange; Nesterov's
                             * look-ahead from x; x^i <- (x - e) + v. --grad-after-exchange:
                             * the exchange first, the look-ahead from the exchanged x^i */
            if (o->grad_after_exchange) {
                mb_par_elastic(x0, h.c, n, a);
                mb_par_nesterov_lookahead(x0, h.keep, h.aux, n, mu);
                l[0] = hand_grad(&h, 0);
                mb_par_nesterov_step(x0, h.keep, h.aux, g0, n, eta, mu);
                break;
            }
            memcpy(h.sum, h.c, n * sizeof(float));
            mb_par_elastic_term(x0, h.sum, n, a); /* h.sum = e */
            for (size_t k = 0; k < n; k++)
                h.c[k] += h.sum[k];
            mb_par_nesterov_lookahead(x0, h.keep, h.aux, n, mu);
            l[0] = hand_grad(&h, 0);
            for (size_t k = 0; k < n; k++)
                h.keep[k] -= h.sum[k];
            mb_par_nesterov_step(x0, h.keep, h.aux, g0, n, eta, mu);
            break;
        default: /* easgd-async, easgd-hogwild, Algorithm 1: e = alpha (x - x~) from the copy
                  * before the exchange, g at that copy, x^i <- (x - e) - eta g(x);
                  * --grad-after-exchange: the exchange, then g at the exchanged x^i */
            if (o->grad_after_exchange) {
                mb_par_elastic(x0, h.c, n, a);
                l[0] = hand_grad(&h, 0);
                for (size_t k = 0; k < n; k++)
                    x0[k] -= eta * g0[k];
                break;
            }
            memcpy(h.sum, h.c, n * sizeof(float));
            mb_par_elastic_term(x0, h.sum, n, a);
            for (size_t k = 0; k < n; k++)
                h.c[k] += h.sum[k];
            l[0] = hand_grad(&h, 0);
            mb_par_async_sgd(x0, g0, h.sum, n, eta);
            break;
        }
        loss[u] = p == 2 ? (l[0] + l[1]) / 2 : l[0];
    }
    hand_free(&h);
    return 0;
}

/* Every rule family (synchronous and round-robin EASGD, SMA with its restart, asynchronous
 * EASGD and Hogwild, EAMSGD, DOWNPOUR's master) against its hand-stepped run, with the schedule
 * (`scheduled`) or at a constant rate, and with L2 weight decay `wd`: the log's losses are the
 * hand-stepped run's (to 1e-5: float sums taken in another order, over 15 updates of a
 * contracting problem) and not those of the run without the feature (the check could fail).
 * Logs are DIR/TAG-ALGO.csv. */
static void rules_match_hand_of(const char *tag, int scheduled, double wd, int after, long tau)
{
    static const int algos[] = {MB_PAR_EASGD_SYNC, MB_PAR_EASGD, MB_PAR_SMA, MB_PAR_EASGD_ASYNC,
                                MB_PAR_EASGD_HOGWILD, MB_PAR_EAMSGD, MB_PAR_DOWNPOUR};
    for (size_t k = 0; k < sizeof algos / sizeof algos[0]; k++) {
        int a = algos[k], server = mb_par_algo_has_server(a);
        int elastic_async = a == MB_PAR_EASGD_ASYNC || a == MB_PAR_EAMSGD ||
                            a == MB_PAR_EASGD_HOGWILD;
        if ((after && !elastic_async) || (tau > 1 && a != MB_PAR_EASGD_SYNC))
            continue;
        char p[512];
        snprintf(p, sizeof p, "%s/%s-%s.csv", dir, tag, mb_par_algo_name(a));
        mb_run_options o;
        mb_run_result r;
        mb_error err = {0};
        options(&o, mlp, a, server ? 1 : 2, p);
        o.max_updates = SCH_U;
        o.optim.lr = SCH_LR;
        o.optim.lr_step_every = scheduled ? SCH_EVERY : 0;
        o.optim.lr_step_gamma = SCH_GAMMA;
        o.optim.weight_decay = wd;
        o.grad_after_exchange = after;
        o.tau = tau;
        if (server)
            o.elastic_alpha = 0.3; /* one learner: 0.9 / p would nearly copy the centre */
        int rc = mb_train_run(&o, &r, &err);
        CU_ASSERT_EQUAL(rc, MB_OK);
        if (rc != MB_OK) {
            fprintf(stderr, "\n  %s: %s", mb_par_algo_name(a), err.msg);
            continue;
        }
        float want[SCH_U], flat[SCH_U];
        CU_ASSERT_EQUAL_FATAL(hand_losses(&o, scheduled, want), 0);
        mb_run_options plain = o; /* the same run without the feature under test */
        plain.optim.weight_decay = scheduled ? wd : 0.0;
        if (after || tau > 1) { /* the rule of Zhang et al. (or every update exchanging) */
            plain.grad_after_exchange = 0;
            plain.tau = 1;
        }
        CU_ASSERT_EQUAL_FATAL(hand_losses(&plain, 0, flat), 0);
        mb_table *t = read_log(p);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        CU_ASSERT_EQUAL_FATAL(mb_table_rows(t), SCH_U);
        int col = mb_table_col(t, "loss"), same = 1, off_flat = 0;
        for (size_t u = 0; u < SCH_U; u++) {
            double got = atof(mb_table_cell(t, u, (size_t)col));
            if (!mb_test_close(got, want[u], 1e-5)) {
                if (same)
                    fprintf(stderr, "\n  %s row %zu: loss %.9g, by hand %.9g", mb_par_algo_name(a),
                            u + 1, got, (double)want[u]);
                same = 0;
            }
            off_flat += !mb_test_close(got, flat[u], after || tau > 1 ? 1e-5 : 1e-3);
        }
        CU_ASSERT(same);
        /* the rows after the schedule's first step (or all but the first, with decay, the old
         * rule or a period) differ */
        CU_ASSERT(off_flat >= (scheduled ? SCH_U - SCH_EVERY - 2 : SCH_U - 3));
        if (!(off_flat >= (scheduled ? SCH_U - SCH_EVERY - 2 : SCH_U - 3)))
            fprintf(stderr, "\n  %s %s: only %d rows differ from the plain rule", tag,
                    mb_par_algo_name(a), off_flat);
        mb_table_free(t);
    }
}

static void rules_match_hand(const char *tag, int scheduled, double wd)
{
    rules_match_hand_of(tag, scheduled, wd, 0, 1);
}

/* Every rule family trains at the schedule's rate of each update (rules_match_hand). sgd-sync's
 * schedule is its optimiser's: the same losses as single-learner SGD with the schedule. */
static void test_lr_schedules(void)
{
    /* the rate every rule takes: 0.1 for updates 0-4, 0.03 for 5-9, 0.009 from 10 */
    mb_optim_params op = {.kind = MB_OPTIM_SGD, .lr = SCH_LR, .lr_step_every = SCH_EVERY,
                          .lr_step_gamma = SCH_GAMMA};
    CU_ASSERT_DOUBLE_EQUAL(mb_optim_lr_at(&op, 0), 0.1, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(mb_optim_lr_at(&op, 4), 0.1, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(mb_optim_lr_at(&op, 5), 0.03, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(mb_optim_lr_at(&op, 14), 0.009, 1e-15);
    op.lr_step_every = 0;
    CU_ASSERT_DOUBLE_EQUAL(mb_optim_lr_at(&op, 1000), 0.1, 1e-15);
    rules_match_hand("sched", 1, 0.0);
    /* sgd-sync: its optimiser counts the updates, over 2 threads as over one learner */
    char p1[512], p2[512];
    snprintf(p1, sizeof p1, "%s/sched-sgd.csv", dir);
    snprintf(p2, sizeof p2, "%s/sched-sgd-sync.csv", dir);
    mb_run_options o;
    mb_run_result r;
    mb_error err = {0};
    options(&o, mlp, MB_PAR_NONE, 1, p1);
    o.optim.lr_step_every = SCH_EVERY;
    o.optim.lr_step_gamma = SCH_GAMMA;
    CU_ASSERT_EQUAL_FATAL(mb_train_run(&o, &r, &err), MB_OK);
    o.par = MB_PAR_SGD_SYNC;
    o.learners = 2;
    o.log_path = p2;
    CU_ASSERT_EQUAL_FATAL(mb_train_run(&o, &r, &err), MB_OK);
    mb_table *a = read_log(p1), *b = read_log(p2);
    CU_ASSERT_FATAL(a && b);
    CU_ASSERT(same_losses(a, b, 1e-4));
    mb_table_free(a);
    mb_table_free(b);
}

/* L2 weight decay in every rule family: lambda x added to each learner's gradient (DOWNPOUR's:
 * its master's optimiser decays the centre), as the hand-stepped runs do. */
static void test_weight_decay(void) { rules_match_hand("wd", 0, 0.3); }

/* --tau where the algorithm has a period, refused where it has none; DOWNPOUR's two periods;
 * the old asynchronous rule behind --grad-after-exchange. easgd-sync with tau 3 and the three
 * asynchronous elastic rules with the gradient after the exchange match their hand-stepped runs
 * (rules_match_hand_of) and differ from the default rule's. */
static void test_periods(void)
{
    mb_run_options o;
    mb_error err = {0};
    static const int none[] = {MB_PAR_SGD_SYNC, MB_PAR_EASGD, MB_PAR_SMA};
    for (size_t k = 0; k < 3; k++) {
        options(&o, linear, none[k], 2, NULL);
        o.tau = 2;
        CU_ASSERT_EQUAL(mb_par_check(&o, 1, &err), MB_EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no communication period"));
    }
    options(&o, linear, MB_PAR_EASGD_ASYNC, 2, NULL);
    o.n_push = 2;
    CU_ASSERT_EQUAL(mb_par_check(&o, 1, &err), MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "DOWNPOUR"));
    options(&o, linear, MB_PAR_SGD_SYNC, 2, NULL);
    o.grad_after_exchange = 1;
    CU_ASSERT_EQUAL(mb_par_check(&o, 1, &err), MB_EINVAL);
    options(&o, linear, MB_PAR_EASGD_SYNC, 2, NULL);
    o.tau = 3;
    CU_ASSERT_EQUAL(mb_par_check(&o, 1, &err), MB_OK);
    rules_match_hand_of("tau3", 0, 0.0, 0, 3);
    rules_match_hand_of("after", 0, 0.0, 1, 1);
    /* DOWNPOUR: n_push = n_fetch = 2 is tau = 2, row for row (one learner: deterministic);
     * n_push 1, n_fetch 3 is another run */
    char pa[512], pb[512], pc[512];
    snprintf(pa, sizeof pa, "%s/dp-tau2.csv", dir);
    snprintf(pb, sizeof pb, "%s/dp-np2.csv", dir);
    snprintf(pc, sizeof pc, "%s/dp-np1f3.csv", dir);
    mb_run_result r;
    options(&o, mlp, MB_PAR_DOWNPOUR, 1, pa);
    o.max_updates = 30;
    o.tau = 2;
    CU_ASSERT_EQUAL_FATAL(mb_train_run(&o, &r, &err), MB_OK);
    o.tau = 1;
    o.n_push = o.n_fetch = 2;
    o.log_path = pb;
    CU_ASSERT_EQUAL_FATAL(mb_train_run(&o, &r, &err), MB_OK);
    o.n_push = 1;
    o.n_fetch = 3;
    o.log_path = pc;
    CU_ASSERT_EQUAL_FATAL(mb_train_run(&o, &r, &err), MB_OK);
    mb_table *a = read_log(pa), *b = read_log(pb), *c = read_log(pc);
    CU_ASSERT_FATAL(a && b && c);
    CU_ASSERT(same_losses(a, b, 1e-6));
    CU_ASSERT_EQUAL(mb_table_rows(c), 30);
    CU_ASSERT_STRING_EQUAL(mb_table_meta(c, "n_push"), "1");
    CU_ASSERT_STRING_EQUAL(mb_table_meta(c, "n_fetch"), "3");
    int col = mb_table_col(c, "loss"), differ = 0;
    for (size_t u = 0; u < mb_table_rows(c); u++)
        differ += strcmp(mb_table_cell(c, u, (size_t)col), mb_table_cell(a, u, (size_t)col)) != 0;
    CU_ASSERT(differ > 10);
    mb_table_free(a);
    mb_table_free(b);
    mb_table_free(c);
}

/* The server algorithms' time is the learners' (issue 28): every evaluation happens while every
 * learner is held, and wall_s leaves out those seconds only (t_paused_s), so no learner trains
 * in time the log does not count. Evaluating at every update, t_paused_s holds all of t_eval_s
 * (the pause is the evaluation plus the releases), and the learners report time held. */
static void test_server_time(void)
{
    static const int algos[] = {MB_PAR_DOWNPOUR, MB_PAR_EASGD_ASYNC, MB_PAR_EAMSGD};
    for (size_t k = 0; k < 3; k++) {
        char p[512];
        snprintf(p, sizeof p, "%s/held-%s.csv", dir, mb_par_algo_name(algos[k]));
        mb_run_options o;
        mb_run_result r;
        mb_error err = {0};
        options(&o, mlp, algos[k], 2, p);
        o.max_updates = 40;
        o.eval_every = 1;
        o.tau = 2;
        CU_ASSERT_EQUAL_FATAL(mb_train_run(&o, &r, &err), MB_OK);
        mb_table *t = read_log(p);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        const char *ps = mb_table_meta(t, "t_paused_s"), *es = mb_table_meta(t, "t_eval_s"),
                   *ws = mb_table_meta(t, "t_wait_s"), *is = mb_table_meta(t, "t_server_idle_s");
        CU_ASSERT_FATAL(ps && es && ws && is);
        CU_ASSERT(atof(ps) >= atof(es));
        CU_ASSERT(atof(ws) > 0);
        CU_ASSERT_EQUAL(mb_table_rows(t), 40);
        if (!(atof(ps) >= atof(es)))
            fprintf(stderr, "\n  %s: paused %s s, evaluating %s s", mb_par_algo_name(algos[k]),
                    ps, es);
        mb_table_free(t);
    }
}

/* sgd-sync with dropout is one learner at M to float rounding: each learner's dropout masks are
 * keyed by its samples' indices in the whole batch (mb_net_set_sample_base), so 2 and 4
 * learners draw together the masks of one network at M. 20 updates, losses to 1e-4 (the order
 * of float sums, as test_sgd_sync_threads). Before the fix every learner drew the masks of
 * samples 0 .. m-1, and the 2-learner losses left 1e-4 within a few updates. */
static void test_sgd_sync_dropout(void)
{
    char net[512], p1[512], p2[512], p4[512];
    mb_test_write(net, sizeof net, dir, "drop.cfg",
                  "[net]\nname=drop\nchannels=1\nheight=8\nwidth=8\n[fc]\noutputs=32\n"
                  "activation=relu\n[dropout]\np=0.5\n[fc]\noutputs=4\n[softmax]\n");
    snprintf(p1, sizeof p1, "%s/drop1.csv", dir);
    snprintf(p2, sizeof p2, "%s/drop2.csv", dir);
    snprintf(p4, sizeof p4, "%s/drop4.csv", dir);
    mb_run_options o;
    mb_run_result r;
    mb_error err = {0};
    options(&o, net, MB_PAR_NONE, 1, p1);
    o.max_updates = 20;
    CU_ASSERT_EQUAL_FATAL(mb_train_run(&o, &r, &err), MB_OK);
    options(&o, net, MB_PAR_SGD_SYNC, 2, p2);
    o.max_updates = 20;
    CU_ASSERT_EQUAL_FATAL(mb_train_run(&o, &r, &err), MB_OK);
    options(&o, net, MB_PAR_SGD_SYNC, 4, p4);
    o.max_updates = 20;
    CU_ASSERT_EQUAL_FATAL(mb_train_run(&o, &r, &err), MB_OK);
    mb_table *a = read_log(p1), *b = read_log(p2), *c = read_log(p4);
    CU_ASSERT_FATAL(a && b && c);
    CU_ASSERT_EQUAL(mb_table_rows(a), 20);
    CU_ASSERT(same_losses(a, b, 1e-4));
    CU_ASSERT(same_losses(a, c, 1e-4));
    mb_table_free(a);
    mb_table_free(b);
    mb_table_free(c);
}

/* Counts an algorithm cannot use are refused, with one line naming them. */
static void test_refusals(void)
{
    mb_run_options o;
    mb_error err = {0};
    options(&o, linear, MB_PAR_EASGD_HOGWILD, 1, NULL);
    CU_ASSERT_EQUAL(mb_par_check(&o, 2, &err), MB_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--learners"));
    options(&o, linear, MB_PAR_SGD_SYNC, 2, NULL);
    CU_ASSERT_EQUAL(mb_par_check(&o, 2, &err), MB_OK); /* ranks x threads */
    options(&o, linear, MB_PAR_DOWNPOUR, 2, NULL);
    CU_ASSERT_EQUAL(mb_par_check(&o, 2, &err), MB_EINVAL); /* not with a server */
    options(&o, linear, MB_PAR_SGD_SYNC, 3, NULL);
    o.batch = 32;
    CU_ASSERT_EQUAL(mb_par_check(&o, 1, &err), MB_EINVAL); /* 32 / 3 */
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "multiple of 3"));
    options(&o, linear, MB_PAR_DOWNPOUR, 1, NULL);
    CU_ASSERT_EQUAL(mb_par_check(&o, 1, &err), MB_OK); /* one learner thread + server */
    options(&o, linear, MB_PAR_EASGD_ASYNC, 2, NULL);
    o.checkpoint_path = "x";
    o.checkpoint_every = 5;
    CU_ASSERT_EQUAL(mb_par_check(&o, 1, &err), MB_OK); /* every algorithm checkpoints */
    o.par = MB_PAR_SMA;
    o.sma_tune = 1;
    CU_ASSERT_EQUAL(mb_par_check(&o, 1, &err), MB_OK);
    o.sma_tune = 0;
    o.par = MB_PAR_EASGD_SYNC;
    CU_ASSERT_EQUAL(mb_par_check(&o, 2, &err), MB_OK); /* ranks x threads too */
    int a = -1;
    CU_ASSERT_EQUAL(mb_par_algo_parse("easgd-sync", &a), MB_OK);
    CU_ASSERT_EQUAL(a, MB_PAR_EASGD_SYNC);
    CU_ASSERT_EQUAL(mb_par_algo_parse("easgd-sink", &a), MB_EINVAL);
    /* the names a log may hold (fit/runs.c checks them): the optimisers' then these, each
     * read back by its own table's parser, and nothing past them */
    int k = 0;
    for (mb_optim_kind kind; k < MB_OPTIM_N; k++)
        CU_ASSERT(mb_optim_kind_parse(mb_run_algo_nth(k), &kind) == MB_OK && (int)kind == k);
    for (; mb_run_algo_nth(k); k++)
        CU_ASSERT(mb_par_algo_parse(mb_run_algo_nth(k), &a) == MB_OK &&
                  a == k - MB_OPTIM_N + 1);
    CU_ASSERT_EQUAL(k, MB_OPTIM_N + MB_PAR_N - 1);
    CU_ASSERT_PTR_NULL(mb_run_algo_nth(-1));
    CU_ASSERT_STRING_EQUAL(mb_run_algo_nth(MB_OPTIM_N), "sgd-sync");
}

/* ---- under mpirun ----------------------------------------------------------------------------- */

#define MPI_ENV "ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 "
#define MPIRUN MPI_ENV "mpirun --allow-run-as-root --oversubscribe -np 2 "

/* mpirun is part of what `make deps` installs: a machine without it fails these tests rather
 * than passing them unseen. MB_TEST_NO_MPI=1 skips them with a line, on purpose. */
static int have_mpirun(void)
{
    if (getenv("MB_TEST_NO_MPI") && strcmp(getenv("MB_TEST_NO_MPI"), "1") == 0) {
        fprintf(stderr, "\n  skipped: MB_TEST_NO_MPI=1");
        return 0;
    }
    mb_test_run r;
    int ok = mb_test_sh(&r, "command -v mpirun") == 0 && r.status == 0;
    mb_test_run_free(&r);
    if (!ok) {
        fprintf(stderr, "\n  mpirun not found: make deps installs Open MPI "
                        "(MB_TEST_NO_MPI=1 skips the MPI tests)");
        CU_FAIL("mpirun not found");
    }
    return ok;
}

/* Rank 0 evaluating on 2 threads while rank 1 sleeps in the verdict (--eval-threads 2, unbound
 * ranks): the same log as on 1 thread, row for row (the staged checks and the bisection
 * included), and the same crossing. */
static void test_mpirun_eval_threads(void)
{
    if (!have_mpirun())
        return;
    const char *common = "--data synthetic:n=4000,test=100,c=1,h=8,w=8,classes=4,seed=3 "
                         "--batch 32 --lr 0.1 --eval-every 10 --max-updates 400 "
                         "--target-loss 0.6 --check-frac 0.25 --algo sgd-sync";
    mb_test_run r;
    mb_test_sh_ok(&r, MPIRUN "--bind-to none mbtrain --net %s %s --eval-threads 1 --log %s/et1.csv && "
                  MPIRUN "--bind-to none mbtrain --net %s %s --eval-threads 2 --log %s/et2.csv",
                  mlp, common, dir, mlp, common, dir);
    mb_test_run_free(&r);
    mb_table *a = log_in("et1.csv"), *b = log_in("et2.csv");
    CU_ASSERT_FATAL(a && b);
    CU_ASSERT(same_losses(a, b, 1e-6));
    CU_ASSERT_PTR_NOT_NULL(strstr(mb_table_meta(a, "crossing"), "bisect"));
    mb_table_free(a);
    mb_table_free(b);
}

static void test_mpirun(void)
{
    if (!have_mpirun())
        return;
    mb_test_run r;
    const char *common = "--data " DATA " --batch 32 --lr 0.1 --max-updates 40 --eval-every 10";
    /* sgd-sync over 2 ranks = SGD at the same M */
    mb_test_sh(&r, "mbtrain --net %s %s --algo sgd --log %s/r1.csv", mlp, common, dir);
    CU_ASSERT_EQUAL(r.status, 0);
    mb_test_run_free(&r);
    mb_test_sh_ok(&r, MPIRUN "mbtrain --net %s %s --algo sgd-sync --log %s/r2.csv", mlp, common,
                  dir);
    CU_ASSERT_EQUAL(mb_test_lines(r.out), 1); /* rank 0 alone prints the summary */
    mb_test_run_free(&r);
    mb_table *a = log_in("r1.csv"), *b = log_in("r2.csv");
    CU_ASSERT_FATAL(a && b);
    CU_ASSERT(same_losses(a, b, 1e-4));
    CU_ASSERT_STRING_EQUAL(mb_table_meta(b, "ranks"), "2");
    CU_ASSERT_STRING_EQUAL(mb_table_meta(b, "learners"), "2");
    mb_table_free(a);
    mb_table_free(b);
    /* the elastic and server algorithms run over ranks too */
    static const char *algos[] = {"easgd-sync", "easgd", "sma", "downpour", "easgd-async",
                                  "eamsgd"};
    for (size_t k = 0; k < sizeof algos / sizeof algos[0]; k++) {
        mb_test_sh_ok(&r, MPIRUN "mbtrain --net %s %s --algo %s --log %s/m%zu.csv", linear,
                      common, algos[k], dir, k);
        mb_test_run_free(&r);
    }
    /* ranks x threads: 2 ranks of 2 threads are 4 learners, as 4 threads are */
    mb_test_sh_ok(&r, MPIRUN "mbtrain --net %s %s --algo sgd-sync --learners 2 --log %s/h2.csv && "
                  "mbtrain --net %s %s --algo easgd-sync --learners 4 --log %s/t4e.csv && "
                  MPIRUN "mbtrain --net %s %s --algo easgd-sync --learners 2 --log %s/h2e.csv",
                  mlp, common, dir, mlp, common, dir, mlp, common, dir);
    mb_test_run_free(&r);
    mb_table *c = log_in("r1.csv"), *h = log_in("h2.csv"), *t4 = log_in("t4e.csv"),
             *h2 = log_in("h2e.csv");
    CU_ASSERT_FATAL(c && h && t4 && h2);
    CU_ASSERT(same_losses(c, h, 1e-4));
    CU_ASSERT(same_losses(t4, h2, 1e-4));
    CU_ASSERT_STRING_EQUAL(mb_table_meta(h2, "learners"), "4");
    CU_ASSERT_STRING_EQUAL(mb_table_meta(h2, "ranks"), "2");
    mb_table_free(c);
    mb_table_free(h);
    mb_table_free(t4);
    mb_table_free(h2);
    /* --resume under mpirun: sgd-sync; ranks x threads; a server and one learner rank (the
     * asynchronous rule then repeats itself exactly) */
    resume_case("m-sgd-sync", "sgd-sync", MPIRUN);
    char p5[512], pe[512];
    snprintf(p5, sizeof p5, "%s/h2e.csv", dir);
    resume_case_of("m-hybrid", mlp, "easgd-sync --learners 2", MPIRUN, p5);
    snprintf(pe, sizeof pe, "%s/m5.csv", dir); /* eamsgd's run above */
    resume_case_of("m-eamsgd", linear, "eamsgd", MPIRUN, pe);
    /* a single-learner algorithm under 2 ranks would write the same log twice: refused */
    mb_test_sh(&r, MPIRUN "mbtrain --net %s %s --algo sgd --log %s/twice.csv", mlp, common, dir);
    CU_ASSERT_NOT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "trains one learner"));
    mb_test_run_free(&r);
    mb_test_sh(&r, MPIRUN "mbtrain --net %s %s --algo easgd-hogwild", mlp, common);
    CU_ASSERT_NOT_EQUAL(r.status, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "shares the centre in memory"));
    mb_test_run_free(&r);
}

/* Killing one rank mid-run (issue 12): tests/par_kill.sh kills rank 1 of an sgd-sync job after
 * its first checkpoint; the job must end with a message naming rank 1, leave nothing half-
 * written, and --resume must finish with the straight run's rows (the script's lines say
 * which check failed). */
static void test_kill_rank(void)
{
    if (!have_mpirun())
        return;
    char d[256];
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(d, sizeof d), 0);
    mb_test_run r;
    mb_test_sh_ok(&r, MPI_ENV "bash tests/par_kill.sh %s", d);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "killed: the job ended"));
    mb_test_run_free(&r);
    mb_test_rmdir(d);
}

/* A rank stopped mid-run (SIGSTOP) with --wait-timeout 2: tests/par_kill.sh DIR stop checks
 * that the job ends within 10 s with one line naming the timeout, a non-zero status and no
 * log. */
static void test_stall_rank(void)
{
    if (!have_mpirun())
        return;
    char d[256];
    CU_ASSERT_EQUAL_FATAL(mb_test_tmpdir(d, sizeof d), 0);
    mb_test_run r;
    mb_test_sh_ok(&r, MPI_ENV "bash tests/par_kill.sh %s stop", d);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "stopped: the job ended"));
    mb_test_run_free(&r);
    mb_test_rmdir(d);
}

/* ---- hostile input: every case ends within 10 s with one line and a non-zero status -------- */

static double wall_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The lines of `s` that start with "mbtrain:" (Open MPI adds its own banners under mpirun). */
static size_t mbtrain_lines(const char *s)
{
    size_t n = 0;
    for (const char *p = s; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        n += strncmp(p, "mbtrain:", 8) == 0;
    return n;
}

/* Runs the shell command (bounded by `timeout 60`, so that a hang fails rather than stalls the
 * suite) and checks: exit status `status`, one "mbtrain:" line on stderr holding `needle` (and
 * nothing else on stderr when `only`), at most 10 s. */
static void hostile(const char *what, int status, const char *needle, int only, const char *cmd)
{
    mb_test_run r;
    double t0 = wall_now();
    mb_test_sh(&r, "timeout -s KILL 60 sh -c '%s'", cmd);
    double t = wall_now() - t0;
    int ok = r.status == status && mbtrain_lines(r.err) == 1 && strstr(r.err, needle) &&
             (!only || mb_test_lines(r.err) == 1) && t < 10;
    CU_ASSERT(ok);
    if (!ok)
        fprintf(stderr, "\n  %s: status %d (want %d), %.1f s, stderr: %s", what, r.status, status,
                t, r.err);
    else if (getenv("MB_TEST_TIMES")) /* the figures of docs/commands.md's hostile table */
        fprintf(stderr, "\n  %-28s status %d in %.2f s: %.*s", what, r.status, t,
                (int)strcspn(strstr(r.err, "mbtrain:"), "\n"), strstr(r.err, "mbtrain:"));
    mb_test_run_free(&r);
}

#define TCOMMON "--data " DATA " --batch 32 --lr 0.1 --eval-every 10 --threads 1 "

/* Over threads: a bad checkpoint path (every algorithm: before, sgd-sync, easgd, easgd-sync and
 * sma died of SIGSEGV), a checkpoint folder removed mid-run (a learner that fails mid-run: the
 * others are woken, no log), a batch that does not split, learner counts 0 and 10^5, --tau
 * where there is no period, a damaged companion checkpoint. */
static void test_hostile_threads(void)
{
    char cmd[4096];
    static const char *algos[] = {"sgd-sync", "easgd", "easgd-sync", "sma", "downpour",
                                  "easgd-async", "eamsgd", "easgd-hogwild"};
    for (size_t k = 0; k < sizeof algos / sizeof algos[0]; k++) {
        snprintf(cmd, sizeof cmd, "mbtrain --net %s " TCOMMON "--algo %s --learners 2 "
                 "--max-updates 40 --checkpoint /nonexistent/dir/c --checkpoint-every 5",
                 mlp, algos[k]);
        hostile(algos[k], 1, "/nonexistent/dir", 1, cmd);
    }
    for (int k = 0; k < 2; k++) { /* lockstep, then a server algorithm */
        snprintf(cmd, sizeof cmd, "rm -rf %s/mid && mkdir -p %s/mid/sub && mbtrain --net %s " TCOMMON
                 "--algo %s --learners 2 --max-updates 1000000 --epochs 0 --checkpoint %s/mid/sub/c "
                 "--checkpoint-every 5 --log %s/mid/m.csv & p=$!; "
                 "while [ ! -e %s/mid/sub/c%s ] && kill -0 $p 2>/dev/null; do sleep 0.01; done; "
                 "mv %s/mid/sub %s/mid/gone; wait $p; s=$?; test ! -e %s/mid/m.csv || s=99; exit $s",
                 dir, dir, mlp, k ? "easgd-async" : "sgd-sync", dir, dir, dir,
                 k ? ".learners" : "", dir, dir, dir);
        hostile(k ? "mid-run, server" : "mid-run, lockstep", 1,
                k ? "the server (rank 0): " : "learner 0: ", 1, cmd);
    }
    snprintf(cmd, sizeof cmd, "mbtrain --net %s " TCOMMON "--algo sgd-sync --learners 3", mlp);
    hostile("batch 32 on 3", 2, "multiple of 3", 0, cmd); /* and the --help hint */
    snprintf(cmd, sizeof cmd, "mbtrain --net %s " TCOMMON "--algo sgd-sync --learners 0", mlp);
    hostile("learners 0", 1, "--learners", 1, cmd);
    snprintf(cmd, sizeof cmd, "mbtrain --net %s " TCOMMON "--algo sma --learners 100000", mlp);
    hostile("learners 10^5", 1, "--learners", 1, cmd);
    snprintf(cmd, sizeof cmd, "mbtrain --net %s " TCOMMON "--algo sgd-sync --learners 2 --tau 4",
             mlp);
    hostile("tau without a period", 2, "no communication period", 0, cmd); /* + hint */
    /* a companion checkpoint with one byte flipped */
    snprintf(cmd, sizeof cmd, "cd %s && mbtrain --net %s " TCOMMON "--algo sma --learners 2 "
             "--max-updates 10 --checkpoint flip.ck --checkpoint-every 10 > /dev/null && "
             "printf x | dd of=flip.ck.learners bs=1 seek=900 conv=notrunc 2>/dev/null && "
             "mbtrain --net %s " TCOMMON "--algo sma --learners 2 --max-updates 20 "
             "--resume flip.ck", dir, mlp, mlp);
    hostile("flipped companion", 1, "checksum mismatch", 1, cmd);
}

/* The companion checkpoint's checks behind its checksum (par_ckpt.c), each on a file whose
 * checksum was repaired after the damage: a NaN and a 1e30 parameter, a NaN wall time, a cursor
 * beyond the data, a truncated file; and the identity (another seed) through mbtrain. */
static void test_companion_checks(void)
{
    mb_test_run r;
    mb_test_sh_ok(&r, "cd %s && mbtrain --net %s " TCOMMON "--algo easgd-async --learners 1 "
                  "--max-updates 10 --checkpoint cc.ck --checkpoint-every 10 > /dev/null",
                  dir, linear);
    mb_test_run_free(&r);
    char path[512];
    snprintf(path, sizeof path, "%s/cc.ck.learners", dir);
    FILE *f = fopen(path, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)len), *c = malloc((size_t)len);
    CU_ASSERT_FATAL(b && c && fread(b, 1, (size_t)len, f) == (size_t)len);
    fclose(f);
    mb_par_ckpt_head h;
    mb_error err = {0};
    float *rec = malloc(4096 * sizeof *rec);
    CU_ASSERT_EQUAL_FATAL(mb_par_ckpt_decode(b, (size_t)len, "cc", &h, NULL, 1, NULL, &err),
                          MB_OK);
    size_t recs = 8 + sizeof h + h.log_len; /* where record 0 begins */
    struct {
        size_t at;
        int kind;            /* 0 float, 1 double, 2 uint64 */
        double v;
        const char *needle;
    } cases[] = {
        {recs + 4 * 7, 0, NAN, "not finite"},
        {recs + 4 * (h.rec_floats + 3), 0, 1e30, "beyond 1e15"},
        {8 + offsetof(mb_par_ckpt_head, wall_s), 1, NAN, "wall time"},
        {recs + 4 * (h.rec_floats + 4 * h.params), 2, 1e12, "cursor position"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        memcpy(c, b, (size_t)len);
        if (cases[k].kind == 0) {
            float v = (float)cases[k].v;
            memcpy(c + cases[k].at, &v, sizeof v);
        } else if (cases[k].kind == 1) {
            memcpy(c + cases[k].at, &cases[k].v, sizeof cases[k].v);
        } else {
            uint64_t v = (uint64_t)cases[k].v;
            memcpy(c + cases[k].at, &v, sizeof v);
        }
        uint32_t crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), c, (uInt)(len - 4));
        memcpy(c + len - 4, &crc, 4);
        int rc = mb_par_ckpt_decode(c, (size_t)len, "cc", &h, NULL, 0, NULL, &err);
        CU_ASSERT_EQUAL(rc, MB_EFORMAT);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, cases[k].needle));
        if (rc != MB_EFORMAT || !strstr(err.msg, cases[k].needle))
            fprintf(stderr, "\n  case %zu: %s", k, err.msg);
    }
    /* unrepaired damage, a truncation and the old format */
    memcpy(c, b, (size_t)len);
    c[len / 2] ^= 0x10;
    CU_ASSERT_EQUAL(mb_par_ckpt_decode(c, (size_t)len, "cc", &h, NULL, 0, NULL, &err), MB_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "checksum"));
    CU_ASSERT_EQUAL(mb_par_ckpt_decode(b, (size_t)len - 5, "cc", &h, NULL, 0, NULL, &err),
                    MB_EFORMAT);
    memcpy(c, b, (size_t)len);
    c[7] = '2';
    CU_ASSERT_EQUAL(mb_par_ckpt_decode(c, (size_t)len, "cc", &h, NULL, 0, NULL, &err), MB_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "MBKPAR02"));
    free(b);
    free(c);
    free(rec);
    /* another seed: the companion's identity (PATH is absent: server algorithms write only
     * PATH.learners) */
    mb_test_sh(&r, "cd %s && mbtrain --net %s " TCOMMON "--algo easgd-async --learners 1 "
               "--max-updates 20 --seed 7 --resume cc.ck", dir, linear);
    CU_ASSERT_EQUAL(r.status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "--seed"));
    CU_ASSERT_EQUAL(mb_test_lines(r.err), 1);
    mb_test_run_free(&r);
}

#define MPIRUN1 MPI_ENV "mpirun --allow-run-as-root --oversubscribe "

/* Under mpirun: a bad checkpoint path, a folder removed mid-run, a server algorithm on one
 * rank, and ranks that disagree on --batch, --data or --algo (before, they trained and exited
 * 0 with rank 0's log, or corrupted the heap). */
static void test_hostile_mpirun(void)
{
    if (!have_mpirun())
        return;
    char cmd[4096];
    snprintf(cmd, sizeof cmd, MPIRUN "mbtrain --net %s " TCOMMON "--algo sgd-sync "
             "--max-updates 40 --checkpoint /nonexistent/dir/c --checkpoint-every 5", mlp);
    hostile("ranks: bad checkpoint path", 1, "/nonexistent/dir", 0, cmd);
    snprintf(cmd, sizeof cmd, "mkdir -p %s/mpmid/sub && " MPIRUN "mbtrain --net %s " TCOMMON
             "--algo sgd-sync --max-updates 1000000 --epochs 0 --checkpoint %s/mpmid/sub/c "
             "--checkpoint-every 5 --log %s/mpmid/m.csv & p=$!; "
             "while [ ! -e %s/mpmid/sub/c ] && kill -0 $p 2>/dev/null; do sleep 0.01; done; "
             "mv %s/mpmid/sub %s/mpmid/gone; wait $p; s=$?; test ! -e %s/mpmid/m.csv || s=99; exit $s",
             dir, mlp, dir, dir, dir, dir, dir, dir);
    /* each rank writes its own part: whichever rank's write fails first names itself */
    hostile("ranks: mid-run", 1, "cannot write", 0, cmd);
    /* ranks x threads (2 x 2 learners): the thread that makes the MPI calls ends the job */
    snprintf(cmd, sizeof cmd, "rm -rf %s/mpmid && mkdir -p %s/mpmid/sub && " MPIRUN "mbtrain "
             "--net %s " TCOMMON "--algo sgd-sync --learners 2 --max-updates 1000000 --epochs 0 "
             "--checkpoint %s/mpmid/sub/c --checkpoint-every 5 --log %s/mpmid/m.csv & p=$!; "
             "while [ ! -e %s/mpmid/sub/c ] && kill -0 $p 2>/dev/null; do sleep 0.01; done; "
             "mv %s/mpmid/sub %s/mpmid/gone; wait $p; s=$?; test ! -e %s/mpmid/m.csv || s=99; "
             "exit $s", dir, dir, mlp, dir, dir, dir, dir, dir, dir);
    hostile("ranks x threads: mid-run", 1, "cannot write", 0, cmd);
    snprintf(cmd, sizeof cmd, MPIRUN1 "-np 1 mbtrain --net %s " TCOMMON "--algo downpour", mlp);
    hostile("one rank, a server algorithm", 2, "-np 2 or more", 0, cmd);
    /* each rank's own values (a flag is given once on a command line: TCOMMON's --batch and
     * the --algo are left out where a case gives its own) */
    static const struct {
        const char *a, *b, *needle;
    } dis[] = {
        {"--algo sgd-sync --batch 32", "--algo sgd-sync --batch 64", "ranks disagree on --batch"},
        {"--batch 32 --algo sgd-sync", "--batch 32 --algo easgd-sync", "ranks disagree on --algo"},
        {"--batch 32 --algo sgd-sync --seed 1", "--batch 32 --algo sgd-sync --seed 2",
         "ranks disagree on --seed"},
    };
#define TCOMMON_NB "--data " DATA " --lr 0.1 --eval-every 10 --threads 1 "
    for (size_t k = 0; k < sizeof dis / sizeof dis[0]; k++) {
        snprintf(cmd, sizeof cmd, MPIRUN1 "-np 1 mbtrain --net %s " TCOMMON_NB
                 "--max-updates 20 %s : -np 1 mbtrain --net %s " TCOMMON_NB
                 "--max-updates 20 %s", mlp, dis[k].a, mlp, dis[k].b);
        hostile(dis[k].needle, 2, dis[k].needle, 0, cmd);
    }
    snprintf(cmd, sizeof cmd, MPIRUN1 "-np 1 mbtrain --net %s " TCOMMON "--algo sgd-sync "
             "--max-updates 20 : -np 1 mbtrain --net %s --data "
             "synthetic:n=400,test=100,c=1,h=8,w=8,classes=4,seed=4 --batch 32 --lr 0.1 "
             "--eval-every 10 --threads 1 --algo sgd-sync --max-updates 20", mlp, mlp);
    hostile("ranks: other data", 2, "ranks disagree on --data", 0, cmd);
}

int mb_test_suite_train_par(void)
{
    CU_pSuite s = CU_add_suite("train_par", setup, teardown);
    if (!s || !CU_add_test(s, "threads communicator", test_comm_threads) ||
        !CU_add_test(s, "threads communicator: abort and timeout", test_comm_abort_timeout) ||
        !CU_add_test(s, "the ranks' programs agree first", test_agree_program) ||
        !CU_add_test(s, "update rules by hand", test_rules_by_hand) ||
        !CU_add_test(s, "round-robin EASGD stability region", test_easgd_stability) ||
        !CU_add_test(s, "sgd-sync over threads = SGD at M", test_sgd_sync_threads) ||
        !CU_add_test(s, "every parallel algorithm trains", test_every_algorithm_trains) ||
        !CU_add_test(s, "hogwild: update 1 is training time", test_hogwild_first_update) ||
        !CU_add_test(s, "staged checks, same crossing", test_checks) ||
        !CU_add_test(s, "SMA's learners-per-process tuning trace", test_sma_tune_trace) ||
        !CU_add_test(s, "SMA's tuning ended before its first window: the log is fitted",
                     test_sma_tune_unwindowed_fit) ||
        !CU_add_test(s, "checkpoint and resume over threads", test_resume_threads) ||
        !CU_add_test(s, "learning-rate schedules in every rule", test_lr_schedules) ||
           !CU_add_test(s, "weight decay in every rule", test_weight_decay) ||
        !CU_add_test(s, "counts an algorithm cannot use", test_refusals) ||
        !CU_add_test(s, "mbfit nupdate per (algo, P), with B_simple", test_mbfit_groups) ||
        !CU_add_test(s, "under mpirun", test_mpirun) ||
        !CU_add_test(s, "under mpirun: --eval-threads 2", test_mpirun_eval_threads) ||
        !CU_add_test(s, "a rank killed mid-run; --resume", test_kill_rank) ||
        !CU_add_test(s, "Zhang et al. Algorithms 1 and 2 by hand", test_async_rules_paper) ||
        !CU_add_test(s, "periods: --tau, --n-push/--n-fetch, --grad-after-exchange",
                     test_periods) ||
        !CU_add_test(s, "sgd-sync with dropout = one learner at M", test_sgd_sync_dropout) ||
        !CU_add_test(s, "server algorithms: evaluations while the learners are held",
                     test_server_time) ||
        !CU_add_test(s, "hostile input over threads", test_hostile_threads) ||
        !CU_add_test(s, "companion checkpoint: checksum, ranges, identity",
                     test_companion_checks) ||
        !CU_add_test(s, "hostile input under mpirun", test_hostile_mpirun) ||
        !CU_add_test(s, "a rank stopped mid-run: --wait-timeout", test_stall_rank))
        return 1;
    return 0;
}
