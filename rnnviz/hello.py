"""The smallest character language model: one-hot characters, a vanilla RNN, a softmax over the vocabulary.

Trained by backpropagation through time with torch (CPU, a second or two); every number shown afterwards is
recomputed by the NumPy cell in `rnnviz.cells` from the trained weights.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from rnnviz.cells import one_hot, output_layer, rnn_forward
from rnnviz.sampling import softmax

MAX_TEXT = 2000
CHUNK = 32  # longer texts are cut into chunks of this many targets, trained as one batch


@dataclass
class CharRNNWeights:
    """A trained one-layer character RNN, as NumPy arrays (torch layout)."""

    vocab: list[str]
    W_ih: np.ndarray  # (H, V)
    W_hh: np.ndarray  # (H, H)
    b_ih: np.ndarray  # (H,)
    b_hh: np.ndarray  # (H,)
    W_y: np.ndarray  # (V, H)
    b_y: np.ndarray  # (V,)


@dataclass
class TrainResult:
    weights: CharRNNWeights
    losses: list[float]  # mean cross-entropy per optimizer step, nats/char
    seconds: float


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
        raise ValueError("The text holds control characters (" + ", ".join(f"U+{ord(c):04X}" for c in bad) + "); remove them.")
    return text


def train(text: str, hidden_size: int = 3, steps: int = 300, lr: float = 0.05, seed: int = 0,
          callback: Callable[[int, float], None] | None = None) -> TrainResult:
    """Teacher forcing on text[:-1] -> text[1:], Adam, clipping at 1.0; `callback(step, loss)` reports progress."""
    import time

    import torch

    check_text(text)
    t0 = time.time()
    torch.manual_seed(seed)
    vocab = vocabulary(text)
    V, H = len(vocab), hidden_size
    ids = torch.tensor([vocab.index(c) for c in text])
    xs, ys = ids[:-1], ids[1:]
    n = len(ys)
    chunks = max(1, math.ceil(n / CHUNK))
    L = math.ceil(n / chunks)
    pad = chunks * L - n
    x = torch.cat([xs, torch.zeros(pad, dtype=torch.long)]).view(chunks, L)
    y = torch.cat([ys, torch.full((pad,), -100, dtype=torch.long)]).view(chunks, L)  # -100: ignored
    rnn = torch.nn.RNN(V, H, batch_first=True)
    head = torch.nn.Linear(H, V)
    params = list(rnn.parameters()) + list(head.parameters())
    opt = torch.optim.Adam(params, lr=lr)
    onehot = torch.nn.functional.one_hot(x, V).float()  # (chunks, L, V)
    losses = []
    with torch.enable_grad():
        for step in range(steps):
            out, _ = rnn(onehot)
            loss = torch.nn.functional.cross_entropy(head(out).reshape(-1, V), y.reshape(-1), ignore_index=-100)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            losses.append(loss.item())
            if callback and (step % 10 == 0 or step == steps - 1):
                callback(step + 1, losses[-1])
    g = lambda t: t.detach().double().numpy().copy()  # noqa: E731
    w = CharRNNWeights(vocab, g(rnn.weight_ih_l0), g(rnn.weight_hh_l0), g(rnn.bias_ih_l0), g(rnn.bias_hh_l0),
                       g(head.weight), g(head.bias))
    return TrainResult(w, losses, time.time() - t0)


@dataclass
class CharSteps:
    """Each step of reading a text with trained weights, recomputed in NumPy."""

    inputs: list[str]
    targets: list[str]
    x: np.ndarray  # (T, V) one-hot
    h: np.ndarray  # (T, H)
    scores: np.ndarray  # (T, V)
    probs: np.ndarray  # (T, V)
    loss: float  # mean cross-entropy of the targets, nats/char
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
        h = np.tanh(w.W_ih[:, idx] + w.b_ih + w.W_hh @ h + w.b_hh)
        p = softmax(w.W_y @ h + w.b_y, temperature)
        idx = int(rng.choice(V, p=p))
        out.append(w.vocab[idx])
    return "".join(out)
