"""The vector-cell page: six moves, heatmap, torch agreement, inputs, extremes, hand-edited weights."""
import numpy as np
import pandas as pd
import pytest

from rnnviz.lessons.vector import VectorSetup, encode_word, generate, moves, run
from tests.conftest import all_text, charts, tables

P = "vector"


def test_defaults_show_step_one_of_hello(open_page):
    at = open_page(P)
    assert not at.exception
    text = all_text(at)
    assert "Step 1 of 5" in text and "'h'" in text
    # the numbers table equals the package's own computation for the default setup
    w = generate(4, 3, 4, 0, 0.9)
    setup = VectorSetup(encode_word("hello", list("helo")), w["W_x"], w["W_h"], w["b"], w["W_y"], w["b_y"], np.zeros(3))
    m = moves(setup, run(setup), 1)
    shown = tables(at)[0]["hₜ = tanh(z)"].to_numpy(dtype=float)
    np.testing.assert_allclose(shown, m.h, atol=5e-5)  # shown to 4 decimals


def test_next_moves_a_step_and_torch_agrees(open_page):
    at = open_page(P)
    at.button(key=f"{P}.next").click().run()
    assert "Step 2 of 5" in all_text(at) and "'e'" in all_text(at)
    at.toggle(key=f"{P}.torch").set_value(True).run()
    msg = at.success[0].value
    assert "torch.nn.RNN" in msg
    assert float(msg.split("=")[-1].strip(". ")) < 1e-12


def test_typed_vectors_and_bad_vectors(open_page):
    at = open_page(P)
    at.radio(key=f"{P}.mode").set_value("vectors").run()
    at.text_area(key=f"{P}.vectors").input("1 2\n3 4\n5 6").run()
    assert not at.exception and "Step 1 of 3" in all_text(at)
    at.text_area(key=f"{P}.vectors").input("1 2\n3").run()
    assert not at.exception and any("different lengths" in e.value for e in at.error)
    at.text_area(key=f"{P}.vectors").input("1 x").run()
    assert any("not a number" in e.value for e in at.error)


def test_word_outside_vocabulary_is_explained(open_page):
    at = open_page(P)
    at.text_input(key=f"{P}.word").input("help").run()
    assert not at.exception and any("'p'" in e.value for e in at.error)


def test_extremes_and_edit_mode(open_page):
    at = open_page(P)
    at.slider(key=f"{P}.H").set_value(64)
    at.slider(key=f"{P}.radius").set_value(3.0)
    at.text_input(key=f"{P}.word").input("hello" * 40).run()
    assert not at.exception and "Step 1 of 200" in all_text(at)
    assert "nan" not in all_text(at).lower()
    at.radio(key=f"{P}.wmode").set_value("edit").run()
    assert not at.exception and any("up to size 16" in w.value for w in at.warning)


def test_link_sets_hidden_size_and_radius(open_page):
    at = open_page(P, H="5", rho="2.0", t="3")
    assert at.slider(key=f"{P}.H").value == 5 and at.slider(key=f"{P}.radius").value == 2.0
    assert "Step 3 of 5" in all_text(at)
    at = open_page(P, H="500")
    assert not at.exception and at.slider(key=f"{P}.H").value == 3 and any("`H`" in i.value for i in at.info)


# ---- "Edit by hand": the boxes show exactly the weights used, and no text or widget state breaks the page ----------

def boxes(at):
    return {t.key.split(".")[2]: t for t in at.text_area if t.key and t.key.startswith(f"{P}.edit.")}


def send_box_state(at, name: str, **value):
    """What a browser (or a hostile client) sends for an edit box: its widget state, normally string_value=text."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    ws = at._tree.get_widget_states()
    ws.widgets.append(WidgetState(id=boxes(at)[name].proto.id, **value))
    at._run(ws)
    return at


def step_numbers(at):
    return next(d.astype(float) for d in tables(at) if "hₜ = tanh(z)" in d.columns)  # as shown, 4 decimals


def test_edit_box_shows_exactly_the_weights_used(open_page):
    at = open_page(P, w="edit")
    assert not at.exception
    text = boxes(at)["W_x"].value
    assert text.splitlines()[0].split() == ["0.158", "-0.266", "-0.530", "-0.558"]  # 3 decimals, one row a line
    grid = np.array([line.split() for line in text.splitlines()], dtype=float)
    # step 1 reads 'h' (one-hot): W_x x_1 is the box's first column, to the digit
    np.testing.assert_array_equal(step_numbers(at)["Wₓxₜ"].to_numpy(), grid[:, 0])
    w = generate(4, 3, 4, 0, 0.9)
    np.testing.assert_allclose(grid, w["W_x"], atol=5e-4)  # rounded from the generated weights
    assert not np.array_equal(grid, w["W_x"])


def test_a_typed_number_is_used_as_shown(open_page):
    at = open_page(P, w="edit")
    boxes(at)["W_x"].input("0.12345, 0, 0, 0\n0 0 0 0\n0 0 0 −1.5").run()
    assert not at.exception and not at.error
    assert boxes(at)["W_x"].value == "0.123 0.000 0.000  0.000\n0.000 0.000 0.000  0.000\n0.000 0.000 0.000 -1.500"
    assert step_numbers(at)["Wₓxₜ"].tolist() == [0.123, 0.0, 0.0]  # kept to the 3 decimals the box shows
    at.text_input(key=f"{P}.word").input("ohhh").run()
    assert step_numbers(at)["Wₓxₜ"].tolist() == [0.0, 0.0, -1.5]  # 'o' reads the last column


CRAFTED = {
    "not-json": "{not json", "5000-digit-number": "1" * 5000, "a-list": "[]", "null": "null",
    "editor-state": '{"edited_rows": {"abc": {}}}', "empty": "", "two-rows": "1 2 3 4\n1 2 3 4",
    "three-columns": "1 2 3\n1 2 3\n1 2 3", "a-word": "1 2 3 x\n1 2 3 4\n1 2 3 4", "nan": "nan 0 0 0\n0 0 0 0\n0 0 0 0",
    "1e400": "1e400 0 0 0\n0 0 0 0\n0 0 0 0", "beyond-10": "10.5 0 0 0\n0 0 0 0\n0 0 0 0",
    # 200-kilobytes: past 1 MB, server.maxWidgetStateSize refuses the message
    "markup": "<b>**x**</b> 0 0 0\n0 0 0 0\n0 0 0 0", "200-kilobytes": "1 " * 100_000,
}


@pytest.mark.parametrize("text", CRAFTED.values(), ids=CRAFTED.keys())
def test_bad_text_names_the_matrix_and_keeps_the_weights(open_page, text):
    at = open_page(P, w="edit")
    before = step_numbers(at)
    send_box_state(at, "W_x", string_value=text)
    assert not at.exception
    assert [e.value.startswith("Wₓ") and "last valid Wₓ stays in use" in e.value for e in at.error] == [True]
    assert "<b>" not in at.error[0].value  # visitor text is quoted inert
    pd.testing.assert_frame_equal(step_numbers(at), before)  # the weights in use did not change
    assert boxes(at)["W_x"].value == text  # the text stays, to be fixed
    boxes(at)["W_x"].input("0.5 0 0 0\n0 0 0 0\n0 0 0 0").run()  # a fixed box works again
    assert not at.exception and not at.error and step_numbers(at)["Wₓxₜ"].iloc[0] == 0.5


@pytest.mark.parametrize("value", [dict(double_value=1e300), dict(int_value=7), dict(bool_value=True),
                                   dict(bytes_value=b"\xff"), dict(json_value="[1, 2]"), dict(trigger_value=True)],
                         ids=["double", "int", "bool", "bytes", "json", "trigger"])
def test_a_state_that_is_not_text_is_ignored(open_page, value):
    at = open_page(P, w="edit")
    before, text = step_numbers(at), boxes(at)["W_x"].value
    send_box_state(at, "W_x", **value)
    assert not at.exception and not at.error
    pd.testing.assert_frame_equal(step_numbers(at), before)
    assert boxes(at)["W_x"].value == text  # the box shows the weights in use


def test_new_seed_regenerates_the_boxes_and_generate_mode_forgets_them(open_page):
    at = open_page(P, w="edit")
    boxes(at)["b"].input("1\n2\n3").run()
    assert step_numbers(at)["b"].tolist() == [1.0, 2.0, 3.0]
    at.number_input(key=f"{P}.seed").set_value(5).run()
    b = generate(4, 3, 4, 5, 0.9)["b"]
    np.testing.assert_allclose(step_numbers(at)["b"].to_numpy(), np.round(b, 3))
    assert boxes(at)["b"].value.split() == [f"{v:.3f}" for v in np.round(b, 3)]
    boxes(at)["b"].input("1\n2\n3").run()
    at.radio(key=f"{P}.wmode").set_value("generate").run()
    at.radio(key=f"{P}.wmode").set_value("edit").run()
    assert boxes(at)["b"].value.split() == [f"{v:.3f}" for v in np.round(b, 3)]


@pytest.mark.xfail(strict=True, reason="streamlit 1.67 parses a json_value sent for ANY widget (here the H slider) "
                   "with json.loads before app code runs (common.unpack_widget_state_value), so malformed JSON raises "
                   "in the session that sent it; no choice of widget avoids it, and other sessions are unaffected")
def test_malformed_json_state_fails_inside_streamlit_for_any_widget(open_page):
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    at = open_page(P)
    ws = at._tree.get_widget_states()
    ws.widgets.append(WidgetState(id=at.slider(key=f"{P}.H").proto.id, json_value="{not json"))
    at._run(ws)
    assert not at.exception


def test_random_weights_are_called_untrained(open_page):
    at = open_page(P, seed="7")
    assert any(m.value.startswith("**Untrained**: the weights are random (seed 7)") for m in at.markdown)
    at = open_page(P, w="edit")
    assert any("typed by hand (untrained)" in m.value for m in at.markdown)
    assert [t.label for t in boxes(at).values()] == [
        "**Wₓ**, input weights (row: unit, column: input)", "**Wₕ**, memory weights (row: unit, column: previous unit)",
        "**b**, bias of each unit", "$W_y$, output weights (row: score, column: unit)", "$b_y$, output bias"]
    assert "rows h1, h2, h3 · columns 'h', 'e', 'l', 'o'" in [c.value.replace("\\", "") for c in at.caption]


@pytest.mark.parametrize("classroom", [False, True])
def test_the_move_titles_are_the_pages_words(open_page, classroom):
    """The six moves' panel titles come from the page's words (ui/lessons/vector.py), short lines that fit a fifth of
    a 440 px chart ('① read input' ran into '② read memory' at 1024 px beside the sidebar); names only on a
    projector."""
    from ui.lessons.vector import MOVE_NAMES, MOVE_TITLES

    at = open_page(P, **({"classroom": "1"} if classroom else {}))
    (moves_chart,) = [c for c in charts(at) if c.key == f"{P}.moves"]
    titles = [a["text"] for a in moves_chart.figure["layout"]["annotations"]]
    assert titles == (MOVE_NAMES if classroom else MOVE_TITLES)


def test_states_over_time_blanks_the_steps_not_reached(open_page):
    """As the gates page's heatmaps do: stepping through, 'States over time' shows the states up to step t, outlined
    there, and the steps after it blank (no colour, no number, no hover), with a sentence saying so; it showed all
    five steps at step 1."""
    at = open_page(P)

    def heat():
        (chart,) = [c for c in charts(at) if c.key == f"{P}.heat"]
        (trace,) = chart.figure["data"]
        return chart, trace

    for t in (1, 2, 4, 5):
        if t > 1:
            at.slider(key=f"{P}.t").set_value(t).run()
        chart, trace = heat()
        z = np.array(trace["z"], dtype=float)  # (H, T): units down, steps across; None (NaN) where blank
        assert np.isfinite(z[:, :t]).all() and np.isnan(z[:, t:]).all()
        assert all(cell == "" for row in trace["text"] for cell in row[t:])
        assert trace["hoverongaps"] is False
        (box,) = chart.figure["layout"]["shapes"]
        assert box["x0"] == t - 1.5 and box["x1"] == t - 0.5  # the current step outlined
        assert f"at steps 1 to {t} of 5" in chart.alt
        captions = [c.value for c in at.caption]
        blank = {1: "Steps 2 to 5 stay blank until the cell reaches them.", 2: "Steps 3 to 5 stay blank",
                 4: "Step 5 stays blank until the cell reaches it."}
        assert (t in blank) == any(blank.get(t, "stay blank") in c for c in captions), (t, captions)
    # the states drawn are the run's own
    w = generate(4, 3, 4, 0, 0.9)
    setup = VectorSetup(encode_word("hello", list("helo")), w["W_x"], w["W_h"], w["b"], w["W_y"], w["b_y"], np.zeros(3))
    np.testing.assert_allclose(np.array(heat()[1]["z"], dtype=float), run(setup).h.T)


def test_the_moves_hold_one_scale_through_the_steps(open_page):
    """Panels 1-3 read −1 0 1 at steps 1-2 and −2 0 2 at steps 3-5 (a lecturer's walk): each step had its own scale,
    so a bar grew or shrank with the axis as well as its value. One scale now holds for the whole run: the largest
    number the three panels show at any step (1.43 here), rounded up to the next of 1, 1.5, 2, 3, 5, 7.5 (1.5)."""
    at = open_page(P)
    setup = VectorSetup(*(lambda w: (encode_word("hello", list("helo")), w["W_x"], w["W_h"], w["b"], w["W_y"],
                                     w["b_y"]))(generate(4, 3, 4, 0, 0.9)), np.zeros(3), list("hello"))
    trace = run(setup)
    biggest = max(1.0, max(float(np.max(np.abs(a))) for a in (trace.x_part, trace.h_part, trace.pre, setup.b)))
    ranges = set()
    for t in range(1, 6):
        at.slider(key=f"{P}.t").set_value(t).run()
        (chart,) = [c for c in charts(at) if c.key == f"{P}.moves"]
        lay = chart.figure["layout"]
        ranges.add(tuple(tuple(lay[a]["range"]) for a in ("xaxis", "xaxis2", "xaxis3")))
        bars = [np.abs(np.asarray(d["x"], float)).max() for d in chart.figure["data"][:3]]
        assert max(bars) <= biggest
    (held,) = ranges
    assert 1.4 < biggest <= 1.5 and held[0] == pytest.approx((-1.8 * 1.5, 1.8 * 1.5))


@pytest.mark.parametrize("H", [17, 64])
def test_a_large_memory_matrix_says_why_its_heatmap_is_missing_and_how_many_singular_values_are_drawn(open_page, H):
    """A newcomer's walk: past H = 16 the heatmap was gone while the caption said it 'is shown up to 16×16', and at
    H = 64 the chart drew 32 of the 64 singular values without a word."""
    at = open_page(P, H=str(H))
    shown = {c.key: c.figure for c in charts(at)}
    assert "vector.Wh" not in shown and f"No heatmap of Wₕ at this size: {H}×{H}" in all_text(at)
    sv = shown["vector.sv"]
    drawn = len(sv["data"][0]["y"]) if isinstance(sv["data"][0]["y"], list) else None
    assert drawn == min(H, 32)
    axis = sv["layout"].get("xaxis", {}).get("title", {}).get("text")
    assert axis == ("the 32 largest of 64" if H > 32 else None)


def test_edit_mode_says_a_new_seed_replaces_the_typed_weights_and_it_does(open_page):
    """A newcomer's walk: in Edit by hand a new seed or radius silently replaced the typed Wₕ. It still starts the boxes
    again (they begin from the generated weights), and the page now says so beside them."""
    at = open_page(P, w="edit")
    assert "a new seed or size starts them all again, a new spectral radius Wₕ's, replacing your edits" in all_text(at)
    box = boxes(at)["W_h"]
    box.input("1 0 0\n0 1 0\n0 0 1").run()
    assert boxes(at)["W_h"].value.splitlines()[0].split() == ["1.000", "0.000", "0.000"]
    boxes(at)["W_x"].input("1 0 0 0\n0 1 0 0\n0 0 1 0").run()
    at.slider(key=f"{P}.radius").set_value(2.0).run()  # a new radius: Wₕ's box starts again, Wₓ's keeps the edit
    assert boxes(at)["W_h"].value.splitlines()[0].split() != ["1.000", "0.000", "0.000"]
    assert boxes(at)["W_x"].value.splitlines()[0].split() == ["1.000", "0.000", "0.000", "0.000"]
    at.number_input(key=f"{P}.seed").set_value(1).run()  # a new seed: every box starts again
    assert boxes(at)["W_x"].value.splitlines()[0].split() != ["1.000", "0.000", "0.000", "0.000"]
