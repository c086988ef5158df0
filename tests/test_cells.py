"""Our NumPy cells against torch.nn.RNN / LSTM / GRU on the same weights (float64)."""
import numpy as np
import pytest
import torch

from rnnviz.nn.cells import gru_forward, init_weights, lstm_forward, one_hot, output_layer, rnn_forward, spectral_radius

SHAPES = [(1, 1, 1), (1, 3, 2), (7, 1, 1), (5, 4, 3), (12, 2, 8), (30, 6, 16)]  # (T, d, H)


def torch_params(module):
    return {k: v.detach().numpy() for k, v in [
        ("W_ih", module.weight_ih_l0), ("W_hh", module.weight_hh_l0),
        ("b_ih", module.bias_ih_l0), ("b_hh", module.bias_hh_l0)]}


@pytest.mark.parametrize("T,d,H", SHAPES)
def test_rnn_matches_torch(T, d, H):
    torch.manual_seed(T * 100 + d * 10 + H)
    m = torch.nn.RNN(d, H, batch_first=True).double()
    x, h0 = torch.randn(1, T, d, dtype=torch.float64), torch.randn(1, 1, H, dtype=torch.float64)
    out, hT = m(x, h0)
    tr = rnn_forward(x[0].numpy(), **torch_params(m), h0=h0[0, 0].numpy())
    np.testing.assert_allclose(tr.h, out[0].detach().numpy(), rtol=0, atol=1e-9)
    np.testing.assert_allclose(np.tanh(tr.pre), tr.h, atol=1e-12)


@pytest.mark.parametrize("T,d,H", SHAPES)
def test_lstm_matches_torch(T, d, H):
    torch.manual_seed(T * 100 + d * 10 + H + 1)
    m = torch.nn.LSTM(d, H, batch_first=True).double()
    x = torch.randn(1, T, d, dtype=torch.float64)
    h0, c0 = torch.randn(1, 1, H, dtype=torch.float64), torch.randn(1, 1, H, dtype=torch.float64)
    out, (hT, cT) = m(x, (h0, c0))
    tr = lstm_forward(x[0].numpy(), **torch_params(m), h0=h0[0, 0].numpy(), c0=c0[0, 0].numpy())
    np.testing.assert_allclose(tr.h, out[0].detach().numpy(), rtol=0, atol=1e-9)
    np.testing.assert_allclose(tr.c[-1], cT[0, 0].detach().numpy(), rtol=0, atol=1e-9)
    assert ((tr.f > 0) & (tr.f < 1)).all() and ((tr.i > 0) & (tr.i < 1)).all()


@pytest.mark.parametrize("T,d,H", SHAPES)
def test_gru_matches_torch(T, d, H):
    torch.manual_seed(T * 100 + d * 10 + H + 2)
    m = torch.nn.GRU(d, H, batch_first=True).double()
    x, h0 = torch.randn(1, T, d, dtype=torch.float64), torch.randn(1, 1, H, dtype=torch.float64)
    out, _ = m(x, h0)
    tr = gru_forward(x[0].numpy(), **torch_params(m), h0=h0[0, 0].numpy())
    np.testing.assert_allclose(tr.h, out[0].detach().numpy(), rtol=0, atol=1e-9)


def test_scalar_inputs_and_defaults():
    tr = rnn_forward([1, 0, 0], 1.0, 0.5)  # scalars: d = H = 1, no biases, h0 = 0
    assert tr.h.shape == (3, 1)
    np.testing.assert_allclose(tr.x_part.ravel() + tr.h_part.ravel(), tr.pre.ravel())


def test_shape_errors_are_clear():
    with pytest.raises(ValueError, match="features per step"):
        rnn_forward(np.zeros((3, 2)), np.zeros((4, 3)), np.zeros((4, 4)))
    with pytest.raises(ValueError, match="W_hh must be"):
        lstm_forward(np.zeros((3, 2)), np.zeros((8, 2)), np.zeros((8, 3)))


def test_output_layer_and_one_hot():
    h = np.array([[1.0, -1.0]])
    np.testing.assert_allclose(output_layer(h, [[1, 2], [3, 4]], [0.5, 0.5]), [[-0.5, -0.5]])
    np.testing.assert_array_equal(one_hot([2, 0], 3), [[0, 0, 1], [1, 0, 0]])


def test_init_weights_sets_radius_and_forget_bias():
    w = init_weights("lstm", 3, 8, seed=1, radius=0.9, forget_bias=1.0)
    for k in range(4):
        assert spectral_radius(w["W_hh"][k * 8:(k + 1) * 8]) == pytest.approx(0.9)
    tr = lstm_forward(np.zeros((1, 3)), **w)
    np.testing.assert_allclose(w["b_ih"][8:16] + w["b_hh"][8:16], 1.0)
    np.testing.assert_allclose(tr.f[0], 1 / (1 + np.exp(-1.0)))  # sigma(1) = 0.731 at the first step
