"""The gradients page's numbers: presets that do what they say for every seed, the two LSTM curves, one norm format,
the clip demo, the notes' table and 2^50 (the words beside them: test_ui_lessons_gradients.py)."""
import re

import numpy as np
import pytest

from rnnviz.lessons import gradients as lesson
from rnnviz.nn.cells import spectral_radius
from rnnviz.text import format_norm
from ui.lessons.gradients import PRESETS

SEEDS = range(100)
FORMAT = re.compile(r"^(0|\d\.\d\d × 10⁻?[⁰¹²³⁴⁵⁶⁷⁸⁹]+|\d\.\d\d|\d\d\.\d|\d{3}|0\.\d+)$")


def vanilla(seed, preset, H=32, T=50):
    sets = {"scale": 0.9, "by": "sigma", "xs": 0.5, **PRESETS[preset]["sets"]}
    cmp = lesson.compare(H, T, sets["scale"], 1.0, sets["xs"], seed, sets["by"], cells=("rnn",))
    return cmp, cmp.reports["rnn"].log10_spectral


@pytest.mark.parametrize("H,T", [(32, 50), (8, 120)])
def test_vanish_preset_vanishes_for_every_seed(H, T):
    """sigma_max = 0.9 and tanh' <= 1: after k steps the norm is at most 0.9^k, whatever the seed."""
    k = np.arange(T + 1)
    for seed in SEEDS:
        cmp, logs = vanilla(seed, "vanish", H, T)
        assert cmp.sigma_max == pytest.approx(0.9)
        assert np.all(logs <= k * np.log10(0.9) + 1e-9), seed


def test_explode_preset_explodes_for_every_seed():
    """rho = 1.5 with no input and zero biases: h stays 0, the Jacobian is W_hh^k and its norm at least 1.5^k."""
    for seed in SEEDS:
        cmp, logs = vanilla(seed, "explode")
        assert cmp.rho == pytest.approx(1.5)
        assert logs[50] >= 50 * np.log10(1.5) - 1e-9, seed
        assert logs[50] > 8  # above 1e8: no one calls that anything but exploded


def test_radius_mode_alone_does_not_vanish_for_every_seed():
    """Why the vanish preset sets sigma_max: rho = 0.9 leaves sigma_max above 1 (the issue's 1.22-1.78 for H = 32)."""
    sig = [lesson.compare(32, 5, 0.9, 1.0, 0.5, s, "rho", cells=("rnn",)).sigma_max for s in range(50)]
    assert min(sig) > 1.0


def test_every_recurrent_block_gets_the_scale():
    w = lesson.recurrent_weights("lstm", 6, 3, 0.7, "sigma", gate_bias=2.0)
    for k in range(4):
        assert np.linalg.norm(w["W_hh"][6 * k:6 * (k + 1)], 2) == pytest.approx(0.7)
    assert np.all(w["b_ih"][6:12] == 2.0) and np.all(w["b_ih"][:6] == 0) and np.all(w["b_hh"] == 0)
    w = lesson.recurrent_weights("gru", 5, 3, 1.2, "rho", gate_bias=-1.0)
    assert spectral_radius(w["W_hh"][5:10]) == pytest.approx(1.2) and np.all(w["b_ih"][5:10] == -1.0)


def test_forget_gate_path_flattens_as_the_page_says():
    """'Raise b_f and watch the forget-gate path flatten': it rises with b_f, and at b_f = 10 it keeps > 0.9."""
    for seed in range(5):
        ends = [lesson.curves(lesson.compare(32, 50, 0.9, bf, 0.5, seed))["lstm_f"][50] for bf in (-5, 0, 1, 3, 10)]
        assert np.all(np.diff(ends) > 0) and 10 ** ends[-1] > 0.9, seed


def test_the_two_cell_curves_differ_where_the_issue_saw_it():
    """xs=0&T=200&H=64&bf=10: the forget-gate path stays near 1 while the all-paths Jacobian grows."""
    cmp = lesson.compare(64, 200, 0.9, 10.0, 0.0, 0, cells=("lstm",))
    c = {"lstm_f": cmp.reports["lstm"].log10_forget_path.max(axis=1), "lstm_c": cmp.reports["lstm"].log10_cell_spectral}
    assert 10 ** c["lstm_f"][200] > 0.95
    assert c["lstm_c"][200] > 3  # above 1000: the detours through W_hh pile up when f is about 1


@pytest.mark.parametrize("log10,text", [(0.0, "1.00"), (np.log10(0.0346), "0.0346"), (np.log10(56.93), "56.9"),
                                        (np.log10(123.4), "123"), (np.log10(9780), "9.78 × 10³"),
                                        (np.log10(2.69e-5), "2.69 × 10⁻⁵"), (-5.0, "1.00 × 10⁻⁵"),
                                        (-450.4, "3.98 × 10⁻⁴⁵¹"),
                                        (np.log10(9.999e-5), "1.00 × 10⁻⁴"), (-np.inf, "0"), (350.0, "1.00 × 10³⁵⁰")])
def test_one_format_for_every_norm(log10, text):
    assert format_norm(log10) == text


def test_narrow_norms_for_metrics():
    """A metric column at 1400 px cut '8.09 × 10⁻¹⁶' to '8.09 × 10…'; the narrow form keeps the power."""
    assert format_norm(np.log10(8.09e-16), narrow=True) == "8.1×10⁻¹⁶" and format_norm(0.0, narrow=True) == "1.00"
    assert format_norm(-450.4, narrow=True) == "4.0×10⁻⁴⁵¹"


def test_clip_demo_before_and_after_in_the_same_format():
    """The issue: 'norm 1e-5, after clipping 2.69e-05'. Both now print alike, and alike when nothing is clipped."""
    cmp = lesson.compare(32, 50, 0.9, 1.0, 0.5, 0)
    demo = lesson.clip_demo(cmp.reports["rnn"], 50, 1.0)
    assert not demo["clipped"] and demo["before"] == demo["after"]
    assert re.match(r"^\d\.\d\d × 10⁻[⁰¹²³⁴⁵⁶⁷⁸⁹]+$", demo["before"])
    exploded = lesson.compare(32, 50, 1.5, 1.0, 0.0, 0, "rho")
    demo = lesson.clip_demo(exploded.reports["rnn"], 50, 1.0)
    assert demo["clipped"] and demo["after"] == "1.00" and re.match(r"^\d\.\d\d × 10[⁰¹²³⁴⁵⁶⁷⁸⁹]+$", demo["before"])
    assert np.linalg.norm(demo["direction"]) == pytest.approx(1.0)
    for d in (demo, lesson.clip_demo(cmp.reports["rnn"], 10, 0.5)):
        assert FORMAT.match(d["before"]) and FORMAT.match(d["after"])


def test_clip_demo_far_beyond_float_range_keeps_the_direction():
    from rnnviz.nn.cells import rnn_forward
    from rnnviz.nn.gradients import gradients_through_time

    tr = rnn_forward(np.zeros(1200), 1.0, 2.0)
    rep = gradients_through_time("rnn", {"W_hh": 2.0}, tr)  # 2^1200 ~ 1e361: the vector overflows float64
    big = lesson.clip_demo(rep, 1200, 2.0)
    assert big["clipped"] and big["after"] == "2.00" and big["before"] == "1.72 × 10³⁶¹"
    assert big["direction"] == pytest.approx([1.0])
    zero = lesson.clip_demo(lesson.compare(4, 10, 0.0, 1.0, 0.5, 0).reports["rnn"], 10, 1.0)
    assert zero["before"] == zero["after"] == "0" and not zero["clipped"]


def test_reference_curves_and_two_to_the_fifty():
    refs = lesson.reference_curves(np.arange(41))
    assert list(refs) == ["vanilla", "lstm", "lstm_f1"] and refs["lstm_f1"][40] == 1
    assert refs["vanilla"][20] == pytest.approx(0.45 ** 20) and refs["lstm"][40] == pytest.approx(0.9 ** 40)
    assert lesson.slowest(lesson.compare(32, 50, 0.9, 1.0, 0.5, 0, "rho")) == "gru"
    assert lesson.slowest(lesson.compare(32, 50, 0.9, 1.0, 0.5, 0)) == "rnn"
    assert f"{lesson.explode(2.0, 50):.1e}" == "1.1e+15"
