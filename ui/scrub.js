// Charts that follow a slider while the mouse is down on it (ui/scrub.py): the thumb's range input changes its value
// (and aria-valuetext) on every move of a drag, while Streamlit sends the value only on release. Each move, once per
// animation frame, shows the server's frame for that value on the chart ui/chart.js drew, with Plotly.react; nothing
// is computed here. On release the page's rerun draws the chart as always (ui/chart.js); a drag released where it
// began puts the chart back as it was. Anything missing (no frames yet, a value outside them, no chart, a chart of
// another shape) leaves the chart alone; outside the frames it is greyed until the release.
// The payload: {pending, poll, items: [{slider, chart, frames: {values, traces, data: [{trace, attr, frames}],
// layout: [{attr, frames}]}}]}.
const css = (key) => ".st-key-" + key.trim().replace(/[^a-zA-Z0-9_-]/g, "-");

function install() {
  // items: the latest frames for each slider and chart (whichever component sent them); pages: each component's state
  const R = { items: new Map(), pages: new Map(), drag: null };
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
    const v = Number(d.thumb.value);
    for (const c of d.charts) {
      const { values, data, layout } = c.frames;
      let k = -1, best = Infinity;
      values.forEach((u, j) => { if (Math.abs(u - v) < best) { best = Math.abs(u - v); k = j; } });
      const step = values.length > 1 ? Math.abs(values[1] - values[0]) : 1;
      if (k < 0 || best > step / 4) {  // outside the frames: the chart waits for the release, greyed
        c.gd.style.opacity = "0.45";
        continue;
      }
      if (c.shown === k) continue;
      c.gd.style.opacity = "";
      c.shown = k;
      c.gd.__rnnvizText = null;  // what is drawn is no longer the server's last figure: the rerun draws it again
      const traces = c.base.data.map((t) => ({ ...t }));
      for (const d2 of data) traces[d2.trace][d2.attr] = d2.frames[k];
      const lay = { ...c.base.layout };
      for (const l of layout) lay[l.attr] = l.frames[k];
      const t0 = performance.now();
      window.Plotly.react(c.gd, traces, lay);  // synchronous for these charts: drawn before the frame is painted
      c.gd.__rnnvizScrub = { value: values[k], frame: k, drawn: (c.gd.__rnnvizScrub?.drawn || 0) + 1,
                             ms: performance.now() - t0 };
    }
  };
  document.addEventListener("pointerdown", (e) => {
    const box = sliderOf(e.target);
    const thumb = box && box.querySelector('input[type="range"]');
    if (!thumb || !window.Plotly || e.button !== 0) return;
    const charts = [];
    for (const it of R.items.values()) {
      if (!it.frames || !box.matches(css(it.slider))) continue;
      const gd = document.querySelector(css(it.chart) + " .rnnviz-chart");
      if (!gd || !gd._fullLayout || gd.getAttribute("aria-busy") || gd.data.length !== it.frames.traces) continue;
      charts.push({ gd, frames: it.frames, text: gd.__rnnvizText, shown: null,
                    base: { data: gd.data, layout: gd.layout } });
    }
    if (!charts.length) return;
    R.drag = { thumb, charts, start: thumb.value, queued: false };
  }, true);
  const end = () => {
    const d = R.drag;
    if (!d) return;
    R.drag = null;
    const same = d.thumb.value === d.start;  // no rerun will come: put the chart back
    for (const c of d.charts) {
      c.gd.style.opacity = "";
      if (same && c.shown !== null) {
        window.Plotly.react(c.gd, c.base.data, c.base.layout);
        c.gd.__rnnvizText = c.text;
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
  return R;
}

export default function ({ data, key, setTriggerValue }) {
  const R = (window.__rnnvizScrubs ??= install());
  const text = typeof data === "string" ? data : new TextDecoder().decode(data);
  const page = R.pages.get(key) || { text: null, tries: 0 };
  if (page.text !== text) {
    const { pending, items } = JSON.parse(text);
    for (const it of items) R.items.set(it.slider + " " + it.chart, it);
    Object.assign(page, { text, pending });
    if (!pending) page.tries = 0;
    R.pages.set(key, page);
  }
  document.documentElement.dataset.rnnvizScrub = page.pending ? "pending" : "ready";
  if (page.pending && page.tries < 40) {  // frames being computed: look again shortly (a rerun of this part only)
    page.tries += 1;
    clearTimeout(page.timer);
    page.timer = setTimeout(() => setTriggerValue("ready", page.tries), 400 + 100 * page.tries);
  }
}
