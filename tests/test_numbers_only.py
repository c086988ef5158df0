"""rnnviz holds numbers, the app holds words: the lesson modules cleaned so far hold no session state, no widget key,
no streamlit call, no widget label, tooltip or caption, and no markdown prose (their words are in ui/lessons/)."""
import re

import pytest

from tests.conftest import ROOT

# rnnviz/lessons/<name>.py; the coordinator widens this to the whole package once every branch is merged
CLEANED = ["scalar", "presets", "gradients", "clipping", "vector", "gates", "states", "hello"]
FORBIDDEN = {
    "session state": r"session_state|MutableMapping",
    "a widget key": r"\bkey=",
    "a streamlit call": r"\bst\.|import streamlit",
    "a widget label, tooltip or caption": r"\b(label|help|caption|format_func)=|[\"'](label|help|caption)[\"']\s*:",
    "markdown prose": r"f?[\"']\*\*",
}


@pytest.mark.parametrize("name", CLEANED)
def test_lesson_module_holds_no_words(name):
    source = (ROOT / "rnnviz" / "lessons" / f"{name}.py").read_text(encoding="utf-8")
    found = {what: re.findall(rf".*(?:{pattern}).*", source) for what, pattern in FORBIDDEN.items()}
    assert not {what: lines for what, lines in found.items() if lines}


@pytest.mark.parametrize("line,what", [
    ('    state[f"{page}.score"] = st.session_state.get(key)', "session state"),
    ('col.button(pr["label"], key=f"{P}.x")', "a widget key"),
    ("import streamlit as st", "a streamlit call"),
    ('    "vanish": {"label": "Vanish", "help": "Largest singular value"},', "a widget label, tooltip or caption"),
    ('    return (f"**Step {t}.** Read the input")', "markdown prose"),
])
def test_the_grep_catches_what_the_lessons_held(line, what):
    """Each pattern finds the kind of line the lesson modules held before their words moved out."""
    assert re.search(FORBIDDEN[what], line)
