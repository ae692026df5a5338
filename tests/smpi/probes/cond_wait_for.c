/*
 * cond_wait_for.c — SimGrid 3.32 under SMPI: sg_cond_wait_for misbehaves.
 * A helper actor waits (1 ms deadline) while the rank notifies after
 * 0.5 ms.  Observed 2026-11-26: the wait returns 1 (timeout) at 1 ms, and
 * the helper's next sg_mutex_unlock aborts ("Cannot release that mutex:
 * you're not the owner").  Why transport_smpi.c uses semaphores.
 *   smpicc -o p cond_wait_for.c && smpirun -np 1 -platform ../cluster48.xml \
 *       -hostfile HOSTS ./p
 */
#include <mpi.h>
#include <stdio.h>
#include <simgrid/actor.h>
#include <simgrid/host.h>
#include <simgrid/engine.h>
#include <simgrid/mutex.h>
#include <simgrid/cond.h>
static sg_mutex_t mu; static sg_cond_t cv;
static int stop;
static void helper(int argc, char **argv) {
  (void)argc; (void)argv;
  for (int i = 0; i < 5; i++) {
    sg_mutex_lock(mu);
    int r = sg_cond_wait_for(cv, mu, 1e-3);
    fprintf(stderr, "helper wait_for -> %d t=%f\n", r, simgrid_get_clock());
    sg_mutex_unlock(mu);
  }
}
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  mu = sg_mutex_init(); cv = sg_cond_init();
  sg_actor_t a = sg_actor_create("helper", sg_host_self(), helper, 0, NULL);
  for (int i = 0; i < 5; i++) { sg_actor_sleep_for(0.5e-3); sg_mutex_lock(mu); sg_cond_notify_one(cv); sg_mutex_unlock(mu); }
  sg_actor_join(a, -1);
  (void)stop;
  MPI_Finalize();
  return 0;
}
