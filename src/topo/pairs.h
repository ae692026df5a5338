/*
 * pairs.h — who exchanges with whom in the arrival monitor's "busy" fit
 * (src/arrival/monitor.c, fit_model; issue 16): a pure function of the
 * ranks' node labels, unit-tested in tests/unit/test_pairs.c.
 *
 * The busy fit times a round in which every rank sends to and receives
 * from a partner at once (an MPI_Sendrecv), as in a Clairvoyant
 * schedule's rounds, and the slowest pair's figure is agreed.  Until
 * issue 16 the partner was rank ^ 1, which is on the same node whenever
 * ranks are placed in blocks (16 to a node on SMPI's fattree4096, Open
 * MPI's --map-by core on a real cluster), so the fit measured the
 * loopback where a schedule's segments cross the network.  Now, where
 * there is more than one node, every partner is on another node when
 * that is possible.
 */
#ifndef PAPC_PAIRS_H
#define PAPC_PAIRS_H

/* Partners of the busy fit for P ranks whose node labels are node[0..P)
 * (any ints; ranks with equal labels share a node).  first[r] is rank r's
 * partner in the first round, second[r] in the second (-1: none).  Each
 * round is a matching (first[first[r]] = r where first[r] >= 0; the
 * same for second), so every pair can run one MPI_Sendrecv.
 *
 *  one node (every label equal): first[r] = r ^ 1 when that is below P,
 *    else -1 (the odd one out of an odd P idles); no second round.  This
 *    is the fit's pairing before issue 16, unchanged on one node.
 *  more nodes: the ranks in order "largest node first (ties: the smaller
 *    label), then the other nodes by label, each node's ranks ascending";
 *    position i < h = floor(P/2) pairs with position i + h.  A node of at
 *    most h ranks occupies fewer than h consecutive positions, so it
 *    never holds both ends of a pair: every pair crosses nodes when no
 *    node holds more than half the ranks.  Otherwise the largest node's
 *    n_big - h surplus pairs stay on it (unavoidable: there are only
 *    P - n_big others); the count is returned in *intra.  For odd P the
 *    last position (on the last node of the order, not the largest) gets
 *    position 0 (on the largest node) in a second round: every rank has a
 *    partner on another node, or, in the surplus case, on its own.
 *
 * Deterministic: the same labels give the same pairs on every rank.
 * Returns the number of nodes (>= 1), or -1 when P < 1, an argument is
 * NULL or memory is short (first and second then all -1).  intra may be
 * NULL. */
int papc_busy_pairs(int P, const int *node, int *first, int *second,
                    int *intra);

/* ranks[0..P) = 0..P-1 sorted by (label[r], r): each node's ranks
 * ascending, the nodes by label.  0, or -1 without memory. */
int papc_ranks_by_label(int P, const int *label, int *ranks);

#endif /* PAPC_PAIRS_H */
