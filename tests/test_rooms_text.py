"""Class-page text is shown as typed, on the projector and every phone: an address in a question or a message is
never a link, a markdown link in a crafted Ask-the-class address stays text, and Unicode's direction controls (a
right-to-left override reversed the rest of a question) are taken out, from the page and from the CSV."""
import re
from urllib.parse import quote

import pytest

from rnnviz.rooms import store as store_module
from rnnviz.rooms.store import MemoryStore
from rnnviz.text import strip_bidi
from tests.test_robustness import GFM_AUTOLINKS, as_read, rendered_markdown
from tests.test_rooms_page import lecturer_with_question
from ui.rooms import csv_rows
from ui.widgets import WORD_JOINER

BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"


@pytest.fixture(autouse=True)
def fresh_store(monkeypatch):
    s = MemoryStore()
    monkeypatch.setattr(store_module, "_default", s)
    return s


def shown(at) -> list[str]:
    """The page's markdown as a visitor's browser reads it, button labels included (they are markdown too); code
    spans left out (the join link is one: markdown makes no link inside it)."""
    return [as_read(re.sub(r"`[^`]*`", "", t)) for t in rendered_markdown(at) + [b.proto.label for b in at.button]]


@pytest.mark.parametrize("lesson,qid,query,typed", [
    ("vector", "unit", "in=chars&word=www.e.co&vocab=w.eco", "www.e.co"),
    ("sample", "next", "prime=" + quote("see www.evil.example now"), "see www.evil.example now")])
def test_an_address_in_a_question_is_text_on_the_projector_and_every_phone(open_page, lesson, qid, query, typed):
    at, code = lecturer_with_question(open_page, lesson, qid, f"http://host/{lesson}?{query}")
    phone = open_page("class_room", room=code)
    for page in (at, phone):
        texts = shown(page)
        assert any(typed in t.replace(WORD_JOINER, "") for t in texts)  # the question, with the text as typed
        assert not [t for t in texts if any(p.search(t) for p in GFM_AUTOLINKS)]  # and no address a link


def test_a_crafted_ask_link_shows_its_markdown_as_text(open_page):
    """?ask=scalar&setup=x=[a](http://e.co): the input's message quoted the link, and showed it as a link."""
    at = open_page("class_room", classroom="1", ask="scalar", setup="x=[a](http://e.co)")
    [note] = [t for t in rendered_markdown(at) if "is not a number" in t]
    assert not re.search(r"(?<!\\)\[[^\]]*(?<!\\)\]\(", note)  # no [text](address) left for markdown to read
    assert "[a](http://e.co)" in as_read(note).replace(WORD_JOINER, "")  # what was typed, shown as typed
    assert not any(p.search(as_read(note)) for p in GFM_AUTOLINKS) and not at.exception


def test_direction_controls_are_taken_out_of_every_class_page_text(open_page, fresh_store):
    word = f"ab{BIDI}cd"
    link = f"http://host/vector?in=chars&word={quote(word)}&vocab={quote(word)}"
    at, code = lecturer_with_question(open_page, "vector", "unit", link)
    phone = open_page("class_room", room=code)
    phone.text_input(key="class.nick").input("Ada\u202eevol").run()
    assert "Answering as **Adaevol**" in "\n".join(rendered_markdown(phone))
    phone.button(key="class.pick.0").click().run()
    at.button(key="class.reveal_btn").click().run()
    for page in (at, phone):
        texts = shown(page)
        assert any("the word “abcd”" in t for t in texts)  # the question, less its direction controls
        assert not [t for t in texts if set(t) & set(BIDI)]
    csv = csv_rows(fresh_store.export(code, at.session_state["class.token"])).decode()
    assert "abcd" in csv and not set(csv) & set(BIDI)


def test_strip_bidi_takes_out_the_direction_controls_only():
    assert strip_bidi(f"a{BIDI}b \u200d\u2060é") == "ab \u200d\u2060é"  # joiners and letters stay


@pytest.mark.parametrize("prime,words", [("", "is empty"), ("a/b", "not in the model's vocabulary")])
def test_a_prime_the_model_cannot_read_is_a_message(open_page, prime, words):
    """An empty prime, or one with a character outside the model's vocabulary, was a traceback on the Class page."""
    at = open_page("class_room", classroom="1", ask="sample", setup=f"prime={quote(prime)}")
    assert words in as_read(all_info(at)) and not at.exception
    assert not [b for b in at.button if b.key == "class.ask"]


def all_info(at) -> str:
    return "\n".join(i.value for i in at.info)
