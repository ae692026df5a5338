/*
 * sorted_binomial.c — scatter Sorted BiNomial (SBN) and Background Sorted
 * BiNomial (BSBN) trees (pap-scatter-gather.md §4.1, Figs. 7 and 8).
 *
 * SBN.  A binomial scatter whose early levels go to the ranks predicted to
 * arrive first: the tree is the in-order binomial tree over "nranks"
 * (topo/sorted_tree.h), the root at nrank 0, and the i-th earliest other
 * rank at the nrank that receives i-th (by send step, then by the parent's
 * rank; the bit reversal of the paper for P a power of two).  Only the
 * root orders (PAPC_ORDER_LOCAL: its own estimates, no messages); it SENDS
 * THE ORDER WITH THE DATA: every message is [the map nrank -> rank, P ints]
 * [the blocks of the receiver's subtree in nrank order], MPI_PACKED on the
 * receiving side.  So nobody else needs the order in advance: a non-root
 * receives its one message of this call from any source (the call's
 * private comm and tag make it unambiguous), sizes it with MPI_Mprobe,
 * finds its nrank and its children in the carried map, forwards each child
 * the map plus the child's slice and unpacks its own block.  The root's
 * "data shuffling" costs no copy: each child's message is one struct
 * datatype (the map, then the child's blocks straight from sendbuf in
 * nrank order); a relay sends the map and a slice of the bytes it
 * received as one two-piece datatype.  Children are served largest
 * subtree first, with all sends posted at once, so a late child does not
 * hold up its siblings.
 *
 * BSBN.  When the background channel runs (a.bg), the messages go to the
 * receivers' monitor threads (papc_bg_send, kind PAPC_BG_BSBN_SCATTER): a
 * handler registered at load time runs in the receiver's monitor thread
 * as soon as the message arrives -- while the receiver still computes --
 * forwards the children's slices with papc_bg_ctx_send and leaves the
 * message in the mailbox; the receiver's call later takes it and unpacks
 * its own block.  A late inner rank then no longer delays its subtree.
 * Without the background channel BSBN runs SBN.
 *
 * Relayed data are packed bytes of the sender's type signature, which
 * assumes a homogeneous MPI (as irregular_tree.c does); a receiver checks
 * that its own block unpacks to exactly its size and that the message has
 * exactly the length the map implies, MPI_ERR_INTERN otherwise.
 *
 * Cost (Hockney, block m bytes, balanced arrivals): as the binomial
 * scatter, ceil(log2 P) alpha + (P-1) m beta at the root, plus 4 P bytes of
 * map per message (ceil(log2 P) of them on any path) and O(P log P) work at
 * the root to build the map.
 *
 * Departures from the paper (its pseudocode is wrong in places):
 * (1) Fig. 7/8 line 5 `k := 2⌈log2 P⌉` must be 2^⌈log2 P⌉.
 * (2) Lines 1-2 `swap(pt0, ptroot)` then `sort(pt)` sorts the root away
 *     from position 0 whenever it is not the earliest; the root is kept
 *     at nrank 0 and only the others are sorted.
 * (3) Line 3, the bit-reversal shuffle, only makes sense for P a power of
 *     two (for P = 6, rev of 3-bit indices gives nranks >= 6).  The rule
 *     behind it -- the earliest ranks at the nranks that receive earliest
 *     -- is applied directly for any P (sorted_tree.h); it equals the bit
 *     reversal for powers of two (unit-tested).
 * (4) Lines 11-17: a non-root waits for its data at the first i (from k/2
 *     down) with nrank & i, i.e. at its HIGHEST set bit, and then sends to
 *     nrank + i for the smaller i.  In the binomial tree whose sends go to
 *     nrank + i, a node receives from nrank - lowbit(nrank) at its LOWEST
 *     set bit and may only send to nrank + i for i < lowbit(nrank): as
 *     written, nrank 6 of P = 8 would also send (d2, d3) to nrank 8.  Here
 *     a node receives once, then sends to nrank + i for i < lowbit(nrank),
 *     nrank + i < P (the sends to nranks >= P, which the pseudocode makes
 *     for every non-power-of-two P, are dropped).
 * (5) The pseudocode needs every process to know the sorted order; only
 *     the root knows the arrival estimates it sorted by, so the order
 *     travels in the messages (no extra message, no agreement round).
 * (6) Fig. 8 leaves the root's sends blocking in the foreground and a
 *     non-root's call "waits for the background" -- here too; the
 *     background part forwards in the receiver's monitor thread.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "../coll.h"
#include "../bcast/model_bgs.h"
#include "arrival/arrival.h"
#include "topo/sorted_tree.h"

#define SUB_DATA 0

/* ---- shared -------------------------------------------------------------
 * A message = map (P ints, hb packed bytes) + span blocks of bm bytes. */

/* Every rank checks the same limit (P and bm are the same everywhere), so
 * all refuse together: a packed message must fit an int count. */
static int check_size(int P, size_t bm) {
    if ((double)P * sizeof(int) + (double)(P - 1) * (double)bm > INT_MAX)
        return papc_error(MPI_ERR_COUNT, "a sorted_binomial scatter message "
                          "would exceed INT_MAX bytes");
    return MPI_SUCCESS;
}

/* The root: nrank -> rank from its local order. */
static int root_map(const papc_call *c, const papc_arrival *a, int *rank_of) {
    if (papc_stree_scatter_map(c->size, a->order, c->root, rank_of) != 0)
        return papc_error(MPI_ERR_INTERN, "arrival order is not a "
                          "permutation");
    return MPI_SUCCESS;
}

/* The root's message to child: the map, then the blocks of nranks
 * [child, child + span) from sendbuf, addressed relative to rank_of. */
static int root_message_type(const papc_call *c, const int *rank_of,
                             int child, MPI_Datatype *out) {
    int span = papc_stree_span(child, c->size), n = span + 1;
    int *len = malloc((size_t)n * sizeof *len);
    MPI_Aint *disp = malloc((size_t)n * sizeof *disp);
    MPI_Datatype *type = malloc((size_t)n * sizeof *type);
    int rc = MPI_SUCCESS;
    if (!len || !disp || !type) {
        rc = papc_error(MPI_ERR_NO_MEM, "struct type of %d blocks", n);
        goto out;
    }
    MPI_Aint base, addr, ext = papc_extent(c->sendtype);
    MPI_Get_address(rank_of, &base);
    len[0] = c->size;
    disp[0] = 0;
    type[0] = MPI_INT;
    for (int i = 0; i < span; i++) {
        int r = rank_of[child + i];
        MPI_Get_address((const char *)c->sendbuf +
                            (MPI_Aint)r * c->sendcount * ext, &addr);
        len[i + 1] = c->sendcount;
        disp[i + 1] = MPI_Aint_diff(addr, base);
        type[i + 1] = c->sendtype;
    }
    int e = MPI_Type_create_struct(n, len, disp, type, out);
    if (e == MPI_SUCCESS) e = MPI_Type_commit(out);
    if (e != MPI_SUCCESS) rc = papc_mpi_error(e, "MPI_Type_create_struct");
out:
    free(len);
    free(disp);
    free(type);
    return rc;
}

static int copy_own_at_root(const papc_call *c) {
    if (c->recvbuf == MPI_IN_PLACE) return MPI_SUCCESS;
    return papc_copy(papc_elem(c->sendbuf, c->sendtype,
                               (MPI_Aint)c->root * c->sendcount),
                     c->sendcount, c->sendtype, c->recvbuf, c->recvcount,
                     c->recvtype);
}

/* A received message: the map and where this rank sits. */
typedef struct parsed {
    int *rank_of;
    int hb;     /* packed bytes of the map */
    int nrank;
    size_t bm;  /* bytes of a block */
} parsed;

/* Reads the map at the head of data and checks the length. */
static int parse_message(const char *data, int bytes, int P, int rank,
                         size_t bm, MPI_Comm comm, parsed *p) {
    p->rank_of = malloc((size_t)P * sizeof *p->rank_of);
    int *nrank_of = malloc((size_t)P * sizeof *nrank_of);
    int rc = MPI_SUCCESS, pos = 0;
    if (!p->rank_of || !nrank_of) {
        rc = papc_error(MPI_ERR_NO_MEM, "map of %d ranks", P);
        goto out;
    }
    int e = MPI_Unpack(data, bytes, &pos, p->rank_of, P, MPI_INT, comm);
    if (e != MPI_SUCCESS) {
        rc = papc_mpi_error(e, "MPI_Unpack (map)");
        goto out;
    }
    if (papc_stree_invert(P, p->rank_of, nrank_of) != 0) {
        rc = papc_error(MPI_ERR_INTERN, "received map is not a permutation");
        goto out;
    }
    p->hb = pos;
    p->nrank = nrank_of[rank];
    p->bm = bm;
    if ((double)bytes != pos + (double)papc_stree_span(p->nrank, P) * bm)
        rc = papc_error(MPI_ERR_INTERN, "scatter message of %d bytes, "
                        "expected %.0f (heterogeneous MPI?)", bytes,
                        pos + (double)papc_stree_span(p->nrank, P) * bm);
out:
    free(nrank_of);
    if (rc != MPI_SUCCESS) {
        free(p->rank_of);
        p->rank_of = NULL;
    }
    return rc;
}

/* Own block (the subtree's first) from the message into recvbuf. */
static int unpack_own(const papc_call *c, const char *data, int bytes,
                      const parsed *p) {
    int pos = p->hb;
    PAPC_CHECK(MPI_Unpack(data, bytes, &pos, c->recvbuf, c->recvcount,
                          c->recvtype, c->comm));
    if ((size_t)(pos - p->hb) != p->bm)
        return papc_error(MPI_ERR_INTERN, "packed size of a block differs "
                          "from its type size (heterogeneous MPI?)");
    return MPI_SUCCESS;
}

/* Byte offset of nrank n's block in a message to nrank v. */
static size_t block_offset(const parsed *p, int v, int n) {
    return (size_t)p->hb + (size_t)(n - v) * p->bm;
}

/* ---- SBN ---------------------------------------------------------------- */

static int sbn_root(const papc_call *c, const papc_arrival *a) {
    int P = c->size, kids[PAPC_STREE_MAX_CHILDREN];
    MPI_Request reqs[PAPC_STREE_MAX_CHILDREN];
    int *rank_of = malloc((size_t)P * sizeof *rank_of);
    if (!rank_of) return papc_error(MPI_ERR_NO_MEM, "map of %d ranks", P);
    int rc = root_map(c, a, rank_of), nreq = 0;
    int n = papc_stree_children(0, P, kids);
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        MPI_Datatype t;
        rc = root_message_type(c, rank_of, kids[i], &t);
        if (rc != MPI_SUCCESS) break;
        rc = papc_isend(c, rank_of, 1, t, rank_of[kids[i]], SUB_DATA,
                        &reqs[nreq++]);
        MPI_Type_free(&t); /* the pending send keeps it alive */
    }
    if (rc == MPI_SUCCESS) rc = copy_own_at_root(c);
    if (rc == MPI_SUCCESS) rc = papc_waitall(nreq, reqs);
    else papc_cleanup_requests(nreq, reqs);
    free(rank_of);
    return rc;
}

/* The map (bytes [0, hb)) and child's slice of data as one message. */
static int relay_type(const parsed *p, int v, int child, int P,
                      MPI_Datatype *out) {
    int len[2] = {p->hb, (int)((size_t)papc_stree_span(child, P) * p->bm)};
    MPI_Aint disp[2] = {0, (MPI_Aint)block_offset(p, v, child)};
    PAPC_CHECK(MPI_Type_create_hindexed(2, len, disp, MPI_BYTE, out));
    PAPC_CHECK(MPI_Type_commit(out));
    return MPI_SUCCESS;
}

static int sbn_nonroot(const papc_call *c) {
    int P = c->size, bytes, kids[PAPC_STREE_MAX_CHILDREN], nreq = 0;
    MPI_Request reqs[PAPC_STREE_MAX_CHILDREN];
    MPI_Message msg;
    MPI_Status st;
    PAPC_CHECK(MPI_Mprobe(MPI_ANY_SOURCE, c->tag + SUB_DATA, c->comm, &msg,
                          &st));
    PAPC_CHECK(MPI_Get_count(&st, MPI_PACKED, &bytes));
    char *data = malloc(bytes > 0 ? (size_t)bytes : 1);
    if (!data) {
        MPI_Mrecv(NULL, 0, MPI_PACKED, &msg, MPI_STATUS_IGNORE);
        return papc_error(MPI_ERR_NO_MEM, "scatter message of %d bytes",
                          bytes);
    }
    parsed p = {NULL, 0, 0, 0};
    int rc = MPI_Mrecv(data, bytes, MPI_PACKED, &msg, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) rc = papc_mpi_error(rc, "MPI_Mrecv");
    if (rc == MPI_SUCCESS)
        rc = parse_message(data, bytes, P, c->rank,
                           (size_t)c->recvcount * papc_type_size(c->recvtype),
                           c->comm, &p);
    int v = p.nrank, n = rc == MPI_SUCCESS ? papc_stree_children(v, P, kids)
                                           : 0;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        MPI_Datatype t;
        rc = relay_type(&p, v, kids[i], P, &t);
        if (rc != MPI_SUCCESS) break;
        rc = papc_isend(c, data, 1, t, p.rank_of[kids[i]], SUB_DATA,
                        &reqs[nreq++]);
        MPI_Type_free(&t);
    }
    if (rc == MPI_SUCCESS) rc = unpack_own(c, data, bytes, &p);
    if (rc == MPI_SUCCESS) rc = papc_waitall(nreq, reqs);
    else papc_cleanup_requests(nreq, reqs);
    free(p.rank_of);
    free(data);
    return rc;
}

/* This rank's block in bytes (sendtype at the root, recvtype elsewhere). */
static size_t own_block_bytes(const papc_call *c) {
    return c->rank == c->root
               ? (size_t)c->sendcount * papc_type_size(c->sendtype)
               : (size_t)c->recvcount * papc_type_size(c->recvtype);
}

static int sbn_body(const papc_call *c, const papc_arrival *a) {
    int rc = check_size(c->size, own_block_bytes(c));
    if (rc != MPI_SUCCESS) return rc;
    if (c->size == 1) return copy_own_at_root(c);
    return c->rank == c->root ? sbn_root(c, a) : sbn_nonroot(c);
}

int papc_scatter_sorted_binomial(const papc_call *c) {
    papc_arrival a;
    int rc = papc_arrival_begin(c, c->rank == c->root ? PAPC_ORDER_LOCAL
                                                      : PAPC_ORDER_NONE,
                                c->root, &a);
    if (rc != MPI_SUCCESS) return rc;
    return papc_arrival_end(c, &a, sbn_body(c, &a));
}

/* ---- BSBN --------------------------------------------------------------- */

/* hdr of every BSBN message: [0] block bytes, [1] P, [3] an error class the
 * handler met while forwarding (reported by the receiver's call). */
#define HDR_BM 0
#define HDR_P 1
#define HDR_ERR 3

/* The monitor thread of a receiver: forwards each child the map and its
 * slice, largest subtree first, and leaves the message for the call.  The
 * slice is sent in place: the map is copied over the bytes just before it
 * (saved and restored afterwards), so nothing big is copied. */
static int bsbn_forward(papc_bg_ctx *ctx, papc_bg_msg *m) {
    int P = papc_bg_ctx_size(ctx), kids[PAPC_STREE_MAX_CHILDREN];
    parsed p = {NULL, 0, 0, 0};
    char *save = NULL, *map = NULL;
    int rc = MPI_SUCCESS;
    if (m->hdr[HDR_P] != P || m->hdr[HDR_BM] < 0)
        rc = papc_error(MPI_ERR_INTERN, "BSBN scatter header");
    if (rc == MPI_SUCCESS)
        rc = parse_message(m->data, m->bytes, P, papc_bg_ctx_rank(ctx),
                           (size_t)m->hdr[HDR_BM], MPI_COMM_SELF, &p);
    int v = p.nrank, n = rc == MPI_SUCCESS ? papc_stree_children(v, P, kids)
                                           : 0;
    if (n > 0) {
        save = malloc((size_t)p.hb);
        map = malloc((size_t)p.hb);
        if (!save || !map) rc = papc_error(MPI_ERR_NO_MEM, "BSBN relay");
        else memcpy(map, m->data, (size_t)p.hb);
    }
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        char *at = m->data + block_offset(&p, v, kids[i]) - p.hb;
        size_t len = (size_t)p.hb +
                     (size_t)papc_stree_span(kids[i], P) * p.bm;
        memcpy(save, at, (size_t)p.hb);
        memcpy(at, map, (size_t)p.hb);
        rc = papc_bg_ctx_send(ctx, p.rank_of[kids[i]], PAPC_BG_BSBN_SCATTER,
                              m->hdr, at, (int)len);
        memcpy(at, save, (size_t)p.hb);
    }
    free(save);
    free(map);
    free(p.rank_of);
    if (rc != MPI_SUCCESS) m->hdr[HDR_ERR] = rc;
    return 1; /* the call unpacks its own block */
}

__attribute__((constructor)) static void register_bsbn_scatter(void) {
    papc_bg_register(PAPC_BG_BSBN_SCATTER, bsbn_forward);
}

static int bsbn_root(const papc_call *c, const papc_arrival *a) {
    int P = c->size, kids[PAPC_STREE_MAX_CHILDREN];
    int *rank_of = malloc((size_t)P * sizeof *rank_of);
    if (!rank_of) return papc_error(MPI_ERR_NO_MEM, "map of %d ranks", P);
    int64_t hdr[4] = {0, 0, 0, 0};
    hdr[HDR_BM] = (int64_t)c->sendcount * (int64_t)papc_type_size(c->sendtype);
    hdr[HDR_P] = P;
    int rc = root_map(c, a, rank_of);
    int n = papc_stree_children(0, P, kids);
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        MPI_Datatype t;
        rc = root_message_type(c, rank_of, kids[i], &t);
        if (rc != MPI_SUCCESS) break;
        rc = papc_bg_send(c, a, rank_of[kids[i]], PAPC_BG_BSBN_SCATTER, hdr,
                          rank_of, 1, t);
        MPI_Type_free(&t);
    }
    if (rc == MPI_SUCCESS) rc = copy_own_at_root(c);
    free(rank_of);
    return rc;
}

static int bsbn_nonroot(const papc_call *c, const papc_arrival *a) {
    papc_bg_msg m;
    int rc = papc_bg_take(c, a, MPI_ANY_SOURCE, PAPC_BG_BSBN_SCATTER, &m);
    if (rc != MPI_SUCCESS) return rc;
    parsed p = {NULL, 0, 0, 0};
    if (m.hdr[HDR_ERR] != 0) rc = (int)m.hdr[HDR_ERR];
    if (rc == MPI_SUCCESS)
        rc = parse_message(m.data, m.bytes, c->size, c->rank,
                           (size_t)c->recvcount * papc_type_size(c->recvtype),
                           c->comm, &p);
    if (rc == MPI_SUCCESS) rc = unpack_own(c, m.data, m.bytes, &p);
    free(p.rank_of);
    papc_bg_msg_free(&m);
    return rc;
}

static int bsbn_body(const papc_call *c, const papc_arrival *a) {
    if (!a->bg) return sbn_body(c, a);
    int rc = check_size(c->size, own_block_bytes(c));
    if (rc != MPI_SUCCESS) return rc;
    if (c->size == 1) return copy_own_at_root(c);
    return c->rank == c->root ? bsbn_root(c, a) : bsbn_nonroot(c, a);
}

int papc_scatter_background_sorted_binomial(const papc_call *c) {
    papc_arrival a;
    int rc = papc_arrival_begin(c, c->rank == c->root ? PAPC_ORDER_LOCAL
                                                      : PAPC_ORDER_NONE,
                                c->root, &a);
    if (rc != MPI_SUCCESS) return rc;
    return papc_arrival_end(c, &a, bsbn_body(c, &a));
}

/* ---- cost models (issue 12), balanced arrivals ----
 * The tree is the in-order binomial tree over nranks whatever the order:
 * a holder spanning n nodes has k = ceil(log2 n) children spanning 1, 2,
 * ..., 2^(L-2) and n - 2^(L-1) (papc_stree_children), and every message
 * to a child of span s carries the map, P ints (hb = 4P bytes), and s
 * blocks.  The root orders alone (PAPC_ORDER_LOCAL: no message; the
 * arrival notices overlap).  The deepest path follows the largest child
 * (papc_bgs_big_child).
 * Traffic (sbn_traffic): the notices; every non-root receives one
 * message, P - 1 of them, carrying the map and its subtree's blocks,
 * (P-1)(h + 4P) + m Σ spans bytes (h: 64 with the background channel's
 * header, else 0). */
static papc_terms sbn_traffic(const papc_model_in *in, double header,
                              papc_terms t) {
    double n = in->P - 1;
    t = papc_bgs_notices_traffic(t, in->P);
    return papc_terms_traffic(t, n,
                              n * (header + 4.0 * in->P) +
                                  in->m * papc_bgs_binomial_span_sum(in->P));
}

/* SBN: the root posts all its children's messages at once and copies its
 * own block (sbn_root, lines 206-226), a relay receives its message
 * (MPI_Mprobe/Mrecv, line 253), unpacks the map (parse_message, line 256:
 * 4P bytes), posts its children's at once, unpacks its own block
 * meanwhile (overlapped) and waits (sbn_nonroot, lines 238-275); a leaf
 * unpacks the map and its block (line 269):
 *   T = F(P) + Σ_{relay spans s on the path} [4Pδ + F(s)] + (4P + m)δ,
 *   F(n) = γ(k+1)(α + (4P + (n-1)m/k)β),  k = ceil(log2 n)
 * (a fan-out of k messages of 4P + s m bytes, papc_bgs_fan's mean size).
 * m = 0 costs nothing (call.c); P = 1 is the copy (line 287). */
static papc_terms sbn_fanout(const papc_model_in *in, int n, double extra) {
    int k = papc_model_ceil_log2(n);
    return papc_bgs_fan(in, k, k * (extra + 4.0 * in->P) + (n - 1) * in->m);
}

papc_terms papc_scatter_sorted_binomial_model(const papc_model_in *in) {
    if (in->m <= 0) return papc_terms_zero();
    if (in->P <= 1) return papc_bgs_copy(in->m);
    double map = 4.0 * in->P;
    papc_terms t = sbn_fanout(in, in->P, 0);
    for (int s = papc_bgs_big_child(in->P); s >= 2; s = papc_bgs_big_child(s))
        t = papc_terms_add(papc_terms_add(t, papc_bgs_copy(map)),
                           sbn_fanout(in, s, 0));
    return sbn_traffic(in, 0, papc_terms_add(t, papc_bgs_copy(map + in->m)));
}

/* BSBN, from a receiving monitor on: the handler (bsbn_forward, lines
 * 312-345) unpacks the map (4P), keeps a copy of it (4P) and, per child,
 * saves, overwrites and restores the 4P bytes before the child's slice
 * (12P) and copies the message (4P + s m) into a non-blocking send
 * (papc_bg_ctx_send, line 336); the k sends fly as one fan-out with a
 * 64-byte header each.  A leaf's call takes its message, unpacks the map
 * and its block (bsbn_nonroot, lines 373-387). */
static papc_terms bsbn_below(const papc_model_in *in, int n) {
    double map = 4.0 * in->P;
    if (n <= 1) return papc_bgs_copy(map + in->m);
    int k = papc_model_ceil_log2(n);
    papc_terms t = papc_bgs_copy(2 * map + k * 4 * map + (n - 1) * in->m);
    t = papc_terms_add(t, sbn_fanout(in, n, 64));
    return papc_terms_add(t, bsbn_below(in, papc_bgs_big_child(n)));
}

/* BSBN, with the background channel: the root sends its children's
 * messages one after the other, largest subtree first, each packed (δ per
 * byte) into a blocking background send (bsbn_root, lines 351-371), then
 * copies its own block; child i (span s_i) has its message at
 *   t_i = Σ_{j<=i} [(4P + s_j m)δ + α + (64 + 4P + s_j m)β]
 * and its subtree finishes bsbn_below(s_i) later:
 *   T = max over the root's children of t_i + bsbn_below(s_i)
 * (papc_bgs_max; the root's own copy ends before its last child's leaf).
 * P = 1 is the copy (line 393). */
papc_terms papc_scatter_background_sorted_binomial_model(
    const papc_model_in *in) {
    if (in->m <= 0) return papc_terms_zero();
    if (in->P <= 1) return papc_bgs_copy(in->m);
    int L = papc_model_ceil_log2(in->P), last = in->P - (1 << (L - 1));
    int span[PAPC_STREE_MAX_CHILDREN], k = 0;
    /* Spans 2^(L-2), ..., 1 and last, largest first. */
    for (int j = L - 2; j >= -1; j--) {
        int s = j >= 0 ? 1 << j : 0;
        if (last >= s && last > 0) {
            span[k++] = last;
            last = 0;
        }
        if (s > 0) span[k++] = s;
    }
    double map = 4.0 * in->P;
    papc_terms sent = papc_terms_zero(), t = papc_terms_zero();
    for (int i = 0; i < k; i++) {
        double bytes = map + span[i] * in->m;
        sent = papc_terms_add(sent, papc_bgs_copy(bytes));
        sent = papc_terms_add(sent, papc_msg(64 + bytes));
        t = papc_bgs_max(t, papc_terms_add(sent, bsbn_below(in, span[i])));
    }
    return sbn_traffic(in, 64, t);
}
