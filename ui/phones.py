"""Where phones join a class room: the thin page of rnnviz/rooms/live.py. Behind nginx (`rnnviz.serve`, compose:
RNNVIZ_LIVE=proxied) it is this site's /room/CODE; a plain `streamlit run app.py` serves it itself, from a thread, on
the next port (RNNVIZ_LIVE_PORT to choose another), since its rooms live in this process. RNNVIZ_PUBLIC_URL, when
set, is the address phones use; a join link on localhost or a private address gets a warning on the Class page."""
from __future__ import annotations

import ipaddress
import os
import sys
import threading
import urllib.parse

import streamlit as st

from rnnviz.rooms.store import default_store

_started: dict[str, int] = {}
_lock = threading.Lock()


def live_port() -> int:
    return int(os.environ.get("RNNVIZ_LIVE_PORT") or int(st.get_option("server.port")) + 1)


def start_phones() -> None:
    """Once per process, unless nginx routes phones to a service of their own: the phones' service in a thread. Not
    under AppTest (tests import it; a server never does): a test run serves no phones and takes no port."""
    if os.environ.get("RNNVIZ_LIVE") in ("proxied", "off") or "streamlit.testing.v1.app_test" in sys.modules:
        return
    with _lock:
        if "port" in _started:
            return
        from rnnviz.rooms.live import serve_in_thread

        port = live_port()
        serve_in_thread(default_store(), st.get_option("server.address") or "0.0.0.0", port)
        _started["port"] = port


def join_url(this_url: str | None, code: str) -> str:
    """The link phones open: under RNNVIZ_PUBLIC_URL when set, else the address this browser used (behind nginx), or
    that host on the phones' own port (a plain streamlit run)."""
    public = os.environ.get("RNNVIZ_PUBLIC_URL")
    parts = urllib.parse.urlsplit(public or this_url or "http://localhost:8501")  # None: no browser asked (AppTest)
    base = parts.path.rstrip("/") if public else ""
    netloc = parts.netloc
    if not public and os.environ.get("RNNVIZ_LIVE") != "proxied":
        netloc = f"{parts.hostname}:{live_port()}" if ":" not in (parts.hostname or "") else f"[{parts.hostname}]:" \
            f"{live_port()}"
    return urllib.parse.urlunsplit((parts.scheme, netloc, f"{base}/room/{code}", "", ""))


def private_host(url: str) -> bool:
    """The link's host is this machine or a private network's: phones elsewhere cannot open it."""
    host = urllib.parse.urlsplit(url).hostname or ""
    if host == "localhost" or host.endswith((".local", ".localhost", ".internal", ".lan")):
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    return ip.is_private or ip.is_loopback or ip.is_link_local
