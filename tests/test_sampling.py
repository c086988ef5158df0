"""Softmax, top-k / top-p filtering and entropy, against plain-Python references."""
import math

import numpy as np
import pytest

from rnnviz.nn.sampling import entropies, filter_probs, softmax


def reference_filter(p: list[float], top_k: int | None, top_p: float | None) -> list[float]:
    """Written from the definitions, one entry at a time: rank by probability (ties: lower index first), keep the
    first k, and of those the shortest prefix whose total reaches p; renormalise what is kept."""
    ranked = sorted(range(len(p)), key=lambda j: (-p[j], j))
    keep = ranked[:top_k] if top_k else ranked
    if top_p is not None and 0 < top_p < 1:
        total, prefix = 0.0, []
        for j in ranked:  # the nucleus is taken over the full distribution, then intersected with top-k
            prefix.append(j)
            total += p[j]
            if total >= top_p:
                break
        keep = [j for j in keep if j in prefix]
    mass = sum(p[j] for j in keep)
    return [p[j] / mass if j in keep else 0.0 for j in range(len(p))]


@pytest.mark.parametrize("seed", range(12))
def test_filter_probs_matches_the_reference(seed):
    rng = np.random.default_rng(seed)
    V = int(rng.integers(2, 30))
    p = rng.dirichlet(np.full(V, 0.3))
    if seed % 3 == 0:
        p = np.round(p, 1) + 1e-3  # ties
        p /= p.sum()
    for k in (None, 0, 1, 2, V // 2, V, V + 3):
        for q in (None, 1.0, 0.05, 0.5, 0.9, 0.999):
            np.testing.assert_allclose(filter_probs(p, k, q), reference_filter(list(p), k, q), atol=1e-12,
                                       err_msg=f"k={k} p={q}")


def test_filter_probs_worked_example():
    p = np.array([0.1, 0.5, 0.15, 0.25])
    np.testing.assert_allclose(filter_probs(p, top_k=2), [0, 2 / 3, 0, 1 / 3])
    np.testing.assert_allclose(filter_probs(p, top_p=0.7), [0, 2 / 3, 0, 1 / 3])  # 0.5 + 0.25 reaches 0.7
    np.testing.assert_allclose(filter_probs(p, top_p=0.75), [0, 2 / 3, 0, 1 / 3])  # exactly 0.75 is enough
    np.testing.assert_allclose(filter_probs(p, top_k=1, top_p=0.9), [0, 1, 0, 0])


def test_softmax_temperature_and_entropy():
    s = np.array([2.0, 1.0, 0.0])
    e = np.exp(s / 0.5)
    np.testing.assert_allclose(softmax(s, 0.5), e / e.sum())
    np.testing.assert_allclose(softmax(np.array([1000.0, 0.0])), [1.0, 0.0])  # no overflow
    assert entropies(np.full(4, 0.25)) == pytest.approx(math.log(4))
    h = entropies(np.array([0.0, 1.0, 0.0]))
    assert h == 0.0 and math.copysign(1, h) == 1 and f"{h:.3f}" == "0.000"  # never "-0.000"
    rows = entropies(np.array([[0.25] * 4, [0.0, 1.0, 0.0, 0.0]]))  # one per row, as the sampling page computes them
    np.testing.assert_allclose(rows, [math.log(4), 0.0])
    assert math.copysign(1, rows[1]) == 1
