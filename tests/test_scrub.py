"""Scrub frames (rnnviz/live/frames.py, ui/live/scrub.py): each frame, laid over the page's figure, is the page's figure
at that slider value, computed the page's own way."""
import base64
import dataclasses
import json

import numpy as np
import pytest

from rnnviz.figures import base
from rnnviz.figures.gradients import gradient_decay
from rnnviz.lessons import gradients, recurrences, scalar
from rnnviz.lessons.presets import ScalarPreset
from rnnviz.live.frames import encoded, figure_frames, plain
from rnnviz.live.words import pieces
from ui.lessons import (
    gradients as grad_words,
    gradients_frames as grad_frames,
    recurrences as rec_words,
    scalar as scalar_words,
)
from ui.live import chart, scrub
from ui.live.scrub import ahead


def unpacked(words: dict, k: int) -> list[str]:
    """Frame k's pieces of one text, as scrub.js unpacks them (rnnviz/live/words.py packed)."""
    if "pieces" not in words:
        return words["frames"][k]
    out = list(words["pieces"])
    for j, u in zip(words["vary"], words["frames"][k]):
        out[j] = u
    return out


def test_each_frames_words_are_those_of_its_value_where_a_notch_is_left_out():
    """A notch whose figure has other traces than most is left out of the frames; the words must be left out with it
    (they were not, and every later frame read its left neighbour's words)."""
    def build(v):
        return base._fig([dict(type="scatter", x=[0, 1], y=[0, v])] * (1 if v == 0.2 else 2), {})

    item = scrub.Scrub("s", "c", (), 0.0, 0.0, 1.0, 0.1, build, 11, words=lambda v: {"w": f"v is **{v:g}**"})
    frames = json.loads(scrub._compute(item, item.values()))
    assert 0.2 not in frames["values"] and len(frames["values"]) == 10
    assert [unpacked(frames["words"]["w"], k) for k in range(10)] == [["v is ", f"{v:g}"] for v in frames["values"]]


def test_a_set_too_large_for_a_message_is_never_sent(monkeypatch):
    """A set over SET_BYTES (Streamlit would replace a 2 MB message with an error) is kept as none: never sent, the
    chart greys there; and the gates page's sets stay under it for a 30-character word at 64 units."""
    from rnnviz.lessons import vector as vector_lesson
    from ui.lessons import gates as gate_words

    def build(v):
        return base._fig([dict(type="scatter", x=[0, 1], y=[0, v])], {})

    item = scrub.Scrub("s", "c", (), 0.0, 0.0, 1.0, 0.1, build, 11)
    assert json.loads(scrub._compute(item, item.values()))["values"] == item.values()
    monkeypatch.setattr(scrub, "SET_BYTES", 100)
    assert scrub._compute(item, item.values()) == b"null"
    monkeypatch.undo()
    word = "abcdefghijklmnopqrstuvwxyzabcd"
    x = vector_lesson.encode_word(word, sorted(set(word)))
    c = gate_words.GateSetup("lstm", x, list(word), 64, 0, 0.9, 1.0, False)
    for it in gate_words.scrubs(c, 2, 1.0, False):  # the window at the value: 64 units, the dearest frames
        assert scrub._compute(it, it.sets()[1]) != b"null", it.slider


def test_a_pages_own_run_carries_small_sets_and_leaves_large_ones_to_the_poll(monkeypatch):
    """A key's or a release's rerun of the page (or of the part of it around the chart) carries at most PAGE_BYTES of
    new sets (the recurrences page's T, steps back, has 14 sets of 150-340 kB); the component's own runs, its polls
    and its asks, carry the rest, up to SEND_BYTES a payload, each set once."""
    from rnnviz.lessons.cache import SharedCache

    monkeypatch.setattr(scrub, "FRAMES", SharedCache(2 ** 26))

    def item(name, points):  # a set holds 11 frames of `points` numbers each
        return scrub.Scrub(name, "c", (), 0.0, 0.0, 10.0, 0.1, lambda v: base._fig(
            [dict(type="scatter", y=np.linspace(v, v + np.pi, points))], {}), 11)

    small, large = item("small", 10), item("large", 1_000)  # 2 and 120 kB a set
    for it in (small, large):
        for _, key, values, compute in scrub.plan(it):
            scrub.FRAMES.get(key, lambda: compute(it, values), len)
    wanted, sent = {"small", "large"}, {}

    def carried(own):
        parts, todo, held = scrub.collect([small, large], wanted, sent, {}, own)
        payload = [json.loads(p) for p in parts]
        return {p["slider"]: len(p["sets"]) for p in payload}, sum(map(len, parts)), held, todo

    sets, size, held, todo = carried(own=False)  # the page's run: the small slider's sets, none of the large one's
    assert sets == {"small": len(scrub.plan(small)), "large": 0} and size < scrub.PAGE_BYTES and held and not todo
    sets, size, held, _ = carried(own=True)  # the poll: the large slider's, up to SEND_BYTES
    assert sets["small"] == 0 and sets["large"] > 1 and scrub.PAGE_BYTES < size <= scrub.SEND_BYTES and held
    for _ in range(len(scrub.plan(large))):
        if held:
            sets, size, held, _ = carried(own=True)
    assert not held and len(sent) == sum(len(scrub.plan(it)) for it in (small, large))  # every set sent, once
    # whose run it is: the component's trigger values say (an ask, a poll); a key's or a release's run has none
    assert scrub._own_run({"want": "large"}) and scrub._own_run({"ready": 3}) and not scrub._own_run({})


def laid_over(base: dict, frames: dict, k: int) -> dict:
    """What scrub.js shows at frame k: the page's figure with frame k's attributes."""
    data = [dict(t) for t in base["data"]]
    for d in frames["data"]:
        data[d["trace"]][d["attr"]] = d["frames"][k]
    return {"data": data, "layout": {**base["layout"], **{d["attr"]: d["frames"][k] for d in frames["layout"]}}}


def check(item, page_figure) -> dict:
    """Every frame of `item`, over the figure at its value, is `page_figure(v)` (the page's own call) at that value,
    and has the digest the page's chart payload gives that figure (a key press shows the frame, and the browser keeps
    it when the rerun sends that figure)."""
    values = item.values()
    frames = json.loads(encoded(figure_frames(item.build, values)))
    # every notch of the window, but those whose figure has other traces than most (the browser greys the chart there)
    counts = [len(page_figure(v).to_dict()["data"]) for v in values]
    values = [v for v, n in zip(values, counts) if n == max(set(counts), key=counts.count)]
    assert frames["values"] == values and len(values) > len(counts) // 2 and frames["data"]
    base = plain(page_figure(item.value).to_dict())
    for k in (0, len(values) // 3, len(values) - 1):
        want = plain(page_figure(values[k]).to_dict())
        assert laid_over(base, frames, k) == {"data": want["data"], "layout": want["layout"]}, values[k]
        sent = json.loads(chart.payload(page_figure(values[k]), {}, "alt"))
        assert frames["digests"][k] == sent["digest"], values[k]
    assert len(set(frames["digests"])) == len(values)  # each value a figure of its own: no frame stands for another
    return frames


def test_scalar_frames_are_the_states_chart_at_each_value():
    x, fs = [1.0, 0.0, 0.5, -1.0], 1.0
    now = dict(w_x=1.0, w_h=0.5, b=0.1, h0=0.2)
    items = scalar_words.scrubs(ScalarPreset(**now, x=tuple(x)), fs)
    assert [i.slider for i in items] == ["scalar.w_x", "scalar.w_h", "scalar.b", "scalar.h0"]
    from rnnviz.figures.scalar import states_over_time
    w_h = items[1]
    frames = check(w_h, lambda v: states_over_time(scalar.run_scalar(x, 1.0, v, 0.1, 0.2).h[:, 0], x, None, fs))
    assert [(d["trace"], d["attr"]) for d in frames["data"]] == [(1, "y")]  # only h_t moves: nothing else is sent
    for v, y in zip(frames["values"], frames["data"][0]["frames"]):  # the per-value computation, step by step
        y = np.frombuffer(base64.b64decode(y["bdata"]), "<f8")  # plotly.js's typed-array form
        h, want = 0.2, []
        for xt in x:
            h = np.tanh(1.0 * xt + v * h + 0.1)
            want.append(h)
        np.testing.assert_allclose(y, want, rtol=0, atol=1e-15)


@pytest.mark.parametrize("room", [False, True])
def test_clip_frames_are_the_before_and_after_chart_and_its_sentence_at_each_threshold(room):
    from rnnviz.figures.gradients import clip_figure
    from rnnviz.live.words import pieces

    cmp = gradients.compare(4, 30, 1.6, 1.0, 0.0, 3, "rho", 0.0)  # an exploding vanilla gradient: clipping cuts it
    report, T = cmp.reports["rnn"], 30
    metric = gradients.curves(cmp)["rnn"][T]
    [item] = grad_frames.clip_scrubs(report, T, 1.0, metric, 1.0, room)
    assert (item.slider, item.chart) == ("grad.clip", "grad.clip_fig")
    check(item, lambda v: clip_figure(gradients.clip_demo(report, T, v), 1.0))
    said = json.loads(scrub._compute(item, item.values()))["words"][grad_words.CLIP_WORDS]
    seen = set()
    for k in (0, 40, len(item.values()) - 1):
        demo = gradients.clip_demo(report, T, item.values()[k])
        want = pieces(grad_words.clip_note(demo, metric, T, where="below" if room else "above"))
        assert unpacked(said, k) == want
        seen.add(demo["after"])
    assert len(seen) == 3  # the norm after clipping is the threshold's


@pytest.mark.parametrize("which", ["scale", "bf", "xs", "bz", "H", "T"])
def test_gradient_frames_are_the_decay_chart_at_each_value(which):
    c = grad_words.Explorer(H=4, T=12, scale=0.9, bf=1.0, xs=0.5, seed=3, by="sigma", bz=0.0)
    cmp = gradients.compare(4, 12, 0.9, 1.0, 0.5, 3, "sigma", 0.0)
    item = {i.slider: i for i in grad_frames.scrubs(c, cmp, 1.0)}[f"grad.{which}"]
    assert item.span == 25
    kw = {"scale": "w_scale", "bf": "forget_bias", "xs": "input_scale", "bz": "update_bias", "H": "hidden_size",
          "T": "T"}[which]

    def page_comparison(v):  # the page's own call: compare with all three cells, the slider at v
        args = dict(hidden_size=4, T=12, w_scale=0.9, forget_bias=1.0, input_scale=0.5, update_bias=0.0)
        return gradients.compare(seed=3, by="sigma", **args | {kw: int(v) if which in "HT" else v})

    def page_T(v):
        return int(v) if which == "T" else 12

    def page_figure(v):
        return gradient_decay(gradients.curves(page_comparison(v)), grad_words.reference_curves(range(page_T(v) + 1)),
                              font_scale=1.0)
    check(item, page_figure)
    frames = json.loads(scrub._compute(item, item.values()))
    assert len(frames["values"]) > 10
    for k in (0, 9, len(frames["values"]) - 1):  # the words beside the chart at each frame: the page's own there
        v = frames["values"][k]
        full = page_comparison(v)
        said = {grad_words.METRIC_WORDS: grad_words.metric_pieces(gradients.curves(full), page_T(v))}
        if which in ("scale", "H"):  # W_hh's norms change with its scale and its size
            said[grad_words.SCALE_WORDS] = pieces(grad_words.scale_note(full, "sigma", v if which == "scale" else 0.9))
        if which == "T":
            said[grad_words.NUMBERS_WORDS] = pieces(grad_words.numbers_note(int(v)))
        if grad_words.PATHS_WORDS in frames["words"]:  # why the LSTM's two c numbers differ, where it says so
            note = grad_words.paths_note(gradients.curves(full), page_T(v))
            said[grad_words.PATHS_WORDS] = pieces(note) if note else []
        assert {key: unpacked(w, k) for key, w in frames["words"].items()} == said, v
    if which == "bf":  # a forget bias near 1 keeps the f path: the note comes, with its numbers
        assert grad_words.PATHS_WORDS in frames["words"]
    costlier = dataclasses.replace(c, H=64, T=200)
    assert {i.slider: i.span for i in grad_frames.scrubs(costlier, cmp, 1.0)}["grad.scale"] == 5  # dearer frames: fewer


@pytest.mark.parametrize("view,which", [("factors", "scale"), ("factors", "T"), ("clip", "H"), ("clip", "xs")])
def test_the_other_views_follow_the_explorer_sliders_with_their_words(view, which):
    """In the factors and clipping views the explorer's sliders move that view's chart and its words: each frame is
    the view's own chart and notes (or clipping sentence) at the slider's value."""
    from rnnviz.figures.gradients import clip_figure, factor_figure

    c = grad_words.Explorer(H=4, T=12, scale=0.9, bf=1.0, xs=0.5, seed=3, by="sigma", bz=0.0)
    cmp = gradients.compare(4, 12, 0.9, 1.0, 0.5, 3, "sigma", 0.0)
    items = {i.slider: i for i in grad_frames.scrubs(c, cmp, 1.0, view, threshold=1.0, room=False)}
    item = items[f"grad.{which}"]
    assert item.chart == {"factors": "grad.factors", "clip": "grad.clip_fig"}[view]
    kw = {"scale": "w_scale", "xs": "input_scale", "H": "hidden_size", "T": "T"}[which]

    def page_comparison(v):
        args = dict(hidden_size=4, T=12, w_scale=0.9, forget_bias=1.0, input_scale=0.5, update_bias=0.0)
        return gradients.compare(seed=3, by="sigma", **args | {kw: int(v) if which in "HT" else v})

    def T_at(v):
        return int(v) if which == "T" else 12

    def page_figure(v):  # app_pages/gradients.py: the view's chart
        now = page_comparison(v)
        if view == "factors":
            return factor_figure(**gradients.factor_inputs(now), font_scale=1.0)
        return clip_figure(gradients.clip_demo(now.reports["rnn"], T_at(v), 1.0), 1.0)
    check(item, page_figure)
    frames = json.loads(scrub._compute(item, item.values()))
    for k in (0, len(frames["values"]) - 1):
        v, now = frames["values"][k], page_comparison(frames["values"][k])
        if view == "factors":
            key, want = grad_words.FACTOR_WORDS, "\n\n".join(grad_words.factor_notes(now, T_at(v)))
        else:
            metric = gradients.curves(now)["rnn"][T_at(v)]
            key = grad_words.CLIP_WORDS
            want = grad_words.clip_note(gradients.clip_demo(now.reports["rnn"], T_at(v), 1.0), metric, T_at(v))
        assert unpacked(frames["words"][key], k) == pieces(want), v
        assert unpacked(frames["words"][grad_words.METRIC_WORDS], k) == grad_words.metric_pieces(
            gradients.curves(now), T_at(v))


def test_the_three_views_and_both_widths_share_one_comparison_a_value(monkeypatch):
    """A comparison is 12 ms at the defaults and a chart from it a fraction of one: the decay chart's frames leave
    their comparisons (without the Jacobians, which no view reads) for the factors and clipping views' frames and a
    projector's, so those cost no comparison again (a first drag there waited 0.2-1 s for frames)."""
    from rnnviz.lessons.cache import SharedCache

    monkeypatch.setattr(grad_frames, "LIGHT", SharedCache(2 ** 26))
    made = []
    original = grad_frames.compare

    def counted(*args, **kw):
        made.append(args)
        return original(*args, **kw)
    monkeypatch.setattr(grad_frames, "compare", counted)
    c = grad_words.Explorer(H=4, T=12, scale=0.9, bf=1.0, xs=0.5, seed=3, by="sigma", bz=0.0)
    cmp = gradients.compare(4, 12, 0.9, 1.0, 0.5, 3, "sigma", 0.0)
    notches = set()
    for view, fs, room in (("decay", 1.0, False), ("factors", 1.0, False), ("clip", 1.0, False), ("decay", 1.45, True)):
        item = {i.slider: i for i in grad_frames.scrubs(c, cmp, fs, view, 1.0, room)}["grad.scale"]
        for values in item.sets():
            scrub._compute(item, values)
            notches.update(values)
    assert len(made) == len(notches)  # one comparison a value, for all four
    assert all(r.jacobians is None for r in grad_frames.LIGHT.get(made[0], lambda: None).reports.values())


def test_recurrence_frames_are_the_plane_and_its_sentence_at_each_radius_and_angle():
    from rnnviz.figures.recurrences import eigen_plane
    from rnnviz.live.words import pieces
    r, th = [0.9, 0.5, 0.99], [0.0, 1.0, 2.0]
    items = {i.slider: i for i in rec_words.scrubs(r, th, 1.0) if i.chart == "rec.plane"}
    assert list(items) == [f"rec.{n}{k}" for n in ("r", "th") for k in (1, 2, 3)]
    item = items["rec.r2"]
    frames = check(item, lambda v: eigen_plane(recurrences.eigen_response([0.9, v, 0.99], th, 1000).lam, 1.0))
    assert {d["trace"] for d in frames["data"]} == {2}  # the second eigenvalue moves, alone
    said = json.loads(scrub._compute(item, item.values()))["words"]  # |λ₂|, its half-life and γ₂ with it
    for k in (0, 50, len(item.values()) - 1):
        resp = recurrences.eigen_response([0.9, item.values()[k], 0.99], th, 1000)
        assert {key: unpacked(w, k) for key, w in said.items()} == {rec_words.EIGEN_WORDS: pieces(
            rec_words.eigen_text(resp))}
    angle = items["rec.th3"]
    frames = check(angle, lambda v: eigen_plane(recurrences.eigen_response(r, [0.0, 1.0, v], 1000).lam, 1.0))
    assert {d["trace"] for d in frames["data"]} == {3} and angle.words is None  # the angle turns λ₃; |λ₃| stays


def test_a_radius_moves_the_impulse_response_its_own_unit_alone():
    """A radius's drag moves the impulse response too: each frame is the chart of 1,000 steps run with that radius
    (|h_t| computed here by powers of λ, not by the page's LRU), its unit's curve alone, and sets small enough to send
    a few a poll; an angle leaves the chart as it is (|λ|^t does not turn)."""
    from rnnviz.figures.recurrences import impulse_response
    r, th = [0.9, 0.5, 0.99], [0.0, 1.0, 2.0]
    items = [i for i in rec_words.scrubs(r, th, 1.0) if i.chart == "rec.impulse"]
    assert [i.slider for i in items] == ["rec.r1", "rec.r2", "rec.r3"]
    item = items[2]

    def by_powers(v: float):  # h_t = γ λ^(t-1) for one input at t = 1, γ = sqrt(1 - |λ|²)
        lam = np.array(r[:2] + [v]) * np.exp(1j * np.array(th))
        t = np.arange(1000)[:, None]
        with np.errstate(divide="ignore"):
            return impulse_response(np.log10(np.sqrt(1 - np.abs(lam) ** 2) * np.abs(lam) ** t), recurrences.LOG_FLOOR,
                                    1.0)
    got = json.loads(scrub._compute(item, item.values()))
    n = len(got["values"])
    assert got["values"][0] <= 0.99 <= got["values"][-1] and 2 <= n <= rec_words.IMPULSE_SPAN
    assert {d["trace"] for d in got["data"]} == {2}  # the third unit's curve alone
    for k in (0, n // 2, n - 1):
        want = by_powers(got["values"][k]).to_dict()["data"][2]["y"]
        y = next(d for d in got["data"] if d["attr"] == "y")["frames"][k]
        np.testing.assert_allclose(np.frombuffer(base64.b64decode(y["bdata"]), "<f8"), want, rtol=1e-12, atol=0)
    assert max(len(scrub._compute(item, v)) for v in item.sets()[:3]) < scrub.SEND_BYTES


def test_gradient_view_frames_are_its_chart_at_each_number_of_steps_back():
    from rnnviz.figures.recurrences import gradient_compare

    [item] = rec_words.grad_scrubs(100, 1.0)
    assert (item.slider, item.chart, item.value) == ("rec.gT", "rec.grad", 100.0)
    assert item.sets()[0][0] == 10.0 and item.sets()[0][-1] == 300.0  # the whole range, coarse first
    frames = check(item, lambda v: gradient_compare(rec_words.gradient_curves(8, int(v), 0), 1.0))
    assert frames["hold"]  # lines alone move: drawn by moving their points


def test_min_view_frames_are_its_three_cells_and_their_sentence_at_each_size():
    from rnnviz.figures.recurrences import min_lockstep
    from rnnviz.lessons import recurrences as rec_lesson

    [item] = rec_words.min_scrubs("hello", list("helo"), 3, 0, 2, 1.0)
    assert (item.slider, item.chart, item.lo, item.hi) == ("rec.H", "rec.min", 1.0, 8.0)

    def cells(v):  # the page's own call
        return rec_lesson.min_lockstep("hello", list("helo"), int(v), 0)
    check(item, lambda v: min_lockstep(cells(v).keep, cells(v).h, list("hello"), 2, 1.0, cells(v).stepwise))
    frames = json.loads(scrub._compute(item, item.values()))
    for k in range(8):
        assert unpacked(frames["words"][rec_words.MIN_WORDS], k) == pieces(
            rec_words.min_text(cells(k + 1), 2, list("hello")))


def test_linear_frames_are_the_recurrence_chart_at_each_a_and_b():
    from rnnviz.figures.recurrences import linear_steps
    x, t = [1.0, 0.0, 0.5, 0.0, -1.0], 3
    a_item, b_item = rec_words.linear_scrubs(rec_words.Linear(0.9, 1.5, tuple(x)), t, 1.0)
    assert (a_item.slider, b_item.slider, a_item.chart) == ("rec.a", "rec.b", "rec.linear")

    def page_figure(a, b):
        tr = recurrences.linear_run(a, b, x)
        return linear_steps(tr.x[:, 0], tr.h[:, 0], t, 1.0)
    frames = check(a_item, lambda v: page_figure(v, 1.5))
    assert {d["trace"] for d in frames["data"]} == {1, 2} and frames["hold"]  # h_t, seen and ahead: points move
    k = frames["values"].index(1.2)  # past 1 the state grows: h_3 = 1.5 (1.2^2 + 0.5) by hand, the last step seen
    h = np.frombuffer(base64.b64decode(frames["data"][0]["frames"][k]["bdata"]), "<f8")
    np.testing.assert_allclose(h, [1.5, 1.8, 1.5 * (1.2 ** 2 + 0.5)], rtol=1e-14)
    check(b_item, lambda v: page_figure(0.9, v))


def test_selective_frames_are_the_selective_chart_at_each_w_and_c():
    from rnnviz.figures.recurrences import selective_steps
    x = [1.0, -1.0, -1.0, 0.5]

    def page_figure(w, c):
        tr = recurrences.selective_run(x, w, c)
        return selective_steps(tr.x[:, 0], tr.delta[:, 0], tr.a[:, 0], tr.h[:, 0], 1.0)
    w_item, c_item = rec_words.selective_scrubs(rec_words.Selective(2.0, 0.5, tuple(x)), 1.0)
    assert (w_item.slider, c_item.slider, w_item.chart) == ("rec.w", "rec.c", "rec.selective")
    frames = check(w_item, lambda v: page_figure(v, 0.5))
    assert {d["trace"] for d in frames["data"]} == {1, 2, 3}  # the input's bars stand still
    check(c_item, lambda v: page_figure(2.0, v))


def test_frames_that_move_points_alone_say_what_range_each_frame_needs():
    """hold: the range each frame needs on each axis its points move on, so that the browser can move the points
    alone (Plotly.animate) and widen the axes only when a frame would not fit."""
    x = [1.0, 0.0, 0.5, -1.0]
    item = scalar_words.scrubs(ScalarPreset(1.0, 0.5, 0.1, 0.2, tuple(x)), 1.0)[1]  # w_h; the y axis fits the data
    frames = figure_frames(item.build, item.values())
    for v, (lo, hi) in zip(frames["values"], frames["hold"]["yaxis"]):
        h = scalar.run_scalar(x, 1.0, v, 0.1, 0.2).h[:, 0]
        pad = 0.05 * (h.max() - h.min())
        assert (lo, hi) == pytest.approx((h.min() - pad, h.max() + pad), abs=1e-15)
    assert set(frames["hold"]) == {"yaxis"}

    c = grad_words.Explorer(H=4, T=12, scale=0.9, bf=1.0, xs=0.5, seed=3, by="sigma", bz=0.0)  # the decay chart
    item = grad_frames.scrubs(c, gradients.compare(4, 12, 0.9, 1.0, 0.5, 3, "sigma", 0.0), 1.0)[0]  # sets its own range
    frames = figure_frames(item.build, item.values())
    ranges = [f for d in frames["layout"] if d["attr"] == "yaxis" for f in d["frames"]]
    assert frames["hold"]["yaxis"] == [f["range"] for f in ranges] and len(set(map(tuple, frames["hold"]["yaxis"]))) > 1

    item = rec_words.scrubs([0.9, 0.5, 0.99], [0.0, 1.0, 2.0], 1.0)[1]  # fixed axes: nothing to widen
    assert figure_frames(item.build, item.values())["hold"] == {}


def test_frames_that_change_more_than_points_are_drawn_whole():
    """A bar's height or a title that changes with the value cannot be shown by moving points: hold is None."""
    import plotly.graph_objects as go

    def bars(v):
        return go.Figure([go.Bar(x=[1, 2], y=[v, 2 * v])])

    def titled(v):
        return go.Figure([go.Scatter(x=[1, 2], y=[v, 2 * v])], layout=dict(title=dict(text=f"v = {v}")))

    def moving(v):
        return go.Figure([go.Scatter(x=[1, 2], y=[v, 2 * v])])
    assert figure_frames(bars, [1.0, 2.0])["hold"] is None and figure_frames(titled, [1.0, 2.0])["hold"] is None
    assert figure_frames(moving, [1.0, 2.0])["hold"] == {"yaxis": [[0.95, 2.05], [1.9, 4.1]]}


def test_the_tanh_chart_follows_a_drag_by_its_steps_points_from_a_figure_of_its_own():
    """The tanh chart's words change with every value (its title sentence, the current step's box, the labels), so
    its frames are a form of it without them (tanh_drag), sent whole once ("start", drawn as a drag begins): then
    only the steps' points move, and each frame puts step t at (z_t, h_t) of the run at that value."""
    from rnnviz.figures.scalar import Z_MAX, tanh_curve, tanh_size
    x, now = [1.0, 0.0, 0.5, -1.0, 2.0], dict(w_x=1.0, w_h=0.5, b=0.1, h0=0.2)
    tr = scalar.run_scalar(x, **now)
    items = scalar_words.tanh_scrubs(tr, ScalarPreset(**now, x=tuple(x)), 3, 1.0)  # at t = 3: steps 1 to 3 on the curve
    assert [(i.slider, i.chart, i.whole) for i in items] == [(f"scalar.{k}", "scalar.tanh", True) for k in now]
    w_h = items[1]
    frames = json.loads(encoded(figure_frames(w_h.build, w_h.values(), w_h.whole)))
    assert sorted({d["trace"] for d in frames["data"]}) == [1, 2, 3]  # the steps; the curve stays
    assert {d["attr"] for d in frames["data"]} == {"x", "y"}
    assert frames["hold"] is not None  # points alone: no whole redraw after the first
    assert "digests" not in frames  # a form of its own: never the chart the page's rerun draws
    start = frames["start"]
    assert start["data"] == plain(w_h.build(frames["values"][0]).to_dict()["data"])
    drawn = tanh_curve(tr.pre[:3, 0], tr.h[:3, 0], 2, 1.0, scalar_words.chart_steps(tr, 0.1, 3)).to_dict()["layout"]
    assert (start["layout"]["height"], start["layout"]["margin"]["t"]) == (drawn["height"], drawn["margin"]["t"])
    assert tanh_size(scalar_words.chart_steps(tr, 0.1, 3)) == (drawn["height"], drawn["margin"]["t"],
                                                              drawn["margin"]["b"])  # the chart keeps its place
    assert start["layout"]["title"]["text"] == "Steps 1 to 3 on tanh, as you drag"  # no number that would go stale
    def arr(a):
        return np.frombuffer(base64.b64decode(a["bdata"]), "<f8") if isinstance(a, dict) else np.asarray(a, float)
    for k in (0, 37, len(frames["values"]) - 1):
        v = frames["values"][k]
        run = scalar.run_scalar(x, 1.0, v, 0.1, 0.2)
        lim = min(max(4.0, 1.1 * np.abs(run.pre[:3, 0]).max()), Z_MAX)
        shown = laid_over(start, frames, k)["data"]
        np.testing.assert_allclose(arr(shown[1]["x"]), np.clip(run.pre[:2, 0], -lim, lim), rtol=0, atol=1e-15)
        np.testing.assert_allclose(arr(shown[3]["y"]), run.h[2:3, 0], rtol=0, atol=1e-15)  # step 3 ringed
        np.testing.assert_allclose(arr(shown[2]["x"])[:2], np.clip(run.pre[2, 0], -lim, lim), rtol=0, atol=1e-15)


def test_a_drag_near_its_windows_end_gets_the_window_around_the_thumb_until_release():
    items = {i.slider: i for i in scalar_words.scrubs(ScalarPreset(1.0, 0.5, 0.0, 0.0, (1.0, 0.0)), 1.0)}
    kept = {}
    assert ahead("scalar.w_h", items, kept) == ("scalar.w_h", {})  # the pointer reached the slider: its own window
    assert ahead("scalar.w_h@6.25", items, kept) == ("scalar.w_h", {"scalar.w_h": 6.25})
    w = items["scalar.w_h"].sets(6.25)[1]  # the first window after the coarse set
    assert 6.25 in w and 0.5 not in w  # the frames' window is the thumb's, not the value Streamlit last heard
    assert ahead(None, items, kept) == (None, {"scalar.w_h": 6.25})  # the polls that fetch it keep it
    for made_up in ("scalar.w_h@11", "scalar.w_h@nan", "scalar.w_h@x", "scalar.nope@1"):  # nothing else is asked
        assert ahead(made_up, items, kept)[1] == {"scalar.w_h": 6.25}
    released = {**items, "scalar.w_h": dataclasses.replace(items["scalar.w_h"], value=6.25)}
    assert ahead(None, released, kept) == (None, {}) and kept == {}  # released: the slider's own window again


def test_training_frames_are_both_runs_chart_and_verdict_at_each_radius_rate_and_threshold(monkeypatch):
    """The training comparison's ρ, rate and threshold scrub: each frame is the chart and verdict of both runs trained
    at that value, as rnnviz trains them here afresh (not from the page's cache); the rate's notches are positions in
    RATES. A new threshold trains the clipped run alone: the unclipped one, which ignores it, is kept."""
    from functools import lru_cache

    from rnnviz.figures.gradients import training_figure
    from rnnviz.lessons import clipping
    from ui.lessons import clipping as clip_words
    from ui.lessons.gradients import RATES

    s = clipping.Settings(2.0, 0.3, 2.0, steps=30, seed=3)  # 30 SGD steps: the frames' cost, not their kind
    items = {i.slider: i for i in clip_words.training_scrubs(s, 1.0)}
    assert {(k, i.chart, i.value) for k, i in items.items()} == {
        ("grad.rho", "grad.train", 2.0), ("grad.lr", "grad.train", float(RATES.index(0.3))),
        ("grad.tclip", "grad.train", 2.0)}
    assert (items["grad.lr"].lo, items["grad.lr"].hi, items["grad.lr"].step) == (0, len(RATES) - 1, 1)

    @lru_cache(maxsize=None)
    def fresh(sv):
        return clipping.train_pair(sv)
    moved = {"grad.rho": lambda v: dataclasses.replace(s, radius=v),
             "grad.lr": lambda v: dataclasses.replace(s, lr=RATES[round(v)]),
             "grad.tclip": lambda v: dataclasses.replace(s, clip=v)}
    for name, item in items.items():
        check(item, lambda v, name=name: training_figure(fresh(moved[name](v)), moved[name](v).clip, 1.0))
        f = json.loads(scrub._compute(item, item.values()))
        for k, v in enumerate(item.values()):
            sv = moved[name](v)
            assert unpacked(f["words"][clip_words.TRAIN_WORDS], k) == pieces(
                clip_words.verdict(clipping.summary(fresh(sv), sv.clip), sv.clip)), (name, v)
    trained = []  # each training: how many runs together, and whether clipped
    runs = clipping.runs
    monkeypatch.setattr(clipping, "runs", lambda settings, clipped, *rest: trained.append((len(settings), clipped))
                        or runs(settings, clipped, *rest))
    clip_words.train_pair(dataclasses.replace(s, clip=7.7))
    assert trained == [(1, True)]  # the unclipped run at this radius, rate and seed was at hand
    # a set's notches are trained together, each kind of run at once: a release on one of them trains nothing
    trained.clear()
    other = {i.slider: i for i in clip_words.training_scrubs(dataclasses.replace(s, seed=4), 1.0)}["grad.rho"]
    coarse = other.sets()[0]  # a first drag's first set: the whole range
    scrub._compute(other, coarse)
    assert trained == [(len(coarse), False), (len(coarse), True)] and len(coarse) > 3
    clip_words.train_pair(dataclasses.replace(s, seed=4, radius=coarse[1]))
    assert len(trained) == 2


@pytest.mark.parametrize("room", [False, True])
def test_vector_frames_are_the_charts_of_w_h_the_moves_and_the_states_at_each_radius(room):
    from rnnviz.figures import vector as vector_figures
    from rnnviz.lessons import vector as vector_lesson
    from rnnviz.live.words import pieces
    from ui.lessons import vector as vector_words
    from ui.widgets import markdown_table

    chars, vocab, t = list("hello"), list("helo"), 4
    x = np.eye(4)[[0, 1, 2, 2, 3]]
    s = vector_words.Settings(x, chars, vocab, H=3, K=4, seed=0, radius=0.9, by_hand=False)
    every = vector_words.scrubs(s, 1.0, t, room)
    items = {i.chart: i for i in every if i.slider == "vector.radius"}
    assert set(items) == {"vector.sv", "vector.Wh", "vector.moves", "vector.heat"}
    assert {i.slider for i in every} == {"vector.radius", "vector.H"}

    def run(v):  # the page's own calls, with the radius at v
        w = vector_lesson.generate(4, 3, 4, 0, v)
        setup = vector_lesson.VectorSetup(x, w["W_x"], w["W_h"], w["b"], w["W_y"], w["b_y"], np.zeros(3), chars)
        return setup, vector_lesson.run(setup)

    def bars(v):
        rho, sv = vector_lesson.spectrum(run(v)[0].W_h)
        return vector_figures.singular_value_bars(sv[:32], rho, 1.0, of=len(sv))

    def moves(v):
        setup, trace = run(v)
        titles = vector_words.MOVE_NAMES if room else vector_words.MOVE_TITLES
        return vector_figures.six_moves(vector_lesson.moves(setup, trace, t), vocab, 1.0, titles,
                                        vector_lesson.moves_scale(setup, trace))
    check(items["vector.sv"], bars)
    check(items["vector.Wh"], lambda v: vector_figures.matrix_heatmap(run(v)[0].W_h, "W<sub>h</sub> (memory weights)",
                                                                     font_scale=1.0))
    check(items["vector.moves"], moves)
    check(items["vector.heat"], lambda v: vector_figures.states_heatmap(run(v)[1].h, chars, 1.0, current=t - 1))
    # the words at each radius: move ⑥'s sentence (the best guess and its probability) and the step's table
    item = items["vector.moves"]
    f = json.loads(scrub._compute(item, item.values()))["words"]
    seen = set()
    for k in (0, 20, len(item.values()) - 1):
        m = vector_lesson.moves(*run(item.values()[k]), t)
        said = {vector_words.PASS_WORDS: pieces(vector_words.pass_on_text(t, 5, m.probs, vocab)),
                vector_words.TABLE_WORDS: pieces(markdown_table(vector_words.step_frame(m), 4))}
        for key, w in said.items():
            got = list(f[key]["pieces"])
            for j, u in zip(f[key]["vary"], f[key]["frames"][k]):
                got[j] = u
            assert got == w, (key, k)
        seen.add(said[vector_words.PASS_WORDS][-1])
    assert len(seen) == 3  # the sentence's probability changes with the radius
    assert vector_words.scrubs(dataclasses.replace(s, by_hand=True), 1.0, t, room) == []  # typed weights: none


def test_vector_frames_follow_the_output_size_where_the_inputs_are_vectors():
    """Typed vectors (no vocabulary): K has a slider, whose drag the six moves follow, each frame the page's own chart
    for the weights generated at that K; W_h's charts and the states do not move with it. Text has no K slider."""
    from rnnviz.figures import vector as vector_figures
    from rnnviz.lessons import vector as vector_lesson
    from ui.lessons import vector as vector_words

    x, t = np.array([[1.0, 0.0], [0.5, -1.0], [0.0, 2.0]]), 2
    s = vector_words.Settings(x, None, None, H=3, K=2, seed=0, radius=0.9, by_hand=False)
    every = vector_words.scrubs(s, 1.0, t, False)
    item, = [i for i in every if i.slider == "vector.K"]
    assert (item.chart, item.value, item.lo, item.hi, item.step) == ("vector.moves", 2, 1, 64, 1)

    def moves(v):  # the page's own calls, with K at v
        w = vector_lesson.generate(2, 3, v, 0, 0.9)
        setup = vector_lesson.VectorSetup(x, w["W_x"], w["W_h"], w["b"], w["W_y"], w["b_y"], np.zeros(3), None)
        trace = vector_lesson.run(setup)
        return vector_figures.six_moves(vector_lesson.moves(setup, trace, t), None, 1.0, vector_words.MOVE_TITLES,
                                        vector_lesson.moves_scale(setup, trace))
    check(item, moves)
    assert plain(moves(2).to_dict()) != plain(moves(5).to_dict())  # the scores' panel grows with K
    chars = vector_words.Settings(np.eye(2)[[0, 1, 1]], list("abb"), list("ab"), 3, 2, 0, 0.9, False)
    assert "vector.K" not in {i.slider for i in vector_words.scrubs(chars, 1.0, t, False)}


@pytest.mark.parametrize("room", [False, True])
def test_vector_frames_follow_the_hidden_size_up_to_each_charts_own_range(room):
    """A drag of H: the singular values, the moves and the states at each size (the page's own calls); W_h's heatmap
    only up to the size the page draws it at; move ⑥'s sentence follows and the step's table (a row per unit) greys."""
    from rnnviz.figures import vector as vector_figures
    from rnnviz.lessons import vector as vector_lesson
    from rnnviz.live.words import pieces
    from ui.lessons import vector as vector_words

    chars, vocab, t = list("hello"), list("helo"), 4
    x = np.eye(4)[[0, 1, 2, 2, 3]]
    s = vector_words.Settings(x, chars, vocab, H=3, K=4, seed=0, radius=0.9, by_hand=False)
    items = {i.chart: i for i in vector_words.scrubs(s, 1.0, t, room) if i.slider == "vector.H"}
    assert set(items) == {"vector.sv", "vector.Wh", "vector.moves", "vector.heat"}
    assert items["vector.Wh"].hi == vector_words.HEATMAP_MAX_H and items["vector.moves"].hi == 64

    def run(v):  # the page's own calls, with H at v
        H = int(v)
        w = vector_lesson.generate(4, H, 4, 0, 0.9)
        setup = vector_lesson.VectorSetup(x, w["W_x"], w["W_h"], w["b"], w["W_y"], w["b_y"], np.zeros(H), chars)
        return setup, vector_lesson.run(setup)

    def moves(v):
        setup, trace = run(v)
        titles = vector_words.MOVE_NAMES if room else vector_words.MOVE_TITLES
        return vector_figures.six_moves(vector_lesson.moves(setup, trace, t), vocab, 1.0, titles,
                                        vector_lesson.moves_scale(setup, trace))
    check(items["vector.sv"], lambda v: vector_words.spectrum_chart(run(v)[0].W_h, 1.0))
    check(items["vector.Wh"], lambda v: vector_words.memory_chart(run(v)[0].W_h, 1.0))
    check(items["vector.moves"], moves)
    check(items["vector.heat"], lambda v: vector_figures.states_heatmap(run(v)[1].h, chars, 1.0, current=t - 1))
    frames = json.loads(scrub._compute(items["vector.moves"], items["vector.moves"].values()))
    assert frames["stale"] == [vector_words.TABLE_WORDS]
    for k in (0, 40, 63):
        m = vector_lesson.moves(*run(frames["values"][k]), t)
        assert unpacked(frames["words"][vector_words.PASS_WORDS], k) == pieces(
            vector_words.pass_on_text(t, 5, m.probs, vocab))


@pytest.mark.parametrize("which", ["bf", "radius", "H"])
def test_gate_frames_are_the_heatmaps_and_the_step_sentence_at_each_value(which):
    from rnnviz.figures import gates as gate_figures
    from rnnviz.lessons import gates as gate_lesson
    from rnnviz.live.words import pieces
    from ui.lessons import gates as gate_words

    x = np.eye(4)[[0, 1, 2, 2, 3]]
    c = gate_words.GateSetup("lstm", x, list("hello"), 3, 0, 0.9, 1.0, False)
    item = {i.slider: i for i in gate_words.scrubs(c, 2, 1.0, False)}[f"gates.{which}"]

    def at(v):
        return dataclasses.replace(c, **{which: int(v) if which == "H" else v})

    def model(v):  # the page's own calls, with the slider at v
        s = at(v)
        return gate_lesson.run("lstm", x, gate_lesson.generate("lstm", 4, s.H, 0, s.radius, s.bf))
    check(item, lambda v: gate_figures.gate_heatmaps(model(v), gate_lesson.panels("lstm"), c.chars, current=1,
                                                    font_scale=1.0, split=False))
    frames = json.loads(scrub._compute(item, item.values()))
    for k in (0, len(item.values()) // 2, len(item.values()) - 1):
        v = item.values()[k]
        said = {gate_words.STEP_WORDS: pieces(gate_words.step_words(at(v), model(v), 2)),
                gate_words.COLOUR_WORDS: pieces(gate_words.colour_key(gate_lesson.panels("lstm"), model(v), 2, 5))}
        if which == "bf":  # where the forget gates start, under the slider
            said[gate_words.FORGET_WORDS] = pieces(gate_words.forget_caption(v))
        assert {key: unpacked(w, k) for key, w in frames["words"].items()} == said, v
    # the shapes paragraph (its numbers are H's) greys through a drag of H, and only of H
    assert frames.get("stale", []) == ([gate_words.SHAPE_WORDS] if which == "H" else [])
    gru = dataclasses.replace(c, cell="gru", bf=0.0)
    assert [i.slider for i in gate_words.scrubs(gru, 2, 1.0, False)] == ["gates.H", "gates.radius"]  # no b_f


@pytest.mark.parametrize("which", ["bf", "radius", "H"])
def test_lockstep_frames_are_the_survival_chart_and_its_sentence_at_each_value(which):
    """The three untrained cells: the chart of how much of x₁ survives follows the radius, b_f and the LSTM's H (the
    others' sizes follow from it), its sentence too; each frame the page's own chart and words (ui/lagview.py
    three_cells) for the cells at that value."""
    from rnnviz.figures import gates as gate_figures
    from rnnviz.lessons import gates as gate_lesson
    from rnnviz.lessons.memory import memory
    from ui import lagview
    from ui.lessons import gates as gate_words, gates_memory as memory_words

    x = np.eye(4)[[0, 1, 2, 2, 3, 1, 0]]
    c = gate_words.GateSetup("lstm", x, list("helllo!"), 3, 2, 0.9, 1.0, False)
    item = {i.slider: i for i in lagview.memory_scrubs(c, 1.0)}[f"gates.{which}"]
    assert item.chart == "gates.memory"

    def page(v):  # the page's own calls, with the slider at v
        s = dataclasses.replace(c, **{which: v})
        model = gate_lesson.lockstep(x, s.H, 2, s.radius, s.bf)
        return model, memory(model, False)
    check(item, lambda v: gate_figures.survival_figure(page(v)[1].norms, page(v)[0].sizes, None, 1.0))
    words = json.loads(scrub._compute(item, item.values()))["words"]
    for k in (0, len(item.values()) // 2, len(item.values()) - 1):
        model, mem = page(item.values()[k])
        assert unpacked(words[lagview.MEMORY_WORDS], k) == pieces(
            memory_words.MEMORY_ABOUT + " " + memory_words.memory_text(mem, model)), k
        bf = item.values()[k] if which == "bf" else c.bf  # where the forget gates start, under b_f's slider
        assert unpacked(words[gate_words.FORGET_WORDS], k) == pieces(gate_words.forget_caption(bf)), k
    # the three sizes (typeset maths) grey through a drag of H, and only of H
    assert json.loads(scrub._compute(item, item.values())).get("stale", []) == (
        [lagview.SIZES_WORDS] if which == "H" else [])


def test_valve_frames_are_its_chart_sentence_and_table_at_each_number_of_steps():
    """The gates page's valve: its chart follows a drag of Steps, its sentence and its table (t = 1, 10, T) with it;
    each frame the page's own chart and words for the valve run that long."""
    from rnnviz.figures import gates as gate_figures
    from rnnviz.lessons.gates import valve_experiment
    from ui.lessons import gates as gate_words
    from ui.widgets import markdown_table

    item, = gate_words.valve_scrubs(400, 1.0)
    assert (item.slider, item.chart, item.lo, item.hi, item.step) == ("gates.T", "gates.valve", 10, 2000, 10)
    item = dataclasses.replace(item, span=9)  # a window of 9 notches, not 101 runs of up to 1,010 steps (10 s)
    check(item, lambda v: gate_figures.valve_figure(valve_experiment(v), 1.0))
    frames = json.loads(scrub._compute(item, item.values()))
    for k in (0, len(item.values()) - 1):
        res = valve_experiment(item.values()[k])
        assert unpacked(frames["words"][gate_words.VALVE_WORDS], k) == pieces(gate_words.valve_text(res))
        table = unpacked(frames["words"][gate_words.VALVE_TABLE], k)
        assert table == pieces(markdown_table(gate_words.valve_table(res)))
        assert str(item.values()[k]) in table and f"{res.lstm.c[-1, 0]:.4f}" in table  # the row at t = T
