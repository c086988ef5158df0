"""The lag experiment's views, Streamlit code but not a page's outline: its results on the gradients page (accuracy
by lag with the seeds' spread, the learning curve, the sentences made from them) and the three cells side by side on
the gates page (untrained, or the lag task's trained cells, with how much of x₁ survives). Words: ui/lessons/."""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

import streamlit as st

from rnnviz.experiments import lag_results
from rnnviz.figures import gates as gate_figures, gradients as gradient_figures
from rnnviz.lessons import gates as gate_lesson
from rnnviz.lessons.memory import memory
from rnnviz.live.words import Shown
from ui.lessons import gates as gate_words, gates_memory as memory_words, gradients as gradient_words, lag as lag_words
from ui.live.scrub import Scrub, each_slider, scrubs
from ui.urlstate import classroom
from ui.widgets import note, plot, split, torch_check

SIZES_WORDS = f"words-{gate_words.P}-sizes"  # the three cells' sizes: greyed through a drag of H
MEMORY_WORDS = f"words-{gate_words.P}-memory"  # the sentence under the survival chart, which follows a drag


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
    model, trained = memory_words.three_cells(c)
    about = (memory_words.trained_text() if trained else words.UNTRAINED.format(seed=c.seed),
             words.lockstep_text(model))
    mem = memory(model, trained)
    room = classroom()  # on a projector the chart the presets and sliders move comes first, beside them; the
    # sentences about the cells and their sizes after it (above it they pushed its lower half off the first screen)
    def about_cells():
        st.markdown(about[0])
        with st.container(key=SIZES_WORDS):  # the three sizes: greyed through a drag of H (its maths is no text)
            st.markdown(about[1])
    if not room:
        about_cells()
    plot(gate_figures.survival_figure(mem.norms, model.sizes, None, fs), f"{P}.memory",
         alt=memory_words.memory_alt(mem))
    if room:
        about_cells()
    with st.container(key=MEMORY_WORDS):  # a drag of the radius, b_f or H writes the sentence at its value here
        st.markdown(memory_words.MEMORY_ABOUT + " " + memory_words.memory_text(mem, model))
    if not trained:  # the untrained cells' chart and sentence follow the radius, b_f and H while dragged
        scrubs(P, memory_scrubs(c, fs))
    if words.CONTROLS.widget("torch"):
        res = torch_check(lambda: gate_lesson.lockstep_torch(model))
        if res:
            st.caption(words.torch_caption(model, res))
    return model


# the work a set of the memory chart's frames holds: about 80 ms, so that the first set is at hand when a drag begins
# 300 ms after the pointer reached the slider (all 101 notches of b_f in one set, 318 ms at H = 3, came 137-240 ms into
# the drag; in sets of 26 the longest still was 54-77 ms: benchmarks/browser.py --sweep-only)
SET_MS = 80


def _span(H: int) -> int:
    """Notches a set holds at hidden size H: SET_MS of work at about 3 ms a notch at H = 3 and 30 at H = 64 (the
    measured ends, in between as a line), 6 to 26."""
    return max(6, min(26, round(SET_MS / (3 + 27 * (H - 3) / 61))))


def memory_scrubs(c: gate_words.GateSetup, fs: float) -> list[Scrub]:
    """The untrained cells' spectral radius, forget bias and hidden size (the LSTM's; the others' follow from it),
    whose drag the chart of how much of x₁ survives follows, its sentence and where the forget gates start with it:
    each frame the page's own chart and words for the cells at that value (about 3 ms a notch at H = 3, 30 at H = 64:
    the three cells run and their Jacobians multiplied out). H's sets are sized for its dearest notches, and through
    its drag the paragraph of the three sizes greys."""
    words = gate_words

    @lru_cache(maxsize=128)  # a set's charts, then their words: the cells run once for both
    def cells(radius: float, bf: float, H: int):
        model = gate_lesson.lockstep(c.x, H, c.seed, radius, bf)
        mem = memory(model, False)
        return mem.norms, model.sizes, memory_words.MEMORY_ABOUT + " " + memory_words.memory_text(mem, model)

    def chart(radius: float, bf: float, H: int):
        norms, sizes, _ = cells(radius, bf, H)
        return gate_figures.survival_figure(norms, sizes, None, fs)

    def said(radius: float, bf: float, H: int) -> dict:
        return {MEMORY_WORDS: cells(radius, bf, H)[2], words.FORGET_WORDS: words.forget_caption(bf)}

    def sized(i: Scrub) -> Scrub:  # H's sets: sized for its dearest notches; the sizes' paragraph greys
        return replace(i, span=_span(words.CONTROLS["H"].hi),
                       words=lambda v: i.words(v) | {SIZES_WORDS: Shown(stale=True)})
    now = {"radius": c.radius, "bf": c.bf, "H": c.H}
    items = each_slider(words.P, "memory", now, {n: words.CONTROLS[n].span for n in now},
                        ("lockstep", c.x.tobytes(), c.x.shape, c.seed, fs), chart, words=said, span=_span(c.H))
    return [sized(i) if i.slider == words.CONTROLS.key("H") else i for i in items]
