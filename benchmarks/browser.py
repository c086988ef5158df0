"""What a visitor feels: key press or click until the page is idle again and painted, in headless Chromium.

    python benchmarks/browser.py [--repeat 7] [--only scalar sample] [--url http://127.0.0.1:8501] [--json out.json]
    python benchmarks/browser.py --only floor --floor-variants --repeat 15   # the fragment experiment alone
    python benchmarks/browser.py --no-scrub --only gradients --against http://127.0.0.1:8502  # this app vs another

Starts app.py (unless --url; one it starts is opened once and its one-time warm-up let finish, SETTLE_S) and
benchmarks/floor_app.py on loopback ports 8700-8799; rows are timed against two floors, the one-chart page (xfloor)
and a bare page with a slider and one line of text (xbare, Streamlit's round trip).
Then (unless --no-scrub) the charts that follow a slider while dragged (ui/live), at --width and in classroom mode
at 1024x768: frames per second repainted and each frame's numbers against the server's. Every interaction in SCENARIOS
is warmed up, then timed `--repeat` times, alternating direction. Each input is followed by one on each floor page,
so a row and its floors see the same load; xfloor = row median / floor median, xbare = row median / bare median.
t0: the trusted keydown/pointerdown's timeStamp; t1: two animation frames after the server's script_finished has
arrived and stApp's data-test-script-state reads "notRunning" (see INIT); `all ms` goes on to the moment every chart
is drawn, those out of view too (ui/live draws them once the page is idle). No sleeps within a timing; a row with a
pause waits that long before each input, untimed, as a visitor reading the page would. A missing widget prints SKIP.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import socket
import statistics
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from contextlib import ExitStack
from pathlib import Path
from typing import NamedTuple

from playwright.sync_api import (
    Error as PlaywrightError,
    Locator,
    Page,
    TimeoutError as PlaywrightTimeout,
    sync_playwright,
)

try:
    from benchmarks.load import settle
    from benchmarks.sweep import STEPPING, SWEEPS, Sweep, report, report_steps, server_item, step_keys, sweep_fps
except ImportError:  # run as a script: its folder is on the path
    from load import settle
    from sweep import STEPPING, SWEEPS, Sweep, report, report_steps, server_item, step_keys, sweep_fps

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


class Scenario(NamedTuple):
    page: str  # URL path, and the row's name
    label: str
    kind: str  # slider: arrow keys on its thumb; keys: page shortcuts; click: buttons/toggles; option: a choice
    keys: tuple  # widget keys; for click, the widgets clicked in turn (one key: the same one every time)
    arg: tuple = ("ArrowRight", "ArrowLeft")  # keys pressed in turn (slider, keys) or option labels (option)
    tab: str | None = None  # a tab to open first
    fresh: str | None = None  # a URL parameter given a value never used before each input (the page loaded anew)
    pause: float = 0.0  # seconds a visitor spends on the page before each input (reading it), not timed


# Keep in step with the widget keys in the pages. Presses alternate through `arg` (or `keys`), so the state oscillates.
SCENARIOS = [
    Scenario("scalar", "→/← step keys", "keys", ("scalar.next",), ("ArrowLeft", "ArrowRight")),  # opens at the end
    Scenario("scalar", "w_h slider", "slider", ("scalar.w_h",)),
    Scenario("vector", "spectral radius slider", "slider", ("vector.radius",)),
    Scenario("vector", "→/← step keys", "keys", ("vector.next",)),
    Scenario("gates", "forget bias slider", "slider", ("gates.bf",)),
    Scenario("gates", "→/← step keys", "keys", ("gates.next",)),
    Scenario("gates", "valve steps slider", "slider", ("gates.T",)),
    Scenario("gates?view=lockstep", "side by side: →/← step keys", "keys", ("gates.next",)),
    Scenario("gates?view=lockstep", "side by side: radius slider", "slider", ("gates.radius",)),
    Scenario("states?view=padding", "torch check toggle", "click", ("states.torch_pad",)),
    Scenario("states?view=params", "cell RNN/GRU", "option", ("states.cell",), ("GRU", "RNN")),
    Scenario("gradients", "W_hh scale slider", "slider", ("grad.scale",)),
    Scenario("gradients", "Explode/Vanish buttons", "click", ("grad.explode", "grad.vanish")),
    Scenario("gradients", "forget bias slider", "slider", ("grad.bf",)),
    Scenario("recurrences", "linear: →/← step keys", "keys", ("rec.lin.next",)),
    Scenario("recurrences", "linear: a slider", "slider", ("rec.a",)),
    Scenario("recurrences?view=eigen", "eigenvalues: radius r2 slider", "slider", ("rec.r2",)),
    Scenario("recurrences?view=min", "minGRU: →/← step keys", "keys", ("rec.min.next",)),
    Scenario("recurrences?view=selective", "selective: w slider", "slider", ("rec.w",)),
    Scenario("recurrences?view=grad", "gradients: T slider", "slider", ("rec.gT",)),
    Scenario("hello", "Train (run to completion)", "click", ("hello.train",)),
    Scenario("hello", "Train, a new seed each time", "click", ("hello.train",), fresh="seed"),  # nothing kept
    Scenario("sample", "temperature slider", "slider", ("sample.temp",)),
    Scenario("sample", "position slider", "slider", ("sample.char",)),
    Scenario("sample", "shade surprisal/probability", "option", ("sample.shade",), ("surprisal", "probability")),
    Scenario("sample", "Sample again", "click", ("sample.again",)),
    Scenario("sample", "Sample again, first after loading", "click", ("sample.again",), fresh="seed"),
    Scenario("sample", "Sample again, after reading 1 s", "click", ("sample.again",), pause=1.0),  # drawn ahead
    Scenario("sample", "Branch from here/Clear", "click", ("sample.branch", "sample.unforce")),
    Scenario("sample?shade=connectivity&pos=350", "connectivity: position past 300", "slider", ("sample.char",)),
    Scenario("sample?view=gates&over=sample", "gate saturation of each new sample", "click", ("sample.again",)),
    Scenario("sample?view=gates&over=sample", "gate saturation, after reading 1 s", "click", ("sample.again",),
             pause=1.0),
    Scenario("sample?shade=connectivity&pos=350", "connectivity: stepping on, 0.5 s apart", "slider",
             ("sample.char",), ("ArrowRight",), pause=0.5),  # a new position each time: computed ahead
]
FLOOR = Scenario("floor", "one chart, slider", "slider", ("floor.phase",))
BARE = Scenario("floor", "no chart, slider", "slider", ("floor.phase",))  # ?variant=bare: Streamlit's round trip
FLOOR_VARIANTS = {"one": "1 chart, full rerun", "bare": "no chart", "live": "1 chart drawn in place (the app's way)",
                  "full": "4 charts + table, full rerun", "changing": "same, all 4 charts change",
                  "fragment": "4 charts + table, fragment", "table": "no chart, 2 tables (st.table)",
                  "mdtable": "no chart, 2 tables (markdown)",
                  "controls": "no chart, 9 unchanged controls", "words": "no chart, 5 metrics + a paragraph",
                  "lesson": "9 controls, 5 metrics, a paragraph, 1 chart in place"}
WARMUP = 2
SETTLE_S = 2.0  # after a server started here has run once, then until it is quiet: its one-time background work (the
# sampling page's first look, ui.sample.ahead.warm_up, ~3 s of CPU, and the frames of the pages' sliders as they open,
# ui.live.scrub.warm, ~40 s; both a second after the first run) is over before any row is timed, as for a class on a
# server that has been up a little while (the sampling warm-up alone took ~40 ms from the first row's inputs and the
# floors beside them)
TIMEOUT_MS = 60_000
LOST_MS = 10_000

# Done = the server's script_finished message has arrived (a hook on the WebSocket: fast runs can finish before
# React ever renders "running", so the attribute alone can miss a run) and stApp's data-test-script-state is
# "notRunning", still so two animation frames later (painted), with no chart of ui/live/draw.js still drawing. Fragment
# reruns flip the attribute too.
# An input the page ignored (no rerun_script message sent within LOST_MS) is reported as 'lost' and sent again.
INIT = """(() => {
  const b = window.__bench = {armed: null, t0: null, sent: false, finished: false, gen: 0, finishing: false};
  const state = () => document.querySelector('[data-testid="stApp"]')?.getAttribute('data-test-script-state');
  const field = (u, f) => {  // a top-level protobuf field: its varint value or length; undefined if absent
    let i = 0;
    const varint = () => {
      let v = 0, s = 1, x;
      do { x = u[i++]; v += (x & 127) * s; s *= 128; } while (x & 128);
      return v;
    };
    while (i < u.length) {
      const tag = varint(), w = tag & 7;
      const n = w === 0 || w === 2 ? varint() : w === 1 ? 8 : w === 5 ? 4 : -1;
      if (tag >> 3 === f) return n;
      if (n < 0) return undefined;
      if (w !== 0) i += n;
    }
  };
  const bytes = d => ArrayBuffer.isView(d) ? new Uint8Array(d.buffer, d.byteOffset, d.byteLength) : new Uint8Array(d);
  const check = () => {
    if (b.armed === null || b.finishing || !b.finished || state() !== 'notRunning') return;
    b.finishing = true;
    const gen = b.gen;
    requestAnimationFrame(() => requestAnimationFrame(() => {
      b.finishing = false;
      if (gen !== b.gen || state() !== 'notRunning') return check();  // another run began meanwhile
      if (document.querySelector('.rnnviz-chart[aria-busy="true"]')) return check();  // a chart is mid-draw
      const t1 = performance.now(), t0 = b.t0 ?? b.armed;
      b.armed = null;
      const all = () => {  // every chart drawn, those out of view too (ui/live/draw.js: once the page is idle)
        if (document.querySelector('.rnnviz-chart[data-rnnviz-later], .rnnviz-chart[aria-busy="true"]')) {
          return requestAnimationFrame(all);
        }
        b.resolve([t1 - t0, performance.now() - t0]);
      };
      all();
    }));
  };
  window.WebSocket = class extends window.WebSocket {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', e => {
        const status = b.armed === null ? undefined : field(bytes(e.data), 6);  // ForwardMsg.script_finished
        if (status !== undefined && status !== 2) b.finished = true;  // 2: FINISHED_EARLY_FOR_RERUN
        check();
      });
    }
    send(data) {
      if (b.armed !== null && field(bytes(data), 11) !== undefined) b.sent = true;  // BackMsg.rerun_script
      return super.send(data);
    }
  };
  const first = e => { if (b.armed !== null && b.t0 === null && e.isTrusted) b.t0 = e.timeStamp; };
  for (const type of ['keydown', 'pointerdown', 'mousedown']) window.addEventListener(type, first, true);
  new MutationObserver(() => { if (state() === 'running') b.gen++; check(); }).observe(
    document, {attributes: true, subtree: true, attributeFilter: ['data-test-script-state']});
})()"""
ARM = """() => { const b = window.__bench;
  Object.assign(b, {t0: null, sent: false, finished: false, finishing: false, armed: performance.now()});
  b.done = new Promise(r => { b.resolve = r; }); }"""
WAIT = """([lost, timeout]) => new Promise(r => { const b = window.__bench;
  b.done.then(r);
  setTimeout(() => { if (!b.sent) { b.armed = null; r('lost'); } }, lost);
  setTimeout(() => r(null), timeout); })"""


def css_key(key: str) -> str:
    """The class Streamlit puts on a keyed widget's element container (st-key-<key>, odd characters as '-')."""
    return ".st-key-" + re.sub(r"[^a-zA-Z0-9_-]", "-", key.strip())


PORTS = [8700, 8799]  # --ports: where the servers started here listen


def free_port(start: int) -> int:
    for port in range(max(start, PORTS[0]), PORTS[1] + 1):
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) != 0:
                return port
    raise RuntimeError(f"no free port in {PORTS[0]}-{PORTS[1]}")


def serve(script: str, port: int) -> tuple[subprocess.Popen, str]:
    """Start `streamlit run script` on loopback and wait until it answers its health check."""
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", script, "--server.port", str(port),
                             "--server.headless", "true", "--server.address", "127.0.0.1",
                             "--browser.gatherUsageStats", "false"], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):  # readiness polling, not timing
        if proc.poll() is not None:  # exited: the port was taken after all, or the script failed
            break
        try:
            urllib.request.urlopen(url + "/_stcore/health", timeout=1)
            return proc, url
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"{script} did not start on port {port}")


def present(locator: Locator) -> bool:
    """Whether the element shows up within a few seconds (the run that draws it has already finished)."""
    try:
        locator.first.wait_for(state="attached", timeout=10_000)
        return True
    except PlaywrightTimeout:
        return False


def open_page(page: Page, url: str, sc: Scenario) -> str | None:
    """Load the page and open its tab; the reason to skip, or None."""
    page.goto(url)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=TIMEOUT_MS)
    page.wait_for_selector('[data-testid="stMain"] h1', timeout=TIMEOUT_MS)
    if sc.tab:
        if not present(tab := page.get_by_role("tab", name=sc.tab)):
            return f"no tab {sc.tab!r}"
        tab.first.click()
    return None if present(page.locator(css_key(sc.keys[0]))) else f"no widget with key {sc.keys[0]!r}"


def act(page: Page, sc: Scenario, n: int) -> list[float] | str | None:
    """The n-th input of a scenario, timed in ms: [page painted, every chart drawn (those out of view, which the page
    draws once it is idle, too)]; 'lost' if the page sent no rerun; None if none finished in time."""
    time.sleep(sc.pause)  # the visitor reads what the last input showed (the server may work ahead meanwhile)
    if sc.fresh:  # the page loaded again with a setting no earlier input used: nothing cached or drawn ahead for it
        url = urllib.parse.urlsplit(page.url)
        fresh = {sc.fresh: 3001 + 37 * n}  # unused on a server started for this run
        query = urllib.parse.urlencode({**dict(urllib.parse.parse_qsl(url.query)), **fresh})
        if why := open_page(page, url._replace(query=query).geturl(), sc):
            raise Skip(why)
    if sc.kind == "slider":
        target = page.locator(css_key(sc.keys[0])).get_by_role("slider").first
        target.scroll_into_view_if_needed()
        target.focus()
    elif sc.kind == "keys":
        page.evaluate("() => document.activeElement && document.activeElement.blur()")  # shortcuts skip inputs
    elif sc.kind == "click":
        target = page.locator(css_key(sc.keys[n % len(sc.keys)])).locator("button, label").first  # button or toggle
    else:  # option
        label = sc.arg[n % len(sc.arg)]
        box = page.locator(css_key(sc.keys[0]))
        target = box.locator("button, label").filter(has_text=re.compile(f"^{re.escape(label)}$")).first
    if sc.kind in ("click", "option"):
        target.wait_for(state="visible", timeout=TIMEOUT_MS)
        target.scroll_into_view_if_needed()
    page.evaluate(ARM)
    if sc.kind in ("slider", "keys"):
        page.keyboard.press(sc.arg[n % len(sc.arg)])
    else:
        target.click()
    return page.evaluate(WAIT, [LOST_MS, TIMEOUT_MS])


class Skip(Exception):
    """A row that cannot be timed: reported as SKIP, the run goes on."""


def timed_input(page: Page, sc: Scenario, n: int) -> list[float]:
    """The n-th input, sent again if the page ignored it (as it can right after a load); act's two ms, or Skip."""
    for _ in range(4):
        ms = act(page, sc, n)
        if ms != "lost":
            break
    if ms is None or ms == "lost":
        raise Skip(f"input {n}: " + ("ignored 4 times, no rerun requested" if ms else
                                     f"no rerun finished within {TIMEOUT_MS // 1000} s"))
    return ms


def interleaved(probes: list[tuple[Page, Scenario]], repeat: int, every: list | None = None) -> list[list[float]]:
    """Input n on each page in turn, so load that comes and goes (other processes) falls on all of them alike; ms to
    the page painted for each page (and into `every`, to every chart drawn)."""
    samples, alls = [[] for _ in probes], [[] for _ in probes]
    for n in range(WARMUP + repeat):
        for (page, sc), out, out_all in zip(probes, samples, alls):
            ms, all_ms = timed_input(page, sc, n)
            if n >= WARMUP:
                out.append(ms)
                out_all.append(all_ms)
    if every is not None:
        every[:] = alls
    return samples


def reason(e: Exception) -> str:
    """What went wrong, in one line."""
    return str(e) if isinstance(e, Skip) else f"{type(e).__name__}: {str(e).splitlines()[0][:120]}"


# ---- frames per second while dragging (ui/live/scrub.py) ------------------------------------------------------------

class Drag(NamedTuple):
    page: str  # URL path (the page's defaults: what `server_figure` computes)
    slider: str  # widget key
    chart: str  # the chart's key


SCRUBS = [Drag("scalar", "scalar.w_h", "scalar.states"), Drag("scalar", "scalar.w_h", "scalar.tanh"),
          Drag("gradients", "grad.scale", "grad.decay"),
          Drag("gradients", "grad.bf", "grad.decay"), Drag("recurrences?view=eigen", "rec.r2", "rec.plane"),
          Drag("recurrences", "rec.a", "rec.linear"), Drag("recurrences?view=selective", "rec.w", "rec.selective")]
MOVE_MS, DRAG_S = 16, 2.0

# The chart and its slider: the track's box, the slider's range and the values the server sent frames for. Then a
# recorder: on every animation frame in which ui/live/scrub.js drew a new frame, the value it drew, the thumb's value
# and the chart's x and y as plotly.js holds them (_fullData) for the traces the frames change.
GEOMETRY = """([slider, chart, scrub]) => {
  const input = document.querySelector(slider + ' input[type=range]');
  const gd = document.querySelector(chart + ' .rnnviz-chart');
  const R = scrub.scrubs();
  if (!input || !gd || !gd._fullLayout || !R || document.documentElement.dataset.rnnvizScrub !== 'ready') return null;
  const item = [...R.items.values()].find(
    it => it.frames && slider === '.st-key-' + it.slider.replace(/[^a-zA-Z0-9_-]/g, '-')
      && chart === '.st-key-' + it.chart.replace(/[^a-zA-Z0-9_-]/g, '-'));
  if (!item) return null;
  const track = input.parentElement.parentElement.parentElement.getBoundingClientRect();
  const thumb = input.parentElement.parentElement.getBoundingClientRect();
  return {shown: input.closest('[data-testid="stSlider"]').checkVisibility(), left: track.left, width: track.width,
          y: thumb.top + thumb.height / 2, x: thumb.left + thumb.width / 2,
          min: Number(input.min), max: Number(input.max), value: Number(input.value), values: item.frames.values,
          traces: [...new Set(item.frames.data.map(d => d.trace))]};
}"""
RECORD = """([slider, chart, traces]) => {
  const input = document.querySelector(slider + ' input[type=range]');
  const gd = document.querySelector(chart + ' .rnnviz-chart');
  const rec = window.__drag = {frames: [], on: true, last: (gd.__rnnvizScrub || {}).drawn || 0};
  const loop = () => {
    if (!rec.on) return;
    const s = gd.__rnnvizScrub;
    if (s && s.drawn !== rec.last) {
      rec.last = s.drawn;
      rec.frames.push({value: s.value, thumb: Number(input.value), t: performance.now(), mark: s, whole: !!s.whole,
                       drawn: gd.querySelectorAll('.cartesianlayer g.trace').length,
                       traces: gd._fullData.filter(t => t.visible === true).length,
                       data: traces.map(i => [i, Array.from(gd._fullData[i].x || []),
                                              Array.from(gd._fullData[i].y || [])])});
    }
    requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop);
}"""
# a frame's draw time is known when it is drawn (Plotly.animate ends a frame or two after it starts): read at the end
STOP = ("() => { window.__drag.on = false; "
        "return window.__drag.frames.map(({mark, ...f}) => ({...f, ms: mark.ms})); }")
# The moves, from inside the page on a clock of its own (one Playwright call per move takes longer than 16 ms on a
# loaded machine): pointermove events as the mouse sends them, after a real press on the thumb, to the element under
# the pointer; resolves with the seconds they took.
MOVES = """([xs, y, ms]) => new Promise(done => {
  const t0 = performance.now();
  let n = 0;
  const next = () => {
    if (n === xs.length) return done((performance.now() - t0) / 1000);
    const x = xs[n++], target = document.elementFromPoint(x, y) || document.body;
    target.dispatchEvent(new PointerEvent('pointermove', {pointerId: 1, pointerType: 'mouse', isPrimary: true,
      clientX: x, clientY: y, screenX: x, screenY: y, buttons: 1, bubbles: true, composed: true, cancelable: true}));
    target.dispatchEvent(new MouseEvent('mousemove', {clientX: x, clientY: y, screenX: x, screenY: y, buttons: 1,
      bubbles: true, composed: true, cancelable: true}));
    setTimeout(next, Math.max(0, t0 + n * ms - performance.now()));
  };
  next();
})"""


def server_figure(drag: Drag):
    """The figure the server draws for `drag`'s chart at a slider value, at the page's defaults (the page's own
    calls, through the same functions ui/live/scrub.py computes its frames with)."""
    return server_item(Sweep(drag.page, drag.slider, drag.chart)).build


def drag_fps(browser, app_url: str, drag: Drag, width: int, height: int, classroom: bool) -> dict:
    """Hold the mouse down on the slider's thumb and move it every MOVE_MS ms for DRAG_S s, back and forth over the
    values the server sent frames for (at least one notch a move); frames the chart repainted per second, and each
    painted frame's numbers against the server's figure at the value it shows."""
    import numpy as np

    page = browser.new_page(viewport={"width": width, "height": height})
    try:
        url = app_url.rstrip("/") + "/" + drag.page
        page.goto(url + ("&" if "?" in url else "?") + "classroom=1" if classroom else url)
        page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=TIMEOUT_MS)
        slider, chart = css_key(drag.slider), css_key(drag.chart)
        if not present(page.locator(slider)):
            raise Skip(f"no slider {drag.slider!r}")
        # the page's charts drawn and its scrubbed sliders known (ui/live/scrub.js installed), the slider in view;
        # then the pointer reaches the slider, as a visitor's does before a press, and the page computes its frames
        sys.path.insert(0, str(ROOT))
        from ui.live.assets import MODULES  # the page's scrub module: the same instance, imported at its address

        scrub = page.evaluate_handle(f"() => import(new URL('app/static/{MODULES}/scrub.js', document.baseURI).href)")
        page.wait_for_function(f"(m) => document.querySelector('{chart} .rnnviz-chart')?._fullLayout && "
                               "m.scrubs()?.items.size", arg=scrub, timeout=TIMEOUT_MS)
        if not page.locator(slider).is_visible():  # on a projector the page folds its secondary settings away:
            fold = page.locator(f"details:has({slider}) > summary")  # open them, as the lecturer does
            if not fold.count():
                raise Skip(f"the slider {drag.slider!r} is hidden")
            fold.first.click()
            page.locator(slider).wait_for(state="visible", timeout=10_000)
        page.locator(slider).scroll_into_view_if_needed()
        page.locator(slider).hover(timeout=10_000)
        page.wait_for_function(GEOMETRY, arg=[slider, chart, scrub], timeout=TIMEOUT_MS)  # frames sent, chart drawn
        page.locator(slider).scroll_into_view_if_needed()  # now: the charts drawn above it may have moved it
        g = page.evaluate(GEOMETRY, [slider, chart, scrub])
        if not 0 <= g["y"] <= height:
            raise Skip(f"the slider {drag.slider!r} is not on screen")
        if not g["shown"] or g["width"] <= 0:  # on a projector the page folds its secondary settings away
            raise Skip(f"the slider {drag.slider!r} is folded away")
        notch = (g["max"] - g["min"]) / g["width"]  # value per pixel
        values, k0 = g["values"], min(range(len(g["values"])), key=lambda j: abs(g["values"][j] - g["value"]))
        stride = max(1, math.ceil(notch / abs(values[1] - values[0]) if len(values) > 1 else 1))
        path, k, sign = [], k0, 1
        for _ in range(round(DRAG_S * 1000 / MOVE_MS)):  # back and forth over the frames, from the current value
            if not 0 <= k + sign * stride < len(values):
                sign = -sign
            k += sign * stride
            path.append(g["x"] + (values[k] - g["value"]) / notch)
        page.evaluate(RECORD, [slider, chart, g["traces"]])
        page.mouse.move(g["x"], g["y"])
        page.mouse.down()
        seconds = page.evaluate(MOVES, [path, g["y"], MOVE_MS])
        frames = page.evaluate(STOP)
        page.mouse.move(path[-1], g["y"])  # where the last move left the thumb, then released
        page.mouse.up()
        build, equal = server_figure(drag), 0
        for f in frames:
            want = build(f["value"]).to_dict()["data"]
            equal += all(np.allclose(np.array(got, dtype=float), np.asarray(want[i].get(a, got), dtype=float),
                                     rtol=1e-12, atol=1e-12, equal_nan=True)
                         for i, xs, ys in f["data"] for a, got in (("x", xs), ("y", ys)) if got)
        return {"page": drag.page, "slider": drag.slider, "chart": drag.chart, "width": width, "classroom": classroom,
                "fps": len(frames) / seconds, "painted": len(frames), "checked": len(frames), "equal": equal,
                "moves": len(path), "seconds": seconds, "values": len({f["thumb"] for f in frames}),
                "current": sum(f["value"] == f["thumb"] for f in frames),
                "whole": sum(f["whole"] for f in frames), "kept": sum(f["drawn"] == f["traces"] for f in frames),
                "draw_ms": statistics.median(ms) if (ms := [f["ms"] for f in frames if f["ms"] is not None]) else None}
    finally:
        page.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=7, help="timed inputs per interaction (median reported)")
    ap.add_argument("--only", nargs="*", help="pages to time, e.g. --only scalar sample (--only floor: none)")
    ap.add_argument("--url", help="an already running app (default: start app.py on a free port in 8700-8799)")
    ap.add_argument("--against", metavar="URL",
                    help="a second running app (another checkout, say) timed on the same rows, its inputs alternating "
                         "with this one's and the floors': its median and the difference are printed")
    ap.add_argument("--width", type=int, default=1400, help="browser window width")
    ap.add_argument("--json", help="write the results to this file")
    ap.add_argument("--floor-variants", action="store_true",
                    help="also time floor_app.py's variants (one chart drawn in place, 4 charts: full rerun, charts "
                         "changing, fragment; two tables: st.table, markdown)")
    ap.add_argument("--no-scrub", action="store_true", help="leave out the frames-per-second-while-dragging rows")
    ap.add_argument("--drag-only", action="store_true", help="only the frames-per-second-while-dragging rows")
    ap.add_argument("--sweep", action="store_true",
                    help="also the sweep rows (benchmarks/sweep.py): each scrubbed slider's whole range in 2 s both "
                         "ways, and a key to the chart's first repaint")
    ap.add_argument("--sweep-only", action="store_true", help="only the sweep rows (and the stepping keys')")
    ap.add_argument("--steps-only", action="store_true",
                    help="only the stepping keys' rows: Back and Next to the stepped chart's first repaint")
    ap.add_argument("--ports", default="8700-8799", help="the loopback ports the servers started here may take")
    args = ap.parse_args()
    PORTS[:] = [int(p) for p in args.ports.split("-")]
    if args.sweep_only or args.steps_only:
        args.sweep, args.drag_only, args.no_scrub = True, True, True
    rows = [s for s in SCENARIOS if (not args.only or s.page.split("?")[0] in args.only) and not args.drag_only]
    scrubs = [] if args.no_scrub else [s for s in SCRUBS if not args.only or s.page.split("?")[0] in args.only]
    sweeps = [s for s in SWEEPS if args.sweep and not args.steps_only and (not args.only or s.page.split("?")[0] in
                                                                         args.only)]
    steppings = [s for s in STEPPING if args.sweep and (not args.only or s.page.split("?")[0] in args.only)]
    results, variants, floor_samples, bare_samples, dragged, swept, stepped = [], {}, [], [], [], [], []
    with ExitStack() as stack:
        fproc, floor_url = serve("benchmarks/floor_app.py", free_port(PORTS[0]))
        stack.callback(lambda: fproc.kill() or fproc.wait())
        app_url = args.url
        if not app_url and (rows or scrubs or sweeps or steppings):
            aproc, app_url = serve("app.py", free_port(int(floor_url.rsplit(":", 1)[1]) + 1))
            stack.callback(lambda: aproc.kill() or aproc.wait())
        browser = stack.enter_context(sync_playwright()).chromium.launch(executable_path="/usr/bin/chromium",
                                                                        args=CHROMIUM_ARGS)
        stack.callback(browser.close)

        def new_page(url: str | None = None, sc: Scenario = FLOOR) -> Page:
            page = browser.new_page(viewport={"width": args.width, "height": 900})
            page.add_init_script(INIT)
            if url and (why := open_page(page, url, sc)):
                raise Skip(why)
            return page

        try:
            floor_page, bare_page = new_page(floor_url + "/?variant=one"), new_page(floor_url + "/?variant=bare", BARE)
            app_page = new_page()
            other_page = new_page() if args.against else None
            # the app's first run, then its warm-up over (SETTLE_S)
            if not args.url and (rows or scrubs or sweeps or steppings):
                app_page.goto(app_url)
                app_page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]',
                                           timeout=TIMEOUT_MS)
                time.sleep(SETTLE_S)  # readiness, not timing: the background work starts, then is over
                settle([aproc.pid], limit=90)
        except (Skip, PlaywrightError) as e:
            sys.exit(f"the floor page could not be opened: {reason(e)}")
        for sc in rows:  # each input on the app is followed by one on each floor page: floors paired with each row
            try:
                if why := open_page(app_page, app_url.rstrip("/") + "/" + sc.page, sc):
                    raise Skip(why)
                if other_page and (why := open_page(other_page, args.against.rstrip("/") + "/" + sc.page, sc)):
                    raise Skip("--against: " + why)
                every = []
                row, floor, bare, *other = interleaved([(app_page, sc), (floor_page, FLOOR), (bare_page, BARE)] + (
                    [(other_page, sc)] if other_page else []), args.repeat, every)
                ms = statistics.median(row)
                results.append({"page": sc.page, "interaction": sc.label, "ms": ms, "samples": row,
                                "all_ms": statistics.median(every[0]), "all_samples": every[0],
                                "xfloor": ms / statistics.median(floor), "xbare": ms / statistics.median(bare),
                                "floor_samples": floor, "bare_samples": bare}
                               | ({"against_ms": statistics.median(other[0]), "against_samples": other[0]} if other
                                  else {}))
                floor_samples += floor
                bare_samples += bare
            except (Skip, PlaywrightError) as e:  # a row that cannot run is reported, not fatal
                results.append({"page": sc.page, "interaction": sc.label, "skip": reason(e)})
            r = results[-1]
            print(f"  {sc.page} / {sc.label}: " + (f"{r['ms']:.0f} ms" if "ms" in r else "SKIP " + r["skip"]),
                  file=sys.stderr, flush=True)
        for sc in scrubs:
            for width, height, classroom in ((args.width, 900, False), (1024, 768, True)):
                try:
                    dragged.append(drag_fps(browser, app_url, sc, width, height, classroom))
                except (Skip, PlaywrightError) as e:
                    dragged.append({"page": sc.page, "slider": sc.slider, "chart": sc.chart, "width": width,
                                    "skip": reason(e)})
                print(f"  drag {sc.page} / {sc.slider} -> {sc.chart} at {width}: {dragged[-1].get('fps', 'SKIP')}",
                      file=sys.stderr,
                      flush=True)
        for sw in sweeps:
            for width, height, classroom in ((args.width, 900, False), (1024, 768, True)):
                try:
                    swept.append({"page": sw.page, "slider": sw.slider, "chart": sw.chart, "width": width,
                                  "classroom": classroom} | sweep_fps(browser, app_url, sw, width, height, classroom,
                                                                      css_key))
                except PlaywrightError as e:
                    swept.append({"page": sw.page, "slider": sw.slider, "chart": sw.chart, "width": width,
                                  "classroom": classroom, "skip": reason(e)})
                print(f"  sweep {sw.slider} at {width}: {swept[-1].get('fps', 'SKIP')}", file=sys.stderr, flush=True)
        for sp in steppings:
            for width, height, classroom in ((args.width, 900, False), (1024, 768, True)):
                try:
                    stepped.append({"page": sp.page, "chart": sp.chart, "width": width, "classroom": classroom}
                                   | step_keys(browser, app_url, sp, width, height, classroom, css_key))
                except PlaywrightError as e:
                    stepped.append({"page": sp.page, "chart": sp.chart, "width": width, "classroom": classroom,
                                    "skip": reason(e)})
        try:  # one page per variant, inputs round robin
            chosen = FLOOR_VARIANTS if args.floor_variants else ()
            pages = [(new_page(f"{floor_url}/?variant={v}"), FLOOR) for v in chosen]
            variants = dict(zip(FLOOR_VARIANTS, interleaved(pages, args.repeat)))
        except (Skip, PlaywrightError) as e:
            print(f"floor experiment: SKIP {reason(e)}")

    if args.json:
        Path(args.json).write_text(json.dumps({"repeat": args.repeat, "width": args.width, "load": os.getloadavg(),
                                               "floor_samples": floor_samples, "bare_samples": bare_samples,
                                               "results": results, "floor_variants": variants, "dragging": dragged,
                                               "sweeps": swept, "stepping": stepped},
                                              indent=1))
    print(f"{'page':<26} {'interaction':<34} {'ms':>7} {'xfloor':>7} {'xbare':>7} {'all ms':>7}   (medians of "
          f"{args.repeat}; xfloor: against the one-chart floor, xbare: against the no-chart page, both timed alongside "
          "each row; all ms: until every chart is drawn, those out of view too)")
    if floor_samples:
        print(f"{'floor':<26} {FLOOR.label + ' (all rows)':<34} {statistics.median(floor_samples):>7.0f} {1:>7.2f} "
              f"{statistics.median(floor_samples) / statistics.median(bare_samples):>7.2f}")
        print(f"{'floor':<26} {BARE.label + ' (all rows)':<34} {statistics.median(bare_samples):>7.0f} "
              f"{statistics.median(bare_samples) / statistics.median(floor_samples):>7.2f} {1:>7.2f}")
    if args.against:
        print(f"against: {args.against}, its median ms for each row and this app's ms minus it")
    for r in results:
        print(f"{r['page']:<26} {r['interaction']:<34} " +
              (f"{r['ms']:>7.0f} {r['xfloor']:>7.2f} {r['xbare']:>7.2f} {r['all_ms']:>7.0f}" if "ms" in r
               else f"SKIP {r['skip']}") +
              (f"   against {r['against_ms']:>5.0f}  {r['ms'] - r['against_ms']:+5.0f}" if "against_ms" in r else ""))
    if dragged:
        print(f"dragging: pointer moved every {MOVE_MS} ms for {DRAG_S:g} s (as the page's clock allows: 'moves N in "
              "S s'); fps = frames the chart repainted per second of it; values = painted frames equal to the server's "
              "figure at the value shown / frames checked; every trace drawn = frames in which the chart still draws "
              "each of its traces (the ones that do not move too); frame drawn in = from a frame's draw call to its "
              "end (Plotly.animate's promise, or Plotly.react); whole redraws: frames drawn by Plotly.react (the rest "
              "moved points alone)")
        for d in dragged:
            where = f"{d['slider']} -> {d['chart']} at {d['width']}" + (" classroom" if d.get("classroom") else "")
            print(f"  {where:<52} " + (f"{d['fps']:>5.1f} fps  values {d['equal']}/{d['checked']}  every trace "
                                       f"drawn {d['kept']}/{d['painted']}  moves "
                                       f"{d['moves']} in {d['seconds']:.2f} s  frame drawn in {d['draw_ms'] or 0:.1f} "
                                       "ms "
                                       f"(median), {d['whole']}/{d['painted']} whole redraws, {d['values']} thumb "
                                       f"values, {d['current']}/{d['painted']} painted at the thumb's value of that "
                                       "moment"
                                       if "fps" in d else f"SKIP {d['skip']}"))
    if swept:
        report(swept)
    if stepped:
        report_steps(stepped)
    if variants:
        one, bare = statistics.median(variants["one"]), statistics.median(variants["bare"])
        print("floor experiment, round robin over one page per variant (xfloor: against the first, xbare: against "
              "the no-chart page):")
        for v, label in FLOOR_VARIANTS.items():
            ms = statistics.median(variants[v])
            print(f"{'floor':<26} {label:<38} {ms:>7.0f} {ms / one:>7.2f} {ms / bare:>7.2f}   "
                  f"(min {min(variants[v]):.0f})")
    done = [r for r in results if "ms" in r]
    if done:
        worst = max(done, key=lambda r: r["xfloor"])
        print(f"summary: {len(done)} timed, {len(results) - len(done)} skipped; median "
              f"{statistics.median(r['xfloor'] for r in done):.2f}x floor, {sum(r['xfloor'] <= 1 for r in done)} "
              f"within 1.0x floor, {sum(r['xbare'] <= 1.5 for r in done)} within 1.5x the no-chart page; slowest "
              f"{worst['page']} / {worst['interaction']} {worst['ms']:.0f} ms ({worst['xfloor']:.1f}x)")
    print("load average " + " ".join(f"{v:.1f}" for v in os.getloadavg()) + f" on {os.cpu_count()} cores")

if __name__ == "__main__":
    main()
