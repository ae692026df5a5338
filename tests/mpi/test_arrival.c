/*
 * test_arrival.c — the arrival-aware algorithms (registry flag
 * PAPC_FLAG_ARRIVAL_AWARE) and the arrival monitor against the native MPI
 * collective, bit for bit, while processes arrive late and the predictions
 * are right, wrong, stale, random, reversed or missing.  Correctness must
 * never depend on a prediction: a wrong one may cost time, never a wrong
 * result, a hang or a leak.
 *
 * Usage (under mpiexec; P >= 1):
 *   test_arrival                 every phase below (monitor started with
 *                                papc_monitor_init(MPI_COMM_WORLD))
 *   test_arrival --stress=2000   back-to-back calls with tiny varying
 *                                delays, cycling over the algorithms
 *   test_arrival --lifecycle     monitor start/stop/restart, a monitor on a
 *                                split communicator, the straggler report
 *                                (PAPC_REPORT), no leaked thread
 * Options:
 *   --phase=a,b        only these phases       --alg=x,y  only these
 *                      algorithms (names or aliases, classic ones too)
 *   --root=R           only root R             --delay=US  D (default 2000)
 *   --few-roots        phases not marked every_root use roots 0, P/2, P-1
 *   --monitor=lazy     no papc_monitor_init: the first call starts it and
 *                      MPI_Finalize stops it
 *   --thread=funneled  no MPI_THREAD_MULTIPLE: no monitor thread, rank order
 *   --fault=F          PAPC_ARRIVAL_FAULT=F for the whole run, set before
 *                      MPI starts (phases without their own fault use it)
 *   --env-odd=N=V      set N=V on odd ranks only (after MPI_Init, before the
 *                      monitor starts), e.g. PAPC_MONITOR=0: the ranks must
 *                      still agree on whether a monitor serves the calls
 *   --watchdog=S       a case (or monitor init/finalize) taking longer
 *                      prints itself and exits: a hang names its case
 *   PAPC_TEST_ALLOW_UNBUILT=1 skips algorithms that still answer "not built
 *   yet" (development only).
 *
 * The algorithms come from the registry, so new ones are picked up.  Each
 * case: every rank posts a user message on the call's communicator, emulates
 * its computation with usleep (delay patterns: none; one late rank -- the
 * root, the last, rank 1 or the root's right neighbour in turn -- late by D;
 * uniform random in [0, D], seeded alike on every rank), instruments it as
 * the phase says, runs the algorithm, then the native collective on a copy
 * of the same buffers, and compares every byte of both send and receive
 * buffers (results, untouched inputs, untouched gaps of the strided type,
 * untouched buffers MPI ignores, 16 guard bytes).
 *
 * Phases (PAPC_ARRIVAL_FAULT is set identically on every rank between
 * barriers; when it changes, the monitor this test started is stopped and
 * started again, so a runtime that reads it only at start sees it too):
 *   true      papc_processing_start / papc_progress(0.5) / _end around the
 *             compute: right predictions
 *   history   no instrumentation at all (the history predictor's guesses)
 *   reverse   instrumented, PAPC_ARRIVAL_FAULT=reverse
 *   random    instrumented, PAPC_ARRIVAL_FAULT=random
 *   missing   instrumented, PAPC_ARRIVAL_FAULT=missing
 *   stale     instrumented, PAPC_ARRIVAL_FAULT=stale
 *   partial   only ranks with rank % 3 != 1 instrumented (rank 1 is often
 *             the late one)
 *   never     start/end, never a progress report
 *   lying     progress reports that say the opposite of the truth (late
 *             ranks claim to be nearly done)
 *   chaos     per rank and call at random: nothing, start without end,
 *             progress without start, end without start, many reports,
 *             double start, fractions near 0 and 1
 *   sweep     every shape (count 0, 1, thousands; int and a strided vector;
 *             in place; SUM, a user commutative op; a non-commutative op,
 *             which commutative-only algorithms must refuse with MPI_ERR_OP
 *             and leave the buffers alone) at roots 0 and P-1, no delay;
 *             on the world communicator, a duplicate of it and split halves
 *             (communicators the monitor does not serve)
 *   runahead  100 back-to-back calls of each rooted algorithm at roots 0
 *             and P-1 where one side never waits (a scatter's root, a
 *             gather's senders), so it runs many epochs ahead of the
 *             others; checked afterwards; the first phase, while the
 *             monitor is new
 *   errors    an invalid call (root outside the communicator, negative
 *             count) refused alike everywhere, then good calls: a refused
 *             call must not take an arrival epoch
 *   Every phase but sweep runs every root with both delay patterns
 *   (--few-roots: the last five only roots 0, P/2 and P-1 when P > 5).
 *   Shapes rotate across cases, so every algorithm meets every shape.
 *
 * The stress mode also checks that the heap stops growing (no per-call
 * leak: in-use bytes, all threads in one arena, must not grow by more than
 * 256 bytes per call over both the second and the last third of the run)
 * and runs some calls on split halves and some classic algorithms in
 * between.  Each mismatch prints one FAIL line naming rank, algorithm,
 * root, count, type, phase and delay, and the command that reproduces it;
 * the exit status is nonzero when any rank saw one.
 */
#include <ctype.h>
#include <dirent.h>
#include <malloc.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "papcoll.h"

#define MAXP 64
#define MAX_FAIL_LINES 30
#define NV(a) ((int)(sizeof a / sizeof *a))

/* ---- options ---- */

static struct {
    const char *algs;   /* comma list, NULL: every arrival-aware one */
    const char *phases; /* comma list, NULL: all */
    int root;           /* -1: as the plan says */
    int delay_us;       /* D */
    int stress;         /* calls, 0: no stress run */
    int lifecycle;
    int lazy;           /* no papc_monitor_init */
    int funneled;       /* MPI_THREAD_FUNNELED */
    int watchdog;       /* seconds per case */
    int allow_unbuilt;
    const char *fault;  /* PAPC_ARRIVAL_FAULT for the whole run */
    const char *env_odd; /* NAME=VALUE set on odd ranks only */
} opt = {NULL, NULL, -1, 2000, 0, 0, 0, 0, 60, 0, NULL, NULL};

static int world_rank, world_size, provided;
static char *prog_name;
static char orig_args[512]; /* the command line after the program */

/* ---- datatypes: int and a strided vector (3 ints, stride 2) ---- */

enum { TY_INT, TY_VEC, NTY };
static MPI_Datatype types[NTY];
static const char *type_names[] = {"int", "vector(3,1,2,int)"};
static const MPI_Aint type_extent[] = {4, 20}; /* true extent alike */

static size_t span_bytes(int n, int ty) {
    return n <= 0 ? 0 : (size_t)n * (size_t)type_extent[ty];
}

/* ---- ops ---- */

enum { O_NONE, O_SUM, O_USUM, O_FIRST };
static const char *op_names[] = {"-", "sum", "user_sum+1(commutative)",
                                 "first(non-commutative)"};
static MPI_Op user_ops[2];
static int op_saw_unknown_type;

/* The ints an element of dt holds, as offsets in ints from its start. */
static int type_ints(MPI_Datatype dt, int *off, int *stride) {
    if (dt == MPI_INT) {
        off[0] = 0;
        *stride = 1;
        return 1;
    }
    if (dt == types[TY_VEC]) {
        off[0] = 0;
        off[1] = 2;
        off[2] = 4;
        *stride = 5;
        return 3;
    }
    return 0;
}

/* x (+) y = x + y + 1 (wrapping): commutative, associative, not MPI_SUM. */
static void usum_fn(void *in, void *inout, int *len, MPI_Datatype *dt) {
    int off[3], stride, n = type_ints(*dt, off, &stride);
    if (!n) {
        op_saw_unknown_type = 1;
        return;
    }
    for (int i = 0; i < *len; i++)
        for (int j = 0; j < n; j++) {
            unsigned *x = (unsigned *)in + (size_t)i * stride + off[j];
            unsigned *y = (unsigned *)inout + (size_t)i * stride + off[j];
            *y = *x + *y + 1u;
        }
}

/* x (.) y = x: associative, not commutative (the result is rank 0's). */
static void first_fn(void *in, void *inout, int *len, MPI_Datatype *dt) {
    int off[3], stride, n = type_ints(*dt, off, &stride);
    if (!n) {
        op_saw_unknown_type = 1;
        return;
    }
    for (int i = 0; i < *len; i++)
        for (int j = 0; j < n; j++)
            ((int *)inout)[(size_t)i * stride + off[j]] =
                ((int *)in)[(size_t)i * stride + off[j]];
}

static MPI_Op get_op(int o) {
    return o == O_SUM ? MPI_SUM : o == O_USUM ? user_ops[0]
                                : o == O_FIRST ? user_ops[1] : MPI_OP_NULL;
}

/* ---- deterministic randomness (the same on every rank) ---- */

static unsigned long long mix(unsigned long long z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static unsigned long long hash3(unsigned long long a, unsigned long long b,
                                unsigned long long c) {
    return mix(mix(mix(a) ^ b) ^ c);
}

/* ---- cases ---- */

typedef struct shape {
    int count, type, op, inplace;
} shape;

/* Rooted data movers (gather, scatter, bcast, gatherv, scatterv). */
static const shape block_shapes[] = {
    {1, TY_INT, O_NONE, 0},    {3000, TY_INT, O_NONE, 0},
    {0, TY_INT, O_NONE, 0},    {7, TY_VEC, O_NONE, 0},
    {1, TY_INT, O_NONE, 1},    {600, TY_VEC, O_NONE, 1},
    {2, TY_VEC, O_NONE, 0},    {3000, TY_INT, O_NONE, 1},
    {0, TY_VEC, O_NONE, 1},
};
/* Reductions: predefined ops on int only (MPI forbids them on derived
 * types), the user op on both. */
static const shape reduce_shapes[] = {
    {1, TY_INT, O_SUM, 0},     {3000, TY_INT, O_SUM, 1},
    {0, TY_INT, O_SUM, 0},     {7, TY_VEC, O_USUM, 0},
    {1, TY_INT, O_USUM, 1},    {600, TY_VEC, O_USUM, 1},
    {2000, TY_INT, O_USUM, 0}, {5, TY_INT, O_SUM, 1},
    {0, TY_VEC, O_USUM, 1},
};
static const shape noncommutative_shape = {17, TY_INT, O_FIRST, 0};

enum { D_NONE, D_ONE_LATE, D_RANDOM };
static const char *delay_names[] = {"none", "one-late", "random"};

enum { I_TRUE, I_NONE, I_PARTIAL, I_NEVER, I_LYING, I_CHAOS };

typedef struct phase {
    const char *name;
    int instr;
    const char *fault; /* PAPC_ARRIVAL_FAULT, NULL: unset */
    int every_root;    /* every root at any P (else all only for P <= 5) */
} phase;

static const phase phases[] = {
    {"runahead", I_TRUE, NULL, 0}, /* first: right after the monitor starts */
    {"true", I_TRUE, NULL, 1},          {"history", I_NONE, NULL, 1},
    {"reverse", I_TRUE, "reverse", 1},  {"random", I_TRUE, "random", 1},
    {"missing", I_TRUE, "missing", 1},  {"stale", I_TRUE, "stale", 0},
    {"partial", I_PARTIAL, NULL, 0},    {"never", I_NEVER, NULL, 0},
    {"lying", I_LYING, NULL, 0},        {"chaos", I_CHAOS, NULL, 0},
    {"sweep", I_TRUE, NULL, 0},         {"errors", I_TRUE, NULL, 0},
};

typedef struct acase {
    const papc_algorithm_info *alg;
    MPI_Comm comm;
    const char *comm_name;
    int rank, size;
    int root;       /* 0 for allreduce */
    shape sh;
    int delay, late;
    int instr;
    const char *phase;
    unsigned long long seed;
    long serial;
} acase;

static int rooted(papc_collective c) { return c != PAPC_ALLREDUCE; }
static int is_root(const acase *t) {
    return rooted(t->alg->collective) && t->rank == t->root;
}

static const char *coll_name(const acase *t) {
    return papc_collective_name(t->alg->collective);
}

/* ---- reporting ---- */

static long failures;
static int fail_lines, repro_printed;
static const char *unbuilt[32];
static int nunbuilt;

static void describe(const acase *t, char *out, size_t len) {
    snprintf(out, len,
             "rank=%d P=%d %s alg=%s root=%d count=%d type=%s op=%s "
             "inplace=%d comm=%s phase=%s delay=%s(late=%d,D=%dus) serial=%ld",
             t->rank, t->size, coll_name(t), t->alg->name,
             rooted(t->alg->collective) ? t->root : -1, t->sh.count,
             type_names[t->sh.type], op_names[t->sh.op], t->sh.inplace,
             t->comm_name, t->phase, delay_names[t->delay], t->late,
             opt.delay_us, t->serial);
}

static void fail(const acase *t, const char *fmt, ...) {
    char what[512], msg[512];
    va_list ap;
    failures++;
    if (++fail_lines > MAX_FAIL_LINES) return;
    describe(t, what, sizeof what);
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    printf("FAIL %s: %s\n", what, msg);
    if (!repro_printed++) {
        printf("  reproduce: mpirun --oversubscribe --allow-run-as-root "
               "--mca mpi_yield_when_idle 1 -np %d %s", world_size,
               prog_name);
        if (opt.stress || opt.lifecycle)
            printf("%s", orig_args);
        else
            printf(" --alg=%s --phase=%s --root=%d --delay=%d%s%s",
                   t->alg->name, t->phase, t->root, opt.delay_us,
                   opt.lazy ? " --monitor=lazy" : "",
                   opt.funneled ? " --thread=funneled" : "");
        printf("\n");
    }
    fflush(stdout);
}

static void life_fail(const char *step, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A crash or a hang names its case: the description is written before each
 * case; the handlers only write() it. */
static char crash_note[1200];

static void on_signal(int sig) {
    const char *what = sig == SIGALRM ? "HANG (watchdog) " : "CRASH ";
    ssize_t n = write(STDOUT_FILENO, what, strlen(what));
    n = write(STDOUT_FILENO, crash_note, strlen(crash_note));
    (void)n;
    if (sig == SIGALRM) _exit(3);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void note_case(const acase *t) {
    char what[560];
    describe(t, what, sizeof what);
    snprintf(crash_note, sizeof crash_note,
             "FAIL %s\n  reproduce: mpirun -np %d %s --alg=%s --phase=%s "
             "--root=%d --delay=%d%s%s\n", what, world_size, prog_name,
             t->alg->name, t->phase, t->root, opt.delay_us,
             opt.lazy ? " --monitor=lazy" : "",
             opt.funneled ? " --thread=funneled" : "");
}

static void compare(const acase *t, const char *which, const char *got,
                    const char *want, size_t bytes) {
    if (memcmp(got, want, bytes) == 0) return;
    size_t i = 0;
    while (i < bytes && got[i] == want[i]) i++;
    int g, w;
    memcpy(&g, got + i / 4 * 4, 4);
    memcpy(&w, want + i / 4 * 4, 4);
    fail(t, "%s differs first at byte %zu of %zu (int %zu): got %d, "
         "expected %d", which, i, bytes, i / 4, g, w);
}

/* ---- the collectives ---- */

/* v-collectives: rank i's block has count + i % 3 elements (0 when count
 * is 0), placed in reverse rank order with a gap of one element. */
static int vcount(const acase *t, int i) {
    return t->sh.count ? t->sh.count + i % 3 : 0;
}

static int vlayout(const acase *t, int *counts, int *displs) {
    int at = 1;
    for (int i = t->size - 1; i >= 0; i--) {
        counts[i] = vcount(t, i);
        displs[i] = at;
        at += counts[i] + 1;
    }
    return at;
}

/* Elements of the send and receive buffers on this rank; buffers MPI
 * ignores get one block. */
static void sizes(const acase *t, int *sn, int *rn) {
    int c = t->sh.count, p = t->size, counts[MAXP], displs[MAXP];
    int total = vlayout(t, counts, displs);
    switch (t->alg->collective) {
    case PAPC_GATHER: *sn = c; *rn = is_root(t) ? p * c : c; break;
    case PAPC_SCATTER: *sn = is_root(t) ? p * c : c; *rn = c; break;
    case PAPC_BCAST: *sn = 0; *rn = c; break;
    case PAPC_GATHERV:
        *sn = vcount(t, t->rank);
        *rn = is_root(t) ? total : c + 2;
        break;
    case PAPC_SCATTERV:
        *sn = is_root(t) ? total : c + 2;
        *rn = vcount(t, t->rank);
        break;
    default: *sn = *rn = c; break;
    }
}

static int run_coll(const acase *t, int native, void *s, void *r) {
    MPI_Datatype ty = types[t->sh.type];
    int c = t->sh.count, root = t->root, counts[MAXP], displs[MAXP];
    int ip = t->sh.inplace && is_root(t);
    const char *a = t->alg->name;
    MPI_Comm comm = t->comm;
    MPI_Op op = get_op(t->sh.op);
    vlayout(t, counts, displs);
    const void *sb = ip ? MPI_IN_PLACE : s;
    switch (t->alg->collective) {
    case PAPC_GATHER:
        return native ? MPI_Gather(sb, c, ty, r, c, ty, root, comm)
                      : papc_gather_alg(sb, c, ty, r, c, ty, root, comm, a);
    case PAPC_SCATTER: {
        void *rb = ip ? MPI_IN_PLACE : r;
        return native ? MPI_Scatter(s, c, ty, rb, c, ty, root, comm)
                      : papc_scatter_alg(s, c, ty, rb, c, ty, root, comm, a);
    }
    case PAPC_BCAST:
        return native ? MPI_Bcast(r, c, ty, root, comm)
                      : papc_bcast_alg(r, c, ty, root, comm, a);
    case PAPC_REDUCE:
        return native ? MPI_Reduce(sb, r, c, ty, op, root, comm)
                      : papc_reduce_alg(sb, r, c, ty, op, root, comm, a);
    case PAPC_ALLREDUCE:
        sb = t->sh.inplace ? MPI_IN_PLACE : s;
        return native ? MPI_Allreduce(sb, r, c, ty, op, comm)
                      : papc_allreduce_alg(sb, r, c, ty, op, comm, a);
    case PAPC_GATHERV: {
        int sc = vcount(t, t->rank);
        return native ? MPI_Gatherv(sb, sc, ty, r, counts, displs, ty, root,
                                    comm)
                      : papc_gatherv_alg(sb, sc, ty, r, counts, displs, ty,
                                         root, comm, a);
    }
    case PAPC_SCATTERV: {
        int rc = vcount(t, t->rank);
        void *rb = ip ? MPI_IN_PLACE : r;
        return native ? MPI_Scatterv(s, counts, displs, ty, rb, rc, ty, root,
                                     comm)
                      : papc_scatterv_alg(s, counts, displs, ty, rb, rc, ty,
                                          root, comm, a);
    }
    default: return MPI_ERR_INTERN;
    }
}

/* ---- the emulated computation and its instrumentation ---- */

/* This rank's compute time in the case, in microseconds. */
static int delay_us(const acase *t) {
    switch (t->delay) {
    case D_ONE_LATE: return t->rank == t->late ? opt.delay_us : 0;
    case D_RANDOM:
        return (int)(hash3(t->seed, (unsigned long long)t->rank, 77) %
                     (unsigned long long)(opt.delay_us + 1));
    default: return 0;
    }
}

static void nap(int us) {
    if (us > 0) usleep((useconds_t)us);
}

/* Truthful instrumentation: half way, report half done. */
static void compute_true(int us) {
    papc_processing_start();
    nap(us / 2);
    papc_progress(0.5);
    nap(us - us / 2);
    papc_processing_end();
}

/* Misuse of the instrumentation API; results must not care. */
static void compute_chaos(const acase *t, int us) {
    switch (hash3(t->seed, (unsigned long long)t->rank, 99) % 8) {
    case 0: nap(us); break;                              /* nothing */
    case 1: papc_processing_start(); nap(us); break;     /* no end */
    case 2: nap(us / 2); papc_progress(0.5); nap(us - us / 2); break;
    case 3: nap(us); papc_processing_end(); break;       /* end only */
    case 4:                                              /* many reports */
        papc_processing_start();
        for (int k = 1; k < 5; k++) {
            nap(us / 5);
            papc_progress(0.2 * k);
        }
        nap(us / 5);
        papc_processing_end();
        break;
    case 5:                                              /* double start */
        papc_processing_start();
        papc_processing_start();
        nap(us);
        papc_processing_end();
        papc_processing_end();
        break;
    case 6:                                              /* ~done at once */
        papc_processing_start();
        papc_progress(0.999999);
        nap(us);
        papc_processing_end();
        break;
    default:                                             /* ~never done */
        papc_processing_start();
        nap(us / 2);
        papc_progress(1e-9);
        nap(us - us / 2);
        papc_processing_end();
        break;
    }
}

static void compute(const acase *t) {
    int us = delay_us(t);
    switch (t->instr) {
    case I_TRUE: compute_true(us); break;
    case I_PARTIAL:
        if (t->rank % 3 != 1) compute_true(us);
        else nap(us);
        break;
    case I_NEVER:
        papc_processing_start();
        nap(us);
        papc_processing_end();
        break;
    case I_LYING: {
        /* The longer this rank computes, the nearer done it claims to be:
         * predictions come out reversed. */
        double f = 0.05 + 0.9 * (double)us / (opt.delay_us + 1);
        papc_processing_start();
        nap(us / 10);
        papc_progress(f);
        nap(us - us / 10);
        papc_processing_end();
        break;
    }
    case I_CHAOS: compute_chaos(t, us); break;
    default: nap(us); break;
    }
}

/* ---- user point-to-point traffic in flight around each call ---- */

typedef struct traffic {
    MPI_Request req[2];
    int out[3], in[3];
} traffic;

static void traffic_begin(traffic *tr, const acase *t) {
    tr->out[0] = 0x5eed;
    tr->out[1] = t->rank;
    tr->out[2] = (int)t->serial;
    tr->in[0] = tr->in[1] = tr->in[2] = -1;
    MPI_Irecv(tr->in, 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, t->comm,
              &tr->req[0]);
    MPI_Isend(tr->out, 3, MPI_INT, (t->rank + 1) % t->size, 0, t->comm,
              &tr->req[1]);
}

static void traffic_end(traffic *tr, const acase *t) {
    MPI_Status st[2];
    int left = (t->rank + t->size - 1) % t->size;
    MPI_Waitall(2, tr->req, st);
    if (tr->in[0] != 0x5eed || tr->in[1] != left ||
        tr->in[2] != (int)t->serial || st[0].MPI_SOURCE != left ||
        st[0].MPI_TAG != 0)
        fail(t, "user message garbled: got {%#x,%d,%d} from %d tag %d",
             (unsigned)tr->in[0], tr->in[1], tr->in[2], st[0].MPI_SOURCE,
             st[0].MPI_TAG);
}

/* ---- one case ---- */

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "test_arrival: out of memory (%zu bytes)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

static void fill(char *buf, size_t bytes, int rank, int salt) {
    for (size_t i = 0; i + 4 <= bytes; i += 4) {
        int v = (int)(hash3((unsigned long long)rank, i, (unsigned)salt) %
                      1999) - 999;
        memcpy(buf + i, &v, 4);
    }
    for (size_t i = bytes / 4 * 4; i < bytes; i++) buf[i] = (char)0xa5;
}

static int is_unbuilt(const papc_algorithm_info *a) {
    for (int i = 0; i < nunbuilt; i++)
        if (unbuilt[i] == a->name) return 1;
    return 0;
}

/* 1 when the algorithm must refuse the case's op. */
static int refused(const acase *t) {
    return (t->alg->restrictions & PAPC_RESTRICT_COMMUTATIVE) &&
           t->sh.op == O_FIRST;
}

static long serial;

static void run_case(acase *t) {
    int sn, rn;
    t->serial = ++serial;
    t->seed = hash3((unsigned long long)t->serial, 0x5eed, 1);
    if (is_unbuilt(t->alg)) return;
    sizes(t, &sn, &rn);
    size_t sb = span_bytes(sn, t->sh.type) + 16;
    size_t rb = span_bytes(rn, t->sh.type) + 16;
    char *s[3], *r[3]; /* papcoll's, MPI's, the initial contents */
    for (int i = 0; i < 3; i++) {
        s[i] = xmalloc(sb);
        r[i] = xmalloc(rb);
    }
    fill(s[0], sb, t->rank, (int)(t->serial % 1000));
    fill(r[0], rb, t->rank, (int)(t->serial % 1000) + 1000);
    for (int i = 1; i < 3; i++) {
        memcpy(s[i], s[0], sb);
        memcpy(r[i], r[0], rb);
    }

    traffic tr;
    note_case(t);
    alarm((unsigned)opt.watchdog);
    traffic_begin(&tr, t);
    op_saw_unknown_type = 0;
    compute(t);
    int rc = run_coll(t, 0, s[0], r[0]);
    traffic_end(&tr, t);
    if (op_saw_unknown_type)
        fail(t, "the user op was called with a datatype the call never "
             "named");

    if (rc == MPI_ERR_INTERN && opt.allow_unbuilt &&
        strstr(papc_strerror(rc), "not built")) {
        if (t->rank == 0)
            printf("NOTE: skipping %s %s: %s\n", coll_name(t), t->alg->name,
                   papc_strerror(rc));
        if (nunbuilt < NV(unbuilt)) unbuilt[nunbuilt++] = t->alg->name;
    } else if (refused(t)) {
        if (rc != MPI_ERR_OP)
            fail(t, "expected MPI_ERR_OP for a non-commutative op, got %d "
                 "(%s)", rc, papc_strerror(rc));
        compare(t, "sendbuf (refused call)", s[0], s[2], sb);
        compare(t, "recvbuf (refused call)", r[0], r[2], rb);
    } else {
        if (rc != MPI_SUCCESS)
            fail(t, "returned %d: %s", rc, papc_strerror(rc));
        int mrc = run_coll(t, 1, s[1], r[1]);
        if (mrc != MPI_SUCCESS) fail(t, "native MPI returned %d", mrc);
        int untouched = rc != MPI_SUCCESS;
        compare(t, "sendbuf", s[0], s[untouched ? 2 : 1], sb);
        compare(t, "recvbuf", r[0], r[untouched ? 2 : 1], rb);
    }
    alarm(0);
    crash_note[0] = '\0';
    for (int i = 0; i < 3; i++) {
        free(s[i]);
        free(r[i]);
    }
}

/* ---- which algorithms ---- */

static const papc_algorithm_info *algs[64];
static int nalgs;

static int in_list(const char *list, const char *word) {
    size_t n = strlen(word);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncasecmp(p, word, n) == 0) return 1;
        p += len + (e ? 1 : 0);
    }
    return 0;
}

/* Name or one of the aliases of a in the comma list. */
static int alg_selected(const papc_algorithm_info *a) {
    if (!opt.algs) return (a->flags & PAPC_FLAG_ARRIVAL_AWARE) != 0;
    if (in_list(opt.algs, a->name)) return 1;
    char al[256];
    snprintf(al, sizeof al, "%s", a->aliases);
    for (char *w = strtok(al, " "); w; w = strtok(NULL, " "))
        if (in_list(opt.algs, w)) return 1;
    return 0;
}

static void collect_algorithms(void) {
    for (int c = 0; c < PAPC_NUM_COLLECTIVES; c++)
        for (int i = 0; i < papc_algorithm_count((papc_collective)c); i++) {
            const papc_algorithm_info *a =
                papc_algorithm_get((papc_collective)c, i);
            if (alg_selected(a) && nalgs < NV(algs)) algs[nalgs++] = a;
        }
}

static const shape *shapes_of(const papc_algorithm_info *a, int *n) {
    int red = a->collective == PAPC_REDUCE ||
              a->collective == PAPC_ALLREDUCE;
    *n = red ? NV(reduce_shapes) : NV(block_shapes);
    return red ? reduce_shapes : block_shapes;
}

/* ---- the plan ---- */

/* 0: every phase runs every root (the default; the suite is fast enough);
 * 1 (--few-roots): phases not marked every_root use roots 0, P/2, P-1
 * when P > 5. */
static int few_roots;

static int roots_for(const phase *ph, const papc_algorithm_info *a, int size,
                     int *roots) {
    int n = 0;
    if (!rooted(a->collective)) {
        roots[0] = 0;
        return 1;
    }
    if (opt.root >= 0) {
        roots[0] = opt.root < size ? opt.root : size - 1;
        return 1;
    }
    if (strcmp(ph->name, "sweep") == 0) {
        roots[n++] = 0;
        if (size > 1) roots[n++] = size - 1;
        return n;
    }
    if (ph->every_root || size <= 5 || !few_roots) {
        for (int r = 0; r < size; r++) roots[n++] = r;
        return n;
    }
    int cand[3] = {0, size / 2, size - 1};
    for (int i = 0; i < 3; i++) roots[n++] = cand[i];
    return n;
}

/* The late rank of a one-late case: the root, the last rank, rank 1, the
 * root's right neighbour, in turn. */
static int late_rank(int root, int size, long k) {
    switch (k % 4) {
    case 0: return root;
    case 1: return size - 1;
    case 2: return 1 % size;
    default: return (root + 1) % size;
    }
}

static const char *fault_now; /* PAPC_ARRIVAL_FAULT as last set */
static int monitor_ours;      /* main started it: may restart it */

/* Sets PAPC_ARRIVAL_FAULT for the next phase (the run's --fault when the
 * phase has none).  Between barriers, so no call is in flight anywhere
 * while the environment changes.  A runtime that reads the variable only
 * when the monitor starts sees it too: the monitor we started is
 * restarted when the value changes (which also exercises the restart). */
static void set_fault(const char *fault) {
    if (!fault) fault = opt.fault;
    int same = (!fault && !fault_now) ||
               (fault && fault_now && strcmp(fault, fault_now) == 0);
    if (same) return;
    MPI_Barrier(MPI_COMM_WORLD);
    int restart = monitor_ours && papc_monitor_running();
    if (restart) {
        int rc = papc_monitor_finalize();
        if (rc != MPI_SUCCESS)
            life_fail("restart for a fault phase", "papc_monitor_finalize: "
                      "%d (%s)", rc, papc_strerror(rc));
    }
    if (fault) setenv("PAPC_ARRIVAL_FAULT", fault, 1);
    else unsetenv("PAPC_ARRIVAL_FAULT");
    fault_now = fault;
    MPI_Barrier(MPI_COMM_WORLD);
    if (restart) {
        int rc = papc_monitor_init(MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS)
            life_fail("restart for a fault phase", "papc_monitor_init: %d "
                      "(%s)", rc, papc_strerror(rc));
    }
}

static void init_case(acase *t, const papc_algorithm_info *a, MPI_Comm comm,
                      const char *comm_name, const phase *ph) {
    memset(t, 0, sizeof *t);
    t->alg = a;
    t->comm = comm;
    t->comm_name = comm_name;
    MPI_Comm_rank(comm, &t->rank);
    MPI_Comm_size(comm, &t->size);
    t->instr = ph->instr;
    t->phase = ph->name;
}

/* Every shape, no delay, on comm (roots 0 and P-1), and the
 * non-commutative op. */
static void sweep(const papc_algorithm_info *a, MPI_Comm comm,
                  const char *comm_name, const phase *ph) {
    acase t;
    int ns, roots[MAXP];
    const shape *sh = shapes_of(a, &ns);
    init_case(&t, a, comm, comm_name, ph);
    int nr = roots_for(ph, a, t.size, roots);
    for (int ri = 0; ri < nr; ri++) {
        t.root = roots[ri];
        for (int i = 0; i < ns; i++) {
            t.sh = sh[i];
            t.delay = D_NONE;
            run_case(&t);
        }
        if (a->collective == PAPC_REDUCE || a->collective == PAPC_ALLREDUCE) {
            t.sh = noncommutative_shape;
            run_case(&t);
        }
    }
}

/* Back-to-back calls of one algorithm at one root where one side never
 * waits: a scatter's (bcast's, scatterv's) root, or a gather's (reduce's,
 * gatherv's) senders, may finish call after call while the others still
 * compute, so the fast ranks run many epochs ahead (beyond the runtime's
 * window of kept predictions), with progress reports and background
 * messages of future epochs in flight.  No user traffic and no native call
 * in between (they would hold the fast ranks back): every result is kept
 * and compared with native MPI afterwards. */
static void runahead(const papc_algorithm_info *a, const phase *ph,
                     int root) {
    enum { N = 100, COUNT = 5 };
    acase t;
    init_case(&t, a, MPI_COMM_WORLD, "world", ph);
    if (!rooted(a->collective)) return;
    papc_collective c = a->collective;
    int root_slow = c == PAPC_GATHER || c == PAPC_GATHERV ||
                    c == PAPC_REDUCE;
    t.root = root;
    t.sh = (shape){COUNT, TY_INT, c == PAPC_REDUCE ? O_SUM : O_NONE, 0};
    t.delay = D_NONE;
    int sn, rn;
    sizes(&t, &sn, &rn);
    size_t sb = span_bytes(sn, TY_INT) + 16, rb = span_bytes(rn, TY_INT) + 16;
    char *s = xmalloc(N * sb), *r = xmalloc(N * rb);
    char *s1 = xmalloc(sb), *r1 = xmalloc(rb);
    int rcs[N];
    long first = serial + 1;
    int slow = (t.rank == t.root) == root_slow;
    alarm((unsigned)opt.watchdog);
    for (int k = 0; k < N; k++) {
        t.serial = ++serial;
        note_case(&t);
        fill(s + k * sb, sb, t.rank, (int)(t.serial % 1000));
        fill(r + k * rb, rb, t.rank, (int)(t.serial % 1000) + 1000);
        compute_true(slow ? 500 : 0);
        rcs[k] = run_coll(&t, 0, s + k * sb, r + k * rb);
    }
    alarm(0);
    for (int k = 0; k < N; k++) {
        t.serial = first + k;
        fill(s1, sb, t.rank, (int)(t.serial % 1000));
        fill(r1, rb, t.rank, (int)(t.serial % 1000) + 1000);
        if (rcs[k] != MPI_SUCCESS)
            fail(&t, "returned %d: %s", rcs[k], papc_strerror(rcs[k]));
        compare(&t, "sendbuf", s + k * sb, s1, sb);
        if (run_coll(&t, 1, s1, r1) != MPI_SUCCESS)
            fail(&t, "native MPI failed");
        compare(&t, "recvbuf", r + k * rb, r1, rb);
    }
    crash_note[0] = '\0';
    free(s);
    free(r);
    free(s1);
    free(r1);
}

/* Calls every rank refuses alike (a root outside the communicator, a
 * negative count) must leave the buffers alone and take no arrival epoch:
 * the next calls still agree. */
static void bad_calls(const papc_algorithm_info *a, const phase *ph) {
    acase t;
    init_case(&t, a, MPI_COMM_WORLD, "world", ph);
    int sbuf[8] = {1, 2, 3, 4, 5, 6, 7, 8}, rbuf[8] = {0};
    const char *n = a->name;
    int rc;
    t.serial = ++serial;
    note_case(&t);
    switch (a->collective) {
    case PAPC_GATHER:
        rc = papc_gather_alg(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, t.size,
                             MPI_COMM_WORLD, n);
        break;
    case PAPC_SCATTER:
        rc = papc_scatter_alg(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, -2,
                              MPI_COMM_WORLD, n);
        break;
    case PAPC_ALLREDUCE:
        rc = papc_allreduce_alg(sbuf, rbuf, -1, MPI_INT, MPI_SUM,
                                MPI_COMM_WORLD, n);
        break;
    case PAPC_REDUCE:
        rc = papc_reduce_alg(sbuf, rbuf, 1, MPI_INT, MPI_SUM, t.size,
                             MPI_COMM_WORLD, n);
        break;
    case PAPC_BCAST:
        rc = papc_bcast_alg(rbuf, 1, MPI_INT, t.size, MPI_COMM_WORLD, n);
        break;
    default: return;
    }
    if (rc == MPI_SUCCESS)
        fail(&t, "an invalid call (bad root or count) returned MPI_SUCCESS");
    for (int i = 0; i < 8; i++)
        if (sbuf[i] != i + 1 || rbuf[i] != 0) {
            fail(&t, "an invalid call changed the buffers");
            break;
        }
    crash_note[0] = '\0';
}

static void run_phase(const phase *ph, MPI_Comm dup, MPI_Comm half,
                      const char *half_name) {
    double t0 = MPI_Wtime();
    long first = serial;
    set_fault(ph->fault);
    for (int ai = 0; ai < nalgs; ai++) {
        const papc_algorithm_info *a = algs[ai];
        if (strcmp(ph->name, "runahead") == 0) {
            /* roots 0 and P-1 (or --root) */
            runahead(a, ph, opt.root >= 0 ? opt.root % world_size : 0);
            if (opt.root < 0 && world_size > 1)
                runahead(a, ph, world_size - 1);
            continue;
        }
        if (strcmp(ph->name, "errors") == 0) {
            /* an invalid call between two good ones */
            bad_calls(a, ph);
        }
        if (strcmp(ph->name, "sweep") == 0) {
            sweep(a, MPI_COMM_WORLD, "world", ph);
            sweep(a, dup, "dup(world)", ph);
            sweep(a, half, half_name, ph);
            /* The halves may differ in size (and so in cases): resume the
             * serial (seeds, shapes) alike everywhere. */
            MPI_Allreduce(MPI_IN_PLACE, &serial, 1, MPI_LONG, MPI_MAX,
                          MPI_COMM_WORLD);
            continue;
        }
        acase t;
        int ns, roots[MAXP];
        const shape *sh = shapes_of(a, &ns);
        init_case(&t, a, MPI_COMM_WORLD, "world", ph);
        int nr = roots_for(ph, a, t.size, roots);
        for (int ri = 0; ri < nr; ri++)
            for (int d = D_ONE_LATE; d <= D_RANDOM; d++) {
                t.root = roots[ri];
                t.delay = d;
                t.late = d == D_ONE_LATE ? late_rank(t.root, t.size, serial)
                                         : -1;
                t.sh = sh[serial % ns];
                run_case(&t);
            }
        /* One delayed case on a communicator the monitor does not serve. */
        init_case(&t, a, half, half_name, ph);
        t.root = t.size - 1;
        t.delay = D_RANDOM;
        t.late = -1;
        t.sh = sh[serial % ns];
        run_case(&t);
    }
    if (world_rank == 0)
        printf("phase %-8s P=%d: %ld cases, %.2f s\n", ph->name, world_size,
               serial - first, MPI_Wtime() - t0);
    fflush(stdout);
}

/* ---- stress: back-to-back calls ---- */

static long heap_in_use(void) {
    struct mallinfo2 mi = mallinfo2();
    return (long)mi.uordblks + (long)mi.hblkhd;
}

static const papc_algorithm_info *classic_gather(void) {
    return papc_algorithm_find(PAPC_GATHER, "binomial");
}

static void run_stress(MPI_Comm half, const char *half_name) {
    static const int counts[] = {0, 1, 5, 64};
    static const int instrs[] = {I_TRUE, I_NONE, I_PARTIAL, I_LYING};
    phase ph = {"stress", I_TRUE, NULL, 1};
    double t0 = MPI_Wtime();
    long heap_at[2] = {0, 0}, call_at[2] = {0, 0};
    int saved = opt.delay_us;
    opt.delay_us = 300; /* tiny delays: 0..300 us */
    for (long i = 0; i < opt.stress; i++) {
        /* One period (algorithm x root x count x type) is well under half
         * the run, so the second half meets no new call site. */
        const papc_algorithm_info *a = algs[i % nalgs];
        long k = i / nalgs;
        MPI_Comm comm = MPI_COMM_WORLD;
        const char *cn = "world";
        if (i % 17 == 16) {
            comm = half;
            cn = half_name;
        }
        if (i % 10 == 9 && classic_gather()) a = classic_gather();
        acase t;
        init_case(&t, a, comm, cn, &ph);
        t.root = rooted(a->collective) ? (int)(k % t.size) : 0;
        t.sh.count = counts[(k / world_size) % 4];
        t.sh.type = (k / (4 * world_size)) % 2 ? TY_VEC : TY_INT;
        t.sh.inplace = i % 4 == 3;
        t.sh.op = a->collective == PAPC_REDUCE ||
                          a->collective == PAPC_ALLREDUCE
                      ? (t.sh.type == TY_INT && i % 3 ? O_SUM : O_USUM)
                      : O_NONE;
        t.delay = D_RANDOM;
        t.late = -1;
        t.instr = instrs[(i / 3) % 4];
        run_case(&t);
        for (int w = 0; w < 2; w++)
            if (i == opt.stress * (w + 1) / 3) {
                heap_at[w] = heap_in_use();
                call_at[w] = i;
            }
    }
    opt.delay_us = saved;
    /* Growth over the second and the last third.  Open MPI's free lists
     * grow in steps (a burst of unexpected messages can add megabytes
     * once) and never shrink; a per-call leak grows in both windows. */
    long end = heap_in_use();
    long g1 = heap_at[1] - heap_at[0], n1 = call_at[1] - call_at[0];
    long g2 = end - heap_at[1], n2 = opt.stress - 1 - call_at[1];
    long growth = g1 < g2 ? g1 : g2;
    if (n1 > 100 && n2 > 100 && g1 > 256 * n1 && g2 > 256 * n2)
        life_fail("stress", "heap grew by %ld bytes over %ld calls, then by "
                  "%ld over %ld calls: a leak of about %ld bytes per call",
                  g1, n1, g2, n2, (g1 + g2) / (n1 + n2));
    double dt = MPI_Wtime() - t0;
    long gmax = 0;
    MPI_Reduce(&growth, &gmax, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    if (world_rank == 0)
        printf("stress P=%d: %d calls over %d algorithm(s) in %.2f s "
               "(%.2f ms/call incl. native check); heap growth over the "
               "quieter of the last two thirds <= %ld bytes\n",
               world_size, opt.stress, nalgs, dt, 1e3 * dt / opt.stress,
               gmax);
}

/* ---- lifecycle: start, stop, restart, the report, no thread leak ---- */

static int thread_count(void) {
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    if (!d) return -1;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

/* Waits briefly for threads to go (a joined thread leaves /proc at once,
 * a detached one a moment later). */
static int thread_count_settled(int want) {
    int n = thread_count();
    for (int k = 0; k < 100 && n > want; k++) {
        usleep(10000);
        n = thread_count();
    }
    return n;
}

/* A failure that belongs to no case (a monitor call, the report). */
static void life_fail(const char *step, const char *fmt, ...) {
    char msg[400];
    va_list ap;
    failures++;
    if (++fail_lines > MAX_FAIL_LINES) return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    printf("FAIL rank=%d P=%d step=%s: %s\n", world_rank, world_size, step,
           msg);
    if (!repro_printed++)
        printf("  reproduce: mpirun --oversubscribe --allow-run-as-root "
               "--mca mpi_yield_when_idle 1 -np %d %s%s\n", world_size,
               prog_name, orig_args);
    fflush(stdout);
}

/* A few delayed, instrumented calls of every algorithm on comm. */
static void life_calls(const char *what, MPI_Comm comm, const char *cn) {
    phase ph = {what, I_TRUE, NULL, 1};
    for (int ai = 0; ai < nalgs; ai++) {
        acase t;
        int ns;
        const shape *sh = shapes_of(algs[ai], &ns);
        init_case(&t, algs[ai], comm, cn, &ph);
        for (int k = 0; k < 3; k++) {
            t.root = rooted(algs[ai]->collective) ? (k + 1) % t.size : 0;
            t.sh = sh[k % 2 ? 0 : 3];
            t.delay = k % 2 ? D_RANDOM : D_ONE_LATE;
            t.late = late_rank(t.root, t.size, k);
            run_case(&t);
        }
    }
}

/* Every rank must see the same return code of a collective monitor call. */
static void check_agreed(const char *what, int rc) {
    int lo, hi;
    MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (lo != hi)
        life_fail(what, "ranks disagree on the return code (%d .. %d)", lo,
                  hi);
}

static void check_running(const char *what, int want) {
    int got = papc_monitor_running();
    if (got != want)
        life_fail(what, "papc_monitor_running() = %d, expected %d", got,
                  want);
}

static void check_report(const char *path) {
    if (world_rank != 0) return;
    FILE *f = fopen(path, "r");
    if (!f) {
        life_fail("report", "PAPC_REPORT=%s: no file written", path);
        return;
    }
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    if (n == 0) {
        life_fail("report", "PAPC_REPORT=%s: empty file", path);
        return;
    }
    /* The call sites: every collective of the arrival-aware calls made
     * (at P = 1 an allreduce has nothing to order and may skip the
     * monitor altogether). */
    for (int ai = 0; ai < nalgs; ai++) {
        const char *cn = papc_collective_name(algs[ai]->collective);
        if (world_size == 1 && !rooted(algs[ai]->collective)) continue;
        if (!strstr(text, cn))
            life_fail("report", "PAPC_REPORT file does not name the %s "
                      "call sites", cn);
    }
    printf("straggler report (%zu bytes), first lines:\n", n);
    int lines = 0;
    for (char *p = text; *p && lines < 8; p++) {
        putchar(*p);
        if (*p == '\n') lines++;
    }
    if (n && text[n - 1] != '\n' && lines < 8) putchar('\n');
}

static void run_lifecycle(void) {
    int multiple = provided >= MPI_THREAD_MULTIPLE;
    int threads0 = thread_count();
    check_running("before init", 0);

    /* The straggler report (rank 0 writes it at finalize). */
    char path[256];
    snprintf(path, sizeof path, "/tmp/papc_test_report_%d_%ld.txt",
             (int)getpid(), (long)MPI_Wtime());
    MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
    setenv("PAPC_REPORT", path, 1);

    int rc = papc_monitor_init(MPI_COMM_WORLD);
    check_agreed("init", rc);
    if (rc != MPI_SUCCESS)
        life_fail("init", "papc_monitor_init: %d (%s)", rc,
                  papc_strerror(rc));
    check_running("after init", multiple);
    rc = papc_monitor_init(MPI_COMM_WORLD);
    check_agreed("second init", rc);
    if (rc != MPI_ERR_OTHER)
        life_fail("second init", "papc_monitor_init while running: %d (%s), "
                  "expected MPI_ERR_OTHER", rc, papc_strerror(rc));
    life_calls("first monitor", MPI_COMM_WORLD, "world");
    rc = papc_monitor_finalize();
    check_agreed("finalize", rc);
    if (rc != MPI_SUCCESS)
        life_fail("finalize", "papc_monitor_finalize: %d (%s)", rc,
                  papc_strerror(rc));
    check_running("after finalize", 0);
    int n = thread_count_settled(threads0);
    if (n != threads0)
        life_fail("finalize", "%d thread(s) before the monitor, %d after "
                  "papc_monitor_finalize", threads0, n);
    MPI_Barrier(MPI_COMM_WORLD);
    if (multiple) check_report(path);
    if (world_rank == 0 && !getenv("PAPC_TEST_KEEP_REPORT")) remove(path);
    unsetenv("PAPC_REPORT");

    /* Finalize twice: harmless, no hang. */
    rc = papc_monitor_finalize();
    check_agreed("finalize again", rc);
    check_running("after second finalize", 0);

    /* Restart: works, or says clearly why not; calls stay right. */
    rc = papc_monitor_init(MPI_COMM_WORLD);
    check_agreed("restart", rc);
    if (rc != MPI_SUCCESS) {
        const char *m = papc_strerror(rc);
        if (!m || strlen(m) < 8)
            life_fail("restart", "papc_monitor_init after finalize: %d "
                      "without a clear message", rc);
        else if (world_rank == 0)
            printf("NOTE: restart refused: %s\n", m);
    } else {
        check_running("after restart", multiple);
    }
    life_calls("restarted monitor", MPI_COMM_WORLD, "world");
    rc = papc_monitor_finalize();
    check_agreed("finalize restarted", rc);
    check_running("after finalizing the restarted monitor", 0);

    /* A monitor bound to a split communicator: calls on it are served,
     * calls on the world run in rank order. */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, world_size - world_rank,
                   &half);
    rc = papc_monitor_init(half);
    check_agreed("init on a split comm", rc);
    life_calls("monitor on a split comm", half, "split(rank%2)");
    life_calls("monitor on a split comm", MPI_COMM_WORLD, "world");
    rc = papc_monitor_finalize();
    check_agreed("finalize on a split comm", rc);
    check_running("after finalize on a split comm", 0);
    MPI_Comm_free(&half);
    n = thread_count_settled(threads0);
    if (n != threads0)
        life_fail("finalize", "%d thread(s) before, %d after the monitors "
                  "came and went", threads0, n);

    /* The instrumentation API without a monitor, and with bad fractions:
     * no crash, no hang. */
    papc_processing_start();
    papc_progress(0.5);
    papc_processing_end();
    static const double bad[] = {0.0, 1.0, -1.0, 2.0};
    for (int i = 0; i < NV(bad) + 1; i++) {
        double f = i < NV(bad) ? bad[i] : NAN;
        rc = papc_progress(f);
        if (rc == MPI_SUCCESS && world_rank == 0)
            printf("WARN: papc_progress(%g) returned MPI_SUCCESS (expected "
                   "an error class for a fraction outside (0, 1))\n", f);
    }

    /* Leave a lazily started monitor running: MPI_Finalize must stop it. */
    life_calls("lazy monitor left for MPI_Finalize", MPI_COMM_WORLD,
               "world");
    if (world_rank == 0)
        printf("NOTE: after an explicit finalize, arrival-aware calls %s "
               "a monitor again (MPI_Finalize stops it)\n",
               papc_monitor_running() ? "started" : "did not start");
}

/* ---- main ---- */

static void parse_args(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = strchr(a, '=');
        v = v ? v + 1 : "";
        if (strncmp(a, "--alg=", 6) == 0) opt.algs = v;
        else if (strncmp(a, "--phase=", 8) == 0) opt.phases = v;
        else if (strncmp(a, "--root=", 7) == 0) opt.root = atoi(v);
        else if (strncmp(a, "--delay=", 8) == 0) opt.delay_us = atoi(v);
        else if (strncmp(a, "--stress=", 9) == 0) opt.stress = atoi(v);
        else if (strcmp(a, "--lifecycle") == 0) opt.lifecycle = 1;
        else if (strcmp(a, "--few-roots") == 0) few_roots = 1;
        else if (strncmp(a, "--fault=", 8) == 0) opt.fault = *v ? v : NULL;
        else if (strncmp(a, "--env-odd=", 10) == 0) opt.env_odd = v;
        else if (strcmp(a, "--monitor=lazy") == 0) opt.lazy = 1;
        else if (strcmp(a, "--monitor=init") == 0) opt.lazy = 0;
        else if (strcmp(a, "--thread=funneled") == 0) opt.funneled = 1;
        else if (strcmp(a, "--thread=multiple") == 0) opt.funneled = 0;
        else if (strncmp(a, "--watchdog=", 11) == 0) opt.watchdog = atoi(v);
        else {
            fprintf(stderr, "test_arrival: unknown option %s (see the top "
                    "of tests/mpi/test_arrival.c)\n", a);
            exit(2);
        }
    }
    const char *u = getenv("PAPC_TEST_ALLOW_UNBUILT");
    opt.allow_unbuilt = u && *u && strcmp(u, "0") != 0;
    if (opt.delay_us < 0) opt.delay_us = 0;
}

int main(int argc, char **argv) {
    prog_name = argv[0];
    for (int i = 1; i < argc; i++) {
        size_t n = strlen(orig_args);
        snprintf(orig_args + n, sizeof orig_args - n, " %s", argv[i]);
    }
    parse_args(argc, argv);
    /* Before MPI and the monitor start: seen however the runtime reads it. */
    if (opt.fault) setenv("PAPC_ARRIVAL_FAULT", opt.fault, 1);
    else unsetenv("PAPC_ARRIVAL_FAULT");
    fault_now = opt.fault;
    /* One arena: the monitor thread's allocations count in heap_in_use. */
    mallopt(M_ARENA_MAX, 1);
    int want = opt.funneled ? MPI_THREAD_FUNNELED : MPI_THREAD_MULTIPLE;
    MPI_Init_thread(&argc, &argv, want, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (world_size > MAXP) {
        if (world_rank == 0) fprintf(stderr, "test_arrival: P <= %d\n", MAXP);
        MPI_Finalize();
        return 2;
    }
    /* Settings that differ between ranks (PAPC_MONITOR=0 on some): the
     * runtime must agree on what it does, never hang. */
    if (opt.env_odd && world_rank % 2 == 1) {
        char nv[256];
        snprintf(nv, sizeof nv, "%s", opt.env_odd);
        char *eq = strchr(nv, '=');
        if (eq) {
            *eq = '\0';
            setenv(nv, eq + 1, 1);
        }
    }
    if (world_rank == 0 && !opt.funneled && provided < MPI_THREAD_MULTIPLE)
        printf("NOTE: MPI gave thread level %d, not MPI_THREAD_MULTIPLE\n",
               provided);
    MPI_Type_vector(3, 1, 2, MPI_INT, &types[TY_VEC]);
    MPI_Type_commit(&types[TY_VEC]);
    types[TY_INT] = MPI_INT;
    MPI_Op_create(usum_fn, 1, &user_ops[0]);
    MPI_Op_create(first_fn, 0, &user_ops[1]);
    signal(SIGSEGV, on_signal);
    signal(SIGBUS, on_signal);
    signal(SIGALRM, on_signal);

    collect_algorithms();
    if (nalgs == 0) {
        if (world_rank == 0)
            printf("FAIL: no algorithm selected (registry has no "
                   "arrival-aware algorithm, or --alg matched none)\n");
        MPI_Finalize();
        return 1;
    }

    double t0 = MPI_Wtime();
    if (opt.lifecycle) {
        run_lifecycle();
    } else {
        MPI_Comm dup, half;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        /* Halves with reversed rank order: not congruent to the world. */
        MPI_Comm_split(MPI_COMM_WORLD, world_rank < world_size / 2,
                       world_size - world_rank, &half);
        const char *half_name =
            world_rank < world_size / 2 ? "split-low" : "split-high";
        if (!opt.lazy) {
            snprintf(crash_note, sizeof crash_note, "FAIL rank=%d P=%d: in "
                     "papc_monitor_init(MPI_COMM_WORLD)\n", world_rank,
                     world_size);
            alarm((unsigned)opt.watchdog);
            int rc = papc_monitor_init(MPI_COMM_WORLD);
            alarm(0);
            if (rc != MPI_SUCCESS && !opt.funneled)
                life_fail("init", "papc_monitor_init: %d (%s)", rc,
                          papc_strerror(rc));
            monitor_ours = rc == MPI_SUCCESS;
        }
        if (world_rank == 0)
            printf("monitor %s (thread level %d)\n",
                   papc_monitor_running() ? "running" : "not running",
                   provided);
        if (opt.stress) {
            run_stress(half, half_name);
        } else {
            for (int i = 0; i < NV(phases); i++)
                if (!opt.phases || in_list(opt.phases, phases[i].name)) {
                    run_phase(&phases[i], dup, half, half_name);
                    if (opt.lazy && !opt.funneled && !opt.env_odd &&
                        provided >= MPI_THREAD_MULTIPLE &&
                        !papc_monitor_running())
                        life_fail("lazy", "no monitor running after "
                                  "arrival-aware calls on the world (lazy "
                                  "start expected)");
                }
        }
        if (opt.funneled && papc_monitor_running())
            life_fail("funneled", "a monitor thread runs without "
                      "MPI_THREAD_MULTIPLE");
        /* lazy: leave the monitor to MPI_Finalize */
        if (!opt.lazy) {
            snprintf(crash_note, sizeof crash_note, "FAIL rank=%d P=%d: in "
                     "papc_monitor_finalize()\n", world_rank, world_size);
            alarm((unsigned)opt.watchdog);
            int rc = papc_monitor_finalize();
            alarm(0);
            if (rc != MPI_SUCCESS && !opt.funneled)
                life_fail("finalize", "papc_monitor_finalize: %d (%s)", rc,
                          papc_strerror(rc));
            if (papc_monitor_running())
                life_fail("finalize", "monitor still running after "
                          "papc_monitor_finalize");
        }
        MPI_Comm_free(&dup);
        MPI_Comm_free(&half);
    }

    long total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0) {
        printf("test_arrival P=%d%s%s%s: %ld failure(s), %d algorithm(s), "
               "%ld case(s), %.1f s\n",
               world_size, opt.stress ? " stress" : "",
               opt.lifecycle ? " lifecycle" : "", opt.lazy ? " lazy" : "",
               total, nalgs, serial, MPI_Wtime() - t0);
        for (int i = 0; i < nunbuilt; i++)
            printf("NOTE: %s was skipped (not built yet)\n", unbuilt[i]);
    }
    MPI_Op_free(&user_ops[0]);
    MPI_Op_free(&user_ops[1]);
    MPI_Type_free(&types[TY_VEC]);
    MPI_Finalize();
    return total ? 1 : 0;
}
