"""Explosion vs clipping, trained live: the gradient against torch.autograd, the presets doing what they say, the same
start and batches for both runs, speed, and overflow handled."""

from dataclasses import replace

import numpy as np
import pytest
import torch

from rnnviz.lessons import clipping
from rnnviz.nn.cells import spectral_radius
from ui.lessons import clipping as words


def settings(name, **kw):
    pr = words.CLIP_PRESETS[name]["sets"]
    return clipping.Settings(pr["rho"], pr["lr"], kw.pop("clip", 2.0), **kw)


def test_training_text_is_the_excerpts_first_400_characters():
    vocab, ids = clipping.corpus()
    text = clipping.EXCERPT.read_text(encoding="utf-8")[:400]
    assert len(ids) == 400 and "".join(vocab[i] for i in ids) == text and text.startswith("BIANCA:")


def test_window_gradient_matches_autograd():
    vocab, ids = clipping.corpus()
    V, H = len(vocab), clipping.HIDDEN
    p = clipping.init_params(V, 2.0, seed=3)
    assert spectral_radius(p["W_hh"]) == pytest.approx(2.0)
    x, y = clipping.batches(ids, 2, seed=3)
    loss, g = clipping.window_loss_and_grads(p, x[1], y[1])
    rnn, out = torch.nn.RNN(V, H, batch_first=True).double(), torch.nn.Linear(H, V).double()
    with torch.no_grad():
        for name, key in (("weight_ih_l0", "W_ih"), ("weight_hh_l0", "W_hh"), ("bias_ih_l0", "b_ih"),
                          ("bias_hh_l0", "b_hh")):
            getattr(rnn, name).copy_(torch.from_numpy(p[key]))
        out.weight.copy_(torch.from_numpy(p["W_y"]))
        out.bias.copy_(torch.from_numpy(p["b_y"]))
    xs = torch.nn.functional.one_hot(torch.from_numpy(x[1]), V).double()
    logits = out(rnn(xs)[0])  # (B, W, V)
    ce = torch.nn.functional.cross_entropy(logits.reshape(-1, V), torch.from_numpy(y[1]).reshape(-1), reduction="sum")
    (ce / clipping.BATCH).backward()  # summed over each window, averaged over the batch
    assert loss == pytest.approx(ce.item() / y[1].size, rel=1e-10)  # drawn per character
    for key, param in (("W_ih", rnn.weight_ih_l0), ("W_hh", rnn.weight_hh_l0), ("b_ih", rnn.bias_ih_l0),
                       ("b_hh", rnn.bias_hh_l0), ("W_y", out.weight), ("b_y", out.bias)):
        np.testing.assert_allclose(g[key], param.grad.numpy(), rtol=1e-9, atol=1e-12)
    norm = torch.sqrt(sum((q.grad ** 2).sum() for q in list(rnn.parameters()) + list(out.parameters())))
    assert clipping.log10_norm(g) == pytest.approx(np.log10(norm.item()), abs=1e-12)


def test_clipping_step_matches_torch_clip_grad_norm():
    vocab, ids = clipping.corpus()
    p = clipping.init_params(len(vocab), 2.0, seed=0)
    x, y = clipping.batches(ids, 1, seed=0)
    run = clipping.sgd(p, x, y, lr=0.3, clip=2.0)
    _, g = clipping.window_loss_and_grads(p, x[0], y[0])
    params = [torch.nn.Parameter(torch.from_numpy(p[k].copy())) for k in sorted(p)]
    for q, k in zip(params, sorted(p)):
        q.grad = torch.from_numpy(g[k].copy())
    torch.nn.utils.clip_grad_norm_(params, 2.0)
    assert 10 ** run["log10_norm"][0] > 2.0  # the step was clipped
    clipped = np.sqrt(sum(float((q.grad.numpy() ** 2).sum()) for q in params))
    assert clipped == pytest.approx(2.0, rel=1e-5)


@pytest.mark.parametrize("clipped", [False, True])
def test_runs_trained_together_are_each_the_run_trained_alone_to_the_bit(clipped):
    """A drag's set of notches is trained together (`runs`): each run equals the page's own, trained alone, to the bit,
    whichever others share its batch (the radii, rates and thresholds of a set)."""
    base = clipping.Settings(2.0, 0.3, 2.0, steps=40, seed=5)
    together = [base, replace(base, radius=3.0, lr=1.0), replace(base, radius=0.7), replace(base, lr=0.05),
                replace(base, clip=0.5), replace(base, clip=20.0)]
    got = clipping.runs(together, clipped)
    for s, run in zip(together, got):
        alone = clipping.one_run(s, clipped)
        assert alone["overflow"] == run["overflow"]
        for key in ("loss", "log10_norm"):
            assert np.array_equal(alone[key], run[key], equal_nan=True), (s, key)
    assert not np.array_equal(got[0]["loss"], got[2]["loss"])  # and they are different runs


def test_a_run_whose_weights_overflow_stops_there_and_the_others_trained_with_it_go_on():
    vocab, ids = clipping.corpus()
    good, bad = (clipping.init_params(len(vocab), r, seed=0) for r in (2.0, 2.0))
    bad["W_y"] = bad["W_y"] * 1e308  # its logits leave float range at the first step
    x, y = clipping.batches(ids, 10, seed=0)
    stacked = {k: np.stack([good[k], bad[k]]) for k in good}
    first, second = clipping.sgd_many(stacked, x, y, np.array([0.3, 0.3]), np.array([np.inf, np.inf]))
    assert second["overflow"] == 1 and np.isnan(second["loss"]).all()
    alone = clipping.sgd(good, x, y, 0.3, None)
    assert first["overflow"] is None and np.array_equal(first["loss"], alone["loss"])


def test_both_runs_start_from_the_same_weights_and_batches():
    runs = clipping.train_pair(settings("explode", steps=20))
    u, c = runs["unclipped"], runs["clipped"]
    assert u["loss"][0] == c["loss"][0] and u["log10_norm"][0] == c["log10_norm"][0]  # same start, same first batch
    assert u["loss"][1] != c["loss"][1]  # then the clipped step differs


def test_explode_preset_diverges_unclipped_and_learns_clipped():
    """Radius 2, a large rate: the unclipped loss sits above twice its start for many steps with ||g|| in the hundreds
    or more; the clipped run learns."""
    s = clipping.summary(clipping.train_pair(settings("explode")))
    u, c = s["unclipped"], s["clipped"]
    assert u["above_twice"] >= 150 and u["max_log10_norm"] >= 2.0
    assert c["above_twice"] == 0 and c["end"] < 0.6 * c["start"]
    text = words.verdict(s)
    assert "Unclipped: diverged" in text and "Clipped: learned" in text


def test_calm_preset_diverges_in_neither_run():
    runs = clipping.train_pair(settings("calm"))
    s = clipping.summary(runs)
    for r in s.values():
        assert r["above_twice"] == 0 and r["end"] < r["start"] and r["overflow"] is None
    assert np.nanmax(runs["unclipped"]["loss"]) <= 1.01 * s["unclipped"]["start"]
    assert "diverged" not in words.verdict(s)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_presets_hold_for_other_seeds(seed):
    s = clipping.summary(clipping.train_pair(settings("explode", seed=seed)))
    assert s["unclipped"]["above_twice"] >= 150 and s["unclipped"]["max_log10_norm"] >= 2.0
    assert s["clipped"]["above_twice"] == 0 and s["clipped"]["end"] < 0.6 * s["clipped"]["start"]
    s = clipping.summary(clipping.train_pair(settings("calm", seed=seed)))
    assert all(r["above_twice"] == 0 and r["end"] < r["start"] for r in s.values())


def test_overflowing_weights_end_the_run_cleanly():
    runs = clipping.train_pair(clipping.Settings(3.0, 1.0, 2.0, steps=120))
    s = clipping.summary(runs)
    assert "nan" not in words.verdict(s).lower()
    u = runs["unclipped"]
    if u["overflow"] is not None:
        assert np.isnan(u["loss"][u["overflow"] - 1:]).all()
