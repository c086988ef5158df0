"""Gradients through time: vanilla vs LSTM vs GRU, computed from the weights set here, on a log plot."""
import numpy as np
import pandas as pd
import streamlit as st

from ui.urlstate import font_scale, integer, number, Param, publish, restore, set_state
from ui.widgets import controls_box, intro, plot
from rnnviz.figures import gradients as figures
from rnnviz.lessons.gradients import clip_demo, compare, explode, reference_curves
from rnnviz.nn.gradients import decay_table

P = "grad"
PARAMS = [
    Param(f"{P}.H", "H", 32, integer(1, 64)),
    Param(f"{P}.T", "T", 50, integer(2, 200)),
    Param(f"{P}.scale", "w", 0.9, number(0.0, 3.0, 0.05)),
    Param(f"{P}.bf", "bf", 1.0, number(-5.0, 10.0, 0.5)),
    Param(f"{P}.xs", "xs", 0.5, number(0.0, 5.0, 0.1)),
    Param(f"{P}.seed", "seed", 0, integer(0, 10_000)),
    Param(f"{P}.clip", "clip", 1.0, number(0.1, 10.0, 0.1)),
]

st.title("Gradients through time")
restore(P, PARAMS)
intro("The gradient that reaches a state k steps back is a product of k step Jacobians. Every curve below is "
      "computed from the weights set here. Move **W_hh scale** from 0.9 to 1.5 and watch the vanilla curve turn "
      "from vanishing to exploding; raise the **forget-gate bias** and watch the LSTM's cell path flatten.")
fs = font_scale()
left, right = st.columns([1, 2.6], gap="large")
with left, controls_box():
    b1, b2 = st.columns(2)
    b1.button("Vanish (0.9)", key=f"{P}.vanish", width="stretch", on_click=set_state, args=({f"{P}.scale": 0.9},),
              help="W_hh with spectral radius 0.9")
    b2.button("Explode (1.5)", key=f"{P}.explode", width="stretch", on_click=set_state, args=({f"{P}.scale": 1.5},),
              help="W_hh with spectral radius 1.5")
    scale = st.slider("W_hh scale (spectral radius)", 0.0, 3.0, step=0.05, key=f"{P}.scale",
                      help="Every recurrent weight block is rescaled so its largest |eigenvalue| is this.")
    bf = st.slider("LSTM forget-gate bias b_f", -5.0, 10.0, step=0.5, key=f"{P}.bf",
                   help="σ(b_f) is roughly the fraction of the cell state each step keeps; the cell path's factor.")
    H = st.slider("Hidden size H", 1, 64, key=f"{P}.H", help="Units per state.")
    T = st.slider("Sequence length T", 2, 200, key=f"{P}.T", help="How many steps the gradient travels back.")
    xs = st.slider("Input scale", 0.0, 5.0, step=0.1, key=f"{P}.xs",
                   help="Inputs are random normal times this. Larger inputs push tanh into saturation.")
    seed = st.number_input("Seed", 0, 10_000, key=f"{P}.seed", help="Seeds both the weights and the inputs.")

cmp = compare(H, T, scale, bf, xs, int(seed))
R = cmp.reports
series = {"rnn": R["rnn"].log10_spectral, "lstm": R["lstm"].log10_spectral, "lstm_c": R["lstm"].log10_cell_spectral,
          "gru": R["gru"].log10_spectral}
refs = reference_curves(np.arange(T + 1))

with right:
    last = {k: v[-1] for k, v in series.items()}
    m = st.columns(4)
    for col, (key, label) in zip(m, [("rnn", "vanilla"), ("lstm", "LSTM h"), ("lstm_c", "LSTM cell path"), ("gru", "GRU")]):
        v = last[key]
        col.metric(f"{label}, {T} back", "0 (exactly)" if not np.isfinite(v) else f"1e{v:+.0f}" if abs(v) > 300
                   else f"{10 ** v:.2e}" if abs(v) >= 3 else f"{10 ** v:.3g}",
                   help="The spectral norm of the product of Jacobians over the whole sequence.")
    st.caption(f"Vanilla W_hh: spectral radius {cmp.radius['rnn']:.3f}, largest singular value σ_max = {cmp.sigma_max:.3f}. "
               "With σ_max below 1 the product must shrink; above 1 it can grow (it need not).")
    plot(figures.gradient_decay(series, refs, font_scale=fs), f"{P}.decay",
         alt=f"log plot of gradient norms over {T} steps back: vanilla ends at 10^{last['rnn']:.0f}, "
             f"LSTM cell path at 10^{last['lstm_c']:.0f}")

st.subheader("Per-step factors")
f1, f2 = st.columns([2.6, 1], gap="large")
with f1:
    plot(figures.factor_figure(R["rnn"].factors["tanh_prime"], float(R["rnn"].factors["w_norm"][0]),
                               R["lstm"].factors["forget"], fs), f"{P}.factors",
         alt="per-step factors: tanh prime and forget gates")
with f2:
    tp = R["rnn"].factors["tanh_prime"]
    st.markdown(f"Vanilla: each step multiplies by diag(tanh′(z_s))·W_hh. Here tanh′ averages **{tp.mean():.3f}**, and "
                f"**{(tp < 0.1).mean():.0%}** of unit-steps are saturated (tanh′ < 0.1): those pass almost nothing back.")
    f = R["lstm"].factors["forget"]
    st.markdown(f"LSTM: along the cell path each step multiplies by its forget gates, here **{f.mean():.3f}** on "
                f"average; {T} of them give about **{np.exp(np.log(f).sum(axis=0).mean()):.2e}**.")

st.subheader("The notes' table, and the numbers behind it")
t1, t2 = st.columns([1.3, 1], gap="large")
with t1:
    tab = decay_table()
    st.table(pd.DataFrame({"t": tab["t"].astype(int), "vanilla (0.5×0.9)^t": [f"{v:.1e}" for v in tab["vanilla"]],
                           "LSTM f = 0.9: 0.9^t": [f"{v:.2g}" for v in tab["lstm"]],
                           "LSTM f = 1": [f"{v:g}" for v in tab["lstm_f1"]]}).set_index("t"))
    st.caption("Idealised: tanh′ ≈ 0.5 on average and a recurrent weight of about 0.9. The dashed grey curves on the "
               "plot are these formulas.")
with t2:
    big = explode(2.0, 50)
    st.metric("Scalar w = 2, fifty steps in tanh's linear part", f"{big:.1e}", "2^50 ≈ 1.1e15", delta_color="off", delta_arrow="off",
              help="A one-unit cell held at h = 0, where tanh′ = 1: every step multiplies the gradient by exactly 2.")

st.subheader("Clipping")
c1, c2 = st.columns([1, 2.6], gap="large")
with c1:
    thr = st.slider("Clip threshold", 0.1, 10.0, step=0.1, key=f"{P}.clip",
                    help="If the gradient vector is longer than this, it is rescaled to this length.")
    demo = clip_demo(R["rnn"], T, thr)
    lb = demo["log10_before"]
    before = "exactly 0" if not np.isfinite(lb) else f"{10 ** lb:.3g}" if abs(lb) < 4 else f"1e{lb:+.0f}"
    st.markdown(f"The vanilla gradient dL/dh at the first step, {T} steps back: norm **{before}**, after clipping "
                f"**{demo['norm_after']:.3g}**.")
    if demo["clipped"]:
        st.success("Clipped: the direction is kept and the length is cut to the threshold. Explosion tamed.")
    else:
        st.info("Not clipped: the norm is under the threshold. Clipping only shortens; it cannot lengthen a vanished "
                "gradient back to life.")
with c2:
    plot(figures.clip_figure(demo["before"], demo["after"], fs), f"{P}.clip_fig", alt="gradient before and after clipping")
publish(PARAMS)
