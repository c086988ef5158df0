"""Every registered cell against torch: its local Jacobians (float64, to 1e-12) and its parameter count; the
registry's lookup; the batched step and vector-Jacobian product the sampler, connectivity and the hello trainer use."""
import numpy as np
import pytest
import torch
from torch.autograd.functional import jacobian

from rnnviz.nn import cells
from rnnviz.nn.cells import REGISTRY, get

TORCH_CELLS = [c for c in REGISTRY.values() if c.torch_module]
SIZES = [(1, 1, 1), (6, 3, 4), (9, 5, 7)]  # (T, d, H)


def torch_step(kind, m):
    """One step of torch.nn.{RNN,LSTM,GRU}Cell as a function of (state, x), the state as the cell's vector."""
    H = m.hidden_size

    def f(state, x):
        if kind.has_cell_state:
            h, c = m(x[None], (state[None, :H], state[None, H:]))
            return torch.cat([h[0], c[0]])
        return m(x[None], state[None])[0]
    return f


def module(kind, d, H, seed, nonlinearity="tanh"):
    torch.manual_seed(seed)
    extra = {"nonlinearity": nonlinearity} if len(kind.nonlinearities) > 1 else {}
    m = getattr(torch.nn, kind.torch_module + "Cell")(d, H, **extra).double()
    with torch.no_grad():
        for p in m.parameters():
            p.uniform_(-0.9, 0.9)  # wider than torch's default: gates away from 1/2, states away from 0
    params = {"W_ih": m.weight_ih.detach().numpy(), "W_hh": m.weight_hh.detach().numpy(),
              "b_ih": m.bias_ih.detach().numpy(), "b_hh": m.bias_hh.detach().numpy()}
    return m, params


def variants() -> list:
    """Each cell with each of its nonlinearities. A list, not a generator: parametrize keeps what it is given, and a
    generator is spent by the first collection (a second pytest.main in the same process, as mutmut's fork server
    runs, then found none of these tests)."""
    return [pytest.param(kind.with_nonlinearity(nl), id=f"{kind.name}-{nl}") for kind in TORCH_CELLS
            for nl in kind.nonlinearities]


@pytest.mark.parametrize("kind", variants())
@pytest.mark.parametrize("T,d,H", SIZES)
def test_local_jacobians_equal_torch_autograd(kind, T, d, H):
    m, params = module(kind, d, H, seed=T + d + H, nonlinearity=getattr(kind, "nonlinearity", "tanh"))
    rng = np.random.default_rng(T)
    x, state0 = rng.normal(size=(T, d)), rng.normal(size=kind.state_size(H))
    tr = kind.forward(params, x, state0)
    states = np.vstack([state0[None], tr.states])  # (T+1, n)
    J, Jx = kind.step_jacobians(params, tr), kind.input_jacobians(params, tr)
    n = kind.state_size(H)
    assert J.shape == (T, n, n) and Jx.shape == (T, n, d)
    f = torch_step(kind, m)
    for s in range(T):
        ref_h, ref_x = jacobian(f, (torch.tensor(states[s]), torch.tensor(x[s])))
        np.testing.assert_allclose(f(torch.tensor(states[s]), torch.tensor(x[s])).detach().numpy(), states[s + 1],
                                   rtol=0, atol=1e-12)
        np.testing.assert_allclose(J[s], ref_h.numpy(), rtol=0, atol=1e-12)
        np.testing.assert_allclose(Jx[s], ref_x.numpy(), rtol=0, atol=1e-12)


@pytest.mark.parametrize("kind", variants())
def test_backward_is_the_vector_jacobian_product_of_torch(kind):
    """The batched backward step: dL/dstate_{t-1} and dL/dx_t from dL/dstate_t, against torch.autograd."""
    d, H, B = 3, 5, 4
    m, params = module(kind, d, H, seed=7, nonlinearity=getattr(kind, "nonlinearity", "tanh"))
    rng = np.random.default_rng(1)
    n = kind.state_size(H)
    x, state, up = rng.normal(size=(B, d)), rng.normal(size=(B, n)), rng.normal(size=(B, n))
    h, c = state[:, :H], (state[:, H:] if kind.has_cell_state else None)
    gi, gh = x @ params["W_ih"].T + params["b_ih"], h @ params["W_hh"].T + params["b_hh"]
    h1, c1, parts = kind.step(gi, gh, h, c)
    local = kind.local(parts)
    d_gi, d_gh, carry, dc = kind.backward(local, up[:, :H], up[:, H:] if kind.has_cell_state else None)
    d_state = carry + d_gh @ params["W_hh"]
    if kind.has_cell_state:
        d_state = np.concatenate([d_state, dc], axis=1)
    d_x = d_gi @ params["W_ih"]
    f = torch_step(kind, m)
    for b in range(B):
        st, xb = torch.tensor(state[b], requires_grad=True), torch.tensor(x[b], requires_grad=True)
        out = f(st, xb)
        np.testing.assert_allclose(np.concatenate([h1[b], c1[b]]) if kind.has_cell_state else h1[b],
                                   out.detach().numpy(), rtol=0, atol=1e-12)
        (out @ torch.tensor(up[b])).backward()
        np.testing.assert_allclose(d_state[b], st.grad.numpy(), rtol=0, atol=1e-12)
        np.testing.assert_allclose(d_x[b], xb.grad.numpy(), rtol=0, atol=1e-12)


@pytest.mark.parametrize("kind", TORCH_CELLS, ids=lambda c: c.name)
@pytest.mark.parametrize("d,H", [(1, 1), (3, 8), (65, 512)])
def test_param_count_equals_torch(kind, d, H):
    m = getattr(torch.nn, kind.torch_module)(d, H)
    assert kind.param_count(d, H) == sum(p.numel() for p in m.parameters())
    assert cells.GATES[kind.name] * H == m.weight_ih_l0.shape[0] == len(kind.gates) * H


def test_registry_lookup():
    assert all(get(name) is cell and cell.name == name for name, cell in REGISTRY.items())
    with pytest.raises(ValueError, match="no cell called 'lstmm'.*lstm"):
        get("lstmm")
    with pytest.raises(ValueError):
        get(None)
    with pytest.raises(ValueError, match="nonlinearity"):
        get("lstm").with_nonlinearity("relu")


@pytest.mark.parametrize("kind", TORCH_CELLS, ids=lambda c: c.name)
def test_gate_table_matches_the_trace(kind):
    """Each sigmoid gate and the forget gate are stacked blocks of the cell, and the trace holds each sigmoid gate."""
    tr = kind.forward(kind.init(2, 3, np.random.default_rng(0)), np.ones((4, 2)))
    assert set(kind.sigmoid_gates) <= set(kind.gates)
    assert kind.forget_gate is None or kind.forget_gate in kind.sigmoid_gates
    for g in kind.sigmoid_gates:
        v = getattr(tr, g)
        assert v.shape == (4, 3) and ((v > 0) & (v < 1)).all()
    assert tr.states.shape == (4, kind.state_size(3))


def test_training_opens_the_forget_gate_of_the_cell_that_has_one():
    """The training CLI's forget-bias trick finds the forget block through the cell (the LSTM's f: rows H..2H)."""
    from rnnviz.charlm.checkpoint import CharRNNConfig
    from rnnviz.charlm.model import CharRNN
    from rnnviz.charlm.train import open_forget_gates

    lstm = CharRNN(CharRNNConfig(5, "lstm", 3, 4, 2))
    open_forget_gates(lstm, "lstm")
    for k in range(2):
        b_ih, b_hh = getattr(lstm.rnn, f"bias_ih_l{k}").detach(), getattr(lstm.rnn, f"bias_hh_l{k}").detach()
        assert (b_ih[4:8] == 1).all() and (b_hh[4:8] == 0).all() and (b_ih[:4] != 1).all()
    gru = CharRNN(CharRNNConfig(5, "gru", 3, 4, 1))
    before = gru.rnn.bias_ih_l0.detach().clone()
    open_forget_gates(gru, "gru")
    assert torch.equal(gru.rnn.bias_ih_l0.detach(), before)
