"""Using-the-states lessons: parsing the lengths, the padding demo and what it says, the calculator's heads."""
import numpy as np
import pytest

from rnnviz.lessons import states as lesson
from rnnviz.nn.params import classifier_params, lm_params
from rnnviz.text import InputError


@pytest.mark.parametrize("text,expected", [("5, 3, 2", [5, 3, 2]), ("5 3 2", [5, 3, 2]), (" 7 ", [7]),
                                           ("1,30", [1, 30]), ("4,,4", [4, 4])])
def test_parse_lengths(text, expected):
    assert lesson.parse_lengths(text) == expected


@pytest.mark.parametrize("text,message", [("4, x", "whole numbers"), ("2.5", "whole numbers"), ("", "1 to 8"),
                                          ("0, 3", "1 to 30"), ("31", "1 to 30"), ("1 " * 9, "1 to 8")])
def test_parse_lengths_refuses(text, message):
    with pytest.raises(InputError, match=message):
        lesson.parse_lengths(text)


def test_padding_demo_numbers():
    d = lesson.padding_demo([5, 3, 2])
    assert d.diff[0] == 0 and (d.diff[1:] > 0.3).all()
    np.testing.assert_allclose(d.at_length[1], d.states[1, 2])  # index length - 1
    np.testing.assert_allclose(d.last_index, d.states[:, -1])  # index T - 1: after the padding
    left = np.abs(d.left_padded - d.at_length).max()
    assert 0.01 < left < d.diff.max()  # padding first is close, not exact


def test_padding_text_says_what_the_numbers_show():
    d = lesson.padding_demo([5, 3, 2])
    text = lesson.padding_text(d)
    left = np.abs(d.left_padded - d.at_length).max()
    assert f"only comes close (within **{left:.3f}**)" in text and f"off by up to **{d.diff.max():.3f}**" in text
    assert "agree" not in text.split("A third")[1]
    assert "h₀ = 0" in text and "h_0" not in text and "h0" not in text  # a real subscript on the projector
    assert "nothing is padded" in lesson.padding_text(lesson.padding_demo([4, 4]))
    exact = lesson.padding_demo([5, 3])
    exact.left_padded = exact.at_length.copy()  # were padding first exact, the page would say so
    assert "agrees with them here" in lesson.padding_text(exact)


def test_padding_table():
    d = lesson.padding_demo([5, 3, 2])
    tab = lesson.padding_table(d)
    assert list(tab.index) == ["example 1", "example 2", "example 3"] and "packed (PyTorch)" not in tab.columns
    assert list(tab["length"]) == [5, 3, 2]
    np.testing.assert_allclose(tab["$h_{\\mathrm{length}-1}$"], np.round(d.at_length[:, 0], 4))


def test_padding_packed_by_torch():
    pytest.importorskip("torch")
    d = lesson.padding_demo([5, 3, 2], with_torch=True)
    assert np.abs(d.packed - d.at_length).max() < 1e-12
    assert "packed (PyTorch)" in lesson.padding_table(d).columns


def test_each_head_has_its_own_output_size():
    D = lesson.CALC_DEFAULTS
    assert D["V"] == 37_580 and D["K"] == 4 and D["emb"] == 0
    assert lesson.calculate("lm", "rnn", 256, 512, V=37_580) == lm_params("rnn", 37_580, 256, 512)
    assert lesson.calculate("classifier", "gru", 100, 128, V=37_580, K=4) == classifier_params("gru", 100, 128, 4)
    assert lesson.calculate(**{k: v for k, v in lesson.CALC_PRESETS["gru"].items()})["total"] == 88_836


def test_formula_uses_the_gate_table():
    assert "3 × (H·d + H·H + 2H): 3 gate blocks" in lesson.formula_text("gru", "lm")
    assert "1 gate block," in lesson.formula_text("rnn", "classifier") and "C: the number of classes" in \
        lesson.formula_text("rnn", "classifier")


def test_heads_demo_shapes():
    h = lesson.heads_demo()
    assert h.classifier.shape == (2, 3) and h.lm.shape == (2, 5, 6)
    np.testing.assert_allclose(h.lm.sum(axis=-1), 1)
    assert "**|V| = 6** tokens" in lesson.heads_text(h)
