"""Gated-cell lessons: three cells in lockstep against torch, matched parameter counts, the step table, the
valve, and the figures' projector sizes."""
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
            for name, key in (("weight_ih_l0", "W_ih"), ("weight_hh_l0", "W_hh"), ("bias_ih_l0", "b_ih"), ("bias_hh_l0", "b_hh")):
                getattr(m, name).copy_(torch.from_numpy(w[key]))
            out, last = m(torch.from_numpy(X)[None])
        np.testing.assert_allclose(tr.h, out[0].numpy(), atol=1e-12)
        if cell == "lstm":
            np.testing.assert_allclose(tr.c[-1], last[1][0, 0].numpy(), atol=1e-12)
        assert ls.params[cell] == sum(p.numel() for p in m.parameters())
    res = lesson.lockstep_torch(ls)
    assert all(d < 1e-12 and n == ls.params[c] for c, (d, n) in res.items())


def test_lockstep_notes_read_step_t():
    ls = lesson.lockstep(X, 3)
    notes = lesson.lockstep_notes(ls, 2)
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
    fig = figures.lockstep_heatmaps(ls.traces, lesson.LOCKSTEP_PANELS, ls.sizes, ls.params).to_dict()
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
    key = lesson.LOCKSTEP_KEY
    assert "purple below zero" in key and "dark grey above" in key and "amber 1 open" in key and "white 0 shut" in key
    assert "red" not in key and "blue" not in key


def test_one_gate_table():
    assert lesson.shape_summary("gru", 4, 3)["G"] == GATES["gru"] == 3
    assert lesson.shape_summary("lstm", 4, 3)["stacked"] == (12, 7)
    assert "**12 × 7**" in lesson.shape_text("lstm", 4, 3) and "**108**" in lesson.shape_text("lstm", 4, 3)


def test_step_table_has_real_subscripts():
    tr = lesson.run("lstm", X, lesson.generate("lstm", 4, 3, 0, 0.9, 1.0))
    tab = lesson.step_table(lesson.step_values("lstm", tr, 2))
    assert "$c_{t-1}$" in tab.columns and "$f_t \\odot c_{t-1}$" in tab.columns
    np.testing.assert_allclose(tab["$c_{t-1}$"], np.round(tr.c[0], 4))
    assert not any("_" in c and "$" not in c for c in tab.columns)


def test_gru_equations_one_per_line():
    lines = lesson.EQUATIONS["gru"].split("\\\\")
    assert len(lines) == 4 and max(len(s.strip()) for s in lines) < 90


def test_valve_table_rows():
    v = lesson.valve_experiment(400)
    tab = lesson.valve_table(v)
    assert list(tab.index) == [1, 10, 400] and list(tab["LSTM cell state cₜ"]) == ["0.7616"] * 3
    assert tab["vanilla hₜ"].iloc[1] == "1.40e-03"
    assert "0.9999999979" in lesson.valve_text(v)


def test_valve_figure_thins_points_but_keeps_exact_values():
    v = lesson.valve_experiment(2000)
    fig = figures.valve_figure(v)
    c, h = fig.data[0], fig.data[2]
    assert len(c.x) <= 200 and c.x[-1] == 2000 and list(c.x[:30]) == list(range(1, 31))
    np.testing.assert_array_equal(h.y, v.rnn.h[np.asarray(h.x) - 1, 0])


@pytest.mark.parametrize("fs", [1.0, 1.45])
def test_heatmaps_one_panel_and_numbers_scale(fs):
    tr = lesson.run("lstm", X, lesson.generate("lstm", 4, 3, 0, 0.9, 1.0))
    fig = figures.gate_heatmaps(tr, lesson.PANELS["lstm"], list("hello"), 1, fs)
    axes = [k for k in fig.to_plotly_json()["layout"] if k.startswith(("xaxis", "yaxis"))]
    assert sorted(axes) == ["xaxis", "yaxis"]  # one panel: a step redraws one set of axes, not six
    assert len(fig.data) == 1 and fig.data[0].textfont.size == 12 * fs and fig.layout.xaxis.tickfont.size == 12 * fs
    tr_c = fig.data[0].customdata[4 * 4][2]  # the cell state c, unit 1, t = 3 (rows: 4 per gate with the gap)
    assert tr_c[0] == tr.c[2, 0] and fig.data[0].text[16][1] == f"{tr.c[1, 0]:.2f}"  # printed at the current step
    assert fig.data[0].text[16][2] == ""  # and only there
    assert len(fig.layout.shapes) == 1  # the current step, outlined once
    roles = {figures.COLORS[k] for k in ("input", "state", "weight", "output")}
    assert fig.layout.shapes[0].line.color not in roles  # a marker of time, not an output (red in the legend)
    ls = lesson.lockstep(X, 3)
    lf = figures.lockstep_heatmaps(ls.traces, lesson.LOCKSTEP_PANELS, ls.sizes, ls.params, list("hello"), 0, fs)
    assert len(lf.data) == 3 and lf.layout.xaxis3.domain[1] == pytest.approx(1)  # one trace per cell
    assert lf.data[0].text[0][0] == f"{ls.traces['rnn'].h[0, 0]:.2f}"  # true values printed
    rnn_rect = lf.layout.shapes[0]
    assert (rnn_rect.y0, rnn_rect.y1) == (-0.5, 7.5)  # around the RNN's own 8 rows
