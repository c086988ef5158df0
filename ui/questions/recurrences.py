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
                f"h{sub(t)} = {fmt(a.truth)}",
                "Without tanh each step only scales the past by a and adds b·xₜ: hₜ = Σ a^(t−s)·b·xₛ.")


def steady(s: dict, lm=None) -> Made | None:
    a = Q.linear_steady(s["a"], s["b"])
    if a is None:
        return None
    return Made(f"The linear recurrence hₜ = a·hₜ₋₁ + b·xₜ with a = {s['a']:g}, b = {s['b']:g} reads xₜ = 1 at every "
                f"step, forever. Where does h settle?", (), a, f"h = b / (1 − a) = {fmt(a.truth)}",
                "At the settling point h = a·h + b, so h = b / (1 − a): a close to 1 remembers long and settles far.")


PARALLEL = {"linear": "the linear one (a scan)", "tanh": "the tanh RNN", "both": "both", "neither": "neither: every "
            "recurrence waits for the step before"}


def parallel(s: dict, lm=None) -> Made:
    a = Q.parallel_recurrence()
    return Made(f"hₜ = {s['a']:g}·hₜ₋₁ + xₜ against hₜ = tanh({s['a']:g}·hₜ₋₁ + xₜ), over T = 1,000,000 steps. Which "
                f"can a GPU compute in about log₂ T parallel rounds?", tuple(PARALLEL[o] for o in a.options), a,
                PARALLEL["linear"],
                "Composing two linear steps gives one linear step, so a scan combines them in a tree of log₂ T rounds; "
                "tanh does not compose that way, so the RNN waits for each hₜ₋₁.")
