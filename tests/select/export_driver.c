/*
 * export_driver.c — the exports of tools/tune_export.h from a profile file,
 * for check-export-ompi.sh and check-export-mpich.sh when papc-tune is not
 * built (issue 12, item 6).  papc-tune --profile FILE --export-ompi F does
 * the same through the same header.
 *
 *   export_driver PROFILE PMIN PMAX [--ompi FILE] [--mpich FILE]
 *
 * Exit status 0, or 1 with one line on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "papcoll.h"
#include "../../tools/tune_export.h"

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int code = 0;
    char err[512];
    if (argc < 4) {
        fprintf(stderr, "usage: export_driver PROFILE PMIN PMAX [--ompi FILE] "
                "[--mpich FILE]\n");
        code = 2;
    } else if (papc_profile_load(argv[1]) != MPI_SUCCESS) {
        fprintf(stderr, "export_driver: %s\n", papc_strerror(MPI_ERR_FILE));
        code = 1;
    }
    int pmin = argc >= 4 ? atoi(argv[2]) : 0, pmax = argc >= 4 ? atoi(argv[3]) : 0;
    for (int i = 4; code == 0 && i + 1 < argc; i += 2) {
        int rc = !strcmp(argv[i], "--ompi")
                     ? tune_export_ompi(argv[i + 1], pmin, pmax, err, sizeof err)
                 : !strcmp(argv[i], "--mpich")
                     ? tune_export_mpich(argv[i + 1], pmin, pmax, err,
                                         sizeof err)
                     : (snprintf(err, sizeof err, "unknown option %s", argv[i]),
                        -1);
        if (rc) {
            fprintf(stderr, "export_driver: %s\n", err);
            code = 1;
        }
    }
    MPI_Finalize();
    return code;
}
