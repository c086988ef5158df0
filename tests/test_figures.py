"""Figure builders: what a viewer would see in the returned figures."""
import numpy as np
import pytest

from rnnviz.figures import base, gates, gradients, hello, sample, scalar, vector
from rnnviz.lessons.gradients import reference_curves


def test_gradient_plot_keeps_values_beyond_float_range_at_the_edges():
    logv = np.array([0.0, -2.0, -400.0, -np.inf, 350.0])
    fig = gradients.gradient_decay({"rnn": logv})
    drawn = [tr for tr in fig.data if tr.mode == "markers"]
    ks = sorted(int(k) for tr in drawn for k in tr.x)
    assert ks == [2, 3, 4]  # nothing dropped: vanished and exploded points are drawn
    labels = [c for tr in drawn for c in tr.customdata]
    assert "exactly 0" in labels and "10^-400" in labels and "10^350" in labels
    lo, hi = fig.layout.yaxis.range
    under = next(tr for tr in drawn if 2 in list(tr.x))
    assert np.log10(under.y[0]) == lo
    texts = " ".join(a.text for a in fig.layout.annotations)
    assert "below 1e-300" in texts and "above 1e300" in texts


def test_gradient_plot_names_both_lstm_cell_curves_with_real_subscripts():
    fig = gradients.gradient_decay({k: np.zeros(5) for k in ("rnn", "lstm", "lstm_f", "lstm_c", "gru")})
    names = [tr.name for tr in fig.data]
    assert any("forget-gate path" in n for n in names) and any("all paths ‖∂c<sub>T</sub>/∂c<sub>t</sub>‖" in n
                                                                for n in names)
    assert "_" not in fig.layout.xaxis.title.text + "".join(names)
    long = gradients.gradient_decay({"rnn": np.zeros(201)})
    assert long.data[0].marker.maxdisplayed == gradients.MARKERS  # 201 markers are a blur: a few tell the shape


def test_clip_figure_draws_before_and_after_on_one_scale():
    """The issue: after Explode the before/after bars had separate scales and looked the same."""
    d = np.array([0.6, -0.8])
    fig = gradients.clip_figure({"direction": d, "log10_before": 8.5, "log10_after": 0.0, "before": "3.16 × 10⁸",
                                 "after": "1.00"})
    before, after = fig.data
    np.testing.assert_allclose(np.array(before.y) / np.array(after.y), 10 ** 8.5)  # the true ratio of lengths
    np.testing.assert_allclose(before.y, d * 10 ** 0.5)  # in units of 10^8
    assert "10<sup>8</sup>" in fig.layout.yaxis.title.text
    assert fig.layout.yaxis2.title.text == fig.layout.yaxis.title.text
    assert fig.layout.yaxis2.matches == "y" and "3.16 × 10⁸" in fig.layout.annotations[0].text
    small = gradients.clip_figure({"direction": d, "log10_before": -15, "log10_after": -15, "before": "1.00 × 10⁻¹⁵",
                                   "after": "1.00 × 10⁻¹⁵"})
    np.testing.assert_allclose(small.data[0].y, d) and np.testing.assert_allclose(small.data[1].y, d)
    # a newcomer's walk: after Explode the clipped panel looked empty (its bars 10^34 times shorter, under a pixel);
    # where they are under a hundredth of the other's it says so, with the computed ratio
    shorter = [a.text for a in fig.layout.annotations if "shorter" in a.text]
    assert shorter == ["3.16 × 10⁸ times shorter:<br>too short to see on this scale,<br>in the same direction"]
    assert not [a for a in small.layout.annotations if "shorter" in a.text]
    near = gradients.clip_figure({"direction": d, "log10_before": 1.9, "log10_after": 0.0, "before": "79.4",
                                  "after": "1.00"})
    assert not [a for a in near.layout.annotations if "shorter" in a.text]  # 79 times: still a visible bar


def test_reference_curves_are_the_notes_formulas():
    refs = reference_curves(np.arange(41))
    v = list(refs.values())
    assert f"{v[0][20]:.1e}" == "1.2e-07" and f"{v[1][40]:.3f}" == "0.015" and v[2][40] == 1


def test_tanh_curve_animates_each_step_in_the_browser():
    pre, h = np.array([1.0, 0.381, 0.182]), np.tanh([1.0, 0.381, 0.182])
    fig = scalar.tanh_curve(pre, h, current=2)
    assert len(fig.frames) == 3
    assert fig.layout.updatemenus[0].buttons[0].label.endswith("Play steps")
    one = scalar.tanh_curve(pre[:1], h[:1], current=0)  # the issue: 'Play steps' did nothing at t = 1
    assert not one.layout.updatemenus


@pytest.mark.parametrize("fs,b", [(1.0, 0.0), (1.45, 0.0), (1.45, 0.2)])
def test_each_frame_of_the_tanh_chart_names_its_step_with_the_tables_numbers(fs, b):
    """The issue: 'the text does not follow the animation'. Each frame's title is the sentence of the step it shows,
    its numbers those of the worked table's row, so the words on the chart follow the Play button."""
    from rnnviz.lessons.scalar import run_scalar
    from rnnviz.text import sub
    from ui.lessons.scalar import chart_steps, worked_rows

    tr = run_scalar([1] + [0] * 10, 1.0, 0.5, b)  # the Silence preset (with and without a bias)
    spec = scalar.tanh_curve(tr.pre[:, 0], tr.h[:, 0], 4, fs, chart_steps(tr, b, 11)).to_dict()
    titles = [f["layout"]["title"]["text"] for f in spec["frames"]]
    for k, (title, row) in enumerate(zip(titles, worked_rows(tr, b))):
        assert title.replace("<br>", " ") == f"Step {k + 1}: z = {row['pre']}, h{sub(k + 1)} = tanh(z) = {row['h_t']}"
    assert spec["layout"]["title"]["text"] == titles[4]  # drawn at the slider's step until played
    assert "×" in titles[-1] or b  # Silence's last memory as a power of ten (0.000 + 0.001 = 0.001 would not read true)
    lines = max(t.count("<br>") + 1 for t in titles)
    assert spec["layout"]["margin"]["t"] >= lines * 1.25 * spec["layout"]["title"]["font"]["size"]  # room for them


def test_series_wear_their_role_colours():
    """Inputs are drawn green and states blue, as the legend says."""
    fig = scalar.states_over_time(np.array([0.1, 0.2]), np.array([1.0, 0.0]), 1)
    by_name = {tr.name: tr for tr in fig.data}
    assert by_name["state h<sub>t</sub>"].line.color == base.COLORS["state"] == "#0072B2"
    assert by_name["input x<sub>t</sub>"].marker.color == base.COLORS["input"] == "#009E73"


def test_spec_figures_validate_when_read_and_plot_as_given(unvalidated_figures):
    import plotly.graph_objects as go

    fig = scalar.states_over_time(np.array([0.1, 0.2]), np.array([1, 0]), 1)
    assert isinstance(fig, base.SpecFigure) and isinstance(fig, go.Figure)
    spec = fig.to_dict()
    assert spec["layout"]["height"] == 330 and len(spec["data"]) == 3  # handed to st.plotly_chart as built
    assert fig.data[1].name == "state h<sub>t</sub>"  # reading it builds and validates the full figure
    bad = base._fig([dict(type="scatter", x=[1], bogus=1)], {})
    try:
        bad.data
    except ValueError as e:
        assert "bogus" in str(e)
    else:
        raise AssertionError("an invalid figure passed validation")


def test_in_the_tests_every_figure_is_validated_when_built_and_sent_as_the_app_sends_it():
    try:  # conftest's validated_figures, for every test
        base._fig([dict(type="scatter", x=[1], bogus=1)], {})
    except ValueError as e:
        assert "bogus" in str(e)
    else:
        raise AssertionError("an invalid figure was built without a complaint")
    base._fig([dict(type="scatter", x=[1, 2], y=[2, 3], opacity=0.5)], {})  # each shape is validated once, but
    try:  # a scalar is part of the shape: another value is validated again
        base._fig([dict(type="scatter", x=[5, 6], y=[7, 8], opacity=5)], {})
    except ValueError as e:
        assert "opacity" in str(e)
    else:
        raise AssertionError("an invalid value passed for a shape seen before")
    spec = dict(data=[dict(type="scatter", x=[1], y=[2])], layout=dict(height=300))
    fig = base._fig(spec["data"], spec["layout"])
    assert isinstance(fig, base.SpecFigure) and fig.to_dict() == dict(spec, frames=[])  # what st.plotly_chart gets


def _walk(obj, path=""):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield path + "/" + k, k, v
            yield from _walk(v, path + "/" + k)
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            yield from _walk(v, f"{path}[{i}]")


def test_specs_sent_to_the_browser_are_plain_plotly_js(unvalidated_figures):
    """Unvalidated specs reach plotly.js as they are: no Python-only shorthands (marker_color), no string titles."""
    from rnnviz.lessons.gates import generate as ggen, lockstep, run, valve_experiment
    from rnnviz.lessons.gradients import compare
    from rnnviz.lessons.vector import VectorSetup, encode_word, generate, moves, run as vrun

    x = encode_word("hello", list("helo"))
    w = generate(4, 3, 4, 0, 0.9)
    setup = VectorSetup(x, w["W_x"], w["W_h"], w["b"], w["W_y"], w["b_y"], np.zeros(3), list("hello"))
    tr = vrun(setup)
    lw = ggen("lstm", 4, 3, 0, 0.9, 1.0)
    ltr = run("lstm", x, lw)
    ls = lockstep(x, 3)
    from rnnviz.lessons.gradients import factor_inputs as lesson_inputs

    cmp = compare(4, 10, 0.9, 1.0, 0.5, 0)
    R = cmp.reports
    figs = [scalar.tanh_curve(np.array([1.0, 0.3]), np.tanh([1.0, 0.3]), 1),
            scalar.states_over_time(tr.h[:, 0], x[:, 0], 1),
            scalar.cobweb(2.0, 0.0, np.array([0.7, 0.6]), [(0.0, False)]),
            vector.six_moves(moves(setup, tr, 2), list("helo")), vector.state_heatmap(tr.h, list("hello"), current=1),
            vector.matrix_heatmap(w["W_h"], "W_h"), vector.singular_value_bars(np.array([1.2, 0.5]), 0.9),
            gates.lockstep_heatmaps(ls.traces, ls.sizes, ls.params, list("hello"), 1),
            gates.gate_heatmaps(ltr, ["f", "i"], list("hello"), 1), gates.valve_figure(valve_experiment(20)),
            gradients.gradient_decay({"rnn": R["rnn"].log10_spectral}, reference_curves(np.arange(11))),
            gradients.factor_figure(**lesson_inputs(cmp)),
            gradients.clip_figure({"direction": np.ones(4) / 2, "log10_before": 8.5, "log10_after": 0.0,
                                   "before": "3.16 × 10⁸", "after": "1.00"}), hello.loss_curve([1.0, 0.5]),
            gradients.training_figure({"unclipped": {"loss": np.array([4.0, 9.0]), "log10_norm": np.array([1.0, 3.0])},
                                       "clipped": {"loss": np.array([4.0, 3.0]), "log10_norm": np.array([1.0, 0.9])}},
                                      2.0),
            gradients.lag_figure({"lags": [1, 2], "task": {"symbols": 8}, "cells": {
                c: {"hidden_size": 3, "params": 99, "accuracy": [[1.0, 0.5], [0.9, 0.4]]}
                for c in ("rnn", "lstm", "gru")}}),
            base.prob_bars(["a", "b"], np.array([0.4, 0.6]), np.array([0.5, 0.5]), "t=1"),
            sample.saturation_figure([{"f": (np.array([0.1, 0.2]), np.array([0.5, 0.3]))}]),
            sample.closed_share_figure([{"o": np.linspace(0, 1, 40)}], bins=8),
            sample.state_grid(np.zeros((2, 8)))]
    for fig in figs:
        spec = fig.to_dict()
        for path, key, value in _walk(spec):
            assert "_" not in key, path
            if key == "title":
                assert isinstance(value, dict), path


def test_singular_values_read_with_subscripts_and_their_line_label_clear_of_the_bars():
    from rnnviz.figures import states

    fig = vector.singular_value_bars(np.array([0.979, 0.607, 0.114]), 0.9).to_dict()
    assert list(fig["data"][0]["x"]) == ["σ₁", "σ₂", "σ₃"]
    (label,) = fig["layout"]["annotations"]
    assert label["yref"] == "y domain" and label["y"] == 1 and label["yanchor"] == "top"  # over the bars' tops
    assert fig["layout"]["yaxis"]["range"][1] >= 1.4  # room above the tallest bar (and the line at 1) for the label
    assert fig["layout"]["shapes"][0]["line"]["color"] != base.COLORS["output"]  # a reference line, not an output
    for probs, ticks in ((False, [-1, 0, 1]), (True, [0, 0.5, 1])):  # five labels pile up on a bar three rows tall
        bar = states.state_heatmap(np.zeros((6, 3)), "", probabilities=probs).to_dict()["data"][0]["colorbar"]
        assert list(bar["tickvals"]) == ticks


def test_the_one_unit_page_draws_nothing_in_the_outputs_red():
    """The cell on this page has no output layer: its guide lines, current step and cobweb are near black, so red keeps
    meaning 'outputs' as the legend says."""
    import plotly.io as pio

    figs = [scalar.states_over_time(np.array([0.1, 0.2]), np.array([1.0, 0.0]), 1),
            scalar.cobweb(2.0, 0.0, np.array([0.7, 0.6]), [(0.0, False)]),
            scalar.tanh_curve(np.array([1.0, 0.38]), np.tanh([1.0, 0.38]), 1)]
    assert all(base.COLORS["output"] not in pio.to_json(f.to_dict()) for f in figs)


def test_heatmap_cells_write_negative_numbers_with_the_true_minus_sign():
    """Plotly's '%{z:.2f}' wrote '-0.14' with a hyphen; the cells now carry text written as fmt writes a minus."""
    from rnnviz.figures import states

    v = np.array([[-0.14, 0.4], [0.66, -0.004]])
    figs = [base.state_heatmap(v), states.state_heatmap(v, "h"), vector.matrix_heatmap(v, "W")]
    for fig in figs:
        (trace,) = [t for t in fig.to_dict()["data"] if t["type"] == "heatmap"]
        cells = [c for row in trace["text"] for c in row]
        assert trace["texttemplate"] == "%{text}" and "−0.14" in cells and "0.00" in cells  # never '−0.00'
        assert not any("-" in c for c in cells)


@pytest.mark.parametrize("fs", [1.0, 1.45])
def test_the_six_moves_chart_has_no_empty_band_above_its_panel_titles(fs):
    """A fixed 80 px top margin left ~60 px empty over one- or two-line titles; now the titles' lines and a toolbar's
    row, and the plot keeps its height."""
    from rnnviz.lessons.vector import VectorSetup, encode_word, generate, moves, run as vrun

    w = generate(4, 3, 4, 0, 0.9)
    setup = VectorSetup(encode_word("hello", list("helo")), w["W_x"], w["W_h"], w["b"], w["W_y"], w["b_y"],
                        np.zeros(3), list("hello"))
    lay = vector.six_moves(moves(setup, vrun(setup), 2), list("helo"), fs).to_dict()["layout"]
    lines = max(a["text"].count("<br>") + 1 for a in lay["annotations"])
    assert lay["margin"]["t"] <= 1.3 * 13 * fs * lines + 20
    assert lay["height"] - lay["margin"]["t"] - lay["margin"]["b"] >= 3 * 38 * fs  # a row per unit at reading size


@pytest.mark.parametrize("step", [1, 4])
def test_the_six_moves_panels_have_three_upright_ticks(step):
    """At step 4 of the defaults five ticks (−2 −1 0 1 2) did not fit a fifth of a projector's chart and Plotly
    turned them on their side: panels ①-③ now have three, −k, 0, k, with k a round number inside the range."""
    from rnnviz.lessons.vector import VectorSetup, encode_word, generate, moves, run as vrun

    w = generate(4, 3, 4, 0, 0.9)
    setup = VectorSetup(encode_word("hello", list("helo")), w["W_x"], w["W_h"], w["b"], w["W_y"], w["b_y"],
                        np.zeros(3), list("hello"))
    lay = vector.six_moves(moves(setup, vrun(setup), step), list("helo"), 1.45).to_dict()["layout"]
    for name in ("xaxis", "xaxis2", "xaxis3", "xaxis4", "xaxis5"):
        ax = lay[name]
        assert ax["tickangle"] == 0 and len(ax["tickvals"]) == 3
        assert ax["range"][0] <= min(ax["tickvals"]) and max(ax["tickvals"]) <= ax["range"][1]
    for name in ("xaxis", "xaxis2", "xaxis3"):
        k = lay[name]["tickvals"][2]
        assert lay[name]["tickvals"] == [-k, 0, k] and k / 10 ** np.floor(np.log10(k)) in (1, 2, 5)


def test_the_selective_panels_have_at_most_three_ticks_each():
    """Three panels share 390 px: at projector size Plotly's own ticks ('1 0.5 0 −0.5 −1' in ~60 px) ran together;
    each panel's value axis now has at most three."""
    from rnnviz.figures import recurrences
    from rnnviz.lessons.recurrences import selective_run

    tr = selective_run([1, -1, -1, -1, 0.5, -1, -1, -1], 4.0, 0.0)
    lay = recurrences.selective_steps(tr.x[:, 0], tr.delta[:, 0], tr.a[:, 0], tr.h[:, 0], 1.45).to_dict()["layout"]
    assert all(lay[name].get("nticks", 0) in (2, 3) for name in ("yaxis", "yaxis2", "yaxis3"))


def test_the_six_moves_take_their_titles_from_the_caller():
    """rnnviz draws the titles it is given (the app's words); without any, the moves' numbers only, and the formula
    title of the prediction starts over its bars, clear of ④'s."""
    from rnnviz.lessons.vector import VectorSetup, encode_word, generate, moves, run as vrun

    w = generate(4, 3, 4, 0, 0.9)
    setup = VectorSetup(encode_word("hello", list("helo")), w["W_x"], w["W_h"], w["b"], w["W_y"], w["b_y"],
                        np.zeros(3), list("hello"))
    m = moves(setup, vrun(setup), 2)
    lay = vector.six_moves(m, list("helo")).to_dict()["layout"]
    assert [a["text"] for a in lay["annotations"]] == list(vector.MOVE_NUMBERS)
    given = [f"move {k}<br>formula {k}" for k in range(1, 6)]
    lay = vector.six_moves(m, list("helo"), titles=given).to_dict()["layout"]
    assert [a["text"] for a in lay["annotations"]] == given
    assert lay["annotations"][-1]["xanchor"] == "left" and lay["annotations"][-1]["x"] == lay["xaxis5"]["domain"][0]


def test_the_steps_not_reached_are_blank_in_the_gates_and_the_cells_heatmaps():
    """One helper (base.not_reached) blanks the steps after the current one, in the gates page's stacks and the state
    heatmap the cell page draws; without a current step every step is drawn."""
    v = np.arange(12.0).reshape(4, 3)  # (T, H)
    z = np.array(vector.states_heatmap(v, None, current=1).to_dict()["data"][0]["z"], dtype=float)  # (H, T)
    np.testing.assert_array_equal(z[:, :2], v[:2].T)
    assert np.isnan(z[:, 2:]).all()
    assert np.isfinite(np.array(vector.states_heatmap(v, None).to_dict()["data"][0]["z"], dtype=float)).all()
    assert np.isnan(base.not_reached(v.T, 0)[:, 1:]).all() and not np.isnan(v).any()  # a copy


@pytest.mark.parametrize("fs", [1.0, 1.45])
def test_the_three_cells_write_numbers_only_where_a_column_holds_them(fs):
    """Five steps (the page's word): the current step's numbers are written in its column. After 'One, then zeros'
    (65 steps) a column is about 4 px wide and its numbers were cut off at the panel's edge: none are written then
    (the colours and the hover still give them)."""
    from rnnviz.lessons.gates import lockstep

    rng = np.random.default_rng(0)
    for T, written in ((5, True), (65, False)):
        ls = lockstep(rng.standard_normal((T, 4)), 3)
        fig = gates.lockstep_heatmaps(ls.traces, ls.sizes, ls.params, None, T - 1, fs).to_dict()
        for trace in fig["data"]:
            cells = [c for row in trace.get("text", []) for c in row if c]
            assert (trace.get("texttemplate") == "%{text}" and len(cells) > 0) == written, (T, fs)


@pytest.mark.parametrize("split", [False, True])
def test_the_gates_heatmaps_cover_the_steps_not_reached(split):
    """The steps after the current one are covered, in every panel (the lockstep view's too), by a white rectangle
    drawn under the current step's outline, while the cells keep every step's value: a step changes the layout alone
    (plotly.js then redraws without recomputing the heatmaps: 6-13 ms against 75-120 for the trained cells)."""
    from rnnviz.lessons.gates import lockstep

    T = 6
    ls = lockstep(np.random.default_rng(1).standard_normal((T, 3)), 2)
    figs = {cur: (gates.gate_heatmaps(ls.traces["lstm"], ["i", "f", "o", "c", "h"], current=cur, split=split),
                  gates.lockstep_heatmaps(ls.traces, ls.sizes, ls.params, None, cur)) for cur in (2, 4, T - 1)}
    for cur, pair in figs.items():
        for fig, panels in zip(pair, (2 if split else 1, 3)):
            d = fig.to_dict()
            covers = [s for s in d["layout"]["shapes"] if s.get("name") == "not reached"]
            outlines = [s for s in d["layout"]["shapes"] if s not in covers]
            assert len(outlines) == panels and len(covers) == (panels if cur < T - 1 else 0)
            for c, o in zip(covers, outlines):
                assert (c["x0"], c["x1"]) == (cur + 0.5, T - 0.5) and c["fillcolor"] == "#FFFFFF"
                assert (c["xref"], c["yref"], c["y0"], c["y1"]) == (o["xref"], o["yref"], o["y0"], o["y1"])
                assert d["layout"]["shapes"].index(c) < d["layout"]["shapes"].index(o)  # the outline on top
            for trace in d["data"] if cur < T - 1 else ():
                assert np.isfinite(np.array(trace["z"], dtype=float)[:, cur + 1:]).any()  # values not blanked
    for k in (0, 1):  # nothing but the layout changes from step to step, where no numbers are written
        a, b = figs[2][k].to_dict(), figs[4][k].to_dict()
        for ta, tb in zip(a["data"], b["data"]):
            assert {n for n in ta if n != "text" and str(ta[n]) != str(tb[n])} == set()


def test_a_class_arriving_at_once_validates_the_house_template_once(monkeypatch):
    """Every first run of a fresh server asks for the house template; setting it validates the whole template
    (20-120 ms), and a class of sessions arriving together must not each pay for it."""
    import threading
    import time

    import plotly.io as pio

    from rnnviz.figures.base import use_house_template

    config = type(pio.templates)
    sets, prop = [], config.default

    def slow_set(self, value):  # as slow as a validation on a busy server, so that the arrivals overlap
        sets.append(value)
        time.sleep(0.05)
        prop.fset(self, value)

    monkeypatch.setattr(config, "default", property(prop.fget, slow_set))
    pio.templates.default = "plotly"
    sets.clear()
    start = threading.Barrier(8)
    threads = [threading.Thread(target=lambda: (start.wait(), use_house_template())) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sets == ["plotly_white"] and pio.templates.default == "plotly_white"
