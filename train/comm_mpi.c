/* comm_mpi.c — the communicator over Open MPI ranks: one handle per process on a duplicate of
 * MPI_COMM_WORLD, floats as MPI_FLOAT, sums as MPI_SUM.
 *
 * MPI is started here only when asked (mb_comm_mpi_create), so a plain single-learner run never
 * initialises it. Errors on the communicator are fatal (Open MPI's default handler): a peer that
 * died ends the job instead of leaving the others blocked in a collective, and mpirun names the
 * rank that went first. MPI status codes become MB_EMPI at this boundary.
 *
 * Not here: threads (comm.c), the interface's argument checks (comm.c).
 */
#include "comm_impl.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct mpi_state {
    MPI_Comm comm;
    int own_init;          /* this handle called MPI_Init: its free finalises */
} mpi_state;

static MPI_Comm world(const mb_communicator *c) { return ((const mpi_state *)c->impl)->comm; }

static int st(int rc) { return rc == MPI_SUCCESS ? MB_OK : MB_EMPI; }

/* MPI counts are int: big arrays go in pieces. */
enum { CHUNK = 1 << 28 };

static int mp_allreduce_sum(mb_communicator *c, float *buf, size_t n)
{
    for (size_t i = 0; i < n; i += CHUNK) {
        int k = (int)(n - i < CHUNK ? n - i : CHUNK);
        int rc = MPI_Allreduce(MPI_IN_PLACE, buf + i, k, MPI_FLOAT, MPI_SUM, world(c));
        if (rc != MPI_SUCCESS)
            return MB_EMPI;
    }
    return MB_OK;
}

static int mp_reduce_sum(mb_communicator *c, const float *send, float *recv, size_t n, int root)
{
    for (size_t i = 0; i < n; i += CHUNK) {
        int k = (int)(n - i < CHUNK ? n - i : CHUNK);
        int rc = MPI_Reduce(send + i, c->rank == root ? recv + i : NULL, k, MPI_FLOAT, MPI_SUM,
                            root, world(c));
        if (rc != MPI_SUCCESS)
            return MB_EMPI;
    }
    return MB_OK;
}

static int mp_bcast(mb_communicator *c, float *buf, size_t n, int root)
{
    for (size_t i = 0; i < n; i += CHUNK) {
        int k = (int)(n - i < CHUNK ? n - i : CHUNK);
        if (MPI_Bcast(buf + i, k, MPI_FLOAT, root, world(c)) != MPI_SUCCESS)
            return MB_EMPI;
    }
    return MB_OK;
}

/* How long a patient wait polls without pause before it sleeps between polls, and the sleeps:
 * from SLEEP0_NS, doubling up to SLEEP_MAX_NS. A broadcast that comes within the spin (an update
 * without an evaluation: the root copies a snapshot and logs a row, tens of microseconds) costs
 * nothing more; a long one (an evaluation, milliseconds) is seen up to a sleep late. Short
 * sleeps steal the root's time: measured on the 2-core machine with sgd-sync on 2 ranks and
 * rank 0 evaluating on 2 threads, polling every 20 us left evaluation at 25 us a sample, as
 * slow as blocking (Open MPI polls without pause, with or without mpi_yield_when_idle), and
 * 1 ms sleeps gave 15 us. */
enum { SPIN_NS = 200000, SLEEP0_NS = 50000, SLEEP_MAX_NS = 1000000 };

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int mp_bcast_idle(mb_communicator *c, float *buf, size_t n, int root)
{
    for (size_t i = 0; i < n; i += CHUNK) {
        int k = (int)(n - i < CHUNK ? n - i : CHUNK), done = 0;
        MPI_Request r;
        if (MPI_Ibcast(buf + i, k, MPI_FLOAT, root, world(c), &r) != MPI_SUCCESS)
            return MB_EMPI;
        long sleep = SLEEP0_NS;
        for (long long t0 = now_ns(); !done;) {
            if (MPI_Test(&r, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
                return MB_EMPI;
            if (!done && now_ns() - t0 > SPIN_NS) {
                nanosleep(&(struct timespec){0, sleep}, NULL);
                sleep = 2 * sleep < SLEEP_MAX_NS ? 2 * sleep : SLEEP_MAX_NS;
            }
        }
    }
    return MB_OK;
}

static int mp_barrier(mb_communicator *c) { return st(MPI_Barrier(world(c))); }

static int mp_ireduce_sum(mb_communicator *c, mb_comm_req *req)
{
    if (req->n > CHUNK)
        return MB_ENOTSUP;
    MPI_Request *r = malloc(sizeof *r);
    if (!r)
        return MB_ENOMEM;
    int rc = MPI_Ireduce(req->send, c->rank == req->root ? req->recv : NULL, (int)req->n,
                         MPI_FLOAT, MPI_SUM, req->root, world(c), r);
    if (rc != MPI_SUCCESS) {
        free(r);
        return MB_EMPI;
    }
    req->impl = r;
    return MB_OK;
}

static int mp_wait(mb_communicator *c, mb_comm_req *req)
{
    (void)c;
    MPI_Request *r = req->impl;
    if (!r)
        return MB_EINVAL;
    int rc = MPI_Wait(r, MPI_STATUS_IGNORE);
    free(r);
    req->impl = NULL;
    return st(rc);
}

static int mp_send(mb_communicator *c, const float *buf, size_t n, int dest, int tag)
{
    if (n > CHUNK)
        return MB_ENOTSUP;
    return st(MPI_Send(buf, (int)n, MPI_FLOAT, dest, tag, world(c)));
}

static int mp_recv(mb_communicator *c, float *buf, size_t n, int src, int tag, int *from)
{
    if (n > CHUNK)
        return MB_ENOTSUP;
    MPI_Status s;
    int rc = MPI_Recv(buf, (int)n, MPI_FLOAT, src == MB_COMM_ANY ? MPI_ANY_SOURCE : src, tag,
                      world(c), &s);
    if (rc != MPI_SUCCESS)
        return MB_EMPI;
    int got = 0;
    MPI_Get_count(&s, MPI_FLOAT, &got);
    if (from)
        *from = s.MPI_SOURCE;
    return (size_t)got == n ? MB_OK : MB_EINVAL;
}

static void *mp_shared(mb_communicator *c, size_t bytes)
{
    (void)c;
    (void)bytes;
    return NULL;
}

static void mp_abort(mb_communicator *c, int code) { MPI_Abort(world(c), code); }

static void mp_free(mb_communicator *c)
{
    mpi_state *s = c->impl;
    MPI_Comm_free(&s->comm);
    if (s->own_init)
        MPI_Finalize();
    free(s);
    free(c);
}

static const comm_ops mpi_ops = {
    .kind = "mpi", .allreduce_sum = mp_allreduce_sum, .reduce_sum = mp_reduce_sum,
    .bcast = mp_bcast, .bcast_idle = mp_bcast_idle, .barrier = mp_barrier,
    .ireduce_sum = mp_ireduce_sum, .wait = mp_wait,
    .send = mp_send, .recv = mp_recv, .shared = mp_shared, .abort = mp_abort, .free = mp_free};

int mb_comm_mpi_launched(void)
{
    /* Open MPI's launcher sets these in every rank's environment; PMI_SIZE / PMIX_RANK cover
     * launchers that speak PMI (srun). */
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_SIZE");
}

int mb_comm_mpi_create(int *argc, char ***argv, mb_communicator **c, mb_error *err)
{
    *c = NULL;
    int init = 0;
    MPI_Initialized(&init);
    mpi_state *s = calloc(1, sizeof *s);
    mb_communicator *h = calloc(1, sizeof *h);
    if (!s || !h) {
        free(s);
        free(h);
        return mb_error_set(err, MB_ENOMEM, "out of memory for the MPI communicator");
    }
    if (!init) {
        /* funneled: with ranks x threads, MPI is called from the thread that started it */
        int provided = 0;
        if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
            free(s);
            free(h);
            return mb_error_set(err, MB_EMPI, "MPI could not start (MPI_Init failed)");
        }
        s->own_init = 1;
    }
    if (MPI_Comm_dup(MPI_COMM_WORLD, &s->comm) != MPI_SUCCESS) {
        if (s->own_init)
            MPI_Finalize();
        free(s);
        free(h);
        return mb_error_set(err, MB_EMPI, "MPI_Comm_dup failed");
    }
    MPI_Comm_set_errhandler(s->comm, MPI_ERRORS_ARE_FATAL);
    h->ops = &mpi_ops;
    h->impl = s;
    MPI_Comm_rank(s->comm, &h->rank);
    MPI_Comm_size(s->comm, &h->size);
    *c = h;
    return MB_OK;
}
