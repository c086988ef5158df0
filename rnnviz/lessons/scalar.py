"""The one-unit RNN h_t = tanh(w_x x_t + w_h h_{t-1} + b): the run, fixed points of the silent cell, predict mode's
steps and points, and backpropagation by hand (dh_k/dh_1 as a product of one factor w_h (1 - h_j^2) per step).
The words that go with these numbers are the app's (ui/lessons/scalar.py)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from rnnviz.nn.cells import RNNTrace, rnn_forward


def run_scalar(x, w_x: float, w_h: float, b: float = 0.0, h0: float = 0.0) -> RNNTrace:
    """Run the one-unit cell; the trace's arrays are (T, 1)."""
    return rnn_forward(np.asarray(x, dtype=float), w_x, w_h, b, None, h0=h0)


@dataclass
class PredictView:
    """What predict mode shows at step t.

    Attributes:
        shown: steps whose h_t are on the page (tables, charts, text).
        asking: whether step t is a question.
        frontier: steps revealed so far, after this view.
    """

    shown: int
    asking: bool
    frontier: int


def predict_view(t: int, frontier: int) -> PredictView:
    """Steps 1..frontier are revealed and step frontier + 1 is the question. Going back shows revealed steps
    without asking again; moving past the question gives the skipped steps away (shown, not scored), so a step
    is never asked after its answer was on screen and nothing after the question is ever shown."""
    if t <= frontier:
        return PredictView(t, False, frontier)
    return PredictView(t - 1, True, t - 1)


def guess_points(guess: float, actual: float, close: float = 0.05) -> int:
    """Points for a predicted h_t: 2 within `close`, 1 for the right sign (or both near zero), 0 otherwise."""
    if abs(guess - actual) <= close:
        return 2
    same_sign = (guess > 0) == (actual > 0) or (abs(guess) < close and abs(actual) < close)
    return 1 if same_sign else 0


@dataclass
class Rounding:
    """h_2 of the notes' example computed twice: from h_1 at full precision and from h_1 rounded to 3 decimals.

    Attributes:
        h1: h_1 at full precision.
        h1_rounded: h_1 rounded to 3 decimals.
        h2: h_2 from h1.
        h2_from_rounded: h_2 from h1_rounded.
    """

    h1: float
    h1_rounded: float
    h2: float
    h2_from_rounded: float


def notes_rounding(trace: RNNTrace, w_x: float, w_h: float, b: float, h0: float) -> Rounding | None:
    """For the notes' example (w_x = 1, w_h = 0.5, b = 0, h_0 = 0, x = 1, 0, ...), where one of the notes rounds h_1
    to three decimals before the next step: both computations of h_2; None for any other setup."""
    x = trace.x[:, 0]
    if (w_x, w_h, b, h0) != (1.0, 0.5, 0.0, 0.0) or len(x) < 2 or x[0] != 1 or x[1] != 0:
        return None
    h1, h2 = float(trace.h[0, 0]), float(trace.h[1, 0])
    h1r = round(h1, 3)
    return Rounding(h1, h1r, h2, math.tanh(w_x * x[1] + w_h * h1r + b))


def fixed_points(w_h: float, b: float = 0.0) -> list[tuple[float, bool]]:
    """Solutions of h = tanh(w_h h + b) with their stability (|w_h (1 - h^2)| < 1)."""
    f = lambda h: np.tanh(w_h * h + b) - h  # noqa: E731
    grid = np.linspace(-1.0, 1.0, 4001)
    vals = f(grid)
    roots = []
    # only the grid intervals that hold a root are visited (a Python loop over all 4000 cost ~2 ms a rerun)
    for k in np.flatnonzero((vals[:-1] == 0) | (vals[:-1] * vals[1:] < 0)):
        a, c, fa = grid[k], grid[k + 1], vals[k]
        if fa == 0:
            roots.append(a)
        else:
            lo, hi = a, c
            for _ in range(60):
                mid = 0.5 * (lo + hi)
                if f(lo) * f(mid) <= 0:
                    hi = mid
                else:
                    lo = mid
            roots.append(0.5 * (lo + hi))
    out = []
    for r in roots:
        if not out or abs(r - out[-1][0]) > 1e-6:
            out.append((float(r), bool(abs(w_h * (1 - r ** 2)) < 1)))
    return out


def iterate_silence(h_start: float, w_h: float, b: float, steps: int) -> np.ndarray:
    """h, tanh(w_h h + b), ... : the free run with no input, `steps` + 1 values."""
    hs = [h_start]
    for _ in range(steps):
        hs.append(float(np.tanh(w_h * hs[-1] + b)))
    return np.array(hs)


@dataclass
class Backprop:
    """dh_k/dh_1 by hand: one factor dh_j/dh_{j-1} = w_h (1 - h_j^2) per step j = 2..k.

    Attributes:
        k: the last step, k >= 2.
        h: h_2 .. h_k.
        factors: w_h (1 - h_j^2) for j = 2..k.
        value: dh_k/dh_1, their product (1 for no factors).
    """

    k: int
    h: list[float]
    factors: list[float]
    value: float


def backprop(trace: RNNTrace, w_h: float, k: int) -> Backprop:
    """The gradient of h_k with respect to h_1 through the recurrence (the inputs held fixed), k >= 2."""
    hs = [float(v) for v in trace.h[1:k, 0]]
    factors = [w_h * (1 - v ** 2) for v in hs]
    return Backprop(k, hs, factors, float(np.prod(factors)) if factors else 1.0)
