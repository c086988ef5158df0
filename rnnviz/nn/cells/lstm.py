"""The LSTM cell (Hochreiter and Schmidhuber 1997, with a forget gate), torch.nn.LSTM's layout, gate order i, f, g, o:
    c_t = f_t * c_{t-1} + i_t * g_t,   h_t = o_t * tanh(c_t).
Its state for the Jacobians is (h, c) stacked, 2H entries; the c->c block of a step is diag(f_t), the additive path.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rnnviz.nn.cells.base import (
    Cell,
    Presentation,
    blocks,
    initial_state,
    prepare,
    previous,
    sigmoid,
    torch_init,
    torch_param_count,
)


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


@dataclass
class LSTMTrace:
    """Every step of an LSTM run; gates in torch order i, f, g, o.

    Attributes:
        x: (T, d) inputs.
        pre: (T, 4H) all four pre-activations.
        i: (T, H) input gate.
        f: (T, H) forget gate.
        g: (T, H) candidate.
        o: (T, H) output gate.
        c: (T, H) cell states c_1..c_T.
        h: (T, H) hidden states h_1..h_T.
        h0: (H,) initial hidden state.
        c0: (H,) initial cell state.
    """

    x: np.ndarray
    pre: np.ndarray
    i: np.ndarray
    f: np.ndarray
    g: np.ndarray
    o: np.ndarray
    c: np.ndarray
    h: np.ndarray
    h0: np.ndarray
    c0: np.ndarray

    @property
    def states(self) -> np.ndarray:
        """(T, 2H): (h_t, c_t) stacked, the state the Jacobians act on."""
        return np.concatenate([self.h, self.c], axis=1)


def lstm_forward(x, W_ih, W_hh, b_ih=None, b_hh=None, h0=None, c0=None) -> LSTMTrace:
    """Run an LSTM cell over x (T, input_size); W_ih (4H, d) and W_hh (4H, H) stack i, f, g, o."""
    x, W_ih, W_hh, b_ih, b_hh, H = prepare(x, W_ih, W_hh, b_ih, b_hh, 4)
    T = len(x)
    h_prev, c_prev = initial_state(h0, H), initial_state(c0, H)
    pre = np.empty((T, 4 * H))
    I, F, G, O, C, Hs = (np.empty((T, H)) for _ in range(6))
    x_part = x @ W_ih.T + b_ih + b_hh  # (T, 4H)
    for t in range(T):
        pre[t] = x_part[t] + W_hh @ h_prev
        h_prev, c_prev, (I[t], F[t], G[t], O[t]) = lstm_cell(pre[t], c_prev)
        Hs[t], C[t] = h_prev, c_prev
    return LSTMTrace(x, pre, I, F, G, O, C, Hs, initial_state(h0, H), initial_state(c0, H))


class LSTM(Cell):
    """Four gate blocks and a cell state c beside h."""

    name = "lstm"
    presentation = Presentation("LSTM", "#0072B2", "square", second_color="#56B4E9",
                                panels=("f", "i", "g", "o", "c", "h"), lockstep_panels=("f", "i", "o", "c", "h"))
    gates = ("i", "f", "g", "o")
    torch_module = "LSTM"
    compared = True
    has_cell_state = True
    sigmoid_gates = ("i", "f", "o")
    forget_gate = "f"
    keep_gate = "f"

    def state_size(self, hidden_size):
        return 2 * hidden_size

    def init(self, input_size, hidden_size, rng):
        return torch_init(4, input_size, hidden_size, rng)

    def param_count(self, input_size, hidden_size):
        return torch_param_count(4, input_size, hidden_size)

    def forward(self, params, x, state0=None) -> LSTMTrace:
        h0 = c0 = None
        if state0 is not None:
            h0, c0 = np.split(np.asarray(state0, dtype=np.float64), 2)
        return lstm_forward(x, params["W_ih"], params["W_hh"], params.get("b_ih"), params.get("b_hh"), h0, c0)

    def step(self, gi, gh, h, c):
        h_new, c_new, (i, f, g, o) = lstm_cell(gi if gh is None else gi + gh, c)
        return h_new, c_new, {"i": i, "f": f, "g": g, "o": o, "c": c_new, "c_prev": c}

    def parts(self, trace: LSTMTrace):
        return {"i": trace.i, "f": trace.f, "g": trace.g, "o": trace.o, "c": trace.c,
                "c_prev": previous(trace.c, trace.c0)}

    def local(self, parts):
        i, f, g, o, c, c_prev = (parts[k] for k in ("i", "f", "g", "o", "c", "c_prev"))
        tc = np.tanh(c)
        return {
            "i": g * i * (1 - i),  # dc_t / d(i's pre-activation)
            "f": c_prev * f * (1 - f),  # dc_t / d(f's pre-activation)
            "g": i * (1 - g ** 2),  # dc_t / d(g's pre-activation)
            "o": tc * o * (1 - o),  # dh_t / d(o's pre-activation)
            "dh_dc": o * (1 - tc ** 2),  # dh_t / dc_t
            "dc_dc": f,  # dc_t / dc_{t-1}, the additive path
        }

    def backward(self, local, dh, dc=None):
        dcs = dh * local["dh_dc"] if dc is None else dc + dh * local["dh_dc"]  # dL/dc_t, all of it
        dz = np.concatenate([dcs * local["i"], dcs * local["f"], dcs * local["g"], dh * local["o"]], axis=-1)
        return dz, dz, 0, dcs * local["dc_dc"]

    def _jacobians(self, local: dict[str, np.ndarray], W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(dh_t/dv, dc_t/dv), each (T, H, n), for v read through the stacked matrix W (4H, n): h_{t-1} or x_t."""
        Wi, Wf, Wg, Wo = blocks(W, 4)
        col = lambda k: local[k][:, :, None]  # noqa: E731  (a row scale for every step)
        dc = col("f") * Wf + col("i") * Wi + col("g") * Wg
        return col("o") * Wo + col("dh_dc") * dc, dc

    def step_jacobians(self, params, trace: LSTMTrace) -> np.ndarray:
        """The 2H x 2H Jacobian of (h_s, c_s) with respect to (h_{s-1}, c_{s-1}) for s = 1..T: (T, 2H, 2H)."""
        W_hh = np.atleast_2d(np.asarray(params["W_hh"], dtype=np.float64))
        T, H = trace.h.shape
        local = self.local(self.parts(trace))
        dh_dh, dc_dh = self._jacobians(local, W_hh)
        M = np.zeros((T, 2 * H, 2 * H))
        M[:, :H, :H], M[:, H:, :H] = dh_dh, dc_dh
        u = np.arange(H)
        M[:, u, H + u] = local["dh_dc"] * local["dc_dc"]  # dh_s/dc_{s-1} = diag(o tanh'(c_s) f)
        M[:, H + u, H + u] = local["dc_dc"]  # dc_s/dc_{s-1} = diag(f)
        return M

    def input_jacobians(self, params, trace: LSTMTrace) -> np.ndarray:
        """d (h_s, c_s) / d x_s for s = 1..T: (T, 2H, d)."""
        W_ih = np.atleast_2d(np.asarray(params["W_ih"], dtype=np.float64))
        return np.concatenate(self._jacobians(self.local(self.parts(trace)), W_ih), axis=1)

    def gradient_factors(self, params, trace: LSTMTrace) -> dict[str, np.ndarray]:
        """The forget gates f_s (T, H): c's additive path multiplies by them alone."""
        return {"forget": trace.f.copy()}
