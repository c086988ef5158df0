"""The smallest character language model: one-hot characters, a vanilla RNN, a softmax over the vocabulary.

Trained by backpropagation through time written out in NumPy (checked against torch.autograd in the tests), with
Adam and clipping; every number shown afterwards is recomputed by the NumPy cell in `rnnviz.nn.cells`. The page's
words, its link parsers and the per-server cache of trained models are the app's (ui/lessons/hello.py).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from rnnviz.nn.cells import get, one_hot, output_layer, rnn_cell, rnn_forward
from rnnviz.nn.sampling import sampling_distribution, softmax
from rnnviz.text import VISIBLE  # noqa: F401  (how a space or a line break is drawn; re-exported)

MAX_TEXT = 2000
CHUNK = 32  # longer texts are cut into chunks of this many targets, trained as one batch
# The work of one click, counted as vocabulary x text length x H x steps, with the vocabulary and H counted as at
# least 16 each (a step has a fixed cost however small the model). 5e8 units are about 1.5 s of one core here at
# worst; "hello" at the defaults is 3.8e5.
WORK_BUDGET = 500_000_000
MIN_COUNTED = 16


@dataclass
class CharRNNWeights:
    """A trained one-layer character RNN, as NumPy arrays (torch layout).

    Attributes:
        vocab: the V characters, in order of first appearance; id -> character.
        W_ih: (H, V) input weights.
        W_hh: (H, H) recurrent weights.
        b_ih: (H,) input bias.
        b_hh: (H,) recurrent bias.
        W_y: (V, H) output weights.
        b_y: (V,) output bias.
    """

    vocab: list[str]
    W_ih: np.ndarray
    W_hh: np.ndarray
    b_ih: np.ndarray
    b_hh: np.ndarray
    W_y: np.ndarray
    b_y: np.ndarray


@dataclass
class TrainResult:
    """What one training run made.

    Attributes:
        weights: the trained weights.
        losses: mean cross-entropy per optimizer step, nats/char.
        seconds: wall-clock time the training took.
        asked: steps asked for; len(losses) were run (fewer when the work budget capped them).
    """

    weights: CharRNNWeights
    losses: list[float]
    seconds: float
    asked: int = 0


def step_work(vocab_size: int, text_length: int, hidden_size: int) -> int:
    """The work of one training step, in the units of WORK_BUDGET."""
    return max(vocab_size, MIN_COUNTED) * text_length * max(hidden_size, MIN_COUNTED)


def steps_within_budget(text: str, hidden_size: int, steps: int, budget: int = WORK_BUDGET) -> int:
    """How many of `steps` training steps fit the work budget for this text and hidden size."""
    return max(0, min(steps, budget // step_work(len(vocabulary(text)), len(text), hidden_size)))


def vocabulary(text: str) -> list[str]:
    """Distinct characters in order of first appearance ('hello' -> h, e, l, o)."""
    return list(dict.fromkeys(text))


def check_text(text: str) -> str:
    """A training text of 2 to 2,000 characters, without control characters other than newline and tab."""
    if text is None or len(text) < 2:
        raise ValueError("The training text needs at least two characters (an input and a target).")
    if len(text) > MAX_TEXT:
        raise ValueError(f"The training text has {len(text):,} characters; the limit is {MAX_TEXT:,}.")
    bad = sorted({c for c in text if (ord(c) < 32 and c not in "\n\t") or 0x7F <= ord(c) < 0xA0})
    if bad:
        codes = ", ".join(f"U+{ord(c):04X}" for c in bad)
        raise ValueError(f"The text holds control characters ({codes}); remove them.")
    return text


def _init(V: int, H: int, seed: int) -> dict[str, np.ndarray]:
    """PyTorch's default initialisation for nn.RNN(V, H) and nn.Linear(H, V): uniform(-1/sqrt(H), 1/sqrt(H))."""
    rng = np.random.default_rng(seed)
    k = 1 / math.sqrt(H)
    u = lambda *shape: rng.uniform(-k, k, shape)  # noqa: E731
    return {"W_ih": u(H, V), "W_hh": u(H, H), "b_ih": u(H), "b_hh": u(H), "W_y": u(V, H), "b_y": u(V)}


def loss_and_grads(p: dict[str, np.ndarray], x: np.ndarray, y: np.ndarray) -> tuple[float, dict[str, np.ndarray]]:
    """Mean cross-entropy over the targets y >= 0 and its gradient by backpropagation through time.

    x (B, L) input ids, y (B, L) target ids (-1 where padded); every chunk starts from h = 0."""
    B, L = x.shape
    H, V = p["W_hh"].shape[0], p["W_y"].shape[0]
    hs = np.zeros((L + 1, B, H))
    probs = np.zeros((L, B, V))
    for t in range(L):
        hs[t + 1] = rnn_cell(p["W_ih"][:, x[:, t]].T + p["b_ih"] + hs[t] @ p["W_hh"].T + p["b_hh"])  # (B, H)
        s = hs[t + 1] @ p["W_y"].T + p["b_y"]
        e = np.exp(s - s.max(axis=1, keepdims=True))
        probs[t] = e / e.sum(axis=1, keepdims=True)
    mask = (y >= 0).T  # (L, B)
    n = max(int(mask.sum()), 1)
    yt = np.where(y >= 0, y, 0).T  # (L, B)
    loss = -np.log(np.take_along_axis(probs, yt[..., None], 2)[..., 0] + 1e-300)[mask].sum() / n
    g = {k: np.zeros_like(v) for k, v in p.items()}
    cell = get("rnn")
    local = cell.local({"h": hs[1:]})  # the cell's own tanh'(z_t) = 1 - h_t^2, every step at once: (L, B, H)
    dh_next = np.zeros((B, H))
    for t in reversed(range(L)):
        ds = probs[t].copy()
        ds[np.arange(B), yt[t]] -= 1
        ds *= mask[t][:, None] / n  # (B, V)
        g["W_y"] += ds.T @ hs[t + 1]
        g["b_y"] += ds.sum(axis=0)
        dh = ds @ p["W_y"] + dh_next
        dz, _, carry, _ = cell.backward({k: v[t] for k, v in local.items()}, dh)  # through tanh
        np.add.at(g["W_ih"].T, x[:, t], dz)  # one-hot input: each row of W_ih^T gets its own steps' dz
        g["W_hh"] += dz.T @ hs[t]
        g["b_ih"] += dz.sum(axis=0)
        g["b_hh"] += dz.sum(axis=0)
        dh_next = carry + dz @ p["W_hh"]
    return float(loss), g


def _chunks(ids: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Inputs text[:-1] and targets text[1:] cut into equal chunks (targets padded with -1)."""
    xs, ys = np.array(ids[:-1]), np.array(ids[1:])
    n = len(ys)
    chunks = max(1, math.ceil(n / CHUNK))
    L = math.ceil(n / chunks)
    pad = chunks * L - n
    return (np.concatenate([xs, np.zeros(pad, dtype=int)]).reshape(chunks, L),
            np.concatenate([ys, np.full(pad, -1)]).reshape(chunks, L))


def train(text: str, hidden_size: int = 3, steps: int = 300, lr: float = 0.05, seed: int = 0,
          callback: Callable[[int, float], None] | None = None, budget: int = WORK_BUDGET) -> TrainResult:
    """Teacher forcing on text[:-1] -> text[1:]: BPTT in NumPy, Adam, gradient clipping at norm 1.0.
    At most as many steps as fit `budget` (see `steps_within_budget`); `callback(step, loss)` reports progress every ten
    steps."""
    import time

    check_text(text)
    asked, steps = steps, steps_within_budget(text, hidden_size, steps, budget)
    t0 = time.time()
    vocab = vocabulary(text)
    p = _init(len(vocab), hidden_size, seed)
    x, y = _chunks([vocab.index(c) for c in text])
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v2 = {k: np.zeros_like(v) for k, v in p.items()}
    b1, b2, eps = 0.9, 0.999, 1e-8
    losses = []
    for step in range(1, steps + 1):
        loss, g = loss_and_grads(p, x, y)
        norm = math.sqrt(sum(float((a ** 2).sum()) for a in g.values()))
        scale = min(1.0, 1.0 / (norm + 1e-6))  # clip the whole gradient at norm 1
        for k in p:
            gk = g[k] * scale
            m[k] = b1 * m[k] + (1 - b1) * gk
            v2[k] = b2 * v2[k] + (1 - b2) * gk ** 2
            p[k] -= lr * (m[k] / (1 - b1 ** step)) / (np.sqrt(v2[k] / (1 - b2 ** step)) + eps)
        losses.append(loss)
        if callback and (step % 10 == 0 or step == steps):
            callback(step, loss)
    w = CharRNNWeights(vocab, p["W_ih"], p["W_hh"], p["b_ih"], p["b_hh"], p["W_y"], p["b_y"])
    return TrainResult(w, losses, time.time() - t0, asked)


@dataclass
class CharSteps:
    """Each step of reading a text with trained weights, recomputed in NumPy.

    Attributes:
        inputs: the T characters read (the text but its last).
        targets: the T characters to predict (the text but its first).
        x: (T, V) one-hot inputs.
        h: (T, H) hidden state after each step.
        scores: (T, V) next-character scores (logits).
        probs: (T, V) next-character probabilities.
        loss: mean cross-entropy of the targets, nats/char.
        perplexity: exp(loss).
    """

    inputs: list[str]
    targets: list[str]
    x: np.ndarray
    h: np.ndarray
    scores: np.ndarray
    probs: np.ndarray
    loss: float
    perplexity: float


def read(text: str, w: CharRNNWeights) -> CharSteps:
    """Teacher-force text[:-1] and score text[1:] with the trained weights."""
    unknown = sorted({c for c in text if c not in w.vocab})
    if unknown:
        raise ValueError(f"Not in the trained vocabulary: {', '.join(repr(c) for c in unknown)}")
    ids = [w.vocab.index(c) for c in text]
    x = one_hot(ids[:-1], len(w.vocab))
    tr = rnn_forward(x, w.W_ih, w.W_hh, w.b_ih, w.b_hh)
    scores = output_layer(tr.h, w.W_y, w.b_y)
    probs = softmax(scores)
    nll = -np.log(probs[np.arange(len(ids) - 1), ids[1:]])
    loss = float(nll.mean())
    return CharSteps(list(text[:-1]), list(text[1:]), x, tr.h, scores, probs, loss, math.exp(loss))


def sample(w: CharRNNWeights, start: str, length: int, temperature: float = 1.0, seed: int | None = None) -> str:
    """Feed `start`, then sample `length` characters, each fed back as the next input."""
    if start not in w.vocab:
        raise ValueError(f"{start!r} is not in the trained vocabulary")
    rng = np.random.default_rng(seed)
    V = len(w.vocab)
    h = np.zeros(len(w.b_ih))
    idx, out = w.vocab.index(start), []
    for _ in range(length):
        h = rnn_cell(w.W_ih[:, idx] + w.b_ih + w.W_hh @ h + w.b_hh)
        p = sampling_distribution(w.W_y @ h + w.b_y, temperature)
        idx = int(rng.choice(V, p=p))
        out.append(w.vocab[idx])
    return "".join(out)
