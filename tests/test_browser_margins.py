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


@pytest.mark.parametrize("width,query", [(1400, ""), (1024, "classroom=1")])  # a laptop; a projector
# the three untrained cells' view: their heatmaps and survival chart, and the valve; the clipping chart at H = 4, whose
# y labels are halves (its margins, and the valve's, the survival chart's and the heatmaps' on a projector, grew on
# every redraw, drag frames included)
@pytest.mark.parametrize("path", ["scalar", "vector", "gradients", "hello", "gates?view=lockstep&trained=0",
                                  "gradients?view=clip&H=4"])
def test_charts_are_laid_out_once(browser, path, width, query):
    page = browser.new_page(viewport={"width": width, "height": 1000})
    page.goto(f"{browser.server.url}/{path}" + (("&" if "?" in path else "?") + query if query else ""))
    wait_idle(page)
    page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length > 0 && "
                           "[...document.querySelectorAll('.js-plotly-plot')].every(gd => gd._fullLayout)",
                           timeout=60_000)
    painted(page)
    assert page.evaluate(PUSHED) == []
    page.close()


BOXES = """() => [...document.querySelectorAll("[class*='st-key-long-']")].map(b => {
  b.scrollIntoView({block: 'nearest'});  // the page scrolls to the box; the box keeps its own scroll
  const rows = b.querySelectorAll('tbody tr'), seen = e => {  // what a reader sees at the middle of e is e
    const r = e.getBoundingClientRect();
    return e.contains(document.elementFromPoint(r.left + 3, (r.top + r.bottom) / 2)); };
  return {box: Math.round(b.getBoundingClientRect().height),
          table: Math.round(b.querySelector('table').getBoundingClientRect().height),
          scrolls: b.scrollHeight > b.clientHeight + 1, last: seen(rows[rows.length - 1]),
          first: seen(rows[0]), head: seen(b.querySelector('th'))}; })"""


@pytest.mark.parametrize("width,query", [(1400, ""), (1024, "&classroom=1")])
def test_a_long_table_scrolls_in_its_box_and_a_short_one_fills_it(browser, width, query):
    """The one-unit page's worked table and the chain rule's factors: 20 inputs make tables taller than the box
    (LONG_TABLE_PX), which then scrolls, held at its end: the current step's row (the last) in view, not the first,
    under the header; 3 inputs, a box exactly the table's height, no scroll bar and no empty band (st.table's rows
    were sized into a fixed box: a markdown table's left about 150 px of it empty)."""
    from ui.widgets import LONG_TABLE_PX

    page = browser.new_page(viewport={"width": width, "height": 900})
    for n, scrolls in ((20, True), (3, False)):
        page.goto(f"{browser.server.url}/scalar?x={','.join(['1'] + ['0'] * (n - 1))}{query}")
        wait_idle(page)
        boxes = page.evaluate(BOXES)
        assert len(boxes) == 2 and all(b["scrolls"] == scrolls for b in boxes), boxes
        assert all(b["box"] == (LONG_TABLE_PX if scrolls else b["table"]) for b in boxes), boxes
        assert all(b["last"] and b["head"] and b["first"] != scrolls for b in boxes), boxes
    page.close()


WIDE = """() => [...document.querySelectorAll("[data-testid='stMarkdownContainer'] table")].map(t => {
  const column = t.closest("[data-testid='stColumn']") || t.closest("[data-testid='stMain']");
  return {right: Math.round(t.getBoundingClientRect().right), column: Math.round(column.getBoundingClientRect().right),
          cells: Math.round(Math.max(...[...t.querySelectorAll('th, td')].map(c => c.getBoundingClientRect().right))),
          hidden: t.scrollWidth - t.clientWidth}; })"""  # right: the table's box; cells: its last column's edge


@pytest.mark.parametrize("path,open_box", [("gates", "This step's numbers, with the products"),
                                           ("states?view=padding&torch=1", None)])
def test_tables_on_a_projector_stay_inside_their_column(browser, path, open_box):
    """On a projector the LSTM's step numbers (11 columns, 794 px in one table) are two tables that each fit their
    638 px column, hₜ in sight; the padding table with PyTorch's column is wider than its column and scrolls sideways
    in it, instead of running past its edge and off the screen."""
    page = browser.new_page(viewport={"width": 1024, "height": 768})
    page.goto(f"{browser.server.url}/{path}{'&' if '?' in path else '?'}classroom=1")
    wait_idle(page)
    if open_box:
        page.get_by_text(open_box).click()  # the box reruns its fragment to draw its tables: waited for
        page.wait_for_function("() => document.querySelectorAll(\"[data-testid='stExpander'] table\").length == 2",
                               timeout=60_000)
    else:  # the PyTorch check's rerun draws its column: waited for (the clean-clone CI run read the page before)
        page.wait_for_function(f"() => ({WIDE})().some(t => t.hidden > 0)", timeout=60_000)
    wait_idle(page)
    tables = page.evaluate(WIDE)
    assert tables and all(t["right"] <= t["column"] for t in tables), tables  # nothing runs past the column
    if open_box:  # every cell in sight, none scrolled away
        assert all(t["cells"] <= t["column"] and t["hidden"] == 0 for t in tables), tables
    else:  # the wide one scrolls inside its box
        assert any(t["hidden"] > 0 and t["cells"] > t["column"] for t in tables), tables
    page.close()
