"""Gradients through time: the cells' Jacobians, clipping, explosion vs clipping trained live, learning the lag."""
import time
from dataclasses import astuple

import streamlit as st

from rnnviz.figures import gradients as figures
from rnnviz.lessons import clipping, gradients as lesson
from rnnviz.nn.cells import compared
from rnnviz.text import fmt, format_norm
from ui.lagview import lag_section
from ui.lessons import clipping as clip_words, gradients as words, gradients_frames as frames
from ui.lessons.gradients import CONTROLS, PARAMS, Explorer, P
from ui.limits import fragment
from ui.live.scrub import scrubs
from ui.urlstate import classroom, font_scale, publish, restore
from ui.widgets import controls_box, follow, intro, note, page_columns, plot, split, table

fs = font_scale()


def controls(room: bool, scale: float) -> Explorer:
    """The explorer's settings, read from their widgets: the W_hh scale (drawn first, beside the chart) and the others
    (three columns; one, folded, on a projector)."""
    a, b, c = [st.container()] * 3 if room else st.columns(3)
    by, xs = CONTROLS.widget("by", a), CONTROLS.widget("xs", a)
    bf, bz = CONTROLS.widget("bf", b), CONTROLS.widget("bz", b)
    H, T = CONTROLS.widget("H", c), CONTROLS.widget("T", c)
    return Explorer(H, T, scale, bf, xs, int(CONTROLS.widget("seed", a)), by, bz)


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
            view, scale = words.view_control(st), CONTROLS.widget("scale")
            with st.expander("More settings"):
                c = controls(room, scale)
        top = None  # the numbers go under the chart
    else:
        b1, b2, b3 = st.columns([1, 1.15, 2.2], vertical_alignment="bottom")
        words.presets(words.PRESETS, "", [b1, b2])
        view = words.view_control(b3)
        top = st.container()
        left, right = split(1, 2.8)
        scale = CONTROLS.widget("scale", left)
        with controls_box():  # drawn under the chart (the containers above were laid out first)
            c = controls(room, scale)
    cmp = words.compared(*astuple(c))
    curves, T = lesson.curves(cmp), c.T
    with left, st.container(key=words.SCALE_WORDS):  # it follows a drag of the scale (frames.scrubs)
        note(words.scale_note(cmp, c.by, c.scale))
    below = st.container() if room else right  # on a projector the factors' notes go under the row: beside the
    # settings the chart column is then shorter than theirs, and stays in view down them (a 500 px chart and 14 lines)
    with right, follow(P):  # on a projector the chart stays in view down the settings beside it
        if view == "decay":
            plot(figures.gradient_decay(curves, words.reference_curves(range(T + 1)), font_scale=fs), f"{P}.decay",
                 alt=f"log plot of gradient norms over {T} steps back: " + words.ends(curves))
            scrubs(P, frames.scrubs(c, cmp, fs))  # the chart follows H, T, the W_hh scale, the biases while dragged
        elif view == "factors":
            plot(figures.factor_figure(**lesson.factor_inputs(cmp), font_scale=fs), f"{P}.factors",
                 alt="per-step factors: tanh prime, forget gates and update gates, with the norm of W_hh")
            with below, st.container(key=words.FACTOR_WORDS):  # they follow a drag, with the chart
                st.markdown("\n\n".join(words.factor_notes(cmp, T)))
            scrubs(P, frames.scrubs(c, cmp, fs, "factors"))
        else:
            plain = compared()[0]  # the vanilla RNN's gradient is the one clipped
            clip_section(cmp.reports[plain], T, curves[plain][T], c, cmp)
    metrics = {key: words.curve_words(key) for key in curves}
    cols = (top or right).container(key=words.METRIC_WORDS).columns([width for _, _, width in metrics.values()])
    for col, (key, (label, what, _)) in zip(cols, metrics.items()):
        col.metric(label, format_norm(curves[key][T], narrow=True), help=f"{what} At k = T = {T}: "
                   f"{format_norm(curves[key][T])}.")
    if paths := words.paths_note(curves, T):
        with top or right, st.container(key=words.PATHS_WORDS):  # it follows a drag (greyed where it would go)
            note(paths)
    with st.container(key=words.NUMBERS_WORDS):  # it follows a drag of T
        note(words.numbers_note(T))
    publish(PARAMS)


@fragment
def clip_section(report, T: int, metric_log10: float, c: Explorer, cmp) -> None:
    demo = lesson.clip_demo(report, T, threshold := CONTROLS.widget("clip"))
    room = classroom()  # on a projector the chart under its threshold slider, the words after it (the first screen)
    for part in ("chart", "words") if room else ("words", "chart"):
        if part == "chart":
            plot(figures.clip_figure(demo, fs), f"{P}.clip_fig",
                 alt=f"gradient components before (norm {demo['before']}) and after clipping (norm {demo['after']})")
        else:
            with st.container(key=words.CLIP_WORDS):  # it follows a drag of the threshold, with the chart
                st.markdown(words.clip_note(demo, metric_log10, T, where="below" if room else "above"))
            (st.success if demo["clipped"] else st.info)(words.CLIP_VERDICT[demo["clipped"]])
    # the chart follows the threshold, and the explorer's sliders
    scrubs(P, frames.clip_scrubs(report, T, threshold, metric_log10, fs, room)
           + frames.scrubs(c, cmp, fs, "clip", threshold, room))
    publish(PARAMS)


@fragment
def training() -> None:
    c1, c2 = page_columns([1, 2.4] if classroom() else [1, 2.6])  # beside the chart on a projector too: stacked, the
    with c1, controls_box():  # sliders sat above its 600 px and no screen held a slider and the loss curve
        s = clip_words.training_settings()
    with c2:
        bar, t0, seen = st.progress(0.0, text="Training both runs…"), time.perf_counter(), clip_words.cached(s)
        runs = clip_words.train_pair(s, lambda f: bar.progress(f, text=f"Training both runs… {f:.0%}"))
        bar.progress(1.0, text=clip_words.done_text(seen, time.perf_counter() - t0))
        verdict = clip_words.verdict(clipping.summary(runs, s.clip), s.clip)
        plot(figures.training_figure(runs, s.clip, fs), f"{P}.train",
             alt="loss and log10 gradient norm per SGD step, unclipped and clipped. " + verdict)
        with st.container(key=clip_words.TRAIN_WORDS):  # it follows a drag of ρ, the rate or the threshold
            st.markdown(verdict)
    with c1:
        scrubs(f"{P}.train", clip_words.training_scrubs(s, fs))  # the chart follows them while dragged
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
st.markdown(clip_words.CLIP_ABOUT)
training()

st.subheader("Learning the lag")
lag_section(fs)
publish(PARAMS)
