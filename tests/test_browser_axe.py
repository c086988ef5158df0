"""An accessibility audit in a real browser: axe-core (bundled by axe-playwright-python) finds no serious or
critical violation on any page, in the normal theme or the high-contrast one (?contrast=high)."""
import pytest

from tests.browser import Server, chromium, painted, wait_idle
from tests.conftest import long_only
from ui.lessons.registry import LESSONS

pytestmark = pytest.mark.slow

PAGES = ["", *(ls.url for ls in LESSONS), "class_room"]
# Streamlit's own sidebar navigation puts <div>s between its <ul> and <li>s (axe: list, listitem): its markup, not
# ours, and no setting changes it. Everything else on every page is audited.
NOT_OURS = {"exclude": [['[data-testid="stSidebarNav"]']]}


@pytest.fixture(scope="module")
def audited():
    axe = pytest.importorskip("axe_playwright_python.sync_playwright").Axe()
    with chromium() as b:
        server = Server()
        try:
            pg = b.new_page(viewport={"width": 1400, "height": 1000})
            yield lambda path: audit(axe, pg, f"{server.url}/{path}")
        finally:
            server.close()


def audit(axe, pg, url: str) -> tuple[list[str], str | None]:
    pg.goto(url)
    wait_idle(pg, 300_000)  # the sampling page's first visit on a fresh server
    painted(pg)
    pg.wait_for_function("() => document.documentElement.dataset.rnnvizKeys", timeout=30_000)  # the foot's scripts
    found = axe.run(pg, context=NOT_OURS, options={"resultTypes": ["violations"]}).response["violations"]
    ink = pg.evaluate("() => { const t = document.querySelector('.rnnviz-chart .xtick text'); "
                      "return t && getComputedStyle(t).fill; }")  # axe does not measure SVG text: the axis ink
    return [f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes'][:3]]}" for v in found
            if v["impact"] in ("serious", "critical")], ink


# the high-contrast theme, every page again (24 s of a browser), before a release (RNNVIZ_LONG=1); its colours'
# contrast ratios are computed in tests/test_contrast.py in the default run
@pytest.mark.parametrize("contrast", ["", pytest.param("contrast=high", marks=long_only("the high-contrast audit"))])
def test_no_serious_accessibility_violation_on_any_page(audited, contrast):
    found = {path or "home": audited(f"{path}?{contrast}") for path in PAGES}
    problems = {k: v for k, (v, _) in found.items() if v}
    assert not problems, problems
    inks = {ink for _, ink in found.values() if ink}  # chart axis text: 6.3:1 (tests/test_contrast.py), black when high
    assert inks == ({"rgb(0, 0, 0)"} if contrast else {"rgb(92, 95, 110)"}), inks
