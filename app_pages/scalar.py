"""One unit by hand: h_t = tanh(w_x x_t + w_h h_{t-1} + b), stepped forward and back."""
import streamlit as st

from ui.urlstate import dump_flag, flag, font_scale, integer, number, Param, publish, restore, set_state, text
from ui.widgets import controls_box, error, export_panel, intro, plot, step_controls
from rnnviz.figures import scalar as figures
from rnnviz.lessons.export import rnn_script
from rnnviz.lessons.scalar import score_guess
from rnnviz.lessons.presets import DEFAULT_SCALAR, SCALAR_PRESETS
from rnnviz.lessons.scalar import InputError, fixed_points, fmt, iterate_silence, parse_sequence, run_scalar, worked_rows

P = "scalar"
D = SCALAR_PRESETS[DEFAULT_SCALAR]
PARAMS = [
    Param(f"{P}.w_x", "wx", D.w_x, number(-10, 10, 0.05)),
    Param(f"{P}.w_h", "wh", D.w_h, number(-10, 10, 0.05)),
    Param(f"{P}.b", "b", D.b, number(-10, 10, 0.05)),
    Param(f"{P}.h0", "h0", D.h0, number(-1, 1, 0.01)),
    Param(f"{P}.x", "x", ", ".join(f"{v:g}" for v in D.x), text(2000)),
    Param(f"{P}.t", "t", len(D.x), integer(1, 200)),
    Param(f"{P}.predict", "predict", False, flag, dump_flag),
]


def preset_values(name: str) -> dict:
    p = SCALAR_PRESETS[name]
    return {f"{P}.w_x": p.w_x, f"{P}.w_h": p.w_h, f"{P}.b": p.b, f"{P}.h0": p.h0,
            f"{P}.x": ", ".join(f"{v:g}" for v in p.x), f"{P}.t": len(p.x)}


def controls() -> tuple[float, float, float, float, str]:
    st.markdown("**Presets from the notes**")
    cols = st.columns(2)
    for k, (name, p) in enumerate(SCALAR_PRESETS.items()):
        cols[k % 2].button(p.label, key=f"{P}.preset.{name}", on_click=set_state, args=(preset_values(name),),
                           help=p.lesson, width="stretch")
    w_x = st.slider("w_x, input weight", -10.0, 10.0, step=0.05, key=f"{P}.w_x",
                    help="How strongly the current input x_t is read into the state.")
    w_h = st.slider("w_h, recurrent weight", -10.0, 10.0, step=0.05, key=f"{P}.w_h",
                    help="How much of the previous state is carried into the next one. Below 1 the past fades; "
                         "above 1 it can grow until tanh saturates.")
    b = st.slider("b, bias", -10.0, 10.0, step=0.05, key=f"{P}.b", help="A constant added before the squash.")
    h0 = st.slider("h_0, initial state", -1.0, 1.0, step=0.01, key=f"{P}.h0",
                   help="The state before the first input; the notes start from 0.")
    x_text = st.text_input("Input sequence x_1, x_2, …", key=f"{P}.x", max_chars=2000,
                           help="Numbers separated by commas or spaces, up to 200 of them, each within ±100.")
    return w_x, w_h, b, h0, x_text


st.title("One unit by hand")
restore(P, PARAMS)
intro("One hidden unit, one number of memory. Press **Next** to take a step and watch where the pre-activation "
      "lands on the tanh curve. Then try the **Flood** preset, or set w_h above 1, and see the state stop fading.")

left, right = st.columns([0.85, 2.5], gap="large")
with left, controls_box():
    w_x, w_h, b, h0, x_text = controls()

try:
    x = parse_sequence(x_text)
except InputError as e:
    with right:
        error(f"{e} The charts below still show your last valid sequence.")
    x = st.session_state.get(f"{P}._last_x", list(D.x))
else:
    if x != st.session_state.get(f"{P}._last_x", x):
        st.session_state[f"{P}.t"] = len(x)  # a new sequence opens on its last step
    st.session_state[f"{P}._last_x"] = x

trace = run_scalar(x, w_x, w_h, b, h0)
T = len(x)
fs = font_scale()

with right:
    t = step_controls(P, T, "Scrub through time; the table and charts follow.", reset=True)
    k = t - 1
    xp, hp, pre, h = trace.x_part[k, 0], trace.h_part[k, 0], trace.pre[k, 0], trace.h[k, 0]
    h_prev = trace.h[k - 1, 0] if k else h0
    predict = st.toggle("Predict before you see", key=f"{P}.predict",
                        help="Guess each new h_t before the page shows it; your guesses are scored.")
    setup_key = (w_x, w_h, b, h0, tuple(x))
    revealed = st.session_state.setdefault(f"{P}.revealed", set())
    hidden = predict and (setup_key, t) not in revealed
    shown = t - 1 if hidden else t  # steps whose numbers are on the page
    if hidden:
        with st.container(border=True):
            st.markdown(f"**Your turn, step {t}.** The input is x_{t} = {x[k]:g} and the memory is "
                        f"h_{t - 1} = {fmt(h_prev)}. What will h_{t} be?")
            g1, g2 = st.columns([2, 1], vertical_alignment="bottom")
            guess = g1.number_input("Your guess for h_t", -1.0, 1.0, 0.0, 0.01, key=f"{P}.guess",
                                    help="Between −1 and 1: tanh can give nothing else.")

            def check():
                res = score_guess(st.session_state[f"{P}.guess"], float(h))
                pts, n = st.session_state.get(f"{P}.score", (0, 0))
                st.session_state[f"{P}.score"] = (pts + res.points, n + 1)
                st.session_state[f"{P}.verdict"] = (t, res.message)
                st.session_state[f"{P}.revealed"].add((setup_key, t))

            g2.button("Check", key=f"{P}.check", on_click=check, type="primary", width="stretch")
    else:
        verdict = st.session_state.get(f"{P}.verdict")
        if predict and verdict and verdict[0] == t:
            st.info(verdict[1], icon="🎯")
        st.markdown(
            f"**Step {t}.** Read the input: {w_x:g} × {x[k]:g} = **{fmt(xp)}**. "
            f"Read the memory: {w_h:g} × {fmt(h_prev)} = **{fmt(hp)}**. "
            f"Add{' the bias ' + f'{b:g}' if b else ''}: z = **{fmt(pre)}**. Squash: tanh({fmt(pre)}) = **{fmt(h)}**."
        )
    if predict:
        pts, n = st.session_state.get(f"{P}.score", (0, 0))
        st.caption(f"Score: {pts} point{'s' if pts != 1 else ''} from {n} guess{'es' if n != 1 else ''} "
                   "(2 for within 0.05, 1 for the right sign).")
    g1, g2 = st.columns(2)
    with g1:
        plot(figures.tanh_curve(trace.pre[:shown, 0], trace.h[:shown, 0], shown - 1, fs), f"{P}.tanh",
             alt=f"tanh curve with steps 1 to {shown} marked")
    with g2:
        plot(figures.states_over_time(trace.h[:shown, 0], x[:shown], shown - 1 if shown else None, fs), f"{P}.states",
             alt="h_t over time: " + ", ".join(fmt(v) for v in trace.h[:shown, 0]))
    st.markdown("**The worked example** (rows up to the current step)")
    rows = worked_rows(trace, b)[:t]
    if hidden:
        rows[-1] = dict(rows[-1], pre="?", h_t="?")
    st.table({"t": [r["t"] for r in rows], "x_t": [r["x_t"] for r in rows],
              "w_x x_t + w_h h_{t-1}" + (" + b" if b else ""): [r["pre"] for r in rows],
              "h_t = tanh(·)": [r["h_t"] for r in rows]})
    st.markdown("**Why w_h > 1 remembers: the silent cell's fixed points**")
    fps = fixed_points(w_h, b)
    path = iterate_silence(float(trace.h[0, 0]), w_h, b, 12)
    f1, f2 = st.columns([1.4, 1])
    with f1:
        plot(figures.cobweb(w_h, b, path, fps, fs), f"{P}.cobweb",
             alt="cobweb of h -> tanh(w_h h + b); fixed points " + ", ".join(f"{h:.3f}" for h, _ in fps))
    with f2:
        st.markdown(
            "With no input the cell repeats h → tanh(w_h·h + b). Each crossing with the dashed diagonal is a "
            "state that stays put. Start from h_1 and follow the red staircase."
        )
        for h_star, stable in fps:
            st.markdown(f"- h* = **{h_star:.4f}**, {'stable: nearby states fall in' if stable else 'unstable: nearby states leave'}")
        if len(fps) >= 3:
            st.markdown("Two stable states: the unit can hold a bit of memory forever, "
                        "and the sign of h_1 decides which one it keeps.")
export_panel(rnn_script(x, w_x, w_h, b, None, h0, what=f"one unit, w_x={w_x:g}, w_h={w_h:g}, b={b:g}, h_0={h0:g}",
                        name="rnnviz_one_unit.py"), "rnnviz_one_unit.py")
publish(PARAMS)
