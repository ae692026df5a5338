/*
 * linear_sync.h — the two sides of gather linear_sync (linear_sync.c),
 * shared with sorted_linear_sync.c: SLS is linear_sync whose root asks the
 * ranks in another order, and BSLS sends the same two parts over the
 * background channel.  The split rule (a byte offset decided by the root,
 * carried by the go-ahead; packed parts when it falls inside a sendtype
 * element) is described in linear_sync.c.
 */
#ifndef PAPC_LINEAR_SYNC_H
#define PAPC_LINEAR_SYNC_H
#include "../../core/core.h"

/* The split offset meaning "the whole block in one part". */
#define PAPC_LS_ONE_PART INT64_MAX

/* A non-root's block cut at a byte offset: one or two parts, each
 * (buf, count, type), typed straight from sendbuf or MPI_PACKED bytes of
 * a packed copy (packed, freed by papc_linear_sync_cut_free). */
typedef struct papc_ls_parts {
    int n;                  /* 1 or 2 */
    const void *buf[2];
    int count[2];
    MPI_Datatype type[2];
    char *packed;
} papc_ls_parts;

/* Cuts this rank's block (c->sendbuf, sendcount, sendtype) at split bytes:
 * one part when split >= the block's bytes. */
int papc_linear_sync_cut(const papc_call *c, int64_t split,
                         papc_ls_parts *p);
void papc_linear_sync_cut_free(papc_ls_parts *p);

/* A non-root: waits for the root's go-ahead, sends its part(s). */
int papc_linear_sync_send(const papc_call *c);
/* The root: asks the ranks in order (order[size], the root may be in it;
 * NULL: rank order), one at a time, then copies its own block and waits
 * for the second parts. */
int papc_linear_sync_root(const papc_call *c, const int *order);

#endif /* PAPC_LINEAR_SYNC_H */
