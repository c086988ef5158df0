"""The lesson path: the sidebar's sections, and the previous / next links at the foot of every page (and at the top
in classroom mode, where the sidebar is hidden), in the order of the lesson registry (ui/lessons/registry.py)."""
from __future__ import annotations

import streamlit as st

from ui.lessons.registry import LESSONS, Lesson
from ui.urlstate import classroom

# On a projector the link to the setup and Ask the class sit in the top row (app.py): buttons no taller than its
# lesson links, so the row stays 32 px and the first screen keeps the control and its chart.
TOP_ROW_CSS = """<style>
.st-key-lessons_top button {min-height: 0 !important; height: 32px;
  padding-top: 0 !important; padding-bottom: 0 !important;}
</style>"""


def pages() -> dict[str, list]:
    """st.navigation's sections, in lesson order, with the welcome page first."""
    out = {"Start": [st.Page("app_pages/home.py", title="Welcome: the lesson plan", icon=":material/waving_hand:",
                             default=True)]}
    for ls in LESSONS:
        out.setdefault(ls.section, []).append(st.Page(ls.script, title=ls.title, icon=ls.icon, url_path=ls.url))
    out["Class"] = [st.Page(CLASS_SCRIPT, title=CLASS_TITLE, icon=CLASS_ICON,
                            url_path="class_room"),  # outside the lesson numbering: rooms, phones vote (ui/rooms.py)
                    st.Page("app_pages/decks.py", title="Decks: a lecture, prepared", icon=":material/slideshow:",
                            url_path="decks"),  # ui/deck/
                    st.Page("app_pages/quiz.py", title="Concept quiz", icon=":material/quiz:", url_path="quiz"),
                    st.Page("app_pages/presenter.py", title="Presenter view", icon=":material/co_present:",
                            url_path="presenter")]
    return out


CLASS_SCRIPT, CLASS_TITLE, CLASS_ICON = "app_pages/class_room.py", "Class: everyone answers", ":material/groups:"
CLASS_WHAT = ("a room for the lecture: every phone answers a question made from a lesson's setup, then the count "
              "and the answer on that lesson's chart")  # its line on the welcome page


def _link(ls: Lesson | None, label: str, home: bool = False) -> None:
    query = {"classroom": "1"} if classroom() else None
    if home:
        st.page_link("app_pages/home.py", label=label, icon=":material/home:", query_params=query)
    elif ls is not None:
        st.page_link(ls.script, label=label, query_params=query)


def prev_next(url_path: str, where: str, voting: bool = False):
    """Links to the previous and next lesson ('where' keys the row: 'top' or 'foot'); returns the empty column between
    them, which app.py fills with the link to this setup once the page has run. The Class page leads back to the
    lesson plan, except on a voting phone (`voting`), which has nowhere else to be."""
    urls = [ls.url for ls in LESSONS]
    i = urls.index(url_path) if url_path in urls else -1
    prev_ls = LESSONS[i - 1] if i > 0 else None
    # the welcome page leads to the first lesson; the Class page, outside the path, to none (on a student's phone a
    # lesson link under Vote took them out of the room)
    next_ls = LESSONS[i + 1] if 0 <= i < len(LESSONS) - 1 else (LESSONS[0] if url_path == "" else None)
    with st.container(key=f"lessons_{where}"):
        c1, middle, c2 = st.columns([1.5, 2.2, 1.5])  # the middle holds the link to the setup and Ask the class
        with c1:
            if prev_ls:
                _link(prev_ls, f"← {i}. {prev_ls.title}")
            elif i == 0 or (url_path == "class_room" and not voting):
                _link(None, "← Lesson plan", home=True)
        with c2:
            if next_ls:
                _link(next_ls, f"{i + 2}. {next_ls.title} →")
            elif i == len(LESSONS) - 1:
                _link(None, "Back to the lesson plan →", home=True)
    return middle
