"""Using-the-states lessons' numbers: parsing the lengths, the padding demo against torch's packed sequences, the
calculator's heads (the words: test_ui_lessons_states.py)."""
import numpy as np
import pytest

from rnnviz.lessons import states as lesson
from rnnviz.nn.params import classifier_params, lm_params
from rnnviz.text import InputError
from ui.lessons import states as words


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


def test_padding_packed_by_torch():
    pytest.importorskip("torch")
    d = lesson.padding_demo([5, 3, 2], with_torch=True)
    assert np.abs(d.packed - d.at_length).max() < 1e-12
    assert "packed (PyTorch)" in words.padding_table(d).columns


def test_each_head_has_its_own_output_size():
    D = words.CALC_DEFAULTS  # the calculator's settings, each head's own
    assert D["V"] == 37_580 and D["K"] == 4 and D["emb"] == 0
    assert lesson.calculate("lm", "rnn", 256, 512, V=37_580) == lm_params("rnn", 37_580, 256, 512)
    assert lesson.calculate("classifier", "gru", 100, 128, V=37_580, K=4) == classifier_params("gru", 100, 128, 4)
    assert lesson.calculate(**{k: v for k, v in words.CALC_PRESETS["gru"].items()})["total"] == 88_836


def test_heads_demo_shapes():
    h = lesson.heads_demo()
    assert h.classifier.shape == (2, 3) and h.lm.shape == (2, 5, 6)
    np.testing.assert_allclose(h.lm.sum(axis=-1), 1)
    assert "**|V| = 6** tokens" in words.heads_text(h)
