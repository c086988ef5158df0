"""Every chart on every page carries a text alternative; stepping has keyboard shortcuts."""
import pytest

from tests.conftest import ROOT, charts

PAGES = [("scalar", {}), ("vector", {}), ("gates", {}), ("recurrences", {}), ("states", {}), ("gradients", {}),
         ("hello", {})]
if (ROOT / "models" / "shakespeare.safetensors").exists():
    PAGES.append(("sample", {"view": "gates"}))  # its default view draws the text as markup, not a chart


@pytest.mark.parametrize("page,query", PAGES)
def test_every_chart_has_a_text_alternative(open_page, page, query):
    at = open_page(page, **query)
    drawn = charts(at)
    assert drawn, page
    for c in drawn:
        assert len(c.alt.strip()) >= 10, (page, c.alt)


@pytest.mark.parametrize("page", ["scalar", "vector", "gates"])
def test_stepping_buttons_have_keyboard_shortcuts(open_page, page):
    at = open_page(page)
    shortcuts = {b.proto.label: b.proto.shortcut for b in at.button if b.proto.shortcut}
    assert shortcuts.get("Next ▶") == "right" and shortcuts.get("◀ Back") == "left"


@pytest.mark.skipif(not (ROOT / "models" / "shakespeare.safetensors").exists(), reason="the shipped model is missing")
def test_the_sampled_text_has_a_text_alternative_and_hover_text(open_page):
    import json

    at = open_page("sample")
    data = json.loads(next(e.proto for e in at.main
                           if getattr(e.proto, "component_name", "") == "rnnviz_textview").json)
    assert data["alt"].startswith("The text, shaded by probability; character 7 outlined")
    assert data["html"].count(" title=") == 506  # every character says its value on hover (and to screen readers)


@pytest.mark.parametrize("page,query", [("gradients", {"view": "decay"}), ("gradients", {"view": "factors"}),
                                        ("gradients", {"view": "clip"}), ("gates", {}), ("states", {"view": "padding"}),
                                        ("scalar", {})])
def test_red_is_drawn_only_for_outputs(open_page, page, query):
    """The legend says red is outputs: the plain RNN, the unclipped run and the padding trap's error, none of them an
    output, are drawn in other colours on every chart these pages show."""
    from rnnviz.figures.base import COLORS

    at = open_page(page, **query)
    specs = [c.spec for c in charts(at)]
    assert specs and not [s[:80] for s in specs if COLORS["output"] in s], (page, query)
