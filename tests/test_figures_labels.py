"""Labels that keep clear of each other and of the edges (rnnviz.figures.labels), their use on the tanh chart, and
the projector's floor on chart type (rnnviz.figures.fonts.at_least)."""
import numpy as np
import pytest

from rnnviz.figures import scalar
from rnnviz.figures.base import y_margin
from rnnviz.figures.fonts import at_least
from rnnviz.figures.labels import POSITIONS, Placer, text_size, text_width
from rnnviz.lessons.scalar import run_scalar


def test_placed_labels_never_overlap_and_stay_inside():
    rng = np.random.default_rng(0)
    x, y = rng.uniform(-1, 1, 60), rng.uniform(-1, 1, 60)
    room = Placer((-1, 1), (-1, 1), 300, 200)
    where = room.place_labels(x, y, [f"t={j}" for j in range(60)], 14, 5, limit=60)
    px, py = room.px(x, y)
    boxes = []
    for j, pos in enumerate(where):
        if pos:
            (sx, sy), (w, h) = POSITIONS[pos], text_size(f"t={j}", 14)
            left = px[j] + 5 if sx > 0 else px[j] - 5 - w if sx < 0 else px[j] - w / 2
            bottom = py[j] + 5 if sy > 0 else py[j] - 5 - h if sy < 0 else py[j] - h / 2
            boxes.append((left, bottom, left + w, bottom + h))
    assert 5 < len(boxes) < 60  # some fit, not all: 60 labels cannot share 300 x 200 px
    for i, a in enumerate(boxes):
        assert a[0] >= 0 and a[1] >= 0 and a[2] <= 300 and a[3] <= 200
        assert all(a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1] for b in boxes[i + 1:])


def labelled(x, w_h, fs=1.45):
    tr = run_scalar(x, 1.0, w_h)
    spec = scalar.tanh_curve(tr.pre[:, 0], tr.h[:, 0], len(x) - 1, fs).to_dict()
    return [t for t in spec["data"][1]["text"] if t], spec


@pytest.mark.parametrize("fs", [1.0, 1.45])
def test_the_tanh_chart_labels_a_bounded_number_of_steps(fs):
    assert labelled([1, 0, 0], 0.5, fs)[0] == ["t=1", "t=2"]  # the notes' example: every earlier step named
    many, spec = labelled([1] + [0] * 199, 0.5, fs)  # 200 steps piling up at 0: no smear of labels
    assert len(many) <= scalar.MAX_LABELS
    assert all(len([t for t in f["data"][0]["text"] if t]) <= scalar.MAX_LABELS for f in spec["frames"])
    assert labelled([1, 0, 0], 10.0, fs)[0]  # w_h = 10: t=2 sits at the top edge and is still placed below it


# Widths in font sizes of whole strings as Chromium draws them in the charts' font (SVG getBBox at 100 px, Debian
# chromium, Liberation Sans with DejaVu Sans for the superscripts): the estimate is never under them, nor far over.
DRAWN = {"→ h=7.00 × 10⁻⁴": 7.545, "z=−8.00 × 10⁻¹³": 7.06, "t=11": 1.974, "t=200": 2.53, "→ h=−0.99999": 6.617,
         "tanh′ < 0.1": 4.664, "z=1.23 × 10⁻³⁰⁸": 6.945, "Wₕₕ σ ρ ±1": 4.877}


def test_text_width_is_never_under_what_the_browser_draws():
    for s, drawn in DRAWN.items():
        assert drawn <= text_width(s, 1.0) <= 1.12 * drawn, s
    assert text_size("t=1<br>→ h=7.00 × 10⁻⁴", 10, 2)[0] == pytest.approx(text_width("→ h=7.00 × 10⁻⁴", 10) + 6)


def drawn_boxes(spec: dict, fs: float) -> tuple[list[tuple[str, np.ndarray]], Placer]:
    """The tanh chart's step labels and current step's box, in px of the placer's assumed plot area."""
    lay = spec["layout"]
    room = Placer(tuple(lay["xaxis"]["range"]), (-1.1, 1.1), scalar.ASSUMED_WIDTH - y_margin(fs, 4) - 20,
                  lay["height"] - lay["margin"]["t"] - lay["margin"]["b"])
    out = []
    earlier, info = spec["data"][1], spec["data"][3]
    pos = earlier["textposition"]
    for j, t in enumerate(earlier["text"]):
        if t:
            (sx, sy), (w, h) = POSITIONS[pos[j] if isinstance(pos, list) else pos], text_size(t, 12 * fs)
            px, py = room.px(earlier["x"][j], earlier["y"][j])
            left = px + 6 if sx > 0 else px - 6 - w if sx < 0 else px - w / 2
            bottom = py + 6 if sy > 0 else py - 6 - h if sy < 0 else py - h / 2
            out.append((t, np.array([left, bottom, left + w, bottom + h])))
    if len(spec["data"]) > 4:  # labels drawn farther out, each centred on its text point
        far = spec["data"][4]
        for t, x, y in zip(far["text"], far["x"], far["y"]):
            if t:
                (w, h), (px, py) = text_size(t, 12 * fs), room.px(x, y)
                out.append((t, np.array([px - w / 2, py - h / 2, px + w / 2, py + h / 2])))
    t, size = info["text"][1], info["textfont"]["size"]
    (w, h), (px, py) = text_size(t, size, t.count("<br>") + 1), room.px(info["x"][1], info["y"][1])
    tp = info["textposition"][1] if isinstance(info["textposition"], list) else info["textposition"]
    left = px if tp == "middle right" else px - w
    out.append((t, np.array([left, py - h / 2, left + w, py + h / 2])))
    return out, room


@pytest.mark.parametrize("fs", [1.0, 1.45])
def test_no_step_label_overlaps_the_current_steps_box_even_with_a_power_of_ten(fs):
    tr = run_scalar([1] + [0] * 10, 1.0, 0.5)  # the silence example: step 11 reads 't=11 z=7.00 × 10⁻⁴ → h=7.00 × 10⁻⁴'
    for k in (9, 10):
        boxes, room = drawn_boxes(scalar.tanh_curve(tr.pre[:k + 1, 0], tr.h[:k + 1, 0], k, fs).to_dict(), fs)
        assert "10⁻⁴" in boxes[-1][0] or k == 9
        for i, (a, b) in enumerate(boxes):
            assert b[0] >= 0 and b[1] >= 0 and b[2] <= room.w and b[3] <= room.h, a
            for c, d in boxes[i + 1:]:
                assert b[2] <= d[0] or d[2] <= b[0] or b[3] <= d[1] or d[3] <= b[1], (a, c)


@pytest.mark.parametrize("fs", [1.0, 1.45])
@pytest.mark.parametrize("x, w_x, w_h, b", [((1, 0, 0), 1, 2, 0), ((1, 0, 0), 1, 10, 0), ((1, 0, 0), 1, 0.5, 0),
                                            ((1, 0, 1), 1, 0.5, 0), ((1, 0, 0), -10, -10, 10), ((1, 0, 0), 1, -10, 0)])
def test_every_earlier_step_is_labelled_clear_of_the_curve_the_box_and_each_other(x, w_x, w_h, b, fs):
    """Flood ('t=1' sat on the curve at 1400 px), w_h = 10 ('t=1' was left out on a projector), the notes' example,
    Rewrite and the sliders' extremes: each earlier step named, beside its point or farther out on a leader line."""
    tr = run_scalar(list(x), w_x, w_h, b)
    spec = scalar.tanh_curve(tr.pre[:, 0], tr.h[:, 0], len(x) - 1, fs).to_dict()
    boxes, room = drawn_boxes(spec, fs)
    assert sorted(t for t, _ in boxes[:-1]) == ["t=1", "t=2"]
    lim = spec["layout"]["xaxis"]["range"][1]
    cx, cy = room.px(np.linspace(-lim, lim, 2001), np.tanh(np.linspace(-lim, lim, 2001)))
    for i, (a, b) in enumerate(boxes):
        assert b[0] >= 0 and b[1] >= 0 and b[2] <= room.w and b[3] <= room.h, a
        on = (cx > b[0] - 1.5) & (cx < b[2] + 1.5) & (cy > b[1] - 1.5) & (cy < b[3] + 1.5)  # the line is 3 px wide
        assert not on.any(), f"{a!r} lies on the curve"
        for c, d in boxes[i + 1:]:
            assert b[2] <= d[0] or d[2] <= b[0] or b[3] <= d[1] or d[3] <= b[1], (a, c)


def test_projector_floor_raises_small_text_and_subscripts():
    spec = {"data": [{"type": "scatter", "name": "h<sub>t</sub>", "text": ["a"], "textfont": {"size": 12}}],
            "layout": {"legend": {"font": {"size": 13}}, "xaxis": {"tickfont": {"size": 12},
                                                                    "title": {"text": "z", "font": {"size": 30}}},
                       "annotations": [{"text": "W<sub>h</sub>", "font": {"size": 15}}]}}
    out = at_least(spec)
    assert out["layout"]["legend"]["font"]["size"] == 20  # its subscripts drawn at 70 %: 14 px
    assert out["layout"]["annotations"][0]["font"]["size"] == 20
    assert out["layout"]["xaxis"]["tickfont"]["size"] == 14 and out["layout"]["xaxis"]["title"]["font"]["size"] == 30
    assert out["data"][0]["textfont"]["size"] == 14


def test_stepping_through_a_run_draws_the_same_tanh_chart_as_a_fresh_build():
    """Placements are kept per run and plot area (rnnviz.figures.scalar._PLACED): a chart built after others (another
    step, the other font scale, another run) equals one built from nothing, and the store stays bounded."""
    from rnnviz.figures import scalar as S
    from rnnviz.lessons.scalar import run_scalar

    runs = [run_scalar([1.0] + [0.0] * 10, 1.0, 0.5, 0.0, 0.0), run_scalar([0.5, -1.0, 2.0, 0.3], 0.7, 10.0, 0.1, 0.2)]

    def build(tr, t, fs):
        return S.tanh_curve(tr.pre[:, 0], tr.h[:, 0], t, fs).to_json()

    fresh = {}
    for r, tr in enumerate(runs):
        for t in (0, 2, len(tr.pre) - 1):
            for fs in (1.0, 1.45):
                S._PLACED.clear()
                fresh[r, t, fs] = build(tr, t, fs)
    S._PLACED.clear()
    for (r, t, fs), want in reversed(list(fresh.items())):  # every chart after all the others
        assert build(runs[r], t, fs) == want, (r, t, fs)
    for k in range(S.PLACED_RUNS + 5):
        build(run_scalar([0.1 * k, 1.0], 1.0, 0.5, 0.0, 0.0), 1, 1.0)
    assert len(S._PLACED) == S.PLACED_RUNS
