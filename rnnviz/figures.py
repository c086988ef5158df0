"""Plotly figure builders for every page; they take arrays and return figures, never draw.

One colour language throughout (from the notes): green inputs, blue states, amber weights and gates,
red outputs, and an amber outline for what a model adds to the previous one. The hues are the
Okabe-Ito palette, which stays distinguishable under the common colour-vision deficiencies; every
series also has a label or a marker shape, so colour is never the only cue.
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

COLORS = {
    "input": "#009E73",  # green
    "state": "#0072B2",  # blue
    "weight": "#E69F00",  # amber
    "gate": "#E69F00",  # amber
    "output": "#D55E00",  # red (vermillion)
    "cell": "#56B4E9",  # light blue: the LSTM's second state
    "muted": "#8c8c8c",
    "grid": "#e6e6e6",
}
MARKERS = {"input": "square", "state": "circle", "weight": "diamond", "gate": "diamond", "output": "triangle-up",
           "cell": "hexagon"}
FONT = dict(family="Inter, Helvetica Neue, Arial, sans-serif", size=14)
DIVERGING = [[0.0, "#B2182B"], [0.5, "#f7f7f7"], [1.0, "#2166AC"]]  # red-white-blue for signed values


def base_layout(fig: go.Figure, title: str = "", height: int = 360, font_scale: float = 1.0) -> go.Figure:
    """Shared look: white background, light grid, readable type, compact margins."""
    fig.update_layout(
        title=dict(text=title, x=0.01, xanchor="left", font=dict(size=16 * font_scale)),
        template="plotly_white", height=height, margin=dict(l=60, r=20, t=70 if title else 30, b=50),
        font=dict(FONT, size=FONT["size"] * font_scale),
        legend=dict(orientation="h", y=1.02, x=1, xanchor="right", yanchor="bottom", bgcolor="rgba(0,0,0,0)"),
        hoverlabel=dict(font_size=13 * font_scale),
    )
    return fig


def _play_controls(labels: list[str], duration: int = 700) -> dict:
    """Play/pause buttons (top right) that animate the figure's frames in the browser."""
    return dict(updatemenus=[dict(
        type="buttons", direction="left", x=1.0, y=1.02, xanchor="right", yanchor="bottom", pad=dict(r=0, t=0),
        showactive=False, bgcolor="white", font=dict(size=12),
        buttons=[dict(label="▶ Play steps", method="animate", args=[labels, dict(
                     frame=dict(duration=duration, redraw=True), fromcurrent=False, transition=dict(duration=200),
                     mode="immediate")]),
                 dict(label="❚❚", method="animate", args=[[None], dict(frame=dict(duration=0, redraw=False),
                                                                        mode="immediate")])])])


# ---- the one-unit RNN ----------------------------------------------------------------------------

def tanh_curve(pre: np.ndarray, h: np.ndarray, current: int, font_scale: float = 1.0) -> go.Figure:
    """The tanh curve with each step's pre-activation marked; saturated zones (tanh' < 0.1) shaded.

    `pre` and `h` are 1-D (T,); `current` is the 0-based step to emphasise. Frames animate the steps."""
    pre, h = np.asarray(pre, float).ravel(), np.asarray(h, float).ravel()
    lim = max(4.0, float(np.max(np.abs(pre))) * 1.1 if len(pre) else 4.0)
    lim = min(lim, 25.0)
    z = np.linspace(-lim, lim, 600)
    sat = float(np.arctanh(np.sqrt(0.9)))  # |z| where tanh'(z) = 0.1
    fig = go.Figure()
    for x0, x1 in ((-lim, -sat), (sat, lim)):
        fig.add_vrect(x0=x0, x1=x1, fillcolor=COLORS["muted"], opacity=0.12, line_width=0, layer="below")
    fig.add_annotation(x=lim * 0.97, y=-0.9, text="saturated: tanh′ < 0.1", showarrow=False, xanchor="right",
                       font=dict(color="#555", size=12 * font_scale))
    fig.add_trace(go.Scatter(x=z, y=np.tanh(z), mode="lines", name="h = tanh(z)", hoverinfo="skip",
                             line=dict(color=COLORS["state"], width=3)))

    def step_traces(k: int) -> list[go.Scatter]:
        zc = np.clip(pre[: k + 1], -lim, lim)
        return [
            go.Scatter(x=zc[:k], y=h[:k], mode="markers+text", name="earlier steps",
                       text=[f"t={j + 1}" for j in range(k)], textposition="top left",
                       marker=dict(color="white", size=10, symbol="circle", line=dict(color=COLORS["state"], width=2)),
                       hovertemplate="t=%{text}<br>z=%{x:.3f}<br>h=%{y:.3f}<extra></extra>"),
            go.Scatter(x=[zc[k], zc[k], -lim], y=[-1.05, h[k], h[k]], mode="lines", name="this step",
                       line=dict(color=COLORS["output"], width=1.5, dash="dot"), hoverinfo="skip", showlegend=False),
            go.Scatter(x=[zc[k], -lim * 0.96], y=[h[k], 0.93], mode="markers+text", name=f"step t = {k + 1}",
                       text=["", f"t = {k + 1}:  z = {pre[k]:.3f}  →  h = {h[k]:.3f}"], textposition="middle right",
                       textfont=dict(size=14 * font_scale, color="#222"),
                       marker=dict(color=COLORS["state"], size=[16, 0], symbol="circle", line=dict(color="white", width=2)),
                       hovertemplate="z=%{x:.3f}<br>h=%{y:.3f}<extra></extra>"),
        ]

    if len(pre):
        cur = int(np.clip(current, 0, len(pre) - 1))
        fig.add_traces(step_traces(cur))
        labels = [str(k + 1) for k in range(len(pre))]
        fig.frames = [go.Frame(data=step_traces(k), traces=[1, 2, 3], name=labels[k]) for k in range(len(pre))]
        fig.update_layout(**_play_controls(labels))
    fig.update_xaxes(title="z = w_x·x_t + w_h·h_{t−1} + b", range=[-lim, lim], zeroline=True)
    fig.update_yaxes(title="h_t", range=[-1.1, 1.1], zeroline=True)
    base_layout(fig, "Where each step lands on tanh", height=400, font_scale=font_scale)
    fig.update_layout(showlegend=False)
    return fig


def states_over_time(h: np.ndarray, x: np.ndarray | None = None, current: int | None = None,
                     font_scale: float = 1.0) -> go.Figure:
    """h_t against t (blue), with the inputs x_t as green bars; the current step ringed."""
    h = np.asarray(h, float).ravel()
    t = np.arange(1, len(h) + 1)
    fig = go.Figure()
    if x is not None:
        fig.add_trace(go.Bar(x=t, y=np.asarray(x, float).ravel(), name="input x_t", marker_color=COLORS["input"],
                             opacity=0.45, hovertemplate="t=%{x}<br>x=%{y:.3g}<extra></extra>"))
    fig.add_trace(go.Scatter(x=t, y=h, mode="lines+markers", name="state h_t",
                             line=dict(color=COLORS["state"], width=3), marker=dict(size=8, symbol="circle"),
                             hovertemplate="t=%{x}<br>h=%{y:.4f}<extra></extra>"))
    if current is not None and len(h):
        c = int(np.clip(current, 0, len(h) - 1))
        fig.add_trace(go.Scatter(x=[c + 1], y=[h[c]], mode="markers", name="current step",
                                 marker=dict(size=20, symbol="circle-open", color=COLORS["output"], line=dict(width=3))))
    fig.update_xaxes(title="time step t", dtick=1 if len(h) <= 25 else None)
    fig.update_yaxes(title="value", zeroline=True, zerolinecolor="#999")
    return base_layout(fig, "h_t over time", height=330, font_scale=font_scale)


def cobweb(w_h: float, b: float, path: np.ndarray, fixed: list[tuple[float, bool]], font_scale: float = 1.0) -> go.Figure:
    """The map h -> tanh(w_h h + b) against the diagonal, the staircase of `path`, and the fixed points."""
    hh = np.linspace(-1.05, 1.05, 400)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=hh, y=hh, mode="lines", name="h_next = h", line=dict(color=COLORS["muted"], dash="dash")))
    fig.add_trace(go.Scatter(x=hh, y=np.tanh(w_h * hh + b), mode="lines", name="h_next = tanh(w_h h + b)",
                             line=dict(color=COLORS["state"], width=3)))
    if len(path) > 1:
        xs, ys = [path[0]], [path[0]]
        for a, c in zip(path[:-1], path[1:]):
            xs += [a, c]
            ys += [c, c]
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", name="iterates (no input)",
                                 line=dict(color=COLORS["output"], width=1.5)))
        fig.add_trace(go.Scatter(x=[path[0]], y=[path[0]], mode="markers", name="start",
                                 marker=dict(color=COLORS["output"], size=11, symbol="triangle-up")))
    for h_star, stable in fixed:
        fig.add_trace(go.Scatter(
            x=[h_star], y=[h_star], mode="markers", showlegend=False,
            marker=dict(size=14, symbol="circle" if stable else "circle-open", color=COLORS["weight"],
                        line=dict(width=2.5, color=COLORS["weight"])),
            hovertemplate=f"fixed point h* = {h_star:.4f} ({'stable' if stable else 'unstable'})<extra></extra>"))
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name="stable fixed point",
                             marker=dict(size=12, symbol="circle", color=COLORS["weight"])))
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name="unstable fixed point",
                             marker=dict(size=12, symbol="circle-open", color=COLORS["weight"], line=dict(width=2.5))))
    fig.update_xaxes(title="h", range=[-1.05, 1.05])
    fig.update_yaxes(title="next h", range=[-1.05, 1.05], scaleanchor="x", scaleratio=1)
    base_layout(fig, "Fixed points of the silent cell", height=430, font_scale=font_scale)
    fig.update_layout(legend=dict(orientation="v", y=0.02, x=0.98, xanchor="right", yanchor="bottom",
                                  bgcolor="rgba(255,255,255,0.8)"))
    return fig
