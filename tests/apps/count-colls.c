/* count-colls: a tiny LD_PRELOAD shim that counts the MPI collectives a
 * program calls, with the datatype and op of its reductions, and prints the
 * totals over all ranks on rank 0 at MPI_Finalize (stderr, lines starting
 * "count-colls:").  tests/apps uses it to find which of the collectives the
 * drop-in layer serves an unmodified application actually calls, so that
 * run-app.sh forces every algorithm of exactly those.  C bindings only (the
 * three applications of tests/apps are C, C++ and Python).
 *
 * Build: mpicc -shared -fPIC -o libcount-colls.so count-colls.c */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

enum { GATHER, SCATTER, BCAST, REDUCE, ALLREDUCE, GATHERV, SCATTERV,
       ALLGATHER, ALLGATHERV, ALLTOALL, ALLTOALLV, BARRIER, REDUCE_SCATTER,
       SCAN, EXSCAN, NCOLL };
static const char *names[NCOLL] = {
  "gather", "scatter", "bcast", "reduce", "allreduce", "gatherv", "scatterv",
  "allgather", "allgatherv", "alltoall", "alltoallv", "barrier",
  "reduce_scatter", "scan", "exscan"};
/* Reductions by (op, type): op 0 sum, 1 max, 2 min, 3 other; type 0 double,
 * 1 float, 2 integer kinds, 3 other. */
static long long counts[NCOLL];
static long long red[2][4][4]; /* [reduce|allreduce][op][type] */

static int op_ix(MPI_Op op)
{
  return op == MPI_SUM ? 0 : op == MPI_MAX ? 1 : op == MPI_MIN ? 2 : 3;
}
static int type_ix(MPI_Datatype t)
{
  if (t == MPI_DOUBLE) return 0;
  if (t == MPI_FLOAT) return 1;
  if (t == MPI_INT || t == MPI_LONG || t == MPI_LONG_LONG || t == MPI_UNSIGNED
      || t == MPI_UNSIGNED_LONG || t == MPI_INT64_T || t == MPI_INT32_T
      || t == MPI_UINT64_T || t == MPI_CHAR || t == MPI_BYTE)
    return 2;
  return 3;
}

int MPI_Gather(const void *a, int b, MPI_Datatype c, void *d, int e,
               MPI_Datatype f, int g, MPI_Comm h)
{ counts[GATHER]++; return PMPI_Gather(a, b, c, d, e, f, g, h); }
int MPI_Scatter(const void *a, int b, MPI_Datatype c, void *d, int e,
                MPI_Datatype f, int g, MPI_Comm h)
{ counts[SCATTER]++; return PMPI_Scatter(a, b, c, d, e, f, g, h); }
int MPI_Bcast(void *a, int b, MPI_Datatype c, int d, MPI_Comm e)
{ counts[BCAST]++; return PMPI_Bcast(a, b, c, d, e); }
int MPI_Reduce(const void *a, void *b, int c, MPI_Datatype d, MPI_Op e, int f,
               MPI_Comm g)
{
  counts[REDUCE]++; red[0][op_ix(e)][type_ix(d)]++;
  return PMPI_Reduce(a, b, c, d, e, f, g);
}
int MPI_Allreduce(const void *a, void *b, int c, MPI_Datatype d, MPI_Op e,
                  MPI_Comm f)
{
  counts[ALLREDUCE]++; red[1][op_ix(e)][type_ix(d)]++;
  return PMPI_Allreduce(a, b, c, d, e, f);
}
int MPI_Gatherv(const void *a, int b, MPI_Datatype c, void *d, const int e[],
                const int f[], MPI_Datatype g, int h, MPI_Comm i)
{ counts[GATHERV]++; return PMPI_Gatherv(a, b, c, d, e, f, g, h, i); }
int MPI_Scatterv(const void *a, const int b[], const int c[], MPI_Datatype d,
                 void *e, int f, MPI_Datatype g, int h, MPI_Comm i)
{ counts[SCATTERV]++; return PMPI_Scatterv(a, b, c, d, e, f, g, h, i); }
int MPI_Allgather(const void *a, int b, MPI_Datatype c, void *d, int e,
                  MPI_Datatype f, MPI_Comm g)
{ counts[ALLGATHER]++; return PMPI_Allgather(a, b, c, d, e, f, g); }
int MPI_Allgatherv(const void *a, int b, MPI_Datatype c, void *d,
                   const int e[], const int f[], MPI_Datatype g, MPI_Comm h)
{ counts[ALLGATHERV]++; return PMPI_Allgatherv(a, b, c, d, e, f, g, h); }
int MPI_Alltoall(const void *a, int b, MPI_Datatype c, void *d, int e,
                 MPI_Datatype f, MPI_Comm g)
{ counts[ALLTOALL]++; return PMPI_Alltoall(a, b, c, d, e, f, g); }
int MPI_Alltoallv(const void *a, const int b[], const int c[], MPI_Datatype d,
                  void *e, const int f[], const int g[], MPI_Datatype h,
                  MPI_Comm i)
{ counts[ALLTOALLV]++; return PMPI_Alltoallv(a, b, c, d, e, f, g, h, i); }
int MPI_Barrier(MPI_Comm a) { counts[BARRIER]++; return PMPI_Barrier(a); }
int MPI_Reduce_scatter(const void *a, void *b, const int c[], MPI_Datatype d,
                       MPI_Op e, MPI_Comm f)
{ counts[REDUCE_SCATTER]++; return PMPI_Reduce_scatter(a, b, c, d, e, f); }
int MPI_Scan(const void *a, void *b, int c, MPI_Datatype d, MPI_Op e,
             MPI_Comm f)
{ counts[SCAN]++; return PMPI_Scan(a, b, c, d, e, f); }
int MPI_Exscan(const void *a, void *b, int c, MPI_Datatype d, MPI_Op e,
               MPI_Comm f)
{ counts[EXSCAN]++; return PMPI_Exscan(a, b, c, d, e, f); }

int MPI_Finalize(void)
{
  static const char *ops[4] = {"sum", "max", "min", "other"};
  static const char *types[4] = {"double", "float", "integer", "other"};
  long long tot[NCOLL], rtot[2][4][4];
  int rank;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Reduce(counts, tot, NCOLL, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  PMPI_Reduce(red, rtot, 32, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int i = 0; i < NCOLL; i++)
      if (tot[i])
        fprintf(stderr, "count-colls: %s %lld\n", names[i], tot[i]);
    for (int r = 0; r < 2; r++)
      for (int o = 0; o < 4; o++)
        for (int t = 0; t < 4; t++)
          if (rtot[r][o][t])
            fprintf(stderr, "count-colls: %s op=%s type=%s %lld\n",
                    r ? "allreduce" : "reduce", ops[o], types[t],
                    rtot[r][o][t]);
    fflush(stderr);
  }
  return PMPI_Finalize();
}
