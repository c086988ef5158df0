"""The one-unit page as a student uses it: defaults, presets, sliders, steps, links, bad input."""
import pytest

from tests import conftest
from tests.conftest import all_text, tables

P = "scalar"


def h_column(at):
    return list(tables(at)[0]["hₜ = tanh(·)"])


def test_defaults_show_the_worked_example(open_page):
    at = open_page(P)
    assert not at.exception
    assert h_column(at) == ["0.762", "0.363", "0.180"]
    assert "0.000 + 0.381 = 0.381" in all_text(at)
    # it opens on the last step, Next greyed out: the intro's first move is Reset (the walk: "Press Next" did nothing)
    assert at.button(key=f"{P}.next").disabled and not at.button(key=f"{P}.reset").disabled
    assert "Press **Reset** to go back to step 1, then **Next**" in all_text(at)


@pytest.mark.parametrize("preset,expected", [
    ("fade", ["0.762", "0.363", "0.180"]),
    ("flood", ["0.762", "0.909", "0.949"]),
    ("rewrite", ["0.762", "0.363", "0.828"]),
])
def test_presets(open_page, preset, expected):
    at = open_page(P)
    at.slider(key=f"{P}.w_h").set_value(-3.0).run()  # start from something else
    at.button(key=f"{P}.preset.{preset}").click().run()
    assert not at.exception
    assert h_column(at) == expected


def test_long_silence_forgets_the_first_input(open_page):
    at = open_page(P)
    at.button(key=f"{P}.preset.silence").click().run()
    col = h_column(at)
    assert len(col) == 11 and col[0] == "0.762" and col[-2:] == ["0.00140", "7.00 × 10⁻⁴"]  # h10, h11 differ
    assert "0.5 × 0.00140 = **7.00 × 10⁻⁴**" in all_text(at)  # the written product reads true
    assert "Saturation kills" not in all_text(at)
    at.button(key=f"{P}.preset.flood").click().run()
    assert "Saturation kills the gradient" in all_text(at)


def test_slider_move_updates_numbers_and_link(open_page):
    at = open_page(P)
    at.slider(key=f"{P}.w_h").set_value(2.0).run()
    assert h_column(at)[1:] == ["0.909", "0.949"]
    assert at.query_params["wh"] in ("2.0", ["2.0"])
    assert any("two stable states" in m.value.lower() for m in at.markdown)


def test_stepping_back_and_forward(open_page):
    at = open_page(P)
    at.button(key=f"{P}.reset").click().run()
    assert h_column(at) == ["0.762"]
    at.button(key=f"{P}.next").click().run()
    assert h_column(at) == ["0.762", "0.363"]
    assert "Step 2." in all_text(at)
    at.button(key=f"{P}.back").click().run()
    assert h_column(at) == ["0.762"]


def test_bad_sequence_gives_a_message_and_keeps_the_last_one(open_page):
    at = open_page(P)
    for bad, words in [("1, two, 3", "not a number"), ("", "empty"), ("1, nan", "finite"), ("1e9", "limited")]:
        at.text_input(key=f"{P}.x").input(bad).run()
        assert not at.exception
        assert any(words in e.value for e in at.error), bad
        assert h_column(at) == ["0.762", "0.363", "0.180"]


def test_link_restores_setup_and_refuses_bad_values(open_page):
    at = open_page(P, wh="2", x="1 0 0 0", t="2")
    assert h_column(at) == ["0.762", "0.909"]
    at = open_page(P, wh="banana", b="99")
    assert not at.exception
    assert h_column(at) == ["0.762", "0.363", "0.180"]
    assert any("`wh`" in i.value and "`b`" in i.value for i in at.info)


def test_extreme_weights_stay_finite(open_page):
    at = open_page(P)
    at.slider(key=f"{P}.w_h").set_value(10.0)
    at.slider(key=f"{P}.w_x").set_value(-10.0)
    at.slider(key=f"{P}.b").set_value(10.0)
    at.text_input(key=f"{P}.x").input(", ".join(["100", "-100"] * 100)).run()
    assert not at.exception
    assert len(h_column(at)) == 200
    assert "nan" not in all_text(at).lower()


def test_predict_then_reveal_from_a_shared_link(open_page):
    at = open_page(P, predict="1", t="2")
    assert list(tables(at)[0]["hₜ = tanh(·)"]) == ["0.762", "?"]  # step 2 is a question, not an answer
    at.number_input(key=f"{P}.guess").set_value(-0.5)
    at.button(key=f"{P}.check").click().run()
    assert h_column(at) == ["0.762", "0.363"]
    [miss] = [i for i in at.info if "Not quite" in i.value]
    assert "h₂ = 0.363" in miss.value and miss.icon == ":material/close:"  # a miss: no target hit
    assert any("0 points from 1 guess" in c.value for c in at.caption)
    at.button(key=f"{P}.next").click().run()
    at.number_input(key=f"{P}.guess").set_value(0.2)
    at.button(key=f"{P}.check").click().run()
    assert any("Spot on" in i.value for i in at.info)
    assert any("2 points from 2 guesses" in c.value for c in at.caption)


def test_classroom_mode_hides_the_sidebar_and_shortens_the_intro(open_page):
    at = open_page(P, classroom="1")
    assert not at.exception
    assert not any("Colours" in m.value for m in at.sidebar.markdown)
    assert any(m.value == "One hidden unit, one number of memory." for m in at.markdown)  # one line, not three
    assert not any("Press **Reset**" in m.value for m in at.markdown)
    assert h_column(at) == ["0.762", "0.363", "0.180"]


def charts(at) -> dict:
    """The page's Plotly figures as the browser receives them, by chart key."""
    return {c.key: c.figure for c in conftest.charts(at)}


def values(a) -> list:
    """A trace's array as sent: a list, or Plotly's typed array {"dtype", "bdata"}."""
    import base64

    import numpy as np

    if isinstance(a, dict):
        return np.frombuffer(base64.b64decode(a["bdata"]), dtype=a["dtype"]).tolist()
    return list(a or [])


def shown_states(at) -> list[float]:
    """Every h_t value the charts carry: the states chart's line and the tanh chart's marked steps."""
    figs = [f for k, f in charts(at).items() if k in ("scalar.states", "scalar.tanh")]
    return [round(v, 3) for f in figs for tr in f["data"] if tr.get("name", "").startswith(("state", "earlier", "step"))
            for v in values(tr.get("y")) if v is not None]


def test_the_tanh_charts_words_follow_its_play_button(open_page):
    """Each animation frame's title is its step's sentence; the caption saying the words stay behind is gone."""
    at = open_page(P)
    frames = charts(at)["scalar.tanh"]["frames"]
    titles = [f["layout"]["title"]["text"].replace("<br>", " ") for f in frames]
    assert titles[1] == "Step 2: z = 0.000 + 0.381 = 0.381, h₂ = tanh(z) = 0.363"  # the notes' second row
    assert [t.split(":")[0] for t in titles] == ["Step 1", "Step 2", "Step 3"]
    assert not any("Play steps" in c.value for c in at.caption)
    at = open_page(P, predict="1", t="2")  # predict mode, the question at step 2: the frames stop at step 1
    assert [f["layout"]["title"]["text"].split(":")[0] for f in charts(at)["scalar.tanh"]["frames"]] == ["Step 1"]


def test_predict_mode_opens_on_step_1_and_reveals_nothing(open_page):
    at = open_page(P, predict="1")
    assert not at.exception
    assert at.slider(key=f"{P}.t").value == 1
    assert h_column(at) == ["?"]
    text = all_text(at)
    assert "What will h₁ be?" in text and "h₀ = 0.000" in text
    for h in ("0.762", "0.363", "0.180"):  # no state of the sequence anywhere: text, tables, charts, alt texts
        assert h not in text, h
        assert all(h not in c.alt for c in conftest.charts(at))
    assert shown_states(at) == []
    cobweb = charts(at)["scalar.cobweb"]
    assert not any("cobweb" in tr.get("name", "") for tr in cobweb["data"])  # no staircase from h_1
    assert not any(c.value.startswith('"""Exported') for c in at.code)  # the script would assert every h_t


def test_predict_mode_asks_each_step_once_and_never_shows_the_next(open_page):
    at = open_page(P, predict="1")
    at.number_input(key=f"{P}.guess").set_value(0.75)
    at.button(key=f"{P}.check").click().run()
    assert h_column(at) == ["0.762"] and any("Spot on" in i.value for i in at.info)
    at.button(key=f"{P}.next").click().run()
    assert h_column(at) == ["0.762", "?"] and "What will h₂ be?" in all_text(at)
    assert at.number_input(key=f"{P}.guess").label == "Your guess for h₂"  # the box names the step asked
    assert "0.363" not in all_text(at) and "0.180" not in all_text(at)
    assert 0.762 in shown_states(at) and not {0.363, 0.18} & set(shown_states(at))  # the charts: h_1, nothing after
    at.button(key=f"{P}.back").click().run()  # back to an answered step: shown, not asked again
    assert h_column(at) == ["0.762"] and not [b for b in at.button if b.key == f"{P}.check"]
    assert any("Spot on" in i.value for i in at.info)
    at.button(key=f"{P}.next").click().run()  # step 2 is still the open question
    assert h_column(at) == ["0.762", "?"]
    assert any("2 points from 1 guess" in c.value for c in at.caption)


def test_turning_predict_on_starts_over_at_step_1(open_page):
    at = open_page(P)
    assert at.slider(key=f"{P}.t").value == 3
    at.toggle(key=f"{P}.predict").set_value(True).run()
    assert at.slider(key=f"{P}.t").value == 1 and h_column(at) == ["?"]
    assert at.query_params["predict"] in ("1", ["1"]) and at.query_params["t"] in ("1", ["1"])
    at.toggle(key=f"{P}.predict").set_value(False).run()
    assert h_column(at) == ["0.762"]  # off again: step 1's numbers, nothing hidden


@pytest.mark.parametrize("change", ["slider", "preset"])
def test_a_new_setup_while_predicting_asks_again_from_step_1(open_page, change):
    """Two steps answered, then a weight or a preset: the new setup's h₁ and h₂ were shown unasked, at step 3, and
    counted as two steps skipped (a browser walk). It asks again from step 1, and nothing counts as skipped."""
    at = open_page(P, predict="1")
    for guess in (0.75, 0.35):
        at.number_input(key=f"{P}.guess").set_value(guess)
        at.button(key=f"{P}.check").click().run()
        at.button(key=f"{P}.next").click().run()
    assert h_column(at) == ["0.762", "0.363", "?"]
    if change == "slider":
        at.slider(key=f"{P}.w_h").set_value(0.55).run()
    else:
        at.button(key=f"{P}.preset.flood").click().run()
    assert at.slider(key=f"{P}.t").value == 1 and h_column(at) == ["?"] and not at.exception
    score = next(c.value for c in at.caption if c.value.startswith("Score"))
    assert "from 2 guesses" in score and "skipped" not in score


def test_backprop_by_hand_shows_each_factor(open_page):
    at = open_page(P)
    chain = next(m.value for m in at.markdown if m.value.startswith("∂h₃/∂h₁"))
    assert "wₕ²(1 − h₂²)(1 − h₃²)" in chain and "0.5 (1 − 0.363²) · 0.5 (1 − 0.180²)" in chain
    assert chain.endswith("= 0.2100")
    factors = tables(at)[1]
    assert list(factors["∂hⱼ/∂hⱼ₋₁ = wₕ(1 − hⱼ²)"]) == ["0.4340", "0.4838"]
    link = at.get("page_link")[0].proto
    assert link.page.endswith("gradients") and "Gradients through time" in link.label
    at.slider(key=f"{P}.w_h").set_value(2.0).run()  # the numbers follow the weights
    assert any("2 (1 − 0.909²) · 2 (1 − 0.949²)" in m.value for m in at.markdown)
    at.button(key=f"{P}.reset").click().run()
    assert not any(m.value.startswith("∂h") for m in at.markdown) and any("Step to t = 2" in c.value
                                                                         for c in at.caption)


def test_rounding_note_only_for_the_notes_example(open_page):
    at = open_page(P)
    assert any("0.3636 ≈ 0.364" in c.value and "0.3634 ≈ 0.363" in c.value for c in at.caption)
    at.button(key=f"{P}.preset.flood").click().run()
    assert not any("Rounding" in c.value for c in at.caption)


def test_fixed_points_are_explained_where_they_are_drawn(open_page):
    at = open_page(P, wh="2")
    text = all_text(at)
    assert "**fixed point**" in text and "**stable**" in text and "**cobweb**" in text
    assert "h* = **0.9575**, slope wₕ(1 − h*²) = 0.166; stable" in text
    assert "h* = **0.0000**, slope wₕ(1 − h*²) = 2.000; unstable" in text


def test_skipping_past_a_question_is_marked_not_scored(open_page):
    """Next (or → / PageDown, which press it) or the time slider during a question shows the skipped answers: the
    score says so and counts them apart from the guesses."""
    at = open_page(P, predict="1")
    at.button(key=f"{P}.next").click().run()  # step 1 was the question: its answer is now on screen, unscored
    assert h_column(at) == ["0.762", "?"]
    assert any("0 points from 0 guesses; 1 step skipped, not scored" in c.value for c in at.caption)
    at.number_input(key=f"{P}.guess").set_value(0.36)
    at.button(key=f"{P}.check").click().run()
    assert any("2 points from 1 guess; 1 step skipped" in c.value for c in at.caption)
    at.slider(key=f"{P}.t").set_value(3).run()  # step 3 is the question now: nothing skipped
    assert h_column(at) == ["0.762", "0.363", "?"]
    assert any("1 step skipped," in c.value for c in at.caption)


def test_a_link_with_a_sequence_opens_on_its_last_step_unless_it_names_the_step(open_page):
    at = open_page(P, x="1, 2, -1, 0.5, 0, 1, 2")  # seven inputs, no step named: the whole sequence, as typing it does
    assert "Step 7." in all_text(at)
    at = open_page(P, x="1, 2, -1, 0.5, 0, 1, 2", t="2")  # the step the link names
    assert "Step 2." in all_text(at)
    assert "Step 3." in all_text(open_page(P))  # the notes' example at its default step


def test_the_drag_frames_cover_the_sliders_as_the_page_draws_them(open_page):
    """The frames' notches (the scrubbed controls' declarations) are the page's sliders' own: range and step."""
    from ui.lessons.scalar import CONTROLS

    at = open_page("scalar")
    assert set(CONTROLS.spans()) == {"w_x", "w_h", "b", "h0"}
    for name, spec in CONTROLS.spans().items():
        s = at.slider(key=f"scalar.{name}")
        assert (s.min, s.max, s.step) == spec, name
