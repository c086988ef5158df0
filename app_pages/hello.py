"""Train "hello" yourself: the notes' smallest character language model, trained live in the browser."""
from contextlib import nullcontext

import numpy as np
import streamlit as st

from rnnviz.figures import hello as figures
from rnnviz.lessons import hello as lesson
from rnnviz.lessons.presets import NOTES_SOFTMAX_PRINTED, SOFTMAX_SCORES
from rnnviz.nn.sampling import sampling_distribution, softmax
from rnnviz.text import InputError, fmt, parse_sequence
from ui.lessons import hello as words
from ui.lessons.hello import CONTROLS, PARAMS, P
from ui.limits import fragment
from ui.live.scrub import scrubs
from ui.urlstate import classroom, font_scale, publish, restore, set_state
from ui.widgets import controls_box, error, intro, number_table, page_columns, plot


def controls() -> words.TrainSetup:
    """What Train fits, as the controls hold it; a text that does not pass gets a message, and 'hello' is used."""
    try:
        txt = lesson.check_text(CONTROLS.widget("text"))
    except ValueError as e:
        error(f"{e} Using 'hello'.")
        txt = "hello"
    return words.TrainSetup(txt, CONTROLS.widget("H"), CONTROLS.widget("steps"), int(CONTROLS.widget("seed")))


def start_pick(vocab: list[str]) -> None:
    """The link's "Start from" (`start`, kept apart from the widget, whose choices are the typed text's characters):
    "" is the text's first character; one the text no longer has goes back to that, and leaves the link."""
    want = st.session_state[f"{P}.start"]
    if want not in vocab:
        st.session_state[f"{P}.start"] = want = ""
    st.session_state[f"{P}.start_pick"] = want or vocab[0]


def picked(vocab: list[str]) -> None:
    pick = st.session_state[f"{P}.start_pick"]
    st.session_state[f"{P}.start"] = "" if pick == vocab[0] else pick


@fragment
def sampling(w: lesson.CharRNNWeights, seed: int, fs: float) -> None:
    """Temperature and sampling: these controls rerun only this part of the page."""
    s1, s2 = page_columns([1, 2.3])  # the chart's column as wide as its bars' labels need (a temperature of 0.1)
    with s1:  # the two sliders the sample follows, the sample under them (on a projector's first screen), then its
        temp = CONTROLS.widget("temp")  # first character
        n = CONTROLS.widget("n")
        sample = st.container()
        start_pick(w.vocab)
        start = CONTROLS.widget("start", key=f"{P}.start_pick", options=w.vocab, on_change=picked, args=(w.vocab,))
    with sample:  # on a projector what the sample is comes after it: the sample on the first screen
        st.markdown("**Sample**" if classroom() else "**Sample** (each character fed back in as the next input):")
        with st.container(key=words.SAMPLE_WORDS):  # a drag of Temperature or Characters writes it at its value
            st.code(words.sampled(w, start, n, temp, seed), language=None, wrap_lines=True)
        if classroom():
            st.markdown("Each character is fed back in as the next input.")
    with s2:
        chart_slot = st.container() if classroom() else None  # on a projector the chart first, beside Temperature
        raw_scores = CONTROLS.widget("scores")
        try:
            sc = np.array(parse_sequence(raw_scores, max_len=64, max_abs=1e4, name="list of scores"))
        except InputError as e:
            error(f"{e} Using the notes' scores.")
            sc = np.array(SOFTMAX_SCORES)
        p1, pt = softmax(sc), sampling_distribution(sc, temp)
        with chart_slot if chart_slot is not None else nullcontext():
            plot(words.softmax_chart(words.score_labels(sc), sc, temp, fs), f"{P}.softmax",
                 alt="probabilities " + ", ".join(fmt(v) for v in pt))
        with st.container(key=words.TEMP_WORDS):  # it follows a drag of Temperature, with the chart
            st.markdown(words.temperature_sentence(p1, pt, temp))
        if note := words.softmax_note(sc, p1, SOFTMAX_SCORES, NOTES_SOFTMAX_PRINTED):
            st.caption(note)
    with s1:  # the shorter column: the scrub part's (empty) place adds a gap to it, moving nothing
        scrubs(P, words.temp_scrubs(w, start, n, seed, sc, temp, fs))  # the chart follows Temperature while dragged
    publish(PARAMS)


@fragment
def lesson_body() -> None:
    """The settings, Train and all they move: a move reruns this, not app.py's navigation and sidebar."""
    fs = font_scale()
    left, right = page_columns([1, 2.3])
    with left:
        with controls_box():
            s = controls()
        st.button("Train", key=f"{P}.train", type="primary", width="stretch", on_click=set_state,
                  args=({f"{P}.train_requested": True},),
                  help="Backpropagation through time on the text, on this server's CPU, in a second or two.")
        if cap := words.budget_message(s.text, s.H, s.steps):
            st.warning(cap, icon="⏱️")
        result = st.session_state.get(f"{P}.result")
        if st.session_state.pop(f"{P}.train_requested", False) or (st.session_state[f"{P}.trained"] and result is None):
            slot = st.empty()  # progress only for a run long enough to need it (at most four redraws a second)
            result = (s, words.train_shared(s, callback=words.throttled(
                lambda k, loss: slot.progress(k / max(s.steps, 1), text=f"step {k}/{s.steps}, loss {fmt(loss)}"))))
            slot.empty()
            st.session_state[f"{P}.result"] = result
        current = result[1] if result is not None and result[0] == s else None
        st.session_state[f"{P}.trained"] = current is not None
        if current is not None:
            st.caption("This page's link carries these settings and retrains on open, to the same weights.")

    model = current or lesson.train(s.text, s.H, 0, seed=s.seed)
    w, vocab = model.weights, model.weights.vocab
    steps_read = lesson.read(s.text, w)
    with right:  # the status, the metrics, the chart and the table follow a drag of H (words.model_scrubs)
        label = words.quoted(s.text)
        with st.container(key=words.STATUS_WORDS):
            st.markdown(words.status(s, current, label, steps_read.loss, brief=classroom()))
        with st.container(key=words.METRIC_WORDS):
            for col, (name, value, tip) in zip(st.columns(3), words.metrics(steps_read, vocab)):
                col.metric(name, value, help=tip)
        if vocab_note := words.vocab_display(vocab)[1]:
            st.caption(vocab_note)
        if classroom():  # on a projector the temperature and its chart come first, beside the training controls
            st.subheader("Sampling, and what temperature does")
            sampling(w, s.seed, fs)
        if current is not None and current.losses:
            losses = current.losses
            plot(figures.loss_curve(losses, fs), f"{P}.loss",
                 alt=f"loss fell from {fmt(losses[0])} to {fmt(losses[-1])}")
        if len(steps_read.inputs) <= words.STEPS_FIG_MAX:
            plot(figures.char_steps_figure(steps_read, vocab, fs, width=words.steps_width(classroom())),
                 f"{P}.steps_fig", alt="per step: one-hot input, hidden state, scores, softmax")
        with st.container(key=words.TABLE_WORDS):
            number_table(words.step_frame(steps_read, vocab), words.TABLE_DIGITS)
        scrubs(f"{P}.model", [] if current is not None else words.model_scrubs(s, label, fs, classroom()))

    if not classroom():
        st.subheader("Sampling, and what temperature does")
        sampling(w, s.seed, fs)
    publish(PARAMS)


st.title('Train "hello" yourself')
restore(P, PARAMS)
intro(words.intro_text())
lesson_body()
