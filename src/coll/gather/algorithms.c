/* algorithms.c — the gather algorithm table (row 0 serves every call). */
#include "../coll.h"

const papc_alg_desc papc_gather_algs[] = {
    {{PAPC_GATHER, "basic_linear", "linear lin", 0, 0,
      "root receives each block in rank order (Open MPI basic_linear)"},
     papc_gather_basic_linear, papc_gather_basic_linear_model, NULL},
    {{PAPC_GATHER, "linear_sync", "ls", 0, PAPC_FLAG_NONBLOCKING,
      "root asks each rank in turn with a zero-byte message, then takes its "
      "block in two parts (Open MPI linear_sync)"},
     papc_gather_linear_sync, papc_gather_linear_sync_model, NULL},
    {{PAPC_GATHER, "binomial", "bnom", 0, 0,
      "in-order binomial tree, subtrees forward contiguous blocks (Open MPI "
      "binomial)"},
     papc_gather_binomial, papc_gather_binomial_model, NULL},
    {{PAPC_GATHER, "sorted_linear_sync", "sls", 0,
      PAPC_FLAG_ARRIVAL_AWARE | PAPC_FLAG_NONBLOCKING,
      "linear_sync whose root asks the ranks in predicted arrival order "
      "(Proficz 2020 SLS)"},
     papc_gather_sorted_linear_sync, papc_gather_sorted_linear_sync_model,
     "linear_sync"},
    {{PAPC_GATHER, "sorted_binomial", "sbn", 0, PAPC_FLAG_ARRIVAL_AWARE,
      "binomial tree with the latest predicted ranks nearest the root "
      "(Proficz 2020 SBN)"},
     papc_gather_sorted_binomial, papc_gather_sorted_binomial_model,
     "binomial"},
    {{PAPC_GATHER, "background_sorted_linear_sync", "bsls", 0,
      PAPC_FLAG_ARRIVAL_AWARE | PAPC_FLAG_NONBLOCKING | PAPC_FLAG_BACKGROUND,
      "sorted_linear_sync whose root side runs in the monitor thread, also "
      "while the root computes (Proficz 2020 BSLS)"},
     papc_gather_background_sorted_linear_sync,
     papc_gather_background_sorted_linear_sync_model,
     "linear_sync"},
    {{PAPC_GATHER, "background_sorted_binomial", "bsbn", 0,
      PAPC_FLAG_ARRIVAL_AWARE | PAPC_FLAG_BACKGROUND,
      "sorted_binomial whose inner nodes receive in the monitor thread "
      "(Proficz 2020 BSBN)"},
     papc_gather_background_sorted_binomial,
     papc_gather_background_sorted_binomial_model,
     "binomial"},
};
const int papc_gather_nalgs = sizeof papc_gather_algs / sizeof *papc_gather_algs;
