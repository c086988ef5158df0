"""Figures for the gradients page: Jacobian norms through time, per-step factors, clipping one gradient, explosion vs
clipping in training, and accuracy against lag."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rnnviz.experiments.lag_task import ROWS, TAUGHT_FORGET_BIAS
from rnnviz.figures.base import COLORS, _columns, _fig, _in, _layout, _rows, _unit_labels, grown, x_margin, y_margin
from rnnviz.nn.cells import REGISTRY, get
from rnnviz.nn.gradients import CELL_PATHS as ALL_PATHS, FORGET_PATH
from rnnviz.text import fmt, format_norm

DIFF = "∂h<sub>T</sub>/∂h<sub>t</sub>"
CELL_PATHS = {  # a cell state's curves (curve key ending, as rnnviz.lessons.gradients.curves names them): the legend
    # after the cell's label, the marker and dash, in the cell's second colour
    FORGET_PATH: ("c, forget-gate path ‖f<sub>T</sub>⊙…⊙f<sub>t+1</sub>‖", "hexagon-open", "dot"),
    ALL_PATHS: ("c, all paths ‖∂c<sub>T</sub>/∂c<sub>t</sub>‖", "hexagon", "solid"),
}
MARKERS = 12  # markers drawn per curve (marker.maxdisplayed): enough to tell the shapes apart, cheap to redraw
RUN_STYLE = {"unclipped": (COLORS["vanilla"], "solid"), "clipped": (COLORS["state"], "solid")}


def curve_style(key: str) -> tuple[str, str, str, str]:
    """A curve's legend name, colour, marker and dash: its cell's own (the registry's), or for a cell state's path
    (the key's ending) the cell's second colour."""
    for end, (what, symbol, dash) in CELL_PATHS.items():
        if key.endswith(end) and key[:-len(end)] in REGISTRY:
            look = get(key[:-len(end)]).presentation
            return f"{look.label} {what}", look.second_color, symbol, dash
    look = get(key).presentation
    return f"{look.label} ‖{DIFF}‖", look.color, look.marker, look.dash


def lag_style(row: str) -> tuple[str, str, str, str]:
    """A result row's name, colour, marker and dash: its cell's own (rnnviz.experiments.lag_task.ROWS); a row
    started from a forget-gate bias other than the taught one in the cell's second colour, open marker and dashed
    (the two LSTMs told apart by fill and dash)."""
    cell, bias = ROWS[row]
    look = get(cell).presentation
    if bias is not None and bias != TAUGHT_FORGET_BIAS:
        return look.label, look.second_color, look.marker + "-open", "dash"
    return look.label, look.color, look.marker, look.dash


def lag_rows(results: dict, rows) -> list[str]:
    """The results' rows in the experiment's order (rnnviz.experiments.lag_task.ROWS)."""
    return [row for row in ROWS if row in rows and row in results["cells"]]


def _legend_margin(font_scale: float) -> int:
    """The lag charts' bottom margin with their legend under the axis: its six entries take up to three rows in a
    laptop's half-width column, one row across a projector's full width (210 px there left an empty band of about
    100 px under the legend)."""
    return grown(font_scale, 150, 125)


def _legend_below(y: float = -0.22) -> dict:
    return dict(orientation="h", x=0, xanchor="left", y=y, yanchor="top")


def _readable(data: list[dict], layout: dict, font_scale: float) -> go.Figure:
    """The figure, with explicit sizes for ticks, axis titles and the legend that grow with the page's type: Streamlit's
    chart theme sets 12 px ones, which a layout-wide font does not override."""
    for key, axis in layout.items():
        if key.startswith(("xaxis", "yaxis")) and isinstance(axis, dict):
            axis.setdefault("tickfont", {})["size"] = 13 * font_scale
            axis.setdefault("title", {}).setdefault("font", {})["size"] = 14 * font_scale
    layout.setdefault("legend", {}).setdefault("font", {})["size"] = 13 * font_scale
    return _fig(data, layout)


FLOOR, CEIL = -300.0, 300.0  # log10 limits drawn on the plot; beyond them a value sits at the edge


def edge_points(log10_values: np.ndarray) -> dict[str, np.ndarray]:
    """Split log10 values into those drawn in place and those beyond float range (drawn at the edge).

    Returns y (the value to draw, clamped to the edges), and masks `under` (exact 0 or below 1e-300)
    and `over` (above 1e300 or infinite)."""
    v = np.asarray(log10_values, float)
    under = ~(v >= FLOOR)  # -inf and NaN count as vanished
    over = v > CEIL
    y = np.clip(np.where(under, FLOOR, v), FLOOR, CEIL)
    return {"y": 10.0 ** y, "under": under, "over": over}


def gradient_decay(series: dict[str, np.ndarray], references: dict[str, np.ndarray] | None = None,
                   title: str = "How much of the gradient survives, by steps back",
                   font_scale: float = 1.0) -> go.Figure:
    """Norms against steps back k = T - t on a log axis. `series` maps a curve key (`curve_style`) to log10 norms.

    Values beyond float64 (exactly 0, below 1e-300, above 1e300) are drawn at the plot's edge with
    open triangles and say so on hover: nothing is dropped."""
    finite = np.concatenate([v[np.isfinite(v)] for v in series.values()] + [np.array([0.0])])
    lo = max(float(finite.min()), FLOOR) - 0.5
    hi = min(float(finite.max()), CEIL) + 0.5
    data, ann = [], []
    any_under = any_over = False
    for key, logv in series.items():
        name, color, symbol, dash = curve_style(key)
        k = np.arange(len(logv))
        e = edge_points(logv)
        inside = ~(e["under"] | e["over"])
        data.append(dict(type="scatter", x=k[inside], y=e["y"][inside], name=name,
                         mode="lines+markers", line=dict(color=color, width=4 if dash == "dot" else 2.5, dash=dash),
                         marker=dict(symbol=symbol, size=9, color=color, maxdisplayed=MARKERS),
                         hovertemplate="k=%{x} steps back<br>norm %{y:.3e}<extra>" + name + "</extra>"))
        for mask, edge, sym, label in ((e["under"], lo, "triangle-down-open", "vanished"),
                                       (e["over"], hi, "triangle-up-open", "exploded")):
            if mask.any():
                any_under |= label == "vanished"
                any_over |= label == "exploded"
                true = [("exactly 0" if not np.isfinite(logv[j]) else f"10^{logv[j]:.0f}") for j in k[mask]]
                data.append(dict(type="scatter", x=k[mask], y=np.full(mask.sum(), 10.0 ** edge), mode="markers",
                                 showlegend=False, marker=dict(symbol=sym, size=11, color=color, line=dict(width=2)),
                                 customdata=true,
                                 hovertemplate="k=%{x}: " + label + ", true value %{customdata}<extra>" + name
                                 + "</extra>"))
    refs = references or {}
    for n, ((name, vals), dash) in enumerate(zip(refs.items(), ("dash", "dashdot", "longdash"))):
        ends = np.array([0, len(vals) - 1])  # each is a straight line on the log axis: two points draw it
        data.append(dict(type="scatter", x=ends, y=np.asarray(vals)[ends], mode="lines", legendgroup="notes",
                         name="notes, grey dashes: " + ", ".join(refs), showlegend=n == 0,  # one legend entry
                         line=dict(color=COLORS["muted"], width=1.5, dash=dash), hoverinfo="skip"))
    if any_under:
        ann.append(dict(x=0.99, xref="paper", y=lo, yref="y", yanchor="bottom", xanchor="right", showarrow=False,
                        text="▽ below 1e-300 or exactly 0: drawn at this edge", font=dict(size=12 * font_scale)))
    if any_over:
        ann.append(dict(x=0.99, xref="paper", y=hi, yref="y", yanchor="top", xanchor="right", showarrow=False,
                        text="△ above 1e300: drawn at this edge", font=dict(size=12 * font_scale)))
    return _readable(data, _layout(title, 520 + 60 * (font_scale > 1), font_scale, annotations=ann,
                              margin=dict(l=grown(font_scale, 90, 111), r=10, b=grown(font_scale, 158, 235)),
                              yaxis=dict(type="log", range=[lo, hi], title=dict(text="norm (log scale)"),
                                         exponentformat="power"),
                              xaxis=dict(title=dict(text="steps back k = T − t"), rangemode="tozero"),
                              legend=_legend_below(-0.2 - 0.05 * (font_scale > 1))), font_scale)


def factor_figure(tanh_prime: np.ndarray, w_norm: float, forget: np.ndarray, update: np.ndarray | None = None,
                  font_scale: float = 1.0) -> go.Figure:
    """Per step s: the vanilla factor's two parts, tanh'(z_s) (mean over units) and ‖W_hh‖, the LSTM's forget gates and
    the GRU's update gates (means)."""
    T = len(tanh_prime)
    s = np.arange(1, T + 1)
    tp = tanh_prime.mean(axis=1)
    data = [dict(type="scatter", x=s, y=np.full(T, w_norm), name=f"‖W<sub>hh</sub>‖<sub>2</sub> = {fmt(w_norm)}",
                 mode="lines", line=dict(color=COLORS["weight"], width=3, dash="dash")),
            dict(type="scatter", x=s, y=tp, name="mean tanh′(z<sub>s</sub>), vanilla", mode="lines+markers",
                 line=dict(color=COLORS["vanilla"], width=2),
                 marker=dict(symbol="circle", size=7, maxdisplayed=MARKERS)),
            dict(type="scatter", x=s, y=tp * w_norm, name="their product: the vanilla factor's bound", mode="lines",
                 line=dict(color=COLORS["vanilla"], width=1.5, dash="dot")),
            dict(type="scatter", x=np.r_[s, s[::-1]], y=np.r_[forget.max(axis=1), forget.min(axis=1)[::-1]],
                 fill="toself", fillcolor="rgba(86,180,233,0.25)", line=dict(width=0), hoverinfo="skip",
                 name="LSTM forget gates, min to max"),
            dict(type="scatter", x=s, y=forget.mean(axis=1), name="mean forget gate f<sub>s</sub>, LSTM",
                 mode="lines+markers", line=dict(color="#56B4E9", width=3),
                 marker=dict(symbol="hexagon", size=7, maxdisplayed=MARKERS))]
    if update is not None:
        data.append(dict(type="scatter", x=s, y=update.mean(axis=1), name="mean update gate z<sub>s</sub>, GRU",
                         mode="lines+markers", line=dict(color="#CC79A7", width=2.5),
                         marker=dict(symbol="diamond", size=7, maxdisplayed=MARKERS)))
    shapes = [dict(type="line", x0=0, x1=1, xref="x domain", y0=1, y1=1, line=dict(color="#999", width=1))]
    return _readable(data, _layout("What each step multiplies the gradient by", 440 + 60 * (font_scale > 1), font_scale,
                              shapes=shapes, xaxis=dict(title=dict(text="step s")),
                              yaxis=dict(title=dict(text="factor per step"), rangemode="tozero"),
                              legend=_legend_below()), font_scale)


def _scaled(values: np.ndarray, log10_norm: float) -> tuple[np.ndarray, str]:
    """Components of a vector given as a unit direction times 10^log10_norm, in units that stay in float range."""
    if not np.isfinite(log10_norm):
        return np.zeros_like(values), ""
    e = int(np.floor(log10_norm))
    if -3 <= e <= 3:
        return values * 10 ** log10_norm, ""
    return values * 10 ** (log10_norm - e), f" (× 10<sup>{e}</sup>)"


TOO_SHORT = 2.0  # log10 of how many times shorter the clipped gradient may be before its bars are too short to see


def clip_figure(demo: dict, font_scale: float = 1.0) -> go.Figure:
    """The gradient's components (first 32 units) before and after clipping (`lessons.gradients.clip_demo`), both
    panels on one scale (the longer vector's power of ten), so a clipped gradient is visibly shorter."""
    direction, before, after = demo["direction"], demo["before"], demo["after"]
    log10_before, log10_after = demo["log10_before"], demo["log10_after"]
    n = min(len(direction), 32)
    units = _unit_labels(n, "u")
    finite = [lg for lg in (log10_before, log10_after) if np.isfinite(lg)]
    top = max(finite) if finite else 0.0
    e = int(np.floor(top)) if not -3 <= np.floor(top) <= 3 else 0
    unit = f" (× 10<sup>{e}</sup>)" if e else ""
    # the y labels' width, for the left margin automargin would grow: plotly.js ticks halves ("−0.5") up to about 3,
    # whole numbers ("−4", "−40") above (seen at H = 4 and 32)
    big = max((float(np.max(np.abs(direction[:n]))) * 10 ** (lg - e) for lg in finite), default=0.0)
    chars = (4 if big >= 0.1 else 5) if big < 3 else 2 + int(np.floor(np.log10(big)))
    data = []
    for k, (lg, label, color) in enumerate(((log10_before, f"before: ‖g‖ = {before}", COLORS["vanilla"]),
                                            (log10_after, f"after: ‖g‖ = {after}", COLORS["state"])), start=1):
        y = direction[:n] * 10 ** (lg - e) if np.isfinite(lg) else np.zeros(n)
        data.append(_in(dict(type="bar", x=units, y=y, name=label, marker=dict(color=color), showlegend=False,
                             hovertemplate="%{x}: %{y:.3g}" + unit.replace("<sup>", "^").replace("</sup>", "")
                             + "<extra></extra>"), k))
    lay = _columns(2, 0.16 + 0.06 * (font_scale > 1), titles=[f"before: ‖g‖ = {before}", f"after: ‖g‖ = {after}"],
                   font_scale=font_scale)
    lay["yaxis"].update(title=dict(text="component" + unit), exponentformat="power")
    lay["yaxis2"].update(title=dict(text="component" + unit), exponentformat="power", matches="y")  # one scale
    lay["xaxis"]["tickangle"] = lay["xaxis2"]["tickangle"] = -90
    notes = lay.pop("annotations", [])  # the panels' titles
    if np.isfinite(log10_before) and np.isfinite(log10_after) and log10_before - log10_after > TOO_SHORT:
        # under a hundredth of the panel's height the clipped bars are a pixel or two: an empty panel would read as
        # broken, so it says what is there
        notes.append(dict(x=0.5, y=0.5, xref="x2 domain", yref="y2 domain", showarrow=False, align="center",
                          text=f"{format_norm(log10_before - log10_after)} times shorter:<br>too short to see on "
                               "this scale,<br>in the same direction", font=dict(size=13 * font_scale, color="#444"),
                          bgcolor="rgba(255,255,255,0.85)"))
    margin = dict(t=50, l=y_margin(font_scale, chars + 0.6), b=grown(font_scale, 50, 56))  # "u29" turned upright
    return _readable(data, _layout("", 320 + 40 * (font_scale > 1), font_scale, margin=margin, annotations=notes,
                                   **lay), font_scale)


def training_figure(runs: dict[str, dict], threshold: float, font_scale: float = 1.0) -> go.Figure:
    """Loss per character (top) and log10 of the gradient norm before clipping (bottom), per SGD step, for each run."""
    data = []
    for name, run in runs.items():
        color, dash = RUN_STYLE[name]
        step = np.arange(1, len(run["loss"]) + 1)
        label = f"clipped at ‖g‖ = {threshold:g}" if name == "clipped" else "unclipped"
        data.append(_in(dict(type="scatter", x=step, y=run["loss"], name=label, mode="lines", legendgroup=name,
                             line=dict(color=color, width=2.5, dash=dash),
                             hovertemplate="step %{x}: loss %{y:.3f}<extra>" + label + "</extra>"), 1))
        data.append(_in(dict(type="scatter", x=step, y=run["log10_norm"], name=label, mode="lines", legendgroup=name,
                             showlegend=False, line=dict(color=color, width=2, dash=dash),
                             hovertemplate="step %{x}: log<sub>10</sub> ‖g‖ = %{y:.2f}<extra>" + label
                             + "</extra>"), 2))
    first = next(iter(runs.values()))["loss"]
    twice = np.log10(2 * float(first[0])) if len(first) else 0.0  # a log axis places notes by log10, shapes by value
    lay = _rows(2, 0.12, titles=["loss per character (nats, log scale)", "log<sub>10</sub> ‖g‖, the gradient before "
                                 "clipping"], font_scale=font_scale)
    shapes = [dict(type="line", x0=0, x1=1, xref="x domain", y0=10 ** twice, y1=10 ** twice, yref="y",
                   line=dict(color=COLORS["muted"], width=1.5, dash="dot")),
              dict(type="line", x0=0, x1=1, xref="x2 domain", y0=np.log10(threshold), y1=np.log10(threshold), yref="y2",
                   line=dict(color=COLORS["state"], width=1.5, dash="dash"))]
    ann = lay.pop("annotations") + [
        dict(x=1, xref="x domain", y=twice, yref="y", xanchor="right", yanchor="bottom", showarrow=False,
             text=f"twice the start ({fmt(10 ** twice)})", font=dict(size=12 * font_scale, color=COLORS["muted"])),
        dict(x=1, xref="x2 domain", y=np.log10(threshold), yref="y2", xanchor="right", yanchor="bottom",
             showarrow=False, text=f"threshold {threshold:g}", font=dict(size=12 * font_scale, color=COLORS["state"]))]
    lay["xaxis2"]["title"] = dict(text="SGD step")
    lay["yaxis"].update(type="log", tickvals=[1, 2, 5, 10, 20, 50, 100, 200, 500])
    margin = dict(r=grown(font_scale, 23, 28), t=grown(font_scale, 74, 85), b=x_margin(font_scale))  # as automargin
    return _readable(data, _layout("", 540 + 60 * (font_scale > 1), font_scale, shapes=shapes, annotations=ann,
                              margin=margin, legend=dict(orientation="h", x=0, xanchor="left", y=1.08,
                                                         yanchor="bottom"), **lay), font_scale)


def lag_name(row: str, cell: dict) -> str:
    """A row's name on the charts: the LSTMs carry the forget-gate bias they started from."""
    name = get(ROWS[row][0]).presentation.label
    b = cell.get("forget_bias")
    return name + ("" if b is None else f" (b<sub>f</sub> = {b:+g})" if b else " (b<sub>f</sub> = 0)")


def _spread(x: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[list, list]:
    """Vertical segments from lo to hi at each x, as one line trace (None breaks the line): error bars."""
    xs, ys = [], []
    for a, b, c in zip(x, lo, hi):
        xs += [a, a, None]
        ys += [b, c, None]
    return xs, ys


def _lag_traces(x, acc: np.ndarray, row: str, cell: dict, what: str, legend: bool, axis: int = 1,
                customdata=None) -> list[dict]:
    """A row's mean over seeds (line and markers) and its seed spread, min to max (thin bars), on one subplot."""
    name, color, symbol, dash = lag_style(row)
    label = lag_name(row, cell)
    mean = dict(type="scatter", x=list(x), y=acc.mean(axis=0), name=label, mode="lines+markers", legendgroup=row,
                customdata=customdata,
                showlegend=legend, line=dict(color=color, width=2.5, dash=dash),
                marker=dict(symbol=symbol, size=9, color=color, maxdisplayed=MARKERS * 2),
                hovertemplate=what + ": mean %{y:.1%}<extra>" + label + "</extra>")
    out = [_in(mean, axis)]
    if len(acc) > 1:
        xs, ys = _spread(x, acc.min(axis=0), acc.max(axis=0))
        out.append(_in(dict(type="scatter", x=xs, y=ys, mode="lines", legendgroup=row, showlegend=False,
                            line=dict(color=color, width=1.5), opacity=0.7, hoverinfo="skip",
                            name=label + ", seed spread"), axis))
    return out


DODGE = 0.07  # octaves between neighbouring rows at one lag


def lag_figure(results: dict, font_scale: float = 1.0) -> go.Figure:
    """Held-out accuracy of recalling the first symbol k steps later, by lag k: each row's mean over seeds with its
    seed spread (min to max) as bars; chance as a dashed line."""
    lags = results["lags"]
    data, rows = [], lag_rows(results, results["cells"])
    for j, row in enumerate(rows):
        # each row a little to the side of its lag (the axis is logarithmic: the same step at every lag), so rows
        # with the same accuracy (several at 100% at a short lag) stand side by side, not one over the other
        x = [k * 2 ** (DODGE * (j - (len(rows) - 1) / 2)) for k in lags]
        cell = results["cells"][row]
        data += _lag_traces(x, np.asarray(cell["accuracy"], float), row, cell, "lag %{customdata}", True,
                            customdata=list(lags))
    chance = 1 / results["task"]["symbols"]
    shapes = [dict(type="line", x0=0, x1=1, xref="x domain", y0=chance, y1=chance, line=dict(color=COLORS["muted"],
                                                                                            width=1.5, dash="dash"))]
    ann = [dict(x=0, xref="x domain", y=chance, yref="y", xanchor="left", yanchor="bottom", showarrow=False,
                text=f"chance ({chance:.1%})", font=dict(size=12 * font_scale, color=COLORS["muted"]))]
    return _readable(data, _layout("Name the first symbol k steps later: accuracy after training",
                              440 + 80 * (font_scale > 1), font_scale, shapes=shapes, annotations=ann,
                              legend=_legend_below(),
                              margin=dict(l=grown(font_scale, 88, 107), b=_legend_margin(font_scale)),
                              xaxis=dict(type="log", title=dict(text="lag k (steps back)"), tickvals=lags,
                                         ticktext=[str(v) for v in lags]),
                              yaxis=dict(title=dict(text="accuracy on held-out streams"), range=[0, 1.05],
                                         tickformat=".0%")), font_scale)


def lag_curve_figure(results: dict, font_scale: float = 1.0) -> go.Figure:
    """Accuracy at one lag against training step (mean over seeds, seed spread as bars); for a staged curriculum,
    dotted lines where it moves to a longer lag."""
    cur = results["curve"]
    steps, data = np.asarray(cur["step"]), []
    stacked = font_scale > 1  # on a projector the two lag charts stack, and this one needs a legend of its own
    for row in lag_rows(results, cur["accuracy"]):
        data += _lag_traces(steps, np.asarray(cur["accuracy"][row], float), row, results["cells"][row],
                            "step %{x}", stacked)
    chance, stage = 1 / results["task"]["symbols"], cur.get("stage_steps")
    shapes = [dict(type="line", x0=0, x1=1, xref="x domain", y0=chance, y1=chance,
                   line=dict(color=COLORS["muted"], width=1.5, dash="dash"))]
    ann = []
    for i, lag in enumerate(results["lags"] if stage else []):  # a staged curriculum: where each stage starts
        shapes.append(dict(type="line", x0=i * stage, x1=i * stage, y0=0, y1=1, yref="y domain",
                           line=dict(color=COLORS["muted"], width=1, dash="dot")))
        ann.append(dict(x=(i + 0.5) * stage, y=1.0, yref="y domain", yanchor="bottom", showarrow=False,
                        text=f"k ≤ {lag}", font=dict(size=12 * font_scale, color=COLORS["muted"])))
    last = int(steps[-1]) if len(steps) else 1
    bottom, legend = (_legend_margin(font_scale), dict(legend=_legend_below())) if stacked else (
        grown(font_scale, 72, 92), {})  # the legend's rows as below lag_figure, the plot as tall as without them
    return _readable(data, _layout(f"Accuracy at lag {cur['lag']} while training",
                              440 + 80 * stacked + bottom - grown(font_scale, 72, 92), font_scale, shapes=shapes,
                              annotations=ann, **legend,
                              margin=dict(l=grown(font_scale, 88, 107), t=grown(font_scale, 80, 100),
                                          b=bottom, r=grown(font_scale, 32, 40)),
                              xaxis=dict(title=dict(text="Adam step" + (" (the curriculum's stages above)"
                                                                        if stage else "")), range=[0, last]),
                              yaxis=dict(title=dict(text=f"accuracy at lag {cur['lag']}"), range=[0, 1.05],
                                         tickformat=".0%")), font_scale)
