"""Find hidden units that track something: correlate each unit's activation over a text with simple
features of that text (Karpathy, Johnson and Fei-Fei, 'Visualizing and Understanding Recurrent Networks')."""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

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
