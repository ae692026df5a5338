/* algorithms.c — the gather algorithm table (row 0 serves every call). */
#include "../coll.h"

const papc_alg_desc papc_gather_algs[] = {
    {{PAPC_GATHER, "basic_linear", "linear lin", 0, 0,
      "root receives each block in rank order (Open MPI basic_linear)"},
     papc_gather_basic_linear},
    {{PAPC_GATHER, "linear_sync", "ls", 0, PAPC_FLAG_NONBLOCKING,
      "root asks each rank in turn with a zero-byte message, then takes its "
      "block in two parts (Open MPI linear_sync)"},
     papc_gather_linear_sync},
    {{PAPC_GATHER, "binomial", "bnom", 0, 0,
      "in-order binomial tree, subtrees forward contiguous blocks (Open MPI "
      "binomial)"},
     papc_gather_binomial},
};
const int papc_gather_nalgs = sizeof papc_gather_algs / sizeof *papc_gather_algs;
