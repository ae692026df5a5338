/*
 * model_bgs.h — pieces the cost models of bcast, gather, scatter, gatherv
 * and scatterv share (issue 12; model/model.h).  Pure: no MPI.  The models
 * themselves sit beside their run functions (papc_<coll>_<row>_model).
 *
 * What every one of these models assumes (the model knows only P, m, the
 * segment size and the eager limit):
 *  - the root is rank 0 (papc-tune times every rooted call with root 0);
 *    where another root costs more the model's comment says how much;
 *  - contiguous data (packing of non-contiguous types is not modelled);
 *  - balanced arrivals (every rank enters together) and, for the
 *    arrival-aware rows, a monitor serving the communicator (with a
 *    background channel for the B* rows): the messages of the arrival
 *    runtime are counted where they lie on the critical path;
 *  - the time of a call is the time its last rank leaves it (papc-tune
 *    times the maximum over ranks); where two paths may be the last
 *    depending on α, β and δ, papc_bgs_max takes the later one term by
 *    term (an upper bound, exact when one path is the longer in every
 *    term);
 *  - a non-blocking fan-out or fan-in of k messages costs γ(k+1) times one
 *    message (Formula 3 of model-based-selection.md), with their mean size
 *    when the sizes differ (at γ(k+1) = k, a serialised link, that is their
 *    total bytes);
 *  - segments as the code cuts them: only the segmented bcast rows (chain,
 *    k_chain, binary, split_binary, binomial) read m_s, n_s = ceil(m/m_s)
 *    (papc_model_segments; the engine also caps a segment at 1 GiB);
 *    bcast basic_linear and every gather, scatter, gatherv and scatterv
 *    row ignore it (their runs cut no segments);
 *  - a local copy of b bytes costs δb where nothing overlaps it: the root's
 *    copy of its own block always counts (its CPU also makes the receive
 *    copies under shared memory), a relay's copy of its own block made
 *    while its children's messages are in flight does not, copies a rank
 *    must make before it sends or after its last message does.
 */
#ifndef PAPC_COLL_MODEL_BGS_H
#define PAPC_COLL_MODEL_BGS_H
#include "model/model.h"

/* γ(p) of the call's profile (1 without one). */
double papc_bgs_g(const papc_model_in *in, int p);
/* A local copy of bytes bytes: δ·bytes. */
papc_terms papc_bgs_copy(double bytes);
/* The later of two concurrent paths, term by term (see above). */
papc_terms papc_bgs_max(papc_terms a, papc_terms b);
/* k non-blocking messages of total bytes in all, posted together by one
 * process and waited for: γ(k+1)(α + (total/k)β); nothing for k <= 0. */
papc_terms papc_bgs_fan(const papc_model_in *in, int k, double total);
/* The subtree span of the largest child of a binomial node spanning n >= 2
 * nodes: topo.c (binomial and in-order binomial) and sorted_tree.c give it
 * children spanning 1, 2, ..., 2^(L-2) and n - 2^(L-1) nodes, L =
 * ceil(log2 n) (so L children).  1 for n <= 2. */
int papc_bgs_big_child(int n);
/* The agreed order of an arrival-aware call (papc_arrival_begin with
 * PAPC_ORDER_AGREED, src/arrival/exchange.c agreed_as_decider): the root
 * decides when it arrives and sends its decision, 1 + 2P doubles, to the
 * P - 1 others with non-blocking sends, which wait for it in
 * agreed_from_decider: γ(P)(α + 8(2P+1)β).  The others' 32-byte notices to
 * the root run at the same time (no one waits for them).  0 for P = 1. */
papc_terms papc_bgs_decision(const papc_model_in *in);
/* PAPC_GATHER_FIRST_SEGMENT as call.c and the BSLS job read it (default
 * 1024 bytes): the first part of gather linear_sync and its sorted twins. */
double papc_bgs_first_segment(void);

/* ---- traffic: the contention terms (model.h msgs, volume) ----
 * What ALL ranks send in the whole collective, on the critical path or
 * not: every message (each segment, chunk, zero-byte or control message
 * -- go-aheads, arrival notices, decisions, construction steps) and its
 * bytes.  The pieces above carry none (their msgs and volume are 0):
 * papc_bgs_max keeps one path's terms, whereas traffic is a sum over
 * every rank, so each model adds its collective's totals once, at its top,
 * with papc_terms_traffic.  Not counted: the arrival runtime's estimates
 * (P - 1 messages, sent between calls only when the next call is at least
 * 100 us away, exchange.c papc_arrival_end). */

/* Messages of a broadcast of len bytes along one hop: ceil(len / s) with s
 * as papc_bgs_bcast_seg cuts it; 0 for len <= 0. */
double papc_bgs_bcast_nseg(double segsize, double len);
/* Σ over the non-root nodes of the in-order binomial tree of n nodes of
 * their subtree spans (children spans as papc_bgs_big_child's): the
 * blocks a binomial gather or scatter moves in all.  0 for n <= 1. */
double papc_bgs_binomial_span_sum(int n);
/* t plus the arrival notices of an arrival-aware call served by the
 * monitor: every rank but the decider sends it 4 doubles (exchange.c
 * papc_arrival_begin): P - 1 messages, 32(P - 1) bytes. */
papc_terms papc_bgs_notices_traffic(papc_terms t, int P);
/* t plus the notices and the decision of PAPC_ORDER_AGREED: P - 1 more
 * messages of 8(2P + 1) bytes (papc_bgs_decision). */
papc_terms papc_bgs_agreed_traffic(papc_terms t, int P);

/* ---- the segmented tree broadcast (tree_engine.c) ---- */

/* Bytes per segment of a broadcast of len bytes, cut as
 * papc_tree_seg_bytes cuts them: segsize (0 or more than len: len), at
 * most 2^30 (one int of MPI_BYTE). */
double papc_bgs_bcast_seg(double segsize, double len);

/* A root-to-inner-node path of a broadcast tree as runs of hops with the
 * same number of children: the root first, then each inner node down to
 * the last one that forwards. */
typedef struct papc_bgs_run {
    int fanout; /* children of each of these nodes */
    int count;  /* how many consecutive nodes of the path */
} papc_bgs_run;

/* Algorithm 1 (tree_engine.c: bcast_from_root, bcast_below_root) pipelining
 * len bytes down the path: n_s = ceil(len/s) segments of s bytes (the last
 * s_l <= s), a node with k children spends g = γ(k+1) (α + sβ) per segment
 * (forward_segment: k isends then waitall), the next segment's receive is
 * pre-posted, so node h handles segment i once it has it and has finished
 * segment i-1.  The last node finishes at the longest monotone walk
 * through (hop, segment) of these costs: a walk through hop h' with
 * segments 1..n-1 spent at the widest hop before h' and the short last
 * segment carried from h' down:
 *   max over h' of  Σ_{h<=h'} g_h c_s + (n_s - 2) max_{h<=h'} g_h c_s
 *                   + Σ_{h>=h'} g_h c_l,      c = α + (bytes)β,
 * taken for the α and the β coefficient apart (both exact when the
 * segments are equal: (Σ g + (n_s - 1) g_0)(α + m/n_s β), eq. 7-11 of the
 * paper with the code's trees).  One segment: Σ g (α + len β). */
papc_terms papc_bgs_pipeline(const papc_model_in *in, const papc_bgs_run *run,
                             int nrun, double len, double segsize);

/* The leftmost path of the breadth-first binary tree (topo.c kary_node,
 * children 2v+1, 2v+2), the deepest and at every level the widest: nodes
 * 2^j - 1, j = 0..floor(log2 P) - 1, forward, node 2^j - 1 to two children
 * when 2^(j+1) < P, else to one.  Fills run[floor(log2 P)] (32 suffice),
 * returns floor(log2 P).  bcast binary and split_binary's tree phase. */
int papc_bgs_binary_path(int P, papc_bgs_run *run);

/* ---- binomial gathers (binomial.c, sorted_binomial.c) ---- */

/* How the messages of a binomial gather are made. */
typedef struct papc_bgs_gather_costs {
    double header;      /* bytes every message carries besides the data */
    int sender_packs;   /* 1: the sender packs its message first (δ·bytes) */
    int receiver_copies;/* 1: the receiver copies each message out */
    int relay_copies_first; /* 1: a relay copies its own block before it
                               takes its children's (0: the copy overlaps) */
} papc_bgs_gather_costs;

/* The in-order binomial gather of m-byte blocks to rank 0 (vrank 0): every
 * node posts the receives of all its children at once; children of the same
 * subtree size s (c of them) are ready together and come as one fan-in,
 * γ(c+1)(α + (header + s m)β), children of different sizes one after the
 * other, smallest first, each once ready; a node sends its subtree when all
 * are in.  Returns the root's completion, its own copy (δm) included. */
papc_terms papc_bgs_gather_tree(const papc_model_in *in,
                                const papc_bgs_gather_costs *k);

#endif /* PAPC_COLL_MODEL_BGS_H */
