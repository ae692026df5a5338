/*
 * test_clairvoyant.c — the reference Clairvoyant generator (Listing 2 of
 * clairvoyant-reduce.md with the fixes of Sect. 4) and the schedule
 * checker (no MPI): hand-checked small cases (P = 1, P = 2, N = 1, the
 * paper's Sect. 4.2 example and Fig. 1, idle-round skipping), property
 * tests on thousands of random instances (papc_clv_check plus an
 * independent bit-mask replay), determinism, bad input, and corrupted
 * schedules that the checker must reject.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "clairvoyant/schedule.h"
#include "clairvoyant/schedule_build.h"

/* ------------------------------------------------------------ helpers */

/* One transfer (round, from, to, segment), for expected schedules. */
typedef struct xf {
    int round, from, to, seg;
} xf;

/* The schedule's transfers, from the senders' events, in (round, from)
 * order. */
static size_t transfers(const papc_clv_schedule *s, xf *out, size_t max) {
    size_t n = 0;
    for (int p = 0; p < s->P; p++)
        for (size_t i = s->first[p]; i < s->first[p + 1]; i++) {
            const papc_clv_event *e = &s->events[i];
            if (e->kind != PAPC_CLV_SEND) continue;
            if (n < max) out[n] = (xf){e->round, p, e->peer, e->segment};
            n++;
        }
    /* sort by (round, from) */
    for (size_t i = 1; i < n && i < max; i++) {
        xf v = out[i];
        size_t j = i;
        while (j > 0 && (out[j - 1].round > v.round ||
                         (out[j - 1].round == v.round &&
                          out[j - 1].from > v.from))) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = v;
    }
    return n;
}

static void expect_transfers(const papc_clv_schedule *s, const xf *want,
                             size_t nwant) {
    xf got[256];
    size_t n = transfers(s, got, 256);
    if (n != nwant) {
        for (size_t i = 0; i < n && i < 256; i++)
            print_message("got r%d %d->%d s%d\n", got[i].round, got[i].from,
                          got[i].to, got[i].seg);
    }
    assert_int_equal(n, nwant);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(got[i].round, want[i].round);
        assert_int_equal(got[i].from, want[i].from);
        assert_int_equal(got[i].to, want[i].to);
        assert_int_equal(got[i].seg, want[i].seg);
    }
}

static void assert_valid(const papc_clv_schedule *s, const double *a,
                         double d) {
    char why[256];
    int rc = papc_clv_check(s, a, d, why, sizeof why);
    if (rc != 0) print_message("papc_clv_check: %s\n", why);
    assert_int_equal(rc, 0);
}

static void assert_invalid(const papc_clv_schedule *s, const double *a,
                           double d, const char *expect) {
    char why[256];
    assert_int_equal(papc_clv_check(s, a, d, why, sizeof why), -1);
    assert_true(why[0] != '\0');
    if (expect && !strstr(why, expect)) {
        print_message("reason '%s' lacks '%s'\n", why, expect);
        fail();
    }
}

/* Independent replay with one bit per contribution (P <= 64): transfers
 * of a round are simultaneous; a sender must hold something and must not
 * receive the same segment in that round; a receiver's set and the
 * incoming one are disjoint (nothing counted twice); at the end the root
 * holds every bit of every segment and nobody else holds any.  Also: at
 * most one send and one receive per process per round, and nobody
 * communicates after the end of its arrival round slot rule is broken. */
static void replay(const papc_clv_schedule *s, const double *a, double d) {
    const int P = s->P, N = s->N;
    assert_true(P <= 64);
    uint64_t *hold = malloc((size_t)P * (size_t)N * sizeof *hold);
    assert_non_null(hold);
    for (int p = 0; p < P; p++)
        for (int j = 0; j < N; j++) hold[(size_t)p * N + j] = 1ull << p;
    double amin = a[0];
    for (int p = 1; p < P; p++) amin = fmin(amin, a[p]);
    xf *t = malloc((s->nevents / 2 + 1) * sizeof *t);
    assert_non_null(t);
    size_t n = transfers(s, t, s->nevents / 2 + 1);
    assert_int_equal(2 * n, s->nevents);
    int *sent = calloc((size_t)P, sizeof *sent), *recvd = calloc((size_t)P,
                                                                 sizeof
                                                                 *recvd);
    assert_non_null(sent);
    assert_non_null(recvd);
    for (size_t b = 0; b < n;) {
        size_t e = b;
        while (e < n && t[e].round == t[b].round) e++;
        /* one send and one receive per process in this round */
        for (size_t i = b; i < e; i++) {
            assert_int_equal(sent[t[i].from]++, 0);
            assert_int_equal(recvd[t[i].to]++, 0);
            /* arrived by the end of the round's slot */
            double end = amin + (t[i].round + 1.0) * d;
            double tol = 1e-9 * (fabs(end) + d);
            assert_true(a[t[i].from] <= end + tol);
            assert_true(a[t[i].to] <= end + tol);
        }
        /* simultaneous: take every sender's set first */
        uint64_t *moving = malloc((e - b) * sizeof *moving);
        assert_non_null(moving);
        for (size_t i = b; i < e; i++) {
            uint64_t *c = &hold[(size_t)t[i].from * N + t[i].seg];
            assert_true(*c != 0); /* sends something it holds */
            moving[i - b] = *c;
            *c = 0;
        }
        for (size_t i = b; i < e; i++) {
            uint64_t *c = &hold[(size_t)t[i].to * N + t[i].seg];
            assert_true((*c & moving[i - b]) == 0); /* exactly once */
            *c |= moving[i - b];
        }
        /* a process that sent segment j this round must not have
         * received j this round (it would have forwarded it) */
        for (size_t i = b; i < e; i++)
            for (size_t k = b; k < e; k++)
                assert_false(t[k].to == t[i].from && t[k].seg == t[i].seg);
        free(moving);
        for (size_t i = b; i < e; i++) sent[t[i].from] = recvd[t[i].to] = 0;
        b = e;
    }
    uint64_t all = P == 64 ? ~0ull : (1ull << P) - 1;
    for (int p = 0; p < P; p++)
        for (int j = 0; j < N; j++)
            assert_true(hold[(size_t)p * N + j] ==
                        (p == s->root ? all : 0ull));
    /* rounds = last round + 1 */
    int last = -1;
    for (size_t i = 0; i < n; i++)
        if (t[i].round > last) last = t[i].round;
    assert_int_equal(s->rounds, last + 1);
    free(sent);
    free(recvd);
    free(t);
    free(hold);
}

/* Generate, check, replay, and compare with a second run. */
static void run_case(const double *a, int P, int N, int root, double d) {
    papc_clv_schedule s, s2;
    assert_int_equal(papc_clv_reference(a, P, N, root, d, &s), 0);
    assert_int_equal(s.P, P);
    assert_int_equal(s.N, N);
    assert_int_equal(s.root, root);
    assert_valid(&s, a, d);
    replay(&s, a, d);
    assert_int_equal(papc_clv_reference(a, P, N, root, d, &s2), 0);
    assert_true(papc_clv_equal(&s, &s2));
    papc_clv_free(&s);
    papc_clv_free(&s2);
}

/* ----------------------------------------------------- hand-made cases */

static void test_p1_nothing_to_do(void **state) {
    (void)state;
    double a[1] = {3.5};
    papc_clv_schedule s;
    assert_int_equal(papc_clv_reference(a, 1, 5, 0, 0.1, &s), 0);
    assert_int_equal(s.nevents, 0);
    assert_int_equal(s.rounds, 0);
    assert_valid(&s, a, 0.1);
    papc_clv_free(&s);
}

static void test_p2_n1(void **state) {
    (void)state;
    double a[2] = {0.0, 0.0};
    papc_clv_schedule s;
    for (int root = 0; root < 2; root++) {
        assert_int_equal(papc_clv_reference(a, 2, 1, root, 1.0, &s), 0);
        xf want[] = {{0, 1 - root, root, 0}};
        expect_transfers(&s, want, 1);
        assert_int_equal(s.rounds, 1);
        assert_valid(&s, a, 1.0);
        papc_clv_free(&s);
    }
}

/* P = 2, N = 3, both on time, root 0.  Round 0: the sink 0 takes segment
 * 0 from 1; 1 then takes segment 1 from 0 (0 has not sent yet).  Round 1:
 * the sink accepts any state, takes segment 1 back from 1 (0 had sent it:
 * E), 1 takes segment 2 from 0.  Round 2: 0 takes segment 2 from 1. */
static void test_p2_n3_root_sends_and_gets_back(void **state) {
    (void)state;
    double a[2] = {0.0, 0.0};
    papc_clv_schedule s;
    assert_int_equal(papc_clv_reference(a, 2, 3, 0, 1.0, &s), 0);
    xf want[] = {{0, 0, 1, 1}, {0, 1, 0, 0}, {1, 0, 1, 2},
                 {1, 1, 0, 1}, {2, 1, 0, 2}};
    expect_transfers(&s, want, 5);
    assert_int_equal(s.rounds, 3);
    /* per process: SEND before RECV within a round */
    assert_int_equal(s.events[s.first[0]].kind, PAPC_CLV_SEND);
    assert_int_equal(s.events[s.first[0] + 1].kind, PAPC_CLV_RECV);
    assert_valid(&s, a, 1.0);
    replay(&s, a, 1.0);
    papc_clv_free(&s);
}

/* N = 1, everybody on time: the root takes from the first free process
 * each round; a process that received in a round cannot forward it (P'),
 * so the result is a binomial-like tree. P = 3, root 0: round 0: 1 -> 0;
 * 2 finds no free holder (0 holds P', 1 is E).  Round 1: 2 -> 0. */
static void test_n1_p3(void **state) {
    (void)state;
    double a[3] = {0.0, 0.0, 0.0};
    papc_clv_schedule s;
    assert_int_equal(papc_clv_reference(a, 3, 1, 0, 1.0, &s), 0);
    xf want[] = {{0, 1, 0, 0}, {1, 2, 0, 0}};
    expect_transfers(&s, want, 2);
    assert_valid(&s, a, 1.0);
    papc_clv_free(&s);
    /* P = 4: round 0: 1 -> 0, then 3 -> 2 (2 takes from the first free
     * holder after the sink and 1); round 1: 2 -> 0. */
    double b[4] = {0.0, 0.0, 0.0, 0.0};
    assert_int_equal(papc_clv_reference(b, 4, 1, 0, 1.0, &s), 0);
    xf want4[] = {{0, 1, 0, 0}, {0, 3, 2, 0}, {1, 2, 0, 0}};
    expect_transfers(&s, want4, 3);
    assert_valid(&s, b, 1.0);
    papc_clv_free(&s);
}

/* Sect. 4.2's example: a = (0, 0, 0, 1.1), root 0, N = 4, d = 1.
 * Round 0 (t = 0): 1 -> 0 segment 0, 0 -> 1 segment 1, 2 idles.
 * Round 1 (t = 1, p3 arrives within d): 2 -> 0 s0, 3 -> 1 s1; with P'
 * neither 0 nor 1 forwards what it receives: 0 -> 2 s2, 1 -> 3 s2. */
static void test_paper_sect42_example(void **state) {
    (void)state;
    double a[4] = {0.0, 0.0, 0.0, 1.1};
    papc_clv_schedule s;
    assert_int_equal(papc_clv_reference(a, 4, 4, 0, 1.0, &s), 0);
    xf got[64];
    size_t n = transfers(&s, got, 64);
    xf want[] = {{0, 0, 1, 1}, {0, 1, 0, 0}, {1, 0, 2, 2},
                 {1, 1, 3, 2}, {1, 2, 0, 0}, {1, 3, 1, 1}};
    assert_true(n >= 6);
    for (int i = 0; i < 6; i++) {
        assert_int_equal(got[i].round, want[i].round);
        assert_int_equal(got[i].from, want[i].from);
        assert_int_equal(got[i].to, want[i].to);
        assert_int_equal(got[i].seg, want[i].seg);
    }
    assert_int_not_equal(got[6].round, 1);
    assert_valid(&s, a, 1.0);
    replay(&s, a, 1.0);
    papc_clv_free(&s);
}

/* Fig. 1: a_i = i, d = 1, N = 6 (root 0): cell (s, p) = the (1-based)
 * round in which p sends segment s; 0 = not within the first 11 rounds. */
static void test_paper_fig1(void **state) {
    (void)state;
    static const int fig[6][13] = {
        {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0},
        {1, 2, 4, 6, 8, 10, 11, 0, 0, 0, 0, 0, 0},
        {2, 0, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0, 0},
        {3, 3, 0, 5, 6, 7, 8, 9, 10, 11, 0, 0, 0},
        {4, 4, 5, 0, 7, 8, 9, 10, 11, 0, 0, 0, 0},
        {5, 5, 6, 7, 0, 9, 10, 11, 0, 0, 0, 0, 0},
    };
    enum { P = 20, N = 6 };
    double a[P];
    for (int i = 0; i < P; i++) a[i] = i;
    papc_clv_schedule s;
    assert_int_equal(papc_clv_reference(a, P, N, 0, 1.0, &s), 0);
    int got[N][13];
    memset(got, 0, sizeof got);
    for (int p = 0; p < 13; p++)
        for (size_t i = s.first[p]; i < s.first[p + 1]; i++) {
            const papc_clv_event *e = &s.events[i];
            if (e->kind == PAPC_CLV_SEND && e->round + 1 <= 11)
                got[e->segment][p] = e->round + 1;
        }
    assert_memory_equal(got, fig, sizeof got);
    assert_valid(&s, a, 1.0);
    replay(&s, a, 1.0);
    papc_clv_free(&s);
}

/* Sect. 5.1: N = 1, a = (0, 1, 2, 3), a short round (d = 1/16, exact):
 * each arrival sends to the root in the round whose slot it ends
 * (a_p = a_min + (round + 1) d), the idle rounds between are skipped. */
static void test_idle_rounds(void **state) {
    (void)state;
    double a[4] = {0.0, 1.0, 2.0, 3.0};
    papc_clv_schedule s;
    assert_int_equal(papc_clv_reference(a, 4, 1, 0, 0.0625, &s), 0);
    xf want[] = {{15, 1, 0, 0}, {31, 2, 0, 0}, {47, 3, 0, 0}};
    expect_transfers(&s, want, 3);
    assert_int_equal(s.rounds, 48);
    assert_valid(&s, a, 0.0625);
    papc_clv_free(&s);
    /* a late root: the others reduce among themselves (sink = earliest),
     * then hand everything to the root when it comes. */
    double b[3] = {0.0, 0.0, 100.0};
    assert_int_equal(papc_clv_reference(b, 3, 1, 2, 1.0, &s), 0);
    xf wantb[] = {{0, 1, 0, 0}, {99, 0, 2, 0}};
    expect_transfers(&s, wantb, 2);
    assert_valid(&s, b, 1.0);
    papc_clv_free(&s);
}

/* Round numbers follow the clock even when the head leaves: p0 (not the
 * root) hands its segment to the root 1 in round 0 and is done; the next
 * head is the root at 1.5, so its next round is ceil(1.5) = 2, and p2
 * (a = 2.4 <= 1.5 + 1) joins round 2, whose slot ends at 3 >= 2.4. */
static void test_round_numbers_follow_the_clock(void **state) {
    (void)state;
    double a[3] = {0.0, 0.5, 2.4};
    papc_clv_schedule s;
    assert_int_equal(papc_clv_reference(a, 3, 1, 1, 1.0, &s), 0);
    xf want[] = {{0, 0, 1, 0}, {2, 2, 1, 0}};
    expect_transfers(&s, want, 2);
    assert_valid(&s, a, 1.0);
    papc_clv_free(&s);
}

static void test_bad_input(void **state) {
    (void)state;
    double a[3] = {0.0, 1.0, 2.0};
    papc_clv_schedule s;
    assert_int_equal(papc_clv_reference(a, 0, 1, 0, 1.0, &s), -1);
    papc_clv_free(&s);
    assert_int_equal(papc_clv_reference(a, 3, 0, 0, 1.0, &s), -1);
    assert_int_equal(s.nevents, 0);
    papc_clv_free(&s);
    assert_int_equal(papc_clv_reference(a, 3, 1, 3, 1.0, &s), -1);
    assert_int_equal(papc_clv_reference(a, 3, 1, -1, 1.0, &s), -1);
    assert_int_equal(papc_clv_reference(a, 3, 1, 0, 0.0, &s), -1);
    assert_int_equal(papc_clv_reference(a, 3, 1, 0, -1.0, &s), -1);
    assert_int_equal(papc_clv_reference(a, 3, 1, 0, NAN, &s), -1);
    assert_int_equal(papc_clv_reference(NULL, 3, 1, 0, 1.0, &s), -1);
    double b[2] = {0.0, NAN};
    assert_int_equal(papc_clv_reference(b, 2, 1, 0, 1.0, &s), -1);
    double c[2] = {0.0, 1e300};
    assert_int_equal(papc_clv_reference(c, 2, 1, 0, 1.0, &s), -1);
    papc_clv_free(&s);
    papc_clv_free(NULL);
}

/* --------------------------------------------------- random instances */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static double unif(void) { return (double)(rnd() >> 11) * 0x1.0p-53; }
static int irand(int n) { return (int)(rnd() % (uint64_t)n); }

enum { UNIFORM, SKEWED, TIES, CLUSTERS, NKINDS };

static double make_instance(int kind, int P, int N, double *a) {
    double d = 0.001 + 0.999 * unif();
    switch (kind) {
    case UNIFORM: /* Sect. 5.7: U[0, P + 0.1] */
        for (int p = 0; p < P; p++) a[p] = unif() * (P + 0.1);
        break;
    case SKEWED: /* all on time but one, late by N (or random) */
        for (int p = 0; p < P; p++) a[p] = 0.0;
        a[irand(P)] = irand(2) ? (double)N : unif() * 5.0 * N;
        break;
    case TIES: /* exact ties: d and arrivals dyadic, on and off the grid */
        d = ldexp(1.0, -irand(4));
        for (int p = 0; p < P; p++) a[p] = irand(2 * P + 1) * d * 0.5;
        break;
    default: /* a few clusters, equal times inside a cluster */
    {
        double base[4];
        for (int c = 0; c < 4; c++) base[c] = unif() * 10.0;
        for (int p = 0; p < P; p++) a[p] = base[irand(4)];
        break;
    }
    }
    return d;
}

static void test_random_properties(void **state) {
    (void)state;
    double a[64];
    int cases = 0;
    for (int it = 0; it < 4000; it++) {
        int kind = it % NKINDS;
        int P = 1 + irand(40), N = 1 + irand(40);
        if (it % 7 == 0) N = 1;
        if (it % 11 == 0) P = 1 + irand(3);
        double d = make_instance(kind, P, N, a);
        int root = irand(P);
        run_case(a, P, N, root, d);
        cases++;
    }
    /* every small shape, every root */
    for (int P = 1; P <= 6; P++)
        for (int N = 1; N <= 5; N++)
            for (int root = 0; root < P; root++)
                for (int kind = 0; kind < NKINDS; kind++) {
                    double d = make_instance(kind, P, N, a);
                    run_case(a, P, N, root, d);
                    cases++;
                }
    print_message("%d random instances\n", cases);
}

/* Shifting every arrival by a constant changes nothing. */
static void test_shift_invariance(void **state) {
    (void)state;
    double a[40], b[40];
    for (int it = 0; it < 200; it++) {
        int P = 1 + irand(40), N = 1 + irand(20);
        double d = make_instance(TIES, P, N, a);
        for (int p = 0; p < P; p++) b[p] = a[p] + 64.0;
        int root = irand(P);
        papc_clv_schedule s, t;
        assert_int_equal(papc_clv_reference(a, P, N, root, d, &s), 0);
        assert_int_equal(papc_clv_reference(b, P, N, root, d, &t), 0);
        assert_true(papc_clv_equal(&s, &t));
        papc_clv_free(&s);
        papc_clv_free(&t);
    }
}

/* ------------------------------------------- the checker can say no */

static void test_check_rejects_corruption(void **state) {
    (void)state;
    double a[4] = {0.0, 0.0, 0.0, 1.1};
    papc_clv_schedule s, t;
    assert_int_equal(papc_clv_reference(a, 4, 4, 0, 1.0, &s), 0);
    assert_valid(&s, a, 1.0);

    /* equal to itself, not to a changed copy */
    papc_clv_builder b;
    papc_clv_builder_init(&b);
    assert_int_equal(papc_clv_builder_add(&b, 0, 1, 0, 0), 0);
    assert_int_equal(papc_clv_builder_finish(&b, 4, 4, 0, &t), 0);
    assert_false(papc_clv_equal(&s, &t));
    papc_clv_free(&t);
    papc_clv_builder_free(&b);

#define COPY()                                                               \
    do {                                                                     \
        t = s;                                                               \
        t.first = malloc(((size_t)s.P + 1) * sizeof *t.first);               \
        t.events = malloc(s.nevents * sizeof *t.events);                     \
        memcpy(t.first, s.first, ((size_t)s.P + 1) * sizeof *t.first);      \
        memcpy(t.events, s.events, s.nevents * sizeof *t.events);            \
        assert_true(papc_clv_equal(&s, &t));                                 \
    } while (0)

    /* a receive's segment changed: the pair no longer matches */
    COPY();
    for (size_t i = 0; i < t.nevents; i++)
        if (t.events[i].kind == PAPC_CLV_RECV) {
            t.events[i].segment = (t.events[i].segment + 1) % t.N;
            break;
        }
    assert_false(papc_clv_equal(&s, &t));
    assert_invalid(&t, a, 1.0, NULL); /* 0's receive now clashes */
    papc_clv_free(&t);

    /* a send's peer changed: its receive is elsewhere */
    COPY();
    for (size_t i = t.first[3]; i < t.first[4]; i++)
        if (t.events[i].kind == PAPC_CLV_SEND) {
            t.events[i].peer = t.events[i].peer == 2 ? 0 : 2;
            break;
        }
    assert_invalid(&t, a, 1.0, "no matching receive");
    papc_clv_free(&t);

    /* a peer pointing at itself */
    COPY();
    t.events[t.first[2]].peer = 2;
    assert_invalid(&t, a, 1.0, "out of range");
    papc_clv_free(&t);

    /* too few rounds declared */
    COPY();
    t.rounds = 1;
    assert_invalid(&t, a, 1.0, "out of range");
    papc_clv_free(&t);

    /* p3 (a = 1.1) moved into round 0, whose slot ends at 1 */
    COPY();
    for (size_t i = t.first[3]; i < t.first[4]; i++)
        if (t.events[i].round == 1) {
            int q = t.events[i].peer;
            for (size_t j = t.first[q]; j < t.first[q + 1]; j++)
                if (t.events[j].round == 1 && t.events[j].peer == 3)
                    t.events[j].round = 0;
            t.events[i].round = 0;
        }
    assert_invalid(&t, a, 1.0, NULL);
    papc_clv_free(&t);

    /* the wrong arrivals: everybody late but p0 */
    double late[4] = {0.0, 5.0, 5.0, 5.0};
    assert_invalid(&s, late, 1.0, "before it arrives");
    papc_clv_free(&s);

    /* hand-made wrong schedules, P = 3, N = 1, root 0, all on time */
    double z[3] = {0.0, 0.0, 0.0};
    /* nothing reaches the root */
    papc_clv_builder_init(&b);
    assert_int_equal(papc_clv_builder_finish(&b, 3, 1, 0, &t), 0);
    assert_invalid(&t, z, 1.0, "never reach the root");
    papc_clv_free(&t);
    /* the Sect. 4.2 bug: 1 forwards in round 0 what it receives there */
    assert_int_equal(papc_clv_builder_add(&b, 0, 2, 1, 0), 0);
    assert_int_equal(papc_clv_builder_add(&b, 0, 1, 0, 0), 0);
    assert_int_equal(papc_clv_builder_finish(&b, 3, 1, 0, &t), 0);
    assert_invalid(&t, z, 1.0, "sends and receives");
    papc_clv_free(&t);
    papc_clv_builder_free(&b);
    /* 1 sends twice (the second time it holds nothing) */
    assert_int_equal(papc_clv_builder_add(&b, 0, 1, 0, 0), 0);
    assert_int_equal(papc_clv_builder_add(&b, 1, 1, 0, 0), 0);
    assert_int_equal(papc_clv_builder_add(&b, 2, 2, 0, 0), 0);
    assert_int_equal(papc_clv_builder_finish(&b, 3, 1, 0, &t), 0);
    assert_invalid(&t, z, 1.0, "no longer holds");
    papc_clv_free(&t);
    papc_clv_builder_free(&b);
    /* the root receives twice in one round */
    assert_int_equal(papc_clv_builder_add(&b, 0, 1, 0, 0), 0);
    assert_int_equal(papc_clv_builder_add(&b, 0, 2, 0, 0), 0);
    assert_int_equal(papc_clv_builder_finish(&b, 3, 1, 0, &t), 0);
    assert_invalid(&t, z, 1.0, "receives twice");
    papc_clv_free(&t);
    papc_clv_builder_free(&b);
    /* data ends at a non-root: 1 -> 2, then 0 -> 2 (the root gives its
     * own part away and never gets it back) */
    assert_int_equal(papc_clv_builder_add(&b, 0, 1, 2, 0), 0);
    assert_int_equal(papc_clv_builder_add(&b, 1, 0, 2, 0), 0);
    assert_int_equal(papc_clv_builder_finish(&b, 3, 1, 0, &t), 0);
    assert_invalid(&t, z, 1.0, "never reach the root");
    papc_clv_free(&t);
    papc_clv_builder_free(&b);
    /* and a correct hand-made one passes: 1 -> 0 and 2 -> 0 in turn */
    assert_int_equal(papc_clv_builder_add(&b, 1, 2, 0, 0), 0);
    assert_int_equal(papc_clv_builder_add(&b, 0, 1, 0, 0), 0);
    assert_int_equal(papc_clv_builder_finish(&b, 3, 1, 0, &t), 0);
    assert_valid(&t, z, 1.0);
    assert_int_equal(t.rounds, 2);
    papc_clv_free(&t);
    papc_clv_builder_free(&b);
#undef COPY
}

/* Random corruption of valid random schedules is always caught when it
 * changes the data flow: swap the segment of one transfer (both ends). */
static void test_check_rejects_random_corruption(void **state) {
    (void)state;
    double a[40];
    int rejected = 0, tried = 0;
    for (int it = 0; it < 300; it++) {
        int P = 2 + irand(30), N = 2 + irand(10);
        double d = make_instance(it % NKINDS, P, N, a);
        papc_clv_schedule s;
        assert_int_equal(papc_clv_reference(a, P, N, irand(P), d, &s), 0);
        if (s.nevents == 0) {
            papc_clv_free(&s);
            continue;
        }
        /* pick a send, move it (and its receive) to another segment */
        size_t i;
        do i = (size_t)irand((int)s.nevents);
        while (s.events[i].kind != PAPC_CLV_SEND);
        int p = 0;
        while (s.first[p + 1] <= i) p++;
        papc_clv_event *e = &s.events[i];
        int newseg = (e->segment + 1 + irand(N - 1)) % N;
        for (size_t j = s.first[e->peer]; j < s.first[e->peer + 1]; j++)
            if (s.events[j].kind == PAPC_CLV_RECV &&
                s.events[j].round == e->round && s.events[j].peer == p)
                s.events[j].segment = newseg;
        e->segment = newseg;
        char why[256];
        tried++;
        if (papc_clv_check(&s, a, d, why, sizeof why) != 0) rejected++;
        papc_clv_free(&s);
    }
    /* moving a transfer to another segment leaves the old segment's
     * tokens stranded: always wrong */
    assert_int_equal(rejected, tried);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_p1_nothing_to_do),
        cmocka_unit_test(test_p2_n1),
        cmocka_unit_test(test_p2_n3_root_sends_and_gets_back),
        cmocka_unit_test(test_n1_p3),
        cmocka_unit_test(test_paper_sect42_example),
        cmocka_unit_test(test_paper_fig1),
        cmocka_unit_test(test_idle_rounds),
        cmocka_unit_test(test_round_numbers_follow_the_clock),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_random_properties),
        cmocka_unit_test(test_shift_invariance),
        cmocka_unit_test(test_check_rejects_corruption),
        cmocka_unit_test(test_check_rejects_random_corruption),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
