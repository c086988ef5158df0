"""The one-unit RNN h_t = tanh(w_x x_t + w_h h_{t-1} + b): the worked table, input parsing, fixed points."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from rnnviz.nn.cells import RNNTrace, rnn_forward

MAX_STEPS = 200
MAX_ABS_INPUT = 100.0


class InputError(ValueError):
    """Text that does not describe a sequence of numbers."""


def parse_sequence(text: str, max_len: int = MAX_STEPS, max_abs: float = MAX_ABS_INPUT) -> list[float]:
    """'1, 0, 0' or '1 0 0' -> [1.0, 0.0, 0.0]; anything else raises InputError saying what is wrong."""
    if text is None or not text.strip():
        raise InputError("The input sequence is empty: type numbers separated by commas, e.g. 1, 0, 0.")
    parts = [p for p in re.split(r"[,\s;]+", text.strip()) if p]
    if len(parts) > max_len:
        raise InputError(f"The sequence has {len(parts)} numbers; the limit is {max_len}.")
    out = []
    for k, p in enumerate(parts, 1):
        try:
            v = float(p)
        except ValueError:
            shown = p if len(p) <= 20 else p[:20] + "…"
            raise InputError(f"Item {k}, {shown!r}, is not a number.") from None
        if not math.isfinite(v):
            raise InputError(f"Item {k} is {p}: inputs must be finite numbers.")
        if abs(v) > max_abs:
            raise InputError(f"Item {k} is {v:g}; inputs are limited to ±{max_abs:g}.")
        out.append(v)
    return out


def run_scalar(x, w_x: float, w_h: float, b: float = 0.0, h0: float = 0.0) -> RNNTrace:
    """Run the one-unit cell; the trace's arrays are (T, 1)."""
    return rnn_forward(np.asarray(x, dtype=float), w_x, w_h, b, None, h0=h0)


def fmt(v: float, digits: int = 3) -> str:
    """Numbers as the notes print them: 3 decimals, no '-0.000'."""
    s = f"{v:.{digits}f}"
    return s[1:] if s.startswith("-") and float(s) == 0 else s


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
