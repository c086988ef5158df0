"""The sampling page: the shaded text, one position up close, branching, links, unit ranking, gate saturation,
the model card, and uploads good and bad."""
import html
import json
import pickle
import re
from html.parser import HTMLParser

import pytest

from tests.conftest import ROOT, all_text, charts, page_codes
from tests.helpers import tiny_checkpoint

P = "sample"
MODEL = ROOT / "models" / "shakespeare.safetensors"
pytestmark = pytest.mark.skipif(not MODEL.exists(), reason="the shipped model is missing")


def textviews(at) -> list[dict]:
    """What the page sends each of its text views (ui/textview.py), in page order: html, alt, selected."""
    return [json.loads(e.proto.json) for e in at.main if getattr(e.proto, "component_name", "") == "rnnviz_textview"]


def view(at) -> dict:
    """What the text view shows: the text, each character's colour and hover text, the outlined position."""
    sent = textviews(at)[0]
    spans = re.findall(r'<span data-i="(\d+)"( class="[^"]*")?( style="([^"]*)")?( title="([^"]*)")?>(.*?)</span>',
                       sent["html"])
    text = "".join("\n" if body == "↵" else html.unescape(body) for *_, body in spans)
    return {"text": text, "styles": [s[3] for s in spans], "titles": [html.unescape(s[5]) for s in spans],
            "classes": [s[1][8:-1].split() for s in spans],
            "selected": [int(s[0]) for s in spans if "sel" in s[1]]
            + ([sent["selected"]] if sent["selected"] is not None else []),
            "html": sent["html"]}


def test_defaults_sample_from_the_prime_and_describe_the_loaded_model(open_page):
    at = open_page(P)
    assert not at.exception
    text = view(at)["text"]
    assert text.startswith("ROMEO:") and len(text) == len("ROMEO:") + 500
    assert view(at)["selected"] == [6]  # the first sampled character is the one inspected
    shown = all_text(at)
    assert "A two\\-layer LSTM \\(512 units per layer, 65 characters\\) trained on tinyshakespeare\\.txt" in shown
    assert "sampled. The model gave it p =" in shown and "nats" in shown and "surprisal" in shown
    assert "Mean probability of the sampled characters" in at.get("html")[0].proto.body


def test_same_seed_same_text_and_sample_again_changes_it(open_page):
    a = view(open_page(P))["text"]
    at = open_page(P)
    assert view(at)["text"] == a
    at.button(key=f"{P}.again").click().run()
    assert view(at)["text"] != a and at.number_input(key=f"{P}.seed").value == 2
    assert at.query_params["seed"] == "2"


def test_controls_and_shading(open_page):
    at = open_page(P)
    at.toggle(key=f"{P}.greedy").set_value(True).run()
    g1 = view(at)["text"]
    at.number_input(key=f"{P}.seed").set_value(7).run()
    assert view(at)["text"] == g1  # greedy ignores the seed
    assert "**0.000 bits** (0.000 nats) in the one it was sampled from" in all_text(at)  # not -0.000
    at.toggle(key=f"{P}.greedy").set_value(False)
    at.number_input(key=f"{P}.top_k").set_value(3)
    at.slider(key=f"{P}.top_p").set_value(0.5)
    at.select_slider(key=f"{P}.temp").set_value(1.5)
    at.slider(key=f"{P}.n").set_value(50).run()
    assert not at.exception and len(view(at)["text"]) == 56
    captions = {}
    for shade in ("surprisal", "hidden unit", "connectivity", "probability"):
        at.segmented_control(key=f"{P}.shade").set_value(shade).run()
        assert not at.exception
        captions[shade] = at.get("html")[0].proto.body
    assert "bits" in captions["surprisal"] and "unit 1 in layer 2" in captions["hidden unit"]
    assert "Connectivity of the prediction of character 7" in captions["connectivity"]  # text[6], counted from 1
    assert "1 − p" in captions["probability"]
    assert "shade" not in at.query_params  # the default is left out of the link


def test_inspect_branch_and_clear(open_page):
    at = open_page(P)
    at.slider(key=f"{P}.char").set_value(21).run()  # the 21st character, counted from 1 as the page writes it
    before = view(at)["text"]
    assert view(at)["selected"] == [20] and at.query_params["pos"] == "20"  # text[20]: the link keeps the index
    assert at.selectbox(key=f"{P}.force_char").value == before[20]  # the box starts on the character that is there
    other = next(c for c in "xyz" if c != before[20])
    at.selectbox(key=f"{P}.force_char").set_value(other).run()
    at.button(key=f"{P}.branch").click().run()
    after = view(at)["text"]
    assert after[:20] == before[:20] and after[20] == other
    assert "forced by hand (a branch)" in all_text(at) and "Forced by hand at character 21" in all_text(at)
    assert "chosen against" in all_text(at) and "sampled." not in all_text(at).split("Character **21**")[1][:40]
    assert at.query_params["branch"] == f"14.{ord(other)}"
    at.button(key=f"{P}.unforce").click().run()
    assert view(at)["text"] == before and "branch" not in at.query_params


def test_the_text_as_plain_text(open_page):
    at = open_page(P, view="text")
    assert page_codes(at)[0] == view(at)["text"]  # what the shaded view shows, to copy


def test_a_link_restores_position_shading_and_branches(open_page):
    at = open_page(P, pos="300", shade="connectivity", branch="14.120")
    assert not at.exception
    v = view(at)
    assert v["text"][20] == "x" and v["selected"] == [300]
    assert "Connectivity of the prediction of character 301" in at.get("html")[0].proto.body  # pos=300: text[300]
    assert at.slider(key=f"{P}.char").value == 301
    assert [j for j, c in enumerate(v["classes"]) if "na" in c] == list(range(301, 506))  # not read yet: faded
    assert "‖∂ log p / ∂e‖" in v["titles"][299]


def test_the_hidden_state_box_stays_open_down_the_text_and_is_in_the_link(open_page):
    """Opened, the box with the hidden state follows Position (its label named the character, so each move made it a
    new box, shut); a link carries it open."""
    def state_title(at) -> str | None:
        return next((c.figure["layout"]["title"]["text"] for c in charts(at) if c.key == f"{P}.state"), None)

    at = open_page(P, state="1")
    assert state_title(at) == "after character 7" and not at.exception  # pos=6 by default: character 7, from 1
    at.slider(key=f"{P}.char").set_value(21).run()
    assert state_title(at) == "after character 21" and at.query_params["state"] in ("1", ["1"])
    at.session_state[f"{P}.state_open"] = False
    assert state_title(at.run()) is None and "state" not in at.query_params


@pytest.mark.parametrize("query,bad", [({"temp": "2.9"}, "Temperature"), ({"temp": "0.15"}, "Temperature"),
                                       ({"k": "100"}, "Top-k (0 = off)"), ({"branch": "3.55296"}, "Branch from here"),
                                       ({"shade": "<b>"}, "Shade by")])
def test_link_values_that_are_not_options_fall_back_with_a_notice(open_page, query, bad):
    at = open_page(P, **query)
    assert not at.exception
    assert any(f"**{bad}**" in i.value for i in at.info)  # the control's label, as the visitor sees it
    assert at.select_slider(key=f"{P}.temp").value == 0.8 and at.number_input(key=f"{P}.top_k").value == 0


def test_k_up_to_the_vocabulary_is_accepted(open_page):
    at = open_page(P, k="65", temp="1.5")
    assert not at.info and at.number_input(key=f"{P}.top_k").value == 65
    assert at.select_slider(key=f"{P}.temp").value == 1.5


def test_bad_prime_is_explained(open_page):
    at = open_page(P)
    at.text_input(key=f"{P}.prime").input("ROMEO: ~<script>").run()
    assert not at.exception and any("never seen" in e.value and "~" in e.value for e in at.error)
    at.text_input(key=f"{P}.prime").input("").run()
    assert not at.exception and any("empty" in e.value for e in at.error)


def ranking(at) -> list[list[str]]:
    table = next(h.proto.body for h in at.get("html") if "strength |r|" in h.proto.body)
    rows = re.findall(r"<tr style.*?</tr>", table)
    cells = [[html.unescape(re.sub("<[^>]+>", "", c)) for c in re.findall(r"<td.*?</td>", r)] for r in rows]
    widths = [float(w) for w in re.findall(r"width:([\d.]+)%;background", table)]
    return [c + [w] for c, w in zip(cells, widths)]


def test_unit_ranking_bars_show_size_and_say_the_sign(open_page):
    at = open_page(P)
    rows = ranking(at)
    assert {"position in line", "newline", "speaker name"} <= {r[0] for r in rows}
    shared = {r[1] for r in rows if r[0] == "speaker name"} & {r[1] for r in rows if r[0] == "uppercase"}
    caption = html.unescape(next(h.proto.body for h in at.get("html") if "Over " in h.proto.body))
    assert all(u in caption for u in shared) and (("are \"uppercase\" units too" in caption) == bool(shared))
    neg = [r for r in rows if r[3].startswith("−")]
    assert neg and max(r[5] for r in neg) > 80 and {r[4] for r in neg} == {"falls with it"}  # r = −0.856: a long bar
    assert all(abs(abs(float(r[3].replace("−", "-"))) * 100 - r[5]) < 0.06 for r in rows)
    pick = at.selectbox(key=f"{P}.pick")
    choice = next(k for k, r in enumerate(rows) if r[0] == "position in line")
    pick.set_value(choice).run()
    layer, kind, unit = re.match(r"layer (\d) (\w) unit (\d+)$", rows[choice][1]).groups()  # units from 1
    assert at.segmented_control(key=f"{P}.shade").value == "hidden unit"
    shown = [at.number_input(key=f"{P}.layer").value, at.radio(key=f"{P}.kind").value]
    assert shown + [at.number_input(key=f"{P}.unit").value] == [int(layer), kind, int(unit)]
    assert f"of unit {unit} in layer {layer}" in at.get("html")[0].proto.body
    at.radio(key=f"{P}.passage").set_value("sample").run()
    assert not at.exception and any("Over 506 characters" in h.proto.body for h in at.get("html"))


def test_gate_saturation_and_model_card(open_page):
    at = open_page(P, view="gates")
    assert "layer 1: 0.166 of steps below 0.1, 0.542 above 0.9; layer 2: 0.130 of steps below 0.1, 0.647 above 0.9" \
        in all_text(at)
    assert len(charts(at)) == 2
    at.select_slider(key=f"{P}.span").set_value(50).run()
    assert not at.exception and at.query_params["first"] == "50"
    at.segmented_control(key=f"{P}.view").set_value("card").run()
    card = json.loads((ROOT / "models" / "shakespeare.json").read_text())
    shown = all_text(at).replace("\\", "")  # markdown escapes
    assert f"{card['val_loss']:.4f} nats per character" in shown and "2 layers of 512 units" in shown
    [box] = at.json
    assert box.proto.expanded and box.proto.max_expand_depth == 1  # its fields in view, not a folded "{...}"


def uploaded(name, data, file_id=None):
    """AppTest has no file-upload driver: what st.file_uploader returns for an uploaded file."""
    from streamlit.runtime.uploaded_file_manager import UploadedFile, UploadedFileRec

    rec = UploadedFileRec(file_id=file_id or name, name=name, type="application/octet-stream", data=data)
    return UploadedFile(rec, None)


def serve_files(monkeypatch, weights: bytes, card: bytes, tag: str = ""):
    import streamlit as st

    files = uploaded("m.safetensors", weights, "w" + tag), uploaded("m.json", card, "c" + tag)
    monkeypatch.setattr(st, "file_uploader", lambda label, *a, **k: files[0] if "Weights" in label else files[1])


@pytest.mark.slow
def test_uploads_are_validated(open_page, monkeypatch):
    good_w = MODEL.read_bytes()
    good_c = MODEL.with_suffix(".json").read_bytes()
    cases = [(pickle.dumps({"a": 1}), good_c, "not a safetensors file"),
             (good_w[:1000], good_c, "safetensors|cut short"),
             (good_w, json.dumps({"itos": ["a"], "cell": "lstm", "embed_size": 64, "hidden_size": 512,
                                  "num_layers": 2}).encode(), "shape"),
             (good_w, b"not json", "JSON")]
    for w, c, words in cases:
        serve_files(monkeypatch, w, c)
        at = open_page(P)
        assert not at.exception
        assert any("refused" in e.value and re.search(words, e.value) for e in at.error), words
    serve_files(monkeypatch, good_w, good_c, "ok")
    at = open_page(P)
    assert any("Using your model" in s.value for s in at.success)


def test_a_refused_upload_is_not_parsed_again(open_page, monkeypatch):
    from rnnviz import charlm

    calls = []
    real = charlm.load_bytes
    monkeypatch.setattr(charlm, "load_bytes", lambda *a: calls.append(1) or real(*a))
    serve_files(monkeypatch, b"\x00" * 64, b"{}")
    at = open_page(P)
    assert any("refused" in e.value for e in at.error) and len(calls) == 1
    at.slider(key=f"{P}.char").set_value(9).run()
    at.segmented_control(key=f"{P}.shade").set_value("surprisal").run()
    assert any("refused" in e.value for e in at.error) and len(calls) == 1  # remembered, not parsed per rerun


def test_a_small_uploaded_model_describes_itself_and_bounds_k(open_page, monkeypatch):
    w, c = tiny_checkpoint()
    serve_files(monkeypatch, w, c)
    at = open_page(P, k="11")
    assert any("Using your model" in s.value for s in at.success) and not at.info
    at.text_input(key=f"{P}.prime").input("bad :").run()
    assert not at.exception
    assert "A one\\-layer GRU \\(8 units per layer, 11 characters\\)" in all_text(at)
    assert at.number_input(key=f"{P}.top_k").max_value == 11 and at.number_input(key=f"{P}.layer").value == 1 \
        if at.get("number_input") and any(n.key == f"{P}.layer" for n in at.number_input) else True
    at.segmented_control(key=f"{P}.view").set_value("gates").run()
    assert "layer 1:" in all_text(at) and "of steps below 0.1" in all_text(at)
    at = open_page(P, k="12")
    assert any("**Top-k (0 = off)**" in i.value for i in at.info)


def test_a_sample_is_drawn_once_per_server_not_per_visitor(open_page, monkeypatch):
    from rnnviz.lessons import sample as L
    from rnnviz.lessons.cache import SharedCache
    from ui.sample import cache

    monkeypatch.setattr(cache, "SAMPLES", SharedCache(64 * 2 ** 20))
    calls = []
    real = L.draw_sample
    monkeypatch.setattr(L, "draw_sample", lambda *a, **k: calls.append(a[1]) or real(*a, **k))
    first, second = open_page(P, seed="11"), open_page(P, seed="11")  # two visitors, one link
    with cache.SAMPLES._ahead:  # seed 12, drawn ahead (Sample again is likely) once for both
        assert view(first)["text"] == view(second)["text"] and [c.seed for c in calls] == [11, 12]
    second.slider(key=f"{P}.char").set_value(40).run()  # moving the position draws nothing new
    second.segmented_control(key=f"{P}.shade").set_value("surprisal").run()
    second.button(key=f"{P}.again").click().run()  # drawn already
    assert second.number_input(key=f"{P}.seed").value == 12 and [c.seed for c in calls[:2]] == [11, 12]
    second.number_input(key=f"{P}.seed").set_value(11).run()
    with cache.SAMPLES._ahead:
        calls.clear()  # (the click drew seed 13 ahead)
    second.select_slider(key=f"{P}.temp").set_value(1.0).run()
    second.select_slider(key=f"{P}.temp").set_value(0.8).run()  # a revisited setting costs nothing
    assert [(c.seed, c.temperature) for c in calls] == [(11, 1.0)]  # and a new setting draws nothing ahead


@pytest.mark.slow
def test_a_costly_uploaded_model_gets_fewer_characters(open_page, monkeypatch):
    from rnnviz.charlm.checkpoint import cost_per_char
    from rnnviz.lessons import sample as L

    w, c = tiny_checkpoint(cell="lstm", H=1024)
    serve_files(monkeypatch, w, c)
    at = open_page(P, n="2000", prime="ab")
    cd = json.loads(c)
    cost = cost_per_char(cd["cell"], len(cd["itos"]), cd["embed_size"], cd["hidden_size"], cd["num_layers"])
    most = L.SAMPLE_BUDGET // cost - 2
    assert cost > L.SHIPPED_COST and most < 2000
    assert at.slider(key=f"{P}.n").max == most and at.slider(key=f"{P}.n").value == most
    assert len(view(at)["text"]) == most + 2 and not at.exception


class Parsed(HTMLParser):
    """HTML's text and the widths of its bars (data-bar) as an HTML parser reads them (not the frames' own way)."""

    def __init__(self, markup: str):
        super().__init__()
        self.texts, self.bars = [], []
        self.feed(markup)

    def handle_data(self, data):
        if data.strip():
            self.texts.append(data)

    def handle_starttag(self, tag, attrs):
        if "data-bar" in dict(attrs):
            self.bars.append(re.search(r"width:([^;]+)", dict(attrs)["style"]).group(1))


def test_position_frames_are_the_page_s_words_bars_and_outline_at_each_position(open_page):
    """Dragged, Position shows the inspected character's words, bars and outline from frames (ui/sample/follow.py
    position_scrubs): each frame, unpacked as the browser unpacks it, is what the page itself shows at that position
    (its sentence, its table's text and bar widths, its entropies; the character outlined). Shaded by connectivity the
    text is marked stale instead of outlined."""
    from rnnviz import charlm
    from rnnviz.lessons import sample as lesson
    from rnnviz.live.words import pieces
    from rnnviz.nn.sampling import SamplingSettings
    from tests.test_scrub import unpacked
    from ui.live import scrub
    from ui.sample.follow import AT, position_scrubs

    lm = charlm.load(str(MODEL))
    s = SamplingSettings("ROMEO:", 500, 0.8, None, None, 1, ())
    smp = lesson.draw_sample(lm, s)
    at = open_page(P)
    for shade in ("probability", "connectivity"):
        item, = position_scrubs("shipped", lm, smp, s, 6, shade, 1.0)
        assert (item.slider, item.chart, item.lo, item.hi, item.step) == (f"{P}.char", AT, 2, 506, 1)
        sets = [json.loads(scrub._compute(item, values)) for values in item.sets()]
        assert all(f["alone"] and not f["data"] for f in sets)
        for v in (4, 21, 120, 506):  # in the prime and after it; in the coarse set and in a window only
            f = next(f for f in sets if v in f["values"])
            k = f["values"].index(v)
            if shade == "connectivity":
                assert f["stale"] == [f"{P}.text", f"{P}.legend"] and "marks" not in f
                continue
            at.slider(key=f"{P}.char").set_value(v).run()
            said, entropy = [m.value for m in at.markdown if m.value.startswith(("Character **", "Entropy"))]
            table = Parsed(next(h.proto.body for h in at.get("html") if "data-bar" in h.proto.body))
            assert unpacked(f["words"][AT], k) == pieces(said) + table.texts + pieces(entropy), v
            assert unpacked(f["bars"][AT], k) == table.bars, v
            assert f["marks"][f"{P}.text"][k] == v - 1 == view(at)["selected"][0], v


def same_as_the_page(at, f: dict, j: int, g: dict, jj: int, label) -> None:
    """Frame j of a sample's texts (f) and frame jj of the inspected character's words (g) are what the page (`at`)
    shows: the text's markup to the byte (a key's rerun finds it drawn), the legend's text, the character's sentence,
    bars and entropies."""
    from rnnviz.live.words import pieces
    from tests.test_scrub import unpacked
    from ui.sample.follow import AT, LEGEND, TEXT

    assert f["html"][TEXT][j] == textviews(at)[0]["html"], label
    legend = Parsed(next(h.proto.body for h in at.get("html") if "Mean probability" in h.proto.body))
    assert unpacked(f["words"][LEGEND], j) == legend.texts, label
    shown = [m.value for m in at.markdown if m.value.startswith(("Character **", "Entropy"))]
    table = Parsed(next(h.proto.body for h in at.get("html") if "data-bar" in h.proto.body))
    assert unpacked(g["words"][AT], jj) == pieces(shown[0]) + table.texts + pieces(shown[1]), label
    assert unpacked(g["bars"][AT], jj) == table.bars, label


def test_temperature_frames_are_the_page_s_sample_at_each_temperature(open_page):
    """Dragged, Temperature shows the sample drawn at each of its values from frames (ui/sample/follow.py
    temperature_scrubs): each frame is what the page itself shows at that temperature, the text's markup, the
    sentence under the slider, the legend's text and character 7's words. The texts' frames
    are keyed by the shading they draw (probability and surprisal apart), not by the character inspected, whose words
    are an item of their own. Shaded by a hidden unit (each sample's states would be needed) the text and its legend
    are marked stale instead; greedy, only the sentence follows (every temperature writes the same text)."""
    from dataclasses import replace

    from rnnviz import charlm
    from rnnviz.lessons import sample as lesson
    from rnnviz.live.words import pieces
    from rnnviz.nn.sampling import SamplingSettings
    from tests.test_scrub import unpacked
    from ui.live import scrub
    from ui.sample.follow import AT, LEGEND, SAID, TEXT, temperature_scrubs

    lm = charlm.load(str(MODEL))
    s = SamplingSettings("ROMEO:", 500, 0.8, None, None, 1, ())
    smp = lesson.draw_sample(lm, s)
    texts, character = temperature_scrubs("shipped", lm, smp, s, 6, "probability", 1.0)
    for item, chart in ((texts, TEXT), (character, AT)):
        assert (item.slider, item.chart, item.lo, item.hi, item.step, item.value) == (f"{P}.temp", chart, 0, 10, 1, 5)
    assert sorted({v for values in texts.sets() for v in values}) == list(range(11))
    assert all(len(values) <= 3 for values in texts.sets())  # a sample a notch: other visitors' sets take turns

    def frames(item, k: int) -> tuple[dict, int]:  # the first set holding notch k, and k's place in it
        f = json.loads(scrub._compute(item, next(values for values in item.sets() if k in values)))
        return f, f["values"].index(k)
    at = open_page(P)
    for k in (0, 5, 6, 10):  # temperatures 0.1, 0.8 (the page's own sample), 1.0 (a window's) and 3.0
        (f, j), (g, jj) = frames(texts, k), frames(character, k)
        at.select_slider(key=f"{P}.temp").set_value(lesson.TEMPS[k]).run()
        same_as_the_page(at, f, j, g, jj, k)
        said = next(c.value for c in at.caption if c.value.startswith("Temperature"))
        assert unpacked(f["words"][SAID], j) == pieces(said), k
        assert set(f) & {"words", "html"} and AT not in f["words"] and set(g["words"]) == {AT}, k

    def key(s2: SamplingSettings, i: int, shade: str) -> list[tuple]:
        return [item.key(values) for item in temperature_scrubs("shipped", lm, smp, s2, i, shade, 1.0)
                for values in item.sets()[:1]]
    hotter = replace(s, temperature=1.5)  # released elsewhere: the same frames
    assert key(hotter, 6, "probability") == key(s, 6, "probability")
    assert [a == b for a, b in zip(key(s, 40, "probability"), key(s, 6, "probability"))] == [True, False]
    assert [a == b for a, b in zip(key(s, 6, "surprisal"), key(s, 6, "probability"))] == [False, True]
    hidden = temperature_scrubs("shipped", lm, smp, s, 6, "hidden unit", 1.0)[0]
    f = json.loads(scrub._compute(hidden, [4, 5, 6]))
    assert sorted(f["stale"]) == sorted([TEXT, LEGEND]) and "html" not in f and set(f["words"]) == {SAID}
    greedy = temperature_scrubs("shipped", lm, smp, replace(s, top_k=1), 6, "probability", 1.0)
    assert len(greedy) == 1 and set(json.loads(scrub._compute(greedy[0], [4, 5, 6]))) & {"html", "stale"} == set()
    long = SamplingSettings("ROMEO:", 2000, 0.8, None, None, 1, ())
    assert lesson.is_long(lm, long) and not temperature_scrubs("shipped", lm, smp, long, 6, "probability", 1.0)


def test_top_p_frames_are_the_page_s_sample_at_each_p(open_page):
    """Dragged, Top-p shows the sample drawn at each p from frames, as Temperature does: each frame is what the page
    itself shows at that p (off at 1), the text's markup to the byte, the legend's text and character 7's words; a
    frame's setting is all but p, so a release elsewhere keeps them; greedy sampling ignores p, and nothing follows."""
    from dataclasses import replace

    from rnnviz import charlm
    from rnnviz.lessons import sample as lesson
    from rnnviz.nn.sampling import SamplingSettings
    from ui.live import scrub
    from ui.sample.follow import TEXT, top_p_scrubs

    lm = charlm.load(str(MODEL))
    s = SamplingSettings("ROMEO:", 500, 0.8, None, None, 1, ())
    smp = lesson.draw_sample(lm, s)
    texts, character = top_p_scrubs("shipped", lm, smp, s, 6, "probability", 1.0)
    assert (texts.slider, texts.lo, texts.hi, texts.step, texts.value) == (f"{P}.top_p", 0.05, 1.0, 0.05, 1.0)
    assert len({v for values in texts.sets() for v in values}) == 20

    def frames(item, p: float) -> tuple[dict, int]:  # the first set holding p, and p's place in it
        f = json.loads(scrub._compute(item, next(values for values in item.sets() if p in values)))
        return f, f["values"].index(p)
    at = open_page(P)
    seen = set()
    for p in (0.05, 0.5, 0.95, 1.0):  # the likeliest character alone, half the mass, nearly all, off (the page's)
        (f, j), (g, jj) = frames(texts, p), frames(character, p)
        at.slider(key=f"{P}.top_p").set_value(p).run()
        same_as_the_page(at, f, j, g, jj, p)
        seen.add(f["html"][TEXT][j])
    assert len(seen) == 4  # each p its own text
    keys = [item.key(values) for item in top_p_scrubs("shipped", lm, smp, replace(s, top_p=0.5), 6, "probability",
                                                          1.0) for values in item.sets()[:1]]
    assert keys == [item.key(values) for item in (texts, character) for values in item.sets()[:1]]
    assert not top_p_scrubs("shipped", lm, smp, replace(s, top_k=1), 6, "probability", 1.0)
