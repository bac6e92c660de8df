/* test_train_optim.c — train/learner/optim.c against the closed-form iterates of the rules in
 * docs/algorithms.md ("Single learner") on a separable quadratic f(x) = sum_i h_i x_i^2 / 2, whose
 * gradient h x makes every rule a linear recurrence per coordinate:
 *   SGD:       x_t = prod_s (1 - a_s) x_0,                        a = lr (h + lambda)
 *   heavy ball x_{t+1} = (1 + mu - a) x_t - mu x_{t-1}            (v_0 = 0, so x_{-1} = x_0)
 *   Nesterov   x_{t+1} = (1 + mu)(1 - a) x_t - mu (1 - a) x_{t-1}, stored y_t = x_t + mu v_t
 * The two-term recurrences are solved in closed form, x_t = c1 r1^t + c2 r2^t with r1, r2 the
 * (possibly complex) roots of the characteristic polynomial, so the test does not re-run the
 * optimiser's loop. Also: the step schedule, state accessors and every argument error.
 */
#include <CUnit/CUnit.h>
#include <complex.h>
#include <math.h>

#include "../train/learner/mb_learner.h"
#include "mb_test.h"

enum { N = 4, STEPS = 60 };
static const double h[N] = {0.31, 1.7, 3.3, 0.057};
static const double x0[N] = {0.73, -1.37, 2.11, -0.29};

/* x_t of x_{t+1} = b x_t - c x_{t-1} with x_0 = x0 and x_1 = (1 - a) x0, in closed form. */
static double two_term(double b, double c, double a, double x0v, int t)
{
    double complex disc = csqrt((double complex)(b * b - 4 * c));
    double complex r1 = (b + disc) / 2, r2 = (b - disc) / 2;
    double x1 = (1 - a) * x0v;
    /* c1 + c2 = x0, c1 r1 + c2 r2 = x1 */
    double complex c1 = (x1 - r2 * x0v) / (r1 - r2), c2 = x0v - c1;
    return creal(c1 * cpow(r1, t) + c2 * cpow(r2, t));
}

/* Runs STEPS steps of `p` on the quadratic and returns the parameters in x. */
static void run(const mb_optim_params *p, float x[N], int steps)
{
    mb_optim *o = NULL;
    mb_error err = {0};
    CU_ASSERT_EQUAL_FATAL(mb_optim_create(p, N, &o, &err), MB_OK);
    for (int i = 0; i < N; i++)
        x[i] = (float)x0[i];
    for (int t = 0; t < steps; t++) {
        float g[N];
        for (int i = 0; i < N; i++)
            g[i] = (float)(h[i] * x[i]);
        mb_optim_step(o, x, g);
    }
    CU_ASSERT_EQUAL(mb_optim_updates(o), steps);
    mb_optim_free(o);
}

/* float32 iterates of a contraction accumulate about STEPS * 2^-24 relative error per
 * coordinate; 2e-5 of |x_0| (plus relative 1e-4) leaves a factor of ten of headroom. */
static int near(double got, double want, double scale)
{
    return fabs(got - want) <= 2e-5 * scale + 1e-4 * fabs(want);
}

static void test_sgd(void)
{
    mb_optim_params p = {.kind = MB_OPTIM_SGD, .lr = 0.173, .weight_decay = 0.013};
    float x[N];
    run(&p, x, STEPS);
    for (int i = 0; i < N; i++) {
        double want = pow(1 - p.lr * (h[i] + p.weight_decay), STEPS) * x0[i];
        CU_ASSERT_TRUE(near(x[i], want, fabs(x0[i])));
    }
}

static void test_momentum(void)
{
    mb_optim_params p = {.kind = MB_OPTIM_MOMENTUM, .lr = 0.173, .momentum = 0.87,
                         .weight_decay = 0.0021};
    float x[N];
    run(&p, x, STEPS);
    for (int i = 0; i < N; i++) {
        double a = p.lr * (h[i] + p.weight_decay);
        double want = two_term(1 + p.momentum - a, p.momentum, a, x0[i], STEPS);
        CU_ASSERT_TRUE(near(x[i], want, fabs(x0[i])));
    }
    /* mu = 0 is plain SGD */
    mb_optim_params q = {.kind = MB_OPTIM_MOMENTUM, .lr = 0.173};
    run(&q, x, 7);
    for (int i = 0; i < N; i++)
        CU_ASSERT_TRUE(near(x[i], pow(1 - q.lr * h[i], 7) * x0[i], fabs(x0[i])));
}

static void test_nesterov(void)
{
    mb_optim_params p = {.kind = MB_OPTIM_NESTEROV, .lr = 0.173, .momentum = 0.87,
                         .weight_decay = 0.0021};
    for (int steps = 1; steps <= STEPS; steps += STEPS - 1) {
        float y[N];
        run(&p, y, steps);
        for (int i = 0; i < N; i++) {
            double a = p.lr * (h[i] + p.weight_decay), mu = p.momentum;
            double b = (1 + mu) * (1 - a), c = mu * (1 - a);
            double xt = two_term(b, c, a, x0[i], steps);
            double xp = two_term(b, c, a, x0[i], steps - 1);
            double want = xt + mu * (xt - xp); /* y_t = x_t + mu v_t, v_t = x_t - x_{t-1} */
            CU_ASSERT_TRUE(near(y[i], want, fabs(x0[i])));
        }
    }
}

static void test_schedule_and_state(void)
{
    mb_optim_params p = {.kind = MB_OPTIM_SGD, .lr = 0.173, .lr_step_every = 7,
                         .lr_step_gamma = 0.31};
    float x[N];
    run(&p, x, 20); /* 7 steps at lr, 7 at lr g, 6 at lr g^2 */
    for (int i = 0; i < N; i++) {
        double want = x0[i] * pow(1 - p.lr * h[i], 7) * pow(1 - p.lr * 0.31 * h[i], 7) *
                      pow(1 - p.lr * 0.31 * 0.31 * h[i], 6);
        CU_ASSERT_TRUE(near(x[i], want, fabs(x0[i])));
    }
    mb_optim *o = NULL;
    CU_ASSERT_EQUAL_FATAL(mb_optim_create(&p, N, &o, NULL), MB_OK);
    CU_ASSERT_PTR_NULL(mb_optim_state(o)); /* SGD keeps no velocity */
    CU_ASSERT_TRUE(mb_test_close(mb_optim_lr(o), 0.173, 1e-15));
    mb_optim_set_updates(o, 15);
    CU_ASSERT_EQUAL(mb_optim_updates(o), 15);
    CU_ASSERT_TRUE(mb_test_close(mb_optim_lr(o), 0.173 * 0.31 * 0.31, 1e-15));
    mb_optim_free(o);

    mb_optim_params m = {.kind = MB_OPTIM_MOMENTUM, .lr = 0.1, .momentum = 0.9};
    CU_ASSERT_EQUAL_FATAL(mb_optim_create(&m, N, &o, NULL), MB_OK);
    float *v = mb_optim_state(o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    for (int i = 0; i < N; i++)
        CU_ASSERT_EQUAL(v[i], 0.0f);
    /* restored velocity is used by the next step: x' = x + mu v - lr g */
    float xs[N] = {1, 1, 1, 1}, g[N] = {0.5f, 0, 0, 0};
    v[0] = 0.25f;
    mb_optim_step(o, xs, g);
    CU_ASSERT_TRUE(mb_test_close(xs[0], 1 + 0.9 * 0.25 - 0.1 * 0.5, 1e-6));
    mb_optim_free(o);
    mb_optim_free(NULL);
}

static void test_errors(void)
{
    mb_optim *o = (mb_optim *)&o;
    mb_error err = {0};
    const mb_optim_params bad[] = {
        {.kind = MB_OPTIM_SGD, .lr = 0},
        {.kind = MB_OPTIM_SGD, .lr = NAN},
        {.kind = (mb_optim_kind)7, .lr = 0.1},
        {.kind = MB_OPTIM_MOMENTUM, .lr = 0.1, .momentum = 1.0},
        {.kind = MB_OPTIM_NESTEROV, .lr = 0.1, .momentum = -0.1},
        {.kind = MB_OPTIM_SGD, .lr = 0.1, .weight_decay = -1e-4},
        {.kind = MB_OPTIM_SGD, .lr = 0.1, .lr_step_every = -3},
        {.kind = MB_OPTIM_SGD, .lr = 0.1, .lr_step_every = 3, .lr_step_gamma = 0},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mb_error_clear(&err);
        CU_ASSERT_EQUAL(mb_optim_create(&bad[i], N, &o, &err), MB_EINVAL);
        CU_ASSERT_PTR_NULL(o);
        CU_ASSERT_TRUE(err.msg[0] != '\0');
    }
    mb_optim_params ok = {.kind = MB_OPTIM_SGD, .lr = 0.1};
    CU_ASSERT_EQUAL(mb_optim_create(&ok, 0, &o, &err), MB_EINVAL);
}

int mb_test_suite_train_optim(void)
{
    CU_pSuite s = CU_add_suite("train_optim", NULL, NULL);
    return !s || !CU_add_test(s, "SGD with weight decay, closed form", test_sgd) ||
           !CU_add_test(s, "heavy ball, closed form", test_momentum) ||
           !CU_add_test(s, "Nesterov look-ahead form, closed form", test_nesterov) ||
           !CU_add_test(s, "step schedule and checkpoint state", test_schedule_and_state) ||
           !CU_add_test(s, "argument errors", test_errors);
}
