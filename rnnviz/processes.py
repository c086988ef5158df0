"""The launcher's processes: free ports, each process's log kept and capped, health checks, the watchdog that
replaces a dead or hung replica, nginx's logs rotated, and everything stopped in order (rnnviz/serve.py runs them)."""
from __future__ import annotations

import concurrent.futures
import contextlib
import logging.handlers
import os
import signal
import socket
import ssl
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

LOG_MAX_BYTES = 10 * 2**20  # each replica's log and nginx's, before it is rotated; one old copy (.1) is kept
UNHEALTHY_AFTER = 20.0  # seconds of failed health checks before a replica is replaced (a hung one never exits)
HEALTH_TIMEOUT = 5.0  # one check; a replica slowed by a busy machine still answers within it
def free_ports(host: str, start: int, n: int) -> list[int]:
    """The first n ports from start upward that nothing on host listens on."""
    ports = []
    for port in range(start, 65536):
        with socket.socket() as s:
            if s.connect_ex((host, port)) != 0:
                ports.append(port)
        if len(ports) == n:
            return ports
    raise RuntimeError(f"fewer than {n} free ports above {start}")


def keep_log(stream, log: Path, max_bytes: int = LOG_MAX_BYTES) -> threading.Thread:
    """Copy a process's output, line by line, to log, rotated at max_bytes (log.1 keeps the previous part), in a
    thread: a replica that logs a line per malformed message can no longer fill the disk."""
    handler = logging.handlers.RotatingFileHandler(log, maxBytes=max_bytes, backupCount=1, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(message)s"))

    def copy():
        with stream, contextlib.closing(handler):
            for line in iter(stream.readline, b""):
                handler.emit(logging.makeLogRecord({"msg": line.decode("utf-8", "replace").rstrip("\n")[:4096]}))

    t = threading.Thread(target=copy, name=f"log {log.name}", daemon=True)
    t.start()
    return t


def healthy(url: str, timeout: float = 3, host: str | None = None) -> bool:
    """url/_stcore/health answers ok within timeout; asked with Host `host` where given (the launcher's own nginx
    closes any Host but its server names), and over https without checking the certificate (it is nginx's own, asked
    on loopback, where the certificate's name never matches 127.0.0.1)."""
    request = urllib.request.Request(url + "/_stcore/health", headers={"Host": host} if host else {})
    context = ssl._create_unverified_context() if url.startswith("https:") else None
    try:
        return urllib.request.urlopen(request, timeout=timeout, context=context).read() == b"ok"
    except OSError:
        return False


class Watchdog:
    """Replaces replicas that exit or stop answering their health check. A replica that is hung (stopped, deadlocked,
    or busy with the interpreter lock held) never exits, so the exit check alone left it in place for good; nginx
    routes around it meanwhile (max_fails), and a visitor on another replica sees nothing."""

    def __init__(self, ports: list[int], unhealthy_after: float = UNHEALTHY_AFTER, startup: float = 90.0,
                 host: str | None = None):
        self.ports, self.unhealthy_after, self.startup, self.host = ports, unhealthy_after, startup, host
        now = time.monotonic()
        self.last_ok = [now] * len(ports)
        self.up = [True] * len(ports)  # answered since it was (re)started; started replicas were waited for
        self._pool = concurrent.futures.ThreadPoolExecutor(max(1, len(ports)), thread_name_prefix="health")

    def check(self, procs: list[subprocess.Popen]) -> list[tuple[int, str]]:
        """(index, why) of each replica to replace now: it exited, or its health check has failed for longer than
        unhealthy_after seconds (a fresh replica gets `startup` seconds to answer first)."""
        oks = list(self._pool.map(lambda p: healthy(f"http://127.0.0.1:{p}", HEALTH_TIMEOUT, self.host),
                                   self.ports))
        now, out = time.monotonic(), []
        for i, (proc, ok) in enumerate(zip(procs, oks)):
            if ok:
                self.last_ok[i], self.up[i] = now, True
            if proc.poll() is not None:
                out.append((i, f"exited ({proc.returncode})"))
            elif not ok and now - self.last_ok[i] > (self.unhealthy_after if self.up[i] else self.startup):
                out.append((i, f"has not answered its health check for {now - self.last_ok[i]:.0f} s"))
        return out

    def replaced(self, i: int) -> None:
        self.last_ok[i], self.up[i] = time.monotonic(), False


def rotate_nginx_logs(workdir: Path, nginx_pid: int, max_bytes: int = LOG_MAX_BYTES) -> None:
    """Move nginx's access or error log to .1 once it passes max_bytes, and have nginx reopen its logs (SIGUSR1)."""
    moved = False
    for name in ("access.log", "error.log"):
        log = workdir / name
        with contextlib.suppress(OSError):
            if log.stat().st_size > max_bytes:
                log.replace(log.with_name(name + ".1"))
                moved = True
    if moved:
        with contextlib.suppress(ProcessLookupError):
            os.kill(nginx_pid, signal.SIGUSR1)


def wait_healthy(url: str, proc: subprocess.Popen, timeout: float = 90, host: str | None = None) -> None:
    """Wait until url/_stcore/health answers ok (asked with Host `host` where given); fail early if proc exits."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args[0]} exited ({proc.returncode}) before {url} was healthy")
        if healthy(url, 2, host):
            return
        time.sleep(0.3)
    raise RuntimeError(f"{url} not healthy within {timeout:.0f} s")


def stop(procs: list[subprocess.Popen], grace: float = 10) -> None:
    """SIGTERM each process group, then SIGKILL what is still there after grace seconds."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for p in procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, sig)
        deadline = time.monotonic() + grace
        for p in procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                p.wait(max(0.0, deadline - time.monotonic()))
        if all(p.poll() is not None for p in procs):
            return
