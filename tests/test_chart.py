"""ui/chart.py: charts that keep their identity across reruns (so the browser updates them in place), plotly.js
served from the installed plotly, and st.plotly_chart where that cannot be arranged."""
import json

import numpy as np
import plotly
import pytest

from rnnviz.figures import scalar
from tests.conftest import charts
from ui import chart


def test_the_payload_is_the_figure_as_sent_with_its_config_and_alt():
    fig = scalar.states_over_time(np.array([0.1, 0.2]), np.array([1, 0]), 1)
    sent = json.loads(chart.payload(fig, {"displaylogo": False}, 'h "over" time'))
    assert sent["alt"] == 'h "over" time' and sent["config"] == {"displaylogo": False}
    assert sent["src"] == f"app/static/plotly-{plotly.__version__}.min.js"
    assert sent["figure"]["layout"]["height"] == 330 and len(sent["figure"]["data"]) == 3
    assert sent["figure"]["data"][1]["name"] == "state h<sub>t</sub>"


def test_plotly_js_is_copied_once_from_the_installed_package(tmp_path):
    assert chart.provide_plotly_js(tmp_path)
    copied = tmp_path / chart.PLOTLY_JS
    assert copied.read_bytes()[:300] == chart.SOURCE.read_bytes()[:300] and copied.stat().st_size > 1_000_000
    copied.write_bytes(b"kept")  # already there: not copied again
    assert chart.provide_plotly_js(tmp_path) and copied.read_bytes() == b"kept"
    assert [p.name for p in tmp_path.iterdir()] == [chart.PLOTLY_JS]  # no temporary file left behind
    assert not chart.provide_plotly_js(tmp_path / "missing")  # nowhere to put it: the pages fall back


def test_a_moved_slider_sends_new_figures_under_the_same_chart_identities(open_page):
    at = open_page("scalar")
    before = {c.key: c for c in charts(at)}
    ids = {el.proto.id for el in at.get("bidi_component")}
    at.slider(key="scalar.w_h").set_value(1.5).run()
    after = {c.key: c for c in charts(at)}
    assert set(after) == set(before) == {"scalar.tanh", "scalar.states", "scalar.cobweb"}
    assert all(after[k].spec != before[k].spec for k in after)  # every chart changed ...
    assert {el.proto.id for el in at.get("bidi_component")} == ids  # ... and kept its identity: updated in place


@pytest.mark.parametrize("why", ["no plotly.js in static/", "static serving off"])
def test_without_plotly_js_served_the_pages_use_st_plotly_chart(open_page, monkeypatch, why):
    if why == "static serving off":
        get = chart.st.get_option
        monkeypatch.setattr(chart.st, "get_option", lambda k: False if k == "server.enableStaticServing" else get(k))
    else:
        monkeypatch.setattr(chart, "_AVAILABLE", False)
    at = open_page("scalar")
    assert not at.exception and [e.key for e in at.get("bidi_component")] == ["app.step_keys"]  # no chart in one
    assert [c.key for c in charts(at)] == ["scalar.tanh", "scalar.states", "scalar.cobweb"]
    assert all(len(c.alt) >= 10 for c in charts(at))
