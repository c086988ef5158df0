"""Text in figures sized for the page's font scale (projector mode), over Streamlit's chart theme."""
from __future__ import annotations

import re

_AXIS = re.compile(r"^([xy])axis(\d*)$")


def text_sizes(lay: dict, font_scale: float = 1.0, axes: tuple[str, ...] = ("xaxis", "yaxis")) -> dict:
    """Tick labels, axis titles and the legend sized with the page's font scale. Streamlit's chart theme fixes them
    at 12-14 px otherwise, whatever the figure's base font, which is too small on a projector."""
    for name in set(axes) | {k for k in lay if _AXIS.match(k)}:
        ax = lay.setdefault(name, {})
        ax.setdefault("tickfont", {})["size"] = 12 * font_scale
        title = ax.setdefault("title", {})
        title.setdefault("font", {})["size"] = 14 * font_scale
    for name in [k for k in lay if k.startswith("legend")] or ["legend"]:
        lay.setdefault(name, {}).setdefault("font", {})["size"] = 13 * font_scale
    return lay


def _texts(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)):
        return [v for v in value if isinstance(v, str)]
    return []


def _floor(holder: dict, key: str, texts: list[str], least: float, sub: float) -> None:
    """Raise holder[key]['size'] to `least` px, or so that a sub- or superscript is `least` px (Plotly draws them at
    `sub` of the size) where any of `texts` has one."""
    need = least / sub if any("<sub>" in t or "<sup>" in t for t in texts) else least
    font = holder.setdefault(key, {}) if isinstance(holder.get(key, {}), dict) else None
    size = font.get("size") if font is not None else None
    if font is not None and (size is None and need > least or isinstance(size, (int, float)) and size < need):
        font["size"] = round(need, 1)


LEAST = 14.0  # px: the projector's floor for any text
SUB = 0.7  # the size Plotly draws sub- and superscripts at, as a fraction of their text's


def at_least(spec: dict, least: float = LEAST, sub: float = SUB) -> dict:
    """A figure spec (plain dicts) whose every text is at least `least` px, sub- and superscripts included: titles,
    axis titles and ticks, legend entries, annotations, trace text and colour bars (the projector's floor)."""
    lay = spec.setdefault("layout", {})
    data = list(spec.get("data") or [])
    for frame in spec.get("frames") or []:
        data += frame.get("data") or []
    title = lay.get("title")
    if isinstance(title, dict):
        _floor(title, "font", _texts(title.get("text")), least, sub)
    for ann in lay.get("annotations") or []:
        _floor(ann, "font", _texts(ann.get("text")), least, sub)
    for name in [k for k in lay if _AXIS.match(k)]:
        ax = lay[name]
        _floor(ax, "tickfont", _texts(ax.get("ticktext")), least, sub)
        if isinstance(ax.get("title"), dict):
            _floor(ax["title"], "font", _texts(ax["title"].get("text")), least, sub)
    names = [t.get("name") for t in data if isinstance(t.get("name"), str) and t.get("showlegend", True)]
    for name in [k for k in lay if k.startswith("legend")] or ["legend"]:
        _floor(lay.setdefault(name, {}), "font", names, least, sub)
    for trace in data:
        if "text" in trace or "texttemplate" in trace:
            _floor(trace, "textfont", _texts(trace.get("text")), least, sub)
        if isinstance(trace.get("colorbar"), dict):
            _floor(trace["colorbar"], "tickfont", [], least, sub)
    return spec
