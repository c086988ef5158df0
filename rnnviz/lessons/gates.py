"""Gated cells for the gates page: generated LSTM/GRU weights, one step's gate values, three cells in lockstep
with matched parameter counts, and the valve experiment.

The valve experiment (a one-unit LSTM whose forget gate stays open and whose input gate shuts after the
first step) keeps the first input in its cell state for hundreds of steps; a vanilla unit loses it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from rnnviz.lessons.cache import SharedCache
from rnnviz.nn.cells import (
    GRUTrace,
    LSTMTrace,
    RNNTrace,
    get,
    init_weights,
    lstm_forward,
    rnn_forward,
    sigmoid,
)
from rnnviz.nn.params import cell_params
from rnnviz.nn.torch_ref import import_torch, torch_cell

CELLS = ("rnn", "lstm", "gru")
SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
CELL_NAMES = {"rnn": "Vanilla RNN", "lstm": "LSTM", "gru": "GRU"}

# One equation per line where a line would otherwise run past a 1400 px column (the GRU's).
EQUATIONS = {
    "lstm": r"""\begin{aligned}
f_t &= \sigma(W_f[h_{t-1}, x_t] + b_f) & i_t &= \sigma(W_i[h_{t-1}, x_t] + b_i) \\
g_t &= \tanh(W_g[h_{t-1}, x_t] + b_g) & o_t &= \sigma(W_o[h_{t-1}, x_t] + b_o) \\
c_t &= f_t \odot c_{t-1} + i_t \odot g_t & h_t &= o_t \odot \tanh(c_t)
\end{aligned}""",
    "gru": r"""\begin{aligned}
r_t &= \sigma(W_{ir} x_t + b_{ir} + W_{hr} h_{t-1} + b_{hr}) \\
z_t &= \sigma(W_{iz} x_t + b_{iz} + W_{hz} h_{t-1} + b_{hz}) \\
n_t &= \tanh\big(W_{in} x_t + b_{in} + r_t \odot (W_{hn} h_{t-1} + b_{hn})\big) \\
h_t &= (1 - z_t) \odot n_t + z_t \odot h_{t-1}
\end{aligned}""",
}
SYMBOLS = {
    "lstm": "$x_t$: the input at step $t$; $h_{t-1}$: the previous hidden state; $[h_{t-1}, x_t]$: the two stacked "
            "into one vector; $W_\\bullet, b_\\bullet$: each gate's weights and bias. $\\sigma$, the sigmoid, squashes "
            "to (0, 1), so a gate is a dial from shut (0) to open (1); $\\tanh$ squashes to (−1, 1); $\\odot$ multiplies "
            "entry by entry. $f$ forget (how much of $c_{t-1}$ to keep), $i$ input (how much of the candidate $g$ to "
            "write), $o$ output (how much of the cell to show), $c$ the cell state, $h$ the hidden state.",
    "gru": "$x_t$: the input at step $t$; $h_{t-1}$: the previous state; $W_{i\\bullet}, b_{i\\bullet}$ read the input "
           "and $W_{h\\bullet}, b_{h\\bullet}$ read the memory (PyTorch's names). $\\sigma$, the sigmoid, squashes to (0, 1), "
           "so a gate is a dial from shut (0) to open (1); $\\tanh$ squashes to (−1, 1); $\\odot$ multiplies entry by "
           "entry. $r$ reset (how much memory the candidate reads), $z$ update (how much of $h_{t-1}$ to keep), "
           "$n$ the candidate, $h$ the state.",
}
# Column headers of the step table, with real subscripts (st.table renders markdown and LaTeX).
HEADERS = {"f": "$f_t$", "i": "$i_t$", "g": "$g_t$", "o": "$o_t$", "c_prev": "$c_{t-1}$", "f*c_prev": "$f_t \\odot c_{t-1}$",
           "i*g": "$i_t \\odot g_t$", "c": "$c_t$", "tanh(c)": "$\\tanh(c_t)$", "h": "$h_t$", "r": "$r_t$", "z": "$z_t$",
           "n": "$n_t$", "h_prev": "$h_{t-1}$", "(1-z)*n": "$(1 - z_t) \\odot n_t$", "z*h_prev": "$z_t \\odot h_{t-1}$"}
PANELS = {"lstm": ["f", "i", "g", "o", "c", "h"], "gru": ["r", "z", "n", "h"], "rnn": ["h"]}
LOCKSTEP_PANELS = {"rnn": ["h"], "lstm": ["f", "i", "o", "c", "h"], "gru": ["r", "z", "h"]}  # gates, then states


def generate(cell: str, d: int, H: int, seed: int, radius: float | None, forget_bias: float = 0.0) -> dict[str, np.ndarray]:
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


def forget_caption(bf: float) -> str:
    """Where the forget gates start for a bias b_f (markdown)."""
    return (f"With nothing else feeding it, $\\sigma(b_f)$ = σ({bf:g}) = **{float(sigmoid(bf)):.3f}**: that is "
            "where each forget gate starts (σ, the sigmoid, maps any number into (0, 1)).")


def step_alt(names: list[str], values: dict[str, np.ndarray], t: int) -> str:
    """Text alternative for the gate heatmap: what it shows, and the current step's values."""
    return (f"gates and states over time for {', '.join(names)}; at step {t}: "
            + "; ".join(f"{n} = " + ", ".join(f"{v:.2f}" for v in values[n]) for n in names))


def step_table(values: dict[str, np.ndarray], digits: int = 4) -> pd.DataFrame:
    """One step's numbers, units down, with LaTeX column headers; values rounded for display."""
    H = len(next(iter(values.values())))
    return pd.DataFrame({HEADERS.get(k, k): np.round(v, digits) for k, v in values.items()},
                        index=[f"unit {k + 1}" for k in range(H)])


def step_sentence(cell: str, values: dict[str, np.ndarray]) -> str:
    """What the gates did on average at this step, in words (markdown; subscripts as Unicode characters, so this
    line, redrawn at every step, needs no math typesetting)."""
    if get(cell).forget_gate:
        return (f"On average the forget gates keep **{np.mean(values['f']):.0%}** of cₜ₋₁ and the input gates let in "
                f"**{np.mean(values['i']):.0%}** of the candidate gₜ.")
    return (f"On average the update gates keep **{np.mean(values['z']):.0%}** of hₜ₋₁ and take "
            f"**{1 - np.mean(values['z']):.0%}** from the candidate nₜ; the reset gates let the candidate read "
            f"**{np.mean(values['r']):.0%}** of the memory.")


def shape_summary(cell: str, d: int, H: int) -> dict[str, object]:
    """The stacked-matrix view: G gate blocks, one matrix G*H x (H + d), and the torch parameter count."""
    G = len(get(cell).gates)
    return {"G": G, "stacked": (G * H, H + d), "W_ih": (G * H, d), "W_hh": (G * H, H), "params": cell_params(cell, d, H)}


def shape_text(cell: str, d: int, H: int) -> str:
    """The shapes paragraph (markdown), every number computed."""
    s = shape_summary(cell, d, H)
    return (f"**Shapes.** {s['G']} gate blocks stacked, for d = {d} inputs and H = {H} units: one matrix of "
            f"{s['G']}H × (H + d) = **{s['stacked'][0]} × {s['stacked'][1]}** (PyTorch keeps it as $W_{{ih}}$ "
            f"{s['W_ih'][0]} × {s['W_ih'][1]} and $W_{{hh}}$ {s['W_hh'][0]} × {s['W_hh'][1]}); **{s['params']:,}** "
            "parameters with both bias vectors.")


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
    """A vanilla RNN, an LSTM and a GRU with about the same number of parameters, run on the same input."""

    x: np.ndarray  # (T, d)
    budget: int  # the LSTM's parameter count, which the others match
    sizes: dict[str, int]  # hidden size per cell
    params: dict[str, int]  # parameter count per cell
    weights: dict[str, dict[str, np.ndarray]]  # torch-layout weights per cell
    traces: dict[str, RNNTrace | LSTMTrace | GRUTrace]


def lockstep(x: np.ndarray, lstm_hidden: int, seed: int = 0, radius: float | None = None,
             forget_bias: float = 0.0) -> Lockstep:
    """Size the RNN and GRU to the parameter count of an LSTM with `lstm_hidden` units; seeded weights
    (each W_hh block rescaled to `radius`, the LSTM's forget bias set); the three traced forward passes."""
    d = x.shape[1]
    budget = cell_params("lstm", d, lstm_hidden)
    sizes = {c: matched_size(c, d, budget) for c in CELLS}  # the LSTM's own count is the budget: it keeps its H
    weights = {c: init_weights(c, d, sizes[c], seed=seed, radius=radius, forget_bias=forget_bias) for c in CELLS}
    return Lockstep(x, budget, sizes, {c: cell_params(c, d, sizes[c]) for c in CELLS}, weights,
                    {c: run(c, x, weights[c]) for c in CELLS})


def lockstep_notes(ls: Lockstep, t: int) -> dict[str, str]:
    """Per cell at step t: the length of its state, then the mean of each gate on a second line (chart markup); two
    short lines, as the three cells' titles share the width of a 1024 px projector."""
    notes = {}
    for c in CELLS:
        tr, k = ls.traces[c], t - 1
        gates = {"lstm": ("f", "i", "o"), "gru": ("r", "z"), "rnn": ()}[c]
        means = " · ".join(f"{g}<sub>t</sub> {np.mean(getattr(tr, g)[k]):.2f}" for g in gates)
        notes[c] = f"‖h<sub>t</sub>‖ {np.linalg.norm(tr.h[k]):.3f}" + (f"<br>mean {means}" if gates else "")
    return notes


LOCKSTEP_KEY = ("$H$: hidden size (units per state); ‖hₜ‖: the length of the state vector, "
                "$\\sqrt{\\sum_k h_{t,k}^2}$; mean: the average over units of the forget $f_t$, input $i_t$ and "
                "output $o_t$ gates (LSTM) or the reset $r_t$ and update $z_t$ gates (GRU); $c_t$: the LSTM's cell "
                "state. Heatmaps: amber for gates (white 0 shut, amber 1 open), purple below zero to dark grey above for "
                "states (−1 to 1); the outlined column is step $t$, its values printed.")


def lockstep_alt(ls: Lockstep, t: int) -> str:
    """Text alternative for the three-cell heatmaps: each cell's state at step t."""
    return f"three cells at step {t}: " + "; ".join(
        f"{CELL_NAMES[c]} h = " + ", ".join(f"{v:.2f}" for v in tr.h[t - 1]) for c, tr in ls.traces.items())


def lockstep_text(ls: Lockstep) -> str:
    """How the hidden sizes were matched (markdown), every count computed."""
    d, s, p = ls.x.shape[1], ls.sizes, ls.params
    return (f"The LSTM with $H$ = {s['lstm']} sets the budget: **{ls.budget:,}** parameters for $d$ = {d} inputs. "
            f"The GRU gets $H$ = {s['gru']} (**{p['gru']:,}**) and the vanilla RNN $H$ = {s['rnn']} (**{p['rnn']:,}**): "
            "the sizes whose counts come closest. Per unit a vanilla cell needs one block of weights, a GRU three, an "
            "LSTM four, so for the same budget the vanilla cell gets the most units.")


def lockstep_torch(ls: Lockstep) -> dict[str, tuple[float, int]]:
    """torch.nn.RNN/LSTM/GRU on the same weights and input: per cell the max |difference| of every state
    (and the LSTM's cell states) and torch's own parameter count."""
    torch = import_torch()
    out = {}
    for c in CELLS:
        m = torch_cell(c, ls.weights[c])
        with torch.no_grad():
            h, last = m(torch.from_numpy(np.ascontiguousarray(ls.x))[None])
        diff = float(np.abs(h[0].numpy() - ls.traces[c].h).max())
        if get(c).has_cell_state:
            diff = max(diff, float(np.abs(last[1][0, 0].numpy() - ls.traces[c].c[-1]).max()))
        out[c] = (diff, sum(p.numel() for p in m.parameters()))
    return out


def torch_caption(ls: Lockstep, res: dict[str, tuple[float, int]]) -> str:
    """What the PyTorch cross-check found, per cell."""
    return "PyTorch on the same weights: " + "; ".join(
        f"{CELL_NAMES[c]} agrees to {d:.1e}, {n:,} parameters ({'equal to' if n == ls.params[c] else 'NOT equal to'} ours)"
        for c, (d, n) in res.items()) + "."


# ---- the valve -----------------------------------------------------------------------------------

@dataclass
class Valve:
    """The valve experiment's runs over the same input: 1 then zeros."""

    x: np.ndarray  # (T,)
    lstm: LSTMTrace
    rnn: RNNTrace
    weights: dict[str, float]  # the one-unit LSTM's weights, by name


VALVES = SharedCache(2 ** 23)  # per server: up to ~180 kB a run at T = 2000


def valve_experiment(T: int = 400, w_h: float = 0.5, gate_gain: float = 20.0) -> Valve:
    """A one-unit LSTM with forget gate sigma(gain) ~ 1 always, input gate open only when x = 1,
    candidate tanh(x), output gate ~ 1; beside a vanilla unit tanh(x_t + w_h h_{t-1}). Computed once per server
    for the same settings; the arrays are shared, so read-only."""
    return VALVES.get_arrays((T, w_h, gate_gain), lambda: _valve(T, w_h, gate_gain),
                             lambda v: [v.x, *vars(v.lstm).values(), *vars(v.rnn).values()])


def _valve(T: int, w_h: float, gate_gain: float) -> Valve:
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


def valve_text(valve: Valve) -> str:
    """The valve's explanation (markdown), with its weights' numbers; Unicode subscripts, as it is redrawn with
    every move of the slider."""
    T, w = len(valve.x), valve.weights
    return (f"Input: a single 1, then {T - 1} zeros. The LSTM's forget gate is σ({w['b_f']:g}) = {w['f']:.10f}; its "
            f"input gate is open only while x = 1 (i = {w['i (x=1)']:.6f}, then {w['i (x=0)']:.1e}), so "
            f"cₜ = cₜ₋₁ + 0 copies. The vanilla unit hₜ = tanh(xₜ + {w['w_h']:g} hₜ₋₁) multiplies by {w['w_h']:g} "
            "and squashes at every step.")


def valve_table(valve: Valve) -> pd.DataFrame:
    """The LSTM's cell state and the vanilla state at t = 1, 10 and T: one row per time, so it stays narrow."""
    T = len(valve.x)
    ts = sorted({1, min(10, T), T})
    return pd.DataFrame({"t": ts, "LSTM cell state cₜ": [f"{valve.lstm.c[t - 1, 0]:.4f}" for t in ts],
                         "vanilla hₜ": [f"{valve.rnn.h[t - 1, 0]:.2e}" if t > 1 else f"{valve.rnn.h[0, 0]:.4f}"
                                        for t in ts]}).set_index("t")
