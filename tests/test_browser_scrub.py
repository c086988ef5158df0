"""In a real browser: the one-unit page's chart of h_t over time and its tanh chart follow the w_h slider during a
drag (Streamlit sends nothing until release), with the server's numbers for the value the thumb holds, and settle on
release."""
import numpy as np
import pytest

from rnnviz.lessons.scalar import run_scalar
from tests.browser import Server, chromium, painted, wait_idle
from ui.lessons.scalar import D

pytestmark = pytest.mark.slow
READ = """() => ({value: Number(document.querySelector('.st-key-scalar-w_h input[type=range]').value),
  h: Array.from(document.querySelector('.st-key-scalar-states .rnnviz-chart')._fullData[1].y),
  range: document.querySelector('.st-key-scalar-states .rnnviz-chart')._fullLayout.yaxis.range,
  whole: document.querySelector('.st-key-scalar-states .rnnviz-chart').__rnnvizScrub?.whole,
  bars: document.querySelectorAll('.st-key-scalar-states .rnnviz-chart g.barlayer g.point path').length,
  z: Array.from(document.querySelector('.st-key-scalar-tanh .rnnviz-chart')._fullData[3].x),
  tanh: Array.from(document.querySelector('.st-key-scalar-tanh .rnnviz-chart')._fullData[3].y),
  title: document.querySelector('.st-key-scalar-tanh .rnnviz-chart')._fullLayout.title.text,
  text: document.querySelector('[data-testid="stMain"]').innerText})"""


FRAMES = """() => [...(window.__rnnvizScrubs?.items.values() || [])].filter(it => it.frames).map(it => it.slider)"""


def expected(w_h: float) -> np.ndarray:
    return run_scalar(list(D.x), D.w_x, w_h, D.b, D.h0).h[:, 0]


def last_step(w_h: float) -> list[float]:
    """Where the tanh chart rings the last step (the page opens there): (z, h), z within the chart's ±4 at these
    values."""
    run = run_scalar(list(D.x), D.w_x, w_h, D.b, D.h0)
    return [run.pre[-1, 0], run.h[-1, 0]]


def test_the_chart_follows_the_w_h_slider_while_dragged():
    server = Server()
    try:
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(server.url + "/scalar")
            wait_idle(page)
            page.wait_for_function("() => document.documentElement.dataset.rnnvizScrub === 'ready' && "
                                   "document.querySelector('.st-key-scalar-states .rnnviz-chart')?._fullLayout",
                                   timeout=60_000)
            assert not [*page.evaluate(FRAMES)]  # no frames until the pointer reaches a slider: nothing computed
            page.locator(".st-key-scalar-w_h").hover()  # frames for w_h, then and from then on for each setting
            page.wait_for_function(f"() => ({FRAMES})().includes('scalar.w_h')", timeout=60_000)
            painted(page)
            before = page.evaluate(READ)
            np.testing.assert_allclose(before["h"], expected(before["value"]), rtol=0, atol=1e-12)
            box = page.locator(".st-key-scalar-w_h input[type=range]").locator("xpath=../..").bounding_box()
            x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
            page.mouse.move(x, y)
            page.mouse.down()
            seen = []
            for k in range(1, 10):  # a few notches at a time, to the right, mouse held down (about 36 notches in
                page.mouse.move(x + 2 * k, y)  # all: the frames reach 44 or more either way of the value)
                page.wait_for_timeout(50)
                seen.append(page.evaluate(READ))
            mid = seen[-1]
            for _ in range(100):  # the thumb held still: the chart reaches its value (a frame behind under load)
                if np.allclose(mid["h"], expected(mid["value"]), rtol=0, atol=1e-12):
                    break
                page.wait_for_timeout(50)
                mid = page.evaluate(READ)
            said = f"= {D.w_h} × {expected(D.w_h)[1]:.3f}"  # the step sentence's wₕhₜ₋₁, as the server last heard wₕ
            assert said in before["text"] and all(said in s["text"] for s in seen)  # Streamlit hears nothing yet
            assert mid["value"] > before["value"] and mid["h"] != before["h"]  # the chart moved with the thumb...
            for s in seen[3:]:  # ... to the server's numbers for the value it held (a frame behind at most)
                assert any(np.allclose(s["h"], expected(v), rtol=0, atol=1e-12) for v in (s["value"], *[
                    p["value"] for p in seen]))
            np.testing.assert_allclose(mid["h"], expected(mid["value"]), rtol=0, atol=1e-12)
            # the tanh chart beside the sliders too: its last step's point where that value puts it, no stale words
            np.testing.assert_allclose([mid["z"][0], mid["tanh"][0]], last_step(mid["value"]), rtol=0, atol=1e-12)
            assert mid["title"].endswith("on tanh, as you drag") and "=" not in mid["title"]
            assert before["title"].startswith("Step 3: z =")
            for s in seen:  # every point shown inside the axes, which hold still unless a frame would not fit
                assert s["range"][0] <= min(s["h"]) and max(s["h"]) <= s["range"][1]
                assert s["bars"] == before["bars"] == len(D.x)  # the inputs' bars stay while the points move
            assert sum(s["whole"] is False for s in seen) >= len(seen) // 2  # mostly by moving the points alone
            # on past the frames first sent (44 notches or more either way): the next window comes while dragging
            for k in range(10, 21):
                page.mouse.move(x + 2 * k, y)
                page.wait_for_timeout(50)
            page.wait_for_function("() => { const v = Number(document.querySelector('.st-key-scalar-w_h "
                                   "input[type=range]').value); return v > 3.5 && document.querySelector("
                                   "'.st-key-scalar-states .rnnviz-chart').__rnnvizScrub?.value === v; }",
                                   timeout=30_000)
            far = page.evaluate(READ)
            np.testing.assert_allclose(far["h"], expected(far["value"]), rtol=0, atol=1e-12)
            assert said in far["text"]  # still the drag: the server has not heard the slider
            mid = far
            page.mouse.up()
            # the release's rerun may not have begun when the page first reads idle: wait for the chart it redraws
            # (the tanh chart's sentence comes back with it; the drag frames already showed the released numbers)
            page.wait_for_function("() => document.querySelector('.st-key-scalar-tanh .rnnviz-chart')._fullLayout"
                                   ".title.text.startsWith('Step 3: z =')", timeout=30_000)
            wait_idle(page)
            painted(page)
            after = page.evaluate(READ)  # settled by the rerun, at the value released
            assert after["value"] == mid["value"]
            np.testing.assert_allclose(after["h"], expected(after["value"]), rtol=0, atol=1e-12)
            np.testing.assert_allclose([after["z"][0], after["tanh"][0]], last_step(after["value"]), rtol=0,
                                       atol=1e-12)
            assert after["title"].startswith("Step 3: z =")  # the chart as drawn, with its numbers, again
            assert page.evaluate(FRAMES) == ["scalar.w_h"] * 2  # both charts; the sliders never reached cost nothing
    finally:
        server.close()
