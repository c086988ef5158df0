"""A rerun that a page sends after the visitor has left it is dropped.

Every lesson page keeps its settings in fragments, and a text box commits its value when it loses focus. A visitor
who types into a box and then clicks a lesson link makes the browser send two reruns, the page switch first and then
the box's fragment rerun, which names the page just left (measured: 5-10 ms apart). Streamlit 1.67 runs both: the
second announces the old page again and then runs that page's fragment, or none (the ids of two pages' fragments at
the same place agree), on the new page. The new page is left without its title and introduction, with its body
below the foot, until the next full run. Nothing in Streamlit's public API sees the two requests, so this wraps the
session's handler of rerun requests: a fragment's rerun whose page is not the page a whole-page request named just
before is dropped (the uncommitted text goes with it, as it would with a page left before the box was left).

A page the server switches to (st.switch_page: a projector's Ask the class opens the Class page) is named by no
request. A fragment's rerun the left page sent meanwhile (a slider's frames asked for, ui/live/scrub.py) ran its
fragment on the Class page: the browser, handed elements for a place the Class page does not have, stopped drawing
it ("Cannot set a node at a delta path") and lost its connection, the Class page left blank (2 in 24 tries here).
So a fragment's rerun for a page other than the one the session is on now is dropped too.
"""
from __future__ import annotations

import functools
import time

from streamlit.runtime.app_session import AppSession

WINDOW_S = 2.0  # how long after a page switch a fragment's rerun for another page counts as the page's left behind
_LAST = "_rnnviz_last"  # on each AppSession: (page hash, monotonic time) of its last whole-page rerun request


def stale(session, client_state, now: float | None = None) -> bool:
    """Whether this rerun request is a fragment's for a page other than the one a whole-page request just named (only
    within WINDOW_S of that request: a page switch whose hash the server did not know, a page renamed under an open
    tab, runs another page, whose own fragments must not be dropped for long), or than the page the session runs now
    (its pages manager's: a page the server switched to). That one holds for no longer than a run: each run tells the
    browser the hash of the page it ran, which the browser's next requests carry."""
    if client_state is None:
        return False
    now = time.monotonic() if now is None else now
    if not client_state.fragment_id:
        setattr(session, _LAST, (client_state.page_script_hash, now))  # a first visit by address: no hash, name only
        return False
    asked, (page, when) = client_state.page_script_hash, getattr(session, _LAST, ("", 0.0))
    current = getattr(getattr(session, "_pages_manager", None), "current_page_script_hash", "")
    return bool(asked and ((page and asked != page and now - when < WINDOW_S) or (current and asked != current)))


def install() -> None:
    """Wrap AppSession's rerun handler once per process (app.py calls this on every run)."""
    handler = AppSession._handle_rerun_script_request
    if getattr(handler, "_rnnviz", False):
        return

    @functools.wraps(handler)
    def handle(self, client_state=None):
        if stale(self, client_state):
            return None
        return handler(self, client_state)

    handle._rnnviz = True
    AppSession._handle_rerun_script_request = handle
