/* op.c — local reduction in MPI's operand order. */
#include "core.h"

int papc_reduce_local(const void *in, void *inout, int count, MPI_Datatype t,
                      MPI_Op op) {
    if (count <= 0) return MPI_SUCCESS;
    PAPC_CHECK(MPI_Reduce_local(in, inout, count, t, op));
    return MPI_SUCCESS;
}
