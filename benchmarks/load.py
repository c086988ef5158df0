"""Concurrent sessions against `streamlit run app.py` on loopback, over Streamlit's own websocket protocol.

    python benchmarks/load.py --sessions 1 10 30 --moves 20

Each session opens a page, then moves one of its widgets `moves` times (a slider on the one-unit and gradients
pages, "Sample again" on the sampling page), waiting for each rerun to finish. Reported per N: rerun latency p50/p95
(from sending the widget change to the server's script-finished message), reruns per second, errors (exception
elements, dropped connections), and isolation failures (a session whose URL state shows another session's value).
Bounded: N sessions x moves reruns, a 120 s cap per N, loopback only.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.asyncio.client import connect

ROOT = Path(__file__).resolve().parents[1]
# page, widget key, kind, values to cycle through, query parameter that echoes the value
SCENARIOS = [("scalar", "scalar.w_h", "slider", [0.55 + 0.05 * k for k in range(12)], "wh"),
             ("gradients", "grad.scale", "slider", [0.95 + 0.05 * k for k in range(12)], "w"),
             ("sample", "sample.again", "button", None, "seed")]


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


class Session:
    def __init__(self, port: int, page: str):
        self.port, self.page = port, page
        self.widgets: dict[str, str] = {}  # user key -> widget id
        self.query = ""
        self.exceptions = 0

    async def open(self):
        self.ws = await connect(f"ws://127.0.0.1:{self.port}/_stcore/stream", subprotocols=["streamlit"],
                                max_size=None)
        await self.rerun(None)

    async def rerun(self, state) -> float:
        msg = BackMsg()
        msg.rerun_script.query_string = self.query
        msg.rerun_script.page_name = self.page
        if state is not None:
            msg.rerun_script.widget_states.widgets.append(state)
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
            elif kind == "page_info_changed":
                self.query = fm.page_info_changed.query_string
            elif kind == "script_finished" and fm.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                return time.perf_counter() - t0

    def widget_id(self, key: str) -> str:
        for k, wid in self.widgets.items():
            if wid.endswith(key):
                return wid
        raise KeyError(f"no widget {key} on {self.page}; saw {list(self.widgets)[:8]}")


async def run_session(port, scenario, moves, lat, errors, isolation):
    page, key, kind, values, echo = scenario
    s = Session(port, page)
    try:
        await s.open()
        for m in range(moves):
            from streamlit.proto.WidgetStates_pb2 import WidgetState
            st = WidgetState(id=s.widget_id(key))
            if kind == "slider":
                v = round(values[m % len(values)], 2)
                st.double_array_value.data.append(v)
            else:
                st.trigger_value = True
            lat.append(await s.rerun(st))
            q = dict(p.split("=", 1) for p in s.query.split("&") if "=" in p)
            if kind == "slider" and float(q.get(echo, "nan")) != v:
                isolation.append((page, v, s.query))
        errors.append(s.exceptions)
    except Exception as e:  # noqa: BLE001 - counted, reported
        errors.append(f"{type(e).__name__}: {e}")
    finally:
        if getattr(s, "ws", None) is not None:
            await s.ws.close()


async def load(port, n, moves, cap: float = 120.0):
    lat, errors, isolation = [], [], []
    t0 = time.perf_counter()
    try:
        await asyncio.wait_for(asyncio.gather(*(run_session(port, SCENARIOS[k % len(SCENARIOS)], moves, lat, errors,
                                                            isolation) for k in range(n))), timeout=cap)
    except asyncio.TimeoutError:
        errors.append(f"cap of {cap} s reached; {len(lat)} of {n * moves} reruns done")
    wall = time.perf_counter() - t0
    bad = [e for e in errors if e]
    return lat, bad, isolation, wall


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


PAGES = ["", "scalar", "vector", "gates", "states", "gradients", "hello", "sample"]


async def soak(port: int, reruns: int, pid: int) -> list[tuple[int, float]]:
    """One session: visit every page, then keep moving widgets on the scalar, gradients and sampling pages.
    Returns (reruns so far, server RSS MB) every 50 reruns."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    out, done = [], 0
    sessions = {}
    for page in PAGES:  # every page visited once, each in its own session (as separate visitors would)
        s = Session(port, page)
        await s.open()
        sessions[page] = s
        done += 1
    out.append((done, rss_mb(pid)))
    cycle = [("scalar", "scalar.w_h", [0.55, 0.6, 0.65]), ("gradients", "grad.scale", [0.95, 1.0, 1.5]),
             ("sample", "sample.again", None)]
    while done < reruns:
        page, key, values = cycle[done % len(cycle)]
        s = sessions[page]
        st = WidgetState(id=s.widget_id(key))
        if values:
            st.double_array_value.data.append(values[done % len(values)])
        else:
            st.trigger_value = True
        await s.rerun(st)
        done += 1
        if done % 50 == 0:
            out.append((done, rss_mb(pid)))
    for s in sessions.values():
        await s.ws.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, nargs="+", default=[1, 10, 30])
    ap.add_argument("--moves", type=int, default=20)
    ap.add_argument("--soak", type=int, default=0, help="instead: every page visited, then this many reruns; RSS")
    args = ap.parse_args()
    port = free_port()
    env = dict(os.environ)
    srv = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                            "--server.port", str(port), "--server.address", "127.0.0.1"], cwd=ROOT, env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1)
                break
            except OSError:
                time.sleep(0.3)
        if args.soak:
            trail = asyncio.run(soak(port, args.soak, srv.pid))
            print("reruns  server RSS MB")
            for k, mb in trail:
                print(f"{k:>6}  {mb:>6.0f}")
            return
        asyncio.run(load(port, 1, 2))  # warm-up: imports, model load
        print(f"server RSS after warm-up: {rss_mb(srv.pid):.0f} MB")
        print(f"{'N':>4} {'reruns':>7} {'p50 ms':>8} {'p95 ms':>8} {'reruns/s':>9} {'errors':>7} {'isolation':>9} {'RSS MB':>7}")
        for n in args.sessions:
            lat, bad, iso, wall = asyncio.run(load(port, n, args.moves))
            if not lat:
                print(f"{n:>4} no rerun completed; errors: {bad[:3]}")
                continue
            q = statistics.quantiles(lat, n=20) if len(lat) > 1 else [lat[0]] * 19
            print(f"{n:>4} {len(lat):>7} {statistics.median(lat) * 1000:>8.1f} {q[18] * 1000:>8.1f} "
                  f"{len(lat) / wall:>9.1f} {len(bad):>7} {len(iso):>9} {rss_mb(srv.pid):>7.0f}", flush=True)
            for b in bad[:3]:
                print("   error:", b)
            for i in iso[:3]:
                print("   isolation:", i)
    finally:
        srv.terminate()
        srv.wait(10)


if __name__ == "__main__":
    main()
