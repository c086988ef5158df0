"""The cell, step by step: a vector RNN with H units, its six moves at one step, and states over time."""
import numpy as np
import pandas as pd
import streamlit as st

from ui.urlstate import choice, dump_flag, flag, font_scale, integer, number, Param, publish, restore
from ui.widgets import (controls_box, error, page_columns, export_panel, intro, md, number_table, plot, sequence_inputs,
                        sequence_params, step_controls, torch_check)
from rnnviz.figures import vector as figures
from rnnviz.lessons import vector as lesson
from rnnviz.lessons.export import rnn_script
from rnnviz.text import InputError

P = "vector"
PARAMS = sequence_params(P) + [
    Param(f"{P}.H", "H", 3, integer(1, 64)),
    Param(f"{P}.K", "K", 2, integer(1, 64)),
    Param(f"{P}.seed", "seed", 0, integer(0, 10_000)),
    Param(f"{P}.radius", "rho", 0.9, number(0.0, 3.0, 0.05)),
    Param(f"{P}.wmode", "w", "generate", choice(["generate", "edit"])),
    Param(f"{P}.t", "t", 1, integer(1, 200)),
    Param(f"{P}.torch", "torch", False, flag, dump_flag),
]


def edited(key: str, name: str, default: np.ndarray, rows: list[str], cols: list[str], what: str) -> np.ndarray:
    """A text box seeded from `default`, one row per line, holding exactly the numbers used (3 decimals, within ±10).
    Text that does not parse gets a message naming the matrix, and the last valid weights stay in use."""
    key = f"{P}.edit.{key}.{len(rows)}x{len(cols)}"
    seed_text = lesson.format_matrix(default)
    if key not in st.session_state or st.session_state.get(f"{key}._from") != seed_text:  # new sizes, seed or ρ
        st.session_state[key] = st.session_state[f"{key}._from"] = seed_text
        st.session_state[f"{key}._used"] = lesson.grid_values(np.atleast_2d(default))
    st.text_area(f"{f'${name}$' if '_' in name else f'**{name}**'}, {what}", key=key, height="content", on_change=tidy, args=(key, name, rows, cols),
                 help="One row per line, numbers separated by spaces or commas.")
    st.caption(md(lesson.edit_caption(rows, cols)))
    try:
        st.session_state[f"{key}._used"] = lesson.parse_matrix(st.session_state[key], name, rows, cols)
    except InputError as e:
        error(f"{e} The last valid {name} stays in use.")
    return st.session_state[f"{key}._used"]


def tidy(key: str, name: str, rows: list[str], cols: list[str]) -> None:
    """Rewrite a valid edit as it is used (3 decimals), so the box shows exactly that; bad text stays to be fixed."""
    try:
        st.session_state[key] = lesson.format_matrix(lesson.parse_matrix(st.session_state[key], name, rows, cols))
    except InputError:
        if not isinstance(st.session_state[key], str):  # a crafted widget state: the box shows the weights in use
            st.session_state[key] = lesson.format_matrix(st.session_state[f"{key}._used"])


def controls():
    x, chars, vocab = sequence_inputs(P)
    H = st.slider("H, hidden size", 1, 64, key=f"{P}.H", help="How many numbers the state holds.")
    if vocab is None:
        K = st.slider("K, output size", 1, 64, key=f"{P}.K", help="How many scores the output layer produces.")
    else:
        K = len(vocab)
        st.caption(f"Output size K = {K}: one score per character, a guess at the next one.")
    wmode = st.radio("Weights", ["generate", "edit"], key=f"{P}.wmode", horizontal=True,
                     format_func={"generate": "Generate", "edit": "Edit by hand"}.get,
                     help="Generate seeded weights (PyTorch's uniform init), or type every number yourself.")
    seed = st.number_input("Seed", 0, 10_000, key=f"{P}.seed", help="The same seed gives the same weights.")
    radius = st.slider("Spectral radius of Wₕ", 0.0, 3.0, step=0.05, key=f"{P}.radius",
                       help="Wₕ is rescaled so that its largest |eigenvalue| (its spectral radius) is this. Below 1 "
                            "the past fades; above 1 the state can keep or amplify it.")
    return x, chars, vocab, H, K, wmode, int(seed), radius


def edit_weights(w: dict, x: np.ndarray, vocab, H: int, K: int) -> bool:
    """Replace the generated weights by hand-edited ones (in place); False where the sizes are too large."""
    if max(H, x.shape[1], K) > lesson.EDIT_LIMIT:
        st.warning(f"Editing by hand is offered up to size {lesson.EDIT_LIMIT}; using generated weights.")
        return False
    units = [f"h{k + 1}" for k in range(H)]
    outs = [repr(c) for c in vocab] if vocab else [f"y{k + 1}" for k in range(K)]
    st.html(f"<style>[class*='st-key-{P}-edit-'] textarea {{font-family: 'Source Code Pro', monospace; white-space: pre;"
            f" overflow-x: auto; font-size: {0.875 * font_scale():.2f}rem}}</style>")  # static CSS: columns line up
    st.caption(f"Numbers within −10 … 10, kept to {lesson.EDIT_DECIMALS} decimals: the boxes show exactly the "
               "numbers used. Hand-edited weights are not carried by the page link.")
    ins = [f"x{k + 1}" for k in range(x.shape[1])] if vocab is None else [repr(c) for c in vocab]
    w["W_x"] = edited("W_x", "Wₓ", w["W_x"], units, ins, "input weights (row: unit, column: input)")
    w["W_h"] = edited("W_h", "Wₕ", w["W_h"], units, units, "memory weights (row: unit, column: previous unit)")
    w["b"] = edited("b", "b", w["b"][:, None], units, ["b"], "bias of each unit")[:, 0]
    w["W_y"] = edited("W_y", "W_y", w["W_y"], outs, units, "output weights (row: score, column: unit)")
    w["b_y"] = edited("b_y", "b_y", w["b_y"][:, None], outs, ["b_y"], "output bias")[:, 0]
    return True


@st.fragment
def step_view(setup: lesson.VectorSetup, trace, vocab, fs: float) -> None:
    """What follows the current step; stepping reruns only this part of the page."""
    T, H = setup.x.shape[0], setup.W_h.shape[0]
    chars = setup.labels
    t = step_controls(P, T)
    m = lesson.moves(setup, trace, t)
    what = f"the character {md(repr(chars[t - 1]))}" if chars else f"x{lesson.sub(t)}"
    st.markdown(f"**Step {t} of {T}**, reading {what}.")
    plot(figures.six_moves(m, vocab, fs), f"{P}.moves", alt=f"Step {t}: h_t = " + ", ".join(f"{v:.3f}" for v in m.h))
    nxt = f"step {t + 1}" if t < T else "the next step, if there were one"
    best = int(np.argmax(m.probs))
    guess = (f" The model's best guess for the next character is {md(repr(vocab[best]))} (p = {m.probs[best]:.3f})."
             if vocab else "")
    st.markdown(f"⑥ **Pass it on**: h{lesson.sub(t)} becomes the memory hₜ₋₁ that {nxt} reads.{guess}")
    with st.expander("The numbers of this step", expanded=H <= 8):
        number_table(pd.DataFrame(lesson.step_table(m), index=[f"h{k + 1}" for k in range(H)]), 4, grid=False)
    publish(PARAMS)


st.title("The cell, step by step")
restore(P, PARAMS)
intro("Now the state is a vector of H numbers and the weights are matrices. Pick a step and follow its six moves "
      "from the input to the prediction. Then raise the spectral radius of Wₕ past 1 and watch the heatmap of "
      "states fill with ±1.")
fs = font_scale()
left, right = page_columns([1, 2.3])
with left, controls_box():
    x, chars, vocab, H, K, wmode, seed, radius = controls()
    w = lesson.generate(x.shape[1], H, K, seed, radius)
    hand = wmode == "edit" and edit_weights(w, x, vocab, H, K)

setup = lesson.VectorSetup(x, w["W_x"], w["W_h"], w["b"], w["W_y"], w["b_y"], np.zeros(H), chars)
trace = lesson.run(setup)
T = x.shape[0]
with right:
    st.markdown(lesson.untrained_note(seed, hand))
    step_view(setup, trace, vocab, fs)
    plot(figures.states_heatmap(trace.h, chars, fs), f"{P}.heat", alt=f"heatmap of {T} states of {H} units")
    rho, sv = lesson.spectrum(setup.W_h)
    g1, g2 = st.columns(2)
    with g1:
        plot(figures.singular_value_bars(sv[:32], rho, fs), f"{P}.sv", alt=f"singular values of W_h, largest {sv[0]:.3f}")
    with g2:
        if H * H <= 256:
            plot(figures.matrix_heatmap(setup.W_h, "W<sub>h</sub> (memory weights)", font_scale=fs), f"{P}.Wh", alt="W_h values")
        else:
            st.caption(f"Wₕ is {H}×{H}; its heatmap is shown up to 16×16.")
    st.caption(lesson.SPECTRUM_NOTE)
    if st.toggle("Check against torch.nn.RNN", key=f"{P}.torch",
                 help="Run the same weights through PyTorch's own RNN and compare every state.") and (
            res := torch_check(lambda: lesson.torch_agreement(setup, trace))):
        h_torch, diff = res
        st.success(f"torch.nn.RNN on the same weights: largest difference over all {T}×{H} states = {diff:.1e}.")
        st.dataframe(pd.DataFrame(h_torch, columns=[f"h{k + 1}" for k in range(H)],
                                  index=[f"t={k + 1}" for k in range(T)]).round(6),
                     width="stretch", height=min(400, 36 * T + 40))
export_panel(lambda: rnn_script(setup.x, setup.W_x, setup.W_h, setup.b, None, setup.h0, name="rnnviz_cell.py",
                                what=f"a vector RNN, d={x.shape[1]}, H={H}"), "rnnviz_cell.py", f"{P}.export")
publish(PARAMS)
