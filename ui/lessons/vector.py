"""The vector page's words, widget keys, link parameters and edit boxes (their text, parsing and session state); its
numbers are rnnviz/lessons/vector.py."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd
import streamlit as st

from rnnviz.figures import vector as figures
from rnnviz.lessons import vector as lesson
from rnnviz.lessons.vector import StepMoves
from rnnviz.live.frames import SPAN
from rnnviz.live.words import Shown
from rnnviz.text import InputError, fmt, sub
from ui.controls import Control, Controls, time_step
from ui.live.scrub import Scrub
from ui.urlstate import classroom, font_scale
from ui.widgets import SEQUENCE, TEXT_ROWS, error, markdown_table, md

P = "vector"
CONTROLS = Controls(
    P,
    *SEQUENCE,
    Control("H", "H, hidden size", 3, lo=1, hi=64, url="H", scrub=True, help="How many numbers the state holds."),
    Control("K", "K, output size", 2, lo=1, hi=64, url="K", scrub=True,
            help="How many scores the output layer produces."),
    Control("seed", "Seed", 0, kind="number", lo=0, hi=10_000, url="seed",
            help="The same seed gives the same weights."),
    Control("radius", "Spectral radius of Wₕ", 0.9, lo=0.0, hi=3.0, step=0.05, url="rho", scrub=True,
            help="Wₕ (Wₕₕ on later pages, PyTorch's weight_hh) is rescaled so that its largest |eigenvalue| (its "
                 "spectral radius) is this. Below 1 the past fades; above 1 the state can keep or amplify it."),
    Control("wmode", "Weights", "generate", kind="radio", options=("generate", "edit"), url="w",
            help="Generate seeded weights (PyTorch's uniform init), or type every number yourself.",
            widget_kw={"horizontal": True, "format_func": {"generate": "Generate", "edit": "Edit by hand"}.get}),
    time_step(),
    Control("torch", "Check against torch.nn.RNN", False, kind="toggle", url="torch",
            help="Run the same weights through PyTorch's own RNN and compare every state."),
)
PARAMS = CONTROLS.params
EDIT_LIMIT = 16  # largest H, d or K offered for editing by hand
EDIT_DECIMALS = 3  # hand-edited weights are kept to the digits their box shows, so what is shown is what is used
EDIT_MAX_ABS = 10.0
EDIT_MAX_CHARS = 4_000  # a 16 × 16 matrix of -10.000 takes about 2,100 characters


@dataclass(frozen=True, eq=False)  # eq=False: x is an array, which == would compare element by element
class Settings:
    """The page's settings as its controls hold them: the inputs, and the cell's sizes, seed and radius."""

    x: np.ndarray  # (T, d)
    chars: list[str] | None  # the characters read, when x is one-hot text
    vocab: list[str] | None  # the characters the one-hot vectors are over
    H: int
    K: int
    seed: int
    radius: float
    by_hand: bool  # "Edit by hand": the weights are typed, starting from the generated ones


def edited(key: str, name: str, default: np.ndarray, rows: list[str], cols: list[str], what: str) -> np.ndarray:
    """A text box seeded from `default`, one row per line, holding exactly the numbers used (3 decimals, within ±10).
    Text that does not parse gets a message naming the matrix, and the last valid weights stay in use."""
    key = f"{P}.edit.{key}.{len(rows)}x{len(cols)}"
    seed_text = format_matrix(default)
    if key not in st.session_state or st.session_state.get(f"{key}._from") != seed_text:  # new sizes, seed or ρ
        st.session_state[key] = st.session_state[f"{key}._from"] = seed_text
        st.session_state[f"{key}._used"] = grid_values(np.atleast_2d(default))
    label = f"${name}$" if "_" in name else f"**{name}**"
    st.text_area(f"{label}, {what}", key=key, height="content", on_change=tidy, args=(key, name, rows, cols),
                 help="One row per line, numbers separated by spaces or commas.")
    st.caption(md(edit_caption(rows, cols)))
    try:
        st.session_state[f"{key}._used"] = parse_matrix(st.session_state[key], name, rows, cols)
    except InputError as e:
        error(f"{e} The last valid {name} stays in use.")
    return st.session_state[f"{key}._used"]


def tidy(key: str, name: str, rows: list[str], cols: list[str]) -> None:
    """Rewrite a valid edit as it is used (3 decimals), so the box shows exactly that; bad text stays to be fixed."""
    try:
        st.session_state[key] = format_matrix(parse_matrix(st.session_state[key], name, rows, cols))
    except InputError:
        if not isinstance(st.session_state[key], str):  # a crafted widget state: the box shows the weights in use
            st.session_state[key] = format_matrix(st.session_state[f"{key}._used"])


def edit_weights(w: dict, s: Settings) -> bool:
    """Replace the generated weights by hand-edited ones (in place); False where the sizes are too large."""
    x, vocab, H, K = s.x, s.vocab, s.H, s.K
    if max(H, x.shape[1], K) > EDIT_LIMIT:
        st.warning(f"Editing by hand is offered up to size {EDIT_LIMIT}; using generated weights.")
        return False
    units = [f"h{k + 1}" for k in range(H)]
    outs = [repr(c) for c in vocab] if vocab else [f"y{k + 1}" for k in range(K)]
    st.html(f"<style>[class*='st-key-{P}-edit-'] textarea {{font-family: 'Source Code Pro', monospace; "
            f"white-space: pre; overflow-x: auto; font-size: {0.875 * font_scale():.2f}rem}}</style>")  # static CSS
    st.caption(f"Numbers within −10 … 10, kept to {EDIT_DECIMALS} decimals: the boxes show exactly the "
               "numbers used. Hand-edited weights are not carried by the page link. The boxes start from the "
               "generated weights: a new seed or size starts them all again, a new spectral radius Wₕ's, replacing "
               "your edits.")
    ins = [f"x{k + 1}" for k in range(x.shape[1])] if vocab is None else [repr(c) for c in vocab]
    w["W_x"] = edited("W_x", "Wₓ", w["W_x"], units, ins, "input weights (row: unit, column: input)")
    w["W_h"] = edited("W_h", "Wₕ", w["W_h"], units, units, "memory weights (row: unit, column: previous unit)")
    w["b"] = edited("b", "b", w["b"][:, None], units, ["b"], "bias of each unit")[:, 0]
    w["W_y"] = edited("W_y", "W_y", w["W_y"], outs, units, "output weights (row: score, column: unit)")
    w["b_y"] = edited("b_y", "b_y", w["b_y"][:, None], outs, ["b_y"], "output bias")[:, 0]
    return True


# The six moves' panel titles (rnnviz.figures.vector.six_moves draws them), a name and the move's formula, every line
# short: at 1024 px beside the sidebar a panel is about 55 px wide, and '① read input' ran into '② read memory'. On a
# projector names only: at its type the formulas ran into each other (the table of the step's numbers has them).
MOVE_TITLES = ["① input<br>W<sub>x</sub>x<sub>t</sub>", "② memory<br>W<sub>h</sub>h<sub>t−1</sub>", "③ add<br>①+②+b",
               "④ squash<br>tanh(③)", "⑤ predict<br>softmax(W<sub>y</sub>h<sub>t</sub>+b<sub>y</sub>)"]
MOVE_NAMES = ["① input", "② memory", "③ add", "④ squash", "⑤ predict"]


def move_titles() -> list[str]:
    """The six moves' panel titles for this mode: names and formulas, or names only on a projector."""
    return MOVE_NAMES if classroom() else MOVE_TITLES


def pass_on_text(t: int, T: int, probs: np.ndarray, vocab: list[str] | None) -> str:
    """Move ⑥ in words: h_t goes on to the next step; with characters, the model's best guess for the next one."""
    nxt = f"step {t + 1}" if t < T else "the next step, if there were one,"
    best = int(np.argmax(probs))
    guess = (f" The model's best guess for the next character is {md(repr(vocab[best]))} (p = {fmt(probs[best])})."
             if vocab else "")
    return f"⑥ **Pass it on**: h{sub(t)} becomes the memory hₜ₋₁ that {nxt} reads.{guess}"


def grid_values(a: np.ndarray) -> np.ndarray:
    """Weights as the edit box shows and the page uses them: finite (nan counts as 0), within ±10, rounded to
    EDIT_DECIMALS."""
    a = np.nan_to_num(np.asarray(a, dtype=float), nan=0.0, posinf=EDIT_MAX_ABS, neginf=-EDIT_MAX_ABS)
    return np.round(np.clip(a, -EDIT_MAX_ABS, EDIT_MAX_ABS), EDIT_DECIMALS)


def format_matrix(a: np.ndarray) -> str:
    """A weight matrix as its edit box holds it: one row per line, EDIT_DECIMALS decimals, columns right-aligned."""
    a = grid_values(np.atleast_2d(a)) + 0.0  # + 0.0 turns -0.0 into 0.0: no "-0.000"
    cells = [[f"{v:.{EDIT_DECIMALS}f}" for v in row] for row in a]
    widths = [max(len(row[j]) for row in cells) for j in range(len(cells[0]))]
    return "\n".join(" ".join(c.rjust(w) for c, w in zip(row, widths)) for row in cells)


_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)


def parse_matrix(text, name: str, rows: list[str], cols: list[str]) -> np.ndarray:
    """The text of an edit box -> (len(rows), len(cols)) weights rounded to EDIT_DECIMALS; one row per line (or ';'),
    numbers separated by spaces or commas. Anything else raises InputError naming the matrix and what is wrong."""
    shape = f"{len(rows)} × {len(cols)}"
    if not isinstance(text, str):
        raise InputError(f"{name}: the edit was not text; type {shape} numbers.")
    if len(text) > EDIT_MAX_CHARS:
        raise InputError(f"{name}: {len(text):,} characters is more than a {shape} matrix needs "
                         f"(at most {EDIT_MAX_CHARS:,}).")
    lines = [r for r in re.split(r"[;\n\r\v\f\x1c-\x1e\x85\u2028\u2029]+", text.replace("−", "-")) if r.strip()]
    if len(lines) != len(rows):
        typed = f"{len(lines)} row{'' if len(lines) == 1 else 's'} typed" if lines else "nothing typed"
        raise InputError(f"{name}: {typed}; it needs {len(rows)}, one line per row ({_names(rows)}).")
    out = []
    for row, line in zip(rows, lines):
        parts = [p for p in re.split(r"[,\s\[\]]+", line) if p]
        if len(parts) != len(cols):
            typed = f"{len(parts)} number{'' if len(parts) == 1 else 's'}"
            raise InputError(f"{name}: row {row} has {typed}; it needs {len(cols)}, one per column ({_names(cols)}).")
        for col, p in zip(cols, parts):
            where = f"{name}, row {row}, column {col}"
            if not _NUMBER.fullmatch(p):
                finite = p.lstrip("+-").lower() not in ("nan", "inf", "infinity")
                raise InputError(f"{where}: '{_cut(p)}' is not {'a' if finite else 'a finite'} number.")
            if not abs(float(p)) <= EDIT_MAX_ABS:
                raise InputError(f"{where}: {_cut(p)} is beyond ±{EDIT_MAX_ABS:g}; weights here stay within "
                                 f"−{EDIT_MAX_ABS:g} … {EDIT_MAX_ABS:g}.")
        out.append([float(p) for p in parts])
    return np.round(np.array(out), EDIT_DECIMALS)


def edit_caption(rows: list[str], cols: list[str]) -> str:
    """What the lines and columns of an edit box stand for: 'rows h1, h2, h3 · columns 'h', 'e', 'l', 'o''."""
    return f"rows {', '.join(rows)} · " + (f"columns {', '.join(cols)}" if len(cols) > 1 else "one number a row")


def _cut(p: str) -> str:
    return p if len(p) <= 12 else p[:12] + "…"


def _names(labels: list[str]) -> str:
    return ", ".join(labels) if len(labels) <= 8 else f"{', '.join(labels[:3])}, …, {labels[-1]}"


def step_table(m: StepMoves) -> dict[str, np.ndarray]:
    """The numbers of one step, one column per move, headers with real subscripts; rounded to 4 decimals."""
    return {"Wₓxₜ": np.round(m.read_input, 4), "Wₕhₜ₋₁": np.round(m.read_memory, 4), "b": np.round(m.bias, 4),
            "z = sum": np.round(m.z, 4), "hₜ = tanh(z)": np.round(m.h, 4)}


def untrained_note(seed: int, edited: bool) -> str:
    """What the weights are: random and untrained (so move ⑤ predicts by chance), or typed by hand."""
    if edited:
        return "Weights typed by hand (untrained): the prediction in move ⑤ is whatever these numbers give."
    return (f"**Untrained**: the weights are random (seed {seed}), so the prediction in move ⑤ is a guess by chance; "
            "the *Train \"hello\"* page trains a cell like this one.")


HEATMAP_MAX_H = 16  # Wₕ's heatmap is drawn up to this size: past it, its cells are too small to read


def no_heatmap(H: int) -> str:
    """Where Wₕ's heatmap would be, past HEATMAP_MAX_H: why there is none."""
    return (f"No heatmap of Wₕ at this size: {H}×{H} = {H * H:,} weights are too many cells to read, so it is drawn "
            f"for H up to {HEATMAP_MAX_H}. Its singular values (the bars) sum up how far it can stretch a state.")


SPECTRUM_NOTE = (
    "Spectral radius: the largest |eigenvalue| of Wₕ, which decides what many multiplications by Wₕ do in the long "
    "run. σ₁ ≥ σ₂ ≥ …: the singular values, how far Wₕ can stretch a vector in one step. The largest, σₘₐₓ = σ₁, "
    "is never below the spectral radius; when σₘₐₓ < 1 (and tanh′ ≤ 1) every step can only shrink a change in "
    "the state, so gradients through many steps are guaranteed to vanish.")



def spectrum_chart(W_h: np.ndarray, fs: float):
    """The singular values of W_h as bars, its spectral radius named."""
    rho, sv = lesson.spectrum(W_h)
    return figures.singular_value_bars(sv[:32], rho, fs, of=len(sv))


def memory_chart(W_h: np.ndarray, fs: float):
    """W_h as a heatmap (the page draws it up to HEATMAP_MAX_H)."""
    return figures.matrix_heatmap(W_h, "W<sub>h</sub> (memory weights)", font_scale=fs)


PASS_WORDS, TABLE_WORDS = "words-vector-pass", "words-vector-table"  # the containers of the words a drag writes


def step_words(m: StepMoves, t: int, T: int, vocab: list[str] | None) -> dict[str, str]:
    """The step's words that follow a drag of the radius: move ⑥'s sentence and the step's table (as the page writes
    it up to 30 units: a longer one is a grid, whose cells are no text to write)."""
    table = {TABLE_WORDS: markdown_table(step_frame(m), 4)} if len(m.h) <= TEXT_ROWS else {}
    return {PASS_WORDS: pass_on_text(t, T, m.probs, vocab)} | table


def step_frame(m: StepMoves) -> pd.DataFrame:
    """The step's table as the page draws it: a row per unit."""
    return pd.DataFrame(step_table(m), index=[f"h{k + 1}" for k in range(len(m.h))])


def scrubs(s: Settings, fs: float, t: int, room: bool) -> list[Scrub]:
    """The spectral radius and the hidden size H, whose drag the page's charts of W_h follow (its singular values and
    heatmap) and, at step t, the six moves, the heatmap of states (the intro's "watch it fill with ±1") and the
    step's words: each frame the page's own chart for the weights generated at that value (64 units: 5 ms). None
    while the weights are typed by hand (neither sets them). The moves' titles are the projector's on one (`room`).
    Past HEATMAP_MAX_H units the page has no heatmap of W_h: its frames stop there (greyed beyond). Through a drag of
    H the step's table, a row per unit, greys until the release. Where the inputs are vectors (no vocabulary) the
    output size K has a slider too, whose drag the six moves follow (K sets W_y and b_y alone: the charts of W_h,
    the states and the words stand)."""
    if s.by_hand:
        return []
    d, T, titles = s.x.shape[1], s.x.shape[0], MOVE_NAMES if room else MOVE_TITLES

    @lru_cache(maxsize=SPAN)  # the charts of a set's frames (SPAN at most), then their words: each value's weights
    # made once
    def generated(name: str, v: float) -> dict:
        return lesson.generate(d, v if name == "H" else s.H, v if name == "K" else s.K, s.seed,
                               v if name == "radius" else s.radius)

    @lru_cache(maxsize=SPAN)  # and the cell run once for the moves, the states and the words
    def run(name: str, v: float):
        w = generated(name, v)
        H = w["W_h"].shape[0]
        setup = lesson.VectorSetup(s.x, w["W_x"], w["W_h"], w["b"], w["W_y"], w["b_y"], np.zeros(H), s.chars)
        return setup, lesson.run(setup)

    def moves(name: str):
        def at(v: float):
            setup, trace = run(name, v)
            return figures.six_moves(lesson.moves(setup, trace, t), s.vocab, fs, titles,
                                     lesson.moves_scale(setup, trace))
        return at

    def said(name: str):
        def at(v: float) -> dict:
            out = step_words(lesson.moves(*run(name, v), t), t, T, s.vocab)
            return out | {TABLE_WORDS: Shown(stale=True)} if name == "H" else out
        return at

    def follow(name: str, chart):  # the charts of W_h alone: no run of the cell
        return lambda v: chart(generated(name, v)["W_h"], fs)

    def items(name: str) -> list[Scrub]:
        others = {"radius": s.radius, "H": s.H, "K": s.K}
        setting = (d, s.seed, fs, name) + tuple(u for n, u in others.items() if n != name)
        at_t = (s.x.tobytes(), tuple(s.chars or ()), tuple(s.vocab or ()), t, room)
        lo, hi, step = CONTROLS[name].span

        # the states' frames hold ~10 bytes a unit and step: sets of at most 0.8 MB at the largest H the slider
        # reaches (all 64 sizes of "hello" in one set; 10 a set of a 120-character word)
        span = max(4, min(SPAN, 80_000 // ((CONTROLS["H"].hi if name == "H" else s.H) * T)))

        def item(chart: str, key: tuple, build, top: float = hi, **kw) -> Scrub:
            return Scrub(CONTROLS.key(name), f"{P}.{chart}", key, others[name], lo, top, step, build,
                         span=span, **kw)
        moved = [item("moves", setting + at_t, moves(name), words=None if name == "K" else said(name))]
        if name == "K":
            return moved
        heatmap = ([item("Wh", setting, follow(name, memory_chart), HEATMAP_MAX_H if name == "H" else hi)]
                   if s.H <= HEATMAP_MAX_H else [])  # the page draws it up to HEATMAP_MAX_H units
        return [item("sv", setting, follow(name, spectrum_chart))] + heatmap + moved + [
            item("heat", setting + at_t, lambda v: figures.states_heatmap(run(name, v)[1].h, s.chars, fs,
                                                                           current=t - 1))]
    return items("radius") + items("H") + (items("K") if s.vocab is None else [])


def default_scrubs(room: bool) -> list[Scrub]:
    """The page's scrubbed sliders as it opens (see ui/lessons/scalar.py default_scrubs)."""
    d = CONTROLS.defaults()
    word, vocab = d["word"], lesson.parse_vocab(d["vocab"])
    return scrubs(Settings(lesson.encode_word(word, vocab), list(word), vocab, d["H"], len(vocab), d["seed"],
                           d["radius"], False), font_scale(room), d["t"], room)  # one score per character read
