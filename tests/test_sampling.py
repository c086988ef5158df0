"""Softmax, top-k / top-p filtering, the sampling rule and entropy, against plain-Python and torch references."""
import math

import numpy as np
import pytest
import torch

from rnnviz.nn.sampling import SamplingSettings, entropies, filter_probs, sampling_distribution, softmax


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
    np.testing.assert_allclose(sampling_distribution(s, 0.5), e / e.sum())
    np.testing.assert_allclose(softmax(np.array([1000.0, 0.0])), [1.0, 0.0])  # no overflow
    assert entropies(np.full(4, 0.25)) == pytest.approx(math.log(4))
    h = entropies(np.array([0.0, 1.0, 0.0]))
    assert h == 0.0 and math.copysign(1, h) == 1 and f"{h:.3f}" == "0.000"  # never "-0.000"
    rows = entropies(np.array([[0.25] * 4, [0.0, 1.0, 0.0, 0.0]]))  # one per row, as the sampling page computes them
    np.testing.assert_allclose(rows, [math.log(4), 0.0])
    assert math.copysign(1, rows[1]) == 1


# ---- the sampling rule, against torch ------------------------------------------------------------------------------
def torch_rule(logits, temperature: float, top_k: int | None, top_p: float | None) -> np.ndarray:
    """Written independently in torch: softmax(logits / T) in float64; top-k by torch.topk (a stable sort where scores
    tie, as torch.topk does not promise which of two equal scores it keeps); the nucleus: the shortest prefix of the
    distribution sorted most likely first whose cumulative sum reaches top_p, intersected with the top k;
    renormalised. Off: top_k None or 0, top_p None or 1."""
    z = torch.as_tensor(np.asarray(logits)) / temperature
    p = torch.softmax(z.double(), -1)
    if not top_k and (top_p is None or top_p >= 1):
        return p.numpy()
    keep = torch.ones_like(p, dtype=torch.bool)
    if top_k:
        k = min(top_k, len(p))
        if len(torch.unique(p)) == len(p):
            idx = torch.topk(p, k).indices
        else:
            idx = torch.sort(p, descending=True, stable=True).indices[:k]
        keep = torch.zeros_like(keep)
        keep[idx] = True
    if top_p is not None and 0 < top_p < 1:
        sp, order = torch.sort(p, descending=True, stable=True)
        inside = torch.cumsum(sp, 0) - sp < top_p  # the mass before an entry is short of top_p: it is needed
        nucleus = torch.zeros_like(keep)
        nucleus[order[inside]] = True
        keep &= nucleus
    q = torch.where(keep, p, torch.zeros_like(p))
    return (q / q.sum()).numpy()


@pytest.mark.parametrize("seed", range(8))
def test_the_sampling_distribution_is_torchs(seed):
    rng = np.random.default_rng(seed)
    V = int(rng.integers(3, 70))
    logits = rng.normal(scale=3.0, size=V).astype(np.float32 if seed % 2 else np.float64)
    for T in (0.1, 0.5, 0.8, 1.0, 1.7, 4.0):
        for k in (None, 0, 1, 3, V - 1, V, V + 5):
            for p in (None, 1.0, 0.05, 0.5, 0.9, 0.99):
                np.testing.assert_allclose(sampling_distribution(logits, T, k, p), torch_rule(logits, T, k, p),
                                           rtol=1e-6, atol=1e-12, err_msg=f"T={T} k={k} p={p}")


def test_off_means_the_plain_softmax_bit_for_bit():
    """top_k 0 or None and top_p 1 or None change nothing, not even by renormalising: a seed draws what it drew."""
    logits = np.random.default_rng(3).normal(size=40).astype(np.float32)
    plain = softmax(logits / np.float32(0.7))
    for k in (None, 0):
        for p in (None, 1.0):
            assert sampling_distribution(logits, 0.7, k, p).tobytes() == plain.tobytes()
    assert sampling_distribution(logits, 0.7, 1, None).tobytes() != plain.tobytes()


def test_ties_keep_the_lower_index_and_a_tiny_temperature_is_greedy():
    logits = np.array([1.0, 3.0, 3.0, 2.0, 3.0])  # three characters tie for most likely
    np.testing.assert_array_equal(sampling_distribution(logits, 1.0, 1), [0, 1, 0, 0, 0])  # the first of them
    np.testing.assert_allclose(sampling_distribution(logits, 1.0, 2), torch_rule(logits, 1.0, 2, None))
    np.testing.assert_allclose(sampling_distribution(logits, 1.0, 2)[[1, 2]], [0.5, 0.5])
    np.testing.assert_allclose(sampling_distribution(logits, 1.0, None, 0.25), [0, 1, 0, 0, 0])  # each holds 0.2855
    np.testing.assert_allclose(sampling_distribution(logits, 1.0, None, 0.3), [0, 0.5, 0.5, 0, 0])  # so two reach 0.3
    np.testing.assert_allclose(sampling_distribution(logits, 1e-6), [0, 1 / 3, 1 / 3, 0, 1 / 3])  # ties share
    p = sampling_distribution(np.array([0.0, 2.0, 1.0]), 1e-4)
    assert np.isfinite(p).all() and p.tolist() == [0.0, 1.0, 0.0]  # exp(-10000) underflows: no NaN, no overflow


def test_settings_say_what_no_model_can_draw():
    assert SamplingSettings("ab", 5, top_k=1).greedy and not SamplingSettings("ab", 5, top_k=2).greedy
    s = SamplingSettings("ab", 5, 0.5, 3, 0.9)
    logits = np.array([0.3, 2.0, -1.0, 0.9, 1.5])
    assert s.distribution(logits).tobytes() == sampling_distribution(logits, 0.5, 3, 0.9).tobytes()
    assert hash(s) == hash(SamplingSettings("ab", 5, 0.5, 3, 0.9))  # a cache key
    for bad, message in (({"length": -1}, "length"), ({"prime": ""}, "prime"), ({"temperature": 0.0}, "temperature"),
                         ({"temperature": float("nan")}, "temperature")):
        with pytest.raises(ValueError, match=message):
            SamplingSettings(**({"prime": "ab", "length": 5} | bad)).check()
