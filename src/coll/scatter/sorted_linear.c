/* PLACEHOLDER (lead) — replaced by the helper who owns this file. */
#include "../coll.h"
int papc_scatter_sorted_linear(const papc_call *c) { (void)c; return papc_error(MPI_ERR_INTERN, "sorted_linear not built yet"); }
int papc_scatter_background_sorted_linear(const papc_call *c) { (void)c; return papc_error(MPI_ERR_INTERN, "background_sorted_linear not built yet"); }
