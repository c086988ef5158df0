"""Which of a slider's values get frames, in what order, and how many one visitor may have computed: the whole range
coarse first (every few notches), then fixed windows of consecutive notches, the one under the thumb first and the
rest outward, so that a sweep across the range never waits; the windows are the same for every value (and so for
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


def schedule(value: float, lo: float, hi: float, step: float, span: int = SPAN) -> list[list[float]]:
    """The frame sets of a slider, in the order they are computed: the coarse set over the whole range, then every
    window, the one holding `value` first and the others by their distance from it (nearer first; below before above
    at equal distance). A slider of `span` notches or fewer has one set: all its notches."""
    n, w = _count(lo, hi, step), max(1, span - 1)
    if n <= w:
        return [_at(lo, step, range(n + 1))]
    here = window(value, lo, hi, step, span)
    j0 = round((here[0] - lo) / step) // w
    count = max(1, math.ceil(n / w))
    order = sorted(range(count), key=lambda j: (abs(j - j0), j))
    return [coarse(lo, hi, step, span)] + [_at(lo, step, range(j * w, min(n, (j + 1) * w) + 1)) for j in order]


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
