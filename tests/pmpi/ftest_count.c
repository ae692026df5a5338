/*
 * ftest_count.c — test-only stand-ins for the drop-in layer's C entry
 * points, linked with src/pmpi/fortran.c into libpapc-ftest.so.  Each
 * MPI_Gather & co. counts the call, and whether a buffer came as C's
 * MPI_IN_PLACE or MPI_BOTTOM, then forwards to PMPI_.  Open MPI's own
 * Fortran bindings call PMPI_ directly, so a count here proves the call
 * went through fortran.c; an in-place count proves its sentinel
 * translation (an untranslated Fortran MPI_IN_PLACE arrives as the
 * address of a common block and is not counted).
 *
 * At exit the counts are compared with PAPC_FTEST_EXPECT, e.g.
 *   gather=2,scatter=2,bcast=2,reduce=2,allreduce=3,gatherv=2,scatterv=2,
 *   in_place_root=7,in_place=2,bottom=1
 * (in_place_root: MPI_IN_PLACE buffers seen on world rank 0; in_place: on
 * every other rank; bottom: MPI_BOTTOM buffers on every rank).  One line
 * per rank says OK or MISMATCH; a mismatch, or no PAPC_FTEST_EXPECT, makes
 * the process exit with status 1.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { GATHER, SCATTER, BCAST, REDUCE, ALLREDUCE, GATHERV, SCATTERV, NCOLL };
static const char *const names[NCOLL] = {"gather",    "scatter", "bcast",
                                         "reduce",    "allreduce",
                                         "gatherv",   "scatterv"};
static long calls[NCOLL], in_place, bottom;
static int world_rank = -1;
static char no_buffer; /* the second buffer of a one-buffer call */

static void count(int coll, const void *b1, const void *b2)
{
    calls[coll]++;
    in_place += (b1 == MPI_IN_PLACE) + (b2 == MPI_IN_PLACE);
    bottom += (b1 == MPI_BOTTOM) + (b2 == MPI_BOTTOM);
    if (world_rank < 0)
        PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
}

int MPI_Gather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc,
               MPI_Datatype rt, int root, MPI_Comm comm)
{
    count(GATHER, sb, rb);
    return PMPI_Gather(sb, sc, st, rb, rc, rt, root, comm);
}

int MPI_Scatter(const void *sb, int sc, MPI_Datatype st, void *rb, int rc,
                MPI_Datatype rt, int root, MPI_Comm comm)
{
    count(SCATTER, sb, rb);
    return PMPI_Scatter(sb, sc, st, rb, rc, rt, root, comm);
}

int MPI_Bcast(void *buf, int n, MPI_Datatype t, int root, MPI_Comm comm)
{
    count(BCAST, buf, &no_buffer);
    return PMPI_Bcast(buf, n, t, root, comm);
}

int MPI_Reduce(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op,
               int root, MPI_Comm comm)
{
    count(REDUCE, sb, rb);
    return PMPI_Reduce(sb, rb, n, t, op, root, comm);
}

int MPI_Allreduce(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op,
                  MPI_Comm comm)
{
    count(ALLREDUCE, sb, rb);
    return PMPI_Allreduce(sb, rb, n, t, op, comm);
}

int MPI_Gatherv(const void *sb, int sc, MPI_Datatype st, void *rb,
                const int rcs[], const int displs[], MPI_Datatype rt, int root,
                MPI_Comm comm)
{
    count(GATHERV, sb, rb);
    return PMPI_Gatherv(sb, sc, st, rb, rcs, displs, rt, root, comm);
}

int MPI_Scatterv(const void *sb, const int scs[], const int displs[],
                 MPI_Datatype st, void *rb, int rc, MPI_Datatype rt, int root,
                 MPI_Comm comm)
{
    count(SCATTERV, sb, rb);
    return PMPI_Scatterv(sb, scs, displs, st, rb, rc, rt, root, comm);
}

/* The value of key=N in the comma-separated list s, or -1. */
static long expected(const char *s, const char *key)
{
    size_t k = strlen(key);
    for (const char *p = s; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (strncmp(p, key, k) == 0 && p[k] == '=')
            return strtol(p + k + 1, NULL, 10);
    return -1;
}

__attribute__((destructor)) static void verdict(void)
{
    const char *exp = getenv("PAPC_FTEST_EXPECT");
    char line[512];
    int len = snprintf(line, sizeof line, "papc-ftest: rank %d intercepted",
                       world_rank);
    int bad = exp == NULL;
    for (int c = 0; c < NCOLL; c++) {
        len += snprintf(line + len, sizeof line - (size_t)len, " %s=%ld",
                        names[c], calls[c]);
        bad |= exp && expected(exp, names[c]) != calls[c];
    }
    len += snprintf(line + len, sizeof line - (size_t)len,
                    " in_place=%ld bottom=%ld", in_place, bottom);
    if (exp) {
        bad |= expected(exp, world_rank == 0 ? "in_place_root" : "in_place") !=
               in_place;
        bad |= expected(exp, "bottom") != bottom;
    }
    printf("%s: %s%s\n", line, bad ? "MISMATCH, expected " : "OK",
           bad ? (exp ? exp : "(PAPC_FTEST_EXPECT unset)") : "");
    fflush(stdout);
    if (bad)
        _exit(1);
}
