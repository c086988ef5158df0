"""The GRU cell (Cho et al. 2014), torch.nn.GRU's layout and gate order r, z, n:
    n_t = tanh(W_in x_t + b_in + r_t * (W_hn h_{t-1} + b_hn)),   h_t = (1 - z_t) * n_t + z_t * h_{t-1}.
The update gate z is the GRU's copy path: dh_t/dh_{t-1} = diag(z_t) + (the paths through r, z and n).
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


def gru_cell(gi: np.ndarray, gh: np.ndarray, h_prev: np.ndarray) -> tuple[np.ndarray, tuple]:
    """GRU step from gi = W_ih x_t + b_ih and gh = W_hh h_{t-1} + b_hh (..., 3H): returns h_t and (r, z, n)."""
    H = gi.shape[-1] // 3
    r = sigmoid(gi[..., :H] + gh[..., :H])  # reset gate: how much memory the candidate reads
    z = sigmoid(gi[..., H:2 * H] + gh[..., H:2 * H])  # update gate: how much of h_{t-1} to keep
    n = np.tanh(gi[..., 2 * H:] + r * gh[..., 2 * H:])  # candidate
    return (1 - z) * n + z * h_prev, (r, z, n)


@dataclass
class GRUTrace:
    """Every step of a GRU run; gates in torch order r, z, n.

    Attributes:
        x: (T, d) inputs.
        r: (T, H) reset gate.
        z: (T, H) update gate.
        n: (T, H) candidate.
        hn_part: (T, H) W_hn h_{t-1} + b_hn, the memory term the reset gate scales.
        h: (T, H) states h_1..h_T.
        h0: (H,) initial state.
    """

    x: np.ndarray
    r: np.ndarray
    z: np.ndarray
    n: np.ndarray
    hn_part: np.ndarray
    h: np.ndarray
    h0: np.ndarray

    @property
    def states(self) -> np.ndarray:
        """(T, H): the state the Jacobians act on is h."""
        return self.h


def gru_forward(x, W_ih, W_hh, b_ih=None, b_hh=None, h0=None) -> GRUTrace:
    """Run a GRU cell over x (T, input_size); W_ih (3H, d) and W_hh (3H, H) stack r, z, n."""
    x, W_ih, W_hh, b_ih, b_hh, H = prepare(x, W_ih, W_hh, b_ih, b_hh, 3)
    T = len(x)
    h_prev = initial_state(h0, H)
    R, Z, N, HN, Hs = (np.empty((T, H)) for _ in range(5))
    gi = x @ W_ih.T + b_ih  # (T, 3H)
    for t in range(T):
        gh = W_hh @ h_prev + b_hh  # (3H,)
        HN[t] = gh[2 * H:]
        h_prev, (R[t], Z[t], N[t]) = gru_cell(gi[t], gh, h_prev)
        Hs[t] = h_prev
    return GRUTrace(x, R, Z, N, HN, Hs, initial_state(h0, H))


class GRU(Cell):
    """Three gate blocks; its state is h, which the update gate copies forward."""

    name = "gru"
    presentation = Presentation("GRU", "#CC79A7", "diamond", panels=("r", "z", "n", "h"),
                                lockstep_panels=("r", "z", "h"))
    gates = ("r", "z", "n")
    torch_module = "GRU"
    compared = True
    sigmoid_gates = ("r", "z")
    keep_gate = "z"
    sums_inputs = False  # the reset gate scales W_hn h_{t-1} + b_hn alone

    def init(self, input_size, hidden_size, rng):
        return torch_init(3, input_size, hidden_size, rng)

    def param_count(self, input_size, hidden_size):
        return torch_param_count(3, input_size, hidden_size)

    def forward(self, params, x, state0=None) -> GRUTrace:
        return gru_forward(x, params["W_ih"], params["W_hh"], params.get("b_ih"), params.get("b_hh"), state0)

    def step(self, gi, gh, h, c):
        h_new, (r, z, n) = gru_cell(gi, gh, h)
        return h_new, c, {"r": r, "z": z, "n": n, "hn": gh[..., 2 * (gi.shape[-1] // 3):], "h_prev": h}

    def parts(self, trace: GRUTrace):
        return {"r": trace.r, "z": trace.z, "n": trace.n, "hn": trace.hn_part, "h_prev": previous(trace.h, trace.h0)}

    def local(self, parts):
        r, z, n = parts["r"], parts["z"], parts["n"]
        return {
            "r": r * (1 - r),  # sigmoid' of the reset gate
            "z": z * (1 - z),  # sigmoid' of the update gate
            "n": 1 - n ** 2,  # tanh' of the candidate
            "reset": r,  # dn's pre-activation / d(W_hn h + b_hn)
            "hn": parts["hn"],  # d(n's pre-activation) / dr
            "keep": z,  # dh_t / dh_{t-1} along the copy path
            "gap": parts["h_prev"] - n,  # dh_t / dz
        }

    def backward(self, local, dh, dc=None):
        dn = dh * (1 - local["keep"]) * local["n"]
        dr = dn * local["hn"] * local["r"]
        dz = dh * local["gap"] * local["z"]
        return (np.concatenate([dr, dz, dn], axis=-1), np.concatenate([dr, dz, dn * local["reset"]], axis=-1),
                dh * local["keep"], dc)

    def _jacobian(self, local, W: np.ndarray, W_n: np.ndarray, direct=0.0) -> np.ndarray:
        """dh_t/dv (T, H, n) for v read through W (3H, n); W_n is what n's pre-activation reads v through
        (r * W_hn for h_{t-1}, W_in for x_t); `direct` is the path that bypasses the gates (diag(z) for h_{t-1})."""
        Wr, Wz, _ = blocks(W, 3)
        col = lambda k: local[k][:, :, None]  # noqa: E731  (a row scale for every step)
        dr, dz = col("r") * Wr, col("z") * Wz
        dn = col("n") * (W_n + col("hn") * dr)
        return direct + col("gap") * dz + (1 - col("keep")) * dn

    def step_jacobians(self, params, trace: GRUTrace) -> np.ndarray:
        """dh_s/dh_{s-1} = diag(z) + diag(h_{s-1} - n) dz/dh + diag(1 - z) dn/dh for s = 1..T: (T, H, H)."""
        W_hh = np.atleast_2d(np.asarray(params["W_hh"], dtype=np.float64))
        local = self.local(self.parts(trace))
        T, H = trace.h.shape
        copy = np.zeros((T, H, H))
        copy[:, np.arange(H), np.arange(H)] = local["keep"]  # diag(z_s)
        return self._jacobian(local, W_hh, local["reset"][:, :, None] * blocks(W_hh, 3)[2], copy)

    def input_jacobians(self, params, trace: GRUTrace) -> np.ndarray:
        """dh_s/dx_s = diag(h_{s-1} - n) dz/dx + diag(1 - z) dn/dx for s = 1..T: (T, H, d)."""
        W_ih = np.atleast_2d(np.asarray(params["W_ih"], dtype=np.float64))
        return self._jacobian(self.local(self.parts(trace)), W_ih, blocks(W_ih, 3)[2])

    def gradient_factors(self, params, trace: GRUTrace) -> dict[str, np.ndarray]:
        """The update gates z_s (T, H): the GRU's copy path."""
        return {"update": trace.z.copy()}
