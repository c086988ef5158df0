"""Figures for the train-"hello" page: the loss curve and each step's input, state and softmax."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rnnviz.figures.base import (
    COLORS,
    DIVERGING,
    GREEN,
    REDS,
    _axis_name,
    _columns,
    _fig,
    _in,
    _layout,
    _ref,
    cell_text,
    prob_bars,  # noqa: F401 - drawn by the page too
    x_margin,
    y_margin,
)
from rnnviz.figures.fonts import LEAST, text_sizes
from rnnviz.text import VISIBLE  # how a space or a line break is drawn


def softmax_bars(labels: list[str], probs: np.ndarray, compare: np.ndarray | None = None, compare_name: str = "",
                 name: str = "p", font_scale: float = 1.0, title: str = "", compare_shown: bool = True) -> go.Figure:
    """The shared probability bars, with ticks, legend and the numbers on the bars sized for the page's font scale;
    on a projector the numbers at the floor's 14 px, where a letter's two bars leave them apart (at 17.4 px plotly.js
    shrank each to its bar's width, and a letter's two numbers touched: '0.0380.000'). `compare_shown=False` keeps the
    comparison as a hidden trace: the chart looks as without it, and has the traces it has with it, so that figures
    with and without it differ only in attributes (rnnviz/live/frames.py: a temperature slider's frames)."""
    if compare is not None and not compare_shown:
        spec = softmax_bars(labels, probs, None, name=name, font_scale=font_scale, title=title).to_dict()
        hidden = prob_bars(labels, probs, compare, compare_name, name, font_scale, title).to_dict()["data"][0]
        # plotly.js's own bar gap and legend for one visible trace, written out: the shown form sets both
        data = [{**hidden, "visible": False, "textfont": spec["data"][0]["textfont"]}, {**spec["data"][0]}]
        return _fig(data, {**spec["layout"], "bargap": 0.2, "showlegend": False})
    spec = prob_bars(labels, probs, compare, compare_name, name, font_scale, title).to_dict()
    for tr in spec["data"]:
        tr["textfont"] = dict(size=12 * font_scale if font_scale <= 1 or compare is None else LEAST)
    if compare is not None:
        spec["data"][0]["visible"] = True
        spec["layout"]["showlegend"] = True
    return _fig(spec["data"], text_sizes(spec["layout"], font_scale))


def loss_curve(losses: list[float], font_scale: float = 1.0) -> go.Figure:
    """Training loss (nats/char) per step, with perplexity exp(loss) on hover."""
    k = np.arange(1, len(losses) + 1)
    data = [dict(type="scatter", x=k, y=losses, mode="lines", line=dict(color=COLORS["output"], width=2.5),
                 customdata=np.exp(losses), name="loss",
                 hovertemplate="step %{x}<br>loss %{y:.4f}<br>perplexity %{customdata:.3f}<extra></extra>")]
    return _fig(data, text_sizes(_layout("Loss while training", 300, font_scale,
                                         margin=dict(l=y_margin(font_scale, 3), r=22 if font_scale == 1 else 27,
                                                     b=x_margin(font_scale)),
                                         xaxis=dict(title=dict(text="training step")),
                                         yaxis=dict(title=dict(text="loss (nats/char)"), rangemode="tozero")),
                                 font_scale))


def char_steps_figure(steps, vocab: list[str], font_scale: float = 1.0, width: int = 900) -> go.Figure:
    """Per step of a word: one-hot input, hidden state, scores, softmax; the target ringed in the softmax.

    The numbers in the cells are drawn at 11 px × font_scale, only when the cells are wide enough for them in a
    figure about `width` px wide."""
    T, V = steps.x.shape
    H = steps.h.shape[1]
    glyph = VISIBLE
    labels = [glyph.get(c, c) for c in vocab]
    rows = [f"{t + 1}: {glyph.get(a, a)}→{glyph.get(b, b)}"
            for t, (a, b) in enumerate(zip(steps.inputs, steps.targets))]
    lay = _layout("", max(260, 50 * font_scale * T + 150), font_scale, margin=dict(t=110, l=90, r=10, b=20),
                  showlegend=False,
                  **_columns(4, 0.05, widths=[V, H, V, V], font_scale=font_scale, title_shift=34 * font_scale,
                             titles=["one-hot<br>input x<sub>t</sub>", "hidden<br>state h<sub>t</sub>",
                                     "scores<br>W<sub>y</sub>h<sub>t</sub> + b<sub>y</sub>",
                                     "softmax p<br>□ the target"]))
    slim = float(np.abs(steps.scores).max()) or 1.0
    size = 11 * font_scale
    cell = (width - 100) * 0.85 / (3 * V + H)  # px per cell
    show = cell >= 2.9 * size and T * max(V, H) <= 400  # "-0.14" is about 2.7 em wide
    fit = int(cell * H // (0.65 * 12 * font_scale * (1 + len(str(H)))))  # unit labels "h12" the panel has room for
    unit_step = -(-H // max(1, fit))
    data = []
    for k, (z, xs, scale, lim, fmt) in enumerate([(steps.x, labels, GREEN, (0, 1), "%{z:.0f}"),
                                                  (steps.h, [f"h{j + 1}" for j in range(H)], DIVERGING, (-1, 1), None),
                                                  (steps.scores, labels, DIVERGING, (-slim, slim), None),
                                                  (steps.probs, labels, REDS, (0, 1), None)], 1):
        data.append(_in(dict(type="heatmap", z=z, x=xs, y=rows, colorscale=scale, zmin=lim[0], zmax=lim[1],
                             showscale=False, text=cell_text(z, 0 if fmt else 2), xgap=1, ygap=1,
                             texttemplate="%{text}" if show else None,
                             textfont=dict(size=size), hovertemplate="%{y} | %{x}: %{z:.4f}<extra></extra>"), k))
        # every character named, level (rotated labels ran up into the panel titles); the units every few at large H
        lay[_axis_name("x", k)].update(type="category", side="top", tickangle=0, dtick=1 if k != 2 else unit_step)
        lay[_axis_name("y", k)].update(autorange="reversed", showticklabels=k == 1, type="category")
    # each target's cell framed by a rectangle in the panel's own coordinates, so it fits the cell at any width (a
    # marker sized in px for an assumed width spilled over two cells where the chart is drawn narrower)
    lay["shapes"] = [dict(type="rect", xref=_ref("x", 4), yref=_ref("y", 4), x0=vocab.index(c) - 0.42,
                          x1=vocab.index(c) + 0.42, y0=t - 0.42, y1=t + 0.42, line=dict(color="#222", width=2))
                     for t, c in enumerate(steps.targets)]
    return _fig(data, text_sizes(lay, font_scale))
