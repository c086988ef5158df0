"""The projector's place in a deck, for the presenter view in the lecturer's second window: kept in this server
process under a random key that only the lecturer's browser holds (it is in the presenter view's link). Behind nginx
both windows of one browser carry the same visitor cookie, so they reach the same replica."""
from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

MAX_FOLLOWED = 1000  # decks running on this server at once; the oldest is forgotten first


@dataclass(frozen=True)
class Where:
    deck: str
    step: int  # 0-based
    code: str | None  # the room the step's question goes to, if one is open
    at: float  # unix time the projector last showed it


_lock = threading.Lock()
_where: OrderedDict[str, Where] = OrderedDict()


def tell(key: str, deck: str, step: int, code: str | None) -> None:
    with _lock:
        _where.pop(key, None)
        _where[key] = Where(deck, step, code, time.time())
        while len(_where) > MAX_FOLLOWED:
            _where.popitem(last=False)


def where(key: str) -> Where | None:
    with _lock:
        return _where.get(key)
