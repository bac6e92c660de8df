/* pool.c — the network's persistent worker threads (pool_impl.h): pthreads, a generation counter
 * that announces each job, a count of parts still running, and a mutex with two condition
 * variables for the waits that outlast a short spin. Nothing here knows about networks.
 */
#include "pool_impl.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "../../model/mb_model.h"

/* How long a waiter spins before it sleeps: 20 microseconds. Long enough to bridge the gap
 * between two jobs of a busy training loop (the optimiser's update of lenet5's 61,706 parameters
 * takes ~1e-5 s), short because the development machine has 2 cores shared with other builds:
 * measured with tests/bench/lenet5_step --threads 2 under load (load average 3.6), a 100 us spin
 * made M = 2 four times slower (2.7e3 samples/s against 9e3 with a ~10 us spin), since a spinning
 * thread burns the time slice the thread it waits for needs. A condition-variable wake-up costs
 * tens of microseconds. */
enum { SPIN_NS = 20000 };

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Spins until *gen differs from seen or SPIN_NS pass; returns the last value read. */
static unsigned long spin_gen(atomic_ulong *gen, unsigned long seen)
{
    unsigned long g = atomic_load(gen);
    for (long long t0 = now_ns(); g == seen && now_ns() - t0 < SPIN_NS;)
        for (int i = 0; g == seen && i < 64; i++)
            g = atomic_load(gen);
    return g;
}

/* Spins until *n is 0 or SPIN_NS pass. */
static void spin_zero(atomic_int *n)
{
    for (long long t0 = now_ns(); atomic_load(n) > 0 && now_ns() - t0 < SPIN_NS;)
        for (int i = 0; atomic_load(n) > 0 && i < 64; i++)
            ;
}

typedef struct worker {
    mb_pool *pool;
    int id;           /* part number, 1 .. n-1 */
    pthread_t tid;
} worker;

struct mb_pool {
    int n;                         /* parts: the caller plus n - 1 threads */
    worker *w;                     /* n - 1 entries */
    int started;                   /* threads started (for a partial create) */
    pthread_mutex_t mu;
    pthread_cond_t go;             /* a new generation (job or quit) */
    pthread_cond_t done;           /* pending reached 0 */
    atomic_ulong gen;              /* incremented per job */
    atomic_int pending;            /* parts of the current job not yet returned (threads only) */
    int quit;                      /* under mu: threads exit */
    int parts;                     /* parts of the current job */
    void (*fn)(void *ctx, int w);  /* the current job */
    void *ctx;
};

static void *worker_main(void *arg)
{
    worker *me = arg;
    mb_pool *p = me->pool;
    unsigned long seen = 0;
    for (;;) {
        spin_gen(&p->gen, seen);
        pthread_mutex_lock(&p->mu);
        while (atomic_load(&p->gen) == seen && !p->quit)
            pthread_cond_wait(&p->go, &p->mu);
        int quit = p->quit;
        seen = atomic_load(&p->gen);
        void (*fn)(void *, int) = p->fn;
        void *ctx = p->ctx;
        int run = me->id < p->parts;
        pthread_mutex_unlock(&p->mu);
        if (quit)
            return NULL;
        if (!run)
            continue;
        fn(ctx, me->id);
        if (atomic_fetch_sub(&p->pending, 1) == 1) {
            pthread_mutex_lock(&p->mu);
            pthread_cond_signal(&p->done);
            pthread_mutex_unlock(&p->mu);
        }
    }
}

int mb_pool_create(int n, mb_pool **out)
{
    *out = NULL;
    mb_pool *p = calloc(1, sizeof *p);
    if (!p)
        return MB_ENOMEM;
    p->n = n < 1 ? 1 : n;
    if (p->n == 1) {
        *out = p;
        return MB_OK;
    }
    p->w = calloc((size_t)p->n - 1, sizeof *p->w);
    if (!p->w || pthread_mutex_init(&p->mu, NULL) != 0) {
        free(p->w);
        free(p);
        return MB_ENOMEM;
    }
    pthread_cond_init(&p->go, NULL);
    pthread_cond_init(&p->done, NULL);
    atomic_init(&p->gen, 0);
    atomic_init(&p->pending, 0);
    for (int i = 0; i < p->n - 1; i++) {
        p->w[i].pool = p;
        p->w[i].id = i + 1;
        if (pthread_create(&p->w[i].tid, NULL, worker_main, &p->w[i]) != 0) {
            mb_pool_free(p);
            return MB_ENOMEM;
        }
        p->started++;
    }
    *out = p;
    return MB_OK;
}

void mb_pool_free(mb_pool *p)
{
    if (!p)
        return;
    if (p->n > 1) {
        pthread_mutex_lock(&p->mu);
        p->quit = 1;
        atomic_fetch_add(&p->gen, 1);
        pthread_cond_broadcast(&p->go);
        pthread_mutex_unlock(&p->mu);
        for (int i = 0; i < p->started; i++)
            pthread_join(p->w[i].tid, NULL);
        pthread_cond_destroy(&p->go);
        pthread_cond_destroy(&p->done);
        pthread_mutex_destroy(&p->mu);
    }
    free(p->w);
    free(p);
}


void mb_pool_run(mb_pool *p, int n, void (*fn)(void *ctx, int w), void *ctx)
{
    if (!p || n <= 1 || p->n <= 1) {
        fn(ctx, 0);
        return;
    }
    if (n > p->n)
        n = p->n;
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->ctx = ctx;
    p->parts = n;
    atomic_store(&p->pending, n - 1);
    atomic_fetch_add(&p->gen, 1);
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    fn(ctx, 0);
    spin_zero(&p->pending);
    if (atomic_load(&p->pending) > 0) {
        pthread_mutex_lock(&p->mu);
        while (atomic_load(&p->pending) > 0)
            pthread_cond_wait(&p->done, &p->mu);
        pthread_mutex_unlock(&p->mu);
    }
}
