"""The one-unit page's words, widget keys, link parameters and predict mode's session state (its numbers are
rnnviz/lessons/scalar.py): the notes' worked table, each step in words, the fixed points and backprop written out."""
from __future__ import annotations

import math
from collections.abc import MutableMapping
from dataclasses import dataclass, replace

import streamlit as st

from rnnviz.figures.scalar import states_over_time, tanh_curve, tanh_drag, tanh_size
from rnnviz.lessons.presets import DEFAULT_SCALAR, SCALAR_PRESETS, ScalarPreset
from rnnviz.lessons.scalar import Backprop, PredictView, guess_points, notes_rounding, predict_view, run_scalar
from rnnviz.live.words import table_pieces
from rnnviz.nn.cells import RNNTrace
from rnnviz.text import fmt, plus, power_text, sub, sup, times
from ui.controls import Control, Controls, time_step
from ui.live.scrub import Scrub, each_slider
from ui.urlstate import font_scale, set_state

P = "scalar"
D = SCALAR_PRESETS[DEFAULT_SCALAR]
CONTROLS = Controls(
    P,
    Control("w_x", "wₓ, input weight", D.w_x, lo=-10.0, hi=10.0, step=0.05, url="wx", scrub=True,
            help="How strongly the current input xₜ is read into the state."),
    Control("w_h", "wₕ, recurrent weight", D.w_h, lo=-10.0, hi=10.0, step=0.05, url="wh", scrub=True,
            help="How much of the previous state hₜ₋₁ is carried into the next one. Below 1 the past fades; above 1 "
                 "it can grow until tanh saturates."),
    Control("b", "b, bias", D.b, lo=-10.0, hi=10.0, step=0.05, url="b", scrub=True,
            help="A constant added before the squash."),
    Control("h0", "h₀, initial state", D.h0, lo=-1.0, hi=1.0, step=0.01, url="h0", scrub=True,
            help="The state before the first input; the notes start from 0."),
    Control("x", "Input sequence x₁, x₂, …", ", ".join(f"{v:g}" for v in D.x), kind="text", url="x",
            help="Numbers separated by commas or spaces, up to 200 of them, each within ±100."),
    time_step(default=len(D.x)),
    Control("predict", "Predict before you see", False, kind="toggle", url="predict",
            help="Guess each new hₜ before the page shows it, from step 1; your guesses are scored."),
    Control("guess", "Your guess for hₜ", 0.0, kind="number", lo=-1.0, hi=1.0, step=0.01,
            help="Between −1 and 1: tanh can give nothing else."),
)
PARAMS = CONTROLS.params
CELL = ("w_x", "w_h", "b", "h0")  # the sliders a setup (ScalarPreset) holds beside its inputs
PRESET_NAMES = {  # preset: (button label, what a student should see, one sentence)
    "fade": ("Fade", "wₕ = 0.5, x = 1, 0, 0. One input, then silence: each step halves what is left and tanh "
                     "trims it further."),
    "flood": ("Flood", "wₕ = 2, x = 1, 0, 0. The same input grows step by step until tanh pins it near 1."),
    "rewrite": ("Rewrite", "x = 1, 0, 1. The middle zero only fades the state; the third input writes over what "
                           "remains."),
    "silence": ("Silence", "x = 1 then ten zeros. After ten quiet steps the first input has all but vanished from h."),
}


def preset_values(name: str) -> dict:
    """The widget states a preset sets."""
    p = SCALAR_PRESETS[name]
    return {**{CONTROLS.key(c): getattr(p, c) for c in CELL}, CONTROLS.key("x"): ", ".join(f"{v:g}" for v in p.x),
            CONTROLS.key("t"): len(p.x)}


def setup(x: list[float]) -> ScalarPreset:
    """The page's setup as its sliders hold it now, over the inputs x: what every view of the page is drawn from."""
    return ScalarPreset(*(float(CONTROLS.value(c)) for c in CELL), tuple(x))


def _each_slider(s: ScalarPreset, chart: str, setting: tuple, figure, whole: bool = False, words=None,
                 own=None) -> list[Scrub]:
    """One Scrub per scrubbed slider for `chart`: `figure(run)` is the chart for the cell's run over the setup's
    inputs with that slider moved and the others where they are; `words(setup, run)` the words that follow it, and
    `own(setup, run)` the chart as drawn (for `whole` frames)."""
    now = {c: getattr(s, c) for c in CELL}

    def moved(f):
        return None if f is None else (lambda **values: f(replace(s, **values), run_scalar(s.x, **values)))
    return each_slider(P, chart, now, CONTROLS.spans(), setting,
                       lambda **values: figure(run_scalar(s.x, **values)), whole, moved(words), moved(own))


STEP_WORDS = "words-scalar-step"  # the containers of the words that follow a drag: the step in words,
TABLE_WORDS = "long-worked"  # the worked table (ui.widgets.long_table's box)


def step_words(t: int, s: ScalarPreset, trace: RNNTrace) -> dict[str, str | list[str]]:
    """The words beside the charts at step t, as the page writes them (outside predict mode), by their containers'
    keys: the step in words (markdown) and the worked table's cells (table_pieces: its markdown's pieces, without
    writing it)."""
    h_prev = trace.h[t - 2, 0] if t > 1 else s.h0
    return {STEP_WORDS: step_text(t, s, h_prev, trace), TABLE_WORDS: table_pieces(worked_table(trace, s.b, t, False))}


def scrubs(s: ScalarPreset, fs: float) -> list[Scrub]:
    """The sliders whose drag the chart of h_t over time follows: each frame is that chart (the page's own call)
    with one slider moved."""
    return _each_slider(s, "states", (s.x, fs), lambda run: states_over_time(run.h[:, 0], list(s.x), None, fs))


def tanh_scrubs(trace: RNNTrace, s: ScalarPreset, shown: int, fs: float) -> list[Scrub]:
    """The sliders whose drag the tanh chart follows too, steps 1 to `shown` moving on the curve: on a projector it is
    the chart beside the sliders (h_t over time is a screen further down). Its frames are the chart without its
    labels, boxes and title sentence (tanh_drag): they would change with every value and make each frame a whole
    redraw (about 14 frames a second); the numbers come back on release. The step in words and the worked table follow
    with its frames (step_words)."""
    size = tanh_size(chart_steps(trace, s.b, shown), fs)  # the chart as drawn: it keeps its place while dragged
    title = (f"Steps 1 to {shown}" if shown > 1 else "Step 1") + " on tanh, as you drag"
    return _each_slider(s, "tanh", (s.x, fs, shown),
                        lambda run: tanh_drag(run.pre[:shown, 0], run.h[:shown, 0], size, fs, title), whole=True,
                        words=lambda setup, run: step_words(shown, setup, run),
                        own=lambda setup, run: tanh_chart(run, setup.b, shown, fs))


def default_scrubs(room: bool) -> list[Scrub]:
    """The page's scrubbed sliders as it opens, on a projector (`room`) or not: what a server computes the frames of
    before anyone asks (ui/live/scrub.py warm), as a class opens the same link."""
    fs = font_scale(room)
    return scrubs(D, fs) + tanh_scrubs(run_scalar(list(D.x), D.w_x, D.w_h, D.b, D.h0), D, len(D.x), fs)


def tanh_chart(trace: RNNTrace, b: float, shown: int, fs: float):
    """The tanh chart as the page draws it: steps 1 to `shown` on the curve, the last ringed, in words."""
    return tanh_curve(trace.pre[:shown, 0], trace.h[:shown, 0], shown - 1, fs, chart_steps(trace, b, shown))


def guess_box(t: int, x_t: float, h_prev: float) -> None:
    """Predict mode's question for step t, with the guess box and its Check button."""
    with st.container(border=True):
        st.markdown(question_text(t, x_t, h_prev))
        g1, g2 = st.columns([2, 1], vertical_alignment="bottom")
        CONTROLS.widget("guess", g1, label=f"Your guess for h{sub(t)}")
        g2.button("Check", key=f"{P}.check", on_click=set_state, args=({f"{P}.checked": t},), type="primary",
                  width="stretch")


def worked_rows(trace: RNNTrace, b: float = 0.0, digits: int = 3) -> list[dict[str, str]]:
    """The notes' table: t, x_t, 'W_x x_t + W_h h_{t-1}' written out as a sum, and h_t."""
    rows = []
    for t in range(len(trace.h)):
        xp, hp, pre = trace.x_part[t, 0], trace.h_part[t, 0], trace.pre[t, 0]
        expr = fmt(xp, digits) + " " + plus(hp, digits) + (" " + plus(b, digits) if b else "")
        rows.append({"t": str(t + 1), "x_t": f"{trace.x[t, 0]:g}", "pre": f"{expr} = {fmt(pre, digits)}",
                     "h_t": fmt(trace.h[t, 0], digits)})
    return rows


H_COLUMN = "hₜ = tanh(·)"


def worked_table(trace: RNNTrace, b: float, upto: int, asking: bool) -> dict[str, list[str]]:
    """The worked table's columns (headers with real subscripts) for steps 1..upto; when `asking`, the last row's
    sum and h_t are '?' (predict mode: that step is the question)."""
    rows = worked_rows(trace, b)[:upto]
    if asking and rows:
        rows[-1] = dict(rows[-1], pre="?", h_t="?")
    return {"t": [r["t"] for r in rows], "xₜ": [r["x_t"] for r in rows],
            "wₓxₜ + wₕhₜ₋₁" + (" + b" if b else ""): [r["pre"] for r in rows],
            H_COLUMN: [r["h_t"] for r in rows]}


def step_text(t: int, s: ScalarPreset, h_prev: float, trace: RNNTrace) -> str:
    """The four moves of step t in words, with the page's numbers (markdown)."""
    k = t - 1
    x_t, w_x, w_h, b = trace.x[k, 0], s.w_x, s.w_h, s.b
    xp, hp, pre, h = trace.x_part[k, 0], trace.h_part[k, 0], trace.pre[k, 0], trace.h[k, 0]
    bias = f" the bias {b:g}" if b else ""
    return (f"**Step {t}.** Read the input: wₓxₜ = {w_x:g} × {times(f'{x_t:g}')} = **{fmt(xp)}**. "
            f"Read the memory: wₕhₜ₋₁ = {w_h:g} × {times(fmt(h_prev))} = **{fmt(hp)}**. "
            f"Add{bias}: z = **{fmt(pre)}**. Squash: h{sub(t)} = tanh({fmt(pre)}) = **{fmt(h)}**.")


def question_text(t: int, x_t: float, h_prev: float) -> str:
    """Predict mode's question for step t: only the input and the memory before it are given."""
    return (f"**Your turn, step {t}.** The input is x{sub(t)} = {x_t:g} and the memory is "
            f"h{sub(t - 1)} = {fmt(h_prev)}. What will h{sub(t)} be?")


def score_text(points: int, guesses: int, skipped: int = 0) -> str:
    """The score; steps shown by skipping past a question (Next, a key or the slider) are counted apart."""
    skips = f"; {skipped} step{'s' if skipped != 1 else ''} skipped, not scored" if skipped else ""
    return (f"Score: {points} point{'s' if points != 1 else ''} from {guesses} guess{'es' if guesses != 1 else ''}"
            f"{skips} (2 for within 0.05, 1 for the right sign).")


@dataclass
class Verdict:
    points: int  # 2 within 0.05, 1 for the right sign (or both near zero), 0 otherwise
    message: str


def score_guess(guess: float, actual: float, t: int) -> Verdict:
    """Score a predicted h_t (step t) against the computed one, in words (hₜ written as the page writes it: h₂)."""
    points, h = guess_points(guess, actual), f"h{sub(t)}"
    if points == 2:
        off = fmt(abs(guess - actual))
        return Verdict(2, f"Spot on: {h} = {fmt(actual)}, you said {fmt(guess)} (off by {off}). +2")
    if points == 1:
        return Verdict(1, f"Right direction: {h} = {fmt(actual)}, you said {fmt(guess)}. +1")
    return Verdict(0, f"Not quite: {h} = {fmt(actual)}, you said {fmt(guess)}. Look at the sign of z.")


VERDICT_ICONS = {2: ":material/check_circle:", 1: ":material/trending_flat:", 0: ":material/close:"}  # by points


def from_step_1(state: MutableMapping, setup: ScalarPreset, linked_step: bool) -> bool:
    """Whether predicting starts again at step 1: predict mode has just been turned on (unless a shared link names
    its step), or the setup changed under it (a weight or a preset). The steps already revealed were another
    setup's: kept, the new setup's first answers showed unasked and were counted as skipped."""
    revealed = state.get(f"{P}.frontier")
    return (not state.get(f"{P}._predicting") and not linked_step) or (revealed is not None and revealed[0] != setup)


def predict_step(state: MutableMapping, setup: ScalarPreset, t: int, h_t: float) -> PredictView:
    """Predict mode's bookkeeping in a session's state (a mapping): score a guess checked at step t (its h_t is
    `h_t`), advance the frontier of revealed steps for this setup, and say what step t may show."""
    key, frontier = state.get(f"{P}.frontier", (setup, 0))
    frontier = frontier if key == setup else 0
    if state.pop(f"{P}.checked", None) == t == frontier + 1:
        res = score_guess(state[f"{P}.guess"], h_t, t)
        pts, n = state.get(f"{P}.score", (0, 0))
        state[f"{P}.score"] = (pts + res.points, n + 1)
        state[f"{P}.verdict"] = (t, res.message, res.points)
        frontier = t
    view = predict_view(t, frontier)
    if view.frontier > frontier:  # moved past the open question: its answer and any after it are shown unscored
        state[f"{P}.skipped"] = state.get(f"{P}.skipped", 0) + view.frontier - frontier
    state[f"{P}.frontier"] = (setup, view.frontier)
    return view


def rounding_note(trace: RNNTrace, s: ScalarPreset) -> str | None:
    """For the notes' example, where one of the notes rounds h_1 to three decimals before the next step and so
    prints h_2 one digit off: say so, with both computations (None when the two agree or for another setup)."""
    r, w_h = notes_rounding(trace, s.w_x, s.w_h, s.b, s.h0), s.w_h
    if r is None or fmt(r.h2_from_rounded) == fmt(r.h2):
        return None
    return (f"Rounding: one of the notes rounds h₁ to {r.h1_rounded:.3f} first and gets h₂ = "
            f"tanh({fmt(w_h * r.h1_rounded)}) = {r.h2_from_rounded:.4f} ≈ {fmt(r.h2_from_rounded)}; this page carries "
            f"full precision, h₂ = tanh({w_h:g} × {r.h1:.5f}) = {r.h2:.4f} ≈ {fmt(r.h2)}.")


def fixed_point_lines(fps: list[tuple[float, bool]], w_h: float) -> list[str]:
    """One markdown line per fixed point h*, with the slope of the map there, which decides its stability."""
    out = []
    for h_star, stable in fps:
        slope = w_h * (1 - h_star ** 2)
        why = "stable: nearby states fall in" if stable else "unstable: nearby states leave"
        if h_star == 0 and abs(slope) == 1:  # wₕ = ±1, b = 0: the slope alone cannot tell; tanh bends states in
            why = "slope of size 1: nearby states still creep in, ever more slowly (tanh bends below the line)"
        out.append(f"- h* = **{fmt(h_star, 4)}**, slope wₕ(1 − h*²) = {fmt(slope)}; {why}")
    return out


def fixed_point_text(fps: list[tuple[float, bool]], w_h: float) -> str:
    """The fixed points as a markdown list; with two stable ones, what that means for memory."""
    text = "\n".join(fixed_point_lines(fps, w_h))
    if sum(stable for _, stable in fps) >= 2:
        text += ("\n\nTwo stable states: the unit can hold a bit of memory forever, and the sign of h₁ decides "
                 "which one it keeps.")
    elif w_h < 0 and all(w_h * (1 - h ** 2) < -1 for h, _ in fps):
        # tanh(wₕh + b) falls as h rises when wₕ < 0; where such a map's one fixed point repels (slope under -1: at
        # exactly -1 states still creep in), every other silent run ends in a two-step cycle (a falling map of an
        # interval has no other way to go)
        text += ("\n\nNo stable state: with wₕ negative each silent step sends the state to the other side of h*, so "
                 "it swings between two values (a two-step cycle) instead of settling; the cobweb settles onto that "
                 "swing.")
    return text


def chart_steps(trace: RNNTrace, b: float, upto: int) -> list[list[list[str]]]:
    """Steps 1..upto in words for the tanh chart's title, one per animation frame (so the words follow its Play
    button), as phrases of pieces it may wrap between: 'Step 2: z = 0.000 + 0.381 = 0.381,' 'h₂ = tanh(z) = 0.363'.
    The numbers are the worked table's, written by fmt."""
    out = []
    for k in range(upto):
        t, bias = k + 1, [plus(b)] if b else []
        z = [f"Step {t}:", "z = " + fmt(trace.x_part[k, 0]), plus(trace.h_part[k, 0])] + bias
        out.append([z + [f"= {fmt(trace.pre[k, 0])},"], [f"h{sub(t)} = tanh(z)", f"= {fmt(trace.h[k, 0])}"]])
    return out


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


def backprop_text(bp: Backprop, w_h: float, max_terms: int = 4) -> str:
    """The chain rule written out with the page's numbers, one equality per line (markdown, Unicode: plain text
    redraws far cheaper than typeset maths on every move): ∂h₃/∂h₁ = wₕ²(1 − h₂²)(1 − h₃²) = 0.5 (1 − 0.363²) · …"""
    k, n = bp.k, len(bp.factors)
    first = f"∂h{sub(k)}/∂h₁ = "
    if n <= max_terms:
        lines = [first + ("wₕ" + (sup(n) if n > 1 else "")) + "".join(f"(1 − h{sub(j)}²)" for j in range(2, k + 1)),
                 " · ".join(f"{w_h:g} (1 − {_paren(near_one(h))}²)" for h in bp.h)]
        if n > 1:
            lines.append(" · ".join(fmt(f, 4) for f in bp.factors))
    else:
        lines = [first + f"∏ⱼ₌₂{sup(k)} wₕ(1 − hⱼ²)",
                 " · ".join(fmt(f, 4) for f in bp.factors[:2]) + f" ⋯ {fmt(bp.factors[-1], 4)}"]
    lines.append(power_text(bp.value))
    return "  \n= ".join(lines)


def near_one(h: float) -> str:
    """h as fmt writes it, with more decimals when it is within 0.0005 of ±1, so that 1 − h² reads true
    (0.999999515, not 1.000, whose 1 − 1.000² would be 0)."""
    gap = 1 - abs(h)
    if 0 < gap < 5e-4:
        return f"{h:.{min(17, 2 - math.floor(math.log10(gap)))}f}"
    return fmt(h)


def saturation_note(bp: Backprop, w_h: float) -> str | None:
    """When |w_h| > 1 grows the state yet the gradient shrinks, why: tanh is flat where the state saturates, so
    tanh' = 1 - h_j^2 is small and outweighs w_h (the Flood preset: 0.069 against Fade's 0.210). None otherwise."""
    if abs(w_h) <= 1 or abs(bp.value) >= 1:
        return None
    j = min(range(len(bp.h)), key=lambda i: 1 - bp.h[i] ** 2)
    h = bp.h[j]
    flips = all(a * b < 0 for a, b in zip(bp.h, bp.h[1:])) and len(bp.h) > 1  # the states' signs alternate
    grows = "is above 1 and floods the state" if w_h > 0 else "is above 1 in size and pushes the state toward ±1" + (
        ", each step the other way from the last" if flips else "")
    return (f"**Saturation kills the gradient.** wₕ = {w_h:g} {grows}, yet "
            f"∂h{sub(bp.k)}/∂h₁ = {power_text(bp.value)} is below 1: near ±1 tanh is flat, so its slope "
            f"1 − hⱼ² is small (only {fmt(1 - h ** 2, 4)} at h{sub(j + 2)} = {near_one(h)}) and "
            + ("each factor wₕ(1 − hⱼ²) falls below 1" if all(abs(f) < 1 for f in bp.factors) else
               "the factors wₕ(1 − hⱼ²) multiply to less than 1")
            + ". A saturated state holds its value but passes little gradient back: "
            "a nudge to h₁ barely moves it.")


def _paren(s: str) -> str:
    return f"({s})" if s.startswith("-") else s


def backprop_rows(bp: Backprop, w_h: float) -> dict[str, list[str]]:
    """Each factor of the chain rule as a table row: j, h_j, 1 - h_j^2 (tanh' at step j), w_h (1 - h_j^2); h_j written
    as the worked table writes it, so the two tables agree."""
    j = list(range(2, bp.k + 1))
    return {"step j": [str(v) for v in j], "hⱼ": [fmt(h) for h in bp.h],
            "1 − hⱼ² (tanh′)": [fmt(1 - h ** 2, 4) for h in bp.h],
            "∂hⱼ/∂hⱼ₋₁ = wₕ(1 − hⱼ²)": [fmt(f, 4) for f in bp.factors]}
