"""A cell added in one place shows on the pages: a toy cell written here (a leaky tanh RNN, its exact Jacobians
checked against torch.autograd) is registered with `compared` set, and the gates and gradients pages both draw it
under its own name, in its own colour, with no other edit."""
from dataclasses import dataclass

import numpy as np
import pytest

from rnnviz.nn import cells
from rnnviz.nn.cells.base import Cell, Presentation, initial_state, prepare, torch_init, torch_param_count
from tests.conftest import all_text, charts

torch = pytest.importorskip("torch")

LEAK = 0.3  # a: how much of the new tanh the state takes each step


@dataclass
class LeakyTrace:
    x: np.ndarray
    u: np.ndarray  # (T, H) tanh(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh)
    h: np.ndarray  # (T, H)
    h0: np.ndarray

    @property
    def states(self) -> np.ndarray:
        return self.h


class Leaky(Cell):
    """h_t = (1 - a) h_{t-1} + a tanh(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh)."""

    name = "leaky"
    gates = ("h",)
    compared = True  # set beside the RNN, LSTM and GRU on the gates and gradients pages
    presentation = Presentation("leaky RNN", "#009E73", "triangle-down", "dot", title="Leaky RNN")

    def init(self, input_size, hidden_size, rng):
        return torch_init(1, input_size, hidden_size, rng)

    def param_count(self, input_size, hidden_size):
        return torch_param_count(1, input_size, hidden_size)

    def forward(self, params, x, state0=None) -> LeakyTrace:
        x, W_ih, W_hh, b_ih, b_hh, H = prepare(x, params["W_ih"], params["W_hh"], params.get("b_ih"),
                                               params.get("b_hh"), 1)
        h_prev = h0 = initial_state(state0, H)
        u, h = np.empty((len(x), H)), np.empty((len(x), H))
        for t in range(len(x)):
            u[t] = np.tanh(W_ih @ x[t] + b_ih + W_hh @ h_prev + b_hh)
            h[t] = h_prev = (1 - LEAK) * h_prev + LEAK * u[t]
        return LeakyTrace(x, u, h, h0)

    def step_jacobians(self, params, trace):
        """(1 - a) I + a diag(1 - u_s^2) W_hh."""
        W_hh = np.atleast_2d(params["W_hh"])
        H = W_hh.shape[0]
        return (1 - LEAK) * np.eye(H) + LEAK * (1 - trace.u ** 2)[:, :, None] * W_hh

    def input_jacobians(self, params, trace):
        """a diag(1 - u_s^2) W_ih."""
        return LEAK * (1 - trace.u ** 2)[:, :, None] * np.atleast_2d(params["W_ih"])


def torch_step(p: dict, x_t, h):
    return (1 - LEAK) * h + LEAK * torch.tanh(p["W_ih"] @ x_t + p["b_ih"] + p["W_hh"] @ h + p["b_hh"])


def test_the_toy_cells_jacobians_are_exact():
    cell, T, d, H = Leaky(), 7, 3, 4
    params = cell.init(d, H, np.random.default_rng(0))
    x = np.random.default_rng(1).normal(size=(T, d))
    tr = cell.forward(params, x)
    p = {k: torch.from_numpy(v) for k, v in params.items()}
    J, Jx = cell.step_jacobians(params, tr), cell.input_jacobians(params, tr)
    for t in range(T):
        h_prev = torch.from_numpy(tr.h[t - 1] if t else tr.h0)
        x_t = torch.from_numpy(x[t])
        np.testing.assert_allclose(J[t], torch.autograd.functional.jacobian(lambda h: torch_step(p, x_t, h), h_prev),
                                   rtol=0, atol=1e-12)
        np.testing.assert_allclose(Jx[t], torch.autograd.functional.jacobian(lambda v: torch_step(p, v, h_prev), x_t),
                                   rtol=0, atol=1e-12)
        assert torch.allclose(torch_step(p, x_t, h_prev), torch.from_numpy(tr.h[t]), rtol=0, atol=1e-14)


@pytest.fixture
def toy(monkeypatch):
    """The toy registered (its one registry line; `compared` puts it beside the others on the gates and gradients
    pages), and the gradients page's per-server cache emptied, so its comparison is made with the toy."""
    from rnnviz.lessons.cache import SharedCache
    from ui.lessons import gradients as words

    monkeypatch.setitem(cells.REGISTRY, "leaky", Leaky())
    monkeypatch.setattr(words, "COMPARISONS", SharedCache(2 ** 24))
    return Leaky.presentation


def lines_named(at, name: str) -> list[dict]:
    return [tr for c in charts(at) for tr in c.figure["data"] if name in str(tr.get("name", ""))]


def test_the_gates_page_shows_the_toy_cell(open_page, toy):
    at = open_page("gates", view="lockstep", seed="4321")
    assert not at.exception
    specs = [c.spec for c in charts(at)]
    assert any(f"<b>{toy.title}</b>" in s for s in specs)  # its lockstep panel, under its own title
    [line] = lines_named(at, toy.title)  # its curve of how much of x_1 survives, in its own colour
    assert line["line"]["color"] == toy.color and line["marker"]["symbol"] == toy.marker
    assert toy.label in all_text(at)  # the sentences under the memory chart name it


def test_the_gradients_page_shows_the_toy_cell(open_page, toy):
    at = open_page("gradients", seed="4321")
    assert not at.exception
    [line] = lines_named(at, f"{toy.label} ‖")  # its gradient norm by steps back, in its own colour
    assert line["line"]["color"] == toy.color and line["line"]["dash"] == toy.dash
    decay = next(c for c in charts(at) if c.key.endswith(".decay"))
    assert f"{toy.label} h ends at" in decay.alt
