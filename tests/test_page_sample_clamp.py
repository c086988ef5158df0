"""The sampling page's "Switch a unit off" view (a unit clamped while the same sample is drawn again) and the notices
for what a link asks that the sample cannot show (issue 29): AppTest, as a visitor sees them."""
import html
import re

import numpy as np
import pytest

from tests.conftest import ROOT, all_text, charts
from tests.test_page_sample import textviews, view
from ui.sample.words import CLAMP_KL_ALT

P = "sample"
MODEL = ROOT / "models" / "shakespeare.safetensors"
pytestmark = pytest.mark.skipif(not MODEL.exists(), reason="the shipped model is missing")


def statistics(at) -> list[list[str]]:
    table = next(h.proto.body for h in at.get("html") if "feature the finder looks for" in h.proto.body)
    return [[html.unescape(re.sub("<[^>]+>", "", c)) for c in re.findall(r"<td.*?</td>", r)]
            for r in re.findall(r"<tr style.*?</tr>", table)]


def texts(at) -> tuple[str, str]:
    """The free text (the clamp view's shaded one, the page's second text view) and the clamped one (its faded, then
    plain, markup)."""
    spans = re.findall(r'<span data-i="\d+"[^>]*>(.*?)</span>', textviews(at)[1]["html"])
    after = next(h.proto.body for h in at.get("html") if "opacity:0.4" in h.proto.body)
    return ("".join("\n" if b == "↵" else html.unescape(b) for b in spans),
            html.unescape(re.sub("<[^>]+>", "", after.replace("↵<br>", "\n"))))


def test_switch_a_unit_off_from_the_finder_and_back(open_page, monkeypatch):
    from rnnviz.lessons import clamp as C
    from rnnviz.lessons.cache import SharedCache
    from ui.sample import cache

    monkeypatch.setattr(cache, "CLAMPS", SharedCache(16 * 2 ** 20))  # drawn here, whatever earlier tests drew
    calls = []
    real = C.clamp_effect
    monkeypatch.setattr(C, "clamp_effect", lambda *a, **k: calls.append(a[3]) or real(*a, **k))
    at = open_page(P, timeout=300, n="200")  # a busy machine: the finder reads 4,000 characters first
    assert not calls  # nothing is clamped until the view is open
    at.segmented_control(key=f"{P}.view").set_value("clamp").run()
    assert not at.exception and len(calls) == 1 and calls[0].value == 0.0
    assert "**correlation**" in all_text(at) and "**intervene**" in all_text(at)  # the contrast, said
    hits = at.selectbox(key=f"{P}.cpick").options
    row = next(k for k, o in enumerate(hits) if "position in line" in o and " c unit " in o)
    layer, kind, unit = re.search(r"layer (\d) (\w) unit (\d+)", hits[row]).groups()  # units from 1
    # the view opens on that unit (unit 1, the default before, moved the predictions 0.0006 nats a character)
    assert (calls[0].layer + 1, calls[0].kind, calls[0].unit + 1) == (int(layer), kind, int(unit))
    at.selectbox(key=f"{P}.cpick").set_value(hits[row]).run()
    assert not at.exception and at.number_input(key=f"{P}.clamp_unit").value == int(unit)
    assert at.radio(key=f"{P}.clamp_kind").value == kind == "c" and "cunit" not in at.query_params  # the default
    shown = all_text(at)
    assert f"With **layer {layer} c unit {unit} = 0** at every character" in shown
    mean = float(re.search(r"KL\(before ‖ after\) is \*\*([\d.]+)\*\* nats per character", shown).group(1))
    assert mean > 0.005  # the finder's line-position unit moves the predictions
    before, after = texts(at)
    assert before == view(at)["text"] and after.startswith("ROMEO:")  # the page's sample, and the same prime
    first = int(re.search(r"is the same up to character (\d+)", shown).group(1))  # that many, counted from 1
    assert before[:first] == after[:first] and before[first] != after[first] and len(after) == len(before)
    rows = statistics(at)
    assert rows[0][0].startswith("position in line (r = −0.") and rows[0][1] == "mean length of a line of speech"
    lines = [len(x) for x in before.split("\n")[:-1] if x and not re.fullmatch(r"[A-Z][A-Za-z' ]*[A-Za-z]:", x)]
    assert rows[0][2] == f"{np.mean(lines):,.1f}"  # the statistic of the text shown
    free, held = map(float, rows[0][5].split(" → "))  # p of the text's own line breaks: the unit is used for them
    assert held < free
    kl = next(c for c in charts(at) if c.alt == CLAMP_KL_ALT)
    assert max(kl.figure["data"][0]["y"]) == pytest.approx(float(re.search(r"largest \*\*([\d.]+)\*\*", shown)
                                                                 .group(1)), abs=5e-4)
    at.slider(key=f"{P}.clamp_value").set_value(5.0).run()
    assert not at.exception and at.query_params["cval"] == "5.0" and len(calls) == 2  # the row
    # picked is the clamp the view opened on: not drawn again
    assert f"layer {layer} c unit {unit} = 5**" in all_text(at)
    at.slider(key=f"{P}.char").set_value(30).run()  # the inspector above: the clamp is not drawn again
    assert len(calls) == 2


def test_a_clamp_link_opens_the_same_experiment(open_page):
    at = open_page(P, view="clamp", clayer="1", ckind="h", cunit="200", cval="-0.5", n="80", timeout=300)
    assert not at.exception and not at.info
    shown = [at.number_input(key=f"{P}.clamp_layer").value, at.radio(key=f"{P}.clamp_kind").value,
             at.number_input(key=f"{P}.clamp_unit").value, at.slider(key=f"{P}.clamp_value").value]
    assert shown == [1, "h", 201, -0.5]  # the link's cunit=200 is PyTorch's h[200]: unit 201, counted from 1
    assert "With **layer 1 h unit 201 = −0.5** at every character" in all_text(at)
    at = open_page(P, view="clamp", cval="99", ckind="q", n="80", timeout=300)
    assert any("**Clamp to**" in i.value and "**Clamp state**" in i.value for i in at.info)
    assert "**Clamp to** (`cval` in the link)" in " ".join(i.value for i in at.info)  # the label first


def clicked(at) -> int:
    """The character outlined in the clamp view's free text."""
    return textviews(at)[1]["selected"]


def test_the_character_clicked_in_the_clamped_text_is_in_the_link(open_page):
    """A lecturer who clicked the character to talk about shares it with the link; a new clamp goes back to the
    character it moves most, and the link no longer names one."""
    link = dict(view="clamp", clayer="1", ckind="h", cunit="200", cval="-0.5", n="80")
    at = open_page(P, timeout=300, **link)
    pick = 40 if clicked(at) != 40 else 41
    assert "cpos" not in at.query_params
    at.session_state[f"{P}.cpos"] = pick  # what a click on that character does (ui/textview.py)
    at.run()
    assert clicked(at) == pick and at.query_params["cpos"] == str(pick)
    shared = open_page(P, timeout=300, cpos=str(pick), **link)
    def unlinked(a) -> str:  # the page's words, without the link (its settings come in another order)
        return re.sub(r"\?\S+", "", all_text(a))
    assert clicked(shared) == pick and unlinked(shared) == unlinked(at)  # the character's sentence and bars too
    at.slider(key=f"{P}.clamp_value").set_value(-0.4).run()
    assert "cpos" not in at.query_params and not at.exception
    assert clicked(at) == clicked(open_page(P, timeout=300, **{**link, "cval": "-0.4"}))  # as the new link opens


def test_a_link_past_the_sample_or_with_unusable_branches_says_so(open_page):
    at = open_page(P, n="20", pos="900", branch="3.233,45.120,5.120", timeout=300)
    assert not at.exception
    notes = " ".join(i.value for i in at.info)
    assert "**Position** 901" in notes and "last character (26)" in notes and view(at)["selected"] == [25]  # from 1
    assert "**Branch from here**" in notes and "'é' at 10 (not in the model's vocabulary)" in notes
    assert "'x' at 52 (only 20 characters are sampled)" in notes and view(at)["text"][11] == "x"  # 5.120 is kept
    at.slider(key=f"{P}.char").set_value(10).run()
    assert "**Position**" not in " ".join(i.value for i in at.info)  # said until the visitor moves it
    at = open_page(P, branch="zzz", n="20", timeout=300)
    assert any("**Branch from here**" in i.value for i in at.info)


def test_every_link_name_has_its_controls_label():
    from rnnviz import charlm
    from tests.helpers import tiny_checkpoint
    from ui.sample import controls
    from ui.urlstate import CONTROL_LABELS

    lm = charlm.load_bytes(*tiny_checkpoint("lstm"))
    params = controls.declared(lm).params
    labels = {p.url: CONTROL_LABELS.get(p.key) for p in params}
    assert len(labels) == 22 and all(labels.values()) and set(controls.LOOK_URLS) <= set(labels)
