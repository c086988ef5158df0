"""Tests that mutation testing showed were missing (README "Development"; the mutants they kill are listed in
tests/mutation_survivors.md). Each asserts a number or a text a caller would see, through public functions."""
import re

import numpy as np
import pytest
import torch

from rnnviz.nn.cells import singular_values
from rnnviz.nn.params import millions


def test_millions_at_its_boundaries():
    # a million and more: one decimal; a thousand and more: two significant figures; below, the count itself
    assert millions(1_000_000) == "1.0 M"
    assert millions(1_150_001) == "1.2 M"  # 1.150001, rounded up: the divisor is exactly a million
    assert millions(999_999) == "1 M"
    assert millions(135_000) == "0.14 M"
    assert millions(1_000) == "0.001 M"
    assert millions(999) == "999"
    assert millions(0) == "0"


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
