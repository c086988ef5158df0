"""One registry entry is a lesson: a toy lesson declared in ui/lessons/registry.py, with one class question, is in the
welcome page's plan and on the lesson path, its page offers Ask the class, and the Class page offers its question,
which a phone answers and the reveal scores; no other file names it."""
import pytest

from rnnviz.rooms import store as store_module
from rnnviz.rooms.questions import Answer
from rnnviz.rooms.store import MemoryStore
from tests.conftest import all_text
from ui.lessons.registry import LESSONS, Lesson, asking, lesson
from ui.questions.base import Ask, Made
from ui.urlstate import Param, integer

TITLE = "Squares by heart"


def square(s: dict, lm=None) -> Made:
    n = s["n"]
    return Made(f"What is {n} squared?", (), Answer("number", n * n, 0.0, 100.0, 0.5), f"{n * n}")


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """The toy lesson, registered for one test; its page is a file of the test's own (none is written into the app)."""
    page = tmp_path / "toy.py"
    page.write_text("import streamlit as st\n\nst.title('Squares by heart')\n")

    class Toy(Lesson):
        script = property(lambda self: str(page))

    toy = Toy("toy", TITLE, ":material/calculate:", "5 · A toy", 3, "squares, asked of the whole class",
              {"square": Ask("n squared (a number)", square)}, lambda lm: [Param("toy.n", "n", 3, integer(1, 9))])
    monkeypatch.setattr(store_module, "_default", MemoryStore())
    LESSONS.append(toy)
    yield toy
    LESSONS.remove(toy)


def test_a_lesson_declared_once_is_on_the_path_and_its_question_is_asked(open_page, toy):
    assert lesson("toy") is toy and asking()[-1] is toy
    home = open_page("home")
    n = len(LESSONS)
    assert f"A lesson plan: {n} pages" in home.subheader[0].value  # the plan counts it and links to it
    assert f"{n}. {TITLE}" in [el.proto.label for el in home.get("page_link")]
    page = open_page("home", classroom="1")
    page.switch_page(toy.script).run()  # its own page: on the lesson path, with the class's question
    links = [el.proto.label for el in page.get("page_link")]
    assert f"← {n - 1}. {LESSONS[-2].title}" in links and "Back to the lesson plan →" in links
    page.button(key="app.ask").click().run()
    assert page.session_state["class.lesson"] == "toy" and page.session_state["class.question"] == "square"
    at = open_page("class_room")
    at.button(key="class.open").click().run()
    lessons = at.selectbox(key="class.lesson")
    assert lessons.options[-1] == TITLE  # named by its title, after the lessons before it
    lessons.set_value("toy").run()
    assert at.selectbox(key="class.question").value == "square"
    at.text_input(key="class.link").set_value("http://host/toy?n=7").run()  # read as the toy page's link
    assert "What is 7 squared?" in all_text(at) and not at.exception
    at.button(key="class.ask").click().run()
    code = at.session_state["class.code"]
    phone = open_page("class_room", room=code)
    assert "What is 7 squared?" in all_text(phone)
    phone.number_input(key="class.num.1.1").set_value(49.0).run()
    phone.button(key="class.vote").click().run()
    at.button(key="class.reveal_btn").click().run()
    assert "Round 1: **1 of 1** right" in all_text(at) and not at.exception
