"""What a class room holds and what it refuses: a question (what phones show, how an answer is checked), the room
as anyone may see it, the room's limits, and the refusals a page turns into a message (never a traceback)."""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field

TTL_S = 12 * 3600  # a room and its answers expire this long after it opened, at the latest
IDLE_S = 2 * 3600  # and this long after the lecturer's last step (open, ask, reveal, lock...): idle rooms go first
ROOMS_PER_ADDRESS = (20, 3600)  # rooms one lecturer's address may open, per window of seconds
MAX_ROOMS = 10_000  # rooms per store; past it the closed and the longest-idle are dropped first
EVICT_IDLE_S = 3600  # a room not closed is dropped for a new one only after this long without a lecturer's step
MAX_STORED_QUESTIONS = 50_000  # questions per in-process store (2.5 kB at most each: 125 MB)
MEMORY_SHARE = 0.8  # Redis: new rooms and questions stop at this share of maxmemory; the rest is for votes
MAX_STUDENTS = 1000
MAX_QUESTIONS = 200
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


class Locked(RoomError):
    pass


class TooLong(ValueError):
    """A question whose prompt (MAX_TEXT), setup (MAX_SETUP) or an option (80) is longer than a room keeps."""


@dataclass(frozen=True)
class Question:
    """What phones show and how an answer is checked: a number in [lo, hi] or the index of one of `options`.

    Attributes:
        prompt: the question's text.
        kind: "number" or "choice".
        truth: the exact answer; for "choice" the index of the right option.
        options: the choices' labels (choices only).
        lo: the lowest number a phone accepts (numbers only).
        hi: the highest number a phone accepts (numbers only).
        tol: a number within tol of the truth counts as right.
        lesson: the page it came from.
        setup: that page's link query (what the class saw).
        qid: which of that page's questions (the app redraws the page's chart from it at the reveal).
    """

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
    """What anyone with the code may know: the current question (0 = none yet), its round and phase, and counts.

    Attributes:
        code: the room's code.
        number: the current question's number, from 1; 0: none yet.
        round: 1, or 2 after "discuss and vote again".
        phase: "waiting" (no question yet), "open", "revealed" or "closed".
        question: the current question; None: none yet.
        students: distinct voters so far (0 from a view without counts).
        answered: answers in this round (0 from a view without counts).
        expires: when the room expires, unix time.
        locked: the lecturer has locked the room: no new phones join.
    """

    code: str
    number: int
    round: int  # 1, or 2 after "discuss and vote again"
    phase: str  # "waiting" (no question yet), "open", "revealed", "closed"
    question: Question | None
    students: int  # distinct voters so far
    answered: int  # answers in this round
    expires: float = field(default=0.0)  # unix time
    locked: bool = False  # the lecturer has locked the room: no new phones join
