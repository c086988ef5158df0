"""The character model: training CLI, checkpoint format, validation of bad files, the NumPy sampler."""
import json
import pickle
import subprocess
import sys

import numpy as np
import pytest
import torch
from safetensors.torch import load_file, save_file

from rnnviz import charlm
from rnnviz.charlm import CharRNNConfig, CheckpointError
from rnnviz.charlm.model import CharRNN
from rnnviz.charlm.train import main as train_main
from tests.conftest import ROOT, long_only

CORPUS = "the cat sat on the mat. " * 40


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A small LSTM overfit on a repetitive corpus in a few seconds (float32 weights)."""
    d = tmp_path_factory.mktemp("tiny")
    (d / "corpus.txt").write_text(CORPUS)
    rc = train_main(["--corpus", str(d / "corpus.txt"), "--out", str(d / "m"), "--hidden", "48", "--embed", "16",
                     "--layers", "2", "--dropout", "0", "--batch", "4", "--seq-len", "24", "--steps", "200",
                     "--lr", "1e-2", "--warmup", "10", "--eval-every", "100", "--quiet", "--float32",
                     "--threads", "1", "--val-fraction", "0.2"])
    assert rc == 0
    return d / "m.safetensors"


def test_overfit_tiny_corpus_and_sample_it_back(tiny):
    lm = charlm.load(tiny)
    card = json.loads(tiny.with_suffix(".json").read_text())
    assert card["val_loss"] < 0.3 and card["device"].startswith("CPU")
    out = lm.generate("the cat ", 40, top_k=1)
    assert len(out) == 40
    assert out.startswith("sat on the mat. the cat sat on the mat.")


def test_generate_contract(tiny):
    lm = charlm.load(tiny)
    a = lm.generate("the", 200, temperature=1.3, seed=5)
    assert len(a) == 200 and a == lm.generate("the", 200, temperature=1.3, seed=5)
    assert a != lm.generate("the", 200, temperature=1.3, seed=6)
    assert lm.generate("the", 0) == ""
    with pytest.raises(ValueError, match=r"'Z'.*'q'|'q'.*'Z'"):
        lm.generate("Zq the", 5)


def test_top_k_one_is_greedy(tiny):
    lm = charlm.load(tiny)
    tr = lm.draw(charlm.SamplingSettings("the c", 30, top_k=1))
    # every generated char is the argmax of the distribution before it
    for k, ch in enumerate(tr.text[5:]):
        assert lm.itos[int(np.argmax(tr.probs[4 + k]))] == ch


def test_numpy_sampler_matches_plain_torch(tiny):
    card = json.loads(tiny.with_suffix(".json").read_text())
    cfg = CharRNNConfig.from_card(card)
    model = CharRNN(cfg).eval()
    model.load_state_dict(load_file(str(tiny)))
    lm = charlm.load(tiny)
    lm.warmup = ""  # compare from the same zero state as torch
    text = "the mat sat on the cat"
    ids = torch.tensor([lm.encode(text)])
    with torch.no_grad():
        logits, _, (h, c) = model(ids)
    tr = lm.run(text)
    np.testing.assert_allclose(tr.probs, torch.softmax(logits[0].double(), -1).numpy(), atol=1e-5)
    np.testing.assert_allclose(tr.h[-1], h[:, 0].numpy(), atol=1e-5)
    np.testing.assert_allclose(tr.c[-1], c[:, 0].numpy(), atol=1e-5)
    # the stored loss matches torch's cross-entropy on the same text
    ce = torch.nn.functional.cross_entropy(logits[0, :-1], ids[0, 1:]).item()
    assert lm.loss(text) == pytest.approx(ce, abs=1e-5)


@pytest.mark.parametrize("cell", ["gru", "rnn"])
def test_other_cells_round_trip(tmp_path, cell):
    torch.manual_seed(0)
    model = CharRNN(CharRNNConfig(5, cell, 4, 6, 2)).eval()
    sd = {k: v.contiguous() for k, v in model.state_dict().items()}
    save_file(sd, str(tmp_path / "m.safetensors"))
    (tmp_path / "m.json").write_text(json.dumps({"itos": list("abcde"), "cell": cell, "embed_size": 4,
                                                 "hidden_size": 6, "num_layers": 2}))
    lm = charlm.load(tmp_path / "m.safetensors")
    with torch.no_grad():
        logits, _, _ = model(torch.tensor([lm.encode("abcdeedcba")]))
    np.testing.assert_allclose(lm.run("abcdeedcba").probs, torch.softmax(logits[0].double(), -1).numpy(), atol=1e-6)


def write_pair(tmp_path, weights: bytes, card: dict, name="m"):
    (tmp_path / f"{name}.safetensors").write_bytes(weights)
    (tmp_path / f"{name}.json").write_text(json.dumps(card))
    return tmp_path / f"{name}.safetensors"


def test_malformed_files_give_clear_errors(tiny, tmp_path):
    good = tiny.read_bytes()
    card = json.loads(tiny.with_suffix(".json").read_text())
    # a pickle renamed .safetensors is never unpickled
    evil = pickle.dumps({"embed.weight": [1, 2, 3]})
    with pytest.raises(CheckpointError, match="not a safetensors file"):
        charlm.load(write_pair(tmp_path, evil, card, "pickle"))
    with pytest.raises(CheckpointError, match="cut short"):
        charlm.load(write_pair(tmp_path, good[: len(good) // 2], card, "truncated"))
    with pytest.raises(CheckpointError, match="too short"):
        charlm.load(write_pair(tmp_path, b"abc", card, "tiny"))
    # wrong shapes: the card claims a bigger hidden size than the weights have
    with pytest.raises(CheckpointError, match="shape"):
        charlm.load(write_pair(tmp_path, good, dict(card, hidden_size=card["hidden_size"] + 1), "shapes"))
    # a vocabulary that does not match the embedding
    with pytest.raises(CheckpointError, match="shape"):
        charlm.load(write_pair(tmp_path, good, dict(card, itos=card["itos"] + ["#"]), "vocab"))
    with pytest.raises(CheckpointError, match="repeats"):
        charlm.load(write_pair(tmp_path, good, dict(card, itos=card["itos"][:-1] + [card["itos"][0]]), "dup"))
    with pytest.raises(CheckpointError, match="lacks"):
        charlm.load(write_pair(tmp_path, good, {"itos": card["itos"]}, "nocard"))
    with pytest.raises(CheckpointError, match="JSON"):
        charlm.load_bytes(good, "{not json")
    with pytest.raises(CheckpointError, match="no file"):
        charlm.load(tmp_path / "absent.safetensors")


def test_missing_and_nonfinite_tensors_are_refused(tiny, tmp_path):
    card = json.loads(tiny.with_suffix(".json").read_text())
    sd = load_file(str(tiny))
    sd.pop("head.bias")
    save_file(sd, str(tmp_path / "x.safetensors"))
    with pytest.raises(CheckpointError, match="missing head.bias"):
        charlm.load_bytes((tmp_path / "x.safetensors").read_bytes(), json.dumps(card))
    sd = load_file(str(tiny))
    sd["head.bias"][0] = float("nan")
    save_file(sd, str(tmp_path / "y.safetensors"))
    with pytest.raises(CheckpointError, match="NaN"):
        charlm.load_bytes((tmp_path / "y.safetensors").read_bytes(), json.dumps(card))


@pytest.mark.slow
def test_training_is_deterministic_and_resumable(tmp_path):
    (tmp_path / "c.txt").write_text(CORPUS)
    common = ["--corpus", str(tmp_path / "c.txt"), "--hidden", "16", "--embed", "8", "--layers", "1", "--batch", "4",
              "--seq-len", "16", "--eval-every", "10", "--quiet", "--float32", "--threads", "1", "--dropout", "0.1",
              "--val-fraction", "0.2"]
    assert train_main(common + ["--out", str(tmp_path / "a"), "--steps", "20"]) == 0
    assert train_main(common + ["--out", str(tmp_path / "b"), "--steps", "20"]) == 0
    a, b = load_file(str(tmp_path / "a.safetensors")), load_file(str(tmp_path / "b.safetensors"))
    assert all(torch.equal(a[k], b[k]) for k in a)
    # interrupt after the first step (a time budget of 0 minutes), then resume to 20: the same weights as the
    # uninterrupted run
    assert train_main(common + ["--out", str(tmp_path / "r"), "--steps", "20", "--minutes", "0"]) == 0
    assert json.loads((tmp_path / "r.json").read_text())["steps"] == 1
    assert train_main(common + ["--out", str(tmp_path / "r"), "--steps", "20", "--resume"]) == 0
    r = load_file(str(tmp_path / "r.safetensors"))
    assert all(torch.allclose(a[k], r[k], atol=1e-6) for k in a)


@pytest.mark.parametrize("content,msg", [(b"", "empty"), (b"\x00\x01\x02binary", "binary"), (b"\xff\xfe\xfa", "UTF-8")])
def test_training_refuses_bad_corpora(tmp_path, content, msg, capsys):
    """In process (the refusal comes before any training; a subprocess only added torch's import, 15-25 s each)."""
    (tmp_path / "bad.txt").write_bytes(content)
    assert train_main(["--corpus", str(tmp_path / "bad.txt"), "--out", str(tmp_path / "m"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert msg in err and err.startswith("error: ")
    assert not (tmp_path / "m.safetensors").exists()


@pytest.mark.slow
def test_sample_cli(tiny):
    out = subprocess.run([sys.executable, "-m", "rnnviz.sample", "--model", str(tiny), "--prime", "the ", "-n", "30",
                          "-t", "0.5", "--seed", "1"], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0 and len(out.stdout) == len("the ") + 30 + 1
    bad = subprocess.run([sys.executable, "-m", "rnnviz.sample", "--model", str(tiny), "--prime", "XYZ"],
                         capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 2 and "'X'" in bad.stderr


@pytest.mark.slow
def test_average_of_checkpoints(tiny, tmp_path):
    from rnnviz.charlm.average import average, main as average_main
    sd = load_file(str(tiny))
    half = {k: v / 2 for k, v in sd.items()}
    save_file(half, str(tmp_path / "h.safetensors"))
    (tmp_path / "h.json").write_text(tiny.with_suffix(".json").read_text())
    avg = average([str(tiny), str(tmp_path / "h.safetensors")])
    assert all(torch.allclose(avg[k], 0.75 * sd[k]) for k in sd)
    assert average_main([str(tmp_path / "avg"), str(tiny), str(tiny)]) == 0
    card = json.loads((tmp_path / "avg.json").read_text())
    assert [a["file"] for a in card["averaged_from"]] == ["m.safetensors", "m.safetensors"]
    assert charlm.load(tmp_path / "avg.safetensors").generate("the cat ", 10, top_k=1) == lm_greedy(tiny)


def lm_greedy(path):
    return charlm.load(path).generate("the cat ", 10, top_k=1)


SHIPPED = ROOT / "models" / "shakespeare.safetensors"


@pytest.mark.skipif(not SHIPPED.exists(), reason="the shipped model is missing")
def test_shipped_model_writes_a_play():
    lm = charlm.load(SHIPPED)
    assert lm.warmup == "\n"
    assert lm.generate("ROMEO:", 1, top_k=1) == "\n"  # a speaker's name is followed by a line break
    text = lm.generate("ROMEO:", 400, temperature=0.8, seed=1)
    words = text.split()
    assert sum(w.strip(".,;:!?'").isalpha() for w in words) / len(words) > 0.8  # mostly words, not symbols
    assert any(line.isupper() and line.endswith(":") for line in text.splitlines())  # another speaker appears


# ---- ReLU RNNs, the start state, rnnviz.evaluate ------------------------------------------------------

def _save_model(tmp_path, model, card, name="m"):
    save_file({k: v.contiguous() for k, v in model.state_dict().items()}, str(tmp_path / f"{name}.safetensors"))
    (tmp_path / f"{name}.json").write_text(json.dumps(card))
    return tmp_path / f"{name}.safetensors"


def test_relu_rnn_matches_torch_and_differs_from_tanh(tmp_path):
    torch.manual_seed(0)
    cfg = CharRNNConfig(5, "rnn", 4, 6, 2, nonlinearity="relu")
    model = CharRNN(cfg).eval()
    assert model.rnn.nonlinearity == "relu"
    card = {"itos": list("abcde"), **cfg.card_fields()}
    assert card["nonlinearity"] == "relu"
    lm = charlm.load(_save_model(tmp_path, model, card))
    ids = torch.tensor([lm.encode("abcdeedcbaab")])
    with torch.no_grad():
        logits, _, _ = model(ids)
    want = torch.softmax(logits[0].double(), -1).numpy()
    np.testing.assert_allclose(lm.run("abcdeedcbaab", start="").probs, want, atol=1e-6)
    as_tanh = charlm.load(_save_model(tmp_path, model, dict(card, nonlinearity="tanh"), "t"))
    assert np.abs(as_tanh.run("abcdeedcbaab", start="").probs - want).max() > 1e-2
    # no nonlinearity in the card: tanh, as before
    plain = dict(card)
    del plain["nonlinearity"]
    assert charlm.load(_save_model(tmp_path, model, plain, "p")).nonlinearity == "tanh"


def test_run_loss_and_generate_share_one_documented_start_state(tiny):
    card = json.loads(tiny.with_suffix(".json").read_text())
    model = CharRNN(CharRNNConfig.from_card(card)).eval()
    model.load_state_dict(load_file(str(tiny)))
    assert charlm.load(tiny).warmup == ""  # its corpus has no line break: the default warm-up is what it knows
    lm = charlm.CharLM(charlm.load(tiny).tensors, card, warmup=". ")  # as if the text began a new sentence
    text = "the mat sat on the cat"

    def torch_run(prefix):  # a plain torch model from zeros reading prefix + text
        ids = torch.tensor([lm.encode(prefix + text)])
        with torch.no_grad():
            logits, _, _ = model(ids)
        logits = logits[0, len(prefix):]
        ce = torch.nn.functional.cross_entropy(logits[:-1], ids[0, len(prefix) + 1:]).item()
        return torch.softmax(logits.double(), -1).numpy(), ce

    warm_p, warm_ce = torch_run(". ")
    zero_p, zero_ce = torch_run("")
    np.testing.assert_allclose(lm.run(text).probs, warm_p, atol=1e-5)  # default: after the warm-up line break
    assert lm.loss(text) == pytest.approx(warm_ce, abs=1e-5)  # the same start as run()
    np.testing.assert_allclose(lm.run(text, start="").probs, zero_p, atol=1e-5)
    assert lm.loss(text, start="") == pytest.approx(zero_ce, abs=1e-5)  # the card's val_loss convention
    assert np.abs(warm_p - zero_p).max() > 1e-3  # the two starts really differ
    # loss() is the mean surprisal of run()'s own probabilities
    tr = lm.run(text, start="")
    assert lm.loss(text, start="") == pytest.approx(float(-np.log(tr.p_char[1:]).mean()), abs=1e-5)
    # generate() starts where run() does: the greedy continuation is the argmax of run()'s last distribution
    for start in (None, "", "the "):
        nxt = lm.generate(text, 1, top_k=1, start=start)
        assert nxt == lm.itos[int(np.argmax(lm.run(text, start=start).probs[-1]))]


def _evaluate(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "rnnviz.evaluate", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, timeout=timeout)


def _evaluate_here(capsys, *args) -> subprocess.CompletedProcess:
    """The same command run in this process: what it returns, prints and says, without a new interpreter
    importing torch (about 2 s of CPU each). test_evaluate_names_the_characters_the_model_does_not_know runs the
    real `python -m rnnviz.evaluate`."""
    from rnnviz.charlm.evaluate import main

    capsys.readouterr()
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(["python", "-m", "rnnviz.evaluate", *map(str, args)], code, out, err)


@pytest.fixture(scope="module")
def small_model(tmp_path_factory):
    """An untrained 1-layer GRU over 8 characters, with and without a corpus in its card."""
    d = tmp_path_factory.mktemp("small")
    torch.manual_seed(3)
    cfg = CharRNNConfig(8, "gru", 4, 6, 1)
    model = CharRNN(cfg).eval()
    card = {"itos": list("\n abcdef"), **cfg.card_fields()}
    _save_model(d, model, card, "nocorpus")
    _save_model(d, model, dict(card, corpus="c.txt", corpus_sha256="0" * 64), "named")
    return d, model


def test_evaluate_reads_any_corpus_the_model_knows(small_model, tmp_path, capsys):
    d, model = small_model
    text = "fed a bead\ncab face " * 30  # every character known, but not all of them, and in another order
    (tmp_path / "c.txt").write_text(text)
    out = _evaluate_here(capsys, d / "nocorpus.safetensors", "--corpus", tmp_path / "c.txt")
    assert out.returncode == 0, out.stderr
    assert "not the one named" not in out.stderr  # the card names no corpus
    got = json.loads(out.stdout)
    # an independent loss: the last 10% of the text, as ids in the model's order, one stream from zeros
    itos = list("\n abcdef")
    ids = torch.tensor([itos.index(c) for c in text])
    val = ids[int(len(ids) * 0.9):]
    with torch.no_grad():
        logits, _, _ = model(val[None, :-1])
    want = torch.nn.functional.cross_entropy(logits[0], val[1:]).item()
    assert got["val_loss"] == pytest.approx(want, abs=1e-4) and got["val_chars"] == len(val)
    named = _evaluate_here(capsys, d / "named.safetensors", "--corpus", tmp_path / "c.txt")
    assert named.returncode == 0 and "not the one named in the card (c.txt; sha256 differs)" in named.stderr


def test_evaluate_names_the_characters_the_model_does_not_know(small_model, tmp_path):
    d, _ = small_model
    (tmp_path / "c.txt").write_text("a bad cafe\nZebra? Quite." * 5)
    out = _evaluate(d / "nocorpus.safetensors", "--corpus", tmp_path / "c.txt")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "does not know 8 of the corpus's characters: '.', '?', 'Q', 'Z', 'i', 'r', 't', 'u'" in out.stderr


def test_evaluate_without_torch_scores_in_numpy(small_model, tmp_path, capsys):
    d, _ = small_model
    (tmp_path / "c.txt").write_text("fed a bead\ncab face " * 30)
    code = ("import sys; sys.modules['torch'] = None; from rnnviz.charlm.evaluate import main; "
            f"raise SystemExit(main([{str(d / 'nocorpus.safetensors')!r}, '--corpus', {str(tmp_path / 'c.txt')!r}]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "scoring in NumPy" in out.stderr
    with_torch = _evaluate_here(capsys, d / "nocorpus.safetensors", "--corpus", tmp_path / "c.txt")
    assert json.loads(out.stdout)["val_loss"] == json.loads(with_torch.stdout)["val_loss"]


@pytest.mark.slow
@long_only("12-60 s of CPU")
def test_readme_evaluate_command_reproduces_the_cards_val_loss():
    # 111,540 characters through a 2 x 512 LSTM one at a time: 12 s of CPU idle, a minute on a busy machine
    out = _evaluate("models/shakespeare.safetensors", "--corpus", "data/tinyshakespeare.txt", timeout=3600)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["val_loss"] == got["card_val_loss"] == 1.4475 and out.stderr == ""


def test_start_is_an_argument_and_an_empty_start_matches_a_plain_torch_run(capsys):
    """The runner reads a line break before the prompt unless told otherwise (start=None); start="" is a plain torch
    run from zeros. The README says so, and rnnviz.sample takes --start."""
    from rnnviz.charlm.model import load_module
    from rnnviz.charlm.sample import main as sample_main

    lm = charlm.load(charlm.SHIPPED_MODEL)
    model = load_module(charlm.SHIPPED_MODEL)
    tr = lm.draw(charlm.SamplingSettings("ROMEO:", 40, temperature=1.0, seed=3), start="")
    ids = torch.tensor([lm.encode(tr.text)])
    with torch.no_grad():
        logits, _, _ = model(ids)
    want = torch.softmax(logits[0].double(), -1).numpy()
    # float32 through 46 steps of the shipped model, NumPy's kernels against torch's: 1.3e-6 apart on an AMD EPYC
    # (4.5e-6 relative), under 1e-6 on the machine this was written on; the shipped model's other checks use 1e-5
    np.testing.assert_allclose(tr.probs, want, atol=1e-5)
    for k in range(len(tr.text) - tr.generated_from):  # what each character was drawn from: the torch run's too
        np.testing.assert_allclose(tr.sampled_at(k), want[tr.generated_from - 1 + k], atol=1e-5)
    default = lm.run(tr.text)  # after the warm-up line break: not what a plain torch run gives
    assert lm.warmup == "\n" and np.abs(default.probs - want).max() > 0.05
    capsys.readouterr()
    assert sample_main(["--prime", "ROMEO:", "-n", "40", "--seed", "3", "--start", ""]) == 0
    assert capsys.readouterr().out == tr.text + "\n"
    assert "start=\"\"" in (ROOT / "README.md").read_text()  # how to match a torch run, where a newcomer looks
