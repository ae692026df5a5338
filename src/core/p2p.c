/* p2p.c — point-to-point on a call's private communicator and tags. */
#include <stdlib.h>

#include "core.h"

int papc_send(const papc_call *c, const void *buf, int count, MPI_Datatype t,
              int dst, int sub) {
    PAPC_CHECK(MPI_Send(buf, count, t, dst, c->tag + sub, c->comm));
    return MPI_SUCCESS;
}

int papc_recv(const papc_call *c, void *buf, int count, MPI_Datatype t,
              int src, int sub) {
    PAPC_CHECK(MPI_Recv(buf, count, t, src, c->tag + sub, c->comm,
                        MPI_STATUS_IGNORE));
    return MPI_SUCCESS;
}

int papc_isend(const papc_call *c, const void *buf, int count,
               MPI_Datatype t, int dst, int sub, MPI_Request *req) {
    PAPC_CHECK(MPI_Isend(buf, count, t, dst, c->tag + sub, c->comm, req));
    return MPI_SUCCESS;
}

int papc_irecv(const papc_call *c, void *buf, int count, MPI_Datatype t,
               int src, int sub, MPI_Request *req) {
    PAPC_CHECK(MPI_Irecv(buf, count, t, src, c->tag + sub, c->comm, req));
    return MPI_SUCCESS;
}

/* Both sides posted before waiting, as Open MPI's coll/base sendrecv does:
 * under oversubscription this measured faster than MPI_Sendrecv, whose send
 * blocks before the wait for the receive. */
int papc_sendrecv(const papc_call *c, const void *sbuf, int scount,
                  MPI_Datatype stype, int dst, void *rbuf, int rcount,
                  MPI_Datatype rtype, int src, int sub) {
    MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    int rc = MPI_Irecv(rbuf, rcount, rtype, src, c->tag + sub, c->comm,
                       &reqs[0]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Isend(sbuf, scount, stype, dst, c->tag + sub, c->comm,
                       &reqs[1]);
    if (rc != MPI_SUCCESS) {
        papc_cleanup_requests(2, reqs);
        return papc_mpi_error(rc, "papc_sendrecv");
    }
    return papc_waitall(2, reqs);
}

/* MPI_ERR_IN_STATUS says only that some request failed; the caller (and
 * the program, through papcoll's error) needs the failed request's own
 * class, e.g. MPI_ERR_TRUNCATE for a receive buffer that is too small. */
static int first_status_error(int n, const MPI_Status *st) {
    for (int i = 0; i < n; i++)
        if (st[i].MPI_ERROR != MPI_SUCCESS &&
            st[i].MPI_ERROR != MPI_ERR_PENDING)
            return st[i].MPI_ERROR;
    return MPI_ERR_IN_STATUS;
}

int papc_waitall(int n, MPI_Request *reqs) {
    if (n <= 0) return MPI_SUCCESS;
    MPI_Status small[16];
    MPI_Status *st = n <= 16 ? small : malloc((size_t)n * sizeof *st);
    int rc;
    if (st) {
        rc = MPI_Waitall(n, reqs, st);
        if (rc == MPI_ERR_IN_STATUS) rc = first_status_error(n, st);
        if (st != small) free(st);
    } else {
        /* MPICH annotates MPI_Waitall's statuses as an n-element array;
         * GCC then flags MPI_STATUSES_IGNORE (a sentinel) as an overflow. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpragmas"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
        rc = MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
#pragma GCC diagnostic pop
    }
    if (rc != MPI_SUCCESS) {
        papc_cleanup_requests(n, reqs);
        return papc_mpi_error(rc, "MPI_Waitall");
    }
    return MPI_SUCCESS;
}

int papc_testall(int n, MPI_Request *reqs, int *done) {
    *done = 1;
    if (n <= 0) return MPI_SUCCESS;
    MPI_Status small[16];
    MPI_Status *st = n <= 16 ? small : malloc((size_t)n * sizeof *st);
    if (!st) return papc_error(MPI_ERR_NO_MEM, "papc_testall");
    int rc = MPI_Testall(n, reqs, done, st);
    if (rc == MPI_ERR_IN_STATUS) rc = first_status_error(n, st);
    if (st != small) free(st);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : papc_mpi_error(rc, "MPI_Testall");
}

void papc_cleanup_requests(int n, MPI_Request *reqs) {
    for (int i = 0; i < n; i++) {
        if (reqs[i] == MPI_REQUEST_NULL) continue;
        MPI_Cancel(&reqs[i]);
        MPI_Request_free(&reqs[i]);
    }
}
