// How a chart looks: the template every figure is drawn with (the look Streamlit's chart theme gives, read off
// st.plotly_chart's charts), the toolbar's full-screen button, and heatmap numbers fitted to the width drawn.
// The look Streamlit's chart theme gives a figure (read off st.plotly_chart's charts), as a template: every
// figure's own settings win over it.
const FONT = '"Source Sans", sans-serif';
const GRID = "#e6eaf1";
const INK = "#5c5f6e";  // 6.3:1 on white (Streamlit's chart grey, #808495, was 3.7:1; WCAG asks 4.5)
const AXIS = {
  gridcolor: GRID, zerolinecolor: GRID, tickcolor: GRID, minor: { gridcolor: GRID },
  tickfont: { color: INK, size: 12 }, title: { font: { color: INK, size: 14 } },
  automargin: true,  // labels are never cut; tests/test_browser_margins.py checks no chart needs it
  // plotly.js's default for a numeric axis, "hide past div", measures every tick label on every drawing to hide those
  // past the chart's edge (a sixth of a heatmap frame's time in a drag); with the margins above none is past it
  ticklabeloverflow: "allow",
};
export const TEMPLATE = {
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

// The full-screen button st.plotly_chart's toolbar had, on the chart's own toolbar: for a projector.
export const EXPAND = {
  width: 24, height: 24, path: "M3 3h7v2H5v5H3zm11 0h7v7h-2V5h-5zM3 14h2v5h5v2H3zm16 0h2v7h-7v-2h5z" };

// plotly.js 4 offers to upload the chart to Plotly Cloud: not from a lesson
export const NOT_HERE = ["sendChartToCloud"];

export function fullScreen(gd) {
  return document.fullscreenElement ? document.exitFullscreen() : gd.parentElement.requestFullscreen();
}

// entering or leaving full screen: the chart takes the screen's height, or its own again
export function fitScreen(gd) {
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
export function fitCellText(gd) {
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
