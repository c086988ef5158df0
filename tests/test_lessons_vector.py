"""The vector-cell lesson: parsing inputs, the six moves, and the hand-edited weight boxes."""
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


def test_grid_values_are_what_the_box_shows():
    a = lesson.grid_values(np.array([[0.36171, -0.05039], [np.nan, 1e9], [-np.inf, 2.0004]]))
    np.testing.assert_array_equal(a, [[0.362, -0.05], [0.0, 10.0], [-10.0, 2.0]])
    assert np.array_equal(a, lesson.grid_values(a))  # showing it again changes nothing


ROWS, COLS = ["h1", "h2", "h3"], ["'h'", "'e'", "'l'", "'o'"]


def test_format_and_parse_matrix_round_trip():
    w = lesson.generate(4, 3, 4, 0, 0.9)["W_x"]
    text = lesson.format_matrix(w)
    assert text.splitlines() == ["0.158 -0.266 -0.530 -0.558", "0.362  0.477  0.123  0.265",
                                 "0.050  0.502  0.365 -0.574"]  # one row a line, columns aligned
    a = lesson.parse_matrix(text, "Wₓ", ROWS, COLS)
    np.testing.assert_array_equal(a, lesson.grid_values(w))  # what is shown is what is used
    assert lesson.format_matrix(a) == text
    assert lesson.format_matrix(np.array([[-0.0001]])) == "0.000"  # no "-0.000"


def test_parse_matrix_reads_what_people_paste():
    a = lesson.parse_matrix("[[1, -2.5e-1, 3, 4],\n [1 2 3 4]; −1 2 .5 4.]", "Wₓ", ROWS, COLS)
    np.testing.assert_array_equal(a, [[1, -0.25, 3, 4], [1, 2, 3, 4], [-1, 2, 0.5, 4]])
    assert lesson.parse_matrix("0.12345\n\n-0.0005\n9.9999", "b", ROWS, ["b"]).ravel().tolist() == [0.123, -0.0, 10.0]


@pytest.mark.parametrize("text,words", [
    ("", "Wₓ: nothing typed; it needs 3, one line per row (h1, h2, h3)"),
    ("1 2 3 4", "Wₓ: 1 row typed; it needs 3"),
    ("1 2 3 4\n" * 4, "Wₓ: 4 rows typed; it needs 3"),
    ("1 2 3 4\n1 2 3\n1 2 3 4", "Wₓ: row h2 has 3 numbers; it needs 4, one per column ('h', 'e', 'l', 'o')"),
    ("1 2 3 4 5\n" * 3, "row h1 has 5 numbers"),
    ("1 2 3 4\n1 2 x 4\n1 2 3 4", "Wₓ, row h2, column 'l': 'x' is not a number"),
    ("1 2 3 4\n1 2 3 4\n1 2 3 0x1F", "row h3, column 'o': '0x1F' is not a number"),
    ("1 2 3 1_0\n" * 3, "'1_0' is not a number"),
    ("nan 2 3 4\n" * 3, "'nan' is not a finite number"),
    ("-inf 2 3 4\n" * 3, "'-inf' is not a finite number"),
    ("1e400 2 3 4\n" * 3, "1e400 is beyond ±10; weights here stay within −10 … 10"),
    ("10.001 2 3 4\n" * 3, "10.001 is beyond ±10"),
    ("1" * 5000, "5,000 characters is more than a 3 × 4 matrix needs (at most 4,000)"),
    ("1 2 3 " + "9" * 3000 + "\n1 2 3 4\n1 2 3 4", "row h1, column 'o': 999999999999… is beyond ±10"),
    (None, "Wₓ: the edit was not text"), (1.5, "not text"), (["1 2 3 4"] * 3, "not text"),
])
def test_parse_matrix_refuses(text, words):
    with pytest.raises(InputError) as e:
        lesson.parse_matrix(text, "Wₓ", ROWS, COLS)
    assert words in str(e.value)


def test_parse_matrix_refuses_a_megabyte_by_its_length():
    with pytest.raises(InputError, match="1,000,000 characters"):
        lesson.parse_matrix("1 " * 500_000, "Wₓ", ROWS, COLS)


def test_parse_matrix_raises_nothing_but_input_errors_on_random_text():
    rng = np.random.default_rng(0)
    alphabet = list("0123456789 .,;-+eE\n\r\t[]x−∞") + ["nan", "inf", "1e999", "\u2028", "\x00"]
    for _ in range(3000):
        text = "".join(rng.choice(alphabet, rng.integers(0, 60)))
        try:
            a = lesson.parse_matrix(text, "Wₓ", ROWS, COLS)
        except InputError as e:
            assert str(e).startswith("Wₓ")
        else:
            assert a.shape == (3, 4) and np.all(np.abs(a) <= 10) and np.array_equal(a, np.round(a, 3))


def test_edit_caption():
    assert lesson.edit_caption(ROWS, COLS) == "rows h1, h2, h3 · columns 'h', 'e', 'l', 'o'"
    assert lesson.edit_caption(ROWS, ["b"]) == "rows h1, h2, h3 · one number a row"


def test_untrained_note():
    assert "Untrained" in lesson.untrained_note(7, False) and "seed 7" in lesson.untrained_note(7, False)
    assert "by hand" in lesson.untrained_note(7, True)
