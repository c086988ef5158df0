"""The gates page's words: the lockstep titles, key and sentences, the step table's headers, the equations, the
valve's table and text, and the step sentence."""
import numpy as np

from rnnviz.lessons import gates as lesson
from rnnviz.lessons.vector import encode_word
from rnnviz.text import fmt
from ui.lessons import gates as words
from ui.lessons.gates import CONTROLS

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


def _drawn_colour(trace: dict, z: float) -> np.ndarray:
    """The RGB a heatmap paints for the value z, read off the trace's own colour scale as sent."""
    pos = (z - trace["zmin"]) / (trace["zmax"] - trace["zmin"])
    stops = [(p, np.array([int(c[i:i + 2], 16) for i in (1, 3, 5)], float)) for p, c in trace["colorscale"]]
    for (p0, c0), (p1, c1) in zip(stops, stops[1:]):
        if p0 <= pos <= p1:
            return c0 + (c1 - c0) * ((pos - p0) / (p1 - p0) if p1 > p0 else 0)
    raise AssertionError(f"{z} is off the scale")


def test_lockstep_key_names_the_colours_drawn():
    """The key's words against the colours the lockstep chart paints: its most negative state purple, its most
    positive dark grey, its most open gate amber, a shut one near white."""
    from rnnviz.figures import gates as figures

    ls = lesson.lockstep(X, 4, seed=1, radius=2.0)
    fig = figures.lockstep_heatmaps(ls.traces, ls.sizes, ls.params).to_dict()
    drawn = {"state": [], "gate": []}  # (value, colour) of every cell painted
    for trace in fig["data"]:
        for z_row, c_row in zip(trace["z"], trace["customdata"]):
            for z, (value, name) in zip(z_row, c_row):
                if name:
                    kind = "gate" if name.split()[0] in ("f", "i", "o", "r", "z") else "state"
                    drawn[kind].append((float(value), _drawn_colour(trace, z)))
    lowest, highest = min(drawn["state"], key=lambda d: d[0]), max(drawn["state"], key=lambda d: d[0])
    shut, open_ = min(drawn["gate"], key=lambda d: d[0]), max(drawn["gate"], key=lambda d: d[0])
    assert lowest[0] < -0.5 and highest[0] > 0.5 and shut[0] < 0.2 and open_[0] > 0.8  # the chart spans them
    r, g, b = lowest[1]
    assert min(r, b) > g + 40  # purple: red and blue over green
    r, g, b = highest[1]
    assert max(r, g, b) - min(r, g, b) < 20 and r < 160  # a dark grey
    r, g, b = open_[1]
    assert r > g + 30 > b + 60  # amber: red over green over blue
    assert sum(shut[1]) > sum(open_[1]) + 150  # the more shut, the lighter
    assert min(_drawn_colour(fig["data"][0], 0.0)) > 200  # a gate at exactly 0 (drawn as z = its value): near white
    key = words.LOCKSTEP_KEY
    assert "purple below zero" in key and "dark grey above" in key and "amber 1 open" in key and "white 0 shut" in key
    assert "red" not in key and "blue" not in key


def test_step_table_has_real_subscripts():
    tr = lesson.run("lstm", X, lesson.generate("lstm", 4, 3, 0, 0.9, 1.0))
    tab = words.step_table(lesson.step_values("lstm", tr, 2))
    assert "$c_{t-1}$" in tab.columns and "$f_t \\odot c_{t-1}$" in tab.columns
    np.testing.assert_allclose(tab["$c_{t-1}$"], np.round(tr.c[0], 4))
    assert not any("_" in c and "$" not in c for c in tab.columns)
    gates, update = words.step_tables(lesson.step_values("lstm", tr, 2))  # in two: each fits a projector's column
    assert list(gates.columns) == ["$f_t$", "$i_t$", "$g_t$", "$o_t$"] and update.columns[0] == "$c_{t-1}$"
    assert update.columns[-1] == "$h_t$" and list(gates.index) == list(update.index) == ["unit 1", "unit 2", "unit 3"]
    gru_run = lesson.run("gru", X, lesson.generate("gru", 4, 3, 0, 0.9, 1.0))
    gru = words.step_tables(lesson.step_values("gru", gru_run, 2))
    assert list(gru[0].columns) == ["$r_t$", "$z_t$", "$n_t$"] and list(gru[1].columns)[::3] == ["$h_{t-1}$", "$h_t$"]
    [alone] = words.step_tables({"h_prev": np.zeros(2), "h": np.ones(2)})  # no gates: one table, not an empty one
    assert list(alone.columns) == ["$h_{t-1}$", "$h_t$"]


def test_gru_equations_one_per_line():
    lines = words.EQUATIONS["gru"].split("\\\\")
    assert len(lines) == 4 and max(len(s.strip()) for s in lines) < 90


def test_valve_table_rows():
    v = lesson.valve_experiment(400)
    tab = words.valve_table(v)
    assert list(tab.index) == [1, 10, 400] and list(tab["LSTM cell state cₜ"]) == ["0.7616"] * 3
    assert list(tab["vanilla hₜ"]) == ["0.7616", "0.00140", "5.55\u00a0×\u00a010⁻¹²¹"]  # was 1.40e-03, 5.55e-121
    assert "0.9999999979" in words.valve_text(v) and "then 2.06 × 10⁻⁹" in words.valve_text(v)


def test_the_valve_table_has_three_rows_at_every_notch_of_steps():
    """A drag of Steps writes each notch's table over the page's, cell for cell: at the least T (10) it had two rows,
    and greyed there. Now the middle row is t = 5 there, its numbers the run's own."""
    short = lesson.valve_experiment(10)
    tab = words.valve_table(short)
    assert list(tab.index) == [1, 5, 10]
    assert tab["vanilla hₜ"][5] == fmt(short.rnn.h[4, 0], 4).replace(" ", "\u00a0")
    lo, hi, step = CONTROLS["T"].span
    assert all(len(words.valve_table(lesson.valve_experiment(T))) == 3 for T in (lo, lo + step, hi))


def test_the_forget_bias_caption_never_rounds_the_gate_to_0_or_1():
    """σ(b_f) maps into (0, 1): three fixed decimals wrote σ(−10) as 0.000 and σ(10) as 1.000."""
    from ui.lessons.gates import forget_caption

    assert "σ(-10) = **4.54 × 10⁻⁵**" in forget_caption(-10) and "σ(10) = **0.9999546**" in forget_caption(10)
    assert "σ(1) = **0.731**" in forget_caption(1)


def test_untrained_cells_where_the_lstm_keeps_least_say_nothing_is_learned():
    """A newcomer's walk: the page's default (untrained, seed 0, b_f = 1) concluded 'Kept longest: the vanilla RNN;
    the least: the LSTM' with no word, on a page about the LSTM's memory. It now says the weights decide it."""
    from rnnviz.lessons import memory
    from ui.lessons import gates_memory as memory_words

    ls = lesson.lockstep(X, 3, seed=0, radius=0.9, forget_bias=1.0)  # the view's defaults on "hello"
    mem = memory.memory(ls)
    text = memory_words.memory_text(mem, ls)
    assert "the least: the LSTM" in text and "Nothing here is learned" in text
    trained = memory.Memory(mem.norms, True)
    assert "Nothing here is learned" not in memory_words.memory_text(trained, ls)
