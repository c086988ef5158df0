"""Using the states: classifier vs language model, the padding trap, a bidirectional pass, parameter counts."""
import numpy as np
import streamlit as st

from rnnviz.figures import states as figures
from rnnviz.lessons import states as lesson
from rnnviz.nn.params import count_text
from rnnviz.text import InputError, fmt
from ui.lessons import states as words
from ui.lessons.states import BIDIR, CALC, CONTROLS, PADDING, PARAMS, P
from ui.limits import fragment
from ui.urlstate import font_scale, publish, restore, set_state
from ui.widgets import error, intro, page_columns, plot, table, torch_check


def controls() -> dict:
    """The calculator's settings, read from its widgets, as plain values (each head keeps its own output size)."""
    for name, (label, what) in words.PRESET_LABELS.items():  # one a row: two to a row cut "GRU classifier (…" at 1400
        st.button(label, key=f"{P}.preset.{name}", width="stretch", on_click=set_state, help=what,
                  args=({CONTROLS.key(k): v for k, v in words.CALC_PRESETS[name].items()},))
    c = {k: CONTROLS.widget(k) for k in ("task", "cell", "d", "H")}
    heads = ("V",) if c["task"] == "lm" else ("K", "emb")  # the head's sizes; the other head's keep theirs
    c |= {k: CONTROLS.widget(k) for k in heads + ("layers",)}
    if c["task"] != "lm":
        c["bi"] = CONTROLS.widget("bi")
    return c


@fragment
def heads_view(fs: float) -> None:
    demo = lesson.heads_demo()
    st.markdown(words.heads_text(demo))
    st.markdown(words.shapes_text(demo))
    c1, c2 = st.columns(2)
    with c1:
        st.markdown("**Classifier** reads $h_T$, the last state, and gives one distribution per sequence.")
        table(words.classifier_table(demo))
    with c2:
        st.markdown("**Language model** reads every $h_t$ and gives a distribution over the vocabulary at every "
                    "step.")
        plot(figures.state_heatmap(demo.lm[0], "Sequence 1: p(next token) at each step", "token", fs, True),
             f"{P}.lm", alt="language model probabilities, one column per step: " + "; ".join(
                 ", ".join(f"{p:.2f}" for p in row) for row in demo.lm[0]))


@fragment
def padding_view(fs: float) -> None:
    c1, c2 = page_columns([1, 2])
    with c1:
        lengths_text = CONTROLS.widget("lengths")
        try:
            lengths = lesson.parse_lengths(lengths_text)
        except InputError as e:
            error(f"{e} Using 5, 3, 2.")
            lengths = words.DEFAULT_LENGTHS
        check = CONTROLS.widget("torch_pad")
        publish(PADDING)
        demo = (check and torch_check(lambda: lesson.padding_demo(lengths, with_torch=True))
                or lesson.padding_demo(lengths))
        st.markdown(words.padding_text(demo))
    with c2:
        plot(figures.padding_bars(demo, fs), f"{P}.pad", alt="max difference from the state after the last real token: "
             + ", ".join(f"example {b + 1}: {fmt(v, 4)}" for b, v in enumerate(demo.diff)))
        table(words.padding_table(demo))
        st.caption(words.padding_caption(demo))
        if demo.packed is not None:
            gap = np.abs(demo.packed - demo.at_length).max()
            st.caption(f"Packed torch states equal the length − 1 states to {gap:.1e}.")


@fragment
def bidirectional_view(fs: float) -> None:
    xb = np.random.default_rng(1).normal(size=(6, 3))
    bi = lesson.bidirectional(xb)
    st.markdown(words.BIDIRECTIONAL_TEXT)
    c1, c2 = st.columns(2)
    with c1:
        plot(figures.state_heatmap(bi.forward, "Left to right →", font_scale=fs), f"{P}.fwd", alt="forward states")
    with c2:
        plot(figures.state_heatmap(bi.backward, "← Right to left", font_scale=fs), f"{P}.bwd", alt="backward states")
    st.caption(f"Concatenated per position: [T, 2H] = {list(bi.concat.shape)} (T steps, H units per direction).")
    if CONTROLS.widget("torch_bi"):
        diff = torch_check(lambda: np.abs(lesson.torch_bidirectional(xb) - bi.concat).max())
        if diff is not None:
            st.caption(f"PyTorch on the same weights agrees to {diff:.1e}.")
    publish(BIDIR)


@fragment
def params_view(fs: float) -> None:
    c1, c2 = page_columns([1, 2])
    with c1:
        c = controls()
        publish(CALC)
    parts = lesson.calculate(**c)
    with c2:
        for col, (label, key) in zip(st.columns(4), (("Total", "total"), ("Embedding", "embedding"),
                                                    ("Recurrent cell", "cell"), ("Output layer", "output"))):
            col.metric(label, f"{parts[key]:,}", count_text(parts[key]) if parts[key] >= 1000 else None,
                       delta_color="off", delta_arrow="off")  # '516 516' would say nothing twice
        plot(figures.param_breakdown(parts, fs), f"{P}.params", alt=f"total {parts['total']:,} parameters: embedding "
             f"{parts['embedding']:,}, recurrent cell {parts['cell']:,}, output layer {parts['output']:,}")
        st.markdown(words.formula_text(c["cell"], c["task"]))


st.title("Using the states")
restore(P, PARAMS)
for p in PARAMS:  # keep the settings of views not shown (Streamlit drops the state of widgets it did not draw)
    st.session_state[p.key] = st.session_state[p.key]
intro("A recurrent layer hands back one state per step. A classifier keeps only the last one; a language model "
      "reads every one. Open **The padding trap** to see what goes wrong when 'the last one' is a padding "
      "token, and **Parameter counts** to see where a language model's weights really live.")
view = CONTROLS.widget("view")
{"heads": heads_view, "padding": padding_view, "bi": bidirectional_view, "params": params_view}[view](font_scale())
publish(PARAMS)
