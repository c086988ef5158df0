"""Learning the lag: the task, equal parameter counts (as torch counts them), the shipped results and what the page
says about them (every number it states read back from the JSON), and the CLI on a tiny budget."""
import json
import re

import numpy as np
import pytest

from rnnviz.experiments import lag, lag_results, lag_task, lag_train
from rnnviz.figures.gradients import lag_curve_figure, lag_figure
from ui.lessons import lag as lag_words


def test_the_target_is_the_first_symbol_and_the_curriculum_draws_lags_up_to_k():
    x, read, y = lag_task.first_symbol_task(np.random.default_rng(0), 500, 5, 8)
    assert x.shape == (500, 6) and np.array_equal(y, x[:, 0]) and x.min() >= 0 and x.max() < 8
    assert read.min() == 1 and read.max() == 5
    _, read, _ = lag_task.first_symbol_task(np.random.default_rng(0), 50, 5, 8, curriculum=False)
    assert np.all(read == 5)


def test_equal_sizes_give_equal_parameter_counts_as_torch_counts_them():
    pytest.importorskip("torch")

    sizes = lag_task.equal_sizes(8, 32)
    assert sizes["lstm"] == sizes["lstm_f0"] == 32
    counts = {}
    for row, H in sizes.items():
        m = lag_train._model(row, H, 8, 0)
        r = lag_task.readout_size(row, H, 8)
        counts[row] = sum(p.numel() for p in m.parameters()) + r * 8 + 8  # plus the output layer
        assert counts[row] == lag_task.param_count(row, H, 8), row
    assert max(counts.values()) / min(counts.values()) < 1.04


def test_the_lstm_starts_from_the_forget_bias_the_gates_page_teaches():
    pytest.importorskip("torch")
    from ui.lessons.gates import SETTINGS

    taught = next(p.default for p in SETTINGS if p.key == "gates.bf")
    assert lag_task.TAUGHT_FORGET_BIAS == taught == lag_task.ROWS["lstm"][1] and lag_task.ROWS["lstm_f0"][1] == 0.0
    m = lag_train._model("lstm", 4, 8, 0).m
    assert (m.bias_ih_l0[4:8] + m.bias_hh_l0[4:8]).tolist() == [taught] * 4


def fake(acc, lags=(1, 2, 4), curve=None):
    res = {"lags": list(lags), "seeds": list(range(len(next(iter(acc.values()))))), "task": {"symbols": 8},
           "budget": {"steps": 10, "batch": 4, "lstm_hidden": 3}, "command": "python -m rnnviz.lag", "seconds": 1.0,
           "cells": {c: {"hidden_size": 3, "params": 100, "accuracy": a,
                         "forget_bias": {"lstm": 1.0, "lstm_f0": 0.0}.get(c)} for c, a in acc.items()}}
    if curve:
        res["curve"] = curve
    return res


def test_summary_says_where_the_gates_win_and_when_they_do_not():
    won = fake({"rnn": [[1.0, 0.5, 0.2], [1.0, 0.6, 0.15]], "lstm_f0": [[1.0, 0.2, 0.1], [1.0, 0.3, 0.1]],
                "lstm": [[1.0, 1.0, 0.95], [1.0, 1.0, 0.99]], "gru": [[1.0, 0.96, 0.93], [1.0, 1.0, 0.91]]})
    text = lag_words.lag_summary(won)
    assert lag_results.aim_lags(won) == [4] and "Gates win at lag 4" in text
    assert "95%–99%" in text and "91%–93%" in text and "15%–20%" in text
    assert "vanilla RNN up to lag 1" in text and "LSTM ($b_f$ = +1) up to lag 4" in text
    assert "at lag 4 the LSTM ($b_f$ = 0) scored 10% and the LSTM ($b_f$ = +1) 95%–99%" in text
    lost = fake({c: [[1.0, 0.95, 0.5]] for c in ("rnn", "lstm", "gru")})
    text = lag_words.lag_summary(lost)
    assert lag_results.aim_lags(lost) == [] and "not reached" in text and "LSTM ($b_f$ = +1) 50%" in text
    assert lag_results.best_lag(fake({"rnn": [[0.5, 1.0, 1.0]]}), "rnn") is None


def numbers(text: str) -> list[float]:
    return [float(v) / 100 for v in re.findall(r"(\d+(?:\.\d)?)%", text)]


@pytest.mark.skipif(not lag_results.RESULTS.exists(), reason="no shipped results")
def test_shipped_results_say_how_they_were_made_and_the_page_states_their_numbers():
    res = lag_results.load_results()
    assert res["command"].startswith("python -m rnnviz.lag") and len(res["seeds"]) >= 3 and res["budget"]["steps"]
    assert res["lags"] == sorted(res["lags"]) and res["cpu_seconds"] > 0
    for row, r in res["cells"].items():
        acc = np.asarray(r["accuracy"])
        assert acc.shape == (len(res["seeds"]), len(res["lags"])) and np.all((acc >= 0) & (acc <= 1))
        assert r["params"] == lag_task.param_count(row, r["hidden_size"], res["task"]["symbols"])
        assert lag_task.ROWS[row] == (r["cell"], r["forget_bias"])
        curve = np.asarray(res["curve"]["accuracy"][row])
        assert curve.shape == (len(res["seeds"]), len(res["curve"]["step"]))
    # every percentage the page states is one of the JSON's numbers (a seed's, a mean, or twice chance), rounded
    known = {round(v, 3) for r in res["cells"].values() for v in np.ravel(r["accuracy"])}
    known |= {round(v, 3) for r in res["cells"].values() for v in np.mean(r["accuracy"], axis=0)}
    known |= {round(v, 3) for r in res["curve"]["accuracy"].values() for v in np.mean(r, axis=0)}
    known |= {0.9, round(2 / res["task"]["symbols"], 3)}
    text = lag_words.lag_summary(res) + lag_words.curve_summary(res)
    for v in numbers(text):
        assert any(abs(v - k) <= 0.005 + 1e-9 for k in known), v
    for k in lag_results.aim_lags(res):
        assert f"Gates win at lag {', '.join(map(str, lag_results.aim_lags(res)))}" in text
    if not lag_results.aim_lags(res):
        assert "not reached" in text
    prov = lag_words.provenance(res)
    assert res["command"] in prov and f"{res['cpu_seconds']:.0f} s of CPU" in prov
    fig = lag_figure(res)
    means = [tr for tr in fig.data if tr.mode == "lines+markers"]
    assert len(means) == len(res["cells"]) and all(list(tr.customdata) == res["lags"] for tr in means)
    # each row drawn a little to the side of its lag, in the legend's order, so that equal accuracies stay apart
    for k, lag_k in enumerate(res["lags"]):
        xs = [tr.x[k] for tr in means]
        assert xs == sorted(xs) and len(set(xs)) == len(xs) and all(0.8 * lag_k < v < 1.25 * lag_k for v in xs)
    for tr, row in zip(means, [r for r in lag_task.ROWS if r in res["cells"]]):
        np.testing.assert_allclose(tr.y, np.mean(res["cells"][row]["accuracy"], axis=0))
    bars = [tr for tr in fig.data if tr.mode == "lines"]
    for tr, row in zip(bars, [r for r in lag_task.ROWS if r in res["cells"]]):
        acc = np.asarray(res["cells"][row]["accuracy"])
        assert list(tr.y[0::3]) == list(acc.min(axis=0)) and list(tr.y[1::3]) == list(acc.max(axis=0))
    curve = lag_curve_figure(res)
    assert [list(tr.x) for tr in curve.data if tr.mode == "lines+markers"][0] == res["curve"]["step"]


def test_figures_draw_the_seed_spread_as_bars():
    res = fake({"rnn": [[1.0, 0.5], [0.8, 0.3]], "gru": [[1.0, 1.0], [1.0, 0.9]]}, lags=(1, 2),
               curve={"lag": 2, "step": [5, 10], "stage_steps": 5, "streams": 8,
                      "accuracy": {"rnn": [[0.2, 0.3], [0.1, 0.3]], "gru": [[0.5, 1.0], [0.7, 1.0]]}})
    fig = lag_figure(res)
    bars = [tr for tr in fig.data if tr.mode == "lines"]
    assert list(bars[0].y) == [0.8, 1.0, None, 0.3, 0.5, None]
    curve = lag_curve_figure(res)
    assert len([tr for tr in curve.data if tr.mode == "lines+markers"]) == 2
    summary = lag_words.curve_summary(res)
    assert "GRU at step 10" in summary and "vanilla RNN never (best 30%)" in summary


@pytest.mark.slow
def test_cli_on_a_tiny_budget(tmp_path, capsys):
    out = tmp_path / "lag.json"
    argv = ["--lags", "1", "3", "--steps", "4", "--seeds", "0", "--curve-every", "2", "--out", str(out)]
    assert lag.main(argv) == 0
    res = json.loads(out.read_text())
    assert res["command"] == "python -m rnnviz.lag " + " ".join(argv) and res["device"] == "cpu"
    assert res["lags"] == [1, 3] and res["budget"]["steps_per_lag"] == 4 and res["seeds"] == [0]
    assert set(res["cells"]) == set(lag_task.ROWS) and res["curve"]["step"] == [2, 4]  # the curve: lag 3, from scratch
    weights = lag_results.load_weights(tmp_path / "lag_models.safetensors")
    assert set(weights) == set(lag_task.SHIPPED) and weights["lstm"]["W_ih"].shape == (4 * 32, 8)
    assert "wrote" in capsys.readouterr().out


def test_cli_refuses_a_bad_budget():
    with pytest.raises(SystemExit):
        lag.main(["--lags", "0", "--out", "/dev/null"])


def test_merge_joins_parts_run_side_by_side(tmp_path):
    from safetensors.numpy import save_file

    base = fake({"rnn": [[1.0, 0.5, 0.2]], "lstm": [[1.0, 1.0, 0.95]]},
                curve={"lag": 4, "step": [5], "stage_steps": None, "streams": 8,
                       "accuracy": {"rnn": [[0.2]], "lstm": [[0.9]]}})
    base.update(taught_forget_bias=1.0, device="cpu", torch="2", threads=1, cpu_seconds=3.0)
    for c in base["cells"].values():
        c["cpu_seconds"] = 3.0
    paths = []
    for row, secs in (("rnn", 5.0), ("lstm", 7.0)):
        part = json.loads(json.dumps(base))
        part["cells"] = {row: part["cells"][row]}
        part["curve"]["accuracy"] = {row: part["curve"]["accuracy"][row]}
        part.update(seconds=secs, command=f"python -m rnnviz.lag --lags 1 2 4 --rows {row} --out x_{row}.json "
                                          f"--weights x_{row}.safetensors")
        paths.append(tmp_path / f"part_{row}.json")
        paths[-1].write_text(json.dumps(part))
        save_file({f"{row}.W_hh": np.full((2, 2), secs, np.float32)}, str(paths[-1].with_suffix(".safetensors")))
    out = tmp_path / "merged.json"
    assert lag.main(["--merge", *map(str, paths), "--out", str(out)]) == 0
    res = json.loads(out.read_text())
    assert list(res["cells"]) == ["rnn", "lstm"] and list(res["curve"]["accuracy"]) == ["rnn", "lstm"]
    assert res["seconds"] == 7.0 and res["cpu_seconds"] == 6.0 and len(res["parts"]) == 2
    assert res["command"] == "python -m rnnviz.lag --lags 1 2 4 --seeds 0 --rows rnn lstm --out models/lag_results.json"
    w = lag_results.load_weights(tmp_path / "lag_models.safetensors")
    assert w["rnn"]["W_hh"][0, 0] == 5.0 and w["lstm"]["W_hh"][0, 0] == 7.0
    # a row split by seeds: joined in seed order, the weights from seed 0's part only
    seed1 = json.loads(paths[1].read_text())
    seed1.update(seeds=[1], command=seed1["command"] + " --seeds 1")
    seed1["cells"]["lstm"]["accuracy"] = [[0.1, 0.2, 0.3]]
    seed1["curve"]["accuracy"]["lstm"] = [[0.4]]
    paths.append(tmp_path / "part_lstm1.json")
    paths[-1].write_text(json.dumps(seed1))
    save_file({"lstm.W_hh": np.full((2, 2), 9.0, np.float32)}, str(paths[-1].with_suffix(".safetensors")))
    with pytest.raises(ValueError, match="rnn was run for seeds"):
        lag_results.merge(paths)
    res, shipped = lag_results.merge(paths[1:])
    assert res["seeds"] == [0, 1] and res["cells"]["lstm"]["accuracy"] == [[1.0, 1.0, 0.95], [0.1, 0.2, 0.3]]
    assert res["curve"]["accuracy"]["lstm"] == [[0.9], [0.4]] and shipped["lstm.W_hh"][0, 0] == 7.0
    assert "--seeds 0 1 --rows lstm" in res["command"] and res["cells"]["lstm"]["cpu_seconds"] == 6.0
    paths[1].write_text(json.dumps(dict(json.loads(paths[1].read_text()), lags=[5])))
    with pytest.raises(ValueError, match="same settings"):
        lag_results.merge(paths)


def test_on_a_projector_the_training_curve_has_its_own_legend():
    """Side by side (a laptop) the two lag charts share the first one's legend; on a projector they stack, and the
    training curve, 600 px below that legend, named none of its six lines."""
    res = lag_results.load_results()
    if res is None:
        pytest.skip("no shipped lag results")
    named = lambda fig: [tr.name for tr in fig.data if tr.showlegend is not False]  # noqa: E731
    assert named(lag_curve_figure(res)) == []
    projector = lag_curve_figure(res, 1.45)
    assert named(projector) == named(lag_figure(res, 1.45)) and projector.layout.legend.orientation == "h"


def test_on_a_projector_the_lag_charts_keep_one_legend_row_under_the_axis():
    """Stacked across a projector's width the six entries fit one row: a margin for three (210 px) left an empty band
    of about 100 px under each legend, and the plots 90 px shorter."""
    res = lag_results.load_results()
    if res is None:
        pytest.skip("no shipped lag results")
    for fig in (lag_figure(res, 1.45), lag_curve_figure(res, 1.45)):
        plot = fig.layout.height - fig.layout.margin.t - fig.layout.margin.b
        below = -fig.layout.legend.y * plot  # the legend's top, under the plot, in px
        assert fig.layout.margin.b - below <= 60 and plot >= 300  # one 25 px row of 17 px type, and some air
    assert lag_figure(res).layout.margin.b == 150  # beside the curve on a laptop: up to three rows
