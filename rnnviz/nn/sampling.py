"""Softmax with temperature, and top-k / top-p (nucleus) filtering of a distribution."""
from __future__ import annotations

import numpy as np


def softmax(scores: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    """exp(s / T) normalised; stable for large scores."""
    z = np.asarray(scores, dtype=np.float64) / temperature
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


def entropies(P: np.ndarray) -> np.ndarray:
    """Shannon entropy in nats of each row of P (..., V), at once; float64, 0.0 for a certain outcome."""
    P = np.asarray(P, dtype=np.float64)
    return -(P * np.log(np.where(P > 0, P, 1.0))).sum(axis=-1) + 0.0
