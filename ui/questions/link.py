"""A lesson page's link read as the page reads it (its own link names, defaults and parsers, from the lesson
registry), and the class question one of its asks makes from that setup, or a message saying why it cannot."""
from __future__ import annotations

import urllib.parse

from rnnviz.rooms.room import MAX_SETUP, MAX_TEXT, Question, TooLong
from rnnviz.text import InputError
from ui.lessons.registry import lesson as find
from ui.questions.base import Made, plain
from ui.urlstate import control_name


def setups(url: str, lm=None) -> dict:
    """The page's link names, each with its default and parser."""
    return {p.url: (p.default, p.parse) for p in find(url).link(lm)}


def bad_names(url: str, bad: list[str], lm=None) -> str:
    """The link names `bad` as the lesson page's own notice names them: each control's label, its link name after."""
    by_url = {p.url: p for p in find(url).link(lm)}
    return ", ".join(control_name(by_url[u]) for u in bad)


def read_link(url: str, link: str, lm=None) -> tuple[dict, list[str]]:
    """The lesson page's setup from its link (or the bare query): each value parsed as the page parses it; values
    missing or refused take the page's default. Also the names refused."""
    raw = link.strip()
    query = urllib.parse.urlsplit(raw).query if "?" in raw or "://" in raw else raw
    given = dict(urllib.parse.parse_qsl(query, keep_blank_values=True))
    out, bad = {}, []
    for name, (default, parse) in setups(url, lm).items():
        out[name] = default
        if name in given:
            try:
                out[name] = parse(given[name])
            except (ValueError, TypeError, OverflowError):
                bad.append(name)
    return out, bad


def link_query(url: str, s: dict, lm=None) -> str:
    """The setup as a link query (only values that differ from the page's defaults), for the CSV and the reveal."""
    default = setups(url, lm)
    return urllib.parse.urlencode({k: v for k, v in s.items()
                                   if v != default[k][0] and isinstance(v, (str, int, float))})


def make(url: str, qid: str, link: str, lm=None) -> tuple[Question | None, Made | None, str | None]:
    """The question for the store, its words, and a message (markdown) when the link's setup cannot make it."""
    s, bad = read_link(url, link, lm)
    note = f"The link's value for {bad_names(url, bad, lm)} was not valid, so the page's default is used. " \
        if bad else ""
    try:
        made = find(url).asks[qid].make(s, lm)
    except InputError as e:  # it may quote the link's text: escaped, never a link or formatting
        return None, None, f"{note}{plain(str(e))}"
    if made is None:
        return None, None, note + ("This setup has no single answer for that question (e.g. the state never "
                                   "settles, H is outside 2-12, or the weights were edited by hand); pick another "
                                   "question or change the setup.")
    a, setup = made.answer, link_query(url, s, lm)
    try:
        q = Question(made.prompt, a.kind, a.truth, made.labels, a.lo, a.hi, a.tol, url, setup, qid)
    except TooLong:  # a long input sequence or text: said, not a traceback
        return None, None, note + (f"This setup is too long to ask about: its question would run to "
                                   f"{len(made.prompt):,} characters (a phone shows at most {MAX_TEXT}) and its link "
                                   f"to {len(setup):,} (at most {MAX_SETUP:,}). Shorten the input sequence or the "
                                   "text, then ask again.")
    return q, made, note or None

