"""Cached loaders and widget callbacks, in a module imported once rather than in a page.

A page's code runs afresh on every rerun; a cached function or a callback defined there would keep that run's
globals (and everything they hold) alive.
"""
from __future__ import annotations

import collections
import gc
import os
import sys

import streamlit as st

RUN_TIMES: collections.deque = collections.deque(maxlen=10_000)  # (page, seconds); filled only when benchmarking


def record_run(page: str, seconds: float) -> None:
    """Keep a script run's duration when RNNVIZ_TIMING=1 (benchmarks/rerun.py sets it); otherwise nothing."""
    if os.environ.get("RNNVIZ_TIMING") == "1":
        RUN_TIMES.append((page, seconds))


_FROZEN: set[str] = set()


def freeze_heap() -> None:
    """Take what this server has loaded so far (modules, the model, and torch once a cross-check has imported it) out
    of the cyclic garbage collector's walks, with gc.freeze(), once at the first run and once after torch. Otherwise
    every full collection walks it all: 50 ms of pause with the app's modules, 120-170 ms once torch is in, several
    times a minute, landing on whichever visitor's rerun is running."""
    for moment in ("start", "torch"):
        if moment not in _FROZEN and (moment == "start" or "torch" in sys.modules):
            _FROZEN.add(moment)
            gc.freeze()


@st.cache_resource(show_spinner="Loading the model…")
def shipped_model(path: str):
    """Loaded once per server and shared by every session; a CharLM's arrays are read-only."""
    from rnnviz import charlm

    return charlm.load(path)


def force_character(forced_key: str, char_key: str, position: int) -> None:
    """Teacher-force one generated position; forced characters after it are dropped (they belong to another branch)."""
    forced = {k: v for k, v in st.session_state.get(forced_key, {}).items() if k < position}
    forced[position] = st.session_state[char_key]
    st.session_state[forced_key] = forced
