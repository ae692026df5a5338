/*
 * export_driver.c — the exports of tools/tune_export.h from a profile file,
 * for check-export-ompi.sh and check-export-mpich.sh when papc-tune is not
 * built (issue 12, item 6).  papc-tune --profile FILE --export-ompi F does
 * the same through the same header.
 *
 *   export_driver PROFILE PMIN PMAX [--ompi FILE] [--mpich FILE]
 *   export_driver --synthetic PMIN PMAX [--ompi FILE] [--mpich FILE]
 *
 * --synthetic writes from fixed made-up predictions instead of a profile's
 * (below), so that the file formats can be checked against the libraries
 * for every collective whatever cost models this papcoll has.  Exit status
 * 0, or 1 with one line on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "papcoll.h"
#include "../../tools/tune_export.h"

/* Made-up seconds, m in bytes: a winner below a boundary and another
 * (segmented where the library segments) above it, each unlike Open MPI
 * 4.1's own choice at P = 4 for the sizes check-export-ompi.sh probes on
 * either side of the boundaries (the boundary of gather and scatter is a
 * block; Open MPI's rule starts at P x block):
 *   bcast:     basic_linear below 1 KiB, k_chain with 4 KiB segments from it
 *   gather:    binomial below 2 KiB, linear_sync from it
 *   scatter:   basic_linear below 512 B, binomial from it
 *   reduce:    basic_linear below 256 B, binomial with 4 KiB segments
 *   allreduce: ring below 4 KiB, segmented_ring with 8 KiB segments */
typedef struct synth {
    papc_collective coll;
    const char *small, *large;
    size_t boundary, large_seg;
} synth;

static const synth synths[] = {
    {PAPC_BCAST, "basic_linear", "k_chain", 1024, 4096},
    {PAPC_GATHER, "binomial", "linear_sync", 2048, 0},
    {PAPC_SCATTER, "basic_linear", "binomial", 512, 0},
    {PAPC_REDUCE, "basic_linear", "binomial", 256, 4096},
    {PAPC_ALLREDUCE, "ring", "segmented_ring", 4096, 8192},
};

static int synthetic_explain(papc_collective coll, int P, size_t bytes,
                             MPI_Datatype dtype, MPI_Op op,
                             papc_prediction *rows, int max, int *n,
                             int *chosen) {
    (void)P, (void)dtype, (void)op;
    *n = 0;
    *chosen = -1;
    for (size_t i = 0; i < sizeof synths / sizeof *synths; i++) {
        const synth *s = &synths[i];
        if (s->coll != coll || max < 2) continue;
        int big = bytes >= s->boundary;
        rows[0] = (papc_prediction){s->small, 0, big ? 2e-3 : 1e-3, ""};
        rows[1] = (papc_prediction){s->large, s->large_seg,
                                    big ? 1e-3 : 2e-3, ""};
        *n = 2;
        *chosen = big;
    }
    return MPI_SUCCESS;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int code = 0;
    char err[512];
    if (argc < 4) {
        fprintf(stderr, "usage: export_driver PROFILE|--synthetic PMIN PMAX "
                "[--ompi FILE] [--mpich FILE]\n");
        code = 2;
    } else if (!strcmp(argv[1], "--synthetic")) {
        tune_export_explain = synthetic_explain;
    } else if (papc_profile_load(argv[1]) != MPI_SUCCESS) {
        fprintf(stderr, "export_driver: %s\n", papc_strerror(MPI_ERR_FILE));
        code = 1;
    }
    int pmin = code ? 0 : atoi(argv[2]), pmax = code ? 0 : atoi(argv[3]);
    for (int i = 4; code == 0 && i + 1 < argc; i += 2) {
        int rc;
        if (!strcmp(argv[i], "--ompi"))
            rc = tune_export_ompi(argv[i + 1], pmin, pmax, err, sizeof err);
        else if (!strcmp(argv[i], "--mpich"))
            rc = tune_export_mpich(argv[i + 1], pmin, pmax, err, sizeof err);
        else
            rc = -1, snprintf(err, sizeof err, "unknown option %s", argv[i]);
        if (rc) {
            fprintf(stderr, "export_driver: %s\n", err);
            code = 1;
        }
    }
    MPI_Finalize();
    return code;
}
