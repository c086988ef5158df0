"""Figures for the sampling page: the text as light markup shaded per character, a distribution as bars in
markup, the state grid, and gate saturation (after Karpathy, Johnson and Fei-Fei 2015).

The text and bars are HTML built only from `html.escape`d characters and numbers, never raw visitor text.
Their colours are this page's own scales, not the four role colours: purple for "how much" (improbable,
surprising, or moving the prediction), and blue (positive) against purple (negative) for a hidden unit.
"""
from __future__ import annotations

import functools
import html

import numpy as np
import plotly.graph_objects as go

from rnnviz.figures.base import COLORS, DIVERGING, _axis_name, _columns, _fig, _in, _layout, _rows
from rnnviz.figures.fonts import text_sizes

SEQUENTIAL = [(0.0, "#ffffff"), (0.4, "#f3d3e7"), (1.0, "#b8569a")]  # white to purple, light enough to read on
SIGNED = [(float(s), c) for s, c in DIVERGING]  # the house's signed scale: purple negative, white 0, grey positive
GATE_STYLE = {"i": ("#CC79A7", "circle"), "f": (COLORS["gate"], "square"), "o": ("#222222", "diamond"),
              "r": ("#CC79A7", "circle"), "z": (COLORS["gate"], "square")}
GATE_NAMES = {"i": "input gate i", "f": "forget gate f", "o": "output gate o", "r": "reset gate r",
              "z": "update gate z"}
MODEL_BAR, SAMPLED_BAR = "#9e9e9e", COLORS["output"]


def _rgb(hex_colour: str) -> np.ndarray:
    return np.array([int(hex_colour[k:k + 2], 16) for k in (1, 3, 5)], float)


def colours(values: np.ndarray, lo: float, hi: float, scale=SEQUENTIAL) -> list[str | None]:
    """Each value's colour on `scale` between lo and hi (clipped); None for NaN."""
    v = np.asarray(values, float)
    x = np.clip((v - lo) / (hi - lo if hi > lo else 1.0), 0, 1)
    stops = np.array([s for s, _ in scale])
    rgb = np.stack([_rgb(c) for _, c in scale])  # (S, 3)
    out = np.stack([np.interp(np.nan_to_num(x), stops, rgb[:, k]) for k in range(3)], axis=1).round().astype(int)
    return [None if np.isnan(a) else "#%02x%02x%02x" % tuple(c) for a, c in zip(v, out)]


def _luminance(hex_colour: str) -> float:
    c = _rgb(hex_colour) / 255
    c = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return float(c @ [0.2126, 0.7152, 0.0722])


@functools.lru_cache(maxsize=4096)  # a text has ~10^3 characters and far fewer distinct colours
def _ink(bg: str | None) -> str:
    """Dark text (#111) unless white reads better on this background (WCAG contrast)."""
    if bg is None:
        return ""
    lum = _luminance(bg)
    return ";color:#fff" if 1.05 / (lum + 0.05) > (lum + 0.05) / (_luminance("#111111") + 0.05) else ""


def text_markup(text: str, values: np.ndarray, lo: float, hi: float, signed: bool = False,
                titles: list[str] | None = None, selected: int | None = None, unread_after: int | None = None,
                font_scale: float = 1.0) -> str:
    """The text as spans, one per character, each with its colour and a title (hover text); a line break shows
    as ↵ and breaks the line. `selected` is outlined; characters after `unread_after` are faded.
    Built only from escaped characters and numbers: safe for any text. The same arguments give the same text, kept
    for the last few (`_markup`)."""
    v = np.ascontiguousarray(values, float)
    return _markup(text, v.tobytes(), lo, hi, signed, None if titles is None else tuple(titles), selected,
                   unread_after, font_scale)


# A rerun that moves the inspected position, and a class sampling the same seeds, ask for the same markup again: ~10
# microseconds to look up against ~5 ms of Python per 500 characters to build. 32 texts of ~0.1-0.3 MB with their keys.
@functools.lru_cache(maxsize=32)
def _markup(text: str, values: bytes, lo: float, hi: float, signed: bool, titles: tuple[str, ...] | None,
            selected: int | None, unread_after: int | None, font_scale: float) -> str:
    bgs = colours(np.frombuffer(values, float), lo, hi, SIGNED if signed else SEQUENTIAL)
    parts = [f'<div class="tv" style="font-size:{15 * font_scale:.0f}px">']
    for i, ch in enumerate(text):
        cls = " ".join(c for c, on in (("sel", i == selected), ("nl", ch == "\n"),
                                       ("na", unread_after is not None and i > unread_after)) if on)
        style = f' style="background:{bgs[i]}{_ink(bgs[i])}"' if bgs[i] else ""
        title = f' title="{html.escape(titles[i], quote=True)}"' if titles else ""
        shown = "↵" if ch == "\n" else "→" if ch == "\t" else html.escape(ch, quote=True)
        parts.append(f'<span data-i="{i}"' + (f' class="{cls}"' if cls else "") + f"{style}{title}>{shown}</span>"
                     + ("<br>" if ch == "\n" else ""))
    parts.append("</div>")
    return "".join(parts)


def dist_markup(rows: list[tuple[str, float, float | None]], model_name: str, sampled_name: str | None,
                font_scale: float = 1.0) -> str:
    """A distribution's most likely characters as a table of bars: the model's (grey) and, if given, the one
    actually sampled from (red, an output). Rows: (character label, model p, sampled p or None)."""
    e = lambda s: html.escape(str(s), quote=True)  # noqa: E731
    fs = 14 * font_scale
    bar = lambda p, colour: (f'<td style="padding:1px 6px;width:42%"><div style="display:flex;align-items:center;'  # noqa: E731
                             f'gap:6px"><div data-bar style="height:{0.75 * fs:.0f}px;width:{max(p, 0) * 100:.1f}%;'
                             f'background:{colour};min-width:1px"></div><span>{p:.3f}</span></div></td>')
    head = (f'<tr><th style="text-align:left;padding:1px 6px">next</th><th style="text-align:left;padding:1px 6px">'
            f'<span style="color:{MODEL_BAR}">■</span> {e(model_name)}</th>'
            + (f'<th style="text-align:left;padding:1px 6px"><span style="color:{SAMPLED_BAR}">■</span> '
               f'{e(sampled_name)}</th>' if sampled_name else "") + "</tr>")
    body = "".join(f'<tr><td style="padding:1px 6px;font-family:monospace;font-size:{fs * 1.1:.0f}px">{e(lab)}</td>'
                   + bar(pm, MODEL_BAR) + (bar(ps or 0.0, SAMPLED_BAR) if sampled_name else "") + "</tr>"
                   for lab, pm, ps in rows)
    return (f'<table style="border-collapse:collapse;width:100%;font-size:{fs:.0f}px;'
            f'font-variant-numeric:tabular-nums">{head}{body}</table>')


def units_markup(rows: list[dict], font_scale: float = 1.0, note: str = "") -> str:
    """The unit ranking as a table: feature, unit, a bar for the size |r| of the correlation, r itself, and the
    direction in words (rows from `ui.sample.words.unit_rows`; all text escaped)."""
    e = lambda s: html.escape(str(s), quote=True)  # noqa: E731
    fs, pad = 14 * font_scale, "padding:2px 8px"
    head = "".join(f'<th style="text-align:left;{pad}">{h}</th>'
                   for h in ("feature", "unit", "strength |r|", "r", "direction"))
    body = "".join(
        f'<tr style="border-top:1px solid #eee"><td style="{pad}" title="{e(r["what"])}">{e(r["feature"])}</td>'
        f'<td style="{pad};white-space:nowrap">{e(r["unit"])}</td><td style="{pad};width:30%"><div style="display:flex;'
        f'align-items:center;gap:6px"><div style="height:{0.7 * fs:.0f}px;width:{r["strength"] * 100:.1f}%;'
        f'background:{COLORS["state"]}"></div></div></td><td style="{pad};font-variant-numeric:tabular-nums">'
        f'{e(r["r"])}</td>'
        f'<td style="{pad}">{e(r["direction"])}</td></tr>' for r in rows)
    return (f'<table style="border-collapse:collapse;width:100%;font-size:{fs:.0f}px"><tr>{head}</tr>{body}</table>'
            + (f'<div style="font-size:{0.9 * fs:.1f}px;color:#666;margin-top:6px">{e(note)}</div>' if note else ""))


def state_grid(h_layers: np.ndarray, title: str = "", font_scale: float = 1.0) -> go.Figure:
    """Each layer's state (L, H) folded into a compact grid of cells, layers side by side: blue positive, purple
    negative (this page's signed scale)."""
    L, H = h_layers.shape
    cols = int(np.ceil(np.sqrt(H * 2)))
    rows = int(np.ceil(H / cols))
    lay = _layout(title, 300 * font_scale, font_scale, margin=dict(l=10, r=10, t=60 if title else 30, b=10),
                  **_columns(L, 0.04, titles=[f"layer {k + 1}" for k in range(L)], font_scale=font_scale))
    scale = [[s, c] for s, c in SIGNED]
    data = []
    for k in range(L):
        z = np.full(rows * cols, np.nan)
        z[:H] = h_layers[k]
        idx = np.full(rows * cols, 0)
        idx[:H] = np.arange(1, H + 1)  # units count from 1, as on every page
        data.append(_in(dict(type="heatmap", z=z.reshape(rows, cols), customdata=idx.reshape(rows, cols), zmin=-1,
                             zmax=1, colorscale=scale, showscale=k == L - 1, xgap=1, ygap=1,
                             colorbar=dict(thickness=10, len=0.9),
                             hovertemplate="unit %{customdata}: %{z:.3f}<extra>layer " + str(k + 1) + "</extra>"),
                        k + 1))
        lay[_axis_name("x", k + 1)].update(visible=False)
        lay[_axis_name("y", k + 1)].update(visible=False, autorange="reversed")
    return _fig(data, lay)


def saturation_figure(sat: list[dict[str, tuple[np.ndarray, np.ndarray]]], font_scale: float = 1.0,
                      title: str = "") -> go.Figure:
    """One panel per layer, one dot per unit and gate at (fraction of steps below 0.1, fraction above 0.9)."""
    L = len(sat)
    # the key to the colours under the title, above the panels: under the x axes it sat below a projector's first
    # screen (a lecturer's walk), the dots unnamed there
    height, top = round(430 * font_scale), round(100 * font_scale)
    lay = _layout(title, height, font_scale, margin=dict(l=70, r=20, t=top, b=round(60 * font_scale)),
                  legend=dict(orientation="h", x=0, xanchor="left", yref="container", y=1 - 42 * font_scale / height,
                              yanchor="top"),
                  **_columns(L, 0.08, titles=[f"layer {k + 1}" for k in range(L)], font_scale=font_scale))
    lay["title"].update(yref="container", y=1 - 10 * font_scale / height, yanchor="top")
    data = []
    for k, layer in enumerate(sat):
        for g, (below, above) in layer.items():
            colour, symbol = GATE_STYLE[g]
            data.append(_in(dict(type="scattergl", x=below, y=above, mode="markers", name=GATE_NAMES[g],
                                 legendgroup=g, showlegend=k == 0, customdata=np.arange(1, len(below) + 1),
                                 marker=dict(color=colour, symbol=symbol, size=5 * font_scale, opacity=0.55),
                                 hovertemplate=f"{g}, layer {k + 1}, unit " + "%{customdata}: below 0.1 %{x:.2f}, "
                                               "above 0.9 %{y:.2f}<extra></extra>"), k + 1))
            data.append(_in(dict(type="scatter", x=[0, 1], y=[1, 0], mode="lines", hoverinfo="skip", showlegend=False,
                                 line=dict(color=COLORS["grid"], width=1)), k + 1))
        lay[_axis_name("x", k + 1)].update(range=[-0.03, 1.03], title=dict(text="fraction of steps below 0.1"))
        # the first panel's title names the y axis of all of them: a second one would not fit in the gap
        lay[_axis_name("y", k + 1)].update(range=[-0.03, 1.03],
                                           title=dict(text="" if k else "fraction of steps above 0.9"))
    return _fig(data, text_sizes(lay, font_scale))


def closed_share_figure(closed: list[dict[str, np.ndarray]], bins: int = 160, font_scale: float = 1.0,
                        title: str = "") -> go.Figure:
    """Per layer, the share of units whose gate is closed (below 0.1) along the text (a line per gate), on a log
    axis of position: the first characters one by one, later ones averaged over ever wider stretches."""
    L = len(closed)
    lay = _layout(title, (150 * L + 110) * font_scale, font_scale, margin=dict(l=70, r=20, t=80, b=50),
                  **_rows(L, 0.12, titles=[f"layer {k + 1}" for k in range(L)], font_scale=font_scale))
    data = []
    for k, layer in enumerate(closed):
        for g, share in layer.items():
            T = len(share)
            edges = np.unique(np.r_[0, np.geomspace(1, T, bins).round().astype(int)])
            a, b = edges[:-1], edges[1:]  # the stretches [a, b): their means at once (a loop of ~160 means per line
            ys = (np.add.reduceat(np.asarray(share, float), a) / (b - a)).tolist()  # took ~1 ms per line)
            xs = ((a + b - 1) / 2 + 1).tolist()  # 1-based: the first character is 1
            colour, symbol = GATE_STYLE[g]
            data.append(_in(dict(type="scatter", x=xs, y=ys, mode="lines", name=GATE_NAMES[g], legendgroup=g,
                                 showlegend=k == 0, line=dict(color=colour, width=2, dash="dot" if g == "i" else None),
                                 hovertemplate=f"{g}, layer {k + 1}: "
                                               + "%{y:.0%} of units closed near character %{x:.0f}<extra></extra>"),
                            k + 1))
        lay[_axis_name("y", k + 1)].update(range=[0, 1], tickformat=".0%", title=dict(text="closed"))
    for k in range(1, L + 1):
        lay[_axis_name("x", k)].update(type="log", dtick=1)  # powers of ten only: no tiny 2s and 5s between them
    lay[_axis_name("x", L)].update(title=dict(text="character number (log scale: the start of the text spread out)"))
    return _fig(data, text_sizes(lay, font_scale))


def kl_figure(kl: np.ndarray, first_change: int | None = None, selected: int | None = None, font_scale: float = 1.0,
              title: str = "", first: int = 0) -> go.Figure:
    """KL(before ‖ after) at each character (nats), one bar per position; the first character where the two texts
    part ways and the one inspected are marked (positions index `kl`; the axis numbers characters from `first`)."""
    x = first + np.arange(len(kl))
    lay = _layout(title, 250 * font_scale, font_scale, margin=dict(l=70, r=20, t=60 if title else 20, b=60),
                  showlegend=False, bargap=0)
    lay["xaxis"] = dict(title=dict(text="character number"), range=[first, first + max(len(kl) - 1, 1)])
    lay["yaxis"] = dict(title=dict(text="KL(before ‖ after), nats"), rangemode="tozero")
    shapes = []
    for at, colour, dash in ((first_change, COLORS["output"], "dot"), (selected, "#111111", None)):
        if at is not None and 0 <= at < len(kl):
            shapes.append(dict(type="line", x0=first + at, x1=first + at, y0=0, y1=1, yref="y domain",
                               line=dict(color=colour, width=1.5, dash=dash)))
    lay["shapes"] = shapes
    data = [dict(type="bar", x=x, y=np.nan_to_num(kl), marker=dict(color=SEQUENTIAL[-1][1], line=dict(width=0)),
                 hovertemplate="character %{x}: KL %{y:.4f} nats<extra></extra>")]
    return _fig(data, text_sizes(lay, font_scale))


def parted_markup(text: str, first_change: int | None, font_scale: float = 1.0) -> str:
    """A text in monospace, faded up to `first_change` (where it is the same as the text it is compared with) and
    plain from there (escaped: safe for any text)."""
    cut = len(text) if first_change is None else first_change
    same, rest = (html.escape(t, quote=True).replace("\n", "↵<br>") for t in (text[:cut], text[cut:]))
    return (f'<div style="font-family:\'DejaVu Sans Mono\',Menlo,Consolas,monospace;font-size:{15 * font_scale:.0f}px;'
            f'line-height:1.55;white-space:pre-wrap;overflow-wrap:anywhere;color:#111"><span style="opacity:0.4">'
            f'{same}</span>{rest}</div>')


def table_markup(head: tuple[str, ...], rows: list[tuple[str, ...]], font_scale: float = 1.0) -> str:
    """A plain table of text (all escaped), numbers in tabular figures; the first column left, the others right."""
    e = lambda s: html.escape(str(s), quote=True)  # noqa: E731
    pad = "padding:2px 8px"
    cell = lambda k, v, t="td": (f'<{t} style="{pad};text-align:{"left" if k < 2 else "right"}">{e(v)}</{t}>')  # noqa: E731
    body = "".join('<tr style="border-top:1px solid #eee">' + "".join(cell(k, v) for k, v in enumerate(r)) + "</tr>"
                   for r in rows)
    return (f'<table style="border-collapse:collapse;width:100%;font-size:{14 * font_scale:.0f}px;'
            f'font-variant-numeric:tabular-nums"><tr>{"".join(cell(k, h, "th") for k, h in enumerate(head))}</tr>'
            f"{body}</table>")
