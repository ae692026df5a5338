#!/usr/bin/env python3
"""rules_lookup.py -- what an exported rules file says for one call, read
the way the library reads it (issue 12, item 6; used by
check-export-ompi.sh and check-export-mpich.sh).

  rules_lookup.py ompi FILE COLL P BYTES
      Open MPI 4.1 classic dynamic rules: prints "ALG FANINOUT SEGSIZE" for
      collective COLL (allreduce, bcast, gather, reduce, scatter), P
      processes and Open MPI's message size BYTES (gather, scatter: P x the
      block).  The reader's semantics: integers with '#' comments to the
      end of the line; a communicator takes the rule of the largest size
      <= its own (the first one when smaller than all), a message the rule
      of the largest bytes <= its own.  Prints "none" when the file has no
      rules for COLL.

  rules_lookup.py mpich FILE COLL P AVG TOTAL COUNT
      MPICH 4.0 csel JSON: prints the algorithm the tree chooses for an
      intracommunicator of P processes, a built-in commutative op, message
      sizes AVG (count x type size) and TOTAL (gather, scatter) and COUNT
      elements; in each object the first key that holds is followed.
"""
import json
import re
import sys

OMPI_IDS = {"allreduce": 2, "bcast": 7, "gather": 9, "reduce": 11,
            "scatter": 15}


def ompi_numbers(path):
    text = open(path).read()
    text = re.sub(r"#[^\n]*", " ", text)
    for tok in text.split():
        yield int(tok, 0)


def ompi(path, coll, P, nbytes):
    it = ompi_numbers(path)
    ncoll = next(it)
    for _ in range(ncoll):
        cid, ncom = next(it), next(it)
        coms = []
        for _ in range(ncom):
            size, nmsg = next(it), next(it)
            msgs = [(next(it), next(it), next(it), next(it))
                    for _ in range(nmsg)]
            coms.append((size, msgs))
        if cid != OMPI_IDS[coll]:
            continue
        com = coms[0]
        for c in coms[1:]:
            if c[0] <= P:
                com = c
        rule = com[1][0]
        for m in com[1][1:]:
            if m[0] <= nbytes:
                rule = m
        return "%d %d %d" % rule[1:]
    return "none"


def pof2_below(P):
    p = 1
    while p * 2 <= P:
        p *= 2
    return p


def holds(key, P, avg, total, count):
    m = re.match(r"(comm_size|avg_msg_size|total_msg_size)<=(\d+)$", key)
    if m:
        v = {"comm_size": P, "avg_msg_size": avg,
             "total_msg_size": total}[m.group(1)]
        return v <= int(m.group(2))
    if key == "count<pow2":
        return count < pof2_below(P)
    return key in ("comm_type=intra", "is_op_built_in=yes",
                   "is_commutative=yes", "is_sendbuf_inplace=no") or \
        key.endswith("=any")


def mpich(path, coll, P, avg, total, count):
    node = json.load(open(path))["collective=" + coll]
    while True:
        for key, val in node.items():
            if key.startswith("algorithm="):
                return key[len("algorithm="):]
            if holds(key, P, avg, total, count):
                node = val
                break
        else:
            return "none"


def main(argv):
    if len(argv) == 6 and argv[1] == "ompi":
        print(ompi(argv[2], argv[3], int(argv[4]), int(argv[5])))
    elif len(argv) == 8 and argv[1] == "mpich":
        print(mpich(argv[2], argv[3], *map(int, argv[4:8])))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
