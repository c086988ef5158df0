"""In a real browser: no chart has to grow its margins to fit its labels. Streamlit's chart theme turns Plotly's
automargin on, and a chart whose set margins are too small is laid out twice on every redraw (about half its cost);
the figures set their margins to what automargin would give them (rnnviz.figures.base.y_margin, x_margin, grown)."""
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
