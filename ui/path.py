"""The lesson path: the order a lecture takes through the pages, the welcome page's plan, and the previous /
next links at the foot of every page (and at the top in classroom mode, where the sidebar is hidden)."""
from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from ui.urlstate import classroom


@dataclass(frozen=True)
class Lesson:
    script: str  # page script, as st.Page and st.page_link name it
    url: str  # url_path
    title: str
    icon: str
    section: str  # sidebar heading
    minutes: int  # about how long it takes in a lecture
    what: str  # one line for the lesson plan


# The problem before the cure: the plain recurrence, how its gradients fade or blow up, then the gated cells.
LESSONS = [
    Lesson("app_pages/scalar.py", "scalar", "One unit by hand", ":material/edit:", "1 · The recurrence", 8,
           "one number of memory: step hₜ by hand, see it fade or flood, find where it settles"),
    Lesson("app_pages/vector.py", "vector", "The cell, step by step", ":material/grid_on:", "1 · The recurrence", 7,
           "the same step with vectors: the six moves of one step, states over time, a check against PyTorch"),
    Lesson("app_pages/gradients.py", "gradients", "Gradients through time", ":material/trending_down:",
           "2 · The problem", 10, "why plain RNNs forget: gradients that vanish or explode, and clipping"),
    Lesson("app_pages/gates.py", "gates", "Gates: LSTM and GRU", ":material/valve:", "3 · The cure", 8,
           "gates that decide what to keep: the LSTM's cell path, the GRU, three cells side by side"),
    Lesson("app_pages/recurrences.py", "recurrences", "Recurrence returns", ":material/linear_scale:", "3 · The cure",
           10, "linear recurrences that train in parallel: minGRU, the LRU, selective state spaces, the scan"),
    Lesson("app_pages/states.py", "states", "Using the states", ":material/call_split:", "4 · Putting it to work", 6,
           "classifier or language model, the padding trap, reading both ways, counting parameters"),
    Lesson("app_pages/hello.py", "hello", 'Train "hello" yourself', ":material/school:", "4 · Putting it to work", 5,
           "the smallest language model, trained in front of you on a word you choose"),
    Lesson("app_pages/sample.py", "sample", "Sample a trained model", ":material/auto_stories:",
           "4 · Putting it to work", 6, "a Shakespeare LSTM writes; look inside at probabilities, units and gates"),
]


def pages() -> dict[str, list]:
    """st.navigation's sections, in lesson order, with the welcome page first."""
    out = {"Start": [st.Page("app_pages/home.py", title="Welcome: the lesson plan", icon=":material/waving_hand:",
                             default=True)]}
    for ls in LESSONS:
        out.setdefault(ls.section, []).append(st.Page(ls.script, title=ls.title, icon=ls.icon, url_path=ls.url))
    out["Class"] = [st.Page("app_pages/class_room.py", title="Class: everyone answers", icon=":material/groups:",
                            url_path="class_room")]  # outside the lesson numbering: rooms, phones vote (ui/rooms.py)
    return out


def _link(ls: Lesson | None, label: str, home: bool = False) -> None:
    query = {"classroom": "1"} if classroom() else None
    if home:
        st.page_link("app_pages/home.py", label=label, icon=":material/home:", query_params=query)
    elif ls is not None:
        st.page_link(ls.script, label=label, query_params=query)


def prev_next(url_path: str, where: str):
    """Links to the previous and next lesson ('where' keys the row: 'top' or 'foot'); returns the empty column between
    them, which app.py fills (at the foot) with the link to this setup once the page has run."""
    urls = [ls.url for ls in LESSONS]
    i = urls.index(url_path) if url_path in urls else -1
    prev_ls = LESSONS[i - 1] if i > 0 else None
    # the welcome page leads to the first lesson; the Class page, outside the path, to none (on a student's phone a
    # lesson link under Vote took them out of the room)
    next_ls = LESSONS[i + 1] if 0 <= i < len(LESSONS) - 1 else (LESSONS[0] if url_path == "" else None)
    with st.container(key=f"lessons_{where}"):
        c1, middle, c2 = st.columns([2, 1.2, 2])
        with c1:
            if prev_ls:
                _link(prev_ls, f"← {i}. {prev_ls.title}")
            elif i == 0:
                _link(None, "← Lesson plan", home=True)
        with c2:
            if next_ls:
                _link(next_ls, f"{i + 2}. {next_ls.title} →")
            elif i == len(LESSONS) - 1:
                _link(None, "Back to the lesson plan →", home=True)
    return middle
