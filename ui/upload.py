"""Bring your own character model: two file boxes, validation, and a refusal remembered for that file pair (a
rerun never parses a refused upload again, and its files are let go at once). The model lives in this session only.

Bytes are bounded per session and per server. nginx bounds what arrives (one file is at most server.maxUploadSize,
a visitor sends two at a time and a dozen a minute). Streamlit keeps every file PUT to `/_stcore/upload_file/<session>/
<any id>` until that session ends, used or not: `UploadGuard` removes, through the upload manager's own `remove_file`,
every file no file box of its session holds once it is older than a few seconds or past a small budget, and the
files of a session whose visitor has left; what the boxes hold and the accepted models share one per-server budget.
"""
from __future__ import annotations

import ctypes
import gc
import json
import logging
import threading
import time
from typing import Callable

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx
from streamlit.runtime.uploaded_file_manager import UploadedFile

from rnnviz import charlm
from rnnviz.charlm.checkpoint import CARD_KEYS, MAX_FILE_BYTES
from rnnviz.lessons.cache import deep_sizeof
from ui.widgets import error

FILE_BYTES = 21 * 2**20  # server.maxUploadSize in .streamlit/config.toml
LOOSE_GRACE_S = 20.0  # a file no file box holds (yet): the box's rerun names it within a second or two
LOOSE_SESSION_BYTES = 2 * FILE_BYTES  # files in flight in one session (both boxes at once)
LOOSE_SERVER_BYTES = 3 * FILE_BYTES  # ... and in all sessions of this server
MODEL_SERVER_BYTES = 240 * 2**20  # accepted models (their files and arrays) in all sessions of this server
SWEEP_EVERY_S = 0.5
CARD_FIELD_CHARS = 1000  # a card field shown in the card view (a 1 MiB field of emoji exceeded the message limit)


def _session_is_active(session_id: str) -> bool:
    """Whether the session still has its websocket (a visitor who left keeps a session for
    server.disconnectedSessionTTL, files and all); True where there is no runtime (AppTest)."""
    from streamlit.runtime import Runtime

    return not Runtime.exists() or Runtime.instance().is_active_session(session_id)


class UploadGuard:
    """One per server process: which uploaded files each session's file boxes hold, what its accepted model costs,
    and a thread that removes the files nobody holds, of sessions that have left, or past the budget."""

    def __init__(self, manager, clock: Callable[[], float] = time.monotonic,
                 is_active: Callable[[str], bool] = _session_is_active):
        self.manager, self.clock, self.is_active = manager, clock, is_active
        self.held: dict[str, set[str]] = {}  # session id -> file ids its boxes hold now
        self.models: dict[str, int] = {}  # session id -> bytes of its accepted model (files + arrays)
        self.evicted: set[str] = set()  # sessions whose boxes' files were let go for the budget (the page says so)
        self._seen: dict[tuple[str, str], float] = {}  # (session, file) -> when first seen (loose or held)
        self._lock = threading.Lock()

    def hold(self, session_id: str, file_ids: set[str]) -> None:
        """The files this session's boxes hold now; any other file of the session is loose."""
        with self._lock:
            self.held[session_id] = set(file_ids)
            if file_ids:
                self.evicted.discard(session_id)

    def drop(self, session_id: str, file_ids: set[str]) -> None:
        """Let go of these files of the session now (a refused model's: nothing will read them again)."""
        with self._lock:
            self.held[session_id] = self.held.get(session_id, set()) - set(file_ids)
        self._let_go([(session_id, fid) for fid in file_ids])

    def _let_go(self, files: list[tuple[str, str]]) -> None:
        """Remove these (session, file id) from the upload manager, and close every UploadedFile of them: a file
        box's value in its session's widget state is one (a BytesIO sharing the file's bytes), kept until that
        session's next rerun or, for a session that has left, server.disconnectedSessionTTL (120 s)."""
        if not files:
            return
        for sid, fid in files:
            self.manager.remove_file(sid, fid)
        ids = {fid for _, fid in files}  # Streamlit's file ids are random UUIDs: unique across sessions
        for obj in gc.get_objects():  # one walk per batch (tens of ms), only when files are let go
            if isinstance(obj, UploadedFile) and obj.file_id in ids:
                obj.close()  # frees its buffer; a script reading it meanwhile gets ValueError (see _uploaded)

    def _held_bytes(self, storage, exclude: str = "") -> int:
        """Bytes the boxes hold in sessions without an accepted model (a model's cost already counts its files)."""
        return sum(len(rec.data) for sid, fids in self.held.items() if sid != exclude and sid not in self.models
                   for fid, rec in storage.get(sid, {}).items() if fid in fids)

    def model_room(self, session_id: str, cost: int) -> bool:
        """Whether a model costing `cost` bytes fits this server's budget beside the other sessions' models and the
        files their boxes hold."""
        storage = getattr(self.manager, "file_storage", {})
        with self._lock:
            others = sum(b for s, b in self.models.items() if s != session_id)
            return others + self._held_bytes(storage, exclude=session_id) + cost <= MODEL_SERVER_BYTES

    def keep_model(self, session_id: str, cost: int | None) -> None:
        with self._lock:
            if cost is None:
                self.models.pop(session_id, None)
            else:
                self.models[session_id] = cost

    def sweep(self) -> int:
        """Remove loose files: older than LOOSE_GRACE_S, or past the per-session or per-server budget (the newest go
        first: what came last is what overflowed); the files of sessions whose visitor has left (an accepted model's
        stay with it until the session ends); and held files, newest first, while what the boxes hold and the
        accepted models pass MODEL_SERVER_BYTES. Forget sessions that have ended. Returns the bytes removed."""
        storage = getattr(self.manager, "file_storage", None)  # MemoryUploadedFileManager's, by session and file id
        if storage is None:
            return 0
        now, loose, held, drop = self.clock(), [], [], []
        with self._lock:
            for sid, files in list(storage.items()):
                boxes, gone = self.held.get(sid, ()), files and sid not in self.models and not self.is_active(sid)
                for fid, rec in list(files.items()):
                    item = (self._seen.setdefault((sid, fid), now), sid, fid, len(rec.data))
                    if gone:
                        drop.append(item[1:])
                    elif fid not in boxes:
                        loose.append(item)
                    elif sid not in self.models:
                        held.append(item)
            for sid in [s for s in self.held if s not in storage]:
                del self.held[sid]
            for sid in [s for s in self.models if s not in storage and s not in self.held]:
                del self.models[sid]
            self.evicted &= set(storage)
            now_present = {(sid, fid) for _, sid, fid, _ in loose + held}
            for key in [k for k in self._seen if k not in now_present]:
                del self._seen[key]
            room = MODEL_SERVER_BYTES - sum(self.models.values())
        per_session, total = {}, 0
        for seen, sid, fid, size in sorted(loose):  # oldest first
            per_session[sid] = per_session.get(sid, 0) + size
            total += size
            if now - seen > LOOSE_GRACE_S or per_session[sid] > LOOSE_SESSION_BYTES or total > LOOSE_SERVER_BYTES:
                drop.append((sid, fid, size))
                per_session[sid] -= size
                total -= size
        total = 0
        for seen, sid, fid, size in sorted(held):  # oldest first: the newest overflowed
            total += size
            if total > room:
                drop.append((sid, fid, size))
                total -= size
                with self._lock:
                    self.evicted.add(sid)
        self._let_go([(sid, fid) for sid, fid, _ in drop])
        for sid, fid, _ in drop:
            self._seen.pop((sid, fid), None)
        return sum(size for *_, size in drop)


_GUARD: UploadGuard | None = None
_GUARD_LOCK = threading.Lock()
_SWEEPER: threading.Thread | None = None


M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter
MMAP_FROM_BYTES = 4 * 2**20  # glibc's own starts at 128 KiB; the pages' arrays are far smaller, uploads far larger


def _map_large_allocations() -> None:
    """Have glibc mmap every allocation of MMAP_FROM_BYTES or more, so that a freed upload goes back to the system
    at once. Left to itself glibc raises its threshold to the size of the first large block freed (up to 32 MiB), and
    from then on a 21 MiB upload, read in a worker thread, lands in that thread's arena, which keeps it when freed:
    30 files read by 8 threads and freed left 476 MB resident (141 MB after malloc_trim; 14 MB with this)."""
    try:
        ctypes.CDLL("libc.so.6").mallopt(M_MMAP_THRESHOLD, MMAP_FROM_BYTES)
    except (OSError, AttributeError):  # not glibc: its allocator is its own
        pass


def _sweep_forever() -> None:
    """Sweep this server's guard every SWEEP_EVERY_S seconds (one thread per process)."""
    while True:
        time.sleep(SWEEP_EVERY_S)
        try:
            if _GUARD is not None:
                _GUARD.sweep()
        except Exception:  # a changed upload manager must not take the server down: files then stay as Streamlit
            logging.getLogger(__name__).exception("sweeping uploads failed")  # keeps them (until session end)
            return


def guard_uploads() -> UploadGuard | None:
    """This server's UploadGuard, its sweeper started on the first call (app.py calls this on every run)."""
    global _GUARD, _SWEEPER
    ctx = get_script_run_ctx()
    if ctx is None:
        return None
    with _GUARD_LOCK:
        if _GUARD is None or _GUARD.manager is not ctx.uploaded_file_mgr:  # one per server (AppTest: per test)
            _GUARD = UploadGuard(ctx.uploaded_file_mgr)
        if _SWEEPER is None:
            _map_large_allocations()
            _SWEEPER = threading.Thread(target=_sweep_forever, name="rnnviz-uploads", daemon=True)
            _SWEEPER.start()
        return _GUARD


def shown_card(card: dict) -> dict:
    """The card with every free-form field (not the vocabulary or sizes the model is built from) cut to
    CARD_FIELD_CHARS characters of its JSON, so that the card view stays a small message whatever was uploaded."""
    out = {}
    for k, v in card.items():
        text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
        if k in CARD_KEYS or k == "nonlinearity" or len(text) <= CARD_FIELD_CHARS:
            out[k] = v
        else:
            out[k] = f"{text[:CARD_FIELD_CHARS]}… ({len(text):,} characters, cut here)"
    return out


def model_upload(prefix: str, shipped: Callable[[], charlm.CharLM]) -> tuple[str, charlm.CharLM]:
    """("upload:<file ids>", the model) when a valid pair is uploaded, else ("shipped", shipped()); the page stops
    with a message if even the shipped model cannot be loaded."""
    try:
        return _uploaded(prefix) or ("shipped", shipped())
    except charlm.CheckpointError as e:
        error(f"The shipped model could not be loaded: {e}")
        st.stop()


MODEL_CLASS = "rnnviz.charlm.model.CharRNN"  # named, not imported: serving needs no PyTorch (a test imports it)
UPLOAD_CAPTION = (
    f"A `.safetensors` file of `{MODEL_CLASS}` weights and its JSON card, as written by `python -m "
    f"rnnviz.charlm.train`; the weights at most {MAX_FILE_BYTES / 2**20:g} MiB ({MAX_FILE_BYTES:,} bytes): the "
    f"box's own limit, {FILE_BYTES // 2**20} MB, is Streamlit's and a little higher. Files are checked (names, shapes, "
    "vocabulary, size) and never executed.")


def _uploaded(prefix: str) -> tuple[str, charlm.CharLM] | None:
    ss = st.session_state
    guard, ctx = guard_uploads(), get_script_run_ctx()
    with st.expander("Bring your own model (this session only)"):
        st.caption(UPLOAD_CAPTION)
        wf = st.file_uploader("Weights (.safetensors)", type=["safetensors"], key=f"{prefix}.up_w")
        cf = st.file_uploader("Card (.json)", type=["json"], key=f"{prefix}.up_c")
        if guard is not None:
            guard.hold(ctx.session_id, {f.file_id for f in (wf, cf) if f is not None})
        if wf is None or cf is None:  # a model whose files were removed is freed with them
            ss.pop(f"{prefix}.upload", None), ss.pop(f"{prefix}.upload_key", None)
            if guard is not None:
                guard.keep_model(ctx.session_id, None)
            if guard is not None and ctx.session_id in guard.evicted:
                error(f"This server is holding as many uploaded files as it can ({MODEL_SERVER_BYTES / 2**20:.0f} "
                      "MiB); yours were let go. Try again in a few minutes.")
            elif wf is None and cf is None and f"{prefix}.refused" in ss:  # the boxes still name its files (gone)
                error(f"That model was refused: {ss[f'{prefix}.refused'][1]}. Remove the files and choose others.")
            else:  # a new file in one box: a new choice
                ss.pop(f"{prefix}.refused", None)
            return None
        key = f"{wf.file_id}/{cf.file_id}"  # a new upload gets new ids; no hashing of megabytes per rerun
        if key not in (ss.get(f"{prefix}.upload_key"), ss.get(f"{prefix}.refused", ("",))[0]):
            ss.pop(f"{prefix}.upload", None), ss.pop(f"{prefix}.upload_key", None)
            if guard is not None:
                guard.keep_model(ctx.session_id, None)
            try:
                try:
                    weights, card = wf.getvalue(), cf.getvalue()
                except ValueError:  # closed: let go for the budget since the box returned it (the next run says so)
                    return None
                lm = charlm.load_bytes(weights, card)
                del weights, card
                lm.card = shown_card(lm.card)
                cost = deep_sizeof(lm) + wf.size + cf.size
                if guard is not None and not guard.model_room(ctx.session_id, cost):
                    raise charlm.CheckpointError(
                        f"this server is holding as many uploaded models as it can ({MODEL_SERVER_BYTES / 2**20:.0f} "
                        f"MiB); yours needs {cost / 2**20:.0f} MiB. Try again in a few minutes, or run rnnviz on your "
                        "own computer (pip install rnnviz), where there is no such limit")
                ss[f"{prefix}.upload"], ss[f"{prefix}.upload_key"] = lm, key
                ss.pop(f"{prefix}.refused", None)
                if guard is not None:
                    guard.keep_model(ctx.session_id, cost)
            except charlm.CheckpointError as e:
                ss[f"{prefix}.refused"] = (key, str(e)[:400])
                if guard is not None:  # nothing reads a refused pair again: its bytes go now, not at session end
                    guard.drop(ctx.session_id, {wf.file_id, cf.file_id})
        if ss.get(f"{prefix}.upload_key") == key:
            st.success("Using your model for this session.")
            return f"upload:{key}", ss[f"{prefix}.upload"]
        error(f"That model was refused: {ss[f'{prefix}.refused'][1]}.")
        return None
