"""Chart text a room can read: the grey of axis text and notes at 4.5:1 or more on white (WCAG AA; Streamlit's chart
grey, #808495, was 3.7:1), and the high-contrast theme's text and blue at 7:1 or more (AAA)."""
import re

from rnnviz.figures.base import COLORS
from tests.conftest import ROOT
from ui import theme


def contrast(fg: str, bg: str = "#ffffff") -> float:
    def lum(h: str) -> float:
        r, g, b = (int(h.lstrip("#")[i:i + 2], 16) / 255 for i in (0, 2, 4))
        f = lambda c: c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4  # noqa: E731
        return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b)
    hi, lo = sorted((lum(fg), lum(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_chart_text_is_at_least_4_5_to_1_in_the_normal_theme():
    look = (ROOT / "ui" / "live" / "look.js").read_text()
    ink = re.search(r'const INK = "(#[0-9a-fA-F]{6})"', look).group(1)  # the template's axis and tick text
    assert contrast(ink) >= 4.5, ink
    texts = set(re.findall(r'(?<![a-z_])color: "(#[0-9a-fA-F]{6})"', look))  # every colour of text the template sets
    assert texts and all(contrast(c) >= 4.5 for c in texts), texts
    assert contrast(COLORS["muted"]) >= 4.5  # the charts' grey notes ('chance', 'twice the start')


def test_the_high_contrast_theme_is_at_least_7_to_1():
    assert contrast(theme.INK) >= 7 and contrast(theme.BLUE) >= 7
    assert contrast("#ffffff", theme.BLUE) >= 7  # the Next button's white label on it
