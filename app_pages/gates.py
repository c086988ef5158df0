"""Gates: LSTM and GRU stepped like the vanilla cell, three cells in lockstep, the forget bias, the valve."""
import streamlit as st

from rnnviz.figures import gates as figures
from rnnviz.lessons import gates as lesson
from rnnviz.lessons.export import gated_script
from rnnviz.nn.cells import get as cell_type
from rnnviz.text import sub
from ui.lagview import three_cells
from ui.lessons import gates as words, gates_memory as memory_words, registry
from ui.lessons.gates import CONTROLS, PARAMS, SETTINGS, STEPPER, VALVE, GateSetup, P
from ui.limits import fragment
from ui.live.scrub import scrubs
from ui.live.steps import Steps, stepped_plot
from ui.urlstate import classroom, font_scale, publish, restore
from ui.widgets import controls_box, export_panel, intro, md, page_columns, plot, sequence_inputs, step_controls, table


def controls(view: str) -> GateSetup:
    """The view's settings, read from its widgets: the gates' dials and the size first (on a projector's first screen
    with the chart they move), then (folded on a projector) the input and the seed."""
    cell = CONTROLS.widget("cell") if view == "cell" else "lstm"
    forget = cell_type(cell).forget_gate is not None
    bf = CONTROLS.widget("bf", disabled=not forget)
    if forget:
        with st.container(key=words.FORGET_WORDS):  # a drag of b_f writes it at its value here
            st.caption(words.forget_caption(bf))
    radius = CONTROLS.widget("radius")
    H = CONTROLS.widget("H", **({} if view == "cell" else words.LOCKSTEP_H))
    with st.expander("More settings: input, seed") if classroom() else st.container():
        x, chars, _ = sequence_inputs(CONTROLS)
        seed = CONTROLS.widget("seed")
    trained = CONTROLS.widget("trained") if view == "lockstep" else False
    return GateSetup(cell, x, chars, H, int(seed), radius, bf if forget else 0.0, trained)


@fragment
def stepper(view: str, c: GateSetup, model, fs: float) -> None:
    """Back / Next / the time slider, and everything that changes with the step; reruns on its own."""
    T = len(c.x)
    t = step_controls(CONTROLS, T)
    publish(STEPPER)
    what = f"the character {md(repr(c.chars[t - 1]))}" if c.chars else f"the vector x{sub(t)}"
    if view == "lockstep":
        st.markdown(f"**Step {t} of {T}**, reading {what}.")
        stepped_plot(f"{P}.lockstep", Steps(P, T, lambda u: figures.lockstep_heatmaps(
            model.traces, model.sizes, model.params, c.chars, u - 1, fs,
            words.lockstep_notes(model, u)), lambda u: words.lockstep_alt(model, u)), t)
        return
    cell, names = c.cell, lesson.panels(c.cell)
    vals = lesson.step_values(cell, model, t)
    with st.container(key=words.STEP_WORDS):  # a drag of H, the radius or b_f writes the words at its value here
        st.markdown(words.step_words(c, model, t))
    split = classroom()  # gates beside states: the whole chart under its stepper on a projector's first screen
    stepped_plot(f"{P}.heat", Steps(P, T, lambda u: words.heat_chart(c, model, u, fs, split),
                                    lambda u: words.step_alt(names, lesson.step_values(cell, model, u), u)), t)
    if not c.trained:  # the heatmaps follow H, the radius and b_f while dragged
        scrubs(P, words.scrubs(c, t, fs, split))
    with st.container(key=words.COLOUR_WORDS):  # c's range follows a drag, with the heatmaps
        st.caption(words.colour_key(names, model, t, T))
    with CONTROLS.widget("numbers") as box:
        if box.open:  # drawn only while open: a closed box costs a step nothing
            for part in words.step_tables(vals):
                table(part)


@fragment
def view_body(view: str) -> None:
    """A view's controls and results: a settings change reruns this, not the valve below."""
    fs = font_scale()
    left, right = page_columns([1, 2.3])
    with left, controls_box():
        if view == "lockstep":
            memory_words.memory_presets()
        c = controls(view)
        if view == "cell":
            with st.container(key=words.SHAPE_WORDS):  # greyed through a drag of H
                st.markdown(words.shape_text(c.cell, c.x.shape[1], c.H))
    with right:
        room = classroom()  # on a projector the chart comes first, the equations and the untrained note after it;
        # on a laptop the equations, then the chart (on the first screen with b_f), then what their symbols mean
        if view == "lockstep":
            model = three_cells(c, fs)
        else:
            if not room:
                st.markdown(words.UNTRAINED.format(seed=c.seed))
            w = lesson.generate(c.cell, c.x.shape[1], c.H, c.seed, c.radius, c.bf)
            for part in ("chart", "equations") if room else ("equations", "chart"):
                if part == "chart":
                    stepper(view, c, lesson.run(c.cell, c.x, w), fs)
                else:
                    st.latex(words.EQUATIONS[c.cell])
            st.markdown(words.SYMBOLS[c.cell])
            if room:
                st.markdown(words.UNTRAINED.format(seed=c.seed))
    if view == "lockstep":  # full width: three columns of heatmaps
        stepper(view, c, model, fs)
        st.markdown(words.LOCKSTEP_KEY)
        if classroom():  # where Ask the class is: its question's cells are not these, and its answer may differ
            st.caption(memory_words.asked_note(c, registry.lesson(P).asks["memory"].label))
    else:
        cell, d, name = c.cell, c.x.shape[1], f"rnnviz_{c.cell}.py"
        export_panel(lambda: gated_script(cell, c.x, w["W_ih"], w["W_hh"], w["b_ih"], w["b_hh"], name=name,
                                          what=f"an {cell.upper()} cell, d={d}, H={c.H}"), name, f"{P}.export")
    publish(SETTINGS)


@fragment
def valve() -> None:
    """The one-unit LSTM that keeps its first input; its slider reruns only this."""
    fs = font_scale()
    st.subheader("The valve: a one-unit LSTM that remembers")
    v1, v2 = page_columns([1, 2.3])
    with v1:
        T_valve = CONTROLS.widget("T")
        publish(VALVE)
        res = words.shared_valve(T_valve)
        with st.container(key=words.VALVE_WORDS):  # the sentence and the table follow a drag of Steps, with the chart
            st.markdown(words.valve_text(res))
        with st.container(key=words.VALVE_TABLE):
            table(words.valve_table(res))
    with v2:
        plot(figures.valve_figure(res, fs), f"{P}.valve",
             alt=f"LSTM cell state stays at {res.lstm.c[-1, 0]:.4f} after {T_valve} steps; vanilla state falls to "
                 f"{res.rnn.h[-1, 0]:.1e}")
    scrubs(f"{P}.valve", words.valve_scrubs(T_valve, fs))  # a part of its own: the view above has its own


st.title("Gates: LSTM and GRU")
restore(P, PARAMS)
for p in PARAMS:  # keep settings of widgets the other view hides (Streamlit drops unrendered widgets' state)
    st.session_state[p.key] = st.session_state[p.key]
memory_words.open_on_the_lesson()  # three cells side by side: trained, on the first-letter input
intro("Gated cells decide, unit by unit, what to keep, what to write and what to show. Step through a word and "
      "watch the forget gate: slide its bias up and the cell state starts to hold on to the past. **Three cells side "
      "by side** runs a vanilla RNN, an LSTM and a GRU with the same number of parameters on the same input. At the "
      "bottom, a one-unit LSTM keeps its first input for hundreds of steps.")
view_body(CONTROLS.widget("view"))
st.divider()
valve()
publish(PARAMS)
