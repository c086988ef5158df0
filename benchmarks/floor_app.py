"""The floor for benchmarks/browser.py: the cheapest Streamlit page that redraws a chart from a slider.

    streamlit run benchmarks/floor_app.py  # ?variant=one, bare, live, full, changing, fragment, table, mdtable,
    # controls, words, lesson

one: a keyed slider redraws ONE Plotly chart of three 50-point traces (the floor).
bare: a keyed slider and one line of text, no chart (Streamlit's own round trip: the second floor).
live: `one`, its chart drawn the app's way (ui.live.chart.live_chart: updated in place with Plotly.react): the least a
    rerun that moves one of the app's charts costs.
full: the same plus three more charts and a table, the whole page rerun on every move (those three unchanged).
changing: as `full`, but the three other charts also move with the slider.
fragment: as `full`, but the slider and its chart are an `st.fragment`; the rest is not rerun.
table: `bare` and two 6x5 tables of numbers that change with the slider, as st.table draws them.
mdtable: the same tables as markdown (ui.widgets.table, the app's way).
controls: `bare` and nine controls that no move changes (a radio, two buttons, six sliders in an expander).
words: `bare` and five metrics and a paragraph that change with the slider.
lesson: `bare`, the nine controls, the changing words and one chart drawn in place: what a lesson explorer's slider
    costs with nothing computed (Streamlit's own parts, the app's chart).
"""
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the app's ui package, for `live`
from ui.live import assets, chart as app_chart  # noqa: E402
from ui.widgets import table  # noqa: E402

x = np.arange(50)
variant = st.query_params.get("variant", "one")
# Streamlit serves the static/ folder beside the script it runs: plotly.js and the scripts for `live` go there
# (ignored by git)
LIVE = assets.provide(Path(__file__).with_name("static"))


def chart(phase: float, key: str) -> None:
    """Three 50-point sine traces, shifted by `phase`."""
    fig = go.Figure([go.Scatter(x=x, y=np.sin(x / 6 + phase + k), mode="lines+markers", name=f"trace {k + 1}")
                     for k in range(3)])
    fig.update_layout(height=320, margin={"l": 40, "r": 10, "t": 30, "b": 30})
    if variant in ("live", "lesson") and LIVE:
        app_chart.live_chart(fig, key=key, alt="Three sine curves", config={})
    else:
        st.plotly_chart(fig, key=key)


def controlled_chart() -> float:
    phase = st.slider("Phase", 0.0, 10.0, 1.0, step=0.1, key="floor.phase")
    chart(phase, "floor.chart")
    return phase


def rest_of_page(phase: float) -> None:
    """Three more charts and a table."""
    for k, col in enumerate(st.columns(3)):
        with col:
            chart(2.0 * k + phase, f"floor.other{k}")
    st.table(pd.DataFrame(np.round(np.sin(np.outer(np.arange(12), np.arange(6)) / 7), 4),
                          columns=[f"c{k}" for k in range(6)]))


def controls() -> None:
    """Nine controls that no move changes, as a lesson's explorer has beside its slider (presets, a view, settings)."""
    st.radio("View", ["decay", "factors"], horizontal=True, key="floor.view")
    for k in range(2):
        st.button(f"Preset {k + 1}", key=f"floor.preset{k}")
    with st.expander("More settings"):
        for k in range(6):
            st.slider(f"Setting {k + 1}", 0.0, 5.0, 1.0, key=f"floor.setting{k}")


def words(phase: float) -> None:
    """Five metrics and a paragraph that change with the slider, as a lesson's numbers under its chart do."""
    for k, col in enumerate(st.columns(5)):
        col.metric(f"Metric {k + 1}", f"{np.sin(phase + k):.3f}")
    st.markdown(f"At phase **{phase:.1f}** the first curve is at $\\sin({phase:.1f}) = {np.sin(phase):.3f}$; "
                "the others are shifted by one each, and the metrics above read them off.")


st.title(f"Floor: {variant}")
if variant in ("controls", "words", "lesson"):
    if variant != "words":
        controls()
    phase = st.slider("Phase", 0.0, 10.0, 1.0, step=0.1, key="floor.phase")
    st.write(f"Phase {phase:.1f}")
    if variant != "controls":
        words(phase)
    if variant == "lesson":
        chart(phase, "floor.chart")
    st.stop()
if variant in ("bare", "table", "mdtable"):
    st.write(f"Phase {(phase := st.slider('Phase', 0.0, 10.0, 1.0, step=0.1, key='floor.phase')):.1f}")
    for k in range(2 if variant != "bare" else 0):
        numbers = pd.DataFrame(np.round(np.sin(np.outer(np.arange(6), np.arange(5)) / 7 + phase + k), 3),
                               columns=[f"c{j}" for j in range(5)])
        if variant == "table":  # a statement, not an expression: Streamlit's magic would st.write its value
            st.table(numbers)
        else:
            table(numbers)
    st.stop()
phase = st.fragment(controlled_chart)() if variant == "fragment" else controlled_chart()
if variant not in ("one", "live"):
    rest_of_page(phase if variant == "changing" else 0.0)
