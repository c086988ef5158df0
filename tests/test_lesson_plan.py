"""The welcome page's plan: the Class page listed beside the lessons, a 50-minute version that adds up, and the
Class page's way back to the lessons (a lecturer's, not a voting phone's)."""
import re

from rnnviz.rooms import store as store_module
from rnnviz.rooms.store import MemoryStore
from tests.conftest import all_text
from ui.lessons.registry import LESSONS, plan


def links(at) -> list[str]:
    return [el.proto.label for el in at.get("page_link")]


def test_the_welcome_page_lists_the_class_page_and_a_50_minute_plan(open_page):
    home = open_page("home")
    assert "Class: everyone answers" in links(home)
    said = re.search(r"\*\*In 50 minutes:\*\* the same path without (.*?), which .*? about (\d+) minutes",
                     all_text(home))
    short = plan(50)
    assert said and int(said.group(2)) == sum(ls.minutes for ls in short) <= 50
    assert sum(ls.minutes for ls in LESSONS) > 50  # the full plan does not fit: the short one is needed
    for ls in LESSONS:  # each lesson left out is named, and only those
        assert (f"{ls.title} (about {ls.minutes} min)" in said.group(1)) == (ls not in short), ls.title


def test_the_class_page_leads_back_to_the_lesson_plan_but_not_on_a_phone(open_page, monkeypatch):
    monkeypatch.setattr(store_module, "_default", MemoryStore())
    for query in ({}, {"classroom": "1"}):
        assert "← Lesson plan" in links(open_page("class_room", **query)), query
    lecturer = open_page("class_room")
    lecturer.button(key="class.open").click().run()
    phone = open_page("class_room", room=lecturer.session_state["class.code"])
    assert "← Lesson plan" not in links(phone)
