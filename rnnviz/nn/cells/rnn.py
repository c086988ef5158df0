"""The vanilla (Elman) cell, torch.nn.RNN's layout: h_t = tanh(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh) (or relu).

Local derivatives: dh_t/dh_{t-1} = diag(tanh'(z_t)) W_hh and dh_t/dx_t = diag(tanh'(z_t)) W_ih, tanh' = 1 - h_t^2.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rnnviz.nn.cells.base import Cell, Presentation, initial_state, prepare, torch_init, torch_param_count


def rnn_cell(pre: np.ndarray, nonlinearity: str = "tanh") -> np.ndarray:
    """Vanilla step h_t = tanh(pre) (or relu), pre = W_ih x_t + b_ih + W_hh h_{t-1} + b_hh; any leading shape."""
    return np.tanh(pre) if nonlinearity == "tanh" else np.maximum(pre, 0)


@dataclass
class RNNTrace:
    """Every step of a vanilla RNN run.

    Attributes:
        x: (T, d) inputs.
        x_part: (T, H) W_ih x_t (read the input).
        h_part: (T, H) W_hh h_{t-1} (read the memory).
        pre: (T, H) pre-activations x_part + h_part + b_ih + b_hh.
        h: (T, H) states h_1..h_T.
        h0: (H,) initial state.
    """

    x: np.ndarray
    x_part: np.ndarray
    h_part: np.ndarray
    pre: np.ndarray
    h: np.ndarray
    h0: np.ndarray

    @property
    def states(self) -> np.ndarray:
        """(T, H): the state the Jacobians act on is h."""
        return self.h


def rnn_forward(x, W_ih, W_hh, b_ih=None, b_hh=None, h0=None, nonlinearity: str = "tanh") -> RNNTrace:
    """Run h_t = tanh(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh) over x (T, input_size)."""
    x, W_ih, W_hh, b_ih, b_hh, H = prepare(x, W_ih, W_hh, b_ih, b_hh, 1)
    T = len(x)
    h_prev = initial_state(h0, H)
    hs, pre, h = (np.empty((T, H)) for _ in range(3))
    x_part = x @ W_ih.T  # (T, H)
    for t in range(T):
        hs[t] = W_hh @ h_prev
        pre[t] = x_part[t] + hs[t] + b_ih + b_hh
        h[t] = h_prev = rnn_cell(pre[t], nonlinearity)
    return RNNTrace(x, x_part, hs, pre, h, initial_state(h0, H))


class RNN(Cell):
    """The vanilla cell: one block, no gates; its state is h."""

    name = "rnn"
    presentation = Presentation("vanilla RNN", "#222222", "circle", title="Vanilla RNN", short="vanilla")
    gates = ("h",)
    torch_module = "RNN"
    compared = True
    nonlinearities = ("tanh", "relu")

    def __init__(self, nonlinearity: str = "tanh"):
        if nonlinearity not in self.nonlinearities:
            raise ValueError(f"nonlinearity must be tanh or relu, not {nonlinearity!r}")
        self.nonlinearity = nonlinearity

    def with_nonlinearity(self, nonlinearity: str) -> "RNN":
        return self if nonlinearity == self.nonlinearity else RNN(nonlinearity)

    def init(self, input_size, hidden_size, rng):
        return torch_init(1, input_size, hidden_size, rng)

    def param_count(self, input_size, hidden_size):
        return torch_param_count(1, input_size, hidden_size)

    def forward(self, params, x, state0=None) -> RNNTrace:
        return rnn_forward(x, params["W_ih"], params["W_hh"], params.get("b_ih"), params.get("b_hh"), state0,
                           self.nonlinearity)

    def step(self, gi, gh, h, c):
        pre = gi if gh is None else gi + gh
        h = rnn_cell(pre, self.nonlinearity)
        return h, c, {"pre": pre, "h": h}

    def parts(self, trace: RNNTrace):
        return {"pre": trace.pre, "h": trace.h}

    def local(self, parts):
        if self.nonlinearity == "tanh":
            return {"act": 1 - parts["h"] ** 2}  # tanh'(z) from h = tanh(z)
        return {"act": (parts["pre"] > 0).astype(parts["pre"].dtype)}  # relu'(z)

    def backward(self, local, dh, dc=None):
        dz = dh * local["act"]
        return dz, dz, 0, dc

    def step_jacobians(self, params, trace: RNNTrace) -> np.ndarray:
        """dh_s/dh_{s-1} = diag(tanh'(z_s)) W_hh for s = 1..T: (T, H, H)."""
        W_hh = np.atleast_2d(np.asarray(params["W_hh"], dtype=np.float64))
        return self.local(self.parts(trace))["act"][:, :, None] * W_hh

    def input_jacobians(self, params, trace: RNNTrace) -> np.ndarray:
        """dh_s/dx_s = diag(tanh'(z_s)) W_ih for s = 1..T: (T, H, d)."""
        W_ih = np.atleast_2d(np.asarray(params["W_ih"], dtype=np.float64))
        return self.local(self.parts(trace))["act"][:, :, None] * W_ih

    def gradient_factors(self, params, trace: RNNTrace) -> dict[str, np.ndarray]:
        """A step's factor diag(tanh'(z_s)) W_hh in its two parts: tanh'(z_s) = 1 - h_s^2 (T, H) and ||W_hh||_2 (T,)."""
        W = np.atleast_2d(np.asarray(params["W_hh"], dtype=np.float64))
        return {"tanh_prime": 1 - trace.h ** 2, "w_norm": np.full(len(trace.h), np.linalg.norm(W, 2))}
