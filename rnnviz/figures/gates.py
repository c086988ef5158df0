"""Figures for the gates page: gate values per step, gate heatmaps, three cells in lockstep, the valve experiment.

Tick labels (figures.fonts.text_sizes) and in-chart numbers (tick_size) grow with the font scale: Streamlit's chart
theme pins them at 12 px, which a projector (classroom mode) would not scale.
"""
from __future__ import annotations

import re

import numpy as np
import plotly.graph_objects as go

from rnnviz.figures.base import (
    AMBER,
    COLORS,
    DIVERGING,
    _axis_name,
    _columns,
    _fig,
    _in,
    _layout,
    _ref,
    _vrect,
    cell_text,
    grown,
    not_reached,
    x_margin,
    y_margin,
)
from rnnviz.figures.fonts import LEAST, SUB, text_sizes
from rnnviz.figures.labels import text_width
from rnnviz.nn.cells import get

GATE_INFO = {  # name: (title, colour key, value range)
    "f": ("forget f<sub>t</sub>", "gate", (0, 1)), "i": ("input i<sub>t</sub>", "gate", (0, 1)),
    "g": ("candidate g<sub>t</sub>", "state", (-1, 1)), "o": ("output o<sub>t</sub>", "gate", (0, 1)),
    "c": ("cell state c<sub>t</sub>", "cell", None), "h": ("hidden h<sub>t</sub>", "state", (-1, 1)),
    "r": ("reset r<sub>t</sub>", "gate", (0, 1)), "z": ("update z<sub>t</sub>", "gate", (0, 1)),
    "n": ("candidate n<sub>t</sub>", "state", (-1, 1)),
}


LOCKSTEP_MAX_HEIGHT = 620  # px: three cells under their stepper (about 140 px) within a 768 px projector screen
LOCKSTEP_PANEL_PX = 250  # px: a cell's plot area, a third of the page less its row labels (about 235 at 1024 px)
SPLIT_MAX_HEIGHT = 340  # px: one cell's gates and states side by side under their stepper on a 768 px projector
STACK_PANEL_PX = 500  # px: the stacked chart's plot area, beside the settings at 1400 px with the sidebar open
SPLIT_PANEL_PX = 255  # px: one of those two panels' plot areas at 1024 px (half the column less row labels)


def _numbers_fit(T: int, digits: int, font_scale: float, panel_px: float = LOCKSTEP_PANEL_PX) -> bool:
    """Whether the current step's numbers fit its column, one of T across a cell's panel: after 'One, then zeros'
    (65 steps) a column is about 4 px wide, and its numbers were cut off at the panel's edge (the colours and the
    hover still give them)."""
    return T * (text_width("−0." + "0" * digits, tick_size(font_scale)) + 2) <= panel_px


def _digits(H: int, T: int, font_scale: float, panel_px: float) -> bool | str:
    """The current step's numbers in a one-cell heatmap (`_stack`'s `text`): two decimals where its column holds
    them, else one ("1"), else none (False; at 35 steps they were cut to '.82'); none past 16 units."""
    fits = [d for d in (2, 1) if _numbers_fit(T, d, font_scale, panel_px)]
    return H <= 16 and bool(fits) and (True if fits[0] == 2 else "1")


def _title_px(font_scale: float) -> float:
    """Panel titles' type: 13 px, or on a projector the size at which their subscripts reach 14 px (fonts.at_least)."""
    return max(13 * font_scale, LEAST / SUB) if font_scale > 1 else 13 * font_scale


def tick_size(font_scale: float) -> float:
    """Tick labels and numbers inside charts: 12 px, 17.4 px in classroom mode (never under 14 on a projector)."""
    return 12 * font_scale


def _time_labels(T: int, x_labels: list[str] | None) -> list[str]:
    return [f"{t + 1}" + (f" {x_labels[t]!r}" if x_labels else "") for t in range(T)]


# One heatmap trace holds gates and states together (the browser paints each heatmap trace as its own image, so
# one trace redraws several times faster than six). Gates (0..1) map to z in [0, 1] on the amber part of a joined
# scale, states (-lim..lim) to z in [2, 4] on its red-white-blue part; the cells print and hover the true values.
JOINED = [[p / 4, c] for p, c in AMBER] + [[0.5 + p / 2, c] for p, c in DIVERGING]


def _stack(panels: list[tuple[str, np.ndarray]], xs: list[str], font_scale: float, text: bool | str, k: int = 1,
           short: bool = False, current: int | None = None):
    """Gates and states over time stacked in ONE subplot and ONE trace, a blank row between them; the values
    printed in the current step's column (a few dozen labels redraw faster than every cell's), and the steps after
    `current` covered (`_cover`). Returns the traces, the y tick positions and labels, and the number of rows."""
    rows = sum(v.shape[1] for _, v in panels) + len(panels) - 1
    z, value = np.full((rows, len(xs)), np.nan), np.full((rows, len(xs)), np.nan)
    name = np.full((rows, len(xs)), "", dtype=object)
    vals, labels, y0 = [], [], 0
    for n, v in panels:  # v: (T, H)
        H = v.shape[1]
        if GATE_INFO[n][1] == "gate":
            z[y0:y0 + H] = v.T
        else:
            lim = 1.0 if n != "c" else max(1.0, float(np.abs(v).max()))
            z[y0:y0 + H] = 3 + v.T / lim
        value[y0:y0 + H], name[y0:y0 + H] = v.T, [[f"{n} unit {u + 1}"] * len(xs) for u in range(H)]
        for u in range(H):
            if u == 0 or H <= 8:
                vals.append(y0 + u)
                title = f"{n}<sub>t</sub>" if short else GATE_INFO[n][0]
                labels.append((f"{title}·u{u + 1}" if short else f"{title} · u{u + 1}") if u == 0 else f"u{u + 1}")
        y0 += H + 1
    trace = dict(type="heatmap", z=z, x=xs, y=list(range(rows)), zmin=0, zmax=4, colorscale=JOINED,
                 showscale=False, xgap=1, ygap=1, customdata=np.stack([value, name], -1).tolist(), hoverongaps=False,
                 hovertemplate="%{customdata[1]}, t=%{x}: %{customdata[0]:.4f}<extra></extra>")
    if text:  # the current step's numbers, or none at all (no array of blanks sent with every step)
        shown = np.array(cell_text(not_reached(value, current), 2 if text is True else 1), dtype=object)
        if current is not None:
            shown[:, np.arange(len(xs)) != current] = ""
        trace.update(text=shown.tolist(), texttemplate="%{text}", textfont=dict(size=tick_size(font_scale)))
    return [_in(trace, k)], vals, labels, rows


# The steps after the current one are covered by a white rectangle (a layout shape) rather than blanked in the values
# (base.not_reached): a step then changes the layout alone, which plotly.js redraws without recomputing the heatmaps.
# With the three trained cells' 65 steps (13,000 cells), a step that changed the values took Plotly.react 75-120 ms
# of the browser's time against 6-13 ms for the layout alone, and each step's figure was 2.5 MB a rerun and too many
# bytes to send every step at once (ui/live/steps.py); now a step adds 2.6 KB. The cover is the plot's own white
# and hides the gaps as the blanks did. Hover passes through a shape: a covered cell still gives its value there.
def _cover(current: int | None, T: int, xref: str = "x", yref: str = "y domain", y0: float = 0, y1: float = 1
           ) -> list[dict]:
    if current is None or current >= T - 1:
        return []
    return [dict(type="rect", x0=current + 0.5, x1=T - 0.5, y0=y0, y1=y1, xref=xref, yref=yref, layer="above",
                 fillcolor="#FFFFFF", line=dict(width=0), name="not reached")]


def _label_margin(labels: list[str], font_scale: float) -> int:
    """A left margin wide enough for the tick labels, set outright: Plotly's automargin lays the chart out twice."""
    longest = max((len(re.sub(r"<[^>]+>", "", s)) for s in labels), default=0)
    return int(12 + 0.7 * tick_size(font_scale) * longest)  # 0.6 was seen 7 px short on a projector


def gate_heatmaps(trace, names: list[str], x_labels: list[str] | None = None, current: int | None = None,
                  font_scale: float = 1.0, split: bool = False) -> go.Figure:
    """Each gate or state over time [T, H], stacked in one panel; gates on a 0..1 amber scale, states on the signed
    purple-white-grey one; the current step outlined, the steps after it blank. `split`: two panels side by side,
    the gates in one and the states in the other, each half as tall as the stack (on a 768 px projector the whole
    stack ran past the screen's bottom edge, its cell-state rows with it, under the stepper that moves them)."""
    T, H = getattr(trace, names[0]).shape
    xs = _time_labels(T, x_labels)
    if split:
        return _split_heatmaps(trace, names, xs, current, font_scale)
    data, vals, labels, rows = _stack([(n, getattr(trace, n)) for n in names], xs, font_scale,
                                      _digits(H, len(xs), font_scale, STACK_PANEL_PX), current=current)
    row = max(14.0, 20 * font_scale) if rows <= 60 else max(4.0, 600 / rows)  # px per unit row, so numbers fit
    lay = _layout("", int(rows * row + 90), font_scale,
                  margin=dict(t=20, l=_label_margin(labels, font_scale), r=10, b=50),
                  xaxis=dict(type="category"), yaxis=dict(range=[rows - 0.5, -0.5], tickvals=vals, ticktext=labels,
                                                          showgrid=False, zeroline=False))
    if current is not None:
        lay["shapes"] = _cover(current, len(xs)) + [_vrect(current - 0.5, current + 0.5, COLORS["current"], 3)]
    return _fig(data, text_sizes(lay, font_scale))


def _split_heatmaps(trace, names: list[str], xs: list[str], current: int | None, font_scale: float) -> go.Figure:
    """gate_heatmaps(split=True): the gates' panel, then the states', one trace each, rows as thin as the numbers
    in them allow and no thinner (SPLIT_MAX_HEIGHT: the chart under its stepper on a projector's first screen)."""
    H = getattr(trace, names[0]).shape[1]
    groups = [[n for n in names if GATE_INFO[n][1] == "gate"], [n for n in names if GATE_INFO[n][1] != "gate"]]
    groups = [g for g in groups if g]
    text = _digits(H, len(xs), font_scale, SPLIT_PANEL_PX)
    stacks = [_stack([(n, getattr(trace, n)) for n in g], xs, font_scale, text, k, short=True, current=current)
              for k, g in enumerate(groups, 1)]
    rows, top, bottom = max(s[3] for s in stacks), 20, 50
    margin = max(_label_margin(s[2], font_scale) for s in stacks)
    gap = (margin + 10) / (2 * SPLIT_PANEL_PX + margin + 10)  # of the plot's width: the right panel's labels
    lay = _layout("", _fit_height(rows, top, bottom, SPLIT_MAX_HEIGHT, font_scale), font_scale, showlegend=False,
                  margin=dict(t=top, l=margin, r=10, b=bottom), **_columns(len(stacks), gap))
    return _fig(_panels(lay, stacks, rows, current), text_sizes(lay, font_scale))


def lockstep_heatmaps(traces: dict, sizes: dict[str, int], params: dict[str, int],
                      x_labels: list[str] | None = None, current: int | None = None, font_scale: float = 1.0,
                      notes: dict[str, str] | None = None) -> go.Figure:
    """The cells of `traces` side by side, one panel each: its gates, then its states (each cell's own
    `lockstep_panels`), over time; one row per unit, the same row height in every panel, the current step outlined
    in all of them; `notes`, a line per cell under its title (this step's summary: part of the chart, so a step
    redraws one element)."""
    cells = list(traces)
    panels = {c: get(c).presentation.lockstep_panels for c in cells}
    T = len(traces[cells[0]].h)
    xs = _time_labels(T, x_labels)
    text = max(sizes.values()) <= 12 and (True if font_scale <= 1 or T <= 5 else "1")  # narrow cells: 1 decimal
    if text and not _numbers_fit(T, 2 if text is True else 1, font_scale):
        text = False
    stacks = {c: _stack([(n, getattr(traces[c], n)) for n in panels[c]], xs, font_scale, text, j, short=True,
                        current=current)
              for j, c in enumerate(cells, 1)}
    rows = max(s[3] for s in stacks.values())
    lines = 2 + max((n.count("<br>") + 1 for n in (notes or {}).values()), default=0)  # title lines above the panels
    # the titles' lines (Plotly spaces them 1.3 apart) and the toolbar's row: 30 px a line left an empty band of about
    # 90 px over the cells on a projector, between them and the stepper above
    top = round(1.3 * _title_px(font_scale) * lines + 18)
    bottom = 50  # the steps' labels (the height is fitted with it; the margin is what automargin grew it to)
    lay = _layout("", _fit_height(rows, top, bottom, LOCKSTEP_MAX_HEIGHT, font_scale), font_scale, showlegend=False,
                  margin=dict(t=top, l=_label_margin(stacks[cells[0]][2], font_scale) + 3, r=16,
                              b=grown(font_scale, 64, 81)),
                  **_columns(len(cells), 0.1, titles=[f"<b>{get(c).presentation.heading}</b><br>H = {sizes[c]}, "
                                                       f"{params[c]:,} parameters"
                                                       + (f"<br>{notes[c]}" if notes else "") for c in cells],
                             font_scale=font_scale))
    return _fig(_panels(lay, list(stacks.values()), rows, current), text_sizes(lay, font_scale))


def _fit_height(rows: int, top: int, bottom: int, most: int, font_scale: float) -> int:
    """Side-by-side panels' height: rows as tall as reading needs, thinner where that fits the chart in `most` px
    (under its stepper in one screen), never thinner than the numbers written in them. Past 60 rows (the trained
    cells: no numbers in them) rows as thin as 2 px keep the chart within `most` (4 px made them 828 px tall on a
    768 px projector)."""
    fit = (most - top - bottom) / rows
    row = max(1.3 * tick_size(font_scale), min(20 * font_scale, fit)) if rows <= 60 else max(2.0, min(600 / rows, fit))
    return int(rows * row + top + bottom)


def _panels(lay: dict, stacks: list, rows: int, current: int | None) -> list[dict]:
    """Side-by-side `_stack`s into `lay`: each panel's axes over the same `rows`, the current step outlined around
    each panel's own rows (not the blank below a shorter one) and the steps after it covered; returns their traces."""
    data, shapes = [], []
    for k, (d, vals, labels, n) in enumerate(stacks, 1):
        data += d
        lay[_axis_name("x", k)].update(type="category")
        lay[_axis_name("y", k)].update(range=[rows - 0.5, -0.5], tickvals=vals, ticktext=labels, showgrid=False,
                                      zeroline=False)
        if current is not None:
            shapes += _cover(current, len(d[0]["x"]), _ref("x", k), _ref("y", k), -0.5, n - 0.5)
            shapes.append(dict(type="rect", x0=current - 0.5, x1=current + 0.5, y0=-0.5, y1=n - 0.5,
                               xref=_ref("x", k), yref=_ref("y", k), line=dict(color=COLORS["current"], width=3)))
    lay["shapes"] = shapes
    return data


def valve_figure(valve, font_scale: float = 1.0) -> go.Figure:
    """The LSTM's cell state and output beside a vanilla unit's state, over hundreds of steps."""
    T = len(valve.x)
    # every step up to 30, then ~150 log-spaced ones: on a log axis that is every pixel, and thousands of points
    # would only slow the redraw (the values drawn are still the exact ones at those steps)
    k = np.unique(np.r_[np.arange(min(T, 30)), np.round(np.geomspace(1, T, 150)).astype(int) - 1])
    t = k + 1
    w_h = valve.weights.get("w_h", 0.5)
    data = [dict(type="scatter", x=t, y=valve.lstm.c[k, 0], name="LSTM cell state c<sub>t</sub>", mode="lines",
                 line=dict(color=COLORS["cell"], width=4)),
            dict(type="scatter", x=t, y=valve.lstm.h[k, 0], name="LSTM output h<sub>t</sub>", mode="lines",
                 line=dict(color=COLORS["state"], width=2, dash="dot")),
            dict(type="scatter", x=t, y=valve.rnn.h[k, 0], name=f"vanilla h<sub>t</sub> (w<sub>h</sub> = {w_h:g})",
                 mode="lines+markers", line=dict(color=COLORS["vanilla"], width=2),
                 marker=dict(size=5, symbol="triangle-up"))]
    ann = [dict(x=np.log10(T), y=valve.lstm.c[-1, 0], text=f"c<sub>{T}</sub> = {valve.lstm.c[-1, 0]:.4f}",
                showarrow=True, ax=-60, ay=-30, font=dict(size=13 * font_scale))]
    lay = _layout("The valve: f = 1, i = 0 after step 1", 380 + 40 * (font_scale > 1), font_scale, annotations=ann,
                  margin=dict(t=110 * font_scale, l=y_margin(font_scale, 2.9), b=x_margin(font_scale)),  # "0.2"
                  xaxis=dict(title=dict(text="time step t (log scale)"), type="log", dtick=1),
                  yaxis=dict(title=dict(text="value"), range=[-0.05, 1.0]))
    return _fig(data, text_sizes(lay, font_scale))


DHDX = "‖∂h<sub>t</sub>/∂x<sub>1</sub>‖"
SURVIVAL_FLOOR = 1e-300  # exactly 0 (underflow) is drawn here, on the log axis


def survival_figure(norms: dict[str, np.ndarray], sizes: dict[str, int], current: int | None = None,
                    font_scale: float = 1.0) -> go.Figure:
    """||dh_t/dx_1|| against step t on a log axis, one line per cell; the step shown above outlined."""
    data, lows = [], [1.0]
    for cell, v in norms.items():
        look = get(cell).presentation  # each cell's own colour, marker and dash
        color, symbol, dash = look.color, look.marker, look.dash
        v = np.asarray(v, float)
        t = np.arange(1, len(v) + 1)
        name = f"{look.heading} (H = {sizes[cell]})"
        lows.append(float(v[v > 0].min()) if (v > 0).any() else SURVIVAL_FLOOR)
        data.append(dict(type="scatter", x=t, y=np.maximum(v, SURVIVAL_FLOOR), name=name, mode="lines+markers",
                         line=dict(color=color, width=2.5, dash=dash),
                         marker=dict(symbol=symbol, size=8, color=color, maxdisplayed=16),
                         hovertemplate="t=%{x}: " + DHDX + " = %{y:.3e}<extra>" + name + "</extra>"))
    shapes = []
    if current is not None:
        shapes.append(dict(type="line", x0=current, x1=current, y0=0, y1=1, yref="y domain",
                           line=dict(color=COLORS["current"], width=1.5, dash="dot")))
    lo = np.log10(max(min(lows), SURVIVAL_FLOOR)) - 0.5
    hi = np.log10(max(float(np.max([np.max(v) for v in norms.values()])), 1e-300)) + 0.5
    size = tick_size(font_scale)
    # the widest decade label ("10⁻¹⁵": 10, the minus, the digits), for the left margin automargin would grow
    decades = [e for e in (int(np.ceil(lo)), int(np.floor(hi))) if e not in (0, 1)]
    widest = max((2 + len(str(e)) for e in decades), default=2)
    # a decade per tick where they fit: Plotly's in-between labels (2, 5) are drawn smaller than the ticks, under
    # 14 px on a projector; axis titles sized with the page (Streamlit's theme draws them at 12 px otherwise). The
    # legend under the title: under the step axis it sat below a projector's first screen, the lines unnamed there.
    return _fig(data, text_sizes(_layout("How much of x<sub>1</sub> survives: " + DHDX, 400 + 60 * (
        font_scale > 1), font_scale, shapes=shapes, margin=dict(l=max(80, y_margin(font_scale, widest + 0.7)), r=20,
                                                                t=round(60 + 26 * font_scale), b=x_margin(font_scale)),
        legend=dict(orientation="h", x=0, xanchor="left", y=1.0, yanchor="bottom", font=dict(size=13 * font_scale)),
        xaxis=dict(title=dict(text="step t"), tickfont=dict(size=size), rangemode="tozero"),
        yaxis=dict(type="log", range=[lo, hi], exponentformat="power", tickfont=dict(size=size),
                   dtick=1 if hi - lo <= 8 else None, title=dict(text="spectral norm (log scale)"))), font_scale))
