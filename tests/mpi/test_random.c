/*
 * test_random.c — papcoll's own randomized differential test (issue 11).
 *
 * Every rank derives from (seed, round) the same random call: a collective
 * (every one papcoll has), an algorithm (any registered one valid for the
 * call) or the plain call, a communicator (world, split halves, world in
 * reversed order, reversed split thirds, MPI_COMM_SELF), a root, counts (0,
 * odd, not multiples of P, large enough to be segmented), PAPC_SEGSIZE, and
 * datatypes: predefined ones and derived ones with gaps, positive and
 * negative lower bounds and typemaps out of memory order (structs whose
 * displacements run backwards, negative-stride hvectors, indexed blocks in
 * reverse).  Where MPI allows it (not for reductions) every rank describes
 * its bytes with a datatype of its own, of the same type signature but
 * another layout and element size (51 x contiguous(4, MPI_INT) here,
 * 12 x contiguous(17, MPI_INT) there).  Reductions use user ops that walk
 * the typemap (a commutative sum, the same sum declared non-commutative, a
 * non-commutative composition of affine maps) or predefined ops on
 * predefined types.  MPI_IN_PLACE where MPI allows it.
 *
 * Each buffer is poisoned (gaps, padding, guard bytes and the buffers MPI
 * ignores); the expected image is computed locally from the typemaps: the
 * poison with the signature bytes every rank sent written at the receive
 * type's byte offsets (reductions: the reduction, in rank order, of the
 * values read in signature order).  papcoll's result must equal it byte for
 * byte, send buffers and insignificant buffers must be untouched, and the
 * native MPI collective run on a copy of the same inputs must agree with
 * the reference too (the reference is checked against MPI).
 *
 * Usage (under mpirun; any P):
 *   test_random [--seed=S] [--rounds=N]    rounds 0..N-1 (default 1, 200)
 *   test_random --seed=S --round=R          replays round R alone
 * Options:
 *   --arrival        the arrival mode: papc_monitor_init(MPI_COMM_WORLD),
 *                    a random sleep of 0..--max-sleep ms (default 20) on
 *                    every rank before every call, half the calls on
 *                    arrival-aware algorithms, calls back to back (papcoll
 *                    only, against the reference; --native=1 adds MPI)
 *   --fault=F        PAPC_ARRIVAL_FAULT=F (random, reverse, stale, missing)
 *   --algs=c:a,...   only these (collective:algorithm) pairs, e.g.
 *                    scatter:bsbn,gather:bsls ("plain" = the plain call)
 *   --watchdog=S     a step (call, check, barrier) taking longer than S
 *                    seconds (default 20): every rank prints where it is
 *                    (round, collective, algorithm, communicator, step)
 *                    and the job exits with status 3
 *   --native=0|1     compare with the native collective (default 1; 0 in
 *                    the arrival mode)
 *   --verbose        rank 0 prints every round (--verbose=2: every rank,
 *                    with its own datatypes)
 *   --types=simple   every rank the same dense, in-order datatype of the
 *                    round's unit (isolates hangs from layout bugs)
 *   --keep-going     report a failing round and go on (the exit status is
 *                    still 1); the default stops the job at the first one
 * A failure prints what differs and the one command that replays it.
 *
 * Open MPI 4.1.4 bug worked around: hvector(2, 1, -1, MPI_SIGNED_CHAR) has
 * the wrong lower bound and typemap; datatypes whose true extent differs
 * from their typemap's are redrawn (t_agrees_with_mpi).
 * Open MPI 4.1 bug worked around: MPI_Allreduce with a user op and a
 * datatype whose lower bound is not 0 (negative, e.g. hvector(2,1,-8,
 * MPI_INT), or positive, e.g. a struct at displacement 5: the standalone
 * tests/ompi-bugs/allreduce_lb.c) corrupts the heap; such rounds compare
 * papcoll with the reference only (docs/testing.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "papcoll.h"

#define GUARD 24           /* poisoned bytes around every buffer */
#define MAX_BLOCK 24576    /* bytes of one bcast / reduce buffer at most */
#define MAX_ROOT 98304     /* bytes of a gather's receive buffer at most */

/* ---- options ---------------------------------------------------------- */

static struct {
    uint64_t seed;
    int rounds, round; /* round >= 0: that round only */
    int arrival, max_sleep_ms, native, watchdog, verbose, keep_going, simple;
    const char *fault;
    char algs[512];
} opt = {1, 200, -1, 0, 20, -1, 20, 0, 0, 0, NULL, ""};

static int wrank, wsize;
static char exe[1024];

/* The one command that replays round r (alone, or the run up to it). */
static void replay_cmd(char *buf, size_t len, int round, int upto) {
    int n = snprintf(buf, len,
                     "mpirun -np %d --oversubscribe --allow-run-as-root --mca "
                     "mpi_yield_when_idle 1 %s --seed=%llu",
                     wsize, exe, (unsigned long long)opt.seed);
    if (upto)
        n += snprintf(buf + n, len - n, " --rounds=%d", round + 1);
    else
        n += snprintf(buf + n, len - n, " --round=%d", round);
    if (opt.arrival)
        n += snprintf(buf + n, len - n, " --arrival --max-sleep=%d",
                      opt.max_sleep_ms);
    if (opt.fault) n += snprintf(buf + n, len - n, " --fault=%s", opt.fault);
    if (opt.simple) n += snprintf(buf + n, len - n, " --types=simple");
    if (opt.algs[0]) n += snprintf(buf + n, len - n, " --algs=%s", opt.algs);
    if (opt.native != (opt.arrival ? 0 : 1))
        n += snprintf(buf + n, len - n, " --native=%d", opt.native);
    if (opt.watchdog != 20)
        snprintf(buf + n, len - n, " --watchdog=%d", opt.watchdog);
}

/* ---- where each rank is (for the watchdog) ---------------------------- */

static struct {
    atomic_int round;
    _Atomic(const char *) coll, alg, comm, step;
    atomic_int csize, root;
    atomic_llong since_ms;
    atomic_int done;
} where;

static long long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void at(const char *step) {
    atomic_store(&where.step, step);
    atomic_store(&where.since_ms, now_ms());
}

static void *watchdog(void *arg) {
    (void)arg;
    while (!atomic_load(&where.done)) {
        usleep(100000);
        long long t = now_ms() - atomic_load(&where.since_ms);
        if (t <= (long long)opt.watchdog * 1000) continue;
        int r = atomic_load(&where.round);
        char cmd[1400], cmd2[1400];
        replay_cmd(cmd, sizeof cmd, r, 0);
        replay_cmd(cmd2, sizeof cmd2, r, 1);
        fprintf(stderr,
                "[test_random] WATCHDOG world rank %d: no progress for %.1f s "
                "in round %d: %s %s on %s (size %d, root %d), step '%s'\n",
                wrank, t / 1000.0, r, atomic_load(&where.coll),
                atomic_load(&where.alg), atomic_load(&where.comm),
                atomic_load(&where.csize), atomic_load(&where.root),
                atomic_load(&where.step));
        if (wrank == 0)
            fprintf(stderr, "[test_random] replay the run up to round %d: "
                    "%s\n  (that round alone: %s)\n", r, cmd2, cmd);
        fflush(stderr);
        sleep(5); /* the other ranks' watchdogs report too */
        _exit(3);
    }
    return NULL;
}

/* A crash names its round: the note is written before each round. */
static char crash_note[1600];

static void on_crash(int sig) {
    const char *step = atomic_load(&where.step);
    ssize_t n = write(STDERR_FILENO, crash_note, strlen(crash_note));
    n = write(STDERR_FILENO, "  in step: ", 11);
    n = write(STDERR_FILENO, step, strlen(step));
    n = write(STDERR_FILENO, "\n", 1);
    (void)n;
    signal(sig, SIG_DFL);
    raise(sig);
}

/* ---- random numbers --------------------------------------------------- */

static uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

typedef struct { uint64_t s; } rng;

static rng rng_for(uint64_t a, uint64_t b, uint64_t c) {
    rng g = {mix(a ^ mix(b ^ mix(c ^ 0x5eed)))};
    return g;
}
static uint64_t rnext(rng *g) { return mix(g->s += 0x632be59bd9b4e019ull); }
static int rint_(rng *g, int n) { return n <= 0 ? 0 : (int)(rnext(g) % (unsigned)n); }

/* Byte j of the signature stream identified by key. */
static unsigned char sbyte(uint64_t key, size_t j) {
    return (unsigned char)(mix(key ^ ((j >> 3) * 0x9e3779b97f4a7c15ull)) >>
                           ((j & 7) * 8));
}

/* ---- datatypes that know their typemap --------------------------------- */

/* A datatype and, in typemap order, the address offset of every byte of
 * its signature (nsig bytes per element); lb and extent as MPI says. */
typedef struct ttype {
    MPI_Datatype h;
    int named;
    int nsig;
    MPI_Aint *off;
    MPI_Aint lb, ext;
    int m; /* units per element */
    char d[160];
} ttype;

#define MAX_TYPES 512
static ttype *arena[MAX_TYPES];
static int narena;

static ttype *t_new(MPI_Datatype h, int named, int nsig, int m) {
    if (narena == MAX_TYPES) {
        fprintf(stderr, "test_random: too many datatypes\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    ttype *t = calloc(1, sizeof *t);
    t->h = h;
    t->named = named;
    t->nsig = nsig;
    t->m = m;
    t->off = malloc(sizeof(MPI_Aint) * (size_t)(nsig ? nsig : 1));
    arena[narena++] = t;
    return t;
}

static ttype *t_done(ttype *t) {
    if (!t->named) MPI_Type_commit(&t->h);
    MPI_Type_get_extent(t->h, &t->lb, &t->ext);
    return t;
}

static void arena_free(void) {
    for (int i = 0; i < narena; i++) {
        if (!arena[i]->named) MPI_Type_free(&arena[i]->h);
        free(arena[i]->off);
        free(arena[i]);
    }
    narena = 0;
}

static const ttype *t_lookup(MPI_Datatype h) {
    for (int i = 0; i < narena; i++)
        if (arena[i]->h == h) return arena[i];
    return NULL;
}

static ttype *t_named(MPI_Datatype h, int size, const char *name) {
    ttype *t = t_new(h, 1, size, 1);
    for (int i = 0; i < size; i++) t->off[i] = i;
    snprintf(t->d, sizeof t->d, "%s", name);
    return t_done(t);
}

static ttype *t_struct(int n, const int *bl, const MPI_Aint *disp,
                       ttype *const *ts, int m) {
    MPI_Datatype hs[8], h;
    int nsig = 0, k = 0, len = 0;
    for (int i = 0; i < n; i++) {
        hs[i] = ts[i]->h;
        nsig += bl[i] * ts[i]->nsig;
    }
    MPI_Type_create_struct(n, bl, disp, hs, &h);
    ttype *t = t_new(h, 0, nsig, m);
    len = snprintf(t->d, sizeof t->d, "struct{");
    for (int i = 0; i < n; i++) {
        for (int b = 0; b < bl[i]; b++)
            for (int j = 0; j < ts[i]->nsig; j++)
                t->off[k++] = disp[i] + b * ts[i]->ext + ts[i]->off[j];
        if (len < (int)sizeof t->d)
            len += snprintf(t->d + len, sizeof t->d - len, "%s%dx%.100s@%ld",
                            i ? "," : "", bl[i], ts[i]->d, (long)disp[i]);
    }
    if (len < (int)sizeof t->d) snprintf(t->d + len, sizeof t->d - len, "}");
    return t_done(t);
}

static ttype *t_contig(int c, const ttype *u) {
    MPI_Datatype h;
    MPI_Type_contiguous(c, u->h, &h);
    ttype *t = t_new(h, 0, c * u->nsig, c * u->m);
    for (int b = 0, k = 0; b < c; b++)
        for (int j = 0; j < u->nsig; j++) t->off[k++] = b * u->ext + u->off[j];
    snprintf(t->d, sizeof t->d, "contig(%d,%.100s)", c, u->d);
    return t_done(t);
}

static ttype *t_vector(int cnt, int bl, int stride, const ttype *u) {
    MPI_Datatype h;
    MPI_Type_vector(cnt, bl, stride, u->h, &h);
    ttype *t = t_new(h, 0, cnt * bl * u->nsig, cnt * bl * u->m);
    int k = 0;
    for (int i = 0; i < cnt; i++)
        for (int b = 0; b < bl; b++)
            for (int j = 0; j < u->nsig; j++)
                t->off[k++] = ((MPI_Aint)i * stride + b) * u->ext + u->off[j];
    snprintf(t->d, sizeof t->d, "vector(%d,%d,%d,%.100s)", cnt, bl, stride, u->d);
    return t_done(t);
}

static ttype *t_hvector(int cnt, int bl, MPI_Aint stride, const ttype *u) {
    MPI_Datatype h;
    MPI_Type_create_hvector(cnt, bl, stride, u->h, &h);
    ttype *t = t_new(h, 0, cnt * bl * u->nsig, cnt * bl * u->m);
    int k = 0;
    for (int i = 0; i < cnt; i++)
        for (int b = 0; b < bl; b++)
            for (int j = 0; j < u->nsig; j++)
                t->off[k++] = i * stride + b * u->ext + u->off[j];
    snprintf(t->d, sizeof t->d, "hvector(%d,%d,%ld,%.100s)", cnt, bl,
             (long)stride, u->d);
    return t_done(t);
}

static ttype *t_indexed(int n, const int *bl, const int *displ,
                        const ttype *u) {
    MPI_Datatype h;
    int tot = 0, k = 0;
    for (int i = 0; i < n; i++) tot += bl[i];
    MPI_Type_indexed(n, bl, displ, u->h, &h);
    ttype *t = t_new(h, 0, tot * u->nsig, tot * u->m);
    for (int i = 0; i < n; i++)
        for (int b = 0; b < bl[i]; b++)
            for (int j = 0; j < u->nsig; j++)
                t->off[k++] = ((MPI_Aint)displ[i] + b) * u->ext + u->off[j];
    snprintf(t->d, sizeof t->d, "indexed(%d@%d,%d@%d,%.100s)", bl[0], displ[0],
             bl[1], displ[1], u->d);
    return t_done(t);
}

static ttype *t_resized(const ttype *u, MPI_Aint lb, MPI_Aint ext) {
    MPI_Datatype h;
    MPI_Type_create_resized(u->h, lb, ext, &h);
    ttype *t = t_new(h, 0, u->nsig, u->m);
    memcpy(t->off, u->off, sizeof(MPI_Aint) * (size_t)u->nsig);
    snprintf(t->d, sizeof t->d, "resized(%.100s,lb=%ld,ext=%ld)", u->d, (long)lb,
             (long)ext);
    return t_done(t);
}

/* Every byte inside [lb, lb + extent) and no byte twice: elements of the
 * type never overlap, so it can receive. */
static int cmp_aint(const void *a, const void *b) {
    MPI_Aint x = *(const MPI_Aint *)a, y = *(const MPI_Aint *)b;
    return x < y ? -1 : x > y;
}
static int t_can_receive(const ttype *t) {
    if (t->ext <= 0) return 0;
    MPI_Aint *s = malloc(sizeof(MPI_Aint) * (size_t)(t->nsig ? t->nsig : 1));
    memcpy(s, t->off, sizeof(MPI_Aint) * (size_t)t->nsig);
    qsort(s, (size_t)t->nsig, sizeof *s, cmp_aint);
    int ok = 1;
    for (int i = 0; i < t->nsig && ok; i++)
        if (s[i] < t->lb || s[i] >= t->lb + t->ext || (i && s[i] == s[i - 1]))
            ok = 0;
    free(s);
    return ok;
}

/* MPI's true lower bound and extent are those of our typemap.  Open MPI
 * 4.1.4 gets hvector(2, 1, -1, MPI_SIGNED_CHAR) wrong (lb 0 instead of -1,
 * and it moves bytes 0 and 1 instead of 0 and -1): such types are
 * redrawn, the comparison would only find Open MPI's bug. */
static int t_agrees_with_mpi(const ttype *t) {
    if (t->nsig == 0) return 1;
    MPI_Aint tlb, text, lo = t->off[0], hi = t->off[0] + 1;
    for (int j = 0; j < t->nsig; j++) {
        if (t->off[j] < lo) lo = t->off[j];
        if (t->off[j] + 1 > hi) hi = t->off[j] + 1;
    }
    MPI_Type_get_true_extent(t->h, &tlb, &text);
    return tlb == lo && text == hi - lo;
}

/* ---- units: the signature of one unit, realized in several layouts ---- */

enum { K_SCHAR, K_INT, K_BSB, K_IS, K_NMOVE, K_I2 = K_NMOVE, K_U };
static const char *kind_name[] = {"signed char", "int", "{byte,ushort,byte}",
                                  "{int,short}", "{int,int}", "unsigned"};
static const int kind_size[] = {1, 4, 4, 6, 8, 4};

static ttype *unit(rng *g, int kind) {
    ttype *B, *S, *I, *ts[3];
    int bl[3] = {1, 1, 1};
    MPI_Aint d[3];
    switch (kind) {
    case K_SCHAR: {
        ttype *c = t_named(MPI_SIGNED_CHAR, 1, "schar");
        switch ((opt.simple ? 0 : rint_(g, 4))) {
        case 0: return c;
        case 1: return t_resized(c, 0, 2);   /* a gap after each */
        case 2: return t_resized(c, -1, 3);  /* negative lower bound */
        default: d[0] = 2; return t_struct(1, bl, d, &c, 1); /* lb 2 */
        }
    }
    case K_INT: {
        ttype *c = t_named(MPI_INT, 4, "int");
        switch ((opt.simple ? 0 : rint_(g, 4))) {
        case 0: return c;
        case 1: return t_resized(c, 0, 8);
        case 2: return t_resized(c, -4, 12);
        default: d[0] = 4; return t_struct(1, bl, d, &c, 1);
        }
    }
    case K_BSB: /* byte, ushort, byte: in memory order or not, dense or not */
        B = t_named(MPI_BYTE, 1, "byte");
        S = t_named(MPI_UNSIGNED_SHORT, 2, "ushort");
        ts[0] = B; ts[1] = S; ts[2] = B;
        switch ((opt.simple ? 0 : rint_(g, 4))) {
        case 0: d[0] = 0; d[1] = 1; d[2] = 3; return t_struct(3, bl, d, ts, 1);
        case 1: d[0] = 1; d[1] = 2; d[2] = 0; return t_struct(3, bl, d, ts, 1);
        case 2: d[0] = 2; d[1] = 0; d[2] = 3; return t_struct(3, bl, d, ts, 1);
        default:
            d[0] = 0; d[1] = 2; d[2] = 5;
            return t_resized(t_struct(3, bl, d, ts, 1), 0, 7);
        }
    case K_IS:
        I = t_named(MPI_INT, 4, "int");
        S = t_named(MPI_SHORT, 2, "short");
        ts[0] = I; ts[1] = S;
        switch ((opt.simple ? 0 : rint_(g, 4))) {
        case 0: d[0] = 0; d[1] = 4; return t_struct(2, bl, d, ts, 1);
        case 1:
            d[0] = 2; d[1] = 0;
            return t_resized(t_struct(2, bl, d, ts, 1), 0, 6);
        case 2:
            d[0] = 0; d[1] = 4;
            return t_resized(t_struct(2, bl, d, ts, 1), 0, 6);
        default: d[0] = 0; d[1] = -2; return t_struct(2, bl, d, ts, 1);
        }
    case K_I2:
        I = t_named(MPI_INT, 4, "int");
        ts[0] = I; ts[1] = I;
        switch ((opt.simple ? 0 : rint_(g, 5))) {
        case 0: return t_contig(2, I);
        case 1: d[0] = 4; d[1] = 0; return t_struct(2, bl, d, ts, 1);
        case 2: d[0] = 0; d[1] = 8; return t_struct(2, bl, d, ts, 1);
        case 3: return t_named(MPI_2INT, 8, "2int");
        default: { ttype *v = t_hvector(2, 1, -4, I); v->m = 1; return v; }
        }
    default:
        return t_named(MPI_UNSIGNED, 4, "unsigned");
    }
}

/* Units per element of each outer layout (0 = drawn). */
static const int contig_m[] = {2, 3, 4, 6, 17};

/* A datatype of units of `kind`: m units per element, m dividing mdiv
 * (mdiv 0: any m) or m == mexact (> 0).  recv: its elements never overlap.
 * Draws from g (a rank's own generator when only that rank needs it). */
static ttype *draw_type(rng *g, int kind, int recv, int mdiv, int mexact) {
    for (int attempt = 0; attempt < 200; attempt++) {
        int L = rint_(g, 8), m, a = 0, b = 0, c = 0;
        if (kind == K_U || opt.simple) L = 0;
        switch (L) {
        case 0: m = 1; break;
        case 1: m = contig_m[rint_(g, 5)]; break;
        case 2: a = 2 + rint_(g, 2); b = 1 + rint_(g, 2); c = b + 1 + rint_(g, 2);
                m = a * b; break;                       /* vector */
        case 3: b = 1 + rint_(g, 2); c = rint_(g, 3); m = 2 * b; break;
        case 4: a = 1 + rint_(g, 2); b = 1 + rint_(g, 2); c = rint_(g, 5);
                m = a + b; break;                       /* struct backwards */
        case 5: m = 3; break;                           /* indexed backwards */
        case 6: m = 1 + rint_(g, 2); a = 1 + rint_(g, 7); c = rint_(g, 5);
                break;                                  /* negative lb */
        default: m = 1 + rint_(g, 3); c = 1 + rint_(g, 12); break; /* lb > 0 */
        }
        if (attempt == 199 && mexact) { L = 1; m = mexact; }
        if (mexact ? m != mexact : (mdiv && mdiv % m)) continue;
        ttype *u = unit(g, kind), *t;
        switch (L) {
        case 0: t = u; break;
        case 1: t = t_contig(m, u); break;
        case 2: t = t_vector(a, b, c, u); break;
        case 3: t = t_hvector(2, b, -(b * u->ext + c), u); break;
        case 4: {
            int bl[2] = {a, b};
            MPI_Aint d[2] = {b * u->ext + c, 0};
            ttype *ts[2] = {u, u};
            t = t_struct(2, bl, d, ts, m);
            break;
        }
        case 5: {
            int bl[2] = {1, 2}, dp[2] = {3, 0};
            t = t_indexed(2, bl, dp, u);
            break;
        }
        case 6: {
            ttype *x = m == 1 ? u : t_contig(m, u);
            t = t_resized(x, x->lb - a, x->ext + a + c);
            break;
        }
        default: {
            int bl[1] = {m};
            MPI_Aint d[1] = {c};
            t = t_struct(1, bl, d, &u, m);
            break;
        }
        }
        t->m = m;
        if (recv && !t_can_receive(t)) continue;
        if (!t_agrees_with_mpi(t)) continue;
        return t;
    }
    fprintf(stderr, "test_random: no datatype found (kind %d m %d/%d)\n",
            kind, mdiv, mexact);
    MPI_Abort(MPI_COMM_WORLD, 2);
    return NULL;
}

/* ---- buffers ---------------------------------------------------------- */

typedef struct {
    unsigned char *mem;
    size_t len;
    MPI_Aint shift; /* base = mem + shift */
} tbuf;

static unsigned char *B(const tbuf *b) { return b->mem + b->shift; }

static unsigned char poison(size_t i) {
    return (unsigned char)(0xa5 ^ (i * 0x3b) ^ (i >> 7));
}

/* Room for count elements of t, poisoned, with guards. */
static tbuf tb_alloc(const ttype *t, int count) {
    MPI_Aint lo = 0, hi = 0;
    if (count > 0 && t->nsig > 0) {
        lo = hi = t->off[0];
        for (int j = 0; j < t->nsig; j++) {
            if (t->off[j] < lo) lo = t->off[j];
            if (t->off[j] + 1 > hi) hi = t->off[j] + 1;
        }
        MPI_Aint last = (MPI_Aint)(count - 1) * t->ext;
        if (last < 0) lo += last; else hi += last;
    }
    tbuf b;
    b.len = (size_t)(hi - lo) + 2 * GUARD;
    b.mem = malloc(b.len);
    b.shift = GUARD - lo;
    for (size_t i = 0; i < b.len; i++) b.mem[i] = poison(i);
    return b;
}

static tbuf tb_dup(const tbuf *a) {
    tbuf b = *a;
    b.mem = malloc(a->len);
    memcpy(b.mem, a->mem, a->len);
    return b;
}

static tbuf tb_dummy(void) { /* a buffer MPI ignores: poisoned */
    ttype t = {0};
    return tb_alloc(&t, 0);
}

/* Writes nbytes signature bytes (from src, or stream key) into count
 * elements of t starting at element first. */
static void tb_put(tbuf *b, const ttype *t, int first, int count,
                   uint64_t key, const unsigned char *src) {
    size_t n = (size_t)count * (size_t)t->nsig;
    for (size_t j = 0; j < n; j++) {
        MPI_Aint e = first + (MPI_Aint)(j / (size_t)t->nsig);
        unsigned char v = src ? src[j] : sbyte(key, j);
        B(b)[e * t->ext + t->off[j % (size_t)t->nsig]] = v;
    }
}

/* ---- the round -------------------------------------------------------- */

static MPI_Comm comms[5];
static const char *comm_names[5] = {"world", "split(rank%2)",
                                    "world reversed",
                                    "split(rank/3) reversed", "self"};

typedef struct {
    int round, coll, commi, size, rank, root, inplace, native;
    const char *alg; /* NULL: the plain call */
    int kind;
    MPI_Comm comm;
    char desc[1400];
    int dlen;
} rnd;

static void note(rnd *R, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void note(rnd *R, const char *fmt, ...) {
    if (R->dlen >= (int)sizeof R->desc - 1) return;
    va_list ap;
    va_start(ap, fmt);
    R->dlen += vsnprintf(R->desc + R->dlen, sizeof R->desc - R->dlen, fmt, ap);
    va_end(ap);
}

static int failed_round = -1, failed_rounds;

static void fail(const rnd *R, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void fail(const rnd *R, const char *fmt, ...) {
    char msg[1024], cmd[1400];
    va_list ap;
    if (failed_round == R->round) return; /* one report per round and rank */
    failed_round = R->round;
    failed_rounds++;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    replay_cmd(cmd, sizeof cmd, R->round, 0);
    fprintf(stderr,
            "[test_random] FAIL seed %llu round %d, world rank %d (rank %d of "
            "%d on %s): %s\n  round: %s\n  replay: %s\n",
            (unsigned long long)opt.seed, R->round, wrank, R->rank, R->size,
            comm_names[R->commi], msg, R->desc, cmd);
    fflush(stderr);
    if (opt.keep_going) return;
    sleep(1); /* let the other ranks' reports out */
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* got must equal want byte for byte (results, gaps, padding, guards). */
static void check(const rnd *R, const char *what, const tbuf *got,
                  const tbuf *want) {
    if (memcmp(got->mem, want->mem, got->len) == 0) return;
    size_t first = 0, ndiff = 0;
    for (size_t i = 0; i < got->len; i++)
        if (got->mem[i] != want->mem[i]) {
            if (!ndiff) first = i;
            ndiff++;
        }
    char g[64] = "", w[64] = "";
    for (size_t i = first, k = 0; i < got->len && k < 8; i++, k++) {
        snprintf(g + 3 * k, 4, "%02x ", got->mem[i]);
        snprintf(w + 3 * k, 4, "%02x ", want->mem[i]);
    }
    fail(R, "%s: %zu of %zu bytes differ, first at offset %ld from the "
         "buffer's address: got %swant %s",
         what, ndiff, got->len, (long)first - (long)got->shift, g, w);
}

static uint64_t data_key(const rnd *R, int rank) {
    return mix(opt.seed * 0x2545f4914f6cdd1dull ^ mix((uint64_t)R->round) ^
               mix((uint64_t)rank + 77));
}

/* rc of a papcoll call. */
static void begin_call(const rnd *R) {
    if ((opt.verbose && wrank == 0) || opt.verbose > 1) {
        printf("round %d%s%d: %s\n", R->round, opt.verbose > 1 ? " world rank " : "",
               opt.verbose > 1 ? wrank : 0, R->desc);
        fflush(stdout);
    }
    at("papcoll call");
}

static void check_rc(const rnd *R, int rc) {
    if (rc != MPI_SUCCESS) fail(R, "papcoll returned %d: %s", rc,
                                papc_strerror(rc));
}

/* Units per block: 0, odd, anything, or multiples of the element sizes. */
static int draw_units(rng *g, int usize, int maxbytes) {
    static const int base[] = {12, 24, 60, 68, 120, 204};
    int r = rint_(g, 10);
    if (r == 0) return 0;
    if (r <= 3) return 1 + 2 * rint_(g, 7);
    if (r <= 5) return 1 + rint_(g, 300 < maxbytes / usize ? 300 : maxbytes / usize);
    int b = base[rint_(g, 6)];
    int kmax = maxbytes / (b * usize);
    return b * (1 + rint_(g, kmax > 1 ? kmax : 1));
}

/* ---- gather and scatter (and their v variants) ----------------------- */

/* Random per-rank order of blocks with gaps: displs in elements. */
static int layout_v(rng *g, int p, const int *counts, int *displs) {
    int *perm = malloc(sizeof(int) * (size_t)p), pos = 0;
    for (int i = 0; i < p; i++) perm[i] = i;
    for (int i = p - 1; i > 0; i--) {
        int j = rint_(g, i + 1), x = perm[i];
        perm[i] = perm[j];
        perm[j] = x;
    }
    for (int k = 0; k < p; k++) {
        pos += rint_(g, 3);
        displs[perm[k]] = pos;
        pos += counts[perm[k]];
    }
    free(perm);
    return pos + rint_(g, 2);
}

static void run_rooted(rnd *R, rng *sh, rng *own) {
    int p = R->size, me = R->rank, root = R->root, isroot = me == root;
    int gather = R->coll == PAPC_GATHER || R->coll == PAPC_GATHERV;
    int vee = R->coll == PAPC_GATHERV || R->coll == PAPC_SCATTERV;
    int us = kind_size[R->kind];
    int *units = calloc((size_t)p, sizeof(int));
    int *cnt = calloc((size_t)p, sizeof(int)), *dsp = calloc((size_t)p, sizeof(int));
    int mroot = 0, total = 0;
    /* Block sizes in units (shared), then each rank's datatype. */
    if (vee) {
        static const int ms[] = {1, 1, 1, 2, 3, 4, 6, 17};
        mroot = ms[rint_(sh, 8)];
        for (int i = 0; i < p; i++)
            units[i] = mroot * draw_units(sh, mroot * us, MAX_ROOT / p / 2);
        note(R, " units/rank=");
        for (int i = 0; i < p && i < 20; i++) note(R, "%s%d", i ? "," : "", units[i]);
    } else {
        int n = draw_units(sh, us, MAX_ROOT / p);
        for (int i = 0; i < p; i++) units[i] = n;
        note(R, " units=%d", n);
    }
    /* Mine: the side every rank has. */
    ttype *mt = draw_type(own, R->kind, !gather, units[me], 0);
    int mcount = mt->m ? units[me] / mt->m : 0;
    note(R, " mine=%d x %s", mcount, mt->d);
    /* The root's side: one datatype for all blocks. */
    ttype *rt = NULL;
    if (isroot) {
        rng rg = rng_for(opt.seed, (uint64_t)R->round, 0xabcdef);
        if (vee) {
            rt = draw_type(&rg, R->kind, gather, 0, mroot);
            for (int i = 0; i < p; i++) cnt[i] = units[i] / mroot;
            total = layout_v(sh, p, cnt, dsp);
        } else {
            rt = draw_type(&rg, R->kind, gather, units[0], 0);
            for (int i = 0; i < p; i++) {
                cnt[i] = units[0] / rt->m;
                dsp[i] = i * cnt[i];
            }
            total = p * cnt[0];
        }
        note(R, " root's=%s%s", rt->d, vee ? " counts/displs=" : "");
        for (int i = 0; vee && i < p && i < 20; i++)
            note(R, "%s%d@%d", i ? "," : "", cnt[i], dsp[i]);
    } else if (vee) {
        /* keep the shared generator in step with the root */
        int *c2 = malloc(sizeof(int) * (size_t)p), *d2 = malloc(sizeof(int) * (size_t)p);
        for (int i = 0; i < p; i++) c2[i] = 0;
        layout_v(sh, p, c2, d2);
        free(c2);
        free(d2);
    }
    /* Buffers: mine (send for gather, receive for scatter), all (root). */
    tbuf mb = tb_alloc(mt, mcount), ab = isroot ? tb_alloc(rt, total) : tb_dummy();
    tbuf mE, aE;
    if (gather) {
        tb_put(&mb, mt, 0, mcount, data_key(R, me), NULL);
        mE = tb_dup(&mb);
        if (isroot && R->inplace) /* my block where it belongs */
            tb_put(&ab, rt, dsp[me], cnt[me], data_key(R, me), NULL);
        aE = tb_dup(&ab);
        if (isroot)
            for (int i = 0; i < p; i++)
                tb_put(&aE, rt, dsp[i], cnt[i], data_key(R, i), NULL);
    } else {
        if (isroot)
            for (int i = 0; i < p; i++)
                tb_put(&ab, rt, dsp[i], cnt[i], data_key(R, i), NULL);
        aE = tb_dup(&ab);
        mE = tb_dup(&mb);
        if (!(isroot && R->inplace))
            tb_put(&mE, mt, 0, mcount, data_key(R, me), NULL);
    }
    tbuf mP = tb_dup(&mb), aP = tb_dup(&ab), mN = tb_dup(&mb), aN = tb_dup(&ab);
    void *inpl = isroot && R->inplace ? MPI_IN_PLACE : NULL;
    int rcnt = isroot ? cnt[0] : 0;
    MPI_Datatype rty = isroot ? rt->h : MPI_BYTE;
    int rc = MPI_SUCCESS;
    begin_call(R);
    switch (R->coll) {
    case PAPC_GATHER:
        rc = R->alg ? papc_gather_alg(inpl ? inpl : B(&mP), mcount, mt->h, B(&aP), rcnt, rty, root, R->comm, R->alg)
                    : papc_gather(inpl ? inpl : B(&mP), mcount, mt->h, B(&aP), rcnt, rty, root, R->comm);
        break;
    case PAPC_SCATTER:
        rc = R->alg ? papc_scatter_alg(B(&aP), rcnt, rty, inpl ? inpl : B(&mP), mcount, mt->h, root, R->comm, R->alg)
                    : papc_scatter(B(&aP), rcnt, rty, inpl ? inpl : B(&mP), mcount, mt->h, root, R->comm);
        break;
    case PAPC_GATHERV:
        rc = R->alg ? papc_gatherv_alg(inpl ? inpl : B(&mP), mcount, mt->h, B(&aP), cnt, dsp, rty, root, R->comm, R->alg)
                    : papc_gatherv(inpl ? inpl : B(&mP), mcount, mt->h, B(&aP), cnt, dsp, rty, root, R->comm);
        break;
    default:
        rc = R->alg ? papc_scatterv_alg(B(&aP), cnt, dsp, rty, inpl ? inpl : B(&mP), mcount, mt->h, root, R->comm, R->alg)
                    : papc_scatterv(B(&aP), cnt, dsp, rty, inpl ? inpl : B(&mP), mcount, mt->h, root, R->comm);
    }
    check_rc(R, rc);
    if (R->native) {
        at("native call");
        switch (R->coll) {
        case PAPC_GATHER: MPI_Gather(inpl ? inpl : B(&mN), mcount, mt->h, B(&aN), rcnt, rty, root, R->comm); break;
        case PAPC_SCATTER: MPI_Scatter(B(&aN), rcnt, rty, inpl ? inpl : B(&mN), mcount, mt->h, root, R->comm); break;
        case PAPC_GATHERV: MPI_Gatherv(inpl ? inpl : B(&mN), mcount, mt->h, B(&aN), cnt, dsp, rty, root, R->comm); break;
        default: MPI_Scatterv(B(&aN), cnt, dsp, rty, inpl ? inpl : B(&mN), mcount, mt->h, root, R->comm);
        }
        at("check native");
        if (gather && isroot) check(R, "NATIVE MPI's root receive buffer against the reference", &aN, &aE);
        if (!gather) check(R, "NATIVE MPI's receive buffer against the reference", &mN, &mE);
    }
    at("check");
    check(R, gather ? "send buffer (must be untouched)" : "receive buffer", &mP, &mE);
    check(R, isroot ? (gather ? "root's receive buffer" : "root's send buffer (must be untouched)")
                    : "buffer significant only at the root (must be untouched)", &aP, &aE);
    tbuf *all[] = {&mb, &ab, &mE, &aE, &mP, &aP, &mN, &aN};
    for (int i = 0; i < 8; i++) free(all[i]->mem);
    free(units); free(cnt); free(dsp);
}

/* ---- bcast ------------------------------------------------------------ */

static void run_bcast(rnd *R, rng *sh, rng *own) {
    int n = draw_units(sh, kind_size[R->kind], MAX_BLOCK);
    ttype *t = draw_type(own, R->kind, R->rank != R->root, n, 0);
    int count = n / t->m;
    note(R, " units=%d mine=%d x %s", n, count, t->d);
    tbuf b = tb_alloc(t, count);
    if (R->rank == R->root) tb_put(&b, t, 0, count, data_key(R, R->root), NULL);
    tbuf E = tb_dup(&b), P = tb_dup(&b), N = tb_dup(&b);
    tb_put(&E, t, 0, count, data_key(R, R->root), NULL);
    begin_call(R);
    int rc = R->alg ? papc_bcast_alg(B(&P), count, t->h, R->root, R->comm, R->alg)
                    : papc_bcast(B(&P), count, t->h, R->root, R->comm);
    check_rc(R, rc);
    if (R->native) {
        at("native call");
        MPI_Bcast(B(&N), count, t->h, R->root, R->comm);
        at("check native");
        check(R, "NATIVE MPI's buffer against the reference", &N, &E);
    }
    at("check");
    check(R, R->rank == R->root ? "root's buffer (must be untouched)" : "buffer", &P, &E);
    free(b.mem); free(E.mem); free(P.mem); free(N.mem);
}

/* ---- reduce, allreduce ------------------------------------------------- */

enum { OP_SUM, OP_SUM_NC, OP_AFFINE, OP_PRE };
static MPI_Op user_ops[3];
static const char *op_names[] = {"user sum (commutative)",
                                 "user sum declared non-commutative",
                                 "user affine composition (non-commutative)"};
static atomic_int op_unknown_type;

static uint32_t rd32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static void wr32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }

/* The user ops walk the typemap: an int is 4 bytes in a row. */
static void op_walk(void *in, void *io, int *len, MPI_Datatype *dt,
                    int affine) {
    const ttype *t = t_lookup(*dt);
    if (!t) { atomic_store(&op_unknown_type, 1); return; }
    for (int e = 0; e < *len; e++) {
        unsigned char *a = (unsigned char *)in + (MPI_Aint)e * t->ext;
        unsigned char *b = (unsigned char *)io + (MPI_Aint)e * t->ext;
        if (!affine) {
            for (int k = 0; k < t->nsig / 4; k++)
                wr32(b + t->off[4 * k], rd32(a + t->off[4 * k]) + rd32(b + t->off[4 * k]));
        } else {
            for (int k = 0; k < t->nsig / 8; k++) {
                MPI_Aint oa = t->off[8 * k], ob = t->off[8 * k + 4];
                uint32_t la = rd32(a + oa), lb = rd32(a + ob);
                uint32_t ra = rd32(b + oa), rb = rd32(b + ob);
                wr32(b + oa, la * ra);
                wr32(b + ob, lb * ra + rb);
            }
        }
    }
}
static void op_sum(void *in, void *io, int *len, MPI_Datatype *dt) { op_walk(in, io, len, dt, 0); }
static void op_affine(void *in, void *io, int *len, MPI_Datatype *dt) { op_walk(in, io, len, dt, 1); }

static MPI_Op pre_op(int k) {
    return k == 0 ? MPI_SUM : k == 1 ? MPI_BXOR : k == 2 ? MPI_MAX : MPI_PROD;
}
static const char *pre_names[] = {"MPI_SUM", "MPI_BXOR", "MPI_MAX", "MPI_PROD"};

/* acc = acc op x (acc the left operand), over n uint32 in signature order. */
static void ref_combine(uint32_t *acc, const uint32_t *x, size_t n, int opk,
                        int pre) {
    for (size_t k = 0; k < n; k++) {
        if (opk == OP_AFFINE) {
            if (k % 2) continue;
            uint32_t la = acc[k], lb = acc[k + 1];
            acc[k] = la * x[k];
            acc[k + 1] = lb * x[k] + x[k + 1];
        } else if (opk != OP_PRE || pre == 0) acc[k] += x[k];
        else if (pre == 1) acc[k] ^= x[k];
        else if (pre == 2) acc[k] = acc[k] > x[k] ? acc[k] : x[k];
        else acc[k] *= x[k];
    }
}

static void run_reduce(rnd *R, rng *sh) {
    int all = R->coll == PAPC_ALLREDUCE, isroot = all || R->rank == R->root;
    int opk = rint_(sh, 4), pre = rint_(sh, 4);
    R->kind = opk == OP_PRE ? K_U : K_I2;
    /* One datatype for every rank (MPI requires it for reductions). */
    rng tg = rng_for(opt.seed, (uint64_t)R->round, 0x7e7e);
    int n = draw_units(sh, kind_size[R->kind], MAX_BLOCK);
    ttype *t = draw_type(&tg, R->kind, 1, n, 0);
    int count = n / t->m;
    MPI_Op op = opk == OP_PRE ? pre_op(pre) : user_ops[opk];
    note(R, " op=%s units=%d type=%d x %s", opk == OP_PRE ? pre_names[pre] : op_names[opk],
         n, count, t->d);
    /* Open MPI 4.1's allreduce corrupts its heap on any non-zero lower
     * bound with a user op (negative: free(): invalid pointer; lb 5:
     * tests/ompi-bugs/allreduce_lb.c): the reference only there. */
    MPI_Aint tlb, text;
    MPI_Type_get_true_extent(t->h, &tlb, &text);
    if (all && opk != OP_PRE && (t->lb != 0 || tlb != 0) && R->size > 1 &&
        R->native &&
        !getenv("TEST_RANDOM_NO_OMPI_WORKAROUND")) {
        R->native = 0;
        note(R, " (native skipped: Open MPI 4.1 allreduce bug, non-zero lb)");
    }
    size_t nb = (size_t)count * (size_t)t->nsig, nw = nb / 4;
    uint32_t *acc = calloc(nw + 1, 4), *x = calloc(nw + 1, 4);
    unsigned char *bytes = malloc(nb + 1);
    for (int i = 0; i < R->size; i++) {
        for (size_t j = 0; j < nb; j++) bytes[j] = sbyte(data_key(R, i), j);
        uint32_t *dst = i ? x : acc;
        for (size_t k = 0; k < nw; k++) dst[k] = rd32(bytes + 4 * k);
        if (i) ref_combine(acc, x, nw, opk, pre);
    }
    for (size_t k = 0; k < nw; k++) wr32(bytes + 4 * k, acc[k]);
    tbuf s = tb_alloc(t, count), r = isroot ? tb_alloc(t, count) : tb_dummy();
    tb_put(R->inplace && isroot ? &r : &s, t, 0, count, data_key(R, R->rank), NULL);
    tbuf sE = tb_dup(&s), rE = tb_dup(&r);
    if (isroot) tb_put(&rE, t, 0, count, 0, bytes);
    tbuf sP = tb_dup(&s), rP = tb_dup(&r), sN = tb_dup(&s), rN = tb_dup(&r);
    const void *sb = R->inplace && isroot ? MPI_IN_PLACE : (void *)B(&sP);
    atomic_store(&op_unknown_type, 0);
    begin_call(R);
    int rc = all ? (R->alg ? papc_allreduce_alg(sb, B(&rP), count, t->h, op, R->comm, R->alg)
                           : papc_allreduce(sb, B(&rP), count, t->h, op, R->comm))
                 : (R->alg ? papc_reduce_alg(sb, B(&rP), count, t->h, op, R->root, R->comm, R->alg)
                           : papc_reduce(sb, B(&rP), count, t->h, op, R->root, R->comm));
    check_rc(R, rc);
    int unknown = atomic_load(&op_unknown_type);
    if (R->native) {
        at("native call");
        const void *sn = R->inplace && isroot ? MPI_IN_PLACE : (void *)B(&sN);
        if (all) MPI_Allreduce(sn, B(&rN), count, t->h, op, R->comm);
        else MPI_Reduce(sn, B(&rN), count, t->h, op, R->root, R->comm);
        at("check native");
        if (isroot) check(R, "NATIVE MPI's result against the reference", &rN, &rE);
    }
    at("check");
    if (unknown)
        fail(R, "papcoll called the user op with a datatype that is not the "
             "call's");
    check(R, "send buffer (must be untouched)", &sP, &sE);
    check(R, isroot ? "receive buffer" : "receive buffer of a non-root (must be untouched)", &rP, &rE);
    tbuf *bs[] = {&s, &r, &sE, &rE, &sP, &rP, &sN, &rN};
    for (int i = 0; i < 8; i++) free(bs[i]->mem);
    free(acc); free(x); free(bytes);
}

/* ---- choosing a round --------------------------------------------------- */

typedef struct { int coll; char name[64]; } pair;
static pair filter[32];
static int nfilter;

static const char *pick_alg(rng *sh, int coll, int noncomm) {
    const papc_algorithm_info *ok[64];
    int n = 0, na = 0, aware[64];
    for (int i = 0; i < papc_algorithm_count((papc_collective)coll) && n < 64; i++) {
        const papc_algorithm_info *a = papc_algorithm_get((papc_collective)coll, i);
        if (noncomm && (a->restrictions & PAPC_RESTRICT_COMMUTATIVE)) continue;
        if (a->flags & PAPC_FLAG_ARRIVAL_AWARE) aware[na++] = n;
        ok[n++] = a;
    }
    if (opt.arrival && na && rint_(sh, 2)) return ok[aware[rint_(sh, na)]]->name;
    int k = rint_(sh, n + 1);
    return k == n ? NULL : ok[k]->name;
}

static void run_round(int round) {
    rnd R;
    memset(&R, 0, sizeof R);
    R.round = round;
    rng sh = rng_for(opt.seed, (uint64_t)round, 1);
    /* The collective (and, with --algs, the algorithm). */
    int fi = -1;
    if (nfilter) {
        fi = rint_(&sh, nfilter);
        R.coll = filter[fi].coll;
    } else {
        R.coll = rint_(&sh, PAPC_NUM_COLLECTIVES);
    }
    /* The communicator: world most often; in the arrival mode more so. */
    int c = rint_(&sh, 20);
    R.commi = opt.arrival ? (c < 14 ? 0 : c - 14 < 5 ? c - 14 : 0)
                          : (c < 8 ? 0 : 1 + (c - 8) / 3);
    if (R.commi > 4) R.commi = 4;
    R.comm = comms[R.commi];
    MPI_Comm_size(R.comm, &R.size);
    MPI_Comm_rank(R.comm, &R.rank);
    R.root = (int)(rnext(&sh) % (unsigned)R.size);
    R.inplace = rint_(&sh, 4) == 0;
    R.native = opt.native;
    /* Segment size: equal on every rank; not changed under a monitor. */
    static const char *segs[] = {"8192", "8192", "0", "64", "1000", "4096"};
    int si = rint_(&sh, 6);
    if (!opt.arrival) setenv("PAPC_SEGSIZE", segs[si], 1);
    /* Reductions draw their op first: non-commutative ones narrow the
     * algorithms; peek with a copy of the generator. */
    int noncomm = 0;
    if (R.coll == PAPC_REDUCE || R.coll == PAPC_ALLREDUCE) {
        rng peek = sh;
        rint_(&peek, 1); /* the algorithm draw below comes first */
        int opk = rint_(&peek, 4);
        noncomm = opk == OP_SUM_NC || opk == OP_AFFINE;
    }
    rng algg = rng_for(opt.seed, (uint64_t)round, 2);
    if (fi >= 0)
        R.alg = strcmp(filter[fi].name, "plain") == 0 ? NULL : filter[fi].name;
    else
        R.alg = pick_alg(&algg, R.coll, noncomm);
    if (R.alg && noncomm) { /* --algs may name a commutative-only one */
        const papc_algorithm_info *a = papc_algorithm_find((papc_collective)R.coll, R.alg);
        if (a && (a->restrictions & PAPC_RESTRICT_COMMUTATIVE)) R.alg = NULL;
    }
    rint_(&sh, 1);
    if (R.coll != PAPC_REDUCE && R.coll != PAPC_ALLREDUCE)
        R.kind = rint_(&sh, K_NMOVE);
    note(&R, "%s %s on %s (size %d) root %d%s segsize %s unit %s",
         papc_collective_name((papc_collective)R.coll), R.alg ? R.alg : "(plain call)",
         comm_names[R.commi], R.size, R.root, R.inplace ? " MPI_IN_PLACE" : "",
         opt.arrival ? "(default)" : segs[si],
         R.coll == PAPC_REDUCE || R.coll == PAPC_ALLREDUCE ? "{int,int}/unsigned"
                                                           : kind_name[R.kind]);
    atomic_store(&where.round, round);
    atomic_store(&where.coll, papc_collective_name((papc_collective)R.coll));
    atomic_store(&where.alg, R.alg ? R.alg : "(plain call)");
    atomic_store(&where.comm, comm_names[R.commi]);
    atomic_store(&where.csize, R.size);
    atomic_store(&where.root, R.root);
    {
        char cmd[1400];
        replay_cmd(cmd, sizeof cmd, round, 0);
        snprintf(crash_note, sizeof crash_note,
                 "[test_random] CRASH world rank %d in round %d: %s %s on %s\n"
                 "  replay: %s\n", wrank, round,
                 papc_collective_name((papc_collective)R.coll),
                 R.alg ? R.alg : "(plain call)", comm_names[R.commi], cmd);
    }
    rng own = rng_for(opt.seed ^ 0x0f0f, (uint64_t)round, (uint64_t)R.rank + 1000);
    /* Arrival: everyone computes for a random while. */
    rng sl = rng_for(opt.seed ^ 0x51ee, (uint64_t)round, (uint64_t)wrank);
    if (opt.arrival) {
        at("sleep before the call");
        usleep((useconds_t)rint_(&sl, opt.max_sleep_ms * 1000 + 1));
    } else if (rint_(&sl, 4) == 0) {
        usleep((useconds_t)rint_(&sl, 1001));
    }
    switch (R.coll) {
    case PAPC_BCAST: run_bcast(&R, &sh, &own); break;
    case PAPC_REDUCE:
    case PAPC_ALLREDUCE: run_reduce(&R, &sh); break;
    default: run_rooted(&R, &sh, &own);
    }
    arena_free();
}

/* ---- main --------------------------------------------------------------- */

static void parse_algs(const char *s) {
    snprintf(opt.algs, sizeof opt.algs, "%s", s);
    char buf[512];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *tok = strtok(buf, ","); tok && nfilter < 32; tok = strtok(NULL, ",")) {
        char *colon = strchr(tok, ':');
        if (!colon) { fprintf(stderr, "--algs: want collective:algorithm\n"); exit(2); }
        *colon = 0;
        int c = papc_collective_from_name(tok);
        if (c < 0) { fprintf(stderr, "--algs: unknown collective %s\n", tok); exit(2); }
        filter[nfilter].coll = c;
        snprintf(filter[nfilter].name, sizeof filter[nfilter].name, "%s", colon + 1);
        if (strcmp(colon + 1, "plain") && !papc_algorithm_find((papc_collective)c, colon + 1)) {
            fprintf(stderr, "--algs: unknown %s algorithm %s\n", tok, colon + 1);
            exit(2);
        }
        nfilter++;
    }
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = strchr(a, '=');
        v = v ? v + 1 : "";
        if (!strncmp(a, "--seed=", 7)) opt.seed = strtoull(v, NULL, 10);
        else if (!strncmp(a, "--rounds=", 9)) opt.rounds = atoi(v);
        else if (!strncmp(a, "--round=", 8)) opt.round = atoi(v);
        else if (!strcmp(a, "--arrival")) opt.arrival = 1;
        else if (!strncmp(a, "--max-sleep=", 12)) opt.max_sleep_ms = atoi(v);
        else if (!strncmp(a, "--fault=", 8)) opt.fault = v;
        else if (!strncmp(a, "--algs=", 7)) parse_algs(v);
        else if (!strncmp(a, "--watchdog=", 11)) opt.watchdog = atoi(v);
        else if (!strncmp(a, "--native=", 9)) opt.native = atoi(v);
        else if (!strcmp(a, "--verbose")) opt.verbose = 1;
        else if (!strcmp(a, "--verbose=2")) opt.verbose = 2;
        else if (!strcmp(a, "--keep-going")) opt.keep_going = 1;
        else if (!strcmp(a, "--types=simple")) opt.simple = 1;
        else { fprintf(stderr, "test_random: unknown option %s (see the top of test_random.c)\n", a); return 2; }
    }
    if (opt.native < 0) opt.native = !opt.arrival;
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) exe[n] = 0; else snprintf(exe, sizeof exe, "%s", argv[0]);
    if (opt.fault) setenv("PAPC_ARRIVAL_FAULT", opt.fault, 1);
    setenv("PAPC_SEGSIZE", "8192", 1); /* exists from the start: changed per round */

    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    signal(SIGSEGV, on_crash);
    signal(SIGABRT, on_crash);
    signal(SIGBUS, on_crash);
    snprintf(crash_note, sizeof crash_note, "[test_random] CRASH world rank %d during set-up\n", wrank);

    atomic_store(&where.round, -1);
    atomic_store(&where.coll, "-");
    atomic_store(&where.alg, "-");
    atomic_store(&where.comm, "-");
    at("set-up");
    pthread_t wd;
    pthread_create(&wd, NULL, watchdog, NULL);

    comms[0] = MPI_COMM_WORLD;
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &comms[1]);
    MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, &comms[2]);
    MPI_Comm_split(MPI_COMM_WORLD, wrank / 3, -wrank, &comms[3]);
    comms[4] = MPI_COMM_SELF;
    MPI_Op_create(op_sum, 1, &user_ops[OP_SUM]);
    MPI_Op_create(op_sum, 0, &user_ops[OP_SUM_NC]);
    MPI_Op_create(op_affine, 0, &user_ops[OP_AFFINE]);
    if (opt.arrival) {
        at("papc_monitor_init");
        int rc = papc_monitor_init(MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS && wrank == 0)
            fprintf(stderr, "test_random: papc_monitor_init: %s\n", papc_strerror(rc));
    }
    int first = opt.round >= 0 ? opt.round : 0;
    int last = opt.round >= 0 ? opt.round : opt.rounds - 1;
    long long t0 = now_ms();
    for (int r = first; r <= last; r++) run_round(r);
    at("final barrier");
    MPI_Barrier(MPI_COMM_WORLD);
    if (opt.arrival) {
        at("papc_monitor_finalize");
        papc_monitor_finalize();
    }
    int bad = 0;
    MPI_Allreduce(&failed_rounds, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0)
        printf("test_random: seed %llu rounds %d..%d at P=%d%s%s%s: %s "
               "(%.1f s)\n", (unsigned long long)opt.seed, first, last, wsize,
               opt.arrival ? " arrival mode" : "", opt.fault ? " fault=" : "",
               opt.fault ? opt.fault : "", bad ? "FAILED" : "all passed",
               (now_ms() - t0) / 1000.0);
    for (int i = 0; i < 3; i++) MPI_Op_free(&user_ops[i]);
    for (int i = 1; i < 4; i++) MPI_Comm_free(&comms[i]);
    at("MPI_Finalize");
    MPI_Finalize();
    atomic_store(&where.done, 1);
    pthread_join(wd, NULL);
    return bad ? 1 : 0;
}
