"""Every chart on every page carries a text alternative; stepping has keyboard shortcuts."""
import pytest

from tests.conftest import ROOT

PAGES = ["scalar", "vector", "gates", "states", "gradients", "hello"]
if (ROOT / "models" / "shakespeare.safetensors").exists():
    PAGES.append("sample")


@pytest.mark.parametrize("page", PAGES)
def test_every_chart_has_a_text_alternative(open_page, page):
    at = open_page(page)
    charts = at.get("plotly_chart")
    assert charts, page
    for c in charts:
        assert len(c.proto.alt.strip()) >= 10, (page, c.proto.alt)


@pytest.mark.parametrize("page", ["scalar", "vector", "gates"])
def test_stepping_buttons_have_keyboard_shortcuts(open_page, page):
    at = open_page(page)
    shortcuts = {b.proto.label: b.proto.shortcut for b in at.button if b.proto.shortcut}
    assert shortcuts.get("Next ▶") == "right" and shortcuts.get("◀ Back") == "left"
