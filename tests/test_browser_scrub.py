"""In a real browser: the one-unit page's chart of h_t over time and its tanh chart follow the w_h slider during a
drag (Streamlit sends nothing until release), with the server's numbers for the value the thumb holds, and settle on
release."""
from contextlib import contextmanager

import numpy as np
import pytest

from rnnviz.lessons.presets import ScalarPreset
from rnnviz.lessons.scalar import run_scalar
from rnnviz.live.words import pieces
from tests.browser import Server, chromium, painted, wait_idle
from ui.lessons.scalar import STEP_WORDS, TABLE_WORDS, D, step_words
from ui.live.assets import MODULES

pytestmark = pytest.mark.slow


@contextmanager
def app_page(path: str, width: int = 1400, height: int = 900):
    """`path` on a server of its own, in Chromium at width x height, its first run over."""
    server = Server()
    try:
        with chromium() as browser:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(server.url + path)
            wait_idle(page)
            yield page
    finally:
        server.close()


def key_and_rerun(page, thumb, key: str, chart: str) -> None:
    """Press `key` on the slider `thumb` and wait for the rerun: its figure for `chart` (a key's element class) has
    come, and the page is idle and painted."""
    text = page.evaluate("(c) => document.querySelector(c + ' .rnnviz-chart').__rnnvizText", chart)
    thumb.press(key)
    page.wait_for_function("([c, t]) => document.querySelector(c + ' .rnnviz-chart').__rnnvizText !== t",
                           arg=[chart, text], timeout=30_000)
    wait_idle(page)
    painted(page)
# the text pieces of a keyed container as shown (rnnviz/live/words.py pieces: its non-blank text nodes)
PIECES = """(sel) => { const el = document.querySelector(sel); if (!el) return null;
  const w = document.createTreeWalker(el, NodeFilter.SHOW_TEXT), out = [];
  while (w.nextNode()) if (w.currentNode.nodeValue.trim()) out.push(w.currentNode.nodeValue);
  return out; }"""
READ = """() => ({value: Number(document.querySelector('.st-key-scalar-w_h input[type=range]').value),
  h: Array.from(document.querySelector('.st-key-scalar-states .rnnviz-chart')._fullData[1].y),
  range: document.querySelector('.st-key-scalar-states .rnnviz-chart')._fullLayout.yaxis.range,
  whole: document.querySelector('.st-key-scalar-states .rnnviz-chart').__rnnvizScrub?.whole,
  bars: document.querySelectorAll('.st-key-scalar-states .rnnviz-chart g.barlayer g.point path').length,
  z: Array.from(document.querySelector('.st-key-scalar-tanh .rnnviz-chart')._fullData[3].x),
  tanh: Array.from(document.querySelector('.st-key-scalar-tanh .rnnviz-chart')._fullData[3].y),
  title: document.querySelector('.st-key-scalar-tanh .rnnviz-chart')._fullLayout.title.text,
  text: document.querySelector('[data-testid="stMain"]').innerText,
  said: document.querySelector('.st-key-scalar-tanh .rnnviz-chart').__rnnvizScrub?.value,
  step: (""" + PIECES + """)('.st-key-words-scalar-step'), table: (""" + PIECES + """)('.st-key-long-worked')})"""


# the sliders with frames at hand, as the page's scrub module holds them (scrubs(m): m is that module, imported by
# the test at the address the page imports it from, so the same instance)
FRAMES = """(m) => [...(m.scrubs()?.items.values() || [])].filter(it => it.frames).map(it => it.slider)"""


def scrubs(page):
    """The page's scrub module (ui/live/scrub.js), as a handle to pass to FRAMES."""
    return page.evaluate_handle(f"() => import(new URL('app/static/{MODULES}/scrub.js', document.baseURI).href)")


def frames(page) -> list[str]:
    return page.evaluate(FRAMES, scrubs(page))


def expected(w_h: float) -> np.ndarray:
    return run_scalar(list(D.x), D.w_x, w_h, D.b, D.h0).h[:, 0]


def words_at(w_h: float) -> list[list[str]]:
    """The step sentence's and the worked table's pieces as the server writes them with w_h (the page opens at its
    last step)."""
    run = run_scalar(list(D.x), D.w_x, w_h, D.b, D.h0)
    said = step_words(len(D.x), ScalarPreset(D.w_x, w_h, D.b, D.h0, D.x), run)
    return [pieces(said[STEP_WORDS]), said[TABLE_WORDS]]


def last_step(w_h: float) -> list[float]:
    """Where the tanh chart rings the last step (the page opens there): (z, h), z within the chart's ±4 at these
    values."""
    run = run_scalar(list(D.x), D.w_x, w_h, D.b, D.h0)
    return [run.pre[-1, 0], run.h[-1, 0]]


def test_the_chart_follows_the_w_h_slider_while_dragged():
    # a tall window: hₜ over time is in view (below the fold at 900 px a drag leaves it as drawn until the release)
    with app_page("/scalar", height=1600) as page:
        page.wait_for_function("() => document.documentElement.dataset.rnnvizScrub === 'ready' && "
                               "document.querySelector('.st-key-scalar-states .rnnviz-chart')?._fullLayout",
                               timeout=60_000)
        assert not frames(page)  # no frames until the pointer reaches a slider: nothing computed
        page.locator(".st-key-scalar-w_h").hover()  # frames for w_h, then and from then on for each setting
        page.wait_for_function(f"(m) => ({FRAMES})(m).includes('scalar.w_h')", arg=scrubs(page), timeout=60_000)
        # every set computed (the whole range coarse, then every notch): the chart shows the thumb's own notch
        page.wait_for_function("() => document.documentElement.dataset.rnnvizScrub === 'ready'", timeout=60_000)
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
        assert said in before["text"] and [before["step"], before["table"]] == words_at(D.w_h)
        for s in seen:  # the words follow the frames: the server's sentence and table at the value shown
            assert s["said"] is None or [s["step"], s["table"]] == words_at(s["said"]), s["said"]
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
        assert far["title"].endswith("as you drag")  # still the drag: the server has not heard the slider
        assert [far["step"], far["table"]] == words_at(far["said"]) and far["said"] > 3.5
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
        assert frames(page) == ["scalar.w_h"] * 2  # both charts; the sliders never reached cost nothing
        # The page reads "pending" while any of its scrub components waits for frames, whichever ran last (the gates
        # page has two), and a component that leaves the page no longer counts.
        flags = page.evaluate("""(m) => { const read = () => document.documentElement.dataset.rnnvizScrub;
          const say = (key, pending) => m.default({data: JSON.stringify({pending, items: [], wanted: []}), key,
                                                   setTriggerValue: () => {}});
          const leave = say('test-a', true), out = [read()];
          say('test-b', false); out.push(read());
          leave(); out.push(read());
          const others = [...m.scrubs().pages].some(([k, p]) => !k.startsWith('test-') && p.mounted && p.pending);
          return [...out, others ? 'pending' : 'ready']; }""", scrubs(page))
        assert flags[:2] == ["pending", "pending"] and flags[2] == flags[3]  # the page's own components' state


# The chart as drawn against the same chart drawn afresh from the server's last payload for it (its numbers, axes,
# words; a stepped chart's, ui/live/steps.py, at the step it shows): the keys that differ.
SAME_AS_SENT = """(sel) => { const gd = document.querySelector(sel + ' .rnnviz-chart');
  const arr = (v) => v == null ? null : Array.from(v, (u) => (u == null || Number.isNaN(+u) ? null : +u));
  const snap = (g) => ({data: g._fullData.map((t) => [arr(t.x), arr(t.y), t.name, t.mode, JSON.stringify(t.line)]),
    x: g._fullLayout.xaxis.range, y: g._fullLayout.yaxis.range, title: g._fullLayout.title?.text,
    notes: (g._fullLayout.annotations || []).map((a) => [a.text, a.x, a.y])});
  const sent = JSON.parse(gd.__rnnvizText), fresh = document.createElement('div'), steps = sent.steps;
  if (steps) {  // the step shown: the payload's figure with that step's attributes, as ui/live/stepped.js lays it
    const k = steps.values.indexOf(gd.__rnnvizStep);
    for (const d of steps.data) sent.figure.data[d.trace][d.attr] = d.frames[k];
    for (const l of steps.layout) sent.figure.layout[l.attr] = l.frames[k];
    sent.alt = steps.alts[k];
  }
  fresh.style.width = gd.clientWidth + 'px';
  document.body.append(fresh);
  return Plotly.newPlot(fresh, sent.figure.data, {...sent.figure.layout, template: gd.layout.template,
                                                  autosize: true}).then(() => {
    const a = snap(gd), b = snap(fresh);
    Plotly.purge(fresh);
    fresh.remove();
    return {differ: Object.keys(a).filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k])),
            label: gd.getAttribute('aria-label') === sent.alt};
  }); }"""
# Plotly.react calls: [ui/chart.js's (the server's figure: one argument after the chart), ui/scrub.js's (a frame)]
COUNT = """() => { if (!window.__reacts) { window.__reacts = [0, 0]; const react = Plotly.react;
  Plotly.react = function (...a) { window.__reacts[a.length === 2 ? 0 : 1]++; return react.apply(this, a); }; }
  return window.__reacts.slice(); }"""


# frames drawn by ui/scrub.js (Plotly.react with a layout: three arguments), by the chart's key
COUNT_BY = """() => { if (!window.__reactsBy) { window.__reactsBy = {}; const react = Plotly.react;
  Plotly.react = function (...a) { if (a.length === 3) { const k = a[0].closest('[class*="st-key-"]').className
    .match(/st-key-(\\S+)/)[1]; window.__reactsBy[k] = (window.__reactsBy[k] || 0) + 1; }
    return react.apply(this, a); }; }
  return window.__reactsBy; }"""


@pytest.mark.parametrize("width,classroom", [(1400, False), (1024, True)])
def test_a_key_on_a_slider_moves_its_chart_at_once_and_the_rerun_finds_it_drawn(width, classroom):
    """The gradients page's W_hh scale, moved by the arrow keys: the decay chart shows the frame of the new value as
    the key goes to the server, and the rerun's figure, the same, is not drawn a second time. What stays on the chart
    is what a fresh drawing of the server's figure shows, its text alternative the server's."""
    with app_page("/gradients" + ("?classroom=1" if classroom else ""), width, 768 if classroom else 900) as page:
        page.wait_for_function("() => window.Plotly && document.querySelector('.st-key-grad-decay "
                               ".rnnviz-chart')?._fullLayout", timeout=60_000)
        thumb = page.locator(".st-key-grad-scale input[type=range]")
        assert not frames(page)
        key_and_rerun(page, thumb, "ArrowLeft", ".st-key-grad-decay")  # a key asks for the slider's frames
        page.wait_for_function(f"(m) => ({FRAMES})(m).includes('grad.scale')", arg=scrubs(page), timeout=60_000)
        # the window holding the value, which comes after the coarse set (~0.1 s a frame here)
        page.wait_for_function("(m) => { const v = Number(document.querySelector('.st-key-grad-scale input"
                               "[type=range]').value); return m.scrubs().items.get('grad.scale grad.decay').sets"
                               ".some((f) => f.digests && f.values.includes(v)); }", arg=scrubs(page), timeout=60_000)
        wait_idle(page)
        painted(page)
        page.evaluate(COUNT)
        start = float(thumb.input_value())
        for n in range(1, 4):
            key_and_rerun(page, thumb, "ArrowRight", ".st-key-grad-decay")
            now = page.evaluate(SAME_AS_SENT, ".st-key-grad-decay")
            assert now["differ"] == [] and now["label"], n
        assert float(thumb.input_value()) == pytest.approx(start + 0.15)
        assert page.evaluate(COUNT) == [0, 3]  # each drawn once, from its frame; none by the rerun


def test_a_key_on_a_slider_beside_a_stepped_chart_draws_its_frame_once():
    """The recurrences page's a, moved by the arrow keys: the linear chart (a stepped chart, ui/live/steps.py) shows
    the new value's frame as the key goes to the server, and the rerun's steps, whose step shown is that very figure
    (its digest), draw nothing more (it waited for the rerun: 160 ms under load, against 44 ms drawn ahead)."""
    from rnnviz.lessons import recurrences as rec
    from rnnviz.text import fmt, parse_sequence
    from ui.lessons.recurrences import X_DEFAULT

    with app_page("/recurrences") as page:
        chart = ".st-key-rec-linear"
        page.wait_for_function(f"() => window.Plotly && document.querySelector('{chart} .rnnviz-chart')?._fullLayout",
                               timeout=60_000)
        thumb = page.locator(".st-key-rec-a input[type=range]")
        key_and_rerun(page, thumb, "ArrowLeft", chart)  # a key asks for the slider's frames
        page.wait_for_function("(m) => { const v = Number(document.querySelector('.st-key-rec-a input[type=range]')"
                               ".value); return m.scrubs().items.get('rec.a rec.linear')?.sets"
                               ".some((f) => f.digests && f.values.includes(+(v + 0.01).toFixed(2))); }",
                               arg=scrubs(page), timeout=60_000)
        wait_idle(page)
        painted(page)
        page.evaluate(COUNT)
        for n in range(3):
            key_and_rerun(page, thumb, "ArrowRight", chart)
            a, t = float(thumb.input_value()), int(page.locator(".st-key-rec-lin-t input[type=range]").input_value())
            h = rec.linear_run(a, 1.0, parse_sequence(X_DEFAULT)).h[:, 0]
            drawn = page.evaluate(f"() => document.querySelector('{chart} .rnnviz-chart')._fullData"
                                  ".map((tr) => Array.from(tr.y || []))")
            assert any(np.allclose(y, h[:len(y)], rtol=0, atol=1e-12) for y in drawn if len(y) == t), (n, a)
            assert page.evaluate(f"() => document.querySelector('{chart} .rnnviz-chart').getAttribute('aria-label')"
                                 ) == "h_t: " + ", ".join(fmt(v) for v in h[:t])  # the rerun's own text
        assert page.evaluate(COUNT) == [0, 3]  # each drawn once, from its frame; none by the rerun


def test_frames_another_visitor_asked_for_are_sent_on_a_reach_and_the_next_ones_computed():
    """Frames the first visitor's reach for w_h computed are not sent to a second visitor who has not reached for it
    (a visitor who never drags or keys costs nothing); once they do, they are, and from then on theirs are computed
    too: after End (w_h = 10, where nobody has frames) the arrow keys draw the tanh chart's new frame at once (without
    them each key waited for the rerun, 100-130 ms). A server's opening frames (ui/live/scrub.py warm) reach a visitor
    the same way."""
    server = Server()
    try:
        with chromium() as browser:
            def visit():
                page = browser.new_page(viewport={"width": 1400, "height": 900})
                page.goto(server.url + "/scalar")
                wait_idle(page)
                return page
            first = visit()
            first.locator(".st-key-scalar-w_h [data-testid='stSlider']").hover()  # the first visitor reaches for w_h
            first.wait_for_function(f"(m) => ({FRAMES})(m).includes('scalar.w_h')", arg=scrubs(first),
                                    timeout=60_000)
            wait_idle(first)
            second = visit()
            assert not frames(second)  # not reached for: nothing sent
            second.locator(".st-key-scalar-w_h [data-testid='stSlider']").hover()
            second.wait_for_function(f"(m) => ({FRAMES})(m).includes('scalar.w_h')", arg=scrubs(second),
                                     timeout=30_000)
            chart, thumb = ".st-key-scalar-tanh", second.locator(".st-key-scalar-w_h input[type=range]")
            key_and_rerun(second, thumb, "End", chart)
            assert float(thumb.input_value()) == 10
            second.wait_for_function("(m) => m.scrubs().items.get('scalar.w_h scalar.tanh').sets"
                                     ".some((f) => f.digests && f.values.includes(9.95))", arg=scrubs(second),
                                     timeout=30_000)
            wait_idle(second)
            painted(second)
            second.evaluate(COUNT_BY)
            key_and_rerun(second, thumb, "ArrowLeft", chart)
            assert float(thumb.input_value()) == 9.95
            assert second.evaluate(COUNT_BY).get("scalar-tanh") == 1  # drawn from its frame as the key went
            assert second.evaluate(SAME_AS_SENT, chart)["differ"] == []  # and it is the rerun's figure
    finally:
        server.close()


def test_a_key_leaves_a_chart_out_of_view_to_the_page():
    """The one-unit page's hₜ over time is below the fold at 1400 x 900: a key on wₕ does not draw its frame (that would
    hold up the page; ui/chart.js draws it once the page is idle), and every chart ends as the server's figure."""
    with app_page("/scalar") as page:
        page.wait_for_function("() => window.Plotly", timeout=60_000)
        thumb = page.locator(".st-key-scalar-w_h input[type=range]")
        key_and_rerun(page, thumb, "ArrowLeft", ".st-key-scalar-states")
        page.wait_for_function(f"(m) => ({FRAMES})(m).includes('scalar.w_h')", arg=scrubs(page), timeout=60_000)
        assert page.evaluate("() => document.querySelector('.st-key-scalar-states .rnnviz-chart')"
                             ".getBoundingClientRect().top") > 900
        page.evaluate(COUNT_BY)
        for n in range(2):
            key_and_rerun(page, thumb, "ArrowRight", ".st-key-scalar-states")
            for chart in ("tanh", "states", "cobweb"):
                assert page.evaluate(SAME_AS_SENT, f".st-key-scalar-{chart}")["differ"] == [], (n, chart)
        # no frame drawn on the chart below: it waited for the page (the tanh chart, in view, was drawn ahead)
        assert page.evaluate(COUNT_BY).get("scalar-states", 0) == 0


def recorder(chart: str, record: str, inside: str = " .rnnviz-chart") -> str:
    """A script that records every frame `chart` (its key's class) paints during a drag, in window.__sweep.frames:
    the value it shows and `record`, the fields of a JS object read at that moment (gd, the chart, and pieces, as
    PIECES, at hand). `inside` "": words with no chart, whose frames mark their container."""
    return """() => { const gd = document.querySelector('.st-key-""" + chart + inside + """'), pieces = """ + \
        PIECES + """;
  const rec = window.__sweep = {frames: [], on: true, last: gd.__rnnvizScrub?.drawn || 0};
  const loop = () => {
    if (!rec.on) return;
    const s = gd.__rnnvizScrub;
    if (s && s.drawn !== rec.last) {
      rec.last = s.drawn;
      rec.frames.push({value: s.value, """ + record + """});
    }
    requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop); }"""


# every frame the tanh chart paints during a drag: the value it shows and the words beside it at that moment
SWEEP = recorder("scalar-tanh", "step: pieces('.st-key-words-scalar-step'), table: pieces('.st-key-long-worked')")


def test_a_sweep_across_the_range_paints_the_servers_frames_and_words_all_the_way():
    """w_h swept from 0.5 to 10 in about 2 s after the pointer rested on the thumb: the charts follow over the whole
    range (coarse frames first, then every notch), and each painted frame's step sentence and worked table are the
    server's at the value it shows; released, the page's own rerun shows the released value's words."""
    with app_page("/scalar") as page:
        page.wait_for_function("() => document.documentElement.dataset.rnnvizScrub === 'ready' && "
                               "document.querySelector('.st-key-scalar-tanh .rnnviz-chart')?._fullLayout",
                               timeout=60_000)
        page.locator(".st-key-scalar-w_h").hover()
        page.wait_for_function(f"(m) => ({FRAMES})(m).includes('scalar.w_h')", arg=scrubs(page), timeout=60_000)
        thumb = page.locator(".st-key-scalar-w_h input[type=range]").locator("xpath=../..").bounding_box()
        box = page.locator(".st-key-scalar-w_h input[type=range]").locator("xpath=../../..").bounding_box()  # track
        x, y = thumb["x"] + thumb["width"] / 2, thumb["y"] + thumb["height"] / 2
        page.mouse.move(x, y)
        page.wait_for_timeout(300)  # the pointer rests on the thumb, as a hand does before it presses
        page.evaluate(SWEEP)
        page.mouse.down()
        end = box["x"] + box["width"] + 10  # past the end: the thumb stops at 10
        for k in range(1, 41):  # to the right end in 40 moves
            page.mouse.move(x + (end - x) * k / 40, y)
            page.wait_for_timeout(50)
        page.wait_for_function("() => document.querySelector('.st-key-scalar-tanh .rnnviz-chart').__rnnvizScrub"
                               "?.value === 10", timeout=30_000)  # the last frame, at the slider's end
        frames = page.evaluate("() => { window.__sweep.on = false; return window.__sweep.frames; }")
        page.mouse.move(box["x"] + box["width"] * 0.95, y)  # back a little, and released there
        page.mouse.up()
        assert len(frames) >= 10 and max(f["value"] for f in frames) == 10.0
        for f in frames:
            assert [f["step"], f["table"]] == words_at(f["value"]), f["value"]
        page.wait_for_function("() => document.querySelector('.st-key-scalar-tanh .rnnviz-chart')._fullLayout"
                               ".title.text.startsWith('Step 3: z =')", timeout=30_000)
        wait_idle(page)
        after = page.evaluate(READ)
        assert 8 < after["value"] < 10
        assert [after["step"], after["table"]] == words_at(after["value"])  # the release's own words, whole
