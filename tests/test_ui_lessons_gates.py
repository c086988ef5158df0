"""The gates page's words: the lockstep titles, key and sentences, the step table's headers, the equations, the
valve's table and text, and the step sentence."""
import numpy as np

from rnnviz.lessons import gates as lesson
from rnnviz.lessons.vector import encode_word
from ui.lessons import gates as words

X = encode_word("hello", list("helo"))  # (5, 4)


def test_shape_text_and_step_sentence():
    assert "**12 × 7**" in words.shape_text("lstm", 4, 3) and "**108**" in words.shape_text("lstm", 4, 3)
    tr = lesson.run("lstm", X, lesson.generate("lstm", 4, 3, 0, 0.9, 1.0))
    vals = lesson.step_values("lstm", tr, 2)
    assert f"keep **{np.mean(vals['f']):.0%}** of cₜ₋₁" in words.step_sentence(vals)
    gru = lesson.step_values("gru", lesson.run("gru", X, lesson.generate("gru", 4, 3, 0, 0.9)), 2)
    assert f"**{1 - np.mean(gru['z']):.0%}** from the candidate nₜ" in words.step_sentence(gru)


def test_valve_is_kept_read_only():
    v = words.shared_valve(50)
    assert words.shared_valve(50) is v and not v.lstm.c.flags.writeable


def test_lockstep_notes_read_step_t():
    ls = lesson.lockstep(X, 3)
    notes = words.lockstep_notes(ls, 2)
    assert list(notes) == ["rnn", "lstm", "gru"]
    assert notes["gru"].startswith(f"‖h<sub>t</sub>‖ {np.linalg.norm(ls.traces['gru'].h[1]):.3f}")
    assert f"mean f<sub>t</sub> {ls.traces['lstm'].f[1].mean():.2f}" in notes["lstm"]
    assert "mean" not in notes["rnn"]  # no gates
    # two short lines: side by side at 1024 px, one line of four numbers ran into the GRU's title
    visible = lambda s: s.replace("<sub>", "").replace("</sub>", "")  # noqa: E731
    assert all(len(visible(line)) <= 32 for note in notes.values() for line in note.split("<br>"))
    assert notes["lstm"].count("<br>") == 1 and notes["lstm"].split("<br>")[1].startswith("mean f<sub>t</sub>")


def test_lockstep_key_names_the_colours_drawn():
    from rnnviz.figures.base import DIVERGING

    assert DIVERGING[0][1] == "#762A83" and "purple below zero" in words.LOCKSTEP_KEY
    assert "red" not in words.LOCKSTEP_KEY and "blue" not in words.LOCKSTEP_KEY


def test_step_table_has_real_subscripts():
    tr = lesson.run("lstm", X, lesson.generate("lstm", 4, 3, 0, 0.9, 1.0))
    tab = words.step_table(lesson.step_values("lstm", tr, 2))
    assert "$c_{t-1}$" in tab.columns and "$f_t \\odot c_{t-1}$" in tab.columns
    np.testing.assert_allclose(tab["$c_{t-1}$"], np.round(tr.c[0], 4))
    assert not any("_" in c and "$" not in c for c in tab.columns)


def test_gru_equations_one_per_line():
    lines = words.EQUATIONS["gru"].split("\\\\")
    assert len(lines) == 4 and max(len(s.strip()) for s in lines) < 90


def test_valve_table_rows():
    v = lesson.valve_experiment(400)
    tab = words.valve_table(v)
    assert list(tab.index) == [1, 10, 400] and list(tab["LSTM cell state cₜ"]) == ["0.7616"] * 3
    assert tab["vanilla hₜ"].iloc[1] == "1.40e-03"
    assert "0.9999999979" in words.valve_text(v)
