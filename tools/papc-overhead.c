/* papc-overhead — per-call time of MPI_Allreduce by its MPI_ name, for
 * measuring the drop-in layer's overhead (issue 13): run it natively and
 * under papc-run, compare.  Each call is timed on its own (MPI_Wtime);
 * every rank takes the median of its calls; printed: the largest median
 * over ranks, and the mean.
 *   papc-overhead [-n calls] [-w warm-up] [-b bytes] [--multiple]
 * --multiple: MPI_Init_thread(MPI_THREAD_MULTIPLE) instead of MPI_Init.
 * The data are doubles (bytes / 8 of them, at least 1), op MPI_SUM. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    int calls = 100000, warm = 2000, bytes = 8, multiple = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc) calls = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-w") && i + 1 < argc) warm = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-b") && i + 1 < argc) bytes = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--multiple")) multiple = 1;
        else {
            fprintf(stderr, "usage: papc-overhead [-n calls] [-w warm-up] "
                    "[-b bytes] [--multiple]\n");
            return 2;
        }
    }
    int provided = MPI_THREAD_SINGLE, rank, size;
    if (multiple) MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = bytes / 8 > 0 ? bytes / 8 : 1;
    double *in = calloc((size_t)n, sizeof *in), *out = calloc((size_t)n, sizeof *out);
    double *t = malloc(sizeof *t * (size_t)(calls > 0 ? calls : 1));
    if (!in || !out || !t || calls < 1) MPI_Abort(MPI_COMM_WORLD, 2);
    for (int i = 0; i < n; i++) in[i] = rank + i;
    for (int i = 0; i < warm; i++)
        MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double sum = 0;
    for (int i = 0; i < calls; i++) {
        double t0 = MPI_Wtime();
        MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        t[i] = MPI_Wtime() - t0;
        sum += t[i];
    }
    qsort(t, (size_t)calls, sizeof *t, cmp);
    double med = t[calls / 2], mean = sum / calls, maxmed = 0, avgmean = 0;
    PMPI_Reduce(&med, &maxmed, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    PMPI_Reduce(&mean, &avgmean, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    int q = -1;
    MPI_Query_thread(&q);
    if (rank == 0)
        printf("P=%d bytes=%d calls=%d thread(seen)=%d median_us=%.3f "
               "mean_us=%.3f\n", size, n * 8, calls, q, maxmed * 1e6,
               avgmean / size * 1e6);
    free(in); free(out); free(t);
    MPI_Finalize();
    return 0;
}
