"""Recurrence returns: hₜ of the linear recurrence hₜ = a·hₜ₋₁ + b·xₜ for the page's a, b and inputs."""
from __future__ import annotations

from rnnviz.rooms import questions as Q
from rnnviz.text import fmt, parse_sequence, sub
from ui.questions.base import Made


def linear(s: dict, lm=None) -> Made:
    x = parse_sequence(s["x"])
    t = min(s["t"], len(x))
    a = Q.linear_state(x, s["a"], s["b"], t)
    return Made(f"The linear recurrence hₜ = a·hₜ₋₁ + b·xₜ with a = {s['a']:g}, b = {s['b']:g}, h₀ = 0, inputs x = "
                f"{', '.join(f'{v:g}' for v in x)}. What is h{sub(t)}? (no tanh: it can leave [−1, 1])", (), a,
                f"h{sub(t)} = {fmt(a.truth)}")
