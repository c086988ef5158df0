"""The room store, the same test bodies against the in-process store (fast tier) and a real redis-server started
here (slow tier): open, vote, one vote per voter, limits, bad votes refused, expiry, the token, and an outage."""
import shutil
import socket
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from rnnviz.rooms.codes import ALPHABET, CODE_LENGTH, clean_code
from rnnviz.rooms.redis_store import RedisStore
from rnnviz.rooms.room import BadVoter, Full, NoRoom, NotAllowed, Question, Refused, StoreDown
from rnnviz.rooms.store import MemoryStore

CHOICE = Question("Which cell still holds x1?", "choice", 1.0, ("vanilla", "LSTM", "GRU"))
NUMBER = Question("h3 for these weights?", "number", 0.25, lo=-1.0, hi=1.0)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_redis(port: int, workdir) -> subprocess.Popen:
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(workdir)], stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return proc
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError("redis-server did not start")


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory):
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server not installed")
    port, workdir = free_port(), tmp_path_factory.mktemp("redis")
    proc = start_redis(port, workdir)
    server = {"url": f"redis://127.0.0.1:{port}/0", "port": port, "dir": workdir, "proc": proc}
    yield server
    server["proc"].terminate()  # the one running now: a test restarts it (a new process)
    server["proc"].wait(10)


class Clock:
    """The in-process store's clock, moved on by the test instead of slept through (the fast tier waits for
    nothing); Redis keeps its own time, so its variant sleeps for real."""

    def __init__(self):
        self.now = time.time()

    def time(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.slow)])
def make(request, monkeypatch):
    """A factory of stores of one kind (each Redis store on its own prefix, so tests do not meet); its `sleep`
    lets the stores' time pass."""
    if request.param == "memory":
        import rnnviz.rooms.base
        import rnnviz.rooms.store

        clock = Clock()
        for module in (rnnviz.rooms.base, rnnviz.rooms.store):
            monkeypatch.setattr(module, "time", clock)

        def factory(**kw):
            return MemoryStore(**kw)

        factory.sleep = clock.sleep
        return factory
    server = request.getfixturevalue("redis_server")
    prefix = f"test:{request.node.name}:{time.monotonic_ns()}:"

    def factory(**kw):
        return RedisStore(server["url"], prefix=prefix, **kw)

    factory.sleep = time.sleep
    return factory


def test_a_room_has_a_code_hard_to_guess_and_students_see_the_question(make):
    s = make()
    codes = {s.open_room()[0] for _ in range(20)}
    assert len(codes) == 20 and all(len(c) == CODE_LENGTH and set(c) <= set(ALPHABET) for c in codes)
    code, token = s.open_room()
    assert len(token) >= 32
    assert s.join(code, s.issue_voter(code, "v1")).phase == "waiting"
    assert s.ask(code, token, CHOICE) == 1
    v = s.join(code.lower(), s.issue_voter(code, "v1"))  # a code typed in lower case is the same room
    assert (v.number, v.round, v.phase, v.question, v.students, v.answered) == (1, 1, "open", CHOICE, 1, 0)
    light = s.view(code, counts=False)  # a phone's refresh: the question without the counts
    assert (light.number, light.phase, light.question, light.students) == (1, "open", CHOICE, 0)


def test_votes_are_counted_once_per_voter_per_round(make):
    s = make()
    code, token = s.open_room()
    s.ask(code, token, CHOICE)
    for i, a in enumerate([1, 1, 2, 0]):
        s.vote(code, s.issue_voter(code, f"v{i}"), 1, 1, a)
    with pytest.raises(Refused, match="already answered"):
        s.vote(code, s.issue_voter(code, "v0"), 1, 1, 2)
    assert s.view(code).answered == 4
    assert sorted(s.reveal(code, token)) == [0, 1, 1, 2]
    with pytest.raises(Refused, match="ended"):
        s.vote(code, s.issue_voter(code, "v9"), 1, 1, 1)  # after reveal, round 1 is closed
    s.revote(code, token)
    assert (s.view(code).round, s.view(code).answered) == (2, 0)
    s.vote(code, s.issue_voter(code, "v0"), 1, 2, 1)  # a new round: the same voter answers again
    with pytest.raises(Refused, match="moved on"):
        s.vote(code, s.issue_voter(code, "v1"), 1, 1, 1)  # a phone still showing round 1
    assert s.answers(code, token, 1, 2) == [1.0]
    rows = s.export(code, token)
    assert {(r["round"], r["answer"], r["count"]) for r in rows} == {(1, "vanilla", 1), (1, "LSTM", 2), (1, "GRU", 1),
                                                                      (2, "LSTM", 1)}
    assert all(r["truth"] == "LSTM" for r in rows)


def test_a_typed_code_is_read_as_a_phone_types_it():
    assert clean_code(" ab3 de-f\t") == "AB3DEF"  # case, spaces, a hyphen
    with pytest.raises(NoRoom):
        clean_code("abc de")  # five characters


def test_a_voter_s_own_answer_is_read_back_for_its_round_only(make):
    """A phone that reloads is a new session with the same voter token: it shows the answer the room holds, not the
    question again (the walk: a reload brought the buttons back, and a tap was refused in a message gone at once)."""
    s = make()
    code, token = s.open_room()
    s.ask(code, token, CHOICE)
    me, other = s.issue_voter(code, "me"), s.issue_voter(code, "other")
    assert s.mine(code, me, 1, 1) is None
    s.vote(code, me, 1, 1, 2)
    assert (s.mine(code, me, 1, 1), s.mine(code, other, 1, 1), s.mine(code, me, 1, 2)) == (2.0, None, None)
    s.reveal(code, token)
    s.revote(code, token)
    s.vote(code, me, 1, 2, 0)
    assert (s.mine(code, me, 1, 1), s.mine(code, me, 1, 2)) == (2.0, 0.0)
    with pytest.raises(BadVoter):
        s.mine(code, me[:-1] + ("A" if me[-1] != "A" else "B"), 1, 1)  # an edited token reads nothing


def test_concurrent_votes_from_one_voter_count_once(make):
    s = make()
    code, token = s.open_room()
    s.ask(code, token, NUMBER)

    def vote(i):
        try:
            s.vote(code, s.issue_voter(code, "same" if i % 2 else f"v{i}"), 1, 1, 0.5)
            return True
        except Refused:
            return False
    with ThreadPoolExecutor(8) as ex:
        ok = list(ex.map(vote, range(40)))
    assert sum(ok) == 21 and s.view(code).answered == 21


def test_bad_votes_are_refused_with_a_message(make):
    s = make()
    code, token = s.open_room()
    s.ask(code, token, NUMBER)
    for bad in (1.5, float("nan"), "abc", None):
        with pytest.raises(Refused, match="number"):
            s.vote(code, s.issue_voter(code, "v"), 1, 1, bad)
    s.ask(code, token, CHOICE)
    for bad in (3, -1, True, "1"):
        with pytest.raises(Refused, match="not one of the choices"):
            s.vote(code, s.issue_voter(code, "v"), 2, 1, bad)
    assert s.view(code).answered == 0
    with pytest.raises(NoRoom):
        s.join("NOPE!!", "v")
    with pytest.raises(NoRoom):
        s.join("ABCDEF" if "ABCDEF" != code else "ABCDEG", "v")


def test_a_vote_needs_a_voter_token_the_room_issued(make):
    s = make()
    code, token = s.open_room()
    other, _ = s.open_room()
    s.ask(code, token, CHOICE)
    mine = s.issue_voter(code)
    vid, sig = mine.split(".")
    assert s.issue_voter(code, "cookie") == s.issue_voter(code, "cookie") != s.issue_voter(other, "cookie")
    assert s.issue_voter(code) != mine  # without a seed, a fresh voter each time
    forged = ["v1", "", f"{vid}x.{sig}", f"{vid}.{sig[:-1]}A" if sig[-1] != "A" else f"{vid}.{sig[:-1]}B",
              s.issue_voter(other), "." + sig, mine + "." + sig, "x" * 100]
    for bad in forged:  # made up, edited, or given out by another room
        with pytest.raises(BadVoter, match="not given out by this room"):
            s.vote(code, bad, 1, 1, 1)
        with pytest.raises(BadVoter):
            s.join(code, bad)
    assert (s.view(code).answered, s.view(code).students) == (0, 0)  # nothing stored
    s.vote(code, mine, 1, 1, 1)
    with pytest.raises(Refused, match="already answered"):
        s.vote(code, mine, 1, 1, 2)
    assert s.answers(code, token, 1, 1) == [1.0]


def test_only_the_token_holder_steers(make):
    s = make()
    code, token = s.open_room()
    other_code, other_token = s.open_room()
    for call in (lambda t: s.ask(code, t, CHOICE), lambda t: s.reveal(code, t), lambda t: s.close(code, t),
                 lambda t: s.answers(code, t, 1, 1), lambda t: s.export(code, t)):
        for wrong in ("", "guess", other_token):
            with pytest.raises(NotAllowed):
                call(wrong)
    s.ask(code, token, CHOICE)
    with pytest.raises(NotAllowed):
        s.revote(code, other_token)
    s.close(code, token)
    assert s.view(code).phase == "closed"
    with pytest.raises(Refused, match="closed"):
        s.ask(code, token, CHOICE)


def test_a_room_holds_a_bounded_number_of_students(make):
    s = make(max_students=5)
    code, token = s.open_room()
    s.ask(code, token, CHOICE)
    for i in range(5):
        s.vote(code, s.issue_voter(code, f"v{i}"), 1, 1, 0)
    with pytest.raises(Full, match="full"):
        s.join(code, s.issue_voter(code, "late"))
    with pytest.raises(Full, match="full"):
        s.vote(code, s.issue_voter(code, "late"), 1, 1, 0)
    s.join(code, s.issue_voter(code, "v0"))  # one already in stays in
    assert s.view(code).students == 5


def test_rooms_and_answers_expire(make):
    s = make(ttl_s=1)
    code, token = s.open_room()
    s.ask(code, token, CHOICE)
    s.vote(code, s.issue_voter(code, "v"), 1, 1, 0)
    make.sleep(2.1)
    with pytest.raises(NoRoom):
        s.view(code)


@pytest.mark.slow
def test_a_redis_outage_is_a_message_and_the_store_reconnects(redis_server):
    s = RedisStore(redis_server["url"], prefix=f"outage:{time.monotonic_ns()}:")
    code, token = s.open_room()
    s.ask(code, token, CHOICE)
    s.vote(code, s.issue_voter(code, "v0"), 1, 1, 1)
    redis_server["proc"].terminate()
    redis_server["proc"].wait(10)
    with pytest.raises(StoreDown, match="not answering"):
        s.view(code)
    with pytest.raises(StoreDown):
        s.vote(code, s.issue_voter(code, "v1"), 1, 1, 1)
    redis_server["proc"] = start_redis(redis_server["port"], redis_server["dir"])  # nothing persisted: a new start
    with pytest.raises(NoRoom):
        s.view(code)  # the room did not survive (no persistence), but the store is back
    code, token = s.open_room()
    s.ask(code, token, CHOICE)
    s.vote(code, s.issue_voter(code, "v1"), 1, 1, 1)
    assert s.view(code).answered == 1


def test_one_address_opens_a_bounded_number_of_rooms_and_others_still_open(make):
    s = make(rooms_per_address=(3, 3600))
    for _ in range(3):
        s.open_room("203.0.113.7")
    with pytest.raises(Full, match="This address has opened 3 rooms"):
        s.open_room("203.0.113.7")
    code, token = s.open_room("198.51.100.2")  # a lecturer elsewhere is not held up by it
    assert s.ask(code, token, CHOICE) == 1


def test_past_the_room_cap_closed_rooms_go_first_and_an_open_room_never(make):
    s = make(max_rooms=3)
    (a, ta), (b, tb), (c, _) = s.open_room(), s.open_room(), s.open_room()
    s.ask(a, ta, CHOICE)
    s.vote(a, s.issue_voter(a, "v0"), 1, 1, 1)
    s.close(b, tb)
    d, _ = s.open_room()  # the closed room makes way
    with pytest.raises(NoRoom):
        s.view(b)
    with pytest.raises(Full, match="as many class rooms as it can"):
        s.open_room()  # a, c and d are in use: refused, with why
    assert {s.view(x).phase for x in (c, d)} == {"waiting"}
    s.vote(a, s.issue_voter(a, "v1"), 1, 1, 0)  # the open room keeps its answers and takes more
    assert s.view(a).answered == 2


def test_past_the_room_cap_the_longest_idle_room_makes_way(make, monkeypatch):
    import rnnviz.rooms.redis_store
    import rnnviz.rooms.store

    for module in (rnnviz.rooms.store, rnnviz.rooms.redis_store):
        monkeypatch.setattr(module, "EVICT_IDLE_S", 0.5)
    s = make(max_rooms=2)
    (a, ta), (b, _) = s.open_room(), s.open_room()
    make.sleep(0.7)
    s.ask(a, ta, CHOICE)  # a lecturer's step: a is in use again; b has been idle
    c, _ = s.open_room()
    with pytest.raises(NoRoom):
        s.view(b)
    assert s.view(a).question == CHOICE and s.view(c).phase == "waiting"


def test_an_idle_room_expires_and_each_lecturer_step_keeps_it(make):
    s = make(idle_s=2, ttl_s=3600)
    code, token = s.open_room()
    make.sleep(1.5)
    s.ask(code, token, CHOICE)  # a step: two more seconds from now
    s.vote(code, s.issue_voter(code, "v"), 1, 1, 1)
    make.sleep(1.8)  # 3.3 s after opening: past its first expiry, within the one the step gave
    assert s.view(code).answered == 1
    make.sleep(2.3)
    with pytest.raises(NoRoom):
        s.view(code)


def test_past_the_question_cap_a_closed_room_makes_way_else_a_message():
    s = MemoryStore(max_questions=3)
    (a, ta), (b, tb) = s.open_room(), s.open_room()
    for _ in range(2):
        s.ask(a, ta, CHOICE)
    s.ask(b, tb, NUMBER)
    with pytest.raises(Full, match="as many class questions"):
        s.ask(a, ta, CHOICE)
    assert s.view(a).number == 2 and s.view(b).number == 1  # refused, nothing lost
    s.close(b, tb)
    assert s.ask(a, ta, CHOICE) == 3


@pytest.mark.slow
def test_redis_stops_new_rooms_and_questions_before_it_fills_and_votes_go_on(redis_server):
    import redis

    r = redis.Redis.from_url(redis_server["url"])
    prefix = f"mem:{time.monotonic_ns()}:"
    roomy, tight = RedisStore(redis_server["url"], prefix=prefix), RedisStore(redis_server["url"], prefix=prefix,
                                                                               memory_share=1e-9)
    code, token = roomy.open_room()
    roomy.ask(code, token, CHOICE)
    done, done_token = roomy.open_room()
    roomy.close(done, done_token)
    r.config_set("maxmemory", "1gb")
    try:
        with pytest.raises(Full, match="as many class rooms"):
            tight.open_room()  # above its share: the closed room is dropped, and still no space
        with pytest.raises(NoRoom):
            roomy.view(done)
        with pytest.raises(Full, match="as many class questions"):
            tight.ask(code, token, NUMBER)
        roomy.vote(code, roomy.issue_voter(code, "v0"), 1, 1, 1)  # the open room goes on
        assert roomy.view(code).answered == 1 and roomy.view(code).question == CHOICE
    finally:
        r.config_set("maxmemory", "0")


@pytest.mark.slow
def test_a_full_redis_refuses_with_a_message_and_loses_no_room(redis_server):
    import redis

    r = redis.Redis.from_url(redis_server["url"])
    s = RedisStore(redis_server["url"], prefix=f"oom:{time.monotonic_ns()}:")
    code, token = s.open_room()
    s.ask(code, token, CHOICE)
    s.vote(code, s.issue_voter(code, "v0"), 1, 1, 1)
    assert r.config_get("maxmemory-policy")["maxmemory-policy"] == "noeviction"
    r.config_set("maxmemory", "1")
    try:
        with pytest.raises(Full, match="store is full right now"):
            s.vote(code, s.issue_voter(code, "v1"), 1, 1, 0)
    finally:
        r.config_set("maxmemory", "0")
    assert s.view(code).answered == 1
    s.vote(code, s.issue_voter(code, "v1"), 1, 1, 0)
    assert s.view(code).answered == 2
