"""Figures for the using-the-states page: states and probabilities over time, the padding trap, parameter
breakdowns. Ticks and in-chart numbers scale with the font scale (figures.fonts.text_sizes, figures.gates.tick_size)."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rnnviz.figures.base import COLORS, DIVERGING, REDS, _fig, _layout, _unit_labels, _vrect, cell_text
from rnnviz.figures.fonts import text_sizes
from rnnviz.figures.gates import tick_size
from rnnviz.text import fmt


def state_heatmap(values: np.ndarray, title: str, name: str = "h", font_scale: float = 1.0,
                  probabilities: bool = False, current: int | None = None) -> go.Figure:
    """A [T, H] array as a heatmap: time across, units down; purple negative, grey positive (or 0..1 reds); three
    colour-bar labels, as five pile up on the short bar of a few units."""
    v = np.asarray(values, float)
    T, H = v.shape
    data = [dict(type="heatmap", z=v.T, x=[str(t + 1) for t in range(T)], y=_unit_labels(H, name),
                 zmin=0 if probabilities else -1, zmax=1, colorscale=REDS if probabilities else DIVERGING,
                 colorbar=dict(title=dict(text="p" if probabilities else name), thickness=12,
                               tickvals=[0, 0.5, 1] if probabilities else [-1, 0, 1],
                               tickfont=dict(size=tick_size(font_scale))),
                 text=cell_text(v.T), texttemplate="%{text}" if T * H <= 160 else None,
                 textfont=dict(size=tick_size(font_scale)),
                 hovertemplate="t=%{x}<br>%{y}: %{z:.4f}<extra></extra>", xgap=1, ygap=1)]
    shapes = [_vrect(current - 0.5, current + 0.5, COLORS["current"])] if current is not None else []
    lay = _layout(title, max(240, int(24 * font_scale) * H + 150), font_scale, shapes=shapes,
                  xaxis=dict(title=dict(text="time step t"), type="category"),
                  yaxis=dict(autorange="reversed", type="category"))
    return _fig(data, text_sizes(lay, font_scale))


def padding_bars(demo, font_scale: float = 1.0) -> go.Figure:
    """Per example: how far the state after the padding (the trap) and the padding-first state are from the
    state after the last real token."""
    labels = [f"example {b + 1} (length {n})" for b, n in enumerate(demo.lengths)]
    left = np.abs(demo.left_padded - demo.at_length).max(axis=1)
    data = []
    for vals, what, color in ((demo.diff, "read at index T−1, after the padding", COLORS["other"]),
                              (left, "padding first", COLORS["muted"])):
        data.append(dict(type="bar", x=vals, y=labels, orientation="h", name=what, marker=dict(color=color),
                         text=[fmt(v) for v in vals], textposition="outside", cliponaxis=False,
                         textfont=dict(size=tick_size(font_scale)),
                         hovertemplate="%{y}: max |difference| %{x:.4f}<extra>" + what + "</extra>"))
    top = float(max(demo.diff.max(), left.max(), 1e-3))
    lay = _layout("How far off each reading is", 150 + 70 * len(labels) * font_scale,
                  font_scale, barmode="group", margin=dict(t=70 * font_scale, l=10),
                  xaxis=dict(title=dict(text="max over units of |h − h<sub>length−1</sub>|"), range=[0, top * 1.3]),
                  yaxis=dict(autorange="reversed", automargin=True),
                  legend=dict(orientation="h", x=0, xanchor="left", y=1.0, yanchor="bottom"))
    lay["title"].update(y=0.98, yanchor="top")
    return _fig(data, text_sizes(lay, font_scale))


def param_breakdown(parts: dict[str, int], font_scale: float = 1.0) -> go.Figure:
    """Embedding / cell / output parameters as one stacked bar, with counts and shares."""
    total = max(parts["total"], 1)
    data = []
    for name, key, color in (("embedding", "embedding", COLORS["input"]), ("recurrent cell", "cell", COLORS["state"]),
                             ("output layer", "output", COLORS["output"])):
        v = parts[key]
        data.append(dict(type="bar", x=[v], y=["parameters"], orientation="h", name=f"{name}: {v:,}",
                         marker=dict(color=color),
                         text=[f"{name}<br>{v:,} ({v / total:.0%})" if v / total > 0.12 else ""],
                         textposition="inside", insidetextanchor="middle", textfont=dict(size=tick_size(font_scale)),
                         hovertemplate=f"{name}: {v:,} ({v / total:.1%})<extra></extra>"))
    lay = _layout(f"Total {parts['total']:,}", 220 + 60 * (font_scale > 1), font_scale, barmode="stack",
                  yaxis=dict(showticklabels=False), xaxis=dict(),
                  legend=dict(y=-0.3, x=0, xanchor="left", yanchor="top", traceorder="normal"),  # the bar's order
                  margin=dict(b=90 * font_scale))
    return _fig(data, text_sizes(lay, font_scale))
