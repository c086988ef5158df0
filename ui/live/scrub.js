// Charts that follow a slider while the mouse is down on it (ui/live/scrub.py): the thumb's range input changes its
// value (and aria-valuetext) on every move of a drag, while Streamlit sends the value only on release. Each move, once
// per animation frame, shows the server's frame for that value on the chart ui/live/chart.js drew: by moving the points
// alone where only points move (Plotly.animate without redraw, a few ms; the axes hold still through the drag),
// otherwise with a whole redraw (Plotly.react, about 30 ms; both in ui/live/frame.js). Nothing is computed here. On
// release the page's rerun draws the chart as always (ui/live/chart.js); a drag released where it began puts the
// chart back as it was. Anything missing (no frames yet, a value outside them, no chart, a chart of another shape)
// leaves the chart alone; outside the frames it is greyed. The frames come in sets (rnnviz/live/schedule.py): the
// whole range coarse, then windows of every notch; each move shows the frame of the notch nearest the thumb among the
// sets at hand (the thumb's own where a window holds it). A drag on coarse frames asks the server for the window around
// the thumb (ui/live/scrub.py `ahead`).
// Frames with a figure of their own (`start`: a form of the chart without the words that change with every value) are
// drawn whole once as the drag begins, then by moving their points. A set's `words` replace the page's texts beside
// the chart with the same frame's (words.js); frames `alone` have words and no chart (the sampling page's sliders).
// The payload: {pending, held, poll, wanted: [slider], items: [{slider, chart, ids: [set id], sets: {id: {values, traces,
// data: [{trace, attr, frames}], layout: [{attr, frames}], hold: null or {axis: [[lo, hi] for each frame]}, start?:
// {data, layout}, words?, bars?, marks?, html?, stale?, alone?}}}]} (rnnviz/live/frames.py; the texts' parts:
// rnnviz/live/words.py followed, written by words.js): `sets` holds only those this page was not sent before; the
// module keeps every set it was sent, by id.
import { outOfView } from "./draw.js";
import { afterSend } from "./send.js";
import { frameOf, movePoints, pick, redraw, stepOf } from "./frame.js";
import { collect, keysOf, settle, write } from "./words.js";

const FLAT = 4;  // looks for pending frames every 150 ms before backing off
const css = (key) => ".st-key-" + key.trim().replace(/[^a-zA-Z0-9_-]/g, "-");
const SETS = 400;  // sets kept in the page at most (those of the sliders' current settings always)

function install() {
  // items: the latest frames for each slider and chart (whichever component sent them); pages: each component's state
  const R = { items: new Map(), sets: new Map(), pages: new Map(), drag: null };
  const sliderOf = (el) => {
    const box = el.closest && el.closest('[data-testid="stSlider"]');
    return box && box.closest('[class*="st-key-"]');
  };
  const show = () => {
    try {
      draw();
    } catch (e) {  // never in the page's way: the rerun on release draws the chart
      R.drag = null;
    }
  };
  const draw = () => {
    const d = R.drag;
    d.queued = false;
    if (d.busy) return;  // a frame is being drawn: its end draws the thumb's latest value
    join(d);  // frames that arrived since
    const v = Number(d.thumb.value);
    const waits = [];
    // a chart out of view is left as drawn (the release's rerun draws it): the cell page's radius moves four charts,
    // and drawing all four took about 120 ms a frame at 1400 x 900, where two of them are below the fold. Read before
    // any is drawn this frame: the page's layout is clean then (a read after a redraw would lay it out again)
    const away = d.charts.map((c) => outOfView(c.gd));
    for (const [j, c] of d.charts.entries()) {
      if (away[j]) continue;
      const it = R.items.get(c.item);  // the sets at hand now: more arrive during a drag
      const sets = (it?.drag || []).filter((f) => f.traces === c.frames.traces && !f.start === !c.frames.start);
      const got = pick(sets, v, c.frames);
      // on coarse frames (or none): ask for the window around the thumb, which the server then computes first. Not
      // more than once a second: each ask is a rerun of the page's scrub part while the browser draws (asking as a
      // drag neared a window's end took the one-unit page's charts from 28-38 to 24-33 frames a second)
      const now = performance.now();
      if ((!got || got.d > d.step / 4) && it && (!c.asked || now - c.asked > 1000)) {
        c.asked = now;
        R.pages.get(it.page)?.trigger("want", `${it.slider}@${v}`);
      }
      if (!got) {  // outside the frames: greyed until frames for it come, or the release
        c.gd.style.opacity = "0.45";
        continue;
      }
      if (got.f !== c.frames) {  // another set: the same attributes (each carries all that any changes)
        c.frames = got.f;
        c.shown = null;
      }
      const { values } = c.frames, k = got.k;
      if (c.shown === k) continue;
      c.gd.style.opacity = "";
      c.shown = k;
      c.gd.__rnnvizText = null;  // what is drawn is no longer the server's last figure: the rerun draws it again
      c.gd.__rnnvizDigest = null;
      // what the chart holds (gd.data and _fullData take frame k as the call starts), and how long it took to draw
      const t0 = performance.now();
      const mark = { value: values[k], frame: k, drawn: (c.gd.__rnnvizScrub?.drawn || 0) + 1, ms: null };
      const moved = c.quick && !c.fresh && movePoints(c, k);
      mark.whole = !c.alone && !moved;
      c.gd.__rnnvizScrub = mark;
      write(c.texts, c.frames, k);  // the words with the frame: synchronous, as the chart
      if (c.alone) {  // the words alone: drawn
        mark.ms = performance.now() - t0;
        continue;
      }
      if (moved) {
        waits.push(moved.then(() => { mark.ms = performance.now() - t0; },
                              () => { c.quick = false; c.shown = null; }));  // then whole redraws
      } else {
        redraw(c, k);  // synchronous for these charts: drawn before the frame is painted
        c.fresh = false;  // the frames' own figure is drawn: from now on its points can move
        mark.ms = performance.now() - t0;
      }
    }
    if (!waits.length) return;
    d.busy = true;
    Promise.all(waits).catch(() => {}).then(() => {
      d.busy = false;
      if (R.drag === d && !d.queued) {  // the thumb may have moved on meanwhile
        d.queued = true;
        requestAnimationFrame(() => { if (R.drag === d) show(); });
      }
    });
  };
  // A press on a slider: the charts that follow it, as they are drawn now.
  // A press on a scrubbed slider begins a drag, frames or not: the charts whose frames are at hand join it now, the
  // others as their frames arrive (a hand that presses before the server has sent them is followed from then on).
  const begin = (box) => {
    const thumb = box && box.querySelector('input[type="range"]');
    if (!thumb || R.drag || ![...R.items.values()].some((it) => box.matches(css(it.slider)))) return;
    R.drag = { box, thumb, charts: [], joined: new Set(), start: thumb.value, queued: false, busy: false,
               step: Number(thumb.step) || Infinity };
    join(R.drag);
  };
  const join = (d) => {
    const { box, thumb, charts, joined } = d;
    const v = Number(thumb.value);
    for (const it of R.items.values()) {
      const item = it.slider + " " + it.chart;
      if (!it.drag.length || joined.has(item) || !box.matches(css(it.slider))) continue;
      const frames = (pick(it.drag, v) || { f: it.drag[0] }).f, start = frames.start, alone = !!frames.alone;
      // the chart, or for words alone (no chart follows: `alone`) the container they are in
      const gd = document.querySelector(css(it.chart) + (alone ? "" : " .rnnviz-chart"));
      if (!gd || (!alone && (!gd._fullLayout || gd.getAttribute("aria-busy")))) continue;
      if (!alone && !start && gd.data.length !== frames.traces) continue;
      joined.add(item);
      // frames that change nothing (the cell page's states at step 1 do not depend on the radius): nothing to draw
      if (!alone && !start && !frames.data.length && !frames.layout.length) continue;
      if (!Number(thumb.step)) it.drag.forEach((f) => { d.step = Math.min(d.step, stepOf(f.values)); });
      const texts = collect(it.drag.flatMap(keysOf));
      if (alone) {
        charts.push({ gd, frames, item, alone, asked: null, texts, shown: null, held: {}, quick: false });
        continue;
      }
      // copies: Plotly.animate writes the moved points into gd.data's traces, and the release may put them back
      const drawn = { data: gd.data.map((t) => ({ ...t })), layout: { ...gd.layout } };
      const types = start ? start.data.map((t) => t.type ?? "scatter") : gd._fullData.map((t) => t.type);
      const moving = new Set(frames.data.map((d2) => d2.trace));
      charts.push({ gd, frames, item, asked: null, text: gd.__rnnvizText, texts,
                    digest: gd.__rnnvizDigest, shown: null, held: {}, fresh: !!start,
                    quick: !!frames.hold && typeof window.Plotly.animate === "function",
                    animated: types.map((t, i) => i).filter((i) => types[i] !== "scatter" || moving.has(i)), drawn,
                    // what frames are laid over (redraw copies it): the frames' own figure, in the look ui/live/draw.js
                    // gives, or the chart as drawn
                    base: start ? { data: start.data, layout: { ...start.layout, template: gd.layout.template,
                                                                autosize: true } } : drawn });
    }
  };
  document.addEventListener("pointerdown", (e) => { if (e.button === 0) begin(sliderOf(e.target)); }, true);
  const end = () => {
    const d = R.drag;
    if (!d) return;
    R.drag = null;
    const same = d.thumb.value === d.start;  // no rerun will come: put the chart back
    const v = Number(d.thumb.value);
    for (const c of d.charts) {
      c.gd.style.opacity = "";
      const at = same ? null : pick(R.items.get(c.item)?.drag || [], v);  // the released value's words, if at hand
      settle(c.texts, at && at.d <= d.step / 4 ? at.f : null, at ? at.k : -1);
      if (same && c.shown !== null && !c.alone) {
        window.Plotly.react(c.gd, c.drawn.data, c.drawn.layout);
        c.gd.__rnnvizText = c.text;
        c.gd.__rnnvizDigest = c.digest;
      }
    }
  };
  window.addEventListener("pointerup", end, true);
  window.addEventListener("pointercancel", end, true);
  new MutationObserver((records) => {
    const d = R.drag;
    if (!d || d.queued || !records.some((r) => r.target === d.thumb)) return;
    d.queued = true;
    requestAnimationFrame(() => { if (R.drag === d) show(); });
  }).observe(document.body, { attributes: true, subtree: true, attributeFilter: ["value", "aria-valuetext"] });
  // A slider the pointer enters, or the keyboard's focus reaches, that this visitor has not reached for yet: ask the
  // server for its frames, once per payload (ui/live/scrub.py computes frames only for the sliders a visitor reaches
  // for, and from then on for each setting). Frames at hand already (a server's opening frames, ui/live/scrub.py
  // warm, or another visitor's) are no reason not to ask: the next setting's, and the frames a key draws near the
  // released value, are computed only for a slider reached for (without it, keys after a sweep waited for the rerun,
  // 100-130 ms instead of about 30). The keyboard's focus asks once no key has moved the slider for QUIET_MS: an ask
  // whose rerun met a key's own (the ask as the focus came, a key pressed at once; or the ask just after the key's
  // move had gone) lost the key's move or left an element of the run before on the page (the thumb moved, the page
  // did not, on 4 of 6 first visits of a fresh server), while an ask well before the press never did.
  const ask = (e) => {
    const box = sliderOf(e.target);
    if (!box) return;
    for (const it of R.items.values()) {
      const page = R.pages.get(it.page);
      if (!page || page.wanted.includes(it.slider) || page.asked.has(it.slider)) continue;
      if (!box.matches(css(it.slider))) continue;
      page.asked.add(it.slider);
      page.trigger("want", it.slider);
    }
  };
  document.addEventListener("pointerover", ask, true);
  const QUIET_MS = 400;
  let quiet = null;
  const askQuietly = (e) => {
    clearTimeout(quiet);
    if (sliderOf(e.target)) quiet = setTimeout(() => ask(e), QUIET_MS);
  };
  document.addEventListener("focusin", askQuietly, true);
  // A key on a slider's thumb moves it a notch: each chart that follows it shows the server's figure for the new
  // value at once, from the frames, while the server's rerun is under way; that rerun's figure, the same (its
  // digest), is then not drawn again (ui/live/chart.js). Only where frame k laid over the chart as drawn is that
  // figure: the chart shows one of these frames (its digest is among theirs), and the frames are the chart's own
  // figures (`digests`: not a form of their own). Drawn just after Streamlit has sent the value on (send.js):
  // drawing first would hold up the rerun. (Drawn ahead without the rerun's drawing left out, the page settled
  // 15-50 ms later than without.)
  const ahead = (box) => {
    const thumb = box.querySelector('input[type="range"]');
    if (!thumb || R.drag) return;
    const v = Number(thumb.value);
    // the frame of exactly this notch (a coarse set's nearest notch may be another: its words would outlive the
    // rerun, which rewrites only what changed between the old value and the new)
    const exactly = (f) => {
      const k = frameOf(f.values, v);
      return k >= 0 && Math.abs(f.values[k] - v) <= (Number(thumb.step) || stepOf(f.values)) / 4 + 1e-9 ? k : -1;
    };
    for (const it of R.items.values()) {
      if (!box.matches(css(it.slider))) continue;
      // words alone: the new value's, written over the page's (the rerun's elements then hold the same words)
      const alone = it.drag.find((u) => u.alone && exactly(u) >= 0), el = document.querySelector(css(it.chart));
      if (alone && el) {
        const k = exactly(alone);
        write(collect(keysOf(alone)), alone, k, false);
        el.__rnnvizScrub = { value: alone.values[k], frame: k, drawn: (el.__rnnvizScrub?.drawn || 0) + 1, ms: 0,
                             whole: false };
      }
      if (!window.Plotly || !it.sets.some((f) => f.digests)) continue;
      const gd = document.querySelector(css(it.chart) + " .rnnviz-chart");
      if (!gd?._fullLayout || gd.__rnnvizBusy || !it.sets.some((f) => f.digests?.includes(gd.__rnnvizDigest))) continue;
      // a chart out of view waits for the page to be idle (ui/live/draw.js): drawn now, it would hold up the page
      if (gd.hasAttribute("data-rnnviz-later") || outOfView(gd)) continue;
      // the new value's frame in any set (each lays all it changes over the chart as drawn): a window's, exact
      const f = it.sets.find((u) => u.digests && exactly(u) >= 0);
      const k = f ? exactly(f) : -1;
      if (k < 0 || f.digests[k] === gd.__rnnvizDigest) continue;
      try {
        redraw({ gd, frames: f, held: {}, base: { data: gd.data.map((t) => ({ ...t })), layout: { ...gd.layout } } },
               k);
        gd.__rnnvizDigest = f.digests[k];
      } catch (e) {  // never in the page's way: the rerun draws the chart
        gd.__rnnvizDigest = null;
      }
    }
  };
  const KEYS = new Set(["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End", "PageUp", "PageDown"]);
  document.addEventListener("keydown", (e) => {
    const box = KEYS.has(e.key) && !e.ctrlKey && !e.metaKey && !e.altKey && sliderOf(e.target);
    if (!box) return;
    let done = false;
    askQuietly(e);
    const thumb = box.querySelector('input[type="range"]'), was = thumb?.value;
    // drawn only where the key moved the thumb: at an end nothing changes, and no rerun would put back what a frame
    // leaves out (a text view's hover titles)
    const go = () => { if (!done) { done = true; if (thumb?.value !== was) ahead(box); } };
    afterSend(go);
    setTimeout(go, 150);  // none went (the slider was at its end): nothing to draw either, as a rule
  }, true);
  R.ask = ask;
  R.show = show;
  return R;
}

let R = null;  // installed as the first scrub component mounts
// "pending" while any scrub component on the page waits for frames (the gates page has two: its view's and the
// valve's), else "ready": what a benchmark's drag waits for (benchmarks/browser.py). One component's "ready" used to
// stand for the page however the other's stood.
const mark = () => {
  const pending = [...R.pages.values()].some((p) => p.mounted && p.pending);
  document.documentElement.dataset.rnnvizScrub = pending ? "pending" : "ready";
};
export const scrubs = () => R;  // {items, sets, pages, drag}: what a test or a benchmark reads

export default function ({ data, key, setTriggerValue }) {
  R ??= install();
  const text = typeof data === "string" ? data : new TextDecoder().decode(data);
  const page = R.pages.get(key) || { text: null, tries: 0 };
  page.trigger = setTriggerValue;
  if (page.text !== text) {
    const { pending, held, items, wanted } = JSON.parse(text);
    let lost = false;
    for (const it of items) {
      for (const [id, f] of Object.entries(it.sets)) R.sets.set(id, f);
      const sets = it.ids.map((id) => R.sets.get(id)).filter(Boolean);
      lost ||= sets.length < it.ids.length;
      // drag: the sets a drag draws (not a `whole` chart's own frames, which only keys draw); frames: the first of
      // them (the coarse one), what a test or a benchmark reads first
      const drag = sets.filter((f) => !f.keys);
      R.items.set(it.slider + " " + it.chart, { slider: it.slider, chart: it.chart, ids: it.ids, sets, drag,
                                                 frames: drag[0] || null, page: key });
    }
    if (R.sets.size > SETS) {  // the oldest sets no slider names now go
      const named = new Set([...R.items.values()].flatMap((it) => it.ids));
      for (const id of R.sets.keys()) if (R.sets.size > SETS && !named.has(id)) R.sets.delete(id);
    }
    if (lost && !page.lost) setTriggerValue("want", "!");  // a set this page was sent is not here: all again, once
    Object.assign(page, { text, pending, held: !!held, wanted: wanted || [], asked: new Set(), lost });
    if (!pending) page.tries = 0;
    R.pages.set(key, page);
  }
  if (R.drag && !R.drag.queued) {  // frames for a drag's next window: shown without waiting for the next move
    R.drag.queued = true;
    const d = R.drag;
    requestAnimationFrame(() => { if (R.drag === d) R.show(); });
  }
  const rests = [...document.querySelectorAll(":hover")].pop();  // a pointer on a slider as the page arrives
  if (rests) R.ask({ target: rests });
  page.mounted = true;
  const run = page.run = (page.run || 0) + 1;
  mark();
  if (page.pending && (page.tries < 40 || page.held)) {  // frames being computed: look again shortly (a rerun of this
    // part only), every 150 ms for the first FLAT looks (a set takes 0.1-0.5 s: the untrained cells' b_f, 0.3 s, came
    // at the third look, 650 ms after the ask, with looks 250, 350 ms apart), then less and less often; sets the
    // server has at hand but held for a look (a page's run carries few) come at the next one, however many before
    page.tries += 1;
    clearTimeout(page.timer);
    const wait = page.held ? 150 : 150 + 100 * Math.max(0, page.tries - FLAT);
    page.timer = setTimeout(() => setTriggerValue("ready", page.tries), wait);
  }
  return () => {  // Streamlit calls this as the component leaves the page (or, late, for a run a newer one replaced:
    // left alone then): its frames no longer pend here
    if (page.run !== run) return;
    page.mounted = false;
    clearTimeout(page.timer);
    mark();
  };
}
