"""Visitor cookies nginx can check: `ID.MAC`, MAC the md5 of a per-launch secret and ID (base64url, unpadded: what
nginx's secure_link_md5 computes), so a cookie a client makes up counts as none. nginx cannot compute a hash, only
compare one: it asks this small service (auth_request) for a cookie when a page is loaded without a valid one, and
the service gives each address BURST cookies at once and RATE a second after (deploy/nginx.conf.template).
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import http.server
import os
import secrets
import threading
import time

BURST = 400  # an address's new visitors at once: a hall of 300 phones scanning one QR code, and their second tries
RATE = 5.0  # an address's new visitors a second after its burst (300 a minute)
HEADER = "X-Rnnviz-Visitor"  # the cookie value nginx sets (auth_request_set); the address comes in X-Real-IP


def new_secret() -> str:
    """A secret for one launch: hex, so it sits in nginx's config and an environment variable unquoted."""
    return secrets.token_hex(16)


def mac(secret: str, visitor_id: str) -> str:
    """What nginx's `secure_link_md5 "SECRETID"` compares the cookie's MAC against."""
    return base64.urlsafe_b64encode(hashlib.md5(f"{secret}{visitor_id}".encode()).digest()).rstrip(b"=").decode()


def cookie(secret: str, visitor_id: str | None = None) -> str:
    """A new visitor cookie value: a random 32-hex id and its MAC."""
    visitor_id = visitor_id or secrets.token_hex(16)
    return f"{visitor_id}.{mac(secret, visitor_id)}"


class Issuer:
    """Token buckets by address: take() is a new cookie, or None while the address is over its rate."""

    def __init__(self, secret: str, burst: float = BURST, rate: float = RATE, clock=time.monotonic):
        self.secret, self.burst, self.rate, self.clock = secret, burst, rate, clock
        self._buckets: dict[str, tuple[float, float]] = {}  # address -> (tokens, when)
        self._lock = threading.Lock()

    def take(self, address: str) -> str | None:
        now = self.clock()
        with self._lock:
            tokens, then = self._buckets.get(address, (self.burst, now))
            tokens = min(self.burst, tokens + (now - then) * self.rate)
            if len(self._buckets) > 10_000:  # forget the addresses whose buckets have refilled
                self._buckets = {a: b for a, b in self._buckets.items() if b[0] + (now - b[1]) * self.rate < self.burst}
            if tokens < 1:
                self._buckets[address] = (tokens, now)
                return None
            self._buckets[address] = (tokens - 1, now)
        return cookie(self.secret)


def serve(issuer: Issuer, host: str, port: int) -> http.server.ThreadingHTTPServer:
    """Answer nginx's subrequests on host:port (0: any free one, see the server's server_address), in a daemon thread:
    204, with HEADER when the address may have a new visitor."""
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            value = issuer.take(self.headers.get("X-Real-IP", ""))
            self.send_response(204)
            if value:
                self.send_header(HEADER, value)
            self.end_headers()

        def log_message(self, *args):  # nginx's access log has every page load already
            pass

    server = http.server.ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="visitor cookies", daemon=True).start()
    return server


def main() -> None:
    """python -m rnnviz.visitors --port 8503 (the secret from RNNVIZ_VISITOR_SECRET, the one nginx is given)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8503)
    args = ap.parse_args()
    secret = os.environ.get("RNNVIZ_VISITOR_SECRET")
    if not secret:
        raise SystemExit("set RNNVIZ_VISITOR_SECRET to the secret nginx's config was given (VISITOR_SECRET)")
    serve(Issuer(secret), args.host, args.port)
    threading.Event().wait()


if __name__ == "__main__":
    main()
