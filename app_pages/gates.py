"""Gates: LSTM and GRU cells stepped like the vanilla cell, gate heatmaps, the forget bias, the valve."""
import numpy as np
import pandas as pd
import streamlit as st

from ui.urlstate import choice, font_scale, integer, number, Param, publish, restore
from ui.widgets import controls_box, export_panel, intro, md, plot, sequence_inputs, sequence_params, step_controls
from rnnviz.figures import gates as figures
from rnnviz.lessons.export import gated_script
from rnnviz.nn.cells import sigmoid
from rnnviz.lessons.gates import generate, run, shape_summary, step_values, valve_experiment

P = "gates"
PARAMS = sequence_params(P) + [
    Param(f"{P}.cell", "cell", "lstm", choice(["lstm", "gru"])),
    Param(f"{P}.H", "H", 3, integer(1, 64)),
    Param(f"{P}.seed", "seed", 0, integer(0, 10_000)),
    Param(f"{P}.radius", "rho", 0.9, number(0.0, 3.0, 0.05)),
    Param(f"{P}.bf", "bf", 1.0, number(-5.0, 5.0, 0.1)),
    Param(f"{P}.t", "t", 1, integer(1, 200)),
    Param(f"{P}.T", "valveT", 400, integer(10, 2000)),
]
EQUATIONS = {
    "lstm": r"""\begin{aligned}
f_t &= \sigma(W_f[h_{t-1}, x_t] + b_f) & i_t &= \sigma(W_i[h_{t-1}, x_t] + b_i) \\
g_t &= \tanh(W_g[h_{t-1}, x_t] + b_g) & o_t &= \sigma(W_o[h_{t-1}, x_t] + b_o) \\
c_t &= f_t \odot c_{t-1} + i_t \odot g_t & h_t &= o_t \odot \tanh(c_t)
\end{aligned}""",
    "gru": r"""\begin{aligned}
r_t &= \sigma(W_{ir} x_t + b_{ir} + W_{hr} h_{t-1} + b_{hr}) & z_t &= \sigma(W_{iz} x_t + b_{iz} + W_{hz} h_{t-1} + b_{hz}) \\
n_t &= \tanh(W_{in} x_t + b_{in} + r_t \odot (W_{hn} h_{t-1} + b_{hn})) & h_t &= (1 - z_t) \odot n_t + z_t \odot h_{t-1}
\end{aligned}""",
}

st.title("Gates: LSTM and GRU")
restore(P, PARAMS)
intro("Gated cells decide, unit by unit, what to keep, what to write and what to show. Step through a word and "
      "watch the forget gate: slide its bias up and the cell state starts to hold on to the past. At the bottom, "
      "a one-unit LSTM keeps its first input for hundreds of steps.")
fs = font_scale()
left, right = st.columns([1, 2.3], gap="large")
with left, controls_box():
    cell = st.segmented_control("Cell", ["lstm", "gru"], key=f"{P}.cell", format_func={"lstm": "LSTM", "gru": "GRU"}.get,
                                help="LSTM: four gate blocks and a separate cell state. GRU: three blocks, no cell state.")
    cell = cell or "lstm"
    x, chars, vocab = sequence_inputs(P)
    T, d = x.shape
    H = st.slider("H, hidden size", 1, 64, key=f"{P}.H", help="Units per state vector.")
    seed = st.number_input("Seed", 0, 10_000, key=f"{P}.seed", help="The same seed gives the same weights.")
    radius = st.slider("Spectral radius of each W_h block", 0.0, 3.0, step=0.05, key=f"{P}.radius",
                       help="Each gate's recurrent block is rescaled to this spectral radius.")
    bf = st.slider("Forget-gate bias b_f", -5.0, 5.0, step=0.1, key=f"{P}.bf", disabled=cell != "lstm",
                   help="Added before the forget gate's sigmoid. Setting it to 1 or 2 makes the cell start out "
                        "keeping more than it erases.")
    if cell == "lstm":
        st.caption(f"With nothing else feeding it, σ(b_f) = σ({bf:g}) = **{sigmoid(bf):.3f}**: that is where each "
                   "forget gate starts.")
    shp = shape_summary(cell, d, H)
    st.markdown(f"**Shapes.** {shp['G']} gate blocks stacked: one matrix of "
                f"{shp['G']}H × (H + d) = **{shp['stacked'][0]} × {shp['stacked'][1]}** "
                f"(torch keeps it as W_ih {shp['W_ih'][0]}×{shp['W_ih'][1]} and W_hh {shp['W_hh'][0]}×{shp['W_hh'][1]}); "
                f"**{shp['params']:,}** parameters with both bias vectors.")

w = generate(cell, d, H, int(seed), radius, bf if cell == "lstm" else 0.0)
trace = run(cell, x, w)
with right:
    st.latex(EQUATIONS[cell])
    t = step_controls(P, T)
    vals = step_values(cell, trace, t)
    what = f"the character {md(repr(chars[t - 1]))}" if chars else f"x_{t}"
    st.markdown(f"**Step {t} of {T}**, reading {what}.")
    names = ["f", "i", "g", "o", "c", "h"] if cell == "lstm" else ["r", "z", "n", "h"]
    plot(figures.gate_step_bars(vals, names, fs), f"{P}.bars",
         alt=f"step {t} gates: " + "; ".join(f"{n} = " + ", ".join(f"{v:.2f}" for v in vals[n]) for n in names))
    with st.expander("This step's numbers", expanded=H <= 4):
        st.dataframe(pd.DataFrame(vals, index=[f"u{k + 1}" for k in range(H)]).round(4), width="stretch")
    if cell == "lstm":
        kept = np.mean(vals["f"])
        st.markdown(f"On average the forget gates keep **{kept:.0%}** of $c_{{t-1}}$ at this step; the input gates "
                    f"let in **{np.mean(vals['i']):.0%}** of the candidate.")
    plot(figures.gate_heatmaps(trace, names, chars, current=t - 1, font_scale=fs), f"{P}.heat",
         alt="gate heatmaps over time for " + ", ".join(names))

export_panel(gated_script(cell, x, w["W_ih"], w["W_hh"], w["b_ih"], w["b_hh"], name=f"rnnviz_{cell}.py",
                          what=f"an {cell.upper()} cell, d={d}, H={H}"), f"rnnviz_{cell}.py")
st.divider()
st.subheader("The valve: a one-unit LSTM that remembers")
v1, v2 = st.columns([1, 2.3], gap="large")
with v1:
    T_valve = st.slider("Steps", 10, 2000, key=f"{P}.T", step=10, help="How long the silence after the first input lasts.")
    valve = valve_experiment(T_valve)
    vw = valve.weights
    st.markdown(
        f"Input: a single 1, then {T_valve - 1} zeros. The LSTM's forget gate is σ({vw['b_f']:g}) = "
        f"{vw['f']:.10f}, its input gate is open only while x = 1 (i = {vw['i (x=1)']:.6f}, then {vw['i (x=0)']:.1e}), "
        f"so $c_t = c_{{t-1}} + 0$ copies. The vanilla unit multiplies by 0.5 and squashes at every step."
    )
    st.table({"": ["LSTM cell state c_t", "vanilla h_t"],
              "t = 1": [f"{valve.lstm.c[0, 0]:.4f}", f"{valve.rnn.h[0, 0]:.4f}"],
              "t = 10": [f"{valve.lstm.c[min(9, T_valve - 1), 0]:.4f}", f"{valve.rnn.h[min(9, T_valve - 1), 0]:.2e}"],
              f"t = {T_valve}": [f"{valve.lstm.c[-1, 0]:.4f}", f"{valve.rnn.h[-1, 0]:.2e}"]})
with v2:
    plot(figures.valve_figure(valve, fs), f"{P}.valve",
         alt=f"LSTM cell state stays at {valve.lstm.c[-1, 0]:.4f} after {T_valve} steps; vanilla state falls to "
             f"{valve.rnn.h[-1, 0]:.1e}")
publish(PARAMS)
