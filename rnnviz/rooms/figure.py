"""The reveal: a class's answers drawn against the truth, round 1 beside round 2 (peer instruction's "how the
answers moved"). Bars per option for a choice, a histogram for a number with the exact answer as a line."""
from __future__ import annotations

import itertools

import numpy as np
import plotly.graph_objects as go

from rnnviz.figures.base import COLORS, _layout

ROUND_COLORS = {1: COLORS["muted"], 2: COLORS["state"]}


def reveal_figure(labels: list[str] | None, rounds: dict[int, tuple[np.ndarray, np.ndarray]], truth: float,
                  truth_label: str, right: int | None = None, title: str = "The class's answers",
                  height: int = 380, font_scale: float = 1.0) -> go.Figure:
    """`rounds`: round -> (counts, bin edges; empty edges for a choice). A choice's right option (index `right`)
    is outlined; a number's truth is a vertical line labelled `truth_label`."""
    fig = go.Figure()
    for r, (counts, edges) in sorted(rounds.items()):
        name = f"round {r}"
        if len(edges):
            mids, width = (edges[:-1] + edges[1:]) / 2, np.diff(edges)
            fig.add_bar(x=mids, y=counts, width=width * 0.9, name=name, marker_color=ROUND_COLORS[r], opacity=0.75)
        else:
            line = [3 if i == right else 0 for i in range(len(counts))]
            fig.add_bar(x=labels, y=counts, name=name, marker=dict(color=ROUND_COLORS[r],
                        line=dict(color=COLORS["input"], width=line)), text=counts, textposition="outside",
                        cliponaxis=False)
    if any(len(e) for _, e in rounds.values()):
        fig.add_vline(x=truth, line=dict(color=COLORS["input"], width=3), annotation_text=truth_label,
                      annotation_position="top")
        fig.update_layout(barmode="overlay")
    else:
        fig.update_layout(barmode="group")
    fig.update_layout(**_layout(title, height, font_scale), showlegend=len(rounds) > 1)
    # whole answers on the axis, at most about 5 ticks (a class of 2 read "0 0 0 1 1 1"), and room over the tallest
    # bar for its count
    top = max([float(np.max(c)) for c, _ in rounds.values() if len(c)] + [1.0])
    fig.update_yaxes(title="answers", range=[0, top * 1.15 + 0.3], dtick=count_step(top), tick0=0, tickformat="d")
    return fig


def count_step(top: float, ticks: int = 5) -> int:
    """The step between an answer axis's ticks: 1, 2 or 5 times a power of ten, giving at most about `ticks` steps
    up to `top` (a class of 31: 0, 10, 20, 30; never 0, 7, 14)."""
    return next(m * 10 ** p for p in itertools.count() for m in (1, 2, 5) if top / (m * 10 ** p) <= ticks)


ROUND_MARKS = {1: ("circle", COLORS["muted"]), 2: ("diamond", COLORS["other"])}  # each round its colour and shape


def answers_on(fig: go.Figure, at, rounds: dict[int, np.ndarray], truth: float | None = None,
               truth_label: str = "exact answer", name: str = "the class, round {r}") -> go.Figure:
    """The class's answers drawn onto a lesson's own chart at position `at` of its x axis (a number or a category):
    each round a box with every answer a jittered point in it (round 1 grey circles, round 2 purple diamonds, side
    by side), and the exact answer a black star."""
    shown = {r: np.asarray(v, float) for r, v in sorted(rounds.items()) if len(v)}
    for r, v in shown.items():
        symbol, color = ROUND_MARKS[r]
        fig.add_box(x=[at] * len(v), y=v, name=name.format(r=r), boxpoints="all", jitter=0.6, pointpos=0,
                    marker=dict(symbol=symbol, color=color, size=10, opacity=0.75), line=dict(color=color, width=2),
                    fillcolor="rgba(0,0,0,0)", offsetgroup=str(r), hoverinfo="y")
    if truth is not None:
        fig.add_scatter(x=[at], y=[truth], mode="markers", name=truth_label, hoverinfo="y",
                        marker=dict(symbol="star", size=22, color=COLORS["current"],
                                    line=dict(width=1.5, color="white")))
    fig.update_layout(boxmode="group", boxgroupgap=0.1, boxgap=0.2 if len(shown) > 1 else 0.5)
    return fig


def tally_on(fig: go.Figure, text: str, font_scale: float = 1.0) -> go.Figure:
    """A choice question's votes written onto a lesson's chart, under everything the chart has below its plot (axis
    title, legend): the figure grows by the box's height and the box sits in that new strip, at any font size and
    legend layout. Inside the plot, pointing at the exact answer, the box covered the title and the curves; at a
    fixed place under the plot it ran off a laptop's chart."""
    lines = text.count("<br>") + 1
    box = round(lines * 14 * font_scale * 1.25 + 12)  # Plotly's line height (1.25 em at 14 px × scale), padding
    below = fig.layout.margin.b if fig.layout.margin.b is not None else 80
    fig.update_layout(height=(fig.layout.height or 450) + box, margin=dict(b=below + box))
    fig.add_annotation(x=0, y=0, xref="paper", yref="paper", xanchor="left", yanchor="top", yshift=-below, text=text,
                       showarrow=False, align="left", bgcolor="rgba(255,255,255,0.9)", bordercolor=COLORS["current"],
                       font=dict(size=14 * font_scale))
    return fig
