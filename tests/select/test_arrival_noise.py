#!/usr/bin/env python3
"""papc-report arrival-select's noise floor (python/papcoll/arrival_noise.py)
on a hand-made trace, numbers computed by hand.

gather 100 floats rand-late 50 ms, 2 ranks, ē per iteration 0..3:
  linear_sync (A) 10, 10, 10, 10;  binomial (B) 9, 12, 9, 12;
  auto 10, 10.4, 10, 10.4;  native 20 (never a candidate).
Split half: picked on the even iterations B (9 < 10), judged on the odd
ones B 12 against the best 10: oracle miss, auto 10.4 <= 10.5: hit; picked
on the odd ones A, judged on the even ones A 10 against 9 (> 9.45): miss,
auto 10 > 9.45: miss -> oracle 0 of 2, auto 1 of 2.
Paired: best over all iterations A (10 < 10.5); auto / A per iteration 1,
1.04, 1, 1.04 -> median 1.02: within 5 %.
The delay-0 setting of the same file is not judged.
Choices (a second file with the `ran` column): auto ran binomial in
iterations 0 and 2, linear_sync in 1 and 3 -> priced 9, 10, 9, 10: mean
9.5 against the best's 10: within 5 %; ran binomial throughout -> 10.5:
within (10.5 <= 10.5); ran nothing by name in one iteration: not judged.
"""
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

from papcoll import arrival_noise as an  # noqa: E402
from papcoll.report import ReportError  # noqa: E402

SERIES = {"linear_sync": [10, 10, 10, 10], "binomial": [9, 12, 9, 12],
          "auto": [10, 10.4, 10, 10.4], "native": [20, 20, 20, 20]}


def trace_text():
    lines = [",".join(an.TRACE_COLUMNS)]
    for delay in (0, 50):
        for alg, es in SERIES.items():
            for it, e in enumerate(es):
                # rank 1 arrives 1 ms late and stays e: the mean is e
                lines.append("gather,%s,100,rand-late,%g,%d,0,0.000,%.3f"
                             % (alg, delay, it, e))
                lines.append("gather,%s,100,rand-late,%g,%d,1,1.000,%.3f"
                             % (alg, delay, it, 1 + e))
    return "\n".join(lines) + "\n"


def ran_trace_text(ran_by_iteration):
    """The delayed setting with the `ran` column; auto's rows name what
    it ran (both ranks alike), the named rows nothing."""
    lines = [",".join(an.TRACE_COLUMNS + ("ran",))]
    for alg, es in SERIES.items():
        for it, e in enumerate(es):
            ran = ran_by_iteration[it] if alg == "auto" else ""
            lines.append("gather,%s,100,rand-late,50,%d,0,0.000,%.3f,%s"
                         % (alg, it, e, ran))
            lines.append("gather,%s,100,rand-late,50,%d,1,1.000,%.3f,%s"
                         % (alg, it, 1 + e, ran))
    return "\n".join(lines) + "\n"


class ChoicesTest(unittest.TestCase):
    def run_with(self, ran):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "gather.trace.csv")
            with open(path, "w") as f:
                f.write(ran_trace_text(ran))
            key = ("gather", 100, "rand-late", 50.0)
            rows = an.read_trace(path)[key]
            cc = an.choices_cost(rows, an.read_ran(path).get(key))
            return cc, an.noise_floor([path], 1.05)

    def test_alternating(self):
        cc, lines = self.run_with(["binomial", "linear_sync"] * 2)
        self.assertAlmostEqual(cc[0], 9.5)
        self.assertAlmostEqual(cc[1], 10.0)
        self.assertEqual(cc[2], "linear_sync")
        self.assertIn("within 5 % in 1 of 1 settings (100.0 %)", lines[-1])
        self.assertTrue(lines[-1].startswith("choices"))

    def test_one_row(self):
        cc, _ = self.run_with(["binomial"] * 4)
        self.assertAlmostEqual(cc[0], 10.5)

    def test_unnamed_row_not_judged(self):
        cc, lines = self.run_with(["binomial", "ring", "binomial", "ring"])
        self.assertIsNone(cc)
        self.assertFalse(any(l.startswith("choices") for l in lines))

    def test_old_trace_has_no_choices(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "gather.trace.csv")
            with open(path, "w") as f:
                f.write(trace_text())
            self.assertEqual(an.read_ran(path), {})


class NoiseFloorTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "gather.trace.csv")
        with open(self.path, "w") as f:
            f.write(trace_text())
        with open(os.path.join(self.dir.name, "gather.csv"), "w") as f:
            f.write("x\n")

    def tearDown(self):
        self.dir.cleanup()

    def test_reads_e_per_iteration(self):
        t = an.read_trace(self.path)
        rows = t[("gather", 100, "rand-late", 50.0)]
        self.assertAlmostEqual(rows["binomial"][1], 12.0)
        self.assertAlmostEqual(rows["auto"][3], 10.4)

    def test_split_half(self):
        rows = an.read_trace(self.path)[("gather", 100, "rand-late", 50.0)]
        self.assertEqual(an.split_half(rows, 1.05),
                         [(False, True), (False, False)])

    def test_paired_median(self):
        rows = an.read_trace(self.path)[("gather", 100, "rand-late", 50.0)]
        m, best = an.paired_median(rows)
        self.assertEqual(best, "linear_sync")
        self.assertAlmostEqual(m, 1.02)

    def test_lines(self):
        lines = an.noise_floor([self.path], 1.05)
        self.assertIn("1 delayed settings", lines[0])
        self.assertIn("within 5 % of the best in 0 of 2 judgements "
                      "(0.0 %), auto in 1 of 2 (50.0 %)", lines[0])
        self.assertIn("within 5 % in 1 of 1 settings (100.0 %)", lines[1])

    def test_traces_beside(self):
        self.assertEqual(an.traces_beside(
            [os.path.join(self.dir.name, "gather.csv")]), [self.path])

    def test_malformed(self):
        with open(self.path, "a") as f:
            f.write("gather,auto,100,rand-late,50,x,0,0,1\n")
        with self.assertRaises(ReportError) as cm:
            an.read_trace(self.path)
        self.assertIn("gather.trace.csv:", str(cm.exception))
        self.assertIn("malformed trace row", str(cm.exception))
        with open(self.path, "w") as f:
            f.write("a,b\n1,2\n")
        with self.assertRaises(ReportError) as cm:
            an.read_trace(self.path)
        self.assertIn("not a papc-bench trace", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
