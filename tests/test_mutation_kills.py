"""Tests that mutation testing showed were missing (README "Development"; the mutants they kill are listed in
tests/mutation_survivors.md). Each asserts a number or a text a caller would see, through public functions."""
import json
import re

import numpy as np
import pytest
import torch

from rnnviz.nn.cells import singular_values
from rnnviz.nn.params import classifier_params, lm_params, millions


def test_millions_at_its_boundaries():
    # a million and more: one decimal; a thousand and more: two significant figures; below, the count itself
    assert millions(1_000_000) == "1.0 M"
    assert millions(1_150_001) == "1.2 M"  # 1.150001, rounded up: the divisor is exactly a million
    assert millions(999_999) == "1 M"
    assert millions(135_000) == "0.14 M"
    assert millions(1_000) == "0.001 M"
    assert millions(999) == "999"
    assert millions(0) == "0"


@pytest.mark.parametrize("cell,module", [("rnn", torch.nn.RNN), ("gru", torch.nn.GRU), ("lstm", torch.nn.LSTM)])
def test_a_deep_language_models_count_equals_torchs(cell, module):
    V, E, H, L = 30, 7, 11, 3
    parts = lm_params(cell, V, E, H, num_layers=L)
    assert parts["cell"] == sum(p.numel() for p in module(E, H, num_layers=L).parameters())
    assert parts["total"] == V * E + parts["cell"] + H * V + V


def test_singular_values_are_torchs_largest_first():
    W = np.random.default_rng(0).normal(size=(5, 5))
    s = singular_values(W)
    assert isinstance(s, np.ndarray) and s.shape == (5,)
    np.testing.assert_allclose(s, torch.linalg.svdvals(torch.from_numpy(W)).numpy(), rtol=1e-12)
    np.testing.assert_allclose(singular_values(2.0), [2.0])  # a scalar weight is a 1 x 1 matrix
    assert singular_values(np.diag([1.0, 3.0, 2.0])).tolist() == pytest.approx([3.0, 2.0, 1.0])


# ---- the NumPy sampler (rnnviz.charlm.runner) -----------------------------------------------------------------------
def small_model():
    from tests.test_generation import make_model

    return make_model("lstm", seed=8)


@pytest.mark.parametrize("kwargs,message", [
    ({"length": -1}, "length must be 0 or more"),
    ({"prime": ""}, "the prime text must hold at least one character"),
    ({"temperature": 0.0}, "temperature must be a positive number"),
    ({"temperature": -0.5}, "temperature must be a positive number"),
    ({"temperature": float("nan")}, "temperature must be a positive number"),
    ({"temperature": float("inf")}, "temperature must be a positive number"),
])
def test_generation_refuses_what_it_cannot_do(kwargs, message):
    lm = small_model()
    args = {"prime": "ab", "length": 5} | kwargs
    with pytest.raises(ValueError, match=f"^{message}"):
        lm.generate_trace(**args)


def test_unknown_characters_are_named_twenty_at_most():
    lm = small_model()  # its vocabulary is a-j
    with pytest.raises(ValueError, match=r"^not in the model's vocabulary: 'A', 'B', .* 't', 'u' and 5 more$") as e:
        lm.encode("abc" + "klmnopqrstuvwxyzABCDEFGHI")  # 25 unknown, sorted: the first 20 are named
    assert len(re.findall(r"'.'", str(e.value))) == 20
    with pytest.raises(ValueError, match=r"^not in the model's vocabulary: 'x', 'y'$"):
        lm.encode("xyab")
    twenty = "klmnopqrstuvwxyzABCD"
    with pytest.raises(ValueError) as e:
        lm.encode(twenty)
    assert "more" not in str(e.value) and len(re.findall(r"'.'", str(e.value))) == 20


def test_a_loaded_models_arrays_cannot_be_written():
    lm = small_model()
    for a in (lm.W_y, lm.b_y, lm.embed, lm.W_ih[0], lm.W_hh[1], lm.W_stack[1], lm.b_stack[1], lm.table):
        with pytest.raises(ValueError, match="read-only"):
            a[..., 0] = 1.0


def test_every_steps_distribution_of_a_long_run_is_kept():
    lm = small_model()
    tr = lm.generate_trace("abc", 600, temperature=1.4, seed=0)  # more steps than one block of 256
    for t in (0, 255, 256, 257, 511, 512, 602):
        np.testing.assert_allclose(tr.probs[t], tr.probs_at(t), rtol=1e-6)
    assert len(tr.sampled_probs) == 600 and tr.probs.shape == (603, 10)
    assert tr.probs.dtype == tr.probs_at(5).dtype == tr.sampled_at(5).dtype == np.float32  # as documented: memory


def test_load_bytes_applies_the_limits_it_is_given():
    import dataclasses

    from safetensors.numpy import save

    from rnnviz.charlm import CheckpointError
    from rnnviz.charlm.checkpoint import UPLOAD_LIMITS
    from rnnviz.charlm.runner import load_bytes

    lm = small_model()
    weights, card = save({k: np.array(v) for k, v in lm.tensors.items()}), json.dumps(lm.card)
    assert load_bytes(weights, card).generate("ab", 20, seed=1) == lm.generate("ab", 20, seed=1)
    tight = dataclasses.replace(UPLOAD_LIMITS, max_file_bytes=len(weights) - 1)
    with pytest.raises(CheckpointError, match="the limit is"):
        load_bytes(weights, card, tight)


# ---- parameter counts and the torch reference ------------------------------------------------------------------------
def test_classifier_parts_are_named_and_add_up():
    parts = classifier_params("gru", 16, 32, 5, vocab_size=100, num_layers=2, bidirectional=True)
    gru = torch.nn.GRU(16, 32, num_layers=2, bidirectional=True)
    assert parts == {"embedding": 100 * 16, "cell": sum(p.numel() for p in gru.parameters()),
                     "output": 64 * 5 + 5, "total": 100 * 16 + sum(p.numel() for p in gru.parameters()) + 64 * 5 + 5}


def test_without_torch_the_reference_says_how_to_install_it(monkeypatch):
    import sys

    from rnnviz.nn.torch_ref import TORCH_INSTALL, TorchMissing, import_torch

    monkeypatch.setitem(sys.modules, "torch", None)  # import torch now raises ImportError
    with pytest.raises(TorchMissing, match=f"not installed here: {re.escape(TORCH_INSTALL)}$"):
        import_torch()


def test_torch_reference_relu_bidirectional_and_missing_biases():
    from rnnviz.nn.cells import init_weights, rnn_forward
    from rnnviz.nn.torch_ref import torch_cell

    rng = np.random.default_rng(3)
    x = rng.normal(size=(6, 2))
    w = init_weights("rnn", 2, 3, seed=1)
    w["W_hh"] = w["W_hh"] * 3  # large enough that relu and tanh differ
    m = torch_cell("rnn", w, nonlinearity="relu")
    with torch.no_grad():
        out = m(torch.from_numpy(x)[None])[0][0].numpy()
    h, want = np.zeros(3), []
    for t in range(6):
        h = np.maximum(w["W_ih"] @ x[t] + w["b_ih"] + w["W_hh"] @ h + w["b_hh"], 0)
        want.append(h)
    np.testing.assert_allclose(out, want, atol=1e-12)
    # no biases given: zeros; a second set of weights: the right-to-left direction of a bidirectional module
    fw, bw = {"W_ih": w["W_ih"], "W_hh": w["W_hh"]}, init_weights("rnn", 2, 3, seed=2)
    m = torch_cell("rnn", fw, w_reverse=bw)
    with torch.no_grad():
        out = m(torch.from_numpy(x)[None])[0][0].numpy()
    np.testing.assert_allclose(out[:, :3], rnn_forward(x, **fw).h, atol=1e-12)
    np.testing.assert_allclose(out[:, 3:], rnn_forward(x[::-1], **bw).h[::-1], atol=1e-12)


def test_a_two_character_texts_loss_is_one_characters_surprise():
    lm = small_model()
    p = lm.run("ab").probs  # from the default start state, like loss
    assert lm.loss("ab") == pytest.approx(-np.log(float(p[0][lm.stoi["b"]])), rel=1e-5)
    assert lm.loss("a") == 0.0  # nothing to predict


# ---- float64 throughout, and gradients that overflowed ---------------------------------------------------------------
def test_output_layer_and_clipping_compute_in_float64_whatever_they_are_given():
    from rnnviz.nn.cells import output_layer
    from rnnviz.nn.gradients import clip_by_norm

    rng = np.random.default_rng(4)
    h, W = rng.normal(size=(3, 5)).astype(np.float32), rng.normal(size=(4, 5)).astype(np.float32)
    y = output_layer(h, W)
    assert y.dtype == np.float64
    np.testing.assert_allclose(y, h.astype(np.float64) @ W.astype(np.float64).T, rtol=1e-13)
    g = rng.normal(size=7).astype(np.float32) * 10
    clipped, norm, _ = clip_by_norm(g, 1.0)
    assert clipped.dtype == np.float64 and norm == pytest.approx(np.linalg.norm(g.astype(np.float64)), rel=1e-13)
    p = torch.nn.Parameter(torch.zeros(7, dtype=torch.float64))
    p.grad = torch.from_numpy(g.astype(np.float64))
    torch.nn.utils.clip_grad_norm_([p], 1.0)
    np.testing.assert_allclose(clipped, p.grad.numpy(), rtol=1e-13)


@pytest.mark.parametrize("bad", [np.inf, np.nan])
def test_a_gradient_that_left_float64_is_not_applied(bad):
    from rnnviz.nn.gradients import clip_by_norm

    with np.errstate(invalid="ignore"):  # inf * 0
        _, norm, scale = clip_by_norm(np.array([bad, 1.0]), 1.0)
    assert not np.isfinite(norm) and scale == 0.0


def test_entropies_of_float32_distributions_are_computed_in_float64():
    from rnnviz.nn.sampling import entropies

    P = np.random.default_rng(5).dirichlet(np.ones(65), size=4).astype(np.float32)  # as Trace.probs keeps them
    P64 = P.astype(np.float64)
    want = -(P64 * np.log(P64)).sum(axis=1)
    got = entropies(P)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-13)


def test_one_hot_takes_ids_written_as_floats():
    from rnnviz.nn.cells import one_hot

    np.testing.assert_array_equal(one_hot([2.0, 0.0], 3), [[0, 0, 1], [1, 0, 0]])


# ---- the loss gradient through time, every cell (the 200-step comparison in test_gradients.py is left out of the
# mutation run for time; this short one checks the same outputs) ---------------------------------------------------
@pytest.mark.parametrize("cell", ["rnn", "lstm", "gru"])
def test_loss_gradients_through_time_match_autograd(cell):
    from rnnviz.nn import cells, gradients

    T, d, H = 9, 2, 4
    torch.manual_seed(11)
    m = {"rnn": torch.nn.RNNCell, "lstm": torch.nn.LSTMCell, "gru": torch.nn.GRUCell}[cell](d, H).double()
    w = {k: getattr(m, n).detach().numpy() for k, n in
         [("W_ih", "weight_ih"), ("W_hh", "weight_hh"), ("b_ih", "bias_ih"), ("b_hh", "bias_hh")]}
    x, h0, c0 = torch.randn(T, d, dtype=torch.float64), torch.randn(H, dtype=torch.float64), torch.zeros(H)
    g = torch.randn(H, dtype=torch.float64)
    hs, c = [h0.clone().requires_grad_(True)], c0.double()
    for t in range(T):
        if cell == "lstm":
            h, c = m(x[t:t + 1], (hs[-1][None], c[None]))
            h, c = h[0], c[0]
        else:
            h = m(x[t:t + 1], hs[-1][None])[0]
        h.retain_grad()
        hs.append(h)
    (hs[-1] @ g).backward()
    kw = {"c0": c0.numpy()} if cell == "lstm" else {}
    tr = getattr(cells, f"{cell}_forward")(x.numpy(), **w, h0=h0.numpy(), **kw)
    rep = getattr(gradients, f"{cell}_gradients")(tr, w["W_hh"], g=g.numpy())
    assert rep.steps_back.tolist() == list(range(T + 1))
    for k in range(T + 1):
        want = hs[T - k].grad.numpy()
        np.testing.assert_allclose(rep.loss_grads[k], want, rtol=1e-10, atol=1e-14)
        assert rep.log10_loss_grad[k] == pytest.approx(np.log10(np.linalg.norm(want)), abs=1e-10)
        np.testing.assert_allclose(rep.loss_grad_dirs[k], want / np.linalg.norm(want), atol=1e-10)


def test_load_checks_both_files_sizes_against_the_limits_it_is_given(tmp_path):
    import dataclasses

    from safetensors.numpy import save_file

    from rnnviz.charlm import CheckpointError
    from rnnviz.charlm.checkpoint import LOCAL_LIMITS
    from rnnviz.charlm.runner import load

    lm = small_model()
    path = tmp_path / "m.safetensors"
    save_file({k: np.array(v) for k, v in lm.tensors.items()}, str(path))
    (tmp_path / "m.json").write_text(json.dumps(lm.card))
    size, card_size = path.stat().st_size, (tmp_path / "m.json").stat().st_size
    exact = dataclasses.replace(LOCAL_LIMITS, max_file_bytes=size, max_card_bytes=card_size)
    assert load(path, exact).generate("ab", 10, seed=2) == lm.generate("ab", 10, seed=2)  # at the limit: accepted
    with pytest.raises(CheckpointError, match=rf"^m\.safetensors is larger than {(size - 1) / 2**20:g} MiB$"):
        load(path, dataclasses.replace(exact, max_file_bytes=size - 1))
    with pytest.raises(CheckpointError, match=rf"^m\.json is larger than {card_size - 1:,} bytes$"):
        load(path, dataclasses.replace(exact, max_card_bytes=card_size - 1))
    with pytest.raises(CheckpointError, match="limit is 5"):  # the card's own checks use the same limits
        load(path, dataclasses.replace(exact, max_vocab=5))


def test_a_closed_forget_gate_cuts_the_path_silently():
    import warnings

    from rnnviz.nn.cells import init_weights, lstm_forward
    from rnnviz.nn.gradients import lstm_gradients

    w = init_weights("lstm", 1, 2, seed=0, forget_bias=-2000.0)  # sigmoid(-2000) is exactly 0 in float64
    tr = lstm_forward(np.zeros((3, 1)), **w)
    assert (tr.f == 0).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "divide by zero" warning reaches the page's log
        rep = lstm_gradients(tr, w["W_hh"])
    assert np.isneginf(rep.log10_forget_path[1:]).all() and (rep.log10_forget_path[0] == 0).all()


def test_every_trace_keeps_its_inputs():
    from rnnviz.nn.cells import gru_forward, init_weights, lstm_forward, rnn_forward

    x = np.random.default_rng(6).normal(size=(4, 2))
    for cell, forward in (("rnn", rnn_forward), ("lstm", lstm_forward), ("gru", gru_forward)):
        np.testing.assert_array_equal(forward(x, **init_weights(cell, 2, 3)).x, x)
