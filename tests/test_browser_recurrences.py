"""The recurrences page in headless Chromium: on a 1024 x 768 projector (?classroom=1) each view's main control and
the chart it moves are both on the first screen, and a Next press redraws the step."""
import pytest

from tests.browser import CHART, Server, chromium, painted, wait_idle

pytestmark = pytest.mark.slow
CONTROLS = {"linear": "rec-lin-next", "eigen": "rec-r1", "min": "rec-min-next", "selective": "rec-w",
            "scan": "rec-T", "grad": "rec-gT"}  # each view's main control (its widget key, as Streamlit's class)


@pytest.fixture(scope="module")
def projector():
    s = Server()
    with chromium() as b:
        pg = b.new_page(viewport={"width": 1024, "height": 768})
        yield s, pg
        pg.close()
    s.close()


@pytest.mark.parametrize("view", list(CONTROLS))
def test_control_and_its_chart_share_the_first_screen(projector, view):
    server, page = projector
    page.goto(f"{server.url}/recurrences?view={view}&classroom=1")
    wait_idle(page)
    page.wait_for_selector(f"{CHART} .main-svg", timeout=60_000)
    painted(page)
    control = page.locator(f".st-key-{CONTROLS[view]}").first.bounding_box()
    chart = page.locator(CHART).first.bounding_box()
    assert control and chart, view
    assert control["y"] + control["height"] <= 768, (view, control)
    assert chart["y"] >= control["y"] and chart["y"] + chart["height"] <= 768, (view, chart)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert not page.locator('section[data-testid="stSidebar"]').is_visible()


def test_next_steps_the_linear_recurrence(projector):
    server, page = projector
    page.goto(f"{server.url}/recurrences?classroom=1")
    wait_idle(page)
    page.wait_for_selector(f"{CHART} .main-svg", timeout=60_000)
    page.wait_for_selector(".st-key-rec-lin-next button:not([disabled])", timeout=60_000)
    page.locator(".st-key-rec-lin-next button").first.click()  # the button itself, not its help icon
    page.wait_for_function("() => document.body.innerText.includes('Step 2 of 8')", timeout=30_000)
    wait_idle(page)
    assert "t=2" in page.url and "h₂ = 0.900" in page.inner_text("body")
    assert page.locator('[data-testid="stException"]').count() == 0


@pytest.mark.parametrize("width,query", [(1400, ""), (1024, "&classroom=1")])
def test_charts_are_laid_out_once(projector, width, query):
    """As tests/test_browser_margins asks of the other pages: no chart grows its set margins (a second layout)."""
    from tests.test_browser_margins import PUSHED

    server, page = projector
    page.set_viewport_size({"width": width, "height": 1000})
    grown = {}
    for view in CONTROLS:
        page.goto(f"{server.url}/recurrences?view={view}{query}")
        wait_idle(page)
        page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length > 0 && "
                               "[...document.querySelectorAll('.js-plotly-plot')].every(gd => gd._fullLayout)",
                               timeout=60_000)
        painted(page)
        if pushed := page.evaluate(PUSHED):
            grown[view] = pushed
    page.set_viewport_size({"width": 1024, "height": 768})
    assert grown == {}


TICKS = """() => [...document.querySelectorAll('.st-key-rec-min .xaxislayer-above')].map(ax =>
  [...ax.querySelectorAll('text')].map(t => { const b = t.getBoundingClientRect(); return [b.left, b.right]; })
    .sort((a, b) => a[0] - b[0]))"""


@pytest.mark.parametrize("word", ["abracadabra", "thequickbrownfoxjumps"])
def test_the_min_cells_step_labels_do_not_run_into_each_other(projector, word):
    """minGRU view on a projector, a long word: every step labelled ('1 'a'', '2 'b'' ...), three panels of about
    265 px, read "1 'a2 'b3 'r'..." (eleven letters) and worse for 21; now every k-th step is labelled, apart."""
    server, page = projector
    page.goto(f"{server.url}/recurrences?view=min&word={word}&classroom=1")
    wait_idle(page)
    page.wait_for_selector(".st-key-rec-min .xtick text", timeout=60_000)
    painted(page)
    panels = page.evaluate(TICKS)
    assert len(panels) == 3 and all(len(p) >= 3 for p in panels), panels
    for boxes in panels:
        assert all(a[1] + 4 <= b[0] for a, b in zip(boxes, boxes[1:])), boxes


@pytest.mark.parametrize("view,key", [("linear", "rec-a"), ("grad", "rec-gT")])
def test_a_held_arrow_key_moves_the_slider_by_every_press(projector, view, key):
    """A lecturer holding → on a slider: every press counts. The view rewrote its settings into the session at each
    rerun (to keep the other views'), which sent each slider's value back as the server's: a press made while that
    rerun ran was undone (3 of 15 lost at 20 presses a second; the scalar and cell pages lost none)."""
    server, page = projector
    page.goto(f"{server.url}/recurrences?view={view}")
    wait_idle(page)
    thumb = page.locator(f".st-key-{key} input[type=range]").first
    thumb.wait_for(timeout=60_000)
    painted(page)
    start = float(thumb.input_value())
    thumb.focus()
    for _ in range(12):
        page.keyboard.press("ArrowLeft")
        page.wait_for_timeout(50)
    wait_idle(page)
    page.wait_for_timeout(800)
    wait_idle(page)
    step = {"rec-a": 0.01, "rec-gT": 1}[key]
    assert float(thumb.input_value()) == pytest.approx(start - 12 * step), start


def test_the_response_charts_title_and_key_keep_to_their_lines(projector):
    """Eigenvalues on a projector: the response chart's title, centred in the top margin, reached down into its key's
    line (7 px, a lecturer's walk). The title's text ends above the key's."""
    server, page = projector
    page.goto(f"{server.url}/recurrences?view=eigen&classroom=1")
    wait_idle(page)
    page.wait_for_selector(".st-key-rec-impulse .legendtext", timeout=60_000)
    painted(page)
    title, key = page.evaluate("() => ['.gtitle', '.legendtext'].map(s => [...document.querySelectorAll("
                               "`.st-key-rec-impulse ${s}`)].map(e => { const r = e.getBoundingClientRect(); "
                               "return [r.top, r.bottom]; }))")
    assert title and len(key) == 3 and max(b for _, b in title) <= min(t for t, _ in key), (title, key)


@pytest.mark.parametrize("H", [3, 8])
def test_the_min_cells_heatmap_is_whole_under_its_h_slider(projector, H):
    """minGRU on a projector: the heatmap grows two rows a unit; at H = 8 it ran to 957 px, under the first screen
    that holds its H slider (a lecturer's walk). Its rows get thinner there instead."""
    server, page = projector
    page.goto(f"{server.url}/recurrences?view=min&H={H}&classroom=1")
    wait_idle(page)
    page.wait_for_selector(".st-key-rec-min .main-svg", timeout=60_000)
    painted(page)
    chart = page.locator(".st-key-rec-min").bounding_box()
    ticks = page.evaluate("() => [...document.querySelectorAll('.st-key-rec-min .xtick text')].map(e => "
                          "e.getBoundingClientRect().bottom)")
    assert ticks and max(ticks) <= 768 and chart["y"] + chart["height"] <= 768, (chart, ticks)
    # thinner rows: numbers that would run into each other are hidden by ui/chart.js (colours and hover keep them)
    shown = page.evaluate("() => [...document.querySelectorAll('.st-key-rec-min g.heatmap-label')].filter(g => "
                          "getComputedStyle(g).display !== 'none' && g.getBoundingClientRect().height > 0).map(g => {"
                          "const r = g.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })")
    assert not [(a, b) for i, a in enumerate(shown) for b in shown[i + 1:]
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] - 1 and b[1] < a[3] - 1], len(shown)
