"""ui/live/steps.py: every step of a stepped chart, sent once per setting, rebuilds each step's own figure exactly; what
is kept per server is keyed by the figure's inputs' values; the bounds hold."""
import json
import threading
import time

import numpy as np
import pytest

from rnnviz.figures import gates as gate_figures, recurrences as rec_figures, vector as vector_figures
from rnnviz.lessons import gates as gate_lesson, recurrences as rec_lesson
from rnnviz.live.frames import plain
from tests.conftest import _as_list, lay_out
from ui.live import steps as S
from ui.live.steps import Steps, fingerprint


def as_sent(fig) -> dict:
    """A figure as the browser would get it drawn alone (its data and layout, arrays as lists)."""
    d = fig.to_dict()
    return _as_list(json.loads(json.dumps(plain({"data": d["data"], "layout": d["layout"]}))))


def laid_out(body: bytes, t: int) -> tuple[dict, str]:
    """Step t of a stepped chart's frames, laid out as ui/live/stepped.js lays them."""
    return lay_out(json.loads(body), t)


def _body(payload: bytes) -> bytes:
    """A payload's figure and steps (its head: config, text alternative, plotly.js's address, left out)."""
    sent = json.loads(payload)
    return json.dumps({"figure": sent["figure"], "steps": sent["steps"]}).encode()


def gates_steps() -> Steps:
    x = np.eye(4)[[0, 1, 2, 2, 3]]
    model = gate_lesson.run("lstm", x, gate_lesson.generate("lstm", 4, 3, 0, 1.0, 1.0))
    names = gate_lesson.panels("lstm")
    return Steps("gates", 5, lambda u: gate_figures.gate_heatmaps(model, names, list("hello"), current=u - 1),
                 lambda u: f"step {u} of 5")


def linear_steps(x=(1.0, 0, 0, 0, 0, 0, 0, 0), a=0.9) -> Steps:
    tr = rec_lesson.linear_run(a, 1.0, list(x))
    return Steps("rec.lin", len(x), lambda u: rec_figures.linear_steps(tr.x[:, 0], tr.h[:, 0], u),
                 lambda u: f"h up to {u}")


def vector_heat() -> Steps:
    h = np.tanh(np.arange(15.0).reshape(5, 3) / 7 - 1)
    return Steps("vector", 5, lambda u: vector_figures.states_heatmap(h, list("hello"), current=u - 1),
                 lambda u: f"steps 1 to {u}")


@pytest.mark.parametrize("make", [gates_steps, linear_steps, vector_heat])
def test_every_step_is_that_steps_own_figure(make):
    steps = make()
    body = S.frames(steps, lambda f: f)
    assert body is not None
    for t in range(1, steps.T + 1):
        figure, alt = laid_out(body, t)
        own = as_sent(steps.build(t))
        own["layout"].pop("template", None)
        assert figure == own, t
        assert alt == steps.alt(t)


def test_a_chart_that_plays_frames_of_its_own_carries_each_steps_frames():
    """The one-unit page's tanh chart has a Play button that plays steps 1 to t: each step, laid out, is the page's
    own figure with its own Play frames (a step drawn ahead plays what the rerun's figure would)."""
    from rnnviz.lessons.scalar import run_scalar
    from ui.lessons import scalar as words

    D = words.D
    trace = run_scalar(list(D.x), D.w_x, D.w_h, D.b, D.h0)
    steps = Steps("scalar", len(D.x), lambda u: words.tanh_chart(trace, D.b, u, 1.0), lambda u: f"steps 1 to {u}")
    body = S.frames(steps, lambda f: f)
    assert body is not None
    played = []
    for t in range(1, steps.T + 1):
        figure, _ = laid_out(body, t)
        d = steps.build(t).to_dict()
        own = _as_list(json.loads(json.dumps(plain({"data": d["data"], "layout": d["layout"],
                                                   "frames": d.get("frames", [])}))))
        own["layout"].pop("template", None)
        # a layout entry a step does not have is null in its frame (plotly.js reads it as absent): step 1's Play menu
        figure["layout"] = {k: v for k, v in figure["layout"].items() if v is not None}
        assert figure == own, t
        played.append(len(figure["frames"]))
    assert played == list(range(1, steps.T + 1))  # step t plays steps 1 to t


def test_the_three_trained_cells_65_steps_are_sent_at_once(monkeypatch, validated_figures):
    """The lockstep view opens on the shipped trained cells reading 'First letter' (65 steps, 13,000 cells): every step
    goes out at once, each step's own figure, and the steps add a few KB a step to the figure, not a figure each (a
    step covers the steps it has not reached with a shape: the cells' values stay as they are)."""
    from rnnviz.experiments import lag_results
    from rnnviz.figures import base

    # each step's notes make it a figure of a shape of its own to conftest's validation (0.4 s each): the lockstep
    # figure is validated by the gates tests
    monkeypatch.setattr(base, "SpecFigure", validated_figures)
    from rnnviz.lessons import memory
    from ui.lessons import gates as words, gates_memory

    weights = lag_results.load_weights()
    if weights is None:
        pytest.skip("no trained cells shipped (models/lag_models.safetensors)")
    word = memory.first_letter_word(gates_memory.MEMORY_T, words.LETTERS)
    x = np.eye(len(words.LETTERS))[[words.LETTERS.index(ch) for ch in word]]
    ls = memory.trained_lockstep(x, weights)
    steps = Steps("gates", len(x), lambda u: gate_figures.lockstep_heatmaps(
        ls.traces, ls.sizes, ls.params, list(word), u - 1, 1.0, words.lockstep_notes(ls, u)),
        lambda u: words.lockstep_alt(ls, u))
    body = S.frames(steps, lambda f: f)
    assert body is not None and steps.T == 65 > 60  # 60 steps was the bound before
    alone = len(json.dumps(json.loads(body)["figure"], separators=(",", ":")))
    assert len(body) - alone < 65 * 4_000 <= S.MAX_BYTES < alone  # the figure itself is 1.2 MB
    for t in (1, 33, 65):
        figure, alt = laid_out(body, t)
        own = as_sent(steps.build(t))
        own["layout"].pop("template", None)
        assert figure == own and alt == steps.alt(t), t


def test_a_long_input_is_drawn_as_before():
    assert S.frames(linear_steps(x=[1.0] * (S.MAX_STEPS + 1)), lambda f: f) is None
    assert S.frames(linear_steps(x=[1.0]), lambda f: f) is None  # one step: nothing to step through


def test_frames_past_the_byte_bound_are_not_sent(monkeypatch):
    monkeypatch.setattr(S, "MAX_BYTES", 2_000)
    assert S.frames(gates_steps(), lambda f: f) is None


def test_fingerprint_goes_by_value():
    a, b = np.arange(6.0), np.arange(6.0)
    assert fingerprint(lambda u: a[u]) == fingerprint(lambda u: b[u])
    b[3] = 3.5
    assert fingerprint(lambda u: a[u]) != fingerprint(lambda u: b[u])
    assert fingerprint({"x": [1, 2]}, 0.5) != fingerprint({"x": [1, 2]}, 0.25)
    assert fingerprint(linear_steps().build) != fingerprint(linear_steps(a=0.95).build)
    assert fingerprint(lambda u: u + 1) != fingerprint(lambda u: u + 2)
    assert fingerprint(lambda u, k=1: u + k) != fingerprint(lambda u, k=2: u + k)
    assert fingerprint(threading.Lock()) is None  # no value to go by: nothing kept for it
    assert fingerprint(lambda u: np.sin(u)) != fingerprint(lambda u: np.cos(u))  # the names it calls
    # the same page code compiled twice (a new session, a reloaded page), with a generator inside: the same key, so
    # what one visitor had computed serves the next
    src = "lambda u: ', '.join(str(v) for v in range(u))"
    assert fingerprint(eval(compile(src, "page.py", "eval"))) == fingerprint(eval(compile(src, "page.py", "eval")))


def test_the_payload_comes_once_computed_and_is_the_same_whatever_the_step(monkeypatch):
    monkeypatch.setattr(S, "FRAMES", S.SharedCache(2 ** 20))
    monkeypatch.setattr(S, "DELAY", 0.0)
    steps = linear_steps()
    first = S.stepped_payload("rec.linear", steps, S._as_is, {}, False, 3)  # computed in the background: step 3 and
    assert json.loads(first)["steps"]["values"] == [2, 3, 4]  # its neighbours meanwhile (a first press draws ahead)
    for _ in range(200):
        sent = S.stepped_payload("rec.linear", steps, S._as_is, {}, False, 3)
        if json.loads(sent)["steps"]["values"] == list(range(1, 9)):
            break
        time.sleep(0.01)
    assert json.loads(sent)["steps"]["values"] == list(range(1, 9))
    other = S.stepped_payload("rec.linear", linear_steps(), S._as_is, {}, False, 4)  # another step, same setting
    assert other == sent  # the same bytes: the browser has nothing to redraw
    assert json.loads(sent)["steps"]["stepper"] == "rec.lin"
    fresh = S.stepped_payload("rec.linear", linear_steps(a=0.5), S._as_is, {}, False, 3)  # a new setting
    assert json.loads(fresh)["steps"]["values"] == [2, 3, 4]
    for t in (2, 3, 4):  # each step near 3 is the same figure as that step among all the steps
        assert laid_out(_body(first), t) == laid_out(_body(sent), t)


def test_a_visitor_past_its_budget_steps_as_before_and_the_steps_it_has_computed_are_charged(monkeypatch):
    """A setting's steps are computed on the budgets of the visitor who asked and its address (the dragged sliders'
    budgets, ui/live/scrub.py): a visitor with nothing left gets the step and its neighbours, nothing computed; one
    who asks is charged the time it took."""
    from rnnviz.live.schedule import Budget

    monkeypatch.setattr(S, "FRAMES", S.SharedCache(2 ** 20))
    monkeypatch.setattr(S, "DELAY", 0.0)
    spent, fresh = Budget(1.0), Budget(4.0)
    spent.spend(1.5)
    monkeypatch.setattr(S, "budgets", lambda: (spent, fresh))
    for _ in range(3):
        assert json.loads(S.stepped_payload("rec.linear", linear_steps(), S._as_is, {}, False, 3))["steps"][
            "values"] == [2, 3, 4]
        time.sleep(0.05)
    assert fresh.left() == 4.0 and not S._PENDING  # nothing asked, nothing charged
    monkeypatch.setattr(S, "budgets", lambda: (fresh,))
    for _ in range(200):
        if len(json.loads(S.stepped_payload("rec.linear", linear_steps(), S._as_is, {}, False, 3))["steps"][
                "values"]) == 8:
            break
        time.sleep(0.01)
    assert 0 < 4.0 - fresh.left() < 1.0  # its computation, charged


def test_a_pages_second_stepped_chart_is_computed_too(monkeypatch):
    """Two stepped charts on one page (the cell page's moves and states), each asked for once by the page's first
    rerun, are both computed, one after the other: the second is not left for a later rerun to ask again."""
    monkeypatch.setattr(S, "FRAMES", S.SharedCache(2 ** 20))
    monkeypatch.setattr(S, "DELAY", 0.0)
    charts = [("rec.linear", linear_steps()), ("vector.heat", vector_heat())]
    for key, steps in charts:
        assert json.loads(S.stepped_payload(key, steps, S._as_is, {}, False, 1))["steps"]["values"] == [1, 2]
    kept = [("steps", key, steps.stepper, steps.T, False, fingerprint(steps.build, steps.alt, S._as_is))
            for key, steps in charts]
    for _ in range(300):
        if all(k in S.FRAMES for k in kept):
            break
        time.sleep(0.01)
    assert all(k in S.FRAMES for k in kept)
