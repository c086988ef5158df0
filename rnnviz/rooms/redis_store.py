"""Rooms in Redis, shared by every replica behind nginx: the same `RoomStore` rules, with the one-vote rule, a room's
creation and a join each one atomic Lua script, and every key carrying the room's expiry."""
from __future__ import annotations

import math

from rnnviz.rooms.base import RoomStore
from rnnviz.rooms.room import MAX_STUDENTS, TTL_S, Question, StoreDown

# KEYS: meta hash, voters set, answers hash; ARGV: voter, q, round, value, max students, change (1: replace an answer)
VOTE_LUA = """
local m = redis.call('HMGET', KEYS[1], 'q', 'round', 'phase', 'expires', 'locked')
if not m[1] then return 'noroom' end
if m[1] ~= ARGV[2] or m[2] ~= ARGV[3] then return 'stale' end
if m[3] ~= 'open' then return 'notopen' end
if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 0 then
  if m[5] == '1' then return 'locked' end
  if redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[5]) then return 'full' end
  redis.call('SADD', KEYS[2], ARGV[1])
  redis.call('EXPIREAT', KEYS[2], math.ceil(tonumber(m[4])))
end
if ARGV[6] == '1' then redis.call('HSET', KEYS[3], ARGV[1], ARGV[4])
elseif redis.call('HSETNX', KEYS[3], ARGV[1], ARGV[4]) == 0 then return 'again' end
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
if redis.call('HGET', KEYS[1], 'locked') == '1' then return 'locked' end
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
        self.prefix, self.url = prefix, url
        self.channel = prefix + "changed"  # a room's code, published after each change phones see (rnnviz.rooms.hub)
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

    def _ballots(self, code, number, rnd):
        return {k: float(v) for k, v in self._call(self.r.hgetall, self._k(code, "a", number, rnd)).items()}

    def _clear(self, code, number, rnd):
        self._call(self.r.delete, self._k(code, "a", number, rnd))

    def _publish(self, code):
        self._call(self.r.publish, self.channel, code)

    def _vote(self, code, voter, number, rnd, value, change=False):
        keys = [self._k(code), self._k(code, "voters"), self._k(code, "a", number, rnd)]
        args = [voter, number, rnd, repr(float(value)), self.max_students, int(change)]
        return self._call(self._vote_lua, keys=keys, args=args)

    def _join(self, code, voter):
        keys = [self._k(code), self._k(code, "voters")]
        return self._call(self._join_lua, keys=keys, args=[voter, self.max_students])
