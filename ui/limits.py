"""Each visitor's share of a server's time: reruns paced per visitor by a token bucket.

nginx can count a visitor's connections and requests, not the reruns inside a websocket: 12 sessions of one visitor
looping on one replica raised a bystander's median rerun from 0.03 to 0.26 s. A visitor (nginx's `rnnviz_visitor`
cookie; without one, the session) may rerun RERUNS_PER_S times a second over all its sessions, after a burst of BURST;
past that its own script thread waits (sleeping costs the server nothing), so others' reruns are not slowed.
"""
from __future__ import annotations

import functools
import threading
import time

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from ui import bad_messages

RERUNS_PER_S = 5.0  # a student pressing Next as fast as they read makes 1-3 a second
BURST = 30  # a slider dragged or a link opened in several tabs at once
MAX_WAIT_S = 5.0  # the longest one rerun waits; a visitor's debt is capped at this


class Pacer:
    """Token buckets by visitor: take() returns the seconds this rerun should wait."""

    def __init__(self, rate: float = RERUNS_PER_S, burst: float = BURST, clock=time.monotonic):
        self.rate, self.burst, self.clock = rate, burst, clock
        self._buckets: dict[str, tuple[float, float]] = {}  # visitor -> (tokens, when)
        self._lock = threading.Lock()

    def take(self, visitor: str) -> float:
        now = self.clock()
        with self._lock:
            tokens, then = self._buckets.get(visitor, (self.burst, now))
            tokens = max(min(self.burst, tokens + (now - then) * self.rate) - 1, -MAX_WAIT_S * self.rate)
            self._buckets[visitor] = (tokens, now)
            if len(self._buckets) > 10_000:  # forget visitors whose buckets have refilled
                full = now - self.burst / self.rate
                self._buckets = {k: v for k, v in self._buckets.items() if v[1] > full}
        return max(0.0, -tokens / self.rate)


PACER = Pacer()
bad_messages.install()  # app.py imports this module first: no traceback per malformed widget state


def pace_reruns() -> None:
    """Wait, if this visitor has rerun faster than its share (app.py calls this at the start of every run)."""
    ctx = get_script_run_ctx()
    visitor = st.context.cookies.get("rnnviz_visitor") or (ctx.session_id if ctx else "")
    wait = PACER.take(visitor)
    if wait > 0:
        time.sleep(wait)


_depth = threading.local()  # how many paced fragments this script thread is inside


def paced(func):
    """`func`, paced as a whole run is when it runs as a fragment's own rerun: such a run does not execute app.py,
    where `pace_reruns` sits, so a visitor looping one (a step key, a button, a poll) would otherwise rerun without
    taking its share. One token per run: a fragment run inside another (nested) is part of its parent's."""
    @functools.wraps(func)
    def body(*args, **kwargs):
        ctx = get_script_run_ctx()
        _depth.n = getattr(_depth, "n", 0) + 1
        try:
            if _depth.n == 1 and ctx is not None and ctx.fragment_ids_this_run:
                pace_reruns()
            return func(*args, **kwargs)
        finally:
            _depth.n -= 1
    return body


def fragment(func=None, *, run_every=None):
    """`st.fragment`, paced (see `paced`): the pages use this one, never `st.fragment` (a test says so)."""
    if func is None:
        return lambda f: st.fragment(paced(f), run_every=run_every)
    return st.fragment(paced(func), run_every=run_every)
