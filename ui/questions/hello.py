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
                f"first one get? (between 0 and 1)", (), a, f"p = {fmt(a.truth)}",
                "softmax(s)ᵢ = exp(sᵢ) / Σ exp(sⱼ): a difference of 1 in score is a factor e ≈ 2.7 in probability.")


def not_most_likely(s: dict, lm=None) -> Made:
    scores = _scores(s)
    a = Q.not_most_likely(scores)
    return Made(f"Scores {', '.join(f'{v:g}' for v in scores)} go through a softmax, and the model samples from it "
                f"(temperature 1). What share of samples are not the most likely token? (between 0 and 1)", (), a,
                f"{fmt(a.truth)}",
                "Sampling draws each token with its probability, not the most likely one every time; always taking "
                "the maximum would write the same letter forever.")


def hotter(s: dict, lm=None) -> Made:
    scores = _scores(s)
    a = Q.temperature_first(scores, s["temp"])
    return Made(f"Scores {', '.join(f'{v:g}' for v in scores)} are divided by the temperature τ = {s['temp']:g} "
                f"before the softmax. What probability does the first one get? (between 0 and 1)", (), a,
                f"p = {fmt(a.truth)}",
                "Dividing the scores by τ < 1 stretches their gaps and sharpens the distribution; τ > 1 flattens it "
                "toward uniform. The order of the tokens never changes.")


def chart_softmax(s: dict, q: Question, rounds: Rounds, fs: float):
    sc = _scores(s)
    vocab = vocabulary(SOFTMAX_WORD)
    labels = vocab if len(sc) == len(vocab) else [f"#{k + 1}" for k in range(len(sc))]
    fig = hello_figures.softmax_bars(labels, softmax(np.asarray(sc, float)), font_scale=fs, title="softmax(scores)")
    fig.update_layout(height=REVEAL_HEIGHT).update_yaxes(range=[0, 1.05])
    return answers_on(fig, labels[0], rounds, q.truth, "exact p")
