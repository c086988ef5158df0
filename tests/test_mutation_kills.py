"""Tests that mutation testing showed were missing (README "Development"; the mutants they kill are listed in
tests/mutation_survivors.md). Each asserts a number or a text a caller would see, through public functions."""
import json
import re

import numpy as np
import pytest
import torch

from rnnviz.nn.cells import singular_values
from rnnviz.nn.params import classifier_params, lm_params, millions
from rnnviz.nn.sampling import SamplingSettings


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
        lm.draw(SamplingSettings(**args))
    with pytest.raises(ValueError, match=f"^{message}"):
        lm.generate(**args)


def test_unknown_characters_are_named_twenty_at_most():
    lm = small_model()  # its vocabulary is a-j
    with pytest.raises(ValueError, match=r"^not in the model's vocabulary: 'A', 'B', .* 't', 'u' and 5 more$") as e:
        lm.encode("abc" + "klmnopqrstuvwxyzABCDEFGHI")  # 25 unknown, sorted: the first 20 are named
    assert len(re.findall(r"'.'", str(e.value))) == 20
    with pytest.raises(ValueError, match=r"^not in the model's vocabulary: 'x', 'y'$"):
        lm.encode("xyab")
    with pytest.raises(ValueError, match=r"^not in the model's vocabulary: 'A', .* 'y' and 1 more$"):
        lm.encode("klmnopqrstuvwxyzABCDE")  # 21 unknown: the 21st is counted, not named
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
    tr = lm.draw(SamplingSettings("abc", 600, temperature=1.4, seed=0))  # more steps than one block of 256
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
    rep = gradients.gradients_through_time(cell, {"W_hh": w["W_hh"]}, tr, g=g.numpy())
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
    from rnnviz.nn.gradients import gradients_through_time

    w = init_weights("lstm", 1, 2, seed=0, forget_bias=-2000.0)  # sigmoid(-2000) is exactly 0 in float64
    tr = lstm_forward(np.zeros((3, 1)), **w)
    assert (tr.f == 0).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "divide by zero" warning reaches the page's log
        rep = gradients_through_time("lstm", {"W_hh": w["W_hh"]}, tr)
    assert np.isneginf(rep.log10_forget_path[1:]).all() and (rep.log10_forget_path[0] == 0).all()


def test_every_trace_keeps_its_inputs():
    from rnnviz.nn.cells import gru_forward, init_weights, lstm_forward, rnn_forward

    x = np.random.default_rng(6).normal(size=(4, 2))
    for cell, forward in (("rnn", rnn_forward), ("lstm", lstm_forward), ("gru", gru_forward)):
        np.testing.assert_array_equal(forward(x, **init_weights(cell, 2, 3)).x, x)


# ---- the fourth stop's survivors (tests/mutation_survivors.md): types, shapes, initialisations, reports -------------
def _cell_params(name: str, d: int = 3, H: int = 4, seed: int = 0) -> dict:
    from rnnviz.nn.cells import get

    return get(name).init(d, H if name != "selective" else 2 * d, np.random.default_rng(seed))


ALL_CELLS = ["rnn", "lstm", "gru", "linear", "mingru", "minlstm", "lru", "selective"]
SCAN_CELLS = ["linear", "mingru", "minlstm", "lru", "selective"]


@pytest.mark.parametrize("name", ALL_CELLS)
def test_every_cell_reads_integer_inputs_and_keeps_them_as_float64(name):
    from rnnviz.nn.cells import get

    cell, params = get(name), _cell_params(name)
    x = np.array([[1, 0, -2], [0, 3, 1], [2, 2, 0]])  # integers, as a page's typed sequence may arrive
    n = cell.state_size(len(cell.forward(params, x.astype(np.float64)).h[0]))
    s0 = np.arange(n) % 3 - 1  # an integer start state
    tr, ref = cell.forward(params, x, s0), cell.forward(params, x.astype(np.float64), s0.astype(np.float64))
    assert tr.x.dtype == np.float64 and np.array_equal(tr.x, x)
    assert tr.h0.dtype == (np.complex128 if name == "lru" else np.float64)
    np.testing.assert_array_equal(tr.states, ref.states)
    np.testing.assert_array_equal(tr.h0, ref.h0)


@pytest.mark.parametrize("name", ["linear", "mingru", "minlstm", "selective", "lru"])
def test_a_scan_cells_step_from_float32_weights_and_input_is_the_float64_step(name):
    from rnnviz.nn.cells import get

    cell, params = get(name), _cell_params(name, seed=3)
    p32 = {k: v.astype(np.float32) for k, v in params.items()}
    p64 = {k: v.astype(np.float64) for k, v in p32.items()}  # the same numbers, widened
    x_t = np.array([0.3, -1.7, 0.9], dtype=np.float32)
    tr = cell.forward(p64, x_t[None].astype(np.float64))
    h_prev = tr.h0 + 0.25
    if name == "linear":  # its step multiplies what it is given: widen the input as a caller does
        x_t = x_t.astype(np.float64)
    out, ref = cell.step(p32, h_prev, x_t), cell.step(p64, h_prev, x_t.astype(np.float64))
    assert out.dtype == ref.dtype and ref.dtype in (np.float64, np.complex128)
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("name", ["linear", "mingru", "minlstm", "lru", "selective"])
def test_a_scan_cell_given_float32_weights_answers_in_float64(name):
    from rnnviz.nn.cells import get

    cell, params = get(name), _cell_params(name, seed=4)
    p32 = {k: v.astype(np.float32) for k, v in params.items()}
    p64 = {k: v.astype(np.float64) for k, v in p32.items()}
    x = np.random.default_rng(1).normal(size=(4, 3))
    tr, ref = cell.forward(p32, x), cell.forward(p64, x)
    for key in ("a", "b", "h", "states"):
        assert getattr(tr, key).dtype in (np.float64, np.complex128), key
        np.testing.assert_allclose(getattr(tr, key), getattr(ref, key), rtol=1e-12, atol=1e-14)
    J, ref_J = cell.input_jacobians(p32, tr), cell.input_jacobians(p64, ref)
    assert J.dtype == np.float64
    np.testing.assert_allclose(J, ref_J, rtol=1e-12, atol=1e-14)


def test_each_parallel_cells_trace_keeps_its_inputs_and_parts():
    from rnnviz.nn.cells import get

    x = np.random.default_rng(2).normal(size=(5, 3))
    tr = get("mingru").forward(_cell_params("mingru"), x)
    np.testing.assert_array_equal(tr.x, x)
    p = _cell_params("minlstm")
    tr = get("minlstm").forward(p, x)
    np.testing.assert_array_equal(tr.x, x)
    f, i = tr.f, tr.i  # the normalised gates, from the paper's definitions
    np.testing.assert_allclose(tr.f_norm, f / (f + i), rtol=1e-15)
    np.testing.assert_allclose(tr.i_norm, i / (f + i), rtol=1e-15)
    np.testing.assert_array_equal(tr.a, tr.f_norm)


@pytest.mark.parametrize("name", ["rnn", "lstm", "gru"])
def test_a_torch_cells_trace_keeps_its_start_state_and_pre_activations(name):
    from rnnviz.nn.cells import get

    cell, params = get(name), _cell_params(name, seed=5)
    x = np.random.default_rng(3).normal(size=(4, 3))
    s0 = np.random.default_rng(4).normal(size=cell.state_size(4))
    tr = cell.forward(params, x, s0)
    np.testing.assert_array_equal(tr.h0, s0[:4])
    if name == "lstm":  # pre = W_ih x_t + b_ih + W_hh h_{t-1} + b_hh, each step
        h_prev = np.vstack([s0[None, :4], tr.h[:-1]])
        pre = x @ params["W_ih"].T + params["b_ih"] + h_prev @ params["W_hh"].T + params["b_hh"]
        np.testing.assert_allclose(tr.pre, pre, rtol=1e-13, atol=1e-15)
        np.testing.assert_array_equal(tr.c0, s0[4:])


def test_an_lru_starts_from_complex_zeros_or_from_either_form_of_its_state():
    from rnnviz.nn.cells import get

    cell, params = get("lru"), _cell_params("lru", seed=6)
    x = np.random.default_rng(5).normal(size=(4, 3))
    tr = cell.forward(params, x)
    assert tr.h0.dtype == np.complex128 and not tr.h0.any()
    h0 = np.array([0.5 - 0.25j, -1.0 + 0.5j, 0.2j, 0.7])
    stacked, complex_ = cell.forward(params, x, np.concatenate([h0.real, h0.imag])), cell.forward(params, x, h0)
    np.testing.assert_array_equal(complex_.h0, h0)
    np.testing.assert_array_equal(stacked.h, complex_.h)


def test_run_diagonal_answers_in_the_widest_type_and_at_least_float64():
    from rnnviz.nn.cells.linear import run_diagonal

    a, b, h0 = np.full((3, 2), 2), np.ones((3, 2), dtype=int), np.array([1, -1])
    h = run_diagonal(a, b, h0)
    assert h.dtype == np.float64 and h.tolist() == [[3.0, -1.0], [7.0, -1.0], [15.0, -1.0]]
    f32 = run_diagonal(np.full((2, 1), 0.1, np.float32), np.ones((2, 1), np.float32), np.zeros(1, np.float32))
    assert f32.dtype == np.float64
    for k in range(3):  # each of a, b, h0 complex makes the states complex
        args = [np.full((3, 2), 0.5), np.ones((3, 2)), np.array([1.0, 2.0])]
        args[k] = args[k] * 1j if k != 2 else args[k] + 1j
        h = run_diagonal(*args)
        assert h.dtype == np.complex128
        ref, prev = [], args[2]
        for t in range(3):
            prev = args[0][t] * prev + args[1][t]
            ref.append(prev)
        np.testing.assert_allclose(h, ref, rtol=1e-15)


def test_from_polar_reads_any_real_type_and_gives_exact_infinite_logs_silently():
    import warnings

    from rnnviz.nn.cells.lru import eigenvalues, from_polar

    r, theta = np.array([0.9, 0.5], np.float32), np.array([0.3, 2.0], np.float32)
    got, ref = from_polar(r, theta), from_polar(r.astype(np.float64), theta.astype(np.float64))
    for k in ref:
        assert got[k].dtype == np.float64, k
        np.testing.assert_array_equal(got[k], ref[k])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        edge = from_polar([1.0, 0.5], [0.0, 0.0])
    assert edge["nu_log"][0] == -np.inf and edge["theta_log"].tolist() == [-np.inf, -np.inf]
    lam = eigenvalues(edge)
    assert lam.tolist() == [1.0, 0.5]


@pytest.mark.parametrize("bad,message", [
    (np.zeros((3, 4)), r"^x must be \(T, 3\), got shape \(3, 4\)$"),
    (np.zeros((2, 3, 3)), r"^x must be \(T, 3\), got shape \(2, 3, 3\)$"),
])
@pytest.mark.parametrize("name", ["linear", "mingru", "minlstm", "lru"])
def test_a_scan_cell_names_the_shape_it_wanted(name, bad, message):
    from rnnviz.nn.cells import get

    with pytest.raises(ValueError, match=message):
        get(name).forward(_cell_params(name), bad)


@pytest.mark.parametrize("kwargs,message", [
    ({"x": np.zeros((2, 3, 3))}, r"^x must be \(T, input_size\), got shape \(2, 3, 3\)$"),
    ({"W_ih": np.zeros((5, 3))}, r"^W_ih has 5 rows, not a multiple of 4 gates$"),
    ({"W_hh": np.zeros((16, 3))}, r"^W_hh must be \(16, 4\), got \(16, 3\)$"),
    ({"x": np.zeros((2, 5))}, r"^x has 5 features per step but W_ih expects 3$"),
])
def test_a_torch_cell_names_the_shape_it_wanted(kwargs, message):
    from rnnviz.nn.cells import lstm_forward

    args = {"x": np.zeros((2, 3)), "W_ih": np.zeros((16, 3)), "W_hh": np.zeros((16, 4))} | kwargs
    with pytest.raises(ValueError, match=message):
        lstm_forward(**args)


def test_a_cell_without_the_optional_steps_says_which_it_lacks():
    from rnnviz.nn.cells import Cell

    class Bare(Cell):
        name = "bare"
        init = param_count = forward = step_jacobians = input_jacobians = None

    cell = Bare()
    for method, args, words in [("step", (None,) * 4, "no batched step"), ("parts", (None,), "no parts"),
                                ("local", (None,), "no local derivatives"),
                                ("backward", (None,) * 2, "no backward step")]:
        with pytest.raises(NotImplementedError, match=f"^the bare cell has {words}$"):
            getattr(cell, method)(*args)


def test_torch_options_default_to_tanh_and_the_rnn_defaults_to_tanh():
    from rnnviz.nn.cells import RNN, get

    assert get("rnn").torch_options() == {"nonlinearity": "tanh"}
    assert get("lstm").torch_options() == {}
    assert RNN().nonlinearity == "tanh" and RNN("relu").nonlinearity == "relu"
    assert get("rnn").with_nonlinearity("relu").nonlinearity == "relu"
    with pytest.raises(ValueError, match="^nonlinearity must be tanh or relu, not 'sigmoid'$"):
        RNN("sigmoid")


def test_the_lstms_backward_step_without_a_cell_gradient_is_the_one_with_zero():
    from rnnviz.nn.cells import get

    lstm, params = get("lstm"), _cell_params("lstm", seed=7)
    tr = lstm.forward(params, np.random.default_rng(6).normal(size=(3, 3)))
    local = {k: v[1] for k, v in lstm.local(lstm.parts(tr)).items()}
    dh = np.random.default_rng(7).normal(size=4)
    for a, b in zip(lstm.backward(local, dh), lstm.backward(local, dh, np.zeros(4))):
        np.testing.assert_array_equal(a, b)


# initial weights: inside the documented range and filling it (min and max near the bounds over a large draw)
def _fills(a, lo, hi, tol):
    a = np.asarray(a)
    return lo <= a.min() < lo + tol and hi - tol < a.max() <= hi


@pytest.mark.parametrize("name", ["rnn", "lstm", "gru"])
def test_torch_cells_start_uniform_in_plus_minus_one_over_root_h(name):
    from rnnviz.nn.cells import get

    d, H = 7, 300
    w = get(name).init(d, H, np.random.default_rng(0))
    k = 1 / np.sqrt(H)
    for key, arr in w.items():
        assert _fills(arr, -k, k, 0.05 * k), key


def test_a_mingru_starts_as_torch_linear_does():
    from rnnviz.nn.cells import get

    d, H = 9, 400
    w = get("mingru").init(d, H, np.random.default_rng(0))
    k = 1 / np.sqrt(d)
    for key, arr in w.items():
        assert _fills(arr, -k, k, 0.05 * k), key


def test_a_linear_cell_starts_with_a_slow_stable_memory():
    from rnnviz.nn.cells import get

    d, H = 25, 3000
    w = get("linear").init(d, H, np.random.default_rng(0))
    assert _fills(w["a"], 0.9, 0.999, 0.002)
    B = w["B"]
    assert abs(B.mean()) < 4 / np.sqrt(d) / np.sqrt(B.size) and B.std() == pytest.approx(1 / np.sqrt(d), rel=0.02)


def test_an_lru_starts_on_the_papers_ring():
    from rnnviz.nn.cells import get
    from rnnviz.nn.cells.lru import eigenvalues

    d, N = 20, 4000
    w = get("lru").init(d, N, np.random.default_rng(0))
    lam = eigenvalues(w)
    r = np.abs(lam)
    assert _fills(r, 0.9, 0.999, 2e-4)
    assert np.mean(r ** 2) == pytest.approx((0.9 ** 2 + 0.999 ** 2) / 2, abs=0.004)  # uniform on the ring's area
    assert _fills(np.angle(lam), 0.0, np.pi / 10, 0.005)
    np.testing.assert_allclose(np.exp(w["gamma_log"]), np.sqrt(1 - r ** 2), rtol=1e-10)
    for key, sd in [("B_re", 1 / np.sqrt(2 * d)), ("B_im", 1 / np.sqrt(2 * d)), ("C_re", 1 / np.sqrt(N)),
                    ("C_im", 1 / np.sqrt(N)), ("D", 1.0)]:
        assert w[key].std() == pytest.approx(sd, rel=0.02 if w[key].size > 1000 else 0.5), key


def test_a_selective_cell_starts_as_mamba_does():
    from rnnviz.nn.cells import get
    from rnnviz.nn.cells.selective import softplus

    d, N = 400, 3
    w = get("selective").init(d, d * N, np.random.default_rng(0))
    np.testing.assert_allclose(np.exp(w["A_log"]), np.tile([1.0, 2.0, 3.0], (d, 1)), rtol=1e-15)
    dt = softplus(w["b_delta"])
    assert _fills(np.log(dt), np.log(0.001) - 1e-9, np.log(0.1) + 1e-9, 0.05)
    k = 1 / np.sqrt(d)
    assert _fills(w["W_delta"], -k, k, 0.01 * k)
    for key in ("B", "C"):
        assert w[key].std() == pytest.approx(1 / np.sqrt(N), rel=0.03), key
    assert np.array_equal(w["D"], np.ones(d))


def test_init_weights_defaults_a_seed_of_zero_and_no_forget_bias():
    from rnnviz.nn.cells import init_weights

    for a, b in zip(init_weights("lstm", 3, 4).values(), init_weights("lstm", 3, 4, seed=0).values()):
        np.testing.assert_array_equal(a, b)
    w = init_weights("lstm", 3, 4)
    assert not w["b_ih"][4:8].any() and not w["b_hh"][4:8].any()  # the f block (i, f, g, o)


def test_the_forget_bias_sets_the_f_block_alone():
    from rnnviz.nn.cells import get, init_weights

    plain, biased = init_weights("lstm", 3, 4, seed=2), init_weights("lstm", 3, 4, seed=2, forget_bias=1.5)
    for key in ("b_ih", "b_hh"):
        other = np.r_[0:4, 8:16]  # the i, g and o blocks
        np.testing.assert_array_equal(biased[key][other], plain[key][other])
    assert biased["b_ih"][4:8].tolist() == [1.5] * 4 and biased["b_hh"][4:8].tolist() == [0.0] * 4
    drawn = get("lstm").init(3, 4, np.random.default_rng(2))  # init_weights' own draw, before the forget bias
    for key in ("b_ih", "b_hh"):
        np.testing.assert_array_equal(biased[key][8:], drawn[key][8:])


def test_the_spectral_radius_of_no_matrix_is_zero():
    from rnnviz.nn.cells import spectral_radius

    assert spectral_radius(np.zeros((0, 0))) == 0.0
    assert spectral_radius(np.array([[0.0, 2.0], [-2.0, 0.0]])) == pytest.approx(2.0)


# ---- gradients.py: what a report's factors and edges say ------------------------------------------------------------
def test_each_reports_factors_are_the_cells_own_parts():
    from rnnviz.nn.cells import get
    from rnnviz.nn.gradients import gradients_through_time

    x = np.random.default_rng(8).normal(size=(6, 3))
    p = _cell_params("rnn", seed=8)
    W32 = p["W_hh"].astype(np.float32)  # a torch model's weights
    tr = get("rnn").forward(p | {"W_hh": W32}, x)
    rep = gradients_through_time("rnn", {"W_hh": W32}, tr)
    np.testing.assert_allclose(rep.factors["tanh_prime"], 1 - tr.h ** 2, rtol=1e-15)
    norm = torch.linalg.matrix_norm(torch.from_numpy(W32.astype(np.float64)), ord=2).item()
    assert rep.factors["w_norm"].dtype == np.float64 and rep.factors["w_norm"].shape == (6,)
    np.testing.assert_allclose(rep.factors["w_norm"], norm, rtol=1e-14)
    p = _cell_params("lstm", seed=8)
    tr = get("lstm").forward(p, x)
    assert list(gradients_through_time("lstm", {"W_hh": p["W_hh"]}, tr).factors) == ["forget"]
    np.testing.assert_array_equal(gradients_through_time("lstm", {"W_hh": p["W_hh"]}, tr).factors["forget"], tr.f)
    p = _cell_params("gru", seed=8)
    tr = get("gru").forward(p, x)
    assert list(gradients_through_time("gru", {"W_hh": p["W_hh"]}, tr).factors) == ["update"]
    np.testing.assert_array_equal(gradients_through_time("gru", {"W_hh": p["W_hh"]}, tr).factors["update"], tr.z)


def test_the_default_loss_gradient_is_a_unit_vector_and_a_column_is_read_as_a_vector():
    from rnnviz.nn.cells import get
    from rnnviz.nn.gradients import gradients_through_time

    p = _cell_params("rnn", seed=9)
    tr = get("rnn").forward(p, np.random.default_rng(9).normal(size=(5, 3)))
    rep = gradients_through_time("rnn", {"W_hh": p["W_hh"]}, tr)
    np.testing.assert_allclose(rep.loss_grads[0], np.full(4, 0.5), rtol=1e-15)  # 1/sqrt(4) each
    assert rep.log10_loss_grad[0] == pytest.approx(0.0, abs=1e-15)
    g = np.array([1.0, -2.0, 0.5, 3.0])
    flat = gradients_through_time("rnn", {"W_hh": p["W_hh"]}, tr, g)
    column = gradients_through_time("rnn", {"W_hh": p["W_hh"]}, tr, g[:, None])
    np.testing.assert_array_equal(flat.loss_grads, column.loss_grads)


def test_a_gradient_that_dies_or_explodes_is_reported_exactly_and_silently():
    import warnings

    from rnnviz.nn.cells import get
    from rnnviz.nn.gradients import gradients_through_time

    p = _cell_params("rnn", seed=10)
    x = np.random.default_rng(10).normal(size=(4, 3))
    zero = p | {"W_hh": np.zeros((4, 4))}
    tr = get("rnn").forward(zero, x)
    lin, params = get("linear"), {"a": np.array([1e30, 1e30]), "B": np.ones((2, 1))}
    big = lin.forward(params, np.zeros((20, 1)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dead = gradients_through_time("rnn", {"W_hh": zero["W_hh"]}, tr)  # one step back, the Jacobian is exactly zero
        silent = gradients_through_time("rnn", {"W_hh": zero["W_hh"]}, tr, np.zeros(4))  # no loss gradient at all
        huge = gradients_through_time(lin, params, big, np.array([1.0, 0.0]))  # 1e600: beyond float64
    assert dead.log10_spectral[0] == 0.0 and dead.log10_spectral[1:].tolist() == [-np.inf] * 4
    assert dead.log10_loss_grad[1:].tolist() == [-np.inf] * 4
    assert not dead.loss_grad_dirs[1:].any() and not silent.loss_grad_dirs.any()
    assert silent.log10_loss_grad.tolist() == [-np.inf] * 5
    np.testing.assert_allclose(huge.log10_spectral, 30.0 * np.arange(21), rtol=1e-12)
    np.testing.assert_allclose(huge.log10_loss_grad, 30.0 * np.arange(21), rtol=1e-12)
    assert np.isinf(huge.spectral[-1])


def test_a_report_of_no_steps_is_the_identity():
    from rnnviz.nn.cells import get
    from rnnviz.nn.gradients import gradients_through_time

    lin = get("linear")
    params = {"a": np.array([0.5, 0.7]), "B": np.ones((2, 1))}
    rep = gradients_through_time(lin, params, lin.forward(params, np.zeros((0, 1))))
    assert rep.steps_back.tolist() == [0]
    np.testing.assert_array_equal(rep.jacobians[0], np.eye(2))


def test_the_decay_table_is_float64_and_keeps_its_steps():
    from rnnviz.nn.gradients import decay_table

    tab = decay_table([0, 2, 3])
    assert sorted(tab) == ["lstm", "lstm_f1", "t", "vanilla"]
    assert tab["t"].tolist() == [0.0, 2.0, 3.0]
    for key, want in [("vanilla", [1.0, 0.45 ** 2, 0.45 ** 3]), ("lstm", [1.0, 0.81, 0.729]), ("lstm_f1", [1.0] * 3)]:
        assert tab[key].dtype == np.float64, key
        np.testing.assert_allclose(tab[key], want, rtol=1e-14)


# ---- sampling, counts, the torch reference --------------------------------------------------------------------------
def test_filtering_a_float32_distribution_answers_in_float64():
    from rnnviz.nn.sampling import filter_probs

    p = np.array([0.1, 0.6, 0.3], np.float32)
    q = filter_probs(p, top_k=2)
    assert q.dtype == np.float64
    ref = np.array([0.0, 0.6, 0.3], np.float32).astype(np.float64)
    np.testing.assert_allclose(q, ref / ref.sum(), rtol=1e-15)


def test_millions_switches_to_billions_and_trillions_at_rounding_and_drops_a_bare_point():
    # billions print three figures: from 999.5 B they would round to "1.00e+03 B" (as they did until this test)
    assert millions(999_500_000_000) == "1.00 T" and millions(999_499_999_999) == "999 B"
    assert millions(100_000_000_000_000) == "100 T" and millions(100_000_000_000) == "100 B"
    assert millions(1_375_000_000_000) == "1.38 T" and millions(1_375_000_000) == "1.38 B"  # halves round to even


def test_the_torch_reference_names_a_cell_torch_lacks():
    from rnnviz.nn.torch_ref import torch_cell

    with pytest.raises(ValueError, match="^torch.nn has no mingru cell$"):
        torch_cell("mingru", {"W_ih": np.zeros((2, 1)), "W_hh": np.zeros((2, 2))})


# ---- the runner: clamps, defaults, what a trace keeps ---------------------------------------------------------------
@pytest.mark.parametrize("cell,clamp,ok", [
    ("lstm", (0, "h", 0, 1.0), True), ("lstm", (1, "c", 11, -2.0), True), ("gru", (1, "h", 11, 0.5), True),
    ("gru", (0, "c", 0, 1.0), False), ("lstm", (2, "h", 0, 1.0), False), ("lstm", (-1, "h", 0, 1.0), False),
    ("lstm", (0, "h", 12, 1.0), False), ("lstm", (0, "h", -1, 1.0), False), ("lstm", (0, "h", 0, np.inf), False),
    ("lstm", (0, "h", 0, np.nan), False), ("lstm", (0, "x", 0, 1.0), False), ("gru", (2, "h", 0, 1.0), False),
    ("gru", (0, "h", 12, 1.0), False),
])
def test_a_clamp_fits_the_model_or_says_what_it_lacks(cell, clamp, ok):
    from rnnviz.charlm.runner import Clamp
    from tests.test_generation import make_model

    lm, c = make_model(cell), Clamp(*clamp)  # two layers of 12 units
    if ok:
        c.check(lm)
    else:
        msg = re.escape(f"no unit {c.kind}[{c.layer}][{c.unit}] = {c.value} to clamp in this model")
        with pytest.raises(ValueError, match=f"^{msg}$"):
            c.check(lm)


def test_a_clamped_run_holds_its_unit_through_the_start_text_too():
    from rnnviz.charlm.runner import Clamp

    lm = small_model()
    clamp = Clamp(0, "c", 3, 0.75)
    tr = lm.run("abcab", start="jd", clamp=clamp)
    assert (tr.c[:, 0, 3] == np.float32(0.75)).all()
    h, c = lm.zero_state()
    for idx in lm.encode("jd"):  # the reference: every step clamped, the start text's included
        _, h, c = lm.step(idx, h, c, clamp)
    start = h.copy()
    for idx in lm.encode("abcab"):
        _, h, c = lm.step(idx, h, c, clamp)
    np.testing.assert_array_equal(tr.h[-1], h)
    np.testing.assert_array_equal(lm.start_state("jd", clamp)[0], start)
    free = lm.run("abcab", start="jd")
    assert not np.array_equal(free.h[-1], h)
    h, c = lm.zero_state()
    for idx in lm.encode("jd"):  # unclamped, the start text moves the state: the clamp is what held it
        _, h, c = lm.step(idx, h, c)
    np.testing.assert_array_equal(lm.start_state("jd")[0], h)
    assert not np.array_equal(h, start)
    held = lm.run("abcab", clamp=Clamp(1, "h", 2, -0.5))  # an h clamp holds h, on the layer it names
    assert (held.h[:, 1, 2] == np.float32(-0.5)).all() and not (held.c[:, 1, 2] == np.float32(-0.5)).any()


def test_each_characters_probability_is_the_one_the_step_before_gave_it():
    lm = small_model()
    text = "abcajd"
    tr = lm.run(text, start="")
    assert tr.p_char.dtype == np.float32 and np.isnan(tr.p_char[0])
    ids = lm.encode(text)
    want = [tr.probs_at(t - 1)[ids[t]] for t in range(1, len(text))]
    np.testing.assert_allclose(tr.p_char[1:], want, rtol=1e-5)


def test_generation_defaults_to_temperature_one_and_keeps_what_it_is_asked_to():
    from tests.test_generation import make_model

    lm = small_model()
    assert lm.generate("ab", 30, seed=4) == lm.generate("ab", 30, temperature=1.0, seed=4)
    tr = lm.draw(SamplingSettings("ab", 30, seed=4))
    assert tr.text == lm.draw(SamplingSettings("ab", 30, temperature=1.0, seed=4)).text
    assert tr.settings.temperature == 1.0
    assert tr.c.dtype == np.float32 and tr.c.shape == (32, 2, 12)
    bare = lm.draw(SamplingSettings("ab", 30, seed=4), keep_states=False)
    assert bare.text == tr.text and bare.h.shape == (0, 2, 12) and bare.c.shape == (0, 2, 12)
    assert make_model("gru").run("abc").c is None  # no cell state, nothing kept for one


def test_the_loss_sums_its_exponentials_in_float64():
    import math

    lm = small_model()
    text = "abcdefghij" * 3
    ids = lm.encode(text)
    h, c = lm.start_state()
    total = 0.0
    for a, b in zip(ids[:-1], ids[1:]):
        logits, h, c = lm.step(a, h, c)
        d = logits - logits.max()  # float32 differences, as exact as the logits; their exponentials in float64
        total += math.log(np.exp(d.astype(np.float64)).sum()) + float(logits.max()) - float(logits[b])
    assert lm.loss(text) == pytest.approx(total / (len(ids) - 1), rel=1e-13)


def test_an_upload_over_the_size_limit_says_its_size_and_the_limits_reach_the_tensors():
    import dataclasses

    from safetensors.numpy import save

    from rnnviz.charlm import CheckpointError
    from rnnviz.charlm.checkpoint import UPLOAD_LIMITS
    from rnnviz.charlm.runner import check_upload

    small = dataclasses.replace(UPLOAD_LIMITS, max_file_bytes=2**20)
    with pytest.raises(CheckpointError, match=r"^the model file is 3\.0 MiB; the limit is 1 MiB$"):
        check_upload(b"\0" * (3 * 2**20), "{}", small)
    lm = small_model()
    weights, card = save({k: np.array(v) for k, v in lm.tensors.items()}), json.dumps(lm.card)
    few = dataclasses.replace(UPLOAD_LIMITS, max_tensors=len(lm.tensors) - 1)
    with pytest.raises(CheckpointError):
        check_upload(weights, card, few)


def test_a_model_too_large_for_the_input_table_computes_the_same_first_layer(monkeypatch):
    from rnnviz.charlm import runner

    lm = small_model()
    assert lm.table is not None
    monkeypatch.setattr(runner, "TABLE_MAX_FLOATS", 0)  # as if V * G*H were over 4 M floats
    big = runner.CharLM(lm.tensors, lm.card)
    assert big.table is None
    a, b = lm.run("abcjd", start="ab"), big.run("abcjd", start="ab")
    np.testing.assert_allclose(b.h, a.h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b.probs, a.probs, rtol=1e-5, atol=1e-7)


def test_softmax_of_float32_scores_answers_in_float64_row_by_row():
    from rnnviz.nn.sampling import softmax

    s = np.array([[0.0, 1.0], [-1000.0, -999.0]], np.float32)  # rows far apart: each is shifted by its own max
    p = softmax(s)
    ref = torch.softmax(torch.from_numpy(s.astype(np.float64)), dim=-1).numpy()
    assert p.dtype == np.float64
    np.testing.assert_allclose(p, ref, rtol=1e-15)


def test_a_top_p_outside_zero_to_one_filters_nothing():
    from rnnviz.nn.sampling import filter_probs

    p = np.array([0.5, 0.3, 0.2])
    for top_p in (0.0, 1.0, None):
        np.testing.assert_allclose(filter_probs(p, top_p=top_p), p, rtol=1e-15)


def test_the_registry_and_a_cell_name_what_they_have():
    from rnnviz.nn.cells import get

    with pytest.raises(ValueError, match="^no cell called 'nope'; the cells are rnn, lstm, gru, linear, mingru, "
                                         "minlstm, lru, selective$"):
        get("nope")
    with pytest.raises(ValueError, match=r"^no cell called \['rnn'\]"):
        get(["rnn"])  # not a name at all: the same message, not a TypeError
    with pytest.raises(ValueError, match="^the lstm cell's nonlinearity is one of tanh, not 'relu'$"):
        get("lstm").with_nonlinearity("relu")


def test_a_relu_units_slope_at_zero_is_torchs():
    from rnnviz.nn.cells import get

    pre = np.array([-1.0, 0.0, 2.0])
    act = get("rnn").with_nonlinearity("relu").local({"pre": pre, "h": np.maximum(pre, 0)})["act"]
    z = torch.tensor(pre, requires_grad=True)
    torch.relu(z).sum().backward()
    assert act.dtype == np.float64 and act.tolist() == z.grad.tolist() == [0.0, 0.0, 1.0]
