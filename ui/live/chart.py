"""Plotly charts that are updated in place when a control moves, instead of being rebuilt.

st.plotly_chart gives a chart a new identity whenever its figure changes, so the browser throws the chart away
and builds it again on every slider notch (35-70 ms of main thread per chart). `live_chart` is a Streamlit
component (st.components.v2, no iframe) whose identity is its key: a new figure for the same key reaches the same
element, and chart.js draws it with Plotly.react. Where plotly.js and the scripts cannot be served (static serving
off, a read-only tree without them: ui/live/assets.py), `live()` is False and the pages use st.plotly_chart: the same
charts, redrawn the slower way.
"""
from __future__ import annotations

import json
import time

import plotly.io as pio
import streamlit as st

from rnnviz.live.frames import figure_digest
from ui.live.assets import component_js, provide, src

_AVAILABLE = provide()
_live = st.components.v2.component("rnnviz_chart", js=component_js("chart.js"),
                                   isolate_styles=False)  # plotly.js styles its modebar from document.head
# The step of a stepper (ui.widgets.step_controls) as the page's last run drew it, for the stepped charts (stepped.js
# `mark`): a hidden element beside the stepper, rerun with it. Its time slider alone can run ahead of the page.
_step = st.components.v2.component("rnnviz_step", js=component_js("stepped.js", "mark"),
                                   css="[class*='st-key-stepmark-'] {\n  display: none !important;\n}",
                                   isolate_styles=False)


def step_mark(stepper: str, t: int) -> None:
    """Tell the page's stepped charts the step this run draws, with a mark `n` new each run (a press is answered by
    a run after it), drawing nothing."""
    _step(key=f"stepmark-{stepper}", data=json.dumps({"stepper": stepper, "t": t, "n": time.monotonic_ns()}),
          height=0)


def live() -> bool:
    """Whether charts are drawn by live_chart (plotly.js and the scripts are served), or by st.plotly_chart."""
    return _AVAILABLE and bool(st.get_option("server.enableStaticServing"))


def payload(fig, config: dict, alt: str) -> bytes:
    """What chart.js receives: the figure as st.plotly_chart would send it, its config and text alternative, and its
    digest (rnnviz.live.frames.figure_digest: a frame drawn ahead of the rerun for the same figure stays)."""
    figure = pio.to_json(fig, validate=False)
    head = json.dumps({"config": config, "alt": alt, "src": src(), "digest": figure_digest(figure)})
    return (head[:-1] + ', "figure": ' + figure + "}").encode()


def live_chart(fig, key: str, alt: str, config: dict) -> None:
    """Draw `fig` under `key`; the next run's figure for the same key updates this chart in place."""
    live_payload(payload(fig, config, alt), key)


def live_payload(data: bytes, key: str) -> None:
    """Draw a payload chart.js reads (`payload`'s, or ui.live.steps' with every step of a chart) under `key`."""
    _live(key=key, data=data, height="content")
