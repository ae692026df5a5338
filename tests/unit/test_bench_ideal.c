/*
 * test_bench_ideal.c — papc-bench's ideal bound for bcast
 * (tools/bench_ideal.h, bench_ideal_bcast) by hand: the message exists from
 * the root's arrival, every other rank must receive it (c) and no rank
 * leaves before it arrives: max(a_root + c, max a) - min a; 0 at P = 1.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../tools/bench_ideal.h"

static void test_bcast_bound(void **state) {
    (void)state;
    double one[] = {5.0};
    assert_true(bench_ideal_bcast(1, 0, one, 2.0) == 0);
    double even[] = {1.0, 1.0, 1.0, 1.0};
    assert_true(bench_ideal_bcast(4, 0, even, 2.0) == 2.0);
    /* a late root: everyone waits for it */
    double late_root[] = {1.0, 10.0, 1.0};
    assert_true(bench_ideal_bcast(3, 1, late_root, 2.0) == 11.0);
    /* a late non-root arriving after the message could have come */
    double late_leaf[] = {0.0, 1.0, 9.0};
    assert_true(bench_ideal_bcast(3, 0, late_leaf, 2.0) == 9.0);
    /* the earliest arrival is the origin, whoever it is */
    double early_leaf[] = {4.0, 1.0, 4.0};
    assert_true(bench_ideal_bcast(3, 0, early_leaf, 0.5) == 3.5);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bcast_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
