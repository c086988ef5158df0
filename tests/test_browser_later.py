"""In a real browser: a chart out of view is not redrawn in the rerun that changed it but once the page is idle
(ui/chart.js), and then shows what a fresh page shows for the same setting; a chart in view is redrawn in the rerun."""
from contextlib import closing

import numpy as np
import pytest

from tests.browser import Server, chromium, painted, wait_idle

pytestmark = pytest.mark.slow

# each chart's drawings put off (data-rnnviz-later set) and drawn (aria-busy cleared), by chart key, in order
WATCH = """() => { window.__seen = [];
  new MutationObserver(ms => ms.forEach(m => {
    const gd = m.target, key = (gd.closest('[class*="st-key-"]')?.className.match(/st-key-(\\S+)/) || [])[1];
    if (m.attributeName === 'data-rnnviz-later' && gd.hasAttribute('data-rnnviz-later')) __seen.push([key, 'later']);
    if (m.attributeName === 'aria-busy' && !gd.hasAttribute('aria-busy')) __seen.push([key, 'drawn']);
  })).observe(document.body, {subtree: true, attributes: true, attributeFilter: ['data-rnnviz-later', 'aria-busy']});
}"""
DRAWN = """key => document.querySelector(`.st-key-${key} .rnnviz-chart`)._fullData.map(t => ({
  x: Array.from(t.x || []), y: Array.from(t.y || [])}))"""


def same(a: list[dict], b: list[dict]) -> bool:
    return len(a) == len(b) and all(np.allclose(np.asarray(s[k], float), np.asarray(t[k], float), equal_nan=True)
                                    for s, t in zip(a, b) for k in ("x", "y"))


def test_a_chart_out_of_view_is_drawn_once_the_page_is_idle_as_a_fresh_page_draws_it():
    """The one-unit page on a projector: the Flood preset changes every chart; the tanh curve beside the controls is
    redrawn in the rerun, the cobweb far below the first screen once the page is idle, and then it is the cobweb a
    fresh page draws for the flooded setting (not the one before)."""
    with chromium() as b, closing(Server()) as server:
        page = b.new_page(viewport={"width": 1024, "height": 768})
        page.goto(f"{server.url}/scalar?classroom=1")
        wait_idle(page)
        painted(page)
        before = page.evaluate(DRAWN, "scalar-cobweb")
        page.evaluate(WATCH)
        page.get_by_role("button", name="Flood").click()
        page.wait_for_function("() => __seen.length > 0", timeout=30_000)
        wait_idle(page)
        painted(page)  # also waits for the charts put off
        seen = page.evaluate("() => __seen")
        assert ["scalar-cobweb", "later"] in seen, seen
        assert ["scalar-tanh", "drawn"] in seen and ["scalar-tanh", "later"] not in seen, seen
        assert seen.index(["scalar-cobweb", "later"]) < seen.index(["scalar-cobweb", "drawn"])
        after = page.evaluate(DRAWN, "scalar-cobweb")
        fresh = b.new_page(viewport={"width": 1024, "height": 768})
        fresh.goto(page.url)  # the flooded setting, as the page's link carries it
        wait_idle(fresh)
        painted(fresh)
        assert same(after, fresh.evaluate(DRAWN, "scalar-cobweb"))
        assert not same(after, before)
