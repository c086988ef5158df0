"""What a student does with a scrubbed slider (ui/live/scrub.py), in headless Chromium: the pointer rests on the thumb
300 ms, presses, and sweeps the slider's whole range in SWEEP_S seconds each way (to the top end, then to the bottom
end); frames painted per second, the longest still (no new frame while the thumb moved on), and each painted frame's
numbers and words against the server's at the value it shows. Then the key column: an arrow key on the slider to the
chart's first repaint (the frame drawn ahead, or the rerun's figure), median of KEYS presses.

Used by benchmarks/browser.py (its --sweep rows); the page's defaults are what `server_item` computes (the
lesson registry's `scrubbed`)."""
from __future__ import annotations

import statistics
import sys
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
SWEEP_S, MOVE_MS, REST_MS, KEYS = 2.0, 16, 300, 5


class Sweep(NamedTuple):
    page: str  # URL path
    slider: str  # widget key
    chart: str  # the chart's key: the one in view beside the slider (`alone`: the key of the words' container)
    alone: bool = False  # words alone follow the slider, no chart (ui/live/scrub.py Scrub without `build`)

    @property
    def target(self) -> str:
        """What the frames are painted on, as a CSS selector: the chart, or the words' container."""
        return ".st-key-" + self.chart.replace(".", "-") + ("" if self.alone else " .rnnviz-chart")


SWEEPS = [Sweep("scalar", f"scalar.{n}", "scalar.tanh") for n in ("w_h", "w_x", "b", "h0")] + [
    Sweep("gradients", "grad.scale", "grad.decay"), Sweep("gradients", "grad.bf", "grad.decay"),
    Sweep("gradients", "grad.xs", "grad.decay"), Sweep("gradients", "grad.bz", "grad.decay"),
    Sweep("gradients", "grad.H", "grad.decay"), Sweep("gradients", "grad.T", "grad.decay"),
    Sweep("gradients?view=factors", "grad.scale", "grad.factors"),
    Sweep("gradients?view=clip", "grad.H", "grad.clip_fig"),
    Sweep("gradients", "grad.rho", "grad.train"), Sweep("gradients", "grad.lr", "grad.train"),
    Sweep("gradients", "grad.tclip", "grad.train"),
    Sweep("recurrences?view=eigen", "rec.r2", "rec.plane"), Sweep("recurrences?view=eigen", "rec.th2", "rec.plane"),
    Sweep("recurrences?view=eigen", "rec.r2", "rec.impulse"),
    Sweep("recurrences", "rec.a", "rec.linear"), Sweep("recurrences", "rec.b", "rec.linear"),
    Sweep("recurrences?view=selective", "rec.w", "rec.selective"),
    Sweep("recurrences?view=selective", "rec.c", "rec.selective"), Sweep("recurrences?view=grad", "rec.gT", "rec.grad"),
    Sweep("recurrences?view=min", "rec.H", "rec.min"),
    Sweep("vector", "vector.radius", "vector.moves"), Sweep("vector", "vector.H", "vector.moves"),
    Sweep("vector?in=vectors", "vector.K", "vector.moves"),
    Sweep("gates", "gates.bf", "gates.heat"), Sweep("gates", "gates.radius", "gates.heat"),
    Sweep("gates", "gates.H", "gates.heat"), Sweep("gates", "gates.T", "gates.valve"),
    Sweep("hello", "hello.H", "hello.steps_fig"), Sweep("hello", "hello.temp", "hello.softmax"),
    Sweep("hello", "hello.n", "words-hello-sample", alone=True),
    Sweep("gates?view=lockstep&trained=0", "gates.bf", "gates.memory"),
    Sweep("gates?view=lockstep&trained=0", "gates.radius", "gates.memory"),
    Sweep("gates?view=lockstep&trained=0", "gates.H", "gates.memory"),
    Sweep("sample", "sample.char", "sample.at", alone=True), Sweep("sample", "sample.temp", "sample.text", alone=True),
    Sweep("sample", "sample.top_p", "sample.text", alone=True)]


def _lockstep_items(classroom: bool) -> list:
    """The three untrained cells' scrubbed sliders as the lockstep view opens with trained=0: the First letter preset
    (ui/lessons/gates_memory.py open_on_the_lesson) at the declared H, seed, radius and b_f."""
    from rnnviz.lessons import vector
    from ui.lagview import memory_scrubs
    from ui.lessons import gates as g, gates_memory
    from ui.urlstate import font_scale

    d, sets = g.CONTROLS.defaults(), gates_memory.MEMORY_PRESETS["first"]["sets"]
    x = vector.encode_word(sets["word"], vector.parse_vocab(sets["vocab"]))
    c = g.GateSetup("lstm", x, list(sets["word"]), d["H"], d["seed"], d["radius"], d["bf"], False)
    return memory_scrubs(c, font_scale(classroom))


def _vector_items(classroom: bool) -> list:
    """The cell page's scrubbed sliders as it opens on typed vectors (in=vectors: K has a slider), at the declared
    vectors, sizes, seed, radius and step."""
    from rnnviz.lessons.vector import parse_vectors
    from ui.lessons import vector as v
    from ui.urlstate import font_scale

    d = v.CONTROLS.defaults()
    s = v.Settings(parse_vectors(d["vectors"]), None, None, d["H"], d["K"], d["seed"], d["radius"], False)
    return v.scrubs(s, font_scale(classroom), d["t"], classroom)


def server_item(sw: Sweep, classroom: bool = False):
    """The Scrub the page builds for the sweep's slider and chart as it opens (ui/lessons/registry.py `scrubbed`), as a
    projector's page has it if `classroom`: its `build` and `words`."""
    sys.path.insert(0, str(ROOT))
    from ui.lessons.registry import lesson
    from ui.live.scrub import on_projector

    items = (_lockstep_items(classroom) if "view=lockstep" in sw.page else _vector_items(classroom)
             if "in=vectors" in sw.page else lesson(sw.page.split("?")[0]).scrubbed(classroom))
    items = on_projector(items) if classroom else items
    return next(i for i in items if i.slider == sw.slider and i.chart == sw.chart)


_CSS = "(k) => '.st-key-' + k.trim().replace(/[^a-zA-Z0-9_-]/g, '-')"
# the track's box, the slider's range and value, the thumb's centre, and the words the chart's frames carry
GEOMETRY = """([slider, scrub, target]) => { const css = """ + _CSS + """;
  const input = document.querySelector(css(slider) + ' input[type=range]');
  const gd = document.querySelector(target);
  if (!input || !(gd?._fullLayout || gd?.matches('[class*="st-key-"]'))
      || !input.closest('[data-testid="stSlider"]').checkVisibility()) return null;
  const track = input.parentElement.parentElement.parentElement.getBoundingClientRect();
  const thumb = input.parentElement.parentElement.getBoundingClientRect();
  return {left: track.left, width: track.width, x: thumb.left + thumb.width / 2, y: thumb.top + thumb.height / 2,
          min: Number(input.min), max: Number(input.max), step: Number(input.step), value: Number(input.value)}; }"""
# the share of the chart's height inside the window (0: the visitor cannot see it move)
IN_VIEW = """(target) => {
  const r = document.querySelector(target).getBoundingClientRect();
  return r.height ? Math.max(0, Math.min(r.bottom, innerHeight) - Math.max(r.top, 0)) / r.height : 0; }"""
# until the element has kept its place for 5 animation frames running (at most 2 s)
STILL = """(css) => new Promise(done => { const el = document.querySelector(css); let last = null, same = 0;
  const t0 = performance.now();
  const look = () => { const r = el.getBoundingClientRect(), now = `${r.x},${r.y},${r.width},${r.height}`;
    same = now === last ? same + 1 : 0; last = now;
    if (same >= 5 || performance.now() - t0 > 2000) done(); else requestAnimationFrame(look); };
  requestAnimationFrame(look); })"""
# every animation frame in which ui/live/scrub.js drew a new frame: when, the value drawn, the thumb's, the moving
# traces' points as plotly.js holds them, and the words of each text the frames carry
RECORD = """([slider, chart, scrub, target]) => { const css = """ + _CSS + """;
  const input = document.querySelector(css(slider) + ' input[type=range]');
  const gd = document.querySelector(target);
  const pieces = (key) => { const el = document.querySelector(css(key)); if (!el) return null;
    const w = document.createTreeWalker(el, NodeFilter.SHOW_TEXT), out = [];
    while (w.nextNode()) if (w.currentNode.nodeValue.trim()) out.push(w.currentNode.nodeValue);
    return out; };
  const rec = window.__sweep = {frames: [], on: true, last: gd.__rnnvizScrub?.drawn || 0};
  const loop = (now) => {
    if (!rec.on) return;
    const s = gd.__rnnvizScrub;
    if (s && s.drawn !== rec.last) {
      rec.last = s.drawn;
      const it = [...(scrub.scrubs()?.items.values() || [])].find((i) => i.slider === slider && i.chart === chart);
      const f = it?.drag.find((u) => u.values[s.frame] === s.value);
      const keys = new Set((it?.drag || []).flatMap((u) => Object.keys(u.words || {})));
      rec.frames.push({value: s.value, thumb: Number(input.value), t: now, whole: !!s.whole,
                       data: (f?.data || []).filter((d) => d.attr === 'x' || d.attr === 'y').map((d) =>
                         [d.trace, d.attr, Array.from(gd._fullData[d.trace][d.attr] || [])]),
                       words: Object.fromEntries([...keys].map((k) => [k, pieces(k)]))});
    }
    requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop); }"""
# pointermove events as the mouse sends them, from inside the page on a clock of its own, after a real press: the
# time each move went
MOVES = """([xs, y, ms]) => new Promise(done => {
  const t0 = performance.now(), at = [];
  let n = 0;
  const next = () => {
    if (n === xs.length) return done(at);
    const x = xs[n++], target = document.elementFromPoint(x, y) || document.body;
    at.push(performance.now());
    target.dispatchEvent(new PointerEvent('pointermove', {pointerId: 1, pointerType: 'mouse', isPrimary: true,
      clientX: x, clientY: y, screenX: x, screenY: y, buttons: 1, bubbles: true, composed: true, cancelable: true}));
    target.dispatchEvent(new MouseEvent('mousemove', {clientX: x, clientY: y, screenX: x, screenY: y, buttons: 1,
      bubbles: true, composed: true, cancelable: true}));
    setTimeout(next, Math.max(0, t0 + n * ms - performance.now()));
  };
  next();
})"""
# a key on the focused slider to the chart's first repaint: the keydown's timestamp to the animation frame after the
# chart's next drawing (plotly_afterplot: a frame drawn ahead or the rerun's figure); null after 3 s
KEY = """([target]) => { window.__key = new Promise(done => {
  const gd = document.querySelector(target);
  let t0 = null;
  // a chart: its next drawing (plotly_afterplot); words alone: the next change to their container's text or bars
  const watch = gd.on ? null : new MutationObserver(() => drawn());
  const off = () => (watch ? watch.disconnect() : gd.removeListener('plotly_afterplot', drawn));
  const stop = setTimeout(() => { off(); done(null); }, 3000);
  const drawn = () => {
    if (t0 === null) return;
    off();
    clearTimeout(stop);
    requestAnimationFrame((now) => done(now - t0));
  };
  // (a text view's markup is in its component's shadow root: watched too)
  const roots = [gd, ...[...gd.querySelectorAll('*')].filter((e) => e.shadowRoot).map((e) => e.shadowRoot)];
  if (watch) roots.forEach((r) => watch.observe(r, {subtree: true, childList: true, characterData: true,
                                                    attributes: true}));
  else gd.on('plotly_afterplot', drawn);
  document.addEventListener('keydown', (e) => { t0 = e.timeStamp; }, {capture: true, once: true});
}); }"""


def _equal_figure(frame: dict, build) -> bool:
    import numpy as np

    def same(got, want) -> bool:
        try:
            return np.allclose(np.array(got, dtype=float), np.asarray(want, dtype=float), rtol=1e-12, atol=1e-12,
                               equal_nan=True)
        except (TypeError, ValueError):  # categories (the clipping chart's units): the same labels
            return [str(u) for u in got] == [str(u) for u in want]

    want = build(frame["value"]).to_dict()["data"]
    return all(same(got, want[i].get(a, got)) for i, a, got in frame["data"] if got)


def _equal_words(frame: dict, said) -> bool:
    from rnnviz.live.words import as_pieces

    if not frame["words"]:
        return True
    want = said(frame["value"])  # (a text the page does not show as the drag begins, None, is nowhere to follow)
    return all(frame["words"][k] == as_pieces(w) for k, w in want.items() if frame["words"].get(k) is not None)


def _phase(frames: list[dict], t0: float, t1: float) -> dict:
    """Frames painted between t0 and t1 (ms, the page's clock): per second, and the longest still."""
    ts = [t0] + [f["t"] for f in frames if t0 <= f["t"] <= t1] + [t1]
    return {"fps": (len(ts) - 2) / ((t1 - t0) / 1000), "still_ms": max(b - a for a, b in zip(ts, ts[1:]))}


def sweep_fps(browser, app_url: str, sw: Sweep, width: int, height: int, classroom: bool, css_key) -> dict:
    """The sweep row: rest, press, sweep up then down, release; then KEYS key presses. See the module."""
    sys.path.insert(0, str(ROOT))
    from ui.live.assets import MODULES  # the page's scrub module: the same instance, imported at its address

    page = browser.new_page(viewport={"width": width, "height": height})
    try:
        url = app_url.rstrip("/") + "/" + sw.page
        page.goto(url + ("&" if "?" in url else "?") + "classroom=1" if classroom else url)
        page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=60_000)
        slider = css_key(sw.slider)
        if not page.locator(slider).count():
            return {"skip": f"no slider {sw.slider!r}"}
        scrub = page.evaluate_handle(f"() => import(new URL('app/static/{MODULES}/scrub.js', document.baseURI).href)")
        drawn = "true" if sw.alone else f"document.querySelector('{sw.target}')?._fullLayout"
        page.wait_for_function(f"(m) => {drawn} && m.scrubs()?.items.size", arg=scrub, timeout=60_000)
        if not page.locator(slider).is_visible():  # on a projector the page folds its secondary settings away
            fold = page.locator(f"details:has({slider}) > summary")
            if not fold.count():
                return {"skip": f"the slider {sw.slider!r} is hidden"}
            fold.first.click()
            page.locator(slider).wait_for(state="visible", timeout=10_000)
        def to(target: str) -> dict | None:  # scrolled to, once the slider holds still there: its geometry
            page.locator(target).scroll_into_view_if_needed()
            page.evaluate(STILL, slider)
            return page.evaluate(GEOMETRY, [sw.slider, scrub, sw.target])

        page.evaluate(STILL, slider)  # a fold just opened is still sliding open: the thumb is pressed where it stops
        to(slider)
        to(slider)
        # the chart the hand moves brought into view, as a visitor does, where the slider stays on screen with it (on a
        # projector a page can keep its controls in view beside its charts: ui.widgets.follow)
        g = to(sw.target)
        if not g or not 0 <= g["y"] <= height:  # the slider went: back to it
            g = to(slider)
        if not g or not 0 <= g["y"] <= height:
            return {"skip": f"the slider {sw.slider!r} is not on screen"}
        page.mouse.move(g["x"], g["y"])  # the pointer reaches the thumb and rests there (the page asks for frames)
        page.wait_for_timeout(REST_MS)
        step = g["width"] / (SWEEP_S * 1000 / MOVE_MS)  # the whole range in SWEEP_S
        right, left = g["left"] + g["width"] + 4, g["left"] - 4  # past the ends: the thumb stops there
        up = [min(right, g["x"] + step * (k + 1)) for k in range(int((right - g["x"]) / step) + 1)]
        down = [max(left, right - step * (k + 1)) for k in range(int((right - left) / step) + 1)]
        seen = page.evaluate(IN_VIEW, sw.target)  # how much of the chart the visitor sees as they press
        page.evaluate(RECORD, [sw.slider, sw.chart, scrub, sw.target])
        page.mouse.down()
        at = page.evaluate(MOVES, [up + down, g["y"], MOVE_MS])
        page.wait_for_timeout(100)
        frames = page.evaluate("() => { window.__sweep.on = false; return window.__sweep.frames; }")
        page.mouse.move(left, g["y"])
        page.mouse.up()
        item = server_item(sw, classroom)
        build = item.build
        end = at[-1] + MOVE_MS
        phases = [_phase(frames, at[0], at[len(up)]), _phase(frames, at[len(up)], end)]
        # a thumb that opens at the range's top has no way up: its down sweep alone (the sampling page's Top-p; its
        # few moves past the end, 4 px, read as a way up of 0 fps)
        moved = [phases[1]] if g["value"] >= g["max"] else phases
        row = {"page": sw.page, "slider": sw.slider, "chart": sw.chart, "width": width, "classroom": classroom,
               "fps": min(p["fps"] for p in moved), "still_ms": max(p["still_ms"] for p in moved),
               "fps_up": phases[0]["fps"], "fps_down": phases[1]["fps"], "painted": len(frames),
               "equal": sum(_equal_figure(f, build) for f in frames) if build else None,
               "words": sum(_equal_words(f, item.words) for f in frames if f["words"]) if item.words else None,
               "with_words": sum(bool(f["words"]) for f in frames),
               "whole": sum(f["whole"] for f in frames), "seconds": (end - at[0]) / 1000, "in_view": seen,
               "notches": round((g["max"] - g["min"]) / g["step"])}
        # the key column: the page settled at the bottom end after the release, then arrows up
        page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=60_000)
        page.wait_for_timeout(500)
        thumb = page.locator(slider).get_by_role("slider").first
        keys = []
        for n in range(KEYS + 1):
            thumb.focus()
            page.evaluate(KEY, [sw.target])
            page.keyboard.press("ArrowRight")
            ms = page.evaluate("() => window.__key")
            row["key_in_view"] = page.evaluate(IN_VIEW, sw.target)
            page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=60_000)
            page.wait_for_timeout(300)
            if n and ms is not None:  # the first asks for the frames at the new value (a rest on the slider)
                keys.append(ms)
        row["key_ms"] = statistics.median(keys) if keys else None
        return row
    finally:
        page.close()


class Stepping(NamedTuple):
    page: str  # URL path
    chart: str  # the chart's key: the stepped chart a step redraws


STEPPING = [Stepping("scalar?t=1", "scalar.tanh"), Stepping("vector", "vector.moves"), Stepping("gates", "gates.heat"),
            Stepping("gates?view=lockstep", "gates.lockstep"), Stepping("recurrences", "rec.linear"),
            Stepping("recurrences?view=min", "rec.min")]


# a key to the first drawing of the chart (its key) after it: Plotly.react or newPlot called on an element inside the
# chart's container (a rerun may put a new element there), then the animation frame after it; null after 3 s
KEY_DRAWN = """([chart]) => { window.__key = new Promise(done => { const css = """ + _CSS + """;
  let t0 = null, stop = null;
  const undo = ['react', 'newPlot'].map((name) => { const f = Plotly[name];
    Plotly[name] = function (gd, ...rest) { const r = f.call(this, gd, ...rest);
      if (t0 !== null && gd?.closest?.(css(chart))) {
        clearTimeout(stop); restore(); Promise.resolve(r).then(() => requestAnimationFrame((now) => done(now - t0)));
      }
      return r; };
    return () => { Plotly[name] = f; }; });
  const restore = () => undo.forEach((u) => u());
  stop = setTimeout(() => { restore(); done(null); }, 3000);
  document.addEventListener('keydown', (e) => { t0 = e.timeStamp; }, {capture: true, once: true});
}); }"""
PRESSES = 4  # each way: the cell and gates pages' word has 5 steps


def step_keys(browser, app_url: str, sp: Stepping, width: int, height: int, classroom: bool, css_key) -> dict:
    """The stepping keys: Next (→) up to PRESSES times, then Back (←) as many (Back first on a page that opens at its
    last step; none past an end), each from the keydown to the animation frame after the chart's first drawing
    (KEY_DRAWN), the page idle between presses."""
    page = browser.new_page(viewport={"width": width, "height": height})
    idle = '[data-testid="stApp"][data-test-script-state="notRunning"]'
    try:
        url = app_url.rstrip("/") + "/" + sp.page
        page.goto(url + ("&" if "?" in url else "?") + "classroom=1" if classroom else url)
        page.wait_for_selector(idle, timeout=60_000)
        page.wait_for_function(f"() => document.querySelector('{css_key(sp.chart)} .rnnviz-chart')?._fullLayout",
                               timeout=60_000)
        page.locator(f"{css_key(sp.chart)} .rnnviz-chart").scroll_into_view_if_needed()
        page.wait_for_timeout(500)
        out, ways = {}, [("ArrowRight", "next"), ("ArrowLeft", "back")]
        if page.locator("button:has-text('Next ▶'):disabled").count():  # a page that opens at its last step
            ways.reverse()
        for key, name in ways:
            ms = []
            for _ in range(PRESSES):
                if page.locator(f"button:has-text('{'Next ▶' if name == 'next' else '◀ Back'}'):disabled").count():
                    break  # at the end: nothing to step to (the one-unit page has 3 steps)
                page.evaluate("() => document.activeElement?.blur()")  # the page's own keys, not a widget's
                page.evaluate(KEY_DRAWN, [sp.chart])
                page.keyboard.press(key)
                ms.append(page.evaluate("() => window.__key"))
                page.wait_for_selector(idle, timeout=60_000)
                page.wait_for_timeout(300)
            got = [m for m in ms if m is not None]
            out[f"{name}_ms"], out[f"{name}_missed"] = (statistics.median(got) if got else None), len(ms) - len(got)
        out["in_view"] = page.evaluate(IN_VIEW, f"{css_key(sp.chart)} .rnnviz-chart")
        return out
    finally:
        page.close()


def _rows(rows: list[dict], name, width: int, line) -> None:
    """Each row: where it was measured (`name(row)`, the width, classroom), then `line(row)` or why it was skipped."""
    for d in rows:
        where = f"{name(d)} at {d['width']}" + (" classroom" if d.get("classroom") else "")
        print(f"  {where:<{width}} " + (f"SKIP {d['skip']}" if "skip" in d else line(d)))


def report_steps(rows: list[dict]) -> None:
    print(f"stepping keys: → pressed up to {PRESSES} times then ← as many (← first where a page opens at its last "
          "step), the page idle between; ms = the keydown to the chart's first repaint (median; 'none' if it was not "
          "redrawn within 3 s)")

    def line(d: dict) -> str:
        ms = {k: f"{d[k + '_ms']:.0f} ms" if d[k + "_ms"] is not None else "none" for k in ("next", "back")}
        missed = d["next_missed"] + d["back_missed"]
        return (f"Next {ms['next']:>7}  Back {ms['back']:>7}" + (f"  ({missed} not redrawn)" if missed else "")
                + ("" if d["in_view"] >= 0.5 else f"  CHART {100 * d['in_view']:.0f}% IN VIEW"))
    _rows(rows, lambda d: f"{d['page']} {d['chart']}", 52, line)


def report(rows: list[dict]) -> None:
    print(f"sweeps: the pointer rests {REST_MS} ms on the thumb, presses, and sweeps the whole range in {SWEEP_S:g} s "
          "each way (up, then down); fps = frames painted per second (the slower way; a slider of N notches shows at "
          "most N / 2 s, one frame a notch, and the screen at most 60); still = the longest time no "
          "new frame was painted while the thumb moved; values / words = painted frames whose numbers / words are "
          "the server's at the value shown; key = an arrow key to the chart's first repaint (median)")
    def line(d: dict) -> str:
        words = f"{d['words']}/{d['with_words']}" if d["words"] is not None else "-"
        key = f"{d['key_ms']:.0f} ms" if d.get("key_ms") is not None else "-"
        seen = "" if d["in_view"] >= 0.5 and d["key_in_view"] >= 0.5 else (
            f"  CHART {100 * d['in_view']:.0f}% IN VIEW (press), {100 * d['key_in_view']:.0f}% (keys)")
        return (f"{d['fps']:>5.1f} fps (up {d['fps_up']:.0f}, down {d['fps_down']:.0f}; {d['notches']} notches: at "
                f"most {min(60, d['notches'] / SWEEP_S):.0f})  still {d['still_ms']:>4.0f} ms  values "
                f"{'-' if d['equal'] is None else d['equal']}/{d['painted']}"
                f"  words {words}  key {key}  {d['whole']} whole redraws{seen}")
    _rows(rows, lambda d: f"{d['slider']} -> {d['chart']}", 48, line)
