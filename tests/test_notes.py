"""The notes' worked numbers, reproduced by the package."""
import numpy as np
import pytest

from rnnviz.lessons.presets import SCALAR_PRESETS, SOFTMAX_SCORES
from rnnviz.nn.cells import rnn_forward
from rnnviz.nn.sampling import sampling_distribution, softmax


def run(name):
    p = SCALAR_PRESETS[name]
    return rnn_forward(p.x, p.w_x, p.w_h, p.b, h0=p.h0)


def test_fade():
    tr = run("fade")
    np.testing.assert_allclose(tr.h.ravel(), [0.76159, 0.36340, 0.17973], atol=5e-6)
    np.testing.assert_allclose(tr.pre.ravel(), [1.0, 0.381, 0.182], atol=5e-4)


def test_rewrite_and_flood():
    assert run("rewrite").h[2, 0] == pytest.approx(0.82799, abs=5e-6)
    np.testing.assert_allclose(run("flood").h[1:3, 0], [0.90925, 0.94869], atol=5e-6)
    np.testing.assert_allclose(run("flood").pre[1:3, 0], [1.52, 1.82], atol=5e-3)


def test_long_silence_forgets():
    assert abs(run("silence").h[-1, 0]) < 1e-3


def test_softmax_example():
    p = softmax(np.array(SOFTMAX_SCORES))
    np.testing.assert_allclose(p, [0.038, 0.125, 0.001, 0.837], atol=5e-4)
    at = lambda t: sampling_distribution(np.array(SOFTMAX_SCORES), t)  # noqa: E731
    assert at(0.5)[3] > p[3] > at(2.0)[3]
