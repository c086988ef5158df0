"""The vector cell, step by step: parsing inputs, generating weights, and the six moves of one step (the words, the
edit boxes and their state are the app's: ui/lessons/vector.py).

    1 read the input W_x x_t   2 read the memory W_h h_{t-1}   3 add (+ b)   4 squash (tanh)
    5 predict softmax(W_y h_t + b_y)   6 pass h_t on as the next step's h_{t-1}
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from rnnviz.nn.cells import RNNTrace, init_weights, one_hot, output_layer, rnn_forward, singular_values, spectral_radius
from rnnviz.nn.sampling import softmax
from rnnviz.nn.torch_ref import import_torch, torch_cell
from rnnviz.text import InputError

MAX_T, MAX_DIM = 200, 64


@dataclass
class VectorSetup:
    """Everything one run of the vector cell needs; b is the single bias of the notes (b_ih = b, b_hh = 0).

    Attributes:
        x: (T, d) the inputs.
        W_x: (H, d) input weights.
        W_h: (H, H) recurrent weights.
        b: (H,) the bias.
        W_y: (K, H) output weights.
        b_y: (K,) output bias.
        h0: (H,) the state before the first step.
        labels: the characters, when x is one-hot text; None otherwise.
    """

    x: np.ndarray
    W_x: np.ndarray
    W_h: np.ndarray
    b: np.ndarray
    W_y: np.ndarray
    b_y: np.ndarray
    h0: np.ndarray
    labels: list[str] | None = None


@dataclass
class StepMoves:
    """The numbers of the six moves at one step t (1-based).

    Attributes:
        t: the step, from 1.
        x: (d,) the input x_t.
        read_input: (H,) W_x x_t.
        h_prev: (H,) h_{t-1}.
        read_memory: (H,) W_h h_{t-1}.
        bias: (H,) b.
        z: (H,) the sum read_input + read_memory + bias.
        h: (H,) tanh(z), passed on.
        scores: (K,) W_y h_t + b_y.
        probs: (K,) softmax(scores).
    """

    t: int
    x: np.ndarray
    read_input: np.ndarray
    h_prev: np.ndarray
    read_memory: np.ndarray
    bias: np.ndarray
    z: np.ndarray
    h: np.ndarray
    scores: np.ndarray
    probs: np.ndarray


def parse_vectors(text: str, d: int | None = None, max_t: int = MAX_T, max_abs: float = 100.0) -> np.ndarray:
    """'1 0 0; 0 1 0' (one vector per line or ';') -> (T, d) array; raises InputError saying what is wrong."""
    rows = [r for r in re.split(r"[;\n]+", text or "") if r.strip()]
    if not rows:
        raise InputError("No input vectors: type one vector per line (or separate them with ';').")
    if len(rows) > max_t:
        raise InputError(f"{len(rows)} vectors given; the limit is {max_t} steps.")
    out = []
    for k, r in enumerate(rows, 1):
        parts = [p for p in re.split(r"[,\s]+", r.strip()) if p]
        try:
            v = [float(p) for p in parts]
        except ValueError:
            raise InputError(f"Vector {k} ('{r.strip()[:30]}') holds something that is not a number.") from None
        if not all(math.isfinite(a) and abs(a) <= max_abs for a in v):
            raise InputError(f"Vector {k} holds a value that is not finite or beyond ±{max_abs:g}.")
        out.append(v)
    widths = {len(v) for v in out}
    if len(widths) != 1:
        lengths = ", ".join(map(str, sorted(widths)))
        raise InputError(f"The vectors have different lengths ({lengths}); they must agree.")
    width = widths.pop()
    if d is not None and width != d:
        raise InputError(f"Each vector has {width} numbers but the input size d is {d}.")
    if width > MAX_DIM:
        raise InputError(f"Vectors of {width} numbers are too long; the limit is {MAX_DIM}.")
    return np.array(out)


def parse_vocab(text: str) -> list[str]:
    """Distinct characters in order of first appearance: 'helo' -> ['h', 'e', 'l', 'o']."""
    vocab = list(dict.fromkeys(text or ""))
    if not vocab:
        raise InputError("The vocabulary is empty: type the characters the word may use.")
    if len(vocab) > MAX_DIM:
        raise InputError(f"The vocabulary has {len(vocab)} characters; the limit is {MAX_DIM}.")
    return vocab


def encode_word(word: str, vocab: list[str]) -> np.ndarray:
    """One-hot rows for each character of `word`; characters outside `vocab` raise InputError."""
    if not word:
        raise InputError("The word is empty.")
    if len(word) > MAX_T:
        raise InputError(f"The word has {len(word)} characters; the limit is {MAX_T}.")
    unknown = sorted({c for c in word if c not in vocab})
    if unknown:
        raise InputError(f"Not in the vocabulary: {', '.join(repr(c) for c in unknown)}.")
    return one_hot([vocab.index(c) for c in word], len(vocab))


def generate(d: int, H: int, K: int, seed: int, radius: float | None) -> dict[str, np.ndarray]:
    """Seeded PyTorch-style weights for the cell and the output layer; W_h rescaled to `radius`."""
    w = init_weights("rnn", d, H, seed=seed, radius=radius)
    rng = np.random.default_rng(seed + 10_000)
    k = 1 / math.sqrt(H)
    return {"W_x": w["W_ih"], "W_h": w["W_hh"], "b": w["b_ih"] + w["b_hh"],
            "W_y": rng.uniform(-k, k, (K, H)), "b_y": rng.uniform(-k, k, K)}


def run(setup: VectorSetup) -> RNNTrace:
    return rnn_forward(setup.x, setup.W_x, setup.W_h, setup.b, None, h0=setup.h0)


def moves(setup: VectorSetup, trace: RNNTrace, t: int) -> StepMoves:
    """The six moves' numbers at step t (1-based)."""
    k = t - 1
    h_prev = trace.h[k - 1] if k > 0 else setup.h0
    scores = output_layer(trace.h[k], setup.W_y, setup.b_y)
    return StepMoves(t, setup.x[k], trace.x_part[k], h_prev, trace.h_part[k], setup.b, trace.pre[k], trace.h[k],
                     scores, softmax(scores))


SCALE_STEPS = (1.0, 1.5, 2.0, 3.0, 5.0, 7.5)  # moves_scale's values, times a power of ten


def moves_scale(setup: VectorSetup, trace: RNNTrace) -> float:
    """The largest |number| that moves 1-3 show at any step of the run (W_x x_t, W_h h_{t-1}, z and b), at least 1,
    rounded up to 1, 1.5, 2, 3, 5 or 7.5 times a power of ten: one scale for every step, so that a bar's length
    compares from step to step; rounded, so that a small move of W_h's radius leaves it as it was, and step 1 (which
    W_h cannot change: h_0 = 0) as it was drawn."""
    parts = [trace.x_part, trace.h_part, trace.pre, setup.b]
    most = max(1.0, float(max(np.max(np.abs(p)) for p in parts)))
    power = 10.0 ** np.floor(np.log10(most))
    return next(float(m * power) for m in (*SCALE_STEPS, 10.0) if m * power >= most)


def torch_agreement(setup: VectorSetup, trace: RNNTrace) -> tuple[np.ndarray, float]:
    """The same run done by torch.nn.RNN (float64) on the same weights: its states and the max |difference|."""
    torch = import_torch()
    m = torch_cell("rnn", {"W_ih": setup.W_x, "W_hh": setup.W_h, "b_ih": setup.b})
    with torch.no_grad():
        out, _ = m(torch.from_numpy(setup.x)[None], torch.from_numpy(setup.h0)[None, None])
    h = out[0].numpy()
    return h, float(np.max(np.abs(h - trace.h)))


def spectrum(W_h: np.ndarray) -> tuple[float, np.ndarray]:
    """Spectral radius and singular values of W_h."""
    return spectral_radius(W_h), singular_values(W_h)
