"""What the sampling page shows about a run: per-character probabilities, one position's distributions,
labels for characters that do not print, and hidden units that track features of the text (after Karpathy,
Johnson and Fei-Fei, 'Visualizing and Understanding Recurrent Networks')."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from rnnviz.charlm import CharLM, Trace
from rnnviz.nn.sampling import entropy


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


FEATURES = {
    "newline": "the character is a line break",
    "position in line": "characters since the last line break",
    "speaker name": "inside a speaker's name (a line like 'ROMEO:' up to the colon)",
    "start of line": "the first character of a line",
    "inside quotes": "between an opening and a closing double quote",
    "space": "the character is a space",
    "vowel": "the character is a vowel",
    "uppercase": "the character is an uppercase letter",
}


def text_features(text: str) -> dict[str, np.ndarray]:
    """One value per character for each feature in FEATURES."""
    T = len(text)
    f = {k: np.zeros(T) for k in FEATURES}
    col, quoted = 0, False
    speaker = np.zeros(T)
    for m in re.finditer(r"(?m)^([A-Z][A-Za-z' ]*[A-Za-z]):$", text):
        speaker[m.start(1):m.end(1)] = 1
    for t, ch in enumerate(text):
        f["position in line"][t] = col
        f["start of line"][t] = float(col == 0)
        if ch == '"':
            quoted = not quoted
        f["inside quotes"][t] = float(quoted and ch != '"')
        f["newline"][t] = float(ch == "\n")
        f["space"][t] = float(ch == " ")
        f["vowel"][t] = float(ch.lower() in "aeiou")
        f["uppercase"][t] = float(ch.isupper())
        col = 0 if ch == "\n" else col + 1
    f["speaker name"] = speaker
    return f


@dataclass
class UnitHit:
    feature: str
    layer: int
    kind: str  # "h" or "c"
    unit: int
    r: float  # Pearson correlation between the unit's activation and the feature


def rank_units(h: np.ndarray, c: np.ndarray | None, text: str, top: int = 3) -> list[UnitHit]:
    """The `top` units most correlated (by |r|) with each feature; h and c are (T, L, H) states after each char."""
    feats = text_features(text)
    T, L, H = h.shape
    acts = [("h", h)] + ([("c", c)] if c is not None else [])
    A = np.concatenate([a.reshape(T, L * H) for _, a in acts], axis=1)  # (T, K*L*H)
    A = A - A.mean(axis=0)
    a_norm = np.sqrt((A ** 2).sum(axis=0))
    hits = []
    for name, v in feats.items():
        v = v - v.mean()
        vn = np.sqrt((v ** 2).sum())
        if vn == 0:
            continue  # the feature never varies in this text (e.g. no quotes)
        with np.errstate(invalid="ignore", divide="ignore"):
            r = (v @ A) / (vn * a_norm)
        r = np.nan_to_num(r)
        for j in np.argsort(-np.abs(r))[:top]:
            kind_idx, rest = divmod(int(j), L * H)
            layer, unit = divmod(rest, H)
            hits.append(UnitHit(name, layer, acts[kind_idx][0], unit, float(r[j])))
    return hits
