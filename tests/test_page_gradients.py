"""The gradients page: presets, the two LSTM cell curves, clipping in one format, the live training comparison, the
lag results, URL state, and extremes that never break it."""
import ast
import re

import pytest

from tests.conftest import ROOT, all_text, charts, tables
from ui.lessons import lag as lag_words

P = "gradients"


def metric(at, prefix):
    return next(m.value for m in at.metric if m.label.startswith(prefix))


def as_float(s):
    """A number as the page writes it: 0.998, 116 or 9.48 × 10⁻¹⁶."""
    if "×" not in s:
        return float(s)
    m, p = s.replace(" ", "").split("×10")
    return float(m) * 10.0 ** int(p.translate(str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")))


def clip_numbers(at):
    note = next(m.value for m in at.markdown if "before clipping" in m.value)
    return re.search(r"norm \*\*([^*]+)\*\* before clipping, \*\*([^*]+)\*\* after", note).groups()


def test_vanish_then_explode(open_page):
    at = open_page(P)
    assert not at.exception
    assert as_float(metric(at, "vanilla")) < 1e-10
    at.button(key="grad.explode").click().run()
    assert as_float(metric(at, "vanilla")) > 1e8
    assert at.query_params["w"] in ("1.5", ["1.5"])
    assert at.query_params["by"] in ("rho", ["rho"]) and at.query_params["xs"] in ("0.0", ["0.0"])
    at.button(key="grad.vanish").click().run()
    assert as_float(metric(at, "vanilla")) < 1e-2 and at.slider(key="grad.scale").value == 0.9
    assert at.slider(key="grad.xs").value == 0.5 and "xs" not in at.query_params  # Explode's x = 0 undone


def test_two_named_lstm_cell_curves_and_the_instruction_holds(open_page):
    at = open_page(P)
    labels = [m.label for m in at.metric]
    assert "LSTM c, f path" in labels and "LSTM c, all paths" in labels
    low = as_float(metric(at, "LSTM c, f path"))
    at.slider(key="grad.bf").set_value(10.0).run()
    assert as_float(metric(at, "LSTM c, f path")) > 0.9 > low  # 'raise b_f and watch the forget-gate path flatten'
    assert f"All paths, {metric(at, 'LSTM c, all paths')}, adds every detour" in all_text(at)  # and why they differ
    assert at.query_params["bf"] in ("10.0", ["10.0"])


def test_notes_table_and_explosion(open_page):
    at = open_page(P)
    tab = tables(at)[0]
    # as the notes print it, and as every other power of ten on the page ('1.8e-02' was Python's notation)
    assert list(tab["vanilla (0.5×0.9)ᵗ"]) == ["1", "1.8 × 10⁻²", "3.4 × 10⁻⁴", "1.2 × 10⁻⁷", "1.3 × 10⁻¹⁴"]
    assert list(tab["LSTM f = 0.9: 0.9ᵗ"]) == ["1", "0.59", "0.35", "0.12", "0.015"]
    assert metric(at, "Scalar w = 2") == "1.13 × 10¹⁵"


def show(at, view):
    at.segmented_control(key="grad.view").set_value(view).run()
    return at


def test_one_chart_at_a_time(open_page):
    """The explorer draws one chart beside its controls (a move redraws only it); the view is in the link."""
    at = open_page(P)
    keys = lambda: {c.alt.split(":")[0] for c in charts(at)}  # noqa: E731
    assert any(k.startswith("log plot of gradient norms") for k in keys())
    show(at, "factors")
    assert any(k.startswith("per-step factors") for k in keys())
    assert not any(k.startswith("log plot") for k in keys()) and at.query_params["view"] in ("factors", ["factors"])
    text = all_text(at)
    assert "**Vanilla:**" in text and "**LSTM:**" in text and "**GRU:**" in text and "0.500" in text
    assert as_float(metric(at, "vanilla")) < 1e-10  # the numbers stay whatever the view


def test_clipping_before_and_after_in_one_format(open_page):
    at = show(open_page(P), "clip")
    assert any("cannot" in i.value for i in at.info)  # vanished: nothing to clip
    before, after = clip_numbers(at)
    assert before == after and re.match(r"^\d\.\d\d × 10⁻[⁰¹²³⁴⁵⁶⁷⁸⁹]+$", before)
    at.button(key="grad.explode").click().run()
    assert any("Clipped" in s.value for s in at.success)
    before, after = clip_numbers(at)
    assert re.match(r"^\d\.\d\d × 10[⁰¹²³⁴⁵⁶⁷⁸⁹]+$", before) and after == "1.00"
    at.slider(key="grad.clip").set_value(2.5).run()  # the clip threshold reruns only its own fragment
    assert clip_numbers(at)[1] == "2.50" and at.query_params["clip"] in ("2.5", ["2.5"])


def test_training_comparison_and_its_presets(open_page):
    at = open_page(P)
    text = all_text(at)
    assert "Unclipped: diverged" in text and "Clipped: learned" in text
    at.button(key="grad.tcalm").click().run()
    text = all_text(at)
    assert "diverged" not in text and at.query_params["trho"] in ("1.0", ["1.0"])
    assert at.query_params["lr"] in ("0.02", ["0.02"])
    assert any(c.alt.startswith("loss and log10 gradient norm") for c in charts(at))


def test_settings_come_back_from_a_link(open_page):
    at = open_page(P, trho="1.0", lr="0.02", tclip="5.0", tseed="2", view="clip", w="1.5", by="rho", xs="0.0")
    assert any("Clipped" in s.value for s in at.success) and as_float(metric(at, "vanilla")) > 1e8
    assert at.slider(key="grad.rho").value == 1.0 and at.select_slider(key="grad.lr").value == 0.02
    assert at.slider(key="grad.tclip").value == 5.0 and at.number_input(key="grad.tseed").value == 2
    assert "diverged" not in all_text(at)


def test_lag_results_drawn_with_their_provenance(open_page):
    at = open_page(P)
    drawn = {c.alt[:30] for c in charts(at)}
    if (ROOT / "models" / "lag_results.json").exists():
        from rnnviz.experiments import lag_results

        res = lag_results.load_results()
        assert any(a.startswith("accuracy by lag") for a in drawn)
        assert any(a.startswith("accuracy while training") for a in drawn)
        text = all_text(at)
        assert "python -m rnnviz.lag" in text and lag_words.lag_summary(res) in text  # the sentences the JSON makes
        assert f"{res['cpu_seconds']:.0f} s of CPU" in text and lag_words.curve_summary(res) in text
    else:
        assert "No results shipped yet" in all_text(at)


@pytest.mark.parametrize("setting", [{"grad.scale": 3.0, "grad.xs": 0.0}, {"grad.scale": 0.0},
                                     {"grad.H": 64, "grad.T": 200, "grad.bf": 10.0},
                                     {"grad.H": 1, "grad.T": 2, "grad.bf": -5.0}])
def test_extremes_never_break(open_page, setting):
    at = open_page(P)
    for k, v in setting.items():
        at.slider(key=k).set_value(v)
    at.run()
    assert not at.exception and "nan" not in all_text(at).lower()


def test_page_stays_thin():
    src = (ROOT / "app_pages" / "gradients.py").read_text()
    assert len(src.splitlines()) <= 150
    assert "controls" in {n.name for n in ast.parse(src).body if isinstance(n, ast.FunctionDef)}


def test_the_clipping_sentence_points_to_where_the_metrics_are(open_page):
    """On a projector the metrics go under the chart, yet the clipping sentence said 'The metric *vanilla h*
    above': it says below there, and above on a laptop, where the metrics sit over the chart."""
    laptop = next(m.value for m in open_page(P, view="clip").markdown if "before clipping" in m.value)
    room = next(m.value for m in open_page(P, view="clip", classroom="1").markdown if "before clipping" in m.value)
    assert "The metric *vanilla h* above (" in laptop and "The metric *vanilla h* below (" in room


def _in_order(node) -> list[tuple[str, str]]:
    """(element type, what it says) for every element under `node`, in page order."""
    out = []
    for child in getattr(node, "children", {}).values():
        kind = type(child).__name__
        if kind == "Metric":
            out.append((kind, child.label))
        elif hasattr(child, "value") and isinstance(getattr(child, "value", None), str):
            out.append((kind, child.value))
        elif kind in ("BidiComponent", "UnknownElement") or not getattr(child, "children", None):
            out.append((kind, ""))
        out += _in_order(child)
    return out


@pytest.mark.parametrize("room", [False, True])
def test_the_note_on_what_the_numbers_measure_points_up_to_them(open_page, room):
    """A newcomer's walk: the note under the chart said 'the curves and the numbers below', which sit above it (on a
    laptop the numbers are over the chart, on a projector under it: above the note either way)."""
    at = open_page(P, **({"classroom": "1"} if room else {}))
    order = _in_order(at.main)
    note = next(k for k, (_, text) in enumerate(order) if text.startswith("What the numbers measure"))
    assert "The curves and the numbers above" in order[note][1]
    metrics = [k for k, (kind, _) in enumerate(order) if kind == "Metric"][:5]  # the chart's five (others follow)
    assert len(metrics) == 5 and max(metrics) < note
