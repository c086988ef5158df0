"""One unit by hand: h_t = tanh(w_x x_t + w_h h_{t-1} + b), stepped forward and back, predicted, differentiated."""
import streamlit as st

from rnnviz.figures import scalar as figures
from rnnviz.lessons import scalar as lesson
from rnnviz.lessons.export import rnn_script
from rnnviz.lessons.presets import ScalarPreset
from rnnviz.text import InputError, fmt, parse_sequence, sub
from ui.lessons import scalar as words
from ui.lessons.scalar import CONTROLS, PARAMS, P
from ui.limits import fragment
from ui.live.scrub import scrubs
from ui.live.steps import Steps, stepped_plot
from ui.urlstate import classroom, font_scale, publish, restore, set_state
from ui.widgets import controls_box, error, export_panel, intro, long_table, page_columns, plot, step_controls


def controls() -> str:
    """The presets and the cell's settings (w_x, w_h, b, h_0: read back by words.setup); the input sequence as typed."""
    st.markdown("**Presets from the notes**")
    cols = st.columns(2)
    for k, (name, (label, sentence)) in enumerate(words.PRESET_NAMES.items()):
        cols[k % 2].button(label, key=f"{P}.preset.{name}", on_click=set_state, args=(words.preset_values(name),),
                           help=sentence, width="stretch")
    for name in words.CELL:
        CONTROLS.widget(name)
    return CONTROLS.widget("x")


@fragment
def steps_view(trace, s: ScalarPreset, predict: bool, fs: float) -> None:
    """Everything that follows the current step; stepping reruns only this part of the page."""
    t = step_controls(CONTROLS, len(s.x), "Scrub through time; the table and charts follow.", reset=True)
    k = t - 1
    view = lesson.PredictView(t, False, len(s.x))
    if predict:  # steps 1..frontier are revealed; step frontier + 1 is the question
        view = words.predict_step(st.session_state, s, t, float(trace.h[k, 0]))
    h_prev = trace.h[k - 1, 0] if k else s.h0
    if view.asking:
        words.guess_box(t, s.x[k], h_prev)
    elif predict and (verdict := st.session_state.get(f"{P}.verdict")) and verdict[0] == t:
        st.info(verdict[1], icon=words.VERDICT_ICONS[verdict[2]])  # not 🎯 for a miss (and no emoji font)
    said = st.container()  # the step in words and the score: here, or under the chart (below)
    shown = view.shown
    c1, c2 = st.columns([1.15, 1])
    with c1:
        if predict:  # the steps revealed so far: not one of the stepper's steps
            plot(words.tanh_chart(trace, s.b, shown, fs), f"{P}.tanh", alt=f"tanh curve with steps 1 to {shown} marked")
        else:  # Back and Next draw the step as they are pressed (ui/live/steps.py)
            stepped_plot(f"{P}.tanh", Steps(P, len(s.x), lambda u: words.tanh_chart(trace, s.b, u, fs),
                                            lambda u: f"tanh curve with steps 1 to {u} marked"), t)
        if not predict:  # dragged, the steps move on this curve, and h_t over time (further down) follows too
            scrubs(P, words.scrubs(s, fs) + words.tanh_scrubs(trace, s, shown, fs))
    with c2:
        st.markdown("**The worked example** (rows up to the current step)")
        long_table(words.worked_table(trace, s.b, t, view.asking), "worked")
        if shown >= 2 and (note := words.rounding_note(trace, s)):
            st.caption(note)
    with st.container() if predict and classroom() else said:  # predicting on a projector: the class sees the
        if not view.asking:  # answer land on the chart right under the verdict, and reads the words after it
            with st.container(key=words.STEP_WORDS):  # a drag writes the words at the thumb's value here
                st.markdown(words.step_text(t, s, h_prev, trace))
        if predict:
            st.caption(words.score_text(*st.session_state.get(f"{P}.score", (0, 0)),
                                        st.session_state.get(f"{P}.skipped", 0)))
    backprop_section(trace, s.w_h, shown)
    publish(PARAMS)


def backprop_section(trace, w_h: float, k: int) -> None:
    st.markdown(f"**Backpropagation by hand: how much does h{sub(max(k, 2))} move when h₁ moves?**")
    if k < 2:
        st.caption("Step to t = 2 or later: the gradient needs at least one step of memory between them.")
        return
    bp = lesson.backprop(trace, w_h, k)
    st.markdown(words.BACKPROP_INTRO)
    st.markdown(words.backprop_text(bp, w_h))
    if sat := words.saturation_note(bp, w_h):
        st.markdown(sat)
    long_table(words.backprop_rows(bp, w_h), "factors")
    st.page_link("app_pages/gradients.py", label="Gradients through time: the same product over 50 steps",
                 icon=":material/trending_down:", query_params={"classroom": "1"} if classroom() else None)


@fragment
def lesson_body() -> None:
    """The controls and all they move: a setting changed reruns this, not app.py's navigation and sidebar."""
    fs = font_scale()
    left, right = page_columns([0.85, 2.5])
    with left, controls_box():
        x_text = controls()

    try:
        x = parse_sequence(x_text)
    except InputError as e:
        with right:
            error(f"{e} The charts below still show your last valid sequence.")
        x = st.session_state.get(f"{P}._last_x", list(words.D.x))
    else:
        # a new sequence opens on its last step (first, when predicting), a linked one too unless the link names
        # the step
        fresh = f"{P}._last_x" not in st.session_state
        if x != st.session_state.get(f"{P}._last_x", list(words.D.x)) and not (fresh and "t" in st.query_params):
            st.session_state[f"{P}.t"] = 1 if st.session_state.get(f"{P}.predict") else len(x)
        st.session_state[f"{P}._last_x"] = x
    s = words.setup(x)
    trace = lesson.run_scalar(x, s.w_x, s.w_h, s.b, s.h0)

    with right:
        linked = f"{P}._predicting" not in st.session_state and "t" in st.query_params  # a first run's link's step
        predict = CONTROLS.widget("predict")
        if predict and words.from_step_1(st.session_state, s, linked):
            st.session_state[f"{P}.t"] = 1  # predicting starts (again) at step 1
            st.session_state.pop(f"{P}.frontier", None)
        st.session_state[f"{P}._predicting"] = predict
        steps_view(trace, s, predict, fs)
        if predict:  # the whole sequence's states would give the answers away
            st.caption("Predict mode hides the chart of hₜ over time: the table above holds the states revealed so "
                       "far.")
        else:  # all steps, drawn once per setup: stepping does not redraw it
            plot(figures.states_over_time(trace.h[:, 0], x, None, fs), f"{P}.states",
                 alt="h_t over time: " + ", ".join(fmt(v) for v in trace.h[:, 0]))
        st.markdown("**Why wₕ > 1 remembers: fixed points of the silent cell**")
        fps = lesson.fixed_points(s.w_h, s.b)
        f1, f2 = st.columns([1.4, 1])
        with f1:
            path = None if predict else lesson.iterate_silence(float(trace.h[0, 0]), s.w_h, s.b, 12)
            plot(figures.cobweb(s.w_h, s.b, path, fps, fs), f"{P}.cobweb",
                 alt="cobweb of h -> tanh(w_h h + b); fixed points " + ", ".join(fmt(h) for h, _ in fps))
        with f2:
            st.markdown(words.FIXED_POINT_INTRO)
            st.markdown(words.fixed_point_text(fps, s.w_h))
            if predict:
                st.caption("Predict mode hides the cobweb from h₁: its silent steps would give answers away.")
    if not predict:  # the script asserts every h_t: it would give the answers away
        what = f"one unit, w_x={s.w_x:g}, w_h={s.w_h:g}, b={s.b:g}, h_0={s.h0:g}"
        export_panel(lambda: rnn_script(x, s.w_x, s.w_h, s.b, None, s.h0, name="rnnviz_one_unit.py", what=what),
                     "rnnviz_one_unit.py", f"{P}.export")
    publish(PARAMS)


st.title("One unit by hand")
restore(P, PARAMS)
intro("One hidden unit, one number of memory. Press **Reset** to go back to step 1, then **Next** to take one step "
      "at a time and watch where each pre-activation lands on the tanh curve. Then try the **Flood** preset, or set "
      "wₕ above 1, and see the state stop fading.")
lesson_body()
