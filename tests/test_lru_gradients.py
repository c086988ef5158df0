"""The LRU's gradient norms are those of dh_T/dh_t for its complex state, checked against an LRU written here in
torch with complex tensors and differentiated by autograd."""
import numpy as np
import pytest

from rnnviz.nn.cells import get
from rnnviz.nn.gradients import gradients_through_time

torch = pytest.importorskip("torch")


def torch_lru_last_state(p: dict, x: torch.Tensor, t: int, state: torch.Tensor) -> torch.Tensor:
    """(Re h_T, Im h_T) of the LRU run from h_t = state (Re, Im stacked) over x_{t+1..T}, in complex arithmetic."""
    N = len(p["nu_log"])
    lam = torch.exp(torch.complex(-torch.exp(p["nu_log"]), torch.exp(p["theta_log"])))
    B = torch.complex(p["B_re"], p["B_im"]) * torch.exp(p["gamma_log"])[:, None]
    h = torch.complex(state[:N], state[N:])
    for s in range(t, len(x)):
        h = lam * h + B @ x[s].to(torch.complex128)
    return torch.cat([h.real, h.imag])


def test_lru_norms_are_those_of_the_complex_jacobian_at_T_64():
    cell, T, d, N = get("lru"), 64, 2, 6
    params = cell.init(d, N, np.random.default_rng(3))
    x = np.random.default_rng(4).normal(size=(T, d))
    rep = gradients_through_time(cell, params, cell.forward(params, x))
    p = {k: torch.from_numpy(np.asarray(v, np.float64)) for k, v in params.items()}
    xt, states = torch.from_numpy(x), torch.from_numpy(cell.forward(params, x).states)
    want = []
    for k in range(T + 1):  # dh_T/dh_{T-k}: h_0 = 0 for k = T
        t = T - k
        start = states[t - 1] if t else torch.zeros(2 * N, dtype=torch.float64)
        J = torch.autograd.functional.jacobian(lambda s: torch_lru_last_state(p, xt, t, s), start)
        want.append(float(torch.log10(torch.linalg.matrix_norm(J, ord=2))))
    assert rep.jacobians.shape == (T + 1, 2 * N, 2 * N)
    np.testing.assert_allclose(rep.log10_spectral, want, rtol=0, atol=1e-10)
    # the real-to-real block alone (what the report gave before) is off by far more than the tolerance
    block = np.log10(np.linalg.norm(rep.jacobians[:, :N, :N], ord=2, axis=(1, 2)))
    assert np.max(np.abs(block - np.array(want))) > 0.1
