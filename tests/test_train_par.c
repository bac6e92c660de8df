/* test_train_par.c — parallel learners (train/comm*.c, train/par*.c): the threads communicator's
 * collectives and messages against sums computed here; sgd-sync against single-learner SGD;
 * each EASGD rule, SMA and DOWNPOUR against steps computed by hand on a quadratic; the round-
 * robin EASGD stability region of Zhang et al.; Hogwild's convergence; and mbtrain under mpirun
 * (skipped with a message when mpirun is absent).
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../train/mb_train.h"
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

int mb_test_suite_train_par(void)
{
    CU_pSuite s = CU_add_suite("train_par", NULL, NULL);
    if (!s || !CU_add_test(s, "threads communicator", test_comm_threads))
        return 1;
    return 0;
}
