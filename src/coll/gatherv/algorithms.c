/* algorithms.c — the gatherv algorithm table (row 0 serves every call). */
#include "../coll.h"

const papc_alg_desc papc_gatherv_algs[] = {
    {{PAPC_GATHERV, "basic_linear", "linear lin", 0, 0,
      "root receives each block in rank order (Open MPI, MPICH)"},
     papc_gatherv_basic_linear, papc_gatherv_basic_linear_model, NULL},
    {{PAPC_GATHERV, "size_aware_binomial", "tuw", 0, PAPC_FLAG_NONBLOCKING,
      "ordered size-aware binomial tree built in log2 p rounds (Traff 2018)"},
     papc_gatherv_size_aware_binomial, papc_gatherv_size_aware_binomial_model, NULL},
};
const int papc_gatherv_nalgs =
    sizeof papc_gatherv_algs / sizeof *papc_gatherv_algs;
