"""Gradients through time: vanilla vs LSTM vs GRU from the weights set here, clipping, explosion vs clipping in training,
and how far back each cell learns to recall. Each part is a fragment: a control redraws only what it changes."""
import time

import pandas as pd
import streamlit as st

from ui.urlstate import choice, classroom, font_scale, integer, number, Param, publish, restore, set_state
from ui.widgets import controls_box, intro, plot
from rnnviz.figures import gradients as figures
from rnnviz.lessons import clipping, gradients as lesson, lag

P = "grad"
PARAMS = [Param(f"{P}.{k}", url, default, parse) for k, url, default, parse in [
    ("H", "H", 32, integer(1, 64)), ("T", "T", 50, integer(2, 200)), ("scale", "w", 0.9, number(0.0, 3.0, 0.05)),
    ("by", "by", "sigma", choice(list(lesson.SCALE_BY))), ("bf", "bf", 1.0, number(-5.0, 10.0, 0.5)),
    ("bz", "bz", 0.0, number(-5.0, 10.0, 0.5)), ("xs", "xs", 0.5, number(0.0, 5.0, 0.1)),
    ("seed", "seed", 0, integer(0, 10_000)), ("clip", "clip", 1.0, number(0.1, 10.0, 0.1)),
    ("rho", "trho", 2.0, number(0.5, 3.0, 0.1)), ("lr", "lr", 0.3, clipping.parse_rate),
    ("tclip", "tclip", 2.0, number(0.1, 20.0, 0.1)), ("tseed", "tseed", 0, integer(0, 1000))]]
fs = font_scale()
note = st.markdown if classroom() else st.caption  # explanations a projector must show at reading size


def split(*widths: float) -> list:
    """Side-by-side columns; stacked full width in classroom mode, where a narrow column is unreadable."""
    return [st.container() for _ in widths] if classroom() else st.columns(list(widths), gap="large")


def controls() -> dict:
    """The explorer's settings, read from its widgets."""
    return dict(
        by=st.radio(r"Scale $W_{hh}$ so that", list(lesson.SCALE_BY), key=f"{P}.by", horizontal=True,
                    format_func=lesson.SCALE_BY.get, help="σ_max: the largest singular value (the most one step can "
                    "stretch). ρ: the spectral radius (largest |eigenvalue|). Every recurrent block is rescaled."),
        scale=st.slider(r"$W_{hh}$ scale", 0.0, 3.0, step=0.05, key=f"{P}.scale"),
        bf=st.slider("LSTM forget-gate bias $b_f$", -5.0, 10.0, step=0.5, key=f"{P}.bf",
                     help="σ(b_f) is about the fraction of the cell state each step keeps."),
        bz=st.slider("GRU update-gate bias $b_z$", -5.0, 10.0, step=0.5, key=f"{P}.bz",
                     help="σ(b_z) is about the fraction of h the GRU copies from one step to the next."),
        H=st.slider("Hidden size $H$", 1, 64, key=f"{P}.H", help="Units per state."),
        T=st.slider("Sequence length $T$", 2, 200, key=f"{P}.T", help="How many steps the gradient travels back."),
        xs=st.slider("Input scale", 0.0, 5.0, step=0.1, key=f"{P}.xs",
                     help="Inputs are random normal times this. Larger inputs push tanh into saturation."),
        seed=int(st.number_input("Seed", 0, 10_000, key=f"{P}.seed", help="Seeds both the weights and the inputs.")))


def train_controls() -> clipping.Settings:
    """The training comparison's settings."""
    presets(clipping.PRESETS, "t")
    return clipping.Settings(
        st.slider(r"Spectral radius $\rho$ of $W_{hh}$ at the start", 0.5, 3.0, step=0.1, key=f"{P}.rho"),
        st.select_slider("Learning rate", clipping.RATES, key=f"{P}.lr", help="Plain SGD: w ← w − rate · g."),
        st.slider("Clip threshold (clipped run)", 0.1, 20.0, step=0.1, key=f"{P}.tclip",
                  help="The clipped run rescales g to this length whenever ‖g‖ is longer."),
        seed=int(st.number_input("Seed", 0, 1000, key=f"{P}.tseed", help="Initial weights and batches, both runs.")))


def presets(table: dict, prefix: str, spare: int = 0) -> None:
    """One button per preset (and `spare` empty columns after them); each sets the widget states it names."""
    for col, (name, pr) in zip(st.columns(len(table) + spare), table.items()):
        col.button(pr["label"], key=f"{P}.{prefix}{name}", width="stretch", help=pr["help"], on_click=set_state,
                   args=({f"{P}.{k}": v for k, v in pr["sets"].items()},))


@st.fragment
def explorer() -> None:
    presets(lesson.PRESETS, "", spare=1)
    top = st.container()
    left, right = split(1, 2.8)
    with left, controls_box():
        c = controls()
    cmp = lesson.compare(c["H"], c["T"], c["scale"], c["bf"], c["xs"], c["seed"], c["by"], c["bz"])
    curves, T = lesson.curves(cmp), c["T"]
    with top:
        for col, (key, (label, what)) in zip(st.columns([1, 1, 1.15, 1.3, 0.8]), lesson.CURVES.items()):
            col.metric(label, lesson.format_norm(curves[key][T]), help=f"{what} At k = T = {T}.")
        note(f"At k = T = {T} steps back. " + lesson.loss_note(c["H"]))
    with right:
        plot(figures.gradient_decay(curves, lesson.reference_curves(range(T + 1)), font_scale=fs), f"{P}.decay",
             alt=f"log plot of gradient norms over {T} steps back: " + lesson.ends(curves))
        note(lesson.scale_note(cmp, c["by"], c["scale"]))
    st.subheader("Per-step factors")
    plot(figures.factor_figure(**lesson.factor_inputs(cmp), font_scale=fs), f"{P}.factors",
         alt="per-step factors: tanh prime, forget gates and update gates, with the norm of W_hh")
    for col, words in zip(split(1, 1, 1), lesson.factor_notes(cmp, T)):
        col.markdown(words)
    clip_section(cmp.reports["rnn"], T, curves["rnn"][T])
    publish(PARAMS)


@st.fragment
def clip_section(report, T: int, metric_log10: float) -> None:
    st.subheader("Clipping")
    c1, c2 = split(1, 2.6)
    with c1:
        demo = lesson.clip_demo(report, T, st.slider("Clip threshold", 0.1, 10.0, step=0.1, key=f"{P}.clip",
                                                     help="A gradient longer than this is rescaled to this length."))
        st.markdown(lesson.clip_note(demo, metric_log10, T))
        (st.success if demo["clipped"] else st.info)(lesson.CLIP_VERDICT[demo["clipped"]])
    with c2:
        plot(figures.clip_figure(demo, fs), f"{P}.clip_fig",
             alt=f"gradient components before (norm {demo['before']}) and after clipping (norm {demo['after']})")
    publish(PARAMS)


@st.fragment
def training() -> None:
    st.subheader("Explosion vs clipping, trained live")
    st.markdown(clipping.ABOUT)
    c1, c2 = split(1, 2.6)
    with c1:
        s = train_controls()
    with c2:
        bar, t0, seen = st.progress(0.0, text="Training both runs…"), time.perf_counter(), clipping.cached(s)
        runs = clipping.train_pair(s, lambda f: bar.progress(f, text=f"Training both runs… {f:.0%}"))
        bar.progress(1.0, text="Both runs: this setting was trained before, results kept." if seen else
                     f"Both runs trained in {time.perf_counter() - t0:.1f} s.")
        verdict = clipping.verdict(clipping.summary(runs))
        plot(figures.training_figure(runs, s.clip, fs), f"{P}.train",
             alt="loss and log10 gradient norm per SGD step, unclipped and clipped. " + verdict)
        st.markdown(verdict)
    publish(PARAMS)


st.title("Gradients through time")
restore(P, PARAMS)
intro(lesson.INTRO)
explorer()

st.subheader("The notes' table, and the numbers behind it")
t1, t2 = st.columns([1.3, 1], gap="large")
t1.table(pd.DataFrame(lesson.notes_table()).set_index("t"))
t1.caption(lesson.NOTES_CAPTION)
t2.metric("Scalar w = 2, fifty steps", f"{lesson.explode(2.0, 50):.1e}", "2⁵⁰ ≈ 1.1e15",
          delta_color="off", delta_arrow="off", help=lesson.EXPLODE_HELP)

training()

st.subheader("Learning the lag")
results = lag.load_results()
if results is None:
    st.info("No results shipped yet: `python -m rnnviz.lag` makes models/lag_results.json.")
else:
    st.markdown(lag.ABOUT)
    plot(figures.lag_figure(results, fs), f"{P}.lag", alt="accuracy against lag for RNN, LSTM and GRU. "
         + lag.summary(results))
    st.markdown(lag.summary(results))
    note(lag.provenance(results))
publish(PARAMS)
