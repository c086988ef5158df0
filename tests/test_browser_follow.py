"""In a real browser, the other pages' scrubbed sliders (tests/test_browser_scrub.py has the one-unit page's and the
machinery): the cell page's radius, the hello page's Temperature (a select slider) and the gradients page's clipping
threshold each move their charts and words with the server's numbers while dragged. A file of its own, so that the
two test processes share the browser tests (pytest.ini: --dist loadfile)."""
import numpy as np
import pytest

from rnnviz.live.words import pieces
from tests.browser import painted, wait_idle
from tests.test_browser_scrub import (
    COUNT_BY,
    FRAMES,
    PIECES,
    SAME_AS_SENT,
    app_page,
    key_and_rerun,
    recorder,
    scrubs,
)

pytestmark = pytest.mark.slow


def recorded_drag(page, slider: str, record: str) -> list[dict]:
    """Once the frames of `slider` (its widget key) are at hand: the pointer rests on its thumb 300 ms, presses and
    drags a third of the track to the right in 20 moves, while `record` (a recorder() script) records each frame the
    chart paints; those frames, the mouse still down."""
    css = ".st-key-" + slider.replace(".", "-")
    page.locator(css).hover()
    page.wait_for_function(f"(m) => ({FRAMES})(m).includes('{slider}')", arg=scrubs(page), timeout=60_000)
    thumb = page.locator(f"{css} input[type=range]").locator("xpath=../..").bounding_box()
    box = page.locator(f"{css} input[type=range]").locator("xpath=../../..").bounding_box()
    x0, y = thumb["x"] + thumb["width"] / 2, thumb["y"] + thumb["height"] / 2
    page.mouse.move(x0, y)
    page.wait_for_timeout(300)
    page.evaluate(record)
    page.mouse.down()
    for k in range(1, 21):
        page.mouse.move(x0 + box["width"] / 3 * k / 20, y)
        page.wait_for_timeout(50)
    return page.evaluate("() => { window.__sweep.on = false; return window.__sweep.frames; }")


# every frame the cell page's six moves paint during a drag: the radius it shows, the x-axis of its first panel and
# move ⑥'s sentence at that moment
VECTOR_SWEEP = recorder("vector-moves", "x: Array.from(gd._fullData[1].x), said: pieces('.st-key-words-vector-pass')")


def test_the_cell_page_s_moves_and_words_follow_the_radius_and_charts_out_of_view_wait():
    """The cell page at its last step, 1400 x 900: dragging the spectral radius, the six moves beside it (in view)
    paint the server's figure and move ⑥'s sentence at each value the thumb passes; the singular values, below the
    fold, are left as drawn until the release (drawing every chart each frame took about 120 ms a frame)."""
    from rnnviz.lessons import vector as lesson
    from ui.lessons import vector as words

    vocab, chars = list("helo"), list("hello")
    x = lesson.encode_word("hello", vocab)

    def at(v: float):
        w = lesson.generate(4, 3, 4, 0, v)
        setup = lesson.VectorSetup(x, w["W_x"], w["W_h"], w["b"], w["W_y"], w["b_y"], np.zeros(3), chars)
        m = lesson.moves(setup, lesson.run(setup), 5)
        return list(m.read_memory), pieces(words.pass_on_text(5, 5, m.probs, vocab))

    with app_page("/vector?t=5") as page:
        page.wait_for_function("() => document.querySelector('.st-key-vector-moves .rnnviz-chart')?._fullLayout",
                               timeout=60_000)
        assert page.evaluate("() => document.querySelector('.st-key-vector-sv .rnnviz-chart')"
                             ".getBoundingClientRect().top") > 1000  # below the fold
        painted = recorded_drag(page, "vector.radius", VECTOR_SWEEP)
        left = page.evaluate("() => document.querySelector('.st-key-vector-sv .rnnviz-chart').__rnnvizScrub ?? null")
        page.mouse.up()
        assert len({f["value"] for f in painted}) >= 5
        for f in painted:
            memory, said = at(f["value"])
            assert f["x"] == pytest.approx(memory, abs=1e-9) and f["said"] == said, f["value"]
        assert left is None  # out of view: no frame drawn on it


def hello_at(temp: float) -> dict:
    """What the hello page shows at a temperature as it opens otherwise (the untrained model, seed 0, 30 characters
    from 'h', the notes' scores): the bars, the sentence under them and the sample, as its rerun writes them."""
    from rnnviz.lessons import hello
    from rnnviz.lessons.presets import SOFTMAX_SCORES
    from rnnviz.nn.sampling import sampling_distribution, softmax
    from ui.lessons.hello import temperature_sentence

    sc = np.array(SOFTMAX_SCORES)
    w = hello.train("hello", 3, 0, seed=0).weights
    return {"bars": sampling_distribution(sc, temp).tolist(), "title": f"softmax(scores / {temp:g})",
            "said": pieces(temperature_sentence(softmax(sc), sampling_distribution(sc, temp), temp)),
            "sample": ["h" + hello.sample(w, "h", 30, temp, seed=0)]}


HELLO = """() => { const pieces = """ + PIECES + """;
  const gd = document.querySelector('.st-key-hello-softmax .rnnviz-chart');
  const input = document.querySelector('.st-key-hello-temp input[type=range]');
  return {index: Number(input.value), shown: gd.__rnnvizScrub?.value ?? null, bars: Array.from(gd._fullData[1].y),
          grey: gd._fullData[0].visible, title: gd._fullLayout.title.text, url: location.search,
          painted: gd.querySelectorAll('g.barlayer g.point path').length,
          said: pieces('.st-key-words-hello-temp'), sample: pieces('.st-key-words-hello-sample')}; }"""


@pytest.mark.parametrize("width,classroom", [(1400, False), (1024, True)])
def test_the_softmax_chart_its_sentence_and_the_sample_follow_the_temperature_while_dragged(width, classroom):
    """The hello page's Temperature, a select slider whose thumb holds the notch's position (0-9), not the
    temperature: dragged, the softmax bars, the sentence under them and the sampled text show the server's at the
    temperature under the thumb, before Streamlit has heard of it (the link still lacks it); released, the rerun
    shows the same; an arrow key then draws the next notch's figure at once, the one the rerun sends."""
    from ui.lessons.hello import TEMPERATURES

    with app_page("/hello" + ("?classroom=1" if classroom else ""), width, 768 if classroom else 900) as page:
        slider = page.locator(".st-key-hello-temp")
        slider.scroll_into_view_if_needed()
        page.wait_for_function("() => window.Plotly && document.querySelector('.st-key-hello-softmax .rnnviz-chart')"
                               "?._fullLayout", timeout=60_000)
        slider.hover()  # frames for Temperature
        page.wait_for_function(f"(m) => ({FRAMES})(m).includes('hello.temp')", arg=scrubs(page), timeout=60_000)
        wait_idle(page)
        painted(page)
        before = page.evaluate(HELLO)
        assert before["index"] == TEMPERATURES.index(1.0) and before["painted"] == 4  # one bar a letter at 1
        assert {k: before[k] for k in ("bars", "title", "said", "sample")} == hello_at(1.0)
        thumb = slider.locator("input[type=range]").locator("xpath=../..").bounding_box()
        track = slider.locator("input[type=range]").locator("xpath=../../..").bounding_box()
        x, y = thumb["x"] + thumb["width"] / 2, thumb["y"] + thumb["height"] / 2
        notch = track["width"] / (len(TEMPERATURES) - 1)
        page.mouse.move(x, y)
        page.wait_for_timeout(300)  # the pointer rests on the thumb, as a hand does before it presses
        page.mouse.down()
        seen = []
        for k in range(1, 8):  # to the left, half a notch at a time: 0.7, 0.5, 0.3, 0.2
            page.mouse.move(x - notch * k / 2, y)
            page.wait_for_timeout(100)
            seen.append(page.evaluate(HELLO))
        page.wait_for_function("() => { const i = Number(document.querySelector('.st-key-hello-temp input[type=range]')"
                               ".value); return document.querySelector('.st-key-hello-softmax .rnnviz-chart')"
                               ".__rnnvizScrub?.value === i; }", timeout=30_000)  # the thumb held still: its frame
        seen.append(page.evaluate(HELLO))
        mid = seen[-1]
        assert mid["index"] <= 2 and "temp=" not in mid["url"]  # moved, and Streamlit has heard nothing yet
        shown = [s for s in seen if s["shown"] is not None]
        assert len({s["shown"] for s in shown}) >= 3  # the chart followed through the notches
        for s in shown:  # each painted frame: the server's bars, sentence and sample at the temperature it shows
            got = {k: s[k] for k in ("bars", "title", "said", "sample")}
            assert got == hello_at(TEMPERATURES[int(s["shown"])]), s["shown"]
            assert s["grey"] is True and s["painted"] == 8  # beside the bars at temperature 1
        page.mouse.up()
        page.wait_for_function("() => location.search.includes('temp=')", timeout=30_000)  # the release's rerun
        wait_idle(page)
        painted(page)
        after = page.evaluate(HELLO)
        released = TEMPERATURES[mid["index"]]
        assert after["index"] == mid["index"] and f"temp={released:g}" in after["url"]
        assert {k: after[k] for k in ("bars", "title", "said", "sample")} == hello_at(released) == {
            k: mid[k] for k in ("bars", "title", "said", "sample")}  # what the drag showed, exactly
        page.evaluate(COUNT_BY)
        key_and_rerun(page, slider.locator("input[type=range]"), "ArrowRight", ".st-key-hello-softmax")
        assert page.evaluate(COUNT_BY).get("hello-softmax") == 1  # drawn from its frame as the key went
        assert page.evaluate(SAME_AS_SENT, ".st-key-hello-softmax")["differ"] == []  # and it is the rerun's figure
        now = page.evaluate(HELLO)
        assert {k: now[k] for k in ("bars", "title", "said", "sample")} == hello_at(TEMPERATURES[mid["index"] + 1])


def test_the_clipping_chart_and_its_sentence_follow_the_threshold():
    """The gradients page's clipping view with an exploding gradient (Explode's settings): dragging the threshold,
    the after-clipping panel and the sentence beside it show the server's norm at each value the thumb passes (the
    sentence's italic *vanilla h* is an element of its own: its words line up, not greyed)."""
    with app_page("/gradients?view=clip&by=rho&w=1.5&xs=0") as page:
        chart, words = ".st-key-grad-clip_fig .rnnviz-chart", ".st-key-words-grad-clip"
        page.wait_for_function(f"() => document.querySelector('{chart}')?._fullLayout", timeout=60_000)
        page.locator(".st-key-grad-clip").hover()
        page.wait_for_function(f"(m) => ({FRAMES})(m).includes('grad.clip')", arg=scrubs(page), timeout=60_000)
        thumb = page.locator(".st-key-grad-clip input[type=range]").locator("xpath=../..").bounding_box()
        box = page.locator(".st-key-grad-clip input[type=range]").locator("xpath=../../..").bounding_box()
        x0, y = thumb["x"] + thumb["width"] / 2, thumb["y"] + thumb["height"] / 2
        page.mouse.move(x0, y)
        page.wait_for_timeout(300)
        page.mouse.down()
        seen = []
        for k in range(1, 11):
            page.mouse.move(x0 + box["width"] / 3 * k / 10, y)
            page.wait_for_timeout(80)
            seen.append(page.evaluate(f"""() => {{ const gd = document.querySelector('{chart}');
              return {{value: gd.__rnnvizScrub?.value, titles: gd._fullLayout.annotations.map(a => a.text),
                       said: document.querySelector('{words}').innerText,
                       grey: document.querySelector('{words}').style.opacity,
                       once: ['l', 'r', 't', 'b'].every(k => Math.round(gd._fullLayout._size[k])
                                                           <= Math.round(gd._fullLayout.margin[k]))}}; }}"""))
        page.mouse.up()
        shown = [s for s in seen if s["value"] is not None]
        assert len({s["value"] for s in shown}) >= 5
        for s in shown:
            # laid out once: the frame's margins are those drawn (its y labels need 10 px more than the figure sets,
            # and plotly.js grew them in a second layout on every frame)
            assert s["once"], s
            after = f"{s['value']:.2f}"
            assert f"after: ‖g‖ = {after}" in s["titles"], s
            assert f", {after} after." in s["said"] and s["grey"] == "", s


# every frame the three untrained cells' survival chart paints during a drag: the value, each cell's last norm, and
# the sentence under it at that moment
MEMORY_SWEEP = recorder("gates-memory", "ends: gd._fullData.map(t => t.y[t.y.length - 1]), "
                                        "said: pieces('.st-key-words-gates-memory')")


def test_the_survival_chart_and_its_sentence_follow_the_untrained_cells_forget_bias():
    """The three cells side by side, untrained, on a projector (First letter, 65 steps): dragging b_f, the chart of how
    much of x₁ survives (beside the slider) and the sentence under it show the server's numbers at each value the
    thumb passes; they jumped on release before."""
    from rnnviz.lessons import gates as lesson, vector
    from rnnviz.lessons.memory import memory
    from ui.lessons import gates_memory as words

    sets = words.MEMORY_PRESETS["first"]["sets"]
    x = vector.encode_word(sets["word"], vector.parse_vocab(sets["vocab"]))

    def at(bf: float):
        ls = lesson.lockstep(x, 3, 0, 0.9, bf)
        mem = memory(ls, False)
        return [v[-1] for v in mem.norms.values()], pieces(words.MEMORY_ABOUT + " " + words.memory_text(mem, ls))

    with app_page("/gates?view=lockstep&trained=0&classroom=1", width=1024, height=768) as page:
        page.wait_for_function("() => document.querySelector('.st-key-gates-memory .rnnviz-chart')?._fullLayout",
                               timeout=60_000)
        painted = recorded_drag(page, "gates.bf", MEMORY_SWEEP)  # b_f from 1 to about 4
        page.mouse.up()
        assert len({f["value"] for f in painted}) >= 5 and max(f["value"] for f in painted) > 2
        for f in painted:
            ends, said = at(f["value"])
            assert f["ends"] == pytest.approx(ends, rel=1e-12) and f["said"] == said, f["value"]
