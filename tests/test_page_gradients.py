"""The gradients page: vanishing vs exploding from the user's weights, reference table, clipping, extremes."""
import pytest

from tests.conftest import all_text

P = "gradients"


def metric(at, prefix):
    return next(m.value for m in at.metric if m.label.startswith(prefix))


def as_float(s):
    return 0.0 if s.startswith("0 (") else float(s)


def test_vanish_then_explode(open_page):
    at = open_page(P)
    assert not at.exception
    assert as_float(metric(at, "vanilla")) < 1e-2
    at.button(key="grad.explode").click().run()
    assert as_float(metric(at, "vanilla")) > 10
    assert at.query_params["w"] in ("1.5", ["1.5"])


def test_notes_table_and_explosion(open_page):
    at = open_page(P)
    tab = at.table[0].value
    assert list(tab["vanilla (0.5×0.9)^t"]) == ["1.0e+00", "1.8e-02", "3.4e-04", "1.2e-07", "1.3e-14"]
    assert list(tab["LSTM f = 0.9: 0.9^t"]) == ["1", "0.59", "0.35", "0.12", "0.015"]
    assert metric(at, "Scalar w = 2") == "1.1e+15"


def test_clipping_message(open_page):
    at = open_page(P)
    assert any("cannot" in i.value for i in at.info)  # vanished: nothing to clip
    at.button(key="grad.explode").click().run()
    assert any("Clipped" in s.value for s in at.success)
    assert "after clipping **1**" in all_text(at)


@pytest.mark.parametrize("setting", [{"grad.scale": 3.0, "grad.xs": 0.0}, {"grad.scale": 0.0},
                                     {"grad.H": 64, "grad.T": 200, "grad.bf": 10.0}, {"grad.H": 1, "grad.T": 2, "grad.bf": -5.0}])
def test_extremes_never_break(open_page, setting):
    at = open_page(P)
    for k, v in setting.items():
        at.slider(key=k).set_value(v)
    at.run()
    assert not at.exception and "nan" not in all_text(at).lower()
