"""The phones' service (rnnviz/rooms/live.py) over real HTTP on loopback, with the in-process store: a phone joins,
is pushed the question, votes, changes its answer, is pushed the reveal with whether it was right; joins are paced
per address; a locked room takes no new phone; a cleared round is pushed as no answer; a forged token gets nothing."""
import http.client
import json
import queue
import socket
import threading
import time

import pytest

from rnnviz.processes import free_ports
from rnnviz.rooms.live import serve_in_thread
from rnnviz.rooms.pace import PER_ADDRESS, Pace
from rnnviz.rooms.room import Question
from rnnviz.rooms.store import MemoryStore

CHOICE = Question("Which cell still holds x1?", "choice", 1.0, ("vanilla", "LSTM", "GRU"))
NUMBER = Question("h3?", "number", 0.25, lo=-1.0, hi=1.0, tol=0.05)


def start(first_port=8720):
    store = MemoryStore()
    port = free_ports("127.0.0.1", first_port, 1)[0]
    serve_in_thread(store, "127.0.0.1", port)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            if request(port, "GET", "/_rnnviz/_stcore/health")[0] == 200:
                break
        except OSError:
            time.sleep(0.05)
    return store, port


@pytest.fixture(scope="module")
def live():
    return start()


def request(port, method, path, body=None, headers=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    c.request(method, path, body=None if body is None else json.dumps(body), headers=headers or {})
    r = c.getresponse()
    raw = r.read()
    c.close()
    return r.status, (json.loads(raw) if r.getheader("content-type", "").startswith("application/json") else raw)


class Phone:
    """A phone listening to its room's events in a thread; `next()` is the next pushed room."""

    def __init__(self, port, code, me):
        self.events: queue.Queue = queue.Queue()
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.conn.request("GET", f"/_rnnviz/room/{code}/events?me={me}")
        self.resp = self.conn.getresponse()
        self.sock = self.conn.sock
        assert self.resp.status == 200 and self.resp.getheader("content-type").startswith("text/event-stream")
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        try:
            for line in self.resp:
                if line.startswith(b"data: "):
                    self.events.put(json.loads(line[6:]))
        except (OSError, ValueError):
            pass

    def next(self, timeout=5):
        return self.events.get(timeout=timeout)

    def close(self):
        self.sock.shutdown(socket.SHUT_RDWR)  # wakes the reading thread at once (close alone waited for a heartbeat)
        self.conn.close()


def join(port, code, me=None):
    return request(port, "POST", f"/_rnnviz/room/{code}/join", {"me": me})


def test_a_phone_is_pushed_the_question_votes_changes_and_is_pushed_the_reveal(live):
    store, port = live
    code, token = store.open_room()
    status, got = join(port, code)
    assert status == 200
    me = got["me"]
    phone = Phone(port, code, me)
    try:
        assert phone.next()["phase"] == "waiting"
        t0 = time.monotonic()
        store.ask(code, token, CHOICE)
        asked = phone.next()
        assert time.monotonic() - t0 < 1.0  # pushed, not polled
        assert (asked["phase"], asked["question"]["options"], asked["mine"]) == ("open", ["vanilla", "LSTM", "GRU"],
                                                                                 None)
        assert "truth" not in asked  # the answer is not on any phone before the reveal
        vote = {"me": me, "number": 1, "round": 1}
        assert request(port, "POST", f"/_rnnviz/room/{code}/vote", {**vote, "answer": 0})[0] == 200
        assert request(port, "POST", f"/_rnnviz/room/{code}/vote", {**vote, "answer": 1})[0] == 200  # changed
        assert store.view(code).answered == 1 and store.answers(code, token, 1, 1) == [1.0]
        store.reveal(code, token)
        shown = phone.next()
        assert (shown["phase"], shown["truth"], shown["mine"], shown["right"]) == ("revealed", "LSTM", 1, True)
        status, got = request(port, "POST", f"/_rnnviz/room/{code}/vote", {**vote, "answer": 2})
        assert status == 409 and "ended" in got["message"]  # no change after the reveal
        assert join(port, code, me) == (200, {"me": me})  # a reload: the same voter, counted once
        assert store.view(code).students == 1
    finally:
        phone.close()


def test_a_forged_or_other_rooms_token_gets_nothing(live):
    store, port = live
    code, token = store.open_room()
    other, _ = store.open_room()
    store.ask(code, token, NUMBER)
    me = join(port, other)[1]["me"]
    assert request(port, "GET", f"/_rnnviz/room/{code}/events?me={me}")[0] == 403
    status, got = request(port, "POST", f"/_rnnviz/room/{code}/vote", {"me": me, "number": 1, "round": 1,
                                                                        "answer": 0.2})
    assert status == 403 and store.view(code).answered == 0
    assert join(port, code, me)[0] == 200  # another room's token is no token here: a new voter, given one
    assert request(port, "GET", "/_rnnviz/room/NOTACODE/events?me=x")[0] == 404


def test_joins_are_paced_per_address_and_a_phone_already_in_is_not():
    store, port = start(8725)  # a server of its own: its address's joins are counted from zero
    code, _ = store.open_room()
    first = join(port, code)[1]["me"]
    codes = [join(port, code)[0] for _ in range(PER_ADDRESS[1] + 5)]
    assert codes.count(200) < PER_ADDRESS[1] + 3 and codes[-1] == 429  # a script from one address is slowed down
    status, got = join(port, code)
    assert status == 429 and "trying again" in got["message"] and got["retry"] > 0
    assert store.view(code).students == codes.count(200) + 1
    assert join(port, code, first) == (200, {"me": first})  # a reload of a phone already in is never held back


def test_a_locked_room_refuses_a_new_phone_with_a_message(live):
    store, _ = live
    code, token = store.open_room()
    known = store.issue_voter(code)
    store.join(code, known)
    store.lock(code, token)
    with pytest.raises(Exception, match="locked"):
        store.join(code, store.issue_voter(code))
    assert store.join(code, known).students == 1  # a phone already in stays in
    store.lock(code, token, False)
    assert store.join(code, store.issue_voter(code)).students == 2


def test_a_cleared_round_is_pushed_as_no_answer(live):
    store, port = live
    code, token = store.open_room()
    store.ask(code, token, NUMBER)
    me = join(port, code)[1]["me"]
    request(port, "POST", f"/_rnnviz/room/{code}/vote", {"me": me, "number": 1, "round": 1, "answer": 0.25})
    phone = Phone(port, code, me)
    try:
        assert phone.next()["mine"] == 0.25
        store.clear(code, token)
        assert phone.next()["mine"] is None and store.view(code).answered == 0
    finally:
        phone.close()


def test_a_bucket_admits_its_burst_then_its_rate():
    now = [0.0]
    p = Pace(2.0, 3, clock=lambda: now[0])
    assert [p.take("a") for _ in range(3)] == [0, 0, 0] and p.take("a") == pytest.approx(0.5)
    assert p.take("b") == 0  # another address has its own
    now[0] += 0.5
    assert p.take("a") == 0 and p.take("a") > 0
