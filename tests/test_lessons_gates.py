"""Gated-cell lessons' numbers: three cells in lockstep against torch, matched parameter counts, the valve, and the
figures' projector sizes (the words: test_ui_lessons_gates.py)."""
import numpy as np
import pytest

from rnnviz.figures import gates as figures
from rnnviz.lessons import gates as lesson
from rnnviz.lessons.vector import encode_word
from rnnviz.nn.cells import GATES
from rnnviz.nn.params import cell_params

X = encode_word("hello", list("helo"))  # (5, 4)


def test_matched_size_is_the_closest_count():
    for cell in ("rnn", "gru", "lstm"):
        for d, budget in ((4, 108), (4, 1_000), (50, 12_345), (1, 3)):
            H = lesson.matched_size(cell, d, budget)
            best = min(abs(cell_params(cell, d, h) - budget) for h in range(1, 400))
            assert abs(cell_params(cell, d, H) - budget) == best
            assert all(abs(cell_params(cell, d, h) - budget) > best for h in range(1, H))  # the smaller on a tie


def test_lockstep_sizes_and_counts():
    ls = lesson.lockstep(X, 3)
    assert ls.sizes == {"rnn": 8, "lstm": 3, "gru": 4}
    assert ls.params == {"rnn": 112, "lstm": 108, "gru": 120} and ls.budget == 108
    assert all(tr.h.shape == (5, ls.sizes[c]) for c, tr in ls.traces.items())


@pytest.mark.parametrize("H,radius,bf", [(3, 0.9, 1.0), (7, 1.5, -2.0), (1, None, 0.0)])
def test_each_lockstep_cell_equals_torch(H, radius, bf):
    torch = pytest.importorskip("torch")
    modules = {"rnn": torch.nn.RNN, "lstm": torch.nn.LSTM, "gru": torch.nn.GRU}
    ls = lesson.lockstep(X, H, seed=3, radius=radius, forget_bias=bf)
    for cell, tr in ls.traces.items():
        w = ls.weights[cell]
        m = modules[cell](4, ls.sizes[cell], batch_first=True).double()
        with torch.no_grad():  # copied by hand here, not through torch_cell, so the helper is checked too
            for name, key in (("weight_ih_l0", "W_ih"), ("weight_hh_l0", "W_hh"), ("bias_ih_l0", "b_ih"),
                              ("bias_hh_l0", "b_hh")):
                getattr(m, name).copy_(torch.from_numpy(w[key]))
            out, last = m(torch.from_numpy(X)[None])
        np.testing.assert_allclose(tr.h, out[0].numpy(), atol=1e-12)
        if cell == "lstm":
            np.testing.assert_allclose(tr.c[-1], last[1][0, 0].numpy(), atol=1e-12)
        assert ls.params[cell] == sum(p.numel() for p in m.parameters())
    res = lesson.lockstep_torch(ls)
    assert all(d < 1e-12 and n == ls.params[c] for c, (d, n) in res.items())


def test_one_gate_table():
    assert lesson.shape_summary("gru", 4, 3)["G"] == GATES["gru"] == 3
    assert lesson.shape_summary("lstm", 4, 3)["stacked"] == (12, 7)
    assert lesson.shape_summary("lstm", 4, 3)["params"] == 108


def test_valve_figure_thins_points_but_keeps_exact_values():
    v = lesson.valve_experiment(2000)
    fig = figures.valve_figure(v)
    c, h = fig.data[0], fig.data[2]
    assert len(c.x) <= 200 and c.x[-1] == 2000 and list(c.x[:30]) == list(range(1, 31))
    np.testing.assert_array_equal(h.y, v.rnn.h[np.asarray(h.x) - 1, 0])


def outlines(fig) -> list:
    """The current step's outlines: the shapes other than the white covers over the steps not reached."""
    return [s for s in fig.layout.shapes if s.name != "not reached"]


@pytest.mark.parametrize("fs", [1.0, 1.45])
def test_heatmaps_one_panel_and_numbers_scale(fs):
    tr = lesson.run("lstm", X, lesson.generate("lstm", 4, 3, 0, 0.9, 1.0))
    fig = figures.gate_heatmaps(tr, lesson.panels("lstm"), list("hello"), 1, fs)
    axes = [k for k in fig.to_plotly_json()["layout"] if k.startswith(("xaxis", "yaxis"))]
    assert sorted(axes) == ["xaxis", "yaxis"]  # one panel: a step redraws one set of axes, not six
    assert len(fig.data) == 1 and fig.data[0].textfont.size == 12 * fs and fig.layout.xaxis.tickfont.size == 12 * fs
    tr_c = fig.data[0].customdata[4 * 4][1]  # the cell state c, unit 1, t = 2 (rows: 4 per gate with the gap)
    assert tr_c[0] == tr.c[1, 0] and fig.data[0].text[16][1] == f"{tr.c[1, 0]:.2f}"  # printed at the current step
    assert fig.data[0].text[16][2] == ""  # and only there
    assert len(outlines(fig)) == 1  # the current step, outlined once
    roles = {figures.COLORS[k] for k in ("input", "state", "weight", "output")}
    assert outlines(fig)[0].line.color not in roles  # a marker of time, not an output (red in the legend)
    ls = lesson.lockstep(X, 3)
    lf = figures.lockstep_heatmaps(ls.traces, ls.sizes, ls.params, list("hello"), 0, fs)
    assert len(lf.data) == 3 and lf.layout.xaxis3.domain[1] == pytest.approx(1)  # one trace per cell
    assert lf.data[0].text[0][0] == f"{ls.traces['rnn'].h[0, 0]:.2f}".replace("-", "−")  # true values, true minus
    rnn_rect = outlines(lf)[0]
    assert (rnn_rect.y0, rnn_rect.y1) == (-0.5, 7.5)  # around the RNN's own 8 rows


@pytest.mark.parametrize("cell", ["lstm", "gru"])
def test_split_heatmaps_put_gates_beside_states_at_half_the_height(cell):
    """Classroom mode: the gates in one panel, the states (candidate, cell, hidden) in the other, each value where
    the stacked chart has it, the current step outlined in both, and the chart no taller than a projector's room
    under the stepper (the stack was 690 px there)."""
    tr = lesson.run(cell, X, lesson.generate(cell, 4, 3, 0, 0.9, 1.0))
    names = lesson.panels(cell)
    split = figures.gate_heatmaps(tr, names, list("hello"), 3, 1.45, split=True)
    stack = figures.gate_heatmaps(tr, names, list("hello"), 3, 1.45)
    assert split.layout.height <= figures.SPLIT_MAX_HEIGHT < stack.layout.height
    gates = [n for n in names if figures.GATE_INFO[n][1] == "gate"]
    groups = [gates, [n for n in names if n not in gates]]
    for panel, group in zip(split.data, groups):
        for j, n in enumerate(group):
            for u in range(3):
                value, name = panel.customdata[4 * j + u][3]
                assert float(value) == getattr(tr, n)[3, u] and name == f"{n} unit {u + 1}"
                assert panel.text[4 * j + u][3] == f"{getattr(tr, n)[3, u]:.2f}".replace("-", "−")
    assert [s.xref for s in outlines(split)] == ["x", "x2"]
    assert {s.x0 for s in outlines(split)} == {2.5}
    assert split.data[0].textfont.size >= 14
    for word, digits in (("hellos", 1), ("hellothere", None)):  # narrower columns: one decimal, then colours only
        x = encode_word(word, list("helostr"))
        fig = figures.gate_heatmaps(lesson.run(cell, x, lesson.generate(cell, 7, 3, 0, 0.9, 1.0)), names, list(word),
                                    3, 1.45, split=True)
        shown = [row[3] for panel in fig.data for row in panel.text or () if row[3]]
        assert bool(fig.data[0].texttemplate) == (digits is not None)
        assert digits is None or all(len(s.split(".")[1]) == digits for s in shown), shown
    word = "thequickbrownfoxjumpsoverthelazydog"  # stacked, beside the settings at 1400 px: its numbers read '.82'
    x = encode_word(word, sorted(set(word)))
    fig = figures.gate_heatmaps(lesson.run(cell, x, lesson.generate(cell, x.shape[1], 3, 0, 0.9, 1.0)), names,
                                list(word), 3)
    assert not fig.data[0].texttemplate and figures.gate_heatmaps(tr, names, list("hello"), 3).data[0].texttemplate


def test_heatmaps_leave_later_steps_blank_and_say_their_colours():
    """The issue: gate heatmaps had no colour scale and coloured the steps after the current one."""
    from ui.lessons import gates as words

    tr = lesson.run("lstm", X, lesson.generate("lstm", 4, 3, 0, 0.9, 1.0))
    fig = figures.gate_heatmaps(tr, lesson.panels("lstm"), list("hello"), 1)
    cover = [s for s in fig.layout.shapes if s.name == "not reached"]  # steps 3.. covered in white, 1..2 coloured
    assert [(s.x0, s.x1, s.fillcolor, s.yref, s.y0, s.y1) for s in cover] == [(1.5, 4.5, "#FFFFFF", "y domain", 0, 1)]
    key = words.colour_key(lesson.panels("lstm"), tr, 2, 5)
    assert "0, white (closed), to 1, amber (open)" in key and "−1 purple" in key and "Steps 3 to 5 stay blank" in key
    assert f"c on ±{np.abs(tr.c).max():.2f}" in key or np.abs(tr.c).max() <= 1
