"""The sampling page's words, links and cache policy (ui/sample/): what a link may say, the model and each
position in sentences, the shading's captions and hover texts, and which samples and analyses are kept per server
or per session. The numbers behind them are tested in test_lessons_sample.py."""
import json
import math
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from rnnviz.charlm.inspect import FEATURES as FEATURE_NAMES, UnitHit, rank_units
from rnnviz.lessons import sample as lesson, shading as shadings
from rnnviz.lessons.cache import SharedCache
from rnnviz.nn.sampling import SamplingSettings
from tests.conftest import ROOT
from tests.test_inspect import tiny
from ui import loaders
from ui.sample import ahead, cache, controls, links, shading, words


def test_link_values_must_be_slider_options():
    parse = controls.declared(tiny("lstm")).__getitem__("temp").parser()
    assert parse("0.8") == 0.8 and parse("3") == 3.0
    for bad in ("2.9", "0.15", "nan", "inf", "x"):
        with pytest.raises(ValueError):
            parse(bad)


def test_branches_round_trip_through_a_link():
    forced = {20: "x", 3: "\n", 45: ":"}
    s = links.dump_branches(forced)
    assert s == "3.10,20.120,45.58" and links.parse_branches(s) == forced and links.parse_branches("") == {}
    for bad in ("3", "3.x", "-1.65", "5000.65", "3.55296", "3.1114112", ",".join(f"{k}.65" for k in range(51))):
        with pytest.raises(ValueError):
            links.parse_branches(bad)


def test_every_link_value_the_page_writes_it_reads_back():
    lm = tiny("lstm", layers=2)
    params = controls.declared(lm).params
    assert all(p.key == f"sample.{p.key.split('.', 1)[1]}" for p in params) and len({p.url for p in params}) == 22
    for p in params:
        assert p.parse(p.dump(p.default)) == p.default, p.url
    by_url = {p.url: p for p in params}
    assert by_url["k"].parse("7") == 7 and by_url["layer"].default == 2  # the model's own sizes bound the link
    # the page counts units from 1, a link from 0 as PyTorch (and links shared before) do: unit=5 is the last, unit 6
    assert by_url["unit"].parse("5") == 6 and by_url["unit"].dump(6) == "5" and by_url["unit"].default == 1
    for url, bad in (("k", "8"), ("layer", "3"), ("unit", "6"), ("unit", "-1"), ("shade", "<b>"), ("first", "7"),
                     ("n", "2001"), ("clayer", "3"), ("cunit", "6"), ("cunit", "-1"), ("ckind", "x"), ("cval", "10.1"),
                     ("cval", "0.05"), ("cval", "nan"), ("cpos", "-2"), ("state", "maybe")):
        with pytest.raises(ValueError):
            by_url[url].parse(bad)


def card(**kw):
    return {"itos": list("ab\n"), "cell": "gru", "embed_size": 4, "hidden_size": 1, "num_layers": 1, **kw}


def test_the_model_describes_itself_with_plurals_right():
    shipped = json.loads((ROOT / "models" / "shakespeare.json").read_text())
    assert words.describe(shipped, 65) == \
        "A two-layer LSTM (512 units per layer, 65 characters) trained on tinyshakespeare.txt"
    assert words.describe(card(), 3) == "A one-layer GRU (1 unit per layer, 3 characters)"
    facts = words.card_facts(card(hidden_size=64), 3)
    assert facts == ["GRU, 1 layer of 64 units, embeddings of 4, a vocabulary of 3 characters."]
    full = words.card_facts(shipped, 65)
    assert "2 layers of 512 units" in full[0] and "Validation loss 1.4475 nats per character (2.088 bits)" in full[2]
    assert "perplexity 4.25" in full[2]
    intro = words.introduction(SimpleNamespace(card=card(corpus="*x*"), vocab_size=3))
    assert intro.startswith("A one\\-layer GRU") and "\\*x\\*" in intro and "writes one character at a time" in intro


def test_card_display_survives_hostile_values():
    big = 10 ** 5000
    facts = words.card_facts(card(steps=big, corpus="x" * 500, val_loss=1e400, minutes=float("nan")), 3)
    assert len(facts) == 2 and "?" in facts[1] and "…" in facts[1]  # no val_loss sentence for infinity
    assert len(words.card_facts(card(val_loss=True), 3)) == 1
    assert words.describe(card(corpus=big), 3).endswith("characters)")


def test_what_is_wrong_with_the_settings_is_said_in_words():
    lm = tiny("gru", layers=1)
    forced, problems = controls.check(lm, "ab~<", 5, {1: "a", 9: "b", 2: "~"})
    assert forced == ((1, "a"),) and problems == ["The model has never seen '<', '~'; remove them from the prime."]
    assert controls.check(lm, "", 5, {})[1] == ["The prime text is empty."]
    assert controls.check(lm, "ab~", 5, {})[1] == ["The model has never seen '~'; remove it from the prime."]
    lm.cost_per_char = lesson.SAMPLE_BUDGET // 40  # may read 40 characters in all
    assert controls.check(lm, "a" * 40, 5, {})[1] == [
        "This model may read at most 40 characters here; shorten the prime."]
    session = {"sample.top_k": 60, "sample.layer": 2, "sample.unit": 100, "sample.n": 500, "sample.prime": "ab",
               "sample.clamp_layer": 2, "sample.clamp_unit": 9, "sample.clamp_kind": "c"}
    controls.fit_to(lm, session)
    assert session == {"sample.top_k": 7, "sample.layer": 1, "sample.unit": 6, "sample.n": 38, "sample.prime": "ab",
                       "sample.clamp_layer": 1, "sample.clamp_unit": 6, "sample.clamp_kind": "h"}  # a GRU has no c


def test_temperature_and_whitespace_in_words():
    assert words.temperature_sentence(0.5).endswith("safer, more repetitive.")
    assert words.temperature_sentence(1.0) == "Temperature 1: the model's own distribution."
    assert words.temperature_sentence(1.5).endswith("more typos.")
    assert words.label(" ") == "␣" and words.label("\n") == "↵" and words.label(".") == "."


def position(**kw) -> lesson.Position:
    base = dict(index=9, char=" ", source="sampled", model_top=[(" ", 0.5), ("x", 0.25)],
                sampled_top=[(" ", 1.0)], model_entropy=1.2, sampled_entropy=0.0, p_char=0.5, surprisal_bits=1.0,
                model_choices=math.exp(1.2))
    return lesson.Position(**{**base, **kw})


def test_one_position_in_sentences():
    info = position()
    assert words.describe_position(info).startswith(
        "sampled. The model gave it p = **0.500**: a surprisal of **1.000 bits")
    assert "**1.000 bits** (0.693 nats)" in words.describe_position(info)  # the issue: bits beside nats, unlabelled
    assert "**1.731 bits** (1.200 nats)" in words.entropy_sentence(info)  # the entropy in the surprisal's unit too
    assert "**0.000 bits** (0.000 nats) in the one it was sampled from" in words.entropy_sentence(info)  # not -0.000
    assert "eᴴ ≈ 3.3, H in nats, or 2 to the power of H in bits, is about" in words.entropy_sentence(info)
    assert words.top_rows(info) == [("␣", 0.5, 1.0), ("x", 0.25, 0.0)] and words.sampled_name(info) == "sampled from"
    forced = position(source="forced", p_char=0.0, surprisal_bits=math.inf)
    said = words.describe_position(forced)
    assert "forced by hand (a branch)" in said and "**infinite**" in said
    assert "chosen against" in words.entropy_sentence(forced) and "sampled from" not in words.entropy_sentence(forced)
    assert words.sampled_name(forced) == "overruled by hand"
    prime = position(source="prime", sampled_top=None, sampled_entropy=None)
    assert words.describe_position(prime).startswith("read from the prime") and words.sampled_name(prime) is None
    assert words.entropy_sentence(prime).startswith("Entropy of the model's distribution: **1.731 bits** (1.200 nats)")
    assert words.top_rows(prime) == [("␣", 0.5, None), ("x", 0.25, None)]
    session = {}
    controls.force_box(session, 9, " ")
    session["sample.force_char"] = "x"  # the visitor picks another character
    controls.force_box(session, 9, " ")
    assert session["sample.force_char"] == "x"
    controls.force_box(session, 10, "a")  # a new position: the box starts on its character
    assert session["sample.force_char"] == "a"


def test_shading_captions_and_hover_texts():
    lm = tiny("lstm", layers=2)
    smp = lesson.draw_sample(lm, SamplingSettings("ab c", 20, 1.0, None, None, 2))
    p = shading.shade("probability", lm, smp, 10)
    assert len(p.titles) == 24 and p.titles[7] == f"{words.label(smp.text[7])!r}: p = {smp.p_char[7]:.3f}"
    assert "1 − p" in p.caption and p.ends == ("likely", "unlikely")
    s = shading.shade("surprisal", lm, smp, 10)
    assert s.titles[3].endswith(f"{-math.log2(smp.p_char[3]):.2f} bits") and s.ends == ("0 bits", "8+")
    u = shading.shade("hidden unit", lm, smp, 10, (1, "c", 4))  # rnnviz's index 4: the fifth unit, written from 1
    assert u.titles[5].endswith(f"c of unit 5 = {smp.c[5, 1, 4]:+.3f}") and "c of unit 5 in layer 2" in u.caption
    assert "Units count from 1" in u.caption and "c[414]" in u.caption  # where PyTorch's index differs, said once
    assert f"±{np.abs(smp.c[:, 1, 4]).max():.3f}" in u.caption and u.ends == ("−", "+") and u.numbers.signed
    c = shading.shade("connectivity", lm, smp, 10)
    peak = int(np.nanargmax(c.numbers.values))
    assert "prediction of character 11 " in c.caption  # text[10], counted from 1 as the page writes characters
    assert f"0 to {c.numbers.hi:.3g}, the largest, at character {peak + 1} " in c.caption
    assert c.ends == ("0", f"{c.numbers.hi:.3g}") and "set for this position" in c.caption  # the issue: no scale
    assert c.titles[3].endswith(f"= {c.numbers.values[3]:.3g}") and c.titles[10].endswith("the character predicted")
    assert c.titles[11].endswith("read after character 11")


def test_the_legend_is_escaped():
    legend = words.legend_markup("<i>x</i>", "a", "b", note="<b>")
    assert "<i>" not in legend and "&lt;i&gt;" in legend and "&lt;b&gt;" in legend and "linear-gradient" in legend
    assert "#3F3F3F" in words.legend_markup("c", "−", "+", signed=True) and "#3F3F3F" not in legend


def test_units_in_words_and_the_state_that_shades_by_one():
    text = "ab\ncd\n" * 20
    h = np.random.default_rng(0).normal(0, 0.1, (len(text), 2, 8))
    h[:, 0, 2] = -np.array([c == "\n" for c in text], float) * 3 + 1  # falls with each line break
    hits = [x for x in rank_units(h, None, text) if x.feature == "newline"]
    neg = next(r for r in words.unit_rows(hits) if r["unit"] == "layer 1 h unit 3")
    assert neg["strength"] == pytest.approx(1.0) and neg["r"] == "−1.000" and neg["direction"] == "falls with it"
    assert neg["what"] == "the character is a line break" and words.unit_choice(hits[0]).endswith("(newline)")
    assert list(words.FEATURES) == list(FEATURE_NAMES)  # every feature the library ranks is said in words, in its order
    hit = UnitHit("vowel", 1, "c", 42, 0.5)
    assert controls.unit_state([hit], [0]) == {"sample.shade": "hidden unit", "sample.layer": 2, "sample.kind": "c",
                                        "sample.unit": 43, "sample._app": 1}  # shown from 1
    assert controls.unit_state([hit], [None]) == {}


def test_analyses_in_words():
    a = lesson.analyse_passage(tiny("lstm", layers=2), "abc de\n" * 40)
    assert words.forget_means(a).startswith("layer 1: ") and "; layer 2: " in words.forget_means(a)
    assert "over all 280 characters" in words.saturation_caption(a)
    assert "Over 280 characters" in words.ranking_caption(a)
    session = {"sample.span": 500}
    assert controls.spans(a, session) == [50, 100, 200, 0] and session["sample.span"] == 0  # not reached: the whole
    session["sample.span"] = 100
    assert controls.spans(a, session) and session["sample.span"] == 100


def test_sample_again_draws_the_next_seed_ahead_for_the_shipped_model_only(monkeypatch):
    monkeypatch.setattr(cache, "SAMPLES", SharedCache(64 * 2 ** 20))
    calls = []
    monkeypatch.setattr(lesson, "draw_sample", lambda lm, s, *a: calls.append(s.seed) or SimpleNamespace(seed=s.seed,
                                                                                                         nbytes=1))
    s, lm = SamplingSettings("ROMEO:", 20, 0.8, None, None, 7), SimpleNamespace(cost_per_char=lesson.SHIPPED_COST)
    assert ahead.sample_for("shipped", lm, s, {}, ahead=True).seed == 7
    with cache.SAMPLES._ahead:  # the fill has finished
        assert calls == [7, 8] and ahead.sample_for("shipped", lm, SamplingSettings("ROMEO:", 20, 0.8, None, None, 8),
                                                {}).seed == 8
    assert calls == [7, 8]  # the next seed was waiting
    assert not ahead.draw_ahead("shipped", lm, SamplingSettings("ROMEO:", 20, 0.8, 1, None, 7))  # greedy: same text
    assert not ahead.draw_ahead("shipped", lm, SamplingSettings("ROMEO:", 20, 0.8, None, None, lesson.MAX_SEED))
    assert not ahead.draw_ahead("upload-1", lm, s)  # a visitor's own model: only what they ask for
    assert not ahead.draw_ahead("shipped", lm, SamplingSettings("ROMEO:", 2000, 0.8, None, None, 7))  # long: not unseen


def test_a_visitor_looking_inside_each_new_sample_finds_the_next_one_analysed(monkeypatch):
    """Sample again on the gate-saturation view over the sample: the next seed's sample is drawn ahead and analysed
    with it; the analysis is shared by every visitor whose sample reads the same, and equals one made on the spot."""
    for name, size in (("SAMPLES", 64), ("OWN", 16)):
        monkeypatch.setattr(cache, name, SharedCache(size * 2 ** 20))
    lm, analysed = tiny("lstm", layers=2), []
    real = lesson.analyse_sample
    monkeypatch.setattr(lesson, "analyse_sample", lambda lm, s: analysed.append(s.text) or real(lm, s))
    session = {"sample.view": "gates", "sample.passage": "sample"}
    s = SamplingSettings("ab c", 30, 1.0, None, None, 7)
    smp = ahead.sample_for("shipped", lm, s, session, ahead=True)
    with cache.SAMPLES._ahead:  # the fill has finished
        nxt = ahead.sample_for("shipped", lm, replace(s, seed=8), session)
    assert analysed == [nxt.text]  # ahead: the next sample analysed, not this one (nobody asked for it yet)
    a = cache.analysis_for("shipped", lm, nxt, "sample", session)
    assert analysed == [nxt.text] and cache.analysis_for("shipped", lm, nxt, "sample", {}) is a  # waiting; shared
    fresh = real(lm, nxt)
    assert a.hits == fresh.hits and a.chars == fresh.chars == len(nxt.text)
    np.testing.assert_array_equal(a.saturation[a.chars][1]["f"][0], fresh.saturation[a.chars][1]["f"][0])
    assert not a.closed[0]["f"].flags.writeable  # shared: nobody may write in it
    cache.analysis_for("shipped", lm, smp, "sample", session)
    assert analysed == [nxt.text, smp.text]
    session["sample.passage"] = "excerpt"  # looking at the excerpt: the next sample is drawn, not analysed
    ahead.sample_for("shipped", lm, replace(s, seed=8), session, ahead=True)
    with cache.SAMPLES._ahead:
        assert analysed == [nxt.text, smp.text]


def test_connectivity_is_kept_and_the_next_position_is_ready_before_it_is_asked_for(monkeypatch):
    """One backward pass per position: kept once per server for the shipped model, with the next position in the
    direction the visitor moves computed ahead; kept in the session for an upload. Always the same numbers."""
    monkeypatch.setattr(cache, "CONNECTIVITY", SharedCache(2 ** 20))
    lm = tiny("lstm", layers=2)
    smp = lesson.draw_sample(lm, SamplingSettings("ab c", 20, 1.0, None, None, 2))
    real, calls = shadings.connectivity_shading, []
    monkeypatch.setattr(shadings, "connectivity_shading", lambda lm, s, i: calls.append(i) or real(lm, s, i))
    session = {}
    first = cache.connectivity_for("shipped", lm, smp, 10, session)
    np.testing.assert_array_equal(first.values, real(lm, smp, 10).values)
    with cache.CONNECTIVITY._ahead:  # the fill ahead has finished
        assert calls == [10, 11]  # the position asked for, then the next one
    assert cache.connectivity_for("shipped", lm, smp, 11, session).peak == real(lm, smp, 11).peak
    assert cache.connectivity_for("shipped", lm, smp, 10, {}) is first  # another visitor, the same link: not again
    with cache.CONNECTIVITY._ahead:
        assert calls == [10, 11, 12]  # 11 was waiting; 12 ahead of it
    cache.connectivity_for("shipped", lm, smp, 5, session)  # a jump back, then a step back: ahead goes backwards
    with cache.CONNECTIVITY._ahead:  # (6, ahead of 5, done)
        pass
    cache.connectivity_for("shipped", lm, smp, 4, session)
    with cache.CONNECTIVITY._ahead:
        assert calls[-2:] == [4, 3] and not first.values.flags.writeable  # shared: nobody may write in it
    c = shading.shade("connectivity", lm, smp, 4, model_id="shipped", session=session)
    assert calls[-2:] == [4, 3] and c.numbers.peak == real(lm, smp, 4).peak  # shaded from what was kept
    calls.clear()
    upload = {}
    for i in (3, 4, 3) + tuple(range(5, 5 + cache.KEPT_PER_SESSION)):
        cache.connectivity_for("upload:1", lm, smp, i, upload)
    assert calls == [3, 4] + list(range(5, 5 + cache.KEPT_PER_SESSION))  # 3 again: kept; nothing ahead for an upload
    assert len(upload["sample.conn"]) == cache.KEPT_PER_SESSION  # the last few only


def test_an_uploads_sample_and_analyses_stay_in_its_session(monkeypatch):
    lm, calls = tiny("gru", layers=1), []
    real = lesson.draw_sample
    monkeypatch.setattr(lesson, "draw_sample", lambda *a: calls.append(a[1]) or real(*a))
    session, s = {}, SamplingSettings("ab", 30, 1.0, None, None, 4)
    smp = ahead.sample_for("upload:1", lm, s, session)
    assert ahead.sample_for("upload:1", lm, s, session) is smp and len(calls) == 1 and "sample.looked" not in session
    assert ahead.sample_for("upload:1", lm, SamplingSettings("ab", 30, 1.0, None, None, 5), session) is not smp
    assert len(calls) == 2 and session["sample.sample"][0][0] == "upload:1"  # the last one only
    done = []
    a = cache.analysis_for("upload:1", lm, smp, "excerpt", session, done.append)
    assert cache.analysis_for("upload:1", lm, smp, "excerpt", session) is a and a.chars == len(lesson.excerpt(lm))
    assert done and done[-1] <= 1  # progress while the excerpt was read, once
    own = cache.analysis_for("upload:1", lm, smp, "sample", session)
    assert own.chars == 32 and cache.analysis_for("upload:1", lm, smp, "sample", session) is own


def test_speaker_name_units_said_to_be_the_uppercase_units():
    """The issue: the "speaker name" units are the "uppercase" units, and nothing said so."""
    hit = lambda f, u: UnitHit(f, 1, "h", u, 0.5)  # noqa: E731
    note = words.shared_units_note([hit("speaker name", 7), hit("speaker name", 9), hit("uppercase", 9),
                                    hit("vowel", 7)])
    assert "layer 2 h unit 10" in note and "unit 8" not in note and "capitals" in note
    assert words.shared_units_note([hit("speaker name", 7), hit("uppercase", 8)]) is None


def test_a_new_server_analyses_the_excerpt_before_anyone_opens_the_sampling_page(monkeypatch):
    """A newcomer's walk: the first visit to /sample on a fresh server took 6-11 s (the excerpt's units and gates,
    3.3 s of work here). The app's first run, on any page, now starts that work in a thread of its own, once."""
    import time

    from rnnviz import charlm
    from ui.loaders import shipped_model

    monkeypatch.setattr(cache, "PASSAGES", SharedCache(0))
    monkeypatch.setattr(loaders, "_STARTED", set())  # a fresh server
    monkeypatch.setattr(ahead, "WARM_DELAY", 0.0)
    full = lesson.excerpt
    monkeypatch.setattr(lesson, "excerpt", lambda lm: full(lm)[:400])  # the same work on a tenth of the text
    lm = shipped_model(str(charlm.SHIPPED_MODEL))
    key = ("shipped", lesson.excerpt(lm))
    assert key not in cache.PASSAGES
    assert ahead.warm_up() and not ahead.warm_up()  # started once
    for _ in range(600):  # readiness polling: the work takes seconds on a loaded machine
        if key in cache.PASSAGES:
            break
        time.sleep(0.1)
    assert key in cache.PASSAGES
    calls = []
    a = cache.analysis_for("shipped", lm, None, "excerpt", {}, lambda f: calls.append(f))
    assert not calls and a.chars == len(key[1])  # the page's look inside finds it done: no progress to show
