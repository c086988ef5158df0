"""rnnviz holds numbers, the app holds words: the lesson modules cleaned so far hold no session state, no widget key,
no streamlit call, no widget label, tooltip or caption, and no markdown prose (their words are in ui/lessons/)."""
import re

import pytest

from tests.conftest import ROOT

CLEANED = ["scalar", "presets", "gradients", "clipping", "vector", "gates", "states", "hello"]  # rnnviz/lessons/<name>.py
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
