"""The vector cell, step by step: parsing inputs, generating weights, and the six moves of one step.

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
from rnnviz.text import InputError, sub  # noqa: F401 - sub is used by the page

MAX_T, MAX_DIM = 200, 64
EDIT_LIMIT = 16  # largest H, d or K offered for editing by hand
EDIT_DECIMALS = 3  # hand-edited weights are kept to the digits their box shows, so what is shown is what is used
EDIT_MAX_ABS = 10.0
EDIT_MAX_CHARS = 4_000  # a 16 × 16 matrix of -10.000 takes about 2,100 characters


@dataclass
class VectorSetup:
    """Everything one run of the vector cell needs; b is the single bias of the notes (b_ih = b, b_hh = 0)."""

    x: np.ndarray  # (T, d)
    W_x: np.ndarray  # (H, d)
    W_h: np.ndarray  # (H, H)
    b: np.ndarray  # (H,)
    W_y: np.ndarray  # (K, H)
    b_y: np.ndarray  # (K,)
    h0: np.ndarray  # (H,)
    labels: list[str] | None = None  # the characters, when x is one-hot text


@dataclass
class StepMoves:
    """The numbers of the six moves at one step t (1-based)."""

    t: int
    x: np.ndarray  # (d,)
    read_input: np.ndarray  # (H,) W_x x_t
    h_prev: np.ndarray  # (H,)
    read_memory: np.ndarray  # (H,) W_h h_{t-1}
    bias: np.ndarray  # (H,)
    z: np.ndarray  # (H,) the sum
    h: np.ndarray  # (H,) tanh(z), passed on
    scores: np.ndarray  # (K,) W_y h_t + b_y
    probs: np.ndarray  # (K,) softmax(scores)


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
        raise InputError(f"The vectors have different lengths ({', '.join(map(str, sorted(widths)))}); they must agree.")
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


def grid_values(a: np.ndarray) -> np.ndarray:
    """Weights as the edit box shows and the page uses them: finite (nan counts as 0), within ±10, rounded to
    EDIT_DECIMALS."""
    a = np.nan_to_num(np.asarray(a, dtype=float), nan=0.0, posinf=EDIT_MAX_ABS, neginf=-EDIT_MAX_ABS)
    return np.round(np.clip(a, -EDIT_MAX_ABS, EDIT_MAX_ABS), EDIT_DECIMALS)


def format_matrix(a: np.ndarray) -> str:
    """A weight matrix as its edit box holds it: one row per line, EDIT_DECIMALS decimals, columns right-aligned."""
    a = grid_values(np.atleast_2d(a)) + 0.0  # + 0.0 turns -0.0 into 0.0: no "-0.000"
    cells = [[f"{v:.{EDIT_DECIMALS}f}" for v in row] for row in a]
    widths = [max(len(row[j]) for row in cells) for j in range(len(cells[0]))]
    return "\n".join(" ".join(c.rjust(w) for c, w in zip(row, widths)) for row in cells)


_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)


def parse_matrix(text, name: str, rows: list[str], cols: list[str]) -> np.ndarray:
    """The text of an edit box -> (len(rows), len(cols)) weights rounded to EDIT_DECIMALS; one row per line (or ';'),
    numbers separated by spaces or commas. Anything else raises InputError naming the matrix and what is wrong."""
    shape = f"{len(rows)} × {len(cols)}"
    if not isinstance(text, str):
        raise InputError(f"{name}: the edit was not text; type {shape} numbers.")
    if len(text) > EDIT_MAX_CHARS:
        raise InputError(f"{name}: {len(text):,} characters is more than a {shape} matrix needs "
                         f"(at most {EDIT_MAX_CHARS:,}).")
    lines = [r for r in re.split(r"[;\n\r\v\f\x1c-\x1e\x85\u2028\u2029]+", text.replace("−", "-")) if r.strip()]
    if len(lines) != len(rows):
        typed = f"{len(lines)} row{'' if len(lines) == 1 else 's'} typed" if lines else "nothing typed"
        raise InputError(f"{name}: {typed}; it needs {len(rows)}, one line per row ({_names(rows)}).")
    out = []
    for row, line in zip(rows, lines):
        parts = [p for p in re.split(r"[,\s\[\]]+", line) if p]
        if len(parts) != len(cols):
            typed = f"{len(parts)} number{'' if len(parts) == 1 else 's'}"
            raise InputError(f"{name}: row {row} has {typed}; it needs {len(cols)}, one per column ({_names(cols)}).")
        for col, p in zip(cols, parts):
            where = f"{name}, row {row}, column {col}"
            if not _NUMBER.fullmatch(p):
                finite = p.lstrip("+-").lower() not in ("nan", "inf", "infinity")
                raise InputError(f"{where}: '{_cut(p)}' is not {'a' if finite else 'a finite'} number.")
            if not abs(float(p)) <= EDIT_MAX_ABS:
                raise InputError(f"{where}: {_cut(p)} is beyond ±{EDIT_MAX_ABS:g}; weights here stay within "
                                 f"−{EDIT_MAX_ABS:g} … {EDIT_MAX_ABS:g}.")
        out.append([float(p) for p in parts])
    return np.round(np.array(out), EDIT_DECIMALS)


def edit_caption(rows: list[str], cols: list[str]) -> str:
    """What the lines and columns of an edit box stand for: 'rows h1, h2, h3 · columns 'h', 'e', 'l', 'o''."""
    return f"rows {', '.join(rows)} · " + (f"columns {', '.join(cols)}" if len(cols) > 1 else "one number a row")


def _cut(p: str) -> str:
    return p if len(p) <= 12 else p[:12] + "…"


def _names(labels: list[str]) -> str:
    return ", ".join(labels) if len(labels) <= 8 else f"{', '.join(labels[:3])}, …, {labels[-1]}"


def step_table(m: StepMoves) -> dict[str, np.ndarray]:
    """The numbers of one step, one column per move, headers with real subscripts; rounded to 4 decimals."""
    return {"Wₓxₜ": np.round(m.read_input, 4), "Wₕhₜ₋₁": np.round(m.read_memory, 4), "b": np.round(m.bias, 4),
            "z = sum": np.round(m.z, 4), "hₜ = tanh(z)": np.round(m.h, 4)}


def untrained_note(seed: int, edited: bool) -> str:
    """What the weights are: random and untrained (so move ⑤ predicts by chance), or typed by hand."""
    if edited:
        return "Weights typed by hand (untrained): move ⑤'s prediction is whatever these numbers give."
    return (f"**Untrained**: the weights are random (seed {seed}), so move ⑤'s prediction is a guess by chance; "
            "the *Train \"hello\"* page trains a cell like this one.")


SPECTRUM_NOTE = (
    "Spectral radius: the largest |eigenvalue| of Wₕ, which decides what many multiplications by Wₕ do in the long "
    "run. σ₁ ≥ σ₂ ≥ …: the singular values, how far Wₕ can stretch a vector in one step. The largest, σₘₐₓ = σ₁, "
    "is never below the spectral radius; when σₘₐₓ < 1 (and tanh′ ≤ 1) every step can only shrink a change in "
    "the state, so gradients through many steps are guaranteed to vanish.")
