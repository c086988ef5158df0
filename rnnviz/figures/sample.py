"""Figures for the sampling page: the text shaded by probability or surprisal, and the states grid."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rnnviz.figures.base import DIVERGING, _layout, _fig, _axis_name, _columns, _in
from rnnviz.figures.base import PROB_SCALE, SURPRISE_SCALE, prob_bars  # noqa: F401 - drawn by the page too


def text_grid(text: str, values: np.ndarray, zmin: float, zmax: float, colorscale, hover: list[str] | None = None,
              selected: int | None = None, width: int = 52, font_scale: float = 1.0, colorbar_title: str = "") -> go.Figure:
    """Text laid out as a grid of characters, each cell shaded by its value; newline shows as ↵.

    Characters are plain text in an SVG (Plotly's markup characters are escaped), never HTML. Each point's
    customdata is its index in `text`, so a click can select a position."""
    xs, ys, shown = [], [], []
    row = col = 0
    for ch in text:
        xs.append(col)
        ys.append(row)
        shown.append("↵" if ch == "\n" else "·" if ch == " " else ch)
        if ch == "\n" or col == width - 1:
            row, col = row + 1, 0
        else:
            col += 1
    esc = [s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") for s in shown]
    rows = row + 1
    data = [dict(type="scatter", x=xs, y=ys, mode="markers+text", text=esc, customdata=np.arange(len(text)),
                 textfont=dict(family="DejaVu Sans Mono, Menlo, Consolas, monospace", size=12 * font_scale, color="#111"),
                 marker=dict(symbol="square", size=15 * font_scale, color=values, colorscale=colorscale, cmin=zmin,
                             cmax=zmax, line=dict(width=0),
                             colorbar=dict(title=dict(text=colorbar_title), thickness=10, len=0.9)),
                 hovertext=hover, hoverinfo="text" if hover else "none", selected=dict(marker=dict(opacity=1)),
                 unselected=dict(marker=dict(opacity=1)))]
    if selected is not None and 0 <= selected < len(text):
        data.append(dict(type="scatter", x=[xs[selected]], y=[ys[selected]], mode="markers", hoverinfo="skip",
                         marker=dict(symbol="square-open", size=18 * font_scale, color="#111", line=dict(width=2.5))))
    cell = 15.5 * font_scale  # pixels per character cell, so squares tile without overlapping
    return _fig(data, _layout("", int(rows * cell * 1.2 + 12), font_scale, width=int(width * cell + 95),
                              margin=dict(l=5, r=5, t=5, b=5), showlegend=False, clickmode="event+select",
                              dragmode=False, xaxis=dict(visible=False, range=[-0.7, width - 0.3], fixedrange=True),
                              yaxis=dict(visible=False, range=[rows - 0.4, -0.6], fixedrange=True)))


def state_grid(h_layers: np.ndarray, title: str = "", font_scale: float = 1.0) -> go.Figure:
    """Each layer's state (L, H) folded into a compact grid of cells, layers side by side."""
    L, H = h_layers.shape
    cols = int(np.ceil(np.sqrt(H * 2)))
    rows = int(np.ceil(H / cols))
    lay = _layout(title, 300, font_scale, margin=dict(l=10, r=10, t=60 if title else 30, b=10),
                  **_columns(L, 0.04, titles=[f"layer {k + 1}" for k in range(L)], font_scale=font_scale))
    data = []
    for k in range(L):
        z = np.full(rows * cols, np.nan)
        z[:H] = h_layers[k]
        idx = np.full(rows * cols, -1)
        idx[:H] = np.arange(H)
        data.append(_in(dict(type="heatmap", z=z.reshape(rows, cols), customdata=idx.reshape(rows, cols), zmin=-1,
                             zmax=1, colorscale=DIVERGING, showscale=k == L - 1, xgap=1, ygap=1,
                             colorbar=dict(thickness=10, len=0.9),
                             hovertemplate="unit %{customdata}: %{z:.3f}<extra>layer " + str(k + 1) + "</extra>"), k + 1))
        lay[_axis_name("x", k + 1)].update(visible=False)
        lay[_axis_name("y", k + 1)].update(visible=False, autorange="reversed")
    return _fig(data, lay)
