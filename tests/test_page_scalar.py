"""The one-unit page as a student uses it: defaults, presets, sliders, steps, links, bad input."""
import pytest

from tests.conftest import all_text

P = "scalar"


def h_column(at):
    return list(at.table[0].value["hₜ = tanh(·)"])


def test_defaults_show_the_worked_example(open_page):
    at = open_page(P)
    assert not at.exception
    assert h_column(at) == ["0.762", "0.363", "0.180"]
    assert "0.000 + 0.381 = 0.381" in all_text(at)


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
    assert len(col) == 11 and col[0] == "0.762" and col[-1] in ("0.000", "0.001")


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
    assert list(at.table[0].value["hₜ = tanh(·)"]) == ["0.762", "?"]  # step 2 is a question, not an answer
    at.number_input(key=f"{P}.guess").set_value(-0.5)
    at.button(key=f"{P}.check").click().run()
    assert h_column(at) == ["0.762", "0.363"]
    assert any("Not quite" in i.value for i in at.info)
    assert any("0 points from 1 guess" in c.value for c in at.caption)
    at.button(key=f"{P}.next").click().run()
    at.number_input(key=f"{P}.guess").set_value(0.2)
    at.button(key=f"{P}.check").click().run()
    assert any("Spot on" in i.value for i in at.info)
    assert any("2 points from 2 guesses" in c.value for c in at.caption)


def test_classroom_mode_hides_the_sidebar_and_intro(open_page):
    at = open_page(P, classroom="1")
    assert not at.exception
    assert not any("Colours" in m.value for m in at.sidebar.markdown)
    assert not any("One hidden unit, one number of memory" in m.value for m in at.markdown)
    assert h_column(at) == ["0.762", "0.363", "0.180"]
