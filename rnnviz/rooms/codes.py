"""A room's code and its tokens. The code is read off a projector and typed on a phone; the lecturer's token is stored
only hashed (`digest`); a voter is an id and its HMAC under the room's own secret (`sign`), so a phone cannot make
one up or vote as another, and the store keeps voter ids only hashed."""
from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from rnnviz.rooms.room import NoRoom

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read off a projector and typed on a phone
CODE_LENGTH = 6  # 31^6 ~ 8.9e8 codes


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def clean_code(code: str) -> str:
    """A typed code, upper-cased, without spaces or hyphens (a phone's keyboard adds them: "abc def"); NoRoom for
    anything that cannot be a code."""
    c = "".join(ch for ch in (code or "") if not ch.isspace() and ch != "-").upper()
    if len(c) != CODE_LENGTH or any(ch not in ALPHABET for ch in c):
        raise NoRoom("There is no room with that code. Check it on the projector.")
    return c


def digest(*parts: str) -> str:
    return hashlib.sha256(":".join(parts).encode()).hexdigest()[:32]


def sign(secret: str, *parts: str) -> str:
    mac = hmac.new(secret.encode(), ":".join(parts).encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode()[:22]  # 132 bits

