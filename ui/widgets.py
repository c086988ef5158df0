"""Controls, charts and messages every page shares: the colour legend, step buttons, input boxes, error boxes."""
from __future__ import annotations

import re
from typing import Callable, TypeVar

import numpy as np
import pandas as pd
import streamlit as st

from rnnviz.nn.torch_ref import TorchMissing
from rnnviz.text import fmt
from ui.controls import Control, Controls
from ui.live import chart
from ui.loaders import freeze_heap
from ui.urlstate import classroom, set_state

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")
_LINE_BREAKS = re.compile(r"\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")  # everything str.splitlines splits on
# GitHub-flavoured markdown turns plain addresses into links by pattern, after escapes are read: a scheme and `://`
# (https://evil.example), `www.`, and `name@host.tld` (a mailto link). A WORD JOINER (U+2060, invisible, never a line
# break) before `://` and `.` after `www`, and after `@`, breaks each pattern where it starts.
_AUTOLINK = re.compile(r"(?=://)|(?i:(?<=www)(?=\.))|(?<=@)")
WORD_JOINER = "\u2060"


def md(text: str) -> str:
    """Text a visitor (or an uploaded file) supplied, made inert for st.markdown: every markdown character is
    escaped, so it shows as typed and is never formatting or HTML, and an address in it is never made a link."""
    text = _AUTOLINK.sub(WORD_JOINER, str(text))
    return _LINE_BREAKS.sub(" ", _MD_SPECIAL.sub(r"\\\1", text))


def error(message: str) -> None:
    """A clear message on the page; the message may quote visitor text, so it is escaped."""
    st.error(md(message), icon="⚠️")


# What keeps a narrow column's labels whole, wrapped rather than cut with an ellipsis: classroom mode's, and below
# 1200 px every page's (LAYOUT_CSS).
_FIT = """[data-testid^='stBaseButton'] p {white-space: normal !important; overflow: visible !important;
  text-overflow: clip !important;}
[data-testid^='stBaseButton'] {padding-left: 0.4rem !important; padding-right: 0.4rem !important;}
[data-testid='stMetricValue'], [data-testid='stMetricValue'] [data-testid='stMarkdownContainer'] p
  {font-size: 1.65rem !important;}
[data-testid='stMetricLabel'] p {white-space: normal !important;}
"""

# Projector mode, static CSS of our own (no visitor text). Sizes are chosen for a 1024 px wide projector: body
# text 20 px, nothing under 14 px; labels wrap rather than being cut with an ellipsis.
CLASSROOM_CSS = """<style>
[data-testid='stMarkdownContainer'] p, [data-testid='stMarkdownContainer'] li, [data-testid='stCaptionContainer'] p,
[data-testid='stWidgetLabel'] p, [data-testid='stPageLink'] p, [data-testid='stMarkdownContainer'] td,
[data-testid='stMarkdownContainer'] th {font-size: 1.25rem !important;}
[data-testid^='stBaseButton'] p {font-size: 1.2rem !important;}
""" + _FIT + """[data-testid='stMetricLabel'] p {font-size: 1.1rem !important;}
[data-testid='stSliderTickBar'] div, [data-testid='stSliderThumbValue'] {font-size: 1rem !important;}
[data-testid='stMain'] input, [data-testid='stMain'] textarea, [data-testid='stMain'] [data-baseweb='select'] > div,
[data-testid='stCode'] code {font-size: 1.15rem !important;}
section[data-testid='stSidebar'], [data-testid='stSidebarCollapsedControl'] {display: none;}
[data-testid='stMarkdownContainer'] .katex-display {font-size: 1.25rem !important;}
[data-testid='stCode'] pre, [data-testid='stCode'] code {white-space: pre-wrap !important; word-break: break-word;}
.block-container {padding: 1rem 1.5rem 2rem 1.5rem !important; max-width: 100% !important;}
[data-testid='stMain'] h1 {font-size: 2.25rem !important; padding: 0 !important;}  /* the first screen is short */
[data-testid='stColumn']:has(> [data-testid='stVerticalBlock'] > [data-testid='stLayoutWrapper'] >
  [class*='st-key-follow-']) {position: sticky; top: 0; align-self: flex-start;}  /* its own column: see follow() */
</style>"""


# Every page, whatever the mode: narrower than 1200 px (a projector without ?classroom=1, a small laptop or a tablet
# beside the sidebar) keeps its labels whole as classroom mode does (_FIT), with the main column's sides that
# Streamlit's wide layout pads with 5rem, and buttons without their key hints (their tooltips say them): at 1024 px
# with the sidebar open the presets read 'F…', Back '◀.' and the gradients page's metrics '8.1×1…'.
LONG_TABLE_PX = 600  # about 17 rows of a laptop's table, 8 of a projector's (whose sums wrap onto two lines)
LAYOUT_CSS = """<style>  /* rnnviz-layout: tests/browser.py waits for it */
[class*='st-key-long-'] {max-height: """ + str(LONG_TABLE_PX) + """px; overflow-y: auto;
  padding-bottom: 1rem;  /* the table runs 1rem past its element (Streamlit's -1rem under markdown) */
  flex-direction: column-reverse !important; justify-content: flex-start !important;}  /* held at its end: the rows
  up to the current step, the last (Streamlit's 'start' would pack the table at the top, its end out of reach) */
[data-testid='stMarkdownContainer'] table {font-variant-numeric: tabular-nums; font-size: 0.875rem;
  display: block; max-width: 100%; overflow-x: auto;}  /* wider than its column: it scrolls sideways, in place */
[class*='st-key-long-'] table {margin-bottom: 0; display: table; overflow: visible;  /* its box scrolls instead */
  border-collapse: separate; border-spacing: 0;}  /* collapsed, the header's borders stayed behind it, rows showing */
[class*='st-key-long-'] :is(th, td) {border-width: 0 1px 1px 0;}
[class*='st-key-long-'] tr > :first-child {border-left-width: 1px;}
[class*='st-key-long-'] th {position: sticky; top: 0; z-index: 1; background: #fff; border-top-width: 1px;}  /* stays */
[data-testid='stMarkdownContainer'] td:first-child {white-space: nowrap;}  /* 'unit 1', 'example 1': one line */
[data-testid='stMarkdownContainer'] th, [data-testid='stMarkdownContainer'] td {padding: 0.25rem 0.375rem;}
@media (max-width: 1200px) {
""" + _FIT + """.block-container {padding-left: 1.5rem !important; padding-right: 1.5rem !important;}
[data-testid^='stBaseButton'] p {overflow-wrap: normal !important; word-break: normal !important;}
[data-testid^='stBaseButton'] kbd {display: none !important;}
}
</style>"""


def page_columns(widths: list[float]) -> list:
    """Side-by-side columns of these relative widths: the controls beside the chart they move. On a projector too
    (1024 px), so that a slider and its chart share the first screen; there the gap is small."""
    return st.columns(widths, gap="small" if classroom() else "large")


def split(*widths: float) -> list:
    """Side-by-side columns; stacked full width in classroom mode, where a narrow column is unreadable."""
    return [st.container() for _ in widths] if classroom() else st.columns(list(widths), gap="large")


def note(text_md: str) -> None:
    """An explanation: a caption normally, body text on a projector (a caption is too small to read there)."""
    (st.markdown if classroom() else st.caption)(text_md)


def follow(name: str):
    """On a projector, a chart column that stays on screen while the lecturer scrolls down the settings beside it
    (CSS position: sticky on its column: it moves down the row as far as the row is taller than it; a column taller
    than the screen shows its foot when the row's end is reached). Elsewhere a plain container."""
    return st.container(key=f"follow-{name}") if classroom() else st.container()


def controls_box():
    """Where a page's controls go: a framed box in classroom mode (open: main actions stay one click away)."""
    return st.container(border=True) if classroom() else st.container()


NOTATION = ("Notation: wₕ, wₓ (lower case) are the one-unit page's numbers; Wₕ, Wₓ the matrices of the vector "
            "page, as the notes write them; Wₕₕ, W_ih are PyTorch's names for the same two (weight_hh, weight_ih), "
            "used where a cell has several blocks. Units count from 1 (u1, unit 1) on every page; PyTorch indexes them "
            "from 0 (h[0] is unit 1); h₁ is the state at step 1.")


def legend() -> None:
    """The colour language, with shapes named, so it does not rely on colour alone."""
    items = [("input", "■ green", "inputs xₜ"), ("state", "● blue", "states hₜ, cₜ"),
             ("weight", "◆ amber", "weights and gates"), ("output", "▲ red", "outputs yₜ")]
    st.markdown("**Colours**")
    for key, shape, what in items:
        st.markdown(f":{_named(key)}[{shape}] {what}")
    st.caption("Heatmaps of signed numbers (weights, states) use their own scale: :violet[purple] below zero, "
               "white at zero, :gray[dark grey] above, so they never read as inputs, states or outputs. Where "
               "charts compare cells or runs, the plain RNN (and the unclipped run) is drawn in black, and each "
               "series is named in the chart's own legend.")
    st.caption(NOTATION)


def _named(kind: str) -> str:
    """Streamlit's named markdown colours closest to our palette."""
    return {"input": "green", "state": "blue", "weight": "orange", "output": "red"}[kind]


def intro(text_md: str) -> None:
    """The two or three sentences a page opens with (what to try first); in classroom mode only the first sentence,
    one line that says what the page is about without pushing the controls off the projector's first screen."""
    st.markdown(first_sentence(text_md) if classroom() else text_md)


def first_sentence(text_md: str) -> str:
    """The text up to its first full stop that ends a sentence ('One hidden unit, one number of memory.')."""
    m = re.search(r"(?<=[.!?])\s+(?=[A-Z*])", text_md)
    return text_md[:m.start()] if m else text_md


MODEBAR_HIDDEN = ["zoom2d", "pan2d", "select2d", "lasso2d", "zoomIn2d", "zoomOut2d", "autoScale2d", "resetScale2d",
                  "hoverClosestCartesian", "hoverCompareCartesian", "toggleSpikelines", "zoom3d", "pan3d",
                  "orbitRotation", "tableRotation", "resetCameraDefault3d", "resetCameraLastSave3d", "hoverClosest3d",
                  "zoomInGeo", "zoomOutGeo", "resetGeo", "hoverClosestGeo", "hoverClosestGl2d", "hoverClosestPie",
                  "resetViewMapbox", "resetViews", "toggleHover"]


def chart_config(key: str) -> dict:
    """A chart's Plotly config: its camera button saves PNG or SVG (the sidebar's choice)."""
    image = st.session_state.get("app.image_format", "png")
    # the toolbar (shown on hover) covered titles: it keeps the camera and full screen only, two icons in the corner
    return {"displaylogo": False, "modeBarButtonsToRemove": MODEBAR_HIDDEN, "toImageButtonOptions": {
        "format": image, "scale": 2 if image == "png" else 1, "filename": key.replace(".", "_")}}


def plot(fig, key: str, alt: str) -> None:
    """A Plotly chart with a text alternative for screen readers; its camera button saves PNG or SVG
    (the sidebar's choice)."""
    config = chart_config(key)
    if classroom():  # the projector's floor: no chart text under 14 px, sub- and superscripts included
        fig = fig_at_least(fig)
    if chart.live():  # updated in place on the next move (see ui/live/chart.py)
        chart.live_chart(fig, key=key, alt=alt, config=config)
    else:
        st.plotly_chart(fig, key=key, alt=alt, config=config)


TEXT_ROWS = 30  # a number_table's most rows as text (a drag's words can write over them); more are a grid


def number_table(df, precision: int) -> None:
    """A small table of numbers (floats written to `precision` decimals) as a plain table, whose type the projector
    CSS scales; a long one (over 30 rows) as an interactive grid, drawn on a canvas (at a fixed 14 px on a projector
    too) that is mounted afresh on every rerun: a small table is cheaper as text, as `table` says."""
    if len(df) <= TEXT_ROWS:
        table(df, digits=precision)
    else:
        st.dataframe(df, width="stretch", height=min(400, 36 * len(df) + 40))


_NUMBER = re.compile(r"[-−+]?∞|[-−+]?[\d.,\s\u00a0]*\d[\d.,eE×^⁰¹²³⁴⁵⁶⁷⁸⁹⁻+\-−\s\u00a0]*%?")


def _cell(v, digits: int) -> str:
    """A value as a table writes it: a float to `digits` decimals (never '-0.0000': a negative number that rounds to
    zero is zero), infinities as fmt writes them (∞), NaN as nothing."""
    if isinstance(v, (float, np.floating)):
        if np.isnan(v):
            return ""
        if np.isinf(v):
            return fmt(v)
        text = f"{v:.{digits}f}"
        return text[1:] if text.startswith("-") and not text.strip("-0.") else text
    return str(v)


def _all_text(data) -> bool:
    """Whether `data` is a dict of equally long lists of str: a table whose cells are written as they are, the same
    as through a DataFrame (whose construction cost more than the rest of the table, on every rerun)."""
    if not isinstance(data, dict) or not data:
        return False
    columns = list(data.values())
    return all(type(c) is list and len(c) == len(columns[0]) and all(type(v) is str for v in c) for c in columns)


def markdown_table(data, digits: int = 4) -> str:
    """A table (a DataFrame, or a dict of columns) as GitHub-flavoured markdown. Headers are markdown (our own words:
    LaTeX in some); cells show their text as it is (escaped by `md`: a character a visitor typed is never
    formatting); floats with `digits` decimals (4, as st.table wrote them); an index that is not 0, 1, 2... is the
    first column, as st.table shows it; a column of numbers (a '?' among them: predict mode's question; or a blank) is
    right-aligned."""
    if _all_text(data):  # the lessons' tables: columns of words already written; a DataFrame would only copy them
        names, rows = list(data), [list(r) for r in zip(*data.values())]
    else:
        df = data if isinstance(data, pd.DataFrame) else pd.DataFrame(data)
        shown = not isinstance(df.index, pd.RangeIndex) or bool(df.index.name)
        names = ([df.index.name or ""] if shown else []) + list(df.columns)
        rows = [([_cell(i, digits)] if shown else []) + [_cell(v, digits) for v in r]
                for i, r in zip(df.index, df.itertuples(index=False))]

    def right(k: int) -> bool:
        cells = [r[k].strip() for r in rows]
        return any(_NUMBER.fullmatch(c) for c in cells) and all(c in ("?", "") or _NUMBER.fullmatch(c) for c in cells)

    # a header is markdown of our own; a bar not already escaped would end its cell
    head = [re.sub(r"(?<!\\)\|", r"\\|", _LINE_BREAKS.sub(" ", str(n))) for n in names]
    lines = [head, ["---:" if right(k) else "---" for k in range(len(names))]] + [[md(c) for c in r] for r in rows]
    return "\n".join("| " + " | ".join(line) + " |" for line in lines)


def table(data, digits: int = 4) -> None:
    """A small table of text and numbers, drawn as markdown. Not st.table: the browser spends 11-18 ms on each
    st.table every rerun (its Arrow data decoded, every cell a styled element) against about 1.5 ms for the same
    table as markdown (`benchmarks/browser.py --floor-variants`, a slider and two 6x5 tables: 80 against 54 ms a move,
    54 ms without the tables), and the lessons redraw theirs at every step."""
    st.markdown(markdown_table(data, digits))


def fig_at_least(fig):
    """The figure with no text under the projector's floor (rnnviz.figures.fonts.at_least)."""
    from rnnviz.figures.base import SpecFigure
    from rnnviz.figures.fonts import at_least

    return SpecFigure(at_least(fig.to_dict()))


def long_table(data, name: str) -> None:
    """A table in a box that scrolls once the table is taller than LONG_TABLE_PX (200 inputs made a 200-row table and
    a 14,000 px page), held at its end: the lessons' long tables are the rows up to the current step, which is the
    last; a shorter one, the box its own height. `name`: the box's, unique on the page."""
    with st.container(key=f"long-{name}"):
        table(data)


def export_panel(script: Callable[[], str], file_name: str, key: str) -> None:
    """Download the page's exact setup as a runnable PyTorch script, and show it. The script is built and sent only
    while its box is open: it changes with every setting, and a closed box would still redraw it on every move."""
    with st.expander("Export this setup as a PyTorch script", key=key, on_change="rerun") as box:
        if not box.open:
            return
        text = script()
        st.download_button("Download " + file_name, text, file_name=file_name, mime="text/x-python",
                           key=f"export.{file_name}", icon=":material/download:",
                           help="Rebuilds the cell in torch.nn with these weights and inputs, and checks that it "
                                "gives the numbers shown here.")
        st.code(text, language="python", wrap_lines=True)  # long lines wrap: nothing cut off on the right


SEQUENCE = (  # the input controls the vector and gate pages share: each declares them among its own (Controls)
    Control("mode", "Inputs", "chars", kind="radio", options=("chars", "vectors"), url="in",
            help="Characters become one-hot vectors over the vocabulary; or type any vectors yourself.",
            widget_kw={"horizontal": True,
                       "format_func": {"chars": "One-hot characters", "vectors": "Typed vectors"}.get}),
    Control("word", "Word", "hello", kind="text", url="word", max_chars=200, help="Read one character per step."),
    Control("vocab", "Vocabulary", "helo", kind="text", url="vocab", max_chars=64,
            help="The characters the one-hot vectors are over, in order."),
    Control("vectors", "Input vectors, one per line", "1 0 0\n0 1 0\n0 0 1\n1 1 0", kind="area", url="vec",
            max_chars=8000, widget_kw={"height": 120},
            help="Numbers separated by spaces or commas; each line is one time step x_t."),
)


def sequence_inputs(controls: Controls):
    """The shared input controls (SEQUENCE, among the page's `controls`; or a page's name, for a page that does not
    declare them). Returns x (T, d), the characters or None, and the vocabulary or None; text that does not parse
    gets a message and the last valid input."""
    from rnnviz.lessons.vector import encode_word, parse_vectors, parse_vocab
    from rnnviz.text import InputError

    last = f"{controls.page}._last"
    try:
        if controls.widget("mode") == "chars":
            c1, c2 = st.columns([1.4, 1])
            word = controls.widget("word", c1)
            vocab = parse_vocab(controls.widget("vocab", c2))
            out = (encode_word(word, vocab), list(word), vocab)
        else:
            out = (parse_vectors(controls.widget("vectors")), None, None)
    except InputError as e:
        error(f"{e} Showing the last valid input.")
        return st.session_state.get(last, (encode_word("hello", list("helo")), list("hello"), list("helo")))
    st.session_state[last] = out
    return out


def steps_ahead(t: int, T: int) -> str:
    """What a chart that blanks the steps after t says about them (the gates' and the cell's heatmaps); '' at the
    last step."""
    if t >= T:
        return ""
    if t + 1 == T:
        return f"Step {T} stays blank until the cell reaches it."
    return f"Steps {t + 1} to {T} stay blank until the cell reaches them."


def step_by(key: str, by: int, T: int) -> None:
    """A step button's callback: the step the time slider `key` holds as the press is taken, moved by `by` within
    1..T. Not a step fixed as the button was drawn: two presses within a few ms (Back then Next) reach the server
    before the run of the first has drawn the buttons again, and Streamlit takes both into one run; each then went
    from the step shown before both, and Back then Next landed one step past where it began. (The same button twice
    in that time is one press: Streamlit merges its two triggers.)"""
    st.session_state[key] = min(T, max(1, int(st.session_state.get(key, 1)) + by))


def step_controls(controls: Controls, T: int, what: str = "Which step to show.", reset: bool = False,
                  name: str = "t") -> int:
    """Back / Next buttons (← → keys, and PageUp / PageDown whatever holds the focus), optionally Reset (Home key),
    and the page's time slider `name` (ui.controls.time_step; its key names the stepper: `{page}.t`); returns t
    (1-based)."""
    key = controls.key(name)
    page = key.removesuffix(".t")
    if st.session_state.get(key, 1) > T:
        st.session_state[key] = T
    if reset:
        c1, c2, c0, c3 = st.columns([1.2, 1.2, 1.5, 3], vertical_alignment="bottom")
        c0.button("Reset", key=f"{page}.reset", on_click=set_state, args=({key: 1},), shortcut="home",
                  help="Back to step 1 (Home key)", width="stretch")
    else:
        c1, c2, c3 = st.columns([1.2, 1.2, 3], vertical_alignment="bottom")
    # the slider first (it sits in the third column all the same): the buttons go from the step it holds, which is
    # not always the one kept before it is drawn (a new input of another length can set it back to 1)
    if T > 1:
        t = controls.widget(name, c3, hi=T, help=what)
    else:
        t = 1
        c3.markdown("Time step t = 1")
    c1.button("◀ Back", key=f"{page}.back", on_click=step_by, args=(key, -1, T),
              disabled=t <= 1, shortcut="left", width="stretch", help="Previous step (← or PageUp)")
    c2.button("Next ▶", key=f"{page}.next", on_click=step_by, args=(key, 1, T), type="primary",
              disabled=t >= T, shortcut="right", width="stretch", help="Next step (→ or PageDown)")
    if chart.live():  # the step this run draws, for the stepped charts in the browser (ui/live/steps.py)
        chart.step_mark(page, t)
    return t


R = TypeVar("R")


def torch_check(run: Callable[[], R]) -> R | None:
    """Run a PyTorch cross-check; where torch is not installed (a small serving install), say how to enable it."""
    try:
        return run()
    except TorchMissing as e:
        st.info(str(e), icon="ℹ️")
        return None
    finally:
        freeze_heap()  # torch's modules, the first time: out of the garbage collector's walks
