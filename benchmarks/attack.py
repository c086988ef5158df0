"""What an attacker of the public demo does, against `python -m rnnviz.serve --replicas 2` on loopback, and what each
attack costs the server (issue 29: findings 1-5 and 8). Each attack is bounded in count and time.

    python benchmarks/attack.py                        # every attack, on a server started from this checkout
    python benchmarks/attack.py --root /tmp/base --card-kib 32 --only card flood   # an older checkout, for "before"

card       a card of `"` then `\\"` repeated, and a safetensors header of the same (the quadratic nesting check):
           the replica's CPU seconds and peak RSS for the rerun that checks them
flood      one session PUTs 40 files of 21 MiB to made-up ids, 8 at a time: statuses, replica RSS before, peak, after
           (flood-direct: the same to a replica's own port, past nginx, for the app's own bound)
models     8 sessions of one visitor each upload the shipped model: how many are accepted, replica RSS
held       30 sessions (a cookie each) put two 21 MiB files in the sampling page's boxes: replica RSS, peak and after
logs       2 connections send 2-byte debug_shutdown_runtime messages for 15 s: log bytes written, replica CPU
bystander  12 sessions of one visitor loop on the one-unit page; a bystander on the same replica reruns: its median
bystander-fresh  the same with 4 looping clients, a cookie each (one address); the bystander reruns 0.7 s apart
frames     issue 49 item 4: 4 clients (a cookie each) ask for drag frames around new values on a 200-step one-unit
           page for 30 s; a bystander on the same replica reruns 0.7 s apart: its median and p90, the replica's CPU,
           the bytes sent to one client
hang       the replica the bystander is not on is stopped (SIGSTOP): when it is replaced, the bystander's errors
rooms      one address opens 40 class rooms (4 at a time): how many open, the message past the cap, and whether a
           lecturer at another address (127.0.0.2) still opens one (issue 49 item 5)
nat        issue 49 item 2: one client opens 1,000 sessions with made-up cookies, then a hall of 300 students behind
           the same address (30 kinds of phone) each loads the page and opens a session: how many of each get in
nat-mint   the same, the client taking a cookie from nginx for every 4 sessions (a visitor's limit)
"""
from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import json
import os
import re
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.WidgetStates_pb2 import WidgetState  # noqa: E402

from benchmarks.load import Session, cpu_s, rss_mb  # noqa: E402
from benchmarks.uploads import RssWatch  # noqa: E402

FILE = 21 * 2**20 - 1024  # the largest file nginx and Streamlit let through (server.maxUploadSize = 21)


class Visitor(Session):
    """A Session that can upload files, set file boxes, send raw messages, and read the page's alerts."""

    def upload(self, data: bytes, name: str, file_id: str | None = None) -> tuple[int, str]:
        """PUT one file into this session, as the file uploader does; (status, file id)."""
        if "_streamlit_xsrf" not in self.cookies:
            self.http("/_stcore/health")
        file_id, boundary = file_id or str(uuid.uuid4()), "rnnviz-attack"
        body = (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
                f"Content-Type: application/octet-stream\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
        status = self.http(f"/_stcore/upload_file/{self.session_id}/{file_id}", body, "PUT",
                           {"X-Xsrftoken": self.cookies.get("_streamlit_xsrf", ""),
                            "Content-Type": f"multipart/form-data; boundary={boundary}"})
        return status, file_id

    def files(self, key: str, file_id: str, name: str, size: int) -> WidgetState:
        st = WidgetState(id=self.widget_id(key))
        st.file_uploader_state_value.uploaded_file_info.add(file_id=file_id, name=name, size=size)
        return st

    async def rerun_states(self, states: list[WidgetState]) -> float:
        msg = BackMsg()
        msg.rerun_script.query_string = self.query
        msg.rerun_script.page_name = self.page
        msg.rerun_script.widget_states.widgets.extend(states)
        t0 = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
        self.alerts = []
        while True:
            fm = ForwardMsg()
            fm.ParseFromString(await asyncio.wait_for(self.ws.recv(), timeout=3600))
            kind = fm.WhichOneof("type")
            if kind == "delta" and fm.delta.WhichOneof("type") == "new_element":
                if fm.delta.new_element.WhichOneof("type") == "alert":
                    self.alerts.append(fm.delta.new_element.alert.body)
            elif kind == "script_finished" and fm.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                return time.perf_counter() - t0


class Server:
    """`python -m rnnviz.serve --replicas 2` from a checkout, its replicas' pids and ports, its access log."""

    def __init__(self, root: Path, port: int):
        self.workdir = Path(tempfile.mkdtemp(prefix="rnnviz-attack-"))
        self.workdir.chmod(0o755)  # run as root, nginx's workers (nobody) write upload bodies under it
        self.proc = subprocess.Popen([sys.executable, "-m", "rnnviz.serve", "--replicas", "2", "--port", str(port),
                                      "--workdir", str(self.workdir)], cwd=root, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, start_new_session=True)
        self.url, self.out = f"http://127.0.0.1:{port}", []
        self.replicas: dict[int, int] = {}  # port -> pid
        threading.Thread(target=self._read, daemon=True).start()
        deadline = time.monotonic() + 180
        while not any("rnnviz on" in line for line in self.out):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise SystemExit(f"the server did not start: {''.join(self.out)[-2000:]}")
            time.sleep(0.2)

    def _read(self):
        for line in self.proc.stdout:
            self.out.append(line)
            m = re.match(r"replica \d+: pid (\d+) http://127\.0\.0\.1:(\d+)", line)
            if m:
                self.replicas[int(m.group(2))] = int(m.group(1))

    def pids(self) -> list[int]:
        return list(self.replicas.values())

    def replica_of(self, v: Session) -> int:
        """The port of the replica nginx sends this visitor to (a request with its cookie, then the access log)."""
        v.http("/_stcore/host-config")
        visitor = v.cookies["rnnviz_visitor"]
        for _ in range(50):
            text = (self.workdir / "access.log").read_text()
            ports = re.findall(rf"upstream=(?:\S+, )*127\.0\.0\.1:(\d+) visitor={re.escape(visitor)}\b", text)
            if ports:
                return int(ports[-1])
            time.sleep(0.1)
        raise RuntimeError(f"visitor {visitor} not in the access log")

    def log_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.workdir.glob("*.log*"))

    def stop(self):
        self.proc.send_signal(signal.SIGINT)
        self.proc.wait(60)


def adversarial(n: int) -> bytes:
    return ('"' + '\\"' * ((n - 1) // 2)).encode()


async def attack_card(srv: Server, kib: int) -> None:
    """The adversarial card (and header) through the sampling page's file boxes."""
    v = Visitor(srv.url, "sample")
    await v.open()
    pid = srv.replicas[srv.replica_of(v)]
    header = b"{" + adversarial(min(kib * 1024, 100_000) - 1)
    cases = [("card", (ROOT / "models" / "shakespeare.safetensors").read_bytes(), adversarial(kib * 1024)),
             ("header", struct.pack("<Q", len(header)) + header, (ROOT / "models" / "shakespeare.json").read_bytes())]
    for what, weights, card in cases:
        (sw, wid), (sc, cid) = v.upload(weights, "m.safetensors"), v.upload(card, "m.json")
        with RssWatch(lambda: rss_mb(pid)) as watch:
            cpu0 = cpu_s([pid])
            secs = await v.rerun_states([v.files("sample.up_w", wid, "m.safetensors", len(weights)),
                                         v.files("sample.up_c", cid, "m.json", len(card))])
            cpu = cpu_s([pid]) - cpu0
        refused = any("refused" in a for a in v.alerts)
        print(f"card: {what} of {len(card if what == 'card' else header):,} bytes uploads={sw},{sc} refused={refused} "
              f"rerun_s={secs:.2f} replica_cpu_s={cpu:.2f} replica_peak_rss_mb={watch.top:.0f}", flush=True)
    await v.ws.close()


async def attack_flood(srv: Server, files: int = 40, at_once: int = 8, direct: bool = False) -> None:
    """Through nginx; or `direct`ly to a replica's own port, past nginx's limits, to see the app's own bound."""
    if direct:
        port = next(iter(srv.replicas))
        v = Visitor(f"http://127.0.0.1:{port}", "scalar")
        await v.open()
    else:
        v = Visitor(srv.url, "scalar")
        await v.open()
        port = srv.replica_of(v)
    pid = srv.replicas[port]
    data, before = os.urandom(FILE), rss_mb(pid)
    v.http("/_stcore/health")  # the XSRF cookie once, before the uploads race for it

    def put(i: int) -> int | str:
        try:
            return v.upload(data, f"f{i}.bin")[0]
        except OSError as e:
            return type(e).__name__
    with RssWatch(lambda: rss_mb(pid)) as watch, concurrent.futures.ThreadPoolExecutor(at_once) as pool:
        t0 = time.perf_counter()
        statuses = list(pool.map(put, range(files)))
        wall = time.perf_counter() - t0
        counts = {s: statuses.count(s) for s in sorted(set(statuses), key=str)}
        await asyncio.sleep(10)
        open_10s = rss_mb(pid)
    await v.ws.close()
    await asyncio.sleep(5)
    where = " (direct to the replica)" if direct else ""
    print(f"flood{where}: {files} files of {FILE / 2**20:.1f} MiB in {wall:.1f} s statuses={counts} "
          f"rss_mb before={before:.0f} peak={watch.top:.0f} 10s_later={open_10s:.0f} after_close={rss_mb(pid):.0f} "
          f"(replica {port})", flush=True)


async def attack_held(srv: Server, sessions: int = 30, settle_s: float = 60) -> None:
    """Issue 49, finding 1: `sessions` sessions (a cookie each, one address) each put two files of FILE bytes in the
    sampling page's boxes (a pair refused: over 20 MiB), all at once. Each replica's RSS: before, peak, with the
    sessions open 10 s after, and `settle_s` after they close."""
    data = os.urandom(FILE)
    visitors = [Visitor(srv.url, "sample") for _ in range(sessions)]
    opened = await asyncio.gather(*(v.open() for v in visitors), return_exceptions=True)
    visitors = [v for v, o in zip(visitors, opened) if not isinstance(o, BaseException)]
    pids = srv.pids()
    before = {p: rss_mb(p) for p in pids}
    answers, statuses = [], []

    async def one(v):
        await asyncio.to_thread(v.http, "/_stcore/health")  # the XSRF cookie once, before the two uploads race for it
        (sw, wid), (sc, cid) = await asyncio.gather(asyncio.to_thread(v.upload, data, "m.safetensors"),
                                                    asyncio.to_thread(v.upload, data, "m.json"))
        statuses.extend([sw, sc])
        if sw == sc == 204:
            await v.rerun_states([v.files("sample.up_w", wid, "m.safetensors", FILE),
                                  v.files("sample.up_c", cid, "m.json", FILE)])
            answers.append("refused" if any("refused" in a for a in v.alerts) else "?")
    watches = {p: RssWatch(lambda p=p: rss_mb(p)) for p in pids}
    for w in watches.values():
        w.__enter__()
    t0 = time.perf_counter()
    await asyncio.gather(*(one(v) for v in visitors), return_exceptions=True)
    wall = time.perf_counter() - t0
    await asyncio.sleep(10)
    open_10s = {p: rss_mb(p) for p in pids}
    for v in visitors:
        await v.ws.close()
    await asyncio.sleep(settle_s)
    for w in watches.values():
        w.__exit__()
    after = {p: rss_mb(p) for p in pids}
    per = "; ".join(f"pid {p}: before={before[p]:.0f} peak={watches[p].top:.0f} open_10s={open_10s[p]:.0f} "
                    f"{settle_s:.0f}s_after_close={after[p]:.0f} (+{after[p] - before[p]:.0f})" for p in pids)
    print(f"held: {len(visitors)} sessions x 2 files of {FILE / 2**20:.1f} MiB in {wall:.1f} s, uploads "
          f"{ {s: statuses.count(s) for s in set(statuses)} }, models {answers.count('refused')} refused; rss_mb {per}",
          flush=True)


async def attack_models(srv: Server, sessions: int = 8) -> None:
    weights = (ROOT / "models" / "shakespeare.safetensors").read_bytes()
    card = (ROOT / "models" / "shakespeare.json").read_bytes()
    first = Visitor(srv.url, "sample")
    await first.open()
    visitors, answers, refused_sessions = [first], [], 0
    for _ in range(sessions - 1):
        v = Visitor(srv.url, "sample")
        v.cookies["rnnviz_visitor"] = first.cookies["rnnviz_visitor"]  # one visitor, several tabs
        try:
            await v.open()
            visitors.append(v)
        except Exception:
            refused_sessions += 1
    pid = srv.replicas[srv.replica_of(first)]
    before = rss_mb(pid)
    for v in visitors:
        (sw, wid), (sc, cid) = v.upload(weights, "m.safetensors"), v.upload(card, "m.json")
        if sw != 204 or sc != 204:
            answers.append(f"upload {sw},{sc}")
            continue
        await v.rerun_states([v.files("sample.up_w", wid, "m.safetensors", len(weights)),
                              v.files("sample.up_c", cid, "m.json", len(card))])
        answers.append("accepted" if any("Using your model" in a for a in v.alerts) else
                       "refused: " + next((a[:60] for a in v.alerts if "refused" in a), "?"))
    after = rss_mb(pid)
    for v in visitors:
        await v.ws.close()
    print(f"models: {sessions} sessions of one visitor, {refused_sessions} refused at the door; answers "
          f"{ {a: answers.count(a) for a in set(answers)} } rss_mb before={before:.0f} after={after:.0f}", flush=True)


async def attack_logs(srv: Server, seconds: float = 15) -> None:
    visitors = [Visitor(srv.url, "scalar") for _ in range(2)]
    await asyncio.gather(*(v.open() for v in visitors))
    log0, cpu0 = srv.log_bytes(), cpu_s(srv.pids())
    msg = BackMsg(debug_shutdown_runtime=True).SerializeToString()
    sent, t_end = 0, time.monotonic() + seconds

    async def spam(v):
        nonlocal sent
        while time.monotonic() < t_end:
            for _ in range(200):
                await v.ws.send(msg)
            sent += 200
            await asyncio.sleep(0)
    try:
        await asyncio.gather(*(spam(v) for v in visitors))
    except Exception as e:  # a server may close the socket
        print(f"logs: connection ended: {type(e).__name__}")
    await asyncio.sleep(2)
    files = ", ".join(f"{p.name} {p.stat().st_size / 1e6:.1f} MB" for p in sorted(srv.workdir.glob("*.log*")))
    print(f"logs: {sent:,} messages of {len(msg)} bytes in {seconds:.0f} s: logs grew "
          f"{(srv.log_bytes() - log0) / 1e6:.2f} MB, replicas' cpu_s={cpu_s(srv.pids()) - cpu0:.1f} ({files})",
          flush=True)
    for v in visitors:
        await v.ws.close()


async def bystander_on(srv: Server, port: int) -> Visitor:
    """A new visitor that nginx sends to the replica on `port`."""
    for _ in range(40):
        b = Visitor(srv.url, "scalar")
        await b.open()
        if srv.replica_of(b) == port:
            return b
        await b.ws.close()
    raise RuntimeError(f"no new visitor landed on {port}")


async def attack_bystander(srv: Server, loopers: int = 12, moves: int = 40, fresh: bool = False,
                           think: float = 0.0) -> None:
    """`loopers` sessions loop on the one-unit page, with one visitor's cookie or (`fresh`) a cookie each; a bystander
    on the same replica (and, on loopback, the same address) reruns, `think` seconds apart: its median alone, then
    with them."""
    first = Visitor(srv.url, "scalar")
    await first.open()
    port = srv.replica_of(first)
    b = await bystander_on(srv, port)

    async def moved(k):
        await asyncio.sleep(think)
        return await b.rerun(b.move("scalar.w_h", 0.55 + 0.05 * (k % 10)))
    quiet = [await moved(k) for k in range(moves // 2)]
    crowd, refused = [first], 0
    while len(crowd) + refused < loopers:
        v = Visitor(srv.url, "scalar")
        if not fresh:
            v.cookies["rnnviz_visitor"] = first.cookies["rnnviz_visitor"]
        try:
            await v.open()
            if fresh and srv.replica_of(v) != port:  # a fresh cookie lands on either replica: keep those on ours
                await v.ws.close()
                continue
            crowd.append(v)
        except Exception:
            refused += 1
    stop, looped = asyncio.Event(), [0]

    async def loop(v):
        k = 0
        while not stop.is_set():
            await v.rerun(v.move("scalar.w_h", 0.55 + 0.05 * (k % 10)))
            k += 1
            looped[0] += 1
    tasks = [asyncio.create_task(loop(v)) for v in crowd]
    await asyncio.sleep(5)  # past the crowd's first bursts
    looped[0], t0 = 0, time.perf_counter()
    busy = [await moved(k) for k in range(moves)]
    rate = looped[0] / (time.perf_counter() - t0)
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    cookies = "a cookie each" if fresh else "one visitor"
    print(f"bystander: {loopers} looping sessions ({cookies}) asked, {len(crowd)} open ({refused} refused); the "
          f"bystander's rerun ({think:g} s apart) median_s alone={statistics.median(quiet):.3f} "
          f"with them={statistics.median(busy):.3f} ratio={statistics.median(busy) / statistics.median(quiet):.2f} "
          f"max={max(busy):.3f}; the crowd's reruns/s={rate:.1f}", flush=True)
    for v in [*crowd, b]:
        await v.ws.close()


async def attack_frames(srv: Server, clients: int = 4, seconds: float = 30, moves: int = 30, steps: int = 200) -> None:
    """Issue 49, item 4: `clients` clients (a cookie each, one address) open the one-unit page with a `steps`-step
    input and, as fast as the server answers, move a slider to a new value (a new setting: frames not computed yet)
    and ask for the frames of every slider around new values (scrub.js's `want`, "<slider>@<value>"), for `seconds`;
    a bystander on the same replica reruns 0.7 s apart: its median and p90 quiet and attacked, the replica's CPU
    seconds meanwhile, and the bytes the server sent one client."""
    import random
    rng = random.Random(49)
    query = "x=" + ",".join(["1"] + ["0"] * (steps - 1))
    first = Visitor(srv.url, "scalar", query)
    await first.open()
    port = srv.replica_of(first)
    pid = srv.replicas[port]
    b = await bystander_on(srv, port)

    async def moved(k):
        await asyncio.sleep(0.7)
        return await b.rerun(b.move("scalar.w_h", 0.55 + 0.05 * (k % 10)))
    quiet = [await moved(k) for k in range(moves // 2)]
    crowd = [first]
    while len(crowd) < clients:
        v = Visitor(srv.url, "scalar", query)
        await v.open()
        if srv.replica_of(v) != port:  # a fresh cookie lands on either replica: keep those on ours
            await v.ws.close()
            continue
        crowd.append(v)
    got = {id(v): 0 for v in crowd}
    for v in crowd:  # count what the server sends each client
        def counted(recv=v.ws.recv, v=v):
            async def recv_counted(*a, **k):
                raw = await recv(*a, **k)
                got[id(v)] += len(raw)
                return raw
            return recv_counted
        v.ws.recv = counted()
    sliders = {"scalar.w_x": (-10.0, 10.0, 0.05), "scalar.w_h": (-10.0, 10.0, 0.05), "scalar.b": (-10.0, 10.0, 0.05),
               "scalar.h0": (-1.0, 1.0, 0.01)}

    def anywhere(key: str) -> float:
        lo, hi, step = sliders[key]
        return round(lo + step * rng.randrange(round((hi - lo) / step) + 1), 2)
    stop, reruns = asyncio.Event(), [0] * clients

    async def loop(i: int, v: Visitor):
        for key in sliders:  # the pointer reaches each slider: its frames from now on
            await v.rerun(*v.want(key))
        k = 0
        while not stop.is_set():
            key = list(sliders)[k % len(sliders)]
            await v.rerun(v.move(key, anywhere(key)), v.fragment_of(key))  # a new setting
            for other in sliders:  # a drag on each slider, somewhere new
                if stop.is_set():
                    break
                await v.rerun(*v.want(f"{other}@{anywhere(other)}"))
                reruns[i] += 1
            reruns[i] += 1
            k += 1
    tasks = [asyncio.create_task(loop(i, v)) for i, v in enumerate(crowd)]
    await asyncio.sleep(3)  # past the first reruns
    cpu0, bytes0, runs0, t0 = cpu_s([pid]), got[id(first)], reruns[0], time.perf_counter()
    busy = []
    while time.perf_counter() - t0 < seconds:
        busy.append(await moved(len(busy)))
    wall = time.perf_counter() - t0
    cpu, sent, runs = cpu_s([pid]) - cpu0, got[id(first)] - bytes0, reruns[0] - runs0
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)

    def p90(xs):
        return statistics.quantiles(xs, n=10)[-1] if len(xs) > 1 else xs[0]
    print(f"frames: {len(crowd)} clients (a cookie each) asking for frames on a {steps}-step one-unit page for "
          f"{wall:.0f} s; the bystander's rerun (0.7 s apart) median_s quiet={statistics.median(quiet):.3f} "
          f"attacked={statistics.median(busy):.3f} ratio={statistics.median(busy) / statistics.median(quiet):.2f} "
          f"p90_s quiet={p90(quiet):.3f} attacked={p90(busy):.3f}; replica cpu_s={cpu:.1f} in {wall:.0f} s; "
          f"one client: {runs} reruns, {sent / 2**20:.1f} MiB sent ({sent / max(runs, 1) / 1e6:.2f} MB a rerun); "
          f"all clients' reruns={sum(reruns)}", flush=True)
    for v in [*crowd, b]:
        await v.ws.close()


async def attack_hang(srv: Server, watch_s: float = 40) -> None:
    b = Visitor(srv.url, "scalar")
    await b.open()
    mine = srv.replica_of(b)
    other = next(p for p in srv.replicas if p != mine)
    hung = srv.replicas[other]
    os.kill(hung, signal.SIGSTOP)
    t0, errors, replaced, k = time.monotonic(), 0, None, 0
    try:
        while time.monotonic() - t0 < watch_s:
            try:
                await b.rerun(b.move("scalar.w_h", 0.55 + 0.05 * (k % 10)))
                errors += b.exceptions
            except Exception:
                errors += 1
            k += 1
            if replaced is None and srv.replicas[other] != hung:
                replaced = time.monotonic() - t0
            await asyncio.sleep(0.5)
    finally:
        with contextlib.suppress(ProcessLookupError):  # the watchdog has killed it
            os.kill(hung, signal.SIGCONT)
    print(f"hang: replica on {other} stopped; replaced after "
          f"{'%.1f s' % replaced if replaced is not None else f'more than {watch_s:.0f} s (never)'}; the bystander "
          f"on {mine} made {k} reruns with {errors} errors", flush=True)
    await b.ws.close()


async def attack_rooms(srv: Server, tries: int = 40) -> None:
    """Issue 49, item 5: rooms opened from one address, each a Class page session pressing Open a room."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from class_session import Visitor as ClassVisitor  # a Class page session from a source address

    said: dict[str, int] = {}

    async def one(source: str | None) -> str:
        v = ClassVisitor(srv.url, source=source)
        await v.open()
        await v.rerun([v.press("class.open")])
        await v.ws.close()
        text = v.text()
        return "opened" if re.search(r"/room/[A-Z0-9]{6}", text) else (re.findall(r"This address[^\n]*", text)
                                                                       or [text[-160:]])[0]
    t0, gate = time.perf_counter(), asyncio.Semaphore(4)

    async def limited():
        async with gate:
            got = await one(None)
            said[got] = said.get(got, 0) + 1
    await asyncio.gather(*(limited() for _ in range(tries)))
    other = await one("127.0.0.2")
    print(f"rooms: {tries} tries from one address in {time.perf_counter() - t0:.1f} s: opened={said.pop('opened', 0)} "
          f"refused={sum(said.values())} another_address={other} said={list(said)[:1]}", flush=True)
async def websocket(url: str, cookie: str | None, agent: str):
    """A session opened as a browser opens it (its page not run): the socket, or None where it is refused."""
    from websockets.asyncio.client import connect

    headers = {"User-Agent": agent, **({"Cookie": cookie} if cookie else {})}
    try:
        return await connect("ws" + url.removeprefix("http") + "/_stcore/stream", subprotocols=["streamlit"],
                             origin=url, additional_headers=headers, proxy=None, ping_interval=None, open_timeout=60)
    except Exception:  # noqa: BLE001 - a refusal (429) or a failure: not in
        return None


async def attack_nat(srv: Server, sessions: int = 1000, students: int = 300, kinds: int = 30, mint: bool = False,
                     runs: int = 30) -> None:
    """One client, one address: `sessions` sessions at once (50 opening at a time), each with a cookie of its own
    making (nginx's old shape, 32 hex, or its new `ID.MAC` shape) and a user agent of its own, all kept open; then
    `students` students from that address, each loading the page (nginx's cookie) and opening a session with it.
    With `mint`, the client instead loads the page for a cookie from nginx and opens 4 sessions (a visitor's limit)
    with each. `runs` students then run the page, to show a session is whole and what one costs: each replica's RSS
    with the sessions open, after the first 3 runs and after all of them."""
    gate = asyncio.Semaphore(50)
    minted: list[str] = []

    async def bot(i: int, cookie: str | None):
        async with gate:
            return await websocket(srv.url, f"rnnviz_visitor={cookie}" if cookie else None, f"bot/{i}")

    async def minted_cookie() -> str:
        v = Visitor(srv.url, "scalar")
        await asyncio.to_thread(v.http, "/scalar", None, "GET", {"User-Agent": "bot"})
        minted.append(v.cookies.get("rnnviz_visitor", ""))
        return minted[-1]
    t0 = time.perf_counter()
    if mint:  # a cookie from nginx, then its 4 sessions
        held = []
        for i in range(0, sessions, 4):
            cookie = await minted_cookie()
            held += await asyncio.gather(*(bot(j, cookie) for j in range(i, min(i + 4, sessions))))
    else:
        held = await asyncio.gather(*(bot(i, uuid.uuid4().hex + ("" if i % 2 else "." + uuid.uuid4().hex[:22]))
                                      for i in range(sessions)))
    held = [s for s in held if s is not None]
    bot_s, t0 = time.perf_counter() - t0, time.perf_counter()
    phones = [f"Mozilla/5.0 (phone model {k}) Safari/605.1.15" for k in range(kinds)]
    hall, pages = [], []
    for i in range(students):
        s = Visitor(srv.url, "scalar")
        pages.append(await asyncio.to_thread(s.http, "/scalar", None, "GET", {"User-Agent": phones[i % kinds]}))
        hall.append(s)
    cookies = sum("rnnviz_visitor" in s.cookies for s in hall)
    waited = time.perf_counter()
    while time.perf_counter() - waited < 90 and not all("rnnviz_visitor" in s.cookies for s in hall):
        await asyncio.sleep(1)  # as Streamlit's page retries its connection: host-config, where a cookie is issued
        for i, s in enumerate(hall):
            if "rnnviz_visitor" not in s.cookies:
                await asyncio.to_thread(s.http, "/_stcore/host-config", None, "GET", {"User-Agent": phones[i % kinds]})
    late = sum("rnnviz_visitor" in s.cookies for s in hall) - cookies
    waited = time.perf_counter() - waited

    async def student(i: int, s: Visitor):
        async with gate:
            return await websocket(srv.url, "; ".join(f"{k}={v}" for k, v in s.cookies.items()), phones[i % kinds])
    opened = [w for w in await asyncio.gather(*(student(i, s) for i, s in enumerate(hall))) if w is not None]
    hall_s = time.perf_counter() - t0
    rss = [", ".join(f"{rss_mb(p):.0f}" for p in srv.pids())]
    ran, ok = [], 0
    for k, s in enumerate(hall[:runs]):  # a student's own page, run: no error, a session of its own
        try:
            await s.open()
            ok += s.exceptions == 0 and bool(s.session_id)
            ran.append(s)
        except Exception as e:  # noqa: BLE001 - reported
            print(f"nat: a student's page failed: {type(e).__name__}: {str(e)[:200]}", flush=True)
        if k == 2:
            rss.append(", ".join(f"{rss_mb(p):.0f}" for p in srv.pids()))
    rss.append(", ".join(f"{rss_mb(p):.0f}" for p in srv.pids()))
    how = f"cookies from nginx ({sum(bool(c) for c in minted)} of {len(minted)} page loads gave one)" if mint else \
        "made-up cookies"
    print(f"nat: one client asked {sessions} sessions with {how}, {len(held)} open ({bot_s:.1f} s); then "
          f"{students} students ({kinds} kinds of phone) of the same address: {pages.count(200)} pages, {cookies} "
          f"cookies with the page and {late} more in {waited:.0f} s of retries, {len(opened)} sessions open "
          f"({hall_s:.1f} s); {ok} of {min(runs, students)} students' pages run "
          f"without error; replicas' rss_mb with {len(held) + len(opened)} sessions open {rss[0]}, after 3 runs "
          f"{rss[1]}, after {len(ran)} {rss[2]}", flush=True)
    await asyncio.gather(*(w.close() for w in held + opened + [s.ws for s in ran]), return_exceptions=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout to serve (default: this one)")
    ap.add_argument("--port", type=int, default=9190)
    ap.add_argument("--card-kib", type=int, default=1024,
                    help="size of the adversarial card (the header: up to 100 KB)")
    ap.add_argument("--only", nargs="+",
                    default=["card", "flood", "flood-direct", "models", "logs", "bystander", "hang"])
    args = ap.parse_args()
    srv = Server(args.root.resolve(), args.port)
    try:
        for name in args.only:
            attack = {"card": lambda: attack_card(srv, args.card_kib), "flood": lambda: attack_flood(srv),
                      "flood-direct": lambda: attack_flood(srv, direct=True),
                      "models": lambda: attack_models(srv), "held": lambda: attack_held(srv),
                      "logs": lambda: attack_logs(srv),
                      "bystander": lambda: attack_bystander(srv),
                      "bystander-fresh": lambda: attack_bystander(srv, loopers=4, moves=30, fresh=True, think=0.7),
                      "frames": lambda: attack_frames(srv),
                      "hang": lambda: attack_hang(srv), "rooms": lambda: attack_rooms(srv),
                      "nat": lambda: attack_nat(srv), "nat-mint": lambda: attack_nat(srv, mint=True)}[name]
            try:
                asyncio.run(attack())
            except Exception as e:
                print(f"{name}: failed: {type(e).__name__}: {str(e)[:300]}", flush=True)
    finally:
        srv.stop()
        print(json.dumps({"launcher_stderr_tail": "".join(srv.out)[-600:]}))


if __name__ == "__main__":
    main()
