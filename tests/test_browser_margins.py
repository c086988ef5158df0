"""In a real browser: no chart has to grow its margins to fit its labels, and a long table scrolls in its box.
Streamlit's chart theme turns Plotly's automargin on, and a chart whose set margins are too small is laid out twice
on every redraw (about half its cost); the figures set their margins to what automargin would give them
(rnnviz.figures.base.y_margin, x_margin, grown)."""
from contextlib import closing

import pytest

from tests.browser import Server, chromium, painted, wait_idle

pytestmark = pytest.mark.slow

PUSHED = """() => [...document.querySelectorAll('.js-plotly-plot')].map(gd => {
  const size = gd._fullLayout._size, set = gd._fullLayout.margin;
  const key = (gd.closest('[class*="st-key-"]')?.className.match(/st-key-(\\S+)/) || [])[1];
  return [key, ['l', 'r', 't', 'b'].filter(k => Math.round(size[k]) > Math.round(set[k]))
                                   .map(k => `${k} ${Math.round(set[k])} -> ${Math.round(size[k])}`)];
}).filter(([, grown]) => grown.length)"""


@pytest.fixture(scope="module")
def browser():
    with chromium() as b, closing(Server()) as server:  # no server started where there is no browser
        b.server = server
        yield b


@pytest.mark.parametrize("width,query", [(1400, ""), (1024, "?classroom=1")])  # a laptop; a projector
@pytest.mark.parametrize("path", ["scalar", "vector", "gradients", "hello"])
def test_charts_are_laid_out_once(browser, path, width, query):
    page = browser.new_page(viewport={"width": width, "height": 1000})
    page.goto(f"{browser.server.url}/{path}{query}")
    wait_idle(page)
    page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length > 0 && "
                           "[...document.querySelectorAll('.js-plotly-plot')].every(gd => gd._fullLayout)",
                           timeout=60_000)
    painted(page)
    assert page.evaluate(PUSHED) == []
    page.close()


BOXES = """() => [...document.querySelectorAll("[class*='st-key-long-']")].map(b => ({
  box: Math.round(b.getBoundingClientRect().height),
  table: Math.round(b.querySelector('table').getBoundingClientRect().height),
  scrolls: b.scrollHeight > b.clientHeight + 1}))"""


@pytest.mark.parametrize("width,query", [(1400, ""), (1024, "&classroom=1")])
def test_a_long_table_scrolls_in_its_box_and_a_short_one_fills_it(browser, width, query):
    """The one-unit page's worked table and the chain rule's factors: 20 inputs make tables taller than the box
    (LONG_TABLE_PX), which then scrolls; 3 inputs, a box exactly the table's height, no scroll bar and no empty band
    (st.table's rows were sized into a fixed box: a markdown table's left about 150 px of it empty)."""
    from ui.widgets import LONG_TABLE_PX

    page = browser.new_page(viewport={"width": width, "height": 900})
    for n, scrolls in ((20, True), (3, False)):
        page.goto(f"{browser.server.url}/scalar?x={','.join(['1'] + ['0'] * (n - 1))}{query}")
        wait_idle(page)
        boxes = page.evaluate(BOXES)
        assert len(boxes) == 2 and all(b["scrolls"] == scrolls for b in boxes), boxes
        assert all(b["box"] == (LONG_TABLE_PX if scrolls else b["table"]) for b in boxes), boxes
    page.close()
