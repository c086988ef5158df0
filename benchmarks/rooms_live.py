"""`benchmarks/rooms.py --live`: a lecture hall of phones on the thin phone page (rnnviz/rooms/live.py), connected
and listening the whole time. The lecturer is a Streamlit session on the Class page (benchmarks/rooms.py's Visitor);
each phone joins (paced: it waits as the server says), holds one server-sent events stream and votes with POSTs on
a keep-alive connection of its own. Three rounds: question 1, its revote, question 2; in each the lecturer asks, every
phone votes at a random moment within --window seconds of seeing the question, and the lecturer reveals.
question_ms / reveal_ms: from the lecturer's press to each phone's pushed event; vote_ms: a vote's POST. A vote is
lost unless its POST was answered 200 AND the phone's pushed reveal holds it AND the lecturer's reveal counts every
phone. Loopback only: phones spread over source addresses 127.0.0.2.. (--addresses), as phones of their own."""
from __future__ import annotations

import asyncio
import json
import random
import re
import time
import urllib.parse


def answers(url: str) -> bool:
    """url serves the phones' side (nginx in front of rnnviz.rooms.live)."""
    import urllib.request

    try:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        return opener.open(url + "/_rnnviz/_stcore/health", timeout=5).read() == b"ok"
    except OSError:
        return False


class Conn:
    """A minimal HTTP/1.1 client on one keep-alive connection (no dependency beyond asyncio)."""

    def __init__(self, host: str, port: int, source: str | None, jar: dict | None = None):
        self.host, self.port, self.source, self.r, self.w = host, port, source, None, None
        self.jar = {} if jar is None else jar  # nginx's visitor cookie, kept as a phone's browser keeps it

    def cookie(self) -> str:
        return f"Cookie: {'; '.join(f'{k}={v}' for k, v in self.jar.items())}\r\n" if self.jar else ""

    async def open(self):
        self.r, self.w = await asyncio.open_connection(self.host, self.port, local_addr=(self.source, 0)
                                                       if self.source else None, limit=2**20)

    async def send(self, method: str, path: str, body: bytes = b"") -> tuple[int, dict]:
        if self.w is None:
            await self.open()
        head = (f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n{self.cookie()}\r\n")
        self.w.write(head.encode() + body)
        return await self.response()

    async def response(self) -> tuple[int, dict]:
        status = int((await self.r.readline()).split()[1])
        headers = {}
        while (line := await self.r.readline()) not in (b"\r\n", b""):
            k, _, v = line.decode().partition(":")
            headers[k.strip().lower()] = v.strip()
            if k.strip().lower() == "set-cookie" and "=" in v:
                name, _, value = v.strip().split(";")[0].partition("=")
                self.jar[name] = value
        if headers.get("transfer-encoding") == "chunked" and headers.get("content-type", "").startswith("text/event"):
            return status, headers  # the caller reads the stream
        if headers.get("transfer-encoding") == "chunked":
            body = b"".join([c async for c in self.chunks()])
        else:
            body = await self.r.readexactly(int(headers.get("content-length", 0)))
        try:
            return status, json.loads(body or b"{}")
        except ValueError:
            return status, {}

    async def chunks(self):
        while True:
            size = int((await self.r.readline()).strip() or b"0", 16)
            if size == 0:
                await self.r.readline()
                return
            data = await self.r.readexactly(size)
            await self.r.readline()
            yield data

    def close(self):
        if self.w is not None:
            self.w.close()


class Phone:
    def __init__(self, url: str, code: str, source: str | None, rng: random.Random):
        u = urllib.parse.urlsplit(url)
        self.host, self.port, self.source, self.code, self.rng = u.hostname, u.port or 80, source, code, rng
        self.api = f"/_rnnviz/room/{code}"
        self.me, self.seen, self.jar = None, {}, {}
        self.posts = Conn(self.host, self.port, source, self.jar)

    async def join(self) -> int:
        """Join, waiting as the server's pacing says; the number of times it was told to wait."""
        waits = 0
        while True:
            try:
                status, got = await self.posts.send("POST", self.api + "/join", json.dumps({"me": self.me}).encode())
            except (OSError, ValueError, asyncio.IncompleteReadError):
                self.posts.close()
                self.posts = Conn(self.host, self.port, self.source, self.jar)
                status, got = 0, {}
            if status == 200:
                self.me = got["me"]
                return waits
            waits += 1
            await asyncio.sleep(got.get("retry", 1.0) if status == 429 else 1.0)

    async def listen(self, on_event):
        """The events stream, for good: each pushed room to on_event(phone, room, arrival time)."""
        c = Conn(self.host, self.port, self.source, self.jar)
        await c.open()
        c.w.write(f"GET {self.api}/events?me={urllib.parse.quote(self.me)} HTTP/1.1\r\nHost: {self.host}\r\n"
                  f"Accept: text/event-stream\r\n{c.cookie()}\r\n".encode())
        status, _ = await c.response()
        if status != 200:
            self.failed = f"events: {status}"
            raise RuntimeError(self.failed)
        buf = b""
        try:
            async for data in c.chunks():
                buf += data
                while b"\n\n" in buf:
                    block, buf = buf.split(b"\n\n", 1)
                    for line in block.split(b"\n"):
                        if line.startswith(b"data: "):
                            on_event(self, json.loads(line[6:]), time.perf_counter())
        finally:
            c.close()

    async def vote(self, number: int, rnd: int, out: dict) -> None:
        """One vote, sent again until the room has it (a store restarting answers 503)."""
        body = json.dumps({"me": self.me, "number": number, "round": rnd,
                           "answer": round(self.rng.uniform(-1, 1), 3)}).encode()
        t0 = time.perf_counter()
        for _ in range(60):
            try:
                status, got = await self.posts.send("POST", self.api + "/vote", body)
            except (OSError, ValueError, asyncio.IncompleteReadError):
                self.posts.close()
                self.posts = Conn(self.host, self.port, self.source, self.jar)
                status, got = 0, {}
            if status == 200:
                out["vote_ms"].append(1000 * (time.perf_counter() - t0))
                out["accepted"][(number, rnd)] = out["accepted"].get((number, rnd), 0) + 1
                return
            if status and status < 500:
                out["refused"].append(f"{status} {got.get('message', '')}")
                return
            await asyncio.sleep(0.5)
        out["refused"].append("no answer after 60 tries")


async def run_live(url: str, lecturer_factory, n: int, window: float, seed: int, addresses: int, cpu, rounds=3):
    """The whole class; returns the figures. `lecturer_factory()` opens the room and asks question 1 later."""
    from class_session import open_room  # the Streamlit lecturer session

    rng = random.Random(seed)
    lec, phone_url, code = await open_room(url, answers)
    sources = [None] if addresses <= 1 else [f"127.0.0.{2 + k}" for k in range(addresses)]
    phones = [Phone(phone_url, code, sources[i % len(sources)], random.Random(rng.random())) for i in range(n)]
    out = {"vote_ms": [], "question_ms": [], "reveal_ms": [], "accepted": {}, "refused": [], "confirmed": {},
           "counted": {}, "join_waits": 0}
    cpu0, t0 = cpu(), time.perf_counter()
    waits = await asyncio.gather(*(p.join() for p in phones))
    out["join_waits"], out["join_s"] = sum(waits), time.perf_counter() - t0
    state = {"press": 0.0, "want": None, "arrived": 0, "all": asyncio.Event(), "votes": [], "ready": 0}

    def on_event(phone, room, at):
        key = (room.get("number"), room.get("round"), room.get("phase"))
        if phone.seen.get(key):
            return
        phone.seen[key] = True
        if room.get("phase") == "waiting":
            state["ready"] += 1
        if key == state["want"]:
            ms = 1000 * (at - state["press"])
            out["question_ms" if room["phase"] == "open" else "reveal_ms"].append(ms)
            out.setdefault("by_round", {}).setdefault(key, []).append(ms)
            if room["phase"] == "open":
                state["votes"].append(asyncio.get_running_loop().call_later(
                    phone.rng.uniform(0, window), lambda: asyncio.ensure_future(phone.vote(key[0], key[1], out))))
            elif room.get("mine") is not None:
                out["confirmed"][key[:2]] = out["confirmed"].get(key[:2], 0) + 1
            state["arrived"] += 1
            if state["arrived"] == n:
                state["all"].set()

    listeners = [asyncio.create_task(p.listen(on_event)) for p in phones]
    deadline = time.monotonic() + 120
    while state["ready"] < n and time.monotonic() < deadline:  # every stream open and holding the waiting room
        await asyncio.sleep(0.2)
    out["listen_s"] = time.perf_counter() - t0 - out["join_s"]

    async def press(key: str, want: tuple) -> None:
        state.update(want=want, arrived=0, all=asyncio.Event(), press=time.perf_counter())
        await lec.rerun([lec.press(key)])
        try:
            await asyncio.wait_for(state["all"].wait(), 120)
        except asyncio.TimeoutError:
            bad = [getattr(p, "failed", "") for p in phones if getattr(p, "failed", "")]
            raise SystemExit(f"{state['arrived']} of {n} phones saw {want} within 120 s; {len(bad)} streams "
                             f"refused, e.g. {bad[:1]}") from None

    plan = [("class.ask", (1, 1)), ("class.revote", (1, 2)), ("class.ask", (2, 1))][:rounds]
    try:
        for key, (number, rnd) in plan:
            await press(key, (number, rnd, "open"))
            deadline = time.monotonic() + window + 60
            while out["accepted"].get((number, rnd), 0) + len(out["refused"]) < n and time.monotonic() < deadline:
                await asyncio.sleep(0.2)
            await press("class.reveal_btn", (number, rnd, "revealed"))
            got = re.search(r"After discussing: \*\*\d+ of (\d+)\*\*" if rnd == 2 else r"Round 1: \*\*\d+ of (\d+)\*\*",
                            lec.text())
            out["counted"][(number, rnd)] = int(got.group(1)) if got else 0
    finally:
        out["wall_s"], out["server_cpu_s"] = time.perf_counter() - t0, cpu() - cpu0
        for t in listeners:
            t.cancel()
        for p in phones:
            p.posts.close()
        await lec.ws.close()
    out["rounds"] = [k for _, k in plan]
    return out
