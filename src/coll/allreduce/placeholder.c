/* placeholder.c — TEMPORARY scaffolding while the algorithms of this folder are written; delete this file when they all exist. */
#include "../coll.h"
int papc_allreduce_basic_linear(const papc_call *c) { (void)c; return papc_error(MPI_ERR_UNSUPPORTED_OPERATION, "papc_allreduce_basic_linear pending"); }
int papc_allreduce_recursive_doubling(const papc_call *c) { (void)c; return papc_error(MPI_ERR_UNSUPPORTED_OPERATION, "papc_allreduce_recursive_doubling pending"); }
int papc_allreduce_ring(const papc_call *c) { (void)c; return papc_error(MPI_ERR_UNSUPPORTED_OPERATION, "papc_allreduce_ring pending"); }
int papc_allreduce_segmented_ring(const papc_call *c) { (void)c; return papc_error(MPI_ERR_UNSUPPORTED_OPERATION, "papc_allreduce_segmented_ring pending"); }
int papc_allreduce_rabenseifner(const papc_call *c) { (void)c; return papc_error(MPI_ERR_UNSUPPORTED_OPERATION, "papc_allreduce_rabenseifner pending"); }
