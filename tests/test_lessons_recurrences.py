"""The recurrences page's numbers: closed forms, torch autograd for the new cells' gradient curves, the gates page's
GRU, the scan's counts, and exported scripts that run and check themselves."""
import subprocess
import sys

import numpy as np
import pytest

from rnnviz.lessons import recurrences as lesson
from rnnviz.lessons.export import recurrence_script
from rnnviz.nn.scan import costs


def test_linear_run_is_a_to_the_k():
    tr = lesson.linear_run(0.9, 2.0, [1, 0, 0, 0], h0=0.5)
    assert np.allclose(tr.h[:, 0], [0.45 + 2, 0.9 * 2.45, 0.81 * 2.45, 0.729 * 2.45], atol=1e-15)
    assert lesson.linear_step(tr, 2) == pytest.approx({"x": 0.0, "h_prev": 2.45, "kept": 0.9 * 2.45, "written": 0.0,
                                                       "h": 0.9 * 2.45})


def test_eigen_response_is_gamma_r_to_the_t():
    r, theta = [0.999, 0.9, 0.3], [0.0, 0.3, 2.0]
    resp = lesson.eigen_response(r, theta, 1000)
    t = np.arange(1000)[:, None]
    want = np.log10(np.sqrt(1 - np.square(r))) + t * np.log10(r)
    finite = np.isfinite(resp.log10_abs)
    normal = want > -300  # below ~1e-308 float64 is subnormal and keeps fewer digits
    assert np.abs(resp.log10_abs[normal] - want[normal]).max() < 1e-9
    assert finite[:, :2].all() and not finite[-1, 2]  # 0.3^999 is below float64's smallest: exactly 0, log -inf
    assert resp.half_life == pytest.approx(np.log(2) / -np.log(r))


def test_min_lockstep_uses_the_gates_pages_gru():
    from rnnviz.lessons import gates

    ls = lesson.min_lockstep("hello", list("helo"), 3, 7)
    gru = gates.run("gru", ls.x, gates.generate("gru", 4, 3, 7, 0.9))
    assert np.array_equal(ls.h["gru"], gru.h) and np.array_equal(ls.keep["gru"], gru.z)
    assert ls.params == {"mingru": 30, "minlstm": 45, "gru": 81}
    mg = lesson.MINGRU.forward(ls.mingru_weights, ls.x)
    assert np.array_equal(ls.keep["mingru"], 1 - mg.z) and np.array_equal(ls.write["mingru"], mg.z * mg.h_tilde)


def test_new_cells_gradient_curves_match_torch_autograd():
    """||dh_T/dh_t||_2 through the whole run, by torch autograd on a torch loop of each cell, against the curves."""
    torch = pytest.importorskip("torch")
    from rnnviz.lessons.gradients import INPUT_SIZE

    H, T, seed = 4, 12, 4  # H = 4: the selective cell's state, one number per input channel
    curves = lesson.gradient_curves(H, T, seed)
    x = torch.tensor(np.random.default_rng(seed).normal(size=(T, INPUT_SIZE)))
    for name, cell in (("linear", lesson.LINEAR), ("mingru", lesson.MINGRU), ("selective", lesson.SELECTIVE)):
        p = {k: torch.tensor(v) for k, v in cell.init(INPUT_SIZE, H, np.random.default_rng(seed)).items()}

        def step(h, x_t, name=name, p=p):
            if name == "linear":
                return p["a"] * h + p["B"] @ x_t
            if name == "mingru":
                z = torch.sigmoid(p["W_z"] @ x_t + p["b_z"])
                return (1 - z) * h + z * (p["W_h"] @ x_t + p["b_h"])
            delta = torch.nn.functional.softplus(p["W_delta"] @ x_t + p["b_delta"])
            return (torch.exp(delta[:, None] * -torch.exp(p["A_log"])) * h.reshape(INPUT_SIZE, -1)
                    + delta[:, None] * p["B"] * x_t[:, None]).reshape(-1)

        n = H
        for k in (1, 5, T):  # steps back
            def tail(h, k=k, step=step):
                for s in range(T - k, T):
                    h = step(h, x[s])
                return h
            J = torch.autograd.functional.jacobian(tail, torch.zeros(n, dtype=torch.float64))
            assert abs(np.log10(torch.linalg.matrix_norm(J, 2).item()) - curves[name][k]) < 1e-10, (name, k)
    for old in ("rnn", "lstm", "gru"):  # the gradients page's cells
        assert curves[old][0] == 0 and np.all(np.diff(curves[old][:3]) < 0.5)


def test_scan_tree_and_costs():
    tree = lesson.scan_tree(16, 0)
    assert tree.levels_b.shape == (5, 16) and tree.max_diff < 1e-14
    assert np.allclose(tree.levels_b[-1], tree.loop)
    c = lesson.scan_costs(range(3, 6), repeats=1)
    assert list(c.T) == [8, 16, 32]
    for k, T in enumerate(c.T):
        assert all((c.work[n][k], c.depth[n][k]) == costs(int(T))[n] for n in c.work)
    assert all((c.seconds[n] > 0).all() for n in c.seconds)


@pytest.mark.slow  # a fresh python importing torch: tens of seconds on a shared machine
@pytest.mark.parametrize("cell", ["linear", "mingru"])
def test_exported_scripts_run_and_check_themselves(tmp_path, cell):
    pytest.importorskip("torch")
    if cell == "linear":
        code = recurrence_script("linear", [1, 0, 0, 0.5, 0, 0, 0], {"a": [0.97], "B": [[1.5]]})
    else:
        ls = lesson.min_lockstep("recurrence", list("recun"), 4, 2)
        code = recurrence_script("mingru", ls.x, ls.mingru_weights)
    f = tmp_path / "exported.py"
    f.write_text(code)
    out = subprocess.run([sys.executable, str(f)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "matches rnnviz to 1e-9; the scan equals the loop; dh_T/dh_0 = prod a_t" in out.stdout
    bad = tmp_path / "bad.py"
    bad.write_text(code.replace("expected = torch.tensor([[", "expected = torch.tensor([[0.125 + ", 1))
    out = subprocess.run([sys.executable, str(bad)], capture_output=True, text=True, timeout=120)
    assert out.returncode != 0 and "disagrees" in out.stderr


def test_the_gradient_comparison_leaves_room_under_its_lowest_point():
    """At T = 100 the axis spans 46 decades and its half-decade pad was 2 px: the vanilla RNN's last marker sat on the
    bottom edge, cut in half (a lecturer's walk). The pad grows with the span."""
    from rnnviz.figures.recurrences import gradient_compare
    from ui.lessons.recurrences import gradient_curves

    curves = gradient_curves(8, 100, 0)
    lo, hi = gradient_compare(curves).layout.yaxis.range
    lowest = min(float(np.nanmin(v[np.isfinite(v)])) for v in curves.values())
    assert (lowest - lo) / (hi - lo) >= 0.03
