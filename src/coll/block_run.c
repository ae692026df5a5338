/*
 * block_run.c — runs of consecutive blocks as single messages, for the
 * binomial gather and scatter (see block_run.h).  Kept in one place so the
 * two mirror algorithms cut runs, handle the int overflow of a long run
 * and split a run wrapping at rank 0 the same way.
 */
#include <limits.h>
#include "block_run.h"

/* A run as one (buf, count, type) triple for MPI: type is t itself unless
 * the element count overflows an int, then a block type to release with
 * run_done. */
typedef struct block_run {
    char *buf;
    int count;
    MPI_Datatype type;
    int derived;
} block_run;

static int run_make(block_run *r, const void *buf, int count, MPI_Datatype t,
                    int first, int n) {
    r->buf = (char *)buf + first * ((MPI_Aint)count * papc_extent(t));
    r->derived = 0;
    if ((long long)n * count <= INT_MAX) {
        r->count = n * count;
        r->type = t;
        return MPI_SUCCESS;
    }
    PAPC_CHECK(MPI_Type_contiguous(count, t, &r->type));
    PAPC_CHECK(MPI_Type_commit(&r->type));
    r->count = n;
    r->derived = 1;
    return MPI_SUCCESS;
}

/* Releases the run's own type (pending requests keep it alive). */
static void run_done(block_run *r) {
    if (r->derived) MPI_Type_free(&r->type);
    r->derived = 0;
}

int papc_run_irecv(const papc_call *c, void *buf, int count, MPI_Datatype t,
                   int first, int n, int src, int sub, MPI_Request *req) {
    block_run r;
    int rc = run_make(&r, buf, count, t, first, n);
    if (rc == MPI_SUCCESS)
        rc = papc_irecv(c, r.buf, r.count, r.type, src, sub, req);
    run_done(&r);
    return rc;
}

int papc_run_send(const papc_call *c, const void *buf, int count,
                  MPI_Datatype t, int first, int n, int dst, int sub) {
    block_run r;
    int rc = run_make(&r, buf, count, t, first, n);
    if (rc == MPI_SUCCESS) rc = papc_send(c, r.buf, r.count, r.type, dst, sub);
    run_done(&r);
    return rc;
}

int papc_wrap_split(const papc_call *c, int v, int n) {
    int w = c->size - c->root; /* vrank of real rank 0 */
    return c->root != 0 && v < w && w < v + n ? w - v : 0;
}
