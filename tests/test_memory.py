"""Memory side by side: ||dh_t/dx_1|| of the three cells equals torch.autograd's (float64, 1e-9), untrained and
trained (the shipped lag models), on the two presets' inputs; the trained lockstep refuses an input it cannot read."""
import numpy as np
import pytest

from rnnviz.experiments import lag_results
from rnnviz.lessons import memory
from rnnviz.lessons.gates import lockstep
from rnnviz.lessons.vector import encode_word
from rnnviz.nn.cells import compared
from rnnviz.nn.torch_ref import torch_cell

torch = pytest.importorskip("torch")


def autograd_survival(cell: str, w: dict, x: np.ndarray) -> np.ndarray:
    """The torch module's h_t differentiated with respect to x_1 by autograd, one full Jacobian per t."""
    m = torch_cell(cell, w)
    x1 = torch.tensor(x[:1], dtype=torch.float64, requires_grad=True)
    rest = torch.tensor(x[1:], dtype=torch.float64)

    def states(first):
        return m(torch.cat([first, rest])[None])[0][0]  # (T, H)

    J = torch.autograd.functional.jacobian(states, x1, vectorize=True)  # (T, H, 1, d), every row at once
    return np.array([np.linalg.norm(J[t, :, 0].numpy(), 2) for t in range(len(x))])


def inputs():
    word = memory.first_letter_word(25, "abcdefgh", 3)
    return {"one then zeros": memory.one_then_zeros(30, 8), "first letter": encode_word(word, list("abcdefgh"))}


@pytest.mark.parametrize("name", ["one then zeros", "first letter"])
def test_untrained_survival_equals_autograd(name):
    x = inputs()[name]
    ls = lockstep(x, 4, seed=2, radius=1.1, forget_bias=1.0)
    mem = memory.memory(ls)
    for c in compared():
        ref = autograd_survival(c, ls.weights[c], x)
        assert mem.norms[c].shape == (len(x),)
        np.testing.assert_allclose(mem.norms[c], ref, rtol=1e-9, atol=1e-300)
        assert ref[0] > 0 and ref[-1] > 0  # nothing vanished to 0 in these runs: the test compares real numbers


@pytest.mark.skipif(not lag_results.WEIGHTS.exists(), reason="no shipped lag models")
def test_trained_survival_equals_autograd_and_the_gated_cells_keep_x1_longer():
    weights = lag_results.load_weights()
    x = inputs()["first letter"]
    ls = memory.trained_lockstep(x, weights)
    mem = memory.memory(ls, trained=True)
    for c in compared():
        np.testing.assert_allclose(mem.norms[c], autograd_survival(c, ls.weights[c], x), rtol=1e-9, atol=1e-300)
    assert min(mem.norms["lstm"][-1], mem.norms["gru"][-1]) > mem.norms["rnn"][-1]
    with pytest.raises(ValueError, match="8 inputs"):
        memory.trained_lockstep(np.zeros((3, 4)), weights)


def test_presets_inputs():
    x = memory.one_then_zeros(5, 3)
    assert x[0].tolist() == [1, 0, 0] and not x[1:].any()
    w = memory.first_letter_word(40, "abc", 1)
    assert len(w) == 40 and set(w) <= set("abc") and w == memory.first_letter_word(40, "abc", 1)
    assert memory.last_alive(np.array([1.0, 1e-3, 1e-7, 1e-2])) == 4 and memory.last_alive(np.zeros(3)) == 0
