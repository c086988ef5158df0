"""The lag experiment's views, Streamlit code but not a page's outline: its results on the gradients page (accuracy
by lag with the seeds' spread, the learning curve, the sentences made from them) and the three cells side by side on
the gates page (untrained, or the lag task's trained cells, with how much of x₁ survives). Words: ui/lessons/."""
from __future__ import annotations

import streamlit as st

from rnnviz.experiments import lag_results
from rnnviz.figures import gates as gate_figures, gradients as gradient_figures
from rnnviz.lessons import gates as gate_lesson
from rnnviz.lessons.memory import memory
from ui.lessons import gates as gate_words, gradients as gradient_words, lag as lag_words
from ui.urlstate import classroom
from ui.widgets import note, plot, split, torch_check


def lag_section(fs: float) -> None:
    """The shipped results of `python -m rnnviz.lag`, or what to run where they are missing."""
    P = gradient_words.P
    results = lag_results.load_results()
    if results is None:
        st.info(lag_words.LAG_MISSING)
        return
    note(lag_words.lag_about(results))
    summary = lag_words.lag_summary(results)
    st.markdown(summary)
    g1, g2 = split(1, 1)
    with g1:
        plot(gradient_figures.lag_figure(results, fs), f"{P}.lag",
             alt="accuracy by lag, mean and seed spread. " + summary)
    with g2:
        plot(gradient_figures.lag_curve_figure(results, fs), f"{P}.lag_curve", alt="accuracy while training. "
             + lag_words.curve_summary(results))
        note(lag_words.curve_summary(results))
    with st.expander("How these numbers were made"):  # the exact commands: a reader's to check, not a lecture's
        st.caption(lag_words.provenance(results))


def three_cells(c: gate_words.GateSetup, fs: float):
    """A vanilla RNN, an LSTM and a GRU of equal size on one input: what they are, how much of x₁ each keeps, and the
    check against torch; the lockstep model, for the step heatmaps under it."""
    words, P = gate_words, gate_words.P
    model, trained = words.three_cells(c)
    about = (words.trained_text() if trained else words.UNTRAINED.format(seed=c.seed), words.lockstep_text(model))
    mem = memory(model, trained)
    room = classroom()  # on a projector the chart the presets and sliders move comes first, beside them; the
    # sentences about the cells and their sizes after it (above it they pushed its lower half off the first screen)
    for text in () if room else about:
        st.markdown(text)
    plot(gate_figures.survival_figure(mem.norms, model.sizes, None, fs), f"{P}.memory", alt=words.memory_alt(mem))
    for text in about if room else ():
        st.markdown(text)
    st.markdown(words.MEMORY_ABOUT + " " + words.memory_text(mem, model))
    if words.CONTROLS.widget("torch"):
        res = torch_check(lambda: gate_lesson.lockstep_torch(model))
        if res:
            st.caption(words.torch_caption(model, res))
    return model
