#!/usr/bin/env python3
"""Writes an smpirun hostfile for P ranks on a platform of sim/platforms/.

    sim/hostfile.py PLATFORM.xml P [-o FILE]

Reads the platform's <cluster> (prefix, radical, suffix, core) and places
ranks in blocks: a node's cores are filled before the next node's, as
mpirun --map-by core does and as the papers ran (Traff: 16 consecutive
ranks per node; Proficz: one rank per node, core = 1).  One host name per
line, one line per rank.  P larger than the platform's cores is an error.
"""
import argparse
import sys
import xml.etree.ElementTree as ET


def radical_numbers(radical):
    """'0-34' or '0-3,8,10-11' -> [0, 1, ...]"""
    out = []
    for part in radical.split(","):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def cluster_slots(path):
    """(host name, cores) of every host of every <cluster>, in order."""
    slots = []
    for cl in ET.parse(path).getroot().iter("cluster"):
        cores = int(cl.get("core", "1"))
        for i in radical_numbers(cl.get("radical")):
            slots.append((f"{cl.get('prefix', '')}{i}{cl.get('suffix', '')}",
                          cores))
    if not slots:
        raise ValueError(f"{path}: no <cluster> with hosts")
    return slots


def hostfile_lines(path, nranks):
    slots = cluster_slots(path)
    capacity = sum(c for _, c in slots)
    if not 1 <= nranks <= capacity:
        raise ValueError(f"{path}: P = {nranks} does not fit its "
                         f"{len(slots)} hosts x cores = {capacity} ranks")
    lines = []
    for host, cores in slots:
        lines.extend([host] * min(cores, nranks - len(lines)))
        if len(lines) == nranks:
            break
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("platform")
    ap.add_argument("nranks", type=int)
    ap.add_argument("-o", "--output", default="-")
    a = ap.parse_args()
    try:
        lines = hostfile_lines(a.platform, a.nranks)
    except (ValueError, OSError, ET.ParseError) as e:
        sys.exit(f"hostfile.py: {e}")
    text = "\n".join(lines) + "\n"
    if a.output == "-":
        sys.stdout.write(text)
    else:
        with open(a.output, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
