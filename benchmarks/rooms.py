"""A whole class in one room, over Streamlit's own websocket protocol (the sessions of benchmarks/load.py).

    python -m rnnviz.serve --replicas 2 --port 9220 &
    python benchmarks/rooms.py --url http://127.0.0.1:9220 --students 300

A lecturer session opens a room on the Class page and asks its default question (h_t on the one-unit page: a
number). Then `--students` sessions join with ?room=CODE, each landing on whichever replica nginx gives it, and
each votes once at a random moment within `--window` seconds (the Vote button of its own page: a fragment rerun,
as a phone sends it). A vote's latency runs from sending it to the server's script-finished message; a vote is
lost unless its page then says the answer is in AND the lecturer's reveal counts it (every vote counted once).
`--poll 1.5` adds each phone's own refresh while it waits (what a real class costs the servers).
Finally the lecturer presses Reveal (reveal_ms: that rerun, which reads every answer and draws the chart).
nginx holds at most 1,500 sessions per client address (deploy/nginx.conf.template: a hall behind one NAT);
`--addresses 3` spreads the students' websockets over loopback source addresses
127.0.0.2-4, as phones with addresses of their own.
Final line: `students=300 lost=0 p95_vote_ms=... reveal_ms=...`. Loopback only; bounded by --cap.
`--live`: phones on the thin page instead, listening to pushes the whole time (benchmarks/rooms_live.py); its final
line: `students=1000 lost=0 p95_question_ms=... p95_vote_ms=... p95_reveal_ms=... server_cpu_s=...`.
`--stuff 1000`: one address sends 1,000 joins in --stuff-s seconds; does a real student still get in, does the lecturer
see it and does Lock stop it (benchmarks/rooms_stuff.py)?
"""
from __future__ import annotations

import argparse
import asyncio
import random
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from class_session import Visitor, lecturer  # noqa: E402 - benchmarks/ is not a package
from load import NO_PROXY, check_loopback, cpu_s  # noqa: E402
from streamlit.proto.WidgetStates_pb2 import WidgetState  # noqa: E402


async def student(url: str, code: str, window: float, poll: float, rng: random.Random, joined: asyncio.Event,
                  voted: asyncio.Event, out: dict, source: str | None = None):
    s = Visitor(url, f"room={code}", source)  # the Class page's own phone view (?room=CODE), not the thin page
    try:
        await s.open()
        out["joined"] += 1
        if out["joined"] == out["n"]:
            joined.set()
        await joined.wait()  # every student in the room before the voting starts, as in class
        for _ in range(5):  # a page that showed a message instead (a store call timed out) refreshes, as a phone does
            if any(w.endswith("class.vote") for w in s.widgets) or not s.fragment:
                break
            out["refreshed"].append(s.text()[:120])
            await asyncio.gather(s.rerun([], fragment=s.fragment), asyncio.sleep(poll or 1.5))
        vote = s.press("class.vote")
        fragment = s.fragments.get(vote.id, "")
        wait = rng.uniform(0, window)
        if poll:  # the phone's own refresh (run_every) until its student votes, at a random phase
            await asyncio.sleep(rng.uniform(0, poll))
            while wait > poll:
                wait -= poll
                await asyncio.gather(s.rerun([], fragment=fragment), asyncio.sleep(poll))
                out["polls"] += 1
        await asyncio.sleep(wait)
        num = WidgetState(id=s.widget_id("class.num.1.1"), double_value=round(rng.uniform(-1, 1), 3))
        out["lat"].append(await s.rerun([num, vote], fragment=fragment))
        out["in"] += "Your answer is in" in s.text()
        out["errors"] += s.exceptions
    except Exception as e:  # noqa: BLE001 - counted as lost, reported
        out["failed"].append(f"{type(e).__name__}: {e}")
        joined.set() if out["joined"] + len(out["failed"]) >= out["n"] else None
    finally:
        if len(out["lat"]) + len(out["failed"]) >= out["n"]:
            voted.set()
        await asyncio.wait_for(voted.wait(), 600)  # phones stay in the room until the reveal
        if getattr(s, "ws", None) is not None:
            await s.ws.close()


async def run(url: str, n: int, window: float, poll: float, cap: float, seed: int, pids: list[int],
              addresses: int = 1) -> dict:
    lec, code = await lecturer(url)
    out = {"n": n, "joined": 0, "in": 0, "errors": 0, "lat": [], "failed": [], "polls": 0, "refreshed": []}
    rng, joined, voted = random.Random(seed), asyncio.Event(), asyncio.Event()
    t0, cpu0 = time.perf_counter(), cpu_s(pids)

    async def mark():  # the servers' CPU time for the joins, then for the votes
        await joined.wait()
        out["join_s"], out["cpu_join"] = time.perf_counter() - t0, cpu_s(pids) - cpu0
        await voted.wait()
        out["vote_s"], out["cpu_vote"] = time.perf_counter() - t0 - out["join_s"], cpu_s(pids) - cpu0 - out["cpu_join"]
    marker = asyncio.create_task(mark())
    try:
        sources = [None] if addresses <= 1 else [f"127.0.0.{2 + k}" for k in range(addresses)]
        students = [student(url, code, window, poll, random.Random(rng.random()), joined, voted, out,
                            sources[i % len(sources)]) for i in range(n)]
        await asyncio.wait_for(asyncio.gather(*students), timeout=cap)
    except asyncio.TimeoutError:
        out["failed"].append(f"cap of {cap} s reached")
    await asyncio.sleep(0)
    marker.cancel()
    out["wall_s"] = time.perf_counter() - t0
    out["reveal_s"] = await lec.rerun([lec.press("class.reveal_btn")])
    counted = re.search(r"Round 1: \*\*(\d+) of (\d+)\*\*", lec.text())
    out["counted"] = int(counted.group(2)) if counted else 0
    await lec.ws.close()
    return out


def pct(values: list[float], q: float) -> float:
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))] if v else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", required=True, help="a running server or nginx in front of replicas (loopback)")
    ap.add_argument("--students", type=int, default=300)
    ap.add_argument("--window", type=float, default=10.0, help="seconds over which the votes arrive")
    ap.add_argument("--poll", type=float, default=0.0, help="phones refresh every this many seconds while waiting "
                    "to vote, as the page's fragment does (1.5); 0: off")
    ap.add_argument("--cap", type=float, default=180.0, help="seconds before reporting what finished")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--pid", type=int, action="append", default=[], help="a replica whose CPU time to report")
    ap.add_argument("--addresses", type=int, default=1, choices=range(1, 200), metavar="K",
                    help="spread the students over K loopback source addresses 127.0.0.2.. (nginx: 600 per address)")
    ap.add_argument("--live", action="store_true", help="phones on the thin page, pushed to (three rounds)")
    ap.add_argument("--stuff", type=int, default=0, metavar="N", help="N joins from one address (the thin page)")
    ap.add_argument("--stuff-s", type=float, default=30.0, help="seconds over which the --stuff joins are sent")
    args = ap.parse_args()
    url = check_loopback(args.url)
    NO_PROXY.open(url + "/_stcore/health", timeout=10).read()
    if args.live:
        return live(url, args)
    if args.stuff:
        from rooms_stuff import report, stuff

        o = asyncio.run(asyncio.wait_for(stuff(url, min(args.stuff, 5000), args.stuff_s), args.cap))
        return print(report(o, min(args.stuff, 5000), args.stuff_s))
    o = asyncio.run(run(url, args.students, args.window, args.poll, args.cap, args.seed, args.pid, args.addresses))
    lost = args.students - min(o["in"], o["counted"])
    print(f"joined={o['joined']} voted={len(o['lat'])} confirmed={o['in']} counted_by_lecturer={o['counted']} "
          f"exceptions={o['errors']} failures={len(o['failed'])} wall_s={o['wall_s']:.1f} "
          f"join_s={o.get('join_s', float('nan')):.1f} vote_s={o.get('vote_s', float('nan')):.1f} "
          f"p50_vote_ms={1000 * pct(o['lat'], 0.5):.0f} "
          f"max_vote_ms={1000 * max(o['lat'], default=0):.0f}")
    if args.pid:  # what a join and a vote cost the servers, a figure that holds on a busy machine
        reruns = max(1, len(o["lat"]) + o["polls"])  # the voting phase's fragment reruns: votes and refreshes
        print(f"cpu_ms_per_join={1000 * o.get('cpu_join', float('nan')) / args.students:.1f} "
              f"cpu_ms_per_vote_or_poll={1000 * o.get('cpu_vote', float('nan')) / reruns:.1f} polls={o['polls']}")
    for f in sorted(set(o["failed"]))[:5]:
        print("  failure:", f)
    if o["refreshed"]:
        print(f"refreshes_before_voting={len(o['refreshed'])}; the page said, e.g.: {o['refreshed'][0]!r}")
    print(f"students={args.students} lost={lost} p95_vote_ms={1000 * pct(o['lat'], 0.95):.0f} "
          f"reveal_ms={1000 * o['reveal_s']:.0f}")


def live(url: str, args) -> None:
    from rooms_live import run_live

    o = asyncio.run(asyncio.wait_for(run_live(url, None, args.students, min(args.window, 5.0), args.seed,
                                              args.addresses, lambda: cpu_s(args.pid)), args.cap))
    lost = sum(args.students - min(o["accepted"].get(k, 0), o["confirmed"].get(k, 0), o["counted"].get(k, 0))
               for k in o["rounds"])
    print(f"join_s={o['join_s']:.1f} listen_s={o['listen_s']:.1f} "
          f"join_waits={o['join_waits']} wall_s={o['wall_s']:.1f} "
          f"accepted={[o['accepted'].get(k, 0) for k in o['rounds']]} "
          f"confirmed={[o['confirmed'].get(k, 0) for k in o['rounds']]} "
          f"counted_by_lecturer={[o['counted'].get(k, 0) for k in o['rounds']]} refused={len(o['refused'])} "
          f"p50_question_ms={pct(o['question_ms'], 0.5):.0f} p50_vote_ms={pct(o['vote_ms'], 0.5):.0f} "
          f"p50_reveal_ms={pct(o['reveal_ms'], 0.5):.0f}")
    for f in sorted(set(o["refused"]))[:5]:
        print("  refused:", f)
    print("p95 per push (question, round, phase):", {f"{k[0]}.{k[1]} {k[2]}": round(pct(v, 0.95))
                                                     for k, v in o.get("by_round", {}).items()})
    print(f"students={args.students} lost={lost} p95_question_ms={pct(o['question_ms'], 0.95):.0f} "
          f"p95_vote_ms={pct(o['vote_ms'], 0.95):.0f} p95_reveal_ms={pct(o['reveal_ms'], 0.95):.0f} "
          f"server_cpu_s={o['server_cpu_s']:.1f}")


if __name__ == "__main__":
    main()
