"""The cell, step by step: a vector RNN with H units, its six moves at one step, and states over time."""
import numpy as np
import pandas as pd
import streamlit as st

from rnnviz.figures import vector as figures
from rnnviz.lessons import vector as lesson
from rnnviz.lessons.export import rnn_script
from rnnviz.text import fmt, sub
from ui.lessons import vector as words
from ui.lessons.vector import CONTROLS, PARAMS, P
from ui.limits import fragment
from ui.live.scrub import scrubs
from ui.live.steps import Steps, stepped_plot
from ui.urlstate import classroom, font_scale, publish, restore
from ui.widgets import (
    controls_box,
    export_panel,
    follow,
    intro,
    md,
    number_table,
    page_columns,
    plot,
    sequence_inputs,
    step_controls,
    steps_ahead,
    torch_check,
)


def controls() -> words.Settings:
    """The settings; on a projector the spectral radius first (the chart follows it) and the rest folded."""
    room = classroom()
    radius = CONTROLS.widget("radius") if room else None
    with st.expander("More settings: input, size, weights") if room else st.container():
        x, chars, vocab = sequence_inputs(CONTROLS)
        H = CONTROLS.widget("H")
        if vocab is None:
            K = CONTROLS.widget("K")
        else:
            K = len(vocab)
            st.caption(f"Output size K = {K}: one score per character, a guess at the next one.")
        by_hand = CONTROLS.widget("wmode") == "edit"
        seed = int(CONTROLS.widget("seed"))
    return words.Settings(x, chars, vocab, H, K, seed, radius if room else CONTROLS.widget("radius"), by_hand)


@fragment
def step_view(s: words.Settings, setup: lesson.VectorSetup, trace, fs: float) -> None:
    """What follows the current step; stepping reruns only this part of the page."""
    vocab = s.vocab
    T, H = setup.x.shape[0], setup.W_h.shape[0]
    chars = setup.labels
    t = step_controls(CONTROLS, T)
    m = lesson.moves(setup, trace, t)
    what = f"the character {md(repr(chars[t - 1]))}" if chars else f"x{sub(t)}"
    st.markdown(f"**Step {t} of {T}**, reading {what}.")
    titles = words.move_titles()  # here, not in the frames' computation (a thread of its own: no page to ask)
    scale = lesson.moves_scale(setup, trace)  # one scale for every step: the axes hold still as the steps go
    stepped_plot(f"{P}.moves", Steps(P, T, lambda u: figures.six_moves(lesson.moves(setup, trace, u), vocab, fs,
                                                                       titles, scale),
                                     lambda u: f"Step {u}: h_t = " + ", ".join(fmt(v) for v in trace.h[u - 1])), t)
    with st.container(key=words.PASS_WORDS):  # a drag of the radius writes the words at its value here
        st.markdown(words.pass_on_text(t, T, m.probs, vocab))
    with st.expander("The numbers of this step", expanded=H <= 8), st.container(key=words.TABLE_WORDS):
        number_table(words.step_frame(m), 4)
    # states up to this step, as the gates page draws them: the steps the cell has not reached are blank
    stepped_plot(f"{P}.heat", Steps(P, T, lambda u: figures.states_heatmap(trace.h, chars, fs, current=u - 1),
                                    lambda u: f"heatmap of the states of {H} units at steps 1 to {u} of {T}"), t)
    if t < T:
        st.caption(steps_ahead(t, T))
    # the charts of W_h, the six moves and the states follow the radius while it is dragged (not typed by hand)
    scrubs(P, words.scrubs(s, fs, t, classroom()))
    publish(PARAMS)


@fragment
def lesson_body() -> None:
    """The settings and all they move: a setting changed reruns this, not app.py's navigation and sidebar."""
    fs = font_scale()
    left, right = page_columns([1, 2.3])
    with left, follow(P), controls_box():  # on a projector the radius stays on screen down to the charts it moves
        s = controls()
        w = lesson.generate(s.x.shape[1], s.H, s.K, s.seed, s.radius)
        hand = s.by_hand and words.edit_weights(w, s)

    setup = lesson.VectorSetup(s.x, w["W_x"], w["W_h"], w["b"], w["W_y"], w["b_y"], np.zeros(s.H), s.chars)
    trace = lesson.run(setup)
    T, H = s.x.shape[0], s.H
    with right:
        st.markdown(words.untrained_note(s.seed, hand))
        step_view(s, setup, trace, fs)
        sv = lesson.spectrum(setup.W_h)[1]
        g1, g2 = st.columns(2)
        with g1:
            plot(words.spectrum_chart(setup.W_h, fs), f"{P}.sv", alt=f"singular values of W_h, largest {fmt(sv[0])}")
        with g2:
            if H <= words.HEATMAP_MAX_H:
                plot(words.memory_chart(setup.W_h, fs), f"{P}.Wh", alt="W_h values")
            else:
                st.caption(words.no_heatmap(H))
        st.caption(words.SPECTRUM_NOTE)
        if CONTROLS.widget("torch") and (res := torch_check(lambda: lesson.torch_agreement(setup, trace))):
            h_torch, diff = res
            st.success(f"torch.nn.RNN on the same weights: largest difference over all {T}×{H} states = {diff:.1e}.")
            st.dataframe(pd.DataFrame(h_torch, columns=[f"h{k + 1}" for k in range(H)],
                                      index=[f"t={k + 1}" for k in range(T)]).round(6),
                         width="stretch", height=min(400, 36 * T + 40))
    export_panel(lambda: rnn_script(setup.x, setup.W_x, setup.W_h, setup.b, None, setup.h0, name="rnnviz_cell.py",
                                    what=f"a vector RNN, d={s.x.shape[1]}, H={H}"), "rnnviz_cell.py", f"{P}.export")
    publish(PARAMS)


st.title("The cell, step by step")
restore(P, PARAMS)
intro("Now the state is a vector of H numbers and the weights are matrices. Pick a step and follow its six moves "
      "from the input to the prediction. Then go to the last step, raise the spectral radius of Wₕ past 1 and "
      "watch the heatmap of states fill with ±1.")
lesson_body()
