"""Real-browser tests: the app served by `streamlit run app.py`, opened in headless Chromium."""
import re

import pytest

from tests.browser import BUSY, CHART, Server, chromium, wait_idle

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server():
    s = Server()
    yield s
    s.close()


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture
def page(browser):
    pg = browser.new_page(viewport={"width": 1400, "height": 1000})
    yield pg
    pg.close()


def open_page(page, server, path: str):
    page.goto(f"{server.url}/{path}")
    wait_idle(page)
    page.wait_for_selector(f"{CHART} .main-svg", timeout=30_000) if path else None


def test_scalar_page_renders_numbers_and_charts(server, page):
    open_page(page, server, "scalar")
    for v in ("0.762", "0.363", "0.180"):  # wait for each number to be painted, not for a fixed time
        page.wait_for_function(f"() => document.body.innerText.includes('{v}')", timeout=30_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator(CHART).count() == 3


def test_scalar_page_responds_to_a_button(server, page):
    open_page(page, server, "scalar")
    page.get_by_role("button", name="Flood").click()
    page.wait_for_function("() => document.body.innerText.includes('0.949')", timeout=30_000)
    wait_idle(page)
    assert "w_h=2.0" in page.url or "wh=2.0" in page.url
    assert page.locator('[data-testid="stException"]').count() == 0


@pytest.mark.parametrize("path,charts,text", [
    ("vector", 4, "Step 1 of 5"), ("gates", 2, "0.7616"), ("states", 1, "[B, T, H] = [2, 5, 3]"),
    ("gradients", 3, "1.13 × 10¹⁵"),
])
def test_each_page_renders_its_charts(server, page, path, charts, text):
    open_page(page, server, path)
    page.wait_for_function(f"() => document.querySelectorAll('{CHART} .main-svg').length >= {charts}",
                           timeout=30_000)
    assert text in page.inner_text("body")
    assert page.locator('[data-testid="stException"]').count() == 0


def test_gradients_page_responds_to_explode(server, page):
    open_page(page, server, "gradients")
    wait_idle(page)
    page.locator(".st-key-grad-explode button").first.click()  # the button itself, not its help icon; a fragment
    page.wait_for_function("() => window.location.search.includes('w=1.5')", timeout=30_000)
    page.wait_for_function("() => document.body.innerText.includes('Clipped:')", timeout=30_000)
    wait_idle(page)
    assert "by=rho" in page.url and "xs=0.0" in page.url
    assert page.locator('[data-testid="stException"]').count() == 0


def click_character(page, i: int, then: str) -> None:
    """Click character i of the sampled text once the page is idle (a click on the text while it is being redrawn
    can be lost), then wait until the page says `then`."""
    wait_idle(page)
    page.locator(f'span[data-i="{i}"]').click()
    page.wait_for_function(f"() => document.body.innerText.includes({then!r})", timeout=30_000)


def test_sample_page_text_is_clickable_and_resamples(server, page):
    page.goto(f"{server.url}/sample")
    wait_idle(page)
    page.wait_for_selector('span[data-i="30"]', timeout=30_000)  # the text view's spans (inside a shadow root)
    text = "".join(page.locator("span[data-i]").all_inner_texts()).replace("↵", "\n")
    assert text.startswith("ROMEO:") and len(text) == 506
    click_character(page, 30, "Character 31:")  # a click inspects that character (text[30], the 31st)
    page.wait_for_function("() => window.location.search.includes('pos=30')", timeout=30_000)
    assert page.locator('span[data-i="30"].sel').count() == 1
    page.locator(".st-key-sample-shade button", has_text="connectivity").click()  # shading follows the position
    page.wait_for_function("() => document.body.innerText.includes('Connectivity of the prediction of character 31')",
                           timeout=30_000)
    click_character(page, 350, "Connectivity of the prediction of character 351")
    page.get_by_role("button", name="Sample again").click()
    page.wait_for_function("() => window.location.search.includes('seed=2')", timeout=30_000)
    wait_idle(page)
    page.wait_for_selector('span[data-i="30"]', timeout=30_000)
    assert "".join(page.locator("span[data-i]").all_inner_texts()).replace("↵", "\n") != text
    assert page.locator('[data-testid="stException"]').count() == 0


def test_a_lecture_hall_without_internet_misses_nothing(server, page):
    """Every request a page makes goes to the app's own server: the favicon, a Material icon, was fetched from
    fonts.gstatic.com on every load (offline: a console error and no icon)."""
    outside = []
    page.on("request", lambda r: None if r.url.startswith((server.url, "data:", "blob:")) else outside.append(r.url))
    for path in ("", "scalar?classroom=1", "gradients", "hello"):
        open_page(page, server, path)
    assert page.evaluate("() => [...document.querySelectorAll('link[rel*=icon]')].map(l => l.href)") and outside == []


def test_home_page_has_no_exception(server, page):
    open_page(page, server, "")
    assert "Recurrent networks" in page.inner_text("body")
    assert page.locator('[data-testid="stException"]').count() == 0


def test_lesson_path_in_classroom_mode_by_next_links(server, page):
    """A teacher follows the lesson plan on a projector: from the welcome page to the last lesson by each page's
    'next' link at the foot; classroom mode stays on all the way and the sidebar stays hidden."""
    from ui.lessons.registry import LESSONS

    page.set_viewport_size({"width": 1024, "height": 800})
    page.goto(f"{server.url}/?classroom=1")
    wait_idle(page)
    for n, lesson in enumerate(LESSONS, 1):
        link = page.locator(".st-key-lessons_foot a", has_text=f"{n}. {lesson.title}")
        link.click()
        page.wait_for_url(f"**/{lesson.url}?*classroom=1*", timeout=60_000)
        page.wait_for_function("(t) => document.querySelector('h1') && document.querySelector('h1').innerText.length",
                               arg=lesson.title, timeout=60_000)
        wait_idle(page)
        assert page.locator('[data-testid="stException"]').count() == 0, lesson.url
        assert not page.locator('section[data-testid="stSidebar"]').is_visible()
    assert page.locator(".st-key-lessons_foot a", has_text="Back to the lesson plan").count() == 1


def test_an_uploaded_model_drives_connectivity_and_gate_saturation(server, page, tmp_path):
    """A visitor brings a small LSTM of their own: the text, connectivity shading and the gate-saturation view all run
    on it, in the browser, through the real file boxes."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    from tests.helpers import tiny_checkpoint

    weights, card = tiny_checkpoint(cell="lstm", H=8)
    (tmp_path / "m.safetensors").write_bytes(weights)
    (tmp_path / "m.json").write_bytes(card)
    page.goto(f"{server.url}/sample?prime=bad%20")
    wait_idle(page)
    page.get_by_text("Bring your own model").click()
    # one file at a time, each taken in (its name listed, the rerun over) before the next: a second file chosen
    # while the first one's rerun redraws the boxes can be lost (the whole run once timed out waiting for the model)
    for k, name in enumerate(("m.safetensors", "m.json")):
        page.locator('input[type="file"]').nth(k).set_input_files(str(tmp_path / name))
        page.wait_for_function(f"() => document.body.innerText.includes('{name}')", timeout=60_000)
        wait_idle(page)
    try:
        page.wait_for_function("() => document.body.innerText.includes('Using your model for this session')",
                               timeout=60_000)
    except PlaywrightTimeout:
        pytest.fail("the model was not taken in; the page said: " + page.inner_text("body")[:1500])
    page.wait_for_function("() => document.body.innerText.includes("
                           "'A one-layer LSTM (8 units per layer, 11 characters)')", timeout=60_000)
    wait_idle(page)
    page.wait_for_selector('span[data-i="30"]', timeout=30_000)
    page.locator(".st-key-sample-shade button", has_text="connectivity").click()
    page.wait_for_function("() => window.location.search.includes('shade=connectivity')", timeout=30_000)
    click_character(page, 30, "Connectivity of the prediction of character 31")
    page.locator(".st-key-sample-view button", has_text="Gate saturation").click()
    page.wait_for_function("() => document.body.innerText.includes('layer 1:')", timeout=30_000)
    wait_idle(page)
    page.wait_for_selector('.st-key-sample-sat .main-svg', timeout=30_000)  # the saturation scatter is drawn
    assert "Using your model" in page.inner_text("body")  # still the visitor's model after every rerun
    assert page.locator('[data-testid="stException"]').count() == 0


def test_charts_say_so_when_plotly_js_cannot_be_fetched(server, page):
    """plotly.js unreachable (a proxy that drops app/static/): each chart says it could not be drawn, the rest of
    the page works, and nothing is left waiting."""
    asked = []
    page.route("**/app/static/plotly-*.js", lambda route: asked.append(1) or route.abort())
    page.goto(f"{server.url}/scalar")
    wait_idle(page)
    page.wait_for_function("() => document.querySelectorAll('.rnnviz-chart-problem:not([hidden])').length === 3",
                           timeout=30_000)
    assert "could not be drawn" in page.locator(".rnnviz-chart-problem").first.inner_text()
    tried = len(asked)
    page.wait_for_timeout(1000)
    # not tried again and again: the stepped tanh chart's notice, a change to the page, set its stepper drawing it
    # anew every frame (about 60 asks for plotly.js a second)
    assert len(asked) == tried
    assert page.evaluate(f"() => document.querySelectorAll('{BUSY}').length") == 0
    page.get_by_role("button", name="Flood").click()  # the numbers still follow the controls
    page.wait_for_function("() => document.body.innerText.includes('0.949')", timeout=30_000)
    assert page.locator('[data-testid="stException"]').count() == 0


def test_the_notice_of_a_position_past_the_sample_goes_once_the_position_is_moved(server, page):
    """A link asking for a position past the sample's end says so; moving the Position slider reruns only its part of
    the page, and the notice there goes with it (it stayed up when drawn outside that part)."""
    page.goto(f"{server.url}/sample?n=50&pos=300")
    wait_idle(page)
    notice = page.get_by_text("past this sample's last character")
    notice.wait_for(timeout=30_000)
    thumb = page.locator('.st-key-sample-char input[type="range"]')
    thumb.focus()
    thumb.press("ArrowLeft")
    page.wait_for_url(re.compile(r"pos=5[0-9]"), timeout=30_000)
    wait_idle(page)
    notice.wait_for(state="detached", timeout=30_000)
