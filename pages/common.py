"""What every page shares: URL-backed widget state, classroom mode, the colour legend, error boxes.

Streamlit code lives here and in the pages; the numbers come from `rnnviz`.
"""
from __future__ import annotations

import collections
import math
import os
import re
from dataclasses import dataclass
from typing import Any, Callable

import streamlit as st



RUN_TIMES: collections.deque = collections.deque(maxlen=10_000)  # (page, seconds); filled only when benchmarking


def record_run(page: str, seconds: float) -> None:
    """Keep a script run's duration when RNNVIZ_TIMING=1 (benchmarks/rerun.py sets it); otherwise nothing."""
    if os.environ.get("RNNVIZ_TIMING") == "1":
        RUN_TIMES.append((page, seconds))


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


def md(text: str) -> str:
    """Text a visitor (or an uploaded file) supplied, made inert for st.markdown: every markdown character is
    escaped, so it shows as typed and is never formatting, a link or HTML."""
    return _MD_SPECIAL.sub(r"\\\1", str(text)).replace("\n", " ")


def error(message: str) -> None:
    """A clear message on the page; the message may quote visitor text, so it is escaped."""
    st.error(md(message), icon="⚠️")


def require_app() -> None:
    """Make sure a page runs inside app.py's navigation.

    Streamlit treats a project with a `pages/` folder as an old-style multipage app until the entry point
    has called `st.navigation` once; a fresh server whose first visitor opens a page link directly would
    run that page alone, without app.py. Clearing the flag and rerunning hands control back to app.py."""
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()


@dataclass(frozen=True)
class Param:
    """One piece of page state that a shared link carries: widget key, URL name, default, parser."""

    key: str  # session_state / widget key, prefixed with the page name
    url: str  # query-parameter name
    default: Any
    parse: Callable[[str], Any]  # raises ValueError for a value it refuses
    dump: Callable[[Any], str] = str


def number(lo: float, hi: float, step: float | None = None) -> Callable[[str], float]:
    """Parser for a bounded float (snapped to the slider's step)."""
    def parse(s: str) -> float:
        v = float(s)
        if not math.isfinite(v) or not lo <= v <= hi:
            raise ValueError(s)
        if step:
            v = round(round((v - lo) / step) * step + lo, 10)
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


def restore(page: str, params: list[Param]) -> None:
    """Seed each widget's state from the URL on the page's first run in a session; defaults otherwise.
    Invalid URL values fall back to their defaults, with a notice naming them."""
    require_app()
    loaded = f"{page}._url_loaded"
    if not st.session_state.get(loaded):
        st.session_state[loaded] = True
        bad = []
        for p in params:
            if p.url in st.query_params:
                try:
                    st.session_state[p.key] = p.parse(st.query_params[p.url])
                except (ValueError, TypeError, OverflowError):
                    bad.append(p.url)
        st.session_state[f"{page}._url_bad"] = bad
    for p in params:
        if p.key not in st.session_state:
            st.session_state[p.key] = p.default
    bad = st.session_state.get(f"{page}._url_bad")
    if bad:
        st.info(f"The link's value for {', '.join(f'`{b}`' for b in bad)} was not valid here, so the default is used.",
                icon="ℹ️")


def publish(params: list[Param]) -> None:
    """Write the page's current state into the URL, leaving out values that equal their defaults."""
    for p in params:
        v = st.session_state.get(p.key, p.default)
        if v != p.default:
            s = p.dump(v)
            if st.query_params.get(p.url) != s:
                st.query_params[p.url] = s
        elif p.url in st.query_params:
            del st.query_params[p.url]


def set_state(values: dict[str, Any]) -> None:
    """Callback helper: set several widget states at once (used by presets and step buttons)."""
    for k, v in values.items():
        st.session_state[k] = v


def classroom() -> bool:
    """True when the link asks for classroom mode (?classroom=1): larger type, essentials only."""
    try:
        return flag(st.query_params.get("classroom", "0"))
    except ValueError:
        return False


def font_scale() -> float:
    return 1.45 if classroom() else 1.0


# Cached loaders live here, in a module imported once, not in a page: a page's code runs afresh on every rerun,
# and a cached function defined there would keep each run's globals (and everything they hold) alive.

@st.cache_resource(show_spinner="Loading the model…")
def shipped_model(path: str):
    """Loaded once per server and shared by every session; a CharLM's arrays are read-only."""
    from rnnviz import charlm

    return charlm.load(path)


@st.cache_data(show_spinner=False, max_entries=16)
def unit_ranking(model_id: str, _lm, passage: str):
    """Units most correlated with simple text features; only the ranking is kept, not the states."""
    from rnnviz.units import rank_units

    tr = _lm.run(passage)
    return rank_units(tr.h, tr.c, passage, top=3)


# Callbacks also live here: Streamlit keeps a widget's callback, and a function defined in a page would keep
# that run's page globals alive with it.

def pick_position(chart_key: str, state_key: str) -> None:
    """on_select for a text grid: the clicked character's index becomes the inspected position."""
    pts = st.session_state[chart_key].selection.get("points", [])
    if pts and "customdata" in pts[0]:
        st.session_state[state_key] = int(pts[0]["customdata"])


def force_character(forced_key: str, char_key: str, position: int) -> None:
    """Teacher-force one generated position; forced characters after it are dropped (they belong to another branch)."""
    forced = {k: v for k, v in st.session_state.get(forced_key, {}).items() if k < position}
    forced[position] = st.session_state[char_key]
    st.session_state[forced_key] = forced


def controls_box():
    """Where a page's controls go: in classroom mode a collapsed expander, so the projector shows results."""
    return st.expander("Controls", expanded=False) if classroom() else st.container()


def legend() -> None:
    """The colour language, with shapes named, so it does not rely on colour alone."""
    items = [("input", "■ green", "inputs x_t"), ("state", "● blue", "states h_t, c_t"),
             ("weight", "◆ amber", "weights and gates"), ("output", "▲ red", "outputs y_t")]
    st.markdown("**Colours**")
    for key, shape, what in items:
        st.markdown(f":{_named(key)}[{shape}] {what}")


def _named(kind: str) -> str:
    """Streamlit's named markdown colours closest to our palette."""
    return {"input": "green", "state": "blue", "weight": "orange", "output": "red"}[kind]


def intro(text_md: str) -> None:
    """The two or three sentences a page opens with (what to try first)."""
    if not classroom():
        st.markdown(text_md)


def plot(fig, key: str, alt: str) -> None:
    """A Plotly chart with a text alternative for screen readers; its camera button saves PNG or SVG
    (the sidebar's choice)."""
    fmt = st.session_state.get("app.image_format", "png")
    st.plotly_chart(fig, key=key, alt=alt, config={"displaylogo": False, "toImageButtonOptions": {
        "format": fmt, "scale": 2 if fmt == "png" else 1, "filename": key.replace(".", "_")}})


def export_panel(script: str, file_name: str) -> None:
    """Download the page's exact setup as a runnable PyTorch script, and show it."""
    with st.expander("Export this setup as a PyTorch script"):
        st.download_button("Download " + file_name, script, file_name=file_name, mime="text/x-python",
                           key=f"export.{file_name}", icon=":material/download:",
                           help="Rebuilds the cell in torch.nn with these weights and inputs, and checks that it "
                                "gives the numbers shown here.")
        st.code(script, language="python")


def sequence_params(page: str) -> list[Param]:
    """URL state for the shared input controls (one-hot characters of a word, or typed vectors)."""
    return [
        Param(f"{page}.mode", "in", "chars", choice(["chars", "vectors"])),
        Param(f"{page}.word", "word", "hello", text(200)),
        Param(f"{page}.vocab", "vocab", "helo", text(64)),
        Param(f"{page}.vectors", "vec", "1 0 0\n0 1 0\n0 0 1\n1 1 0", text(8000)),
    ]


def sequence_inputs(page: str):
    """Input controls shared by the vector and gate pages. Returns x (T, d), the characters or None,
    and the vocabulary or None; text that does not parse gets a message and the last valid input."""
    from rnnviz.scalar import InputError
    from rnnviz.vector import encode_word, parse_vectors, parse_vocab

    mode = st.radio("Inputs", ["chars", "vectors"], key=f"{page}.mode", horizontal=True,
                    format_func={"chars": "One-hot characters", "vectors": "Typed vectors"}.get,
                    help="Characters become one-hot vectors over the vocabulary; or type any vectors yourself.")
    try:
        if mode == "chars":
            c1, c2 = st.columns([1.4, 1])
            word = c1.text_input("Word", key=f"{page}.word", max_chars=200, help="Read one character per step.")
            vocab_text = c2.text_input("Vocabulary", key=f"{page}.vocab", max_chars=64,
                                       help="The characters the one-hot vectors are over, in order.")
            vocab = parse_vocab(vocab_text)
            out = (encode_word(word, vocab), list(word), vocab)
        else:
            vec = st.text_area("Input vectors, one per line", key=f"{page}.vectors", height=120, max_chars=8000,
                               help="Numbers separated by spaces or commas; each line is one time step x_t.")
            out = (parse_vectors(vec), None, None)
    except InputError as e:
        error(f"{e} Showing the last valid input.")
        return st.session_state.get(f"{page}._last", (encode_word("hello", list("helo")), list("hello"), list("helo")))
    st.session_state[f"{page}._last"] = out
    return out


def step_controls(page: str, T: int, what: str = "Which step to show.", reset: bool = False) -> int:
    """Back / Next buttons (← → keys), optionally Reset (Home key), and a time scrubber bound to `{page}.t`;
    returns t (1-based)."""
    key = f"{page}.t"
    if st.session_state.get(key, 1) > T:
        st.session_state[key] = T
    if reset:
        c1, c2, c0, c3 = st.columns([1.2, 1.2, 1.5, 3], vertical_alignment="bottom")
        c0.button("Reset", key=f"{page}.reset", on_click=set_state, args=({key: 1},), shortcut="home",
                  help="Back to step 1 (Home key)", width="stretch")
    else:
        c1, c2, c3 = st.columns([1, 1, 4], vertical_alignment="bottom")
    t_now = st.session_state.get(key, 1)
    c1.button("◀ Back", key=f"{page}.back", on_click=set_state, args=({key: max(1, t_now - 1)},),
              disabled=t_now <= 1, shortcut="left", width="stretch", help="Previous step (← key)")
    c2.button("Next ▶", key=f"{page}.next", on_click=set_state, args=({key: min(T, t_now + 1)},), type="primary",
              disabled=t_now >= T, shortcut="right", width="stretch", help="Next step (→ key)")
    if T > 1:
        return c3.slider("Time step t", 1, T, key=key, help=what)
    c3.markdown("Time step t = 1")
    return 1

