/* placeholder.c — TEMPORARY scaffolding while the algorithms of this folder are written; delete this file when they all exist. */
#include "../coll.h"
int papc_scatter_binomial(const papc_call *c) { (void)c; return papc_error(MPI_ERR_UNSUPPORTED_OPERATION, "papc_scatter_binomial pending"); }
