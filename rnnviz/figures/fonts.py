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
