"""A multilayer perceptron in numpy with hand-written backpropagation.

ReLU hidden layers, a softmax output and cross-entropy loss.  The
parameters live in one flat vector and every layer's weights and biases
are views into it; so do the gradients, in a second flat vector that ends
with two statistics slots (the batch's summed loss and its number of
correct predictions).  One allreduce of that vector therefore averages the
gradients and totals the statistics of the global mini-batch at once, with
no packing step.

Gradients are SUMS over the local batch (not means): the ranks' batches
differ in size, and the sum over all ranks divided by the global batch size
is exactly the mean gradient of the global mini-batch.
"""
import numpy as np

STATS = 2  # tail slots of the gradient vector: loss sum, correct count


class MLP:
    def __init__(self, sizes, dtype, seed):
        """sizes: [inputs, hidden..., classes]; He-initialised from seed,
        so every rank starts from the same parameters without a broadcast."""
        if len(sizes) < 2 or min(sizes) < 1:
            raise ValueError(f"bad layer sizes {sizes}")
        self.sizes = list(sizes)
        self.dtype = np.dtype(dtype)
        shapes = [(a, b) for a, b in zip(sizes[:-1], sizes[1:])]
        self.nparams = sum(a * b + b for a, b in shapes)
        self.params = np.zeros(self.nparams, self.dtype)
        self.grad = np.zeros(self.nparams + STATS, self.dtype)
        self.W, self.b = self._views(self.params, shapes)
        self.gW, self.gb = self._views(self.grad, shapes)
        rng = np.random.default_rng([seed, 0])
        for W in self.W:
            W[...] = rng.standard_normal(W.shape) * np.sqrt(2.0 / W.shape[0])

    @staticmethod
    def _views(flat, shapes):
        Ws, bs, off = [], [], 0
        for a, b in shapes:
            Ws.append(flat[off:off + a * b].reshape(a, b))
            off += a * b
            bs.append(flat[off:off + b])
            off += b
        return Ws, bs

    def flops_per_sample(self):
        """Multiply-adds x 2 of one forward (1/3) and backward (2/3) pass."""
        return 6 * sum(a * b for a, b in zip(self.sizes[:-1], self.sizes[1:]))

    def forward(self, X):
        """Activations of every layer (input first) and the logits."""
        acts = [X.astype(self.dtype, copy=False)]
        for W, b in zip(self.W[:-1], self.b[:-1]):
            acts.append(np.maximum(acts[-1] @ W + b, 0))
        return acts, acts[-1] @ self.W[-1] + self.b[-1]

    @staticmethod
    def loss_and_dlogits(logits, y):
        """Summed cross-entropy, correct predictions, and d(loss)/d(logits)."""
        z = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(z)
        s = e.sum(axis=1, keepdims=True)
        rows = np.arange(len(y))
        loss = float(np.log(s[:, 0]).sum() - z[rows, y].sum())
        correct = int((logits.argmax(axis=1) == y).sum())
        d = e / s
        d[rows, y] -= 1
        return loss, correct, d

    def backward(self, acts, dlogits, after_layer=None):
        """Writes the summed gradients into self.grad's views; calls
        after_layer() between layers (a progress checkpoint)."""
        d = dlogits
        for layer in range(len(self.W) - 1, -1, -1):
            np.matmul(acts[layer].T, d, out=self.gW[layer])
            d.sum(axis=0, out=self.gb[layer])
            if layer:
                d = (d @ self.W[layer].T) * (acts[layer] > 0)
                if after_layer:
                    after_layer()

    def checkpoint_flops(self):
        """Cumulative flops per sample at each checkpoint of a pass
        (forward end, then after each backward layer but the first), and
        the pass's total: the first guess of where a step's time goes."""
        mads = [a * b for a, b in zip(self.sizes[:-1], self.sizes[1:])]
        at = [2.0 * sum(mads)]  # forward
        for layer in range(len(mads) - 1, 0, -1):
            at.append(at[-1] + 4.0 * mads[layer])  # weight and input grads
        return at, at[-1] + 2.0 * mads[0]  # first layer: weight grad only

    def evaluate(self, X, y):
        """(mean loss, accuracy) on a data set, e.g. the test split."""
        _, logits = self.forward(X)
        loss, correct, _ = self.loss_and_dlogits(logits, y)
        return loss / len(y), correct / len(y)


class MomentumSGD:
    """v = mu v + g;  p -= lr v  (the heavy-ball form PyTorch uses)."""

    def __init__(self, params, lr, momentum):
        self.params, self.lr, self.mu = params, lr, momentum
        self.v = np.zeros_like(params)

    def step(self, grad_mean):
        self.v *= self.mu
        self.v += grad_mean
        self.params -= self.lr * self.v
