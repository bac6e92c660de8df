/* comm_mpi.c — the communicator over Open MPI ranks: one handle per process on a duplicate of
 * MPI_COMM_WORLD, floats as MPI_FLOAT, sums as MPI_SUM.
 *
 * MPI is started here only when asked (mb_comm_mpi_create), so a plain single-learner run never
 * initialises it, and with MPI_THREAD_FUNNELED (checked: a library that provides less is
 * refused). Errors on the communicator are fatal (Open MPI's default handler): a peer that died
 * ends the job instead of leaving the others blocked in a collective, and mpirun names the rank
 * that went first. MPI status codes become MB_EMPI at this boundary.
 *
 * A peer that stalls (SIGSTOP, a hung node) is not an error to MPI: a blocking call waits for it
 * forever. mb_comm_set_timeout starts a watchdog thread that never calls MPI: each blocking call
 * here stamps when it began and clears the stamp when it returns; a call older than the timeout
 * makes the watchdog print one line and end this process with status 1 (_exit: MPI cannot be
 * left from inside a call), and mpirun then ends the others. This and mp_abort are the only
 * places the library ends a process: there is no other way out of a wait inside MPI.
 *
 * MPI_Init itself waits for every rank of the mpirun to start MPI; a rank that exits without it
 * would leave the others there forever, so start-up has a watchdog of its own (init_bounded).
 *
 * Not here: threads (comm.c), the interface's argument checks (comm.c), what the ranks compare
 * (agree.c; the program each runs is the first exchange of mb_comm_mpi_create).
 */
#include "comm_impl.h"
#include "../../data/mb_parse.h"

#include <math.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct mpi_state {
    MPI_Comm comm;
    int own_init;          /* this handle called MPI_Init: its free finalises */
    char prog[64];         /* the program's name, for the lines printed here */
    /* the watchdog (mb_comm_set_timeout) */
    pthread_t dog;
    int dog_on;            /* the thread runs */
    int quit;              /* under mu: the free asks it to end */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    long long since_ns;    /* atomic: when the blocking call under way began, 0 when none */
    const char *what;      /* atomic: that call's name */
} mpi_state;

static mpi_state *state(const mb_communicator *c) { return c->impl; }
static MPI_Comm world(const mb_communicator *c) { return state(c)->comm; }

static int st(int rc) { return rc == MPI_SUCCESS ? MB_OK : MB_EMPI; }

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* A blocking call begins and ends: the watchdog's stamps (cheap: two atomic stores). */
static void enter(mb_communicator *c, const char *what)
{
    mpi_state *s = state(c);
    if (!s->dog_on)
        return;
    __atomic_store_n(&s->what, what, __ATOMIC_RELAXED);
    __atomic_store_n(&s->since_ns, now_ns(), __ATOMIC_RELEASE);
}

static void leave(mb_communicator *c)
{
    mpi_state *s = state(c);
    if (s->dog_on)
        __atomic_store_n(&s->since_ns, 0LL, __ATOMIC_RELEASE);
}

/* MPI counts are int: big arrays go in pieces. */
enum { CHUNK = 1 << 28 };

static int mp_allreduce_sum(mb_communicator *c, float *buf, size_t n)
{
    enter(c, "an allreduce");
    for (size_t i = 0; i < n; i += CHUNK) {
        int k = (int)(n - i < CHUNK ? n - i : CHUNK);
        int rc = MPI_Allreduce(MPI_IN_PLACE, buf + i, k, MPI_FLOAT, MPI_SUM, world(c));
        if (rc != MPI_SUCCESS)
            return MB_EMPI;
    }
    leave(c);
    return MB_OK;
}

static int mp_reduce_sum(mb_communicator *c, const float *send, float *recv, size_t n, int root)
{
    enter(c, "a reduce");
    for (size_t i = 0; i < n; i += CHUNK) {
        int k = (int)(n - i < CHUNK ? n - i : CHUNK);
        int rc = MPI_Reduce(send + i, c->rank == root ? recv + i : NULL, k, MPI_FLOAT, MPI_SUM,
                            root, world(c));
        if (rc != MPI_SUCCESS)
            return MB_EMPI;
    }
    leave(c);
    return MB_OK;
}

static int mp_bcast(mb_communicator *c, float *buf, size_t n, int root)
{
    enter(c, "a broadcast");
    for (size_t i = 0; i < n; i += CHUNK) {
        int k = (int)(n - i < CHUNK ? n - i : CHUNK);
        if (MPI_Bcast(buf + i, k, MPI_FLOAT, root, world(c)) != MPI_SUCCESS)
            return MB_EMPI;
    }
    leave(c);
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


static int mp_bcast_idle(mb_communicator *c, float *buf, size_t n, int root)
{
    enter(c, "the broadcast of rank 0's verdict");
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
    leave(c);
    return MB_OK;
}

static int mp_barrier(mb_communicator *c)
{
    enter(c, "a barrier");
    int rc = st(MPI_Barrier(world(c)));
    leave(c);
    return rc;
}

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
    MPI_Request *r = req->impl;
    if (!r)
        return MB_EINVAL;
    enter(c, "a reduce");
    int rc = MPI_Wait(r, MPI_STATUS_IGNORE);
    leave(c);
    free(r);
    req->impl = NULL;
    return st(rc);
}

static int mp_send(mb_communicator *c, const float *buf, size_t n, int dest, int tag)
{
    if (n > CHUNK)
        return MB_ENOTSUP;
    enter(c, "a send");
    int rc = st(MPI_Send(buf, (int)n, MPI_FLOAT, dest, tag, world(c)));
    leave(c);
    return rc;
}

static int mp_recv(mb_communicator *c, float *buf, size_t n, int src, int tag, int *from)
{
    if (n > CHUNK)
        return MB_ENOTSUP;
    MPI_Status s;
    enter(c, "a receive");
    int rc = MPI_Recv(buf, (int)n, MPI_FLOAT, src == MB_COMM_ANY ? MPI_ANY_SOURCE : src, tag,
                      world(c), &s);
    leave(c);
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

/* One line whatever `why` quotes: escaped as mb_error_set escapes (mb_error_one_line). */
static void mp_say(mb_communicator *c, const char *why)
{
    char line[2048];
    snprintf(line, sizeof line, "%s", why);
    mb_error_one_line(line, sizeof line);
    fprintf(stderr, "%s: %s\n", state(c)->prog, line);
    fflush(stderr);
}

/* The line first: MPI_Abort does not return, and the caller's message would be lost. */
static void mp_abort(mb_communicator *c, int code, const char *why)
{
    if (why)
        mp_say(c, why);
    MPI_Abort(world(c), code);
}

static int mp_aborted_by(const mb_communicator *c)
{
    (void)c;
    return -1; /* an abort ends the process */
}

/* The watchdog: wakes every 100 ms (or when freed) and ends the process when a blocking call
 * has lasted longer than the timeout. Time this process itself did not run (it was stopped, or
 * starved: a wake-up far later than asked) is not the others' fault and does not count: the
 * stamp moves on by it, so that a stopped rank that mpirun resumes to end it stays silent. It
 * never calls MPI. */
static void *watchdog(void *p)
{
    mb_communicator *c = p;
    mpi_state *s = state(c);
    const long long limit = (long long)(c->timeout_s * 1e9), tick = 100000000LL;
    long long last = now_ns();
    pthread_mutex_lock(&s->mu);
    while (!s->quit) {
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        t.tv_nsec += 100000000L;
        if (t.tv_nsec >= 1000000000L) {
            t.tv_sec++;
            t.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&s->cv, &s->mu, &t);
        long long woke = now_ns(), lost = woke - last - tick;
        last = woke;
        long long since = __atomic_load_n(&s->since_ns, __ATOMIC_ACQUIRE);
        if (since && lost > 5 * tick) { /* this process was not running: not a wait */
            long long moved = since + lost;
            __atomic_compare_exchange_n(&s->since_ns, &since, moved, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE);
            since = __atomic_load_n(&s->since_ns, __ATOMIC_ACQUIRE);
        }
        if (!s->quit && since && now_ns() - since > limit) {
            const char *what = __atomic_load_n(&s->what, __ATOMIC_RELAXED);
            fprintf(stderr, "%s: rank %d: waited %.3g s in %s for the other ranks "
                    "(--wait-timeout %.3g): a rank has stalled or is lost; ending the job\n",
                    s->prog, c->rank, (double)(now_ns() - since) * 1e-9, what ? what : "a call",
                    c->timeout_s);
            fflush(stderr);
            _exit(1);
        }
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

static void mp_set_timeout(mb_communicator *c, double seconds)
{
    mpi_state *s = state(c);
    if (s->dog_on || !(seconds > 0))
        return; /* one watchdog per process, started once */
    c->timeout_s = seconds;
    s->quit = 0;
    if (pthread_create(&s->dog, NULL, watchdog, c) == 0)
        s->dog_on = 1;
}

static void mp_free(mb_communicator *c)
{
    mpi_state *s = c->impl;
    if (s->dog_on) {
        pthread_mutex_lock(&s->mu);
        s->quit = 1;
        pthread_cond_signal(&s->cv);
        pthread_mutex_unlock(&s->mu);
        pthread_join(s->dog, NULL);
    }
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
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
    .send = mp_send, .recv = mp_recv, .shared = mp_shared, .abort = mp_abort,
    .aborted_by = mp_aborted_by, .set_timeout = mp_set_timeout, .say = mp_say,
    .free = mp_free};

int mb_comm_mpi_launched(void)
{
    /* Open MPI's launcher sets these in every rank's environment; PMI_SIZE / PMIX_RANK cover
     * launchers that speak PMI (srun). */
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_SIZE");
}

/* ---- start-up: MPI_Init bounded ------------------------------------------------------------ */

/* MPI_Init waits for every rank of the mpirun to start MPI; a rank that exits without it (a
 * `--help`, a program that never uses MPI) leaves the others there forever. A thread started
 * before it ends this process with one line (from the mpirun's rank 0, or every rank when the
 * rank is unknown) when MPI has not started within MBKIT_MPI_START_WAIT seconds
 * (mb_data_mpi_start_wait; a command's mb_cli_start refused a bad value before, once). */

typedef struct start_dog {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done;
    double limit;
    const char *prog;
} start_dog;

static void *start_watch(void *p)
{
    start_dog *d = p;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += (time_t)d->limit;
    until.tv_nsec += (long)((d->limit - floor(d->limit)) * 1e9);
    if (until.tv_nsec >= 1000000000L)
        until.tv_sec++, until.tv_nsec -= 1000000000L;
    pthread_mutex_lock(&d->mu);
    while (!d->done && pthread_cond_timedwait(&d->cv, &d->mu, &until) == 0)
        ;
    int done = d->done;
    pthread_mutex_unlock(&d->mu);
    if (!done) {
        const char *r = getenv("OMPI_COMM_WORLD_RANK");
        const char *set = getenv("MBKIT_MPI_START_WAIT"); /* checked: a number */
        if (!r || strcmp(r, "0") == 0)
            fprintf(stderr, "%s: MPI did not start within %g s: another rank of this mpirun "
                    "exited or stalled before starting MPI (every rank must run the same mbkit "
                    "command; MBKIT_MPI_START_WAIT%s%s%s the wait)\n", d->prog, d->limit,
                    set ? "=" : "", set ? set : " sets", set ? " set" : "");
        /* mpirun forwards a rank's stderr through a pipe and may tear the job down on this
         * exit before it has read the line (seen under load: exit 1, no line): a moment first */
        nanosleep(&(struct timespec){.tv_sec = 0, .tv_nsec = 300000000L}, NULL);
        _exit(1);
    }
    return NULL;
}

/* MPI_Init_thread under the start-up watchdog; MB_EUSAGE for a bad MBKIT_MPI_START_WAIT. */
static int init_bounded(int *argc, char ***argv, const char *prog, int *provided, mb_error *err)
{
    start_dog d = {.prog = prog};
    int bad = mb_data_mpi_start_wait(&d.limit, err);
    if (bad != MB_OK)
        return bad;
    pthread_mutex_init(&d.mu, NULL);
    pthread_cond_init(&d.cv, NULL);
    pthread_t t;
    int dog = pthread_create(&t, NULL, start_watch, &d) == 0;
    int rc = MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, provided);
    if (dog) {
        pthread_mutex_lock(&d.mu);
        d.done = 1;
        pthread_cond_signal(&d.cv);
        pthread_mutex_unlock(&d.mu);
        pthread_join(t, NULL);
    }
    pthread_cond_destroy(&d.cv);
    pthread_mutex_destroy(&d.mu);
    return rc == MPI_SUCCESS ? MB_OK
                             : mb_error_set(err, MB_EMPI, "MPI could not start (MPI_Init failed)");
}

int mb_comm_mpi_create(int *argc, char ***argv, const char *program, mb_communicator **c,
                       mb_error *err)
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
    const char *name = argc && *argc > 0 && argv && *argv && (*argv)[0] ? (*argv)[0] : "mbkit";
    const char *slash = strrchr(name, '/');
    snprintf(s->prog, sizeof s->prog, "%s", slash ? slash + 1 : name);
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    /* funneled: with ranks x threads, and with the network's thread pool, MPI is called only
     * from the thread that started it; a library that provides less is refused */
    int provided = 0;
    if (!init) {
        int rc = init_bounded(argc, argv, s->prog, &provided, err);
        if (rc != MB_OK) {
            free(s);
            free(h);
            return rc;
        }
        s->own_init = 1;
    } else {
        MPI_Query_thread(&provided);
    }
    if (provided < MPI_THREAD_FUNNELED) {
        if (s->own_init)
            MPI_Finalize();
        free(s);
        free(h);
        return mb_error_set(err, MB_EMPI, "MPI provides thread level %d, below "
                            "MPI_THREAD_FUNNELED (%d) that mbkit's learner threads need",
                            provided, MPI_THREAD_FUNNELED);
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
    /* the first exchange, whatever the program: are the ranks all running this one? (agree.c)
     * When not, the world is handed back all the same: rank 0 says so, then frees it, and the
     * free's MPI_Finalize holds every rank until all get there, so that none leaves (and
     * mpirun ends the job) before rank 0's line is out */
    *c = h;
    return mb_comm_agree_program(h, program, err);
}
