"""Recurrence returns: the linear recurrence, eigenvalues, minGRU / minLSTM, a selective step, the scan, gradients."""
import streamlit as st

from rnnviz.figures import recurrences as figures
from rnnviz.lessons import recurrences as lesson
from rnnviz.lessons.export import recurrence_script
from rnnviz.text import fmt
from ui.lessons import recurrences as words
from ui.lessons.recurrences import CONTROLS, P
from ui.limits import fragment
from ui.live.scrub import scrubs
from ui.live.steps import Steps, stepped_plot
from ui.urlstate import font_scale, publish, restore, set_state
from ui.widgets import controls_box, error, export_panel, intro, number_table, plot, step_controls


def linear_view(fs: float) -> None:
    with controls_box():
        c1, c2 = st.columns(2)
        a, b = CONTROLS.widget("a", c1), CONTROLS.widget("b", c2)
        x, problem = words.parsed(CONTROLS.key("x"), words.X_DEFAULT)
        t = step_controls(CONTROLS, len(x), name="lin.t")
    lin = words.Linear(a, b, tuple(x))
    tr = lesson.linear_run(a, b, x)
    stepped_plot(f"{P}.linear", Steps(f"{P}.lin", len(x), lambda u: figures.linear_steps(tr.x[:, 0], tr.h[:, 0], u, fs),
                                      lambda u: "h_t: " + ", ".join(fmt(v) for v in tr.h[:u, 0])), t)
    with st.container(key=words.LINEAR_WORDS):  # it follows a drag of a or b (words.linear_scrubs)
        st.markdown(words.linear_text(lesson.linear_step(tr, t), lin, t))
    CONTROLS.widget("x")
    if problem:
        error(problem)
    scrubs(P, words.linear_scrubs(lin, t, fs))  # the chart follows a or b while it is dragged
    export_panel(lambda: recurrence_script("linear", x, {"a": [a], "B": [[b]]}, what=f"h_t = {a:g} h_(t-1) + {b:g} x_t",
                                           name="rnnviz_linear.py"), "rnnviz_linear.py", f"{P}.export.linear")


def eigen_view(fs: float) -> None:
    cols = st.columns(len(words.PRESETS))
    for col, (name, (_, _, tip)) in zip(cols, words.PRESETS.items()):
        col.button(name, key=f"{P}.preset.{name}", on_click=set_state, args=(words.preset_state(name),), help=tip,
                   width="stretch")
    N = CONTROLS.value("N")
    with controls_box():  # one row above the charts: a radius and the plane it moves share a projector's screen
        cols = st.columns(2 * N)
        r = [CONTROLS.widget(f"r{k}", cols[2 * k - 2]) for k in range(1, N + 1)]
        th = [CONTROLS.widget(f"th{k}", cols[2 * k - 1]) for k in range(1, N + 1)]
    resp = lesson.eigen_response(r, th, words.IMPULSE_STEPS)
    c1, c2 = st.columns([1, 1.6])
    with c1:
        plot(figures.eigen_plane(resp.lam, fs), f"{P}.plane",
             alt="eigenvalues " + ", ".join(f"{v:.3f}" for v in resp.lam))
    with c2:
        plot(words.impulse(resp, fs), f"{P}.impulse",
             alt="|h_t| at t = 1000: " + ", ".join(f"{10 ** v:.2e}" for v in resp.log10_abs[-1]))
    with st.container(key=words.EIGEN_WORDS):  # it follows a drag of a radius (words.scrubs)
        st.markdown(words.eigen_text(resp))
    CONTROLS.widget("N")
    scrubs(P, words.scrubs(r, th, fs))  # the plane follows a radius or an angle while it is dragged, and the impulse
    # response a radius


def min_view(fs: float) -> None:
    with controls_box():
        c1, c2 = st.columns([1.3, 1])
        word, vocab, problem = words.word_input(CONTROLS.widget("word", c1))
        H = CONTROLS.widget("H", c2)
        t = step_controls(CONTROLS, len(word), name="min.t")
    if problem:
        error(problem)
    seed = CONTROLS.value("seed")
    ls = lesson.min_lockstep(word, vocab, H, seed)
    stepped_plot(f"{P}.min", Steps(f"{P}.min", len(word), lambda u: figures.min_lockstep(
        ls.keep, ls.h, list(word), u, fs, ls.stepwise), lambda u: f"step {u}: kept shares " + ", ".join(
            f"{c} {v[u - 1].mean():.2f}" for c, v in ls.keep.items())), t)
    with st.container(key=words.MIN_WORDS):  # it follows a drag of H, with the chart
        st.markdown(words.min_text(ls, t, list(word)))
    scrubs(P, words.min_scrubs(word, vocab, H, seed, t, fs))
    st.caption(words.MIN_KEY)
    CONTROLS.widget("seed")
    export_panel(lambda: recurrence_script("mingru", ls.x, ls.mingru_weights, what=f"minGRU, H={H}, {len(word)} steps",
                                           name="rnnviz_mingru.py"), "rnnviz_mingru.py", f"{P}.export.min")


def selective_view(fs: float) -> None:
    with controls_box():
        c1, c2 = st.columns(2)
        w, c = CONTROLS.widget("w", c1), CONTROLS.widget("c", c2)
    x, problem = words.parsed(CONTROLS.key("sx"), words.SX_DEFAULT)
    sel = words.Selective(w, c, tuple(x))
    tr = lesson.selective_run(x, w, c)
    plot(figures.selective_steps(tr.x[:, 0], tr.delta[:, 0], tr.a[:, 0], tr.h[:, 0], fs), f"{P}.selective",
         alt="a_t: " + ", ".join(fmt(v) for v in tr.a[:, 0]))
    st.markdown(words.selective_text(tr))
    st.latex(words.SELECTIVE_EQ)
    st.markdown(words.SELECTIVE_FAMILY)
    CONTROLS.widget("sx")
    if problem:
        error(problem)
    scrubs(P, words.selective_scrubs(sel, fs))  # the chart follows w or c while it is dragged


def scan_view(fs: float) -> None:
    T = CONTROLS.widget("T")
    tree = lesson.scan_tree(T, 0)
    plot(figures.scan_tree(tree.levels_a, tree.levels_b, fs), f"{P}.tree",
         alt="scan tree, last level: " + ", ".join(f"{v:.2f}" for v in tree.levels_b[-1]))
    st.markdown(words.scan_text(tree))
    st.markdown(words.SCAN_WHY)
    costs = words.measured_costs()
    plot(figures.scan_costs(costs.T, costs.work, costs.depth, costs.seconds, fs), f"{P}.costs",
         alt="loop and scan work, depth and seconds for T = 2^10 to 2^16")
    st.caption(words.COSTS_NOTE)
    number_table(words.cost_table(costs), 2)


def grad_view(fs: float) -> None:
    with controls_box():
        T = CONTROLS.widget("gT")
    curves = words.gradient_curves(words.GRAD_H, T, words.GRAD_SEED)
    plot(figures.gradient_compare(curves, fs), f"{P}.grad",
         alt="log10 norms at T steps back: " + ", ".join(f"{k} {v[-1]:.1f}" for k, v in curves.items()))
    scrubs(P, words.grad_scrubs(T, fs))  # the chart follows T while it is dragged
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
view_part(CONTROLS.widget("view"))
