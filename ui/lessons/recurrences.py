"""The recurrences page's words, widget keys, link parameters and cache policy (its numbers: rnnviz/lessons/
recurrences.py)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from rnnviz.figures.recurrences import (
    eigen_plane,
    gradient_compare,
    impulse_response,
    linear_steps,
    min_lockstep,
    selective_steps,
)
from rnnviz.lessons import recurrences as lesson
from rnnviz.lessons.cache import SharedCache
from rnnviz.text import InputError, fmt, parse_sequence, sub, sup, times
from ui.controls import Control, Controls, time_step
from ui.live.scrub import Scrub, each_slider
from ui.urlstate import font_scale
from ui.widgets import md

P = "rec"
VIEWS = {"linear": "Linear", "eigen": "Eigenvalues", "min": "minGRU", "selective": "Selective", "scan": "Scan",
         "grad": "Gradients"}
UNITS = 4  # eigenvalues the student can place
PRESETS = {  # label: (r per unit, theta per unit), help
    "slow": ((0.999,), (0.0,), "One real eigenvalue at 0.999: a half-life of 693 steps."),
    "fast vs slow": ((0.5, 0.9, 0.99, 0.999), (0.0, 0.0, 0.0, 0.0), "Four real eigenvalues: each a decay rate."),
    "rotate": ((0.99, 0.99, 0.99), (0.0, 0.3, 1.5), "The same radius, three angles: the same decay, turning faster."),
    "LRU ring": ((0.9, 0.95, 0.99, 0.999), (0.31, 0.05, 0.2, 0.01),
                 "Where the LRU paper starts: radii in [0.9, 0.999], small angles."),
}
X_DEFAULT, SX_DEFAULT = "1, 0, 0, 0, 0, 0, 0, 0", "1, -1, -1, -1, 0.5, -1, -1, -1"
VIEW_HELP = ("Linear: one unit stepped. Eigenvalues: a diagonal of units placed on the complex plane (the LRU). "
             "minGRU: minGRU and minLSTM beside the GRU. Selective: the input sets the step. Scan: the parallel "
             "scan. Gradients: how far back each cell's gradient reaches.")
SELECTIVE_HELP = ("Numbers separated by commas or spaces. With w > 0 a large xₜ makes a large step (aₜ near 0: "
                  "reset, write xₜ) and a negative one a tiny step (aₜ near 1: keep, ignore xₜ).")
R_DEFAULTS, TH_DEFAULTS = (0.999, 0.9, 0.5, 0.99), (0.0, 0.3, 1.0, 2.0)  # each unit's radius and angle, 1..UNITS
CONTROLS = Controls(
    P,
    Control("view", "View", "linear", kind="segmented", options=tuple(VIEWS), url="view", help=VIEW_HELP,
            widget_kw={"required": True, "format_func": VIEWS.get}),
    Control("a", "a, what each step keeps of hₜ₋₁", 0.9, lo=-1.5, hi=1.5, step=0.01, url="a", scrub=True,
            help="Below 1 in size the state fades, above 1 it grows: no tanh stops it."),
    Control("b", "b, input weight", 1.0, lo=-2.0, hi=2.0, step=0.1, url="b", scrub=True),
    Control("x", "Input sequence x₁, x₂, …", X_DEFAULT, kind="text", url="x",
            help="Numbers separated by commas or spaces, up to 200, each within ±100."),
    time_step("lin.t"),
    Control("N", "Units N", 3, lo=1, hi=UNITS, url="N"),
    *[Control(f"r{k}", f"r{k}, radius", r, lo=0.0, hi=0.999, step=0.001, url=f"r{k}", scrub=True,
              widget_kw={"format": "%.3f"}) for k, r in enumerate(R_DEFAULTS, 1)],  # the plane follows a radius
    *[Control(f"th{k}", f"θ{k}, angle", th, lo=0.0, hi=3.14, step=0.01, url=f"th{k}", scrub=True)
      for k, th in enumerate(TH_DEFAULTS, 1)],
    Control("word", "Word", "hello", kind="text", url="word", max_chars=30),
    Control("H", "H, units", 3, lo=1, hi=8, url="H", scrub=True),
    Control("seed", "Seed", 0, kind="number", lo=0, hi=10_000, url="seed",
            help="The same seed as the gates page gives its GRU."),
    time_step("min.t", url="mt", most=30),
    Control("sx", "Input sequence x₁, x₂, …", SX_DEFAULT, kind="text", url="sx", help=SELECTIVE_HELP),
    Control("w", "w, how strongly xₜ sets the step", 4.0, lo=0.0, hi=8.0, step=0.1, url="w", scrub=True),
    Control("c", "c, the step's bias", 0.0, lo=-4.0, hi=4.0, step=0.1, url="c", scrub=True),
    Control("T", "T, steps to scan", 8, kind="segmented", options=(8, 16), url="T", widget_kw={"required": True}),
    Control("gT", "T, steps back", 100, lo=10, hi=300, url="gT", scrub=True),
)
PARAMS = CONTROLS.params


@dataclass(frozen=True)
class Linear:
    """The linear view's recurrence hₜ = a·hₜ₋₁ + b·xₜ over its inputs, as the sliders and the box hold it."""

    a: float
    b: float
    x: tuple[float, ...]


@dataclass(frozen=True)
class Selective:
    """The selective view's step Δₜ = softplus(w·xₜ + c) over its inputs."""

    w: float
    c: float
    x: tuple[float, ...]


INTRO = ("Drop the tanh from the recurrence and it becomes linear: hₜ = a·hₜ₋₁ + b·xₜ. That is the recurrence "
         "inside today's fast recurrent models (the LRU, minGRU, Mamba). Step it, place its eigenvalues, watch a "
         "selective step reset memory, see the parallel scan that trains it in log₂T steps, and compare gradients.")
MIN_KEY = ("**keep** rows: the share of hₜ₋₁ each cell keeps (1 − zₜ for minGRU, f′ₜ for minLSTM, zₜ for the GRU). "
           "The minGRU and minLSTM rows are known for every t before the first step: their gates read xₜ alone. "
           "The GRU's appear one step at a time, because its gate reads hₜ₋₁. The **h** rows show every cell's "
           "whole run, the GRU's too, so the three states can be compared at any step.")
SELECTIVE_EQ = (r"\Delta_t = \operatorname{softplus}(w x_t + c),\quad a_t = \exp(\Delta_t A),"
                r"\quad b_t = \Delta_t B x_t,\quad h_t = a_t h_{t-1} + b_t \qquad (A = -1,\ B = 1)")
SELECTIVE_FAMILY = (
    "**Its family: state space models, and Mamba.** A state space model is a continuous system h′(t) = A·h(t) + "
    "B·x(t) read at steps of length Δ: each step keeps a = exp(ΔA) of the state and writes b ≈ ΔB·x, the linear "
    "recurrence of this page (S4 and the models after it). With one Δ for every input, every step keeps the same "
    "share. Mamba (Gu and Dao, 2023) makes Δ, B and the readout depend on the input: *selective*, as here, where "
    "Δₜ = softplus(w·xₜ + c) lets one input reset the memory and the next leave it alone. The recurrence is still "
    "linear in h, so Mamba trains with the parallel scan of the Scan view.")
SCAN_WHY = (
    "**Why a scan can do it.** A step hₜ = aₜ·hₜ₋₁ + bₜ is the pair (aₜ, bₜ). Two steps in a row are again one step "
    "of the same kind: (a₁, b₁) then (a₂, b₂) maps h to a₂a₁·h + (a₂b₁ + b₂), the pair (a₂a₁, a₂b₁ + b₂). This "
    "combine is associative, (s₁ ∘ s₂) ∘ s₃ = s₁ ∘ (s₂ ∘ s₃), so the pairs may be grouped in any order: neighbours "
    "first, then pairs of pairs, every prefix after log₂T levels (the tree above). Put tanh around the sum and two "
    "steps are no longer one step of that kind: tanh(a₂·tanh(a₁h + b₁) + b₂) is no pair (a, b) applied to h, so "
    "each step must wait for the one before. That is why the fast recurrent models keep the recurrence linear.")
COSTS_NOTE = ("Work counts every application of the operator; depth, the ones that must wait for each other. Times: "
              "NumPy on this server, best of 3, measured once when the first visitor opened this view. The loop is a "
              "Python loop of T NumPy steps; each scan level is one vectorised operation over all T nodes.")
REASONS = {
    "rnn": "**vanilla RNN**: each step multiplies by diag(tanh′)·Wₕₕ; with σₘₐₓ(Wₕₕ) = 0.9 and tanh′ ≤ 1 it shrinks "
           "at least 0.9× a step.",
    "lstm": "**LSTM**: the cell path multiplies by the forget gates fₜ, near 1 with bias 1, but h reaches c only "
            "through oₜ·tanh′, so ∂h/∂h still shrinks.",
    "gru": "**GRU**: zₜ copies hₜ₋₁ through, yet zₜ ≈ ½ here and the candidate's path adds Wₕₕ and tanh′ factors.",
    "linear": "**linear**: the factor is exactly diag(a), the same every step: aᵏ, no tanh′, so a = 0.999 keeps "
              "90% after 100 steps.",
    "mingru": "**minGRU**: the factor is diag(1 − zₜ), no weights and no tanh′; it falls as fast as its gates "
              "open (zₜ ≈ ½ untrained).",
    "selective": "**selective**: the factor is diag(exp(Δₜ A)); Mamba starts Δ small (0.001 to 0.1), so aₜ ≈ 1 and "
                 "the gradient barely fades until an input opens the step.",
}


def parsed(key: str, default: str) -> tuple[list[float], str | None]:
    """The numbers in a text box, or the last valid ones and the message saying why."""
    try:
        x = parse_sequence(st.session_state[key])
    except InputError as e:
        return st.session_state.get(f"{key}._last", parse_sequence(default)), f"{e} Showing the last valid sequence."
    st.session_state[f"{key}._last"] = x
    return x, None


def word_input(word: str) -> tuple[str, list[str], str | None]:
    """The word, its characters as the one-hot vocabulary (in order of first appearance), or the default and why."""
    if not word.strip():
        return "hello", list("helo"), "The word is empty: showing “hello”."
    return word, list(dict.fromkeys(word)), None


def preset_state(name: str) -> dict:
    r, th, _ = PRESETS[name]
    out = {f"{P}.N": len(r)}
    out.update({f"{P}.r{k}": v for k, v in enumerate(r, 1)})
    out.update({f"{P}.th{k}": v for k, v in enumerate(th, 1)})
    return out


def linear_text(s: dict, lin: Linear, t: int) -> str:
    a, b, T, x = lin.a, lin.b, len(lin.x), f"{s['x']:g}"
    return (f"**Step {t} of {T}.** Keep: a·h{sub(t - 1)} = {a:g} × {times(fmt(s['h_prev']))} = **{fmt(s['kept'])}**. "
            f"Write: b·x{sub(t)} = {b:g} × {times(x)} = **{fmt(s['written'])}**. "
            f"Add: h{sub(t)} = **{fmt(s['h'])}**. No squash: after k silent steps h is exactly aᵏ times what it was, "
            f"so {'it grows without bound' if abs(a) > 1 else 'it fades' if abs(a) < 1 else 'it stays'}.")


def eigen_text(resp: lesson.EigenResponse) -> str:
    parts = []
    for k, (lam, half) in enumerate(zip(resp.lam, resp.half_life), 1):
        hl = "never" if np.isinf(half) else f"{half:,.1f} steps" if half >= 0.1 else "at once"
        parts.append(f"λ{sub(k)}: |λ| = {fmt(abs(lam))}, half-life {hl}, γ = {fmt(resp.gamma[k - 1])}")
    return ("Each unit's |hₜ| falls as rᵗ⁻¹ whatever θ: the angle turns the state, the radius alone sets how long "
            "it lasts. The LRU scales each input by γ = √(1 − r²), so slow units are not flooded. " + "; ".join(parts))


def min_text(ls: lesson.MinLockstep, t: int, chars: list[str]) -> str:
    keep = {c: float(ls.keep[c][t - 1].mean()) for c in ls.keep}
    return (f"**Step {t} of {len(chars)}**, reading '{md(chars[t - 1])}'. Mean share of hₜ₋₁ kept: minGRU "
            f"**{keep['mingru']:.2f}**, minLSTM **{keep['minlstm']:.2f}**, GRU **{keep['gru']:.2f}**. Parameters: "
            f"minGRU {ls.params['mingru']}, minLSTM {ls.params['minlstm']}, GRU {ls.params['gru']} "
            "(no Wₕₕ in the min cells).")


def selective_text(tr) -> str:
    a, x = tr.a[:, 0], tr.x[:, 0]
    lo, hi = int(np.argmin(a)), int(np.argmax(a))
    return (f"Smallest aₜ: **{fmt(a[lo])}** at t = {lo + 1} (x = {x[lo]:g}): the step is large, the memory is reset "
            f"and this input written. Largest: **{fmt(a[hi])}** at t = {hi + 1} (x = {x[hi]:g}): the step is tiny, "
            f"the memory kept and the input ignored. Final state h = **{fmt(tr.h[-1, 0])}**.")


def scan_text(tree: lesson.ScanTree) -> str:
    T = len(tree.a)
    return (f"The loop takes **{tree.depth['loop']}** steps one after another; the scan **{tree.depth['scan']}** "
            f"levels (log₂{T}), each a single NumPy operation over all nodes, at the price of more work "
            f"({tree.work['scan']} combines against {tree.work['loop']}). The last row equals the loop's h₁…h{sub(T)} "
            f"to **{tree.max_diff:.1e}**.")


def cost_table(c: lesson.ScanCosts) -> pd.DataFrame:
    return pd.DataFrame({"T": [f"2{sup(int(np.log2(T)))}" for T in c.T], "loop work": c.work["loop"],
                         "scan work (H-S)": c.work["hillis_steele"], "scan depth (H-S)": c.depth["hillis_steele"],
                         "loop ms": np.round(1e3 * c.seconds["loop"], 2),
                         "H-S scan ms": np.round(1e3 * c.seconds["hillis_steele"], 2),
                         "Blelloch ms": np.round(1e3 * c.seconds["blelloch"], 2)})


CACHE = SharedCache(8 * 2 ** 20)  # per server: the measured scan costs, and ~20 kB of gradient curves a setting


def measured_costs() -> lesson.ScanCosts:
    """Measured once per server (a few seconds), then shared: timing on every rerun would cost every visitor."""
    if "costs" in CACHE:
        return CACHE.get_arrays("costs", lesson.scan_costs, _cost_arrays)
    with st.spinner("Timing the loop and the scans once for this server…"):
        return CACHE.get_arrays("costs", lesson.scan_costs, _cost_arrays)


def _cost_arrays(c: lesson.ScanCosts) -> list[np.ndarray]:
    return [c.T, *c.work.values(), *c.depth.values(), *c.seconds.values()]


def gradient_curves(H: int, T: int, seed: int) -> dict[str, np.ndarray]:
    """`lesson.gradient_curves`, kept per server and shared (read-only arrays)."""
    return CACHE.get_arrays(("curves", H, T, seed), lambda: lesson.gradient_curves(H, T, seed),
                            lambda c: list(c.values()))


EIGEN_WORDS = f"words-{P}-eigen"  # the eigenvalues' sentence under the plane, which follows a drag of a radius


IMPULSE_STEPS = 1000  # the impulse response's steps
IMPULSE_SPAN = 25  # its frames a set: 1,000 points a frame, 10.7 kB; 25 are 0.27 MB and 0.1-0.25 s here


def impulse(resp: lesson.EigenResponse, fs: float):
    """The impulse response's chart (the page's, and each frame of a radius's drag)."""
    return impulse_response(resp.log10_abs, lesson.LOG_FLOOR, fs)


def scrubs(r: list[float], th: list[float], fs: float) -> list[Scrub]:
    """The radius and angle sliders, whose drag the eigenvalue plane follows (each frame is that chart, the page's own
    call, with one slider moved), and a radius's the sentence under it too (|λ|, half-life and γ; an angle changes
    none of them): neither depends on the steps run, so two are run, not 1,000. A radius's drag moves the impulse
    response as well: each of its frames runs the 1,000 steps (4-10 ms), in sets of IMPULSE_SPAN notches (a server's
    opening computes a first drag's alone: 0.27 MB a set); an angle leaves |h_t| where it was."""
    def at(name: str, k: int, v: float, steps: int = 2) -> lesson.EigenResponse:
        moved = lambda xs: xs[:k] + [v] + xs[k + 1:]  # noqa: E731
        return lesson.eigen_response(moved(r) if name == "r" else r, moved(th) if name == "th" else th, steps)

    def item(name: str, k: int) -> Scrub:
        slider, values = f"{name}{k + 1}", r if name == "r" else th
        # every other slider's value: this kind's others, then the other kind's
        setting = (name, k, tuple(values[:k] + values[k + 1:]), tuple(th if name == "r" else r), fs)
        return Scrub(CONTROLS.key(slider), f"{P}.plane", setting, values[k], *CONTROLS[slider].span,
                     lambda v: eigen_plane(at(name, k, v).lam, fs),
                     words=(lambda v: {EIGEN_WORDS: eigen_text(at(name, k, v))}) if name == "r" else None)

    def response(k: int) -> Scrub:
        setting = ("impulse", k, tuple(r[:k] + r[k + 1:]), tuple(th), fs)
        return Scrub(CONTROLS.key(f"r{k + 1}"), f"{P}.impulse", setting, r[k], *CONTROLS[f"r{k + 1}"].span,
                     lambda v: impulse(at("r", k, v, IMPULSE_STEPS), fs), IMPULSE_SPAN, warm_far=False)
    return [item(name, k) for name in ("r", "th") for k in range(len(r))] + [response(k) for k in range(len(r))]


LINEAR_WORDS = f"words-{P}-linear"  # the step's sentence under the linear chart, which follows a drag of a or b


def linear_scrubs(lin: Linear, t: int, fs: float) -> list[Scrub]:
    """a and b, whose drag the linear chart and the step's sentence under it follow: each frame is that chart and
    sentence (the page's own calls) with a or b moved, the other, the inputs and the step as set."""
    def figure(a: float, b: float):
        tr = lesson.linear_run(a, b, list(lin.x))
        return linear_steps(tr.x[:, 0], tr.h[:, 0], t, fs)

    def words(a: float, b: float) -> dict:
        tr = lesson.linear_run(a, b, list(lin.x))
        return {LINEAR_WORDS: linear_text(lesson.linear_step(tr, t), Linear(a, b, lin.x), t)}
    return each_slider(P, "linear", {"a": lin.a, "b": lin.b}, CONTROLS.spans("a", "b"), (lin.x, t, fs), figure,
                       words=words)


def selective_scrubs(sel: Selective, fs: float) -> list[Scrub]:
    """w and c, whose drag the selective chart follows (its step, kept share and state move; the input stands)."""
    def figure(w: float, c: float):
        tr = lesson.selective_run(list(sel.x), w, c)
        return selective_steps(tr.x[:, 0], tr.delta[:, 0], tr.a[:, 0], tr.h[:, 0], fs)
    return each_slider(P, "selective", {"w": sel.w, "c": sel.c}, CONTROLS.spans("w", "c"), (sel.x, fs), figure)


MIN_WORDS = f"words-{P}-min"  # the minGRU view's step sentence, which follows a drag of H


def min_scrubs(word: str, vocab: list[str], H: int, seed: int, t: int, fs: float) -> list[Scrub]:
    """H, whose drag the minGRU view's three cells at step t follow, and the step's sentence under them (the kept
    shares and the parameter counts): each frame the page's own chart and sentence for the cells at that size."""
    def cells(v: float) -> lesson.MinLockstep:
        return lesson.min_lockstep(word, vocab, v, seed)

    def figure(v: float):
        ls = cells(v)
        return min_lockstep(ls.keep, ls.h, list(word), t, fs, ls.stepwise)
    return [Scrub(CONTROLS.key("H"), f"{P}.min", (word, tuple(vocab), seed, t, fs), H, *CONTROLS["H"].span,
                  figure, words=lambda v: {MIN_WORDS: min_text(cells(v), t, list(word))})]


GRAD_H, GRAD_SEED = 8, 0  # the gradient view's cells: their size and seed


def grad_scrubs(T: int, fs: float) -> list[Scrub]:
    """T, steps back, whose drag the gradient view's chart follows: each frame the page's own chart at that T (3-19 ms
    a frame, 28 kB at T = 300), in sets of 25 notches (about 0.3 s and 0.35 MB). The frames' curves are computed
    afresh, not kept in CACHE: 290 of them would push out the scan's measured costs."""
    return [Scrub(CONTROLS.key("gT"), f"{P}.grad", (GRAD_H, GRAD_SEED, fs), T, *CONTROLS["gT"].span,
                  lambda v: gradient_compare(lesson.gradient_curves(GRAD_H, v, GRAD_SEED), fs), 25)]


def default_scrubs(room: bool) -> list[Scrub]:
    """The page's scrubbed sliders as each of its views opens (see ui/lessons/scalar.py default_scrubs)."""
    c, fs = {p.key.split(".", 1)[1]: p.default for p in PARAMS}, font_scale(room)
    n = c["N"]
    return (scrubs([c[f"r{k}"] for k in range(1, n + 1)], [c[f"th{k}"] for k in range(1, n + 1)], fs)
            + linear_scrubs(Linear(c["a"], c["b"], tuple(parse_sequence(c["x"]))), c["lin.t"], fs)
            + selective_scrubs(Selective(c["w"], c["c"], tuple(parse_sequence(c["sx"]))), fs)
            + grad_scrubs(c["gT"], fs) + min_scrubs(*word_input(c["word"])[:2], c["H"], c["seed"], c["min.t"], fs))
