"""Rooms in Redis, shared by every replica behind nginx: the same `RoomStore` rules, with the one-vote rule, a room's
creation, a lecturer's step, a join and dropping idle rooms each one atomic Lua script, and every key carrying the
room's expiry. A sorted set scores each room by its last step (closed rooms a billion seconds lower: dropped first);
new rooms and questions stop at MEMORY_SHARE of maxmemory, so votes in open rooms never meet a full Redis."""
from __future__ import annotations

import math
import time

from rnnviz.rooms.base import RoomStore
from rnnviz.rooms.room import EVICT_IDLE_S, MEMORY_SHARE, Full, NoRoom, Question, StoreDown

CLOSED = 1e9  # a closed room's score is its last step less this: the first dropped

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
# KEYS: meta hash, rooms zset; ARGV: token hash, expiry (unix seconds, exact and rounded up), voter secret, now, code
CREATE_LUA = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'token', ARGV[1], 'q', 0, 'round', 1, 'phase', 'waiting', 'expires', ARGV[2],
           'secret', ARGV[4], 'born', ARGV[5], 'last', ARGV[5])
redis.call('EXPIREAT', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[6])
return 1
"""
# A lecturer's step. KEYS: meta hash, questions list, rooms zset; ARGV: the room's key (prefix..code), code, now,
# idle_s, ttl_s, question json ('' for none), then meta field/value pairs. Every key of the room lives idle_s from now
# (ttl_s after it opened at most). Returns the question count, or -1 for no room. Its answers' keys are named here,
# not in KEYS: one Redis, not a cluster.
STEP_LUA = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local now = tonumber(ARGV[3])
local born = tonumber(redis.call('HGET', KEYS[1], 'born') or ARGV[3])
local exp = math.min(born + tonumber(ARGV[5]), now + tonumber(ARGV[4]))
if ARGV[6] ~= '' then redis.call('HSET', KEYS[1], 'q', redis.call('RPUSH', KEYS[2], ARGV[6])) end
for i = 7, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('HSET', KEYS[1], 'expires', string.format('%.6f', exp), 'last', ARGV[3])
local at = math.ceil(exp)
redis.call('EXPIREAT', KEYS[1], at)
redis.call('EXPIREAT', KEYS[2], at)
redis.call('EXPIREAT', ARGV[1] .. ':voters', at)
for n = 1, tonumber(redis.call('HGET', KEYS[1], 'q')) do
  for r = 1, 2 do redis.call('EXPIREAT', ARGV[1] .. ':a:' .. n .. ':' .. r, at) end
end
local score = now
if redis.call('HGET', KEYS[1], 'phase') == 'closed' then score = now - 1e9 end
redis.call('ZADD', KEYS[3], score, ARGV[2])
return redis.call('LLEN', KEYS[2])
"""
# Drop rooms scored at or below a cutoff (closed first, then the longest idle; rooms already expired too), at most
# ARGV[3] of them, never ARGV[4]. KEYS: rooms zset; ARGV: key prefix, cutoff, how many, the room to keep.
DROP_LUA = """
local dropped = 0
for _, code in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[2], 'LIMIT', 0, tonumber(ARGV[3]) + 1)) do
  if code ~= ARGV[4] and dropped < tonumber(ARGV[3]) then
    local room = ARGV[1] .. code
    local q = tonumber(redis.call('HGET', room, 'q') or '0')
    for n = 1, q do redis.call('DEL', room .. ':a:' .. n .. ':1', room .. ':a:' .. n .. ':2') end
    redis.call('DEL', room, room .. ':q', room .. ':voters')
    redis.call('ZREM', KEYS[1], code)
    dropped = dropped + 1
  end
end
return dropped
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

    def __init__(self, url: str, *args, prefix: str = "rnnviz:room:", memory_share: float = MEMORY_SHARE, **kw):
        import redis  # only here: the in-process store needs no client

        super().__init__(*args, **kw)
        self._errors = (redis.exceptions.RedisError, OSError)  # down, timed out, loading
        self._oom = redis.exceptions.OutOfMemoryError  # maxmemory reached (noeviction: nothing is dropped by Redis)
        self.memory_share = memory_share
        self.r = redis.Redis.from_url(url, decode_responses=True, socket_timeout=5, socket_connect_timeout=2,
                                      health_check_interval=10)
        self.prefix, self.url = prefix, url
        self.channel = prefix + "changed"  # a room's code, published after each change phones see (rnnviz.rooms.hub)
        self._asked: dict[tuple[str, int], Question] = {}
        self._vote_lua, self._join_lua = self.r.register_script(VOTE_LUA), self.r.register_script(JOIN_LUA)
        self._create_lua, self._step_lua = self.r.register_script(CREATE_LUA), self.r.register_script(STEP_LUA)
        self._drop_lua, self.rooms = self.r.register_script(DROP_LUA), prefix + "rooms"

    def _k(self, code: str, *part) -> str:
        return self.prefix + ":".join((code, *map(str, part)))

    def _call(self, fn, *args, **kw):
        try:
            return fn(*args, **kw)
        except self._oom:
            raise Full("The class's shared store is full right now; open rooms keep their answers. Please try again "
                       "in a minute.") from None
        except self._errors:
            raise StoreDown("The class's shared store is not answering right now; it reconnects by itself. "
                            "Try again in a few seconds.") from None

    def _create(self, code, token_hash, secret, now):
        expires = self._expires(now, now)
        args = [token_hash, repr(expires), math.ceil(expires), secret, repr(now), code]
        return bool(self._call(self._create_lua, keys=[self._k(code), self.rooms], args=args))

    def _hit(self, key, window_s):
        def hit():
            with self.r.pipeline() as p:
                p.incr(self.prefix + key)
                p.expire(self.prefix + key, math.ceil(window_s), nx=True)
                return p.execute()[0]
        return self._call(hit)

    def _full(self, question: bool) -> bool:
        if not question and self._call(self.r.zcard, self.rooms) >= self.max_rooms:
            return True
        mem = self._call(self.r.info, "memory")
        return bool(mem.get("maxmemory")) and mem["used_memory"] >= self.memory_share * mem["maxmemory"]

    def _space(self, question, keep=""):
        if not self._full(question):
            return True
        for _ in range(10):  # up to 1,000 rooms dropped, a hundred at a time
            cutoff = repr(time.time() - EVICT_IDLE_S)
            if not self._call(self._drop_lua, keys=[self.rooms], args=[self.prefix, cutoff, 100, keep]):
                return False
            if not self._full(question):
                return True
        return False

    def _meta(self, code):
        m = self._call(self.r.hgetall, self._k(code))
        if not m or "expires" not in m:
            return None
        return {**m, "expires": float(m["expires"])}

    def _set(self, code, question=None, **meta):
        args = [self._k(code), code, repr(time.time()), self.idle_s, self.ttl_s,
                question.to_json() if question is not None else "", *[x for kv in meta.items() for x in kv]]
        n = self._call(self._step_lua, keys=[self._k(code), self._k(code, "q"), self.rooms], args=args)
        if n < 0:
            raise NoRoom("This room has expired.")
        return n

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
