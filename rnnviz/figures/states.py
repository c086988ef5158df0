"""Figures for the using-the-states page: the padding trap, parameter breakdowns."""
from __future__ import annotations

import plotly.graph_objects as go

from rnnviz.figures.base import COLORS, _layout, _fig
from rnnviz.figures.base import state_heatmap  # noqa: F401 - drawn by the page too


def padding_bars(demo, font_scale: float = 1.0) -> go.Figure:
    """Per example: how far the state after the padding is from the state after the last real token."""
    labels = [f"example {b + 1} (length {n})" for b, n in enumerate(demo.lengths)]
    data = [dict(type="bar", x=demo.diff, y=labels, orientation="h", marker=dict(color=COLORS["output"]),
                 text=[f"{v:.4f}" for v in demo.diff], textposition="outside", cliponaxis=False,
                 hovertemplate="%{y}: max |difference| %{x:.4f}<extra></extra>")]
    return _fig(data, _layout("How wrong the naive last state is", 120 + 45 * len(labels), font_scale,
                              xaxis=dict(title=dict(text="max |h[T−1] − h[length−1]| over units"), rangemode="tozero"),
                              yaxis=dict(autorange="reversed")))


def param_breakdown(parts: dict[str, int], font_scale: float = 1.0) -> go.Figure:
    """Embedding / cell / output parameters as one stacked bar, with counts and shares."""
    total = max(parts["total"], 1)
    data = []
    for name, key, color in (("embedding", "embedding", COLORS["input"]), ("recurrent cell", "cell", COLORS["state"]),
                             ("output layer", "output", COLORS["output"])):
        v = parts[key]
        data.append(dict(type="bar", x=[v], y=["parameters"], orientation="h", name=f"{name}: {v:,}", marker=dict(color=color),
                         text=[f"{name}<br>{v:,} ({v / total:.0%})" if v / total > 0.08 else ""],
                         textposition="inside", insidetextanchor="middle",
                         hovertemplate=f"{name}: {v:,} ({v / total:.1%})<extra></extra>"))
    return _fig(data, _layout(f"Total {parts['total']:,}", 220, font_scale, barmode="stack",
                              yaxis=dict(showticklabels=False), xaxis=dict(title=dict(text="parameters")),
                              legend=dict(y=-0.5, x=0, xanchor="left", yanchor="top"), margin=dict(b=90)))
