/*
 * block_run.h — moving a run of consecutive blocks of a gather/scatter
 * buffer as one message, and where an in-order binomial subtree's run
 * wraps around real rank 0.  Shared by the binomial gather and the
 * binomial scatter, which move the same runs in opposite directions.
 *
 * A run is n consecutive blocks of count elements of t, starting at block
 * first of buf.  It goes out as (count * n, t) when that element count
 * fits an int, otherwise as n elements of a contiguous block type made and
 * released inside the call (a pending request keeps it alive).
 */
#ifndef PAPC_BLOCK_RUN_H
#define PAPC_BLOCK_RUN_H
#include "../core/core.h"

/* Posts the receive of blocks [first, first + n) of buf from src. */
int papc_run_irecv(const papc_call *c, void *buf, int count, MPI_Datatype t,
                   int first, int n, int src, int sub, MPI_Request *req);
/* Sends blocks [first, first + n) of buf to dst (blocking). */
int papc_run_send(const papc_call *c, const void *buf, int count,
                  MPI_Datatype t, int first, int n, int dst, int sub);

/* For the subtree [v, v+n) of vranks (vrank = rank - root mod P) under a
 * child of the root: how many of its blocks come before real rank 0 when
 * its run of real ranks wraps there (it then travels as two messages,
 * sub-tags 0 and 1, so each lands contiguous); 0 when it does not wrap. */
int papc_wrap_split(const papc_call *c, int v, int n);

#endif /* PAPC_BLOCK_RUN_H */
