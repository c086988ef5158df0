"""The one-unit lesson: parsing, the worked table, predict mode's bookkeeping, fixed points, backprop by hand."""
import math

import numpy as np
import pytest

from rnnviz.lessons import scalar as lesson
from rnnviz.lessons.presets import SCALAR_PRESETS


def fade():
    p = SCALAR_PRESETS["fade"]
    return lesson.run_scalar(p.x, p.w_x, p.w_h, p.b, p.h0)


@pytest.mark.parametrize("text,expected", [("1, 0, 0", [1.0, 0.0, 0.0]), ("1 0 0", [1.0, 0.0, 0.0]),
                                           (" -2.5;3e1 ", [-2.5, 30.0])])
def test_parse_sequence(text, expected):
    assert lesson.parse_sequence(text) == expected


@pytest.mark.parametrize("text,words", [("", "empty"), ("1, two", "not a number"), ("inf", "finite"),
                                        ("101", "limited"), ("1 " * 201, "limit is 200")])
def test_parse_sequence_refuses(text, words):
    with pytest.raises(lesson.InputError, match=words):
        lesson.parse_sequence(text)


def test_subscripts_and_table_headers():
    assert lesson.sub("t-1") == "ₜ₋₁" and lesson.sub(12) == "₁₂"
    table = lesson.worked_table(fade(), 0.0, 3, asking=False)
    assert list(table) == ["t", "xₜ", "wₓxₜ + wₕhₜ₋₁", "hₜ = tanh(·)"]
    assert table["hₜ = tanh(·)"] == ["0.762", "0.363", "0.180"]  # the notes' table
    assert table["wₓxₜ + wₕhₜ₋₁"][1] == "0.000 + 0.381 = 0.381"
    asked = lesson.worked_table(fade(), 0.0, 2, asking=True)
    assert asked["hₜ = tanh(·)"] == ["0.762", "?"] and asked["wₓxₜ + wₕhₜ₋₁"][-1] == "?"
    assert "+ b" in next(iter(k for k in lesson.worked_table(fade(), 0.5, 1, False) if k.startswith("w")))


def test_fmt_never_prints_minus_zero():
    assert lesson.fmt(-0.0001) == "0.000" and lesson.fmt(-0.0006) == "-0.001"


def test_predict_view_never_asks_a_shown_step_and_never_shows_past_the_question():
    assert lesson.predict_view(1, 0) == lesson.PredictView(shown=0, asking=True, frontier=0)
    assert lesson.predict_view(3, 0) == lesson.PredictView(shown=2, asking=True, frontier=2)  # 1, 2 given, 3 asked
    assert lesson.predict_view(2, 3) == lesson.PredictView(shown=2, asking=False, frontier=3)  # back: no question
    for frontier in range(5):
        for t in range(1, 6):
            v = lesson.predict_view(t, frontier)
            assert v.shown < t if v.asking else v.shown == t
            assert v.frontier >= frontier and (not v.asking or v.frontier == t - 1)


def test_predict_step_scores_once_and_moves_the_frontier():
    tr = fade()
    setup = (1.0, 0.5, 0.0, 0.0, (1.0, 0.0, 0.0))
    state = {}
    assert lesson.predict_step(state, "p", setup, 1, tr.h[0, 0]).asking
    state.update({"p.checked": 1, "p.guess": 0.75})
    v = lesson.predict_step(state, "p", setup, 1, tr.h[0, 0])
    assert not v.asking and v.shown == 1 and state["p.score"] == (2, 1) and "Spot on" in state["p.verdict"][1]
    state.update({"p.checked": 1, "p.guess": -1.0})  # checking an answered step again scores nothing
    lesson.predict_step(state, "p", setup, 1, tr.h[0, 0])
    assert state["p.score"] == (2, 1)
    assert lesson.predict_step(state, "p", setup, 2, tr.h[1, 0]).asking
    other = (1.0, 2.0, 0.0, 0.0, (1.0, 0.0, 0.0))  # a new setup starts over: step 1 is asked again
    assert lesson.predict_step(state, "p", other, 1, 0.0).asking


def test_step_and_question_texts():
    tr = fade()
    text = lesson.step_text(2, 0.0, 1.0, 0.5, 0.0, tr.h[0, 0], tr)
    assert text.startswith("**Step 2.**") and "0.5 × 0.762 = **0.381**" in text and "h₂ = tanh(0.381) = **0.363**" in text
    q = lesson.question_text(2, 0.0, tr.h[0, 0])
    assert "h₁ = 0.762" in q and "What will h₂ be?" in q and "0.363" not in q


def test_rounding_note_matches_the_notes_two_roundings():
    note = lesson.rounding_note(fade(), 1.0, 0.5, 0.0, 0.0)
    # one note rounds h_1 first: tanh(0.381) = 0.3636 -> 0.364; unrounded h_2 = 0.3634 -> 0.363
    assert "0.3636 ≈ 0.364" in note and "0.3634 ≈ 0.363" in note
    assert math.tanh(0.381) == pytest.approx(0.36357, abs=1e-5) and math.tanh(0.5 * math.tanh(1)) == pytest.approx(0.36340, abs=1e-5)
    assert lesson.rounding_note(fade(), 1.0, 2.0, 0.0, 0.0) is None  # only for the notes' example


def test_fixed_points_and_their_stability():
    assert lesson.fixed_points(0.5) == [(0.0, True)]
    fps = lesson.fixed_points(2.0)
    assert len(fps) == 3 and [s for _, s in fps] == [True, False, True]
    for h, _ in fps:
        assert math.tanh(2.0 * h) == pytest.approx(h, abs=1e-9)
    assert fps[2][0] == pytest.approx(0.957504, abs=1e-6) and fps[0][0] == pytest.approx(-fps[2][0])
    lines = lesson.fixed_point_lines(fps, 2.0)
    assert "slope wₕ(1 − h*²) = 2.000; unstable" in lines[1] and "stable: nearby states fall in" in lines[0]
    assert "Two stable states" in lesson.fixed_point_text(fps, 2.0)
    assert "Two stable states" not in lesson.fixed_point_text(lesson.fixed_points(0.5), 0.5)
    assert lesson.fixed_points(1.5, 0.8)[0][1]  # a bias leaves one stable point
    np.testing.assert_allclose(lesson.iterate_silence(0.5, 0.5, 0.0, 2), [0.5, math.tanh(0.25), math.tanh(0.5 * math.tanh(0.25))])


def test_backprop_by_hand_on_the_worked_example():
    tr = fade()
    bp = lesson.backprop(tr, 0.5, 3)
    h2, h3 = tr.h[1, 0], tr.h[2, 0]
    assert bp.value == pytest.approx(0.5 ** 2 * (1 - h2 ** 2) * (1 - h3 ** 2), rel=1e-15)
    assert bp.value == pytest.approx(0.20998, abs=5e-6)
    text = lesson.backprop_text(bp, 0.5)
    assert text.startswith("∂h₃/∂h₁ = wₕ²(1 − h₂²)(1 − h₃²)  \n")
    assert "= 0.5 (1 − 0.363²) · 0.5 (1 − 0.180²)" in text and "= 0.4340 · 0.4838" in text
    assert text.endswith("  \n= 0.2100")
    rows = lesson.backprop_rows(bp, 0.5)
    assert rows["hⱼ"] == ["0.3634", "0.1797"] and rows["∂hⱼ/∂hⱼ₋₁ = wₕ(1 − hⱼ²)"] == ["0.4340", "0.4838"]


def test_backprop_long_chains_and_tiny_numbers():
    p = SCALAR_PRESETS["silence"]
    tr = lesson.run_scalar(p.x, p.w_x, p.w_h, p.b, p.h0)
    bp = lesson.backprop(tr, p.w_h, 11)
    assert len(bp.factors) == 10 and "∂h₁₁/∂h₁ = ∏ⱼ₌₂¹¹ wₕ(1 − hⱼ²)" in lesson.backprop_text(bp, p.w_h)
    assert lesson.power_text(1.2e-7) == "1.200 × 10⁻⁷" and lesson.power_text(0.25) == "0.2500"


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


def test_score_guess():
    assert lesson.score_guess(0.74, 0.762).points == 2
    assert lesson.score_guess(0.3, 0.762).points == 1
    assert lesson.score_guess(-0.3, 0.762).points == 0
