"""The vector-cell lesson: parsing inputs, the six moves, and the hand-edited weight boxes."""
import numpy as np
import pytest

from rnnviz.lessons import vector as lesson
from rnnviz.text import InputError


def test_parse_vectors():
    np.testing.assert_array_equal(lesson.parse_vectors("1 0 0\n0, 1, 0; 0 0 1"), np.eye(3))
    assert lesson.parse_vectors("  2.5  \n\n -1 ").tolist() == [[2.5], [-1.0]]


@pytest.mark.parametrize("text,words", [("", "No input vectors"), ("1 2\n3", "different lengths"),
                                        ("1 x", "not a number"), ("1e999", "not finite"), ("101", "beyond"),
                                        ("1\n" * 201, "limit is 200"),
                                        (" ".join(["1"] * 65), "too long")])
def test_parse_vectors_refuses(text, words):
    with pytest.raises(InputError, match=words):
        lesson.parse_vectors(text)


def test_vocab_and_words():
    assert lesson.parse_vocab("hello") == ["h", "e", "l", "o"]
    np.testing.assert_array_equal(lesson.encode_word("hole", list("helo")), np.eye(4)[[0, 3, 2, 1]])
    with pytest.raises(InputError, match="'p'"):
        lesson.encode_word("help", list("helo"))
    with pytest.raises(InputError, match="empty"):
        lesson.parse_vocab("")


def test_moves_add_up_and_generate_is_seeded():
    w = lesson.generate(4, 3, 4, 0, 0.9)
    assert lesson.spectrum(w["W_h"])[0] == pytest.approx(0.9)
    np.testing.assert_array_equal(w["W_x"], lesson.generate(4, 3, 4, 0, 0.9)["W_x"])
    setup = lesson.VectorSetup(lesson.encode_word("hello", list("helo")), w["W_x"], w["W_h"], w["b"], w["W_y"],
                               w["b_y"], np.zeros(3))
    tr = lesson.run(setup)
    for t in range(1, 6):
        m = lesson.moves(setup, tr, t)
        np.testing.assert_allclose(m.z, m.read_input + m.read_memory + m.bias)
        np.testing.assert_allclose(m.h, np.tanh(m.z))
        np.testing.assert_allclose(m.read_memory, w["W_h"] @ m.h_prev)
        assert m.probs.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("most,scale", [(0.3, 1.0), (1.0, 1.0), (1.01, 1.5), (2.9, 3.0), (7.6, 10.0), (12.0, 15.0)])
def test_the_moves_scale_is_the_runs_largest_number_rounded_up(most, scale):
    from types import SimpleNamespace

    from rnnviz.lessons.vector import moves_scale

    small = np.full((5, 3), 0.1)
    trace = SimpleNamespace(x_part=small, h_part=small, pre=np.vstack([small[:4], [[0.1, -most, 0.1]]]))
    assert moves_scale(SimpleNamespace(b=np.zeros(3)), trace) == scale
