"""One unit by hand: hₜ for the page's weights, and where the state settles once the inputs stop; at the reveal,
the page's states over time with the class's answers on them."""
from __future__ import annotations

import numpy as np

from rnnviz.figures import scalar as scalar_figures
from rnnviz.lessons.scalar import iterate_silence, run_scalar
from rnnviz.rooms import questions as Q
from rnnviz.rooms.figure import answers_on
from rnnviz.rooms.room import Question
from rnnviz.text import fmt, parse_sequence, sub
from ui.questions.base import REVEAL_HEIGHT, Made, Rounds


def _setup(s: dict) -> tuple[list[float], str]:
    x = parse_sequence(s["x"])
    return x, (f"One unit, hₜ = tanh(wₓ·xₜ + wₕ·hₜ₋₁ + b) with wₓ = {s['wx']:g}, wₕ = {s['wh']:g}, b = {s['b']:g}, "
               f"h₀ = {s['h0']:g}, inputs x = {', '.join(f'{v:g}' for v in x)}.")


def state(s: dict, lm=None) -> Made:
    x, setup = _setup(s)
    t = min(s["t"] or len(x), len(x))
    a = Q.scalar_state(x, s["wx"], s["wh"], s["b"], s["h0"], t)
    return Made(f"{setup} What is h{sub(t)}? (a number between −1 and 1)", (), a, f"h{sub(t)} = {fmt(a.truth)}",
                "Each step multiplies the state by wₕ and adds the input before tanh squashes it: work forward one "
                "step at a time from h₀.")


def settle(s: dict, lm=None) -> Made | None:
    x, setup = _setup(s)
    a = Q.scalar_settle(x, s["wx"], s["wh"], s["b"], s["h0"])
    if a is None:
        return None
    return Made(f"{setup} After the last input the inputs stop (x = 0 from then on). Where does h settle?", (), a,
                f"h settles at {fmt(a.truth)}",
                "With no input, h settles where h = tanh(wₕ·h + b): a fixed point of the cell, whatever the inputs "
                "wrote before.")


FATES = {"fades": "it fades to 0", "settles": "it settles at a value away from 0", "cycles": "it flips sign every step",
         "grows": "it keeps growing past 1"}


def fate(s: dict, lm=None) -> Made:
    x, setup = _setup(s)
    a = Q.scalar_fate(x, s["wx"], s["wh"], s["b"], s["h0"])
    return Made(f"{setup} After the last input the inputs stop. What happens to h?", tuple(FATES[o] for o in a.options),
                a, f"{FATES[a.options[int(a.truth)]]} (after many silent steps h = {fmt(a.facts[0])})",
                "tanh keeps h inside (−1, 1), so it never grows without bound: |wₕ| < 1 (and b = 0) fades it, a larger "
                "wₕ holds it at a fixed point, and wₕ < −1 makes it alternate.")


def chart_state(s: dict, q: Question, rounds: Rounds, fs: float):
    x = parse_sequence(s["x"])
    t = min(s["t"] or len(x), len(x))
    trace = run_scalar(np.asarray(x, float), s["wx"], s["wh"], s["b"], s["h0"])
    fig = answers_on(scalar_figures.states_over_time(trace.h[:, 0], x, None, fs), t, rounds, q.truth,
                     f"exact h{sub(t)}")
    return fig.update_layout(height=REVEAL_HEIGHT).update_yaxes(range=[-1.1, 1.1])  # every answer tanh allows


def chart_settle(s: dict, q: Question, rounds: Rounds, fs: float):
    x = parse_sequence(s["x"])
    h = run_scalar(np.asarray(x, float), s["wx"], s["wh"], s["b"], s["h0"]).h[:, 0]
    h = np.r_[h, iterate_silence(float(h[-1]), s["wh"], s["b"], 12)[1:]]  # the inputs stop: the silent steps
    fig = scalar_figures.states_over_time(h, list(x) + [0.0] * 12, None, fs)
    fig = answers_on(fig, len(h) + 1, rounds, q.truth, "where h settles")
    return fig.update_layout(height=REVEAL_HEIGHT).update_yaxes(range=[-1.1, 1.1])
