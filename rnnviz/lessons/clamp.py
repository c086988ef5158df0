"""Switch a unit off, for the sampling page: the same sample drawn again with one hidden unit (or LSTM cell-state unit)
held at a value in every step (`rnnviz.charlm.Clamp`), and what changed: the text (same seed), the next-character
distribution at each position of the first text, KL(before ‖ after), and statistics of the text that the hidden-unit
finder's features describe (line length for "position in line", ...). An intervention, beside the finder's
correlations (Karpathy, Johnson and Fei-Fei 2015). Plain values in, a dataclass of arrays and numbers out."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

import numpy as np

from rnnviz.charlm import CharLM, Clamp
from rnnviz.charlm.inspect import text_features
from rnnviz.lessons.sample import Sample
from rnnviz.nn.sampling import SamplingSettings

MAX_VALUE = 10.0  # a clamp's value lies in [-MAX_VALUE, MAX_VALUE]


SPEAKER = re.compile(r"[A-Z][A-Za-z' ]*[A-Za-z]:")  # a line that names who speaks next (as inspect's feature)


def line_lengths(text: str) -> list[int]:
    """The length of every line a line break ends (the text's unfinished last line is left out)."""
    return [len(line) for line in text.split("\n")[:-1]]


def speech_line_lengths(text: str) -> list[int]:
    """The length of every ended line of speech: empty lines and speaker names ('ROMEO:') left out."""
    return [len(line) for line in text.split("\n")[:-1] if line and not SPEAKER.fullmatch(line)]


def _percent(feature: str) -> Callable[[str], float]:
    return lambda text: 100 * float(text_features(text)[feature].mean()) if text else float("nan")


STATISTICS: dict[str, Callable[[str], float]] = {  # per finder feature: one number of a text that shows it
    "newline": lambda t: 100 * t.count("\n") / max(len(t), 1),  # line breaks per 100 characters
    "position in line": lambda t: float(np.mean(speech_line_lengths(t))) if speech_line_lengths(t) else float("nan"),
    "speaker name": lambda t: float(sum(1 for line in t.split("\n") if SPEAKER.fullmatch(line))),  # 'NAME:' lines
    "start of line": lambda t: float(len(line_lengths(t))),  # lines ended
    "inside quotes": _percent("inside quotes"),  # % of characters
    "space": _percent("space"),
    "vowel": _percent("vowel"),
    "uppercase": _percent("uppercase"),
}


@dataclass
class ClampEffect:
    """A sample beside the same sample with one unit clamped; arrays are per character i of the first text.

    Attributes:
        clamp: the unit clamped, and its value.
        before: the page's sample (no unit clamped).
        after: the same settings and seed, the unit clamped.
        first_change: the first index where the texts differ; None: the same text.
        kl: (T,) KL(before ‖ after) in nats of the distributions (temperature 1) that predict before[i], the
            clamped model reading the same characters as the free one; NaN at 0.
        p_before: (T, V) float32 the free model's distribution for before[i] (row 0: NaN).
        p_after: (T, V) float32 the clamped model's, reading the same text.
        statistics: feature -> STATISTICS of (before, after, reference): the reference is another draw of the free
            model (the next seed), how much one draw varies on its own.
        unit_before: (T,) float32 the unit's own value after each character of the free run.
        char_p: feature -> the mean probability the free and the clamped model give the first text's own characters
            that have it (its line breaks for "position in line"), reading that text; NaN: none.
    """

    clamp: Clamp
    before: str
    after: str
    first_change: int | None
    kl: np.ndarray
    p_before: np.ndarray
    p_after: np.ndarray
    statistics: dict[str, tuple[float, float, float]]
    unit_before: np.ndarray
    char_p: dict[str, tuple[float, float]]

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.kl, self.p_before, self.p_after, self.unit_before)) + 8 * len(self.before)


def _log_softmax(h_last: np.ndarray, lm: CharLM) -> np.ndarray:
    """log p of every character from the last layer's states (T, H), in float64: (T, V)."""
    z = h_last.astype(np.float64) @ lm.W_y.T.astype(np.float64) + lm.b_y
    z -= z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


def kl_divergence(log_p: np.ndarray, log_q: np.ndarray) -> np.ndarray:
    """KL(p ‖ q) = Σ p (log p − log q) of each row, nats."""
    return np.einsum("tv,tv->t", np.exp(log_p), log_p - log_q)


def clamp_effect(lm: CharLM, s: SamplingSettings, before: Sample, clamp: Clamp, reference: str,
                 on_progress: Callable[[float], None] | None = None) -> ClampEffect:
    """`before` (the sample of `s`) against the same settings drawn with `clamp`'s unit held, and the clamped model
    reading `before`'s own text; `reference`, another free draw, is measured beside them. The work of two samples;
    `on_progress(fraction done)` between them."""
    clamp.check(lm)
    tr = lm.draw(s, keep_states=False, clamp=clamp)
    if on_progress:
        on_progress(0.5)
    forced = lm.run(before.text, clamp=clamp)  # the same characters read, the unit held
    lp, lq = _log_softmax(before.h[:-1, -1], lm), _log_softmax(forced.h[:-1, -1], lm)  # predict text[1:]
    nan_row = np.full((1, lm.vocab_size), np.nan, np.float32)
    first = next((i for i, (a, b) in enumerate(zip(before.text, tr.text)) if a != b), None)
    if first is None and len(before.text) != len(tr.text):
        first = min(len(before.text), len(tr.text))
    stats = {f: (stat(before.text), stat(tr.text), stat(reference)) for f, stat in STATISTICS.items()}  # prime too
    states = before.c if clamp.kind == "c" else before.h
    ids = np.array([lm.stoi[ch] for ch in before.text])
    rows = np.arange(1, len(ids))
    p_free, p_held = np.exp(lp[rows - 1, ids[1:]]), np.exp(lq[rows - 1, ids[1:]])  # (T-1,) p of before[1:]
    feats = text_features(before.text)
    feats["position in line"] = feats["newline"]  # a line-position unit's work shows where lines end
    char_p = {f: _means(feats[f][1:] > 0, p_free, p_held) for f in STATISTICS}
    return ClampEffect(clamp, before.text, tr.text, first, np.r_[np.nan, kl_divergence(lp, lq)],
                       np.concatenate([nan_row, np.exp(lp).astype(np.float32)]),
                       np.concatenate([nan_row, np.exp(lq).astype(np.float32)]), stats,
                       states[:, clamp.layer, clamp.unit].copy(), char_p)


def _means(mask: np.ndarray, *values: np.ndarray) -> tuple[float, ...]:
    return tuple(float(v[mask].mean()) if mask.any() else float("nan") for v in values)
