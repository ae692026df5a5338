/* PLACEHOLDER (lead) — replaced by the helper who owns this file. */
#include "../coll.h"
int papc_allreduce_pre_reduced_ring(const papc_call *c) { (void)c; return papc_error(MPI_ERR_INTERN, "not built yet"); }
