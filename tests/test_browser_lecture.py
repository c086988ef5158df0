"""What a lecturer does in a real browser: a fresh server's first deep link, presentation-remote keys, settings that
come back by the lesson links and the browser's Back, and a link to the setup without the address bar."""
import re
import time

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser import Server, chromium, painted, wait_idle, wait_text

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


def test_a_fresh_servers_first_request_deep_links_into_classroom_mode(browser):
    """The first request a new server sees is a deep link: it must run app.py's navigation (classroom mode, no
    sidebar), not Streamlit's legacy folder navigation. A `pages/` folder beside app.py turns the legacy mode on
    for such a first run, which is why the page scripts live in `app_pages/`."""
    fresh = Server()
    try:
        pg = browser.new_page(viewport={"width": 1024, "height": 768})
        pg.goto(f"{fresh.url}/scalar?classroom=1")
        wait_idle(pg)
        pg.wait_for_function("() => document.body.innerText.includes('0.762')", timeout=30_000)
        assert pg.locator('[data-testid="stSidebarNav"]').count() == 0
        assert pg.locator('[data-testid="stSidebar"]').count() == 0 or not pg.locator(
            '[data-testid="stSidebar"]').is_visible()
        # app.py's lesson links ran (they come with the run that painted the numbers, or just after it)
        pg.wait_for_function("() => document.body.innerText.includes('2. The cell, step by step →')", timeout=30_000)
        pg.close()
    finally:
        fresh.close()


def step_shown(pg) -> int:
    return int(re.search(r"Step (\d+)\.", pg.inner_text("body")).group(1))


def test_page_down_and_up_step_even_when_a_slider_holds_the_focus(server, browser):
    pg = browser.new_page(viewport={"width": 1024, "height": 768})
    pg.goto(f"{server.url}/scalar?classroom=1&t=1")
    wait_idle(pg)
    pg.wait_for_function("() => document.body.innerText.includes('Step 1.')", timeout=30_000)
    pg.locator('[data-testid="stSlider"] input[type="range"]').first.focus()
    thumb = pg.locator('[data-testid="stSlider"] [data-focused="true"]').first
    ring = "el => getComputedStyle(el).outlineStyle + ' ' + getComputedStyle(el).outlineWidth"
    try:  # the keys component's style and listener arrive with it, a moment after the page's run: wait for them
        pg.wait_for_function(f"() => document.documentElement.dataset.rnnvizKeys && ({ring})("
                             "document.querySelector('[data-testid=\"stSlider\"] [data-focused=\"true\"]'))"
                             ".startsWith('solid')", timeout=10_000)
    except PlaywrightTimeout:
        pass  # the assertion below says what the ring was
    outline = thumb.evaluate(ring)
    assert outline.startswith("solid") and not outline.endswith(" 0px")  # the focused slider shows it
    pg.keyboard.press("PageDown")
    pg.wait_for_function("() => document.body.innerText.includes('Step 2.')", timeout=30_000)
    wait_idle(pg)
    pg.keyboard.press("PageDown")
    pg.wait_for_function("() => document.body.innerText.includes('Step 3.')", timeout=30_000)
    wait_idle(pg)
    pg.keyboard.press("PageUp")
    pg.wait_for_function("() => document.body.innerText.includes('Step 2.')", timeout=30_000)
    wait_idle(pg)
    assert step_shown(pg) == 2
    pg.close()


def test_settings_come_back_by_the_lesson_links(server, browser):
    pg = browser.new_page(viewport={"width": 1400, "height": 1000})
    pg.goto(f"{server.url}/scalar?wh=1.5")
    wait_idle(pg)
    pg.wait_for_function("() => document.body.innerText.includes('1.50')", timeout=30_000)
    pg.get_by_role("link", name=re.compile("The cell, step by step")).first.click()
    wait_idle(pg)
    pg.wait_for_url(re.compile(r"/vector"), timeout=30_000)
    pg.get_by_role("link", name=re.compile("One unit by hand")).first.click()
    wait_idle(pg)
    pg.wait_for_url(re.compile(r"/scalar\?.*wh=1\.5"), timeout=60_000)  # the lesson link brought w_h back
    pg.close()


def test_a_visible_control_gives_the_link_to_this_setup(server, browser):
    pg = browser.new_page(viewport={"width": 1024, "height": 768})
    pg.goto(f"{server.url}/scalar?classroom=1&wh=2")
    wait_idle(pg)
    button = pg.get_by_role("button", name=re.compile("Link to this setup"))
    assert button.count() == 1 and button.bounding_box()["y"] < 200  # at the top of a projector's first screen
    button.click()
    code = pg.locator('[data-testid="stCode"]').first
    code.wait_for(timeout=30_000)
    link = code.inner_text()
    assert link.startswith(server.url + "/scalar?") and "wh=2" in link and "classroom=1" in link
    pg.mouse.move(0, 700)  # the pointer away from the box: its copy button shows all the same
    copy = pg.locator('[data-testid="stPopoverBody"] [data-testid="stElementToolbarButton"] button').first
    assert copy.evaluate("el => { let e = el, seen = true; while (e) { const s = getComputedStyle(e); "
                         "seen = seen && s.visibility === 'visible' && s.opacity === '1'; e = e.parentElement; } "
                         "return seen; }")
    pg.close()


def test_the_link_and_ask_the_class_carry_a_setting_changed_in_place(server, browser):
    """A slider reruns only the part of the page it moves (a fragment), not app.py's foot where the link to the setup
    and Ask the class are drawn: both must still give the page as it is now, not as the page was first drawn."""
    pg = browser.new_page(viewport={"width": 1024, "height": 768})
    pg.goto(f"{server.url}/scalar?classroom=1&wh=2")
    wait_idle(pg)
    thumb = pg.locator('.st-key-scalar-w_h input[type="range"]')
    thumb.focus()
    thumb.press("ArrowRight")  # 2.00 -> 2.05
    pg.wait_for_url(re.compile(r"wh=2\.05"), timeout=30_000)
    wait_idle(pg)
    pg.get_by_role("button", name=re.compile("Link to this setup")).first.click()
    # the popover's address as the page has it at each moment: its open rerun can draw the code box anew, and a
    # handle to the first one drawn (the address as the page first ran) would wait on it for ever
    try:
        pg.wait_for_function("""() => [...document.querySelectorAll(
            '[data-testid="stPopoverBody"] [data-testid="stCode"]')].some(el => el.innerText.includes('wh=2.05'))""",
                             timeout=30_000)
    except PlaywrightTimeout:  # seen once in a loaded full run (not in three alone): say what the popover held
        held = pg.evaluate("""() => ({url: location.href, codes: [...document.querySelectorAll(
            '[data-testid="stPopoverBody"] [data-testid="stCode"]')].map(el => el.innerText),
            open: [...document.querySelectorAll('[data-testid="stPopoverButton"]')].map(b => b.ariaExpanded),
            script: document.querySelector('[data-testid="stApp"]').dataset.testScriptState})""")
        raise AssertionError(f"the link's popover never showed wh=2.05: {held}") from None
    pg.keyboard.press("Escape")
    # shut, and its closing rerun over, before the slider takes the focus (a popover that closes gives the focus back
    # to its button: pressed at once, the key went there in one fresh-venv run)
    pg.locator('[data-testid="stPopoverBody"]').first.wait_for(state="hidden", timeout=30_000)
    wait_idle(pg)
    thumb.focus()
    thumb.press("ArrowRight")  # 2.05 -> 2.10, and the popover that would rerun the foot stays shut
    pg.wait_for_url(re.compile(r"wh=2\.1"), timeout=30_000)
    wait_idle(pg)
    pg.get_by_role("button", name="Ask the class").click()
    pg.wait_for_url(re.compile(r"/class_room"), timeout=30_000)
    wait_idle(pg)
    wait_text(pg, "wₕ = 2.1")  # failing, it says what the Class page showed instead
    assert "wₕ = 2," not in pg.locator("body").inner_text()  # the question's setup is the one on screen, not 2
    pg.close()


def test_a_link_notice_goes_once_its_setting_is_moved_and_the_slider_keeps_the_focus(server, browser):
    """A link's invalid value is named above the page; the slider moves only its part of the page, so the notice
    stayed up (found by a browser walk). It goes with the first move, and the next key still moves the slider."""
    pg = browser.new_page(viewport={"width": 1024, "height": 768})
    pg.goto(f"{server.url}/scalar?classroom=1&wh=0.33")
    wait_idle(pg)
    notice = pg.locator('[data-testid="stAlert"]').filter(has_text="not valid here")
    notice.first.wait_for(timeout=30_000)
    thumb = pg.locator('.st-key-scalar-w_h input[type="range"]')
    thumb.focus()
    pg.keyboard.press("ArrowRight")  # the default 0.5 -> 0.55
    pg.wait_for_url(re.compile(r"wh=0\.55"), timeout=30_000)
    notice.first.wait_for(state="detached", timeout=30_000)
    wait_idle(pg)
    pg.keyboard.press("ArrowRight")  # not thumb.press: the focus must still be where the visitor left it
    pg.wait_for_url(re.compile(r"wh=0\.6\b"), timeout=30_000)
    wait_idle(pg)
    assert pg.locator('[data-testid="stException"]').count() == 0 and pg.locator("h1").first.is_visible()
    pg.close()


def test_a_phone_in_a_room_has_no_sidebar_to_leave_it_by(server, browser):
    """A phone that joined by the room's link had the sidebar's toggle, and every lesson in it (a browser walk); the
    Class page without a room keeps it, for a lecturer on a laptop."""
    toggle = '[data-testid="stExpandSidebarButton"], [data-testid="stSidebarCollapsedControl"]'
    pg = browser.new_page(viewport={"width": 390, "height": 844})
    pg.goto(f"{server.url}/class_room")
    wait_idle(pg)
    pg.locator(toggle).first.wait_for(timeout=30_000)  # the test can tell: the toggle is there without a room
    pg.goto(f"{server.url}/class_room?room=ZZZZZZ")
    wait_idle(pg)
    pg.wait_for_function("() => document.body.innerText.includes('no room with that code')", timeout=30_000)
    assert pg.locator(toggle).count() == 0 and pg.locator('[data-testid="stSidebarNav"]').count() == 0
    assert pg.locator('[data-testid="stException"]').count() == 0
    pg.close()


@pytest.mark.parametrize("width,query", [(1024, "?classroom=1"), (1400, "")])
def test_a_lesson_link_clicked_after_typing_in_a_box_opens_the_next_lesson_whole(server, browser, width, query):
    """Typing in a box and then clicking a lesson link sends the page switch and then the box's own rerun, for the
    page just left (ui/reruns.py). The next lesson must be whole: its title and introduction on top, its body above
    the foot's lesson links (without ui/reruns.py the title was gone and the body sat below the foot)."""
    pg = browser.new_page(viewport={"width": width, "height": 768})
    pg.goto(f"{server.url}/scalar{query}")
    wait_idle(pg)
    box = pg.locator(".st-key-scalar-x input").first
    box.click()
    box.press("End")
    box.type(", 1")  # not committed: no Enter, and the box still has the focus
    pg.get_by_role("link", name=re.compile("The cell, step by step")).first.click()
    pg.wait_for_url(re.compile(r"/vector"), timeout=30_000)
    wait_idle(pg)
    time.sleep(1)  # the second rerun, if it ran, has finished by now (it came 5-10 ms after the first)
    wait_idle(pg)
    heading = pg.get_by_role("heading", name="The cell, step by step")
    heading.wait_for(timeout=30_000)
    radius = pg.locator(".st-key-vector-radius").bounding_box()
    foot = pg.get_by_role("link", name=re.compile("Gradients through time")).last.bounding_box()
    assert pg.get_by_text("Now the state is a vector of H numbers").count() == 1  # the introduction
    assert heading.bounding_box()["y"] < radius["y"] < foot["y"]  # title, then the body, then the foot
    pg.close()


def test_a_lesson_link_clicked_with_the_link_to_this_setup_open_opens_the_next_lesson(server, browser):
    """Opening or closing the popover reruns its part of the page (so that its address is fresh); one click on a
    lesson link that also closes it must land on the next lesson, whole, and stay there. The closing rerun reaches
    the server just after the page switch: run, it killed the next page ("Bad delta path index") with the popover in
    a fragment, and took the visitor back to the page left with the popover rerunning the whole page."""
    pg = browser.new_page(viewport={"width": 1024, "height": 768})
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto(f"{server.url}/scalar?classroom=1")
    wait_idle(pg)
    pg.get_by_role("button", name=re.compile("Link to this setup")).first.click()
    pg.locator('[data-testid="stPopoverBody"] [data-testid="stCode"]').first.wait_for(timeout=30_000)
    pg.get_by_role("link", name=re.compile("The cell, step by step")).first.click()  # one click
    pg.wait_for_url(re.compile(r"/vector"), timeout=30_000)
    wait_idle(pg)
    time.sleep(1)  # the popover's closing rerun, sent just after the page switch, has come and gone
    wait_idle(pg)
    assert re.search(r"/vector", pg.url)  # still on the next lesson: the closing rerun did not take it back
    pg.get_by_role("heading", name="The cell, step by step").wait_for(timeout=30_000)
    assert not errors
    pg.close()


# Each lesson page's primary control and the chart it moves (by their Streamlit keys; dots become hyphens).
PRIMARY = [("scalar", "scalar.w_h", "scalar.tanh"), ("scalar?predict=1", "scalar.guess", "scalar.tanh"),
           ("vector", "vector.radius", "vector.moves"),
           ("hello", "hello.temp", "hello.softmax"),
           ("gradients", "grad.scale", "grad.decay"), ("gates", "gates.bf", "gates.heat"),
           ("gates?view=lockstep", "gates.mem_zeros", "gates.memory"),  # the presets and the chart they move
           ("states?view=params", "states.cell", "states.params"),
           ("sample", "sample.temp", "sample.text")]


@pytest.mark.parametrize("path,control,chart", PRIMARY)
def test_on_a_projector_the_control_and_its_chart_share_the_first_screen(server, browser, path, control, chart):
    pg = browser.new_page(viewport={"width": 1024, "height": 768})
    pg.goto(f"{server.url}/{path}{'&' if '?' in path else '?'}classroom=1")
    wait_idle(pg)
    # measured once every chart is drawn: a chart still loading holds less room, and what follows it sits too high
    pg.wait_for_function("() => [...document.querySelectorAll('.rnnviz-chart')].every(c => c.querySelector("
                         "'svg.main-svg'))", timeout=60_000)
    # Both boxes are read in one script, at a moment when both hold room: a fragment that reruns meanwhile redraws
    # its element (for a frame it has no height), so two separate reads could catch one of them mid-redraw.
    both = ("ks => { const r = ks.map(k => document.querySelector(`.st-key-${k}`)?.getBoundingClientRect()); "
            "return r.every(b => b && b.height > 0) && r.map(b => ({x: b.x, y: b.y, width: b.width, "
            "height: b.height})); }")
    # and once the layout has settled: the same boxes, the app idle, twice in a row 300 ms apart (on a loaded machine
    # a rerun can still be redrawing what sits above them)
    keys, last, deadline = [k.replace(".", "-") for k in (control, chart)], None, time.monotonic() + 30
    while time.monotonic() < deadline:
        now = pg.wait_for_function(both, arg=keys, timeout=30_000).json_value()
        idle = pg.evaluate("() => document.querySelector('[data-testid=stApp]')?.dataset.testScriptState")
        if now == last and idle == "notRunning":
            break
        last = None if idle != "notRunning" else now
        pg.wait_for_timeout(300)
    c, g = now
    for name, b in ((control, c), (chart, g)):
        assert b and b["height"] > 0, f"{name} is not drawn"
        assert b["y"] >= 0 and b["y"] + min(b["height"], 200) <= 768, f"{name} starts at y = {b['y']:.0f}, past 768"
        assert b["x"] >= 0 and b["x"] + b["width"] <= 1024, f"{name} runs off the side"
    pg.close()


# Where the three cells' stepper puts the chart it steps: the stepper's row scrolled to the top of the screen, the
# row's box and every panel's plot area (all rows of all three cells), read in one script.
UNDER_STEPPER = """() => {
  const row = document.querySelector('.st-key-gates-next').closest('[data-testid=stHorizontalBlock]');
  row.scrollIntoView({block: 'start'});
  const b = e => { const r = e.getBoundingClientRect(); return [r.top, r.bottom]; };
  return {stepper: b(row), areas: [...document.querySelectorAll('.st-key-gates-lockstep .nsewdrag')].map(b)}; }"""



def test_on_a_projector_the_three_cells_share_a_screen_with_their_stepper(server, browser):
    """Gates, three cells side by side, 1024 x 768: the first screen holds the presets and the chart they move, so the
    stepper sits below it, directly above the cells it steps; scrolled to the stepper, every row of all three cells
    is on the screen, at the defaults and after a preset, and Back / Next / ← → change what the class sees (the
    LSTM's hₜ rows were below the screen, under a 90 px empty band)."""
    pg = browser.new_page(viewport={"width": 1024, "height": 768})
    pg.goto(f"{server.url}/gates?view=lockstep&word=hello&trained=0&classroom=1")  # untrained: H = 8/3/4 (the
    # trained cells' 67/32/37 rows are taller than a 768 px screen)
    for preset in (None, "zeros"):
        if preset:
            pg.click(f".st-key-gates-mem_{preset} button")
            pg.wait_for_function("() => document.body.innerText.includes('Step 65 of 65')", timeout=30_000)
        wait_idle(pg)
        pg.wait_for_function("() => [...document.querySelectorAll('.rnnviz-chart')].every(c => c.querySelector("
                             "'svg.main-svg'))", timeout=60_000)
        # the cells' chart, below the first screen, draws a preset's figure once the page is idle or it is seen
        # (ui/chart.js); scrolling there and reading at once measured the figure before: drawn first, then read
        painted(pg)
        found = pg.wait_for_function(f"() => {{ const f = ({UNDER_STEPPER})(); return f.areas.length === 3 && f; }}",
                                     timeout=30_000).json_value()
        assert found["stepper"][0] >= -1, "the page could not scroll the stepper to the top"
        assert max(bottom for _, bottom in found["areas"]) <= 768, (preset, found)
    pg.close()


# Pages whose control and the whole chart it moves share a projector's first screen: the page, what must end above
# 768 px (Streamlit keys, dots as hyphens, with a selector inside), and a text the page shows once it is laid out.
# Gates, one cell: the forget-gate bias moves every row of the heatmap, the cell state's most of all; stacked in one
# column the rows ran to 1,157 px (LSTM) and 957 px (GRU); the gates' panel and the states' panel side by side hold
# them. Gradients, clipping: the threshold moves the 'after' panel; under three lines of text and a verdict box the
# panels ended at 803 px; the chart now comes first. Hello, trained: the Temperature slider and its softmax chart; under
# the training sentence's four lines and the scores box its letters sat at 838 px; the sample, which follows a drag of
# Temperature and of Characters to sample, ended at 824 px (now under the two sliders, Start from after it). Gates,
# three cells side by side: the forget bias and the radius move the survival chart; under the sentences about the cells'
# sizes its step axis sat at 923 px; the chart now comes first. Gates, one cell: the hidden size H, which the heatmaps
# follow while it is dragged, was folded under More settings (6% of the heatmaps on screen with it); it comes after the
# radius. One unit: the sliders move the tanh chart; its z axis title ended at 779 px (the plot area now grows less with
# the type).
WHOLE = [("scalar?t=3", ["scalar-w_h", "scalar-tanh .xtitle"], "Step 3."),
         ("scalar?wh=2&t=3", ["scalar-w_h", "scalar-tanh .xtitle"], "Step 3."),
         ("gates?view=lockstep", ["gates-bf", "gates-radius", "gates-memory .nsewdrag", "gates-memory .xtick text"],
          "Trained cells"),  # the view opens on the trained cells (test_page_gates.py)
         ("gates?cell=lstm", ["gates-bf", "gates-H", "gates-heat .nsewdrag", "gates-heat .xtick text"], "Step 1 of"),
         ("gates?cell=gru", ["gates-bf", "gates-H", "gates-heat .nsewdrag", "gates-heat .xtick text"], "Step 1 of"),
         ("gradients?view=clip&w=1.5&by=rho&xs=0&clip=10", ["grad-clip", "grad-clip_fig .nsewdrag"], "Clipped"),
         ("hello?trained=1&temp=5", ["hello-temp", "hello-n", "words-hello-sample", "hello-softmax .xtick text"],
          "Trained")]
BOXES = """([sels, text]) => { const found = sels.map(s => [...document.querySelectorAll(`.st-key-${s}`)]
  .map(e => { const r = e.getBoundingClientRect(); return [r.top, r.bottom]; }));
  return document.body.innerText.includes(text) && found.every(b => b.length && b.every(([t, u]) => u > t))
    && found.flat(); }"""  # each part drawn: a control folded in a closed box has no height, and would pass


@pytest.mark.parametrize("path,parts,text", WHOLE, ids=[w[0].split("&")[0] for w in WHOLE])
def test_on_a_projector_a_control_and_the_whole_chart_it_moves_share_the_first_screen(server, browser, path, parts,
                                                                                     text):
    pg = browser.new_page(viewport={"width": 1024, "height": 768})
    pg.goto(f"{server.url}/{path}&classroom=1")
    wait_idle(pg)
    boxes = pg.wait_for_function(BOXES, arg=[parts, text], timeout=60_000).json_value()
    assert max(bottom for _, bottom in boxes) <= 768, boxes
    pg.close()


# Controls further down a page and the whole chart they move, on one screen once the lecturer scrolls to them: the
# page, the element scrolled to the top (its row of columns), what must then lie within the screen. Gradients, trained
# live: stacked on a projector, the three sliders sat above the 600 px loss chart (a lecturer's walk: no scroll showed
# a slider with the loss curve, 935-1027 px apart); the controls are now beside it.
# Sampling, gate saturation: with the Look inside control at the top of the screen, the key to the dots' colours sat
# under the x axes at 806-844 px; it is now under the chart's title.
SCROLLED = [("gradients", "grad-train", "grad-train", ["grad-rho", "grad-lr", "grad-tclip", "grad-train .nsewdrag",
                                                       "grad-train .x2tick text"]),
            ("sample?view=gates", "sample-view", "sample-sat", ["sample-view", "sample-sat .legendtext",
                                                                "sample-sat .gtitle"])]
ROW_TOP = """(s) => { const el = document.querySelector(`.st-key-${s}`);
  (el.closest('[data-testid=stHorizontalBlock]') || el).scrollIntoView({block: 'start'}); }"""


@pytest.mark.parametrize("path,anchor,chart,parts", SCROLLED, ids=[s[0].split("?")[0] for s in SCROLLED])
def test_on_a_projector_a_control_lower_down_and_its_whole_chart_share_a_screen(server, browser, path, anchor, chart,
                                                                                parts):
    pg = browser.new_page(viewport={"width": 1024, "height": 768})
    pg.goto(f"{server.url}/{path}{'&' if '?' in path else '?'}classroom=1")
    wait_idle(pg)
    pg.wait_for_function("(s) => document.querySelector(`.st-key-${s} .rnnviz-chart svg.main-svg`)", arg=chart,
                         timeout=60_000)
    pg.evaluate(ROW_TOP, anchor)
    spans = pg.wait_for_function(BOXES, arg=[parts, ""], timeout=10_000).json_value()  # every part found
    assert all(-1 <= top and bottom <= 768 for top, bottom in spans), spans  # scrolled to: a fraction above 0
    pg.close()


STILL = """([key, chart]) => new Promise(done => {
  const box = s => {
    const r = document.querySelector(`.st-key-${s}`).getBoundingClientRect();
    return [r.top, r.bottom];
  };
  let last = null, same = 0;
  const look = () => {
    document.querySelector(`.st-key-${key}`).scrollIntoView({block: 'end'});
    const now = JSON.stringify([box(key), box(chart)]);
    same = now === last ? same + 1 : 0;
    last = now;
    if (same >= 5) done(JSON.parse(now)); else requestAnimationFrame(look);
  };
  look();
})"""


@pytest.mark.parametrize("view,chart", [("decay", "grad-decay"), ("factors", "grad-factors"),
                                        ("clip", "grad-clip_fig")])
def test_on_a_projector_the_gradient_chart_stays_in_view_down_its_more_settings(server, browser, view, chart):
    """Gradients on a projector: under More settings, the hidden size, the sequence length and the GRU bias sat
    828-1,012 px from the top of the chart they move (a lecturer's walk); the chart's column now stays on screen
    (position: sticky) while the lecturer scrolls down the settings beside it. In the factors view its notes made
    the column taller than the settings', and it scrolled away (27% of the chart in view at the GRU bias): they now
    come under the row."""
    pg = browser.new_page(viewport={"width": 1024, "height": 768})
    pg.goto(f"{server.url}/gradients?classroom=1&view={view}")
    wait_idle(pg)
    pg.wait_for_function(f"() => document.querySelector('.st-key-{chart} .rnnviz-chart svg.main-svg')",
                         timeout=60_000)
    pg.locator("details summary").filter(has_text="More settings").first.click()
    pg.locator(".st-key-grad-T").wait_for(state="visible", timeout=10_000)
    for key in ("grad-H", "grad-T", "grad-bz"):
        # scrolled to, and measured once the page holds still (the box opening, the sticky column settling)
        boxes = pg.wait_for_function(STILL, arg=[key, chart], timeout=10_000).json_value()
        assert all(0 <= top and bottom <= 768 for top, bottom in boxes), (key, boxes)
    pg.close()


def test_on_a_projector_the_cells_radius_stays_in_view_down_to_the_charts_it_moves(server, browser):
    """The cell page on a projector: a drag of the spectral radius moves the singular values and the heatmap of W_h,
    which sat 1,424 px below the slider (nobody saw them move). The settings' column now stays on screen (position:
    sticky) as the lecturer scrolls down to those charts."""
    pg = browser.new_page(viewport={"width": 1024, "height": 768})
    pg.goto(f"{server.url}/vector?classroom=1")
    wait_idle(pg)
    pg.wait_for_function("() => document.querySelector('.st-key-vector-sv .rnnviz-chart svg.main-svg')",
                         timeout=60_000)
    chart, slider = pg.wait_for_function(STILL, arg=["vector-sv", "vector-radius"], timeout=10_000).json_value()
    assert all(0 <= top and bottom <= 768 for top, bottom in (chart, slider)), (chart, slider)
    pg.close()


def test_on_a_projector_the_memory_charts_lines_are_named_on_the_first_screen(server, browser):
    """Gates, three cells side by side, 1024 x 768: the first screen holds the presets and the survival chart they
    move; its legend sat under the step axis, below the screen, so the three lines were unnamed there."""
    pg = browser.new_page(viewport={"width": 1024, "height": 768})
    pg.goto(f"{server.url}/gates?view=lockstep&classroom=1")
    wait_idle(pg)
    names = pg.wait_for_function(
        "() => { const t = [...document.querySelectorAll('.st-key-gates-memory .legendtext')]; return t.length === 3 "
        "&& t.map(e => [e.textContent, e.getBoundingClientRect().bottom]); }", timeout=60_000).json_value()
    assert all(bottom <= 768 for _, bottom in names), names
    pg.close()


def test_a_step_key_pressed_above_the_stepper_brings_the_cells_into_view(server, browser):
    """Gates, three cells side by side, on a projector: the first screen holds the presets and the chart they move, the
    stepper and its cells are below it. A lecturer pressing → there stepped cells nobody could see; now the key also
    brings the stepper to the top, with every row of the cells under it. A key pressed with the stepper in view does
    not scroll (the cell page: stepper on the first screen)."""
    pg = browser.new_page(viewport={"width": 1024, "height": 768})
    pg.goto(f"{server.url}/gates?view=lockstep&word=hello&trained=0&classroom=1")  # untrained, as above
    wait_idle(pg)
    pg.wait_for_function("() => ['memory', 'lockstep'].every(k => document.querySelector("
                         "`.st-key-gates-${k} .rnnviz-chart svg.main-svg`))", timeout=60_000)  # the page laid out
    where = ("() => document.querySelector('.st-key-gates-next').closest('[data-testid=stHorizontalBlock]')"
             ".getBoundingClientRect().bottom")
    assert pg.evaluate(where) > 768  # at the foot of the first screen, the cells under it
    pg.locator("h1").first.click()  # the page holds the focus, as after a click on it
    step = "() => document.querySelector('.st-key-gates-t input[type=range]')?.value"
    t = pg.wait_for_function(step, timeout=30_000).json_value()
    wait_idle(pg)
    pg.keyboard.press("ArrowLeft" if pg.locator(".st-key-gates-next button").first.is_disabled() else "ArrowRight")
    wait_idle(pg)
    pg.wait_for_function(f"() => ({step})() !== '{t}'", timeout=30_000)
    found = pg.wait_for_function(f"() => {{ const f = ({UNDER_STEPPER.replace('row.scrollIntoView', 'void')})(); "
                                 "return f.areas.length === 3 && f; }", timeout=30_000).json_value()
    assert 0 <= found["stepper"][0] < 100, found  # the stepper at the top of the screen...
    assert max(bottom for _, bottom in found["areas"]) <= 768, found  # ... and the cells it stepped under it
    pg.goto(f"{server.url}/vector?classroom=1")
    wait_idle(pg)
    pg.locator("h1").first.click()
    top = pg.evaluate("() => document.querySelector('[data-testid=stMain]').scrollTop")
    pg.keyboard.press("ArrowRight")
    wait_idle(pg)
    pg.wait_for_function("() => document.body.innerText.includes('Step 2 of')", timeout=30_000)
    assert pg.evaluate("() => document.querySelector('[data-testid=stMain]').scrollTop") == top
    pg.close()


def test_predicting_on_a_projector_the_answer_lands_on_a_chart_the_class_sees_whole(server, browser):
    """One unit, predict mode, 1024 x 768: after Check the verdict, the step's sentence and the score pushed the tanh
    chart where the answer lands to 507-1,003 px (a lecturer's walk). The chart now follows the verdict, the words
    come under it, and the whole chart is on the first screen."""
    pg = browser.new_page(viewport={"width": 1024, "height": 768})
    pg.goto(f"{server.url}/scalar?predict=1&classroom=1")
    wait_idle(pg)
    pg.locator(".st-key-scalar-check button").click()
    pg.wait_for_function("() => document.querySelector('[data-testid=stAlert]')?.innerText.includes('0.762')",
                         timeout=30_000)
    wait_idle(pg)
    top, bottom, scrolled = pg.wait_for_function(
        "() => { const c = document.querySelector('.st-key-scalar-tanh'), t = c?.querySelector('.xtitle'); "
        "return t && [c.getBoundingClientRect().top, t.getBoundingClientRect().bottom, "
        "document.querySelector('[data-testid=stMain]').scrollTop]; }", timeout=30_000).json_value()
    assert scrolled == 0 and 0 <= top and bottom <= 768  # the first screen, not scrolled to
    assert "Score: 0 points from 1 guess" in pg.locator('[data-testid="stMain"]').inner_text()  # still said
    pg.close()
