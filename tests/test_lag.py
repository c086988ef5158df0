"""Learning the lag: the task, equal parameter counts (as torch counts them), the shipped results and what the page
says about them, and the CLI on a tiny budget."""
import json

import numpy as np
import pytest

from rnnviz.experiments import lag
from rnnviz.figures.gradients import lag_figure
from ui.lessons import gradients as words


def test_target_is_the_symbol_lag_steps_back():
    x, y = lag.delayed_recall(np.random.default_rng(0), 4, 20, 5, 8)
    assert x.shape == y.shape == (4, 20) and x.min() >= 0 and x.max() < 8
    assert np.all(y[:, :5] == -1) and np.array_equal(y[:, 5:], x[:, :15])


def test_equal_sizes_give_equal_parameter_counts_as_torch_counts_them():
    import torch

    sizes = lag.equal_sizes(8, 32)
    assert sizes["lstm"] == 32
    counts = {}
    for cell, H in sizes.items():
        m = {"rnn": torch.nn.RNN, "lstm": torch.nn.LSTM, "gru": torch.nn.GRU}[cell](8, H)
        counts[cell] = sum(p.numel() for p in m.parameters()) + H * 8 + 8  # plus the output layer
        assert counts[cell] == lag.param_count(cell, H, 8)
    assert max(counts.values()) / min(counts.values()) < 1.04


def fake(acc, lags=(1, 2, 4)):
    return {"lags": list(lags), "seeds": [0], "task": {"symbols": 8},
            "budget": {"steps": 10, "batch": 4}, "command": "python -m rnnviz.lag", "seconds": 1.0,
            "cells": {c: {"hidden_size": 3, "params": 100, "accuracy": [a]} for c, a in acc.items()}}


def test_summary_is_honest_about_a_budget_that_does_not_separate():
    same = fake({c: [1.0, 0.95, 0.5] for c in lag.CELLS})
    text = words.lag_summary(same)
    assert "do not separate" in text and "up to lag 2" in text
    apart = fake({"rnn": [1.0, 0.5, 0.2], "lstm": [1.0, 1.0, 0.95], "gru": [1.0, 0.96, 0.3]})
    text = words.lag_summary(apart)
    assert "LSTM does best" in text and "vanilla RNN up to lag 1" in text and "LSTM up to lag 4" in text
    assert lag.best_lag(fake({"rnn": [0.5, 1.0, 1.0]}), "rnn") is None


@pytest.mark.skipif(not lag.RESULTS.exists(), reason="no shipped results")
def test_shipped_results_say_how_they_were_made():
    res = lag.load_results()
    assert res["command"].startswith("python -m rnnviz.lag") and res["seeds"] and res["budget"]["steps"] > 0
    assert res["lags"] == sorted(res["lags"])
    for cell in lag.CELLS:
        r = res["cells"][cell]
        acc = np.asarray(r["accuracy"])
        assert acc.shape == (len(res["seeds"]), len(res["lags"])) and np.all((acc >= 0) & (acc <= 1))
        assert r["params"] == lag.param_count(cell, r["hidden_size"], res["task"]["symbols"])
    fig = lag_figure(res)
    means = [tr for tr in fig.data if tr.mode == "lines+markers"]
    assert len(means) == 3 and all(list(tr.x) == res["lags"] for tr in means)
    assert "python -m rnnviz.lag" in words.provenance(res)


@pytest.mark.slow
def test_cli_on_a_tiny_budget(tmp_path, capsys):
    out = tmp_path / "lag.json"
    assert lag.main(["--lags", "1", "3", "--steps", "3", "--seeds", "0", "--out", str(out)]) == 0
    res = json.loads(out.read_text())
    assert res["command"] == f"python -m rnnviz.lag --lags 1 3 --steps 3 --seeds 0 --out {out}"
    assert res["lags"] == [1, 3] and res["budget"]["steps"] == 3 and res["seeds"] == [0]
    assert set(res["cells"]) == set(lag.CELLS) and "wrote" in capsys.readouterr().out


def test_cli_refuses_a_bad_budget():
    with pytest.raises(SystemExit):
        lag.main(["--lags", "0", "--out", "/dev/null"])
