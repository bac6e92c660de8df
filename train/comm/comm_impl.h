/* comm_impl.h — private to train/comm/comm*.c: the communicator's table of operations, which the
 * threads (comm.c) and Open MPI (comm_mpi.c) implementations fill. */
#ifndef MB_COMM_IMPL_H
#define MB_COMM_IMPL_H

#include "mb_comm.h"

typedef struct comm_ops {
    const char *kind;
    int (*allreduce_sum)(mb_communicator *c, float *buf, size_t n);
    int (*reduce_sum)(mb_communicator *c, const float *send, float *recv, size_t n, int root);
    int (*bcast)(mb_communicator *c, float *buf, size_t n, int root);
    int (*bcast_idle)(mb_communicator *c, float *buf, size_t n, int root);
    int (*barrier)(mb_communicator *c);
    int (*ireduce_sum)(mb_communicator *c, mb_comm_req *req);
    int (*wait)(mb_communicator *c, mb_comm_req *req);
    int (*send)(mb_communicator *c, const float *buf, size_t n, int dest, int tag);
    int (*recv)(mb_communicator *c, float *buf, size_t n, int src, int tag, int *from);
    void *(*shared)(mb_communicator *c, size_t bytes);
    void (*abort)(mb_communicator *c, int code, const char *why);
    int (*aborted_by)(const mb_communicator *c);      /* -1 while no member aborted */
    void (*set_timeout)(mb_communicator *c, double seconds);
    void (*say)(mb_communicator *c, const char *why);  /* one line on stderr (MPI), or nothing */
    int (*timed_out)(const mb_communicator *c);        /* NULL: the handle's own flag */
    void (*free)(mb_communicator *c);
} comm_ops;

struct mb_communicator {
    const comm_ops *ops;
    int rank, size;
    void *impl;            /* the implementation's state */
    double timeout_s;      /* a wait ends after this many seconds (0: never) */
    int timed_out;         /* a wait of this handle ran past timeout_s */
};

#endif /* MB_COMM_IMPL_H */
