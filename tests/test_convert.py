"""python -m rnnviz.convert: a state dict saved the way students save one becomes a checkpoint that gives the
original torch model's probabilities."""
import json
import subprocess
import sys

import numpy as np
import pytest

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


def converted(tmp_path, sd, *flags):
    torch.save(sd, tmp_path / "m.pt")
    (tmp_path / "corpus.txt").write_text(CORPUS)
    assert convert([str(tmp_path / "m.pt"), str(tmp_path / "out" / "mine"), "--vocab", str(tmp_path / "corpus.txt"),
                    *flags]) == 0
    return charlm.load(tmp_path / "out" / "mine.safetensors")


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
    lm2 = converted(tmp_path, prefixed)
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
    charlm.check_upload((tmp_path / "out" / "mine.safetensors").read_bytes(), (tmp_path / "out" / "mine.json").read_bytes())


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
    np.testing.assert_allclose(charlm.load(tmp_path / "x.safetensors").run(TEXT, start="").probs, torch_probs(model, TEXT),
                               atol=2e-6)


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
    return subprocess.run([sys.executable, "-m", "rnnviz.convert", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)


@pytest.mark.slow
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
