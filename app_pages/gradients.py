"""Gradients through time: the cells' Jacobians, clipping, explosion vs clipping trained live, learning the lag."""
import time

import streamlit as st

from rnnviz.figures import gradients as figures
from rnnviz.lessons import clipping, gradients as lesson
from rnnviz.text import fmt, format_norm
from ui.lagview import lag_section
from ui.lessons import gradients as words
from ui.lessons.gradients import PARAMS, P
from ui.limits import fragment
from ui.live.scrub import scrubs
from ui.urlstate import classroom, font_scale, publish, restore
from ui.widgets import controls_box, follow, intro, note, page_columns, plot, split, table

fs = font_scale()


def controls(room: bool) -> dict:
    """The explorer's settings other than the W_hh scale, read from their widgets (three columns; one, folded, on a
    projector)."""
    a, b, c = [st.container()] * 3 if room else st.columns(3)
    return dict(
        by=a.radio("Scale Wₕₕ so that", list(words.SCALE_BY), key=f"{P}.by", horizontal=True,
                   format_func=words.SCALE_BY.get, help="σₘₐₓ: the largest singular value (the most one step "
                   "can stretch). ρ: the spectral radius (largest |eigenvalue|). Every recurrent block is rescaled."),
        xs=a.slider("Input scale", 0.0, 5.0, step=0.1, key=f"{P}.xs",
                    help="Inputs are random normal times this. Larger inputs push tanh into saturation."),
        bf=b.slider("LSTM forget-gate bias", -5.0, 10.0, step=0.5, key=f"{P}.bf",
                    help="Its bias $b_f$: σ($b_f$) is about the fraction of the cell state each step keeps."),
        bz=b.slider("GRU update-gate bias", -5.0, 10.0, step=0.5, key=f"{P}.bz",
                    help="Its bias $b_z$: σ($b_z$) is about the fraction of h the GRU copies from one step to the "
                         "next."),
        H=c.slider("Hidden size H", 1, 64, key=f"{P}.H", help="Units per state."),
        T=c.slider("Sequence length T", 2, 200, key=f"{P}.T", help="How many steps the gradient travels back."),
        seed=int(a.number_input("Seed", 0, 10_000, key=f"{P}.seed", help="Seeds both the weights and the inputs.")))


@fragment
def explorer() -> None:
    """The presets, the settings and one chart, with what the numbers are under it. On a projector: a compact column
    of controls (the W_hh scale on top, the rest folded) beside the chart, so the scale and its chart share a screen.
    On a laptop: the presets, the metrics, the scale and the chart first, the other settings under the chart (above
    it they pushed the chart a screen down at 1280 x 800, under the presets it answers)."""
    if room := classroom():
        left, right = page_columns([1, 2.4])
        with left, controls_box():
            words.presets(words.PRESETS, "", [st, st])  # one a row: two to a row broke "Vanish: σₘₐₓ" / "= 0.9"
            view, scale = words.view_control(st), words.scale_control(st)
            with st.expander("More settings"):
                c = controls(room)
        top = None  # the numbers go under the chart
    else:
        b1, b2, b3 = st.columns([1, 1.15, 2.2], vertical_alignment="bottom")
        words.presets(words.PRESETS, "", [b1, b2])
        view = words.view_control(b3)
        top = st.container()
        left, right = split(1, 2.8)
        scale = words.scale_control(left)
        with controls_box():  # drawn under the chart (the containers above were laid out first)
            c = controls(room)
    cmp = words.compared(c["H"], c["T"], scale, c["bf"], c["xs"], c["seed"], c["by"], c["bz"])
    curves, T = lesson.curves(cmp), c["T"]
    with left:
        note(words.scale_note(cmp, c["by"], scale))
    with right, follow(P):  # on a projector the chart stays in view down the settings beside it
        if view == "decay":
            plot(figures.gradient_decay(curves, words.reference_curves(range(T + 1)), font_scale=fs), f"{P}.decay",
                 alt=f"log plot of gradient norms over {T} steps back: " + words.ends(curves))
            scrubs(P, words.scrubs(c, scale, cmp, fs))  # the chart follows the W_hh scale or b_f while dragged
        elif view == "factors":
            plot(figures.factor_figure(**lesson.factor_inputs(cmp), font_scale=fs), f"{P}.factors",
                 alt="per-step factors: tanh prime, forget gates and update gates, with the norm of W_hh")
            st.markdown("\n\n".join(words.factor_notes(cmp, T)))
        else:
            clip_section(cmp.reports["rnn"], T, curves["rnn"][T])
    cols = (top or right.container()).columns([1, 1, 1.1, 1.2, 1])
    for col, (key, (label, what)) in zip(cols, words.CURVES.items()):
        col.metric(label, format_norm(curves[key][T], narrow=True), help=f"{what} At k = T = {T}: "
                   f"{format_norm(curves[key][T])}.")
    if paths := words.paths_note(curves, T):
        with top or right:
            note(paths)
    note(f"The numbers: k = T = {T} steps back; spectral norms, with L as defined below. " + words.SCALE_NOTE)
    publish(PARAMS)


@fragment
def clip_section(report, T: int, metric_log10: float) -> None:
    demo = lesson.clip_demo(report, T, words.clip_control())
    room = classroom()  # on a projector the chart under its threshold slider, the words after it (the first screen)
    for part in ("chart", "words") if room else ("words", "chart"):
        if part == "chart":
            plot(figures.clip_figure(demo, fs), f"{P}.clip_fig",
                 alt=f"gradient components before (norm {demo['before']}) and after clipping (norm {demo['after']})")
        else:
            st.markdown(words.clip_note(demo, metric_log10, T, where="below" if room else "above"))
            (st.success if demo["clipped"] else st.info)(words.CLIP_VERDICT[demo["clipped"]])
    publish(PARAMS)


@fragment
def training() -> None:
    c1, c2 = page_columns([1, 2.4] if classroom() else [1, 2.6])  # beside the chart on a projector too: stacked, the
    with c1, controls_box():  # sliders sat above its 600 px and no screen held a slider and the loss curve
        s = words.training_settings()
    with c2:
        bar, t0, seen = st.progress(0.0, text="Training both runs…"), time.perf_counter(), words.cached(s)
        runs = words.train_pair(s, lambda f: bar.progress(f, text=f"Training both runs… {f:.0%}"))
        bar.progress(1.0, text=words.done_text(seen, time.perf_counter() - t0))
        verdict = words.verdict(clipping.summary(runs, s.clip), s.clip)
        plot(figures.training_figure(runs, s.clip, fs), f"{P}.train",
             alt="loss and log10 gradient norm per SGD step, unclipped and clipped. " + verdict)
        st.markdown(verdict)
    publish(PARAMS)


st.title("Gradients through time")
restore(P, PARAMS)
intro(words.INTRO)
explorer()
note(words.LOSS_NOTE)  # what L is: after the chart, which comes first

st.subheader("The notes' table, and the numbers behind it")
t1, t2 = st.columns([1.3, 1], gap="large")
with t1:
    table(words.notes_table())
(t1.markdown if classroom() else t1.caption)(words.NOTES_CAPTION)
t2.metric("Scalar w = 2, fifty steps", fmt(lesson.explode(2.0, 50)), "= 2⁵⁰",
          delta_color="off", delta_arrow="off", help=words.EXPLODE_HELP)

st.subheader("Explosion vs clipping, trained live")
st.markdown(words.CLIP_ABOUT)
training()

st.subheader("Learning the lag")
lag_section(fs)
publish(PARAMS)
