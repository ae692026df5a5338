/*
 * monitor.c — the monitor thread of a process and its lifecycle: start
 * (papc_monitor_init or lazily at the first arrival-aware call on a comm
 * congruent to MPI_COMM_WORLD), the agreement on which comm is served, the
 * warm-up and cost-model fit, the polling loop, the instrumentation API
 * (the papers' PAT_* calls: Fig. 3-4 of pap-scatter-gather, Fig. 4 of
 * pap-allreduce) and the shutdown, also from MPI_Finalize through a delete
 * callback of an MPI_COMM_SELF attribute.
 *
 * Departures from the papers: the thread never blocks in a collective
 * (no MPI_Allgather per iteration: estimates are point-to-point messages
 * that receivers stamp with their own clock, see exchange.c), and it never
 * busy-waits: it polls its receives (MPI_Improbe) and its command queue
 * and sleeps between polls, 20 us after activity doubling up to 1 ms when
 * idle; at most 20 us while the foreground waits on the mailbox, while
 * the thread's own sends or receives are in flight (a background transfer
 * over TCP is paced by how often its sender and receiver progress it) and
 * while a handler job is open (papc_bg_ctx_jobs).  It never waits for
 * anything else (channel.c: why that makes the background algorithms
 * deadlock-free).
 *
 * Shutdown (issue 16: O(P) messages, not 2P(P - 1) FINs).  A monitor may
 * leave only when no message of any peer is in flight to it (MPI: it
 * would match nothing once the duplicates are freed; SMPI: a put nobody
 * gets never completes, and its sender could never leave).  Until issue 16
 * every monitor sent a FIN to every peer on ctl and data after all else
 * and left when all FINs were in (per-pair non-overtaking).  Now:
 *  1. quit: the foreground has made its last call and sends nothing more;
 *     the thread sends no estimate and runs no handler from then on.
 *  2. seal: once every part is settled (the exchange: every decision this
 *     process' calls wait for has come, so it has been forwarded down its
 *     tree; exchange.c) the thread seals: it will send nothing but the
 *     waves below.  Its count of messages sent on ctl and data
 *     (papc_tr_counts, both threads, the waves' own not counted) is final.
 *  3. waves: a reduction up the binomial tree rooted at 0 of (sent,
 *     received), each process adding its own counts when it sends its UP
 *     (after its children's UPs and once its own sends completed), and the
 *     root's verdict (received == sent) down the tree.  "again": the next
 *     wave; "done": forward it and leave once the own sends completed.
 * Why "done" is safe: every process sent its UP after sealing, so the sum
 * of the reported sent counts is S, the number of messages ever sent to
 * monitors.  Each process' reported received count is at most what it
 * will ever receive, in_X, and the in_X sum to S.  If the reported ones
 * sum to S as well, each equals its in_X: when X reported, every message
 * ever sent to X had been received.  Of the waves' own messages X still
 * receives only its DOWN, before it leaves.  Why it ends: every monitor
 * seals (the decisions it waits for come: their decider sent them before
 * its own call went on, and every monitor on the way forwards on receipt
 * and does not leave before the final wave), a monitor never waits for
 * anything but messages in flight, and a wave after the last message was
 * received says done.  Cost: 2(P - 1) messages per wave (usually one or
 * two waves), against 2P(P - 1) FINs before: 33.5 million at P = 4,096.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "model/arrival_model.h"
#include "topo/pairs.h"

papc_monitor papc_mon = {
    .last_site = -1,
    .guess_site = -1,
};

/* [th] the shutdown's termination waves (header comment) */
enum { TERM_UP = 1, TERM_DOWN = 2 };
static struct {
    int sealed;          /* sends nothing but the waves from now on */
    int wave;            /* the current wave */
    int reported;        /* this process sent its UP (root: decided) */
    int ups;             /* children's UPs of this wave received */
    double sent, received;  /* their sums */
    int done;            /* the verdict "done" came and was forwarded */
} term;
static int served_gone;                /* [fg] the served comm was freed */
static int served_key = MPI_KEYVAL_INVALID;
static int self_key = MPI_KEYVAL_INVALID;
static int warned;

#define NAP_MIN 20e-6
#define NAP_MAX 1e-3
#define NAP_WAITING 20e-6

double papc_arr_now(void) { return papc_tr_now(); }

static double env_double(const char *name, double dflt) {
    const char *s = papc_getenv(name);
    if (!s || !*s) return dflt;
    char *end;
    double v = strtod(s, &end);
    return end == s ? dflt : v;
}

/* ---- the served-comm agreement, cached on the private comm ---- */

typedef struct served_attr {
    int instance;
    int served;
} served_attr;

static int delete_served(MPI_Comm comm, int key, void *attr, void *extra) {
    (void)key; (void)extra;
    /* The served comm is freed: the monitor keeps its own duplicates, but
     * a new comm may get the same handle, so stop matching it.  An
     * attribute of an earlier monitor's instance is only being replaced
     * (the monitor was restarted on the same comm): the comm lives on. */
    const served_attr *a = attr;
    if (papc_mon.running && comm == papc_mon.served &&
        a->instance == papc_mon.instance)
        served_gone = 1;
    free(attr);
    return MPI_SUCCESS;
}

static int set_served_attr(MPI_Comm priv, int served) {
    if (served_key == MPI_KEYVAL_INVALID)
        PAPC_CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN,
                                          delete_served, &served_key, NULL));
    served_attr *a = malloc(sizeof *a);
    if (!a) return papc_error(MPI_ERR_NO_MEM, "served attribute");
    a->instance = papc_mon.instance;
    a->served = served;
    int rc = MPI_Comm_set_attr(priv, served_key, a);
    if (rc != MPI_SUCCESS) {
        free(a);
        return papc_mpi_error(rc, "MPI_Comm_set_attr");
    }
    return MPI_SUCCESS;
}

static int served_now(const served_attr *a, MPI_Comm comm) {
    return a->served && papc_mon.running && !served_gone &&
           a->instance == papc_mon.instance && comm == papc_mon.served;
}

int papc_arr_served_cached(const papc_call *c) {
    served_attr *a = NULL;
    int found = 0;
    if (served_key == MPI_KEYVAL_INVALID) return 0;
    if (MPI_Comm_get_attr(c->comm, served_key, &a, &found) != MPI_SUCCESS ||
        !found)
        return 0;
    return served_now(a, c->comm);
}

static int mon_start(MPI_Comm priv);

int papc_arr_served(const papc_call *c, int *served) {
    served_attr *a = NULL;
    int found = 0;
    *served = 0;
    if (served_key != MPI_KEYVAL_INVALID)
        PAPC_CHECK(MPI_Comm_get_attr(c->comm, served_key, &a, &found));
    if (found) {
        *served = served_now(a, c->comm);
        return MPI_SUCCESS;
    }
    /* First arrival-aware call on this comm: agree (every rank of it) on
     * whether the monitor serves it, or should start on it now. */
    int cmp = MPI_UNEQUAL;
    MPI_Comm_compare(c->comm, MPI_COMM_WORLD, &cmp);
    int mine[2];
    mine[0] = papc_mon.running && !served_gone && papc_mon.served == c->comm;
    mine[1] = !papc_mon.running && !papc_mon.no_thread &&
              !papc_mon.user_finalized && cmp == MPI_CONGRUENT &&
              !(getenv("PAPC_MONITOR") && !strcmp(getenv("PAPC_MONITOR"), "0"));
    PAPC_CHECK(PMPI_Allreduce(MPI_IN_PLACE, mine, 2, MPI_INT, MPI_MIN,
                             c->comm));
    if (mine[1]) {
        int rc = mon_start(c->comm);
        if (rc != MPI_SUCCESS) return rc;
        mine[0] = papc_mon.running;
    }
    int rc = set_served_attr(c->comm, mine[0]);
    if (rc != MPI_SUCCESS) return rc;
    *served = mine[0];
    return MPI_SUCCESS;
}

int papc_arr_serves(const papc_call *c) {
    return papc_mon.running && !served_gone && papc_mon.served == c->comm;
}

int papc_arr_served_quiet(const papc_call *c, int *served) {
    int said = warned;
    warned = 1;
    int rc = papc_arr_served(c, served);
    warned = said;
    return rc;
}

/* ---- sends and receives of the thread (transport.h) ---- */

int papc_arr_isend(void *buf, int bytes, int dest, int tag, MPI_Comm comm) {
    int chan = comm == papc_mon.ctl    ? PAPC_TR_CTL
               : comm == papc_mon.data ? PAPC_TR_DATA
                                       : PAPC_TR_DEC;
    return papc_tr_send(chan, dest, tag, buf, bytes);
}

/* ---- shutdown: the termination waves (header comment) ---- */

_Static_assert((int)TAG_FIN == (int)PAPC_TR_TAG_UNCOUNTED,
               "the waves' messages must not count themselves");

int papc_arr_sealed(void) { return term.sealed; }

static void term_send(int dest, int kind, double a, double b) {
    double *m = malloc(4 * sizeof *m);
    if (!m) return;   /* tiny; as a lost FIN before: the peer would wait */
    m[0] = kind;
    m[1] = term.wave;
    m[2] = a;
    m[3] = b;
    papc_arr_count(STAT_FIN, 4 * sizeof *m);
    papc_arr_isend(m, 4 * (int)sizeof *m, dest, TAG_FIN, papc_mon.ctl);
}

/* The verdict of this wave, here (the root) or from the parent: down the
 * tree, then leave (done) or start the next wave (again). */
static void term_verdict(int done) {
    int child[32];
    int n = papc_arr_tree_children(papc_mon.rank, papc_mon.size, child);
    for (int i = 0; i < n; i++) term_send(child[i], TERM_DOWN, done, 0);
    if (done) {
        term.done = 1;
        return;
    }
    term.wave++;
    term.reported = term.ups = 0;
    term.sent = term.received = 0;
}

static void term_message(int chan, const char *buf, int bytes) {
    double m[4];
    if (chan != PAPC_TR_CTL || bytes != (int)sizeof m) return;
    memcpy(m, buf, sizeof m);
    if ((int)m[1] != term.wave) return;   /* cannot happen: FIFO per pair */
    if ((int)m[0] == TERM_UP) {
        term.ups++;
        term.sent += m[2];
        term.received += m[3];
    } else if ((int)m[0] == TERM_DOWN && term.reported) {
        term_verdict(m[2] != 0);
    }
}

static int parts_settled(void) {
    for (int i = 0; i < papc_arr_nparts; i++)
        if (papc_arr_parts[i].settled && !papc_arr_parts[i].settled())
            return 0;
    return 1;
}

/* One step of the shutdown, every round after quit: seal, report this
 * wave, leave.  Returns 1 when the thread may leave. */
static int shutdown_step(void) {
    if (!term.sealed) {
        if (!parts_settled()) return 0;
        term.sealed = 1;
    }
    if (term.done) return !papc_tr_sends_pending();
    int child[32];
    int nchild = papc_arr_tree_children(papc_mon.rank, papc_mon.size, child);
    if (term.reported || term.ups < nchild || papc_tr_sends_pending())
        return 0;
    long long sent, received;
    papc_tr_counts(&sent, &received);
    term.reported = 1;
    double s = term.sent + (double)sent, r = term.received + (double)received;
    if (papc_mon.rank == 0) term_verdict(s == r);
    else term_send(papc_arr_tree_parent(papc_mon.rank), TERM_UP, s, r);
    return 0;
}

/* Hands a received message to the part that handles (chan, tag); FINs
 * are the loop's own (shutdown). */
static void dispatch(int chan, int source, int tag, char *buf, int n) {
    if (tag == TAG_FIN) {
        term_message(chan, buf, n);
        free(buf);
        return;
    }
    for (int i = 0; i < papc_arr_nroutes; i++)
        if (papc_arr_routes[i].chan == chan && papc_arr_routes[i].tag == tag) {
            papc_arr_routes[i].handle(source, tag, buf, n);
            return;
        }
    free(buf);
}

int papc_arr_poll(void) {
    int did = papc_tr_progress();
    int source, tag, n;
    char *buf;
    for (int chan = PAPC_TR_CTL; chan <= PAPC_TR_DATA; chan++)
        while (papc_tr_take(chan, &source, &tag, &buf, &n))
            dispatch(chan, source, tag, buf, n);
    return did;
}

/* The parts' work of one round (runtime.c), and whether any keeps the
 * thread's naps short. */
static int parts_round(void) {
    int did = 0;
    for (int i = 0; i < papc_arr_nparts; i++)
        if (papc_arr_parts[i].round) did += papc_arr_parts[i].round();
    return did;
}

static int parts_busy(void) {
    for (int i = 0; i < papc_arr_nparts; i++)
        if (papc_arr_parts[i].busy && papc_arr_parts[i].busy()) return 1;
    return 0;
}

/* The shortest nap cap any part sets now (0: none). */
static double parts_nap_cap(void) {
    double cap = 0;
    for (int i = 0; i < papc_arr_nparts; i++) {
        double c = papc_arr_parts[i].nap ? papc_arr_parts[i].nap() : 0;
        if (c > 0 && (cap == 0 || c < cap)) cap = c;
    }
    return cap;
}

int papc_arr_transfers(void) { return papc_tr_transfers(); }

int papc_arr_fg_wait(const char *what) {
    if (!papc_mon.running || papc_mon.quit)
        return papc_error(MPI_ERR_OTHER, "monitor stopped while waiting for "
                          "%s", what);
    /* The thread polls faster while we wait; the timeout only bounds a
     * missed wake-up. */
    if (papc_mon.fg_waiting++ == 0) papc_tr_signal(PAPC_TR_WAKE);
    papc_tr_wait(PAPC_TR_CV, 2e-3);
    papc_mon.fg_waiting--;
    return MPI_SUCCESS;
}

/* ---- the thread ---- */

static void send_estimate(const arr_cmd *cmd) {
    double now = papc_arr_now();
    double rem = cmd->remaining - (now - cmd->t_cmd);
    int start = cmd->pred == EST_START;
    if (start) rem = -(now - cmd->t_cmd);  /* began that long ago */
    else if (rem < 0) rem = 0;
    /* A history guess carries its typical error at this horizon. */
    double sigma = cmd->pred == PRED_HISTORY && cmd->relerr >= 0
                       ? cmd->relerr * rem : NAN;
    papc_tr_lock();
    if (start)
        papc_arr_store_start(papc_mon.rank, cmd->epoch, cmd->t_cmd,
                             cmd->relerr);
    else papc_arr_store_pred(papc_mon.rank, cmd->epoch, cmd->pred, now + rem);
    if (cmd->pred == PRED_HISTORY)
        papc_arr_store_hist_err(papc_mon.rank, cmd->epoch, sigma);
    papc_tr_unlock();
    atomic_fetch_add_explicit(&papc_mon.estimates, 1, memory_order_relaxed);
    int n = cmd->ndest < 0 ? papc_mon.size : cmd->ndest;
    for (int i = 0; i < n; i++) {
        int r = cmd->ndest < 0 ? i : cmd->dest[i];
        if (r == papc_mon.rank) continue;
        double *m = malloc(4 * sizeof *m);
        if (!m) return;
        m[0] = cmd->epoch;
        m[1] = rem;
        m[2] = cmd->pred;
        m[3] = cmd->relerr >= 0 ? cmd->relerr : -1;  /* -1: unknown */
        papc_arr_count(STAT_EST, 4 * sizeof *m);
        papc_arr_isend(m, 4 * (int)sizeof *m, r, TAG_EST, papc_mon.ctl);
    }
}

/* The thread's idle nap: a timed wait that a foreground starting to wait
 * for a background message cuts short (papc_arr_wake), so a hand-off never
 * waits out a long idle nap. */
static void thread_nap(double seconds) {
    papc_tr_lock();
    int idle = !papc_mon.fg_waiting && !papc_mon.quit && papc_mon.ncmd == 0;
    if (idle) papc_tr_wait(PAPC_TR_WAKE, seconds);
    papc_tr_unlock();
    if (!idle) papc_tr_pause(seconds < NAP_WAITING ? seconds : NAP_WAITING);
}

/* The thread's CPU for PAPC_ARRIVAL_STATS, sampled every 64 rounds (a
 * syscall each). */
static void sample_cpu(void) {
    atomic_store_explicit(&papc_mon.thread_cpu_us,
                          (long long)(papc_tr_thread_cpu() * 1e6),
                          memory_order_relaxed);
}

static void thread_main(void) {
    double nap = NAP_MIN;
    unsigned rounds = 0;
    arr_cmd cmds[ARR_CMDQ];
    for (;;) {
        papc_tr_lock();
        int ncmd = papc_mon.ncmd;
        memcpy(cmds, papc_mon.cmdq, (size_t)ncmd * sizeof *cmds);
        papc_mon.ncmd = 0;
        int quit = papc_mon.quit, waiting = papc_mon.fg_waiting;
        papc_tr_unlock();

        int did = ncmd;
        /* before the shutdown's seal, in the round that sees it too */
        papc_arr_send_queued_decisions();
        if (!quit)
            for (int i = 0; i < ncmd; i++) send_estimate(&cmds[i]);
        did += papc_arr_poll();
        if (!quit) did += parts_round();
        /* Shutdown: seal, then the termination waves (header comment). */
        if (quit && shutdown_step()) {
            sample_cpu();
            break;
        }
        if (did) nap = NAP_MIN;
        else if ((nap *= 2) > NAP_MAX) nap = NAP_MAX;
        /* Short naps while anyone waits on this thread: the foreground
         * (mailbox), a transfer in flight (each poll progresses it: with
         * 1 ms naps a multi-segment TCP transfer was paced at one segment
         * per nap), an open handler job (the message moving it on is
         * handled at once), shutdown. */
        if ((waiting || quit || papc_arr_transfers() || parts_busy())
            && nap > NAP_WAITING)
            nap = NAP_WAITING;
        double cap = parts_nap_cap();
        if (cap > 0 && nap > cap) nap = cap;
        if ((++rounds & 63) == 0) sample_cpu();
        thread_nap(nap);
    }
}

/* ---- start ---- */

/* One message of segment size each way with every peer, so connections
 * and rendezvous paths exist before the first call (pap-allreduce Sect. 3,
 * warm-up).  PAPC_WARMUP=0 skips it (to measure what it buys). */
static size_t warm_up_bytes(void) {
    size_t seg = papc_env_size("PAPC_SEGSIZE", 8192);
    if (seg == 0) seg = 8192;
    if (seg > (1u << 20)) seg = 1u << 20;
    return seg;
}

static int warm_up(MPI_Comm comm, int rank, int size, size_t seg) {
    char *s = calloc(2, seg);
    if (!s) return papc_error(MPI_ERR_NO_MEM, "warm-up buffer");
    int rc = MPI_SUCCESS;
    for (int k = 1; k < size && rc == MPI_SUCCESS; k++)
        rc = MPI_Sendrecv(s, (int)seg, MPI_BYTE, (rank + k) % size, TAG_WARM,
                          s + seg, (int)seg, MPI_BYTE,
                          (rank - k + size) % size, TAG_WARM, comm,
                          MPI_STATUS_IGNORE);
    free(s);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : papc_mpi_error(rc, "warm-up");
}

enum { FIT_BIG = 1 << 20, FIT_REPS = 8 };

/* Minimum times (seconds) of FIT_REPS exchanges of 8 bytes and of FIT_BIG
 * bytes with peer: one-way ping-pong halves (both = 0; the rank with
 * lead = 1 sends first) or both directions at once (both = 1, a
 * Sendrecv). */
static void fit_times(MPI_Comm comm, int peer, int lead, int both, char *b,
                      double tmin[2]) {
    int lens[2] = {8, FIT_BIG};
    tmin[0] = tmin[1] = 1e9;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < FIT_REPS; i++) {
            double t = MPI_Wtime();
            if (both) {
                MPI_Sendrecv(b, lens[k], MPI_BYTE, peer, TAG_FIT,
                             b + FIT_BIG, lens[k], MPI_BYTE, peer, TAG_FIT,
                             comm, MPI_STATUS_IGNORE);
            } else if (lead) {
                MPI_Send(b, lens[k], MPI_BYTE, peer, TAG_FIT, comm);
                MPI_Recv(b, lens[k], MPI_BYTE, peer, TAG_FIT, comm,
                         MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(b, lens[k], MPI_BYTE, peer, TAG_FIT, comm,
                         MPI_STATUS_IGNORE);
                MPI_Send(b, lens[k], MPI_BYTE, peer, TAG_FIT, comm);
            }
            t = MPI_Wtime() - t;
            if (!both) t /= 2;
            if (t < tmin[k]) tmin[k] = t;
        }
}

static double fit_slope(const double tmin[2]) {
    double beta = (tmin[1] - tmin[0]) / (FIT_BIG - 8);
    return beta > 0 ? beta : 1.3e-10;
}

/* This rank's partners of the busy fit, peer[0] in the first round and
 * peer[1] in the second (-1: none), the same pairing on every rank
 * (papc_busy_pairs of src/topo/pairs.h over agreed node labels).
 * Collective over comm.  A rank's node label is the rank of its node's
 * first rank in comm: PMPI_Comm_split_type(MPI_COMM_TYPE_SHARED) with
 * key 0, so the node's rank 0 is its lowest rank of comm, translated
 * through the groups (no collective on the node communicator); or, with
 * node_size > 0 (PAPC_FIT_NODE_SIZE, agreed: a testing knob), rank /
 * node_size, blocks of node_size ranks taken as nodes.  One
 * PMPI_Allgather of the labels agrees them; if any rank got none (the
 * split failed or gave MPI_COMM_NULL), every rank counts as a node of its
 * own, which pairs rank with rank + P/2.  Cost: the split (an allgather
 * inside MPI), one allgather of P ints and two allreduces of one int
 * (memory agreed before and after); O(P log P) local work, 7P ints of
 * memory for the duration.  Measured: 0.12 ms of simulated time at
 * P = 512 on fattree4096, 0.7 ms of wall time at P = 8 oversubscribed on
 * 2 cores (docs/scale.md). */
static int busy_partners(MPI_Comm comm, int rank, int size, int node_size,
                         int peer[2], int *quiet_peer) {
    peer[0] = peer[1] = -1;
    *quiet_peer = -1;
    int *lab = malloc(4 * (size_t)size * sizeof *lab);
    /* The labels are kept for the prices (papc_mon.node_label): allocated
     * here, so that every rank has them or the monitor starts on none. */
    int *keep = malloc((size_t)size * sizeof *keep);
    int ok = lab && keep, all_ok = 0;
    int rc = PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (rc == MPI_SUCCESS && !all_ok) {
        free(lab);
        free(keep);
        return papc_error(MPI_ERR_NO_MEM, "busy-fit pairing");
    }
    if (rc == MPI_SUCCESS)
        rc = papc_node_labels(comm, rank, size, node_size, lab,
                              &papc_mon.fit_mode);
    if (rc != MPI_SUCCESS) {
        free(lab);
        free(keep);
        return papc_mpi_error(rc, "busy-fit node labels");
    }
    memcpy(keep, lab, (size_t)size * sizeof *keep);
    free(papc_mon.node_label);
    papc_mon.node_label = keep;
    /* Their nodes and the largest node's ranks (a sort of P ints: on
     * failure 0, which the pairing's check below agrees, so every rank
     * goes on with the same shape or none does). */
    if (papc_arrival_node_shape(size, keep, &papc_mon.node_groups,
                                &papc_mon.node_max) != 0)
        papc_mon.node_groups = papc_mon.node_max = 0;
    int *first = lab + size, *second = first + size, intra = 0;
    papc_mon.fit_nodes = papc_busy_pairs(size, lab, first, second, &intra);
    papc_mon.fit_intra = intra;
    peer[0] = first[rank];
    peer[1] = second[rank];
    /* Rank 0's partner, the same on every rank (the pairing is agreed). */
    if (papc_mon.fit_nodes > 0)
        *quiet_peer = first[0] >= 0 ? first[0] : second[0];
    free(lab);
    /* papc_busy_pairs allocates: a rank that got no pairing would leave
     * its partners waiting in their exchanges, so all go on or none. */
    ok = papc_mon.fit_nodes > 0 && papc_mon.node_groups > 0;
    rc = PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (rc != MPI_SUCCESS) return papc_mpi_error(rc, "busy-fit pairing");
    if (!all_ok) return papc_error(MPI_ERR_NO_MEM, "busy-fit pairing");
    return MPI_SUCCESS;
}

/* The agreed cost model, the same on every rank.
 *  quiet: alpha, beta from a ping-pong of rank 0 and its first partner of
 *    the busy fit's pairing (below) while the others wait (minimum of a
 *    few repetitions, robust on a loaded machine); gamma from rank 0
 *    summing doubles.  On one node that partner is rank 1, as it always
 *    was; on several nodes it is a rank on another node (issue 16: under
 *    block placement ranks 0 and 1 share a node, and every row's balanced
 *    price in the plain call -- src/arrival/choose.c, no profile -- was
 *    the loopback's, 1.5 us and 0.2 ns/B at P = 512 on fattree4096, where
 *    a collective's messages cross the network; docs/scale.md, "The plain
 *    call's price at 512").  The others wait at a barrier first, so the
 *    warm-up traffic has ended (a loaded start once fitted alpha = 1 ms
 *    instead of 40 us on the emulated cluster).
 *  busy: every rank exchanges with a partner in both directions at once,
 *    the slowest pair's minimum: what a round costs when every process
 *    sends and receives, as in the Clairvoyant schedule's rounds.  On a
 *    full-duplex network with spare CPU it equals quiet; where both
 *    directions or all pairs share something (cores, memory, a software
 *    switch, a node's link) it does not: on the emulated 8-host cluster a
 *    two-way 1 MiB exchange takes twice the one-way time.  The partners
 *    (busy_partners, src/topo/pairs.h): on one node rank ^ 1, the odd one
 *    out of an odd P idling (as before issue 16); on more nodes, found by
 *    MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) and agreed by one
 *    allgather of node labels, a partner on another node wherever
 *    possible, the odd one out in a second round.  Until issue 16 it was
 *    rank ^ 1 everywhere, on the same node when ranks sit in blocks (16
 *    to a node on SMPI's fattree4096, Open MPI's --map-by core), and the
 *    fit measured the loopback where a schedule's segments cross the
 *    network (Clairvoyant at 512 ran 2.7 x slower than planned:
 *    docs/scale.md, "At 512-4,096 processes", section 9).
 * The long message is 1 MiB: a shaped link's burst allowance (128 KiB on
 * the testbed, a switch buffer on a real one) makes a shorter one look
 * faster than the wire.  PAPC_ALPHA and PAPC_BETA override the quiet
 * measurement. */
static int fit_model(MPI_Comm comm, int rank, int size, int node_size) {
    double t_fit = MPI_Wtime();
    double m[5] = {0.8e-6, 1.3e-10, 2.5e-10, 0.8e-6, 1.3e-10};
    papc_mon.fit_nodes = 1;
    papc_mon.fit_intra = 0;
    papc_mon.fit_mode = 0;
    papc_mon.fit_pair_seconds = 0;
    papc_mon.fit_quiet_peer = -1;
    char *b = size > 1 ? calloc(2, FIT_BIG) : NULL;
    int ok = size == 1 || b != NULL, all_ok = 0;
    PAPC_CHECK(PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm));
    if (!all_ok) {
        free(b);
        return papc_error(MPI_ERR_NO_MEM, "model fit");
    }
    /* The pairing first: the quiet pair is rank 0 and its partner. */
    int peer[2] = {-1, -1}, quiet = -1;
    if (size > 1) {
        double t0 = MPI_Wtime();
        int rc = busy_partners(comm, rank, size, node_size, peer, &quiet);
        if (rc != MPI_SUCCESS) {
            free(b);
            return rc;
        }
        papc_mon.fit_pair_seconds = MPI_Wtime() - t0;
        if (quiet <= 0 || quiet >= size) quiet = 1;
        papc_mon.fit_quiet_peer = quiet;
    }
    PAPC_CHECK(PMPI_Barrier(comm));
    if (size > 1 && (rank == 0 || rank == quiet)) {
        double tmin[2];
        fit_times(comm, rank == 0 ? quiet : 0, rank == 0, 0, b, tmin);
        if (rank == 0) {
            m[0] = tmin[0];
            m[1] = fit_slope(tmin);
            double *x = (double *)(void *)b, *y = x + FIT_BIG / 16;
            double g = 1e9;
            for (int i = 0; i < FIT_REPS; i++) {
                double t = MPI_Wtime();
                MPI_Reduce_local(x, y, FIT_BIG / 16, MPI_DOUBLE, MPI_SUM);
                t = MPI_Wtime() - t;
                if (t < g) g = t;
            }
            m[2] = g / (FIT_BIG / 2);
        }
    }
    PAPC_CHECK(PMPI_Bcast(m, 3, MPI_DOUBLE, 0, comm));
    double busy[2] = {0, 0};
    if (size > 1) {
        PAPC_CHECK(PMPI_Barrier(comm));
        for (int round = 0; round < 2; round++) {
            if (peer[round] < 0) continue;
            double tmin[2];
            fit_times(comm, peer[round], 0, 1, b, tmin);
            double slope = fit_slope(tmin);
            if (tmin[0] > busy[0]) busy[0] = tmin[0];
            if (slope > busy[1]) busy[1] = slope;
        }
        PAPC_CHECK(PMPI_Allreduce(MPI_IN_PLACE, busy, 2, MPI_DOUBLE, MPI_MAX,
                                 comm));
        m[3] = busy[0] > m[0] ? busy[0] : m[0];
        m[4] = busy[1] > m[1] ? busy[1] : m[1];
    }
    free(b);
    papc_mon.alpha = env_double("PAPC_ALPHA", m[0]);
    papc_mon.beta = env_double("PAPC_BETA", m[1]);
    papc_mon.gamma = m[2];
    papc_mon.alpha_busy = m[3];
    papc_mon.beta_busy = m[4];
    papc_mon.fit_seconds = MPI_Wtime() - t_fit;
    const char *v = getenv("PAPC_VERBOSE");
    if (v && *v && *v != '0' && rank == 0)
        fprintf(stderr, "papcoll: monitor fit P=%d alpha %.3g beta %.3g "
                "(ranks 0-%d) "
                "gamma %.3g busy alpha %.3g beta %.3g; busy pairs: %s, "
                "%d node%s, %d pair%s on one node; pairing %.3g s, fit "
                "%.3g s\n", size, papc_mon.alpha, papc_mon.beta,
                papc_mon.fit_quiet_peer, papc_mon.gamma, m[3], m[4],
                papc_mon.fit_mode == 2 ? "MPI_Comm_split_type"
                : papc_mon.fit_mode == 1 ? "PAPC_FIT_NODE_SIZE"
                : papc_mon.fit_mode == 3 ? "rank + P/2 (no node info)"
                                         : "-",
                papc_mon.fit_nodes, papc_mon.fit_nodes == 1 ? "" : "s",
                papc_mon.fit_intra, papc_mon.fit_intra == 1 ? "" : "s",
                papc_mon.fit_pair_seconds, papc_mon.fit_seconds);
    return MPI_SUCCESS;
}

static int read_fault(void) {
    const char *f = getenv("PAPC_ARRIVAL_FAULT");
    if (!f || !*f) return FAULT_NONE;
    if (!strcmp(f, "reverse")) return FAULT_REVERSE;
    if (!strcmp(f, "random")) return FAULT_RANDOM;
    if (!strcmp(f, "missing")) return FAULT_MISSING;
    if (!strcmp(f, "stale")) return FAULT_STALE;
    return FAULT_NONE;
}

static int self_delete(MPI_Comm comm, int key, void *attr, void *extra) {
    (void)comm; (void)key; (void)attr; (void)extra;
    /* MPI_Finalize deletes MPI_COMM_SELF's attributes first, with MPI
     * still fully usable: stop the monitor if the program did not. */
    if (papc_mon.running) papc_monitor_finalize();
    return MPI_SUCCESS;
}

static int hook_finalize(void) {
    if (self_key != MPI_KEYVAL_INVALID) return MPI_SUCCESS;
    PAPC_CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete,
                                      &self_key, NULL));
    PAPC_CHECK(MPI_Comm_set_attr(MPI_COMM_SELF, self_key, NULL));
    return MPI_SUCCESS;
}

static void free_comms(void) {
    MPI_Comm *cs[3] = {&papc_mon.ctl, &papc_mon.dec, &papc_mon.data};
    for (int i = 0; i < 3; i++)
        if (*cs[i] != MPI_COMM_NULL) MPI_Comm_free(cs[i]);
}

static void free_state(void) {
    for (int i = 0; i < papc_arr_nparts; i++)
        if (papc_arr_parts[i].detach) papc_arr_parts[i].detach();
    papc_tr_close();
    free_comms();
    for (int i = 0; i < papc_arr_nparts; i++)
        if (papc_arr_parts[i].release) papc_arr_parts[i].release();
    free(papc_mon.slots);
    free(papc_mon.send_seq);
    free(papc_mon.node_label);
    papc_mon.slots = NULL;
    papc_mon.send_seq = NULL;
    papc_mon.node_label = NULL;
    papc_mon.node_groups = papc_mon.node_max = 0;
    for (int p = 0; p < ERR_N; p++) {
        free(papc_mon.err_log[p]);
        papc_mon.err_log[p] = NULL;
        papc_mon.err_log_n[p] = papc_mon.err_log_cap[p] = 0;
    }
}

/* Collective over priv. */
static int mon_start(MPI_Comm priv) {
    int ok = papc_tr_threads_ok(), rank, size;
    PAPC_CHECK(PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, priv));
    MPI_Comm_rank(priv, &rank);
    MPI_Comm_size(priv, &size);
    if (!ok) {
        papc_mon.no_thread = 1;
        if (rank == 0 && !warned)
            fprintf(stderr, "papcoll: the arrival monitor needs "
                    "MPI_THREAD_MULTIPLE (start MPI with MPI_Init_thread); "
                    "arrival-aware algorithms run in rank order and the "
                    "background_* ones as their foreground twins\n");
        warned = 1;
        return MPI_SUCCESS;
    }
    papc_mon.ctl = papc_mon.dec = papc_mon.data = MPI_COMM_NULL;
    int rc = MPI_Comm_dup(priv, &papc_mon.ctl);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_dup(priv, &papc_mon.dec);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_dup(priv, &papc_mon.data);
    if (rc != MPI_SUCCESS) {
        free_comms();
        return papc_mpi_error(rc, "MPI_Comm_dup (monitor)");
    }
    MPI_Comm_set_errhandler(papc_mon.ctl, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(papc_mon.dec, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(papc_mon.data, MPI_ERRORS_RETURN);
    papc_mon.rank = rank;
    papc_mon.size = size;
    rc = papc_tr_open(papc_mon.ctl, papc_mon.data, papc_mon.dec, rank, size);
    if (rc != MPI_SUCCESS) {
        free_comms();
        return rc;
    }
    papc_mon.slots = calloc((size_t)size * ARR_WINDOW, sizeof(arr_slot));
    papc_mon.send_seq = calloc((size_t)size, sizeof(uint64_t));
    if (!papc_mon.slots || !papc_mon.send_seq) {
        free_state();
        return papc_error(MPI_ERR_NO_MEM, "monitor state");
    }
    papc_mon.fault = read_fault();
    /* Warm up only if every rank wants to: a per-rank setting must never
     * decide a collective step (a rank skipping it would hang the others). */
    /* The same for how decisions travel (exchange.c): the least setting
     * of any rank wins, so every rank uses the same path. */
    const char *w = getenv("PAPC_WARMUP");
    const char *vm = getenv("PAPC_ARRIVAL_VIEW_MEASURED");
    const char *lv = getenv("PAPC_ARRIVAL_LEARN");
    /* And the warm-up's message size, PAPC_SEGSIZE read per process: the
     * least, or ranks with a larger one would truncate at a smaller one. */
    /* And PAPC_FIT_NODE_SIZE (the busy fit's testing knob): the least,
     * so unset (0) on any rank means MPI_Comm_split_type on every rank. */
    long fns = 0;
    const char *fn = getenv("PAPC_FIT_NODE_SIZE");
    if (fn && *fn) {
        char *end;
        fns = strtol(fn, &end, 10);
        if (*end || fns < 0 || fns > 1 << 30) fns = 0;
    }
    int want[6] = {!(w && !strcmp(w, "0")),
                   papc_arr_decision_tree_setting(),
                   vm && !strcmp(vm, "1"), (int)warm_up_bytes(),
                   lv && !strcmp(lv, "1"), (int)fns},
        all[6] = {0, 0, 0, 0, 0, 0};
    rc = PMPI_Allreduce(want, all, 6, MPI_INT, MPI_MIN, papc_mon.data);
    if (rc != MPI_SUCCESS) rc = papc_mpi_error(rc, "warm-up agreement");
    papc_mon.dec_tree = papc_arr_decision_tree_mode(all[1], size);
    papc_mon.dec_measured = all[2];
    papc_mon.dec_learn = all[4];
    if (rc == MPI_SUCCESS && all[0])
        rc = warm_up(papc_mon.data, rank, size, (size_t)all[3]);
    if (rc == MPI_SUCCESS) rc = fit_model(papc_mon.data, rank, size, all[5]);
    if (rc != MPI_SUCCESS) {
        free_state();
        return rc;
    }
    papc_mon.epoch_next = 0;
    papc_mon.reported_epoch = -1;
    papc_mon.first_frac = NAN;
    papc_mon.phase_reported = 0;
    papc_arr_count_reset();
    papc_mon.nrecent = 0;
    papc_mon.t_phase = papc_arr_now();
    papc_mon.t_last_exit = NAN;
    papc_mon.last_site = -1;
    papc_mon.guess_site = -1;
    papc_mon.quit = 0;
    papc_mon.ncmd = 0;
    papc_mon.fg_waiting = 0;
    memset(papc_mon.jobs, 0, sizeof papc_mon.jobs);
    memset(&term, 0, sizeof term);
    served_gone = 0;
    papc_mon.served = priv;
    papc_mon.instance++;
    papc_mon.running = 1;
    if (papc_tr_start(thread_main) != MPI_SUCCESS) {
        /* Cannot happen in practice; the other ranks would run with a
         * monitor, so say it loudly. */
        papc_mon.running = 0;
        free_state();
        return papc_error(MPI_ERR_OTHER, "cannot start the monitor thread");
    }
    return hook_finalize();
}

/* ---- public API ---- */

int papc_monitor_init(MPI_Comm comm) {
    int crank, csize;
    int rc = papc_check_comm(comm, &crank, &csize);
    if (rc != MPI_SUCCESS) return rc;
    if (papc_mon.running)
        return papc_error(MPI_ERR_OTHER, "the monitor is already running");
    MPI_Comm priv;
    rc = papc_private_comm_peek(comm, &priv);
    if (rc != MPI_SUCCESS) return rc;
    papc_mon.user_finalized = 0;
    rc = mon_start(priv);
    if (rc != MPI_SUCCESS) return rc;
    return set_served_attr(priv, papc_mon.running);
}

/* A phase that began after a progress report for the same next epoch
 * means the previous phase ended in calls that are not arrival-aware (a
 * native collective, another comm): that report is stale, and a decider
 * using it would take this process as overdue, i.e. early.  It is
 * retracted (an estimate of NAN clears it at the receivers) before the new
 * phase reports; the monitor sends both in order. */
/* PAPC_OVERDUE_BOUND=0: no phase-start notices, so no decider bounds an
 * overdue report (to measure the difference). */
static int overdue_bound_on(void) {
    static int on = -1;
    if (on < 0) {
        const char *v = getenv("PAPC_OVERDUE_BOUND");
        on = !(v && strcmp(v, "0") == 0);
    }
    return on;
}

int papc_processing_start(void) {
    if (!papc_mon.running) return MPI_SUCCESS;
    double now = papc_arr_now();
    papc_mon.t_phase = now;
    if (papc_mon.reported_epoch == papc_mon.epoch_next) {
        papc_arr_command(papc_mon.epoch_next, PRED_PROGRESS, NAN, now, NAN);
        papc_mon.reported_epoch = -1;
    }
    /* Tells the deciders when this phase began, so that a progress report
     * that has not come by the decision bounds this process' arrival
     * (exchange.c, "overdue progress"); only a process that reported
     * progress before has a fraction to tell. */
    if (overdue_bound_on() && papc_mon.first_frac > 0)
        papc_arr_command(papc_mon.epoch_next, EST_START, 0, now,
                         papc_mon.first_frac);
    papc_mon.phase_reported = 0;
    return MPI_SUCCESS;
}

int papc_progress(double fraction) {
    if (!(fraction > 0 && fraction < 1))
        return papc_error(MPI_ERR_ARG, "progress fraction %g is not in "
                          "(0, 1)", fraction);
    if (!papc_mon.running) return MPI_SUCCESS;
    double now = papc_arr_now();
    if (!papc_mon.phase_reported) papc_mon.first_frac = fraction;
    papc_mon.phase_reported = 1;
    double rem = (now - papc_mon.t_phase) * (1 - fraction) / fraction;
    papc_arr_command(papc_mon.epoch_next, PRED_PROGRESS, rem, now, NAN);
    papc_mon.reported_epoch = papc_mon.epoch_next;
    return MPI_SUCCESS;
}

int papc_processing_end(void) { return MPI_SUCCESS; }

void papc_arr_command(int epoch, int pred, double remaining, double t,
                      double relerr) {
    papc_tr_lock();
    if (papc_mon.ncmd == ARR_CMDQ) { /* thread behind: drop the oldest */
        memmove(papc_mon.cmdq, papc_mon.cmdq + 1,
                (ARR_CMDQ - 1) * sizeof *papc_mon.cmdq);
        papc_mon.ncmd--;
    }
    arr_cmd *c = &papc_mon.cmdq[papc_mon.ncmd++];
    c->epoch = epoch;
    c->pred = pred;
    c->remaining = remaining;
    c->t_cmd = t;
    c->relerr = relerr;
    c->ndest = papc_arr_estimate_dests(c->dest);
    papc_tr_signal(PAPC_TR_WAKE);
    papc_tr_unlock();
}

int papc_monitor_finalize(void) {
    if (!papc_mon.running) return MPI_SUCCESS;
    papc_tr_lock();
    papc_mon.quit = 1;
    papc_tr_broadcast(PAPC_TR_CV);
    papc_tr_signal(PAPC_TR_WAKE);
    papc_tr_unlock();
    papc_tr_join();
    int rc = MPI_SUCCESS;
    for (int i = 0; i < papc_arr_nparts; i++)
        if (papc_arr_parts[i].stop) {
            int r = papc_arr_parts[i].stop();
            if (rc == MPI_SUCCESS) rc = r;
        }
    papc_tr_lock();
    papc_mon.running = 0;
    papc_tr_unlock();
    free_state();
    papc_mon.user_finalized = 1;
    return rc;
}

int papc_monitor_running(void) { return papc_mon.running; }
