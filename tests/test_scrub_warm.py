"""A server computes the frames of each page's scrubbed sliders as the page opens, once, before anyone asks (ui/live/
scrub.py warm): the declarations it computes from (ui/lessons/registry.py `scrubbed`) must be what each page really
builds at its defaults, on a laptop and on a projector, or the frames would be computed for nothing."""
import threading

import pytest

from ui import loaders
from ui.lessons import recurrences as rec_words
from ui.lessons.registry import LESSONS
from ui.live import scrub

SCRUBBED = [ls for ls in LESSONS if ls.scrubbed]
# the pages whose views scrub different sliders
VIEWS = {"recurrences": ({}, {"view": "eigen"}, {"view": "selective"}, {"view": "grad"}, {"view": "min"}),
         "gradients": ({}, {"view": "clip"}, {"view": "factors"})}


@pytest.fixture
def built(monkeypatch):
    """The items each run of a page hands to ui.live.scrub.scrubs."""
    seen = []
    original = scrub.scrubs

    def spy(page, items):
        seen.extend(items)
        return original(page, items)
    monkeypatch.setattr(scrub, "scrubs", spy)
    return seen


@pytest.mark.parametrize("room", [False, True], ids=["laptop", "projector"])
@pytest.mark.parametrize("ls", SCRUBBED, ids=[ls.url for ls in SCRUBBED])
def test_each_page_at_its_defaults_builds_the_sliders_its_lesson_declares(open_page, built, ls, room):
    """Each page, in each of its views, builds at its defaults the scrubbed sliders its lesson declares (the frames a
    server computes as it starts), and each text their frames write has its container on the page."""
    declared, seen = ls.scrubbed(room), 0
    for query in VIEWS.get(ls.url, ({},)):
        at = open_page(ls.url, **query, **({"classroom": "1"} if room else {}))
        assert not at.exception
        has_its_containers(at, built[seen:], (ls.url, query))
        seen = len(built)
    assert built, f"{ls.url}: no scrubbed slider on the page"
    missing = [(i.slider, i.chart) for i in built if i not in declared]
    assert not missing, f"{ls.url}: built at its defaults but not declared (their frames would not be warm): {missing}"
    unused = [(i.slider, i.chart) for i in declared if i not in built]
    assert not unused, f"{ls.url}: declared but not built by the page at its defaults: {unused}"


def block_keys(at) -> set[str]:
    """The keys of the page's containers and components, as AppTest holds them ("$$ID-<digest>-<key>")."""
    found, todo = set(), [at._tree]
    while todo:
        node = todo.pop()
        ident = getattr(getattr(node, "proto", None), "id", "")
        if ident.startswith("$$ID-"):
            found.add(ident.split("-", 2)[2])
        children = getattr(node, "children", None) or {}
        todo += list(children.values() if isinstance(children, dict) else children)
    return found


def has_its_containers(at, items: list, where) -> None:
    """A frame's words are written over the container of their key: one the page does not draw would leave its text
    standing still through a drag (nothing fails, nothing follows)."""
    keys = block_keys(at)
    for item in items:
        if item.build is None:  # the words alone: written over the container `chart`
            assert item.chart in keys, (where, item.slider, item.chart)
        for name, said in (item.words(item.value) if item.words else {}).items():
            if said:  # a text the page leaves out at this value (an empty note) has no container then
                assert name in keys, (where, item.slider, name)


def test_the_three_untrained_cells_frames_write_texts_the_page_draws(open_page, built):
    """The gates page's three cells side by side, untrained (their frames are not warm: not declared)."""
    at = open_page("gates", view="lockstep", trained="0")
    assert built and not at.exception
    has_its_containers(at, built, "gates, three untrained cells")


def _selective(room: bool):
    """A small page's sliders, as a lesson declares them (w and c: 81 notches each, a few ms)."""
    return rec_words.selective_scrubs(rec_words.Selective(1.0, 0.0, (1.0, 0.0, 2.0)), 1.45 if room else 1.0)


def _finish():
    for t in threading.enumerate():
        if t.name == "rnnviz-warm-frames":
            t.join(30)


def test_warm_computes_every_set_of_every_declared_slider_once_and_pins_it(monkeypatch):
    monkeypatch.setattr(loaders, "_STARTED", set())  # a fresh server
    monkeypatch.setattr(scrub, "FRAMES", scrub.SharedCache(2 ** 20))
    monkeypatch.setenv("RNNVIZ_WARM_FRAMES", "1")
    assert scrub.warm([_selective], delay=0)
    assert not scrub.warm([_selective], delay=0)  # once per server
    _finish()
    items = _selective(False) + scrub.on_projector(_selective(True))
    keys = [key for i in items for _, key, _, _ in scrub.plan(i)]
    assert len(keys) == 4 and all(k in scrub.FRAMES for k in keys)  # w and c, each one set, laptop and projector
    # a visitor's frames filling the cache do not push them out
    for n in range(40):
        scrub.FRAMES.get(("other", n), lambda: b"x" * 100_000, len)
    assert all(k in scrub.FRAMES for k in keys)
    # and a visitor on the page's defaults is sent them as they are, without computing anything
    first = items[0]
    assert scrub._cached(first.key(first.sets()[0])) == scrub._compute(first, first.sets()[0])


@pytest.mark.parametrize("bound", ["one slider", "all"])
def test_warm_spends_a_bounded_time_beyond_every_sliders_first_sets(monkeypatch, bound):
    """Every slider gets its coarse set and the window at its value (a first drag's frames) before any gets more;
    beyond those, one slider's frames stop once WARM_ITEM_S is spent on it (the set that crosses it is kept), and all
    stop once WARM_S is spent; the rest is left to the visitors' asks."""
    monkeypatch.setattr(loaders, "_STARTED", set())
    monkeypatch.setattr(scrub, "FRAMES", scrub.SharedCache(2 ** 22))
    monkeypatch.setattr(scrub, "WARM_ITEM_S" if bound == "one slider" else "WARM_S", 0.0)
    monkeypatch.setenv("RNNVIZ_WARM_FRAMES", "1")
    cheap = _selective(False)[0]
    dear = [scrub.Scrub(f"s.{n}", "s.chart", ("dear",), 50.0, 0.0, 100.0, 1.0, cheap.build, 11) for n in "xy"]
    assert scrub.warm([lambda room: dear], delay=0)
    _finish()
    for item in dear + scrub.on_projector(dear):
        keys = [key for _, key, _, _ in scrub.plan(item)]
        assert len(keys) == 11  # the coarse set and ten windows
        beyond = 1 if bound == "one slider" else 0
        assert [k in scrub.FRAMES for k in keys] == [True, True] + [True] * beyond + [False] * (9 - beyond)


def _warm_two(monkeypatch, flag: str) -> tuple:
    """Two sliders of 101 notches in sets of 11, declared with `flag` False and True, warmed as a fresh server opens."""
    monkeypatch.setattr(loaders, "_STARTED", set())
    monkeypatch.setattr(scrub, "FRAMES", scrub.SharedCache(2 ** 22))
    monkeypatch.setenv("RNNVIZ_WARM_FRAMES", "1")
    cheap = _selective(False)[0]
    two = tuple(scrub.Scrub(f"s.{n}", "s.chart", ("dear",), 50.0, 0.0, 100.0, 1.0, cheap.build, 11, **{flag: w})
                for n, w in (("x", False), ("y", True)))
    assert scrub.warm([lambda room: list(two)], delay=0)
    _finish()
    return two


def test_a_slider_declared_without_far_sets_gets_a_first_drags_alone(monkeypatch):
    """warm_far=False (a view opened later, the impulse response beside the plane): its coarse set and the window at
    its value, no more, while a slider beside it gets its far sets within the bounds: its far sets had crowded the
    sampling page's out of WARM_BYTES."""
    from rnnviz.lessons import clipping
    from ui.lessons import clipping as clip_words

    near, far = _warm_two(monkeypatch, "warm_far")
    assert [k in scrub.FRAMES for _, k, _, _ in scrub.plan(near)] == [True, True] + [False] * 9
    assert all(k in scrub.FRAMES for _, k, _, _ in scrub.plan(far))
    # the training comparison's sliders (each set trains its notches' runs: 1.5 s) are declared so: their far sets
    # took another 2.9 MB of the others' frames within WARM_S
    training = clip_words.training_scrubs(clipping.Settings(2.0, 0.3, 2.0), 1.0)
    assert training and not any(i.warm_far for i in training)


def test_warm_is_left_out_where_the_environment_says_so(monkeypatch):
    monkeypatch.setattr(loaders, "_STARTED", set())  # a fresh server
    monkeypatch.setenv("RNNVIZ_WARM_FRAMES", "0")
    assert not scrub.warm([_selective], delay=0)
