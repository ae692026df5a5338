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
 * the root feeds both subtrees with non-blocking sends.  Halves and
 * segments are cut in bytes of the packed message (papc_bytes), not in
 * elements: ranks may describe the same bytes with datatypes of different
 * sizes, and a cut in elements would fall at different bytes on different
 * ranks (issue 11); a non-contiguous buffer is packed at the root and
 * unpacked at the others.  Open MPI falls back
 * to another algorithm when a half would be empty (count 1) or P is tiny;
 * here empty halves are simply never sent, and P = 2 works as the pairing
 * says (vrank 1 is unpaired and gets the second half from the root). */
#include <math.h>
#include <stdlib.h>
#include "../coll.h"
#include "../tree_engine.h"
#include "model_bgs.h"

#define TREE_SUB 0 /* tag of the tree phase */
#define SWAP_SUB 1 /* tag of the exchange phase */
/* Largest message of the exchange phase (an int count of MPI_BYTE). */
#define CHUNK_MAX ((size_t)1 << 30)

/* One half of the message, in bytes of its packed view. */
typedef struct half {
    char *buf;
    size_t len;
} half;

/* Half 0 takes the odd byte, as papc_block_range would. */
static half message_half(const papc_bytes *b, int h) {
    size_t first = b->len - b->len / 2;
    half r = {b->ptr + (h ? first : 0), h ? b->len / 2 : first};
    return r;
}

static int chunk_len(size_t len, size_t off) {
    return (int)(len - off < CHUNK_MAX ? len - off : CHUNK_MAX);
}

/* Root, tree phase: segment i of half h goes to child h (vrank h + 1), the
 * two children served together, one step per segment; segments cut as
 * papc_tree_bcast_bytes cuts them below. */
static int root_feed_subtrees(const papc_call *c, const papc_tree_place *p,
                              const papc_bytes *b) {
    half hv[2] = {message_half(b, 0), message_half(b, 1)};
    size_t seg[2] = {1, 1}, nseg[2] = {0, 0}, steps = 0;
    for (int h = 0; h < p->nchildren && h < 2; h++) {
        seg[h] = papc_tree_seg_bytes(c->segsize, hv[h].len);
        nseg[h] = (hv[h].len + seg[h] - 1) / seg[h];
        if (nseg[h] > steps) steps = nseg[h];
    }
    MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    for (size_t i = 0; i < steps; i++) {
        int n = 0, rc = MPI_SUCCESS;
        for (int h = 0; h < p->nchildren && h < 2 && rc == MPI_SUCCESS; h++) {
            if (i >= nseg[h]) continue;
            size_t first = i * seg[h], len = hv[h].len - first;
            if (len > seg[h]) len = seg[h];
            rc = papc_isend(c, hv[h].buf + first, (int)len, MPI_BYTE,
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

/* Root, exchange phase: each unpaired node gets the half it lacks (in
 * chunks of at most CHUNK_MAX bytes, one round of sends per chunk). */
static int root_serve_unpaired(const papc_call *c, const papc_bytes *b) {
    int P = c->size, rc = MPI_SUCCESS;
    int *list = malloc((size_t)P * sizeof *list);
    MPI_Request *req = malloc((size_t)P * sizeof *req);
    if (!list || !req) {
        free(list);
        free(req);
        return papc_error(MPI_ERR_NO_MEM, "split_binary: %d requests", P);
    }
    int nun = papc_split_binary_unpaired(P, list);
    size_t most = b->len - b->len / 2;
    for (size_t off = 0; off < most && rc == MPI_SUCCESS; off += CHUNK_MAX) {
        int n = 0;
        for (int i = 0; i < nun && rc == MPI_SUCCESS; i++) {
            int h, partner;
            papc_split_binary_pair(list[i], P, &h, &partner);
            half missing = message_half(b, 1 - h);
            if (off >= missing.len) continue;
            rc = papc_isend(c, missing.buf + off, chunk_len(missing.len, off),
                            MPI_BYTE, papc_real_rank(list[i], c->root, P),
                            SWAP_SUB, &req[n++]);
        }
        if (rc == MPI_SUCCESS) rc = papc_waitall(n, req);
        else papc_cleanup_requests(n, req);
    }
    free(list);
    free(req);
    return rc;
}

/* Sends mine to peer and receives other from src, chunk by chunk (a side
 * with no bytes left, or a negative rank, takes no part). */
static int exchange(const papc_call *c, half mine, int peer, half other,
                    int src) {
    size_t smax = peer >= 0 ? mine.len : 0, rmax = other.len;
    int rc = MPI_SUCCESS;
    for (size_t off = 0; rc == MPI_SUCCESS && (off < smax || off < rmax);
         off += CHUNK_MAX) {
        if (off < smax && off < rmax)
            rc = papc_sendrecv(c, mine.buf + off, chunk_len(smax, off),
                               MPI_BYTE, peer, other.buf + off,
                               chunk_len(rmax, off), MPI_BYTE, src,
                               SWAP_SUB);
        else if (off < smax)
            rc = papc_send(c, mine.buf + off, chunk_len(smax, off), MPI_BYTE,
                           peer, SWAP_SUB);
        else
            rc = papc_recv(c, other.buf + off, chunk_len(rmax, off),
                           MPI_BYTE, src, SWAP_SUB);
    }
    return rc;
}

/* Non-root, exchange phase: swap halves with the partner, or take the
 * missing half from the root.  Empty halves travel nowhere (both sides know
 * the lengths). */
static int swap_halves(const papc_call *c, int vrank, const papc_bytes *b) {
    int h, partner;
    papc_split_binary_pair(vrank, c->size, &h, &partner);
    half mine = message_half(b, h), other = message_half(b, 1 - h);
    if (partner < 0) return exchange(c, mine, -1, other, c->root);
    int peer = papc_real_rank(partner, c->root, c->size);
    return exchange(c, mine, peer, other, peer);
}

static int run(const papc_call *c, const papc_tree_place *p, int vrank,
               papc_bytes *b) {
    int rc;
    if (vrank == 0) {
        rc = papc_bytes_pack(b);
        if (rc == MPI_SUCCESS) rc = root_feed_subtrees(c, p, b);
        if (rc == MPI_SUCCESS) rc = root_serve_unpaired(c, b);
        return rc;
    }
    int h, partner;
    papc_split_binary_pair(vrank, c->size, &h, &partner);
    half mine = message_half(b, h);
    rc = papc_tree_bcast_bytes(c, p, mine.buf, mine.len, c->segsize,
                               TREE_SUB);
    if (rc == MPI_SUCCESS) rc = swap_halves(c, vrank, b);
    if (rc == MPI_SUCCESS) rc = papc_bytes_unpack(b);
    return rc;
}

int papc_bcast_split_binary(const papc_call *c) {
    if (c->recvcount <= 0 || c->size == 1) return MPI_SUCCESS;
    papc_tree_place p;
    int rc = papc_tree_place_init(&p, PAPC_TREE_KARY, 2, c->rank, c->root,
                                  c->size);
    if (rc != MPI_SUCCESS) return rc;
    papc_bytes b;
    rc = papc_bytes_init(&b, c->recvbuf, c->recvcount, c->recvtype);
    if (rc == MPI_SUCCESS)
        rc = run(c, &p, papc_vrank(c->rank, c->root, c->size), &b);
    papc_bytes_free(&b);
    papc_tree_place_free(&p);
    return rc;
}

/* Vranks without a partner, as papc_split_binary_unpaired finds them
 * (the last level's left-half nodes whose mirror does not exist). */
static int unpaired_nodes(int P) {
    int n = 0;
    for (int v = 1; v < P; v++) {
        int h, partner;
        papc_split_binary_pair(v, P, &h, &partner);
        n += partner < 0;
    }
    return n;
}

/* Messages of a half of len bytes in the exchange phase: chunks of at
 * most CHUNK_MAX bytes (exchange, root_serve_unpaired); none when empty. */
static double chunks(double len) {
    return len > 0 ? ceil(len / (double)CHUNK_MAX) : 0;
}

/* The whole collective's messages and bytes.  Tree phase: the L nodes of
 * the left subtree (half 0, papc_split_binary_pair) get n_0 segments of
 * h0, the R = P - 1 - L of the right one n_1 segments of h1.  Exchange:
 * every non-root gets the half it lacks once, from its partner or (no
 * partner) from the root, in chunks: L chunks(h1) + R chunks(h0).  Bytes:
 * every non-root gets both halves once, (P-1) m. */
static papc_terms split_traffic(const papc_model_in *in, papc_terms t,
                                double h0, double h1) {
    double L = 0;
    for (int v = 1; v < in->P; v++) {
        int h, partner;
        papc_split_binary_pair(v, in->P, &h, &partner);
        L += h == 0;
    }
    double R = in->P - 1 - L;
    double msgs = L * papc_bgs_bcast_nseg(in->segsize, h0) +
                  R * papc_bgs_bcast_nseg(in->segsize, h1) +
                  L * chunks(h1) + R * chunks(h0);
    return papc_terms_traffic(t, msgs, (in->P - 1) * in->m);
}

/* Model (issue 12), halves h0 = ceil(m/2), h1 = floor(m/2), each cut in
 * n_s = ceil(h0/m_s) segments (root_feed_subtrees, papc_tree_seg_bytes):
 *   tree phase  T_t = papc_bgs_pipeline of h0 down the leftmost path of the
 *               binary tree (the left subtree is the deeper): the root
 *               sends segment i of both halves at once and waits
 *               (root_feed_subtrees: γ(3), γ(2) at P = 2), inner nodes run
 *               the engine (run -> papc_tree_bcast_bytes);
 *   exchange    partners swap halves with both sides posted at once
 *               (swap_halves -> exchange -> papc_sendrecv): α + h0 β;
 *   unpaired    the root, after its n_s steps (γ(k_0+1)(n_s α + h0 β)),
 *               sends the u = unpaired_nodes(P) nodes their missing half at
 *               once (root_serve_unpaired): γ(u+1)(α + h1 β).
 *   T = max(T_t + α + h0 β  [P >= 3: pairs exist],
 *           γ(k_0+1)(n_s α + h0 β) + γ(u+1)(α + h1 β)  [u > 0])
 * (papc_bgs_max).  Eq. 9 has 2(floor(log2 P) + n_s/2 - 1)(α + m/n_s β) +
 * α + m/2 β for Open MPI's blocking sends; this code's tree phase is
 * non-blocking.  m = 0 and P = 1 cost nothing.  Chunks of 2^30 bytes in
 * the exchange are not modelled in T (they are in the traffic,
 * split_traffic, added once to the later of the two paths). */
papc_terms papc_bcast_split_binary_model(const papc_model_in *in) {
    if (in->P <= 1 || in->m <= 0) return papc_terms_zero();
    double h1 = floor(in->m / 2), h0 = in->m - h1;
    papc_bgs_run path[32];
    int D = papc_bgs_binary_path(in->P, path);
    if (h1 <= 0) path[0].fanout = 1; /* the right subtree gets nothing */
    papc_terms tree = papc_bgs_pipeline(in, path, D, h0, in->segsize);
    double n = ceil(h0 / papc_bgs_bcast_seg(in->segsize, h0));
    papc_terms root_done = papc_terms_scale((papc_terms){n, h0, 0, 0, 0, 0},
                                            papc_bgs_g(in, path[0].fanout + 1));
    int u = unpaired_nodes(in->P), have = 0;
    papc_terms t = tree;
    if (in->P >= 3) {
        t = papc_terms_add(tree, papc_msg(h0));
        have = 1;
    }
    if (u > 0) {
        papc_terms b = root_done;
        if (h1 > 0) b = papc_terms_add(b, papc_bgs_fan(in, u, u * h1));
        t = have ? papc_bgs_max(t, b) : papc_bgs_max(tree, b);
    }
    return split_traffic(in, t, h0, h1);
}
