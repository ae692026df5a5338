/*
 * helper_messages.c — what a second actor of a rank can do under SMPI
 * 3.32 (observed 2026-11-26): s4u mailboxes between actors work (the
 * receiver gets the first 8 bytes AT the payload: an envelope pointing to
 * itself; a detached put has its payload freed by SMPI, so puts are not
 * detached); its MPI_Isend reaches the destination rank's main actor, which
 * must receive with MPI_ANY_SOURCE (the status says MPI_UNDEFINED);
 * MPI_Test costs 100 us of simulated time (smpi/test).  An MPI message TO
 * the helper is never matched: SMPI posts a second actor's receive on that
 * actor's own mailbox, while senders address the rank's main actor.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <simgrid/actor.h>
#include <simgrid/host.h>
#include <simgrid/engine.h>
#include <simgrid/mailbox.h>
#include <simgrid/comm.h>
#include <simgrid/mutex.h>
#include <simgrid/cond.h>
static int counter = 0;
static MPI_Comm dcomm;
static int myrank, nranks;
typedef struct msg { void *self; int src, tag, n; double v; } msg;
static void helper(int argc, char **argv) {
  (void)argc; (void)argv;
  SMPI_thread_create();
  int r; MPI_Comm_rank(dcomm, &r);
  char name[64]; snprintf(name, sizeof name, "mon-%d", myrank);
  sg_mailbox_t mb = sg_mailbox_by_name(name);
  int polls = 0;
  while (!sg_mailbox_listen(name)) { sg_actor_sleep_for(20e-6); polls++; }
  void *got; sg_comm_t c = sg_mailbox_get_async(mb, &got);
  while (!sg_comm_test(c)) sg_actor_sleep_for(1e-6);
  msg *m = got; fprintf(stderr,"helper %d got=%p\n", myrank, got);
  fprintf(stderr, "helper %d (commrank %d) got from %d v=%g t=%f polls=%d ptr ok=%d\n", myrank, r, m->src, m->v, simgrid_get_clock(), polls, m==m->self); free(m);
  double *d = malloc(sizeof *d); *d = 1000 + myrank;
  MPI_Request rq;
  MPI_Isend(d, 1, MPI_DOUBLE, (myrank + 1) % nranks, 9, dcomm, &rq);
  int flag = 0; double t0 = simgrid_get_clock();
  while (!flag) { MPI_Test(&rq, &flag, MPI_STATUS_IGNORE); if (!flag) sg_actor_sleep_for(1e-6); }
  fprintf(stderr, "helper %d isend done, test took %g\n", myrank, simgrid_get_clock() - t0);
  counter += 100;
}
int main(int argc, char **argv) {
  int prov;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &prov);
  MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  MPI_Comm_dup(MPI_COMM_WORLD, &dcomm);
  counter = myrank;
  sg_actor_t a = sg_actor_create("helper", sg_host_self(), helper, 0, NULL);
  char name[64]; snprintf(name, sizeof name, "mon-%d", (myrank + 1) % nranks);
  msg *m = malloc(sizeof *m); m->self = m; m->src = myrank; m->v = myrank * 10; fprintf(stderr,"rank %d sends m=%p\n", myrank, (void*)m);
  sg_comm_t c = sg_mailbox_put_async(sg_mailbox_by_name(name), m, 100000);
  double v; MPI_Status st;
  MPI_Recv(&v, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 9, dcomm, &st);
  fprintf(stderr, "rank %d got %g from source %d t=%f\n", myrank, v, st.MPI_SOURCE, MPI_Wtime());
  while (!sg_comm_test(c)) sg_actor_sleep_for(1e-5);
  sg_actor_join(a, -1);
  fprintf(stderr,"rank %d prov=%d counter=%d t=%f\n", myrank, prov, counter, MPI_Wtime());
  MPI_Comm_free(&dcomm);
  MPI_Finalize();
  return 0;
}
