"""The Class page in AppTest: the lecturer opens a room and asks, students on their own sessions vote once per round,
the count shows no answers, Reveal draws them against the exact answer, round 2, CSV, close; and refusals (a wrong
code, a full room, a store that is down) are messages, never tracebacks."""

import pytest

from rnnviz.lessons.scalar import run_scalar
from rnnviz.rooms import store as store_module
from rnnviz.rooms.questions import scalar_state
from rnnviz.rooms.redis_store import RedisStore
from rnnviz.rooms.store import MemoryStore
from tests.conftest import all_text, charts
from tests.test_page_scalar import values
from tests.test_rooms_store import free_port
from ui.lessons.registry import asking
from ui.questions.base import plain


@pytest.fixture(autouse=True)
def fresh_store(monkeypatch):
    s = MemoryStore()
    monkeypatch.setattr(store_module, "_default", s)
    return s


def lecturer_with_question(open_page, lesson="gates", qid="memory", link=""):
    at = open_page("class_room")
    assert not at.exception and [t.value for t in at.title] == ["Class: everyone answers"]  # it had no heading
    at.button(key="class.open").click().run()
    at.selectbox(key="class.lesson").set_value(lesson).run()
    at.selectbox(key="class.question").set_value(qid).run()
    at.text_input(key="class.link").set_value(link).run()
    at.button(key="class.ask").click().run()
    assert not at.exception
    return at, at.session_state["class.code"]


def test_a_full_loop_open_ask_vote_count_reveal_revote_close(open_page, fresh_store):
    at, code = lecturer_with_question(open_page)
    assert code in all_text(at) and f"/room/{code}" in all_text(at)  # the thin phone page
    assert at.get("image")  # the QR code of the join link
    students = [open_page("class_room", room=code) for _ in range(3)]
    for k, s in enumerate(students):
        assert "Which cell still holds x₁" in all_text(s) and not s.exception
        s.button(key=f"class.pick.{[1, 1, 0][k]}").click().run()
        assert "Your answer is in" in all_text(s)
        assert not [b for b in s.button if b.key.startswith("class.pick")]  # one answer per round: no more buttons
    at.run()
    assert at.metric[0].value == "3 of 3" and not at.get("plotly_chart")  # a count, no answers before the reveal
    at.button(key="class.reveal_btn").click().run()
    text = all_text(at)
    assert "The exact answer: **LSTM**" in text and "Round 1: **2 of 3** right" in text
    students[2].run()
    assert "The answer: **LSTM**" in all_text(students[2]) and "not quite" in all_text(students[2])
    at.button(key="class.revote").click().run()
    for s in students:
        s.run()
        assert "round 2" in all_text(s)
        s.button(key="class.pick.1").click().run()
    at.run()
    assert at.metric[0].value == "3 of 3"
    at.button(key="class.reveal_btn").click().run()
    assert "After discussing: **3 of 3** right" in all_text(at)
    csv = at.get("download_button")[0].proto.url
    assert csv  # the export is offered; its rows are checked against the store below
    rows = fresh_store.export(code, at.session_state["class.token"])
    assert {(r["round"], r["answer"], r["count"]) for r in rows} == {(1, "LSTM", 2), (1, "vanilla RNN", 1),
                                                                      (2, "LSTM", 3)}
    at.button(key="class.close").click().run()
    students[0].run()
    assert "closed this room" in all_text(students[0]) and not at.exception


def test_a_number_question_from_a_lesson_link_is_scored_by_distance(open_page):
    link = "http://host/scalar?wx=1&wh=2&x=1,0,0&t=2"
    at, code = lecturer_with_question(open_page, "scalar", "state", link)
    truth = scalar_state([1, 0, 0], 1, 2, 0, 0, 2).truth
    s = open_page("class_room", room=code)
    assert "What is h₂?" in all_text(s)
    s.number_input(key="class.num.1.1").set_value(round(truth + 0.01, 3)).run()
    s.button(key="class.vote").click().run()
    t = open_page("class_room", room=code)
    t.button(key="class.vote").click().run()  # no number typed
    assert "Please enter a number" in all_text(t)
    at.button(key="class.reveal_btn").click().run()
    assert f"The exact answer: **{truth:.3f}**" in all_text(at).replace("\\", "")
    assert "Round 1: **1 of 1** right" in all_text(at)


def test_every_lesson_offers_a_question_from_its_defaults(open_page):
    at = open_page("class_room")
    at.button(key="class.open").click().run()
    for lesson in [ls.url for ls in asking()]:
        at.selectbox(key="class.lesson").set_value(lesson).run()
        assert not at.exception, lesson
        assert at.button(key="class.ask"), lesson  # at least one question per page, from the page's defaults
    at.selectbox(key="class.lesson").set_value("states").run()
    at.text_input(key="class.link").set_value("/states?cell=mingru&H=64&view=params").run()  # as the page reads it
    assert "A 1\\-layer minGRU with H = 64" in all_text(at) and "not valid" not in all_text(at)


def test_bad_codes_full_rooms_and_bad_links_are_messages(open_page, monkeypatch):
    s = open_page("class_room", room="NOSUCH")
    assert "no room with that code" in all_text(s) and not s.exception
    at = open_page("class_room")
    at.button(key="class.open").click().run()
    at.selectbox(key="class.question").set_value("settle").run()
    at.text_input(key="class.link").set_value("http://host/scalar?wh=-3&wx=banana").run()
    text = all_text(at)
    assert "no single answer" in text  # w_h = -3: a 2-cycle, no settling
    # the notice names the control as the lesson page does (it named the link's key alone: "value for wx")
    assert "value for **wₓ, input weight** (`wx` in the link) was not valid" in text
    assert not [b for b in at.button if b.key == "class.ask"] and not at.exception
    small = MemoryStore(max_students=1)
    monkeypatch.setattr(store_module, "_default", small)
    at, code = lecturer_with_question(open_page, "gates", "memory")
    open_page("class_room", room=code)
    late = open_page("class_room", room=code)
    assert "This room is full" in all_text(late) and not late.exception


@pytest.mark.parametrize("setup,words", [("x=" + ",".join(["1"] * 160), "too long to ask about"),
                                         ("x=%2C", "is empty"), ("scores=%2C", "is empty")])
def test_a_setup_too_long_or_empty_to_ask_about_is_a_message(open_page, setup, words):
    """Ask the class from a page with 160 inputs (the page takes 200) made a question longer than a phone's 500
    characters, and the Class page failed with a traceback; so did an input of commas alone (a browser walk)."""
    lesson = "hello" if setup.startswith("scores") else "scalar"
    at = open_page("class_room", classroom="1", ask=lesson, setup=setup)
    assert words in all_text(at) and not at.exception
    assert not [b for b in at.button if b.key == "class.ask"]


def test_a_store_that_is_down_is_a_message(open_page, monkeypatch):
    monkeypatch.setattr(store_module, "_default", RedisStore(f"redis://127.0.0.1:{free_port()}/0"))
    at = open_page("class_room")
    at.button(key="class.open").click().run()
    assert "not answering" in all_text(at) and not at.exception
    s = open_page("class_room", room="ABCDEF")
    assert "not answering" in all_text(s) and not s.exception


def test_the_lecturers_own_link_gives_the_room_back_after_a_reload(open_page):
    at, code = lecturer_with_question(open_page)
    token = at.session_state["class.token"]
    assert f"?host={code}&key={token}" in all_text(at)  # folded away in an expander on the lecturer's page
    again = open_page("class_room", host=code, key=token)  # a new session, as after a reload
    assert f"Room **{code}**" in all_text(again) and "key" not in again.query_params  # the key leaves the URL
    again.button(key="class.reveal_btn").click().run()
    assert "The exact answer" in all_text(again)
    wrong = open_page("class_room", host=code, key="guess")
    assert "does not open a room" in all_text(wrong) and wrong.button(key="class.open")


def test_a_phone_votes_only_with_the_token_its_room_gave_it(open_page, fresh_store):
    at, code = lecturer_with_question(open_page)
    s = open_page("class_room", room=code)
    me = s.query_params["me"]
    assert fresh_store.issue_voter(code) != me and len(me) > 30  # a token the room signed, in the link for a reload
    s.button(key="class.pick.1").click().run()
    again = open_page("class_room", room=code, me=me)  # the same phone reloaded: the same voter, who has answered,
    picked = plain(fresh_store.view(code).question.options[1])  # sees the answer the room holds, not the question
    assert f"Your answer is in: **{picked}**" in all_text(again)
    assert not [b for b in again.button if b.key.startswith("class.pick")]
    vid, sig = me.split(".")
    for forged in ("someone-else-000000", f"{vid[:-1]}{'B' if vid[-1] == 'A' else 'A'}.{sig}"):
        f = open_page("class_room", room=code, me=forged)  # a made-up or edited voter in the link
        assert "not given out by this room" in all_text(f) and not f.exception
        assert not [b for b in f.button if b.key.startswith("class.pick")]  # no way to answer with it
    assert fresh_store.view(code).answered == 1 and fresh_store.view(code).students == 1


def walk(node):
    """A page's elements in the order a visitor reads them."""
    yield node
    for child in getattr(node, "children", {}).values():
        yield from walk(child)


def test_an_answer_out_of_range_is_refused_and_nothing_stored(open_page, fresh_store):
    """(A choice not offered never reaches the store from the page; the store's own check is in test_rooms_store.)"""
    at, code = lecturer_with_question(open_page, "scalar", "state")
    s = open_page("class_room", room=code)
    s.number_input(key="class.num.1.1").set_value(7.0).run()  # past the box's range (a hand-made message can send it)
    s.button(key="class.vote").click().run()
    assert "Please enter a number between -1 and 1" in all_text(s) and not s.exception
    assert not [c for c in s.code if "me=" in c.value]  # no "Link to this setup" to share this phone's voter token by
    assert fresh_store.view(code).answered == 0 and s.button(key="class.vote")  # nothing stored; the box stays
    order = [(getattr(e, "key", None), getattr(e, "value", None)) for e in walk(s.main)]
    said = next(k for k, (_, v) in enumerate(order) if isinstance(v, str) and "Please enter" in v)
    assert said > next(k for k, (key, _) in enumerate(order) if key == "class.vote")  # under the Vote button


def test_the_reveal_draws_the_answers_on_the_lessons_own_chart(open_page):
    at, code = lecturer_with_question(open_page, "scalar", "state", "http://host/scalar?wh=2&x=1,0,0,0&t=3")
    h = run_scalar([1.0, 0, 0, 0], 1.0, 2.0, 0.0, 0.0).h[:, 0]
    votes = [round(float(h[2]), 3), -0.5, 0.25]
    for v in votes:
        s = open_page("class_room", room=code)
        s.number_input(key="class.num.1.1").set_value(v).run()
        s.button(key="class.vote").click().run()
    assert not charts(at)  # nothing drawn before the reveal
    at.button(key="class.reveal_btn").click().run()
    [chart] = [c for c in charts(at) if "lesson" in c.alt]  # the one-unit page's h_t over time, this setup's
    traces = chart.figure["data"]
    curve = next(tr for tr in traces if tr["type"] == "scatter" and tr["mode"] == "lines+markers")
    assert values(curve["y"]) == pytest.approx(h)
    box = next(tr for tr in traces if tr["type"] == "box")
    assert sorted(values(box["y"])) == sorted(votes) and set(values(box["x"])) == {3}  # the class's answers at t = 3
    star = next(tr for tr in traces if tr.get("marker", {}).get("symbol") == "star")
    assert (values(star["x"]), values(star["y"])) == ([3], [pytest.approx(h[2])])  # against the truth, on the curve
    at.button(key="class.revote").click().run()
    at.button(key="class.reveal_btn").click().run()
    [chart] = [c for c in charts(at) if "lesson" in c.alt]
    assert [len(values(tr["y"])) for tr in chart.figure["data"] if tr["type"] == "box"] == [3]  # round 2: none yet


def test_ask_the_class_from_a_lesson_page_in_classroom_mode(open_page):
    page = open_page("scalar", classroom="1", wh="2")
    plain = open_page("scalar")
    assert not [b for b in plain.button if b.key == "app.ask"]  # on the projector only
    page.slider(key="scalar.w_h").set_value(2.5).run()  # a setting changed after the page was first drawn
    page.button(key="app.ask").click().run()  # the Class page, with the setup as it is when pressed
    assert page.session_state["class.lesson"] == "scalar" and "wh=2.5" in page.session_state["class.link"]
    assert page.session_state["class.link"].startswith("http://localhost:8501/scalar?")  # the page's own address
    query = {"classroom": "1", "ask": "scalar", "setup": "wh=2"}  # the same, by address
    at = open_page("class_room", **query)  # the link opens a room with the page's first question and its setup
    code = at.session_state["class.code"]
    assert at.selectbox(key="class.lesson").value == "scalar" and "wₕ = 2" in all_text(at)
    assert "ask" not in at.query_params and "setup" not in at.query_params
    at.button(key="class.ask").click().run()
    assert "wₕ = 2" in all_text(open_page("class_room", room=code))


def test_a_phone_joins_by_typing_the_code_and_a_wrong_code_can_be_typed_again(open_page, fresh_store):
    """A student who types the site's address reaches the Class page without the room's link: a box for the code
    on the projector gets them in (the walk: only "Open a room" was there, which opened a room of their own)."""
    at, code = lecturer_with_question(open_page)
    phone = open_page("class_room")
    phone.text_input(key="class.typed.first").input("zzzzzz")
    phone.button(key="class.join_btn.first").click().run()
    assert "no room with that code" in all_text(phone) and "room" not in phone.query_params
    phone.button(key="class.join_btn.first").click().run()  # again: said once, under the box (it was said twice)
    assert [w.value for w in phone.warning].count(next(w.value for w in phone.warning if "no room" in w.value)) == 1
    phone.text_input(key="class.typed.first").input(f" {code.lower()} ")  # as typed on a phone: case, spaces
    phone.button(key="class.join_btn.first").click().run()
    assert not phone.exception and phone.query_params["room"] == code
    phone.text_input(key="class.nick").input("*Ada*").run()  # shown as typed, on this phone only
    assert "Answering as **\\*Ada\\***" in all_text(phone)
    assert "Ada" not in str(fresh_store.export(code, at.session_state["class.token"]))  # never sent
    assert [b for b in phone.button if b.key.startswith("class.pick")]  # the question's answers, ready to tap
    assert fresh_store.view(code).students == 1
    # last week's room, closed, its link still open on a phone with that room's voter token: the box for this week's
    # code, and the new room gives the phone a token of its own (last week's is refused here)
    old = open_page("class_room")
    old.button(key="class.open").click().run()
    old_code, old_token = old.session_state["class.code"], old.session_state["class.token"]
    lost = open_page("class_room", room=old_code)
    fresh_store.close(old_code, old_token)
    lost.run()
    assert "closed this room" in all_text(lost)
    lost.text_input(key="class.typed.again").input(f"{code[:3]} {code[3:]}")  # a space, as phone keyboards add one
    lost.button(key="class.join_btn.again").click().run()
    assert lost.query_params["room"] == code and not lost.exception and "not given out" not in all_text(lost)
    assert lost.query_params["me"] != phone.query_params["me"] and fresh_store.view(code).students == 2
    wrong = open_page("class_room", room="ABCDEF")
    wrong.text_input(key="class.typed.again").input("qqqq").run()
    wrong.button(key="class.join_btn.again").click().run()
    for _ in range(2):  # the phone's refreshes: the typed code's message stays with the link's
        assert all_text(wrong).count("no room with that code") == 2
        wrong.run()


def test_another_tab_of_the_same_voter_shows_the_answer_given_in_the_first(open_page, fresh_store):
    """Behind nginx a browser is one voter, whatever its tabs: a tab opened before the other one voted shows that
    answer at its next refresh, not the question (it was asked once and kept 'no answer')."""
    at, code = lecturer_with_question(open_page)
    first = open_page("class_room", room=code)
    second = open_page("class_room", room=code, me=first.query_params["me"])  # the same voter
    assert [b for b in second.button if b.key.startswith("class.pick")]
    first.button(key="class.pick.2").click().run()
    second.run()  # its refresh
    assert f"Your answer is in: **{plain(fresh_store.view(code).question.options[2])}**" in all_text(second)


def test_a_refusal_stays_on_a_phone_through_its_refreshes(open_page, fresh_store):
    """The phone's view redraws itself every REFRESH_S: a message shown once was gone in under half a second."""
    at, code = lecturer_with_question(open_page, "scalar", "state")
    s = open_page("class_room", room=code)
    s.button(key="class.vote").click().run()  # the number box still empty
    for _ in range(3):  # the refreshes that follow
        assert "Please enter a number" in all_text(s)
        s.run()
    s.number_input(key="class.num.1.1").set_value(0.5).run()
    s.button(key="class.vote").click().run()
    assert "Please enter a number" not in all_text(s) and "Your answer is in" in all_text(s)


def test_the_projector_counts_the_phones_in_before_the_first_question(open_page, fresh_store):
    lec = open_page("class_room")
    lec.button(key="class.open").click().run()
    code = lec.session_state["class.code"]
    assert [m.value for m in lec.metric if m.label == "Phones in the room"] == ["0"]
    for _ in range(2):
        open_page("class_room", room=code)
    lec.run()  # the count's own refresh, as the projector's fragment does every REFRESH_S
    assert [m.value for m in lec.metric if m.label == "Phones in the room"] == ["2"]


def test_the_class_page_has_no_lesson_link_to_wander_off_by(open_page):
    """A lecturer's walk on a phone: under Vote sat '1. One unit by hand →' (the welcome page's way in), one tap from
    leaving the room. The Class page is outside the lesson path: no lesson links; the welcome page keeps its own."""
    labels = lambda at: [el.proto.label for el in at.get("page_link")]  # noqa: E731
    assert not [lab for lab in labels(open_page("class_room")) if "One unit by hand" in lab]
    assert [lab for lab in labels(open_page("home")) if "One unit by hand" in lab]
