#!/usr/bin/env python3
"""Data-parallel training whose gradients are averaged by allreduce.

    mpirun -n 8 python3 examples/training/train.py --algorithm pre_reduced_ring \
        --skew 1 --slow 3:2 --epochs 20 --csv runs.csv

The real case of pap-allreduce.md Sect. 6 at a size this repository can
run anywhere: a numpy MLP (mlp.py) trained with momentum SGD on
scikit-learn's bundled digits (data.py), one process per model replica.
Every step each rank computes the summed gradient of its local batch, one
allreduce adds the ranks' gradients (averaging.py: native MPI_Allreduce or
a papcoll algorithm) and every rank applies the same update.

The imbalance comes from the work: with --skew rank i holds a larger shard
(and so a larger local batch) than rank i-1; --slow RANK:FACTOR makes a rank
repeat its forward/backward pass (FACTOR 2: twice the work), as a process
sharing its node with another job would.  Nothing sleeps.

Deterministic from --seed: initial weights, split, shards and batches do not
depend on the algorithm, so every algorithm gives the same loss curve up to
the rounding of a different summation order (compare.py checks it).

Timing: an untimed warm-up allreduce, a barrier, then every rank stamps
MPI.Wtime() at the start of each step, on arriving at the allreduce and on
leaving it, relative to its own barrier exit.  The stamps are gathered once,
at the end, so measuring never adds messages to the training.
"""
import argparse
import datetime
import hashlib
import os
import socket
import sys
import time


def parse_slow(text):
    try:
        rank, factor = text.split(":")
        rank, factor = int(rank), float(factor)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--slow wants RANK:FACTOR, e.g. 3:2, not {text!r}") from None
    if rank < 0 or not factor >= 1:
        raise argparse.ArgumentTypeError(
            f"--slow {text}: the rank must be >= 0 and the factor >= 1")
    return rank, factor


def parse_hidden(text):
    try:
        sizes = [int(h) for h in text.split(",") if h]
    except ValueError:
        sizes = []
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(
            f"--hidden wants positive layer widths like 512,512, not {text!r}")
    return sizes


def parse_args(argv=None):
    ap = argparse.ArgumentParser(
        description="Data-parallel MLP training on scikit-learn's digits, "
                    "gradients averaged by allreduce (native MPI or papcoll).")
    ap.add_argument("-a", "--algorithm", default="native",
                    help="native (comm.Allreduce), plain (papcoll's choice) or "
                         "a papcoll allreduce algorithm: ring, pre_reduced_ring, "
                         "sorted_linear_tree, clairvoyant, ... (default native)")
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--batch", type=int, default=256,
                    help="global mini-batch: the ranks' local batches sum to "
                         "about this (default 256)")
    ap.add_argument("--hidden", type=parse_hidden, default=[512, 512],
                    help="hidden layer widths (default 512,512)")
    ap.add_argument("--augment", type=int, default=0, metavar="K",
                    help="add K shifted copies of every image to each local "
                         "batch: K+1 times the computation per step, the "
                         "same gradient size (default 0)")
    ap.add_argument("--dtype", choices=["float32", "float64"],
                    default="float32")
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--test-fraction", type=float, default=0.2)
    ap.add_argument("--skew", type=float, default=0.0,
                    help="rank i's shard weight is 1 + SKEW*i/(P-1) (default "
                         "0: equal shards)")
    ap.add_argument("--slow", type=parse_slow, action="append", default=[],
                    metavar="RANK:FACTOR",
                    help="RANK does FACTOR times its work per step (repeats "
                         "its forward/backward); repeatable")
    ap.add_argument("--monitor", choices=["auto", "on", "off"],
                    default="auto",
                    help="papcoll's arrival monitor: auto = for the "
                         "arrival-aware algorithms (default)")
    ap.add_argument("--progress", choices=["layers", "once", "none"],
                    default="layers",
                    help="progress() calls per step for the monitor: after "
                         "the forward pass and between backward layers "
                         "(default), once near the middle of the step, or "
                         "none (the monitor predicts from history)")
    ap.add_argument("--threads", type=int, default=1,
                    help="BLAS threads per process (default 1: one core per "
                         "rank)")
    ap.add_argument("--csv", help="append one line with this run's figures")
    ap.add_argument("--curve", help="write the per-step training loss here")
    ap.add_argument("--label", default="",
                    help="free text for the CSV line (e.g. the repetition)")
    ap.add_argument("-q", "--quiet", action="store_true",
                    help="one line per run instead of the report")
    args = ap.parse_args(argv)
    for name in ("epochs", "batch", "threads"):
        if getattr(args, name) < 1:
            ap.error(f"--{name} must be at least 1")
    if args.augment < 0:
        ap.error("--augment must be >= 0")
    if not args.lr > 0 or not 0 <= args.momentum < 1:
        ap.error("--lr must be > 0 and --momentum in [0, 1)")
    return args


ARGS = parse_args() if __name__ == "__main__" else None
if ARGS:  # before numpy loads its BLAS
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(ARGS.threads)

import numpy as np  # noqa: E402
from mpi4py import MPI  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import averaging  # noqa: E402
import data  # noqa: E402
from mlp import MLP, MomentumSGD, STATS  # noqa: E402


def work_plan(rows, factor):
    """The passes of one step as (rows, is_real): a partial pass for the
    fractional part of FACTOR, whole repeats, then the real pass (last, so
    its gradient is the one kept)."""
    whole = int(factor)
    extra = int(round((factor - whole) * rows))
    plan = [(extra, False)] if extra else []
    plan += [(rows, False)] * (whole - 1)
    return plan + [(rows, True)]


class StepProfile:
    """Where a step's checkpoints fall, as fractions of the step's
    computation: guessed from the flops at first, then learnt from the
    steps measured (a running mean), so that progress(f) tells the monitor
    the truth even where numpy's speed per flop differs between layers."""

    def __init__(self, model, plan, phases, report="layers"):
        """report: which checkpoints call progress(): 'layers' all of
        them, 'once' the one nearest the middle of the step (the papers'
        single edge() call), 'none' no progress at all (the monitor then
        predicts from each rank's history)."""
        at, per_pass = model.checkpoint_flops()
        rows = [r for r, _ in plan]
        total = per_pass * sum(rows)
        self.frac, done = [], 0.0
        for r in rows:
            self.frac += [(done + a * r) / total for a in at]
            done += per_pass * r
        middle = min(range(len(self.frac)),
                     key=lambda k: abs(self.frac[k] - 0.5))
        self.report = [report == "layers" or (report == "once" and
                                              k == middle)
                       for k in range(len(self.frac))]
        self.phases = phases
        self.seen = 0

    def begin(self):
        self.t0 = MPI.Wtime()
        self.times = []

    def mark(self):
        k = len(self.times)
        self.times.append(MPI.Wtime() - self.t0)
        if self.report[k]:
            self.phases.progress(self.frac[k])

    def finish(self):
        total = MPI.Wtime() - self.t0
        if total > 0 and len(self.times) == len(self.frac):
            w = 1.0 / min(self.seen + 1, 8)  # mean of the last ~8 steps
            self.frac = [(1 - w) * f + w * t / total
                         for f, t in zip(self.frac, self.times)]
            self.seen += 1


def compute_step(model, X, y, plan, profile):
    """Forward and backward over the plan, with a progress checkpoint after
    each forward pass and between the backward pass's layers."""
    for rows, real in plan:
        acts, logits = model.forward(X[:rows])
        profile.mark()
        loss, correct, d = model.loss_and_dlogits(logits, y[:rows])
        model.backward(acts, d, after_layer=profile.mark)
    model.grad[-STATS] = loss
    model.grad[-1] = correct


def slow_factor(slow, rank):
    f = 1.0
    for r, factor in slow:
        if r == rank:
            f *= factor
    return f


def train(args, comm):
    rank, nprocs = comm.Get_rank(), comm.Get_size()
    load_start = load_average() if rank == 0 else ""
    for r, _ in args.slow:
        if r >= nprocs:
            raise SystemExit(f"train.py: --slow rank {r} is not below P = "
                             f"{nprocs}")
    X, y = data.load_digits_on_root(comm)
    Xtr, ytr, Xte, yte = data.train_test_split(X, y, args.test_fraction,
                                               args.seed)
    bounds = data.shard_bounds(len(ytr), nprocs, args.skew)
    try:
        local, steps = data.local_batches(bounds, args.batch)
    except ValueError as e:
        raise SystemExit(f"train.py: {e}") from None
    global_batch = int(local.sum()) * (args.augment + 1)
    shard_X = Xtr[bounds[rank]:bounds[rank + 1]].astype(args.dtype)
    shard_y = ytr[bounds[rank]:bounds[rank + 1]]

    model = MLP([X.shape[1]] + args.hidden + [10], args.dtype, args.seed)
    opt = MomentumSGD(model.params, args.lr, args.momentum)
    average = averaging.make_averager(comm, args.algorithm)
    summed = np.zeros_like(model.grad)
    plan = work_plan(int(local[rank]) * (args.augment + 1),
                     slow_factor(args.slow, rank))
    nsteps = args.epochs * steps
    # wall: step start, arrival, exit; process CPU (all threads): step
    # start, arrival -- a compute phase that takes longer in wall time but
    # not in CPU time waited for a core that another process held
    stamps = np.zeros((nsteps, 5))
    losses = np.zeros(nsteps)
    correct = np.zeros(nsteps)

    with averaging.monitored(comm, args.algorithm, args.monitor) as phases:
        profile = StepProfile(model, plan, phases, args.progress)
        average(model.grad, summed)  # warm-up: connections, untimed
        comm.Barrier()
        t0 = MPI.Wtime()
        cpu0 = time.process_time()
        pending = False
        for epoch in range(args.epochs):
            batches = data.epoch_batches(shard_X, shard_y, int(local[rank]),
                                         steps, args.seed, epoch, rank)
            for s, (Xb, yb) in enumerate(batches):
                i = epoch * steps + s
                stamps[i, 0] = MPI.Wtime() - t0
                stamps[i, 3] = time.process_time() - cpu0
                phases.start()
                profile.begin()
                Xb, yb = data.augment(Xb, yb, args.augment, np.random.default_rng(
                    [args.seed, 3, epoch, s, rank]))
                if pending:
                    opt.step(summed[:model.nparams] / global_batch)
                compute_step(model, Xb, yb, plan, profile)
                phases.end()
                profile.finish()
                stamps[i, 1] = MPI.Wtime() - t0
                stamps[i, 4] = time.process_time() - cpu0
                average(model.grad, summed)
                stamps[i, 2] = MPI.Wtime() - t0
                losses[i] = summed[-STATS] / global_batch
                correct[i] = summed[-1]
                pending = True
        opt.step(summed[:model.nparams] / global_batch)
        t_end = MPI.Wtime() - t0
        cpu = time.process_time() - cpu0

    digest = hashlib.sha1(model.params.tobytes()).hexdigest()
    mine = dict(stamps=stamps, t_end=t_end, cpu=cpu, digest=digest,
                batch=int(local[rank]), factor=slow_factor(args.slow, rank))
    everyone = comm.gather(mine, root=0)
    if rank != 0:
        return None
    test_loss, test_acc = model.evaluate(Xte.astype(args.dtype), yte)
    return dict(everyone=everyone, losses=losses, correct=correct,
                steps=steps, global_batch=global_batch, local=local,
                model=model, test_loss=test_loss, test_acc=test_acc,
                n_train=len(ytr), n_test=len(yte), load_start=load_start)


def summarize(args, r, nprocs):
    """The run's figures (seconds) from the gathered stamps."""
    st = np.stack([e["stamps"] for e in r["everyone"]])  # rank, step, 3
    start, arrive, leave = st[..., 0], st[..., 1], st[..., 2]
    compute_cpu = (st[..., 4] - st[..., 3]).mean(axis=1)
    steps, epochs = r["steps"], args.epochs
    epoch_ends = leave[:, steps - 1::steps].max(axis=0)
    wait = (leave - arrive).sum(axis=1)  # per rank
    compute = (arrive - start).mean(axis=1)
    spread = arrive.max(axis=0) - arrive.min(axis=0)
    tail = leave.max(axis=0) - arrive.max(axis=0)
    last = np.bincount(arrive.argmax(axis=0), minlength=nprocs)
    losses = r["losses"]
    digests = {e["digest"] for e in r["everyone"]}
    return dict(
        total=max(e["t_end"] for e in r["everyone"]),
        epoch_times=np.diff(np.concatenate(([0.0], epoch_ends))),
        wait_mean=wait.mean(), wait_max=wait.max(), wait_min=wait.min(),
        wait_rank=wait,
        compute_rank=compute,
        compute_cpu_rank=compute_cpu,
        cpu_total=sum(e["cpu"] for e in r["everyone"]),
        spread_mean=spread.mean(), spread_median=np.median(spread),
        spread_max=spread.max(), tail_mean=tail.mean(),
        last_rank=int(last.argmax()), last_share=last.max() / len(spread),
        train_loss=losses[-steps:].mean(),
        train_acc=r["correct"][-steps:].sum() / (steps * r["global_batch"]),
        same_params=len(digests) == 1)


def report(args, r, f, nprocs):
    m = r["model"]
    slow = " ".join(f"rank {k} x{v:g}" for k, v in args.slow) or "none"
    ms = 1e3
    print(f"train.py: P = {nprocs}, algorithm {args.algorithm}, {args.dtype}, "
          f"MLP {'-'.join(map(str, m.sizes))} = {m.nparams:,} parameters "
          f"({m.grad.nbytes / 2**20:.2f} MiB per allreduce)")
    print(f"  data: digits, {r['n_train']} train / {r['n_test']} test; "
          f"{r['steps']} steps per epoch x {args.epochs} epochs; global batch "
          f"{r['global_batch']} = local {r['local'].min()}..{r['local'].max()}"
          f" (skew {args.skew:g})"
          + (f" x {args.augment + 1} (augmented)" if args.augment else "")
          + f"; slow: {slow}")
    et = f["epoch_times"]
    print(f"  total {f['total']:.3f} s; per epoch {et.mean():.3f} s "
          f"(min {et.min():.3f}, max {et.max():.3f})")
    nst = args.epochs * r["steps"]
    print(f"  waiting in allreduce: mean over ranks {f['wait_mean']:.3f} s "
          f"({f['wait_mean'] / nst * ms:.2f} ms per step, "
          f"{f['wait_mean'] / f['total'] * 100:.0f} % of the run); "
          f"min {f['wait_min']:.3f} s, max {f['wait_max']:.3f} s")
    print(f"  arrival spread per allreduce (max - min arrival): mean "
          f"{f['spread_mean'] * ms:.2f} ms, median "
          f"{f['spread_median'] * ms:.2f}, max {f['spread_max'] * ms:.2f}; "
          f"last to arrive: rank {f['last_rank']} "
          f"({f['last_share'] * 100:.0f} % of steps)")
    print(f"  after the last arrival (last arrival to last exit): mean "
          f"{f['tail_mean'] * ms:.2f} ms per allreduce")
    cr = f["compute_rank"] * ms
    print(f"  compute per step: " +
          ", ".join(f"r{i} {c:.1f}" for i, c in enumerate(cr)) + " ms")
    cc = f["compute_cpu_rank"] * ms
    print(f"  CPU time of that compute: " +
          ", ".join(f"r{i} {c:.1f}" for i, c in enumerate(cc)) + " ms; "
          f"all ranks' processes used {f['cpu_total']:.2f} s of CPU in "
          f"{f['total']:.2f} s")
    print(f"  final: train loss {f['train_loss']:.4f} (last epoch), "
          f"train accuracy {f['train_acc'] * 100:.2f} %; test loss "
          f"{r['test_loss']:.4f}, test accuracy {r['test_acc'] * 100:.2f} %")
    print(f"  parameters identical on every rank: "
          f"{'yes' if f['same_params'] else 'NO'}")


CSV_FIELDS = ["date", "host", "testbed", "P", "algorithm", "label", "dtype",
              "hidden", "params", "bytes", "epochs", "steps", "batch", "skew",
              "slow", "seed", "total_s", "epoch_mean_s", "epoch_min_s",
              "wait_mean_s", "wait_max_s", "spread_mean_ms",
              "spread_median_ms", "spread_max_ms", "tail_mean_ms",
              "last_rank", "last_share", "compute_min_ms", "compute_max_ms",
              "compute_cpu_of_max_ms", "cpu_total_s",
              "train_loss", "test_loss", "test_acc", "same_params",
              "load_start", "load_end"]


def load_average():
    """The machine's 1-minute load average ('' where unknown): figures
    measured on a shared machine say how busy it was."""
    try:
        with open("/proc/loadavg") as fh:
            return fh.read().split()[0]
    except OSError:
        return ""


def write_csv(path, args, r, f, nprocs):
    m = r["model"]
    row = dict(
        date=datetime.datetime.now().isoformat(timespec="seconds"),
        host=socket.gethostname(),
        testbed=os.environ.get("PAPC_TESTBED", ""),
        P=nprocs, algorithm=args.algorithm, label=args.label,
        dtype=args.dtype, hidden="x".join(map(str, args.hidden)),
        params=m.nparams, bytes=m.grad.nbytes, epochs=args.epochs,
        steps=args.epochs * r["steps"], batch=r["global_batch"],
        skew=args.skew,
        slow=" ".join(f"{k}:{v:g}" for k, v in args.slow),
        seed=args.seed, total_s=f"{f['total']:.6f}",
        epoch_mean_s=f"{f['epoch_times'].mean():.6f}",
        epoch_min_s=f"{f['epoch_times'].min():.6f}",
        wait_mean_s=f"{f['wait_mean']:.6f}", wait_max_s=f"{f['wait_max']:.6f}",
        spread_mean_ms=f"{f['spread_mean'] * 1e3:.4f}",
        spread_median_ms=f"{f['spread_median'] * 1e3:.4f}",
        spread_max_ms=f"{f['spread_max'] * 1e3:.4f}",
        tail_mean_ms=f"{f['tail_mean'] * 1e3:.4f}",
        last_rank=f["last_rank"], last_share=f"{f['last_share']:.3f}",
        compute_min_ms=f"{f['compute_rank'].min() * 1e3:.3f}",
        compute_max_ms=f"{f['compute_rank'].max() * 1e3:.3f}",
        compute_cpu_of_max_ms=f"{f['compute_cpu_rank'][f['compute_rank'].argmax()] * 1e3:.3f}",
        cpu_total_s=f"{f['cpu_total']:.4f}",
        train_loss=f"{f['train_loss']:.8g}", test_loss=f"{r['test_loss']:.8g}",
        test_acc=f"{r['test_acc']:.6f}", same_params=int(f["same_params"]),
        load_start=r["load_start"], load_end=load_average())
    import csv
    new = not os.path.exists(path) or os.path.getsize(path) == 0
    with open(path, "a", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=CSV_FIELDS)
        if new:
            w.writeheader()
        w.writerow(row)


def write_curve(path, args, r):
    """One line per step: step, epoch, global mini-batch loss (repr)."""
    with open(path, "w") as fh:
        fh.write(f"# train.py --algorithm {args.algorithm} --seed {args.seed}"
                 f" --dtype {args.dtype}; test_loss {r['test_loss']!r} "
                 f"test_acc {r['test_acc']!r} n_test {r['n_test']}\n")
        for i, loss in enumerate(r["losses"]):
            fh.write(f"{i} {i // r['steps']} {loss!r}\n")


def main():
    comm = MPI.COMM_WORLD
    nprocs = comm.Get_size()
    r = train(ARGS, comm)
    if r is None:
        return 0
    f = summarize(ARGS, r, nprocs)
    if ARGS.quiet:
        print(f"  {ARGS.label:>5} {ARGS.algorithm:<20} total {f['total']:7.3f}"
              f" s  wait {f['wait_mean']:7.3f} s  spread "
              f"{f['spread_mean'] * 1e3:6.2f} ms  test acc "
              f"{r['test_acc'] * 100:.2f} %  load {r['load_start']}")
    else:
        report(ARGS, r, f, nprocs)
    if ARGS.csv:
        write_csv(ARGS.csv, ARGS, r, f, nprocs)
    if ARGS.curve:
        write_curve(ARGS.curve, ARGS, r)
    if not f["same_params"]:
        print("train.py: the ranks' parameters differ after training",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
