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
                f"unit {a.options[int(a.truth)]} (h_T = {', '.join(fmt(v) for v in a.facts)})",
                "The last state is the whole run folded into H numbers; only stepping the cell, W_x·x + W_h·h + b then "
                "tanh, tells which unit ends largest.")


def parameters(s: dict, lm=None) -> Made:
    x, what = inputs(s)
    d, H, T = x.shape[1], s["H"], len(x)
    a = Q.cell_parameters(d, H, T)
    return Made(f"A vector RNN cell with d = {d} inputs and H = {H} units reads {what} (T = {T} steps). How many "
                f"parameters do W_x, W_h and b hold together?", tuple(f"{int(o):,}" for o in a.options), a,
                f"{int(a.facts[0]):,} = H·d + H² + H",
                "The same W_x, W_h and b serve every step, so the count, H·d + H² + H, does not grow with T; leaving "
                "out W_h forgets the memory's own weights.")


RANGES = {"tanh": "between −1 and 1", "prob": "between 0 and 1, like probabilities", "any": "any size: they grow "
          "with the inputs"}


def state_range(s: dict, lm=None) -> Made | None:
    x, what = inputs(s)
    if not 2 <= s["H"] <= 12 or s["w"] != "generate":
        return None
    a = Q.state_range(x, s["H"], s["K"], s["seed"], s["rho"])
    return Made(f"A vector RNN with H = {s['H']} units reads {what}. Which values can the entries of its states hₜ "
                f"take?", tuple(RANGES[o] for o in a.options), a,
                f"{RANGES['tanh']} (this run: from {fmt(a.facts[0])} to {fmt(a.facts[1])})",
                "tanh squashes every coordinate into (−1, 1) at every step, however large the inputs or the weights; "
                "probabilities come only after W_y and a softmax.")
