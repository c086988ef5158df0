"""Page state that a shared link carries: each widget's value seeded from the URL and written back to it.

Values a link gets wrong fall back to the page's default, with a notice naming them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable
from urllib.parse import urlencode

import streamlit as st

_KEEP = "app.kept."  # prefix of the copies of each setting that outlive their widgets
APP_WIDE = ("classroom", "contrast", "deck", "step")  # link keys every page keeps (ui/urlstate.classroom,
# ui/theme.py; a running deck and its step, ui/deck/run.py)


@dataclass(frozen=True)
class Param:
    """One piece of page state that a shared link carries: widget key, URL name, default, parser."""

    key: str  # session_state / widget key, prefixed with the page name
    url: str  # query-parameter name
    default: Any
    parse: Callable[[str], Any]  # raises ValueError for a value it refuses
    dump: Callable[[Any], str] = str


def number(lo: float, hi: float, step: float | None = None) -> Callable[[str], float]:
    """Parser for a bounded float on the slider's steps; a value between two notches is refused (it falls back to
    the default with a notice), never silently moved."""
    def parse(s: str) -> float:
        v = float(s)
        if not math.isfinite(v) or not lo <= v <= hi:
            raise ValueError(s)
        if step:
            snapped = round(round((v - lo) / step) * step + lo, 10)
            if abs(snapped - v) > 1e-6 * max(1.0, abs(step)):
                raise ValueError(s)
            v = snapped
        return v
    return parse


def integer(lo: int, hi: int) -> Callable[[str], int]:
    def parse(s: str) -> int:
        v = int(s)
        if not lo <= v <= hi:
            raise ValueError(s)
        return v
    return parse


def choice(options) -> Callable[[str], str]:
    def parse(s: str) -> str:
        if s not in options:
            raise ValueError(s)
        return s
    return parse


def text(max_len: int = 2000) -> Callable[[str], str]:
    def parse(s: str) -> str:
        if len(s) > max_len:
            raise ValueError(s)
        return s
    return parse


def flag(s: str) -> bool:
    if s.lower() in ("1", "true", "yes", "on"):
        return True
    if s.lower() in ("0", "false", "no", "off"):
        return False
    raise ValueError(s)


def dump_flag(v: bool) -> str:
    return "1" if v else "0"


CONTROL_LABELS: dict[str, str] = {}  # widget key -> the label its control shows (each page's words register theirs)


def name_controls(labels: dict[str, str]) -> None:
    """Register the labels of a page's controls, so a notice about a link names the control, not the link's key."""
    CONTROL_LABELS.update(labels)


def control_name(p: Param) -> str:
    """How a notice names a setting: the control's label, with the link's key after it ('wₕ, recurrent weight
    (`wh` in the link)'), or the key alone where no label is registered."""
    label = CONTROL_LABELS.get(p.key)
    return f"**{label}** (`{p.url}` in the link)" if label else f"`{p.url}`"


def restore(page: str, params: list[Param]) -> None:
    """Seed each widget's state when a visitor arrives on the page: from the link where it names any of the page's
    settings (a shared link, the browser's Back / Forward), else from what this visitor last set here (a lesson link,
    the sidebar), else the defaults. Streamlit forgets a widget's value once a run leaves it out, so `publish` keeps a
    copy of every setting under a key of its own. Invalid link values fall back to the default, with a notice that
    names each control by its label (ui.controls registers it with `name_controls`)."""
    arrived = st.session_state.get("app.page") != page
    st.session_state["app.page"] = page
    if arrived:
        named = [p for p in params if p.url in st.query_params]
        bad = []
        for p in params:
            if not named:
                if _KEEP + p.key in st.session_state:
                    st.session_state[p.key] = st.session_state[_KEEP + p.key]
                continue
            try:
                st.session_state[p.key] = p.parse(st.query_params[p.url]) if p.url in st.query_params else p.default
            except (ValueError, TypeError, OverflowError):
                st.session_state[p.key] = p.default
                bad.append(p.url)
        st.session_state[f"{page}._url_bad"] = bad
        st.session_state[f"{page}._url_said"] = bool(bad)
        # The address says this page's settings and no other's, sent even when nothing changes: on a page switch the
        # browser's new entry may hold the last page's query (a vector page's `t=2` read on the one-unit page, which
        # has a `t` too, by a later Back), and the server's copy may hold it after a Back (ui/history.py).
        ours = {p.url for p in params}
        st.query_params.from_dict({k: v for k, v in st.query_params.to_dict().items() if k in ours or k in APP_WIDE})
    for p in params:
        if p.key not in st.session_state:
            st.session_state[p.key] = st.session_state.get(_KEEP + p.key, p.default)
    bad = st.session_state.get(f"{page}._url_bad")
    if bad:
        named = ", ".join(control_name(p) for p in params if p.url in bad)
        st.info(f"The link's value for {named} was not valid here, so the default is used.", icon="ℹ️")
    elif st.session_state.get(f"{page}._url_said"):  # the notice's place, kept: what follows keeps its own, so the
        st.empty()  # browser keeps the focus on the slider the visitor moved (publish takes the notice down)


def publish(params: list[Param]) -> None:
    """Write the page's current state into the URL, leaving out values that equal their defaults. A setting that
    `restore`'s notice names as invalid in the link, once the visitor has moved it, leaves the notice: the app runs
    again to take it down (most settings rerun only their part of the page, and the notice is drawn above it)."""
    bad_key = f"{st.session_state.get('app.page')}._url_bad"
    bad = st.session_state.get(bad_key) or []
    moved = {p.url for p in params if p.url in bad and st.session_state.get(p.key, p.default) != p.default}
    if moved:
        st.session_state[bad_key] = [u for u in bad if u not in moved]
    for p in params:
        v = st.session_state.get(p.key, p.default)
        st.session_state[_KEEP + p.key] = v  # outlives the widget: brought back when the visitor returns
        if v != p.default:
            s = p.dump(v)
            if st.query_params.get(p.url) != s:
                st.query_params[p.url] = s
        elif p.url in st.query_params:
            del st.query_params[p.url]
    if moved:
        st.rerun(scope="app")


def page_setup() -> str:
    """This page's settings as a query string, without classroom mode (a link's setup, for a lesson page)."""
    return urlencode({k: v for k, v in st.query_params.to_dict().items() if k != "classroom"})


def set_state(values: dict[str, Any]) -> None:
    """Callback helper: set several widget states at once (used by presets and step buttons)."""
    for k, v in values.items():
        st.session_state[k] = v


def classroom() -> bool:
    """True in classroom mode (projector-sized type, essentials only). `?classroom=1` turns it on, `?classroom=0`
    off; once on, it stays on for the session, and every page's link carries it, so it survives navigation."""
    if "classroom" in st.query_params:
        try:
            st.session_state["app.classroom"] = flag(st.query_params["classroom"])
        except ValueError:  # said once: the value leaves the link, so later calls in this run do not repeat it
            st.session_state["app.classroom"] = False
            del st.query_params["classroom"]
            st.info("The link's value for `classroom` was not valid here (use 1 or 0), so classroom mode is off.",
                    icon="ℹ️")
    elif st.session_state.get("app.classroom"):
        st.query_params["classroom"] = "1"
    return bool(st.session_state.get("app.classroom", False))


def font_scale(room: bool | None = None) -> float:
    """Chart text's scale: larger on a projector (`room`; by default, this page's classroom mode)."""
    return 1.45 if (classroom() if room is None else room) else 1.0


def setup_link() -> str:
    """The address of this page with its current settings, as a student would open it."""
    base = st.context.url.split("?", 1)[0] if st.context.url else ""
    query = urlencode(st.query_params.to_dict())
    return f"{base}?{query}" if query else base


# The code box's copy button shows only while the pointer is over it: on a projector nobody hovers to find it.
_COPY_SHOWN = """<style>
[data-testid="stPopoverBody"] [data-testid="stCode"] :has([data-testid="stElementToolbarButton"]),
[data-testid="stPopoverBody"] [data-testid="stElementToolbarButton"],
[data-testid="stPopoverBody"] [data-testid="stElementToolbarButton"] * {
  opacity: 1 !important; visibility: visible !important;
}
</style>"""


def link_control() -> None:
    """A visible way to copy the link to this setup (a full-screen projector hides the address bar). Opening it
    reruns the part of the page it is in (app.py: a fragment of its own), so the address it shows is the setup as it
    is now: most settings rerun only their own part of the page, never app.py's foot or sidebar where this is."""
    with st.popover("Link to this setup", icon=":material/link:", key="app.link_open", on_change="rerun"):
        st.caption("Students who open this address see this page as it is now. The copy button is at the right.")
        st.code(setup_link(), language=None, wrap_lines=True)
        st.html(_COPY_SHOWN)  # static CSS of our own


def arrive_afresh(params: list[Param]) -> None:
    """Forget all a page keeps for this visitor (its settings, kept copies and own state: every key under its
    settings' prefixes) and that they are on it, so that its next run starts from the link as a new visitor's would
    (`restore`): a deck's next step may be the same page with another setup, and predict mode restarts."""
    prefixes = {p.key.split(".")[0] + "." for p in params}
    prefixes = tuple(prefixes | {_KEEP + p for p in prefixes})
    st.session_state.pop("app.page", None)
    for key in [k for k in st.session_state if k.startswith(prefixes)]:
        del st.session_state[key]
