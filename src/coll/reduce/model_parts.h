/*
 * model_parts.h — pieces the cost models of reduce and allreduce share
 * (issue 12; model/model.h).  Pure: no MPI.  The models themselves sit
 * beside their run functions; the reduce-scatter phases' pieces (fold,
 * halving, ring) are in reduce_scatter.c.
 */
#ifndef PAPC_COLL_REDUCE_MODEL_PARTS_H
#define PAPC_COLL_REDUCE_MODEL_PARTS_H
#include "model/model.h"

/* The calls no algorithm sees (src/core/call.c, reduce_like): m = 0 returns
 * at once, P = 1 copies sendbuf into recvbuf (nothing with MPI_IN_PLACE;
 * the model takes the copy).  Returns 1 and sets *t for those. */
int papc_model_reduce_trivial(const papc_model_in *in, papc_terms *t);

/* γ(p) of the call's profile. */
double papc_model_g(const papc_model_in *in, int p);

/* The first segment of a pipeline cutting whole segments of segsize bytes
 * (the last one shorter): segsize, or m when unsegmented or m <= segsize.
 * The tree engine and papc_segment_count cut this way. */
double papc_model_first_segment(double m, double segsize);

/* The subtree of the largest child of a node whose (in-order or plain)
 * binomial subtree spans n >= 2 nodes (topo.c: child at offset 2^i < n
 * spans min(2^i, n - 2^i)); the deepest path of a binomial tree follows
 * it.  The node itself has papc_model_ceil_log2(n) children. */
int papc_model_binomial_big_child(int n);

/* The agreement of an arrival-aware call (papc_arrival_begin with
 * PAPC_ORDER_AGREED, src/arrival/exchange.c), with balanced arrivals and
 * a monitor serving the communicator: the decider decides when it arrives
 * and posts its decision, 1 + 2P doubles, to the P - 1 others with
 * non-blocking sends, γ(P)(α + 8(2P + 1)β); the others' 32-byte notices
 * to the decider run at the same time and are shorter. */
papc_terms papc_model_agreement(const papc_model_in *in);
/* Its traffic (the contention terms), added to t: the P - 1 notices of
 * 32 bytes to the decider and the P - 1 decisions of 8(2P + 1) bytes from
 * it, 2(P - 1) messages and (P - 1)(16P + 40) bytes.  Not counted: the
 * monitor's arrival estimates (sent only between calls far apart). */
papc_terms papc_model_agreement_traffic(papc_terms t, int P);

/* The arrival runtime's point-to-point model before a monitor has fitted
 * its own (papc_arrival_begin, src/arrival/exchange.c): what SLT and
 * Clairvoyant size their segments with when no fit is known.  A model
 * knows no fitted value, so it sizes them with these. */
#define PAPC_MODEL_ARRIVAL_ALPHA 0.8e-6
#define PAPC_MODEL_ARRIVAL_BETA 1.3e-10
#define PAPC_MODEL_ARRIVAL_GAMMA 2.5e-10

#endif
