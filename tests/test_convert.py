"""python -m rnnviz.convert: a state dict saved the way students save one becomes a checkpoint that gives the
original torch model's probabilities."""
import contextlib
import copy
import io
import json
import os
import stat
import subprocess
import types

import numpy as np
import pytest
from safetensors import safe_open

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from rnnviz import charlm  # noqa: E402
from rnnviz.charlm import CharRNNConfig  # noqa: E402
from rnnviz.charlm.convert import main as convert  # noqa: E402
from rnnviz.charlm.model import CharRNN  # noqa: E402
from tests.conftest import ROOT  # noqa: E402

CORPUS = "to be, or not to be:\nthat is the question.\n"
ITOS = sorted(set(CORPUS))
TEXT = "that is to be\nor not"


class RNNModel(nn.Module):
    """pytorch/examples' word_language_model RNNModel (encoder, rnn, decoder; sequence-first; optional tying)."""

    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, tie_weights=False):
        super().__init__()
        self.drop = nn.Dropout(0.2)
        self.encoder = nn.Embedding(ntoken, ninp)
        if rnn_type in ("LSTM", "GRU"):
            self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=0.2)
        else:
            self.rnn = nn.RNN(ninp, nhid, nlayers, nonlinearity={"RNN_TANH": "tanh", "RNN_RELU": "relu"}[rnn_type],
                              dropout=0.2)
        self.decoder = nn.Linear(nhid, ntoken)
        if tie_weights:
            assert nhid == ninp
            self.decoder.weight = self.encoder.weight

    def forward(self, input, hidden=None):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        return torch.log_softmax(self.decoder(self.drop(output)), dim=-1), hidden


def torch_probs(model, text, seq_first=False):
    ids = torch.tensor([[ITOS.index(c) for c in text]])
    with torch.no_grad():
        if seq_first:
            out, _ = model(ids.T)
            return out[:, 0].exp().double().numpy()
        logits, _, _ = model(ids)
        return torch.softmax(logits[0].double(), -1).numpy()


def converted(tmp_path, sd, *flags, name="mine"):
    torch.save(sd, tmp_path / "m.pt")
    (tmp_path / "corpus.txt").write_text(CORPUS)
    assert convert([str(tmp_path / "m.pt"), str(tmp_path / "out" / name), "--vocab", str(tmp_path / "corpus.txt"),
                    *flags]) == 0
    return charlm.load(tmp_path / "out" / f"{name}.safetensors")


def perturb(model):
    """Non-trivial biases (torch initialises some to zero)."""
    torch.manual_seed(1)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(0.3 * torch.randn_like(p))
    return model.eval()


@pytest.mark.parametrize("cell", ["lstm", "gru", "rnn"])
def test_our_own_layout_and_dataparallels_prefix(tmp_path, cell):
    torch.manual_seed(0)
    model = perturb(CharRNN(CharRNNConfig(len(ITOS), cell, 5, 7, 2)))
    want = torch_probs(model, TEXT)
    lm = converted(tmp_path, model.state_dict())
    assert (lm.cell, lm.num_layers, lm.hidden_size, lm.embed_size) == (cell, 2, 7, 5)
    np.testing.assert_allclose(lm.run(TEXT, start="").probs, want, atol=2e-6)
    prefixed = {f"module.{k}": v for k, v in model.state_dict().items()}
    lm2 = converted(tmp_path, prefixed, name="prefixed")
    np.testing.assert_allclose(lm2.run(TEXT, start="").probs, want, atol=2e-6)


@pytest.mark.parametrize("rnn_type,tied", [("LSTM", False), ("LSTM", True), ("GRU", False), ("RNN_TANH", False),
                                           ("RNN_RELU", True)])
def test_word_language_model_layout(tmp_path, rnn_type, tied):
    torch.manual_seed(0)
    model = perturb(RNNModel(rnn_type, len(ITOS), 6, 6 if tied else 9, 2, tie_weights=tied))
    want = torch_probs(model, TEXT, seq_first=True)
    flags = ["--nonlinearity", "relu"] if rnn_type == "RNN_RELU" else []
    lm = converted(tmp_path, model.state_dict(), *flags)
    card = json.loads((tmp_path / "out" / "mine.json").read_text())
    assert card["layout"] == "word_language_model" and card["itos"] == ITOS
    assert card.get("nonlinearity", "tanh") == ("relu" if rnn_type == "RNN_RELU" else "tanh")
    np.testing.assert_allclose(lm.run(TEXT, start="").probs, want, atol=2e-6)
    # the written pair passes the public page's checks too
    charlm.check_upload((tmp_path / "out" / "mine.safetensors").read_bytes(),
                        (tmp_path / "out" / "mine.json").read_bytes())


def test_a_relu_rnn_converted_without_the_flag_runs_as_tanh_and_says_so(tmp_path, capsys):
    torch.manual_seed(0)
    model = perturb(RNNModel("RNN_RELU", len(ITOS), 6, 9, 1))
    want = torch_probs(model, TEXT, seq_first=True)
    lm = converted(tmp_path, model.state_dict())
    assert "tanh assumed" in capsys.readouterr().err
    assert np.abs(lm.run(TEXT, start="").probs - want).max() > 1e-3  # wrong without --nonlinearity relu


def test_nested_checkpoint_dicts_and_explicit_itos(tmp_path):
    torch.manual_seed(0)
    model = perturb(CharRNN(CharRNNConfig(len(ITOS), "lstm", 4, 6, 1)))
    torch.save({"model": model.state_dict(), "epoch": 3}, tmp_path / "ck.pt")
    assert convert([str(tmp_path / "ck.pt"), str(tmp_path / "x"), "--itos", "".join(ITOS)]) == 0
    np.testing.assert_allclose(charlm.load(tmp_path / "x.safetensors").run(TEXT, start="").probs,
                               torch_probs(model, TEXT), atol=2e-6)


def test_bias_free_layers_get_zero_biases(tmp_path):
    torch.manual_seed(0)

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(len(ITOS), 4)
            self.gru = nn.GRU(4, 5, batch_first=True, bias=False)
            self.fc = nn.Linear(5, len(ITOS), bias=False)

        def forward(self, x):
            return self.fc(self.gru(self.embedding(x))[0]), None, None

    model = perturb(M())
    lm = converted(tmp_path, model.state_dict())
    np.testing.assert_allclose(lm.run(TEXT, start="").probs, torch_probs(model, TEXT), atol=2e-6)


def _cli(tmp_path, *args):
    """`rnnviz-convert ARGS` in this process (a subprocess per call only added torch's import, 3-5 s each): its exit
    status, standard output and standard error."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = convert([str(a) for a in args])
        except SystemExit as e:  # argparse's refusals
            code = e.code
    return types.SimpleNamespace(returncode=code, stdout=out.getvalue(), stderr=err.getvalue())


def test_refusals_are_one_line_messages(tmp_path):
    torch.manual_seed(0)
    model = CharRNN(CharRNNConfig(len(ITOS), "lstm", 4, 6, 1))
    (tmp_path / "corpus.txt").write_text(CORPUS)
    torch.save(model, tmp_path / "whole.pt")  # a pickled module: never unpickled
    out = _cli(tmp_path, tmp_path / "whole.pt", tmp_path / "o", "--vocab", tmp_path / "corpus.txt")
    assert out.returncode == 2 and "state_dict()" in out.stderr and "Traceback" not in out.stderr
    torch.save(model.state_dict(), tmp_path / "m.pt")
    out = _cli(tmp_path, tmp_path / "m.pt", tmp_path / "o", "--itos", "abc")
    assert out.returncode == 2 and "3 characters but the embedding has" in out.stderr
    out = _cli(tmp_path, tmp_path / "m.pt", tmp_path / "o", "--vocab", tmp_path / "corpus.txt", "--cell", "gru")
    assert out.returncode == 2 and "--cell gru does not fit" in out.stderr
    bi = nn.LSTM(4, 6, bidirectional=True)
    sd = {"embed.weight": torch.zeros(len(ITOS), 4), **{f"rnn.{k}": v for k, v in bi.state_dict().items()},
          "head.weight": torch.zeros(len(ITOS), 12), "head.bias": torch.zeros(len(ITOS))}
    torch.save(sd, tmp_path / "bi.pt")
    out = _cli(tmp_path, tmp_path / "bi.pt", tmp_path / "o", "--vocab", tmp_path / "corpus.txt")
    assert out.returncode == 2 and "bidirectional" in out.stderr
    torch.save({**model.state_dict(), "norm.weight": torch.ones(6)}, tmp_path / "extra.pt")
    out = _cli(tmp_path, tmp_path / "extra.pt", tmp_path / "o", "--vocab", tmp_path / "corpus.txt")
    assert out.returncode == 2 and "norm.weight" in out.stderr
    assert not (tmp_path / "o.safetensors").exists()
    out = _cli(tmp_path, tmp_path / "m.pt", tmp_path / "ok", "--vocab", tmp_path / "corpus.txt")
    assert out.returncode == 0 and "the sampling page accepts it" in out.stdout


def test_a_dotted_name_keeps_its_suffix_and_an_existing_model_is_kept_without_force(tmp_path, capsys):
    torch.manual_seed(0)
    model = perturb(CharRNN(CharRNNConfig(len(ITOS), "gru", 4, 6, 1)))
    torch.save(model.state_dict(), tmp_path / "m.pt")
    (tmp_path / "corpus.txt").write_text(CORPUS)
    models = tmp_path / "models"
    models.mkdir()
    (models / "mine.safetensors").write_bytes(b"someone else's model")
    args = [str(tmp_path / "m.pt"), str(models / "mine.v2"), "--vocab", str(tmp_path / "corpus.txt")]
    assert convert(args) == 0
    assert (models / "mine.safetensors").read_bytes() == b"someone else's model"  # .v2 is part of the name
    np.testing.assert_allclose(charlm.load(models / "mine.v2.safetensors").run(TEXT, start="").probs,
                               torch_probs(model, TEXT), atol=2e-6)
    assert json.loads((models / "mine.v2.json").read_text())["cell"] == "gru"
    written = (models / "mine.v2.safetensors").read_bytes()
    capsys.readouterr()
    assert convert(args[:1] + [str(models / "mine")] + args[2:]) == 2  # an existing model: refused, kept
    assert "mine.safetensors exists" in capsys.readouterr().err
    assert (models / "mine.safetensors").read_bytes() == b"someone else's model"
    assert convert(args) == 2 and "--force" in capsys.readouterr().err
    assert convert(args + ["--force", "--float16"]) == 0 and (models / "mine.v2.safetensors").read_bytes() != written
    # a name given with its extension is not doubled
    assert convert([*args[:1], str(models / "other.safetensors"), *args[2:]]) == 0
    assert sorted(p.name for p in models.iterdir()) == ["mine.safetensors", "mine.v2.json", "mine.v2.safetensors",
                                                         "other.json", "other.safetensors"]


@pytest.mark.parametrize("umask", [0o022, 0o027])
def test_model_files_are_readable_by_others_as_the_umask_allows(tmp_path, umask):
    torch.manual_seed(0)
    model = perturb(CharRNN(CharRNNConfig(len(ITOS), "rnn", 4, 6, 1)))
    old = os.umask(umask)
    try:
        converted(tmp_path, model.state_dict())
    finally:
        os.umask(old)
    for f in ("mine.safetensors", "mine.json"):
        assert stat.S_IMODE((tmp_path / "out" / f).stat().st_mode) == 0o666 & ~umask, f  # 0644 or 0640, not 0600


def test_the_inputs_dtype_is_kept_unless_another_is_asked_for(tmp_path):
    torch.manual_seed(0)
    model = perturb(CharRNN(CharRNNConfig(len(ITOS), "lstm", 4, 6, 2))).to(torch.bfloat16)
    want = torch_probs(copy.deepcopy(model).float(), TEXT)  # the bf16 weights, run in float32 (float() is in place)

    def dtypes(name):
        with safe_open(str(tmp_path / "out" / f"{name}.safetensors"), "pt") as f:
            return {str(f.get_slice(k).get_dtype()) for k in f.keys()}

    lm = converted(tmp_path, model.state_dict())
    assert dtypes("mine") == {"BF16"}
    np.testing.assert_allclose(lm.run(TEXT, start="").probs, want, atol=2e-6)  # bf16 -> float32 -> bf16: exact
    converted(tmp_path, model.state_dict(), "--dtype", "float32", name="f32")
    assert dtypes("f32") == {"F32"}
    converted(tmp_path, copy.deepcopy(model).float().state_dict(), "--bfloat16", name="bf16")
    assert dtypes("bf16") == {"BF16"}
    assert (tmp_path / "out" / "bf16.safetensors").read_bytes() == (tmp_path / "out" / "mine.safetensors").read_bytes()


def test_a_whole_pickled_module_is_refused_with_torchs_reason_and_the_line_that_resaves_it(tmp_path, capsys):
    torch.manual_seed(0)
    model = perturb(CharRNN(CharRNNConfig(len(ITOS), "lstm", 4, 6, 1)))
    torch.save(model, tmp_path / "whole.pt")  # a pickled module: never unpickled by the converter
    (tmp_path / "corpus.txt").write_text(CORPUS)
    capsys.readouterr()
    assert convert([str(tmp_path / "whole.pt"), str(tmp_path / "o"), "--vocab", str(tmp_path / "corpus.txt")]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "weights_only" in err  # no terminal colour codes
    assert "Unsupported global: GLOBAL rnnviz.charlm.model.CharRNN was not an allowed global by default." in err
    resave = [line.strip() for line in err.splitlines() if line.strip().startswith("python -c ")]
    assert len(resave) == 1
    # the line works as printed (for a file one trusts), and its output converts to the same probabilities
    out = subprocess.run(["bash", "-c", resave[0]], capture_output=True, text=True, cwd=tmp_path, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr
    assert convert([str(tmp_path / "whole.state_dict.pt"), str(tmp_path / "o"), "--vocab",
                    str(tmp_path / "corpus.txt")]) == 0
    np.testing.assert_allclose(charlm.load(tmp_path / "o.safetensors").run(TEXT, start="").probs,
                               torch_probs(model.eval(), TEXT), atol=2e-6)
