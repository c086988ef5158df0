import copy
import json
import os
import re
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parents[1]


LONG = os.environ.get("RNNVIZ_LONG") == "1"  # the checks run before a release


def long_only(why: str):
    """A test run before a release (RNNVIZ_LONG=1), not in every run: the default run stays under CI's ten minutes.
    `why`: what it costs, and where the default run checks the same thing, if it does."""
    return pytest.mark.skipif(not LONG, reason=f"{why}: set RNNVIZ_LONG=1")
sys.path.insert(0, str(ROOT))
# Keep compiled files between runs even where PYTHONDONTWRITEBYTECODE is set (some machines set it for every
# process): pytest rewrites the asserts of each test module it imports, and without its cached result each worker
# spends about 6 s of CPU on that alone, every run. __pycache__/ is ignored by git and left out of the wheel.
sys.dont_write_bytecode = False
# One BLAS / torch thread per test worker (set before either is imported): the workers already use every core
# (pytest.ini: -n 2), and each worker's own threads fighting the other worker's for them made the torch
# reference checks several times slower. A variable set by the caller is kept.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
# A server computes the frames of every page's sliders as it opens, once, in the background (ui/live/scrub.py warm:
# about 5 s of CPU): each AppTest process and each server a test starts would spend it, and few tests drag a slider
# at the defaults. tests/test_scrub_warm.py tests it; the browser's sweep rows (benchmarks/browser.py) run with it.
os.environ.setdefault("RNNVIZ_WARM_FRAMES", "0")


def figure_shape(value):
    """What Plotly's validation of a figure spec depends on, with the numbers inside arrays left out: a figure of
    the same shape as one already validated (the same properties and scalar values, the same kinds of arrays)
    passes or fails the same way, whatever its data. Strings are kept (colours, modes and texts are checked);
    an array of many distinct strings (hover texts) counts as one kind."""
    if isinstance(value, dict):
        return tuple((k, figure_shape(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(v, (int, float)) or v is None for v in value):
            return ("numbers",)
        if value and all(isinstance(v, str) for v in value) and len(set(value)) > 8:
            return ("strings",)
        return tuple(figure_shape(v) for v in value)
    if hasattr(value, "dtype") and hasattr(value, "ndim"):  # a NumPy array
        return ("array", value.dtype.kind, value.ndim)
    return value


@pytest.fixture(scope="session", autouse=True)
def validated_figures():
    """Figures skip Plotly's validation when the app draws them (it costs most of a rerun); in the tests every
    figure built (by a page or a test) is also validated as a go.Figure, so a malformed one fails here, not in a
    browser: each shape once (figure_shape; validating every figure was a fifth of the fast tier's time). A server
    the tests start (tests/browser.py) runs as visitors get it."""
    from rnnviz.figures import base

    plain, seen = base.SpecFigure, set()

    class Validated(plain):
        def __init__(self, spec: dict):
            import plotly.graph_objects as go

            try:
                shape = hash(figure_shape(spec))
            except TypeError:  # something unhashable inside: validate it every time
                shape = None
            if shape is None or shape not in seen:
                go.Figure(copy.deepcopy(spec))  # a copy: go.Figure reorders the keys of what it is given
                seen.add(shape)
            super().__init__(spec)

    base.SpecFigure = Validated
    yield plain
    base.SpecFigure = plain


@pytest.fixture
def unvalidated_figures(validated_figures):
    """Figures as the app builds them, unvalidated, for one test (where validating them is most of its time)."""
    from rnnviz.figures import base

    checked, base.SpecFigure = base.SpecFigure, validated_figures
    yield
    base.SpecFigure = checked


@pytest.fixture(scope="session")
def shared_server_work():
    """Give every AppTest what one Streamlit server computes once for all its sessions, instead of redoing it
    for each test: the scan of installed packages for component manifests (about 0.12 s of CPU per new AppTest,
    more than most pages' first run) and the compiled page scripts (about 10 ms per run). These are Streamlit's
    internals as of 1.67 (where they differ, the tests only take longer): patched only for the tests that open a
    page, and put back when the session ends."""
    try:
        from streamlit.components.v2 import manifest_scanner
        from streamlit.runtime.scriptrunner.script_cache import ScriptCache
        from streamlit.testing.v1 import app_test, local_script_runner

        scan = manifest_scanner.scan_component_manifests
        originals = (scan, app_test.ScriptCache, local_script_runner.ScriptCache)
    except (ImportError, AttributeError):
        yield
        return
    manifests, scripts = [], ScriptCache()

    def scan_once(*args, **kwargs):
        if not manifests:
            manifests.append(scan(*args, **kwargs))
        return list(manifests[0])

    manifest_scanner.scan_component_manifests = scan_once
    app_test.ScriptCache = local_script_runner.ScriptCache = lambda: scripts
    yield
    manifest_scanner.scan_component_manifests, app_test.ScriptCache, local_script_runner.ScriptCache = originals


@pytest.fixture
def open_page(shared_server_work):
    """Run app.py on one page, with optional URL query parameters, as AppTest sees it."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    def _open(page: str, timeout: float = 60, **query):
        st.cache_data.clear()
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
        for k, v in query.items():
            at.query_params[k] = v
        at.switch_page(f"app_pages/{page}.py")
        at.run()
        return at

    return _open


def tables(at) -> list:
    """The page's tables (markdown tables: ui.widgets.table) as a visitor reads them: a DataFrame of the cells' text
    per table (markdown escapes undone), a first column without a header as its index."""
    import pandas as pd

    from ui.widgets import WORD_JOINER  # what md() puts into an address

    found = []
    for m in at.markdown:
        lines = [ln.strip() for ln in m.value.splitlines()]
        if len(lines) < 2 or not lines[0].startswith("|") or not re.fullmatch(r"\|( ?-{3}:? ?\|)+", lines[1]):
            continue
        cells = [[c.strip() for c in re.split(r"(?<!\\)\|", ln[1:-1])] for ln in lines]
        head = [c.replace("\\|", "|") for c in cells[0]]  # headers are markdown of our own: LaTeX kept
        rows = [[re.sub(r"\\(.)", r"\1", c).replace(WORD_JOINER, "") for c in row] for row in cells[2:]]
        df = pd.DataFrame(rows, columns=head)
        found.append(df.set_index(df.columns[0]).rename_axis(None) if head[0] == "" else df)
    return found


def all_text(at) -> str:
    """Everything a visitor reads on the page: markdown, captions, metrics, tables, alerts."""
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [e.value for e in at.error]
    parts += [w.value for w in at.warning] + [i.value for i in at.info] + [s.value for s in at.success]
    parts += [f"{m.label} {m.value}" for m in at.metric]
    parts += [t.to_string() for t in tables(at)] + [d.value.to_string() for d in at.dataframe]
    parts += [c.value for c in at.code] + [l.value for l in at.latex]
    return "\n".join(str(p) for p in parts)


def page_codes(at) -> list[str]:
    """The code blocks a page shows, less the header's "Link to this setup" (an address with its query)."""
    return [c.value for c in at.code if not re.fullmatch(r"(https?://[^\s?]*)?(\?\S*)?", c.value)]


class Chart(NamedTuple):
    """A Plotly chart as the browser receives it."""
    key: str
    alt: str
    spec: str  # the figure's JSON
    figure: dict


def _as_list(v):
    """plotly.js's typed-array form of a 1-D float array ({"dtype": "f8", "bdata"}) as the list it stands for."""
    if isinstance(v, dict) and v.get("dtype") == "f8" and isinstance(v.get("bdata"), str) and "shape" not in v:
        import base64

        import numpy as np

        return [None if x != x else x for x in np.frombuffer(base64.b64decode(v["bdata"]), "<f8").tolist()]
    if isinstance(v, dict):
        return {k: _as_list(u) for k, u in v.items()}
    if isinstance(v, list):
        return [_as_list(u) for u in v]
    return v


def at_step(sent: dict, at) -> tuple[dict, str]:
    """A stepped chart's figure and text at its stepper's step (ui/steps.py), as the browser draws it."""
    sliders = [s for s in at.get("slider") if s.key == sent["steps"]["stepper"] + ".t"]
    return lay_out(sent, sliders[0].value if sliders else sent["steps"]["values"][0])


def lay_out(sent: dict, t: int) -> tuple[dict, str]:
    """Step t of a stepped chart as ui/chart.js lays it out: the payload's figure with frame k's attributes; and its
    text."""
    steps, figure = sent["steps"], sent["figure"]
    k = steps["values"].index(t)
    data = [dict(trace) for trace in figure["data"]]
    for d in steps["data"]:
        data[d["trace"]][d["attr"]] = d["frames"][k]
    layout = dict(figure["layout"])
    for item in steps["layout"]:
        layout[item["attr"]] = item["frames"][k]
    plays = {"frames": steps["plays"][k]} if "plays" in steps else {}  # what a Play button plays at that step
    return _as_list({"data": data, "layout": layout, **plays}), steps["alts"][k]


def charts(at) -> list[Chart]:
    """The page's Plotly charts, in page order: ui/chart.py's live charts (or st.plotly_chart's, its fallback); a
    stepped chart (ui/steps.py) as the browser draws it at the stepper's step."""
    found = []
    for el in at.get("bidi_component"):
        if el.proto.component_name == "rnnviz_chart":
            sent = json.loads(el.proto.bytes)
            figure, alt = at_step(sent, at) if "steps" in sent else (sent["figure"], sent["alt"])
            found.append(Chart(el.proto.id.rsplit("-", 1)[-1], alt, json.dumps(figure), figure))
    for el in at.get("plotly_chart"):
        found.append(Chart(el.proto.id.rsplit("-", 1)[-1], el.proto.alt, el.proto.spec, json.loads(el.proto.spec)))
    return found


def shown_number(shown: str) -> float:
    """A number as rnnviz.text.fmt writes it ('0.0377', '9.65 × 10⁻⁴', with plain or no-break spaces) as a float."""
    mantissa, _, power = shown.replace("\u00a0", " ").partition(" × 10")
    return float(mantissa) * 10.0 ** int(power.translate(str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")) or 0)
