"""The gradients page's words: they name this run's numbers, so they always say what the page shows; the learning
rates a link may carry; the per-server caches."""
import time

import numpy as np
import pytest

from rnnviz.lessons import clipping, gradients as lesson
from rnnviz.text import format_norm
from ui.lessons import clipping as clip_words, gradients as words, lag as lag_words


def vanilla(seed, preset, H=32, T=50):
    sets = {"scale": 0.9, "by": "sigma", "xs": 0.5, **words.PRESETS[preset]["sets"]}
    cmp = lesson.compare(H, T, sets["scale"], 1.0, sets["xs"], seed, sets["by"], cells=("rnn",))
    return cmp, cmp.reports["rnn"].log10_spectral


def test_lstm_note_names_both_cell_curves():
    cmp = lesson.compare(16, 60, 0.9, 10.0, 0.0, 0)
    note, c = words.factor_notes(cmp, 60)[1], lesson.curves(cmp)
    assert format_norm(c["lstm_f"][60]) in note and format_norm(c["lstm_c"][60]) in note


def test_notes_table_as_the_notes_print_it():
    tab = words.notes_table()
    assert tab["vanilla (0.5×0.9)ᵗ"] == ["1", "1.8 × 10⁻²", "3.4 × 10⁻⁴", "1.2 × 10⁻⁷", "1.3 × 10⁻¹⁴"]  # notes 004
    assert tab["LSTM f = 0.9: 0.9ᵗ"] == ["1", "0.59", "0.35", "0.12", "0.015"]
    assert list(words.reference_curves(np.arange(3))) == list(words.REFERENCES.values())


def test_the_dashes_are_named_in_the_charts_own_variable():
    """The decay chart's x axis is k, steps back; its legend named the notes' dashes '(0.5·0.9)ᵗ' and '0.9ᵗ', while
    t on the same chart is the step the gradient reaches (k = T − t). They are named in k, and the notes' table
    below says its t is that k."""
    names = list(words.reference_curves(np.arange(3)))
    assert names[:2] == ["vanilla (0.5·0.9)<sup>k</sup>", "LSTM 0.9<sup>k</sup>"]
    assert "t is the chart's k" in words.NOTES_CAPTION


def test_compared_is_computed_once_and_shared_read_only():
    a = words.compared(4, 10, 0.9, 1.0, 0.5, 0)
    assert words.compared(4, 10, 0.9, 1.0, 0.5, 0) is a
    with pytest.raises(ValueError):
        a.reports["rnn"].log10_spectral[0] = 1.0


def test_rates_in_links():
    assert words.parse_rate("0.3") == 0.3 and words.PARAMS[10].parse is words.parse_rate
    for bad in ("0.31", "nan", "1e9"):
        with pytest.raises(ValueError):
            words.parse_rate(bad)


def test_clip_about_names_the_numbers_it_trains_with():
    assert f"({clipping.HIDDEN} units" in clip_words.CLIP_ABOUT
    assert f"first {clipping.TEXT_CHARS} characters" in clip_words.CLIP_ABOUT
    assert clip_words.done_text(True, 1.0).endswith("results kept.")
    assert clip_words.done_text(False, 1.24) == "Both runs trained in 1.2 s."


def test_gru_note_says_why_it_vanishes_fastest_only_when_it_does():
    fast = lesson.compare(32, 50, 0.9, 1.0, 0.5, 0, "rho")  # the old default: the GRU ends lowest
    assert lesson.slowest(fast) == "gru" and "vanishes fastest here" in words.factor_notes(fast, 50)[2]
    other = lesson.compare(32, 50, 0.9, 1.0, 0.5, 0)  # sigma_max = 0.9: the vanilla RNN ends lowest
    assert lesson.slowest(other) == "rnn" and "fastest" not in words.factor_notes(other, 50)[2]
    assert "0.500" in words.factor_notes(other, 50)[2]  # z = sigma(0) on average
    ends = [lesson.curves(lesson.compare(32, 50, 0.9, 1.0, 0.5, 0, update_bias=b))["gru"][50] for b in (0, 2, 5)]
    assert np.all(np.diff(ends) > 0) and 10 ** ends[-1] > 0.5  # raising b_z flattens it, as the note says


def test_clip_note_names_the_difference_with_the_metric():
    """The two 'vanilla, 50 back' numbers: sigma_max of the Jacobian (metric) >= the one loss's gradient (clipping)."""
    for seed, preset in [(0, "vanish"), (0, "explode"), (3, "explode")]:
        cmp, logs = vanilla(seed, preset)
        demo = lesson.clip_demo(cmp.reports["rnn"], 50, 1.0)
        assert demo["log10_before"] <= logs[50] + 1e-9
        note = words.clip_note(demo, logs[50], 50)
        assert format_norm(logs[50]) in note and demo["before"] in note and "at most" in note


def test_scale_note_reports_both_sizes():
    cmp = lesson.compare(32, 10, 0.9, 1.0, 0.5, 0)
    note = words.scale_note(cmp, "sigma", 0.9)
    assert f"{cmp.sigma_max:.3f}" in note and f"{cmp.rho:.3f}" in note and cmp.rho < cmp.sigma_max
    assert "σₘₐₓ = 0.9)" in note and "ρ = 1.5)" in words.scale_note(cmp, "rho", 1.5)
    assert "guarantees vanishing" in words.SCALE_NOTE and "ρ ≤ σₘₐₓ" in words.SCALE_NOTE
    assert "random and untrained" in words.SCALE_NOTE  # shown in classroom mode too, where the intro is not
    assert "L = u \\cdot h_T" in words.LOSS_NOTE and "sqrt{H}" in words.LOSS_NOTE  # what L is


def test_each_run_is_under_three_seconds_reports_progress_and_is_kept():
    seen = []
    pr = clip_words.CLIP_PRESETS["explode"]["sets"]
    s = clipping.Settings(pr["rho"], pr["lr"], 2.0, seed=7)
    t0 = time.process_time()
    clip_words.train_pair(s, seen.append)
    assert (time.process_time() - t0) / 2 < 3.0  # CPU seconds per run (the machine is shared)
    assert seen == sorted(seen) and seen[-1] == 1.0 and len(seen) >= 10
    assert clip_words.cached(s)
    t0 = time.perf_counter()
    clip_words.train_pair(s)
    assert time.perf_counter() - t0 < 0.05  # a setting seen before is not retrained


def test_paths_note_explains_why_all_paths_exceed_the_forget_path():
    """The issue: 'LSTM c, all paths' read 116 at forget bias 10 while the forget path read 0.998, with no word why."""
    c = lesson.curves(lesson.compare(32, 50, 0.9, 10.0, 0.5, 0))
    note = words.paths_note(c, 50)
    assert format_norm(c["lstm_f"][50]) in note and format_norm(c["lstm_c"][50]) in note
    assert "f ≈ 1 nothing shrinks the detours" in note
    assert f"{format_norm(c['lstm_c'][50] - c['lstm_f'][50])} times" in note
    same = {"lstm_f": np.zeros(51), "lstm_c": np.full(51, 0.1)}
    assert words.paths_note(same, 50) is None  # within a factor 1.5: nothing to explain
    default = lesson.curves(lesson.compare(32, 50, 0.9, 1.0, 0.5, 0))  # both tiny: no contradiction to explain
    assert default["lstm_f"][50] < -3 and words.paths_note(default, 50) is None


def test_clip_note_says_when_the_threshold_can_do_nothing():
    """The issue: at default settings the threshold had no visible effect (norm 1.6e-15) and nothing said so."""
    cmp, logs = vanilla(0, "vanish")
    demo = lesson.clip_demo(cmp.reports["rnn"], 50, 1.0)
    note = words.clip_note(demo, logs[50], 50)
    assert "threshold has no effect here" in note and format_norm(np.log10(0.1) - demo["log10_before"]) in note
    cmp, logs = vanilla(0, "explode")
    assert "no effect" not in words.clip_note(lesson.clip_demo(cmp.reports["rnn"], 50, 1.0), logs[50], 50)


def test_the_two_clip_thresholds_are_named_apart_and_vanish_undoes_explode():
    """The issue: two 'clip threshold' sliders defaulting to 1.0 and 2.0; Vanish left Explode's input scale 0."""
    a, b = words.CONTROLS["clip"].label, words.CONTROLS["tclip"].label
    assert a != b and "∂L/∂h₀" in a and "training" in b
    assert words.PRESETS["vanish"]["sets"]["xs"] == words.DEFAULTS["xs"] != words.PRESETS["explode"]["sets"]["xs"]


def test_calm_verdict_says_clipping_every_step_slows_it():
    """The issue: the Calm preset showed the clipped run learning slower (a threshold of 2 clips every step)."""
    calm, clip = clip_words.CLIP_PRESETS["calm"]["sets"], words.DEFAULTS["tclip"]
    s = clipping.Settings(calm["rho"], calm["lr"], clip, steps=40)  # the page trains 200; 40 show it, 5x faster
    summ = clipping.summary(clip_words.train_pair(s), clip)
    text = clip_words.verdict(summ, clip)
    n = summ["clipped"]["over_clip"]
    assert n == summ["clipped"]["steps"] and f"at {n} of {n} steps (100%)" in text and "learns slower" in text
    assert "Why they differ" not in clip_words.verdict(summ)  # without the threshold it cannot say


def test_lag_gap_in_percentage_points():
    import json

    from rnnviz import resources
    res = json.loads(resources.path("lag_results.json").read_text())
    for row, acc in (("lstm_f0", 0.90), ("lstm", 0.93)):
        res["cells"][row]["accuracy"] = [[1.0] * (len(res["lags"]) - 1) + [acc] for _ in res["seeds"]]
    text = lag_words.lag_summary(res)
    assert "within 3 percentage points at every lag" in text and "within 3%" not in text
