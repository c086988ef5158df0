"""The rooms' one interface, `RoomStore`: the rules every store keeps (only the room's token may ask, reveal, revote,
close and read answers; voters are tokens the room signed; one vote per voter per round), over a few storage calls
that each store implements, with the one-vote rule atomic (rnnviz.rooms.store in this process, rnnviz.rooms.redis_store
in Redis). A room holds its questions and, per question and round, one answer per voter; nothing else."""
from __future__ import annotations

import hmac
import secrets
import time
from abc import ABC, abstractmethod

from rnnviz.rooms.codes import clean_code, digest, new_code, sign
from rnnviz.rooms.room import (
    MAX_QUESTIONS,
    MAX_STUDENTS,
    TTL_S,
    BadVoter,
    Full,
    NoRoom,
    NotAllowed,
    Question,
    Refused,
    RoomError,
    RoomView,
)


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
            if self._create(code, digest(token), secrets.token_urlsafe(24), time.time() + self.ttl_s):
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
