"""The gates page's three cells side by side, in words: how much of x₁ survives in each, the two inputs that show it
(presets), the view opening on what it teaches, the shipped trained cells, and what a class question asks of
memory (its numbers: rnnviz/lessons/memory.py; its Streamlit view: ui/lagview.py)."""
from __future__ import annotations

import streamlit as st

from rnnviz.experiments import lag_results
from rnnviz.lessons import memory
from rnnviz.lessons.gates import Lockstep, lockstep
from rnnviz.nn.cells import compared, get
from rnnviz.text import fmt
from ui.lessons.gates import CONTROLS, LETTERS, GateSetup, P, title
from ui.urlstate import set_state

MEMORY_T = 65  # the first input, then 64 more: the lag experiment's lag 64
_ZEROS = "\n".join(" ".join(f"{v:g}" for v in row) for row in memory.one_then_zeros(MEMORY_T, len(LETTERS)))
MEMORY_PRESETS = {  # button label, tooltip, and the widget states it sets
    "zeros": {"label": "One, then zeros", "sets": {"mode": "vectors", "vectors": _ZEROS, "t": MEMORY_T},
              "help": f"x₁ = (1, 0, …, 0), then {MEMORY_T - 1} zero vectors: nothing but the first input to keep."},
    "first": {"label": "First letter", "sets": {"mode": "chars", "vocab": LETTERS, "t": MEMORY_T,
                                                           "word": memory.first_letter_word(MEMORY_T, LETTERS)},
              "help": f"Remember the first letter: {MEMORY_T} random letters of {LETTERS}, the lag task, whose first "
                      f"letter a trained cell names after {MEMORY_T - 1} more."},
}


def open_on_the_lesson() -> None:
    """The three cells' view opens on what it teaches. Arriving at it (its button, or a link naming the view and not
    the input) with the input as declared ('hello', which the trained cells cannot read), it takes the First letter
    preset, so the trained cells (the toggle's default) show the vanilla RNN losing x₁ while the LSTM and GRU keep it.
    An input the visitor set or a link names ('word=hello' too) is kept, and so is the untrained toggle."""
    ss, was = st.session_state, f"{P}._view_was"
    view = ss.get(CONTROLS.key("view"), CONTROLS["view"].default)
    arriving, ss[was] = view == "lockstep" and ss.get(was) != "lockstep", view
    inputs = [CONTROLS[n] for n in ("mode", "word", "vocab", "vectors")]
    declared = all(ss.get(CONTROLS.key(c.name), c.default) == c.default and c.url not in st.query_params
                   for c in inputs)
    if arriving and declared:
        set_state({f"{P}.{k}": v for k, v in MEMORY_PRESETS["first"]["sets"].items()})


def asked_note(c: GateSetup, asked: str) -> str:
    """What the class question about memory (its menu label `asked`) asks, beside the chart it can disagree with:
    other cells, other input."""
    from rnnviz.rooms.questions import gates_memory

    a = gates_memory(c.H, c.seed, c.radius, c.bf)
    return (f"**Asked of the class** (*{asked}*), the cells are not these: "
            f"untrained ones, all three with H = {c.H} (not matched in parameters), each Wₕₕ at ρ = {c.radius:g}, "
            f"forget bias {c.bf:g}, reading 50 random inputs. Its answer at these settings is the "
            f"**{get(a.options[int(a.truth)]).presentation.label}**; the chart above is the three cells this view "
            "runs, matched in parameters, on this input.")


def memory_presets() -> None:
    """The two inputs that show memory, as buttons one a row (two to a row cut 'One, then zeros' to 'One, the…' in
    the controls column at 1280 px)."""
    for name, pr in MEMORY_PRESETS.items():
        st.button(pr["label"], key=f"{P}.mem_{name}", width="stretch", help=pr["help"], on_click=set_state,
                   args=({f"{P}.{k}": v for k, v in pr["sets"].items()},))


TRAINED = {}  # per server: the shipped weights, read once


def three_cells(c: GateSetup) -> tuple[Lockstep, bool]:
    """The lockstep the view shows: the shipped trained cells when asked for and the input fits them, else the
    seeded untrained ones (with a message saying why)."""
    if c.trained:
        if "w" not in TRAINED:
            TRAINED["w"] = lag_results.load_weights()
        untrained = [get(c).presentation.label for c in compared() if TRAINED["w"] and c not in TRAINED["w"]]
        if TRAINED["w"] is None:
            st.info("No trained cells shipped: `python -m rnnviz.lag` makes models/lag_models.safetensors. "
                    "Showing untrained ones.")
        elif untrained:  # a cell registered after the shipped ones were trained
            st.info(f"The shipped trained cells do not include the {', '.join(untrained)}: showing untrained cells.")
        else:
            try:
                return memory.trained_lockstep(c.x, TRAINED["w"]), True
            except ValueError as e:
                st.warning(f"{str(e).capitalize()}: showing untrained cells. Use a preset, or {len(LETTERS)}-letter "
                           "vocabulary.")
    return lockstep(c.x, c.H, c.seed, c.radius, c.bf), False


MEMORY_ABOUT = ("**How much of x₁ survives.** Each line is ‖∂hₜ/∂x₁‖, the most a change in the first input "
                "can move the state t steps later (the largest singular value of that Jacobian, multiplied out "
                "exactly from each cell's step Jacobians; the LSTM's x₁ also travels through its cell state c). Log "
                "scale: a straight fall is a constant factor lost per step.")


def memory_text(mem: memory.Memory, ls: Lockstep) -> str:
    """Where each curve ends and how long it stays above 10⁻⁶ (bold: the ends alone, as a drag writes it)."""
    T = len(ls.x)
    name = {c: get(c).presentation.label for c in mem.norms}
    ends = "; ".join(f"{name[c]} **{fmt(v[-1])}**" + (f" (under 10⁻⁶ from step {memory.last_alive(v) + 1})"
                                                     if memory.last_alive(v) < T else "")
                     for c, v in mem.norms.items())
    order = sorted(mem.norms, key=lambda c: -mem.norms[c][-1])
    text = (f"{'Trained' if mem.trained else 'Untrained'} cells, after {T} steps: {ends}. Kept longest: the "
            f"{name[order[0]]}; the least: the {name[order[-1]]}.")
    # the gated cell not first needs a word (an outcome named, as tests/test_layering.py's OUTCOMES allow)
    kept = [c for c in mem.norms if get(c).forget_gate]  # the LSTM
    if not mem.trained and kept and order[0] not in kept:
        text += (" Nothing here is learned: untrained, the spectral radius and the forget bias decide how long each "
                 f"cell keeps x₁. “{CONTROLS['trained'].label}” shows the three after learning to remember.")
    return text


def memory_alt(mem: memory.Memory) -> str:
    return "norm of dh_t/dx_1 by step, log scale: " + ", ".join(
        f"{title(c)} from {v[0]:.2e} to {v[-1]:.2e}" for c, v in mem.norms.items())


def trained_text() -> str:
    """What the trained cells are, read from the shipped results (the lag they were trained at)."""
    res = lag_results.load_results() or {}
    k = res.get("lags", ["?"])[-1]
    return (f"*Trained:* the three cells `python -m rnnviz.lag` trained (seed {res.get('seeds', ['?'])[0]}) to name "
            f"the first of {len(LETTERS)} symbols read up to {k} steps earlier, as shipped (models/"
            "lag_models.safetensors); the H, seed, radius and bias settings do not apply to them.")
