"""The data: scikit-learn's bundled handwritten digits, split and sharded.

The digits (1797 8x8 images, 10 classes) ship inside Debian's
python3-sklearn, so nothing is downloaded.  Rank 0 loads them and
broadcasts: importing scikit-learn takes about 2 s, and eight processes
doing it at once on a small machine would take longer than the training.

The held-out test split and the shards depend only on the seed, P and the
skew, never on the allreduce algorithm, so every algorithm trains on the
same mini-batches.
"""
import numpy as np


def load_digits_on_root(comm):
    """(X, y) on every rank: X float64 in [0, 1] (n x 64), y int (n)."""
    data = None
    if comm.Get_rank() == 0:
        from sklearn.datasets import load_digits  # slow import: rank 0 only
        digits = load_digits()
        data = (digits.data / 16.0, digits.target.astype(np.int64))
    return comm.bcast(data, root=0)


def train_test_split(X, y, test_fraction, seed):
    """A seeded, stratification-free split: the last test_fraction of a
    permutation is held out."""
    if not 0 < test_fraction < 1:
        raise ValueError(f"test fraction {test_fraction} is not in (0, 1)")
    order = np.random.default_rng([seed, 1]).permutation(len(y))
    n_test = int(round(len(y) * test_fraction))
    train, test = order[:len(y) - n_test], order[len(y) - n_test:]
    return X[train], y[train], X[test], y[test]


def shard_weights(nprocs, skew):
    """Rank i's share grows linearly with i: weight 1 + skew * i / (P - 1),
    so with skew 1 the last rank holds twice the first rank's data (and
    computes twice as long per step).  skew 0 gives equal shards."""
    if skew < 0:
        raise ValueError(f"skew {skew} is negative")
    if nprocs == 1:
        return np.ones(1)
    return 1.0 + skew * np.arange(nprocs) / (nprocs - 1)


def shard_bounds(n, nprocs, skew):
    """[start, end) of every rank's shard of n training samples."""
    w = shard_weights(nprocs, skew)
    cuts = np.rint(np.concatenate(([0.0], np.cumsum(w))) / w.sum() * n)
    return cuts.astype(np.int64)


def local_batches(bounds, batch):
    """(local batch of every rank, steps per epoch) for a global batch of
    about `batch`: rank i's local batch is its share of `batch`, and an
    epoch has as many steps as the rank with the fewest batches in its
    shard can feed (the rest of each shard, different samples each epoch,
    sits out that epoch)."""
    shard = np.diff(bounds)
    local = np.floor(batch * shard / shard.sum()).astype(np.int64)
    if (local < 1).any():
        raise ValueError(f"a global batch of {batch} gives some rank an "
                         f"empty local batch: use a larger --batch or fewer "
                         f"processes")
    steps = int((shard // local).min())
    if steps < 1:
        raise ValueError(f"--batch {batch} exceeds the {shard.sum()} "
                         f"training samples")
    return local, steps


def epoch_batches(shard_X, shard_y, local_batch, steps, seed, epoch, rank):
    """This rank's local batches of one epoch: its shard shuffled with
    (seed, epoch, rank), cut into `steps` batches of `local_batch`."""
    order = np.random.default_rng([seed, 2, epoch, rank]).permutation(
        len(shard_y))
    for s in range(steps):
        idx = order[s * local_batch:(s + 1) * local_batch]
        yield shard_X[idx], shard_y[idx]


SHIFTS = [(dy, dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dy or dx]


def augment(X, y, copies, rng, side=8):
    """The batch followed by `copies` shifted copies of it: each copy of
    each image moved by one pixel in one of the 8 directions (zeros shifted
    in), the usual augmentation of handwritten digits.  More rows per step
    is more computation per step, as a larger model would give, without a
    larger gradient to all-reduce."""
    if copies == 0:
        return X, y
    n = len(y)
    img = np.zeros((n, side + 2, side + 2), X.dtype)
    img[:, 1:-1, 1:-1] = X.reshape(n, side, side)
    out = np.empty(((copies + 1) * n, side * side), X.dtype)
    out[:n] = X
    for c in range(copies):
        pick = rng.integers(len(SHIFTS), size=n)
        block = out[(c + 1) * n:(c + 2) * n]
        for k, (dy, dx) in enumerate(SHIFTS):
            rows = np.flatnonzero(pick == k)
            block[rows] = img[rows, 1 - dy:1 - dy + side,
                              1 - dx:1 - dx + side].reshape(len(rows), side * side)
    return out, np.tile(y, copies + 1)

