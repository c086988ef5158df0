"""Gradients through time for the page: the three cells run on one input sequence, their Jacobian norms by
steps back, the notes' reference curves, the 2^50 explosion and clipping (the words beside them, the presets and the
per-server cache are the app's: ui/lessons/gradients.py).

Weights are random (untrained) with zero biases, except the two gate biases the page sets: the LSTM's
forget gate b_f and the GRU's update gate b_z. Every W_hh block is rescaled so that either its largest
singular value sigma_max or its spectral radius rho equals the chosen scale.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rnnviz.nn.cells import compared, get, init_weights, spectral_radius
from rnnviz.nn.gradients import (
    CELL_PATHS,
    FORGET_PATH,
    GradientReport,
    clip_by_norm,
    decay_table,
    gradients_through_time,
)
from rnnviz.text import format_norm

INPUT_SIZE = 4
FLOAT_FLOOR, FLOAT_CEIL = -300.0, 300.0  # log10 limits of float64's range as the page treats it


@dataclass
class Comparison:
    """Gradients back through time of several cells run over the same inputs.

    Attributes:
        reports: the gradient report per cell compared (`cells.compared()` by default).
        rho: spectral radius of the vanilla W_hh.
        sigma_max: largest singular value of the vanilla W_hh.
    """

    reports: dict[str, GradientReport]
    rho: float
    sigma_max: float


def recurrent_weights(cell: str, hidden_size: int, seed: int, scale: float, by: str = "sigma",
                      gate_bias: float = 0.0) -> dict[str, np.ndarray]:
    """PyTorch-style random weights with zero biases; each W_hh block rescaled so its sigma_max (or rho) is `scale`;
    `gate_bias` goes into the gate that keeps the old state (the LSTM's forget gate, the GRU's update gate)."""
    w = init_weights(cell, INPUT_SIZE, hidden_size, seed=seed)
    w["b_ih"][:], w["b_hh"][:] = 0.0, 0.0
    H = hidden_size
    for k in range(len(w["W_hh"]) // H):
        blk = w["W_hh"][k * H:(k + 1) * H]
        size = np.linalg.norm(blk, 2) if by == "sigma" else spectral_radius(blk)
        if size > 0:
            blk *= scale / size
    keep = get(cell).keep_gate
    if keep is not None:
        k = get(cell).gates.index(keep)
        w["b_ih"][k * H:(k + 1) * H] = gate_bias
    return w


def compare(hidden_size: int, T: int, w_scale: float, forget_bias: float, input_scale: float, seed: int,
            by: str = "sigma", update_bias: float = 0.0, cells: tuple[str, ...] | None = None) -> Comparison:
    """Run a vanilla RNN, an LSTM and a GRU (`cells`, default `cells.compared()`) over the same inputs and
    differentiate each back through time; the forget-gate bias goes to a cell whose keep gate is a forget gate, the
    update-gate bias to one whose keep gate is another (the GRU's z)."""
    rng = np.random.default_rng(seed)
    x = input_scale * rng.normal(size=(T, INPUT_SIZE))
    reports = {}
    for c in compared() if cells is None else cells:
        kind = get(c)
        bias = 0.0 if kind.keep_gate is None else forget_bias if kind.keep_gate == kind.forget_gate else update_bias
        w = recurrent_weights(c, hidden_size, seed, w_scale, by, bias)
        reports[c] = gradients_through_time(kind, w, kind.forward(w, x))
    W = recurrent_weights(compared()[0], hidden_size, seed, w_scale, by)["W_hh"]
    return Comparison(reports, spectral_radius(W), float(np.linalg.norm(W, 2)))


def comparison_arrays(cmp: Comparison) -> list[np.ndarray]:
    """Every array a comparison holds (to size it, and make it read-only where visitors share it)."""
    return [a for r in cmp.reports.values() for a in (*vars(r).values(), *r.factors.values())
            if isinstance(a, np.ndarray)]


def curves(cmp: Comparison) -> dict[str, np.ndarray]:
    """log10 norms by steps back k = 0..T for each curve, by cell: its h (key: the cell's name); for a cell that carries
    c, then c along its forget gates alone (name + FORGET_PATH) and c by all paths (name + CELL_PATHS). Spectral norms
    of the Jacobians; for the forget-gate path, of diag(f_T ... f_{t+1}), i.e. its best-kept unit."""
    out = {}
    for c, r in cmp.reports.items():
        out[c] = r.log10_spectral
        if r.log10_forget_path is not None:
            out[c + FORGET_PATH] = r.log10_forget_path.max(axis=1)
        if r.log10_cell_spectral is not None:
            out[c + CELL_PATHS] = r.log10_cell_spectral
    return out


def factor_inputs(cmp: Comparison) -> dict[str, np.ndarray | float]:
    """What each step multiplies the gradient by, from each cell's own factors: tanh'(z_s) (T, H) and ||W_hh||_2 (the
    vanilla RNN's), forget gates f (the LSTM's) and update gates z (the GRU's)."""
    out = {k: v for r in cmp.reports.values() for k, v in r.factors.items()}
    if "w_norm" in out:
        out["w_norm"] = float(out["w_norm"][0])
    return out


def reference_curves(steps: np.ndarray) -> dict[str, np.ndarray]:
    """The notes' idealised decay: vanilla (0.5 * 0.9)^t, lstm 0.9^t (f = 0.9), lstm_f1 (f = 1)."""
    tab = decay_table(steps)
    return {"vanilla": tab["vanilla"], "lstm": tab["lstm"], "lstm_f1": tab["lstm_f1"]}


def explode(w: float = 2.0, steps: int = 50) -> float:
    """A scalar unit with weight w held at h = 0 (tanh' = 1): the gradient factor after `steps` steps."""
    plain = get(compared()[0])
    params = {"W_ih": np.ones((1, 1)), "W_hh": np.full((1, 1), w)}
    return float(gradients_through_time(plain, params, plain.forward(params, np.zeros(steps))).spectral[steps])


def clip_demo(report: GradientReport, steps_back: int, threshold: float) -> dict[str, object]:
    """The loss gradient dL/dh at `steps_back` steps before the end, before and after clipping by norm, in log10
    (exact however large or small): direction, log10 norms, and whether clipping changed it."""
    lb = float(report.log10_loss_grad[steps_back])
    d = report.loss_grad_dirs[steps_back]
    if lb > FLOAT_CEIL:  # the vector itself is beyond float64: clipping keeps its direction, sets the threshold length
        la, clipped = float(np.log10(threshold)), True
    elif lb == -np.inf:
        la, clipped = lb, False
    else:
        after, _, scale = clip_by_norm(d * 10 ** lb, threshold)
        la, clipped = float(np.log10(np.linalg.norm(after))), scale < 1.0
    return {"direction": d, "log10_before": lb, "log10_after": la, "clipped": clipped,
            "before": format_norm(lb), "after": format_norm(la)}


def slowest(cmp: Comparison) -> str:
    """The compared cell whose h curve ends lowest."""
    cells = list(cmp.reports)
    return cells[int(np.argmin([cmp.reports[c].log10_spectral[-1] for c in cells]))]  # the first of equals, as min()
