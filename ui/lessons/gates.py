"""The gates page's words, widget keys, link parameters and the valve's per-server cache (its numbers are
rnnviz/lessons/gates.py): equations, symbols, table headers, captions, the lockstep and valve sentences, and the
one-cell view's drag frames. How much of x₁ survives in the three cells side by side: ui/lessons/gates_memory.py."""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np
import pandas as pd

from rnnviz.figures import gates as figures
from rnnviz.lessons import gates as lesson, vector as vectors
from rnnviz.lessons.cache import SharedCache
from rnnviz.lessons.gates import Lockstep, Valve, shape_summary, valve_experiment
from rnnviz.live.frames import SPAN
from rnnviz.live.words import Shown
from rnnviz.nn.cells import get, sigmoid
from rnnviz.text import fmt, sub
from ui.controls import Control, Controls, time_step
from ui.lessons.scalar import near_one
from ui.live.scrub import Scrub
from ui.urlstate import font_scale
from ui.widgets import SEQUENCE, markdown_table, md, steps_ahead

P = "gates"
VIEWS = {"cell": "One gated cell", "lockstep": "Three cells side by side"}
LETTERS = "abcdefgh"  # the lag task's 8 symbols, as letters
CONTROLS = Controls(
    P,
    Control("view", "View", "cell", kind="segmented", options=tuple(VIEWS), url="view",
            help="One gated cell in detail, or three cells of equal size stepped together.",
            widget_kw={"required": True, "format_func": VIEWS.get}),
    *SEQUENCE,
    Control("cell", "Cell", "lstm", kind="segmented", options=("lstm", "gru"), url="cell",
            help="LSTM: four gate blocks and a separate cell state. GRU: three blocks, no cell state.",
            widget_kw={"required": True, "format_func": {"lstm": "LSTM", "gru": "GRU"}.get}),
    # LOCKSTEP_H: its range in the lockstep view
    Control("H", "H, hidden size", 3, lo=1, hi=64, url="H", scrub=True, help="Units per state vector."),
    Control("seed", "Seed", 0, kind="number", lo=0, hi=10_000, url="seed",
            help="The same seed gives the same weights."),
    Control("radius", "Spectral radius of each Wₕₕ block", 0.9, lo=0.0, hi=3.0, step=0.05, url="rho", scrub=True,
            help="Each gate's recurrent block is rescaled so its largest |eigenvalue| is this."),
    Control("bf", "Forget-gate bias $b_f$ (LSTM)", 1.0, lo=-5.0, hi=5.0, step=0.1, url="bf", scrub=True,
            help="Added before the forget gate's sigmoid. Setting it to 1 or 2 makes the cell start out keeping more "
                 "than it erases."),
    Control("torch", "Check with PyTorch", False, kind="toggle", url="torch",
            help="Run torch.nn.RNN, LSTM and GRU on the same weights and input, and count their parameters."),
    Control("trained", "Trained on the lag task", True, kind="toggle", url="trained",
            help="The three cells trained by `python -m rnnviz.lag` to name the first of "
                 f"{len(LETTERS)} symbols after the longest lag, instead of random weights. They read "
                 f"{len(LETTERS)}-wide inputs: one-hot letters of {LETTERS}, or typed vectors of 8 numbers."),
    time_step(),
    Control("numbers", "This step's numbers, with the products", False, kind="expander", url="numbers",
            widget_kw={"on_change": "rerun"}),  # open, a link shows them
    Control("T", "Steps", 400, lo=10, hi=2000, step=10, url="valveT", scrub=True,
            help="How long the silence after the first input lasts."),
)
LOCKSTEP_H = {"label": "H of the LSTM (sets the parameter budget)",  # H in the lockstep view (a link's notice
              "help": "The GRU and the vanilla RNN get the hidden sizes whose parameter counts come closest to the "
                      "LSTM's."}  # names the declared label, the one view's one)
PARAMS = CONTROLS.params
STEPPER = [p for p in PARAMS if p.key in {CONTROLS.key("t"), CONTROLS.key("numbers")}]  # what a step's rerun writes
VALVE = [p for p in PARAMS if p.key == CONTROLS.key("T")]  # what the valve's slider writes
SETTINGS = [p for p in PARAMS if p not in STEPPER + VALVE and p.key != CONTROLS.key("view")]  # a view's own
UNTRAINED = ("*Untrained:* the weights are random (seed {seed}), so the gates show what a cell does before it "
             "learns, not what it has learned.")
STEP_WORDS = "words-gates-step"  # the container of the step's sentence, which follows a drag
CELL_BYTES = 2600  # a set's 0.8 MB of frames over ~300 bytes a unit and step: its notches are this over H x T
COLOUR_WORDS = "words-gates-colours"  # the colour key under the heatmaps: c's range follows a drag
FORGET_WORDS = "words-gates-forget"  # where the forget gates start: follows a drag of b_f
VALVE_WORDS, VALVE_TABLE = "words-gates-valve", "words-gates-valve-table"  # the valve's sentence and table: they
# follow a drag of its Steps
SHAPE_WORDS = "words-gates-shape"  # the shapes paragraph: greyed through a drag of H (its LaTeX is no text to write)


@dataclass(frozen=True)
class GateSetup:
    """A view's settings as its widgets hold them: what its charts, the lockstep and the export are drawn from."""

    cell: str  # "lstm" or "gru" (the lockstep view runs all three cells)
    x: np.ndarray  # the inputs, (T, d)
    chars: list[str] | None  # the characters read, or None for typed vectors
    H: int
    seed: int
    radius: float
    bf: float  # 0 where the cell has no forget gate
    trained: bool


def colour_key(names: list[str], trace, t: int, T: int) -> str:
    """The heatmap's colour scales in words, with the range the cell state c is drawn on (computed from the run)."""
    gates = [n for n in names if n in ("f", "i", "o", "r", "z")]  # sigmoid gates, 0..1
    states = [n for n in names if n not in gates]
    parts = []
    if gates:
        parts.append(f"gates ({', '.join(gates)}) from 0, white (closed), to 1, amber (open)")
    if states:
        lim = max(1.0, float(np.abs(trace.c).max())) if "c" in states else 1.0
        rng = "−1 purple, 0 white, +1 dark grey" + (f"; c on ±{lim:.2f}" if lim > 1 else "")
        parts.append(f"states ({', '.join(states)}) {rng}")
    return " ".join(filter(None, ["Colours: " + "; ".join(parts) + ".", steps_ahead(t, T)]))  # '' at the last step


VALVES = SharedCache(2 ** 23)  # per server: up to ~180 kB a run at T = 2000


def shared_valve(T: int) -> Valve:
    """`valve_experiment(T)`, kept per server and shared between sessions: read-only."""
    return VALVES.get_arrays(T, lambda: valve_experiment(T),
                             lambda v: [v.x, *vars(v.lstm).values(), *vars(v.rnn).values()])


def title(cell: str) -> str:
    """A cell's name heading a sentence or a panel (the registry's)."""
    return get(cell).presentation.heading


# One equation per line where a line would otherwise run past a 1400 px column (the GRU's).
EQUATIONS = {
    "lstm": r"""\begin{aligned}
f_t &= \sigma(W_f[h_{t-1}, x_t] + b_f) & i_t &= \sigma(W_i[h_{t-1}, x_t] + b_i) \\
g_t &= \tanh(W_g[h_{t-1}, x_t] + b_g) & o_t &= \sigma(W_o[h_{t-1}, x_t] + b_o) \\
c_t &= f_t \odot c_{t-1} + i_t \odot g_t & h_t &= o_t \odot \tanh(c_t)
\end{aligned}""",
    "gru": r"""\begin{aligned}
r_t &= \sigma(W_{ir} x_t + b_{ir} + W_{hr} h_{t-1} + b_{hr}) \\
z_t &= \sigma(W_{iz} x_t + b_{iz} + W_{hz} h_{t-1} + b_{hz}) \\
n_t &= \tanh\big(W_{in} x_t + b_{in} + r_t \odot (W_{hn} h_{t-1} + b_{hn})\big) \\
h_t &= (1 - z_t) \odot n_t + z_t \odot h_{t-1}
\end{aligned}""",
}
SYMBOLS = {
    "lstm": "$x_t$: the input at step $t$; $h_{t-1}$: the previous hidden state; $[h_{t-1}, x_t]$: the two stacked "
            "into one vector; $W_\\bullet, b_\\bullet$: each gate's weights and bias. $\\sigma$, the sigmoid, "
            "squashes to (0, 1), so a gate is a dial from shut (0) to open (1); $\\tanh$ squashes to (−1, 1); "
            "$\\odot$ multiplies entry by entry. $f$ forget (how much of $c_{t-1}$ to keep), $i$ input (how much of "
            "the candidate $g$ to write), $o$ output (how much of the cell to show), $c$ the cell state, $h$ the "
            "hidden state.",
    "gru": "$x_t$: the input at step $t$; $h_{t-1}$: the previous state; $W_{i\\bullet}, b_{i\\bullet}$ read the input "
           "and $W_{h\\bullet}, b_{h\\bullet}$ read the memory (PyTorch's names). $\\sigma$, the sigmoid, squashes "
           "to (0, 1), so a gate is a dial from shut (0) to open (1); $\\tanh$ squashes to (−1, 1); "
           "$\\odot$ multiplies entry by entry. $r$ reset (how much memory the candidate reads), $z$ update (how much "
           "of $h_{t-1}$ to keep), $n$ the candidate, $h$ the state.",
}
# Column headers of the step table, with real subscripts (a table's headers are markdown, LaTeX included).
HEADERS = {"f": "$f_t$", "i": "$i_t$", "g": "$g_t$", "o": "$o_t$", "c_prev": "$c_{t-1}$",
           "f*c_prev": "$f_t \\odot c_{t-1}$", "i*g": "$i_t \\odot g_t$", "c": "$c_t$", "tanh(c)": "$\\tanh(c_t)$",
           "h": "$h_t$", "r": "$r_t$", "z": "$z_t$", "n": "$n_t$",
           "h_prev": "$h_{t-1}$", "(1-z)*n": "$(1 - z_t) \\odot n_t$", "z*h_prev": "$z_t \\odot h_{t-1}$"}


def forget_caption(bf: float) -> str:
    """Where the forget gates start for a bias b_f (markdown)."""
    # no LaTeX: a drag of b_f writes its words; short, so that H is on a projector's first screen under it (the
    # symbols' paragraph beside the equations says what σ is)
    return f"Each forget gate starts at σ({bf:g}) = **{near_one(float(sigmoid(bf)))}** when nothing else feeds it."


def step_alt(names: list[str], values: dict[str, np.ndarray], t: int) -> str:
    """Text alternative for the gate heatmap: what it shows, and the current step's values."""
    return (f"gates and states over time for {', '.join(names)}; at step {t}: "
            + "; ".join(f"{n} = " + ", ".join(f"{v:.2f}" for v in values[n]) for n in names))


def step_table(values: dict[str, np.ndarray], digits: int = 4) -> pd.DataFrame:
    """One step's numbers, units down, with LaTeX column headers; values rounded for display."""
    H = len(next(iter(values.values())))
    return pd.DataFrame({HEADERS.get(k, k): np.round(v, digits) for k, v in values.items()},
                        index=[f"unit {k + 1}" for k in range(H)])


def step_tables(values: dict[str, np.ndarray], digits: int = 4) -> list[pd.DataFrame]:
    """The step table in two: the gates, then the memory's update from the state before to hₜ (in one, an LSTM's
    11 columns were 794 px in a projector's 638 px column, hₜ scrolled out of sight)."""
    tab = step_table(values, digits)
    state = [HEADERS[k] for k in ("c_prev", "h_prev") if k in values]  # where the memory's update begins
    cut = tab.columns.get_loc(state[0]) if state else 0
    return [tab.iloc[:, :cut], tab.iloc[:, cut:]] if cut else [tab]  # no gates (a vanilla cell): one table


def step_sentence(values: dict[str, np.ndarray]) -> str:
    """What the gates did on average at this step, in words (markdown; subscripts as Unicode characters, so this
    line, redrawn at every step, needs no math typesetting)."""
    if "f" in values:  # an LSTM's step
        return (f"On average the forget gates keep **{np.mean(values['f']):.0%}** of cₜ₋₁ and the input gates let "
                f"in **{np.mean(values['i']):.0%}** of the candidate gₜ.")
    return (f"On average the update gates keep **{np.mean(values['z']):.0%}** of hₜ₋₁ and take "
            f"**{1 - np.mean(values['z']):.0%}** from the candidate nₜ; the reset gates let the candidate read "
            f"**{np.mean(values['r']):.0%}** of the memory.")


def shape_text(cell: str, d: int, H: int) -> str:
    """The shapes paragraph (markdown), every number computed."""
    s = shape_summary(cell, d, H)
    return (f"**Shapes.** {s['G']} gate blocks stacked, for d = {d} inputs and H = {H} units: one matrix of "
            f"{s['G']}H × (H + d) = **{s['stacked'][0]} × {s['stacked'][1]}** (PyTorch keeps it as $W_{{ih}}$ "
            f"{s['W_ih'][0]} × {s['W_ih'][1]} and $W_{{hh}}$ {s['W_hh'][0]} × {s['W_hh'][1]}, "
            "the cell page's Wₓ and Wₕ with one block per gate); "
            f"**{s['params']:,}** parameters with both bias vectors.")



def lockstep_notes(ls: Lockstep, t: int) -> dict[str, str]:
    """Per cell at step t: the length of its state, then the mean of each gate on a second line (chart markup); two
    short lines, as the three cells' titles share the width of a 1024 px projector."""
    notes = {}
    for c in ls.traces:  # the gates each cell's lockstep panels show: their means
        tr, k = ls.traces[c], t - 1
        gates = [g for g in get(c).presentation.lockstep_panels if g in get(c).sigmoid_gates]
        means = " · ".join(f"{g}<sub>t</sub> {np.mean(getattr(tr, g)[k]):.2f}" for g in gates)
        notes[c] = f"‖h<sub>t</sub>‖ {np.linalg.norm(tr.h[k]):.3f}" + (f"<br>mean {means}" if gates else "")
    return notes


LOCKSTEP_KEY = ("$H$: hidden size (units per state); ‖hₜ‖: the length of the state vector, "
                "$\\sqrt{\\sum_k h_{t,k}^2}$; mean: the average over units of the forget $f_t$, input $i_t$ and "
                "output $o_t$ gates (LSTM) or the reset $r_t$ and update $z_t$ gates (GRU); $c_t$: the LSTM's cell "
                "state. Heatmaps: amber for gates (white 0 shut, amber 1 open), purple below zero to dark grey above "
                "for states (−1 to 1); the outlined column is step $t$, its values printed.")


def lockstep_alt(ls: Lockstep, t: int) -> str:
    """Text alternative for the three-cell heatmaps: each cell's state at step t."""
    return f"three cells at step {t}: " + "; ".join(
        f"{title(c)} h = " + ", ".join(f"{v:.2f}" for v in tr.h[t - 1]) for c, tr in ls.traces.items())


def lockstep_text(ls: Lockstep) -> str:
    """How the hidden sizes were matched (markdown), every count computed."""
    d, s, p = ls.x.shape[1], ls.sizes, ls.params
    return (f"The LSTM with $H$ = {s['lstm']} sets the budget: **{ls.budget:,}** parameters for $d$ = {d} inputs. "
            f"The GRU gets $H$ = {s['gru']} (**{p['gru']:,}**) and the vanilla RNN $H$ = {s['rnn']} "
            f"(**{p['rnn']:,}**): the sizes whose counts come closest. "
            f"Per unit a vanilla cell needs one block of weights, a GRU three, an "
            "LSTM four, so for the same budget the vanilla cell gets the most units.")



def torch_caption(ls: Lockstep, res: dict[str, tuple[float, int]]) -> str:
    """What the PyTorch cross-check found, per cell."""
    return "PyTorch on the same weights: " + "; ".join(
        f"{title(c)} agrees to {d:.1e}, {n:,} parameters "
        f"({'equal to' if n == ls.params[c] else 'NOT equal to'} ours)" for c, (d, n) in res.items()) + "."



def valve_text(valve: Valve) -> str:
    """The valve's explanation (markdown), with its weights' numbers; Unicode subscripts, as it is redrawn with
    every move of the slider."""
    T, w = len(valve.x), valve.weights
    return (f"Input: a single 1, then {T - 1} zeros. The LSTM's forget gate is σ({w['b_f']:g}) = {w['f']:.10f}; its "
            f"input gate is open only while x = 1 (i = {w['i (x=1)']:.10f}, then {fmt(w['i (x=0)'])}), so "
            f"cₜ = cₜ₋₁ + 0 copies. The vanilla unit hₜ = tanh(xₜ + {w['w_h']:g} hₜ₋₁) multiplies by {w['w_h']:g} "
            "and squashes at every step.")


def valve_table(valve: Valve) -> pd.DataFrame:
    """The LSTM's cell state and the vanilla state at t = 1, 10 and T (1, 5 and 10 where T is 10): one row per time,
    so it stays narrow. Three rows at every notch of Steps, so that its numbers follow a drag there (ui/live/words.js
    greys a table of another shape)."""
    T = len(valve.x)
    ts = sorted({1, 10 if T > 10 else (T + 1) // 2, T})
    return pd.DataFrame({"t": ts, "LSTM cell state cₜ": [f"{valve.lstm.c[t - 1, 0]:.4f}" for t in ts],
                         "vanilla hₜ": [fmt(valve.rnn.h[t - 1, 0], 4).replace(" ", "\u00a0") for t in ts]}
                        ).set_index("t")  # a power of ten kept on one line in the narrow column


def step_words(c: GateSetup, model, t: int) -> str:
    """Step t in words above the gate heatmaps (markdown): what was read, and what the gates did on average."""
    what = f"the character {md(repr(c.chars[t - 1]))}" if c.chars else f"the vector x{sub(t)}"
    return f"**Step {t} of {len(c.x)}**, reading {what}. {step_sentence(lesson.step_values(c.cell, model, t))}"


def heat_chart(c: GateSetup, model, t: int, fs: float, split: bool):
    """The gate heatmaps of one gated cell, step t marked; `split`: gates beside states (on a projector)."""
    return figures.gate_heatmaps(model, lesson.panels(c.cell), c.chars, current=t - 1, font_scale=fs, split=split)


def scrubs(c: GateSetup, t: int, fs: float, split: bool) -> list[Scrub]:
    """The hidden size H, the spectral radius and (an LSTM's) forget bias, whose drag the gate heatmaps at step t
    follow, the step's sentence and the colour key (c's range) with them, and b_f's where the forget gates start: each
    frame the page's own chart and words for the weights generated at that value (a few ms; 64 units, 12 ms: the cell
    runs once for both). Through a drag of H the shapes paragraph greys until the release. A frame holds every cell's
    number and hover (100 kB at 64 units of "hello"): fewer notches a set where it holds more, so that a set stays
    well under a message's 2 MB."""
    @lru_cache(maxsize=SPAN)  # a set's charts, then their words (SPAN at most): the cell runs once for both
    def run(name: str, v: float):
        s = replace(c, **{name: v})
        return s, lesson.run(s.cell, s.x, lesson.generate(s.cell, s.x.shape[1], s.H, s.seed, s.radius, s.bf))

    def moved(name: str, draw):
        return lambda v: draw(*run(name, v))

    def said(name: str):
        shape = {SHAPE_WORDS: Shown(stale=True)} if name == "H" else {}
        return moved(name, lambda s, m: {STEP_WORDS: step_words(s, m, t),
                                         COLOUR_WORDS: colour_key(lesson.panels(s.cell), m, t, len(s.x))} | shape
                     | ({FORGET_WORDS: forget_caption(s.bf)} if name == "bf" else {}))
    setting = (c.cell, c.x.tobytes(), c.x.shape, tuple(c.chars or ()), c.seed, t, fs, split)
    sliders = ("H", "radius", "bf") if get(c.cell).forget_gate is not None else ("H", "radius")
    def span(n: str) -> int:  # a frame holds ~300 bytes a unit and step (its numbers, labels and hover): sets of
        # at most 0.8 MB at the largest H the slider reaches (64 units of "hello": 8 notches a set)
        return max(2, min(SPAN, CELL_BYTES // ((CONTROLS["H"].hi if n == "H" else c.H) * len(c.x))))
    return [Scrub(CONTROLS.key(n), f"{P}.heat", setting + tuple(getattr(c, o) for o in sliders if o != n),
                  getattr(c, n), *CONTROLS[n].span, moved(n, lambda s, m: heat_chart(s, m, t, fs, split)),
                  span=span(n), words=said(n)) for n in sliders]


def valve_scrubs(T: int, fs: float) -> list[Scrub]:
    """The valve's Steps, whose drag its chart follows, its sentence and its table with it: each frame the page's own
    chart and words for the valve run that long (8-23 ms and about 10 kB a frame: the chart draws at most 180 of the
    steps, every pixel of its log axis). 200 notches, about 3 s and 2 MB in all."""
    def said(v: int) -> dict[str, str]:
        res = shared_valve(v)
        return {VALVE_WORDS: valve_text(res), VALVE_TABLE: markdown_table(valve_table(res))}
    return [Scrub(CONTROLS.key("T"), f"{P}.valve", (fs,), T, *CONTROLS["T"].span,
                  lambda v: figures.valve_figure(shared_valve(v), fs), words=said)]


def default_scrubs(room: bool) -> list[Scrub]:
    """The cell view's scrubbed sliders as it opens (see ui/lessons/scalar.py), split heatmaps on a projector, and the
    valve's."""
    d, fs = CONTROLS.defaults(), font_scale(room)
    x = vectors.encode_word(d["word"], vectors.parse_vocab(d["vocab"]))
    return scrubs(GateSetup(d["cell"], x, list(d["word"]), d["H"], d["seed"], d["radius"], d["bf"], False), d["t"], fs,
                  room) + valve_scrubs(d["T"], fs)
