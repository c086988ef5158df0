"""What a class learned from a lecture, measured by a concept quiz run before and after it: the share right per item
and overall, Hake's (1998) normalized gain g = (post - pre) / (1 - pre), and the wrong options still chosen after
the lecture (the misconceptions that persisted). Answers are choice indices; the items' words live in ui/quiz."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

PERSIST = 0.2  # a wrong option still chosen by this share of the class after the lecture has persisted


@dataclass(frozen=True)
class ItemGain:
    """One quiz item's result.

    Attributes:
        pre: the share right before the lecture (NaN without answers).
        post: the share right after.
        g: the normalized gain; NaN when pre is 1 (nothing left to gain) or either round has no answers.
        n_pre: answers before the lecture.
        n_post: answers after it.
        post_counts: answers per option after the lecture.
    """

    pre: float
    post: float
    g: float
    n_pre: int
    n_post: int
    post_counts: tuple[int, ...]


@dataclass(frozen=True)
class ClassGain:
    """The class's result over the quiz.

    Attributes:
        items: each item's result, in the quiz's order.
        pre: the class's average share right, over the items answered in both rounds, before the lecture.
        post: the same after it.
        g: the class's gain from those averages, as Hake computes it (not the mean of the items' g).
    """

    items: tuple[ItemGain, ...]
    pre: float
    post: float
    g: float


def normalized_gain(pre: float, post: float) -> float:
    """g = (post - pre) / (1 - pre), shares in [0, 1]; NaN where pre is 1 or either is unknown."""
    if not (np.isfinite(pre) and np.isfinite(post)) or pre >= 1:
        return float("nan")
    return float((post - pre) / (1 - pre))


def share_right(answers: list[int], right: int) -> float:
    a = np.asarray(answers, int)
    return float(np.mean(a == right)) if len(a) else float("nan")


def item_gain(pre: list[int], post: list[int], right: int, options: int) -> ItemGain:
    before, after = share_right(pre, right), share_right(post, right)
    counts = np.bincount(np.asarray(post, int), minlength=options)[:options]
    return ItemGain(before, after, normalized_gain(before, after), len(pre), len(post), tuple(int(c) for c in counts))


def class_gain(pre: list[list[int]], post: list[list[int]], rights: list[int], options: list[int]) -> ClassGain:
    """Every item's gain and the class's: `pre[k]`, `post[k]` are item k's answers (choice indices) in each round."""
    items = tuple(item_gain(a, b, r, n) for a, b, r, n in zip(pre, post, rights, options))
    both = [it for it in items if it.n_pre and it.n_post]
    before = float(np.mean([it.pre for it in both])) if both else float("nan")
    after = float(np.mean([it.post for it in both])) if both else float("nan")
    return ClassGain(items, before, after, normalized_gain(before, after))


def persisting(item: ItemGain, right: int, share: float = PERSIST) -> list[int]:
    """The wrong options chosen by at least `share` of the class after the lecture, the most chosen first."""
    if not item.n_post:
        return []
    wrong = [k for k, c in enumerate(item.post_counts) if k != right and c / item.n_post >= share]
    return sorted(wrong, key=lambda k: -item.post_counts[k])
