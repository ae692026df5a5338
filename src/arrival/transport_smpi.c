/*
 * transport_smpi.c — the arrival runtime's transport under SimGrid SMPI
 * (transport.h; compiled with -DPAPC_SMPI by smpicc, the library linked
 * statically into the program so that SMPI privatizes its globals per
 * rank).
 *
 * SMPI runs every rank as an s4u actor of one single-threaded simulation:
 * a pthread cannot call MPI there and a blocking pthread primitive would
 * stop the whole simulation.  So:
 *  - the monitor is a second actor on the rank's host (sg_actor_create from
 *    the rank: it shares the rank's privatized globals), which calls
 *    SMPI_thread_create() first so that it may make MPI calls as its rank;
 *  - the lock is an sg_mutex, each condition a semaphore (papc_tr_wait),
 *    the clock the simulated one;
 *  - messages TO a monitor (CTL, DATA) go through s4u mailboxes, one per
 *    (channel, rank): SMPI delivers an MPI message to the main actor of the
 *    destination rank only, so a second actor never receives one (this is
 *    why a first probe, whose helper actors exchanged MPI messages on a dup
 *    of MPI_COMM_WORLD, deadlocked).  The payload is an envelope whose
 *    first word points to itself: SMPI's copy callback hands the receiver
 *    the first 8 bytes AT the payload, so the receiver gets the envelope's
 *    address; the envelope and its buffer then belong to the receiver.  The
 *    simulated size is the message's bytes.  A receive is posted only when
 *    sg_mailbox_listen says a message waits (like MPI_Improbe), so no
 *    receive is left dangling at shutdown; several stream at once; a
 *    per-(channel, source) sequence number hands them on in the order the
 *    source sent them, whatever order they complete in;
 *  - decisions (DEC) go to a rank's foreground as MPI messages: the
 *    monitor's MPI_Isend reaches the main actor, whose receive names
 *    MPI_ANY_SOURCE (SMPI reports a second actor's sends as coming from
 *    MPI_UNDEFINED; the tag names the epoch).  Below SMPI's detached-send
 *    threshold (smpi/send-is-detached-thresh, 64 KiB) SMPI copies the
 *    buffer at once, so the request is freed at once: every MPI_Test costs
 *    simulated time in SMPI (smpi/test, 100 us), which would slow the
 *    monitor's every poll.  Larger ones (P >= 4096) are tested.
 *  - naps are event-driven (issue 16, P = 4,096): the monitor's polls
 *    and naps (20 us - 1 ms, transport_mpi.c's rhythm) were up to 2e8
 *    simulation events per simulated second at P = 4,096.  Here every
 *    monitor is the permanent receiver of its mailboxes (a put flows at
 *    once and completes without waiting for the receiver's poll, as an
 *    eager MPI message does); every put has a courier, an actor that
 *    waits for it and, when its bytes have arrived, releases the WAKE
 *    semaphores of its receiver's monitor (found through a table of all
 *    ranks' semaphores hung on the platform's first host: privatized
 *    globals are per rank) and of its sender's (see hand_over); and a
 *    monitor naps until WAKE or a long guard (PAPC_SMPI_NAP_GUARD_US,
 *    10 ms) instead of the monitor's poll interval.  It keeps the short
 *    naps only with a send no courier announces (a DEC send that is
 *    tested) or messages left in its mailboxes (a round takes 64 per
 *    channel): a completion cannot release a semaphore, and SimGrid
 *    3.32's timed sg_comm_wait_*_for release the comms on timeout.
 *    Everything the monitor reacts to is a message's arrival, a WAKE from
 *    its foreground, or a completion of its own transfers, so no poll is
 *    lost.  Woken when a put was posted instead (until session 5 of issue
 *    16), a monitor found the message still in flight and polled at
 *    20 us until it came: ~40 us per turn of BSLS's chain, growing BSLS
 *    with P (docs/scale.md, "At 512-4,096 processes", section 7).
 *    PAPC_SMPI_EVENT_NAP=0 restores the polling rhythm (no couriers);
 *    PAPC_SMPI_NAP_STATS=1 prints the simulation's totals at the end.
 * Scheduling is cooperative (one actor runs at a time, switching only in
 * simcalls), so the lists below need no lock as long as no simcall
 * separates reading and writing them.
 */
#ifdef PAPC_SMPI
#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <simgrid/mutex.h>
#include <simgrid/semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xbt/config.h>
#include "internal.h"
#include "transport.h"

static sg_mutex_t mu;
static sg_sem_t conds[2];     /* the conditions: see papc_tr_wait */
static sg_actor_t actor;
static void (*actor_fn)(void);
static MPI_Comm dec_comm = MPI_COMM_NULL;
static MPI_Comm done_comm = MPI_COMM_NULL;   /* see papc_tr_isend */
static int done_tag;
static int my_rank, nranks;
static int *world_of;                 /* [size] world rank of each rank */
static sg_mailbox_t *boxes[2];        /* [size] per channel, lazily */
static uint64_t *next_seq[2];         /* [size] sent per channel and dest */
static uint64_t *want_seq[2];         /* [size] next to hand on per source */

/* What goes through a mailbox. */
typedef struct envelope {
    struct envelope *self;   /* first: what the receiver is handed */
    int source, tag, bytes;
    uint64_t seq;
    char *buf;
} envelope;

typedef struct pending {
    struct pending *next;
    sg_comm_t comm;          /* put or get */
    MPI_Request req;         /* DEC: a tested MPI send */
    void *buf;               /* DEC: its buffer */
    int done_tag;            /* the foreground's put: tag of its wait */
    void *got;               /* get: the envelope, when done */
    envelope *env;           /* done gets waiting for their turn */
    int handed_over;         /* put: its courier owns comm (see below) */
    volatile int arrived;    /* put: set by its courier */
} pending;

/* The table of every rank's WAKE semaphore, shared by all ranks of the
 * simulation (host data of the platform's first host; heap memory is not
 * privatized), and the naps' counters. */
#define REGISTRY_MAGIC 0x70617063u   /* "papc" */
typedef struct registry {
    unsigned magic;
    int size;                /* world ranks */
    int open;                /* transports open now */
    sg_sem_t *wake;          /* [size] by world rank, NULL when closed */
    long long naps, long_naps, woken, puts, couriers;
} registry;
static registry *reg;        /* NULL: polling naps only */
static int event_naps;       /* 1: naps wait for events (header) */
static double nap_guard;     /* seconds */

static int *live_couriers;   /* heap: the couriers of this rank's puts
                                still running (see hand_over) */
static pending *sends;       /* [th] the monitor's puts and DEC sends */
static pending *fg_sends;    /* [fg] the foreground's puts, merged by the
                                monitor at its next progress */
static pending *gets[2];     /* [th] receives in flight */
static pending *held[2];     /* [th] received, before their turn */
static pending *ready[2];    /* [th] in order, for papc_tr_take */
/* papc_tr_counts (one actor runs at a time: plain counters do). */
static long long n_sent, n_received;

void papc_tr_counts(long long *sent, long long *received) {
    *sent = n_sent;
    *received = n_received;
}

int papc_tr_threads_ok(void) { return 1; }

static void ensure_sync(void) {
    if (!mu) {
        mu = sg_mutex_init();
        conds[0] = sg_sem_init(0);
        conds[1] = sg_sem_init(0);
    }
}

static void free_tables(void) {
    free(world_of);
    world_of = NULL;
    for (int c = 0; c < 2; c++) {
        free(boxes[c]);
        free(next_seq[c]);
        free(want_seq[c]);
        boxes[c] = NULL;
        next_seq[c] = want_seq[c] = NULL;
    }
}

static registry *find_registry(void) {
    sg_host_t *hosts = sg_host_list();
    if (!hosts) return NULL;
    sg_host_t h = sg_host_count() > 0 ? hosts[0] : NULL;
    free(hosts);
    if (!h) return NULL;
    registry *r = sg_host_get_data(h);
    if (r) return r->magic == REGISTRY_MAGIC ? r : NULL;   /* not ours */
    int world;
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    r = calloc(1, sizeof *r);
    if (!r || !(r->wake = calloc((size_t)world, sizeof *r->wake))) {
        free(r);
        return NULL;
    }
    r->magic = REGISTRY_MAGIC;
    r->size = world;
    sg_host_set_data(h, r);   /* lives as long as the simulation */
    return r;
}

static void nap_settings(void) {
    const char *e = getenv("PAPC_SMPI_EVENT_NAP");
    const char *g = getenv("PAPC_SMPI_NAP_GUARD_US");
    char *end;
    double us = g && *g ? strtod(g, &end) : 10000;
    if (g && *g && (*end || !(us > 0))) us = 10000;
    nap_guard = us * 1e-6;
    reg = find_registry();
    event_naps = reg && !(e && !strcmp(e, "0"));
}

/* Cuts the nap of world rank w's monitor short (a message for it). */
static void wake_world(int w) {
    if (!event_naps || w < 0 || w >= reg->size || !reg->wake[w]) return;
    if (sg_sem_get_capacity(reg->wake[w]) == 0) sg_sem_release(reg->wake[w]);
}

static void print_nap_stats(void) {
    const char *s = getenv("PAPC_SMPI_NAP_STATS");
    if (!reg || !s || !*s || !strcmp(s, "0")) return;
    fprintf(stderr, "papcoll smpi naps: event-driven %d guard %.0f us: naps "
            "%lld (long %lld, woken %lld), puts %lld (couriers %lld), "
            "simulated %.6f s\n",
            event_naps, nap_guard * 1e6, reg->naps, reg->long_naps,
            reg->woken, reg->puts, reg->couriers, simgrid_get_clock());
}

int papc_tr_open(MPI_Comm ctl, MPI_Comm data, MPI_Comm dec, int rank,
                 int size) {
    (void)data;
    ensure_sync();
    nap_settings();
    dec_comm = dec;
    if (MPI_Comm_dup(ctl, &done_comm) != MPI_SUCCESS)
        return papc_error(MPI_ERR_OTHER, "SMPI transport");
    my_rank = rank;
    nranks = size;
    n_sent = n_received = 0;
    world_of = malloc((size_t)size * sizeof *world_of);
    int *ranks = malloc((size_t)size * sizeof *ranks);
    int ok = world_of && ranks;
    for (int c = 0; c < 2 && ok; c++) {
        boxes[c] = calloc((size_t)size, sizeof *boxes[c]);
        next_seq[c] = calloc((size_t)size, sizeof *next_seq[c]);
        want_seq[c] = calloc((size_t)size, sizeof *want_seq[c]);
        ok = boxes[c] && next_seq[c] && want_seq[c];
    }
    if (!ok) {
        free(ranks);
        free_tables();
        return papc_error(MPI_ERR_NO_MEM, "SMPI transport");
    }
    /* Mailboxes are global to the simulation: name them by world rank. */
    MPI_Group g, w;
    MPI_Comm_group(ctl, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    for (int r = 0; r < size; r++) ranks[r] = r;
    MPI_Group_translate_ranks(g, size, ranks, w, world_of);
    MPI_Group_free(&g);
    MPI_Group_free(&w);
    free(ranks);
    if (reg) {
        reg->wake[world_of[my_rank]] = conds[PAPC_TR_WAKE];
        reg->open++;
    }
    if (event_naps && !(live_couriers = calloc(1, sizeof *live_couriers)))
        event_naps = 0;   /* no couriers: poll */
    return MPI_SUCCESS;
}

static sg_mailbox_t box(int chan, int rank) {
    if (!boxes[chan][rank]) {
        char name[64];
        snprintf(name, sizeof name, "papc-monitor-%d-%d", chan,
                 world_of[rank]);
        boxes[chan][rank] = sg_mailbox_by_name(name);
    }
    return boxes[chan][rank];
}

static void actor_main(int argc, char **argv) {
    (void)argc; (void)argv;
    SMPI_thread_create();   /* may call MPI as its rank (DEC sends) */
    if (event_naps)   /* puts to this monitor flow at once (header) */
        for (int c = 0; c < 2; c++) {
            char name[64];
            snprintf(name, sizeof name, "papc-monitor-%d-%d", c,
                     world_of[my_rank]);
            sg_mailbox_set_receiver(name);
        }
    actor_fn();
}

int papc_tr_start(void (*fn)(void)) {
    actor_fn = fn;
    actor = sg_actor_create("papc-monitor", sg_host_self(), actor_main, 0,
                            NULL);
    return actor ? MPI_SUCCESS : MPI_ERR_OTHER;
}

void papc_tr_join(void) {
    sg_actor_join(actor, -1);
    actor = NULL;
}

void papc_tr_lock(void) {
    ensure_sync();
    sg_mutex_lock(mu);
}
void papc_tr_unlock(void) { sg_mutex_unlock(mu); }
/* A condition is a semaphore of at most one token.  SimGrid 3.32's
 * sg_cond_wait_for is broken (on its timeout it returns without the mutex,
 * and a notify before the timeout did not wake it:
 * tests/smpi/probes/cond_wait_for.c), and each condition here has one
 * waiter only (CV: the foreground in papc_bg_take; WAKE: the monitor's
 * nap), so a token left by a signal nobody waited for only makes the next
 * wait return at once -- a spurious wake-up, which every waiter already
 * tolerates. */
static void post(int cond) {
    if (sg_sem_get_capacity(conds[cond]) == 0) sg_sem_release(conds[cond]);
}
void papc_tr_signal(int cond) { post(cond); }
void papc_tr_broadcast(int cond) { post(cond); }
/* The monitor's nap (WAKE): everything it waits for releases WAKE
 * (header: couriers), so it naps until then or the guard; with a tested
 * send or a backlog, the poll interval it asked for. */
static int backlog(void);
static int tested_sends(void);

static double nap_length(double seconds) {
    if (!event_naps || tested_sends() || backlog()) return seconds;
    reg->long_naps++;
    return seconds > nap_guard ? seconds : nap_guard;
}

static void count_wake(int woken) {
    if (!reg) return;
    reg->naps++;
    if (woken) reg->woken++;
}

void papc_tr_wait(int cond, double seconds) {
    if (cond == PAPC_TR_WAKE) seconds = nap_length(seconds);
    sg_mutex_unlock(mu);
    int timed_out = sg_sem_acquire_timeout(conds[cond], seconds);
    sg_mutex_lock(mu);
    if (cond == PAPC_TR_WAKE) count_wake(!timed_out);
}

/* Only the monitor pauses (monitor.c: the foreground waits on it, a
 * command is queued, or shutdown): the same nap, without the lock. */
void papc_tr_pause(double seconds) {
    if (!event_naps) {
        sg_actor_sleep_for(seconds);
        return;
    }
    seconds = nap_length(seconds);
    count_wake(!sg_sem_acquire_timeout(conds[PAPC_TR_WAKE], seconds));
}

double papc_tr_now(void) { return simgrid_get_clock(); }

double papc_tr_thread_cpu(void) { return 0; }

/* ---- sends ---- */

static pending *put(int chan, int dest, int tag, void *buf, int bytes) {
    envelope *e = malloc(sizeof *e);
    pending *p = e ? calloc(1, sizeof *p) : NULL;
    if (!p) {
        free(e);
        return NULL;
    }
    *e = (envelope){e, my_rank, tag, bytes, next_seq[chan][dest]++, buf};
    p->comm = sg_mailbox_put_async(box(chan, dest), e, bytes);
    if (tag != PAPC_TR_TAG_UNCOUNTED) n_sent++;
    if (reg) reg->puts++;
    return p;
}

/* ---- couriers: the receiver woken when a put has arrived ----
 * A put flows at once (its receiver's monitor is the mailbox's permanent
 * receiver), but only a semaphore ends a nap, and a comm's completion
 * releases none.  So with event-driven naps every put gets a courier: a
 * small actor on the sender's host that waits for the put (it owns the
 * comm from then on), marks it arrived, and posts the WAKE of the
 * receiver's monitor, then the sender's (which completes the put: frees
 * it, tells a waiting foreground).  Until session 5 of issue 16 the put
 * itself posted the receiver's WAKE, at send time: the monitor woke to a
 * transfer still in flight and polled at 20 us until it came, ~20 us per
 * message, so each turn of BSLS's chain (a go-ahead, then a part) cost
 * ~40 us and the root's P - 1 turns grew with P (docs/scale.md, section
 * 7).  papc_tr_close waits for its couriers' ends: none outlives it. */
typedef struct courier {
    sg_comm_t comm;
    pending *p;
    registry *reg;
    int dest_world;
    sg_sem_t wake_sender;
    int *live;               /* the sender's couriers not yet ended */
} courier;

static void post_sem(sg_sem_t s) {
    if (s && sg_sem_get_capacity(s) == 0) sg_sem_release(s);
}

/* Touches no global: a courier is no SMPI rank, so which rank's
 * privatized globals it would see is nothing to rely on. */
static void courier_main(int argc, char **argv) {
    (void)argc; (void)argv;
    courier *c = sg_actor_self_get_data();
    sg_comm_wait(c->comm);   /* releases the comm */
    c->p->arrived = 1;       /* the sender may free p from here on */
    post_sem(c->reg->wake[c->dest_world]);
    post_sem(c->wake_sender);
    int *live = c->live;
    free(c);
    --*live;
}

#define COURIER_STACK (256 * 1024)   /* bytes; a rank has 4 MiB (sim/run) */

/* Gives p's comm to a courier; without one, p stays tested (short naps). */
static void hand_over(pending *p, int dest) {
    if (!event_naps) return;
    courier *c = malloc(sizeof *c);
    sg_actor_t a = c ? sg_actor_init("papc-courier", sg_host_self()) : NULL;
    if (!a) {
        free(c);
        return;
    }
    *c = (courier){p->comm, p, reg, world_of[dest], conds[PAPC_TR_WAKE],
                   live_couriers};
    p->handed_over = 1;
    ++*live_couriers;
    reg->couriers++;
    sg_actor_set_data(a, c);
    sg_actor_set_stacksize(a, COURIER_STACK);
    sg_actor_start(a, courier_main, 0, NULL);
}

/* At close every put has arrived, but a courier may still be posting. */
static void wait_couriers(void) {
    if (!live_couriers) return;
    for (int spins = 0; *live_couriers > 0; spins++)
        if (spins < 1000) sg_actor_yield();
        else sg_actor_sleep_for(1e-6);
    free(live_couriers);
    live_couriers = NULL;
}

static int send_dec(int dest, int tag, void *buf, int bytes) {
    pending *p = calloc(1, sizeof *p);
    if (!p) {
        free(buf);
        return papc_error(MPI_ERR_NO_MEM, "monitor send");
    }
    int rc = MPI_Isend(buf, bytes, MPI_BYTE, dest, tag, dec_comm, &p->req);
    if (rc != MPI_SUCCESS) {
        free(buf);
        free(p);
        return papc_mpi_error(rc, "MPI_Isend (monitor)");
    }
    if (bytes < sg_cfg_get_int("smpi/send-is-detached-thresh")) {
        /* SMPI copied buf: nothing left to test */
        MPI_Request_free(&p->req);
        free(buf);
        free(p);
        return MPI_SUCCESS;
    }
    p->buf = buf;
    p->next = sends;
    sends = p;
    return MPI_SUCCESS;
}

int papc_tr_send(int chan, int dest, int tag, void *buf, int bytes) {
    if (chan == PAPC_TR_DEC) return send_dec(dest, tag, buf, bytes);
    pending *p = put(chan, dest, tag, buf, bytes);
    if (!p) {
        free(buf);
        return papc_error(MPI_ERR_NO_MEM, "monitor send");
    }
    hand_over(p, dest);
    p->next = sends;
    sends = p;
    return MPI_SUCCESS;
}

int papc_tr_send_wait(int chan, int dest, int tag, const void *buf,
                      int bytes) {
    char *copy = malloc(bytes > 0 ? (size_t)bytes : 1);
    if (!copy) return MPI_ERR_NO_MEM;
    memcpy(copy, buf, (size_t)bytes);
    pending *p = put(chan, dest, tag, copy, bytes);
    if (!p) {
        free(copy);
        return MPI_ERR_NO_MEM;
    }
    sg_comm_wait(p->comm);
    free(p);
    wake_world(world_of[dest]);   /* arrived: its receiver may take it */
    return MPI_SUCCESS;
}

/* The foreground's put is waited for as MPI: its request is a receive of
 * an empty message on done_comm that the monitor sends to its own rank
 * when it sees the put complete, so a background send takes as long as
 * in MPI (the sender of a large part waits for its transfer).  SMPI's
 * generalized requests cannot serve: MPI_Waitall returns at once on one
 * still incomplete (3.32, tests/smpi/probes/grequest.c). */
static void notify_done(int tag) {
    MPI_Request r;
    if (MPI_Isend(NULL, 0, MPI_BYTE, my_rank, tag, done_comm, &r) ==
        MPI_SUCCESS)
        MPI_Request_free(&r);   /* empty: nothing to keep */
}

int papc_tr_isend(int chan, int dest, int tag, void *buf, int bytes,
                  MPI_Request *req, void **mem) {
    *req = MPI_REQUEST_NULL;
    *mem = NULL;
    pending *p = put(chan, dest, tag, buf, bytes);
    if (!p) {
        free(buf);
        return MPI_ERR_NO_MEM;
    }
    done_tag = done_tag % 30000 + 1;
    if (MPI_Irecv(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, done_tag, done_comm,
                  req) == MPI_SUCCESS)
        p->done_tag = done_tag;
    else
        *req = MPI_REQUEST_NULL;
    /* The monitor completes it (notify_done) when the courier wakes it. */
    hand_over(p, dest);
    p->next = fg_sends;
    fg_sends = p;
    if (!p->handed_over && event_naps) post(PAPC_TR_WAKE);   /* tested */
    return MPI_SUCCESS;
}

int papc_tr_dec_source(int decider) {
    (void)decider;
    return MPI_ANY_SOURCE;
}

static int test_sends(void) {
    /* Take the foreground's puts over (no simcall in between). */
    while (fg_sends) {
        pending *p = fg_sends;
        fg_sends = p->next;
        p->next = sends;
        sends = p;
    }
    int done = 0;
    for (pending **pp = &sends; *pp;) {
        pending *p = *pp;
        int flag = 0;
        if (p->comm) {
            flag = p->handed_over ? p->arrived
                                  : sg_comm_test(p->comm);   /* releases */
            if (flag && p->done_tag) notify_done(p->done_tag);
        } else {
            MPI_Test(&p->req, &flag, MPI_STATUS_IGNORE);
            if (flag) free(p->buf);
        }
        if (flag) {
            *pp = p->next;
            free(p);
            done++;
        } else {
            pp = &p->next;
        }
    }
    return done;
}

int papc_tr_sends_pending(void) { return sends != NULL || fg_sends != NULL; }

/* Sends whose end no courier announces: DEC sends tested as MPI (and a
 * put whose courier could not be made). */
static int tested_sends(void) {
    pending *lists[2] = {sends, fg_sends};
    for (int k = 0; k < 2; k++)
        for (pending *p = lists[k]; p; p = p->next)
            if (!p->handed_over) return 1;
    return 0;
}

/* ---- receives ---- */

#define POLL_BATCH 64

static void append(pending **list, pending *p) {
    p->next = NULL;
    while (*list) list = &(*list)->next;
    *list = p;
}

static int post_gets(int chan) {
    char name[64];
    snprintf(name, sizeof name, "papc-monitor-%d-%d", chan,
             world_of[my_rank]);
    int did = 0;
    for (int i = 0; i < POLL_BATCH && sg_mailbox_listen(name); i++) {
        pending *p = calloc(1, sizeof *p);
        if (!p) break;
        p->comm = sg_mailbox_get_async(box(chan, my_rank), &p->got);
        append(&gets[chan], p);
        did++;
    }
    return did;
}

/* Messages left in this monitor's mailboxes (a round takes POLL_BATCH
 * per channel): their puts' wake-ups are spent, so no long nap then. */
static int backlog(void) {
    for (int c = 0; c < 2; c++) {
        char name[64];
        snprintf(name, sizeof name, "papc-monitor-%d-%d", c,
                 world_of[my_rank]);
        if (sg_mailbox_listen(name)) return 1;
    }
    return 0;
}

/* Moves held envelopes whose turn has come to ready. */
static int release_held(int chan) {
    int did = 0, moved = 1;
    while (moved) {
        moved = 0;
        for (pending **pp = &held[chan]; *pp; pp = &(*pp)->next) {
            pending *p = *pp;
            envelope *e = p->env;
            if (e->seq != want_seq[chan][e->source]) continue;
            want_seq[chan][e->source]++;
            *pp = p->next;
            append(&ready[chan], p);
            did++;
            moved = 1;
            break;
        }
    }
    return did;
}

static int test_gets(int chan) {
    for (pending **pp = &gets[chan]; *pp;) {
        pending *p = *pp;
        if (sg_comm_test(p->comm)) {   /* releases the comm */
            p->comm = NULL;
            p->env = p->got;
            if (p->env->tag != PAPC_TR_TAG_UNCOUNTED) n_received++;
            *pp = p->next;
            append(&held[chan], p);
        } else {
            pp = &p->next;
        }
    }
    return release_held(chan);
}

int papc_tr_progress(void) {
    int did = 0;
    for (int c = 0; c < 2; c++) {
        did += post_gets(c);
        did += test_gets(c);
    }
    return did + test_sends();
}

int papc_tr_take(int chan, int *source, int *tag, char **buf, int *bytes) {
    pending *p = ready[chan];
    if (!p) return 0;
    ready[chan] = p->next;
    envelope *e = p->env;
    *source = e->source;
    *tag = e->tag;
    *buf = e->buf;
    *bytes = e->bytes;
    if (!*buf) *buf = malloc(1);
    free(e);
    free(p);
    return 1;
}

int papc_tr_transfers(void) {
    return papc_tr_sends_pending() || gets[0] || gets[1];
}

void papc_tr_close(void) {
    for (int c = 0; c < 2; c++) {
        pending **lists[2] = {&held[c], &ready[c]};
        for (int k = 0; k < 2; k++)
            while (*lists[k]) {
                pending *p = *lists[k];
                *lists[k] = p->next;
                free(p->env->buf);
                free(p->env);
                free(p);
            }
    }
    wait_couriers();
    if (reg && world_of) {
        reg->wake[world_of[my_rank]] = NULL;
        if (--reg->open == 0) print_nap_stats();
    }
    free_tables();
    dec_comm = MPI_COMM_NULL;
    if (done_comm != MPI_COMM_NULL) MPI_Comm_free(&done_comm);
}

#endif
