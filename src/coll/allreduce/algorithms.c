/* algorithms.c — the allreduce algorithm table (row 0 serves every call). */
#include "../coll.h"

const papc_alg_desc papc_allreduce_algs[] = {
    {{PAPC_ALLREDUCE, "basic_linear", "linear lin", 0, 0,
      "linear reduce to rank 0, then linear broadcast (Open MPI "
      "basic_linear)"},
     papc_allreduce_basic_linear,
     papc_allreduce_basic_linear_model, NULL},
    {{PAPC_ALLREDUCE, "recursive_doubling", "rd butterfly", 0, 0,
      "log2 P pairwise exchanges, order kept for non-commutative ops (Open "
      "MPI, MPICH)"},
     papc_allreduce_recursive_doubling,
     papc_allreduce_recursive_doubling_model, NULL},
    {{PAPC_ALLREDUCE, "ring", "", PAPC_RESTRICT_COMMUTATIVE,
      PAPC_FLAG_NONBLOCKING,
      "ring reduce-scatter then ring allgather, P blocks (Open MPI ring)"},
     papc_allreduce_ring,
     papc_allreduce_ring_model, NULL},
    {{PAPC_ALLREDUCE, "segmented_ring", "sring", PAPC_RESTRICT_COMMUTATIVE,
      PAPC_FLAG_SEGMENTED | PAPC_FLAG_NONBLOCKING,
      "ring whose blocks are pipelined in segments (Open MPI "
      "segmented_ring)"},
     papc_allreduce_segmented_ring,
     papc_allreduce_segmented_ring_model, NULL},
    {{PAPC_ALLREDUCE, "rabenseifner", "reduce_scatter_allgather",
      PAPC_RESTRICT_COMMUTATIVE, 0,
      "recursive-halving reduce-scatter, recursive-doubling allgather "
      "(Rabenseifner; MPICH, Open MPI)"},
     papc_allreduce_rabenseifner,
     papc_allreduce_rabenseifner_model, NULL},
    {{PAPC_ALLREDUCE, "sorted_linear_tree", "slt", PAPC_RESTRICT_COMMUTATIVE,
      PAPC_FLAG_ARRIVAL_AWARE | PAPC_FLAG_SEGMENTED | PAPC_FLAG_NONBLOCKING,
      "pipelined chain in predicted arrival order, reduce then override "
      "(Proficz 2018 SLT)"},
     papc_allreduce_sorted_linear_tree,
     papc_allreduce_sorted_linear_tree_model, NULL},
    {{PAPC_ALLREDUCE, "pre_reduced_ring", "prr", PAPC_RESTRICT_COMMUTATIVE,
      PAPC_FLAG_ARRIVAL_AWARE | PAPC_FLAG_NONBLOCKING,
      "ring in predicted arrival order whose early ranks pre-reduce "
      "segments; pre-steps chosen by the cost model (Proficz 2018 PRR, "
      "issue 15 rule)"},
     papc_allreduce_pre_reduced_ring,
     papc_allreduce_pre_reduced_ring_model, NULL},
    {{PAPC_ALLREDUCE, "pre_reduced_ring_published", "prr_paper prr_published",
      PAPC_RESTRICT_COMMUTATIVE,
      PAPC_FLAG_ARRIVAL_AWARE | PAPC_FLAG_NONBLOCKING,
      "pre_reduced_ring with the paper's pre-step rule (Proficz 2018 "
      "Fig. 7 lines 1-6)"},
     papc_allreduce_pre_reduced_ring_published,
     papc_allreduce_pre_reduced_ring_published_model, NULL},
    {{PAPC_ALLREDUCE, "clairvoyant", "clv", PAPC_RESTRICT_COMMUTATIVE,
      PAPC_FLAG_ARRIVAL_AWARE | PAPC_FLAG_SEGMENTED | PAPC_FLAG_NONBLOCKING,
      "Clairvoyant reduce to the predicted earliest rank, then binomial "
      "broadcast (Marendic et al.; Proficz & Ocetkiewicz)"},
     papc_allreduce_clairvoyant,
     papc_allreduce_clairvoyant_model, NULL},
};
const int papc_allreduce_nalgs =
    sizeof papc_allreduce_algs / sizeof *papc_allreduce_algs;
