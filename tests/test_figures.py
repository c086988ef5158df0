"""Figure builders: what a viewer would see in the returned figures."""
import numpy as np

from rnnviz import figures
from rnnviz.bptt import reference_curves


def test_gradient_plot_keeps_values_beyond_float_range_at_the_edges():
    logv = np.array([0.0, -2.0, -400.0, -np.inf, 350.0])
    fig = figures.gradient_decay({"rnn": logv})
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


def test_reference_curves_are_the_notes_formulas():
    refs = reference_curves(np.arange(41))
    v = list(refs.values())
    assert f"{v[0][20]:.1e}" == "1.2e-07" and f"{v[1][40]:.3f}" == "0.015" and v[2][40] == 1


def test_tanh_curve_animates_each_step_in_the_browser():
    pre, h = np.array([1.0, 0.381, 0.182]), np.tanh([1.0, 0.381, 0.182])
    fig = figures.tanh_curve(pre, h, current=2)
    assert len(fig.frames) == 3
    assert fig.layout.updatemenus[0].buttons[0].label.endswith("Play steps")


def test_palette_is_the_notes_colour_language():
    c = figures.COLORS
    assert (c["input"], c["state"], c["weight"], c["output"]) == ("#009E73", "#0072B2", "#E69F00", "#D55E00")


def test_spec_figures_validate_when_read_and_plot_as_given(monkeypatch):
    import plotly.graph_objects as go

    monkeypatch.setenv("RNNVIZ_VALIDATE_FIGURES", "0")
    fig = figures.states_over_time(np.array([0.1, 0.2]), np.array([1, 0]), 1)
    assert isinstance(fig, figures.SpecFigure) and isinstance(fig, go.Figure)
    spec = fig.to_dict()
    assert spec["layout"]["height"] == 330 and len(spec["data"]) == 3  # handed to st.plotly_chart as built
    assert fig.data[1].name == "state h_t"  # reading it builds and validates the full figure
    bad = figures._fig([dict(type="scatter", x=[1], bogus=1)], {})
    try:
        bad.data
    except ValueError as e:
        assert "bogus" in str(e)
    else:
        raise AssertionError("an invalid figure passed validation")
