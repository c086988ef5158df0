"""Figures for the train-"hello" page: the loss curve and each step's input, state and softmax."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rnnviz.figures.base import COLORS, DIVERGING, GREEN, REDS, _layout, _fig, _axis_name, _columns, _in
from rnnviz.figures.base import prob_bars  # noqa: F401 - drawn by the page too


def loss_curve(losses: list[float], font_scale: float = 1.0) -> go.Figure:
    """Training loss (nats/char) per step, with perplexity exp(loss) on hover."""
    k = np.arange(1, len(losses) + 1)
    data = [dict(type="scatter", x=k, y=losses, mode="lines", line=dict(color=COLORS["output"], width=2.5),
                 customdata=np.exp(losses), name="loss",
                 hovertemplate="step %{x}<br>loss %{y:.4f}<br>perplexity %{customdata:.3f}<extra></extra>")]
    return _fig(data, _layout("Loss while training", 300, font_scale, xaxis=dict(title=dict(text="training step")),
                              yaxis=dict(title=dict(text="cross-entropy (nats/char)"), rangemode="tozero")))


def char_steps_figure(steps, vocab: list[str], font_scale: float = 1.0) -> go.Figure:
    """Per step of a word: one-hot input, hidden state, scores, softmax; the target ringed in the softmax."""
    T, V = steps.x.shape
    H = steps.h.shape[1]
    rows = [f"{t + 1}: {a!r}→{b!r}" for t, (a, b) in enumerate(zip(steps.inputs, steps.targets))]
    lay = _layout("", max(260, 50 * T + 130), font_scale, margin=dict(t=95, l=90, r=10, b=20), showlegend=False,
                  **_columns(4, 0.06, widths=[V, H, V, V], font_scale=font_scale, title_shift=28,
                             titles=["one-hot input x_t", "hidden state h_t", "scores W_y h_t + b_y", "softmax p"]))
    slim = float(np.abs(steps.scores).max()) or 1.0
    show = T * max(V, H) <= 400
    data = []
    for k, (z, xs, scale, lim) in enumerate([(steps.x, vocab, GREEN, (0, 1)),
                                             (steps.h, [f"h{j + 1}" for j in range(H)], DIVERGING, (-1, 1)),
                                             (steps.scores, vocab, DIVERGING, (-slim, slim)),
                                             (steps.probs, vocab, REDS, (0, 1))], 1):
        data.append(_in(dict(type="heatmap", z=z, x=xs, y=rows, colorscale=scale, zmin=lim[0], zmax=lim[1],
                             showscale=False, texttemplate="%{z:.2f}" if show else None, xgap=1, ygap=1,
                             hovertemplate="%{y} | %{x}: %{z:.4f}<extra></extra>"), k))
        lay[_axis_name("x", k)].update(type="category", side="top")
        lay[_axis_name("y", k)].update(autorange="reversed", showticklabels=k == 1, type="category")
    tgt = [vocab.index(c) for c in steps.targets]
    data.append(_in(dict(type="scatter", x=[vocab[i] for i in tgt], y=rows, mode="markers",
                         marker=dict(symbol="square-open", size=26, color="#222", line=dict(width=2)),
                         hovertemplate="target %{x}<extra></extra>"), 4))
    return _fig(data, lay)
