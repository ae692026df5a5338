#!/usr/bin/env python3
"""papc-report select on a hand-made fixture (tests/select/fixture/): the
per-cell slowdowns and the goals' summary against numbers computed by hand.

Runs under ctest (`report_select_numbers`) with the standard library's
unittest, and under pytest.  The fixture:

shm, P = 4 (P4.csv; native_rules in two files, averaged; native_alone):
  bcast 64 KiB   best split_binary/8K 50; model binomial/16K 60 (+20 %),
                 call 63 (+26 %); fixed split_binary (8 KiB) 50 (0 %), call
                 52 (+4 %); native 70 (+40 %); rules (54+58)/2 = 56, alone
                 80: 56/80 x 70 = 49 (-2 %); k_chain failed (no time); Open
                 MPI ran split_binary_tree alone (not recorded in the full
                 run), binomial under the rules: the rules changed 1 of the
                 2 cells where both are recorded.
  allreduce 64 B best recursive_doubling 8 (segmented_ring's 1 is a
                 MISMATCH: left out); model = best (0 %), call 8.4 (+5 %);
                 fixed recursive_doubling 8 (0 %), call 8.8 (+10 %); native
                 7 (-12.5 %), Open MPI ran recursive_doubling, also under
                 the rules; rules 7.7, alone 7: 7.7 (-3.75 %).
  gather 4 KiB   best linear_sync 20; model basic_linear 30 (+50 %), call
                 31 (+55 %); fixed binomial 40 (+100 %), call 41 (+105 %);
                 native 25 (+25 %), Open MPI's choice not recorded; rules
                 22, alone 25: 22/25 x 25 = 22 (+10 %).
cluster, P = 8 (P8.csv): bcast 8 B best basic_linear 100 = model (0 %),
                 call 101 (+1 %); fixed binomial 120 (+20 %), call 125
                 (+25 %); native 150 (+50 %, Open MPI's binomial); no rules.
shm/tune.csv is another tool's CSV: skipped.
"""
import io
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

from papcoll import report, select_report as sr  # noqa: E402

FIXTURE = os.path.join(HERE, "fixture")


class SelectReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cells, cls.tables = sr.read_cells([FIXTURE])
        cls.per = sr.analyse_all(cls.cells, 5.0)

    def cell(self, platform, coll, P, nbytes):
        return sr.analyse(self.cells[(platform, coll, P, nbytes)])

    def test_reads_only_select_csvs(self):
        self.assertEqual(len(self.tables), 5)
        self.assertEqual(list(self.per), ["shm", "cluster"])
        self.assertEqual([k[1] for k in self.cells],
                         ["gather", "bcast", "allreduce", "bcast"])

    def test_bcast_cell(self):
        a = self.cell("shm", "bcast", 4, 65536)
        self.assertEqual(a.best, "split_binary/8K")
        self.assertEqual(a.best_t, 50)
        self.assertEqual(a.choice, "binomial/16K")
        self.assertAlmostEqual(a.model, 20.0)
        self.assertAlmostEqual(a.model_call, 26.0)
        self.assertEqual(a.fixed_alg, "split_binary")
        self.assertAlmostEqual(a.fixed, 0.0)
        self.assertAlmostEqual(a.fixed_call, 4.0)
        self.assertAlmostEqual(a.native, 40.0)
        self.assertTrue(a.rules_chained)
        self.assertAlmostEqual(a.native_rules, -2.0)
        self.assertAlmostEqual(a.model_vs_native, 0.9)
        self.assertAlmostEqual(a.rules_vs_alone, 0.7)
        # Open MPI's default from the native-alone run; papcoll has it
        self.assertEqual((a.ompi_alg, a.rules_alg),
                         ("split_binary_tree", "binomial"))
        self.assertTrue(a.papc_has_ompi)

    def test_mismatch_left_out(self):
        a = self.cell("shm", "allreduce", 4, 64)
        self.assertEqual(a.best, "recursive_doubling")
        self.assertAlmostEqual(a.model, 0.0)
        self.assertAlmostEqual(a.model_call, 5.0)
        self.assertAlmostEqual(a.fixed, 0.0)
        self.assertAlmostEqual(a.fixed_call, 10.0)
        self.assertAlmostEqual(a.native, -12.5)
        self.assertAlmostEqual(a.native_rules, -3.75)
        self.assertAlmostEqual(a.model_vs_native, 1.2)
        self.assertEqual(a.ompi_alg, "recursive_doubling")
        self.assertTrue(a.papc_has_ompi)

    def test_gather_cell(self):
        a = self.cell("shm", "gather", 4, 4096)
        self.assertEqual((a.best, a.choice), ("linear_sync", "basic_linear"))
        self.assertAlmostEqual(a.model, 50.0)
        self.assertAlmostEqual(a.fixed, 100.0)
        self.assertAlmostEqual(a.native, 25.0)
        self.assertAlmostEqual(a.native_rules, 10.0)
        self.assertAlmostEqual(a.model_vs_native, 1.24)

    def test_shm_summary(self):
        s = self.per["shm"][1]
        self.assertEqual(s["cells"], 3)
        expect = {  # cells, within 5 %, mean, worst
            "model": (3, 1, 70 / 3.0, 50.0),
            "model_call": (3, 1, 86 / 3.0, 55.0),
            "fixed": (3, 2, 100 / 3.0, 100.0),
            "fixed_call": (3, 1, 119 / 3.0, 105.0),
            "native": (3, 1, 52.5 / 3.0, 40.0),
            "native_rules": (3, 2, 4.25 / 3.0, 10.0),
        }
        for field, (n, within, mean, worst) in expect.items():
            st = s["series"][field]
            self.assertEqual(st[:2], (n, within), field)
            self.assertAlmostEqual(st[2], mean, msg=field)
            self.assertAlmostEqual(st[3], worst, msg=field)
        self.assertEqual(s["series"]["model"][4].cell.coll, "gather")
        n, mean, gmean, faster = s["model_vs_native"]
        self.assertEqual((n, faster), (3, 1))
        self.assertAlmostEqual(mean, 3.34 / 3)
        self.assertAlmostEqual(gmean, (0.9 * 1.2 * 1.24) ** (1 / 3.0))
        self.assertEqual([a.cell.coll for a in s["slower_than_native"]],
                         ["gather", "allreduce"])
        self.assertEqual(s["rules_applied"], (2, 1))
        n, mean, gmean, faster = s["rules_vs_default"]
        self.assertEqual((n, faster), (3, 2))
        self.assertAlmostEqual(mean, (0.7 + 1.1 + 0.88) / 3)
        self.assertAlmostEqual(gmean, (0.7 * 1.1 * 0.88) ** (1 / 3.0))

    def test_cluster_summary(self):
        s = self.per["cluster"][1]
        st = s["series"]
        self.assertEqual(st["model"][:4], (1, 1, 0.0, 0.0))
        self.assertAlmostEqual(st["fixed"][2], 20.0)
        self.assertAlmostEqual(st["native"][2], 50.0)
        self.assertIsNone(st["native_rules"])
        self.assertIsNone(s["rules_vs_default"])
        self.assertAlmostEqual(s["model_vs_native"][1], 101 / 150.0)
        self.assertEqual(s["slower_than_native"], [])

    def test_command_output(self):
        out = io.StringIO()
        with tempfile.TemporaryDirectory() as tmp, redirect_stdout(out):
            rc = report.main(["select", FIXTURE, "--no-plots", "-o", tmp])
            with open(os.path.join(tmp, "select-summary.md")) as f:
                md = f.read()
        self.assertEqual(rc, 0)
        text = out.getvalue()
        for line in (
                "model choice  within 5% of best in 1/3 cells (33.3%), mean "
                "slowdown 23.3%, worst 50.0% (gather P=4 4 KiB)",
                "goal: model within 5% of best in >= 90% of cells -> NOT "
                "met; mean slowdown <= 3% -> NOT met; worst cell <= 25% -> "
                "NOT met",
                "model call / native over 3 cells: mean ratio 1.113, "
                "geometric mean 1.102, model faster in 1 -> goal (faster on "
                "average) NOT met",
                "model call > 10% slower than native in 2 cells: 1 where "
                "papcoll has Open MPI's algorithm, 1 where Open MPI's choice "
                "is not recorded -> goal NOT met",
                "rules faster in 2 -> goal met",
                "Open MPI under the exported rules ran another algorithm "
                "than its default in 1 of 2 cells (the rules file was "
                "applied)",
                "the bcast case (64 KiB, issue 12's goals), P = 4: model "
                "call 63.0 us (binomial/16K), native 70.0 us: 0.9x -> gone",
                "cluster: 1 cells"):
            self.assertIn(line, text)
        self.assertIn("| bcast | 4 | 64 KiB | split_binary/8K | 50.0 | "
                      "binomial/16K (20.0) | 26.0 | split_binary (0.0) | 4.0 "
                      "| 40.0 | -2.0 | 0.900 | split_binary_tree / binomial |",
                      md)


if __name__ == "__main__":
    unittest.main()
