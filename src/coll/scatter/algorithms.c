/* algorithms.c — the scatter algorithm table (row 0 serves every call). */
#include "../coll.h"

const papc_alg_desc papc_scatter_algs[] = {
    {{PAPC_SCATTER, "basic_linear", "linear lin", 0, 0,
      "root sends each block in rank order (Open MPI basic_linear)"},
     papc_scatter_basic_linear},
    {{PAPC_SCATTER, "binomial", "bnom", 0, 0,
      "binomial tree, each holder passes half of what it holds (Open MPI "
      "binomial)"},
     papc_scatter_binomial},
};
const int papc_scatter_nalgs =
    sizeof papc_scatter_algs / sizeof *papc_scatter_algs;
