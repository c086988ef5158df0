"""Reading a training corpus and splitting it: the first 90% of characters train, the last 10% validate."""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np


class CorpusError(ValueError):
    """A corpus that cannot be trained on."""


def read_corpus(path: str | os.PathLike) -> str:
    """Read a UTF-8 text file; refuse an empty, binary or non-UTF-8 file with a clear message."""
    raw = Path(path).read_bytes()
    if not raw.strip():
        raise CorpusError(f"{path} is empty")
    if b"\x00" in raw:
        raise CorpusError(f"{path} looks binary (it contains NUL bytes); give a UTF-8 text file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise CorpusError(f"{path} is not UTF-8 text (byte {e.start} cannot be decoded)") from None
    if len(text) < 3:
        raise CorpusError(f"{path} holds {len(text)} characters; at least 3 are needed")
    return text


@dataclass
class Split:
    """A corpus as character ids, cut into a training part and a validation part.

    Attributes:
        itos: the vocabulary; id -> character.
        train: (N_train,) int64 ids, the first part of the text.
        val: (N_val,) int64 ids, the rest.
        sha256: hex SHA-256 of the whole text's UTF-8 bytes.
    """

    itos: list[str]
    train: np.ndarray
    val: np.ndarray
    sha256: str


def unknown_characters(text: str, itos: list[str]) -> list[str]:
    """The characters of `text` that are not in the vocabulary `itos`, sorted."""
    known = set(itos)
    return sorted(set(text) - known)


def describe_characters(chars: list[str], limit: int = 20) -> str:
    """'a', '\\n', ... for a message (at most `limit` shown)."""
    shown = ", ".join(repr(c) for c in chars[:limit])
    return shown + (f" and {len(chars) - limit} more" if len(chars) > limit else "")


def split_for_model(text: str, itos: list[str], val_fraction: float = 0.1) -> Split:
    """Like `split_corpus`, but with a model's vocabulary (its ids, in its order): any text whose characters
    the model knows. Characters it does not know raise CorpusError naming them."""
    unknown = unknown_characters(text, itos)
    if unknown:
        raise CorpusError(f"the model does not know {len(unknown)} of the corpus's characters: "
                          f"{describe_characters(unknown)}")
    stoi = {ch: i for i, ch in enumerate(itos)}
    ids = np.array([stoi[ch] for ch in text], dtype=np.int64)
    n = int(len(ids) * (1 - val_fraction))
    return Split(list(itos), ids[:n], ids[n:], hashlib.sha256(text.encode("utf-8")).hexdigest())


def split_corpus(text: str, val_fraction: float = 0.1) -> Split:
    """Vocabulary sorted by code point; first (1 - val_fraction) of characters train, the rest validate."""
    itos = sorted(set(text))
    stoi = {ch: i for i, ch in enumerate(itos)}
    ids = np.array([stoi[ch] for ch in text], dtype=np.int64)
    n = int(len(ids) * (1 - val_fraction))
    return Split(itos, ids[:n], ids[n:], hashlib.sha256(text.encode("utf-8")).hexdigest())
