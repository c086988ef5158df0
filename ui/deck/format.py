"""A deck file: a title, its minutes, and an ordered list of steps, each a lesson page (its url path), that page's
setup as a link query, an optional speaker note and an optional class question (one of the page's asks in the lesson
registry). Read with tomllib, written by `dump`; `check` names each step a page or a question would refuse."""
from __future__ import annotations

import functools
import json
import re
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the same parser as a package, if installed (pip install tomli)
    try:
        import tomli as tomllib
    except ModuleNotFoundError:
        tomllib = None

from ui.lessons.registry import LESSONS, lesson as find
from ui.questions.link import bad_names, make, read_link

DECKS = Path(__file__).resolve().parents[2] / "decks"  # the shipped decks, beside app.py
NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")  # a deck's name in a link: its file's stem, never a path
MAX_STEPS = 200
STEP_KEYS = ("page", "setup", "note", "ask")


@dataclass(frozen=True)
class Step:
    page: str  # a lesson's url path, as in the lesson registry
    setup: str = ""  # that page's link query, e.g. "wh=2&x=1,0,0"; empty: the page's defaults
    note: str = ""  # the speaker note (the presenter view shows it)
    ask: str = ""  # one of the page's question ids; empty: no question at this step


@dataclass(frozen=True)
class Deck:
    name: str
    title: str
    minutes: int
    steps: tuple[Step, ...]


class DeckError(ValueError):
    """A deck that cannot be run, with every reason, each naming its step."""

    def __init__(self, problems: list[str]):
        super().__init__("; ".join(problems))
        self.problems = problems


def parse(text: str, name: str) -> Deck:
    """A deck from its TOML text, or DeckError saying what is missing or of the wrong kind."""
    if tomllib is None:
        raise DeckError(["Reading a deck needs Python 3.11 or later, or on Python 3.10 the tomli package "
                         "(pip install tomli)."])
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise DeckError([f"The deck file is not valid TOML: {e}."]) from None
    problems = []
    title, minutes, raw = data.get("title", name), data.get("minutes", 0), data.get("step", [])
    if not isinstance(title, str):
        problems.append("`title` must be text.")
    if isinstance(minutes, bool) or not isinstance(minutes, int) or minutes < 0:
        problems.append("`minutes` must be a whole number.")
    if not isinstance(raw, list) or not raw:
        raise DeckError(problems + ["The deck has no steps: write each as a `[[step]]` table."])
    if len(raw) > MAX_STEPS:
        raise DeckError(problems + [f"The deck has {len(raw)} steps; at most {MAX_STEPS}."])
    steps = []
    for k, st in enumerate(raw, 1):
        if not isinstance(st, dict):
            problems.append(f"Step {k} is not a table.")
            continue
        extra = sorted(set(st) - set(STEP_KEYS))
        wrong = [key for key in STEP_KEYS if key in st and not isinstance(st[key], str)]
        if extra:
            problems.append(f"Step {k} has keys a step does not know: {', '.join(extra)} (use {', '.join(STEP_KEYS)}).")
        if wrong:
            problems.append(f"Step {k}: {', '.join(wrong)} must be text in quotes.")
        if "page" not in st:
            problems.append(f"Step {k} names no `page`.")
        if not (extra or wrong or "page" not in st):
            steps.append(Step(**{key: st[key].strip() for key in STEP_KEYS if key in st}))
    if problems:
        raise DeckError(problems)
    return Deck(name, title, minutes, tuple(steps))


def check(deck: Deck) -> list[str]:
    """Every step a lesson page or its question would refuse: an unknown page, a setup name the page does not have or
    a value it refuses, an unknown question, or a question its setup cannot make."""
    pages = ", ".join(ls.url for ls in LESSONS)
    problems = []
    for k, step in enumerate(deck.steps, 1):
        ls = find(step.page)
        if ls is None:
            problems.append(f"Step {k}: no lesson page `{step.page}` (the pages are {pages}).")
            continue
        lm = ls.model() if ls.model else None
        names = [n for n, _ in urllib.parse.parse_qsl(step.setup, keep_blank_values=True)]
        known = {p.url for p in ls.link(lm)} | {"classroom"}
        if unknown := [n for n in names if n not in known]:
            problems.append(f"Step {k} ({step.page}): the setup names {', '.join(f'`{n}`' for n in unknown)}, which "
                            f"the page does not have.")
        if bad := read_link(step.page, step.setup, lm)[1]:
            problems.append(f"Step {k} ({step.page}): the page refuses the setup's value for "
                            f"{bad_names(step.page, bad, lm)}.")
        if step.ask and step.ask not in ls.asks:
            problems.append(f"Step {k} ({step.page}): no question `{step.ask}` on this page (it asks "
                            f"{', '.join(ls.asks) or 'none'}).")
        elif step.ask and not bad and make(step.page, step.ask, step.setup, lm)[0] is None:
            problems.append(f"Step {k} ({step.page}): its setup cannot make the question `{step.ask}` (no single "
                            f"answer, or too long for a phone).")
    return problems


def names() -> list[str]:
    """The shipped decks' names, in file order."""
    return sorted(p.stem for p in DECKS.glob("*.toml") if NAME.fullmatch(p.stem))


def load(name: str) -> Deck:
    """The shipped deck `name`, checked; DeckError with every problem, or that there is no such deck."""
    path = DECKS / f"{name}.toml"
    if not NAME.fullmatch(name or "") or not path.is_file():
        raise DeckError([f"There is no deck `{name[:64]}` (the decks are {', '.join(names()) or 'none'})."])
    return _load(str(path), path.stat().st_mtime_ns)


@functools.lru_cache(maxsize=16)
def _load(path: str, mtime_ns: int) -> Deck:  # checked once per file version: a deck runs on every rerun
    deck = parse(Path(path).read_text(encoding="utf-8"), Path(path).stem)
    if problems := check(deck):
        raise DeckError(problems)
    return deck


def _string(s: str) -> str:
    """A TOML basic string: JSON's escapes (\\", \\\\, \\n, \\uXXXX) are TOML's."""
    return json.dumps(s, ensure_ascii=False)


def dump(deck: Deck) -> str:
    """The deck as the TOML this module reads (parse(dump(d)) == d)."""
    lines = [f"title = {_string(deck.title)}", f"minutes = {int(deck.minutes)}"]
    for step in deck.steps:
        lines += ["", "[[step]]"] + [f"{key} = {_string(getattr(step, key))}" for key in STEP_KEYS
                                     if key == "page" or getattr(step, key)]
    return "\n".join(lines) + "\n"
