"""Figures for the vector-cell page: the six moves of a step, weight matrices, singular values."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rnnviz.figures.base import (
    COLORS,
    DIVERGING,
    _axis_name,
    _columns,
    _fig,
    _in,
    _layout,
    _unit_labels,
    cell_text,
    grown,
    state_heatmap,
    y_margin,
)
from rnnviz.figures.fonts import text_sizes
from rnnviz.text import fmt

_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
MOVES_MAX_HEIGHT = 640  # px: the six moves stay within a screen at any H
MOVE_NUMBERS = "①②③④⑤"


def _round_below(r: float) -> float:
    """The largest of 1, 2, 5 times a power of ten that is at most r (r > 0): 1.8 -> 1, 2.2 -> 2, 18 -> 10."""
    e = 10.0 ** np.floor(np.log10(r))
    return max(m * e for m in (1, 2, 5) if m * e <= r)


def six_moves(m, out_labels: list[str] | None = None, font_scale: float = 1.0,
              titles: list[str] | None = None, scale: float | None = None) -> go.Figure:
    """Moves 1-5 of one step as bar panels: read input, read memory, add, squash, predict.

    `m` is an `rnnviz.vector.StepMoves`; bars are coloured by what they are (inputs green, states
    blue, weights amber, outputs red) and labelled with their values when there are few of them. `titles`: the
    lines over each panel (the app's words, '<br>' between lines); the moves' numbers ①-⑤ where none are given.
    `scale`: the largest |number| moves 1-3 are drawn to (rnnviz.lessons.vector.moves_scale: the whole run's, so
    the axes hold still from step to step); this step's own where not given."""
    H, K = len(m.h), len(m.probs)
    units = _unit_labels(H, "h")
    outs = out_labels or [f"y{k + 1}" for k in range(K)]
    titles = titles or list(MOVE_NUMBERS)
    # bounded: at H = 64 a row per unit at reading size was ~3,600 px; past MOVES_MAX_HEIGHT the rows get thinner
    # the top margin holds the panel titles (lines of 13 px type, 1.3 apart) and the toolbar's row above them; a
    # fixed 80 px left a ~60 px empty band over the chart
    top = round(1.3 * 13 * font_scale * max(t.count("<br>") + 1 for t in titles) + 18)
    lay = _layout("", min(MOVES_MAX_HEIGHT, max(260, 38 * max(H, K) * font_scale + 130)) - 80 + top, font_scale,
                  margin=dict(t=top, l=50, r=20, b=grown(font_scale, 36, 42)), bargap=0.25, showlegend=False,
                  **_columns(5, 0.04, widths=[1, 1, 1, 1, 1.6], titles=titles, font_scale=font_scale))
    # the prediction's title, the widest, starts over its bars (its panel 1.6 wide, was 1.35), not centred on them:
    # centred, it reached to within 1 px of ④'s in a 440 px chart (1024 px beside the sidebar)
    lay["annotations"][-1].update(x=lay["xaxis5"]["domain"][0], xanchor="left")

    def bars(k, vals, labels, color, name, fmt=".2f", labelled=False):
        # values are written on the prediction only: moves 1-4 are in the page's table of numbers, and each text
        # label outside a bar costs the browser a measurement on every redraw
        return _in(dict(type="bar", x=vals, y=labels, orientation="h", marker=dict(color=color), name=name,
                        text=[f"{v:{fmt}}" for v in vals] if labelled and len(vals) <= 16 else None,
                        textposition="outside",
                        textfont=dict(size=11 * font_scale), cliponaxis=False,
                        hovertemplate="%{y}: %{x:.4f}<extra>" + name + "</extra>"), k)

    data = [bars(1, m.read_input, units, COLORS["input"], "W<sub>x</sub>x<sub>t</sub>"),
            bars(2, m.read_memory, units, COLORS["state"], "W<sub>h</sub>h<sub>t−1</sub>"),
            bars(3, m.z, units, COLORS["muted"], "z"),
            _in(dict(type="scatter", x=m.bias, y=units, mode="markers", name="bias b",
                     marker=dict(symbol="diamond", size=10, color=COLORS["weight"]),
                     hovertemplate="%{y}: b = %{x:.4f}<extra></extra>"), 3),
            bars(4, m.h, units, COLORS["state"], "h<sub>t</sub>"),
            bars(5, m.probs, outs, COLORS["output"], "p", fmt=".3f", labelled=True)]
    lim = scale or max(1.0, float(np.max(np.abs(np.concatenate([m.read_input, m.read_memory, m.z, m.bias])))))
    # three upright ticks a panel: five (−2 −1 0 1 2) did not fit a fifth of a projector's chart and turned sideways
    for k in (1, 2, 3):
        tick = _round_below(1.8 * lim)
        lay[_axis_name("x", k)].update(range=[-1.8 * lim, 1.8 * lim], tickvals=[-tick, 0, tick], tickangle=0)
    lay["xaxis4"].update(range=[-1.9, 1.9], tickvals=[-1, 0, 1], tickangle=0)
    lay["xaxis5"].update(range=[0, 1.5], tickvals=[0, 0.5, 1], tickangle=0)
    for k in range(1, 6):
        lay[_axis_name("y", k)].update(autorange="reversed", showticklabels=k in (1, 5), type="category")
    return _fig(data, text_sizes(lay, font_scale))


def states_heatmap(h: np.ndarray, chars: list[str] | None, font_scale: float = 1.0,
                   current: int | None = None) -> go.Figure:
    """The shared [T, H] state heatmap, with three colour-bar labels (five pile up on a short bar) and text sized
    for the page's font scale; the `current` step (0-based) outlined and the steps after it blank."""
    spec = state_heatmap(h, chars, current=current, font_scale=font_scale).to_dict()
    spec["data"][0]["colorbar"].update(tickvals=[-1, 0, 1], tickfont=dict(size=12 * font_scale))
    spec["layout"]["height"] = int(max(220 * font_scale, 26 * font_scale * h.shape[1] + 130))  # rows for the type
    spec["layout"]["margin"].update(r=grown(font_scale, 69, 89), b=grown(font_scale, 73, 85))  # colour bar, t labels
    if len(h) * 36 * font_scale <= 700:  # cells wide enough for "-0.14" at this size; else plotly fits the text
        spec["data"][0]["textfont"] = dict(size=12 * font_scale)
    return _fig(spec["data"], text_sizes(spec["layout"], font_scale))


def matrix_heatmap(W: np.ndarray, title: str, row_labels=None, col_labels=None, font_scale: float = 1.0) -> go.Figure:
    """A weight matrix with its values written in when it is small."""
    W = np.atleast_2d(np.asarray(W, float))
    lim = float(np.max(np.abs(W))) or 1.0
    data = [dict(type="heatmap", z=W, x=col_labels or [str(k + 1) for k in range(W.shape[1])],
                 y=row_labels or [str(k + 1) for k in range(W.shape[0])], zmin=-lim, zmax=lim, colorscale=DIVERGING,
                 showscale=False, xgap=1, ygap=1, text=cell_text(W), texttemplate="%{text}" if W.size <= 144 else None,
                 textfont=dict(size=12 * font_scale),
                 hovertemplate="row %{y}, col %{x}: %{z:.4f}<extra></extra>")]
    lay = _layout(title, max(180, 26 * font_scale * W.shape[0] + 110), font_scale, margin=dict(t=80),
                  xaxis=dict(type="category", side="top", dtick=1), yaxis=dict(autorange="reversed", type="category",
                                                                              dtick=1))
    lay["title"]["font"]["color"] = COLORS["weight"]
    return _fig(data, text_sizes(lay, font_scale))


def singular_value_bars(sv: np.ndarray, radius: float, font_scale: float = 1.0, of: int | None = None) -> go.Figure:
    """Singular values of W_h with the line at 1 that separates shrinking from growing directions; the line's label
    sits above it at the right, clear of the bars' values. `of`: how many W_h has, where `sv` holds only the largest
    (the x axis says so)."""
    names = [f"σ{str(k + 1).translate(_SUBSCRIPTS)}" for k in range(len(sv))]
    data = [dict(type="bar", x=names, y=sv, marker=dict(color=COLORS["weight"]),
                 text=[f"{s:.3f}" for s in sv] if len(sv) <= 16 else None, textposition="auto", cliponaxis=False,
                 textfont=dict(size=12 * font_scale), insidetextanchor="end",
                 hovertemplate="%{x} = %{y:.4f}<extra></extra>", name="singular values")]
    shapes = [dict(type="line", x0=0, x1=1, xref="x domain", y0=1, y1=1, line=dict(color="#444444", dash="dash"))]
    # the line's label at the plot's top right, above every bar and its value (at the line itself, a bar ending just
    # above 1 had its value covered)
    ann = [dict(x=1, xref="x domain", y=1, yref="y domain", text="dashes at 1:<br>shrink below, grow above",
                showarrow=False, xanchor="right", yanchor="top", align="right", bgcolor="rgba(255,255,255,0.85)",
                font=dict(size=12 * font_scale))]
    top = max(1.0, float(sv[0])) * 1.45 if len(sv) else 1.45  # room for the label above the bars
    part = dict(title=dict(text=f"the {len(sv)} largest of {of}")) if of and of > len(sv) else {}
    return _fig(data, text_sizes(_layout(f"W<sub>h</sub>: radius {fmt(radius)}, σ<sub>max</sub> {fmt(sv[0])}", 300,
                                         font_scale, shapes=shapes, annotations=ann,
                                         margin=dict(l=y_margin(font_scale, 3)),
                                         yaxis=dict(title=dict(text="singular value σ"), range=[0, top]),
                                         xaxis=part),
                                 font_scale))
