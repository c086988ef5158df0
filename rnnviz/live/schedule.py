"""Which of a slider's values get frames, in what order, and how many one visitor may have computed: the whole range
coarse first (every few notches), then fixed windows of consecutive notches, the one under the thumb first and the
rest outward (a long range in sets of many frames gets a finer pass over the whole range after the thumb's window:
`between`), so that a sweep across the range never waits; the windows are the same for every value (and so for
every visitor on the same setting), and Budgets bound the frames computed for one visitor and for one address."""
from __future__ import annotations

import math
import threading
import time
from collections import deque
from contextlib import contextmanager

from rnnviz.live.frames import SPAN


def _digits(step: float) -> int:
    return max(0, 1 - math.floor(math.log10(step))) + 2


def _at(lo: float, step: float, idx) -> list[float]:
    """The slider's values at notches idx, each rounded as the slider shows it (no 0.30000000000000004)."""
    d = _digits(step)
    return [round(lo + j * step, d) for j in idx]


def _count(lo: float, hi: float, step: float) -> int:
    return round((hi - lo) / step)  # notches above lo


def coarse(lo: float, hi: float, step: float, span: int = SPAN) -> list[float]:
    """At most `span` values over the whole range: every `stride`-th notch from lo, and hi."""
    n = _count(lo, hi, step)
    stride = max(1, math.ceil(n / max(1, span - 1)))
    idx = list(range(0, n + 1, stride))
    return _at(lo, step, idx + ([n] if idx[-1] != n else []))


def window(value: float, lo: float, hi: float, step: float, span: int = SPAN) -> list[float]:
    """The fixed window of up to `span` consecutive notches that holds `value`'s notch: windows tile the range from
    lo, sharing their end notches (0..span-1, span-1..2 span-2, ...), whatever the value, so that every visitor on
    the same setting asks for the same ones."""
    n, w = _count(lo, hi, step), max(1, span - 1)
    k = min(max(round((value - lo) / step), 0), n)
    j = min(k // w, max(0, (n - 1) // w))  # the last notch belongs to the window that ends there
    return _at(lo, step, range(j * w, min(n, (j + 1) * w) + 1))


MID = 64  # frames over the whole range a slider's sets give before its windows, where its coarse set is sparse


def between(value: float, lo: float, hi: float, step: float, span: int = SPAN) -> list[list[float]]:
    """Where a slider's coarse set is sparse (every 8th notch or sparser: a long range in sets of 16 frames or more,
    such as the impulse response's 1,000 radii, 25 frames a set), the notches that give about MID frames over the whole
    range with it, in sets of `span` consecutive ones, the one nearest `value` first: a 2 s sweep across the range
    then finds a frame every few notches wherever the windows have not come yet (the coarse set's 25 are 12 frames a
    second). Fixed sets, the same for every value. None where the coarse set is dense enough."""
    n = _count(lo, hi, step)
    stride, finer = math.ceil(n / max(1, span - 1)), math.ceil(n / MID)
    if stride < 8 or finer < 4 or finer > stride // 2:  # its windows compute these again: a notch in 4 at most
        return []
    if span < 16:  # sets made small for their frames' cost (the gradients page's T, 12 comparisons a set): these,
        # across the whole range, held up the window a key after a release needs (keys 39-46 ms -> 109-125)
        return []
    idx = [j for j in range(finer, n, finer) if j % stride]
    sets = [idx[i:i + span] for i in range(0, len(idx), span)]
    k = min(max(round((value - lo) / step), 0), n)
    sets.sort(key=lambda s: (max(s[0] - k, k - s[-1], 0), s[0]))
    return [_at(lo, step, s) for s in sets]


def schedule(value: float, lo: float, hi: float, step: float, span: int = SPAN) -> list[list[float]]:
    """The frame sets of a slider, in the order they are computed: the coarse set over the whole range, the window
    holding `value`, the sets `between` (if any), then the other windows by their distance from it (nearer first;
    below before above at equal distance). A slider of `span` notches or fewer has one set: all its notches."""
    n, w = _count(lo, hi, step), max(1, span - 1)
    if n <= w:
        return [_at(lo, step, range(n + 1))]
    here = window(value, lo, hi, step, span)
    j0 = round((here[0] - lo) / step) // w
    count = max(1, math.ceil(n / w))
    order = sorted(range(count), key=lambda j: (abs(j - j0), j))
    windows = [_at(lo, step, range(j * w, min(n, (j + 1) * w) + 1)) for j in order]
    return [coarse(lo, hi, step, span), windows[0]] + between(value, lo, hi, step, span) + windows[1:]


class Budget:
    """The seconds spent computing frames for one visitor in the last `period` seconds, at most `seconds` of them: a
    visitor who asks for every slider's every window waits for its own budget to come back, and no other visitor waits
    behind it for long (each fill stops after a short while, ui/live/scrub.py). Safe to spend from the thread that
    computes while the visitor's run reads it."""

    def __init__(self, seconds: float = 4.0, period: float = 30.0):
        self.seconds, self.period, self._log = seconds, period, deque()

    def left(self, now: float | None = None) -> float:
        """Seconds still to spend in the period (negative once overspent: the last set computed may overrun)."""
        now = time.monotonic() if now is None else now
        while self._log and self._log[0][0] <= now - self.period:
            self._log.popleft()
        return self.seconds - sum(t for _, t in list(self._log))

    def spend(self, seconds: float, now: float | None = None) -> None:
        self._log.append((time.monotonic() if now is None else now, seconds))


@contextmanager
def charged(*budgets: Budget):
    """The time the block takes, spent from each of `budgets` (a computation that fails is charged too)."""
    t = time.monotonic()
    try:
        yield
    finally:
        spent = time.monotonic() - t
        for b in budgets:
            b.spend(spent)


class Budgets:
    """A Budget for each name (a visitor's cookie, an address), made on first use, all of `seconds` per `period`:
    once there are more than `most`, those that spent nothing for a whole period are forgotten (they are full)."""

    def __init__(self, seconds: float, period: float = 30.0, most: int = 10_000):
        self.seconds, self.period, self.most = seconds, period, most
        self._by: dict[str, Budget] = {}
        self._lock = threading.Lock()

    def of(self, name: str, now: float | None = None) -> Budget:
        with self._lock:
            if name not in self._by and len(self._by) >= self.most:
                now = time.monotonic() if now is None else now
                self._by = {k: b for k, b in self._by.items() if b._log and b._log[-1][0] > now - self.period}
            return self._by.setdefault(name, Budget(self.seconds, self.period))
