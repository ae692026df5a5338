/* comm_cost.c — what one MPI pattern costs the SMPI simulation itself (host
 * CPU time, memory), to find where the time of a large-P run goes
 * (docs/scale.md, "At 512-4,096 processes").  Run under /usr/bin/time:
 *   smpicc -O2 -o comm_cost sim/comm_cost.c
 *   sim/run -p fattree4096 -n P --lock -- ./comm_cost WHAT N
 * WHAT (each N times on MPI_COMM_WORLD):
 *   init            nothing (MPI_Init and MPI_Finalize only)
 *   barrier, bcast  one MPI_Barrier / MPI_Bcast of one int
 *   dup, split, create  one new communicator (never freed: as a library's
 *                   cached private duplicate)
 *   gather_recv     rank 0 receives one int from every rank with MPI_Recv
 *                   in rank order (papcoll's basic_linear)
 *   gather_waitall  the same with P - 1 MPI_Irecv and one MPI_Waitall
 *   gather_wait     the same with P - 1 MPI_Irecv and P - 1 MPI_Wait
 * Rank 0 prints the simulated time at the end. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void linear_gather(const char *how, int r, int p, int *all,
                          MPI_Request *req) {
    int x = r;
    if (r != 0) {
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        return;
    }
    if (!strcmp(how, "gather_recv")) {
        for (int i = 1; i < p; i++)
            MPI_Recv(&all[i], 1, MPI_INT, i, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        return;
    }
    for (int i = 1; i < p; i++)
        MPI_Irecv(&all[i], 1, MPI_INT, i, 0, MPI_COMM_WORLD, &req[i - 1]);
    if (!strcmp(how, "gather_waitall"))
        MPI_Waitall(p - 1, req, MPI_STATUSES_IGNORE);
    else
        for (int i = 0; i < p - 1; i++) MPI_Wait(&req[i], MPI_STATUS_IGNORE);
}

static int one(const char *what, int r, int p, int *all, MPI_Request *req) {
    int x = r;
    MPI_Comm d;
    MPI_Group g;
    if (!strcmp(what, "init")) return 0;
    if (!strcmp(what, "barrier")) return MPI_Barrier(MPI_COMM_WORLD);
    if (!strcmp(what, "bcast"))
        return MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!strcmp(what, "dup")) return MPI_Comm_dup(MPI_COMM_WORLD, &d);
    if (!strcmp(what, "split"))
        return MPI_Comm_split(MPI_COMM_WORLD, 0, r, &d);
    if (!strcmp(what, "create")) {
        MPI_Comm_group(MPI_COMM_WORLD, &g);
        return MPI_Comm_create(MPI_COMM_WORLD, g, &d);
    }
    if (!strncmp(what, "gather_", 7)) {
        linear_gather(what, r, p, all, req);
        return 0;
    }
    return -1;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int r, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    const char *what = argc > 1 ? argv[1] : "init";
    int n = argc > 2 ? atoi(argv[2]) : 1;
    int *all = r == 0 ? malloc(sizeof(int) * (size_t)p) : NULL;
    MPI_Request *req = r == 0 ? malloc(sizeof(MPI_Request) * (size_t)p) : NULL;
    for (int it = 0; it < n; it++)
        if (one(what, r, p, all, req) < 0) {
            if (r == 0) fprintf(stderr, "comm_cost: unknown %s\n", what);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    if (r == 0) printf("%s x%d P=%d simulated %.6f s\n", what, n, p, MPI_Wtime());
    free(all);
    free(req);
    MPI_Finalize();
    return 0;
}
