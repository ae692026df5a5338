/* sorted_linear_sync.c — gather SLS (sorted_linear_sync) and BSLS
 * (background_sorted_linear_sync), pap-scatter-gather.md §4.2, Figs. 9
 * and 10.
 *
 * SLS.  linear_sync (linear_sync.c: go-ahead carrying the split offset,
 * block in two parts, second parts completed at the end) whose root asks
 * the ranks in its local predicted order (PAPC_ORDER_LOCAL), earliest
 * first, so that early senders are not held up behind late ones.  The
 * senders are linear_sync's (PAPC_ORDER_NONE).
 *
 * BSLS.  The root's side runs in the root's monitor thread, so the root
 * collects while it still computes.  Every rank, at its call, sends a
 * HELLO (no data) to the root's mailbox -- the root to itself too, so a
 * root that arrives first starts the job.  The first HELLO of an epoch
 * runs the job in the root's monitor thread (bsls_serve; later HELLOs of
 * the epoch are consumed): for each rank in the monitor's order (skipping
 * the root) it sends a GO carrying the split offset and takes that rank's
 * first part before asking the next rank (the synchronisation of
 * linear_sync: one sender starts at a time), and the previous rank's
 * second part before asking the rank after (at most two senders' data in
 * flight, as linear_sync's overlap of a second part with the next turn);
 * it gives the parts to the foreground's mailbox (ctx_keep).  A sender
 * takes its GO from its mailbox and sends its part(s) to the root's
 * mailbox.  The root's call copies its own block, then takes the parts
 * from its mailbox in the order they came and unpacks them into recvbuf.
 * Without a background channel (a.bg == 0, the same on every rank) or
 * with P = 1, BSLS runs SLS.
 *
 * BSLS split.  The job may start before the root's call, when the root's
 * recvtype is not known, so the split is first_segment bytes as such
 * (PAPC_GATHER_FIRST_SEGMENT of the root's process, default 1024; 0: one
 * part), not rounded to recvtype elements.  The sender cuts its block
 * there as linear_sync does (typed parts on a sendtype element boundary,
 * else the two byte ranges of its packed block).  A part carries its byte
 * offset and the block's byte count in its header; the root unpacks each
 * part straight into its slot when it starts and ends on recvtype element
 * boundaries (the common case: 1024 is a multiple of every power-of-two
 * element size), else it collects the block's bytes and unpacks them
 * once complete.
 *
 * Cost (Hockney, block m bytes, balanced arrivals): (P-1)(3α + mβ) for
 * both, as linear_sync (eq. (5)); BSLS adds one α for the HELLO, off the
 * critical path.  With rank 1 late by d: max(d + 3α + mβ, (P-1)(3α + mβ))
 * (eq. (18)).  With the root late by d: SLS d + (P-1)(3α + mβ) (eq. (19)),
 * BSLS max(d, (P-1)(3α + mβ)) (eq. (20)) plus the root's unpacking.
 *
 * Departures from the paper.
 * (1) Fig. 9, line 9 (and Fig. 10, line 8) waits for "segment d_iA", but
 *     the loop's rank is pt_i: the root waits for d_{pt_i}A, the first
 *     part of the rank it has just asked.  Fig. 10's line 9 ("wait for all
 *     segments d_rB") belongs after the loop, not in it, as in Fig. 9's
 *     line 13.
 * (2) The go-ahead is not empty: it carries the split offset (linear_sync.c
 *     explains why only the root can decide it).
 * (3) In Fig. 10 the background thread starts on its own; here it starts
 *     at the first HELLO of the epoch (a sender's arrival or the root's
 *     call), because the monitor does not know when a call begins before
 *     some rank enters it.  The foreground merges the parts out of the
 *     mailbox (the background thread cannot write into recvbuf, which it
 *     does not know before the root's call).
 * (4) As linear_sync, the root copies its own block after the loop (SLS)
 *     or first (BSLS); the paper places it in the loop.
 * (5) The job holds the parts back from the foreground until it has taken
 *     them (a handler for PAPC_BG_BSLS_PART keeps arriving parts out of
 *     the mailbox): were parts delivered to the mailbox at once, the
 *     root's call could take a one-part block before the job does and
 *     leave the job waiting for it forever. */
#include <stdlib.h>
#include <string.h>
#include "../coll.h"
#include "arrival/arrival.h"
#include "linear_sync.h"

/* ---- SLS ---- */

int papc_gather_sorted_linear_sync(const papc_call *c) {
    papc_arrival a;
    int is_root = c->rank == c->root;
    int rc = papc_arrival_begin(c, is_root ? PAPC_ORDER_LOCAL : PAPC_ORDER_NONE,
                                c->root, &a);
    if (rc != MPI_SUCCESS) return rc;
    rc = is_root ? papc_linear_sync_root(c, a.order) : papc_linear_sync_send(c);
    return papc_arrival_end(c, &a, rc);
}

/* ---- BSLS: the root's monitor thread ---- */

/* As call.c's default of c->first_segment: the monitor thread has no call
 * descriptor, so it reads the same variable. */
#define BSLS_DEFAULT_FIRST_SEGMENT 1024

/* Header fields.  GO: hdr[0] = split offset in bytes.  PART: hdr[0] =
 * byte offset of the part in the block, hdr[1] = the block's bytes. */
enum { HDR_OFFSET = 0, HDR_BLOCK = 1 };

/* Which epochs' jobs have started.  Jobs start in epoch order: a sender
 * enters epoch e+1 only after job e took its part, and handlers run one at
 * a time, so job e has started before any HELLO of a later epoch comes.
 * A HELLO starts a job iff its epoch is past the last started one; a late
 * HELLO (the root's own, when a sender's came first, possibly many epochs
 * later when the senders run ahead of a slow root) is ignored.  A table
 * counting HELLOs per epoch, bounded in size, once evicted an epoch whose
 * root HELLO had not come yet when senders ran ahead, and the late HELLO
 * then started a second job for it, which waited forever. */
static int bsls_last_epoch = -1, bsls_instance = -1;

static int bsls_first_hello(const papc_bg_ctx *ctx) {
    int e = papc_bg_ctx_epoch(ctx), inst = papc_bg_ctx_instance(ctx);
    if (inst != bsls_instance) { /* the monitor restarted: epochs from 0 */
        bsls_instance = inst;
        bsls_last_epoch = -1;
    }
    if (e <= bsls_last_epoch) return 0;
    bsls_last_epoch = e;
    return 1;
}

/* The job: GO to each rank in the monitor's order, and its first part
 * taken before the next rank is asked; a rank's second part is taken
 * before the rank after the next is asked (at most two senders' data in
 * flight).  Taken parts go to the foreground's mailbox (ctx_keep), a
 * first part only together with its second: a kept part sits in the
 * mailbox, where the job's own ctx_take for the second part would find it
 * again. */
static int bsls_serve(papc_bg_ctx *ctx, papc_bg_msg *hello) {
    int size = papc_bg_ctx_size(ctx), me = papc_bg_ctx_rank(ctx);
    int first = bsls_first_hello(ctx);
    papc_bg_msg_free(hello);
    if (!first || size == 1) return 0;
    int *order = malloc((size_t)size * sizeof *order);
    if (order) papc_bg_ctx_order(ctx, order); /* else rank order */
    size_t fs = papc_env_size("PAPC_GATHER_FIRST_SEGMENT",
                              BSLS_DEFAULT_FIRST_SEGMENT);
    int64_t go[4] = {fs == 0 ? PAPC_LS_ONE_PART : (int64_t)fs, 0, 0, 0};
    papc_bg_msg held;  /* the previous rank's first part, when has_held */
    int prev = -1, has_held = 0, rc = MPI_SUCCESS;
    for (int k = 0; k <= size && rc == MPI_SUCCESS; k++) {
        int r = k == size ? -1 : order ? order[k] : k;
        papc_bg_msg a, b;
        if (r == me) continue;
        if (r >= 0) {
            rc = papc_bg_ctx_send(ctx, r, PAPC_BG_BSLS_GO, go, NULL, 0);
            if (rc == MPI_SUCCESS)
                rc = papc_bg_ctx_take(ctx, r, PAPC_BG_BSLS_PART, &a);
            if (rc != MPI_SUCCESS) break;
        }
        if (has_held) {
            rc = papc_bg_ctx_take(ctx, prev, PAPC_BG_BSLS_PART, &b);
            papc_bg_ctx_keep(ctx, &held);
            has_held = 0;
            if (rc == MPI_SUCCESS) papc_bg_ctx_keep(ctx, &b);
        }
        if (r < 0) break;
        if (a.bytes < a.hdr[HDR_BLOCK]) { /* a second part follows */
            held = a;
            has_held = 1;
            prev = r;
        } else {
            papc_bg_ctx_keep(ctx, &a);
        }
    }
    if (has_held) papc_bg_msg_free(&held);
    free(order);
    return 0;
}

/* Parts go to the pending queue of handlers, not straight to the mailbox,
 * so the foreground cannot take one before the job has (the job's
 * ctx_take finds them there); the job gives each back with ctx_keep.  A
 * part the job did not take (cannot happen) still reaches the mailbox. */
static int bsls_hold_part(papc_bg_ctx *ctx, papc_bg_msg *m) {
    (void)ctx; (void)m;
    return 1;
}

__attribute__((constructor)) static void bsls_register(void) {
    papc_bg_register(PAPC_BG_BSLS_HELLO, bsls_serve);
    papc_bg_register(PAPC_BG_BSLS_PART, bsls_hold_part);
}

/* ---- BSLS: the senders ---- */

/* "I am here": starts the root monitor's job if it has not started. */
static int bsls_hello(const papc_call *c, const papc_arrival *a) {
    return papc_bg_send(c, a, c->root, PAPC_BG_BSLS_HELLO, NULL, NULL, 0,
                        MPI_BYTE);
}

static int bsls_send(const papc_call *c, const papc_arrival *a) {
    int64_t block =
        (int64_t)c->sendcount * (int64_t)papc_type_size(c->sendtype);
    papc_bg_msg go;
    papc_ls_parts p;
    int rc = bsls_hello(c, a);
    if (rc == MPI_SUCCESS)
        rc = papc_bg_take(c, a, c->root, PAPC_BG_BSLS_GO, &go);
    if (rc != MPI_SUCCESS) return rc;
    int64_t split = go.hdr[HDR_OFFSET];
    papc_bg_msg_free(&go);
    rc = papc_linear_sync_cut(c, split, &p);
    if (rc != MPI_SUCCESS) return rc;
    int64_t hdr[4] = {0, block, 0, 0};
    rc = papc_bg_send(c, a, c->root, PAPC_BG_BSLS_PART, hdr, p.buf[0],
                      p.count[0], p.type[0]);
    hdr[HDR_OFFSET] = split;
    if (rc == MPI_SUCCESS && p.n == 2)
        rc = papc_bg_send(c, a, c->root, PAPC_BG_BSLS_PART, hdr, p.buf[1],
                          p.count[1], p.type[1]);
    papc_linear_sync_cut_free(&p);
    return rc;
}

/* ---- BSLS: the root's call ---- */

/* Per sender: bytes received so far, whether any part came, and the
 * staging copy of a block whose parts do not fall on recvtype elements. */
typedef struct bsls_slot {
    int64_t got;
    int seen;
    char *stage;
} bsls_slot;

static int bsls_done(const bsls_slot *s, int64_t block) {
    return s->seen && s->got >= block;
}

/* One part of rank r's block: straight into its slot when it lies on
 * recvtype element boundaries, else into the staging copy, unpacked once
 * the block is complete. */
static int bsls_place(const papc_call *c, bsls_slot *s, papc_bg_msg *m,
                      int64_t block, size_t esize) {
    int64_t off = m->hdr[HDR_OFFSET];
    if (esize == 0) esize = 1; /* zero-size type: only empty parts fit */
    if (m->hdr[HDR_BLOCK] > block || off < 0 || off + m->bytes > block)
        return papc_error(MPI_ERR_TRUNCATE,
                          "background_sorted_linear_sync: rank %d sent %lld "
                          "bytes, the root takes %lld", m->source,
                          (long long)m->hdr[HDR_BLOCK], (long long)block);
    char *slot = papc_elem(c->recvbuf, c->recvtype,
                           (MPI_Aint)m->source * c->recvcount);
    /* The parts partition the block: when the block and one part lie on
     * element boundaries, so does the other. */
    int aligned = m->hdr[HDR_BLOCK] % (int64_t)esize == 0 &&
                  off % (int64_t)esize == 0 && m->bytes % (int64_t)esize == 0;
    s->seen = 1;
    s->got += m->bytes;
    block = m->hdr[HDR_BLOCK]; /* a shorter block is taken as a receive would */
    if (aligned && !s->stage)
        return papc_bg_unpack(m, papc_elem(slot, c->recvtype,
                                           off / (int64_t)esize),
                              (int)(m->bytes / (int64_t)esize), c->recvtype);
    if (!s->stage) {
        s->stage = malloc(block > 0 ? (size_t)block : 1);
        if (!s->stage) return papc_error(MPI_ERR_NO_MEM, "bsls staging");
    }
    if (m->bytes > 0) memcpy(s->stage + off, m->data, (size_t)m->bytes);
    if (s->got < block) return MPI_SUCCESS;
    papc_bg_msg whole = *m;
    whole.data = s->stage;
    whole.bytes = (int)block;
    return papc_bg_unpack(&whole, slot, (int)(block / (int64_t)esize),
                          c->recvtype);
}

static int bsls_root(const papc_call *c, const papc_arrival *a) {
    size_t esize = papc_type_size(c->recvtype);
    int64_t block = (int64_t)c->recvcount * (int64_t)esize;
    bsls_slot *slot = calloc((size_t)c->size, sizeof *slot);
    if (!slot) return papc_error(MPI_ERR_NO_MEM, "bsls slots");
    int rc = bsls_hello(c, a), left = c->size - 1;
    if (rc == MPI_SUCCESS && c->sendbuf != MPI_IN_PLACE)
        rc = papc_copy(c->sendbuf, c->sendcount, c->sendtype,
                       papc_elem(c->recvbuf, c->recvtype,
                                 (MPI_Aint)c->root * c->recvcount),
                       c->recvcount, c->recvtype);
    while (rc == MPI_SUCCESS && left > 0) {
        papc_bg_msg m;
        rc = papc_bg_take(c, a, MPI_ANY_SOURCE, PAPC_BG_BSLS_PART, &m);
        if (rc != MPI_SUCCESS) break;
        bsls_slot *s = &slot[m.source];
        if (m.source == c->root || bsls_done(s, m.hdr[HDR_BLOCK]))
            rc = papc_error(MPI_ERR_INTERN, "bsls: unexpected part from %d",
                            m.source);
        else
            rc = bsls_place(c, s, &m, block, esize);
        if (rc == MPI_SUCCESS && bsls_done(s, m.hdr[HDR_BLOCK])) left--;
        papc_bg_msg_free(&m);
    }
    for (int i = 0; i < c->size; i++) free(slot[i].stage);
    free(slot);
    return rc;
}

int papc_gather_background_sorted_linear_sync(const papc_call *c) {
    papc_arrival a;
    int is_root = c->rank == c->root;
    int rc = papc_arrival_begin(c, is_root ? PAPC_ORDER_LOCAL : PAPC_ORDER_NONE,
                                c->root, &a);
    if (rc != MPI_SUCCESS) return rc;
    if (!a.bg || c->size == 1)
        rc = is_root ? papc_linear_sync_root(c, a.order)
                     : papc_linear_sync_send(c);
    else
        rc = is_root ? bsls_root(c, &a) : bsls_send(c, &a);
    return papc_arrival_end(c, &a, rc);
}
