"""Each visitor's share of a server's time: reruns paced by token buckets, per visitor (nginx's `rnnviz_visitor`
cookie, else the session) and shared among the visitors active at one address (nginx's X-Real-IP). A client that
loops, or takes a fresh cookie per session, waits in its own script thread (sleeping costs the server nothing); a
student rerunning now and then behind the same campus NAT does not.
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
ADDRESS_RERUNS_PER_S = 8.0  # one address's visitors together, on one replica (12 sessions at 5/s left a bystander be)
MIN_RERUNS_PER_S = 1.0  # a visitor's least share, however many share its address (a hall of 300 behind one NAT)
MIN_BURST = 3  # a new visitor's least burst: opening a page takes 1-3 runs
ACTIVE_S = 10.0  # a visitor counts towards its address's sharing this long after its last rerun


class Pacer:
    """Token buckets by visitor, their rate and burst shared among the active visitors of an address: take()
    returns the seconds this rerun should wait. nginx counts connections and requests, not the reruns inside a
    websocket: 12 sessions of one visitor looping raised a bystander's median rerun from 0.03 to 0.26 s, and with
    pacing per cookie alone a client taking a cookie per session reran 31 times a second (issue 49)."""

    def __init__(self, rate: float = RERUNS_PER_S, burst: float = BURST, clock=time.monotonic,
                 address_rate: float = ADDRESS_RERUNS_PER_S):
        self.rate, self.burst, self.clock, self.address_rate = rate, burst, clock, address_rate
        self._buckets: dict[str, tuple[float, float]] = {}  # visitor -> (tokens, when)
        self._active: dict[str, dict[str, float]] = {}  # address -> {visitor: its last rerun}
        self._lock = threading.Lock()

    def share(self, address: str, visitor: str, now: float) -> int:
        """How many visitors of this address (this one among them) reran within ACTIVE_S."""
        active = self._active.setdefault(address, {})  # in order of last rerun, oldest first
        active.pop(visitor, None)
        active[visitor] = now
        while next(iter(active.values())) < now - ACTIVE_S:
            del active[next(iter(active))]
        return len(active)

    def take(self, visitor: str, address: str = "") -> float:
        now = self.clock()
        with self._lock:
            n = self.share(address, visitor, now)
            rate = min(self.rate, max(MIN_RERUNS_PER_S, self.address_rate / n))
            tokens, then = self._buckets.get(visitor, (max(MIN_BURST, self.burst / n), now))
            tokens = max(min(self.burst, tokens + (now - then) * rate) - 1, -MAX_WAIT_S * rate)
            self._buckets[visitor] = (tokens, now)
            if len(self._buckets) > 10_000:  # forget visitors whose buckets have refilled, and idle addresses
                full = now - self.burst / MIN_RERUNS_PER_S
                self._buckets = {k: v for k, v in self._buckets.items() if v[1] > full}
                self._active = {a: vs for a, vs in self._active.items() if max(vs.values()) > now - ACTIVE_S}
        return max(0.0, -tokens / rate)


PACER = Pacer()
bad_messages.install()  # app.py imports this module first: no traceback per malformed widget state


def visitor_and_address() -> tuple[str, str]:
    """nginx's visitor cookie (else this session) and the address nginx saw (X-Real-IP, set in
    deploy/nginx.conf.template; without nginx, the peer's own)."""
    ctx = get_script_run_ctx()
    visitor = st.context.cookies.get("rnnviz_visitor") or (ctx.session_id if ctx else "")
    return visitor, st.context.headers.get("X-Real-IP") or st.context.ip_address or ""


def pace_reruns() -> None:
    """Wait, if this visitor has rerun faster than its share (app.py calls this at the start of every run)."""
    wait = PACER.take(*visitor_and_address())
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
