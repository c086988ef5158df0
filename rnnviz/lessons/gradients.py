"""Gradients through time for the page: the three cells run on one input sequence, their Jacobian norms by
steps back, the notes' reference curves, the 2^50 explosion, and clipping."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rnnviz.nn.cells import gru_forward, init_weights, lstm_forward, rnn_forward, spectral_radius
from rnnviz.nn.gradients import GradientReport, clip_by_norm, decay_table, gru_gradients, lstm_gradients, rnn_gradients

INPUT_SIZE = 4
FLOAT_FLOOR, FLOAT_CEIL = -300.0, 300.0  # log10 limits drawn on the plot; beyond them values sit at the edge


@dataclass
class Comparison:
    x: np.ndarray  # (T, d) the shared input sequence
    reports: dict[str, GradientReport]  # rnn, lstm, gru
    traces: dict[str, object]
    radius: dict[str, float]  # spectral radius of the vanilla W_hh
    sigma_max: float  # largest singular value of the vanilla W_hh


def compare(hidden_size: int, T: int, w_scale: float, forget_bias: float, input_scale: float, seed: int) -> Comparison:
    """Run a vanilla RNN, an LSTM and a GRU over the same inputs; W_hh blocks rescaled to spectral radius w_scale."""
    rng = np.random.default_rng(seed)
    x = input_scale * rng.normal(size=(T, INPUT_SIZE))
    w = {c: init_weights(c, INPUT_SIZE, hidden_size, seed=seed, radius=w_scale,
                         forget_bias=forget_bias if c == "lstm" else 0.0) for c in ("rnn", "lstm", "gru")}
    traces = {"rnn": rnn_forward(x, **w["rnn"]), "lstm": lstm_forward(x, **w["lstm"]), "gru": gru_forward(x, **w["gru"])}
    reports = {"rnn": rnn_gradients(traces["rnn"], w["rnn"]["W_hh"]),
               "lstm": lstm_gradients(traces["lstm"], w["lstm"]["W_hh"]),
               "gru": gru_gradients(traces["gru"], w["gru"]["W_hh"])}
    W = w["rnn"]["W_hh"]
    return Comparison(x, reports, traces, {"rnn": spectral_radius(W)}, float(np.linalg.norm(W, 2)))


def reference_curves(steps: np.ndarray) -> dict[str, np.ndarray]:
    """The notes' idealised decay: vanilla (0.5 * 0.9)^t, LSTM with f = 0.9, LSTM with f = 1."""
    tab = decay_table(steps)
    return {"vanilla (0.5·0.9)^t": tab["vanilla"], "LSTM f = 0.9: 0.9^t": tab["lstm"], "LSTM f = 1: 1": tab["lstm_f1"]}


def explode(w: float = 2.0, steps: int = 50) -> float:
    """A scalar unit with weight w held at h = 0 (tanh' = 1): the gradient factor after `steps` steps."""
    return float(rnn_gradients(rnn_forward(np.zeros(steps), 1.0, w), w).spectral[steps])


def edge_points(log10_values: np.ndarray) -> dict[str, np.ndarray]:
    """Split log10 values into those drawn in place and those beyond float range (drawn at the edge).

    Returns y (the value to draw, clamped to the edges), and masks `under` (exact 0 or below 1e-300)
    and `over` (above 1e300 or infinite)."""
    v = np.asarray(log10_values, float)
    under = ~(v >= FLOAT_FLOOR)  # -inf and NaN count as vanished
    over = v > FLOAT_CEIL
    y = np.clip(np.where(under, FLOAT_FLOOR, v), FLOAT_FLOOR, FLOAT_CEIL)
    return {"y": 10.0 ** y, "under": under, "over": over}


def clip_demo(report: GradientReport, steps_back: int, threshold: float) -> dict[str, object]:
    """The loss gradient dL/dh at `steps_back` steps before the end, before and after clipping by norm."""
    g = report.loss_grads[steps_back]
    finite = np.isfinite(g).all()
    if not finite:  # the product left float64's range: clipping still sends it to the threshold direction
        g = np.where(np.isfinite(g), g, np.sign(g) * 1e308)
    clipped, norm, scale = clip_by_norm(g, threshold)
    return {"before": g, "after": clipped, "norm_before": float(10 ** min(report.log10_loss_grad[steps_back], 308))
            if np.isfinite(report.log10_loss_grad[steps_back]) else 0.0,
            "log10_before": float(report.log10_loss_grad[steps_back]), "norm_after": float(np.linalg.norm(clipped)),
            "scale": scale, "clipped": scale < 1.0}
