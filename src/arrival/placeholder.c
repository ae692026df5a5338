/* PLACEHOLDER (lead) — minimal arrival runtime: no monitor, rank order,
 * no background.  The arrival-runtime helper replaces this file. */
#include <math.h>
#include <stdlib.h>
#include "arrival.h"

int papc_arrival_begin(const papc_call *c, papc_order_need need, int decider,
                       papc_arrival *a) {
    (void)decider;
    a->size = c->size; a->order = NULL; a->offset = NULL; a->known = 0;
    a->alpha = 0.8e-6; a->beta = 1.3e-10; a->gamma = 2.5e-10;
    a->epoch = -1; a->bg = 0; a->t_enter = MPI_Wtime(); a->need = (int)need;
    if (need == PAPC_ORDER_NONE) return MPI_SUCCESS;
    a->order = malloc((size_t)c->size * sizeof *a->order);
    a->offset = malloc((size_t)c->size * sizeof *a->offset);
    if (!a->order || !a->offset) {
        free(a->order); free(a->offset);
        return papc_error(MPI_ERR_NO_MEM, "arrival order");
    }
    for (int i = 0; i < c->size; i++) { a->order[i] = i; a->offset[i] = INFINITY; }
    return MPI_SUCCESS;
}
int papc_arrival_end(const papc_call *c, papc_arrival *a, int rc) {
    (void)c; free(a->order); free(a->offset); a->order = NULL; a->offset = NULL;
    return rc;
}
int papc_bg_available(const papc_call *c) { (void)c; return 0; }
int papc_bg_send(const papc_call *c, const papc_arrival *a, int dest, int kind,
                 const int64_t hdr[4], const void *buf, int count, MPI_Datatype t) {
    (void)c; (void)a; (void)dest; (void)kind; (void)hdr; (void)buf; (void)count; (void)t;
    return papc_error(MPI_ERR_INTERN, "no background channel");
}
int papc_bg_take(const papc_call *c, const papc_arrival *a, int source, int kind,
                 papc_bg_msg *m) {
    (void)c; (void)a; (void)source; (void)kind; (void)m;
    return papc_error(MPI_ERR_INTERN, "no background channel");
}
int papc_bg_unpack(const papc_bg_msg *m, void *buf, int count, MPI_Datatype t) {
    int pos = 0;
    PAPC_CHECK(MPI_Unpack(m->data, m->bytes, &pos, buf, count, t, MPI_COMM_SELF));
    return MPI_SUCCESS;
}
void papc_bg_msg_free(papc_bg_msg *m) { free(m->data); m->data = NULL; }
int papc_bg_register(int kind, papc_bg_handler h) { (void)kind; (void)h; return MPI_SUCCESS; }
int papc_monitor_init(MPI_Comm comm) { (void)comm; return MPI_SUCCESS; }
int papc_processing_start(void) { return MPI_SUCCESS; }
int papc_progress(double f) { (void)f; return MPI_SUCCESS; }
int papc_processing_end(void) { return MPI_SUCCESS; }
int papc_monitor_finalize(void) { return MPI_SUCCESS; }
int papc_monitor_running(void) { return 0; }
