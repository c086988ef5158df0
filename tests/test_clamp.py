"""Switch a unit off (rnnviz.charlm.Clamp, rnnviz.lessons.clamp): with no unit clamped the sampler is bit for bit the
one before clamps existed; a clamped run equals a torch forward whose hook overwrites the same unit (written here,
independently of the runner); and what the sampling page measures of it (KL per character, text statistics)."""
import numpy as np
import pytest
import torch

from rnnviz import charlm
from rnnviz.charlm import Clamp
from rnnviz.charlm.inspect import FEATURES
from rnnviz.lessons import clamp as C, sample as L
from rnnviz.nn.sampling import SamplingSettings
from tests.helpers import tiny_checkpoint

SHIPPED = charlm.SHIPPED_MODEL
needs_model = pytest.mark.skipif(not SHIPPED.exists(), reason="the shipped model is missing")


@pytest.fixture(scope="module")
def lm():
    return charlm.load(SHIPPED)


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread():
    """One character at a time through small modules: one thread is 5x faster than two on a busy machine."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def frozen_step(self, idx, h, c, clamp=None):
    """CharLM.step exactly as it was before clamps (2b0d4e8), for the bit-for-bit check."""
    assert clamp is None
    h, c = h.copy(), c.copy()
    kind, inp = self.cell_type, None
    for k in range(self.num_layers):
        if kind.sums_inputs:
            gh = None
            if k == 0:
                gi = self._input0(idx) + self.W_hh[0] @ h[0] + self.b_hh[0]
            else:
                gi = self.W_stack[k] @ np.concatenate([inp, h[k]]) + self.b_stack[k]
        else:
            gi = self._input0(idx) if k == 0 else self.W_ih[k] @ inp + self.b_ih[k]
            gh = self.W_hh[k] @ h[k] + self.b_hh[k]
        h[k], c_k, _ = kind.step(gi, gh, h[k], c[k])
        c[k] = c_k
        inp = h[k]
    return self.W_y @ inp + self.b_y, h, c


def models():
    out = [charlm.load_bytes(*tiny_checkpoint(cell, layers=2)) for cell in ("gru", "rnn", "lstm")]
    return out + ([charlm.load(SHIPPED)] if SHIPPED.exists() else [])


@pytest.mark.parametrize("model", models(), ids=lambda m: f"{m.cell}{m.hidden_size}")
def test_no_clamp_is_bit_for_bit_the_sampler_before_clamps(model, monkeypatch):
    prime = "ROMEO:" if "R" in model.stoi else "ab c"
    settings = [dict(temperature=0.8, seed=1), dict(temperature=1.5, top_k=5, seed=7), dict(top_p=0.5, seed=3),
                dict(top_k=1), dict(seed=2, forced=((3, model.itos[1]),))]
    now = [model.draw(SamplingSettings(prime, 60, **s)) for s in settings]
    monkeypatch.setattr(model, "step", frozen_step.__get__(model))
    before = [model.draw(SamplingSettings(prime, 60, **s)) for s in settings]
    for a, b in zip(now, before):
        assert a.text == b.text and a.h.tobytes() == b.h.tobytes() and a.p_char.tobytes() == b.p_char.tobytes()
        assert (a.c is None and b.c is None) or a.c.tobytes() == b.c.tobytes()


def torch_layers(model: charlm.CharLM):
    """The checkpoint as an embedding, one single-layer torch module per layer and a head, float64."""
    t = {k: torch.tensor(v, dtype=torch.float64) for k, v in model.tensors.items()}
    kind = model.cell_type.torch_module
    layers = []
    for k in range(model.num_layers):
        m = getattr(torch.nn, kind)(t[f"rnn.weight_ih_l{k}"].shape[1], model.hidden_size, batch_first=True,
                                    dtype=torch.float64)
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            getattr(m, f"{name}_l0").data.copy_(t[f"rnn.{name}_l{k}"])
        layers.append(m)
    return t["embed.weight"], layers, t["head.weight"], t["head.bias"]


def torch_probs(model: charlm.CharLM, text: str, clamp: Clamp | None) -> np.ndarray:
    """Next-character probabilities after each character of warmup + text, one character at a time, the clamp a
    forward hook on its layer's module that overwrites the unit in the output and in the state it hands on."""
    emb, layers, W, b = torch_layers(model)

    def hook(module, inputs, output):
        out, state = output
        out = out.clone()
        if clamp.kind == "h":
            out[..., clamp.unit] = clamp.value
            state = state.clone() if isinstance(state, torch.Tensor) else (state[0].clone(), state[1].clone())
            (state if isinstance(state, torch.Tensor) else state[0])[..., clamp.unit] = clamp.value
        else:  # the LSTM's cell state: what the next step reads
            state = (state[0], state[1].clone())
            state[1][..., clamp.unit] = clamp.value
        return out, state

    if clamp is not None:
        layers[clamp.layer].register_forward_hook(hook)
    states = [None] * len(layers)
    probs = []
    with torch.no_grad():
        for ch in model.warmup + text:
            x = emb[model.stoi[ch]].view(1, 1, -1)
            for k, m in enumerate(layers):
                x, states[k] = m(x, states[k])
            probs.append(torch.softmax(x[0, 0] @ W.T + b, -1).numpy())
    return np.array(probs)[len(model.warmup):]


@needs_model
@pytest.mark.parametrize("clamp", [Clamp(1, "c", 414, 0.0), Clamp(0, "h", 200, 0.0), Clamp(1, "h", 7, 0.9),
                                   Clamp(0, "c", 86, -2.5)], ids=str)
def test_a_clamp_equals_a_torch_forward_hook(lm, clamp):
    text = "ROMEO:\nWhat say you, sir? I will not go.\nJULIET:\nThen stay."
    got = lm.run(text, clamp=clamp)
    want = torch_probs(lm, text, clamp)
    free = torch_probs(lm, text, None)
    np.testing.assert_allclose(got.probs, want, atol=1e-6)
    assert np.abs(want - free).max() > 1e-3  # the hook changes what the model predicts
    held = (got.c if clamp.kind == "c" else got.h)[:, clamp.layer, clamp.unit]
    assert (held == np.float32(clamp.value)).all()


@pytest.mark.parametrize("cell", ["gru", "rnn"])
def test_a_clamp_equals_a_torch_hook_in_cells_without_a_cell_state(cell):
    model = charlm.load_bytes(*tiny_checkpoint(cell, layers=2))
    clamp = Clamp(0, "h", 3, 0.5)
    np.testing.assert_allclose(model.run("ab cab:\nba", clamp=clamp).probs, torch_probs(model, "ab cab:\nba", clamp),
                               atol=1e-6)
    with pytest.raises(ValueError, match="no unit c"):
        model.run("ab", clamp=Clamp(0, "c", 3, 0.5))
    for bad in (Clamp(2, "h", 0, 0.0), Clamp(0, "h", 8, 0.0), Clamp(0, "h", 0, float("nan"))):
        with pytest.raises(ValueError):
            model.draw(SamplingSettings("ab", 3), clamp=bad)


@needs_model
def test_the_clamp_effect_is_what_torch_says(lm):
    s = SamplingSettings("ROMEO:", 80, 0.8, None, None, 1)
    before = L.draw_sample(lm, s)
    clamp = Clamp(1, "c", 414, 9.0)  # the finder's line-position unit, held where a line has just begun
    e = C.clamp_effect(lm, s, before, clamp, reference="ab\ncd\n")
    p, q = torch_probs(lm, before.text, None)[:-1], torch_probs(lm, before.text, clamp)[:-1]
    kl = (p * (np.log(p) - np.log(q))).sum(axis=1)  # row i predicts before.text[i + 1]
    assert np.isnan(e.kl[0]) and np.allclose(e.kl[1:], kl, atol=1e-6, rtol=1e-5)
    np.testing.assert_allclose(e.p_after[1:], q, atol=1e-6)
    ids = np.array([lm.stoi[ch] for ch in before.text])
    breaks = np.flatnonzero(ids[1:] == lm.stoi["\n"])  # rows predicting a line break of the first text
    want = (p[breaks, ids[1:][breaks]].mean(), q[breaks, ids[1:][breaks]].mean())
    assert np.allclose(e.char_p["position in line"], want, atol=1e-6)
    after = lm.draw(s, clamp=clamp).text
    assert e.after == after and e.before == before.text
    assert e.first_change is not None and e.before[:e.first_change] == e.after[:e.first_change]
    assert e.before[e.first_change] != e.after[e.first_change]
    assert e.statistics["position in line"][2] == 2.0 and e.statistics["start of line"][2] == 2.0


def test_text_statistics():
    text = 'ROMEO:\nI say "no" now.\nJULIET:\nAy'
    assert C.line_lengths(text) == [6, 15, 7]
    st = {f: fn(text) for f, fn in C.STATISTICS.items()}
    assert C.speech_line_lengths(text + "\n\nROMEO:\n") == [15, 2]  # empty lines and speaker names left out
    assert st["position in line"] == 15 and st["speaker name"] == 2 and st["start of line"] == 3
    assert st["newline"] == pytest.approx(300 / len(text)) and st["inside quotes"] == pytest.approx(200 / len(text))
    assert np.isnan(C.STATISTICS["position in line"]("no line break"))
    assert set(C.STATISTICS) == set(FEATURES)
