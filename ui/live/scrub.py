"""Charts that follow a slider while it is dragged, and the words beside them. Streamlit sends a slider's value only on
release, so a chart would stay frozen through a drag and jump at the end. The server computes the chart at the
slider's notches (rnnviz/live/frames.py: the page's own figure function, or for a chart whose words change with every
value a form of it without them, `whole`), and the words beside it (`words`: each text's pieces, rnnviz/live/words.py),
in sets (rnnviz/live/schedule.py): the whole range coarse first, then windows of consecutive notches, the one under the
thumb first. The sets are kept per server in FRAMES, keyed by the setting, so every visitor on it shares them; those
computed for a visitor are charged to its Budget and to its address's (VISITORS, ADDRESSES). scrub.js shows the
frame of whatever value the thumb holds, the nearest notch that has one, while the mouse is down, on the chart that
chart.js drew. A drag on coarse frames asks for the window around the thumb first (`ahead`). On release the page
reruns and draws as it always did. A key press on the slider shows the new value's frame at once, where the frames
are the chart's own figures: the rerun then sends that figure again, and chart.js, which knows it by its digest,
leaves it drawn.

The frames are computed in the background (one computation per server at a time, SharedCache.fill_ahead), never in
the visitor's rerun: until they are ready the component says so and asks for a rerun of its own fragment, which
only reads the cache. Each set is sent to a visitor once (the browser keeps it, by its id); a browser that lacks one
asks for all again. Anything missing (no live charts, no frames, a value outside them) leaves the page as it was.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from dataclasses import dataclass, field, replace
from typing import Callable

import streamlit as st

from rnnviz.lessons.cache import SharedCache
from rnnviz.live.frames import SPAN, encoded, figure_frames
from rnnviz.live.schedule import Budget, Budgets, charged, schedule, window
from rnnviz.live.words import followed
from ui.limits import fragment, visitor_and_address
from ui.live import chart
from ui.live.assets import component_js
from ui.loaders import once_in_background
from ui.urlstate import classroom
from ui.widgets import fig_at_least

FRAMES = SharedCache(64 * 2 ** 20)  # per server: ~2-200 kB per slider, setting and set
DELAY = 0.25  # s: a fill after a new setting waits this long, so that the page's rerun goes first
FILL_S = 0.4  # s: one fill computes sets until this is spent (at least one): other visitors' fills take turns
SENT = 512  # set ids remembered as sent, per visitor (one forgotten is sent again)
SEND_BYTES = 2 ** 19  # new sets one payload carries at most (the server's maxMessageSize is 2 MB): the rest next poll
PAGE_BYTES = 2 ** 16  # at most in a page's own run (a key's, a release's): a few small sets, the rest with the poll
# one set's bytes at most: a larger one is never sent (Streamlit would replace the message with an error), and the chart
# greys there. A page sizes its sets well under it; this is for the settings that outgrow them (a 30-character word
# on the gates page: 64 units' heatmaps, 4.6 MB a set of 8)
SET_BYTES = 1_500_000
# seconds of frames computed per 30 s, for one visitor (its cookie: every session of it) and for one address (all its
# visitors): 4 clients of one address at 4 s each took 21 s of a replica's CPU in 30 s, a bystander's median rerun
# 0.04 -> 0.15 s (issue 49 item 4; benchmarks/attack.py frames)
VISITORS, ADDRESSES = Budgets(4.0), Budgets(6.0)
KEY_SPAN = 17  # notches of a `whole` chart's own frames a set holds, for keys (a few ms each)
_CSS = "[class*='st-key-scrub-'] {\n  display: none !important;\n}"  # it draws nothing: no gap either
_scrub = st.components.v2.component("rnnviz_scrub", js=component_js("scrub.js"), css=_CSS, isolate_styles=False)


@dataclass(frozen=True)
class Scrub:
    """One slider and the chart that follows it: `build(v)` is the chart's figure with the slider at v, and `setting`
    is everything else the figure depends on (with a set's notches, the key of its frames). `words(v)`, where the page
    has words that follow too: {container key: markdown} for the texts beside the chart with the slider at v (each
    drawn inside st.container(key=...); or its pieces, or a Shown: rnnviz/live/words.py); nothing outside `setting`
    changes them. Without a chart (`build` None: the sampling page's position) only the words follow, and `chart` is
    the key of the container they are in."""

    slider: str  # the slider's widget key
    chart: str  # the chart's key (ui.widgets.plot), or without a chart the words' container's
    setting: tuple
    value: float
    lo: float
    hi: float
    step: float
    build: Callable[[float], object] | None = field(compare=False, repr=False)
    span: int = SPAN
    whole: bool = False  # the frames are a form of the chart of their own, drawn whole as a drag begins
    # {container key: markdown, pieces or a Shown} at a value
    words: Callable[[float], dict] | None = field(default=None, compare=False, repr=False)
    # for `whole` frames: the chart as the page draws it, whose frames near the value a key on the slider draws
    own: Callable[[float], object] | None = field(default=None, compare=False, repr=False)
    # whether the server's opening (`warm`) computes more of its sets than a first drag's: False for sliders whose
    # far sets would crowd out the others' within WARM_BYTES (a view opened later, a chart beside the page's own)
    warm_far: bool = field(default=True, compare=False)
    # called with a set's values before its frames are built: work the set's frames share, done for all at once (the
    # training comparison trains a set's runs together)
    prepare: Callable[[list[float]], None] | None = field(default=None, compare=False, repr=False)

    def values(self) -> list[float]:
        """The window of notches that holds the slider's value."""
        return window(self.value, self.lo, self.hi, self.step, self.span)

    def sets(self, focus: float | None = None) -> list[list[float]]:
        """Every set of notches, in the order they are computed (the window around `focus`, or the value, first)."""
        return schedule(self.value if focus is None else focus, self.lo, self.hi, self.step, self.span)

    def key(self, values: list[float] | None = None) -> tuple:
        v = self.values() if values is None else values
        return (self.slider, self.chart, self.setting, v[0], v[-1], len(v))

    def key_sets(self) -> list[list[float]]:
        """For a `whole` chart with its `own` figure: the notches a key reaches next, in fixed windows of KEY_SPAN
        (the value's, then the neighbouring one on the side nearer the value), whose frames are the chart as drawn."""
        if self.own is None:
            return []
        here = window(self.value, self.lo, self.hi, self.step, KEY_SPAN)
        ahead = here[-1] + self.step if 2 * self.value >= here[0] + here[-1] else here[0] - self.step
        near = window(ahead, self.lo, self.hi, self.step, KEY_SPAN) if self.lo <= ahead <= self.hi else here
        return [here] + ([near] if near != here else [])


def each_slider(page: str, chart: str, now: dict[str, float], ranges: dict[str, tuple[float, float, float]],
                setting: tuple, figure: Callable[..., object], whole: bool = False,
                words: Callable[..., dict] | None = None, own: Callable[..., object] | None = None,
                span: int = SPAN) -> list[Scrub]:
    """One Scrub for each slider in `now` (its widget key `page.name`, its range and step in `ranges`) and the chart
    `page.chart`: each frame is `figure(**now)` with that slider moved (and its words `words(**now)`, the chart as
    drawn `own(**now)`); a frame set's key is `setting` and the other sliders' values; at most `span` frames a set."""
    def moved(f, name: str):
        return None if f is None else (lambda v: f(**{**now, name: v}))
    return [Scrub(f"{page}.{name}", f"{page}.{chart}", setting + tuple(u for k, u in now.items() if k != name),
                  now[name], *ranges[name], moved(figure, name), span, whole=whole, words=moved(words, name),
                  own=moved(own, name)) for name in now]


def _at_least(build: Callable[[float], object]) -> Callable[[float], object]:
    return lambda v: fig_at_least(build(v))


def on_projector(items: list[Scrub]) -> list[Scrub]:
    """The items as a projector's page has them: its charts are drawn with fig_at_least (ui.widgets.plot), so their
    frames are too, and kept apart from a laptop's."""
    return [replace(i, setting=i.setting + ("classroom",), build=i.build and _at_least(i.build),
                    own=i.own and _at_least(i.own))
            for i in items]


def plan(item: Scrub, focus: float | None = None) -> list[tuple[int, tuple, list[float], Callable]]:
    """Every set of an item's frames, in the order they are computed: (rank, key, values, compute). The chart's own
    frames near the value first (small: a key draws them), then the drag's sets (the window around `focus` first)."""
    return [(-1, item.key(v) + ("keys",), v, _compute_own) for v in item.key_sets()] + [
        (rank, item.key(v), v, _compute) for rank, v in enumerate(item.sets(focus))]


# what the warm spends beyond every slider's first two sets, CPU (a server's start) and pinned bytes (of FRAMES, which
# visitors' frames share): on one slider, and in all
WARM_ITEM_S, WARM_ITEM_BYTES, WARM_S, WARM_BYTES = 4.0, 2 * 2 ** 20, 40.0, 36 * 2 ** 20
_log = logging.getLogger(__name__)


def warm(makers: list[Callable[[bool], list[Scrub]]], delay: float = 1.0) -> bool:
    """Once per server: the frames of every lesson's scrubbed sliders as its page opens, on a laptop and on a
    projector (`makers`: ui/lessons/registry.py), computed in a thread of its own and pinned in FRAMES. A class opens
    the same link, so the first sweep of a slider finds its whole range at hand instead of waiting for the windows the
    thumb runs into (the first sweep up the one-unit page's w_h: 3 stills of 0.4-0.5 s). Set by set in the order each
    slider computes them, for every slider in turn: the coarse sets and the windows at the values first (a first
    drag's frames, everywhere), then the windows next to them, and so on outward, until WARM_ITEM_S of CPU or
    WARM_ITEM_BYTES more are spent on one slider (the gradients page's T: 5.5 s of frames a width; the recurrences
    page's T steps back: 5.3 MB), and WARM_S or WARM_BYTES in all. What it leaves, its visitors' asks compute. It is
    charged to no visitor: a fixed amount, WARM_S of CPU here (4.6 s of them the sampling page's Temperature
    samples and about 6 its Top-p's, 13 the gradients page's H and T and the recurrences page's T, 7 its training
    comparison's first drags) and at most WARM_BYTES of FRAMES (27.5 MB measured, with the sliders declared
    `warm_far=False` at a first drag's sets), once. RNNVIZ_WARM_FRAMES=0 leaves it out (the test suite's servers,
    each of which would spend it). Whether this call started it."""
    if os.environ.get("RNNVIZ_WARM_FRAMES") == "0":
        return False

    def pinned(item: Scrub, key: tuple, values: list[float], compute: Callable) -> int:
        try:  # nobody waits for it: a visitor's own ask computes what fails here
            return len(FRAMES.get(key, lambda: compute(item, values), len, pinned=True))
        except Exception:
            _log.exception("computing the frames of a page's defaults failed")
            return 0

    def work():
        plans = []
        for room in (False, True):
            for make in makers:
                try:  # a page that fails is left to its visitors' own asks; the other pages go on
                    items = make(room)
                    plans += [(item, plan(item)) for item in (on_projector(items) if room else items)]
                except Exception:
                    _log.exception("listing the scrubbed sliders of a page's defaults failed")
        start, total = time.thread_time(), 0
        spent = [[0.0, 0] for _ in plans]  # each slider's CPU and bytes so far
        # every slider's nearest sets first: by rank, then in the sliders' order
        for rank, j, key, values, compute in sorted(((r, j, *rest) for j, (_, sets) in enumerate(plans)
                                                     for r, *rest in sets), key=lambda step: step[:2]):
            used = spent[j]
            if rank > 1 and (not plans[j][0].warm_far or used[0] > WARM_ITEM_S or used[1] > WARM_ITEM_BYTES
                             or time.thread_time() - start > WARM_S or total > WARM_BYTES):
                continue
            t0 = time.thread_time()
            size = pinned(plans[j][0], key, values, compute)
            total += size
            if rank > 1:  # a first drag's sets are not counted: every slider gets those
                used[0] += time.thread_time() - t0
                used[1] += size
    return once_in_background("rnnviz-warm-frames", work, delay, "computing the opening frames")


def _changes(frames: bytes) -> dict | None:
    """What a set of frames changes ({data: [[trace, attr]], layout: [attr]}), for the other sets to carry too."""
    f = json.loads(frames)
    return f and {"data": [[d["trace"], d["attr"]] for d in f["data"]], "layout": [x["attr"] for x in f["layout"]]}


def _compute(item: Scrub, values: list[float]) -> bytes:
    """One set of frames, with the words at each value. A window carries everything the coarse set changes (computed
    first if need be), so that a drag can go from one set to another."""
    if item.build is None:  # the words alone, `alone`: no chart to draw
        frames = {"values": values, "traces": 0, "data": [], "layout": [], "hold": None, "alone": True}
    else:
        if item.prepare is not None:
            item.prepare(values)
        first = item.sets()[0]
        keep = None
        if values != first:
            keep = _changes(FRAMES.get(item.key(first), lambda: _compute(item, first), len))
        frames = figure_frames(item.build, values, item.whole, keep=keep)
    if frames is not None and item.words is not None:  # at the values kept: a notch whose figure has other traces
        # than most is left out, and words for it put the rest one notch out of step (the gradients page's first
        # frames read their left neighbour's words)
        frames.update(followed([item.words(v) for v in frames["values"]]))
    return _bounded(encoded(frames), item)


def _compute_own(item: Scrub, values: list[float]) -> bytes:
    """A set of the chart's own figures (with digests: a key draws them), marked `keys`: no drag shows them."""
    frames = figure_frames(item.own, values)
    return _bounded(encoded(frames and {**frames, "keys": True}), item)


def _bounded(frames: bytes, item: Scrub) -> bytes:
    """The set, or none (b"null": never sent) where it holds more than SET_BYTES."""
    if len(frames) <= SET_BYTES:
        return frames
    _log.info("a set of %s's frames holds %d bytes: not sent", item.slider, len(frames))
    return b"null"


def budgets() -> tuple[Budget, Budget]:
    """This run's visitor's budget and its address's: a fill is charged to both."""
    visitor, address = visitor_and_address()
    return VISITORS.of(visitor), ADDRESSES.of(address)


def _fill(todo: list[tuple[tuple, Callable[[], bytes]]], *budgets: Budget) -> None:
    """Compute the sets (key, compute) in order, one after the other, in one background thread: at least the first,
    then while this fill has taken under FILL_S and every budget lasts. The time spent is charged to each."""
    t0 = time.monotonic()
    for n, (key, compute) in enumerate(todo):
        if n and (time.monotonic() - t0 > FILL_S or min(b.left() for b in budgets) <= 0):
            break
        with charged(*budgets):
            FRAMES.get(key, compute, len)


def _gone():
    raise LookupError


def _cached(key: tuple) -> bytes | None:
    """A set at hand, or None (evicted meanwhile, or frames that cannot be drawn: nothing is computed here)."""
    try:
        frames = FRAMES.get(key, _gone)
    except LookupError:
        return None
    return None if frames == b"null" else frames


def set_id(key: tuple) -> str:
    """A set's name in the payload: the browser keeps each set it was sent under it."""
    return hashlib.blake2b(repr(key).encode(), digest_size=8).hexdigest()


def ahead(asked, sliders: dict[str, Scrub], kept: dict) -> tuple[str | None, dict[str, float]]:
    """A drag on coarse frames (or none) asks for the window around the thumb ("<slider>@<value>": the slider's value
    is still the one before the drag, as Streamlit hears of it on release). The asked slider, and the values whose
    windows go first instead of the sliders' own: kept (in `kept`) while the slider is where the drag began, so the
    polls that fetch the frames carry them too; a released slider's own window goes first again."""
    if isinstance(asked, str) and "@" in asked:
        name, _, value = asked.partition("@")
        try:
            v = float(value)
        except ValueError:
            v = float("nan")
        item = sliders.get(name)
        if item is not None and item.lo <= v <= item.hi:  # never outside the slider: a made-up value asks nothing
            kept[name] = (item.value, v)
        asked = name
    for name in list(kept):
        if name not in sliders or sliders[name].value != kept[name][0]:
            del kept[name]
    return asked, {name: v for name, (_, v) in kept.items()}


def _own_run(trigger: dict) -> bool:
    """Whether this run is the component's own (its poll, `ready`, or its ask, `want`: `trigger` is this run's trigger
    values), not the page's or its part's (a key, a release: a fragment around the page's charts): such a run carries
    at most PAGE_BYTES of new sets, so that the chart's answer is not held up by frames the next poll can bring (the
    recurrences page's T, steps back: 14 sets of 150-340 kB rode its key's reruns)."""
    return bool(trigger.get("want") or trigger.get("ready"))


def collect(items: list[Scrub], wanted: set, sent: dict, at: dict[str, float], own: bool
            ) -> tuple[list[bytes], list, bool]:
    """The payload's parts (per item: the ids of its sets at hand, and those not sent yet: in the component's `own` run
    up to SEND_BYTES of them, the first whatever its size, in a page's up to PAGE_BYTES), the sets to compute (rank,
    order, key, compute), and whether a set at hand was held for the next poll. `sent` is updated with what goes."""
    parts, todo, held = [], [], False
    room = full = SEND_BYTES if own else PAGE_BYTES
    for item in items:
        ids, sets = [], []
        # only the sliders this visitor reached for: frames at hand (a server's opening frames, another visitor's)
        # are not sent to a visitor who never drags or keys (up to 1.5 MB on the one-unit page)
        for rank, key, values, compute in plan(item, at.get(item.slider)) if item.slider in wanted else ():
            if key not in FRAMES:
                todo.append((rank, len(todo), key, (lambda i, v, f: lambda: f(i, v))(item, values, compute)))
                continue
            sid = set_id(key)
            if sid not in sent:
                frames = _cached(key)
                if frames is None:
                    continue
                if len(frames) > room and (room < full or not own):  # full: this one with the next poll
                    held = True
                    continue
                room -= len(frames)
                sets.append(b'"%s":%s' % (sid.encode(), frames))
            ids.append(sid)
            sent[sid] = sent.pop(sid, True)
        parts.append(b'{"slider":"%s","chart":"%s","ids":%s,"sets":{%s}}' % (
            item.slider.encode(), item.chart.encode(), json.dumps(ids).encode(), b",".join(sets)))
    return parts, todo, held


@fragment
def scrubs(page: str, items: list[Scrub]) -> None:
    """The page's scrubbed sliders (nothing visible). Frames are computed only for the sliders this visitor reaches
    for (scrub.js asks when the pointer reaches a slider, before the press, or the keyboard's focus has rested on it),
    and from then on for each new setting: a visitor who never drags or keys costs nothing, and one who does, only
    the sliders they use. For those, the sets at hand are named, those not sent yet sent (frames another visitor or
    the server's opening asked for too); the missing ones are computed in the background, coarse sets first, then
    the windows nearest the thumb."""
    if not chart.live():
        return
    if classroom():
        items = on_projector(items)
    state = st.session_state
    wanted = state.setdefault(f"scrub.{page}.wanted", set())
    sent = state.setdefault("scrub.sent", {})  # the ids of the sets this visitor's browser was sent, oldest first
    charged = budgets()
    sliders = {i.slider: i for i in items}
    trigger = state.get(f"scrub.{page}") or {}  # this run's trigger values: an ask, a poll, or none (not its run)
    asked = trigger.get("want")
    if asked == "!":  # the browser lacks a set it was sent (a payload lost): all of them again
        sent.clear()
    asked, at = ahead(asked, sliders, state.setdefault(f"scrub.{page}.ahead", {}))
    if asked in sliders:  # the pointer reached a slider: its frames, now and for each new setting
        wanted.add(asked)
    parts, todo, held = collect(items, wanted, sent, at, _own_run(trigger))
    while len(sent) > SENT:
        del sent[next(iter(sent))]
    todo = [(key, compute) for *_, key, compute in sorted(todo, key=lambda t: t[:2])]
    pending = bool(todo) or held
    if todo and min(b.left() for b in charged) > 0:  # after a new setting, a pause: that rerun goes first (the
        # computation would share its interpreter); a visitor or address over budget waits for it (the polls go on)
        FRAMES.fill_ahead(("fill",) + tuple(key for key, _ in todo), lambda: _fill(todo, *charged) or b"",
                          delay=0.0 if asked in sliders or at else DELAY)
    polls = state["scrub.polls"] = state.get("scrub.polls", 0) + pending
    # while pending, each run's data differs (a new count), so scrub.js runs again and schedules the next look
    # held: sets at hand the next poll brings, whatever the number of polls before (scrub.js)
    data = b'{"pending":%s,"held":%s,"poll":%d,"wanted":%s,"items":[%s]}' % (
        b"true" if pending else b"false", b"true" if held else b"false", polls, json.dumps(sorted(wanted)).encode(),
        b",".join(parts))
    _scrub(key=f"scrub.{page}", data=data, height=0, on_ready_change=lambda: None, on_want_change=lambda: None)
