/* placeholder.c — TEMPORARY scaffolding while the algorithms of this folder are written; delete this file when they all exist. */
#include "../coll.h"
int papc_bcast_basic_linear(const papc_call *c) { (void)c; return papc_error(MPI_ERR_UNSUPPORTED_OPERATION, "papc_bcast_basic_linear pending"); }
int papc_bcast_chain(const papc_call *c) { (void)c; return papc_error(MPI_ERR_UNSUPPORTED_OPERATION, "papc_bcast_chain pending"); }
int papc_bcast_k_chain(const papc_call *c) { (void)c; return papc_error(MPI_ERR_UNSUPPORTED_OPERATION, "papc_bcast_k_chain pending"); }
int papc_bcast_binary(const papc_call *c) { (void)c; return papc_error(MPI_ERR_UNSUPPORTED_OPERATION, "papc_bcast_binary pending"); }
int papc_bcast_split_binary(const papc_call *c) { (void)c; return papc_error(MPI_ERR_UNSUPPORTED_OPERATION, "papc_bcast_split_binary pending"); }
int papc_bcast_binomial(const papc_call *c) { (void)c; return papc_error(MPI_ERR_UNSUPPORTED_OPERATION, "papc_bcast_binomial pending"); }
