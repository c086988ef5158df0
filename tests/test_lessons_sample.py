"""The sampling page's numbers (rnnviz.lessons.sample and .shading): compact samples, positions, shading values,
limits, the passage analysis, the shared cache, and the escaped markup the text is drawn with. Its words, links and
cache policy are tested in test_ui_lessons_sample.py."""
import json
import math
import threading
import time

import numpy as np
import pytest

from rnnviz import charlm
from rnnviz.charlm.inspect import connectivity, rank_units
from rnnviz.figures import sample as figures
from rnnviz.lessons import sample as L, shading
from rnnviz.lessons.cache import SharedCache
from rnnviz.nn.sampling import SamplingSettings
from tests.conftest import ROOT
from tests.helpers import tiny

MODEL = ROOT / "models" / "shakespeare.safetensors"
needs_model = pytest.mark.skipif(not MODEL.exists(), reason="the shipped model is missing")


@pytest.fixture(scope="module")
def lm():
    return charlm.load(MODEL)


@needs_model
def test_limits_scale_with_the_cost_per_character(lm):
    assert L.max_chars(lm) == 2506 and L.passage_limit(lm) == 3970 + 30
    heavy = tiny("lstm")
    heavy.cost_per_char = 5 * lm.cost_per_char  # five times the work of the shipped model per character
    assert L.max_chars(heavy) == L.SAMPLE_BUDGET // heavy.cost_per_char < 700
    wide = tiny("rnn", layers=1)
    wide.vocab_size = 8000
    assert L.max_chars(wide) == L.PROB_BUDGET // 8000 == 500
    assert L.most_chars(lm, "ROMEO:") == 2000 and L.most_chars(lm, "x" * 600) == 2506 - 600
    assert L.unknown_chars(lm, "ROMEO: ~<~") == ["<", "~"] and L.unknown_chars(lm, "ROMEO:") == []
    assert L.forced_within(lm, 10, {12: "a", 3: "x", 1: "~", 0: "Z"}) == ((0, "Z"), (3, "x"))  # 12: past the end


@needs_model
def test_a_compact_sample_keeps_what_the_full_trace_shows(lm):
    s = SamplingSettings("ROMEO:", 60, 0.8, None, 0.9, 5)
    smp = L.draw_sample(lm, s)
    tr = lm.draw(s)
    assert smp.text == tr.text == "ROMEO:" + lm.generate("ROMEO:", 60, temperature=0.8, top_p=0.9, seed=5)
    ids = [lm.stoi[c] for c in tr.text]
    np.testing.assert_allclose(smp.p_char[1:], [tr.probs[i - 1][ids[i]] for i in range(1, len(ids))], rtol=1e-6)
    assert np.isnan(smp.p_char[0])
    i = 30
    info = L.position(lm, smp, i)
    order = np.argsort(-tr.probs[i - 1], kind="stable")[:10]
    assert [c for c, _ in info.model_top] == [lm.itos[j] for j in order]
    entropy = float(-(tr.probs[i - 1] * np.log(tr.probs[i - 1])).sum())
    assert info.model_entropy == pytest.approx(entropy, rel=1e-5) and info.model_choices == pytest.approx(
        math.exp(entropy), rel=1e-5)
    assert info.surprisal_bits == pytest.approx(-math.log2(tr.probs[i - 1][ids[i]]), rel=1e-6)
    assert L.mean_sampled_p(smp) == pytest.approx(np.mean([tr.probs[j - 1][ids[j]] for j in range(6, 66)]), rel=1e-6)
    assert L.mean_sampled_p(L.draw_sample(lm, SamplingSettings("ROMEO:", 0, 0.8, None, None, 5))) is None
    sampled = tr.sampled_probs[i - 6]
    assert info.sampled_top[0][1] == pytest.approx(sampled.max(), rel=1e-6) and info.source == "sampled"
    assert sum(p for _, p in info.sampled_top) <= 1 + 1e-6
    assert smp.h.dtype == np.float32 and smp.model_top_p.dtype == np.float32  # nothing of size V kept
    assert smp.nbytes < 66 * (4 * 2 * 2 * 512 + 200)


@needs_model
def test_greedy_entropy_is_zero_and_forced_characters_are_marked_forced(lm):
    smp = L.draw_sample(lm, SamplingSettings("ROMEO:", 20, 0.8, 1, None, 1, ((3, "x"),)))
    assert smp.text[9] == "x" and smp.forced == frozenset({9})
    info = L.position(lm, smp, 9)
    assert info.source == "forced" and info.sampled_top is not None and info.char == "x"
    other = L.position(lm, smp, 12)
    assert other.source == "sampled" and other.sampled_entropy == 0.0 and math.copysign(1, other.sampled_entropy) == 1
    assert other.sampled_top[0][1] == 1.0 and other.sampled_top[0][0] == other.char  # greedy: certain of its pick
    assert L.position(lm, smp, 3).source == "prime" and L.position(lm, smp, 3).sampled_top is None
    assert L.position(lm, smp, 0) is None


@needs_model
def test_shading_values(lm):
    smp = L.draw_sample(lm, SamplingSettings("ROMEO:", 40, 1.0, None, None, 2))
    p = shading.probability_shading(smp)
    np.testing.assert_allclose(p.values[1:], 1 - smp.p_char[1:], rtol=1e-6)
    assert len(p.values) == 46 and (p.lo, p.hi, p.signed) == (0.0, 1.0, False)
    s = shading.surprisal_shading(smp)
    np.testing.assert_allclose(s.values[1:], -np.log2(smp.p_char[1:].astype(float)))
    assert (s.lo, s.hi) == (0.0, 8.0)
    u = shading.unit_shading(smp, 1, "c", 7)
    np.testing.assert_array_equal(u.values, smp.c[:, 1, 7])
    assert u.signed and u.lo == -u.hi == -np.abs(smp.c[:, 1, 7]).max()
    np.testing.assert_array_equal(shading.unit_shading(smp, 0, "h", 3).values, smp.h[:, 0, 3])
    c = shading.connectivity_shading(lm, smp, 10)
    np.testing.assert_allclose(c.values[:10], connectivity(lm, smp.text, 9), rtol=1e-6)
    assert np.isnan(c.values[10:]).all() and c.hi == np.nanmax(c.values) == c.values[c.peak] and c.unread_after == 10


def test_unit_ranking_finds_planted_units():
    text = "ab\ncd\n" * 20
    T = len(text)
    rng = np.random.default_rng(0)
    h = rng.normal(0, 0.1, (T, 2, 8))
    nl = np.array([c == "\n" for c in text], float)
    h[:, 1, 5] = nl  # tracks line breaks exactly
    h[:, 0, 2] = -nl * 3 + 1  # the same, upside down
    hits = [x for x in rank_units(h, None, text) if x.feature == "newline"]
    assert {(x.layer, x.unit, round(x.r, 4)) for x in hits[:2]} == {(1, 5, 1.0), (0, 2, -1.0)}  # shown to 3 places
    assert "inside quotes" not in {x.feature for x in rank_units(h, None, text)}  # never varies here


def test_analysis_of_a_tiny_model():
    m = tiny("lstm", layers=2)
    text = "abc de\n" * 40
    a = L.analyse_passage(m, text)
    assert a.chars == 280 and sorted(a.saturation) == [50, 100, 200, 280] and L.span_choices(a) == [50, 100, 200, 0]
    below, above = a.saturation[280][1]["f"]
    assert below.shape == (6,) and ((below + above) <= 1).all()
    assert a.closed[0]["o"].shape == (280,)
    assert L.forget_saturation(a) == [(k + 1, pytest.approx(lo.mean()), pytest.approx(hi.mean()))
                                      for k, (lo, hi) in enumerate(layer["f"] for layer in a.saturation[280])]
    assert L.analyse_passage(tiny("rnn"), text).saturation[280] == [{}, {}]
    assert L.forget_saturation(L.analyse_passage(tiny("rnn"), text)) == []  # no gates
    assert L.forget_saturation(L.analyse_passage(tiny("gru", layers=1), text))[0][0] == 1  # the update gate z
    done = []
    L.analyse_passage(m, "ab\n" * 300, done.append)
    assert done == [n / 1800 for n in range(250, 1800, 250)]  # fractions of the two layers' steps, while read


@needs_model
def test_the_passage_and_the_sample_are_analysed_from_their_own_states(lm):
    passage = L.excerpt(lm)
    assert passage == L.EXCERPT.read_text(encoding="utf-8") and len(passage) == 3970 < L.passage_limit(lm)
    heavy = tiny("lstm")
    heavy.cost_per_char = 5 * lm.cost_per_char  # reads 800 characters at most, of those it knows
    assert len(L.excerpt(heavy)) == 800 and set(L.excerpt(heavy)) <= set("abcde \n")
    smp = L.draw_sample(lm, SamplingSettings("ROMEO:", 80, 0.8, None, None, 3))
    own, again = L.analyse_sample(lm, smp), L.analyse_passage(lm, smp.text)  # states kept vs read again
    assert own.chars == 86 and [(x.feature, x.layer, x.unit) for x in own.hits] == \
        [(x.feature, x.layer, x.unit) for x in again.hits]
    np.testing.assert_allclose(own.saturation[86][0]["f"][0], again.saturation[86][0]["f"][0], atol=0.02)


def test_the_card_loss_in_nats_bits_and_perplexity():
    loss = L.validation_loss(json.loads((ROOT / "models" / "shakespeare.json").read_text()))
    assert loss.nats == pytest.approx(1.4475, abs=5e-5) and loss.bits == pytest.approx(loss.nats / math.log(2))
    assert loss.perplexity == pytest.approx(math.exp(loss.nats)) and f"{loss.bits:.3f}" == "2.088"
    for bad in (1e400, float("nan"), -1, 50, True, "1.2", None):
        assert L.validation_loss({"val_loss": bad}) is None
    assert L.validation_loss({}) is None and L.validation_loss({"val_loss": 0}).perplexity == 1.0


def recording(calls: list, until):
    """A computation factory: work(v) records v in `calls`, waits for until() to return, and gives v."""
    def work(v):
        def compute():
            calls.append(v)
            until()
            return v
        return compute
    return work


def test_shared_cache_computes_once_and_evicts_the_oldest():
    cache = SharedCache(max_bytes=100)
    calls = []
    slow = recording(calls, lambda: time.sleep(0.2))

    out = []
    threads = [threading.Thread(target=lambda: out.append(cache.get("k", slow("K"), lambda v: 10))) for _ in range(5)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert out == ["K"] * 5 and calls == ["K"]  # five visitors, one computation
    cache.get("pin", lambda: "P", pinned=True)
    for k in range(12):
        cache.get(k, lambda k=k: k, lambda v: 10)
    assert cache.get("pin", slow("again")) == "P"  # pinned: never evicted
    assert cache.get("k", slow("K2")) == "K2"  # the oldest sized entry went first
    assert cache.get(11, slow("x")) == 11

    def boom():
        raise KeyboardInterrupt  # e.g. the visitor's rerun interrupting the work

    with pytest.raises(KeyboardInterrupt):
        cache.get("b", boom)
    assert cache.get("b", lambda: "ok") == "ok"  # the next visitor computes it


def test_a_value_computed_ahead_is_found_later_and_computed_once():
    cache = SharedCache(max_bytes=100)
    calls, release = [], threading.Event()
    work = recording(calls, lambda: release.wait(5))

    assert cache.fill_ahead("next", work("N"))
    assert not cache.fill_ahead("other", work("O"))  # one at a time per cache
    release.set()
    assert cache.get("next", work("N again")) == "N" and calls == ["N"]  # waited for it rather than computing it twice
    deadline = time.monotonic() + 5
    while not cache.fill_ahead("other", work("O")) and time.monotonic() < deadline:  # the slot is free again
        time.sleep(0.01)
    assert cache.get("other", work("O again")) == "O" and not cache.fill_ahead("other", work("O"))  # cached: nothing

    def boom():
        raise ValueError("bad weights")

    deadline = time.monotonic() + 5
    while not cache.fill_ahead("b", boom) and time.monotonic() < deadline:
        time.sleep(0.01)
    with cache._ahead:  # the failed fill has finished; whoever asks computes it and sees any error
        assert cache.get("b", lambda: "ok") == "ok"


def test_text_markup_is_escaped_and_one_span_per_character():
    text = 'a<script>&"\'\nb'
    html = figures.text_markup(text, np.linspace(0, 1, len(text)), 0, 1, titles=[f'<{c}>"' for c in text], selected=2)
    tags = {t.split(" ")[0].split(">")[0] for t in html.split("<")[1:]}
    assert tags == {"div", "/div", "span", "/span", "br"}  # no tag from the text or the titles
    assert ">&lt;</span>" in html and ">&amp;</span>" in html and ">&quot;</span>" in html and ">&#x27;</span>" in html
    assert html.count("<span ") == len(text) and html.count("<br>") == 1 and "↵" in html
    assert 'class="sel"' in html and 'title="&lt;&amp;&gt;&quot;"' in html
    assert html.count('data-i="') == len(text) and 'data-i="13"' in html
    faded = figures.text_markup("abcd", np.array([np.nan, 1, 0, np.nan]), 0, 1, unread_after=1)
    assert faded.count('class="na"') == 2 and faded.count("background:") == 2



def test_text_markup_asked_again_follows_every_argument():
    """The markup is kept for the same arguments (a position moved, a class sampling the same seeds): a change to any
    of them (a value, a title, the faded tail, the type size) still shows on the page."""
    text, v = "abc", np.array([0.0, 0.5, 1.0])
    first = figures.text_markup(text, v, 0, 1, titles=["x", "y", "z"])
    assert figures.text_markup(text, v.copy(), 0, 1, titles=["x", "y", "z"]) == first
    changed = [figures.text_markup(text, np.array([0.0, 0.5, 0.9]), 0, 1, titles=["x", "y", "z"]),
               figures.text_markup(text, v, 0, 1, titles=["x", "y", "w"]),
               figures.text_markup(text, v, 0, 1, titles=["x", "y", "z"], unread_after=0),
               figures.text_markup(text, v, 0, 1, titles=["x", "y", "z"], font_scale=1.45),
               figures.text_markup(text, v, -1, 1, titles=["x", "y", "z"], signed=True)]
    assert len({first, *changed}) == 6

def test_colours_and_bars():
    c = figures.colours(np.array([0.0, 1.0, np.nan, 5.0]), 0, 1)
    assert c == ["#ffffff", figures.SEQUENTIAL[-1][1], None, figures.SEQUENTIAL[-1][1]]
    # the house's signed scale, as the sidebar's legend names it (the issue: blue/pink here, purple/grey there)
    assert figures.colours(np.array([-1.0, 0, 1]), -1, 1, figures.SIGNED) == ["#762a83", "#f7f7f7", "#3f3f3f"]
    bars = figures.dist_markup([("<", 0.5, 0.7), ("&", 0.25, None)], "model <b>", "sampled")
    assert "<b>" not in bars and "&lt;" in bars and "&amp;" in bars and "0.700" in bars and "0.000" in bars
    assert "width:50.0%" in bars


def test_the_kl_chart_numbers_characters_from_where_the_page_counts():
    """The clamp view counts characters from 1: bar k of `kl` is character k + 1, and the parting and the inspected
    character are marked at their numbers."""
    fig = figures.kl_figure(np.array([0.0, 0.1, 0.3, 0.2]), first_change=2, selected=3, first=1).to_dict()
    assert list(fig["data"][0]["x"]) == [1, 2, 3, 4] and list(fig["data"][0]["y"]) == [0.0, 0.1, 0.3, 0.2]
    assert [sh["x0"] for sh in fig["layout"]["shapes"]] == [3, 4] and fig["layout"]["xaxis"]["range"] == [1, 4]
    assert list(figures.kl_figure(np.zeros(3)).to_dict()["data"][0]["x"]) == [0, 1, 2]  # a notebook's index: from 0


def test_figures_build():
    sat = [{"i": (np.array([0.1, 0.2]), np.array([0.5, 0.1])), "f": (np.zeros(2), np.ones(2))}]
    for fig in (figures.saturation_figure(sat), figures.closed_share_figure([{"o": np.linspace(0, 1, 500)}], bins=50),
                figures.state_grid(np.zeros((2, 8)))):
        assert fig.to_dict()["data"]
    share = np.linspace(0, 1, 500)
    line = figures.closed_share_figure([{"o": share}], bins=50).to_dict()["data"][0]
    assert line["x"][:3] == [1, 2, 3] and line["y"][:3] == list(share[:3])  # the start, character by character
    assert len(line["x"]) <= 50 and math.isclose(line["y"][-1], share[-len(share) // 10:].mean(), rel_tol=0.2)
    assert "rises" in figures.units_markup([{"feature": "<f>", "unit": "u", "strength": 0.5, "r": "+0.500",
                                             "direction": "rises with it", "what": "w"}])


def test_gate_charts_scale_their_type_for_a_projector():
    sat = [{"i": (np.array([0.1, 0.2]), np.array([0.5, 0.1]))}] * 2
    for fig in (figures.saturation_figure(sat, font_scale=1.45), figures.closed_share_figure([{"o": np.ones(50)}] * 2,
                                                                                           bins=10, font_scale=1.45)):
        lay = fig.to_dict()["layout"]
        assert all(lay[a]["tickfont"]["size"] >= 14 for a in lay if a.startswith(("xaxis", "yaxis")))
    lay = figures.closed_share_figure([{"o": np.ones(50)}], bins=10).to_dict()["layout"]
    assert lay["xaxis"]["dtick"] == 1  # decades only: no 9 px "2" and "5" between them

