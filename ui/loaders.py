"""Cached loaders and widget callbacks, in a module imported once rather than in a page.

A page's code runs afresh on every rerun; a cached function or a callback defined there would keep that run's
globals (and everything they hold) alive.
"""
from __future__ import annotations

import collections
import gc
import logging
import sys
import threading
import time
from typing import Callable

import streamlit as st
from threadpoolctl import threadpool_limits

from rnnviz.lessons.cache import SharedCache

_STARTED: set[str] = set()  # the background work this server has started (once_in_background)
_STARTED_LOCK = threading.Lock()


def once_in_background(name: str, work: Callable[[], None], delay: float, what: str) -> bool:
    """Once per server: `work` in a thread of its own named `name`, `delay` seconds after this first call, so that the
    page being drawn goes first (the thread shares the interpreter). Nobody waits for it: an error is logged as
    "`what` failed", and what it would have computed is computed when a visitor asks. Whether this call started it."""
    with _STARTED_LOCK:
        if name in _STARTED:
            return False
        _STARTED.add(name)

    def run():
        time.sleep(delay)
        try:
            work()
        except Exception:  # nobody waits for it
            logging.getLogger(__name__).exception("%s failed", what)
    threading.Thread(target=run, name=name, daemon=True).start()
    return True


RUN_TIMES: collections.deque = collections.deque(maxlen=10_000)  # (page, seconds) of this server's last runs


def record_run(page: str, seconds: float) -> None:
    """Keep a script run's duration (the last 10,000 per server, a few hundred kB; benchmarks/rerun.py reads them)."""
    RUN_TIMES.append((page, seconds))


def _new_moments(done: set[str]) -> list[str]:
    """The process's moments not yet in `done`, now marked done: "start" at the first run, "torch" once a
    cross-check has imported torch (which brings libraries and objects of its own)."""
    new = [m for m in ("start", "torch") if m not in done and (m == "start" or "torch" in sys.modules)]
    done.update(new)
    return new


_FROZEN: set[str] = set()


def freeze_heap() -> None:
    """Take what is alive now out of the cyclic garbage collector's walks (gc.freeze), twice per server: at the first
    run, before its page (the modules, streamlit, plotly, numpy, rnnviz), and once torch has been imported by a
    cross-check. Otherwise every full collection walks it all: a 50 ms pause with the app's modules, 120-170 ms with
    torch, often enough to land on most reruns. Garbage is collected first; what is frozen is never collected as a
    cycle, so a page's objects alive at the torch moment stay until the process ends (a one-time, bounded cost)."""
    for _ in _new_moments(_FROZEN):
        gc.collect()
        gc.freeze()


_ONE_THREAD: set[str] = set()


def one_blas_thread() -> None:
    """One BLAS thread for the process (the pages' matrices are small: one thread is faster, and sessions run in
    parallel), set at the first run and again once torch has brought its own libraries. Not on every run:
    threadpool_limits walks the loaded libraries each time it is called (0.5-3 ms)."""
    for _ in _new_moments(_ONE_THREAD):
        threadpool_limits(1)


MODELS = SharedCache(256 * 2 ** 20)  # the shipped model (~30 MB with its tables): loaded once, never evicted


def shipped_model(path: str):
    """Loaded once per server and shared by every session; a CharLM's arrays are read-only. Not st.cache_resource:
    any visitor's browser can send Streamlit's clear_cache message, which empties every st.cache_* of the server."""
    from rnnviz import charlm

    return MODELS.get(str(path), lambda: charlm.load(path))


def force_character(forced_key: str, char_key: str, position: int) -> None:
    """Teacher-force one generated position; forced characters after it are dropped (they belong to another branch)."""
    forced = {k: v for k, v in st.session_state.get(forced_key, {}).items() if k < position}
    forced[position] = st.session_state[char_key]
    st.session_state[forced_key] = forced
