"""The reveal: a class's answers drawn against the truth, round 1 beside round 2 (peer instruction's "how the
answers moved"). Bars per option for a choice, a histogram for a number with the exact answer as a line."""
from __future__ import annotations

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
                        line=dict(color=COLORS["input"], width=line)), text=counts, textposition="outside")
    if any(len(e) for _, e in rounds.values()):
        fig.add_vline(x=truth, line=dict(color=COLORS["input"], width=3), annotation_text=truth_label,
                      annotation_position="top")
        fig.update_layout(barmode="overlay")
    else:
        fig.update_layout(barmode="group")
    fig.update_layout(**_layout(title, height, font_scale), showlegend=len(rounds) > 1)
    fig.update_yaxes(title="answers", rangemode="tozero", tickformat="d")
    return fig
