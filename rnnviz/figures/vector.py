"""Figures for the vector-cell page: the six moves of a step, weight matrices, singular values."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rnnviz.figures.base import COLORS, DIVERGING, _layout, _fig, _axis_name, _columns, _in, _unit_labels
from rnnviz.figures.base import state_heatmap  # noqa: F401 - drawn by the page too


def six_moves(m, out_labels: list[str] | None = None, font_scale: float = 1.0) -> go.Figure:
    """Moves 1-5 of one step as bar panels: read input, read memory, add, squash, predict.

    `m` is an `rnnviz.vector.StepMoves`; bars are coloured by what they are (inputs green, states
    blue, weights amber, outputs red) and labelled with their values when there are few of them."""
    H, K = len(m.h), len(m.probs)
    units = _unit_labels(H, "h")
    outs = out_labels or [f"y{k + 1}" for k in range(K)]
    titles = ["① read the input<br>W_x x_t", "② read the memory<br>W_h h_{t−1}", "③ add<br>z = ① + ② + b",
              "④ squash<br>h_t = tanh(z)", "⑤ predict<br>softmax(W_y h_t + b_y)"]
    lay = _layout("", max(260, 38 * max(H, K) + 130), font_scale, margin=dict(t=70, l=50, r=20, b=30), bargap=0.25,
                  showlegend=False, **_columns(5, 0.05, titles=titles, font_scale=font_scale))

    def bars(k, vals, labels, color, name, fmt=".2f"):
        return _in(dict(type="bar", x=vals, y=labels, orientation="h", marker=dict(color=color), name=name,
                        text=[f"{v:{fmt}}" for v in vals] if len(vals) <= 16 else None, textposition="outside",
                        textfont=dict(size=11 * font_scale), cliponaxis=False,
                        hovertemplate="%{y}: %{x:.4f}<extra>" + name + "</extra>"), k)

    data = [bars(1, m.read_input, units, COLORS["input"], "W_x x_t"),
            bars(2, m.read_memory, units, COLORS["state"], "W_h h_{t−1}"),
            bars(3, m.z, units, COLORS["muted"], "z"),
            _in(dict(type="scatter", x=m.bias, y=units, mode="markers", name="bias b",
                     marker=dict(symbol="diamond", size=10, color=COLORS["weight"]),
                     hovertemplate="%{y}: b = %{x:.4f}<extra></extra>"), 3),
            bars(4, m.h, units, COLORS["state"], "h_t"),
            bars(5, m.probs, outs, COLORS["output"], "p", fmt=".3f")]
    lim = max(1.0, float(np.max(np.abs(np.concatenate([m.read_input, m.read_memory, m.z, m.bias])))))
    for k in (1, 2, 3):
        lay[_axis_name("x", k)].update(range=[-1.8 * lim, 1.8 * lim], nticks=5)
    lay["xaxis4"].update(range=[-1.9, 1.9], tickvals=[-1, 0, 1])
    lay["xaxis5"].update(range=[0, 1.5], tickvals=[0, 0.5, 1])
    for k in range(1, 6):
        lay[_axis_name("y", k)].update(autorange="reversed", showticklabels=k in (1, 5), type="category")
    return _fig(data, lay)


def matrix_heatmap(W: np.ndarray, title: str, row_labels=None, col_labels=None, font_scale: float = 1.0) -> go.Figure:
    """A weight matrix with its values written in when it is small."""
    W = np.atleast_2d(np.asarray(W, float))
    lim = float(np.max(np.abs(W))) or 1.0
    data = [dict(type="heatmap", z=W, x=col_labels or [str(k + 1) for k in range(W.shape[1])],
                 y=row_labels or [str(k + 1) for k in range(W.shape[0])], zmin=-lim, zmax=lim, colorscale=DIVERGING,
                 showscale=False, xgap=1, ygap=1, texttemplate="%{z:.2f}" if W.size <= 144 else None,
                 hovertemplate="row %{y}, col %{x}: %{z:.4f}<extra></extra>")]
    lay = _layout(title, max(180, 26 * W.shape[0] + 110), font_scale, margin=dict(t=80),
                  xaxis=dict(type="category", side="top"), yaxis=dict(autorange="reversed", type="category"))
    lay["title"]["font"]["color"] = COLORS["weight"]
    return _fig(data, lay)


def singular_value_bars(sv: np.ndarray, radius: float, font_scale: float = 1.0) -> go.Figure:
    """Singular values of W_h with the line at 1 that separates shrinking from growing directions."""
    data = [dict(type="bar", x=[f"σ{k + 1}" for k in range(len(sv))], y=sv, marker=dict(color=COLORS["weight"]),
                 text=[f"{s:.3f}" for s in sv] if len(sv) <= 16 else None, textposition="outside",
                 hovertemplate="%{x} = %{y:.4f}<extra></extra>", name="singular values")]
    shapes = [dict(type="line", x0=0, x1=1, xref="x domain", y0=1, y1=1, line=dict(color=COLORS["output"], dash="dash"))]
    ann = [dict(x=1, xref="x domain", y=1, text="1: shrink below, grow above", showarrow=False, xanchor="right",
                yanchor="bottom")]
    return _fig(data, _layout(f"W_h: spectral radius {radius:.3f}, largest σ {sv[0]:.3f}", 260, font_scale,
                              shapes=shapes, annotations=ann, yaxis=dict(title=dict(text="σ"), rangemode="tozero")))
