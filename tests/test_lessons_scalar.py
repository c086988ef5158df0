"""The one-unit lesson's numbers: parsing, predict mode's steps and points, the notes' rounding, fixed points,
backprop by hand against torch.autograd."""
import math

import numpy as np
import pytest

from rnnviz.lessons import scalar as lesson
from rnnviz.lessons.presets import SCALAR_PRESETS
from rnnviz.text import InputError, fmt, parse_sequence, power_text, sub


def fade():
    p = SCALAR_PRESETS["fade"]
    return lesson.run_scalar(p.x, p.w_x, p.w_h, p.b, p.h0)


@pytest.mark.parametrize("text,expected", [("1, 0, 0", [1.0, 0.0, 0.0]), ("1 0 0", [1.0, 0.0, 0.0]),
                                           (" -2.5;3e1 ", [-2.5, 30.0])])
def test_parse_sequence(text, expected):
    assert parse_sequence(text) == expected


@pytest.mark.parametrize("text,words", [("", "empty"), (",", "empty"), ("  ,;, ", "empty"), ("1, two", "not a number"),
                                        ("inf", "finite"), ("101", "limited"), ("1 " * 201, "limit is 200")])
def test_parse_sequence_refuses(text, words):
    with pytest.raises(InputError, match=words):
        parse_sequence(text)


def test_fmt_subscripts_and_powers():
    assert fmt(-0.0) == "0.000" and fmt(0.762) == "0.762" and fmt(0.5) == "0.500"  # the notes' 3 decimals
    assert fmt(-0.0001) == "-1.00 × 10⁻⁴" and fmt(0.00138) == "0.00138"  # small values keep 3 figures
    assert fmt(12345.0) == "1.23 × 10⁴" and fmt(0.00099996) == "0.00100" and fmt(0.4340, 4) == "0.4340"
    assert sub("t-1") == "ₜ₋₁" and sub(12) == "₁₂"
    assert power_text(1.2e-7) == "1.200 × 10⁻⁷" and power_text(0.25) == "0.2500"


def test_the_run_is_the_notes_table():
    np.testing.assert_allclose(fade().h[:, 0], [math.tanh(1), math.tanh(0.5 * math.tanh(1)),
                                                math.tanh(0.5 * math.tanh(0.5 * math.tanh(1)))], rtol=1e-15)


def test_predict_view_never_asks_a_shown_step_and_never_shows_past_the_question():
    assert lesson.predict_view(1, 0) == lesson.PredictView(shown=0, asking=True, frontier=0)
    assert lesson.predict_view(3, 0) == lesson.PredictView(shown=2, asking=True, frontier=2)  # 1, 2 given, 3 asked
    assert lesson.predict_view(2, 3) == lesson.PredictView(shown=2, asking=False, frontier=3)  # back: no question
    for frontier in range(5):
        for t in range(1, 6):
            v = lesson.predict_view(t, frontier)
            assert v.shown < t if v.asking else v.shown == t
            assert v.frontier >= frontier and (not v.asking or v.frontier == t - 1)


def test_guess_points():
    assert lesson.guess_points(0.74, 0.762) == 2
    assert lesson.guess_points(0.3, 0.762) == 1
    assert lesson.guess_points(-0.3, 0.762) == 0
    assert lesson.guess_points(-0.04, 0.03) == 1 and lesson.guess_points(-0.2, 0.03) == 0  # both near zero: +1


def test_notes_rounding_computes_both_roundings():
    r = lesson.notes_rounding(fade(), 1.0, 0.5, 0.0, 0.0)
    # one note rounds h_1 first: tanh(0.381) = 0.3636; unrounded h_2 = 0.3634
    assert r.h1_rounded == 0.762 and r.h2_from_rounded == pytest.approx(0.36357, abs=1e-5)
    assert r.h2 == pytest.approx(0.36340, abs=1e-5) and r.h1 == pytest.approx(math.tanh(1), rel=1e-15)
    assert lesson.notes_rounding(fade(), 1.0, 2.0, 0.0, 0.0) is None  # only for the notes' example


def test_fixed_points_and_their_stability():
    assert lesson.fixed_points(0.5) == [(0.0, True)]
    fps = lesson.fixed_points(2.0)
    assert len(fps) == 3 and [s for _, s in fps] == [True, False, True]
    for h, _ in fps:
        assert math.tanh(2.0 * h) == pytest.approx(h, abs=1e-9)
    assert fps[2][0] == pytest.approx(0.957504, abs=1e-6) and fps[0][0] == pytest.approx(-fps[2][0])
    assert lesson.fixed_points(1.5, 0.8)[0][1]  # a bias leaves one stable point
    np.testing.assert_allclose(lesson.iterate_silence(0.5, 0.5, 0.0, 2),
                               [0.5, math.tanh(0.25), math.tanh(0.5 * math.tanh(0.25))])


def test_backprop_by_hand_on_the_worked_example():
    tr = fade()
    bp = lesson.backprop(tr, 0.5, 3)
    h2, h3 = tr.h[1, 0], tr.h[2, 0]
    assert bp.value == pytest.approx(0.5 ** 2 * (1 - h2 ** 2) * (1 - h3 ** 2), rel=1e-15)
    assert bp.value == pytest.approx(0.20998, abs=5e-6)
    assert bp.h == [h2, h3] and bp.factors == [0.5 * (1 - h2 ** 2), 0.5 * (1 - h3 ** 2)]


@pytest.mark.parametrize("w_x,w_h,b,h0,x,k", [(1.0, 0.5, 0.0, 0.0, [1, 0, 0], 3), (1.0, 2.0, 0.0, 0.0, [1, 0, 0], 3),
                                             (-1.3, 0.9, 0.2, 0.4, [0.5, -1, 2, 0.3, -0.7], 5),
                                             (0.7, -1.8, -0.1, 0.0, [1, 1, -1, 0], 2)])
def test_backprop_equals_torch_autograd(w_x, w_h, b, h0, x, k):
    torch = pytest.importorskip("torch")
    tr = lesson.run_scalar(x, w_x, w_h, b, h0)
    h1 = torch.tensor(float(tr.h[0, 0]), dtype=torch.float64, requires_grad=True)
    h = h1
    for t in range(1, k):
        h = torch.tanh(w_x * x[t] + w_h * h + b)
    (grad,) = torch.autograd.grad(h, h1)
    assert lesson.backprop(tr, w_h, k).value == pytest.approx(grad.item(), rel=1e-12, abs=1e-300)


def test_the_cobweb_legend_names_only_the_fixed_points_there_are():
    from rnnviz.figures.scalar import cobweb

    def named(w_h):
        return [t.name for t in cobweb(w_h, 0.0, None, lesson.fixed_points(w_h), 1.0).data
                if t.name and "fixed point" in t.name]
    assert named(0.5) == ["stable fixed point"]  # one, at 0: no unstable one to name
    assert named(2.0) == ["stable fixed point", "unstable fixed point"]  # ±0.9575 stable, 0 unstable
