"""Plotly figure builders for every page; they take arrays and return figures, never draw.

One colour language throughout (from the notes): green inputs, blue states, amber weights and gates,
red outputs, and an amber outline for what a model adds to the previous one. The hues are the
Okabe-Ito palette, which stays distinguishable under the common colour-vision deficiencies; every
series also has a label or a marker shape, so colour is never the only cue.

Each figure is assembled as plain dicts and validated once by `go.Figure(...)`: building a figure
call by call (add_trace, update_xaxes, make_subplots) costs ten times more, and a slider move has a
budget of tens of milliseconds.
"""
from __future__ import annotations

import os

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
FONT = dict(family="Inter, Helvetica Neue, Arial, sans-serif", size=14)
DIVERGING = [[0.0, "#B2182B"], [0.5, "#f7f7f7"], [1.0, "#2166AC"]]  # red-white-blue for signed values
AMBER = [[0, "#fff7e6"], [1, COLORS["gate"]]]
GREEN = [[0, "#f4fbf8"], [1, COLORS["input"]]]
REDS = [[0, "#fff5f0"], [1, COLORS["output"]]]
PROB_SCALE = [[0.0, "#D55E00"], [0.5, "#FBE3D2"], [1.0, "#FFFFFF"]]  # low probability stands out in red
SURPRISE_SCALE = [[0.0, "#FFFFFF"], [0.5, "#FBE3D2"], [1.0, "#D55E00"]]


def use_house_template() -> None:
    """Make 'plotly_white' the default template. Called once by the app: choosing the template at figure
    creation is ~20x cheaper than setting it on every figure."""
    import plotly.io as pio

    pio.templates.default = "plotly_white"


# ---- assembling figures from dicts --------------------------------------------------------------

def _merge(base: dict, extra: dict) -> dict:
    """Deep-merge `extra` into `base` (dicts merge, everything else replaces)."""
    for k, v in extra.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            _merge(base[k], v)
        else:
            base[k] = v
    return base


def _layout(title: str = "", height: int = 360, font_scale: float = 1.0, **extra) -> dict:
    """The shared look: light grid, readable type, compact margins, legend top right."""
    lay = dict(
        title=dict(text=title, x=0.01, xanchor="left", font=dict(size=16 * font_scale)),
        height=height, margin=dict(l=60, r=20, t=70 if title else 30, b=50),
        font=dict(FONT, size=FONT["size"] * font_scale),
        legend=dict(orientation="h", y=1.02, x=1, xanchor="right", yanchor="bottom", bgcolor="rgba(0,0,0,0)"),
        hoverlabel=dict(font=dict(size=13 * font_scale)),
    )
    return _merge(lay, extra)


class SpecFigure(go.Figure):
    """A figure assembled from plain dicts whose validation waits until someone reads it.

    Plotting it (st.plotly_chart calls to_dict) hands the spec over as it is; reading any attribute
    (fig.data, fig.layout, fig.update_layout(...)) first builds and validates the full go.Figure, so tests
    and notebooks see an ordinary, checked figure."""

    def __init__(self, spec: dict):  # noqa: D107 - deliberately skips go.Figure.__init__ until needed
        object.__setattr__(self, "_spec", spec)
        object.__setattr__(self, "_full", None)

    def _figure(self) -> go.Figure:
        full = object.__getattribute__(self, "_full")
        if full is None:
            full = go.Figure(object.__getattribute__(self, "_spec"))
            object.__setattr__(self, "_full", full)
        return full

    def __getattr__(self, name):  # reached for everything go.Figure keeps in its (unbuilt) internals
        return getattr(object.__getattribute__(self, "_figure")(), name)

    def __getattribute__(self, name):
        if name in ("to_dict", "to_plotly_json", "_spec", "_full", "_figure", "__class__", "__dict__"):
            return object.__getattribute__(self, name)
        return getattr(object.__getattribute__(self, "_figure")(), name)

    def __setattr__(self, name, value):
        setattr(self._figure(), name, value)

    def to_dict(self) -> dict:
        full = object.__getattribute__(self, "_full")
        return full.to_dict() if full is not None else object.__getattribute__(self, "_spec")

    def to_plotly_json(self) -> dict:
        return self.to_dict()


def _fig(data: list[dict], layout: dict, frames: list[dict] | None = None) -> go.Figure:
    spec = dict(data=data, layout=layout, frames=frames or [])
    if os.environ.get("RNNVIZ_VALIDATE_FIGURES") == "1":  # the test suite: every figure drawn is checked
        return go.Figure(spec)
    return SpecFigure(spec)


def _axis_name(kind: str, k: int) -> str:
    """'xaxis', 'xaxis2', ... for layout keys; trace references are 'x', 'x2', ..."""
    return kind + ("axis" if k == 1 else f"axis{k}")


def _ref(kind: str, k: int) -> str:
    return kind if k == 1 else f"{kind}{k}"


def _columns(n: int, gap: float = 0.05, widths: list[float] | None = None, titles: list[str] | None = None,
             font_scale: float = 1.0, title_shift: int = 0) -> dict:
    """Layout entries for n side-by-side panels: axes with domains and a title above each panel."""
    widths = widths or [1.0] * n
    usable = 1 - gap * (n - 1)
    total = sum(widths)
    out, ann, x0 = {}, [], 0.0
    for k in range(1, n + 1):
        w = usable * widths[k - 1] / total
        out[_axis_name("x", k)] = dict(domain=[max(0.0, x0), min(1.0, x0 + w)], anchor=_ref("y", k))
        out[_axis_name("y", k)] = dict(anchor=_ref("x", k))
        if titles:
            ann.append(dict(text=titles[k - 1], x=x0 + w / 2, y=1.0, xref="paper", yref="paper", xanchor="center",
                            yanchor="bottom", showarrow=False, yshift=title_shift, font=dict(size=13 * font_scale)))
        x0 += w + gap
    out["annotations"] = ann
    return out


def _rows(n: int, gap: float = 0.06, titles: list[str] | None = None, font_scale: float = 1.0) -> dict:
    """Layout entries for n stacked panels sharing the bottom x axis."""
    h = (1 - gap * (n - 1)) / n
    out, ann = {}, []
    for k in range(1, n + 1):
        top = 1 - (k - 1) * (h + gap)
        out[_axis_name("y", k)] = dict(domain=[max(0.0, top - h), min(1.0, top)], anchor=_ref("x", k))
        out[_axis_name("x", k)] = dict(anchor=_ref("y", k), matches="x" if k > 1 else None, showticklabels=k == n)
        if titles:
            ann.append(dict(text=titles[k - 1], x=0, y=top, xref="paper", yref="paper", xanchor="left", yanchor="bottom",
                            showarrow=False, font=dict(size=13 * font_scale)))
    out["annotations"] = ann
    return out


def _in(trace: dict, k: int) -> dict:
    """Place a trace in panel k."""
    trace["xaxis"], trace["yaxis"] = _ref("x", k), _ref("y", k)
    return trace


def _unit_labels(n: int, prefix: str = "unit ") -> list[str]:
    return [f"{prefix}{k + 1}" for k in range(n)]


def _vrect(x0, x1, color, width=3, xref="x", yref="y domain", **kw) -> dict:
    return dict(type="rect", x0=x0, x1=x1, y0=0, y1=1, xref=xref, yref=yref, line=dict(color=color, width=width),
                fillcolor="rgba(0,0,0,0)", **kw)


# ---- the one-unit RNN ----------------------------------------------------------------------------

def _play_controls(labels: list[str], duration: int = 700) -> list[dict]:
    """Play/pause buttons (top right) that animate the figure's frames in the browser."""
    return [dict(
        type="buttons", direction="left", x=0.0, y=-0.27, xanchor="left", yanchor="top", pad=dict(r=0, t=0),
        showactive=False, bgcolor="white", font=dict(size=12),
        buttons=[dict(label="▶ Play steps", method="animate", args=[labels, dict(
                     frame=dict(duration=duration, redraw=True), fromcurrent=False, transition=dict(duration=200),
                     mode="immediate")]),
                 dict(label="❚❚", method="animate", args=[[None], dict(frame=dict(duration=0, redraw=False),
                                                                        mode="immediate")])])]


def tanh_curve(pre: np.ndarray, h: np.ndarray, current: int, font_scale: float = 1.0) -> go.Figure:
    """The tanh curve with each step's pre-activation marked; saturated zones (tanh' < 0.1) shaded.

    `pre` and `h` are 1-D (T,); `current` is the 0-based step to emphasise. Frames animate the steps."""
    pre, h = np.asarray(pre, float).ravel(), np.asarray(h, float).ravel()
    lim = max(4.0, float(np.max(np.abs(pre))) * 1.1 if len(pre) else 4.0)
    lim = min(lim, 25.0)
    z = np.linspace(-lim, lim, 400)
    sat = float(np.arctanh(np.sqrt(0.9)))  # |z| where tanh'(z) = 0.1
    shapes = [dict(type="rect", x0=x0, x1=x1, y0=0, y1=1, xref="x", yref="y domain", fillcolor=COLORS["muted"],
                   opacity=0.12, line=dict(width=0), layer="below") for x0, x1 in ((-lim, -sat), (sat, lim))]
    data = [dict(type="scatter", x=z, y=np.tanh(z), mode="lines", name="h = tanh(z)", hoverinfo="skip",
                 line=dict(color=COLORS["state"], width=3))]

    def step_traces(k: int) -> list[dict]:
        zc = np.clip(pre[: k + 1], -lim, lim)
        return [
            dict(type="scatter", x=zc[:k], y=h[:k], mode="markers+text", name="earlier steps",
                 text=[f"t={j + 1}" for j in range(k)], textposition="top left",
                 marker=dict(color="white", size=10, symbol="circle", line=dict(color=COLORS["state"], width=2)),
                 hovertemplate="%{text}<br>z=%{x:.3f}<br>h=%{y:.3f}<extra></extra>"),
            dict(type="scatter", x=[zc[k], zc[k], -lim], y=[-1.05, h[k], h[k]], mode="lines", hoverinfo="skip",
                 line=dict(color=COLORS["output"], width=1.5, dash="dot"), showlegend=False),
            dict(type="scatter", x=[zc[k], -lim * 0.97], y=[h[k], 0.45], mode="markers+text", name=f"step t = {k + 1}",
                 text=["", f"t={k + 1}: z={pre[k]:.3f}<br>→ h={h[k]:.3f}"], textposition="middle right",
                 textfont=dict(size=14 * font_scale, color="#222"),
                 marker=dict(color=COLORS["state"], size=[16, 0], symbol="circle", line=dict(color="white", width=2)),
                 hovertemplate="z=%{x:.3f}<br>h=%{y:.3f}<extra></extra>"),
        ]

    layout = _layout("Where each step lands on tanh", 430, font_scale, showlegend=False, shapes=shapes,
                     margin=dict(b=110),
                     annotations=[dict(x=lim * 0.97, y=-0.9, text="saturated: tanh′ < 0.1", showarrow=False,
                                       xanchor="right", font=dict(color="#555", size=12 * font_scale))],
                     xaxis=dict(title=dict(text="z = w_x·x_t + w_h·h_{t−1} + b"), range=[-lim, lim], zeroline=True),
                     yaxis=dict(title=dict(text="h_t"), range=[-1.1, 1.1], zeroline=True))
    frames = []
    if len(pre):
        cur = int(np.clip(current, 0, len(pre) - 1))
        data += step_traces(cur)
        labels = [str(k + 1) for k in range(len(pre))]
        frames = [dict(data=step_traces(k), traces=[1, 2, 3], name=labels[k]) for k in range(len(pre))]
        layout["updatemenus"] = _play_controls(labels)
    return _fig(data, layout, frames)


def states_over_time(h: np.ndarray, x: np.ndarray | None = None, current: int | None = None,
                     font_scale: float = 1.0) -> go.Figure:
    """h_t against t (blue), with the inputs x_t as green bars; the current step ringed."""
    h = np.asarray(h, float).ravel()
    t = np.arange(1, len(h) + 1)
    data = []
    if x is not None:
        data.append(dict(type="bar", x=t, y=np.asarray(x, float).ravel(), name="input x_t", marker=dict(color=COLORS["input"]),
                         opacity=0.45, hovertemplate="t=%{x}<br>x=%{y:.3g}<extra></extra>"))
    data.append(dict(type="scatter", x=t, y=h, mode="lines+markers", name="state h_t",
                     line=dict(color=COLORS["state"], width=3), marker=dict(size=8, symbol="circle"),
                     hovertemplate="t=%{x}<br>h=%{y:.4f}<extra></extra>"))
    if current is not None and len(h):
        c = int(np.clip(current, 0, len(h) - 1))
        data.append(dict(type="scatter", x=[c + 1], y=[h[c]], mode="markers", name="current step",
                         marker=dict(size=20, symbol="circle-open", color=COLORS["output"], line=dict(width=3))))
    return _fig(data, _layout("h_t over time", 330, font_scale,
                              xaxis=dict(title=dict(text="time step t"), dtick=1 if len(h) <= 25 else None),
                              yaxis=dict(title=dict(text="value"), zeroline=True, zerolinecolor="#999")))


def cobweb(w_h: float, b: float, path: np.ndarray, fixed: list[tuple[float, bool]], font_scale: float = 1.0) -> go.Figure:
    """The map h -> tanh(w_h h + b) against the diagonal, the staircase of `path`, and the fixed points."""
    hh = np.linspace(-1.05, 1.05, 300)
    data = [dict(type="scatter", x=hh, y=hh, mode="lines", name="h_next = h", line=dict(color=COLORS["muted"], dash="dash")),
            dict(type="scatter", x=hh, y=np.tanh(w_h * hh + b), mode="lines", name="h_next = tanh(w_h h + b)",
                 line=dict(color=COLORS["state"], width=3))]
    if len(path) > 1:
        xs, ys = [path[0]], [path[0]]
        for a, c in zip(path[:-1], path[1:]):
            xs += [a, c]
            ys += [c, c]
        data += [dict(type="scatter", x=xs, y=ys, mode="lines", name="iterates (no input)",
                      line=dict(color=COLORS["output"], width=1.5)),
                 dict(type="scatter", x=[path[0]], y=[path[0]], mode="markers", name="start",
                      marker=dict(color=COLORS["output"], size=11, symbol="triangle-up"))]
    for h_star, stable in fixed:
        data.append(dict(type="scatter", x=[h_star], y=[h_star], mode="markers", showlegend=False,
                         marker=dict(size=14, symbol="circle" if stable else "circle-open", color=COLORS["weight"],
                                     line=dict(width=2.5, color=COLORS["weight"])),
                         hovertemplate=f"fixed point h* = {h_star:.4f} ({'stable' if stable else 'unstable'})<extra></extra>"))
    data += [dict(type="scatter", x=[None], y=[None], mode="markers", name="stable fixed point",
                  marker=dict(size=12, symbol="circle", color=COLORS["weight"])),
             dict(type="scatter", x=[None], y=[None], mode="markers", name="unstable fixed point",
                  marker=dict(size=12, symbol="circle-open", color=COLORS["weight"], line=dict(width=2.5)))]
    return _fig(data, _layout("Fixed points of the silent cell", 430, font_scale,
                              xaxis=dict(title=dict(text="h"), range=[-1.05, 1.05]),
                              yaxis=dict(title=dict(text="next h"), range=[-1.05, 1.05], scaleanchor="x", scaleratio=1),
                              legend=dict(orientation="v", y=0.02, x=0.98, xanchor="right", yanchor="bottom",
                                          bgcolor="rgba(255,255,255,0.8)")))


# ---- the vector cell ------------------------------------------------------------------------------

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


def state_heatmap(values: np.ndarray, x_labels: list[str] | None = None, title: str = "States over time [T, H]",
                  current: int | None = None, zlim: float = 1.0, name: str = "h", font_scale: float = 1.0,
                  probabilities: bool = False) -> go.Figure:
    """A [T, H] array as a heatmap: time across, units down; red negative, blue positive (or 0..1 reds)."""
    v = np.asarray(values, float)
    T, H = v.shape
    xs = [f"{t + 1}" + (f" {x_labels[t]!r}" if x_labels else "") for t in range(T)]
    data = [dict(type="heatmap", z=v.T, x=xs, y=_unit_labels(H, name), zmin=0 if probabilities else -zlim, zmax=zlim,
                 colorscale=REDS if probabilities else DIVERGING, colorbar=dict(title=dict(text=name), thickness=12),
                 texttemplate="%{z:.2f}" if T * H <= 160 else None,
                 hovertemplate="t=%{x}<br>%{y}: %{z:.4f}<extra></extra>", xgap=1, ygap=1)]
    shapes = [_vrect(current - 0.5, current + 0.5, COLORS["output"])] if current is not None else []
    return _fig(data, _layout(title, max(220, 22 * H + 130), font_scale, shapes=shapes,
                              xaxis=dict(title=dict(text="time step t"), type="category"), yaxis=dict(autorange="reversed")))


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


# ---- gated cells --------------------------------------------------------------------------------

GATE_INFO = {  # name: (title, colour key, value range)
    "f": ("forget f", "gate", (0, 1)), "i": ("input i", "gate", (0, 1)), "g": ("candidate g", "state", (-1, 1)),
    "o": ("output o", "gate", (0, 1)), "c": ("cell state c", "cell", None), "h": ("hidden h", "state", (-1, 1)),
    "r": ("reset r", "gate", (0, 1)), "z": ("update z", "gate", (0, 1)), "n": ("candidate n", "state", (-1, 1)),
}


def gate_step_bars(values: dict[str, np.ndarray], names: list[str], font_scale: float = 1.0) -> go.Figure:
    """One panel per gate or state at a single step, units down, bars coloured by kind."""
    H = len(values[names[0]])
    units = _unit_labels(H, "u")
    lay = _layout("", max(230, 30 * H + 110), font_scale, margin=dict(t=40, l=40, r=10, b=30), showlegend=False,
                  **_columns(len(names), 0.03, titles=[GATE_INFO.get(n, (n,))[0] for n in names], font_scale=font_scale))
    data = []
    for k, n in enumerate(names, 1):
        info = GATE_INFO.get(n, (n, "state", None))
        v = values[n]
        data.append(_in(dict(type="bar", x=v, y=units, orientation="h", marker=dict(color=COLORS[info[1]]),
                             text=[f"{a:.2f}" for a in v] if H <= 12 else None, textposition="outside",
                             textfont=dict(size=11 * font_scale), cliponaxis=False,
                             hovertemplate="%{y}: %{x:.4f}<extra>" + info[0] + "</extra>"), k))
        big = max(1.0, float(np.abs(v).max()))
        lo, hi = info[2] if info[2] else (-big, big)
        pad = 0.45 * (hi - lo)
        lay[_axis_name("x", k)].update(range=[lo - (pad if lo < 0 else 0.05), hi + pad], nticks=3)
        lay[_axis_name("y", k)].update(autorange="reversed", showticklabels=k == 1, type="category")
    return _fig(data, lay)


def gate_heatmaps(trace, names: list[str], x_labels: list[str] | None = None, current: int | None = None,
                  font_scale: float = 1.0) -> go.Figure:
    """Each gate or state over time [T, H], stacked; gates on a 0..1 amber scale, states on red-blue."""
    T, H = getattr(trace, names[0]).shape
    xs = [f"{t + 1}" + (f" {x_labels[t]!r}" if x_labels else "") for t in range(T)]
    lay = _layout("", len(names) * max(90, 14 * H + 50) + 60, font_scale,
                  **_rows(len(names), 0.06, titles=[GATE_INFO[n][0] for n in names], font_scale=font_scale))
    data, shapes = [], []
    for k, n in enumerate(names, 1):
        v = getattr(trace, n)
        gate = GATE_INFO[n][1] == "gate"
        lim = 1.0 if n != "c" else max(1.0, float(np.abs(v).max()))
        data.append(_in(dict(type="heatmap", z=v.T, x=xs, y=_unit_labels(H, "u"), zmin=0 if gate else -lim,
                             zmax=1 if gate else lim, colorscale=AMBER if gate else DIVERGING, showscale=False,
                             xgap=1, ygap=1, texttemplate="%{z:.2f}" if T * H <= 60 else None,
                             hovertemplate=f"{n}" + " t=%{x} %{y}: %{z:.4f}<extra></extra>"), k))
        lay[_axis_name("y", k)].update(autorange="reversed", showticklabels=H <= 16, type="category")
        lay[_axis_name("x", k)].update(type="category")
        if current is not None:
            shapes.append(_vrect(current - 0.5, current + 0.5, COLORS["output"], 2, xref=_ref("x", k),
                                 yref=f"{_ref('y', k)} domain"))
    lay["shapes"] = shapes
    return _fig(data, lay)


def valve_figure(valve, font_scale: float = 1.0) -> go.Figure:
    """The LSTM's cell state and output beside a vanilla unit's state, over hundreds of steps."""
    T = len(valve.x)
    t = np.arange(1, T + 1)
    data = [dict(type="scatter", x=t, y=valve.lstm.c[:, 0], name="LSTM cell state c_t", mode="lines",
                 line=dict(color=COLORS["cell"], width=4)),
            dict(type="scatter", x=t, y=valve.lstm.h[:, 0], name="LSTM output h_t", mode="lines",
                 line=dict(color=COLORS["state"], width=2, dash="dot")),
            dict(type="scatter", x=t, y=valve.rnn.h[:, 0], name="vanilla h_t (w_h = 0.5)", mode="lines+markers",
                 line=dict(color=COLORS["output"], width=2), marker=dict(size=5, symbol="triangle-up"))]
    ann = [dict(x=np.log10(T), y=valve.lstm.c[-1, 0], text=f"c_{T} = {valve.lstm.c[-1, 0]:.4f}", showarrow=True,
                ax=-60, ay=-30, font=dict(size=13 * font_scale))]
    return _fig(data, _layout("The valve: f = 1, i = 0 after step 1", 380, font_scale, annotations=ann,
                              margin=dict(t=100), xaxis=dict(title=dict(text="time step t (log scale)"), type="log"),
                              yaxis=dict(title=dict(text="value"), range=[-0.05, 1.0])))


# ---- using the states ---------------------------------------------------------------------------

def padding_bars(demo, font_scale: float = 1.0) -> go.Figure:
    """Per example: how far the state after the padding is from the state after the last real token."""
    labels = [f"example {b + 1} (length {n})" for b, n in enumerate(demo.lengths)]
    data = [dict(type="bar", x=demo.diff, y=labels, orientation="h", marker=dict(color=COLORS["output"]),
                 text=[f"{v:.4f}" for v in demo.diff], textposition="outside", cliponaxis=False,
                 hovertemplate="%{y}: max |difference| %{x:.4f}<extra></extra>")]
    return _fig(data, _layout("How wrong the naive last state is", 120 + 45 * len(labels), font_scale,
                              xaxis=dict(title=dict(text="max |h[T−1] − h[length−1]| over units"), rangemode="tozero"),
                              yaxis=dict(autorange="reversed")))


def param_breakdown(parts: dict[str, int], font_scale: float = 1.0) -> go.Figure:
    """Embedding / cell / output parameters as one stacked bar, with counts and shares."""
    total = max(parts["total"], 1)
    data = []
    for name, key, color in (("embedding", "embedding", COLORS["input"]), ("recurrent cell", "cell", COLORS["state"]),
                             ("output layer", "output", COLORS["output"])):
        v = parts[key]
        data.append(dict(type="bar", x=[v], y=["parameters"], orientation="h", name=f"{name}: {v:,}", marker=dict(color=color),
                         text=[f"{name}<br>{v:,} ({v / total:.0%})" if v / total > 0.08 else ""],
                         textposition="inside", insidetextanchor="middle",
                         hovertemplate=f"{name}: {v:,} ({v / total:.1%})<extra></extra>"))
    return _fig(data, _layout(f"Total {parts['total']:,}", 220, font_scale, barmode="stack",
                              yaxis=dict(showticklabels=False), xaxis=dict(title=dict(text="parameters")),
                              legend=dict(y=-0.5, x=0, xanchor="left", yanchor="top"), margin=dict(b=90)))


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


# ---- language models ----------------------------------------------------------------------------

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


def prob_bars(labels: list[str], probs: np.ndarray, compare: np.ndarray | None = None, compare_name: str = "",
              name: str = "p", font_scale: float = 1.0, title: str = "") -> go.Figure:
    """A distribution as bars (red), optionally beside another one (grey) for comparison."""
    data = []
    if compare is not None:
        data.append(dict(type="bar", x=labels, y=compare, name=compare_name, marker=dict(color="#bdbdbd"),
                         text=[f"{v:.3f}" for v in compare] if len(labels) <= 12 else None, textposition="outside"))
    data.append(dict(type="bar", x=labels, y=probs, name=name, marker=dict(color=COLORS["output"]),
                     text=[f"{v:.3f}" for v in probs] if len(labels) <= 12 else None, textposition="outside"))
    top = float(np.max(np.r_[probs, compare if compare is not None else 0]))
    return _fig(data, _layout(title, 320, font_scale, barmode="group", margin=dict(b=70),
                              yaxis=dict(range=[0, min(1.15, top * 1.25 + 0.02)], title=dict(text="probability")),
                              xaxis=dict(type="category"),
                              legend=dict(orientation="h", x=0, xanchor="left", y=-0.15, yanchor="top")))


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
    data = [dict(type="scatter", x=xs, y=ys, mode="markers+text", text=esc, customdata=np.arange(len(text)),
                 textfont=dict(family="DejaVu Sans Mono, Menlo, Consolas, monospace", size=12 * font_scale, color="#111"),
                 marker=dict(symbol="square", size=15 * font_scale, color=values, colorscale=colorscale, cmin=zmin,
                             cmax=zmax, line=dict(width=0),
                             colorbar=dict(title=dict(text=colorbar_title), thickness=10, len=0.9)),
                 hovertext=hover, hoverinfo="text" if hover else "none", selected=dict(marker=dict(opacity=1)),
                 unselected=dict(marker=dict(opacity=1)))]
    if selected is not None and 0 <= selected < len(text):
        data.append(dict(type="scatter", x=[xs[selected]], y=[ys[selected]], mode="markers", hoverinfo="skip",
                         marker=dict(symbol="square-open", size=18 * font_scale, color="#111", line=dict(width=2.5))))
    cell = 15.5 * font_scale  # pixels per character cell, so squares tile without overlapping
    return _fig(data, _layout("", int(rows * cell * 1.2 + 12), font_scale, width=int(width * cell + 95),
                              margin=dict(l=5, r=5, t=5, b=5), showlegend=False, clickmode="event+select",
                              dragmode=False, xaxis=dict(visible=False, range=[-0.7, width - 0.3], fixedrange=True),
                              yaxis=dict(visible=False, range=[rows - 0.4, -0.6], fixedrange=True)))


def state_grid(h_layers: np.ndarray, title: str = "", font_scale: float = 1.0) -> go.Figure:
    """Each layer's state (L, H) folded into a compact grid of cells, layers side by side."""
    L, H = h_layers.shape
    cols = int(np.ceil(np.sqrt(H * 2)))
    rows = int(np.ceil(H / cols))
    lay = _layout(title, 300, font_scale, margin=dict(l=10, r=10, t=60 if title else 30, b=10),
                  **_columns(L, 0.04, titles=[f"layer {k + 1}" for k in range(L)], font_scale=font_scale))
    data = []
    for k in range(L):
        z = np.full(rows * cols, np.nan)
        z[:H] = h_layers[k]
        idx = np.full(rows * cols, -1)
        idx[:H] = np.arange(H)
        data.append(_in(dict(type="heatmap", z=z.reshape(rows, cols), customdata=idx.reshape(rows, cols), zmin=-1,
                             zmax=1, colorscale=DIVERGING, showscale=k == L - 1, xgap=1, ygap=1,
                             colorbar=dict(thickness=10, len=0.9),
                             hovertemplate="unit %{customdata}: %{z:.3f}<extra>layer " + str(k + 1) + "</extra>"), k + 1))
        lay[_axis_name("x", k + 1)].update(visible=False)
        lay[_axis_name("y", k + 1)].update(visible=False, autorange="reversed")
    return _fig(data, lay)
