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


def count_training_work(monkeypatch):
    """Replace loss_and_grads by a counter of the work each training step would do (vocabulary x text length x H,
    as budgeted), returning zero gradients: the test counts work, it does not time it."""
    from rnnviz.lessons import hello

    done = {"steps": 0, "work": 0}

    def counted(p, x, y):
        H, V = p["W_hh"].shape[0], p["W_y"].shape[0]
        done["steps"] += 1
        done["work"] += hello.step_work(V, int((y >= 0).sum()) + 1, H)
        return 1.0, {k: np.zeros_like(v) for k, v in p.items()}

    monkeypatch.setattr(hello, "loss_and_grads", counted)
    return done


def test_training_work_is_bounded_by_the_budget(monkeypatch):
    from rnnviz.lessons import hello
    from ui.lessons.hello import budget_message  # the cap in words

    done = count_training_work(monkeypatch)
    text = "".join(chr(0x4E00 + k) for k in range(2000))  # 2,000 distinct characters: the heaviest text there is
    r = train(text, 32, 1000, seed=0)
    assert done["work"] <= hello.WORK_BUDGET and done["steps"] == len(r.losses) == 3 and r.asked == 1000
    assert budget_message(text, 32, 1000).startswith("Training is capped at 3 of the 1,000 steps asked")
    done.update(steps=0, work=0)
    train("hello", 3, 300, seed=0)  # the lesson's own setup is far inside the budget
    assert done["steps"] == 300 and budget_message("hello", 3, 300) is None
    for text, H, steps in [("ab" * 1000, 32, 1000), (open_excerpt()[:2000], 32, 1000), ("x" * 2000, 1, 1000)]:
        done.update(steps=0, work=0)
        r = train(text, H, steps, seed=0)
        assert done["work"] <= hello.WORK_BUDGET and done["steps"] == hello.steps_within_budget(text, H, steps) < steps


def open_excerpt() -> str:
    from tests.conftest import ROOT

    path = ROOT / "models" / "shakespeare_excerpt.txt"
    return path.read_text() if path.exists() else "the quick brown fox jumps over the lazy dog. " * 50
