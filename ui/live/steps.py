"""Charts that follow a stepper (ui.widgets.step_controls) without waiting for the server.

A press of Next reruns the stepper's part of the page, and each chart in it used to be redrawn from the new figure on
the server's answer (Plotly.react: 15-25 ms of the browser's time per chart, after the answer has come). A chart
drawn by `stepped_plot` is sent once per setting with every step in it (the page's own figure function at t = 1..T,
reduced to what changes from step to step: rnnviz.live.frames.figure_frames), and the same bytes whatever the step,
so a step's answer redraws nothing. stepped.js draws the step the stepper's slider holds; a press of Back, Next or
Reset (a click, the ← → Home keys, a remote's PageUp / PageDown) draws the step it asks for at once, while the server
answers, and the answer (the slider's new value) settles it. Nothing is computed in the browser: it picks one of the
server's figures.

Frames are computed in the background after a setting's first rerun (which draws as before, and costs what it did),
one chart at a time per server, and kept per server in FRAMES, keyed by what the figure depends on: the `fingerprint`
of the figure and text functions, their code and the values they close over (so a figure function must take
everything it depends on from those: the lambdas in the pages do). A step's rerun only looks them up. Bounded: at
most MAX_STEPS steps, MAX_WORK of figures built and MAX_BYTES of frames beyond the figure itself per chart, computed
on the budgets of the visitor who asked and its address (ui/live/scrub.py's, which the dragged sliders' frames spend
too), else (and without live charts) the chart is the figure at t, drawn as before.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import threading
import time
import types
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from rnnviz.lessons.cache import SharedCache
from rnnviz.live.frames import encoded, figure_frames, plain
from rnnviz.live.schedule import charged
from ui.live import chart
from ui.live.assets import src
from ui.live.scrub import budgets
from ui.urlstate import classroom
from ui.widgets import chart_config, fig_at_least, plot

FRAMES = SharedCache(32 * 2 ** 20)  # per server
MAX_STEPS = 100  # a longer input steps as before: its frames are T figures built
MAX_WORK = 2 ** 27  # bytes of figures built for a chart's frames (T times its figure's data): the three trained cells'
# 65 steps after 'First letter' are 65 x 1.2 MB, 2 s of one core once per setting and server
MAX_BYTES = 2 ** 19  # what a chart's frames add to its figure (sent with every step anyway): 2.6 KB a step there
DELAY = 0.1  # s: the frames' computation waits this long, so that the rerun that asked for them goes first


@dataclass(frozen=True)
class Steps:
    """A chart that follows the stepper `stepper` (step_controls' `page`: its slider `{stepper}.t`, its buttons
    `{stepper}.back`, `.next`, `.reset`) over steps 1..T: `build(t)` is the chart's figure at step t, `alt(t)` its
    text alternative."""

    stepper: str
    T: int
    build: Callable[[int], object] = field(compare=False, repr=False)
    alt: Callable[[int], str] = field(compare=False, repr=False)


def _feed(h, obj, depth: int = 0) -> bool:
    """Feed `obj` to the hash `h`, whole; False where part of it cannot be told apart from another object by value
    (then nothing is kept for it: a key that may match a different setting would show that setting's numbers)."""
    if depth > 12:
        return False
    h.update(type(obj).__qualname__.encode() + b"\0")
    if obj is None or isinstance(obj, (bool, int, float, complex, str, bytes)):
        h.update(repr(obj).encode() + b"\1")
        return True
    if isinstance(obj, np.generic):
        h.update(repr(obj.item()).encode() + b"\1")
        return True
    if isinstance(obj, np.ndarray):
        if obj.dtype.hasobject:
            return _feed(h, obj.tolist(), depth + 1)
        h.update(f"{obj.dtype.str}{obj.shape}".encode())
        h.update(np.ascontiguousarray(obj).tobytes())
        return True
    if isinstance(obj, dict):
        return all(_feed(h, k, depth + 1) and _feed(h, v, depth + 1) for k, v in obj.items())
    if isinstance(obj, (list, tuple)):
        h.update(str(len(obj)).encode())
        return all(_feed(h, v, depth + 1) for v in obj)
    if isinstance(obj, (set, frozenset)):
        return _feed(h, sorted(obj, key=repr), depth + 1)
    if isinstance(obj, types.ModuleType):
        h.update(obj.__name__.encode())
        return True
    if isinstance(obj, types.CodeType):  # by what it does, not where it sits (a page's code is compiled anew at times)
        h.update(obj.co_code + repr(obj.co_names).encode())
        return _feed(h, obj.co_consts, depth + 1)
    if isinstance(obj, types.FunctionType):  # its code, and what it closes over
        h.update(f"{obj.__module__}.{obj.__qualname__}".encode())
        return (_feed(h, obj.__code__, depth + 1) and _feed(h, obj.__defaults__, depth + 1)
                and _feed(h, obj.__kwdefaults__, depth + 1)
                and all(_feed(h, c.cell_contents, depth + 1) for c in obj.__closure__ or ()))
    if isinstance(obj, (types.BuiltinFunctionType, type)):
        h.update(f"{getattr(obj, '__module__', '')}.{obj.__qualname__}".encode())
        return True
    if dataclasses.is_dataclass(obj):
        return all(_feed(h, getattr(obj, f.name), depth + 1) for f in dataclasses.fields(obj))
    if getattr(obj, "__dict__", None):  # an object whose state is its attributes (not one kept in C: a tensor's)
        return _feed(h, vars(obj), depth + 1)
    return False


def fingerprint(*objs) -> str | None:
    """A digest of the objects' values (arrays by their bytes, functions by their code and closures); None if some
    part has no value to go by."""
    h = hashlib.blake2b(digest_size=20)
    return h.hexdigest() if _feed(h, objs) else None


def frames(steps: Steps, wrap: Callable[[object], object]) -> bytes | None:
    """Every step's figure (after `wrap`, the page's last touch such as the projector's type sizes) as the browser
    takes it: {"figure": step 1's figure, "steps": {stepper, alts, values, traces, data, layout}}; None past the
    bounds or when the steps do not share their traces."""
    if not 1 < steps.T <= MAX_STEPS:
        return None
    last = wrap(steps.build(steps.T))
    alone = len(encoded(plain({"data": last.to_dict()["data"]})))
    if steps.T * alone > MAX_WORK:  # don't build what would take too long
        return None
    out = _framed(steps, wrap, list(range(1, steps.T + 1)), {steps.T: last})
    return out if out is not None and len(out) - alone <= MAX_BYTES else None


def _framed(steps: Steps, wrap: Callable[[object], object], values: list[int], built: dict | None = None
            ) -> bytes | None:
    """Steps `values` in the form `frames` sends (the figure at values[0], each step's frame over it, and each
    step's figure digest: a key on a scrubbed slider beside the chart draws that slider's frame over the step shown,
    ui/live/scrub.js, where the step is one of its frames); None when they do not share their traces. A figure that
    plays frames of its own (a Play button: the one-unit page's tanh chart plays steps 1 to t) has each step's
    frames under `plays`, whole (they are the steps' data again)."""
    built, plays = dict(built or {}), []

    def build(t):
        fig = built.pop(int(t), None)
        if fig is None:
            fig = wrap(steps.build(int(t)))
        plays.append(plain(fig.to_dict().get("frames") or []))
        return fig
    f = figure_frames(build, values, whole=True, hold=False, digests=True)
    if f is None or f["values"] != values:
        return None
    start = f.pop("start")
    start["layout"].pop("template", None)  # chart.js draws every chart in the app's own look
    f.update(stepper=steps.stepper, alts=[steps.alt(t) for t in values])
    if any(plays):
        f["plays"] = plays
    return b'{"figure":%s,"steps":%s}' % (encoded(start), encoded(f))


def _gone():
    raise LookupError


def _charged(steps: Steps, wrap: Callable[[object], object], spent_by) -> bytes:
    """`frames`, its time spent from each budget of `spent_by` (up to 3 s for the longest steps: MAX_WORK)."""
    with charged(*spent_by):
        return frames(steps, wrap) or b""


_PENDING: OrderedDict = OrderedDict()  # key -> computation, oldest first, at most MAX_PENDING
_LOCK = threading.Lock()
_WORKING = [False]  # whether the worker thread is at work (it takes every ask made meanwhile)
MAX_PENDING = 32


def _ahead(key, compute: Callable[[], bytes]) -> None:
    """Have `key` computed in the background, after the ones asked for before it (a page's second stepped chart
    waits for its first), by one thread per server; past MAX_PENDING the oldest asks are dropped (asked again by
    their next rerun)."""
    with _LOCK:
        if key in _PENDING:
            return
        _PENDING[key] = compute
        while len(_PENDING) > MAX_PENDING:
            _PENDING.popitem(last=False)
        if _WORKING[0]:
            return
        try:
            threading.Thread(target=_work, name="rnnviz-steps", daemon=True).start()
        except RuntimeError:  # no thread to be had: the chart is drawn as before, asked again by the next rerun
            _PENDING.clear()
            return
        _WORKING[0] = True


def _work() -> None:
    time.sleep(DELAY)  # the rerun that asked goes first (a thread computing shares the interpreter with it)
    while True:
        with _LOCK:
            if not _PENDING:
                _WORKING[0] = False
                return
            key, compute = _PENDING.popitem(last=False)
        try:
            FRAMES.get(key, compute, len)
        except Exception:  # nobody waits for it: that setting's chart is drawn as before, not asked for again
            logging.getLogger(__name__).exception("computing the steps of %r failed", key[1])
            FRAMES.get(key, lambda: b"", len)


def one_step(steps: Steps, wrap: Callable[[object], object], t: int) -> bytes:
    """Step t and its neighbours, in the form of `frames`: what a stepped chart is sent until its setting's steps are
    at hand, or where they cannot be. A first press of Back or Next after a new setting (or a page's first) then
    draws its step at once, as later presses do once every step has come (it waited for the server: 175 ms on the
    one-unit page); two more figures built in that setting's first rerun. Step t alone where the three do not share
    their traces. chart.js compares the picture at the step shown, so a new setting that leaves it as it was (the
    cell page at step 1 whatever W_h's radius) still draws nothing."""
    near = [u for u in (t - 1, t, t + 1) if 1 <= u <= steps.T]
    if len(near) > 1 and steps.T <= MAX_STEPS and (body := _framed(steps, wrap, near)) is not None:
        return body
    spec = wrap(steps.build(t)).to_dict()
    figure = plain({"data": spec["data"], "layout": {k: v for k, v in spec["layout"].items() if k != "template"}})
    only = {"values": [t], "traces": len(spec["data"]), "data": [], "layout": [], "stepper": steps.stepper,
            "alts": [steps.alt(t)]}
    return b'{"figure":%s,"steps":%s}' % (encoded(figure), encoded(only))


def stepped_payload(key: str, steps: Steps, wrap: Callable[[object], object], config: dict, room: bool,
                    t: int) -> bytes | None:
    """What chart.js receives for a stepped chart: every step, once they are at hand on this server for this
    setting (computed in the background after the rerun that first needs them: a setting's first rerun costs what it
    did, and the next step finds them), else step t alone; None where the figure's inputs have no fingerprint."""
    token = fingerprint(steps.build, steps.alt, wrap)
    if token is None:
        return None
    key = ("steps", key, steps.stepper, steps.T, room, token)
    try:
        body = FRAMES.get(key, _gone)
    except LookupError:
        spent_by = budgets()  # the visitor's and its address's, as for a dragged slider's frames (ui/live/scrub.py)
        if min(b.left() for b in spent_by) > 0:  # past either: the chart steps as before, this setting not computed
            _ahead(key, lambda: _charged(steps, wrap, spent_by))
        body = b""
    # the same bytes at every step of a setting: chart.js then has nothing to redraw (each step's text is in alts)
    head = json.dumps({"config": config, "alt": steps.alt(1 if body else t), "src": src()})
    return (head[:-1] + "," + (body or one_step(steps, wrap, t)).decode()[1:]).encode()


def stepped_plot(key: str, steps: Steps, t: int) -> None:
    """ui.widgets.plot for a chart that follows a stepper: drawn from every step at once where it can be, so a step
    redraws nothing on the server's answer and the browser shows the new step as Back or Next is pressed; otherwise
    the figure at t."""
    if chart.live():
        room = classroom()
        data = stepped_payload(key, steps, fig_at_least if room else _as_is, chart_config(key), room, t)
        if data is not None:
            chart.live_payload(data, key)
            return
    plot(steps.build(t), key, steps.alt(t))


def _as_is(fig):
    return fig
