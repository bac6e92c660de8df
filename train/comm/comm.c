/* comm.c — the communicator interface (mb_comm.h) and its threads
 * implementation: `size` threads of one process, each with its own handle, sharing one group.
 *
 * Collectives publish each rank's buffer pointer in the group and meet at a barrier; the sum is
 * cut into `size` contiguous slices, each summed by one rank over the ranks in rank order (so
 * the result does not depend on timing), then copied back. Point-to-point messages are copied
 * into a mailbox per destination (a list under a mutex and condition variable), so a send
 * never waits for its receiver, as MPI's buffered sends of small messages do not.
 *
 * Failing loudly: the barrier is the group's own (a mutex, a condition variable and a
 * generation count, not pthread_barrier_t), so that it can be left. mb_comm_abort marks the
 * group aborted and wakes every waiter: from then on every wait of every member returns MB_EMPI
 * at once, and no member can pass a barrier that the aborted one will never reach (which would
 * pair collectives that do not match). A wait longer than the handle's timeout aborts the group
 * the same way and marks the handle timed out.
 *
 * Not here: Open MPI (comm_mpi.c), threads themselves (the caller starts one per rank).
 */
#include "comm_impl.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- the interface: dispatch to the implementation ---------------------------------------- */

int mb_comm_rank(const mb_communicator *c) { return c->rank; }
int mb_comm_size(const mb_communicator *c) { return c->size; }
const char *mb_comm_kind(const mb_communicator *c) { return c->ops->kind; }

int mb_comm_allreduce_sum(mb_communicator *c, float *buf, size_t n)
{
    return c->size == 1 ? MB_OK : c->ops->allreduce_sum(c, buf, n);
}

int mb_comm_allreduce_mean(mb_communicator *c, float *buf, size_t n)
{
    int rc = mb_comm_allreduce_sum(c, buf, n);
    if (rc == MB_OK && c->size > 1) {
        const float s = 1.0f / (float)c->size;
        for (size_t i = 0; i < n; i++)
            buf[i] *= s;
    }
    return rc;
}

static int bad_root(const mb_communicator *c, int root) { return root < 0 || root >= c->size; }

int mb_comm_reduce_sum(mb_communicator *c, const float *send, float *recv, size_t n, int root)
{
    if (bad_root(c, root))
        return MB_EINVAL;
    if (c->size == 1) {
        memcpy(recv, send, n * sizeof *recv);
        return MB_OK;
    }
    return c->ops->reduce_sum(c, send, recv, n, root);
}

int mb_comm_bcast(mb_communicator *c, float *buf, size_t n, int root)
{
    if (bad_root(c, root))
        return MB_EINVAL;
    return c->size == 1 ? MB_OK : c->ops->bcast(c, buf, n, root);
}

int mb_comm_bcast_idle(mb_communicator *c, float *buf, size_t n, int root)
{
    if (bad_root(c, root))
        return MB_EINVAL;
    return c->size == 1 ? MB_OK : c->ops->bcast_idle(c, buf, n, root);
}

int mb_comm_barrier(mb_communicator *c) { return c->size == 1 ? MB_OK : c->ops->barrier(c); }

int mb_comm_ireduce_sum(mb_communicator *c, const float *send, float *recv, size_t n, int root,
                        mb_comm_req *req)
{
    *req = (mb_comm_req){.send = send, .recv = recv, .n = n, .root = root};
    if (bad_root(c, root))
        return MB_EINVAL;
    return c->size == 1 ? MB_OK : c->ops->ireduce_sum(c, req);
}

int mb_comm_wait(mb_communicator *c, mb_comm_req *req)
{
    if (c->size == 1) {
        memcpy(req->recv, req->send, req->n * sizeof(float));
        return MB_OK;
    }
    return c->ops->wait(c, req);
}

int mb_comm_send(mb_communicator *c, const float *buf, size_t n, int dest, int tag)
{
    if (bad_root(c, dest) || tag < 0)
        return MB_EINVAL;
    return c->ops->send(c, buf, n, dest, tag);
}

int mb_comm_recv(mb_communicator *c, float *buf, size_t n, int src, int tag, int *from)
{
    if ((src != MB_COMM_ANY && bad_root(c, src)) || tag < 0)
        return MB_EINVAL;
    return c->ops->recv(c, buf, n, src, tag, from);
}

void *mb_comm_shared(mb_communicator *c, size_t bytes) { return c->ops->shared(c, bytes); }

void mb_comm_abort_why(mb_communicator *c, int code, const char *why)
{
    if (c)
        c->ops->abort(c, code, why);
}

void mb_comm_abort(mb_communicator *c, int code) { mb_comm_abort_why(c, code, NULL); }

int mb_comm_aborted_by(const mb_communicator *c) { return c ? c->ops->aborted_by(c) : -1; }

void mb_comm_set_timeout(mb_communicator *c, double seconds)
{
    if (c && seconds >= 0)
        c->ops->set_timeout(c, seconds);
}

int mb_comm_timed_out(const mb_communicator *c)
{
    return c && (c->ops->timed_out ? c->ops->timed_out(c) : c->timed_out);
}

void mb_comm_free(mb_communicator *c)
{
    if (c)
        c->ops->free(c);
}

/* ---- threads ------------------------------------------------------------------------------ */

typedef struct message {
    struct message *next;
    int src, tag;
    size_t n;
    float data[];
} message;

typedef struct mailbox {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    message *head, *tail;
} mailbox;

typedef struct group {
    int size;
    int refs;                  /* handles not yet freed (under mu) */
    pthread_mutex_t mu;
    pthread_cond_t bar_cv;     /* the barrier: arrivals and generation, under mu */
    int bar_count;
    unsigned long bar_gen;
    int aborted;               /* 0, or 1 + the rank that aborted first (atomic; set under mu) */
    float **bufs;              /* each rank's published buffer, size entries */
    const float **sends;       /* each rank's published send buffer (reduce) */
    float *scratch;            /* allreduce's sums, scratch_n floats, grown by rank 0 */
    size_t scratch_n;
    int scratch_failed;        /* rank 0 could not grow it: every rank returns MB_ENOMEM */
    mailbox *boxes;            /* one per rank */
    void *shared;              /* mb_comm_shared's block */
} group;

static group *grp(const mb_communicator *c) { return c->impl; }

static void slice(size_t n, int size, int rank, size_t *lo, size_t *hi)
{
    *lo = n * (size_t)rank / (size_t)size;
    *hi = n * (size_t)(rank + 1) / (size_t)size;
}

static int is_aborted(group *g) { return __atomic_load_n(&g->aborted, __ATOMIC_ACQUIRE) != 0; }

/* The absolute time `seconds` from now, for pthread_cond_timedwait (CLOCK_REALTIME). */
static struct timespec deadline(double seconds)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    /* at most 31 years ahead: a time_t conversion past its range is undefined */
    double s = (double)t.tv_sec + 1e-9 * (double)t.tv_nsec + fmin(seconds, 1e9);
    t.tv_sec = (time_t)s;
    t.tv_nsec = (long)((s - (double)t.tv_sec) * 1e9);
    return t;
}

static void wake_all(group *g);

/* Marks the group aborted by `rank` (the first caller wins) and wakes every waiter. */
static void group_abort(group *g, int rank)
{
    pthread_mutex_lock(&g->mu);
    if (!g->aborted)
        __atomic_store_n(&g->aborted, rank + 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&g->mu);
    wake_all(g);
}

/* The group's barrier: MB_OK once every member has arrived; MB_EMPI when the group is (or gets)
 * aborted first, or when this member waits longer than its timeout (it then aborts the group). */
static int barrier_of(mb_communicator *c)
{
    group *g = c->impl;
    pthread_mutex_lock(&g->mu);
    if (g->aborted) {
        pthread_mutex_unlock(&g->mu);
        return MB_EMPI;
    }
    unsigned long gen = g->bar_gen;
    if (++g->bar_count == g->size) {
        g->bar_count = 0;
        g->bar_gen++;
        pthread_cond_broadcast(&g->bar_cv);
        pthread_mutex_unlock(&g->mu);
        return MB_OK;
    }
    struct timespec dl = deadline(c->timeout_s);
    int late = 0;
    while (gen == g->bar_gen && !g->aborted && !late) {
        if (c->timeout_s > 0)
            late = pthread_cond_timedwait(&g->bar_cv, &g->mu, &dl) == ETIMEDOUT;
        else
            pthread_cond_wait(&g->bar_cv, &g->mu);
    }
    int passed = gen != g->bar_gen;
    pthread_mutex_unlock(&g->mu);
    if (passed)
        return MB_OK;
    if (late) {
        c->timed_out = 1;
        group_abort(g, c->rank);
    }
    return MB_EMPI;
}

#define WAIT_ALL(c)                                                                             \
    do {                                                                                        \
        int rc_ = barrier_of(c);                                                                \
        if (rc_ != MB_OK)                                                                       \
            return rc_;                                                                         \
    } while (0)

static int th_allreduce_sum(mb_communicator *c, float *buf, size_t n)
{
    group *g = grp(c);
    g->bufs[c->rank] = buf;
    if (c->rank == 0) {
        g->scratch_failed = 0;
        if (g->scratch_n < n) {
            float *s = realloc(g->scratch, n * sizeof *s);
            if (s) {
                g->scratch = s;
                g->scratch_n = n;
            } else {
                g->scratch_failed = 1;
            }
        }
    }
    WAIT_ALL(c);
    if (g->scratch_failed) {
        WAIT_ALL(c);
        return MB_ENOMEM;
    }
    size_t lo, hi;
    slice(n, g->size, c->rank, &lo, &hi);
    float *s = g->scratch;
    for (size_t i = lo; i < hi; i++)
        s[i] = g->bufs[0][i];
    for (int r = 1; r < g->size; r++) {
        const float *b = g->bufs[r];
        for (size_t i = lo; i < hi; i++)
            s[i] += b[i];
    }
    WAIT_ALL(c); /* every slice summed */
    memcpy(buf, s, n * sizeof *buf);
    WAIT_ALL(c); /* every rank copied: the scratch and the pointers may change */
    return MB_OK;
}

static int th_reduce_sum(mb_communicator *c, const float *send, float *recv, size_t n, int root)
{
    group *g = grp(c);
    g->sends[c->rank] = send;
    if (c->rank == root)
        g->bufs[root] = recv;
    WAIT_ALL(c);
    size_t lo, hi;
    slice(n, g->size, c->rank, &lo, &hi);
    float *out = g->bufs[root];
    for (size_t i = lo; i < hi; i++)
        out[i] = g->sends[0][i];
    for (int r = 1; r < g->size; r++) {
        const float *b = g->sends[r];
        for (size_t i = lo; i < hi; i++)
            out[i] += b[i];
    }
    WAIT_ALL(c);
    return MB_OK;
}

static int th_bcast(mb_communicator *c, float *buf, size_t n, int root)
{
    group *g = grp(c);
    if (c->rank == root)
        g->bufs[root] = buf;
    WAIT_ALL(c);
    if (c->rank != root)
        memcpy(buf, g->bufs[root], n * sizeof *buf);
    WAIT_ALL(c);
    return MB_OK;
}

static int th_barrier(mb_communicator *c) { return barrier_of(c); }

static int th_ireduce_sum(mb_communicator *c, mb_comm_req *req)
{
    (void)c;
    (void)req;
    return MB_OK; /* threads share the cores that would compute: the reduction waits for the wait */
}

static int th_wait(mb_communicator *c, mb_comm_req *req)
{
    return th_reduce_sum(c, req->send, req->recv, req->n, req->root);
}

static int th_send(mb_communicator *c, const float *buf, size_t n, int dest, int tag)
{
    if (is_aborted(grp(c)))
        return MB_EMPI;
    message *m = malloc(sizeof *m + n * sizeof(float));
    if (!m)
        return MB_ENOMEM;
    m->next = NULL;
    m->src = c->rank;
    m->tag = tag;
    m->n = n;
    memcpy(m->data, buf, n * sizeof(float));
    mailbox *b = &grp(c)->boxes[dest];
    pthread_mutex_lock(&b->mu);
    if (b->tail)
        b->tail->next = m;
    else
        b->head = m;
    b->tail = m;
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
    return MB_OK;
}

static int th_recv(mb_communicator *c, float *buf, size_t n, int src, int tag, int *from)
{
    group *g = grp(c);
    mailbox *b = &g->boxes[c->rank];
    struct timespec dl = deadline(c->timeout_s);
    pthread_mutex_lock(&b->mu);
    for (;;) {
        if (is_aborted(g)) {
            pthread_mutex_unlock(&b->mu);
            return MB_EMPI;
        }
        message *prev = NULL;
        for (message *m = b->head; m; prev = m, m = m->next) {
            if (m->tag != tag || (src != MB_COMM_ANY && m->src != src))
                continue;
            if (prev)
                prev->next = m->next;
            else
                b->head = m->next;
            if (b->tail == m)
                b->tail = prev;
            pthread_mutex_unlock(&b->mu);
            int rc = m->n == n ? MB_OK : MB_EINVAL;
            if (rc == MB_OK)
                memcpy(buf, m->data, n * sizeof *buf);
            if (from)
                *from = m->src;
            free(m);
            return rc;
        }
        if (c->timeout_s <= 0) {
            pthread_cond_wait(&b->cv, &b->mu);
        } else if (pthread_cond_timedwait(&b->cv, &b->mu, &dl) == ETIMEDOUT) {
            pthread_mutex_unlock(&b->mu);
            c->timed_out = 1;
            group_abort(g, c->rank);
            return MB_EMPI;
        }
    }
}

static void *th_shared(mb_communicator *c, size_t bytes)
{
    group *g = grp(c);
    pthread_mutex_lock(&g->mu);
    if (!g->shared)
        g->shared = calloc(1, bytes ? bytes : 1);
    void *p = g->shared;
    pthread_mutex_unlock(&g->mu);
    return p;
}

/* Every waiter wakes: the barrier's and each mailbox's (each under its own mutex, so that a
 * waiter between its check of the flag and its wait cannot miss the wake-up). */
static void wake_all(group *g)
{
    pthread_mutex_lock(&g->mu);
    pthread_cond_broadcast(&g->bar_cv);
    pthread_mutex_unlock(&g->mu);
    for (int r = 0; r < g->size; r++) {
        pthread_mutex_lock(&g->boxes[r].mu);
        pthread_cond_broadcast(&g->boxes[r].cv);
        pthread_mutex_unlock(&g->boxes[r].mu);
    }
}

/* The caller reports why (mb_comm_aborted_by names it): nothing is printed here. */
static void th_abort(mb_communicator *c, int code, const char *why)
{
    (void)code;
    (void)why;
    group_abort(grp(c), c->rank);
}

static int th_aborted_by(const mb_communicator *c)
{
    int a = __atomic_load_n(&grp(c)->aborted, __ATOMIC_ACQUIRE);
    return a ? a - 1 : -1;
}

static void th_set_timeout(mb_communicator *c, double seconds) { c->timeout_s = seconds; }

static void th_say(mb_communicator *c, const char *why)
{
    (void)c;
    (void)why;
}

static void group_free(group *g)
{
    for (int r = 0; g->boxes && r < g->size; r++) {
        for (message *m = g->boxes[r].head, *next; m; m = next) {
            next = m->next;
            free(m);
        }
        pthread_mutex_destroy(&g->boxes[r].mu);
        pthread_cond_destroy(&g->boxes[r].cv);
    }
    pthread_cond_destroy(&g->bar_cv);
    pthread_mutex_destroy(&g->mu);
    free(g->boxes);
    free(g->bufs);
    free(g->sends);
    free(g->scratch);
    free(g->shared);
    free(g);
}

static void th_free(mb_communicator *c)
{
    group *g = grp(c);
    pthread_mutex_lock(&g->mu);
    int last = --g->refs == 0;
    pthread_mutex_unlock(&g->mu);
    if (last)
        group_free(g);
    free(c);
}

static const comm_ops threads_ops = {
    .kind = "threads", .allreduce_sum = th_allreduce_sum, .reduce_sum = th_reduce_sum,
    .bcast = th_bcast, .bcast_idle = th_bcast, .barrier = th_barrier,
    .ireduce_sum = th_ireduce_sum, .wait = th_wait,
    .send = th_send, .recv = th_recv, .shared = th_shared, .abort = th_abort,
    .aborted_by = th_aborted_by, .set_timeout = th_set_timeout, .say = th_say,
    .free = th_free};

int mb_comm_threads_create(int size, mb_communicator **comms, mb_error *err)
{
    if (size < 1)
        return mb_error_set(err, MB_EINVAL, "a communicator needs at least 1 rank, got %d", size);
    group *g = calloc(1, sizeof *g);
    if (!g)
        return mb_error_set(err, MB_ENOMEM, "out of memory for a communicator of %d", size);
    g->size = size;
    g->bufs = calloc((size_t)size, sizeof *g->bufs);
    g->sends = calloc((size_t)size, sizeof *g->sends);
    g->boxes = calloc((size_t)size, sizeof *g->boxes);
    if (!g->bufs || !g->sends || !g->boxes) {
        free(g->bufs);
        free(g->sends);
        free(g->boxes);
        free(g);
        return mb_error_set(err, MB_ENOMEM, "out of memory for a communicator of %d", size);
    }
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->bar_cv, NULL);
    for (int r = 0; r < size; r++) {
        pthread_mutex_init(&g->boxes[r].mu, NULL);
        pthread_cond_init(&g->boxes[r].cv, NULL);
    }
    for (int r = 0; r < size; r++) {
        comms[r] = malloc(sizeof **comms);
        if (!comms[r]) {
            for (int k = 0; k < r; k++)
                free(comms[k]);
            group_free(g);
            return mb_error_set(err, MB_ENOMEM, "out of memory for a communicator of %d", size);
        }
        *comms[r] = (mb_communicator){.ops = &threads_ops, .rank = r, .size = size, .impl = g};
    }
    g->refs = size;
    return MB_OK;
}

/* ---- ranks x threads ------------------------------------------------------------------------ */
/* L threads in each of P processes, global rank = process rank x L + thread: every collective is
 * the threads' one inside the process and, between processes, the world's one on thread 0 (the
 * caller's thread, so MPI is only ever called from one thread per process). Point-to-point and
 * shared memory are not offered (the server algorithms and Hogwild refuse this layout). */

typedef struct hybrid {
    mb_communicator *local;   /* this thread's handle among the process's threads */
    mb_communicator *world;   /* the processes (owned by the caller) */
    float *a, *b;             /* reduce's partial sums, n floats each (thread 0) */
    size_t cap;
} hybrid;

static hybrid *hy(const mb_communicator *c) { return c->impl; }

static int hy_lead(const mb_communicator *c) { return mb_comm_rank(hy(c)->local) == 0; }

static int hy_allreduce_sum(mb_communicator *c, float *buf, size_t n)
{
    hybrid *h = hy(c);
    int rc = mb_comm_allreduce_sum(h->local, buf, n);
    if (rc == MB_OK && hy_lead(c))
        rc = mb_comm_allreduce_sum(h->world, buf, n);
    int rc2 = mb_comm_bcast(h->local, buf, n, 0);
    return rc != MB_OK ? rc : rc2;
}

static int hy_grow(hybrid *h, size_t n)
{
    if (h->cap >= n)
        return MB_OK;
    float *a = realloc(h->a, n * sizeof *a), *b = a ? realloc(h->b, n * sizeof *b) : NULL;
    if (a)
        h->a = a;
    if (b)
        h->b = b;
    if (!a || !b)
        return MB_ENOMEM;
    h->cap = n;
    return MB_OK;
}

static int hy_reduce_sum(mb_communicator *c, const float *send, float *recv, size_t n, int root)
{
    hybrid *h = hy(c);
    int L = mb_comm_size(h->local), proc = c->rank / L, rproc = root / L, rt = root % L;
    int rc = hy_lead(c) ? hy_grow(h, n) : MB_OK;
    /* every thread takes part in the local reduce: thread 0's buffers are used */
    int rc2 = mb_comm_reduce_sum(h->local, send, hy_lead(c) ? h->a : NULL, n, 0);
    if (rc == MB_OK && hy_lead(c))
        rc = mb_comm_reduce_sum(h->world, h->a, h->b, n, rproc);
    if (proc == rproc) { /* hand the sum from thread 0 to the root thread */
        if (rt != 0) {
            /* a broadcast from thread 0 needs a buffer on every thread: the root's is recv,
             * the others' their scratch */
            int lead = hy_lead(c), rg = lead || c->rank == root ? MB_OK : hy_grow(h, n);
            float *x = lead ? h->b : c->rank == root ? recv : h->a;
            int rc3 = mb_comm_bcast(h->local, x, n, 0);
            if (rc == MB_OK)
                rc = rg != MB_OK ? rg : rc3;
        } else if (c->rank == root) {
            memcpy(recv, h->b, n * sizeof *recv);
        }
    }
    return rc != MB_OK ? rc : rc2;
}

/* The broadcast in three steps: within root's process, across processes (idle: the patient
 * MPI broadcast), within the others. */
static int hy_bcast_with(mb_communicator *c, float *buf, size_t n, int root, int idle)
{
    hybrid *h = hy(c);
    int L = mb_comm_size(h->local), proc = c->rank / L, rproc = root / L, rt = root % L;
    int rc = MB_OK;
    if (proc == rproc)
        rc = mb_comm_bcast(h->local, buf, n, rt);
    if (rc == MB_OK && hy_lead(c))
        rc = idle ? mb_comm_bcast_idle(h->world, buf, n, rproc)
                  : mb_comm_bcast(h->world, buf, n, rproc);
    if (proc != rproc) {
        int rc2 = mb_comm_bcast(h->local, buf, n, 0);
        if (rc == MB_OK)
            rc = rc2;
    }
    return rc;
}

static int hy_bcast(mb_communicator *c, float *buf, size_t n, int root)
{
    return hy_bcast_with(c, buf, n, root, 0);
}

static int hy_bcast_idle(mb_communicator *c, float *buf, size_t n, int root)
{
    return hy_bcast_with(c, buf, n, root, 1);
}

static int hy_barrier(mb_communicator *c)
{
    hybrid *h = hy(c);
    int rc = mb_comm_barrier(h->local);
    if (rc == MB_OK && hy_lead(c))
        rc = mb_comm_barrier(h->world);
    int rc2 = mb_comm_barrier(h->local);
    return rc != MB_OK ? rc : rc2;
}

static int hy_ireduce_sum(mb_communicator *c, mb_comm_req *req)
{
    (void)c;
    (void)req;
    return MB_OK; /* as over threads: the reduction happens in the wait */
}

static int hy_wait(mb_communicator *c, mb_comm_req *req)
{
    return hy_reduce_sum(c, req->send, req->recv, req->n, req->root);
}

static int hy_send(mb_communicator *c, const float *buf, size_t n, int dest, int tag)
{
    (void)c, (void)buf, (void)n, (void)dest, (void)tag;
    return MB_ENOTSUP;
}

static int hy_recv(mb_communicator *c, float *buf, size_t n, int src, int tag, int *from)
{
    (void)c, (void)buf, (void)n, (void)src, (void)tag, (void)from;
    return MB_ENOTSUP;
}

static void *hy_shared(mb_communicator *c, size_t bytes)
{
    (void)c, (void)bytes;
    return NULL;
}

/* The first failure in this process says why; the thread that makes the MPI calls ends the job
 * (at once when it is the one that failed; else its next wait among the threads fails, and its
 * caller aborts again, silently, from there). */
static void hy_abort(mb_communicator *c, int code, const char *why)
{
    hybrid *h = hy(c);
    int first = mb_comm_aborted_by(h->local) < 0;
    if (hy_lead(c)) {
        mb_comm_abort_why(h->world, code, first ? why : NULL);
        return;
    }
    if (first && why)
        h->world->ops->say(h->world, why);
    mb_comm_abort(h->local, code);
}

static int hy_aborted_by(const mb_communicator *c)
{
    hybrid *h = hy(c);
    int k = mb_comm_aborted_by(h->local), L = mb_comm_size(h->local);
    return k < 0 ? -1 : c->rank / L * L + k;
}

static void hy_set_timeout(mb_communicator *c, double seconds)
{
    hybrid *h = hy(c);
    mb_comm_set_timeout(h->local, seconds);
    if (hy_lead(c))
        mb_comm_set_timeout(h->world, seconds);
}

static void hy_say(mb_communicator *c, const char *why) { hy(c)->world->ops->say(hy(c)->world, why); }

static int hy_timed_out(const mb_communicator *c) { return mb_comm_timed_out(hy(c)->local); }

static void hy_free(mb_communicator *c)
{
    hybrid *h = hy(c);
    mb_comm_free(h->local);
    free(h->a);
    free(h->b);
    free(h);
    free(c);
}

static const comm_ops hybrid_ops = {
    .kind = "mpi+threads", .allreduce_sum = hy_allreduce_sum, .reduce_sum = hy_reduce_sum,
    .bcast = hy_bcast, .bcast_idle = hy_bcast_idle, .barrier = hy_barrier,
    .ireduce_sum = hy_ireduce_sum, .wait = hy_wait,
    .send = hy_send, .recv = hy_recv, .shared = hy_shared, .abort = hy_abort,
    .aborted_by = hy_aborted_by, .set_timeout = hy_set_timeout, .say = hy_say,
    .timed_out = hy_timed_out, .free = hy_free};

int mb_comm_hybrid_create(mb_communicator *world, int threads, mb_communicator **comms,
                          mb_error *err)
{
    mb_communicator **local = calloc((size_t)(threads > 0 ? threads : 1), sizeof *local);
    if (!local)
        return mb_error_set(err, MB_ENOMEM, "out of memory for a communicator");
    int rc = mb_comm_threads_create(threads, local, err);
    for (int t = 0; rc == MB_OK && t < threads; t++) {
        hybrid *h = calloc(1, sizeof *h);
        comms[t] = h ? malloc(sizeof **comms) : NULL;
        if (!comms[t]) {
            free(h);
            for (int k = 0; k < t; k++) {
                free(hy(comms[k]));
                free(comms[k]);
            }
            for (int k = 0; k < threads; k++)
                mb_comm_free(local[k]);
            rc = mb_error_set(err, MB_ENOMEM, "out of memory for a communicator");
            break;
        }
        h->local = local[t];
        h->world = world;
        *comms[t] = (mb_communicator){.ops = &hybrid_ops,
                                      .rank = mb_comm_rank(world) * threads + t,
                                      .size = mb_comm_size(world) * threads, .impl = h};
    }
    free(local);
    return rc;
}
