"""What every figure shares: the colours, the house layout, and assembling figures from plain dicts.

The builders live in one module per lesson (`figures/scalar.py` for the one-unit page, ...); they take
arrays and return figures, never draw.

One colour language throughout (from the notes): green inputs, blue states, amber weights and gates,
red outputs, and an amber outline for what a model adds to the previous one. The hues are the
Okabe-Ito palette, which stays distinguishable under the common colour-vision deficiencies; every
series also has a label or a marker shape, so colour is never the only cue.

Each figure is assembled as plain dicts and validated once by `go.Figure(...)`: building a figure
call by call (add_trace, update_xaxes, make_subplots) costs ten times more, and a slider move has a
budget of tens of milliseconds.
"""
from __future__ import annotations

import math
import threading

import numpy as np
import plotly.graph_objects as go

COLORS = {
    "input": "#009E73",  # green
    "state": "#0072B2",  # blue
    "weight": "#E69F00",  # amber
    "gate": "#E69F00",  # amber
    "output": "#D55E00",  # red (vermillion)
    "cell": "#56B4E9",  # light blue: the LSTM's second state
    "muted": "#6b6e7c",  # grey, and as text 5.1:1 on white (#8c8c8c was 3.4:1; WCAG asks 4.5)
    "current": "#222222",  # the current step's outline: near black, not one of the four role colours
    "vanilla": "#222222",  # the plain RNN (and the unclipped run) where cells are compared: near black, no role colour
    "other": "#CC79A7",  # reddish purple: a series that is none of the four roles
    "grid": "#e6e6e6",
}
FONT = dict(family="Inter, Helvetica Neue, Arial, sans-serif", size=14)
# signed values: purple below zero, grey above; not one of the four role colours, so a heatmap of a weight
# matrix never reads as outputs (red) and states (blue)
DIVERGING = [[0.0, "#762A83"], [0.5, "#F7F7F7"], [1.0, "#3F3F3F"]]
AMBER = [[0, "#fff7e6"], [1, COLORS["gate"]]]
GREEN = [[0, "#f4fbf8"], [1, COLORS["input"]]]
REDS = [[0, "#fff5f0"], [1, COLORS["output"]]]


_TEMPLATE_LOCK = threading.Lock()


def use_house_template() -> None:
    """Make 'plotly_white' the default template. The app calls this on every rerun: choosing the template at figure
    creation is ~20x cheaper than setting it on every figure, and setting it validates the whole template (20-120 ms),
    so it is set only when it is not the default already, and by one thread: the default reads as before until the
    validation is done, so a class arriving at once on a fresh server had every first run validate it."""
    import plotly.io as pio

    if pio.templates.default == "plotly_white":
        return
    with _TEMPLATE_LOCK:
        if pio.templates.default != "plotly_white":
            pio.templates.default = "plotly_white"


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


def y_margin(font_scale: float, tick_chars: float) -> int:
    """The left margin of a y axis with a title and tick labels about `tick_chars` characters wide: what Plotly's
    automargin gives it under Streamlit's chart theme (24 px title standoff), set outright. Automargin lays a chart
    out twice whenever it has to grow a margin, on every redraw; it still does where labels come out wider."""
    return math.ceil(46 + 20 / 3 * font_scale * (tick_chars + 1))


def grown(font_scale: float, normal: int, projector: int) -> int:
    """A margin that automargin was seen to grow to `normal` px at font scale 1 and to `projector` px in classroom
    mode (1.45), set outright (see y_margin); linear in between."""
    return math.ceil(normal + (projector - normal) * (font_scale - 1) / 0.45)


def x_margin(font_scale: float) -> int:
    """The bottom margin of an x axis with a title, as automargin would make it (see y_margin)."""
    return math.ceil(42 + 24.5 * font_scale)


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
    return SpecFigure(dict(data=data, layout=layout, frames=frames or []))  # validated when read, not when sent


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
            ann.append(dict(text=titles[k - 1], x=0, y=top, xref="paper", yref="paper", xanchor="left",
                            yanchor="bottom", showarrow=False, font=dict(size=13 * font_scale)))
    out["annotations"] = ann
    return out


def _in(trace: dict, k: int) -> dict:
    """Place a trace in panel k."""
    trace["xaxis"], trace["yaxis"] = _ref("x", k), _ref("y", k)
    return trace


def cell_text(values, decimals: int = 2) -> list:
    """Numbers written into heatmap cells: fixed decimals with the true minus sign (U+2212), which Plotly's own
    number formats ('%{z:.2f}') write as a hyphen ('-0.14'); a NaN cell is blank, and no cell reads '−0.00'."""
    v = np.asarray(values, float)
    text = np.char.mod(f"%.{decimals}f", np.round(np.nan_to_num(v), decimals) + 0.0)
    return np.where(np.isnan(v), "", np.char.replace(text, "-", "−")).tolist()


def not_reached(values, current: int | None) -> np.ndarray:
    """A copy of `values` [..., T] with the steps after `current` (0-based) blank (NaN): a heatmap draws no colour
    and no number there (cell_text), and no hover with hoverongaps=False; all steps where `current` is None."""
    v = np.array(values, float)
    if current is not None:
        v[..., current + 1:] = np.nan
    return v


def _unit_labels(n: int, prefix: str = "unit ") -> list[str]:
    return [f"{prefix}{k + 1}" for k in range(n)]


def _vrect(x0, x1, color, width=3, xref="x", yref="y domain", **kw) -> dict:
    return dict(type="rect", x0=x0, x1=x1, y0=0, y1=1, xref=xref, yref=yref, line=dict(color=color, width=width),
                fillcolor="rgba(0,0,0,0)", **kw)


def state_heatmap(values: np.ndarray, x_labels: list[str] | None = None, title: str = "States over time: unit × step",
                  current: int | None = None, zlim: float = 1.0, name: str = "h", font_scale: float = 1.0,
                  probabilities: bool = False) -> go.Figure:
    """A [T, H] array as a heatmap: time across, units down (drawn H by T, as its title says); purple negative, grey
    positive (or 0..1 reds); the `current` step outlined and the steps after it blank."""
    v = np.asarray(values, float)
    T, H = v.shape
    xs = [f"{t + 1}" + (f" {x_labels[t]!r}" if x_labels else "") for t in range(T)]
    z = not_reached(v.T, current)
    data = [dict(type="heatmap", z=z, x=xs, y=_unit_labels(H, name), zmin=0 if probabilities else -zlim, zmax=zlim,
                 colorscale=REDS if probabilities else DIVERGING, colorbar=dict(title=dict(text=name), thickness=12),
                 text=cell_text(z), texttemplate="%{text}" if T * H <= 160 else None, hoverongaps=False,
                 hovertemplate="t=%{x}<br>%{y}: %{z:.4f}<extra></extra>", xgap=1, ygap=1)]
    shapes = [_vrect(current - 0.5, current + 0.5, COLORS["current"])] if current is not None else []
    return _fig(data, _layout(title, max(220, 22 * H + 130), font_scale, shapes=shapes,
                              xaxis=dict(title=dict(text="time step t"), type="category"),
                              yaxis=dict(autorange="reversed", showgrid=False, zeroline=False)))  # none across blanks


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
    # two bars a letter: little gap between letters, so each bar is as wide as its number ('0.038' and '0.000' of
    # a letter's two bars ran together at the default gap on a projector)
    gap = dict(bargap=0.06) if compare is not None else {}
    return _fig(data, _layout(title, 320, font_scale, barmode="group", margin=dict(l=y_margin(font_scale, 3), b=70),
                              **gap,
                              yaxis=dict(range=[0, min(1.15, top * 1.25 + 0.02)], title=dict(text="probability")),
                              xaxis=dict(type="category"),
                              legend=dict(orientation="h", x=0, xanchor="left", y=-0.15, yanchor="top")))
