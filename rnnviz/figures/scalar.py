"""Figures for the one-unit page: where each step lands on tanh, states over time, the cobweb."""
from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np
import plotly.graph_objects as go

from rnnviz.figures.base import COLORS, _fig, _layout, grown, x_margin, y_margin
from rnnviz.figures.fonts import text_sizes
from rnnviz.figures.labels import POSITIONS, Placer, text_size
from rnnviz.text import fmt

ASSUMED_WIDTH = 350  # px: the one-unit page's tanh chart at 1400 px (plot area 250 px; 1024 px, classroom: 377)
MAX_LABELS, MAX_TRIES = 5, 15  # earlier steps labelled at most, and looked at (the latest first)
FRAMES_LABELLED = 20  # the longest run whose animation frames all carry labels
INFO_Y = (0.55, 0.72, 0.35, 0.0, -0.4)  # heights tried for the current step's box, top left, clear of its guide
INFO_Y_RIGHT = (-0.45, -0.65, -0.25)  # then bottom right, below the curve's right half
GAP, LEADERS = 6.0, (18.0, 30.0)  # px from a marker to its label; farther out, with a leader line, where none fits
LEAD = 10.5  # px out where a leader line starts: clear of the current step's marker (9 px), which may hide a step


# Placing one frame's labels costs a few ms (the curve and the guides are taken, leaders tried), and the chart has a
# frame per step: 20 steps took ~25 ms a build on a quiet machine (50-80 ms loaded). A frame's placement depends on
# the run and the plot area, not on the step shown, so stepping through one run reuses it: the last PLACED_RUNS runs
# of this process (a few kB each), shared by every visitor.
PLACED_RUNS = 64
_PLACED: OrderedDict = OrderedDict()
_PLACED_LOCK = threading.Lock()  # sessions build charts on threads of their own


def _placements(key: tuple) -> dict:
    """The frames placed so far for the run and plot area `key` (an entry kept for the last PLACED_RUNS keys)."""
    with _PLACED_LOCK:
        got = _PLACED.get(key)
        if got is None:
            got = _PLACED[key] = {}
            while len(_PLACED) > PLACED_RUNS:
                _PLACED.popitem(last=False)
        else:
            _PLACED.move_to_end(key)
        return got


def _play_controls(labels: list[str], duration: int = 700, font_scale: float = 1.0) -> list[dict]:
    """Play/pause buttons (top right) that animate the figure's frames in the browser."""
    return [dict(
        type="buttons", direction="left", x=0.0, y=-0.27 * font_scale, xanchor="left", yanchor="top",
        pad=dict(r=0, t=0), showactive=False, bgcolor="white", font=dict(size=12 * font_scale),
        buttons=[dict(label="▶ Play steps", method="animate", args=[labels, dict(
                     frame=dict(duration=duration, redraw=True), fromcurrent=False, transition=dict(duration=200),
                     mode="immediate")]),
                 dict(label="❚❚", method="animate", args=[[None], dict(frame=dict(duration=0, redraw=False),
                                                                        mode="immediate")])])]


TITLE_CHAR_W, TITLE_LINE_H, TITLE_TOP = 0.5, 1.35, 28  # a title character's width, a line's height (font sizes); px


def wrap(phrases: list[list[str]], size: float, width: float) -> list[str]:
    """Lines of at most `width` px at font size `size` (a character TITLE_CHAR_W of it: the title's digits and
    letters measure about 0.42): whole phrases where they fit, else a phrase's pieces (each piece whole: '6.92 ×
    10⁻⁴' is never split)."""
    fits = lambda s: TITLE_CHAR_W * size * len(s) <= width  # noqa: E731
    lines: list[str] = []
    for phrase in phrases:
        whole = " ".join(phrase)
        pieces = [whole] if fits(whole) else phrase
        for piece in pieces:
            if lines and fits(lines[-1] + " " + piece):
                lines[-1] += " " + piece
            else:
                lines.append(piece)
    return lines


def _titles(steps: list[list[list[str]]] | None, font_scale: float) -> tuple[float, list[str]]:
    """The tanh chart's title size, and each step's sentence wrapped into title lines."""
    title_size = (14 if steps else 16) * font_scale
    return title_size, ["<br>".join(wrap(s, title_size, ASSUMED_WIDTH - 12)) for s in steps or []]


def tanh_size(steps: list[list[list[str]]] | None, font_scale: float = 1.0) -> tuple[int, int, int]:
    """The tanh chart's height and its top and bottom margins (px): the top holds the longest step's title."""
    title_size, titles = _titles(steps, font_scale)
    lines = max([t.count("<br>") + 1 for t in titles], default=0)
    # on a projector (1.45) the gap under the title is 12 px less and the plot area 7 px less than the type's growth
    # would make them, so under the stepper the chart's x axis title is on a 768 px screen
    top = round(TITLE_TOP + 8 - 26 * (font_scale - 1) + TITLE_LINE_H * title_size * lines) if titles else 70
    return int(430 + 85 * (font_scale - 1)) + top - 70, top, round(112 * font_scale)


Z_MAX = 25.0  # the widest z axis the tanh chart takes


def _z_lim(pre: np.ndarray) -> float:
    """The tanh chart's z axis, ±this: the steps' pre-activations with a tenth to spare, at least ±4, at most ±Z_MAX."""
    return min(max(4.0, float(np.max(np.abs(pre))) * 1.1 if len(pre) else 4.0), Z_MAX)


def _tanh_frame(lim: float, band_to: float, title: str, height: int, top: int, bottom: int, font_scale: float,
                **more) -> dict:
    """The tanh chart's layout: its axes (z on ±lim), margins, and the saturated zones (tanh' < 0.1) shaded grey
    out to ±band_to."""
    sat = float(np.arctanh(np.sqrt(0.9)))  # |z| where tanh'(z) = 0.1
    shapes = [dict(type="rect", x0=x0, x1=x1, y0=0, y1=1, xref="x", yref="y domain", fillcolor=COLORS["muted"],
                   opacity=0.12, line=dict(width=0), layer="below") for x0, x1 in ((-band_to, -sat), (sat, band_to))]
    return _layout(title, height, font_scale, showlegend=False, shapes=shapes,
                   margin=dict(l=y_margin(font_scale, 4), b=bottom, t=top),
                   xaxis=dict(title=dict(text="z = w<sub>x</sub>x<sub>t</sub> + w<sub>h</sub>h<sub>t−1</sub> + b"),
                              range=[-lim, lim], zeroline=True),
                   yaxis=dict(title=dict(text="h<sub>t</sub> = tanh(z)"), range=[-1.1, 1.1], zeroline=True), **more)


def tanh_drag(pre: np.ndarray, h: np.ndarray, size: tuple[int, int, int], font_scale: float = 1.0, title: str = ""
              ) -> go.Figure:
    """The tanh chart as it follows a dragged slider (ui/live/scrub.py): the curve, each step's (z, h), the last step
    ringed with its guides, on the z axis tanh_curve fits to these steps, at `size` (tanh_size of the chart drawn,
    so the chart keeps its place). Left out: the labels, boxes and notes, whose numbers and places change with every
    value. Only points move from one value to the next (the curve, the grey bands and the title are the same for
    every value), so the browser moves them without redrawing the chart (ui/live/scrub.js)."""
    pre, h = np.asarray(pre, float).ravel(), np.asarray(h, float).ravel()
    lim = _z_lim(pre)
    z = np.linspace(-Z_MAX, Z_MAX, 801)  # every axis the chart may take: 0.06 apart, smooth at the narrowest (±4)
    zc, k = np.clip(pre, -lim, lim), len(pre) - 1
    data = [dict(type="scatter", x=z, y=np.tanh(z), mode="lines", hoverinfo="skip",
                 line=dict(color=COLORS["state"], width=3)),
            dict(type="scatter", x=zc[:k], y=h[:k], mode="markers", hoverinfo="skip",
                 marker=dict(color="white", size=10, symbol="circle", line=dict(color=COLORS["state"], width=2))),
            dict(type="scatter", x=[zc[k], zc[k], -Z_MAX], y=[-1.05, h[k], h[k]], mode="lines", hoverinfo="skip",
                 line=dict(color=COLORS["current"], width=1.5, dash="dot")),
            dict(type="scatter", x=zc[k:], y=h[k:], mode="markers", hoverinfo="skip",
                 marker=dict(color=COLORS["state"], size=16, symbol="circle", line=dict(color="white", width=2)))]
    height = size[0]
    layout = _tanh_frame(lim, Z_MAX, title, *size, font_scale)  # the bands out to Z_MAX: the same at every value
    layout["title"].update(text="<br>".join(wrap([title.split(" ")], 14 * font_scale, ASSUMED_WIDTH - 12)),
                           font=dict(size=14 * font_scale), y=1 - TITLE_TOP / height, yanchor="top", yref="container")
    return _fig(data, text_sizes(layout, font_scale))


def tanh_curve(pre: np.ndarray, h: np.ndarray, current: int, font_scale: float = 1.0,
               steps: list[list[list[str]]] | None = None) -> go.Figure:
    """The tanh curve with each step's pre-activation marked; saturated zones (tanh' < 0.1) shaded.

    `pre` and `h` are 1-D (T,); `current` is the 0-based step to emphasise. Frames animate the steps. `steps`, one
    per step: that step's sentence as phrases of pieces (see `wrap`); the chart's title is then the sentence of the
    step it shows, in each animation frame too, so what a viewer reads follows the Play button."""
    pre, h = np.asarray(pre, float).ravel(), np.asarray(h, float).ravel()
    lim = _z_lim(pre)
    z = np.linspace(-lim, lim, 201)  # a smooth curve; more points only cost repaint time
    data = [dict(type="scatter", x=z, y=np.tanh(z), mode="lines", name="h = tanh(z)", hoverinfo="skip",
                 line=dict(color=COLORS["state"], width=3))]

    size, info_size, note_size = 12 * font_scale, 13 * font_scale, max(12.0, 10 * font_scale)
    small = max(11.0, 10 * font_scale)  # 14.5 px on a projector, over its floor
    # the current step's box as drawn where it fits nowhere in full: smaller type, then without the arrow
    info_forms = [(info_size, "→ "), (11.5 * font_scale, "→ "), (small, "→ "), (small, "")]
    title_size, titles = _titles(steps, font_scale)
    height, top, bottom = tanh_size(steps, font_scale)
    note = "grey: flat,<br>tanh′ < 0.1"
    area = ASSUMED_WIDTH - y_margin(font_scale, 4) - 20, height - top - bottom  # px: the plot area assumed
    zs = np.linspace(-lim, lim, 121)  # the curve as the placer takes it: pieces ~2 px wide, each boxed whole

    memo = _placements((pre.tobytes(), h.tobytes(), float(font_scale), area))

    def placed(k: int) -> tuple[list[str], list[str], list[tuple], tuple[int, float, str], int | None]:
        if k not in memo:  # copies out: a figure's lists are its own
            memo[k] = place(k)
        text, pos, far, info, spot = memo[k]
        return list(text), list(pos), list(far), info, spot

    def place(k: int) -> tuple[list[str], list[str], list[tuple], tuple[int, float, str], int | None]:
        """Where the labels of step k's frame go, clear of each other, the markers, the guides and the edges: the
        earlier steps' text and textpositions (at most MAX_LABELS, the latest that fit, from the last MAX_TRIES),
        the labels drawn farther out with a leader line (step, textposition, distance in px), the current step's box
        (an index into info_spots, and its form from info_forms: drawn wherever it is, and taken) and the grey
        note's (an index into note_spots; None: left out). The curve is taken too: no label lies on it."""
        zc = np.clip(pre[: k + 1], -lim, lim)
        room = Placer((-lim, lim), (-1.1, 1.1), *area)
        room.block_curve(zs, np.tanh(zs))
        room.block_points(zc, h[: k + 1], np.where(np.arange(k + 1) == k, 9.0, 6.0))
        room.block_segment(zc[k], -1.05, zc[k], h[k])
        room.block_segment(-lim, h[k], zc[k], h[k])
        for form in info_forms:  # a power of ten is wide: the first form that fits, else the last, drawn anyway
            if (info := room.place_box(info_spots, info_text(k, *form), form[0],
                                       force=form == info_forms[-1])) is not None:
                break
        spot = room.place_box(note_spots(zc[k]), note, note_size)
        tried = list(range(k - 1, max(-1, k - 1 - MAX_TRIES), -1))
        where = room.place_labels(zc[tried], h[tried], [f"t={j + 1}" for j in tried], size, GAP, MAX_LABELS,
                                  LEADERS, LEAD)
        text, pos, far = [""] * k, ["top left"] * k, []
        for j, w in zip(tried, where):
            if isinstance(w, tuple):
                far.append((j, *w))
            elif w:
                text[j], pos[j] = f"t={j + 1}", w
        return text, pos, far, (info, *form), spot

    def leader_trace(k: int, far: list[tuple]) -> dict:
        """Labels drawn farther out: a line from each marker's edge to its label's near corner, the label beyond."""
        zc, kx, ky = np.clip(pre[: k + 1], -lim, lim), 2 * lim / area[0], 2.2 / area[1]
        xs, ys, texts = [], [], []
        for j, name, d in far:
            (sx, sy), (w, hh) = POSITIONS[name], text_size(f"t={j + 1}", size)
            xs += [zc[j] + sx * LEAD * kx, zc[j] + sx * d * kx, None, zc[j] + sx * (d + w / 2) * kx, None]
            ys += [h[j] + sy * LEAD * ky, h[j] + sy * d * ky, None, h[j] + sy * (d + hh / 2) * ky, None]
            texts += ["", "", "", f"t={j + 1}", ""]
        return dict(type="scatter", x=xs, y=ys, text=texts, mode="lines+text", textposition="middle center",
                    textfont=dict(size=size), line=dict(color=COLORS["muted"], width=1), hoverinfo="skip",
                    showlegend=False)

    info_spots = [(-lim * 0.97, y, "left") for y in INFO_Y] + [(lim * 0.97, y, "right") for y in INFO_Y_RIGHT]

    def info_text(k: int, _size: float = 0, arrow: str = "→ ") -> str:
        return f"t={k + 1}<br>z={fmt(pre[k])}<br>{arrow}h={fmt(h[k])}"

    def note_spots(zk: float) -> list[tuple[float, float, str]]:
        """Where the grey note may go: below the curve's right half, either side of the current step's guide."""
        xs = [(lim * 0.97, "right"), (zk - lim * 0.03, "right"), (zk + lim * 0.03, "left"), (lim * 0.03, "left")]
        return [(x, y, side) for y in (-0.55, -0.85, -0.25) for x, side in xs]

    def step_traces(k: int, label: bool = True) -> list[dict]:
        """Step k's marks; with `label`, its earlier steps labelled (the frames of a long run go without: placing
        costs ~5 ms a frame)."""
        zc = np.clip(pre[: k + 1], -lim, lim)
        text, where, far, (info, *form), _ = placed(k) if label else ([""] * k, "top left", [], (0, *info_forms[0]),
                                                                      None)
        return [
            dict(type="scatter", x=zc[:k], y=h[:k], mode="markers+text", name="earlier steps",
                 text=text, customdata=[f"t={j + 1}" for j in range(k)], textposition=where,
                 textfont=dict(size=size),
                 marker=dict(color="white", size=10, symbol="circle", line=dict(color=COLORS["state"], width=2)),
                 hovertemplate="%{customdata}<br>z=%{x:.3f}<br>h=%{y:.3f}<extra></extra>"),
            dict(type="scatter", x=[zc[k], zc[k], -lim], y=[-1.05, h[k], h[k]], mode="lines", hoverinfo="skip",
                 line=dict(color=COLORS["current"], width=1.5, dash="dot"), showlegend=False),
            dict(type="scatter", x=[zc[k], info_spots[info][0]], y=[h[k], info_spots[info][1]], mode="markers+text",
                 name=f"step t = {k + 1}", text=["", info_text(k, *form)],
                 textposition=["middle right", f"middle {'right' if info_spots[info][2] == 'left' else 'left'}"],
                 textfont=dict(size=form[0], color="#222"),
                 marker=dict(color=COLORS["state"], size=[16, 0], symbol="circle", line=dict(color="white", width=2)),
                 hovertemplate="z=%{x:.3f}<br>h=%{y:.3f}<extra></extra>"),
            leader_trace(k, far),
        ]

    cur = int(np.clip(current, 0, len(pre) - 1)) if len(pre) else 0
    spot = placed(cur)[4] if len(pre) else 0
    x, y, side = note_spots(float(np.clip(pre[cur], -lim, lim)) if len(pre) else lim)[spot or 0]
    notes = [] if spot is None else [dict(x=x, y=y, text=note, showarrow=False, xanchor=side, align=side,
                                          font=dict(color="#555", size=note_size))]
    title = titles[cur] if titles else "Where each step lands on tanh"
    layout = _tanh_frame(lim, lim, title, height, top, bottom, font_scale, annotations=notes)
    if titles:  # from the top down, however many lines
        layout["title"].update(font=dict(size=title_size), y=1 - TITLE_TOP / height, yanchor="top", yref="container")
    frames = []
    if len(pre):
        data += step_traces(cur)
        labels, last = [str(k + 1) for k in range(len(pre))], len(pre) - 1
        frames = [dict(data=step_traces(k, last <= FRAMES_LABELLED or k in (cur, last)), traces=[1, 2, 3, 4],
                       name=labels[k], **(dict(layout=dict(title=dict(text=titles[k]))) if titles else {}))
                  for k in range(len(pre))]
        if len(pre) > 1:  # one step has nothing to play
            layout["updatemenus"] = _play_controls(labels, font_scale=font_scale)
    return _fig(data, text_sizes(layout, font_scale), frames)


def states_over_time(h: np.ndarray, x: np.ndarray | None = None, current: int | None = None,
                     font_scale: float = 1.0) -> go.Figure:
    """h_t against t (blue), with the inputs x_t as green bars; the current step ringed. With no steps yet (predict
    mode before the first answer) the axes still show the range tanh can take."""
    h = np.asarray(h, float).ravel()
    t = np.arange(1, len(h) + 1)
    data = []
    if x is not None:
        data.append(dict(type="bar", x=t, y=np.asarray(x, float).ravel(), name="input x<sub>t</sub>",
                         marker=dict(color=COLORS["input"]), opacity=0.45,
                         hovertemplate="t=%{x}<br>x=%{y:.3g}<extra></extra>"))
    data.append(dict(type="scatter", x=t, y=h, mode="lines+markers", name="state h<sub>t</sub>",
                     line=dict(color=COLORS["state"], width=3), marker=dict(size=8, symbol="circle"),
                     hovertemplate="t=%{x}<br>h=%{y:.4f}<extra></extra>"))
    if current is not None and len(h):
        c = int(np.clip(current, 0, len(h) - 1))
        data.append(dict(type="scatter", x=[c + 1], y=[h[c]], mode="markers", name="current step",
                         marker=dict(size=20, symbol="circle-open", color=COLORS["current"], line=dict(width=3))))
    return _fig(data, text_sizes(_layout("h<sub>t</sub> over time", 330, font_scale,
                                         margin=dict(l=y_margin(font_scale, 4), b=x_margin(font_scale)),
                                         xaxis=dict(title=dict(text="time step t"), dtick=1 if len(h) <= 25 else None,
                                                    range=None if len(h) else [0.5, 3.5]),
                                         yaxis=dict(title=dict(text="value"), zeroline=True, zerolinecolor="#999",
                                                    range=None if len(h) else [-1.1, 1.1])),
                                 font_scale))


def cobweb(w_h: float, b: float, path: np.ndarray | None, fixed: list[tuple[float, bool]],
           font_scale: float = 1.0) -> go.Figure:
    """The map h -> tanh(w_h h + b) against the diagonal, the staircase of `path` (None: no staircase), and the
    fixed points."""
    hh = np.linspace(-1.05, 1.05, 141)
    data = [dict(type="scatter", x=[-1.05, 1.05], y=[-1.05, 1.05], mode="lines", name="diagonal: next h = h",
                 line=dict(color=COLORS["muted"], dash="dash")),
            dict(type="scatter", x=hh, y=np.tanh(w_h * hh + b), mode="lines",
                 name="next h = tanh(w<sub>h</sub>h + b)", line=dict(color=COLORS["state"], width=3))]
    if path is not None and len(path) > 1:
        xs, ys = [path[0]], [path[0]]
        for a, c in zip(path[:-1], path[1:]):
            xs += [a, c]
            ys += [c, c]
        data += [dict(type="scatter", x=xs, y=ys, mode="lines", name="cobweb: silent steps from h<sub>1</sub>",
                      line=dict(color=COLORS["current"], width=1.5)),
                 dict(type="scatter", x=[path[0]], y=[path[0]], mode="markers", name="start: h<sub>1</sub>",
                      marker=dict(color=COLORS["current"], size=11, symbol="triangle-up"))]
    for h_star, stable in fixed:
        data.append(dict(type="scatter", x=[h_star], y=[h_star], mode="markers", showlegend=False,
                         marker=dict(size=14, symbol="circle" if stable else "circle-open", color=COLORS["weight"],
                                     line=dict(width=2.5, color=COLORS["weight"])),
                         hovertemplate=f"fixed point h* = {h_star:.4f} ({'stable' if stable else 'unstable'})"
                                       "<extra></extra>"))
    kinds = {stable for _, stable in fixed}  # the legend names only the kinds of fixed point there are
    key = {True: dict(type="scatter", x=[None], y=[None], mode="markers", name="stable fixed point",
                      marker=dict(size=12, symbol="circle", color=COLORS["weight"])),
           False: dict(type="scatter", x=[None], y=[None], mode="markers", name="unstable fixed point",
                       marker=dict(size=12, symbol="circle-open", color=COLORS["weight"], line=dict(width=2.5)))}
    data += [key[stable] for stable in (True, False) if stable in kinds]
    return _fig(data, text_sizes(_layout("Fixed points of the silent cell", 560, font_scale,
                                         margin=dict(l=y_margin(font_scale, 4), b=grown(font_scale, 200, 245)),
                                         xaxis=dict(title=dict(text="h, the state now"), range=[-1.05, 1.05]),
                                         yaxis=dict(title=dict(text="next h, with no input"), range=[-1.05, 1.05],
                                                    scaleanchor="x", scaleratio=1),
                                         legend=dict(orientation="h", y=-0.2, x=0, xanchor="left", yanchor="top")),
                                 font_scale))
