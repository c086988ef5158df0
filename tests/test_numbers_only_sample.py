"""rnnviz holds numbers, the app holds words, for the sampling page: its lesson and figure modules and the character
model hold no session state, no widget key and no streamlit call; the lesson module holds no widget label, tooltip,
caption or markdown prose either (its words are in ui/sample/words.py), and stays under 250 lines."""
import re

import pytest

from tests.conftest import ROOT

FORBIDDEN = {
    "session state": r"session_state|MutableMapping",
    "a widget key": r"\bkey=(?!lambda\b)",  # sorted(..., key=lambda ...) is no widget's
    "a streamlit call": r"\bst\.|import streamlit",
    "the page's session or widget key": r"[\"']sample\.[\w{]",
}
WORDS = {  # the character model's command-line tools have help= texts of their own: these apply to the page modules
    "a widget label, tooltip or caption": r"\b(?:label|help|format_func)=|[\"'](?:label|help)[\"']\s*:|\bcaption\b",
    "markdown prose": r"f?[\"']\*\*",
}
PAGE_MODULES = ["rnnviz/lessons/sample.py", "rnnviz/lessons/shading.py", "rnnviz/lessons/clamp.py",
                "rnnviz/figures/sample.py"]
OWNED = PAGE_MODULES + sorted(str(p.relative_to(ROOT)) for p in (ROOT / "rnnviz" / "charlm").glob("*.py"))


def found(path: str, patterns: dict[str, str]) -> dict[str, list[str]]:
    source = (ROOT / path).read_text(encoding="utf-8")
    hits = {what: re.findall(rf".*(?:{pattern}).*", source) for what, pattern in patterns.items()}
    return {what: lines for what, lines in hits.items() if lines}


@pytest.mark.parametrize("path", OWNED)
def test_no_session_state_widget_key_or_streamlit(path):
    assert not found(path, FORBIDDEN)


@pytest.mark.parametrize("path", PAGE_MODULES)
def test_no_labels_captions_or_prose(path):
    assert not found(path, WORDS)


def test_the_patterns_find_what_they_look_for():
    planted = {"st.session_state['sample.x'] = 1", 'session["sample.looked"] = True', 'f"sample.{k}"',
               'st.slider("n", key="sample.n")', "import streamlit as st", 'c.caption("words")', 'help="a tooltip"',
               'f"**{p:.3f}**"'}
    for line in planted:
        assert any(re.search(p, line) for p in {**FORBIDDEN, **WORDS}.values()), line
    assert not re.search(FORBIDDEN["a widget key"], "sorted(xs, key=lambda t: t[0])")
    assert not re.search(FORBIDDEN["a streamlit call"], "dist.world")


def test_the_sampling_lessons_module_stays_short():
    lines = (ROOT / "rnnviz" / "lessons" / "sample.py").read_text(encoding="utf-8").splitlines()
    assert len(lines) < 250 and max(map(len, lines)) <= 120
