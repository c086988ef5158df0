"""Gated cells for the gates page: generated LSTM/GRU weights, one step's gate values, the valve experiment.

The valve experiment (a one-unit LSTM whose forget gate stays open and whose input gate shuts after the
first step) keeps the first input in its cell state for hundreds of steps; a vanilla unit loses it.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from rnnviz.nn.cells import GRUTrace, LSTMTrace, RNNTrace, gru_forward, init_weights, lstm_forward, rnn_forward, sigmoid
from rnnviz.nn.params import cell_params


def generate(cell: str, d: int, H: int, seed: int, radius: float | None, forget_bias: float = 0.0) -> dict[str, np.ndarray]:
    """Seeded weights in torch layout; each W_hh gate block rescaled to `radius`; LSTM b_f set."""
    return init_weights(cell, d, H, seed=seed, radius=radius, forget_bias=forget_bias)


def run(cell: str, x: np.ndarray, w: dict[str, np.ndarray]) -> LSTMTrace | GRUTrace:
    return (lstm_forward if cell == "lstm" else gru_forward)(x, **w)


def step_values(cell: str, trace, t: int) -> dict[str, np.ndarray]:
    """Every gate and state at step t (1-based), in the order the equations use them."""
    k = t - 1
    if cell == "lstm":
        c_prev = trace.c[k - 1] if k else trace.c0
        return {"f": trace.f[k], "i": trace.i[k], "g": trace.g[k], "o": trace.o[k], "c_prev": c_prev,
                "f*c_prev": trace.f[k] * c_prev, "i*g": trace.i[k] * trace.g[k], "c": trace.c[k],
                "tanh(c)": np.tanh(trace.c[k]), "h": trace.h[k]}
    h_prev = trace.h[k - 1] if k else trace.h0
    return {"r": trace.r[k], "z": trace.z[k], "n": trace.n[k], "h_prev": h_prev,
            "(1-z)*n": (1 - trace.z[k]) * trace.n[k], "z*h_prev": trace.z[k] * h_prev, "h": trace.h[k]}


def shape_summary(cell: str, d: int, H: int) -> dict[str, object]:
    """The stacked-matrix view: G gate blocks, one matrix G*H x (H + d), and the torch parameter count."""
    G = {"lstm": 4, "gru": 3, "rnn": 1}[cell]
    return {"G": G, "stacked": (G * H, H + d), "W_ih": (G * H, d), "W_hh": (G * H, H), "params": cell_params(cell, d, H)}


@dataclass
class Valve:
    """The valve experiment's runs over the same input: 1 then zeros."""

    x: np.ndarray  # (T,)
    lstm: LSTMTrace
    rnn: RNNTrace
    weights: dict[str, float]  # the one-unit LSTM's weights, by name


@functools.lru_cache(maxsize=16)
def valve_experiment(T: int = 400, w_h: float = 0.5, gate_gain: float = 20.0) -> Valve:
    """A one-unit LSTM with forget gate sigma(gain) ~ 1 always, input gate open only when x = 1,
    candidate tanh(x), output gate ~ 1; beside a vanilla unit tanh(x_t + w_h h_{t-1})."""
    x = np.zeros(T)
    x[0] = 1.0
    a = gate_gain
    # rows in torch order i, f, g, o; input weights (4, 1), recurrent weights 0
    W_ih = np.array([[2 * a], [0.0], [1.0], [0.0]])
    b_ih = np.array([-a, a, 0.0, a])
    lstm = lstm_forward(x[:, None], W_ih, np.zeros((4, 1)), b_ih, None)
    rnn = rnn_forward(x, 1.0, w_h)
    for tr in (lstm, rnn):  # cached and shared between sessions: read-only
        for arr in vars(tr).values():
            arr.setflags(write=False)
    weights = {"w_i": 2 * a, "b_i": -a, "b_f": a, "w_g": 1.0, "b_o": a,
               "f": float(sigmoid(a)), "i (x=1)": float(sigmoid(a)), "i (x=0)": float(sigmoid(-a))}
    return Valve(x, lstm, rnn, weights)
