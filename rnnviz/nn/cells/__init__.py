"""Vanilla RNN, LSTM and GRU cells in NumPy (float64), run over a sequence with every step kept.

Weights use PyTorch's layout and gate order, so `torch.nn.RNN/LSTM/GRU` parameters plug straight in:
W_ih is (G*H, input_size), W_hh is (G*H, H); G = 1 (RNN), 4 (LSTM: i, f, g, o), 3 (GRU: r, z, n).
    RNN   h_t = tanh(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh)
    LSTM  c_t = f * c_{t-1} + i * g,   h_t = o * tanh(c_t)
    GRU   n_t = tanh(W_in x_t + b_in + r * (W_hn h_{t-1} + b_hn)),   h_t = (1 - z) * n_t + z * h_{t-1}
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

GATES = {"rnn": 1, "lstm": 4, "gru": 3}  # stacked blocks in W_ih / W_hh, in torch's order


def sigmoid(x: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-x)), written through tanh so it never overflows."""
    return 0.5 * (1.0 + np.tanh(0.5 * np.asarray(x)))


# ---- one step of each cell: the only place their equations are written -------------------------
# Each takes the pre-activations (the matrix products are the caller's, so a sampler can precompute
# them: an embedding table, stacked matrices) and works on one state (H,) or a batch (B, H).

def rnn_cell(pre: np.ndarray, nonlinearity: str = "tanh") -> np.ndarray:
    """Vanilla step h_t = tanh(pre) (or relu), pre = W_ih x_t + b_ih + W_hh h_{t-1} + b_hh."""
    return np.tanh(pre) if nonlinearity == "tanh" else np.maximum(pre, 0)


def lstm_cell(z: np.ndarray, c_prev: np.ndarray) -> tuple[np.ndarray, np.ndarray, tuple]:
    """LSTM step from z = W_ih x_t + b_ih + W_hh h_{t-1} + b_hh (..., 4H): returns h_t, c_t and (i, f, g, o)."""
    H = z.shape[-1] // 4
    s = sigmoid(z)  # one call for the three gates (g's block is computed and dropped): a sampler steps ~10^3 times
    i = s[..., :H]  # input gate: how much of the candidate to write
    f = s[..., H:2 * H]  # forget gate: how much of c_{t-1} to keep
    g = np.tanh(z[..., 2 * H:3 * H])  # candidate
    o = s[..., 3 * H:]  # output gate: how much of the cell to show
    c = f * c_prev + i * g
    return o * np.tanh(c), c, (i, f, g, o)


def gru_cell(gi: np.ndarray, gh: np.ndarray, h_prev: np.ndarray) -> tuple[np.ndarray, tuple]:
    """GRU step from gi = W_ih x_t + b_ih and gh = W_hh h_{t-1} + b_hh (..., 3H): returns h_t and (r, z, n)."""
    H = gi.shape[-1] // 3
    r = sigmoid(gi[..., :H] + gh[..., :H])  # reset gate: how much memory the candidate reads
    z = sigmoid(gi[..., H:2 * H] + gh[..., H:2 * H])  # update gate: how much of h_{t-1} to keep
    n = np.tanh(gi[..., 2 * H:] + r * gh[..., 2 * H:])  # candidate
    return (1 - z) * n + z * h_prev, (r, z, n)


def _prepare(x, W_ih, W_hh, b_ih, b_hh, gates: int):
    """Coerce inputs to float64 arrays of the documented shapes and check they agree."""
    W_ih = np.atleast_2d(np.asarray(W_ih, dtype=np.float64))
    W_hh = np.atleast_2d(np.asarray(W_hh, dtype=np.float64))
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 1:  # a sequence of scalars
        x = x[:, None]
    if x.ndim != 2:
        raise ValueError(f"x must be (T, input_size), got shape {x.shape}")
    GH, d = W_ih.shape
    if GH % gates:
        raise ValueError(f"W_ih has {GH} rows, not a multiple of {gates} gates")
    H = GH // gates
    if W_hh.shape != (GH, H):
        raise ValueError(f"W_hh must be ({GH}, {H}), got {W_hh.shape}")
    if x.shape[1] != d:
        raise ValueError(f"x has {x.shape[1]} features per step but W_ih expects {d}")
    b_ih = np.zeros(GH) if b_ih is None else np.broadcast_to(np.asarray(b_ih, dtype=np.float64), (GH,)).copy()
    b_hh = np.zeros(GH) if b_hh is None else np.broadcast_to(np.asarray(b_hh, dtype=np.float64), (GH,)).copy()
    return x, W_ih, W_hh, b_ih, b_hh, H


def _state(s, H: int) -> np.ndarray:
    return np.zeros(H) if s is None else np.broadcast_to(np.asarray(s, dtype=np.float64), (H,)).copy()


@dataclass
class RNNTrace:
    """Every step of a vanilla RNN run."""

    x: np.ndarray  # (T, d) inputs
    x_part: np.ndarray  # (T, H) W_ih x_t (read the input)
    h_part: np.ndarray  # (T, H) W_hh h_{t-1} (read the memory)
    pre: np.ndarray  # (T, H) pre-activations x_part + h_part + b_ih + b_hh
    h: np.ndarray  # (T, H) states h_1..h_T
    h0: np.ndarray  # (H,) initial state


@dataclass
class LSTMTrace:
    """Every step of an LSTM run; gates in torch order i, f, g, o."""

    x: np.ndarray  # (T, d)
    pre: np.ndarray  # (T, 4H) all four pre-activations
    i: np.ndarray  # (T, H) input gate
    f: np.ndarray  # (T, H) forget gate
    g: np.ndarray  # (T, H) candidate
    o: np.ndarray  # (T, H) output gate
    c: np.ndarray  # (T, H) cell states c_1..c_T
    h: np.ndarray  # (T, H) hidden states h_1..h_T
    h0: np.ndarray  # (H,)
    c0: np.ndarray  # (H,)


@dataclass
class GRUTrace:
    """Every step of a GRU run; gates in torch order r, z, n."""

    x: np.ndarray  # (T, d)
    r: np.ndarray  # (T, H) reset gate
    z: np.ndarray  # (T, H) update gate
    n: np.ndarray  # (T, H) candidate
    hn_part: np.ndarray  # (T, H) W_hn h_{t-1} + b_hn, the memory term the reset gate scales
    h: np.ndarray  # (T, H) states h_1..h_T
    h0: np.ndarray  # (H,)


def rnn_forward(x, W_ih, W_hh, b_ih=None, b_hh=None, h0=None) -> RNNTrace:
    """Run h_t = tanh(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh) over x (T, input_size)."""
    x, W_ih, W_hh, b_ih, b_hh, H = _prepare(x, W_ih, W_hh, b_ih, b_hh, 1)
    T = len(x)
    h_prev = _state(h0, H)
    xs, hs, pre, h = (np.empty((T, H)) for _ in range(4))
    x_part = x @ W_ih.T  # (T, H)
    for t in range(T):
        hs[t] = W_hh @ h_prev
        pre[t] = x_part[t] + hs[t] + b_ih + b_hh
        h[t] = h_prev = rnn_cell(pre[t])
    return RNNTrace(x, x_part, hs, pre, h, _state(h0, H))


def lstm_forward(x, W_ih, W_hh, b_ih=None, b_hh=None, h0=None, c0=None) -> LSTMTrace:
    """Run an LSTM cell over x (T, input_size); W_ih (4H, d) and W_hh (4H, H) stack i, f, g, o."""
    x, W_ih, W_hh, b_ih, b_hh, H = _prepare(x, W_ih, W_hh, b_ih, b_hh, 4)
    T = len(x)
    h_prev, c_prev = _state(h0, H), _state(c0, H)
    pre = np.empty((T, 4 * H))
    I, F, G, O, C, Hs = (np.empty((T, H)) for _ in range(6))
    x_part = x @ W_ih.T + b_ih + b_hh  # (T, 4H)
    for t in range(T):
        pre[t] = x_part[t] + W_hh @ h_prev
        h_prev, c_prev, (I[t], F[t], G[t], O[t]) = lstm_cell(pre[t], c_prev)
        Hs[t], C[t] = h_prev, c_prev
    return LSTMTrace(x, pre, I, F, G, O, C, Hs, _state(h0, H), _state(c0, H))


def gru_forward(x, W_ih, W_hh, b_ih=None, b_hh=None, h0=None) -> GRUTrace:
    """Run a GRU cell over x (T, input_size); W_ih (3H, d) and W_hh (3H, H) stack r, z, n."""
    x, W_ih, W_hh, b_ih, b_hh, H = _prepare(x, W_ih, W_hh, b_ih, b_hh, 3)
    T = len(x)
    h_prev = _state(h0, H)
    R, Z, N, HN, Hs = (np.empty((T, H)) for _ in range(5))
    gi = x @ W_ih.T + b_ih  # (T, 3H)
    for t in range(T):
        gh = W_hh @ h_prev + b_hh  # (3H,)
        HN[t] = gh[2 * H:]
        h_prev, (R[t], Z[t], N[t]) = gru_cell(gi[t], gh, h_prev)
        Hs[t] = h_prev
    return GRUTrace(x, R, Z, N, HN, Hs, _state(h0, H))


def output_layer(h: np.ndarray, W_y: np.ndarray, b_y: np.ndarray | None = None) -> np.ndarray:
    """Scores y_t = W_y h_t + b_y for states h (T, H) or (H,); W_y is (K, H)."""
    W_y = np.atleast_2d(np.asarray(W_y, dtype=np.float64))
    y = np.asarray(h, dtype=np.float64) @ W_y.T
    return y if b_y is None else y + np.asarray(b_y, dtype=np.float64)


def one_hot(ids, size: int) -> np.ndarray:
    """Rows of the identity: ids (T,) -> (T, size)."""
    return np.eye(size)[np.asarray(ids, dtype=int)]


def spectral_radius(W: np.ndarray) -> float:
    """Largest |eigenvalue| of a square matrix."""
    return float(np.max(np.abs(np.linalg.eigvals(np.atleast_2d(W))))) if np.size(W) else 0.0


def singular_values(W: np.ndarray) -> np.ndarray:
    """Singular values, largest first."""
    return np.linalg.svd(np.atleast_2d(W), compute_uv=False)


def init_weights(cell: str, input_size: int, hidden_size: int, seed: int = 0, radius: float | None = None,
                 forget_bias: float = 0.0) -> dict[str, np.ndarray]:
    """PyTorch-style uniform(-1/sqrt(H), 1/sqrt(H)) weights; optionally rescale each W_hh block so its
    spectral radius is `radius`, and set the LSTM forget-gate bias (b_ih's f block; b_hh's f block is 0)."""
    G = GATES[cell]
    rng = np.random.default_rng(seed)
    k = 1 / np.sqrt(hidden_size)
    H = hidden_size
    w = {
        "W_ih": rng.uniform(-k, k, (G * H, input_size)),
        "W_hh": rng.uniform(-k, k, (G * H, H)),
        "b_ih": rng.uniform(-k, k, G * H),
        "b_hh": rng.uniform(-k, k, G * H),
    }
    if radius is not None:
        for gblock in range(G):
            blk = w["W_hh"][gblock * H:(gblock + 1) * H]
            rho = spectral_radius(blk)
            if rho > 0:
                blk *= radius / rho
    if cell == "lstm":
        w["b_ih"][H:2 * H] = forget_bias
        w["b_hh"][H:2 * H] = 0.0
    return w


# ---- #25 (recurrences branch): linear, minGRU, minLSTM, LRU and selective cells join the registry ----
from rnnviz.nn.cells.registry_new import register  # noqa: E402

REGISTRY = register(globals().get("REGISTRY", {}))
