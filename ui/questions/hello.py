"""Train "hello" yourself: the softmax's first probability for the page's scores; at the reveal, the page's
softmax bars with the class's answers on the first."""
from __future__ import annotations

import numpy as np

from rnnviz.figures import hello as hello_figures
from rnnviz.lessons.hello import vocabulary
from rnnviz.lessons.presets import SOFTMAX_WORD
from rnnviz.nn.sampling import softmax
from rnnviz.rooms import questions as Q
from rnnviz.rooms.figure import answers_on
from rnnviz.rooms.room import Question
from rnnviz.text import fmt, parse_sequence
from ui.questions.base import REVEAL_HEIGHT, Made, Rounds


def _scores(s: dict) -> list[float]:
    return parse_sequence(s["scores"], max_len=64, name="list of scores")


def first_probability(s: dict, lm=None) -> Made:
    scores = _scores(s)
    a = Q.softmax_first(scores)
    return Made(f"Scores {', '.join(f'{v:g}' for v in scores)} go through a softmax. What probability does the "
                f"first one get? (between 0 and 1)", (), a, f"p = {fmt(a.truth)}")


def chart_softmax(s: dict, q: Question, rounds: Rounds, fs: float):
    sc = _scores(s)
    vocab = vocabulary(SOFTMAX_WORD)
    labels = vocab if len(sc) == len(vocab) else [f"#{k + 1}" for k in range(len(sc))]
    fig = hello_figures.softmax_bars(labels, softmax(np.asarray(sc, float)), font_scale=fs, title="softmax(scores)")
    fig.update_layout(height=REVEAL_HEIGHT).update_yaxes(range=[0, 1.05])
    return answers_on(fig, labels[0], rounds, q.truth, "exact p")
