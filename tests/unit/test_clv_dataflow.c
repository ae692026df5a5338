/*
 * test_clv_dataflow.c — a Clairvoyant schedule's exits under the
 * executor's dataflow (src/clairvoyant/dataflow.{h,c}), no MPI:
 *   - hand schedules (built event by event, independent of the
 *     generator): one send, two segments on one link, a fan-in that the
 *     root's link serialises, a late root that the early ranks do not
 *     wait for, a chain whose relay waits for its receive, a segment that
 *     comes back to the root that sent it;
 *   - bad inputs: -1 and the exits untouched;
 *   - generated schedules: balanced, the root's exit is at least the
 *     schedule's N segments over its one link; with a late process, the
 *     root's exit is at least that process' arrival plus its N sends, and
 *     no process' exit precedes its arrival nor follows the root's; and
 *     a balanced pair by hand.
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

#include "clairvoyant/dataflow.h"
#include "clairvoyant/schedule.h"

#define MAXP 8
#define MAXE 64

/* A hand schedule: the events of every process, in round order. */
typedef struct hand {
    int P, N, root;
    int n[MAXP];
    papc_clv_event ev[MAXP][MAXE];
} hand;

static void add(hand *h, int round, int from, int to, int seg) {
    h->ev[from][h->n[from]++] =
        (papc_clv_event){round, to, seg, PAPC_CLV_SEND};
    h->ev[to][h->n[to]++] = (papc_clv_event){round, from, seg, PAPC_CLV_RECV};
}

/* The papc_clv_schedule of h (storage in the caller's arrays). */
static papc_clv_schedule flatten(const hand *h, size_t *first,
                                 papc_clv_event *events) {
    papc_clv_schedule s = {h->P, h->N, h->root, 0, first, events, 0};
    for (int p = 0; p < h->P; p++) {
        first[p] = s.nevents;
        for (int i = 0; i < h->n[p]; i++) {
            events[s.nevents++] = h->ev[p][i];
            if (h->ev[p][i].round + 1 > s.rounds)
                s.rounds = h->ev[p][i].round + 1;
        }
    }
    first[h->P] = s.nevents;
    return s;
}

static void expect_exits(const hand *h, const double *arrival, double link,
                         double apply, const double *want) {
    size_t first[MAXP + 1];
    papc_clv_event events[MAXP * MAXE];
    papc_clv_schedule s = flatten(h, first, events);
    double F[MAXP];
    assert_int_equal(papc_clv_dataflow_exits(&s, arrival, link, apply, F), 0);
    for (int p = 0; p < h->P; p++)
        if (fabs(F[p] - want[p]) > 1e-12) {
            print_error("rank %d: exit %.6g, want %.6g\n", p, F[p], want[p]);
            fail();
        }
}

static void test_hand_schedules(void **state) {
    (void)state;
    /* one send: 1 -> 0 done at 1, folded by 1.5 */
    hand a = {.P = 2, .N = 1, .root = 0};
    add(&a, 0, 1, 0, 0);
    expect_exits(&a, (double[]){0, 0}, 1, 0.5, (double[]){1.5, 1});
    /* two segments on one link, the second after the first */
    hand b = {.P = 2, .N = 2, .root = 0};
    add(&b, 0, 1, 0, 0);
    add(&b, 1, 1, 0, 1);
    expect_exits(&b, (double[]){0, 0}, 1, 0.5, (double[]){2.5, 2});
    /* a fan-in: the root's link takes 2's message after 1's */
    hand c = {.P = 3, .N = 1, .root = 0};
    add(&c, 0, 1, 0, 0);
    add(&c, 1, 2, 0, 0);
    expect_exits(&c, (double[]){0, 0, 0}, 1, 0.5, (double[]){2.5, 1, 2});
    /* the root late by 10: 1's eager segment leaves at once, 1 exits at
     * 1, the root folds it on its arrival */
    expect_exits(&a, (double[]){10, 0}, 1, 0.5, (double[]){10.5, 1});
    /* a chain 2 -> 1 -> 0 with the root late: 1 sends on once it has
     * folded 2's segment (1.5), exits at 2.5, long before the root */
    hand d = {.P = 3, .N = 1, .root = 0};
    add(&d, 0, 2, 1, 0);
    add(&d, 7, 1, 0, 0);
    expect_exits(&d, (double[]){10, 0, 0}, 1, 0.5, (double[]){10.5, 2.5, 1});
    /* the relay late instead: 2 leaves at 1, 1 folds at 5.5 and sends on */
    expect_exits(&d, (double[]){0, 5, 0}, 1, 0.5, (double[]){7, 6.5, 1});
    /* the root sends its segment away and gets the sum back from 1, which
     * must wait for the root's arrival (the sink's return trip) */
    hand e = {.P = 2, .N = 1, .root = 0};
    add(&e, 3, 0, 1, 0);
    add(&e, 4, 1, 0, 0);
    expect_exits(&e, (double[]){3, 0}, 1, 0.5, (double[]){6, 5.5});
}

static void test_bad_input(void **state) {
    (void)state;
    hand a = {.P = 2, .N = 1, .root = 0};
    add(&a, 0, 1, 0, 0);
    size_t first[MAXP + 1];
    papc_clv_event events[MAXP * MAXE];
    papc_clv_schedule s = flatten(&a, first, events);
    double F[2] = {-7, -7}, ok[2] = {0, 0};
    assert_int_equal(papc_clv_dataflow_exits(NULL, ok, 1, 0.5, F), -1);
    assert_int_equal(papc_clv_dataflow_exits(&s, NULL, 1, 0.5, F), -1);
    assert_int_equal(papc_clv_dataflow_exits(&s, ok, 1, 0.5, NULL), -1);
    assert_int_equal(papc_clv_dataflow_exits(&s, ok, -1, 0.5, F), -1);
    assert_int_equal(papc_clv_dataflow_exits(&s, ok, 1, NAN, F), -1);
    assert_int_equal(
        papc_clv_dataflow_exits(&s, (double[]){0, INFINITY}, 1, 0.5, F), -1);
    events[0].peer = 5;
    assert_int_equal(papc_clv_dataflow_exits(&s, ok, 1, 0.5, F), -1);
    assert_true(F[0] == -7 && F[1] == -7);
}

/* Generated schedules: bounds any correct dataflow must keep. */
static void check_generated(const double *arrival, int P, int N, int root) {
    const double link = 1, apply = 0.25, d = link + apply;
    papc_clv_schedule s;
    assert_int_equal(papc_clv_fast(arrival, P, N, root, d, &s), 0);
    double F[64];
    assert_int_equal(papc_clv_dataflow_exits(&s, arrival, link, apply, F), 0);
    double last = -INFINITY;
    for (int p = 0; p < P; p++) {
        assert_true(F[p] >= arrival[p]);
        if (arrival[p] > last) last = arrival[p];
    }
    /* the last arriver's own N segments leave it one after another (the
     * root's go out and come back as the sink's, or are folded with the
     * others'), and the root cannot be done before they are folded */
    assert_true(F[root] >= last + link + apply - 1e-12);
    for (int p = 0; p < P; p++)
        if (p != root && arrival[p] == last)
            assert_true(F[p] >= last + N * link - 1e-12);
    /* every segment's total ends on the root: it exits last among the
     * processes that hold a segment until the end */
    for (int p = 0; p < P; p++) assert_true(F[p] <= F[root] + 1e-12);
    papc_clv_free(&s);
}

static void test_generated(void **state) {
    (void)state;
    double zero[64] = {0};
    check_generated(zero, 8, 16, 0);
    check_generated(zero, 5, 3, 2);
    double late[8] = {0, 0.2, 0.1, 0, 30, 0.3, 0, 0.1};
    check_generated(late, 8, 16, 0);
    check_generated(late, 8, 16, 4);
    double spread[16];
    for (int p = 0; p < 16; p++) spread[p] = (p * 37 % 16) * 3.0;
    check_generated(spread, 16, 12, 0);
    check_generated(spread, 16, 12, 9);
    /* balanced P = 2: the schedule is a pipeline both ways -- in round j
     * the root sends segment j + 1 and 1 sends segment j (the one the
     * root sent it the round before, folded) -- so each of 1's sends
     * waits for the fold of the root's: 1's k-th send is done at k +
     * 1.25 (k >= 1), its last (k = 9) at 10.25, the root folds it by
     * 10.5, against the rounds' (N + 1 - 1) 1.25 = 12.5 */
    check_generated(zero, 2, 10, 0);
    papc_clv_schedule s;
    assert_int_equal(papc_clv_fast(zero, 2, 10, 0, 1.25, &s), 0);
    double F[2];
    assert_int_equal(papc_clv_dataflow_exits(&s, zero, 1, 0.25, F), 0);
    assert_true(fabs(F[0] - 10.5) < 1e-12 && fabs(F[1] - 10.25) < 1e-12);
    papc_clv_free(&s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_schedules),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_generated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
