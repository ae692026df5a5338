/*
 * channel.c — the background channel of the B* algorithms: papc_bg_send
 * delivers to the destination's monitor thread, which receives at once
 * (also while its process computes) into the mailbox; the foreground takes
 * with papc_bg_take; handlers run in the monitor thread.
 *
 * Wire format: ONE message per papc_bg_send on the monitor's data comm,
 * tag TAG_BG: a 64-byte header (epoch, kind, hdr[4], sequence number,
 * bytes) followed by the packed data.  Header and data in one message mean
 * the foreground and the monitor thread of a process may both send to the
 * same peer (MPI leaves the order of two threads' sends undefined) without
 * a header ever being paired with the wrong data.  The per-destination
 * sequence number keeps the order of messages with the same (epoch,
 * source, kind) as the sender made them: a take picks the lowest sequence
 * number present.
 *
 * Handlers NEVER WAIT.  A handler runs to completion on the message it was
 * given: it may look at it, change its own state, send (non-blocking,
 * papc_bg_ctx_send) and leave the message for the foreground; there is no
 * call that lets it wait for another message (until issue 11 there was,
 * papc_bg_ctx_take, and the BSLS root job waited in it -- see below).  Work
 * that needs several messages (the BSLS root's job: a go-ahead, a part, the
 * next go-ahead, ...) is a state machine kept by the algorithm, per epoch,
 * advanced by the handler of each message that moves it on;
 * papc_bg_ctx_jobs tells the thread that such jobs are open, so that it
 * keeps polling at the short nap while they are.  The thread never blocks
 * on a send either (MPI_Isend, tested in its poll loop), and it receives
 * every message on ctl and data as it comes, whatever the state of any
 * call, with no limit but memory.
 *
 * Why back-to-back background collectives cannot deadlock (the wait-for
 * argument).  The actors are, per process p, its foreground F_p and its
 * monitor M_p.
 *  (a) M_p waits for nothing: its loop receives, runs each handler to
 *      completion, tests its sends and naps for at most 1 ms.  So any
 *      message sent to M_p is received, and its handler has run, a bounded
 *      time after it arrives, whatever F_p or any other process is doing.
 *      M_p is never a node on a wait-for cycle; every edge of such a cycle
 *      would have to join two foregrounds.
 *  (b) A foreground in the call of epoch e waits only for things of epoch
 *      e: a mailbox message of epoch e (matched by epoch), a point-to-point
 *      message of that call (the call's tag on the private comm), an
 *      agreed decision of e (tag e on dec, or, down the tree above 16
 *      ranks, kept by this process' monitor, which forwards it: a monitor
 *      action by (a)).  Each of them is produced by a
 *      foreground's action in call e, or by a chain of monitor actions
 *      (handlers) that starts at such an action: a BSBN scatter block is
 *      sent by the root's call and relayed by handlers; a BSLS go-ahead is
 *      sent by the root's job when (i) some rank's call of epoch e sent
 *      its HELLO and (ii) the parts of the ranks asked before came, i.e.
 *      when those ranks' calls of epoch e acted; a decision is sent by the
 *      decider's monitor at the first notice of e or by its call, and
 *      relayed by the monitors of the tree's inner ranks.  (A
 *      call also waits for its own background sends to complete: their
 *      receiver is a monitor, which by (a) receives.)
 *  (c) Within one call these dependencies are the algorithm's own and form
 *      no cycle: the scatter's root waits for nobody; a BSLS sender waits
 *      only for senders asked before it (a strict order), the root's call
 *      for all senders; and so on for every algorithm (each is checked
 *      against its single-call pattern by tests/mpi/test_coll.c).
 * Induction on the epoch: if every process completes its calls before e,
 * every process enters call e; by (b) every wait of call e is for an
 * action of call e on some process, reached by a monitor chain that (a)
 * always completes, and by (c) those actions are well-founded; so every
 * process completes call e.  A wait in call e never depends on a
 * foreground in another call, nor on a monitor finishing work for another
 * call, so no cycle of waits can span two collectives.
 * What broke it before: the BSLS root job of epoch e+1 ran inside one
 * handler and waited (papc_bg_ctx_take) for the part of a rank r, while
 * r's call was still in the BSBN scatter of epoch e and waited for a block
 * that only this same monitor could relay -- its relay handler was queued
 * behind the waiting job.  M_root then waited for F_r (call e+1) and F_r
 * for M_root (call e): a cycle, against (a).  Now the job of e+1 is a
 * state, the relay of e runs as soon as its block comes, r finishes the
 * scatter, enters the gather, and its part moves the job on.
 * Correctness never depends on an arrival prediction: the order a job asks
 * in (papc_bg_ctx_order) only changes which rank goes first.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#define HDR_BYTES 64
enum { H_EPOCH, H_KIND, H_U0, H_U1, H_U2, H_U3, H_SEQ, H_BYTES };

static papc_bg_handler handlers[ARR_MAX_KIND];

struct papc_bg_ctx {
    int epoch;
};

int papc_bg_register(int kind, papc_bg_handler h) {
    if (kind < 1 || kind >= ARR_MAX_KIND)
        return papc_error(MPI_ERR_ARG, "background kind %d out of range",
                          kind);
    handlers[kind] = h;
    return MPI_SUCCESS;
}

int papc_bg_available(const papc_call *c) {
    return papc_arr_served_cached(c);
}

/* ---- mailbox (mu held) ---- */

static void append(mbox_msg **list, mbox_msg *mm) {
    mm->next = NULL;
    while (*list) list = &(*list)->next;
    *list = mm;
}

/* Unlinks and returns the message of (epoch, source, kind) with the lowest
 * sequence number (MPI_ANY_SOURCE: the first that came), or NULL. */
static mbox_msg *find(mbox_msg **list, int epoch, int source, int kind) {
    mbox_msg **best = NULL;
    for (mbox_msg **p = list; *p; p = &(*p)->next) {
        papc_bg_msg *m = &(*p)->m;
        if (m->epoch != epoch || m->kind != kind) continue;
        if (source == MPI_ANY_SOURCE) {
            best = p;
            break;
        }
        if (m->source != source) continue;
        if (!best || (*p)->seq < (*best)->seq) best = p;
    }
    if (!best) return NULL;
    mbox_msg *mm = *best;
    *best = mm->next;
    mm->next = NULL;
    return mm;
}

static void free_list(mbox_msg **list) {
    while (*list) {
        mbox_msg *mm = *list;
        *list = mm->next;
        free(mm->m.data);
        free(mm);
    }
}

void papc_arr_free_mailbox(void) {
    free_list(&papc_mon.mbox);
    free_list(&papc_mon.pending);
}

void papc_arr_mailbox_gc(int before) {
    papc_tr_lock();
    for (mbox_msg **p = &papc_mon.mbox; *p;) {
        mbox_msg *mm = *p;
        if (mm->m.epoch < before) {
            *p = mm->next;
            free(mm->m.data);
            free(mm);
        } else {
            p = &mm->next;
        }
    }
    papc_tr_unlock();
}

/* ---- receiving (the thread) ---- */

void papc_arr_on_data(int source, char *buf, int n) {
    if (n < HDR_BYTES) {
        free(buf);
        return;
    }
    int64_t h[8];
    memcpy(h, buf, sizeof h);
    mbox_msg *mm = malloc(sizeof *mm);
    int bytes = (int)h[H_BYTES];
    if (!mm || bytes < 0 || bytes > n - HDR_BYTES) {
        free(mm);
        free(buf);
        return;
    }
    mm->next = NULL;
    mm->seq = (uint64_t)h[H_SEQ];
    mm->m.source = source;
    mm->m.kind = (int)h[H_KIND];
    mm->m.epoch = (int)h[H_EPOCH];
    for (int i = 0; i < 4; i++) mm->m.hdr[i] = h[H_U0 + i];
    mm->m.bytes = bytes;
    if (bytes > 0) {
        memmove(buf, buf + HDR_BYTES, (size_t)bytes);
        mm->m.data = buf;
    } else {
        mm->m.data = NULL;
        free(buf);
    }
    int k = mm->m.kind;
    papc_tr_lock();
    if (k >= 1 && k < ARR_MAX_KIND && handlers[k] && !papc_mon.quit)
        append(&papc_mon.pending, mm);
    else
        append(&papc_mon.mbox, mm);
    papc_tr_broadcast(PAPC_TR_CV);
    papc_tr_unlock();
}

int papc_arr_run_handlers(void) {
    int did = 0;
    for (;;) {
        papc_tr_lock();
        mbox_msg *mm = papc_mon.pending;
        if (mm) papc_mon.pending = mm->next;
        papc_tr_unlock();
        if (!mm) return did;
        did++;
        papc_bg_ctx ctx = {mm->m.epoch};
        int keep = handlers[mm->m.kind](&ctx, &mm->m);
        if (keep) {
            papc_tr_lock();
            append(&papc_mon.mbox, mm);
            papc_tr_broadcast(PAPC_TR_CV);
            papc_tr_unlock();
        } else {
            free(mm);  /* the handler freed the data */
        }
    }
}

/* ---- sending ---- */

/* A message: header + room for nbytes of data. */
static char *new_message(int epoch, int kind, const int64_t hdr[4], int dest,
                         int nbytes) {
    char *out = malloc((size_t)HDR_BYTES + (size_t)nbytes);
    if (!out) return NULL;
    int64_t h[8] = {epoch, kind, 0, 0, 0, 0, 0, nbytes};
    if (hdr)
        for (int i = 0; i < 4; i++) h[H_U0 + i] = hdr[i];
    papc_tr_lock();
    h[H_SEQ] = (int64_t)papc_mon.send_seq[dest]++;
    papc_tr_unlock();
    memcpy(out, h, sizeof h);
    memset(out + sizeof h, 0, HDR_BYTES - sizeof h);
    return out;
}

int papc_bg_isend(const papc_call *c, const papc_arrival *a, int dest,
                  int kind, const int64_t hdr[4], const void *buf, int count,
                  MPI_Datatype t, MPI_Request *req, void **mem) {
    *req = MPI_REQUEST_NULL;
    *mem = NULL;
    if (!a->bg || !papc_mon.running)
        return papc_error(MPI_ERR_INTERN, "no background channel");
    if (dest < 0 || dest >= c->size)
        return papc_error(MPI_ERR_RANK, "background send to rank %d", dest);
    int psize = 0;
    PAPC_CHECK(MPI_Pack_size(count, t, papc_mon.data, &psize));
    char *out = new_message(a->epoch, kind, hdr, dest, psize);
    if (!out) return papc_error(MPI_ERR_NO_MEM, "background message");
    int pos = 0;
    int rc = count > 0 ? MPI_Pack(buf, count, t, out + HDR_BYTES, psize, &pos,
                                  papc_mon.data)
                       : MPI_SUCCESS;
    if (rc == MPI_SUCCESS) {
        int64_t b = pos;
        memcpy(out + H_BYTES * sizeof(int64_t), &b, sizeof b);
        /* takes out: frees it on error */
        rc = papc_tr_isend(PAPC_TR_DATA, dest, TAG_BG, out, HDR_BYTES + pos,
                           req, mem);
        if (rc != MPI_SUCCESS) return papc_mpi_error(rc, "background send");
        papc_arr_count(STAT_BG, HDR_BYTES + pos);
        return MPI_SUCCESS;
    }
    free(out);
    return papc_mpi_error(rc, "background send");
}

int papc_bg_send(const papc_call *c, const papc_arrival *a, int dest,
                 int kind, const int64_t hdr[4], const void *buf, int count,
                 MPI_Datatype t) {
    MPI_Request req;
    void *mem;
    int rc = papc_bg_isend(c, a, dest, kind, hdr, buf, count, t, &req, &mem);
    if (rc == MPI_SUCCESS) rc = papc_waitall(1, &req);
    free(mem);
    return rc;
}

int papc_bg_take(const papc_call *c, const papc_arrival *a, int source,
                 int kind, papc_bg_msg *m) {
    (void)c;
    if (!a->bg) return papc_error(MPI_ERR_INTERN, "no background channel");
    papc_tr_lock();
    for (;;) {
        mbox_msg *mm = find(&papc_mon.mbox, a->epoch, source, kind);
        if (mm) {
            papc_tr_unlock();
            *m = mm->m;
            free(mm);
            return MPI_SUCCESS;
        }
        int rc = papc_arr_fg_wait("a background message");
        if (rc != MPI_SUCCESS) {
            papc_tr_unlock();
            return rc;
        }
    }
}

int papc_bg_unpack(const papc_bg_msg *m, void *buf, int count,
                   MPI_Datatype t) {
    size_t tsize = papc_type_size(t);
    if (m->bytes == 0) return MPI_SUCCESS;
    if (tsize == 0 || (size_t)m->bytes > (size_t)count * tsize)
        return papc_error(MPI_ERR_TRUNCATE, "background message of %d bytes "
                          "does not fit %d elements", m->bytes, count);
    if ((size_t)m->bytes % tsize != 0)
        return papc_error(MPI_ERR_TYPE, "background message of %d bytes is "
                          "not a whole number of elements", m->bytes);
    int pos = 0;
    PAPC_CHECK(MPI_Unpack(m->data, m->bytes, &pos, buf,
                          (int)((size_t)m->bytes / tsize), t, papc_mon.data));
    return MPI_SUCCESS;
}

void papc_bg_msg_free(papc_bg_msg *m) {
    free(m->data);
    m->data = NULL;
    m->bytes = 0;
}

/* ---- handler context (the thread) ---- */

int papc_bg_ctx_rank(const papc_bg_ctx *ctx) { (void)ctx; return papc_mon.rank; }
int papc_bg_ctx_size(const papc_bg_ctx *ctx) { (void)ctx; return papc_mon.size; }
int papc_bg_ctx_epoch(const papc_bg_ctx *ctx) { return ctx->epoch; }
int papc_bg_ctx_instance(const papc_bg_ctx *ctx) { (void)ctx; return papc_mon.instance; }

void papc_bg_ctx_order(papc_bg_ctx *ctx, int *order) {
    double *off = malloc((size_t)papc_mon.size * sizeof *off);
    int known;
    if (!off) {
        for (int i = 0; i < papc_mon.size; i++) order[i] = i;
        return;
    }
    papc_tr_lock();
    papc_arr_form(ctx->epoch, order, off, &known);
    papc_tr_unlock();
    free(off);
}

int papc_bg_ctx_send(papc_bg_ctx *ctx, int dest, int kind,
                     const int64_t hdr[4], const void *bytes, int nbytes) {
    if (dest < 0 || dest >= papc_mon.size || nbytes < 0)
        return papc_error(MPI_ERR_ARG, "background send to rank %d", dest);
    char *out = new_message(ctx->epoch, kind, hdr, dest, nbytes);
    if (!out) return papc_error(MPI_ERR_NO_MEM, "background message");
    if (nbytes > 0) memcpy(out + HDR_BYTES, bytes, (size_t)nbytes);
    papc_arr_count(STAT_BG, HDR_BYTES + nbytes);
    return papc_arr_isend(out, HDR_BYTES + nbytes, dest, TAG_BG,
                          papc_mon.data);
}

void papc_bg_ctx_jobs(papc_bg_ctx *ctx, int kind, int open) {
    (void)ctx;
    if (kind < 1 || kind >= ARR_MAX_KIND) return;
    papc_mon.jobs[kind] = open > 0 ? open : 0;
}

int papc_arr_jobs_open(void) {
    for (int k = 1; k < ARR_MAX_KIND; k++)
        if (papc_mon.jobs[k]) return 1;
    return 0;
}
