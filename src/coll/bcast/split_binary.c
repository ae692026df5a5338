/* split_binary.c — split-binary broadcast (Open MPI coll/base split_bintree;
 * model-based-selection.md §III-A4).  The message is cut into two halves;
 * the root pipelines the first half (segmented) down its left subtree (the
 * binary subtree of vrank 1) and the second half down its right subtree
 * (vrank 2), both at once.  Then every node swaps halves with its partner in
 * the other subtree (papc_split_binary_pair); nodes without a partner get
 * their missing half straight from the root.
 * Cost (eq. 9): 2 (floor(log2 P) + n_s/2 - 1)(alpha + m/n_s beta)
 *               + (alpha + m/2 beta).
 * Departures: Open MPI uses blocking sends in the tree phase; here the tree
 * phase is the generic engine (non-blocking, next receive pre-posted) and
 * the root feeds both subtrees with non-blocking sends.  Open MPI falls back
 * to another algorithm when a half would be empty (count 1) or P is tiny;
 * here empty halves are simply never sent, and P = 2 works as the pairing
 * says (vrank 1 is unpaired and gets the second half from the root). */
#include <stdlib.h>
#include "../coll.h"
#include "../tree_engine.h"

#define TREE_SUB 0 /* tag of the tree phase */
#define SWAP_SUB 1 /* tag of the exchange phase */

/* One half of the message. */
typedef struct half {
    char *buf;
    int len; /* elements */
} half;

static half message_half(const papc_call *c, int h) {
    int start, len;
    papc_block_range(c->recvcount, 2, h, &start, &len);
    half r = {papc_elem(c->recvbuf, c->recvtype, start), len};
    return r;
}

/* Root, tree phase: segment i of half h goes to child h (vrank h + 1), the
 * two children served together, one step per segment. */
static int root_feed_subtrees(const papc_call *c, const papc_tree_place *p) {
    MPI_Datatype t = c->recvtype;
    MPI_Aint ext = papc_extent(t);
    half hv[2] = {message_half(c, 0), message_half(c, 1)};
    int segcount[2], nseg[2], steps = 0;
    for (int h = 0; h < p->nchildren && h < 2; h++) {
        segcount[h] = papc_segment_count(c->segsize, t, hv[h].len);
        nseg[h] = (hv[h].len + segcount[h] - 1) / segcount[h];
        if (nseg[h] > steps) steps = nseg[h];
    }
    MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    for (int i = 0; i < steps; i++) {
        int n = 0, rc = MPI_SUCCESS;
        for (int h = 0; h < p->nchildren && h < 2 && rc == MPI_SUCCESS; h++) {
            if (i >= nseg[h]) continue;
            int first = i * segcount[h], len = hv[h].len - first;
            if (len > segcount[h]) len = segcount[h];
            rc = papc_isend(c, hv[h].buf + (MPI_Aint)first * ext, len, t,
                            p->children[h], TREE_SUB, &req[n++]);
        }
        if (rc == MPI_SUCCESS) rc = papc_waitall(n, req);
        if (rc != MPI_SUCCESS) {
            papc_cleanup_requests(2, req);
            return rc;
        }
    }
    return MPI_SUCCESS;
}

/* Root, exchange phase: each unpaired node gets the half it lacks. */
static int root_serve_unpaired(const papc_call *c) {
    int P = c->size, rc = MPI_SUCCESS;
    int *list = malloc((size_t)P * sizeof *list);
    MPI_Request *req = malloc((size_t)P * sizeof *req);
    if (!list || !req) {
        free(list);
        free(req);
        return papc_error(MPI_ERR_NO_MEM, "split_binary: %d requests", P);
    }
    int nun = papc_split_binary_unpaired(P, list), n = 0;
    for (int i = 0; i < nun && rc == MPI_SUCCESS; i++) {
        int h, partner;
        papc_split_binary_pair(list[i], P, &h, &partner);
        half missing = message_half(c, 1 - h);
        if (missing.len == 0) continue;
        rc = papc_isend(c, missing.buf, missing.len, c->recvtype,
                        papc_real_rank(list[i], c->root, P), SWAP_SUB,
                        &req[n++]);
    }
    if (rc == MPI_SUCCESS) rc = papc_waitall(n, req);
    else papc_cleanup_requests(n, req);
    free(list);
    free(req);
    return rc;
}

/* Non-root, exchange phase: swap halves with the partner, or take the
 * missing half from the root.  Empty halves travel nowhere (both sides know
 * the lengths). */
static int swap_halves(const papc_call *c, int vrank) {
    int h, partner;
    papc_split_binary_pair(vrank, c->size, &h, &partner);
    half mine = message_half(c, h), other = message_half(c, 1 - h);
    MPI_Datatype t = c->recvtype;
    if (partner < 0)
        return other.len > 0 ? papc_recv(c, other.buf, other.len, t, c->root,
                                         SWAP_SUB)
                             : MPI_SUCCESS;
    int peer = papc_real_rank(partner, c->root, c->size);
    if (mine.len > 0 && other.len > 0)
        return papc_sendrecv(c, mine.buf, mine.len, t, peer, other.buf,
                             other.len, t, peer, SWAP_SUB);
    if (mine.len > 0)
        return papc_send(c, mine.buf, mine.len, t, peer, SWAP_SUB);
    if (other.len > 0)
        return papc_recv(c, other.buf, other.len, t, peer, SWAP_SUB);
    return MPI_SUCCESS;
}

int papc_bcast_split_binary(const papc_call *c) {
    papc_tree_place p;
    int rc = papc_tree_place_init(&p, PAPC_TREE_KARY, 2, c->rank, c->root,
                                  c->size);
    if (rc != MPI_SUCCESS) return rc;
    int vrank = papc_vrank(c->rank, c->root, c->size);
    if (vrank == 0) {
        rc = root_feed_subtrees(c, &p);
        if (rc == MPI_SUCCESS) rc = root_serve_unpaired(c);
    } else {
        int h, partner;
        papc_split_binary_pair(vrank, c->size, &h, &partner);
        half mine = message_half(c, h);
        rc = papc_tree_bcast_place(c, &p, mine.buf, mine.len, c->recvtype,
                                   c->segsize, TREE_SUB);
        if (rc == MPI_SUCCESS) rc = swap_halves(c, vrank);
    }
    papc_tree_place_free(&p);
    return rc;
}
