"""The vector page's words and edit boxes: the six moves' table, the weights as their boxes show and parse them, the
notes beside them."""
import numpy as np
import pytest

from rnnviz.lessons import vector as lesson
from rnnviz.text import InputError
from ui.lessons import vector as words


def test_step_table_and_pass_on_text():
    w = lesson.generate(4, 3, 4, 0, 0.9)
    setup = lesson.VectorSetup(lesson.encode_word("hel", list("helo")), w["W_x"], w["W_h"], w["b"], w["W_y"], w["b_y"],
                               np.zeros(3), list("hel"))
    m = lesson.moves(setup, lesson.run(setup), 2)
    table = words.step_table(m)
    assert list(table) == ["Wₓxₜ", "Wₕhₜ₋₁", "b", "z = sum", "hₜ = tanh(z)"]
    np.testing.assert_array_equal(table["hₜ = tanh(z)"], np.round(m.h, 4))
    best = int(np.argmax(m.probs))
    text = words.pass_on_text(2, 3, m.probs, list("helo"))
    assert text.startswith("⑥ **Pass it on**: h₂ becomes the memory hₜ₋₁ that step 3 reads.")
    assert f"(p = {m.probs[best]:.3f})" in text
    assert "the next step, if there were one, reads" in words.pass_on_text(3, 3, m.probs, None)  # the typo


def test_grid_values_are_what_the_box_shows():
    a = words.grid_values(np.array([[0.36171, -0.05039], [np.nan, 1e9], [-np.inf, 2.0004]]))
    np.testing.assert_array_equal(a, [[0.362, -0.05], [0.0, 10.0], [-10.0, 2.0]])
    assert np.array_equal(a, words.grid_values(a))  # showing it again changes nothing


ROWS, COLS = ["h1", "h2", "h3"], ["'h'", "'e'", "'l'", "'o'"]


def test_format_and_parse_matrix_round_trip():
    w = lesson.generate(4, 3, 4, 0, 0.9)["W_x"]
    text = words.format_matrix(w)
    assert text.splitlines() == ["0.158 -0.266 -0.530 -0.558", "0.362  0.477  0.123  0.265",
                                 "0.050  0.502  0.365 -0.574"]  # one row a line, columns aligned
    a = words.parse_matrix(text, "Wₓ", ROWS, COLS)
    np.testing.assert_array_equal(a, words.grid_values(w))  # what is shown is what is used
    assert words.format_matrix(a) == text
    assert words.format_matrix(np.array([[-0.0001]])) == "0.000"  # no "-0.000"


def test_parse_matrix_reads_what_people_paste():
    a = words.parse_matrix("[[1, -2.5e-1, 3, 4],\n [1 2 3 4]; −1 2 .5 4.]", "Wₓ", ROWS, COLS)
    np.testing.assert_array_equal(a, [[1, -0.25, 3, 4], [1, 2, 3, 4], [-1, 2, 0.5, 4]])
    assert words.parse_matrix("0.12345\n\n-0.0005\n9.9999", "b", ROWS, ["b"]).ravel().tolist() == [0.123, -0.0, 10.0]


@pytest.mark.parametrize("text,message", [
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
def test_parse_matrix_refuses(text, message):
    with pytest.raises(InputError) as e:
        words.parse_matrix(text, "Wₓ", ROWS, COLS)
    assert message in str(e.value)


def test_parse_matrix_refuses_a_megabyte_by_its_length():
    with pytest.raises(InputError, match="1,000,000 characters"):
        words.parse_matrix("1 " * 500_000, "Wₓ", ROWS, COLS)


def test_parse_matrix_raises_nothing_but_input_errors_on_random_text():
    rng = np.random.default_rng(0)
    alphabet = list("0123456789 .,;-+eE\n\r\t[]x−∞") + ["nan", "inf", "1e999", "\u2028", "\x00"]
    for _ in range(3000):
        text = "".join(rng.choice(alphabet, rng.integers(0, 60)))
        try:
            a = words.parse_matrix(text, "Wₓ", ROWS, COLS)
        except InputError as e:
            assert str(e).startswith("Wₓ")
        else:
            assert a.shape == (3, 4) and np.all(np.abs(a) <= 10) and np.array_equal(a, np.round(a, 3))


def test_edit_caption():
    assert words.edit_caption(ROWS, COLS) == "rows h1, h2, h3 · columns 'h', 'e', 'l', 'o'"
    assert words.edit_caption(ROWS, ["b"]) == "rows h1, h2, h3 · one number a row"


def test_untrained_note():
    assert "Untrained" in words.untrained_note(7, False) and "seed 7" in words.untrained_note(7, False)
    assert "by hand" in words.untrained_note(7, True)
