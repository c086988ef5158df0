"""Each visitor's share of a server: uploaded files a session does not use are freed, accepted models share a
per-server budget (ui/upload.py), and reruns are paced per visitor (ui/limits.py)."""
import pytest
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
from streamlit.runtime.uploaded_file_manager import UploadedFileRec

from ui import upload
from ui.upload import FILE_BYTES, LOOSE_GRACE_S, MODEL_SERVER_BYTES, UploadGuard

MIB = 2**20


def put(mgr, session: str, file_id: str, size: int) -> None:
    """What a PUT to /_stcore/upload_file/<session>/<file_id> leaves in Streamlit's upload manager."""
    mgr.add_file(session, UploadedFileRec(file_id, f"{file_id}.bin", "application/octet-stream", b"\0" * size))


def held(mgr) -> int:
    return sum(len(r.data) for files in mgr.file_storage.values() for r in files.values())


@pytest.fixture
def file_bytes(monkeypatch) -> int:
    """The loose-file budgets scaled down with the largest file, ratios kept: the floods below send 1/64 of the
    real bytes (840 MiB of zeros cost a busy test worker seconds of page faults, and the rule is the same)."""
    small = FILE_BYTES // 64
    for name in ("LOOSE_SESSION_BYTES", "LOOSE_SERVER_BYTES"):
        monkeypatch.setattr(upload, name, getattr(upload, name) // 64)
    # no file box ever returned these files, so letting them go closes no UploadedFile: the walk over every object
    # that does so (tens of ms on a server) costs 0.2 s per sweep in a test worker that has run hundreds of pages
    monkeypatch.setattr(upload.gc, "get_objects", list)
    return small


def test_a_flood_of_made_up_files_is_removed_down_to_the_budget_at_once(file_bytes):
    mgr, now = MemoryUploadedFileManager("/_stcore/upload_file"), [0.0]
    guard = UploadGuard(mgr, clock=lambda: now[0])
    for i in range(40):  # one session, 40 files of 21 MiB under ids no file box ever named
        put(mgr, "attacker", f"made-up-{i}", file_bytes)
        guard.sweep()
    assert held(mgr) <= upload.LOOSE_SESSION_BYTES  # 840 MiB sent, at most two files' worth kept
    now[0] += LOOSE_GRACE_S + 1
    guard.sweep()
    assert held(mgr) == 0  # and those only for a few seconds


def test_the_files_a_session_s_boxes_hold_stay_and_the_server_wide_loose_budget_holds(file_bytes):
    mgr, now = MemoryUploadedFileManager("/_stcore/upload_file"), [0.0]
    guard = UploadGuard(mgr, clock=lambda: now[0])
    put(mgr, "student", "weights", 20 * MIB)
    put(mgr, "student", "card", 1000)
    guard.hold("student", {"weights", "card"})
    for s in range(10):  # ten sessions, each with one loose file
        put(mgr, f"s{s}", "x", file_bytes)
    guard.sweep()
    now[0] += LOOSE_GRACE_S + 1
    guard.sweep()
    assert mgr.get_files("student", ["weights", "card"])[0].data  # what the boxes hold is never removed
    assert held(mgr) == 20 * MIB + 1000
    mgr.remove_session_files("student")  # the session ends: Streamlit removes its files; the guard forgets it
    guard.sweep()
    assert guard.held == {} and guard.models == {}


def test_accepted_models_share_a_per_server_budget():
    guard = UploadGuard(MemoryUploadedFileManager("/_stcore/upload_file"))
    cost = 75 * MIB  # what an accepted 19.6 MiB model cost a session (files, arrays, caches)
    taken = 0
    for s in range(8):
        if guard.model_room(f"s{s}", cost):
            guard.keep_model(f"s{s}", cost)
            taken += 1
    assert taken == MODEL_SERVER_BYTES // cost < 8
    assert guard.model_room("s0", cost)  # a session replacing its own model is not counted twice


def test_a_visitor_looping_reruns_is_paced_and_others_are_not():
    from ui.limits import BURST, RERUNS_PER_S, Pacer

    now = [0.0]
    pacer = Pacer(clock=lambda: now[0])
    waits = [pacer.take("looper") for _ in range(int(BURST))]
    assert max(waits) == 0  # a burst goes through
    waits = [pacer.take("looper") for _ in range(10)]
    assert waits[-1] > waits[0] > 0  # then each rerun waits longer
    assert pacer.take("bystander") == 0  # another visitor is not slowed
    looped = 0.0
    for _ in range(200):  # looping as fast as it is let: its reruns average RERUNS_PER_S a second
        wait = pacer.take("looper2") if now[0] else 0
        now[0] += max(wait, 0.01)
        looped += 1
    assert looped / now[0] < RERUNS_PER_S * 1.3


def test_a_fragment_s_own_rerun_is_paced_once_and_a_whole_run_is_left_to_app_py(monkeypatch):
    """A fragment's own rerun skips app.py, where every other run is paced: it takes one token itself; a fragment
    run inside it takes none, and in a whole run (app.py has paced it) none is taken."""
    import types

    import ui.limits as limits

    taken = []
    monkeypatch.setattr(limits, "pace_reruns", lambda: taken.append(1))
    ctx = types.SimpleNamespace(fragment_ids_this_run=["outer"])
    monkeypatch.setattr(limits, "get_script_run_ctx", lambda: ctx)
    inner = limits.paced(lambda: "inner ran")
    outer = limits.paced(lambda: inner())
    assert outer() == "inner ran" and taken == [1]  # the fragment rerun: one token, the nested fragment none
    assert inner() == "inner ran" and taken == [1, 1]  # a nested fragment rerun on its own: paced
    ctx.fragment_ids_this_run = []
    assert outer() == "inner ran" and taken == [1, 1]  # a whole run: paced by app.py, not here


def test_every_page_fragment_is_paced():
    """No page or ui module builds an unpaced fragment (st.fragment directly): see ui.limits.fragment."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    files = list((root / "app_pages").glob("*.py")) + [p for p in (root / "ui").rglob("*.py") if p.name != "limits.py"]
    direct = [p.name for p in files if "st.fragment" in p.read_text()]
    assert not direct, f"use ui.limits.fragment, not st.fragment, in {direct}"
    assert any("@fragment" in p.read_text() for p in files)


def loop(pacer, now, visitors, address, seconds, bystander=None):
    """Visitors of one address rerun as fast as they are let, each rerun 10 ms (and a bystander of that address once
    a second): how many reruns the looping visitors made, and the bystander's waits."""
    at = {v: now[0] for v in visitors}
    count, waits, next_by = 0, [], now[0]
    end = now[0] + seconds
    while now[0] < end:
        v = min(at, key=at.get)
        now[0] = at[v]
        if bystander and now[0] >= next_by:
            waits.append(pacer.take(bystander, address))
            next_by += 1.0
        at[v] = now[0] + pacer.take(v, address) + 0.01
        count += 1
    return count, waits


def test_fresh_cookies_from_one_address_share_its_rate_and_a_bystander_there_waits_not():
    """Four clients of one address looping with a cookie each (issue 49, finding 3: 31 reruns a second between
    them) get the address's rate together, beside a burst each; a student of that address rerunning once a second
    never waits, nor does a visitor of another address."""
    from ui.limits import ADDRESS_RERUNS_PER_S, BURST, RERUNS_PER_S, Pacer

    now = [0.0]
    pacer = Pacer(clock=lambda: now[0])
    count, waits = loop(pacer, now, [f"fresh{i}" for i in range(4)], "10.0.0.1", 60, bystander="student")
    assert count / 60 < ADDRESS_RERUNS_PER_S * 1.1 + 4 * BURST / 60  # not 4 x RERUNS_PER_S
    assert max(waits) == 0
    alone, _ = loop(pacer, now, ["elsewhere"], "10.0.0.2", 60)
    assert alone / 60 > RERUNS_PER_S * 0.9  # another address keeps a visitor's full rate


def test_a_client_taking_a_fresh_cookie_per_session_gets_no_fresh_burst_each_time():
    from ui.limits import BURST, MIN_BURST, Pacer

    now = [0.0]
    pacer = Pacer(clock=lambda: now[0])
    free = 0
    for i in range(200):  # 200 new cookies in 20 s, each rerunning until it would wait
        now[0] += 0.1
        while pacer.take(f"fresh{i}", "10.0.0.1") == 0:
            free += 1
    assert free < 200 * MIN_BURST + 4 * BURST  # not 200 x BURST
    assert pacer.take("first", "10.0.0.9") == 0  # a lone visitor elsewhere still has its whole burst


def test_nginx_tells_each_session_its_address_and_the_pacer_reads_it(monkeypatch):
    """The websocket's location passes the address nginx saw (its own proxy_set_header lines replace the server's,
    so it must say so itself), and a session's reruns are charged to that address."""
    import re
    import types
    from pathlib import Path

    import ui.limits as limits

    template = (Path(__file__).resolve().parents[1] / "deploy" / "nginx.conf.template").read_text()
    stream = re.search(r"location /_stcore/stream \{(.*?)\n        \}", template, re.S).group(1)
    assert re.search(r"proxy_set_header X-Real-IP \$remote_addr;", stream)
    context = types.SimpleNamespace(cookies={"rnnviz_visitor": "v1"}, headers={"X-Real-IP": "203.0.113.7"},
                                    ip_address="127.0.0.1")
    monkeypatch.setattr(limits.st, "context", context)
    assert limits.visitor_and_address() == ("v1", "203.0.113.7")
