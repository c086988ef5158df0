"""The words beside a scrubbed chart as the browser shows them: a markdown text's pieces, the text of each element it
becomes (bold, a table cell, a line), in order. ui/live/scrub.js writes a frame's pieces over the text the page drew,
piece for piece, so the words follow a drag with the server's own sentences; a text whose pieces do not line up with
the page's (another shape: a term that comes and goes) is greyed instead, until the release redraws it."""
from __future__ import annotations

import re

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
