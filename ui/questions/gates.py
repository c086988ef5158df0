"""Gates: LSTM and GRU: which cell still holds x₁ after 50 steps (at the reveal, the gradients page's decay chart
with the class's votes), and one gate's value at a step."""
from __future__ import annotations

from rnnviz.nn.cells import get as get_cell
from rnnviz.rooms import questions as Q
from rnnviz.rooms.figure import answers_on, tally_on
from rnnviz.rooms.room import Question
from rnnviz.text import fmt, sub
from ui.questions.base import Made, Rounds, inputs, tally, truth_text
from ui.questions.gradients import decay

CELL_NAMES = {"rnn": "vanilla RNN", "lstm": "LSTM", "gru": "GRU"}
Q_CELLS = {v: k for k, v in CELL_NAMES.items()}  # an option's label back to its cell


def memory(s: dict, lm=None) -> Made:
    a = Q.gates_memory(s["H"], s["seed"], s["rho"], s["bf"])
    logs = ", ".join(f"{CELL_NAMES[c]} 10^{v:.1f}" for c, v in zip(a.options, a.facts))
    return Made(f"A vanilla RNN, an LSTM (forget bias {s['bf']:g}) and a GRU, H = {s['H']}, each Wₕₕ at ρ = "
                f"{s['rho']:g}, read 50 random inputs. Which cell still holds x₁ after 50 steps (the largest "
                f"‖∂h₅₀/∂h₁‖)?", tuple(CELL_NAMES[c] for c in a.options), a,
                f"{CELL_NAMES[a.options[int(a.truth)]]} ({logs})",
                "The LSTM's cell is updated by addition, cₜ = f⊙cₜ₋₁ + i⊙g, so its gradient is a product of forget "
                "gates near 1, not of Wₕₕ.")


def gate_value(s: dict, lm=None) -> Made:
    x, what = inputs(s)
    t = min(s["t"], len(x))
    a = Q.gate_value(s["cell"], x, s["H"], s["seed"], s["rho"], s["bf"], t)
    forget = get_cell(s["cell"]).forget_gate is not None
    gate = "forget gate f" if forget else "update gate z"
    bias = f", forget bias {s['bf']:g}" if forget else ""
    return Made(f"An {CELL_NAMES[s['cell']]} with H = {s['H']} (seed {s['seed']}, ρ = {s['rho']:g}{bias}) "
                f"reads {what}. "
                f"What is the first unit's {gate}{sub('t')} at step {t}? (between 0 and 1)", (), a,
                f"{gate}{sub(t)} = {fmt(a.truth)}",
                "A gate is a sigmoid of the input and the last state: a number between 0 and 1 for each unit, at each "
                "step, not a switch.")


def kept(s: dict, lm=None) -> Made:
    steps = 10
    a = Q.forget_fraction(s["bf"], steps)
    return Made(f"An LSTM's forget bias is b_f = {s['bf']:g}. If its forget gate stayed at σ(b_f) whatever the "
                f"inputs, what share of c₀ would the cell still hold after {steps} steps? (between 0 and 1)", (), a,
                f"σ({s['bf']:g})^{steps} = {fmt(a.truth)}",
                f"The forget gate multiplies the cell at every step: σ(b_f) = {fmt(a.facts[0])} is not 1, so the "
                f"cell keeps (σ(b_f))^{steps}; only f = 1 copies it unchanged.")


def chart_memory(s: dict, q: Question, rounds: Rounds, fs: float):
    curves, fig = decay(s, 50, "rho", s["rho"], 1.0, 0.0, fs)  # as rnnviz.rooms.questions.gates_memory runs it
    y = float(curves[Q_CELLS.get(q.options[int(q.truth)], "lstm")][49])
    fig = answers_on(fig, 49, {}, 10 ** y, f"exact: {truth_text(q)}")
    return tally_on(fig, tally(rounds, q.options), fs)
