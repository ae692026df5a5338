#!/usr/bin/env python3
"""papc-report arrival-select on a hand-made fixture (tests/select/arrival/):
the per-setting ratios and the goals against numbers computed by hand.

Runs under ctest (`report_arrival_select_numbers`) with the standard
library's unittest, and under pytest.  The fixture, P = 8, ē in ms:

shm/gather.csv, 256 Ki floats, rand-late:
  0 ms   native 10, linear_sync 8, SLS 9, auto 8.2, auto_classic 8:
         best LS, auto/best 1.025, auto/native 0.82, auto/classic 1.025
  50 ms  native 30, LS 25, SLS 20, BSLS 18 but errors = 1 (left out),
         auto 20.8 (ran LS 2, SLS 8), auto_classic 25.5: best SLS,
         auto/best 1.04, auto/native 0.6933; r: auto 60.8 / native 70
shm/scatter-native-only.csv: no auto row, left out.
cluster/gather.csv, 2 Mi floats (256 Ki per block):
  rand-late 0 ms    native 20, LS 21, auto 21.7, auto_classic 21:
                    auto/classic 1.0333 (> 3 %)
  rand-late 50 ms   native 30 (r 100), LS 35, BSLS 13, auto 13.5 (r 70),
                    auto_classic 35: auto/best 1.0385, r ratio 0.70
  one-late 200 ms   native 60, LS 55, SLS 40, auto 50 (LS 5, SLS 5):
                    auto/best 1.25
cluster/allreduce.csv, 2 Mi, rand-late 50 ms: native 290 (r 300), ring 200,
  PRR 210, auto 205 (r 270), auto_classic 204: auto/best 1.025, r ratio 0.9
cluster/not-bench.csv: another tool's CSV, skipped.
cluster/balanced/gather.csv: the balanced runs, gather 2 Mi rand-late 0 ms,
  40 iterations: native 20, auto 21.2, auto_classic 21 (all sd 0.5):
  1.0095 +- 0.0053.
Goals: shm 1/1 within 5 % (met), delay 0 1/1 within 3 % (met), gather
50 ms r ratio 0.869 for reference only; cluster 2/3 within 5 % (NOT met),
delay 0 from the balanced runs 1.0095 (met; from the sweep's own delay-0
rows it would be 1.033: NOT met), gather 0.70 <= 0.75 (met), allreduce
0.90 > 0.85 (NOT met).
"""
import io
import os
import sys
import unittest
from contextlib import redirect_stderr, redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

from papcoll import report, arrival_select_report as ar  # noqa: E402

FIXTURE = os.path.join(HERE, "arrival")


class ArrivalSelectReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        (cls.settings, cls.balanced, cls.tables,
         cls.skipped) = ar.read_settings([FIXTURE])
        cls.per = ar.analyse_all(cls.settings, "e")
        cls.runs = ar.analyse_all(cls.balanced, "e")

    def result(self, platform, coll, mode, delay):
        for a in self.per[(platform, 8)]:
            s = a.setting
            if (s.coll, s.mode, s.delay) == (coll, mode, delay):
                return a
        self.fail("no result %s %s %s %s" % (platform, coll, mode, delay))

    def test_reads_bench_csvs_only(self):
        self.assertEqual(len(self.tables), 5)
        self.assertEqual([os.path.basename(p) for p in self.skipped],
                         ["not-bench.csv"])
        self.assertEqual(list(self.per), [("shm", 8), ("cluster", 8)])
        # the scatter setting has no auto row
        self.assertEqual(len(self.settings), 7)
        self.assertEqual(sum(len(v) for v in self.per.values()), 6)
        self.assertEqual(list(self.runs), [("cluster", 8)])
        self.assertEqual(len(self.runs[("cluster", 8)]), 1)

    def test_shm_balanced(self):
        a = self.result("shm", "gather", "rand-late", 0)
        self.assertEqual(a.setting.size, 262144)
        self.assertEqual((a.best, a.best_v, a.auto_v),
                         ("linear_sync", 8, 8.2))
        self.assertAlmostEqual(a.auto_best, 1.025)
        self.assertAlmostEqual(a.auto_native, 0.82)
        self.assertAlmostEqual(a.auto_classic, 1.025)
        self.assertEqual((a.ran, a.ran_classic), ("LS 10/10", "LS 10/10"))

    def test_erroneous_row_is_no_best(self):
        a = self.result("shm", "gather", "rand-late", 50)
        self.assertEqual(a.best, "sorted_linear_sync")
        self.assertEqual(a.left_out, ["background_sorted_linear_sync"])
        self.assertAlmostEqual(a.auto_best, 1.04)
        self.assertAlmostEqual(a.auto_native, 20.8 / 30)
        self.assertAlmostEqual(a.auto_native_r, 60.8 / 70)
        self.assertEqual(a.ran, "SLS 8/10 (+1)")

    def test_cluster_settings(self):
        a = self.result("cluster", "gather", "rand-late", 50)
        self.assertEqual((a.best, a.setting.size),
                         ("background_sorted_linear_sync", 2097152))
        self.assertAlmostEqual(a.auto_best, 13.5 / 13)
        self.assertAlmostEqual(a.auto_native_r, 0.70)
        a = self.result("cluster", "gather", "one-late", 200)
        self.assertAlmostEqual(a.auto_best, 1.25)
        a = self.result("cluster", "allreduce", "rand-late", 50)
        self.assertEqual(a.best, "ring")
        self.assertAlmostEqual(a.auto_native_r, 0.9)
        self.assertAlmostEqual(a.auto_classic, 205 / 204.0)

    def goals(self, platform, balanced=True):
        return ar.goals(self.per[(platform, 8)],
                        self.runs.get((platform, 8)) if balanced else None)

    def test_shm_goals(self):
        g = self.goals("shm")
        self.assertEqual([met for _, met in g], [True, True, None, None])
        self.assertIn("1 of 1 settings (100.0 %", g[0][0])
        self.assertIn("r = 0.869 (goal <= 0.75, the cluster's", g[2][0])
        self.assertIn("allreduce 50 ms rand-late: not in the data", g[3][0])

    def test_cluster_goals_from_the_balanced_runs(self):
        g = self.goals("cluster")
        self.assertEqual([met for _, met in g],
                         [False, None, True, True, False])
        # 21.2 / 21 = 1.0095; 1.0095 x sqrt(2 x (0.5/21.1)^2 / 40) = 0.0053
        self.assertIn("delay 0 (the balanced runs): auto / auto_classic "
                      "geometric mean 1.010 \u00b1 0.005 over 1 settings",
                      g[2][0])

    def test_cluster_goals(self):
        g = self.goals("cluster", balanced=False)
        self.assertEqual([met for _, met in g],
                         [False, None, False, None, True, False])
        self.assertIn("2 of 3 settings (66.7 %; goal >= 90 %); 1 of the "
                      "misses beyond 2 standard errors", g[0][0])
        # ē 50 +- 0.5 and 40 +- 0.5 over 10 iterations each:
        # 1.25 x sqrt((0.5/50)^2/10 + (0.5/40)^2/10) = 0.0063
        self.assertEqual("miss: cluster P=8 gather 2 Mi one-late 200 ms: "
                         "auto/best 1.250 \u00b1 0.006 (auto ran LS 5/10 "
                         "(+1); best sorted_linear_sync)", g[1][0])
        # one setting: its ratio and error; 1.0333 - 2 x 0.0108 < 1.03
        self.assertIn("geometric mean 1.033 \u00b1 0.011 over 1 settings "
                      "(goal <= 1.03), 0 settings beyond 1.03 by more than "
                      "2 standard errors (goal: none); within 3 % in 0 of 1, "
                      "worst 1.033", g[2][0])
        # 1.0333 x sqrt((0.5/21.7)^2/10 + (0.5/21)^2/10) = 0.0108
        self.assertIn("auto/auto_classic 1.033 \u00b1 0.011 (auto ran LS "
                      "10/10, auto_classic LS 10/10: the same)", g[3][0])
        self.assertIn("gather 2 Mi 50 ms rand-late: auto / native run time "
                      "r = 0.700", g[4][0])
        self.assertIn("allreduce 2 Mi 50 ms rand-late: auto / native run "
                      "time r = 0.900", g[5][0])

    def test_significance(self):
        def row(mean, sd, n=10):
            return {"e_mean_ms": mean, "e_std_ms": sd, "iterations": n,
                    "errors": 0}
        # 1.10 +- 1.1 x sqrt(2 x 0.01^2 / 10) = 0.0049: clearly above 1.05
        self.assertTrue(ar.significant(row(11, 0.1), row(10, 0.1), "e",
                                       1.05))
        # 1.10 +- 1.1 x sqrt(2 x 0.2^2 / 10) = 0.098: not beyond 2 errors
        self.assertFalse(ar.significant(row(11, 2.2), row(10, 2.0), "e",
                                        1.05))
        self.assertAlmostEqual(ar.ratio_error(row(11, 2.2), row(10, 2.0),
                                              "e"), 1.1 * (0.008 ** 0.5))
        self.assertIsNone(ar.ratio_error(row(11, None), row(10, 1), "e"))

    def test_measure_r(self):
        per = ar.analyse_all(self.settings, "r")
        a = [x for x in per[("cluster", 8)] if x.setting.coll == "allreduce"]
        self.assertAlmostEqual(a[0].auto_best, 270 / 230.0)

    def run_cli(self, *extra):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            rc = report.main(["arrival-select", FIXTURE] + list(extra))
        return rc, out.getvalue(), err.getvalue()

    def test_cli(self):
        rc, out, err = self.run_cli()
        self.assertEqual(rc, 0)
        self.assertIn("| gather | 256 Ki | rand-late | 50 | SLS "
                      "(background_sorted_linear_sync left out: errors) | "
                      "20.0 | 20.8 | 1.040 | 0.693 | 0.816 | SLS 8/10 (+1) "
                      "| LS 10/10 |", out)
        self.assertIn("1 setting(s) without an auto row left out", out)
        self.assertEqual(out.count("-> NOT met"), 2)
        self.assertIn("| gather | 2 Mi | 40 | 21.2 | 21.0 | 1.010 \u00b1 "
                      "0.005 | 1.060 | LS 40/40 | LS 40/40 |", out)
        self.assertIn("not-bench.csv is not a papc-bench CSV", err)
        rc, _, err = self.run_cli("--strict")
        self.assertEqual(rc, 1)
        self.assertIn("2 goal(s) not met", err)

    def test_no_auto_rows_is_an_error(self):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            rc = report.main(["arrival-select", os.path.join(
                FIXTURE, "shm", "scatter-native-only.csv")])
        self.assertEqual(rc, 1)
        self.assertIn("no setting with an auto row", err.getvalue())


if __name__ == "__main__":
    unittest.main()
