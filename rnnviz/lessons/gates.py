"""Gated cells for the gates page: generated LSTM/GRU weights, one step's gate values, three cells in lockstep
with matched parameter counts, and the valve experiment (the words, and the valve's cache, are the app's:
ui/lessons/gates.py).

The valve experiment (a one-unit LSTM whose forget gate stays open and whose input gate shuts after the
first step) keeps the first input in its cell state for hundreds of steps; a vanilla unit loses it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rnnviz.nn.cells import (
    GRUTrace,
    LSTMTrace,
    RNNTrace,
    compared,
    get,
    init_weights,
    lstm_forward,
    rnn_forward,
    sigmoid,
)
from rnnviz.nn.params import cell_params
from rnnviz.nn.torch_ref import import_torch, torch_cell


def panels(cell: str) -> list[str]:
    """One step's heatmaps of `cell` on the gates page, top to bottom: its gates, then its states."""
    return list(get(cell).presentation.panels)


def budget_cell(cells: tuple[str, ...] | None = None) -> str:
    """The cell whose hidden size sets the lockstep's parameter budget: the first with a forget gate (the LSTM)
    among `cells` (default: those compared, `cells.compared`)."""
    return next(c for c in cells or compared() if get(c).forget_gate is not None)


def generate(cell: str, d: int, H: int, seed: int, radius: float | None,
             forget_bias: float = 0.0) -> dict[str, np.ndarray]:
    """Seeded weights in torch layout; each W_hh gate block rescaled to `radius`; LSTM b_f set."""
    return init_weights(cell, d, H, seed=seed, radius=radius, forget_bias=forget_bias)


def run(cell: str, x: np.ndarray, w: dict[str, np.ndarray]) -> RNNTrace | LSTMTrace | GRUTrace:
    """The traced forward pass of `cell` over x (T, d) from a zero state."""
    return get(cell).forward(w, x)


def step_values(cell: str, trace, t: int) -> dict[str, np.ndarray]:
    """Every gate and state at step t (1-based), in the order the equations use them."""
    k = t - 1
    kind = get(cell)
    if kind.has_cell_state:
        c_prev = trace.c[k - 1] if k else trace.c0
        return {"f": trace.f[k], "i": trace.i[k], "g": trace.g[k], "o": trace.o[k], "c_prev": c_prev,
                "f*c_prev": trace.f[k] * c_prev, "i*g": trace.i[k] * trace.g[k], "c": trace.c[k],
                "tanh(c)": np.tanh(trace.c[k]), "h": trace.h[k]}
    h_prev = trace.h[k - 1] if k else trace.h0
    if not kind.sigmoid_gates:
        return {"h_prev": h_prev, "h": trace.h[k]}
    return {"r": trace.r[k], "z": trace.z[k], "n": trace.n[k], "h_prev": h_prev,
            "(1-z)*n": (1 - trace.z[k]) * trace.n[k], "z*h_prev": trace.z[k] * h_prev, "h": trace.h[k]}


def shape_summary(cell: str, d: int, H: int) -> dict[str, object]:
    """The stacked-matrix view: G gate blocks, one matrix G*H x (H + d), and the torch parameter count."""
    G = len(get(cell).gates)
    return {"G": G, "stacked": (G * H, H + d), "W_ih": (G * H, d), "W_hh": (G * H, H),
            "params": cell_params(cell, d, H)}


# ---- three cells in lockstep ---------------------------------------------------------------------

def matched_size(cell: str, input_size: int, budget: int) -> int:
    """The hidden size whose parameter count (as torch counts it) is closest to `budget`; the smaller on a tie."""
    best, H = 1, 1
    while True:
        n = cell_params(cell, input_size, H)
        if abs(n - budget) < abs(cell_params(cell, input_size, best) - budget):
            best = H
        if n >= budget:
            return best
        H += 1


@dataclass
class Lockstep:
    """A vanilla RNN, an LSTM and a GRU with about the same number of parameters, run on the same input.

    Attributes:
        x: (T, d) the input.
        budget: the LSTM's parameter count, which the others match.
        sizes: hidden size per cell.
        params: parameter count per cell.
        weights: torch-layout weights per cell.
        traces: each cell's traced forward pass over x.
    """

    x: np.ndarray
    budget: int
    sizes: dict[str, int]
    params: dict[str, int]
    weights: dict[str, dict[str, np.ndarray]]
    traces: dict[str, RNNTrace | LSTMTrace | GRUTrace]


def lockstep(x: np.ndarray, lstm_hidden: int, seed: int = 0, radius: float | None = None,
             forget_bias: float = 0.0) -> Lockstep:
    """Size the RNN and GRU to the parameter count of an LSTM with `lstm_hidden` units; seeded weights
    (each W_hh block rescaled to `radius`, the LSTM's forget bias set); the three traced forward passes."""
    d = x.shape[1]
    budget = cell_params(budget_cell(), d, lstm_hidden)
    cells = compared()
    sizes = {c: matched_size(c, d, budget) for c in cells}  # the LSTM's own count is the budget: it keeps its H
    weights = {c: init_weights(c, d, sizes[c], seed=seed, radius=radius, forget_bias=forget_bias) for c in cells}
    return Lockstep(x, budget, sizes, {c: cell_params(c, d, sizes[c]) for c in cells}, weights,
                    {c: run(c, x, weights[c]) for c in cells})


def lockstep_torch(ls: Lockstep) -> dict[str, tuple[float, int]]:
    """torch.nn.RNN/LSTM/GRU on the same weights and input: per cell the max |difference| of every state
    (and the LSTM's cell states) and torch's own parameter count."""
    torch = import_torch()
    out = {}
    for c in [c for c in ls.traces if get(c).torch_module]:  # a compared cell torch lacks has no reference here
        m = torch_cell(c, ls.weights[c])
        with torch.no_grad():
            h, last = m(torch.from_numpy(np.ascontiguousarray(ls.x))[None])
        diff = float(np.abs(h[0].numpy() - ls.traces[c].h).max())
        if get(c).has_cell_state:
            diff = max(diff, float(np.abs(last[1][0, 0].numpy() - ls.traces[c].c[-1]).max()))
        out[c] = (diff, sum(p.numel() for p in m.parameters()))
    return out


# ---- the valve -----------------------------------------------------------------------------------

@dataclass
class Valve:
    """The valve experiment's runs over the same input: 1 then zeros.

    Attributes:
        x: (T,) the input.
        lstm: the one-unit LSTM's trace.
        rnn: the one-unit vanilla RNN's trace.
        weights: the one-unit LSTM's weights, by name.
    """

    x: np.ndarray
    lstm: LSTMTrace
    rnn: RNNTrace
    weights: dict[str, float]


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
    weights = {"w_i": 2 * a, "b_i": -a, "b_f": a, "w_g": 1.0, "b_o": a, "w_h": w_h,
               "f": float(sigmoid(a)), "i (x=1)": float(sigmoid(a)), "i (x=0)": float(sigmoid(-a))}
    return Valve(x, lstm, rnn, weights)
