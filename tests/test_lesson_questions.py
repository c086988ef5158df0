"""Every lesson offers the class at least three questions, each with the sentence that explains its answer; the new
questions' exact answers match the lecture notes' own numbers, and the misconception options are never right."""
import math

import pytest

from rnnviz.rooms import questions as Q
from ui.lessons.registry import LESSONS
from ui.questions.link import make


@pytest.mark.parametrize("ls", LESSONS, ids=lambda ls: ls.url)
def test_each_lesson_asks_three_questions_with_a_why(ls):
    assert len(ls.asks) >= 3
    lm = ls.model() if ls.model else None
    for qid in ls.asks:
        q, made, note = make(ls.url, qid, "", lm)  # the page's defaults
        assert q is not None and note is None, qid
        assert made.why.endswith(".") and len(made.why) > 40, qid


def test_the_new_answers_are_the_notes_numbers():
    x = [1.0, 0.0, 0.0]
    settles = Q.scalar_fate(x, 1, 2, 0, 0)
    assert settles.options[int(settles.truth)] == "settles" and settles.facts[0] == pytest.approx(0.957, abs=1e-3)
    assert Q.scalar_fate(x, 1, 0.5, 0, 0).truth == 0  # fades
    assert Q.scalar_fate(x, 1, -1.5, 0, 0).options[int(Q.scalar_fate(x, 1, -1.5, 0, 0).truth)] == "cycles"
    for w_h in (0.5, 2, -1.5, 1, -0.9):  # tanh bounds h: "grows" is never the answer
        assert Q.scalar_fate(x, 1, w_h, 0.3, 0).truth != 3
    p = Q.cell_parameters(100, 128, 50)  # H d + H² + H, not T times it
    assert p.options[int(p.truth)] == 100 * 128 + 128 * 128 + 128 and 50 * p.facts[0] in p.options
    assert Q.forget_fraction(1.0, 10).truth == pytest.approx((1 / (1 + math.e ** -1)) ** 10)  # 0.73^10 = 0.04
    assert Q.linear_steady(0.9, 1.0).truth == pytest.approx(10) and Q.linear_steady(1.0, 1.0) is None
    pad = Q.padded_last_state([5, 3, 2])
    assert pad.options[int(pad.truth)] == "padded" and pad.facts == (2, 5) and Q.padded_last_state([4, 4]) is None
    share = Q.output_share("lm", "rnn", 256, 512, 37580, 4, 0, 1, False)  # the notes' model: 19.3 M of 29.3 M
    assert share.truth == pytest.approx(19.3 / 29.3, abs=0.01)
    assert Q.not_most_likely([1, 2.2, -3, 4.1]).truth == pytest.approx(0.16, abs=0.01)  # o gets 0.84
    assert Q.temperature_first([0.0, math.log(3)], 0.5).truth == pytest.approx(0.1)  # 1 : 9 at τ = 1/2
    assert Q.parallel_recurrence().options[0] == "linear" and Q.parallel_recurrence().truth == 0


def test_clipping_never_scales_a_gradient_up():
    faded = Q.clipping(32, 50, 0.9, "sigma", 1.0, 0.0, 0.5, 0, 1.0)
    assert faded.options[int(faded.truth)] == "as is" and faded.facts[0] < -3
    grown = Q.clipping(32, 50, 2.0, "sigma", 1.0, 0.0, 0.5, 0, 1.0)
    assert grown.options[int(grown.truth)] == "down" and grown.facts[0] > 0
