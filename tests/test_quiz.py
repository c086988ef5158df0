"""The concept quiz measures learning: Hake's normalized gain from known answers, per item and for the class; a
scripted class of three phones takes the quiz in a room before and after, and the Quiz page and its CSV report the
gain computed by hand, with the misconception that persisted."""
import io
import math

import pandas as pd
import pytest

from rnnviz.rooms import store as store_module
from rnnviz.rooms.quiz import class_gain, item_gain, normalized_gain, persisting
from rnnviz.rooms.room import Question
from rnnviz.rooms.store import MemoryStore
from tests.conftest import all_text
from ui.quiz import room as Z
from ui.quiz.items import ITEMS


def test_normalized_gain_by_hand():
    assert normalized_gain(0.5, 0.75) == 0.5 and normalized_gain(0.2, 0.2) == 0.0
    assert normalized_gain(0.6, 0.4) == pytest.approx(-0.5)  # a class can lose ground
    assert math.isnan(normalized_gain(1.0, 1.0)) and math.isnan(normalized_gain(float("nan"), 0.5))
    a = item_gain([0, 0, 1, 1], [1, 1, 1, 0], right=1, options=3)
    assert (a.pre, a.post, a.g, a.post_counts) == (0.5, 0.75, 0.5, (1, 3, 0))
    assert persisting(a, right=1) == [0]  # 1 of 4 still chose option 0: at least 20 %
    cg = class_gain([[0, 0, 1, 1], [2, 0, 0, 0]], [[1, 1, 1, 0], [2, 2, 2, 2]], rights=[1, 2], options=[3, 3])
    assert [it.g for it in cg.items] == [0.5, 1.0]
    # the class's g comes from its averages (Hake), not from the mean of the items' g
    assert (cg.pre, cg.post, cg.g) == (0.375, 0.875, pytest.approx(0.5 / 0.625))


@pytest.fixture
def store(monkeypatch):
    s = MemoryStore()
    monkeypatch.setattr(store_module, "_default", s)
    return s


def wrong(k: int) -> int:
    """Item k's first wrong option: a misconception."""
    return next(o for o in range(len(ITEMS[k].options)) if o != ITEMS[k].right)


PLAN = {  # who answers right, per round: phone -> item index -> right?
    "pre": [lambda k: True, lambda k: k % 2 == 0, lambda k: False],
    "post": [lambda k: True, lambda k: True, lambda k: k < 5],
}


def test_a_scripted_class_gets_the_gain_computed_by_hand(open_page, store):
    assert len(ITEMS) >= 12
    at = open_page("quiz")
    at.button(key="quiz.open").click().run()
    code, token = at.session_state["class.code"], at.session_state["class.token"]
    phones = [store.issue_voter(code, f"phone{p}") for p in range(3)]
    for rnd in ("pre", "post"):
        at.segmented_control(key="quiz.round").set_value(rnd).run()
        for k in range(len(ITEMS)):
            at.button(key="quiz.next").click().run()
            view = store.view(code)
            assert view.question.prompt.endswith(ITEMS[k].prompt) and f"{k + 1} of {len(ITEMS)}" in view.question.prompt
            for p, v in enumerate(phones):
                store.vote(code, v, view.number, 1, ITEMS[k].right if PLAN[rnd][p](k) else wrong(k))
        at.run()
        assert at.button(key="quiz.next").disabled  # all items asked
    n = len(ITEMS)
    pre = sum(sum(f(k) for f in PLAN["pre"]) / 3 for k in range(n)) / n
    post = sum(sum(f(k) for f in PLAN["post"]) / 3 for k in range(n)) / n
    g = (post - pre) / (1 - pre)
    text = all_text(at)
    assert f"g = {g:.2f}**" in text and f"Before: **{100 * pre:.0f} %**" in text and not at.exception
    csv = pd.read_csv(io.BytesIO(Z.csv_bytes(Z.report(Z.gain(Z.answers(store.export(code, token)))))))
    assert list(csv["item"]) == [it.id for it in ITEMS] + ["class"]
    assert csv["g"].iloc[-1] == pytest.approx(g, abs=1e-4)
    assert list(csv["g"].iloc[[0, 1, 6, 7]]) == pytest.approx([1.0, 1.0, 0.0, 0.5])  # 2/3 -> 1, 1/3 -> 1, 2/3 -> 2/3,
    # and 1/3 -> 2/3: half of what was left to learn
    last = ITEMS[-1]  # after the lecture one phone in three still picks the first wrong option
    assert csv["persisted"].iloc[len(ITEMS) - 1].startswith(last.misconceptions[wrong(len(ITEMS) - 1)])


def test_an_item_asked_again_counts_its_last_asking_only(store):
    code, token = store.open_room()
    v = store.issue_voter(code, "x")
    for answer in (Z.ITEMS[0].right + 1, Z.ITEMS[0].right):  # asked twice before the lecture
        n = store.ask(code, token, Z.question(0, "pre"))
        store.vote(code, v, n, 1, answer % len(ITEMS[0].options))
    store.ask(code, token, Question("a lesson's question", "number", 1.0, lo=0, hi=2))  # not the quiz's
    assert Z.answers(store.export(code, token)) == {"pre": {ITEMS[0].id: [ITEMS[0].right]}, "post": {}}
