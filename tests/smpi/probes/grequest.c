/*
 * grequest.c — SimGrid 3.32 under SMPI: MPI_Waitall on a generalized
 * request that another actor completes later returns at once (t = 0), and
 * the later MPI_Grequest_complete then crashes.  Observed 2026-11-26.
 * Why transport_smpi.c waits for a foreground put with a self-message.
 */
#include <mpi.h>
#include <stdio.h>
#include <simgrid/actor.h>
#include <simgrid/host.h>
#include <simgrid/engine.h>
static int q(void *e, MPI_Status *st) { (void)e; MPI_Status_set_elements(st, MPI_BYTE, 0); MPI_Status_set_cancelled(st, 0); return MPI_SUCCESS; }
static int f(void *e) { (void)e; return MPI_SUCCESS; }
static int c(void *e, int k) { (void)e; (void)k; return MPI_SUCCESS; }
static MPI_Request r;
static void helper(int argc, char **argv) { (void)argc; (void)argv; SMPI_thread_create(); sg_actor_sleep_for(1e-3); MPI_Grequest_complete(r); fprintf(stderr, "completed t=%f\n", simgrid_get_clock()); }
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Grequest_start(q, f, c, NULL, &r);
  MPI_Request w = r;
  sg_actor_t a = sg_actor_create("helper", sg_host_self(), helper, 0, NULL);
  MPI_Waitall(1, &w, MPI_STATUSES_IGNORE);
  fprintf(stderr, "waited t=%f\n", simgrid_get_clock());
  sg_actor_join(a, -1);
  MPI_Finalize();
  return 0;
}
