"""Decks: the shipped decks load and every step's setup and question are ones its page accepts; a deck with a wrong
page, value or question says which step, and a page opened with it still runs; Start and Next run a deck across
pages with each step's setup, asking each step's question in the open room and revealing it on the next press."""
import pytest

from rnnviz.rooms import store as store_module
from rnnviz.rooms.store import MemoryStore
from tests.conftest import all_text
from ui.deck import format as F
from ui.lessons.registry import LESSONS, lesson
from ui.questions.link import make, read_link


@pytest.fixture(autouse=True)
def fresh_store(monkeypatch):
    s = MemoryStore()
    monkeypatch.setattr(store_module, "_default", s)
    return s


@pytest.mark.parametrize("name,minutes", [("lecture-50", 50), ("lecture-90", 90)])
def test_the_shipped_decks_load_and_every_step_asks_a_question_its_page_makes(name, minutes):
    deck = F.load(name)
    assert deck.minutes == minutes and F.check(deck) == []
    assert {s.page for s in deck.steps} >= {"scalar", "gradients", "gates"}
    for step in deck.steps:
        ls = lesson(step.page)
        q, made, note = make(step.page, step.ask, step.setup, ls.model() if ls.model else None)
        assert q is not None and note is None and made.why and step.note
    assert F.parse(F.dump(deck), name) == deck  # what the draft writes, the loader reads back


def test_the_90_minute_deck_visits_every_lesson_page():
    assert [ls.url for ls in LESSONS] == list(dict.fromkeys(s.page for s in F.load("lecture-90").steps))


BAD = '''title = "Broken"
minutes = 5

[[step]]
page = "scalar"
setup = "wh=2"
ask = "state"

[[step]]
page = "nowhere"

[[step]]
page = "scalar"
setup = "wh=99&zz=1"

[[step]]
page = "gates"
ask = "who"
'''


@pytest.fixture
def decks_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(F, "DECKS", tmp_path)
    return tmp_path


def test_a_broken_deck_names_each_bad_step(decks_dir):
    (decks_dir / "broken.toml").write_text(BAD)
    with pytest.raises(F.DeckError) as e:
        F.load("broken")
    problems = e.value.problems
    assert len(problems) == 4
    assert problems[0].startswith("Step 2: no lesson page `nowhere`")
    assert problems[1].startswith("Step 3 (scalar)") and "`zz`" in problems[1]
    assert problems[2].startswith("Step 3 (scalar)") and "refuses" in problems[2] and "`wh`" in problems[2]
    assert problems[3].startswith("Step 4 (gates): no question `who`")


@pytest.mark.parametrize("text,says", [("title = \"x\"\n[[step]]\n", "Step 1 names no `page`"),
                                       ("title = [", "not valid TOML"), ("title = \"x\"", "no steps"),
                                       ("[[step]]\npage = 3", "must be text"),
                                       ("[[step]]\npage = \"scalar\"\nslide = \"1\"", "keys a step does not know")])
def test_a_deck_that_is_not_a_deck_says_why(decks_dir, text, says):
    (decks_dir / "odd.toml").write_text(text)
    with pytest.raises(F.DeckError, match=says):
        F.load("odd")


def test_a_deck_link_that_names_no_deck_or_a_broken_one_is_a_message(open_page, decks_dir):
    (decks_dir / "broken.toml").write_text(BAD)
    for name in ("../etc/passwd", "broken"):
        at = open_page("scalar", deck=name, step="1")
        assert not at.exception and "This deck cannot run" in all_text(at)
    text = all_text(at)
    assert "Step 2\\: no lesson page" in text and "One hidden unit" in text  # and the page itself still runs


def test_start_and_next_run_the_deck_across_pages_asking_and_revealing(open_page, fresh_store):
    deck = F.load("lecture-50")
    at = open_page("decks")
    at.button(key="decks.open").click().run()
    code, token = at.session_state["class.code"], at.session_state["class.token"]
    voters = [fresh_store.issue_voter(code, f"p{k}") for k in range(3)]
    for v in voters:
        fresh_store.join(code, v)
    at.button(key="decks.start.lecture-50").click().run()
    assert not at.exception
    for i, step in enumerate(deck.steps[:4]):  # the one-unit page four times: each step its own setup
        page = step.page
        want = read_link(page, step.setup)[0]
        got = {p.url: at.session_state[p.key] for p in lesson(page).link(None)}
        assert got == want, f"step {i + 1} on {page}: the page's settings are the step's setup"
        assert not at.exception
        view = fresh_store.view(code)
        assert (view.number, view.phase) == (i + 1, "open"), f"step {i + 1}'s question is asked"
        assert view.question.lesson == page and view.question.qid == step.ask
        q = view.question
        at.switch_page(lesson(page).script)  # AppTest reruns the page it was told to, not the one switched to
        for v in voters:
            fresh_store.vote(code, v, view.number, 1, int(q.truth) if q.kind == "choice" else q.truth)
        at.run()
        assert "3 of 3" in all_text(at) and at.button(key="deck.next").label == "Reveal"
        at.button(key="deck.next").click().run()
        assert fresh_store.view(code).phase == "revealed"
        text = all_text(at)
        assert "The exact answer" in text and "Round 1: **3 of 3** right" in text and "**Why:**" in text
        at.button(key="deck.next").click().run()
    assert fresh_store.answers(code, token, 4, 1) and fresh_store.view(code).number == 5  # then the vector page's
    assert fresh_store.view(code).question.lesson == "vector"


def test_back_goes_to_the_previous_step_and_the_same_page_takes_its_new_setup(open_page):
    at = open_page("decks", deck="lecture-50", step="3")  # a deck's link: the step on its page, with its setup
    at.switch_page("app_pages/scalar.py")
    assert (at.session_state["scalar.w_h"], at.session_state["scalar.t"]) == (2.0, 3)
    at.button(key="deck.back").click().run()  # step 2: the same page, w_h back to its default
    assert not at.exception
    assert (at.session_state["scalar.w_h"], at.session_state["scalar.t"]) == (0.5, 3)
    at.button(key="deck.back").click().run()  # step 1: t = 1
    assert (at.session_state["scalar.w_h"], at.session_state["scalar.t"]) == (0.5, 1)
    assert "step 1 of 14" in all_text(at) and at.button(key="deck.back").disabled


def test_the_presenter_view_follows_the_projector(open_page, fresh_store):
    at = open_page("decks")
    at.button(key="decks.open").click().run()
    at.button(key="decks.start.lecture-50").click().run()
    key = at.session_state["deck.follow"]
    deck = F.load("lecture-50")
    pres = open_page("presenter", follow=key)
    text = all_text(pres)
    assert "Step 1 of 14" in text and "Now: One unit by hand" in text and "Next: One unit by hand" in text
    assert "ask for h1 before anyone touches the slider" in text  # step 1's speaker note
    assert "question 1, open" in text and not pres.exception
    at.switch_page("app_pages/scalar.py")
    at.button(key="deck.next").click().run()  # reveal
    at.button(key="deck.next").click().run()  # step 2
    pres.run()
    assert "Step 2 of 14" in all_text(pres) and "question 2, open" in all_text(pres)
    assert deck.steps[2].setup.split("&")[0] in all_text(pres)  # the next step's setup
    stranger = open_page("presenter", follow="guessed")
    assert "Waiting for the projector" in all_text(stranger)


def test_saving_setups_as_steps_builds_a_deck_file(open_page):
    at = open_page("scalar", wh="2", t="2")
    at.text_input(key="deck.draft.note").set_value("Flood: the past grows").run()
    at.selectbox(key="deck.draft.ask").set_value("state").run()
    at.button(key="deck.draft.add").click().run()
    at.switch_page("app_pages/states.py").run()
    at.button(key="deck.draft.add").click().run()
    deck = F.parse(F.dump(F.Deck("draft", "My lecture", 0, tuple(at.session_state["deck.draft"]))), "mine")
    assert [(s.page, s.ask, s.note) for s in deck.steps] == [("scalar", "state", "Flood: the past grows"),
                                                               ("states", "", "")]
    assert read_link("scalar", deck.steps[0].setup)[0]["wh"] == 2.0 and "deck" not in deck.steps[0].setup
    assert F.check(deck) == [] and at.get("download_button")  # offered as a file
