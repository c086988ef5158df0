"""The cell, step by step: a vector RNN with H units, its six moves at one step, and states over time."""
import numpy as np
import pandas as pd
import streamlit as st

from ui.urlstate import choice, dump_flag, flag, font_scale, integer, number, Param, publish, restore
from ui.widgets import controls_box, export_panel, intro, md, plot, sequence_inputs, sequence_params, step_controls
from rnnviz.figures import vector as figures
from rnnviz.lessons.export import rnn_script
from rnnviz.lessons.vector import VectorSetup, generate, moves, run, spectrum, torch_agreement

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
EDIT_LIMIT = 16


def edited(name: str, default: np.ndarray, rows: list[str], cols: list[str]) -> np.ndarray:
    """An editable grid seeded from `default`; cells left empty count as 0, values are kept within ±10."""
    df = pd.DataFrame(np.atleast_2d(default), index=rows, columns=cols)
    out = st.data_editor(df, key=f"{P}.grid.{name}.{df.shape}", width="stretch",
                         column_config={c: st.column_config.NumberColumn(c, min_value=-10.0, max_value=10.0,
                                                                         step=0.01, format="%.3f") for c in cols})
    a = out.to_numpy(dtype=float, na_value=0.0)
    return np.clip(np.nan_to_num(a), -10, 10)


st.title("The cell, step by step")
restore(P, PARAMS)
intro("Now the state is a vector of H numbers and the weights are matrices. Pick a step and follow its six moves "
      "from the input to the prediction. Then raise the spectral radius of W_h past 1 and watch the heatmap of "
      "states fill with ±1.")
fs = font_scale()
left, right = st.columns([1, 2.3], gap="large")
with left, controls_box():
    x, chars, vocab = sequence_inputs(P)
    T, d = x.shape
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
    radius = st.slider("Spectral radius of W_h", 0.0, 3.0, step=0.05, key=f"{P}.radius",
                       help="W_h is rescaled so its largest |eigenvalue| is this. Below 1 the past fades; above 1 "
                            "the state can keep or amplify it.")
    w = generate(d, H, K, int(seed), radius)
    if wmode == "edit":
        if max(H, d, K) > EDIT_LIMIT:
            st.warning(f"Editing by hand is offered up to size {EDIT_LIMIT}; using generated weights.")
        else:
            units = [f"h{k + 1}" for k in range(H)]
            st.caption("Cells accept −10 … 10; start from the generated values. Hand-edited weights are not "
                       "carried by the page link.")
            w["W_x"] = edited("W_x", w["W_x"], units, [f"x{k + 1}" for k in range(d)] if vocab is None else vocab)
            w["W_h"] = edited("W_h", w["W_h"], units, units)
            w["b"] = edited("b", w["b"][:, None], units, ["b"])[:, 0]
            w["W_y"] = edited("W_y", w["W_y"], vocab or [f"y{k + 1}" for k in range(K)], units)
            w["b_y"] = edited("b_y", w["b_y"][:, None], vocab or [f"y{k + 1}" for k in range(K)], ["b_y"])[:, 0]

setup = VectorSetup(x, w["W_x"], w["W_h"], w["b"], w["W_y"], w["b_y"], np.zeros(H), chars)
trace = run(setup)
with right:
    t = step_controls(P, T)
    m = moves(setup, trace, t)
    what = f"the character {md(repr(chars[t - 1]))}" if chars else f"x_{t}"
    st.markdown(f"**Step {t} of {T}**, reading {what}.")
    plot(figures.six_moves(m, vocab, fs), f"{P}.moves",
         alt=f"Step {t}: h_t = " + ", ".join(f"{v:.3f}" for v in m.h))
    nxt = f"step {t + 1}" if t < T else "the next step, if there were one"
    best = int(np.argmax(m.probs))
    guess = (f" The model's best guess for the next character is {md(repr(vocab[best]))} (p = {m.probs[best]:.3f})."
             if vocab else "")
    st.markdown(f"⑥ **Pass it on**: $h_{{{t}}}$ becomes the memory $h_{{t-1}}$ that {nxt} reads.{guess}")
    with st.expander("The numbers of this step", expanded=H <= 8):
        st.dataframe(pd.DataFrame({"W_x x_t": m.read_input, "W_h h_{t-1}": m.read_memory,
                                   "b": m.bias, "z": m.z, "h_t = tanh(z)": m.h},
                                  index=[f"h{k + 1}" for k in range(H)]).round(4),
                     width="stretch")
    plot(figures.state_heatmap(trace.h, chars, current=t - 1, font_scale=fs), f"{P}.heat",
         alt=f"heatmap of {T} states of {H} units")
    rho, sv = spectrum(setup.W_h)
    g1, g2 = st.columns(2)
    with g1:
        plot(figures.singular_value_bars(sv[:32], rho, fs), f"{P}.sv", alt=f"singular values of W_h, largest {sv[0]:.3f}")
    with g2:
        if H * H <= 256:
            plot(figures.matrix_heatmap(setup.W_h, "W_h (memory weights)", font_scale=fs), f"{P}.Wh", alt="W_h values")
        else:
            st.caption(f"W_h is {H}×{H}; its heatmap is shown up to 16×16.")
    if st.toggle("Check against torch.nn.RNN", key=f"{P}.torch",
                 help="Run the same weights through PyTorch's own RNN and compare every state."):
        h_torch, diff = torch_agreement(setup, trace)
        st.success(f"torch.nn.RNN on the same weights: largest difference over all {T}×{H} states = {diff:.1e}.")
        st.dataframe(pd.DataFrame(h_torch, columns=[f"h{k + 1}" for k in range(H)],
                                  index=[f"t={k + 1}" for k in range(T)]).round(6),
                     width="stretch", height=min(400, 36 * T + 40))
export_panel(rnn_script(setup.x, setup.W_x, setup.W_h, setup.b, None, setup.h0, name="rnnviz_cell.py",
                        what=f"a vector RNN, d={d}, H={H}"), "rnnviz_cell.py")
publish(PARAMS)
