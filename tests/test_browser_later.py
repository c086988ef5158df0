"""In a real browser: a chart out of view is not redrawn in the rerun that changed it but once the page is idle, as it
comes into view, or as the pointer reaches a slider (ui/chart.js), and then shows what a fresh page shows for the same
setting; a chart in view is redrawn in the rerun."""
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


def drawn(page, key: str = "scalar-cobweb") -> list[dict]:
    """The chart's traces once the page's three charts have been drawn and none is drawing or waiting (a page just
    loaded can be idle before its charts are mounted)."""
    page.wait_for_function("""() => { const all = [...document.querySelectorAll('.rnnviz-chart')];
      return all.length === 3 && all.every(gd => gd._fullData && !gd.hasAttribute('aria-busy')
                                                  && !gd.hasAttribute('data-rnnviz-later')); }""", timeout=60_000)
    return page.evaluate(DRAWN, key)


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
        before = drawn(page)
        page.evaluate(WATCH)
        page.get_by_role("button", name="Flood").click()
        page.wait_for_function("() => __seen.length > 0", timeout=30_000)
        wait_idle(page)
        painted(page)  # also waits for the charts put off
        seen = page.evaluate("() => __seen")
        assert ["scalar-cobweb", "later"] in seen, seen
        assert ["scalar-tanh", "drawn"] in seen and ["scalar-tanh", "later"] not in seen, seen
        assert seen.index(["scalar-cobweb", "later"]) < seen.index(["scalar-cobweb", "drawn"])
        after = drawn(page)
        assert same(after, fresh_cobweb(b, page.url))  # the flooded setting, as the page's link carries it
        assert not same(after, before)


def fresh_cobweb(b, url: str) -> list[dict]:
    fresh = b.new_page(viewport={"width": 1024, "height": 768})
    fresh.goto(url)
    wait_idle(fresh)
    cobweb = drawn(fresh)
    fresh.close()
    return cobweb


WAITING = "() => document.querySelector('.st-key-scalar-cobweb .rnnviz-chart').hasAttribute('data-rnnviz-later')"


def test_a_chart_put_off_is_drawn_as_it_comes_into_view_or_the_pointer_reaches_a_slider():
    """The page never idle (requestIdleCallback never calls back): the cobweb put off at Flood waits, and is drawn
    the moment the pointer reaches the wₕ slider (a drag would follow on it); put off again at Fade, it is drawn as
    it is scrolled into view. Each time it is then the cobweb a fresh page draws for that setting."""
    with chromium() as b, closing(Server()) as server:
        page = b.new_page(viewport={"width": 1024, "height": 768})
        page.add_init_script("window.requestIdleCallback = () => 0;")
        page.goto(f"{server.url}/scalar?classroom=1")
        wait_idle(page)
        drawn(page)  # every chart drawn once: a first drawing is never put off
        for preset, reach in (("Flood", lambda: page.locator(".st-key-scalar-w_h [data-testid='stSlider']").hover()),
                              ("Fade", lambda: page.locator(".st-key-scalar-cobweb").scroll_into_view_if_needed())):
            page.mouse.move(5, 5)  # off every slider
            page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollTo(0, 0)")
            page.evaluate(WATCH)
            page.get_by_role("button", name=preset).click()
            page.wait_for_function("() => __seen.some(([k, e]) => k === 'scalar-cobweb' && e === 'later')",
                                   timeout=30_000)
            wait_idle(page)
            page.wait_for_timeout(500)  # the run is over and the page has had time: the chart still waits
            assert page.evaluate(WAITING), (preset, page.evaluate("() => __seen"))
            reach()  # nothing else draws it now: drawn() waits for that
            assert same(drawn(page), fresh_cobweb(b, page.url)), preset
