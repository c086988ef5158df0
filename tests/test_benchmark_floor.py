"""The benchmark's floor page (benchmarks/floor_app.py): each variant runs, and the two table variants show the same
numbers, so that timing one against the other compares only how they are drawn."""
import pytest
from streamlit.testing.v1 import AppTest

from benchmarks.browser import FLOOR_VARIANTS
from tests.conftest import ROOT, tables


def floor(variant: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "benchmarks" / "floor_app.py"), default_timeout=60)
    at.query_params["variant"] = variant
    return at.run()


@pytest.mark.parametrize("variant", list(FLOOR_VARIANTS))
def test_each_variant_runs(variant):
    at = floor(variant)
    assert not at.exception and at.slider(key="floor.phase").value == 1.0


def test_the_two_table_variants_show_the_same_numbers_and_nothing_else():
    st_table, markdown = floor("table"), floor("mdtable")
    assert len(st_table.table) == 2 and not markdown.table and len(tables(markdown)) == 2
    # beside the line of text the bare page has, only the tables (no value of an expression written by magic)
    assert [m.value for m in st_table.markdown] == ["Phase 1.0"] and len(markdown.markdown) == 3
    assert len(st_table.main.children) == len(markdown.main.children) == len(floor("bare").main.children) + 2
    for a, b in zip(st_table.table, tables(markdown)):
        assert [f"{v:.4f}" for v in a.value.to_numpy().ravel()] == list(b.to_numpy().ravel())


def test_the_lesson_variant_is_the_unchanged_controls_the_changing_words_and_a_chart():
    """What the lesson-sized floor adds to the bare page: nine controls a move leaves alone, five metrics and a
    paragraph that follow the slider, and (in `lesson`) one chart."""
    bare, controls, words, lesson = (floor(v) for v in ("bare", "controls", "words", "lesson"))
    assert len(controls.slider) == len(lesson.slider) == len(bare.slider) + 6 and len(lesson.button) == 2
    assert len(words.metric) == len(lesson.metric) == 5 and not controls.metric and not words.button
    assert len(lesson.main.children) > len(words.main.children) > len(bare.main.children)
    before = [m.value for m in lesson.metric]
    lesson.slider(key="floor.phase").set_value(2.0).run()
    assert [m.value for m in lesson.metric] != before and "**2.0**" in lesson.markdown[1].value
    assert [s.value for s in lesson.slider if s.key != "floor.phase"] == [1.0] * 6  # the controls stay
