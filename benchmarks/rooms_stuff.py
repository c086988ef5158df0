"""`benchmarks/rooms.py --stuff`: one address stuffs a room through the thin phone page (issue 46). `--stuff`
new-voter joins (1,000) spread over `--stuff-s` seconds (30) from loopback source 127.0.0.2, on 8 keep-alive
connections; half way, a real student joins from 127.0.0.3, waiting as the server says. Then the lecturer's page (a
Streamlit session on the Class page) shows how many phones are in, the lecturer presses Lock, the stuffer tries 50
more joins and the real student votes. Final line: `joins=1000 admitted=... paced=... student_joined=yes ...
locked_refused=50/50 student_voted=yes` (refused: 409 locked or
429 paced first). Bounded: the joins end after --stuff-s seconds and 50 more; loopback only."""
from __future__ import annotations

import asyncio
import collections
import json
import re
import time
import urllib.parse

STUFFER, STUDENT = "127.0.0.2", "127.0.0.3"
AFTER_LOCK = 50


async def stuff(url: str, joins: int, seconds: float, conns: int = 8) -> dict:
    from class_session import open_room  # the Streamlit lecturer session
    from rooms_live import Conn, answers

    lec, phone_url, code = await open_room(url, answers)
    u = urllib.parse.urlsplit(phone_url)
    await lec.rerun([lec.press("class.ask")])  # question 1 open: the projector counts "answers 0 of N"
    api, out = f"/_rnnviz/room/{code}", {"status": collections.Counter(), "after_lock": collections.Counter()}
    t0 = time.perf_counter()

    async def stuffer(k: int) -> None:
        c = Conn(u.hostname, u.port or 80, STUFFER)
        try:
            for i in range(k, joins, conns):
                await asyncio.sleep(max(0.0, t0 + i * seconds / joins - time.perf_counter()))
                status, _ = await c.send("POST", api + "/join", b"{}")
                out["status"][status] += 1
        finally:
            c.close()

    async def student() -> Conn:
        await asyncio.sleep(seconds / 2)
        c, t = Conn(u.hostname, u.port or 80, STUDENT), time.perf_counter()
        for _ in range(20):
            status, got = await c.send("POST", api + "/join", b"{}")
            if status != 429:
                break
            await asyncio.sleep(float(got.get("retry", 1)))
        out["student_join"], out["student_ms"], out["me"] = status, 1000 * (time.perf_counter() - t), got.get("me")
        return c

    *_, me = await asyncio.gather(*(stuffer(k) for k in range(conns)), student())
    out["stuff_s"] = time.perf_counter() - t0
    await lec.rerun([])
    seen = re.search(r"answers (\d+) of (\d+)", lec.text())
    out["lecturer_saw"] = int(seen.group(2)) if seen else -1
    await lec.rerun([lec.press("class.lock")])
    c = Conn(u.hostname, u.port or 80, STUFFER)
    for _ in range(AFTER_LOCK):
        status, _ = await c.send("POST", api + "/join", b"{}")
        out["after_lock"][status] += 1
    c.close()
    vote = json.dumps({"me": out["me"], "number": 1, "round": 1, "answer": 0.0}).encode()
    out["student_vote"], _ = await me.send("POST", api + "/vote", vote) if out["me"] else (0, {})
    me.close()
    await lec.rerun([])
    seen = re.search(r"answers (\d+) of (\d+)", lec.text())
    out["answered"] = int(seen.group(1)) if seen else -1
    await lec.ws.close()
    return out


def report(o: dict, joins: int, seconds: float) -> str:
    locked = AFTER_LOCK - o["after_lock"].get(200, 0)  # refused as locked (409), or paced first (429)
    return (f"joins={joins} in_s={o['stuff_s']:.1f} admitted={o['status'].get(200, 0)} paced={o['status'].get(429, 0)} "
            f"other={sum(v for k, v in o['status'].items() if k not in (200, 429))} "
            f"student_joined={'yes' if o['student_join'] == 200 else o['student_join']} "
            f"student_join_ms={o['student_ms']:.0f} lecturer_saw={o['lecturer_saw']} "
            f"locked_refused={locked}/{AFTER_LOCK} after_lock={dict(o['after_lock'])} "
            f"student_voted={'yes' if o['student_vote'] == 200 else o['student_vote']} answered={o['answered']}")
