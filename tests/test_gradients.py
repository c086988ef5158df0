"""Analytic BPTT Jacobians against torch.autograd, and the edge cases of the log-scale products."""

import numpy as np
import pytest
import torch

from rnnviz.nn.cells import gru_forward, init_weights, lstm_forward, rnn_forward
from rnnviz.nn.gradients import clip_by_norm, decay_table, gradients_through_time
from tests.conftest import long_only

CELLS = {"rnn": (torch.nn.RNNCell, rnn_forward), "lstm": (torch.nn.LSTMCell, lstm_forward),
         "gru": (torch.nn.GRUCell, gru_forward)}


def grads_of(cell):
    """The cell's report from its trace and W_hh (what the page's comparison computes)."""
    return lambda trace, W_hh, g=None: gradients_through_time(cell, {"W_hh": W_hh}, trace, g)


def setup(cell, T, d, H, seed, scale=1.0):
    torch.manual_seed(seed)
    m = CELLS[cell][0](d, H).double()
    with torch.no_grad():
        m.weight_hh.mul_(scale)
    x = torch.randn(T, d, dtype=torch.float64)
    h0 = 0.5 * torch.randn(H, dtype=torch.float64)
    c0 = 0.5 * torch.randn(H, dtype=torch.float64)
    w = {k: getattr(m, n).detach().numpy() for k, n in
         [("W_ih", "weight_ih"), ("W_hh", "weight_hh"), ("b_ih", "bias_ih"), ("b_hh", "bias_hh")]}
    return m, x, h0, c0, w


def torch_states(cell, m, x, h0, c0):
    """Run torch step by step, each state a leaf-like node we can differentiate to."""
    hs, cs = [h0.clone().requires_grad_(True)], [c0.clone().requires_grad_(True)]
    for t in range(len(x)):
        if cell == "lstm":
            h, c = m(x[t:t + 1], (hs[-1][None], cs[-1][None]))
            h, c = h[0], c[0]
            cs.append(c)
        else:
            h = m(x[t:t + 1], hs[-1][None])[0]
        h.retain_grad()
        if cell == "lstm":
            c.retain_grad()
        hs.append(h)
    return hs, cs


def run_ours(cell, x, h0, c0, w):
    fwd, grads = CELLS[cell][1], grads_of(cell)
    kw = {"c0": c0.numpy()} if cell == "lstm" else {}
    tr = fwd(x.numpy(), **w, h0=h0.numpy(), **kw)
    return tr, grads(tr, w["W_hh"])


@pytest.mark.parametrize("cell", CELLS)
@pytest.mark.parametrize("T,d,H", [(1, 1, 1), (6, 2, 3), (15, 3, 5)])
def test_full_jacobians_match_autograd(cell, T, d, H):
    m, x, h0, c0, w = setup(cell, T, d, H, seed=T + H)
    tr, rep = run_ours(cell, x, h0, c0, w)
    for t in range(T + 1):
        def f(h_t, c_t=None):
            h, c = h_t, c_t
            for s in range(t, T):
                if cell == "lstm":
                    h, c = m(x[s:s + 1], (h[None], c[None]))
                    h, c = h[0], c[0]
                else:
                    h = m(x[s:s + 1], h[None])[0]
            return (h, c) if cell == "lstm" else h
        h_t = torch.tensor(tr.h[t - 1] if t > 0 else h0.numpy())
        if cell == "lstm":
            c_t = torch.tensor(tr.c[t - 1] if t > 0 else c0.numpy())
            jac = torch.autograd.functional.jacobian(f, (h_t, c_t))
            np.testing.assert_allclose(rep.jacobians[T - t], jac[0][0].numpy(), atol=1e-8, rtol=0)
            np.testing.assert_allclose(rep.cell_jacobians[T - t], jac[1][1].numpy(), atol=1e-8, rtol=0)
        else:
            jac = torch.autograd.functional.jacobian(f, h_t)
            np.testing.assert_allclose(rep.jacobians[T - t], jac.numpy(), atol=1e-8, rtol=0)
        spec = np.linalg.norm(rep.jacobians[T - t], 2)
        assert rep.log10_spectral[T - t] == pytest.approx(np.log10(spec), abs=1e-9)


@long_only("20-40 s of CPU each (the short runs above check the same functions)")
@pytest.mark.parametrize("cell", CELLS)
def test_long_runs_match_autograd(cell):
    """T = 200, H = 64: the loss gradient at every step and the Jacobian back to h_0."""
    T, d, H = 200, 4, 64
    m, x, h0, c0, w = setup(cell, T, d, H, seed=7, scale=2.0)
    tr, rep = run_ours(cell, x, h0, c0, w)
    g = torch.randn(H, dtype=torch.float64)
    rep2 = grads_of(cell)(tr, w["W_hh"], g=g.numpy())
    hs, cs = torch_states(cell, m, x, h0, c0)
    (hs[-1] @ g).backward(retain_graph=True)
    for t in range(0, T + 1, 7):
        want = np.linalg.norm(hs[t].grad.numpy())
        assert rep2.log10_loss_grad[T - t] == pytest.approx(np.log10(want), abs=1e-8)
        np.testing.assert_allclose(rep2.loss_grads[T - t], hs[t].grad.numpy(), rtol=1e-7, atol=0)
    # the Jacobian dh_T/dh_0, row by row through autograd
    jac = np.stack([torch.autograd.grad(hs[-1][j], hs[0], retain_graph=True)[0].numpy() for j in range(H)])
    np.testing.assert_allclose(rep.jacobians[T], jac, atol=1e-8, rtol=1e-6)


def test_scalar_explosion_two_to_the_fifty():
    tr = rnn_forward(np.zeros(50), 1.0, 2.0)  # h stays 0: tanh' = 1, every factor is exactly 2
    rep = gradients_through_time("rnn", {"W_hh": 2.0}, tr)
    assert rep.spectral[50] == pytest.approx(2.0 ** 50)
    assert f"{rep.spectral[50]:.1e}" == "1.1e+15"


def test_products_beyond_float64_stay_exact_in_log10():
    tr = rnn_forward(np.zeros(1200), 1.0, 2.0)  # 2^1200 overflows float64
    rep = gradients_through_time("rnn", {"W_hh": 2.0}, tr)
    assert rep.log10_spectral[1200] == pytest.approx(1200 * np.log10(2))
    assert np.isinf(rep.spectral[1200])
    tr = rnn_forward(np.zeros(1200), 1.0, 0.5)
    rep = gradients_through_time("rnn", {"W_hh": 0.5}, tr)
    assert rep.log10_spectral[1200] == pytest.approx(-1200 * np.log10(2))
    assert rep.spectral[1200] == 0.0


def test_zero_recurrent_weight_gives_exact_zero():
    rep = gradients_through_time("rnn", {"W_hh": 0.0}, rnn_forward([1, 2, 3], 1.0, 0.0))
    assert rep.log10_spectral[0] == 0 and np.all(np.isneginf(rep.log10_spectral[1:]))


def test_lstm_forget_path_is_product_of_forget_gates():
    w = init_weights("lstm", 1, 2, seed=0)
    tr = lstm_forward(np.ones((5, 1)), **w)
    rep = gradients_through_time("lstm", {"W_hh": w["W_hh"]}, tr)
    for k in range(6):  # k steps back: the last k forget gates
        np.testing.assert_allclose(10 ** rep.log10_forget_path[k], np.prod(tr.f[5 - k:], axis=0), rtol=1e-12)


def test_forget_path_stays_exact_where_the_product_underflows():
    w = init_weights("lstm", 1, 2, seed=0, forget_bias=-30.0)  # f ~ 1e-13 per step: 200 steps leave float64
    tr = lstm_forward(np.zeros((200, 1)), **w)
    rep = gradients_through_time("lstm", {"W_hh": w["W_hh"]}, tr)
    np.testing.assert_allclose(rep.log10_forget_path[200], np.log10(tr.f).sum(axis=0), rtol=1e-12)
    assert np.all(rep.log10_forget_path[200] < -2000)


def test_loss_gradient_direction_is_kept_beyond_float_range():
    tr = rnn_forward(np.zeros(1200), 1.0, 2.0)
    rep = gradients_through_time("rnn", {"W_hh": 2.0}, tr)
    assert np.isinf(rep.loss_grads[1200]).all() and rep.loss_grad_dirs[1200] == pytest.approx([1.0])


def test_clip_matches_torch():
    g = np.array([3.0, 4.0])
    clipped, norm, scale = clip_by_norm(g, 1.0)
    p = torch.nn.Parameter(torch.zeros(2, dtype=torch.float64))
    p.grad = torch.tensor(g)
    torch.nn.utils.clip_grad_norm_([p], 1.0)
    np.testing.assert_allclose(clipped, p.grad.numpy())
    assert norm == 5.0 and np.linalg.norm(clipped) == pytest.approx(1.0, abs=1e-6)
    tiny = np.array([1e-9, 0.0])
    assert np.array_equal(clip_by_norm(tiny, 1.0)[0], tiny)  # clipping cannot revive a vanished gradient


def test_decay_table_matches_the_notes():
    tab = decay_table()
    assert [f"{v:.1e}" for v in tab["vanilla"][1:]] == ["1.8e-02", "3.4e-04", "1.2e-07", "1.3e-14"]
    assert [f"{v:.2g}" for v in tab["lstm"][1:]] == ["0.59", "0.35", "0.12", "0.015"]
    assert list(tab["lstm_f1"]) == [1, 1, 1, 1, 1]
