// One Plotly chart that stays on the page across reruns: a new figure for the same chart key is drawn into the
// same element with Plotly.react, which redraws what changed, instead of the chart being thrown away and built
// again (what st.plotly_chart does whenever its figure changes: 35-70 ms of the browser's time per chart).
// The payload is UTF-8 JSON: {figure, config, alt, src}; `src` is plotly.js as served by the app (ui/chart.py).

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

export default function ({ data, parentElement }) {
  const text = typeof data === "string" ? data : new TextDecoder().decode(data);
  const gd = chartElement(parentElement);
  if (gd.__rnnvizText === text) return;  // the same figure: nothing to redraw
  gd.__rnnvizText = text;
  const { figure, config, alt, src } = JSON.parse(text);
  gd.setAttribute("aria-label", alt);
  const layout = { ...figure.layout, template: TEMPLATE, autosize: true };
  delete layout.width;
  gd.style.minHeight = (layout.height || 450) + "px";  // holds the chart's place while plotly.js loads
  gd.__rnnvizHeight = layout.height || 450;
  if (document.fullscreenElement === parentElement) layout.height = window.innerHeight - 48;  // a move while full
  const hidden = [...(config.modeBarButtonsToRemove || []), ...NOT_HERE];
  const full = { ...config, responsive: false, modeBarButtonsToRemove: hidden, modeBarButtonsToAdd: [
    { name: "fullscreen", title: "Full screen (Esc to leave)", icon: EXPAND, click: fullScreen }] };
  // aria-busy while a drawing is under way: assistive technology waits for it (and so can a test or a benchmark,
  // with document.querySelector('.rnnviz-chart[aria-busy="true"]'))
  gd.__rnnvizPending = (gd.__rnnvizPending || 0) + 1;
  gd.setAttribute("aria-busy", "true");
  const draw = (P) => (gd.__rnnvizText === text  // frames: the steps a chart's Play button animates
    ? P.react(gd, { data: figure.data, layout, frames: figure.frames || [], config: full })
    : undefined);
  const problem = parentElement.querySelector(":scope > .rnnviz-chart-problem");
  // Drawn now when plotly.js is already here (the usual case: in the same frame as the rest of the rerun); a throw
  // becomes a rejection either way.
  const run = window.Plotly ? new Promise((resolve) => resolve(draw(window.Plotly))) : plotly(src).then(draw);
  run.then(() => {
    problem.hidden = true;
    if (!gd.__rnnvizFits && gd.on) {  // each later drawing, a resize's too; this first one has drawn already
      gd.on("plotly_afterplot", () => fitCellText(gd));
      gd.__rnnvizFits = true;
      fitCellText(gd);
    }
  }, (e) => {
    if (gd.__rnnvizText === text) gd.__rnnvizText = null;  // the next run draws it again
    if (window.Plotly) window.Plotly.purge(gd);
    gd.__rnnvizFits = false;  // purge drops the listener
    problem.textContent = "This chart could not be drawn (" + e.message + "). Reload the page to try again.";
    problem.hidden = false;
  }).finally(() => {
    if (--gd.__rnnvizPending === 0) gd.removeAttribute("aria-busy");
  });
}
