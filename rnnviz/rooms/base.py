"""The rooms' one interface, `RoomStore`: the rules every store keeps (only the room's token may ask, reveal, revote,
close and read answers; voters are tokens the room signed; one vote per voter per round), over a few storage calls
that each store implements, with the one-vote rule atomic (rnnviz.rooms.store in this process, rnnviz.rooms.redis_store
in Redis). A room holds its questions and, per question and round, one answer per voter; nothing else. Each change a
phone must see (a question, a reveal, a lock) is announced to `on_change` listeners (rnnviz.rooms.hub pushes it).
Caps: rooms per lecturer's address an hour, rooms and questions per store (the closed and longest-idle rooms dropped
first, never one in use), and an idle room expiring IDLE_S after its lecturer's last step."""
from __future__ import annotations

import hmac
import secrets
import time
from abc import ABC, abstractmethod

from rnnviz.rooms.codes import clean_code, digest, new_code, sign
from rnnviz.rooms.room import (
    IDLE_S,
    MAX_QUESTIONS,
    MAX_ROOMS,
    MAX_STUDENTS,
    ROOMS_PER_ADDRESS,
    TTL_S,
    BadVoter,
    Full,
    Locked,
    NoRoom,
    NotAllowed,
    Question,
    Refused,
    RoomError,
    RoomView,
)


class RoomStore(ABC):
    """The interface the pages use. Lecturer calls take the room's token; student calls take a voter id."""

    def __init__(self, ttl_s: float = TTL_S, max_students: int = MAX_STUDENTS, idle_s: float = IDLE_S,
                 max_rooms: int = MAX_ROOMS, rooms_per_address: tuple[int, float] = ROOMS_PER_ADDRESS):
        self.ttl_s, self.max_students, self.idle_s = ttl_s, max_students, idle_s
        self.max_rooms, self.rooms_per_address = max_rooms, rooms_per_address
        self._listeners: list = []  # called with a room's code after each change phones see

    def on_change(self, fn) -> None:
        """Call fn(code) after each change of a room that phones see, made through this store object."""
        self._listeners.append(fn)

    def _changed(self, code: str) -> None:
        self._publish(code)
        for fn in self._listeners:
            fn(code)

    def _publish(self, code: str) -> None:
        """Tell the other processes (Redis: a pub/sub message); in this process nobody else needs telling."""

    # -- what each store implements: plain storage, with the one-vote rule atomic -----------------------------------
    @abstractmethod
    def _create(self, code: str, token_hash: str, secret: str, now: float) -> bool: ...  # False if taken

    @abstractmethod
    def _hit(self, key: str, window_s: float) -> int: ...  # count one more under key: how many in this window

    @abstractmethod
    def _space(self, question: bool, keep: str = "") -> bool:
        """Room for one more room (or question), after dropping closed rooms and rooms idle EVICT_IDLE_S, closed and
        longest-idle first (never `keep`, the room being stepped)."""

    def _expires(self, born: float, now: float) -> float:
        """A room's expiry after a lecturer's step at `now`: IDLE_S later, and TTL_S after it opened at the latest."""
        return min(born + self.ttl_s, now + self.idle_s)

    @abstractmethod
    def _meta(self, code: str) -> dict | None: ...  # token, secret, q, round, phase, expires

    @abstractmethod
    def _set(self, code: str, question: Question | None = None, **meta) -> int: ...  # the question count; a step

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
    def _ballots(self, code: str, number: int, rnd: int) -> dict[str, float]: ...  # hashed voter -> answer

    @abstractmethod
    def _clear(self, code: str, number: int, rnd: int) -> None: ...  # forget a round's answers

    @abstractmethod
    def _vote(self, code: str, voter: str, number: int, rnd: int, value: float, change: bool) -> str: ...

    @abstractmethod
    def _join(self, code: str, voter: str) -> str: ...

    # -- the interface ---------------------------------------------------------------------------------------------
    def open_room(self, address: str = "") -> tuple[str, str]:
        """A new room: its code (for everyone) and its token (for the lecturer's browser only). `address`, the
        lecturer's (nginx's X-Real-IP), opens at most rooms_per_address rooms an hour; "" (no browser) is not capped."""
        cap, window = self.rooms_per_address
        if address and self._hit("opened:" + digest(address), window) > cap:
            raise Full(f"This address has opened {cap} rooms in the last {window / 60:g} minutes, the most it may. "
                       "Use a room you opened (its lecturer link), or try again later.")
        if not self._space(question=False):
            raise Full("This server holds as many class rooms as it can, all in use. Please try again in a few "
                       "minutes.")
        token = secrets.token_urlsafe(24)
        for _ in range(20):
            code = new_code()
            if self._create(code, digest(token), secrets.token_urlsafe(24), time.time()):
                return code, token
        raise RoomError("Could not find a free room code; please try again.")

    def _room(self, code: str) -> tuple[str, dict]:
        code = clean_code(code)
        meta = self._meta(code)
        if meta is None:
            raise NoRoom("There is no room with that code (rooms close 2 hours after the lecturer's last step, "
                         "12 hours at most). Check it on the projector.")
        return code, meta

    def _lecturer(self, code: str, token: str) -> tuple[str, dict]:
        code, meta = self._room(code)
        if not hmac.compare_digest(meta["token"], digest(token or "")):
            raise NotAllowed("Only the lecturer who opened this room can do that.")
        return code, meta

    def view(self, code: str, counts: bool = True) -> RoomView:
        """The room as anyone may see it; `counts=False` leaves students and answered at 0 (a phone's refresh needs
        neither: one store read instead of three)."""
        code, m = self._room(code)
        n, r = int(m["q"]), int(m["round"])
        q = self._question(code, n) if n else None
        return RoomView(code, n, r, m["phase"], q, self._students(code) if counts else 0,
                        self._count(code, n, r) if n and counts else 0, float(m["expires"]), m.get("locked") == "1")

    def ask(self, code: str, token: str, question: Question) -> int:
        """Open a new question for voting (round 1); its number."""
        code, m = self._lecturer(code, token)
        if m["phase"] == "closed":
            raise Refused("This room is closed.")
        if int(m["q"]) >= MAX_QUESTIONS:
            raise Full(f"A room holds at most {MAX_QUESTIONS} questions; please open a new room.")
        if not self._space(question=True, keep=code):
            raise Full("This server holds as many class questions as it can right now; the room and its answers are "
                       "kept. Please try again in a few minutes.")
        n = self._set(code, question, round=1, phase="open")
        self._changed(code)
        return n

    def reveal(self, code: str, token: str) -> list[float]:
        """End this round's voting and return its answers."""
        code, m = self._lecturer(code, token)
        if not int(m["q"]):
            raise Refused("Ask a question first.")
        if m["phase"] == "open":
            self._set(code, phase="revealed")
            self._changed(code)
        return self._answers(code, int(m["q"]), int(m["round"]))

    def revote(self, code: str, token: str) -> None:
        """Discuss and vote again: round 2 of the current question opens."""
        code, m = self._lecturer(code, token)
        if m["phase"] != "revealed":
            raise Refused("Reveal the first round before voting again.")
        self._set(code, round=2, phase="open")
        self._changed(code)

    def close(self, code: str, token: str) -> None:
        code, _ = self._lecturer(code, token)
        self._set(code, phase="closed")
        self._changed(code)

    def lock(self, code: str, token: str, locked: bool = True) -> None:
        """Lock the room once the class is in (no new phone joins or votes), or open it again."""
        code, _ = self._lecturer(code, token)
        self._set(code, locked="1" if locked else "0")
        self._changed(code)

    def clear(self, code: str, token: str) -> None:
        """Forget the current round's answers (a round stuffed, or asked by mistake): every phone votes again."""
        code, m = self._lecturer(code, token)
        if not int(m["q"]):
            raise Refused("Ask a question first.")
        self._clear(code, int(m["q"]), int(m["round"]))
        self._set(code, phase="open", cleared=int(m.get("cleared", 0)) + 1)
        self._changed(code)

    def ballots(self, code: str, number: int, rnd: int) -> dict[str, float]:
        """Every answer of a round by hashed voter id, for the push service to tell each phone whether it was right
        at the reveal (one read for the whole room); `voter_id` gives a phone's own key."""
        return self._ballots(clean_code(code), number, rnd)

    def voter_id(self, code: str, voter: str) -> str:
        """The hashed id a voter token is stored under (BadVoter if this room did not issue it)."""
        code, m = self._room(code)
        return self._voter(code, m, voter)

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
        vid = sign(secret, "seed", seed)[:16] if seed else secrets.token_urlsafe(12)
        return f"{vid}.{sign(secret, code, vid)}"

    def _voter(self, code: str, m: dict, token: str) -> str:
        """The stored (hashed) id of a voter token, or BadVoter when this room did not issue it."""
        vid, _, sig = (token or "").rpartition(".")
        right = sign(m.get("secret", ""), code, vid).encode()
        if not (vid and len(token) <= 80 and hmac.compare_digest(sig.encode(), right)):
            raise BadVoter("This phone's answer code was not given out by this room (was the link changed?). "
                           "Open the room's join link again.")
        return digest(code, vid)

    def join(self, code: str, voter: str) -> RoomView:
        """A student arrives (counted once, up to the room's limit); the room as it stands."""
        code, m = self._room(code)
        status = self._join(code, self._voter(code, m, voter))
        if status == "full":
            raise Full(f"This room is full ({self.max_students:,} students). Please watch the projector.")
        if status == "locked":
            raise Locked("The lecturer has locked this room: the class is in. Please watch the projector.")
        return self.view(code)

    def mine(self, code: str, voter: str, number: int, rnd: int) -> float | None:
        """This voter's answer to question `number`, round `rnd`, as stored (a choice's index), or None: what a phone
        that reloaded (a new session, the same voter) shows instead of asking again."""
        code, m = self._room(code)
        return self._mine(code, self._voter(code, m, voter), number, rnd)

    def vote(self, code: str, voter: str, number: int, rnd: int, answer, change: bool = False) -> None:
        """One answer from one voter for question `number`, round `rnd`; Refused (with why) otherwise. With
        `change`, a voter's new answer replaces its old one until the reveal (still one answer per voter)."""
        code, m = self._room(code)
        if int(m["q"]) != number or int(m["round"]) != rnd:
            raise Refused("The question has moved on; here is the current one.")
        voter = self._voter(code, m, voter)
        q = self._question(code, number)
        status = self._vote(code, voter, number, rnd, q.check(answer), change)
        if status == "ok":
            return
        raise {"full": Full(f"This room is full ({self.max_students:,} students)."),
               "again": Refused("You have already answered this round."),
               "stale": Refused("The question has moved on; here is the current one."),
               "noroom": NoRoom("This room has expired."),
               "locked": Locked("The lecturer has locked this room: the class is in."),
               }.get(status, Refused("Voting for this round has ended."))
