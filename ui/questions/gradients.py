"""Gradients through time: will ‖∂h_T/∂h₀‖ be above or below 10⁻³; at the reveal, the page's decay chart for the
setup (the gates page's memory question draws it too)."""
from __future__ import annotations

from rnnviz.figures import gradients as gradient_figures
from rnnviz.figures.base import COLORS
from rnnviz.lessons import gradients as gradients_lesson
from rnnviz.rooms import questions as Q
from rnnviz.rooms.figure import answers_on, tally_on
from rnnviz.rooms.room import Question
from rnnviz.text import sub
from ui.lessons import gradients as gradients_words
from ui.questions.base import REVEAL_HEIGHT, Made, Rounds, tally, truth_text


def threshold(s: dict, lm=None) -> Made:
    a = Q.gradient_threshold(s["H"], s["T"], s["w"], s["by"], s["bf"], s["bz"], s["xs"], s["seed"])
    size = "σₘₐₓ" if s["by"] == "sigma" else "ρ"
    return Made(f"A vanilla RNN with H = {s['H']} units, Wₕₕ scaled to {size} = {s['w']:g}, inputs × {s['xs']:g}, "
                f"seed {s['seed']}. Will ‖∂h{sub(s['T'])}/∂h₀‖ be above or below 10⁻³?", ("above 10⁻³", "below 10⁻³"),
                a, f"{'above' if a.truth == 0 else 'below'}: 10^{a.facts[0]:.1f}",
                "The gradient through T steps is a product of T factors diag(1 − h²)·Wₕₕ: below 1 in size they shrink "
                "it geometrically, which is why a plain RNN forgets.")


def _net(s: dict) -> str:
    size = "σₘₐₓ" if s["by"] == "sigma" else "ρ"
    return f"A vanilla RNN with H = {s['H']} units, Wₕₕ scaled to {size} = {s['w']:g}, inputs × {s['xs']:g}, seed " \
           f"{s['seed']}."


def above_one(s: dict, lm=None) -> Made:
    a = Q.gradient_threshold(s["H"], s["T"], s["w"], s["by"], s["bf"], s["bz"], s["xs"], s["seed"], threshold=1.0)
    return Made(f"{_net(s)} Will ‖∂h{sub(s['T'])}/∂h₀‖ end above 1 (explode) or below 1?", ("above 1", "below 1"), a,
                f"{'above' if a.truth == 0 else 'below'}: 10^{a.facts[0]:.1f}",
                "σₘₐₓ > 1 is necessary for an explosion, not sufficient: each factor also carries tanh's slope 1 − h², "
                "at most 1 and near 0 where units saturate.")


CLIPPED = {"as is": "left as it is", "up": "scaled up to the threshold", "down": "scaled down to the threshold"}


def clipped(s: dict, lm=None) -> Made:
    a = Q.clipping(s["H"], s["T"], s["w"], s["by"], s["bf"], s["bz"], s["xs"], s["seed"], s["clip"])
    return Made(f"{_net(s)} Its gradient ‖∂h{sub(s['T'])}/∂h₀‖ is clipped at {s['clip']:g}. What happens to it?",
                tuple(CLIPPED[o] for o in a.options), a,
                f"{CLIPPED[a.options[int(a.truth)]]} (10^{a.facts[0]:.1f} against {a.facts[1]:g})",
                "Clipping only rescales a gradient longer than the threshold down to it: it stops explosions, and "
                "cannot bring a vanished gradient back.")


def decay(s: dict, T: int, by: str, scale: float, xs: float, bz: float, fs: float):
    """The gradients page's decay chart for this setup, with the three cells' curves the questions are about."""
    cmp = gradients_words.compared(s["H"], T, scale, s["bf"], xs, s["seed"], by, bz)
    curves = {k: v for k, v in gradients_lesson.curves(cmp).items() if k in ("rnn", "lstm", "gru")}
    fig = gradient_figures.gradient_decay(curves, font_scale=fs)
    return curves, fig.update_layout(height=REVEAL_HEIGHT + 60)


def chart_threshold(s: dict, q: Question, rounds: Rounds, fs: float):
    curves, fig = decay(s, s["T"], s["by"], s["w"], s["xs"], s["bz"], fs)
    fig.add_hline(y=1e-3, line=dict(color=COLORS["output"], width=2, dash="dot"), annotation_text="10⁻³")
    y = float(curves["rnn"][s["T"]])
    fig = answers_on(fig, s["T"], {}, 10 ** y, f"exact: {truth_text(q)}")
    return tally_on(fig, tally(rounds, ("above", "below")), fs)
