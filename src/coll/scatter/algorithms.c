/* algorithms.c — the scatter algorithm table (row 0 serves every call). */
#include "../coll.h"

const papc_alg_desc papc_scatter_algs[] = {
    {{PAPC_SCATTER, "basic_linear", "linear lin", 0, 0,
      "root sends each block in rank order (Open MPI basic_linear)"},
     papc_scatter_basic_linear, papc_scatter_basic_linear_model, NULL},
    {{PAPC_SCATTER, "binomial", "bnom", 0, 0,
      "binomial tree, each holder passes half of what it holds (Open MPI "
      "binomial)"},
     papc_scatter_binomial, papc_scatter_binomial_model, NULL},
    {{PAPC_SCATTER, "linear_nb", "lnb", 0, 0,
      "root posts every block's send at once, then waits (Open MPI "
      "linear_nb)"},
     papc_scatter_linear_nb, papc_scatter_linear_nb_model, NULL},
    {{PAPC_SCATTER, "sorted_linear", "slin sln", 0,
      PAPC_FLAG_ARRIVAL_AWARE,
      "root sends the blocks in predicted arrival order (Proficz 2020 SLIN)"},
     papc_scatter_sorted_linear, papc_scatter_sorted_linear_model,
     "linear_nb"},
    {{PAPC_SCATTER, "sorted_binomial", "sbn", 0, PAPC_FLAG_ARRIVAL_AWARE,
      "binomial tree whose early levels go to the earliest predicted ranks "
      "(Proficz 2020 SBN)"},
     papc_scatter_sorted_binomial, papc_scatter_sorted_binomial_model,
     "binomial"},
    {{PAPC_SCATTER, "background_sorted_linear", "bsln bslin", 0,
      PAPC_FLAG_ARRIVAL_AWARE | PAPC_FLAG_BACKGROUND,
      "sorted_linear whose receivers take their block in the monitor thread "
      "while still computing (Proficz 2020 BSLN)"},
     papc_scatter_background_sorted_linear,
     papc_scatter_background_sorted_linear_model,
     "linear_nb"},
    {{PAPC_SCATTER, "background_sorted_binomial", "bsbn", 0,
      PAPC_FLAG_ARRIVAL_AWARE | PAPC_FLAG_BACKGROUND,
      "sorted_binomial whose inner nodes receive and forward in the monitor "
      "thread (Proficz 2020 BSBN)"},
     papc_scatter_background_sorted_binomial,
     papc_scatter_background_sorted_binomial_model,
     "binomial"},
};
const int papc_scatter_nalgs =
    sizeof papc_scatter_algs / sizeof *papc_scatter_algs;
