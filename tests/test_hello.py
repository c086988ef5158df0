"""The hello model's hand-written BPTT against torch.autograd, and training it."""
import numpy as np
import pytest
import torch

from rnnviz.lessons.hello import _chunks, _init, check_text, loss_and_grads, read, sample, train


@pytest.mark.parametrize("text,H", [("hello", 3), ("the quick brown fox jumps over the lazy dog " * 3, 7)])
def test_bptt_gradients_match_autograd(text, H):
    vocab = list(dict.fromkeys(text))
    V = len(vocab)
    p = _init(V, H, seed=1)
    x, y = _chunks([vocab.index(c) for c in text])
    loss, g = loss_and_grads(p, x, y)
    rnn, head = torch.nn.RNN(V, H, batch_first=True).double(), torch.nn.Linear(H, V).double()
    with torch.no_grad():
        for mod, names in ((rnn, [("weight_ih_l0", "W_ih"), ("weight_hh_l0", "W_hh"), ("bias_ih_l0", "b_ih"),
                                  ("bias_hh_l0", "b_hh")]), (head, [("weight", "W_y"), ("bias", "b_y")])):
            for tn, k in names:
                getattr(mod, tn).copy_(torch.from_numpy(p[k]))
    out, _ = rnn(torch.nn.functional.one_hot(torch.from_numpy(x), V).double())
    tl = torch.nn.functional.cross_entropy(head(out).reshape(-1, V), torch.from_numpy(y).reshape(-1), ignore_index=-1)
    tl.backward()
    assert loss == pytest.approx(tl.item(), abs=1e-12)
    for tn, k in [("weight_ih_l0", "W_ih"), ("weight_hh_l0", "W_hh"), ("bias_ih_l0", "b_ih"), ("bias_hh_l0", "b_hh")]:
        np.testing.assert_allclose(g[k], getattr(rnn, tn).grad.numpy(), atol=1e-10)
    np.testing.assert_allclose(g["W_y"], head.weight.grad.numpy(), atol=1e-10)
    np.testing.assert_allclose(g["b_y"], head.bias.grad.numpy(), atol=1e-10)


def test_hello_is_learned_and_both_ls_are_told_apart():
    r = train("hello", 3, 300, seed=0)
    steps = read("hello", r.weights)
    assert steps.loss < 0.01 and r.losses[0] > 1.0
    assert [r.weights.vocab[i] for i in steps.probs.argmax(axis=1)] == list("ello")
    assert sample(r.weights, "h", 4, temperature=0.1, seed=0) == "ello"


def test_bad_texts():
    for bad in ("", "a", "x" * 2001, "ab\x07"):
        with pytest.raises(ValueError):
            check_text(bad)
