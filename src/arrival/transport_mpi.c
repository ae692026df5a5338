/*
 * transport_mpi.c — the arrival runtime's transport on a real MPI
 * (transport.h): the monitor is a pthread that calls MPI itself
 * (MPI_THREAD_MULTIPLE), the lock and conditions are pthread ones, the
 * clock is MPI_Wtime.  The monitor's sends are MPI_Isend, tested in its
 * loop (it never blocks on a send); its receives are MPI_Improbe on ctl
 * (then MPI_Mrecv: tiny messages) and on data (then MPI_Imrecv, so that
 * several large messages stream at once while the thread stays
 * responsive).  Not compiled under SimGrid SMPI (transport_smpi.c).
 */
#ifndef PAPC_SMPI
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include "internal.h"
#include "transport.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t conds[2] = {PTHREAD_COND_INITIALIZER,
                                  PTHREAD_COND_INITIALIZER};
static pthread_t thread;
static void (*thread_fn)(void);
static MPI_Comm comms[3] = {MPI_COMM_NULL, MPI_COMM_NULL, MPI_COMM_NULL};
/* papc_tr_counts: sends by either thread, receives by the monitor. */
static _Atomic long long n_sent, n_received;

static void count_sent(int chan, int tag) {
    if (chan != PAPC_TR_DEC && tag != PAPC_TR_TAG_UNCOUNTED)
        atomic_fetch_add_explicit(&n_sent, 1, memory_order_relaxed);
}

static void count_received(int tag) {
    if (tag != PAPC_TR_TAG_UNCOUNTED)
        atomic_fetch_add_explicit(&n_received, 1, memory_order_relaxed);
}

void papc_tr_counts(long long *sent, long long *received) {
    *sent = atomic_load(&n_sent);
    *received = atomic_load(&n_received);
}

int papc_tr_threads_ok(void) {
    int provided = MPI_THREAD_SINGLE;
    /* PMPI_: the drop-in layer reports the program's own level through
     * MPI_Query_thread; the monitor needs MPI's. */
    PMPI_Query_thread(&provided);
    return provided == MPI_THREAD_MULTIPLE;
}

int papc_tr_open(MPI_Comm ctl, MPI_Comm data, MPI_Comm dec, int rank,
                 int size) {
    (void)rank; (void)size;
    comms[PAPC_TR_CTL] = ctl;
    comms[PAPC_TR_DATA] = data;
    comms[PAPC_TR_DEC] = dec;
    atomic_store(&n_sent, 0);
    atomic_store(&n_received, 0);
    return MPI_SUCCESS;
}

static void *thread_main(void *arg) {
    (void)arg;
    thread_fn();
    return NULL;
}

int papc_tr_start(void (*fn)(void)) {
    thread_fn = fn;
    return pthread_create(&thread, NULL, thread_main, NULL) == 0
               ? MPI_SUCCESS : MPI_ERR_OTHER;
}

void papc_tr_join(void) { pthread_join(thread, NULL); }

void papc_tr_lock(void) { pthread_mutex_lock(&mu); }
void papc_tr_unlock(void) { pthread_mutex_unlock(&mu); }
void papc_tr_signal(int cond) { pthread_cond_signal(&conds[cond]); }
void papc_tr_broadcast(int cond) { pthread_cond_broadcast(&conds[cond]); }

void papc_tr_wait(int cond, double seconds) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    long ns = ts.tv_nsec + (long)(seconds * 1e9);
    ts.tv_sec += ns / 1000000000L;
    ts.tv_nsec = ns % 1000000000L;
    pthread_cond_timedwait(&conds[cond], &mu, &ts);
}

void papc_tr_pause(double seconds) { (void)seconds; }

double papc_tr_now(void) { return MPI_Wtime(); }

double papc_tr_thread_cpu(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- sends ---- */

/* A non-blocking send of the monitor thread, with the buffer it owns. */
typedef struct send_req {
    struct send_req *next;
    MPI_Request req;
    void *buf;
} send_req;
static send_req *sends;  /* [th] */

int papc_tr_send(int chan, int dest, int tag, void *buf, int bytes) {
    send_req *s = malloc(sizeof *s);
    if (!s) {
        free(buf);
        return papc_error(MPI_ERR_NO_MEM, "monitor send");
    }
    int rc = MPI_Isend(buf, bytes, MPI_BYTE, dest, tag, comms[chan],
                       &s->req);
    if (rc != MPI_SUCCESS) {
        free(buf);
        free(s);
        return papc_mpi_error(rc, "MPI_Isend (monitor)");
    }
    count_sent(chan, tag);
    s->buf = buf;
    s->next = sends;
    sends = s;
    return MPI_SUCCESS;
}

int papc_tr_send_wait(int chan, int dest, int tag, const void *buf,
                      int bytes) {
    int rc = MPI_Send(buf, bytes, MPI_BYTE, dest, tag, comms[chan]);
    if (rc == MPI_SUCCESS) count_sent(chan, tag);
    return rc;
}

int papc_tr_isend(int chan, int dest, int tag, void *buf, int bytes,
                  MPI_Request *req, void **mem) {
    *mem = NULL;
    int rc = MPI_Isend(buf, bytes, MPI_BYTE, dest, tag, comms[chan], req);
    if (rc != MPI_SUCCESS) {
        free(buf);
        return rc;
    }
    count_sent(chan, tag);
    *mem = buf;
    return MPI_SUCCESS;
}

int papc_tr_dec_source(int decider) { return decider; }

static int test_sends(void) {
    int done = 0;
    for (send_req **p = &sends; *p;) {
        int flag = 0;
        MPI_Test(&(*p)->req, &flag, MPI_STATUS_IGNORE);
        if (flag) {
            send_req *s = *p;
            *p = s->next;
            free(s->buf);
            free(s);
            done++;
        } else {
            p = &(*p)->next;
        }
    }
    return done;
}

int papc_tr_sends_pending(void) { return sends != NULL; }

/* ---- receives ---- */

/* A receive in flight or received and not yet taken.  Messages are handed
 * on in the order they were matched per source (MPI's non-overtaking
 * order), whatever order they complete in. */
typedef struct recv_req {
    MPI_Request req;
    char *buf;
    int n, source, tag, done;
    struct recv_req *next;
} recv_req;
static recv_req *recvs;           /* [th] data, in flight, matching order */
static recv_req *ready[2];        /* [th] ctl, data: received, in order */

static void append(recv_req **list, recv_req *r) {
    r->next = NULL;
    while (*list) list = &(*list)->next;
    *list = r;
}

#define POLL_BATCH 64

/* The next message waiting on channel ch, matched (MPI_Improbe) and given
 * a request record and a buffer of its size; NULL when none waits.  A
 * message there is no memory for is received into nothing and dropped
 * (*dropped set), so that it does not block the ones behind it. */
static recv_req *match_next(int ch, MPI_Message *msg, int *dropped) {
    int flag = 0, n = 0;
    MPI_Status st;
    *dropped = 0;
    if (MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, comms[ch], &flag, msg,
                    &st) != MPI_SUCCESS || !flag)
        return NULL;
    MPI_Get_count(&st, MPI_BYTE, &n);
    if (ch == PAPC_TR_CTL) count_received(st.MPI_TAG);  /* Mrecv'd below */
    recv_req *r = malloc(sizeof *r);
    char *buf = r ? malloc(n > 0 ? (size_t)n : 1) : NULL;
    if (!buf) {
        char dummy;
        free(r);
        MPI_Mrecv(&dummy, 0, MPI_BYTE, msg, MPI_STATUS_IGNORE);
        if (ch != PAPC_TR_CTL) count_received(st.MPI_TAG);
        *dropped = 1;
        return NULL;
    }
    *r = (recv_req){MPI_REQUEST_NULL, buf, n, st.MPI_SOURCE, st.MPI_TAG, 0,
                    NULL};
    return r;
}

/* Receives up to a batch of ctl messages (tiny: MPI_Mrecv). */
static int recv_ctl(void) {
    int did = 0;
    for (int i = 0; i < POLL_BATCH; i++) {
        MPI_Message msg;
        int dropped;
        recv_req *r = match_next(PAPC_TR_CTL, &msg, &dropped);
        if (!r) {
            if (dropped) continue;
            break;
        }
        MPI_Mrecv(r->buf, r->n, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
        r->done = 1;
        append(&ready[PAPC_TR_CTL], r);
        did++;
    }
    return did;
}

/* Posts receives for up to a batch of data messages. */
static int recv_data(void) {
    int did = 0;
    for (int i = 0; i < POLL_BATCH; i++) {
        MPI_Message msg;
        int dropped;
        recv_req *r = match_next(PAPC_TR_DATA, &msg, &dropped);
        if (!r) {
            if (dropped) continue;
            break;
        }
        if (MPI_Imrecv(r->buf, r->n, MPI_BYTE, &msg, &r->req) != MPI_SUCCESS) {
            count_received(r->tag);   /* matched, lost */
            free(r->buf);
            free(r);
            continue;
        }
        append(&recvs, r);
        did++;
    }
    return did;
}

/* Tests the data receives in flight and readies each completed one that
 * has no earlier undelivered receive from the same source. */
static int test_recvs(void) {
    int did = 0;
    for (recv_req *r = recvs; r; r = r->next)
        if (!r->done) {
            int flag = 0;
            MPI_Test(&r->req, &flag, MPI_STATUS_IGNORE);
            r->done = flag;
            if (flag) count_received(r->tag);
        }
    for (recv_req **p = &recvs; *p;) {
        recv_req *r = *p;
        int blocked = 0;
        for (recv_req *q = recvs; q != r; q = q->next)
            if (q->source == r->source) blocked = 1;
        if (r->done && !blocked) {
            *p = r->next;
            append(&ready[PAPC_TR_DATA], r);
            did++;
        } else {
            p = &r->next;
        }
    }
    return did;
}

int papc_tr_progress(void) {
    int did = recv_ctl();
    did += recv_data();
    did += test_recvs();
    return did + test_sends();
}

int papc_tr_take(int chan, int *source, int *tag, char **buf, int *bytes) {
    recv_req *r = ready[chan];
    if (!r) return 0;
    ready[chan] = r->next;
    *source = r->source;
    *tag = r->tag;
    *buf = r->buf;
    *bytes = r->n;
    free(r);
    return 1;
}

int papc_tr_transfers(void) { return sends != NULL || recvs != NULL; }

void papc_tr_close(void) {
    for (int c = 0; c < 2; c++)
        while (ready[c]) {
            recv_req *r = ready[c];
            ready[c] = r->next;
            free(r->buf);
            free(r);
        }
    comms[0] = comms[1] = comms[2] = MPI_COMM_NULL;
}

#endif
