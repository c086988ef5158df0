"""The recurrences page: each view's keyed widgets move what a visitor sees, the link carries the state, and bad
links and inputs fall back with a notice."""
import numpy as np

from rnnviz.lessons import recurrences as lesson
from tests.conftest import all_text, charts, tables

P = "rec"
PAGE = "recurrences"


def chart(at, key: str) -> dict:
    return next(c.figure for c in charts(at) if c.key == f"{P}.{key}")


def url(at) -> dict:
    return {k: at.query_params[k][0] if isinstance(at.query_params[k], list) else at.query_params[k]
            for k in at.query_params}


def test_linear_steps_with_next_and_its_sliders(open_page):
    at = open_page(PAGE)
    assert not at.exception
    assert "**Step 1 of 8.**" in all_text(at) and "h₁ = **1.000**" in all_text(at)
    at.button(key=f"{P}.lin.next").click().run()
    at.button(key=f"{P}.lin.next").click().run()
    text = all_text(at)
    assert "**Step 3 of 8.**" in text and "a·h₂ = 0.9 × 0.900 = **0.810**" in text and url(at)["t"] == "3"
    at.slider(key=f"{P}.a").set_value(1.1).run()
    assert "it grows without bound" in all_text(at) and url(at)["a"] == "1.1"
    drawn = chart(at, "linear")["data"][1]["y"]  # the steps seen so far, as the chart draws them
    assert np.allclose(drawn, lesson.linear_run(1.1, 1.0, [1, 0, 0, 0, 0, 0, 0, 0]).h[:3, 0])
    at.text_input(key=f"{P}.x").input("1, two, 3").run()
    assert not at.exception and any("not a number" in e.value for e in at.error)
    assert "**Step 3 of 8.**" in all_text(at)  # the last valid sequence stays


def test_eigenvalues_presets_and_sliders(open_page):
    at = open_page(PAGE, view="eigen")
    assert not at.exception and len(chart(at, "plane")["data"]) == 1 + 3  # the circle and three eigenvalues
    at.button(key=f"{P}.preset.slow").click().run()
    text = all_text(at)
    assert "half-life 692.8 steps" in text and "γ = 0.0447" in text and url(at)["N"] == "1"
    at.slider(key=f"{P}.r1").set_value(0.9).run()
    assert "half-life 6.6 steps" in all_text(at) and url(at)["r1"] == "0.9"
    ys = chart(at, "impulse")["data"][0]["y"]
    assert abs(ys[10] - np.sqrt(1 - 0.81) * 0.9 ** 10) < 1e-12


def test_min_cells_know_their_keep_row_up_front_and_the_gru_does_not(open_page):
    at = open_page(PAGE, view="min")
    assert not at.exception
    z = [np.array(t["z"], dtype=float) for t in chart(at, "min")["data"]]  # one heatmap per cell
    H = 3
    assert not np.isnan(z[0][:H]).any() and not np.isnan(z[1][:H]).any()  # minGRU, minLSTM: every step
    assert np.isnan(z[2][:H, 1:]).all()  # the GRU: step 1 only
    at.button(key=f"{P}.min.next").click().run()
    assert "**Step 2 of 5**, reading 'e'" in all_text(at)
    z = np.array(chart(at, "min")["data"][2]["z"], dtype=float)
    assert not np.isnan(z[:H, :2]).any() and np.isnan(z[:H, 2:]).all()
    at.slider(key=f"{P}.H").set_value(5).run()
    at.text_input(key=f"{P}.word").input("abba").run()
    ls = lesson.min_lockstep("abba", ["a", "b"], 5, 0)
    text = all_text(at)
    assert f"minGRU **{ls.keep['mingru'][1].mean():.2f}**" in text and "Parameters: minGRU 30" in text
    at.text_input(key=f"{P}.word").input("   ").run()
    assert not at.exception and any("empty" in e.value for e in at.error)


def test_selective_input_sets_the_step(open_page):
    at = open_page(PAGE, view="selective")
    assert not at.exception
    assert "Smallest aₜ: **0.0180** at t = 1" in all_text(at) and "Largest: **0.982**" in all_text(at)
    at.slider(key=f"{P}.w").set_value(0.0).run()  # the step no longer depends on the input: a_t all equal
    a = chart(at, "selective")["data"][1]["y"]
    assert np.ptp(a) == 0 and url(at)["w"] == "0.0"
    at.text_input(key=f"{P}.sx").input("nan").run()
    assert not at.exception and any("finite" in e.value for e in at.error)


def test_scan_tree_and_costs(open_page):
    at = open_page(PAGE, view="scan")
    assert not at.exception
    text = all_text(at)
    assert "**3** levels (log₂8)" in text and "**7** steps one after another" in text
    at.segmented_control(key=f"{P}.T").set_value(16).run()
    tree = chart(at, "tree")
    nodes = tree["data"][2]
    assert len(nodes["x"]) == 16 * 5 and url(at)["T"] == "16"
    assert "**4** levels (log₂16)" in all_text(at)
    table = tables(at)[0]  # plain text on a laptop too, not a grid
    assert list(table["T"]) == ["2¹⁰", "2¹¹", "2¹²", "2¹³", "2¹⁴", "2¹⁵", "2¹⁶"]  # superscripts, as 2⁵⁰ elsewhere
    assert list(table["scan depth (H-S)"]) == [str(d) for d in range(10, 17)]


def test_gradients_view_draws_six_cells_with_reasons(open_page):
    at = open_page(PAGE, view="grad")
    assert not at.exception
    names = [t["name"] for t in chart(at, "grad")["data"]]
    assert len(names) == 6 and any("minGRU" in n for n in names) and any("vanilla" in n for n in names)
    at.slider(key=f"{P}.gT").set_value(40).run()
    assert len(chart(at, "grad")["data"][0]["x"]) == 41 and url(at)["gT"] == "40"
    assert "**selective**" in all_text(at) and "diag(1 − zₜ)" in all_text(at)


def test_hostile_links_fall_back_with_a_notice(open_page):
    at = open_page(PAGE, view="nope", a="nan", T="12", r1="2", N="99", x="<b>1</b>", word="x" * 99, gT="1e9")
    assert not at.exception
    notice = next(i.value for i in at.info if "not valid here" in i.value)
    for name in ("view", "a", "T", "r1", "N", "word", "gT"):
        assert f"`{name}`" in notice
    assert any("not a number" in e.value for e in at.error)  # x parses as text, then fails as numbers, with a message


def test_export_builds_a_script_when_opened(open_page):
    at = open_page(PAGE, a="0.97")
    assert not any(c.value.startswith('"""Exported from rnnviz') for c in at.code)
    at.session_state[f"{P}.export.linear"] = True
    code = next(c.value for c in at.run().code if c.value.startswith('"""Exported from rnnviz'))
    assert "a_diag = torch.tensor([0.97])" in code and "the scan disagrees with the loop" in code


def test_classroom_mode_runs_every_view(open_page):
    at = open_page(PAGE, classroom="1")
    for view in ("linear", "eigen", "min", "selective", "scan", "grad"):
        at.segmented_control(key=f"{P}.view").set_value(view).run()
        assert not at.exception, view
        assert charts(at), view


def test_hostile_text_in_every_box(open_page):
    """Each text box: a clear message or the value shown as typed, never an exception or live markup."""
    from tests.test_robustness import HOSTILE, RAW_MARKUP, rendered_markdown

    for view, key in (("linear", f"{P}.x"), ("selective", f"{P}.sx"), ("min", f"{P}.word")):
        at = open_page(PAGE, view=view)
        for value in HOSTILE:
            box = at.text_input(key=key)
            box.input(value[: box.max_chars]).run()
            assert not at.exception, (key, value)
            assert charts(at), (key, value)  # the chart is still drawn, from the last valid input
            for text in rendered_markdown(at):
                assert not RAW_MARKUP.search(text) and "](javascript" not in text, (key, value, text)


def test_a_linked_word_never_reaches_the_exported_code(open_page):
    """The word comes from a link: the script names its length only, so no word can close its docstring."""
    word = '*""";import os#'
    at = open_page(PAGE, view="min", word=word)
    at.session_state[f"{P}.export.min"] = True
    code = next(c.value for c in at.run().code if c.value.startswith('"""Exported from rnnviz'))
    assert word not in code and code.count('"""') == 2
    compile(code, "exported.py", "exec")
    assert "reading '\\*'" in all_text(at)  # the visitor's character, escaped for markdown


def test_every_view_describes_its_charts_and_draws_no_red(open_page):
    """As tests/test_accessibility asks of every page: each chart a text alternative; red only for outputs (none here);
    Next / Back on the arrow keys."""
    from rnnviz.figures.base import COLORS

    at = open_page(PAGE)
    shortcuts = {b.proto.label: b.proto.shortcut for b in at.button if b.proto.shortcut}
    assert shortcuts.get("Next ▶") == "right" and shortcuts.get("◀ Back") == "left"
    for view in ("linear", "eigen", "min", "selective", "scan", "grad"):
        at.segmented_control(key=f"{P}.view").set_value(view).run()
        drawn = charts(at)
        assert drawn and all(len(c.alt.strip()) >= 10 for c in drawn), view
        assert not [c.key for c in drawn if COLORS["output"] in c.spec], view


def test_a_negative_factor_in_the_step_sentence_is_in_parentheses():
    """'a·h₁ = 0.9 × -1.000' read badly: a negative second factor is in parentheses, as on the one-unit page."""
    from ui.lessons import recurrences as words

    tr = lesson.linear_run(0.9, 1.0, [-1, -2])
    text = words.linear_text(lesson.linear_step(tr, 2), words.Linear(0.9, 1.0, (-1, -2)), 2)
    assert "a·h₁ = 0.9 × (-1.000) = **-0.900**" in text and "b·x₂ = 1 × (-2) = **-2.000**" in text
    assert "× -" not in text


def test_the_linear_sentence_says_what_k_silent_steps_do():
    """'after k silent steps h is exactly aᵏ times itself' read as h = aᵏ h: it is aᵏ times what it was."""
    from ui.lessons import recurrences as words

    tr = lesson.linear_run(0.9, 1.0, [1, 0])
    text = words.linear_text(lesson.linear_step(tr, 1), words.Linear(0.9, 1.0, (1, 0)), 1)
    assert "after k silent steps h is exactly aᵏ times what it was, so it fades." in text


def test_the_drag_frames_cover_the_sliders_as_the_page_draws_them(open_page):
    """The frames' notches (the scrubbed controls' declarations) are the page's sliders' own: range and step."""
    from ui.lessons.recurrences import CONTROLS

    SLIDERS = CONTROLS.spans()

    for view, names in (("linear", "ab"), ("selective", "wc"), ("eigen", ("r1", "r2", "r3", "th1", "th2", "th3")),
                        ("grad", ("gT",)), ("min", ("H",))):
        at = open_page(PAGE, view=view)
        for name in names:
            s = at.slider(key=f"{P}.{name}")
            assert (s.min, s.max, s.step) == SLIDERS[name], name
    assert set(SLIDERS) == {"a", "b", "w", "c", "gT", "H", *(f"{n}{k}" for n in ("r", "th") for k in range(1, 5))}


def test_each_views_settings_outlive_a_visit_to_another_view(open_page):
    """A view's widgets are not drawn while another view shows, and Streamlit drops their state: the page keeps a
    copy of each setting (ui.urlstate.publish), in the link too, and brings it back with the view."""
    at = open_page(PAGE)
    at.slider(key=f"{P}.a").set_value(0.5).run()
    at.segmented_control(key=f"{P}.view").set_value("min").run()
    at.slider(key=f"{P}.H").set_value(5).run()
    at.slider(key=f"{P}.H").set_value(6).run()  # a second run of the view alone: the linear view's a is kept
    assert at.query_params["a"] in ("0.5", ["0.5"]) and at.query_params["H"] in ("6", ["6"])
    at.segmented_control(key=f"{P}.view").set_value("linear").run()
    assert at.slider(key=f"{P}.a").value == 0.5 and not at.exception
    at.segmented_control(key=f"{P}.view").set_value("min").run()
    assert at.slider(key=f"{P}.H").value == 6


def test_the_scan_says_why_and_the_selective_step_names_its_family(open_page):
    """Why a linear recurrence can be scanned (its steps compose associatively, tanh breaks it), and the selective
    view named as what a student has heard of: state space models, Mamba."""
    scan = all_text(open_page(PAGE, view="scan"))
    assert "(a₂a₁, a₂b₁ + b₂)" in scan and "associative" in scan and "tanh(a₂·tanh(a₁h + b₁) + b₂)" in scan
    selective = all_text(open_page(PAGE, view="selective"))
    assert "state space model" in selective and "Mamba (Gu and Dao, 2023)" in selective and "Scan view" in selective
