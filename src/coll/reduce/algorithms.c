/* algorithms.c — the reduce algorithm table (row 0 serves every call). */
#include "../coll.h"

const papc_alg_desc papc_reduce_algs[] = {
    {{PAPC_REDUCE, "basic_linear", "linear lin", 0, 0,
      "root receives and reduces every rank's vector in rank order (Open "
      "MPI basic_linear)"},
     papc_reduce_basic_linear,
     papc_reduce_basic_linear_model, NULL},
    {{PAPC_REDUCE, "binomial", "bnom", 0,
      PAPC_FLAG_SEGMENTED | PAPC_FLAG_NONBLOCKING,
      "segmented binomial tree; rank-ordered tree for non-commutative ops "
      "(Open MPI binomial, MPICH binomial)"},
     papc_reduce_binomial,
     papc_reduce_binomial_model, NULL},
    {{PAPC_REDUCE, "rabenseifner", "reduce_scatter_gather", 
      PAPC_RESTRICT_COMMUTATIVE, 0,
      "recursive-halving reduce-scatter, then binomial gather of the "
      "pieces (Rabenseifner; Open MPI, MPICH)"},
     papc_reduce_rabenseifner,
     papc_reduce_rabenseifner_model, NULL},
    {{PAPC_REDUCE, "ring", "", PAPC_RESTRICT_COMMUTATIVE,
      PAPC_FLAG_NONBLOCKING,
      "ring reduce-scatter in P-1 steps, then every rank sends its reduced "
      "block to the root"},
     papc_reduce_ring,
     papc_reduce_ring_model, NULL},
    {{PAPC_REDUCE, "radix_k", "rxx radixk", PAPC_RESTRICT_COMMUTATIVE,
      PAPC_FLAG_NONBLOCKING,
      "Radix-k: direct-send reduce-scatter in groups of preferred sizes "
      "(PAPC_RADIX_K, default 8,4,2), gather back through the groups "
      "(Peterka et al. SC'09; RXX of Proficz & Ocetkiewicz)"},
     papc_reduce_radix_k,
     papc_reduce_radix_k_model, NULL},
    {{PAPC_REDUCE, "clairvoyant", "clv", PAPC_RESTRICT_COMMUTATIVE,
      PAPC_FLAG_ARRIVAL_AWARE | PAPC_FLAG_SEGMENTED | PAPC_FLAG_NONBLOCKING,
      "Clairvoyant schedule over segments from the agreed arrival "
      "prediction (Marendic et al.; Proficz & Ocetkiewicz)"},
     papc_reduce_clairvoyant,
     papc_reduce_clairvoyant_model, NULL},
    {{PAPC_REDUCE, "clairvoyant_node", "clvn clv_node",
      PAPC_RESTRICT_COMMUTATIVE,
      PAPC_FLAG_ARRIVAL_AWARE | PAPC_FLAG_SEGMENTED | PAPC_FLAG_NONBLOCKING,
      "Clairvoyant within each node to a leader, then among the leaders "
      "(one vector per node crosses the network; issue 16)"},
     papc_reduce_clairvoyant_node,
     papc_reduce_clairvoyant_node_model, NULL},
};
const int papc_reduce_nalgs = sizeof papc_reduce_algs / sizeof *papc_reduce_algs;
