// Drawing a chart: one element per chart key, kept across reruns, drawn with Plotly.react (one drawing at a time,
// the latest waiting), and a chart out of view drawn once the page is idle or the chart comes near the screen.
// plotly.js is loaded once, from where the payload's `src` says the app serves it.
import { EXPAND, NOT_HERE, TEMPLATE, fitCellText, fitScreen, fullScreen } from "./look.js";

let src = null;  // plotly.js as the app serves it (every payload names it)
export function serve(from) {
  src = from;
}

let loading = null;  // plotly.js on its way: one script element for every chart
function plotly() {
  if (!loading) {
    loading = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = new URL(src, document.baseURI).href;  // relative: works under any base path or proxy
      const fail = (why) => { loading = null; script.remove(); reject(new Error(why)); };
      script.onload = () => (window.Plotly ? resolve(window.Plotly) : fail("plotly.js loaded without Plotly"));
      script.onerror = () => fail("plotly.js did not load");
      document.head.appendChild(script);
    });
  }
  return loading;
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
const LATER = new Set();
const SEEN = new IntersectionObserver((entries) => {
  for (const e of entries) if (e.isIntersecting) drawLater(e.target);
}, { rootMargin: `${NEAR_PX}px 0px` });

// as SEEN sees it; a chart in a closed tab or fold (no box) too (ui/live/scrub.js leaves such a chart to the page)
export function outOfView(gd) {
  const r = gd.getBoundingClientRect();
  return r.width === 0 || r.bottom < -NEAR_PX || r.top > window.innerHeight + NEAR_PX;
}

function putOff(gd, job) {
  gd.__rnnvizLater = job;
  gd.setAttribute("data-rnnviz-later", "true");
  LATER.add(gd);
  SEEN.observe(gd);
  idleSoon();
}

let idling = null;
function idleSoon() {  // one chart each time the page is idle: a key press in between goes first
  if (idling || !LATER.size) return;
  const idle = window.requestIdleCallback || ((f) => setTimeout(f, 50));
  idling = idle(() => {
    idling = null;
    const [next] = LATER;
    if (next) drawLater(next);
    idleSoon();
  }, { timeout: LATER_MS });
}

export function takeLater(gd) {  // the drawing a chart waits with (or null), no longer waiting
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

// the pointer on a slider: every chart as the page has it, before a drag
document.addEventListener("pointerover", (e) => {
  if (LATER.size && e.target.closest && e.target.closest('[data-testid="stSlider"]')) [...LATER].forEach(drawLater);
}, true);

export function chartElement(parentElement) {
  let gd = parentElement.querySelector(":scope > .rnnviz-chart");
  if (gd) return gd;
  gd = document.createElement("div");
  gd.className = "rnnviz-chart";
  gd.setAttribute("role", "figure");  // not "img": an image's children are presentational, and the chart's toolbar
  // buttons must stay reachable (axe: nested-interactive)
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

// One drawing at a time per chart: plotly.js finishes a drawing in a later frame (its margins), and a second
// Plotly.react on the chart meanwhile throws inside plotly.js (two steps pressed within a few ms). A drawing asked for
// while one is under way waits for it, and only the latest such waits: the ones it overtakes are never drawn.
export function draw(gd, parentElement, figure, config, alt, text, digest = null) {
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
  // the figure the chart shows from now on, by name (ui/live/scrub.js clears it while a drag draws frames)
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
  const run = window.Plotly ? new Promise((resolve) => resolve(react(window.Plotly))) : plotly().then(react);
  run.then(() => {
    problem.hidden = true;
    gd.__rnnvizFailed = null;
    if (!gd.__rnnvizFits && gd.on) {  // each later drawing, a resize's too; this first one has drawn already
      gd.on("plotly_afterplot", () => fitCellText(gd));
      gd.__rnnvizFits = true;
      fitCellText(gd);
    }
  }, (e) => {
    if (gd.__rnnvizNext) return;  // overtaken: the next drawing starts afresh
    if (gd.__rnnvizText === text) gd.__rnnvizText = null;  // the next run draws it again
    gd.__rnnvizFailed = text;  // a stepped chart does not try the same payload again (ui/live/stepped.js)
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
