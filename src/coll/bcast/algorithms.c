/* algorithms.c — the bcast algorithm table (row 0 serves every call). */
#include "../coll.h"

#define SEG (PAPC_FLAG_SEGMENTED | PAPC_FLAG_NONBLOCKING)
const papc_alg_desc papc_bcast_algs[] = {
    {{PAPC_BCAST, "basic_linear", "linear lin", 0, PAPC_FLAG_NONBLOCKING,
      "root sends the whole message to every rank (Open MPI basic_linear)"},
     papc_bcast_basic_linear, papc_bcast_basic_linear_model, NULL},
    {{PAPC_BCAST, "chain", "pipeline", 0, SEG,
      "segmented pipeline along one chain (Open MPI chain, fanout 1)"},
     papc_bcast_chain, papc_bcast_chain_model, NULL},
    {{PAPC_BCAST, "k_chain", "kchain", 0, SEG,
      "segmented, root feeds K = 4 chains (Open MPI chain, fanout 4)"},
     papc_bcast_k_chain, papc_bcast_k_chain_model, NULL},
    {{PAPC_BCAST, "binary", "bintree", 0, SEG,
      "segmented balanced binary tree (Open MPI binary)"},
     papc_bcast_binary, papc_bcast_binary_model, NULL},
    {{PAPC_BCAST, "split_binary", "split_bintree", 0, SEG,
      "halves down the two binary subtrees, then pairs swap halves (Open "
      "MPI split_binary)"},
     papc_bcast_split_binary, papc_bcast_split_binary_model, NULL},
    {{PAPC_BCAST, "binomial", "bnom bmtree", 0, SEG,
      "segmented balanced binomial tree (Open MPI binomial)"},
     papc_bcast_binomial, papc_bcast_binomial_model, NULL},
    {{PAPC_BCAST, "knomial", "kntree kmtree", 0, SEG,
      "segmented k-nomial tree, radix PAPC_KNOMIAL_RADIX (default 4) (Open "
      "MPI knomial, MVAPICH2)"},
     papc_bcast_knomial, papc_bcast_knomial_model, NULL},
};
const int papc_bcast_nalgs = sizeof papc_bcast_algs / sizeof *papc_bcast_algs;
