/* Open MPI 4.1.4 (Debian 12): MPI_Allreduce with a user op on a datatype
 * whose lower bound is 5 corrupts the heap ("corrupted size vs. prev_size")
 * at P = 3 with the default algorithm choice; forcing recursive doubling
 * (coll_tuned_allreduce_algorithm 3) passes.  No papcoll in it: found by
 * tests/mpi/test_random.c (seed 7000, round 701), which now skips the native
 * call for such rounds.
 *   mpicc -o allreduce_lb allreduce_lb.c && mpirun -np 3 ./allreduce_lb */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static void sum(void *in, void *inout, int *len, MPI_Datatype *t) {
    MPI_Aint lb, ext; MPI_Type_get_extent(*t, &lb, &ext);
    for (int i = 0; i < *len; i++) {   /* element i: ints at +5 and +13 */
        char *a = (char *)in + i * ext, *b = (char *)inout + i * ext;
        int x, y;
        memcpy(&x, a + 5, 4); memcpy(&y, b + 5, 4); y += x; memcpy(b + 5, &y, 4);
        memcpy(&x, a + 13, 4); memcpy(&y, b + 13, 4); y += x; memcpy(b + 13, &y, 4);
    }
}
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int bl[2] = {1, 1}; MPI_Aint d[2] = {0, 8}; MPI_Datatype ts[2] = {MPI_INT, MPI_INT}, in, out;
    MPI_Type_create_struct(2, bl, d, ts, &in);
    int bl1 = 1; MPI_Aint d1 = 5;
    MPI_Type_create_struct(1, &bl1, &d1, &in, &out);
    MPI_Type_commit(&out);
    MPI_Aint lb, ext, tlb, text; MPI_Type_get_extent(out, &lb, &ext); MPI_Type_get_true_extent(out, &tlb, &text);
    if (!rank) printf("lb %ld extent %ld true lb %ld true extent %ld\n", (long)lb, (long)ext, (long)tlb, (long)text);
    int count = argc > 1 ? atoi(argv[1]) : 2584;
    size_t bytes = (size_t)(lb + (count - 1) * ext + tlb + text) + 64;
    char *s = calloc(1, bytes), *r = calloc(1, bytes);
    MPI_Op op; MPI_Op_create(sum, 1, &op);
    for (int it = 0; it < 3; it++) MPI_Allreduce(s, r, count, out, op, MPI_COMM_WORLD);
    if (!rank) printf("ok\n");
    free(s); free(r); MPI_Op_free(&op); MPI_Type_free(&out); MPI_Type_free(&in);
    MPI_Finalize();
    return 0;
}
