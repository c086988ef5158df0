"""In a real browser: a chart that follows a stepper (ui/steps.py) draws the step Back / Next asks for as the key is
pressed, from the server's figures, before the server's answer; the answer redraws nothing; the step drawn is the
server's figure at that step; and dragging the time slider steps the chart along with it."""
from contextlib import closing

import numpy as np
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from rnnviz.figures import recurrences as figures
from rnnviz.lessons import recurrences as lesson
from rnnviz.text import fmt, parse_sequence
from tests.browser import Server, chromium, painted, wait_idle
from ui.lessons.recurrences import X_DEFAULT

pytestmark = pytest.mark.slow

CHART = ".st-key-rec-linear .rnnviz-chart"
SLIDER = '.st-key-rec-lin-t input[type="range"]'
# every drawing of the chart, with the step it shows and the step the server's slider held at that moment
HOOK = """() => { const gd = document.querySelector('%s'); const P = window.Plotly;
  window.__draws = [];
  if (!P.__counted) { const react = P.react; P.__counted = true;
    P.react = function (g, ...a) {
      if (g === document.querySelector('%s'))
        window.__draws.push([g.__rnnvizStep, Number(document.querySelector('%s').value)]);
      return react.call(P, g, ...a); }; } }""" % (CHART, CHART, SLIDER)


@pytest.fixture(scope="module")
def page():
    with chromium() as b, closing(Server()) as server:
        pg = b.new_page(viewport={"width": 1400, "height": 1000})
        pg.server = server
        yield pg


def drawn(page) -> dict:
    """The linear chart as plotly.js holds it: each trace's x and y."""
    return page.evaluate("""() => document.querySelector('%s')._fullData.map(t => ({
        x: Array.from(t.x || []), y: Array.from(t.y || [])}))""" % CHART)


def expected(t: int) -> list[dict]:
    """The page's own figure at step t, for its defaults (a = 0.9, b = 1, the default input)."""
    tr = lesson.linear_run(0.9, 1.0, parse_sequence(X_DEFAULT))
    fig = figures.linear_steps(tr.x[:, 0], tr.h[:, 0], t, 1.0).to_dict()
    return [{"x": np.asarray(d["x"], float), "y": np.asarray(d["y"], float)} for d in fig["data"]]


def step_now(page, slider: str = SLIDER) -> int:
    return int(page.evaluate(f"() => Number(document.querySelector('{slider}').value)"))


def open_stepped(page) -> None:
    """The linear view, its chart stepped: the first rerun of a setting draws as before and has its steps computed
    in the background; the next step brings them."""
    page.goto(f"{page.server.url}/recurrences")
    wait_idle(page)
    page.wait_for_selector(CHART + " .main-svg", timeout=60_000)
    page.wait_for_timeout(1000)
    press(page, "ArrowLeft" if step_now(page) > 1 else "ArrowRight")
    page.wait_for_function(f"() => document.querySelector('{CHART}').__rnnvizStepped === true", timeout=30_000)


def press(page, key: str, slider: str = SLIDER) -> None:
    """A step key, pressed again if the page missed it (a key can land while Streamlit redraws the buttons)."""
    before = step_now(page, slider)
    for _ in range(2):
        page.evaluate("() => document.activeElement && document.activeElement.blur()")  # the shortcut, not a field
        page.keyboard.press(key)
        try:  # the slider's new value can be drawn a moment after the run has ended
            page.wait_for_function(f"() => Number(document.querySelector('{slider}').value) !== {before}",
                                   timeout=5_000)
        except PlaywrightTimeout:
            continue
        wait_idle(page)
        painted(page)
        return


def test_a_step_is_drawn_as_it_is_pressed_from_the_servers_figures(page):
    open_stepped(page)
    page.evaluate(HOOK)
    for key in ("ArrowRight", "ArrowRight", "ArrowLeft") if step_now(page) < 3 else ("ArrowLeft", "ArrowLeft",
                                                                                      "ArrowRight"):
        before = step_now(page)
        page.evaluate("() => { window.__draws = []; }")
        press(page, key)
        t = step_now(page)
        assert t == before + (1 if key == "ArrowRight" else -1)
        # one drawing, of the new step, made while the slider still held the old one: ahead of the server's answer,
        # which drew nothing more
        assert page.evaluate("() => window.__draws") == [[t, before]]
        for got, want in zip(drawn(page), expected(t), strict=True):
            np.testing.assert_allclose(got["x"], want["x"], rtol=0, atol=0)
            np.testing.assert_allclose(got["y"], want["y"], rtol=1e-15, atol=0)
        h = lesson.linear_run(0.9, 1.0, parse_sequence(X_DEFAULT)).h[:t, 0]
        assert page.evaluate(f"() => document.querySelector('{CHART}').getAttribute('aria-label')") == (
            "h_t: " + ", ".join(fmt(v) for v in h))  # the step's own text alternative
    assert page.locator('[data-testid="stException"]').count() == 0


def test_the_first_press_on_a_new_setting_is_drawn_ahead_too(page):
    """A link to a setting nobody has opened: its first run sends the step shown and its neighbours (every step is
    computed after it), so the first press of Back or Next is drawn as it is pressed too (it used to wait for the
    server's answer, 175 ms on the one-unit page)."""
    page.goto(f"{page.server.url}/recurrences?a=0.83")
    wait_idle(page)
    page.wait_for_selector(CHART + " .main-svg", timeout=60_000)
    page.evaluate(HOOK)
    before = step_now(page)
    press(page, "ArrowLeft" if before > 1 else "ArrowRight")
    t = step_now(page)
    assert t != before and page.evaluate("() => window.__draws")[:1] == [[t, before]]  # drawn ahead of the answer
    h = lesson.linear_run(0.83, 1.0, parse_sequence(X_DEFAULT)).h[:t, 0]
    assert page.evaluate(f"() => document.querySelector('{CHART}').getAttribute('aria-label')") == (
        "h_t: " + ", ".join(fmt(v) for v in h))


def test_the_chart_follows_the_time_slider_while_it_is_dragged(page):
    open_stepped(page)
    if step_now(page) == 1:
        press(page, "ArrowRight")
    start = step_now(page)
    thumb = page.locator(".st-key-rec-lin-t").get_by_role("slider").first
    box = thumb.bounding_box()
    track = page.locator(".st-key-rec-lin-t [data-testid='stSlider']").first.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(track["x"] + 4, box["y"] + box["height"] / 2, steps=8)  # to step 1, the mouse still down
    page.wait_for_function(f"() => document.querySelector('{CHART}').__rnnvizStep === 1", timeout=10_000)
    assert step_now(page) == 1 != start
    for got, want in zip(drawn(page), expected(1), strict=True):
        np.testing.assert_allclose(got["y"], want["y"], rtol=1e-15, atol=0)
    page.mouse.up()
    wait_idle(page)
    painted(page)
    assert page.evaluate(f"() => document.querySelector('{CHART}').__rnnvizStep") == step_now(page) == 1


def test_two_presses_within_a_few_ms_leave_the_chart_drawn_at_the_pages_step(page):
    """Back then Next pressed within a few ms (a lecturer comparing two steps): plotly.js was still finishing the
    first drawing when the second began, threw, and the chart stayed blank until the page was reloaded."""
    open_stepped(page)
    if step_now(page) == 1:
        press(page, "ArrowRight")
    start = step_now(page)
    for _ in range(3):
        page.evaluate("""() => { document.querySelector('.st-key-rec-lin-back button').click();
                                 document.querySelector('.st-key-rec-lin-next button').click(); }""")
        wait_idle(page)
        text = int(page.evaluate(r"() => document.body.innerText.match(/Step (\d+) of/)[1]"))
        # the chart comes to the page's step once the run's step is in (a mark can come just after the run's end)
        page.wait_for_function(f"() => document.querySelector('{CHART}').__rnnvizStep === {text}", timeout=10_000)
        painted(page)
        shown = page.evaluate(f"""() => {{ const gd = document.querySelector('{CHART}');
            return [!!gd.querySelector('.main-svg'), gd.__rnnvizStep,
                    document.querySelector('.st-key-rec-linear .rnnviz-chart-problem').hidden]; }}""")
        # Back then Next: the step it began at (Streamlit takes both presses into one run; each counted from the
        # step shown before both, it landed one past it, and the chart drawn ahead one short of the page)
        assert shown == [True, text, True] and text == start
    assert page.locator('[data-testid="stException"]').count() == 0



def test_a_setting_that_leaves_the_step_shown_as_it_was_redraws_nothing(page):
    """At step 1 of the cell page the state does not depend on W_h yet: a move of its radius sends the six moves and
    the states with new steps in them, but the step shown is the same, and it is not drawn again (as before the
    charts held every step); the singular values, which do change, are."""
    page.goto(f"{page.server.url}/vector")
    wait_idle(page)
    page.wait_for_timeout(1000)
    charts = ["vector-moves", "vector-heat"]
    for key in ("ArrowRight", "ArrowLeft"):  # stepped, and back at step 1
        press(page, key, '.st-key-vector-t input[type="range"]')
    page.wait_for_function(f"() => {charts!r}.every(k => document.querySelector(`.st-key-${{k}} .rnnviz-chart`)"
                           "?.__rnnvizStepped === true)", timeout=30_000)
    assert page.evaluate(r"() => document.body.innerText.match(/Step (\d+) of/)[1]") == "1"
    mark = """keys => keys.map(k => { const gd = document.querySelector(`.st-key-${k} .rnnviz-chart`);
        gd.__kept = gd.data; gd.__text = gd.__rnnvizText; return true; })"""
    same = """keys => keys.map(k => { const gd = document.querySelector(`.st-key-${k} .rnnviz-chart`);
        return [gd.data === gd.__kept, gd.__rnnvizText === gd.__text]; })"""
    page.evaluate(mark, charts + ["vector-sv"])
    slider = page.locator(".st-key-vector-radius").get_by_role("slider").first
    slider.focus()
    page.keyboard.press("ArrowRight")
    wait_idle(page)
    painted(page)
    # the singular values, which changed, were drawn again: below the first screen that can come once the page is
    # idle (ui/chart.js), after the figure itself has come
    page.wait_for_function(f"() => ({same})(['vector-sv'])[0][0] === false", timeout=10_000)
    assert page.evaluate(same, ["vector-sv"]) == [[False, False]]
    # the step shown was not drawn again (whether its setting's other steps had come yet or not)
    assert [kept for kept, _ in page.evaluate(same, charts)] == [True, True]


LOCK = ".st-key-gates-lockstep .rnnviz-chart"
LOCK_SLIDER = '.st-key-gates-t input[type="range"]'


def test_a_step_that_changes_the_layout_alone_keeps_the_cells_arrays(page):
    """The three cells' steps change the layout alone (the steps not reached are covered by a shape): the chart keeps
    the very arrays of cells it had, which plotly.js then does not compute again (a step of the three trained cells
    took 75-120 ms from copies, 6-13 ms from the same arrays). A zoom stays the step's own: the next step is drawn at
    the server's ranges."""
    page.goto(f"{page.server.url}/gates?view=lockstep&word=hello&trained=0")
    wait_idle(page)
    page.wait_for_selector(LOCK + " .main-svg", timeout=60_000)
    gd = f"document.querySelector('{LOCK}')"
    every = f"() => {gd}.__rnnvizText && JSON.parse({gd}.__rnnvizText).steps?.values.length === 5"
    for _ in range(2):  # from step 1: the first runs send step 1 and its neighbour, a later one every step
        press(page, "ArrowRight", LOCK_SLIDER)
        page.wait_for_timeout(1000)
    page.wait_for_function(every, timeout=10_000)
    page.evaluate(f"() => {{ window.__cells = {gd}.data.map((t) => t.z); }}")
    page.evaluate(f"() => Plotly.relayout({gd}, {{'yaxis.range[0]': 2.5, 'yaxis.range[1]': 0.5}})")
    assert page.evaluate(f"() => {gd}.layout.yaxis.range") == [2.5, 0.5]
    press(page, "ArrowLeft", LOCK_SLIDER)
    t = step_now(page, LOCK_SLIDER)
    assert t == 2
    assert page.evaluate(f"() => {gd}.data.every((t, i) => t.z === window.__cells[i])")  # the same arrays
    shapes = page.evaluate(f"() => {gd}.layout.shapes.map((s) => [s.name || null, s.x0, s.x1])")
    assert [s for s in shapes if s[0] == "not reached"] == [["not reached", t - 0.5, 4.5]] * 3  # steps 3 to 5
    own = page.evaluate(f"() => JSON.parse({gd}.__rnnvizText).figure.layout")  # the server's
    assert page.evaluate(f"() => {gd}.layout.yaxis.range") == own["yaxis"]["range"] != [2.5, 0.5]  # not the zoom
