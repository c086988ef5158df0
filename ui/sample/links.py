"""What a link may say on the sampling page: parsers (and writers) of link values that are not plain numbers or
choices: the forced characters, a unit counted from 1 on the page and from 0 in a link."""
from __future__ import annotations

from rnnviz.lessons import sample as lesson
from ui.urlstate import integer


def parse_branches(s: str) -> dict[int, str]:
    """'20.120,45.10' -> {20: 'x', 45: '\\n'}: generated position . code point of the forced character."""
    out = {}
    for part in filter(None, s.split(",")):
        pos, code = part.split(".")
        pos, code = int(pos), int(code)
        if not (0 <= pos < lesson.MAX_NEW and 0 <= code < 0x110000) or 0xD800 <= code < 0xE000 \
                or len(out) >= lesson.MAX_BRANCHES:
            raise ValueError(s)
        out[pos] = chr(code)
    return out


def dump_branches(forced: dict[int, str]) -> str:
    return ",".join(f"{pos}.{ord(ch)}" for pos, ch in sorted(forced.items()))


def from_0(hidden: int) -> tuple:
    """A unit's parser and writer for links: the page writes units from 1, a link keeps PyTorch's index from 0, as
    links did before the page counted from 1, so a link shared then (`unit=414`, c[414]) opens the same unit now."""
    parse = integer(0, hidden - 1)
    return (lambda s: parse(s) + 1), (lambda v: str(int(v) - 1))
