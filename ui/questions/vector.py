"""The cell, step by step: which unit of the last state is largest, for the page's generated weights."""
from __future__ import annotations

from rnnviz.rooms import questions as Q
from rnnviz.text import fmt
from ui.questions.base import Made, inputs


def largest_unit(s: dict, lm=None) -> Made | None:
    x, what = inputs(s)
    if not 2 <= s["H"] <= 12 or s["w"] != "generate":  # hand-edited weights are not in the link
        return None
    a = Q.vector_largest_unit(x, s["H"], s["K"], s["seed"], s["rho"])
    labels = tuple(f"unit {u}" for u in a.options)
    return Made(f"A vector RNN with H = {s['H']} units (seed {s['seed']}, ρ = {s['rho']:g}) reads {what}. "
                f"Which unit of the last state h_T is largest?", labels, a,
                f"unit {a.options[int(a.truth)]} (h_T = {', '.join(fmt(v) for v in a.facts)})")
