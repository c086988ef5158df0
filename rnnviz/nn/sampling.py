"""The sampling rule, written once: softmax(logits / T), then top-k and top-p (nucleus) filtering
(`sampling_distribution`); the settings that decide a character model's draw (`SamplingSettings`); entropy.
Every sampler (the character model's, the hello lesson's) and every distribution a page shows "after temperature,
top-k and top-p" come from `sampling_distribution`."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def softmax(scores: np.ndarray) -> np.ndarray:
    """exp(s) normalised along the last axis, in float64; stable for large scores."""
    z = np.asarray(scores, dtype=np.float64)
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def filter_probs(p: np.ndarray, top_k: int | None = None, top_p: float | None = None) -> np.ndarray:
    """Keep the k most likely entries and/or the smallest set whose mass reaches top_p; renormalise."""
    p = np.asarray(p, dtype=np.float64)
    keep = np.ones(p.shape, dtype=bool)
    order = np.argsort(-p, kind="stable")
    if top_k is not None and top_k > 0:
        keep[order[top_k:]] = False
    if top_p is not None and 0 < top_p < 1:
        cum = np.cumsum(p[order])
        cut = int(np.searchsorted(cum, top_p)) + 1  # smallest prefix with mass >= top_p
        keep[order[cut:]] = False
    q = np.where(keep, p, 0.0)
    return q / q.sum()


def sampling_distribution(logits: np.ndarray, temperature: float = 1.0, top_k: int | None = None,
                          top_p: float | None = None) -> np.ndarray:
    """What a character is drawn from: softmax(logits / temperature) in float64, then the k most likely (ties: lower
    index first) and of those the nucleus, the fewest most likely whose mass reaches top_p, renormalised.

    top_k None or 0 and top_p None or 1 are off: the softmax is returned as it is, not renormalised, so a seed draws
    what it always drew. logits / T is taken in the logits' own precision (float32 for a character model), as the
    samplers always have."""
    p = softmax(np.asarray(logits) / temperature)
    if top_k or (top_p is not None and top_p < 1):
        p = filter_probs(p, top_k, top_p)
    return p


@dataclass(frozen=True)
class SamplingSettings:
    """Everything that decides a character model's draw: equal settings give the same text (hashable: a cache key).
    `CharLM.draw` takes it; the sampling page keeps one per sample.

    Attributes:
        prime: what the model reads before it writes (at least one character).
        length: how many characters it writes after the prime.
        temperature: divides the scores before the softmax: below 1 surer, above 1 wilder.
        top_k: keep the k most likely characters; None or 0: off, 1: greedy.
        top_p: keep the nucleus of this probability mass; None or 1: off.
        seed: the same seed gives the same text; None: a fresh draw.
        forced: (generated position, character) pairs put there by hand, in order of position.
    """

    prime: str
    length: int
    temperature: float = 1.0
    top_k: int | None = None
    top_p: float | None = None
    seed: int | None = None
    forced: tuple[tuple[int, str], ...] = ()

    @property
    def greedy(self) -> bool:
        """Always the most likely character (top-k = 1): every seed gives the same text."""
        return self.top_k == 1

    def check(self) -> None:
        """ValueError naming what no model can draw: a negative length, an empty prime, a temperature not > 0."""
        if self.length < 0:
            raise ValueError("length must be 0 or more")
        if not self.prime:
            raise ValueError("the prime text must hold at least one character")
        if not self.temperature > 0 or not math.isfinite(self.temperature):
            raise ValueError("temperature must be a positive number")

    def distribution(self, logits: np.ndarray) -> np.ndarray:
        """`sampling_distribution` of `logits` with these settings' temperature, top-k and top-p."""
        return sampling_distribution(logits, self.temperature, self.top_k, self.top_p)


def entropies(P: np.ndarray) -> np.ndarray:
    """Shannon entropy in nats of each row of P (..., V), at once; float64, 0.0 for a certain outcome."""
    P = np.asarray(P, dtype=np.float64)
    return -(P * np.log(np.where(P > 0, P, 1.0))).sum(axis=-1) + 0.0
