"""Recurrence returns: the linear recurrence, eigenvalues, minGRU / minLSTM, a selective step, the scan, gradients."""
import streamlit as st

from rnnviz.figures import recurrences as figures
from rnnviz.lessons import recurrences as lesson
from rnnviz.lessons.export import recurrence_script
from rnnviz.text import fmt
from ui.lessons import recurrences as words
from ui.lessons.recurrences import P
from ui.limits import fragment
from ui.live.scrub import scrubs
from ui.live.steps import Steps, stepped_plot
from ui.urlstate import font_scale, publish, restore, set_state
from ui.widgets import controls_box, error, export_panel, intro, number_table, plot, step_controls


def linear_view(fs: float) -> None:
    with controls_box():
        c1, c2 = st.columns(2)
        a = c1.slider("a, what each step keeps of hₜ₋₁", -1.5, 1.5, step=0.01, key=f"{P}.a",
                      help="Below 1 in size the state fades, above 1 it grows: no tanh stops it.")
        b = c2.slider("b, input weight", -2.0, 2.0, step=0.1, key=f"{P}.b")
        x, problem = words.parsed(f"{P}.x", words.X_DEFAULT)
        t = step_controls(f"{P}.lin", len(x))
    tr = lesson.linear_run(a, b, x)
    stepped_plot(f"{P}.linear", Steps(f"{P}.lin", len(x), lambda u: figures.linear_steps(tr.x[:, 0], tr.h[:, 0], u, fs),
                                      lambda u: "h_t: " + ", ".join(fmt(v) for v in tr.h[:u, 0])), t)
    st.markdown(words.linear_text(lesson.linear_step(tr, t), a, b, t, len(x)))
    st.text_input("Input sequence x₁, x₂, …", key=f"{P}.x", max_chars=2000,
                  help="Numbers separated by commas or spaces, up to 200, each within ±100.")
    if problem:
        error(problem)
    scrubs(P, words.linear_scrubs(a, b, x, t, fs))  # the chart follows a or b while it is dragged
    export_panel(lambda: recurrence_script("linear", x, {"a": [a], "B": [[b]]}, what=f"h_t = {a:g} h_(t-1) + {b:g} x_t",
                                           name="rnnviz_linear.py"), "rnnviz_linear.py", f"{P}.export.linear")


def eigen_view(fs: float) -> None:
    cols = st.columns(len(words.PRESETS))
    for col, (name, (_, _, tip)) in zip(cols, words.PRESETS.items()):
        col.button(name, key=f"{P}.preset.{name}", on_click=set_state, args=(words.preset_state(name),), help=tip,
                   width="stretch")
    N = st.session_state[f"{P}.N"]
    with controls_box():  # one row above the charts: a radius and the plane it moves share a projector's screen
        cols = st.columns(2 * N)
        for k in range(1, N + 1):
            cols[2 * k - 2].slider(f"r{k}, radius", 0.0, 0.999, step=0.001, key=f"{P}.r{k}", format="%.3f")
            cols[2 * k - 1].slider(f"θ{k}, angle", 0.0, 3.14, step=0.01, key=f"{P}.th{k}")
    r = [st.session_state[f"{P}.r{k}"] for k in range(1, N + 1)]
    th = [st.session_state[f"{P}.th{k}"] for k in range(1, N + 1)]
    resp = lesson.eigen_response(r, th, 1000)
    c1, c2 = st.columns([1, 1.6])
    with c1:
        plot(figures.eigen_plane(resp.lam, fs), f"{P}.plane",
             alt="eigenvalues " + ", ".join(f"{v:.3f}" for v in resp.lam))
    with c2:
        plot(figures.impulse_response(resp.log10_abs, lesson.LOG_FLOOR, fs), f"{P}.impulse",
             alt="|h_t| at t = 1000: " + ", ".join(f"{10 ** v:.2e}" for v in resp.log10_abs[-1]))
    st.markdown(words.eigen_text(resp))
    st.slider("Units N", 1, words.UNITS, key=f"{P}.N")
    scrubs(P, words.scrubs(r, th, fs))  # the plane follows a radius while it is dragged


def min_view(fs: float) -> None:
    with controls_box():
        c1, c2 = st.columns([1.3, 1])
        word, vocab, problem = words.word_input(c1.text_input("Word", key=f"{P}.word", max_chars=30))
        H = c2.slider("H, units", 1, 8, key=f"{P}.H")
        t = step_controls(f"{P}.min", len(word))
    if problem:
        error(problem)
    seed = st.session_state[f"{P}.seed"]
    ls = lesson.min_lockstep(word, vocab, H, seed)
    stepped_plot(f"{P}.min", Steps(f"{P}.min", len(word), lambda u: figures.min_lockstep(
        ls.keep, ls.h, list(word), u, fs, ls.stepwise), lambda u: f"step {u}: kept shares " + ", ".join(
            f"{c} {v[u - 1].mean():.2f}" for c, v in ls.keep.items())), t)
    st.markdown(words.min_text(ls, t, list(word)))
    st.caption(words.MIN_KEY)
    st.number_input("Seed", 0, 10_000, key=f"{P}.seed", help="The same seed as the gates page gives its GRU.")
    export_panel(lambda: recurrence_script("mingru", ls.x, ls.mingru_weights, what=f"minGRU, H={H}, {len(word)} steps",
                                           name="rnnviz_mingru.py"), "rnnviz_mingru.py", f"{P}.export.min")


def selective_view(fs: float) -> None:
    with controls_box():
        c1, c2 = st.columns(2)
        w = c1.slider("w, how strongly xₜ sets the step", 0.0, 8.0, step=0.1, key=f"{P}.w")
        c = c2.slider("c, the step's bias", -4.0, 4.0, step=0.1, key=f"{P}.c")
    x, problem = words.parsed(f"{P}.sx", words.SX_DEFAULT)
    tr = lesson.selective_run(x, w, c)
    plot(figures.selective_steps(tr.x[:, 0], tr.delta[:, 0], tr.a[:, 0], tr.h[:, 0], fs), f"{P}.selective",
         alt="a_t: " + ", ".join(fmt(v) for v in tr.a[:, 0]))
    st.markdown(words.selective_text(tr))
    st.latex(words.SELECTIVE_EQ)
    st.text_input("Input sequence x₁, x₂, …", key=f"{P}.sx", max_chars=2000, help=words.SELECTIVE_HELP)
    if problem:
        error(problem)
    scrubs(P, words.selective_scrubs(w, c, x, fs))  # the chart follows w or c while it is dragged


def scan_view(fs: float) -> None:
    T = st.segmented_control("T, steps to scan", [8, 16], key=f"{P}.T", required=True)
    tree = lesson.scan_tree(T, 0)
    plot(figures.scan_tree(tree.levels_a, tree.levels_b, fs), f"{P}.tree",
         alt="scan tree, last level: " + ", ".join(f"{v:.2f}" for v in tree.levels_b[-1]))
    st.markdown(words.scan_text(tree))
    costs = words.measured_costs()
    plot(figures.scan_costs(costs.T, costs.work, costs.depth, costs.seconds, fs), f"{P}.costs",
         alt="loop and scan work, depth and seconds for T = 2^10 to 2^16")
    st.caption(words.COSTS_NOTE)
    number_table(words.cost_table(costs), 2)


def grad_view(fs: float) -> None:
    with controls_box():
        T = st.slider("T, steps back", 10, 300, key=f"{P}.gT")
    curves = words.gradient_curves(8, T, 0)
    plot(figures.gradient_compare(curves, fs), f"{P}.grad",
         alt="log10 norms at T steps back: " + ", ".join(f"{k} {v[-1]:.1f}" for k, v in curves.items()))
    st.markdown("\n".join(f"- {words.REASONS[k]}" for k in curves))


@fragment
def view_part(view: str) -> None:
    """The view's controls and charts: a move inside reruns this part alone, not the title, intro and view picker."""
    {"linear": linear_view, "eigen": eigen_view, "min": min_view, "selective": selective_view, "scan": scan_view,
     "grad": grad_view}[view](font_scale())
    publish(words.PARAMS)


st.title("Recurrence returns: linear RNNs and the scan")
restore(P, words.PARAMS)
for p in words.PARAMS:  # keep settings of widgets the other views hide (Streamlit drops unrendered widgets' state),
    st.session_state[p.key] = st.session_state[p.key]  # here, not in the view's own runs: a value written there came
    # back to its widget as the server's, and undid a key press made while the run was under way
intro(words.INTRO)
view_part(st.segmented_control("View", list(words.VIEWS), key=f"{P}.view", required=True,
                               format_func=words.VIEWS.get, help=words.VIEW_HELP))
