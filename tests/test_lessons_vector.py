"""The vector-cell lesson: parsing inputs, the six moves, edit grids and the editor states they accept."""
import numpy as np
import pytest

from rnnviz.lessons import vector as lesson
from rnnviz.lessons.scalar import InputError


def test_parse_vectors():
    np.testing.assert_array_equal(lesson.parse_vectors("1 0 0\n0, 1, 0; 0 0 1"), np.eye(3))
    assert lesson.parse_vectors("  2.5  \n\n -1 ").tolist() == [[2.5], [-1.0]]


@pytest.mark.parametrize("text,words", [("", "No input vectors"), ("1 2\n3", "different lengths"), ("1 x", "not a number"),
                                        ("1e999", "not finite"), ("101", "beyond"), ("1\n" * 201, "limit is 200"),
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
    table = lesson.step_table(lesson.moves(setup, tr, 2))
    assert list(table) == ["Wₓxₜ", "Wₕhₜ₋₁", "b", "z = sum", "hₜ = tanh(z)"]


def test_grid_values_are_what_the_grid_shows():
    a = lesson.grid_values(np.array([[0.36171, -0.05039], [np.nan, 1e9], [-np.inf, 2.0004]]))
    np.testing.assert_array_equal(a, [[0.362, -0.05], [0.0, 10.0], [-10.0, 2.0]])
    assert np.array_equal(a, lesson.grid_values(a))  # showing it again changes nothing


COLS = ["h", "e", "l", "o"]


@pytest.mark.parametrize("state,ok", [
    ({"edited_rows": {}, "added_rows": [], "deleted_rows": []}, True),
    ({"edited_rows": {0: {"h": 0.5, "o": None}, 2: {"l": -3}}}, True),
    ({"edited_rows": {3: {"h": 0.5}}}, False),
    ({"edited_rows": {-1: {"h": 0.5}}}, False),
    ({"edited_rows": {True: {"h": 0.5}}}, False),
    ({"edited_rows": {0: {"x": 0.5}}}, False),
    ({"edited_rows": {0: {"h": "0.5"}}}, False),
    ({"edited_rows": {0: {"h": True}}}, False),
    ({"edited_rows": {0: {"h": float("nan")}}}, False),
    ({"edited_rows": {0: {"h": 1e7}}}, False),
    ({"edited_rows": {0: [1, 2]}}, False),
    ({"edited_rows": {}, "added_rows": [{"h": 1}]}, False),
    ({"edited_rows": {}, "deleted_rows": [1]}, False),
    ({"edited_rows": {}, "something": 1}, False),
    ({"edited_rows": {0: {"h": 1}, 1: {}, 2: {}, 5: {}}}, False),
    ("not a mapping", False), (None, False), (42, False),
])
def test_editor_state_ok(state, ok):
    assert lesson.editor_state_ok(state, 3, COLS) is ok


def test_editor_state_check_does_not_walk_a_million_added_rows():
    class Counting(list):
        reads = 0

        def __iter__(self):
            Counting.reads += 1
            return super().__iter__()

    rows = Counting([{"h": 1.0}] * 1_000_000)
    assert not lesson.editor_state_ok({"edited_rows": {}, "added_rows": rows, "deleted_rows": []}, 3, COLS)
    assert Counting.reads == 0  # refused on sight, not row by row


def test_untrained_note():
    assert "Untrained" in lesson.untrained_note(7, False) and "seed 7" in lesson.untrained_note(7, False)
    assert "by hand" in lesson.untrained_note(7, True)
