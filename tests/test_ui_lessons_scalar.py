"""The one-unit page's words: the worked table, predict mode's bookkeeping in a session's state, each step and
question in words, the notes' rounding, fixed points and backprop written out."""
from rnnviz.lessons import scalar as lesson
from rnnviz.lessons.presets import SCALAR_PRESETS, ScalarPreset
from ui.lessons import scalar as words


def fade():
    p = SCALAR_PRESETS["fade"]
    return lesson.run_scalar(p.x, p.w_x, p.w_h, p.b, p.h0)


def test_every_preset_has_a_name_and_sets_its_numbers():
    assert list(words.PRESET_NAMES) == list(SCALAR_PRESETS)
    assert words.preset_values("flood") == {"scalar.w_x": 1.0, "scalar.w_h": 2.0, "scalar.b": 0.0, "scalar.h0": 0.0,
                                            "scalar.x": "1, 0, 0", "scalar.t": 3}
    assert words.PRESET_NAMES["flood"][0] == "Flood" and "wₕ = 2" in words.PRESET_NAMES["flood"][1]


def test_table_headers():
    table = words.worked_table(fade(), 0.0, 3, asking=False)
    assert list(table) == ["t", "xₜ", "wₓxₜ + wₕhₜ₋₁", "hₜ = tanh(·)"]
    assert table["hₜ = tanh(·)"] == ["0.762", "0.363", "0.180"]  # the notes' table
    assert table["wₓxₜ + wₕhₜ₋₁"][1] == "0.000 + 0.381 = 0.381"
    asked = words.worked_table(fade(), 0.0, 2, asking=True)
    assert asked["hₜ = tanh(·)"] == ["0.762", "?"] and asked["wₓxₜ + wₕhₜ₋₁"][-1] == "?"
    assert "+ b" in next(iter(k for k in words.worked_table(fade(), 0.5, 1, False) if k.startswith("w")))


def test_a_negative_factor_in_the_step_sentence_is_in_parentheses():
    """'wₕhₜ₋₁ = 10 × -1.000' read badly: a negative second factor is written '10 × (-1.000)'; a negative first
    factor needs none ('-10 × 0')."""
    tr = lesson.run_scalar([1, 0], -10.0, 10.0, 0.0, 0.0)
    text = words.step_text(2, ScalarPreset(-10.0, 10.0, 0.0, 0.0, ()), tr.h[0, 0], tr)
    assert "wₓxₜ = -10 × 0 = " in text and "wₕhₜ₋₁ = 10 × (-1.000) = **-10.000**" in text
    first = lesson.run_scalar([-2], 1.0, -0.5, 0.0, 0.0)
    assert "× -" not in words.step_text(1, ScalarPreset(1.0, -0.5, 0.0, 0.0, ()), 0.0, first)


def test_a_negative_term_is_written_as_subtracted_and_each_row_adds_up():
    """'0.000 + -9.051' read badly: a negative term (memory or bias) is subtracted, and the written sum, read back
    as arithmetic, gives the row's z to its rounding."""
    tr = lesson.run_scalar([1, 0, -2, 0.3], 1.0, -10.0, -0.5, 0.0)
    rows = words.worked_rows(tr, -0.5)
    assert rows[1]["pre"] == "0.000 - 4.621 - 0.500 = -5.121"  # -10 tanh(0.5) - 0.5
    for r in rows:
        assert "+ -" not in r["pre"]
        expr, z = r["pre"].split(" = ")
        assert abs(eval(expr) - float(z)) <= 0.0015  # three terms, each rounded to 0.0005
    steps = words.chart_steps(tr, -0.5, 4)  # the chart's title writes the same sum
    assert " ".join(steps[1][0]) == "Step 2: z = 0.000 - 4.621 - 0.500 = -5.121,"


def test_predict_step_scores_once_and_moves_the_frontier():
    tr = fade()
    setup = (1.0, 0.5, 0.0, 0.0, (1.0, 0.0, 0.0))
    state = {}
    assert words.predict_step(state, setup, 1, tr.h[0, 0]).asking
    state.update({"scalar.checked": 1, "scalar.guess": 0.75})
    v = words.predict_step(state, setup, 1, tr.h[0, 0])
    assert not v.asking and v.shown == 1 and state["scalar.score"] == (2, 1) and "Spot on" in state["scalar.verdict"][1]
    state.update({"scalar.checked": 1, "scalar.guess": -1.0})  # checking an answered step again scores nothing
    words.predict_step(state, setup, 1, tr.h[0, 0])
    assert state["scalar.score"] == (2, 1)
    assert words.predict_step(state, setup, 2, tr.h[1, 0]).asking
    other = (1.0, 2.0, 0.0, 0.0, (1.0, 0.0, 0.0))  # a new setup starts over: step 1 is asked again
    assert words.predict_step(state, other, 1, 0.0).asking


def test_step_question_and_score_texts():
    tr = fade()
    text = words.step_text(2, ScalarPreset(1.0, 0.5, 0.0, 0.0, ()), tr.h[0, 0], tr)
    assert text.startswith("**Step 2.**") and "0.5 × 0.762 = **0.381**" in text
    assert "h₂ = tanh(0.381) = **0.363**" in text
    q = words.question_text(2, 0.0, tr.h[0, 0])
    assert "h₁ = 0.762" in q and "What will h₂ be?" in q and "0.363" not in q
    assert words.score_text(1, 1).startswith("Score: 1 point from 1 guess (")
    assert words.score_text(3, 2).startswith("Score: 3 points from 2 guesses")


def test_score_guess_verdicts():
    spot_on = "Spot on: h₁ = 0.762, you said 0.740 (off by 0.0220). +2"  # the step's h as the page writes it
    assert words.score_guess(0.74, 0.762, 1) == words.Verdict(2, spot_on)
    assert words.score_guess(0.3, 0.762, 12).message == "Right direction: h₁₂ = 0.762, you said 0.300. +1"
    miss = words.score_guess(-0.3, 0.762, 1)
    assert miss.points == 0 and "sign of z" in miss.message and set(words.VERDICT_ICONS) == {0, 1, 2}


def test_rounding_note_matches_the_notes_two_roundings():
    note = words.rounding_note(fade(), ScalarPreset(1.0, 0.5, 0.0, 0.0, (1, 0, 0)))
    assert "0.3636 ≈ 0.364" in note and "0.3634 ≈ 0.363" in note
    assert words.rounding_note(fade(), ScalarPreset(1.0, 2.0, 0.0, 0.0, (1, 0, 0))) is None  # the notes' example only


def test_fixed_point_words():
    fps = lesson.fixed_points(2.0)
    lines = words.fixed_point_lines(fps, 2.0)
    assert "slope wₕ(1 − h*²) = 2.000; unstable" in lines[1] and "stable: nearby states fall in" in lines[0]
    assert "Two stable states" in words.fixed_point_text(fps, 2.0)
    assert "Two stable states" not in words.fixed_point_text(lesson.fixed_points(0.5), 0.5)


def test_backprop_written_out_on_the_worked_example():
    bp = lesson.backprop(fade(), 0.5, 3)
    text = words.backprop_text(bp, 0.5)
    assert text.startswith("∂h₃/∂h₁ = wₕ²(1 − h₂²)(1 − h₃²)  \n")
    assert "= 0.5 (1 − 0.363²) · 0.5 (1 − 0.180²)" in text and "= 0.4340 · 0.4838" in text
    assert text.endswith("  \n= 0.2100")
    rows = words.backprop_rows(bp, 0.5)
    assert rows["hⱼ"] == ["0.363", "0.180"] and rows["∂hⱼ/∂hⱼ₋₁ = wₕ(1 − hⱼ²)"] == ["0.4340", "0.4838"]


def test_backprop_long_chains():
    p = SCALAR_PRESETS["silence"]
    tr = lesson.run_scalar(p.x, p.w_x, p.w_h, p.b, p.h0)
    bp = lesson.backprop(tr, p.w_h, 11)
    assert len(bp.factors) == 10 and "∂h₁₁/∂h₁ = ∏ⱼ₌₂¹¹ wₕ(1 − hⱼ²)" in words.backprop_text(bp, p.w_h)


def silence(w_h):
    p = SCALAR_PRESETS["silence"]
    return lesson.run_scalar(p.x, p.w_x, w_h, p.b, p.h0)


def test_small_numbers_keep_their_figures_so_a_product_reads_true():
    """The issue: Silence, step 11 read 'w_h h = 0.5 x 0.001 = 0.001', and the worked table showed h10 and h11 both
    as 0.001 while the backprop table showed 0.0014 and 0.0007."""
    tr = silence(0.5)
    text = words.step_text(11, ScalarPreset(1.0, 0.5, 0.0, 0.0, ()), tr.h[9, 0], tr)
    assert "wₕhₜ₋₁ = 0.5 × 0.00140 = **7.00 × 10⁻⁴**" in text
    worked = words.worked_table(tr, 0.0, 11, False)["hₜ = tanh(·)"]
    assert worked[9:] == ["0.00140", "7.00 × 10⁻⁴"]
    assert words.backprop_rows(lesson.backprop(tr, 0.5, 11), 0.5)["hⱼ"][-2:] == worked[9:]  # the two tables agree


def test_saturated_factors_read_true():
    """The issue: at w_h = 10, '= 0.0000 · 0.0000 = 8.000 x 10^-13'; and 1 − 1.000² would read as 0."""
    text = words.backprop_text(lesson.backprop(silence(10.0), 10.0, 3), 10.0)
    assert "= 9.70 × 10⁻⁶ · 8.24 × 10⁻⁸  \n= 8.000 × 10⁻¹³" in text and "0.0000" not in text
    assert "10 (1 − 0.999999515²)" in text and "1.000²" not in text


def test_flood_says_saturation_kills_the_gradient():
    """The issue: Flood floods the state yet dh3/dh1 = 0.069 is smaller than Fade's 0.210, and nothing said why."""
    p = SCALAR_PRESETS["flood"]
    tr = lesson.run_scalar(p.x, p.w_x, p.w_h, p.b, p.h0)
    note = words.saturation_note(lesson.backprop(tr, p.w_h, 3), p.w_h)
    assert "Saturation kills the gradient" in note and "∂h₃/∂h₁ = 0.06930" in note and "0.1000 at h₃ = 0.949" in note
    assert words.saturation_note(lesson.backprop(fade(), 0.5, 3), 0.5) is None  # w_h < 1: nothing to explain


def test_a_negative_recurrent_weight_is_not_called_above_1_and_its_swing_is_named():
    """A newcomer's walk: at w_h = -10 the note read "w_h = -10 is above 1 and floods the state", and the fixed-point
    list showed one unstable point with nothing about where the silent state goes: it swings in a two-step cycle."""
    p = SCALAR_PRESETS["fade"]
    tr = lesson.run_scalar(p.x, p.w_x, -10.0, p.b, p.h0)
    note = words.saturation_note(lesson.backprop(tr, -10.0, 3), -10.0)
    assert "wₕ = -10 is above 1 in size" in note and "floods" not in note and "the other way" in note
    for w_h, b in ((-10.0, 0.0), (-1.5, 0.0), (-3.0, 2.0)):
        fps = lesson.fixed_points(w_h, b)
        assert "two-step cycle" in words.fixed_point_text(fps, w_h)
        run = lesson.iterate_silence(0.3, w_h, b, 400)[-4:]  # the claim: a swing between two values, either side
        h_star = fps[0][0]
        assert abs(run[0] - run[2]) < 1e-9 and abs(run[0] - run[1]) > 1e-3 and (run[0] - h_star) * (run[1] - h_star) < 0
    for w_h in (-0.5, 0.5, 2.0):  # a stable state: it settles
        assert "two-step cycle" not in words.fixed_point_text(lesson.fixed_points(w_h), w_h)
    for w_h in (-1.0, 1.0):  # slope of size exactly 1 at h* = 0: no swing, no 'leave'; states creep in (a review)
        text = words.fixed_point_text(lesson.fixed_points(w_h), w_h)
        assert "two-step cycle" not in text and "creep in" in text and "leave" not in text
        assert abs(lesson.iterate_silence(0.3, w_h, 0.0, 20_000)[-1]) < 0.01  # the claim: in, slowly
    steady = lesson.run_scalar([1, 1, 1], 3.0, -1.5, 0.0, 0.0)  # the input holds the sign: no flipping to speak of
    note = words.saturation_note(lesson.backprop(steady, -1.5, 3), -1.5)
    assert all(h > 0 for h in steady.h[:, 0]) and "above 1 in size" in note and "the other way" not in note
