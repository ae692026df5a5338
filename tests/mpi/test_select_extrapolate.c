/*
 * test_select_extrapolate.c — the model's choice beyond the P a profile
 * was tuned at, and segment sizes the tune did not measure (issue 16,
 * docs/scale.md "Bcast selection at P = 1,024").
 * Usage: mpiexec -n 1 test_select_extrapolate DIR   (DIR: scratch)
 *
 * The profile holds the bcast binomial fits of the SMPI fat-tree profile
 * tuned at P = 4, 32, 64 with segments of 0 and 8 KiB (papc-tune --quick,
 * sim/scale4096.sh): a fit over every P and fits per P and segment size.
 * Every other bcast row falls back to expensive ping-pong parameters.
 * Measured under SMPI, 8 KiB segments beat the whole message at 64 KiB
 * from P = 64 to 512 and at 1 MiB at P = 64-128, and 63 KiB segments lose
 * to 8 KiB ones.  The choices must follow:
 *   P = 64, 64 KiB    8 KiB segments (inside the tuned range)
 *   P = 512, 64 KiB   8 KiB segments (the P = 64 fits, extrapolated,
 *                     took the whole message: the unsegmented fit had no
 *                     traffic term, the 8 KiB one half its time in it)
 *   P = 128, 1 MiB    not 64,512-byte segments (never measured: the
 *                     pooled fit under-predicted them by 22-39 %).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "papcoll.h"

static int failures;

static void write_profile(const char *path) {
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); exit(2); }
    fprintf(f, "{\"papcoll_profile\": 1, \"papcoll_version\": \"test\",\n"
               " \"machine\": \"test\", \"mpi_library\": \"test\",\n"
               " \"date\": \"2026-11-26T00:00:00Z\", \"p_range\": [2, 64],\n"
               " \"eager_limit\": 65536,\n"
               " \"p2p\": {\"alpha\": 1e-3, \"beta\": 1e-6},\n"
               " \"gamma\": {");
    /* γ(p) of the fat-tree profile: 1 + 0.9804 (p - 2), measured to 64. */
    for (int p = 2; p <= 64; p++)
        fprintf(f, "\"%d\": %.6f%s", p, 1.0 + 0.9804 * (p - 2),
                p < 64 ? ", " : "},\n");
    fprintf(f,
        " \"gamma_op\": {\"float\": 1e-14, \"int\": 1e-14, \"other\": 1e-14},\n"
        " \"copy\": 2.4e-15,\n \"algorithms\": [\n"
        "  {\"collective\": \"bcast\", \"name\": \"binomial\", \"alpha\": 6.0326e-07,"
        " \"beta\": 9.9164e-11, \"nu_byte\": 1.14608e-11, \"sigma\": 0, \"rel\": 0,"
        " \"points\": 27},\n"
        "  {\"collective\": \"bcast\", \"name\": \"binomial\", \"alpha\": 6.6983e-07,"
        " \"beta\": 1.10133e-10, \"nu_byte\": 1.40471e-11, \"sigma\": 0, \"rel\": 0,"
        " \"points\": 9, \"p\": 64},\n"
        "  {\"collective\": \"bcast\", \"name\": \"binomial\", \"alpha\": 6.7364e-07,"
        " \"beta\": 1.53725e-10, \"sigma\": 0, \"rel\": 0, \"points\": 6, \"p\": 64,"
        " \"segsize\": 0},\n"
        "  {\"collective\": \"bcast\", \"name\": \"binomial\", \"alpha\": 5.4964e-07,"
        " \"beta\": 9.1508e-11, \"nu_msg\": 4.23604e-08, \"nu_byte\": 1.2217e-11,"
        " \"sigma\": 0, \"rel\": 0, \"points\": 6, \"p\": 64, \"segsize\": 8192}\n"
        " ]}\n");
    fclose(f);
}

static size_t binomial_segsize(int P, size_t bytes) {
    papc_prediction rows[64];
    int n = 0, chosen = -1;
    if (papc_explain(PAPC_BCAST, P, bytes, MPI_BYTE, MPI_OP_NULL, rows, 64,
                     &n, &chosen) != MPI_SUCCESS) {
        fprintf(stderr, "FAIL: papc_explain(bcast, %d, %zu)\n", P, bytes);
        failures++;
        return (size_t)-1;
    }
    if (chosen < 0 || strcmp(rows[chosen].algorithm, "binomial") != 0) {
        fprintf(stderr, "FAIL: P = %d, %zu B: chose %s, want binomial\n", P,
                bytes, chosen >= 0 ? rows[chosen].algorithm : "-");
        failures++;
        return (size_t)-1;
    }
    return rows[chosen].segsize;
}

static void expect_seg(int P, size_t bytes, size_t want) {
    size_t got = binomial_segsize(P, bytes);
    if (got != (size_t)-1 && got != want) {
        fprintf(stderr, "FAIL: P = %d, %zu B: segments of %zu B, want %zu\n",
                P, bytes, got, want);
        failures++;
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    if (argc < 2) {
        fprintf(stderr, "usage: test_select_extrapolate DIR\n");
        MPI_Finalize();
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/extrapolate-profile.json", argv[1]);
    write_profile(path);
    if (papc_profile_load(path) != MPI_SUCCESS) {
        fprintf(stderr, "FAIL: cannot load %s\n", path);
        failures++;
    } else {
        expect_seg(64, 65536, 8192);
        expect_seg(512, 65536, 8192);
        size_t seg = binomial_segsize(128, 1048576);
        if (seg == 64512) {
            fprintf(stderr, "FAIL: P = 128, 1 MiB: 64,512-byte segments, "
                    "which the profile never measured\n");
            failures++;
        }
    }
    printf("%s: %d failure(s)\n", failures ? "FAIL" : "ok", failures);
    MPI_Finalize();
    return failures != 0;
}
