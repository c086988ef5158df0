"""Using the states: classifier (last state) vs language model (every state), the padding trap, a
bidirectional pass and the parameter calculator; computed with our NumPy cell and checked against torch's
packed sequences and modules (the words, tables and the calculator's presets are the app's: ui/lessons/states.py)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rnnviz.lessons.presets import GRU_CLASSIFIER, RNN_LM
from rnnviz.nn.cells import init_weights, output_layer, rnn_forward
from rnnviz.nn.params import classifier_params, lm_params
from rnnviz.nn.sampling import softmax
from rnnviz.nn.torch_ref import import_torch, torch_cell
from rnnviz.text import InputError

EXACT = 1e-12  # differences below this are rounding, not a different state


def parse_lengths(text: str, max_count: int = 8, max_length: int = 30) -> list[int]:
    """'5, 3, 2' or '5 3 2' -> [5, 3, 2]; raises InputError saying what is wrong."""
    try:
        lengths = [int(v) for v in (text or "").replace(",", " ").split()]
    except ValueError:
        raise InputError("Lengths must be whole numbers, e.g. 5, 3, 2.") from None
    if not lengths or len(lengths) > max_count or not all(1 <= n <= max_length for n in lengths):
        raise InputError(f"Give 1 to {max_count} lengths, each from 1 to {max_length}.")
    return lengths


@dataclass
class PaddingDemo:
    """A padded batch read three ways; all states (B, H).

    Attributes:
        lengths: the B sequences' lengths; T is the longest.
        x: (B, T, d) the inputs, right-padded with zero vectors.
        states: (B, T, H) every state of the padded run.
        last_index: (B, H) the state at index T - 1: after the padding (the trap).
        at_length: (B, H) the state at index length - 1: after the last real token.
        packed: (B, H) torch's pack_padded_sequence final state; None unless asked for.
        left_padded: (B, H) the last state when the padding goes first instead.
        diff: (B,) |last_index - at_length| (max over units).
    """

    lengths: list[int]
    x: np.ndarray
    states: np.ndarray
    last_index: np.ndarray
    at_length: np.ndarray
    packed: np.ndarray | None
    left_padded: np.ndarray
    diff: np.ndarray


def padding_demo(lengths: list[int], d: int = 3, H: int = 4, seed: int = 0,
                 with_torch: bool = False) -> PaddingDemo:
    """Random token vectors for sequences of the given lengths, right-padded with zeros to the longest;
    with_torch also runs torch's pack_padded_sequence on the same weights."""
    rng = np.random.default_rng(seed)
    w = init_weights("rnn", d, H, seed=seed)
    T = max(lengths)
    B = len(lengths)
    x = np.zeros((B, T, d))
    for b, n in enumerate(lengths):
        x[b, :n] = rng.normal(size=(n, d))
    states = np.stack([rnn_forward(x[b], **w).h for b in range(B)])  # (B, T, H)
    last = states[:, -1]
    at_len = np.stack([states[b, n - 1] for b, n in enumerate(lengths)])
    left = np.stack([rnn_forward(np.concatenate([np.zeros((T - n, d)), x[b, :n]]), **w).h[-1]
                     for b, n in enumerate(lengths)])
    packed = _torch_packed(x, lengths, w) if with_torch else None
    return PaddingDemo(list(lengths), x, states, last, at_len, packed, left, np.abs(last - at_len).max(axis=1))


def _torch_packed(x: np.ndarray, lengths: list[int], w: dict) -> np.ndarray:
    torch = import_torch()
    from torch.nn.utils.rnn import pack_padded_sequence

    m = torch_cell("rnn", w)
    with torch.no_grad():
        packed = pack_padded_sequence(torch.from_numpy(x), torch.tensor(lengths), batch_first=True,
                                      enforce_sorted=False)
        _, h_n = m(packed)
    return h_n[0].numpy()


@dataclass
class Bidirectional:
    """One sequence read by two cells, one in each direction.

    Attributes:
        forward: (T, H) left-to-right states.
        backward: (T, H) right-to-left states, aligned to positions.
        concat: (T, 2H) both, side by side per position.
    """

    forward: np.ndarray
    backward: np.ndarray
    concat: np.ndarray


def bidirectional(x: np.ndarray, H: int = 3, seed: int = 0) -> Bidirectional:
    """Two independent cells, one reading left to right and one right to left, concatenated per position."""
    d = x.shape[1]
    wf, wb = init_weights("rnn", d, H, seed=seed), init_weights("rnn", d, H, seed=seed + 1)
    fwd = rnn_forward(x, **wf).h
    bwd = rnn_forward(x[::-1], **wb).h[::-1]
    return Bidirectional(fwd, bwd, np.concatenate([fwd, bwd], axis=1))


def torch_bidirectional(x: np.ndarray, H: int = 3, seed: int = 0) -> np.ndarray:
    """torch.nn.RNN(bidirectional=True) on the same weights: its (T, 2H) output."""
    torch = import_torch()
    d = x.shape[1]
    wf, wb = init_weights("rnn", d, H, seed=seed), init_weights("rnn", d, H, seed=seed + 1)
    m = torch_cell("rnn", wf, wb)
    with torch.no_grad():
        out, _ = m(torch.from_numpy(np.ascontiguousarray(x))[None])
    return out[0].numpy()


def heads(states: np.ndarray, num_classes: int, vocab_size: int, seed: int = 0) -> dict[str, np.ndarray]:
    """Classifier: softmax(W_c h_T) (B, C). Language model: softmax(W_y h_t) at every step (B, T, V)."""
    rng = np.random.default_rng(seed + 99)
    H = states.shape[-1]
    W_c, W_y = rng.normal(0, 1 / np.sqrt(H), (num_classes, H)), rng.normal(0, 1 / np.sqrt(H), (vocab_size, H))
    return {"classifier": softmax(output_layer(states[:, -1], W_c)), "lm": softmax(output_layer(states, W_y))}


@dataclass
class Heads:
    """A small untrained batch read by both heads.

    Attributes:
        x: (B, T, d) the inputs.
        states: (B, T, H) every state.
        classifier: (B, C) one distribution per sequence, from its last state.
        lm: (B, T, V) one distribution per step.
    """

    x: np.ndarray
    states: np.ndarray
    classifier: np.ndarray
    lm: np.ndarray


def heads_demo(B: int = 2, T: int = 5, d: int = 4, H: int = 3, C: int = 3, V: int = 6, seed: int = 0) -> Heads:
    """Random inputs through a random (untrained) vanilla cell, then both heads."""
    x = np.random.default_rng(seed).normal(size=(B, T, d))
    w = init_weights("rnn", d, H, seed=seed)
    states = np.stack([rnn_forward(x[b], **w).h for b in range(B)])
    out = heads(states, C, V, seed)
    return Heads(x, states, out["classifier"], out["lm"])


# ---- the parameter calculator ------------------------------------------------------------------------------

def calculate(task: str, cell: str, d: int, H: int, V: int = RNN_LM["vocab_size"],
              K: int = GRU_CLASSIFIER["num_classes"], emb: int = 0, layers: int = 1,
              bi: bool = False) -> dict[str, int]:
    """Embedding / cell / output / total parameters of the chosen head, as torch counts them."""
    if task == "lm":
        return lm_params(cell, V, d, H, layers)
    return classifier_params(cell, d, H, K, vocab_size=emb, num_layers=layers, bidirectional=bi)
