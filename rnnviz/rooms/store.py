"""Where a class's rooms live: one `RoomStore` interface, kept in this process (`MemoryStore`, the default for one
server) or in Redis (`RedisStore`, when `RNNVIZ_REDIS_URL` is set, so that every replica behind nginx sees one room).

A room holds its questions and, per question and round, one answer per voter; nothing else. A voter is a token the
room issues (`issue_voter`: a random or derived id and its HMAC under the room's own secret), so a phone cannot make
one up or vote as another; ids are stored only hashed; rooms and answers expire (12 h by default). Only the holder of
the room's token (returned once, stored hashed) can ask, reveal, revote, close and read answers. One vote per voter
per round is atomic in both stores (a lock here, a Lua script in Redis).
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
import os
import secrets
import threading
import time
from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass, field

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read off a projector and typed on a phone
CODE_LENGTH = 6  # 31^6 ~ 8.9e8 codes
TTL_S = 12 * 3600
MAX_STUDENTS = 1000
MAX_QUESTIONS = 200
MAX_ROOMS = 10_000  # per server in memory (a few kB each); Redis is bounded by its maxmemory instead
MAX_OPTIONS = 12
MAX_TEXT = 500
MAX_SETUP = 2000  # a question's page setup (its link query)


class RoomError(Exception):
    """A refusal with a message for the person who caused it (never a traceback)."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class NoRoom(RoomError):
    pass


class NotAllowed(RoomError):
    pass


class Refused(RoomError):
    pass


class Full(RoomError):
    pass


class StoreDown(RoomError):
    pass


class BadVoter(RoomError):
    pass


class TooLong(ValueError):
    """A question whose prompt (MAX_TEXT), setup (MAX_SETUP) or an option (80) is longer than a room keeps."""


@dataclass(frozen=True)
class Question:
    """What phones show and how an answer is checked: a number in [lo, hi] or the index of one of `options`."""

    prompt: str
    kind: str  # "number" or "choice"
    truth: float  # the exact answer; for "choice" the index of the right option
    options: tuple[str, ...] = ()
    lo: float = 0.0
    hi: float = 0.0
    tol: float = 0.0  # a number within tol of the truth counts as right
    lesson: str = ""  # the page it came from
    setup: str = ""  # that page's link query (what the class saw)
    qid: str = ""  # which of that page's questions (the app redraws the page's chart from it at the reveal)

    def __post_init__(self):
        if self.kind not in ("number", "choice"):
            raise ValueError(f"kind {self.kind!r}")
        if len(self.prompt) > MAX_TEXT or len(self.setup) > MAX_SETUP or any(len(o) > 80 for o in self.options):
            raise TooLong("question text too long")
        if self.kind == "choice" and not 2 <= len(self.options) <= MAX_OPTIONS:
            raise ValueError("a choice needs 2 to 12 options")
        if self.kind == "number" and not (math.isfinite(self.lo) and math.isfinite(self.hi) and self.lo < self.hi):
            raise ValueError("a number needs finite lo < hi")

    def check(self, answer) -> float:
        """The answer as stored, or Refused with what is wrong with it."""
        if self.kind == "choice":
            if isinstance(answer, bool) or not isinstance(answer, int) or not 0 <= answer < len(self.options):
                raise Refused("That is not one of the choices offered.")
            return answer
        try:
            v = float(answer)
        except (TypeError, ValueError):
            v = math.nan  # an empty box (it holds none when it refused a number out of range), or not a number
        if not math.isfinite(v) or not self.lo <= v <= self.hi:
            raise Refused(f"Please enter a number between {self.lo:g} and {self.hi:g}.")
        return v

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, s: str) -> Question:
        d = json.loads(s)
        return cls(**{**d, "options": tuple(d["options"])})


@dataclass(frozen=True)
class RoomView:
    """What anyone with the code may know: the current question (0 = none yet), its round and phase, and counts."""

    code: str
    number: int
    round: int  # 1, or 2 after "discuss and vote again"
    phase: str  # "waiting" (no question yet), "open", "revealed", "closed"
    question: Question | None
    students: int  # distinct voters so far
    answered: int  # answers in this round
    expires: float = field(default=0.0)  # unix time


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def clean_code(code: str) -> str:
    """A typed code, upper-cased, without spaces or hyphens (a phone's keyboard adds them: "abc def"); NoRoom for
    anything that cannot be a code."""
    c = "".join(ch for ch in (code or "") if not ch.isspace() and ch != "-").upper()
    if len(c) != CODE_LENGTH or any(ch not in ALPHABET for ch in c):
        raise NoRoom("There is no room with that code. Check it on the projector.")
    return c


def _hash(*parts: str) -> str:
    return hashlib.sha256(":".join(parts).encode()).hexdigest()[:32]


def _sign(secret: str, *parts: str) -> str:
    mac = hmac.new(secret.encode(), ":".join(parts).encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode()[:22]  # 132 bits


class RoomStore(ABC):
    """The interface the pages use. Lecturer calls take the room's token; student calls take a voter id."""

    def __init__(self, ttl_s: float = TTL_S, max_students: int = MAX_STUDENTS):
        self.ttl_s, self.max_students = ttl_s, max_students

    # -- what each store implements: plain storage, with the one-vote rule atomic -----------------------------------
    @abstractmethod
    def _create(self, code: str, token_hash: str, secret: str, expires: float) -> bool: ...  # False if taken

    @abstractmethod
    def _meta(self, code: str) -> dict | None: ...  # token, secret, q, round, phase, expires

    @abstractmethod
    def _set(self, code: str, question: Question | None = None, **meta) -> int: ...  # returns the question count

    @abstractmethod
    def _question(self, code: str, number: int) -> Question | None: ...

    @abstractmethod
    def _students(self, code: str) -> int: ...

    @abstractmethod
    def _answers(self, code: str, number: int, rnd: int) -> list[float]: ...

    @abstractmethod
    def _count(self, code: str, number: int, rnd: int) -> int: ...

    @abstractmethod
    def _mine(self, code: str, voter: str, number: int, rnd: int) -> float | None: ...  # one voter's answer

    @abstractmethod
    def _vote(self, code: str, voter: str, number: int, rnd: int, value: float) -> str: ...  # a status word

    @abstractmethod
    def _join(self, code: str, voter: str) -> str: ...

    # -- the interface ---------------------------------------------------------------------------------------------
    def open_room(self) -> tuple[str, str]:
        """A new room: its code (for everyone) and its token (for the lecturer's browser only)."""
        token = secrets.token_urlsafe(24)
        for _ in range(20):
            code = new_code()
            if self._create(code, _hash(token), secrets.token_urlsafe(24), time.time() + self.ttl_s):
                return code, token
        raise RoomError("Could not find a free room code; please try again.")

    def _room(self, code: str) -> tuple[str, dict]:
        code = clean_code(code)
        meta = self._meta(code)
        if meta is None:
            raise NoRoom("There is no room with that code (rooms close after 12 hours). Check it on the projector.")
        return code, meta

    def _lecturer(self, code: str, token: str) -> tuple[str, dict]:
        code, meta = self._room(code)
        if not hmac.compare_digest(meta["token"], _hash(token or "")):
            raise NotAllowed("Only the lecturer who opened this room can do that.")
        return code, meta

    def view(self, code: str, counts: bool = True) -> RoomView:
        """The room as anyone may see it; `counts=False` leaves students and answered at 0 (a phone's refresh needs
        neither: one store read instead of three)."""
        code, m = self._room(code)
        n, r = int(m["q"]), int(m["round"])
        q = self._question(code, n) if n else None
        return RoomView(code, n, r, m["phase"], q, self._students(code) if counts else 0,
                        self._count(code, n, r) if n and counts else 0, float(m["expires"]))

    def ask(self, code: str, token: str, question: Question) -> int:
        """Open a new question for voting (round 1); its number."""
        code, m = self._lecturer(code, token)
        if m["phase"] == "closed":
            raise Refused("This room is closed.")
        if int(m["q"]) >= MAX_QUESTIONS:
            raise Full(f"A room holds at most {MAX_QUESTIONS} questions; please open a new room.")
        return self._set(code, question, round=1, phase="open")

    def reveal(self, code: str, token: str) -> list[float]:
        """End this round's voting and return its answers."""
        code, m = self._lecturer(code, token)
        if not int(m["q"]):
            raise Refused("Ask a question first.")
        if m["phase"] == "open":
            self._set(code, phase="revealed")
        return self._answers(code, int(m["q"]), int(m["round"]))

    def revote(self, code: str, token: str) -> None:
        """Discuss and vote again: round 2 of the current question opens."""
        code, m = self._lecturer(code, token)
        if m["phase"] != "revealed":
            raise Refused("Reveal the first round before voting again.")
        self._set(code, round=2, phase="open")

    def close(self, code: str, token: str) -> None:
        code, _ = self._lecturer(code, token)
        self._set(code, phase="closed")

    def answers(self, code: str, token: str, number: int, rnd: int) -> list[float]:
        code, _ = self._lecturer(code, token)
        return self._answers(code, number, rnd)

    def export(self, code: str, token: str) -> list[dict]:
        """One row per question, round and answer value with its count, for a CSV after class."""
        code, m = self._lecturer(code, token)
        rows = []
        for n in range(1, int(m["q"]) + 1):
            q = self._question(code, n)
            for r in (1, 2):
                counts: dict[float, int] = {}
                for v in self._answers(code, n, r):
                    counts[v] = counts.get(v, 0) + 1
                for v, c in sorted(counts.items()):
                    rows.append({"question": n, "lesson": q.lesson, "prompt": q.prompt, "setup": q.setup, "round": r,
                                 "answer": q.options[int(v)] if q.kind == "choice" else v,
                                 "truth": q.options[int(q.truth)] if q.kind == "choice" else q.truth, "count": c})
        return rows

    def issue_voter(self, code: str, seed: str | None = None) -> str:
        """A voter token for this room: a random id (or one derived from `seed`, e.g. a browser's cookie, so the same
        browser is the same voter), signed with the room's secret. Only tokens made here pass `join` and `vote`."""
        code, m = self._room(code)
        secret = m.get("secret", "")
        vid = _sign(secret, "seed", seed)[:16] if seed else secrets.token_urlsafe(12)
        return f"{vid}.{_sign(secret, code, vid)}"

    def _voter(self, code: str, m: dict, token: str) -> str:
        """The stored (hashed) id of a voter token, or BadVoter when this room did not issue it."""
        vid, _, sig = (token or "").rpartition(".")
        right = _sign(m.get("secret", ""), code, vid).encode()
        if not (vid and len(token) <= 80 and hmac.compare_digest(sig.encode(), right)):
            raise BadVoter("This phone's answer code was not given out by this room (was the link changed?). "
                           "Open the room's join link again.")
        return _hash(code, vid)

    def join(self, code: str, voter: str) -> RoomView:
        """A student arrives (counted once, up to the room's limit); the room as it stands."""
        code, m = self._room(code)
        if self._join(code, self._voter(code, m, voter)) == "full":
            raise Full(f"This room is full ({self.max_students:,} students). Please watch the projector.")
        return self.view(code)

    def mine(self, code: str, voter: str, number: int, rnd: int) -> float | None:
        """This voter's answer to question `number`, round `rnd`, as stored (a choice's index), or None: what a phone
        that reloaded (a new session, the same voter) shows instead of asking again."""
        code, m = self._room(code)
        return self._mine(code, self._voter(code, m, voter), number, rnd)

    def vote(self, code: str, voter: str, number: int, rnd: int, answer) -> None:
        """One answer from one voter for question `number`, round `rnd`; Refused (with why) otherwise."""
        code, m = self._room(code)
        if int(m["q"]) != number or int(m["round"]) != rnd:
            raise Refused("The question has moved on; here is the current one.")
        voter = self._voter(code, m, voter)
        q = self._question(code, number)
        status = self._vote(code, voter, number, rnd, q.check(answer))
        if status == "ok":
            return
        raise {"full": Full(f"This room is full ({self.max_students:,} students)."),
               "again": Refused("You have already answered this round."),
               "stale": Refused("The question has moved on; here is the current one."),
               "noroom": NoRoom("This room has expired."),
               }.get(status, Refused("Voting for this round has ended."))


class MemoryStore(RoomStore):
    """Rooms in this process: the embedded default for a single `streamlit run app.py`."""

    def __init__(self, ttl_s: float = TTL_S, max_students: int = MAX_STUDENTS):
        super().__init__(ttl_s, max_students)
        self._lock = threading.Lock()
        self._rooms: dict[str, dict] = {}

    def _live(self, code: str) -> dict | None:
        now = time.time()
        for c in [c for c, r in self._rooms.items() if r["meta"]["expires"] <= now]:
            del self._rooms[c]
        return self._rooms.get(code)

    def _create(self, code, token_hash, secret, expires):
        with self._lock:
            if self._live(code) is not None:
                return False
            if len(self._rooms) >= MAX_ROOMS:
                raise Full("Too many rooms are open on this server right now; please try again later.")
            self._rooms[code] = {"meta": {"token": token_hash, "secret": secret, "q": 0, "round": 1, "phase": "waiting",
                                          "expires": expires}, "questions": [], "voters": set(), "answers": {}}
            return True

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
            room["meta"].update(meta)
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

    def _join_locked(self, room, voter):
        if voter not in room["voters"]:
            if len(room["voters"]) >= self.max_students:
                return "full"
            room["voters"].add(voter)
        return "ok"

    def _join(self, code, voter):
        with self._lock:
            room = self._live(code)
            return "noroom" if room is None else self._join_locked(room, voter)

    def _vote(self, code, voter, number, rnd, value):
        with self._lock:
            room = self._live(code)
            if room is None:
                return "noroom"
            m = room["meta"]
            if (m["q"], m["round"]) != (number, rnd):
                return "stale"
            if m["phase"] != "open":
                return "notopen"
            if self._join_locked(room, voter) == "full":
                return "full"
            ans = room["answers"].setdefault((number, rnd), {})
            if voter in ans:
                return "again"
            ans[voter] = float(value)
            return "ok"


# KEYS: meta hash, voters set, answers hash; ARGV: voter, q, round, value, max students
VOTE_LUA = """
local m = redis.call('HMGET', KEYS[1], 'q', 'round', 'phase', 'expires')
if not m[1] then return 'noroom' end
if m[1] ~= ARGV[2] or m[2] ~= ARGV[3] then return 'stale' end
if m[3] ~= 'open' then return 'notopen' end
if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 0 then
  if redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[5]) then return 'full' end
  redis.call('SADD', KEYS[2], ARGV[1])
  redis.call('EXPIREAT', KEYS[2], math.ceil(tonumber(m[4])))
end
if redis.call('HSETNX', KEYS[3], ARGV[1], ARGV[4]) == 0 then return 'again' end
redis.call('EXPIREAT', KEYS[3], math.ceil(tonumber(m[4])))
return 'ok'
"""
# KEYS: meta hash; ARGV: token hash, expiry (unix seconds, exact and rounded up), voter secret: a room whole, or none
CREATE_LUA = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'token', ARGV[1], 'q', 0, 'round', 1, 'phase', 'waiting', 'expires', ARGV[2],
           'secret', ARGV[4])
redis.call('EXPIREAT', KEYS[1], ARGV[3])
return 1
"""
# KEYS: meta hash, voters set; ARGV: voter, max students
JOIN_LUA = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 'noroom' end
if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 1 then return 'ok' end
if redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[2]) then return 'full' end
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('EXPIREAT', KEYS[2], math.ceil(tonumber(redis.call('HGET', KEYS[1], 'expires'))))
return 'ok'
"""


class RedisStore(RoomStore):
    """Rooms in Redis, shared by every replica. Every key carries the room's expiry; an outage raises StoreDown
    (a message for the page) and the client's pool reconnects on the next call."""

    def __init__(self, url: str, ttl_s: float = TTL_S, max_students: int = MAX_STUDENTS, prefix: str = "rnnviz:room:"):
        import redis  # only here: the in-process store needs no client

        super().__init__(ttl_s, max_students)
        self._errors = (redis.exceptions.RedisError, OSError)  # down, timed out, loading, out of memory
        self.r = redis.Redis.from_url(url, decode_responses=True, socket_timeout=5, socket_connect_timeout=2,
                                      health_check_interval=10)
        self.prefix = prefix
        self._asked: dict[tuple[str, int], Question] = {}
        self._vote_lua, self._join_lua = self.r.register_script(VOTE_LUA), self.r.register_script(JOIN_LUA)
        self._create_lua = self.r.register_script(CREATE_LUA)

    def _k(self, code: str, *part) -> str:
        return self.prefix + ":".join((code, *map(str, part)))

    def _call(self, fn, *args, **kw):
        try:
            return fn(*args, **kw)
        except self._errors:
            raise StoreDown("The class's shared store is not answering right now; it reconnects by itself. "
                            "Try again in a few seconds.") from None

    def _create(self, code, token_hash, secret, expires):
        args = [token_hash, repr(expires), math.ceil(expires), secret]
        return bool(self._call(self._create_lua, keys=[self._k(code)], args=args))

    def _meta(self, code):
        m = self._call(self.r.hgetall, self._k(code))
        if not m or "expires" not in m:
            return None
        return {**m, "expires": float(m["expires"])}

    def _set(self, code, question=None, **meta):
        def write():
            exp = math.ceil(float(self.r.hget(self._k(code), "expires") or 0))
            n = None
            if question is not None:
                n = self.r.rpush(self._k(code, "q"), question.to_json())
                self.r.expireat(self._k(code, "q"), exp)
                meta["q"] = n
            if meta:
                self.r.hset(self._k(code), mapping=meta)
            return n if n is not None else self.r.llen(self._k(code, "q"))
        return self._call(write)

    def _question(self, code, number):
        key = (code, number)  # a question never changes once asked: each replica reads it from Redis once
        if key not in self._asked:
            s = self._call(self.r.lindex, self._k(code, "q"), number - 1)
            if not s:
                return None
            if len(self._asked) >= 4096:
                self._asked.clear()
            self._asked[key] = Question.from_json(s)
        return self._asked[key]

    def _students(self, code):
        return self._call(self.r.scard, self._k(code, "voters"))

    def _answers(self, code, number, rnd):
        return [float(v) for v in self._call(self.r.hvals, self._k(code, "a", number, rnd))]

    def _count(self, code, number, rnd):
        return self._call(self.r.hlen, self._k(code, "a", number, rnd))

    def _mine(self, code, voter, number, rnd):
        v = self._call(self.r.hget, self._k(code, "a", number, rnd), voter)
        return None if v is None else float(v)

    def _vote(self, code, voter, number, rnd, value):
        keys = [self._k(code), self._k(code, "voters"), self._k(code, "a", number, rnd)]
        return self._call(self._vote_lua, keys=keys, args=[voter, number, rnd, repr(float(value)), self.max_students])

    def _join(self, code, voter):
        keys = [self._k(code), self._k(code, "voters")]
        return self._call(self._join_lua, keys=keys, args=[voter, self.max_students])


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
