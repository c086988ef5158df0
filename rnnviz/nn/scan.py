"""The parallel scan of a linear recurrence h_t = a_t h_{t-1} + b_t (Blelloch 1990; Martin & Cundy 2018,
arXiv 1709.04057): the pairs (a, b) compose by the associative operator

    (a1, b1) o (a2, b2) = (a1 a2, a2 b1 + b2)        "do step 1, then step 2"
so every prefix (a_1, b_1) o ... o (a_t, b_t) = (a_1...a_t, h_t) can be formed as a tree, O(log T) levels deep.
Two scans, each level one vectorised NumPy operation over all nodes: Hillis-Steele (log2 T levels, T log T work) and
Blelloch's work-efficient one (up-sweep, down-sweep to exclusive prefixes, then one level applying each step to its
prefix: 2 log2 n + 1 levels, 2(n - 1) + T work, n = T rounded up to a power of two); the levels kept for drawing are
all but that last one.
`a` and `b` may be real or complex, (T,) or (T, n): n independent units scanned at once.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def combine(a1, b1, a2, b2):
    """(a1, b1) o (a2, b2) = (a1 a2, a2 b1 + b2): the step (a1, b1) followed by (a2, b2)."""
    return a1 * a2, a2 * b1 + b2


@dataclass
class ScanResult:
    """A scan's answer and how it got there.

    Attributes:
        h: (T, ...) h_1..h_T.
        levels_a: each level's a-values, level 0 the inputs (node i of level k: a product of a's).
        levels_b: each level's b-values (node i of the last Hillis-Steele level: h_i).
        work: applications of the operator (one per node per level; the loop's is T - 1).
        depth: levels that must run one after another (the loop's is T - 1).
    """

    h: np.ndarray
    levels_a: list[np.ndarray]
    levels_b: list[np.ndarray]
    work: int
    depth: int


def _fold(a, b, h0):
    """Inputs as arrays, with h0 folded into the first step (b_1 += a_1 h0), so every scan starts from 0."""
    a, b = np.asarray(a), np.asarray(b)
    a, b = np.broadcast_arrays(a, b)
    dtype = np.result_type(a, b, np.float64) if h0 is None else np.result_type(a, b, np.asarray(h0), np.float64)
    a, b = a.astype(dtype, copy=True), b.astype(dtype, copy=True)
    if h0 is not None and len(b):
        b[0] = b[0] + a[0] * h0
    return a, b


def sequential(a, b, h0=None) -> ScanResult:
    """The loop h_t = a_t h_{t-1} + b_t: T - 1 operator applications, each waiting for the last."""
    a, b = _fold(a, b, h0)
    h = b.copy()
    for t in range(1, len(h)):
        h[t] = a[t] * h[t - 1] + b[t]
    steps = max(len(h) - 1, 0)
    return ScanResult(h, [a], [b], steps, steps)


def hillis_steele(a, b, h0=None) -> ScanResult:
    """Level k combines node i with node i - 2^k (where one exists): after ceil(log2 T) levels node i holds the
    composition of steps 1..i, whose b is h_i."""
    A, B = _fold(a, b, h0)
    T = len(A)
    levels_a, levels_b, work, k = [A], [B], 0, 1
    while k < T:
        A2, B2 = A.copy(), B.copy()
        A2[k:], B2[k:] = combine(A[:-k], B[:-k], A[k:], B[k:])
        A, B = A2, B2
        levels_a.append(A)
        levels_b.append(B)
        work += T - k
        k *= 2
    return ScanResult(B, levels_a, levels_b, work, len(levels_a) - 1)


def blelloch(a, b, h0=None) -> ScanResult:
    """Up-sweep (pairwise totals, log2 n levels), down-sweep (exclusive prefixes, log2 n levels), then one level
    applying each step to its prefix; padded to n = 2^ceil(log2 T) with the identity (1, 0)."""
    A0, B0 = _fold(a, b, h0)
    T = len(A0)
    if T == 0:
        return ScanResult(B0, [A0], [B0], 0, 0)
    n = 1 << math.ceil(math.log2(T)) if T > 1 else 1
    A = np.ones((n, *A0.shape[1:]), A0.dtype)
    B = np.zeros((n, *B0.shape[1:]), B0.dtype)
    A[:T], B[:T] = A0, B0
    levels_a, levels_b, work, L = [A.copy()], [B.copy()], 0, int(math.log2(n))
    for d in range(L):  # up-sweep: node r takes the total of its subtree
        r = np.arange((2 << d) - 1, n, 2 << d)
        A[r], B[r] = combine(A[r - (1 << d)], B[r - (1 << d)], A[r], B[r])
        levels_a.append(A.copy())
        levels_b.append(B.copy())
        work += len(r)
    A[-1], B[-1] = 1, 0  # the identity: nothing before the first step
    for d in reversed(range(L)):  # down-sweep: left child gets the parent's prefix, right the prefix o left total
        r = np.arange((2 << d) - 1, n, 2 << d)
        left = r - (1 << d)
        PA, PB, LA, LB = A[r].copy(), B[r].copy(), A[left].copy(), B[left].copy()
        A[left], B[left] = PA, PB
        A[r], B[r] = combine(PA, PB, LA, LB)
        levels_a.append(A.copy())
        levels_b.append(B.copy())
        work += len(r)
    _, h = combine(A[:T], B[:T], A0, B0)  # the exclusive prefix, then the step itself
    return ScanResult(h, levels_a, levels_b, work + T, 2 * L + 1)


def costs(T: int) -> dict[str, tuple[int, int]]:
    """(work, depth) of the loop and both scans for T steps, counted as the functions above perform them (no steps:
    no work, as the scans of an empty sequence do)."""
    if T < 1:
        return {"loop": (0, 0), "hillis_steele": (0, 0), "blelloch": (0, 0)}
    lvl = math.ceil(math.log2(T)) if T > 1 else 0
    hs = sum(T - (1 << k) for k in range(lvl))
    n = 1 << lvl
    return {"loop": (max(T - 1, 0), max(T - 1, 0)), "hillis_steele": (hs, lvl),
            "blelloch": (2 * (n - 1) + T, 2 * lvl + 1)}
