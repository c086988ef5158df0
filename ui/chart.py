"""Plotly charts that are updated in place when a control moves, instead of being rebuilt.

st.plotly_chart gives a chart a new identity whenever its figure changes, so the browser throws the chart away
and builds it again on every slider notch (35-70 ms of main thread per chart). `live_chart` is a Streamlit
component (st.components.v2, no iframe) whose identity is its key: a new figure for the same key reaches the same
element, and chart.js draws it with Plotly.react. plotly.js itself comes from the plotly package installed here,
served from the app's static folder (server.enableStaticServing) under a name that carries its version.

Where that cannot be arranged (static serving off, a read-only tree without the file), `plot` falls back to
st.plotly_chart: the same charts, redrawn the slower way.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import plotly
import plotly.io as pio
import streamlit as st

from rnnviz.lessons.scrub import figure_digest

STATIC = Path(__file__).resolve().parents[1] / "static"  # streamlit serves <app dir>/static/ at app/static/
PLOTLY_JS = f"plotly-{plotly.__version__}.min.js"
SOURCE = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"


def provide_plotly_js(static: Path = STATIC) -> bool:
    """Put the installed plotly's plotly.min.js in the static folder (once; atomically, as replicas may race);
    whether it is there."""
    target = static / PLOTLY_JS
    if target.is_file():
        return True
    try:
        fd, tmp = tempfile.mkstemp(dir=static, suffix=".part")
    except OSError:
        return False
    try:
        with os.fdopen(fd, "wb") as out, SOURCE.open("rb") as src:
            shutil.copyfileobj(src, out)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
        return True
    except OSError:
        Path(tmp).unlink(missing_ok=True)  # the static folder is served: leave nothing half-written there
        return False


_AVAILABLE = provide_plotly_js()
_live = st.components.v2.component("rnnviz_chart", js=(Path(__file__).with_name("chart.js")).read_text(),
                                   isolate_styles=False)  # plotly.js styles its modebar from document.head


# The step of a stepper (ui.widgets.step_controls) as the page's last run drew it, for ui/chart.js's stepped charts
# (ui/steps.py): a hidden element beside the stepper, rerun with it. Its time slider alone can run ahead of the page.
_STEP_JS = """export default function ({ data }) {
  const { stepper, t, n } = JSON.parse(typeof data === "string" ? data : new TextDecoder().decode(data));
  (window.__rnnvizStepNow ??= {})[stepper] = { t, n, at: performance.now() };
  if (window.__rnnvizSettle) {
    window.__rnnvizSettle();
    setTimeout(window.__rnnvizSettle, 300);
  }
}"""
_step = st.components.v2.component("rnnviz_step", js=_STEP_JS, css="[class*='st-key-stepmark-'] {\n  display: none "
                                   "!important;\n}", isolate_styles=False)


def step_mark(stepper: str, t: int) -> None:
    """Tell the page's stepped charts the step this run draws, with a mark `n` new each run (a press is answered by
    a run after it), drawing nothing."""
    _step(key=f"stepmark-{stepper}", data=json.dumps({"stepper": stepper, "t": t, "n": time.monotonic_ns()}),
          height=0)


def live() -> bool:
    """Whether charts are drawn by live_chart (plotly.js is served), or by st.plotly_chart."""
    return _AVAILABLE and bool(st.get_option("server.enableStaticServing"))


def src() -> str:
    """Where the browser finds plotly.js (relative to the page)."""
    return "app/static/" + PLOTLY_JS


def payload(fig, config: dict, alt: str) -> bytes:
    """What chart.js receives: the figure as st.plotly_chart would send it, its config and text alternative, and its
    digest (rnnviz.lessons.scrub.figure_digest: a frame drawn ahead of the rerun for the same figure stays)."""
    figure = pio.to_json(fig, validate=False)
    head = json.dumps({"config": config, "alt": alt, "src": src(), "digest": figure_digest(figure)})
    return (head[:-1] + ', "figure": ' + figure + "}").encode()


def live_chart(fig, key: str, alt: str, config: dict) -> None:
    """Draw `fig` under `key`; the next run's figure for the same key updates this chart in place."""
    live_payload(payload(fig, config, alt), key)


def live_payload(data: bytes, key: str) -> None:
    """Draw a payload chart.js reads (`payload`'s, or ui.steps' with every step of a chart) under `key`."""
    _live(key=key, data=data, height="content")
