"""The parallel scan equals the sequential loop, its tree holds the right values, and its work and depth are counted
as performed."""
import math

import numpy as np
import pytest

from rnnviz.nn.scan import blelloch, combine, costs, hillis_steele, sequential

LENGTHS = [1, 2, 3, 5, 7, 8, 16, 31, 100, 513, 1000, 2048, 4095, 4096]
KINDS = ["uniform", "near_one", "near_minus_one", "complex", "complex_near_unit_circle"]


def draw(kind: str, T: int, rng):
    if kind == "uniform":
        return rng.uniform(-1, 1, T), rng.normal(size=T)
    if kind == "near_one":
        return 1 - rng.uniform(0, 1e-3, T), rng.normal(size=T)
    if kind == "near_minus_one":
        return -(1 - rng.uniform(0, 1e-3, T)), rng.normal(size=T)
    r = rng.uniform(0, 1, T) if kind == "complex" else 1 - rng.uniform(0, 1e-3, T)
    return r * np.exp(1j * rng.uniform(-np.pi, np.pi, T)), rng.normal(size=T) + 1j * rng.normal(size=T)


def loop(a, b, h0=0.0):
    """h_t = a_t h_{t-1} + b_t written out once more, in plain Python."""
    h, out = h0, []
    for a_t, b_t in zip(a, b):
        h = a_t * h + b_t
        out.append(h)
    return np.array(out)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("T", LENGTHS)
def test_scans_equal_the_loop(kind, T):
    """To 1e-12 of the largest |h_t| (with |a| near 1 the states grow to ~100, and float64 keeps ~16 digits)."""
    rng = np.random.default_rng([T, KINDS.index(kind)])
    a, b = draw(kind, T, rng)
    h0 = 0.7 - 0.2j if np.iscomplexobj(a) else 0.7
    want = loop(a, b, h0)
    tol = 1e-12 * max(1.0, np.abs(want).max())
    for scan in (sequential, hillis_steele, blelloch):
        got = scan(a, b, h0).h
        assert got.shape == want.shape and np.iscomplexobj(got) == np.iscomplexobj(a)
        assert np.abs(got - want).max() <= tol, scan.__name__


def test_units_are_scanned_side_by_side():
    rng = np.random.default_rng(5)
    a, b = rng.uniform(-1, 1, (50, 4)), rng.normal(size=(50, 4))
    want = np.stack([loop(a[:, k], b[:, k]) for k in range(4)], axis=1)
    assert np.abs(hillis_steele(a, b).h - want).max() < 1e-12
    assert np.abs(blelloch(a, b).h - want).max() < 1e-12


def test_the_operator_is_associative_and_means_one_step_then_the_other():
    rng = np.random.default_rng(2)
    p, q, r = [(complex(*rng.normal(size=2)), complex(*rng.normal(size=2))) for _ in range(3)]
    left = combine(*combine(*p, *q), *r)
    right = combine(*p, *combine(*q, *r))
    assert np.allclose(left, right, atol=1e-14)
    h = 0.3 + 0.1j
    _, both = combine(*p, *q)
    assert abs((q[0] * (p[0] * h + p[1]) + q[1]) - (p[0] * q[0] * h + both)) < 1e-14


@pytest.mark.parametrize("T", [8, 16])
def test_tree_nodes_hold_the_composition_of_their_window(T):
    """Level k, node i holds steps max(1, i - 2^k + 1)..i composed: the product of their a's, and the state they
    reach from 0; the last level is every h_t."""
    rng = np.random.default_rng(T)
    a, b = rng.uniform(-1, 1, T), rng.normal(size=T)
    res = hillis_steele(a, b)
    assert len(res.levels_b) == int(math.log2(T)) + 1 and res.depth == int(math.log2(T))
    for k, (A, B) in enumerate(zip(res.levels_a, res.levels_b)):
        for i in range(T):
            lo = max(0, i - 2 ** k + 1)
            assert abs(A[i] - np.prod(a[lo:i + 1])) < 1e-14
            assert abs(B[i] - loop(a[lo:i + 1], b[lo:i + 1])[-1]) < 1e-14
    assert np.abs(res.levels_b[-1] - loop(a, b)).max() < 1e-14


@pytest.mark.parametrize("T", [8, 16])
def test_blelloch_up_sweep_holds_subtree_totals(T):
    rng = np.random.default_rng(T + 1)
    a, b = rng.uniform(-1, 1, T), rng.normal(size=T)
    res = blelloch(a, b)
    L = int(math.log2(T))
    assert len(res.levels_b) == 2 * L + 1 and res.depth == 2 * L + 1
    top_a, top_b = res.levels_a[L][-1], res.levels_b[L][-1]  # the root after the up-sweep: all T steps
    assert abs(top_a - np.prod(a)) < 1e-14 and abs(top_b - loop(a, b)[-1]) < 1e-13


@pytest.mark.parametrize("T", [1, 2, 5, 8, 1000, 2 ** 12, 2 ** 16])
def test_work_and_depth(T):
    c = costs(T)
    assert c["loop"] == (T - 1, T - 1)
    lvl = math.ceil(math.log2(T)) if T > 1 else 0
    assert c["hillis_steele"][1] == lvl and c["blelloch"][1] == 2 * lvl + 1
    assert c["hillis_steele"][0] <= T * max(lvl, 1) and c["blelloch"][0] <= 3 * 2 ** lvl
    if T <= 2 ** 12:
        a, b = np.full(T, 0.5), np.ones(T)
        for name, scan in (("loop", sequential), ("hillis_steele", hillis_steele), ("blelloch", blelloch)):
            r = scan(a, b)
            assert (r.work, r.depth) == c[name], name


@pytest.mark.parametrize("T", [2, 5, 8, 13])  # one step has no tree
def test_blelloch_down_sweep_leaves_each_step_its_exclusive_prefix(T):
    """After the down-sweep, node i holds the composition of steps 1..i-1 (the identity (1, 0) for the first): its
    product of a's and the state it leads to from 0. These are the tree's last level, which the page draws."""
    rng = np.random.default_rng(T)
    a, b = rng.uniform(-1, 1, T), rng.normal(size=T)
    s = blelloch(a, b)
    last_a, last_b = s.levels_a[-1][:T], s.levels_b[-1][:T]
    for i in range(T):
        assert last_a[i] == pytest.approx(np.prod(a[:i]), abs=1e-14)
        assert last_b[i] == pytest.approx(loop(a[:i], b[:i])[-1] if i else 0.0, abs=1e-14)


def test_real_steps_from_a_complex_start_stay_complex():
    """h0 decides the type too: real a and b from h0 = 0.5 + 1j give complex states, the imaginary part carried."""
    a, b, h0 = np.array([0.5, -0.8, 0.9]), np.array([1.0, 0.0, 2.0]), 0.5 + 1j
    want = loop(a, b, h0)
    for scan in (sequential, hillis_steele, blelloch):
        got = scan(a, b, h0).h
        assert np.iscomplexobj(got) and np.abs(got - want).max() < 1e-15, scan.__name__


def test_an_empty_sequence_scans_to_no_states():
    for scan in (sequential, hillis_steele, blelloch):
        s = scan(np.zeros(0), np.zeros(0), 0.3)
        assert s.h.shape == (0,) and (s.work, s.depth) == (0, 0), scan.__name__
        assert len(s.levels_a) == len(s.levels_b) == 1 and s.levels_a[0].shape == (0,), scan.__name__
    assert costs(0) == {"loop": (0, 0), "hillis_steele": (0, 0), "blelloch": (0, 0)}  # as the scans count it
    assert sequential([0.5, 0.5], [1.0, 2.0]).levels_a[0].tolist() == [0.5, 0.5]  # the loop's one level: its inputs


@pytest.mark.parametrize("a,b,h0,kind", [([1, 2], [1, 1], None, "f"), ([1, 2], [1, 1], 3, "f"),
                                          ([0.5j, 0.5], [1.0, 1.0], None, "c"), ([0.5, 0.5], [1j, 1.0], None, "c"),
                                          ([0.5j, 0.5], [1.0, 1.0], 1.0, "c"), ([0.5, 0.5], [1j, 1.0], 1.0, "c")])
def test_the_states_type_is_the_widest_of_the_inputs_and_at_least_float64(a, b, h0, kind):
    """Integers scan as float64; a complex a, b or h0 makes every state complex, whichever of them it is."""
    want = loop(a, b, 0.0 if h0 is None else h0)
    for scan in (sequential, hillis_steele, blelloch):
        got = scan(a, b, h0).h
        assert got.dtype == (np.complex128 if kind == "c" else np.float64), scan.__name__
        assert np.abs(got - want).max() < 1e-15, scan.__name__


def test_the_callers_arrays_are_left_as_they_were():
    a, b = np.array([0.5, 0.25, 2.0]), np.array([1.0, -1.0, 0.5])
    for scan in (sequential, hillis_steele, blelloch):
        scan(a, b, 0.75)
        assert a.tolist() == [0.5, 0.25, 2.0] and b.tolist() == [1.0, -1.0, 0.5], scan.__name__
