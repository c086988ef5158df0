"""Hostile input in every text box leaves each page working, with a clear message, and nothing rendered as markup."""
import re

import pytest

from tests.conftest import ROOT, tables

HOSTILE = ["", "   ", "nan", "NaN, inf, -inf", "1e400", "9" * 150, "<script>alert(1)</script>",
           "**bold** [x](javascript:alert(1)) <img src=x onerror=alert(1)>", "\x00\x1b[2J\u202e\u200b", "１, ２",
           "1, 2; 3\n4", "😀" * 50]
BOXES = [("scalar", "text_input", "scalar.x"), ("vector", "text_input", "vector.word"),
         ("vector", "text_input", "vector.vocab"), ("gates", "text_input", "gates.word"),
         ("states", "text_input", "states.lengths"), ("hello", "text_area", "hello.text"),
         ("hello", "text_input", "hello.scores"), ("vector", "text_area", "vector.edit.W_x.3x4")]
if (ROOT / "models" / "shakespeare.safetensors").exists():
    BOXES.append(("sample", "text_input", "sample.prime"))
VIEW = {"states": {"view": "padding"}, "vector.edit.W_x.3x4": {"w": "edit"},  # boxes on one of several views
        "sample.prime": {"n": "20"}}  # each prime draws a sample: 20 characters, not 500, for the box's sake
RAW_MARKUP = re.compile(r"(?<!\\)<(script|img)", re.I)


def rendered_markdown(at):
    kinds = ("markdown", "error", "info", "warning", "success", "caption")
    return [e.value for kind in kinds for e in getattr(at, kind)]


@pytest.mark.parametrize("page,kind,key", BOXES)
def test_hostile_text(open_page, page, kind, key):
    at = open_page(page, **VIEW.get(page, VIEW.get(key, {})))
    box = getattr(at, kind)(key=key)
    for value in HOSTILE:
        value = value[: box.max_chars] if getattr(box, "max_chars", None) else value
        box.input(value).run()
        assert not at.exception, (key, value)
        for text in rendered_markdown(at):
            assert not RAW_MARKUP.search(text), (key, value, text)
            assert "](javascript" not in text, (key, value, text)
        box = getattr(at, kind)(key=key)


def test_vectors_box_hostile(open_page):
    at = open_page("vector")
    at.radio(key="vector.mode").set_value("vectors").run()
    for value in HOSTILE:
        at.text_area(key="vector.vectors").input(value).run()
        assert not at.exception, value
    assert any(e.value for e in at.error)


@pytest.mark.parametrize("query", [{"wh": "nan"}, {"wh": "1e999"}, {"x": "<b>1</b>"}, {"t": "-5"}, {"t": "abc"},
                                   {"predict": "maybe"}, {"classroom": "<script>"}])
def test_hostile_links(open_page, query):
    at = open_page("scalar", **query)
    assert not at.exception
    assert list(tables(at)[0]["hₜ = tanh(·)"])  # the page still shows its numbers


@pytest.mark.parametrize("page,query", [("scalar", {"x": ","}), ("hello", {"scores": " , ,"}),
                                        ("recurrences", {"x": ";"}), ("recurrences", {"view": "selective", "sx": ","}),
                                        ("vector", {"in": ","})])
def test_a_sequence_of_commas_alone_is_empty(open_page, page, query):
    """Separators and nothing else once parsed as an empty sequence, and each page that read it failed with a
    traceback (a browser walk): it is the empty sequence's message, and the page goes on with its default."""
    at = open_page(page, **query)
    assert not at.exception
    assert any("is empty" in e.value for e in at.error) or any("not valid here" in i.value for i in at.info)


@pytest.mark.parametrize("page,query", [
    ("gradients", {"H": "100000", "T": "nan"}), ("vector", {"H": "0", "in": "??"}),
    ("gates", {"cell": "transformer", "bf": "inf"}), ("hello", {"text": "", "H": "-1"}),
    ("states", {"L": "99", "d": "-3"}),
    ("sample", {"temp": "2.9", "k": "100", "branch": "1.2,x", "pos": "-4", "shade": "<b>", "layer": "9",
                "unit": "99999", "first": "7", "n": "1e9"})])
def test_hostile_links_everywhere(open_page, page, query):
    at = open_page(page, **query)
    assert not at.exception
    assert any("not valid here" in i.value for i in at.info)


def test_a_link_value_between_two_slider_notches_falls_back_with_a_notice(open_page):
    """wh=0.33 is no notch of the w_h slider (steps of 0.05): the default is used, and the page says so."""
    at = open_page("scalar", wh="0.33")
    assert at.slider(key="scalar.w_h").value == 0.5
    assert any("wh" in i.value and "not valid" in i.value for i in at.info)
    assert open_page("scalar", wh="0.35").slider(key="scalar.w_h").value == 0.35


@pytest.mark.parametrize("brk", ["\n", "\r", "\r\n", "\u2028", "\x85", "\x0b", "\x0c"])
def test_visitor_text_cannot_start_a_markdown_line(brk):
    """A card field or typed text with any line break shows as one line: no heading, list or code block."""
    from ui.widgets import md

    shown = md(f"name{brk}# heading{brk}```{brk}- item")
    assert len(shown.splitlines()) == 1 and "\\#" in shown and "\\`\\`\\`" in shown


# GitHub-flavoured markdown's autolink literals (mdast-util-gfm-autolink-literal), applied to the text as markdown reads
# it once escapes are resolved: each match would be shown as a link.
GFM_AUTOLINKS = [re.compile(r"(https?://|www(?=\.))([-.\w]+)([^ \t\r\n]*)", re.I | re.A),
                 re.compile(r"([-.\w+]+)@([-\w]+(?:\.[-\w]+)+)", re.A)]
ADDRESSES = ["https://evil.example/login", "http://evil.example", "HTTPS://EVIL.EXAMPLE/x", "www.evil.example/a",
             "WWW.evil.example", "mail me: a@evil.example", "mailto:a@evil.example", "xmpp:a@evil.example"]


def as_read(markdown: str) -> str:
    """The text of markdown source once its backslash escapes are resolved."""
    return re.sub(r"\\(.)", r"\1", markdown)


@pytest.mark.parametrize("address", ADDRESSES)
def test_an_address_in_visitor_text_never_becomes_a_link(address):
    from ui.widgets import WORD_JOINER, md

    shown = as_read(md(f"see {address} now"))
    assert not any(p.search(shown) for p in GFM_AUTOLINKS), shown
    assert shown.replace(WORD_JOINER, "") == f"see {address} now"  # every character is still there, as typed


@pytest.mark.parametrize("page,query", [("scalar", {"x": "https://evil.example/x"}),
                                        ("hello", {"text": "www.evil.example/a"}),
                                        ("hello", {"text": "mail me: a@evil.example"})])
def test_an_address_in_a_link_is_shown_as_text(open_page, page, query):
    at = open_page(page, **query)
    assert not at.exception
    shown = [as_read(t) for t in rendered_markdown(at)]
    assert any("evil" in t for t in shown)  # the visitor's text is on the page
    assert not any(p.search(t) for t in shown for p in GFM_AUTOLINKS), shown


class _Boom(dict):
    def __getitem__(self, key):
        raise RecursionError("maximum recursion depth exceeded while decoding a JSON array")


@pytest.mark.parametrize("clicked", ["x", float("nan"), float("inf"), None, [[[[1]]]], 10**400, True, -3, 2.5, _Boom()])
def test_a_crafted_click_on_the_shaded_text_changes_nothing(monkeypatch, clicked):
    import types

    from ui import textview

    state = {"t": _Boom() if isinstance(clicked, _Boom) else {"clicked": clicked}, "pos": 7}
    monkeypatch.setattr(textview, "st", types.SimpleNamespace(session_state=state))
    textview._clicked("t", "pos")  # raised ValueError, OverflowError, TypeError or RecursionError
    assert state["pos"] == 7
    state["t"] = {"clicked": 12.0}  # what a real click sends (a JSON number)
    textview._clicked("t", "pos")
    assert state["pos"] == 12 and type(state["pos"]) is int


def test_connectivity_of_an_unstable_uploaded_model_is_a_message_not_an_error():
    import json

    import numpy as np
    from safetensors.numpy import save

    from rnnviz import charlm
    from rnnviz.lessons import sample as L
    from rnnviz.nn.sampling import SamplingSettings
    from ui.sample.shading import shade

    card = {"itos": list("abcdefgh :\n"), "cell": "rnn", "nonlinearity": "relu", "embed_size": 4, "hidden_size": 64,
            "num_layers": 2}
    rng = np.random.default_rng(0)
    lm = charlm.load_bytes(save({k: (50 * rng.normal(0, 1, s)).astype(np.float32)  # weights of scale 50
                                 for k, s in charlm.expected_shapes(card).items()}), json.dumps(card).encode())
    smp = L.draw_sample(lm, SamplingSettings("ab", 300, 1.0, None, None, 1))
    sh = shade("connectivity", lm, smp, 201)  # raised "All-NaN slice encountered"
    assert "not finite" in sh.caption and np.isnan(sh.numbers.values).all()


def test_an_invalid_classroom_value_is_named_in_a_notice(open_page):
    at = open_page("scalar", classroom="maybe")
    assert not at.exception
    assert any("`classroom`" in i.value for i in at.info)


def test_a_visitors_clear_cache_message_keeps_the_shipped_model():
    """Any browser can send Streamlit's clear_cache message, which empties every st.cache_* of the server."""
    import streamlit as st

    from rnnviz import charlm
    from ui.loaders import shipped_model

    model = shipped_model(str(charlm.SHIPPED_MODEL))
    st.cache_resource.clear()
    st.cache_data.clear()
    assert shipped_model(str(charlm.SHIPPED_MODEL)) is model


def test_a_huge_card_field_is_cut_for_the_card_view():
    import json

    from ui.upload import CARD_FIELD_CHARS, shown_card

    card = {"itos": list("ab"), "cell": "gru", "embed_size": 4, "hidden_size": 8, "num_layers": 1,
            "note": "😀" * 262_000, "history": [{"step": i} for i in range(50_000)], "val_loss": 1.5}
    shown = shown_card(card)
    assert len(json.dumps(shown)) < 12 * 2 * CARD_FIELD_CHARS + 1000  # was 3 MB: past the 2 MB message limit
    assert {k: shown[k] for k in ("itos", "cell", "embed_size", "hidden_size", "num_layers", "val_loss")} == \
        {k: card[k] for k in ("itos", "cell", "embed_size", "hidden_size", "num_layers", "val_loss")}
    assert shown["note"].startswith("😀" * 10) and "262,000 characters" in shown["note"]
