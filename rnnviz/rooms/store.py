"""Where this server's class rooms live: in Redis (rnnviz.rooms.redis_store) when `RNNVIZ_REDIS_URL` is set, so that
every replica behind nginx sees one room, else in this process (`MemoryStore`, the default for one
`streamlit run app.py`). Both keep the rules of rnnviz.rooms.base."""
from __future__ import annotations

import os
import threading
import time

from rnnviz.rooms.base import RoomStore
from rnnviz.rooms.redis_store import RedisStore
from rnnviz.rooms.room import EVICT_IDLE_S, MAX_STORED_QUESTIONS, NoRoom


class MemoryStore(RoomStore):
    """Rooms in this process: the embedded default for a single `streamlit run app.py`."""

    def __init__(self, *args, max_questions: int = MAX_STORED_QUESTIONS, **kw):
        super().__init__(*args, **kw)
        self.max_questions = max_questions
        self._lock = threading.Lock()
        self._rooms: dict[str, dict] = {}
        self._hits: dict[str, tuple[int, float]] = {}  # key -> (count, end of its window)

    def _live(self, code: str) -> dict | None:
        now = time.time()
        for c in [c for c, r in self._rooms.items() if r["meta"]["expires"] <= now]:
            del self._rooms[c]
        return self._rooms.get(code)

    def _create(self, code, token_hash, secret, now):
        with self._lock:
            if self._live(code) is not None:
                return False
            self._rooms[code] = {"meta": {"token": token_hash, "secret": secret, "q": 0, "round": 1, "phase": "waiting",
                                          "expires": self._expires(now, now), "born": now, "last": now},
                                 "questions": [], "voters": set(), "answers": {}}
            return True

    def _hit(self, key, window_s):
        with self._lock:
            now = time.time()
            if len(self._hits) > 100_000:  # one per address: forget the windows that have ended
                self._hits = {k: v for k, v in self._hits.items() if v[1] > now}
            n, end = self._hits.get(key, (0, now + window_s))
            n, end = (n, end) if end > now else (0, now + window_s)
            self._hits[key] = (n + 1, end)
            return n + 1

    def _space(self, question, keep=""):
        with self._lock:
            self._live("")
            def full():
                if question:
                    return sum(len(r["questions"]) for r in self._rooms.values()) >= self.max_questions
                return len(self._rooms) >= self.max_rooms
            if not full():
                return True
            cutoff = time.time() - EVICT_IDLE_S
            idle = sorted((r["meta"]["phase"] != "closed", r["meta"]["last"], c) for c, r in self._rooms.items()
                          if c != keep and (r["meta"]["phase"] == "closed" or r["meta"]["last"] <= cutoff))
            for _, _, c in idle:  # closed first, then the longest idle
                del self._rooms[c]
                if not full():
                    return True
            return False

    def _meta(self, code):
        with self._lock:
            room = self._live(code)
            return dict(room["meta"]) if room else None

    def _set(self, code, question=None, **meta):
        with self._lock:
            room = self._live(code)
            if room is None:
                raise NoRoom("This room has expired.")
            if question is not None:
                room["questions"].append(question)
                meta["q"] = len(room["questions"])
            now = time.time()  # a lecturer's step: the room lives IDLE_S from now
            room["meta"].update(meta, last=now, expires=self._expires(room["meta"]["born"], now))
            return len(room["questions"])

    def _question(self, code, number):
        with self._lock:
            room = self._live(code)
            return room["questions"][number - 1] if room and 0 < number <= len(room["questions"]) else None

    def _students(self, code):
        with self._lock:
            room = self._live(code)
            return len(room["voters"]) if room else 0

    def _answers(self, code, number, rnd):
        with self._lock:
            room = self._live(code)
            return list(room["answers"].get((number, rnd), {}).values()) if room else []

    def _count(self, code, number, rnd):
        with self._lock:
            room = self._live(code)
            return len(room["answers"].get((number, rnd), {})) if room else 0

    def _mine(self, code, voter, number, rnd):
        with self._lock:
            room = self._live(code)
            return room["answers"].get((number, rnd), {}).get(voter) if room else None

    def _ballots(self, code, number, rnd):
        with self._lock:
            room = self._live(code)
            return dict(room["answers"].get((number, rnd), {})) if room else {}

    def _clear(self, code, number, rnd):
        with self._lock:
            if (room := self._live(code)) is not None:
                room["answers"].pop((number, rnd), None)

    def _join_locked(self, room, voter):
        if voter not in room["voters"]:
            if room["meta"].get("locked") == "1":
                return "locked"
            if len(room["voters"]) >= self.max_students:
                return "full"
            room["voters"].add(voter)
        return "ok"

    def _join(self, code, voter):
        with self._lock:
            room = self._live(code)
            return "noroom" if room is None else self._join_locked(room, voter)

    def _vote(self, code, voter, number, rnd, value, change=False):
        with self._lock:
            room = self._live(code)
            if room is None:
                return "noroom"
            m = room["meta"]
            if (m["q"], m["round"]) != (number, rnd):
                return "stale"
            if m["phase"] != "open":
                return "notopen"
            if (joined := self._join_locked(room, voter)) != "ok":
                return joined
            ans = room["answers"].setdefault((number, rnd), {})
            if voter in ans and not change:
                return "again"
            ans[voter] = float(value)
            return "ok"


_default: RoomStore | None = None
_default_lock = threading.Lock()


def default_store() -> RoomStore:
    """This server's store: Redis at RNNVIZ_REDIS_URL when set, else rooms in this process."""
    global _default
    with _default_lock:
        if _default is None:
            url = os.environ.get("RNNVIZ_REDIS_URL")
            _default = RedisStore(url) if url else MemoryStore()
        return _default
