"""Figures for the gates page: gate values per step, gate heatmaps, three cells in lockstep, the valve experiment.

Tick labels and in-chart numbers get explicit sizes that grow with the font scale: Streamlit's chart theme
pins ticks at 12 px, which a projector (classroom mode) would not scale.
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rnnviz.figures.base import COLORS, DIVERGING, AMBER, _layout, _fig, _axis_name, _ref, _columns, _in, _vrect


GATE_INFO = {  # name: (title, colour key, value range)
    "f": ("forget f<sub>t</sub>", "gate", (0, 1)), "i": ("input i<sub>t</sub>", "gate", (0, 1)),
    "g": ("candidate g<sub>t</sub>", "state", (-1, 1)), "o": ("output o<sub>t</sub>", "gate", (0, 1)),
    "c": ("cell state c<sub>t</sub>", "cell", None), "h": ("hidden h<sub>t</sub>", "state", (-1, 1)),
    "r": ("reset r<sub>t</sub>", "gate", (0, 1)), "z": ("update z<sub>t</sub>", "gate", (0, 1)),
    "n": ("candidate n<sub>t</sub>", "state", (-1, 1)),
}
CELL_TITLES = {"rnn": "Vanilla RNN", "lstm": "LSTM", "gru": "GRU"}


def tick_size(font_scale: float) -> float:
    """Tick labels and numbers inside charts: 12 px, 17.4 px in classroom mode (never under 14 on a projector)."""
    return 12 * font_scale


def _ticks(layout: dict, font_scale: float) -> dict:
    """Give every axis in `layout` tick labels of tick_size (and titles a size that scales too)."""
    for k, v in layout.items():
        if (k.startswith("xaxis") or k.startswith("yaxis")) and isinstance(v, dict):
            v["tickfont"] = dict(size=tick_size(font_scale))
            if isinstance(v.get("title"), dict):
                v["title"]["font"] = dict(size=14 * font_scale)
    layout.setdefault("legend", {})["font"] = dict(size=13 * font_scale)
    return layout


def _time_labels(T: int, x_labels: list[str] | None) -> list[str]:
    return [f"{t + 1}" + (f" {x_labels[t]!r}" if x_labels else "") for t in range(T)]


def _heat(v: np.ndarray, n: str, xs: list[str], font_scale: float, text: bool | str) -> dict:
    """One gate or state over time as a heatmap trace: gates on a 0..1 amber scale, states red-blue."""
    gate = GATE_INFO[n][1] == "gate"
    lim = 1.0 if n != "c" else max(1.0, float(np.abs(v).max()))
    return dict(type="heatmap", z=v.T, x=xs, zmin=0 if gate else -lim, zmax=1 if gate else lim,
                colorscale=AMBER if gate else DIVERGING, showscale=False, xgap=1, ygap=1,
                texttemplate=(text if isinstance(text, str) else "%{z:.2f}") if text else None,
                textfont=dict(size=tick_size(font_scale)))


def _stack(panels: list[tuple[str, np.ndarray]], xs: list[str], font_scale: float, text: bool | str, k: int = 1,
           short: bool = False):
    """Gates and states over time stacked in ONE subplot (one heatmap trace each, a blank row between them):
    a single set of axes redraws several times faster than one subplot per gate. Returns the traces, the
    y tick positions and labels, and the number of rows."""
    data, vals, labels, y0 = [], [], [], 0
    for n, v in panels:  # v: (T, H)
        H = v.shape[1]
        tr = _heat(v, n, xs, font_scale, text)
        tr["y"] = list(range(y0, y0 + H))
        tr["hovertemplate"] = f"{n}" + " t=%{x} unit %{customdata}: %{z:.4f}<extra></extra>"
        tr["customdata"] = [[u + 1] * len(xs) for u in range(H)]
        data.append(_in(tr, k))
        for u in range(H):
            if u == 0 or H <= 8:
                vals.append(y0 + u)
                name = f"{n}<sub>t</sub>" if short else GATE_INFO[n][0]
                labels.append((f"{name}·u{u + 1}" if short else f"{name} · u{u + 1}") if u == 0 else f"u{u + 1}")
        y0 += H + 1
    return data, vals, labels, y0 - 1


def gate_heatmaps(trace, names: list[str], x_labels: list[str] | None = None, current: int | None = None,
                  font_scale: float = 1.0) -> go.Figure:
    """Each gate or state over time [T, H], stacked in one panel; gates on a 0..1 amber scale, states on red-blue;
    the current step outlined."""
    T, H = getattr(trace, names[0]).shape
    xs = _time_labels(T, x_labels)
    data, vals, labels, rows = _stack([(n, getattr(trace, n)) for n in names], xs, font_scale, T * H <= 60)
    row = max(14.0, 20 * font_scale) if rows <= 60 else max(4.0, 600 / rows)  # px per unit row, so numbers fit
    lay = _layout("", int(rows * row + 90), font_scale, margin=dict(t=20, l=10, r=10, b=50),
                  xaxis=dict(type="category"), yaxis=dict(range=[rows - 0.5, -0.5], tickvals=vals, ticktext=labels,
                                                          automargin=True, showgrid=False, zeroline=False))
    if current is not None:
        lay["shapes"] = [_vrect(current - 0.5, current + 0.5, COLORS["output"], 3)]
    return _fig(data, _ticks(lay, font_scale))


def lockstep_heatmaps(traces: dict, panels: dict[str, list[str]], sizes: dict[str, int], params: dict[str, int],
                      x_labels: list[str] | None = None, current: int | None = None, font_scale: float = 1.0) -> go.Figure:
    """Three cells side by side, one panel each: its gates, then its states, over time; one row per unit,
    the same row height in every panel, the current step outlined in all of them."""
    cells = list(panels)
    T = len(traces[cells[0]].h)
    xs = _time_labels(T, x_labels)
    text = T <= 6 and max(sizes.values()) <= 8 and ("%{z:.2f}" if font_scale <= 1 else "%{z:.1f}")  # narrow cells
    stacks = {c: _stack([(n, getattr(traces[c], n)) for n in panels[c]], xs, font_scale, text, j, short=True)
              for j, c in enumerate(cells, 1)}
    rows = max(s[3] for s in stacks.values())
    row = max(14.0, 20 * font_scale) if rows <= 60 else max(4.0, 600 / rows)
    lay = _layout("", int(rows * row + 90 + 60 * font_scale), font_scale, showlegend=False,
                  margin=dict(t=int(60 * font_scale), l=10, r=10, b=50),
                  **_columns(len(cells), 0.1, titles=[f"<b>{CELL_TITLES[c]}</b><br>H = {sizes[c]}, {params[c]:,} parameters"
                                                       for c in cells], font_scale=font_scale))
    data, shapes = [], []
    for j, c in enumerate(cells, 1):
        d, vals, labels, _ = stacks[c]
        data += d
        lay[_axis_name("x", j)].update(type="category")
        lay[_axis_name("y", j)].update(range=[rows - 0.5, -0.5], tickvals=vals, ticktext=labels, showgrid=False,
                                      zeroline=False, automargin=True)
        if current is not None:  # around this cell's own rows, not the blank below them
            shapes.append(dict(type="rect", x0=current - 0.5, x1=current + 0.5, y0=-0.5, y1=stacks[c][3] - 0.5,
                               xref=_ref("x", j), yref=_ref("y", j), line=dict(color=COLORS["output"], width=3)))
    lay["shapes"] = shapes
    return _fig(data, _ticks(lay, font_scale))


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
                 mode="lines+markers", line=dict(color=COLORS["output"], width=2), marker=dict(size=5, symbol="triangle-up"))]
    ann = [dict(x=np.log10(T), y=valve.lstm.c[-1, 0], text=f"c<sub>{T}</sub> = {valve.lstm.c[-1, 0]:.4f}", showarrow=True,
                ax=-60, ay=-30, font=dict(size=13 * font_scale))]
    lay = _layout("The valve: f = 1, i = 0 after step 1", 380 + 40 * (font_scale > 1), font_scale, annotations=ann,
                  margin=dict(t=110 * font_scale), xaxis=dict(title=dict(text="time step t (log scale)"), type="log", dtick=1),
                  yaxis=dict(title=dict(text="value"), range=[-0.05, 1.0]))
    return _fig(data, _ticks(lay, font_scale))
