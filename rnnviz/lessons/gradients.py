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

from rnnviz.nn.cells import gru_forward, init_weights, lstm_forward, rnn_forward, spectral_radius
from rnnviz.nn.gradients import GradientReport, clip_by_norm, decay_table, gru_gradients, lstm_gradients, rnn_gradients
from rnnviz.text import format_norm

INPUT_SIZE = 4
FLOAT_FLOOR, FLOAT_CEIL = -300.0, 300.0  # log10 limits of float64's range as the page treats it


@dataclass
class Comparison:
    reports: dict[str, GradientReport]  # rnn, lstm, gru
    rho: float  # spectral radius of the vanilla W_hh
    sigma_max: float  # largest singular value of the vanilla W_hh


def recurrent_weights(cell: str, hidden_size: int, seed: int, scale: float, by: str = "sigma",
                      gate_bias: float = 0.0) -> dict[str, np.ndarray]:
    """PyTorch-style random weights with zero biases; each W_hh block rescaled so its sigma_max (or rho) is `scale`;
    `gate_bias` goes into the LSTM's forget gate or the GRU's update gate (b_ih's second block)."""
    w = init_weights(cell, INPUT_SIZE, hidden_size, seed=seed)
    w["b_ih"][:], w["b_hh"][:] = 0.0, 0.0
    H = hidden_size
    for k in range(len(w["W_hh"]) // H):
        blk = w["W_hh"][k * H:(k + 1) * H]
        size = np.linalg.norm(blk, 2) if by == "sigma" else spectral_radius(blk)
        if size > 0:
            blk *= scale / size
    if cell in ("lstm", "gru"):
        w["b_ih"][H:2 * H] = gate_bias
    return w


def compare(hidden_size: int, T: int, w_scale: float, forget_bias: float, input_scale: float, seed: int,
            by: str = "sigma", update_bias: float = 0.0, cells: tuple[str, ...] = ("rnn", "lstm", "gru")) -> Comparison:
    """Run a vanilla RNN, an LSTM and a GRU (or some of them) over the same inputs and differentiate each back through
    time."""
    rng = np.random.default_rng(seed)
    x = input_scale * rng.normal(size=(T, INPUT_SIZE))
    bias = {"rnn": 0.0, "lstm": forget_bias, "gru": update_bias}
    run = {"rnn": (rnn_forward, rnn_gradients), "lstm": (lstm_forward, lstm_gradients),
           "gru": (gru_forward, gru_gradients)}
    reports = {}
    for c in cells:
        w = recurrent_weights(c, hidden_size, seed, w_scale, by, bias[c])
        reports[c] = run[c][1](run[c][0](x, **w), w["W_hh"])
    W = recurrent_weights("rnn", hidden_size, seed, w_scale, by)["W_hh"]
    return Comparison(reports, spectral_radius(W), float(np.linalg.norm(W, 2)))


def comparison_arrays(cmp: Comparison) -> list[np.ndarray]:
    """Every array a comparison holds (to size it, and make it read-only where visitors share it)."""
    return [a for r in cmp.reports.values() for a in (*vars(r).values(), *r.factors.values())
            if isinstance(a, np.ndarray)]


def curves(cmp: Comparison) -> dict[str, np.ndarray]:
    """log10 norms by steps back k = 0..T for each curve: rnn, lstm, lstm_f (the LSTM's cell along its forget gates),
    lstm_c (the LSTM's cell, all paths) and gru (spectral norms of the Jacobians; for the forget-gate path, of
    diag(f_T ... f_{t+1}), i.e. its best-kept unit)."""
    R = cmp.reports
    return {"rnn": R["rnn"].log10_spectral, "lstm": R["lstm"].log10_spectral,
            "lstm_f": R["lstm"].log10_forget_path.max(axis=1), "lstm_c": R["lstm"].log10_cell_spectral,
            "gru": R["gru"].log10_spectral}


def factor_inputs(cmp: Comparison) -> dict[str, np.ndarray | float]:
    """What each step multiplies the gradient by: tanh'(z_s) (T, H), ||W_hh||_2, forget gates f and update gates z."""
    R = cmp.reports
    return {"tanh_prime": R["rnn"].factors["tanh_prime"], "w_norm": float(R["rnn"].factors["w_norm"][0]),
            "forget": R["lstm"].factors["forget"], "update": R["gru"].factors["update"]}


def reference_curves(steps: np.ndarray) -> dict[str, np.ndarray]:
    """The notes' idealised decay: vanilla (0.5 * 0.9)^t, lstm 0.9^t (f = 0.9), lstm_f1 (f = 1)."""
    tab = decay_table(steps)
    return {"vanilla": tab["vanilla"], "lstm": tab["lstm"], "lstm_f1": tab["lstm_f1"]}


def explode(w: float = 2.0, steps: int = 50) -> float:
    """A scalar unit with weight w held at h = 0 (tanh' = 1): the gradient factor after `steps` steps."""
    return float(rnn_gradients(rnn_forward(np.zeros(steps), 1.0, w), w).spectral[steps])


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
    """The cell (rnn, lstm, gru) whose h curve ends lowest."""
    k, cells = curves(cmp), ("rnn", "lstm", "gru")
    return cells[int(np.argmin([k[c][-1] for c in cells]))]  # the first of equals, as min() would
