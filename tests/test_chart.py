"""ui/live/chart.py: charts that keep their identity across reruns (so the browser updates them in place), plotly.js
and the charts' scripts served from the static folder (ui/live/assets.py), and st.plotly_chart where that cannot be
arranged."""
import json
import re

import numpy as np
import plotly
import pytest

from rnnviz.figures import scalar
from tests.conftest import charts
from ui.live import assets, chart


def test_the_payload_is_the_figure_as_sent_with_its_config_and_alt():
    fig = scalar.states_over_time(np.array([0.1, 0.2]), np.array([1, 0]), 1)
    sent = json.loads(chart.payload(fig, {"displaylogo": False}, 'h "over" time'))
    assert sent["alt"] == 'h "over" time' and sent["config"] == {"displaylogo": False}
    assert sent["src"] == f"app/static/plotly-{plotly.__version__}.min.js"
    assert sent["figure"]["layout"]["height"] == 330 and len(sent["figure"]["data"]) == 3
    assert sent["figure"]["data"][1]["name"] == "state h<sub>t</sub>"


def test_plotly_js_is_copied_once_from_the_installed_package(tmp_path):
    assert assets.provide_plotly_js(tmp_path)
    copied = tmp_path / assets.PLOTLY_JS
    assert copied.read_bytes()[:300] == assets.SOURCE.read_bytes()[:300] and copied.stat().st_size > 1_000_000
    copied.write_bytes(b"kept")  # already there: not copied again
    assert assets.provide_plotly_js(tmp_path) and copied.read_bytes() == b"kept"
    assert [p.name for p in tmp_path.iterdir()] == [assets.PLOTLY_JS]  # no temporary file left behind
    assert not assets.provide_plotly_js(tmp_path / "missing")  # nowhere to put it: the pages fall back


def test_the_scripts_are_copied_into_a_folder_named_by_their_text(tmp_path):
    (tmp_path / "live-0123456789ab").mkdir()  # an earlier version's: taken away
    assert assets.provide_modules(tmp_path)
    folder = tmp_path / assets.MODULES
    assert [p.name for p in tmp_path.iterdir()] == [assets.MODULES]  # nothing half-made left behind either
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == {p.name: p.read_bytes() for p in assets.SCRIPTS}
    (folder / "chart.js").write_bytes(b"kept")  # already there: not copied again
    assert assets.provide_modules(tmp_path) and (folder / "chart.js").read_bytes() == b"kept"
    assert not assets.provide_modules(tmp_path / "missing")  # nowhere to put them: the pages fall back


def test_every_import_between_the_scripts_names_a_script_and_what_it_exports():
    scripts = {p.name: p.read_text() for p in assets.SCRIPTS}
    exported = {name: set(re.findall(r"^export (?:const|let|function|async function) (\w+)", text, re.M))
                for name, text in scripts.items()}
    imports = [(name, what, where) for name, text in scripts.items()
               for what, where in re.findall(r'^import \{([^}]*)\} from "\./([\w.]+)";', text, re.M)]
    assert len(imports) >= 6  # chart.js, stepped.js and scrub.js import draw.js and send.js
    for name, what, where in imports:
        assert where in scripts and {w.strip() for w in what.split(",")} <= exported[where], (name, where)
    assert "window.__rnnviz" not in "".join(scripts.values())  # they share state by importing it
    for script, export in [("chart.js", "default"), ("stepped.js", "mark"), ("scrub.js", "default")]:  # the components
        assert "export default function" in scripts[script] if export == "default" else export in exported[script]
        assert f"/{assets.MODULES}/{script}'" in assets.component_js(script, export)


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
    # no chart in one: the foot's history rule and keys alone
    assert not at.exception and [e.key for e in at.get("bidi_component")] == ["app.history", "app.step_keys"]
    assert [c.key for c in charts(at)] == ["scalar.tanh", "scalar.states", "scalar.cobweb"]
    assert all(len(c.alt) >= 10 for c in charts(at))
