/* sorted_linear.c — scatter SLIN (sorted_linear) and BSLN
 * (background_sorted_linear), pap-scatter-gather.md §4.1, Figs. 5 and 6.
 *
 * SLIN.  The root asks the arrival runtime for its local order
 * (PAPC_ORDER_LOCAL: its own latest estimates, no messages) and sends the
 * blocks in that order, predicted earliest first; its own block is a local
 * copy (none with MPI_IN_PLACE).  The other ranks receive their block as in
 * basic_linear.
 *
 * BSLN.  As SLIN, but the root sends each block over the background
 * channel (kind PAPC_BG_BSLN_BLOCK): the receiver's monitor thread takes it
 * at once, even while the receiver still computes, so a late receiver
 * never holds the root up; the receiver's call then takes it from its
 * mailbox and unpacks it into recvbuf.  Without a background channel
 * (a.bg == 0, the same on every rank) BSLN runs SLIN.
 *
 * Cost (Hockney, block m bytes, balanced arrivals): (P-1)(α + mβ) for
 * both, as basic_linear (eq. (3)).  With rank 1 late by d: SLIN
 * max(d + α + mβ, (P-1)(α + mβ)) when the prediction is right (eq. (10)),
 * BSLN max(d, (P-1)(α + mβ)) (eq. (11)); a late root delays everyone by
 * its lateness in all three (eq. (12)).
 *
 * Departures from the paper.
 * (1) SLIN's root does not send with blocking sends one after the other
 *     (Fig. 5, lines 3-7): it posts non-blocking sends in the predicted
 *     order, at most SLIN_WINDOW (64) outstanding, refilling the window as
 *     sends complete, and copies its own block while they fly.  A blocking
 *     send of a large block waits until its receiver has arrived
 *     (rendezvous), so one rank predicted early but actually late held up
 *     every rank after it; with the window the sends to ranks that are
 *     there complete while the late one waits, as long as fewer than the
 *     window's worth of mispredicted late ranks come first.  Measured on
 *     the 2-core box (P = 8, 256 KiB blocks, rank 1 late by 20 ms, rank
 *     order predicted): mean elapsed time 18.6 ms blocking, 4.4 ms with a
 *     window of 2, 2.9 ms with 4 or all; with ranks 1-3 late only a window
 *     larger than 3 helps (14.5 -> 2.8 ms with all); balanced arrivals: no
 *     loss (P = 12: 2.5-9.8 ms blocking, 0.8-1.6 ms all outstanding).  So
 *     the window is as large as is reasonable; the bound only caps the
 *     requests of very large P.  PAPC_SLIN_WINDOW sets it (0: the paper's
 *     blocking sends).  On a shared link the outstanding sends share the
 *     root's bandwidth, which leaves the run time (the paper's measure,
 *     eq. (3)) as it is.
 * (2) BSLN's root sends in predicted order too, but its background sends
 *     never wait for the receiver's call, so the order matters less.
 * (3) Messages carry whole blocks in the sender's type; the receiver
 *     unpacks with its own type (only the signatures must match), a block
 *     that does not fit is MPI_ERR_TRUNCATE as for a receive. */
#include <stdlib.h>
#include "../coll.h"
#include "../bcast/model_bgs.h"
#include "arrival/arrival.h"

/* Outstanding sends of SLIN's root. */
#define SLIN_WINDOW 64

static const char *block_of(const papc_call *c, int rank) {
    return papc_elem(c->sendbuf, c->sendtype, (MPI_Aint)rank * c->sendcount);
}

static int copy_own_block(const papc_call *c) {
    if (c->recvbuf == MPI_IN_PLACE) return MPI_SUCCESS;
    return papc_copy(block_of(c, c->rank), c->sendcount, c->sendtype,
                     c->recvbuf, c->recvcount, c->recvtype);
}

/* Window size: PAPC_SLIN_WINDOW (0: blocking sends, the paper's). */
static int slin_window(void) {
    return (int)papc_env_size("PAPC_SLIN_WINDOW", SLIN_WINDOW);
}

/* The paper's root: blocking sends in order. */
static int send_blocking(const papc_call *c, const int *order) {
    int rc = MPI_SUCCESS;
    for (int k = 0; k < c->size && rc == MPI_SUCCESS; k++) {
        int r = order[k];
        if (r == c->root) rc = copy_own_block(c);
        else rc = papc_send(c, block_of(c, r), c->sendcount, c->sendtype, r, 0);
    }
    return rc;
}

/* Posts the send to the next non-root rank of order after *k into *req
 * (MPI_REQUEST_NULL when none is left). */
static int post_next(const papc_call *c, const int *order, int *k,
                     MPI_Request *req) {
    *req = MPI_REQUEST_NULL;
    while (*k < c->size && order[*k] == c->root) (*k)++;
    if (*k == c->size) return MPI_SUCCESS;
    int r = order[(*k)++];
    return papc_isend(c, block_of(c, r), c->sendcount, c->sendtype, r, 0, req);
}

/* The root's sends in order, at most w outstanding; its own block is
 * copied while the first ones fly. */
static int send_windowed(const papc_call *c, const int *order, int w) {
    MPI_Request *req = malloc((size_t)w * sizeof *req);
    if (!req) return papc_error(MPI_ERR_NO_MEM, "sorted_linear requests");
    int k = 0, rc = MPI_SUCCESS;
    for (int j = 0; j < w; j++) req[j] = MPI_REQUEST_NULL;
    for (int j = 0; j < w && rc == MPI_SUCCESS; j++)
        rc = post_next(c, order, &k, &req[j]);
    if (rc == MPI_SUCCESS) rc = copy_own_block(c);
    while (rc == MPI_SUCCESS) {
        int j;
        rc = MPI_Waitany(w, req, &j, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) {
            rc = papc_mpi_error(rc, "MPI_Waitany");
            break;
        }
        if (j == MPI_UNDEFINED) break; /* all done */
        rc = post_next(c, order, &k, &req[j]);
    }
    if (rc != MPI_SUCCESS) papc_cleanup_requests(w, req);
    free(req);
    return rc;
}

static int slin_root(const papc_call *c, const int *order) {
    int w = slin_window();
    if (w > c->size - 1) w = c->size - 1;
    if (w <= 0) return send_blocking(c, order);
    return send_windowed(c, order, w);
}

static int slin_receive(const papc_call *c) {
    return papc_recv(c, c->recvbuf, c->recvcount, c->recvtype, c->root, 0);
}

int papc_scatter_sorted_linear(const papc_call *c) {
    papc_arrival a;
    int is_root = c->rank == c->root;
    int rc = papc_arrival_begin(c, is_root ? PAPC_ORDER_LOCAL : PAPC_ORDER_NONE,
                                c->root, &a);
    if (rc != MPI_SUCCESS) return rc;
    rc = is_root ? slin_root(c, a.order) : slin_receive(c);
    return papc_arrival_end(c, &a, rc);
}

/* ---- BSLN ---- */

/* Background sends never wait for the receiver's call.  All are posted at
 * once, in predicted order (each a packed copy, so the user's buffer is
 * free again at once): a blocking send per block would make each block
 * wait for its receiver's monitor to poll before the next could start. */
static int bsln_root(const papc_call *c, const papc_arrival *a) {
    MPI_Request *req = malloc((size_t)c->size * sizeof *req);
    void **mem = calloc((size_t)c->size, sizeof *mem);
    int n = 0, rc = MPI_SUCCESS;
    if (!req || !mem) rc = papc_error(MPI_ERR_NO_MEM, "bsln requests");
    for (int k = 0; k < c->size && rc == MPI_SUCCESS; k++) {
        int r = a->order[k];
        if (r == c->root) continue;
        rc = papc_bg_isend(c, a, r, PAPC_BG_BSLN_BLOCK, NULL, block_of(c, r),
                           c->sendcount, c->sendtype, &req[n], &mem[n]);
        if (rc == MPI_SUCCESS) n++;
    }
    if (rc == MPI_SUCCESS) rc = copy_own_block(c);
    if (rc == MPI_SUCCESS) rc = papc_waitall(n, req);
    else papc_cleanup_requests(n, req);
    for (int i = 0; i < n; i++) free(mem[i]);
    free(req);
    free(mem);
    return rc;
}

static int bsln_receive(const papc_call *c, const papc_arrival *a) {
    papc_bg_msg m;
    int rc = papc_bg_take(c, a, c->root, PAPC_BG_BSLN_BLOCK, &m);
    if (rc != MPI_SUCCESS) return rc;
    rc = papc_bg_unpack(&m, c->recvbuf, c->recvcount, c->recvtype);
    papc_bg_msg_free(&m);
    return rc;
}

int papc_scatter_background_sorted_linear(const papc_call *c) {
    papc_arrival a;
    int is_root = c->rank == c->root;
    int rc = papc_arrival_begin(c, is_root ? PAPC_ORDER_LOCAL : PAPC_ORDER_NONE,
                                c->root, &a);
    if (rc != MPI_SUCCESS) return rc;
    if (!a.bg)
        rc = is_root ? slin_root(c, a.order) : slin_receive(c);
    else
        rc = is_root ? bsln_root(c, &a) : bsln_receive(c, &a);
    return papc_arrival_end(c, &a, rc);
}

/* ---- cost models (issue 12), balanced arrivals ---- */

/* SLIN: the root's order is local (PAPC_ORDER_LOCAL, line 132: no message;
 * the receivers' 32-byte arrival notices go out while the first blocks
 * do).  With w = min(PAPC_SLIN_WINDOW (64), P-1) sends outstanding
 * (send_windowed, lines 95-116: w posted, its own block copied, each
 * completed send replaced by the next), the P - 1 blocks go as
 * q = floor((P-1)/w) fan-outs of w and one of r = (P-1) mod w:
 *   T = q γ(w+1)(α + mβ) + γ(r+1)(α + mβ) + mδ      (r = 0: no second)
 * and with PAPC_SLIN_WINDOW=0 the paper's blocking sends (send_blocking,
 * lines 72-80): T = (P-1)(α + mβ) + mδ.  m = 0 costs nothing (call.c);
 * P = 1 is the copy.
 * Traffic: the notices and P - 1 blocks, whatever the window. */
static papc_terms slin_time(const papc_model_in *in) {
    int n = in->P - 1, w = slin_window();
    if (w > n) w = n;
    papc_terms t = papc_bgs_copy(in->m);
    if (w <= 0) return papc_terms_axpy(t, n, papc_msg(in->m));
    t = papc_terms_axpy(t, n / w, papc_bgs_fan(in, w, w * in->m));
    return papc_terms_add(t, papc_bgs_fan(in, n % w, (n % w) * in->m));
}

papc_terms papc_scatter_sorted_linear_model(const papc_model_in *in) {
    if (in->m <= 0) return papc_terms_zero();
    papc_terms t = papc_bgs_notices_traffic(slin_time(in), in->P);
    return papc_terms_traffic(t, in->P - 1, (in->P - 1) * in->m);
}

/* BSLN, with the background channel: the root packs every block into a
 * message of its own (papc_bg_isend, line 153: δ per byte, one after the
 * other) and posts it at once, the P - 1 messages (64-byte header each)
 * fly as one fan-out, and the receiver's call unpacks its block from its
 * mailbox (bsln_receive, line 170; the root copies its own meanwhile,
 * line 157):
 *   T = (P-1) mδ + γ(P)(α + (64 + m)β) + mδ
 * (the last block is packed after all the others, then the fan-out).
 * P = 1 is the copy.  Traffic: the notices and P - 1 messages of
 * 64 + m bytes. */
papc_terms papc_scatter_background_sorted_linear_model(
    const papc_model_in *in) {
    if (in->m <= 0) return papc_terms_zero();
    int n = in->P - 1;
    papc_terms t = papc_bgs_fan(in, n, n * (64 + in->m));
    t = papc_terms_add(t, papc_bgs_copy(in->P * in->m));
    t = papc_bgs_notices_traffic(t, in->P);
    return papc_terms_traffic(t, n, n * (64 + in->m));
}
