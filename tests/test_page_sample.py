"""The sampling page: text, inspection, branching, unit ranking, model card, uploads good and bad."""
import json
import pickle

import pytest

from tests.conftest import ROOT, all_text

P = "sample"
MODEL = ROOT / "models" / "shakespeare.safetensors"
pytestmark = pytest.mark.skipif(not MODEL.exists(), reason="the shipped model is missing")


def shown_text(at):
    return at.session_state[f"{P}.run"][1].text


def test_defaults_sample_from_the_prime(open_page):
    at = open_page(P)
    assert not at.exception
    text = shown_text(at)
    assert text.startswith("ROMEO:") and len(text) == len("ROMEO:") + 500
    assert "sampled" in all_text(at) and "Entropy" in all_text(at)
    assert at.code[-1].value == text  # the plain-text view shows exactly what was sampled


def test_same_seed_same_text_and_sample_again_changes_it(open_page):
    a = shown_text(open_page(P))
    at = open_page(P)
    assert shown_text(at) == a
    at.button(key=f"{P}.again").click().run()
    assert shown_text(at) != a and at.number_input(key=f"{P}.seed").value == 2


def test_controls(open_page):
    at = open_page(P)
    at.toggle(key=f"{P}.greedy").set_value(True).run()
    g1 = shown_text(at)
    at.number_input(key=f"{P}.seed").set_value(7).run()
    assert shown_text(at) == g1  # greedy ignores the seed
    at.toggle(key=f"{P}.greedy").set_value(False)
    at.number_input(key=f"{P}.top_k").set_value(3)
    at.slider(key=f"{P}.top_p").set_value(0.5)
    at.select_slider(key=f"{P}.temp").set_value(1.5)
    at.slider(key=f"{P}.n").set_value(50).run()
    assert not at.exception and len(shown_text(at)) == 56
    for shade in ("surprisal", "hidden unit"):
        at.segmented_control(key=f"{P}.shade").set_value(shade).run()
        assert not at.exception


def test_inspect_and_branch(open_page):
    at = open_page(P)
    at.slider(key=f"{P}.pos").set_value(20).run()
    before = shown_text(at)
    other = next(c for c in "xyz" if c != before[20])
    at.selectbox(key=f"{P}.force_char").set_value(other).run()
    at.button(key=f"{P}.branch").click().run()
    after = shown_text(at)
    assert after[:20] == before[:20] and after[20] == other
    assert any("forced" in i.value for i in at.info)


def test_bad_prime_is_explained(open_page):
    at = open_page(P)
    at.text_input(key=f"{P}.prime").input("ROMEO: ~<script>").run()
    assert not at.exception and any("never seen" in e.value and "~" in e.value for e in at.error)
    at.text_input(key=f"{P}.prime").input("").run()
    assert not at.exception and any("empty" in e.value for e in at.error)


def test_unit_ranking_and_card(open_page):
    at = open_page(P)
    ranking = at.dataframe[0].value
    assert {"position in line", "newline", "speaker name"} <= set(ranking["feature"])
    assert ranking["r"].abs().max() > 0.5
    card = json.loads((ROOT / "models" / "shakespeare.json").read_text())
    assert f"{card['val_loss']:.4f}" in all_text(at)


class Upload:
    def __init__(self, name, data):
        self.name, self.data = name, data


def upload(at, weights: bytes, card: bytes):
    """AppTest has no file-upload driver: put the uploaded files where st.file_uploader returns them."""
    from streamlit.runtime.uploaded_file_manager import UploadedFile, UploadedFileRec

    def uf(name, data):
        return UploadedFile(UploadedFileRec(file_id=name, name=name, type="application/octet-stream", data=data), None)
    return uf("m.safetensors", weights), uf("m.json", card)


@pytest.mark.slow
def test_uploads_are_validated(open_page, monkeypatch):
    import streamlit as st

    good_w = MODEL.read_bytes()
    good_c = MODEL.with_suffix(".json").read_bytes()
    cases = [(pickle.dumps({"a": 1}), good_c, "not a safetensors file"),
             (good_w[:1000], good_c, "safetensors"),
             (good_w, json.dumps({"itos": ["a"], "cell": "lstm", "embed_size": 64, "hidden_size": 512,
                                  "num_layers": 2}).encode(), "shape"),
             (good_w, b"not json", "JSON")]
    for w, c, words in cases:
        files = upload(None, w, c)
        monkeypatch.setattr(st, "file_uploader", lambda label, *a, _f=files, **k: _f[0] if "Weights" in label else _f[1])
        at = open_page(P)
        assert not at.exception
        assert any("refused" in e.value and words in e.value for e in at.error), words
    files = upload(None, good_w, good_c)
    monkeypatch.setattr(st, "file_uploader", lambda label, *a, _f=files, **k: _f[0] if "Weights" in label else _f[1])
    at = open_page(P)
    assert any("Using your model" in s.value for s in at.success)
