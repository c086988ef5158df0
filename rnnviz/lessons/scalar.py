"""The one-unit RNN h_t = tanh(w_x x_t + w_h h_{t-1} + b): the worked table, input parsing, fixed points,
predict mode, and backpropagation by hand (dh_k/dh_1 as a product of one factor w_h (1 - h_j^2) per step)."""
from __future__ import annotations

import math
from collections.abc import MutableMapping
from dataclasses import dataclass

import numpy as np

from rnnviz.nn.cells import RNNTrace, rnn_forward
from rnnviz.text import MAX_STEPS, InputError, fmt, parse_sequence, power_text, sub, sup  # noqa: F401  (read here too)


def run_scalar(x, w_x: float, w_h: float, b: float = 0.0, h0: float = 0.0) -> RNNTrace:
    """Run the one-unit cell; the trace's arrays are (T, 1)."""
    return rnn_forward(np.asarray(x, dtype=float), w_x, w_h, b, None, h0=h0)


def worked_rows(trace: RNNTrace, b: float = 0.0, digits: int = 3) -> list[dict[str, str]]:
    """The notes' table: t, x_t, 'W_x x_t + W_h h_{t-1}' written out as a sum, and h_t."""
    rows = []
    for t in range(len(trace.h)):
        xp, hp, pre = trace.x_part[t, 0], trace.h_part[t, 0], trace.pre[t, 0]
        expr = f"{fmt(xp, digits)} + {fmt(hp, digits)}"
        if b:
            expr += f" + {fmt(b, digits)}"
        rows.append({"t": str(t + 1), "x_t": f"{trace.x[t, 0]:g}", "pre": f"{expr} = {fmt(pre, digits)}",
                     "h_t": fmt(trace.h[t, 0], digits)})
    return rows


def worked_table(trace: RNNTrace, b: float, upto: int, asking: bool) -> dict[str, list[str]]:
    """The worked table's columns (headers with real subscripts) for steps 1..upto; when `asking`, the last row's
    sum and h_t are '?' (predict mode: that step is the question)."""
    rows = worked_rows(trace, b)[:upto]
    if asking and rows:
        rows[-1] = dict(rows[-1], pre="?", h_t="?")
    return {"t": [r["t"] for r in rows], "xₜ": [r["x_t"] for r in rows],
            "wₓxₜ + wₕhₜ₋₁" + (" + b" if b else ""): [r["pre"] for r in rows],
            H_COLUMN: [r["h_t"] for r in rows]}


H_COLUMN = "hₜ = tanh(·)"


def step_text(t: int, x_t: float, w_x: float, w_h: float, b: float, h_prev: float, trace: RNNTrace) -> str:
    """The four moves of step t in words, with the page's numbers (markdown)."""
    k = t - 1
    xp, hp, pre, h = trace.x_part[k, 0], trace.h_part[k, 0], trace.pre[k, 0], trace.h[k, 0]
    bias = f" the bias {b:g}" if b else ""
    return (f"**Step {t}.** Read the input: wₓxₜ = {w_x:g} × {x_t:g} = **{fmt(xp)}**. "
            f"Read the memory: wₕhₜ₋₁ = {w_h:g} × {fmt(h_prev)} = **{fmt(hp)}**. "
            f"Add{bias}: z = **{fmt(pre)}**. Squash: h{sub(t)} = tanh({fmt(pre)}) = **{fmt(h)}**.")


def question_text(t: int, x_t: float, h_prev: float) -> str:
    """Predict mode's question for step t: only the input and the memory before it are given."""
    return (f"**Your turn, step {t}.** The input is x{sub(t)} = {x_t:g} and the memory is "
            f"h{sub(t - 1)} = {fmt(h_prev)}. What will h{sub(t)} be?")


def score_text(points: int, guesses: int) -> str:
    return (f"Score: {points} point{'s' if points != 1 else ''} from {guesses} guess{'es' if guesses != 1 else ''} "
            "(2 for within 0.05, 1 for the right sign).")


@dataclass
class PredictView:
    """What predict mode shows at step t."""

    shown: int  # steps whose h_t are on the page (tables, charts, text)
    asking: bool  # step t is a question
    frontier: int  # steps revealed so far, after this view


def predict_view(t: int, frontier: int) -> PredictView:
    """Steps 1..frontier are revealed and step frontier + 1 is the question. Going back shows revealed steps
    without asking again; moving past the question gives the skipped steps away (shown, not scored), so a step
    is never asked after its answer was on screen and nothing after the question is ever shown."""
    if t <= frontier:
        return PredictView(t, False, frontier)
    return PredictView(t - 1, True, t - 1)


def predict_step(state: MutableMapping, page: str, setup: tuple, t: int, h_t: float) -> PredictView:
    """Predict mode's bookkeeping in a session's state (a mapping): score a guess checked at step t (its h_t is
    `h_t`), advance the frontier of revealed steps for this setup, and say what step t may show."""
    key, frontier = state.get(f"{page}.frontier", (setup, 0))
    frontier = frontier if key == setup else 0
    if state.pop(f"{page}.checked", None) == t == frontier + 1:
        res = score_guess(state[f"{page}.guess"], h_t)
        pts, n = state.get(f"{page}.score", (0, 0))
        state[f"{page}.score"] = (pts + res.points, n + 1)
        state[f"{page}.verdict"] = (t, res.message)
        frontier = t
    view = predict_view(t, frontier)
    state[f"{page}.frontier"] = (setup, view.frontier)
    return view


def rounding_note(trace: RNNTrace, w_x: float, w_h: float, b: float, h0: float) -> str | None:
    """For the notes' example (w_x = 1, w_h = 0.5, b = 0, h_0 = 0, x = 1, 0, ...): one of the notes rounds h_1 to
    three decimals before the next step and so prints h_2 one digit off; say so, with both computations."""
    x = trace.x[:, 0]
    if (w_x, w_h, b, h0) != (1.0, 0.5, 0.0, 0.0) or len(x) < 2 or x[0] != 1 or x[1] != 0:
        return None
    h1, h2 = float(trace.h[0, 0]), float(trace.h[1, 0])
    h1r = round(h1, 3)
    h2r = math.tanh(w_x * x[1] + w_h * h1r + b)
    if fmt(h2r) == fmt(h2):
        return None
    return (f"Rounding: one of the notes rounds h₁ to {h1r:.3f} first and gets h₂ = tanh({fmt(w_h * h1r)}) = "
            f"{h2r:.4f} ≈ {fmt(h2r)}; this page carries full precision, h₂ = tanh({w_h:g} × {h1:.5f}) = "
            f"{h2:.4f} ≈ {fmt(h2)}.")


def fixed_points(w_h: float, b: float = 0.0) -> list[tuple[float, bool]]:
    """Solutions of h = tanh(w_h h + b) with their stability (|w_h (1 - h^2)| < 1)."""
    f = lambda h: np.tanh(w_h * h + b) - h  # noqa: E731
    grid = np.linspace(-1.0, 1.0, 4001)
    vals = f(grid)
    roots = []
    for a, c, fa, fc in zip(grid[:-1], grid[1:], vals[:-1], vals[1:]):
        if fa == 0:
            roots.append(a)
        elif fa * fc < 0:
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


def fixed_point_lines(fps: list[tuple[float, bool]], w_h: float) -> list[str]:
    """One markdown line per fixed point h*, with the slope of the map there, which decides its stability."""
    out = []
    for h_star, stable in fps:
        slope = w_h * (1 - h_star ** 2)
        why = "stable: nearby states fall in" if stable else "unstable: nearby states leave"
        out.append(f"- h* = **{h_star:.4f}**, slope wₕ(1 − h*²) = {slope:.3f}; {why}")
    return out


def fixed_point_text(fps: list[tuple[float, bool]], w_h: float) -> str:
    """The fixed points as a markdown list; with two stable ones, what that means for memory."""
    text = "\n".join(fixed_point_lines(fps, w_h))
    if sum(stable for _, stable in fps) >= 2:
        text += ("\n\nTwo stable states: the unit can hold a bit of memory forever, and the sign of h₁ decides "
                 "which one it keeps.")
    return text


FIXED_POINT_INTRO = (
    "With no input the cell repeats h → tanh(wₕ·h + b). A **fixed point** h* is a state that maps to itself: "
    "where the curve crosses the dashed diagonal. It is **stable** when the curve's slope there, wₕ(1 − h*²), "
    "is below 1 in size (a small nudge shrinks, so nearby states fall in) and **unstable** when it is above 1 "
    "(a nudge grows). The black **cobweb** replays the silent run: up to the curve (the next state), across to "
    "the diagonal (it becomes the current state), again.")


BACKPROP_INTRO = (
    "Each step passes a nudge of its memory on multiplied by ∂hⱼ/∂hⱼ₋₁ = wₕ(1 − hⱼ²): the recurrent weight times "
    "the slope of tanh at that step (tanh′(z) = 1 − tanh(z)² = 1 − hⱼ²). The chain rule multiplies one such factor "
    "per step, with the inputs held fixed:")


@dataclass
class Backprop:
    """dh_k/dh_1 by hand: one factor dh_j/dh_{j-1} = w_h (1 - h_j^2) per step j = 2..k."""

    k: int
    h: list[float]  # h_2 .. h_k
    factors: list[float]  # w_h (1 - h_j^2)
    value: float  # their product


def backprop(trace: RNNTrace, w_h: float, k: int) -> Backprop:
    """The gradient of h_k with respect to h_1 through the recurrence (the inputs held fixed), k >= 2."""
    hs = [float(v) for v in trace.h[1:k, 0]]
    factors = [w_h * (1 - v ** 2) for v in hs]
    return Backprop(k, hs, factors, float(np.prod(factors)) if factors else 1.0)


def backprop_text(bp: Backprop, w_h: float, max_terms: int = 4) -> str:
    """The chain rule written out with the page's numbers, one equality per line (markdown, Unicode: plain text
    redraws far cheaper than typeset maths on every move): ∂h₃/∂h₁ = wₕ²(1 − h₂²)(1 − h₃²) = 0.5 (1 − 0.363²) · …"""
    k, n = bp.k, len(bp.factors)
    first = f"∂h{sub(k)}/∂h₁ = "
    if n <= max_terms:
        lines = [first + ("wₕ" + (sup(n) if n > 1 else "")) + "".join(f"(1 − h{sub(j)}²)" for j in range(2, k + 1)),
                 " · ".join(f"{w_h:g} (1 − {_paren(fmt(h))}²)" for h in bp.h)]
        if n > 1:
            lines.append(" · ".join(f"{f:.4f}" for f in bp.factors))
    else:
        lines = [first + f"∏ⱼ₌₂{sup(k)} wₕ(1 − hⱼ²)",
                 " · ".join(f"{f:.4f}" for f in bp.factors[:2]) + f" ⋯ {bp.factors[-1]:.4f}"]
    lines.append(power_text(bp.value))
    return "  \n= ".join(lines)


def _paren(s: str) -> str:
    return f"({s})" if s.startswith("-") else s


def backprop_rows(bp: Backprop, w_h: float) -> dict[str, list[str]]:
    """Each factor of the chain rule as a table row: j, h_j, 1 - h_j^2 (tanh' at step j), w_h (1 - h_j^2)."""
    j = list(range(2, bp.k + 1))
    return {"step j": [str(v) for v in j], "hⱼ": [f"{h:.4f}" for h in bp.h],
            "1 − hⱼ² (tanh′)": [f"{1 - h ** 2:.4f}" for h in bp.h],
            "∂hⱼ/∂hⱼ₋₁ = wₕ(1 − hⱼ²)": [f"{f:.4f}" for f in bp.factors]}


@dataclass
class Verdict:
    points: int  # 2 within 0.05, 1 for the right sign (or both near zero), 0 otherwise
    message: str


def score_guess(guess: float, actual: float, close: float = 0.05) -> Verdict:
    """Score a predicted h_t against the computed one."""
    err = abs(guess - actual)
    if err <= close:
        return Verdict(2, f"Spot on: h_t = {fmt(actual)}, you said {fmt(guess)} (off by {err:.3f}). +2")
    same_sign = (guess > 0) == (actual > 0) or (abs(guess) < close and abs(actual) < close)
    if same_sign:
        return Verdict(1, f"Right direction: h_t = {fmt(actual)}, you said {fmt(guess)}. +1")
    return Verdict(0, f"Not quite: h_t = {fmt(actual)}, you said {fmt(guess)}. Look at the sign of z.")
