"""Concurrent sessions against `streamlit run app.py` (or any server or balancer in front of it), over Streamlit's
own websocket protocol.

    python benchmarks/load.py --sessions 1 10 30 --moves 20
    python benchmarks/load.py --sessions 20 --moves 30 --think 1 --per-page --floor lesson --port 8790
    python benchmarks/load.py --url http://127.0.0.1:8600 --sessions 30 --moves 10 --think 2 --pid 1234 --pid 1235
    python benchmarks/load.py --soak 100000 --minutes 50 --uploads 5
    python benchmarks/load.py --soak-sessions 100 --minutes 50 --think 3

Each session first GETs its page as a browser does (so a balancer can set its affinity cookie), opens the
websocket with that cookie, then moves one of its widgets `moves` times (a slider on the one-unit and gradients
pages, "Sample again" on the sampling page), waiting for each rerun to finish, pausing `think` seconds (jittered
0.5-1.5x) before each move. A move reruns the fragment that drew its widget, as a browser sends it (--whole: the
whole page). Reported per N: rerun latency p50/p95 per page and for the stepping pages together
(from sending the widget change to the server's script-finished message), reruns per second, errors (exception
elements, dropped connections), isolation failures (a session whose URL state shows another session's value), and
the resident memory of the server (or of the --pid processes) and their CPU time over the run divided by the
reruns (each session's first page load included): a cost that holds on a busy machine, where latencies do not.
Measuring starts once the warmed-up server is quiet. The run ends with one line per N (and page):
`N=30 p50_ms=... p95_ms=... errors=0 isolation=0 rps=... server_cpu_ms_per_rerun=... page=all`. Bounded: N
sessions x moves reruns, a --cap per N.
`--per-page` runs each page's sessions on their own, so that the CPU per rerun is that page's; `--floor [VARIANT]`
then puts the same load on benchmarks/floor_app.py (default `lesson`: a slider, nine controls, changing words and one
chart drawn the app's way; its own server on the next port): what Streamlit itself costs per rerun, beside the app.
`--soak R` instead visits every page, makes R reruns (at most --minutes), a visitor coming, moving once and leaving
every 25, and reports the server's RSS as it goes; `--uploads N` then
has N visitors upload model files on the sampling page in headless Chromium (benchmarks/uploads.py) and prints
`phase=before rss_mb=...`, `phase=during rss_mb=...` (the peak) and `phase=after rss_mb=...`.
Without --url it starts its own server on loopback; with --url it must be a loopback address.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import connect

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: rnnviz and benchmarks.* import from the checkout
    sys.path.insert(0, str(ROOT))
# page, widget key, kind, values to cycle through, query parameter that echoes the value
SCENARIOS = [("scalar", "scalar.w_h", "slider", [0.55 + 0.05 * k for k in range(12)], "wh"),
             ("gradients", "grad.scale", "slider", [0.95 + 0.05 * k for k in range(12)], "w"),
             ("sample", "sample.again", "button", None, "seed")]
STEPPING = {"scalar", "gradients"}  # pages whose moves step a computation; "sample" samples the trained LSTM
NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback only, whatever the environment


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def check_loopback(url: str) -> str:
    """The base URL without a trailing slash; refuse anything but a loopback host."""
    host = urllib.parse.urlsplit(url).hostname
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit(f"--url must be a loopback address (got {host})")
    return url.rstrip("/")


class Session:
    """One visitor: the page fetched like a browser, then Streamlit's websocket with the cookies it got."""

    def __init__(self, url: str, page: str, query: str = ""):
        self.url, self.page = url, page  # url: http://host:port of the server or balancer
        self.widgets: dict[str, str] = {}  # user key -> widget id
        self.fragments: dict[str, str] = {}  # widget id -> the fragment that drew it ("" outside any)
        self.query = query  # as the address bar has it (the floor app's ?variant=...)
        self.exceptions = 0
        self.cookies: dict[str, str] = {}  # what a balancer (affinity) and the server (XSRF) set
        self.session_id = ""

    def http(self, path: str, data: bytes | None = None, method: str = "GET", headers: dict | None = None) -> int:
        """One HTTP request with this visitor's cookies, keeping any it is given; the status code."""
        cookie = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())} if self.cookies else {}
        req = urllib.request.Request(self.url + path, data, {**cookie, **(headers or {})}, method=method)
        try:
            with NO_PROXY.open(req, timeout=30) as r:
                r.read()
                status, set_cookies = r.status, r.headers.get_all("Set-Cookie") or []
        except urllib.error.HTTPError as e:
            status, set_cookies = e.code, e.headers.get_all("Set-Cookie") or []
        for h in set_cookies:
            name, _, value = h.split(";", 1)[0].partition("=")
            self.cookies[name.strip()] = value.strip()
        return status

    async def open(self):
        # the page first, as a browser loads it
        await asyncio.to_thread(self.http, f"/{self.page}" + (f"?{self.query}" if self.query else ""))
        ws_url = "ws" + self.url.removeprefix("http") + "/_stcore/stream"
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())} if self.cookies else None
        # no client pings: a browser sends none (the server pings it), and on a busy machine a late pong is no error
        self.ws = await connect(ws_url, subprotocols=["streamlit"], max_size=None, origin=self.url,
                                additional_headers=headers, proxy=None, ping_interval=None)
        await self.rerun(None)

    async def rerun(self, state, fragment: str = "") -> float:
        msg = BackMsg()
        msg.rerun_script.query_string = self.query
        msg.rerun_script.page_name = self.page
        if fragment:  # a fragment's own rerun, as the browser sends for a widget inside one
            msg.rerun_script.fragment_id = fragment
        for w in [] if state is None else state if isinstance(state, list) else [state]:
            msg.rerun_script.widget_states.widgets.append(w)
        self.started()
        t0 = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        while True:
            raw = await asyncio.wait_for(self.ws.recv(), timeout=60)
            fm = ForwardMsg()
            fm.ParseFromString(raw)
            kind = fm.WhichOneof("type")
            if kind == "delta" and fm.delta.WhichOneof("type") == "new_element":
                el = fm.delta.new_element
                which = el.WhichOneof("type")
                if which == "exception":
                    self.exceptions += 1
                w = getattr(el, which, None)
                wid = getattr(w, "id", "") if w is not None else ""
                if wid:
                    self.widgets[wid] = wid
                    self.fragments[wid] = fm.delta.fragment_id
                self.element(fm, which, w)
            elif kind == "new_session":
                self.session_id = fm.new_session.initialize.session_id
            elif kind == "page_info_changed":
                self.query = fm.page_info_changed.query_string
            elif kind == "script_finished" and fm.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                return time.perf_counter() - t0

    def started(self) -> None:
        """Called as each rerun is sent (a subclass resets what it keeps of a run)."""

    def element(self, fm: ForwardMsg, which: str, element) -> None:
        """Called for each element a rerun draws (a subclass keeps what it needs of it)."""

    def widget_id(self, key: str) -> str:
        for k, wid in self.widgets.items():
            if wid.endswith(key):
                return wid
        raise KeyError(f"no widget {key} on {self.page}; saw {list(self.widgets)[:8]}")

    def want(self, key: str) -> tuple[list[WidgetState], str]:
        """What scrub.js sends as the pointer enters a scrubbed slider (before a drag): the page's scrub component
        (key scrub.<page prefix>) asks for that slider's frames, which the server then computes in the background for
        this setting and every later one (ui/live/scrub.py). The component's events travel as one JSON trigger widget,
        Streamlit's id for it built as streamlit/components/v2/bidi_component/main.py _make_trigger_id does, in a
        rerun of the component's fragment, as the browser sends it: with the component's own state widget beside it
        (without it, the trigger is not seen)."""
        base = self.widget_id("scrub." + key.split(".")[0])
        payload = json.dumps([{"event": "want", "value": key}])
        return [WidgetState(id=f"$$STREAMLIT_INTERNAL_KEY_{base}__events", json_trigger_value=payload),
                WidgetState(id=base, json_value="{}")], self.fragments.get(base, "")

    def fragment_of(self, key: str) -> str:
        """The fragment that drew the widget (its id as the browser sends it with a change), "" outside any."""
        return self.fragments.get(self.widget_id(key), "")

    def move(self, key: str, value: float | None) -> WidgetState:
        """The widget change a visitor makes: a slider set to value, or a button press (value None)."""
        st = WidgetState(id=self.widget_id(key))
        if value is None:
            st.trigger_value = True
        else:
            st.double_array_value.data.append(value)
        return st


async def run_session(url, scenario, moves, think, rng, lat, errors, isolation, scrub=False, whole=False):
    label, key, kind, values, echo = scenario
    page, _, query = label.partition("?")
    s = Session(url, page, query)
    try:
        await s.open()
        if scrub and kind == "slider":  # the visitor's pointer reaches the slider: frames from now on (not timed)
            await s.rerun(*s.want(key))
        for m in range(moves):
            if think:
                await asyncio.sleep(think * rng.uniform(0.5, 1.5))
            v = round(values[m % len(values)], 2) if kind == "slider" else None
            # as a browser sends it: a widget drawn inside a fragment reruns that fragment (--whole: the page)
            lat.append((label, await s.rerun(s.move(key, v), "" if whole else s.fragment_of(key))))
            q = dict(p.split("=", 1) for p in s.query.split("&") if "=" in p)
            if echo and kind == "slider" and float(q.get(echo, "nan")) != v:
                isolation.append((label, v, s.query))
        errors.append(s.exceptions)
    except Exception as e:  # noqa: BLE001 - counted, reported
        errors.append(f"{type(e).__name__}: {e}")
    finally:
        if getattr(s, "ws", None) is not None:
            await s.ws.close()


async def load(url, n, moves, scenarios=SCENARIOS, think: float = 0.0, cap: float = 120.0, seed: int = 0,
               scrub: bool = False, whole: bool = False):
    lat, errors, isolation = [], [], []
    rng = random.Random(seed)
    t0 = time.perf_counter()
    try:
        await asyncio.wait_for(asyncio.gather(*(
            run_session(url, scenarios[k % len(scenarios)], moves, think, random.Random(rng.random()), lat, errors,
                        isolation, scrub, whole) for k in range(n))), timeout=cap)
    except asyncio.TimeoutError:
        errors.append(f"cap of {cap} s reached; {len(lat)} of {n * moves} reruns done")
    wall = time.perf_counter() - t0
    bad = [e for e in errors if e]
    return lat, bad, isolation, wall


def rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def cpu_s(pids: list[int]) -> float:
    """CPU seconds (user + system) the processes have used so far: what a rerun costs, however busy the machine."""
    total = 0.0 if pids else float("nan")
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError):
            return float("nan")
    return total


def settle(pids: list[int], limit: float = 90.0) -> float:
    """Wait until the servers are quiet (under 5% of a core over a second: what the first visits started in the
    background, e.g. ui/sample/ahead.warm_up, is done), at most `limit` seconds; the seconds waited."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < limit:
        c0 = cpu_s(pids)
        time.sleep(1)
        if not cpu_s(pids) - c0 > 0.05:  # NaN (no pids): nothing to wait for
            break
    return time.perf_counter() - t0


def rss_text(pids: list[int]) -> str:
    """RSS in MB of each process, joined with '+' (one figure per replica)."""
    return "+".join(f"{rss_mb(p):.0f}" for p in pids) if pids else "na"


def quantiles_ms(lat: list[float]) -> tuple[float, float]:
    """p50 and p95 in milliseconds."""
    q = statistics.quantiles(lat, n=20) if len(lat) > 1 else [lat[0]] * 19
    return statistics.median(lat) * 1000, q[18] * 1000


PAGES = ["", "scalar", "vector", "gates", "recurrences", "states", "gradients", "hello", "sample", "class_room"]


async def soak(url: str, reruns: int, pids: list[int], minutes: float = 0.0,
               every: int = 25) -> list[tuple[str, float | str]]:
    """Every page visited, then keep moving widgets on the scalar, gradients and sampling pages, and every `every`
    reruns a new visitor opens the next page, moves once and leaves (what a departed session held should be
    released). Stops after `reruns` reruns or `minutes` minutes, whichever comes first (0: no limit).
    Prints and returns (moment, server RSS MB) before any visit, after every page, every 50 reruns (with the minutes
    elapsed), and after closing."""
    out: list[tuple[str, float | str]] = []

    def note(moment: str) -> None:
        out.append((moment, rss_text(pids)))
        print(f"{moment:>10}  {out[-1][1]}", flush=True)

    note("before")
    done = 0
    sessions = {}
    for page in PAGES:  # every page visited once, each in its own session (as separate visitors would)
        s = Session(url, page)
        await s.open()
        sessions[page] = s
        done += 1
    note("every page")
    cycle = [("scalar", "scalar.w_h", [0.55, 0.6, 0.65]), ("gradients", "grad.scale", [0.95, 1.0, 1.5]),
             ("sample", "sample.again", None)]
    t0, visitors = time.perf_counter(), 0
    while done < reruns and not (minutes and time.perf_counter() - t0 > minutes * 60):
        page, key, values = cycle[done % len(cycle)]
        s = sessions[page]
        await s.rerun(s.move(key, values[done % len(values)] if values else None), s.fragment_of(key))
        done += 1
        if every and done % every == 0:  # a visitor who comes, moves once and goes
            page, key, values = cycle[visitors % len(cycle)]
            v = Session(url, PAGES[visitors % len(PAGES)] if visitors % 2 else page)
            await v.open()
            if v.page == page:
                await v.rerun(v.move(key, values[0] if values else None), v.fragment_of(key))
            await v.ws.close()
            visitors += 1
        if done % 50 == 0:
            note(f"{done} {(time.perf_counter() - t0) / 60:.1f}min")
    for s in sessions.values():
        await s.ws.close()
    await asyncio.sleep(2)
    note(f"closed ({visitors} visitors came and went)")
    return out


async def class_soak(url: str, n: int, pids: list[int], minutes: float, think: float, seed: int = 0,
                     stay: tuple[int, int] = (20, 60)) -> dict:
    """A class for a lesson's length: `n` visitors at once over every page (seat k starts on PAGES[k]), each moving
    its page's widget every `think` seconds (jittered 0.5-1.5x; a page without one reruns), and after 20-60 moves
    leaving for a new visitor on the next page: what a departed session held must be released. Prints the server's
    RSS each minute, then its minimum, maximum and spread over the last 20 minutes (or the last 40% of a shorter
    run); returns those figures."""
    rng = random.Random(seed)
    moves = {"scalar": ("scalar.w_h", [0.55 + 0.05 * k for k in range(12)]),
             "gradients": ("grad.scale", [0.95 + 0.05 * k for k in range(12)]), "sample": ("sample.again", None)}
    t0 = time.perf_counter()
    end = t0 + minutes * 60
    stats, rss = {"reruns": 0, "visitors": 0, "errors": []}, []

    async def seat(k: int) -> None:
        await asyncio.sleep(30 * k / n)  # a class arriving over half a minute
        page_no = k
        while time.perf_counter() < end:
            page, s = PAGES[page_no % len(PAGES)], None
            try:
                s = Session(url, page)
                await s.open()
                stats["visitors"] += 1
                for _ in range(rng.randint(*stay)):
                    await asyncio.sleep(think * rng.uniform(0.5, 1.5))
                    if time.perf_counter() >= end:
                        break
                    if page in moves:
                        key, values = moves[page]
                        await s.rerun(s.move(key, rng.choice(values) if values else None), s.fragment_of(key))
                    else:
                        await s.rerun(None)
                    stats["reruns"] += 1
                if s.exceptions:
                    stats["errors"].append(f"{page}: {s.exceptions} exception elements")
            except Exception as e:  # noqa: BLE001 - counted, reported
                stats["errors"].append(f"{page}: {type(e).__name__}: {e}")
            finally:
                if s is not None and getattr(s, "ws", None) is not None:
                    await s.ws.close()
            page_no += 1

    async def watch() -> None:
        while time.perf_counter() < end:
            await asyncio.sleep(min(60.0, max(end - time.perf_counter(), 0.1)))
            mb = sum(rss_mb(p) for p in pids)
            rss.append(((time.perf_counter() - t0) / 60, mb))
            print(f"{rss[-1][0]:5.1f} min  rss_mb={mb:.0f}  reruns={stats['reruns']}  visitors={stats['visitors']}  "
                  f"errors={len(stats['errors'])}", flush=True)

    await asyncio.gather(watch(), *(seat(k) for k in range(n)))
    await asyncio.sleep(5)
    window = min(20.0, 0.4 * minutes)
    last = [mb for t, mb in rss if t >= minutes - window] or [sum(rss_mb(p) for p in pids)]
    out = dict(rss_min_mb=min(last), rss_max_mb=max(last), spread_pct=100 * (max(last) - min(last)) / min(last),
               window_min=window, reruns=stats["reruns"], visitors=stats["visitors"], errors=len(stats["errors"]),
               after_mb=sum(rss_mb(p) for p in pids))
    for e in stats["errors"][:3]:
        print("   error:", e)
    print(f"soak sessions={n} minutes={minutes:g} think={think:g} " + " ".join(
        f"{k}={v:.1f}" if isinstance(v, float) else f"{k}={v}" for k, v in out.items()), flush=True)
    return out


def report(n: int, lat: list[tuple[str, float]], bad: list, iso: list, wall: float, pids: list[int],
           cpu: float) -> str:
    """Print the per-page detail of one N; return its summary line."""
    if not lat:
        print(f"N={n} no rerun completed; errors: {bad[:3]}", flush=True)
        return f"N={n} p50_ms=nan p95_ms=nan errors={len(bad)} isolation={len(iso)} rps=0"
    groups = {p: [t for q, t in lat if q == p] for p in dict.fromkeys(q for q, _ in lat)}
    if len(STEPPING & groups.keys()) > 1:
        groups["stepping"] = [t for q, t in lat if q in STEPPING]
    for name, ts in groups.items():
        p50, p95 = quantiles_ms(ts)
        print(f"  N={n} page={name} reruns={len(ts)} p50_ms={p50:.1f} p95_ms={p95:.1f}", flush=True)
    for b in bad[:3]:
        print("   error:", b)
    for i in iso[:3]:
        print("   isolation:", i)
    p50, p95 = quantiles_ms([t for _, t in lat])
    return (f"N={n} p50_ms={p50:.1f} p95_ms={p95:.1f} errors={len(bad)} isolation={len(iso)} "
            f"rps={len(lat) / wall:.1f} reruns={len(lat)} wall_s={wall:.1f} rss_mb={rss_text(pids)} "
            f"server_cpu_ms_per_rerun={cpu / len(lat) * 1000:.0f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, nargs="+", default=[1, 10, 30])
    ap.add_argument("--moves", type=int, default=20)
    ap.add_argument("--think", type=float, default=0.0, help="seconds a visitor pauses before each move (jittered)")
    ap.add_argument("--pages", nargs="+", choices=[s[0] for s in SCENARIOS], default=[s[0] for s in SCENARIOS],
                    help="pages the sessions use, in turn")
    ap.add_argument("--url", help="drive this running server or balancer (loopback) instead of starting one")
    ap.add_argument("--pid", type=int, action="append", default=[], help="with --url: a process whose RSS to report")
    ap.add_argument("--port", type=int, default=0, help="port for the server this starts (default: a free one)")
    ap.add_argument("--cap", type=float, default=120.0, help="seconds per N before reporting what finished")
    ap.add_argument("--warmup", type=int, default=24, help="sessions of one move each before measuring")
    ap.add_argument("--scrub", action="store_true",
                    help="each slider visitor's pointer reaches its slider first, so the server computes drag frames "
                         "for every setting it makes (ui/live), as a class dragging would; CPU read after they end")
    ap.add_argument("--soak", type=int, default=0, help="instead: every page visited, then this many reruns; RSS")
    ap.add_argument("--soak-sessions", type=int, default=0, metavar="N",
                    help="instead: a class of N visitors at once over every page for --minutes (default 50), "
                         "moving every --think s (default 2) and coming and going; RSS each minute and its spread "
                         "over the last 20 minutes")
    ap.add_argument("--minutes", type=float, default=0.0, help="with --soak or --soak-sessions: how many minutes")
    ap.add_argument("--uploads", type=int, default=0, metavar="ROUNDS",
                    help="with --soak: then this many visitors each upload the model files of benchmarks/uploads.py "
                         "(the shipped model, crafted ones to refuse) in headless Chromium; RSS before, during, after")
    ap.add_argument("--whole", action="store_true",
                    help="send each move as a rerun of the whole page, even for a widget inside a fragment (a "
                         "browser reruns only that fragment)")
    ap.add_argument("--per-page", action="store_true",
                    help="the sessions of each N on one page at a time, so that the server's CPU per rerun is each "
                         "page's own")
    ap.add_argument("--floor", nargs="*", default=None, metavar="VARIANT",
                    help="then the same load on benchmarks/floor_app.py (a server of its own; default variant "
                         "`lesson`: a slider, nine controls, changing words and one chart drawn in place): Streamlit's "
                         "own cost per rerun beside the app's")
    args = ap.parse_args()
    scenarios = [s for s in SCENARIOS if s[0] in args.pages]
    srv = None
    if args.url:
        url, pids = check_loopback(args.url), args.pid
    else:
        srv, url = start_server("app.py", args.port)
        pids = [srv.pid]
    try:
        wait_healthy(url)
        if args.soak_sessions:
            asyncio.run(class_soak(url, args.soak_sessions, pids, args.minutes or 50.0, args.think or 2.0))
            return
        if args.soak:
            print(f"{'moment':>10}  server RSS MB")
            asyncio.run(soak(url, args.soak, pids, args.minutes))  # prints each moment as it goes
            if args.uploads:
                from benchmarks.uploads import upload_phase

                upload_phase(url, args.uploads, lambda: sum(rss_mb(p) for p in pids), lambda: cpu_s(pids),
                             lambda line: print(line, flush=True))
            return
        lines = measure(url, pids, scenarios, args)
    finally:
        if srv is not None:
            srv.terminate()
            srv.wait(10)
    for variant in [] if args.floor is None else args.floor or ["lesson"]:
        srv, url = start_server("benchmarks/floor_app.py", args.port + 1 if args.port else 0)  # the next port
        try:
            wait_healthy(url)
            lines += measure(url, [srv.pid], [floor_scenario(variant)], args)
        finally:
            srv.terminate()
            srv.wait(10)
    print("\n".join(lines))


def floor_scenario(variant: str) -> tuple:
    """The floor app's page as a scenario: its Phase slider moved as the lessons' sliders are (no URL echo)."""
    return (f"?variant={variant}", "floor.phase", "slider", [1.0 + 0.1 * k for k in range(12)], None)


def start_server(script: str, port: int) -> tuple[subprocess.Popen, str]:
    """`streamlit run script` on loopback (a free port unless one is given), with the allocator settings every way
    of serving it uses (rnnviz.serve's replicas, deploy/): the process and its URL."""
    port = port or free_port()
    from rnnviz.serve import served_env

    srv = subprocess.Popen([sys.executable, "-m", "streamlit", "run", script, "--server.headless", "true",
                            "--server.port", str(port), "--server.address", "127.0.0.1"], cwd=ROOT,
                           env=served_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return srv, f"http://127.0.0.1:{port}"


def wait_healthy(url: str) -> None:
    for _ in range(100):
        try:
            NO_PROXY.open(f"{url}/_stcore/health", timeout=1)
            return
        except OSError:
            time.sleep(0.3)


def measure(url: str, pids: list[int], scenarios: list, args) -> list[str]:
    """Warm up, then each N (each page on its own with --per-page): the summary lines, each ending in what it
    measured (`page=scalar`, `page=all`, `page=floor:lesson`)."""
    # warm-up: imports and model load, on every replica a balancer might pick
    _, bad, _, _ = asyncio.run(load(url, args.warmup, 1, scenarios, seed=99))
    print(f"warm-up: {args.warmup} sessions, {len(bad)} errors {bad[:1]}; RSS MB {rss_text(pids)}; "
          f"quiet after {settle(pids):.0f} s", flush=True)
    lines = []
    for n in args.sessions:
        for group in [[sc] for sc in scenarios] if args.per_page else [scenarios]:
            cpu0 = cpu_s(pids)
            lat, bad, iso, wall = asyncio.run(load(url, n, args.moves, group, args.think, args.cap, seed=n,
                                                   scrub=args.scrub, whole=args.whole))
            if args.scrub:  # the last settings' frames are computed after a pause (ui/live/scrub.py DELAY): count them
                time.sleep(5)
            name = "all" if len(group) > 1 else group[0][0].replace("?variant=", "floor:")
            lines.append(report(n, lat, bad, iso, wall, pids, cpu_s(pids) - cpu0) + f" page={name}")
            print(lines[-1], flush=True)
    return lines


if __name__ == "__main__":
    main()
