"""In a real browser, the sampling page's two sliders that follow a drag with no chart (ui/sample/follow.py): Position
moves the inspected character's words, bars and the text's outline; Temperature the sample itself. A file of its own,
so that the two test processes share the browser tests (pytest.ini: --dist loadfile)."""
import pytest

from rnnviz.live.words import pieces
from tests.browser import painted, wait_idle
from tests.test_browser_follow import recorded_drag
from tests.test_browser_scrub import PIECES, app_page, recorder, scrubs

pytestmark = pytest.mark.slow


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
