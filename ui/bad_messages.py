"""A widget state a browser sends that is not JSON (`'[' * 100000` nests past Python's recursion limit) fails inside
Streamlit, which then logs a 2.6 KB traceback per message ("Uncaught app execution"): 0.5 MB/s from 16 sessions.
The session that sent it is refused either way (its run ends); this filter on Streamlit's logger drops those
tracebacks and says once a minute how many there were. Any other exception is logged as before.
"""
from __future__ import annotations

import json
import logging
import threading
import time

LOGGER = "streamlit.error_util"  # where Streamlit logs an uncaught exception of a script run
SUMMARY_EVERY_S = 60.0


def _from_a_browser(exc: BaseException | None) -> bool:
    """A JSON error (or a recursion in the JSON decoder) raised where Streamlit itself called the decoder: a widget
    state as sent, never our code's (which turns a bad upload's JSON into a refusal of its own)."""
    if not isinstance(exc, (RecursionError, json.JSONDecodeError)):
        return False
    tb, caller = exc.__traceback__, ""
    while tb is not None:  # the last frame outside the json package is the decoder's caller
        name = tb.tb_frame.f_code.co_filename.replace("\\", "/")
        if "/json/" not in name:
            caller = name
        tb = tb.tb_next
    return "/site-packages/streamlit/" in caller or "/streamlit/runtime/" in caller


class BadStateFilter(logging.Filter):
    """Drops the tracebacks of widget states that are not JSON; every SUMMARY_EVERY_S one record is let through,
    turned into a one-line count."""

    def __init__(self, clock=time.monotonic):
        super().__init__()
        self.clock, self.dropped, self._last = clock, 0, clock()
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        if not record.exc_info or not _from_a_browser(record.exc_info[1]):
            return True
        with self._lock:
            self.dropped += 1
            if self.clock() - self._last < SUMMARY_EVERY_S:
                return False
            n, self.dropped, self._last = self.dropped, 0, self.clock()
        record.msg, record.args = f"refused {n} widget state(s) that were not JSON (sent by browsers), no traceback", ()
        record.exc_info, record.exc_text = None, None
        return True


def install() -> None:
    """Put the filter on Streamlit's logger once per process."""
    logger = logging.getLogger(LOGGER)
    if not any(isinstance(f, BadStateFilter) for f in logger.filters):
        logger.addFilter(BadStateFilter())
