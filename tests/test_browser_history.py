"""In a real browser: the browser's Back leaves a page once, whatever was moved on it, and finds the page it returns
to as it was left, with its own settings in the address and no other page's; a remote's keys after a mouse drag step
the page, and where there is nothing to step they scroll and then open the next lesson."""
import re
from urllib.parse import parse_qs, urlparse

import pytest

from tests.browser import Server, chromium, wait_idle, wait_text

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def server():
    s = Server()
    yield s
    s.close()


def query(pg) -> dict:
    return {k: v[0] for k, v in parse_qs(urlparse(pg.url).query).items()}


def lesson_link(pg, classroom: bool, title: str):
    """A lesson by the links a visitor has: the row at the top on a projector, the sidebar on a laptop."""
    if classroom:
        return pg.locator(".st-key-lessons_top a", has_text=title).first
    return pg.locator('[data-testid="stSidebarNav"] a', has_text=title).first


def notch(pg, slider: str, key: str, times: int, then: str) -> None:
    thumb = pg.locator(f"{slider} input[type=range]")
    thumb.focus()
    for _ in range(times):
        thumb.press(key)
    try:
        pg.wait_for_url(re.compile(then), timeout=30_000)
    except Exception as e:  # what the page held when the address never came (seen 2 in 5 full runs on 2026-12-07)
        state = pg.evaluate("() => document.querySelector('[data-testid=stApp]')?.dataset.testScriptState")
        raise AssertionError(f"{then!r} not in the address within 30 s: address {pg.url}, slider at "
                             f"{thumb.evaluate('e => e.value')}, app {state}") from e
    wait_idle(pg)


@pytest.mark.parametrize("classroom", [True, False])
def test_back_leaves_a_page_once_and_finds_the_last_page_as_it_was_left(server, browser, classroom):
    pg = browser.new_page(viewport={"width": 1400, "height": 1000})
    q = {"classroom": "1"} if classroom else {}
    pg.goto(f"{server.url}/scalar" + ("?classroom=1" if classroom else ""))
    wait_idle(pg)
    pg.wait_for_function("() => document.documentElement.dataset.rnnvizKeys", timeout=30_000)  # the foot's scripts
    entries = pg.evaluate("history.length")
    notch(pg, ".st-key-scalar-w_h", "ArrowRight", 3, r"wh=0\.65")
    assert pg.evaluate("history.length") == entries  # three notches: no entry of their own
    lesson_link(pg, classroom, "The cell, step by step").click()
    pg.wait_for_url(re.compile(r"/vector"), timeout=30_000)
    wait_idle(pg)
    notch(pg, ".st-key-vector-radius", "ArrowRight", 1, r"rho=0\.95")
    pg.locator(".st-key-vector-next button").first.click()
    pg.wait_for_url(re.compile(r"t=2"), timeout=30_000)
    wait_idle(pg)
    lesson_link(pg, classroom, "One unit by hand").click()
    pg.wait_for_url(re.compile(r"/scalar\?.*wh=0\.65"), timeout=30_000)  # the lesson link brought w_h back
    wait_idle(pg)
    assert pg.evaluate("history.length") == entries + 2  # one entry per page visited

    pg.go_back()  # the cell page, as it was left: its settings, and no one-unit setting, in its address
    pg.wait_for_url(re.compile(r"/vector"), timeout=30_000)
    wait_idle(pg)
    pg.wait_for_function("() => document.querySelector('.st-key-vector-radius input[type=range]')?.value === '0.95'",
                         timeout=30_000)
    # the address is written at the end of the page's run, a moment after the slider shows its value, and the step
    # by the stepper's own part after that: on a busy machine (CI, two workers) it was read in between, twice
    pg.wait_for_url(re.compile(r"(?=.*rho=0\.95)(?=.*t=2)"), timeout=30_000)
    assert query(pg) == {**q, "rho": "0.95", "t": "2"}
    wait_text(pg, "Step 2 of 5")  # the address comes before the stepper is drawn: a clean-clone CI run read between
    pg.go_back()  # the one-unit page, w_h as it was
    pg.wait_for_url(re.compile(r"/scalar"), timeout=30_000)
    wait_idle(pg)
    pg.wait_for_function("() => document.querySelector('.st-key-scalar-w_h input[type=range]')?.value === '0.65'",
                         timeout=30_000)
    pg.wait_for_url(re.compile(r"wh=0\.65"), timeout=30_000)
    assert query(pg) == {**q, "wh": "0.65"}
    pg.close()


def step_shown(pg) -> int:
    return int(re.search(r"Step (\d+)\.", pg.inner_text("body")).group(1))


def test_after_a_mouse_drag_the_remotes_keys_step_the_page_not_the_slider(server, browser):
    pg = browser.new_page(viewport={"width": 1024, "height": 768})
    pg.goto(f"{server.url}/scalar?classroom=1&t=2")
    wait_idle(pg)
    pg.wait_for_function("() => document.documentElement.dataset.rnnvizKeys", timeout=30_000)
    thumb = pg.locator(".st-key-scalar-w_h input[type=range]")
    track = thumb.evaluate("el => el.getBoundingClientRect().toJSON()")  # the range input spans the track
    y = track["y"] + track["height"] / 2
    x0 = track["x"] + track["width"] * (0.5 + 10) / 20  # the thumb: w_h = 0.5 on -10..10
    pg.mouse.move(x0, y)
    pg.mouse.down()
    pg.mouse.move(x0 + 30, y, steps=5)
    pg.mouse.up()
    pg.wait_for_url(re.compile(r"wh="), timeout=30_000)
    wait_idle(pg)
    wh = query(pg)["wh"]
    assert wh != "0.5" and step_shown(pg) == 2
    pg.keyboard.press("ArrowRight")  # a remote's →: the next step
    pg.wait_for_function("() => document.body.innerText.includes('Step 3.')", timeout=30_000)
    wait_idle(pg)
    pg.keyboard.press("Home")  # its Home: back to step 1 (Reset), not w_h = -10
    pg.wait_for_function("() => document.body.innerText.includes('Step 1.')", timeout=30_000)
    wait_idle(pg)
    assert query(pg)["wh"] == wh and float(thumb.input_value()) == float(wh)
    pg.close()


def test_with_nothing_to_step_page_down_scrolls_then_opens_the_next_lesson(server, browser):
    pg = browser.new_page(viewport={"width": 1024, "height": 768})
    pg.goto(f"{server.url}/gradients?classroom=1")
    wait_idle(pg)
    pg.wait_for_function("() => document.documentElement.dataset.rnnvizKeys", timeout=30_000)
    top = "document.querySelector('[data-testid=\"stMain\"]').scrollTop"
    pg.keyboard.press("PageDown")
    pg.wait_for_function(f"() => {top} > 300", timeout=10_000)  # a screen down
    pg.keyboard.press("ArrowRight")  # → too, where no step button takes it
    pg.wait_for_function(f"() => {top} > 900", timeout=10_000)
    for _ in range(12):  # to the foot, and on to the gates page
        pg.keyboard.press("PageDown")
        if "/gates" in pg.url:
            break
        pg.wait_for_timeout(300)  # the smooth scroll
    pg.wait_for_url(re.compile(r"/gates\?classroom=1"), timeout=30_000)
    wait_idle(pg)
    pg.keyboard.press("p")  # P: the previous lesson at once, N the next
    pg.wait_for_url(re.compile(r"/gradients"), timeout=30_000)
    wait_idle(pg)
    pg.keyboard.press("n")
    pg.wait_for_url(re.compile(r"/gates"), timeout=30_000)
    pg.close()
