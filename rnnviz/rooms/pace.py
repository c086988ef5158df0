"""Join pacing: a token bucket per key (a phone's address, a room), so one script cannot fill a room in seconds while a
hall behind one campus address still gets in within a minute or two. Kept in each push process's memory: two
processes admit twice the rate, which the limits below allow for."""
from __future__ import annotations

import threading
import time

PER_ADDRESS = (3.0, 60)  # joins a second and burst, per client address: 300 phones behind one NAT in ~80 s
PER_ROOM = (30.0, 300)  # per room: a hall of 1,000 in ~25 s; a stuffer of many addresses is slowed to this too
MAX_KEYS = 100_000  # buckets kept; the full ones are forgotten first


class Pace:
    """`take(key)`: 0 when a join may go ahead now, else the seconds until one may."""

    def __init__(self, rate: float, burst: int, clock=time.monotonic):
        self.rate, self.burst, self.clock = rate, burst, clock
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, key: str) -> float:
        with self._lock:
            now = self.clock()
            tokens, then = self._buckets.get(key, (self.burst, now))
            tokens = min(self.burst, tokens + (now - then) * self.rate)
            if tokens < 1:
                self._buckets[key] = (tokens, now)
                return (1 - tokens) / self.rate
            self._buckets[key] = (tokens - 1, now)
            if len(self._buckets) > MAX_KEYS:
                self._forget(now)
            return 0.0

    def _forget(self, now: float) -> None:
        full = [k for k, (t, then) in self._buckets.items() if t + (now - then) * self.rate >= self.burst]
        for k in full or list(self._buckets)[: len(self._buckets) // 2]:
            del self._buckets[k]
