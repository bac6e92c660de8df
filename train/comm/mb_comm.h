/* mb_comm.h — train/comm/: the communicator that parallel learners exchange through, over threads
 * in one process (comm.c) or Open MPI ranks (comm_mpi.c).
 */
#ifndef MB_COMM_H
#define MB_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "../../model/mb_model.h"

/* ---- communicators (train/comm/comm*.c): what parallel learners exchange ------------------------ */

/* A communicator joins `size` learners (ranks 0 .. size-1) that exchange flat float arrays: the
 * collectives every parallel algorithm needs (allreduce, reduce, broadcast, barrier) and
 * point-to-point messages to and from a server rank (DOWNPOUR, asynchronous EASGD). Two
 * implementations behind one interface: threads in one process (mb_comm_threads_create, one
 * handle per thread) and Open MPI ranks (mb_comm_mpi_create, one handle per process). Every
 * member must call a collective, in the same order, with the same n and root. A communicator is
 * a standalone object: whatever holds the run's context keeps a pointer to one. Sums over ranks
 * are in rank order for threads (deterministic); MPI's order is the library's. */
typedef struct mb_communicator mb_communicator;

enum { MB_COMM_ANY = -1 }; /* mb_comm_recv from any source */

int mb_comm_rank(const mb_communicator *c);
int mb_comm_size(const mb_communicator *c);
const char *mb_comm_kind(const mb_communicator *c); /* "threads" or "mpi" */

/* buf (n floats) <- the sum (or mean) over ranks of every rank's buf. */
int mb_comm_allreduce_sum(mb_communicator *c, float *buf, size_t n);
int mb_comm_allreduce_mean(mb_communicator *c, float *buf, size_t n);
/* On root, recv (n floats) <- the sum over ranks of send; recv is not used elsewhere (NULL ok).
 * send and recv may not overlap. */
int mb_comm_reduce_sum(mb_communicator *c, const float *send, float *recv, size_t n, int root);
/* Every rank's buf <- root's buf. */
int mb_comm_bcast(mb_communicator *c, float *buf, size_t n, int root);
/* The same for a broadcast the others may wait long for (rank 0 evaluating the model): over MPI
 * a rank that has waited more than a short spin sleeps between polls instead of polling
 * without pause (Open MPI's blocking collectives do), so that its core is free for the root's
 * threads. Over threads the waits sleep anyway: mb_comm_bcast. */
int mb_comm_bcast_idle(mb_communicator *c, float *buf, size_t n, int root);
int mb_comm_barrier(mb_communicator *c);

/* A reduction started now and finished by mb_comm_wait, so that a rank can compute while it
 * travels (Sync EASGD's overlap, You et al.). send must not change until the wait. Over threads
 * the whole reduction happens in the wait. */
typedef struct mb_comm_req {
    const float *send;
    float *recv;
    size_t n;
    int root;
    void *impl;            /* MPI_Request, owned until the wait */
} mb_comm_req;
int mb_comm_ireduce_sum(mb_communicator *c, const float *send, float *recv, size_t n, int root,
                        mb_comm_req *req);
int mb_comm_wait(mb_communicator *c, mb_comm_req *req);

/* Point to point: n floats to `dest` with a tag >= 0; recv takes the first message with that
 * tag from `src` (or MB_COMM_ANY: first come, first served), whose length must be n; *from gets
 * its source (NULL allowed). Sends do not wait for the receiver (buffered). */
int mb_comm_send(mb_communicator *c, const float *buf, size_t n, int dest, int tag);
int mb_comm_recv(mb_communicator *c, float *buf, size_t n, int src, int tag, int *from);

/* Memory all ranks see (threads: one zeroed block of `bytes` per communicator, the first call's
 * size; every rank gets the same pointer). NULL over MPI, where ranks share no memory (Hogwild
 * needs threads). */
void *mb_comm_shared(mb_communicator *c, size_t bytes);

/* `size` handles, comms[0 .. size-1], one per thread, ranks in that order. Each is freed with
 * mb_comm_free (the group goes with the last). */
int mb_comm_threads_create(int size, mb_communicator **comms, mb_error *err);

/* Ranks x threads: `threads` handles for the threads of this process over the MPI `world`
 * (kept by the caller, freed after them); global rank = world rank x threads + thread. Only
 * the collectives: send, recv and shared memory are MB_ENOTSUP / NULL. Thread 0 (the one that
 * makes the MPI calls) must be the thread that initialised MPI. */
int mb_comm_hybrid_create(mb_communicator *world, int threads, mb_communicator **comms,
                          mb_error *err);

/* 1 when this process was started by mpirun (Open MPI's environment), so that a plain run never
 * starts MPI. */
int mb_comm_mpi_launched(void);
/* The world of MPI ranks: initialises MPI when it is not yet (MPI_Init(argc, argv)); the free
 * finalises it then. MB_EMPI when MPI cannot start (*c NULL). `program` names what this rank
 * runs ("mbtrain", "mbprobe comm"): with more than one rank, the first exchange checks that
 * every rank runs the same (mb_comm_agree_program). When not: MB_EINVAL on every rank, rank 0's
 * err naming the programs, the others' err empty, and *c the world all the same: rank 0 says
 * err, then every rank frees *c, whose MPI_Finalize holds each rank until all get there (so
 * that none leaves, and mpirun ends the job, before rank 0's line is out). */
int mb_comm_mpi_create(int *argc, char ***argv, const char *program, mb_communicator **c,
                       mb_error *err);
/* Ends the job for a member that cannot go on, so that the others never wait for it. Over MPI:
 * `why` (when not NULL) goes to stderr as one line, "PROGRAM: why", then MPI_Abort ends every
 * rank. Over threads: every wait of every member (collectives, receives) returns MB_EMPI from
 * now on, at once for those already waiting; mb_comm_aborted_by names the member that aborted
 * first, whose caller reports why. Ranks x threads: the threads of this process are woken, and
 * the job ends by MPI_Abort from the thread that makes the MPI calls (a thread that is not it
 * prints `why` there and then). */
void mb_comm_abort_why(mb_communicator *c, int code, const char *why);
void mb_comm_abort(mb_communicator *c, int code); /* mb_comm_abort_why without a line */
/* The member that called mb_comm_abort first, or -1 while none has (threads; -1 over MPI, where
 * an abort ends the process). */
int mb_comm_aborted_by(const mb_communicator *c);
/* Every wait from now on (a collective, a receive, a barrier) ends after `seconds` (0: never).
 * Over threads the waiting member then aborts the group (mb_comm_timed_out says so, the wait
 * returns MB_EMPI); over MPI, where a blocking call cannot be left, a watchdog thread prints one
 * line naming the rank and the limit and ends this process (exit status 1), and mpirun ends
 * the others. Call it on every member (threads) or once per process (MPI). */
void mb_comm_set_timeout(mb_communicator *c, double seconds);
/* 1 when a wait of this member ran past the timeout. */
int mb_comm_timed_out(const mb_communicator *c);

/* ---- the ranks agree on their settings (train/comm/agree.c) ----------------------------------- */

/* One setting every rank must share, as 64 bits. */
enum { MB_COMM_SET_COUNT, MB_COMM_SET_DOUBLE, MB_COMM_SET_HASH };
typedef struct mb_comm_setting {
    const char *flag;  /* as the message names it ("--batch") */
    uint64_t v;        /* a count, a double's bits (mb_comm_dbits; NAN: none given), a hash */
    int kind;          /* MB_COMM_SET_COUNT, _DOUBLE or _HASH */
    int dflt;          /* this rank keeps the flag's default */
    const char *text;  /* the value as the message quotes it (a name, a path), NULL: from v */
} mb_comm_setting;
uint64_t mb_comm_dbits(double x);
uint64_t mb_comm_hash(const char *s); /* FNV-1a; NULL hashes as "" */
/* Before any other collective: every rank compares its n settings with rank 0's. A difference:
 * MB_EINVAL on every rank, *disagree = 1, rank 0's err "ranks disagree on FLAG: rank 0 has
 * VALUE, ..." naming the first, the others' err empty (rank 0 speaks for the job). Else rank
 * 0's set-up status rc0 (sent along) is every rank's return, its message rank 0's only.
 * *together = 1 when every rank returns the same failure (none need abort the job). */
int mb_comm_agree(mb_communicator *c, const mb_comm_setting *s, int n, int rc0, int *together,
                  int *disagree, mb_error *err);

/* At most this many bytes of a program's name are compared, its NUL included. */
#define MB_COMM_PROGRAM_MAX 32
/* The first exchange of the ranks (mb_comm_mpi_create makes it; any collective before it would
 * pair with another program's): every rank runs `program` ("mbtrain", "mbprobe comm"). OK with
 * one rank. A difference: MB_EINVAL on every rank, rank 0's err "ranks disagree on the program:
 * rank 0 runs mbtrain, rank 1 runs mbprobe comm (...)", the others' err empty. */
int mb_comm_agree_program(mb_communicator *c, const char *program, mb_error *err);

void mb_comm_free(mb_communicator *c);

#endif /* MB_COMM_H */
