#!/usr/bin/env python3
"""check_tune.py — papc-tune --quick end to end (issue 12, item 3).

Runs `MPIEXEC -n NP [FLAGS] papc-tune --quick -o OUT --csv OUT.csv`, then
checks:
  - it exits 0 within LIMIT seconds (the quick tune's budget);
  - papcoll's own reader accepts the profile (`papc-tune --profile OUT`);
  - the JSON: version 1, P range 2..NP, γ(2) = 1 and γ non-decreasing up
    to NP, positive γ_op and δ, p2p α or β positive;
  - every row the progress lines call fitted is in the profile, none that
    they call skipped is, at least one is, and each has α > 0 or β > 0,
    at least 2 points and a finite relative residual;
  - the CSV holds exactly `points` rows for each fitted algorithm, with
    positive medians and predictions.

usage: check_tune.py PAPC_TUNE MPIEXEC NP OUT [--limit S] [-- FLAGS]
"""
import csv
import json
import math
import re
import subprocess
import sys
import time


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def main(argv):
    flags = []
    if "--" in argv:
        i = argv.index("--")
        argv, flags = argv[:i], argv[i + 1:]
    limit = 40.0
    if "--limit" in argv:
        i = argv.index("--limit")
        limit = float(argv[i + 1])
        del argv[i:i + 2]
    tune, mpiexec, np, out = argv[1], argv[2], int(argv[3]), argv[4]
    csv_path = out + ".csv"

    cmd = [mpiexec, "-n", str(np)] + flags + [tune, "--quick", "-o", out,
                                              "--csv", csv_path]
    print(" ".join(cmd))
    t0 = time.time()
    run = subprocess.run(cmd, capture_output=True, text=True)
    took = time.time() - t0
    sys.stdout.write(run.stderr)
    if run.returncode != 0:
        fail("papc-tune exited %d" % run.returncode)
    print("quick tune at P = %d: %.1f s" % (np, took))
    if took > limit:
        fail("the quick tune took %.1f s, over its %.0f s" % (took, limit))

    back = subprocess.run([tune, "--profile", out], capture_output=True,
                          text=True)
    if back.returncode != 0:
        fail("papcoll's reader refuses the profile: " + back.stderr.strip())

    with open(out) as f:
        prof = json.load(f)
    if prof.get("papcoll_profile") != 1:
        fail("profile version %r" % prof.get("papcoll_profile"))
    if prof["p_range"] != [2, np]:
        fail("p_range %r, expected [2, %d]" % (prof["p_range"], np))
    gamma = [prof["gamma"][str(p)] for p in range(2, np + 1)]
    if gamma[0] != 1.0 or any(b < a for a, b in zip(gamma, gamma[1:])):
        fail("gamma not 1 at 2 or decreasing: %r" % gamma)
    for k in ("float", "int", "other"):
        if not prof["gamma_op"][k] > 0:
            fail("gamma_op %s = %r" % (k, prof["gamma_op"][k]))
    if not prof["copy"] > 0:
        fail("copy = %r" % prof["copy"])
    if not (prof["p2p"]["alpha"] > 0 or prof["p2p"]["beta"] > 0):
        fail("p2p alpha and beta both 0")

    fitted = set(re.findall(r"^\[\d+/\d+\] (\w+) (\w+): \d+ points, alpha",
                            run.stderr, re.M))
    skipped = set(re.findall(r"^\[\d+/\d+\] (\w+) (\w+): (?:skipped|\d+ "
                             r"points, fit failed)", run.stderr, re.M))
    algs = {(a["collective"], a["name"]): a for a in prof["algorithms"]}
    if not fitted:
        fail("no algorithm fitted")
    if set(algs) != fitted:
        fail("profile rows %s, progress lines fitted %s"
             % (sorted(algs), sorted(fitted)))
    if skipped & set(algs):
        fail("skipped rows in the profile: %s" % sorted(skipped & set(algs)))
    for key, a in algs.items():
        if not (a["alpha"] > 0 or a["beta"] > 0):
            fail("%s/%s: alpha and beta both 0" % key)
        if a["points"] < 2 or not math.isfinite(a["rel"]):
            fail("%s/%s: %d points, rel %r" % (key + (a["points"], a["rel"])))

    rows = {}
    with open(csv_path) as f:
        for r in csv.DictReader(f):
            rows.setdefault((r["collective"], r["algorithm"]), []).append(r)
    for key, a in algs.items():
        pts = rows.get(key, [])
        if len(pts) != a["points"]:
            fail("%s/%s: %d CSV rows, profile says %d points"
                 % (key + (len(pts), a["points"])))
        for r in pts:
            if not (float(r["median_s"]) > 0 and float(r["predicted_s"]) > 0):
                fail("%s/%s: CSV row %r" % (key + (r,)))
    print("tune OK: %d algorithms fitted, %d skipped"
          % (len(algs), len(skipped)))


main(sys.argv)
