/* clairvoyant.h — the Clairvoyant reduce executor (reduce/clairvoyant.c),
 * shared with allreduce/clairvoyant.c. */
#ifndef PAPC_COLL_REDUCE_CLAIRVOYANT_H
#define PAPC_COLL_REDUCE_CLAIRVOYANT_H
#include "../coll.h"
#include "../../arrival/arrival.h"

/* Reduces every rank's vector (input: c->sendcount elements of
 * c->sendtype) to root by the Clairvoyant schedule built from the agreed
 * arrival view *a; at root the result goes to output (which may equal
 * input), elsewhere output is unused.  Sub-tag sub of c's tags.  Call on
 * every rank with the same root, a and c->segsize. */
int papc_clv_reduce_exec(const papc_call *c, const papc_arrival *a, int root,
                         const void *input, void *output, int sub);
/* The same with the two-stage plan of reduce clairvoyant_node (within each
 * node of *nodes to its leader, then among the leaders:
 * src/clairvoyant/node.h), from the same agreed view; *nodes must be the
 * same on every rank (clairvoyant_node.c).  Its plans are cached under a
 * site of their own (collective + PAPC_CLV_NODE_SITE). */
struct papc_clv_nodes;
#define PAPC_CLV_NODE_SITE 0x10000
int papc_clv_reduce_exec_nodes(const papc_call *c, const papc_arrival *a,
                               int root, const void *input, void *output,
                               int sub, const struct papc_clv_nodes *nodes);
/* Process-wide counts of the executor's schedule cache (issue 15): plans
 * found cached, looked up and not found (with a cache), evicted, and
 * schedules generated (with or without a cache).  For tests and tools;
 * any pointer may be NULL. */
void papc_clv_cache_counters(long long *hits, long long *misses,
                             long long *evictions, long long *generated);
/* Its cost model with balanced arrivals (issue 12; no MPI): the rounds of
 * the schedule and the copies, without the agreement. */
papc_terms papc_clv_reduce_exec_model(const papc_model_in *in);
/* Its traffic, added to t: NP - 1 segment messages of s bytes, (P - 1) m
 * reduced (see clairvoyant.c). */
papc_terms papc_clv_reduce_exec_traffic(const papc_model_in *in,
                                        papc_terms t);
#endif
