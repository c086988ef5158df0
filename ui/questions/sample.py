"""Sample a trained model: which character the Shakespeare LSTM finds most likely after the page's prime, and with
what probability. Its questions read the shipped model, and the page's link names depend on that model."""
from __future__ import annotations

from rnnviz.charlm import SHIPPED_MODEL
from rnnviz.rooms import questions as Q
from rnnviz.text import InputError, fmt
from ui.loaders import shipped_model
from ui.questions.base import Made
from ui.sample import controls as sample_words
from ui.urlstate import Param

MODEL = SHIPPED_MODEL  # as the sampling page loads it: the clone's models/, or an install's rnnviz/models/


def model():
    return shipped_model(str(MODEL))


def link(lm) -> list[Param]:
    """The page's link names for its model (its k, layers and units); without one, the prime alone. Their labels are
    registered by the declaration: the Class page may come before the sampling page."""
    return sample_words.declared(lm).params if lm is not None else sample_words.prime_only()


def _char(c: str) -> str:
    return {"\n": "a line break ↵", " ": "a space ␣"}.get(c, f"“{c}”")


def _prime(s: dict, lm) -> str:
    """The link's prime, or InputError saying what the model cannot read: an empty prime, or a character outside its
    vocabulary, was a traceback on the Class page."""
    if not s["prime"]:
        raise InputError("The prime text is empty: the model needs at least one character to read.")
    try:
        lm.encode(s["prime"])
    except ValueError as e:
        raise InputError(f"The prime text has characters {e}.") from None
    return s["prime"]


def next_char(s: dict, lm=None) -> Made:
    a = Q.next_character(lm, _prime(s, lm))
    return Made(f"The Shakespeare LSTM has read “{s['prime']}”. Which character does it find most likely next?",
                tuple(_char(c) for c in a.options), a,
                f"{_char(a.options[int(a.truth)])}, p = {fmt(a.facts[int(a.truth)])}",
                "The model's last state, through W_y and a softmax, gives every character a probability; the "
                "question asks for the largest, which sampling draws most often, not always.")


def next_probability(s: dict, lm=None) -> Made:
    a = Q.next_probability(lm, _prime(s, lm))
    return Made(f"The Shakespeare LSTM has read “{s['prime']}”. What probability does it give its most likely next "
                f"character? (between 0 and 1)", (), a, f"p = {fmt(a.truth)} for {_char(lm.itos[int(a.facts[0])])}",
                "The probability is the softmax of the model's scores after the prime: how sure it is depends on how "
                "much the prime narrows what can follow.")


EFFECT = {"rises": "it rises", "falls": "it falls", "same": "it stays the same"}


def temperature(s: dict, lm=None) -> Made:
    a = Q.temperature_effect(lm, _prime(s, lm), s["temp"])
    return Made(f"The Shakespeare LSTM has read “{s['prime']}”. Sampling at temperature τ = {s['temp']:g} instead of "
                f"1: what happens to the probability of its most likely next character?",
                tuple(EFFECT[o] for o in a.options), a,
                f"{EFFECT[a.options[int(a.truth)]]}: {fmt(a.facts[0])} → {fmt(a.facts[1])}",
                "Temperature divides the scores: τ < 1 makes the favourite more likely and the text safer, τ > 1 "
                "spreads the probability over more characters. It never changes which one is the favourite.")
