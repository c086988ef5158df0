"""The train-hello page: untrained vs trained, the per-step table, sampling, the softmax example."""
from tests.conftest import all_text, charts, page_codes, shown_number, tables

P = "hello"


def metrics(at):
    return {m.label: m.value for m in at.metric}


def built_scrubs(monkeypatch) -> list:
    """The items each run of the page hands to ui.live.scrub.scrubs, as they are built."""
    from ui.live import scrub

    built = []
    original = scrub.scrubs
    monkeypatch.setattr(scrub, "scrubs", lambda page, items: built.extend(items) or original(page, items))
    return built


def sent(at, chart: str) -> dict:
    """A chart's payload as the page sends it (ui/live/chart.py)."""
    import json

    return next(json.loads(el.proto.bytes) for el in at.get("bidi_component")
                if el.proto.component_name == "rnnviz_chart" and el.proto.id.endswith(chart))


def at_notch(w: dict, k: int) -> list[str]:
    """Frame k's pieces of a text (rnnviz/live/words.py packed)."""
    return w["frames"][k] if "pieces" not in w else [
        dict(zip(w["vary"], w["frames"][k])).get(j, p) for j, p in enumerate(w["pieces"])]


def assert_frame_is_sent(base: dict, frames: dict, k: int, page: dict, value) -> None:
    """Frame k laid over the chart as the page opened (`base`) is the figure the page sends at that value (`page`),
    with its digest (a key draws it ahead of the rerun)."""
    from tests.conftest import _as_list

    data = [dict(trace) for trace in base["data"]]
    for d in frames["data"]:
        data[d["trace"]][d["attr"]] = d["frames"][k]
    layout = {**base["layout"], **{d["attr"]: d["frames"][k] for d in frames["layout"]}}
    want = _as_list(page["figure"])
    assert _as_list({"data": data, "layout": layout}) == {"data": want["data"], "layout": want["layout"]}, value
    assert frames["digests"][k] == page["digest"], value


def test_untrained_then_trained(open_page):
    at = open_page(P)
    assert not at.exception
    assert metrics(at)["Vocabulary"] == "{h, e, l, o}"
    assert any(m.value.startswith("**Untrained**: random weights (seed 0") for m in at.markdown)
    before = shown_number(metrics(at)["Loss"])
    at.button(key=f"{P}.train").click().run()
    assert not at.exception
    assert "**Trained** on “hello” (5 characters, 4 distinct): 300 steps" in all_text(at)
    assert at.query_params["trained"] in ("1", ["1"])
    m = metrics(at)
    assert shown_number(m["Loss"]) < 0.05 < before
    assert abs(float(m["Perplexity = exp(loss)"]) - 2.718281828 ** shown_number(m["Loss"])) < 2e-3
    table = tables(at)[0]
    assert list(table["input"]) == list("hell") and list(table["target"]) == list("ello")
    assert list(table["model's best guess"]) == list("ello")  # the two l's are told apart


def test_the_trained_sentence_ends_at_the_loss_metric_shows(open_page):
    """'Loss went from 1.552 to 0.00256' sat above a Loss metric of 0.00255: the sentence wrote the loss before
    the last Adam update, the metric that of the trained weights. Both now name the trained weights' loss."""
    at = open_page(P)
    at.button(key=f"{P}.train").click().run()
    status = next(m.value for m in at.markdown if m.value.startswith("**Trained**"))
    end = status.split("Loss went from ")[1].split(" nats per character")[0].split(" to ")[1]
    assert end == metrics(at)["Loss"]


def test_softmax_example_and_temperature(open_page):
    at = open_page(P)
    # the notes' scores (1.0, 2.2, -3.0, 4.1); reference values worked out by hand: e^s / sum e^s
    assert "(0.038, 0.125, 0.001, 0.837)" in all_text(at)
    assert any("The notes print these as (0.03, 0.13, 0.00, 0.84)" in c.value for c in at.caption)
    at.select_slider(key=f"{P}.temp").set_value(0.5).run()
    # at temperature 0.5 the scores double: e^(2, 4.4, -6, 8.2) / 3729.9 = (0.0020, 0.0218, 0.0000007, 0.9762)
    assert "At 0.5: **(0.00198, 0.0218, 6.65 × 10⁻⁷, 0.976)**" in all_text(at)
    assert at.query_params["temp"] in ("0.5", ["0.5"])
    at.text_input(key=f"{P}.scores").input("0, 0").run()
    assert "At 0.5: **(0.500, 0.500)**" in all_text(at) and not any("notes print" in c.value for c in at.caption)


def test_a_temperature_off_the_slider_falls_back_with_a_notice(open_page):
    at = open_page(P, temp="4.9", steps="15")
    assert not at.exception
    assert at.select_slider(key=f"{P}.temp").value == 1.0 and at.slider(key=f"{P}.steps").value == 300
    assert any("`temp`" in i.value and "`steps`" in i.value and "not valid here" in i.value for i in at.info)
    assert "At temperature 1: **(0.0377, 0.125, 6.90 × 10⁻⁴, 0.837)**." in all_text(at)
    at = open_page(P, temp="5")
    assert at.select_slider(key=f"{P}.temp").value == 5.0 and not at.info


def test_own_text_and_bad_text(open_page):
    at = open_page(P)
    at.text_area(key=f"{P}.text").input("abcabcabd").run()
    assert metrics(at)["Vocabulary"] == "{a, b, c, d}"
    at.text_area(key=f"{P}.text").input("x").run()
    assert not at.exception and any("at least two" in e.value for e in at.error)
    at.text_area(key=f"{P}.text").input("ab\x00cd").run()
    assert any("control characters" in e.value for e in at.error)
    at.text_input(key=f"{P}.scores").input("1, two").run()
    assert any("not a number" in e.value for e in at.error)
    at.text_input(key=f"{P}.scores").input("").run()  # the scores box is named as such, not as an input sequence
    assert any(e.value.startswith("The list of scores is empty") for e in at.error), [e.value for e in at.error]
    assert not any("input sequence" in e.value for e in at.error)


def test_sample_is_shown_as_text_not_markup(open_page):
    at = open_page(P)
    at.text_area(key=f"{P}.text").input("<b>hi</b>").run()
    assert not at.exception
    assert "<" in page_codes(at)[0]  # shown as text in a code block
    assert not any("<b>" in m.value for m in at.markdown)  # the user's markup never reaches markdown


def test_a_link_carries_how_many_characters_are_sampled(open_page):
    """The sample's length is a setting like the others: written into the link, and read back from it (a shared link
    once gave the default 30 characters whatever the sender had)."""
    at = open_page(P)
    assert len(page_codes(at)[0]) == 1 + 30 and "n" not in at.query_params  # the start, then 30 sampled
    at.slider(key=f"{P}.n").set_value(45).run()
    assert at.query_params["n"] in ("45", ["45"])
    shared = open_page(P, n="45")
    assert shared.slider(key=f"{P}.n").value == 45 and page_codes(shared)[0] == page_codes(at)[0]


def test_a_link_carries_the_character_sampling_starts_from(open_page):
    """"Start from" is in the link too (a shared link once started from the text's first character whatever the
    sender had chosen); the text's first character is the default and stays out of it, and a character the text
    does not have falls back to it."""
    at = open_page(P)
    assert at.selectbox(key=f"{P}.start_pick").value == "h" and page_codes(at)[0][0] == "h"
    at.selectbox(key=f"{P}.start_pick").set_value("l").run()
    assert at.query_params["start"] in ("l", ["l"]) and page_codes(at)[0][0] == "l"
    shared = open_page(P, start="l")
    assert shared.selectbox(key=f"{P}.start_pick").value == "l" and page_codes(shared)[0] == page_codes(at)[0]
    at.selectbox(key=f"{P}.start_pick").set_value("h").run()
    assert "start" not in at.query_params and page_codes(at)[0][0] == "h"
    other = open_page(P, start="z")  # not in "hello": its first character, and the link no longer names it
    assert other.selectbox(key=f"{P}.start_pick").value == "h" and "start" not in other.query_params
    assert not (at.exception or shared.exception or other.exception or other.warning)


def test_a_link_to_a_trained_model_retrains_it_on_open(open_page):
    at = open_page(P, trained="1", H="4", seed="2")
    assert not at.exception
    assert "**Trained** on “hello”" in all_text(at) and shown_number(metrics(at)["Loss"]) < 0.05
    assert any("retrains on open" in c.value for c in at.caption)
    at.slider(key=f"{P}.H").set_value(5).run()  # another model: untrained until Train is pressed
    assert "**Untrained**" in all_text(at) and "trained" not in at.query_params


def test_a_space_is_shown_as_a_visible_character(open_page):
    at = open_page(P)
    at.text_area(key=f"{P}.text").input("the cat").run()
    assert metrics(at)["Vocabulary"] == "6"  # six are too many to list in the metric's third of a column
    assert any("The vocabulary: 6 characters, {t, h, e, ␣, c, a}." in c.value and "␣ is the space" in c.value
               for c in at.caption)
    table = tables(at)[0]
    assert list(table["input"]) == ["t", "h", "e", "␣", "c", "a"] and list(table["target"])[2] == "␣"
    at.text_area(key=f"{P}.text").input("*a_b* $x$").run()  # markdown and LaTeX characters show as typed
    assert metrics(at)["Vocabulary"] == "7" and any(
        r"The vocabulary: 7 characters, {\*, a, \_, b, ␣, \$, x}." in c.value for c in at.caption)
    at.text_area(key=f"{P}.text").input("a|b\\c").run()  # a bar or a backslash in the table is a character too
    assert list(tables(at)[0]["input"]) == ["a", "|", "b", "\\"] and not at.exception


def test_heavy_training_is_capped_with_a_message(open_page):
    at = open_page(P)
    at.text_area(key=f"{P}.text").input("".join(chr(0x4E00 + k) for k in range(2000))).run()
    at.slider(key=f"{P}.H").set_value(32).run()
    assert any(w.value.startswith("Training is capped at 3 of the 300 steps asked") for w in at.warning)
    at.button(key=f"{P}.train").click().run()
    assert not at.exception and "3 steps (capped from 300)" in all_text(at)


def test_classroom_mode_shows_the_step_table_as_projector_sized_text(open_page):
    at = open_page(P, classroom="1")
    assert not at.exception and not at.dataframe  # no canvas grid: its 14 px type does not scale for a projector
    table = tables(at)[0]
    assert list(table["step"]) == ["1", "2", "3", "4"] and list(table["target"]) == list("ello")


def test_on_a_projector_the_step_heatmaps_leave_out_numbers_their_cells_cannot_hold(open_page):
    """At 1024 px the figure is 672 px wide beside the controls: its 32 px cells ran '-0.140.400.66' together (the page
    sized it for 940 px). The numbers are in the table below and on hover."""
    at = open_page(P, classroom="1")
    fig = next(c.figure for c in charts(at) if c.key == "hello.steps_fig")
    assert [tr.get("texttemplate") for tr in fig["data"] if tr["type"] == "heatmap"] == [None] * 4
    fig = next(c.figure for c in charts(open_page(P)) if c.key == "hello.steps_fig")
    assert all(tr.get("texttemplate") for tr in fig["data"] if tr["type"] == "heatmap")  # a laptop's 620 px: room
    # each target framed inside its own cell at any width (a px-sized marker spilled over two cells at 1024 px)
    frames = [s for s in fig["layout"]["shapes"] if s["xref"] == "x4"]
    assert [(round(s["x0"] + 0.42), round(s["y0"] + 0.42)) for s in frames] == [(1, 0), (2, 1), (2, 2), (3, 3)]
    assert all(s["x1"] - s["x0"] < 1 and s["y1"] - s["y0"] < 1 for s in frames)  # "ello" in the vocabulary h, e, l, o


def test_the_opening_lines_give_the_example_the_page_opens_on(open_page):
    """The intro read 'Four letters, one-hot inputs, three hidden units' above a slider at 5 (a lecturer's walk): it
    now says it describes the example the page opens on, with that example's sizes as the page computes them."""
    at = open_page(P)
    intro = next(m.value for m in at.markdown if "smallest language model" in m.value)
    letters = len(metrics(at)["Vocabulary"].strip("{}").split(", "))
    assert intro.startswith("It opens on the notes' example: “hello”")
    assert f"{letters} one-hot letters" in intro and f"{at.slider(key=f'{P}.H').value} hidden units" in intro


def test_a_temperature_drag_shows_the_pages_own_chart_sentence_and_sample_at_each_notch(open_page, monkeypatch):
    """Temperature scrubs (ui/live/scrub.py): the page hands its slider to the scrub part as its lesson declares it,
    at the notches its range input holds (positions 0-9, not temperatures), and each notch's frame, laid over the
    chart as the page opens, is the chart the page sends once released at that temperature (its numbers, words and
    digest: a key draws it ahead of the rerun), with the sentence under it and the sample it prints."""
    import json

    from rnnviz.live.words import pieces
    from ui.lessons.hello import SAMPLE_WORDS, TEMP_WORDS, TEMPERATURES
    from ui.lessons.registry import lesson
    from ui.live import scrub

    built = built_scrubs(monkeypatch)
    base = sent(open_page(P), f"{P}.softmax")["figure"]
    item, chars = [i for i in built if i.slider != f"{P}.H"]
    assert (item.slider, item.chart, item.value) == (f"{P}.temp", f"{P}.softmax", TEMPERATURES.index(1.0))
    assert item in lesson(P).scrubbed(False)  # what the server computes as it starts
    frames = json.loads(scrub._compute(item, item.values()))
    assert frames["values"] == list(range(len(TEMPERATURES)))  # every notch, 1.0 too
    for k, t in enumerate(TEMPERATURES):
        at = open_page(P, temp=f"{t:g}")
        assert at.select_slider(key=f"{P}.temp").value == t and not at.exception
        assert_frame_is_sent(base, frames, k, sent(at, f"{P}.softmax"), t)
        sentence = next(m.value for m in at.markdown if m.value.startswith("At temperature 1:"))
        assert at_notch(frames["words"][TEMP_WORDS], k) == pieces(sentence), t
        assert "".join(at_notch(frames["words"][SAMPLE_WORDS], k)) == page_codes(at)[0], t
    # Characters to sample: the sample alone follows, each notch's the page's own
    assert (chars.slider, chars.chart, chars.build, chars.lo, chars.hi) == (f"{P}.n", SAMPLE_WORDS, None, 1, 200)
    assert chars in lesson(P).scrubbed(False)
    frames = json.loads(scrub._compute(chars, chars.sets()[0]))
    assert frames["alone"] and len(frames["values"]) > 50
    for k in (0, 7, len(frames["values"]) - 1):
        n = int(frames["values"][k])
        at = open_page(P, n=str(n))
        assert "".join(at_notch(frames["words"][SAMPLE_WORDS], k)) == page_codes(at)[0], n


def test_a_drag_of_h_shows_the_untrained_models_chart_status_metrics_and_table_at_each_size(open_page, monkeypatch):
    """Hidden size H scrubs while the model is untrained: each frame, laid over the per-step chart as the page opens,
    is the chart the page sends once released at that size, and its words are the page's status sentence, metrics
    and step table there; the sample greys (its model changes). A trained model's H does not scrub: the release drops
    the training, and no frame can show the loss curve going."""
    import json

    from rnnviz.live.words import pieces
    from ui.lessons import hello as words
    from ui.lessons.registry import lesson
    from ui.live import scrub

    built = built_scrubs(monkeypatch)
    base = sent(open_page(P), f"{P}.steps_fig")["figure"]
    item, = [i for i in built if i.slider == f"{P}.H"]
    assert (item.chart, item.value, item.lo, item.hi) == (f"{P}.steps_fig", 3, 1, 32)
    assert item in lesson(P).scrubbed(False)
    frames = json.loads(scrub._compute(item, item.values()))
    assert frames["words"].keys() == {words.STATUS_WORDS, words.METRIC_WORDS, words.TABLE_WORDS}
    assert frames["stale"] == [words.SAMPLE_WORDS]
    seen = set()
    for k in (0, 4, len(frames["values"]) - 1):
        H = int(frames["values"][k])
        at = open_page(P, H=str(H))
        assert_frame_is_sent(base, frames, k, sent(at, f"{P}.steps_fig"), H)
        status = next(m.value for m in at.markdown if m.value.startswith("**Untrained**"))
        assert at_notch(frames["words"][words.STATUS_WORDS], k) == pieces(status), H
        assert at_notch(frames["words"][words.METRIC_WORDS], k) == [p for m in at.metric for p in (m.label, m.value)]
        table = next(m.value for m in at.markdown if m.value.startswith("| step |"))
        assert at_notch(frames["words"][words.TABLE_WORDS], k) == pieces(table), H
        seen.add(metrics(at)["Loss"])
    assert len(seen) == 3  # the loss differs with the size
    at = open_page(P)
    built.clear()
    at.button(key=f"{P}.train").click().run()
    assert built and f"{P}.H" not in {i.slider for i in built}  # trained: H's drag leaves the chart as it is
