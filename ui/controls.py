"""Every control a page shows, declared once: its label, help, range and step (or options), default, link key and
whether a drag scrubs a chart. The widget, the link's parser, the notice that names a bad link value, the drag frames'
range and a class question's setup all read that one declaration (TensorFlow Playground's property table).

A page declares its controls as `Controls(page, Control(...), ...)`, calls `controls.widget(name)` where the widget
goes, and hands `controls.params` to `ui.urlstate.restore` / `publish`. This is the one module that calls
`st.slider`, `st.select_slider` and `st.number_input`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import streamlit as st

from ui.urlstate import Param, choice, dump_flag, flag, integer, name_controls, number, text

DECLARED: dict[str, Control] = {}  # widget key -> its declaration, for every page's controls (this server's)
KINDS = ("slider", "select", "number", "text", "area", "toggle", "radio", "segmented", "selectbox", "expander")


@dataclass(frozen=True)
class Control:
    """One setting a visitor changes: how its widget looks, what a link may say of it, and what it scrubs."""

    name: str  # the setting's name on its page: the widget key is "<page>.<name>"
    label: str  # the widget's label, and how a notice about a link names it
    default: Any
    kind: str = "slider"  # one of KINDS
    lo: float | None = None  # slider / number: the range a link may set (a page may narrow the widget's at run time)
    hi: float | None = None
    step: float | None = None
    options: tuple = ()  # select / radio / segmented / selectbox: the choices, in order
    url: str | None = None  # the link's key; None: links do not carry it
    help: str | None = None
    max_chars: int = 2000  # text / area: the longest value a link or the box accepts
    scrub: bool = False  # a drag moves the chart beside it from frames (ui/scrub.py)
    parse: Callable[[str], Any] | None = field(default=None, compare=False)  # a link parser other than the kind's own
    dump: Callable[[Any], str] | None = field(default=None, compare=False)
    widget_kw: dict = field(default_factory=dict, compare=False)  # what the widget always takes (format, format_func)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"{self.name}: kind {self.kind!r} is not one of {', '.join(KINDS)}")

    def parser(self) -> Callable[[str], Any]:
        """What a link's value must be to be taken: on the slider's notches, within the range, one of the options."""
        if self.parse is not None:
            return self.parse
        if self.kind in ("slider", "number"):
            if isinstance(self.default, bool) or self.lo is None or self.hi is None:
                raise ValueError(f"{self.name}: a {self.kind} needs lo and hi")
            if _integral(self.lo, self.hi, self.step, self.default):
                lo, hi, step = int(self.lo), int(self.hi), int(self.step or 1)
                return integer(lo, hi) if step == 1 else _multiple_of(step, lo, hi)
            return number(self.lo, self.hi, self.step)
        if self.kind in ("select", "radio", "segmented", "selectbox"):
            if self.options and not all(isinstance(o, str) for o in self.options):
                return _notch(self.options)
            return choice(list(self.options))
        if self.kind in ("toggle", "expander"):
            return flag
        return text(self.max_chars)

    @property
    def span(self) -> tuple[float, float, float]:
        """(lo, hi, step): the notches a drag's frames cover; a select slider's are its options' positions (0, 1,
        ...), which its range input holds (ui/live/scrub.js reads the thumb), not the options themselves. An integer
        slider's are integers (rnnviz/live/schedule.py keeps them so), what the page's own calls take."""
        if self.kind == "select":
            return 0.0, float(len(self.options) - 1), 1.0
        if _integral(self.lo, self.hi, self.step, self.default):
            return self.lo, self.hi, self.step or 1
        return float(self.lo), float(self.hi), float(self.step)


def _integral(*values) -> bool:
    return all(v is None or (isinstance(v, int) and not isinstance(v, bool)) for v in values)


def _multiple_of(step: int, lo: int, hi: int) -> Callable[[str], int]:
    def parse(s: str) -> int:
        v = int(s)
        if not lo <= v <= hi or (v - lo) % step:
            raise ValueError(s)
        return v
    return parse


def _notch(options: tuple) -> Callable[[str], Any]:
    """A select slider's numeric options: a link's number must be one of them exactly, never a value between."""
    def parse(s: str):
        v = float(s)
        if v not in options:
            raise ValueError(s)
        return next(o for o in options if o == v)
    return parse


class Controls:
    """A page's controls, in the order it declares them."""

    def __init__(self, page: str, *controls: Control):
        self.page = page
        self._by_name = {c.name: c for c in controls}
        if len(self._by_name) != len(controls):
            raise ValueError(f"{page}: two controls share a name")
        name_controls({self.key(c.name): c.label for c in controls})  # notices about a link name the label
        DECLARED.update({self.key(c.name): c for c in controls})

    def __getitem__(self, name: str) -> Control:
        return self._by_name[name]

    def __iter__(self):
        return iter(self._by_name.values())

    def key(self, name: str) -> str:
        """The widget's key (and session-state key): the page's name first, so two pages never share one."""
        return f"{self.page}.{name}"

    @property
    def params(self) -> list[Param]:
        """What links carry of this page: each control with a link key, its parser and default."""
        return [Param(self.key(c.name), c.url, c.default, c.parser(), c.dump or
                      (dump_flag if c.kind in ("toggle", "expander") else str)) for c in self if c.url]

    def params_of(self, *names: str) -> list[Param]:
        """What links carry of the controls named (a part of the page that publishes its own), in declared order."""
        return [p for p in self.params if p.key.removeprefix(self.page + ".") in names]

    def defaults(self) -> dict[str, Any]:
        return {c.name: c.default for c in self}

    def spans(self, *names: str) -> dict[str, tuple[float, float, float]]:
        """(lo, hi, step) of each scrubbed slider (those named, or all that scrub)."""
        return {c.name: c.span for c in self if (c.name in names if names else c.scrub)}

    def value(self, name: str) -> Any:
        """This visit's value of a setting (its widget's, or the default before the widget exists)."""
        return st.session_state.get(self.key(name), self[name].default)

    def widget(self, name: str, where: Any = None, label: str | None = None, **kw) -> Any:
        """Draw the control's widget (in `where`: a column or container; the page's current place otherwise) and
        return its value. `kw` passes what changes at run time (disabled, on_change, a narrower `hi` for a slider
        whose end depends on the data, `options` that depend on it, label_visibility); `label` a wording for one view
        (a notice about a link keeps the declared one)."""
        c = self[name]
        at = where if where is not None else st
        kw = {**c.widget_kw, "key": self.key(name), "help": c.help, **kw}
        label = c.label if label is None else label
        options = list(kw.pop("options", c.options))
        if kw["key"] not in st.session_state:  # a control no link carries (restore seeds the others' state)
            if c.kind in ("radio", "selectbox"):
                kw.setdefault("index", options.index(c.default) if c.default in options else 0)
            elif c.kind == "segmented":
                kw.setdefault("default", c.default)
            elif c.kind == "expander":
                kw.setdefault("expanded", c.default)
            else:
                kw.setdefault("value", c.default)
        if c.kind in ("slider", "number"):
            lo, hi = kw.pop("lo", c.lo), kw.pop("hi", c.hi)
            if c.step is not None:
                kw.setdefault("step", c.step)
            return (at.slider if c.kind == "slider" else at.number_input)(label, lo, hi, **kw)
        if c.kind == "select":
            return at.select_slider(label, options, **kw)
        if c.kind in ("text", "area"):
            kw.setdefault("max_chars", c.max_chars)
            return (at.text_input if c.kind == "text" else at.text_area)(label, **kw)
        if c.kind == "toggle":
            return at.toggle(label, **kw)
        if c.kind == "expander":  # a fold a link may open: the page draws into it (`with ... as box`, box.open)
            kw.pop("help")
            return at.expander(label, **kw)
        draw = {"radio": at.radio, "segmented": at.segmented_control, "selectbox": at.selectbox}[c.kind]
        return draw(label, options, **kw)

def time_step(name: str = "t", url: str = "t", default: int = 1, most: int = 200) -> Control:
    """A stepper's time slider (ui.widgets.step_controls draws it, up to the sequence's length): every stepping page
    declares one, under its own name and link key."""
    return Control(name, "Time step t", default, lo=1, hi=most, url=url, help="Which step to show.")
