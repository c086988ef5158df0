"""Pushes a room's changes to the phones listening in this process: per room, the latest snapshot (what a phone shows)
and an event set when it changes. A change arrives from the store (in-process: `RoomStore.on_change`; Redis: one
pub/sub channel for every room), is read from the store once per process, and wakes every phone of that room; while
nothing changes, a listening phone costs nothing but a heartbeat comment every HEARTBEAT_S."""
from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field

from rnnviz.rooms.base import RoomStore
from rnnviz.rooms.questions import is_right
from rnnviz.rooms.room import RoomError
from rnnviz.text import fmt

HEARTBEAT_S = 25.0  # an idle connection's comment, so a phone's network or a proxy does not drop it
RECONNECT_S = 0.5  # between tries at the Redis channel after an outage


def snapshot(view) -> dict:
    """What every phone of a room is shown (no counts, and the truth only once revealed)."""
    q = view.question
    out = {"code": view.code, "number": view.number, "round": view.round, "phase": view.phase, "locked": view.locked}
    if q is not None:
        out["question"] = {"prompt": q.prompt, "kind": q.kind, "options": list(q.options), "lo": q.lo, "hi": q.hi}
        if view.phase in ("revealed", "closed"):
            out["truth"] = q.options[int(q.truth)] if q.kind == "choice" else fmt(q.truth)
    return out


@dataclass
class Channel:
    """One room's state in this process: listeners, the latest snapshot and its answers by hashed voter.

    Attributes:
        snap: what a phone shows now (`snapshot`); None before the first read.
        ballots: by hashed voter, (answer, right); right is None until the reveal.
        version: how many changes this process has seen of the room (a phone's stream sends each once).
        listeners: phones in this process listening to the room.
        changed: set when a new snapshot is in; the streams wait on it.
        busy: a read of the room is under way (one at a time).
        dirty: a change arrived during that read: read again after it.
    """

    snap: dict | None = None
    ballots: dict = field(default_factory=dict)
    version: int = 0
    listeners: int = 0
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    busy: bool = False
    dirty: bool = False


class Hub:
    """The rooms phones in this process listen to. `start()` in the server's event loop, then `watch(code)`."""

    def __init__(self, store: RoomStore):
        self.store, self.rooms, self.loop, self._task = store, {}, None, None
        self.reads = 0  # store reads for pushes: one per change per process, whatever the number of phones

    async def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        if getattr(self.store, "channel", None):
            self._task = asyncio.create_task(self._listen_redis())
        else:
            self.store.on_change(lambda code: self.loop.call_soon_threadsafe(self.changed, code))

    async def stop(self) -> None:
        if self._task:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def changed(self, code: str) -> None:
        """A room changed: read it once (coalesced while a read is under way) and wake its phones."""
        ch = self.rooms.get(code)
        if ch is None:
            return
        if ch.busy:
            ch.dirty = True
            return
        ch.busy = True
        asyncio.create_task(self._refresh(code, ch))

    async def _refresh(self, code: str, ch: Channel) -> None:
        try:
            while True:
                ch.dirty = False
                try:
                    snap, ballots = await asyncio.to_thread(self._read, code)
                except RoomError:  # an outage: phones keep what they show; the channel's reconnect reads again
                    return
                self.reads += 1
                if snap != ch.snap or ballots != ch.ballots:
                    ch.snap, ch.ballots, ch.version = snap, ballots, ch.version + 1
                    old, ch.changed = ch.changed, asyncio.Event()
                    old.set()
                if not ch.dirty:
                    return
        finally:
            ch.busy = False

    def _read(self, code: str) -> tuple[dict, dict]:
        """The room's snapshot and, by hashed voter, (answer, right): right is None until the reveal."""
        view, q = self.store.view(code, counts=False), None
        ballots = self.store.ballots(code, view.number, view.round) if view.number else {}
        snap = snapshot(view)
        q = view.question if "truth" in snap else None
        return snap, {v: (a, None if q is None else is_right(q.kind, q.truth, q.tol, a)) for v, a in ballots.items()}

    async def watch(self, code: str):
        """Yield (snapshot, ballots) now and after each change; None after HEARTBEAT_S of quiet."""
        ch = self.rooms.setdefault(code, Channel())
        ch.listeners += 1
        try:
            if ch.snap is None:
                ch.snap, ch.ballots = await asyncio.to_thread(self._read, code)
            seen = -1
            while True:
                if ch.version != seen:
                    seen = ch.version
                    yield ch.snap, ch.ballots
                    continue
                try:
                    await asyncio.wait_for(ch.changed.wait(), HEARTBEAT_S)
                except asyncio.TimeoutError:
                    yield None
        finally:
            ch.listeners -= 1
            if ch.listeners <= 0 and self.rooms.get(code) is ch:
                del self.rooms[code]

    async def _listen_redis(self) -> None:
        """Every room's changes over one Redis channel; after an outage, every watched room is read again (a change
        made meanwhile was published to nobody)."""
        import redis.asyncio as aioredis

        while True:
            client = aioredis.Redis.from_url(self.store.url, decode_responses=True, socket_connect_timeout=2)
            try:
                async with client.pubsub() as ps:
                    await ps.subscribe(self.store.channel)
                    for code in list(self.rooms):
                        self.changed(code)
                    async for msg in ps.listen():
                        if msg.get("type") == "message":
                            self.changed(msg["data"])
            except (OSError, aioredis.RedisError):
                await asyncio.sleep(RECONNECT_S)
            finally:
                with contextlib.suppress(Exception):
                    await client.aclose()
