"""#25's cells (linear, minGRU, minLSTM, LRU, selective SSM) against torch written here, independently: the forward
pass by a torch loop of the papers' equations, every step's Jacobians by torch.autograd.functional.jacobian, float64."""
import numpy as np
import pytest

from rnnviz.nn.cells.linear import LinearCell
from rnnviz.nn.cells.lru import LRUCell, eigenvalues, from_polar
from rnnviz.nn.cells.mingru import MinGRUCell
from rnnviz.nn.cells.minlstm import MinLSTMCell
from rnnviz.nn.cells.selective import SelectiveCell

torch = pytest.importorskip("torch")
TOL = 1e-12


def T(a):
    return torch.tensor(np.asarray(a), dtype=torch.float64)


# ---- the papers' steps, in torch: state s_{t-1}, input x_t -> s_t (real vectors) ------------------------
def linear_step(p):
    return lambda h, x: T(p["a"]) * h + T(p["B"]) @ x


def mingru_step(p):
    def step(h, x):
        z = torch.sigmoid(T(p["W_z"]) @ x + T(p["b_z"]))
        return (1 - z) * h + z * (T(p["W_h"]) @ x + T(p["b_h"]))
    return step


def minlstm_step(p):
    def step(h, x):
        f = torch.sigmoid(T(p["W_f"]) @ x + T(p["b_f"]))
        i = torch.sigmoid(T(p["W_i"]) @ x + T(p["b_i"]))
        return f / (f + i) * h + i / (f + i) * (T(p["W_h"]) @ x + T(p["b_h"]))
    return step


def lru_step(p):
    N = len(p["nu_log"])

    def step(s, x):
        lam = torch.exp(-torch.exp(T(p["nu_log"])) + 1j * torch.exp(T(p["theta_log"])))
        B = torch.complex(T(p["B_re"]), T(p["B_im"]))
        h = lam * torch.complex(s[:N], s[N:]) + torch.exp(T(p["gamma_log"])) * (B @ x.to(B.dtype))
        return torch.cat([h.real, h.imag])
    return step


def selective_step(p):
    d, N = p["B"].shape

    def step(s, x):
        delta = torch.nn.functional.softplus(T(p["W_delta"]) @ x + T(p["b_delta"]))  # (d,)
        A = -torch.exp(T(p["A_log"]))
        h = torch.exp(delta[:, None] * A) * s.reshape(d, N) + delta[:, None] * T(p["B"]) * x[:, None]
        return h.reshape(-1)
    return step


def lru_out(p, s, x):
    N = len(p["nu_log"])
    C = torch.complex(T(p["C_re"]), T(p["C_im"]))
    return (C @ torch.complex(s[:N], s[N:])).real + T(p["D"]) * x


def selective_out(p, s, x):
    d, N = p["B"].shape
    return (T(p["C"]) * s.reshape(d, N)).sum(-1) + T(p["D"]) * x


CASES = {  # cell, torch step, torch output (or None), state size
    "linear": (LinearCell(), linear_step, None, lambda d, H: H),
    "mingru": (MinGRUCell(), mingru_step, None, lambda d, H: H),
    "minlstm": (MinLSTMCell(), minlstm_step, None, lambda d, H: H),
    "lru": (LRUCell(), lru_step, lru_out, lambda d, H: 2 * H),
    "selective": (SelectiveCell(), selective_step, selective_out, lambda d, H: H),  # H = d * N
}


def torch_loop(step, s0, x):
    s, out = s0, []
    for x_t in x:
        s = step(s, x_t)
        out.append(s)
    return torch.stack(out)


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("d,H,steps", [(1, 1, 7), (1, 3, 6), (3, 6, 9)])
def test_forward_and_jacobians_match_torch(name, d, H, steps):
    cell, make_step, out, n_of = CASES[name]
    rng = np.random.default_rng([list(CASES).index(name), d, H])
    p = cell.init(d, H, rng)
    if name == "selective":  # steps large and small, so a_t spans (0, 1) and the Delta path matters
        p["W_delta"] = rng.normal(size=(d, d)) * 2
    x = rng.normal(size=(steps, d))
    n = n_of(d, H)
    s0 = rng.normal(size=n)
    tr = cell.forward(p, x, s0)
    step = make_step(p)
    want = torch_loop(step, T(s0), T(x))
    assert np.abs(tr.states - want.numpy()).max() < TOL
    if out is not None:
        y = torch.stack([out(p, s, x_t) for s, x_t in zip(want, T(x))])
        assert np.abs(tr.y - y.numpy()).max() < TOL
    prev = torch.cat([T(s0)[None], want[:-1]])
    J_h = np.stack([torch.autograd.functional.jacobian(lambda s: step(s, T(x[t])), prev[t]).numpy()
                    for t in range(steps)])
    J_x = np.stack([torch.autograd.functional.jacobian(lambda v: step(prev[t], v), T(x[t])).numpy()
                    for t in range(steps)])
    assert cell.step_jacobians(p, tr).shape == (steps, n, n)
    assert np.abs(cell.step_jacobians(p, tr) - J_h).max() < TOL
    assert cell.input_jacobians(p, tr).shape == (steps, n, d)
    assert np.abs(cell.input_jacobians(p, tr) - J_x).max() < TOL


@pytest.mark.parametrize("name", list(CASES))
def test_step_is_the_forward_pass_one_step_at_a_time(name):
    cell, _, _, _ = CASES[name]
    rng = np.random.default_rng(1)
    p = cell.init(2, 4, rng)
    x = rng.normal(size=(6, 2))
    tr = cell.forward(p, x)
    h = np.zeros(tr.h.shape[1], tr.h.dtype)
    for t in range(6):
        h = cell.step(p, h, x[t])
        assert np.abs(h - tr.h[t]).max() < TOL
    assert np.abs(tr.h - (tr.a * np.vstack([tr.h0[None], tr.h[:-1]]) + tr.b)).max() < TOL  # h_t = a_t h_{t-1} + b_t


@pytest.mark.parametrize("name,count", [("linear", 6 * (1 + 3)), ("mingru", 2 * 6 * (3 + 1)),
                                        ("minlstm", 3 * 6 * (3 + 1)), ("lru", 3 * 6 + 4 * 6 * 3 + 3),
                                        ("selective", 3 * 6 + 9 + 6)])
def test_param_count_counts_the_numbers_init_makes(name, count):
    cell = CASES[name][0]
    p = cell.init(3, 6, np.random.default_rng(0))
    assert cell.param_count(3, 6) == sum(v.size for v in p.values()) == count


def test_every_new_cell_is_registered_and_its_state_size_is_what_its_jacobians_act_on():
    from rnnviz.nn.cells import REGISTRY

    rng = np.random.default_rng(9)
    for name, (cell, _, _, _) in CASES.items():
        assert REGISTRY[name] is not None and type(REGISTRY[name]) is type(cell)
        p = cell.init(2, 4, rng)
        tr = cell.forward(p, rng.normal(size=(5, 2)))
        n = cell.state_size(4)
        assert tr.states.shape == (5, n) and cell.step_jacobians(p, tr).shape == (5, n, n)
    with pytest.raises(ValueError, match="multiple of input_size"):
        SelectiveCell().init(3, 4, rng)


def test_torch_minGRU_as_the_paper_writes_it_agrees():
    """The paper's minGRU (Appendix A, sequential mode) as torch.nn.Linear layers: the same numbers."""
    rng = np.random.default_rng(3)
    cell = MinGRUCell()
    p = cell.init(2, 5, rng)
    lin_z, lin_h = torch.nn.Linear(2, 5).double(), torch.nn.Linear(2, 5).double()
    with torch.no_grad():
        lin_z.weight.copy_(T(p["W_z"]))
        lin_z.bias.copy_(T(p["b_z"]))
        lin_h.weight.copy_(T(p["W_h"]))
        lin_h.bias.copy_(T(p["b_h"]))
    x = rng.normal(size=(8, 2))
    h, hs = torch.zeros(5, dtype=torch.float64), []
    for x_t in T(x):
        z = torch.sigmoid(lin_z(x_t))
        h = torch.lerp(h, lin_h(x_t), z)  # (1 - z) h + z h~
        hs.append(h)
    assert np.abs(cell.forward(p, x).h - torch.stack(hs).detach().numpy()).max() < TOL


def test_lru_places_the_eigenvalues_asked_for():
    r, theta = np.array([0.0, 0.5, 0.999, 1.0]), np.array([0.0, np.pi / 3, 1.0, np.pi])
    p = from_polar(r, theta)
    lam = eigenvalues(p)
    assert np.allclose(np.abs(lam), r, atol=1e-15) and np.allclose(np.angle(lam[1:]), theta[1:], atol=1e-15)
    assert np.allclose(np.exp(p["gamma_log"]), np.sqrt(1 - r ** 2))


def test_selective_input_decides_what_is_kept():
    """A large input gives a large step, a_t near 0 (reset); a very negative one a step near 0, a_t near 1 (kept)."""
    cell = SelectiveCell()
    p = {"A_log": np.zeros((1, 1)), "B": np.ones((1, 1)), "C": np.ones((1, 1)), "W_delta": np.array([[4.0]]),
         "b_delta": np.array([0.0]), "D": np.zeros(1)}
    tr = cell.forward(p, [2.0, -2.0, -2.0, -2.0])
    assert tr.a[0, 0] < 1e-3 and tr.a[1:, 0].min() > 0.999
    assert abs(tr.h[-1, 0] - tr.h[0, 0]) < 0.01 * abs(tr.h[0, 0])  # the first input survives the next three
