"""Admission under a campus NAT (issue 49): real nginx with the launcher's config and visitor-cookie issuer, in front of
a stand-in replica that accepts every websocket; one address throughout (loopback)."""
import asyncio
import http.client
import re
import secrets
import shutil
import subprocess
import time

import pytest

from rnnviz import visitors
from rnnviz.nginx import nginx_config
from rnnviz.processes import free_ports
from rnnviz.serve import ROOT

NGINX = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/sbin")
BROWSERS = [f"Mozilla/5.0 (phone model {i}) Safari/605.1.15" for i in range(30)]  # a hall's phones: a few dozen kinds


async def stand_in_replica(reader, writer):
    """Accept a websocket (101, then hold it until the client goes); answer anything else with `ok`."""
    head = await reader.readuntil(b"\r\n\r\n")
    if b"upgrade: websocket" in head.lower():
        writer.write(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
        await writer.drain()
        await reader.read()
    else:
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        await writer.drain()
    writer.close()


async def open_session(port: int, cookie: str | None, agent: str, held: list) -> int:
    """Open /_stcore/stream through nginx as a browser does; the status (101: a session), the socket kept in held."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write((f"GET /_stcore/stream HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: {secrets.token_hex(8)}==\r\n"
                  f"User-Agent: {agent}\r\n" + (f"Cookie: rnnviz_visitor={cookie}\r\n" if cookie else "") + "\r\n")
                 .encode())
    status = int((await reader.readline()).split()[1])
    held.append(writer)
    return status


def page_cookie(port: int, agent: str, cookie: str | None = None) -> str | None:
    """Load the page as a new (or returning) visitor: the visitor cookie nginx sets, if any."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        c.request("GET", "/scalar", headers={"User-Agent": agent, **({"Cookie": f"rnnviz_visitor={cookie}"}
                                                                     if cookie else {})})
        r = c.getresponse()
        r.read()
        assert r.status == 200
        m = re.match(r"rnnviz_visitor=([^;]+);", r.getheader("Set-Cookie") or "")
        return m.group(1) if m else None
    finally:
        c.close()


async def a_hall_and_an_attacker(port: int, sessions: int, students: int, tabs: int) -> dict:
    held: list = []
    out: dict = {}
    # one client: `sessions` sessions, each with a cookie of its own making (the shape nginx issues, or not) and a
    # user agent of its own; it keeps them all open
    made_up = [f"{secrets.token_hex(16)}.{secrets.token_urlsafe(16)[:22]}" if i % 2 else secrets.token_hex(8)
               for i in range(sessions)]
    statuses = await asyncio.gather(*(open_session(port, c, f"bot/{i}", held) for i, c in enumerate(made_up)))
    out["attacker"] = statuses.count(101)
    # then a hall: each student loads the page (a cookie from nginx) and opens a session with it
    cookies = [await asyncio.to_thread(page_cookie, port, BROWSERS[i % len(BROWSERS)]) for i in range(students)]
    out["cookies"] = sum(c is not None for c in cookies)
    statuses = await asyncio.gather(*(open_session(port, c, BROWSERS[i % len(BROWSERS)], held)
                                      for i, c in enumerate(cookies) for _ in range(tabs)))
    out["students"] = statuses.count(101)
    out["returning"] = await asyncio.to_thread(page_cookie, port, BROWSERS[0], cookies[0])  # None: kept its cookie
    out["more_tabs"] = [await open_session(port, cookies[0], BROWSERS[0], held) for _ in range(3)]
    for w in held:
        w.close()
    return out


def test_the_issuer_gives_an_address_a_burst_then_a_rate_and_its_cookies_are_what_nginx_checks():
    now = [0.0]
    issuer = visitors.Issuer("s3cret", burst=400, rate=5, clock=lambda: now[0])
    hall = [issuer.take("10.0.0.1") for _ in range(401)]
    assert all(hall[:400]) and hall[400] is None  # a hall at once, then no more
    assert issuer.take("10.0.0.2")  # another address has its own
    now[0] += 1.0
    assert sum(issuer.take("10.0.0.1") is not None for _ in range(10)) == 5  # then 5 a second
    assert len(set(hall[:400])) == 400
    template = (ROOT / "deploy" / "nginx.conf.template").read_text()
    shape = re.search(r'map \$cookie_rnnviz_visitor \$rnnviz_cookie_id \{\s*"~(.*?)" \$1;', template).group(1)
    assert re.fullmatch(shape, hall[0])  # the shape nginx reads its id and MAC from
    visitor_id, mac = hall[0].split(".")
    assert mac == visitors.mac("s3cret", visitor_id) != visitors.mac("other", visitor_id)


class Served:
    """nginx with the launcher's config and a visitor-cookie issuer, in front of stand-in replicas."""

    def __init__(self, tmp_path, replicas: int):
        if NGINX is None:
            pytest.skip("nginx not installed")
        self.port, *self.replicas = free_ports("127.0.0.1", 8820, 1 + replicas)
        secret = visitors.new_secret()
        self.issuer = visitors.serve(visitors.Issuer(secret), "127.0.0.1", 0)
        conf = tmp_path / "nginx.conf"
        conf.write_text(nginx_config([f"127.0.0.1:{r}" for r in self.replicas], f"127.0.0.1:{self.port}", tmp_path,
                                     visitor_secret=secret, visitor_issuer="%s:%d" % self.issuer.server_address))
        self.nginx = subprocess.Popen([NGINX, "-c", str(conf), "-p", str(tmp_path), "-g", "daemon off;"])

    def run(self, scenario):
        """scenario(port) run with the stand-in replicas up and nginx answering; nginx and the issuer stopped after."""
        async def run():
            servers = [await asyncio.start_server(stand_in_replica, "127.0.0.1", r) for r in self.replicas]
            deadline = time.monotonic() + 20
            while True:
                try:
                    await asyncio.to_thread(page_cookie, self.port, "probe")
                    break
                except (OSError, http.client.HTTPException):
                    assert time.monotonic() < deadline, "nginx did not come up"
                    await asyncio.sleep(0.2)
            try:
                return await scenario(self.port)
            finally:
                for s in servers:
                    s.close()
        try:
            return asyncio.run(run())
        finally:
            self.nginx.terminate()
            self.nginx.wait(10)
            self.issuer.shutdown()


@pytest.mark.slow
def test_a_hall_of_300_gets_in_while_one_client_opening_1000_sessions_is_throttled(tmp_path):
    """Issue 49: 1,000 sessions with made-up cookies from one address took the address's 600 sessions, and every
    student behind it then got 429. Now a made-up cookie is no visitor: that client holds the 8 sessions an address
    has without a valid cookie, and all 300 students, each with a cookie nginx issued, get in with two tabs each:
    608 sessions from one address, which no count per address refuses."""
    out = Served(tmp_path, replicas=2).run(lambda port: a_hall_and_an_attacker(port, sessions=1000, students=300,
                                                                               tabs=2))
    assert out["attacker"] == 8  # not 600: its made-up cookies count as none, and it shares its address's 8
    assert out["cookies"] == 300 and out["students"] == 600  # the whole hall is in beside it, two tabs each
    assert out["returning"] is None  # a valid cookie is kept, not replaced
    assert out["more_tabs"] == [101, 101, 429]  # a student's own limit is unchanged: 4 sessions (tabs)


@pytest.mark.slow
@pytest.mark.parametrize("replicas", [1, 2])
def test_full_replicas_are_what_refuse_a_visitor(tmp_path, monkeypatch, replicas):
    """A visitor whose replica holds its capacity goes to another; with every replica full a new session is refused
    (502), whoever asks. Capacity 10 in all, 12 sessions asked (3 visitors, 4 tabs each)."""
    import rnnviz.nginx

    monkeypatch.setattr(rnnviz.nginx, "REPLICA_CONNECTIONS", 10 // replicas)

    async def fill(port: int) -> list[int]:
        held: list = []
        cookies = [await asyncio.to_thread(page_cookie, port, BROWSERS[i]) for i in range(3)]
        statuses = [await open_session(port, c, BROWSERS[i], held) for i, c in enumerate(cookies) for _ in range(4)]
        for w in held:
            w.close()
        return statuses
    assert Served(tmp_path, replicas=replicas).run(fill) == [101] * 10 + [502] * 2
