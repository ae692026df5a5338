/*
 * test_clv_node.c — the plan of reduce clairvoyant_node (issue 16;
 * src/clairvoyant/node.{h,c}), no MPI:
 *   - grouping by labels: nodes numbered by their lowest ranks, members
 *     ascending, any label values, interleaved labels; leaders (the root
 *     on its node, else the lowest rank); bad input;
 *   - the ready rounds of nodes (hand cases);
 *   - one rank per node, and one node: every rank's plan IS plain
 *     Clairvoyant's (papc_clv_plan_quantised), event for event;
 *   - random labels, arrivals, roots and N (P <= 40): every rank's plan
 *     run as the executor runs it -- sends never block, a pair's messages
 *     match in order on one tag -- finishes (no deadlock), every message
 *     carries the segment its receive expects, the root ends with every
 *     segment holding every rank's contribution exactly once, and only
 *     leaders exchange across nodes, with leaders; every plan twice gives
 *     the same events (a pure function).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "clairvoyant/cache.h"
#include "clairvoyant/node.h"

static uint64_t rng_state = 1616;

static uint64_t rnd64(void) {
    uint64_t z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static int rnd(int n) { return (int)(rnd64() % (uint64_t)n); }

static void test_groups(void **state) {
    (void)state;
    papc_clv_nodes n;
    const int lab[6] = {5, 5, 2, 2, 2, 9};
    assert_int_equal(papc_clv_nodes_make(6, lab, &n), 0);
    assert_int_equal(n.G, 3);
    assert_int_equal(n.nmax, 3);
    const int node[6] = {0, 0, 1, 1, 1, 2};
    const int start[4] = {0, 2, 5, 6};
    for (int r = 0; r < 6; r++) assert_int_equal(n.node[r], node[r]);
    for (int k = 0; k < 4; k++) assert_int_equal(n.start[k], start[k]);
    for (int r = 0; r < 6; r++) assert_int_equal(n.member[r], r);
    assert_int_equal(papc_clv_node_leader(&n, 0, 3), 0);
    assert_int_equal(papc_clv_node_leader(&n, 1, 3), 3);
    assert_int_equal(papc_clv_node_leader(&n, 1, 0), 2);
    assert_int_equal(papc_clv_node_leader(&n, 2, 0), 5);
    papc_clv_nodes_free(&n);
    /* interleaved (a round-robin placement), negative labels */
    const int rr[7] = {-1, 7, -1, 7, -1, 7, 3};
    assert_int_equal(papc_clv_nodes_make(7, rr, &n), 0);
    assert_int_equal(n.G, 3);
    assert_int_equal(n.nmax, 3);
    const int member[7] = {0, 2, 4, 1, 3, 5, 6};
    for (int i = 0; i < 7; i++) assert_int_equal(n.member[i], member[i]);
    assert_int_equal(n.node[1], 1);
    assert_int_equal(n.node[6], 2);
    assert_int_equal(papc_clv_node_leader(&n, 1, 5), 5);
    assert_int_equal(papc_clv_node_leader(&n, 1, 4), 1);
    papc_clv_nodes_free(&n);
    assert_int_equal(papc_clv_nodes_make(0, lab, &n), -1);
    assert_int_equal(papc_clv_nodes_make(3, NULL, &n), -1);
    papc_clv_nodes_free(&n); /* empty: harmless */
}

static void test_ready(void **state) {
    (void)state;
    papc_clv_nodes n;
    const int lab[7] = {0, 0, 0, 0, 1, 1, 2};
    assert_int_equal(papc_clv_nodes_make(7, lab, &n), 0);
    int32_t ready[3];
    /* node 0: together at 2: balanced 2 + 5 + 2 - 1; node 1: 0 and 9:
     * the late one's tail 9 + 5; node 2 (one rank): its arrival */
    const int32_t q[7] = {2, 2, 2, 2, 0, 9, 4};
    assert_int_equal(papc_clv_node_ready(&n, q, 5, ready), 0);
    assert_int_equal(ready[0], 8);
    assert_int_equal(ready[1], 14);
    assert_int_equal(ready[2], 4);
    /* node 0 spread a little: max(0 + 5 + 1, 1 + 5) */
    const int32_t q2[7] = {0, 1, 0, 0, 0, 0, 0};
    assert_int_equal(papc_clv_node_ready(&n, q2, 5, ready), 0);
    assert_int_equal(ready[0], 6);
    assert_int_equal(ready[1], 5);
    assert_int_equal(papc_clv_node_ready(&n, q2, 0, ready), -1);
    papc_clv_nodes_free(&n);
}

static void assert_same_plan(const papc_clv_plan *a, const papc_clv_plan *b) {
    assert_int_equal(a->n, b->n);
    assert_int_equal(a->rounds, b->rounds);
    assert_int_equal(a->nevents_total, b->nevents_total);
    for (size_t i = 0; i < a->n; i++) {
        assert_int_equal(a->ev[i].round, b->ev[i].round);
        assert_int_equal(a->ev[i].peer, b->ev[i].peer);
        assert_int_equal(a->ev[i].segment, b->ev[i].segment);
        assert_int_equal(a->ev[i].kind, b->ev[i].kind);
    }
}

/* q with the earliest at 0 (as papc_clv_quantise gives). */
static void random_q(int P, int spread, int32_t *q) {
    for (int p = 0; p < P; p++) q[p] = spread ? rnd(spread + 1) : 0;
    q[rnd(P)] = 0;
}

static void check_plain(int P, const int *lab) {
    papc_clv_nodes n;
    assert_int_equal(papc_clv_nodes_make(P, lab, &n), 0);
    int32_t q[64];
    for (int t = 0; t < 6; t++) {
        int N = 1 + rnd(9), root = rnd(P);
        random_q(P, t % 3 == 0 ? 0 : 3 * t, q);
        for (int r = 0; r < P; r++) {
            papc_clv_plan want, got;
            assert_int_equal(
                papc_clv_plan_quantised(q, P, N, root, r, &want), 0);
            assert_int_equal(papc_clv_node_plan(&n, q, N, root, r, &got), 0);
            assert_same_plan(&got, &want);
            papc_clv_plan_free(&want);
            papc_clv_plan_free(&got);
        }
    }
    papc_clv_nodes_free(&n);
}

static void test_reduces_to_plain(void **state) {
    (void)state;
    int lab[64];
    for (int P = 1; P <= 24; P++) {
        for (int r = 0; r < P; r++) lab[r] = 1000 - 3 * r; /* one per node */
        check_plain(P, lab);
        for (int r = 0; r < P; r++) lab[r] = 42;            /* one node */
        check_plain(P, lab);
    }
}

/* Runs every rank's plan as the executor does and checks the result (see
 * the top).  Channel (s -> d) holds the (segment, mask) messages in flight
 * in send order; a rank blocks only on a receive whose message is not
 * there yet. */
typedef struct msg {
    int seg;
    uint64_t mask;
} msg;

static void simulate(const papc_clv_nodes *n, const papc_clv_plan *plan,
                     int P, int N, int root) {
    uint64_t *acc = calloc((size_t)P * N, sizeof *acc);
    unsigned char *held = malloc((size_t)P * N);
    size_t *pc = calloc((size_t)P, sizeof *pc);
    /* channels: a queue per ordered pair, capacity the sender's events */
    msg **ch = calloc((size_t)P * P, sizeof *ch);
    size_t *head = calloc((size_t)P * P, sizeof *head),
           *tail = calloc((size_t)P * P, sizeof *tail);
    assert_non_null(acc && held && pc && ch && head && tail);
    for (int r = 0; r < P; r++)
        for (int j = 0; j < N; j++) {
            acc[(size_t)r * N + j] = UINT64_C(1) << r;
            held[(size_t)r * N + j] = 1;
        }
    for (int s = 0; s < P; s++)
        for (int d = 0; d < P; d++) {
            ch[s * P + d] = malloc((plan[s].n + 1) * sizeof(msg));
            assert_non_null(ch[s * P + d]);
        }
    int progress = 1;
    while (progress) {
        progress = 0;
        for (int r = 0; r < P; r++)
            while (pc[r] < plan[r].n) {
                const papc_clv_event *e = &plan[r].ev[pc[r]];
                assert_true(e->peer >= 0 && e->peer < P && e->peer != r);
                assert_true(e->segment >= 0 && e->segment < N);
                /* across nodes only leader with leader */
                if (n->node[e->peer] != n->node[r]) {
                    assert_int_equal(
                        papc_clv_node_leader(n, n->node[r], root), r);
                    assert_int_equal(
                        papc_clv_node_leader(n, n->node[e->peer], root),
                        e->peer);
                }
                size_t cell = (size_t)r * N + e->segment;
                if (e->kind == PAPC_CLV_SEND) {
                    assert_true(held[cell]);
                    int c = r * P + e->peer;
                    ch[c][tail[c]++] = (msg){e->segment, acc[cell]};
                    held[cell] = 0;
                    acc[cell] = 0;
                } else {
                    int c = e->peer * P + r;
                    if (head[c] == tail[c]) break; /* not sent yet */
                    msg m = ch[c][head[c]++];
                    assert_int_equal(m.seg, e->segment);
                    if (held[cell]) {
                        assert_true((acc[cell] & m.mask) == 0);
                        acc[cell] |= m.mask;
                    } else {
                        acc[cell] = m.mask;
                        held[cell] = 1;
                    }
                }
                pc[r]++;
                progress = 1;
            }
    }
    uint64_t all = P == 64 ? ~UINT64_C(0) : (UINT64_C(1) << P) - 1;
    for (int r = 0; r < P; r++)
        if (pc[r] != plan[r].n)
            fail_msg("rank %d stuck at event %zu of %zu", r, pc[r],
                     plan[r].n);
    for (int j = 0; j < N; j++) {
        assert_true(held[(size_t)root * N + j]);
        if (acc[(size_t)root * N + j] != all)
            fail_msg("segment %d at the root: %llx, want %llx", j,
                     (unsigned long long)acc[(size_t)root * N + j],
                     (unsigned long long)all);
    }
    for (int c = 0; c < P * P; c++) {
        assert_int_equal(head[c], tail[c]); /* nothing left unreceived */
        free(ch[c]);
    }
    free(ch);
    free(head);
    free(tail);
    free(acc);
    free(held);
    free(pc);
}

static void test_random_plans(void **state) {
    (void)state;
    int lab[64];
    int32_t q[64];
    for (int t = 0; t < 400; t++) {
        int P = 1 + rnd(40), N = 1 + rnd(12), root = rnd(P);
        int kind = t % 4;
        for (int r = 0; r < P; r++) {
            if (kind == 0) lab[r] = r / (1 + t % 7);       /* blocks */
            else if (kind == 1) lab[r] = r % (1 + t % 5);  /* round robin */
            else if (kind == 2) lab[r] = rnd(1 + P / 3);   /* scattered */
            else lab[r] = r < P / 2 ? 0 : r;               /* one big node */
        }
        random_q(P, t % 5 == 0 ? 0 : 2 + t % 30, q);
        papc_clv_nodes n;
        assert_int_equal(papc_clv_nodes_make(P, lab, &n), 0);
        papc_clv_plan *plan = calloc((size_t)P, sizeof *plan);
        assert_non_null(plan);
        for (int r = 0; r < P; r++) {
            assert_int_equal(papc_clv_node_plan(&n, q, N, root, r, &plan[r]),
                             0);
            papc_clv_plan again;
            assert_int_equal(papc_clv_node_plan(&n, q, N, root, r, &again),
                             0);
            assert_same_plan(&plan[r], &again);
            papc_clv_plan_free(&again);
            assert_int_equal(plan[r].P, P);
            assert_int_equal(plan[r].rank, r);
        }
        simulate(&n, plan, P, N, root);
        for (int r = 0; r < P; r++) papc_clv_plan_free(&plan[r]);
        free(plan);
        papc_clv_nodes_free(&n);
    }
}

static void test_bad_input(void **state) {
    (void)state;
    papc_clv_nodes n;
    const int lab[3] = {0, 0, 1};
    const int32_t q[3] = {0, 0, 0};
    assert_int_equal(papc_clv_nodes_make(3, lab, &n), 0);
    papc_clv_plan p;
    assert_int_equal(papc_clv_node_plan(&n, q, 0, 0, 0, &p), -1);
    assert_int_equal(papc_clv_node_plan(&n, q, 2, 3, 0, &p), -1);
    assert_int_equal(papc_clv_node_plan(&n, q, 2, 0, -1, &p), -1);
    assert_int_equal(papc_clv_node_plan(&n, NULL, 2, 0, 0, &p), -1);
    assert_int_equal(papc_clv_node_plan(NULL, q, 2, 0, 0, &p), -1);
    papc_clv_plan_free(&p);
    papc_clv_nodes_free(&n);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_groups),
        cmocka_unit_test(test_ready),
        cmocka_unit_test(test_reduces_to_plain),
        cmocka_unit_test(test_random_plans),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
