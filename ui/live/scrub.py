"""Charts that follow a slider while it is dragged. Streamlit sends a slider's value only on release, so a chart
would stay frozen through a drag and jump at the end. The server computes the chart at the slider's notches near its
value ahead (rnnviz/live/frames.py: the page's own figure function, or for a chart whose words change with every
value a form of it without them (`whole`), at most SPAN values, once per setting, kept per server in FRAMES), and
scrub.js shows the frame of whatever value the thumb holds while the mouse is down, on the chart that chart.js
drew. A drag that passes the end of those notches asks for the ones around the thumb (`ahead`), computed the
same way. On release the page reruns and draws as it always did. A key press on the slider shows the new value's frame
at once, where the frames are the chart's own figures: the rerun then sends that figure again, and chart.js, which
knows it by its digest, leaves it drawn.

The frames are computed in the background (one computation per server at a time, SharedCache.fill_ahead), never in
the visitor's rerun: until they are ready the component says so and asks for a rerun of its own fragment, which
only reads the cache. Anything missing (no live charts, no frames, a value outside them) leaves the page as it was.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Callable

import streamlit as st

from rnnviz.lessons.cache import SharedCache
from rnnviz.live.frames import SPAN, encoded, figure_frames, notches
from ui.limits import fragment
from ui.live import chart
from ui.live.assets import component_js
from ui.urlstate import classroom
from ui.widgets import fig_at_least

FRAMES = SharedCache(32 * 2 ** 20)  # per server: ~2-60 kB per slider and setting
DELAY = 0.25  # s: a fill after a new setting waits this long, so that the page's rerun goes first
_CSS = "[class*='st-key-scrub-'] {\n  display: none !important;\n}"  # it draws nothing: no gap either
_scrub = st.components.v2.component("rnnviz_scrub", js=component_js("scrub.js"), css=_CSS, isolate_styles=False)


@dataclass(frozen=True)
class Scrub:
    """One slider and the chart that follows it: `build(v)` is the chart's figure with the slider at v, and `setting`
    is everything else the figure depends on (with the value's notches, the key of its frames)."""

    slider: str  # the slider's widget key
    chart: str  # the chart's key (ui.widgets.plot)
    setting: tuple
    value: float
    lo: float
    hi: float
    step: float
    build: Callable[[float], object] = field(compare=False, repr=False)
    span: int = SPAN
    whole: bool = False  # the frames are a form of the chart of their own, drawn whole as a drag begins

    def values(self) -> list[float]:
        return notches(self.value, self.lo, self.hi, self.step, self.span)

    def key(self) -> tuple:
        v = self.values()
        return (self.slider, self.chart, self.setting, v[0], v[-1])


def each_slider(page: str, chart: str, now: dict[str, float], ranges: dict[str, tuple[float, float, float]],
                setting: tuple, figure: Callable[..., object], whole: bool = False) -> list[Scrub]:
    """One Scrub for each slider in `now` (its widget key `page.name`, its range and step in `ranges`) and the chart
    `page.chart`: each frame is `figure(**now)` with that slider moved; a frame set's key is `setting` and the other
    sliders' values."""
    def build(name: str):
        return lambda v: figure(**{**now, name: v})
    return [Scrub(f"{page}.{name}", f"{page}.{chart}", setting + tuple(u for k, u in now.items() if k != name),
                  now[name], *ranges[name], build(name), whole=whole) for name in now]


def _at_least(build: Callable[[float], object]) -> Callable[[float], object]:
    return lambda v: fig_at_least(build(v))


def _compute(item: Scrub) -> bytes:
    return encoded(figure_frames(item.build, item.values(), item.whole))


def _fill(missing: list[Scrub]) -> None:
    """Compute every missing frame set, one after the other, in one background thread."""
    for item in missing:
        FRAMES.get(item.key(), lambda: _compute(item), len)


def _gone():
    raise LookupError


def _cached(key: tuple) -> bytes:
    """A frame set at hand, or null (evicted meanwhile: nothing is computed here)."""
    try:
        return FRAMES.get(key, _gone)
    except LookupError:
        return b"null"


def ahead(asked, sliders: dict[str, Scrub], kept: dict) -> tuple[str | None, dict[str, float]]:
    """A drag that passes the end of its frames asks for the window around the thumb ("<slider>@<value>": the slider's
    value is still the one before the drag, as Streamlit hears of it on release). The asked slider, and the values
    whose windows stand in for the sliders' own: kept (in `kept`) while the slider is where the drag began, so the
    polls that fetch the frames carry them too; a released slider has a window of its own again."""
    if isinstance(asked, str) and "@" in asked:
        name, _, value = asked.partition("@")
        try:
            v = float(value)
        except ValueError:
            v = float("nan")
        item = sliders.get(name)
        if item is not None and item.lo <= v <= item.hi:  # never outside the slider: a made-up value asks nothing
            kept[name] = (item.value, v)
        asked = name
    for name in list(kept):
        if name not in sliders or sliders[name].value != kept[name][0]:
            del kept[name]
    return asked, {name: v for name, (_, v) in kept.items()}


@fragment
def scrubs(page: str, items: list[Scrub]) -> None:
    """The page's scrubbed sliders (nothing visible). Frames are computed only for the sliders this visitor reaches
    for (scrub.js asks when the pointer reaches a slider, before the press, or the keyboard's focus has rested on it),
    and from then on for each new setting: a visitor who never drags or keys costs nothing, and one who does, only
    the sliders they use. Frames at hand are sent; those missing are computed in the background, and the last frames
    this visit had for the same setting (still exact for their values) stand in."""
    if not chart.live():
        return
    if classroom():  # a projector's charts are drawn with fig_at_least (ui.widgets.plot): their frames too
        items = [replace(i, setting=i.setting + ("classroom",), build=_at_least(i.build)) for i in items]
    wanted = st.session_state.setdefault(f"scrub.{page}.wanted", set())
    sliders = {i.slider: i for i in items}
    asked = (st.session_state.get(f"scrub.{page}") or {}).get("want")  # this run's ask (the component's trigger)
    asked, at = ahead(asked, sliders, st.session_state.setdefault(f"scrub.{page}.ahead", {}))
    if asked in sliders:  # the pointer reached a slider: its frames, now and for each new setting
        wanted.add(asked)
    parts, missing = [], []
    for item in items:
        # the windows a drag asked for, newest last: one already computed stands in while the thumb runs ahead
        trail = st.session_state.setdefault(f"scrub.{item.slider}.{item.chart}.trail", [])
        if item.slider in at:  # a drag past its window's end: the window around the thumb instead
            item = replace(item, value=at[item.slider])
        key, last = item.key(), st.session_state.get(f"scrub.{item.slider}.{item.chart}")
        if item.slider in at:
            trail[:] = [k for k in trail if k != key][-7:] + [key]
        if key in FRAMES:
            st.session_state[f"scrub.{item.slider}.{item.chart}"] = key
        else:
            if item.slider in wanted:
                missing.append(item)
            key = next((k for k in [*trail[::-1], last] if k and k[:3] == key[:3] and k in FRAMES), None)
        frames = _cached(key) if key else b"null"
        parts.append(b'{"slider":"%s","chart":"%s","frames":%s}' % (item.slider.encode(), item.chart.encode(), frames))
    if missing:  # after a new setting, a pause: that rerun goes first (the computation would share its interpreter)
        FRAMES.fill_ahead(("fill",) + tuple(m.key() for m in missing), lambda: _fill(missing) or b"",
                          delay=0.0 if asked in sliders else DELAY)
    polls = st.session_state["scrub.polls"] = st.session_state.get("scrub.polls", 0) + bool(missing)
    # while pending, each run's data differs (a new count), so scrub.js runs again and schedules the next look
    data = b'{"pending":%s,"poll":%d,"wanted":%s,"items":[%s]}' % (
        b"true" if missing else b"false", polls, json.dumps(sorted(wanted)).encode(), b",".join(parts))
    _scrub(key=f"scrub.{page}", data=data, height=0, on_ready_change=lambda: None, on_want_change=lambda: None)
