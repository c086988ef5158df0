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


# ---- the vector cell ------------------------------------------------------------------------------

def _unit_labels(n: int, prefix: str = "unit ") -> list[str]:
    return [f"{prefix}{k + 1}" for k in range(n)]


def six_moves(m, out_labels: list[str] | None = None, font_scale: float = 1.0) -> go.Figure:
    """Moves 1-5 of one step as bar panels: read input, read memory, add, squash, predict.

    `m` is an `rnnviz.vector.StepMoves`; bars are coloured by what they are (inputs green, states
    blue, weights amber, outputs red) and labelled with their values when there are few of them."""
    from plotly.subplots import make_subplots

    H, K = len(m.h), len(m.probs)
    units = _unit_labels(H, "h")
    outs = out_labels or [f"y{k + 1}" for k in range(K)]
    show_text = H <= 16
    titles = ["① read the input<br>W_x x_t", "② read the memory<br>W_h h_{t−1}", "③ add<br>z = ① + ② + b",
              "④ squash<br>h_t = tanh(z)", "⑤ predict<br>softmax(W_y h_t + b_y)"]
    fig = make_subplots(rows=1, cols=5, subplot_titles=titles, horizontal_spacing=0.05)

    def bars(col, vals, labels, color, name, fmt=".2f", opacity=1.0):
        fig.add_trace(go.Bar(x=vals, y=labels, orientation="h", marker_color=color, opacity=opacity, name=name,
                             text=[f"{v:{fmt}}" for v in vals] if show_text or len(vals) <= 16 else None,
                             textposition="outside", textfont=dict(size=11 * font_scale), cliponaxis=False,
                             showlegend=False, hovertemplate="%{y}: %{x:.4f}<extra>" + name + "</extra>"), row=1, col=col)

    bars(1, m.read_input, units, COLORS["input"], "W_x x_t")
    bars(2, m.read_memory, units, COLORS["state"], "W_h h_{t−1}")
    bars(3, m.z, units, COLORS["muted"], "z")
    fig.add_trace(go.Scatter(x=m.bias, y=units, mode="markers", marker=dict(symbol="diamond", size=10, color=COLORS["weight"]),
                             name="bias b", showlegend=False, hovertemplate="%{y}: b = %{x:.4f}<extra></extra>"), row=1, col=3)
    bars(4, m.h, units, COLORS["state"], "h_t")
    bars(5, m.probs, outs, COLORS["output"], "p", fmt=".3f")
    lim = max(1.0, float(np.max(np.abs(np.concatenate([m.read_input, m.read_memory, m.z, m.bias])))))
    for col in (1, 2, 3):
        fig.update_xaxes(range=[-1.8 * lim, 1.8 * lim], row=1, col=col, nticks=5)
    fig.update_xaxes(range=[-1.9, 1.9], row=1, col=4, tickvals=[-1, 0, 1])
    fig.update_xaxes(range=[0, 1.5], row=1, col=5, tickvals=[0, 0.5, 1])
    for col in range(1, 6):
        fig.update_yaxes(autorange="reversed", row=1, col=col, showticklabels=col in (1, 5))
    fig.update_annotations(font_size=13 * font_scale)
    base_layout(fig, "", height=max(260, 38 * max(H, K) + 130), font_scale=font_scale)
    fig.update_layout(margin=dict(t=70, l=50, r=20, b=30), bargap=0.25)
    return fig


def state_heatmap(values: np.ndarray, x_labels: list[str] | None = None, title: str = "States over time [T, H]",
                  current: int | None = None, zlim: float = 1.0, name: str = "h", font_scale: float = 1.0) -> go.Figure:
    """A [T, H] array as a heatmap: time across, units down, red negative, blue positive."""
    v = np.asarray(values, float)
    T, H = v.shape
    xs = [f"{t + 1}" + (f" {x_labels[t]!r}" if x_labels else "") for t in range(T)]
    fig = go.Figure(go.Heatmap(
        z=v.T, x=xs, y=_unit_labels(H, name), zmin=-zlim, zmax=zlim, colorscale=DIVERGING,
        colorbar=dict(title=dict(text=name), thickness=12), texttemplate="%{z:.2f}" if T * H <= 160 else None,
        hovertemplate="t=%{x}<br>%{y}: %{z:.4f}<extra></extra>", xgap=1, ygap=1))
    if current is not None:
        fig.add_vrect(x0=current - 0.5, x1=current + 0.5, line=dict(color=COLORS["output"], width=3))
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(title="time step t", type="category")
    return base_layout(fig, title, height=max(220, 22 * H + 130), font_scale=font_scale)


def matrix_heatmap(W: np.ndarray, title: str, row_labels=None, col_labels=None, font_scale: float = 1.0) -> go.Figure:
    """A weight matrix with its values written in when it is small."""
    W = np.atleast_2d(np.asarray(W, float))
    lim = float(np.max(np.abs(W))) or 1.0
    fig = go.Figure(go.Heatmap(
        z=W, x=col_labels or [str(k + 1) for k in range(W.shape[1])], y=row_labels or [str(k + 1) for k in range(W.shape[0])],
        zmin=-lim, zmax=lim, colorscale=DIVERGING, showscale=False, xgap=1, ygap=1,
        texttemplate="%{z:.2f}" if W.size <= 144 else None, hovertemplate="row %{y}, col %{x}: %{z:.4f}<extra></extra>"))
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_xaxes(type="category", side="top")
    base_layout(fig, title, height=max(180, 26 * W.shape[0] + 110), font_scale=font_scale)
    fig.update_layout(title=dict(font=dict(color=COLORS["weight"])), margin=dict(t=80))
    return fig


def singular_value_bars(sv: np.ndarray, radius: float, font_scale: float = 1.0) -> go.Figure:
    """Singular values of W_h with the line at 1 that separates shrinking from growing directions."""
    fig = go.Figure(go.Bar(x=[f"σ{k + 1}" for k in range(len(sv))], y=sv, marker_color=COLORS["weight"],
                           text=[f"{s:.3f}" for s in sv] if len(sv) <= 16 else None, textposition="outside",
                           hovertemplate="%{x} = %{y:.4f}<extra></extra>", name="singular values"))
    fig.add_hline(y=1.0, line=dict(color=COLORS["output"], dash="dash"), annotation_text="1: shrink below, grow above",
                  annotation_position="top right")
    fig.update_yaxes(title="σ", rangemode="tozero")
    return base_layout(fig, f"W_h: spectral radius {radius:.3f}, largest σ {sv[0]:.3f}", height=260, font_scale=font_scale)


# ---- gated cells --------------------------------------------------------------------------------

GATE_INFO = {  # name: (title, colour key, value range)
    "f": ("forget f", "gate", (0, 1)), "i": ("input i", "gate", (0, 1)), "g": ("candidate g", "state", (-1, 1)),
    "o": ("output o", "gate", (0, 1)), "c": ("cell state c", "cell", None), "h": ("hidden h", "state", (-1, 1)),
    "r": ("reset r", "gate", (0, 1)), "z": ("update z", "gate", (0, 1)), "n": ("candidate n", "state", (-1, 1)),
}


def gate_step_bars(values: dict[str, np.ndarray], names: list[str], font_scale: float = 1.0) -> go.Figure:
    """One panel per gate or state at a single step, units down, bars coloured by kind."""
    from plotly.subplots import make_subplots

    H = len(values[names[0]])
    units = _unit_labels(H, "u")
    fig = make_subplots(rows=1, cols=len(names), subplot_titles=[GATE_INFO.get(n, (n,))[0] for n in names],
                        horizontal_spacing=0.03)
    for col, n in enumerate(names, 1):
        info = GATE_INFO.get(n, (n, "state", None))
        v = values[n]
        fig.add_trace(go.Bar(x=v, y=units, orientation="h", marker_color=COLORS[info[1]], showlegend=False,
                             text=[f"{a:.2f}" for a in v] if H <= 12 else None, textposition="outside",
                             textfont=dict(size=11 * font_scale), cliponaxis=False,
                             hovertemplate="%{y}: %{x:.4f}<extra>" + info[0] + "</extra>"), row=1, col=col)
        lo, hi = info[2] if info[2] else (-max(1.0, float(np.abs(v).max())), max(1.0, float(np.abs(v).max())))
        pad = 0.45 * (hi - lo)
        fig.update_xaxes(range=[lo - (pad if lo < 0 else 0.05), hi + pad], row=1, col=col, nticks=3)
        fig.update_yaxes(autorange="reversed", showticklabels=col == 1, row=1, col=col)
    fig.update_annotations(font_size=13 * font_scale)
    base_layout(fig, "", height=max(230, 30 * H + 110), font_scale=font_scale)
    fig.update_layout(margin=dict(t=40, l=40, r=10, b=30))
    return fig


def gate_heatmaps(trace, names: list[str], x_labels: list[str] | None = None, current: int | None = None,
                  font_scale: float = 1.0) -> go.Figure:
    """Each gate or state over time [T, H], stacked; gates on a 0..1 amber scale, states on red-blue."""
    from plotly.subplots import make_subplots

    T, H = getattr(trace, names[0]).shape
    xs = [f"{t + 1}" + (f" {x_labels[t]!r}" if x_labels else "") for t in range(T)]
    fig = make_subplots(rows=len(names), cols=1, shared_xaxes=True, vertical_spacing=0.06,
                        subplot_titles=[GATE_INFO[n][0] for n in names])
    amber = [[0, "#fff7e6"], [1, COLORS["gate"]]]
    for row, n in enumerate(names, 1):
        v = getattr(trace, n)
        gate = GATE_INFO[n][1] == "gate"
        lim = 1.0 if not n == "c" else max(1.0, float(np.abs(v).max()))
        fig.add_trace(go.Heatmap(z=v.T, x=xs, y=_unit_labels(H, "u"), zmin=0 if gate else -lim, zmax=1 if gate else lim,
                                 colorscale=amber if gate else DIVERGING, showscale=False, xgap=1, ygap=1,
                                 texttemplate="%{z:.2f}" if T * H <= 60 else None,
                                 hovertemplate=f"{n}" + " t=%{x} %{y}: %{z:.4f}<extra></extra>"), row=row, col=1)
        fig.update_yaxes(autorange="reversed", row=row, col=1, showticklabels=H <= 16)
        if current is not None:
            fig.add_vrect(x0=current - 0.5, x1=current + 0.5, line=dict(color=COLORS["output"], width=2), row=row, col=1)
    fig.update_xaxes(type="category")
    fig.update_annotations(font_size=13 * font_scale, xanchor="left", x=0)
    return base_layout(fig, "", height=len(names) * max(90, 14 * H + 50) + 60, font_scale=font_scale)


def valve_figure(valve, font_scale: float = 1.0) -> go.Figure:
    """The LSTM's cell state and output beside a vanilla unit's state, over hundreds of steps."""
    T = len(valve.x)
    t = np.arange(1, T + 1)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=t, y=valve.lstm.c[:, 0], name="LSTM cell state c_t", mode="lines",
                             line=dict(color=COLORS["cell"], width=4)))
    fig.add_trace(go.Scatter(x=t, y=valve.lstm.h[:, 0], name="LSTM output h_t", mode="lines",
                             line=dict(color=COLORS["state"], width=2, dash="dot")))
    fig.add_trace(go.Scatter(x=t, y=valve.rnn.h[:, 0], name="vanilla h_t (w_h = 0.5)", mode="lines+markers",
                             line=dict(color=COLORS["output"], width=2), marker=dict(size=5, symbol="triangle-up")))
    fig.add_annotation(x=np.log10(T), y=valve.lstm.c[-1, 0], text=f"c_{T} = {valve.lstm.c[-1, 0]:.4f}", showarrow=True,
                       ax=-60, ay=-30, font=dict(size=13 * font_scale))
    fig.update_xaxes(title="time step t (log scale)", type="log")
    fig.update_yaxes(title="value", range=[-0.05, 1.0])
    return base_layout(fig, "The valve: f = 1, i = 0 after step 1", height=360, font_scale=font_scale)


# ---- using the states ---------------------------------------------------------------------------

def padding_bars(demo, font_scale: float = 1.0) -> go.Figure:
    """Per example: how far the state after the padding is from the state after the last real token."""
    labels = [f"example {b + 1} (length {n})" for b, n in enumerate(demo.lengths)]
    fig = go.Figure(go.Bar(x=demo.diff, y=labels, orientation="h", marker_color=COLORS["output"],
                           text=[f"{v:.4f}" for v in demo.diff], textposition="outside", cliponaxis=False,
                           hovertemplate="%{y}: max |difference| %{x:.4f}<extra></extra>"))
    fig.update_xaxes(title="max |h[T−1] − h[length−1]| over units", rangemode="tozero")
    fig.update_yaxes(autorange="reversed")
    return base_layout(fig, "How wrong the naive last state is", height=120 + 45 * len(labels), font_scale=font_scale)


def param_breakdown(parts: dict[str, int], font_scale: float = 1.0) -> go.Figure:
    """Embedding / cell / output parameters as one stacked bar, with counts and shares."""
    total = max(parts["total"], 1)
    fig = go.Figure()
    for name, key, color in (("embedding", "embedding", COLORS["input"]), ("recurrent cell", "cell", COLORS["state"]),
                             ("output layer", "output", COLORS["output"])):
        v = parts[key]
        fig.add_trace(go.Bar(x=[v], y=["parameters"], orientation="h", name=f"{name}: {v:,}", marker_color=color,
                             text=[f"{name}<br>{v:,} ({v / total:.0%})" if v / total > 0.08 else ""],
                             textposition="inside", insidetextanchor="middle",
                             hovertemplate=f"{name}: {v:,} ({v / total:.1%})<extra></extra>"))
    fig.update_layout(barmode="stack")
    fig.update_yaxes(showticklabels=False)
    fig.update_xaxes(title="parameters")
    base_layout(fig, f"Total {parts['total']:,}", height=220, font_scale=font_scale)
    fig.update_layout(legend=dict(y=-0.5, x=0, xanchor="left", yanchor="top"), margin=dict(b=90))
    return fig


# ---- gradients through time ---------------------------------------------------------------------

CELL_STYLE = {  # name, colour, marker; Okabe-Ito hues distinct from one another and named in the legend
    "rnn": ("vanilla RNN ‖∂h_T/∂h_t‖", "#D55E00", "circle"),
    "lstm": ("LSTM ‖∂h_T/∂h_t‖", "#0072B2", "square"),
    "lstm_c": ("LSTM cell path ‖∂c_T/∂c_t‖", "#56B4E9", "hexagon"),
    "gru": ("GRU ‖∂h_T/∂h_t‖", "#CC79A7", "diamond"),
}


def gradient_decay(series: dict[str, np.ndarray], references: dict[str, np.ndarray] | None = None,
                   title: str = "How much of the gradient survives, by steps back", font_scale: float = 1.0) -> go.Figure:
    """Norms against steps back k = T - t on a log axis. `series` maps a CELL_STYLE key to log10 norms.

    Values beyond float64 (exactly 0, below 1e-300, above 1e300) are drawn at the plot's edge with
    open triangles and say so on hover: nothing is dropped."""
    from rnnviz.bptt import edge_points

    fig = go.Figure()
    finite = np.concatenate([v[np.isfinite(v)] for v in series.values()] + [np.array([0.0])])
    lo = max(float(finite.min()), -300.0) - 0.5
    hi = min(float(finite.max()), 300.0) + 0.5
    any_under = any_over = False
    for key, logv in series.items():
        name, color, symbol = CELL_STYLE[key]
        k = np.arange(len(logv))
        e = edge_points(logv)
        inside = ~(e["under"] | e["over"])
        fig.add_trace(go.Scatter(
            x=k[inside], y=e["y"][inside], mode="lines+markers", name=name,
            line=dict(color=color, width=4 if key == "lstm_c" else 2.5, dash="dot" if key == "lstm_c" else "solid"),
            marker=dict(symbol=symbol, size=6 if len(k) > 60 else 8, color=color),
            hovertemplate="k=%{x} steps back<br>norm %{y:.3e}<extra>" + name + "</extra>"))
        for mask, edge, sym, label in ((e["under"], lo, "triangle-down-open", "vanished"), (e["over"], hi, "triangle-up-open", "exploded")):
            if mask.any():
                any_under |= label == "vanished"
                any_over |= label == "exploded"
                true = [("exactly 0" if not np.isfinite(logv[j]) else f"10^{logv[j]:.0f}") for j in k[mask]]
                fig.add_trace(go.Scatter(
                    x=k[mask], y=np.full(mask.sum(), 10.0 ** edge), mode="markers", showlegend=False,
                    marker=dict(symbol=sym, size=11, color=color, line=dict(width=2)), customdata=true,
                    hovertemplate="k=%{x}: " + label + ", true value %{customdata}<extra>" + name + "</extra>"))
    if references:
        for (name, vals), dash in zip(references.items(), ("dash", "dashdot", "longdash")):
            kk = np.arange(len(vals))
            fig.add_trace(go.Scatter(x=kk, y=vals, mode="lines", name=f"notes: {name}",
                                     line=dict(color=COLORS["muted"], width=1.5, dash=dash),
                                     hovertemplate="k=%{x}: %{y:.2e}<extra>" + name + "</extra>"))
    if any_under:
        fig.add_annotation(x=0.99, xref="paper", y=lo, yref="y", yanchor="bottom", xanchor="right", showarrow=False,
                           text="▽ below 1e-300 or exactly 0: drawn at this edge", font=dict(size=12 * font_scale))
    if any_over:
        fig.add_annotation(x=0.99, xref="paper", y=hi, yref="y", yanchor="top", xanchor="right", showarrow=False,
                           text="△ above 1e300: drawn at this edge", font=dict(size=12 * font_scale))
    fig.update_yaxes(type="log", range=[lo, hi], title="norm (log scale)", exponentformat="power")
    fig.update_xaxes(title="steps back k = T − t", rangemode="tozero")
    base_layout(fig, title, height=480, font_scale=font_scale)
    fig.update_layout(legend=dict(orientation="v", x=1.02, xanchor="left", y=1, yanchor="top"), margin=dict(r=10))
    return fig


def factor_figure(tanh_prime: np.ndarray, w_norm: float, forget: np.ndarray, font_scale: float = 1.0) -> go.Figure:
    """Per step s: the vanilla factor's two parts, tanh'(z_s) (mean over units) and ‖W_hh‖, and the LSTM's forget gates."""
    T = len(tanh_prime)
    s = np.arange(1, T + 1)
    tp = tanh_prime.mean(axis=1)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=s, y=np.full(T, w_norm), name=f"‖W_hh‖₂ = {w_norm:.3f}", mode="lines",
                             line=dict(color=COLORS["weight"], width=3, dash="dash")))
    fig.add_trace(go.Scatter(x=s, y=tp, name="mean tanh′(z_s) (vanilla)", mode="lines+markers",
                             line=dict(color="#D55E00", width=2), marker=dict(symbol="circle", size=5)))
    fig.add_trace(go.Scatter(x=s, y=tp * w_norm, name="their product: the vanilla factor bound", mode="lines",
                             line=dict(color="#D55E00", width=1.5, dash="dot")))
    fig.add_trace(go.Scatter(x=np.r_[s, s[::-1]], y=np.r_[forget.max(axis=1), forget.min(axis=1)[::-1]],
                             fill="toself", fillcolor="rgba(86,180,233,0.25)", line=dict(width=0), hoverinfo="skip",
                             name="LSTM forget gates (min to max)"))
    fig.add_trace(go.Scatter(x=s, y=forget.mean(axis=1), name="mean forget gate f_s (LSTM)", mode="lines+markers",
                             line=dict(color="#56B4E9", width=3), marker=dict(symbol="hexagon", size=5)))
    fig.add_hline(y=1.0, line=dict(color="#999", width=1))
    fig.update_xaxes(title="step s")
    fig.update_yaxes(title="factor per step", rangemode="tozero")
    base_layout(fig, "What each step multiplies the gradient by", height=380, font_scale=font_scale)
    fig.update_layout(legend=dict(orientation="v", x=1.02, xanchor="left", y=1, yanchor="top"))
    return fig


def clip_figure(before: np.ndarray, after: np.ndarray, font_scale: float = 1.0) -> go.Figure:
    """The gradient vector's components before and after clipping (first 32 units)."""
    n = min(len(before), 32)
    units = _unit_labels(n, "u")
    fig = go.Figure()
    fig.add_trace(go.Bar(x=units, y=before[:n], name="before clipping", marker_color="#D55E00"))
    fig.add_trace(go.Bar(x=units, y=after[:n], name="after clipping", marker_color=COLORS["state"]))
    fig.update_layout(barmode="group")
    fig.update_yaxes(title="dL/dh component", exponentformat="power")
    return base_layout(fig, "", height=300, font_scale=font_scale)


# ---- language models ----------------------------------------------------------------------------

def loss_curve(losses: list[float], font_scale: float = 1.0) -> go.Figure:
    """Training loss (nats/char) per step, with perplexity exp(loss) on hover."""
    k = np.arange(1, len(losses) + 1)
    fig = go.Figure(go.Scatter(x=k, y=losses, mode="lines", line=dict(color=COLORS["output"], width=2.5),
                               customdata=np.exp(losses), name="loss",
                               hovertemplate="step %{x}<br>loss %{y:.4f}<br>perplexity %{customdata:.3f}<extra></extra>"))
    fig.update_xaxes(title="training step")
    fig.update_yaxes(title="cross-entropy (nats/char)", rangemode="tozero")
    return base_layout(fig, "Loss while training", height=300, font_scale=font_scale)


def char_steps_figure(steps, vocab: list[str], font_scale: float = 1.0) -> go.Figure:
    """Per step of a word: one-hot input, hidden state, scores, softmax; the target ringed in the softmax."""
    from plotly.subplots import make_subplots

    T, V = steps.x.shape
    H = steps.h.shape[1]
    rows = [f"{t + 1}: {a!r}→{b!r}" for t, (a, b) in enumerate(zip(steps.inputs, steps.targets))]
    fig = make_subplots(rows=1, cols=4, horizontal_spacing=0.06, column_widths=[V, H, V, V],
                        subplot_titles=["one-hot input x_t", "hidden state h_t", "scores W_y h_t + b_y", "softmax p"])
    green = [[0, "#f4fbf8"], [1, COLORS["input"]]]
    red = [[0, "#fff5f0"], [1, COLORS["output"]]]
    slim = float(np.abs(steps.scores).max()) or 1.0
    show = T * max(V, H) <= 400
    for col, (z, xs, scale, lim) in enumerate([(steps.x, vocab, green, (0, 1)), (steps.h, [f"h{k + 1}" for k in range(H)], DIVERGING, (-1, 1)),
                                               (steps.scores, vocab, DIVERGING, (-slim, slim)), (steps.probs, vocab, red, (0, 1))], 1):
        fig.add_trace(go.Heatmap(z=z, x=xs, y=rows, colorscale=scale, zmin=lim[0], zmax=lim[1], showscale=False,
                                 texttemplate="%{z:.2f}" if show else None, xgap=1, ygap=1,
                                 hovertemplate="%{y} | %{x}: %{z:.4f}<extra></extra>"), row=1, col=col)
        fig.update_xaxes(type="category", side="top", row=1, col=col)
        fig.update_yaxes(autorange="reversed", showticklabels=col == 1, type="category", row=1, col=col)
    tgt = [vocab.index(c) for c in steps.targets]
    fig.add_trace(go.Scatter(x=[vocab[i] for i in tgt], y=rows, mode="markers", showlegend=False,
                             marker=dict(symbol="square-open", size=26, color="#222", line=dict(width=2)),
                             hovertemplate="target %{x}<extra></extra>"), row=1, col=4)
    fig.update_annotations(font_size=13 * font_scale, yshift=28)
    base_layout(fig, "", height=max(260, 50 * T + 130), font_scale=font_scale)
    fig.update_layout(margin=dict(t=95, l=90, r=10, b=20))
    return fig


def prob_bars(labels: list[str], probs: np.ndarray, compare: np.ndarray | None = None, compare_name: str = "",
              name: str = "p", font_scale: float = 1.0, title: str = "") -> go.Figure:
    """A distribution as bars (red), optionally beside another one (grey) for comparison."""
    fig = go.Figure()
    if compare is not None:
        fig.add_trace(go.Bar(x=labels, y=compare, name=compare_name, marker_color="#bdbdbd",
                             text=[f"{v:.3f}" for v in compare] if len(labels) <= 12 else None, textposition="outside"))
    fig.add_trace(go.Bar(x=labels, y=probs, name=name, marker_color=COLORS["output"],
                         text=[f"{v:.3f}" for v in probs] if len(labels) <= 12 else None, textposition="outside"))
    fig.update_layout(barmode="group")
    fig.update_yaxes(range=[0, min(1.15, float(np.max(np.r_[probs, compare if compare is not None else 0])) * 1.25 + 0.02)],
                     title="probability")
    fig.update_xaxes(type="category")
    base_layout(fig, title, height=320, font_scale=font_scale)
    fig.update_layout(legend=dict(orientation="h", x=0, xanchor="left", y=-0.15, yanchor="top"), margin=dict(b=70))
    return fig


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
    fig = go.Figure(go.Scatter(
        x=xs, y=ys, mode="markers+text", text=esc, customdata=np.arange(len(text)),
        textfont=dict(family="DejaVu Sans Mono, Menlo, Consolas, monospace", size=12 * font_scale, color="#111"),
        marker=dict(symbol="square", size=15 * font_scale, color=values, colorscale=colorscale, cmin=zmin, cmax=zmax,
                    line=dict(width=0), colorbar=dict(title=dict(text=colorbar_title), thickness=10, len=0.9)),
        hovertext=hover, hoverinfo="text" if hover else "none", selected=dict(marker=dict(opacity=1)),
        unselected=dict(marker=dict(opacity=1))))
    if selected is not None and 0 <= selected < len(text):
        fig.add_trace(go.Scatter(x=[xs[selected]], y=[ys[selected]], mode="markers", hoverinfo="skip",
                                 marker=dict(symbol="square-open", size=18 * font_scale, color="#111", line=dict(width=2.5))))
    fig.update_xaxes(visible=False, range=[-0.7, width - 0.3], fixedrange=True)
    fig.update_yaxes(visible=False, range=[rows - 0.4, -0.6], fixedrange=True)
    cell = 15.5 * font_scale  # pixels per character cell, so squares tile without overlapping
    base_layout(fig, "", height=int(rows * cell * 1.2 + 12), font_scale=font_scale)
    fig.update_layout(width=int(width * cell + 95))
    fig.update_layout(margin=dict(l=5, r=5, t=5, b=5), showlegend=False, clickmode="event+select", dragmode=False)
    return fig


PROB_SCALE = [[0.0, "#D55E00"], [0.5, "#FBE3D2"], [1.0, "#FFFFFF"]]  # low probability stands out in red


def state_grid(h_layers: np.ndarray, title: str = "", font_scale: float = 1.0) -> go.Figure:
    """Each layer's state (L, H) folded into a compact grid of cells, layers side by side."""
    from plotly.subplots import make_subplots

    L, H = h_layers.shape
    cols = int(np.ceil(np.sqrt(H * 2)))
    rows = int(np.ceil(H / cols))
    fig = make_subplots(rows=1, cols=L, subplot_titles=[f"layer {k + 1}" for k in range(L)], horizontal_spacing=0.04)
    for k in range(L):
        z = np.full(rows * cols, np.nan)
        z[:H] = h_layers[k]
        idx = np.full(rows * cols, -1)
        idx[:H] = np.arange(H)
        fig.add_trace(go.Heatmap(z=z.reshape(rows, cols), customdata=idx.reshape(rows, cols), zmin=-1, zmax=1,
                                 colorscale=DIVERGING, showscale=k == L - 1, xgap=1, ygap=1,
                                 colorbar=dict(thickness=10, len=0.9),
                                 hovertemplate="unit %{customdata}: %{z:.3f}<extra>layer " + str(k + 1) + "</extra>"),
                      row=1, col=k + 1)
        fig.update_xaxes(visible=False, row=1, col=k + 1)
        fig.update_yaxes(visible=False, autorange="reversed", row=1, col=k + 1)
    fig.update_annotations(font_size=12 * font_scale)
    base_layout(fig, title, height=300, font_scale=font_scale)
    fig.update_layout(margin=dict(l=10, r=10, t=60 if title else 30, b=10))
    return fig
