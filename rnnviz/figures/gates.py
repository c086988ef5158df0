"""Figures for the gates page: gate values per step, gate heatmaps, the valve experiment."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rnnviz.figures.base import COLORS, DIVERGING, AMBER, _layout, _fig, _axis_name, _ref, _columns, _rows, _in, _unit_labels, _vrect


GATE_INFO = {  # name: (title, colour key, value range)
    "f": ("forget f", "gate", (0, 1)), "i": ("input i", "gate", (0, 1)), "g": ("candidate g", "state", (-1, 1)),
    "o": ("output o", "gate", (0, 1)), "c": ("cell state c", "cell", None), "h": ("hidden h", "state", (-1, 1)),
    "r": ("reset r", "gate", (0, 1)), "z": ("update z", "gate", (0, 1)), "n": ("candidate n", "state", (-1, 1)),
}


def gate_step_bars(values: dict[str, np.ndarray], names: list[str], font_scale: float = 1.0) -> go.Figure:
    """One panel per gate or state at a single step, units down, bars coloured by kind."""
    H = len(values[names[0]])
    units = _unit_labels(H, "u")
    lay = _layout("", max(230, 30 * H + 110), font_scale, margin=dict(t=40, l=40, r=10, b=30), showlegend=False,
                  **_columns(len(names), 0.03, titles=[GATE_INFO.get(n, (n,))[0] for n in names], font_scale=font_scale))
    data = []
    for k, n in enumerate(names, 1):
        info = GATE_INFO.get(n, (n, "state", None))
        v = values[n]
        data.append(_in(dict(type="bar", x=v, y=units, orientation="h", marker=dict(color=COLORS[info[1]]),
                             text=[f"{a:.2f}" for a in v] if H <= 12 else None, textposition="outside",
                             textfont=dict(size=11 * font_scale), cliponaxis=False,
                             hovertemplate="%{y}: %{x:.4f}<extra>" + info[0] + "</extra>"), k))
        big = max(1.0, float(np.abs(v).max()))
        lo, hi = info[2] if info[2] else (-big, big)
        pad = 0.45 * (hi - lo)
        lay[_axis_name("x", k)].update(range=[lo - (pad if lo < 0 else 0.05), hi + pad], nticks=3)
        lay[_axis_name("y", k)].update(autorange="reversed", showticklabels=k == 1, type="category")
    return _fig(data, lay)


def gate_heatmaps(trace, names: list[str], x_labels: list[str] | None = None, current: int | None = None,
                  font_scale: float = 1.0) -> go.Figure:
    """Each gate or state over time [T, H], stacked; gates on a 0..1 amber scale, states on red-blue."""
    T, H = getattr(trace, names[0]).shape
    xs = [f"{t + 1}" + (f" {x_labels[t]!r}" if x_labels else "") for t in range(T)]
    lay = _layout("", len(names) * max(90, 14 * H + 50) + 60, font_scale,
                  **_rows(len(names), 0.06, titles=[GATE_INFO[n][0] for n in names], font_scale=font_scale))
    data, shapes = [], []
    for k, n in enumerate(names, 1):
        v = getattr(trace, n)
        gate = GATE_INFO[n][1] == "gate"
        lim = 1.0 if n != "c" else max(1.0, float(np.abs(v).max()))
        data.append(_in(dict(type="heatmap", z=v.T, x=xs, y=_unit_labels(H, "u"), zmin=0 if gate else -lim,
                             zmax=1 if gate else lim, colorscale=AMBER if gate else DIVERGING, showscale=False,
                             xgap=1, ygap=1, texttemplate="%{z:.2f}" if T * H <= 60 else None,
                             hovertemplate=f"{n}" + " t=%{x} %{y}: %{z:.4f}<extra></extra>"), k))
        lay[_axis_name("y", k)].update(autorange="reversed", showticklabels=H <= 16, type="category")
        lay[_axis_name("x", k)].update(type="category")
        if current is not None:
            shapes.append(_vrect(current - 0.5, current + 0.5, COLORS["output"], 2, xref=_ref("x", k),
                                 yref=f"{_ref('y', k)} domain"))
    lay["shapes"] = shapes
    return _fig(data, lay)


def valve_figure(valve, font_scale: float = 1.0) -> go.Figure:
    """The LSTM's cell state and output beside a vanilla unit's state, over hundreds of steps."""
    T = len(valve.x)
    t = np.arange(1, T + 1)
    data = [dict(type="scatter", x=t, y=valve.lstm.c[:, 0], name="LSTM cell state c_t", mode="lines",
                 line=dict(color=COLORS["cell"], width=4)),
            dict(type="scatter", x=t, y=valve.lstm.h[:, 0], name="LSTM output h_t", mode="lines",
                 line=dict(color=COLORS["state"], width=2, dash="dot")),
            dict(type="scatter", x=t, y=valve.rnn.h[:, 0], name="vanilla h_t (w_h = 0.5)", mode="lines+markers",
                 line=dict(color=COLORS["output"], width=2), marker=dict(size=5, symbol="triangle-up"))]
    ann = [dict(x=np.log10(T), y=valve.lstm.c[-1, 0], text=f"c_{T} = {valve.lstm.c[-1, 0]:.4f}", showarrow=True,
                ax=-60, ay=-30, font=dict(size=13 * font_scale))]
    return _fig(data, _layout("The valve: f = 1, i = 0 after step 1", 380, font_scale, annotations=ann,
                              margin=dict(t=100), xaxis=dict(title=dict(text="time step t (log scale)"), type="log"),
                              yaxis=dict(title=dict(text="value"), range=[-0.05, 1.0])))
