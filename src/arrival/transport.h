/*
 * transport.h — what the arrival runtime needs from the system: a second
 * flow of control (the monitor), one lock and two conditions shared with
 * the foreground, a clock, a nap, and messages to a process' monitor.
 * Two implementations, one compiled in:
 *   transport_mpi.c   (default) a pthread that calls MPI on the monitor's
 *                     duplicates ctl, data and dec (MPI_THREAD_MULTIPLE);
 *   transport_smpi.c  (PAPC_SMPI, built with smpicc) an s4u actor beside
 *                     the rank under SimGrid SMPI, sg_mutex/sg_cond, the
 *                     simulated clock, and s4u mailboxes for every message
 *                     TO a monitor: SMPI delivers a rank's MPI messages to
 *                     the rank's main actor only, so a second actor can
 *                     send MPI but never receive it.
 * Nothing here knows what the messages mean (monitor.c, exchange.c,
 * channel.c do).
 *
 * Channels: CTL (estimates, notices, the shutdown's waves; to the
 * destination's monitor), DATA (background channel, decisions down the
 * tree; to its monitor), DEC (agreed decisions on the flat path; to its
 * foreground).  A monitor receives CTL and DATA messages of one source
 * in the order that source sent them on that channel, as MPI's
 * non-overtaking rule gives.
 */
#ifndef PAPC_ARRIVAL_TRANSPORT_H
#define PAPC_ARRIVAL_TRANSPORT_H

#include <mpi.h>

enum { PAPC_TR_CTL = 0, PAPC_TR_DATA = 1, PAPC_TR_DEC = 2 };
/* The two conditions: CV (mailbox and decisions changed; the foreground
 * waits on it), WAKE (cuts the monitor's nap short). */
enum { PAPC_TR_CV = 0, PAPC_TR_WAKE = 1 };

/* 1 when this process may run a monitor (MPI: MPI_THREAD_MULTIPLE). */
int papc_tr_threads_ok(void);
/* Binds the transport to the monitor's duplicates (collective over them in
 * SMPI: none; MPI: none).  rank and size are those of the served comm. */
int papc_tr_open(MPI_Comm ctl, MPI_Comm data, MPI_Comm dec, int rank,
                 int size);
/* Drops what is left (after the monitor stopped). */
void papc_tr_close(void);

/* The monitor: start fn as the second flow of control; join it. */
int papc_tr_start(void (*fn)(void));
void papc_tr_join(void);

/* The lock and the conditions (lock held for wait/signal/broadcast). */
void papc_tr_lock(void);
void papc_tr_unlock(void);
void papc_tr_signal(int cond);
void papc_tr_broadcast(int cond);
/* Waits until signalled or seconds passed (lock held, released meanwhile). */
void papc_tr_wait(int cond, double seconds);

/* The monitor's pause when it polls again without waiting (the foreground
 * waits on it, shutdown, a command queued): nothing on a real system, where
 * the next poll simply follows; in simulation a loop of polls takes no
 * simulated time, so it would stop the clock, and with it every transfer
 * the loop waits for: there it sleeps seconds (at most 20 us there). */
void papc_tr_pause(double seconds);

/* Seconds, this process' clock (MPI_Wtime / the simulated clock). */
double papc_tr_now(void);

/* CPU seconds the calling thread has used (0 where it means nothing: in
 * simulation the monitor's CPU is not charged). */
double papc_tr_thread_cpu(void);

/* The monitor's non-blocking send: buf (malloc'ed, bytes) goes to dest on
 * chan with tag; the transport frees buf when the send completed. */
int papc_tr_send(int chan, int dest, int tag, void *buf, int bytes);
/* The foreground's sends to a monitor: blocking (a notice; buf stays the
 * caller's), and non-blocking (background channel; buf malloc'ed, freed
 * on error): *req completes the send and *mem is to be freed after it
 * (MPI), or the transport owns buf and returns MPI_REQUEST_NULL and NULL
 * (SMPI). */
int papc_tr_send_wait(int chan, int dest, int tag, const void *buf,
                      int bytes);
int papc_tr_isend(int chan, int dest, int tag, void *buf, int bytes,
                  MPI_Request *req, void **mem);
/* The source to name when the foreground receives a decision from
 * decider (SMPI: MPI_ANY_SOURCE, as the decider's monitor sends it from an
 * actor that is not the decider's rank; the tag identifies the epoch). */
int papc_tr_dec_source(int decider);

/* The monitor's progress: tests its sends, receives what came on CTL and
 * DATA (up to a batch each); returns the number of things done. */
int papc_tr_progress(void);
/* The next received message of chan, in each source's order: 1 and
 * *source, *tag, *buf (malloc'ed, the caller's), *bytes; 0 when none. */
int papc_tr_take(int chan, int *source, int *tag, char **buf, int *bytes);
/* 1 while the monitor's sends or receives are in flight. */
int papc_tr_transfers(void);
/* 1 while the monitor's own sends are incomplete. */
int papc_tr_sends_pending(void);

/* What went through CTL and DATA, for the shutdown's termination waves
 * (monitor.c): *sent counts the messages this process posted (any thread,
 * counted once posted successfully), *received those its monitor received
 * (counted when complete, also when dropped for want of memory).  Messages
 * of tag PAPC_TR_TAG_UNCOUNTED (the waves' own) are not counted.  Zeroed
 * by papc_tr_open. */
enum { PAPC_TR_TAG_UNCOUNTED = 3 };
void papc_tr_counts(long long *sent, long long *received);

#endif
