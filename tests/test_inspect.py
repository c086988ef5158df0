"""Looking inside a character model: start state, gates, saturation, and connectivity against torch.autograd."""
import re

import numpy as np
import pytest

from rnnviz import charlm
from rnnviz.charlm import inspect as ins
from tests.conftest import ROOT
from tests.helpers import tiny

MODEL = ROOT / "models" / "shakespeare.safetensors"
EXCERPT = (ROOT / "models" / "shakespeare_excerpt.txt").read_text(encoding="utf-8")
needs_model = pytest.mark.skipif(not MODEL.exists(), reason="the shipped model is missing")


@pytest.fixture(scope="module")
def lm():
    return charlm.load(MODEL)


@pytest.fixture(scope="module")
def excerpt_states(lm):
    """h, c after every character of the whole excerpt (a run is causal: its prefixes are shorter texts' runs)."""
    return ins.run_states(lm, EXCERPT)


def torch_connectivity(lm: charlm.CharLM, text: str, t: int) -> np.ndarray:
    """The same quantity by torch.autograd, in float64, from the same start state."""
    torch = pytest.importorskip("torch")
    nn = torch.nn
    cells = {"lstm": nn.LSTM, "gru": nn.GRU, "rnn": nn.RNN}
    kw = {"nonlinearity": lm.card.get("nonlinearity", "tanh")} if lm.cell == "rnn" else {}
    E = lm.tensors["embed.weight"].shape[1]
    rnn = cells[lm.cell](E, lm.hidden_size, num_layers=lm.num_layers, batch_first=True, **kw).double()
    rnn.load_state_dict({k[4:]: torch.tensor(v, dtype=torch.float64)
                         for k, v in lm.tensors.items() if k.startswith("rnn.")})
    ids = torch.tensor([lm.stoi[ch] for ch in text[:t + 1]])
    e = torch.tensor(lm.tensors["embed.weight"], dtype=torch.float64)[ids].requires_grad_(True)
    h0, c0 = (torch.tensor(a, dtype=torch.float64)[:, None] for a in ins.start_state(lm))
    out, _ = rnn(e[None], (h0, c0) if lm.cell == "lstm" else h0)
    logits = out[0, -1] @ torch.tensor(lm.W_y, dtype=torch.float64).T + torch.tensor(lm.b_y, dtype=torch.float64)
    torch.log_softmax(logits, -1)[lm.stoi[text[t + 1]]].backward()
    return e.grad.norm(dim=1).numpy()


@needs_model
def test_start_state_is_the_one_run_reads_from(lm):
    """connectivity and the gates must start where CharLM.run starts (whatever that becomes)."""
    h, c = ins.start_state(lm)
    _, h1, c1 = lm.step(lm.stoi["B"], h, c)
    tr = lm.run("BIANCA")
    np.testing.assert_array_equal(tr.h[0], h1)
    np.testing.assert_array_equal(tr.c[0], c1)
    h_all, c_all = ins.run_states(lm, "BIANCA")
    np.testing.assert_array_equal(h_all, tr.h)
    np.testing.assert_array_equal(c_all, tr.c)


@needs_model
@pytest.mark.parametrize("t", [0, 7, 80])
def test_connectivity_matches_torch_autograd_on_the_shipped_model(lm, t):
    text = EXCERPT[:200]
    ours = ins.connectivity(lm, text, t)
    ref = torch_connectivity(lm, text, t)
    assert ours.shape == (t + 1,)
    np.testing.assert_allclose(ours, ref, rtol=1e-4, atol=1e-4 * ref.max())


@pytest.mark.parametrize("cell,nl", [("gru", None), ("rnn", "tanh"), ("rnn", "relu"), ("lstm", None)])
def test_connectivity_matches_torch_for_every_cell(cell, nl):
    m = tiny(cell, seed=3, nonlinearity=nl)
    text = "abc de\nedcba a\nbad cab"
    if nl == "relu":  # the runner really runs relu (no negative state), and some units are switched off
        h = ins.run_states(m, text)[0]
        assert (h >= 0).all() and (h == 0).any()
    for t in (0, 5, len(text) - 2):
        np.testing.assert_allclose(ins.connectivity(m, text, t), torch_connectivity(m, text, t), rtol=1e-4, atol=1e-9)


def test_connectivity_refuses_a_position_with_nothing_to_predict():
    m = tiny("lstm")
    with pytest.raises(ValueError, match="t must be"):
        ins.connectivity(m, "abc", 2)


@needs_model
def test_speaker_names_drive_the_colon(lm, excerpt_states):
    """For each colon that ends a speaker's name in the excerpt's first 600 characters, the strongest source of
    the prediction lies inside the name, and most of the connectivity falls on the name's letters."""
    text = EXCERPT[:600]
    names = [m.span(1) for m in re.finditer(r"(?m)(?:(?<=\n\n)|\A)([A-Z][a-zA-Z]*(?: [A-Z][a-zA-Z]*)*):$", text)]
    assert len(names) == 7
    states = excerpt_states[0][:600], excerpt_states[1][:600]
    shares = []
    for a, b in names:
        conn = ins.connectivity(lm, text, b - 1, states)
        assert a <= int(np.argmax(conn)) < b
        shares.append(conn[a:b].sum() / conn.sum())
    assert min(shares) > 0.6 and np.median(shares) > 0.7


@needs_model
def test_gates_rebuild_the_cell_state_and_saturation_matches_our_measurement(lm, excerpt_states):
    states = excerpt_states
    gates = ins.gate_values(lm, EXCERPT, states)
    short = ins.gate_values(lm, EXCERPT[:50])  # without states: it runs the text itself
    np.testing.assert_allclose(short[1]["o"], gates[1]["o"][:50], rtol=1e-6)
    # the gates recomputed in one batch give back the run's cell states: c_t = f c_{t-1} + i g
    n = 400
    full = ins._forward(lm, lm.encode(EXCERPT[:n]), states[0][:n], states[1][:n])
    c_prev = np.concatenate([ins.start_state(lm)[1][None], states[1][:n - 1]])
    for k, parts in enumerate(full):
        i, f, g, o = (parts[name] for name in ("i", "f", "g", "o"))
        np.testing.assert_allclose(f * c_prev[:, k] + i * g, states[1][:n, k], rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(o, gates[k]["o"][:n], rtol=1e-6)
    assert [sorted(layer) for layer in gates] == [["f", "i", "o"]] * 2
    sat = ins.saturation(gates)
    means = [(round(float(sat[k]["f"][0].mean()), 3), round(float(sat[k]["f"][1].mean()), 3)) for k in range(2)]
    assert means == [(0.166, 0.542), (0.13, 0.647)]
