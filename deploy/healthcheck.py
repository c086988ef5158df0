"""Docker healthcheck for a replica that also replaces it: compose's `restart:` restarts a container whose main process
exits, never one that is merely unhealthy, and a hung replica never exits. After FAILURES failed checks in a row this
kills the app process (not PID 1: with `init: true` that is docker's tini, which then exits with it, and the container
is restarted). Stdlib only; the count lives in /tmp."""
from __future__ import annotations

import os
import signal
import sys
import urllib.request
from pathlib import Path

URL = os.environ.get("RNNVIZ_HEALTH_URL", "http://127.0.0.1:8501/_stcore/health")
FAILURES = int(os.environ.get("RNNVIZ_HEALTH_FAILURES", "3"))
COUNT = Path(os.environ.get("RNNVIZ_HEALTH_COUNT", "/tmp/rnnviz-health-failures"))


def app_pids(proc: Path = Path("/proc")) -> list[int]:
    """The streamlit processes here (any but this one)."""
    pids = []
    for cmdline in proc.glob("[0-9]*/cmdline"):
        try:
            pid = int(cmdline.parent.name)
            if pid != os.getpid() and b"streamlit" in cmdline.read_bytes():
                pids.append(pid)
        except (OSError, ValueError):
            pass
    return pids


def main() -> int:
    try:
        ok = urllib.request.urlopen(URL, timeout=4).read() == b"ok"
    except OSError:
        ok = False
    failures = 0 if ok else int(COUNT.read_text() or 0) + 1 if COUNT.exists() else 1
    COUNT.write_text(str(failures))
    if failures >= FAILURES:
        for pid in app_pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        COUNT.write_text("0")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
