"""Using the states: classifier (last state) vs language model (every state), the padding trap, and
a bidirectional pass; computed with our NumPy cell and checked against torch's packed sequences."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rnnviz.nn.cells import init_weights, output_layer, rnn_forward
from rnnviz.nn.sampling import softmax
from rnnviz.nn.torch_ref import import_torch, torch_cell


@dataclass
class PaddingDemo:
    """A padded batch read three ways; all states (B, H)."""

    lengths: list[int]
    x: np.ndarray  # (B, T, d) right-padded with zero vectors
    states: np.ndarray  # (B, T, H) every state of the padded run
    last_index: np.ndarray  # (B, H) the state at index T - 1: after the padding (the trap)
    at_length: np.ndarray  # (B, H) the state at index length - 1: after the last real token
    packed: np.ndarray | None  # (B, H) torch's pack_padded_sequence final state (when asked for)
    left_padded: np.ndarray  # (B, H) the last state when the padding goes first instead
    diff: np.ndarray  # (B,) |last_index - at_length| (max over units)


def padding_demo(lengths: list[int], d: int = 3, H: int = 4, seed: int = 0, with_torch: bool = False) -> PaddingDemo:
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
        packed = pack_padded_sequence(torch.from_numpy(x), torch.tensor(lengths), batch_first=True, enforce_sorted=False)
        _, h_n = m(packed)
    return h_n[0].numpy()


@dataclass
class Bidirectional:
    forward: np.ndarray  # (T, H) left-to-right states
    backward: np.ndarray  # (T, H) right-to-left states, aligned to positions
    concat: np.ndarray  # (T, 2H)


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
