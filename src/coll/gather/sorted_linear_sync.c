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
 * opens the epoch's job in the root's monitor thread (later HELLOs of the
 * epoch are consumed): for each rank in the monitor's order (skipping the
 * root) it sends a GO carrying the split offset, and it asks the next
 * rank once that rank's first part has come and the previous rank's
 * block is complete (the synchronisation of linear_sync: one sender
 * starts at a time; at most two senders' data in flight, as linear_sync's
 * overlap of a second part with the next turn).  The job is a state
 * machine advanced by the handler of each PART (bsls_advance); no handler
 * ever waits, so while a job waits for a late sender the monitor keeps
 * serving every other message -- the relay of a BSBN scatter the late
 * sender may still be in (issue 11: with a job that waited inside its
 * handler, scatter BSBN followed by gather BSLS hung; the wait-for
 * argument is in src/arrival/channel.c).  The PART handler leaves each
 * part in the mailbox after counting it.  A sender takes its GO from its
 * mailbox and sends its part(s) to the root's mailbox.  The root's call
 * copies its own block, then takes the parts from its mailbox in the
 * order they came and unpacks them into recvbuf.  Without a background
 * channel (a.bg == 0, the same on every rank) or with P = 1, BSLS runs
 * SLS.
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
 * (5) Fig. 10's background loop waits (lines 5-9); here it is a state
 *     machine advanced by message handlers, because the monitor thread
 *     that runs it also serves every other background call of its process
 *     and must never wait (see above). */
#include <stdlib.h>
#include <string.h>
#include "../coll.h"
#include "../bcast/model_bgs.h"
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

/* The root job of one epoch: a state machine that only handlers touch
 * (the root's monitor thread), never waiting in between.
 *   order[k]   the ranks in the order they are asked (the monitor's local
 *              order when the job starts; the root is skipped);
 *   next       index in order of the next rank to ask;
 *   cur, prev  the rank asked last and the one asked before it (-1);
 *   seen[r]    a part of r came (its first: a sender's parts come in the
 *              order it sent them, see below);
 *   got[r], block[r]  bytes of r's parts seen, r's block bytes;
 *   left       senders whose block is not complete.
 * The next GO goes out when cur's first part has come and prev's block is
 * complete: one sender starts at a time (linear_sync's synchronisation),
 * and at most two senders' data are in flight (cur's second part overlaps
 * the next rank's turn).  The job ends (is freed) when every block is
 * complete.  A sender's parts come in order: it sends them one after the
 * other on the same comm and tag (MPI's non-overtaking order), the
 * monitor hands messages on in matching order per source, and handlers
 * run in that order. */
typedef struct bsls_job {
    struct bsls_job *next;
    int epoch, size, me;
    int *order;
    int next_k, cur, prev, left;
    int64_t split;
    char *seen;
    int64_t *got, *block;
} bsls_job;

/* [monitor thread] open jobs, newest first; the instance they belong to */
static bsls_job *bsls_jobs;
static int bsls_njobs, bsls_instance = -1;

/* Which epochs' jobs have started.  Jobs start in epoch order: a sender
 * enters epoch e+1 only after it sent its part(s) of e, which came after
 * job e's GO to it, so job e started before any HELLO of a later epoch
 * comes.  A HELLO starts a job iff its epoch is past the last started one;
 * a late HELLO (the root's own, when a sender's came first, possibly many
 * epochs later when the senders run ahead of a slow root) is ignored.  A
 * table counting HELLOs per epoch, bounded in size, once evicted an epoch
 * whose root HELLO had not come yet when senders ran ahead, and the late
 * HELLO then started a second job for it, which waited forever.
 * Any number of jobs may be open at once, each advancing on its own
 * epoch's parts: senders that arrive early run ahead of a late one through
 * many epochs, each epoch's job asking them first and then waiting for the
 * late sender.  A job is freed only when complete (or when the monitor
 * restarts): dropping "old" open jobs (once tried, at 64 epochs behind)
 * hung every epoch whose job was dropped before its late sender came.  A
 * job stays open forever only when a sender never sends its part, and then
 * the root's call hangs anyway. */
static int bsls_last_epoch = -1;

static void bsls_job_free(bsls_job *j) {
    free(j->order);
    free(j->seen);
    free(j->got);
    free(j->block);
    free(j);
}

static void bsls_unlink(bsls_job *j) {
    for (bsls_job **p = &bsls_jobs; *p; p = &(*p)->next)
        if (*p == j) {
            *p = j->next;
            bsls_njobs--;
            return;
        }
}

/* A new monitor instance: epochs start again at 0, old jobs are void. */
static void bsls_check_instance(papc_bg_ctx *ctx) {
    int inst = papc_bg_ctx_instance(ctx);
    if (inst == bsls_instance) return;
    bsls_instance = inst;
    bsls_last_epoch = -1;
    while (bsls_jobs) {
        bsls_job *j = bsls_jobs;
        bsls_jobs = j->next;
        bsls_job_free(j);
    }
    bsls_njobs = 0;
}

static bsls_job *bsls_find(int epoch) {
    for (bsls_job *j = bsls_jobs; j; j = j->next)
        if (j->epoch == epoch) return j;
    return NULL;
}

static int bsls_complete(const bsls_job *j, int r) {
    return j->seen[r] && j->got[r] >= j->block[r];
}

/* Sends every GO the state allows now; never waits. */
static void bsls_advance(papc_bg_ctx *ctx, bsls_job *j) {
    for (;;) {
        if (j->cur >= 0 && !j->seen[j->cur]) return;
        if (j->prev >= 0 && !bsls_complete(j, j->prev)) return;
        while (j->next_k < j->size && j->order[j->next_k] == j->me)
            j->next_k++;
        if (j->next_k == j->size) return;
        int r = j->order[j->next_k++];
        int64_t go[4] = {j->split, 0, 0, 0};
        /* A failed MPI_Isend in the monitor leaves r (and the root's call)
         * waiting, as any lost message would; nothing better to do here. */
        if (papc_bg_ctx_send(ctx, r, PAPC_BG_BSLS_GO, go, NULL, 0) !=
            MPI_SUCCESS)
            return;
        j->prev = j->cur;
        j->cur = r;
    }
}

/* HELLO: the first of an epoch opens its job and sends the first GO. */
static int bsls_on_hello(papc_bg_ctx *ctx, papc_bg_msg *hello) {
    papc_bg_msg_free(hello);
    bsls_check_instance(ctx);
    int e = papc_bg_ctx_epoch(ctx), size = papc_bg_ctx_size(ctx);
    if (e <= bsls_last_epoch || size == 1) return 0;
    bsls_last_epoch = e;
    bsls_job *j = calloc(1, sizeof *j);
    if (j) {
        j->order = malloc((size_t)size * sizeof *j->order);
        j->seen = calloc((size_t)size, 1);
        j->got = calloc((size_t)size, sizeof *j->got);
        j->block = calloc((size_t)size, sizeof *j->block);
    }
    if (!j || !j->order || !j->seen || !j->got || !j->block) {
        /* Cannot happen in practice; the senders would wait for their GO
         * and the root's call for their parts. */
        if (j) bsls_job_free(j);
        return 0;
    }
    j->epoch = e;
    j->size = size;
    j->me = papc_bg_ctx_rank(ctx);
    papc_bg_ctx_order(ctx, j->order);
    size_t fs = papc_env_size("PAPC_GATHER_FIRST_SEGMENT",
                              BSLS_DEFAULT_FIRST_SEGMENT);
    j->split = fs == 0 ? PAPC_LS_ONE_PART : (int64_t)fs;
    j->cur = j->prev = -1;
    j->left = size - 1;
    j->next = bsls_jobs;
    bsls_jobs = j;
    bsls_njobs++;
    bsls_advance(ctx, j);
    papc_bg_ctx_jobs(ctx, PAPC_BG_BSLS_HELLO, bsls_njobs);
    return 0;
}

/* PART: moves its epoch's job on, then leaves the part in the mailbox for
 * the root's call.  The job only counts bytes; the call unpacks. */
static int bsls_on_part(papc_bg_ctx *ctx, papc_bg_msg *m) {
    bsls_check_instance(ctx);
    bsls_job *j = bsls_find(m->epoch);
    int r = m->source;
    if (!j || r < 0 || r >= j->size || r == j->me || bsls_complete(j, r))
        return 1; /* not the job's to count: the call will judge it */
    j->seen[r] = 1;
    j->block[r] = m->hdr[HDR_BLOCK];
    j->got[r] += m->bytes;
    if (bsls_complete(j, r)) j->left--;
    bsls_advance(ctx, j);
    if (j->left == 0) {
        bsls_unlink(j);
        bsls_job_free(j);
    }
    papc_bg_ctx_jobs(ctx, PAPC_BG_BSLS_HELLO, bsls_njobs);
    return 1;
}

__attribute__((constructor)) static void bsls_register(void) {
    papc_bg_register(PAPC_BG_BSLS_HELLO, bsls_on_hello);
    papc_bg_register(PAPC_BG_BSLS_PART, bsls_on_part);
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

/* ---- cost models (issue 12), balanced arrivals ---- */

/* SLS: papc_gather_linear_sync_model.  Balanced arrivals leave the order
 * nothing to win; the root forms it alone (PAPC_ORDER_LOCAL, no message,
 * line 85) and the senders' 32-byte arrival notices (papc_arrival_begin)
 * go out while the first go-ahead is on its way (in the traffic: P - 1
 * more messages, 32 bytes each). */
papc_terms papc_gather_sorted_linear_sync_model(const papc_model_in *in) {
    if (in->m <= 0) return papc_terms_zero();
    return papc_bgs_notices_traffic(papc_gather_linear_sync_model(in), in->P);
}

/* BSLS, with the background channel (64-byte header on every message,
 * channel.c; the sender packs its part into the message, δ per byte, and
 * the root's call unpacks it, δ per byte), first part f as in SLS (not
 * rounded, bsls_on_hello), m2 = m - f:
 *   T = (α + 64β)                 the first HELLO opens the job (bsls_send
 *                                 and bsls_root, lines 290 and 366)
 *     + turns + mδ + m_l δ
 *   one part:   (P-1) A,  A = (α + 64β) + mδ + (α + (64 + m)β)
 *   two parts:  A + (P-2) max(A, B) + B,
 *               A = (α + 64β) + fδ + (α + (64 + f)β),
 *               B = m2 δ + (α + (64 + m2)β)
 * A turn: the job sends the GO (bsls_advance, line 195: header only) when
 * the previous rank's first part has come and the one before is complete,
 * so a rank's second part B runs during the next rank's turn A, which
 * cannot end before it (term by term, papc_bgs_max); the sender packs and
 * sends its first part on the GO (bsls_send, line 285), then its second.
 * The monitor takes every part as it comes, so the eager limit plays no
 * part.  The root's call copies its own block (mδ, line 368) and unpacks
 * each part as it comes (line 374), the last one, m_l = m2 (m for one
 * part), after everything arrived.  P = 1 runs SLS: the copy.
 * Traffic (bsls_traffic): the notices; a HELLO from every rank, the root's
 * to its own monitor included (P messages of 64 bytes); a GO per non-root
 * (64 bytes); its one or two parts (64 bytes + the data each). */
static papc_terms bsls_traffic(const papc_model_in *in, double parts,
                               papc_terms t) {
    double n = in->P - 1;
    t = papc_bgs_notices_traffic(t, in->P);
    return papc_terms_traffic(t, in->P + n + n * parts,
                              64.0 * in->P + 64 * n + n * (64 * parts + in->m));
}

papc_terms papc_gather_background_sorted_linear_sync_model(
    const papc_model_in *in) {
    if (in->P <= 1 || in->m <= 0) return papc_gather_linear_sync_model(in);
    double f = papc_bgs_first_segment(), m2 = in->m - f;
    papc_terms hdr = papc_msg(64), t;
    if (f <= 0 || f >= in->m) {
        papc_terms a = papc_terms_add(hdr, papc_bgs_copy(in->m));
        a = papc_terms_add(a, papc_msg(64 + in->m));
        t = papc_terms_axpy(hdr, in->P - 1, a);
        return bsls_traffic(in, 1, papc_terms_add(t, papc_bgs_copy(2 * in->m)));
    }
    papc_terms a = papc_terms_add(hdr, papc_bgs_copy(f));
    a = papc_terms_add(a, papc_msg(64 + f));
    papc_terms b = papc_terms_add(papc_bgs_copy(m2), papc_msg(64 + m2));
    t = papc_terms_add(hdr, papc_terms_add(a, b));
    t = papc_terms_axpy(t, in->P - 2, papc_bgs_max(a, b));
    return bsls_traffic(in, 2, papc_terms_add(t, papc_bgs_copy(in->m + m2)));
}
