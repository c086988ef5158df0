// A chart that follows a stepper (ui/live/steps.py): the payload holds every step, the same bytes whatever the step,
// so a step's rerun finds nothing new to draw. `steps`: {stepper, values (1..T), alts, traces, data: [{trace, attr,
// frames}], layout: [{attr, frames}]}, each step's figure being `figure` with frame k's attributes (as
// ui/live/scrub.js lays frames over a chart). The step drawn is the stepper's slider's; a press of its Back / Next /
// Reset (a click: the mouse, or a remote's PageUp / PageDown through ui/keys.py; or the ← → Home keys Streamlit gives
// those buttons, which it honours outside text fields and sliders) draws the step that press asks for at once, while
// the server answers, and the answer (the slider's new value) settles it.
import { draw } from "./draw.js";
import { afterSend } from "./send.js";

export const STEPPED = new Set();  // {gd, parentElement, text, steps, figure, config, asked}
const keyCss = (key) => ".st-key-" + key.trim().replace(/[^a-zA-Z0-9_-]/g, "-");
const stepSlider = (stepper) => document.querySelector(keyCss(stepper + ".t") + ' input[type="range"]');
// stepper -> {t, n, at}: the step of the page's last run, that run's number and when it came (`mark`)
const STEP_NOW = {};
let dragging = null;  // the stepper whose time slider the pointer holds
// The server's step: what the page's last run drew (its text, its buttons' callbacks), or while the time slider is
// dragged, the slider's. The slider alone can run ahead of the page: after fast presses Streamlit can leave it at a
// step whose run never came, beside the text of the step before.
export function stepOf(c) {
  const slider = stepSlider(c.steps.stepper), now = STEP_NOW[c.steps.stepper];
  if (slider && (dragging === c.steps.stepper || !now)) return Number(slider.value);
  return now ? now.t : c.steps.values[0];
}
const stepButton = (stepper, name) => document.querySelector(keyCss(stepper + "." + name) + " button");

// A figure's own objects, sharing its arrays. plotly.js writes into the objects it draws (an axis's autorange, say:
// drawn again from that, a reversed axis would come back the right way up) and into an axis's range when the chart is
// zoomed, never into a data array or an axis's ticks; and Plotly.react draws a chart whose data or tick arrays are new
// ones from scratch (it tells them apart by identity). A step of the gates page's three trained cells (13,000 cells,
// the steps not reached covered by a shape: the layout alone changes) took 75-120 ms from copied arrays, 6-13 from
// the same ones.
const isObject = (u) => u !== null && typeof u === "object" && !Array.isArray(u) && !ArrayBuffer.isView(u);
const own = (v, key) => ((!isObject(v) && !Array.isArray(v)) || "bdata" in v ? v
  : Array.isArray(v) ? (key === "range" ? v.slice() : v.some(isObject) ? v.map((u) => own(u)) : v)
    : Object.fromEntries(Object.entries(v).map(([k, u]) => [k, own(u, k)])));

// The server's figure at step t, and its text: its own copy (`own`).
export function atStep(c, t) {
  const { steps, figure } = c;
  const k = Math.min(Math.max(steps.values.indexOf(t), 0), steps.values.length - 1);
  const data = figure.data.map((trace) => own(trace));
  for (const d of steps.data) data[d.trace][d.attr] = own(d.frames[k], d.attr);
  const layout = own(figure.layout);
  for (const l of steps.layout) layout[l.attr] = own(l.frames[k], l.attr);
  const plays = steps.plays ? { frames: structuredClone(steps.plays[k]) } : {};  // what its Play button plays here
  return { figure: { data, layout, ...plays }, alt: steps.alts[k], t: steps.values[k],
           digest: steps.digests?.[k] ?? null };
}

export const picture = (s) => JSON.stringify(s.figure) + "\n" + s.alt;  // what a stepped chart shows, as text

export function showStep(c, t) {
  if (!c.gd.isConnected || c.gd.__rnnvizStep === t) return;
  // its drawing failed (plotly.js unreachable): not again until a new payload comes. Each failure writes the chart's
  // notice, a change to the page, which settles every stepped chart again: it tried again every frame
  if (c.gd.__rnnvizFailed === c.text) return;
  const s = atStep(c, t);
  c.gd.__rnnvizStep = s.t;
  // named by its digest: a key on a scrubbed slider beside it draws that slider's frames over it (ui/live/scrub.js)
  draw(c.gd, c.parentElement, s.figure, c.config, s.alt, c.text, s.digest);
}

// Whether the page's runs are over: Streamlit marks its app's root with its script's state, and a press made while
// a run was under way is taken into that run or the next one, never after "notRunning".
const ended = () => document.querySelector('[data-testid="stApp"]')?.getAttribute("data-test-script-state")
  === "notRunning";

// Every stepped chart at its stepper's step (the server's). A step drawn ahead on a press stays until a run of the
// page after the press has drawn that step, or has drawn another and the runs are over or no other run has come
// within 250 ms (the server's word goes: a press it did not take), or 5 s have passed (a press the page never sent
// on).
export function settle() {
  for (const c of [...STEPPED]) {
    if (!c.gd.isConnected) { STEPPED.delete(c); continue; }
    const a = c.asked, mark = STEP_NOW[c.steps.stepper], now = performance.now();
    if (a) {
      const answered = mark && mark.n !== a.n;
      if (!(answered && (mark.t === a.t || ended() || now - mark.at >= 250)) && now - a.at < 5000) continue;
      c.asked = null;
    }
    showStep(c, stepOf(c));
  }
}

function ask(stepper, move) {  // a press of a stepper's button: its charts draw the step it asks for, once the
  // press has been passed on (drawing first would hold up the server's rerun)
  const all = [...STEPPED].filter((c) => c.steps.stepper === stepper);
  if (!all.length || !stepSlider(stepper)) return;
  // what the button's callback goes from: the step of the press before, if its answer is still to come (each press
  // moves the step the server holds as it is taken, ui/widgets.py step_by), else the step of the page's last run
  const from = all.find((c) => c.asked)?.asked.t ?? stepOf(all[0]);
  const t = move === "reset" ? 1 : move === "drop" ? Number(stepSlider(stepper).value)
    : from + (move === "next" ? 1 : -1);
  const mine = all.filter((c) => c.steps.values.includes(t));
  const n = STEP_NOW[stepper]?.n;
  mine.forEach((c) => { c.asked = { t, n, at: performance.now() }; });
  if (!mine.length) return;
  let done = false;
  const show = () => { if (!done) { done = true; mine.forEach((c) => showStep(c, t)); } };
  afterSend(show);
  setTimeout(show, 150);  // no message went out: drawn all the same
  setTimeout(settle, 5100);  // and put back to the page's step, if no run of the page ever answers
}

let installed = false;
export function installSteps() {
  if (installed) return;
  installed = true;
  const steppers = () => new Set([...STEPPED].map((c) => c.steps.stepper));
  document.addEventListener("click", (e) => {
    for (const stepper of steppers()) {
      for (const move of ["back", "next", "reset"]) {
        if (e.target.closest && e.target.closest(keyCss(stepper + "." + move) + " button")) ask(stepper, move);
      }
    }
  }, true);
  // the time slider held: the charts follow its thumb; let go, they hold its step until the server answers
  document.addEventListener("pointerdown", (e) => {
    if (e.button !== 0 || !e.target.closest) return;
    for (const stepper of steppers()) {
      if (e.target.closest(keyCss(stepper + ".t") + ' [data-testid="stSlider"]')) dragging = stepper;
    }
  }, true);
  const drop = () => {
    const stepper = dragging;
    dragging = null;
    if (stepper) ask(stepper, "drop");
  };
  window.addEventListener("pointerup", drop, true);
  window.addEventListener("pointercancel", drop, true);
  const KEYS = { ArrowLeft: "back", ArrowRight: "next", Home: "reset" };
  const typing = (e) => e.composedPath().some((el) => el.tagName
    && (["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName) || el.isContentEditable));
  document.addEventListener("keydown", (e) => {
    const move = KEYS[e.key];
    if (!move || e.ctrlKey || e.metaKey || e.altKey || e.shiftKey || e.repeat || typing(e)) return;
    for (const stepper of steppers()) {
      const button = stepButton(stepper, move);
      if (button && !button.disabled) ask(stepper, move);
    }
  }, true);
  // the server's answer: a slider's new value (or a drag of it), a step's mark (`mark`), or the end of the runs
  let queued = false;
  const later = () => {
    if (!queued) { queued = true; requestAnimationFrame(() => { queued = false; settle(); }); }
  };
  new MutationObserver(later).observe(document.body, { attributes: true, subtree: true, childList: true,
    attributeFilter: ["value", "aria-valuetext", "data-test-script-state"] });
}

// The step mark (ui/live/chart.py step_mark): the step the page's last run drew, beside its stepper.
export function mark({ data }) {
  const { stepper, t, n } = JSON.parse(typeof data === "string" ? data : new TextDecoder().decode(data));
  STEP_NOW[stepper] = { t, n, at: performance.now() };
  if (installed) {
    settle();
    setTimeout(settle, 300);
  }
}
