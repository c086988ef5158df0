"""What a class question is made of: a maker turns a lesson page's setup (read from its link) into words and an
exact answer (`Made`); an `Ask` names one question for the lecturer's menu with its maker and the lesson's own
chart for the reveal. Also how the Class page shows text (`plain`), and what several lessons' questions share.
Numbers come from rnnviz.rooms.questions."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from rnnviz.lessons.vector import encode_word, parse_vectors, parse_vocab
from rnnviz.rooms import questions as Q
from rnnviz.rooms.room import Question
from rnnviz.text import fmt, strip_bidi
from ui.widgets import md

Rounds = dict  # round -> the class's answers (numbers, or choice indices)
REVEAL_HEIGHT = 440  # the lesson's chart on the projector's first screen, under the one line of results


@dataclass(frozen=True)
class Made:
    prompt: str
    labels: tuple[str, ...]  # option labels (choice) or () for a number
    answer: Q.Answer
    truth_text: str  # the answer in words, for the reveal
    why: str = ""  # the sentence that explains the answer, shown under the reveal


@dataclass(frozen=True)
class Ask:
    """One question a lesson page offers: its line in the lecturer's menu, its maker (the page's setup and, for the
    sampling page, its model -> the question, or None where the setup has no single answer), and the lesson's own
    chart with the class's answers on it (None: the reveal's histogram stands alone)."""

    label: str
    make: Callable[[dict, Any], Made | None]
    chart: Callable[[dict, Question, Rounds, float], Any] | None = None


def plain(text: str) -> str:
    """Class-page text (a question's words, an answer, a nickname, a message quoting a link) for st.markdown, as
    the lesson pages show a visitor's text (ui.widgets.md: shown as typed, an address never a link), and without the
    direction controls: a right-to-left override reversed the rest of a question on every phone."""
    return md(strip_bidi(text))


def truth_text(q: Question) -> str:
    return q.options[int(q.truth)] if q.kind == "choice" else fmt(q.truth)


def inputs(s: dict) -> tuple[np.ndarray, str]:
    """A vector page's inputs (the vector and gates pages read them alike): a word's one-hot rows or typed vectors."""
    if s["in"] == "chars":
        return encode_word(s["word"], parse_vocab(s["vocab"])), f"the word “{s['word']}”"
    x = parse_vectors(s["vec"])
    return x, f"{len(x)} typed input vectors"


def tally(rounds: Rounds, names: tuple[str, ...]) -> str:
    """The class's votes, a line an option (the box tally_on adds in a strip under the chart): "LSTM: 12", or
    "LSTM: 12 → 20" over two rounds."""
    counts = [np.bincount(np.asarray(a, int), minlength=len(names)) for _, a in sorted(rounds.items())]
    head = "the class" + (f", rounds {' → '.join(str(r) for r in sorted(rounds))}" if len(rounds) > 1 else "")
    return "<br>".join([head] + [f"{o}: " + " → ".join(str(c[k]) for c in counts) for k, o in enumerate(names)])
