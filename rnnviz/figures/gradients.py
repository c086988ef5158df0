"""Figures for the gradients page: Jacobian norms through time, per-step factors, clipping."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rnnviz.figures.base import COLORS, _layout, _fig, _unit_labels


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
    from rnnviz.lessons.gradients import edge_points

    finite = np.concatenate([v[np.isfinite(v)] for v in series.values()] + [np.array([0.0])])
    lo = max(float(finite.min()), -300.0) - 0.5
    hi = min(float(finite.max()), 300.0) + 0.5
    data, ann = [], []
    any_under = any_over = False
    for key, logv in series.items():
        name, color, symbol = CELL_STYLE[key]
        k = np.arange(len(logv))
        e = edge_points(logv)
        inside = ~(e["under"] | e["over"])
        data.append(dict(type="scatter", x=k[inside], y=e["y"][inside], mode="lines+markers", name=name,
                         line=dict(color=color, width=4 if key == "lstm_c" else 2.5, dash="dot" if key == "lstm_c" else "solid"),
                         marker=dict(symbol=symbol, size=6 if len(k) > 60 else 8, color=color),
                         hovertemplate="k=%{x} steps back<br>norm %{y:.3e}<extra>" + name + "</extra>"))
        for mask, edge, sym, label in ((e["under"], lo, "triangle-down-open", "vanished"),
                                       (e["over"], hi, "triangle-up-open", "exploded")):
            if mask.any():
                any_under |= label == "vanished"
                any_over |= label == "exploded"
                true = [("exactly 0" if not np.isfinite(logv[j]) else f"10^{logv[j]:.0f}") for j in k[mask]]
                data.append(dict(type="scatter", x=k[mask], y=np.full(mask.sum(), 10.0 ** edge), mode="markers",
                                 showlegend=False, marker=dict(symbol=sym, size=11, color=color, line=dict(width=2)),
                                 customdata=true,
                                 hovertemplate="k=%{x}: " + label + ", true value %{customdata}<extra>" + name + "</extra>"))
    for (name, vals), dash in zip((references or {}).items(), ("dash", "dashdot", "longdash")):
        data.append(dict(type="scatter", x=np.arange(len(vals)), y=vals, mode="lines", name=f"notes: {name}",
                         line=dict(color=COLORS["muted"], width=1.5, dash=dash),
                         hovertemplate="k=%{x}: %{y:.2e}<extra>" + name + "</extra>"))
    if any_under:
        ann.append(dict(x=0.99, xref="paper", y=lo, yref="y", yanchor="bottom", xanchor="right", showarrow=False,
                        text="▽ below 1e-300 or exactly 0: drawn at this edge", font=dict(size=12 * font_scale)))
    if any_over:
        ann.append(dict(x=0.99, xref="paper", y=hi, yref="y", yanchor="top", xanchor="right", showarrow=False,
                        text="△ above 1e300: drawn at this edge", font=dict(size=12 * font_scale)))
    return _fig(data, _layout(title, 480, font_scale, annotations=ann, margin=dict(r=10),
                              yaxis=dict(type="log", range=[lo, hi], title=dict(text="norm (log scale)"), exponentformat="power"),
                              xaxis=dict(title=dict(text="steps back k = T − t"), rangemode="tozero"),
                              legend=dict(orientation="v", x=1.02, xanchor="left", y=1, yanchor="top")))


def factor_figure(tanh_prime: np.ndarray, w_norm: float, forget: np.ndarray, font_scale: float = 1.0) -> go.Figure:
    """Per step s: the vanilla factor's two parts, tanh'(z_s) (mean over units) and ‖W_hh‖, and the LSTM's forget gates."""
    T = len(tanh_prime)
    s = np.arange(1, T + 1)
    tp = tanh_prime.mean(axis=1)
    data = [dict(type="scatter", x=s, y=np.full(T, w_norm), name=f"‖W_hh‖₂ = {w_norm:.3f}", mode="lines",
                 line=dict(color=COLORS["weight"], width=3, dash="dash")),
            dict(type="scatter", x=s, y=tp, name="mean tanh′(z_s) (vanilla)", mode="lines+markers",
                 line=dict(color="#D55E00", width=2), marker=dict(symbol="circle", size=5)),
            dict(type="scatter", x=s, y=tp * w_norm, name="their product: the vanilla factor bound", mode="lines",
                 line=dict(color="#D55E00", width=1.5, dash="dot")),
            dict(type="scatter", x=np.r_[s, s[::-1]], y=np.r_[forget.max(axis=1), forget.min(axis=1)[::-1]],
                 fill="toself", fillcolor="rgba(86,180,233,0.25)", line=dict(width=0), hoverinfo="skip",
                 name="LSTM forget gates (min to max)"),
            dict(type="scatter", x=s, y=forget.mean(axis=1), name="mean forget gate f_s (LSTM)", mode="lines+markers",
                 line=dict(color="#56B4E9", width=3), marker=dict(symbol="hexagon", size=5))]
    shapes = [dict(type="line", x0=0, x1=1, xref="x domain", y0=1, y1=1, line=dict(color="#999", width=1))]
    return _fig(data, _layout("What each step multiplies the gradient by", 380, font_scale, shapes=shapes,
                              xaxis=dict(title=dict(text="step s")), yaxis=dict(title=dict(text="factor per step"), rangemode="tozero"),
                              legend=dict(orientation="v", x=1.02, xanchor="left", y=1, yanchor="top")))


def clip_figure(before: np.ndarray, after: np.ndarray, font_scale: float = 1.0) -> go.Figure:
    """The gradient vector's components before and after clipping (first 32 units)."""
    n = min(len(before), 32)
    units = _unit_labels(n, "u")
    data = [dict(type="bar", x=units, y=before[:n], name="before clipping", marker=dict(color="#D55E00")),
            dict(type="bar", x=units, y=after[:n], name="after clipping", marker=dict(color=COLORS["state"]))]
    return _fig(data, _layout("", 300, font_scale, barmode="group",
                              yaxis=dict(title=dict(text="dL/dh component"), exponentformat="power")))
