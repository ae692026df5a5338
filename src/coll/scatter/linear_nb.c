/* linear_nb.c — scatter: the root posts a non-blocking send of every block
 * at once, copies its own and waits for all (Open MPI 4.1 coll/base
 * linear_nb).  Cost: γ(P)(α + mβ) + mδ, the paper's non-blocking linear
 * fan-out (model-based-selection.md, Sect. IV-B): on shared memory the
 * receivers copy their blocks in parallel, where basic_linear's blocking
 * sends make them take turns — Open MPI's default above 16 KiB at P >= 8
 * here, 2-3 x faster than basic_linear (docs/performance.md, issue 12). */
#include <stdlib.h>
#include "../coll.h"
#include "../bcast/model_bgs.h"

static int send_all_blocks(const papc_call *c, MPI_Request *reqs, int *n) {
    *n = 0;
    for (int i = 0; i < c->size; i++) {
        if (i == c->root) continue;
        const char *block = papc_elem(c->sendbuf, c->sendtype,
                                      (MPI_Aint)i * c->sendcount);
        int rc = papc_isend(c, block, c->sendcount, c->sendtype, i, 0,
                            &reqs[*n]);
        if (rc != MPI_SUCCESS) return rc;
        (*n)++;
    }
    return MPI_SUCCESS;
}

int papc_scatter_linear_nb(const papc_call *c) {
    if (c->rank != c->root)
        return papc_recv(c, c->recvbuf, c->recvcount, c->recvtype, c->root, 0);
    MPI_Request *reqs = malloc((size_t)c->size * sizeof *reqs);
    if (!reqs) return MPI_ERR_NO_MEM;
    int n, rc = send_all_blocks(c, reqs, &n);
    if (rc == MPI_SUCCESS && c->recvbuf != MPI_IN_PLACE)
        rc = papc_copy(papc_elem(c->sendbuf, c->sendtype,
                                 (MPI_Aint)c->root * c->sendcount),
                       c->sendcount, c->sendtype, c->recvbuf, c->recvcount,
                       c->recvtype);
    if (rc == MPI_SUCCESS)
        rc = papc_waitall(n, reqs);
    else
        papc_cleanup_requests(n, reqs);
    free(reqs);
    return rc;
}

/* Model (issue 12), block m bytes, root 0:
 *   T = γ(P)(α + mβ) + mδ
 * The P - 1 sends are posted together and complete as one non-blocking
 * linear fan-out of P - 1 blocks of m bytes (papc_bgs_fan); the root's
 * copy overlaps nothing it must wait for, so it adds.  m = 0 costs
 * nothing; P = 1 is the copy alone.
 * Traffic: P - 1 messages, (P-1) m bytes. */
papc_terms papc_scatter_linear_nb_model(const papc_model_in *in) {
    if (in->m <= 0) return papc_terms_zero();
    papc_terms t = papc_bgs_fan(in, in->P - 1, (in->P - 1) * in->m);
    t = papc_terms_add(t, papc_bgs_copy(in->m));
    return papc_terms_traffic(t, in->P - 1, (in->P - 1) * in->m);
}
