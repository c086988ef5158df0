"""What the sampling page shows about a run: per-character probabilities, one position's distributions,
and labels for characters that do not print."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from rnnviz.charlm import CharLM, Trace
from rnnviz.sampling import entropy


def label(ch: str) -> str:
    """A visible stand-in for whitespace: newline ↵, space ·, tab →."""
    return {"\n": "↵", " ": "·", "\t": "→"}.get(ch, ch)


def char_probs(lm: CharLM, trace: Trace) -> np.ndarray:
    """p(text[i] | text[:i]) under the model at temperature 1, for i >= 1; NaN for the first character."""
    ids = [lm.stoi[c] for c in trace.text]
    p = np.full(len(ids), np.nan)
    for i in range(1, len(ids)):
        p[i] = trace.probs[i - 1][ids[i]]
    return p


@dataclass
class Position:
    """The distributions behind the character at one position."""

    index: int
    char: str
    generated: bool  # False for a character of the prime (read, not sampled)
    model_top: list[tuple[str, float]]  # top 10 of the model's distribution (temperature 1)
    sampled_top: list[tuple[str, float]] | None  # top 10 of the distribution actually sampled from
    model_entropy: float  # nats
    sampled_entropy: float | None
    p_char: float  # the model's probability of the character that appeared
    surprisal_bits: float


def position(lm: CharLM, trace: Trace, i: int, k: int = 10) -> Position | None:
    """The distributions that produced text[i]; None for i = 0 (nothing precedes it)."""
    if not 1 <= i < len(trace.text):
        return None
    pm = trace.probs[i - 1]
    gen = i >= trace.generated_from
    ps = trace.sampled_probs[i - trace.generated_from] if gen and trace.sampled_probs else None
    top = lambda p: [(lm.itos[j], float(p[j])) for j in np.argsort(-p, kind="stable")[:k]]  # noqa: E731
    pc = float(pm[lm.stoi[trace.text[i]]])
    return Position(i, trace.text[i], gen, top(pm), top(ps) if ps is not None else None, entropy(pm),
                    entropy(ps) if ps is not None else None, pc, -math.log2(pc) if pc > 0 else math.inf)
