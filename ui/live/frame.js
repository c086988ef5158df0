// One frame of a chart that follows a slider (ui/live/scrub.js drives the drag): which frame a value shows, among the
// sets at hand, and drawing it over the chart, whole (Plotly.react) or by moving its points alone (Plotly.animate).
// `c`, a chart in a drag: {gd, frames: the set drawn from, base: the figure as drawn when the drag began ({data,
// layout}), held: {axis: [lo, hi]} the axes the drag holds, animated: the traces an animation names}.

// plotly.js's typed-array form ({dtype: "f8", bdata}: rnnviz/live/frames.py plain) as an array: Plotly.react reads
// that form itself, the animation path takes plain arrays. Decoded once per frame and kept.
const seen = new WeakMap();
const decode = (v) => {
  if (!v || typeof v !== "object" || v.dtype !== "f8" || typeof v.bdata !== "string") return v;
  if (!seen.has(v)) seen.set(v, new Float64Array(Uint8Array.from(atob(v.bdata), (ch) => ch.charCodeAt(0)).buffer));
  return seen.get(v);
};

export const stepOf = (values) => (values.length > 1 ? Math.abs(values[1] - values[0]) : 1);
// The frame of a slider value: the nearest notch's, or -1 when none is within a quarter notch of it.
export const frameOf = (values, v) => {
  let k = -1, best = Infinity;
  values.forEach((u, j) => { if (Math.abs(u - v) < best) { best = Math.abs(u - v); k = j; } });
  return best <= stepOf(values) / 4 ? k : -1;
};
// The frame nearest v among the sets (`first` looked at first: a tie keeps the set drawn), within half a set's spacing:
// {f, k, d} (d: how far its value is from v), or null.
export const pick = (sets, v, first = null) => {
  let best = null;
  for (const f of first ? [first, ...sets] : sets) {
    const { values } = f;
    let a = 0, b = values.length - 1;
    while (b - a > 1) { const m = (a + b) >> 1; if (values[m] <= v) a = m; else b = m; }
    const k = Math.abs(values[a] - v) <= Math.abs(values[b] - v) ? a : b, d = Math.abs(values[k] - v);
    if (d <= stepOf(values) / 2 + 1e-9 && (!best || d < best.d - 1e-9)) best = { f, k, d };
  }
  return best;
};
const WIDEN = 12;

// The server's figure at frame k, drawn whole (Plotly.react), with the axes the drag holds, if any.
export const redraw = (c, k) => {
  const { data, layout } = c.frames;
  const traces = c.base.data.map((t) => ({ ...t }));
  for (const d2 of data) traces[d2.trace][d2.attr] = d2.frames[k];
  const lay = { ...c.base.layout };
  for (const l of layout) lay[l.attr] = l.frames[k];
  for (const [axis, range] of Object.entries(c.held)) lay[axis] = { ...lay[axis], range, autorange: false };
  // margins at least as wide as drawn: where the labels need more than a figure sets (the template's automargin,
  // ui/live/look.js), plotly.js lays the chart out a second time to grow them, on every frame (the clipping
  // chart's H: 30% of a drag's time). Held at the drawn width, it grows them only where a frame needs more still;
  // the release's rerun draws the server's figure with its own.
  const size = c.gd._fullLayout?._size, m = { ...lay.margin };
  if (size) for (const side of ["l", "r", "t", "b"]) m[side] = Math.max(m[side] ?? 0, Math.round(size[side]));
  lay.margin = m;
  window.Plotly.react(c.gd, traces, lay);
};
// Frame k by moving the points alone (rnnviz/live/frames.py held_axes: only x and y of scatter traces change):
// Plotly.animate without redraw leaves axes, legend and titles as they are, a few ms instead of a whole redraw.
// The animated traces are the moving ones and every trace that is not a scatter (the inputs' bars): plotly.js
// plots a bar layer from the traces an animation names, so bars left out would be taken off the chart.
// The axes hold still through the drag; a frame that would not fit them widens them to fit it and its neighbours
// (WIDEN frames either way, so a drag that goes on that way seldom needs another: a sweep across w_h's range made
// 16 whole redraws of the tanh chart with four): it returns false, and the caller draws that frame whole with the
// wider axes.
export const movePoints = (c, k) => {
  let widen = false;
  for (const [axis, rows] of Object.entries(c.frames.hold)) {
    const [lo, hi] = rows[k];
    const h = c.held[axis] || c.gd._fullLayout[axis]?.range;
    if (lo === null || hi === null || !h || (lo >= h[0] && hi <= h[1])) continue;
    let a = lo, b = hi;
    for (let j = Math.max(0, k - WIDEN); j <= Math.min(rows.length - 1, k + WIDEN); j++) {
      if (rows[j][0] !== null) { a = Math.min(a, rows[j][0]); b = Math.max(b, rows[j][1]); }
    }
    c.held[axis] = [Math.min(h[0], a), Math.max(h[1], b)];
    widen = true;
  }
  if (widen) return false;
  const update = c.animated.map((i) => {
    const o = {};
    for (const d2 of c.frames.data) if (d2.trace === i) o[d2.attr] = decode(d2.frames[k]);
    return o;
  });
  return window.Plotly.animate(c.gd, { data: update, traces: c.animated },
    { transition: { duration: 0 }, frame: { duration: 0, redraw: false }, mode: "immediate" });
};
