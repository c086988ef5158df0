"""The class questions' exact answers against torch (float64): each from the lesson page's own setup, as the
page computes it, and the reveal's summary (right within the tolerance, counts per option or per bin)."""
import json

import numpy as np
import plotly.graph_objects as go
import pytest
import torch
from safetensors.torch import load_file

from rnnviz import charlm
from rnnviz.charlm import CharRNNConfig
from rnnviz.charlm.model import CharRNN
from rnnviz.lessons import gradients, vector
from rnnviz.lessons.gates import generate as gate_weights
from rnnviz.rooms import questions as Q


@pytest.fixture(autouse=True)
def float64():
    """torch in float64 for these tests only (set at import, it leaked into every later test of the session)."""
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(before)


def torch_rnn(W_ih, W_hh, b_ih, b_hh, x, h0=None):
    """torch.nn.RNN with these weights over x (T, d); its states (T, H)."""
    H, d = np.shape(W_ih)
    rnn = torch.nn.RNN(d, H, bias=True)
    with torch.no_grad():
        for name, v in zip(("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"), (W_ih, W_hh, b_ih, b_hh)):
            getattr(rnn, name).copy_(torch.as_tensor(np.asarray(v, float)))
    h0 = torch.zeros(1, H) if h0 is None else torch.as_tensor(np.asarray(h0, float)).reshape(1, H)
    return rnn(torch.as_tensor(np.asarray(x, float)), h0)[0].detach().numpy()


@pytest.mark.parametrize("wx,wh,b,h0,x,t", [(1, 0.5, 0, 0, [1, 0, 0], 3), (2, -1.5, 0.3, 0.2, [1, -2, 0.5, 3], 2)])
def test_the_one_unit_state_is_torchs(wx, wh, b, h0, x, t):
    a = Q.scalar_state(x, wx, wh, b, h0, t)
    h = torch_rnn([[wx]], [[wh]], [b], [0], np.reshape(x, (-1, 1)), [h0])
    assert a.truth == pytest.approx(h[t - 1, 0], abs=1e-12) and (a.lo, a.hi, a.kind) == (-1, 1, "number")


def test_where_the_state_settles_is_where_torchs_silent_cell_goes():
    a = Q.scalar_settle([1, 0, 0], 1, 2.0, 0, 0)
    h = torch_rnn([[1.0]], [[2.0]], [0.0], [0.0], np.zeros((400, 1)), [np.tanh(np.tanh(2 * np.tanh(1.0)) * 2)])
    assert a.truth == pytest.approx(h[-1, 0], abs=1e-9) and a.truth > 0.9  # the positive stable fixed point
    assert Q.scalar_settle([1, 0, 0], 1, -3.0, 0, 0) is None  # w_h = -3: a 2-cycle, no single answer
    assert Q.scalar_settle([1], 1, 0.5, 0.4, 0).truth == pytest.approx(np.tanh(0.5 * Q.scalar_settle(
        [1], 1, 0.5, 0.4, 0).truth + 0.4), abs=1e-9)


def test_the_largest_unit_is_torchs():
    x = vector.encode_word("hello", list("helo"))
    for seed in range(3):
        a = Q.vector_largest_unit(x, 4, 2, seed, 0.9)
        w = vector.generate(4, 4, 2, seed, 0.9)
        h = torch_rnn(w["W_x"], w["W_h"], w["b"], np.zeros(4), x)[-1]
        assert int(a.truth) == int(np.argmax(h)) and np.allclose(a.facts, h, atol=1e-12)
        assert a.options == (1, 2, 3, 4)


@pytest.mark.parametrize("scale,by", [(0.9, "sigma"), (1.5, "rho")])
def test_above_or_below_is_torch_autograds_norm(scale, by):
    H, T, xs, seed = 8, 30, 0.5, 1
    a = Q.gradient_threshold(H, T, scale, by, 1.0, 0.0, xs, seed)
    w = gradients.recurrent_weights("rnn", H, seed, scale, by)
    x = xs * np.random.default_rng(seed).normal(size=(T, gradients.INPUT_SIZE))  # as the page draws its inputs

    def h_T(h0):
        h = h0
        for t in range(T):
            h = torch.tanh(torch.as_tensor(w["W_ih"]) @ torch.as_tensor(x[t]) + torch.as_tensor(w["W_hh"]) @ h)
        return h
    J = torch.autograd.functional.jacobian(h_T, torch.zeros(H))
    log10 = np.log10(torch.linalg.matrix_norm(J, 2).item())
    assert a.facts[0] == pytest.approx(log10, abs=1e-8)
    assert a.options[int(a.truth)] == ("above" if log10 > -3 else "below")


def test_which_cell_holds_x1_ranks_torch_autograds_norms():
    a = Q.gates_memory(3, 0, 0.9, 1.0)
    assert a.options == ("rnn", "lstm", "gru") and int(a.truth) == int(np.argmax(a.facts))
    w = gradients.recurrent_weights("rnn", 3, 0, 0.9, "rho")
    x = np.random.default_rng(0).normal(size=(50, gradients.INPUT_SIZE))
    h1 = torch_rnn(w["W_ih"], w["W_hh"], w["b_ih"], w["b_hh"], x[:1])[0]

    def h_T(h):
        for t in range(1, 50):
            h = torch.tanh(torch.as_tensor(w["W_ih"]) @ torch.as_tensor(x[t]) + torch.as_tensor(w["W_hh"]) @ h)
        return h
    J = torch.autograd.functional.jacobian(h_T, torch.as_tensor(h1))
    assert a.facts[0] == pytest.approx(np.log10(torch.linalg.matrix_norm(J, 2).item()), abs=1e-8)
    assert a.options[int(a.truth)] == "lstm"  # forget bias 1 keeps the cell path open: the lesson's point


@pytest.mark.parametrize("cell", ["lstm", "gru"])
def test_a_gate_value_is_torchs(cell):
    x = vector.encode_word("hello", list("helo"))
    t, H = 3, 3
    a = Q.gate_value(cell, x, H, 0, 0.9, 1.0, t)
    w = gate_weights(cell, 4, H, 0, 0.9, 1.0 if cell == "lstm" else 0.0)
    mod = (torch.nn.LSTM if cell == "lstm" else torch.nn.GRU)(4, H)
    with torch.no_grad():
        for k in ("W_ih", "W_hh", "b_ih", "b_hh"):
            getattr(mod, f"{'weight' if k[0] == 'W' else 'bias'}_{k[-2:]}_l0").copy_(torch.as_tensor(w[k]))
    out, _ = mod(torch.as_tensor(x[:t - 1]))
    h_prev = out[-1] if t > 1 else torch.zeros(H)
    pre = mod.weight_ih_l0 @ torch.as_tensor(x[t - 1]) + mod.bias_ih_l0 + mod.weight_hh_l0 @ h_prev + mod.bias_hh_l0
    gate = torch.sigmoid(pre[H:2 * H])  # torch's order: i, f, g, o (LSTM) and r, z, n (GRU): the second block
    assert a.truth == pytest.approx(gate[0].item(), abs=1e-12)


@pytest.mark.parametrize("task,cell,layers,bi,emb", [("lm", "rnn", 1, False, 0), ("classifier", "gru", 2, True, 50),
                                                     ("classifier", "lstm", 1, False, 0)])
def test_a_parameter_count_is_torchs(task, cell, layers, bi, emb):
    d, H, V, K = 12, 16, 30, 4
    a = Q.parameter_count(task, cell, d, H, V, K, emb, layers, bi)
    rnn = {"rnn": torch.nn.RNN, "gru": torch.nn.GRU, "lstm": torch.nn.LSTM}[cell](
        d, H, num_layers=layers, bidirectional=bi)
    parts = [rnn]
    if task == "lm":
        parts += [torch.nn.Embedding(V, d), torch.nn.Linear(H, V)]
    else:
        parts += [torch.nn.Linear(H * (2 if bi else 1), K)] + ([torch.nn.Embedding(emb, d)] if emb else [])
    assert a.truth == sum(p.numel() for m in parts for p in m.parameters())
    assert a.tol == pytest.approx(0.1 * a.truth)


def test_softmax_first_is_torchs():
    scores = [1.0, 2.2, -3.0, 4.1]
    assert Q.softmax_first(scores).truth == pytest.approx(torch.softmax(torch.tensor(scores), 0)[0].item(), abs=1e-12)


@pytest.mark.parametrize("a,b,x,t", [(0.9, 1.0, [1, 0, 0, 0, 0, 0, 0, 0], 8), (1.2, -0.5, [1, 2, -1, 0.5], 3),
                                      (-0.7, 2.0, [0.3] * 12, 12)])
def test_the_linear_state_is_a_torch_loops(a, b, x, t):
    h = torch.zeros((), dtype=torch.float64)
    for v in torch.tensor(x, dtype=torch.float64)[:t]:  # h_t = a h_(t-1) + b x_t, from h_0 = 0, written here
        h = a * h + b * v
    ans = Q.linear_state(x, a, b, t)
    assert ans.kind == "number" and abs(ans.truth - h.item()) < 1e-12
    assert ans.lo <= ans.truth <= ans.hi and Q.is_right("number", ans.truth, ans.tol, ans.truth + 0.04)
    assert not Q.is_right("number", ans.truth, ans.tol, ans.truth + max(0.06, 0.06 * abs(ans.truth)))


def test_the_next_character_is_the_torch_models():
    lm = charlm.load(charlm.SHIPPED_MODEL)
    card = json.loads(charlm.SHIPPED_MODEL.with_suffix(".json").read_text())
    model = CharRNN(CharRNNConfig.from_card(card)).float().eval()
    model.load_state_dict(load_file(str(charlm.SHIPPED_MODEL)))
    for prime in ("ROMEO:", "To be, or not to b"):
        with torch.no_grad():
            logits, _, _ = model(torch.tensor([lm.encode(lm.warmup + prime)]))
        p = torch.softmax(logits[0, -1].double(), -1).numpy()
        a, b = Q.next_character(lm, prime), Q.next_probability(lm, prime)
        assert a.options[int(a.truth)] == lm.itos[int(np.argmax(p))] and b.truth == pytest.approx(p.max(), abs=1e-5)
        assert sorted(a.options, key=lm.stoi.get) == list(a.options) and len(a.options) == 4  # not by probability
        assert set(a.options) == {lm.itos[i] for i in np.argsort(-p)[:4]}


def test_a_round_is_scored_by_distance_and_binned():
    r = Q.summarise("number", 0.3, 0.05, [0.1, 0.3, 0.34, 0.9], -1, 1)
    assert (r.n, r.right, r.counts.sum(), r.median_error) == (4, 2, 4, pytest.approx(0.12))
    assert r.edges[0] <= 0.1 and r.edges[-1] >= 0.9
    c = Q.summarise("choice", 1, 0, [0, 1, 1, 2, 1], options=3)
    assert (c.right, list(c.counts)) == (3, [1, 3, 1])
    empty = Q.summarise("number", 0.3, 0.05, [], -1, 1)
    assert empty.n == 0 and np.isnan(empty.median_error)


def test_the_reveal_draws_both_rounds_against_the_truth():
    from rnnviz.rooms.figure import reveal_figure

    c1, c2 = Q.summarise("choice", 1, 0, [0, 1, 2], options=3), Q.summarise("choice", 1, 0, [1, 1, 2], options=3)
    fig = reveal_figure(["a", "b ✓", "c"], {1: (c1.counts, c1.edges), 2: (c2.counts, c2.edges)}, 1, "b", 1)
    assert [list(t.y) for t in fig.data] == [[1, 1, 1], [0, 2, 1]] and fig.layout.showlegend
    assert list(fig.data[1].marker.line.width) == [0, 3, 0]  # the right option outlined
    y = fig.layout.yaxis  # a class of two or three: whole answers on the axis, and the counts above the bars in it
    assert y.dtick == 1 and y.tickformat == "d" and y.range[0] == 0 and y.range[1] > 2.2
    big = reveal_figure(["a", "b"], {1: (np.array([12, 31]), np.array([]))}, 1, "b", 1).layout.yaxis
    assert big.dtick == 10 and big.range[1] > 31  # about five ticks for a hall, at round numbers (not 0, 7, 14)
    from rnnviz.rooms.figure import count_step, tally_on

    assert [count_step(t) for t in (1, 5, 6, 11, 31, 60, 300)] == [1, 1, 2, 5, 10, 20, 100]
    fig = go.Figure(layout=dict(height=400, margin=dict(b=150)))
    tally_on(fig, "the class<br>a: 1<br>b: 2", font_scale=1.0)  # three lines under what is below the plot
    [box] = fig.layout.annotations
    assert fig.layout.height == 400 + 64 and fig.layout.margin.b == 150 + 64  # grown by the box: 3 × 17.5 + 12
    assert (box.yref, box.y, box.yanchor, box.yshift) == ("paper", 0, "top", -150)  # under the old margin's content
    n = Q.summarise("number", 0.18, 0.05, [0.18, 0.5, -0.3], -1, 1)
    fig = reveal_figure(None, {1: (n.counts, n.edges)}, 0.18, "exact: 0.180")
    assert sum(fig.data[0].y) == 3 and fig.layout.shapes[0].x0 == 0.18  # the truth as a line
