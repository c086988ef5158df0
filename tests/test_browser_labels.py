"""In a real browser: no chart label overlaps another or is cut off, on a projector (1024 px, classroom) and a laptop
(1400 px), at the one-unit page's presets and slider extremes and on the other crowded charts (issue 23)."""
from contextlib import closing

import pytest

from tests.browser import Server, chromium, painted, wait_idle

pytestmark = pytest.mark.slow

# Every chart's label boxes: trace text (textpoint) must lie inside one of its plot areas (Plotly clips it there);
# annotations inside the chart. Boxes are shrunk by 1 px so that touching is not overlapping.
LABELS = """() => [...document.querySelectorAll('.js-plotly-plot')].map(gd => {
  const key = (gd.closest('[class*="st-key-"]')?.className.match(/st-key-(\\S+)/) || [])[1];
  const r = el => { const b = el.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  const areas = [...gd.querySelectorAll('.nsewdrag')].map(r), chart = r(gd);
  const text = [...gd.querySelectorAll('.textpoint text, .annotation-text-g')]
    .filter(el => el.textContent.trim() && el.getBoundingClientRect().width > 0)
    .map(el => ({text: el.textContent, box: r(el), trace: el.matches('.textpoint text')}));
  return {key, areas, chart, text};
})"""


def inside(b, a, slack=1.0) -> bool:
    return b[0] >= a[0] - slack and b[1] >= a[1] - slack and b[2] <= a[2] + slack and b[3] <= a[3] + slack


def overlap(a, b, slack=1.0) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > slack and min(a[3], b[3]) - max(a[1], b[1]) > slack


def problems(charts: list[dict]) -> list[str]:
    out = []
    for c in charts:
        for i, lab in enumerate(c["text"]):
            where = c["areas"] if lab["trace"] else [c["chart"]]
            if not any(inside(lab["box"], a) for a in where):
                out.append(f"{c['key']}: {lab['text']!r} is cut off")
            out += [f"{c['key']}: {lab['text']!r} overlaps {o['text']!r}" for o in c["text"][i + 1:]
                    if overlap(lab["box"], o["box"])]
    return out


@pytest.fixture(scope="module")
def browser():
    with chromium() as b, closing(Server()) as server:  # no server started where there is no browser
        b.server = server
        yield b


LONG = ",".join(["1"] + ["0"] * 199)
SETUPS = {  # the presets from the notes, then each slider at its extremes, then 200 inputs
    "scalar": ["", "wh=2", "x=1,0,1", "x=1,0,0,0,0,0,0,0,0,0,0", "wh=10", "wh=-10", "wx=-10&b=10", "wh=10&h0=-1",
               f"x={LONG}", f"x={LONG}&t=100"],
    "vector": ["radius=3", "radius=0"],
}


@pytest.mark.parametrize("width,classroom", [(1024, True), (1400, False)])
def test_no_label_overlaps_another_or_is_cut_off(browser, width, classroom):
    page = browser.new_page(viewport={"width": width, "height": 900})
    found = []
    for path, queries in SETUPS.items():
        for q in queries:
            query = "&".join(s for s in (q, "classroom=1" if classroom else "classroom=0") if s)
            page.goto(f"{browser.server.url}/{path}?{query}")
            wait_idle(page)
            page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length > 0", timeout=60_000)
            painted(page)
            found += [f"{path}?{q}: {p}" for p in problems(page.evaluate(LABELS))]
    page.close()
    assert found == []
