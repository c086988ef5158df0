"""The words beside a scrubbed chart as the browser shows them: a markdown text's pieces, the text of each element it
becomes (bold, a table cell, a line), in order. ui/live/scrub.js writes a frame's pieces over the text the page drew,
piece for piece, so the words follow a drag with the server's own sentences; a text whose pieces do not line up with
the page's (another shape: a term that comes and goes) is greyed instead, until the release redraws it. Where no chart
follows (the sampling page's position and temperature), a container's HTML pieces, the widths of its bars and a text
view's outline or whole markup follow too (`Shown`)."""
from __future__ import annotations

import html
import re
from dataclasses import dataclass

_ESCAPED = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~$=:\"'])")
_BAR = re.compile(r"(?<!\\)\|")
_RULE = re.compile(r"\s*:?-{3,}:?\s*")
_EMPHASIS = re.compile(r"(?<!\\)\*\*?")  # a bold or an italic mark (not an escaped star)


def _plain(s: str) -> str:
    return _ESCAPED.sub(r"\1", s)


def pieces(markdown: str) -> list[str]:
    """The non-blank text pieces of `markdown` as the page's markdown shows them: a table's cells (its rule row left
    out), the runs of text between `**` marks and between `*` marks (bold, italics: each an element of its own), each
    line of the rest; escapes undone. Only what the lessons write: bold, italics, tables and escaped characters (LaTeX,
    links or lists would not line up, and are greyed)."""
    out: list[str] = []
    for line in re.split(r" {2}\n|\n", markdown):
        if line.startswith("|") and line.rstrip().endswith("|"):
            cells = _BAR.split(line.strip()[1:-1])
            if all(_RULE.fullmatch(c) for c in cells):
                continue
            out += [_plain(c.strip()) for c in cells if c.strip()]
            continue
        out += [_plain(p) for p in _EMPHASIS.split(line) if p.strip()]
    return out


def table_pieces(columns: dict[str, list[str]]) -> list[str]:
    """The pieces of a table of text cells (a dict of columns, as ui.widgets.table draws it: its headers plain words):
    the headers, then the cells row by row; what `pieces` gives for its markdown, without writing it."""
    rows = zip(*columns.values())
    return [p for p in [*columns, *(c for row in rows for c in row)] if p.strip()]


def packed(texts: list[list[str]]) -> dict:
    """Each frame's pieces of one text, packed: {pieces: frame 0's, vary: [index], frames: [[piece at each index in
    vary] per frame]} where every frame has as many pieces (most pieces never change: the headers, the step's words),
    else {frames: [pieces per frame]}."""
    if any(len(t) != len(texts[0]) for t in texts):
        return {"frames": texts}
    vary = [j for j in range(len(texts[0])) if any(t[j] != texts[0][j] for t in texts)]
    return {"pieces": texts[0], "vary": vary, "frames": [[t[j] for j in vary] for t in texts]}


_TEXT = re.compile(r">([^<]+)<")
_BAR_WIDTH = re.compile(r"<[^>]*\bdata-bar\b[^>]*?\bwidth:\s*([^;\"]+)")


def html_pieces(markup: str) -> list[str]:
    """The text pieces of HTML as the browser shows them: its non-blank text nodes in order, entities undone. Only
    for markup as rnnviz.figures writes it (every text escaped; no comments, scripts or CDATA)."""
    return [html.unescape(t) for t in _TEXT.findall(markup) if html.unescape(t).strip()]


def bar_widths(markup: str) -> list[str]:
    """The widths of the elements marked `data-bar` (a table's bars), in order, as their style writes them."""
    return [w.strip() for w in _BAR_WIDTH.findall(markup)]


@dataclass(frozen=True)
class Shown:
    """What one keyed container shows at a slider's value, beyond a markdown text: its text pieces, the widths of
    its bars (`bar_widths`), its text view's character outlined (rnnviz.figures.sample.text_markup's index) or whole
    markup (`html`, text_markup's), or `stale`: it does not follow (greyed through a drag, until the release redraws
    it).

    Attributes:
        pieces: the container's text pieces, in order (`pieces`, `html_pieces`); none: its words are not written.
        bars: the widths of its data-bar elements, in order, as their style writes them (`bar_widths`).
        mark: the index of the character its text view outlines; None: the outline is left where it is.
        html: its text view's whole markup; None: the markup is left as it is.
        stale: it does not follow the slider: greyed through a drag.
    """

    pieces: tuple[str, ...] = ()
    bars: tuple[str, ...] = ()
    mark: int | None = None
    html: str | None = None
    stale: bool = False

    @classmethod
    def of(cls, *texts: str, html_at: tuple[int, ...] = ()) -> Shown:
        """The texts of one container, in order: markdown, or HTML where their index is in `html_at`."""
        return cls(tuple(p for j, t in enumerate(texts) for p in (html_pieces(t) if j in html_at else pieces(t))),
                   tuple(w for j, t in enumerate(texts) if j in html_at for w in bar_widths(t)))


def as_pieces(text) -> list[str]:
    """One container's pieces, whichever way a page wrote them: markdown, a list of pieces, or a Shown."""
    return list(text.pieces) if isinstance(text, Shown) else text if isinstance(text, list) else pieces(text)


def followed(texts: list[dict]) -> dict:
    """The texts at each of a set's values ({container key: markdown, pieces or Shown} each) as the set carries them:
    {words: {key: packed pieces}, bars: {key: packed widths}, marks: {key: [index per value]}, html: {key: [markup per
    value]}, stale: [key]}, each part only where some text has it."""
    out: dict = {}
    for key in texts[0]:
        shown = [t[key] if isinstance(t[key], Shown) else Shown(tuple(as_pieces(t[key]))) for t in texts]
        if any(s.pieces for s in shown):
            out.setdefault("words", {})[key] = packed([list(s.pieces) for s in shown])
        if any(s.bars for s in shown):
            out.setdefault("bars", {})[key] = packed([list(s.bars) for s in shown])
        if any(s.mark is not None for s in shown):
            out.setdefault("marks", {})[key] = [s.mark for s in shown]
        if any(s.html is not None for s in shown):
            out.setdefault("html", {})[key] = [s.html for s in shown]
        if any(s.stale for s in shown):
            out.setdefault("stale", []).append(key)
    return out
