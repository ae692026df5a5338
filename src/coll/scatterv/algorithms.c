/* algorithms.c — the scatterv algorithm table (row 0 serves every call). */
#include "../coll.h"

const papc_alg_desc papc_scatterv_algs[] = {
    {{PAPC_SCATTERV, "basic_linear", "linear lin", 0, 0,
      "root sends each block in rank order (Open MPI, MPICH)"},
     papc_scatterv_basic_linear, papc_scatterv_basic_linear_model, NULL},
    {{PAPC_SCATTERV, "size_aware_binomial", "tuw", 0, PAPC_FLAG_NONBLOCKING,
      "ordered size-aware binomial tree built in log2 p rounds (Traff 2018)"},
     papc_scatterv_size_aware_binomial,
     papc_scatterv_size_aware_binomial_model, NULL},
};
const int papc_scatterv_nalgs =
    sizeof papc_scatterv_algs / sizeof *papc_scatterv_algs;
