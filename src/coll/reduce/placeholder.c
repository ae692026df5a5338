/* placeholder.c — TEMPORARY scaffolding while the algorithms of this folder are written; delete this file when they all exist. */
#include "../coll.h"
int papc_reduce_basic_linear(const papc_call *c) { (void)c; return papc_error(MPI_ERR_UNSUPPORTED_OPERATION, "papc_reduce_basic_linear pending"); }
int papc_reduce_binomial(const papc_call *c) { (void)c; return papc_error(MPI_ERR_UNSUPPORTED_OPERATION, "papc_reduce_binomial pending"); }
int papc_reduce_rabenseifner(const papc_call *c) { (void)c; return papc_error(MPI_ERR_UNSUPPORTED_OPERATION, "papc_reduce_rabenseifner pending"); }
int papc_reduce_ring(const papc_call *c) { (void)c; return papc_error(MPI_ERR_UNSUPPORTED_OPERATION, "papc_reduce_ring pending"); }
