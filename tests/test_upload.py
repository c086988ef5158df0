"""What the file boxes hold costs the server: held files share the accepted models' budget, a refused model's files
leave at once, and a session whose visitor has left keeps no files (ui/upload.py; issue 49, finding 1)."""
import platform
from pathlib import Path

import pytest
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager

from tests.conftest import ROOT
from tests.test_limits import held, put
from ui.upload import FILE_BYTES, MODEL_SERVER_BYTES, UploadGuard

MIB = 2**20


def test_files_the_boxes_hold_share_the_model_budget(monkeypatch):
    """30 sessions each put two of the largest files in their boxes (a pair refused, or one box filled and left):
    the server keeps at most the budget, the oldest holders first, and those it let go are told. Files and budget
    are 1/64 of the real ones, their ratio kept (1,260 MiB of zeros cost a busy worker seconds)."""
    from streamlit.runtime.uploaded_file_manager import UploadedFile

    from ui import upload

    monkeypatch.setattr(upload, "MODEL_SERVER_BYTES", MODEL_SERVER_BYTES // 64)
    mgr = MemoryUploadedFileManager("/_stcore/upload_file")
    guard, opened = UploadGuard(mgr), {}
    # the walk that finds the boxes' copies, over the copies alone: over every object of a test worker that has run
    # hundreds of pages it costs 0.2 s a sweep (the refusal test below closes copies through the whole walk)
    monkeypatch.setattr(upload.gc, "get_objects", lambda: [f for fs in opened.values() for f in fs])
    for s in range(30):
        put(mgr, f"s{s}", "w", FILE_BYTES // 64)
        put(mgr, f"s{s}", "c", FILE_BYTES // 64)
        opened[s] = [UploadedFile(r, None) for r in mgr.get_files(f"s{s}", ["w", "c"])]  # what the boxes returned
        guard.hold(f"s{s}", {"w", "c"})
        guard.sweep()
    assert 0 < held(mgr) <= upload.MODEL_SERVER_BYTES  # 30 pairs put in boxes, at most the budget kept
    kept = [f for fs in opened.values() for f in fs if not f.closed]
    assert sum(f.size for f in kept) <= upload.MODEL_SERVER_BYTES  # the boxes' own copies (in widget state) go too
    assert mgr.get_files("s0", ["w", "c"]) and not mgr.get_files("s29", ["w", "c"])
    assert "s29" in guard.evicted and "s0" not in guard.evicted
    guard.hold("s29", {"new"})  # that visitor chooses again: no longer told its files were let go
    assert "s29" not in guard.evicted


def test_a_model_is_refused_when_the_boxes_of_others_fill_the_budget():
    mgr = MemoryUploadedFileManager("/_stcore/upload_file")
    guard = UploadGuard(mgr)
    for s in range(4):  # four sessions hold 168 MiB in their boxes
        put(mgr, f"s{s}", "w", FILE_BYTES)
        put(mgr, f"s{s}", "c", FILE_BYTES)
        guard.hold(f"s{s}", {"w", "c"})
    assert not guard.model_room("student", 75 * MIB)
    assert guard.model_room("s0", 75 * MIB)  # its own files are part of its model's cost, not counted twice


def test_the_files_of_a_session_whose_visitor_left_go_at_once():
    mgr = MemoryUploadedFileManager("/_stcore/upload_file")
    active = {"here", "modelled"}
    guard = UploadGuard(mgr, is_active=lambda sid: sid in active)
    for sid in ("here", "left", "modelled"):
        put(mgr, sid, "w", 10 * MIB)
        guard.hold(sid, {"w"})
    guard.keep_model("modelled", 30 * MIB)
    guard.sweep()
    assert held(mgr) == 20 * MIB and not mgr.get_files("left", ["w"])
    active.clear()  # an accepted model's files stay with it while Streamlit keeps the session
    guard.sweep()
    assert held(mgr) == 10 * MIB and mgr.get_files("modelled", ["w"])


@pytest.mark.skipif(not (ROOT / "models" / "shakespeare.safetensors").exists(), reason="the shipped model is missing")
def test_a_refused_model_s_files_leave_the_server_at_once(open_page, monkeypatch):
    """The boxes return what Streamlit's upload manager still holds (as st.file_uploader does): after the refusal
    the pair is gone from the server, the refusal is still shown, and a new choice clears it."""
    import streamlit as st
    from streamlit.runtime.scriptrunner import get_script_run_ctx
    from streamlit.runtime.uploaded_file_manager import UploadedFile, UploadedFileRec

    stored, returned = {}, []  # the manager the app runs with, and its session; what the boxes returned

    def file_uploader(label, *a, **k):
        ctx = get_script_run_ctx()
        mgr, fid = ctx.uploaded_file_mgr, "w1" if "Weights" in label else "c1"
        if not stored:  # the browser PUTs both files once
            for f, data in (("w1", b"\0" * 64), ("c1", b"{}")):
                mgr.add_file(ctx.session_id, UploadedFileRec(f, f, "application/octet-stream", data))
            stored.update(mgr=mgr, sid=ctx.session_id)
        recs = mgr.get_files(ctx.session_id, [fid])
        returned.extend(UploadedFile(r, None) for r in recs)
        return returned[-1] if recs else None

    monkeypatch.setattr(st, "file_uploader", file_uploader)
    at = open_page("sample")
    assert any("refused" in e.value for e in at.error)
    assert stored["mgr"].get_files(stored["sid"], ["w1", "c1"]) == []  # let go at the refusal, not at session end
    assert len(returned) == 2 and all(f.closed for f in returned)  # and the copies in the session's widget state
    at.slider(key="sample.char").set_value(9).run()
    assert any("refused" in e.value and "choose others" in e.value for e in at.error)


@pytest.mark.skipif(not Path("/proc/self/status").exists() or platform.libc_ver()[0] != "glibc", reason="glibc only")
def test_uploads_read_in_worker_threads_give_their_memory_back_when_freed(tmp_path):
    """As Streamlit reads an upload (in a worker thread) and later drops it: with the guard's allocator setting, the
    process's resident memory comes back down (30 refused pairs had left a replica 490 MB up a minute later)."""
    import concurrent.futures
    import gc
    import os

    from ui.upload import _map_large_allocations

    def rss_mb():
        line = next(x for x in Path("/proc/self/status").read_text().splitlines() if x.startswith("VmRSS"))
        return int(line.split()[1]) / 1024

    path = tmp_path / "upload.bin"
    path.write_bytes(os.urandom(FILE_BYTES))
    block = bytes(30 * MIB)  # a larger block freed first: glibc alone would raise its mmap threshold past 21 MiB
    del block
    _map_large_allocations()
    before = rss_mb()
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        files = list(pool.map(lambda _: path.read_bytes(), range(12)))
        assert rss_mb() > before + 200
        del files
        gc.collect()
        assert rss_mb() < before + 30
