"""The states page's words: what the padding demo says and its table, how the parameter counts are made up."""
import numpy as np

from rnnviz.lessons import states as lesson
from rnnviz.text import fmt
from ui.lessons import states as words


def test_padding_text_says_what_the_numbers_show():
    d = lesson.padding_demo([5, 3, 2])
    text = words.padding_text(d)
    left = np.abs(d.left_padded - d.at_length).max()
    assert f"only comes close (within **{fmt(left)}**)" in text and f"off by up to **{fmt(d.diff.max())}**" in text
    assert "agree" not in text.split("A third")[1]
    assert "h₀ = 0" in text and "h_0" not in text and "h0" not in text  # a real subscript on the projector
    assert "nothing is padded" in words.padding_text(lesson.padding_demo([4, 4]))
    exact = lesson.padding_demo([5, 3])
    exact.left_padded = exact.at_length.copy()  # were padding first exact, the page would say so
    assert "agrees with them here" in words.padding_text(exact)


def test_padding_table():
    d = lesson.padding_demo([5, 3, 2])
    tab = words.padding_table(d)
    assert list(tab.index) == ["example 1", "example 2", "example 3"] and "packed (PyTorch)" not in tab.columns
    assert list(tab["length"]) == [5, 3, 2]
    np.testing.assert_allclose(tab["$h_{\\mathrm{length}-1}$"], np.round(d.at_length[:, 0], 4))


def test_formula_uses_the_gate_table():
    assert "3 × (H·d + H·H + 2H): 3 gate blocks" in words.formula_text("gru", "lm")
    assert "1 gate block," in words.formula_text("rnn", "classifier") and "C: the number of classes" in \
        words.formula_text("rnn", "classifier")


def test_the_classifier_table_writes_what_was_computed():
    d = lesson.heads_demo()
    tab = words.classifier_table(d)
    assert tab.iloc[0, 0] == fmt(d.classifier[0, 0]) and len(tab.iloc[0, 0]) == 5  # '0.305', not 0.3050
