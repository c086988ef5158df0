// One Plotly chart that stays on the page across reruns: a new figure for the same chart key is drawn into the
// same element with Plotly.react, which redraws what changed, instead of the chart being thrown away and built
// again (what st.plotly_chart does whenever its figure changes: 35-70 ms of the browser's time per chart).
// The payload is UTF-8 JSON: {figure, config, alt, src, digest}; `src` is plotly.js as served by the app, `digest`
// names the figure (ui/chart.py).

// The look Streamlit's chart theme gives a figure (read off st.plotly_chart's charts), as a template: every
// figure's own settings win over it.
const FONT = '"Source Sans", sans-serif';
const GRID = "#e6eaf1";
const INK = "#808495";
const AXIS = {
  gridcolor: GRID, zerolinecolor: GRID, tickcolor: GRID, minor: { gridcolor: GRID },
  tickfont: { color: INK, size: 12 }, title: { font: { color: INK, size: 14 } },
  automargin: true,  // labels are never cut; tests/test_browser_margins.py checks no chart needs it
};
const TEMPLATE = {
  layout: {
    font: { color: INK, family: FONT, size: 12 },
    title: { font: { family: FONT, size: 16, color: "#2F2D2B", weight: 700 }, pad: { l: 4 }, xanchor: "left", x: 0 },
    legend: { font: { size: 12, color: "#262730" }, bordercolor: "transparent", borderwidth: 0, valign: "top",
              title: { font: { size: 12, color: INK }, side: "top" } },
    paper_bgcolor: "#FFFFFF", plot_bgcolor: "#FFFFFF",
    xaxis: { ...AXIS, showgrid: false, zeroline: false, title: { ...AXIS.title, standoff: 20 } },
    yaxis: { ...AXIS, ticklabelposition: "outside", title: { ...AXIS.title, standoff: 24 } },
    hoverlabel: { bgcolor: "#FFFFFF", bordercolor: "rgba(47, 45, 43, 0.2)", font: { color: INK, family: FONT, size: 12 } },
    margin: { pad: 8 },
  },
};

function plotly(src) {
  if (!window.__rnnvizPlotly) {
    window.__rnnvizPlotly = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = new URL(src, document.baseURI).href;  // relative: works under any base path or proxy
      const fail = (why) => { window.__rnnvizPlotly = null; script.remove(); reject(new Error(why)); };
      script.onload = () => (window.Plotly ? resolve(window.Plotly) : fail("plotly.js loaded without Plotly"));
      script.onerror = () => fail("plotly.js did not load");
      document.head.appendChild(script);
    });
  }
  return window.__rnnvizPlotly;
}

// The full-screen button st.plotly_chart's toolbar had, on the chart's own toolbar: for a projector.
const EXPAND = { width: 24, height: 24, path: "M3 3h7v2H5v5H3zm11 0h7v7h-2V5h-5zM3 14h2v5h5v2H3zm16 0h2v7h-7v-2h5z" };

const NOT_HERE = ["sendChartToCloud"];  // plotly.js 4 offers to upload the chart to Plotly Cloud: not from a lesson

function fullScreen(gd) {
  return document.fullscreenElement ? document.exitFullscreen() : gd.parentElement.requestFullscreen();
}

function fitScreen(gd) {  // entering or leaving full screen: the chart takes the screen's height, or its own again
  const box = gd.parentElement, on = document.fullscreenElement === box;
  box.style.background = on ? "#FFFFFF" : "";
  box.style.padding = on ? "24px" : "";
  if (gd._fullLayout) window.Plotly.relayout(gd, { height: on ? window.innerHeight - 48 : gd.__rnnvizHeight });
}

// Numbers written into heatmap cells are sized by the server for a width it can only guess (the hello page's steps
// chart, beside the controls at 1024 px with the sidebar open, is half what it assumes), so after every drawing a
// heatmap whose numbers run into each other (closer than 2 px: "−0.140.40" reads as one number) is written a size
// smaller where its type is a laptop's (under 13 px: a projector's stays at its size), and failing that has them
// hidden: its colours and its hover still give them.
const SMALLER = 0.88;
function fitCellText(gd) {
  const hit = (a, b) => a.left < b.right + 2 && b.left < a.right + 2 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const crowded = (labels) => {
    const boxes = labels.map((g) => g.getBoundingClientRect()).filter((b) => b.width > 0);
    return boxes.some((a, i) => boxes.slice(i + 1).some((b) => hit(a, b)));
  };
  for (const hm of gd.querySelectorAll("g.hm")) {
    const labels = [...hm.querySelectorAll("g.heatmap-label")];
    const texts = labels.map((g) => g.querySelector("text")).filter(Boolean);
    labels.forEach((g) => { g.style.display = ""; });
    texts.forEach((t) => {  // as plotly.js drew it (it sets the size again on each drawing; a resize may not)
      if (t.dataset.rnnvizSmaller && t.style.fontSize === t.dataset.rnnvizSmaller) t.style.fontSize = t.dataset.rnnvizSize;
    });
    if (!crowded(labels)) continue;
    const size = texts.length ? parseFloat(getComputedStyle(texts[0]).fontSize) : NaN;
    if (size < 13) {
      texts.forEach((t) => {
        t.dataset.rnnvizSize = t.style.fontSize;
        t.style.fontSize = t.dataset.rnnvizSmaller = (size * SMALLER).toFixed(2) + "px";
      });
      if (!crowded(labels)) continue;
    }
    labels.forEach((g) => { g.style.display = "none"; });
  }
}

// A chart out of view is not redrawn in the rerun that changed it: it is redrawn when it comes into view (or near
// it), when the page is next idle (requestIdleCallback, at most LATER_MS after), or when the pointer reaches a slider
// (a drag follows on the chart as drawn). A rerun that moves a slider changes every chart of its page, and drawing the
// ones below the fold took the browser's main thread before the page was idle again: the one-unit page's wₕ slider
// redraws three charts at about 23 ms each of plotly.js, and at 1024 x 768 two of them are out of view. A chart
// waiting so carries the attribute data-rnnviz-later (a test or a benchmark can wait for none to be left); its first
// drawing is never put off. Only a chart that waits is watched (IntersectionObserver): watching every chart all the
// time took the gradients page's drag from 36 to 30 frames a second.
const LATER_MS = 300;
const NEAR_PX = 100;  // a chart this close to the screen counts as in view
const LATER = (window.__rnnvizLater ??= new Set());
const SEEN = (window.__rnnvizSeen ??= new IntersectionObserver((entries) => {
  for (const e of entries) if (e.isIntersecting) drawLater(e.target);
}, { rootMargin: `${NEAR_PX}px 0px` }));

function outOfView(gd) {  // as SEEN sees it; a chart in a closed tab or fold (no box) too
  const r = gd.getBoundingClientRect();
  return r.width === 0 || r.bottom < -NEAR_PX || r.top > window.innerHeight + NEAR_PX;
}
window.__rnnvizOutOfView = outOfView;  // ui/scrub.js leaves such a chart to the page as well

function putOff(gd, job) {
  gd.__rnnvizLater = job;
  gd.setAttribute("data-rnnviz-later", "true");
  LATER.add(gd);
  SEEN.observe(gd);
  idleSoon();
}

function idleSoon() {  // one chart each time the page is idle: a key press in between goes first
  if (window.__rnnvizIdle || !LATER.size) return;
  const idle = window.requestIdleCallback || ((f) => setTimeout(f, 50));
  window.__rnnvizIdle = idle(() => {
    window.__rnnvizIdle = null;
    const [next] = LATER;
    if (next) drawLater(next);
    idleSoon();
  }, { timeout: LATER_MS });
}

function takeLater(gd) {  // the drawing a chart waits with (or null), no longer waiting
  const job = gd.__rnnvizLater;
  LATER.delete(gd);
  SEEN.unobserve(gd);
  gd.__rnnvizLater = null;
  gd.removeAttribute("data-rnnviz-later");
  return job;
}

function drawLater(gd) {
  const job = takeLater(gd);
  if (!job || !gd.isConnected) return;
  gd.setAttribute("aria-busy", "true");
  if (gd.__rnnvizBusy) gd.__rnnvizNext = job;
  else drawNow(gd, job);
}

if (!window.__rnnvizLaterSliders) {  // the pointer on a slider: every chart as the page has it, before a drag
  window.__rnnvizLaterSliders = true;
  document.addEventListener("pointerover", (e) => {
    if (LATER.size && e.target.closest && e.target.closest('[data-testid="stSlider"]')) [...LATER].forEach(drawLater);
  }, true);
}

function chartElement(parentElement) {
  let gd = parentElement.querySelector(":scope > .rnnviz-chart");
  if (gd) return gd;
  gd = document.createElement("div");
  gd.className = "rnnviz-chart";
  gd.setAttribute("role", "img");
  const problem = document.createElement("p");  // a drawing that failed says so here, not inside the chart
  problem.className = "rnnviz-chart-problem";
  problem.setAttribute("role", "alert");
  problem.hidden = true;
  parentElement.append(gd, problem);
  parentElement.addEventListener("fullscreenchange", () => fitScreen(gd));
  // Follow the column's width (the sidebar opening, a window resized), as st.plotly_chart does; a new height is
  // the figure's own and already drawn.
  let width = null;
  new ResizeObserver((entries) => {
    const w = entries[entries.length - 1].contentRect.width;
    if (w === width) return;
    width = w;
    if (gd.isConnected && gd.offsetParent && gd._fullLayout && window.Plotly) {
      window.Plotly.Plots.resize(gd).catch(() => {});  // a chart taken off the page meanwhile: nothing to fit
    }
  }).observe(parentElement);
  return gd;
}

// A chart that follows a stepper (ui/steps.py): the payload holds every step, the same bytes whatever the step, so
// a step's rerun finds nothing new to draw. `steps`: {stepper, values (1..T), alts, traces, data: [{trace, attr,
// frames}], layout: [{attr, frames}]}, each step's figure being `figure` with frame k's attributes (as ui/scrub.js
// lays frames over a chart). The step drawn is the stepper's slider's; a press of its Back / Next / Reset (a click:
// the mouse, or a remote's PageUp / PageDown through ui/keys.py; or the ← → Home keys Streamlit gives those buttons,
// which it honours outside text fields and sliders) draws the step that press asks for at once, while the server
// answers, and the answer (the slider's new value) settles it.
// {gd, parentElement, text, steps, figure, config, asked}: on window, as every chart's module shares it
const STEPPED = (window.__rnnvizStepped ??= new Set());
const keyCss = (key) => ".st-key-" + key.trim().replace(/[^a-zA-Z0-9_-]/g, "-");
const stepSlider = (stepper) => document.querySelector(keyCss(stepper + ".t") + ' input[type="range"]');
// stepper -> {t, n, at}: the step of the page's last run, that run's number and when it came (ui/chart.py step_mark)
const STEP_NOW = (window.__rnnvizStepNow ??= {});
// The server's step: what the page's last run drew (its text, its buttons' callbacks), or while the time slider is
// dragged, the slider's. The slider alone can run ahead of the page: after fast presses Streamlit can leave it at a
// step whose run never came, beside the text of the step before.
function stepOf(c) {
  const slider = stepSlider(c.steps.stepper), now = STEP_NOW[c.steps.stepper];
  if (slider && (window.__rnnvizDragging === c.steps.stepper || !now)) return Number(slider.value);
  return now ? now.t : c.steps.values[0];
}
const stepButton = (stepper, name) => document.querySelector(keyCss(stepper + "." + name) + " button");

// The server's figure at step t, and its text: a copy of its own, as plotly.js writes into the figure it draws (an
// axis's autorange, say: drawn again from that, a reversed axis would come back the right way up).
function atStep(c, t) {
  const { steps, figure } = c;
  const k = Math.min(Math.max(steps.values.indexOf(t), 0), steps.values.length - 1);
  const data = figure.data.map((trace) => ({ ...trace }));
  for (const d of steps.data) data[d.trace][d.attr] = d.frames[k];
  const layout = { ...figure.layout };
  for (const l of steps.layout) layout[l.attr] = l.frames[k];
  return { figure: structuredClone({ data, layout }), alt: steps.alts[k], t: steps.values[k] };
}

const picture = (s) => JSON.stringify(s.figure) + "\n" + s.alt;  // what a stepped chart shows, as text

function showStep(c, t) {
  if (!c.gd.isConnected || c.gd.__rnnvizStep === t) return;
  const s = atStep(c, t);
  c.gd.__rnnvizStep = s.t;
  draw(c.gd, c.parentElement, s.figure, c.config, s.alt, c.text);
}

// Every stepped chart at its stepper's step (the server's). A step drawn ahead on a press stays until a run of the
// page after the press has drawn that step, or has drawn another and no other run has come within 250 ms (the
// server's word goes: a press it did not take), or 5 s have passed (a press the page never sent on).
function settle() {
  for (const c of [...STEPPED]) {
    if (!c.gd.isConnected) { STEPPED.delete(c); continue; }
    const a = c.asked, mark = STEP_NOW[c.steps.stepper], now = performance.now();
    if (a) {
      const answered = mark && mark.n !== a.n;
      if (!(answered && (mark.t === a.t || now - mark.at >= 250)) && now - a.at < 5000) continue;
      c.asked = null;
    }
    showStep(c, stepOf(c));
  }
}

function ask(stepper, move) {  // a press of a stepper's button: its charts draw the step it asks for, once the
  // press has been passed on (drawing first would hold up the server's rerun)
  const all = [...STEPPED].filter((c) => c.steps.stepper === stepper);
  if (!all.length || !stepSlider(stepper)) return;
  // what the button's callback goes from: the step of the press before, if its answer is still to come (the run it
  // started has made the buttons anew from that step), else the step of the page's last run
  const from = all.find((c) => c.asked)?.asked.t ?? stepOf(all[0]);
  const t = move === "reset" ? 1 : move === "drop" ? Number(stepSlider(stepper).value)
    : from + (move === "next" ? 1 : -1);
  const mine = all.filter((c) => c.steps.values.includes(t));
  const n = STEP_NOW[stepper]?.n;
  mine.forEach((c) => { c.asked = { t, n, at: performance.now() }; });
  if (!mine.length) return;
  let done = false;
  const show = () => { if (!done) { done = true; mine.forEach((c) => showStep(c, t)); } };
  AFTER_SEND.push(show);
  setTimeout(show, 150);  // no message went out: drawn all the same
  setTimeout(settle, 5100);  // and put back to the page's step, if no run of the page ever answers
}

// Streamlit passes a button press on to the server a task or two after the key or click (about 2 ms, or longer on a
// busy page): a drawing (15-40 ms of the main thread) started before it would hold up the rerun by as much. So a
// step is drawn just after the page's next message to the server has gone.
const AFTER_SEND = (window.__rnnvizAfterSend ??= []);
if (!WebSocket.prototype.__rnnvizSend) {
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (...args) {
    const out = send.apply(this, args);
    if (AFTER_SEND.length) {
      const waiting = AFTER_SEND.splice(0);
      setTimeout(() => waiting.forEach((f) => f()), 0);
    }
    return out;
  };
  WebSocket.prototype.__rnnvizSend = true;
}

function installSteps() {
  if (window.__rnnvizSteps) return;
  window.__rnnvizSteps = true;
  window.__rnnvizSettle = settle;  // the step mark's run (ui/chart.py step_mark)
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
      if (e.target.closest(keyCss(stepper + ".t") + ' [data-testid="stSlider"]')) window.__rnnvizDragging = stepper;
    }
  }, true);
  const drop = () => {  // (on window: every chart's module reads it)
    const stepper = window.__rnnvizDragging;
    window.__rnnvizDragging = null;
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
  // the server's answer: a slider's new value (or a drag of it), or the end of a rerun that changed no step
  let queued = false;
  const later = () => {
    if (!queued) { queued = true; requestAnimationFrame(() => { queued = false; settle(); }); }
  };
  new MutationObserver(later).observe(document.body, { attributes: true, subtree: true, childList: true,
    attributeFilter: ["value", "aria-valuetext"] });
}

// One drawing at a time per chart: plotly.js finishes a drawing in a later frame (its margins), and a second
// Plotly.react on the chart meanwhile throws inside plotly.js (two steps pressed within a few ms). A drawing asked for
// while one is under way waits for it, and only the latest such waits: the ones it overtakes are never drawn.
function draw(gd, parentElement, figure, config, alt, text, digest = null) {
  const job = { parentElement, figure, config, alt, text, digest };
  if (!gd.__rnnvizBusy && gd._fullLayout && !document.fullscreenElement && outOfView(gd)) {
    putOff(gd, job);
    return;
  }
  takeLater(gd);  // drawn now: a drawing put off is overtaken
  // aria-busy while a drawing is under way or waiting: assistive technology waits for it (and so can a test or a
  // benchmark, with document.querySelector('.rnnviz-chart[aria-busy="true"]'))
  gd.setAttribute("aria-busy", "true");
  if (gd.__rnnvizBusy) {
    gd.__rnnvizNext = job;
    return;
  }
  drawNow(gd, job);
}

function drawNow(gd, { parentElement, figure, config, alt, text, digest }) {
  gd.__rnnvizBusy = true;
  // the figure the chart shows from now on, by name (ui/scrub.js clears it while a drag draws frames)
  gd.__rnnvizDigest = digest;
  gd.__rnnvizConfig = JSON.stringify(config);
  gd.setAttribute("aria-label", alt);
  const layout = { ...figure.layout, template: TEMPLATE, autosize: true };
  delete layout.width;
  gd.style.minHeight = (layout.height || 450) + "px";  // holds the chart's place while plotly.js loads
  gd.__rnnvizHeight = layout.height || 450;
  if (document.fullscreenElement === parentElement) layout.height = window.innerHeight - 48;  // a move while full
  const hidden = [...(config.modeBarButtonsToRemove || []), ...NOT_HERE];
  const full = { ...config, responsive: false, modeBarButtonsToRemove: hidden, modeBarButtonsToAdd: [
    { name: "fullscreen", title: "Full screen (Esc to leave)", icon: EXPAND, click: fullScreen }] };
  const react = (P) => (gd.__rnnvizText === text  // else a newer figure has come: it is drawn next
    ? P.react(gd, { data: figure.data, layout, frames: figure.frames || [], config: full })  // frames: what Play plays
    : undefined);
  const problem = parentElement.querySelector(":scope > .rnnviz-chart-problem");
  // Drawn now when plotly.js is already here (the usual case: in the same frame as the rest of the rerun); a throw
  // becomes a rejection either way.
  const run = window.Plotly ? new Promise((resolve) => resolve(react(window.Plotly))) : plotly(src).then(react);
  run.then(() => {
    problem.hidden = true;
    if (!gd.__rnnvizFits && gd.on) {  // each later drawing, a resize's too; this first one has drawn already
      gd.on("plotly_afterplot", () => fitCellText(gd));
      gd.__rnnvizFits = true;
      fitCellText(gd);
    }
  }, (e) => {
    if (gd.__rnnvizNext) return;  // overtaken: the next drawing starts afresh
    if (gd.__rnnvizText === text) gd.__rnnvizText = null;  // the next run draws it again
    gd.__rnnvizDigest = null;
    gd.__rnnvizStep = null;
    if (window.Plotly) window.Plotly.purge(gd);
    gd.__rnnvizFits = false;  // purge drops the listener
    problem.textContent = "This chart could not be drawn (" + e.message + "). Reload the page to try again.";
    problem.hidden = false;
  }).finally(() => {
    gd.__rnnvizBusy = false;
    const next = gd.__rnnvizNext;
    gd.__rnnvizNext = null;
    if (next) drawNow(gd, next);
    else gd.removeAttribute("aria-busy");
  });
}

let src = null;  // plotly.js as the app serves it (every payload names it)

export default function ({ data, parentElement }) {
  const text = typeof data === "string" ? data : new TextDecoder().decode(data);
  const gd = chartElement(parentElement);
  if (gd.__rnnvizText === text) {  // the same figure (a stepped chart: every step): nothing to redraw
    if (gd.__rnnvizStepped) settle();
    return;
  }
  gd.__rnnvizText = text;
  const payload = JSON.parse(text);
  src = payload.src;
  const old = [...STEPPED].find((c) => c.gd === gd);  // the step shown, from the payload it came in
  const at = gd.__rnnvizStep;
  const was = old && at != null ? { step: at, picture: picture(atStep(old, at)) } : null;
  if (old) STEPPED.delete(old);
  gd.__rnnvizStepped = !!payload.steps;
  gd.__rnnvizStep = null;
  if (!payload.steps) {
    // this very figure is on the chart already (a slider's frame, drawn as its key was pressed: ui/scrub.js), and no
    // drawing is under way: nothing to draw, and a drawing put off (an older figure) is dropped
    if (payload.digest && gd.__rnnvizDigest === payload.digest && gd._fullLayout && !gd.__rnnvizBusy
        && !gd.__rnnvizNext && gd.__rnnvizConfig === JSON.stringify(payload.config)) {
      takeLater(gd);
      gd.setAttribute("aria-label", payload.alt);
      return;
    }
    draw(gd, parentElement, payload.figure, payload.config, payload.alt, text, payload.digest);
    return;
  }
  gd.__rnnvizDigest = null;
  installSteps();
  const c = { gd, parentElement, text, steps: payload.steps, figure: payload.figure, config: payload.config,
              asked: null };
  STEPPED.add(c);
  const s = atStep(c, stepOf(c));
  if (was && was.step === s.t && was.picture === picture(s) && !gd.__rnnvizNext) {
    // a new setting that leaves this step as it was (steps 1..t do not depend on it): nothing to redraw
    gd.__rnnvizStep = s.t;
    return;
  }
  showStep(c, s.t);
}
