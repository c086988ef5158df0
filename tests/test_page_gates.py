"""The gates page: LSTM and GRU stepping, the forget-bias trick, shapes, three cells in lockstep, the valve."""
import sys

import numpy as np
import pytest

from rnnviz.text import fmt
from tests.conftest import all_text, charts, long_only, shown_number, tables
from tests.helpers import code_of

P = "gates"


def table_with(at, header: str):
    return next(t for t in tables(at) if header in list(t.columns))


def url(at) -> dict:
    return {k: at.query_params[k][0] if isinstance(at.query_params[k], list) else at.query_params[k]
            for k in at.query_params}


def open_numbers(at):
    """Open the box with this step's numbers (drawn only while open)."""
    at.session_state[f"{P}.numbers"] = True
    return at.run()


def chart_specs(at) -> dict:
    return {c.key: c.figure for c in charts(at)}


def test_defaults_lstm(open_page):
    at = open_page(P)
    assert not at.exception
    text = all_text(at)
    assert "σ(1) = **0.731**" in text  # the notes' forget-bias number
    assert "**12 × 7**" in text and "**108**" in text  # 4H x (H + d) for H = 3, d = 4; torch's parameter count
    assert "*Untrained:* the weights are random (seed 0)" in text
    assert "$\\odot$ multiplies entry by entry" in text and "$f$ forget" in text  # every symbol explained
    assert "forget gates keep **74%** of cₜ₋₁" in text  # the step's gates in words
    assert not any("$f_t$" in t.columns for t in tables(at))  # numbers box closed: not drawn
    step = table_with(open_numbers(at), "$f_t$")
    assert list(step.columns[:4]) == ["$f_t$", "$i_t$", "$g_t$", "$o_t$"]  # real subscripts, not f_t
    assert "**Step 1 of 5**, reading the character 'h'" in text


def test_next_moves_the_step_and_the_link(open_page):
    from rnnviz.lessons.gates import generate, run
    from rnnviz.lessons.vector import encode_word

    at = open_numbers(open_page(P))
    at.button(key=f"{P}.next").click().run()
    assert not at.exception and "**Step 2 of 5**, reading the character 'e'" in all_text(at)
    tr = run("lstm", encode_word("hello", list("helo")), generate("lstm", 4, 3, 0, 0.9, 1.0))
    assert list(table_with(at, "$h_t$")["$h_t$"]) == [f"{v:.4f}" for v in tr.h[1]]  # the table is step 2's
    assert url(at).get("t") == "2"


def test_export_script_built_when_opened(open_page):
    at = open_page(P, H="2")
    code = code_of(at, P)  # nothing built or sent until the box is opened
    assert "torch.nn.LSTM(input_size=4, hidden_size=2" in code and at.get("download_button")


def test_valve_keeps_first_input_for_400_steps(open_page):
    at = open_page(P)
    tab = table_with(at, "LSTM cell state cₜ")
    assert list(tab["t"]) == ["1", "10", "400"]  # one row per time: the t = 400 row cannot be squeezed out
    assert list(tab["LSTM cell state cₜ"]) == ["0.7616", "0.7616", "0.7616"]
    assert shown_number(tab["vanilla hₜ"].iloc[-1]) < 1e-100  # the vanilla unit has lost it
    at.slider(key=f"{P}.T").set_value(1000).run()
    assert list(table_with(at, "LSTM cell state cₜ")["t"]) == ["1", "10", "1000"] and url(at).get("valveT") == "1000"


def test_gru_and_forget_bias(open_page):
    at = open_page(P)
    at.segmented_control(key=f"{P}.cell").set_value("gru").run()
    assert not at.exception
    assert list(table_with(open_numbers(at), "$r_t$").columns[:3]) == ["$r_t$", "$z_t$", "$n_t$"]
    assert "**9 × 7**" in all_text(at)
    eq = next(l.value for l in at.latex if "r_t" in l.value)
    lines = eq.split("\\\\")
    assert len(lines) == 4 and max(len(s.strip()) for s in lines) < 90  # one equation a line: nothing cut at 1400 px
    assert "update gates keep" in all_text(at)
    at.segmented_control(key=f"{P}.cell").set_value("lstm").run()
    at.slider(key=f"{P}.bf").set_value(2.0).run()
    assert "σ(2) = **0.881**" in all_text(at)


HELLO = {"view": "lockstep", "word": "hello", "trained": "0"}  # the three cells untrained, on the cell view's input
# (the view's own default is the trained cells on the first-letter input: test_lockstep_opens_on_the_lesson)


def lockstep_titles(at) -> list[str]:
    spec = next(v for k, v in chart_specs(at).items() if "lockstep" in k)
    return [a["text"] for a in spec.get("figure", spec)["layout"]["annotations"]]


def test_lockstep_three_cells_with_matched_parameters(open_page):
    from rnnviz.lessons.gates import lockstep
    from rnnviz.lessons.vector import encode_word

    at = open_page(P, **HELLO)
    assert not at.exception
    text = all_text(at)
    assert "**108** parameters" in text and "$H$ = 4 (**120**)" in text and "$H$ = 8 (**112**)" in text
    titles = lockstep_titles(at)
    assert [t.split("<br>")[1] for t in titles] == ["H = 8, 112 parameters", "H = 3, 108 parameters",
                                                   "H = 4, 120 parameters"]
    ls = lockstep(encode_word("hello", list("helo")), 3, 0, 0.9, 1.0)
    at.button(key=f"{P}.next").click().run()  # one Next moves all three
    assert "**Step 2 of 5**" in all_text(at)
    for title, (cell, tr) in zip(lockstep_titles(at), ls.traces.items()):
        assert f"‖h<sub>t</sub>‖ {np.linalg.norm(tr.h[1]):.3f}" in title, cell  # each summary is step 2's
    assert f"mean f<sub>t</sub> {ls.traces['lstm'].f[1].mean():.2f}" in lockstep_titles(at)[1]
    assert url(at).get("view") == "lockstep" and url(at).get("t") == "2"


def test_how_much_survives_is_written_as_every_other_number(open_page):
    """'vanilla RNN **2.1e-01**; LSTM **9.5e-03**' was Python's notation among the page's 0.731 and 10⁻⁶: the ends
    are written by rnnviz.text.fmt, and read back they are the chart's last points."""
    import re

    at = open_page(P, **HELLO)
    note = next(m.value for m in at.markdown if "cells, after 5 steps:" in m.value)
    ends = re.findall(r"\*\*([^*]+)\*\*", note.split("after 5 steps:")[1].split("Kept longest")[0])
    assert len(ends) == 3 and not any("e-" in e or "e+" in e for e in ends)
    spec = next(v for k, v in chart_specs(at).items() if "memory" in k)
    last = [tr["y"][-1] for tr in spec["data"][:3]]
    assert [shown_number(e) for e in ends] == pytest.approx(last, rel=5e-3)


def test_lockstep_agrees_with_torch(open_page):
    at = open_page(P, **HELLO, H="5")
    at.toggle(key=f"{P}.torch").set_value(True).run()
    cap = next(c.value for c in at.caption if "PyTorch on the same weights" in c.value)
    assert cap.count("(equal to ours)") == 3 and "NOT" not in cap
    assert all(float(part.split("agrees to ")[1].split(",")[0]) < 1e-12 for part in cap.split(";"))


def test_torch_check_without_torch(open_page, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` now fails, as on a server without it
    at = open_page(P, **HELLO, torch="1")
    assert not at.exception
    assert any("pip install torch" in i.value for i in at.info)
    assert "**108** parameters" in all_text(at)  # the page itself still works


def test_classroom_chart_numbers_are_projector_sized(open_page):
    for query in ({}, {"view": "lockstep"}):
        at = open_page(P, classroom="1", **query)
        for spec in chart_specs(at).values():
            spec = spec.get("figure", spec)
            for tr in spec["data"]:
                if "textfont" in tr:
                    assert tr["textfont"]["size"] >= 14
            for k, ax in spec["layout"].items():
                if k.startswith(("xaxis", "yaxis")):
                    assert ax["tickfont"]["size"] >= 14, k


@pytest.mark.parametrize("validated", [False, pytest.param(True, marks=long_only(
    "validating 1.7 million entries"))],
                         ids=["figures-unvalidated", "figures-validated"])
def test_extremes(open_page, request, validated):
    """The largest settings. Validating their figures (1.7 million list entries in the heatmaps) is three quarters
    of the test's time: the default run goes without (each figure's shape is validated once there anyway, its
    arrays of numbers left out: conftest.figure_shape), the long run with (default sizes are validated above)."""
    if not validated:
        request.getfixturevalue("unvalidated_figures")
    at = open_page(P)
    at.slider(key=f"{P}.H").set_value(64)
    at.slider(key=f"{P}.radius").set_value(3.0)
    at.slider(key=f"{P}.bf").set_value(-5.0)
    at.slider(key=f"{P}.T").set_value(2000)
    at.text_input(key=f"{P}.word").input("hello" * 40).run()
    assert not at.exception and "nan" not in all_text(at).lower()
    at.segmented_control(key=f"{P}.view").set_value("lockstep").run()
    assert not at.exception and "nan" not in all_text(at).lower()
    at.text_input(key=f"{P}.vocab").input("").run()
    assert not at.exception and any("empty" in e.value for e in at.error)


def test_memory_side_by_side_presets_and_trained_cells(open_page):
    from rnnviz.experiments import lag_results
    from rnnviz.lessons import memory
    from rnnviz.lessons.gates import lockstep
    from ui.lessons.gates_memory import MEMORY_PRESETS

    at = open_page(P, view="lockstep", trained="0")
    mem = next(v for k, v in chart_specs(at).items() if k.endswith(".memory"))
    assert len(mem["data"]) == 3 and mem["layout"]["yaxis"]["type"] == "log"
    at.button(key=f"{P}.mem_zeros").click().run()
    assert not at.exception and at.session_state[f"{P}.mode"] == "vectors"
    x = memory.one_then_zeros(65, 8)
    ls = lockstep(x, 3, 0, 0.9, 1.0)
    want = memory.memory(ls).norms
    drawn = [d for d in chart_specs(at)[f"{P}.memory"]["data"]]
    for d, c in zip(drawn, ("rnn", "lstm", "gru")):
        np.testing.assert_allclose(d["y"], np.maximum(want[c], 1e-300), rtol=1e-12)
    assert f"**{fmt(want['lstm'][-1])}**" in all_text(at) and "after 65 steps" in all_text(at)
    at.button(key=f"{P}.mem_first").click().run()
    assert at.text_input(key=f"{P}.word").value == MEMORY_PRESETS["first"]["sets"]["word"]
    if lag_results.WEIGHTS.exists():
        at.toggle(key=f"{P}.trained").set_value(True).run()
        assert not at.exception and not at.warning, [w.value for w in at.warning]
        assert "*Trained:*" in all_text(at) and "Trained cells, after 65 steps" in all_text(at)
        at.text_input(key=f"{P}.vocab").set_value("helo")
        at.text_input(key=f"{P}.word").set_value("hello").run()  # 4 wide: the trained cells cannot read it
        assert any("8 inputs per step" in w.value for w in at.warning) and "*Untrained:*" in all_text(at)


@pytest.mark.skipif(not __import__("rnnviz.experiments.lag_results").experiments.lag_results.WEIGHTS.exists(),
                    reason="no trained cells shipped")
def test_lockstep_opens_on_the_lesson(open_page):
    """Three cells side by side, by its button or a link naming only the view: the trained cells on the first-letter
    input, where the vanilla RNN loses x₁ and the LSTM and GRU keep it (it opened on untrained cells reading 'hello',
    where the vanilla RNN kept x₁ longest, three clicks from the lesson)."""
    from ui.lessons.gates_memory import MEMORY_PRESETS

    for at in (open_page(P, view="lockstep"),
               open_page(P).segmented_control(key=f"{P}.view").set_value("lockstep").run()):
        assert not at.exception and not at.warning, [w.value for w in at.warning]
        assert at.text_input(key=f"{P}.word").value == MEMORY_PRESETS["first"]["sets"]["word"]
        assert "Trained cells, after 65 steps" in all_text(at)
        ends = {tr["name"]: tr["y"][-1] for tr in chart_specs(at)[f"{P}.memory"]["data"][:3]}
        vanilla, lstm, gru = ends.values()
        assert vanilla < 1e-8 and lstm > 0.5 and gru > 0.5, ends
    kept = open_page(P, view="lockstep", word="hello", trained="0")  # what a link names stays
    assert kept.text_input(key=f"{P}.word").value == "hello" and "*Untrained:*" in all_text(kept)


@pytest.mark.skipif(not __import__("rnnviz.experiments.lag_results").experiments.lag_results.WEIGHTS.exists(),
                    reason="no trained cells shipped")
def test_on_a_projector_the_trained_lockstep_fits_under_its_stepper(open_page):
    """The trained cells (67, 32 and 37 units: over a hundred rows) drawn within LOCKSTEP_MAX_HEIGHT, so the
    stepper and all three panels share a 768 px screen (the chart was 828 px tall)."""
    from rnnviz.figures.gates import LOCKSTEP_MAX_HEIGHT

    at = open_page(P, view="lockstep", classroom="1")
    heat = [spec for key, spec in chart_specs(at).items() if "heatmap" in {d["type"] for d in spec["data"]}]
    assert heat and "Trained cells" in all_text(at)
    assert all(spec["layout"]["height"] <= LOCKSTEP_MAX_HEIGHT for spec in heat), [s["layout"]["height"] for s in heat]


def test_a_link_opens_this_steps_numbers(open_page):
    """The box with a step's numbers is in the link while open: a lecturer's link to step 3 with its products opens
    with them shown."""
    at = open_numbers(open_page(P, t="3"))
    assert at.query_params["numbers"] in ("1", ["1"]) and any("$f_t$" in t.columns for t in tables(at))
    shared = open_page(P, t="3", numbers="1")
    assert any("$f_t$" in t.columns for t in tables(shared)) and not shared.exception
    assert [t.to_dict() for t in tables(shared)] == [t.to_dict() for t in tables(at)]
    at.session_state[f"{P}.numbers"] = False
    assert "numbers" not in at.run().query_params


def test_on_a_projector_the_lockstep_says_what_the_class_question_asks(open_page):
    """The memory question's reveal (untrained cells of one H on 50 random inputs) can name another cell than the
    chart: the page says which cells the question asks of, and its answer at these settings."""
    from rnnviz.rooms.questions import gates_memory

    at = open_page(P, classroom="1", **HELLO)
    note = next(c.value for c in at.caption if "Asked of the class" in c.value)
    answer = gates_memory(3, 0, 0.9, 1.0)
    assert "H = 3" in note and "50 random inputs" in note and "**LSTM**" in note
    assert answer.options[int(answer.truth)] == "lstm"
    assert not [c for c in open_page(P, **HELLO).caption if "Asked of the class" in c.value]  # a laptop: no class
