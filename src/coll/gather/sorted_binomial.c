/*
 * sorted_binomial.c — gather Sorted BiNomial (SBN) and Background Sorted
 * BiNomial (BSBN) trees (pap-scatter-gather.md §4.2, Figs. 11 and 12).
 *
 * SBN.  A binomial gather whose shape puts the ranks predicted to arrive
 * last where their lateness costs least.  The tree is the in-order
 * binomial tree over "nranks" (topo/sorted_tree.h), root at nrank 0; a
 * node receives from all its children at once and then sends its subtree
 * (its own block and the children's, in nrank order) to its parent in one
 * message.  The root then completes at max over v of (arrival(v) +
 * tail(v)), tail(v) = the Hockney cost of the sends on v's path to the
 * root; so the latest rank gets the nrank with the smallest tail, the next
 * latest the next smallest, ... (sorted_tree.h): the late ranks send
 * small subtrees straight to the root, the early ranks do the
 * aggregation.  Children must know their parent before they send, so
 * every rank asks for the AGREED order (PAPC_ORDER_AGREED, decided by the
 * root) and the agreed alpha, beta; the block size is the same
 * everywhere, so all build the same tree.
 *
 * Data: a leaf sends its block typed, straight from sendbuf; a relay packs
 * its block and receives its children's subtrees (MPI_PACKED) into one
 * buffer in nrank order and sends it on as MPI_PACKED; the root receives
 * each child's subtree typed, through an hindexed datatype that drops
 * every block at its rank's place in recvbuf (the paper's final
 * "shuffle", without a copy).  Relayed bytes assume a homogeneous MPI
 * (as irregular_tree.c); a relay checks its own block packs to exactly its
 * size, MPI_ERR_INTERN otherwise.
 *
 * BSBN.  With the background channel (a.bg), children send their subtree
 * with papc_bg_send (kind PAPC_BG_BSBN_GATHER) to the parent's monitor
 * thread, which receives it even while the parent still computes; the
 * parent's call takes the children's messages (any order, as they came)
 * and sends on.  A late inner node or root then no longer holds its
 * children back.  Without the background channel BSBN runs SBN.
 *
 * Cost (Hockney, block m bytes, balanced arrivals): as the binomial
 * gather, ceil(log2 P) alpha + (P-1) m beta at the root; O(P log P) to
 * build the tree on every rank.
 *
 * Departures from the paper (its pseudocode is wrong in places):
 * (1) Fig. 11/12 `k := 2⌈log2 P⌉` must be 2^⌈log2 P⌉.
 * (2) `swap(pt0, ptroot)` then `sort(pt) descending` moves the root away
 *     from position 0; the root stays at nrank 0, the others are sorted.
 * (3) The loop (i from k/2 down; send to nrank - i at the first i with
 *     nrank & i, i.e. the highest set bit; receive otherwise) receives
 *     from nrank + i even when nrank + i >= P: for every P that is not a
 *     power of two some process waits forever (P = 3: nrank 1 waits for
 *     nrank 3).  Here a node receives exactly from its existing children.
 * (4) The received range (d_{s/2} .. d_{s-1}) with s = 1 at the first
 *     receive is d_0 .. d_0 -- it overwrites the node's own block; s must
 *     double before the receive (the first child's block belongs at d_1).
 * (5) Its receives are blocking and in a fixed order, so one late child
 *     holds up the data of all its siblings behind it; here all of a
 *     node's receives are posted at once (and BSBN takes messages in the
 *     order they came).
 * (6) "Sort descending" gives the i-th latest rank nrank i: with the
 *     paper's tree (parent = nrank - highest bit) that makes the LATEST
 *     rank (nrank 1) the root of the biggest subtree, half of all blocks,
 *     which it must forward after it arrives.  The idea behind it -- late
 *     ranks where little depends on them -- is kept, made exact for any P
 *     and any alpha/beta by the tail ranking above (for a power of two and
 *     bandwidth-bound blocks it is nrank i for the i-th latest in the
 *     in-order tree).
 * (7) The bit-reversal shuffle at the root (lines 19-20) is replaced by
 *     receiving every subtree straight into place.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "../coll.h"
#include "../bcast/model_bgs.h"
#include "arrival/arrival.h"
#include "topo/sorted_tree.h"

#define SUB_DATA 0

/* The tree as this rank sees it. */
typedef struct gtree {
    int *rank_of, *nrank_of;
    int v, nkids, kids[PAPC_STREE_MAX_CHILDREN];
    size_t bm; /* bytes of a block, the same on every rank */
} gtree;

static size_t block_bytes(const papc_call *c) {
    return c->rank == c->root
               ? (size_t)c->recvcount * papc_type_size(c->recvtype)
               : (size_t)c->sendcount * papc_type_size(c->sendtype);
}

static void gtree_free(gtree *g) {
    free(g->rank_of);
    free(g->nrank_of);
}

static int gtree_build(const papc_call *c, const papc_arrival *a, gtree *g) {
    int P = c->size;
    g->bm = block_bytes(c);
    g->rank_of = malloc((size_t)P * sizeof *g->rank_of);
    g->nrank_of = malloc((size_t)P * sizeof *g->nrank_of);
    if (!g->rank_of || !g->nrank_of)
        return papc_error(MPI_ERR_NO_MEM, "gather tree of %d ranks", P);
    if ((double)(P - 1) * (double)g->bm > INT_MAX)
        return papc_error(MPI_ERR_COUNT, "a sorted_binomial gather message "
                          "would exceed INT_MAX bytes");
    if (papc_stree_gather_map(P, a->order, c->root, a->alpha,
                              a->beta * (double)g->bm, g->rank_of) != 0 ||
        papc_stree_invert(P, g->rank_of, g->nrank_of) != 0)
        return papc_error(MPI_ERR_INTERN, "arrival order is not a "
                          "permutation");
    g->v = g->nrank_of[c->rank];
    g->nkids = papc_stree_children(g->v, P, g->kids);
    return MPI_SUCCESS;
}

/* At the root: child's subtree lands at its ranks' places in recvbuf. */
static int root_child_type(const papc_call *c, const gtree *g, int child,
                           MPI_Datatype *out) {
    int span = papc_stree_span(child, c->size);
    MPI_Aint *disp = malloc((size_t)span * sizeof *disp);
    if (!disp) return papc_error(MPI_ERR_NO_MEM, "%d displacements", span);
    MPI_Aint ext = papc_extent(c->recvtype);
    for (int i = 0; i < span; i++)
        disp[i] = (MPI_Aint)g->rank_of[child + i] * c->recvcount * ext;
    int e = MPI_Type_create_hindexed_block(span, c->recvcount, disp,
                                           c->recvtype, out);
    if (e == MPI_SUCCESS) e = MPI_Type_commit(out);
    free(disp);
    if (e != MPI_SUCCESS)
        return papc_mpi_error(e, "MPI_Type_create_hindexed_block");
    return MPI_SUCCESS;
}

static int copy_own_at_root(const papc_call *c) {
    if (c->sendbuf == MPI_IN_PLACE) return MPI_SUCCESS;
    return papc_copy(c->sendbuf, c->sendcount, c->sendtype,
                     papc_elem(c->recvbuf, c->recvtype,
                               (MPI_Aint)c->root * c->recvcount),
                     c->recvcount, c->recvtype);
}

/* A relay's subtree buffer: its own block packed at offset 0; child k's
 * subtree at (k - v) * bm. */
static int pack_own(const papc_call *c, const gtree *g, char *buf,
                    int total) {
    int pos = 0;
    PAPC_CHECK(MPI_Pack(c->sendbuf, c->sendcount, c->sendtype, buf, total,
                        &pos, c->comm));
    if ((size_t)pos != g->bm)
        return papc_error(MPI_ERR_INTERN, "packed size of a block differs "
                          "from its type size (heterogeneous MPI?)");
    return MPI_SUCCESS;
}

static int child_bytes(const papc_call *c, const gtree *g, int child) {
    return (int)((size_t)papc_stree_span(child, c->size) * g->bm);
}

/* ---- SBN ---------------------------------------------------------------- */

static int sbn_root(const papc_call *c, const gtree *g) {
    MPI_Request reqs[PAPC_STREE_MAX_CHILDREN];
    int nreq = 0, rc = MPI_SUCCESS;
    for (int i = 0; i < g->nkids && rc == MPI_SUCCESS; i++) {
        MPI_Datatype t;
        rc = root_child_type(c, g, g->kids[i], &t);
        if (rc != MPI_SUCCESS) break;
        rc = papc_irecv(c, c->recvbuf, 1, t, g->rank_of[g->kids[i]],
                        SUB_DATA, &reqs[nreq++]);
        MPI_Type_free(&t); /* the pending receive keeps it alive */
    }
    if (rc == MPI_SUCCESS) rc = copy_own_at_root(c);
    if (rc == MPI_SUCCESS) return papc_waitall(nreq, reqs);
    papc_cleanup_requests(nreq, reqs);
    return rc;
}

static int sbn_relay(const papc_call *c, const gtree *g) {
    int total = child_bytes(c, g, g->v), nreq = 0, rc = MPI_SUCCESS;
    MPI_Request reqs[PAPC_STREE_MAX_CHILDREN];
    char *buf = malloc((size_t)total);
    if (!buf) return papc_error(MPI_ERR_NO_MEM, "subtree of %d bytes", total);
    for (int i = 0; i < g->nkids && rc == MPI_SUCCESS; i++) {
        int k = g->kids[i];
        rc = papc_irecv(c, buf + (size_t)(k - g->v) * g->bm,
                        child_bytes(c, g, k), MPI_PACKED, g->rank_of[k],
                        SUB_DATA, &reqs[nreq++]);
    }
    if (rc == MPI_SUCCESS) rc = pack_own(c, g, buf, total);
    if (rc == MPI_SUCCESS) rc = papc_waitall(nreq, reqs);
    else papc_cleanup_requests(nreq, reqs);
    if (rc == MPI_SUCCESS)
        rc = papc_send(c, buf, total, MPI_PACKED,
                       g->rank_of[papc_stree_parent(g->v)], SUB_DATA);
    free(buf);
    return rc;
}

static int sbn_body(const papc_call *c, const gtree *g) {
    if (g->v == 0) return sbn_root(c, g);
    if (g->nkids == 0)
        return papc_send(c, c->sendbuf, c->sendcount, c->sendtype,
                         g->rank_of[papc_stree_parent(g->v)], SUB_DATA);
    return sbn_relay(c, g);
}

/* ---- BSBN --------------------------------------------------------------- */

/* The next child's message, whichever came first: its nrank in *child. */
static int take_child(const papc_call *c, const papc_arrival *a,
                      const gtree *g, papc_bg_msg *m, int *child) {
    int rc = papc_bg_take(c, a, MPI_ANY_SOURCE, PAPC_BG_BSBN_GATHER, m);
    if (rc != MPI_SUCCESS) return rc;
    int k = m->source >= 0 && m->source < c->size ? g->nrank_of[m->source]
                                                  : -1;
    if (k <= 0 || papc_stree_parent(k) != g->v ||
        m->bytes != child_bytes(c, g, k)) {
        papc_bg_msg_free(m);
        return papc_error(MPI_ERR_INTERN, "unexpected BSBN gather message "
                          "from %d", m->source);
    }
    *child = k;
    return MPI_SUCCESS;
}

static int bsbn_root(const papc_call *c, const papc_arrival *a,
                     const gtree *g) {
    int rc = copy_own_at_root(c);
    for (int i = 0; i < g->nkids && rc == MPI_SUCCESS; i++) {
        papc_bg_msg m;
        MPI_Datatype t;
        int k = 0;
        rc = take_child(c, a, g, &m, &k);
        if (rc != MPI_SUCCESS) break;
        rc = root_child_type(c, g, k, &t);
        if (rc == MPI_SUCCESS) {
            rc = papc_bg_unpack(&m, c->recvbuf, 1, t);
            MPI_Type_free(&t);
        }
        papc_bg_msg_free(&m);
    }
    return rc;
}

static int bsbn_relay(const papc_call *c, const papc_arrival *a,
                      const gtree *g) {
    int total = child_bytes(c, g, g->v);
    char *buf = malloc((size_t)total);
    if (!buf) return papc_error(MPI_ERR_NO_MEM, "subtree of %d bytes", total);
    int rc = pack_own(c, g, buf, total);
    for (int i = 0; i < g->nkids && rc == MPI_SUCCESS; i++) {
        papc_bg_msg m;
        int k = 0;
        rc = take_child(c, a, g, &m, &k);
        if (rc != MPI_SUCCESS) break;
        if (m.bytes > 0)
            memcpy(buf + (size_t)(k - g->v) * g->bm, m.data, (size_t)m.bytes);
        papc_bg_msg_free(&m);
    }
    if (rc == MPI_SUCCESS)
        rc = papc_bg_send(c, a, g->rank_of[papc_stree_parent(g->v)],
                          PAPC_BG_BSBN_GATHER, NULL, buf, total, MPI_BYTE);
    free(buf);
    return rc;
}

static int bsbn_body(const papc_call *c, const papc_arrival *a,
                     const gtree *g) {
    if (g->v == 0) return bsbn_root(c, a, g);
    if (g->nkids == 0)
        return papc_bg_send(c, a, g->rank_of[papc_stree_parent(g->v)],
                            PAPC_BG_BSBN_GATHER, NULL, c->sendbuf,
                            c->sendcount, c->sendtype);
    return bsbn_relay(c, a, g);
}

/* ---- entry points ------------------------------------------------------- */

static int run(const papc_call *c, int background) {
    papc_arrival a;
    gtree g = {NULL, NULL, 0, 0, {0}, 0};
    int rc = papc_arrival_begin(c, PAPC_ORDER_AGREED, c->root, &a);
    if (rc != MPI_SUCCESS) return rc;
    rc = gtree_build(c, &a, &g);
    if (rc == MPI_SUCCESS && g.bm == 0) { /* nothing to move (MPI's rule) */
    } else if (rc == MPI_SUCCESS && c->size == 1) {
        rc = copy_own_at_root(c);
    } else if (rc == MPI_SUCCESS) {
        rc = background && a.bg ? bsbn_body(c, &a, &g) : sbn_body(c, &g);
    }
    gtree_free(&g);
    return papc_arrival_end(c, &a, rc);
}

int papc_gather_sorted_binomial(const papc_call *c) { return run(c, 0); }

int papc_gather_background_sorted_binomial(const papc_call *c) {
    return run(c, 1);
}

/* ---- cost models (issue 12), balanced arrivals ---- */

/* SBN: the agreed order first (PAPC_ORDER_AGREED, line 281: every rank
 * waits for the root's decision, papc_bgs_decision), then the binomial
 * gather's pattern over nranks (papc_gather_binomial_model: the tree is the
 * in-order binomial tree whatever the order; sbn_root posts every receive
 * at once, line 160, and copies its own block, line 171; sbn_relay posts
 * its children's, packs its own block meanwhile, line 188, and sends its
 * subtree with a blocking send, line 192):
 *   T = γ(P)(α + 8(2P+1)β) + Σ_waves γ(c+1)(α + s m β) + mδ.
 * Building the tree on every rank (O(P log P), gtree_build) is not
 * modelled.  m = 0 costs nothing (call.c); P = 1 is the copy (line 286). */
papc_terms papc_gather_sorted_binomial_model(const papc_model_in *in) {
    if (in->m <= 0) return papc_terms_zero();
    /* Traffic: the binomial gather's, plus the notices and the decision. */
    papc_terms t = papc_terms_add(papc_bgs_decision(in),
                                  papc_gather_binomial_model(in));
    return papc_bgs_agreed_traffic(t, in->P);
}

/* BSBN, with the background channel: the agreed order, then the same tree
 * whose messages go to the parent's monitor with a 64-byte header
 * (papc_bg_send: the sender packs its message, δ per byte), the parent's
 * call taking them as they came:
 *   T = γ(P)(α + 8(2P+1)β) + papc_bgs_gather_tree with header 64, the
 *       sender's pack (lines 260, 270), the receiver's copy out of the
 *       mailbox (memcpy, line 256; papc_bg_unpack at the root, line 236)
 *       and a relay's own block packed before it takes its children's
 *       (pack_own, line 249); the root's own copy first (line 227).
 * Every hop of the deepest chain adds its pack and copies: P = 4, γ ≡ 1,
 * gives 2α + (128 + 3m)β + 6mδ after the decision (the test has more).
 * P = 1 is the copy. */
papc_terms papc_gather_background_sorted_binomial_model(
    const papc_model_in *in) {
    if (in->m <= 0) return papc_terms_zero();
    papc_bgs_gather_costs k = {64, 1, 1, 1};
    papc_terms t =
        papc_terms_add(papc_bgs_decision(in), papc_bgs_gather_tree(in, &k));
    /* Traffic: the notices and the decision; every non-root sends its
     * subtree once with a 64-byte header. */
    t = papc_bgs_agreed_traffic(t, in->P);
    return papc_terms_traffic(t, in->P - 1,
                              64.0 * (in->P - 1) +
                                  in->m * papc_bgs_binomial_span_sum(in->P));
}
