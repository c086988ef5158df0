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
                       grey: document.querySelector('{words}').style.opacity}}; }}"""))
        page.mouse.up()
        shown = [s for s in seen if s["value"] is not None]
        assert len({s["value"] for s in shown}) >= 5
        for s in shown:
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
    from ui.lessons import gates as words

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


# every frame the sampling page's Position paints during a drag: the value, the inspected character's words and bars,
# the character the text outlines (in its component's shadow root) and whether the text and its legend are greyed
VIEW = "[...document.querySelectorAll('.st-key-sample-text *')].find(e => e.shadowRoot).shadowRoot"
OUTLINED = f"Number({VIEW}.querySelector('span.sel')?.dataset.i)"
POSITION_SWEEP = recorder("sample-at", "said: pieces('.st-key-sample-at'), bars: [...gd.querySelectorAll('[data-bar]')]"
                          f".map(b => b.style.width), outlined: {OUTLINED}, "
                          "grey: ['text', 'legend'].map(k => document.querySelector(`.st-key-sample-${k}`)"
                          ".style.opacity)", inside="")
# every frame Temperature paints: the text shown, the character outlined, the sentence under the slider and the
# legend's summary
TEXT = f"[...{VIEW}.querySelectorAll('span[data-i]')].map(s => s.textContent).join('')"
TEMPERATURE_SWEEP = recorder("sample-text", f"text: {TEXT}, outlined: {OUTLINED}, said: pieces('.st-key-sample-said'), "
                                            "legend: pieces('.st-key-sample-legend').pop()", inside="")


def test_the_sampling_page_s_words_and_text_follow_position_and_temperature():
    """The sampling page on a projector, on the shipped model's opening sample (no chart follows either slider: all of
    it jumped on release before):
    - dragging Position, the inspected character's sentence, its bars with their numbers and its entropies show the
      server's words at each value the thumb passes, and the text's outline moves with them; a key draws the next
      character's words as it goes to the server; shaded by connectivity, whose colours are each position's own, the
      text and its legend grey through a drag while the words still follow;
    - dragging Temperature, the text shows the sample the server draws at each temperature the thumb passes (the
      character inspected still outlined, its hover titles with it), with the sentence under the slider and the
      legend's summary; the release's rerun shows the same; a key draws its notch's sample as it goes."""
    import functools

    from rnnviz import charlm
    from rnnviz.lessons import sample as lesson
    from rnnviz.live.words import Shown
    from rnnviz.nn.sampling import SamplingSettings
    from ui.sample import words
    from ui.sample.follow import position_texts

    lm = charlm.load(str(charlm.SHIPPED_MODEL))

    @functools.cache
    def drawn(t: float) -> lesson.Sample:
        return lesson.draw_sample(lm, SamplingSettings("ROMEO:", 500, t, None, None, 1, ()))

    def widths(bars: list[str]) -> list[float]:  # as the server writes them ("0.0%") or the browser reads them ("0%")
        return [float(w.removesuffix("%")) for w in bars]

    def at(v: float) -> dict:  # the server's words at Position v
        shown = Shown.of(*position_texts(lm, drawn(0.8), round(v) - 1, 1.0), html_at=(1,))
        return {"said": list(shown.pieces), "bars": widths(shown.bars), "outlined": round(v) - 1}

    def hot(k: float) -> dict:  # the server's sample at Temperature's notch k
        t = lesson.TEMPS[round(k)]
        return {"text": drawn(t).text.replace("\n", "↵"), "outlined": 6, "said": pieces(words.temperature_sentence(t)),
                "legend": words.summary(drawn(t))}

    def now(page) -> dict:
        shown = page.evaluate(f"() => ({{said: ({PIECES})('.st-key-sample-at'), bars: [...document.querySelectorAll("
                              f"'.st-key-sample-at [data-bar]')].map(b => b.style.width), outlined: {OUTLINED}}})")
        return {**shown, "bars": widths(shown["bars"])}

    with app_page("/sample?classroom=1", width=1024, height=768) as page:
        page.locator(".st-key-sample-char").scroll_into_view_if_needed()
        drag = recorded_drag(page, "sample.char", POSITION_SWEEP)  # from character 7 a third of the way along
        page.mouse.up()
        assert len({f["value"] for f in drag}) >= 5 and max(f["value"] for f in drag) > 100
        for f in drag:
            assert {**f, "bars": widths(f["bars"])} == {**at(f["value"]), "value": f["value"], "grey": ["", ""]}, \
                f["value"]
        wait_idle(page)
        released = page.evaluate("() => Number(document.querySelector('.st-key-sample-char input[type=range]').value)")
        last = {"said": drag[-1]["said"], "bars": widths(drag[-1]["bars"]), "outlined": drag[-1]["outlined"]}
        assert now(page) == at(released) == last  # the release's rerun shows what the drag showed last

        drawn_ahead = page.evaluate("() => document.querySelector('.st-key-sample-at').__rnnvizScrub.drawn")
        page.locator(".st-key-sample-char").get_by_role("slider").press("ArrowRight")
        page.wait_for_function("(n) => document.querySelector('.st-key-sample-at').__rnnvizScrub.drawn > n",
                               arg=drawn_ahead, timeout=5_000)  # drawn from the frames as the key went
        wait_idle(page)
        painted(page)
        assert now(page) == at(released + 1)

        page.locator(".st-key-sample-shade button:has-text('connectivity')").click()
        wait_idle(page)
        drag = recorded_drag(page, "sample.char", POSITION_SWEEP)
        page.mouse.up()
        assert len({f["value"] for f in drag}) >= 5
        for f in drag:
            assert f["said"] == at(f["value"])["said"] and f["grey"] == ["0.45", "0.45"], f["value"]
        wait_idle(page)
        assert page.evaluate("() => [document.querySelector('.st-key-sample-text').style.opacity, "
                             "document.querySelector('.st-key-sample-legend').style.opacity]") == ["", ""]

        page.goto(page.url.split("/sample")[0] + "/sample?classroom=1")  # probability shading, character 7 again
        wait_idle(page)
        page.locator(".st-key-sample-temp").hover()
        page.wait_for_function("(m) => [...m.scrubs().items.values()].some((it) => it.slider === 'sample.temp' && "
                               "it.drag.length >= 4)", arg=scrubs(page), timeout=60_000)  # the sets up to 1.5
        drag = recorded_drag(page, "sample.temp", TEMPERATURE_SWEEP)  # from 0.8 a third of the way along: to 1.5
        page.mouse.up()
        assert len({f["value"] for f in drag}) >= 3 and max(f["value"] for f in drag) == 8
        for f in drag:
            assert {k: v for k, v in f.items() if k != "value"} == hot(f["value"]), f["value"]
        wait_idle(page)
        painted(page)
        shown = page.evaluate(f"() => ({{text: {TEXT}, titles: {VIEW}.querySelectorAll('span[title]').length}})")
        assert shown == {"text": hot(8)["text"], "titles": len(hot(8)["text"])}

        # keys: each draws its own notch's sample at once (6 is a coarse set's nearest neighbour of 5: not that one)
        thumb = page.locator(".st-key-sample-temp").get_by_role("slider")
        for k in (7, 6):
            n = page.evaluate("() => document.querySelector('.st-key-sample-text').__rnnvizScrub.drawn")
            thumb.press("ArrowLeft")
            page.wait_for_function("(n) => document.querySelector('.st-key-sample-text').__rnnvizScrub.drawn > n",
                                   arg=n, timeout=5_000)
            assert page.evaluate(f"() => {TEXT}") == hot(k)["text"], k  # as written ahead, before the rerun
            wait_idle(page)
            painted(page)
            shown = page.evaluate(f"() => ({{text: {TEXT}, titles: {VIEW}.querySelectorAll('span[title]').length}})")
            assert shown == {"text": hot(k)["text"], "titles": len(hot(k)["text"])}, k  # and after the rerun
