"""Figures for the recurrences page: a linear recurrence stepped, eigenvalues on the complex plane and their impulse
responses, minGRU / minLSTM / GRU in lockstep, a selective step, the parallel scan's tree, its work and time, and
gradient norms of six cells. Each takes arrays and returns a figure."""
from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from rnnviz.figures.base import (
    AMBER,
    COLORS,
    DIVERGING,
    _columns,
    _fig,
    _in,
    _layout,
    _rows,
    _vrect,
    cell_text,
    grown,
    x_margin,
    y_margin,
)
from rnnviz.figures.fonts import text_sizes
from rnnviz.figures.gradients import DIFF, curve_style
from rnnviz.figures.labels import text_width
from rnnviz.nn.cells import get

UNIT_COLORS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#222222", "#0072B2", "#E69F00"]  # no red
UNIT_MARKERS = ["circle", "square", "diamond", "triangle-up", "cross", "x", "star", "hexagon"]
JOINED = [[p / 4, c] for p, c in AMBER] + [[0.5 + p / 2, c] for p, c in DIVERGING]  # gates 0..1, states 2..4
MIN_PANEL_PX = 250  # px: the narrowest of min_lockstep's three panels, at 1024 px (about 265 in classroom mode there)


def _current(t: int) -> list[dict]:
    return [_vrect(t - 0.5, t + 0.5, COLORS["current"], width=2)]


def linear_steps(x: np.ndarray, h: np.ndarray, current: int, font_scale: float = 1.0) -> go.Figure:
    """x_t as bars and h_t as a line over t = 1..T; steps after `current` (1-based) faded."""
    t = np.arange(1, len(h) + 1)
    seen = t <= current
    data = [dict(type="bar", x=t, y=x, name="input x<sub>t</sub>", marker=dict(color=COLORS["input"]), opacity=0.45,
                 hovertemplate="t=%{x}<br>x=%{y:.3g}<extra></extra>"),
            dict(type="scatter", x=t[seen], y=h[seen], mode="lines+markers", name="state h<sub>t</sub>",
                 line=dict(color=COLORS["state"], width=3), marker=dict(size=9),
                 hovertemplate="t=%{x}<br>h=%{y:.4f}<extra></extra>"),
            dict(type="scatter", x=t[~seen], y=h[~seen], mode="markers", name="steps ahead",
                 marker=dict(size=7, color=COLORS["muted"], symbol="circle-open"), hoverinfo="skip")]
    lay = _layout("h<sub>t</sub> = a h<sub>t−1</sub> + b x<sub>t</sub>", 300, font_scale, shapes=_current(current),
                  margin=dict(l=y_margin(font_scale, 5), b=x_margin(font_scale)),
                  xaxis=dict(title=dict(text="time step t"), dtick=1 if len(h) <= 25 else None),
                  yaxis=dict(title=dict(text="value"), zeroline=True, zerolinecolor="#999"))
    return _fig(data, text_sizes(lay, font_scale))


def eigen_plane(lam: np.ndarray, font_scale: float = 1.0) -> go.Figure:
    """The eigenvalues on the complex plane with the unit circle (and, faint, their conjugates)."""
    phi = np.linspace(0, 2 * np.pi, 181)
    data = [dict(type="scatter", x=np.cos(phi), y=np.sin(phi), mode="lines", name="|λ| = 1",
                 line=dict(color=COLORS["muted"], dash="dash"), hoverinfo="skip")]
    for k, v in enumerate(lam):
        c, m = UNIT_COLORS[k % 8], UNIT_MARKERS[k % 8]
        data.append(dict(type="scatter", x=[v.real, v.real], y=[v.imag, -v.imag], mode="markers", name=f"λ{k + 1}",
                         marker=dict(color=c, symbol=[m, m + "-open"], size=[15, 10]),
                         hovertemplate=f"λ{k + 1} = %{{x:.4f}} %{{y:+.4f}}i<extra></extra>"))
    lay = _layout("Eigenvalues λ = r e<sup>iθ</sup>", 320, font_scale, showlegend=False,
                  margin=dict(l=y_margin(font_scale, 4), b=x_margin(font_scale), r=10),
                  xaxis=dict(title=dict(text="Re λ"), range=[-1.15, 1.15], zeroline=True, zerolinecolor="#bbb"),
                  yaxis=dict(title=dict(text="Im λ"), range=[-1.15, 1.15], scaleanchor="x", scaleratio=1,
                             zeroline=True, zerolinecolor="#bbb"))
    return _fig(data, text_sizes(lay, font_scale))


def impulse_response(log10_abs: np.ndarray, floor: float, font_scale: float = 1.0) -> go.Figure:
    """|h_t| for one input at t = 1, unit by unit, on a log axis; exact zeros drawn at the floor."""
    T, N = log10_abs.shape
    t = np.arange(1, T + 1)
    shown = np.where(log10_abs > floor, log10_abs, np.nan)  # below the floor (or exactly 0): not drawn
    data = [dict(type="scatter", x=t, y=10.0 ** shown[:, k], mode="lines+markers", name=f"unit {k + 1}",
                 line=dict(color=UNIT_COLORS[k % 8], width=2.5),
                 marker=dict(symbol=UNIT_MARKERS[k % 8], size=8, maxdisplayed=12, color=UNIT_COLORS[k % 8]),
                 hovertemplate="t=%{x}<br>|h|=%{y:.3e}<extra>unit " + str(k + 1) + "</extra>") for k in range(N)]
    lo = max(floor, float(np.nanmin(shown)) - 0.5) if np.isfinite(shown).any() else floor
    height = 320
    lay = _layout(f"|h<sub>t</sub>| after one input at t = 1, over {T:,} steps", height, font_scale,
                  margin=dict(l=y_margin(font_scale, 6), b=x_margin(font_scale)),
                  xaxis=dict(title=dict(text="time step t")),
                  yaxis=dict(title=dict(text="|h<sub>t</sub>| (log)"), type="log", range=[lo, 0.3],
                             exponentformat="power"))
    # the title at the top of its margin, the legend at the foot of it: centred there, the title reached down into
    # the legend's line on a projector (7 px; a lecturer's walk)
    lay["title"].update(yref="container", y=1 - 6 / height, yanchor="top")
    return _fig(data, text_sizes(lay, font_scale))


MIN_MAX_HEIGHT = 305  # px on a projector: the minGRU view's heatmap, whole under its controls


def min_lockstep(keep: dict[str, np.ndarray], h: dict[str, np.ndarray], labels: list[str], current: int,
                 font_scale: float = 1.0, stepwise: tuple[str, ...] = ()) -> go.Figure:
    """Per cell, a heatmap of what it keeps of h_{t-1} (amber, 0..1) above its states (purple / grey); the GRU's keep
    row (the cells in `stepwise`) only up to `current` (1-based): it needs h_{t-1} first, where the min cells' is \
known for every t up front."""
    cells = list(keep)
    titles = [get(c).presentation.heading + (" (gates page)" if c in stepwise else "") for c in cells]  # its GRU
    lay = _columns(len(cells), gap=0.06, titles=titles, font_scale=font_scale)
    data, shapes, xs = [], [], [f"{t + 1} {lab!r}" if lab else str(t + 1) for t, lab in enumerate(labels)]
    # every step's label where they fit side by side; else every k-th (a nine-letter word's ran into each other)
    every = math.ceil(len(xs) * (max(text_width(x, 12 * font_scale) for x in xs) + 8) / MIN_PANEL_PX)
    for k, c in enumerate(cells, 1):
        H = keep[c].shape[1]
        kp = keep[c].copy()
        if c in stepwise:  # needs h_{t-1}: shown only up to the current step
            kp[current:] = np.nan
        z = np.vstack([kp.T, np.full((1, len(xs)), np.nan), 3 + np.clip(h[c].T, -1, 1)])
        text = np.vstack([kp.T, np.full((1, len(xs)), np.nan), h[c].T])
        ys = [f"keep {u + 1}" for u in range(H)] + [" "] + [f"h {u + 1}" for u in range(H)]
        data.append(_in(dict(type="heatmap", z=z, x=xs, y=ys, zmin=0, zmax=4, showscale=False, xgap=1, ygap=1,
                             colorscale=JOINED,
                             text=cell_text(text),
                             texttemplate="%{text}" if len(xs) * H <= 60 else None,
                             textfont=dict(size=11 * font_scale),
                             hovertemplate="t=%{x}<br>%{y}: %{text}<extra></extra>"), k))
        shapes.append(_vrect(current - 1.5, current - 0.5, COLORS["current"], width=2, xref=f"x{k if k > 1 else ''}"))
        lay[f"yaxis{k if k > 1 else ''}"].update(autorange="reversed", showticklabels=k == 1, type="category")
        lay[f"xaxis{k if k > 1 else ''}"].update(type="category", tickangle=0, tickvals=xs[::every])
    H = keep[cells[0]].shape[1]
    height = max(240, 44 * H + 150)
    if font_scale > 1:  # a projector: under its H slider at 455 px, whole on the first screen (at H = 4 it ended at
        height = min(height, MIN_MAX_HEIGHT)  # 781 px, at H = 8 at 957; a lecturer's walk): the rows get thinner
    return _fig(data, text_sizes(_layout("", height, font_scale, shapes=shapes,
                                         margin=dict(l=y_margin(font_scale, 5), t=40, b=grown(font_scale, 50, 53)),
                                         **lay), font_scale))


def selective_steps(x: np.ndarray, delta: np.ndarray, a: np.ndarray, h: np.ndarray,
                    font_scale: float = 1.0) -> go.Figure:
    """Three stacked panels over t: the input, the step Delta_t and the kept share a_t, the state h_t."""
    t = np.arange(1, len(x) + 1)
    # on a projector the panels' titles and ticks are larger: wider gaps keep each title clear of the panel above (at
    # a gap of 0.09 they sat on its lowest tick); the chart stays short enough to share the first screen with w
    gap = 0.09 + 0.07 * (font_scale - 1) / 0.45
    lay = _rows(3, gap=gap, titles=["input x<sub>t</sub>", "step Δ<sub>t</sub> and kept share a<sub>t</sub> = "
                                    "exp(Δ<sub>t</sub>A)", "state h<sub>t</sub>"], font_scale=font_scale)
    data = [_in(dict(type="bar", x=t, y=x, name="x<sub>t</sub>", marker=dict(color=COLORS["input"]),
                     hovertemplate="t=%{x}<br>x=%{y:.3g}<extra></extra>"), 1),
            _in(dict(type="scatter", x=t, y=a, mode="lines+markers", name="a<sub>t</sub> kept",
                     line=dict(color=COLORS["gate"], width=3), marker=dict(size=10, symbol="diamond"),
                     hovertemplate="t=%{x}<br>a=%{y:.4f}<extra></extra>"), 2),
            _in(dict(type="scatter", x=t, y=delta, mode="lines+markers", name="Δ<sub>t</sub> step",
                     line=dict(color=COLORS["other"], width=2, dash="dot"), marker=dict(size=8, symbol="square"),
                     hovertemplate="t=%{x}<br>Δ=%{y:.4f}<extra></extra>"), 2),
            _in(dict(type="scatter", x=t, y=h, mode="lines+markers", name="h<sub>t</sub>",
                     line=dict(color=COLORS["state"], width=3), marker=dict(size=9),
                     hovertemplate="t=%{x}<br>h=%{y:.4f}<extra></extra>"), 3)]
    lay["xaxis3"].update(title=dict(text="time step t"), dtick=1 if len(t) <= 25 else None)
    lay["yaxis2"].update(rangemode="tozero")
    for k in (1, 2, 3):  # three panels in 390 px: Plotly's own five ticks a panel ran together on a projector
        lay[f"yaxis{k if k > 1 else ''}"].update(nticks=3)
    margin = dict(l=y_margin(font_scale, 5), t=grown(font_scale, 48, 56), b=x_margin(font_scale))  # legend on top
    return _fig(data, text_sizes(_layout("", grown(font_scale, 390, 400), font_scale, margin=margin, **lay),
                                 font_scale))


def scan_tree(levels_a: np.ndarray, levels_b: np.ndarray, font_scale: float = 1.0) -> go.Figure:
    """The Hillis-Steele scan as a tree: level k's node i takes node i - 2^(k-1) of the level above (amber edge)
    and itself (grey); each node prints its b (the state its window reaches from 0); the last row is h_1..h_T."""
    L1, T = levels_b.shape
    ex, ey, gx, gy = [], [], [], []
    for k in range(1, L1):
        s = 2 ** (k - 1)
        for i in range(T):
            gx += [i + 1, i + 1, None]
            gy += [k - 1, k, None]
            if i >= s:
                ex += [i + 1 - s, i + 1, None]
                ey += [k - 1, k, None]
    ii, kk = np.meshgrid(np.arange(1, T + 1), np.arange(L1))
    last = kk == L1 - 1
    small = font_scale * (10 if T > 8 else 12)
    box = (30 if T > 8 else 40) * font_scale  # px; each level is a box and a gap high, so boxes never overlap
    data = [dict(type="scatter", x=gx, y=gy, mode="lines", line=dict(color="#cccccc", width=1), hoverinfo="skip",
                 name="keep"),
            dict(type="scatter", x=ex, y=ey, mode="lines", line=dict(color=COLORS["gate"], width=2), hoverinfo="skip",
                 name="combine (a₁,b₁)∘(a₂,b₂)"),
            dict(type="scatter", x=ii.ravel(), y=kk.ravel(), mode="markers+text", name="node: its b (hover: a)",
                 marker=dict(size=box, symbol="square",
                             color=np.where(last, "#e8f1f8", "white").ravel(),
                             line=dict(color=np.where(last, COLORS["state"], "#999").ravel(), width=2)),
                 text=[f"{v:.2f}" for v in levels_b.ravel()], textfont=dict(size=small),
                 customdata=np.stack([levels_a.ravel(), levels_b.ravel()], axis=1),
                 hovertemplate="t=%{x}, level %{y}<br>a = %{customdata[0]:.4f}<br>b = %{customdata[1]:.4f}"
                               "<extra></extra>")]
    lay = _layout(f"Parallel scan, T = {T}: {L1 - 1} levels", int(150 + L1 * (box + 14)), font_scale, showlegend=True,
                  margin=dict(l=y_margin(font_scale, 7), b=x_margin(font_scale)),
                  xaxis=dict(title=dict(text="step t"), dtick=1, range=[0.4, T + 0.6], showgrid=False),
                  yaxis=dict(autorange="reversed", tickvals=list(range(L1)), showgrid=False,
                             ticktext=["inputs"] + [f"level {k}" for k in range(1, L1)]))
    return _fig(data, text_sizes(lay, font_scale))


def scan_costs(T: np.ndarray, work: dict[str, np.ndarray], depth: dict[str, np.ndarray],
               seconds: dict[str, np.ndarray], font_scale: float = 1.0) -> go.Figure:
    """Work and depth (counts) and measured time against T, log-log, for the loop and the scans."""
    style = {"loop": ("loop", COLORS["vanilla"], "circle"), "hillis_steele": ("Hillis-Steele scan", COLORS["state"],
                                                                             "square"),
             "blelloch": ("Blelloch scan", COLORS["gate"], "diamond")}
    lay = _columns(3, gap=0.09, titles=["work (operations)", "depth (levels)", "time, NumPy (s)"],
                   font_scale=font_scale)
    data = []
    for k, series in enumerate((work, depth, seconds), 1):
        for n, (name, col, sym) in style.items():
            data.append(_in(dict(type="scatter", x=T, y=series[n], mode="lines+markers", name=name, legendgroup=n,
                                 showlegend=k == 1, line=dict(color=col, width=2.5), marker=dict(symbol=sym, size=9),
                                 hovertemplate="T=%{x}<br>%{y:.3g}<extra>" + name + "</extra>"), k))
        sfx = "" if k == 1 else str(k)
        lay[f"xaxis{sfx}"].update(type="log", title=dict(text="T"), tickvals=T[::2],
                                  ticktext=[f"2<sup>{int(np.log2(v))}</sup>" for v in T[::2]])
        lay[f"yaxis{sfx}"].update(type="log", dtick=1)  # powers of ten only: plotly.js writes the 2s and 5s between
        # them at three quarters of the tick size, 13 px on a projector, under its 14 px floor
    return _fig(data, text_sizes(_layout("", 340, font_scale, margin=dict(l=y_margin(font_scale, 4), t=50,
                                                                         r=grown(font_scale, 20, 28),
                                                                         b=grown(font_scale, 100, 108)),
                                         legend=dict(orientation="h", x=0, y=-0.3, xanchor="left", yanchor="top"),
                                         **lay), font_scale))


def gradient_compare(series: dict[str, np.ndarray], font_scale: float = 1.0) -> go.Figure:
    """log10 ||dh_T/dh_t|| by steps back for the gradients page's cells (solid) and the new ones (dashed)."""
    data = []
    for key, logv in series.items():
        name, color, symbol, dash = curve_style(key)
        dash = dash if get(key).torch_module else "dash"  # the new cells dashed, the gradients page's own solid
        k = np.arange(len(logv))
        ok = np.isfinite(logv)
        data.append(dict(type="scatter", x=k[ok], y=10.0 ** logv[ok], name=name, mode="lines+markers",
                         line=dict(color=color, width=2.5, dash=dash),
                         marker=dict(symbol=symbol, size=9, color=color, maxdisplayed=12),
                         hovertemplate="k=%{x} steps back<br>norm %{y:.3e}<extra>" + name + "</extra>"))
    lows = [v[np.isfinite(v)].min() for v in series.values()]
    lo, hi = max(min(lows), -300), max(0.0, max(v.max() for v in series.values()))
    pad = max(0.5, 0.04 * (hi - lo))  # in decades: half a decade was 2 px of 45, and the lowest marker sat cut in half
    lay = _layout("How much of the gradient survives, by steps back", 400, font_scale,
                  margin=dict(l=y_margin(font_scale, 6), b=x_margin(font_scale) + int(70 * font_scale)),
                  xaxis=dict(title=dict(text="steps back k = T − t")),
                  yaxis=dict(title=dict(text=f"‖{DIFF}‖ (log)"), type="log", exponentformat="power",
                             range=[lo - pad, hi + pad]),
                  legend=dict(orientation="h", x=0, xanchor="left", y=-0.2 - 0.12 * font_scale, yanchor="top"))
    return _fig(data, text_sizes(lay, font_scale))
