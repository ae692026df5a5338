/* arrival_schedule.h — what the arrival-aware allreduce algorithms (PRR in
 * pre_reduced_ring.c, SLT in sorted_linear_tree.c) share: the agreed view
 * of the arrivals and the executor of a per-process segment schedule built
 * by src/topo/prr.c.  Both are defined in pre_reduced_ring.c. */
#ifndef PAPC_ALLREDUCE_ARRIVAL_SCHEDULE_H
#define PAPC_ALLREDUCE_ARRIVAL_SCHEDULE_H
#include "../coll.h"
#include "../../arrival/arrival.h"
#include "topo/prr.h"

/* Runs one process' segment schedule on the user's buffers (peers are
 * ids: order[id] is the rank). */
int papc_allreduce_run_segments(const papc_call *c, const int *order,
                                int nseg, const papc_seg_step *steps,
                                int nsteps);
/* The agreed order and arrivals (by id), with the testing knob applied,
 * and this rank's id (its position in order). */
int papc_allreduce_arrival_view(const papc_call *c, const papc_arrival *a,
                                int *order, double *arrival, int *id);
#endif
