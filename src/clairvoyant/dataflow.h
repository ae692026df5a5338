/*
 * dataflow.h — the exits a Clairvoyant schedule gives when it runs as the
 * executor runs it (src/coll/reduce/clairvoyant.c, run_events): pure C,
 * no MPI; the Clairvoyant rows' price (src/model/arrival_model.c).
 *
 * The executor does not run rounds.  A process starts at its arrival,
 * posts its events in schedule order, and a send of segment j waits only
 * for the receives of j scheduled before it; a segment (at most the eager
 * limit) leaves without its receiver, so a process whose last event is a
 * send leaves when that send is done, whether its receiver has come or
 * not.  papc_clv_dataflow_exits follows exactly that, in Hockney terms:
 *
 *   post_p   = max(post_p, ready_p[j])          the send is posted
 *   start    = max(post_p, up_p, down_q)        its links are free
 *   done     = start + link;  up_p = down_q = done
 *   ready_q[j] = max(ready_q[j], max(done, a_q) + apply)
 *
 * with post_p = ready_p[*] = a_p at first, up and down the two directions
 * of every process' link (one message at a time each: a switch port's
 * FIFO), link = α + sβ and apply = sγ for s-byte segments.  A process'
 * exit is its last send done or its last receive applied, whichever is
 * later.  Sends are taken in round order over all processes: a send
 * depends only on receives of earlier rounds (a round lists a process'
 * send before its receive), so the order is a topological one, and it is
 * the order in which the links see the messages when the processes
 * follow the plan.
 *
 * Why (issue 15, session 23): the closed form (papc_clv_model_length,
 * non-roots out N rounds after their arrival) underpriced rand-late
 * (8 MiB at 200 ms on the emulated cluster: 0.81 x the measured mean;
 * this dataflow 0.92 x): there the root comes late too, and early
 * processes hold partial sums the schedule sends on only when later
 * processes come.
 */
#ifndef PAPC_CLV_DATAFLOW_H
#define PAPC_CLV_DATAFLOW_H
#include "schedule.h"

/* F[p] for every process of s from arrival[p] (any unit; link and apply
 * in the same unit, both >= 0).  0, or -1 on bad input or no memory (F
 * untouched). */
int papc_clv_dataflow_exits(const papc_clv_schedule *s, const double *arrival,
                            double link, double apply, double *F);

#endif /* PAPC_CLV_DATAFLOW_H */
