"""Tables as the pages draw them (ui.widgets.table: markdown), read back as a visitor reads them."""
import numpy as np
import pandas as pd

from tests.conftest import tables
from ui.widgets import markdown_table


class _Markdown:
    def __init__(self, value: str):
        self.value = value


class _Page:
    def __init__(self, *texts: str):
        self.markdown = [_Markdown(t) for t in texts]


def test_numbers_line_up_on_the_right_and_text_on_the_left():
    text = markdown_table({"t": ["1", "10"], "hₜ": ["0.762", "?"], "input": ["a", "b"], "gap": ["8.1 × 10⁻³", "−2"]})
    assert text.splitlines()[1] == "| ---: | ---: | --- | ---: |"


def test_an_index_is_the_first_column_and_floats_keep_four_decimals():
    df = pd.DataFrame({"$f_t$": [0.1, -0.25], "n": [1, 2]}, index=["unit 1", "unit 2"])
    shown = tables(_Page("Intro", markdown_table(df)))
    assert len(shown) == 1 and list(shown[0].index) == ["unit 1", "unit 2"]
    assert list(shown[0]["$f_t$"]) == ["0.1000", "-0.2500"] and list(shown[0]["n"]) == ["1", "2"]
    assert list(tables(_Page(markdown_table({"x": [np.nan]})))[0]["x"]) == [""]  # no 'nan' on the page


def test_a_visitors_characters_are_cells_not_markup():
    text = markdown_table({"input": ["*", "|", "\\", "$", "<b>"]})
    assert list(tables(_Page(text))[0]["input"]) == ["*", "|", "\\", "$", "<b>"]
    assert "<b>" not in text and "\\*" in text  # escaped: never formatting, never HTML


def test_zero_is_never_negative_and_infinity_is_written():
    text = markdown_table({"v": [-0.00001, np.inf, -np.inf, np.nan, 1.0]})
    assert list(tables(_Page(text))[0]["v"]) == ["0.0000", "∞", "−∞", "", "1.0000"]
    assert text.splitlines()[1] == "| ---: |"  # still a column of numbers


def test_a_question_mark_alone_is_not_a_number_and_a_header_bar_stays_in_its_cell():
    assert markdown_table({"sum": ["?"], "h": ["0.5"]}).splitlines()[1] == "| --- | ---: |"
    shown = tables(_Page(markdown_table({"x | y": ["a"], "z": ["b"]})))[0]
    assert list(shown.columns) == ["x | y", "z"] and list(shown.iloc[0]) == ["a", "b"]


def test_a_table_of_words_reads_the_same_from_a_dict_as_from_its_dataframe():
    """The lessons' tables are dicts of written cells (drawn without a DataFrame): the page shows the same table."""
    words = {"t": ["1", "2", "3"], "xₜ": ["a", "|b", "*c*"], "hₜ": ["0.762", "?", "−0.1"], "note": ["", " x ", "∞"]}
    assert markdown_table(words) == markdown_table(pd.DataFrame(words))
    empty = {"step j": [], "hⱼ": []}
    assert markdown_table(empty) == markdown_table(pd.DataFrame(empty)) == "| step j | hⱼ |\n| --- | --- |"
